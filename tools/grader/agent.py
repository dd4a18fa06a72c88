# ruff: noqa: F821 - np, _enc, decode and WireError come from wire.py, which the grader prepends
"""What runs in the student's kernel when the grader asks for an answer (kernel side only).

The sandbox's launcher runs this file's source (after ``wire.py``'s) in a
namespace of its own, with a copy of the builtins, before the kernel starts;
:func:`install` then takes frozen views of the modules it uses and registers
a handler for the grader's ``gm_request`` messages.  For each, :func:`serve`
looks the student's name up, calls it on the decoded arguments (under the
grader's NumPy error state, with warnings recorded and, for checks that name
them, ``lib`` functions the answer may not call turned into tripwires) and
the handler sends the encoded reply back.  No cell runs in the notebook's
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
    if isinstance(getattr(exc, "name", None), str):  # lib.checks._core.Delegation: the forbidden function
        error["name"] = _text(exc.name, 200)
    return {"ok": False, "error": error}


def _tripwires(forbid):
    """The tripwires of a check, armed in the kernel while the answer runs (``forbid`` from grader.judge).

    The one place the kernel side applies a check's policy on ``lib`` functions: it uses the
    ``tripwires`` of ``lib.checks._core`` that :func:`install` loaded before any student cell ran.
    """
    if not forbid or _TRIPWIRES[0] is None:
        return _contextlib.nullcontext()
    return _TRIPWIRES[0](tuple(forbid))


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
    with _warnings.catch_warnings(record=True) as caught:
        _warnings.simplefilter("always")
        try:
            with np.errstate(**request["errstate"]), _tripwires(request.get("forbid")):
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
    except Exception:  # noqa: BLE001 - no tripwires: the checks that forbid functions still judge the values
        _TRIPWIRES[0] = None
    shell, session, dumps = kernel.shell, kernel.session, space["_json"].dumps

    def handle(stream, idents, msg):
        content = msg.get("content") if isinstance(msg, dict) else None
        request = content.get("request") if isinstance(content, dict) else None
        data = serve(request, shell.user_ns) if isinstance(request, str) else dumps({"agent_error": "no request"})
        session.send(stream, "gm_reply", {"data": data}, parent=msg, ident=idents)

    kernel.shell_handlers["gm_request"] = handle
