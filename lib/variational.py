r"""The evidence lower bound (ELBO), exact EM and variational (mean-field) EM.

Three layers, from general to specific.

1. **Any model with a finite latent space.**  Given the log-joint
   :math:`\ln p(x, z)` tabulated over every latent state :math:`z`, the
   functions :func:`elbo`, :func:`kl_to_posterior`, :func:`log_evidence` and
   :func:`posterior` compute the three terms of the decomposition

   .. math::

       \ln p(X) = \mathcal L(q, \theta) + \mathrm{KL}\bigl(q \,\|\, p(Z \mid X)\bigr)

   for any distribution :math:`q` over the same states.  The last axis of
   ``log_joint`` indexes latent states; every leading axis indexes data points
   that are independent given :math:`\theta`, and the returned totals are sums
   over points.

2. **The Gaussian mixture.**  :func:`gmm_elbo` is the ELBO of a mixture for
   per-point factors ``q[i, k]``; at ``q = resp`` it equals the log-likelihood.

3. **A factorial model with binary causes** (a binary latent feature model,
   the static core of a factorial HMM, Ghahramani & Jordan 1997):

   .. math::

       z_{im} \sim \mathrm{Bernoulli}(\vartheta_m) \text{ independently},\qquad
       x_i \mid z_i \sim \mathcal N\Bigl(\textstyle\sum_{m=1}^M z_{im} w_m,\ \sigma^2 I_d\Bigr).

   Each point has :math:`2^M` latent states, so the exact posterior can be
   enumerated for small :math:`M`, which lets the book compare exact EM with
   mean-field variational EM on the same data.  Code names:
   :math:`\vartheta_m` is ``probs[m]``, :math:`w_m` is ``components[m]`` (rows of
   :math:`W`), :math:`\sigma^2` is ``noise_variance``, the mean-field
   parameter :math:`\xi_{im} = q(z_{im} = 1)` is ``xi[i, m]`` (the letter
   :math:`\xi` rather than :math:`\lambda`, which is the :math:`\ell_2`
   penalty everywhere in the book).

4. **Continuous mean field.**  :func:`cavi_gaussian` runs coordinate-ascent
   variational inference (CAVI) for a Gaussian target
   :math:`\mathcal N(\mu, \Sigma)` with a factorised Gaussian :math:`q`;
   :func:`kl_diag_to_gaussian` and :func:`kl_gaussian_to_diag` give both
   Kullback-Leibler divergences in closed form.

Book: chapters/05_elbo_variational_em.md (the ELBO, hard EM),
chapters/05_1_variational_em.md (variational EM) and
chapters/05_2_cavi_gaussian.md (CAVI).
"""

from typing import NamedTuple

import numpy as np
from scipy import linalg
from scipy.special import expit, logsumexp, xlogy
from sklearn.base import BaseEstimator, DensityMixin, TransformerMixin
from sklearn.utils.validation import check_is_fitted

from . import gaussian
from ._validation import (
    check_estimator_data,
    check_covariance_type,
    check_data,
    check_positive_int,
    check_positive_scalar,
    check_probability_vector,
    check_rng,
)

__all__ = [
    # generic discrete latent variables
    "elbo",
    "kl_to_posterior",
    "log_evidence",
    "posterior",
    # Gaussian mixture
    "gmm_log_joint",
    "gmm_elbo",
    "hard_e_step",
    # factorial model
    "FactorialParams",
    "all_states",
    "sample",
    "log_joint",
    "exact_posterior",
    "log_likelihood",
    "mean_field_q",
    "mean_field_update",
    "mean_field_e_step",
    "mean_field_elbo",
    "exact_moments",
    "mean_field_moments",
    "m_step",
    "FactorialMixture",
    "exact_em",
    "variational_em",
    # continuous mean field (CAVI) for a Gaussian target
    "gaussian_precision",
    "cavi_gaussian_update",
    "cavi_gaussian",
    "CAVIResult",
    "gaussian_elbo_diag",
    "kl_diag_to_gaussian",
    "kl_gaussian_to_diag",
    "moment_match_diag",
]

_LOG_2PI = np.log(2.0 * np.pi)


# ====================================================================== generic


def _check_log_joint(log_joint):
    arr = np.asarray(log_joint, dtype=np.float64)
    if arr.ndim == 0:
        raise ValueError(
            "log_joint must have at least one axis (the latent states), got a scalar; "
            "pass ln p(x, z) for every state z as a 1-D array."
        )
    if np.any(np.isnan(arr)) or np.any(arr == np.inf):
        raise ValueError(
            "log_joint contains NaN or +inf; it must hold log-probabilities (finite numbers, "
            "or -inf for impossible states)."
        )
    if np.any(np.all(arr == -np.inf, axis=-1)):
        raise ValueError(
            "log_joint is -inf for every latent state of some data point, so p(x) = 0 there "
            "and the posterior is undefined; check the model parameters."
        )
    return arr


def _check_q(q, shape, name="q"):
    arr = np.asarray(q, dtype=np.float64)
    if arr.shape != shape:
        raise ValueError(
            f"{name} must have the same shape as log_joint, {shape}, got {arr.shape}; "
            "the last axis indexes latent states and must match."
        )
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} contains NaN or infinite values; it must be a probability table.")
    if np.any(arr < 0):
        raise ValueError(f"{name} must be non-negative, got a minimum of {arr.min():.3g}.")
    sums = arr.sum(axis=-1)
    if np.any(np.abs(sums - 1.0) > 1e-8):
        worst = sums.flat[np.argmax(np.abs(sums - 1.0))]
        raise ValueError(
            f"each distribution in {name} must sum to 1 over the last axis (latent states); "
            f"found a sum of {worst:.6g}. Normalise with {name} / {name}.sum(axis=-1, keepdims=True)."
        )
    return arr


def _expected_log_joint(log_joint, q):
    # sum_z q(z) ln p(x, z) with the convention 0 * (-inf) = 0: states that q
    # never visits contribute nothing, whatever the model says about them.
    with np.errstate(invalid="ignore"):
        terms = np.where(q > 0, q * log_joint, 0.0)
    return terms


