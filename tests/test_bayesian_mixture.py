"""The variational Bayesian Gaussian mixture (lib.bayesian_mixture).

Held against scikit-learn's BayesianGaussianMixture with the same priors and
start (fitted parameters and lower bound, the bound up to the constant
sklearn_bound_offset), against a Monte Carlo estimate of the ELBO from its
definition (sampling q(pi, mu, Lambda) with scipy's distributions), and
against properties: the ELBO never decreases under CAVI, a small Dirichlet
concentration empties surplus components, the ELBO prefers the true K.
"""


import numpy as np
import pytest
from scipy import stats
from sklearn.mixture import BayesianGaussianMixture

import lib
from lib import bayesian_mixture as B

MEANS = np.array([[0.0, 0.0], [4.0, 0.5], [1.5, 3.5]])
COVS = np.array([[[1.0, 0.3], [0.3, 0.6]], [[0.7, -0.2], [-0.2, 0.8]], [[0.5, 0.0], [0.0, 0.9]]])


def data(n=150, rng=3):
    X, _ = lib.datasets.make_mixture(n, [0.45, 0.35, 0.2], MEANS, COVS, "full", rng=rng)
    return X


@pytest.mark.parametrize("alpha0, init", [(0.01, "kmeans"), (1.0, "random"), (50.0, "kmeans")])
def test_matches_scikit_learn(alpha0, init):
    X = data()
    kw = dict(n_components=5, weight_concentration_prior=alpha0, max_iter=500, tol=1e-6, random_state=1,
              init_params=init)
    sk = BayesianGaussianMixture(weight_concentration_prior_type="dirichlet_distribution", **kw).fit(X)
    me = B.VariationalGaussianMixture(**kw).fit(X)
    assert me.n_iter_ == sk.n_iter_ and me.converged_ == sk.converged_
    for name in ("weight_concentration_", "mean_precision_", "means_", "degrees_of_freedom_", "covariances_",
                 "weights_"):
        np.testing.assert_allclose(getattr(me, name), getattr(sk, name), rtol=1e-9, atol=1e-10, err_msg=name)
    np.testing.assert_allclose(me.predict_proba(X), sk.predict_proba(X), rtol=0, atol=1e-9)
    assert np.isclose(me.lower_bound_, sk.lower_bound_, rtol=1e-11, atol=1e-8)
    # what scikit-learn omits is the constant, and nothing else
    offset = B.sklearn_bound_offset(len(X), 5, 2, alpha0, 1.0, 2.0, np.cov(X.T))
    assert np.isclose(me.elbo_ - sk.lower_bound_, offset, rtol=1e-12, atol=1e-8)
    np.testing.assert_allclose(me.elbo_history_ - me.lower_bounds_, offset, rtol=1e-12)


def test_explicit_priors_match_scikit_learn():
    X = data(n=90, rng=5)
    kw = dict(n_components=3, weight_concentration_prior=0.5, mean_precision_prior=0.1, mean_prior=[1.0, 1.0],
              degrees_of_freedom_prior=4.5, covariance_prior=[[2.0, 0.3], [0.3, 1.0]], max_iter=300, tol=1e-8,
              random_state=0)
    sk = BayesianGaussianMixture(weight_concentration_prior_type="dirichlet_distribution", **kw).fit(X)
    me = B.VariationalGaussianMixture(**kw).fit(X)
    np.testing.assert_allclose(me.covariances_, sk.covariances_, rtol=1e-9, atol=1e-10)
    assert np.isclose(me.lower_bound_, sk.lower_bound_, rtol=1e-11, atol=1e-8)


@pytest.mark.parametrize("alpha0", [0.001, 1.0, 1000.0])
def test_elbo_never_decreases(alpha0):
    me = B.VariationalGaussianMixture(6, weight_concentration_prior=alpha0, init_params="random", max_iter=400,
                                      tol=1e-9, random_state=2).fit(data())
    assert np.all(np.diff(me.elbo_history_) >= -1e-9)


