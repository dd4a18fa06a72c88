"""The chapter 3 exercise checks accept right answers and name typical mistakes."""

import numpy as np
import pytest
from scipy.special import logsumexp
from scipy.stats import multivariate_normal

import lib.checks
from lib import discriminant
from lib.checks import ch03
from check_helpers import assert_fails
from check_helpers import trusted_helpers  # noqa: E402,F401 - a fixture

pytestmark = pytest.mark.usefixtures("trusted_helpers")


def test_checks_are_exported():
    for name in ch03.__all__:
        assert getattr(lib.checks, name) is getattr(ch03, name)


# ------------------------------------------------------------------ mle --


def _mle(X, y, *, ddof=0, prior="freq", pooled="within"):
    K = int(y.max()) + 1
    counts = np.bincount(y, minlength=K).astype(float)
    priors = {"freq": counts / len(y), "counts": counts, "uniform": np.full(K, 1 / K)}[prior]
    means = np.stack([X[y == k].mean(axis=0) for k in range(K)])
    covs = np.stack([np.cov(X[y == k].T, ddof=ddof).reshape(X.shape[1], X.shape[1]) for k in range(K)])
    if pooled == "within":
        R = X - means[y]
        pool = R.T @ R / len(y)
    elif pooled == "total":
        pool = np.cov(X.T, bias=True)
    elif pooled == "average":
        pool = np.cov(X.T, bias=True) * 0 + np.stack(
            [np.cov(X[y == k].T, bias=True) for k in range(K)]
        ).mean(axis=0)
    else:  # unbiased pooled
        R = X - means[y]
        pool = R.T @ R / (len(y) - K)
    return priors, means, covs, pool


def test_gda_mle_right_answer_passes():
    result = lib.checks.gda_mle(_mle)
    assert result.passed, result
    assert "Passed" in result.message


@pytest.mark.parametrize(
    "kwargs, fragments",
    [
        ({"ddof": 1}, ["n_k - 1", "bias=True"]),
        ({"prior": "counts"}, ["divide them by n"]),
        ({"prior": "uniform"}, ["uniform", "n_k / n"]),
        ({"pooled": "total"}, ["TOTAL covariance", "within"]),
        ({"pooled": "average"}, ["plain average", "n_k / n"]),
        ({"pooled": "unbiased"}, ["n - K"]),
    ],
)
def test_gda_mle_names_typical_mistakes(kwargs, fragments):
    assert_fails(lib.checks.gda_mle(lambda X, y: _mle(X, y, **kwargs)), *fragments)


def test_gda_mle_uniform_prior_mistake_only_shows_with_unequal_sizes():
    # the first case has equal class sizes; the mistake must still be caught, on a later case
    result = lib.checks.gda_mle(lambda X, y: _mle(X, y, prior="uniform"))
    assert_fails(result, "same size")


def test_gda_mle_other_mistakes():
    def uncentred(X, y):
        p, m, c, s = _mle(X, y)
        c = np.stack([X[y == k].T @ X[y == k] / np.sum(y == k) for k in range(len(p))])
        return p, m, c, s

    assert_fails(lib.checks.gda_mle(uncentred), "subtract the class mean")

    def overall_mean(X, y):
        p, m, c, s = _mle(X, y)
        return p, np.broadcast_to(X.mean(axis=0), m.shape), c, s

    assert_fails(lib.checks.gda_mle(overall_mean), "overall mean")
    assert_fails(lib.checks.gda_mle(lambda X, y: _mle(X, y)[:3]), "tuple of length 3")
    assert_fails(lib.checks.gda_mle(lambda X, y: tuple(a.T for a in _mle(X, y)[:2]) + _mle(X, y)[2:]), "transposed")

    def last_axis(X, y):  # np.dstack-style stacking: shape (d, d, K); first case has K = d = 2
        p, m, c, s = _mle(X, y)
        return p, m, np.moveaxis(c, 0, 2), s

    assert_fails(lib.checks.gda_mle(last_axis), "last axis", "covariances[k]")

    def summed(X, y):
        p, m, c, s = _mle(X, y)
        return p, m, c, c.sum(axis=0)

    assert_fails(lib.checks.gda_mle(summed), "sum of the class covariances", "n_k / n")


