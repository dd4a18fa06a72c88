"""CAVI for a Gaussian target and the two Gaussian KL divergences (lib.variational).

Tested against closed forms (fixed point, rate rho^2 per sweep, the mutual
information -1/2 ln(1 - rho^2)), scipy's densities (Monte Carlo KL) and
properties (the ELBO rises at every update, KL(p || q) is minimised by the
true marginals).
"""

import numpy as np
import pytest
from scipy import stats

from lib import variational as V


def target(rho=0.8, s1=1.0, s2=2.0, mean=(1.0, -0.5)):
    cov = np.array([[s1**2, rho * s1 * s2], [rho * s1 * s2, s2**2]])
    return np.array(mean), cov


def random_target(d, rng):
    A = rng.normal(size=(d, d))
    return rng.normal(size=d), A @ A.T + 0.5 * np.eye(d)


def test_precision_is_the_inverse():
    rng = np.random.default_rng(0)
    _, cov = random_target(4, rng)
    np.testing.assert_allclose(V.gaussian_precision(cov) @ cov, np.eye(4), atol=1e-10)


def test_update_matches_the_conditional_mean_formula():
    # for d = 2 the update is the conditional mean of z_j given z_l = zbar_l
    mu, cov = target()
    prec = V.gaussian_precision(cov)
    m = np.array([3.0, 4.0])
    mj, vj = V.cavi_gaussian_update(m, 0, mu, prec)
    assert np.isclose(mj, mu[0] + cov[0, 1] / cov[1, 1] * (m[1] - mu[1]))
    assert np.isclose(vj, cov[0, 0] - cov[0, 1] ** 2 / cov[1, 1])
    # the old mean of the updated coordinate is not used
    assert V.cavi_gaussian_update(np.array([-7.0, 4.0]), 0, mu, prec) == (mj, vj)


@pytest.mark.parametrize("d", [2, 3, 5])
def test_fixed_point_is_the_closed_form(d):
    rng = np.random.default_rng(d)
    mu, cov = random_target(d, rng)
    res = V.cavi_gaussian(mu, cov, q_means_init=rng.normal(size=d) * 5, n_sweeps=2000, tol=1e-13)
    np.testing.assert_allclose(res.means, mu, atol=1e-9)
    np.testing.assert_allclose(res.variances, 1 / np.diag(V.gaussian_precision(cov)), rtol=1e-12)
    assert res.n_sweeps < 2000


@pytest.mark.parametrize("d", [2, 4])
def test_elbo_never_decreases(d):
    rng = np.random.default_rng(10 + d)
    mu, cov = random_target(d, rng)
    res = V.cavi_gaussian(mu, cov, q_means_init=rng.normal(size=d) * 3,
                          q_variances_init=rng.uniform(0.1, 5, size=d), n_sweeps=30)
    assert res.elbo_trace.shape == (30 * d + 1,)
    assert res.mean_trace.shape == (30 * d + 1, d)
    assert np.all(np.diff(res.elbo_trace) >= -1e-12)
    assert np.diff(res.elbo_trace)[0] > 0


@pytest.mark.parametrize("rho", [0.3, 0.8, -0.9])
def test_error_shrinks_by_rho_squared_per_sweep(rho):
    mu, cov = target(rho)
    res = V.cavi_gaussian(mu, cov, q_means_init=np.array([4.0, 5.0]), n_sweeps=8)
    err = res.mean_trace[2::2, 1] - mu[1]  # coordinate 2 after each full sweep
    np.testing.assert_allclose(err[1:] / err[:-1], rho**2, rtol=1e-6)


def test_variance_underestimated_by_one_minus_rho_squared():
    mu, cov = target(0.8, 1.5, 0.5)
    res = V.cavi_gaussian(mu, cov, n_sweeps=200, tol=1e-14)
    np.testing.assert_allclose(res.variances, np.diag(cov) * (1 - 0.8**2), rtol=1e-12)


def test_elbo_is_minus_kl_and_both_kls_are_mutual_information_at_their_optima():
    rho = 0.8
    mu, cov = target(rho)
    mi = -0.5 * np.log(1 - rho**2)
    v_cavi = np.diag(cov) * (1 - rho**2)
    m_mm, v_mm = V.moment_match_diag(mu, cov)
    np.testing.assert_allclose(v_mm, np.diag(cov))
    assert np.isclose(V.kl_diag_to_gaussian(mu, v_cavi, mu, cov), mi)
    assert np.isclose(V.kl_gaussian_to_diag(mu, cov, m_mm, v_mm), mi)
    cross = 0.5 * (2 / (1 - rho**2) - 2 + np.log(1 - rho**2))
    assert np.isclose(V.kl_gaussian_to_diag(mu, cov, mu, v_cavi), cross)
    assert np.isclose(V.kl_diag_to_gaussian(m_mm, v_mm, mu, cov), cross)
    rng = np.random.default_rng(3)
    for _ in range(5):
        m, v = rng.normal(size=2), rng.uniform(0.2, 3, size=2)
        assert np.isclose(V.gaussian_elbo_diag(m, v, mu, cov), -V.kl_diag_to_gaussian(m, v, mu, cov))


