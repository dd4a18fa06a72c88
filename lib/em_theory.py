r"""The geometry and the speed of EM: the gap of its bound, Fisher's identity, missing information.

EM maximises the log-likelihood :math:`\ell(\theta)` by coordinate ascent on the
lower bound :math:`\mathcal L(q, \theta) = \ell(\theta) - \sum_i \mathrm{KL}(q_i \,\Vert\,
p_\theta(\cdot \mid x_i))`.  This module computes the pieces of that picture
for Gaussian mixtures:

* :func:`dempster_q`, Dempster's expected complete-data log-likelihood
  :math:`Q(\theta \mid \theta^{(t)})`, the function the M-step maximises;
* :func:`posterior_kl`, the gap :math:`\ell(\theta) - \mathcal L(q, \theta)`;
* :func:`mean_scores`, the gradient of :math:`\ell` in the means by Fisher's
  identity (the posterior expectation of the complete-data score);
* for a 1-D mixture in which only the mean :math:`\mu_c` of one component
  ``component`` is free: :func:`bound_over_mean` (the bound as a function of
  :math:`\mu_c`), :func:`mean_em_update` (EM's map
  :math:`\mu_c^{(t)} \mapsto \mu_c^{(t+1)}`), :func:`mean_information` (the
  observed, complete-data and missing information) and :func:`em_rate` (the
  fraction of missing information, EM's linear rate of convergence).

Book: chapters/04_1_em_bound.md, eq. label ``em-dempster-q``;
chapters/04_2_em_geometry.md, eq. labels ``em-gap-kl``, ``em-fisher-identity``,
``em-missing-information`` and ``em-rate``.
"""

from typing import NamedTuple

import numpy as np
from scipy.linalg import cho_solve
from scipy.special import logsumexp, xlogy

from ._validation import check_data, check_probability_vector
from .gaussian import cholesky_factors, log_prob
from .mixture import _check_parameters, _check_resp, e_step, expected_complete_log_likelihood

__all__ = [
    "Information",
    "bound_over_mean",
    "dempster_q",
    "em_rate",
    "mean_em_update",
    "mean_information",
    "mean_scores",
    "posterior_kl",
]

_LOG_2PI = np.log(2.0 * np.pi)


def _log_posterior(X, weights, means, covariances, covariance_type):
    with np.errstate(divide="ignore"):
        log_joint = np.log(weights) + log_prob(X, means, covariances, covariance_type)  # (n, K)
    return log_joint - logsumexp(log_joint, axis=1, keepdims=True)


def posterior_kl(X, resp, weights, means, covariances, covariance_type="full"):
    r"""The gap of EM's bound: :math:`\sum_i \mathrm{KL}\bigl(q_i \,\Vert\, p_\theta(\cdot \mid x_i)\bigr)`.

    .. math::

        \ell(\theta) - \mathcal L(q, \theta)
          = \sum_{i=1}^n \sum_{k=1}^K Q_{ik} \ln \frac{Q_{ik}}{p_\theta(z_i = k \mid x_i)}
          \;\ge\; 0,

    computed directly from the log-posterior (with :math:`0 \ln 0 = 0`), not as
    the difference of two large numbers, so that a gap of :math:`10^{-12}` keeps
    its digits.  It is 0 exactly when ``resp`` is the E-step's posterior.

    Book: chapters/04_2_em_geometry.md, eq. label ``em-gap-kl``.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
    resp : array-like of shape (n_samples, n_components)
        Any distribution :math:`q_i` over the components for each sample.
    weights, means, covariances, covariance_type
        The mixture parameters, as in :func:`lib.mixture.log_likelihood`.

    Returns
    -------
    float
        Infinite if some :math:`q_{ik} > 0` where the posterior is 0.
    """
    X, weights, means, covariances = _check_parameters(X, weights, means, covariances, covariance_type)
    resp = _check_resp(resp, X.shape[0], len(weights))
    log_post = _log_posterior(X, weights, means, covariances, covariance_type)
    cross = np.where(resp > 0, resp * log_post, 0.0)  # q ln p, with 0 ln 0 = 0
    return float(np.sum(xlogy(resp, resp)) - np.sum(cross))


