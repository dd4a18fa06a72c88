r"""Stepwise (online) EM for a Gaussian mixture with full covariances.

Batch EM reads every point once per iteration.  Stepwise EM
(Cappé and Moulines, 2009) reads one minibatch :math:`B_t` of points per
step and keeps a running average of the M-step's sufficient statistics per
point,

.. math::

    \bar{\mathcal S}^{(t+1)} = (1 - \eta_t)\, \bar{\mathcal S}^{(t)} + \eta_t\, \hat{\mathcal S}(B_t; \theta^{(t)}),
    \qquad \eta_t = (t + 2)^{-\tau}, \quad \tfrac12 < \tau \le 1,

where :math:`\hat{\mathcal S}(B_t; \theta^{(t)})` averages over the minibatch, with the
responsibilities of the E-step at :math:`\theta^{(t)}`, the three statistics
:math:`\gamma_{ik}`, :math:`\gamma_{ik}(x_i - c)` and
:math:`\gamma_{ik}(x_i - c)(x_i - c)^\top`.  The M-step then turns
:math:`\bar{\mathcal S}^{(t+1)}` into :math:`\theta^{(t+1)}` exactly as batch EM turns its
sums (divided by :math:`n`) into parameters.  With :math:`\eta_t = 1` and the
whole data set as the minibatch it is batch EM.  The steps satisfy
:math:`\sum_t \eta_t = \infty` and :math:`\sum_t \eta_t^2 < \infty` (Robbins and
Monro's conditions); under these and further regularity conditions, for minibatches
drawn independently, Cappé and Moulines prove convergence with probability one to
the stationary points of the expected log-likelihood, the fixed points of batch
EM's map.  A smaller :math:`\tau` takes larger steps and forgets the first
statistics faster.

The centre :math:`c` is one vector for all components, the mean of the first
minibatch: sums of :math:`x x^\top` about the origin would cancel digits for
data far from the origin (chapter 4's "EM at scale" page).  Within a running
average the centre must stay fixed, so it is not the current mean of each
component; a component's statistics are therefore exact only as long as its
spread is not tiny against its distance from :math:`c`.

Book: chapters/04_4_em_at_scale.md, eq. label ``em-stepwise``.
"""

from typing import NamedTuple

import numpy as np

from ._validation import check_data, check_positive_int, check_positive_scalar, check_rng
from .mixture import e_step, log_likelihood

__all__ = ["OnlineEMResult", "step_sizes", "minibatch_statistics", "parameters_from_statistics",
           "stepwise_em"]


class OnlineEMResult(NamedTuple):
    """What :func:`stepwise_em` returns.

    ``passes[j]`` is the number of passes over the data read before the
    log-likelihood ``log_likelihood[j]`` (the total over all ``n`` points, a
    diagnostic that costs the caller a pass each) was evaluated.
    """

    weights: np.ndarray
    means: np.ndarray
    covariances: np.ndarray
    passes: np.ndarray
    log_likelihood: np.ndarray


def step_sizes(n_steps, exponent=0.6):
    r"""The step sizes :math:`\eta_t = (t + 2)^{-\tau}`, ``t = 0, ..., n_steps - 1``.

    ``exponent`` is :math:`\tau`; it must lie in (0.5, 1], the range in which
    :math:`\sum_t \eta_t` diverges while :math:`\sum_t \eta_t^2` converges.
    """
    n_steps = check_positive_int(n_steps, "n_steps")
    exponent = _check_exponent(exponent)
    return (np.arange(n_steps) + 2.0) ** (-exponent)


def _check_exponent(exponent):
    if isinstance(exponent, bool) or not isinstance(exponent, (int, float, np.integer, np.floating)):
        raise TypeError(f"step_exponent must be a number in (0.5, 1]; got {type(exponent).__name__}.")
    exponent = float(exponent)
    if not 0.5 < exponent <= 1.0:
        raise ValueError(f"step_exponent must lie in (0.5, 1] (Robbins-Monro steps); got {exponent}.")
    return exponent


def minibatch_statistics(X, resp, centre):
    r"""Per-point averages of the M-step's statistics over the rows of ``X``.

    Returns ``(s0, s1, s2)``, the book's :math:`\hat{\mathcal S}_0, \hat{\mathcal S}_1,
    \hat{\mathcal S}_2`, of shapes ``(K,)``, ``(K, d)``, ``(K, d, d)``: the means over
    the rows of :math:`\gamma_{ik}`, :math:`\gamma_{ik}(x_i - c)`
    and :math:`\gamma_{ik}(x_i - c)(x_i - c)^\top`.
    """
    X = check_data(X)
    resp = np.asarray(resp, dtype=float)
    if resp.ndim != 2 or resp.shape[0] != X.shape[0]:
        raise ValueError(f"resp must have shape (n_samples, n_components) = ({X.shape[0]}, K); "
                         f"got {resp.shape}.")
    centre = np.asarray(centre, dtype=float)
    if centre.shape != (X.shape[1],):
        raise ValueError(f"centre must have shape ({X.shape[1]},); got {centre.shape}.")
    n_batch = len(X)
    diff = X - centre  # (n_batch, d)
    s0 = resp.mean(axis=0)  # (K,)
    s1 = resp.T @ diff / n_batch  # (K, d)
    s2 = np.einsum("ik,id,ie->kde", resp, diff, diff) / n_batch  # (K, d, d)
    return s0, s1, s2


