r"""Gaussian mixtures fitted by expectation-maximisation (EM).

A mixture of :math:`K` Gaussians has the density

.. math::

    p(x \mid \theta) = \sum_{k=1}^{K} \pi_k \, \mathcal N(x \mid \mu_k, \Sigma_k),

with mixing weights :math:`\pi_k` (``weights[k]``), means :math:`\mu_k`
(``means[k]``) and covariances :math:`\Sigma_k` (``covariances[k]``, in one of
the four layouts of :mod:`lib.gaussian`: ``full``, ``tied``, ``diag``,
``spherical``).  EM alternates two closed-form steps:

* the E-step (:func:`e_step`) computes the responsibilities
  :math:`\gamma_{ik} = p(z_i = k \mid x_i, \theta)` (``resp[i, k]``);
* the M-step (:func:`m_step`) re-estimates :math:`\theta` from the soft counts
  :math:`n_k = \sum_i \gamma_{ik}`.

Every quantity is computed in log space (``logsumexp``, Cholesky factors): no
density is exponentiated before it is normalised, no matrix is inverted.

The pure functions :func:`log_likelihood`, :func:`e_step`, :func:`m_step` and
:func:`lower_bound` are the book's reference implementation, written to be read.
:class:`GaussianMixture` runs the same updates through a faster but equivalent
route, ``lib/_fastpath.py`` (its sufficient statistics and M-step included):
each log-density is a linear function of the features
:math:`\phi(x) = [1, x, x x^\top]`, so an E-step is one matrix product and an
M-step is another.  Where those expanded forms would lose digits (components
far from the data's centre against their width, nearly singular covariances)
it takes an exact route per component; see ``lib/_fastpath.py``.  The tests
check that both routes agree with each other, with :func:`lib.gaussian.log_prob`,
with scikit-learn, and with an extended-precision reference on hard data.

Book: chapters/04_em_gaussian_mixtures.md, eq. label ``gmm-density``.
"""

import warnings

import numpy as np
from scipy.linalg import solve_triangular
from scipy.special import entr, logsumexp
from sklearn.base import BaseEstimator, DensityMixin
from sklearn.cluster import KMeans, kmeans_plusplus
from sklearn.utils.validation import check_is_fitted

from ._validation import (
    check_estimator_data,
    check_n_features,
    ConvergenceWarning,
    check_covariance_type,
    check_data,
    check_positive_int,
    check_positive_scalar,
    check_probability_vector,
    check_rng,
)
from . import _fastpath
from .gaussian import NotPositiveDefiniteError, check_covariances, cholesky_factors, log_prob

__all__ = [
    "GaussianMixture",
    "e_step",
    "entropy",
    "estimate_log_prob",
    "expected_complete_log_likelihood",
    "log_likelihood",
    "log_posterior",
    "log_prior",
    "lower_bound",
    "m_step",
    "map_m_step",
    "sample",
]

_LOG_2PI = np.log(2.0 * np.pi)

#: scikit-learn's four initialisations (with its meaning), the book's two
#: nearest-seed variants, and 'given'.  See ``init_params`` in GaussianMixture.
_INIT_PARAMS = ("kmeans", "k-means++", "random", "random_from_data", "k-means++_nearest", "random_seeds",
                "given")
#: Spellings that are not options, and what to use instead.  'kmeans++' was the book's
#: name for 'k-means++_nearest': one letter away from scikit-learn's 'k-means++', which
#: means something else, so it is refused with both names rather than guessed.
_NOT_INIT_PARAMS = {
    "kmeans++": ("'k-means++' (scikit-learn's: each component starts from its own seed point alone) "
                 "or 'k-means++_nearest' (the book's default: k-means++ seeds, every point assigned "
                 "to its nearest seed)"),
}


def _is_dask(X):
    """Whether X is a Dask collection (checked without importing Dask: it is optional)."""
    return hasattr(type(X), "__dask_graph__")

# --------------------------------------------------------------------------
# Validation of mixture parameters (public entry points only)
# --------------------------------------------------------------------------


def _check_covariances(covariances, covariance_type, n_components, n_features, name="covariances"):
    cov = check_covariances(covariances, covariance_type, n_components, n_features, name)
    cholesky_factors(cov, covariance_type)  # raises a ValueError if not positive definite
    return cov


def _precision_cholesky(covariances, covariance_type):
    """scikit-learn's precisions_cholesky_: U = L^{-T} (upper) with Sigma = L L^T, or 1/sqrt(var)."""
    chol = cholesky_factors(covariances, covariance_type)
    if covariance_type in ("diag", "spherical"):
        return 1.0 / chol
    chols = chol if covariance_type == "full" else chol[None]
    eye = np.eye(chols.shape[-1])
    U = np.stack([solve_triangular(L, eye, lower=True, check_finite=False).T for L in chols])
    return U if covariance_type == "full" else U[0]


def _invert(matrices, covariance_type):
    """Covariances from precisions or back: inverses by Cholesky factors, never ``inv``."""
    if covariance_type in ("diag", "spherical"):
        return 1.0 / matrices
    U = _precision_cholesky(matrices, covariance_type)  # matrices^{-1} = U U^T
    return U @ np.swapaxes(U, -1, -2)


def _shape_of(value):
    try:
        return np.shape(value)
    except ValueError:  # ragged nested lists: left to check_data's TypeError
        return None


def _check_init_shape(value, sk_name, expected, what):
    """scikit-learn's wording for a ``*_init`` of the wrong shape, then lib's explanation."""
    shape = _shape_of(value)
    if shape is not None and shape != expected:
        raise ValueError(
            f"The parameter '{sk_name}' should have the shape of {expected}, but got {shape}. ({what}.)"
        )


def _check_weights_init(weights, n_components):
    """``weights_init``: scikit-learn's checks and wording (shape, range, sum), then lib's (no zero)."""
    _check_init_shape(weights, "weights", (n_components,), "weights_init holds one weight per component")
    w = check_data(weights, "weights_init", ndim=1)
    if np.any(w < 0.0) or np.any(w > 1.0 + 1e-10):  # 1 + 10 eps / n: an M-step's weight with K = 1
        raise ValueError(
            f"The parameter 'weights' should be in the range [0, 1], but got min value {w.min():.5f}, "
            f"max value {w.max():.5f}. (weights_init are mixing weights: probabilities summing to 1.)"
        )
    if not np.allclose(np.abs(1.0 - np.sum(w)), 0.0):
        raise ValueError(
            f"The parameter 'weights' should be normalized, but got sum(weights) = {np.sum(w):.5f}. "
            "(weights_init must sum to 1: divide it by its sum.)"
        )
    return check_probability_vector(w, "weights_init", allow_zero=False)


_INIT_SHAPES = {
    "full": lambda K, d: (K, d, d),
    "tied": lambda K, d: (d, d),
    "diag": lambda K, d: (K, d),
    "spherical": lambda K, d: (K,),
}


def _check_precisions_init(precisions, covariance_type, n_components, n_features):
    """``precisions_init``: scikit-learn's wording ('full precision' ...), then lib's explanation."""
    ct = covariance_type
    expected = _INIT_SHAPES[ct](n_components, n_features)
    _check_init_shape(precisions, f"{ct} precision", expected,
                      f"precisions_init for covariance_type={ct!r} with {n_components} component(s) "
                      f"in {n_features} dimension(s)")
    P = check_data(precisions, "precisions_init", ndim=len(expected))
    if ct in ("diag", "spherical"):
        if np.any(P <= 0):
            raise ValueError(
                f"'{ct} precision' should be positive; precisions_init holds inverse variances, "
                f"but its minimum is {P.min():.3g}."
            )
        return P
    for k, M in enumerate(P.reshape(-1, n_features, n_features)):
        where = f"precisions_init[{k}]" if ct == "full" else "precisions_init"
        if not np.allclose(M, M.T, rtol=1e-10, atol=1e-12):
            raise ValueError(f"'{ct} precision' should be symmetric, positive-definite; {where} is not "
                             "symmetric (symmetrise with (P + P.T) / 2).")
        try:
            np.linalg.cholesky(M)
        except np.linalg.LinAlgError:
            raise ValueError(f"'{ct} precision' should be symmetric, positive-definite; {where} is not "
                             "positive definite, so it is not the inverse of a covariance.") from None
    return P


