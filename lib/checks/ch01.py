"""Checks for the exercises of chapter 1, discriminative and generative models.

Each check runs the student's function on generated inputs, compares it with
:mod:`lib.logistic` or a reference computed here, and names the first mistake
it recognises.
"""

import functools

import numpy as np

from ._core import check_rng  # every input a check draws: salted while the grader judges (issue 49)
from scipy.special import expit, logsumexp
from scipy.stats import norm

from .. import discriminant, logistic
from ._core import (Failure, NotImplementedYet, call, check, expect_array, expect_number, expect_scalar,
                    expect_tuple, refuse_container, watched)

__all__ = [
    "stable_sigmoid",
    "softmax_gradient",
    "sgd_epoch",
    "newton_step",
    "marginal_posterior",
    "naive_bayes_right",
]


def _close(a, b, rtol=1e-7, atol=1e-10):
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    return a.shape == b.shape and bool(np.allclose(a, b, rtol=rtol, atol=atol))




def _overlapping_problem(rng, n, d, shift=1.0):
    """Two overlapping Gaussian classes (the MLE exists), labels 0/1 in random order."""
    y = rng.permutation(np.arange(n) % 2)
    X = rng.normal(size=(n, d)) + shift * y[:, None] * rng.normal(size=d)
    return X, y


# ------------------------------------------------------------ ex-dvg-sigmoid --


def _raw_call(func, arg):
    """Call ``func`` with NumPy floating-point errors raised; return (output, exception)."""
    with watched(func):  # under the check's allow-list, as every call of the answer
        try:
            with np.errstate(over="raise", invalid="raise", divide="raise", under="ignore"):
                return func(np.copy(arg) if isinstance(arg, np.ndarray) else arg), None
        except NotImplementedError:
            raise NotImplementedYet() from None
        except Exception as exc:  # diagnosed by the caller
            return None, exc


