"""Machinery shared by the exercise checks.

A check runs the student's function on several generated inputs, compares it
with ``lib``'s reference, and returns a :class:`CheckResult` whose text names
the *first* problem in plain words.  Three rules hold for every check:

* it never shows the reference answer for the exercise's own inputs;
* it never crashes: wrong types, exceptions raised inside the student's code
  and ``NotImplementedError`` all become messages;
* a pass says what was checked, so "passed" is never read as "proved correct".

Chapter modules (``lib/checks/chNN.py``) build their checks from
:func:`check` (a decorator), :func:`call`, :func:`expect_array`,
:func:`expect_scalar` and :class:`Failure`.

Delegation.  An exercise that asks for a function ``lib`` also implements is
not done by calling ``lib``.  A check names, in one place, the ``lib``
functions an answer may not use: ``@check(..., forbid=("lib.mle.bernoulli_mle",))``
(the decorated check carries the tuple as its attribute ``forbid``).  While
:func:`call` runs the student's function, :func:`tripwires` replaces the code
of each of those functions by a stub that raises :class:`Delegation`, however
the student reached it (``lib.mle.bernoulli_mle``, ``from lib.mle import
bernoulli_mle``, an alias, or the function itself handed in as the answer);
the check turns that into a plain failure.  The check's own reference
computations run outside :func:`call` and use ``lib`` normally.  The grader
(tools/grade.py) applies the same tuple on its side:
``with tripwires(check_fn.forbid): ...``.
"""

import contextvars
import functools
import importlib
import math
import threading
import traceback
import types

import numpy as np

__all__ = [
    "CheckResult",
    "Delegation",
    "Failure",
    "NotImplementedYet",
    "check",
    "call",
    "tripwires",
    "watched",
    "expect_array",
    "expect_scalar",
    "expect_tuple",
]


class CheckResult:
    """Outcome of one exercise check.

    Attributes
    ----------
    exercise : str
        The exercise's label, e.g. ``"ex-bernoulli-mle"``.
    status : {"passed", "failed", "not implemented"}
    message : str
        What a student reads.

    The notebook shows the message (``repr``); ``bool(result)`` is ``True``
    only for a pass, so tests can ``assert check(...)``.
    """

    def __init__(self, exercise, status, message):
        self.exercise = exercise
        self.status = status
        self.message = message

    @property
    def passed(self):
        return self.status == "passed"

    def __bool__(self):
        return self.passed

    def __repr__(self):
        mark = {"passed": "PASSED", "failed": "NOT YET", "not implemented": "TO DO"}[self.status]
        return f"[{mark}] {self.exercise}: {self.message}"

    __str__ = __repr__


class Failure(Exception):
    """Raised inside a check to report a mistake; its text is shown to the student."""


class NotImplementedYet(Exception):
    """Raised when the student's function still raises ``NotImplementedError`` or returns ``...``."""


# ------------------------------------------------------------- tripwires --

class Delegation(Exception):
    """A ``lib`` function that the running check forbids was called; ``name`` is its dotted name."""

    def __init__(self, name):
        super().__init__(f"`{name}` was called while a tripwire was set on it")
        self.name = name


def delegation_message(name, itself=False):
    """What the student reads when their answer calls (or is) the forbidden ``lib`` function ``name``."""
    what = f"your answer is `{name}` itself" if itself else f"your function calls `{name}`"
    return (f"{what}; this exercise asks you to write it. The check sets a tripwire on `{name}` while "
            "your function runs: write the computation yourself.")


# The forbid tuple of the check whose body is running (set by `check`, read by `call`).
_FORBID = contextvars.ContextVar("lib_checks_forbid", default=())
# Whether a tripped function raises (True: the student's code is running) or runs its own code
# (False: a check's reference computation).  `check` disarms while its body runs, `watched` arms
# while the student's function runs; outside any check (a grader calling the student's function
# under `tripwires`) the wires are armed.
_ARMED = contextvars.ContextVar("lib_checks_armed", default=True)
# The name under which stubs find `_trip` in the tripped function's module globals (one per copy
# of this module: a grader may load a second copy of lib).
_HOOK = f"__lib_checks_tripwire_{id(_FORBID):x}__"
_ACTIVE = {}  # id(function) -> {"func", "code" (its own), "run" (a copy running it), "fired": [lists]}
_INJECTED = {}  # id(module globals) -> [globals, number of stubs that use the hook]
_LOCK = threading.RLock()


