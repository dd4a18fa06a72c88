r"""Multivariate Gaussian densities through Cholesky factors.

The density of :math:`\mathcal N(\mu, \Sigma)` in :math:`d` dimensions is

.. math::

    \ln \mathcal N(x \mid \mu, \Sigma)
      = -\tfrac12 \bigl( d \ln 2\pi + \ln\det\Sigma
        + (x-\mu)^\top \Sigma^{-1} (x-\mu) \bigr).

With the Cholesky factor :math:`\Sigma = L L^\top` (``L`` lower triangular),
:math:`\ln\det\Sigma = 2\sum_j \ln L_{jj}` and the quadratic form is
:math:`\lVert z \rVert^2` with :math:`z = L^{-1}(x-\mu)`, one triangular
solve.  No inverse and no determinant is ever formed, and nothing is
exponentiated: the functions return log-densities, which stay finite where the
density itself underflows to 0.

Book: chapters/03_gaussian_discriminant_analysis.md, eq. label ``gda-gaussian``.

Covariance parameters follow scikit-learn's four structures for ``K``
Gaussians in ``d`` dimensions:

============  ===================  =========================================
type          ``covariances``      meaning
============  ===================  =========================================
``full``      ``(K, d, d)``        one full matrix :math:`\Sigma_k` per component
``tied``      ``(d, d)``           one matrix :math:`\Sigma` shared by all
``diag``      ``(K, d)``           :math:`\Sigma_k = \mathrm{diag}(\sigma_{k1}^2, \dots)`
``spherical`` ``(K,)``             :math:`\Sigma_k = \sigma_k^2 I`
============  ===================  =========================================
"""

import numpy as np
from scipy.linalg import cholesky as _cholesky
from scipy.linalg import solve_triangular

from ._validation import (
    COVARIANCE_TYPES,
    check_covariance_type,
    check_data,
    check_n_features,
    check_rng,
)

__all__ = [
    "COVARIANCE_TYPES",
    "check_covariances",
    "cholesky_factors",
    "log_prob",
    "logpdf",
    "sample",
    "full_covariances",
    "conditional_gaussian",
]

_LOG_2PI = np.log(2.0 * np.pi)


class NotPositiveDefiniteError(ValueError):
    """A covariance that is not positive definite (a ``ValueError``; mixture fits re-word it)."""


def _chol(matrix, what):
    try:
        return _cholesky(matrix, lower=True, check_finite=False)
    except np.linalg.LinAlgError:
        raise NotPositiveDefiniteError(
            f"{what} is not positive definite, so it is not a valid covariance matrix. "
            "This happens when a component has fewer distinct points than dimensions or a "
            "feature is constant; add a small ridge (increase reg_covar) or drop constant features."
        ) from None


def check_covariances(covariances, covariance_type, n_components, n_features, name="covariances"):
    """Return ``covariances`` as a float array after checking its layout and values.

    Checks the shape expected for ``covariance_type`` (see the module docstring),
    finiteness, symmetry of full and tied matrices (a Cholesky factorisation
    would silently read only one triangle), and positive variances for diag and
    spherical.  Positive definiteness is checked by :func:`cholesky_factors`.
    """
    cov = check_data(covariances, name, ndim=max(np.ndim(covariances), 1))
    expected = {
        "full": (n_components, n_features, n_features),
        "tied": (n_features, n_features),
        "diag": (n_components, n_features),
        "spherical": (n_components,),
    }[covariance_type]
    if cov.shape != expected:
        raise ValueError(
            f"{name} for covariance_type={covariance_type!r} with {n_components} component(s) "
            f"in {n_features} dimension(s) must have shape {expected}, got {cov.shape}."
        )
    if covariance_type in ("full", "tied"):
        mats = cov.reshape(-1, n_features, n_features)
        if not np.allclose(mats, np.swapaxes(mats, 1, 2), rtol=1e-10, atol=1e-12):
            raise ValueError(f"{name} must be symmetric matrices; symmetrise with (S + S.T) / 2.")
    elif np.any(cov <= 0):
        raise ValueError(
            f"variances must be strictly positive for covariance_type={covariance_type!r}, "
            f"got a minimum of {cov.min():.3g}; increase reg_covar."
        )
    return cov