@check(
    "ex-dvg-sigmoid",
    "values match the logistic function to 1e-9 relative accuracy for a number, a 1-D float, a 1-D integer "
    "and a 2-D array, including t = -1000, -50, 50 and 1000, without overflow warnings or NaN.",
    solves=("lib.logistic.sigmoid", "lib.logistic.log_sigmoid"),
    allow=(),
)
def stable_sigmoid(student_fn):
    if callable(student_fn) and _raw_call(student_fn, 0.0)[1] is not None:
        works_on_arrays = _raw_call(student_fn, np.array([0.0, 1.0]))[1] is None
        if works_on_arrays:
            raise Failure(
                "sigmoid works on an array but raises on the plain number 0.0: indexing or boolean masks "
                "need an array. Start with t = np.asarray(t, dtype=float)."
            )
    value = call(student_fn, 0.0, name="sigmoid")
    if not (isinstance(value, np.ndarray) and value.ndim == 0):  # a 0-d array has the shape of a number
        value = expect_number(value, "sigmoid(0) (for a number t, a number)", name="sigmoid")
    value = expect_scalar(value, "sigmoid(0)", name="sigmoid")
    if not np.isclose(value, 0.5, rtol=1e-12):
        raise Failure(f"sigmoid(0) should be exactly 1/2 (e^0 = 1), got {value:.6g}.")
    t = np.array([-1000.0, -50.0, -5.0, -1.0, 0.0, 0.5, 3.0, 50.0, 1000.0])
    want = expit(t)
    _, exc = _raw_call(student_fn, t)  # floating-point errors raised, diagnosed below
    if isinstance(exc, OverflowError):
        raise Failure(
            f"your function overflows on t = -1000 ({type(exc).__name__}: {exc}). Python's math.exp raises "
            "for arguments above about 709 and works on one number at a time: use np.exp, and exponentiate "
            "only non-positive numbers."
        )
    if isinstance(exc, TypeError) or (isinstance(exc, ValueError) and "ambiguous" in str(exc)):
        raise Failure(
            f"sigmoid(0.0) works but sigmoid(array) raises {type(exc).__name__}: {exc}. Write the function "
            "with numpy operations (np.exp, arithmetic, boolean masks) so that it works elementwise on "
            "arrays; math.exp and `if t >= 0:` only handle one number."
        )
    out = call(student_fn, t, name="sigmoid")  # warnings silenced: look at the values first
    arr = np.asarray(out, dtype=float) if not isinstance(out, (str, bytes)) else None
    if arr is not None and arr.shape == t.shape and np.any(np.isnan(arr)):
        where = ", ".join(f"{x:g}" for x in t[np.isnan(arr)])
        raise Failure(
            f"sigmoid returns NaN for t = {where}: an exp(...) overflowed to inf and inf/inf = NaN. "
            "Use 1/(1 + e^(-t)) for t >= 0 and e^t/(1 + e^t) for t < 0, so that exp only sees t <= 0."
        )
    refuse_container(out, t.shape, "sigmoid(t) for an array t", name="sigmoid")
    got = expect_array(out, t.shape, "sigmoid(t)", name="sigmoid")
    if not _close(got, want, rtol=1e-9, atol=0.0):
        if _close(got, expit(-t), rtol=1e-9, atol=0.0):
            raise Failure(
                "your function computes 1/(1 + e^(+t)) = sigmoid(-t): the exponent needs a minus sign, "
                "sigma(t) = 1/(1 + e^(-t)), so that sigma(t) -> 1 as t -> +infinity."
            )
        if getattr(out, "dtype", None) == np.float32:
            raise Failure(
                "sigmoid returns float32 (single precision, about 7 digits); work in float64, e.g. "
                "t = np.asarray(t, dtype=float)."
            )
        wrong = ~np.isclose(got, want, rtol=1e-9, atol=0.0)
        where = ", ".join(f"{x:g}" for x in t[wrong])
        if not np.any(wrong & (np.abs(t) < 1000)):
            raise Failure(
                f"the values are right except at t = {where}, where sigma(t) rounds to exactly 0 or 1 in "
                "double precision. Clipping t (or adding a small constant) changes the answer there; "
                "exponentiate only non-positive numbers instead."
            )
        if _close(got[t >= -5], want[t >= -5], rtol=1e-9, atol=0.0):
            raise Failure(
                f"the values are right for moderate t but lose their relative accuracy at t = {where} "
                "(sigma(-50) is about 2e-22, a perfectly representable number, not 0). A formula that "
                "subtracts numbers close to 1, such as 1 - 1/(1 + e^t), cancels there; compute "
                "e^t/(1 + e^t) for t < 0 instead."
            )
        raise Failure(
            f"sigmoid(t) does not match 1/(1 + e^(-t)) at t = {where}; test it at t = 0, 1 and -1 by hand."
        )
    if isinstance(exc, FloatingPointError):
        raise Failure(
            f"the values are right, but computing them for t = -1000 or 1000 triggers a floating-point "
            f"warning ({exc}): some exp(...) overflows to inf on the way. Exponentiate only non-positive "
            "numbers: 1/(1 + e^(-t)) for t >= 0 and e^t/(1 + e^t) for t < 0. Careful: np.where(cond, a, b) "
            "evaluates BOTH a and b on every entry, so select the entries with boolean masks first, or use "
            "np.exp(-np.abs(t))."
        )
    t_int = np.array([-3, 0, 2])  # "a numpy array t": an integer one too
    got_int = expect_array(call(student_fn, t_int, name="sigmoid"), t_int.shape, "sigmoid(t) for an integer t",
                           name="sigmoid")
    if not _close(got_int, expit(t_int), rtol=1e-9, atol=0.0):
        raise Failure(
            "sigmoid is right on float arrays but not on the integer array np.array([-3, 0, 2]): an output "
            "made with np.empty_like(t) or np.zeros_like(t) keeps t's integer dtype and truncates every value. "
            "Convert first, t = np.asarray(t, dtype=float)."
        )
    t2 = np.linspace(-30, 30, 12).reshape(3, 4)
    got2 = expect_array(call(student_fn, t2, name="sigmoid"), t2.shape, "sigmoid(t) for a 2-D t", name="sigmoid")
    if not _close(got2, expit(t2), rtol=1e-9, atol=0.0):
        raise Failure("sigmoid is right on a 1-D array but not on a 2-D one: avoid indexing that flattens t.")


# ---------------------------------------------------- ex-dvg-softmax-gradient --


def _softmax_variant(W, b, X, y, *, integer_y=False, sigmoid=False, intercept=True):
    T = X @ W.T + (b if intercept else 0.0)  # (n, K)
    P = expit(T) if sigmoid else np.exp(T - logsumexp(T, axis=1, keepdims=True))
    Y = y[:, None].astype(float) if integer_y else np.eye(W.shape[0])[y]
    R = Y - P
    return R.T @ X, R.sum(axis=0)


def _softmax_cases(rng):
    """(W, b, X, y, kind): kind "big" shifts every row by 800, "absent" leaves out one class (the first,
    a middle one, another middle one: labels 0..K-1 with a gap), "rows" gives rows whose scores lie far
    apart (a row's scores up to about 1600 below the batch's largest) and leaves the last class out."""
    for n, K, d, big in [(9, 3, 2, False), (6, 4, 3, False), (7, 2, 1, False), (8, 3, 2, True)]:
        X = rng.normal(size=(n, d))
        y = rng.permutation(np.arange(n) % K)
        W = rng.normal(size=(K, d))
        b = np.array([800.0, 0.0, -800.0]) if big else 0.5 * rng.normal(size=K) + 0.3
        yield W, b, X, y, "big" if big else ""
    for absent in (0, 1, 2):  # K = 4; the last class is left out by the "rows" case below
        present = np.delete(np.arange(4), absent)
        y = rng.permutation(present[np.arange(9) % 3])
        yield rng.normal(size=(4, 2)), 0.5 * rng.normal(size=4), rng.normal(size=(9, 2)), y, "absent"
    # 5 classes, 2 features; rows 0 and 1 have scores of about +-800, row 2 scores near 0; class 4 absent
    W = np.vstack([2 * np.eye(2), -2 * np.eye(2), [[0.5, 0.5]]]) + 0.05 * rng.normal(size=(5, 2))
    X = np.vstack([[400.0, 0.0], [0.0, -400.0], [0.3, -0.2], rng.normal(size=(5, 2))])
    y = np.array([0, 3, 2, 1, 0, 2, 3, 1])
    yield W, 0.2 * rng.normal(size=5), X, y, "rows"


