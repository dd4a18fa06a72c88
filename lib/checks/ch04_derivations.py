"""Checks for chapter 4's derivation exercises: the Lagrange weight update, the full-covariance
M-step, the rate of EM from the missing information, and the MAP covariance update.

Every reference value comes from :mod:`lib.mixture` or :mod:`lib.em_theory` (imported when a
check runs), evaluated on fresh inputs that the student does not see; no message shows a
reference value.  Each typical mistake is detected by computing it and comparing.
"""

from importlib import import_module

import numpy as np

from ._core import check_rng  # every input a check draws: salted while the grader judges (issue 49)

from ._core import Failure, call, check, expect_ndarray, expect_number, expect_tuple

__all__ = ["em_lagrange_weights", "em_m_step_full", "em_missing_information_rate", "em_map_covariances"]


def _lib_module(name):
    """``lib.<name>`` of the package this check was loaded from (the grader loads a fresh copy)."""
    return import_module(f"..{name}", __package__)


def _mixture():
    return _lib_module("mixture")


def _close(a, b, rtol=1e-7, atol=1e-10):
    return a.shape == np.shape(b) and bool(np.allclose(a, b, rtol=rtol, atol=atol))


def _scatter(X, resp, centres):
    """sum_i resp[i, k] (x_i - c_k)(x_i - c_k)^T for every k, shape (K, d, d)."""
    return np.stack([(resp[:, k] * (X - c).T) @ (X - c) for k, c in enumerate(centres)])




# --------------------------------------------------------------------------- ex-em-lagrange-weights


@check(
    "ex-em-lagrange-weights",
    "matches the maximiser of sum_k (sum_i c_i resp[i, k]) ln pi_k on the simplex on 5 problems "
    "(K = 2, 3, 5), with unit counts, unequal whole counts and fractional counts.",
    allow=(),
)
def em_lagrange_weights(student_fn):
    rng = check_rng(440)
    cases = []
    # counts are "positive numbers": whole ones (repeated rows) and, last, fractional ones (weighted rows)
    for n, K, unit in [(12, 3, True), (20, 2, False), (15, 5, False), (30, 3, False), (18, 3, None)]:
        resp = rng.dirichlet(np.full(K, 0.6), size=n)
        counts = (np.ones(n) if unit else rng.integers(1, 9, size=n).astype(float) if unit is False
                  else np.round(rng.uniform(1.0, 6.0, size=n), 2))
        cases.append((resp, counts))
    for resp, counts in cases:
        n, K = resp.shape
        out = call(student_fn, resp, counts, name="weight_update")
        weights = expect_ndarray(out, (K,), "the weights", name="weight_update")
        nk = counts @ resp  # weighted soft counts
        want = nk / counts.sum()
        if _close(weights, want, rtol=1e-9, atol=1e-12):
            continue
        plain = resp.sum(axis=0)
        mistakes = [
            (plain / n, "your weights ignore the counts: point i stands for counts[i] identical points, so "
                        "its responsibilities enter the soft counts counts[i] times."),
            (nk / n, "your numerator is right but you divide by n, the number of distinct rows; the "
                     "constraint sum_k pi_k = 1 makes the Lagrange multiplier equal the total count."),
            (nk, "you returned the soft counts themselves; the constraint sum_k pi_k = 1 fixes the "
                 "Lagrange multiplier, divide by it."),
            (nk / K, "you normalised by the number of components K; the multiplier comes from summing "
                     "pi_k = n_k / nu over k, which gives the total count, not K."),
            (plain / K, "you normalised by the number of components K (and ignored the counts); sum "
                        "pi_k = n_k / nu over k to find nu."),
            (np.full(K, 1.0 / K), "you returned uniform weights: the weights must follow the soft counts."),
            (np.floor(counts) @ resp / np.floor(counts).sum(),
             "your weights treat the counts as whole numbers (repeating rows, or int(counts[i])): the statement "
             "allows any positive counts, such as 2.5; weight the responsibilities of row i by counts[i] itself."),
        ]
        for value, message in mistakes:
            if _close(weights, value, rtol=1e-9, atol=1e-12):
                raise Failure(message)
        if not np.isclose(weights.sum(), 1.0):
            raise Failure("your weights do not sum to 1; the constraint sum_k pi_k = 1 must hold.")
        raise Failure(
            "your weights differ from the maximiser: with n_k = sum_i counts[i] resp[i, k], set the "
            "derivative of sum_k n_k ln pi_k - nu (sum_k pi_k - 1) to zero and solve for nu."
        )


# --------------------------------------------------------------------------- ex-em-m-step-full


