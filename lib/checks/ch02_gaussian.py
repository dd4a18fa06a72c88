"""Checks for the exercises of chapter 2's page "The Gaussian model" that are not in ``ch02``.

The exercise asks for a function written from a derived closed form, so the
check runs it on fresh data sets and compares with ``lib.mle``; each typical
slip (a sign, a missing 1/2 or d, n - 1, a variance used as a standard
deviation) is computed, compared and named.
"""

import numpy as np

from ._core import check_rng  # every input a check draws: salted while the grader judges (issue 49)

from .. import mle
from ._core import Failure, call, check, expect_number

__all__ = ["gaussian_max_log_likelihood"]

_LOG_2PI = np.log(2.0 * np.pi)


def _max_ll_cases(rng):
    for n, d in ((40, 3), (25, 1), (60, 4), (12, 2), (200, 2)):
        A = rng.normal(size=(d, d)) + 0.5 * np.eye(d)          # correlated features
        shift = rng.uniform(-5.0, 5.0, size=d)
        yield rng.normal(size=(n, d)) @ A.T * rng.uniform(0.3, 3.0) + shift


def _max_ll_slips(X):
    """(value, message) for typical wrong closed forms on one data set."""
    n, d = X.shape
    _, cov = mle.gaussian_mle(X, "full")
    ld = np.linalg.slogdet(cov)[1]
    ld_unbiased = ld + d * np.log(n / (n - 1))
    ld_diag = np.sum(np.log(np.diag(cov)))
    right = -0.5 * n * (d * _LOG_2PI + ld + d)
    return [
        (-0.5 * n * (d * _LOG_2PI - ld + d),
         "the log-determinant has the wrong sign: a Gaussian density carries det(Sigma)^(-1/2), "
         "so the log-likelihood has -n/2 ln det Sigma, not +n/2 ln det Sigma."),
        (2 * right,
         "your value is twice the log-likelihood: a missing 1/2 in front of the bracket "
         "(d ln 2 pi + ln det Sigma + quadratic term)."),
        (-0.5 * n * (d * _LOG_2PI + d) - n * ld,
         "the log-determinant term is missing its 1/2: it is -(n/2) ln det Sigma_hat."),
        (-0.5 * n * (d * _LOG_2PI + 0.5 * ld + d),
         "you used half the log-determinant: in one dimension, ln sigma instead of ln sigma^2 (a variance "
         "used as a standard deviation); in general, the log-determinant of a Cholesky factor L instead "
         "of Sigma = L L^T, which has twice it."),
        (-0.5 * n * (d * _LOG_2PI + ld + 1),
         "the quadratic term at the MLE is missing its d: sum_i (x_i - mu_hat)^T Sigma_hat^{-1} (x_i - mu_hat) "
         "= tr(Sigma_hat^{-1} n Sigma_hat) = n d, not n."),
        (-0.5 * n * (_LOG_2PI + ld + d),
         "the normalising constant is missing its d: each point contributes -(d/2) ln 2 pi, one 1/2 ln 2 pi "
         "per coordinate."),
        (-0.5 * n * (d * _LOG_2PI + ld),
         "the quadratic term is missing: at the MLE it does not vanish, it sums to a constant (use the trace)."),
        (-0.5 * n * (d * _LOG_2PI + ld_unbiased + d),
         "you divided the scatter matrix by n - 1; the MLE Sigma_hat divides by n."),
        (-0.5 * n * (d * _LOG_2PI + ld_unbiased) - 0.5 * (n - 1) * d,
         "you evaluated the log-likelihood at the covariance that divides by n - 1; the maximum is at "
         "Sigma_hat, which divides by n."),
        (right / n,
         "that is the average per point (what scikit-learn's score returns); the log-likelihood is the sum "
         "over the n points."),
        (-0.5 * n * (d * _LOG_2PI + ld_diag + d),
         "you used only the diagonal of Sigma_hat (the product of the variances): the full model's "
         "determinant also accounts for the correlations between features."),
        (-right,
         "the sign is wrong: a log-likelihood of continuous data can have either sign, but here it is "
         "-(n/2) times a bracket; check the sign in front."),
    ]


@check("ex-gaussian-max-log-likelihood",
       "matches the log-likelihood at the MLE, summed over the points, on 5 data sets "
       "(n from 12 to 200, d from 1 to 4, correlated features).",
       solves=("lib.mle.gaussian_log_likelihood", "lib.mle.gaussian_entropy", "lib.gaussian.logpdf",
               "lib.gaussian.log_prob"),
       allow=())
def gaussian_max_log_likelihood(student_fn):
    rng = check_rng(23)
    for X in _max_ll_cases(rng):
        n, d = X.shape
        got = expect_number(call(student_fn, X, name="gaussian_max_log_likelihood", unchanged={0: "X"}),
                            "the maximised log-likelihood", name="gaussian_max_log_likelihood", float_only=True)
        want = mle.gaussian_log_likelihood(X, *mle.gaussian_mle(X, "full"))
        if np.isclose(got, want, rtol=1e-8, atol=1e-8):
            continue
        for value, message in _max_ll_slips(X):
            if not np.isclose(value, want, rtol=1e-8, atol=1e-8) and np.isclose(got, value, rtol=1e-8):
                raise Failure(message)
        ld = np.linalg.slogdet(mle.gaussian_mle(X, "full")[1])[1]
        for fixed in range(1, 7):
            if fixed != d and np.isclose(got, -0.5 * n * (fixed * _LOG_2PI + ld + fixed), rtol=1e-8):
                raise Failure(
                    f"your formula has d = {fixed} in it, but this data set has d = {d} features: read d from "
                    "X.shape[1], not a fixed number."
                )
        raise Failure(
            f"wrong value on a data set with n = {n}, d = {d}. Substitute mu_hat and Sigma_hat into the "
            "log-likelihood, and write the quadratic term as a trace to evaluate it."
        )