@check(
    "ex-dvg-softmax-gradient",
    "the gradients with respect to W and b match sum_i (onehot(y_i) - softmax(W x_i + b)) x_i^T on 8 "
    "problems (2 to 5 classes, 1 to 3 features), including scores of size 800 that overflow a naive exp, "
    "rows whose scores lie far apart, and batches in which the first, a middle or the last class does not "
    "occur.",
    solves=("lib.logistic.gradient", "lib.logistic.softmax"),
    allow=("scipy.special.logsumexp",),
)
def softmax_gradient(student_fn):
    rng = check_rng(101)
    for W, b, X, y, kind in _softmax_cases(rng):
        (n, d), K = X.shape, W.shape[0]
        big = kind == "big"
        absent = [k for k in range(K) if not np.any(y == k)]
        try:
            out = call(student_fn, W, b, X, y, name="softmax_gradient", unchanged={0: "W", 1: "b", 2: "X"})
        except Failure as failure:
            if absent and "raised an exception" in str(failure):
                raise Failure(
                    f"{failure} In this batch class {absent[0]} of 0..{K - 1} does not occur: if you take the "
                    "number of classes or the one-hot columns from the labels (y.max() + 1, np.unique(y)), take "
                    "them from the parameters instead, K = W.shape[0], and np.eye(K)[y]."
                ) from None
            raise
        out = expect_tuple(out, 2, "the pair (grad_W, grad_b)", name="softmax_gradient")
        raw = np.asarray(out[0], dtype=float) if not isinstance(out[0], (str, bytes)) else None
        if raw is not None and raw.shape == (K, d) and not np.all(np.isfinite(raw)):
            if big:
                raise Failure(
                    "NaN or inf in grad_W when some scores are about 800: exp(800) overflows and inf/inf = NaN. "
                    "Subtract each row's largest score before exponentiating (softmax is unchanged by adding "
                    "a constant to all scores), or use scipy.special.softmax(T, axis=1)."
                )
            if kind == "rows":
                raise Failure(
                    "NaN or inf in grad_W on a batch whose rows have very different scores (one row's scores "
                    "lie about 800 below another's): subtracting one maximum over the whole array leaves "
                    "exp(-800) = 0 in every entry of such a row, and 0/0 = NaN. Subtract each row's own "
                    "maximum, T.max(axis=1, keepdims=True)."
                )
        refuse_container(out[0], (K, d), "grad_W", name="softmax_gradient")
        refuse_container(out[1], (K,), "grad_b", name="softmax_gradient")
        gW = expect_array(out[0], (K, d), "grad_W (one row per class)", name="softmax_gradient")
        gb = expect_array(out[1], (K,), "grad_b (one entry per class)", name="softmax_gradient")
        ref_W, ref_b = logistic.gradient(W, b, X, y)
        if _close(gW, ref_W) and _close(gb, ref_b):
            continue
        if _close(gW, -ref_W):
            raise Failure(
                "grad_W has the wrong sign: you computed the gradient of the negative log-likelihood, "
                "sum_i (p_i - onehot(y_i)) x_i^T. The log-likelihood's gradient uses onehot(y_i) - p_i."
            )
        if _close(gW, ref_W / n):
            raise Failure("grad_W is divided by n (a mean); the log-likelihood is a sum over samples.")
        if _close(gW, _softmax_variant(W, b, X, y, integer_y=True)[0]):
            raise Failure(
                "you subtracted the probabilities from the label y_i itself; each sample needs a one-hot "
                "row Y[i] = (1 if k == y_i else 0 for each class k), e.g. Y = np.eye(K)[y]."
            )
        if _close(gW, _softmax_variant(W, b, X, y, sigmoid=True)[0]):
            raise Failure(
                "your class probabilities are sigmoids of each score separately, which do not sum to one. "
                "Softmax normalises across classes: p_ik = exp(t_ik) / sum_j exp(t_ij)."
            )
        if _close(gW, _softmax_variant(W, b, X, y, intercept=False)[0]):
            raise Failure("the scores ignore the intercepts: t_ik = w_k . x_i + b_k, i.e. T = X @ W.T + b.")
        if absent:  # right so far on batches holding every class
            raise Failure(
                f"your gradient is right when every class occurs in the batch, but not on one in which class "
                f"{absent[0]} of 0..{K - 1} does not occur. The one-hot matrix has K = W.shape[0] columns, column "
                "k for label k, whatever labels the batch holds (np.eye(K)[y]): built from the labels that occur "
                "(np.unique(y), len(np.unique(y))) its columns shift or stop before the missing class."
            )
        if _close(gW, ref_W):
            if _close(gb, -ref_b):
                raise Failure("grad_b has the wrong sign: it is sum_i (onehot(y_i) - p_i).")
            raise Failure(
                "grad_W is right but grad_b is not: b_k multiplies a constant feature 1, so its gradient "
                "is the column sum of the residuals, sum_i (onehot(y_i)_k - p_ik)."
            )
        raise Failure(
            "grad_W does not match sum_i (onehot(y_i) - softmax(t_i)) x_i^T; in matrix form R.T @ X with "
            "R = Y - P of shape (n, K)."
        )