def _check_parameters(X, weights, means, covariances, covariance_type):
    """Validate a mixture's ``(X, weights, means, covariances)``, each once; return float arrays.

    ``X`` or ``weights`` may be None (not part of the call), and come back as None.
    """
    covariance_type = check_covariance_type(covariance_type)
    means = check_data(means, "means")
    n_components, n_features = means.shape
    if X is not None:
        X = check_data(X, "X")
        check_n_features(X, n_features)
    if weights is not None:
        weights = check_probability_vector(weights, "weights")
        if weights.shape[0] != n_components:
            raise ValueError(
                f"weights has {weights.shape[0]} entries but there are {n_components} means; "
                "give one weight per component."
            )
    cov = _check_covariances(covariances, covariance_type, n_components, n_features)
    return X, weights, means, cov


def _check_resp(resp, n_samples, n_components=None):
    resp = check_data(resp, "resp")
    if resp.shape[0] != n_samples or (n_components is not None and resp.shape[1] != n_components):
        want = f"({n_samples}, {n_components if n_components is not None else 'n_components'})"
        raise ValueError(f"resp must have shape {want} (one row per sample), got {resp.shape}.")
    if np.any(resp < 0):
        raise ValueError(f"resp must be non-negative, got a minimum of {resp.min():.3g}.")
    row_sums = resp.sum(axis=1)
    if not np.allclose(row_sums, 1.0, rtol=0, atol=1e-6):
        worst = int(np.argmax(np.abs(row_sums - 1.0)))
        raise ValueError(
            f"each row of resp must sum to 1 (a distribution over components), but row {worst} "
            f"sums to {row_sums[worst]:.6g}; normalise with resp / resp.sum(axis=1, keepdims=True)."
        )
    return resp


# --------------------------------------------------------------------------
# The model: log-densities, log-likelihood, E-step, M-step, lower bound
# --------------------------------------------------------------------------


def estimate_log_prob(X, means, covariances, covariance_type="full"):
    r"""Component log-densities :math:`\ln \mathcal N(x_i \mid \mu_k, \Sigma_k)`.

    Same values as :func:`lib.gaussian.log_prob`, computed through the
    natural-parameter form used by the EM fast path: with the precision
    :math:`P_k = \Sigma_k^{-1}` (from the Cholesky factor of :math:`\Sigma_k`),

    .. math::

        \ln \mathcal N(x \mid \mu_k, \Sigma_k)
          = \underbrace{-\tfrac12\bigl(d\ln 2\pi + \ln\det\Sigma_k
              + \mu_k^\top P_k \mu_k\bigr)}_{\text{constant}}
            + x^\top P_k \mu_k - \tfrac12 x^\top P_k x ,

    which is linear in the features :math:`[1, x, x x^\top]`.  The data are
    centred (by their mean) first, which keeps the expansion accurate.  For
    full covariances in more than 20 dimensions the quadratic form is evaluated
    as :math:`\lVert L_k^{-1}(x - \mu_k)\rVert^2` instead, for all :math:`k`
    with one matrix product (see the module docstring of ``lib/_fastpath.py``).

    Book: chapters/04_em_gaussian_mixtures.md, eq. label ``gmm-density``.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
    means : array-like of shape (n_components, n_features)
    covariances : array-like
        In the layout of ``covariance_type`` (see :mod:`lib.gaussian`).
    covariance_type : {'full', 'tied', 'diag', 'spherical'}

    Returns
    -------
    ndarray of shape (n_samples, n_components)
    """
    X, _, means, cov = _check_parameters(X, None, means, covariances, covariance_type)
    # weights of 1 (log 1 = 0): plain component log-densities
    return _fastpath.log_joint(X, np.ones(len(means)), means, cov, covariance_type, shift=X.mean(axis=0))


def log_likelihood(X, weights, means, covariances, covariance_type="full"):
    r"""Log-likelihood of the data under a Gaussian mixture.

    .. math::

        \ell(\theta) = \sum_{i=1}^{n} \ln \sum_{k=1}^{K} \pi_k \,
                       \mathcal N(x_i \mid \mu_k, \Sigma_k)

    The inner sum is a ``logsumexp`` of :math:`\ln\pi_k + \ln\mathcal N(\cdot)`,
    so nothing underflows even when every density is tiny.

    Book: chapters/04_em_gaussian_mixtures.md, eq. label ``gmm-loglik``.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
    weights : array-like of shape (n_components,)
        Mixing weights :math:`\pi_k`, non-negative, summing to 1.
    means : array-like of shape (n_components, n_features)
    covariances : array-like
        In the layout of ``covariance_type``.
    covariance_type : {'full', 'tied', 'diag', 'spherical'}

    Returns
    -------
    float
        The total (not the mean) log-likelihood.
    """
    _, log_norm = e_step(X, weights, means, covariances, covariance_type)
    return float(log_norm.sum())


def e_step(X, weights, means, covariances, covariance_type="full"):
    r"""E-step: responsibilities :math:`\gamma_{ik}` and per-sample log-likelihoods.

    .. math::

        \gamma_{ik} = \frac{\pi_k \, \mathcal N(x_i \mid \mu_k, \Sigma_k)}
                           {\sum_{j} \pi_j \, \mathcal N(x_i \mid \mu_j, \Sigma_j)}
          = \exp\Bigl(\ln \pi_k + \ln \mathcal N(x_i \mid \mu_k, \Sigma_k)
                      - \ln p(x_i \mid \theta)\Bigr)

    The log-densities come from :func:`lib.gaussian.log_prob` (Cholesky
    solves on :math:`x_i - \mu_k`); :class:`GaussianMixture` gets the same
    numbers, to rounding, from the faster :func:`estimate_log_prob`.

    Book: chapters/04_em_gaussian_mixtures.md, eq. label ``em-e-step``.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
    weights : array-like of shape (n_components,)
    means : array-like of shape (n_components, n_features)
    covariances : array-like
        In the layout of ``covariance_type``.
    covariance_type : {'full', 'tied', 'diag', 'spherical'}

    Returns
    -------
    resp : ndarray of shape (n_samples, n_components)
        ``resp[i, k]`` is :math:`\gamma_{ik}`; every row sums to 1.
    log_norm : ndarray of shape (n_samples,)
        :math:`\ln p(x_i \mid \theta)`, whose sum is :func:`log_likelihood`.
    """
    X, weights, means, covariances = _check_parameters(X, weights, means, covariances, covariance_type)
    with np.errstate(divide="ignore"):  # a zero weight is allowed: ln 0 = -inf, gamma = 0
        log_weights = np.log(weights)
    weighted = log_prob(X, means, covariances, covariance_type) + log_weights  # (n, K)
    log_norm = logsumexp(weighted, axis=1)  # (n,): ln p(x_i)
    resp = np.exp(weighted - log_norm[:, None])  # (n, K)
    return resp, log_norm