def test_gda_mle_lists_are_refused_and_nan_is_explained():
    # the statement asks for arrays of given shapes: lists fail, and say so (issue 44)
    def as_lists(X, y):
        return tuple(np.asarray(a).tolist() for a in _mle(X, y))

    assert_fails(lib.checks.gda_mle(as_lists), "returned a list", "numpy array")

    def empty_class(X, y):
        p, m, c, s = _mle(X, y)
        m = m.copy()
        m[-1] = np.nan  # what X[y == k].mean(axis=0) gives for a class with no rows
        return p, m, c, s

    result = lib.checks.gda_mle(empty_class)
    assert_fails(result, "NaN", "no rows")
    assert "logsumexp" not in result.message


def test_gda_mle_messages_do_not_reveal_the_answer():
    rng = np.random.default_rng(301)  # the check's own first data set
    from lib.checks.ch03 import _labelled_data

    X, y = _labelled_data(rng, (30, 30), 2)
    _, _, covs = discriminant.fit_class_gaussians(X, y, "full")
    for kwargs in [{"ddof": 1}, {"pooled": "total"}, {"prior": "counts"}]:
        message = lib.checks.gda_mle(lambda X, y: _mle(X, y, **kwargs)).message
        for value in covs.ravel():
            assert f"{value:.3f}" not in message


# ------------------------------------------------------------ posterior --


def _posterior(X, priors, means, covs, *, mode="log"):
    K = len(priors)
    logs = np.column_stack([multivariate_normal(means[k], covs[k]).logpdf(X) for k in range(K)])
    if mode == "noprior":
        joint = logs
    else:
        joint = logs + np.log(priors)
    if mode == "naive":
        p = np.exp(joint)
        return p / p.sum(axis=1, keepdims=True)
    if mode == "unnormalised":
        return np.exp(joint)
    if mode == "logout":
        return joint - logsumexp(joint, axis=1, keepdims=True)
    return np.exp(joint - logsumexp(joint, axis=1, keepdims=True))


def test_gda_posterior_right_answer_passes():
    assert lib.checks.gda_posterior(_posterior).passed


@pytest.mark.parametrize(
    "mode, fragments",
    [
        ("naive", ["far from every class mean", "logsumexp"]),
        ("unnormalised", ["do not sum to one", "joint densities"]),
        ("noprior", ["ignores the priors"]),
        ("logout", ["log-probabilities"]),
    ],
)
def test_gda_posterior_names_typical_mistakes(mode, fragments):
    assert_fails(lib.checks.gda_posterior(lambda *a: _posterior(*a, mode=mode)), *fragments)


def test_gda_posterior_wrong_density_and_shape():
    def no_logdet(X, priors, means, covs):
        K = len(priors)
        q = np.column_stack(
            [np.einsum("ij,jk,ik->i", X - means[k], np.linalg.inv(covs[k]), X - means[k]) for k in range(K)]
        )
        joint = np.log(priors) - 0.5 * q
        return np.exp(joint - logsumexp(joint, axis=1, keepdims=True))

    assert_fails(lib.checks.gda_posterior(no_logdet), "dropped the log-determinant")
    assert_fails(lib.checks.gda_posterior(lambda *a: _posterior(*a).T), "transposed")
    assert_fails(lib.checks.gda_posterior(lambda *a: _posterior(*a).argmax(axis=1)), "one number per point")


@pytest.mark.parametrize(
    "mistake, fragments",
    [("no_half", ["factor 1/2"]), ("covariance_not_inverse", ["instead of its inverse"])],
)
def test_gda_posterior_names_mistakes_in_the_gaussian(mistake, fragments):
    def wrong(X, priors, means, covs):
        K = len(priors)
        logdet = np.array([np.linalg.slogdet(c)[1] for c in covs])
        M = covs if mistake == "covariance_not_inverse" else np.linalg.inv(covs)
        q = np.column_stack([np.einsum("ij,jk,ik->i", X - means[k], M[k], X - means[k]) for k in range(K)])
        half = 1.0 if mistake == "no_half" else 0.5
        joint = np.log(priors) - 0.5 * logdet - half * q
        return np.exp(joint - logsumexp(joint, axis=1, keepdims=True))

    assert_fails(lib.checks.gda_posterior(wrong), *fragments)