# -------------------------------------------------------------- ex-dvg-sgd --


def _sgd_variant(w, b, X, y, lr, order, *, sign=1.0, update_b=True, stale=False):
    w, b = np.array(w, dtype=float), float(b)
    w0, b0 = w.copy(), b
    for i in order:
        t = X[i] @ (w0 if stale else w) + (b0 if stale else b)
        r = y[i] - expit(t)
        w = w + sign * lr * r * X[i]
        if update_b:
            b = b + sign * lr * r
    return w, b


@check(
    "ex-dvg-sgd",
    "one epoch matches per-sample updates in the given order on 3 problems (different orders, step sizes, "
    "1 to 3 features), and the caller's w is left unchanged.",
    solves=("lib.logistic.sgd_epoch",),
    allow=("scipy.special.expit", "lib.logistic.sigmoid"),
)
def sgd_epoch(student_fn):
    rng = check_rng(102)
    for n, d, lr in [(6, 2, 0.5), (9, 3, 0.1), (5, 1, 1.0)]:
        X, y = _overlapping_problem(rng, n, d)
        w, b = 0.3 * rng.normal(size=d), float(np.round(rng.uniform(-1.0, 1.0), 3))
        order = rng.permutation(n)
        while np.array_equal(order, np.arange(n)):
            order = rng.permutation(n)
        out = expect_tuple(call(student_fn, w, b, X, y, lr, order, name="sgd_epoch", unchanged={0: "w"}),
                           2, "the pair (w, b)", name="sgd_epoch")
        refuse_container(out[0], (d,), "w", name="sgd_epoch")
        got_w = expect_array(out[0], (d,), "w", name="sgd_epoch")
        got_b = expect_number(out[1], "b", name="sgd_epoch", float_only=True)
        ref_w, ref_b = logistic.sgd_epoch(w, b, X, y, lr, order)
        if _close(got_w, ref_w) and np.isclose(got_b, ref_b, rtol=1e-7, atol=1e-10):
            continue

        def same(variant):
            return _close(got_w, variant[0]) and np.isclose(got_b, variant[1], rtol=1e-7, atol=1e-10)

        if same(_sgd_variant(w, b, X, y, lr, order, stale=True)):
            raise Failure(
                "you computed every sample's gradient at the starting parameters and added them up: that is "
                "one full-batch gradient step. In SGD each update uses the parameters as left by the "
                "previous sample, so compute sigma(w @ x_i + b) inside the loop with the current w and b."
            )
        if same(_sgd_variant(w, b, X, y, lr, np.arange(n))):
            raise Failure("you visited the samples in the order 0, 1, ..., n-1: use the given `order`.")
        if same(_sgd_variant(w, b, X, y, lr, order, sign=-1.0)):
            raise Failure(
                "your updates go downhill: w <- w - lr * (y_i - p_i) x_i decreases the log-likelihood. "
                "Gradient ASCENT adds lr * (y_i - p_i) x_i."
            )
        if same(_sgd_variant(w, b, X, y, lr, order, update_b=False)):
            raise Failure("b never changes: update it after each sample too, b <- b + lr * (y_i - p_i).")
        if same(_sgd_variant(w, b, X, y, lr / n, order)):
            raise Failure("your step is lr / n: the per-sample update uses lr itself, without dividing by n.")
        raise Failure(
            "the parameters after one epoch do not match: for each i in order, r = y_i - sigma(w @ x_i + b), "
            "then w <- w + lr * r * x_i and b <- b + lr * r."
        )


# ----------------------------------------------------------- ex-dvg-newton --


def _newton_variant(w, b, X, y, *, weights="s", intercept=True, sign=1.0, step_only=False, scale=1.0,
                    blocks=False):
    if blocks:  # w and b stepped with their own Hessian blocks, the cross terms dropped
        p = expit(X @ w + b)
        s = p * (1 - p)
        return (w + np.linalg.solve((X.T * s) @ X, X.T @ (y - p)), float(b + np.sum(y - p) / np.sum(s)))
    Xt = np.column_stack([X, np.ones(len(y))]) if intercept else X
    theta = np.append(w, b) if intercept else np.array(w, dtype=float)
    p = expit(X @ w + b)
    s = {"s": p * (1 - p), "p": p, "one": np.ones_like(p)}[weights]
    delta = scale * np.linalg.solve((Xt.T * s) @ Xt, Xt.T @ (y - p))
    new = delta if step_only else theta + sign * delta
    if intercept:
        return new[:-1], float(new[-1])
    return new, float(b)


