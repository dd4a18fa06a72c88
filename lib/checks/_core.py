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

Allow-lists.  An exercise asks the student to write a computation, so an
answer may use only what the exercise allows.  Each check names, in one place,
what an answer may call: ``@check(..., allow=("scipy.special.logsumexp",))``
(the decorated check carries the tuple as its attribute ``allow``; NumPy,
Python's standard library and :data:`BASE_ALLOW` are always allowed).  While
:func:`call` runs the student's function, :class:`tripwires` arms everything
else of the packages that compute what exercises ask (:data:`ARMED_PACKAGES`:
all of ``lib``, ``lib.checks`` included, scikit-learn, SciPy, ...), whole
packages, so that a shortcut nobody named is refused too: a Python function of
theirs entered from the answer's code, however it was reached, and a compiled
one (a ufunc such as ``scipy.special.expit``) called through its module or a
name of the answer's namespace raise :class:`Delegation`, which the check turns
into a failure that names what was called and what the answer may use.  The
check's own reference computations run outside :func:`call` and use ``lib``
normally.  The grader judges in its own process and sends the check's policy
(:func:`policy_of`) with every call of the answer into the sandboxed kernel,
where the same :class:`tripwires` apply it.

What the wires cannot stop is stated in the maintainer's guide
(guide/maintainer/grader.md): code that switches the profiler off or copies a
library's source into the answer; the similarity report (grader/similarity.py) compares each
answer with lib's own source.
"""

import contextvars
import functools
import importlib
import importlib.util
import math
import os
import sys
import sysconfig
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
    "check_rng",
    "salted",
    "tripwires",
    "watched",
    "expect_array",
    "expect_number",
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

    def __init__(self, exercise, status, message, crashed=False):
        self.exercise = exercise
        self.status = status
        self.message = message
        self.crashed = crashed  # the check's own code raised (a bug, or inputs it cannot take): not a verdict

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


# ---------------------------------------------------- what an answer may call --

#: Packages whose code computes what an exercise asks (models, estimators, densities, divergences, ...).
#: While an answer runs, every function of theirs is armed except the names its check allows: a
#: shortcut nobody has thought of is refused all the same.  Packages that are not installed are skipped;
#: one first imported by the answer is covered too (code is recognised by the file it was loaded from).
ARMED_PACKAGES = ("lib", "sklearn", "scipy", "statsmodels", "pandas", "patsy", "torch", "jax", "jaxlib",
                  "tensorflow", "keras", "sympy", "pymc", "numpyro", "pyro", "pomegranate", "xgboost",
                  "lightgbm")

#: What every answer may call besides NumPy and Python's standard library (never armed): linear algebra
#: computes nothing an exercise asks for, and the book's style asks for Cholesky solves.
BASE_ALLOW = ("scipy.linalg",)


class Delegation(Exception):
    """An answer called (or is) something its check does not allow; ``name`` is its dotted name."""

    def __init__(self, name, itself=False):
        super().__init__(f"`{name}` was called while the tripwires were set")
        self.name, self.itself = name, itself


def delegation_message(name, itself=False, allow=None):
    """What the student reads when their answer calls (or is) ``name``, which its check does not allow."""
    what = f"your answer is `{name}` itself" if itself else f"your function calls `{name}`"
    allowed = ", ".join(f"`{a}`" for a in (*BASE_ALLOW, *(allow or ())))
    return (f"{what}; this exercise asks you to write it. While your function runs it may call NumPy, Python's "
            f"standard library and {allowed}, and nothing else of lib, scikit-learn or SciPy: write the "
            "computation yourself.")


def policy_of(check_fn):
    """The plain-data policy of a decorated check: {"exercise": label, "allow": [dotted names]}.

    The grader sends it with every call of the student's function into the sandboxed kernel, where
    :class:`tripwires` applies it exactly as the student's own check cell does.
    """
    return {"exercise": str(getattr(check_fn, "exercise", "")), "allow": list(getattr(check_fn, "allow", ()))}


def _lookup(dotted):
    """The object named ``dotted`` (a module, class, function, method or other callable)."""
    if not isinstance(dotted, str) or not dotted:
        raise TypeError(f"an allowed name is a dotted name such as 'scipy.special.logsumexp', got {dotted!r}")
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
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
        return obj
    raise ValueError(f"{dotted!r}: no importable module in this name")


def resolve(dotted):
    """The Python function named ``dotted`` ("lib.mle.bernoulli_mle", "lib.mixture.GaussianMixture.fit")."""
    obj = _lookup(dotted)
    obj = getattr(obj, "__func__", obj)  # a classmethod or bound method: its function
    if not hasattr(obj, "__code__"):
        raise ValueError(f"{dotted!r} is a {type(obj).__name__}, not a Python function")
    return obj


def _codes_of(obj):
    """The code objects of a function, method, class (every method along its MRO) or object's class."""
    func = getattr(obj, "__func__", obj)
    if hasattr(func, "__code__"):
        return [func.__code__]
    cls = obj if isinstance(obj, type) else type(obj)
    out = []
    for klass in cls.__mro__:
        if klass is object:
            continue
        for value in vars(klass).values():
            if isinstance(value, (staticmethod, classmethod)):
                value = value.__func__
            if isinstance(value, property):
                out += [f.__code__ for f in (value.fget, value.fset, value.fdel) if hasattr(f, "__code__")]
            elif hasattr(value, "__code__"):
                out.append(value.__code__)
    return out


def _dirs_of(root):
    """The folders (with a trailing separator) of the package ``root``, without importing it."""
    try:
        spec = importlib.util.find_spec(root)
    except (ImportError, ValueError):
        return []
    if spec is None:
        return []
    if spec.submodule_search_locations:
        return [os.path.join(os.path.realpath(p), "") for p in spec.submodule_search_locations]
    return [os.path.realpath(spec.origin)] if spec.origin else []


def _library_dirs():
    """Where installed code lives (the standard library, site-packages): neither the student's nor armed."""
    found = set(sysconfig.get_paths().values()) | {sys.prefix, sys.base_prefix, sys.exec_prefix}
    found |= {p for p in sys.path if p and ("site-packages" in p or "dist-packages" in p)}
    return tuple(sorted(os.path.join(os.path.realpath(p), "") for p in found if p))


_ALLOWED, _ARMED_CODE, _NEUTRAL, _STUDENT = range(4)
_OWN_ROOT = __name__.split(".")[0]  # "lib" (a grader may load a copy under another name)
_ROOTS = tuple(sorted(set(ARMED_PACKAGES) | {_OWN_ROOT}))


class _Rules:
    """How the code met while an answer runs is classified, for one allow-list (built once, cached)."""

    def __init__(self, allow):
        self.allow = tuple(allow)
        self.allowed_codes, self.allowed_paths, self.allowed_ids, self._keep = set(), [], set(), []
        for name in (*BASE_ALLOW, *self.allow):
            try:
                obj = _lookup(name)
            except ValueError:
                if name.split(".")[0] in ("scipy", "sklearn"):  # an optional part missing here: nothing to allow
                    continue
                raise
            self._keep.append(obj)
            if isinstance(obj, types.ModuleType):
                paths = vars(obj).get("__path__")
                where = vars(obj).get("__file__")
                self.allowed_paths += ([os.path.join(os.path.realpath(p), "") for p in paths if isinstance(p, str)]
                                       if isinstance(paths, list) and paths else
                                       [os.path.realpath(where)] if isinstance(where, str) else [])
            elif hasattr(getattr(obj, "__func__", obj), "__code__") or isinstance(obj, type):
                self._allow_codes(_codes_of(obj))
            elif callable(obj):
                self.allowed_ids.add(id(obj))
                self._allow_codes(_codes_of(obj))
        self.allowed_paths = tuple(self.allowed_paths)
        own_package = os.path.join(os.path.dirname(os.path.dirname(os.path.realpath(__file__))), "")  # lib/
        self.armed_paths = tuple(dict.fromkeys([own_package, *(p for root in _ROOTS for p in _dirs_of(root))]))
        self.own_path = os.path.realpath(__file__)  # this machinery: neither armed nor the student's
        self.library_paths = _library_dirs()
        self._kinds = {}
        self._c_callables, self._c_seen = [], -1
        self.armed_ids = {}

    def _allow_codes(self, codes):
        for code in codes:
            self._keep.append(code)  # alive, so that its id stays its own
            self.allowed_codes.add(id(code))

    def kind(self, code):
        # Code objects are keyed by identity, never by equality: equal code objects may come from different
        # files (a clone of lib's function under another file name equals lib's own), and a clone that ran
        # first must not make lib's own function count as the student's (issue 49).
        entry = self._kinds.get(id(code))
        found = entry[1] if entry is not None and entry[0] is code else None
        if found is None:
            path = code.co_filename
            if path == self.own_path or os.path.realpath(path) == self.own_path:
                found = _NEUTRAL
            elif id(code) in self.allowed_codes or path.startswith(self.allowed_paths):
                found = _ALLOWED
            elif path.startswith(self.armed_paths):
                found = _ARMED_CODE
            elif path.startswith(self.library_paths) or path.startswith("<frozen"):
                found = _NEUTRAL
            else:
                found = _STUDENT
            if len(self._kinds) > 100_000:
                self._kinds.clear()
            self._kinds[id(code)] = (code, found)
        return found

    def c_callables(self):
        """[(module, attribute, object)] of the armed callables that are not Python code (ufuncs, Cython).

        The profiler sees Python functions by their code; these it cannot, so :class:`tripwires`
        replaces them, for the time the answer runs, by wrappers that trip (in their modules and in
        the answer's own namespace).  Rebuilt when modules were imported since the last time.
        """
        if self._c_seen == len(sys.modules):
            return self._c_callables
        out, ids, allowed = [], {}, set(self.allowed_ids)
        for modname, module in list(sys.modules.items()):
            if not isinstance(module, types.ModuleType) or modname.split(".")[0] not in _ROOTS:
                continue
            path = vars(module).get("__file__")  # vars: a module's __getattr__ could answer anything
            if not isinstance(path, str) or not os.path.realpath(path).startswith(self.armed_paths):
                continue
            path = os.path.realpath(path)
            if path.startswith(self.allowed_paths):  # what an allowed module holds stays allowed elsewhere
                allowed.update(id(v) for v in list(vars(module).values()) if callable(v))
                continue
            for attr, value in list(vars(module).items()):
                if (attr.startswith("__") or isinstance(value, (type, types.ModuleType, types.FunctionType,
                                                                types.MethodType, _Tripping))
                        or not callable(value) or id(value) in self.allowed_ids):
                    continue
                origin = getattr(value, "__module__", None)
                if origin is None and isinstance(value, np.ufunc) or (
                        isinstance(origin, str) and origin.split(".")[0] in _ROOTS):
                    # its name in messages: a public module of the package that defines it, the shortest
                    public = not any(part.startswith("_") for part in modname.split("."))
                    home = isinstance(origin, str) and modname.split(".")[0] == origin.split(".")[0] or (
                        origin is None and modname.split(".")[0] != _OWN_ROOT)
                    best = ids.get(id(value))
                    name = f"{modname}.{attr}"
                    rank = (home, public, -len(name))
                    if best is None or rank > best[0]:
                        ids[id(value)] = (rank, name, value)
                    out.append((module, attr, value))
        out = [entry for entry in out if id(entry[2]) not in allowed]
        self._c_callables, self._c_seen = out, len(sys.modules)
        self.armed_ids = {key: name for key, (_, name, _) in ids.items() if key not in allowed}
        return out

    def armed_name(self, obj):
        """The dotted name of ``obj`` if handing it in (or calling it) is refused, else None."""
        seen = 0
        while seen < 8:  # unwrap partials and bound methods
            seen += 1
            if isinstance(obj, functools.partial):
                obj = obj.func
            elif isinstance(obj, types.MethodType):
                obj = obj.__func__
            else:
                break
        code = getattr(obj, "__code__", None)
        if isinstance(code, types.CodeType):
            if self.kind(code) == _ARMED_CODE:
                return f"{getattr(obj, '__module__', '?')}.{getattr(obj, '__qualname__', code.co_name)}"
            return None
        if isinstance(obj, type):
            init = getattr(obj, "__init__", None)
            code = getattr(init, "__code__", None)
            if isinstance(code, types.CodeType) and self.kind(code) == _ARMED_CODE:
                return f"{obj.__module__}.{obj.__qualname__}"
            return None
        self.c_callables()
        return self.armed_ids.get(id(obj))


_RULES = {}  # allow tuple -> _Rules
_SHIELDS = []  # the active tripwires, innermost last
_LOCK = threading.RLock()


def _rules(allow):
    allow = tuple(allow)
    with _LOCK:
        if allow not in _RULES:
            _RULES[allow] = _Rules(allow)
        return _RULES[allow]


class _Tripping:
    """Stands for an armed callable that is not Python code while an answer runs: calling it trips."""

    def __init__(self, target, name):
        self._target, self._name = target, name

    def __call__(self, *args, **kwargs):
        shield = _SHIELDS[-1] if _SHIELDS else None
        if shield is not None and not shield.permitted(sys._getframe(1)):
            shield.trip(self._name)
        return self._target(*args, **kwargs)

    def __getattr__(self, attr):
        return getattr(self._target, attr)

    def __repr__(self):
        return f"<tripwire on {self._name}>"


def _qualified(frame):
    """The dotted name of the function running in ``frame`` (a decorator's wrapper: the function it wraps)."""
    code = frame.f_code
    qualname = getattr(code, "co_qualname", code.co_name)
    if "<locals>" in qualname:
        for key in ("func", "fn", "f", "function", "wrapped", "method"):
            inner = frame.f_locals.get(key)
            if callable(inner) and isinstance(getattr(inner, "__qualname__", None), str):
                return f"{getattr(inner, '__module__', '?')}.{inner.__qualname__}"
    return f"{frame.f_globals.get('__name__', '?')}.{qualname}"


def _wraps_allowed(rules, frame):
    """Whether ``frame`` runs a decorator's wrapper around a function the rules allow.

    SciPy wraps most of ``scipy.linalg`` (``cho_factor``, ``solve_triangular``, ...) in a wrapper whose
    code lives in ``scipy._lib``, which is armed: without this, an allowed function would trip on the
    way in (issue 52).  The wrapped function is found as :func:`_qualified` finds it.
    """
    code = frame.f_code
    if "<locals>" not in getattr(code, "co_qualname", code.co_name):
        return False
    for key in ("func", "fn", "f", "function", "wrapped", "method"):
        inner = frame.f_locals.get(key)
        inner_code = getattr(getattr(inner, "__func__", inner), "__code__", None)
        if isinstance(inner_code, types.CodeType) and rules.kind(inner_code) == _ALLOWED:
            return True
    return False


def _profile(frame, event, arg):
    """The profiler set while an answer runs: armed code entered from the answer's side trips."""
    if not _SHIELDS:
        return
    shield = _SHIELDS[-1]
    if event == "call":
        if shield.rules.kind(frame.f_code) == _ARMED_CODE and not shield.permitted(frame.f_back) \
                and not _wraps_allowed(shield.rules, frame):
            shield.trip(_qualified(frame))
    elif event == "c_call":
        name = shield.rules.armed_ids.get(id(arg))
        if name is not None and not shield.permitted(frame):
            shield.trip(name)


class tripwires:
    """While ``with tripwires(policy, answer) as fired:`` runs, the answer may call only what ``policy`` allows.

    ``policy`` is a check's plain-data policy (:func:`policy_of`), or a tuple of allowed dotted
    names.  Everything else of the packages in :data:`ARMED_PACKAGES` (all of ``lib``, ``lib.checks``
    included; scikit-learn, public or private; SciPy but :data:`BASE_ALLOW`) is armed: a Python
    function of theirs that the answer's code enters, however it reached it (an import, an alias, a
    copy of the function object, a method of an estimator, a callback handed to NumPy), raises
    :class:`Delegation`, and so does a call of one of their ufuncs or compiled functions through
    its module or a name of the answer's namespace.  Code that an allowed function runs for
    itself is not armed (``logsumexp``'s own helpers, ``lib.mixture.e_step``'s).

    ``fired`` is a list that receives the name of every tripped function, even when the answer
    catches the exception.  ``answer`` (the student's function, if given) is refused at once when
    it is itself armed.  Entering records the calling frame: code called from that frame (the
    check's own machinery) is trusted.
    """

    def __init__(self, policy=(), answer=None, stop=None):
        if isinstance(policy, dict):
            allow = policy.get("allow", ())
        elif isinstance(policy, str):
            allow = (policy,)
        else:
            allow = policy
        self.allow = tuple(allow)
        self.answer = answer
        self.fired = []
        self._entered = False
        self._stop = stop

    def __enter__(self):
        if self._entered:
            raise RuntimeError("a tripwires object is not re-entrant; make a new one")
        self._entered = True
        self.rules = _rules(self.allow)
        self.stop = self._stop or sys._getframe(1)
        if self.answer is not None:
            name = self.rules.armed_name(self.answer)
            if name is not None:
                self.fired.append(name)
                self._patches, self._pushed = [], False
                raise Delegation(name, itself=True)
        self._patches = []
        wrappers = {}
        with _LOCK:
            for module, attr, value in self.rules.c_callables():
                if vars(module).get(attr) is value:
                    wrapper = wrappers.setdefault(id(value), _Tripping(value, self.rules.armed_ids.get(
                        id(value), f"{module.__name__}.{attr}")))
                    self._patches.append((vars(module), attr, value))
                    setattr(module, attr, wrapper)
            self._shield_namespace(wrappers)
        _SHIELDS.append(self)
        self._previous, self._pushed = sys.getprofile(), True
        sys.setprofile(_profile)
        return self.fired

    def _shield_namespace(self, wrappers):
        """Replace the armed callables that the answer's own globals, closure and defaults hold."""
        func = self.answer
        func = getattr(func, "__func__", func)
        space = getattr(func, "__globals__", None)
        if isinstance(space, dict):
            for key, value in list(space.items()):
                wrapper = wrappers.get(id(value))
                if wrapper is not None and wrapper._target is value:
                    self._patches.append((space, key, value))
                    space[key] = wrapper
        for cell in getattr(func, "__closure__", None) or ():
            try:
                value = cell.cell_contents
            except ValueError:
                continue
            wrapper = wrappers.get(id(value))
            if wrapper is not None and wrapper._target is value:
                self._patches.append((cell, None, value))
                cell.cell_contents = wrapper
        defaults = getattr(func, "__defaults__", None)
        if defaults and any(id(v) in wrappers for v in defaults):
            self._patches.append((func, "__defaults__", defaults))
            func.__defaults__ = tuple(wrappers[id(v)] if id(v) in wrappers else v for v in defaults)

    def permitted(self, frame):
        """Whether armed code may run when called from ``frame``: inside an allowed function or the check's own."""
        kind = self.rules.kind
        while frame is not None:
            if frame is self.stop:
                return True
            found = kind(frame.f_code)
            if found == _ALLOWED or found == _ARMED_CODE and _wraps_allowed(self.rules, frame):
                return True
            if found == _STUDENT:
                return False
            frame = frame.f_back
        return True

    def trip(self, name):
        self.fired.append(name)
        raise Delegation(name)

    def __exit__(self, *exc):
        if self._pushed:
            sys.setprofile(self._previous)
            _SHIELDS.remove(self)
            self._pushed = False
        with _LOCK:
            for target, key, value in reversed(self._patches):
                if isinstance(target, dict):
                    target[key] = value
                elif key is None:
                    target.cell_contents = value
                else:
                    setattr(target, key, value)
        self._patches = []
        return False


class watched:
    """Run the student's code under the running check's allow-list; a tripwire becomes a :class:`Failure`.

    :func:`call` uses it; a check that calls the student's function another way
    wraps that call in ``with watched(student_fn):``.  The failure is raised
    even if the student's code caught the :class:`Delegation` (or failed
    because of it).  A function that runs elsewhere (the grader's proxy for
    the sandboxed kernel, ``runs_elsewhere = True``) gets the policy sent with
    each call instead: nothing of the answer runs in this process.
    """

    def __init__(self, func=None, allow=None):
        self.func = func
        self.allow = _ALLOW.get() if allow is None else tuple(allow)

    def __enter__(self):
        self._wires = None
        if self.allow is None or getattr(self.func, "runs_elsewhere", False) is True:
            return self
        self._wires = tripwires(self.allow, self.func, stop=sys._getframe(1))
        try:
            self._fired = self._wires.__enter__()
        except Delegation as exc:
            raise Failure(delegation_message(exc.name, True, self.allow)) from None
        return self

    def __exit__(self, exc_type, exc, tb):
        if self._wires is None:
            return False
        self._wires.__exit__(exc_type, exc, tb)
        if self._fired:
            raise Failure(delegation_message(self._fired[0], False, self.allow)) from None
        return False


# ------------------------------------------------------- the checks' inputs --

# The salt of the checks' random inputs: None in a student's notebook (the check cell's fixed inputs), a
# number the submission cannot know while the grader judges it (issue 49): derived from the course key and
# the student with a key, fresh for each run without one (grader/run.py sets it with `salted`).
_SALT = contextvars.ContextVar("lib_checks_salt", default=None)


def check_rng(seed):
    """The random generator a check draws its inputs from: ``np.random.default_rng(seed)`` in a notebook,
    the same seed mixed with the grader's salt while a submission is graded (:func:`salted`).

    So a table of the notebook's inputs, filled in a cell with a library's answers, answers nothing at
    grading time; the inputs keep the same distribution, so an honest answer passes either way.
    """
    salt = _SALT.get()
    if salt is None:
        return np.random.default_rng(seed)
    entropy = [int(s) for s in seed] if isinstance(seed, (list, tuple)) else [int(seed)]
    return np.random.default_rng([int(salt), *entropy])


class salted:
    """``with salted(salt):`` every :func:`check_rng` of the checks run inside draws salted inputs."""

    def __init__(self, salt):
        if not isinstance(salt, int) or isinstance(salt, bool) or salt < 0:
            raise TypeError(f"a salt is a non-negative int, got {salt!r}")
        self.salt = salt

    def __enter__(self):
        self._token = _SALT.set(self.salt)
        return self

    def __exit__(self, *exc):
        _SALT.reset(self._token)
        return False


# The allow-list of the check whose body is running (set by `check`, read by `call`); None outside a check.
_ALLOW = contextvars.ContextVar("lib_checks_allow", default=None)


def check(exercise, what_was_checked, *, allow=(), solves=()):
    """Decorate a check body so that it always returns a :class:`CheckResult`.

    The body raises :class:`Failure` with a message on the first mistake and
    returns normally on success.  ``what_was_checked`` completes the sentence
    "Passed: ..." shown on success.

    ``allow`` is the exercise's allow-list, its one home: the dotted names of
    what an answer may call besides NumPy, Python's standard library and
    :data:`BASE_ALLOW` (the ``lib`` or SciPy helpers the page taught for it,
    such as ``"scipy.special.logsumexp"``; a module name allows the whole
    module).  While the body runs, every :func:`call` of the student's function
    runs under :class:`tripwires` with it: everything else of the packages in
    :data:`ARMED_PACKAGES` fails the answer.  ``solves`` names ``lib``'s own
    implementation of the exercise (armed like the rest; the tests hand it in
    as a shortcut, and the give-away test looks for listings of it).  The
    decorated check keeps both tuples as attributes ``allow`` and ``solves``
    (``forbid`` is ``solves``, its older name).
    """
    allow = (allow,) if isinstance(allow, str) else tuple(allow)
    solves = (solves,) if isinstance(solves, str) else tuple(solves)

    def decorate(body):
        @functools.wraps(body)
        def run(*args, **kwargs):
            token = _ALLOW.set(tuple(run.allow))
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
            except Delegation as exc:  # a tripwire that fired outside `call`
                return CheckResult(exercise, "failed", delegation_message(exc.name, exc.itself, run.allow))
            except Exception as exc:  # a bug in the check must not look like the student's
                where = traceback.format_exception_only(type(exc), exc)[-1].strip()
                return CheckResult(
                    exercise,
                    "failed",
                    f"the check could not evaluate your answer ({where}). "
                    "Look at the types your function returns.",
                    crashed=True,
                )
            finally:
                _ALLOW.reset(token)
            found = _authorship_here(run, args, kwargs)
            if found:
                from lib.checks import _policy

                return CheckResult(exercise, "failed", _policy.message(found))
            return CheckResult(exercise, "passed", f"Passed: {what_was_checked}")

        run.allow = allow
        run.solves = run.forbid = solves
        run.exercise = exercise
        return run

    return decorate


def _authorship_here(check_fn, args, kwargs):
    """The authorship problems of a check run in a student's notebook (lib.checks._policy.notebook_problems):
    the grader's rule, read from the kernel's history, so that nothing is learnt only at grading time.
    None where the grader judges (its answers run elsewhere; it applies the rule itself), outside IPython,
    and for an instructor's own checks (an assignment's checks.py): the rule is the book's, whose exercises
    carry allow-lists and whose edition's cells are known; the grader does not apply it to assignments either."""
    if not getattr(check_fn, "__module__", "").startswith(f"{__package__}."):
        return None
    if _SALT.get() is not None or any(getattr(a, "runs_elsewhere", False) is True
                                      for a in (*args, *kwargs.values())):
        return None
    if "IPython" not in sys.modules:
        return None
    try:
        from lib.checks import _policy

        return _policy.notebook_problems(check_fn)
    except Exception:  # noqa: BLE001 - the notebook's advice never breaks a check; the grader decides
        return None


def call(func, *args, name=None, unchanged=None, **kwargs):
    """Call the student's ``func`` and turn every way it can fail into a message.

    The call runs under the allow-list of the check that is running (its
    ``allow``): an answer that calls anything else of lib, scikit-learn or
    SciPy fails (:class:`tripwires`).  ``unchanged`` maps the positions of
    array arguments the answer must not modify to the statement's names for
    them (``{1: "alpha"}``): an answer that writes into one fails with a
    message naming it (the grader's kernel sends such writes back).
    """
    label = name or getattr(func, "__name__", "your function")
    if func is Ellipsis or func is None:
        raise NotImplementedYet()
    if not callable(func):
        raise Failure(
            f"expected a function (pass its name without parentheses), got a {type(func).__name__}."
        )
    # Give the student copies: an in-place edit of the inputs must not corrupt the reference.
    originals = args
    args = tuple(a.copy() if isinstance(a, np.ndarray) else a for a in args)
    error = None
    with watched(func):
        try:
            with np.errstate(all="ignore"):
                out = func(*args, **kwargs)
        except Exception as exc:  # judged after the tripwires are off
            error = exc
    if isinstance(error, Delegation):  # tripped in the grader's sandboxed kernel
        raise Failure(delegation_message(error.name, getattr(error, "itself", False), _ALLOW.get())) from None
    if isinstance(error, NotImplementedError):
        raise NotImplementedYet() from None
    if error is not None:
        summary = traceback.format_exception_only(type(error), error)[-1].strip()
        raise Failure(
            f"{label} raised an exception: {summary}. Run it on a small input in a cell of its own to debug it."
        ) from None
    for index, argument in sorted((unchanged or {}).items()):
        before, after = originals[index], args[index]
        if isinstance(before, np.ndarray) and not np.array_equal(before, after,
                                                                 equal_nan=before.dtype.kind in "fc"):
            raise Failure(
                f"{label} changed its argument `{argument}` in place (an in-place operation such as "
                f"`{argument} -= ...`, `{argument} *= ...` or `{argument}[...] = ...`): the caller's array must "
                f"not change. Work on a new array instead (`{argument} = {argument} - ...`, or "
                f"`np.array({argument}, dtype=float)` first)."
            )
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


def expect_tuple(value, size, what, *, name="your function", tuple_only=False):
    """Return ``value`` (a tuple or list of ``size`` items) or raise :class:`Failure`.

    ``tuple_only=True`` refuses a list, for a statement that asks for a tuple (issue 52)."""
    if tuple_only and isinstance(value, list):
        raise Failure(f"{name} returned a list of length {len(value)}; the statement asks for {what} as a tuple: "
                      "return (a, b, ...), not [a, b, ...].")
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


def expect_number(value, what, *, name="your function", float_only=False):
    """Return ``value`` as a Python float when it is one number, as a statement that asks for "a number"
    (``float_only``: "a float") says, or raise :class:`Failure` naming what came back (issue 52).

    A list or tuple holding the number, a numpy array of any shape ((1,) and 0-d included), a string and
    a boolean fail; with ``float_only`` an integer (Python's or NumPy's) fails too.  NumPy's float scalars
    (``np.float64``, what ``np.mean`` returns) are floats.
    """
    kind = "a float" if float_only else "a single number"
    if isinstance(value, (list, tuple)):
        raise Failure(f"{name} returned a {type(value).__name__} of length {len(value)}; the statement asks for "
                      f"{what} as {kind}, not a {type(value).__name__} holding it: return the number itself.")
    if isinstance(value, np.ndarray):
        got = ("a 0-d numpy array (np.array(...) around one number)" if value.ndim == 0 else
               f"a numpy array of shape {value.shape}")
        raise Failure(f"{name} returned {got}; the statement asks for {what} as {kind}, not an array: return "
                      "the number itself (float(...) of a 0-d array, or the element of a one-entry array).")
    if float_only and isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_)):
        raise Failure(f"{name} returned an integer ({type(value).__name__}) for {what}; the statement asks for a "
                      "float. Divide with / (integer division // and int(...) give integers), or return float(...): a whole "
                      "number is written 0.0 or 1.0 as a float.")
    return expect_scalar(value, what, name=name)


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
