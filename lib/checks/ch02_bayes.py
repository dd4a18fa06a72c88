"""Checks for the exercises of chapter 2's page "MAP and Bayesian estimation".

Both exercises ask for a function written from a derived formula, so the checks
run it on fresh inputs and compare with ``lib.mle``; no answer is stored.
Each typical slip is computed and compared, and named when it matches.
"""

import numpy as np

from ._core import check_rng  # every input a check draws: salted while the grader judges (issue 49)

from .. import mle
from ._core import Failure, call, check, expect_ndarray, expect_number

__all__ = ["beta_bernoulli_map", "dirichlet_categorical_map"]


def _close(a, b):
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    return a.shape == b.shape and bool(np.allclose(a, b, rtol=1e-9, atol=1e-12))


# ---------------------------------------------------------- ex-beta-map --

def _beta_cases(rng):
    yield 3, 10, 2.0, 5.0          # generic: every slip below gives a different number
    yield 0, 6, 1.0, 3.0           # no ones, a = 1: the maximum is at the endpoint 0
    yield 5, 5, 1.0, 1.0           # uniform prior, all ones
    yield 4, 9, 1.0, 1.0           # uniform prior: the MLE
    yield 0, 0, 3.0, 2.0           # no data: the prior's mode
    for _ in range(3):
        n = int(rng.integers(1, 60))
        yield int(rng.integers(0, n + 1)), n, float(rng.uniform(1, 8)), float(rng.uniform(1, 8))


def _beta_slips(n1, n, a, b):
    """(value, message) for the typical wrong formulas on one input."""
    n0 = n - n1
    slips = [
        ((n1 + a) / (n + a + b),
         "that is the posterior mean (n1 + alpha)/(n + alpha + beta); the MAP estimate is the posterior's mode, "
         "the maximiser of its density. Differentiate the log-posterior and set the derivative to zero."),
        ((n1 + a) / (n + a + b - 2),
         "the numerator is missing its -1: the log-posterior has the coefficient n1 + alpha - 1 on ln(theta), "
         "because the prior contributes theta^(alpha - 1)."),
        ((n1 + a - 1) / (n + a + b),
         "the denominator should be n + alpha + beta - 2, not n + alpha + beta: each of the exponents alpha - 1 and beta - 1 "
         "contributes a -1."),
        ((n1 + a - 1) / (n + a + b - 1),
         "the denominator has -1 where it needs -2: one -1 from theta^(alpha - 1) and one from (1 - theta)^(beta - 1)."),
        ((n1 + a - 1) / (a + b - 2) if a + b > 2 else None,
         "the denominator alpha + beta - 2 forgets the n flips: it is the total of both coefficients, "
         "(n1 + alpha - 1) + (n0 + beta - 1)."),
        ((n0 + b - 1) / (n + a + b - 2),
         "you estimated the probability of a 0, not of a 1: the ones go with alpha in the numerator."),
        ((n1 + b - 1) / (n + a + b - 2),
         "alpha and beta are swapped: alpha is the prior's pseudo-count of ones (theta^(alpha - 1)), so it goes with n1."),
        (n1 / n if n > 0 else None,
         "that is the maximum likelihood estimate: the prior is missing from the log-posterior."),
        ((a - 1) / (a + b - 2) if a + b > 2 else None,
         "that is the mode of the prior alone: the data n1 and n are missing."),
    ]
    return [(v, m) for v, m in slips if v is not None]


@check("ex-beta-map",
       "matches the MAP estimate on 8 inputs (n from 0 to 59, alpha and beta from 1 to 8), "
       "including a uniform prior, no data, and a sample without ones.",
       solves=("lib.mle.beta_mode", "lib.mle.dirichlet_mode"),
       allow=())
def beta_bernoulli_map(student_fn):
    rng = check_rng(21)
    for n1, n, a, b in _beta_cases(rng):
        got = expect_number(call(student_fn, n1, n, a, b), "the MAP estimate", name="beta_bernoulli_map",
                            float_only=True)
        want = mle.beta_mode(*mle.beta_bernoulli_posterior(np.r_[np.ones(n1), np.zeros(n - n1)], a, b))
        if np.isclose(got, want, rtol=1e-9, atol=1e-12):
            continue
        for value, message in _beta_slips(n1, n, a, b):
            if not np.isclose(value, want, rtol=1e-9, atol=1e-12) and np.isclose(got, value, rtol=1e-9):
                raise Failure(message)
        if not 0 <= got <= 1:
            raise Failure(f"your estimate {got:.4g} is not a probability: it must lie in [0, 1].")
        raise Failure(
            f"wrong estimate for n1 = {n1}, n = {n}, alpha = {a:.3g}, beta = {b:.3g}. Write the log-posterior "
            "(n1 + alpha - 1) ln(theta) + (n - n1 + beta - 1) ln(1 - theta) and solve for its stationary point."
        )


