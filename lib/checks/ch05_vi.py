"""Checks for chapter 5's sections on CAVI and the Bayesian mixture.

Every check compares the student's function with :mod:`lib.variational` (or a
closed form) on freshly generated inputs, names the typical mistakes it
recognises by computing them, and never shows the expected value.
"""

import numpy as np

from ._core import check_rng  # every input a check draws: salted while the grader judges (issue 49)
from scipy.special import digamma

from .. import variational as V
from ._core import Failure, call, check, expect_ndarray, expect_number, expect_tuple

__all__ = ["cavi_update", "kl_p_to_factorised", "vb_dirichlet_weights"]


def _close(a, b, tol=1e-8):
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    return bool(np.all(np.abs(a - b) <= tol * (1.0 + np.abs(b))))


def _random_target(d, rng):
    A = rng.normal(size=(d, d))
    cov = A @ A.T + 0.3 * np.eye(d)
    return rng.normal(size=d), cov


def _pair(out, name):
    expect_tuple(out, 2, "the pair (new_mean, variance), two numbers,", name=name, tuple_only=True)
    return (expect_number(out[0], "the new mean zbar_j", name=name),
            expect_number(out[1], "the variance of q_j", name=name))


# ----------------------------------------------------------------- CAVI update


@check("ex-cavi-update", "matches the CAVI update (mean and variance of q_j) on 6 random Gaussian targets "
       "in 2 to 4 dimensions, for every coordinate j, with the factor's own old mean away from the answer.",
       solves=("lib.variational.cavi_gaussian_update", "lib.variational.cavi_gaussian"),
       allow=())
def cavi_update(student_fn):
    rng = check_rng(550)
    for d in (2, 2, 3, 3, 4, 4):
        mean, cov = _random_target(d, rng)
        prec = V.gaussian_precision(cov)
        q_means = mean + rng.normal(scale=2.0, size=d)
        for j in range(d):
            got_m, got_v = _pair(call(student_fn, q_means, j, mean, cov, name="cavi_update"), "cavi_update")
            want_m, want_v = V.cavi_gaussian_update(q_means, j, mean, prec)
            others = np.delete(np.arange(d), j)
            diff = q_means - mean
            shift = prec[j, others] @ diff[others]
            mean_variants = [
                (mean[j] + shift / prec[j, j],
                 "the correction to mu_j has the wrong sign: completing the square in z_j gives "
                 "mu_j - (1/Lambda_jj) sum_{l != j} Lambda_jl (zbar_l - mu_l)."),
                (mean[j] - (prec[j] @ diff) / prec[j, j],
                 "your sum over l includes l = j, so the new mean depends on the factor's own old mean zbar_j. "
                 "In E_{q_-j}[ln p(z)] only the OTHER coordinates are averaged; z_j stays the variable, "
                 "and its own terms form the square."),
                (mean[j] - shift,
                 "the correction is not divided by Lambda_jj: after completing the square the mean is "
                 "(coefficient of z_j) / Lambda_jj."),
                (mean[j] - (cov[j, others] @ diff[others]) / cov[j, j],
                 "you used the covariance Sigma where the update needs the precision Lambda = Sigma^-1: "
                 "ln p(z) = const - (1/2)(z - mu)^T Lambda (z - mu)."),
            ]
            var_variants = [
                (cov[j, j], "your variance is Sigma_jj, the true marginal variance. The optimal factor has "
                            "precision Lambda_jj, the coefficient of -z_j^2 / 2 in ln p(z), so its variance "
                            "is 1 / Lambda_jj, which is smaller."),
                (np.sqrt(want_v), "your variance is the standard deviation 1 / sqrt(Lambda_jj): return the "
                                  "variance 1 / Lambda_jj."),
                (prec[j, j], "you returned the precision Lambda_jj; the variance is its reciprocal."),
                (1.0 / cov[j, j],
                 "your variance is 1 / Sigma_jj: invert the whole covariance matrix first and take "
                 "1 / (Sigma^-1)_jj, not the reciprocal of a diagonal entry of Sigma."),
            ]
            mean_ok = _close(got_m, want_m, 1e-7)
            if not mean_ok:
                for value, message in mean_variants:
                    if _close(got_m, value, 1e-7) and not _close(value, want_m, 1e-7):
                        raise Failure(message)
                hint = (" It passed the 2-dimensional targets: sum over every other coordinate l != j, l from 0 "
                        "to d - 1 with d = len(mean), not over the one other coordinate of d = 2.") if d > 2 else ""
                raise Failure(f"your new mean zbar_j differs from the CAVI update on a random {d}-dimensional "
                              "target; complete the square in z_j in E_{q_-j}[ln p(z)] term by term." + hint)
            if not _close(got_v, want_v, 1e-7):
                for value, message in var_variants:
                    if _close(got_v, value, 1e-7) and not _close(value, want_v, 1e-7):
                        raise Failure(message)
                if got_v <= 0:
                    raise Failure("a variance must be positive.")
                raise Failure(f"your mean is right but the variance differs on a random {d}-dimensional "
                              "target; read it off the coefficient of z_j^2.")