def m_step(X, resp, covariance_type="full", reg_covar=1e-6):
    r"""M-step: the parameters that maximise :math:`F(q, \theta)` for fixed responsibilities :math:`q = \gamma`.

    With the soft counts :math:`n_k = \sum_i \gamma_{ik}`:

    .. math::

        \pi_k = \frac{n_k}{n}, \qquad
        \mu_k = \frac{1}{n_k} \sum_{i} \gamma_{ik}\, x_i, \qquad
        \Sigma_k = \frac{1}{n_k} \sum_{i} \gamma_{ik}\, (x_i - \mu_k)(x_i - \mu_k)^\top
                   + \varepsilon I .

    (Beware: without the :math:`1/n_k`, :math:`\mu_k` would be a sum, not an
    average, and would grow with the number of points.)  The other covariance structures are

    * ``tied``: :math:`\Sigma = \frac1n \sum_k \sum_i \gamma_{ik}(x_i-\mu_k)(x_i-\mu_k)^\top + \varepsilon I`;
    * ``diag``: the diagonal of the ``full`` update, feature by feature;
    * ``spherical``:
      :math:`\sigma_k^2 = \frac{1}{d\, n_k}\sum_i \gamma_{ik}\lVert x_i-\mu_k\rVert^2 + \varepsilon`
      (the responsibilities and the :math:`1/d` are both needed).

    :math:`\varepsilon` is ``reg_covar``, added to the diagonal exactly as
    scikit-learn does, so the covariances stay positive definite when a
    component collapses onto a few points.  As in scikit-learn, ``10 * eps`` is
    added to each :math:`n_k` before dividing.

    **An empty component** (:math:`n_k = 0`, e.g. more components than distinct
    points) is kept alive exactly as scikit-learn keeps it: its count is floored
    at ``10 * eps``, so its weight is ``10 * eps / n`` (about :math:`10^{-15}/n`),
    its mean :math:`\sum_i \gamma_{ik} x_i / (10\,\mathrm{eps})` is the origin,
    and its covariance is ``reg_covar`` times the identity (``tied``: the shared
    covariance).  Why not an error:
    the fit is well defined (the component carries no weight and changes the
    log-likelihood by less than :math:`10^{-14}` relative), scikit-learn fits such
    data (its own tests fit 10 components to two distinct points), and an error's
    only advice that always works, fewer components, is not always what the
    reader wants.  With ``reg_covar=0`` that covariance is singular, and
    :class:`GaussianMixture` raises scikit-learn's "ill-defined empirical
    covariance" ``ValueError``, whose advice (increase ``reg_covar``) then works.

    Book: chapters/04_em_gaussian_mixtures.md, eq. labels ``em-m-step-weights``,
    ``em-m-step-means``, ``em-m-step-cov``.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
    resp : array-like of shape (n_samples, n_components)
        Responsibilities :math:`\gamma_{ik}`: non-negative, rows summing to 1.
    covariance_type : {'full', 'tied', 'diag', 'spherical'}
    reg_covar : float >= 0
        Ridge :math:`\varepsilon` added to the covariances' diagonals; 0 gives
        the unregularised maximum-likelihood update.

    Returns
    -------
    weights : ndarray of shape (n_components,)
    means : ndarray of shape (n_components, n_features)
    covariances : ndarray
        In the layout of ``covariance_type``.
    """
    covariance_type = check_covariance_type(covariance_type)
    reg_covar = check_positive_scalar(reg_covar, "reg_covar", allow_zero=True)
    X = check_data(X, "X")
    resp = _check_resp(resp, X.shape[0])
    n_samples, n_features = X.shape

    counts = resp.sum(axis=0)  # (K,): soft counts n_k
    n_k = counts + _fastpath.COUNT_EPS  # an empty component is kept alive (see above)
    weights = n_k / n_samples  # em-m-step-weights
    means = resp.T @ X / n_k[:, None]  # (K, d), em-m-step-means

    # em-m-step-cov, one structure at a time
    if covariance_type == "full":
        covariances = np.empty((len(n_k), n_features, n_features))
        for k in range(len(n_k)):
            diff = X - means[k]  # (n, d)
            covariances[k] = (resp[:, k] * diff.T) @ diff / n_k[k] + reg_covar * np.eye(n_features)
    elif covariance_type == "tied":
        covariances = np.zeros((n_features, n_features))
        for k in range(len(n_k)):
            diff = X - means[k]
            covariances += (resp[:, k] * diff.T) @ diff
        covariances = covariances / n_k.sum() + reg_covar * np.eye(n_features)
    else:
        # per-feature weighted variances, shape (K, d)
        sq_dev = np.stack([resp[:, k] @ (X - means[k]) ** 2 for k in range(len(n_k))])
        covariances = sq_dev / n_k[:, None] + reg_covar
        if covariance_type == "spherical":
            covariances = covariances.mean(axis=1)  # (1/d) sum over features
    return weights, means, covariances


def expected_complete_log_likelihood(X, resp, weights, means, covariances, covariance_type="full"):
    r"""Expected complete-data log-likelihood :math:`F(Q, \theta)`.

    .. math::

        F(Q, \theta) = \sum_{i=1}^{n} \sum_{k=1}^{K} Q_{ik}
                       \ln\bigl(\pi_k \, \mathcal N(x_i \mid \mu_k, \Sigma_k)\bigr)

    The M-step maximises it over :math:`\theta` for fixed :math:`Q`.  Terms with
    :math:`Q_{ik} = 0` contribute 0 even where :math:`\pi_k = 0`.

    Book: chapters/04_1_em_bound.md, eq. label ``em-lower-bound``.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
    resp : array-like of shape (n_samples, n_components)
        Any distribution :math:`Q_i` over components for each sample.
    weights, means, covariances, covariance_type
        The mixture parameters, as in :func:`log_likelihood`.

    Returns
    -------
    float
    """
    X, weights, means, covariances = _check_parameters(X, weights, means, covariances, covariance_type)
    resp = _check_resp(resp, X.shape[0], len(weights))
    with np.errstate(divide="ignore"):
        log_weights = np.log(weights)
    weighted = log_prob(X, means, covariances, covariance_type) + log_weights  # (n, K)
    weighted = np.where(resp > 0, weighted, 0.0)  # 0 * ln 0 = 0
    return float(np.sum(resp * weighted))


def entropy(resp):
    r"""Total entropy :math:`\sum_i H(Q_i) = -\sum_i \sum_k Q_{ik} \ln Q_{ik}` (with :math:`0 \ln 0 = 0`).

    Book: chapters/04_1_em_bound.md, eq. label ``em-lower-bound``.

    Parameters
    ----------
    resp : array-like of shape (n_samples, n_components)

    Returns
    -------
    float
    """
    resp = check_data(resp, "resp")
    return float(entr(resp).sum())  # entr(q) = -q ln q, and entr(0) = 0


def lower_bound(X, resp, weights, means, covariances, covariance_type="full"):
    r"""The EM lower bound :math:`G(Q, \theta) = F(Q, \theta) + \sum_i H(Q_i)`.

    .. math::

        G(Q, \theta) = \sum_{i}\sum_{k} Q_{ik}
            \ln \frac{\pi_k \, \mathcal N(x_i \mid \mu_k, \Sigma_k)}{Q_{ik}}
          = \ell(\theta) - \sum_i \mathrm{KL}\bigl(Q_i \,\Vert\, p(z_i \mid x_i, \theta)\bigr)
          \le \ell(\theta)

    Equality holds exactly when :math:`Q` is the E-step's responsibilities, so
    right after an E-step the bound equals :func:`log_likelihood`.

    Book: chapters/04_1_em_bound.md, eq. labels ``em-lower-bound``,
    ``em-lower-bound-equals-loglik``.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
    resp : array-like of shape (n_samples, n_components)
        Any distribution :math:`Q_i` over components for each sample.
    weights, means, covariances, covariance_type
        The mixture parameters, as in :func:`log_likelihood`.

    Returns
    -------
    float
    """
    return expected_complete_log_likelihood(
        X, resp, weights, means, covariances, covariance_type
    ) + entropy(resp)


