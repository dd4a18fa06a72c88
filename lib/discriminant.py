r"""Gaussian discriminant analysis: QDA, LDA and Gaussian naive Bayes.

The generative model of the book's chapter 3 (notation of ``chapters/notation.md``):

.. math::

    y \sim \mathrm{Categorical}(\pi_1, \dots, \pi_K), \qquad
    x \mid y = k \sim \mathcal N(x \mid \mu_k, \Sigma_k).

Fitting is maximum likelihood with closed forms (:func:`fit_class_gaussians`);
prediction is Bayes' rule in log space (:func:`log_joint`,
:func:`log_posterior`).  The four covariance structures of
:mod:`lib.gaussian` give four classifiers:

=============  =====================================  ==========================
type           class covariances                      usual name
=============  =====================================  ==========================
``full``       one :math:`\Sigma_k` per class         QDA (quadratic boundaries)
``tied``       one :math:`\Sigma` shared by all        LDA (linear boundaries)
``diag``       :math:`\Sigma_k` diagonal               Gaussian naive Bayes
``spherical``  :math:`\Sigma_k = \sigma_k^2 I`         (nearest mean, scaled)
=============  =====================================  ==========================

Beyond the classifiers: :func:`discriminant_directions` gives Fisher's
discriminant directions (reduced-rank LDA), :func:`ledoit_wolf` and
:func:`shrunk_class_covariance` the shrinkage covariances behind the
estimator's ``shrinkage`` option, and :func:`log_posterior_observed` and
:func:`impute` classify and fill in data with missing entries (``NaN``).

Covariances are maximum-likelihood estimates, which divide by :math:`n_k`
(or by :math:`n` for the pooled ``tied`` matrix).  scikit-learn's
``QuadraticDiscriminantAnalysis`` divided by :math:`n_k - 1` in older
releases and divides by :math:`n_k` in recent ones;
``tests/test_discriminant.py`` detects which denominator the installed
version uses and checks the exact correspondence.

Book: chapters/03_gaussian_discriminant_analysis.md and its section pages
chapters/03_1_prediction.md to chapters/03_4_missing_features.md.
"""

import numbers
import warnings

import numpy as np
from scipy.linalg import cho_solve, cholesky, solve_triangular
from scipy.sparse import issparse
from scipy.special import logsumexp, ndtr
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.exceptions import DataConversionWarning
from sklearn.utils.validation import check_is_fitted

from . import _fastpath, gaussian
from ._validation import (
    check_covariance_type,
    check_data,
    check_n_features,
    check_labels,
    check_positive_int,
    check_positive_scalar,
    check_probability_vector,
    check_rng,
)

__all__ = [
    "fit_class_gaussians",
    "class_gaussians",
    "ledoit_wolf",
    "shrunk_class_covariance",
    "discriminant_directions",
    "log_posterior_observed",
    "impute",
    "log_joint",
    "log_posterior",
    "posterior",
    "logistic_parameters",
    "linear_rule_error",
    "n_parameters",
    "GaussianDiscriminantAnalysis",
]


# ------------------------------------------------------------------ helpers --


def _check_X(X, name="X"):
    """Validate a feature matrix; the messages follow scikit-learn's wording where it tests them."""
    if issparse(X):
        raise TypeError(
            f"{name} is a sparse matrix, and sparse input is not supported: a Gaussian class model "
            f"needs dense covariances anyway. Convert it with {name}.toarray()."
        )
    arr = X
    if not isinstance(X, (str, bytes)) and X is not None:
        try:
            arr = np.asarray(X)
        except Exception:  # ragged lists: let check_data word the message
            arr = X
    if isinstance(arr, np.ndarray):
        if arr.dtype.kind == "c":
            raise ValueError(
                f"Complex data not supported: {name} has dtype {arr.dtype}; pass real numbers "
                "(e.g. split real and imaginary parts into separate features)."
            )
        if arr.dtype.kind == "O":
            try:
                arr = arr.astype(np.float64)
            except (TypeError, ValueError) as exc:
                # keep numpy's own message: it names the offending value
                raise TypeError(
                    f"{name} must hold numbers only, but converting it to float failed ({exc}); "
                    "convert or drop the non-numeric columns first."
                ) from None
        if arr.ndim in (0, 1) and arr.dtype.kind in "biuf":
            raise ValueError(
                f"Expected a 2-D array for {name}, got a {arr.ndim}-D array of shape {arr.shape}. "
                f"Reshape your data with {name}.reshape(-1, 1) for a single feature or "
                f"{name}.reshape(1, -1) for a single sample."
            )
        if arr.ndim == 2 and arr.shape[1] == 0:
            raise ValueError(
                f"{name} has 0 feature(s) (shape={arr.shape}) while a minimum of 1 is required."
            )
        if arr.ndim == 2 and arr.shape[0] == 0:
            raise ValueError(
                f"{name} has 0 sample(s) (shape={arr.shape}) while a minimum of 1 is required."
            )
    return check_data(arr, name)


def _label(value):
    """A class label as the user wrote it (``2``, ``'setosa'``), not ``np.int64(2)``."""
    return repr(value.item() if isinstance(value, np.generic) else value)


def _check_y(y, n_samples):
    """Labels -> ``(classes, y_index)``, accepting a column vector with a warning like scikit-learn."""
    if y is None:
        raise ValueError(
            "GaussianDiscriminantAnalysis requires y to be passed, but the target y is None: "
            "fit(X, y) needs one class label per row of X."
        )
    arr = np.asarray(y)
    if isinstance(arr, np.ndarray) and arr.ndim == 2 and arr.shape[1] == 1:
        warnings.warn(
            "A column-vector y was passed when a 1d array was expected; it was flattened "
            "with np.ravel(y).",
            DataConversionWarning,
            stacklevel=3,
        )
        arr = arr.ravel()
    if isinstance(arr, np.ndarray) and arr.ndim == 1:
        if arr.dtype.kind == "f" and np.all(np.isfinite(arr)) and not np.all(arr == np.round(arr)):
            raise ValueError(
                "Unknown label type: y holds non-integer floats (continuous values), but class "
                "labels must be integers or strings. For a continuous target use a regression model."
            )
        if arr.dtype.kind == "O" and arr.size and all(isinstance(v, numbers.Real) for v in arr):
            # object arrays of numbers (e.g. y.astype(object)) are ambiguous: reject like sklearn
            raise ValueError(
                "Unknown label type: y is an object array of numbers; pass integer labels "
                "(y.astype(int)) or string labels (y.astype(str))."
            )
    classes, y_index = check_labels(arr, n_samples, "y", min_classes=1)
    if classes.shape[0] == 1:
        raise ValueError(
            f"y contains only 1 class ({_label(classes[0])}); a classifier needs at least two classes. "
            "Check that the training set holds examples of every class."
        )
    return classes, y_index