def _full_problem(rng, n, d, K):
    means = rng.normal(scale=3.0, size=(K, d)) + 5.0  # far from 0: centring mistakes show
    A = rng.normal(size=(K, d, d)) * 0.6
    covs = A @ np.swapaxes(A, 1, 2) + 0.5 * np.eye(d)
    weights = rng.dirichlet(np.full(K, 3.0))
    z = rng.choice(K, size=n, p=weights)
    chol = np.linalg.cholesky(covs)  # (K, d, d)
    X = means[z] + np.einsum("nij,nj->ni", chol[z], rng.normal(size=(n, d)))
    start_means = means + rng.normal(scale=0.8, size=(K, d))
    return X, weights, start_means, covs


@check(
    "ex-em-m-step-full",
    "one EM iteration with full covariances matches the E-step followed by equations "
    "em-m-step-weights, em-m-step-means and em-m-step-cov (no ridge) on 3 data sets (d = 2, 3), the last "
    "1e7 from the origin.",
    solves=("lib.mixture.m_step",),
    allow=("lib.mixture.e_step",),
)
def em_m_step_full(student_fn):
    mixture = _mixture()
    rng = check_rng(441)
    for n, d, K, offset in [(40, 2, 3, 0.0), (60, 3, 2, 0.0), (35, 2, 4, 1e7)]:
        X, weights, means, covs = _full_problem(rng, n, d, K)
        # the last set 1e7 from the origin, where moments about the origin cancel (section 4.4)
        X, means = X + offset, means + offset
        out = expect_tuple(call(student_fn, X, weights, means, covs, name="em_iteration_full"), 3,
                           "(weights, means, covariances)", name="em_iteration_full")
        new_w = expect_ndarray(out[0], (K,), "the weights", name="em_iteration_full")
        new_m = expect_ndarray(out[1], (K, d), "the means", name="em_iteration_full")
        new_c = expect_ndarray(out[2], (K, d, d), "the covariances", name="em_iteration_full")
        resp, _ = mixture.e_step(X, weights, means, covs, "full")
        want_w, want_m, want_c = mixture.m_step(X, resp, "full", reg_covar=0.0)
        nk = resp.sum(axis=0)

        if not _close(new_w, want_w, rtol=1e-6, atol=1e-10):
            for value, message in [
                (nk, "your weights are the soft counts n_k; the Lagrange multiplier turns them into n_k / n."),
                (nk / K, "you normalised the weights by the number of components K; pi_k = n_k / n."),
                (weights, "your weights did not change: the M-step sets pi_k = n_k / n from the new "
                          "responsibilities."),
            ]:
                if _close(new_w, value, rtol=1e-6, atol=1e-10):
                    raise Failure(message)
            raise Failure("your weights differ from pi_k = n_k / n with n_k = sum_i resp[i, k] from the E-step.")

        if not _close(new_m, want_m, rtol=1e-6, atol=1e-9):
            for value, message in [
                (resp.T @ X, "your means are weighted sums; divide by the soft counts n_k."),
                (resp.T @ X / n, "your means divide by n; divide by the soft count n_k."),
                (np.broadcast_to(X.mean(axis=0), (K, d)),
                 "every component got the plain data mean: weight each x_i by resp[i, k]."),
                (means, "your means did not change: the M-step sets mu_k = sum_i resp[i, k] x_i / n_k."),
            ]:
                if _close(new_m, value, rtol=1e-6, atol=1e-9):
                    raise Failure(message)
            raise Failure("your means differ from mu_k = sum_i resp[i, k] x_i / n_k.")

        if _close(new_c, want_c, rtol=1e-6, atol=1e-9):
            continue
        ones = np.ones_like(resp)
        counts = np.stack([np.sum(resp[:, k]) for k in range(K)])
        mistakes = [
            (_scatter(X, resp, want_m) / (counts - 1)[:, None, None],
             "your covariances divide by n_k - 1: maximum likelihood divides by n_k (the unbiased n - 1 "
             "correction is not the maximiser of F)."),
            (_scatter(X, resp, means) / counts[:, None, None],
             "your covariances are centred at the old means (the ones the E-step used); centre them at the "
             "new means mu_k^new, which maximise F whatever Sigma_k is."),
            (_scatter(X, ones, want_m) / counts[:, None, None],
             "your covariances ignore the responsibilities (an unweighted scatter): weight each outer "
             "product (x_i - mu_k)(x_i - mu_k)^T by resp[i, k]."),
            (_scatter(X, ones, want_m) / n,
             "your covariances ignore the responsibilities: weight each outer product by resp[i, k] and "
             "divide by n_k."),
            (_scatter(X, resp, want_m) / n,
             "your covariances divide by n; each component divides by its own soft count n_k."),
            (_scatter(X, resp, want_m) / (counts - (resp ** 2).sum(axis=0) / counts)[:, None, None],
             "your covariances divide by n_k - sum_i resp[i, k]^2 / n_k, np.cov's unbiased correction for "
             "weights (aweights with ddof=1): the M-step's maximum-likelihood covariance divides by n_k "
             "(np.cov(..., aweights=..., bias=True))."),
            (np.broadcast_to(np.cov(X.T, bias=True), (K, d, d)),
             "every component got the covariance of the whole data set: weight by resp[i, k] and centre "
             "at the component's mean."),
        ]
        for value, message in mistakes:
            if _close(new_c, value, rtol=1e-6, atol=1e-9):
                raise Failure(message)
        diff = new_c - want_c
        eye_part = np.einsum("kii->k", diff) / d
        if np.allclose(diff, eye_part[:, None, None] * np.eye(d), rtol=0, atol=1e-12) and 0 < eye_part.min() < 1e-3:
            raise Failure(
                "your covariances are right up to a small ridge on the diagonal: the exercise asks for the "
                "plain update (lib.mixture.m_step adds reg_covar=1e-6 unless told otherwise)."
            )
        if offset and np.allclose(new_c, want_c, rtol=0.5, atol=0.5):
            raise Failure(
                "your covariances are right for data near the origin but wrong for data 1e7 away from it: "
                "sum_i resp[i, k] x_i x_i^T / n_k - mu_k mu_k^T subtracts two numbers near 1e14 and loses "
                "their digits (the cancellation of section 4.4). Centre first: sum the outer products of "
                "x_i - mu_k with the new means."
            )
        raise Failure(
            "your covariances differ from Sigma_k = sum_i resp[i, k] (x_i - mu_k)(x_i - mu_k)^T / n_k with "
            "the new means."
        )


