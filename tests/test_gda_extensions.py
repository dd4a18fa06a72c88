"""Chapter 3's additions to lib: conditional Gaussians, missing features, Fisher's
directions and shrinkage covariances, held against scipy and scikit-learn."""

import warnings

import numpy as np
import pytest
from scipy.stats import multivariate_normal
from sklearn.covariance import ledoit_wolf as sk_ledoit_wolf
from sklearn.discriminant_analysis import LinearDiscriminantAnalysis
from sklearn.utils.estimator_checks import parametrize_with_checks

from lib import discriminant, gaussian
from lib.datasets import load_iris
from lib.discriminant import GaussianDiscriminantAnalysis


def _spd(rng, d):
    A = rng.normal(size=(d, d))
    return A @ A.T + 0.5 * np.eye(d)


# ------------------------------------------------------- conditional_gaussian --


@pytest.mark.parametrize("seed", range(8))
def test_conditional_density_is_joint_over_marginal(seed):
    rng = np.random.default_rng(seed)
    d = int(rng.integers(2, 7))
    mean, cov = rng.normal(size=d), _spd(rng, d)
    observed = rng.random(d) < 0.5
    observed[rng.integers(d)] = True  # at least one observed
    observed[rng.integers(d)] = False if observed.sum() > 1 else observed[0]
    if observed.all():
        observed[0] = False
    x = rng.multivariate_normal(mean, cov, size=5)
    cond_mean, cond_cov = gaussian.conditional_gaussian(mean, cov, observed, x[:, observed])
    assert cond_mean.shape == (5, int((~observed).sum()))
    assert np.allclose(cond_cov, cond_cov.T)
    joint = multivariate_normal(mean, cov).logpdf(x)
    marginal = multivariate_normal(mean[observed], cov[np.ix_(observed, observed)]).logpdf(x[:, observed])
    for i in range(5):
        cond = multivariate_normal(cond_mean[i], cond_cov).logpdf(x[i, ~observed])
        assert np.isclose(cond, joint[i] - marginal[i], rtol=1e-10, atol=1e-10)


def test_conditional_gaussian_closed_form_in_two_dimensions():
    # x_2 | x_1 for a bivariate normal: mean mu_2 + rho s2/s1 (x_1 - mu_1), variance s2^2 (1 - rho^2)
    s1, s2, rho = 2.0, 0.5, 0.6
    cov = np.array([[s1**2, rho * s1 * s2], [rho * s1 * s2, s2**2]])
    mean = np.array([1.0, -1.0])
    m, c = gaussian.conditional_gaussian(mean, cov, [0], np.array([3.0]))
    assert np.isclose(m[0], -1.0 + rho * s2 / s1 * 2.0)
    assert np.isclose(c[0, 0], s2**2 * (1 - rho**2))


def test_conditional_gaussian_indices_and_mask_agree_and_nothing_observed():
    rng = np.random.default_rng(3)
    mean, cov = rng.normal(size=4), _spd(rng, 4)
    a = gaussian.conditional_gaussian(mean, cov, np.array([True, False, True, False]), [0.3, -1.0])
    b = gaussian.conditional_gaussian(mean, cov, [0, 2], [0.3, -1.0])
    assert np.allclose(a[0], b[0]) and np.allclose(a[1], b[1])
    m, c = gaussian.conditional_gaussian(mean, cov, np.zeros(4, dtype=bool), np.zeros(0))
    assert np.allclose(m, mean) and np.allclose(c, cov)


def test_conditional_gaussian_rejects_bad_input():
    cov = np.eye(3)
    with pytest.raises(ValueError, match="x_observed"):
        gaussian.conditional_gaussian(np.zeros(3), cov, [0, 1], [1.0])
    with pytest.raises(ValueError, match="shape"):
        gaussian.conditional_gaussian(np.zeros(3), cov, np.array([True, False]), [1.0])
    with pytest.raises(TypeError, match="observed"):
        gaussian.conditional_gaussian(np.zeros(3), cov, [0.5], [1.0])
    with pytest.raises(ValueError, match="symmetric"):
        gaussian.conditional_gaussian(np.zeros(3), np.triu(np.ones((3, 3))), [0], [1.0])


