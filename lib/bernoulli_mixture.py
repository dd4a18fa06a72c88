r"""EM for a mixture of independent Bernoulli vectors (binary images, word indicators).

The model: a hidden component :math:`z_i \sim \mathrm{Categorical}(\pi)`, then
the :math:`d` binary features of :math:`x_i \in \{0, 1\}^d` independently,
:math:`x_{ij} \mid z_i = k \sim \mathrm{Bernoulli}(\mu_{kj})`.  The vector
:math:`\mu_k \in [0, 1]^d` is the mean of component :math:`k` (``means[k]``).

* E-step, in log space (a product of hundreds of probabilities underflows):

  .. math::

      \ln p(x_i \mid z_i = k) = \sum_{j=1}^d \bigl( x_{ij} \ln \mu_{kj}
                                 + (1 - x_{ij}) \ln (1 - \mu_{kj}) \bigr), \qquad
      \gamma_{ik} = \exp\bigl(\ln \pi_k + \ln p(x_i \mid z_i = k) - \ln p(x_i)\bigr),

  with :math:`\ln p(x_i)` the ``logsumexp`` over :math:`k`;
* M-step, the maximiser of the expected complete-data log-likelihood:

  .. math::

      \pi_k = \frac{n_k}{n}, \qquad
      \mu_{kj} = \frac{\sum_i \gamma_{ik} x_{ij} + a}{n_k + 2a}, \qquad
      n_k = \sum_i \gamma_{ik},

  where ``pseudo_count`` :math:`a \ge 0` is the MAP update under a
  :math:`\mathrm{Beta}(1 + a, 1 + a)` prior on each :math:`\mu_{kj}`
  (:math:`a = 0`: maximum likelihood).

Terms :math:`0 \ln 0` count as 0, so a feature
that a component never shows (:math:`\mu_{kj} = 0`) costs nothing on points
without it.

Book: chapters/04_1_em_bound.md, exercise ``ex-em-bernoulli-mixture``.
"""

from typing import NamedTuple

import numpy as np
from scipy.special import logsumexp

from ._validation import check_data, check_positive_int, check_positive_scalar, check_rng

__all__ = ["BernoulliMixtureFit", "component_log_prob", "e_step", "m_step", "log_likelihood", "fit"]


class BernoulliMixtureFit(NamedTuple):
    """What :func:`fit` returns: the parameters and ``log_likelihood_history`` (start, then each iteration)."""

    weights: np.ndarray
    means: np.ndarray
    log_likelihood_history: np.ndarray


def _check_binary(X):
    X = check_data(X)
    if not np.all((X == 0) | (X == 1)):
        raise ValueError("X must be binary (every entry 0 or 1); threshold your data first, "
                         "e.g. (X >= threshold).astype(float).")
    return X


def _check_means(means, n_features):
    means = check_data(means, "means")
    if means.shape[1] != n_features:
        raise ValueError(f"means has {means.shape[1]} features but X has {n_features}; they must match.")
    if np.any(means < 0) or np.any(means > 1):
        raise ValueError("means are Bernoulli probabilities: every entry must lie in [0, 1].")
    return means


def _check_weights(weights, n_components):
    weights = check_data(weights, "weights", ndim=1)
    if weights.shape[0] != n_components:
        raise ValueError(f"weights has {weights.shape[0]} entries but there are {n_components} components.")
    if np.any(weights < 0) or not np.isclose(weights.sum(), 1.0, rtol=0, atol=1e-8):
        raise ValueError("weights must be non-negative and sum to 1.")
    return weights


def component_log_prob(X, means):
    r"""``(n, K)`` array of :math:`\ln p(x_i \mid z_i = k) = \sum_j x_{ij}\ln\mu_{kj} + (1-x_{ij})\ln(1-\mu_{kj})`."""
    X = _check_binary(X)
    means = _check_means(means, X.shape[1])
    return _component_log_prob(X, means)


