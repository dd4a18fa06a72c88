"""The grader's end of a student's kernel: its sockets, its cells, and requests answered with plain data.

:class:`KernelLink` speaks the kernel's messaging over the sockets; :class:`KernelRunner`
runs the submission's cells and sends the agent (``grader/wire.py`` + ``grader/agent.py``)
each request of a check; the reply is validated and decoded as data (``grader.wire``).
"""

from __future__ import annotations

import builtins
import json
import re
import time
import warnings
from pathlib import Path

from grader import wire
from grader.common import bounded, escape

HERE = Path(__file__).resolve().parent
AGENT_SOURCE = (HERE / "wire.py").read_text() + "\n" + (HERE / "agent.py").read_text()


def _raw(text, limit):
    """The student's text as it is (a str, at most ``limit`` long): quoted later, with :func:`~grader.common.fence`."""
    return text[:limit] if isinstance(text, str) else ""


class CheckAborted(BaseException):
    """The kernel did not answer in time or died: the check stops (not an Exception: checks cannot catch it)."""

    def __init__(self, reason, timed_out):
        super().__init__(reason)
        self.reason, self.timed_out = reason, timed_out


class InvalidReply(Exception):
    """The kernel's reply was not plain data of the agreed form."""


_KNOWN_EXCEPTIONS = {n: c for n, c in vars(builtins).items() if isinstance(c, type) and issubclass(c, Exception)}
_MADE = {}


def _exception(error):
    """The grader-side exception standing for the one the student's answer raised (a name and a message)."""
    import numpy as np

    known = dict(_KNOWN_EXCEPTIONS, LinAlgError=np.linalg.LinAlgError)
    try:
        from lib.checks import _core
        if isinstance(getattr(_core, "Delegation", None), type):
            known["Delegation"] = _core.Delegation
    except ImportError:
        pass
    if not isinstance(error, dict):
        return InvalidReply("the kernel's reply was not an exception")
    name = error.get("type")
    name = name if isinstance(name, str) and re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]{0,79}", name) else "Exception"
    mro = [n for n in (error.get("mro") or [])[:12] if isinstance(n, str)] if isinstance(error.get("mro"), list) else []
    message = escape(error.get("message"))  # the student's text: one line, controls shown
    base = next((known[n] for n in [name, *mro] if n in known), Exception)
    if base is known.get("Delegation") and name == "Delegation":  # its argument: what the answer called
        dotted = error.get("name")
        return base(dotted if isinstance(dotted, str) and re.fullmatch(r"[A-Za-z_][\w.<>]{0,200}", dotted)
                    else "a function its exercise does not allow", error.get("itself") is True)
    cls = base if base.__name__ == name else _MADE.setdefault(
        (name, base), type(name, (base,), {"__module__": "__main__"}))
    try:
        return cls(message)
    except Exception:  # noqa: BLE001 - e.g. UnicodeDecodeError's five arguments
        return _MADE.setdefault((name, Exception), type(name, (Exception,), {"__module__": "__main__"}))(message)