# --------------------------------------------------- missing features in GDA --


def test_log_posterior_observed_matches_deleting_entries_and_full_rows():
    X, y = load_iris()
    model = GaussianDiscriminantAnalysis("full").fit(X, y)
    params = (model.priors_, model.means_, model.covariances_, "full")
    rng = np.random.default_rng(0)
    X_miss = X.copy()
    X_miss[rng.random(X.shape) < 0.3] = np.nan
    X_miss[0] = np.nan  # every feature missing: the priors
    got = discriminant.log_posterior_observed(X_miss, *params)
    assert np.allclose(np.exp(got[0]), model.priors_)
    for i in range(1, 40):
        o = ~np.isnan(X_miss[i])
        if not o.any():
            continue
        want = discriminant.log_posterior(X[i : i + 1, o], model.priors_, model.means_[:, o],
                                          model.covariances_[:, o][:, :, o], "full")
        assert np.allclose(got[i], want[0], rtol=1e-10, atol=1e-12)
    complete = ~np.isnan(X_miss).any(axis=1)
    assert np.allclose(got[complete], model.predict_log_proba(X[complete]), rtol=1e-9, atol=1e-10)


def test_log_posterior_observed_accepts_every_covariance_type():
    X, y = load_iris()
    X_miss = X.copy()
    X_miss[::3, 2] = np.nan
    for ct in ("full", "tied", "diag", "spherical"):
        m = GaussianDiscriminantAnalysis(ct).fit(X, y)
        full = gaussian.full_covariances(m.covariances_, ct, 3, 4)
        a = discriminant.log_posterior_observed(X_miss, m.priors_, m.means_, m.covariances_, ct)
        b = discriminant.log_posterior_observed(X_miss, m.priors_, m.means_, full, "full")
        assert np.allclose(a, b)


def test_impute_given_class_and_mixed():
    rng = np.random.default_rng(1)
    K, d = 3, 4
    priors = np.array([0.2, 0.3, 0.5])
    means = 2 * rng.normal(size=(K, d))
    covs = np.stack([_spd(rng, d) for _ in range(K)])
    X = rng.normal(size=(20, d))
    X[rng.random(X.shape) < 0.4] = np.nan
    X[1] = np.nan
    y = rng.integers(0, K, size=20)
    by_class = discriminant.impute(X, priors, means, covs, "full", y=y)
    mixed = discriminant.impute(X, priors, means, covs, "full")
    observed = ~np.isnan(X)
    assert np.array_equal(by_class[observed], X[observed]) and np.array_equal(mixed[observed], X[observed])
    assert np.allclose(by_class[1], means[y[1]])  # nothing observed: the class mean
    assert np.allclose(mixed[1], priors @ means)  # ... mixed with the priors
    post = np.exp(discriminant.log_posterior_observed(X, priors, means, covs, "full"))
    for i in range(2, 20):
        o = observed[i]
        if o.all() or not o.any():
            continue
        per_class = [gaussian.conditional_gaussian(means[k], covs[k], o, X[i, o])[0] for k in range(K)]
        assert np.allclose(by_class[i, ~o], per_class[y[i]])
        assert np.allclose(mixed[i, ~o], post[i] @ np.array(per_class))


def test_impute_rejects_bad_input():
    priors, means, covs = np.array([0.5, 0.5]), np.zeros((2, 2)), np.stack([np.eye(2)] * 2)
    with pytest.raises(ValueError, match="shape"):
        discriminant.impute(np.zeros((3, 3)), priors, means, covs)
    with pytest.raises(ValueError, match="infinite"):
        discriminant.impute(np.array([[np.inf, 0.0]]), priors, means, covs)
    with pytest.raises(ValueError, match="class index"):
        discriminant.impute(np.array([[np.nan, 0.0]]), priors, means, covs, y=np.array([2]))