def elbo(log_joint, q):
    r"""Evidence lower bound of a discrete latent variable model.

    .. math::

        \mathcal L(q, \theta) = \sum_z q(z) \ln \frac{p(x, z)}{q(z)}
          = \mathbb E_q[\ln p(x, z)] + H(q)

    with :math:`0 \ln 0 = 0`.  Book: chapters/05_elbo_variational_em.md,
    eq. labels ``elbo-definition`` and ``elbo-entropy-form``.

    Parameters
    ----------
    log_joint : array-like of shape (..., n_states)
        :math:`\ln p(x, z)` for every latent state ``z`` (last axis).  Leading
        axes index independent data points.  ``-inf`` marks impossible states.
    q : array-like, same shape as ``log_joint``
        A distribution over the states for each data point (rows sum to 1).

    Returns
    -------
    float
        The ELBO summed over data points.  ``-inf`` if ``q`` puts mass on a
        state with ``p(x, z) = 0``.

    Examples
    --------
    At the exact posterior the bound is tight:

    >>> lj = np.log([0.1, 0.3])
    >>> bool(np.isclose(elbo(lj, posterior(lj)), log_evidence(lj)))
    True
    """
    lj = _check_log_joint(log_joint)
    q = _check_q(q, lj.shape)
    cross = _expected_log_joint(lj, q)
    entropy = -xlogy(q, q)  # xlogy(0, 0) = 0: the convention 0 ln 0 = 0
    return float(np.sum(cross) + np.sum(entropy))


def log_evidence(log_joint):
    r"""Log marginal likelihood :math:`\ln p(x) = \ln \sum_z p(x, z)`, in log space.

    Book: chapters/05_elbo_variational_em.md, eq. label ``elbo-evidence``.

    Parameters
    ----------
    log_joint : array-like of shape (..., n_states)

    Returns
    -------
    float
        :math:`\sum_i \ln p(x_i)` over the leading axes.
    """
    lj = _check_log_joint(log_joint)
    return float(np.sum(logsumexp(lj, axis=-1)))


def posterior(log_joint):
    r"""Exact posterior :math:`p(z \mid x) = p(x, z) / p(x)` over the last axis.

    Book: chapters/05_elbo_variational_em.md, eq. label ``elbo-posterior``.

    Returns
    -------
    ndarray, same shape as ``log_joint``
        Rows sum to 1.
    """
    lj = _check_log_joint(log_joint)
    return np.exp(lj - logsumexp(lj, axis=-1, keepdims=True))


def kl_to_posterior(log_joint, q):
    r"""KL divergence from ``q`` to the exact posterior, :math:`\mathrm{KL}(q \,\|\, p(z \mid x))`.

    .. math::

        \mathrm{KL}(q \,\|\, p(\cdot \mid x)) = \sum_z q(z) \ln \frac{q(z)}{p(z \mid x)}
          = \ln p(x) - \mathcal L(q, \theta)

    computed from its definition (not as a difference), so that
    ``elbo + kl_to_posterior == log_evidence`` is a genuine test.
    Book: chapters/05_elbo_variational_em.md, eq. label ``elbo-decomposition``.

    Parameters
    ----------
    log_joint : array-like of shape (..., n_states)
    q : array-like, same shape

    Returns
    -------
    float
        Summed over data points; ``inf`` if ``q`` puts mass where the posterior has none.
    """
    lj = _check_log_joint(log_joint)
    q = _check_q(q, lj.shape)
    log_post = lj - logsumexp(lj, axis=-1, keepdims=True)
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = np.where(q > 0, q * (np.log(np.where(q > 0, q, 1.0)) - log_post), 0.0)
    return float(np.sum(terms))


# ============================================================ Gaussian mixture


def gmm_log_joint(X, weights, means, covariances, covariance_type="full"):
    r"""Table of :math:`\ln p(x_i, z_i = k) = \ln \pi_k + \ln \mathcal N(x_i \mid \mu_k, \Sigma_k)`.

    Book: chapters/05_elbo_variational_em.md, eq. label ``elbo-per-point``.

    Returns
    -------
    ndarray of shape (n_samples, n_components)
    """
    covariance_type = check_covariance_type(covariance_type)
    weights = check_probability_vector(weights, "weights")
    log_dens = gaussian.log_prob(X, means, covariances, covariance_type)  # (n, K)
    if log_dens.shape[1] != weights.shape[0]:
        raise ValueError(
            f"weights has {weights.shape[0]} entries but there are {log_dens.shape[1]} means; "
            "give one mixing weight per component."
        )
    with np.errstate(divide="ignore"):
        return np.log(weights)[None, :] + log_dens


def gmm_elbo(X, q, weights, means, covariances, covariance_type="full"):
    r"""ELBO of a Gaussian mixture for per-point factors ``q[i, k]``.

    .. math::

        \mathcal L(q, \theta) = \sum_{i=1}^n \sum_{k=1}^K q_{ik}
          \bigl(\ln \pi_k + \ln \mathcal N(x_i \mid \mu_k, \Sigma_k) - \ln q_{ik}\bigr)

    Equal to the log-likelihood when ``q`` is the matrix of responsibilities,
    and to ``lib.mixture.lower_bound`` for any ``q``.
    Book: chapters/05_elbo_variational_em.md, eq. label ``elbo-per-point``.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
    q : array-like of shape (n_samples, n_components)
        Rows sum to 1.
    weights, means, covariances, covariance_type
        Mixture parameters as in :mod:`lib.gaussian`.

    Returns
    -------
    float
    """
    lj = gmm_log_joint(X, weights, means, covariances, covariance_type)
    q = np.asarray(q, dtype=np.float64)
    if q.shape != lj.shape:
        raise ValueError(
            f"q must have shape (n_samples, n_components) = {lj.shape}, got {q.shape}."
        )
    return elbo(lj, q)


def hard_e_step(log_joint):
    r"""The "hard" E-step: a point mass on :math:`\arg\max_z \ln p(x, z)` for each point.

    This is what maximising :math:`\mathbb E_q[\ln p(x, z)]` alone (the ELBO
    without its entropy) returns.  Ties go to the first maximiser.
    Book: chapters/05_elbo_variational_em.md, eq. label ``elbo-hard-e-step``.

    Parameters
    ----------
    log_joint : array-like of shape (n_samples, n_states)

    Returns
    -------
    ndarray of shape (n_samples, n_states)
        One-hot rows.
    """
    lj = _check_log_joint(log_joint)
    if lj.ndim != 2:
        raise ValueError(f"log_joint must be 2-D (n_samples, n_states), got shape {lj.shape}.")
    out = np.zeros_like(lj)
    out[np.arange(lj.shape[0]), np.argmax(lj, axis=1)] = 1.0
    return out


# ============================================================ factorial model


class FactorialParams(NamedTuple):
    r"""Parameters :math:`\theta = (\vartheta, W, \sigma^2)` of the factorial model.

    Attributes
    ----------
    probs : ndarray of shape (n_causes,)
        :math:`\vartheta_m = p(z_{im} = 1)`.
    components : ndarray of shape (n_causes, n_features)
        Row ``m`` is :math:`w_m`, the contribution of cause ``m`` to the mean.
    noise_variance : float
        :math:`\sigma^2`.
    """

    probs: np.ndarray
    components: np.ndarray
    noise_variance: float