@check(
    "ex-dvg-newton",
    "one Newton step matches theta + (X~^T S X~)^{-1} X~^T (y - p) on 3 overlapping problems (1 to 3 "
    "features, non-zero starting points).",
    solves=("lib.logistic.newton_step", "lib.logistic.hessian"),
    allow=("scipy.special.expit", "lib.logistic.sigmoid"),
)
def newton_step(student_fn):
    rng = check_rng(103)
    for n, d in [(30, 2), (40, 3), (25, 1)]:
        X, y = _overlapping_problem(rng, n, d)
        w, b = 0.5 * rng.normal(size=d), float(np.round(rng.uniform(-1.0, 1.0), 3))
        out = expect_tuple(call(student_fn, w, b, X, y, name="newton_step", unchanged={0: "w", 2: "X"}),
                           2, "the pair (w, b)", name="newton_step")
        refuse_container(out[0], (d,), "the new w", name="newton_step")
        got_w = expect_array(out[0], (d,), "the new w", name="newton_step")
        got_b = expect_number(out[1], "the new b", name="newton_step")
        ref_w, ref_b = logistic.newton_step(w, b, X, y)
        if _close(got_w, ref_w, rtol=1e-6, atol=1e-9) and np.isclose(got_b, ref_b, rtol=1e-6, atol=1e-9):
            continue

        def same(variant):
            return _close(got_w, variant[0], rtol=1e-6, atol=1e-9) and np.isclose(
                got_b, variant[1], rtol=1e-6, atol=1e-9
            )

        if same(_newton_variant(w, b, X, y, sign=-1.0)):
            raise Failure(
                "you stepped the wrong way: theta - (X~^T S X~)^{-1} X~^T (y - p) goes downhill. Newton's "
                "step is theta - H^{-1} g, and the Hessian H = -X~^T S X~ is negative, so the step is "
                "theta + (X~^T S X~)^{-1} X~^T (y - p)."
            )
        if same(_newton_variant(w, b, X, y, step_only=True)):
            raise Failure("you returned the step delta itself: add it to the current parameters, (w, b) + delta.")
        if same(_newton_variant(w, b, X, y, weights="one")):
            raise Failure(
                "your Hessian has no weights: it is X~^T S X~ with S = diag(p_i (1 - p_i)), not X~^T X~ "
                "(that would be least squares)."
            )
        if same(_newton_variant(w, b, X, y, weights="p")):
            raise Failure("the weights are p_i (1 - p_i), the derivative of the sigmoid, not p_i.")
        if same(_newton_variant(w, b, X, y, scale=n)) or same(_newton_variant(w, b, X, y, scale=1.0 / n)):
            raise Failure(
                "your step is n times too large or too small: the gradient and the Hessian must both be sums "
                "over samples (or both means). Averaging only one of them scales the step by n."
            )
        if same(_newton_variant(w, b, X, y, blocks=True)):
            raise Failure(
                "you stepped w and b separately, each with its own block of the Hessian (X^T S X for w, "
                "sum_i s_i for b): the cross terms sum_i s_i x_i couple them. Append a column of ones to X "
                "and solve one (d+1) x (d+1) system for the step of theta = (w, b)."
            )
        if same(_newton_variant(w, b, X, y, intercept=False)):
            raise Failure(
                "b did not move and the step for w ignores b: append a column of ones to X so that w and b "
                "are updated together, with one (d+1) x (d+1) Hessian."
            )
        raise Failure(
            "the new parameters do not match theta + (X~^T S X~)^{-1} X~^T (y - p) with X~ = [X, 1], "
            "p = sigma(X w + b), S = diag(p (1 - p))."
        )


# ---------------------------------------------------------- ex-dvg-missing --


def _nb_marginal_reference(X, weights, means, variances, *, scale=None, uniform=False, impute=False,
                           naive=False):
    """Naive Bayes posteriors given the observed entries of each row (NaN = missing).

    The keyword arguments produce typical wrong answers: ``scale`` passed to the
    normal density in place of the standard deviation, ``uniform`` weights,
    missing entries ``impute``d with the model's overall mean, and the ``naive``
    product of densities without logarithms."""
    X = np.asarray(X, dtype=float)
    K = len(weights)
    w = np.full(K, 1.0 / K) if uniform else np.asarray(weights, dtype=float)
    missing = np.isnan(X)
    if impute:
        X = np.where(missing, np.asarray(weights) @ means, X)
        missing = np.zeros_like(missing)
    sd = np.sqrt(variances) if scale is None else scale
    if naive:
        with np.errstate(all="ignore"):
            dens = np.where(missing[:, None, :], 1.0, norm.pdf(X[:, None, :], means, sd)).prod(axis=2)
            joint = w * dens
            return joint / joint.sum(axis=1, keepdims=True)
    terms = np.where(missing[:, None, :], 0.0, norm.logpdf(X[:, None, :], means, sd))
    A = np.log(w) + terms.sum(axis=2)
    return np.exp(A - logsumexp(A, axis=1, keepdims=True))