def mean_scores(X, weights, means, covariances, covariance_type="full"):
    r"""The gradient of the log-likelihood in the means, by Fisher's identity.

    The complete-data score in :math:`\mu_k` is
    :math:`\mathbb 1\{z_i = k\}\, \Sigma_k^{-1}(x_i - \mu_k)`; its posterior
    expectation is the observed score:

    .. math::

        \nabla_{\mu_k} \ell(\theta)
          = \sum_{i=1}^n \mathbb E_{p_\theta(z_i \mid x_i)}\bigl[\nabla_{\mu_k} \ln p_\theta(x_i, z_i)\bigr]
          = \Sigma_k^{-1} \sum_{i=1}^n \gamma_{ik} (x_i - \mu_k).

    Solved with Cholesky factors, never an inverse.

    Book: chapters/04_2_em_geometry.md, eq. label ``em-fisher-identity``.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
    weights, means, covariances, covariance_type
        The mixture parameters, as in :func:`lib.mixture.log_likelihood`.

    Returns
    -------
    ndarray of shape (n_components, n_features)
        Row ``k`` is :math:`\nabla_{\mu_k} \ell(\theta)`.
    """
    X, weights, means, covariances = _check_parameters(X, weights, means, covariances, covariance_type)
    resp = np.exp(_log_posterior(X, weights, means, covariances, covariance_type))
    weighted = resp.T @ X - resp.sum(axis=0)[:, None] * means  # (K, d): sum_i gamma_ik (x_i - mu_k)
    chol = cholesky_factors(covariances, covariance_type)
    if covariance_type == "full":
        return np.stack([cho_solve((L, True), r) for L, r in zip(chol, weighted)])
    if covariance_type == "tied":
        return cho_solve((chol, True), weighted.T).T
    if covariance_type == "diag":
        return weighted / covariances
    return weighted / covariances[:, None]  # spherical


# ----------------------------------------------------------------------------
# A 1-D mixture whose only free parameter is the mean of one component
# ----------------------------------------------------------------------------


def _check_1d(x, weights, means, variances, component):
    x = check_data(x, "x", ndim=1)
    weights = check_probability_vector(weights, "weights", allow_zero=False)
    means = check_data(means, "means", ndim=1)
    variances = check_data(variances, "variances", ndim=1)
    K = len(weights)
    if means.shape != (K,) or variances.shape != (K,):
        raise ValueError(
            f"weights, means and variances must have one entry per component: got shapes {weights.shape}, "
            f"{means.shape} and {variances.shape}."
        )
    if np.any(variances <= 0):
        raise ValueError(f"variances must be strictly positive, got a minimum of {variances.min():.3g}.")
    if component is None:
        return x, weights, means, variances, None
    if isinstance(component, bool) or not isinstance(component, (int, np.integer)) or not 0 <= component < K:
        raise ValueError(
            f"component must be an integer index between 0 and {K - 1} (or None: all means free), got {component!r}."
        )
    return x, weights, means, variances, int(component)


def _resp_1d(x, weights, means, variances):
    log_joint = np.log(weights) - 0.5 * (_LOG_2PI + np.log(variances)) - (x[:, None] - means) ** 2 / (2 * variances)
    return np.exp(log_joint - logsumexp(log_joint, axis=1, keepdims=True))  # (n, K)


def mean_em_update(x, weights, means, variances, component=0):
    r"""One EM iteration for the mean :math:`\mu_c` of one component, all else fixed.

    .. math::

        M(\mu_c) = \frac{\sum_i \gamma_{ic}\, x_i}{\sum_i \gamma_{ic}},
        \qquad \gamma_{ic} = p_\theta(z_i = c \mid x_i) \text{ at } \mu_c.

    EM iterates :math:`\mu_c^{(t+1)} = M(\mu_c^{(t)})`; its fixed points are the
    stationary points of :math:`\ell`.

    Book: chapters/04_2_em_geometry.md, eq. label ``em-rate``.

    Parameters
    ----------
    x : array-like of shape (n_samples,)
        One-dimensional data.
    weights, means, variances : array-like of shape (n_components,)
        The mixture; ``means[component]`` is the current :math:`\mu_c`.
    component : int or None
        Index :math:`c` of the free mean; None: all means are free and updated
        together (the other parameters stay fixed).

    Returns
    -------
    float, or ndarray of shape (n_components,) if ``component`` is None
    """
    x, weights, means, variances, c = _check_1d(x, weights, means, variances, component)
    resp = _resp_1d(x, weights, means, variances)
    if c is None:
        return resp.T @ x / resp.sum(axis=0)
    return float(resp[:, c] @ x / resp[:, c].sum())