def test_kl_zero_iff_equal_and_diagonal_target():
    mu = np.array([0.5, 1.0, -2.0])
    cov = np.diag([0.5, 2.0, 1.5])
    assert abs(V.kl_diag_to_gaussian(mu, np.diag(cov), mu, cov)) < 1e-12
    assert abs(V.kl_gaussian_to_diag(mu, cov, mu, np.diag(cov))) < 1e-12
    assert V.kl_diag_to_gaussian(mu + 0.1, np.diag(cov), mu, cov) > 0


@pytest.mark.parametrize("d", [2, 3])
def test_kls_against_monte_carlo(d):
    rng = np.random.default_rng(20 + d)
    mu, cov = random_target(d, rng)
    m, v = mu + rng.normal(scale=0.5, size=d), np.diag(cov) * rng.uniform(0.3, 1.5, size=d)
    p = stats.multivariate_normal(mu, cov)
    q = stats.multivariate_normal(m, np.diag(v))
    n = 400_000
    zq = q.rvs(size=n, random_state=rng)
    terms = q.logpdf(zq) - p.logpdf(zq)
    assert abs(terms.mean() - V.kl_diag_to_gaussian(m, v, mu, cov)) < 5 * terms.std() / np.sqrt(n)
    zp = p.rvs(size=n, random_state=rng)
    terms = p.logpdf(zp) - q.logpdf(zp)
    assert abs(terms.mean() - V.kl_gaussian_to_diag(mu, cov, m, v)) < 5 * terms.std() / np.sqrt(n)


def test_moment_matching_minimises_kl_p_q():
    rng = np.random.default_rng(4)
    mu, cov = random_target(3, rng)
    m0, v0 = V.moment_match_diag(mu, cov)
    best = V.kl_gaussian_to_diag(mu, cov, m0, v0)
    for _ in range(20):
        m = m0 + rng.normal(scale=0.1, size=3)
        v = v0 * np.exp(rng.normal(scale=0.1, size=3))
        assert V.kl_gaussian_to_diag(mu, cov, m, v) > best


def test_cavi_optimum_minimises_kl_q_p():
    rng = np.random.default_rng(5)
    mu, cov = random_target(3, rng)
    res = V.cavi_gaussian(mu, cov, n_sweeps=5000, tol=1e-13)
    best = V.kl_diag_to_gaussian(res.means, res.variances, mu, cov)
    for _ in range(20):
        m = res.means + rng.normal(scale=0.1, size=3)
        v = res.variances * np.exp(rng.normal(scale=0.1, size=3))
        assert V.kl_diag_to_gaussian(m, v, mu, cov) > best


@pytest.mark.parametrize(
    "call, match",
    [
        (lambda: V.cavi_gaussian([0.0, 0.0], [[1.0, 1.0], [1.0, 1.0]]), "positive definite"),
        (lambda: V.cavi_gaussian([0.0, 0.0], [[1.0, 0.5], [0.2, 1.0]]), "symmetric"),
        (lambda: V.cavi_gaussian([0.0, 0.0, 0.0], np.eye(2)), "shape"),
        (lambda: V.kl_diag_to_gaussian([0.0, 0.0], [1.0, -1.0], [0.0, 0.0], np.eye(2)), "positive"),
        (lambda: V.kl_gaussian_to_diag([0.0, 0.0], np.eye(2), [0.0], [1.0]), "shape"),
        (lambda: V.cavi_gaussian_update([0.0, 0.0], 2, [0.0, 0.0], np.eye(2)), "coordinate"),
        (lambda: V.cavi_gaussian([0.0, 0.0], np.eye(2), n_sweeps=0), "n_sweeps"),
    ],
)
def test_bad_input_is_explained(call, match):
    with pytest.raises((ValueError, TypeError), match=match):
        call()


def test_non_numeric_input_is_a_type_error():
    with pytest.raises(TypeError):
        V.cavi_gaussian(["a", "b"], np.eye(2))
