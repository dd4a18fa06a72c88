r"""Closed-form maximum likelihood estimates, log-likelihoods, entropies and KL divergences.

For an i.i.d. sample :math:`x_1, \dots, x_n` from a model :math:`p_\theta`
the log-likelihood is

.. math::

    \ell(\theta) = \sum_{i=1}^n \ln p_\theta(x_i),

and the maximum likelihood estimate (MLE) is its maximiser
:math:`\hat\theta`.  This module gives :math:`\hat\theta` in closed form for
the Bernoulli, categorical and Gaussian models, the matching log-likelihoods,
and the information quantities that explain what maximum likelihood does:
entropy :math:`H(p)` and the Kullback-Leibler divergence
:math:`\mathrm{KL}(p \,\|\, q)`, for discrete distributions and for Gaussians.
It also gives the conjugate Bayesian updates of the two discrete models
(Beta-Bernoulli and Dirichlet-categorical: posterior, posterior mean, mode =
MAP estimate, predictive probability) and the Gaussian log-prior whose MAP
estimate is an :math:`\ell_2`-penalised fit.

All logarithms are natural (nats) unless a ``base`` is given.  Conventions,
from the limits :math:`t \ln t \to 0` as :math:`t \to 0^+`:

* :math:`0 \ln 0 = 0`, so zero-probability outcomes do not contribute to an
  entropy, and an outcome with count 0 does not contribute to a
  log-likelihood whatever its probability;
* :math:`n \ln 0 = -\infty` for :math:`n > 0`: a sample containing an outcome
  of probability 0 has log-likelihood :math:`-\infty`;
* :math:`p \ln (p / 0) = +\infty` for :math:`p > 0`: the divergence
  :math:`\mathrm{KL}(p \,\|\, q)` is infinite as soon as :math:`q` gives
  probability 0 to an outcome that :math:`p` can produce.

Book: chapters/02_maximum_likelihood.md and its section pages
chapters/02_1_map_bayesian.md (priors and posteriors),
chapters/02_3_gaussian_mle.md (the Gaussian model) and
chapters/02_4_risk_kl_misspecification.md (entropy and KL divergence).
"""

import numpy as np
from scipy.linalg import cholesky, solve_triangular
from scipy.special import rel_entr, xlogy

from . import gaussian
from ._validation import check_data, check_positive_scalar, check_probability_vector

__all__ = [
    "bernoulli_mle",
    "bernoulli_log_likelihood",
    "token_counts",
    "categorical_mle",
    "categorical_log_likelihood",
    "gaussian_mle",
    "gaussian_log_likelihood",
    "entropy",
    "kl_divergence",
    "gaussian_entropy",
    "gaussian_kl",
    "beta_bernoulli_posterior",
    "beta_mean",
    "beta_mode",
    "beta_bernoulli_predictive",
    "dirichlet_categorical_posterior",
    "dirichlet_mean",
    "dirichlet_mode",
    "dirichlet_categorical_predictive",
    "gaussian_log_prior",
]

_LOG_2PI = np.log(2.0 * np.pi)


# ------------------------------------------------------------- helpers --

def _check_binary(x):
    arr = check_data(x, "x", ndim=1)
    if not np.all((arr == 0) | (arr == 1)):
        bad = arr[(arr != 0) & (arr != 1)][0]
        raise ValueError(
            f"x must hold Bernoulli outcomes 0 and 1 only, found {bad!r}; "
            "encode the two outcomes as 1 (success) and 0 (failure)."
        )
    return arr


def _check_theta(theta):
    if isinstance(theta, bool):
        raise TypeError("theta must be a number in [0, 1], got a boolean.")
    try:
        arr = np.asarray(theta, dtype=np.float64)
    except (TypeError, ValueError):
        raise TypeError(f"theta must be a number or an array of numbers in [0, 1], got {theta!r}.") from None
    if not np.all(np.isfinite(arr)) or np.any(arr < 0) or np.any(arr > 1):
        raise ValueError("theta must lie in [0, 1] (it is the probability of a 1).")
    return arr


def _log_base(base):
    if base is None:
        return 1.0
    base = check_positive_scalar(base, "base")
    if base == 1.0:
        raise ValueError("base must be a positive number other than 1 (e.g. 2 for bits).")
    return np.log(base)