class Information(NamedTuple):
    """Observed, complete-data and missing information about one mean (``observed = complete - missing``)."""

    observed: float
    complete: float
    missing: float


def mean_information(x, weights, means, variances, component=0):
    r"""Observed, complete-data and missing information about one component's mean.

    With :math:`\gamma_{ic}` the responsibilities at the current parameters and
    :math:`v_c = \sigma_c^2`:

    .. math::

        I_{\text{complete}} &= \mathbb E_{p_\theta(z \mid x)}\Bigl[-\frac{\partial^2}{\partial \mu_c^2}
            \ln p_\theta(x, z)\Bigr] = \frac{1}{v_c} \sum_i \gamma_{ic}, \\
        I_{\text{missing}} &= \sum_i \operatorname{Var}_{p_\theta(z_i \mid x_i)}\Bigl[
            \frac{\partial}{\partial \mu_c} \ln p_\theta(x_i, z_i)\Bigr]
            = \frac{1}{v_c^2} \sum_i \gamma_{ic}(1 - \gamma_{ic})(x_i - \mu_c)^2, \\
        I_{\text{observed}} &= -\frac{\partial^2 \ell}{\partial \mu_c^2}
            = I_{\text{complete}} - I_{\text{missing}}.

    The last line is the missing-information principle: what the data tell
    about :math:`\mu_c` is what the complete data would tell minus what the
    missing labels would have added.

    Book: chapters/04_2_em_geometry.md, eq. label ``em-missing-information``.

    Parameters
    ----------
    x : array-like of shape (n_samples,)
    weights, means, variances : array-like of shape (n_components,)
    component : int or None
        Index :math:`c` of the free mean.  None: all :math:`K` means are free,
        and the three informations are :math:`K \times K` matrices,
        :math:`I_{\text{complete}} = \operatorname{diag}_k(\sum_i \gamma_{ik} / v_k)` and
        :math:`(I_{\text{missing}})_{kl} = \sum_i \gamma_{ik}(\delta_{kl} - \gamma_{il})
        s_{ik} s_{il}` with :math:`s_{ik} = (x_i - \mu_k)/v_k`.

    Returns
    -------
    Information
        ``(observed, complete, missing)``: floats, or arrays of shape
        (n_components, n_components) if ``component`` is None.
    """
    x, weights, means, variances, c = _check_1d(x, weights, means, variances, component)
    resp = _resp_1d(x, weights, means, variances)  # (n, K)
    if c is None:
        scores = (x[:, None] - means) / variances  # (n, K): complete-data score if z_i = k
        complete = np.diag(resp.sum(axis=0) / variances)
        # Cov[1{z=k} s_k, 1{z=l} s_l] = gamma_k (delta_kl - gamma_l) s_k s_l
        weighted = resp * scores  # (n, K)
        missing = np.diag(np.sum(weighted * scores, axis=0)) - weighted.T @ weighted
        return Information(observed=complete - missing, complete=complete, missing=missing)
    gamma = resp[:, c]
    v = variances[c]
    complete = float(gamma.sum() / v)
    missing = float(np.sum(gamma * (1.0 - gamma) * (x - means[c]) ** 2) / v**2)
    return Information(observed=complete - missing, complete=complete, missing=missing)


def em_rate(x, weights, means, variances, component=0):
    r"""EM's rate of linear convergence: the fraction of missing information.

    At a fixed point :math:`\mu_c^*` of :func:`mean_em_update`,

    .. math::

        \frac{\mu_c^{(t+1)} - \mu_c^*}{\mu_c^{(t)} - \mu_c^*} \;\to\; M'(\mu_c^*)
          = \frac{I_{\text{missing}}}{I_{\text{complete}}}
          = 1 - \frac{I_{\text{observed}}}{I_{\text{complete}}} .

    Evaluate it at the fixed point (``means[component]`` equal to
    :math:`\mu_c^*`).  With ``component=None`` (all means free) the rate is the
    largest eigenvalue of :math:`I_{\text{complete}}^{-1} I_{\text{missing}}`, the
    Jacobian of EM's map at the fixed point, and the ratio of the norms of
    successive errors tends to it from a generic start.

    Book: chapters/04_2_em_geometry.md, eq. label ``em-rate``.

    Returns
    -------
    float
    """
    info = mean_information(x, weights, means, variances, component)
    if component is None:
        # eigenvalues of I_c^{-1} I_m = those of the symmetric D I_m D, D = I_c^{-1/2} (diagonal)
        scale = 1.0 / np.sqrt(np.diag(info.complete))
        return float(np.max(np.abs(np.linalg.eigvalsh(scale[:, None] * info.missing * scale[None, :]))))
    return info.missing / info.complete


