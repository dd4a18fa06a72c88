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


def assert_standard_failure_modes(check):
    """What every function check does with an untouched, wrong-typed, crashing or empty submission."""
    assert check(not_implemented).status == "not implemented"
    assert check(...).status == "not implemented"
    assert_fails(check(42), "expected a function")
    assert_fails(check(raises), "raised an exception", "RuntimeError")
    assert_fails(check(lambda *args: None), "return")
    assert_fails(check(lambda *args: "a string"))