_MISSING_ROWS = 12


def _missing_cases():
    """Three naive Bayes models and data sets with NaN for missing entries: row 0 has
    nothing missing, row 1 everything, row 2 exactly the first feature, row 3 lies
    far from every class (its density product underflows), the rest random."""
    rng = check_rng(104)
    for K, d in [(2, 3), (3, 4), (2, 5)]:
        weights = rng.dirichlet(np.full(K, 3.0))
        means = 1.5 * rng.normal(size=(K, d))
        variances = rng.uniform(0.3, 2.5, size=(K, d))
        X = means[rng.integers(0, K, size=_MISSING_ROWS)] + rng.normal(size=(_MISSING_ROWS, d))
        X[3] = 60.0 + np.arange(d)  # far from every class: exp of the log joint underflows
        mask = rng.random((_MISSING_ROWS, d)) < 0.35
        mask[0] = False
        mask[1] = True
        mask[2] = False
        mask[2, 0] = True
        mask[3] = False
        mask[3, -1] = True
        X[mask] = np.nan
        yield weights, means, variances, X, mask


@check(
    "ex-dvg-missing",
    "posteriors match Bayes' rule with the missing features' factors dropped on 3 naive Bayes problems "
    "(2 and 3 classes, 3 to 5 features, unequal weights), including rows with nothing missing, rows with "
    "everything missing and a row far from every class.",
    solves=("lib.discriminant.log_posterior_observed",),
    # norm.pdf too: a product of densities is the mistake the page warns about, and its answer should hear
    # about underflow, not be refused under SciPy's internal name (issue 52)
    allow=("scipy.special.logsumexp", "scipy.stats.norm.logpdf", "scipy.stats.norm.pdf"),
)
def marginal_posterior(student_fn):
    for weights, means, variances, X, mask in _missing_cases():
        n, K = X.shape[0], len(weights)
        out = call(student_fn, X, weights, means, variances, name="marginal_posterior")
        refuse_container(out, (n, K), "the posteriors", name="marginal_posterior")
        try:
            got = np.asarray(out, dtype=np.float64)
        except (TypeError, ValueError):
            raise Failure(
                f"marginal_posterior should return a numeric array of shape {(n, K)}, got a {type(out).__name__}."
            ) from None
        if got.shape != (n, K):
            hint = " It looks transposed." if got.shape == (K, n) else ""
            raise Failure(f"marginal_posterior should return shape (n_samples, K) = {(n, K)}, got {got.shape}.{hint}")
        ref = _nb_marginal_reference(X, weights, means, variances)
        if not np.any(np.isnan(got)) and np.all(got <= 0) and np.any(got < 0):
            with np.errstate(under="ignore"):
                if _close(np.exp(got), ref, rtol=1e-6, atol=1e-9):
                    raise Failure("you returned log-probabilities: exponentiate them.")
        bad = ~np.isfinite(got).all(axis=1)
        if bad.any():
            rows = np.flatnonzero(bad)
            if 3 in rows and not np.delete(bad, 3).any():
                raise Failure(
                    "NaN or inf only in the row far from every class: the product of the densities (or "
                    "exp of each log joint) underflows to 0 there, and 0/0 = NaN. Sum the log-densities and "
                    "normalise with scipy.special.logsumexp."
                )
            if set(rows) <= set(np.flatnonzero(mask.any(axis=1))):
                raise Failure(
                    "NaN in the rows that have missing features: a NaN entry poisons every sum it enters. "
                    "Give a missing feature's log-density the value 0 (its factor 1), e.g. with "
                    "np.where(np.isnan(X)[:, None, :], 0.0, terms), or skip it."
                )
            raise Failure("marginal_posterior returned NaN or inf; look for a log of 0 or a division by 0.")
        if _close(got, ref, rtol=1e-6, atol=1e-9):
            continue
        if not np.allclose(got.sum(axis=1), 1.0, atol=1e-6):
            raise Failure("the rows do not sum to one: normalise over the classes (divide by p(x_obs)).")

        def same(**kw):
            return _close(got, _nb_marginal_reference(X, weights, means, variances, **kw), rtol=1e-6, atol=1e-9)

        if same(scale=variances):
            raise Failure(
                "you passed the variances where the density expects standard deviations (norm.logpdf and "
                "norm.pdf take scale = sigma): use np.sqrt(variances)."
            )
        if same(uniform=True):
            raise Failure("your posterior ignores the weights pi_k: add ln pi_k to each class's log joint.")
        if _close(got[2:], _nb_marginal_reference(X, weights, means, variances, impute=True)[2:],
                  rtol=1e-6, atol=1e-9):
            raise Failure(
                "you filled the missing entries in with a mean and then used every factor: that treats a "
                "guess as an observation. Integrating a missing feature out of naive Bayes drops its factor."
            )
        if not _close(got[1], weights, rtol=1e-6, atol=1e-9) and _close(got[0], ref[0], rtol=1e-6, atol=1e-9):
            raise Failure(
                "for a row with every feature missing the posterior must equal the prior: nothing was "
                "observed, so nothing changes our belief (every factor is dropped, ln pi_k remains)."
            )
        raise Failure(
            "the posteriors do not match p(y = k | x_obs) = pi_k prod_{j observed} N(x_j | mu_kj, sigma2_kj) "
            "/ sum_l (the same for class l), row by row."
        )


