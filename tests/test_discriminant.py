"""lib.discriminant: closed forms, scikit-learn and scipy cross-checks, validation.

Correspondences with scikit-learn (verified here, on Iris and on random data):

* ``QuadraticDiscriminantAnalysis`` (QDA): the installed scikit-learn (1.9.1
  when this was written) estimates each class covariance with the
  maximum-likelihood denominator ``n_k``, exactly like
  ``covariance_type="full"``.  Older releases divided by ``n_k - 1``
  (scikit-learn issue #15640 discusses the mismatch with LDA's ``n_k``; pull
  request #33626 made the solvers consistent).  The test accepts either,
  measures which one is in use, and then compares posteriors after rescaling
  our covariances by the same factor, so the correspondence is exact in both
  cases.
* ``LinearDiscriminantAnalysis(solver="lsqr"|"eigen", store_covariance=True)``:
  ``covariance_`` is ``sum_k priors_[k] * S_k`` with ``S_k`` the biased (``/n_k``)
  class covariance.  With the default priors ``n_k / n`` this is the pooled
  within-class MLE ``(1/n) sum_i (x_i - mu_{y_i})(x_i - mu_{y_i})^T`` of
  ``covariance_type="tied"``.  (With user-given priors scikit-learn weights
  the class covariances by those priors; we keep the MLE.)
* ``GaussianNB(var_smoothing=s)``: ``var_`` is the biased class variance plus
  ``epsilon = s * max_j Var(X[:, j])``; ``covariance_type="diag"`` with
  ``reg_covar=epsilon`` gives the same model.
"""

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.special import expit
from scipy.stats import multivariate_normal
from sklearn.discriminant_analysis import LinearDiscriminantAnalysis, QuadraticDiscriminantAnalysis
from sklearn.exceptions import NotFittedError
from sklearn.naive_bayes import GaussianNB
from sklearn.utils.estimator_checks import parametrize_with_checks

from lib import discriminant, gaussian
from lib.datasets import load_iris
from lib.discriminant import GaussianDiscriminantAnalysis as GDA

TYPES = ("full", "tied", "diag", "spherical")


def _random_data(seed, n_per_class=(40, 25, 60), d=3):
    """Gaussian classes with different means and covariances, unequal class sizes."""
    rng = np.random.default_rng(seed)
    X, y = [], []
    for k, n_k in enumerate(n_per_class):
        A = rng.normal(size=(d, d))
        X.append(rng.normal(size=d) * 3 + rng.normal(size=(n_k, d)) @ A)
        y.append(np.full(n_k, k))
    return np.vstack(X), np.concatenate(y)


DATASETS = {
    "iris": load_iris(),
    "iris2": load_iris(features=[0, 1]),
    "random": _random_data(0),
}


# ----------------------------------------------------------- closed forms --


def test_mle_closed_forms_on_a_hand_sized_example():
    X = np.array([[0.0, 0.0], [2.0, 0.0], [0.0, 2.0], [5.0, 5.0], [7.0, 5.0]])
    y = np.array([0, 0, 0, 1, 1])
    priors, means, cov = discriminant.fit_class_gaussians(X, y, "full")
    np.testing.assert_allclose(priors, [0.6, 0.4])
    np.testing.assert_allclose(means, [[2 / 3, 2 / 3], [6.0, 5.0]])
    # class 0: deviations (-2/3,-2/3), (4/3,-2/3), (-2/3,4/3); divide by n_0 = 3
    np.testing.assert_allclose(cov[0], [[8 / 9, -4 / 9], [-4 / 9, 8 / 9]])
    np.testing.assert_allclose(cov[1], [[1.0, 0.0], [0.0, 0.0]])
    _, _, tied = discriminant.fit_class_gaussians(X, y, "tied")
    np.testing.assert_allclose(tied, 0.6 * cov[0] + 0.4 * cov[1])
    _, _, diag = discriminant.fit_class_gaussians(X, y, "diag")
    np.testing.assert_allclose(diag, [[8 / 9, 8 / 9], [1.0, 0.0]])
    _, _, sph = discriminant.fit_class_gaussians(X, y, "spherical")
    np.testing.assert_allclose(sph, [8 / 9, 0.5])