# ----------------------------------------------------------- the pure steps --


def fit_class_gaussians(X, y, covariance_type="full", reg_covar=0.0, shrinkage=None):
    r"""Maximum-likelihood class priors, means and covariances.

    With :math:`n_k` the number of samples of class :math:`k`,

    .. math::

        \hat\pi_k = \frac{n_k}{n}, \qquad
        \hat\mu_k = \frac{1}{n_k} \sum_{i:\,y_i = k} x_i, \qquad
        \hat\Sigma_k = \frac{1}{n_k} \sum_{i:\,y_i = k} (x_i - \hat\mu_k)(x_i - \hat\mu_k)^\top,

    and for ``tied`` the pooled within-class matrix
    :math:`\hat\Sigma = \frac1n \sum_i (x_i - \hat\mu_{y_i})(x_i - \hat\mu_{y_i})^\top
    = \sum_k \frac{n_k}{n}\hat\Sigma_k` (not the total covariance of ``X``).
    ``diag`` keeps the diagonal of :math:`\hat\Sigma_k`; ``spherical`` the
    average variance :math:`\hat\sigma_k^2 = \operatorname{tr}(\hat\Sigma_k)/d`.
    ``reg_covar`` is added to every variance afterwards.

    Book: chapters/03_gaussian_discriminant_analysis.md, eq. labels
    ``gda-mle-prior``, ``gda-mle-mean``, ``gda-mle-cov``, ``gda-mle-tied``.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
    y : array-like of shape (n_samples,)
        Class labels (integers or strings); classes are taken in sorted order.
    covariance_type : {'full', 'tied', 'diag', 'spherical'}
    reg_covar : float, default 0.0
        Non-negative ridge added to the diagonal of every covariance.
    shrinkage : None, 'ledoit-wolf' or float in [0, 1], default None
        For ``full`` and ``tied`` only: shrink each class covariance towards a
        multiple of the identity (:func:`shrunk_class_covariance`) before pooling.

    Returns
    -------
    priors : ndarray of shape (n_classes,)
    means : ndarray of shape (n_classes, n_features)
    covariances : ndarray
        ``(K, d, d)`` full, ``(d, d)`` tied, ``(K, d)`` diag, ``(K,)`` spherical.
    """
    X = _check_X(X)
    classes, y_index = _check_y(y, X.shape[0])  # y_index[i] in 0..K-1
    covariance_type = check_covariance_type(covariance_type)
    reg_covar = check_positive_scalar(reg_covar, "reg_covar", allow_zero=True)
    shrinkage = _check_shrinkage(shrinkage, covariance_type)
    return class_gaussians(_split_by_class(X, y_index, len(classes)), covariance_type, reg_covar, shrinkage)


def _split_by_class(X, y_index, n_classes):
    """The rows of each class, ``[X[y_index == k] for k in range(n_classes)]``, in one pass."""
    small = np.min_scalar_type(n_classes)  # uint8 for < 256 classes: numpy then radix-sorts, O(n)
    order = np.argsort(y_index.astype(small, copy=False), kind="stable")  # class 0's rows first, ...
    ends = np.cumsum(np.bincount(y_index, minlength=n_classes))[:-1]
    return np.split(X[order], ends)


def _check_shrinkage(shrinkage, covariance_type):
    """``None``, ``'ledoit-wolf'`` or a float in [0, 1]; only for full and tied covariances."""
    if shrinkage is None:
        return None
    if isinstance(shrinkage, str):
        if shrinkage != "ledoit-wolf":
            raise ValueError(f"shrinkage must be None, 'ledoit-wolf' or a float in [0, 1], got {shrinkage!r}.")
    else:
        shrinkage = check_positive_scalar(shrinkage, "shrinkage", allow_zero=True)
        if shrinkage > 1:
            raise ValueError(f"a numeric shrinkage must lie in [0, 1], got {shrinkage!r}.")
    if covariance_type not in ("full", "tied"):
        raise ValueError(
            f"shrinkage applies to full or tied covariances, not to covariance_type={covariance_type!r} "
            "(a diagonal or spherical estimate has no off-diagonal entries to shrink); use reg_covar there."
        )
    return shrinkage


def _check_members(members, covariance_type, reg_covar, shrinkage):
    """Validate the arguments of :func:`class_gaussians`."""
    if isinstance(members, np.ndarray) or not isinstance(members, (list, tuple)) or len(members) < 1:
        raise TypeError("members must be a list with one (n_k, d) array of rows per class.")
    members = [check_data(Xk, f"members[{k}]") for k, Xk in enumerate(members)]
    if len({Xk.shape[1] for Xk in members}) != 1:
        raise ValueError("every members[k] must have the same number of columns (features).")
    covariance_type = check_covariance_type(covariance_type)
    reg_covar = check_positive_scalar(reg_covar, "reg_covar", allow_zero=True)
    return members, covariance_type, reg_covar, _check_shrinkage(shrinkage, covariance_type)