def parameters_from_statistics(s0, s1, s2, centre, reg_covar=1e-6):
    r"""The M-step from per-point statistics: ``(weights, means, covariances)``.

    .. math::

        \pi_k = \frac{\bar{\mathcal S}_{0k}}{\sum_j \bar{\mathcal S}_{0j}}, \qquad
        \mu_k = c + \frac{\bar{\mathcal S}_{1k}}{\bar{\mathcal S}_{0k}}, \qquad
        \Sigma_k = \frac{\bar{\mathcal S}_{2k}}{\bar{\mathcal S}_{0k}}
                   - \frac{\bar{\mathcal S}_{1k}}{\bar{\mathcal S}_{0k}} \frac{\bar{\mathcal S}_{1k}^\top}{\bar{\mathcal S}_{0k}}
                   + \varepsilon I .
    """
    s0, s1, s2 = (np.asarray(a, dtype=float) for a in (s0, s1, s2))
    if np.any(s0 <= 0):
        raise ValueError("every component needs a positive statistic s0 (a soft count); one is empty.")
    reg_covar = check_positive_scalar(reg_covar, "reg_covar", allow_zero=True)
    shift = s1 / s0[:, None]  # (K, d)
    covariances = s2 / s0[:, None, None] - shift[:, :, None] * shift[:, None, :]
    covariances = covariances + reg_covar * np.eye(s1.shape[1])
    return s0 / s0.sum(), np.asarray(centre, dtype=float) + shift, covariances


def stepwise_em(X, weights, means, covariances, *, batch_size=50, n_epochs=5, step_exponent=0.6,
                reg_covar=1e-6, evaluate_every=None, rng=None):
    r"""Stepwise EM for a full-covariance Gaussian mixture, started at the given parameters.

    Each epoch visits the rows in a fresh random order (drawn from ``rng``)
    in minibatches of ``batch_size``; every minibatch is one E-step on its
    rows, one update of the averaged statistics with step
    :math:`\eta_t = (t + 2)^{-\tau}` (:math:`\tau` = ``step_exponent``) and one
    M-step.  The averaged statistics start at those of the initial parameters
    (:math:`\bar{\mathcal S}_0 = \pi`, :math:`\bar{\mathcal S}_1 = \pi(\mu - c)`,
    :math:`\bar{\mathcal S}_2 = \pi(\Sigma + (\mu - c)(\mu - c)^\top)`).

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
    weights, means, covariances : the initial parameters (``covariance_type='full'``).
    batch_size : int
        Rows per minibatch (the last one of an epoch may be smaller).
    n_epochs : int
        Passes over the data.
    step_exponent : float in (0.5, 1]
    reg_covar : float
        Ridge :math:`\varepsilon` added to every covariance in every M-step.
    evaluate_every : int or None
        Record the log-likelihood of all of ``X`` after every this many
        minibatches (None: once per epoch).  A diagnostic: it reads the data.
    rng : None, int or numpy.random.Generator

    Returns
    -------
    OnlineEMResult
    """
    X = check_data(X)
    means = check_data(means, "means")
    e_step(X[:1], weights, means, covariances, "full")  # validates the parameters (clear errors)
    weights = np.asarray(weights, dtype=float)
    covariances = np.asarray(covariances, dtype=float)
    if covariances.shape != (len(means), X.shape[1], X.shape[1]):
        raise ValueError(f"covariances must have shape (K, d, d) = ({len(means)}, {X.shape[1]}, "
                         f"{X.shape[1]}) (full covariances); got {covariances.shape}.")
    n = len(X)
    batch_size = min(check_positive_int(batch_size, "batch_size"), n)
    n_epochs = check_positive_int(n_epochs, "n_epochs")
    exponent = _check_exponent(step_exponent)
    reg_covar = check_positive_scalar(reg_covar, "reg_covar", allow_zero=True)
    rng = check_rng(rng)
    batches_per_epoch = -(-n // batch_size)
    evaluate_every = batches_per_epoch if evaluate_every is None else check_positive_int(
        evaluate_every, "evaluate_every")

    order = rng.permutation(n)
    centre = X[order[:batch_size]].mean(axis=0)  # fixed for the whole run
    offset = means - centre  # (K, d)
    s0 = weights.copy()
    s1 = weights[:, None] * offset
    s2 = weights[:, None, None] * (covariances + offset[:, :, None] * offset[:, None, :])
    theta = (weights, means, covariances)

    passes, history = [0.0], [log_likelihood(X, *theta)]
    t, rows_read = 0, 0
    for epoch in range(n_epochs):
        if epoch > 0:
            order = rng.permutation(n)
        for start in range(0, n, batch_size):
            rows = X[order[start:start + batch_size]]
            resp, _ = e_step(rows, *theta)
            eta = (t + 2.0) ** (-exponent)
            b0, b1, b2 = minibatch_statistics(rows, resp, centre)
            s0 = (1 - eta) * s0 + eta * b0
            s1 = (1 - eta) * s1 + eta * b1
            s2 = (1 - eta) * s2 + eta * b2
            theta = parameters_from_statistics(s0, s1, s2, centre, reg_covar)
            t += 1
            rows_read += len(rows)
            if t % evaluate_every == 0:
                passes.append(rows_read / n)
                history.append(log_likelihood(X, *theta))
    return OnlineEMResult(*theta, np.array(passes), np.array(history))
