"""Checks for the exercises of the naive Bayes section (chapters/02_2_naive_bayes_spam.md).

Each check runs the student's function on freshly generated count matrices,
compares it with ``lib.naive_bayes`` and names the first typical mistake it
recognises by computing that mistake and comparing.  None of them prints the
reference answer.
"""

import numpy as np

from ._core import check_rng  # every input a check draws: salted while the grader judges (issue 49)
from scipy.special import logsumexp

from .. import naive_bayes
from ._core import Failure, call, check, expect_ndarray

__all__ = ["nb_word_log_probs", "nb_log_posterior"]


def _close(a, b, rtol=1e-7, atol=1e-9):
    """Same shape, same -inf pattern, finite entries close."""
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    if a.shape != b.shape:
        return False
    with np.errstate(invalid="ignore"):
        if not np.array_equal(np.isneginf(a), np.isneginf(b)) or np.any(np.isnan(a) != np.isnan(b)):
            return False
        finite = np.isfinite(b)
        return bool(np.allclose(a[finite], b[finite], rtol=rtol, atol=atol))


def _reference_log_probs(X, y, K, alpha):
    _, counts = naive_bayes.class_statistics(X, y, K)
    return naive_bayes.multinomial_log_probs(counts, alpha)


def _log(a):
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.log(a)


# ------------------------------------------------------ ex-nb-word-log-probs --

def _word_cases(rng):
    # 1. hand-made: word 2 never occurs in class 0, word 3 never in class 1
    X = np.array([[2, 1, 0, 3], [0, 4, 0, 1], [1, 0, 5, 0], [0, 2, 3, 0], [3, 0, 1, 0]])
    yield X, np.array([0, 0, 1, 1, 1]), 2, 1.0
    # 2. the MLE (alpha = 0), with a word absent from one class
    X = rng.poisson(2.0, size=(12, 7))
    y = np.repeat([0, 1, 2], 4)
    X[y == 1, 4] = 0
    yield X, y, 3, 0.0
    # 3-4. larger random sets, more documents than words and vice versa
    X = rng.poisson(rng.gamma(0.5, 2.0, size=9), size=(30, 9))
    yield X, rng.permutation(np.arange(30) % 3), 3, 0.5
    X = rng.poisson(0.7, size=(8, 25))
    yield X, np.array([0, 1] * 4), 2, 2.0


@check("ex-nb-word-log-probs",
       "matches the smoothed log word probabilities on 4 generated data sets (2 or 3 classes, "
       "alpha = 0, 0.5, 1 and 2), including words that never occur in a class.",
       solves=("lib.naive_bayes.multinomial_log_probs", "lib.naive_bayes.class_statistics",
               "lib.mle.categorical_mle"),
       allow=())
def nb_word_log_probs(student_fn):
    rng = check_rng(11)
    name = "nb_word_log_probs"
    for X, y, K, alpha in _word_cases(rng):
        V = X.shape[1]
        out = call(student_fn, X, y, alpha, name=name, unchanged={0: "X", 1: "y"})
        rows = np.shape(out)[0] if isinstance(out, np.ndarray) and out.ndim == 2 else None
        if rows is not None and rows != K and out.shape[1] == V:
            raise Failure(
                f"your array has {rows} rows, but this data set has K = {K} classes (labels 0 to {K - 1}): "
                "read K from y (y.max() + 1), not a fixed number."
            )
        got = expect_ndarray(out, (K, V), "the log-probabilities", name=name, finite=False)
        want = _reference_log_probs(X, y, K, alpha)
        if _close(got, want):
            continue
        if np.any(np.isnan(got)):
            raise Failure(
                f"{name} returned NaN (alpha = {alpha}): look for 0/0 or the log of a negative number. "
                "With alpha = 0 a word never seen in a class has log-probability -inf, not NaN."
            )
        _diagnose_word_log_probs(got, X, y, K, alpha, V, name)
        raise Failure(
            f"wrong log-probabilities on a data set with {K} classes, {V} words and alpha = {alpha}. "
            "Count every occurrence of each word in each class, add alpha to every count, and "
            "divide by the total of the smoothed counts of that class."
        )


