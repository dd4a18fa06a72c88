"""The check of the Bernoulli-mixture exercise (lib/checks/ch04_bernoulli.py): the right answer
passes, every typical mistake gets its own message, and no input crashes it."""

import re

import numpy as np
import pytest
from scipy.special import logsumexp, xlogy

import lib.checks
from check_helpers import assert_fails, assert_standard_failure_modes
from check_helpers import trusted_helpers  # noqa: E402,F401 - a fixture

pytestmark = pytest.mark.usefixtures("trusted_helpers")
from lib.checks import ch04_bernoulli

check = lib.checks.em_bernoulli_mixture


def _log_joint(X, w, m, zeros=True):
    out = np.log(w) + xlogy(X[:, None, :], m[None]).sum(axis=2)
    if zeros:
        out = out + xlogy(1 - X[:, None, :], 1 - m[None]).sum(axis=2)
    return out


def _right(X, w, m):
    lj = _log_joint(X, w, m)
    r = np.exp(lj - logsumexp(lj, axis=1, keepdims=True))
    nk = r.sum(axis=0)
    return r, nk / len(X), r.T @ X / nk[:, None]


def _variant(kind):
    def fn(X, w, m):
        r, weights, means = _right(X, w, m)
        nk = r.sum(axis=0)
        if kind == "product":
            p = w * np.prod(np.where(X[:, None, :] == 1, m[None], 1 - m[None]), axis=2)
            with np.errstate(invalid="ignore"):
                r = p / p.sum(axis=1, keepdims=True)
        elif kind == "ones-only":
            lj = _log_joint(X, w, m, zeros=False)
            r = np.exp(lj - logsumexp(lj, axis=1, keepdims=True))
        elif kind == "unnormalised":
            r = np.exp(_log_joint(X, w, m))
        elif kind == "hard":
            r = np.eye(len(w))[np.argmax(r, axis=1)]
        elif kind == "no-weights":
            lj = _log_joint(X, np.ones_like(w), m)
            r = np.exp(lj - logsumexp(lj, axis=1, keepdims=True))
        elif kind == "weights-counts":
            weights = nk
        elif kind == "weights-hard":
            weights = np.bincount(np.argmax(r, axis=1), minlength=len(w)) / len(X)
        elif kind == "means-by-n":
            means = r.T @ X / len(X)
        elif kind == "means-sum":
            means = r.T @ X
        elif kind == "means-hard":
            z = np.argmax(r, axis=1)
            means = np.stack([X[z == k].mean(axis=0) for k in range(len(w))])
        elif kind == "means-unchanged":
            means = m
        elif kind == "means-transposed":
            means = means.T
        elif kind == "pair":
            return r, weights
        return r, weights, means
    return fn


def test_all_checks_exported():
    for name in ch04_bernoulli.__all__:
        assert getattr(lib.checks, name) is getattr(ch04_bernoulli, name)


def test_right_answer_passes_and_says_what_was_checked():
    result = check(_right)
    assert result.passed, result
    assert "2000 features" in result.message


def test_lists_pass_too():
    assert check(lambda *a: tuple(np.asarray(x).tolist() for x in _right(*a))).passed


@pytest.mark.parametrize("kind, fragments", [
    ("product", ["underflows", "logsumexp"]),
    ("ones-only", ["(1 - x_ij) ln(1 - mu_kj)"]),
    ("unnormalised", ["sum to 1"]),
    ("hard", ["hard assignments"]),
    ("no-weights", ["mixing weights"]),
    ("weights-counts", ["soft counts n_k", "number of points"]),
    ("weights-hard", ["hard assignments"]),
    ("means-by-n", ["own soft count"]),
    ("means-sum", ["weighted sums"]),
    ("means-hard", ["weight every point"]),
    ("means-unchanged", ["did not move"]),
    ("means-transposed", ["transposed"]),
    ("pair", ["tuple of 3 values"]),
])
def test_typical_mistakes_are_named(kind, fragments):
    assert_fails(check(_variant(kind)), *fragments)


def test_messages_never_show_numbers_of_the_answer():
    for kind in ("ones-only", "no-weights", "weights-counts", "means-by-n", "means-sum"):
        message = check(_variant(kind)).message
        assert not re.search(r"\d\.\d|\de-|\d{2,}", message), message  # no value, only 0 and 1


def test_standard_failure_modes():
    assert_standard_failure_modes(check)


def test_the_student_cannot_change_the_data_the_check_uses():
    def mutating(X, w, m):
        out = _right(X, w, m)
        X[:] = 0
        m[:] = 0.5
        return out
    assert check(mutating).passed
