"""Imported once by the grader's fork server: every worker forked from it starts with these loaded."""

import jupyter_client.session  # noqa: F401
import lib.checks  # noqa: F401
import nbformat  # noqa: F401
import zmq  # noqa: F401

from grader import find, run, sandbox, wire  # noqa: F401

find.load_editions(find.EDITIONS)
try:  # the seccomp filter, compiled once for every worker (grader/syscalls.py)
    from grader import syscalls

    syscalls.bpf()
except Exception:  # noqa: BLE001 - a worker that needs it says why (sandbox.SandboxUnavailable)
    pass