def _check_params(params, n_features=None):
    try:
        probs, components, noise_variance = params
    except (TypeError, ValueError):
        raise TypeError(
            "params must be a FactorialParams(probs, components, noise_variance) or a 3-tuple "
            f"in that order, got {type(params).__name__}."
        ) from None
    probs = check_data(probs, "probs", ndim=1)
    if np.any((probs < 0) | (probs > 1)):
        raise ValueError(f"probs are Bernoulli probabilities and must lie in [0, 1], got {probs}.")
    components = check_data(components, "components")
    if components.shape[0] != probs.shape[0]:
        raise ValueError(
            f"components must have one row per cause: probs has {probs.shape[0]} entries but "
            f"components has shape {components.shape}."
        )
    if n_features is not None and components.shape[1] != n_features:
        raise ValueError(
            f"components have {components.shape[1]} column(s) but X has {n_features} feature(s); "
            "they must match."
        )
    noise_variance = check_positive_scalar(noise_variance, "noise_variance")
    if probs.shape[0] > 20:
        raise ValueError(
            f"{probs.shape[0]} causes give 2**{probs.shape[0]} latent states per point, too many "
            "to enumerate; the exact functions are meant for a handful of causes."
        )
    return FactorialParams(probs, components, noise_variance)


def _check_X_params(X, params):
    X = check_data(X, "X")
    return X, _check_params(params, X.shape[1])


def all_states(n_causes):
    r"""Every binary vector :math:`z \in \{0, 1\}^M`, one per row, in binary order.

    Row ``s`` is the binary expansion of ``s`` with :math:`z_1` as the most
    significant bit, so ``all_states(3)[3]`` is ``[0, 1, 1]``.

    Returns
    -------
    ndarray of shape (2**n_causes, n_causes), dtype float
    """
    n_causes = check_positive_int(n_causes, "n_causes")
    if n_causes > 20:
        raise ValueError(f"2**{n_causes} states are too many to enumerate; use at most 20 causes.")
    s = np.arange(2**n_causes)[:, None]
    shifts = np.arange(n_causes)[::-1][None, :]
    return ((s >> shifts) & 1).astype(np.float64)


def sample(params, n_samples, rng=None):
    r"""Draw ``(X, Z)`` from the factorial model.

    :math:`z_{im} \sim \mathrm{Bernoulli}(\vartheta_m)`, then
    :math:`x_i = W^\top z_i + \sigma` times a standard normal vector of
    dimension :math:`d`, so that
    :math:`x_i \mid z_i \sim \mathcal N(W^\top z_i, \sigma^2 I_d)`.
    Book: chapters/05_1_variational_em.md, eq. label ``vem-model``.

    Returns
    -------
    X : ndarray of shape (n_samples, n_features)
    Z : ndarray of shape (n_samples, n_causes), dtype int
    """
    probs, components, noise_variance = _check_params(params)
    rng = check_rng(rng)
    n_samples = check_positive_int(n_samples, "n_samples")
    Z = (rng.random((n_samples, probs.shape[0])) < probs).astype(int)  # (n, M)
    noise = rng.standard_normal((n_samples, components.shape[1]))  # (n, d)
    X = Z @ components + np.sqrt(noise_variance) * noise
    return X, Z


def log_joint(X, params):
    r"""Table of :math:`\ln p(x_i, z)` for every point and every state :math:`z \in \{0,1\}^M`.

    .. math::

        \ln p(x_i, z) = \sum_{m=1}^M \bigl(z_m \ln \vartheta_m + (1 - z_m)\ln(1 - \vartheta_m)\bigr)
          + \ln \mathcal N\bigl(x_i \mid W^\top z, \sigma^2 I_d\bigr)

    Book: chapters/05_1_variational_em.md, eq. label ``vem-log-joint``.

    Returns
    -------
    ndarray of shape (n_samples, 2**n_causes)
        Column ``s`` is state ``all_states(M)[s]``.
    """
    X, (probs, components, noise_variance) = _check_X_params(X, params)
    states = all_states(probs.shape[0])  # (S, M)
    # xlogy keeps 0 * ln 0 = 0, so vartheta_m = 0 or 1 makes the impossible states -inf, not NaN
    log_prior = xlogy(states, probs).sum(axis=1) + xlogy(1 - states, 1 - probs).sum(axis=1)  # (S,)
    state_means = states @ components  # (S, d)
    log_lik = gaussian.log_prob(X, state_means, np.full(states.shape[0], noise_variance), "spherical")
    return log_prior[None, :] + log_lik  # (n, S)


def exact_posterior(X, params):
    r"""Exact posterior :math:`p(z \mid x_i)` over the :math:`2^M` states, by enumeration.

    Book: chapters/05_elbo_variational_em.md, eq. label ``elbo-posterior``.

    Returns
    -------
    ndarray of shape (n_samples, 2**n_causes)
        Rows sum to 1; column ``s`` is state ``all_states(M)[s]``.
    """
    return posterior(log_joint(X, params))


def log_likelihood(X, params):
    r"""Exact log-likelihood :math:`\sum_i \ln \sum_z p(x_i, z)` of the factorial model.

    Book: chapters/05_elbo_variational_em.md, eq. label ``elbo-evidence``.

    Returns
    -------
    float
    """
    return log_evidence(log_joint(X, params))


def _check_xi(xi, n_samples, n_causes, name="xi"):
    xi = np.asarray(xi, dtype=np.float64)
    if xi.ndim == 1 and xi.shape[0] == n_causes:
        xi = np.broadcast_to(xi, (n_samples, n_causes))
    if xi.shape != (n_samples, n_causes):
        raise ValueError(
            f"{name} must have shape (n_samples, n_causes) = {(n_samples, n_causes)}, got {xi.shape}."
        )
    if not np.all(np.isfinite(xi)) or np.any((xi < 0) | (xi > 1)):
        raise ValueError(f"{name} holds Bernoulli probabilities q(z_im = 1) and must lie in [0, 1].")
    return np.array(xi, dtype=np.float64)


