"""MAP-EM in lib.mixture: the MAP M-step, the prior against scipy, reg_covar as a prior, monotonicity."""

import numpy as np
import pytest
from scipy import stats

from lib import mixture


def _data(seed=0, n=60, d=2, K=3):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d)) * 1.3 + rng.normal(size=d) * 3
    resp = rng.dirichlet(np.full(K, 0.7), size=n)
    return X, resp


def _objective(X, resp, weights, means, covs, psi, nu, alpha):
    """F(resp, theta) + ln p(theta): what the MAP M-step maximises."""
    F = mixture.expected_complete_log_likelihood(X, resp, weights, means, covs, "full")
    return F + mixture.log_prior(weights, covs, psi, nu, alpha)


def test_log_prior_matches_scipy():
    rng = np.random.default_rng(1)
    d, K = 3, 2
    A = rng.normal(size=(K, d, d))
    covs = A @ np.swapaxes(A, 1, 2) + 0.3 * np.eye(d)
    B = rng.normal(size=(d, d))
    psi = B @ B.T + np.eye(d)
    nu, alpha = 5.5, np.array([2.0, 3.5])
    weights = np.array([0.3, 0.7])
    want = stats.dirichlet.logpdf(weights, alpha) + sum(
        stats.invwishart.logpdf(c, df=nu, scale=psi) for c in covs
    )
    assert np.isclose(mixture.log_prior(weights, covs, psi, nu, alpha), want, rtol=1e-10)
    # one scale per component
    psis = np.stack([psi, 2 * psi])
    want = stats.dirichlet.logpdf(weights, alpha) + sum(
        stats.invwishart.logpdf(c, df=nu, scale=s) for c, s in zip(covs, psis)
    )
    assert np.isclose(mixture.log_prior(weights, covs, psis, nu, alpha), want, rtol=1e-10)


def test_map_m_step_closed_form():
    X, resp = _data()
    n, d = X.shape
    psi, nu, alpha = 0.5 * np.eye(d), 4.0, np.array([1.0, 2.0, 3.0])
    w, m, c = mixture.map_m_step(X, resp, psi, nu, alpha)
    nk = resp.sum(axis=0)
    assert np.allclose(w, (nk + alpha - 1) / (n + alpha.sum() - 3), rtol=1e-12)
    assert np.isclose(w.sum(), 1.0)
    for k in range(3):
        diff = X - m[k]
        S = (resp[:, k] * diff.T) @ diff
        assert np.allclose(c[k], (psi + S) / (nk[k] + nu + d + 1), rtol=1e-12)
    # means are the ML means (flat prior)
    assert np.allclose(m, mixture.m_step(X, resp, "full", reg_covar=0)[1], rtol=1e-12)


def test_map_m_step_maximises_the_penalised_objective():
    X, resp = _data(seed=2)
    d = X.shape[1]
    psi, nu, alpha = np.array([[1.0, 0.3], [0.3, 0.5]]), 3.0, np.array([2.0, 2.0, 4.0])
    w, m, c = mixture.map_m_step(X, resp, psi, nu, alpha)
    best = _objective(X, resp, w, m, c, psi, nu, alpha)
    rng = np.random.default_rng(3)
    for _ in range(30):
        dw = rng.normal(scale=0.02, size=3)
        dw -= dw.mean()
        B = rng.normal(scale=0.05, size=(3, d, d))
        w2 = w + dw
        m2 = m + rng.normal(scale=0.05, size=m.shape)
        c2 = c + B @ np.swapaxes(B, 1, 2) - 0.5 * 0.05**2 * np.eye(d)
        if np.all(w2 > 0) and np.all(np.linalg.eigvalsh(c2) > 0):
            assert _objective(X, resp, w2, m2, c2, psi, nu, alpha) < best


def test_reg_covar_is_an_improper_inverse_wishart_prior():
    X, resp = _data(seed=4, d=3)
    n, d = X.shape
    eps = 0.37
    nk = resp.sum(axis=0)
    psi = eps * nk[:, None, None] * np.eye(d)  # scale grows with the soft count
    got = mixture.map_m_step(X, resp, psi, -(d + 1), 1.0)
    want = mixture.m_step(X, resp, "full", reg_covar=eps)
    for a, b in zip(got, want):
        assert np.allclose(a, b, rtol=1e-12, atol=1e-14)


def test_map_em_never_lowers_the_log_posterior():
    rng = np.random.default_rng(5)
    X = np.vstack([rng.normal(size=(40, 2)), rng.normal(size=(30, 2)) + 3, np.repeat([[6.0, 0.0]], 6, axis=0)])
    psi, nu, alpha = 0.1 * np.eye(2), 4.0, 2.0
    theta = (np.full(3, 1 / 3), X[[0, 45, 72]], np.stack([np.eye(2)] * 3))
    trace = []
    for _ in range(60):
        resp, _ = mixture.e_step(X, *theta)
        theta = mixture.map_m_step(X, resp, psi, nu, alpha)
        trace.append(mixture.log_posterior(X, *theta, psi, nu, alpha))
    assert np.all(np.diff(trace) >= -1e-9 * np.abs(trace[1:]))
    # the component on the six duplicated points keeps a covariance bounded away from 0
    assert np.linalg.eigvalsh(theta[2]).min() > 0.1 / (6 + nu + 3) * 0.9


def test_validation():
    X, resp = _data()
    with pytest.raises(ValueError, match="prior_scale"):
        mixture.map_m_step(X, resp, np.eye(3), 3.0)
    with pytest.raises(ValueError, match="semi-definite"):
        mixture.map_m_step(X, resp, -np.eye(2), 3.0)
    with pytest.raises(ValueError, match="concentration"):
        mixture.map_m_step(X, resp, np.eye(2), 3.0, concentration=0.5)
    with pytest.raises(ValueError, match="positive for every component"):
        mixture.map_m_step(X, resp, np.eye(2), -1000.0)
    with pytest.raises(TypeError, match="prior_dof"):
        mixture.map_m_step(X, resp, np.eye(2), "3")
    with pytest.raises(ValueError, match="proper"):
        mixture.log_prior(np.full(3, 1 / 3), np.stack([np.eye(2)] * 3), np.eye(2), 0.5)
    with pytest.raises(ValueError, match="positive definite"):
        mixture.log_prior(np.full(3, 1 / 3), np.stack([np.eye(2)] * 3), np.zeros((2, 2)), 3.0)
