"""Checks for the exercises of chapter 4, "Mixture models and the EM algorithm".

Every reference value comes from :mod:`lib.mixture` (imported when a check
runs, so importing :mod:`lib.checks` stays cheap).  The exercises use
spherical mixtures, :math:`\\Sigma_k = \\sigma_k^2 I`, with ``variances`` of
shape ``(K,)``.
"""

from importlib import import_module

import numpy as np

from ._core import check_rng  # every input a check draws: salted while the grader judges (issue 49)

from . import _variants
from ._core import Failure, NotImplementedYet, call, check, expect_array, expect_ndarray, expect_number, expect_tuple

__all__ = ["em_e_step", "em_m_step_spherical", "em_second_iteration", "em_run", "em_lower_bound", "em_dempster_q"]

def _mixture():
    return import_module("lib.mixture")


def _spherical_problem(rng, n, d, K, spread=4.0):
    """Data from a spherical mixture with unequal weights and variances, and parameters near it."""
    weights = rng.dirichlet(np.full(K, 2.0))
    weights = 0.5 * weights + 0.5 * np.linspace(1.0, 3.0, K) / np.linspace(1.0, 3.0, K).sum()
    means = rng.normal(scale=spread, size=(K, d)) + 2.0  # offset: the data are not centred at 0
    variances = np.linspace(0.4, 2.0, K) * rng.uniform(0.8, 1.2, size=K)
    z = rng.choice(K, size=n, p=weights)
    X = means[z] + rng.normal(size=(n, d)) * np.sqrt(variances[z])[:, None]
    # the parameters handed to the student: a perturbed copy of the truth
    start_means = means + rng.normal(scale=0.5, size=(K, d))
    return X, weights, start_means, variances


def _softmax_rows(log_p):
    return np.exp(log_p - np.max(log_p, axis=1, keepdims=True)) / np.sum(
        np.exp(log_p - np.max(log_p, axis=1, keepdims=True)), axis=1, keepdims=True
    )


def _sq_dist(X, means):
    return ((X[:, None, :] - means[None, :, :]) ** 2).sum(axis=2)  # (n, K)


def _reject_tuple(out, what, name):
    if isinstance(out, tuple):
        raise Failure(
            f"{name} returned a tuple of {len(out)} items; return only {what} as one array "
            "(lib.mixture.e_step also returns the log-normaliser, your function should not)."
        )


# --------------------------------------------------------------------------- ex-em-e-step