# --------------------------------------------------------------------------- ex-em-rate


def _rate_problem(rng, n, K):
    weights = rng.dirichlet(np.full(K, 4.0))
    means = np.sort(rng.normal(scale=2.0, size=K)) + 1.5
    variances = rng.uniform(0.4, 2.5, size=K)
    z = rng.choice(K, size=n, p=weights)
    x = means[z] + np.sqrt(variances[z]) * rng.normal(size=n)
    return x, weights, means + rng.normal(scale=0.3, size=K), variances


@check(
    "ex-em-rate",
    "matches I_missing / I_complete (equation em-rate) at the given parameters on 4 one-dimensional "
    "mixtures (K = 2 and 3, unequal weights and variances, every component index).",
    solves=("lib.em_theory.em_rate", "lib.em_theory.mean_information"),
    allow=("lib.mixture.e_step", "scipy.special.logsumexp"),  # the responsibilities by hand are no shortcut
)
def em_missing_information_rate(student_fn):
    theory = _lib_module("em_theory")
    mixture = _mixture()
    rng = check_rng(442)
    for n, K in [(80, 2), (120, 3), (60, 2), (100, 3)]:
        x, weights, means, variances = _rate_problem(rng, n, K)
        for c in range(K):
            out = call(student_fn, x, weights, means, variances, c, name="em_rate_one_mean")
            got = expect_number(out, "the rate", name="em_rate_one_mean")
            info = theory.mean_information(x, weights, means, variances, c)
            want = info.missing / info.complete
            if np.isclose(got, want, rtol=1e-6, atol=1e-12):
                continue
            resp, _ = mixture.e_step(x[:, None], weights, means[:, None], variances, "spherical")
            g, v, r = resp[:, c], variances[c], x - means[c]
            resp_sq, _ = mixture.e_step(x[:, None], weights, means[:, None], variances**2, "spherical")
            g_sq = resp_sq[:, c]
            complete = g.sum() / v
            mistakes = [
                (info.observed / info.complete,
                 "you returned I_observed / I_complete, which is 1 minus the rate: the rate is the "
                 "*missing* fraction."),
                (info.missing / info.observed,
                 "you divided by the observed information; the rate divides by the complete-data "
                 "information."),
                (np.sum(g * r**2) / v**2 / complete,
                 "your missing information lacks the factor (1 - gamma_ic): it is the posterior *variance* "
                 "of the complete-data score, and a Bernoulli(gamma) variable has variance gamma (1 - gamma)."),
                (np.sum(g * (1 - g) * r**2) / v / complete,
                 "your rate lacks a factor 1 / sigma_c^2: the missing information divides by sigma_c^4 "
                 "(the score (x_i - mu_c) / sigma_c^2 is squared), the complete information by sigma_c^2."),
                (np.sum(g * (1 - g) * r**2) / v**4 / (g.sum() / v**2),
                 "you squared variances[c] as if it were a standard deviation: it is already sigma_c^2."),
                (np.sum(g_sq * (1 - g_sq) * r**2) / v**4 / (g_sq.sum() / v**2),
                 "you squared the variances as if they were standard deviations: variances[k] is already "
                 "sigma_k^2."),
                (np.sum(g * (1 - g) * r**2) / (v * n),
                 "your complete information sums 1 / sigma_c^2 over all n points; weight each point by its "
                 "responsibility gamma_ic."),
            ]
            for value, message in mistakes:
                if np.isclose(got, value, rtol=1e-6, atol=1e-12):
                    raise Failure(message)
            if not 0.0 <= got < 1.0:
                raise Failure(
                    "a fraction of missing information lies in [0, 1): the missing information is part of "
                    "the complete information."
                )
            raise Failure(
                "your rate differs from I_missing / I_complete: compute the responsibilities of component "
                "`component` at the given parameters, then the posterior variance and the expected second "
                "derivative of the complete-data log-likelihood in mu_c."
            )