def _is_token_sequence(obj):
    if isinstance(obj, str):
        raise TypeError(
            "expected a list of tokens or an array of counts, got a single string; "
            "split it into words first, e.g. with lib.datasets.tokenize(text)."
        )
    if isinstance(obj, np.ndarray):
        return obj.dtype.kind in "US"
    if isinstance(obj, (list, tuple)):
        return len(obj) > 0 and all(isinstance(t, str) for t in obj)
    return False


def _check_counts(counts):
    arr = check_data(counts, "counts", ndim=1)
    if np.any(arr < 0):
        raise ValueError(f"counts must be non-negative, got a minimum of {arr.min():.3g}.")
    return arr


def _check_vocabulary(vocabulary):
    if isinstance(vocabulary, str):
        raise TypeError("vocabulary must be a list of words, got a single string.")
    try:
        vocab = list(vocabulary)
    except TypeError:
        raise TypeError(
            f"vocabulary must be a list of words, got an object of type {type(vocabulary).__name__}."
        ) from None
    if not vocab:
        raise ValueError("vocabulary is empty; it must list at least one word.")
    if not all(isinstance(w, str) for w in vocab):
        raise TypeError("vocabulary must hold strings (words) only.")
    if len(set(vocab)) != len(vocab):
        raise ValueError("vocabulary lists some words more than once; remove the duplicates.")
    return vocab


def _cov_to_full(cov, d, name):
    """A covariance given as a scalar, a diagonal or a matrix, as a (d, d) matrix."""
    arr = np.asarray(cov, dtype=np.float64)
    if arr.ndim == 0:
        arr = arr * np.eye(d)
    elif arr.ndim == 1:
        if arr.shape[0] != d:
            raise ValueError(f"{name} as a diagonal must have {d} entries to match the mean, got {arr.shape[0]}.")
        arr = np.diag(arr)
    elif arr.shape != (d, d):
        raise ValueError(f"{name} must have shape ({d}, {d}) to match the mean, got {arr.shape}.")
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} contains NaN or infinite values.")
    if not np.allclose(arr, arr.T, rtol=1e-10, atol=1e-12):
        raise ValueError(f"{name} must be symmetric; a covariance matrix equals its transpose.")
    return arr


def _chol(cov, name):
    """Lower Cholesky factor of a covariance matrix, with a clear error if it is not one."""
    try:
        return cholesky(cov, lower=True, check_finite=False)
    except np.linalg.LinAlgError:
        raise ValueError(
            f"{name} is not positive definite, so it is not a valid Gaussian covariance "
            "(a zero or negative variance, or perfectly correlated features)."
        ) from None


# ----------------------------------------------------------- Bernoulli --

def bernoulli_mle(x):
    r"""Maximum likelihood estimate of a Bernoulli parameter.

    .. math::

        \hat\theta = \frac{1}{n} \sum_{i=1}^n x_i,

    the fraction of ones.

    Book: chapters/02_maximum_likelihood.md, eq. label ``mle-bernoulli``.

    Parameters
    ----------
    x : array-like of shape (n_samples,)
        Outcomes coded 0 and 1 (ints, floats or booleans).

    Returns
    -------
    float
        :math:`\hat\theta \in [0, 1]`.
    """
    return float(np.mean(_check_binary(x)))


def bernoulli_log_likelihood(x, theta):
    r"""Log-likelihood of a Bernoulli sample.

    .. math::

        \ell(\theta) = n_1 \ln \theta + (n - n_1) \ln (1 - \theta),
        \qquad n_1 = \sum_i x_i,

    with :math:`0 \ln 0 = 0`, so that, e.g., an all-zero sample has
    :math:`\ell(0) = 0` while any sample with a one has :math:`\ell(0) = -\infty`.

    Book: chapters/02_maximum_likelihood.md, eq. label ``mle-bernoulli-ll``.

    Parameters
    ----------
    x : array-like of shape (n_samples,)
        Outcomes coded 0 and 1.
    theta : float or array-like of floats in [0, 1]
        One parameter value, or several (e.g. a grid) evaluated at once.

    Returns
    -------
    float or ndarray
        A float for a scalar ``theta``, else an array of ``theta``'s shape.
    """
    arr = _check_binary(x)
    th = _check_theta(theta)
    n1 = arr.sum()
    n0 = arr.shape[0] - n1
    out = xlogy(n1, th) + xlogy(n0, 1.0 - th)
    return float(out) if out.ndim == 0 else out


# --------------------------------------------------------- categorical --