def test_elbo_equals_its_definition_by_monte_carlo():
    """E_q[ln p(X, Z, pi, mu, Lambda) - ln q] with q(pi, mu, Lambda) sampled by scipy.

    At the q(pi, mu, Lambda) that is optimal for q(Z), the integrand does not depend on
    the sample (q is proportional to exp E_q(Z)[ln p]), so every draw gives the ELBO."""
    X = data(n=40, rng=7)
    n, d = X.shape
    K, alpha0, beta0, kappa0 = 3, 0.7, 0.5, 3.0
    W0_inv = np.cov(X.T)
    m0 = X.mean(axis=0)
    resp = np.random.default_rng(0).dirichlet(np.ones(K), size=n)
    alpha, beta, m, kappa, cov = B.vb_m_step(X, resp, alpha0, beta0, m0, kappa0, W0_inv)
    W = np.linalg.inv(cov * kappa[:, None, None])
    W0 = np.linalg.inv(W0_inv)
    rng = np.random.default_rng(1)
    S = 200
    pis = stats.dirichlet(alpha).rvs(S, random_state=rng)  # (S, K)
    total = np.full(S, -np.sum(resp * np.log(resp)))  # H[q(Z)]
    total += stats.dirichlet(np.full(K, alpha0)).logpdf(pis.T) - stats.dirichlet(alpha).logpdf(pis.T)
    total += (resp.sum(axis=0) * np.log(pis)).sum(axis=1)
    for k in range(K):
        Lams = stats.wishart(df=kappa[k], scale=W[k]).rvs(S, random_state=rng)  # (S, d, d)
        covs_k = np.linalg.inv(Lams)
        mus = np.array([rng.multivariate_normal(m[k], c / beta[k]) for c in covs_k])
        for s in range(S):
            total[s] += (stats.multivariate_normal(m0, covs_k[s] / beta0).logpdf(mus[s])
                         + stats.wishart(df=kappa0, scale=W0).logpdf(Lams[s])
                         - stats.multivariate_normal(m[k], covs_k[s] / beta[k]).logpdf(mus[s])
                         - stats.wishart(df=kappa[k], scale=W[k]).logpdf(Lams[s])
                         + resp[:, k] @ stats.multivariate_normal(mus[s], covs_k[s]).logpdf(X))
    estimate, se = total.mean(), total.std() / np.sqrt(S)
    exact = B.vb_elbo(resp, alpha, beta, kappa, cov, alpha0, beta0, kappa0, W0_inv)
    assert abs(estimate - exact) < 4 * se + 1e-9 * abs(exact), (estimate, exact, se)
    assert se < 1e-9 * abs(exact)  # the integrand is constant under q


def test_wishart_and_dirichlet_normalisers_match_scipy():
    W = np.array([[1.5, 0.2, 0.0], [0.2, 0.8, 0.1], [0.0, 0.1, 2.0]])
    Lam = np.array([[2.0, 0.3, 0.1], [0.3, 1.0, 0.0], [0.1, 0.0, 3.0]])
    kappa = 5.5
    log_kernel = 0.5 * (kappa - 4) * np.linalg.slogdet(Lam)[1] - 0.5 * np.trace(np.linalg.solve(W, Lam))
    assert np.isclose(B.log_wishart_normaliser(W, kappa) + log_kernel, stats.wishart(df=kappa, scale=W).logpdf(Lam))
    a = np.array([0.3, 2.0, 5.0])
    p = np.array([0.2, 0.3, 0.5])
    assert np.isclose(B.log_dirichlet_normaliser(a) + np.sum((a - 1) * np.log(p)), stats.dirichlet(a).logpdf(p))


def test_small_concentration_empties_surplus_components():
    me = B.VariationalGaussianMixture(8, weight_concentration_prior=0.001, max_iter=1000, tol=1e-6,
                                      random_state=0).fit(data(n=300))
    assert np.sum(me.weights_ > 0.01) == 3


def test_elbo_prefers_the_true_number_of_components():
    X = data(n=300)
    elbos = [B.VariationalGaussianMixture(K, weight_concentration_prior=1.0, max_iter=500, tol=1e-6,
                                          random_state=0).fit(X).elbo_ for K in (1, 2, 3)]
    assert np.argmax(elbos) == 2


@pytest.mark.parametrize("kwargs, error", [
    (dict(n_components=0), ValueError),
    (dict(n_components=2.5), TypeError),
    (dict(weight_concentration_prior=0.0), ValueError),
    (dict(weight_concentration_prior="small"), TypeError),
    (dict(mean_precision_prior=-1.0), ValueError),
    (dict(degrees_of_freedom_prior=0.5), ValueError),
    (dict(covariance_prior=[[1.0, 2.0], [2.0, 1.0]]), ValueError),
    (dict(covariance_prior=np.eye(3)), ValueError),
    (dict(mean_prior=[0.0, 0.0, 0.0]), ValueError),
    (dict(init_params="k-means++"), ValueError),
    (dict(tol=-1.0), ValueError),
])
def test_bad_parameters_raise(kwargs, error):
    with pytest.raises(error):
        B.VariationalGaussianMixture(**{"n_components": 2, **kwargs}).fit(data(n=30))


def test_bad_data_raise():
    model = B.VariationalGaussianMixture(2)
    with pytest.raises(ValueError):
        model.fit(np.array([[0.0, np.nan], [1.0, 2.0], [2.0, 1.0]]))
    with pytest.raises(ValueError):
        model.fit(np.ones(5))
    with pytest.raises(TypeError):
        model.fit("data")
    with pytest.raises(ValueError):
        B.VariationalGaussianMixture(5).fit(data(n=4))
    fitted = B.VariationalGaussianMixture(2, random_state=0).fit(data(n=30))
    with pytest.raises(ValueError):
        fitted.predict_proba(np.ones((3, 3)))


def test_m_step_rejects_bad_resp():
    X = data(n=20)
    with pytest.raises(ValueError):
        B.vb_m_step(X, np.full((20, 2), 0.3), 1.0, 1.0, X.mean(0), 2.0, np.eye(2))
    with pytest.raises(ValueError):
        B.vb_m_step(X, np.full((19, 2), 0.5), 1.0, 1.0, X.mean(0), 2.0, np.eye(2))


def test_not_converged_warns():
    with pytest.warns(lib._validation.ConvergenceWarning):
        B.VariationalGaussianMixture(3, max_iter=2, tol=1e-12, random_state=0).fit(data(n=60))