def class_gaussians(members, covariance_type="full", reg_covar=0.0, shrinkage=None):
    r"""The estimates of :func:`fit_class_gaussians` from the rows of each class.

    ``members[k]`` holds the rows :math:`x_i` with :math:`y_i = k`, shape ``(n_k, d)``.
    Implements eq. labels ``gda-mle-prior``, ``gda-mle-mean``, ``gda-mle-cov`` and
    ``gda-mle-tied``; with ``shrinkage`` each class covariance is replaced by its
    shrunk version (:func:`shrunk_class_covariance`, eq. label ``gda-shrunk``).

    Book: chapters/03_gaussian_discriminant_analysis.md, eq. labels
    ``gda-mle-prior``, ``gda-mle-mean``, ``gda-mle-cov``, ``gda-mle-tied``.

    Returns
    -------
    priors : ndarray of shape (K,)
    means : ndarray of shape (K, d)
    covariances : ndarray in the layout of ``covariance_type``
    """
    members, covariance_type, reg_covar, shrinkage = _check_members(members, covariance_type, reg_covar, shrinkage)
    n_samples, n_features = sum(len(Xk) for Xk in members), members[0].shape[1]
    counts = np.array([len(Xk) for Xk in members], dtype=np.float64)  # n_k
    priors = counts / n_samples  # pi_k = n_k / n
    means = np.stack([Xk.mean(axis=0) for Xk in members])  # mu_k, (K, d)
    centred = [Xk - mu for Xk, mu in zip(members, means)]  # x_i - mu_k (two passes: accurate)
    if shrinkage is not None:  # full or tied: shrink each class's covariance
        covariances = np.stack([shrunk_class_covariance(D, shrinkage) for D in centred])
        if covariance_type == "tied":
            covariances = np.einsum("k,kij->ij", priors, covariances)  # sum_k (n_k / n) Sigma_k
        covariances += reg_covar * np.eye(n_features)
    elif covariance_type == "full":
        covariances = np.stack([D.T @ D / len(D) for D in centred])  # (K, d, d), divide by n_k
        covariances += reg_covar * np.eye(n_features)
    elif covariance_type == "tied":
        # pooled WITHIN-class scatter over all n samples = sum_k (n_k / n) Sigma_k
        covariances = sum(D.T @ D for D in centred) / n_samples  # (d, d)
        covariances += reg_covar * np.eye(n_features)
    elif covariance_type == "diag":
        covariances = np.stack([np.mean(D**2, axis=0) for D in centred]) + reg_covar  # (K, d)
    else:  # spherical: sigma_k^2 = tr(Sigma_k) / d
        covariances = np.array([np.mean(D**2) for D in centred]) + reg_covar  # (K,)
    return priors, means, covariances


def ledoit_wolf(X):
    r"""Ledoit-Wolf shrinkage covariance of the rows of ``X`` and its shrinkage intensity.

    With :math:`S = \frac1n \sum_i (x_i - \bar x)(x_i - \bar x)^\top` (the MLE),
    the average variance :math:`\bar\sigma^2 = \operatorname{tr}(S)/d` and the normalised Frobenius norm
    :math:`\lVert A \rVert^2 = \operatorname{tr}(A A^\top)/d`,

    .. math::

        \hat\zeta^2 = \lVert S - \bar\sigma^2 I \rVert^2, \qquad
        \widehat{\mathrm{MSE}} = \frac{1}{n^2} \sum_{i=1}^n \lVert (x_i - \bar x)(x_i - \bar x)^\top - S \rVert^2, \qquad
        \omega = \frac{\min(\widehat{\mathrm{MSE}}, \hat\zeta^2)}{\hat\zeta^2},

    and the estimate is :math:`(1 - \omega) S + \omega \bar\sigma^2 I` (:math:`\omega = 0` when
    :math:`\hat\zeta^2 = 0`).  :math:`\widehat{\mathrm{MSE}}` estimates the mean squared error
    :math:`\mathbb E \lVert S - \Sigma \rVert^2` of :math:`S`.  The same numbers as ``sklearn.covariance.ledoit_wolf``.

    Book: chapters/03_3_fisher_shrinkage.md, eq. labels ``gda-lw-alpha``, ``gda-shrunk``.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)

    Returns
    -------
    covariance : ndarray of shape (n_features, n_features)
    shrinkage : float
        The intensity :math:`\omega \in [0, 1]`.
    """
    X = check_data(X, "X")
    n, d = X.shape
    D = X - X.mean(axis=0)  # x_i - x_bar
    S = D.T @ D / n  # MLE covariance
    avg_var = np.trace(S) / d  # target scale: the average variance sigma_bar^2
    zeta2 = (np.sum(S**2) - 2 * avg_var * np.trace(S) + d * avg_var**2) / d  # ||S - avg_var I||^2
    # sum_i ||x_i x_i^T - S||_F^2 = sum_i ||x_i||^4 - n ||S||_F^2 (x_i centred)
    mse = (np.sum(np.sum(D**2, axis=1) ** 2) - n * np.sum(S**2)) / (n**2 * d)
    omega = 0.0 if zeta2 == 0 else min(mse, zeta2) / zeta2
    return (1 - omega) * S + omega * avg_var * np.eye(d), float(omega)


def shrunk_class_covariance(centred, shrinkage):
    r"""One class's covariance, shrunk towards a multiple of the identity.

    ``centred`` holds the rows :math:`x_i - \hat\mu_k` of class :math:`k`. A float
    ``shrinkage`` :math:`\omega` gives :math:`(1-\omega)\hat\Sigma_k + \omega\,
    \tfrac{\operatorname{tr}\hat\Sigma_k}{d} I`. ``'ledoit-wolf'`` applies
    :func:`ledoit_wolf` to the standardised rows (each feature divided by its
    standard deviation in the class; a constant feature keeps scale 1) and scales back,
    so the result does not depend on the features' units; this is what
    scikit-learn's ``LinearDiscriminantAnalysis(shrinkage='auto')`` does.

    Book: chapters/03_3_fisher_shrinkage.md, eq. label ``gda-shrunk``.
    """
    D = check_data(centred, "centred")
    n, d = D.shape
    if isinstance(shrinkage, str):  # 'ledoit-wolf'
        scale = np.sqrt(np.mean(D**2, axis=0))
        scale[scale == 0] = 1.0
        S, _ = ledoit_wolf(D / scale)
        return scale[:, None] * S * scale[None, :]
    S = D.T @ D / n
    return (1 - shrinkage) * S + shrinkage * (np.trace(S) / d) * np.eye(d)