def mean_field_q(xi):
    r"""Expand mean-field factors into a table over the :math:`2^M` states.

    .. math::

        q_i(z) = \prod_{m=1}^M \xi_{im}^{z_m} (1 - \xi_{im})^{1 - z_m}

    Book: chapters/05_1_variational_em.md, eq. label ``vem-mean-field``.

    Parameters
    ----------
    xi : array-like of shape (n_samples, n_causes)

    Returns
    -------
    ndarray of shape (n_samples, 2**n_causes)
    """
    xi = np.asarray(xi, dtype=np.float64)
    if xi.ndim != 2:
        raise ValueError(f"xi must be 2-D (n_samples, n_causes), got shape {xi.shape}.")
    xi = _check_xi(xi, xi.shape[0], xi.shape[1])
    states = all_states(xi.shape[1])  # (S, M)
    # product over causes of xi or 1 - xi, for every (point, state) pair: (n, S, M) -> (n, S)
    factors = np.where(states[None, :, :] == 1, xi[:, None, :], 1 - xi[:, None, :])
    return np.prod(factors, axis=2)


def _logit(p):
    with np.errstate(divide="ignore"):
        return np.log(p) - np.log1p(-p)


def mean_field_update(X, params, xi, m):
    r"""One coordinate-ascent update of the mean-field factor of cause ``m``.

    .. math::

        \xi_{im} \leftarrow \operatorname{sigm}\Bigl(\ln\frac{\vartheta_m}{1-\vartheta_m}
          + \frac{1}{\sigma^2} w_m^\top\Bigl(x_i - \sum_{l \ne m} \xi_{il} w_l\Bigr)
          - \frac{\lVert w_m \rVert^2}{2\sigma^2}\Bigr)

    the exact maximiser of the ELBO over :math:`\xi_{\cdot m}` with the
    other factors fixed, so the ELBO never decreases.
    Book: chapters/05_1_variational_em.md, eq. label ``vem-update``.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
    params : FactorialParams
    xi : array-like of shape (n_samples, n_causes)
        Current factors :math:`\xi_{il} = q(z_{il} = 1)`.
    m : int
        The cause to update.

    Returns
    -------
    ndarray of shape (n_samples,)
        The new column :math:`\xi_{\cdot m}`.
    """
    X, params = _check_X_params(X, params)
    n_causes = params.probs.shape[0]
    xi = _check_xi(xi, X.shape[0], n_causes)
    if isinstance(m, bool) or not isinstance(m, (int, np.integer)) or not 0 <= m < n_causes:
        raise ValueError(f"m must be an integer cause index in 0..{n_causes - 1}, got {m!r}.")
    return _update_column(X, params, xi, int(m))


def _update_column(X, params, xi, m):
    probs, W, s2 = params
    others = xi @ W - xi[:, [m]] * W[m]  # (n, d): sum_{l != m} xi_il w_l
    field = _logit(probs[m]) + ((X - others) @ W[m] - 0.5 * W[m] @ W[m]) / s2  # (n,)
    return expit(field)


def mean_field_e_step(X, params, xi_init=None, n_sweeps=10, tol=0.0):
    r"""Mean-field E-step: coordinate ascent on the factors :math:`\xi_{im}`.

    Each sweep updates causes ``0, ..., M-1`` in turn with :func:`mean_field_update`
    (all points at once: their factors do not interact).  Every update is an
    exact coordinate maximisation, so the ELBO never decreases.
    Book: chapters/05_1_variational_em.md, eq. label ``vem-update``.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
    params : FactorialParams
    xi_init : array-like of shape (n_samples, n_causes) or (n_causes,), optional
        Starting factors; the prior ``probs`` when omitted.  Variational EM
        passes the previous E-step's factors (a warm start), which is what
        makes its ELBO monotone.
    n_sweeps : int
        Maximum number of sweeps over the causes.
    tol : float
        Stop early when no factor moved by more than ``tol`` in a sweep.

    Returns
    -------
    ndarray of shape (n_samples, n_causes)
    """
    X, params = _check_X_params(X, params)
    n_causes = params.probs.shape[0]
    n_sweeps = check_positive_int(n_sweeps, "n_sweeps")
    tol = check_positive_scalar(tol, "tol", allow_zero=True)
    xi = _check_xi(params.probs if xi_init is None else xi_init, X.shape[0], n_causes, "xi_init")
    for _ in range(n_sweeps):
        old = xi.copy()
        for m in range(n_causes):
            xi[:, m] = _update_column(X, params, xi, m)
        if np.max(np.abs(xi - old)) <= tol:
            break
    return xi


def mean_field_elbo(X, params, xi):
    r"""ELBO of the factorial model for a mean-field :math:`q`, in closed form.

    .. math::

        \mathcal L = \sum_{i}\Bigl[\sum_m \bigl(\xi_{im}\ln\vartheta_m + (1-\xi_{im})\ln(1-\vartheta_m)
          + H_b(\xi_{im})\bigr) - \frac d2 \ln(2\pi\sigma^2)
          - \frac{1}{2\sigma^2}\Bigl(\bigl\lVert x_i - W^\top\xi_i\bigr\rVert^2
          + \sum_m \xi_{im}(1-\xi_{im})\lVert w_m\rVert^2\Bigr)\Bigr]

    with :math:`H_b(\xi) = -\xi\ln\xi - (1-\xi)\ln(1-\xi)`.
    Costs :math:`O(nMd)` instead of the :math:`O(n 2^M d)` of
    ``elbo(log_joint(X, params), mean_field_q(xi))``, which it equals.
    Book: chapters/05_1_variational_em.md, eq. label ``vem-mf-elbo``.

    Returns
    -------
    float
    """
    X, (probs, W, s2) = _check_X_params(X, params)
    n, d = X.shape
    xi = _check_xi(xi, n, probs.shape[0])
    prior = np.sum(xlogy(xi, probs) + xlogy(1 - xi, 1 - probs))
    entropy = -np.sum(xlogy(xi, xi) + xlogy(1 - xi, 1 - xi))
    sq = np.sum((X - xi @ W) ** 2) + np.sum(xi * (1 - xi) @ np.sum(W**2, axis=1))
    return float(prior + entropy - 0.5 * n * d * (_LOG_2PI + np.log(s2)) - 0.5 * sq / s2)


def exact_moments(post, n_causes):
    r"""Expected sufficient statistics under the exact posterior (or any table over states).

    .. math::

        \mathbb E[z_i] = \sum_z q_i(z)\, z, \qquad
        \sum_i \mathbb E[z_i z_i^\top] = \sum_i \sum_z q_i(z)\, z z^\top

    Book: chapters/05_1_variational_em.md, eq. label ``vem-moments``.

    Parameters
    ----------
    post : array-like of shape (n_samples, 2**n_causes)
    n_causes : int

    Returns
    -------
    Ez : ndarray of shape (n_samples, n_causes)
    sum_Ezz : ndarray of shape (n_causes, n_causes)
    """
    states = all_states(n_causes)
    post = np.asarray(post, dtype=np.float64)
    if post.ndim != 2 or post.shape[1] != states.shape[0]:
        raise ValueError(
            f"post must have shape (n_samples, 2**n_causes) = (n, {states.shape[0]}), got {post.shape}."
        )
    Ez = post @ states  # (n, M)
    sum_Ezz = states.T @ (post.sum(axis=0)[:, None] * states)  # (M, M)
    return Ez, sum_Ezz