def _trip(key, name, args, kwargs):
    """What a stubbed function does: raise :class:`Delegation` when armed, else run its own code."""
    entry = _ACTIVE.get(key)
    if entry is None:  # pragma: no cover - a stub outlived its tripwires
        raise Delegation(name)
    if _ARMED.get():
        entry["fired"][-1].append(name)
        raise Delegation(name)
    return entry["run"](*args, **kwargs)


def resolve(dotted):
    """The function object named ``dotted`` ("lib.mle.bernoulli_mle", "lib.mixture.GaussianMixture.fit").

    Imports the longest importable module prefix and follows attributes from
    there.  Raises ValueError when the name does not lead to a Python function
    (a tripwire can only be set on one).
    """
    if not isinstance(dotted, str) or not dotted:
        raise TypeError(f"a forbidden name must be a dotted name such as 'lib.mle.bernoulli_mle', got {dotted!r}")
    parts = dotted.split(".")
    for cut in range(len(parts) - 1, 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        try:
            for attr in parts[cut:]:
                obj = getattr(obj, attr)
        except AttributeError:
            raise ValueError(f"{dotted!r}: {'.'.join(parts[:cut])} has no attribute path {'.'.join(parts[cut:])}") \
                from None
        obj = getattr(obj, "__func__", obj)  # a classmethod or bound method: its function
        if not hasattr(obj, "__code__"):
            raise ValueError(f"{dotted!r} is a {type(obj).__name__}, not a Python function: no tripwire fits it")
        return obj
    raise ValueError(f"{dotted!r}: no importable module in this name")


def _targets(names):
    """[(dotted name, function)] for ``names``, each resolved in ``lib`` and in this copy of lib.

    A grader that loads a fresh copy of ``lib`` under another package name
    sets tripwires in both: the student's cells imported the ordinary one.
    """
    own_root = __name__.split(".")[0]
    out, seen = [], set()
    for name in names:
        root, _, rest = name.partition(".")
        candidates = [name] + ([f"{own_root}.{rest}"] if root == "lib" and own_root != "lib" else [])
        problem = None
        found = False
        for candidate in candidates:
            try:
                func = resolve(candidate)
            except ValueError as exc:
                problem = problem or exc
                continue
            found = True
            if id(func) not in seen:
                seen.add(id(func))
                out.append((name, func))
        if not found:
            raise problem
    return out


def _stub_code(key, name, freevars):
    """A code object that hands its call to ``_trip(key, name, ...)``, with the free variables ``freevars``.

    A function's ``__code__`` can only be swapped for code with the same free
    variables, so the stub declares (and never uses) the original's.
    """
    lines = ["def _outer():"]
    if freevars:
        lines.append(f"    {', '.join(freevars)} = {', '.join(['None'] * len(freevars))}")
    lines.append("    def _tripwire(*_args, **_kwargs):")
    if freevars:
        lines.append(f"        ({', '.join(freevars)},)")
    lines.append(f"        return {_HOOK}({key!r}, {name!r}, _args, _kwargs)")
    lines.append("    return _tripwire")
    namespace = {}
    exec(compile("\n".join(lines), f"<tripwire {name}>", "exec"), namespace)
    code = namespace["_outer"]().__code__
    if code.co_freevars != freevars:  # pragma: no cover - CPython orders free variables by name
        raise ValueError(f"cannot build a tripwire for {name} (free variables {freevars})")
    return code


def _arm(name, func, fired):
    """Stub ``func`` (once, however many tripwires cover it) and register ``fired`` as its innermost list."""
    key = id(func)
    entry = _ACTIVE.get(key)
    if entry is None:
        code = func.__code__
        run = types.FunctionType(code, func.__globals__, func.__name__, func.__defaults__, func.__closure__)
        run.__kwdefaults__ = dict(func.__kwdefaults__) if func.__kwdefaults__ else None
        stub = _stub_code(key, name, code.co_freevars)
        renamed = {"co_name": code.co_name}
        if hasattr(stub, "co_qualname"):  # Python >= 3.11
            renamed["co_qualname"] = code.co_qualname
        module_globals = func.__globals__
        injected = _INJECTED.setdefault(id(module_globals), [module_globals, 0])
        injected[1] += 1
        module_globals[_HOOK] = _trip
        entry = _ACTIVE[key] = {"func": func, "code": code, "run": run, "fired": []}
        func.__code__ = stub.replace(**renamed)
    entry["fired"].append(fired)
    return key


def _disarm(keys):
    """Undo :func:`_arm` for ``keys`` in reverse order; a function gets its code back with its last wire."""
    for key in reversed(keys):
        entry = _ACTIVE[key]
        entry["fired"].pop()
        if entry["fired"]:
            continue
        func = entry["func"]
        func.__code__ = entry["code"]
        del _ACTIVE[key]
        injected = _INJECTED[id(func.__globals__)]
        injected[1] -= 1
        if injected[1] == 0:
            injected[0].pop(_HOOK, None)
            del _INJECTED[id(func.__globals__)]


class tripwires:
    """Within ``with tripwires(names) as fired:``, a call of any named ``lib`` function raises :class:`Delegation`.

    ``names`` are dotted names ("lib.mle.bernoulli_mle").  The function's code
    is swapped for a raising stub, so every reference to it trips: the module
    attribute, a name bound by ``from lib.mle import bernoulli_mle``, an alias,
    the function object passed as an answer.  ``fired`` is a list that
    receives the name of every tripped function, in order, even when the
    student's code catches the exception.  On exit (normal or by an exception)
    every function gets its own code back; nested ``tripwires`` restore in
    reverse order.  ``tripwires(())`` does nothing.

    While a check's body runs (outside :func:`call`), a tripped function runs
    its own code: the check's reference computations keep working, so a
    grader may set the wires around a whole check
    (``with tripwires(check_fn.forbid): check_fn(answer)``).
    """

    def __init__(self, names):
        if isinstance(names, str):
            names = (names,)
        self.names = tuple(names)
        self.fired = []
        self._saved = None

    def __enter__(self):
        if self._saved is not None:
            raise RuntimeError("a tripwires object is not re-entrant; make a new one")
        targets = _targets(self.names)
        keys = []
        with _LOCK:
            try:
                for name, func in targets:
                    keys.append(_arm(name, func, self.fired))
            except BaseException:
                _disarm(keys)
                raise
        self._saved = keys
        return self.fired

    def __exit__(self, *exc):
        keys, self._saved = self._saved, []
        with _LOCK:
            _disarm(keys or [])
        return False


class watched:
    """Run the student's code under the running check's tripwires; a tripped one becomes a :class:`Failure`.

    :func:`call` uses it; a check that calls the student's function another way
    wraps that call in ``with watched(student_fn):``.  The failure is raised
    even if the student's code caught the :class:`Delegation` (or failed
    because of it).
    """

    def __init__(self, func=None, names=None):
        self.func = func
        self.names = _FORBID.get() if names is None else tuple(names)

    def __enter__(self):
        self._wires = tripwires(self.names)
        self._fired = self._wires.__enter__()
        self._armed = _ARMED.set(True)
        return self

    def __exit__(self, exc_type, exc, tb):
        _ARMED.reset(self._armed)
        self._wires.__exit__(exc_type, exc, tb)
        if self._fired:
            name = self._fired[0]
            itself = any(self.func is func for _, func in _targets([name]))
            raise Failure(delegation_message(name, itself)) from None
        return False


def check(exercise, what_was_checked, *, forbid=()):
    """Decorate a check body so that it always returns a :class:`CheckResult`.

    The body raises :class:`Failure` with a message on the first mistake and
    returns normally on success.  ``what_was_checked`` completes the sentence
    "Passed: ..." shown on success.  ``forbid`` names the ``lib`` functions
    (dotted names) that do the exercise's work: while the body runs, every
    :func:`call` of the student's function sets tripwires on them.  The
    decorated check keeps the tuple as its attribute ``forbid`` (read at each run).
    """
    if isinstance(forbid, str):
        forbid = (forbid,)
    forbid = tuple(forbid)

    def decorate(body):
        @functools.wraps(body)
        def run(*args, **kwargs):
            token, armed = _FORBID.set(tuple(run.forbid)), _ARMED.set(False)  # its own lib calls run
            try:
                body(*args, **kwargs)
            except NotImplementedYet:
                return CheckResult(
                    exercise,
                    "not implemented",
                    "not implemented yet: replace the `raise NotImplementedError` (or `...`) "
                    "with your code, run that cell again, then run this one.",
                )
            except Failure as failure:
                return CheckResult(exercise, "failed", str(failure))
            except Delegation as exc:  # a tripwire that fired outside `call` (e.g. set by the grader)
                return CheckResult(exercise, "failed", delegation_message(exc.name))
            except Exception as exc:  # a bug in the check must not look like the student's
                where = traceback.format_exception_only(type(exc), exc)[-1].strip()
                return CheckResult(
                    exercise,
                    "failed",
                    f"the check could not evaluate your answer ({where}). "
                    "Look at the types your function returns.",
                )
            finally:
                _ARMED.reset(armed)
                _FORBID.reset(token)
            return CheckResult(exercise, "passed", f"Passed: {what_was_checked}")

        run.forbid = forbid
        run.exercise = exercise
        return run

    return decorate


def call(func, *args, name=None, **kwargs):
    """Call the student's ``func`` and turn every way it can fail into a message.

    The call runs under the tripwires of the check that is running (its
    ``forbid``): an answer that calls one of those ``lib`` functions fails.
    """
    label = name or getattr(func, "__name__", "your function")
    if func is Ellipsis or func is None:
        raise NotImplementedYet()
    if not callable(func):
        raise Failure(
            f"expected a function (pass its name without parentheses), got a {type(func).__name__}."
        )
    # Give the student copies: an in-place edit of the inputs must not corrupt the reference.
    args = tuple(a.copy() if isinstance(a, np.ndarray) else a for a in args)
    error = None
    with watched(func):
        try:
            with np.errstate(all="ignore"):
                out = func(*args, **kwargs)
        except Exception as exc:  # judged after the tripwires are off
            error = exc
    if isinstance(error, Delegation):  # a tripwire set outside this check (the grader's)
        raise Failure(delegation_message(error.name)) from None
    if isinstance(error, NotImplementedError):
        raise NotImplementedYet() from None
    if error is not None:
        summary = traceback.format_exception_only(type(error), error)[-1].strip()
        raise Failure(
            f"{label} raised an exception: {summary}. Run it on a small input in a cell of its own to debug it."
        ) from None
    if out is Ellipsis:
        raise NotImplementedYet()
    if out is None:
        raise Failure(f"{label} returned None: did you forget a `return` statement?")
    return out


def expect_array(value, shape, what, *, name="your function", finite=True):
    """Return ``value`` as a float array of exactly ``shape`` or raise :class:`Failure`.

    ``finite=False`` lets NaN and infinities through, for a check that names
    their cause itself (a log-probability of -inf can be right).
    """
    if isinstance(value, dict):
        raise Failure(f"{name} returned a dict; return {what} as one numpy array of shape {tuple(shape)}.")
    if isinstance(value, tuple) and shape != () and len(shape) == 1 and len(value) != shape[0]:
        raise Failure(f"{name} returned a tuple of length {len(value)}; expected {what} as one array of shape {shape}.")
    try:
        arr = np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError):
        raise Failure(
            f"{name} should return {what} as a numeric array of shape {shape}, "
            f"got a {type(value).__name__} that numpy cannot turn into numbers."
        ) from None
    if arr.shape != tuple(shape):
        if isinstance(value, tuple):
            raise Failure(f"{name} returned a tuple of length {len(value)}; return {what} as one array of "
                          f"shape {tuple(shape)}.")
        hint = ""
        if arr.shape == tuple(shape)[::-1] and len(shape) == 2:
            hint = " It looks transposed."
        elif arr.size == int(np.prod(shape)):
            hint = " The number of entries is right: check how you reshape or stack."
        raise Failure(f"{name} should return {what} of shape {tuple(shape)}, got shape {arr.shape}.{hint}")
    if not finite:
        return arr
    if np.any(np.isnan(arr)):
        raise Failure(
            f"{name} returned NaN in {what}. If you exponentiate log-densities and then take a log "
            "(or divide by a sum that underflows to 0), work in log space with scipy.special.logsumexp."
        )
    if np.any(np.isinf(arr)):
        raise Failure(
            f"{name} returned an infinite value in {what}: a log of 0 or a division by 0. "
            "Work in log space (logsumexp) and check for empty classes or components."
        )
    return arr