class KernelRunner:
    """Runs a submission's cells in a sandboxed kernel and answers the checks' calls with plain data."""

    def __init__(self, sandbox, link, limits):
        self.sandbox, self.link, self.limits = sandbox, link, limits
        self.dead = None  # why the kernel can no longer be used
        self.deadline = None  # of the current check

    def _lost(self):
        if self.dead is None and self.sandbox.tampered():
            self.sandbox.kill()
            self.dead = ("the kernel's connection files in /tmp/.gm were replaced (the grader never follows them: "
                         "it talks to the sockets it opened at the start); grading of this notebook stopped")
        if self.dead is None and not self.sandbox.alive():
            self.dead = "the kernel stopped"
            if self.sandbox.oom_killed():
                self.dead += f" (it used more than {self.limits['tree_memory'] / 2**30:.3g} GiB in all)"
        return self.dead

    def _unreachable(self):
        """The kernel's socket no longer takes the grader's messages: stop it, with the reason."""
        self.sandbox.kill()
        self.dead = ("the kernel stopped taking the grader's messages (a reply over 64 MiB, or its sockets "
                     "closed) and was stopped")
        return False

    def _stop_runaway(self):
        """After a time-out: interrupt; if the kernel does not come back (a C loop), kill the sandbox."""
        self.link.interrupt(timeout=2.0)
        msg_id = self.link.send("shell", "kernel_info_request", {})
        if msg_id is None:
            return self._unreachable()
        if self.link.reply("shell", msg_id, 10.0) is None:
            self.sandbox.kill()
            self.dead = (f"the kernel ignored the interrupt after {self.limits['cell_timeout']} s (a loop in C "
                         "code?) and was stopped")
            return False
        return True

    def run_cell(self, source):
        """None when the cell ran, else (exception name, message)."""
        if self._lost():
            return "NotRun", self.dead
        reply = self.link.execute(source, self.limits["cell_timeout"])
        if reply is False:
            self._unreachable()
            return "KernelDied", self.dead
        if reply is None:
            if self._lost():
                return "KernelDied", self.dead
            self._stop_runaway()
            return "CellTimeoutError", f"no result within {self.limits['cell_timeout']} s"
        if reply.get("status") == "error":
            return escape(reply.get("ename"), 80) or "Error", _raw(reply.get("evalue"), 500)
        return self._lost() and ("KernelDied", self.dead)

    def request(self, request):
        """Send one request to the agent; its decoded reply dict (or raise CheckAborted / InvalidReply)."""
        if self._lost():
            raise CheckAborted(self.dead, False)
        if self.deadline and time.monotonic() > self.deadline:
            raise CheckAborted(f"the check did not finish within {self.limits['cell_timeout']} s: "
                               "does your code loop forever?", True)
        left = max(0.5, self.deadline - time.monotonic()) if self.deadline else self.limits["cell_timeout"]
        # A message of its own type, handled by the agent the kernel set up before any cell ran:
        # no name of the notebook's namespace is looked up.
        msg_id = self.link.send("shell", "gm_request", {"request": json.dumps(request)})
        if msg_id is None:
            self._unreachable()
            raise CheckAborted(self.dead, False)
        reply = self.link.reply("shell", msg_id, left)
        if reply is None:
            if self._lost():
                raise CheckAborted(self.dead, False)
            self._stop_runaway()
            raise CheckAborted(f"the check did not finish within {self.limits['cell_timeout']} s: "
                               "does your code loop forever?", True)
        data = reply.get("data")
        if not isinstance(data, str):
            raise InvalidReply("the grader's request got no answer from your kernel: was something of the "
                               "notebook's machinery (IPython, the kernel) replaced?")
        if len(data) > wire.MAX_ARRAY_BYTES * 2:
            raise InvalidReply("the reply was too large")
        try:
            out = json.loads(data)
        except (ValueError, RecursionError):
            raise InvalidReply("the reply was not JSON") from None
        if not isinstance(out, dict):
            raise InvalidReply("the reply was not a dict")
        return out

    def describe(self, name):
        """("missing" | "function" | "value", value)."""
        out = self.request({"op": "describe", "name": name})
        if out.get("defined") is not True:
            return "missing", None
        if out.get("callable") is True:
            return "function", None
        if "value" not in out:
            return "value", _Unreadable(bounded(out.get("too_large"), 200))
        try:
            return "value", wire._dec(out["value"], 0, [0], wire._opaque_type)
        except wire.WireError as exc:
            return "value", _Unreadable(str(exc))

    def call(self, name, args, kwargs, policy):
        import numpy as np

        try:
            request = {"op": "call", "name": name, "args": wire.encode(list(args)),
                       "kwargs": wire.encode(dict(kwargs)), "errstate": np.geterr(), "policy": policy}
        except wire.WireError as exc:
            raise TypeError(f"the grader cannot send these arguments to the kernel: {exc}") from None
        out = self.request(request)
        if "agent_error" in out:
            raise InvalidReply(f"the grader's call failed in your kernel: {escape(out['agent_error'], 300)}")
        for item in (out.get("warnings") or [])[:20] if isinstance(out.get("warnings"), list) else []:
            if isinstance(item, list) and len(item) == 2:
                category = _KNOWN_EXCEPTIONS.get(item[0]) if isinstance(item[0], str) else None
                category = category if isinstance(category, type) and issubclass(category, Warning) else UserWarning
                warnings.warn(escape(item[1], 500), category, stacklevel=3)
        for item in (out.get("mutated") or [])[:len(args)] if isinstance(out.get("mutated"), list) else []:
            try:
                index, value = item
                value = wire._dec(value, 0, [0], wire._opaque_type)
                target = args[index]
                if (isinstance(target, np.ndarray) and isinstance(value, np.ndarray) and target.flags.writeable
                        and target.shape == value.shape):
                    np.copyto(target, value, casting="unsafe")
            except (ValueError, TypeError, IndexError, wire.WireError):
                continue
        if out.get("ok") is True and "value" in out:
            try:
                return wire._dec(out["value"], 0, [0], wire._opaque_type)
            except wire.WireError as exc:
                raise InvalidReply(f"your function's value could not be read as data: {exc}") from None
        if out.get("ok") is False:
            raise _exception(out.get("error"))
        raise InvalidReply("the kernel's reply was neither a value nor an exception")