def discriminant_directions(priors, means, covariance):
    r"""Fisher's discriminant directions: the generalised eigenvectors of :math:`(S_B, \Sigma)`.

    With the between-class scatter :math:`S_B = \sum_k \pi_k (\mu_k - \bar x)(\mu_k - \bar x)^\top`,
    :math:`\bar x = \sum_k \pi_k \mu_k`, and the within-class covariance :math:`\Sigma`,
    solves :math:`S_B f_j = J_j \Sigma f_j` through :math:`\Sigma = L L^\top`: the
    orthonormal eigenvectors :math:`h_j` of the symmetric :math:`L^{-1} S_B L^{-\top}` give
    :math:`f_j = L^{-\top} h_j`, normalised so that :math:`f_j^\top \Sigma f_l` is 1 for
    :math:`j = l` and 0 otherwise.  The eigenvalue :math:`J_j = J(f_j)` is the value of
    Fisher's criterion at :math:`f_j`.  The
    :math:`d' = \min(K - 1, d)` directions with the largest eigenvalues are returned in
    decreasing order of :math:`J_j`, each with the sign that makes its entry of
    largest magnitude positive.

    Book: chapters/03_3_fisher_shrinkage.md, eq. labels ``gda-fisher-criterion``, ``gda-fisher-eig``.

    Parameters
    ----------
    priors : array-like of shape (K,)
    means : array-like of shape (K, d)
    covariance : array-like of shape (d, d)
        The pooled within-class covariance :math:`\Sigma` (LDA's).

    Returns
    -------
    eigenvalues : ndarray of shape (d',)
    directions : ndarray of shape (d, d')
        The :math:`J_j` and the :math:`f_j` as columns, :math:`d' = \min(K - 1, d)`.
    """
    priors = check_probability_vector(priors, "priors", allow_zero=False)
    means = check_data(means, "means")
    K, d = means.shape
    if priors.shape[0] != K:
        raise ValueError(f"priors has {priors.shape[0]} entries but means has {K} rows; give one of each per class.")
    cov = gaussian.check_covariances(covariance, "tied", K, d, name="covariance")
    L = gaussian.cholesky_factors(cov, "tied")  # Sigma = L L^T
    centred = means - priors @ means  # mu_k - x_bar, (K, d)
    between = (centred * priors[:, None]).T @ centred  # S_B, (d, d)
    B = solve_triangular(L, solve_triangular(L, between, lower=True).T, lower=True)  # L^{-1} S_B L^{-T}
    eigenvalues, H = np.linalg.eigh(0.5 * (B + B.T))  # J_j and the h_j as columns
    order = np.argsort(eigenvalues)[::-1][: min(K - 1, d)]
    F = solve_triangular(L, H[:, order], lower=True, trans="T")  # f_j = L^{-T} h_j
    signs = np.sign(F[np.argmax(np.abs(F), axis=0), np.arange(F.shape[1])])
    return np.clip(eigenvalues[order], 0.0, None), F * signs


def _full_model(priors, means, covariances, covariance_type):
    priors = check_probability_vector(priors, "priors", allow_zero=False)
    means = check_data(means, "means")
    K, d = means.shape
    if priors.shape[0] != K:
        raise ValueError(f"priors has {priors.shape[0]} entries but means has {K} rows; give one of each per class.")
    covariance_type = check_covariance_type(covariance_type)
    full = gaussian.full_covariances(covariances, covariance_type, K, d)
    return priors, means, full


def _check_X_missing(X, d):
    try:
        X = np.asarray(X, dtype=np.float64)
    except (TypeError, ValueError):
        raise TypeError("X must be a numeric array; mark missing entries with np.nan.") from None
    if X.ndim != 2 or X.shape[1] != d:
        raise ValueError(f"X must have shape (n_samples, {d}), got {X.shape}; mark missing entries with np.nan.")
    if np.any(np.isinf(X)):
        raise ValueError("X contains infinite values; only np.nan (missing) is allowed besides finite numbers.")
    return X


def _missing_patterns(X):
    """Yield ``(rows, observed_mask)`` for every distinct pattern of missing entries."""
    observed = ~np.isnan(X)
    patterns, inverse = np.unique(observed, axis=0, return_inverse=True)
    for p, pattern in enumerate(patterns):
        yield np.flatnonzero(inverse.ravel() == p), pattern


def log_posterior_observed(X, priors, means, covariances, covariance_type="full"):
    r"""Log posteriors :math:`\ln p(y = k \mid x_o)` with the missing entries (NaN) integrated out.

    A Gaussian's marginal keeps the observed entries of :math:`\mu_k` and the observed rows
    and columns of :math:`\Sigma_k`, so row :math:`i` uses
    :math:`\ln \pi_k + \ln \mathcal N(x_{i,o} \mid \mu_{k,o}, \Sigma_{k,oo})` normalised
    over :math:`k` (chapter 1, eq. label ``dvg-marginal-obs``).  A row with every entry
    missing gets the priors.

    Book: chapters/03_4_missing_features.md, eq. label ``gda-missing-posterior``.

    Returns
    -------
    ndarray of shape (n_samples, n_classes)
    """
    priors, means, full = _full_model(priors, means, covariances, covariance_type)
    X = _check_X_missing(X, means.shape[1])
    out = np.empty((X.shape[0], len(priors)))
    for rows, o in _missing_patterns(X):
        joint = np.log(priors) + (
            gaussian.log_prob(X[np.ix_(rows, o)], means[:, o], full[:, o][:, :, o], "full")
            if o.any() else np.zeros((len(rows), len(priors)))  # nothing observed: the priors
        )
        out[rows] = joint - logsumexp(joint, axis=1, keepdims=True)
    return out