def token_counts(tokens, vocabulary=None):
    r"""Count how often each word occurs: the sufficient statistic :math:`n_j`.

    Parameters
    ----------
    tokens : sequence of str
        The sample, e.g. ``lib.datasets.tokenize(text)``.
    vocabulary : sequence of str, optional
        The outcomes :math:`1, \dots, V` of the model, in the order wanted.
        Defaults to the distinct tokens, sorted.  Every token must belong to it.

    Returns
    -------
    vocabulary : list of str
    counts : ndarray of shape (V,), int
        ``counts[j]`` is the number of occurrences of ``vocabulary[j]``.
    """
    tokens = _check_tokens(tokens)
    vocab = sorted(set(tokens)) if vocabulary is None else _check_vocabulary(vocabulary)
    index = {w: j for j, w in enumerate(vocab)}
    missing = sorted(set(tokens) - index.keys())
    if missing:
        shown = ", ".join(repr(w) for w in missing[:5])
        raise ValueError(
            f"{len(missing)} token(s) are not in the vocabulary (e.g. {shown}); "
            "build the vocabulary from all the words you need, or map rare words to an '<unk>' token."
        )
    counts = np.zeros(len(vocab), dtype=np.int64)
    np.add.at(counts, [index[t] for t in tokens], 1)
    return vocab, counts


def _check_tokens(tokens):
    if isinstance(tokens, str):
        _is_token_sequence(tokens)  # raises the helpful TypeError
    if isinstance(tokens, np.ndarray) and tokens.dtype.kind in "US":
        tokens = tokens.tolist()
    if not isinstance(tokens, (list, tuple)) or not all(isinstance(t, str) for t in tokens):
        raise TypeError("tokens must be a list of strings, e.g. lib.datasets.tokenize(text).")
    return list(tokens)


def categorical_mle(counts_or_tokens, alpha=0.0, vocabulary=None):
    r"""Maximum likelihood (optionally additively smoothed) estimate of a categorical distribution.

    With counts :math:`n_j` of the :math:`V` outcomes and :math:`N = \sum_j n_j`,

    .. math::

        \hat\theta_j = \frac{n_j + \alpha}{N + \alpha V},

    which for :math:`\alpha = 0` is the MLE :math:`\hat\theta_j = n_j / N`
    (eq. ``mle-categorical``) and for :math:`\alpha > 0` is additive
    smoothing (Laplace smoothing for :math:`\alpha = 1`, eq.
    ``mle-categorical-smoothed``): every outcome of the vocabulary, seen or
    not, receives the same pseudo-count :math:`\alpha`.

    Book: chapters/02_maximum_likelihood.md, eq. labels ``mle-categorical``,
    ``mle-categorical-smoothed``.

    Parameters
    ----------
    counts_or_tokens : array-like of shape (V,) or sequence of str
        Either non-negative counts :math:`n_j` (outcome ``j`` is position
        ``j``) or the sample itself as a list of tokens.
    alpha : float, default 0
        Pseudo-count :math:`\alpha \ge 0` added to every outcome.
    vocabulary : sequence of str, optional
        Only with tokens: the :math:`V` outcomes of the model.  Defaults to
        the distinct tokens, in which case unseen words are simply absent and
        smoothing cannot give them any mass -- pass the vocabulary to smooth.

    Returns
    -------
    ndarray of shape (V,) or dict
        Probabilities summing to 1: an array for counts; a ``dict`` from word
        to probability (in vocabulary order) for tokens.
    """
    alpha = check_positive_scalar(alpha, "alpha", allow_zero=True)
    if _is_token_sequence(counts_or_tokens):
        vocab, counts = token_counts(counts_or_tokens, vocabulary)
    else:
        if isinstance(counts_or_tokens, (list, tuple)) and len(counts_or_tokens) == 0:
            raise ValueError("the sample is empty: pass at least one token or a non-zero count.")
        if vocabulary is not None:
            raise ValueError(
                "vocabulary is only used with tokens; with counts, outcome j is simply counts[j]."
            )
        vocab, counts = None, _check_counts(counts_or_tokens)
    total = counts.sum() + alpha * counts.shape[0]
    if total == 0:
        raise ValueError(
            "all counts are zero and alpha = 0, so the MLE is undefined (0/0); "
            "observe at least one outcome or use alpha > 0."
        )
    probs = (counts + alpha) / total
    if vocab is None:
        return probs
    return dict(zip(vocab, probs.tolist()))