@check(
    "ex-em-e-step",
    "matches equation em-e-step on 3 spherical mixtures with unequal weights and variances "
    "(d = 1, 2, 4), including points far from every component.",
    solves=("lib.mixture.e_step", "lib.mixture.estimate_log_prob", "lib.gaussian.log_prob",
            "lib.gaussian.logpdf", "lib.discriminant.posterior", "lib.discriminant.log_posterior",
            "lib.variational.posterior"),
    allow=("scipy.special.logsumexp",),
)
def em_e_step(student_fn):
    mixture = _mixture()
    rng = check_rng(40)
    cases = [_spherical_problem(rng, 40, d, K) for d, K in [(2, 3), (1, 2), (4, 4)]]
    for X, weights, means, variances in cases:
        n, d = X.shape
        K = len(weights)
        out = call(student_fn, X, weights, means, variances, name="e_step_spherical")
        _reject_tuple(out, "the responsibilities", "e_step_spherical")
        resp = expect_ndarray(out, (n, K), "the responsibilities", name="e_step_spherical")
        if np.any(resp < -1e-12):
            if np.all(resp <= 1e-12) and np.allclose(np.exp(resp).sum(axis=1), 1.0, atol=1e-8):
                raise Failure(
                    "you returned the log-responsibilities ln(gamma_ik) (all entries <= 0): "
                    "exponentiate them, resp = exp(log_joint - logsumexp(log_joint, axis=1, keepdims=True))."
                )
            raise Failure("some responsibilities are negative; they are probabilities.")
        row_sums = resp.sum(axis=1)
        if not np.allclose(row_sums, 1.0, atol=1e-8):
            if np.allclose(resp.sum(axis=0), 1.0, atol=1e-8):
                raise Failure(
                    "each column of your array sums to 1, but each row must: normalise over the "
                    "components (axis=1), not over the samples (axis=0)."
                )
            raise Failure(
                "the rows of your responsibilities do not sum to 1: divide by the sum over the "
                "components k, i.e. subtract logsumexp(log_joint, axis=1, keepdims=True) in log space."
            )
        want, _ = mixture.e_step(X, weights, means, variances, "spherical")
        if np.allclose(resp, want, rtol=1e-6, atol=1e-9):
            continue
        sq = _sq_dist(X, means)
        log_w = np.log(weights)
        log_det = -0.5 * d * np.log(2 * np.pi * variances)
        mistakes = [
            (log_det - sq / (2 * variances),
             "your responsibilities ignore the mixing weights: add ln(weights[k]) to each log-density "
             "(the weights matter whenever they are unequal)."),
            (log_w - sq / (2 * variances),
             "you dropped the -(d/2) ln(2 pi sigma_k^2) term of the log-density: it cancels only when "
             "all variances are equal."),
            (log_w - 0.5 * d * np.log(2 * np.pi * np.sqrt(variances)) - sq / (2 * np.sqrt(variances)),
             "you used the variances as if they were standard deviations: variances[k] is sigma_k^2."),
            (log_w + log_det - sq / variances,
             "the exponent lacks the factor 1/2: the log-density has -||x - mu_k||^2 / (2 sigma_k^2)."),
            (log_w - 0.5 * np.log(2 * np.pi * variances) - sq / (2 * variances),
             "the normalising constant of a d-dimensional spherical Gaussian is (2 pi sigma^2)^(-d/2): "
             "the factor d is missing."),
            (log_w - np.log(2 * np.pi * variances) - sq / (2 * variances),
             "your normalising constant is the two-dimensional (2 pi sigma_k^2)^(-1), right only in d = 2: "
             "a d-dimensional spherical Gaussian has (2 pi sigma_k^2)^(-d/2) with d = X.shape[1]."),
            (log_w - 0.5 * n * np.log(2 * np.pi * variances) - sq / (2 * variances),
             "the normalising constant uses the number of samples n = X.shape[0] where the dimension "
             "d = X.shape[1] belongs: a d-dimensional spherical Gaussian has (2 pi sigma^2)^(-d/2)."),
            (log_w + 0.5 * d * np.log(2 * np.pi * variances) - sq / (2 * variances),
             "the log-determinant term has the wrong sign: the log-density has -(d/2) ln(2 pi sigma_k^2) "
             "(a wider component has a lower peak), not +(d/2) ln(2 pi sigma_k^2)."),
        ]
        for log_p, message in mistakes:
            if np.allclose(resp, _softmax_rows(log_p), rtol=1e-6, atol=1e-9):
                raise Failure(message)
        raise Failure(
            "your responsibilities differ from equation em-e-step. Compute ln(weights[k]) "
            "+ ln N(x_i | mu_k, sigma_k^2 I) for every i, k, then subtract its logsumexp over k."
        )

    # points far from every component: the densities underflow to 0
    X, weights, means, variances = cases[0]
    X_far = np.vstack([X[:5], means[0] + np.array([60.0, -45.0]), means[1] + np.array([-80.0, 30.0])])
    small = variances * 0.05
    out = call(student_fn, X_far, weights, means, small, name="e_step_spherical")
    _reject_tuple(out, "the responsibilities", "e_step_spherical")
    arr = np.asarray(out, dtype=np.float64) if not isinstance(out, (str, bytes)) else None
    if arr is not None and arr.shape == (len(X_far), len(weights)) and not np.all(np.isfinite(arr)):
        raise Failure(
            "NaN or infinity for points far from every component: their densities underflow to 0 and "
            "0/0 follows. Stay in log space: resp = exp(log_joint - logsumexp(log_joint, axis=1, keepdims=True))."
        )
    resp = expect_ndarray(out, (len(X_far), len(weights)), "the responsibilities", name="e_step_spherical")
    want, _ = mixture.e_step(X_far, weights, means, small, "spherical")
    if not np.allclose(resp, want, rtol=1e-6, atol=1e-9):
        raise Failure(
            "wrong responsibilities for points far from every component (your function is right for "
            "nearby points): do not clip or floor the densities, normalise the log-joint with logsumexp."
        )


