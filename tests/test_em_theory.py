"""lib.em_theory against finite differences, lib.mixture and the closed forms of chapter 4."""

import numpy as np
import pytest
from scipy import stats
from scipy.optimize import brentq

from lib import em_theory, mixture


def _one_d(delta=2.0, n=200, seed=0):
    rng = np.random.default_rng(seed)
    z = rng.random(n) < 0.5
    x = np.where(z, delta, 0.0) + rng.normal(size=n)
    return x, np.array([0.5, 0.5]), np.array([delta, 0.0]), np.array([1.0, 1.0])


def _ell(x, weights, means, variances):
    return mixture.log_likelihood(x[:, None], weights, means[:, None], variances, "spherical")


def _scipy_posterior(x, weights, means, variances):
    """p(z_i = k | x_i) from scipy's normal densities, shape (n, K)."""
    joint = weights * stats.norm(means, np.sqrt(variances)).pdf(x[:, None])
    return joint / joint.sum(axis=1, keepdims=True)


def _scipy_ell(x, weights, means, variances):
    return float(np.sum(np.log(np.sum(weights * stats.norm(means, np.sqrt(variances)).pdf(x[:, None]), axis=1))))


def _fixed_point(x, w, m, v, component=0):
    """The EM fixed point for means[component] nearest the start: a root of M(mu) - mu."""

    def excess(mu):
        trial = m.copy()
        trial[component] = mu
        return em_theory.mean_em_update(x, w, trial, v, component) - mu

    start = m[component]
    lo, hi = start - 0.5, start + 0.5
    while excess(lo) <= 0:
        lo -= 0.5
    while excess(hi) >= 0:
        hi += 0.5
    m_star = m.copy()
    m_star[component] = brentq(excess, lo, hi, xtol=1e-14, rtol=1e-15)
    return m_star


@pytest.mark.parametrize("covariance_type", ["full", "tied", "diag", "spherical"])
def test_posterior_kl_is_the_gap(covariance_type):
    rng = np.random.default_rng(1)
    X = rng.normal(size=(40, 3)) + 1.0
    K, d = 3, 3
    weights = np.array([0.2, 0.3, 0.5])
    means = rng.normal(size=(K, d))
    A = rng.normal(size=(K, d, d))
    covs = {"full": A @ np.swapaxes(A, 1, 2) + np.eye(d), "tied": A[0] @ A[0].T + np.eye(d),
            "diag": rng.uniform(0.5, 2, size=(K, d)), "spherical": rng.uniform(0.5, 2, size=K)}[covariance_type]
    Q = rng.dirichlet(np.ones(K), size=len(X))
    Q[::4, 0] = 0.0
    Q /= Q.sum(axis=1, keepdims=True)
    gap = em_theory.posterior_kl(X, Q, weights, means, covs, covariance_type)
    ell = mixture.log_likelihood(X, weights, means, covs, covariance_type)
    G = mixture.lower_bound(X, Q, weights, means, covs, covariance_type)
    assert gap > 0
    assert np.isclose(gap, ell - G, rtol=1e-9)
    post, _ = mixture.e_step(X, weights, means, covs, covariance_type)
    assert abs(em_theory.posterior_kl(X, post, weights, means, covs, covariance_type)) < 1e-12


@pytest.mark.parametrize("covariance_type", ["full", "tied", "diag", "spherical"])
def test_fisher_identity_against_finite_differences(covariance_type):
    rng = np.random.default_rng(2)
    K, d = 2, 2
    X = rng.normal(size=(30, d)) * 1.5
    weights = np.array([0.35, 0.65])
    means = rng.normal(size=(K, d))
    A = rng.normal(size=(K, d, d))
    covs = {"full": A @ np.swapaxes(A, 1, 2) + 0.5 * np.eye(d), "tied": A[0] @ A[0].T + np.eye(d),
            "diag": rng.uniform(0.5, 2, size=(K, d)), "spherical": rng.uniform(0.5, 2, size=K)}[covariance_type]
    score = em_theory.mean_scores(X, weights, means, covs, covariance_type)
    h = 1e-6
    numeric = np.zeros_like(means)
    for k in range(K):
        for j in range(d):
            up, down = means.copy(), means.copy()
            up[k, j] += h
            down[k, j] -= h
            numeric[k, j] = (mixture.log_likelihood(X, weights, up, covs, covariance_type)
                             - mixture.log_likelihood(X, weights, down, covs, covariance_type)) / (2 * h)
    np.testing.assert_allclose(score, numeric, rtol=1e-6, atol=1e-6)


def test_fisher_score_vanishes_at_an_em_fixed_point():
    x, w, m, v = _one_d(3.0)
    m_star = _fixed_point(x, w, m, v)
    score = em_theory.mean_scores(x[:, None], w, m_star[:, None], v, "spherical")
    assert abs(score[0, 0]) < 1e-9


