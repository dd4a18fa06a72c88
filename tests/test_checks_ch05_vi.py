"""The checks of chapter 5's CAVI and Bayesian-mixture exercises accept right answers and name wrong ones."""

import re

import numpy as np
import pytest
from scipy.special import digamma

import lib.checks as checks
from check_helpers import assert_fails, not_implemented, raises


COMMON = [checks.cavi_update, checks.kl_p_to_factorised, checks.vb_dirichlet_weights]


@pytest.mark.parametrize("check", COMMON)
def test_generic_failures_become_messages(check):
    assert check(not_implemented).status == "not implemented"
    assert_fails(check(42), "expected a function")
    assert_fails(check(raises), "raised an exception", "boom")
    assert_fails(check(lambda *a: "text"), "")
    assert_fails(check(lambda *a: None), "return")


# ------------------------------------------------------------------ ex-cavi-update


def cavi_right(q_means, j, mean, covariance):
    prec = np.linalg.inv(covariance)
    others = [k for k in range(len(mean)) if k != j]
    shift = prec[j, others] @ (q_means[others] - mean[others])
    return mean[j] - shift / prec[j, j], 1 / prec[j, j]


def cavi_wrong(mean_rule=None, var_rule=None):
    def fn(q_means, j, mean, covariance):
        prec = np.linalg.inv(covariance)
        others = [k for k in range(len(mean)) if k != j]
        m, v = cavi_right(q_means, j, mean, covariance)
        if mean_rule:
            m = mean_rule(q_means, j, mean, covariance, prec, others)
        if var_rule:
            v = var_rule(j, covariance, prec)
        return m, v
    return fn


def test_cavi_update_accepts_the_right_answer():
    assert checks.cavi_update(cavi_right)
    # the conditional mean and variance are the same thing for a Gaussian
    def conditional(q_means, j, mean, covariance):
        o = [k for k in range(len(mean)) if k != j]
        S_oo = covariance[np.ix_(o, o)]
        m = mean[j] + covariance[j, o] @ np.linalg.solve(S_oo, q_means[o] - mean[o])
        v = covariance[j, j] - covariance[j, o] @ np.linalg.solve(S_oo, covariance[o, j])
        return float(m), float(v)
    assert checks.cavi_update(conditional)


@pytest.mark.parametrize(
    "wrong, fragment",
    [
        (cavi_wrong(var_rule=lambda j, S, P: S[j, j]), "Sigma_jj, the true marginal"),
        (cavi_wrong(var_rule=lambda j, S, P: 1 / np.sqrt(P[j, j])), "standard deviation"),
        (cavi_wrong(var_rule=lambda j, S, P: P[j, j]), "precision lambda_jj"),
        (cavi_wrong(var_rule=lambda j, S, P: 1 / S[j, j]), "1 / sigma_jj"),
        (cavi_wrong(mean_rule=lambda m, j, mu, S, P, o: mu[j] + P[j, o] @ (m[o] - mu[o]) / P[j, j]),
         "wrong sign"),
        (cavi_wrong(mean_rule=lambda m, j, mu, S, P, o: mu[j] - P[j] @ (m - mu) / P[j, j]),
         "own old mean"),
        (cavi_wrong(mean_rule=lambda m, j, mu, S, P, o: mu[j] - P[j, o] @ (m[o] - mu[o])),
         "not divided by lambda_jj"),
        (cavi_wrong(mean_rule=lambda m, j, mu, S, P, o: mu[j] - S[j, o] @ (m[o] - mu[o]) / S[j, j]),
         "precision"),
        (cavi_wrong(mean_rule=lambda m, j, mu, S, P, o: mu[j]), "differs from the cavi update"),
        (lambda m, j, mu, S: cavi_right(m, j, mu, S)[0], "pair"),
        (lambda m, j, mu, S: np.array(cavi_right(m, j, mu, S) + (1.0,)), "pair"),
    ],
)
def test_cavi_update_names_the_mistake(wrong, fragment):
    assert_fails(checks.cavi_update(wrong), fragment)


def test_cavi_update_messages_never_show_numbers():
    result = checks.cavi_update(cavi_wrong(var_rule=lambda j, S, P: S[j, j]))
    assert re.search(r"\d\.\d", result.message) is None