def expect_tuple(value, size, what, *, name="your function"):
    """Return ``value`` (a tuple or list of ``size`` items) or raise :class:`Failure`."""
    if not isinstance(value, (tuple, list)) or len(value) != size:
        got = f"a tuple of length {len(value)}" if isinstance(value, (tuple, list)) else f"a {type(value).__name__}"
        raise Failure(f"{name} should return {what} as a tuple of {size} values, got {got}.")
    return value


def expect_scalar(value, what, *, name="your function"):
    """Return ``value`` as a Python float or raise :class:`Failure`."""
    if isinstance(value, (bool, np.bool_)):
        raise Failure(f"{name} should return {what} as a number, got a boolean.")
    arr = np.asarray(value) if not isinstance(value, (str, bytes)) else None
    if arr is None or arr.dtype.kind not in "iuf" or arr.size != 1:
        shape = "" if arr is None else f" of shape {arr.shape}"
        raise Failure(f"{name} should return {what} as a single number, got a {type(value).__name__}{shape}.")
    out = float(arr.reshape(()))
    if math.isnan(out):
        raise Failure(f"{name} returned NaN for {what}; look for 0 * log(0), 0/0 or a log of a negative number.")
    return out


def expect_ndarray(value, shape, what, *, name="your function", finite=True):
    """Like :func:`expect_array`, for a statement that asks for a numpy array: a list, a tuple or a
    number in its place fails with a message that says so (issue 44)."""
    refuse_container(value, shape, what, name=name)
    return expect_array(value, shape, what, name=name, finite=finite)


