"""lib.variational: the ELBO identities, the mean-field updates, exact and variational EM."""

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.special import entr, logsumexp
from scipy.stats import multivariate_normal
from sklearn.utils.estimator_checks import parametrize_with_checks

from lib import mixture
from lib import variational as V


# ----------------------------------------------------------------- helpers


def _random_params(rng, n_causes=3, n_features=2, noise_variance=None):
    probs = rng.uniform(0.1, 0.9, size=n_causes)
    components = rng.normal(scale=1.5, size=(n_causes, n_features))
    s2 = rng.uniform(0.1, 1.0) if noise_variance is None else noise_variance
    return V.FactorialParams(probs, components, s2)


def _random_q(rng, shape, with_zeros=False):
    q = rng.dirichlet(np.ones(shape[-1]), size=shape[:-1])
    if with_zeros:
        q[..., 0] = 0.0
        q /= q.sum(axis=-1, keepdims=True)
    return q


@pytest.fixture
def factorial_data():
    rng = np.random.default_rng(0)
    params = _random_params(rng, n_causes=3, n_features=4, noise_variance=0.4)
    X, Z = V.sample(params, 60, rng)
    return X, Z, params


# ------------------------------------------------------------ generic ELBO


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(1, 6), S=st.integers(1, 8), zeros=st.booleans())
def test_elbo_plus_kl_equals_log_evidence_for_random_q(seed, n, S, zeros):
    rng = np.random.default_rng(seed)
    lj = rng.normal(scale=5, size=(n, S)) - 10.0
    q = _random_q(rng, (n, S), with_zeros=zeros and S > 1)
    total = V.elbo(lj, q) + V.kl_to_posterior(lj, q)
    assert np.isclose(total, V.log_evidence(lj), rtol=1e-10, atol=1e-9)
    assert V.elbo(lj, q) <= V.log_evidence(lj) + 1e-9
    assert V.kl_to_posterior(lj, q) >= -1e-12


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), S=st.integers(1, 10))
def test_bound_is_tight_exactly_at_the_posterior(seed, S):
    rng = np.random.default_rng(seed)
    lj = rng.normal(scale=30, size=(3, S))  # widely spread: exp() would underflow
    post = V.posterior(lj)
    np.testing.assert_allclose(post.sum(axis=1), 1.0)
    assert np.isclose(V.elbo(lj, post), V.log_evidence(lj), rtol=1e-12, atol=1e-9)
    assert abs(V.kl_to_posterior(lj, post)) < 1e-9


def test_elbo_definitions_agree_with_direct_formula():
    rng = np.random.default_rng(1)
    lj = rng.normal(size=5)
    q = _random_q(rng, (5,))
    direct = np.sum(q * (lj - np.log(q)))  # sum_z q ln(p/q)
    entropy_form = np.sum(q * lj) - np.sum(q * np.log(q))
    assert np.isclose(V.elbo(lj, q), direct)
    assert np.isclose(V.elbo(lj, q), entropy_form)
    # Jensen: ln E_q[p/q] >= E_q[ln p/q], and ln E_q[p/q] is the log evidence
    assert np.isclose(np.log(np.sum(q * np.exp(lj) / q)), V.log_evidence(lj))


def test_zero_probability_states_follow_0_log_0_convention():
    lj = np.array([-np.inf, -1.0, -2.0])  # state 0 impossible
    q = np.array([0.0, 0.5, 0.5])
    value = V.elbo(lj, q)
    assert np.isfinite(value)
    assert np.isclose(value, 0.5 * (-1.0) + 0.5 * (-2.0) + np.log(2.0))
    assert np.isclose(V.elbo(lj, q) + V.kl_to_posterior(lj, q), V.log_evidence(lj))
    # mass on an impossible state: the bound is -inf and the KL +inf
    bad = np.array([0.2, 0.4, 0.4])
    assert V.elbo(lj, bad) == -np.inf
    assert V.kl_to_posterior(lj, bad) == np.inf