@pytest.mark.parametrize("component", [0, 1])
def test_information_against_second_derivative(component):
    x, w, m, v = _one_d(1.5, seed=3)
    v = np.array([0.8, 1.3])
    info = em_theory.mean_information(x, w, m, v, component)
    h = 1e-4
    up, down = m.copy(), m.copy()
    up[component] += h
    down[component] -= h
    second = (_ell(x, w, up, v) - 2 * _ell(x, w, m, v) + _ell(x, w, down, v)) / h**2
    assert np.isclose(info.observed, -second, rtol=1e-5)
    # missing information by enumerating each z_i: the posterior variance of the complete-data score
    # d/dmu_c ln p(x_i, z_i) = [z_i = c] (x_i - mu_c) / v_c, with the posterior from scipy's densities
    post = _scipy_posterior(x, w, m, v)  # (n, K)
    score = (x - m[component]) / v[component]
    missing = np.sum(post[:, component] * score**2 - (post[:, component] * score) ** 2)
    assert np.isclose(info.missing, missing, rtol=1e-10)
    assert 0 < info.missing < info.complete
    # complete-data information: minus the expected complete-data Hessian, sum_i gamma_ic / v_c
    resp, _ = mixture.e_step(x[:, None], w, m[:, None], v, "spherical")
    assert np.isclose(info.complete, resp[:, component].sum() / v[component], rtol=1e-12)


@pytest.mark.parametrize("delta", [4.0, 2.0, 1.0])
def test_em_rate_is_the_slope_of_the_em_map(delta):
    x, w, m, v = _one_d(delta, n=400, seed=4)
    m_star = _fixed_point(x, w, m, v)
    rate = em_theory.em_rate(x, w, m_star, v)
    h = 1e-5
    up, down = m_star.copy(), m_star.copy()
    up[0] += h
    down[0] -= h
    slope = (em_theory.mean_em_update(x, w, up, v) - em_theory.mean_em_update(x, w, down, v)) / (2 * h)
    assert np.isclose(slope, rate, rtol=1e-5, atol=1e-8)
    assert 0 < rate < 1
    # the missing-information principle with independent parts: the observed information by finite
    # differences of scipy's log-likelihood, the complete one by enumerating z_i (sum_i gamma_i0 / v_0)
    h = 1e-4
    ell = [_scipy_ell(x, w, m_star + np.array([s * h, 0.0]), v) for s in (-1, 0, 1)]
    observed = -(ell[0] - 2 * ell[1] + ell[2]) / h**2
    complete = _scipy_posterior(x, w, m_star, v)[:, 0].sum() / v[0]
    assert np.isclose(rate, 1 - observed / complete, rtol=1e-4)


def test_rate_grows_with_overlap():
    rates = []
    for delta in [4.0, 2.0, 1.0]:
        x, w, m, v = _one_d(delta, n=400, seed=4)
        rates.append(em_theory.em_rate(x, w, _fixed_point(x, w, m, v), v))
    assert rates[0] < rates[1] < rates[2]


def test_mean_em_update_is_the_m_step_mean():
    x, w, m, v = _one_d(2.0, seed=5)
    resp, _ = mixture.e_step(x[:, None], w, m[:, None], v, "spherical")
    _, means, _ = mixture.m_step(x[:, None], resp, "spherical")
    assert np.isclose(em_theory.mean_em_update(x, w, m, v, 0), means[0, 0], rtol=1e-12)
    assert np.isclose(em_theory.mean_em_update(x, w, m, v, 1), means[1, 0], rtol=1e-12)


def test_bound_over_mean_matches_lower_bound_and_peaks_at_the_m_step():
    x, w, m, v = _one_d(2.0, seed=6)
    m = np.array([0.7, 0.0])
    resp, _ = mixture.e_step(x[:, None], w, m[:, None], v, "spherical")
    grid = np.linspace(-1, 4, 11)
    G = em_theory.bound_over_mean(x, resp, w, m, v, grid)
    for g, value in zip(grid, G):
        mg = m.copy()
        mg[0] = g
        assert np.isclose(value, mixture.lower_bound(x[:, None], resp, w, mg[:, None], v, "spherical"), rtol=1e-12)
    # it touches ell at the current mean and lies below elsewhere
    here = em_theory.bound_over_mean(x, resp, w, m, v, [m[0]])[0]
    assert np.isclose(here, _ell(x, w, m, v), rtol=1e-12)
    for g, value in zip(grid, G):
        mg = m.copy()
        mg[0] = g
        assert value <= _ell(x, w, mg, v) + 1e-9
    # maximised at the M-step's mean
    new = em_theory.mean_em_update(x, w, m, v)
    fine = np.linspace(new - 1e-3, new + 1e-3, 201)
    assert abs(fine[np.argmax(em_theory.bound_over_mean(x, resp, w, m, v, fine))] - new) < 2e-5


def test_validation():
    x, w, m, v = _one_d()
    with pytest.raises(ValueError, match="component"):
        em_theory.mean_information(x, w, m, v, component=2)
    with pytest.raises(ValueError, match="variances"):
        em_theory.mean_em_update(x, w, m, np.array([1.0, -1.0]))
    with pytest.raises(ValueError, match="one entry per component"):
        em_theory.em_rate(x, w, m[:1], v)
    with pytest.raises(ValueError):
        em_theory.posterior_kl(x[:, None], np.ones((len(x), 3)) / 3, w, m[:, None], v, "spherical")


