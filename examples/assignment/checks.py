"""Public checks of the example homework (examples/assignment/hw1.md).

The student notebook carries this file (its check cells call ``checks.<name>``), so nothing here may give
an answer away: each check says what is wrong without showing the value it expected.  The grader runs
these checks, then the hidden ones, in its own process.
"""

import math

import numpy as np

from lib.checks._core import Failure, NotImplementedYet, call, check, expect_scalar
from lib.checks._variants import Spec, current, mistaken_for, register

# ------------------------------------------------------------- ex-hw-poisson-mle --


@check("ex-hw-poisson-mle", "equals the maximum likelihood estimate on 3 samples of counts (sizes 1 to 50).")
def poisson_mle(student_fn):
    for x in (np.array([2, 0, 3, 1]), np.array([5]), np.random.default_rng(1).poisson(3.5, size=50)):
        got = expect_scalar(call(student_fn, x), "lambda_hat", name="poisson_mle")
        want = float(np.mean(x))
        if math.isclose(got, want, rel_tol=1e-9, abs_tol=1e-12):
            continue
        if len(x) > 1 and math.isclose(got, x.sum() / (len(x) - 1)):
            raise Failure("you divided by n - 1; the maximum likelihood estimate divides the total count by n.")
        raise Failure(f"not the maximum likelihood estimate on a sample of {len(x)} count(s): set the derivative "
                      "of the log-likelihood to zero and solve for lambda.")


# --------------------------------------------------- ex-hw-poisson-log-likelihood --

def _poisson_ll(x, lam):
    from scipy.special import gammaln, xlogy

    return float(xlogy(x.sum(), lam) - len(x) * lam - gammaln(x + 1).sum())


@check("ex-hw-poisson-log-likelihood", "equals the Poisson log-likelihood at 3 positive rates.",
       allow=("scipy.special.gammaln", "scipy.special.xlogy"))
def poisson_log_likelihood(student_fn):
    x = np.array([2, 0, 3, 1, 4])
    for lam in (0.5, 2.0, 7.25):
        got = expect_scalar(call(student_fn, x, lam), "the log-likelihood", name="poisson_log_likelihood")
        want = _poisson_ll(x, lam)
        if math.isclose(got, want, rel_tol=1e-9, abs_tol=1e-9):
            continue
        if math.isclose(got, want + _poisson_ll(x, 1.0) + len(x), rel_tol=1e-9):
            raise Failure("the term -sum(log(x_i!)) is missing: this exercise asks for the whole log-likelihood.")
        if got > 0:
            raise Failure("a log-likelihood of counts is at most 0 (each probability is at most 1).")
        raise Failure("not the log-likelihood: write log p(x_i | lambda) for one count, then sum over the sample.")


# -------------------------------------------------------- ex-hw-exponential-rate --
# A variant exercise: each student may get their own n and T (grader/variants.py hands them out).

_RATE_TOLERANCE = 1e-4  # "to 4 decimals"


def _rate_mistakes(p):
    return [(p["total"] / p["n"], "you gave the mean waiting time T / n; the rate is its inverse."),
            (p["n"] / (p["total"] - 1), "you subtracted 1 from T: the estimate is n / T.")]


register(Spec(
    "ex-hw-exponential-rate",
    book={"n": 12, "total": 30.0},
    draw=lambda rng: {"n": int(rng.integers(5, 41)), "total": round(float(rng.uniform(5.0, 80.0)), 1)},
    degenerate=lambda p: mistaken_for(p["n"] / p["total"], _rate_mistakes(p)),
    describe=lambda p: f"n = {p['n']} waiting times, in minutes, that add up to T = {p['total']} minutes.",
    answer=lambda p: p["n"] / p["total"],
    tolerance=_RATE_TOLERANCE,
))


@check("ex-hw-exponential-rate", "your answer is a positive rate and not a typical mistake; the grader "
       "compares it with your variant's value.")
def exponential_rate(answer):
    if answer is Ellipsis or answer is None:
        raise NotImplementedYet()
    if callable(answer):
        raise Failure("assign the number itself (e.g. `answer = 0.1234`), not a function.")
    value = expect_scalar(answer, "the rate", name="your answer")
    if value <= 0:
        raise Failure("a rate of arrivals is positive.")
    for mistake, message in _rate_mistakes(current("ex-hw-exponential-rate")):
        if abs(value - mistake) <= _RATE_TOLERANCE:
            raise Failure(message)
