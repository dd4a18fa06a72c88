# ruff: noqa: F821 - np, _enc, decode and WireError come from wire.py, which the grader prepends
"""What runs in the student's kernel when the grader asks for an answer (kernel side only).

The sandbox's launcher runs this file's source (after ``wire.py``'s) in a
namespace of its own, with a copy of the builtins, before the kernel starts;
:func:`install` then takes frozen views of the modules it uses and registers
a handler for the grader's ``gm_request`` messages.  For each, :func:`serve`
looks the student's name up, calls it on the decoded arguments (under the
grader's NumPy error state, with warnings recorded and under the check's
allow-list: ``lib.checks._core.tripwires`` arms everything of lib, scikit-learn
and SciPy that the exercise does not allow, as in the student's own check cell;
a tripwire that fired is reported even when the answer caught it) and the
handler sends the encoded reply back.  No cell runs in the notebook's
namespace to reach it, so a notebook that redefines ``exec``, ``json``,
``numpy`` or the builtins does not change what it runs.

Nothing here is trusted all the same: code that digs into the kernel's own
objects can still replace it.  The grader only ever reads plain data from the
reply, validates it, and judges it with its own code.
"""

# wire.py's source comes first: encode, decode, _enc, WireError, np come from there.
import contextlib as _contextlib
import json as _json
import types as _types
import warnings as _warnings

_MAX_MESSAGE = 2000


def _text(value, limit=_MAX_MESSAGE):
    try:
        text = str(value)
    except BaseException:  # noqa: BLE001 - a __str__ that raises
        text = "<unprintable>"
    return text[:limit]


def _error(exc):
    names = [getattr(c, "__name__", "Exception") for c in type(exc).__mro__][:12]
    error = {"type": names[0], "mro": names, "message": _text(exc)}
    if isinstance(getattr(exc, "name", None), str):  # lib.checks._core.Delegation: what the answer called
        error["name"] = _text(exc.name, 200)
        error["itself"] = getattr(exc, "itself", False) is True
    return {"ok": False, "error": error}


def _tripwires(policy, func):
    """The check's allow-list around the call (``policy`` from grader.judge), or nothing without one.

    The one place the kernel side applies a check's policy: it uses the ``tripwires`` of
    ``lib.checks._core`` that :func:`install` loaded before any student cell ran; entering it
    gives the list of tripped names.
    """
    if not isinstance(policy, dict) or _TRIPWIRES[0] is None:
        return _contextlib.nullcontext([])
    return _TRIPWIRES[0](policy, func)


def _handle(request, user):
    name = request["name"]
    if request["op"] == "describe":
        if name not in user:
            return {"defined": False}
        value = user[name]
        if callable(value):
            return {"defined": True, "callable": True}
        try:
            return {"defined": True, "callable": False, "value": _enc(value, 0, [0])}
        except WireError as exc:
            return {"defined": True, "callable": False, "too_large": _text(exc)}
    if name not in user:
        return _error(NameError(f"name '{name}' is not defined"))
    func = user[name]
    args = decode(request["args"])
    kwargs = decode(request["kwargs"])
    originals = {i: a.copy() for i, a in enumerate(args) if isinstance(a, np.ndarray)}
    fired = []
    with _warnings.catch_warnings(record=True) as caught:
        _warnings.simplefilter("always")
        try:
            with np.errstate(**request["errstate"]), _tripwires(request.get("policy"), func) as fired:
                out = func(*args, **kwargs)
        except KeyboardInterrupt:
            raise
        except BaseException as exc:  # noqa: BLE001 - SystemExit included: it is the answer's error
            reply = _error(exc)
        else:
            try:
                reply = {"ok": True, "value": _enc(out, 0, [0])}
            except (WireError, RecursionError) as exc:
                reply = {"ok": False, "error": {"type": "ReturnValueTooLarge", "mro": ["ReturnValueTooLarge"],
                                                "message": f"the value returned cannot be checked: {_text(exc)}"}}
    if fired and (reply.get("ok") or reply["error"].get("type") != "Delegation"):  # caught by the answer
        reply = {"ok": False, "error": {"type": "Delegation", "mro": ["Delegation", "Exception"],
                                        "message": "a tripwire fired", "name": _text(fired[0], 200)}}
    reply["warnings"] = [[getattr(w.category, "__name__", "Warning"), _text(w.message, 500)] for w in caught[:20]]
    mutated = []
    for i, before in originals.items():
        after = args[i]
        if isinstance(after, np.ndarray) and after.shape == before.shape and not np.array_equal(
                after, before, equal_nan=after.dtype.kind in "fc"):
            mutated.append([i, _enc(after, 0, [0])])
    reply["mutated"] = mutated
    return reply


def serve(request_text, user):
    """The reply (JSON text) to one request of the grader; ``user`` is the notebook's namespace."""
    try:
        reply = _handle(_json.loads(request_text), user)
    except KeyboardInterrupt:
        raise
    except BaseException as exc:  # noqa: BLE001
        reply = {"agent_error": _text(f"{type(exc).__name__}: {exc}")}
    return _json.dumps(reply)


_TRIPWIRES = [None]


def _frozen(module, subs=()):
    """A copy of ``module``'s names as they are now: what the notebook rebinds later is not seen."""
    view = _types.SimpleNamespace(**vars(module))
    for sub in subs:
        head, _, rest = sub.partition(".")
        inner = getattr(module, head)
        setattr(view, head, _frozen(inner, (rest,) if rest else ()))
    return view


def install(kernel):
    """Set the agent up in the kernel, before any cell runs; called once by the sandbox's launcher.

    It keeps its own references: a copy of the builtins, frozen views of the modules it uses
    (numpy, json, warnings, ...), ``lib.checks._core``'s tripwires, the kernel's shell and
    session; and answers the grader's ``gm_request`` messages with a handler of its own (no
    code is run in the notebook's namespace to reach it).
    """
    import importlib.util as _util
    import os as _os

    import numpy as _numpy

    space = globals()  # its __builtins__ is a copy the launcher made before the kernel started
    for name, value in list(space.items()):
        if isinstance(value, _types.ModuleType):
            space[name] = _frozen(value, ("lib.format", "random") if value is _numpy else ())
    try:  # lib.checks._core alone (stdlib and numpy): not the whole lib.checks package
        path = _os.path.join(_os.environ.get("PYTHONPATH", "").split(":")[0], "lib", "checks", "_core.py")
        spec = _util.spec_from_file_location("gm_agent_core", path)
        core = _util.module_from_spec(spec)
        spec.loader.exec_module(core)
        _TRIPWIRES[0] = getattr(core, "tripwires", None)
    except Exception:  # noqa: BLE001 - no tripwires: the checks still judge the values
        _TRIPWIRES[0] = None
    shell, session, dumps = kernel.shell, kernel.session, space["_json"].dumps

    def handle(stream, idents, msg):
        content = msg.get("content") if isinstance(msg, dict) else None
        request = content.get("request") if isinstance(content, dict) else None
        data = serve(request, shell.user_ns) if isinstance(request, str) else dumps({"agent_error": "no request"})
        session.send(stream, "gm_reply", {"data": data}, parent=msg, ident=idents)

    kernel.shell_handlers["gm_request"] = handle
