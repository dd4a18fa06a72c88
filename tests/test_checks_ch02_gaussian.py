"""Tests for the check of ex-gaussian-max-log-likelihood: the right closed form passes, each
typical slip is named, bad submissions become messages."""

import numpy as np
import pytest
from scipy.stats import multivariate_normal

import lib.checks
from lib.checks import ch02_gaussian

from check_helpers import assert_fails, not_implemented, raises
from check_helpers import trusted_helpers  # noqa: E402,F401 - a fixture

pytestmark = pytest.mark.usefixtures("trusted_helpers")

CHECK = ch02_gaussian.gaussian_max_log_likelihood
LOG_2PI = np.log(2 * np.pi)


def parts(X, ddof=0):
    n, d = X.shape
    c = X - X.mean(axis=0)
    return n, d, np.linalg.slogdet(c.T @ c / (n - ddof))[1]


def right(X):
    n, d, ld = parts(X)
    return -0.5 * n * (d * LOG_2PI + ld + d)


def test_exported():
    assert lib.checks.gaussian_max_log_likelihood is CHECK


def test_right_answers():
    assert CHECK(right)
    assert CHECK(lambda X: float(multivariate_normal(X.mean(axis=0), np.cov(X.T, bias=True)).logpdf(X).sum()))
    assert CHECK(lambda X: np.float64(-0.5 * len(X) * np.linalg.slogdet(
        2 * np.pi * np.e * np.cov(X.T, bias=True).reshape(X.shape[1], X.shape[1]))[1]))


def plus_logdet(X):
    n, d, ld = parts(X)
    return -0.5 * n * (d * LOG_2PI - ld + d)


def logdet_no_half(X):
    n, d, ld = parts(X)
    return -0.5 * n * (d * LOG_2PI + d) - n * ld


def half_logdet(X):          # e.g. ln sigma instead of ln sigma^2
    n, d, ld = parts(X)
    return -0.5 * n * (d * LOG_2PI + 0.5 * ld + d)


def quadratic_without_d(X):
    n, d, ld = parts(X)
    return -0.5 * n * (d * LOG_2PI + ld + 1)


def constant_without_d(X):
    n, d, ld = parts(X)
    return -0.5 * n * (LOG_2PI + ld + d)


def no_quadratic(X):
    n, d, ld = parts(X)
    return -0.5 * n * (d * LOG_2PI + ld)


def unbiased_formula(X):
    n, d, ld = parts(X, ddof=1)
    return -0.5 * n * (d * LOG_2PI + ld + d)


def unbiased_evaluated(X):
    n, d, _ = parts(X)
    c = X - X.mean(axis=0)
    return float(multivariate_normal(X.mean(axis=0), c.T @ c / (n - 1)).logpdf(X).sum())


def diagonal_only(X):
    n, d = X.shape
    return -0.5 * n * (d * LOG_2PI + np.sum(np.log(X.var(axis=0))) + d)


def spherical_quadratic_shortcut(X):    # an unnamed slip: falls to the generic message
    return right(X) + 0.37


@pytest.mark.parametrize(
    "wrong, fragments",
    [
        (plus_logdet, ["wrong sign", "-n/2 ln det"]),
        (lambda X: 2 * right(X), ["twice", "missing 1/2"]),
        (logdet_no_half, ["missing its 1/2"]),
        (half_logdet, ["half the log-determinant", "standard deviation"]),
        (quadratic_without_d, ["missing its d", "n d, not n"]),
        (constant_without_d, ["normalising constant", "d/2"]),
        (no_quadratic, ["quadratic term is missing"]),
        (unbiased_formula, ["n - 1", "divides by n"]),
        (unbiased_evaluated, ["n - 1", "divides by n"]),
        (lambda X: right(X) / len(X), ["average per point"]),
        (diagonal_only, ["diagonal"]),
        (lambda X: -right(X), ["sign is wrong"]),
        (spherical_quadratic_shortcut, ["wrong value", "trace"]),
    ],
)
def test_typical_slips_are_named(wrong, fragments):
    assert_fails(CHECK(wrong), *fragments)


def test_bad_submissions():
    assert CHECK(not_implemented).status == "not implemented"
    assert CHECK(...).status == "not implemented"
    assert_fails(CHECK(3.0), "expected a function")
    assert_fails(CHECK(raises), "raised an exception", "RuntimeError")
    assert_fails(CHECK(lambda X: None), "return")
    assert_fails(CHECK(lambda X: "12.5"), "single number")
    assert_fails(CHECK(lambda X: np.array([1.0, 2.0])), "array of shape (2,)")
    assert_fails(CHECK(lambda X: float("nan")), "NaN")


def test_messages_never_show_the_answer():
    rng = np.random.default_rng(23)
    X = next(ch02_gaussian._max_ll_cases(rng))
    message = CHECK(spherical_quadratic_shortcut).message
    assert f"{right(X):.1f}" not in message and f"{right(X):.2f}" not in message