@pytest.mark.parametrize("name", list(DATASETS))
def test_mle_matches_numpy_per_class_estimates(name):
    X, y = DATASETS[name]
    classes = np.unique(y)
    n = len(y)
    priors, means, full = discriminant.fit_class_gaussians(X, y, "full")
    for k, c in enumerate(classes):
        Xk = X[y == c]
        assert priors[k] == pytest.approx(len(Xk) / n)
        np.testing.assert_allclose(means[k], Xk.mean(axis=0), rtol=1e-12)
        np.testing.assert_allclose(full[k], np.cov(Xk.T, bias=True), rtol=1e-10, atol=1e-12)
    _, _, tied = discriminant.fit_class_gaussians(X, y, "tied")
    resid = X - means[np.searchsorted(classes, y)]
    np.testing.assert_allclose(tied, resid.T @ resid / n, rtol=1e-10, atol=1e-12)
    # the pooled within-class covariance is NOT the total covariance of X
    assert not np.allclose(tied, np.cov(X.T, bias=True), rtol=1e-3)
    _, _, diag = discriminant.fit_class_gaussians(X, y, "diag")
    np.testing.assert_allclose(diag, np.stack([np.diag(c) for c in full]), rtol=1e-10)
    _, _, sph = discriminant.fit_class_gaussians(X, y, "spherical")
    np.testing.assert_allclose(sph, [np.trace(c) / X.shape[1] for c in full], rtol=1e-10)


@pytest.mark.parametrize("covariance_type", TYPES)
def test_mle_maximises_the_log_likelihood(covariance_type):
    X, y = DATASETS["random"]
    priors, means, cov = discriminant.fit_class_gaussians(X, y, covariance_type)
    yi = np.searchsorted(np.unique(y), y)

    def loglik(p, m, c):
        return discriminant.log_joint(X, p, m, c, covariance_type)[np.arange(len(y)), yi].sum()

    best = loglik(priors, means, cov)
    rng = np.random.default_rng(1)
    for _ in range(20):
        p = priors * np.exp(0.05 * rng.normal(size=priors.shape))
        assert loglik(p / p.sum(), means, cov) < best
        assert loglik(priors, means + 0.05 * rng.normal(size=means.shape), cov) < best
        scale = np.exp(0.05 * rng.normal())
        assert loglik(priors, means, cov * scale) < best


def test_reg_covar_is_added_to_the_diagonal():
    X, y = DATASETS["random"]
    for ct in TYPES:
        _, _, c0 = discriminant.fit_class_gaussians(X, y, ct)
        _, _, c1 = discriminant.fit_class_gaussians(X, y, ct, reg_covar=0.25)
        diff = c1 - c0
        if ct == "full":
            np.testing.assert_allclose(diff, np.broadcast_to(0.25 * np.eye(3), diff.shape), atol=1e-12)
        elif ct == "tied":
            np.testing.assert_allclose(diff, 0.25 * np.eye(3), atol=1e-12)
        else:
            np.testing.assert_allclose(diff, 0.25, atol=1e-12)


def test_n_parameters_formula():
    d, K = 4, 3
    assert discriminant.n_parameters(d, K, "full") == 2 + 12 + 3 * 10
    assert discriminant.n_parameters(d, K, "tied") == 2 + 12 + 10
    assert discriminant.n_parameters(d, K, "diag") == 2 + 12 + 12
    assert discriminant.n_parameters(d, K, "spherical") == 2 + 12 + 3
    with pytest.raises(ValueError, match="covariance_type"):
        discriminant.n_parameters(2, 2, "banana")


# ------------------------------------------------- against scipy.stats --


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), d=st.integers(1, 4), K=st.integers(2, 4))
def test_log_joint_matches_scipy(seed, d, K):
    rng = np.random.default_rng(seed)
    X = rng.normal(scale=2, size=(7, d))
    means = rng.normal(size=(K, d))
    A = rng.normal(size=(K, d, d))
    full = A @ A.transpose(0, 2, 1) + 0.3 * np.eye(d)
    priors = rng.dirichlet(np.ones(K))
    layouts = {
        "full": full,
        "tied": full[0],
        "diag": np.stack([np.diag(c) for c in full]),
        "spherical": full[:, 0, 0],
    }
    for ct, params in layouts.items():
        dense = gaussian.full_covariances(params, ct, K, d)
        want = np.column_stack(
            [np.log(priors[k]) + multivariate_normal(means[k], dense[k]).logpdf(X).reshape(-1) for k in range(K)]
        )
        got = discriminant.log_joint(X, priors, means, params, ct)
        np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-10, err_msg=ct)
        post = discriminant.posterior(X, priors, means, params, ct)
        np.testing.assert_allclose(post.sum(axis=1), 1.0, rtol=1e-12)
        np.testing.assert_allclose(
            post, np.exp(want) / np.exp(want).sum(axis=1, keepdims=True), rtol=1e-8, atol=1e-12
        )