# ----------------------------------------------------- ex-dirichlet-map --

def _dirichlet_cases(rng):
    yield np.array([3, 0, 5, 2]), np.array([2.0, 1.5, 1.0, 3.0])      # generic
    yield np.array([4, 1, 0]), np.ones(3)                               # uniform prior: the MLE
    yield np.zeros(4, dtype=int), np.array([2.0, 3.0, 1.5, 1.0])      # no data: the prior's mode
    yield rng.integers(0, 5, size=6), np.full(6, 1.5)                   # symmetric prior
    yield np.array([10, 0, 0, 0, 0, 0, 0, 0, 0, 0]), np.full(10, 1.2)
    yield rng.integers(0, 30, size=5), rng.uniform(1, 4, size=5)


def _dirichlet_slips(counts, alpha):
    n, A, V = counts.sum(), alpha.sum(), counts.shape[0]
    c = counts + alpha - 1
    slips = [
        ((counts + alpha) / (n + A),
         "that is the posterior mean (n_j + alpha_j)/(N + sum alpha); the MAP estimate is the mode. "
         "Maximise sum_j (n_j + alpha_j - 1) ln(theta_j) with the Lagrange multiplier."),
        ((counts + alpha) / (n + A - V),
         "the numerators are missing their -1: the prior contributes theta_j^(alpha_j - 1)."),
        (c / (n + A),
         "the probabilities do not sum to one: the multiplier nu is the sum of the coefficients "
         "n_j + alpha_j - 1, which is N + sum alpha minus V (one -1 per outcome)."),
        (c / (n + A - 1),
         "the denominator subtracts 1 where it must subtract V: there is one -1 for each of the V outcomes."),
        (c,
         "you returned the coefficients n_j + alpha_j - 1 themselves: divide by the multiplier nu so that "
         "the probabilities sum to one."),
        (counts / n if n > 0 else None,
         "that is the maximum likelihood estimate: the prior is missing from the objective."),
        ((alpha - 1) / (A - V) if A > V else None,
         "that is the mode of the prior alone: the counts are missing."),
    ]
    return [(v, m) for v, m in slips if v is not None]


@check("ex-dirichlet-map",
       "matches the MAP estimate on 6 count vectors (V from 3 to 10, zero counts, "
       "no data, a uniform prior, symmetric and asymmetric priors).",
       solves=("lib.mle.dirichlet_mode",),
       allow=())
def dirichlet_categorical_map(student_fn):
    rng = check_rng(22)
    for counts, alpha in _dirichlet_cases(rng):
        V = counts.shape[0]
        out = call(student_fn, counts, alpha, name="dirichlet_categorical_map",
                   unchanged={0: "counts", 1: "alpha"})
        if isinstance(out, dict):
            raise Failure("return a numpy array with one probability per outcome, not a dict.")
        got = expect_ndarray(out, (V,), "the MAP probabilities", name="dirichlet_categorical_map")
        want = mle.dirichlet_mode(mle.dirichlet_categorical_posterior(counts, alpha))
        if _close(got, want):
            continue
        for value, message in _dirichlet_slips(counts, alpha):
            if not _close(value, want) and _close(got, value):
                raise Failure(message)
        if np.any(got < 0):
            raise Failure("probabilities cannot be negative.")
        n, A = counts.sum(), alpha.sum()
        for fixed in range(1, 13):
            if fixed != V and _close(got, (counts + alpha - 1) / (n + A - fixed)):
                raise Failure(
                    f"your denominator subtracts {fixed}, but this count vector has V = {V} outcomes: V is the "
                    "number of entries of counts (len(counts)), not a fixed number."
                )
        if abs(got.sum() - 1) > 1e-6:
            raise Failure(f"your probabilities sum to {got.sum():.4g}, not 1: find the multiplier nu again "
                          "from the constraint sum_j theta_j = 1.")
        raise Failure(
            f"wrong probabilities on a count vector with V = {V}. Redo the stationarity condition "
            "theta_j = (n_j + alpha_j - 1) / nu and the constraint that fixes nu."
        )