def mean_field_moments(xi):
    r"""Expected sufficient statistics under a mean-field :math:`q`.

    .. math::

        \mathbb E_q[z_{im}] = \xi_{im}, \qquad
        \mathbb E_q[z_{im} z_{il}] = \begin{cases} \xi_{im}\xi_{il} & m \ne l \\
          \xi_{im} & m = l \end{cases}

    (:math:`z^2 = z` for a binary variable).
    Book: chapters/05_1_variational_em.md, eq. label ``vem-moments``.

    Returns
    -------
    Ez : ndarray of shape (n_samples, n_causes)
    sum_Ezz : ndarray of shape (n_causes, n_causes)
    """
    xi = np.asarray(xi, dtype=np.float64)
    if xi.ndim != 2:
        raise ValueError(f"xi must be 2-D (n_samples, n_causes), got shape {xi.shape}.")
    xi = _check_xi(xi, *xi.shape)
    sum_Ezz = xi.T @ xi + np.diag(np.sum(xi * (1 - xi), axis=0))
    return xi.copy(), sum_Ezz


def m_step(X, Ez, sum_Ezz, reg_variance=0.0):
    r"""M-step of the factorial model from expected sufficient statistics.

    .. math::

        \vartheta_m = \frac1n \sum_i \mathbb E[z_{im}], \qquad
        W = \Bigl(\sum_i \mathbb E[z_i z_i^\top]\Bigr)^{-1} \sum_i \mathbb E[z_i]\, x_i^\top,

    .. math::

        \sigma^2 = \frac{1}{nd}\sum_i \Bigl(\lVert x_i\rVert^2 - 2\,\mathbb E[z_i]^\top W x_i
          + \operatorname{tr}\bigl(W W^\top \mathbb E[z_i z_i^\top]\bigr)\Bigr)

    The same formulas serve exact EM (moments from :func:`exact_moments`) and
    variational EM (:func:`mean_field_moments`).  When
    :math:`\sum_i \mathbb E[z_i z_i^\top]` is singular (a cause that is never
    on), the minimum-norm least-squares solution is used, which is still a
    maximiser.  Book: chapters/05_1_variational_em.md, eq. label ``vem-m-step``.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
    Ez : array-like of shape (n_samples, n_causes)
    sum_Ezz : array-like of shape (n_causes, n_causes)
    reg_variance : float
        Added to :math:`\sigma^2` (0 keeps the exact maximiser).

    Returns
    -------
    FactorialParams
    """
    X = check_data(X, "X")
    n, d = X.shape
    Ez = check_data(Ez, "Ez")
    sum_Ezz = check_data(sum_Ezz, "sum_Ezz")
    n_causes = Ez.shape[1]
    if Ez.shape[0] != n or sum_Ezz.shape != (n_causes, n_causes):
        raise ValueError(
            f"Ez must have shape (n_samples, n_causes) = ({n}, M) and sum_Ezz (M, M); "
            f"got {Ez.shape} and {sum_Ezz.shape}."
        )
    reg_variance = check_positive_scalar(reg_variance, "reg_variance", allow_zero=True)
    probs = np.clip(Ez.mean(axis=0), 0.0, 1.0)
    B = Ez.T @ X  # (M, d): sum_i E[z_i] x_i^T
    try:
        W = linalg.solve(sum_Ezz, B, assume_a="pos", check_finite=False)
    except (linalg.LinAlgError, ValueError):
        W = linalg.lstsq(sum_Ezz, B, check_finite=False)[0]
    sq = np.sum(X**2) - 2.0 * np.sum(B * W) + np.sum((W @ W.T) * sum_Ezz)
    noise_variance = max(sq / (n * d), 0.0) + reg_variance
    if noise_variance <= 0:
        raise ValueError(
            "the M-step gave noise_variance = 0 (the causes explain the data exactly); "
            "set reg_variance > 0, e.g. 1e-6."
        )
    return FactorialParams(probs, W, float(noise_variance))


# ================================================================ estimator


