"""Checks for the exercises of chapter 3's page on Fisher's discriminant and shrinkage.

``gda_fisher_direction`` compares a unit direction with Fisher's (LDA's)
:math:`\\Sigma^{-1}(\\mu_1 - \\mu_0)`; ``gda_ledoit_wolf`` compares a shrinkage
intensity with :func:`lib.discriminant.ledoit_wolf`.  Both compute the typical
slips and name them.
"""

import numpy as np

from ._core import check_rng  # every input a check draws: salted while the grader judges (issue 49)

from .. import discriminant
from ._core import Failure, call, check, expect_array, expect_number

__all__ = ["gda_fisher_direction", "gda_ledoit_wolf"]


def _unit(v):
    return v / np.linalg.norm(v)


def _parallel(a, b, tol=1e-7):
    """Same direction (and orientation) up to a positive factor."""
    return bool(np.linalg.norm(_unit(a) - _unit(b)) < tol)


def _fisher_cases(rng):
    for sizes, d in [((40, 25), 2), ((15, 60), 3), ((30, 30), 4), ((50, 12), 6)]:
        A = rng.normal(size=(d, d))
        shift = rng.normal(size=d)
        X = np.vstack([rng.normal(size=(sizes[0], d)) @ A,
                       rng.normal(size=(sizes[1], d)) @ A + 1.5 * shift])
        y = np.repeat([0, 1], sizes)
        order = rng.permutation(len(y))
        yield X[order], y[order]


@check(
    "ex-gda-fisher",
    "the direction is a unit vector parallel to Sigma^{-1}(mu_1 - mu_0), correctly oriented, on 4 data "
    "sets (d = 2 to 6, equal and unequal class sizes).",
    solves=("lib.discriminant.fit_class_gaussians", "lib.discriminant.class_gaussians",
            "lib.discriminant.discriminant_directions", "lib.discriminant.logistic_parameters"),
    allow=(),
)
def gda_fisher_direction(student_fn):
    rng = check_rng(305)
    for X, y in _fisher_cases(rng):
        d = X.shape[1]
        got = call(student_fn, X, y, name="fisher_direction")
        got = expect_array(np.ravel(got) if np.size(got) == d else got, (d,), "w", name="fisher_direction")
        if np.linalg.norm(got) == 0:
            raise Failure("fisher_direction returned the zero vector; J(w) is not defined there.")
        priors, means, pooled = discriminant.fit_class_gaussians(X, y, "tied")
        diff = means[1] - means[0]
        want = np.linalg.solve(pooled, diff)
        where = f"(d = {d}, class sizes {np.bincount(y).tolist()})"
        if _parallel(got, -want):
            raise Failure(f"{where}: w points the wrong way: orient it so that w @ (mu_1 - mu_0) > 0.")
        if not _parallel(got, want):
            _, _, covs = discriminant.fit_class_gaussians(X, y, "full")
            if _parallel(got, diff) or _parallel(got, -diff):
                raise Failure(f"{where}: w is the difference of the class means; Fisher's direction also "
                              "undoes the within-class correlations: w is proportional to Sigma^{-1}(mu_1 - mu_0).")
            if _parallel(got, pooled @ diff) or _parallel(got, -pooled @ diff):
                raise Failure(f"{where}: w multiplies the mean difference by Sigma where it needs Sigma^{{-1}}: "
                              "solve a linear system with the pooled covariance.")
            if _parallel(got, np.linalg.solve(covs.mean(axis=0), diff)):
                raise Failure(f"{where}: you averaged the class covariances equally; the pooled within-class "
                              "covariance weights class k by n_k / n.")
            raise Failure(f"{where}: w is not parallel to Sigma^{{-1}}(mu_1 - mu_0) with Sigma the pooled "
                          "within-class covariance.")
        if not np.isclose(np.linalg.norm(got), 1.0, rtol=1e-7):
            raise Failure(f"{where}: the direction is right but w is not of unit length: divide it by its norm.")


