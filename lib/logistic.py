r"""Logistic regression, the discriminative classifier of chapter 1.

Binary logistic regression models the conditional distribution of a label
:math:`y \in \{0, 1\}` given features :math:`x \in \mathbb R^d` as

.. math::

    p(y = 1 \mid x; w, b) = \sigma(w^\top x + b),
    \qquad \sigma(t) = \frac{1}{1 + e^{-t}},

and is fitted by maximising the conditional log-likelihood

.. math::

    \ell(w, b) = \sum_{i=1}^n \bigl[ y_i \ln \sigma(t_i) + (1 - y_i) \ln \sigma(-t_i) \bigr],
    \qquad t_i = w^\top x_i + b,

whose gradient is :math:`\nabla_w \ell = X^\top (y - \sigma(Xw + b))` and
:math:`\partial \ell / \partial b = \sum_i (y_i - \sigma(t_i))`.  With
:math:`K > 2` classes the model is the softmax (multinomial) regression
:math:`p(y = k \mid x) = \exp(t_k) / \sum_j \exp(t_j)`, :math:`t_k = w_k^\top x + b_k`.

Nothing here ever computes ``log(sigmoid(t))`` or ``log(sum(exp(...)))``:
:math:`\ln \sigma(t) = -\ln(1 + e^{-t})` is evaluated with
:func:`scipy.special.log_expit` and the softmax normaliser with
:func:`scipy.special.logsumexp`, which stay finite for any :math:`|t|`.

Book: chapters/01_discriminative_vs_generative.md, eq. labels ``dvg-sigmoid``
and ``dvg-loglik``; chapters/01_1_fitting_logistic.md, eq. labels
``dvg-gradient``, ``dvg-hessian``, ``dvg-newton``; chapters/01_2_perceptron_probit.md,
eq. labels ``dvg-perceptron``, ``dvg-probit-loglik``, ``dvg-probit-gradient``.

The same file holds the perceptron, which learns a boundary and no
probabilities, and probit regression, :math:`p(y = 1 \mid x) = \Phi(w^\top x + b)`.
"""

import warnings

import numpy as np
from scipy.linalg import LinAlgError, cho_factor, cho_solve, eigh
from scipy.sparse import issparse
from scipy.special import expit, log_expit, log_ndtr, log_softmax, logsumexp, ndtr
from scipy.special import softmax as _softmax
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.exceptions import DataConversionWarning
from sklearn.utils.validation import check_is_fitted

from ._validation import (
    ConvergenceWarning,
    check_data,
    check_labels,
    check_positive_int,
    check_positive_scalar,
    check_rng,
)

__all__ = [
    "sigmoid",
    "log_sigmoid",
    "softmax",
    "log_likelihood",
    "gradient",
    "hessian",
    "sgd_epoch",
    "newton_step",
    "separation",
    "LogisticRegression",
    "perceptron_epoch",
    "Perceptron",
    "probit_log_likelihood",
    "probit_gradient",
    "probit_hessian",
    "ProbitRegression",
]

METHODS = ("newton", "gradient", "sgd")


# ---------------------------------------------------------------- functions --


def sigmoid(t):
    r"""The logistic function :math:`\sigma(t) = 1 / (1 + e^{-t})`, elementwise.

    Evaluated by :func:`scipy.special.expit`, a compiled loop that raises no
    NumPy overflow warning: for very negative :math:`t` the intermediate
    :math:`e^{-t}` may become ``inf``, and ``1 / (1 + inf)`` is the correct
    limit 0, so ``sigmoid(-1000)`` is ``0.0`` with no warning.  The relative
    accuracy is full down to :math:`t \approx -709.78`, where :math:`e^{-t}`
    overflows; below that the result is 0 instead of a subnormal number
    smaller than ``6e-309``.  Use :func:`log_sigmoid` when the logarithm is
    needed.

    Parameters
    ----------
    t : float or array-like

    Returns
    -------
    float or ndarray
        Same shape as ``t``, values in :math:`[0, 1]`.

    Book: chapters/01_discriminative_vs_generative.md, eq. label ``dvg-sigmoid``.
    """
    return expit(np.asarray(t, dtype=np.float64))


def log_sigmoid(t):
    r""":math:`\ln \sigma(t) = -\ln(1 + e^{-t})`, elementwise and without underflow.

    ``np.log(sigmoid(t))`` returns ``-inf`` for ``t`` below about ``-709.8``
    because :func:`sigmoid` returns 0 there, and ``np.log(1 - sigmoid(t))``
    returns ``-inf`` already from ``t = 37`` on, where ``sigmoid(t)``
    rounds to 1.  This function returns :math:`\approx t` in the first case;
    for the second use :math:`\ln(1 - \sigma(t)) = \ln \sigma(-t)`, that is
    ``log_sigmoid(-t)``.

    Book: chapters/01_discriminative_vs_generative.md, eq. label ``dvg-loglik``.
    """
    return log_expit(np.asarray(t, dtype=np.float64))


def softmax(T):
    r"""Row-wise softmax :math:`p_{ik} = e^{t_{ik}} / \sum_j e^{t_{ij}}` of an ``(n, K)`` array."""
    return _softmax(np.asarray(T, dtype=np.float64), axis=-1)