def test_point_mass_elbo_is_the_log_joint_and_hard_e_step_maximises_it():
    rng = np.random.default_rng(2)
    lj = rng.normal(size=(4, 6))
    hard = V.hard_e_step(lj)
    np.testing.assert_array_equal(hard.sum(axis=1), 1.0)
    assert np.isclose(V.elbo(lj, hard), np.sum(lj.max(axis=1)))
    # among all q, E_q[ln p] alone is maximised by the point mass
    for _ in range(20):
        q = _random_q(rng, lj.shape)
        assert np.sum(q * lj) <= np.sum(hard * lj) + 1e-12


@pytest.mark.parametrize(
    "lj, q, match",
    [
        (np.zeros(3), np.array([0.5, 0.5]), "same shape"),
        (np.zeros(3), np.array([0.5, 0.6, -0.1]), "non-negative"),
        (np.zeros(3), np.array([0.5, 0.6, 0.1]), "sum to 1"),
        (np.array([0.0, np.nan]), np.array([0.5, 0.5]), "NaN"),
        (np.array([-np.inf, -np.inf]), np.array([0.5, 0.5]), "every latent state"),
        (np.float64(1.0), np.float64(1.0), "at least one axis"),
    ],
)
def test_bad_inputs_raise_clear_errors(lj, q, match):
    with pytest.raises(ValueError, match=match):
        V.elbo(lj, q)


# ---------------------------------------------------------- Gaussian mixture


@pytest.mark.parametrize("cov_type", ["full", "tied", "diag", "spherical"])
def test_gmm_elbo_equals_mixture_lower_bound_and_log_likelihood(cov_type):
    rng = np.random.default_rng(3)
    X = rng.normal(size=(40, 2))
    gmm = mixture.GaussianMixture(3, covariance_type=cov_type, random_state=0, max_iter=200).fit(X)
    theta = (gmm.weights_, gmm.means_, gmm.covariances_, cov_type)
    for q in (_random_q(rng, (40, 3)), np.full((40, 3), 1 / 3), gmm.predict_proba(X)):
        assert np.isclose(V.gmm_elbo(X, q, *theta), mixture.lower_bound(X, q, *theta), rtol=1e-10)
    resp = gmm.predict_proba(X)
    assert np.isclose(V.gmm_elbo(X, resp, *theta), mixture.log_likelihood(X, *theta), rtol=1e-10)


def test_gmm_log_joint_matches_scipy():
    rng = np.random.default_rng(4)
    X = rng.normal(size=(5, 2))
    w, mu, cov = np.array([0.3, 0.7]), rng.normal(size=(2, 2)), np.array([np.eye(2), 2 * np.eye(2)])
    want = np.column_stack([np.log(w[k]) + multivariate_normal(mu[k], cov[k]).logpdf(X) for k in range(2)])
    np.testing.assert_allclose(V.gmm_log_joint(X, w, mu, cov), want, rtol=1e-12)
    with pytest.raises(ValueError, match="q must have shape"):
        V.gmm_elbo(X, np.full((5, 3), 1 / 3), w, mu, cov)


# ------------------------------------------------------------ factorial model


def test_all_states_are_the_binary_expansions():
    states = V.all_states(3)
    assert states.shape == (8, 3)
    np.testing.assert_array_equal(states[3], [0, 1, 1])
    assert {tuple(s) for s in states} == set(itertools.product([0, 1], repeat=3))


def test_log_joint_and_posterior_match_brute_force_bayes(factorial_data):
    X, _, (probs, W, s2) = factorial_data
    params = V.FactorialParams(probs, W, s2)
    lj = V.log_joint(X, params)
    post = V.exact_posterior(X, params)
    np.testing.assert_allclose(post.sum(axis=1), 1.0, rtol=1e-12)
    for i in (0, 7, 31):
        joint = []
        for z in itertools.product([0, 1], repeat=3):
            z = np.array(z)
            prior = np.prod(np.where(z == 1, probs, 1 - probs))
            lik = multivariate_normal(z @ W, s2 * np.eye(W.shape[1])).pdf(X[i])
            joint.append(prior * lik)
        joint = np.array(joint)
        np.testing.assert_allclose(np.exp(lj[i]), joint, rtol=1e-10)
        np.testing.assert_allclose(post[i], joint / joint.sum(), rtol=1e-10)
    # the log-likelihood by enumerating the 2^3 states of every row, with scipy's densities
    states = np.array(list(itertools.product([0, 1], repeat=3)))
    log_joint = np.column_stack([
        np.sum(np.where(z == 1, np.log(probs), np.log1p(-probs)))
        + multivariate_normal(z @ W, s2 * np.eye(W.shape[1])).logpdf(X) for z in states])
    assert np.isclose(V.log_likelihood(X, params), logsumexp(log_joint, axis=1).sum(), rtol=1e-12)


