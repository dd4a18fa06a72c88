"""Checks for the exercises of chapter 3's page on missing features.

The student's conditional mean and covariance are compared with
:func:`lib.gaussian.conditional_gaussian` on generated Gaussians; typical
slips (a transposed cross-covariance, a forgotten centring, the covariance
used where its inverse belongs, a standard deviation instead of a variance)
are computed and named.
"""

import numpy as np

from ._core import check_rng  # every input a check draws: salted while the grader judges (issue 49)

from .. import gaussian
from ._core import Failure, call, check, expect_array, expect_tuple

__all__ = ["gda_conditional"]


def _close(a, b):
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    return a.shape == b.shape and bool(np.allclose(a, b, rtol=1e-7, atol=1e-9))


def _cases(rng):
    """(mean, covariance, observed mask, x_observed) for 5 Gaussians, d from 2 to 5."""
    masks = [
        np.array([True, False, True, False]),  # as many observed as missing: transposes show
        np.array([True, True, False]),  # one missing coordinate: variances vs standard deviations
        np.array([False, True]),
        np.array([True, False, False, True, True]),
        np.array([False, True, True, False]),
    ]
    for mask in masks:
        d = mask.size
        A = rng.normal(size=(d, d))
        cov = A @ A.T + 0.3 * np.eye(d)
        cov = 0.5 * (cov + cov.T)
        mean = 2.0 * rng.normal(size=d)
        x_o = mean[mask] + 1.5 * rng.normal(size=int(mask.sum()))
        yield mean, cov, mask, x_o


def _mean_mistakes(mean, cov, o, x_o):
    m = ~o
    S_oo, S_mo, S_om = cov[np.ix_(o, o)], cov[np.ix_(m, o)], cov[np.ix_(o, m)]
    r = x_o - mean[o]
    out = [
        (mean[m] + S_mo @ np.linalg.solve(S_oo, x_o),
         "the conditional mean uses x_o where it needs the deviation x_o - mu_o."),
        (mean[m] + S_mo @ S_oo @ r,
         "the conditional mean multiplies by Sigma_oo where it needs its inverse: solve a linear "
         "system with Sigma_oo instead."),
        (S_mo @ np.linalg.solve(S_oo, r),
         "the conditional mean is missing mu_m: the correction is added to the mean of the missing part."),
        (mean[m] - S_mo @ np.linalg.solve(S_oo, r),
         "the correction to the conditional mean has the wrong sign: observing x_o above its mean moves "
         "a positively correlated x_m up."),
        (mean[m],
         "the conditional mean ignores the observed values: it must depend on x_o through "
         "Sigma_mo Sigma_oo^{-1} (x_o - mu_o)."),
    ]
    if S_om.shape[0] == S_om.shape[1]:
        out.insert(0, (mean[m] + S_om @ np.linalg.solve(S_oo, r),
                       "the cross-covariance in the conditional mean is transposed: it needs Sigma_mo, "
                       "the rows of the MISSING coordinates and the columns of the observed ones."))
        out.insert(1, (mean[m] + np.linalg.solve(S_oo, S_mo) @ r,
                       "the conditional mean multiplies in the wrong order: it is Sigma_mo Sigma_oo^{-1} "
                       "(x_o - mu_o), with Sigma_oo^{-1} next to the observed deviation."))
    return out


def _cov_mistakes(cov, o):
    m = ~o
    S_oo, S_mo, S_om, S_mm = cov[np.ix_(o, o)], cov[np.ix_(m, o)], cov[np.ix_(o, m)], cov[np.ix_(m, m)]
    correction = S_mo @ np.linalg.solve(S_oo, S_om)
    right = S_mm - correction
    out = [
        (S_mm, "the conditional covariance is the marginal Sigma_mm: subtract what observing x_o "
               "explains, Sigma_mo Sigma_oo^{-1} Sigma_om."),
        (S_mm + correction, "the correction to the conditional covariance has the wrong sign: observing "
                            "x_o can only reduce the uncertainty about x_m."),
        (S_mm - S_mo @ S_oo @ S_om, "the conditional covariance multiplies by Sigma_oo where it needs its "
                                    "inverse: solve a linear system with Sigma_oo instead."),
        (np.linalg.inv(right), "you returned the inverse of the conditional covariance (a precision matrix)."),
    ]
    if S_om.shape[0] == S_om.shape[1]:
        out.insert(0, (S_mm - S_om @ np.linalg.solve(S_oo, S_mo),
                       "the cross-covariances in the conditional covariance are transposed: it is "
                       "Sigma_mm - Sigma_mo Sigma_oo^{-1} Sigma_om, with Sigma_mo (rows: missing) on the left."))
    if right.shape == (1, 1):
        out.append((np.sqrt(right), "you returned a standard deviation where the conditional VARIANCE belongs "
                                    "(the square of it)."))
    return out


def _reshaped(value, shape):
    """``value`` reshaped to ``shape`` when it holds exactly that many numbers; else unchanged."""
    try:
        arr = np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError):
        return value
    return arr.reshape(shape) if arr.size == int(np.prod(shape)) else value


@check(
    "ex-gda-conditional",
    "the conditional mean and covariance match the formulas on 5 Gaussians (d = 2 to 5, different "
    "observed coordinates), each with one observed vector.",
    solves=("lib.gaussian.conditional_gaussian", "lib.discriminant.impute"),
    allow=(),
)
def gda_conditional(student_fn):
    rng = check_rng(304)
    for mean, cov, o, x_o in _cases(rng):
        out = call(student_fn, mean, cov, o, x_o, name="conditional_gaussian")
        expect_tuple(out, 2, "(cond_mean, cond_cov)", name="conditional_gaussian")
        n_m = int((~o).sum())
        want_mean, want_cov = gaussian.conditional_gaussian(mean, cov, o, x_o)
        got_mean, got_cov = out
        if np.size(got_mean) == n_m * n_m and np.size(got_cov) == n_m and n_m > 1:
            raise Failure("conditional_gaussian returned (cond_cov, cond_mean); return (cond_mean, cond_cov).")
        got_mean = _reshaped(got_mean, (n_m,))  # accept (1, n_m) or a 1x1 array for a single coordinate
        got_cov = _reshaped(got_cov, (n_m, n_m))
        got_mean = expect_array(got_mean, (n_m,), "cond_mean", name="conditional_gaussian")
        got_cov = expect_array(got_cov, (n_m, n_m), "cond_cov", name="conditional_gaussian")
        where = f"(d = {o.size}, observed coordinates {np.flatnonzero(o).tolist()})"
        if not _close(got_mean, want_mean):
            for wrong, message in _mean_mistakes(mean, cov, o, x_o):
                if _close(got_mean, wrong):
                    raise Failure(f"{where}: {message}")
            raise Failure(f"{where}: the conditional mean does not match mu_m + Sigma_mo Sigma_oo^{{-1}} (x_o - mu_o).")
        if not _close(got_cov, want_cov):
            for wrong, message in _cov_mistakes(cov, o):
                if _close(got_cov, wrong):
                    raise Failure(f"{where}: {message}")
            raise Failure(f"{where}: the conditional covariance does not match "
                          "Sigma_mm - Sigma_mo Sigma_oo^{-1} Sigma_om.")
