"""Tests for the conjugate-prior functions of lib.mle (Beta-Bernoulli, Dirichlet-categorical,
the Gaussian prior behind the l2 penalty): Bayes' rule done numerically, scipy.stats.beta and
scipy.stats.dirichlet (means, modes found by optimisation, normalisation), and validation."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import integrate, optimize, stats
from scipy.special import betaln, gammaln, softmax

from lib import mle
from lib.logistic import LogisticRegression
from lib.logistic import log_likelihood as logistic_log_likelihood


@pytest.fixture
def rng():
    return np.random.default_rng(20261125)


# -------------------------------------------------------- Beta-Bernoulli --

@pytest.mark.parametrize("a, b", [(1.0, 1.0), (2.0, 5.0), (0.5, 0.5), (10.0, 3.0)])
def test_beta_posterior_is_bayes_rule(rng, a, b):
    x = (rng.random(23) < 0.35).astype(int)
    n1, n0 = x.sum(), x.size - x.sum()
    a_post, b_post = mle.beta_bernoulli_posterior(x, a, b)
    assert (a_post, b_post) == (a + n1, b + n0)
    # prior x likelihood, normalised by numerical integration, is the Beta(a_post, b_post) density
    def unnormalised(t):
        return stats.beta(a, b).pdf(t) * np.exp(mle.bernoulli_log_likelihood(x, t))
    evidence, _ = integrate.quad(unnormalised, 0, 1, points=[n1 / x.size])
    assert evidence == pytest.approx(np.exp(betaln(a_post, b_post) - betaln(a, b)), rel=1e-7)
    for t in (0.05, 0.2, 0.35, 0.6, 0.9):
        assert unnormalised(t) / evidence == pytest.approx(stats.beta(a_post, b_post).pdf(t), rel=1e-6)
    total, _ = integrate.quad(stats.beta(a_post, b_post).pdf, 0, 1)
    assert total == pytest.approx(1.0, abs=1e-8)


def test_beta_posterior_of_an_empty_sample_is_the_prior():
    assert mle.beta_bernoulli_posterior([], 2.5, 4.0) == (2.5, 4.0)
    assert mle.beta_bernoulli_posterior(np.array([], dtype=int)) == (1.0, 1.0)


@pytest.mark.parametrize("a, b", [(1.5, 1.5), (2.0, 7.0), (13.0, 4.0), (1.0, 3.0), (3.0, 1.0), (0.3, 2.0)])
def test_beta_mean_and_predictive_match_scipy(a, b):
    assert mle.beta_mean(a, b) == pytest.approx(stats.beta(a, b).mean(), rel=1e-12)
    # the predictive probability of a 1 is the integral of theta against the posterior
    pred, _ = integrate.quad(lambda t: t * stats.beta(a, b).pdf(t), 0, 1)
    assert mle.beta_bernoulli_predictive(a, b) == pytest.approx(pred, rel=1e-7)


@pytest.mark.parametrize("a, b", [(1.5, 1.5), (2.0, 7.0), (13.0, 4.0), (1.2, 30.0)])
def test_beta_mode_maximises_the_density(a, b):
    res = optimize.minimize_scalar(lambda t: -stats.beta(a, b).logpdf(t), bounds=(1e-12, 1 - 1e-12),
                                   method="bounded", options={"xatol": 1e-12})
    assert mle.beta_mode(a, b) == pytest.approx(res.x, abs=1e-7)


def test_beta_mode_at_the_endpoints_and_undefined_cases():
    assert mle.beta_mode(1.0, 3.0) == 0.0     # density 3 (1 - t)^2, largest at 0
    assert mle.beta_mode(4.0, 1.0) == 1.0
    with pytest.raises(ValueError, match="unbounded"):
        mle.beta_mode(0.5, 3.0)
    with pytest.raises(ValueError, match="uniform"):
        mle.beta_mode(1.0, 1.0)


def test_beta_map_and_mean_with_the_uniform_prior():
    x = np.array([1, 1, 0, 1, 0, 0, 0, 1, 1, 1])
    a_post, b_post = mle.beta_bernoulli_posterior(x)  # uniform prior Beta(1, 1)
    assert mle.beta_mode(a_post, b_post) == pytest.approx(mle.bernoulli_mle(x))   # MAP = MLE
    assert mle.beta_bernoulli_predictive(a_post, b_post) == pytest.approx((6 + 1) / (10 + 2))  # Laplace


@given(st.integers(0, 40), st.integers(0, 40), st.floats(0.1, 20), st.floats(0.1, 20))
@settings(max_examples=60, deadline=None)
def test_beta_posterior_mean_lies_between_prior_mean_and_mle(n1, n0, a, b):
    x = np.r_[np.ones(n1, dtype=int), np.zeros(n0, dtype=int)]
    a_post, b_post = mle.beta_bernoulli_posterior(x, a, b)
    post = mle.beta_mean(a_post, b_post)
    prior = a / (a + b)
    if n1 + n0 == 0:
        assert post == pytest.approx(prior)
        return
    ml = n1 / (n1 + n0)
    rho = (n1 + n0) / (n1 + n0 + a + b)   # weight of the data
    assert post == pytest.approx(rho * ml + (1 - rho) * prior)
    assert min(prior, ml) - 1e-12 <= post <= max(prior, ml) + 1e-12


@pytest.mark.parametrize(
    "call, error, match",
    [
        (lambda: mle.beta_bernoulli_posterior([0, 1, 2]), ValueError, "0 and 1"),
        (lambda: mle.beta_bernoulli_posterior([0, 1], a=0.0), ValueError, "> 0"),
        (lambda: mle.beta_bernoulli_posterior([0, 1], b=-1.0), ValueError, "> 0"),
        (lambda: mle.beta_bernoulli_posterior([0, 1], a="1"), TypeError, "number"),
        (lambda: mle.beta_mean(True, 1.0), TypeError, "number"),
        (lambda: mle.beta_mean(1.0, np.inf), ValueError, "finite"),
        (lambda: mle.beta_mode(2.0, 0.0), ValueError, "> 0"),
    ],
)
def test_beta_bad_inputs(call, error, match):
    with pytest.raises(error, match=match):
        call()


# -------------------------------------------------- Dirichlet-categorical --

def test_dirichlet_posterior_is_bayes_rule(rng):
    counts = np.array([4, 0, 2])
    alpha = np.array([0.7, 2.0, 1.5])
    post = mle.dirichlet_categorical_posterior(counts, alpha)
    np.testing.assert_allclose(post, alpha + counts)
    # prior x likelihood over the 2-simplex, integrated numerically, gives the evidence
    # B(alpha + n) / B(alpha), and divided by it the posterior density
    def log_multibeta(a):
        return np.sum(gammaln(a)) - gammaln(np.sum(a))

    def unnormalised(t2, t1):
        theta = np.array([t1, t2, 1.0 - t1 - t2])
        if theta[2] <= 0:
            return 0.0
        return stats.dirichlet(alpha).pdf(theta) * np.exp(mle.categorical_log_likelihood(counts, theta))

    evidence, _ = integrate.dblquad(unnormalised, 0, 1, 0, lambda t1: 1 - t1, epsabs=1e-12)
    assert evidence == pytest.approx(np.exp(log_multibeta(post) - log_multibeta(alpha)), rel=1e-5)
    for theta in rng.dirichlet(np.ones(3), size=5):
        want = stats.dirichlet(post).pdf(theta)
        assert unnormalised(theta[1], theta[0]) / evidence == pytest.approx(want, rel=1e-5)


def test_dirichlet_symmetric_prior_and_smoothing():
    counts = np.array([5, 0, 3, 0, 1])
    for a in (0.1, 0.5, 1.0, 3.0):
        post = mle.dirichlet_categorical_posterior(counts, a)
        np.testing.assert_allclose(post, counts + a)
        np.testing.assert_allclose(mle.dirichlet_mean(post), mle.categorical_mle(counts, alpha=a), rtol=1e-13)
        np.testing.assert_allclose(mle.dirichlet_categorical_predictive(post), mle.dirichlet_mean(post))


@pytest.mark.parametrize("alpha", [[2.0, 3.0, 4.0], [1.5, 1.5], [1.0, 2.5, 6.0, 1.2], [30.0, 1.1, 5.0]])
def test_dirichlet_mean_and_mode_match_scipy(alpha):
    alpha = np.array(alpha)
    np.testing.assert_allclose(mle.dirichlet_mean(alpha), stats.dirichlet(alpha).mean(), rtol=1e-12)
    # mode: maximise the log-density over the simplex, parametrised by a softmax
    # (alpha_j = 1 puts the mode on a face, where the softmax cannot reach; skip those)
    mode = mle.dirichlet_mode(alpha)
    assert mode.sum() == pytest.approx(1.0)
    if np.all(alpha > 1):
        def negative_log_density(z):
            return -stats.dirichlet(alpha).logpdf(softmax(np.r_[z, 0.0]))
        res = optimize.minimize(negative_log_density, np.zeros(alpha.size - 1), method="BFGS",
                                options={"gtol": 1e-10})
        np.testing.assert_allclose(mode, softmax(np.r_[res.x, 0.0]), atol=1e-6)
    else:
        # on a face: the free coordinates maximise the density restricted to that face
        # (its log-density there is sum_{alpha_j > 1} (alpha_j - 1) ln theta_j: maximise it numerically)
        free = alpha > 1
        np.testing.assert_allclose(mode[~free], 0.0)

        def negative_face_density(z):
            return -np.sum((alpha[free] - 1) * np.log(softmax(np.r_[z, 0.0])))
        res = optimize.minimize(negative_face_density, np.zeros(free.sum() - 1), method="BFGS",
                                options={"gtol": 1e-10})
        np.testing.assert_allclose(mode[free], softmax(np.r_[res.x, 0.0]), atol=1e-6)


def test_dirichlet_map_with_the_uniform_prior_is_the_mle():
    counts = np.array([7, 2, 0, 1])
    post = mle.dirichlet_categorical_posterior(counts, 1.0)
    np.testing.assert_allclose(mle.dirichlet_mode(post), mle.categorical_mle(counts))


def test_dirichlet_with_two_outcomes_is_beta():
    a, b = 3.5, 2.25
    np.testing.assert_allclose(mle.dirichlet_mean([a, b])[0], mle.beta_mean(a, b))
    np.testing.assert_allclose(mle.dirichlet_mode([a, b])[0], mle.beta_mode(a, b))


def test_dirichlet_predictive_is_the_monte_carlo_average(rng):
    post = np.array([3.0, 0.5, 2.0, 8.0])
    draws = stats.dirichlet(post).rvs(size=200_000, random_state=rng)
    se = draws.std(axis=0) / np.sqrt(len(draws))
    assert np.all(np.abs(draws.mean(axis=0) - mle.dirichlet_categorical_predictive(post)) < 5 * se)


@pytest.mark.parametrize(
    "call, error, match",
    [
        (lambda: mle.dirichlet_categorical_posterior([1, 2], [1.0, 2.0, 3.0]), ValueError, "must match"),
        (lambda: mle.dirichlet_categorical_posterior([1, -2], 1.0), ValueError, "non-negative"),
        (lambda: mle.dirichlet_categorical_posterior([1, 2], 0.0), ValueError, "> 0"),
        (lambda: mle.dirichlet_categorical_posterior([1, 2], [1.0, 0.0]), ValueError, "positive"),
        (lambda: mle.dirichlet_mean(True), TypeError, "boolean"),
        (lambda: mle.dirichlet_mode([0.5, 2.0]), ValueError, "unbounded"),
        (lambda: mle.dirichlet_mode([1.0, 1.0, 1.0]), ValueError, "uniform"),
    ],
)
def test_dirichlet_bad_inputs(call, error, match):
    with pytest.raises(error, match=match):
        call()


# ---------------------------------------------- the Gaussian prior and l2 --

def test_gaussian_log_prior_matches_scipy(rng):
    for d, lam in ((1, 0.3), (3, 2.0), (5, 10.0)):
        w = rng.normal(size=d)
        want = stats.multivariate_normal(np.zeros(d), np.eye(d) / lam).logpdf(w)
        assert mle.gaussian_log_prior(w, lam) == pytest.approx(want, rel=1e-12)
        # minus the penalty, up to a constant that does not depend on w
        const = mle.gaussian_log_prior(np.zeros(d), lam)
        assert mle.gaussian_log_prior(w, lam) - const == pytest.approx(-0.5 * lam * w @ w)


def test_penalised_logistic_regression_is_the_map_estimate(rng):
    n, d, lam = 80, 3, 2.5
    X = rng.normal(size=(n, d))
    y = (rng.random(n) < 1 / (1 + np.exp(-(X @ np.array([2.0, -1.0, 0.5]) + 0.3)))).astype(int)
    fit = LogisticRegression(l2=lam).fit(X, y)

    def negative_log_posterior(theta):   # flat prior on b, N(0, I / lam) on w
        w, b = theta[:d], theta[d]
        return -(logistic_log_likelihood(w, b, X, y) + mle.gaussian_log_prior(w, lam))

    res = optimize.minimize(negative_log_posterior, np.zeros(d + 1), method="BFGS", options={"gtol": 1e-9})
    np.testing.assert_allclose(fit.coef_[0], res.x[:d], atol=1e-5)
    np.testing.assert_allclose(fit.intercept_[0], res.x[d], atol=1e-5)


def test_gaussian_log_prior_bad_inputs():
    with pytest.raises(ValueError, match="> 0"):
        mle.gaussian_log_prior([1.0, 2.0], 0.0)
    with pytest.raises(TypeError, match="number"):
        mle.gaussian_log_prior([1.0, 2.0], "1")
    with pytest.raises(ValueError):
        mle.gaussian_log_prior([[1.0, 2.0]], 1.0)