class FactorialMixture(TransformerMixin, DensityMixin, BaseEstimator):
    r"""Factorial model with binary causes, fitted by exact or mean-field variational EM.

    Each iteration runs an E-step (the exact posterior over the :math:`2^M`
    states, or ``n_sweeps`` mean-field coordinate-ascent sweeps warm-started
    from the previous factors) and the closed-form :func:`m_step`.

    Book: chapters/05_1_variational_em.md, eq. labels ``vem-model``,
    ``vem-update``, ``vem-m-step``.

    Parameters
    ----------
    n_causes : int
        :math:`M`, the number of binary causes.
    method : {"exact", "mean_field"}
    n_iter : int
        Number of EM iterations (``tol`` may stop earlier).
    n_sweeps : int
        Mean-field sweeps per E-step (ignored when ``method="exact"``).
    tol : float
        Stop when the ELBO after a full iteration rose by less than ``tol``;
        0 runs all ``n_iter`` iterations.
    reg_variance : float
        Added to :math:`\sigma^2` at every M-step.
    params_init : FactorialParams, optional
        Starting parameters.  Otherwise ``probs = 0.5``, components drawn from
        :math:`\mathcal N(0, s^2)` with :math:`s` the standard deviation of all
        entries of ``X``, and ``noise_variance`` :math:`s^2`.
    random_state : None, int or numpy.random.Generator

    Attributes
    ----------
    probs_, components_, noise_variance_ : fitted :math:`\vartheta, W, \sigma^2`
    params_ : FactorialParams
    xi_ : ndarray of shape (n_samples, n_causes)
        :math:`\mathbb E_q[z_{im}]` from the last E-step.
    log_likelihood_history_ : ndarray of shape (n_iter_ + 1,)
        Exact :math:`\ell(\theta^{(t)}) = \ln p(X; \theta^{(t)})` for
        :math:`t = 0, \dots, T`: at the initial parameters, then after every iteration.
    elbo_history_ : ndarray of shape (n_iter_,)
        Entry ``t`` is :math:`\mathcal L(q^{(t)}, \theta^{(t+1)})`, the ELBO after
        iteration ``t + 1``.  Here :math:`q^{(t)}` is the E-step's output at
        :math:`\theta^{(t)}` (eq. label ``elbo-em-chain``).
    elbo_trace_ : ndarray of shape (n_iter_, 2)
        The ELBO after each half-step of iteration :math:`t`: column 0 after
        the E-step, :math:`\mathcal L(q^{(t)}, \theta^{(t)})` (equal to
        :math:`\ell(\theta^{(t)})` for exact EM), column 1 after the M-step,
        :math:`\mathcal L(q^{(t)}, \theta^{(t+1)})`.  Both methods make
        ``elbo_trace_.ravel()`` non-decreasing (eq. label ``vem-loglik-change``).
    n_iter_ : int
    """

    def __init__(self, n_causes=3, method="mean_field", n_iter=100, n_sweeps=10, tol=0.0,
                 reg_variance=0.0, params_init=None, random_state=None):
        self.n_causes = n_causes
        self.method = method
        self.n_iter = n_iter
        self.n_sweeps = n_sweeps
        self.tol = tol
        self.reg_variance = reg_variance
        self.params_init = params_init
        self.random_state = random_state

    def _initial_params(self, X, rng):
        if self.params_init is not None:
            params = _check_params(self.params_init, X.shape[1])
            if params.probs.shape[0] != self.n_causes:
                raise ValueError(
                    f"params_init has {params.probs.shape[0]} causes but n_causes={self.n_causes}."
                )
            return FactorialParams(params.probs.copy(), params.components.copy(), params.noise_variance)
        scale = float(np.std(X)) or 1.0
        components = scale * rng.standard_normal((self.n_causes, X.shape[1]))
        return FactorialParams(np.full(self.n_causes, 0.5), components, scale**2)

    def _validate_X(self, X, *, reset):
        """``X`` checked by :func:`lib._validation.check_estimator_data`."""
        return check_estimator_data(self, X, reset=reset)

    def fit(self, X, y=None):
        """Run EM on ``X`` (shape ``(n_samples, n_features)``); returns ``self``."""
        X = self._validate_X(X, reset=True)
        check_positive_int(self.n_causes, "n_causes")
        if self.n_causes > 12:
            raise ValueError(
                f"n_causes={self.n_causes} gives 2**{self.n_causes} states per point; the exact "
                "log-likelihood this class records is meant for at most 12 causes."
            )
        if self.method not in ("exact", "mean_field"):
            raise ValueError(f"method must be 'exact' or 'mean_field', got {self.method!r}.")
        n_iter = check_positive_int(self.n_iter, "n_iter")
        check_positive_int(self.n_sweeps, "n_sweeps")
        tol = check_positive_scalar(self.tol, "tol", allow_zero=True)
        rng = check_rng(self.random_state)
        params = self._initial_params(X, rng)

        xi = np.broadcast_to(params.probs, (X.shape[0], self.n_causes)).copy()
        loglik = [log_likelihood(X, params)]
        trace = []
        for _ in range(n_iter):
            # E-step: q^(t) from theta^(t) (exact posterior, or mean field warm-started at q^(t-1))
            if self.method == "exact":
                lj = log_joint(X, params)
                post = posterior(lj)
                Ez, sum_Ezz = exact_moments(post, self.n_causes)
                xi = Ez
                after_e = log_evidence(lj)  # the bound is tight after an exact E-step
            else:
                xi = mean_field_e_step(X, params, xi, n_sweeps=self.n_sweeps)
                Ez, sum_Ezz = mean_field_moments(xi)
                after_e = mean_field_elbo(X, params, xi)
            # M-step: theta^(t+1) = argmax_theta L(q^(t), theta)
            try:
                params = m_step(X, Ez, sum_Ezz, self.reg_variance)
            except ValueError as exc:
                if X.shape[0] == 1:  # the usual way to get here: say why
                    raise ValueError(
                        f"{exc} With n_samples=1 the causes can explain the single sample "
                        "exactly; fit on more samples."
                    ) from None
                raise
            if self.method == "exact":
                after_m = elbo(log_joint(X, params), post)
            else:
                after_m = mean_field_elbo(X, params, xi)
            trace.append((after_e, after_m))
            loglik.append(log_likelihood(X, params))
            if tol > 0 and len(trace) > 1 and trace[-1][1] - trace[-2][1] < tol:
                break
        self.params_ = params
        self.probs_, self.components_, self.noise_variance_ = params
        self.xi_ = xi
        self.elbo_trace_ = np.array(trace)
        self.elbo_history_ = self.elbo_trace_[:, 1].copy()
        self.log_likelihood_history_ = np.array(loglik)
        self.n_iter_ = len(trace)
        return self

    def posterior(self, X):
        """Exact posterior over the ``2**n_causes`` states, shape ``(n_samples, 2**n_causes)``."""
        check_is_fitted(self)
        X = self._validate_X(X, reset=False)
        return exact_posterior(X, self.params_)

    def transform(self, X):
        r""":math:`\mathbb E_q[z_i]` under the fitted model (exact or mean-field, as fitted)."""
        check_is_fitted(self)
        X = self._validate_X(X, reset=False)
        if self.method == "exact":
            return exact_moments(exact_posterior(X, self.params_), self.n_causes)[0]
        return mean_field_e_step(X, self.params_, n_sweeps=max(self.n_sweeps, 50), tol=1e-10)

    def score_samples(self, X):
        r"""Exact :math:`\ln p(x_i)` for each row, shape ``(n_samples,)``."""
        check_is_fitted(self)
        X = self._validate_X(X, reset=False)
        return logsumexp(log_joint(X, self.params_), axis=1)

    def score(self, X, y=None):
        """Mean exact log-likelihood per sample."""
        return float(np.mean(self.score_samples(X)))

    def sample(self, n_samples=1, random_state=None):
        """Draw ``(X, Z)`` from the fitted model."""
        check_is_fitted(self)
        return sample(self.params_, n_samples, random_state)


def exact_em(X, n_causes, n_iter=100, params_init=None, random_state=None, **kwargs):
    """Fit the factorial model by exact EM; returns the fitted :class:`FactorialMixture`."""
    return FactorialMixture(n_causes=n_causes, method="exact", n_iter=n_iter,
                            params_init=params_init, random_state=random_state, **kwargs).fit(X)


def variational_em(X, n_causes, n_iter=100, n_sweeps=10, params_init=None, random_state=None, **kwargs):
    """Fit the factorial model by mean-field variational EM; returns the fitted :class:`FactorialMixture`."""
    return FactorialMixture(n_causes=n_causes, method="mean_field", n_iter=n_iter, n_sweeps=n_sweeps,
                            params_init=params_init, random_state=random_state, **kwargs).fit(X)