def _component_log_prob(X, means):
    # two matrix products; a mean of exactly 0 (or 1) contributes 0 ln 0 = 0 where the feature
    # is 0 (or 1) and makes the point impossible (-inf) where it is not
    log_on = np.log(np.where(means > 0, means, 1.0))  # (K, d), 0 where mu = 0
    log_off = np.log(np.where(means < 1, 1.0 - means, 1.0))  # (K, d), 0 where mu = 1
    out = X @ log_on.T + (1.0 - X) @ log_off.T  # (n, K)
    impossible = X @ (means == 0).T + (1.0 - X) @ (means == 1).T > 0
    out[impossible] = -np.inf
    return out


def e_step(X, weights, means):
    r"""Responsibilities ``resp`` (n, K) and :math:`\ln p(x_i)` (n,), computed in log space.

    Raises ``ValueError`` if some point has probability 0 under every component
    (a feature equal to 1 where every component has :math:`\mu_{kj} = 0`, or
    the reverse): use ``pseudo_count > 0`` in the M-step.
    """
    X = _check_binary(X)
    means = _check_means(means, X.shape[1])
    weights = _check_weights(weights, len(means))
    with np.errstate(divide="ignore"):
        log_joint = np.log(weights) + _component_log_prob(X, means)  # (n, K)
    log_norm = logsumexp(log_joint, axis=1)
    if not np.all(np.isfinite(log_norm)):
        raise ValueError("a point has probability 0 under every component (a mean of exactly 0 or 1 "
                         "against a feature that differs); fit with pseudo_count > 0.")
    return np.exp(log_joint - log_norm[:, None]), log_norm


def m_step(X, resp, pseudo_count=0.0):
    r"""``(weights, means)``: :math:`\pi_k = n_k / n`, :math:`\mu_{kj} = (\sum_i \gamma_{ik} x_{ij} + a)/(n_k + 2a)`."""
    X = _check_binary(X)
    resp = check_data(resp, "resp")
    if resp.shape[0] != X.shape[0]:
        raise ValueError(f"resp has {resp.shape[0]} rows but X has {X.shape[0]}; one row per point.")
    if np.any(resp < 0) or not np.allclose(resp.sum(axis=1), 1.0, rtol=0, atol=1e-8):
        raise ValueError("every row of resp must be a probability vector (non-negative, summing to 1).")
    a = check_positive_scalar(pseudo_count, "pseudo_count", allow_zero=True)
    nk = resp.sum(axis=0)  # (K,) soft counts
    if a == 0 and np.any(nk <= 0):
        raise ValueError("a component has soft count 0: its means are undefined (use pseudo_count > 0).")
    means = (resp.T @ X + a) / (nk[:, None] + 2 * a)  # (K, d)
    return nk / len(X), np.clip(means, 0.0, 1.0)  # rounding may leave 1 + 1e-16


def log_likelihood(X, weights, means):
    r""":math:`\ell(\theta) = \sum_i \ln \sum_k \pi_k\, p(x_i \mid z_i = k)`, a float."""
    return float(e_step(X, weights, means)[1].sum())


def fit(X, n_components, *, n_iter=100, tol=1e-6, pseudo_count=0.0, rng=None):
    r"""EM from a random start: equal weights, means drawn uniformly from [0.25, 0.75].

    Stops after ``n_iter`` iterations or when the log-likelihood per point
    rises by less than ``tol``.  ``rng`` seeds the start.
    """
    X = _check_binary(X)
    K = check_positive_int(n_components, "n_components")
    n_iter = check_positive_int(n_iter, "n_iter")
    tol = check_positive_scalar(tol, "tol", allow_zero=True)
    rng = check_rng(rng)
    weights = np.full(K, 1.0 / K)
    means = rng.uniform(0.25, 0.75, size=(K, X.shape[1]))
    resp, log_norm = e_step(X, weights, means)
    history = [log_norm.sum()]
    for _ in range(n_iter):
        weights, means = m_step(X, resp, pseudo_count)
        resp, log_norm = e_step(X, weights, means)
        history.append(log_norm.sum())
        if (history[-1] - history[-2]) / len(X) < tol:
            break
    return BernoulliMixtureFit(weights, means, np.array(history))