def impute(X, priors, means, covariances, covariance_type="full", y=None):
    r"""Fill the missing entries (NaN) of ``X`` with conditional means of the class Gaussians.

    Given a class, :math:`\mathbb E[x_m \mid x_o, y = k] = \mu_{k,m} + \Sigma_{k,mo}
    \Sigma_{k,oo}^{-1}(x_o - \mu_{k,o})` (:func:`lib.gaussian.conditional_gaussian`).
    With ``y`` given, row :math:`i` uses class ``y[i]`` (an index ``0..K-1``); without it the
    class is averaged out with the posterior of the observed part,

    .. math::

        \mathbb E[x_m \mid x_o] = \sum_k p(y = k \mid x_o)\, \mathbb E[x_m \mid x_o, y = k].

    Book: chapters/03_4_missing_features.md, eq. labels ``gda-cond-mean``, ``gda-impute-mix``.

    Returns
    -------
    ndarray of shape (n_samples, n_features)
        ``X`` with its NaN entries replaced; the observed entries are unchanged.
    """
    priors, means, full = _full_model(priors, means, covariances, covariance_type)
    K, d = means.shape
    X = _check_X_missing(X, d)
    if y is not None:
        y = np.asarray(y)
        if y.shape != (X.shape[0],) or y.dtype.kind not in "iu" or y.min() < 0 or y.max() >= K:
            raise ValueError(f"y must hold one class index in 0..{K - 1} per row of X.")
        weights = np.eye(K)[y]  # (n, K): all weight on the given class
    else:
        weights = np.exp(log_posterior_observed(X, priors, means, full, "full"))  # p(y = k | x_o)
    out = X.copy()
    for rows, o in _missing_patterns(X):
        if o.all():
            continue
        filled = np.zeros((len(rows), int((~o).sum())))
        for k in range(K):
            cond_mean, _ = gaussian.conditional_gaussian(means[k], full[k], o, X[np.ix_(rows, o)])
            filled += weights[rows, k : k + 1] * cond_mean
        out[np.ix_(rows, ~o)] = filled
    return out


def log_joint(X, priors, means, covariances, covariance_type="full"):
    r"""Log joint densities :math:`\ln p(x_i, y = k) = \ln \pi_k + \ln \mathcal N(x_i \mid \mu_k, \Sigma_k)`.

    Book: chapters/03_gaussian_discriminant_analysis.md, eq. label ``gda-joint``.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
    priors : array-like of shape (n_classes,)
        Class probabilities :math:`\pi_k`, strictly positive and summing to one.
    means : array-like of shape (n_classes, n_features)
    covariances : array-like
        In the layout of ``covariance_type`` (see :mod:`lib.gaussian`).
    covariance_type : {'full', 'tied', 'diag', 'spherical'}

    Returns
    -------
    ndarray of shape (n_samples, n_classes)
    """
    priors = check_probability_vector(priors, "priors", allow_zero=False)
    means = check_data(means, "means")
    if means.shape[0] != priors.shape[0]:
        raise ValueError(
            f"priors has {priors.shape[0]} entries but means has {means.shape[0]} rows; "
            "give one prior and one mean per class."
        )
    if covariance_type == "tied":
        return np.log(priors) + _tied_log_prob(X, means, covariances)
    return np.log(priors) + gaussian.log_prob(X, means, covariances, covariance_type)


def _tied_log_prob(X, means, covariance):
    r""":func:`lib.gaussian.log_prob` for one shared covariance, with ONE triangular solve.

    With :math:`\Sigma = L L^\top`, :math:`L^{-1}(x - \mu_k) = L^{-1}x - L^{-1}\mu_k`: whiten
    the data and the means once, then subtract, instead of one solve per class.
    """
    X = check_data(X, "X")
    K, d = means.shape
    check_n_features(X, d)
    cov = np.asarray(covariance, dtype=np.float64)
    if cov.shape != (d, d) or not np.all(np.isfinite(cov)):
        raise ValueError(
            f"covariances for covariance_type='tied' must be one finite ({d}, {d}) matrix, got shape {cov.shape}."
        )
    L = gaussian.cholesky_factors(cov, "tied")  # Sigma = L L^T
    z = solve_triangular(L, X.T, lower=True, check_finite=False)  # (d, n): L^{-1} x_i
    m = solve_triangular(L, means.T, lower=True, check_finite=False)  # (d, K): L^{-1} mu_k
    log_det = 2.0 * np.sum(np.log(np.diag(L)))
    out = np.empty((X.shape[0], K))
    for k in range(K):
        out[:, k] = np.sum((z - m[:, k : k + 1]) ** 2, axis=0)  # Mahalanobis distances, (n,)
    return -0.5 * (d * np.log(2.0 * np.pi) + log_det + out)


def log_posterior(X, priors, means, covariances, covariance_type="full"):
    r"""Log posteriors :math:`\ln p(y = k \mid x_i)` by Bayes' rule in log space.

    .. math::

        \ln p(y = k \mid x) = \ln p(x, y = k) - \ln \sum_{l=1}^K \exp \ln p(x, y = l),

    where the second term, :math:`\ln p(x)`, is computed with ``logsumexp`` so
    that points far from every mean (all joint densities underflow to 0 in
    floating point) still get valid probabilities.

    Book: chapters/03_1_prediction.md, eq. label ``gda-bayes-log``.

    Returns
    -------
    ndarray of shape (n_samples, n_classes)
        Each row is a log-probability vector (its exponentials sum to one).
    """
    joint = log_joint(X, priors, means, covariances, covariance_type)  # (n, K)
    return joint - logsumexp(joint, axis=1, keepdims=True)


def posterior(X, priors, means, covariances, covariance_type="full"):
    r"""Posterior class probabilities :math:`p(y = k \mid x_i)`, shape ``(n_samples, n_classes)``.

    The exponential of :func:`log_posterior`.

    Book: chapters/03_1_prediction.md, eq. label ``gda-bayes``.
    """
    return np.exp(log_posterior(X, priors, means, covariances, covariance_type))