# -------------------------------------------------------- KL(p || q) closed form


@check("ex-kl-gauss-pq", "matches the closed form of KL(p || q) on 6 random pairs (2 to 4 dimensions, q with "
       "its own means and variances), including q equal to the true marginals.",
       solves=("lib.variational.kl_gaussian_to_diag", "lib.mle.gaussian_kl"),
       allow=())
def kl_p_to_factorised(student_fn):
    rng = check_rng(551)
    for d in (2, 2, 3, 3, 4, 2):
        mean, cov = _random_target(d, rng)
        q_means = mean + rng.normal(scale=0.7, size=d)
        q_vars = np.diag(cov) * rng.uniform(0.3, 2.5, size=d)
        got = expect_number(call(student_fn, mean, cov, q_means, q_vars, name="kl_p_to_factorised"),
                            "KL(p || q)", name="kl_p_to_factorised")
        want = V.kl_gaussian_to_diag(mean, cov, q_means, q_vars)
        if _close(got, want, 1e-7):
            continue
        log_det = np.linalg.slogdet(cov)[1]
        tr = np.sum((np.diag(cov) + (mean - q_means) ** 2) / q_vars)
        sum_log_v = np.sum(np.log(q_vars))
        variants = [
            (V.kl_diag_to_gaussian(q_means, q_vars, mean, cov),
             "this is KL(q || p), the other direction (the one CAVI minimises). KL(p || q) averages "
             "ln p - ln q under p, so the Sigma_jj of p meets the variances v_j of q."),
            (2 * want, "your value is twice the divergence: the factor 1/2 in front is missing."),
            (0.5 * (tr - d - sum_log_v + log_det),
             "the log-determinant terms have the wrong signs: E_p[ln p] contributes -1/2 ln det Sigma and "
             "-E_p[ln q] contributes +1/2 sum_j ln v_j."),
            (0.5 * (tr + sum_log_v - log_det),
             "the constant -d is missing: E_p[(z - mu)^T Sigma^-1 (z - mu)] = d."),
            (0.5 * (np.sum(np.diag(cov) / q_vars) - d + sum_log_v - log_det),
             "the mean term is missing: E_p[(z_j - zbar_j)^2] = Sigma_jj + (mu_j - zbar_j)^2."),
            (0.5 * (np.sum((np.diag(cov) + (mean - q_means) ** 2) / np.sqrt(q_vars)) - d
                    + 0.5 * sum_log_v - log_det),
             "q_variances are variances v_j, not standard deviations: divide by v_j, and ln v_j enters "
             "with a factor 1/2."),
        ]
        for value, message in variants:
            if _close(got, value, 1e-7) and not _close(value, want, 1e-7):
                raise Failure(message)
        if got < -1e-9:
            raise Failure("a KL divergence is never negative; your value is.")
        if abs(got - want) < 5.5e-4 * max(1.0, abs(want)) and any(round(got, k) == got for k in range(5)):
            raise Failure("your value is right to a few decimals but rounded: return the divergence at full "
                          "precision (round only what you print).")
        raise Failure(f"your value differs from KL(p || q) on a random {d}-dimensional pair; write "
                      "E_p[ln p(z)] and E_p[ln q(z)] separately and subtract.")
    # q equal to the marginals of a diagonal p: the divergence must vanish
    mean, var = np.array([0.3, -1.0, 2.0]), np.array([0.5, 2.0, 1.2])
    got = expect_number(call(student_fn, mean, np.diag(var), mean, var, name="kl_p_to_factorised"),
                        "KL(p || q)", name="kl_p_to_factorised")
    if abs(got) > 1e-8:
        raise Failure("for a diagonal Sigma and q equal to p your value is not 0, but KL(p || p) = 0.")