def categorical_log_likelihood(counts_or_tokens, probs):
    r"""Log-likelihood of a categorical sample.

    .. math::

        \ell(\theta) = \sum_{i=1}^N \ln \theta_{x_i} = \sum_{j=1}^V n_j \ln \theta_j,

    with :math:`0 \ln 0 = 0` (an outcome that does not occur contributes
    nothing) and :math:`n \ln 0 = -\infty` for :math:`n > 0`.  This is the
    log-probability of the *sequence*; the multinomial log-probability of the
    counts adds :math:`\ln\bigl(N! / \prod_j n_j!\bigr)`, which does not
    depend on :math:`\theta`.

    Book: chapters/02_maximum_likelihood.md, eq. label ``mle-categorical-ll``.

    Parameters
    ----------
    counts_or_tokens : array-like of shape (V,) or sequence of str
        Counts :math:`n_j` or the tokens themselves.
    probs : array-like of shape (V,) or dict
        An array of probabilities for counts; a dict from word to probability
        for tokens.  A token missing from the dict has probability 0, so its
        presence makes the log-likelihood :math:`-\infty` (the zero-count
        problem of the chapter).

    Returns
    -------
    float
    """
    if _is_token_sequence(counts_or_tokens):
        if not isinstance(probs, dict):
            raise TypeError(
                "with tokens, probs must be a dict from word to probability "
                "(as returned by categorical_mle(tokens, ...))."
            )
        p = check_probability_vector(np.array(list(probs.values()), dtype=np.float64), "probs", atol=1e-6)
        vocab = list(probs.keys())
        index = {w: j for j, w in enumerate(vocab)}
        tokens = _check_tokens(counts_or_tokens)
        counts = np.zeros(len(vocab) + 1)  # last slot: tokens outside the dict, probability 0
        np.add.at(counts, [index.get(t, len(vocab)) for t in tokens], 1)
        p = np.append(p, 0.0)
    else:
        if isinstance(probs, dict):
            raise TypeError("with counts, probs must be an array with one probability per count.")
        counts = _check_counts(counts_or_tokens)
        p = check_probability_vector(probs, "probs", atol=1e-6)
        if p.shape != counts.shape:
            raise ValueError(f"counts has {counts.shape[0]} entries but probs has {p.shape[0]}; they must match.")
    with np.errstate(divide="ignore"):
        return float(np.sum(xlogy(counts, p)))


# ------------------------------------------------------------ Gaussian --

def gaussian_mle(X, covariance_type="full"):
    r"""Maximum likelihood estimate of a Gaussian's mean and covariance.

    .. math::

        \hat\mu = \frac1n \sum_{i=1}^n x_i, \qquad
        \hat\Sigma = \frac1n \sum_{i=1}^n (x_i - \hat\mu)(x_i - \hat\mu)^\top,

    dividing by :math:`n`, not :math:`n - 1` (``np.cov`` divides by
    :math:`n-1` by default; the MLE is the biased estimator, with
    :math:`\mathbb E[\hat\Sigma] = \frac{n-1}{n}\Sigma`).  The restricted
    families maximise the likelihood over their own parameter set:

    * ``"diag"``: :math:`\hat\sigma_j^2 = \frac1n \sum_i (x_{ij} - \hat\mu_j)^2`,
      the diagonal of :math:`\hat\Sigma`;
    * ``"spherical"``: :math:`\hat\sigma^2 = \frac{1}{nd} \sum_i \lVert x_i - \hat\mu\rVert^2`,
      the average of the :math:`d` per-coordinate variances.

    Book: chapters/02_3_gaussian_mle.md, eq. labels ``mle-gauss-mean``,
    ``mle-gauss-cov``, ``mle-gauss-diag``, ``mle-gauss-spherical``.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
    covariance_type : {'full', 'diag', 'spherical'}

    Returns
    -------
    mean : ndarray of shape (n_features,)
    cov : ndarray of shape (n_features, n_features), ndarray of shape (n_features,), or float
        The full matrix, the diagonal, or the single variance :math:`\hat\sigma^2`
        (the layouts :func:`lib.gaussian.logpdf` accepts).

    Notes
    -----
    If the points lie in one affine hyperplane of :math:`\mathbb R^d` (for
    instance :math:`n \le d`, or a constant feature), the full estimate is
    singular: the likelihood is then unbounded and has no maximiser.  The
    function still returns the formula's value.  :func:`gaussian_log_likelihood`
    usually rejects it (its Cholesky factorisation fails), but rounding can
    leave such a matrix barely positive definite, and then the log-likelihood
    is a large, meaningless number; add a small ridge to the diagonal first.
    """
    if covariance_type not in ("full", "diag", "spherical"):
        raise ValueError(
            "covariance_type must be 'full', 'diag' or 'spherical' for a single Gaussian, "
            f"got {covariance_type!r} ('tied' only makes sense with several components)."
        )
    X = check_data(X, "X")
    n, d = X.shape
    mean = X.mean(axis=0)
    centred = X - mean  # (n, d)
    if covariance_type == "full":
        return mean, centred.T @ centred / n
    if covariance_type == "diag":
        return mean, np.mean(centred**2, axis=0)
    return mean, float(np.sum(centred**2) / (n * d))