class _Unreadable:
    """A student's value that could not travel as data (too large, or not plain data)."""

    def __init__(self, why):
        self.why = why

    def __repr__(self):
        return f"<value the grader could not read: {self.why}>"


class KernelFunction:
    """The student's function as the checks see it: each call runs in the kernel, on copies of the data."""

    runs_elsewhere = True  # lib.checks._core.watched sets no wires here: the policy travels with each call

    def __init__(self, runner, name, policy):
        self._runner, self._policy = runner, policy
        self.__name__ = self.__qualname__ = name

    def __call__(self, *args, **kwargs):
        return self._runner.call(self.__name__, args, kwargs, self._policy)

    def __repr__(self):
        return f"<function {self.__name__} (in the student's kernel)>"


class KernelLink:
    """The grader's end of the kernel's shell and control channels (no iopub, no stdin).

    Only replies to the grader's own requests are read; what the kernel prints
    (iopub) is never read at all.  Messages larger than ``max_message`` bytes
    close the connection instead of filling the grader's memory.
    """

    def __init__(self, endpoints, key, max_message=64 * 2**20):
        import zmq
        from jupyter_client.session import Session

        self.zmq = zmq
        self.session = Session(key=key.encode(), signature_scheme="hmac-sha256", username="grader")
        self.context = zmq.Context()
        self.sockets = {}
        for channel in ("shell", "control"):
            sock = self.context.socket(zmq.DEALER)
            sock.setsockopt(zmq.LINGER, 0)
            sock.setsockopt(zmq.MAXMSGSIZE, max_message)
            sock.setsockopt(zmq.SNDTIMEO, 5000)  # a kernel that stopped reading never blocks the grader
            sock.setsockopt(zmq.IDENTITY, self.session.bsession)
            sock.connect(endpoints[channel])  # ipc:///proc/self/fd/N: the grader's own descriptor
            self.sockets[channel] = sock

    def send(self, channel, msg_type, content):
        """The message's id, or None when the kernel's socket would not take it (it stopped reading)."""
        msg = self.session.msg(msg_type, content)
        try:
            self.session.send(self.sockets[channel], msg)
        except self.zmq.Again:
            return None
        return msg["header"]["msg_id"]

    def reply(self, channel, msg_id, timeout):
        """The reply to ``msg_id`` (a dict), or None after ``timeout`` seconds. Other messages are dropped."""
        if msg_id is None:
            return None
        sock = self.sockets[channel]
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                return None
            if not sock.poll(int(min(left, 1.0) * 1000)):
                continue
            try:
                msg = self.session.recv(sock, mode=self.zmq.NOBLOCK, content=True)[1]
            except Exception:  # noqa: BLE001 - a malformed or badly signed message is dropped
                continue
            if not isinstance(msg, dict):
                continue
            parent = msg.get("parent_header")
            if isinstance(parent, dict) and parent.get("msg_id") == msg_id:
                content = msg.get("content")
                return content if isinstance(content, dict) else {}

    def wait_ready(self, timeout, alive=lambda: True):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline and alive():
            msg_id = self.send("shell", "kernel_info_request", {})
            if self.reply("shell", msg_id, 1.0) is not None:
                return True
        return False

    def execute(self, code, timeout, silent=False):
        """Run ``code``; the execute_reply's content, None when no reply came within ``timeout``, False when
        the kernel's socket would not take the request."""
        msg_id = self.send("shell", "execute_request", {
            "code": code, "silent": silent, "store_history": not silent, "user_expressions": {},
            "allow_stdin": False, "stop_on_error": False})
        return False if msg_id is None else self.reply("shell", msg_id, timeout)

    def interrupt(self, timeout=2.0):
        msg_id = self.send("control", "interrupt_request", {})
        return self.reply("control", msg_id, timeout) is not None

    def close(self):
        for sock in self.sockets.values():
            sock.close(linger=0)
        self.context.term()
