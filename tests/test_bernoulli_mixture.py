"""lib.bernoulli_mixture: EM for a mixture of Bernoulli vectors."""

import numpy as np
import pytest
from sklearn.datasets import load_digits

from lib import bernoulli_mixture as bm


def _sample(n=400, D=30, seed=0):
    rng = np.random.default_rng(seed)
    means = rng.uniform(0.05, 0.95, size=(3, D))
    weights = np.array([0.5, 0.3, 0.2])
    z = rng.choice(3, size=n, p=weights)
    X = (rng.random((n, D)) < means[z]).astype(float)
    return X, weights, means


def test_responsibilities_are_the_normalised_joint():
    X, w, m = _sample(50, 6)
    resp, log_norm = bm.e_step(X, w, m)
    direct = w * np.prod(np.where(X[:, None, :] == 1, m[None], 1 - m[None]), axis=2)  # (n, K)
    assert np.allclose(resp, direct / direct.sum(axis=1, keepdims=True), rtol=1e-12)
    assert np.allclose(log_norm, np.log(direct.sum(axis=1)), rtol=1e-12)
    assert np.allclose(resp.sum(axis=1), 1.0)


def test_log_space_survives_where_the_product_underflows():
    X, w, m = _sample(20, 3000, seed=1)
    direct = np.prod(np.where(X[:, None, :] == 1, m[None], 1 - m[None]), axis=2)
    assert np.all(direct == 0)  # the naive product underflows
    resp, log_norm = bm.e_step(X, w, m)
    assert np.all(np.isfinite(log_norm)) and np.allclose(resp.sum(axis=1), 1.0)


def test_m_step_matches_its_closed_form():
    X, _, _ = _sample(80, 10)
    resp = np.random.default_rng(2).dirichlet(np.ones(4), size=80)
    weights, means = bm.m_step(X, resp)
    nk = resp.sum(axis=0)
    for k in range(4):
        assert np.isclose(weights[k], nk[k] / 80)
        assert np.allclose(means[k], sum(resp[i, k] * X[i] for i in range(80)) / nk[k])
    _, smoothed = bm.m_step(X, resp, pseudo_count=1.0)
    assert np.allclose(smoothed, (resp.T @ X + 1) / (nk[:, None] + 2))


def test_m_step_maximises_the_expected_complete_log_likelihood():
    X, _, _ = _sample(60, 8)
    resp = np.random.default_rng(3).dirichlet(np.ones(3), size=60)
    w, m = bm.m_step(X, resp)

    def F(w, m):
        return float(np.sum(resp * (np.log(w) + bm.component_log_prob(X, m))))
    best = F(w, m)
    rng = np.random.default_rng(4)
    for _ in range(20):
        m2 = np.clip(m + 0.02 * rng.normal(size=m.shape), 1e-3, 1 - 1e-3)
        w2 = rng.dirichlet(100 * w)
        assert F(w2, m2) <= best + 1e-9


def test_em_never_lowers_the_log_likelihood():
    X, _, _ = _sample()
    fit = bm.fit(X, 3, n_iter=60, tol=0.0, rng=0)
    assert np.all(np.diff(fit.log_likelihood_history) >= -1e-9 * np.abs(fit.log_likelihood_history[1:]))
    assert fit.log_likelihood_history[-1] > fit.log_likelihood_history[0]
    assert np.isclose(bm.log_likelihood(X, fit.weights, fit.means), fit.log_likelihood_history[-1])


def test_em_recovers_well_separated_components():
    X, w, m = _sample(2000, 40, seed=5)
    fit = bm.fit(X, 3, rng=1)
    order = [int(np.argmin(np.abs(fit.means - m[k]).sum(axis=1))) for k in range(3)]
    assert sorted(order) == [0, 1, 2]
    assert np.abs(fit.means[order] - m).max() < 0.1
    assert np.abs(fit.weights[order] - w).max() < 0.05


def test_digits_thresholded():
    X = (load_digits().data >= 8).astype(float)
    fit = bm.fit(X, 10, n_iter=50, rng=0)  # maximum likelihood: means of exactly 0 and 1 occur
    assert np.all(np.diff(fit.log_likelihood_history) > -1e-6)
    assert fit.means.shape == (10, 64) and np.isclose(fit.weights.sum(), 1)


def test_seeded_fit_repeats():
    X, _, _ = _sample(100, 10)
    a, b = bm.fit(X, 2, rng=3), bm.fit(X, 2, rng=np.random.default_rng(3))
    assert np.array_equal(a.means, b.means)


def test_zero_probabilities_are_handled():
    X = np.array([[0.0, 1.0], [0.0, 1.0], [1.0, 1.0]])
    means = np.array([[0.0, 1.0], [1.0, 0.5]])
    resp, _ = bm.e_step(X, np.array([0.5, 0.5]), means)
    assert np.allclose(resp[2], [0, 1])  # x = (1, 1) is impossible under component 1
    with pytest.raises(ValueError, match="pseudo_count"):
        bm.e_step(np.array([[1.0, 0.0]]), np.array([0.5, 0.5]), np.array([[0.0, 1.0], [0.0, 0.5]]))


@pytest.mark.parametrize("call, error, fragment", [
    (lambda: bm.e_step(np.array([[0.0, 2.0]]), [1.0], [[0.5, 0.5]]), ValueError, "binary"),
    (lambda: bm.e_step(np.array([[0.0, 1.0]]), [1.0], [[0.5, 1.5]]), ValueError, "[0, 1]"),
    (lambda: bm.e_step(np.array([[0.0, 1.0]]), [0.5, 0.6], [[0.5, 0.5], [0.2, 0.2]]), ValueError, "sum to 1"),
    (lambda: bm.e_step(np.array([[0.0, 1.0]]), [1.0], [[0.5, 0.5, 0.5]]), ValueError, "features"),
    (lambda: bm.m_step(np.array([[0.0, 1.0]]), [[0.5, 0.6]]), ValueError, "probability vector"),
    (lambda: bm.m_step(np.array([[0.0, 1.0], [1.0, 1.0]]), [[1.0, 0.0], [1.0, 0.0]]), ValueError, "soft count 0"),
    (lambda: bm.m_step(np.array([[0.0, 1.0]]), [[1.0]], pseudo_count=-1), ValueError, "pseudo_count"),
    (lambda: bm.fit(np.array([[0.0, 1.0]]), 2.5), TypeError, "n_components"),
    (lambda: bm.fit("abc", 2), TypeError, "X"),
])
def test_bad_input_raises_clear_errors(call, error, fragment):
    with pytest.raises(error) as info:
        call()
    assert fragment in str(info.value)