def gaussian_log_likelihood(X, mean, cov):
    r"""Log-likelihood of a sample under one Gaussian.

    .. math::

        \ell(\mu, \Sigma) = \sum_{i=1}^n \ln \mathcal N(x_i \mid \mu, \Sigma)
          = -\frac n2 \bigl(d \ln 2\pi + \ln\det\Sigma\bigr)
            - \frac12 \sum_{i=1}^n (x_i - \mu)^\top \Sigma^{-1} (x_i - \mu).

    Computed with Cholesky factors by :func:`lib.gaussian.logpdf`.

    Book: chapters/02_3_gaussian_mle.md, eq. label ``mle-gauss-ll``.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
    mean : array-like of shape (n_features,)
    cov : array-like of shape (n_features, n_features), (n_features,) or float
        Full matrix, diagonal, or a single variance :math:`\sigma^2`.

    Returns
    -------
    float
    """
    X = check_data(X, "X")
    mean = check_data(mean, "mean", ndim=1)
    if X.shape[1] != mean.shape[0]:
        raise ValueError(f"X has {X.shape[1]} feature(s) but mean has {mean.shape[0]}; they must match.")
    return float(np.sum(gaussian.logpdf(X, mean, cov)))


# --------------------------------------------------- information theory --

def entropy(p, base=None):
    r"""Entropy of a discrete distribution.

    .. math::

        H(p) = -\sum_j p_j \ln p_j \qquad (0 \ln 0 = 0).

    Book: chapters/02_4_risk_kl_misspecification.md, eq. label ``mle-entropy``.

    Parameters
    ----------
    p : array-like of shape (V,)
        Probabilities summing to 1.
    base : float, optional
        Logarithm base (2 for bits); natural log (nats) by default.

    Returns
    -------
    float
        :math:`0 \le H(p) \le \ln V`.
    """
    p = check_probability_vector(p, "p", atol=1e-6)
    return float(-np.sum(xlogy(p, p)) / _log_base(base))


def kl_divergence(p, q, base=None):
    r"""Kullback-Leibler divergence between two discrete distributions.

    .. math::

        \mathrm{KL}(p \,\|\, q) = \sum_j p_j \ln \frac{p_j}{q_j},

    with :math:`0 \ln (0 / q) = 0` for every :math:`q \ge 0` and
    :math:`p \ln(p / 0) = +\infty` for :math:`p > 0`: the divergence is
    infinite when :math:`q` gives probability 0 to an outcome :math:`p` can
    produce.  It is :math:`\ge 0`, with equality iff :math:`p = q` (Gibbs'
    inequality), and is not symmetric.

    Book: chapters/02_4_risk_kl_misspecification.md, eq. label ``mle-kl``.

    Parameters
    ----------
    p, q : array-like of shape (V,)
        Probability vectors over the same V outcomes.
    base : float, optional
        Logarithm base; natural log by default.

    Returns
    -------
    float
        In :math:`[0, \infty]`.
    """
    p = check_probability_vector(p, "p", atol=1e-6)
    q = check_probability_vector(q, "q", atol=1e-6)
    if p.shape != q.shape:
        raise ValueError(f"p has {p.shape[0]} outcomes but q has {q.shape[0]}; they must be over the same outcomes.")
    # rel_entr(p, q) = p ln(p/q), 0 at p = 0 and +inf at p > 0 = q.
    return float(max(np.sum(rel_entr(p, q)), 0.0) / _log_base(base))