# --------------------------------------------------------------------------- ex-em-m-step


@check(
    "ex-em-m-step",
    "matches equations em-m-step-weights, em-m-step-means and em-m-step-cov (spherical) "
    "on 3 data sets (d = 3, 2 and 5, the last 1e7 from the origin) with uneven responsibilities.",
    solves=("lib.mixture.m_step",),
    allow=(),
)
def em_m_step_spherical(student_fn):
    mixture = _mixture()
    rng = check_rng(41)
    for n, K, d, offset in [(30, 3, 3, 0.0), (45, 2, 2, 0.0), (25, 4, 5, 1e7)]:
        # mean far from 0; the last set 1e7 away, where moments about the origin cancel (section 4.4)
        X = rng.normal(size=(n, d)) * 1.5 + rng.normal(scale=3.0, size=d) + 4.0 + offset
        resp = rng.dirichlet(np.full(K, 0.4), size=n)
        resp[: K, :] = np.eye(K)  # every component owns at least one point outright
        out = call(student_fn, X, resp, name="m_step_spherical")
        expect_tuple(out, 3, "the tuple (weights, means, variances)", name="m_step_spherical")
        weights = expect_array(out[0], (K,), "the weights", name="m_step_spherical")
        means = expect_array(out[1], (K, d), "the means", name="m_step_spherical")
        var_arr = np.asarray(out[2], dtype=np.float64)
        if var_arr.shape == (K, d):
            raise Failure(
                "your variances have shape (K, d), one per coordinate (a diagonal covariance); a "
                "spherical component has one variance: average over the d coordinates."
            )
        variances = expect_array(out[2], (K,), "the variances", name="m_step_spherical")
        want_w, want_m, want_v = mixture.m_step(X, resp, "spherical", reg_covar=0.0)
        nk = resp.sum(axis=0)

        # weights
        if not np.allclose(weights, want_w, rtol=1e-7, atol=1e-12):
            if np.allclose(weights, nk, rtol=1e-7):
                raise Failure("your weights are the soft counts n_k; the weights are n_k / n (they sum to 1).")
            if not np.isclose(weights.sum(), 1.0):
                raise Failure("your weights do not sum to 1: pi_k = n_k / n with n_k = sum_i resp[i, k].")
            raise Failure("your weights differ from pi_k = n_k / n with n_k = sum_i resp[i, k].")

        # means
        if not np.allclose(means, want_m, rtol=1e-7, atol=1e-10):
            weighted_sum = resp.T @ X
            if np.allclose(means, weighted_sum, rtol=1e-7):
                raise Failure(
                    "your means are weighted sums, not weighted averages: divide sum_i resp[i, k] x_i "
                    "by n_k = sum_i resp[i, k]. Without the 1/n_k the 'mean' grows with the number of points "
                    "the component holds and no longer lies among them."
                )
            if np.allclose(means, weighted_sum / n, rtol=1e-7):
                raise Failure("your means divide by n; a component's mean divides by its soft count n_k.")
            if means.shape[0] == means.shape[1] and np.allclose(means.T, want_m, rtol=1e-7, atol=1e-10):
                raise Failure(
                    "your means are transposed: means[k] must be the mean of component k, a row of "
                    "length d (shape (K, d)); resp.T @ X has that layout."
                )
            if np.allclose(means, np.broadcast_to(X.mean(axis=0), means.shape), rtol=1e-7):
                raise Failure(
                    "every component got the plain data mean: weight each x_i by resp[i, k] "
                    "(an unweighted mean ignores the responsibilities)."
                )
            raise Failure("your means differ from mu_k = sum_i resp[i, k] x_i / n_k.")

        # variances
        if not np.allclose(variances, want_v, rtol=1e-7, atol=1e-12):
            sq = _sq_dist(X, want_m)  # (n, K)
            weighted = (resp * sq).sum(axis=0)
            mistakes = [
                (weighted / nk, "your variances are d times too large: a spherical variance averages "
                                "over the d coordinates, so divide by d * n_k."),
                (weighted / (d * (nk - 1)), "your variances divide by d * (n_k - 1): maximum likelihood "
                                            "divides by d * n_k (the n - 1 correction is not the M-step)."),
                (weighted / (d * n), "your variances divide by d * n; a component's variance divides by "
                                     "d * n_k, its own soft count."),
                (weighted / n, "your variances divide by n and miss the 1/d: use d * n_k."),
                (weighted / (3 * nk), "your variances divide by 3 * n_k, right only in d = 3: divide by d * n_k "
                                      "with d = X.shape[1], the dimension of the data you are given."),
                (sq.sum(axis=0) / (d * nk), "your variances ignore the responsibilities: weight each "
                                            "squared distance ||x_i - mu_k||^2 by resp[i, k]."),
                (sq.sum(axis=0) / nk, "your variances ignore the responsibilities and the 1/d: use "
                                      "sum_i resp[i, k] ||x_i - mu_k||^2 / (d * n_k)."),
            ]
            for value, message in mistakes:
                if np.allclose(variances, value, rtol=1e-7):
                    raise Failure(message)
            if np.allclose(variances ** 2, want_v, rtol=1e-7):
                raise Failure(
                    "your variances look like standard deviations (their squares are right): return "
                    "sigma_k^2 itself, without a square root."
                )
            if np.allclose(variances - want_v, np.full(K, (variances - want_v)[0]), rtol=0, atol=1e-9) and (
                1e-12 < (variances - want_v)[0] < 1e-2
            ):
                raise Failure(
                    "your variances are right up to a small constant added to each of them: the exercise "
                    "asks for the plain update with no ridge (lib.mixture.m_step adds reg_covar=1e-6 "
                    "unless told otherwise)."
                )
            if offset and np.allclose(variances, want_v, rtol=0.5):
                raise Failure(
                    "your variances are right for data near the origin but wrong for data 1e7 away from it: "
                    "sum_i resp[i, k] ||x_i||^2 / n_k - ||mu_k||^2 subtracts two numbers near 1e14 and loses "
                    "their digits (the cancellation of section 4.4). Sum the squared distances to the new "
                    "means, ||x_i - mu_k||^2, instead."
                )
            raise Failure(
                "your variances differ from sigma_k^2 = sum_i resp[i, k] ||x_i - mu_k||^2 / (d * n_k), "
                "computed with the *new* means."
            )