# ------------------------------------------------------------ Fisher / LDA --


def test_fisher_directions_match_scikit_learn_eigen_solver_up_to_sign():
    X, y = load_iris()
    lda = GaussianDiscriminantAnalysis("tied").fit(X, y)
    evals, V = discriminant.discriminant_directions(lda.priors_, lda.means_, lda.covariances_)
    sk = LinearDiscriminantAnalysis(solver="eigen").fit(X, y)
    S = sk.scalings_[:, :2]
    signs = np.sign(np.sum(V * S, axis=0))
    assert np.allclose(V, S * signs, rtol=1e-8, atol=1e-10)
    Z, Z_sk = X @ V, sk.transform(X)
    assert np.allclose(Z - Z.mean(axis=0), (Z_sk - Z_sk.mean(axis=0)) * signs, rtol=1e-8, atol=1e-9)
    # V^T Sigma V = I, S_B V = Sigma V diag(lambda), and the eigenvalue ratios are scikit-learn's
    assert np.allclose(V.T @ lda.covariances_ @ V, np.eye(2), atol=1e-10)
    c = lda.means_ - lda.priors_ @ lda.means_
    Sb = (c * lda.priors_[:, None]).T @ c
    assert np.allclose(Sb @ V, lda.covariances_ @ V * evals, atol=1e-10)
    assert np.allclose(evals / evals.sum(), sk.explained_variance_ratio_[:2], rtol=1e-8)


def test_two_class_fisher_direction_is_lda_weight_up_to_scale():
    rng = np.random.default_rng(7)
    X = rng.normal(size=(80, 5)) @ rng.normal(size=(5, 5))
    y = (rng.random(80) < 0.4).astype(int)
    X[y == 1] += 1.5
    lda = GaussianDiscriminantAnalysis("tied").fit(X, y)
    _, V = discriminant.discriminant_directions(lda.priors_, lda.means_, lda.covariances_)
    w, _ = lda.logistic_parameters()
    assert V.shape == (5, 1)
    cosine = V[:, 0] @ w / np.linalg.norm(V[:, 0]) / np.linalg.norm(w)
    assert np.isclose(abs(cosine), 1.0, atol=1e-12)


def test_full_rank_discriminant_coordinates_reproduce_lda_predictions():
    X, y = load_iris()
    lda = GaussianDiscriminantAnalysis("tied").fit(X, y)
    _, V = discriminant.discriminant_directions(lda.priors_, lda.means_, lda.covariances_)
    reduced = GaussianDiscriminantAnalysis("tied").fit(X @ V, y)
    assert np.allclose(reduced.covariances_, np.eye(2), atol=1e-10)  # whitened within-class
    assert np.allclose(reduced.predict_proba(X @ V), lda.predict_proba(X), rtol=1e-8, atol=1e-10)


# ----------------------------------------------------------------- shrinkage --


@pytest.mark.parametrize("n,d", [(10, 3), (30, 30), (8, 50), (200, 4)])
def test_ledoit_wolf_matches_scikit_learn(n, d):
    rng = np.random.default_rng(n * d)
    X = rng.normal(size=(n, d)) @ rng.normal(size=(d, d)) + 3.0
    cov, alpha = discriminant.ledoit_wolf(X)
    cov_sk, alpha_sk = sk_ledoit_wolf(X)
    assert np.isclose(alpha, alpha_sk, rtol=1e-10, atol=1e-12)
    assert np.allclose(cov, cov_sk, rtol=1e-10, atol=1e-12)
    assert 0.0 <= alpha <= 1.0
    assert np.all(np.linalg.eigvalsh(cov) > 0)  # positive definite even when n <= d


def test_ledoit_wolf_of_a_multiple_of_the_identity_target_has_no_shrinkage_needed():
    X = np.array([[1.0, 0.0], [-1.0, 0.0], [0.0, 1.0], [0.0, -1.0]])  # S = I / 2 = m I
    cov, alpha = discriminant.ledoit_wolf(X)
    assert alpha == 0.0 and np.allclose(cov, 0.5 * np.eye(2))