# --------------------------------------------------------------------------- ex-em-map-covariances


@check(
    "ex-em-map-covariances",
    "matches the MAP covariance update (equation em-map-m-step) on 3 problems (d = 2, 3) with "
    "different prior scales and degrees of freedom.",
    solves=("lib.mixture.map_m_step",),
    allow=(),
)
def em_map_covariances(student_fn):
    mixture = _mixture()
    rng = check_rng(443)
    for n, d, K, kappa in [(30, 2, 3, 4.0), (25, 3, 2, 6.5), (40, 2, 2, 2.0)]:
        X = rng.normal(size=(n, d)) * 1.4 + rng.normal(scale=3.0, size=d) + 4.0
        resp = rng.dirichlet(np.full(K, 0.5), size=n)
        B = rng.normal(size=(d, d))
        psi = 0.5 * (B @ B.T) + np.eye(d)
        out = call(student_fn, X, resp, psi, kappa, name="map_covariances")
        covs = expect_ndarray(out, (K, d, d), "the covariances", name="map_covariances")
        _, means, want = mixture.map_m_step(X, resp, psi, kappa)
        if _close(covs, want, rtol=1e-7, atol=1e-10):
            continue
        nk = resp.sum(axis=0)
        S = _scatter(X, resp, means)
        den = (nk + kappa + d + 1)[:, None, None]
        mistakes = [
            ((psi + S) / (nk + kappa)[:, None, None],
             "your denominator lacks the d + 1: the inverse-Wishart density has |Sigma|^(-(kappa + d + 1)/2)."),
            ((psi + S) / (nk + d + 1)[:, None, None],
             "your denominator lacks the degrees of freedom kappa of the prior."),
            ((psi + S) / nk[:, None, None],
             "you added Psi to the scatter but kept the maximum-likelihood denominator n_k: the prior's "
             "|Sigma| factor adds kappa + d + 1 to it."),
            (S / nk[:, None, None],
             "you returned the maximum-likelihood covariances: the prior adds Psi to the scatter and "
             "kappa + d + 1 to the count."),
            (S / nk[:, None, None] + psi / den,
             "you divided the scatter and Psi by different numbers: both sit in one trace term, "
             "-1/2 tr((Psi + S_k) Sigma_k^{-1}), so they share the denominator."),
            (S / den,
             "you forgot Psi in the numerator: the prior's exp(-tr(Psi Sigma^{-1}) / 2) adds Psi to S_k."),
            ((psi + _scatter(X, np.ones_like(resp), means)) / den,
             "your scatter ignores the responsibilities: weight each outer product by resp[i, k]."),
            ((psi + _scatter(X, resp, np.zeros((K, d)))) / den,
             "your scatter is taken about the origin; centre it at the component's mean mu_k."),
            ((psi + S) / (nk + kappa + d - 1)[:, None, None],
             "your denominator has d - 1 where the MAP update has d + 1: the inverse-Wishart density "
             "has |Sigma|^(-(kappa + d + 1)/2)."),
        ]
        if d != 2:  # the first problem has d = 2: kappa + 3 is right there
            mistakes.append(((psi + S) / (nk + kappa + 3)[:, None, None],
                             f"your denominator adds kappa + 3, right only in d = 2; here d = {d}: the "
                             "inverse-Wishart density has |Sigma|^(-(kappa + d + 1)/2) with d = X.shape[1]."))
        for value, message in mistakes:
            if _close(covs, value, rtol=1e-7, atol=1e-10):
                raise Failure(message)
        raise Failure(
            "your covariances differ from the MAP update: maximise "
            "-(n_k + kappa + d + 1)/2 ln det Sigma_k - 1/2 tr((Psi + S_k) Sigma_k^{-1}) over Sigma_k."
        )