# --------------------------------------------------------------------------- ex-em-second-iteration

# Variants: theta^(1) = (pi_1, mu_1 = (a, 0), mu_2 = (b, 0), sigma_1^2, sigma_2^2) on the worked example's
# four points; variant 0 is the book's theta^(1), the worked example's first M-step.


_SECOND_TOLERANCE = 1.5e-4  # the answer to 4 decimals, one unit either way


def _second_iteration(p):
    """pi_1^(2) for the variant ``p`` and the values of the usual slips, [(value, message)]."""
    X = import_module("lib.datasets").worked_example()["X"]  # (4, 2): the same four points in every variant
    d = X.shape[1]
    w1 = np.array([p["pi1"], 1.0 - p["pi1"]])
    m1 = np.array([[p["a"], 0.0], [p["b"], 0.0]])
    v1 = np.array([p["var1"], p["var2"]])
    sq = _sq_dist(X, m1)  # (4, 2)
    log_w, log_c = np.log(w1), -0.5 * d * np.log(2 * np.pi * v1)
    right = float(_softmax_rows(log_w + log_c - sq / (2 * v1))[:, 0].mean())
    pis = f"pi = ({w1[0]:g}, {w1[1]:g})"
    variances = f"sigma_1^2 = {v1[0]:g} and sigma_2^2 = {v1[1]:g}"
    slips = [
        (log_c - sq / (2 * v1),
         f"your responsibilities ignore the weights {pis}: multiply each density by its weight."),
        (log_w - sq / (2 * v1),
         "you dropped the normalising constant 1 / (2 pi sigma_k^2): it cancels only when the variances are "
         "equal, and here they are not."),
        (log_w - 0.5 * np.log(2 * np.pi * v1) - sq / (2 * v1),
         "your normalising constant is the one-dimensional (2 pi sigma^2)^(-1/2); in d = 2 it is "
         "(2 pi sigma^2)^(-1)."),
        (log_w + log_c + d * np.log(2 * np.pi * v1) - sq / (2 * v1),
         "your normalising constant has the wrong sign in the exponent: the density has (2 pi sigma^2)^(-1), "
         "i.e. -ln(2 pi sigma^2) in the log-density, not +."),
        (log_w + log_c - sq / v1,
         "the exponent lacks the factor 1/2: the density has exp(-||x - mu||^2 / (2 sigma^2))."),
        (log_w - 0.5 * d * np.log(2 * np.pi * v1**2) - sq / (2 * v1**2),
         f"you squared the variances: {variances} are already variances."),
        (log_w - 0.5 * d * np.log(2 * np.pi * np.sqrt(v1)) - sq / (2 * np.sqrt(v1)),
         f"you used the standard deviations (square roots of {variances}) where the variances belong."),
    ]
    slips = [(float(_softmax_rows(log_joint)[:, 0].mean()), message) for log_joint, message in slips]
    slips.insert(0, (float(p["pi1"]), "that is pi_1 of theta^(1), after the first iteration; run the E-step "
                                      "with theta^(1), then update the weights."))
    return right, slips


