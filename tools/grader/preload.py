"""Imported once by the grader's fork server: every worker forked from it starts with these loaded."""

import jupyter_client.session  # noqa: F401
import lib.checks  # noqa: F401
import nbformat  # noqa: F401
import variants  # noqa: F401
import zmq  # noqa: F401

from grader import find, run, sandbox, wire  # noqa: F401

find.load_editions(find.EDITIONS)