def logistic_parameters(priors, means, covariance):
    r"""Weights and bias of the logistic posterior of two Gaussians with a shared covariance.

    For :math:`K = 2` classes labelled 0 and 1,
    :math:`p(y = 1 \mid x) = \sigma(w^\top x + b)` with

    .. math::

        w = \Sigma^{-1}(\mu_1 - \mu_0), \qquad
        b = -\tfrac12 \mu_1^\top \Sigma^{-1}\mu_1 + \tfrac12 \mu_0^\top \Sigma^{-1}\mu_0
            + \ln\frac{\pi_1}{\pi_0}.

    Computed as :math:`b = -\tfrac12 (\mu_1 + \mu_0)^\top w + \ln(\pi_1/\pi_0)`
    (the same number, since :math:`\Sigma^{-1}` is symmetric) with one
    Cholesky factorisation and no inverse.

    Book: chapters/03_2_lda_logistic.md, eq. labels ``gda-lda-w``, ``gda-lda-b``.

    Parameters
    ----------
    priors : array-like of shape (2,)
    means : array-like of shape (2, n_features)
    covariance : array-like of shape (n_features, n_features)
        The shared covariance :math:`\Sigma`.

    Returns
    -------
    w : ndarray of shape (n_features,)
    b : float
    """
    priors = check_probability_vector(priors, "priors", allow_zero=False)
    means = check_data(means, "means")
    if priors.shape[0] != 2 or means.shape[0] != 2:
        raise ValueError(
            f"logistic_parameters needs exactly 2 classes, got {priors.shape[0]} prior(s) and "
            f"{means.shape[0]} mean(s); with K > 2 classes the posterior is a softmax instead."
        )
    d = means.shape[1]
    cov = np.asarray(covariance, dtype=np.float64)
    if cov.shape != (d, d):
        raise ValueError(
            f"covariance must be one shared ({d}, {d}) matrix, got shape {cov.shape}; the posterior "
            "is logistic in a linear score only when both classes share their covariance."
        )
    factor = (gaussian.cholesky_factors(cov, "tied"), True)  # Sigma = L L^T
    w = cho_solve(factor, means[1] - means[0], check_finite=False)  # Sigma^{-1}(mu_1 - mu_0)
    b = -0.5 * float((means[1] + means[0]) @ w) + float(np.log(priors[1] / priors[0]))
    return w, b


def linear_rule_error(w, b, means, covariance, priors=(0.5, 0.5)):
    r"""Exact error of the rule "class 1 iff :math:`w^\top x + b > 0`" for two Gaussian classes.

    With :math:`x \mid y = k \sim \mathcal N(\mu_k, \Sigma_k)` the score
    :math:`w^\top x + b` is Gaussian with mean :math:`w^\top \mu_k + b` and variance
    :math:`w^\top \Sigma_k w`, so the error is a sum of two normal distribution functions:

    .. math::

        \pi_0\, \Phi\Bigl(\frac{w^\top \mu_0 + b}{\sqrt{w^\top \Sigma_0 w}}\Bigr)
        + \pi_1\, \Phi\Bigl(-\frac{w^\top \mu_1 + b}{\sqrt{w^\top \Sigma_1 w}}\Bigr).

    A class whose score has zero variance (``w = 0``, or ``w`` in the null space of a
    singular covariance) is classified by the sign of its constant score; a score of exactly
    0 counts as class 0, as the rule says.

    Book: chapters/01_3_generative_vs_discriminative.md, eq. label ``dvg-linear-error``.

    Parameters
    ----------
    w : array-like of shape (n_features,)
    b : float
    means : array-like of shape (2, n_features)
    covariance : array-like of shape (n_features, n_features) or (2, n_features, n_features)
        One covariance shared by both classes, or one per class (positive semidefinite).
    priors : array-like of shape (2,), default=(0.5, 0.5)

    Returns
    -------
    error : float
        The probability that a point drawn from the model is misclassified.
    """
    means = check_data(means, "means")
    if means.shape[0] != 2:
        raise ValueError(f"linear_rule_error needs the means of exactly 2 classes, got {means.shape[0]}.")
    d = means.shape[1]
    w = np.asarray(w, dtype=np.float64)
    if w.shape != (d,) or not np.all(np.isfinite(w)):
        raise ValueError(f"w must be a finite vector of shape ({d},), matching the means; got shape {w.shape}.")
    if not isinstance(b, numbers.Real) and not (isinstance(b, np.ndarray) and b.size == 1):
        raise TypeError(f"b must be a real number, got {type(b).__name__}.")
    b = float(np.asarray(b).reshape(()))
    if not np.isfinite(b):
        raise ValueError(f"b must be finite, got {b}.")
    cov = np.asarray(covariance, dtype=np.float64)
    if cov.shape == (d, d):
        cov = np.stack([cov, cov])
    if cov.shape != (2, d, d) or not np.all(np.isfinite(cov)):
        raise ValueError(
            f"covariance must be a finite ({d}, {d}) matrix or a stack of two, shape (2, {d}, {d}); "
            f"got shape {np.shape(covariance)}."
        )
    priors = check_probability_vector(priors, "priors")
    if priors.shape[0] != 2:
        raise ValueError(f"priors must have 2 entries, got {priors.shape[0]}.")
    centre = means @ w + b  # mean score of each class, (2,)
    variance = np.einsum("i,kij,j->k", w, cov, w)
    if np.any(variance < -1e-12 * max(1.0, float(np.abs(cov).max()) * float(w @ w))):
        raise ValueError("covariance must be positive semidefinite: w^T Sigma_k w came out negative.")
    sd = np.sqrt(np.clip(variance, 0.0, None))
    wrong = np.empty(2)
    for k, sign in ((0, 1.0), (1, -1.0)):  # class 0 is wrong when the score > 0, class 1 when <= 0
        if sd[k] > 0:
            wrong[k] = ndtr(sign * centre[k] / sd[k])
        else:
            wrong[k] = float(centre[k] > 0) if k == 0 else float(centre[k] <= 0)
    return float(priors @ wrong)