# ------------------------------------------------------- Dirichlet update (VB-GMM)


@check("ex-vb-dirichlet-weights", "matches alpha_k = alpha_0 + n_k and E[ln pi_k] = digamma(alpha_k) - "
       "digamma(sum_l alpha_l) on 5 random responsibility matrices and priors from 0.001 to 100.",
       solves=("lib.bayesian_mixture.vb_m_step", "lib.bayesian_mixture.vb_e_step"),
       allow=("scipy.special.digamma",))
def vb_dirichlet_weights(student_fn):
    rng = check_rng(552)
    for n, K, alpha0 in ((30, 3, 0.5), (50, 5, 0.001), (20, 4, 100.0), (40, 6, 0.01), (10, 2, 2.5)):
        resp = rng.dirichlet(np.full(K, 0.3), size=n)
        out = call(student_fn, resp, alpha0, name="vb_dirichlet_weights")
        if not isinstance(out, (tuple, list)) or len(out) != 2:
            raise Failure("return a pair (alpha, expected_log_weights), two arrays of shape (K,).")
        if np.shape(out[0]) == (n,):
            raise Failure(f"alpha has one entry per data point, shape ({n},): sum the responsibilities over "
                          "the points (axis 0) to get one count n_k per component.")
        alpha = expect_ndarray(out[0], (K,), "alpha", name="vb_dirichlet_weights")
        elog = expect_ndarray(out[1], (K,), "expected_log_weights", name="vb_dirichlet_weights")
        nk = resp.sum(axis=0)
        want_alpha = alpha0 + nk
        want_elog = digamma(want_alpha) - digamma(want_alpha.sum())
        if not _close(alpha, want_alpha, 1e-9):
            if _close(alpha, nk, 1e-9):
                raise Failure("alpha is the counts n_k alone: the Dirichlet prior on the weights contributes to "
                              "the exponent of each pi_k as well.")
            if _close(alpha, alpha0 - 1 + nk, 1e-9):
                raise Failure("alpha_0 - 1 + n_k belongs to the MAP weights of Chapter 4; read the concentration "
                              "off the collected exponent the way a Dirichlet(alpha) density writes it, "
                              "pi_k^(alpha_k - 1).")
            if _close(alpha, (alpha0 + nk) / (K * alpha0 + n), 1e-9):
                raise Failure("you returned the posterior mean weights E[pi_k]; return the concentration "
                              "parameters alpha_k themselves.")
            raise Failure("alpha differs from the Dirichlet posterior's concentration on a random case.")
        if _close(elog, np.log(want_alpha / want_alpha.sum()), 1e-9):
            raise Failure("this is ln E[pi_k] = ln(alpha_k / sum alpha); the update needs E[ln pi_k], which is "
                          "smaller (Jensen) and is written with the digamma function.")
        if _close(elog, digamma(want_alpha) - digamma(K * alpha0), 1e-9):
            raise Failure("the second digamma takes the sum of the posterior concentrations, sum_l alpha_l = "
                          "K alpha_0 + n, not of the prior's.")
        if _close(elog, digamma(want_alpha), 1e-9):
            raise Failure("the normalising term -digamma(sum_l alpha_l) is missing.")
        if not _close(elog, want_elog, 1e-9):
            raise Failure("expected_log_weights differ from E[ln pi_k] under Dirichlet(alpha) on a random case.")