def _second_iteration_degenerate(p):
    if not p["a"] < p["b"]:
        return "the components are not in the worked example's order"
    right, slips = _second_iteration(p)
    if not 0.02 < right < 0.98:
        return "one component takes every point"
    return _variants.mistaken_for(right, slips)


def _second_iteration_draw(rng):
    return {"pi1": float(rng.integers(5, 18)) / 20, "a": float(rng.integers(-15, -4)) / 10,
            "b": float(rng.integers(-3, 6)) / 10, "var1": float(rng.integers(8, 25)) / 40,
            "var2": float(rng.integers(8, 31)) / 100}


_variants.register(_variants.Spec(
    "ex-em-second-iteration",
    book={"pi1": 0.75, "a": -1.0, "b": 0.0, "var1": 0.375, "var2": 0.125},
    draw=_second_iteration_draw,
    degenerate=_second_iteration_degenerate,
    describe=lambda p: (f"theta^(1): pi = ({p['pi1']:g}, {1 - p['pi1']:g}), mu_1 = ({p['a']:g}, 0), "
                        f"mu_2 = ({p['b']:g}, 0), sigma_1^2 = {p['var1']:g}, sigma_2^2 = {p['var2']:g}"),
    answer=lambda p: _second_iteration(p)[0],
    tolerance=_SECOND_TOLERANCE,
))


@check(
    "ex-em-second-iteration",
    "your pi_1 after the second iteration, from your variant's theta^(1), is right to 4 decimals.",
    allow=(),
)
def em_second_iteration(answer):
    if answer is Ellipsis:
        raise NotImplementedYet()
    if answer is None:
        raise Failure("answer is None: assign your number, e.g. answer = 0.123.")
    if isinstance(answer, float) and np.isnan(answer):
        raise Failure("answer is NaN: assign the number you computed, e.g. answer = 0.123.")
    value = expect_number(answer, "pi_1", name="answer")
    if not 0.0 <= value <= 1.0:
        raise Failure("a mixing weight lies between 0 and 1; check the soft counts n_k and the division by n = 4.")
    right, slips = _second_iteration(_variants.current("ex-em-second-iteration"))
    if abs(value - right) < _SECOND_TOLERANCE:
        return
    book = _variants.registered()["ex-em-second-iteration"].book
    if _variants.current_seed("ex-em-second-iteration") != 0 and abs(value - _second_iteration(book)[0]) \
            < _SECOND_TOLERANCE:
        raise Failure("that is pi_1 of the book's variant (the worked example's theta^(1)); your variant cell "
                      "printed other numbers: compute with those.")
    # Typical slips, each computed and compared (to 4 decimals, one unit of tolerance); none of these
    # values is the answer (the variants avoid that), so naming the slip reveals nothing.
    for slip_pi1, message in slips:
        if abs(value - slip_pi1) < _SECOND_TOLERANCE:
            raise Failure(message)
    # No branch for "you gave pi_2": saying so would give pi_1 = 1 - answer away.
    raise Failure(
        "not yet. Make sure you report pi_1, the weight of the component that starts at mu_1. "
        "Recompute gamma_11 and gamma_31 with theta^(1)'s variances: the density of a 2-D "
        "spherical Gaussian is exp(-||x - mu||^2 / (2 sigma^2)) / (2 pi sigma^2); then "
        "pi_1 = (2 gamma_11 + 2 gamma_31) / 4."
    )


