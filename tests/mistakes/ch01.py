"""Chapter 1's exercises: answers as students write them after reading the pages (issue 52).

The wrong answers are first the mistakes the pages warn about (exp overflowing at 800 or 1000, one
maximum for the whole array, phi and Phi underflowing at -40, a product of densities underflowing, an
input w changed in place, np.where evaluating both branches), then a class absent from a batch, a K taken
from the labels, the batch rule where the statement asks for per-sample updates, and the types the
statements fix (arrays, a float b, an integer count).  The right answers are written differently from the
book's solutions.
"""

from tests.mistakes import Case

C = "lib.checks."
CASES = []


def _add(exercise, check, kind, source, expect=None):
    CASES.append(Case(exercise, C + check, kind, source, expect))


# ------------------------------------------------------------------- ex-dvg-sigmoid --
E, K = "ex-dvg-sigmoid", "ch01.stable_sigmoid"
_add(E, K, "wrong", """
import numpy as np
def sigmoid(t):
    return 1 / (1 + np.exp(-t))
""", r"floating-point warning|overflow")
_add(E, K, "wrong", """
import numpy as np
def sigmoid(t):
    t = np.asarray(t, dtype=float)
    return np.where(t >= 0, 1 / (1 + np.exp(-t)), np.exp(t) / (1 + np.exp(t)))
""", r"np\.where.*BOTH")
_add(E, K, "wrong", """
import math
def sigmoid(t):
    if t >= 0:
        return 1 / (1 + math.exp(-t))
    return math.exp(t) / (1 + math.exp(t))
""", r"works elementwise on arrays|one number")
_add(E, K, "wrong", """
import numpy as np
def sigmoid(t):
    t = np.atleast_1d(np.asarray(t, dtype=float))
    out = np.empty_like(t)
    pos = t >= 0
    out[pos] = 1 / (1 + np.exp(-t[pos]))
    out[~pos] = np.exp(t[~pos]) / (1 + np.exp(t[~pos]))
    return out
""", r"array of shape \(1,\)")
_add(E, K, "wrong", """
import numpy as np
def sigmoid(t):
    t = np.asarray(t, dtype=float)
    e = np.exp(-np.abs(t))
    return np.where(t >= 0, 1 / (1 + e), 1 - 1 / (1 + e))
""", r"relative accuracy|cancels")
_add(E, K, "wrong", """
import numpy as np
def sigmoid(t):
    t = np.clip(t, -500, 500)
    return 1 / (1 + np.exp(-t))
""", r"rounds to exactly 0 or 1|clipping")
_add(E, K, "wrong", """
import numpy as np
def sigmoid(t):
    t = np.asarray(t, dtype=float)
    e = np.exp(-np.abs(t))
    return list(np.where(t >= 0, 1 / (1 + e), e / (1 + e)).flat)
""", r"returned a list|numpy array")
_add(E, K, "right", """
import numpy as np
def sigmoid(t):
    t = np.asarray(t, dtype=float)
    out = np.empty_like(t)
    pos = t >= 0
    out[pos] = 1.0 / (1.0 + np.exp(-t[pos]))
    e = np.exp(t[~pos])
    out[~pos] = e / (1.0 + e)
    return out if out.ndim else float(out)
""")
_add(E, K, "right", """
import numpy as np
def sigmoid(t):
    return np.exp(-np.logaddexp(0.0, -np.asarray(t, dtype=float)))
""")

