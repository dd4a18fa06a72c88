# ruff: noqa: F821 - np, _enc, decode and WireError come from grade_wire.py, which the grader prepends;
# _CORE_FILE and _CORE_SOURCE (lib/checks/_core.py) the grader appends
"""What runs in the student's kernel when the grader asks for an answer (kernel side only).

The grader sends this file's source (after ``grade_wire.py``'s) with every
request; the kernel runs it in a namespace of its own and calls
:func:`serve`, which looks the student's name up, calls it on the decoded
arguments (under the grader's NumPy error state, with warnings recorded and
under the check's allow-list: ``lib.checks._core.tripwires`` arms everything
of lib, scikit-learn and SciPy that the exercise does not allow, as in the
student's own check cell) and leaves the encoded reply in the execute reply's
payload.  A tripwire that fired is reported even when the answer caught it.

Nothing here is trusted: the student's code may have replaced any of it.  The
grader only ever reads plain data from the reply, validates it, and judges it
with its own code.
"""

# The grader prepends grade_wire.py's source: encode, decode, _enc, WireError, np come from there.
import contextlib as _contextlib
import json as _json
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
    """The check's allow-list around the call (lib.checks._core.tripwires), or nothing without a policy.

    When the kernel's own ``lib.checks._core`` is not the real one (a cell replaced it, e.g. through
    ``sys.meta_path``), a private copy is run from the source the grader sent (``_CORE_SOURCE``).
    """
    if not isinstance(policy, dict):
        return _contextlib.nullcontext([])
    try:
        from lib.checks import _core

        wires = _core.tripwires
        if not isinstance(wires, type):
            raise TypeError("not the tripwires class")
    except Exception:  # noqa: BLE001 - replaced, missing or broken: use the grader's copy
        core = {"__name__": "lib.checks._core", "__file__": _CORE_FILE}
        exec(compile(_CORE_SOURCE, _CORE_FILE, "exec"), core)
        wires = core["tripwires"]
    return wires(policy, func)


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
            except WireError as exc:
                reply = {"ok": False, "error": {"type": "ReturnValueTooLarge", "mro": ["ReturnValueTooLarge"],
                                                "message": f"the value returned cannot be checked: {exc}"}}
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


def serve(request_text, ip):
    try:
        reply = _handle(_json.loads(request_text), ip.user_ns)
    except KeyboardInterrupt:
        raise
    except BaseException as exc:  # noqa: BLE001
        reply = {"agent_error": _text(f"{type(exc).__name__}: {exc}")}
    ip.payload_manager.write_payload({"source": "gm-grader", "data": _json.dumps(reply)})