def test_gda_posterior_names_the_sign_of_the_log_determinant():
    def plus_logdet(X, priors, means, covs):
        K = len(priors)
        logdet = np.array([np.linalg.slogdet(c)[1] for c in covs])
        q = np.column_stack(
            [np.einsum("ij,jk,ik->i", X - means[k], np.linalg.inv(covs[k]), X - means[k]) for k in range(K)]
        )
        joint = np.log(priors) + 0.5 * logdet - 0.5 * q
        return np.exp(joint - logsumexp(joint, axis=1, keepdims=True))

    assert_fails(lib.checks.gda_posterior(plus_logdet), "wrong sign", "-1/2 ln det")


def test_gda_posterior_names_a_variance_used_as_a_standard_deviation():
    from scipy.stats import norm

    def var_as_sd(X, priors, means, covs):
        K, d = len(priors), X.shape[1]
        if d > 1:
            return _posterior(X, priors, means, covs)
        joint = np.log(priors) + np.column_stack(
            [norm.logpdf(X[:, 0], means[k, 0], covs[k, 0, 0]) for k in range(K)]
        )
        return np.exp(joint - logsumexp(joint, axis=1, keepdims=True))

    assert_fails(lib.checks.gda_posterior(var_as_sd), "standard deviation", "square root")


def test_gda_posterior_refuses_lists():
    # the statement asks for an array of shape (n, K): a list of rows fails, and says so (issue 44)
    assert_fails(lib.checks.gda_posterior(lambda *a: _posterior(*a).tolist()), "returned a list", "numpy array")


# ------------------------------------------------------------- logistic --


def _logistic(priors, means, cov, *, mistake=None):
    P = np.linalg.inv(cov)
    w = P @ (means[1] - means[0])
    q = -0.5 * means[1] @ P @ means[1] + 0.5 * means[0] @ P @ means[0]
    lr = np.log(priors[1] / priors[0])
    if mistake == "sign_w":
        w = -w
    if mistake == "no_prior":
        return w, q
    if mistake == "flipped_prior":
        return w, q - lr
    if mistake == "quad_sign":
        return w, -q + lr
    if mistake == "difference_not_sum":
        return w, -0.5 * (means[1] - means[0]) @ w + lr
    if mistake == "swapped":
        return q + lr, w
    return w, q + lr


def test_lda_logistic_right_answer_passes_and_matches_lib():
    assert lib.checks.lda_logistic(_logistic).passed
    rng = np.random.default_rng(0)
    A = rng.normal(size=(3, 3))
    priors, means, cov = np.array([0.3, 0.7]), rng.normal(size=(2, 3)), A @ A.T + np.eye(3)
    w, b = _logistic(priors, means, cov)
    w_lib, b_lib = discriminant.logistic_parameters(priors, means, cov)
    assert np.allclose(w, w_lib) and np.isclose(b, b_lib)


@pytest.mark.parametrize(
    "mistake, fragments",
    [
        ("sign_w", ["wrong sign"]),
        ("no_prior", ["missing the log-prior"]),
        ("flipped_prior", ["upside down"]),
        ("quad_sign", ["quadratic terms"]),
        ("difference_not_sum", ["sum", "midpoint"]),
        ("swapped", ["order (w, b)"]),
    ],
)
def test_lda_logistic_names_typical_mistakes(mistake, fragments):
    assert_fails(lib.checks.lda_logistic(lambda *a: _logistic(*a, mistake=mistake)), *fragments)


def test_lda_logistic_b_is_a_float_not_a_length_one_array():
    """The statement says b is a float (issue 52): a (1,) array is refused, naming what came back."""
    assert_fails(lib.checks.lda_logistic(lambda *a: (_logistic(*a)[0], np.array([_logistic(*a)[1]]))),
                 "single number", "shape (1,)")
    assert lib.checks.lda_logistic(lambda *a: (_logistic(*a)[0], np.float64(_logistic(*a)[1]))).passed