# -------------------------------------------------------- ex-dvg-softmax-gradient --
E, K = "ex-dvg-softmax-gradient", "ch01.softmax_gradient"
_add(E, K, "wrong", """
import numpy as np
def softmax_gradient(W, b, X, y):
    T = X @ W.T + b
    P = np.exp(T) / np.exp(T).sum(axis=1, keepdims=True)
    R = np.eye(W.shape[0])[y] - P
    return R.T @ X, R.sum(axis=0)
""", r"800.*overflow|overflows")
_add(E, K, "wrong", """
import numpy as np
def softmax_gradient(W, b, X, y):
    T = X @ W.T + b
    E = np.exp(T - T.max())
    R = np.eye(W.shape[0])[y] - E / E.sum(axis=1, keepdims=True)
    return R.T @ X, R.sum(axis=0)
""", r"each row's own maximum")
_add(E, K, "wrong", """
import numpy as np
from scipy.special import logsumexp
def softmax_gradient(W, b, X, y):
    T = X @ W.T + b
    P = np.exp(T - logsumexp(T, axis=1, keepdims=True))
    classes = np.unique(y)
    Y = np.zeros_like(P)
    Y[:, :len(classes)] = (y[:, None] == classes[None, :])
    R = Y - P
    return R.T @ X, R.sum(axis=0)
""", r"does not occur")
_add(E, K, "wrong", """
import numpy as np
from scipy.special import logsumexp
def softmax_gradient(W, b, X, y):
    T = X @ W.T + b
    P = np.exp(T - logsumexp(T, axis=1, keepdims=True))
    Y = np.zeros_like(P)
    k = len(np.unique(y))
    Y[:, :k] = np.eye(k)[y]
    R = Y - P
    return R.T @ X, R.sum(axis=0)
""", r"does not occur")
_add(E, K, "wrong", """
import numpy as np
from scipy.special import logsumexp
def softmax_gradient(W, b, X, y):
    K = y.max() + 1
    T = X @ W.T + b
    P = np.exp(T - logsumexp(T, axis=1, keepdims=True))
    R = np.eye(K)[y] - P
    return R.T @ X, R.sum(axis=0)
""", r"K = W\.shape\[0\]")
_add(E, K, "wrong", """
import numpy as np
from scipy.special import logsumexp
def softmax_gradient(W, b, X, y):
    T = X @ W.T + b
    P = np.exp(T - logsumexp(T, axis=1, keepdims=True))
    R = np.eye(W.shape[0])[y] - P
    return R.T @ X / len(y), R.mean(axis=0)
""", r"divided by n")
_add(E, K, "wrong", """
import numpy as np
from scipy.special import logsumexp
def softmax_gradient(W, b, X, y):
    T = X @ W.T + b
    P = np.exp(T - logsumexp(T, axis=1, keepdims=True))
    R = np.eye(W.shape[0])[y] - P
    return (R.T @ X).tolist(), R.sum(axis=0).tolist()
""", r"returned a list")
_add(E, K, "wrong", """
import numpy as np
from scipy.special import logsumexp
def softmax_gradient(W, b, X, y):
    T = X @ W.T + b
    P = np.exp(T - logsumexp(T, axis=1, keepdims=True))
    R = P - np.eye(W.shape[0])[y]
    return R.T @ X, R.sum(axis=0)
""", r"wrong sign")
_add(E, K, "right", """
import numpy as np
from scipy.special import logsumexp
def softmax_gradient(W, b, X, y):
    T = X @ W.T + b
    P = np.exp(T - logsumexp(T, axis=1, keepdims=True))
    R = np.eye(W.shape[0])[y] - P
    return R.T @ X, R.sum(axis=0)
""")
_add(E, K, "right", """
import numpy as np
def softmax_gradient(W, b, X, y):
    n, K = X.shape[0], W.shape[0]
    grad_W, grad_b = np.zeros_like(W, dtype=float), np.zeros(K)
    for i in range(n):
        t = W @ X[i] + b
        e = np.exp(t - t.max())
        r = -e / e.sum()
        r[y[i]] += 1.0
        grad_W += np.outer(r, X[i])
        grad_b += r
    return grad_W, grad_b
""")

