"""Check for chapter 4's exercise on a mixture that is not Gaussian: one EM iteration for Bernoulli vectors.

The reference is :mod:`lib.bernoulli_mixture` on fresh binary data the student
does not see, with d = 2000 features in one problem, so that a product of
probabilities underflows to 0.  No message shows a reference value; each
typical mistake is computed and named.
"""

from importlib import import_module

import numpy as np

from ._core import check_rng  # every input a check draws: salted while the grader judges (issue 49)
from scipy.special import logsumexp

from ._core import Failure, call, check, expect_array, expect_tuple

__all__ = ["em_bernoulli_mixture"]


def _close(a, b, rtol=1e-7, atol=1e-10):
    return a.shape == np.shape(b) and bool(np.allclose(a, b, rtol=rtol, atol=atol))


def _problem(rng, n, d, K):
    """Binary data from a K-component Bernoulli mixture, and parameters that are not the truth."""
    truth = rng.uniform(0.1, 0.9, size=(K, d))
    z = rng.choice(K, size=n, p=rng.dirichlet(np.full(K, 4.0)))
    X = (rng.random((n, d)) < truth[z]).astype(float)
    weights = rng.dirichlet(np.full(K, 3.0))
    means = np.clip(truth + rng.normal(scale=0.15, size=(K, d)), 0.05, 0.95)
    return X, weights, means


def _wrong_answers(X, weights, means):
    """The responsibilities of a log-density that keeps only the features equal to 1."""
    with np.errstate(divide="ignore", invalid="ignore", under="ignore"):
        ones_only = np.log(weights) + X @ np.log(means).T  # drops the (1 - x) ln(1 - mu) terms
        r_ones = np.exp(ones_only - logsumexp(ones_only, axis=1, keepdims=True))
    return r_ones


@check(
    "ex-em-bernoulli-mixture",
    "matches one EM iteration of a Bernoulli mixture (responsibilities, weights, means) on 3 binary "
    "data sets (K = 2, 3, 4), one with 2000 features, where a product of probabilities underflows.",
    solves=("lib.bernoulli_mixture.e_step", "lib.bernoulli_mixture.m_step",
            "lib.bernoulli_mixture.component_log_prob", "lib.bernoulli_mixture.fit",
            "lib.bernoulli_mixture.log_likelihood"),
    allow=("scipy.special.logsumexp",),
)
def em_bernoulli_mixture(student_fn):
    bm = import_module("..bernoulli_mixture", __package__)  # the copy of lib this check came from
    name = "bernoulli_em_iteration"
    rng = check_rng(4101)
    for n, d, K in [(60, 12, 2), (80, 2000, 3), (120, 40, 4)]:
        X, weights, means = _problem(rng, n, d, K)
        want_r, _ = bm.e_step(X, weights, means)
        want_w, want_m = bm.m_step(X, want_r)
        out = call(student_fn, X.copy(), weights.copy(), means.copy(), name=name)
        expect_tuple(out, 3, "(resp, weights, means)", name=name)
        resp = expect_array(out[0], (n, K), "the responsibilities", name=name, finite=False)
        new_w = expect_array(out[1], (K,), "the weights", name=name, finite=False)
        new_m = expect_array(out[2], (K, d), "the means", name=name, finite=False)

        if not _close(resp, want_r):
            r_ones = _wrong_answers(X, weights, means)
            if not np.all(np.isfinite(resp)):
                raise Failure(
                    f"your responsibilities contain nan or inf with {d} features: a product of "
                    f"{d} probabilities underflows to 0 (and 0/0 is nan). Add logarithms instead and "
                    "normalise with scipy.special.logsumexp.")
            if not np.allclose(resp.sum(axis=1), 1.0, atol=1e-6):
                raise Failure("the rows of your responsibilities do not sum to 1: divide the joint "
                              "pi_k p(x_i | z_i = k) by its sum over k (subtract its logsumexp in log space).")
            if _close(resp, r_ones):
                raise Failure("your log-density keeps only the features equal to 1: a 0 also carries "
                              "information, through the term (1 - x_ij) ln(1 - mu_kj).")
            hard = np.eye(K)[np.argmax(want_r, axis=1)]
            if _close(resp, hard):
                raise Failure("your responsibilities are hard assignments (0 or 1); EM keeps the posterior "
                              "probabilities themselves.")
            with np.errstate(divide="ignore"):
                no_w = bm.component_log_prob(X, means)
            if _close(resp, np.exp(no_w - logsumexp(no_w, axis=1, keepdims=True))):
                raise Failure("your responsibilities leave out the mixing weights: the joint is "
                              "pi_k p(x_i | z_i = k), so add ln pi_k before normalising.")
            raise Failure("your responsibilities differ from the posterior p(z_i = k | x_i).")

        nk = want_r.sum(axis=0)
        if not _close(new_w, want_w):
            for value, message in [
                (nk, "your weights are the soft counts n_k; divide by the number of points n."),
                (nk / d, "you divided the soft counts by the number of features; pi_k = n_k / n."),
                (np.bincount(np.argmax(want_r, axis=1), minlength=K) / n,
                 "your weights count hard assignments; use the soft counts n_k = sum_i gamma_ik."),
            ]:
                if _close(new_w, value):
                    raise Failure(message)
            raise Failure("your weights differ from the M-step's pi_k = n_k / n.")

        if not _close(new_m, want_m):
            for value, message in [
                (want_r.T @ X / n, "your means divide by the number of points n; each component divides "
                                   "by its own soft count n_k."),
                (want_r.T @ X, "your means are weighted sums; divide by the soft count n_k to get a "
                               "probability in [0, 1]."),
                (np.stack([X[np.argmax(want_r, axis=1) == k].mean(axis=0) if np.any(np.argmax(want_r, axis=1) == k)
                           else np.full(d, np.nan) for k in range(K)]),
                 "your means average the points assigned to each component; weight every point by gamma_ik."),
                (means, "your means did not move: the M-step replaces them."),
            ]:
                if _close(new_m, value):
                    raise Failure(message)
            raise Failure("your means differ from the M-step's mu_kj = sum_i gamma_ik x_ij / n_k.")