def test_lda_logistic_w_as_list_or_column_is_fine_and_nan_is_explained():
    assert lib.checks.lda_logistic(lambda *a: (_logistic(*a)[0].tolist(), _logistic(*a)[1])).passed
    assert lib.checks.lda_logistic(lambda *a: (_logistic(*a)[0][:, None], _logistic(*a)[1])).passed
    result = lib.checks.lda_logistic(lambda *a: (np.full(len(a[1][0]), np.nan), 0.0))
    assert_fails(result, "NaN", "division by zero")
    assert "logsumexp" not in result.message


# ------------------------------------------------------------- n params --


def _count(d, K, covariance_type, mistake=None):
    cov = {"full": K * d * (d + 1) // 2, "tied": d * (d + 1) // 2, "diag": K * d, "spherical": K}[covariance_type]
    priors = K - 1
    if mistake == "no_priors":
        priors = 0
    if mistake == "K_priors":
        priors = K
    if mistake == "d_squared" and covariance_type == "full":
        cov = K * d * d
    if mistake == "tied_per_class" and covariance_type == "tied":
        cov = K * d * (d + 1) // 2
    if mistake == "one_variance" and covariance_type == "spherical":
        cov = 1
    if mistake == "shared_diag" and covariance_type == "diag":
        cov = d
    if mistake == "spherical_as_diag" and covariance_type == "spherical":
        cov = K * d
    if mistake == "no_means":
        return priors + cov
    return priors + K * d + cov


def test_gda_n_params_right_answer_passes():
    assert lib.checks.gda_n_params(_count).passed
    for kind in ("full", "tied", "diag", "spherical"):
        assert all(_count(d, K, kind) == discriminant.n_parameters(d, K, kind) for d in (1, 4) for K in (2, 5))


@pytest.mark.parametrize(
    "mistake, fragments",
    [
        ("no_priors", ["left out the class priors"]),
        ("K_priors", ["sum to one"]),
        ("d_squared", ["symmetric", "d(d+1)/2"]),
        ("tied_per_class", ["ONE covariance"]),
        ("one_variance", ["spherical", "EACH class"]),
        ("shared_diag", ["diag", "EACH class"]),
        ("spherical_as_diag", ["one free number per class"]),
        ("no_means", ["class means"]),
    ],
)
def test_gda_n_params_names_typical_mistakes(mistake, fragments):
    assert_fails(lib.checks.gda_n_params(lambda *a: _count(*a, mistake=mistake)), *fragments)


# --------------------------------------------------------- naive Bayes --


def _nb_vs_lda(rho, n_train, rng, *, n_test=20000, mistake=None):
    cov = np.array([[1.0, rho], [rho, 1.0]])
    means = np.array([[0.0, 0.0], [1.0, 0.0]])

    def draw(n):
        y = rng.integers(0, 2, size=n)
        X = means[y] + rng.multivariate_normal(np.zeros(2), cov, size=n)
        return X, y

    Xtr, ytr = draw(n_train)
    Xte, yte = draw(n_test)
    nb = discriminant.GaussianDiscriminantAnalysis("diag").fit(Xtr, ytr)
    lda = discriminant.GaussianDiscriminantAnalysis("tied").fit(Xtr, ytr)
    if mistake == "swap":
        return lda.score(Xte, yte), nb.score(Xte, yte)
    if mistake == "percent":
        return 100 * nb.score(Xte, yte), 100 * lda.score(Xte, yte)
    return nb.score(Xte, yte), lda.score(Xte, yte)


def test_naive_bayes_vs_lda_right_answer_passes():
    assert lib.checks.naive_bayes_vs_lda(_nb_vs_lda).passed


def test_naive_bayes_vs_lda_names_typical_mistakes():
    assert_fails(lib.checks.naive_bayes_vs_lda(lambda *a: _nb_vs_lda(*a, mistake="swap")), "swapped")
    assert_fails(lib.checks.naive_bayes_vs_lda(lambda *a: _nb_vs_lda(*a, mistake="percent")), "between 0 and 1")

    def unseeded(rho, n_train, rng):
        return _nb_vs_lda(rho, n_train, np.random.default_rng())

    assert_fails(lib.checks.naive_bayes_vs_lda(unseeded), "same seed")

    def fixed_seed(rho, n_train, rng):
        return _nb_vs_lda(rho, n_train, np.random.default_rng(0))

    assert_fails(lib.checks.naive_bayes_vs_lda(fixed_seed), "ignores its rng")

    def error_rates(rho, n_train, rng):
        nb, lda = _nb_vs_lda(rho, n_train, rng)
        return 1 - nb, 1 - lda

    assert_fails(lib.checks.naive_bayes_vs_lda(error_rates), "error rates")

    def wrong_model(rho, n_train, rng):  # LDA on the wrong covariance: rho ignored when sampling
        return _nb_vs_lda(0.0, n_train, rng)

    assert_fails(lib.checks.naive_bayes_vs_lda(wrong_model), "large-sample value")


# ------------------------------------------------------ generic failures --


ALL = [lib.checks.gda_mle, lib.checks.gda_posterior, lib.checks.lda_logistic, lib.checks.gda_n_params,
       lib.checks.naive_bayes_vs_lda]


@pytest.mark.parametrize("check", ALL)
def test_not_implemented(check):
    def todo(*args):
        raise NotImplementedError

    result = check(todo)
    assert result.status == "not implemented"
    assert check(...).status == "not implemented"


@pytest.mark.parametrize("check", ALL)
def test_not_callable(check):
    assert_fails(check(42), "expected a function")


@pytest.mark.parametrize("check", ALL)
def test_function_that_raises(check):
    def broken(*args):
        raise KeyError("oops")

    assert_fails(check(broken), "raised an exception", "KeyError")


@pytest.mark.parametrize("check", ALL)
def test_wrong_return_type(check):
    assert_fails(check(lambda *args: "a string"))
    assert_fails(check(lambda *args: None), "return")


def test_gda_mle_priors_over_n_minus_1_are_named():
    def by_n_minus_1(X, y):
        p, m, c, s = _mle(X, y)
        return p * len(y) / (len(y) - 1), m, c, s

    assert_fails(lib.checks.gda_mle(by_n_minus_1), "n - 1", "n_k / n")


def test_gda_n_params_float_is_refused():
    """Issue 44: K d (d + 1) / 2 with / returns a float where a count is asked for."""
    assert_fails(lib.checks.gda_n_params(lambda *a: float(_count(*a))), "float", "integer")
    # the statement asks for an int (issue 52): a numpy integer is refused too, naming its type
    assert_fails(lib.checks.gda_n_params(lambda *a: np.int64(_count(*a))), "numpy integer", "int64")
    assert lib.checks.gda_n_params(lambda *a: int(_count(*a))).passed


def test_naive_bayes_vs_lda_must_use_n_train_and_n_test():
    from lib.discriminant import GaussianDiscriminantAnalysis

    def experiment(rho, n_train, rng, n_test=20000, *, fixed_train=None, fixed_test=None):
        L = np.linalg.cholesky(np.array([[1.0, rho], [rho, 1.0]]))
        mu = np.array([[0.0, 0.0], [1.0, 0.0]])

        def draw(m):
            labels = rng.integers(0, 2, size=m)
            return mu[labels] + rng.standard_normal((m, 2)) @ L.T, labels

        X, y = draw(fixed_train or n_train)
        Xt, yt = draw(fixed_test or n_test)
        return tuple(GaussianDiscriminantAnalysis(kind).fit(X, y).score(Xt, yt) for kind in ("diag", "tied"))

    assert lib.checks.naive_bayes_vs_lda(experiment).passed
    assert_fails(lib.checks.naive_bayes_vs_lda(lambda *a, **k: experiment(*a, **k, fixed_train=2000)),
                 "ignores n_train")
    assert_fails(lib.checks.naive_bayes_vs_lda(lambda *a, **k: experiment(*a, **k, fixed_test=20000)),
                 "ignores n_test")