# ------------------------------------------------------------------- ex-dvg-sgd --
E, K = "ex-dvg-sgd", "ch01.sgd_epoch"
_add(E, K, "wrong", """
import numpy as np
from scipy.special import expit
def sgd_epoch(w, b, X, y, lr, order):
    r = y[order] - expit(X[order] @ w + b)
    return w + lr * r @ X[order], b + lr * r.sum()
""", r"full-batch")
_add(E, K, "wrong", """
from scipy.special import expit
def sgd_epoch(w, b, X, y, lr, order):
    for i in order:
        r = y[i] - expit(X[i] @ w + b)
        w += lr * r * X[i]
        b += lr * r
    return w, b
""", r"changed its argument `w` in place")
_add(E, K, "wrong", """
import numpy as np
from scipy.special import expit
def sgd_epoch(w, b, X, y, lr, order):
    w = np.array(w, dtype=float)
    for i in range(len(y)):
        r = y[i] - expit(X[i] @ w + b)
        w = w + lr * r * X[i]
        b = b + lr * r
    return w, b
""", r"use the given `order`")
_add(E, K, "wrong", """
import numpy as np
from scipy.special import expit
def sgd_epoch(w, b, X, y, lr, order):
    w = np.array(w, dtype=float)
    for i in order:
        r = y[i] - expit(X[i] @ w + b)
        w = w - lr * r * X[i]
        b = b - lr * r
    return w, b
""", r"downhill")
_add(E, K, "wrong", """
import numpy as np
from scipy.special import expit
def sgd_epoch(w, b, X, y, lr, order):
    theta = np.append(w, b)
    Xt = np.column_stack([X, np.ones(len(y))])
    for i in order:
        theta = theta + lr * (y[i] - expit(Xt[i] @ theta)) * Xt[i]
    return theta[:-1], theta[-1:]
""", r"array of shape \(1,\)")
_add(E, K, "wrong", """
import numpy as np
from scipy.special import expit
def sgd_epoch(w, b, X, y, lr, order):
    w = np.array(w, dtype=float)
    n = len(y)
    for i in order:
        r = y[i] - expit(X[i] @ w + b)
        w = w + lr / n * r * X[i]
        b = b + lr / n * r
    return w, b
""", r"lr / n")
_add(E, K, "right", """
import numpy as np
from scipy.special import expit
def sgd_epoch(w, b, X, y, lr, order):
    w = np.array(w, dtype=float)
    b = float(b)
    for i in order:
        r = y[i] - expit(X[i] @ w + b)
        w = w + lr * r * X[i]
        b = b + lr * r
    return w, b
""")
_add(E, K, "right", """
import numpy as np
def sgd_epoch(w, b, X, y, lr, order):
    w = w.astype(float)              # astype copies
    for i in order:
        t = X[i] @ w + b
        p = np.exp(-np.logaddexp(0.0, -t))
        w += lr * (y[i] - p) * X[i]    # in place, on our own copy
        b += lr * (y[i] - p)
    return w, float(b)
""")