def cholesky_factors(covariances, covariance_type="full"):
    r"""Cholesky factors :math:`L_k` with :math:`\Sigma_k = L_k L_k^\top`.

    Parameters
    ----------
    covariances : ndarray
        Covariance parameters in the layout of ``covariance_type`` (see module docstring).
    covariance_type : {'full', 'tied', 'diag', 'spherical'}

    Returns
    -------
    ndarray
        Same shape as ``covariances``: lower-triangular factors for ``full``
        and ``tied``, standard deviations (square roots) for ``diag`` and
        ``spherical``.
    """
    covariance_type = check_covariance_type(covariance_type)
    cov = np.asarray(covariances, dtype=np.float64)
    if covariance_type == "full":
        return np.stack([_chol(c, f"covariances[{k}]") for k, c in enumerate(cov)])
    if covariance_type == "tied":
        return _chol(cov, "the tied covariance matrix")
    if np.any(cov <= 0):
        raise NotPositiveDefiniteError(
            f"variances must be strictly positive, got a minimum of {cov.min():.3g}; increase reg_covar."
        )
    return np.sqrt(cov)


def log_prob(X, means, covariances, covariance_type="full"):
    r"""Log-densities :math:`\ln \mathcal N(x_i \mid \mu_k, \Sigma_k)` for every pair ``(i, k)``.

    .. math::

        \ln \mathcal N(x_i \mid \mu_k, \Sigma_k)
          = -\tfrac12 \bigl(d \ln 2\pi + 2 \textstyle\sum_j \ln (L_k)_{jj}
            + \lVert L_k^{-1}(x_i - \mu_k) \rVert^2 \bigr)

    Book: chapters/03_gaussian_discriminant_analysis.md, eq. label ``gda-gaussian``.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
    means : array-like of shape (n_components, n_features)
        ``means[k]`` is :math:`\mu_k`.
    covariances : array-like
        ``covariances[k]`` is :math:`\Sigma_k` in the layout of ``covariance_type``.
    covariance_type : {'full', 'tied', 'diag', 'spherical'}

    Returns
    -------
    ndarray of shape (n_samples, n_components)
    """
    covariance_type = check_covariance_type(covariance_type)
    X = check_data(X, "X")
    means = check_data(means, "means")
    n_components, n_features = means.shape
    check_n_features(X, n_features)
    cov = check_covariances(covariances, covariance_type, n_components, n_features)
    chol = cholesky_factors(cov, covariance_type)
    n_samples = X.shape[0]
    out = np.empty((n_samples, n_components))

    if covariance_type in ("full", "tied"):
        for k in range(n_components):
            L = chol[k] if covariance_type == "full" else chol
            # z = L^{-1} (x_i - mu_k) for all i at once: solve L Z^T = (X - mu_k)^T
            z = solve_triangular(L, (X - means[k]).T, lower=True, check_finite=False)  # (d, n)
            log_det = 2.0 * np.sum(np.log(np.diag(L)))
            out[:, k] = -0.5 * (n_features * _LOG_2PI + log_det + np.sum(z**2, axis=0))
    elif covariance_type == "diag":
        for k in range(n_components):
            z = (X - means[k]) / chol[k]  # (n, d): standardised coordinates
            log_det = 2.0 * np.sum(np.log(chol[k]))
            out[:, k] = -0.5 * (n_features * _LOG_2PI + log_det + np.sum(z**2, axis=1))
    else:  # spherical
        for k in range(n_components):
            sq_dist = np.sum((X - means[k]) ** 2, axis=1)  # (n,)
            out[:, k] = -0.5 * (n_features * (_LOG_2PI + np.log(cov[k])) + sq_dist / cov[k])
    return out