def _diagnose_word_log_probs(got, X, y, K, alpha, V, name):
    X = np.asarray(X, dtype=float)
    N = np.stack([X[y == k].sum(axis=0) for k in range(K)])  # N_kj
    N_k = N.sum(axis=1, keepdims=True)
    n_k = np.bincount(y, minlength=K)[:, None].astype(float)
    D = np.stack([(X[y == k] > 0).sum(axis=0) for k in range(K)]).astype(float)
    want = _log((N + alpha) / (N_k + alpha * V))
    with np.errstate(over="ignore", invalid="ignore"):
        if _close(got, np.exp(want)):
            raise Failure("you returned probabilities; return their natural logarithms (np.log).")
        if _close(got * np.log(10), want) or _close(got * np.log(2), want):
            raise Failure("use the natural logarithm (np.log), not log10 or log2.")
    if alpha > 0 and _close(got, _log(N / N_k)):
        raise Failure(
            "you ignored alpha: every count, including the zeros, gets the pseudo-count alpha added."
        )
    if alpha > 0 and _close(got, _log((N + alpha) / N_k)):
        raise Failure(
            "you added alpha in the numerator only: the denominator must be the total of the "
            "smoothed counts, N_k + alpha * V, or the probabilities do not sum to 1."
        )
    if alpha > 0 and _close(got, _log((N + alpha) / (N_k + alpha))):
        raise Failure(
            "the denominator must be N_k + alpha * V: each of the V words of the vocabulary receives "
            "alpha, not the class as a whole."
        )
    for denominator in (n_k + alpha * V, n_k, n_k + 2 * alpha):
        if _close(got, _log((N + alpha) / denominator)):
            raise Failure(
                "you divided by the number of documents of the class; the multinomial model divides "
                "by the number of words N_k of the class (plus alpha * V)."
            )
    if _close(got, _log((D + alpha) / (D.sum(axis=1, keepdims=True) + alpha * V))) or _close(
        got, _log((D + alpha) / (n_k + 2 * alpha))
    ):
        raise Failure(
            "you counted the documents that contain each word (the Bernoulli model); the "
            "multinomial model counts every occurrence: sum the rows of X of each class."
        )
    smoothed = N + alpha
    if _close(got, _log(smoothed / smoothed.sum(axis=0, keepdims=True))):
        raise Failure(
            "you normalised over the classes (columns); each class's distribution over the V words "
            "(each row) must sum to 1."
        )
    if _close(got, _log(smoothed / smoothed.sum())):
        raise Failure("you normalised by the grand total; normalise each class (row) separately.")
    for perm in ([1, 0], [1, 0, 2], [0, 2, 1], [2, 1, 0]):
        if len(perm) == K and _close(got, want[perm]):
            raise Failure("the rows are in the wrong order: row k must belong to the class with label k.")
    with np.errstate(invalid="ignore", over="ignore"):
        row_total = logsumexp(got, axis=1) if np.all(np.isfinite(got) | np.isneginf(got)) else None
    if row_total is not None and not np.allclose(row_total, 0.0, atol=1e-8):
        raise Failure(
            f"the exponentials of a row do not sum to 1 (alpha = {alpha}); each row is a probability "
            "distribution over the V words."
        )


# ------------------------------------------------------- ex-nb-log-posterior --

def _posterior_cases(rng):
    # (X, log_priors, log_probs, long?): short documents first, then very long ones
    for K, V, length, long in ((2, 6, 5, False), (3, 40, 60, False), (2, 50, 4000, True), (3, 30, 6000, True),
                               (3, 30, None, "mixed")):
        theta = rng.dirichlet(np.full(V, 0.8), size=K)
        theta = np.maximum(theta, 1e-6)
        theta /= theta.sum(axis=1, keepdims=True)
        priors = rng.dirichlet(np.full(K, 3.0))
        # "mixed": one batch of documents of 0 to 6000 words, whose scores lie thousands apart
        lengths = (3, 6000, 0, 50, 4000, 12) if long == "mixed" else (length,) * 7
        X = np.stack([rng.multinomial(m, theta[rng.integers(K)]) for m in lengths])
        yield X, np.log(priors), np.log(theta), long


@check("ex-nb-log-posterior",
       "matches the log posteriors on 5 generated data sets (2 or 3 classes), two with documents "
       "of 4000 and 6000 words whose probabilities underflow, one mixing documents of 0 to 6000 words.",
       solves=("lib.naive_bayes.log_posterior", "lib.naive_bayes.multinomial_log_joint"),
       allow=("scipy.special.logsumexp",))