# ---------------------------------------------------------------- ex-dvg-newton --
E, K = "ex-dvg-newton", "ch01.newton_step"
_add(E, K, "wrong", """
import numpy as np
from scipy.special import expit
def newton_step(w, b, X, y):
    Xt = np.column_stack([X, np.ones(len(y))])
    theta = np.append(w, b)
    p = expit(Xt @ theta)
    H = (Xt.T * (p * (1 - p))) @ Xt
    theta = theta - np.linalg.solve(H, Xt.T @ (y - p))
    return theta[:-1], theta[-1]
""", r"wrong way")
_add(E, K, "wrong", """
import numpy as np
from scipy.special import expit
def newton_step(w, b, X, y):
    Xt = np.column_stack([X, np.ones(len(y))])
    theta = np.append(w, b)
    p = expit(Xt @ theta)
    theta = theta + np.linalg.solve(Xt.T @ Xt, Xt.T @ (y - p))
    return theta[:-1], theta[-1]
""", r"no weights")
_add(E, K, "wrong", """
import numpy as np
from scipy.special import expit
def newton_step(w, b, X, y):
    p = expit(X @ w + b)
    s = p * (1 - p)
    w_new = w + np.linalg.solve((X.T * s) @ X, X.T @ (y - p))
    b_new = b + np.sum(y - p) / np.sum(s)
    return w_new, b_new
""", r"separately")
_add(E, K, "wrong", """
import numpy as np
from scipy.special import expit
def newton_step(w, b, X, y):
    Xt = np.column_stack([X, np.ones(len(y))])
    p = expit(X @ w + b)
    delta = np.linalg.solve((Xt.T * (p * (1 - p))) @ Xt, Xt.T @ (y - p))
    return delta[:-1], delta[-1]
""", r"step delta itself")
_add(E, K, "wrong", """
import numpy as np
from scipy.special import expit
def newton_step(w, b, X, y):
    Xt = np.column_stack([X, np.ones(len(y))])
    theta = np.append(w, b)
    p = expit(Xt @ theta)
    theta = theta + np.linalg.solve((Xt.T * (p * (1 - p))) @ Xt, Xt.T @ (y - p))
    return theta[:-1], theta[-1:]
""", r"array of shape \(1,\)")
_add(E, K, "wrong", """
import numpy as np
from scipy.special import expit
def newton_step(w, b, X, y):
    Xt = np.column_stack([X, np.ones(len(y))])
    theta = np.append(w, b)
    p = expit(Xt @ theta)
    H = (Xt.T * (p * (1 - p))) @ Xt / len(y)
    theta = theta + np.linalg.solve(H, Xt.T @ (y - p))
    return theta[:-1], theta[-1]
""", r"n times too large")
_add(E, K, "right", """
import numpy as np
from scipy.special import expit
def newton_step(w, b, X, y):
    Xt = np.hstack([X, np.ones((X.shape[0], 1))])
    theta = np.concatenate([w, [b]])
    p = expit(Xt @ theta)
    H = Xt.T @ (Xt * (p * (1 - p))[:, None])
    theta = theta + np.linalg.solve(H, Xt.T @ (y - p))
    return theta[:-1], float(theta[-1])
""")
_add(E, K, "right", """
import numpy as np
from scipy.linalg import cho_factor, cho_solve
def newton_step(w, b, X, y):
    Xt = np.column_stack([X, np.ones(len(y))])
    theta = np.r_[w, b]
    p = np.exp(-np.logaddexp(0.0, -(Xt @ theta)))
    step = cho_solve(cho_factor(Xt.T @ np.diag(p * (1 - p)) @ Xt), Xt.T @ (y - p))
    new = theta + step
    return new[:-1], new[-1]
""")

# --------------------------------------------------------- ex-dvg-probit-gradient --
E, K = "ex-dvg-probit-gradient", "ch01_perceptron_probit.probit_gradient"
_add(E, K, "wrong", """
import numpy as np
from scipy.stats import norm
def probit_gradient(w, b, X, y):
    t = X @ w + b
    r = y * norm.pdf(t) / norm.cdf(t) - (1 - y) * norm.pdf(t) / (1 - norm.cdf(t))
    return X.T @ r, float(r.sum())
""", r"underflow")
_add(E, K, "wrong", """
import numpy as np
from scipy.special import ndtr
def probit_gradient(w, b, X, y):
    r = y - ndtr(X @ w + b)
    return X.T @ r, float(r.sum())
""", r"logistic residual")
_add(E, K, "wrong", """
import numpy as np
from scipy.special import log_ndtr
from scipy.stats import norm
def probit_gradient(w, b, X, y):
    s = 2 * y - 1
    u = s * (X @ w + b)
    r = -s * np.exp(norm.logpdf(u) - log_ndtr(u))
    return X.T @ r, float(r.sum())
""", r"wrong sign")
_add(E, K, "wrong", """
import numpy as np
from scipy.special import log_ndtr
from scipy.stats import norm
def probit_gradient(w, b, X, y):
    t = X @ w + b
    r = y * np.exp(norm.logpdf(t) - log_ndtr(t))
    return X.T @ r, float(r.sum())
""", r"only the y = 1 samples")
_add(E, K, "wrong", """
import numpy as np
from scipy.special import log_ndtr
from scipy.stats import norm
def probit_gradient(w, b, X, y):
    s = 2 * y - 1
    u = s * (X @ w + b)
    r = s * np.exp(norm.logpdf(u) - log_ndtr(u))
    return X.T @ r / len(y), float(r.mean())
""", r"divided by n")
_add(E, K, "wrong", """
import numpy as np
from scipy.special import log_ndtr
from scipy.stats import norm
def probit_gradient(w, b, X, y):
    s = 2 * y - 1
    u = s * (X @ w + b)
    r = s * np.exp(norm.logpdf(u) - log_ndtr(u))
    return X.T @ r, r.sum(keepdims=True)
""", r"array of shape \(1,\)")
_add(E, K, "wrong", """
import numpy as np
from scipy.special import log_ndtr
from scipy.stats import norm
def probit_gradient(w, b, X, y):
    s = 2 * y - 1
    u = s * (X @ w + b)
    r = s * np.exp(norm.logpdf(u) - log_ndtr(u))
    return list(X.T @ r), float(r.sum())
""", r"returned a list")
_add(E, K, "right", """
import numpy as np
from scipy.special import log_ndtr
from scipy.stats import norm
def probit_gradient(w, b, X, y):
    s = 2.0 * y - 1.0
    u = s * (X @ w + b)
    r = s * np.exp(norm.logpdf(u) - log_ndtr(u))
    return X.T @ r, float(np.sum(r))
""")
_add(E, K, "right", """
import numpy as np
from scipy.stats import norm
def probit_gradient(w, b, X, y):
    t = X @ w + b
    ratio_pos = np.exp(norm.logpdf(t) - norm.logcdf(t))     # phi(t) / Phi(t)
    ratio_neg = np.exp(norm.logpdf(t) - norm.logcdf(-t))    # phi(t) / Phi(-t)
    r = np.where(y == 1, ratio_pos, -ratio_neg)
    grad_w = np.einsum("i,ij->j", r, X)
    return grad_w, r.sum().item()
""")

