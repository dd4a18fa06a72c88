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

Covariances are maximum-likelihood estimates, which divide by :math:`n_k`
(or by :math:`n` for the pooled ``tied`` matrix).  scikit-learn's
``QuadraticDiscriminantAnalysis`` divided by :math:`n_k - 1` in older
releases and divides by :math:`n_k` in recent ones;
``tests/test_discriminant.py`` detects which denominator the installed
version uses and checks the exact correspondence.

Book: chapters/03_gaussian_discriminant_analysis.md.
"""

import numbers
import warnings

import numpy as np
from scipy.linalg import cho_solve, cholesky, solve_triangular
from scipy.sparse import issparse
from scipy.special import logsumexp
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
    "log_joint",
    "log_posterior",
    "posterior",
    "logistic_parameters",
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


def fit_class_gaussians(X, y, covariance_type="full", reg_covar=0.0):
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
    return _class_gaussians(_split_by_class(X, y_index, len(classes)), covariance_type, reg_covar)


def _split_by_class(X, y_index, n_classes):
    """The rows of each class, ``[X[y_index == k] for k in range(n_classes)]``, in one pass."""
    small = np.min_scalar_type(n_classes)  # uint8 for < 256 classes: numpy then radix-sorts, O(n)
    order = np.argsort(y_index.astype(small, copy=False), kind="stable")  # class 0's rows first, ...
    ends = np.cumsum(np.bincount(y_index, minlength=n_classes))[:-1]
    return np.split(X[order], ends)


def _class_gaussians(members, covariance_type, reg_covar):
    """The estimates of :func:`fit_class_gaussians` (eq. labels ``gda-mle-prior`` to
    ``gda-mle-tied``) from ``members[k]``, the rows of class k; inputs already checked."""
    n_samples, n_features = sum(len(Xk) for Xk in members), members[0].shape[1]
    counts = np.array([len(Xk) for Xk in members], dtype=np.float64)  # n_k
    priors = counts / n_samples  # pi_k = n_k / n
    means = np.stack([Xk.mean(axis=0) for Xk in members])  # mu_k, (K, d)
    centred = [Xk - mu for Xk, mu in zip(members, means)]  # x_i - mu_k (two passes: accurate)
    if covariance_type == "full":
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

    Book: chapters/03_gaussian_discriminant_analysis.md, eq. label ``gda-bayes-log``.

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

    Book: chapters/03_gaussian_discriminant_analysis.md, eq. label ``gda-bayes``.
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

    Book: chapters/03_gaussian_discriminant_analysis.md, eq. labels ``gda-lda-w``, ``gda-lda-b``.

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


def n_parameters(n_features, n_classes, covariance_type="full"):
    r"""Number of free parameters of a Gaussian discriminant model.

    :math:`K - 1` priors, :math:`Kd` mean entries, and
    :math:`K d(d+1)/2` (full), :math:`d(d+1)/2` (tied), :math:`Kd` (diag) or
    :math:`K` (spherical) covariance entries.

    Book: chapters/03_gaussian_discriminant_analysis.md, eq. label ``gda-n-params``.
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

    def __init__(self, covariance_type="full", reg_covar=0.0, priors=None):
        self.covariance_type = covariance_type
        self.reg_covar = reg_covar
        self.priors = priors

    # -- fitting ---------------------------------------------------------

    def fit(self, X, y):
        """Estimate priors, means and covariances by maximum likelihood; return ``self``."""
        covariance_type = check_covariance_type(self.covariance_type)
        reg_covar = check_positive_scalar(self.reg_covar, "reg_covar", allow_zero=True)
        X = _check_X(X)
        classes, y_index = _check_y(y, X.shape[0])
        n_classes = classes.shape[0]
        members = _split_by_class(X, y_index, n_classes)  # the rows of each class
        priors, means, covariances = _class_gaussians(members, covariance_type, reg_covar)
        counts = np.bincount(y_index, minlength=n_classes)
        if self.priors is not None:
            priors = check_probability_vector(self.priors, "priors", allow_zero=False)
            if priors.shape[0] != n_classes:
                raise ValueError(
                    f"priors has {priors.shape[0]} entries but y has {n_classes} classes "
                    f"{[c.item() if isinstance(c, np.generic) else c for c in classes]}; "
                    "give one prior per class, in sorted class order."
                )
        self._check_invertible(members, classes, counts, covariances, covariance_type, reg_covar)
        self.classes_ = classes
        self.priors_ = priors
        self.means_ = means
        self.covariances_ = covariances
        self.class_counts_ = counts
        self.n_features_in_ = X.shape[1]
        return self

    @staticmethod
    def _check_invertible(members, classes, counts, covariances, covariance_type, reg_covar):
        """Raise a ValueError naming the cause when a covariance is singular."""
        n_features = members[0].shape[1]
        if reg_covar == 0.0:
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
