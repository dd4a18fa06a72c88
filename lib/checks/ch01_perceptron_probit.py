"""Checks for the exercises on the perceptron and probit regression (chapter 1, section page 2).

Each check runs the student's function on fresh generated inputs, compares it
with :mod:`lib.logistic`, and names the first typical mistake it recognises
by computing that mistake and comparing.
"""

import numpy as np

from ._core import check_rng  # every input a check draws: salted while the grader judges (issue 49)
from scipy.special import log_ndtr, ndtr
from scipy.stats import norm

from .. import logistic
from ._core import Failure, call, check, expect_array, expect_count, expect_number, expect_tuple, refuse_container

__all__ = ["probit_gradient", "perceptron_epoch"]




def _problem(rng, n, d, shift=1.0):
    y = rng.permutation(np.arange(n) % 2)
    X = rng.normal(size=(n, d)) + shift * y[:, None] * rng.normal(size=d)
    return X, y


# ---------------------------------------------------- ex-dvg-probit-gradient --


def _probit_variant(w, b, X, y, kind):
    """Typical wrong probit gradients, as (grad_w, grad_b)."""
    t = X @ w + b
    phi, Phi = norm.pdf(t), ndtr(t)
    with np.errstate(all="ignore"):
        if kind == "y1-only":  # the y = 0 term forgotten
            r = y * phi / Phi
        elif kind == "sign":  # + instead of - in front of the y = 0 term
            r = y * phi / Phi + (1 - y) * phi / (1 - Phi)
        elif kind == "logistic":  # the logistic residual with Phi in place of sigma
            r = y - Phi
        elif kind == "no-phi":  # d/dt ln Phi taken as 1/Phi
            r = y / Phi - (1 - y) / (1 - Phi)
        elif kind == "negated":
            s = 2.0 * y - 1.0
            r = -s * np.exp(norm.logpdf(s * t) - log_ndtr(s * t))
        else:
            raise ValueError(kind)
    return X.T @ r, float(np.sum(r))


@check(
    "ex-dvg-probit-gradient",
    "grad_w and grad_b match the derivative of sum_i ln Phi(s_i t_i) on 4 fresh problems (1 to 3 features, "
    "non-zero parameters), including one with margins near -40 where phi and Phi both underflow.",
    solves=("lib.logistic.probit_gradient",),
    allow=("scipy.special.log_ndtr", "scipy.special.ndtr", "scipy.stats.norm.logpdf", "scipy.stats.norm.pdf", "scipy.stats.norm.logcdf", "scipy.stats.norm.cdf"),
)
def probit_gradient(student_fn):
    rng = check_rng(211)
    for n, d, far in [(12, 2, False), (9, 3, False), (15, 1, False), (6, 2, True)]:
        X, y = _problem(rng, n, d)
        w, b = 0.7 * rng.normal(size=d), 0.25
        if far:  # every point about 40 standard units on the wrong side
            X = np.vstack([np.full(d, 40.0), np.full(d, -40.0)] * 3) / np.sqrt(d)
            y = np.array([0, 1] * 3)
            w, b = np.full(d, 1.0 / np.sqrt(d)), 0.0  # t_i = +-40, margins s_i t_i = -40
        out = expect_tuple(call(student_fn, w, b, X, y, name="probit_gradient", unchanged={0: "w", 2: "X"}), 2,
                           "(grad_w, grad_b)", name="probit_gradient")
        raw = np.asarray(out[0], dtype=float) if not isinstance(out[0], (str, bytes)) else None
        if far and raw is not None and raw.shape == (d,) and not np.all(np.isfinite(raw)):
            raise Failure(
                "NaN or inf in grad_w for points far on the wrong side (t about -40): phi(t) and Phi(t) both "
                "underflow to 0 there, and 0/0 = NaN. Compute the ratio phi(u)/Phi(u) as "
                "exp(norm.logpdf(u) - scipy.special.log_ndtr(u)), and write 1 - Phi(t) as Phi(-t)."
            )
        refuse_container(out[0], (d,), "grad_w", name="probit_gradient")
        gw = expect_array(out[0], (d,), "grad_w (one entry per feature)", name="probit_gradient")
        gb = expect_number(out[1], "grad_b", name="probit_gradient")
        ref_w, ref_b = logistic.probit_gradient(w, b, X, y)
        tol = dict(rtol=1e-6, atol=1e-9)
        if np.allclose(gw, ref_w, **tol) and np.isclose(gb, ref_b, **tol):
            continue

        def same(kind):
            vw, vb = _probit_variant(w, b, X, y, kind)
            return bool(np.all(np.isfinite(vw))) and np.allclose(gw, vw, **tol) and np.isclose(gb, vb, **tol)

        if same("negated"):
            raise Failure(
                "the gradient has the wrong sign everywhere: you differentiated the negative log-likelihood. "
                "The gradient of the log-likelihood points uphill."
            )
        if same("y1-only"):
            raise Failure(
                "only the y = 1 samples contribute: you differentiated y ln Phi(t) and dropped the y = 0 "
                "term (1 - y) ln(1 - Phi(t)), whose derivative is not zero."
            )
        if same("sign"):
            raise Failure(
                "the y = 0 term has the wrong sign: d/dt ln(1 - Phi(t)) = -phi(t) / (1 - Phi(t)), with a "
                "minus sign from the chain rule."
            )
        if same("logistic"):
            raise Failure(
                "you used the logistic residual y - p with p = Phi(t). That form relies on "
                "sigma' = sigma (1 - sigma), which Phi does not satisfy: Phi' = phi. Differentiate "
                "ln Phi(t) and ln(1 - Phi(t)) directly."
            )
        if same("no-phi"):
            raise Failure(
                "you wrote d/dt ln Phi(t) = 1 / Phi(t): the chain rule also multiplies by Phi'(t) = phi(t), "
                "the standard normal density."
            )
        if np.allclose(gw, ref_w / n, **tol):
            raise Failure("grad_w is divided by n (a mean); the log-likelihood is a sum over samples.")
        if np.allclose(gw, ref_w, **tol):
            raise Failure(
                "grad_w is right but grad_b is not: b multiplies a constant feature 1, so its derivative is "
                "the sum of the same per-sample factors that multiply x_i in grad_w."
            )
        raise Failure(
            "the gradient does not match the derivative of sum_i [y_i ln Phi(t_i) + (1 - y_i) ln Phi(-t_i)]; "
            "check it against central finite differences of your log-likelihood."
        )