def sample(n_samples, weights, means, covariances, covariance_type="full", rng=None):
    r"""Draw from a Gaussian mixture by ancestral sampling.

    First :math:`z_i \sim \mathrm{Categorical}(\pi)`, then
    :math:`x_i = \mu_{z_i} + L_{z_i}` times a standard normal vector, with
    :math:`\Sigma_k = L_k L_k^\top`, so that
    :math:`x_i \mid z_i \sim \mathcal N(\mu_{z_i}, \Sigma_{z_i})`.

    Book: chapters/04_em_gaussian_mixtures.md, eq. label ``gmm-density``.

    Parameters
    ----------
    n_samples : int >= 1
    weights : array-like of shape (n_components,)
    means : array-like of shape (n_components, n_features)
    covariances : array-like
        In the layout of ``covariance_type``.
    covariance_type : {'full', 'tied', 'diag', 'spherical'}
    rng : None, int or numpy.random.Generator

    Returns
    -------
    X : ndarray of shape (n_samples, n_features)
    z : ndarray of shape (n_samples,)
        The component each sample was drawn from.
    """
    if isinstance(n_samples, (int, np.integer)) and not isinstance(n_samples, bool) and n_samples < 1:
        raise ValueError(  # scikit-learn's wording first
            f"Invalid value for 'n_samples': {n_samples}. The sampling requires at least one sample "
            "(n_samples must be an integer >= 1)."
        )
    n_samples = check_positive_int(n_samples, "n_samples")
    rng = check_rng(rng)
    _, weights, means, cov = _check_parameters(None, weights, means, covariances, covariance_type)
    n_components, n_features = means.shape
    chol = cholesky_factors(cov, covariance_type)  # L_k, or standard deviations
    z = rng.choice(n_components, size=n_samples, p=weights)  # (n,)
    eps = rng.standard_normal((n_samples, n_features))  # (n, d)
    X = np.empty((n_samples, n_features))
    for k in range(n_components):
        rows = z == k
        if covariance_type == "full":
            X[rows] = means[k] + eps[rows] @ chol[k].T
        elif covariance_type == "tied":
            X[rows] = means[k] + eps[rows] @ chol.T
        else:  # diag (chol[k] has shape (d,)) or spherical (a scalar)
            X[rows] = means[k] + eps[rows] * chol[k]
    return X, z


# --------------------------------------------------------------------------
# The estimator
# --------------------------------------------------------------------------


