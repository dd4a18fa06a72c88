"""Tests for lib.mixture: EM for Gaussian mixtures.

What is checked, and against what:

* the E-step, M-step and log-likelihood against scikit-learn's GaussianMixture,
  iteration by iteration, from identical initial parameters;
* the fast log-densities against lib.gaussian.log_prob and scipy.stats;
* EM's mathematical properties (hypothesis): the log-likelihood never drops,
  responsibilities are distributions, the lower bound touches the
  log-likelihood after an E-step and lies below it otherwise, the M-step
  maximises F and equals the direct formulas;
* the four-point worked example of chapter 4, bad inputs, warnings, sampling,
  BIC/AIC, and scikit-learn's estimator checks.
"""

import warnings

import numpy as np
import pytest
import scipy.special
import scipy.stats
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from numpy.testing import assert_allclose
from sklearn.cluster import KMeans
from sklearn.exceptions import NotFittedError
from sklearn.mixture import GaussianMixture as SklearnGaussianMixture
from sklearn.utils.estimator_checks import parametrize_with_checks
from threadpoolctl import threadpool_info, threadpool_limits

import lib._fastpath as _fastpath
from lib._validation import COVARIANCE_TYPES, ConvergenceWarning
from lib.gaussian import full_covariances, log_prob
from lib.mixture import (
    GaussianMixture,
    e_step,
    estimate_log_prob,
    expected_complete_log_likelihood,
    log_likelihood,
    lower_bound,
    m_step,
    sample,
)

HYPOTHESIS = settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)


# ---------------------------------------------------------------- helpers


def blobs(rng, n_samples, n_features, n_components, separation=4.0, offset=0.0):
    """Points from n_components well-separated Gaussian blobs (anisotropic)."""
    centres = separation * rng.normal(size=(n_components, n_features))
    labels = rng.integers(n_components, size=n_samples)
    scales = rng.uniform(0.5, 1.5, size=(n_components, n_features))
    X = centres[labels] + scales[labels] * rng.normal(size=(n_samples, n_features))
    mixing = np.eye(n_features) + 0.3 * rng.normal(size=(n_features, n_features))
    return X @ mixing + offset


def random_parameters(rng, X, n_components, covariance_type, reg_covar=1e-6):
    """Plausible parameters: one M-step from random (Dirichlet) responsibilities."""
    resp = rng.dirichlet(np.ones(n_components), size=X.shape[0])
    return m_step(X, resp, covariance_type, reg_covar)


def _by_hand_full(cov, covariance_type, n_components, n_features):
    """(K, d, d) covariance matrices from any layout, written out here (not lib's conversion)."""
    if covariance_type == "full":
        return np.asarray(cov)
    if covariance_type == "tied":
        return np.stack([cov] * n_components)
    if covariance_type == "diag":
        return np.stack([np.diag(c) for c in cov])
    return np.stack([c * np.eye(n_features) for c in cov])


def sklearn_precisions(covariances, covariance_type):
    if covariance_type in ("full", "tied"):
        return np.linalg.inv(covariances)  # test-only reference conversion
    return 1.0 / covariances