def gaussian_entropy(cov):
    r"""Differential entropy of a Gaussian :math:`\mathcal N(\mu, \Sigma)` (it does not depend on :math:`\mu`).

    .. math::

        H = \frac12 \ln\det(2\pi e\, \Sigma) = \frac d2 (1 + \ln 2\pi) + \frac12 \ln\det\Sigma,

    with :math:`\ln\det\Sigma = 2 \sum_j \ln L_{jj}` from the Cholesky factor
    :math:`\Sigma = LL^\top`.  Differential entropy can be negative (small
    variances).

    Book: chapters/02_4_risk_kl_misspecification.md, eq. label ``mle-gauss-entropy``.

    Parameters
    ----------
    cov : array-like of shape (d, d), (d,) or float
        A full covariance matrix, the diagonal of a diagonal one, or a single
        variance (then :math:`d = 1`).

    Returns
    -------
    float
        In nats.
    """
    arr = np.asarray(cov, dtype=np.float64)
    if arr.ndim > 2:
        raise ValueError(f"cov must be a matrix, a diagonal or a variance, got shape {arr.shape}.")
    d = 1 if arr.ndim == 0 else arr.shape[0]
    full = _cov_to_full(arr, d, "cov")
    L = _chol(full, "cov")
    log_det = 2.0 * np.sum(np.log(np.diag(L)))
    return float(0.5 * d * (1.0 + _LOG_2PI) + 0.5 * log_det)


def gaussian_kl(mean0, cov0, mean1, cov1):
    r"""KL divergence :math:`\mathrm{KL}(\mathcal N(\mu_0, \Sigma_0) \,\|\, \mathcal N(\mu_1, \Sigma_1))`.

    .. math::

        \mathrm{KL} = \frac12 \Bigl( \operatorname{tr}(\Sigma_1^{-1}\Sigma_0)
          + (\mu_1 - \mu_0)^\top \Sigma_1^{-1} (\mu_1 - \mu_0) - d
          + \ln\det\Sigma_1 - \ln\det\Sigma_0 \Bigr).

    With Cholesky factors :math:`\Sigma_0 = L_0 L_0^\top`,
    :math:`\Sigma_1 = L_1 L_1^\top`: the trace is
    :math:`\lVert L_1^{-1} L_0 \rVert_F^2`, the quadratic form is
    :math:`\lVert L_1^{-1} (\mu_1 - \mu_0) \rVert^2`, and the log-determinants
    are :math:`2\sum_j \ln (L)_{jj}` -- triangular solves only, no inverse.

    Book: chapters/02_4_risk_kl_misspecification.md, eq. label ``mle-gauss-kl``.

    Parameters
    ----------
    mean0, mean1 : array-like of shape (d,)
    cov0, cov1 : array-like of shape (d, d), (d,) or float
        Full matrices, diagonals or single (spherical) variances.

    Returns
    -------
    float
        :math:`\ge 0`, zero iff the two Gaussians are equal.
    """
    mean0 = check_data(mean0, "mean0", ndim=1)
    mean1 = check_data(mean1, "mean1", ndim=1)
    if mean0.shape != mean1.shape:
        raise ValueError(f"mean0 has {mean0.shape[0]} entries but mean1 has {mean1.shape[0]}; same dimension needed.")
    d = mean0.shape[0]
    L0 = _chol(_cov_to_full(cov0, d, "cov0"), "cov0")
    L1 = _chol(_cov_to_full(cov1, d, "cov1"), "cov1")
    M = solve_triangular(L1, L0, lower=True, check_finite=False)  # L1^{-1} L0
    z = solve_triangular(L1, mean1 - mean0, lower=True, check_finite=False)  # L1^{-1}(mu1 - mu0)
    log_det0 = 2.0 * np.sum(np.log(np.diag(L0)))
    log_det1 = 2.0 * np.sum(np.log(np.diag(L1)))
    kl = 0.5 * (np.sum(M**2) + np.sum(z**2) - d + log_det1 - log_det0)
    return float(max(kl, 0.0))  # rounding can give -1e-16 for equal Gaussians


# ------------------------------------------------ conjugate priors (MAP) --

def _check_beta_parameters(a, b):
    return check_positive_scalar(a, "a"), check_positive_scalar(b, "b")


def _check_concentration(alpha, name="alpha"):
    if isinstance(alpha, (bool, np.bool_)):
        raise TypeError(f"{name} must be a positive number or an array of positive numbers, got a boolean.")
    arr = check_data(alpha, name, ndim=1)
    if np.any(arr <= 0):
        raise ValueError(
            f"{name} must hold positive concentrations (> 0), got a minimum of {arr.min():.3g}; "
            "a Dirichlet prior needs every alpha_j > 0."
        )
    return arr


