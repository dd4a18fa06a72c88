"""Helpers shared by the tests of the exercise checks (tests/test_checks_chNN.py)."""


def assert_fails(result, *fragments):
    """The check failed, and its message names every fragment (case-insensitive)."""
    assert result.status == "failed", result
    for fragment in fragments:
        assert fragment.lower() in result.message.lower(), result.message


def not_implemented(*args):
    """A student's untouched exercise cell."""
    raise NotImplementedError


def raises(*args):
    """A student's function that crashes with an unexpected error."""
    raise RuntimeError("boom")