# --------------------------------------------------------------------------- ex-em-run


def _reference_history(mixture, X, weights, means, variances, n_iter, old_centres=False):
    """EM's log-likelihoods; ``old_centres``: the mistake of variances measured about the old means."""
    theta = (weights, means, variances)
    history = [mixture.log_likelihood(X, *theta, "spherical")]
    for _ in range(n_iter):
        resp, _ = mixture.e_step(X, *theta, "spherical")
        new = mixture.m_step(X, resp, "spherical", reg_covar=0.0)
        if old_centres:
            nk = resp.sum(axis=0)
            new = (new[0], new[1], (resp * _sq_dist(X, theta[1])).sum(axis=0) / (X.shape[1] * nk))
        theta = new
        history.append(mixture.log_likelihood(X, *theta, "spherical"))
    return np.array(history)


@check(
    "ex-em-run",
    "your log-likelihood sequences (numpy arrays) never decrease and match EM from the same 4 starting "
    "points on 2 data sets (5 to 8 iterations, unequal initial weights).",
    solves=("lib.mixture.GaussianMixture.fit",),
    allow=("lib.mixture.e_step", "lib.mixture.m_step", "lib.mixture.log_likelihood"),
)
def em_run(student_fn):
    mixture = _mixture()
    rng = check_rng(42)
    X, weights, means, variances = _spherical_problem(rng, 60, 2, 3, spread=3.0)
    X2, weights2, means2, _ = _spherical_problem(rng, 45, 3, 2, spread=3.0)  # another data set, d = 3, K = 2
    starts = [
        (X, weights, means, np.ones(3), 8),
        (X, np.array([0.5, 0.3, 0.2]), X[rng.choice(len(X), 3, replace=False)], np.full(3, 2.0), 8),
        (X, np.array([0.2, 0.2, 0.6]), X[rng.choice(len(X), 3, replace=False)], np.array([0.5, 1.0, 3.0]), 5),
        (X2, weights2, means2, np.array([2.0, 0.7]), 6),
    ]
    for X, w0, m0, v0, n_iter in starts:
        out = call(student_fn, X, w0, m0, v0, n_iter, name="run_em")
        try:
            arr = np.asarray(out, dtype=np.float64).ravel()
        except (TypeError, ValueError):
            raise Failure(
                f"run_em should return the log-likelihoods as a 1-D numpy array of numbers, got {type(out).__name__}."
            ) from None
        if arr.size == n_iter:
            raise Failure(
                f"run_em returned {n_iter} values for n_iter={n_iter}; return n_iter + 1: the first is the "
                "log-likelihood at the initial parameters, before any iteration."
            )
        history = expect_ndarray(out, (n_iter + 1,), "the log-likelihood history", name="run_em")
        want = _reference_history(mixture, X, w0, m0, v0, n_iter)
        if np.allclose(-history, want, rtol=1e-7, atol=1e-9) or np.allclose(-history, want / len(X), rtol=1e-7):
            raise Failure(
                "your values have the wrong sign: record the log-likelihood ell(theta) of equation gmm-loglik "
                "(negative here, and rising under EM), not the negative log-likelihood."
            )
        if np.allclose(history, want, rtol=1e-7, atol=1e-9):
            continue
        if np.allclose(history, want / len(X), rtol=1e-7):
            raise Failure(
                "you recorded the average log-likelihood per sample; record the total ell(theta) of "
                "equation gmm-loglik (the sum over the samples)."
            )
        # The log-likelihood at the starting parameters involves no M-step: judge it first, so that a
        # decrease is blamed on the M-step only when the log-likelihood itself has been shown right.
        if not np.isclose(history[0], want[0], rtol=1e-7):
            if np.isclose(history[0], want[1], rtol=1e-7):
                raise Failure(
                    "your first entry is the log-likelihood after one iteration; entry 0 must be at the "
                    "initial parameters."
                )
            raise Failure(
                "your first entry is not the log-likelihood ell(theta) (equation gmm-loglik) at the initial "
                "parameters; check the log-likelihood computation (log-sum-exp over the components, "
                "including ln(weights))."
            )
        drops = np.flatnonzero(np.diff(history) < -1e-8 * np.maximum(1.0, np.abs(history[1:])))
        if drops.size:
            raise Failure(
                f"your log-likelihood is right at the starting parameters but decreases at iteration "
                f"{drops[0] + 1}, and EM never lowers it (corollary cor-em-monotone). Look for a bug in the "
                "M-step: weights n_k / n, means divided by n_k, variances by d * n_k, computed with the new means."
            )
        if np.allclose(history, _reference_history(mixture, X, w0, m0, v0, n_iter, old_centres=True),
                       rtol=1e-7, atol=1e-9):
            raise Failure(
                "your sequence starts right but each M-step computes the variances about the old means: "
                "update the means first and measure ||x_i - mu_k||^2 from the new ones (the M-step's variance "
                "maximises F with the new means in place)."
            )
        raise Failure(
            "your sequence is monotone and starts right, but later entries differ from EM from the same "
            "start: check that each iteration updates weights, means and variances from the E-step's "
            "responsibilities (spherical M-step, no ridge, no early stopping)."
        )