def logpdf(X, mean, covariance):
    r"""Log-density of one Gaussian :math:`\ln \mathcal N(x_i \mid \mu, \Sigma)`.

    The one-component case of :func:`log_prob`, with the scipy-like signature.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
    mean : array-like of shape (n_features,)
    covariance : array-like of shape (n_features, n_features), (n_features,) or scalar
        A full matrix, the diagonal of a diagonal matrix, or a single variance
        :math:`\sigma^2` (spherical).

    Returns
    -------
    ndarray of shape (n_samples,)
    """
    mean = check_data(mean, "mean", ndim=1)
    cov = np.asarray(covariance, dtype=np.float64)
    if cov.ndim == 0:
        return log_prob(X, mean[None, :], cov[None], "spherical")[:, 0]
    if cov.ndim == 1:
        return log_prob(X, mean[None, :], cov[None, :], "diag")[:, 0]
    return log_prob(X, mean[None, :], cov[None, :, :], "full")[:, 0]


def full_covariances(covariances, covariance_type, n_components, n_features):
    """Expand any covariance layout to full matrices of shape ``(n_components, d, d)``."""
    covariance_type = check_covariance_type(covariance_type)
    cov = check_covariances(covariances, covariance_type, n_components, n_features)
    if covariance_type == "full":
        return cov.copy()
    if covariance_type == "tied":
        return np.repeat(cov[None, :, :], n_components, axis=0)
    if covariance_type == "diag":
        return np.stack([np.diag(c) for c in cov])
    return cov[:, None, None] * np.eye(n_features)[None, :, :]


def sample(mean, covariance, n_samples, rng=None):
    r"""Draw ``n_samples`` points from :math:`\mathcal N(\mu, \Sigma)`.

    Uses :math:`x = \mu + L z` with :math:`z \sim \mathcal N(0, I)` and
    :math:`\Sigma = L L^\top`, the reparameterisation that makes the
    covariance of :math:`x` equal to :math:`L\,\mathrm{Cov}(z)\,L^\top = \Sigma`.

    Parameters
    ----------
    mean : array-like of shape (n_features,)
    covariance : array-like of shape (n_features, n_features), (n_features,) or scalar
        Full matrix, diagonal, or a single variance.
    n_samples : int
    rng : None, int or numpy.random.Generator

    Returns
    -------
    ndarray of shape (n_samples, n_features)
    """
    rng = check_rng(rng)
    mean = check_data(mean, "mean", ndim=1)
    d = mean.shape[0]
    cov = np.asarray(covariance, dtype=np.float64)
    if cov.ndim == 0:
        cov = cov * np.eye(d)
    elif cov.ndim == 1:
        cov = np.diag(cov)
    if cov.shape != (d, d):
        raise ValueError(f"covariance must have shape ({d}, {d}) to match the mean, got {cov.shape}.")
    L = _chol(cov, "covariance")
    z = rng.standard_normal((int(n_samples), d))  # (n, d)
    return mean + z @ L.T


def _observed_mask(observed, d):
    """A boolean mask of length ``d`` from a mask or from integer indices."""
    obs = np.asarray(observed)
    if obs.dtype == bool:
        if obs.shape != (d,):
            raise ValueError(f"a boolean observed mask must have shape ({d},), got {obs.shape}.")
        return obs.copy()
    if obs.ndim != 1 or (obs.size and obs.dtype.kind not in "iu"):
        raise TypeError(
            "observed must be a boolean mask of shape (d,) or a 1-D array of integer feature indices, "
            f"got {obs.dtype} of shape {obs.shape}."
        )
    if obs.size and (obs.min() < -d or obs.max() >= d):
        raise ValueError(f"observed indices must lie in [0, {d}), got {obs.tolist()}.")
    mask = np.zeros(d, dtype=bool)
    mask[obs] = True
    return mask


