"""Tests for the naive Bayes exercise checks: right answers pass, typical mistakes are named."""

import re

import numpy as np
import pytest
from scipy.special import logsumexp

import lib.checks
from check_helpers import assert_fails, not_implemented, raises
from lib.checks import ch02_naive_bayes as ch








def test_all_checks_exported():
    for name in ch.__all__:
        assert getattr(lib.checks, name) is getattr(ch, name)


# ------------------------------------------------------ ex-nb-word-log-probs --

def _class_counts(X, y):
    X = np.asarray(X, dtype=float)
    return np.stack([X[y == k].sum(axis=0) for k in range(y.max() + 1)])


def _safe_log(a):
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.log(a)


def word_right(X, y, alpha):
    N = _class_counts(X, y) + alpha
    return _safe_log(N / N.sum(axis=1, keepdims=True))


def word_probabilities(X, y, alpha):
    return np.exp(word_right(X, y, alpha))


def word_numerator_only(X, y, alpha):
    N = _class_counts(X, y)
    return _safe_log((N + alpha) / N.sum(axis=1, keepdims=True))


def word_denominator_plus_alpha(X, y, alpha):
    N = _class_counts(X, y)
    return _safe_log((N + alpha) / (N.sum(axis=1, keepdims=True) + alpha))


def word_per_document(X, y, alpha):
    N = _class_counts(X, y)
    n_k = np.bincount(y)[:, None]
    return _safe_log((N + alpha) / (n_k + alpha * X.shape[1]))


def word_document_frequency(X, y, alpha):
    D = _class_counts(np.asarray(X) > 0, y) + alpha
    return _safe_log(D / D.sum(axis=1, keepdims=True))


def word_over_classes(X, y, alpha):
    N = _class_counts(X, y) + alpha
    return _safe_log(N / N.sum(axis=0, keepdims=True))


def word_no_alpha(X, y, alpha):
    return word_right(X, y, 0.0)


def word_log10(X, y, alpha):
    return word_right(X, y, alpha) / np.log(10)


def word_transposed(X, y, alpha):
    return word_right(X, y, alpha).T


def word_nan_at_zero(X, y, alpha):
    out = word_right(X, y, alpha)
    out[np.isneginf(out)] = np.nan
    return out


def test_word_log_probs_right_answer_passes():
    result = lib.checks.nb_word_log_probs(word_right)
    assert result.passed, result
    assert "4 generated data sets" in result.message


@pytest.mark.parametrize(
    "wrong, fragments",
    [
        (word_probabilities, ["probabilities", "logarithm"]),
        (word_numerator_only, ["numerator only"]),
        (word_denominator_plus_alpha, ["alpha * v"]),
        (word_per_document, ["number of documents"]),
        (word_document_frequency, ["documents that contain", "every occurrence"]),
        (word_over_classes, ["over the classes"]),
        (word_no_alpha, ["ignored alpha"]),
        (word_log10, ["natural logarithm"]),
        (word_transposed, ["transposed"]),
        (word_nan_at_zero, ["nan", "-inf"]),
    ],
)
def test_word_log_probs_typical_mistakes_are_named(wrong, fragments):
    assert_fails(lib.checks.nb_word_log_probs(wrong), *fragments)


def test_word_log_probs_rows_in_wrong_order():
    def swapped(X, y, alpha):
        return word_right(X, y, alpha)[::-1]

    assert_fails(lib.checks.nb_word_log_probs(swapped), "wrong order")


def test_word_log_probs_generic_mistake_does_not_reveal_the_answer():
    def off(X, y, alpha):
        return word_right(X, y, alpha) + 0.01

    result = lib.checks.nb_word_log_probs(off)
    assert_fails(result, "sum to 1")
    assert not re.search(r"-?\d+\.\d{2,}", result.message)  # no reference value is printed


@pytest.mark.parametrize(
    "answer, status, fragment",
    [
        (not_implemented, "not implemented", "not implemented"),
        (raises, "failed", "raised an exception"),
        (lambda X, y, a: "text", "failed", "numeric array"),
        (lambda X, y, a: {"a": 1}, "failed", "dict"),
        (lambda X, y, a: (1, 2), "failed", "tuple"),
        (lambda X, y, a: np.zeros(3), "failed", "shape"),
        (3, "failed", "expected a function"),
        (..., "not implemented", "not implemented"),
    ],
)
def test_word_log_probs_bad_answers_do_not_crash(answer, status, fragment):
    result = lib.checks.nb_word_log_probs(answer)
    assert result.status == status and fragment in result.message, result


# ------------------------------------------------------- ex-nb-log-posterior --

def post_right(X, log_priors, log_probs):
    s = np.asarray(X, dtype=float) @ log_probs.T + log_priors
    return s - logsumexp(s, axis=1, keepdims=True)