def test_sample_is_reproducible_and_has_the_right_moments():
    params = V.FactorialParams(np.array([0.2, 0.7]), np.array([[1.0, 0.0], [0.0, 3.0]]), 0.25)
    X1, Z1 = V.sample(params, 20000, np.random.default_rng(5))
    X2, _ = V.sample(params, 20000, np.random.default_rng(5))
    np.testing.assert_array_equal(X1, X2)
    np.testing.assert_allclose(Z1.mean(axis=0), [0.2, 0.7], atol=0.01)
    np.testing.assert_allclose(X1.mean(axis=0), [0.2, 2.1], atol=0.03)
    np.testing.assert_allclose((X1 - Z1 @ params.components).var(), 0.25, rtol=0.03)


def test_mean_field_elbo_closed_form_matches_enumeration(factorial_data):
    X, _, params = factorial_data
    rng = np.random.default_rng(6)
    for xi in (rng.random((60, 3)), np.full((60, 3), 0.5), np.zeros((60, 3)), np.ones((60, 3))):
        q = V.mean_field_q(xi)
        np.testing.assert_allclose(q.sum(axis=1), 1.0)
        assert np.isclose(V.mean_field_elbo(X, params, xi), V.elbo(V.log_joint(X, params), q), rtol=1e-11)


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), M=st.integers(1, 4), d=st.integers(1, 3))
def test_each_coordinate_update_never_lowers_the_elbo_and_is_the_argmax(seed, M, d):
    rng = np.random.default_rng(seed)
    params = _random_params(rng, M, d)
    X, _ = V.sample(params, 8, rng)
    xi = rng.random((8, M))
    for m in list(range(M)) * 2:
        before = V.mean_field_elbo(X, params, xi)
        new = xi.copy()
        new[:, m] = V.mean_field_update(X, params, xi, m)
        after = V.mean_field_elbo(X, params, new)
        assert after >= before - 1e-9 * abs(before)
        # the update is the maximiser along this coordinate: any other value is no better
        for t in (0.0, 0.3, 0.9, 1.0):
            other = new.copy()
            other[:, m] = t
            assert V.mean_field_elbo(X, params, other) <= after + 1e-9 * abs(after)
        xi = new


def test_mean_field_is_exact_when_components_are_orthogonal():
    # orthogonal w_m: the cross terms vanish, the posterior factorises, KL -> 0
    params = V.FactorialParams(np.array([0.3, 0.6, 0.5]), 2.0 * np.eye(3), 0.5)
    X, _ = V.sample(params, 30, np.random.default_rng(7))
    xi = V.mean_field_e_step(X, params, n_sweeps=5)
    lj = V.log_joint(X, params)
    assert abs(V.log_evidence(lj) - V.mean_field_elbo(X, params, xi)) < 1e-9
    # with explaining-away couplings the gap stays positive
    coupled = V.FactorialParams(params.probs, np.array([[2.0, 0, 0], [0, 2.0, 0], [2.0, 2.0, 0]]), 0.5)
    xi = V.mean_field_e_step(X, coupled, n_sweeps=100, tol=1e-12)
    assert V.log_likelihood(X, coupled) - V.mean_field_elbo(X, coupled, xi) > 1e-3


def test_moments_match_their_enumeration(factorial_data):
    rng = np.random.default_rng(8)
    xi = rng.random((10, 3))
    states = V.all_states(3)
    q = V.mean_field_q(xi)
    Ez, S = V.mean_field_moments(xi)
    np.testing.assert_allclose(Ez, q @ states, rtol=1e-12)
    np.testing.assert_allclose(S, np.einsum("is,sm,sl->ml", q, states, states), rtol=1e-12)
    Ez2, S2 = V.exact_moments(q, 3)  # exact_moments works for any table over states
    np.testing.assert_allclose(Ez2, Ez, rtol=1e-12)
    np.testing.assert_allclose(S2, S, rtol=1e-12)