def test_posterior_is_finite_far_from_every_mean():
    X, y = DATASETS["iris"]
    model = GDA("full").fit(X, y)
    far = np.array([[1e3, -1e3, 1e3, 1e3], [-500.0, 0.0, 0.0, 0.0]])
    with np.errstate(under="ignore"):
        assert np.all(np.exp(model._joint(far)) == 0.0)  # the naive ratio would be 0/0
    proba = model.predict_proba(far)
    assert np.all(np.isfinite(proba))
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)


# -------------------------------------------------- against scikit-learn --


@pytest.mark.parametrize("name", list(DATASETS))
def test_full_matches_sklearn_qda(name):
    X, y = DATASETS[name]
    ours = GDA("full").fit(X, y)
    sk = QuadraticDiscriminantAnalysis(store_covariance=True).fit(X, y)
    counts = ours.class_counts_
    ratio = np.array([np.mean(np.asarray(sk.covariance_[k]) / ours.covariances_[k]) for k in range(len(counts))])
    # scikit-learn divides by n_k (>= 1.9) or by n_k - 1 (older releases): find which, exactly
    if np.allclose(ratio, 1.0, rtol=1e-9):
        factor = np.ones_like(ratio)
    else:
        factor = counts / (counts - 1.0)
        np.testing.assert_allclose(ratio, factor, rtol=1e-9)
    for k in range(len(counts)):
        np.testing.assert_allclose(sk.covariance_[k], ours.covariances_[k] * factor[k], rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(sk.means_, ours.means_, rtol=1e-12)
    np.testing.assert_allclose(sk.priors_, ours.priors_, rtol=1e-12)
    matched = GDA("full").fit(X, y)
    matched.covariances_ = matched.covariances_ * factor[:, None, None]
    np.testing.assert_allclose(matched.predict_proba(X), sk.predict_proba(X), rtol=1e-7, atol=1e-10)
    np.testing.assert_array_equal(matched.predict(X), sk.predict(X))


@pytest.mark.parametrize("solver", ["lsqr", "eigen"])
@pytest.mark.parametrize("name", list(DATASETS))
def test_tied_matches_sklearn_lda(name, solver):
    X, y = DATASETS[name]
    ours = GDA("tied").fit(X, y)
    sk = LinearDiscriminantAnalysis(solver=solver, store_covariance=True).fit(X, y)
    np.testing.assert_allclose(sk.covariance_, ours.covariances_, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(ours.predict_proba(X), sk.predict_proba(X), rtol=1e-7, atol=1e-10)
    np.testing.assert_array_equal(ours.predict(X), sk.predict(X))


@pytest.mark.parametrize("var_smoothing", [1e-9, 1e-2])
@pytest.mark.parametrize("name", list(DATASETS))
def test_diag_matches_sklearn_gaussian_nb(name, var_smoothing):
    X, y = DATASETS[name]
    epsilon = var_smoothing * np.max(np.var(X, axis=0))  # GaussianNB's smoothing
    ours = GDA("diag", reg_covar=epsilon).fit(X, y)
    sk = GaussianNB(var_smoothing=var_smoothing).fit(X, y)
    np.testing.assert_allclose(sk.var_, ours.covariances_, rtol=1e-10)
    np.testing.assert_allclose(sk.theta_, ours.means_, rtol=1e-12)
    np.testing.assert_allclose(ours.predict_proba(X), sk.predict_proba(X), rtol=1e-7, atol=1e-10)


def test_user_priors_match_sklearn_qda_with_the_same_priors():
    X, y = DATASETS["random"]
    priors = np.array([0.2, 0.5, 0.3])
    ours = GDA("full", priors=priors).fit(X, y)
    sk = QuadraticDiscriminantAnalysis(priors=priors, store_covariance=True).fit(X, y)
    factor = np.mean(np.asarray(sk.covariance_[0]) / ours.covariances_[0])
    counts = ours.class_counts_
    if not np.isclose(factor, 1.0, rtol=1e-9):
        ours.covariances_ = ours.covariances_ * (counts / (counts - 1.0))[:, None, None]
    np.testing.assert_allclose(ours.priors_, priors)
    np.testing.assert_allclose(ours.predict_proba(X), sk.predict_proba(X), rtol=1e-7, atol=1e-10)


# ------------------------------------------------ the logistic link (LDA) --


def test_logistic_parameters_on_two_iris_classes():
    X, y = load_iris(features=[0, 1])
    mask = y > 0  # versicolor vs virginica: overlapping classes
    model = GDA("tied").fit(X[mask], y[mask])
    w, b = model.logistic_parameters()
    np.testing.assert_allclose(model.predict_proba(X[mask])[:, 1], expit(X[mask] @ w + b), rtol=1e-10)
    np.testing.assert_allclose(model.decision_function(X[mask]), X[mask] @ w + b, rtol=1e-9, atol=1e-9)


@settings(max_examples=40, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    d=st.integers(1, 5),
    prior=st.floats(0.02, 0.98),
)
def test_tied_binary_posterior_is_a_sigmoid(seed, d, prior):
    rng = np.random.default_rng(seed)
    means = rng.normal(scale=2, size=(2, d))
    A = rng.normal(size=(d, d))
    cov = A @ A.T + 0.2 * np.eye(d)
    priors = np.array([1 - prior, prior])
    X = rng.normal(scale=3, size=(30, d))
    w, b = discriminant.logistic_parameters(priors, means, cov)
    post = discriminant.posterior(X, priors, means, cov, "tied")[:, 1]
    np.testing.assert_allclose(post, expit(X @ w + b), rtol=1e-8, atol=1e-12)
    # the formula of the book, term by term (with an explicit inverse only in the test)
    P = np.linalg.inv(cov)
    b_book = -0.5 * means[1] @ P @ means[1] + 0.5 * means[0] @ P @ means[0] + np.log(prior / (1 - prior))
    np.testing.assert_allclose(w, P @ (means[1] - means[0]), rtol=1e-6, atol=1e-8)
    assert b == pytest.approx(b_book, rel=1e-6, abs=1e-8)


def test_string_labels_work_and_logistic_uses_classes_order():
    X, y = DATASETS["random"]
    mask = y < 2
    names = np.array(["zebra", "aardvark"])[y[mask]]  # sorted classes: aardvark, zebra
    model = GDA("tied").fit(X[mask], names)
    assert list(model.classes_) == ["aardvark", "zebra"]
    w, b = model.logistic_parameters()
    np.testing.assert_allclose(model.predict_proba(X[mask])[:, 1], expit(X[mask] @ w + b), rtol=1e-9)
    assert set(model.predict(X[mask])) <= {"aardvark", "zebra"}
    Xs, ys = model.sample(10, random_state=0)
    assert ys.dtype.kind == "U" and set(ys) <= {"aardvark", "zebra"}


def test_tied_multiclass_boundaries_are_linear():
    X, y = DATASETS["random"]
    model = GDA("tied").fit(X, y)
    # log p(x, k) - log p(x, l) is affine in x: its second differences vanish
    rng = np.random.default_rng(3)
    a, b = rng.normal(size=(2, 3))
    pts = np.array([a, b, 2 * b - a])  # a, b and the reflection: f(a) - 2 f(b) + f(2b - a) = 0 if affine
    J = model.decision_function(pts)
    diffs = J[:, 1:] - J[:, :1]
    np.testing.assert_allclose(diffs[0] - 2 * diffs[1] + diffs[2], 0.0, atol=1e-8)
    # ...but not for QDA
    Jq = GDA("full").fit(X, y).decision_function(pts)
    dq = Jq[:, 1:] - Jq[:, :1]
    assert np.max(np.abs(dq[0] - 2 * dq[1] + dq[2])) > 1e-3


def test_logistic_parameters_errors():
    X, y = DATASETS["random"]
    with pytest.raises(ValueError, match='covariance_type="tied"'):
        GDA("full").fit(X[y < 2], y[y < 2]).logistic_parameters()
    with pytest.raises(ValueError, match="exactly 2 classes"):
        GDA("tied").fit(X, y).logistic_parameters()
    with pytest.raises(NotFittedError):
        GDA("tied").logistic_parameters()
    with pytest.raises(ValueError, match="one shared"):
        discriminant.logistic_parameters([0.5, 0.5], np.zeros((2, 2)), np.ones((2, 2, 2)))


# ----------------------------------------------------------- predictions --


@pytest.mark.parametrize("covariance_type", TYPES)
def test_prediction_methods_are_consistent(covariance_type):
    X, y = DATASETS["random"]
    model = GDA(covariance_type).fit(X, y)
    log_p = model.predict_log_proba(X)
    np.testing.assert_allclose(np.exp(log_p), model.predict_proba(X))
    np.testing.assert_allclose(model.predict_proba(X).sum(axis=1), 1.0)
    np.testing.assert_array_equal(model.predict(X), model.classes_[np.argmax(log_p, axis=1)])
    assert model.score(X, y) == pytest.approx(np.mean(model.predict(X) == y))
    # score_samples is the log density of the Gaussian mixture p(x) = sum_k pi_k N(x | mu_k, Sigma_k)
    dense = gaussian.full_covariances(model.covariances_, covariance_type, 3, 3)
    mix = sum(model.priors_[k] * multivariate_normal(model.means_[k], dense[k]).pdf(X) for k in range(3))
    np.testing.assert_allclose(model.score_samples(X), np.log(mix), rtol=1e-9)
    np.testing.assert_allclose(log_p, model._joint(X) - model.score_samples(X)[:, None], atol=1e-12)


@pytest.mark.parametrize("covariance_type", TYPES)
@pytest.mark.parametrize("d", [3, 23])  # 23 > 20: full covariances take the stacked-Cholesky route
def test_estimator_fast_path_equals_the_reference_log_joint(covariance_type, d):
    """predict_* score by lib/_fastpath.py; the pure log_joint (lib.gaussian.log_prob) is the reference."""
    X, y = _random_data(1, n_per_class=(60, 45, 80), d=d)
    model = GDA(covariance_type, priors=[0.5, 0.2, 0.3]).fit(X, y)
    rng = np.random.default_rng(2)
    new = np.vstack([X[:50] + rng.normal(size=(50, d)), 40.0 * rng.normal(size=(5, d))])  # some far away
    want = discriminant.log_joint(new, model.priors_, model.means_, model.covariances_, covariance_type)
    np.testing.assert_allclose(model._joint(new), want, rtol=1e-10)
    np.testing.assert_allclose(
        model.predict_log_proba(new),
        discriminant.log_posterior(new, model.priors_, model.means_, model.covariances_, covariance_type),
        rtol=1e-9, atol=1e-9,
    )
    # a row's scores do not depend on the other rows it is scored with (up to the last bits
    # that BLAS kernels for different row counts change): the data are centred at the model's mean
    np.testing.assert_allclose(model.predict_proba(new[3:4]), model.predict_proba(new)[3:4], rtol=1e-12)


def test_split_by_class_equals_boolean_masks():
    rng = np.random.default_rng(3)
    X, y_index = rng.normal(size=(50, 2)), rng.integers(4, size=50)
    for k, rows in enumerate(discriminant._split_by_class(X, y_index, 4)):
        np.testing.assert_array_equal(rows, X[y_index == k])


def test_priors_shift_the_log_posterior_odds():
    X, y = DATASETS["random"]
    a = GDA("full", priors=[1 / 3, 1 / 3, 1 / 3]).fit(X, y)
    b = GDA("full", priors=[0.6, 0.3, 0.1]).fit(X, y)
    la, lb = a.predict_log_proba(X), b.predict_log_proba(X)
    np.testing.assert_allclose((lb[:, 1] - lb[:, 0]) - (la[:, 1] - la[:, 0]), np.log(0.3 / 0.6), atol=1e-9)
    np.testing.assert_allclose(a.covariances_, b.covariances_)  # priors do not touch the MLE


# -------------------------------------------------------------- sampling --


def test_sample_is_reproducible_and_has_the_right_moments():
    X, y = DATASETS["random"]
    model = GDA("full").fit(X, y)
    X1, y1 = model.sample(200, random_state=7)
    X2, y2 = model.sample(200, random_state=np.random.default_rng(7))
    np.testing.assert_array_equal(X1, X2)
    np.testing.assert_array_equal(y1, y2)
    assert not np.array_equal(X1, model.sample(200, random_state=8)[0])
    Xs, ys = model.sample(60000, random_state=0)
    freq = np.array([np.mean(ys == c) for c in model.classes_])
    np.testing.assert_allclose(freq, model.priors_, atol=0.01)
    for k, c in enumerate(model.classes_):
        Xk = Xs[ys == c]
        se = np.sqrt(np.diag(model.covariances_[k]) / len(Xk))
        assert np.all(np.abs(Xk.mean(axis=0) - model.means_[k]) < 5 * se)
        np.testing.assert_allclose(np.cov(Xk.T), model.covariances_[k], rtol=0.1, atol=0.05 * np.abs(model.covariances_[k]).max())


@pytest.mark.parametrize("covariance_type", ["tied", "diag", "spherical"])
def test_sample_moments_other_types(covariance_type):
    X, y = DATASETS["random"]
    model = GDA(covariance_type).fit(X, y)
    Xs, ys = model.sample(30000, random_state=1)
    dense = gaussian.full_covariances(model.covariances_, covariance_type, 3, 3)
    for k, c in enumerate(model.classes_):
        Xk = Xs[ys == c]
        np.testing.assert_allclose(np.cov(Xk.T), dense[k], rtol=0.1, atol=0.05 * np.abs(dense[k]).max())


def test_refit_on_samples_recovers_the_parameters():
    X, y = DATASETS["iris"]
    model = GDA("full").fit(X, y)
    Xs, ys = model.sample(40000, random_state=3)
    refit = GDA("full").fit(Xs, ys)
    np.testing.assert_allclose(refit.means_, model.means_, atol=0.02)
    np.testing.assert_allclose(refit.covariances_, model.covariances_, atol=0.02)


# ------------------------------------------------------------ validation --


def test_rejects_nan_and_inf():
    X, y = DATASETS["random"]
    Xbad = X.copy()
    Xbad[3, 1] = np.nan
    with pytest.raises(ValueError, match="NaN or infinite"):
        GDA().fit(Xbad, y)
    Xbad[3, 1] = np.inf
    model = GDA().fit(X, y)
    with pytest.raises(ValueError, match="NaN or infinite"):
        model.predict(Xbad)


def test_rejects_wrong_ndim_and_wrong_width():
    X, y = DATASETS["random"]
    with pytest.raises(ValueError, match="Reshape your data"):
        GDA().fit(X[:, 0], y)
    model = GDA().fit(X, y)
    with pytest.raises(ValueError, match="Reshape your data"):
        model.predict(X[0])
    with pytest.raises(ValueError, match="X has 2 features, but GaussianDiscriminantAnalysis is expecting 3"):
        model.predict(X[:, :2])
    with pytest.raises(ValueError, match="2-dimensional"):
        GDA().fit(X[None], y)


def test_rejects_a_single_class():
    X, _ = DATASETS["random"]
    with pytest.raises(ValueError, match="only 1 class"):
        GDA().fit(X, np.zeros(len(X), dtype=int))


def test_label_types():
    X, y = DATASETS["random"]
    with pytest.raises(ValueError, match="Unknown label type.*non-integer floats"):
        GDA().fit(X, y + 0.5)
    GDA().fit(X, y.astype(float))  # integral floats are fine
    mixed = np.array([1, "a"] * (len(y) // 2) + [1] * (len(y) % 2), dtype=object)
    with pytest.raises(TypeError, match="mixes label types"):
        GDA().fit(X, mixed)
    strings = np.array(["setosa", "versicolor", "virginica"])[y]
    model = GDA().fit(X, strings)
    assert list(model.classes_) == ["setosa", "versicolor", "virginica"]
    np.testing.assert_array_equal(model.predict(X), np.array(["setosa", "versicolor", "virginica"])[GDA().fit(X, y).predict(X)])
    with pytest.raises(ValueError, match="labels but X has"):
        GDA().fit(X, y[:-1])
    with pytest.raises(ValueError, match="target y is None"):
        GDA().fit(X, None)


def test_column_vector_y_is_flattened_with_a_warning():
    X, y = DATASETS["random"]
    with pytest.warns(Warning, match="column-vector y"):
        model = GDA().fit(X, y[:, None])
    np.testing.assert_allclose(model.means_, GDA().fit(X, y).means_)


def test_rejects_string_features():
    X, y = DATASETS["random"]
    with pytest.raises(TypeError, match="numbers"):
        GDA().fit(X.astype(str), y)
    obj = X.astype(object)
    obj[0, 0] = "abc"
    with pytest.raises(TypeError, match="numbers only"):
        GDA().fit(obj, y)
    with pytest.raises(TypeError, match="sparse"):
        from scipy.sparse import csr_matrix

        GDA().fit(csr_matrix(X), y)


def test_singular_covariance_messages():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(21, 3))
    y = np.array([0] * 10 + [1] * 10 + [2])  # class 2 has one sample
    with pytest.raises(ValueError, match=r"class 2 has 1 training sample.*reg_covar.*tied"):
        GDA("full").fit(X, y)
    with pytest.raises(ValueError, match=r"class 2 has only 1 training sample.*reg_covar"):
        GDA("diag").fit(X, y)
    GDA("full", reg_covar=1e-6).fit(X, y)  # the suggested fixes work
    GDA("tied").fit(X, y)
    y3 = np.array([0] * 10 + [1] * 8 + [2] * 3)  # class 2: 3 samples in 3 dimensions
    with pytest.raises(ValueError, match=r"rank at most 2 < 3.*diag"):
        GDA("full").fit(X, y3)
    GDA("diag").fit(X, y3)
    Xc = X.copy()
    Xc[y3 == 1, 2] = 4.2  # feature 2 constant within class 1
    with pytest.raises(ValueError, match=r"feature 2 has zero variance within class 1"):
        GDA("diag").fit(Xc, y3)
    GDA("tied").fit(Xc, y3)  # pooled over classes it still varies
    Xc[:, 2] = 0.1
    with pytest.raises(ValueError, match=r"feature 2 has zero variance in every class"):
        GDA("tied").fit(Xc, y3)
    Xs = X.copy()
    Xs[y3 == 0] = 1.0
    with pytest.raises(ValueError, match="identical"):
        GDA("spherical").fit(Xs, y3)
    Xl = np.column_stack([X[:, :2], X[:, 0] + X[:, 1]])  # collinear features
    with pytest.raises(ValueError, match="not positive definite"):
        GDA("full").fit(np.vstack([Xl] * 3), np.tile(y3, 3))


def test_rejects_bad_priors_and_reg_covar():
    X, y = DATASETS["random"]
    with pytest.raises(ValueError, match="must sum to 1"):
        GDA(priors=[0.5, 0.5, 0.5]).fit(X, y)
    with pytest.raises(ValueError, match="one prior per class"):
        GDA(priors=[0.5, 0.5]).fit(X, y)
    with pytest.raises(ValueError, match="strictly positive"):
        GDA(priors=[0.5, 0.5, 0.0]).fit(X, y)
    with pytest.raises(ValueError, match="reg_covar must be a finite number >= 0"):
        GDA(reg_covar=-1e-3).fit(X, y)
    with pytest.raises(ValueError, match="covariance_type must be one of"):
        GDA(covariance_type="banana").fit(X, y)
    with pytest.raises(ValueError, match="priors has 2 entries but means has 3"):
        discriminant.log_joint(X, [0.5, 0.5], np.zeros((3, 3)), np.ones(3), "spherical")


def test_unfitted_and_sample_validation():
    with pytest.raises(NotFittedError):
        GDA().predict_proba(np.zeros((2, 2)))
    with pytest.raises(NotFittedError):
        GDA().sample(3)
    X, y = DATASETS["random"]
    model = GDA().fit(X, y)
    with pytest.raises(ValueError, match="n_samples must be an integer >= 1"):
        model.sample(0)
    with pytest.raises(TypeError, match="random_state"):
        model.sample(3, random_state="seed")


def test_fit_does_not_modify_inputs_and_returns_self():
    X, y = DATASETS["random"]
    X0, y0 = X.copy(), y.copy()
    model = GDA()
    assert model.fit(X, y) is model
    np.testing.assert_array_equal(X, X0)
    np.testing.assert_array_equal(y, y0)


# ------------------------------------------- the scikit-learn contract --


@parametrize_with_checks([GDA(covariance_type=t) for t in TYPES])
def test_sklearn_estimator_contract(estimator, check):
    # No check is skipped for lib's own reasons.  scikit-learn itself skips two
    # (they need optional packages): the array-API check (SCIPY_ARRAY_API unset)
    # and the pandas check (pandas not installed).
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        check(estimator)


def test_log_joint_tied_validation_and_agreement_with_lib_gaussian():
    X, y = DATASETS["random"]
    priors, means, cov = discriminant.fit_class_gaussians(X, y, "tied")
    # the one-solve tied path agrees with lib.gaussian's generic one
    np.testing.assert_allclose(
        discriminant.log_joint(X, priors, means, cov, "tied"),
        np.log(priors) + gaussian.log_prob(X, means, cov, "tied"),
        rtol=1e-12,
    )
    with pytest.raises(ValueError, match=r"one finite \(3, 3\) matrix"):
        discriminant.log_joint(X, priors, means, np.ones((3, 3, 3)), "tied")
    with pytest.raises(ValueError, match="not positive definite"):
        discriminant.log_joint(X, priors, means, -np.eye(3), "tied")
    with pytest.raises(ValueError, match="X has 2 feature"):
        discriminant.log_joint(X[:, :2], priors, means, cov, "tied")


def test_priors_message_names_the_classes_plainly():
    X, y = DATASETS["random"]
    with pytest.raises(ValueError, match=r"classes \[0, 1, 2\]"):
        GDA(priors=[0.5, 0.5]).fit(X, y)


# ---------------------------------------------------------- linear_rule_error --


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_linear_rule_error_matches_monte_carlo(seed):
    rng = np.random.default_rng(seed)
    d = 3
    means = rng.normal(size=(2, d))
    A = rng.normal(size=(2, d, d))
    covs = A @ np.swapaxes(A, 1, 2) + 0.2 * np.eye(d)
    w, b, priors = rng.normal(size=d), float(rng.normal()), np.array([0.3, 0.7])
    m = 400_000
    labels = (rng.random(m) < priors[1]).astype(int)
    chol = np.linalg.cholesky(covs)
    X = means[labels] + np.einsum("nij,nj->ni", chol[labels], rng.standard_normal((m, d)))
    empirical = np.mean((X @ w + b > 0).astype(int) != labels)
    exact = discriminant.linear_rule_error(w, b, means, covs, priors)
    assert abs(exact - empirical) < 4 * np.sqrt(exact * (1 - exact) / m)


def test_linear_rule_error_of_the_bayes_rule_is_phi_of_half_the_distance():
    cov = np.array([[1.0, 0.6], [0.6, 1.0]])
    means = np.array([[0.0, 0.0], [2.0, -1.0]])
    w, b = discriminant.logistic_parameters([0.5, 0.5], means, cov)
    delta = np.sqrt((means[1] - means[0]) @ np.linalg.solve(cov, means[1] - means[0]))
    assert np.isclose(discriminant.linear_rule_error(w, b, means, cov), norm_cdf(-delta / 2), rtol=1e-12)
    # any other rule does worse
    assert discriminant.linear_rule_error(w + [0.3, 0.0], b, means, cov) > norm_cdf(-delta / 2)


def norm_cdf(t):
    from scipy.stats import norm

    return float(norm.cdf(t))


def test_linear_rule_error_constant_rule_and_errors():
    means = np.zeros((2, 2))
    assert discriminant.linear_rule_error([0.0, 0.0], 1.0, means, np.eye(2), [0.2, 0.8]) == pytest.approx(0.2)
    assert discriminant.linear_rule_error([0.0, 0.0], -1.0, means, np.eye(2), [0.2, 0.8]) == pytest.approx(0.8)
    with pytest.raises(ValueError, match="shape"):
        discriminant.linear_rule_error([1.0], 0.0, means, np.eye(2))
    with pytest.raises(ValueError, match="exactly 2"):
        discriminant.linear_rule_error([1.0, 0.0], 0.0, np.zeros((3, 2)), np.eye(2))
    with pytest.raises(ValueError, match="covariance"):
        discriminant.linear_rule_error([1.0, 0.0], 0.0, means, np.eye(3))
    with pytest.raises(ValueError, match="semidefinite"):
        discriminant.linear_rule_error([1.0, 0.0], 0.0, means, -np.eye(2))
    with pytest.raises(TypeError, match="real number"):
        discriminant.linear_rule_error([1.0, 0.0], "0", means, np.eye(2))
    with pytest.raises(ValueError, match="sum to 1"):
        discriminant.linear_rule_error([1.0, 0.0], 0.0, means, np.eye(2), [0.5, 0.6])