# ---------------------------------------------------------- ex-dvg-nb-right --

#: The exercise's problem: d independent unit-variance features whose class means differ by DELTA.
_NB_RIGHT_D = 40
_NB_RIGHT_DELTA = 0.35
_NB_RIGHT_SIZES = np.array([10, 16, 25, 40, 63, 100, 160, 250, 400, 630, 1000])


def _shared_nb_excess(n_repeats=100, seed=20260):
    """Expected error of shared-variance naive Bayes on the exercise's problem, minus its value at
    n = 1000, averaged over n = 10, ..., 63: exact errors of the fitted linear rule
    (lib.discriminant.linear_rule_error), averaged over training sets drawn like the page's ``draw``."""
    rng = check_rng(seed)
    d, delta = _NB_RIGHT_D, _NB_RIGHT_DELTA
    means = np.vstack([np.zeros(d), np.full(d, delta)])
    cov = np.eye(d)
    expected = []
    for m in list(_NB_RIGHT_SIZES[:5]) + [_NB_RIGHT_SIZES[-1]]:
        total = 0.0
        for _ in range(n_repeats):
            y = rng.permutation(np.arange(m) % 2)
            X = means[y] + rng.standard_normal((m, d))
            counts = np.bincount(y, minlength=2)
            mu = np.array([X[y == k].mean(axis=0) for k in (0, 1)])
            var = (counts / m) @ np.array([((X[y == k] - mu[k]) ** 2).mean(axis=0) for k in (0, 1)])
            w = (mu[1] - mu[0]) / var
            b = np.log(counts[1] / counts[0]) + np.sum((mu[0] ** 2 - mu[1] ** 2) / (2 * var))
            total += discriminant.linear_rule_error(w, b, means, cov)
        expected.append(total / n_repeats)
    return float(np.mean(expected[:5]) - expected[-1])


@functools.lru_cache(maxsize=None)
def _small_sample_errors(n=10, n_repeats=100, n_test=2000, seed=20261):
    """Expected test errors at n = 10 of logistic regression (l2 = 0.01; exact errors of its linear rule)
    and of per-class-variance naive Bayes (on a test set), on the exercise's problem: (lr, per_class)."""
    rng = check_rng(seed)
    d, delta = _NB_RIGHT_D, _NB_RIGHT_DELTA
    means = np.vstack([np.zeros(d), np.full(d, delta)])
    y_test = rng.permutation(np.arange(n_test) % 2)
    X_test = means[y_test] + rng.standard_normal((n_test, d))
    lr_errors, pc_errors = [], []
    for _ in range(n_repeats):
        y = rng.permutation(np.arange(n) % 2)
        X = means[y] + rng.standard_normal((n, d))
        fit = logistic.LogisticRegression(l2=0.01).fit(X, y)
        lr_errors.append(discriminant.linear_rule_error(fit.coef_[0], fit.intercept_[0], means, np.eye(d)))
        mu = np.array([X[y == k].mean(axis=0) for k in (0, 1)])
        var = np.array([X[y == k].var(axis=0) for k in (0, 1)])
        log_joint = np.column_stack([-0.5 * np.sum(np.log(var[k]) + (X_test - mu[k]) ** 2 / var[k], axis=1)
                                     for k in (0, 1)])  # equal priors
        pc_errors.append(np.mean(np.argmax(log_joint, axis=1) != y_test))
    return float(np.mean(lr_errors)), float(np.mean(pc_errors))