def post_multiplied(X, log_priors, log_probs):
    with np.errstate(all="ignore"):
        joint = np.exp(log_priors) * np.prod(np.exp(log_probs)[None] ** X[:, None, :], axis=2)
        return np.log(joint / joint.sum(axis=1, keepdims=True))


def post_exp_normalised(X, log_priors, log_probs):
    s = np.asarray(X, dtype=float) @ log_probs.T + log_priors
    with np.errstate(all="ignore"):
        return np.log(np.exp(s) / np.exp(s).sum(axis=1, keepdims=True))


def post_no_prior(X, log_priors, log_probs):
    s = np.asarray(X, dtype=float) @ log_probs.T
    return s - logsumexp(s, axis=1, keepdims=True)


def post_prior_not_log(X, log_priors, log_probs):
    s = np.asarray(X, dtype=float) @ log_probs.T + np.exp(log_priors)
    return s - logsumexp(s, axis=1, keepdims=True)


def post_unnormalised(X, log_priors, log_probs):
    return np.asarray(X, dtype=float) @ log_probs.T + log_priors


def post_over_documents(X, log_priors, log_probs):
    s = np.asarray(X, dtype=float) @ log_probs.T + log_priors
    return s - logsumexp(s, axis=0, keepdims=True)


def post_probabilities(X, log_priors, log_probs):
    return np.exp(post_right(X, log_priors, log_probs))


def post_max_only(X, log_priors, log_probs):
    s = np.asarray(X, dtype=float) @ log_probs.T + log_priors
    return s - s.max(axis=1, keepdims=True)


def post_transposed(X, log_priors, log_probs):
    return post_right(X, log_priors, log_probs).T


def test_log_posterior_right_answer_passes():
    result = lib.checks.nb_log_posterior(post_right)
    assert result.passed, result
    assert "underflow" in result.message


@pytest.mark.parametrize(
    "wrong, fragments",
    [
        (post_multiplied, ["short documents", "underflow", "logsumexp"]),
        (post_exp_normalised, ["short documents", "underflow"]),
        (post_no_prior, ["log prior"]),
        (post_prior_not_log, ["its logarithm"]),
        (post_unnormalised, ["log joint scores"]),
        (post_over_documents, ["over the documents"]),
        (post_probabilities, ["probabilities", "logarithms"]),
        (post_max_only, ["only the largest"]),
        (post_transposed, ["transposed"]),
    ],
)
def test_log_posterior_typical_mistakes_are_named(wrong, fragments):
    assert_fails(lib.checks.nb_log_posterior(wrong), *fragments)


def test_log_posterior_generic_mistake():
    def off(X, log_priors, log_probs):
        return post_right(X, log_priors, log_probs) * 1.01

    assert_fails(lib.checks.nb_log_posterior(off), "sum to 1")


@pytest.mark.parametrize(
    "answer, status, fragment",
    [
        (not_implemented, "not implemented", "not implemented"),
        (raises, "failed", "raised an exception"),
        (lambda X, a, b: "text", "failed", "numeric array"),
        (lambda X, a, b: None, "failed", "return"),
        (lambda X, a, b: np.zeros((2, 2, 2)), "failed", "shape"),
        ("nb_log_posterior", "failed", "expected a function"),
    ],
)
def test_log_posterior_bad_answers_do_not_crash(answer, status, fragment):
    result = lib.checks.nb_log_posterior(answer)
    assert result.status == status and fragment in result.message, result


def test_the_long_cases_really_underflow():
    rng = np.random.default_rng(12)
    cases = list(ch._posterior_cases(rng))
    assert [c[3] for c in cases] == [False, False, True, True, "mixed"]
    for X, log_priors, log_probs, long in cases[:4]:
        s = X @ log_probs.T + log_priors
        with np.errstate(under="ignore"):
            assert np.all(np.exp(s) == 0) == long
    X, log_priors, log_probs, _ = cases[4]  # the mixed batch: some rows' scores lie thousands below others'
    s = X @ log_probs.T + log_priors
    with np.errstate(under="ignore"):
        assert np.any(np.all(np.exp(s - s.max()) == 0, axis=1)) and np.all(np.isfinite(s - s.max(axis=1, keepdims=True)))


def test_log_posterior_one_shift_for_the_whole_batch_is_named():
    """Issue 44: exp(scores - scores.max()) with one maximum passes on batches of similar lengths."""
    def global_shift(X, log_priors, log_probs):
        scores = np.asarray(X, dtype=float) @ np.asarray(log_probs).T + log_priors
        with np.errstate(all="ignore"):
            P = np.exp(scores - scores.max())
            return np.log(P / P.sum(axis=1, keepdims=True))

    result = lib.checks.nb_log_posterior(global_shift)
    assert result.status == "failed" and "own logsumexp" in result.message, result