@pytest.mark.parametrize("kind", ["exact", "mean_field"])
def test_m_step_maximises_the_expected_complete_log_likelihood(factorial_data, kind):
    X, _, params = factorial_data
    rng = np.random.default_rng(9)
    if kind == "exact":
        q = V.exact_posterior(X, params)
        Ez, S = V.exact_moments(q, 3)
    else:
        xi = V.mean_field_e_step(X, params)
        q = V.mean_field_q(xi)
        Ez, S = V.mean_field_moments(xi)
    new = V.m_step(X, Ez, S)
    best = V.elbo(V.log_joint(X, new), q)
    assert best >= V.elbo(V.log_joint(X, params), q) - 1e-9
    for _ in range(20):  # small random perturbations never do better
        probs = np.clip(new.probs + rng.normal(scale=0.02, size=3), 1e-3, 1 - 1e-3)
        W = new.components + rng.normal(scale=0.02, size=new.components.shape)
        s2 = new.noise_variance * np.exp(rng.normal(scale=0.02))
        assert V.elbo(V.log_joint(X, V.FactorialParams(probs, W, s2)), q) <= best + 1e-9


def test_m_step_handles_a_cause_that_is_never_on():
    rng = np.random.default_rng(10)
    X = rng.normal(size=(20, 2))
    xi = np.column_stack([rng.random(20), np.zeros(20)])
    params = V.m_step(X, *V.mean_field_moments(xi))
    assert np.all(np.isfinite(params.components))
    assert params.probs[1] == 0.0
    # probs = 0 is allowed downstream: log 0 handled, no NaN
    assert np.isfinite(V.log_likelihood(X, params))
    xi2 = V.mean_field_e_step(X, params)
    np.testing.assert_array_equal(xi2[:, 1], 0.0)
    assert np.isfinite(V.mean_field_elbo(X, params, xi2))


# ------------------------------------------------------------------ EM loops


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_exact_em_never_lowers_the_log_likelihood(factorial_data, seed):
    X = factorial_data[0]
    fit = V.exact_em(X, 3, n_iter=40, random_state=seed)
    ll = fit.log_likelihood_history_
    assert ll.shape == (41,)
    assert np.all(np.diff(ll) >= -1e-8 * np.abs(ll[1:]))
    # after an exact E-step the bound is tight, after the M-step it is below the new likelihood
    np.testing.assert_allclose(fit.elbo_trace_[:, 0], ll[:-1], rtol=1e-10)
    assert np.all(fit.elbo_trace_[:, 1] <= ll[1:] + 1e-8)
    assert np.all(fit.elbo_trace_[:, 1] >= fit.elbo_trace_[:, 0] - 1e-8)


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_variational_em_never_lowers_the_elbo_at_any_half_step(factorial_data, seed):
    X = factorial_data[0]
    fit = V.variational_em(X, 3, n_iter=40, n_sweeps=3, random_state=seed)
    trace = fit.elbo_trace_.ravel()  # E, M, E, M, ...
    assert np.all(np.diff(trace) >= -1e-8 * np.abs(trace[1:]))
    # the last entry is L(q, theta) at the final q (xi_) and parameters, by enumerating the 2^3 states
    # with scipy's densities: E_q[ln p(x_i, z)] + H(q_i)
    probs, W, s2 = fit.params_
    states = np.array(list(itertools.product([0, 1], repeat=3)))
    xi = fit.xi_
    elbo = 0.0
    for z in states:
        q = np.prod(np.where(z == 1, xi, 1 - xi), axis=1)  # (n,)
        log_p = np.sum(np.where(z == 1, np.log(probs), np.log1p(-probs))) + \
            multivariate_normal(z @ W, s2 * np.eye(W.shape[1])).logpdf(X)
        elbo += np.sum(q * log_p)
    elbo += np.sum(entr(xi) + entr(1 - xi))
    assert np.isclose(fit.elbo_history_[-1], elbo, rtol=1e-10)
    # the ELBO is a lower bound on the exact log-likelihood at every iterate
    assert np.all(fit.elbo_history_ <= fit.log_likelihood_history_[1:] + 1e-8)