def conditional_gaussian(mean, covariance, observed, x_observed):
    r"""Mean and covariance of :math:`p(x_m \mid x_o)` when :math:`x \sim \mathcal N(\mu, \Sigma)`.

    Split the coordinates into observed (``o``) and missing (``m``) ones. Then
    :math:`x_m \mid x_o \sim \mathcal N(\mu_{m\mid o}, \Sigma_{m\mid o})` with

    .. math::

        \mu_{m\mid o} = \mu_m + \Sigma_{mo} \Sigma_{oo}^{-1} (x_o - \mu_o), \qquad
        \Sigma_{m\mid o} = \Sigma_{mm} - \Sigma_{mo} \Sigma_{oo}^{-1} \Sigma_{om}.

    Computed with one Cholesky factor :math:`\Sigma_{oo} = L L^\top` and
    triangular solves: with :math:`A = L^{-1}\Sigma_{om}`,
    :math:`\Sigma_{m\mid o} = \Sigma_{mm} - A^\top A` and
    :math:`\mu_{m\mid o} = \mu_m + A^\top L^{-1}(x_o - \mu_o)`; no inverse is formed.

    Book: chapters/03_4_missing_features.md, eq. labels ``gda-cond-mean``, ``gda-cond-cov``.

    Parameters
    ----------
    mean : array-like of shape (d,)
    covariance : array-like of shape (d, d)
        Symmetric positive definite.
    observed : array-like
        Boolean mask of shape ``(d,)`` (True = observed) or integer indices of the
        observed coordinates. The missing coordinates are the others, in increasing order.
    x_observed : array-like of shape (n_o,) or (n, n_o)
        Values of the observed coordinates (in increasing index order), one row per point.

    Returns
    -------
    cond_mean : ndarray of shape (n_m,) or (n, n_m)
        :math:`\mu_{m\mid o}`, with the shape of ``x_observed``'s leading axes.
    cond_cov : ndarray of shape (n_m, n_m)
        :math:`\Sigma_{m\mid o}`; it does not depend on the value of :math:`x_o`.
    """
    mean = check_data(mean, "mean", ndim=1)
    d = mean.shape[0]
    cov = check_covariances(covariance, "tied", 1, d, name="covariance")
    o = _observed_mask(observed, d)
    m = ~o
    x_o = np.asarray(x_observed, dtype=np.float64)
    single = x_o.ndim <= 1
    x_o = x_o.reshape(1, -1) if single else x_o
    if x_o.ndim != 2 or x_o.shape[1] != o.sum() or not np.all(np.isfinite(x_o)):
        raise ValueError(
            f"x_observed must hold {int(o.sum())} finite value(s) per point (one per observed "
            f"coordinate), got shape {np.shape(x_observed)}."
        )
    if not o.any():  # nothing observed: the conditional is the marginal
        cond_mean = np.broadcast_to(mean, (x_o.shape[0], d)).copy()
        return (cond_mean[0] if single else cond_mean), cov.copy()
    L = _chol(cov[np.ix_(o, o)], "the observed block of the covariance")  # Sigma_oo = L L^T
    A = solve_triangular(L, cov[np.ix_(o, m)], lower=True, check_finite=False)  # L^{-1} Sigma_om
    z = solve_triangular(L, (x_o - mean[o]).T, lower=True, check_finite=False)  # L^{-1}(x_o - mu_o)
    cond_mean = mean[m] + (A.T @ z).T  # mu_m + Sigma_mo Sigma_oo^{-1} (x_o - mu_o), (n, n_m)
    cond_cov = cov[np.ix_(m, m)] - A.T @ A  # Sigma_mm - Sigma_mo Sigma_oo^{-1} Sigma_om
    cond_cov = 0.5 * (cond_cov + cond_cov.T)  # exactly symmetric
    return (cond_mean[0] if single else cond_mean), cond_cov