def beta_bernoulli_posterior(x, a=1.0, b=1.0):
    r"""Posterior of a Bernoulli parameter under a Beta prior (conjugacy).

    With the prior :math:`\theta \sim \mathrm{Beta}(a, b)` and a sample with
    :math:`n_1` ones and :math:`n_0` zeros,

    .. math::

        p(\theta \mid x_1, \dots, x_n) = \mathrm{Beta}(\theta \mid a + n_1,\; b + n_0):

    the prior parameters act as pseudo-counts of ones and zeros.

    Book: chapters/02_1_map_bayesian.md, eq. label ``mle-beta-posterior``.

    Parameters
    ----------
    x : array-like of shape (n_samples,)
        Outcomes coded 0 and 1 (may be empty).
    a, b : float, default 1
        Prior parameters, both > 0 (``a = b = 1`` is the uniform prior).

    Returns
    -------
    a_post, b_post : float
        The posterior's parameters :math:`(a + n_1, b + n_0)`.
    """
    a, b = _check_beta_parameters(a, b)
    arr = np.asarray(x)
    if arr.ndim == 1 and arr.shape[0] == 0:
        return a, b
    arr = _check_binary(x)
    n1 = float(arr.sum())
    return a + n1, b + (arr.shape[0] - n1)


def beta_mean(a, b):
    r"""Mean of :math:`\mathrm{Beta}(a, b)`: :math:`a / (a + b)`.

    Applied to the posterior :math:`(a + n_1, b + n_0)` it is the posterior
    mean :math:`(n_1 + a) / (n + a + b)`.

    Book: chapters/02_1_map_bayesian.md, eq. label ``mle-beta-mean``.
    """
    a, b = _check_beta_parameters(a, b)
    return a / (a + b)


def beta_mode(a, b):
    r"""Mode of :math:`\mathrm{Beta}(a, b)`, the maximiser of its density on :math:`[0, 1]`.

    .. math::

        \operatorname*{arg\,max}_\theta \mathrm{Beta}(\theta \mid a, b) = \frac{a - 1}{a + b - 2}
        \qquad (a, b \ge 1,\ a + b > 2).

    Applied to the posterior it is the MAP estimate
    :math:`(n_1 + a - 1) / (n + a + b - 2)`; with ``a = 1`` (or ``b = 1``) the
    maximum is at the endpoint 0 (or 1), which the formula also gives.

    Book: chapters/02_1_map_bayesian.md, eq. label ``mle-beta-mode``.

    Raises
    ------
    ValueError
        If ``a < 1`` or ``b < 1`` (the density is unbounded at an endpoint,
        so it has no maximum) or ``a = b = 1`` (the uniform density: every
        point is a maximiser).
    """
    a, b = _check_beta_parameters(a, b)
    if a < 1 or b < 1:
        raise ValueError(
            f"Beta({a:g}, {b:g}) has an unbounded density at 0 or 1, so it has no mode; "
            "the formula (a - 1) / (a + b - 2) needs a >= 1 and b >= 1."
        )
    if a == 1 and b == 1:
        raise ValueError("Beta(1, 1) is uniform on [0, 1]: every point is a mode, so there is no unique one.")
    return (a - 1.0) / (a + b - 2.0)


def beta_bernoulli_predictive(a, b):
    r"""Posterior predictive probability that the next outcome is a 1.

    .. math::

        p(x_{n+1} = 1 \mid x_1, \dots, x_n) = \int_0^1 \theta\, p(\theta \mid x_1, \dots, x_n)\, d\theta
        = \frac{a}{a + b},

    for the posterior :math:`\mathrm{Beta}(a, b)`: the posterior mean (pass
    the output of :func:`beta_bernoulli_posterior`).  With the uniform prior
    it is Laplace's rule of succession :math:`(n_1 + 1) / (n + 2)`.

    Book: chapters/02_1_map_bayesian.md, eq. label ``mle-beta-predictive``.
    """
    return beta_mean(a, b)