class GaussianMixture(DensityMixin, BaseEstimator):
    r"""Gaussian mixture model fitted by EM, with a scikit-learn interface.

    The EM iterations are those of :func:`e_step` and :func:`m_step` (same
    formulas, same ``reg_covar`` convention as scikit-learn's
    ``GaussianMixture``, so both libraries follow the same trajectory from the
    same initial parameters); they run through the sufficient-statistics fast
    path described in the module docstring.

    Book: chapters/04_em_gaussian_mixtures.md, eq. labels ``em-e-step``,
    ``em-m-step-weights``, ``em-m-step-means``, ``em-m-step-cov``.

    Parameters
    ----------
    n_components : int, default=1
        Number of components :math:`K`.
    covariance_type : {'full', 'tied', 'diag', 'spherical'}, default='full'
    tol : float >= 0, default=1e-3
        EM stops when the mean log-likelihood per sample changes by less than
        ``tol`` between two iterations (scikit-learn's rule).
    reg_covar : float >= 0, default=1e-6
        Ridge added to the covariances' diagonals at every M-step.  0 is the
        pure maximum-likelihood M-step; if a covariance then becomes singular
        (a component on fewer distinct points than dimensions, a constant
        feature) :meth:`fit` raises a ``ValueError`` that names ``reg_covar``.
    max_iter : int >= 0, default=100
        Maximum number of EM iterations per initialisation.  ``0`` returns the
        initial parameters.
    n_init : int >= 1, default=1
        Number of initialisations; the one with the largest ``lower_bound_`` is
        kept.  Ignored (one run) with ``init_params='given'``.
    init_params : {'k-means++_nearest', 'random_seeds', 'kmeans', 'k-means++', 'random', 'random_from_data', \
'given'}, default='k-means++_nearest'
        How the initial parameters are chosen.  The book's two (nearest-seed)
        initialisations:

        * ``'k-means++_nearest'`` (the default): :math:`K` seeds by k-means++
          (:func:`sklearn.cluster.kmeans_plusplus`); each point is assigned to
          its nearest seed (hard responsibilities) and one :func:`m_step` gives
          the initial parameters.
        * ``'random_seeds'``: the same with :math:`K` distinct data points
          drawn at random as seeds.  (Before scikit-learn's spelling was
          supported, lib called this ``'random_from_data'``.)

        ``'kmeans++'``, the book's former name for ``'k-means++_nearest'``, is
        refused with a ``ValueError`` that names both k-means++ options: it
        differed from scikit-learn's ``'k-means++'`` by one hyphen and meant
        something else.

        scikit-learn's four, with scikit-learn's meaning:

        * ``'kmeans'``: responsibilities from the labels of
          :class:`sklearn.cluster.KMeans` (``n_init=1``), then one M-step
          (scikit-learn's default);
        * ``'k-means++'``: k-means++ seeds, each component given only its own
          seed point (one M-step on those K points: the means are the seeds,
          the covariances ``reg_covar`` times the identity);
        * ``'random_from_data'``: the same with random distinct data points;
        * ``'random'``: responsibilities drawn uniformly at random and
          normalised, then one M-step.

        And ``'given'``: ``weights_init``, ``means_init`` and
        ``covariances_init`` (or ``precisions_init``) are all required and
        used as they are.  With the other options, any ``*_init`` that is
        given replaces the corresponding initial value (as in scikit-learn).
    weights_init : array-like of shape (n_components,), default=None
    means_init : array-like of shape (n_components, n_features), default=None
    covariances_init : array-like, default=None
        Initial covariances, in the layout of ``covariance_type`` (the book
        works with covariances).
    precisions_init : array-like, default=None
        Initial precisions (inverse covariances), scikit-learn's parameter,
        in the layout of ``covariance_type``; give this or ``covariances_init``,
        not both.
    random_state : None, int, numpy.random.Generator or RandomState, default=None
        Seeds the initialisation and :meth:`sample`.
    warm_start : bool, default=False
        If True and the model is already fitted, :meth:`fit` starts from the
        fitted parameters (one run, ``n_init`` ignored), as in scikit-learn.
    verbose : int, default=0
        0: silent; 1: one line per initialisation; 2: also the mean
        log-likelihood every ``verbose_interval`` iterations.
    verbose_interval : int, default=10
        Iterations between two progress lines when ``verbose >= 2``.
    init_sample_size : int or None, default=None
        ``'k-means++_nearest'`` seeds from this many rows drawn at random (all
        rows when None).  For a Dask array that does not fit in memory, set it
        (e.g. 100_000): the sample is read, not the whole array.

    **Dask arrays.**  :meth:`fit` also accepts a ``dask.array.Array`` chunked
    along rows (``pip install "genmodels-lib[dask]"``): each EM iteration is
    one pass over the chunks, each chunk returning its sums, added in a tree
    (``lib/_dask.py``, chapter 4 "EM when the data do not fit in memory").
    The initialisations then cost: ``'given'`` no pass; ``'random_seeds'``
    reading K rows plus one pass; ``'k-means++_nearest'`` reading ``init_sample_size``
    rows plus one pass; ``'random'`` one pass.  (``'kmeans'``, ``'k-means++'``
    and ``'random_from_data'`` are in-memory only.)  :meth:`predict`,
    :meth:`predict_proba` and :meth:`score_samples` of a Dask array return Dask
    arrays chunked like it; :meth:`score` returns a number.

    Attributes
    ----------
    weights_ : ndarray of shape (n_components,)
    means_ : ndarray of shape (n_components, n_features)
    covariances_ : ndarray
        In the layout of ``covariance_type``.
    precisions_ : ndarray
        Inverse covariances, in the layout of ``covariance_type``.
    precisions_cholesky_ : ndarray
        scikit-learn's Cholesky factors of the precisions: for ``full`` and
        ``tied`` the upper-triangular :math:`U = L^{-\top}` with
        :math:`\Sigma = L L^\top` (so :math:`\Sigma^{-1} = U U^\top`); for
        ``diag`` and ``spherical`` ``1 / sqrt(covariances_)``.
    converged_ : bool
        Whether the kept initialisation met ``tol`` within ``max_iter``.
    n_iter_ : int
        Number of EM iterations (E-step + M-step) of the kept initialisation.
    lower_bound_ : float
        scikit-learn's ``lower_bound_``: the mean log-likelihood per sample
        computed by the last E-step, i.e. of the parameters *before* the last
        M-step, ``log_likelihood_history_[-2] / n_samples``.  (With
        ``max_iter=0`` it is ``log_likelihood_history_[0] / n_samples``.)
    lower_bounds_ : list of float
        scikit-learn's per-iteration ``lower_bound_``:
        ``log_likelihood_history_[:n_iter_] / n_samples``.
    log_likelihood_history_ : ndarray of shape (n_iter_ + 1,)
        Total (not mean) log-likelihood :func:`log_likelihood` of the training
        data: entry 0 at the initial parameters, entry ``t`` after ``t``
        iterations, the last one at the returned parameters.  EM never lowers
        it (up to rounding, and up to the tiny effect of ``reg_covar``).
    n_features_in_ : int
        Number of features seen by :meth:`fit`.
    feature_names_in_ : ndarray of shape (n_features_in_,)
        Column names, when ``X`` was a DataFrame with string column names.

    Notes
    -----
    **Collapse.**  A component that shrinks onto one or a few points would see
    its covariance become singular and the likelihood grow without bound;
    ``reg_covar`` is a floor on the covariance's eigenvalues that keeps every
    :math:`\Sigma_k` positive definite.

    **Empty components.**  A component whose soft count
    :math:`n_k = \sum_i \gamma_{ik}` is 0 (initial means far from every point,
    or fewer distinct points than components) is kept alive as scikit-learn
    keeps it (see :func:`m_step`): weight ``10 * eps / n_samples``, mean at the
    origin, covariance ``reg_covar`` times the identity.  It carries no weight,
    so the fit is that of the other components; ``weights_`` shows it (an entry
    of about 1e-15 / n_samples), and fewer components give the same fit.  It is
    not re-seeded: a re-seed would break EM's monotonicity.  With
    ``reg_covar=0`` its covariance is singular and :meth:`fit` raises
    scikit-learn's "ill-defined empirical covariance" ``ValueError``; a positive
    ``reg_covar``, as that message advises, fits.

    **Threads.**  :meth:`fit` and the scoring methods run with BLAS limited
    to one thread and restore the caller's setting afterwards (scikit-learn's
    ``KMeans`` does the same).  The fast path multiplies cache-sized blocks of
    rows, about 2 MiB each; for products that small a second BLAS thread can
    cost more in start-up and synchronisation than it saves
    (``benchmarks/results_threads.md``: up to 5 times slower iterations for
    full and tied covariances on 2 cores).  To use several cores,
    fit several models in parallel processes (one per ``n_init`` or per ``K``).

    **scikit-learn's estimator checks** (``check_estimator``) all pass.  The
    only one reported as skipped, ``check_array_api_input``, skips itself: this
    estimator is numpy-only and does not claim array-API support.

    Examples
    --------
    >>> import numpy as np
    >>> from lib.mixture import GaussianMixture
    >>> X = np.array([[1, 2], [1, 4], [1, 0], [10, 2], [10, 4], [10, 0]])
    >>> gm = GaussianMixture(n_components=2, random_state=0).fit(X)
    >>> gm.means_
    array([[ 1.,  2.],
           [10.,  2.]])
    >>> gm.predict([[0, 0], [12, 3]])
    array([0, 1])
    >>> len(gm.log_likelihood_history_) == gm.n_iter_ + 1
    True

    """

    def __init__(
        self,
        n_components=1,
        *,
        covariance_type="full",
        tol=1e-3,
        reg_covar=1e-6,
        max_iter=100,
        n_init=1,
        init_params="k-means++_nearest",
        weights_init=None,
        means_init=None,
        covariances_init=None,
        precisions_init=None,
        random_state=None,
        warm_start=False,
        verbose=0,
        verbose_interval=10,
        init_sample_size=None,
    ):
        self.n_components = n_components
        self.covariance_type = covariance_type
        self.tol = tol
        self.reg_covar = reg_covar
        self.max_iter = max_iter
        self.n_init = n_init
        self.init_params = init_params
        self.weights_init = weights_init
        self.means_init = means_init
        self.covariances_init = covariances_init
        self.precisions_init = precisions_init
        self.random_state = random_state
        self.warm_start = warm_start
        self.verbose = verbose
        self.verbose_interval = verbose_interval
        self.init_sample_size = init_sample_size

    # ---- validation ------------------------------------------------------

    def _validate_X(self, X, *, reset):
        return check_estimator_data(self, X, reset=reset)

    def _check_hyperparameters(self, n_samples, n_features):
        check_covariance_type(self.covariance_type)
        n_components = check_positive_int(self.n_components, "n_components")
        if n_components > n_samples:
            raise ValueError(
                f"n_components={n_components} is larger than the number of samples "
                f"n_samples={n_samples}; every component needs data: use at most {n_samples} components."
            )
        check_positive_scalar(self.tol, "tol", allow_zero=True)
        check_positive_scalar(self.reg_covar, "reg_covar", allow_zero=True)
        check_positive_int(self.max_iter, "max_iter", minimum=0)
        check_positive_int(self.n_init, "n_init")
        check_positive_int(self.verbose, "verbose", minimum=0)
        check_positive_int(self.verbose_interval, "verbose_interval")
        if self.init_sample_size is not None:
            check_positive_int(self.init_sample_size, "init_sample_size", minimum=n_components)
        if not isinstance(self.warm_start, (bool, np.bool_)):
            raise TypeError(f"warm_start must be True or False, got {self.warm_start!r}.")
        if isinstance(self.init_params, str) and self.init_params in _NOT_INIT_PARAMS:
            raise ValueError(f"init_params={self.init_params!r} is not an option: use "
                             f"{_NOT_INIT_PARAMS[self.init_params]}.")
        if not isinstance(self.init_params, str) or self.init_params not in _INIT_PARAMS:
            raise ValueError(f"init_params must be one of {_INIT_PARAMS}, got {self.init_params!r}.")
        given = {}
        if self.weights_init is not None:
            given["weights"] = _check_weights_init(self.weights_init, n_components)
        if self.means_init is not None:
            _check_init_shape(self.means_init, "means", (n_components, n_features),
                              "means_init holds one mean per component: (n_components, n_features)")
            given["means"] = check_data(self.means_init, "means_init")
        if self.covariances_init is not None:
            given["covariances"] = _check_covariances(
                self.covariances_init, self.covariance_type, n_components, n_features,
                name="covariances_init",
            )
        if self.precisions_init is not None:
            if self.covariances_init is not None:
                raise ValueError(
                    "give covariances_init or precisions_init (its inverse), not both."
                )
            precisions = _check_precisions_init(self.precisions_init, self.covariance_type,
                                                n_components, n_features)
            given["covariances"] = _invert(precisions, self.covariance_type)
        if self.init_params == "given" and len(given) < 3:
            missing = [f"{p}_init" for p in ("weights", "means", "covariances") if p not in given]
            raise ValueError(
                f"init_params='given' needs weights_init, means_init and covariances_init; "
                f"missing {missing}."
            )
        return given

    # ---- fitting ---------------------------------------------------------

    def _initial_parameters(self, fast, given, rng):
        """Initial (weights, means, covariances), in the data's coordinates."""
        n_samples = fast.n_samples
        K = self.n_components
        if self.init_params == "given":
            return given["weights"], given["means"], given["covariances"]
        Xc = fast.Xc  # centred data: same seeds, better-conditioned distances
        resp = np.zeros((n_samples, K))
        if self.init_params == "random":
            resp = rng.uniform(size=(n_samples, K))
            resp /= resp.sum(axis=1, keepdims=True)
        elif self.init_params == "kmeans":
            seed = int(rng.integers(np.iinfo(np.int32).max))
            labels = KMeans(K, n_init=1, random_state=seed).fit(Xc).labels_
            resp[np.arange(n_samples), labels] = 1.0
        else:
            if self.init_params in ("k-means++_nearest", "k-means++"):
                seed = int(rng.integers(np.iinfo(np.int32).max))
                seeds, indices = kmeans_plusplus(Xc, K, random_state=seed)
            else:  # random_seeds, random_from_data
                indices = rng.choice(n_samples, size=K, replace=False)
                seeds = Xc[indices]
            if self.init_params in ("k-means++", "random_from_data"):  # scikit-learn: the seed only
                resp[indices, np.arange(K)] = 1.0
            else:  # the book: each point belongs to its nearest seed
                sq_dist = (
                    np.sum(Xc**2, axis=1)[:, None] - 2.0 * Xc @ seeds.T + np.sum(seeds**2, axis=1)
                )  # (n, K)
                resp[np.arange(n_samples), np.argmin(sq_dist, axis=1)] = 1.0
        stats, centres = fast.statistics(resp)
        weights, means, cov = _fastpath.m_step(stats, centres, n_samples, self.covariance_type, self.reg_covar)
        return given.get("weights", weights), given.get("means", means), given.get("covariances", cov)

    def fit(self, X, y=None):
        """Estimate the parameters by EM (``n_init`` runs, the best one kept).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : ignored

        Returns
        -------
        self : GaussianMixture

        Raises
        ------
        ValueError
            For invalid data or hyper-parameters, and when a component becomes
            empty (see "Empty components" in the class docstring).
        TypeError
            For non-numeric or sparse data and wrongly typed hyper-parameters.

        Warns
        -----
        ConvergenceWarning
            When the kept initialisation did not meet ``tol`` within ``max_iter``.
        """
        self._fit(X)
        return self

    def _fit(self, X):
        if _is_dask(X):
            return self._fit_dask(X)
        X = self._validate_X(X, reset=True)
        n_samples, n_features = X.shape
        given = self._check_hyperparameters(n_samples, n_features)
        rng = check_rng(self.random_state)
        with _fastpath.one_blas_thread():  # why: "Threads" in the class docstring
            fast = _fastpath.SufficientStatistics(X, self.covariance_type, self.n_components)
            return self._run_em(fast, lambda: self._initial_parameters(fast, given, rng))

    def _fit_dask(self, X):
        """EM on a Dask array: one pass over its row chunks per iteration (lib/_dask.py)."""
        from . import _dask

        X = _dask.check_dask_X(X)
        n_samples, n_features = X.shape
        given = self._check_hyperparameters(n_samples, n_features)
        rng = check_rng(self.random_state)
        data = _dask.ChunkedData(X, self.covariance_type, self.n_components)
        with _fastpath.one_blas_thread():
            self._run_em(data, lambda: data.initial_parameters(self.init_params, self.reg_covar,
                                                               self.init_sample_size, given, rng),
                         stacklevel=6)
        self.n_features_in_ = n_features
        if hasattr(self, "feature_names_in_"):
            del self.feature_names_in_
        return self.predict(X)

    def _run_em(self, data, initialise, stacklevel=5):
        """The EM loop: ``n_init`` runs (or a warm start), each to ``tol`` or ``max_iter``; the best kept.

        ``data`` is a statistics backend: the rows in memory
        (:class:`lib._fastpath.SufficientStatistics`) or a Dask array's chunks
        (:class:`lib._dask.ChunkedData`), both used only through
        :func:`lib._fastpath.em_iteration` (E-step and sufficient statistics)
        and ``final`` (the final log-likelihood).  ``initialise()`` draws a
        starting point.  Returns the labels of the kept run (None on Dask).
        """
        try:
            return self._em_loop(data, initialise, stacklevel + 1)
        except NotPositiveDefiniteError as exc:  # scikit-learn's wording first, then lib's
            raise ValueError(
                "Fitting the mixture model failed because some components have ill-defined "
                "empirical covariance (for instance caused by singleton or collapsed samples). "
                "Try to decrease the number of components, increase reg_covar, or scale the "
                f"input data. (reg_covar={self.reg_covar!r}; reg_covar=0 is the unregularised "
                f"maximum-likelihood M-step, whose covariances can be singular.) {exc}"
            ) from None

    def _em_loop(self, data, initialise, stacklevel):
        n_samples = data.n_samples
        best = None
        warm = self.warm_start and hasattr(self, "converged_")
        # 'given' and a warm start draw nothing random: one run
        n_runs = 1 if (self.init_params == "given" or warm) else self.n_init
        for init in range(n_runs):
            if warm:
                theta = (self.weights_, self.means_, self.covariances_)
            else:
                theta = initialise()  # (weights, means, covariances)
            if self.verbose:
                print(f"Initialization {init}")
            # a warm start continues the previous fit: its last bound is the first reference
            history = [self.lower_bound_ * n_samples] if warm else []
            hard = None  # which components take the exact route (lib/_fastpath.py), known after a step
            converged = False
            n_iter = 0
            for n_iter in range(1, self.max_iter + 1):
                log_lik, theta, hard = _fastpath.em_iteration(data, theta, self.reg_covar, hard)
                history.append(log_lik)  # l(theta) before this M-step
                change = (history[-1] - history[-2]) / n_samples if len(history) > 1 else np.inf
                if self.verbose >= 2 and n_iter % self.verbose_interval == 0:
                    print(f"  Iteration {n_iter}: mean log-likelihood "
                          f"{log_lik / n_samples:.6f} (change {change:.3g})")
                if abs(change) < self.tol:
                    converged = True
                    break
            if self.verbose:
                print(f"Initialization {'converged' if converged else 'did not converge'} "
                      f"after {n_iter} iterations.")
            final_log_lik, labels = data.final(theta)
            history = history[1:] if warm else history
            history.append(final_log_lik)
            bound = (history[-2] if len(history) > 1 else history[-1]) / n_samples
            if best is None or bound > best["bound"]:
                best = dict(bound=bound, theta=theta, history=history, n_iter=n_iter,
                            converged=converged, labels=labels)

        self._set_fitted(best, n_samples, stacklevel=stacklevel)
        return best["labels"]

    def _set_fitted(self, best, n_samples, stacklevel=5):
        """The fitted attributes of the kept run; warns if it did not converge."""
        if not best["converged"] and self.max_iter > 0:
            warnings.warn(
                "Best performing initialization did not converge. Try different init parameters, "
                "or increase max_iter, tol, or check for degenerate data. "
                f"(EM stopped at max_iter={self.max_iter} iterations, tol={self.tol}: the mean "
                "log-likelihood still changed by more than tol; duplicated points can also cause this.)",
                ConvergenceWarning,
                stacklevel=stacklevel,  # _set_fitted <- _em_loop <- _run_em <- _fit <- fit/fit_predict <- caller
            )
        self.weights_, self.means_, self.covariances_ = best["theta"]
        self.converged_ = best["converged"]
        self.n_iter_ = best["n_iter"]
        self.lower_bound_ = float(best["bound"])
        self.log_likelihood_history_ = np.asarray(best["history"])
        self.lower_bounds_ = list(self.log_likelihood_history_[: self.n_iter_] / n_samples)
        self.precisions_cholesky_ = _precision_cholesky(self.covariances_, self.covariance_type)
        self.precisions_ = _invert(self.covariances_, self.covariance_type)

    def fit_predict(self, X, y=None):
        """Fit, then return the most responsible component of each training sample.

        Same labels as ``fit(X).predict(X)``.

        Returns
        -------
        labels : ndarray of shape (n_samples,)
        """
        return self._fit(X)

    # ---- using the fitted model -----------------------------------------

    def _weighted_log_prob(self, X):
        """ln pi_k + ln N(x_i | mu_k, Sigma_k), shape (n_samples, n_components), by the fast path."""
        check_is_fitted(self)
        X = self._validate_X(X, reset=False)
        # centred at the mixture's mean, a point near the data whatever rows X holds
        return _fastpath.log_joint(X, self.weights_, self.means_, self.covariances_,
                                   self.covariance_type, shift=self.weights_ @ self.means_)

    def _map_dask(self, method, X, out_columns=None, dtype=np.float64):
        """``method`` on every row chunk of a Dask ``X``, lazily (a Dask array chunked like X)."""
        from . import _dask

        check_is_fitted(self)
        return _dask.map_rows(method, X, self.n_features_in_, out_columns, dtype)

    def score_samples(self, X):
        r"""Per-sample log-likelihoods :math:`\ln p(x_i \mid \theta)`, shape (n_samples,)."""
        if _is_dask(X):
            return self._map_dask(self.score_samples, X)
        return _fastpath.log_normaliser(self._weighted_log_prob(X))

    def score(self, X, y=None):
        """Mean log-likelihood per sample (a float); higher is better."""
        if _is_dask(X):
            return float(self.score_samples(X).mean().compute())
        return float(np.mean(self.score_samples(X)))

    def predict_proba(self, X):
        r"""Responsibilities :math:`\gamma_{ik}` of the fitted model, shape (n_samples, n_components)."""
        if _is_dask(X):
            return self._map_dask(self.predict_proba, X, out_columns=len(self.weights_))
        resp = self._weighted_log_prob(X)
        _fastpath.normalise_rows(resp)  # in place: resp now holds gamma_ik
        return resp

    def predict(self, X):
        """Most responsible component of each sample, shape (n_samples,)."""
        if _is_dask(X):
            return self._map_dask(self.predict, X, dtype=np.intp)
        return np.argmax(self._weighted_log_prob(X), axis=1)

    def sample(self, n_samples=1):
        """Draw ``n_samples`` points from the fitted mixture (seeded by ``random_state``).

        Returns
        -------
        X : ndarray of shape (n_samples, n_features)
        y : ndarray of shape (n_samples,)
            Component of each sample.
        """
        check_is_fitted(self)
        return sample(n_samples, self.weights_, self.means_, self.covariances_,
                      self.covariance_type, rng=check_rng(self.random_state))

    def _n_parameters(self):
        """Number of free parameters (as scikit-learn counts them)."""
        K, d = self.means_.shape
        cov_params = {
            "full": K * d * (d + 1) / 2.0,
            "diag": K * d,
            "tied": d * (d + 1) / 2.0,
            "spherical": K,
        }[self.covariance_type]
        return int(cov_params + K * d + K - 1)

    def bic(self, X):
        r"""Bayesian information criterion :math:`-2\ell(\theta) + p \ln n` (lower is better)."""
        n_samples = np.shape(X)[0]
        return -2.0 * self.score(X) * n_samples + self._n_parameters() * np.log(n_samples)

    def aic(self, X):
        r"""Akaike information criterion :math:`-2\ell(\theta) + 2p` (lower is better)."""
        n_samples = np.shape(X)[0]
        return -2.0 * self.score(X) * n_samples + 2.0 * self._n_parameters()