def test_all_means_information_against_the_hessian():
    x, w, m, v = _one_d(1.5, seed=7)
    w, m, v = np.array([0.3, 0.7]), np.array([1.2, -0.4]), np.array([0.9, 1.4])
    info = em_theory.mean_information(x, w, m, v, component=None)
    h = 1e-4
    hess = np.zeros((2, 2))
    for a in range(2):
        for b in range(2):
            ea, eb = np.eye(2)[a] * h, np.eye(2)[b] * h
            hess[a, b] = (_ell(x, w, m + ea + eb, v) - _ell(x, w, m + ea - eb, v)
                          - _ell(x, w, m - ea + eb, v) + _ell(x, w, m - ea - eb, v)) / (4 * h**2)
    np.testing.assert_allclose(info.observed, -hess, rtol=1e-4, atol=1e-3)
    np.testing.assert_allclose(info.observed, info.observed.T, atol=1e-12)
    # the diagonal entries are the one-mean informations
    for c in range(2):
        one = em_theory.mean_information(x, w, m, v, component=c)
        assert np.isclose(info.missing[c, c], one.missing, rtol=1e-12)
        assert np.isclose(info.complete[c, c], one.complete, rtol=1e-12)


@pytest.mark.parametrize("delta", [2.0, 1.0])
def test_all_means_rate_is_the_spectral_radius_of_the_em_map(delta):
    x, w, m, v = _one_d(delta, n=300, seed=8)
    mu = np.array([delta + 1.0, -1.0])
    for _ in range(3000):
        mu = em_theory.mean_em_update(x, w, mu, v, component=None)
    h = 1e-6
    J = np.column_stack([
        (em_theory.mean_em_update(x, w, mu + e, v, None) - em_theory.mean_em_update(x, w, mu - e, v, None)) / (2 * h)
        for e in np.eye(2) * h
    ])
    rate = em_theory.em_rate(x, w, mu, v, component=None)
    assert np.isclose(rate, np.abs(np.linalg.eigvals(J)).max(), rtol=1e-5)


# ---- Dempster's Q(theta | theta^(t)) ----------------------------------------------------------

def _q_problem():
    from lib import datasets
    X, _ = datasets.make_mixture(200, [0.5, 0.3, 0.2], [[0.0, 0.0], [4.0, 1.0], [1.0, 5.0]],
                                 [1.0, 0.7, 1.3], "spherical", rng=np.random.default_rng(3))
    old = (np.array([0.4, 0.4, 0.2]), np.array([[0.5, 0.5], [3.0, 0.0], [0.0, 4.0]]), np.ones(3))
    return X, old


def test_dempster_q_is_F_at_the_e_step_responsibilities():
    from lib import em_theory, mixture
    X, old = _q_problem()
    new = mixture.m_step(X, mixture.e_step(X, *old, "spherical")[0], "spherical", reg_covar=0.0)
    resp, _ = mixture.e_step(X, *old, "spherical")
    by_hand = np.sum(resp * (np.log(new[0]) + mixture.estimate_log_prob(X, new[1], new[2], "spherical")))
    assert np.isclose(em_theory.dempster_q(X, new, old, "spherical"), by_hand, rtol=1e-12)
    # at theta = theta_old it is ell minus the entropy of the E-step's posterior
    ell_old = mixture.log_likelihood(X, *old, "spherical")
    assert np.isclose(em_theory.dempster_q(X, old, old, "spherical"), ell_old - mixture.entropy(resp), rtol=1e-12)


def test_dempster_q_is_maximised_by_the_m_step_and_minorises_ell():
    from lib import em_theory, mixture
    X, old = _q_problem()
    resp, _ = mixture.e_step(X, *old, "spherical")
    best = mixture.m_step(X, resp, "spherical", reg_covar=0.0)
    q_best = em_theory.dempster_q(X, best, old, "spherical")
    q_old = em_theory.dempster_q(X, old, old, "spherical")
    ell_old = mixture.log_likelihood(X, *old, "spherical")
    rng = np.random.default_rng(0)
    for _ in range(20):
        theta = (rng.dirichlet(50 * best[0]), best[1] + 0.2 * rng.normal(size=best[1].shape),
                 best[2] * rng.uniform(0.7, 1.4, size=3))
        q_theta = em_theory.dempster_q(X, theta, old, "spherical")
        assert q_theta <= q_best + 1e-9
        # equation em-q-minorises
        assert mixture.log_likelihood(X, *theta, "spherical") - ell_old >= q_theta - q_old - 1e-9


def test_dempster_q_rejects_bad_parameters():
    from lib import em_theory
    X, old = _q_problem()
    with pytest.raises(TypeError, match="theta_old must be a tuple"):
        em_theory.dempster_q(X, old, old[:2], "spherical")
    with pytest.raises(TypeError, match="theta must be a tuple"):
        em_theory.dempster_q(X, "theta", old, "spherical")
    with pytest.raises(ValueError):
        em_theory.dempster_q(X, (np.array([0.5, 0.6, 0.2]),) + old[1:], old, "spherical")