def _check_parameters(w, b, X, y=None):
    """Validate ``(w, b, X[, y])`` of the functional API; return arrays and ``K`` (0 = binary)."""
    X = check_data(X, "X")
    n, d = X.shape
    w = np.asarray(w, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    if w.ndim == 1:
        n_classes = 0
        if w.shape != (d,):
            raise ValueError(
                f"w must have one weight per feature, shape ({d},), got shape {w.shape}."
            )
        if b.size != 1:
            raise ValueError(f"for binary logistic regression b must be a single number, got shape {b.shape}.")
        b = b.reshape(())
    elif w.ndim == 2:
        n_classes = w.shape[0]
        if w.shape[1] != d or n_classes < 2:
            raise ValueError(
                f"w must have shape ({d},) (binary) or (n_classes, {d}) with n_classes >= 2 "
                f"(softmax), got shape {w.shape}."
            )
        if b.shape != (n_classes,):
            raise ValueError(f"b must have shape ({n_classes},), one intercept per class, got shape {b.shape}.")
    else:
        raise ValueError(f"w must be 1-D (binary) or 2-D (softmax), got shape {w.shape}.")
    if not (np.all(np.isfinite(w)) and np.all(np.isfinite(b))):
        raise ValueError("w and b must be finite; they contain NaN or infinity.")
    if y is None:
        return w, b, X, None, n_classes
    y = np.asarray(y)
    if y.shape != (n,):
        raise ValueError(f"y must have shape ({n},), one label per row of X, got shape {y.shape}.")
    top = 1 if n_classes == 0 else n_classes - 1
    if y.dtype.kind not in "biuf" or not np.all(np.isin(y, np.arange(top + 1))):
        what = "0 or 1" if n_classes == 0 else f"integers 0, ..., {top}"
        raise ValueError(
            f"y must hold the labels {what}; encode other labels first "
            "(LogisticRegression does that for you)."
        )
    return w, b, X, y.astype(np.int64), n_classes


def log_likelihood(w, b, X, y):
    r"""Conditional log-likelihood :math:`\ell(w, b) = \sum_i \ln p(y_i \mid x_i; w, b)`.

    Binary (``w`` of shape ``(d,)``, ``b`` a number, ``y`` in {0, 1}):

    .. math::

        \ell(w, b) = \sum_{i=1}^n \bigl[ y_i \ln \sigma(t_i) + (1 - y_i) \ln \sigma(-t_i) \bigr],
        \qquad t_i = w^\top x_i + b.

    Softmax (``w`` of shape ``(K, d)``, ``b`` of shape ``(K,)``, ``y`` in 0..K-1):
    :math:`\ell = \sum_i \bigl[t_{i y_i} - \ln \sum_k e^{t_{ik}}\bigr]`.

    Parameters
    ----------
    w : array-like of shape (n_features,) or (n_classes, n_features)
    b : float or array-like of shape (n_classes,)
    X : array-like of shape (n_samples, n_features)
    y : array-like of shape (n_samples,)

    Returns
    -------
    float
        The sum over samples (not the mean); always <= 0.

    Book: chapters/01_discriminative_vs_generative.md, eq. label ``dvg-loglik``.
    """
    w, b, X, y, n_classes = _check_parameters(w, b, X, y)
    if n_classes == 0:
        t = X @ w + b  # (n,)
        # ln sigma(-t) = ln(1 - sigma(t)), evaluated without forming 1 - sigma(t).
        return float(np.sum(np.where(y == 1, log_expit(t), log_expit(-t))))
    T = X @ w.T + b  # (n, K)
    return float(np.sum(T[np.arange(X.shape[0]), y] - logsumexp(T, axis=1)))


def gradient(w, b, X, y):
    r"""Gradient of :func:`log_likelihood` with respect to ``(w, b)``.

    Binary:

    .. math::

        \nabla_w \ell = X^\top \bigl(y - \sigma(Xw + b)\bigr), \qquad
        \frac{\partial \ell}{\partial b} = \sum_{i=1}^n \bigl(y_i - \sigma(t_i)\bigr).

    Softmax: :math:`\nabla_{w_k} \ell = \sum_i (\mathbb 1[y_i = k] - p_{ik})\, x_i`
    and :math:`\partial \ell / \partial b_k = \sum_i (\mathbb 1[y_i = k] - p_{ik})`.

    Returns
    -------
    grad_w : ndarray, same shape as ``w``
    grad_b : float or ndarray of shape (n_classes,)

    Book: chapters/01_1_fitting_logistic.md, eq. label ``dvg-gradient``.
    """
    w, b, X, y, n_classes = _check_parameters(w, b, X, y)
    if n_classes == 0:
        r = y - expit(X @ w + b)  # (n,) residuals y_i - p_i
        return X.T @ r, float(r.sum())
    R = np.eye(n_classes)[y] - _softmax(X @ w.T + b, axis=1)  # (n, K)
    return R.T @ X, R.sum(axis=0)


def hessian(w, b, X):
    r"""Hessian of :func:`log_likelihood` with respect to the stacked parameters.

    Binary: with :math:`\tilde X = [X, \mathbf 1]` (a column of ones appended)
    and :math:`s_i = \sigma(t_i)(1 - \sigma(t_i))`,

    .. math::

        \nabla^2 \ell = -\tilde X^\top \operatorname{diag}(s)\, \tilde X,

    a ``(d + 1, d + 1)`` matrix ordered as :math:`(w_1, \dots, w_d, b)`.  It does
    not depend on ``y`` and is negative semidefinite, so :math:`\ell` is concave.

    Softmax: the ``(K (d+1), K (d+1))`` matrix with blocks
    :math:`-\tilde X^\top \operatorname{diag}\bigl(p_{\cdot k}(\delta_{kl} - p_{\cdot l})\bigr) \tilde X`,
    parameters ordered class by class as :math:`(w_k, b_k)`.

    Book: chapters/01_1_fitting_logistic.md, eq. label ``dvg-hessian``.
    """
    w, b, X, _, n_classes = _check_parameters(w, b, X)
    Xt = np.column_stack([X, np.ones(X.shape[0])])  # (n, d+1)
    if n_classes == 0:
        t = X @ w + b
        s = expit(t) * expit(-t)  # sigma(t)(1 - sigma(t)) without cancellation
        return -(Xt.T * s) @ Xt
    P = _softmax(X @ w.T + b, axis=1)  # (n, K)
    return _softmax_hessian(P, Xt)


def sgd_epoch(w, b, X, y, lr, order=None):
    r"""One epoch of stochastic gradient ascent on the binary log-likelihood.

    Visits the samples in ``order`` and after *each* one moves the parameters
    along that sample's gradient:

    .. math::

        r_i = y_i - \sigma(w^\top x_i + b), \qquad
        w \leftarrow w + \eta\, r_i x_i, \qquad b \leftarrow b + \eta\, r_i .

    Parameters
    ----------
    w : array-like of shape (n_features,)
    b : float
    X : array-like of shape (n_samples, n_features)
    y : array-like of shape (n_samples,), values 0 or 1
    lr : float
        Step size :math:`\eta > 0`.
    order : array-like of int, optional
        The order in which to visit the samples (default ``0, ..., n-1``).

    Returns
    -------
    w : ndarray of shape (n_features,)
    b : float

    Book: chapters/01_1_fitting_logistic.md, eq. label ``dvg-sgd``.
    """
    w, b, X, y, n_classes = _check_parameters(w, b, X, y)
    if n_classes != 0:
        raise ValueError("sgd_epoch is for binary logistic regression: w must have shape (n_features,).")
    lr = check_positive_scalar(lr, "lr")
    order = np.arange(X.shape[0]) if order is None else np.asarray(order, dtype=np.int64)
    w, b = w.copy(), float(b)
    for i in order:
        r = y[i] - expit(X[i] @ w + b)  # this sample's residual, at the current parameters
        w += lr * r * X[i]
        b += lr * r
    return w, float(b)


def newton_step(w, b, X, y):
    r"""One full Newton step on the binary log-likelihood (one IRLS iteration).

    With :math:`\theta = (w, b)`, :math:`\tilde X = [X, \mathbf 1]`,
    :math:`p = \sigma(\tilde X \theta)` and :math:`S = \operatorname{diag}(p_i(1 - p_i))`,

    .. math::

        \theta_{\text{new}} = \theta + (\tilde X^\top S \tilde X)^{-1} \tilde X^\top (y - p),

    computed with a Cholesky solve, not an inverse.  No step halving: this is
    the textbook step (the estimator adds halving for safety).

    Returns
    -------
    w : ndarray of shape (n_features,)
    b : float

    Book: chapters/01_1_fitting_logistic.md, eq. label ``dvg-newton``.
    """
    w, b, X, y, n_classes = _check_parameters(w, b, X, y)
    if n_classes != 0:
        raise ValueError("newton_step is for binary logistic regression: w must have shape (n_features,).")
    gw, gb = gradient(w, b, X, y)
    delta = _newton_direction(np.append(gw, gb), hessian(w, b, X))  # solves (X~^T S X~) delta = X~^T (y - p)
    return w + delta[:-1], float(b + delta[-1])


def _softmax_hessian(P, Xt):
    n_classes, m = P.shape[1], Xt.shape[1]
    H = np.empty((n_classes, m, n_classes, m))
    for k in range(n_classes):
        for j in range(k, n_classes):
            c = P[:, k] * ((k == j) - P[:, j])  # (n,)
            H[k, :, j, :] = -(Xt.T * c) @ Xt
            H[j, :, k, :] = H[k, :, j, :].T
    return H.reshape(n_classes * m, n_classes * m)


# ---------------------------------------------------------------- estimator --


class _Problem:
    """The penalised objective in the coordinates the solvers move in.

    Parameters are a matrix ``theta`` of shape ``(m, d + 1)`` (last column: intercepts).
    Binary: ``m = 1`` and ``theta = [w, b]``.  Softmax with ``K`` classes: the
    full ``(K, d + 1)`` parameters are ``B @ theta`` with ``B`` a ``(K, K-1)``
    matrix of orthonormal columns orthogonal to the all-ones vector.  Adding the
    same vector to every class leaves the softmax unchanged, so the ``K``-class
    parameters are not identifiable; restricting them to the subspace
    :math:`\\sum_k (w_k, b_k) = 0` removes exactly that direction (it is where
    the penalised optimum lies anyway) and keeps the Hessian invertible.
    """

    def __init__(self, X, y_index, n_classes, l2):
        self.n, self.d = X.shape
        self.Xt = np.column_stack([X, np.ones(self.n)])  # (n, d+1)
        self.y = y_index
        self.K = n_classes
        self.l2 = l2
        self.mask = np.ones(self.d + 1)
        self.mask[-1] = 0.0  # the intercept is not penalised
        self.stop_when_separated = False
        if n_classes == 2:
            self.m = 1
            self.B = None
            self.Y = None
        else:
            self.m = n_classes - 1
            # Orthonormal basis of {v in R^K : sum(v) = 0}: QR of the centring matrix.
            centred = np.eye(n_classes) - 1.0 / n_classes
            q, _ = np.linalg.qr(centred[:, : n_classes - 1])
            self.B = q  # (K, K-1)
            self.Y = np.eye(n_classes)[y_index]  # (n, K) one-hot

    def full(self, theta):
        """Parameters of shape (1, d+1) (binary) or (K, d+1) (softmax)."""
        return theta if self.B is None else self.B @ theta

    def scores(self, theta, rows=slice(None)):
        return self.Xt[rows] @ self.full(theta).T  # (n, 1) or (n, K)

    def log_likelihood(self, theta):
        T = self.scores(theta)
        if self.B is None:
            t = T[:, 0]
            return float(np.sum(np.where(self.y == 1, log_expit(t), log_expit(-t))))
        return float(np.sum(T[np.arange(self.n), self.y] - logsumexp(T, axis=1)))

    def penalty(self, theta):
        return 0.5 * self.l2 * float(np.sum((theta * self.mask) ** 2))

    def objective(self, theta):
        return self.log_likelihood(theta) - self.penalty(theta)

    def residuals(self, theta, rows=slice(None)):
        """y - p for the selected rows: (n_rows, 1) binary, (n_rows, K) softmax."""
        T = self.scores(theta, rows)
        if self.B is None:
            return (self.y[rows] - expit(T[:, 0]))[:, None]
        return self.Y[rows] - _softmax(T, axis=1)

    def gradient(self, theta, rows=slice(None), penalty_scale=1.0):
        G = self.residuals(theta, rows).T @ self.Xt[rows]  # (1 or K, d+1)
        if self.B is not None:
            G = self.B.T @ G  # chain rule through full = B @ theta
        return G - penalty_scale * self.l2 * theta * self.mask

    def hessian(self, theta):
        size = self.m * (self.d + 1)
        T = self.scores(theta)
        if self.B is None:
            t = T[:, 0]
            s = expit(t) * expit(-t)
            H = -(self.Xt.T * s) @ self.Xt
        else:
            Hf = _softmax_hessian(_softmax(T, axis=1), self.Xt)
            M = np.kron(self.B, np.eye(self.d + 1))  # (K(d+1), (K-1)(d+1))
            H = M.T @ Hf @ M
        return H - self.l2 * np.diag(np.tile(self.mask, self.m)).reshape(size, size)

    def separates(self, theta):
        """True when every training point is strictly on its own class's side."""
        T = self.scores(theta)
        if self.B is None:
            return bool(np.all((2 * self.y - 1) * T[:, 0] > 0))
        own = T[np.arange(self.n), self.y]
        T_other = T.copy()
        T_other[np.arange(self.n), self.y] = -np.inf
        return bool(np.all(own > T_other.max(axis=1)))

    def curvature_bound(self):
        """Upper bound on the largest eigenvalue of -Hessian / n (Boehning's bound)."""
        c = 0.25 if self.B is None else 0.5
        lam = float(np.linalg.eigvalsh(self.Xt.T @ self.Xt)[-1])
        return c * lam / self.n + self.l2 / self.n


def separation(X, y):
    r"""Whether a hyperplane separates the classes, so that no maximum-likelihood estimate exists.

    For two classes, let :math:`s_i = 2 y_i - 1 \in \{-1, +1\}` and
    :math:`\tilde x_i = (x_i, 1)`.  The conditional log-likelihood has no
    maximiser exactly when some direction :math:`v \neq 0` has
    :math:`s_i \tilde x_i^\top v \ge 0` for every :math:`i`, with at least one
    strict inequality (Albert and Anderson, 1984): moving the parameters along
    :math:`v` never lowers any sample's likelihood and raises one, for ever.
    The linear programme

    .. math::

        \max_{v \in [-1, 1]^{d+1}} \sum_i s_i \tilde x_i^\top v
        \quad\text{subject to}\quad s_i \tilde x_i^\top v \ge 0 \ \forall i

    has optimum 0 exactly when no such direction exists.  With :math:`K > 2`
    classes the margins are :math:`\tilde x_i^\top (v_{y_i} - v_k)`, :math:`k \ne y_i`.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
    y : array-like of shape (n_samples,)
        Any labels (at least two classes).

    Returns
    -------
    {"complete", "quasi", None}
        ``"complete"``: a hyperplane puts every sample strictly on its own
        class's side; ``"quasi"``: some direction of the parameters raises the
        likelihood of some samples and lowers that of none (samples may lie on
        the boundary; with :math:`K > 2`, for example, one class is separable
        from the others); ``None``: the classes overlap and (with linearly
        independent features) the MLE exists and is unique.

    Notes
    -----
    One or two linear programmes (scipy's HiGHS) with :math:`n (K - 1)`
    constraints; fast for the data sets of the book, slower for thousands of
    samples and many classes.

    Book: chapters/01_1_fitting_logistic.md, proposition label
    ``prop-dvg-separable``.
    """
    from scipy.optimize import linprog

    X = check_data(X, "X")
    classes, y_index = check_labels(y, X.shape[0])
    n, d = X.shape
    Xt = np.column_stack([X, np.ones(n)])
    scale = np.max(np.abs(Xt), axis=0)
    Xt = Xt / np.where(scale > 0, scale, 1.0)  # separability is invariant to column scaling
    K = len(classes)
    if K == 2:
        A = (2.0 * y_index - 1.0)[:, None] * Xt  # (n, d+1): rows s_i x_i, margins A v
    else:
        rows = []
        for k in range(K):
            for j in range(K):
                if j == k:
                    continue
                sel = y_index == k
                block = np.zeros((int(sel.sum()), K, d + 1))
                block[:, k, :] = Xt[sel]
                block[:, j, :] = -Xt[sel]
                rows.append(block.reshape(-1, K * (d + 1)))
        A = np.vstack(rows)  # (n (K-1), K (d+1)): margins x_i^T (v_{y_i} - v_j)
    m = A.shape[1]
    # Sum of margins subject to margins >= 0: optimum > 0 iff some separation exists.
    res = linprog(-A.sum(axis=0), A_ub=-A, b_ub=np.zeros(A.shape[0]), bounds=[(-1, 1)] * m, method="highs")
    if res.status != 0 or -res.fun <= 1e-7 * A.shape[0]:
        return None
    # Largest smallest margin: positive iff every sample can be strictly separated.
    c = np.zeros(m + 1)
    c[-1] = -1.0
    A_ub = np.column_stack([-A, np.ones(A.shape[0])])  # t - margin_i <= 0
    res = linprog(c, A_ub=A_ub, b_ub=np.zeros(A.shape[0]), bounds=[(-1, 1)] * m + [(None, 1)], method="highs")
    return "complete" if res.status == 0 and -res.fun > 1e-7 else "quasi"


def _newton_direction(g, H):
    """Solve (-H) delta = g with a Cholesky factorisation; fall back to a pseudo-inverse."""
    try:
        factor = cho_factor(-H, lower=True, check_finite=False)
        return cho_solve(factor, g, check_finite=False)
    except LinAlgError:
        # -H is only semidefinite (collinear or constant features with l2 = 0):
        # take the minimum-norm step in the range of -H.
        vals, vecs = eigh(-H)
        keep = vals > vals.max() * 1e-12
        return vecs[:, keep] @ ((vecs[:, keep].T @ g) / vals[keep])


class LogisticRegression(ClassifierMixin, BaseEstimator):
    r"""Logistic (binary) or softmax (multiclass) regression by maximum conditional likelihood.

    Maximises the penalised conditional log-likelihood

    .. math::

        \ell_\lambda(w, b) = \ell(w, b) - \frac{\lambda}{2} \lVert w \rVert^2, \qquad \lambda = \texttt{l2},

    where :math:`\ell` is :func:`log_likelihood`.  The intercept is not
    penalised.  This is scikit-learn's ``LogisticRegression(C=1 / l2)``
    (``C=np.inf`` for ``l2=0``), so both give the same coefficients.

    Parameters
    ----------
    method : {"newton", "gradient", "sgd"}, default="newton"
        ``"newton"``: Newton's method (iteratively reweighted least squares),
        each step solving :math:`(-\nabla^2 \ell_\lambda)\,\delta = \nabla \ell_\lambda` for the step
        :math:`\delta` by a Cholesky factorisation, with step halving so that
        :math:`\ell_\lambda` never decreases.
        ``"gradient"``: full-batch gradient ascent
        :math:`\theta \leftarrow \theta + \eta\, \nabla \ell_\lambda(\theta) / n`.
        ``"sgd"``: stochastic gradient ascent, one sample at a time in a
        random order each epoch, with step :math:`\eta / \sqrt{1 + \text{epoch}}`.
    l2 : float, default=0.0
        Strength :math:`\lambda \ge 0` of the :math:`\ell_2` penalty.  The default 0
        is plain maximum likelihood, the estimator derived in the book.  If
        the training data are linearly separable, the maximum-likelihood
        estimate does not exist (the likelihood increases forever as
        :math:`\lVert w \rVert \to \infty`).  With ``l2=0``, ``fit``
        therefore first tests for (complete or partial) separation with
        :func:`separation`; if it finds one it issues a
        :class:`~sklearn.exceptions.ConvergenceWarning`, and under complete
        separation it stops as soon as its current parameters separate the
        data.  Use ``l2 > 0`` then.
    lr : float or "auto", default="auto"
        Step size :math:`\eta` of ``"gradient"`` and ``"sgd"`` (ignored by
        ``"newton"``).  Steps are taken on the *mean* log-likelihood, so
        :math:`\eta` does not depend on the number of samples.  ``"auto"``
        uses the inverse of a bound on the curvature (a quarter of the
        largest eigenvalue of :math:`\tilde X^\top \tilde X / n` for two classes,
        a half for more; for ``"sgd"`` the largest per-sample value), which
        makes full-batch gradient ascent increase :math:`\ell_\lambda` at every step.
    tol : float, default=1e-8
        Stop when the largest entry of :math:`|\nabla \ell_\lambda| / n` is at most ``tol``.
        Newton reaches 1e-8 in a handful of steps (it converges quadratically);
        gradient ascent may need thousands of steps, or more when the features
        are not standardised; SGD, whose steps are noisy, rarely gets there:
        pass a larger ``tol`` (say 1e-3) or a smaller ``max_iter`` and accept
        the warning.
    max_iter : int, default=1000
        Maximum number of Newton steps, gradient steps or SGD epochs.
    random_state : None, int or numpy.random.Generator, default=None
        Shuffles the samples of ``"sgd"``; unused otherwise.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    coef_ : ndarray of shape (1, n_features) for two classes, (n_classes, n_features) otherwise
        :math:`w` (binary: the weights of :math:`p(y = \text{classes\_}[1] \mid x)`).
        With more than two classes the rows of ``[coef_, intercept_]`` sum to
        zero: adding one vector to every class's parameters leaves the softmax
        unchanged, and this is the representative scikit-learn returns too.
    intercept_ : ndarray of shape (1,) or (n_classes,)
    n_features_in_ : int
    n_iter_ : int
        Number of parameter updates (Newton or gradient steps, SGD epochs).
    converged_ : bool
    log_likelihood_history_ : ndarray of shape (n_iter_ + 1,)
        :math:`\ell` at the starting point :math:`w = 0, b = 0` and after each update.
    objective_history_ : ndarray of shape (n_iter_ + 1,)
        :math:`\ell_\lambda = \ell - \tfrac{\lambda}{2}\lVert w\rVert^2` at the same points
        (equal to the log-likelihood when ``l2 = 0``).  Never decreases for
        ``"newton"`` and for ``"gradient"`` with ``lr="auto"``.

    Book: chapters/01_discriminative_vs_generative.md, eq. label ``dvg-loglik``;
    chapters/01_1_fitting_logistic.md, eq. labels ``dvg-gradient``, ``dvg-newton``.
    """

    def __init__(self, method="newton", l2=0.0, lr="auto", tol=1e-8, max_iter=1000, random_state=None):
        self.method = method
        self.l2 = l2
        self.lr = lr
        self.tol = tol
        self.max_iter = max_iter
        self.random_state = random_state

    # -- validation ---------------------------------------------------------

    def _check_hyperparameters(self):
        if not isinstance(self.method, str) or self.method not in METHODS:
            raise ValueError(f"method must be one of {METHODS}, got {self.method!r}.")
        l2 = check_positive_scalar(self.l2, "l2", allow_zero=True)
        if isinstance(self.lr, str):
            if self.lr != "auto":
                raise ValueError(f"lr must be a positive number or 'auto', got {self.lr!r}.")
            lr = "auto"
        else:
            lr = check_positive_scalar(self.lr, "lr")
        tol = check_positive_scalar(self.tol, "tol", allow_zero=True)
        max_iter = check_positive_int(self.max_iter, "max_iter")
        return l2, lr, tol, max_iter

    def _check_X(self, X, *, reset):
        if issparse(X):
            raise TypeError(
                "Sparse input is not supported: lib works with dense arrays; convert X with X.toarray()."
            )
        try:
            arr = np.asarray(X)
        except Exception:  # ragged lists etc.: let check_data explain
            arr = None
        if arr is not None and arr.dtype.kind == "c":
            raise ValueError("Complex data not supported: X must be real; take np.real or np.abs first.")
        if arr is not None and arr.dtype.kind == "O":
            try:
                arr = X = arr.astype(np.float64)
            except (TypeError, ValueError) as exc:  # numpy's message names the offending value
                raise TypeError(
                    f"X must hold numbers only, but converting it to float failed ({exc}); "
                    "convert or drop the non-numeric columns first."
                ) from None
        if arr is not None and arr.dtype.kind in "biuf":
            if arr.ndim == 1:
                raise ValueError(
                    f"X must be 2-dimensional, got a 1-D array of shape {arr.shape}. Reshape your data "
                    "with X.reshape(-1, 1) if it has a single feature or X.reshape(1, -1) if it is a single sample."
                )
            if arr.ndim == 2 and arr.shape[1] == 0:
                raise ValueError(
                    f"X has 0 feature(s) (shape={arr.shape}) while a minimum of 1 is required."
                )
        X = check_data(X, "X")
        if reset:
            self.n_features_in_ = X.shape[1]
        elif X.shape[1] != self.n_features_in_:
            raise ValueError(
                f"X has {X.shape[1]} features, but {type(self).__name__} is expecting "
                f"{self.n_features_in_} features as input."
            )
        return X

    # -- fitting ------------------------------------------------------------

    def fit(self, X, y):
        """Fit the model to ``X`` of shape ``(n_samples, n_features)`` and labels ``y``.

        Returns
        -------
        self
        """
        l2, lr, tol, max_iter = self._check_hyperparameters()
        X = self._check_X(X, reset=True)
        if y is None:
            raise ValueError(
                f"{type(self).__name__} requires y to be passed, but the target y is None: "
                "a classifier learns from labelled examples, fit(X, y)."
            )
        if X.shape[0] < 2:
            raise ValueError(
                f"X has n_samples = {X.shape[0]}; a classifier needs at least 2 samples, one per class."
            )
        y = np.asarray(y)
        if y.ndim == 2 and y.shape[1] == 1:
            warnings.warn(
                "A column-vector y was passed when a 1d array was expected; it was flattened with np.ravel(y).",
                DataConversionWarning,
                stacklevel=2,
            )
            y = y.ravel()
        self.classes_, y_index = check_labels(y, X.shape[0])
        problem = _Problem(X, y_index, len(self.classes_), l2)
        # With l2 = 0 the MLE exists only if the classes overlap: test that first (a small LP).
        separable = separation(X, y_index) if l2 == 0 else None
        problem.stop_when_separated = separable == "complete"
        theta = np.zeros((problem.m, problem.d + 1))
        solver = {"newton": self._fit_newton, "gradient": self._fit_gradient, "sgd": self._fit_sgd}[self.method]
        theta, ll, obj, converged = solver(problem, theta, lr, tol, max_iter)

        self.log_likelihood_history_ = np.asarray(ll)
        self.objective_history_ = np.asarray(obj)
        self.n_iter_ = len(ll) - 1
        self.converged_ = converged and separable is None
        full = problem.full(theta)
        self.coef_ = full[:, :-1].copy()
        self.intercept_ = full[:, -1].copy()
        if separable is not None:
            how = (
                "linearly separable (a hyperplane puts every sample strictly on its own class's side)"
                if separable == "complete"
                else "partly separable (some direction of the weights raises the likelihood of some "
                "samples and lowers that of none, e.g. one class is separable from the others)"
            )
            warnings.warn(
                f"the training data are {how}, so the maximum-likelihood estimate does not exist: "
                "the log-likelihood keeps increasing as the weights grow without bound. Fitting "
                f"stopped after {self.n_iter_} iteration(s); coef_ is not an MLE and its size is "
                "arbitrary. Set l2 > 0 for a unique penalised estimate.",
                ConvergenceWarning,
                stacklevel=2,
            )
        elif not converged:
            warnings.warn(
                f"{self.method} did not converge in max_iter={max_iter} iteration(s): the largest "
                f"entry of |gradient| / n_samples is still above tol={self.tol}. Increase max_iter, "
                "use method='newton', or standardise the features.",
                ConvergenceWarning,
                stacklevel=2,
            )
        return self

    @staticmethod
    def _converged(problem, g, tol):
        return float(np.max(np.abs(g))) / problem.n <= tol

    def _fit_newton(self, problem, theta, lr, tol, max_iter):
        obj = problem.objective(theta)
        lls, objs = [problem.log_likelihood(theta)], [obj]
        shape = theta.shape
        for _ in range(max_iter):
            g = problem.gradient(theta)
            if self._converged(problem, g, tol):
                return theta, lls, objs, True
            delta = _newton_direction(g.ravel(), problem.hessian(theta)).reshape(shape)
            # Step halving: a full Newton step can overshoot far from the optimum.
            step = 1.0
            while step > 1e-10:
                candidate = theta + step * delta
                new_obj = problem.objective(candidate)
                if new_obj >= obj:
                    break
                step *= 0.5
            else:  # no step improves l_lambda: we are at the optimum to machine precision
                return theta, lls, objs, True
            theta, obj = candidate, new_obj
            lls.append(problem.log_likelihood(theta))
            objs.append(obj)
            if problem.stop_when_separated and problem.separates(theta):
                return theta, lls, objs, False
        g = problem.gradient(theta)
        return theta, lls, objs, self._converged(problem, g, tol)

    def _fit_gradient(self, problem, theta, lr, tol, max_iter):
        eta = 1.0 / problem.curvature_bound() if lr == "auto" else lr
        lls, objs = [problem.log_likelihood(theta)], [problem.objective(theta)]
        for _ in range(max_iter):
            g = problem.gradient(theta)
            if self._converged(problem, g, tol):
                return theta, lls, objs, True
            theta = theta + eta * g / problem.n  # ascent on the mean objective l_lambda / n
            lls.append(problem.log_likelihood(theta))
            objs.append(problem.objective(theta))
            if problem.stop_when_separated and problem.separates(theta):
                return theta, lls, objs, False
        g = problem.gradient(theta)
        return theta, lls, objs, self._converged(problem, g, tol)

    def _fit_sgd(self, problem, theta, lr, tol, max_iter):
        rng = check_rng(self.random_state)
        if lr == "auto":
            c = 0.25 if problem.B is None else 0.5
            lr = 1.0 / (c * float(np.max(np.sum(problem.Xt**2, axis=1))) + problem.l2 / problem.n)
        lls, objs = [problem.log_likelihood(theta)], [problem.objective(theta)]
        for epoch in range(max_iter):
            if self._converged(problem, problem.gradient(theta), tol):
                return theta, lls, objs, True
            eta = lr / np.sqrt(1.0 + epoch)
            for i in rng.permutation(problem.n):
                # One sample's share of l_lambda: its log-likelihood term and 1/n of the penalty.
                theta = theta + eta * problem.gradient(theta, rows=[i], penalty_scale=1.0 / problem.n)
            lls.append(problem.log_likelihood(theta))
            objs.append(problem.objective(theta))
            if problem.stop_when_separated and problem.separates(theta):
                return theta, lls, objs, False
        g = problem.gradient(theta)
        return theta, lls, objs, self._converged(problem, g, tol)

    # -- prediction ---------------------------------------------------------

    def decision_function(self, X):
        """Scores :math:`t = Xw + b`: shape ``(n_samples,)`` for two classes, else ``(n_samples, n_classes)``.

        For two classes, :math:`t` is the log-odds
        :math:`\\ln p(y = \\text{classes\\_}[1] \\mid x) / p(y = \\text{classes\\_}[0] \\mid x)`.
        """
        check_is_fitted(self, ["coef_", "intercept_"])
        X = self._check_X(X, reset=False)
        scores = X @ self.coef_.T + self.intercept_  # (n, 1) or (n, K)
        return scores[:, 0] if len(self.classes_) == 2 else scores

    def predict_log_proba(self, X):
        """Log class probabilities :math:`\\ln p(y = k \\mid x)`, shape ``(n_samples, n_classes)``."""
        scores = self.decision_function(X)
        if len(self.classes_) == 2:
            return np.column_stack([log_expit(-scores), log_expit(scores)])
        return log_softmax(scores, axis=1)

    def predict_proba(self, X):
        """Class probabilities :math:`p(y = k \\mid x)`, shape ``(n_samples, n_classes)``; rows sum to 1."""
        scores = self.decision_function(X)
        if len(self.classes_) == 2:
            return np.column_stack([expit(-scores), expit(scores)])
        return _softmax(scores, axis=1)

    def predict(self, X):
        """The most probable class for each row of ``X``, shape ``(n_samples,)``."""
        scores = self.decision_function(X)
        if len(self.classes_) == 2:
            return self.classes_[(scores > 0).astype(int)]
        return self.classes_[np.argmax(scores, axis=1)]

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.poor_score = False
        return tags


# ------------------------------------------------- perceptron and probit --


def _check_binary(w, b, X, y, what):
    w, b, X, y, n_classes = _check_parameters(w, b, X, y)
    if n_classes != 0:
        raise ValueError(f"{what} is for two classes: w must have shape (n_features,), one weight per feature.")
    return w, float(b), X, y


def perceptron_epoch(w, b, X, y, lr=1.0, order=None):
    r"""One epoch of the perceptron: update on every misclassified sample.

    With :math:`s_i = 2 y_i - 1 \in \{-1, +1\}` and :math:`t_i = w^\top x_i + b`,
    visit the samples in ``order`` and, whenever :math:`s_i t_i \le 0`
    (a mistake, or a point on the boundary), set

    .. math::

        w \leftarrow w + \eta\, s_i x_i, \qquad b \leftarrow b + \eta\, s_i,

    a stochastic (sub)gradient step on the perceptron loss
    :math:`\max(0, -s_i t_i)`.  Correctly classified samples change nothing.

    Parameters
    ----------
    w : array-like of shape (n_features,)
    b : float
    X : array-like of shape (n_samples, n_features)
    y : array-like of shape (n_samples,), values 0 or 1
    lr : float, default 1.0
        Step size :math:`\eta > 0`.  From ``w = 0, b = 0`` it only rescales
        the parameters, so it never changes the predictions.
    order : array-like of int, optional
        The order in which to visit the samples (default ``0, ..., n-1``).

    Returns
    -------
    w : ndarray of shape (n_features,)
    b : float
    n_mistakes : int
        The number of updates made during the epoch.

    Book: chapters/01_2_perceptron_probit.md, eq. label ``dvg-perceptron``.
    """
    w, b, X, y = _check_binary(w, b, X, y, "perceptron_epoch")
    lr = check_positive_scalar(lr, "lr")
    order = np.arange(X.shape[0]) if order is None else np.asarray(order, dtype=np.int64)
    s = 2.0 * y - 1.0
    w = w.copy()
    mistakes = 0
    for i in order:
        if s[i] * (X[i] @ w + b) <= 0:  # wrong side, or on the boundary
            w += lr * s[i] * X[i]
            b += lr * s[i]
            mistakes += 1
    return w, float(b), mistakes


class Perceptron(ClassifierMixin, BaseEstimator):
    r"""Rosenblatt's perceptron for two classes: a boundary, no probabilities.

    Starts from :math:`w = 0, b = 0` and runs :func:`perceptron_epoch` until an
    epoch makes no mistake (the data are then separated) or ``max_epochs``
    epochs have passed.  On linearly separable data it stops after finitely
    many updates; on other data it never does and warns.

    Parameters
    ----------
    max_epochs : int, default 1000
    lr : float, default 1.0
    shuffle : bool, default False
        Visit the samples in a fresh random order each epoch (else ``0, ..., n-1``).
    random_state : None, int or numpy.random.Generator
        Used when ``shuffle`` is true.

    Attributes
    ----------
    classes_ : ndarray of shape (2,)
    coef_ : ndarray of shape (1, n_features)
    intercept_ : ndarray of shape (1,)
    mistakes_ : ndarray of shape (n_iter_,)
        Updates made in each epoch; the last is 0 if and only if ``converged_``.
    n_iter_ : int
    converged_ : bool

    Book: chapters/01_2_perceptron_probit.md, eq. label ``dvg-perceptron``.
    """

    def __init__(self, max_epochs=1000, lr=1.0, shuffle=False, random_state=None):
        self.max_epochs = max_epochs
        self.lr = lr
        self.shuffle = shuffle
        self.random_state = random_state

    def fit(self, X, y):
        """Fit to ``X`` of shape ``(n_samples, n_features)`` and two-class labels ``y``; returns self."""
        max_epochs = check_positive_int(self.max_epochs, "max_epochs")
        lr = check_positive_scalar(self.lr, "lr")
        X = LogisticRegression._check_X(self, X, reset=True)  # the same validation and messages
        self.classes_, y_index = check_labels(y, X.shape[0])
        if len(self.classes_) != 2:
            raise ValueError(
                f"Perceptron handles two classes, got {len(self.classes_)}; train one perceptron per class "
                "(one against the rest) for more."
            )
        rng = check_rng(self.random_state)
        n = X.shape[0]
        w, b, mistakes = np.zeros(X.shape[1]), 0.0, []
        for _ in range(max_epochs):
            order = rng.permutation(n) if self.shuffle else None
            w, b, m = perceptron_epoch(w, b, X, y_index, lr, order)
            mistakes.append(m)
            if m == 0:
                break
        self.mistakes_ = np.asarray(mistakes, dtype=np.int64)
        self.n_iter_ = len(mistakes)
        self.converged_ = mistakes[-1] == 0
        self.coef_ = w[None, :]
        self.intercept_ = np.array([b])
        if not self.converged_:
            warnings.warn(
                f"the perceptron still made {mistakes[-1]} mistake(s) in epoch {max_epochs}: the data are "
                "probably not linearly separable, and then it never stops updating. Its final weights "
                "depend on where it was stopped.",
                ConvergenceWarning,
                stacklevel=2,
            )
        return self

    def decision_function(self, X):
        """Scores :math:`w^\\top x + b`, shape ``(n_samples,)``: a side of the boundary, not a log-odds."""
        check_is_fitted(self, ["coef_", "intercept_"])
        X = LogisticRegression._check_X(self, X, reset=False)
        return X @ self.coef_[0] + self.intercept_[0]

    def predict(self, X):
        """``classes_[1]`` where the score is positive, else ``classes_[0]``."""
        return self.classes_[(self.decision_function(X) > 0).astype(int)]


def _log_mills(u):
    r""":math:`\ln(\varphi(u) / \Phi(u))`, finite for every real ``u``."""
    return -0.5 * u**2 - 0.5 * np.log(2 * np.pi) - log_ndtr(u)


def probit_log_likelihood(w, b, X, y):
    r"""Log-likelihood of probit regression, :math:`p(y = 1 \mid x) = \Phi(w^\top x + b)`.

    .. math::

        \ell(w, b) = \sum_{i=1}^n \bigl[y_i \ln \Phi(t_i) + (1 - y_i) \ln \Phi(-t_i)\bigr]
        = \sum_{i=1}^n \ln \Phi(s_i t_i),

    with :math:`s_i = 2 y_i - 1`, using :math:`1 - \Phi(t) = \Phi(-t)` and
    :func:`scipy.special.log_ndtr` for :math:`\ln \Phi` (finite where
    :math:`\Phi` underflows).

    Book: chapters/01_2_perceptron_probit.md, eq. label ``dvg-probit-loglik``.
    """
    w, b, X, y = _check_binary(w, b, X, y, "probit_log_likelihood")
    s = 2.0 * y - 1.0
    return float(np.sum(log_ndtr(s * (X @ w + b))))


def probit_gradient(w, b, X, y):
    r"""Gradient of :func:`probit_log_likelihood`.

    .. math::

        \nabla_w \ell = \sum_{i=1}^n s_i r(s_i t_i)\, x_i, \qquad
        \frac{\partial \ell}{\partial b} = \sum_{i=1}^n s_i r(s_i t_i),
        \qquad r(u) = \frac{\varphi(u)}{\Phi(u)},

    with :math:`\varphi` the standard normal density; :math:`r` is
    evaluated as :math:`\exp(\ln\varphi(u) - \ln\Phi(u))`, which stays finite
    (about :math:`-u`) where :math:`\varphi(u)` and :math:`\Phi(u)` both underflow.

    Returns
    -------
    grad_w : ndarray of shape (n_features,)
    grad_b : float

    Book: chapters/01_2_perceptron_probit.md, eq. label ``dvg-probit-gradient``.
    """
    w, b, X, y = _check_binary(w, b, X, y, "probit_gradient")
    s = 2.0 * y - 1.0
    r = s * np.exp(_log_mills(s * (X @ w + b)))  # (n,)
    return X.T @ r, float(r.sum())


def probit_hessian(w, b, X, y):
    r"""Hessian of :func:`probit_log_likelihood` in :math:`\theta = (w, b)`.

    .. math::

        \nabla^2_\theta \ell = -\sum_{i=1}^n r(u_i)\bigl(u_i + r(u_i)\bigr)\,
        \tilde x_i \tilde x_i^\top, \qquad u_i = s_i t_i,

    negative semidefinite because :math:`r(u)(u + r(u)) \in (0, 1)`.

    Returns
    -------
    ndarray of shape (n_features + 1, n_features + 1)

    Book: chapters/01_2_perceptron_probit.md, eq. label ``dvg-probit-hessian``.
    """
    w, b, X, y = _check_binary(w, b, X, y, "probit_hessian")
    u = (2.0 * y - 1.0) * (X @ w + b)
    r = np.exp(_log_mills(u))  # r(u) = phi(u) / Phi(u)
    c = r * (u + r)
    Xt = np.column_stack([X, np.ones(X.shape[0])])
    return -(Xt.T * c) @ Xt


class ProbitRegression(ClassifierMixin, BaseEstimator):
    r"""Probit regression for two classes, :math:`p(y = 1 \mid x) = \Phi(w^\top x + b)`, by Newton's method.

    Maximises :func:`probit_log_likelihood` (concave) with Newton steps,
    halved when a full step would lower the log-likelihood, until the largest
    entry of :math:`|\nabla \ell| / n` is at most ``tol``.  Warns, like
    :class:`LogisticRegression`, when the classes are separable and no
    maximum-likelihood estimate exists.

    Attributes
    ----------
    classes_, coef_ (1, n_features), intercept_ (1,), n_iter_,
    log_likelihood_history_, converged_

    Book: chapters/01_2_perceptron_probit.md, eq. labels ``dvg-probit-loglik``,
    ``dvg-probit-gradient``, ``dvg-probit-hessian``.
    """

    def __init__(self, tol=1e-8, max_iter=100):
        self.tol = tol
        self.max_iter = max_iter

    def fit(self, X, y):
        """Fit to ``X`` of shape ``(n_samples, n_features)`` and two-class labels ``y``; returns self."""
        tol = check_positive_scalar(self.tol, "tol", allow_zero=True)
        max_iter = check_positive_int(self.max_iter, "max_iter")
        X = LogisticRegression._check_X(self, X, reset=True)  # the same validation and messages
        self.classes_, y = check_labels(y, X.shape[0])
        if len(self.classes_) != 2:
            raise ValueError(f"ProbitRegression handles two classes, got {len(self.classes_)}.")
        n, d = X.shape
        separable = separation(X, y)
        w, b = np.zeros(d), 0.0
        ll = probit_log_likelihood(w, b, X, y)
        history, converged = [ll], False
        for _ in range(max_iter):
            gw, gb = probit_gradient(w, b, X, y)
            g = np.append(gw, gb)
            if np.max(np.abs(g)) / n <= tol:
                converged = True
                break
            delta = _newton_direction(g, probit_hessian(w, b, X, y))
            step = 1.0
            while step > 1e-10:
                w_new, b_new = w + step * delta[:-1], b + step * delta[-1]
                ll_new = probit_log_likelihood(w_new, b_new, X, y)
                if ll_new >= ll:
                    break
                step *= 0.5
            else:  # no step improves: at the optimum to machine precision
                converged = True
                break
            w, b, ll = w_new, float(b_new), ll_new
            history.append(ll)
            if separable == "complete" and np.all((2 * y - 1) * (X @ w + b) > 0):
                break
        self.coef_ = w[None, :]
        self.intercept_ = np.array([b])
        self.log_likelihood_history_ = np.asarray(history)
        self.n_iter_ = len(history) - 1
        self.converged_ = converged and separable is None
        if separable is not None:
            warnings.warn(
                "the training data are (partly) linearly separable, so the probit maximum-likelihood "
                "estimate does not exist: the log-likelihood keeps increasing as the weights grow. "
                f"Fitting stopped after {self.n_iter_} iteration(s); coef_ is not an MLE.",
                ConvergenceWarning,
                stacklevel=2,
            )
        elif not converged:
            warnings.warn(
                f"Newton's method did not converge in max_iter={max_iter} iterations; increase max_iter.",
                ConvergenceWarning,
                stacklevel=2,
            )
        return self

    def decision_function(self, X):
        """Scores :math:`t = w^\\top x + b`, shape ``(n_samples,)``; :math:`p(y = 1 \\mid x) = \\Phi(t)`."""
        check_is_fitted(self, ["coef_", "intercept_"])
        X = LogisticRegression._check_X(self, X, reset=False)
        return X @ self.coef_[0] + self.intercept_[0]

    def predict_proba(self, X):
        """Class probabilities :math:`(\\Phi(-t), \\Phi(t))`, shape ``(n_samples, 2)``."""
        t = self.decision_function(X)
        return np.column_stack([ndtr(-t), ndtr(t)])

    def predict(self, X):
        """The more probable class for each row of ``X``."""
        return self.classes_[(self.decision_function(X) > 0).astype(int)]