# --------------------------------------------------------------------------
# MAP-EM: a conjugate prior on the covariances and the weights
# --------------------------------------------------------------------------


def _check_prior_scale(prior_scale, n_components, n_features, *, positive_definite):
    """Return the inverse-Wishart scale matrices as an array of shape (K, d, d)."""
    scale = np.asarray(prior_scale, dtype=np.float64) if not isinstance(prior_scale, str) else None
    if scale is None or scale.shape not in ((n_features, n_features), (n_components, n_features, n_features)):
        raise ValueError(
            f"prior_scale must be a ({n_features}, {n_features}) matrix shared by all components or an array "
            f"of shape ({n_components}, {n_features}, {n_features}), one per component; got "
            f"{getattr(scale, 'shape', type(prior_scale).__name__)}."
        )
    scale = np.broadcast_to(scale, (n_components, n_features, n_features)).copy()
    if not np.all(np.isfinite(scale)) or not np.allclose(scale, np.swapaxes(scale, 1, 2), rtol=1e-10, atol=1e-12):
        raise ValueError("prior_scale must be finite and symmetric.")
    lowest = np.linalg.eigvalsh(scale).min()
    if lowest < (1e-12 if positive_definite else -1e-12 * max(1.0, np.abs(scale).max())):
        need = "positive definite" if positive_definite else "positive semi-definite"
        raise ValueError(f"prior_scale must be {need}; its smallest eigenvalue is {lowest:.3g}.")
    return scale


