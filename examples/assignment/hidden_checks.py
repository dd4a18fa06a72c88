"""Hidden checks of the example homework (examples/assignment/hw1.md): never handed out.

More cases than the public checks, the edge cases the statement names, and the exact value of each
student's variant.  A message here may say what kind of case failed, never its inputs or the reference.
"""

import math

import numpy as np

from lib.checks._core import Failure, NotImplementedYet, call, check, expect_scalar
from lib.checks._variants import current


@check("ex-hw-poisson-mle", "right on 5 more samples, an all-zero sample and 5000 counts among them.")
def poisson_mle_hidden(student_fn):
    rng = np.random.default_rng(20261128)
    samples = [np.zeros(7, dtype=int), rng.poisson(0.2, size=9), rng.poisson(40.0, size=5000),
               np.array([0, 0, 11]), rng.poisson(1.0, size=2)]
    for i, x in enumerate(samples):
        got = expect_scalar(call(student_fn, x), "lambda_hat", name="poisson_mle")
        if not math.isclose(got, float(np.mean(x)), rel_tol=1e-9, abs_tol=1e-12):
            kind = "a sample of zeros only" if not x.any() else f"hidden sample {i + 1} of 5"
            raise Failure(f"not the maximum likelihood estimate on {kind}.")


def _poisson_ll(x, lam):
    from scipy.special import gammaln, xlogy

    return float(xlogy(x.sum(), lam) - len(x) * lam - gammaln(x + 1).sum())


@check("ex-hw-poisson-log-likelihood", "right at lambda = 0 (with and without a positive count) and on "
       "5000 counts.", allow=("scipy.special.gammaln", "scipy.special.xlogy"))
def poisson_log_likelihood_hidden(student_fn):
    rng = np.random.default_rng(7)
    cases = [("a sample of zeros at lambda = 0", np.zeros(4, dtype=int), 0.0),
             ("a sample with a positive count at lambda = 0", np.array([0, 2, 1]), 0.0),
             ("5000 counts", rng.poisson(3.0, size=5000), 2.9)]
    for kind, x, lam in cases:
        got = expect_scalar(call(student_fn, x, lam), "the log-likelihood", name="poisson_log_likelihood")
        want = _poisson_ll(x, lam)
        if math.isinf(want) and got == want:
            continue
        if not math.isclose(got, want, rel_tol=1e-9, abs_tol=1e-9):
            raise Failure(f"not the log-likelihood on {kind}; the statement says what it is there.")


@check("ex-hw-exponential-rate", "your rate equals n / T for your variant to 4 decimals.")
def exponential_rate_hidden(answer):
    if answer is Ellipsis or answer is None:
        raise NotImplementedYet()
    if callable(answer):
        raise Failure("assign the number itself, not a function.")
    value = expect_scalar(answer, "the rate", name="your answer")
    p = current("ex-hw-exponential-rate")
    if abs(value - p["n"] / p["total"]) > 1e-4:
        raise Failure("not the maximum likelihood estimate of the rate for your numbers (to 4 decimals).")