def refuse_container(value, shape, what, *, name="your function"):
    """Raise :class:`Failure` when ``value`` has ``shape`` but is a list, a tuple or a number, not a numpy
    array (the first half of :func:`expect_ndarray`, for a check that converts the value itself)."""
    if not isinstance(value, np.ndarray) and isinstance(value, (list, tuple, int, float, np.generic)) \
            and not isinstance(value, bool):
        try:
            same_shape = np.shape(value) == tuple(shape)
        except ValueError:  # ragged
            same_shape = False
        if same_shape:
            raise Failure(
                f"{name} returned a {type(value).__name__}; the statement asks for {what} as a numpy array of "
                f"shape {tuple(shape)}: build it with np.array(...) (or np.stack for a list of arrays)."
            )


def expect_count(value, what, *, name="your function"):
    """Return ``value`` as a Python int, or raise :class:`Failure`: the statement asks for an integer (a
    count), so a float, even a whole one, fails with a clear message (issue 44)."""
    if isinstance(value, (bool, np.bool_)):
        raise Failure(f"{name} should return {what} as an integer, got a boolean.")
    if isinstance(value, (int, np.integer)):
        return int(value)
    if isinstance(value, (float, np.floating)):
        raise Failure(
            f"{name} returned a float for {what}; a count is an integer. Use integer arithmetic "
            "(// instead of / for a halving that is exact, or int(...))."
        )
    shape = f" of shape {np.shape(value)}" if isinstance(value, (np.ndarray, list, tuple)) else ""
    raise Failure(f"{name} should return {what} as a single integer, got a {type(value).__name__}{shape}.")