def _check_concentration(concentration, n_components):
    if isinstance(concentration, (bool, str)):
        raise TypeError(f"concentration must be a number or an array of {n_components} numbers.")
    alpha = np.broadcast_to(np.asarray(concentration, dtype=np.float64), (n_components,)).copy()
    if not np.all(np.isfinite(alpha)) or np.any(alpha < 1.0):
        raise ValueError(
            "concentration must be >= 1 for every component (alpha_k < 1 puts the mode of the Dirichlet "
            f"prior on the boundary, where a weight is 0); got a minimum of {alpha.min():.3g}."
        )
    return alpha


def map_m_step(X, resp, prior_scale, prior_dof, concentration=1.0):
    r"""MAP M-step for full covariances under conjugate priors.

    With an inverse-Wishart prior :math:`\Sigma_k \sim \mathcal W^{-1}(\Psi, \kappa)`,
    a Dirichlet prior :math:`\pi \sim \mathrm{Dir}(\alpha)` and a flat prior on
    the means, the M-step that maximises :math:`F(q, \theta) + \ln p(\theta)` (:math:`q` the responsibilities) is

    .. math::

        \pi_k = \frac{n_k + \alpha_k - 1}{n + \sum_j \alpha_j - K}, \qquad
        \mu_k = \frac{1}{n_k} \sum_i \gamma_{ik}\, x_i, \qquad
        \Sigma_k = \frac{\Psi + S_k}{n_k + \kappa + d + 1},

    with :math:`S_k = \sum_i \gamma_{ik} (x_i - \mu_k)(x_i - \mu_k)^\top`.
    The covariance is a weighted average of the maximum-likelihood update
    :math:`S_k / n_k` (weight :math:`n_k`) and the prior's guess
    :math:`\Psi / m` (weight :math:`m = \kappa + d + 1` pseudo-observations).
    As in :func:`m_step`, ``10 * eps`` is added to each :math:`n_k` (an empty
    component keeps the prior's covariance :math:`\Psi / (\kappa + d + 1)`).

    ``prior_dof`` may be any value with :math:`n_k + \kappa + d + 1 > 0`; the
    prior is then improper when :math:`\kappa \le d - 1`, but the update is still
    defined.  With ``prior_scale`` :math:`= \varepsilon\, n_k I` for component
    :math:`k`, ``prior_dof`` :math:`= -(d + 1)` and ``concentration=1`` it is
    exactly :func:`m_step` with ``reg_covar`` :math:`= \varepsilon`.

    Book: chapters/04_3_initialisation_model_choice.md, eq. labels ``em-map-weights``
    and ``em-map-m-step``.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
    resp : array-like of shape (n_samples, n_components)
    prior_scale : array-like of shape (n_features, n_features) or (n_components, n_features, n_features)
        :math:`\Psi`, symmetric positive semi-definite; one for all components or one each.
    prior_dof : float
        :math:`\kappa`, the inverse-Wishart degrees of freedom.
    concentration : float or array-like of shape (n_components,), default 1
        :math:`\alpha_k \ge 1`; 1 is a flat prior on the weights.

    Returns
    -------
    weights : ndarray of shape (n_components,)
    means : ndarray of shape (n_components, n_features)
    covariances : ndarray of shape (n_components, n_features, n_features)

    Raises
    ------
    ValueError
        If a denominator :math:`n_k + \kappa + d + 1` is not positive, or an
        updated covariance is not positive definite.
    """
    X = check_data(X, "X")
    resp = _check_resp(resp, X.shape[0])
    n_samples, n_features = X.shape
    n_components = resp.shape[1]
    if isinstance(prior_dof, bool) or not isinstance(prior_dof, (int, float, np.integer, np.floating)):
        raise TypeError(f"prior_dof must be a number, got {type(prior_dof).__name__}.")
    kappa = float(prior_dof)
    scale = _check_prior_scale(prior_scale, n_components, n_features, positive_definite=False)
    alpha = _check_concentration(concentration, n_components)

    counts = resp.sum(axis=0)
    n_k = counts + _fastpath.COUNT_EPS  # an empty component is kept alive, as in m_step
    denominators = n_k + kappa + n_features + 1  # n_k + m pseudo-observations
    if np.any(denominators <= 0) or not np.isfinite(kappa):
        raise ValueError(
            f"n_k + prior_dof + d + 1 must be positive for every component; with prior_dof = {kappa:g} and d = "
            f"{n_features} the smallest is {denominators.min():.3g}. Increase prior_dof."
        )
    weights = (n_k + alpha - 1.0) / (n_k.sum() + alpha.sum() - n_components)  # em-map-weights
    means = resp.T @ X / n_k[:, None]
    covariances = np.empty((n_components, n_features, n_features))
    for k in range(n_components):
        diff = X - means[k]
        covariances[k] = (scale[k] + (resp[:, k] * diff.T) @ diff) / denominators[k]  # em-map-m-step
    cholesky_factors(covariances, "full")  # a clear ValueError if Psi + S_k is singular
    return weights, means, covariances