def dirichlet_categorical_posterior(counts, alpha=1.0):
    r"""Posterior of a categorical distribution under a Dirichlet prior (conjugacy).

    With the prior :math:`\theta \sim \mathrm{Dir}(\alpha_1, \dots, \alpha_V)`
    and counts :math:`n_j`,

    .. math::

        p(\theta \mid \text{data}) = \mathrm{Dir}(\theta \mid \alpha_1 + n_1, \dots, \alpha_V + n_V).

    Book: chapters/02_1_map_bayesian.md, eq. label ``mle-dirichlet-posterior``.

    Parameters
    ----------
    counts : array-like of shape (V,)
        Non-negative counts :math:`n_j` (use :func:`token_counts` for tokens).
    alpha : float or array-like of shape (V,), default 1
        Prior concentrations, all > 0; a single number is the symmetric
        prior :math:`\mathrm{Dir}(\alpha, \dots, \alpha)`.

    Returns
    -------
    ndarray of shape (V,)
        The posterior concentrations :math:`\alpha_j + n_j`.
    """
    counts = _check_counts(counts)
    if np.ndim(alpha) == 0:
        alpha = np.full(counts.shape[0], check_positive_scalar(alpha, "alpha"))
    alpha = _check_concentration(alpha)
    if alpha.shape != counts.shape:
        raise ValueError(f"alpha has {alpha.shape[0]} entries but counts has {counts.shape[0]}; they must match.")
    return alpha + counts


def dirichlet_mean(alpha):
    r"""Mean of :math:`\mathrm{Dir}(\alpha)`: :math:`\alpha_j / \sum_k \alpha_k`.

    For the posterior of a symmetric prior, :math:`(n_j + \alpha) / (N + \alpha V)`:
    additive smoothing (eq. ``mle-categorical-smoothed``).

    Book: chapters/02_1_map_bayesian.md, eq. label ``mle-dirichlet-mean``.
    """
    alpha = _check_concentration(alpha)
    return alpha / alpha.sum()


def dirichlet_mode(alpha):
    r"""Mode of :math:`\mathrm{Dir}(\alpha)`, the maximiser of its density on the simplex.

    .. math::

        \operatorname*{arg\,max}_\theta \mathrm{Dir}(\theta \mid \alpha)_j
        = \frac{\alpha_j - 1}{\sum_k \alpha_k - V}
        \qquad (\text{all } \alpha_j \ge 1,\ \text{not all } = 1).

    Applied to the posterior it is the MAP estimate
    :math:`(n_j + \alpha_j - 1) / (N + \sum_k \alpha_k - V)`.

    Book: chapters/02_1_map_bayesian.md, eq. label ``mle-dirichlet-mode``.

    Raises
    ------
    ValueError
        If some :math:`\alpha_j < 1` (the density is unbounded on a face of
        the simplex) or all :math:`\alpha_j = 1` (the uniform density).
    """
    alpha = _check_concentration(alpha)
    if np.any(alpha < 1):
        raise ValueError(
            "some alpha_j < 1: the Dirichlet density is unbounded near theta_j = 0, so it has no mode; "
            "the formula (alpha_j - 1) / (sum alpha - V) needs every alpha_j >= 1."
        )
    if np.all(alpha == 1):
        raise ValueError("Dir(1, ..., 1) is uniform on the simplex: every point is a mode.")
    return (alpha - 1.0) / (alpha.sum() - alpha.shape[0])


def dirichlet_categorical_predictive(alpha):
    r"""Posterior predictive distribution of the next outcome.

    .. math::

        p(x_{N+1} = j \mid \text{data}) = \mathbb E[\theta_j \mid \text{data}]
        = \frac{\alpha_j}{\sum_k \alpha_k}

    for the posterior :math:`\mathrm{Dir}(\alpha)` (pass the output of
    :func:`dirichlet_categorical_posterior`).

    Book: chapters/02_1_map_bayesian.md, eq. label ``mle-dirichlet-predictive``.
    """
    return dirichlet_mean(alpha)


def gaussian_log_prior(w, l2):
    r"""Log-density of the isotropic Gaussian prior :math:`w \sim \mathcal N(0, \lambda^{-1} I)`.

    .. math::

        \ln p(w) = \frac d2 \ln\frac{\lambda}{2\pi} - \frac\lambda2 \lVert w \rVert^2 :

    up to a constant that does not depend on :math:`w`, minus the
    :math:`\ell_2` penalty :math:`\tfrac\lambda2\lVert w\rVert^2`, so the
    penalised fit with ``l2 = lambda`` is the MAP estimate under this prior.

    Book: chapters/02_1_map_bayesian.md, eq. label ``mle-gauss-prior-l2``.

    Parameters
    ----------
    w : array-like of shape (d,)
    l2 : float
        The precision :math:`\lambda > 0` (``LogisticRegression(l2=...)``).

    Returns
    -------
    float
    """
    w = check_data(w, "w", ndim=1)
    lam = check_positive_scalar(l2, "l2")
    d = w.shape[0]
    return float(0.5 * d * np.log(lam / (2.0 * np.pi)) - 0.5 * lam * np.sum(w**2))