# ===================================================== continuous mean field


def _check_gaussian_target(mean, covariance):
    """``mean`` (d,) and a symmetric positive definite ``covariance`` (d, d), with its Cholesky factor."""
    mean = check_data(mean, "mean", ndim=1)
    covariance = check_data(covariance, "covariance")
    d = mean.shape[0]
    if covariance.shape != (d, d):
        raise ValueError(
            f"covariance must have shape (d, d) = ({d}, {d}) to match mean of shape ({d},), "
            f"got {covariance.shape}."
        )
    if not np.allclose(covariance, covariance.T, rtol=1e-10, atol=1e-12):
        raise ValueError("covariance must be symmetric; symmetrise it with (S + S.T) / 2.")
    try:
        chol = linalg.cholesky(covariance, lower=True)
    except linalg.LinAlgError:
        raise ValueError(
            "covariance must be positive definite (its Cholesky factorisation failed); "
            "a correlation of exactly +-1 makes the Gaussian degenerate."
        ) from None
    return mean, covariance, chol


def _check_diag_q(q_means, q_variances, d):
    q_means = check_data(q_means, "q_means", ndim=1)
    q_variances = check_data(q_variances, "q_variances", ndim=1)
    if q_means.shape != (d,) or q_variances.shape != (d,):
        raise ValueError(
            f"q_means and q_variances must both have shape ({d},) like the target's mean, got "
            f"{q_means.shape} and {q_variances.shape}."
        )
    if np.any(q_variances <= 0):
        raise ValueError(f"q_variances must be positive, got a minimum of {q_variances.min():.3g}.")
    return q_means, q_variances


def gaussian_precision(covariance):
    r"""Precision matrix :math:`\Lambda = \Sigma^{-1}`, by Cholesky solves (no explicit inverse).

    Book: chapters/05_2_cavi_gaussian.md, eq. label ``vem-cavi-update``.

    Parameters
    ----------
    covariance : array-like of shape (d, d), symmetric positive definite

    Returns
    -------
    ndarray of shape (d, d)
    """
    covariance = check_data(covariance, "covariance")
    _, _, chol = _check_gaussian_target(np.zeros(covariance.shape[0]), covariance)
    precision = linalg.cho_solve((chol, True), np.eye(chol.shape[0]))
    return (precision + precision.T) / 2


def cavi_gaussian_update(q_means, j, mean, precision):
    r"""One CAVI update of the factor :math:`q_j` for a Gaussian target :math:`\mathcal N(\mu, \Sigma)`.

    With :math:`\Lambda = \Sigma^{-1}` and the other factors' means :math:`\bar z_l`,

    .. math::

        q_j^*(z_j) = \mathcal N\Bigl(z_j \Bigm| \mu_j - \Lambda_{jj}^{-1}
            \sum_{l \ne j} \Lambda_{jl} (\bar z_l - \mu_l),\ \Lambda_{jj}^{-1}\Bigr).

    The old mean :math:`\bar z_j` of the factor being updated is not used.
    Book: chapters/05_2_cavi_gaussian.md, eq. label ``vem-cavi-update``.

    Parameters
    ----------
    q_means : array-like of shape (d,)
        Current means :math:`\bar z` of all factors.
    j : int
        The coordinate to update.
    mean : array-like of shape (d,)
        :math:`\mu`.
    precision : array-like of shape (d, d)
        :math:`\Lambda`, symmetric with a positive diagonal.

    Returns
    -------
    (float, float)
        The new mean :math:`\bar z_j` and the variance :math:`1 / \Lambda_{jj}` of :math:`q_j`.
    """
    mean = check_data(mean, "mean", ndim=1)
    d = mean.shape[0]
    q_means = check_data(q_means, "q_means", ndim=1)
    precision = check_data(precision, "precision")
    if q_means.shape != (d,) or precision.shape != (d, d):
        raise ValueError(
            f"q_means must have shape ({d},) and precision ({d}, {d}) to match mean, got "
            f"{q_means.shape} and {precision.shape}."
        )
    if isinstance(j, (bool, np.bool_)) or not isinstance(j, (int, np.integer)) or not 0 <= j < d:
        raise ValueError(f"j must be an integer coordinate in 0..{d - 1}, got {j!r}.")
    if precision[j, j] <= 0:
        raise ValueError("the precision matrix must have a positive diagonal.")
    others = np.delete(np.arange(d), j)
    shift = precision[j, others] @ (q_means[others] - mean[others])
    return float(mean[j] - shift / precision[j, j]), float(1.0 / precision[j, j])


def gaussian_elbo_diag(q_means, q_variances, mean, covariance):
    r"""ELBO of a factorised Gaussian :math:`q = \prod_j \mathcal N(\bar z_j, v_j)` for the target :math:`\mathcal N(\mu, \Sigma)`.

    .. math::

        \mathcal L(q) = \mathbb E_q[\ln \mathcal N(z \mid \mu, \Sigma)] + H(q)
        = -\tfrac d2 \ln 2\pi - \tfrac12 \ln\det\Sigma
          - \tfrac12 \Bigl(\sum_j \Lambda_{jj} v_j + (\bar z - \mu)^\top \Lambda (\bar z - \mu)\Bigr)
          + \sum_j \tfrac12 \ln(2\pi e\, v_j).

    The target is normalised, so :math:`\ln p = 0` and the ELBO equals
    :math:`-\mathrm{KL}(q \,\|\, p)`; it is computed here from the line above,
    not from :func:`kl_diag_to_gaussian`.
    Book: chapters/05_2_cavi_gaussian.md, eq. label ``vem-cavi-elbo``.

    Returns
    -------
    float
    """
    mean, covariance, chol = _check_gaussian_target(mean, covariance)
    q_means, q_variances = _check_diag_q(q_means, q_variances, mean.shape[0])
    d = mean.shape[0]
    precision = linalg.cho_solve((chol, True), np.eye(d))
    diff = q_means - mean
    white = linalg.solve_triangular(chol, diff, lower=True)  # (zbar - mu)^T Lambda (zbar - mu) = |L^-1 diff|^2
    log_det = 2.0 * np.sum(np.log(np.diag(chol)))
    expected_log_p = -0.5 * (d * _LOG_2PI + log_det + np.diag(precision) @ q_variances + white @ white)
    entropy = 0.5 * np.sum(_LOG_2PI + 1.0 + np.log(q_variances))
    return float(expected_log_p + entropy)