def _lw_terms(X, ddof=0, centre=True):
    n, d = X.shape
    D = X - X.mean(axis=0) if centre else X
    S = D.T @ D / (n - ddof)
    avg_var = np.trace(S) / d
    zeta2 = np.sum((S - avg_var * np.eye(d)) ** 2) / d
    mse = (np.sum(np.sum(D**2, axis=1) ** 2) - 2 * np.sum((D @ S) * D) + n * np.sum(S**2)) / (n**2 * d)
    return mse, zeta2


def _lw_cases(rng):
    yield rng.normal(size=(60, 8)) @ rng.normal(size=(8, 8)) + 5.0  # far from centred
    yield rng.normal(size=(12, 50)) @ rng.normal(size=(50, 50))
    yield rng.normal(size=(200, 3)) * np.array([1.0, 2.0, 4.0]) - 2.0
    yield rng.normal(size=(20, 2)) @ np.array([[1.0, 0.8], [0.0, 0.6]])
    yield np.array([[0.3, -0.2], [1.1, 0.4], [-0.9, 0.1], [0.2, 1.3], [-0.5, -1.2]])  # minimum active


@check(
    "ex-gda-ledoit-wolf",
    "the intensity matches the Ledoit-Wolf formula on 5 data sets (n = 5 to 200, d = 2 to 50), "
    "including one where min(MSE, zeta^2) = zeta^2.",
    solves=("lib.discriminant.ledoit_wolf",),
    allow=(),
)
def gda_ledoit_wolf(student_fn):
    rng = check_rng(306)
    for X in _lw_cases(rng):
        n, d = X.shape
        got = expect_number(call(student_fn, X, name="ledoit_wolf_intensity"), "omega",
                            name="ledoit_wolf_intensity")
        _, want = discriminant.ledoit_wolf(X)
        if np.isclose(got, want, rtol=1e-7, atol=1e-10):
            continue
        where = f"(n = {n}, d = {d})"
        mse, zeta2 = _lw_terms(X)
        if mse > zeta2 and np.isclose(got, mse / zeta2, rtol=1e-7):
            raise Failure(f"{where}: your omega is above 1: clip the estimated MSE at zeta^2 (the minimum in the "
                          "formula).")
        if not (0.0 <= got <= 1.0):
            raise Failure(f"{where}: the intensity omega must lie in [0, 1].")
        b_raw, d_raw = _lw_terms(X, centre=False)
        if np.isclose(got, min(b_raw, d_raw) / d_raw, rtol=1e-7):
            raise Failure(f"{where}: you did not centre the data: subtract the column means before forming S "
                          "and the x_i x_i^T.")
        b1, d1 = _lw_terms(X, ddof=1)
        if np.isclose(got, min(b1, d1) / d1, rtol=1e-7) or np.isclose(got, min(mse, d1) / d1, rtol=1e-7):
            raise Failure(f"{where}: S divides by n - 1; the formula uses the MLE, which divides by n.")
        if np.isclose(got, min(n * mse, zeta2) / zeta2, rtol=1e-7):
            raise Failure(f"{where}: the estimated MSE is divided by n once; it needs 1/n^2 (the variance of an AVERAGE "
                          "of n matrices is 1/n times theirs, and their spread is itself a sum over n).")
        if np.isclose(got, 1 - want, rtol=1e-7, atol=1e-10):
            raise Failure(f"{where}: you returned 1 - omega, the weight of S; omega is the weight of the "
                          "target sigma_bar^2 I.")
        raise Failure(f"{where}: omega does not match min(MSE, zeta^2) / zeta^2; check "
                      "zeta^2 = ||S - sigma_bar^2 I||^2 (sigma_bar^2 = tr(S) / d) and "
                      "MSE = (1/n^2) sum_i ||x_i x_i^T - S||^2 with centred x_i.")