def test_variational_em_can_lower_the_log_likelihood():
    # started at the exact-EM estimate, mean-field EM trades likelihood for a tighter bound
    params = V.FactorialParams(np.full(3, 0.4), np.array([[2.0, 0.0], [0.0, 2.0], [1.5, 1.5]]), 0.3)
    X, _ = V.sample(params, 200, np.random.default_rng(0))
    mle = V.exact_em(X, 3, n_iter=100, random_state=3).params_
    fit = V.variational_em(X, 3, n_iter=20, params_init=mle)
    assert fit.log_likelihood_history_[-1] < fit.log_likelihood_history_[0] - 1.0
    assert fit.elbo_history_[-1] > fit.elbo_history_[0]


def test_estimator_is_deterministic_and_exposes_fitted_attributes(factorial_data):
    X = factorial_data[0]
    a = V.FactorialMixture(3, n_iter=10, random_state=4).fit(X)
    b = V.FactorialMixture(3, n_iter=10, random_state=4).fit(X)
    np.testing.assert_array_equal(a.log_likelihood_history_, b.log_likelihood_history_)
    assert a.n_iter_ == 10 and a.elbo_trace_.shape == (10, 2)
    assert a.components_.shape == (3, 4) and a.probs_.shape == (3,) and a.noise_variance_ > 0
    assert np.isclose(a.score(X) * X.shape[0], a.log_likelihood_history_[-1])
    assert a.posterior(X).shape == (60, 8)
    assert a.transform(X).shape == (60, 3)
    Xs, Zs = a.sample(5, random_state=0)
    assert Xs.shape == (5, 4) and Zs.shape == (5, 3)
    stopped = V.FactorialMixture(3, n_iter=500, tol=1e-6, random_state=4).fit(X)
    assert stopped.n_iter_ < 500


@pytest.mark.parametrize(
    "kwargs, match",
    [
        (dict(method="gibbs"), "method must be"),
        (dict(n_causes=0), "n_causes"),
        (dict(n_causes=13), "2\\*\\*13"),
        (dict(n_iter=0), "n_iter"),
        (dict(params_init=V.FactorialParams(np.full(2, 0.5), np.ones((2, 4)), 1.0)), "2 causes"),
    ],
)
def test_estimator_rejects_bad_settings(factorial_data, kwargs, match):
    X = factorial_data[0]
    settings_ = dict(n_causes=3, n_iter=2)
    settings_.update(kwargs)
    with pytest.raises(ValueError, match=match):
        V.FactorialMixture(**settings_).fit(X)


def test_unfitted_estimator_and_bad_parameters_raise(factorial_data):
    X, _, params = factorial_data
    with pytest.raises(ValueError, match="not fitted"):
        V.FactorialMixture(3).score(X)
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        V.log_joint(X, V.FactorialParams(np.array([0.5, 1.5, 0.2]), params.components, 1.0))
    with pytest.raises(ValueError, match="feature"):
        V.log_joint(X[:, :2], params)
    with pytest.raises(ValueError, match="noise_variance"):
        V.log_joint(X, V.FactorialParams(params.probs, params.components, -1.0))
    with pytest.raises(TypeError, match="FactorialParams"):
        V.log_joint(X, 3.0)
    with pytest.raises(ValueError, match="cause index"):
        V.mean_field_update(X, params, np.full((60, 3), 0.5), 3)
    with pytest.raises(ValueError, match="xi"):
        V.mean_field_e_step(X, params, xi_init=np.full((60, 2), 0.5))


# ---------------------------------------------------------------- scikit-learn's estimator contract


@parametrize_with_checks([V.FactorialMixture(n_causes=2, n_iter=5, random_state=0)])
def test_sklearn_estimator_checks(estimator, check):
    # No check is skipped for lib's own reasons; scikit-learn skips the array-API
    # check itself (SCIPY_ARRAY_API unset).
    check(estimator)