# ------------------------------------------------------ ex-dvg-perceptron --


def _perceptron_variant(w, b, X, y, order, kind):
    w, b = np.array(w, dtype=float), float(b)
    w0, b0 = w.copy(), b
    s = 2.0 * y - 1.0
    m = 0
    for i in order:
        t = X[i] @ w + b
        if kind == "strict":
            wrong = s[i] * t < 0
        elif kind == "batch":  # judged with the parameters at the start of the epoch
            wrong = s[i] * (X[i] @ w0 + b0) <= 0
        elif kind == "always":
            wrong = True
        else:
            wrong = s[i] * t <= 0
        label = y[i] if kind == "01" else s[i]
        if wrong:
            w = w + label * X[i]
            if kind != "no-b":
                b = b + label
            m += 1
    return w, b, m


@check(
    "ex-dvg-perceptron",
    "(w, b, n_mistakes) after one epoch match the perceptron rule in the given order on 4 problems (1 to 3 "
    "features, starting from zero and from non-zero parameters), and the caller's w is left unchanged.",
    solves=("lib.logistic.perceptron_epoch",),
    allow=(),
)
def perceptron_epoch(student_fn):
    rng = check_rng(212)
    for n, d, start_zero in [(8, 2, True), (10, 3, False), (7, 1, False), (12, 2, True)]:
        X, y = _problem(rng, n, d)
        w, b = (np.zeros(d), 0.0) if start_zero else (0.5 * rng.normal(size=d), -0.2)
        order = rng.permutation(n)
        while np.array_equal(order, np.arange(n)):
            order = rng.permutation(n)
        out = expect_tuple(call(student_fn, w, b, X, y, order, name="perceptron_epoch", unchanged={0: "w"}), 3,
                           "(w, b, n_mistakes)", name="perceptron_epoch")
        refuse_container(out[0], (d,), "w", name="perceptron_epoch")
        got_w = expect_array(out[0], (d,), "w", name="perceptron_epoch")
        got_b = expect_number(out[1], "b", name="perceptron_epoch", float_only=True)
        got_m = expect_count(out[2], "n_mistakes", name="perceptron_epoch")
        ref_w, ref_b, ref_m = logistic.perceptron_epoch(w, b, X, y, 1.0, order)

        def same(v):
            return np.allclose(got_w, v[0], rtol=1e-9, atol=1e-12) and np.isclose(got_b, v[1], rtol=1e-9,
                                                                                   atol=1e-12)

        if same((ref_w, ref_b)):
            if got_m != ref_m:
                raise Failure(
                    "w and b are right but n_mistakes is not: count one mistake for every update made "
                    "during the epoch."
                )
            continue
        if same(_perceptron_variant(w, b, X, y, order, "strict")):
            raise Failure(
                "you update only when s_i t_i < 0. A point exactly on the boundary (t_i = 0, e.g. every "
                "point when w = 0 and b = 0) is not classified correctly either: update when s_i t_i <= 0, "
                "or the perceptron never leaves zero."
            )
        if same(_perceptron_variant(w, b, X, y, order, "01")):
            raise Failure(
                "you added y_i x_i with y_i in {0, 1}: a mistake on a class-0 point then changes nothing. "
                "Use the sign s_i = 2 y_i - 1 in {-1, +1}: w <- w + s_i x_i."
            )
        if same(_perceptron_variant(w, b, X, y, order, "batch")):
            raise Failure(
                "you judged every sample with the parameters at the start of the epoch and added up the updates "
                "(a batch rule). The perceptron updates after each mistake, and the next sample is judged with "
                "the w and b it left: compute s_i (w @ x_i + b) inside the loop with the current w and b."
            )
        if same(_perceptron_variant(w, b, X, y, order, "always")):
            raise Failure("you update on every sample: the perceptron updates only on mistakes (s_i t_i <= 0).")
        if same(_perceptron_variant(w, b, X, y, order, "no-b")):
            raise Failure("b never changes: on a mistake update it too, b <- b + s_i.")
        if same(_perceptron_variant(w, b, X, y, np.arange(n), "")):
            raise Failure("you visited the samples in the order 0, 1, ..., n-1: use the given `order`.")
        raise Failure(
            "the parameters after one epoch do not match: for each i in order, if s_i (w @ x_i + b) <= 0, "
            "then w <- w + s_i x_i and b <- b + s_i, with s_i = 2 y_i - 1."
        )