# ------------------------------------------------------------- ex-dvg-perceptron --
E, K = "ex-dvg-perceptron", "ch01_perceptron_probit.perceptron_epoch"
_add(E, K, "wrong", """
import numpy as np
def perceptron_epoch(w, b, X, y, order):
    w, b, m = np.array(w, dtype=float), float(b), 0
    for i in order:
        s = 2 * y[i] - 1
        if s * (X[i] @ w + b) < 0:
            w, b, m = w + s * X[i], b + s, m + 1
    return w, b, m
""", r"only when s_i t_i < 0")
_add(E, K, "wrong", """
import numpy as np
def perceptron_epoch(w, b, X, y, order):
    w, b, m = np.array(w, dtype=float), float(b), 0
    for i in order:
        if (2 * y[i] - 1) * (X[i] @ w + b) <= 0:
            w, b, m = w + y[i] * X[i], b + y[i], m + 1
    return w, b, m
""", r"s_i = 2 y_i - 1")
_add(E, K, "wrong", """
import numpy as np
def perceptron_epoch(w, b, X, y, order):
    s = 2 * y - 1
    wrong = [i for i in order if s[i] * (X[i] @ w + b) <= 0]
    w_new = w + sum(s[i] * X[i] for i in wrong)
    b_new = b + float(sum(s[i] for i in wrong))
    return w_new, b_new, len(wrong)
""", r"parameters at the start of the epoch")
_add(E, K, "wrong", """
def perceptron_epoch(w, b, X, y, order):
    m = 0
    for i in order:
        s = 2 * y[i] - 1
        if s * (X[i] @ w + b) <= 0:
            w += s * X[i]
            b += s
            m += 1
    return w, float(b), m
""", r"changed its argument `w` in place")
_add(E, K, "wrong", """
import numpy as np
def perceptron_epoch(w, b, X, y, order):
    w, b, m = np.array(w, dtype=float), float(b), 0.0
    for i in order:
        s = 2 * y[i] - 1
        if s * (X[i] @ w + b) <= 0:
            w, b, m = w + s * X[i], b + s, m + 1
    return w, b, m
""", r"float for n_mistakes")
_add(E, K, "wrong", """
import numpy as np
def perceptron_epoch(w, b, X, y, order):
    w, b, m = np.array(w, dtype=float), float(b), 0
    for i in range(len(y)):
        s = 2 * y[i] - 1
        if s * (X[i] @ w + b) <= 0:
            w, b, m = w + s * X[i], b + s, m + 1
    return w, b, m
""", r"use the given `order`")
_add(E, K, "right", """
import numpy as np
def perceptron_epoch(w, b, X, y, order):
    w, b, m = np.array(w, dtype=float), float(b), 0
    for i in order:
        s = 2 * y[i] - 1
        if s * (X[i] @ w + b) <= 0:
            w, b, m = w + s * X[i], b + s, m + 1
    return w, b, m
""")
_add(E, K, "right", """
def perceptron_epoch(w, b, X, y, order):
    w = w.copy().astype(float)
    mistakes = 0
    for i in order:
        t = float(X[i] @ w + b)
        if (y[i] == 1 and t <= 0) or (y[i] == 0 and t >= 0):
            step = 1.0 if y[i] == 1 else -1.0
            w += step * X[i]
            b = b + step
            mistakes += 1
    return w, float(b), mistakes
""")

