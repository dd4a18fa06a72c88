"""Helpers shared by the tests of the exercise checks (tests/test_checks_chNN.py)."""

import pytest

from lib.checks import _core


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


# What the message tests' own answers may call on top of each check's allow-list: they build right and
# wrong answers from the checks' own reference variants (lib.checks) and from SciPy.  The allow-lists
# themselves are tested in tests/test_delegation.py and tests/test_shortcuts.py, with nothing added.
TEST_ANSWERS_MAY_CALL = ("lib.checks", "lib.logistic", "lib.mixture", "lib.variational", "scipy.special",
                         "scipy.stats")


@pytest.fixture
def trusted_helpers(monkeypatch):
    """Let the answers of a message test call lib.checks' variants and SciPy (usefixtures in the module)."""
    monkeypatch.setattr(_core, "BASE_ALLOW", _core.BASE_ALLOW + TEST_ANSWERS_MAY_CALL)
    monkeypatch.setattr(_core, "_RULES", {})