def run_sklearn(X, params, covariance_type, max_iter, tol=0.0, reg_covar=1e-6):
    weights, means, covariances = params
    sk = SklearnGaussianMixture(
        n_components=len(weights),
        covariance_type=covariance_type,
        weights_init=weights,
        means_init=means,
        precisions_init=sklearn_precisions(covariances, covariance_type),
        init_params="random_from_data",  # discarded: all three *_init are given
        max_iter=max_iter,
        tol=tol,
        reg_covar=reg_covar,
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        return sk.fit(X)


def run_lib(X, params, covariance_type, max_iter, tol=0.0, reg_covar=1e-6):
    weights, means, covariances = params
    gm = GaussianMixture(
        n_components=len(weights),
        covariance_type=covariance_type,
        init_params="given",
        weights_init=weights,
        means_init=means,
        covariances_init=covariances,
        max_iter=max_iter,
        tol=tol,
        reg_covar=reg_covar,
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        return gm.fit(X)


def direct_m_step(X, resp, covariance_type, reg_covar):
    """The M-step written term by term, straight from the formulas."""
    n, d = X.shape
    n_k = resp.sum(axis=0)
    weights = n_k / n
    means = np.einsum("ik,ia->ka", resp, X) / n_k[:, None]
    scatter = np.stack(
        [np.einsum("i,ia,ib->ab", resp[:, k], X - means[k], X - means[k]) for k in range(len(n_k))]
    )  # (K, d, d): sum_i gamma_ik (x_i - mu_k)(x_i - mu_k)^T
    if covariance_type == "full":
        cov = scatter / n_k[:, None, None] + reg_covar * np.eye(d)
    elif covariance_type == "tied":
        cov = scatter.sum(axis=0) / n + reg_covar * np.eye(d)
    elif covariance_type == "diag":
        cov = np.diagonal(scatter, axis1=1, axis2=2) / n_k[:, None] + reg_covar
    else:
        cov = np.trace(scatter, axis1=1, axis2=2) / (d * n_k) + reg_covar
    return weights, means, cov


problems = st.fixed_dictionaries(
    {
        "seed": st.integers(0, 2**32 - 1),
        "n_features": st.integers(1, 4),
        "n_components": st.integers(1, 3),
        "n_samples": st.integers(30, 80),
        "covariance_type": st.sampled_from(COVARIANCE_TYPES),
    }
)


def make_problem(p):
    rng = np.random.default_rng(p["seed"])
    X = blobs(rng, p["n_samples"], p["n_features"], p["n_components"], separation=2.0)
    return rng, X


# ---------------------------------------------------------------- agreement with scikit-learn


@pytest.mark.parametrize("covariance_type", COVARIANCE_TYPES)
@pytest.mark.parametrize("n_features", [3, 23])  # 23 > 20: the Cholesky route for 'full'
def test_trajectory_matches_sklearn(covariance_type, n_features):
    rng = np.random.default_rng(0)
    X = blobs(rng, 400, n_features, 3, offset=5.0)
    params = random_parameters(rng, X, 3, covariance_type)
    T = 12
    ours = run_lib(X, params, covariance_type, max_iter=T)
    sk = run_sklearn(X, params, covariance_type, max_iter=T)

    # sklearn's lower_bounds_[t] is the mean log-likelihood at the parameters after t
    # iterations (computed by the E-step of iteration t + 1): our history[t] / n.
    history = ours.log_likelihood_history_ / X.shape[0]
    assert len(history) == T + 1
    assert_allclose(history[:T], sk.lower_bounds_, rtol=1e-9)
    assert ours.lower_bound_ == pytest.approx(sk.lower_bound_, rel=1e-9)
    assert ours.n_iter_ == sk.n_iter_ == T
    assert_allclose(ours.weights_, sk.weights_, rtol=1e-8, atol=1e-12)
    assert_allclose(ours.means_, sk.means_, rtol=1e-8, atol=1e-10)
    # entries near zero carry rounding on the scale of the largest entry (sklearn's too:
    # here lib is the closer of the two to the book's reference e_step/m_step)
    scale = np.abs(sk.covariances_).max()
    assert_allclose(ours.covariances_, sk.covariances_, rtol=1e-8, atol=1e-10 * scale)
    # and the final log-likelihood is the one sklearn's model assigns
    assert history[-1] == pytest.approx(sk.score(X), rel=1e-9)


@pytest.fixture(scope="module")
def cholesky_route_problem():
    """d = 23 > 20 (the Cholesky route), 700 rows in blocks of 64 (several blocks, a short last one)."""
    rng = np.random.default_rng(3)
    X = blobs(rng, 700, 23, 3, offset=5.0)
    return X, random_parameters(rng, X, 3, "full")


@pytest.mark.parametrize("kernel", ["syrk", "pieces"])
def test_second_moment_kernels_agree(kernel, cholesky_route_problem, monkeypatch):
    """Both candidates of _fastpath.second_moment_kernel (issue 41) give the fit of the readable
    e_step/m_step: the choice, made by timing, moves no digit that matters."""
    X, params = cholesky_route_problem
    monkeypatch.setattr(_fastpath, "CHOLESKY_BLOCK_BYTES", 8 * 64 * 3 * 23)  # 64-row blocks
    monkeypatch.setattr(_fastpath, "second_moment_kernel", lambda *shape: kernel)
    ours = run_lib(X, params, "full", max_iter=4)
    ref = params
    for _ in range(4):
        resp, _ = e_step(X, *ref, "full")
        ref = m_step(X, resp, "full", reg_covar=1e-6)
    assert_allclose(ours.means_, ref[1], rtol=1e-11, atol=1e-11)
    assert_allclose(ours.covariances_, ref[2], rtol=1e-11, atol=1e-11 * np.abs(ref[2]).max())


@pytest.mark.parametrize("n_features", [21, 23, 30, 50])
def test_moment_kernels_compute_the_soft_sums(n_features):
    """Both M-step kernels of the Cholesky route add sum_i gamma_ik [1, x_i] and the upper
    triangle of sum_i gamma_ik x_i x_i^T to the accumulators (pieces of 10 columns: d = 21
    leaves a piece of one column, 23 of three)."""
    rng = np.random.default_rng(n_features)
    K, m = 4, 300
    phiT = np.vstack([np.ones(m), rng.normal(size=(n_features, m))])  # [1, x]^T
    R = rng.dirichlet(np.ones(K), size=m).T  # (K, m)
    products = np.einsum("km,am->ka", R, phiT)  # (K, 1 + d)
    second = np.einsum("km,am,bm->abk", R, phiT[1:], phiT[1:])  # (d, d, K)
    upper = np.triu_indices(n_features)
    for kernel in (_fastpath._moments_pieces, _fastpath._moments_syrk):
        acc = [np.ones((K, 1 + n_features)), np.ones((n_features, n_features, K), order="F")]
        kernel(phiT, R, acc)
        # rounding on the scale of the largest sum (entries near zero are sums of both signs)
        assert_allclose(acc[0], 1.0 + products, rtol=1e-13, atol=1e-13 * np.abs(products).max())
        assert_allclose(acc[1][upper], 1.0 + second[upper], rtol=1e-13, atol=1e-13 * np.abs(second).max())


@pytest.mark.parametrize("covariance_type", COVARIANCE_TYPES)
@pytest.mark.parametrize(("n_features", "n_components"), [(32, 16), (64, 8), (50, 10), (10, 10), (2, 3)])
def test_row_blocks_cover_the_rows_and_avoid_4_kib_strides(covariance_type, n_features, n_components):
    """Blocks tile the rows in order, and no block is a multiple of 512 rows long (a row of
    4 KiB multiples maps every row of a buffer onto the same cache sets: issue 41)."""
    n = 20_000
    blocks = _fastpath.row_blocks(n, n_features, n_components, covariance_type)
    assert blocks[0].start == 0 and blocks[-1].stop == n
    assert all(a.stop == b.start for a, b in zip(blocks, blocks[1:]))
    assert (blocks[0].stop - blocks[0].start) % 512 != 0


def test_squared_distances_match_the_whitened_differences():
    """The E-step's pieces give ||L_k^{-1}(x_i - mu_k)||^2 of every row and component."""
    rng = np.random.default_rng(5)
    d, K, m = 27, 3, 200
    X = rng.normal(size=(m, d))
    means = rng.normal(size=(K, d))
    A = rng.normal(size=(K, d, d))
    covariances = A @ np.swapaxes(A, 1, 2) + d * np.eye(d)
    natural = _fastpath.natural_parameters(np.full(K, 1.0 / K), means, covariances, "full")
    phiT = np.vstack([np.ones(m), X.T])
    got = _fastpath.squared_distances(phiT, _fastpath.triangular_pieces(natural.extra, K), K)
    L = np.linalg.cholesky(covariances)
    Y = np.stack([np.linalg.solve(L[k], (X - means[k]).T) for k in range(K)])  # (K, d, m)
    assert_allclose(got, np.sum(Y**2, axis=1), rtol=1e-11)


def test_second_moment_kernel_is_measured_once():
    _fastpath.second_moment_kernel.cache_clear()
    first = _fastpath.second_moment_kernel(23, 256, 3)
    assert first in ("syrk", "pieces")
    assert _fastpath.second_moment_kernel(23, 256, 3) == first
    assert _fastpath.second_moment_kernel.cache_info().misses == 1


@pytest.mark.parametrize("covariance_type", COVARIANCE_TYPES)
def test_stopping_rule_matches_sklearn(covariance_type):
    rng = np.random.default_rng(1)
    X = blobs(rng, 300, 2, 3)
    params = random_parameters(rng, X, 3, covariance_type)
    ours = run_lib(X, params, covariance_type, max_iter=500, tol=1e-4)
    sk = run_sklearn(X, params, covariance_type, max_iter=500, tol=1e-4)
    assert ours.converged_ and sk.converged_
    assert ours.n_iter_ == sk.n_iter_
    assert ours.lower_bound_ == pytest.approx(sk.lower_bound_, rel=1e-9)
    assert_allclose(ours.means_, sk.means_, rtol=1e-7, atol=1e-9)


@pytest.mark.parametrize("covariance_type", COVARIANCE_TYPES)
def test_bic_aic_match_sklearn(covariance_type):
    rng = np.random.default_rng(2)
    X = blobs(rng, 200, 3, 2)
    params = random_parameters(rng, X, 2, covariance_type)
    # same start, same iterations: the fitted parameters agree to ~1e-12
    gm = run_lib(X, params, covariance_type, max_iter=20)
    sk = run_sklearn(X, params, covariance_type, max_iter=20)
    assert gm._n_parameters() == sk._n_parameters()
    assert gm.bic(X) == pytest.approx(sk.bic(X), rel=1e-9)
    assert gm.aic(X) == pytest.approx(sk.aic(X), rel=1e-9)
    assert gm.score(X) == pytest.approx(sk.score(X), rel=1e-9)


# ---------------------------------------------------------------- log-densities


@pytest.mark.parametrize("covariance_type", COVARIANCE_TYPES)
@pytest.mark.parametrize("n_features", [1, 4, 24])
@pytest.mark.parametrize("offset", [0.0, 1e3])
def test_estimate_log_prob_matches_references(covariance_type, n_features, offset):
    rng = np.random.default_rng(3)
    X = blobs(rng, 150, n_features, 3, offset=offset)
    _, means, cov = random_parameters(rng, X, 3, covariance_type)
    means = means + rng.normal(size=means.shape)  # not at the data's centre
    fast = estimate_log_prob(X, means, cov, covariance_type)
    reference = log_prob(X, means, cov, covariance_type)
    assert fast.shape == (150, 3)
    assert_allclose(fast, reference, rtol=1e-10)
    full = full_covariances(cov, covariance_type, 3, n_features)
    for k in range(3):
        scipy_ref = scipy.stats.multivariate_normal(means[k], full[k]).logpdf(X)
        assert_allclose(fast[:, k], scipy_ref, rtol=1e-9)


def test_estimate_log_prob_single_point_far_away():
    # one sample: the centring shift is the point itself, so no cancellation at all
    means = np.array([[0.0, 0.0], [1e4, -1e4]])
    cov = np.array([[[1.0, 0.2], [0.2, 2.0]], [[0.5, 0.0], [0.0, 0.5]]])
    x = np.array([[1e4 + 1.0, -1e4 - 0.5]])
    assert_allclose(estimate_log_prob(x, means, cov), log_prob(x, means, cov), rtol=1e-12)


@pytest.mark.parametrize("covariance_type", COVARIANCE_TYPES)
@pytest.mark.parametrize("n_features", [3, 23])
def test_fast_m_step_equals_m_step(covariance_type, n_features):
    rng = np.random.default_rng(4)
    X = blobs(rng, 200, n_features, 3, offset=-7.0)
    resp = rng.dirichlet(np.ones(3), size=200)
    fast = _fastpath.SufficientStatistics(X, covariance_type, 3)
    stats, centres = fast.statistics(resp)
    weights, means, cov = _fastpath.m_step(stats, centres, 200, covariance_type, 1e-6)
    expected = m_step(X, resp, covariance_type, 1e-6)
    assert_allclose(weights, expected[0], rtol=1e-12)
    assert_allclose(means, expected[1], rtol=1e-10, atol=1e-12)
    assert_allclose(cov, expected[2], rtol=1e-9, atol=1e-12)
    # one EM step by the fast route and by the exact route, against e_step + m_step
    theta = expected
    assert not fast.hard(theta).any()
    want = m_step(X, e_step(X, *theta, covariance_type)[0], covariance_type, 1e-6)
    mixed = np.array([False, True, False])  # one component by the exact route, two by the fast one
    for stats in (fast.e_step(theta), fast._exact_pass(theta), fast.e_step(theta, mixed)):
        got = _fastpath.m_step(stats, theta[1], 200, covariance_type, 1e-6)
        for g, w in zip(got, want, strict=True):
            assert_allclose(g, w, rtol=1e-9, atol=1e-12)
        assert stats.log_likelihood == pytest.approx(log_likelihood(X, *theta, covariance_type), rel=1e-12)


@pytest.mark.parametrize("covariance_type, n_features", [("tied", 3), ("spherical", 3), ("full", 23)])
def test_narrow_features_hold_the_only_copy_of_the_data(covariance_type, n_features):
    """For phi = [1, x] or [1, x, ||x||^2], the centred data are a view of phi: memory O(n d), one copy."""
    X = blobs(np.random.default_rng(6), 500, n_features, 3)
    fast = _fastpath.SufficientStatistics(X, covariance_type, 3)
    assert all(np.shares_memory(fast.Xc, phi) for phi in fast.phi)
    assert_allclose(fast.Xc, X - X.mean(axis=0), rtol=0, atol=1e-12)


@pytest.mark.parametrize("covariance_type", COVARIANCE_TYPES)
@pytest.mark.parametrize("n_features", [3, 23])
def test_block_size_does_not_change_the_fit(monkeypatch, covariance_type, n_features):
    """Small blocks, with features kept or rebuilt block by block, give the same fit as one block."""
    rng = np.random.default_rng(5)
    X = blobs(rng, 3000, n_features, 3)
    params = random_parameters(rng, X, 3, covariance_type)
    monkeypatch.setattr(_fastpath, "BLOCK_BYTES", 1 << 30)  # one block
    whole = run_lib(X, params, covariance_type, max_iter=5)
    monkeypatch.setattr(_fastpath, "BLOCK_BYTES", 1)  # blocks of 64 rows
    blocked = run_lib(X, params, covariance_type, max_iter=5)
    monkeypatch.setattr(_fastpath, "KEEP_FEATURES_BYTES", 0)  # wide features rebuilt per block
    rebuilt = run_lib(X, params, covariance_type, max_iter=5)
    assert rebuilt.log_likelihood_history_ == pytest.approx(whole.log_likelihood_history_, rel=1e-12)
    assert blocked.log_likelihood_history_ == pytest.approx(whole.log_likelihood_history_, rel=1e-12)
    # Blocks change the order of summation: entries near zero carry rounding errors on the
    # scale of the largest entries they are computed from, so the absolute tolerance scales too.
    scale = np.abs(whole.covariances_).max()
    assert_allclose(blocked.covariances_, whole.covariances_, rtol=1e-10, atol=1e-12 * scale)
    assert np.array_equal(blocked.predict(X), whole.predict(X))


# ---------------------------------------------------------------- EM's properties (hypothesis)


def _worst_condition(covariances, covariance_type):
    """The largest ratio of a component covariance's largest to smallest eigenvalue."""
    if covariance_type == "spherical":
        return 1.0
    if covariance_type == "diag":
        return float(np.max(covariances.max(axis=1) / covariances.min(axis=1)))
    eig = np.linalg.eigvalsh(covariances if covariance_type == "full" else covariances[None])  # (K, d)
    return float(np.max(eig[:, -1] / eig[:, 0]))


@HYPOTHESIS
@given(problems)
def test_em_never_lowers_the_log_likelihood(p):
    rng, X = make_problem(p)
    K, ct = p["n_components"], p["covariance_type"]
    params = random_parameters(rng, X, K, ct, reg_covar=1e-10)
    gm = run_lib(X, params, ct, max_iter=15, reg_covar=1e-10)
    # A component collapsing onto a few points (condition number ~1e10, reachable with reg_covar =
    # 1e-10 and 30 points) computes ell only to about cond * eps * |ell|: a rise smaller than that
    # says nothing about monotonicity (seed 618505509 fell by 3e-7 at |ell| = 112 that way).
    assume(_worst_condition(gm.covariances_, ct) < 1e8)
    history = gm.log_likelihood_history_
    assert np.all(np.diff(history) >= -1e-9 * np.abs(history[1:]))
    # the same with the readable pure functions
    ll = [log_likelihood(X, *params, ct)]
    for _ in range(3):
        resp, _ = e_step(X, *params, ct)
        params = m_step(X, resp, ct, reg_covar=1e-10)
        ll.append(log_likelihood(X, *params, ct))
    assert np.all(np.diff(ll) >= -1e-9 * np.abs(ll[1:]))
    assert_allclose(ll, history[:4], rtol=1e-9)


@HYPOTHESIS
@given(problems)
def test_responsibilities_are_distributions(p):
    rng, X = make_problem(p)
    params = random_parameters(rng, X, p["n_components"], p["covariance_type"])
    resp, log_norm = e_step(X, *params, p["covariance_type"])
    assert resp.shape == (X.shape[0], p["n_components"])
    assert np.all(resp >= 0)
    assert_allclose(resp.sum(axis=1), 1.0, rtol=1e-12)
    assert log_norm.sum() == pytest.approx(log_likelihood(X, *params, p["covariance_type"]))


@HYPOTHESIS
@given(problems)
def test_lower_bound_touches_the_log_likelihood_after_the_e_step(p):
    rng, X = make_problem(p)
    ct = p["covariance_type"]
    params = random_parameters(rng, X, p["n_components"], ct)
    ll = log_likelihood(X, *params, ct)
    resp, _ = e_step(X, *params, ct)
    assert lower_bound(X, resp, *params, ct) == pytest.approx(ll, rel=1e-10)
    # any Q: the bound is ell - sum_i KL(Q_i || posterior_i), both sides from scipy's densities
    weights, means, cov = params
    full = _by_hand_full(cov, ct, len(weights), X.shape[1])
    log_joint = np.column_stack([np.log(weights[k]) + scipy.stats.multivariate_normal(means[k], full[k]).logpdf(X)
                                 for k in range(len(weights))])
    log_post = log_joint - scipy.special.logsumexp(log_joint, axis=1, keepdims=True)
    for Q in (
        rng.dirichlet(np.ones(p["n_components"]), size=X.shape[0]),
        np.eye(p["n_components"])[rng.integers(p["n_components"], size=X.shape[0])],  # hard Q
    ):
        kl = np.sum(scipy.special.rel_entr(Q, np.exp(log_post)))
        assert lower_bound(X, Q, *params, ct) == pytest.approx(ll - kl, rel=1e-9, abs=1e-9)
        assert lower_bound(X, Q, *params, ct) <= ll + 1e-10 * abs(ll)


def _perturbations(rng, params, covariance_type, scale):
    weights, means, cov = params
    K = len(weights)
    v = rng.normal(size=K)
    v -= v.mean()  # stays on the simplex
    yield weights + scale * v * weights.min(), means, cov
    yield weights, means + scale * rng.normal(size=means.shape), cov
    if covariance_type in ("full", "tied"):
        S = rng.normal(size=cov.shape)
        S = S + np.swapaxes(S, -1, -2)
        # relative to the covariance so it stays positive definite
        yield weights, means, cov + scale * 0.1 * np.min(np.linalg.eigvalsh(cov)) * S / np.abs(S).max()
    else:
        yield weights, means, cov * np.exp(scale * rng.normal(size=cov.shape))


@HYPOTHESIS
@given(problems, st.sampled_from([1e-2, 1e-4]))
def test_m_step_maximises_F(p, scale):
    rng, X = make_problem(p)
    ct = p["covariance_type"]
    resp = rng.dirichlet(np.ones(p["n_components"]), size=X.shape[0])
    best = m_step(X, resp, ct, reg_covar=1e-12)
    F_best = expected_complete_log_likelihood(X, resp, *best, ct)
    for other in _perturbations(rng, best, ct, scale):
        F_other = expected_complete_log_likelihood(X, resp, *other, ct)
        assert F_other <= F_best + 1e-10 * abs(F_best)


@HYPOTHESIS
@given(problems, st.sampled_from([1e-6, 0.1]))
def test_m_step_closed_forms(p, reg_covar):
    rng, X = make_problem(p)
    ct = p["covariance_type"]
    resp = rng.dirichlet(np.ones(p["n_components"]), size=X.shape[0])
    pairs = zip(m_step(X, resp, ct, reg_covar), direct_m_step(X, resp, ct, reg_covar), strict=True)
    for got, want in pairs:
        assert_allclose(got, want, rtol=1e-10, atol=1e-12)
    fast = _fastpath.SufficientStatistics(X, ct, p["n_components"])
    stats, centres = fast.statistics(resp)
    weights, means, cov = _fastpath.m_step(stats, centres, X.shape[0], ct, reg_covar)
    want = direct_m_step(X, resp, ct, reg_covar)
    assert_allclose(weights, want[0], rtol=1e-10)
    assert_allclose(means, want[1], rtol=1e-9, atol=1e-10)
    assert_allclose(cov, want[2], rtol=1e-9, atol=1e-10)


# ---------------------------------------------------------------- structured data (hypothesis)


@st.composite
def structured_problems(draw):
    """Data and parameters with the structure where EM code breaks: d = 1, n = K, duplicated rows,
    huge offsets, zero weights. Hypothesis draws the values themselves, so it can shrink a failure."""
    d = draw(st.integers(1, 3))
    K = draw(st.integers(1, 3))
    n = draw(st.integers(K, K + 10))
    distinct = draw(st.integers(1, n))
    coordinate = st.floats(-10, 10, allow_nan=False, allow_infinity=False)
    base = np.array(draw(st.lists(st.lists(coordinate, min_size=d, max_size=d), min_size=distinct,
                                  max_size=distinct)))
    rows = draw(st.lists(st.integers(0, distinct - 1), min_size=n, max_size=n))
    offset = draw(st.sampled_from([0.0, 1e3, 1e7]))
    X = base[rows] + offset
    raw = np.array(draw(st.lists(st.sampled_from([0.0, 0.2, 1.0, 3.0]), min_size=K, max_size=K)))
    raw[0] = raw[0] or 1.0  # at least one positive weight
    weights = raw / raw.sum()
    means = X[draw(st.lists(st.integers(0, n - 1), min_size=K, max_size=K))] + np.array(
        draw(st.lists(st.sampled_from([-1.0, 0.0, 0.5]), min_size=d, max_size=d)))
    ct = draw(st.sampled_from(COVARIANCE_TYPES))
    scales = np.array(draw(st.lists(st.sampled_from([0.3, 1.0, 4.0]), min_size=K, max_size=K)))
    cov = {"full": np.stack([s * (np.eye(d) + 0.4 * np.tri(d, k=-1) @ np.tri(d, k=-1).T) for s in scales]),
           "tied": scales[0] * np.eye(d), "diag": np.outer(scales, np.linspace(1.0, 2.0, d)),
           "spherical": scales}[ct]
    return X, weights, means, cov, ct


@HYPOTHESIS
@given(structured_problems())
def test_e_step_on_structured_data_matches_scipy(problem):
    X, weights, means, cov, ct = problem
    resp, log_norm = e_step(X, weights, means, cov, ct)
    full = _by_hand_full(cov, ct, len(weights), X.shape[1])
    with np.errstate(divide="ignore"):
        log_joint = np.column_stack([np.log(weights[k]) + scipy.stats.multivariate_normal(means[k], full[k])
                                     .logpdf(X).reshape(-1) for k in range(len(weights))])
    assert_allclose(log_norm, scipy.special.logsumexp(log_joint, axis=1), rtol=1e-9, atol=1e-8)
    assert_allclose(resp.sum(axis=1), 1.0, rtol=1e-12)
    assert np.all(resp[:, weights == 0] == 0.0)  # a zero weight gets no responsibility
    # the fast path (centred at the data's mean, exact route where it would lose digits) agrees
    fast = estimate_log_prob(X, means, cov, ct)
    assert_allclose(fast, log_prob(X, means, cov, ct), rtol=1e-9, atol=1e-8)


@HYPOTHESIS
@given(structured_problems(), st.sampled_from([1e-6, 0.1]))
def test_m_step_on_structured_data(problem, reg_covar):
    X, weights, means, cov, ct = problem
    n, d = X.shape
    resp, _ = e_step(X, weights, means, cov, ct)
    got = m_step(X, resp, ct, reg_covar)
    live = resp.sum(axis=0) > 0
    if ct != "tied":  # tied: the direct formula divides the pooled scatter by n either way
        want = direct_m_step(X, resp[:, live], ct, reg_covar)  # live.any(): the rows sum to 1
        assert_allclose(got[1][live], want[1], rtol=1e-9, atol=1e-7)
        assert_allclose(got[2][live], want[2], rtol=1e-7, atol=1e-7)
        eps10 = 10 * np.finfo(np.float64).eps
        assert_allclose(got[0][~live], eps10 / n, rtol=1e-12)  # empty: kept alive, as documented
        assert np.all(got[1][~live] == 0.0)
        want_empty = {"full": reg_covar * np.eye(d), "diag": np.full(d, reg_covar), "spherical": reg_covar}[ct]
        assert_allclose(got[2][~live], np.broadcast_to(want_empty, got[2][~live].shape), rtol=1e-12)
    # the fast path's statistics give the same M-step
    fast = _fastpath.SufficientStatistics(X, ct, len(weights))
    stats, centres = fast.statistics(resp)
    again = _fastpath.m_step(stats, centres, n, ct, reg_covar)
    for a, b in zip(again, got, strict=True):
        assert_allclose(a, b, rtol=1e-9, atol=1e-7)


# ---------------------------------------------------------------- the four-point worked example


def test_four_point_worked_example():
    """Seed 002: four points, two spherical components; one E-step and one M-step."""
    X = np.array([[-1.5, 0.5], [-1.5, -0.5], [0.0, 0.5], [0.0, -0.5]])
    means = np.array([[-1.5, 0.0], [1.5, 0.0]])
    variances = np.array([0.25, 0.25])
    weights = np.array([0.5, 0.5])

    resp, _ = e_step(X, weights, means, variances, "spherical")
    # x1, x2: ||x - mu2||^2 - ||x - mu1||^2 = 9, so gamma_i2 = 1 / (1 + e^{9 / (2 * 0.25)})
    eps = 1.0 / (1.0 + np.exp(18.0))  # about 1.5e-8
    assert_allclose(resp[:2, 1], eps, rtol=1e-10)
    assert_allclose(resp[:2, 0], 1.0 - eps, rtol=1e-14)
    # x3, x4 are equidistant from both means: one half (to the last bit or two)
    assert resp[2, 0] == resp[2, 1] and resp[3, 0] == resp[3, 1]
    assert_allclose(resp[2:], 0.5, rtol=2e-16)

    new_weights, new_means, new_variances = m_step(X, resp, "spherical", reg_covar=1e-12)
    # exact values for this eps (d = 2, the variance divides by d * n_k)
    n1, n2 = 3.0 - 2.0 * eps, 1.0 + 2.0 * eps
    assert_allclose(new_weights, [n1 / 4, n2 / 4], rtol=1e-12)
    assert_allclose(new_means, [[-3.0 * (1 - eps) / n1, 0.0], [-3.0 * eps / n2, 0.0]], atol=1e-14)
    mu1, mu2 = new_means
    var1 = ((1 - eps) * (np.sum((X[:2] - mu1) ** 2)) + 0.5 * np.sum((X[2:] - mu1) ** 2)) / (2 * n1)
    var2 = (eps * np.sum((X[:2] - mu2) ** 2) + 0.5 * np.sum((X[2:] - mu2) ** 2)) / (2 * n2)
    assert_allclose(new_variances, np.array([var1, var2]) + 1e-12, rtol=1e-12)
    # the same values rounded, with eps rounded away
    assert_allclose(new_weights, [0.75, 0.25], atol=1e-6)
    assert_allclose(new_means, [[-1.0, 0.0], [0.0, 0.0]], atol=1e-6)
    assert_allclose(new_variances, [0.375, 0.125], atol=1e-6)


# ---------------------------------------------------------------- the estimator


def test_history_and_attributes():
    rng = np.random.default_rng(6)
    X = blobs(rng, 300, 2, 3)
    params = random_parameters(rng, X, 3, "full")
    gm = run_lib(X, params, "full", max_iter=200, tol=1e-6)
    n = X.shape[0]
    assert gm.converged_ and gm.n_features_in_ == 2
    assert gm.log_likelihood_history_.shape == (gm.n_iter_ + 1,)
    assert gm.log_likelihood_history_[0] == pytest.approx(log_likelihood(X, *params))
    assert gm.log_likelihood_history_[-1] == pytest.approx(gm.score(X) * n, rel=1e-12)
    assert gm.lower_bound_ == pytest.approx(gm.log_likelihood_history_[-2] / n, rel=1e-14)
    assert_allclose(gm.score_samples(X).sum(), log_likelihood(X, gm.weights_, gm.means_, gm.covariances_))
    assert_allclose(gm.predict_proba(X), e_step(X, gm.weights_, gm.means_, gm.covariances_)[0])
    assert_allclose(gm.predict_proba(X).sum(axis=1), 1.0)


def test_max_iter_zero_returns_the_initial_parameters():
    rng = np.random.default_rng(7)
    X = blobs(rng, 100, 2, 2)
    params = random_parameters(rng, X, 2, "diag")
    gm = run_lib(X, params, "diag", max_iter=0)
    assert gm.n_iter_ == 0 and not gm.converged_
    assert_allclose(gm.means_, params[1])
    assert gm.log_likelihood_history_.shape == (1,)


@pytest.mark.parametrize(
    "init_params", ["k-means++_nearest", "random_seeds", "kmeans", "k-means++", "random", "random_from_data"]
)
@pytest.mark.parametrize("covariance_type", COVARIANCE_TYPES)
def test_recovers_separated_clusters(init_params, covariance_type):
    rng = np.random.default_rng(8)
    centres = np.array([[0.0, 0.0], [10.0, 0.0], [0.0, 10.0]])
    labels = np.repeat(np.arange(3), 100)
    X = centres[labels] + rng.normal(size=(300, 2))
    # 'random' responsibilities put every mean near the data's centre: EM needs a
    # tight tol to break the symmetry before the default rule calls it converged
    gm = GaussianMixture(3, covariance_type=covariance_type, init_params=init_params,
                         n_init=3, tol=1e-8, max_iter=1000, random_state=0).fit(X)
    nearest = np.argmin(((gm.means_[:, None, :] - centres[None]) ** 2).sum(axis=2), axis=1)
    assert sorted(nearest) == [0, 1, 2]  # one component per cluster
    assert_allclose(gm.means_, centres[nearest], atol=0.4)  # 4 standard errors
    assert_allclose(gm.weights_, 1 / 3, atol=0.02)


FOUR_SQUARES = np.array([[0.0, 0.0], [10.0, 0.0], [0.0, 10.0], [10.0, 10.0]])


def _four_clusters():
    rng = np.random.default_rng(0)
    return np.vstack([c + rng.normal(size=(50, 2)) for c in FOUR_SQUARES])


@pytest.mark.parametrize("seed", [1, 3, 13])
def test_n_init_escapes_a_bad_local_optimum(seed):
    """Four clusters on a square; with these seeds the first start puts two seeds in one cluster and
    EM converges to a local optimum where one component covers two clusters. More starts find the
    global optimum, known independently: EM started at the true centres."""
    X = _four_clusters()
    true_start = GaussianMixture(4, init_params="given", weights_init=np.full(4, 0.25), means_init=FOUR_SQUARES,
                                 covariances_init=np.array([np.eye(2)] * 4), tol=1e-8).fit(X)
    one = GaussianMixture(4, init_params="random_seeds", n_init=1, random_state=seed, tol=1e-8,
                          max_iter=1000).fit(X)
    five = GaussianMixture(4, init_params="random_seeds", n_init=5, random_state=seed, tol=1e-8,
                           max_iter=1000).fit(X)
    assert one.converged_  # a genuine local optimum, not an unfinished run
    assert one.lower_bound_ < true_start.lower_bound_ - 0.3  # per sample: far below
    nearest = np.min(np.linalg.norm(one.means_[:, None] - FOUR_SQUARES[None], axis=2), axis=0)
    assert nearest.max() > 2.0  # some cluster has no component of its own
    assert five.lower_bound_ == pytest.approx(true_start.lower_bound_, abs=1e-6)
    nearest = np.min(np.linalg.norm(five.means_[:, None] - FOUR_SQUARES[None], axis=2), axis=0)
    assert nearest.max() < 0.5


def test_n_init_keeps_the_best():
    rng = np.random.default_rng(9)
    X = blobs(rng, 200, 2, 4, separation=2.0)
    one = GaussianMixture(4, init_params="random", n_init=1, random_state=3).fit(X)
    five = GaussianMixture(4, init_params="random", n_init=5, random_state=3).fit(X)
    # the first initialisation of both runs is the same draw
    assert five.lower_bound_ >= one.lower_bound_


def test_fit_predict_equals_fit_then_predict():
    rng = np.random.default_rng(10)
    X = blobs(rng, 150, 3, 3)
    a = GaussianMixture(3, random_state=1, max_iter=3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        labels = a.fit_predict(X)
        b = GaussianMixture(3, random_state=1, max_iter=3).fit(X)
    assert np.array_equal(labels, b.predict(X))


def test_convergence_warning():
    rng = np.random.default_rng(11)
    X = blobs(rng, 100, 2, 2)
    with pytest.warns(ConvergenceWarning, match="Best performing initialization did not converge"):
        gm = GaussianMixture(2, max_iter=1, tol=0.0, random_state=0).fit(X)
    assert not gm.converged_ and gm.n_iter_ == 1
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        GaussianMixture(2, max_iter=0, random_state=0).fit(X)  # init only: no warning


def test_convergence_warning_points_at_the_callers_line():
    X = blobs(np.random.default_rng(11), 100, 2, 2)
    for method in ("fit", "fit_predict"):
        with pytest.warns(ConvergenceWarning) as record:
            getattr(GaussianMixture(2, max_iter=1, tol=0.0, random_state=0), method)(X)
        assert record[0].filename == __file__, (method, record[0].filename)


def _blas_threads():
    return {i["filepath"]: i["num_threads"] for i in threadpool_info() if i["user_api"] == "blas"}


def test_fit_runs_em_with_one_blas_thread_and_restores_the_callers_limit(monkeypatch):
    # "Threads" in the GaussianMixture docstring: the EM loop limits BLAS to one thread
    seen = []
    e_step = _fastpath.SufficientStatistics.e_step

    def spy(self, theta, hard=None):
        seen.append(_blas_threads())
        return e_step(self, theta, hard)

    monkeypatch.setattr(_fastpath.SufficientStatistics, "e_step", spy)
    X = blobs(np.random.default_rng(13), 200, 3, 2)
    with threadpool_limits(limits=2, user_api="blas"):
        before = _blas_threads()
        with pytest.warns(ConvergenceWarning):  # tol=0: three iterations exactly
            gm = GaussianMixture(2, max_iter=3, tol=0.0, random_state=0).fit(X)
        gm.predict_proba(X)  # scoring limits the threads too, through lib._fastpath.log_joint
        after = _blas_threads()
    assert len(seen) == 3 and all(set(s.values()) == {1} for s in seen)
    assert after == before


def test_collapse_is_held_off_by_reg_covar():
    # a component that can sit on the lone far-away point: its covariance shrinks to reg_covar
    rng = np.random.default_rng(12)
    X = np.vstack([rng.normal(size=(50, 2)), [[100.0, 100.0]]])
    gm = GaussianMixture(2, reg_covar=1e-3, random_state=0).fit(X)
    smallest = np.min([np.linalg.eigvalsh(c).min() for c in gm.covariances_])
    assert smallest >= 1e-3 * (1 - 1e-9)
    assert np.all(np.isfinite(gm.log_likelihood_history_))


def _empty_start(covariance_type, reg_covar):
    """50 points and two components, the second starting 1e3 away: it gets exactly zero responsibility."""
    X = np.random.default_rng(13).normal(size=(50, 2))
    cov = {"full": np.array([np.eye(2)] * 2), "tied": np.eye(2), "diag": np.ones((2, 2)),
           "spherical": np.ones(2)}[covariance_type]
    params = (np.array([0.5, 0.5]), np.array([[0.0, 0.0], [1e3, 1e3]]), cov)
    return X, params


@pytest.mark.parametrize("covariance_type", COVARIANCE_TYPES)
def test_an_empty_component_is_kept_alive_as_documented(covariance_type):
    """m_step's docstring: weight 10 eps / n, mean at the origin, covariance reg_covar * I; the other
    component is the one-Gaussian fit; and scikit-learn, from the same start, does the same."""
    X, params = _empty_start(covariance_type, 1e-6)
    n, d = X.shape
    gm = run_lib(X, params, covariance_type, max_iter=4, reg_covar=1e-6)
    sk = run_sklearn(X, params, covariance_type, max_iter=4, reg_covar=1e-6)
    eps10 = 10 * np.finfo(np.float64).eps
    assert gm.weights_[1] < 1e-15
    if covariance_type != "tied":  # tied: the empty component shares the data's covariance, so it
        # keeps responsibilities of about 1e-17 near the origin; scikit-learn's values are checked below
        assert gm.weights_[1] == pytest.approx(eps10 / n, rel=1e-12)
        assert np.array_equal(gm.means_[1], [0.0, 0.0])
        assert_allclose(gm.means_[0], X.mean(axis=0), rtol=1e-12)
        scatter = np.cov(X.T, bias=True)
        want = {"full": [scatter + 1e-6 * np.eye(2), 1e-6 * np.eye(2)],
                "diag": [np.diag(scatter) + 1e-6, [1e-6, 1e-6]],
                "spherical": [np.trace(scatter) / 2 + 1e-6, 1e-6]}[covariance_type]
        assert_allclose(gm.covariances_, want, rtol=1e-10)
    for ours, theirs in ((gm.weights_, sk.weights_), (gm.means_, sk.means_), (gm.covariances_, sk.covariances_)):
        assert_allclose(ours, theirs, rtol=1e-9, atol=1e-12)
    # the pure M-step does the same
    resp = np.tile([0.5, 0.5, 0.0], (n, 1))
    weights, means, cov = m_step(X, resp, "full", reg_covar=1e-3)
    assert weights[2] == pytest.approx(eps10 / n, rel=1e-12)
    assert np.array_equal(means[2], [0.0, 0.0]) and np.array_equal(cov[2], 1e-3 * np.eye(2))


def test_an_empty_component_at_reg_covar_zero_gets_advice_that_works():
    X, params = _empty_start("full", 0.0)
    gm = GaussianMixture(2, init_params="given", weights_init=params[0], means_init=params[1],
                         covariances_init=params[2], reg_covar=0.0)
    with pytest.raises(ValueError, match=r"ill-defined empirical covariance.*increase reg_covar.*reg_covar=0\.0"):
        gm.fit(X)
    gm.set_params(reg_covar=1e-6).fit(X)  # the advice works
    assert gm.converged_ and gm.weights_[1] < 1e-15
    # fewer distinct points than components (scikit-learn's test_regularisation, whose last line must fit)
    X_dup = np.vstack([np.ones((5, 5)), np.zeros((5, 5))])
    for ct in COVARIANCE_TYPES:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            with pytest.raises(ValueError, match="increase reg_covar"):
                GaussianMixture(10, covariance_type=ct, reg_covar=0, random_state=0).fit(X_dup)
            fitted = GaussianMixture(10, covariance_type=ct, reg_covar=1e-6, random_state=0).fit(X_dup)
        assert np.all(np.isfinite(fitted.log_likelihood_history_))
        assert np.sum(fitted.weights_ > 1e-12) <= 2  # two distinct points: at most two live components


def test_sample_shapes_and_reproducibility():
    rng = np.random.default_rng(14)
    X = blobs(rng, 200, 3, 2)
    gm = GaussianMixture(2, covariance_type="diag", random_state=42).fit(X)
    Xs, ys = gm.sample(500)
    assert Xs.shape == (500, 3) and ys.shape == (500,)
    assert set(np.unique(ys)) <= {0, 1}
    Xs2, ys2 = gm.sample(500)
    assert np.array_equal(Xs, Xs2) and np.array_equal(ys, ys2)  # same random_state
    for ct in COVARIANCE_TYPES:
        weights = np.array([0.3, 0.7])
        means = np.array([[-5.0, 0.0], [5.0, 1.0]])
        cov = {"full": np.array([np.eye(2), [[2.0, 0.5], [0.5, 1.0]]]), "tied": np.eye(2),
               "diag": np.array([[1.0, 2.0], [0.5, 0.5]]), "spherical": np.array([1.0, 0.3])}[ct]
        Xs, z = sample(20000, weights, means, cov, ct, rng=0)
        Xs_again, z_again = sample(20000, weights, means, cov, ct, rng=0)
        assert np.array_equal(Xs, Xs_again) and np.array_equal(z, z_again)
        assert np.mean(z == 1) == pytest.approx(0.7, abs=0.02)
        full = full_covariances(cov, ct, 2, 2)
        for k in range(2):
            assert_allclose(Xs[z == k].mean(axis=0), means[k], atol=0.08)
            assert_allclose(np.cov(Xs[z == k].T), full[k], atol=0.1)


@pytest.mark.parametrize("covariance_type", ["full", "tied"])
def test_sample_covariance_is_sigma_not_a_transposed_factor(covariance_type):
    """The sample covariance of many draws against Sigma, within 6 standard errors of each entry
    (Var S_ab = (Sigma_aa Sigma_bb + Sigma_ab^2) / (N - 1) for Gaussian draws); eps @ L instead of
    eps @ L.T would give L^T L, which the test shows to lie far outside that tolerance."""
    A = np.array([[2.0, 0.0, 0.0], [1.8, 0.5, 0.0], [-1.0, 0.7, 0.3]])
    sigma = A @ A.T  # correlated and anisotropic: L^T L differs from L L^T by O(1)
    cov = np.array([sigma, 0.5 * sigma]) if covariance_type == "full" else sigma
    means = np.array([[0.0, 0.0, 0.0], [3.0, -1.0, 2.0]])
    N = 200_000
    Xs, z = sample(N, np.array([0.5, 0.5]), means, cov, covariance_type, rng=1)
    for k in range(2):
        S_true = cov[k] if covariance_type == "full" else cov
        rows = Xs[z == k]
        S = np.cov(rows.T)
        se = np.sqrt((np.outer(np.diag(S_true), np.diag(S_true)) + S_true**2) / (len(rows) - 1))
        assert np.all(np.abs(S - S_true) < 6 * se), np.max(np.abs(S - S_true) / se)
        L = np.linalg.cholesky(S_true)
        assert np.max(np.abs(L.T @ L - S_true) / se) > 100  # the transposed factor is caught for certain
        assert_allclose(rows.mean(axis=0), means[k], atol=6 * np.sqrt(np.diag(S_true).max() / len(rows)))
    gm = GaussianMixture(2, covariance_type=covariance_type, random_state=1).fit(Xs[:2000])
    X_gm, z_gm = gm.sample(N)
    for k in range(2):
        S_true = gm.covariances_[k] if covariance_type == "full" else gm.covariances_
        se = np.sqrt((np.outer(np.diag(S_true), np.diag(S_true)) + S_true**2) / (np.sum(z_gm == k) - 1))
        assert np.all(np.abs(np.cov(X_gm[z_gm == k].T) - S_true) < 6 * se)


def test_predict_before_fit():
    with pytest.raises(NotFittedError):
        GaussianMixture().predict(np.zeros((3, 2)))


# ---------------------------------------------------------------- bad inputs

X_OK = np.random.default_rng(0).normal(size=(20, 2))
EYES = np.array([np.eye(2)] * 2)
GOOD = dict(weights=[0.5, 0.5], means=[[0.0, 0.0], [1.0, 1.0]], covariances=EYES)


def _fit(**kwargs):
    X = kwargs.pop("X", X_OK)
    return GaussianMixture(**kwargs).fit(X)


def _fit2(**kwargs):
    return _fit(n_components=2, **kwargs)


@pytest.mark.parametrize(
    "call, error, match",
    [
        # data
        (lambda: _fit(X=[[0.0, np.nan]] * 5), ValueError, "NaN or infinite"),
        (lambda: _fit(X=[[0.0, np.inf]] * 5), ValueError, "NaN or infinite"),
        (lambda: _fit(X=np.zeros(5)), ValueError, "Reshape your data"),
        (lambda: _fit(X=np.zeros((2, 2, 2))), ValueError, "2-dimensional"),
        (lambda: _fit(X=[["a", "b"]] * 3), TypeError, "numbers"),
        (lambda: _fit(X=None), TypeError, "None"),
        # hyper-parameters
        (lambda: _fit(n_components=30), ValueError, "larger than the number of samples"),
        (lambda: _fit(n_components=0), ValueError, "n_components must be an integer >= 1"),
        (lambda: _fit(n_components=2.5), TypeError, "n_components must be an integer"),
        (lambda: _fit(reg_covar=-1.0), ValueError, "reg_covar must be a finite number >= 0"),
        (lambda: _fit(reg_covar=-1e-3), ValueError, "reg_covar"),
        (lambda: _fit(tol=-1.0), ValueError, "tol"),
        (lambda: _fit(max_iter=-1), ValueError, "max_iter"),
        (lambda: _fit(n_init=0), ValueError, "n_init"),
        (lambda: _fit(covariance_type="banana"), ValueError, "covariance_type must be one of"),
        (lambda: _fit(init_params="k-means"), ValueError, "init_params must be one of"),
        # the book's former name, one hyphen from scikit-learn's 'k-means++' (issue 37)
        (lambda: _fit(init_params="kmeans++"), ValueError,
         r"'kmeans\+\+' is not an option: use 'k-means\+\+' .*'k-means\+\+_nearest'"),
        # initial parameters
        (lambda: _fit2(weights_init=[0.5, 0.6]), ValueError, "weights_init must sum to 1"),
        (lambda: _fit2(weights_init=[1.0]), ValueError, r"should have the shape of \(2,\).*weights_init holds"),
        (lambda: _fit2(weights_init=[1.0, 0.0]), ValueError, "strictly positive"),
        (lambda: _fit2(means_init=[[0.0] * 3] * 2), ValueError, r"shape of \(2, 2\), but got \(2, 3\).*means_init"),
        (lambda: _fit2(covariances_init=np.eye(2)), ValueError, r"must have shape \(2, 2, 2\)"),
        (lambda: _fit2(covariances_init=EYES * [[[1]], [[-1]]]), ValueError, "not positive definite"),
        (lambda: _fit2(covariances_init=EYES + [[0, 0.5], [0, 0]]), ValueError, "symmetric"),
        (
            lambda: _fit2(covariance_type="diag", covariances_init=[[1.0, 0.0]] * 2),
            ValueError,
            "strictly positive",
        ),
        (
            lambda: _fit2(init_params="given", means_init=GOOD["means"]),
            ValueError,
            r"missing \['weights_init', 'covariances_init'\]",
        ),
        (
            lambda: GaussianMixture(2).fit(X_OK).predict(np.zeros((3, 5))),
            ValueError,
            "X has 5 features, but GaussianMixture is expecting 2",
        ),
        # pure functions
        (lambda: e_step(X_OK, [0.5, 0.6], GOOD["means"], EYES), ValueError, "weights must sum to 1"),
        (lambda: e_step(X_OK, [1.0], GOOD["means"], EYES), ValueError, "one weight per component"),
        (lambda: e_step(np.zeros((3, 3)), **GOOD), ValueError, "X has 3 feature"),
        (lambda: log_likelihood(X_OK, **GOOD, covariance_type="tied"), ValueError, r"shape \(2, 2\)"),
        (lambda: m_step(X_OK, np.full((20, 2), 0.3)), ValueError, "must sum to 1"),
        (lambda: m_step(X_OK, -np.ones((20, 2))), ValueError, "non-negative"),
        (lambda: m_step(X_OK, np.ones((19, 1))), ValueError, r"resp must have shape"),
        (lambda: m_step(X_OK, np.ones((20, 1)), reg_covar=-1.0), ValueError, "reg_covar"),
        (lambda: lower_bound(X_OK, np.ones((20, 3)) / 3, **GOOD), ValueError, r"shape \(20, 2\)"),
        (lambda: sample(0, **GOOD), ValueError, "n_samples"),
        (lambda: sample(5, **GOOD, rng="seed"), TypeError, "random_state"),
    ],
)
def test_bad_inputs(call, error, match):
    with pytest.raises(error, match=match):
        call()


# ---------------------------------------------------------------- scikit-learn's estimator contract


@parametrize_with_checks([GaussianMixture(), GaussianMixture(n_components=2, covariance_type="diag")])
def test_sklearn_estimator_checks(estimator, check):
    # None is expected to fail. check_array_api_input skips itself (numpy-only estimator).
    check(estimator)


# ---------------------------------------------------------------- reg_covar = 0: the pure MLE


@pytest.mark.parametrize("covariance_type", COVARIANCE_TYPES)
def test_reg_covar_zero_is_the_unregularised_m_step(covariance_type):
    rng = np.random.default_rng(21)
    X = blobs(rng, 300, 3, 2)
    resp = rng.dirichlet(np.ones(2), size=300)
    weights, means, cov = m_step(X, resp, covariance_type, reg_covar=0)
    assert_allclose(cov, direct_m_step(X, resp, covariance_type, 0.0)[2], rtol=1e-10)
    gm = run_lib(X, (weights, means, cov), covariance_type, max_iter=5, reg_covar=0.0)
    want = (weights, means, cov)
    for _ in range(5):
        want = m_step(X, e_step(X, *want, covariance_type)[0], covariance_type, reg_covar=0.0)
    assert_allclose(gm.covariances_, want[2], rtol=1e-10)


def test_reg_covar_zero_singular_covariance_names_reg_covar():
    X = np.repeat([[0.0, 1.0], [0.0, 2.0], [5.0, 1.0], [5.0, 3.0]], 5, axis=0)  # x_0 constant per cluster
    gm = GaussianMixture(2, reg_covar=0.0, init_params="random_from_data", random_state=0,
                         means_init=[[0.0, 1.5], [5.0, 2.0]])
    with pytest.raises(ValueError, match="reg_covar"):
        gm.fit(X)


# ---------------------------------------------------------------- scikit-learn's parameters and attributes


@pytest.mark.parametrize("init_params", ["k-means++", "random_from_data"])
def test_sklearn_seed_initialisations_give_each_component_its_seed_only(init_params):
    """scikit-learn's meaning: the initial means are K data points, the covariances reg_covar * I."""
    X = blobs(np.random.default_rng(30), 200, 2, 3)
    gm = GaussianMixture(3, init_params=init_params, max_iter=0, reg_covar=1e-3, random_state=0).fit(X)
    nearest = X[np.argmin(((X[:, None, :] - gm.means_[None]) ** 2).sum(axis=2), axis=0)]  # (3, d)
    assert_allclose(gm.means_, nearest, rtol=1e-13)  # the seed, pulled by 10 eps as in scikit-learn
    assert_allclose(gm.covariances_, np.array([1e-3 * np.eye(2)] * 3), rtol=1e-12, atol=1e-20)
    assert_allclose(gm.weights_, 1 / 200, rtol=1e-12)  # one point each (n_k = 1 + 10 eps)


def test_the_two_kmeanspp_initialisations_share_seeds_and_differ_in_the_assignment():
    """'k-means++' gives each component its seed alone; 'k-means++_nearest' gives it the seed's cell."""
    X = blobs(np.random.default_rng(32), 300, 2, 3)
    alone = GaussianMixture(3, init_params="k-means++", max_iter=0, reg_covar=1e-3, random_state=0).fit(X)
    cells = GaussianMixture(3, init_params="k-means++_nearest", max_iter=0, random_state=0).fit(X)
    seeds = alone.means_  # the k-means++ seeds (data points), from the same random_state
    labels = np.argmin(((X[:, None, :] - seeds[None]) ** 2).sum(axis=2), axis=1)  # (n,)
    expected = m_step(X, np.eye(3)[labels], "full", 1e-6)  # one M-step on the seeds' cells
    assert_allclose(cells.weights_, expected[0], rtol=1e-12)
    assert_allclose(cells.means_, expected[1], rtol=1e-10)
    assert_allclose(cells.covariances_, expected[2], rtol=1e-9)
    assert np.abs(cells.means_ - alone.means_).max() > 0.1  # not the same start


def test_kmeans_initialisation_is_one_m_step_on_kmeans_labels():
    X = blobs(np.random.default_rng(31), 300, 2, 3)
    gm = GaussianMixture(3, init_params="kmeans", max_iter=0, random_state=0).fit(X)
    # the same KMeans run (seeded from random_state=0 as lib does), then one M-step
    seed = int(np.random.default_rng(0).integers(np.iinfo(np.int32).max))
    km = KMeans(3, n_init=1, random_state=seed).fit(X - X.mean(axis=0))
    expected = m_step(X, np.eye(3)[km.labels_], "full", 1e-6)
    assert_allclose(gm.means_, expected[1], rtol=1e-10)
    assert_allclose(gm.covariances_, expected[2], rtol=1e-9)


@pytest.mark.parametrize("covariance_type", COVARIANCE_TYPES)
def test_precisions_match_sklearn_and_precisions_init_equals_covariances_init(covariance_type):
    rng = np.random.default_rng(32)
    X = blobs(rng, 300, 3, 2)
    params = random_parameters(rng, X, 2, covariance_type)
    ours = run_lib(X, params, covariance_type, max_iter=4)
    sk = run_sklearn(X, params, covariance_type, max_iter=4)
    assert_allclose(ours.precisions_, sk.precisions_, rtol=1e-7)
    assert_allclose(ours.precisions_cholesky_, sk.precisions_cholesky_, rtol=1e-7, atol=1e-12)
    assert ours.lower_bounds_ == pytest.approx(list(sk.lower_bounds_), rel=1e-9)
    by_precision = GaussianMixture(
        2, covariance_type=covariance_type, init_params="given", weights_init=params[0],
        means_init=params[1], precisions_init=sklearn_precisions(params[2], covariance_type),
        max_iter=4, tol=0.0,
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        by_precision.fit(X)
    assert_allclose(by_precision.log_likelihood_history_, ours.log_likelihood_history_, rtol=1e-10)
    with pytest.raises(ValueError, match="not both"):
        GaussianMixture(2, covariance_type=covariance_type, covariances_init=params[2],
                        precisions_init=sklearn_precisions(params[2], covariance_type)).fit(X)


def test_warm_start_continues_the_fit():
    X = blobs(np.random.default_rng(33), 300, 2, 3)
    once = GaussianMixture(3, max_iter=6, tol=0.0, random_state=0)
    twice = GaussianMixture(3, max_iter=3, tol=0.0, random_state=0, warm_start=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        once.fit(X)
        twice.fit(X)
        twice.fit(X)
    assert_allclose(twice.means_, once.means_, rtol=1e-10)
    assert_allclose(twice.log_likelihood_history_, once.log_likelihood_history_[3:], rtol=1e-12)


def test_verbose_prints_every_verbose_interval(capsys):
    X = blobs(np.random.default_rng(34), 200, 2, 2)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        GaussianMixture(2, max_iter=7, tol=0.0, verbose=2, verbose_interval=3, random_state=0).fit(X)
    out = capsys.readouterr().out
    assert "Initialization 0" in out
    assert [line.split(":")[0].strip() for line in out.splitlines() if "Iteration" in line] == [
        "Iteration 3", "Iteration 6"]


def test_fit_converts_and_checks_X_once(monkeypatch):
    """check_data converts X; scikit-learn's validate_data only does its bookkeeping (no second check_array)."""
    import sklearn.utils.validation as skv

    def no_second_check(*args, **kwargs):
        raise AssertionError("X was checked a second time by scikit-learn's check_array")

    monkeypatch.setattr(skv, "check_array", no_second_check)
    X = blobs(np.random.default_rng(35), 100, 2, 2)
    gm = GaussianMixture(2, random_state=0).fit(X)
    assert gm.n_features_in_ == 2 and gm.predict(X).shape == (100,)
