"""Tests for lib.mle: closed forms, maximisation, agreement with scipy, properties, validation."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from scipy import integrate, optimize, stats
from scipy.special import gammaln, softmax, xlogy

from lib import datasets, mle


@pytest.fixture
def rng():
    return np.random.default_rng(20260223)


def random_spd(rng, d):
    A = rng.normal(size=(d, d))
    return A @ A.T + 0.5 * np.eye(d)


# ------------------------------------------------------------ Bernoulli --

def test_bernoulli_mle_is_fraction_of_ones(rng):
    x = rng.integers(0, 2, size=37)
    assert mle.bernoulli_mle(x) == pytest.approx(x.sum() / 37)
    assert isinstance(mle.bernoulli_mle(x), float)
    assert mle.bernoulli_mle([True, False, True, True]) == 0.75
    assert mle.bernoulli_mle(np.zeros(5)) == 0.0 and mle.bernoulli_mle(np.ones(5)) == 1.0


def test_bernoulli_log_likelihood_matches_scipy(rng):
    x = rng.integers(0, 2, size=50)
    for theta in (0.1, 0.5, 0.77):
        want = stats.bernoulli(theta).logpmf(x).sum()
        assert mle.bernoulli_log_likelihood(x, theta) == pytest.approx(want, rel=1e-12)


def test_bernoulli_log_likelihood_vectorised_and_edges():
    x = np.array([1, 0, 1, 1])
    grid = np.linspace(0, 1, 11)
    ll = mle.bernoulli_log_likelihood(x, grid)
    assert ll.shape == (11,)
    assert ll[0] == -np.inf and ll[-1] == -np.inf
    assert mle.bernoulli_log_likelihood(np.zeros(3), 0.0) == 0.0  # 0 ln 0 = 0
    assert mle.bernoulli_log_likelihood(np.ones(3), 1.0) == 0.0


def test_bernoulli_mle_maximises_log_likelihood(rng):
    x = rng.integers(0, 2, size=40)
    theta_hat = mle.bernoulli_mle(x)
    best = mle.bernoulli_log_likelihood(x, theta_hat)
    for eps in (1e-3, 1e-2, 0.1):
        for t in (theta_hat - eps, theta_hat + eps):
            if 0 < t < 1:
                assert mle.bernoulli_log_likelihood(x, t) < best
    res = optimize.minimize_scalar(
        lambda t: -mle.bernoulli_log_likelihood(x, t), bounds=(1e-9, 1 - 1e-9), method="bounded",
        options={"xatol": 1e-10},
    )
    assert res.x == pytest.approx(theta_hat, abs=1e-6)


@pytest.mark.parametrize(
    "x, error, match",
    [
        ([0, 1, 2], ValueError, "0 and 1"),
        ([0.5, 1.0], ValueError, "0 and 1"),
        ([], ValueError, "at least 1"),
        ([[0, 1], [1, 0]], ValueError, "1-dimensional"),
        ("0101", TypeError, "string"),
        (None, TypeError, "None"),
        ([0, np.nan], ValueError, "NaN"),
    ],
)
def test_bernoulli_bad_inputs(x, error, match):
    with pytest.raises(error, match=match):
        mle.bernoulli_mle(x)


@pytest.mark.parametrize("theta, error", [(1.5, ValueError), (-0.1, ValueError), (np.nan, ValueError),
                                          ("half", TypeError), (True, TypeError)])
def test_bernoulli_log_likelihood_bad_theta(theta, error):
    with pytest.raises(error, match="theta"):
        mle.bernoulli_log_likelihood([0, 1], theta)


# ---------------------------------------------------------- categorical --

def test_categorical_mle_from_counts():
    counts = np.array([3, 0, 5, 2])
    assert np.allclose(mle.categorical_mle(counts), [0.3, 0.0, 0.5, 0.2])
    smoothed = mle.categorical_mle(counts, alpha=1.0)
    assert np.allclose(smoothed, (counts + 1) / (10 + 4))
    assert smoothed.sum() == pytest.approx(1.0)
    # alpha -> infinity: uniform; alpha = 0.5 (Jeffreys / add-one-half)
    assert np.allclose(mle.categorical_mle(counts, alpha=1e12), 0.25)
    assert np.allclose(mle.categorical_mle(counts, alpha=0.5), (counts + 0.5) / 12)


def test_categorical_mle_from_tokens_and_vocabulary():
    tokens = ["b", "a", "b", "c"]
    probs = mle.categorical_mle(tokens)
    assert list(probs) == ["a", "b", "c"]
    assert probs == pytest.approx({"a": 0.25, "b": 0.5, "c": 0.25})
    vocab = ["c", "b", "a", "z"]
    smooth = mle.categorical_mle(tokens, alpha=1, vocabulary=vocab)
    assert list(smooth) == vocab
    assert smooth == pytest.approx({"c": 2 / 8, "b": 3 / 8, "a": 2 / 8, "z": 1 / 8})
    # Without a vocabulary, smoothing cannot reach unseen words.
    assert "z" not in mle.categorical_mle(tokens, alpha=1)


def test_token_counts():
    vocab, counts = mle.token_counts(["x", "y", "x"])
    assert vocab == ["x", "y"] and counts.tolist() == [2, 1]
    vocab, counts = mle.token_counts(["x", "y", "x"], vocabulary=["y", "w", "x"])
    assert counts.tolist() == [1, 0, 2]
    with pytest.raises(ValueError, match="not in the vocabulary"):
        mle.token_counts(["x", "q"], vocabulary=["x"])


def test_categorical_tokens_and_counts_agree_on_text():
    tokens = datasets.tokenize(datasets.load_text())
    vocab, counts = mle.token_counts(tokens)
    by_tokens = mle.categorical_mle(tokens)
    by_counts = mle.categorical_mle(counts)
    assert np.allclose(list(by_tokens.values()), by_counts)
    ll_tokens = mle.categorical_log_likelihood(tokens, by_tokens)
    ll_counts = mle.categorical_log_likelihood(counts, by_counts)
    assert ll_tokens == pytest.approx(ll_counts, rel=1e-12)
    # Maximum log-likelihood = -N * (entropy of the empirical distribution).
    assert ll_counts == pytest.approx(-len(tokens) * mle.entropy(by_counts), rel=1e-12)


def test_categorical_log_likelihood_matches_scipy_multinomial(rng):
    counts = rng.integers(0, 6, size=7)
    probs = rng.dirichlet(np.ones(7))
    n = counts.sum()
    multinomial = stats.multinomial(n, probs).logpmf(counts)
    # The multinomial adds the log of the multinomial coefficient, which does not depend on theta.
    coefficient = gammaln(n + 1) - gammaln(counts + 1).sum()
    assert mle.categorical_log_likelihood(counts, probs) == pytest.approx(multinomial - coefficient, rel=1e-12)


def test_categorical_log_likelihood_zero_probability():
    assert mle.categorical_log_likelihood([2, 0], [1.0, 0.0]) == 0.0  # 0 ln 0 = 0
    assert mle.categorical_log_likelihood([2, 1], [1.0, 0.0]) == -np.inf
    probs = mle.categorical_mle(["a", "b"])
    assert mle.categorical_log_likelihood(["a", "unseen"], probs) == -np.inf


def test_categorical_mle_maximises_log_likelihood(rng):
    counts = rng.integers(0, 10, size=6).astype(float)
    counts[0] += 1
    theta_hat = mle.categorical_mle(counts)
    best = mle.categorical_log_likelihood(counts, theta_hat)
    for _ in range(200):
        other = rng.dirichlet(np.ones(6))
        assert mle.categorical_log_likelihood(counts, other) <= best
    # Unconstrained optimisation through a softmax parametrisation agrees.
    res = optimize.minimize(lambda z: -np.sum(counts * np.log(softmax(z))), np.zeros(6), method="BFGS",
                            options={"gtol": 1e-10})
    assert np.allclose(softmax(res.x), theta_hat, atol=1e-5)


@pytest.mark.parametrize(
    "args, kwargs, error, match",
    [
        (("some text",), {}, TypeError, "tokenize"),
        (([1, -2, 3],), {}, ValueError, "non-negative"),
        (([0, 0, 0],), {}, ValueError, "alpha > 0"),
        (([],), {}, ValueError, "empty"),
        (([1, 2],), {"alpha": -1}, ValueError, "alpha"),
        (([1, 2],), {"alpha": "1"}, TypeError, "alpha"),
        (([1, 2],), {"vocabulary": ["a", "b"]}, ValueError, "only used with tokens"),
        ((["a"],), {"vocabulary": "ab"}, TypeError, "list of words"),
        ((["a"],), {"vocabulary": ["a", "a"]}, ValueError, "more than once"),
        ((["a", "q"],), {"vocabulary": ["a"]}, ValueError, "not in the vocabulary"),
        (([[1, 2], [3, 4]],), {}, ValueError, "1-dimensional"),
    ],
)
def test_categorical_mle_bad_inputs(args, kwargs, error, match):
    with pytest.raises(error, match=match):
        mle.categorical_mle(*args, **kwargs)


def test_categorical_log_likelihood_bad_inputs():
    with pytest.raises(TypeError, match="dict"):
        mle.categorical_log_likelihood(["a"], [1.0])
    with pytest.raises(TypeError, match="array"):
        mle.categorical_log_likelihood([1, 2], {"a": 1.0})
    with pytest.raises(ValueError, match="sum to 1"):
        mle.categorical_log_likelihood([1, 2], [0.5, 0.6])
    with pytest.raises(ValueError, match="must match"):
        mle.categorical_log_likelihood([1, 2, 3], [0.5, 0.5])


# ------------------------------------------------------------- Gaussian --

def test_gaussian_mle_closed_forms(rng):
    X = rng.normal(size=(40, 3)) * [1.0, 2.0, 0.5] + [1.0, -2.0, 3.0]
    mean, cov = mle.gaussian_mle(X)
    assert np.allclose(mean, X.mean(axis=0))
    assert np.allclose(cov, np.cov(X.T, bias=True))  # divides by n
    assert not np.allclose(cov, np.cov(X.T))  # np.cov's default divides by n - 1
    _, diag = mle.gaussian_mle(X, "diag")
    assert np.allclose(diag, np.diag(cov)) and np.allclose(diag, X.var(axis=0))
    _, var = mle.gaussian_mle(X, "spherical")
    assert isinstance(var, float)
    assert var == pytest.approx(np.trace(cov) / 3)
    centred = X - X.mean(axis=0)
    assert var == pytest.approx(np.sum(centred**2) / (40 * 3))
    # The pitfall np.var(X) centres at the grand mean of all entries: a different, larger number.
    assert np.var(X) > var + 0.5


def test_gaussian_log_likelihood_matches_scipy(rng):
    X = rng.normal(size=(30, 2))
    mean = np.array([0.3, -0.2])
    cov = random_spd(rng, 2)
    want = stats.multivariate_normal(mean, cov).logpdf(X).sum()
    assert mle.gaussian_log_likelihood(X, mean, cov) == pytest.approx(want, rel=1e-12)
    assert mle.gaussian_log_likelihood(X, mean, np.array([1.5, 0.7])) == pytest.approx(
        stats.multivariate_normal(mean, np.diag([1.5, 0.7])).logpdf(X).sum(), rel=1e-12)
    assert mle.gaussian_log_likelihood(X, mean, 0.8) == pytest.approx(
        stats.multivariate_normal(mean, 0.8 * np.eye(2)).logpdf(X).sum(), rel=1e-12)


@pytest.mark.parametrize("covariance_type", ["full", "diag", "spherical"])
def test_gaussian_mle_perturbations_lower_likelihood(rng, covariance_type):
    X = rng.normal(size=(60, 3)) @ np.array([[1.0, 0.4, 0.0], [0.0, 1.0, 0.3], [0.0, 0.0, 0.7]])
    mean, cov = mle.gaussian_mle(X, covariance_type)
    best = mle.gaussian_log_likelihood(X, mean, cov)
    for _ in range(30):
        step = 0.05 * rng.normal(size=3)
        assert mle.gaussian_log_likelihood(X, mean + step, cov) < best
        if covariance_type == "full":
            B = 0.05 * rng.normal(size=(3, 3))
            other = cov + B @ B.T if rng.random() < 0.5 else cov - 0.3 * B @ B.T @ cov @ B @ B.T
        elif covariance_type == "diag":
            other = cov * np.exp(0.1 * rng.normal(size=3))
        else:
            other = cov * np.exp(0.1 * rng.normal())
        assert mle.gaussian_log_likelihood(X, mean, other) < best


def test_gaussian_spherical_mle_agrees_with_optimiser(rng):
    X = rng.normal(size=(25, 4)) * 1.7 + 0.5
    mean, var = mle.gaussian_mle(X, "spherical")

    def negative_ll(params):
        mu, log_var = params[:4], params[4]
        return -mle.gaussian_log_likelihood(X, mu, np.exp(log_var))

    res = optimize.minimize(negative_ll, np.zeros(5), method="BFGS", options={"gtol": 1e-9})
    assert np.allclose(res.x[:4], mean, atol=1e-4)
    assert np.exp(res.x[4]) == pytest.approx(var, rel=1e-4)


def test_gaussian_full_mle_agrees_with_optimiser(rng):
    X = rng.normal(size=(30, 2)) @ np.array([[1.0, 0.8], [0.0, 0.6]])
    mean, cov = mle.gaussian_mle(X)

    def negative_ll(params):
        L = np.array([[np.exp(params[2]), 0.0], [params[3], np.exp(params[4])]])
        return -mle.gaussian_log_likelihood(X, params[:2], L @ L.T)

    res = optimize.minimize(negative_ll, np.zeros(5), method="BFGS", options={"gtol": 1e-9})
    L = np.array([[np.exp(res.x[2]), 0.0], [res.x[3], np.exp(res.x[4])]])
    assert np.allclose(res.x[:2], mean, atol=1e-4)
    assert np.allclose(L @ L.T, cov, atol=1e-4)


def test_gaussian_mle_bias_of_covariance(rng):
    # E[Sigma_hat] = (n-1)/n Sigma: lib's estimate, averaged over many small samples, against the
    # closed form, within 5 standard errors (n Sigma_hat / sigma^2 ~ chi^2_{n-1}, variance 2(n-1))
    n, reps, sigma2 = 4, 20000, 4.0
    X = rng.normal(size=(reps, n, 1)) * np.sqrt(sigma2)
    var_hat = np.array([mle.gaussian_mle(sample)[1][0, 0] for sample in X])
    se = sigma2 * np.sqrt(2 * (n - 1)) / n / np.sqrt(reps)
    assert abs(var_hat.mean() - sigma2 * (n - 1) / n) < 5 * se
    assert abs(var_hat.mean() - sigma2) > 20 * se  # and far from the unbiased value: n - 1 would fail


def test_gaussian_mle_bad_inputs():
    with pytest.raises(ValueError, match="tied"):
        mle.gaussian_mle(np.zeros((3, 2)), "tied")
    with pytest.raises(ValueError, match="covariance_type"):
        mle.gaussian_mle(np.zeros((3, 2)), "round")
    with pytest.raises(ValueError, match="2-dimensional"):
        mle.gaussian_mle(np.zeros(3))
    with pytest.raises(TypeError):
        mle.gaussian_mle("data")
    with pytest.raises(ValueError, match="must match"):
        mle.gaussian_log_likelihood(np.zeros((3, 2)), np.zeros(3), np.eye(3))
    with pytest.raises(ValueError, match="positive definite"):
        mle.gaussian_log_likelihood(np.zeros((3, 2)), np.zeros(2), np.zeros((2, 2)))


# -------------------------------------------------- entropy and KL: discrete --

def test_entropy_matches_scipy(rng):
    p = rng.dirichlet(np.ones(8))
    assert mle.entropy(p) == pytest.approx(stats.entropy(p), rel=1e-12)
    assert mle.entropy(p, base=2) == pytest.approx(stats.entropy(p, base=2), rel=1e-12)
    assert mle.entropy([0.25] * 4) == pytest.approx(np.log(4))
    assert mle.entropy([1.0, 0.0, 0.0]) == 0.0  # 0 ln 0 = 0
    assert mle.entropy([0.5, 0.5], base=2) == pytest.approx(1.0)


def test_kl_matches_scipy_and_edge_cases(rng):
    p, q = rng.dirichlet(np.ones(5)), rng.dirichlet(np.ones(5))
    assert mle.kl_divergence(p, q) == pytest.approx(stats.entropy(p, q), rel=1e-12)
    assert mle.kl_divergence(p, q, base=2) == pytest.approx(stats.entropy(p, q, base=2), rel=1e-12)
    assert mle.kl_divergence(p, p) == 0.0
    assert mle.kl_divergence([0.5, 0.5], [1.0, 0.0]) == np.inf  # q misses an outcome of p
    assert mle.kl_divergence([1.0, 0.0], [0.5, 0.5]) == pytest.approx(np.log(2))  # 0 ln(0/q) = 0
    assert mle.kl_divergence(p, q) != pytest.approx(mle.kl_divergence(q, p))  # not symmetric


def test_expected_log_loss_decomposition(rng):
    # E_p[-ln q(X)] = KL(p || q) + H(p)   (eq. mle-risk-decomposition)
    p, q = rng.dirichlet(np.ones(6)), rng.dirichlet(np.ones(6))
    cross_entropy = -np.sum(p * np.log(q))
    assert cross_entropy == pytest.approx(mle.kl_divergence(p, q) + mle.entropy(p), rel=1e-12)


def probability_vectors(size):
    weights = arrays(np.float64, size, elements=st.floats(0.0, 10.0, allow_nan=False))
    return weights.filter(lambda w: w.sum() > 1e-3).map(lambda w: w / w.sum())


@settings(max_examples=150, deadline=None)
@given(st.integers(2, 6).flatmap(lambda k: st.tuples(probability_vectors(k), probability_vectors(k))))
def test_gibbs_inequality_property(pq):
    p, q = pq
    kl = mle.kl_divergence(p, q)
    assert kl >= 0.0
    assert mle.kl_divergence(p, p) == 0.0
    if np.max(np.abs(p - q)) > 1e-3:
        assert kl > 0.0
    # Cross-entropy >= entropy (Gibbs), with the 0 ln 0 = 0 convention.
    cross = -np.sum(xlogy(p, q))  # +inf when q = 0 < p
    assert cross >= mle.entropy(p) - 1e-12


@settings(max_examples=100, deadline=None)
@given(st.integers(1, 8).flatmap(probability_vectors))
def test_entropy_bounds_property(p):
    h = mle.entropy(p)
    assert -1e-12 <= h <= np.log(p.shape[0]) + 1e-12


def test_discrete_bad_inputs():
    with pytest.raises(ValueError, match="sum to 1"):
        mle.entropy([0.5, 0.6])
    with pytest.raises(ValueError, match="non-negative"):
        mle.kl_divergence([1.5, -0.5], [0.5, 0.5])
    with pytest.raises(ValueError, match="same outcomes"):
        mle.kl_divergence([0.5, 0.5], [0.2, 0.3, 0.5])
    with pytest.raises(ValueError, match="other than 1"):
        mle.entropy([0.5, 0.5], base=1)
    with pytest.raises(TypeError):
        mle.entropy("0.5")


# -------------------------------------------------- entropy and KL: Gaussian --

def test_gaussian_entropy_matches_scipy(rng):
    cov = random_spd(rng, 3)
    assert mle.gaussian_entropy(cov) == pytest.approx(stats.multivariate_normal(np.zeros(3), cov).entropy(), rel=1e-12)
    assert mle.gaussian_entropy(np.array([0.5, 2.0])) == pytest.approx(
        stats.multivariate_normal(np.zeros(2), np.diag([0.5, 2.0])).entropy(), rel=1e-12)
    assert mle.gaussian_entropy(0.3) == pytest.approx(stats.norm(scale=np.sqrt(0.3)).entropy(), rel=1e-12)
    assert mle.gaussian_entropy(0.01) < 0  # differential entropy can be negative


def test_gaussian_kl_one_dimension_against_scipy_quadrature():
    m0, v0, m1, v1 = 1.0, 1.0, 0.0, 4.0
    p0, p1 = stats.norm(m0, np.sqrt(v0)), stats.norm(m1, np.sqrt(v1))
    integrand = lambda x: p0.pdf(x) * (p0.logpdf(x) - p1.logpdf(x))  # noqa: E731
    want, _ = integrate.quad(integrand, -30, 30, epsabs=1e-13)
    assert mle.gaussian_kl([m0], v0, [m1], v1) == pytest.approx(want, rel=1e-9)
    # The closed form ln(s1/s0) + (s0^2 + (m0 - m1)^2) / (2 s1^2) - 1/2.
    assert mle.gaussian_kl([m0], v0, [m1], v1) == pytest.approx(np.log(2) + 2 / 8 - 0.5)


def test_gaussian_kl_against_monte_carlo(rng):
    d = 3
    m0, m1 = rng.normal(size=d), rng.normal(size=d)
    c0, c1 = random_spd(rng, d), random_spd(rng, d)
    x = rng.multivariate_normal(m0, c0, size=200_000)
    log_ratio = stats.multivariate_normal(m0, c0).logpdf(x) - stats.multivariate_normal(m1, c1).logpdf(x)
    estimate, se = log_ratio.mean(), log_ratio.std() / np.sqrt(x.shape[0])
    assert abs(mle.gaussian_kl(m0, c0, m1, c1) - estimate) < 4 * se


def test_gaussian_kl_equals_cross_entropy_minus_entropy(rng):
    d = 2
    m0, m1 = rng.normal(size=d), rng.normal(size=d)
    c0, c1 = random_spd(rng, d), random_spd(rng, d)
    # E_0[-ln N1(x)] in closed form, with scipy's entropy for H(N0).
    diff = m1 - m0
    cross = 0.5 * (d * np.log(2 * np.pi) + np.linalg.slogdet(c1)[1]
                   + np.trace(np.linalg.solve(c1, c0)) + diff @ np.linalg.solve(c1, diff))
    h0 = stats.multivariate_normal(m0, c0).entropy()
    assert mle.gaussian_kl(m0, c0, m1, c1) == pytest.approx(cross - h0, rel=1e-10)


def test_gaussian_kl_layouts_and_invariance(rng):
    m0, m1 = np.array([0.0, 1.0]), np.array([1.0, -1.0])
    assert mle.gaussian_kl(m0, 2.0, m1, 0.5) == pytest.approx(
        mle.gaussian_kl(m0, 2.0 * np.eye(2), m1, 0.5 * np.eye(2)))
    assert mle.gaussian_kl(m0, [2.0, 1.0], m1, [0.5, 3.0]) == pytest.approx(
        mle.gaussian_kl(m0, np.diag([2.0, 1.0]), m1, np.diag([0.5, 3.0])))
    assert mle.gaussian_kl(m0, np.eye(2), m0, np.eye(2)) == 0.0
    # KL is invariant under an invertible affine map x -> A x + b.
    c0, c1 = random_spd(rng, 2), random_spd(rng, 2)
    A, b = rng.normal(size=(2, 2)) + 2 * np.eye(2), rng.normal(size=2)
    assert mle.gaussian_kl(A @ m0 + b, A @ c0 @ A.T, A @ m1 + b, A @ c1 @ A.T) == pytest.approx(
        mle.gaussian_kl(m0, c0, m1, c1), rel=1e-9)


@settings(max_examples=60, deadline=None)
@given(
    arrays(np.float64, (2,), elements=st.floats(-5, 5)),
    arrays(np.float64, (2,), elements=st.floats(-5, 5)),
    arrays(np.float64, (2, 2), elements=st.floats(-2, 2)),
    arrays(np.float64, (2, 2), elements=st.floats(-2, 2)),
)
def test_gaussian_kl_nonnegative_property(m0, m1, a0, a1):
    c0, c1 = a0 @ a0.T + 0.1 * np.eye(2), a1 @ a1.T + 0.1 * np.eye(2)
    kl = mle.gaussian_kl(m0, c0, m1, c1)
    assert kl >= 0.0
    assert mle.gaussian_kl(m0, c0, m0, c0) == pytest.approx(0.0, abs=1e-9)
    if np.linalg.norm(m0 - m1) > 1e-2:
        assert kl > 0.0


def test_gaussian_kl_bad_inputs():
    with pytest.raises(ValueError, match="same dimension"):
        mle.gaussian_kl([0.0], 1.0, [0.0, 0.0], 1.0)
    with pytest.raises(ValueError, match="positive definite"):
        mle.gaussian_kl([0.0, 0.0], [[1.0, 1.0], [1.0, 1.0]], [0.0, 0.0], np.eye(2))
    with pytest.raises(ValueError, match="symmetric"):
        mle.gaussian_kl([0.0, 0.0], [[1.0, 0.5], [0.0, 1.0]], [0.0, 0.0], np.eye(2))
    with pytest.raises(ValueError, match="shape"):
        mle.gaussian_kl([0.0, 0.0], np.eye(3), [0.0, 0.0], np.eye(2))
    with pytest.raises(ValueError, match="positive definite"):
        mle.gaussian_entropy(-1.0)