def n_parameters(n_features, n_classes, covariance_type="full"):
    r"""Number of free parameters of a Gaussian discriminant model.

    :math:`K - 1` priors, :math:`Kd` mean entries, and
    :math:`K d(d+1)/2` (full), :math:`d(d+1)/2` (tied), :math:`Kd` (diag) or
    :math:`K` (spherical) covariance entries.

    Book: chapters/03_1_prediction.md, eq. label ``gda-n-params``.
    """
    d = check_positive_int(n_features, "n_features")
    K = check_positive_int(n_classes, "n_classes")
    covariance_type = check_covariance_type(covariance_type)
    cov = {
        "full": K * d * (d + 1) // 2,
        "tied": d * (d + 1) // 2,
        "diag": K * d,
        "spherical": K,
    }[covariance_type]
    return (K - 1) + K * d + cov


# ---------------------------------------------------------------- estimator --


class GaussianDiscriminantAnalysis(ClassifierMixin, BaseEstimator):
    r"""Gaussian discriminant analysis: class priors times Gaussian class conditionals.

    ``covariance_type="full"`` is QDA, ``"tied"`` is LDA (one pooled
    within-class covariance), ``"diag"`` is Gaussian naive Bayes and
    ``"spherical"`` uses one variance per class.  Parameters are
    maximum-likelihood estimates (:func:`fit_class_gaussians`); predictions use
    Bayes' rule in log space (:func:`log_posterior`).

    Book: chapters/03_gaussian_discriminant_analysis.md.

    Parameters
    ----------
    covariance_type : {'full', 'tied', 'diag', 'spherical'}, default 'full'
    reg_covar : float, default 0.0
        Non-negative value added to the diagonal of every covariance after
        the MLE; a small value (e.g. ``1e-6``) keeps the covariances
        invertible when a class has few samples or a constant feature.
    priors : array-like of shape (n_classes,) or None, default None
        Fixed class probabilities :math:`\pi_k` (strictly positive, summing to
        one, in the order of ``classes_``).  ``None`` uses the MLE
        :math:`n_k / n`.  The covariances are MLEs either way.
    shrinkage : None, 'ledoit-wolf' or float in [0, 1], default None
        For ``full`` and ``tied``: replace each class's MLE covariance by a
        shrunk one (:func:`shrunk_class_covariance`); ``'ledoit-wolf'`` picks the
        intensity from the data (:func:`ledoit_wolf`).  With ``"tied"`` and
        ``'ledoit-wolf'`` the covariance and the predictions are those of
        scikit-learn's ``LinearDiscriminantAnalysis(solver='lsqr', shrinkage='auto')``.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
        Sorted distinct labels; column ``k`` of ``predict_proba`` is ``classes_[k]``.
    priors_ : ndarray of shape (n_classes,)
    means_ : ndarray of shape (n_classes, n_features)
    covariances_ : ndarray
        ``(K, d, d)`` full, ``(d, d)`` tied, ``(K, d)`` diag, ``(K,)`` spherical.
    class_counts_ : ndarray of shape (n_classes,)
        :math:`n_k`, the number of training samples of each class.
    n_features_in_ : int
    """

    def __init__(self, covariance_type="full", reg_covar=0.0, priors=None, shrinkage=None):
        self.covariance_type = covariance_type
        self.reg_covar = reg_covar
        self.priors = priors
        self.shrinkage = shrinkage

    # -- fitting ---------------------------------------------------------

    def fit(self, X, y):
        """Estimate priors, means and covariances by maximum likelihood; return ``self``."""
        covariance_type = check_covariance_type(self.covariance_type)
        reg_covar = check_positive_scalar(self.reg_covar, "reg_covar", allow_zero=True)
        shrinkage = _check_shrinkage(self.shrinkage, covariance_type)
        X = _check_X(X)
        classes, y_index = _check_y(y, X.shape[0])
        n_classes = classes.shape[0]
        members = _split_by_class(X, y_index, n_classes)  # the rows of each class
        priors, means, covariances = class_gaussians(members, covariance_type, reg_covar, shrinkage)
        counts = np.bincount(y_index, minlength=n_classes)
        if self.priors is not None:
            priors = check_probability_vector(self.priors, "priors", allow_zero=False)
            if priors.shape[0] != n_classes:
                raise ValueError(
                    f"priors has {priors.shape[0]} entries but y has {n_classes} classes "
                    f"{[c.item() if isinstance(c, np.generic) else c for c in classes]}; "
                    "give one prior per class, in sorted class order."
                )
        self._check_invertible(members, classes, counts, covariances, covariance_type, reg_covar, shrinkage)
        self.classes_ = classes
        self.priors_ = priors
        self.means_ = means
        self.covariances_ = covariances
        self.class_counts_ = counts
        self.n_features_in_ = X.shape[1]
        return self

    @staticmethod
    def _check_invertible(members, classes, counts, covariances, covariance_type, reg_covar, shrinkage=None):
        """Raise a ValueError naming the cause when a covariance is singular."""
        n_features = members[0].shape[1]
        if reg_covar == 0.0 and shrinkage is None:
            constant = np.stack([np.ptp(Xk, axis=0) == 0 for Xk in members])
            # (K, d): feature j takes one value within class k
            fix = "set reg_covar to a small positive value (e.g. reg_covar=1e-6)"
            if covariance_type == "full":
                for k, n_k in enumerate(counts):
                    if n_k <= n_features:
                        alt = (
                            'covariance_type="tied" (pools the classes)'
                            if n_k < 2
                            else 'covariance_type="diag" or "tied"'
                        )
                        raise ValueError(
                            f"class {_label(classes[k])} has {n_k} training sample(s) in {n_features} "
                            f"dimension(s): its full MLE covariance has rank at most {n_k - 1} "
                            f"< {n_features}, so it is singular. Either {fix}, or use {alt}, "
                            "which needs fewer samples per class."
                        )
            if covariance_type in ("diag", "spherical"):
                for k, n_k in enumerate(counts):
                    if n_k < 2:
                        raise ValueError(
                            f"class {_label(classes[k])} has only 1 training sample, so its MLE variances "
                            f'are 0 and its covariance is singular. Either {fix}, or use covariance_type="tied", '
                            "which pools the classes."
                        )
            if covariance_type == "tied":
                bad = np.flatnonzero(constant.all(axis=0))
            elif covariance_type == "spherical":
                bad = np.array([], dtype=int)
                for k in range(len(classes)):
                    if constant[k].all():
                        raise ValueError(
                            f"all training samples of class {_label(classes[k])} are identical, so its "
                            f"variance is 0 and its covariance is singular; {fix}."
                        )
            else:  # full, diag
                bad = np.flatnonzero(constant.any(axis=0))
            if bad.size:
                j = int(bad[0])
                where = (
                    "in every class"
                    if covariance_type == "tied"
                    else f"within class {_label(classes[int(np.flatnonzero(constant[:, j])[0])])}"
                )
                raise ValueError(
                    f"feature {j} has zero variance {where}, so the MLE covariance is singular. "
                    f"Drop constant features, or {fix}."
                )
        try:
            gaussian.cholesky_factors(covariances, covariance_type)
        except ValueError:
            raise ValueError(
                "an estimated class covariance is not positive definite (features are collinear "
                "within a class, or a class has too few distinct points). Remove redundant "
                'features, set reg_covar to a small positive value, or use covariance_type="diag".'
            ) from None

    # -- prediction --------------------------------------------------------

    def _check_predict_X(self, X):
        check_is_fitted(self, ["means_", "covariances_"])
        X = _check_X(X)
        if X.shape[1] != self.n_features_in_:
            raise ValueError(
                f"X has {X.shape[1]} features, but GaussianDiscriminantAnalysis is expecting "
                f"{self.n_features_in_} features as input (the number it was fitted on)."
            )
        return X

    def _joint(self, X):
        """:func:`log_joint` of the fitted model, shape (n_samples, n_classes).

        Computed by the fast path that :class:`lib.mixture.GaussianMixture`
        uses (``lib/_fastpath.py``: one matrix product per block of rows, data
        centred at the model's mean); the tests hold it against :func:`log_joint`.
        """
        X = self._check_predict_X(X)
        return _fastpath.log_joint(X, self.priors_, self.means_, self.covariances_,
                                   self.covariance_type, shift=self.priors_ @ self.means_)

    def predict_log_proba(self, X):
        r"""Log posteriors :math:`\ln p(y = k \mid x_i)`, shape ``(n_samples, n_classes)``."""
        joint = self._joint(X)  # (n, K): ln pi_k + ln N(x_i | mu_k, Sigma_k)
        return joint - _fastpath.log_normaliser(joint)[:, None]  # minus ln p(x_i)

    def predict_proba(self, X):
        r"""Posterior class probabilities :math:`p(y = k \mid x_i)`, shape ``(n_samples, n_classes)``."""
        post = self._joint(X)
        _fastpath.normalise_rows(post)  # in place, one exponential per entry
        return post

    def predict(self, X):
        """Most probable class ``classes_[argmax_k ln p(x_i, y = k)]`` (``p(x)`` is not needed)."""
        joint = self._joint(X)  # (n, K)
        return self.classes_[np.argmax(joint, axis=1)]

    def decision_function(self, X):
        r"""Log joint densities, or the log posterior odds for two classes.

        Returns ``ln p(x_i, y = k)`` of shape ``(n_samples, n_classes)``; with
        two classes, ``ln p(y = classes_[1] | x) - ln p(y = classes_[0] | x)``
        of shape ``(n_samples,)`` (positive means ``classes_[1]``), which for
        ``covariance_type="tied"`` equals ``w @ x + b`` of
        :meth:`logistic_parameters`.
        """
        joint = self._joint(X)
        if joint.shape[1] == 2:
            return joint[:, 1] - joint[:, 0]
        return joint

    def score_samples(self, X):
        r"""Log marginal densities :math:`\ln p(x_i) = \ln \sum_k \pi_k \mathcal N(x_i \mid \mu_k, \Sigma_k)`.

        The model's density of the features alone: a Gaussian mixture.
        """
        return _fastpath.log_normaliser(self._joint(X))

    def logistic_parameters(self):
        r"""``(w, b)`` with :math:`p(y = \text{classes\_[1]} \mid x) = \sigma(w^\top x + b)`.

        Defined for two classes and ``covariance_type="tied"`` only; see
        :func:`logistic_parameters`.
        """
        check_is_fitted(self, ["means_", "covariances_"])
        if self.covariance_type != "tied":
            raise ValueError(
                f'logistic_parameters needs covariance_type="tied", got {self.covariance_type!r}: '
                "the posterior is a sigmoid of a LINEAR function of x only when the classes share "
                "one covariance (otherwise the log-odds are quadratic in x)."
            )
        if len(self.classes_) != 2:
            raise ValueError(
                f"logistic_parameters needs exactly 2 classes, the model has {len(self.classes_)}; "
                "with more classes the posterior is a softmax of linear scores."
            )
        return logistic_parameters(self.priors_, self.means_, self.covariances_)

    # -- generation --------------------------------------------------------

    def sample(self, n_samples=1, random_state=None):
        r"""Draw ``(X, y)`` from the fitted joint: :math:`y \sim \mathrm{Cat}(\pi)`, then :math:`x \sim \mathcal N(\mu_y, \Sigma_y)`.

        Parameters
        ----------
        n_samples : int, default 1
        random_state : None, int or numpy.random.Generator

        Returns
        -------
        X : ndarray of shape (n_samples, n_features)
        y : ndarray of shape (n_samples,)
            Labels drawn from ``classes_``.
        """
        check_is_fitted(self, ["means_", "covariances_"])
        n_samples = check_positive_int(n_samples, "n_samples")
        rng = check_rng(random_state)
        n_classes, n_features = self.means_.shape
        y_index = rng.choice(n_classes, size=n_samples, p=self.priors_)  # y_i ~ Cat(pi)
        full = gaussian.full_covariances(self.covariances_, self.covariance_type, n_classes, n_features)
        chol = np.stack([cholesky(c, lower=True) for c in full])  # Sigma_k = L_k L_k^T
        z = rng.standard_normal((n_samples, n_features))  # z_i ~ N(0, I)
        X = self.means_[y_index] + np.einsum("nij,nj->ni", chol[y_index], z)  # mu_y + L_y z
        return X, self.classes_[y_index]