# --------------------------------------------------------------------------- ex-em-lower-bound


@check(
    "ex-em-lower-bound",
    "matches L(q, theta) of equation em-lower-bound for random q, for q with exact zeros, and for "
    "the E-step's q (where it equals the log-likelihood), on 2 spherical mixtures.",
    solves=("lib.mixture.lower_bound", "lib.mixture.expected_complete_log_likelihood",
            "lib.variational.gmm_elbo", "lib.variational.elbo"),
    allow=("scipy.special.xlogy",),
)
def em_lower_bound(student_fn):
    mixture = _mixture()
    rng = check_rng(43)
    for n, d, K in [(20, 2, 3), (15, 3, 2)]:
        X, weights, means, variances = _spherical_problem(rng, n, d, K)
        Q_random = rng.dirichlet(np.ones(K), size=n)
        Q_zeros = Q_random.copy()
        Q_zeros[::3, 0] = 0.0  # exact zeros: 0 ln 0 = 0
        Q_zeros[1::4] = np.eye(K)[np.arange(len(Q_zeros[1::4])) % K]
        Q_zeros /= Q_zeros.sum(axis=1, keepdims=True)
        Q_post, log_norm = mixture.e_step(X, weights, means, variances, "spherical")
        for label, Q in [("a random q", Q_random), ("a q with exact zeros", Q_zeros), ("the E-step's q", Q_post)]:
            out = call(student_fn, X, Q, weights, means, variances, name="lower_bound_spherical")
            if label == "a q with exact zeros":
                arr = np.asarray(out, dtype=np.float64) if not isinstance(out, (str, bytes)) else None
                if arr is not None and arr.size == 1 and not np.isfinite(arr.reshape(())):
                    raise Failure(
                        "NaN or infinity for a q with exact zeros: 0 * ln(0) gives NaN in floating point. "
                        "Use the convention 0 ln 0 = 0, e.g. scipy.special.xlogy(q, q) for q ln q."
                    )
            value = expect_number(out, "L(q, theta)", name="lower_bound_spherical")
            want = mixture.lower_bound(X, Q, weights, means, variances, "spherical")
            if np.isclose(value, want, rtol=1e-7, atol=1e-9):
                continue
            F = mixture.expected_complete_log_likelihood(X, Q, weights, means, variances, "spherical")
            H = mixture.entropy(Q)
            L = float(log_norm.sum())
            if np.isclose(value, F, rtol=1e-7):
                raise Failure(
                    f"for {label} you returned F(q, theta) without the entropy term: L = F + sum_i H(q_i) "
                    "with H(q_i) = -sum_k q_ik ln q_ik."
                )
            if np.isclose(value, F - H, rtol=1e-7):
                raise Failure(
                    f"for {label} the entropy enters with the wrong sign: H(q_i) = -sum_k q_ik ln q_ik is "
                    "non-negative and L = F + sum_i H(q_i)."
                )
            if np.isclose(value, L, rtol=1e-7):
                raise Failure(
                    f"for {label} you returned the log-likelihood ell(theta), which does not depend on q; "
                    "L(q, theta) equals ell(theta) only when q is the E-step's posterior (lemma lem-em-e-step)."
                )
            if np.isclose(value, -want, rtol=1e-7):
                raise Failure(
                    f"for {label} your value has the wrong overall sign: L(q, theta) is a lower bound on the "
                    "log-likelihood (not a loss), L = F(q, theta) + sum_i H(q_i)."
                )
            if np.isclose(value, want / n, rtol=1e-7):
                raise Failure("you returned an average over the samples; L sums over i = 1..n.")
            raise Failure(
                f"your L differs for {label}: L = sum_i sum_k q_ik (ln pi_k + ln N(x_i | mu_k, sigma_k^2 I) "
                "- ln q_ik), with the full log-density including -(d/2) ln(2 pi sigma_k^2)."
            )


