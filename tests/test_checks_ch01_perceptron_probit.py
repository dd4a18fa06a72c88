"""The checks of the perceptron and probit exercises accept right answers and name typical mistakes."""

import re

import numpy as np
import pytest
from scipy.special import log_ndtr, ndtr
from scipy.stats import norm

import lib.checks
from lib.checks import ch01_perceptron_probit as mod
from check_helpers import assert_fails, assert_standard_failure_modes
from check_helpers import trusted_helpers  # noqa: E402,F401 - a fixture

pytestmark = pytest.mark.usefixtures("trusted_helpers")


def test_checks_are_exported():
    for name in mod.__all__:
        assert getattr(lib.checks, name) is getattr(mod, name)


@pytest.mark.parametrize("check", [mod.probit_gradient, mod.perceptron_epoch], ids=lambda c: c.__name__)
def test_standard_failure_modes(check):
    assert_standard_failure_modes(check)


# -------------------------------------------------------------------- probit --


def _stable(w, b, X, y):
    s = 2.0 * y - 1.0
    u = s * (X @ w + b)
    r = s * np.exp(norm.logpdf(u) - log_ndtr(u))
    return X.T @ r, r.sum()


def _naive(w, b, X, y):
    t = X @ w + b
    with np.errstate(all="ignore"):
        r = y * norm.pdf(t) / ndtr(t) - (1 - y) * norm.pdf(t) / (1 - ndtr(t))
    return X.T @ r, r.sum()


def test_probit_right_answers_pass():
    result = lib.checks.probit_gradient(_stable)
    assert result.passed, result


def _variant(kind):
    return lambda w, b, X, y: mod._probit_variant(w, b, X, y, kind)


@pytest.mark.parametrize(
    "fn, fragments",
    [
        (_naive, ["underflow", "log_ndtr"]),
        (_variant("y1-only"), ["y = 0 term"]),
        (_variant("sign"), ["wrong sign", "minus sign"]),
        (_variant("logistic"), ["logistic residual", "phi"]),
        (_variant("no-phi"), ["1 / phi(t)", "density"]),
        (_variant("negated"), ["wrong sign everywhere", "negative log-likelihood"]),
        (lambda w, b, X, y: (_stable(w, b, X, y)[0] / len(y), _stable(w, b, X, y)[1] / len(y)), ["divided by n"]),
        (lambda w, b, X, y: (_stable(w, b, X, y)[0], 0.0), ["grad_b is not"]),
        (lambda w, b, X, y: (_stable(w, b, X, y)[0] * 1.5, 0.0), ["does not match"]),
        (lambda w, b, X, y: _stable(w, b, X, y)[0], ["tuple of 2"]),
        (lambda w, b, X, y: (np.zeros(len(w) + 1), 0.0), ["shape"]),
    ],
)
def test_probit_names_typical_mistakes(fn, fragments):
    assert_fails(lib.checks.probit_gradient(fn), *fragments)


def test_probit_messages_do_not_reveal_values():
    result = lib.checks.probit_gradient(lambda w, b, X, y: (_stable(w, b, X, y)[0] * 1.5, 0.0))
    assert result.status == "failed"
    assert not re.search(r"\d\.\d", result.message), result.message  # no numbers from the answer


# ---------------------------------------------------------------- perceptron --


def _right(w, b, X, y, order):
    w = np.array(w, dtype=float)
    s = 2 * y - 1
    m = 0
    for i in order:
        if s[i] * (X[i] @ w + b) <= 0:
            w = w + s[i] * X[i]
            b = b + s[i]
            m += 1
    return w, b, m


def _p_variant(kind):
    return lambda w, b, X, y, order: mod._perceptron_variant(w, b, X, y, order, kind)


def _in_place(w, b, X, y, order):
    s = 2 * y - 1
    m = 0
    for i in order:
        if s[i] * (X[i] @ w + b) <= 0:
            w += s[i] * X[i]
            b += s[i]
            m += 1
    return w, b, m


def test_perceptron_right_answers_pass():
    result = lib.checks.perceptron_epoch(_right)
    assert result.passed, result


@pytest.mark.parametrize(
    "fn, fragments",
    [
        (_p_variant("strict"), ["s_i t_i < 0", "never leaves zero"]),
        (_p_variant("01"), ["s_i = 2 y_i - 1"]),
        (_p_variant("always"), ["every sample"]),
        (_p_variant("no-b"), ["b never changes"]),
        (lambda w, b, X, y, order: _right(w, b, X, y, range(len(y))), ["given `order`"]),
        (lambda w, b, X, y, order: _right(w, b, X, y, order)[:2] + (0,), ["n_mistakes"]),
        (lambda w, b, X, y, order: _right(w, b, X, y, order)[:2], ["tuple of 3"]),
        (_in_place, ["changed its argument `w` in place"]),
        (lambda w, b, X, y, order: (np.zeros(len(w)), 1.0, 0), ["do not match"]),
    ],
)
def test_perceptron_names_typical_mistakes(fn, fragments):
    assert_fails(lib.checks.perceptron_epoch(fn), *fragments)


def test_perceptron_float_mistake_count_is_refused():
    """Issue 44: the number of mistakes is a count; a float fails with a clear message."""
    def float_count(w, b, X, y, order):
        w, b, m = _right(w, b, X, y, order)
        return w, b, float(m)

    result = lib.checks.perceptron_epoch(float_count)
    assert result.status == "failed" and "integer" in result.message, result