# ---------------------------------------------------------------- ex-dvg-missing --
E, K = "ex-dvg-missing", "ch01.marginal_posterior"
_add(E, K, "wrong", """
import numpy as np
from scipy.stats import norm
def marginal_posterior(X, weights, means, variances):
    dens = norm.pdf(X[:, None, :], means, np.sqrt(variances))
    dens = np.where(np.isnan(dens), 1.0, dens)
    joint = weights * dens.prod(axis=2)
    return joint / joint.sum(axis=1, keepdims=True)
""", r"underflow")
_add(E, K, "wrong", """
import numpy as np
from scipy.special import logsumexp
from scipy.stats import norm
def marginal_posterior(X, weights, means, variances):
    terms = norm.logpdf(X[:, None, :], means, variances)
    terms = np.where(np.isnan(X)[:, None, :], 0.0, terms)
    A = np.log(weights) + terms.sum(axis=2)
    return np.exp(A - logsumexp(A, axis=1, keepdims=True))
""", r"standard deviations")
_add(E, K, "wrong", """
import numpy as np
from scipy.special import logsumexp
from scipy.stats import norm
def marginal_posterior(X, weights, means, variances):
    A = np.log(weights) + norm.logpdf(X[:, None, :], means, np.sqrt(variances)).sum(axis=2)
    return np.exp(A - logsumexp(A, axis=1, keepdims=True))
""", r"NaN in the rows that have missing features")
_add(E, K, "wrong", """
import numpy as np
from scipy.special import logsumexp
from scipy.stats import norm
def marginal_posterior(X, weights, means, variances):
    X = np.where(np.isnan(X), weights @ means, X)
    A = np.log(weights) + norm.logpdf(X[:, None, :], means, np.sqrt(variances)).sum(axis=2)
    return np.exp(A - logsumexp(A, axis=1, keepdims=True))
""", r"filled the missing entries")
_add(E, K, "wrong", """
import numpy as np
from scipy.special import logsumexp
from scipy.stats import norm
def marginal_posterior(X, weights, means, variances):
    terms = np.nan_to_num(norm.logpdf(X[:, None, :], means, np.sqrt(variances)), nan=0.0)
    A = terms.sum(axis=2)
    return np.exp(A - logsumexp(A, axis=1, keepdims=True))
""", r"ignores the weights")
_add(E, K, "wrong", """
import numpy as np
from scipy.special import logsumexp
from scipy.stats import norm
def marginal_posterior(X, weights, means, variances):
    terms = np.nan_to_num(norm.logpdf(X[:, None, :], means, np.sqrt(variances)), nan=0.0)
    A = np.log(weights) + terms.sum(axis=2)
    return A - logsumexp(A, axis=1, keepdims=True)
""", r"log-probabilities")
_add(E, K, "wrong", """
import numpy as np
from scipy.special import logsumexp
from scipy.stats import norm
def marginal_posterior(X, weights, means, variances):
    terms = np.nan_to_num(norm.logpdf(X[:, None, :], means, np.sqrt(variances)), nan=0.0)
    A = np.log(weights) + terms.sum(axis=2)
    post = np.exp(A - logsumexp(A, axis=1, keepdims=True))
    post[np.isnan(X).all(axis=1)] = 1.0 / len(weights)   # nothing observed: no idea
    return post
""", r"every feature missing.*prior")
_add(E, K, "right", """
import numpy as np
from scipy.special import logsumexp
from scipy.stats import norm
def marginal_posterior(X, weights, means, variances):
    terms = norm.logpdf(X[:, None, :], means, np.sqrt(variances))
    A = np.log(weights) + np.nansum(terms, axis=2)
    return np.exp(A - logsumexp(A, axis=1, keepdims=True))
""")
_add(E, K, "right", """
import numpy as np
def marginal_posterior(X, weights, means, variances):
    n, K = X.shape[0], len(weights)
    out = np.empty((n, K))
    for i in range(n):
        seen = ~np.isnan(X[i])
        diff = X[i, seen] - means[:, seen]
        v = variances[:, seen]
        a = np.log(weights) - 0.5 * np.sum(np.log(2 * np.pi * v) + diff ** 2 / v, axis=1)
        a = a - a.max()
        out[i] = np.exp(a) / np.exp(a).sum()
    return out
""")