def kl_diag_to_gaussian(q_means, q_variances, mean, covariance):
    r"""Closed-form :math:`\mathrm{KL}(q \,\|\, p)` for :math:`q = \prod_j \mathcal N(\bar z_j, v_j)`, :math:`p = \mathcal N(\mu, \Sigma)`.

    .. math::

        \mathrm{KL}(q \,\|\, p) = \tfrac12 \Bigl(\sum_j \Lambda_{jj} v_j
          + (\mu - \bar z)^\top \Lambda (\mu - \bar z) - d + \ln\det\Sigma - \sum_j \ln v_j\Bigr).

    Book: chapters/05_2_cavi_gaussian.md, eq. label ``vem-kl-qp``.

    Returns
    -------
    float
    """
    mean, covariance, chol = _check_gaussian_target(mean, covariance)
    q_means, q_variances = _check_diag_q(q_means, q_variances, mean.shape[0])
    d = mean.shape[0]
    precision = linalg.cho_solve((chol, True), np.eye(d))
    white = linalg.solve_triangular(chol, mean - q_means, lower=True)
    log_det = 2.0 * np.sum(np.log(np.diag(chol)))
    return float(0.5 * (np.diag(precision) @ q_variances + white @ white - d + log_det
                        - np.sum(np.log(q_variances))))


def kl_gaussian_to_diag(mean, covariance, q_means, q_variances):
    r"""Closed-form :math:`\mathrm{KL}(p \,\|\, q)` for :math:`p = \mathcal N(\mu, \Sigma)`, :math:`q = \prod_j \mathcal N(\bar z_j, v_j)`.

    .. math::

        \mathrm{KL}(p \,\|\, q) = \tfrac12 \Bigl(\sum_j \frac{\Sigma_{jj} + (\mu_j - \bar z_j)^2}{v_j}
          - d + \sum_j \ln v_j - \ln\det\Sigma\Bigr).

    Book: chapters/05_2_cavi_gaussian.md, eq. label ``vem-kl-pq``.

    Returns
    -------
    float
    """
    mean, covariance, chol = _check_gaussian_target(mean, covariance)
    q_means, q_variances = _check_diag_q(q_means, q_variances, mean.shape[0])
    d = mean.shape[0]
    log_det = 2.0 * np.sum(np.log(np.diag(chol)))
    ratio = (np.diag(covariance) + (mean - q_means) ** 2) / q_variances
    return float(0.5 * (np.sum(ratio) - d + np.sum(np.log(q_variances)) - log_det))


def moment_match_diag(mean, covariance):
    r"""The factorised Gaussian that minimises :math:`\mathrm{KL}(p \,\|\, q)`: the true marginals.

    :math:`q_j = \mathcal N(\mu_j, \Sigma_{jj})`.
    Book: chapters/05_2_cavi_gaussian.md, eq. label ``vem-kl-pq``.

    Returns
    -------
    (ndarray of shape (d,), ndarray of shape (d,))
        Means and variances of the factors.
    """
    mean, covariance, _ = _check_gaussian_target(mean, covariance)
    return mean.copy(), np.diag(covariance).copy()


class CAVIResult(NamedTuple):
    r"""Output of :func:`cavi_gaussian`.

    Attributes
    ----------
    means : ndarray of shape (d,)
        Final means :math:`\bar z_j` of the factors.
    variances : ndarray of shape (d,)
        Their variances :math:`1 / \Lambda_{jj}`.
    mean_trace : ndarray of shape (n_updates + 1, d)
        The vector of means before any update, then after every single-coordinate update.
    elbo_trace : ndarray of shape (n_updates + 1,)
        The ELBO at each row of ``mean_trace``; the first row uses the initial variances.
    n_sweeps : int
        Sweeps run (one sweep updates every coordinate once, in order).
    """

    means: np.ndarray
    variances: np.ndarray
    mean_trace: np.ndarray
    elbo_trace: np.ndarray
    n_sweeps: int


def cavi_gaussian(mean, covariance, q_means_init=None, q_variances_init=None, n_sweeps=50, tol=0.0):
    r"""Coordinate-ascent variational inference (CAVI) for :math:`\mathcal N(\mu, \Sigma)` with a factorised :math:`q`.

    Each sweep applies :func:`cavi_gaussian_update` to the coordinates
    :math:`j = 0, \dots, d - 1` in turn, each time using the other factors'
    newest means.  Every update maximises the ELBO over :math:`q_j` exactly,
    so ``elbo_trace`` never decreases.  The fixed point is
    :math:`\bar z = \mu`, :math:`v_j = 1 / \Lambda_{jj}`.
    Book: chapters/05_2_cavi_gaussian.md, eq. labels ``vem-cavi-update`` and ``vem-cavi-fixed-point``.

    Parameters
    ----------
    mean : array-like of shape (d,)
    covariance : array-like of shape (d, d), symmetric positive definite
    q_means_init : array-like of shape (d,), optional
        Starting means (default: zeros).
    q_variances_init : array-like of shape (d,), optional
        Starting variances, used only for the first entry of ``elbo_trace``
        (default: ones).  The first update of each factor replaces its variance.
    n_sweeps : int
        Maximum number of sweeps.
    tol : float
        Stop after the first sweep whose largest change of a mean is at most ``tol``;
        0 runs all sweeps.

    Returns
    -------
    CAVIResult
    """
    mean, covariance, chol = _check_gaussian_target(mean, covariance)
    d = mean.shape[0]
    n_sweeps = check_positive_int(n_sweeps, "n_sweeps")
    tol = check_positive_scalar(tol, "tol", allow_zero=True)
    zbar = np.zeros(d) if q_means_init is None else check_data(q_means_init, "q_means_init", ndim=1).copy()
    v = np.ones(d) if q_variances_init is None else check_data(q_variances_init, "q_variances_init", ndim=1).copy()
    _check_diag_q(zbar, v, d)
    precision = linalg.cho_solve((chol, True), np.eye(d))
    precision = (precision + precision.T) / 2
    trace, elbos = [zbar.copy()], [gaussian_elbo_diag(zbar, v, mean, covariance)]
    sweeps = 0
    for _ in range(n_sweeps):
        before = zbar.copy()
        for j in range(d):
            zbar[j], v[j] = cavi_gaussian_update(zbar, j, mean, precision)
            trace.append(zbar.copy())
            elbos.append(gaussian_elbo_diag(zbar, v, mean, covariance))
        sweeps += 1
        if tol > 0 and np.max(np.abs(zbar - before)) <= tol:
            break
    return CAVIResult(zbar, v, np.array(trace), np.array(elbos), sweeps)