@check(
    "ex-dvg-nb-right",
    "both learning curves have the requested sizes, lie in [0, 0.6], are not training errors (logistic "
    "regression errs on more than 5% of the test points at n = 10, within 0.06 of its expected error), end "
    "within 0.03 (naive Bayes) and 0.04 (logistic regression) of the Bayes error, the naive Bayes curve "
    "falls from n = 10 to 63 as shared-variance naive Bayes does (within 0.03 on average, which the "
    "per-class-variance variant does not), and naive Bayes is ahead on average for 25 to 250 training points.",
    allow=(),
)
def naive_bayes_right(sizes, nb_errors, lr_errors):
    for value, what in [(sizes, "sizes"), (nb_errors, "nb_errors"), (lr_errors, "lr_errors")]:
        if value is Ellipsis or value is None:
            raise NotImplementedYet()
    sizes = np.asarray(sizes)
    if sizes.shape != _NB_RIGHT_SIZES.shape or not np.array_equal(sizes, _NB_RIGHT_SIZES):
        raise Failure("use the training-set sizes given in the starter cell, in that order.")
    for value, what in [(nb_errors, "nb_errors"), (lr_errors, "lr_errors")]:
        try:
            has_nan = bool(np.any(np.isnan(np.asarray(value, dtype=float))))
        except (TypeError, ValueError):
            has_nan = False  # not numeric: expect_array below says so
        if has_nan:
            raise Failure(
                f"{what} contains NaN: some size has no error recorded (a mean over an empty list, or an "
                "entry never filled in). Compute one mean test error for every size."
            )
    nb = expect_array(nb_errors, sizes.shape, "nb_errors (one mean test error per size)", name="your experiment")
    lr = expect_array(lr_errors, sizes.shape, "lr_errors (one mean test error per size)", name="your experiment")
    if np.any(nb < 0) or np.any(lr < 0) or np.any(nb > 0.6) or np.any(lr > 0.6):
        raise Failure(
            "error rates must lie between 0 and about 0.5 (a coin flip): did you report accuracies, or counts "
            "of mistakes instead of fractions?"
        )
    bayes = float(norm.cdf(-np.sqrt(_NB_RIGHT_D) * _NB_RIGHT_DELTA / 2))
    if np.all(nb < 0.05) and np.all(lr < 0.05):
        raise Failure(
            "both curves stay below 0.05 at every size, even naive Bayes with 10 training points in 40 "
            "dimensions, far below the Bayes error of this problem: these look like the standard errors of the "
            "means (learning_curves returns (means, standard errors)), or training errors. Store the mean test "
            "errors."
        )
    if lr[0] < 0.05:
        raise Failure(
            "logistic regression makes almost no mistakes with 10 training points in 40 dimensions. With n < d "
            "the training points are always linearly separable, so this is the TRAINING error: measure the "
            "error on the held-out test set."
        )
    # Logistic regression at n = 10: 16 repeats and a 2000-point test set put about 0.016 of noise on it.
    lr_10, per_class_10 = _small_sample_errors()
    if abs(lr[0] - lr_10) > 0.06:
        if abs(lr[0] - per_class_10) <= 0.06:
            raise Failure(
                "your logistic-regression errors at n = 10 look like those of naive Bayes with per-class variances "
                "(row 1 of learning_curves), not of logistic regression (row 2): check which row you took."
            )
        raise Failure(
            "your logistic-regression error at n = 10 is far from what lib.logistic.LogisticRegression(l2=0.01) "
            "gives on this problem on average: check the model, its l2 penalty and that you average over at "
            "least 16 training sets."
        )
    # The tolerances allow for the noise of a 2000-point test set shared by the whole curve.
    if abs(nb[-1] - bayes) > 0.03:
        raise Failure(
            "with 1000 training points naive Bayes, whose assumptions hold exactly here, should be within 0.03 "
            "of the Bayes error, and yours is not. Check the data (rho = 0), the test set (at least 2000 "
            "points, drawn once) and that you average over at least 16 training sets per size."
        )
    if abs(lr[-1] - bayes) > 0.04:
        raise Failure(
            "with 1000 training points logistic regression should be within 0.04 of the Bayes error, and yours "
            "is not. Use lib.logistic.LogisticRegression(l2=0.01) and a held-out test set of at least 2000 points."
        )
    excess = float(np.mean(nb[:5]) - nb[-1])  # how far the small-sample errors lie above the n = 1000 one
    expected = _shared_nb_excess()
    if excess > expected + 0.03:
        raise Failure(
            "your naive Bayes errors for 10 to 63 training points lie much further above its error at n = 1000 "
            "than those of naive Bayes with shared variances do. That is the signature of the per-class "
            "variant (one variance per class and feature, row 1 of learning_curves), whose d extra variances "
            "cost it accuracy with few examples. The exercise asks for the partner of logistic regression in "
            "the theorem: variances shared by the classes (row 0)."
        )
    if excess < expected - 0.03:
        raise Failure(
            "your naive Bayes errors barely fall between 10 and 63 training points: with 40 features, "
            "naive Bayes fitted to 10 points is clearly worse than with 1000. Check that every size uses "
            "its own fresh training sets of that size, and that you report test errors."
        )
    middle = (sizes >= 25) & (sizes <= 250)
    if nb[middle].mean() >= lr[middle].mean():
        raise Failure(
            "between 25 and 250 training points naive Bayes should be ahead on average when its model is "
            "right (it needs O(log d) samples, logistic regression O(d)). Check that both models see the same "
            "training sets and that you average over at least 16 repeats."
        )