# ---------------------------------------------------------------- ex-dvg-nb-right --
# The page's learning_curves runs for about 10 s: every case but one right answer reuses the same call
# (tests/mutation.py memoises it), so the wrong answers cost nothing more.
E, K = "ex-dvg-nb-right", "ch01.naive_bayes_right"
_RUN = """
sizes_ex = np.array([10, 16, 25, 40, 63, 100, 160, 250, 400, 630, 1000])
means0, cov0 = problem(rho=0.0)
errors0, se0 = learning_curves(means0, cov0, sizes_ex, n_repeats=16, rng=np.random.default_rng(7))
"""
_add(E, K, "wrong", _RUN + """
nb_errors, lr_errors = errors0[1], errors0[2]   # naive Bayes: the one fitted per class
""", r"per-class")
_add(E, K, "wrong", _RUN + """
nb_errors, lr_errors = errors0[0], errors0[1]
""", r"not of logistic regression")
_add(E, K, "wrong", _RUN + """
nb_errors, lr_errors = 1 - errors0[0], 1 - errors0[2]
""", r"accuracies")
_add(E, K, "wrong", _RUN + """
nb_errors, lr_errors = 100 * errors0[0], 100 * errors0[2]   # in percent
""", r"fractions|percent")
_add(E, K, "wrong", _RUN + """
nb_errors, lr_errors = se0[0], se0[2]
""", r"standard errors")
_add(E, K, "wrong", _RUN + """
nb_errors, lr_errors = errors0[0].tolist(), errors0[2].tolist()
sizes_ex = sizes_ex[::2]   # fewer sizes: faster
nb_errors, lr_errors = nb_errors[::2], lr_errors[::2]
""", r"sizes given in the starter cell")
_add(E, K, "right", """
sizes_ex = np.array([10, 16, 25, 40, 63, 100, 160, 250, 400, 630, 1000])
result = learning_curves(*problem(rho=0.0), sizes_ex, n_repeats=16, rng=np.random.default_rng(7))
nb_errors, lr_errors = result[0][0], result[0][2]
""")
_add(E, K, "right", """
sizes_ex = np.array([10, 16, 25, 40, 63, 100, 160, 250, 400, 630, 1000])
mean_errors, _ = learning_curves(*problem(0.0), sizes_ex, 20, np.random.default_rng(123), n_test=2500)
nb_errors = mean_errors[0]
lr_errors = mean_errors[2]
""")

# added after the first pass: an integer array t, which the statement allows and the page's example does
# not show
_add("ex-dvg-sigmoid", "ch01.stable_sigmoid", "wrong", """
import numpy as np
def sigmoid(t):
    t = np.asarray(t)
    out = np.empty_like(t)
    pos = t >= 0
    out[pos] = 1 / (1 + np.exp(-t[pos]))
    e = np.exp(t[~pos])
    out[~pos] = e / (1 + e)
    return out
""", r"integer array")