def log_prior(weights, covariances, prior_scale, prior_dof, concentration=1.0):
    r"""Log-density of the conjugate prior: inverse-Wishart covariances, Dirichlet weights.

    .. math::

        \ln p(\theta) = \ln \mathrm{Dir}(\pi \mid \alpha)
          + \sum_{k=1}^K \ln \mathcal W^{-1}(\Sigma_k \mid \Psi, \kappa),

    .. math::

        \ln \mathcal W^{-1}(\Sigma \mid \Psi, \kappa)
          = \tfrac{\kappa}{2} \ln\det\Psi - \tfrac{\kappa d}{2} \ln 2 - \ln\Gamma_d(\tfrac{\kappa}{2})
            - \tfrac{\kappa + d + 1}{2} \ln\det\Sigma - \tfrac12 \operatorname{tr}(\Psi \Sigma^{-1}),

    with Cholesky factors for the determinants and the trace (no inverse), and a
    flat (improper, constant) prior on the means, which is left out.  The prior
    must be proper: :math:`\kappa > d - 1` and :math:`\Psi` positive definite.

    Book: chapters/04_3_initialisation_model_choice.md, eq. label ``em-log-posterior``.

    Parameters
    ----------
    weights : array-like of shape (n_components,)
    covariances : array-like of shape (n_components, n_features, n_features)
    prior_scale, prior_dof, concentration
        As in :func:`map_m_step`.

    Returns
    -------
    float
    """
    from scipy.special import gammaln, multigammaln, xlogy

    weights = check_probability_vector(weights, "weights")
    n_components = weights.shape[0]
    cov = np.asarray(covariances, dtype=np.float64)
    if cov.ndim != 3 or cov.shape[0] != n_components or cov.shape[1] != cov.shape[2]:
        raise ValueError(
            f"covariances must have shape ({n_components}, d, d), one full matrix per weight; got {cov.shape}."
        )
    n_features = cov.shape[1]
    if isinstance(prior_dof, bool) or not isinstance(prior_dof, (int, float, np.integer, np.floating)):
        raise TypeError(f"prior_dof must be a number, got {type(prior_dof).__name__}.")
    kappa = float(prior_dof)
    if not kappa > n_features - 1:
        raise ValueError(
            f"the inverse-Wishart prior is proper only for prior_dof > d - 1 = {n_features - 1}; got {kappa:g}."
        )
    scale = _check_prior_scale(prior_scale, n_components, n_features, positive_definite=True)
    alpha = _check_concentration(concentration, n_components)

    chol_cov = cholesky_factors(cov, "full")
    chol_scale = cholesky_factors(scale, "full")
    total = gammaln(alpha.sum()) - gammaln(alpha).sum() + np.sum(xlogy(alpha - 1.0, weights))
    for L, C in zip(chol_cov, chol_scale):
        logdet_cov = 2.0 * np.log(np.diag(L)).sum()
        logdet_scale = 2.0 * np.log(np.diag(C)).sum()
        A = solve_triangular(L, C, lower=True, check_finite=False)  # L^{-1} C
        trace = np.sum(A**2)  # tr(C^T L^{-T} L^{-1} C) = tr(Psi Sigma^{-1})
        total += (
            0.5 * kappa * logdet_scale
            - 0.5 * kappa * n_features * np.log(2.0)
            - multigammaln(0.5 * kappa, n_features)
            - 0.5 * (kappa + n_features + 1) * logdet_cov
            - 0.5 * trace
        )
    return float(total)


def log_posterior(X, weights, means, covariances, prior_scale, prior_dof, concentration=1.0):
    r"""Unnormalised log-posterior :math:`\ln p(X \mid \theta) + \ln p(\theta)` of a full-covariance mixture.

    MAP-EM (E-step, then :func:`map_m_step`) never lowers it.  It differs from
    :math:`\ln p(\theta \mid X)` by the constant :math:`\ln p(X)`.

    Book: chapters/04_3_initialisation_model_choice.md, eq. label ``em-log-posterior``.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
    weights, means, covariances
        Mixture parameters with ``covariance_type='full'``.
    prior_scale, prior_dof, concentration
        As in :func:`log_prior`.

    Returns
    -------
    float
    """
    return log_likelihood(X, weights, means, covariances, "full") + log_prior(
        weights, covariances, prior_scale, prior_dof, concentration
    )