@pytest.mark.parametrize("d", [4, 30])
def test_ledoit_wolf_lda_matches_scikit_learn_lsqr_auto(d):
    rng = np.random.default_rng(d)
    n = 60
    y = np.repeat([0, 1, 2], n // 3)
    X = rng.normal(size=(n, d)) * rng.uniform(0.1, 10, size=d) + y[:, None] * 0.5
    ours = GaussianDiscriminantAnalysis("tied", shrinkage="ledoit-wolf").fit(X, y)
    sk = LinearDiscriminantAnalysis(solver="lsqr", shrinkage="auto").fit(X, y)
    assert np.allclose(ours.covariances_, sk.covariance_, rtol=1e-9, atol=1e-12)
    X_test = rng.normal(size=(25, d)) * 3
    assert np.allclose(ours.predict_proba(X_test), sk.predict_proba(X_test), rtol=1e-7, atol=1e-10)


def test_float_shrinkage_matches_scikit_learn_and_its_endpoints():
    X, y = load_iris()
    for a in (0.0, 0.3, 1.0):
        ours = GaussianDiscriminantAnalysis("tied", shrinkage=a).fit(X, y)
        sk = LinearDiscriminantAnalysis(solver="lsqr", shrinkage=a).fit(X, y)
        assert np.allclose(ours.covariances_, sk.covariance_, rtol=1e-10, atol=1e-12)
    plain = GaussianDiscriminantAnalysis("full").fit(X, y)
    zero = GaussianDiscriminantAnalysis("full", shrinkage=0.0).fit(X, y)
    assert np.allclose(plain.covariances_, zero.covariances_)
    one = GaussianDiscriminantAnalysis("full", shrinkage=1.0).fit(X, y)
    traces = np.trace(plain.covariances_, axis1=1, axis2=2) / 4
    assert np.allclose(one.covariances_, traces[:, None, None] * np.eye(4))


def test_shrinkage_fits_where_the_mle_is_singular():
    rng = np.random.default_rng(0)
    X, y = rng.normal(size=(20, 30)), np.repeat([0, 1], 10)
    with pytest.raises(ValueError, match="singular"):
        GaussianDiscriminantAnalysis("full").fit(X, y)
    model = GaussianDiscriminantAnalysis("full", shrinkage="ledoit-wolf").fit(X, y)
    assert np.all(np.isfinite(model.predict_proba(X)))


def test_shrinkage_rejects_bad_values():
    X, y = load_iris()
    for bad, err in [("oas", ValueError), (1.5, ValueError), (-0.1, ValueError), ([0.1], TypeError)]:
        with pytest.raises(err):
            GaussianDiscriminantAnalysis("tied", shrinkage=bad).fit(X, y)
    with pytest.raises(ValueError, match="reg_covar"):
        GaussianDiscriminantAnalysis("diag", shrinkage=0.2).fit(X, y)


def test_class_gaussians_is_fit_class_gaussians_on_split_rows():
    X, y = load_iris()
    members = [X[y == k] for k in range(3)]
    for ct in ("full", "tied", "diag", "spherical"):
        a = discriminant.class_gaussians(members, ct)
        b = discriminant.fit_class_gaussians(X, y, ct)
        for u, v in zip(a, b):
            assert np.allclose(u, v, rtol=1e-12, atol=1e-15)
    with pytest.raises(TypeError, match="list"):
        discriminant.class_gaussians(X, "full")
    with pytest.raises(ValueError, match="columns"):
        discriminant.class_gaussians([X[:5], X[:5, :2]], "full")


# ------------------------------------- the scikit-learn contract, with shrinkage --


@parametrize_with_checks([
    GaussianDiscriminantAnalysis("tied", shrinkage="ledoit-wolf"),
    GaussianDiscriminantAnalysis("full", shrinkage=0.3),
])
def test_sklearn_estimator_contract_with_shrinkage(estimator, check):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        check(estimator)