# --------------------------------------------------------------- ex-kl-gauss-pq


def kl_pq_right(mean, cov, m, v):
    d = len(mean)
    return 0.5 * (np.sum((np.diag(cov) + (mean - m) ** 2) / v) - d + np.sum(np.log(v))
                  - np.linalg.slogdet(cov)[1])


def kl_qp(mean, cov, m, v):
    d = len(mean)
    P = np.linalg.inv(cov)
    return 0.5 * (np.diag(P) @ v + (mean - m) @ P @ (mean - m) - d + np.linalg.slogdet(cov)[1]
                  - np.sum(np.log(v)))


def test_kl_p_to_factorised_accepts_the_right_answer():
    assert checks.kl_p_to_factorised(kl_pq_right)


@pytest.mark.parametrize(
    "wrong, fragment",
    [
        (kl_qp, "other direction"),
        (lambda mu, S, m, v: 2 * kl_pq_right(mu, S, m, v), "factor 1/2"),
        (lambda mu, S, m, v: 0.5 * (np.sum((np.diag(S) + (mu - m) ** 2) / v) - len(mu) - np.sum(np.log(v))
                                   + np.linalg.slogdet(S)[1]), "wrong signs"),
        (lambda mu, S, m, v: kl_pq_right(mu, S, m, v) + len(mu) / 2, "constant -d"),
        (lambda mu, S, m, v: kl_pq_right(mu, S, m, v) - 0.5 * np.sum((mu - m) ** 2 / v), "mean term"),
        (lambda mu, S, m, v: 0.5 * (np.sum((np.diag(S) + (mu - m) ** 2) / np.sqrt(v)) - len(mu)
                                   + 0.5 * np.sum(np.log(v)) - np.linalg.slogdet(S)[1]), "standard deviations"),
        (lambda mu, S, m, v: -abs(kl_pq_right(mu, S, m, v)) - 1, "never negative"),
        (lambda mu, S, m, v: kl_pq_right(mu, S, m, v) + 0.01, "differs"),
        (lambda mu, S, m, v: np.full(len(mu), 1.0), "single number"),
    ],
)
def test_kl_p_to_factorised_names_the_mistake(wrong, fragment):
    assert_fails(checks.kl_p_to_factorised(wrong), fragment)


# --------------------------------------------------------- ex-vb-dirichlet-weights


def dirichlet_right(resp, alpha0):
    alpha = alpha0 + resp.sum(axis=0)
    return alpha, digamma(alpha) - digamma(alpha.sum())


def test_vb_dirichlet_weights_accepts_the_right_answer():
    assert checks.vb_dirichlet_weights(dirichlet_right)


@pytest.mark.parametrize(
    "wrong, fragment",
    [
        (lambda r, a: (r.sum(0), digamma(r.sum(0)) - digamma(r.sum())), "counts n_k alone"),
        (lambda r, a: (a - 1 + r.sum(0), digamma(a - 1 + r.sum(0)) - digamma((a - 1 + r.sum(0)).sum())), "map"),
        (lambda r, a: ((a + r.sum(0)) / (a + r.sum(0)).sum(), r.sum(0)), "posterior mean weights"),
        (lambda r, a: (a + r.sum(0), np.log((a + r.sum(0)) / (a + r.sum(0)).sum())), "ln e[pi_k]"),
        (lambda r, a: (a + r.sum(0), digamma(a + r.sum(0)) - digamma(r.shape[1] * a)), "posterior concentrations"),
        (lambda r, a: (a + r.sum(0), digamma(a + r.sum(0))), "normalising term"),
        (lambda r, a: (a + r.sum(1), a + r.sum(1)), "sum the responsibilities over the points"),
        (lambda r, a: a + r.sum(0), "pair"),
        (lambda r, a: (a + r.sum(0), digamma(a + r.sum(0)) - digamma((a + r.sum(0)).sum()) + 0.1), "differ"),
    ],
)
def test_vb_dirichlet_weights_names_the_mistake(wrong, fragment):
    assert_fails(checks.vb_dirichlet_weights(wrong), fragment)