def nb_log_posterior(student_fn):
    rng = check_rng(12)
    name = "nb_log_posterior"
    short_ok = False
    for X, log_priors, log_probs, long in _posterior_cases(rng):
        n, K = X.shape[0], log_priors.shape[0]
        out = call(student_fn, X, log_priors, log_probs, name=name,
                   unchanged={0: "X", 1: "log_priors", 2: "log_probs"})
        got = expect_ndarray(out, (n, K), "the log posteriors", name=name, finite=False)
        want = naive_bayes.log_posterior(naive_bayes.multinomial_log_joint(X, log_priors, log_probs))
        if _close(got, want):
            short_ok = short_ok or not long
            continue
        if not np.all(np.isfinite(got)):
            scores = np.asarray(X, dtype=float) @ log_probs.T + log_priors
            with np.errstate(all="ignore"):
                shifted = np.exp(scores - scores.max())  # one shift for the whole array
                one_shift = np.log(shifted / shifted.sum(axis=1, keepdims=True))
            if long and short_ok and not np.all(np.isfinite(one_shift)) and np.any(np.isfinite(one_shift)) \
                    and np.array_equal(np.isfinite(got), np.isfinite(one_shift)):
                raise Failure(
                    "right on short documents, but NaN or infinite values in the rows of a batch whose "
                    "scores lie hundreds or thousands apart (documents of very different lengths): one "
                    "maximum (or one shift) for the whole array leaves exp(...) = 0 in every entry of the "
                    "rows far below it. Normalise each row by its own logsumexp (axis=1, keepdims=True)."
                )
            if long and short_ok:
                raise Failure(
                    "right on short documents, but NaN or infinite values on documents of several "
                    "thousand words: a product of thousands of probabilities (or exp of a score near "
                    "-10000) underflows to 0, and 0/0 is NaN. Add logarithms instead of multiplying "
                    "probabilities, and normalise with scipy.special.logsumexp."
                )
            raise Failure(
                f"{name} returned NaN or infinite values: take logs of probabilities only where they "
                "are positive, add logarithms instead of multiplying probabilities, and normalise "
                "with scipy.special.logsumexp."
            )
        _diagnose_log_posterior(got, X, log_priors, log_probs)
        raise Failure(
            f"wrong log posteriors on a data set with {K} classes and {X.shape[1]} words. The log joint "
            "score of class k is ln pi_k + sum_j x_j ln theta_kj; subtract the logsumexp of the scores "
            "over the classes."
        )


def _diagnose_log_posterior(got, X, log_priors, log_probs):
    X = np.asarray(X, dtype=float)
    scores = X @ log_probs.T + log_priors
    want = scores - logsumexp(scores, axis=1, keepdims=True)
    with np.errstate(over="ignore", under="ignore"):
        if _close(got, np.exp(want)):
            raise Failure("you returned posterior probabilities; return their logarithms.")
    if _close(got, scores):
        raise Failure(
            "you returned the log joint scores: subtract their logsumexp over the classes so that each "
            "row's exponentials sum to 1."
        )
    no_prior = X @ log_probs.T
    if _close(got, no_prior - logsumexp(no_prior, axis=1, keepdims=True)):
        raise Failure("you left out the log prior ln pi_k of each class.")
    with_prob_prior = X @ log_probs.T + np.exp(log_priors)
    if _close(got, with_prob_prior - logsumexp(with_prob_prior, axis=1, keepdims=True)):
        raise Failure("you added the prior probability pi_k to a log score; add its logarithm ln pi_k.")
    if got.shape[0] > 1 and _close(got, scores - logsumexp(scores, axis=0, keepdims=True)):
        raise Failure(
            "you normalised over the documents (axis 0); normalise each document's row over the classes "
            "(axis=1, keepdims=True)."
        )
    if _close(got, scores - np.max(scores, axis=1, keepdims=True)):
        raise Failure(
            "you subtracted only the largest score; the normaliser is the whole logsumexp over the classes."
        )
    with np.errstate(invalid="ignore", over="ignore"):
        rows = logsumexp(got, axis=1)
    if not np.allclose(rows, 0.0, atol=1e-8):
        raise Failure("the exponentials of a row do not sum to 1: normalise each row with logsumexp over the classes.")