# --------------------------------------------------------------------------- ex-em-dempster-q


@check(
    "ex-em-dempster-q",
    "matches Q(theta | theta_old) of equation em-dempster-q on 2 spherical mixtures, for theta far from "
    "theta_old, equal to the M-step's parameters and equal to theta_old.",
    solves=("lib.em_theory.dempster_q", "lib.mixture.expected_complete_log_likelihood"),
    allow=("lib.mixture.e_step", "scipy.special.xlogy"),  # xlogy: an entropy term is refused for what it is
)
def em_dempster_q(student_fn):
    mixture = _mixture()
    theory = import_module("lib.em_theory")
    rng = check_rng(47)
    for n, d, K in [(25, 2, 3), (18, 3, 2)]:
        X, weights, means, variances = _spherical_problem(rng, n, d, K)
        old = (weights, means, variances)
        resp_old, _ = mixture.e_step(X, *old, "spherical")
        m_new = mixture.m_step(X, resp_old, "spherical", reg_covar=0.0)
        far = (rng.dirichlet(np.full(K, 3.0)), means + rng.normal(scale=1.5, size=means.shape),
               variances * rng.uniform(0.5, 2.0, size=K))
        for label, theta in [("theta far from theta_old", far), ("theta = the M-step's parameters", m_new),
                             ("theta = theta_old", old)]:  # at theta_old, ell = Q + entropy: last
            args = (X.copy(), tuple(np.copy(a) for a in theta), tuple(np.copy(a) for a in old))
            out = call(student_fn, *args, name="dempster_q_spherical")
            value = expect_number(out, "Q(theta | theta_old)", name="dempster_q_spherical")
            want = theory.dempster_q(X, theta, old, "spherical")
            if np.isclose(value, want, rtol=1e-7, atol=1e-9):
                continue
            resp_new, log_norm_new = mixture.e_step(X, *theta, "spherical")
            F_new = mixture.expected_complete_log_likelihood(X, resp_new, *theta, "spherical")
            swapped = theory.dempster_q(X, old, theta, "spherical")
            H_old = mixture.entropy(resp_old)
            hard = np.eye(K)[np.argmax(resp_old, axis=1)]
            F_hard = mixture.expected_complete_log_likelihood(X, hard, *theta, "spherical")
            for wrong, message in [
                (want + H_old, "you added the entropy of the posterior: that is the bound L(q, theta); Q is the "
                               "expected complete-data log-likelihood alone."),
                (float(log_norm_new.sum()), "you returned the log-likelihood ell(theta); Q averages the "
                                            "complete-data log-likelihood ln p_theta(x_i, z_i) over the posterior."),
                (F_new, "your responsibilities come from theta; in Q(theta | theta_old) the posterior over the "
                        "labels is the one at theta_old (the E-step), and only ln p_theta(x_i, z_i) uses theta."),
                (swapped, "the two arguments are swapped: the posterior comes from theta_old, the log-joint "
                          "from theta."),
                (F_hard, "you used hard assignments; Q weights each component by its posterior probability."),
                (want / n, "you returned an average over the samples; Q sums over i = 1..n."),
            ]:
                if np.isclose(value, wrong, rtol=1e-7, atol=1e-9):  # never the right value: value != want
                    raise Failure(f"for {label}: {message}")
            raise Failure(
                f"your Q differs for {label}: Q = sum_i sum_k gamma_ik(theta_old) (ln pi_k + ln N(x_i | mu_k, "
                "sigma_k^2 I)), with the full log-density including -(d/2) ln(2 pi sigma_k^2)."
            )