def bound_over_mean(x, resp, weights, means, variances, grid, component=0):
    r"""The bound :math:`\mathcal L(q, \theta)` as a function of one component's mean.

    For a fixed :math:`q` only the term :math:`\sum_i q_{ic} \ln \mathcal N(x_i
    \mid \mu_c, v_c)` of :math:`\mathcal L` depends on :math:`\mu_c`, a concave parabola
    maximised at :math:`\sum_i q_{ic} x_i / \sum_i q_{ic}`, the M-step:

    .. math::

        \mathcal L(q, \mu_c) = \mathcal L(q, \mu_c^{\text{now}})
          - \frac{1}{2 v_c} \sum_i q_{ic}\bigl[(x_i - \mu_c)^2 - (x_i - \mu_c^{\text{now}})^2\bigr].

    Book: chapters/04_1_em_bound.md, eq. label ``em-lower-bound``.

    Parameters
    ----------
    x : array-like of shape (n_samples,)
    resp : array-like of shape (n_samples, n_components)
        The distribution :math:`q`; rows sum to 1.
    weights, means, variances : array-like of shape (n_components,)
        The other parameters; ``means[component]`` is :math:`\mu_c^{\text{now}}`.
    grid : array-like of shape (m,)
        Values of :math:`\mu_c` at which to evaluate the bound.
    component : int

    Returns
    -------
    ndarray of shape (m,)
    """
    x, weights, means, variances, c = _check_1d(x, weights, means, variances, component)
    if c is None:
        raise ValueError("bound_over_mean traces one mean: give component as an integer index.")
    resp = _check_resp(resp, x.shape[0], len(weights))
    grid = check_data(grid, "grid", ndim=1)
    log_joint = np.log(weights) - 0.5 * (_LOG_2PI + np.log(variances)) - (x[:, None] - means) ** 2 / (2 * variances)
    G_now = float(np.sum(np.where(resp > 0, resp * log_joint, 0.0)) - np.sum(xlogy(resp, resp)))
    q = resp[:, c]
    sq_grid = q @ (x[:, None] - grid[None, :]) ** 2  # (m,)
    sq_now = q @ (x - means[c]) ** 2
    return G_now - (sq_grid - sq_now) / (2 * variances[c])


def dempster_q(X, theta, theta_old, covariance_type="full"):
    r"""Dempster's :math:`Q(\theta \mid \theta^{(t)})` for a Gaussian mixture.

    .. math::

        Q(\theta \mid \theta^{(t)})
        = \sum_{i=1}^n \mathbb E_{z_i \sim p_{\theta^{(t)}}(\cdot \mid x_i)}
          \bigl[\ln p_\theta(x_i, z_i)\bigr]
        = \sum_{i=1}^n \sum_{k=1}^K \gamma_{ik}(\theta^{(t)})
          \bigl(\ln \pi_k + \ln \mathcal N(x_i \mid \mu_k, \Sigma_k)\bigr),

    the expected complete-data log-likelihood :math:`F(q^{(t+1)}, \theta)` with the
    responsibilities of the E-step at :math:`\theta^{(t)}` = ``theta_old``.  It
    differs from EM's bound by the entropy of those responsibilities, which does
    not depend on ``theta``; ``dempster_q(X, theta_old, theta_old)`` is therefore
    :math:`\ell(\theta^{(t)}) - \sum_i H(q_i^{(t+1)})`.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
    theta, theta_old : tuple (weights, means, covariances)
        The parameters at which :math:`\ln p_\theta` is evaluated and those
        that define the posterior, in ``covariance_type``'s layout.
    covariance_type : {'full', 'tied', 'diag', 'spherical'}

    Returns
    -------
    float
    """
    for name, value in (("theta", theta), ("theta_old", theta_old)):
        if not isinstance(value, (tuple, list)) or len(value) != 3:
            raise TypeError(f"{name} must be a tuple (weights, means, covariances); got {type(value).__name__}"
                            + (f" of length {len(value)}" if isinstance(value, (tuple, list)) else "") + ".")
    resp, _ = e_step(X, *theta_old, covariance_type)
    return float(expected_complete_log_likelihood(X, resp, *theta, covariance_type))
