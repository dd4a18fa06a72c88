"""The perceptron and probit regression in lib.logistic, held against the math and scikit-learn."""

import warnings

import numpy as np
import pytest
from scipy.special import expit
from scipy.stats import norm
from sklearn.linear_model import Perceptron as SkPerceptron

from lib._validation import ConvergenceWarning
from lib.logistic import (
    LogisticRegression,
    Perceptron,
    ProbitRegression,
    perceptron_epoch,
    probit_gradient,
    probit_hessian,
    probit_log_likelihood,
)


def _separable(rng, n=60, d=3, margin=0.3):
    """Points with |u.x + c| >= margin for a unit normal (u, c), labelled by the side."""
    u = rng.normal(size=d)
    u /= np.linalg.norm(u)
    X = rng.normal(size=(4 * n, d))
    t = X @ u + 0.2
    keep = np.abs(t) >= margin
    X, t = X[keep][:n], t[keep][:n]
    return X, (t > 0).astype(int)


def _overlapping(rng, n=80, d=2):
    y = rng.permutation(np.arange(n) % 2)
    return rng.normal(size=(n, d)) + 0.8 * y[:, None], y


# ---------------------------------------------------------------- perceptron --


def test_perceptron_epoch_updates_only_on_mistakes():
    X = np.array([[1.0, 0.0], [0.0, 1.0], [-1.0, 0.0]])
    y = np.array([1, 1, 0])
    w, b, m = perceptron_epoch(np.zeros(2), 0.0, X, y)
    # sample 0: t = 0 is a mistake -> w = (1, 0), b = 1; sample 1: t = 1 > 0, fine;
    # sample 2: t = -1 + 1 = 0, a mistake for class 0 -> w = (2, 0), b = 0.
    np.testing.assert_allclose(w, [2.0, 0.0])
    assert b == 0.0 and m == 2
    w2, b2, m2 = perceptron_epoch(w, b, X, y)
    assert m2 == 1  # sample 1 is on the boundary now: t = 0
    w3, b3, m3 = perceptron_epoch(w2, b2, X, y)
    assert m3 == 0 and np.array_equal(w3, w2) and b3 == b2


def test_perceptron_epoch_leaves_its_input_alone_and_scales_with_lr():
    rng = np.random.default_rng(0)
    X, y = _overlapping(rng)
    w0 = np.zeros(2)
    w1, b1, _ = perceptron_epoch(w0, 0.0, X, y, lr=1.0)
    w2, b2, _ = perceptron_epoch(w0, 0.0, X, y, lr=0.01)
    assert np.array_equal(w0, np.zeros(2))
    np.testing.assert_allclose(w2, 0.01 * w1, rtol=1e-12)  # from zero, lr only rescales
    assert np.isclose(b2, 0.01 * b1, rtol=1e-12)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_perceptron_converges_within_the_mistake_bound(seed):
    rng = np.random.default_rng(seed)
    X, y = _separable(rng)
    model = Perceptron().fit(X, y)
    assert model.converged_ and model.mistakes_[-1] == 0
    assert np.all(model.predict(X) == y)
    # Novikoff: at most (R / gamma)^2 updates for any unit (u, c) with margin gamma on x~ = (x, 1).
    s = 2 * y - 1
    Xt = np.column_stack([X, np.ones(len(y))])
    lr = LogisticRegression(l2=1e-3).fit(X, y)  # some separating direction
    v = np.append(lr.coef_[0], lr.intercept_[0])
    v /= np.linalg.norm(v)
    gamma = np.min(s * (Xt @ v))
    assert gamma > 0
    R = np.max(np.linalg.norm(Xt, axis=1))
    assert model.mistakes_.sum() <= (R / gamma) ** 2


def test_perceptron_matches_scikit_learn():
    rng = np.random.default_rng(3)
    X, y = _separable(rng, n=40)
    ours = Perceptron(max_epochs=50).fit(X, y)
    sk = SkPerceptron(shuffle=False, tol=None, max_iter=ours.n_iter_, eta0=1.0, penalty=None).fit(X, y)
    np.testing.assert_allclose(ours.coef_, sk.coef_, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(ours.intercept_, sk.intercept_, rtol=1e-10, atol=1e-12)
    X2, y2 = _overlapping(rng)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ours = Perceptron(max_epochs=7).fit(X2, y2)
        sk = SkPerceptron(shuffle=False, tol=None, max_iter=7, eta0=1.0, penalty=None).fit(X2, y2)
    np.testing.assert_allclose(ours.coef_, sk.coef_, rtol=1e-10, atol=1e-12)


def test_perceptron_never_settles_on_overlapping_data():
    X, y = _overlapping(np.random.default_rng(4))
    with pytest.warns(ConvergenceWarning, match="not linearly separable"):
        model = Perceptron(max_epochs=50).fit(X, y)
    assert not model.converged_ and np.all(model.mistakes_ > 0)
    assert not hasattr(model, "predict_proba")


def test_perceptron_keeps_labels_and_shuffles_reproducibly():
    X, y = _separable(np.random.default_rng(5))
    labels = np.array(["ham", "spam"])[y]
    a = Perceptron(shuffle=True, random_state=1).fit(X, labels)
    b = Perceptron(shuffle=True, random_state=1).fit(X, labels)
    assert set(a.predict(X)) <= {"ham", "spam"} and np.array_equal(a.coef_, b.coef_)


@pytest.mark.parametrize(
    "kwargs, y, match",
    [({"max_epochs": 0}, None, "max_epochs"), ({"lr": -1.0}, None, "lr"), ({}, "three", "two classes")],
)
def test_perceptron_bad_input_is_explained(kwargs, y, match):
    X = np.random.default_rng(0).normal(size=(9, 2))
    labels = np.arange(9) % 3 if y == "three" else np.arange(9) % 2
    with pytest.raises(ValueError, match=match):
        Perceptron(**kwargs).fit(X, labels)


def test_perceptron_epoch_rejects_bad_labels():
    with pytest.raises(ValueError, match="0 or 1"):
        perceptron_epoch(np.zeros(2), 0.0, np.ones((3, 2)), np.array([-1, 1, 1]))


# -------------------------------------------------------------------- probit --


def test_probit_log_likelihood_matches_the_formula_and_stays_finite():
    rng = np.random.default_rng(6)
    X, y = _overlapping(rng)
    w, b = rng.normal(size=2), 0.3
    t = X @ w + b
    want = np.sum(y * np.log(norm.cdf(t)) + (1 - y) * np.log(norm.cdf(-t)))
    assert np.isclose(probit_log_likelihood(w, b, X, y), want, rtol=1e-12)
    far = probit_log_likelihood(np.array([100.0, 0.0]), 0.0, np.array([[-1.0, 0.0]]), np.array([1]))
    assert np.isfinite(far) and np.isclose(far, norm.logcdf(-100.0), rtol=1e-12)


@pytest.mark.parametrize("seed", [0, 1])
def test_probit_gradient_and_hessian_match_finite_differences(seed):
    rng = np.random.default_rng(seed)
    X, y = _overlapping(rng, n=30, d=3)
    theta = rng.normal(size=4)
    h = 1e-6

    def ll(th):
        return probit_log_likelihood(th[:-1], th[-1], X, y)

    def grad(th):
        gw, gb = probit_gradient(th[:-1], th[-1], X, y)
        return np.append(gw, gb)

    num_g = np.array([(ll(theta + h * e) - ll(theta - h * e)) / (2 * h) for e in np.eye(4)])
    np.testing.assert_allclose(grad(theta), num_g, rtol=1e-6, atol=1e-6)
    num_H = np.array([(grad(theta + h * e) - grad(theta - h * e)) / (2 * h) for e in np.eye(4)])
    H = probit_hessian(theta[:-1], theta[-1], X, y)
    np.testing.assert_allclose(H, num_H, rtol=1e-5, atol=1e-5)
    assert np.all(np.linalg.eigvalsh(H) < 0)  # concave


def test_probit_gradient_is_finite_far_from_the_boundary():
    X = np.array([[40.0], [-40.0]])
    y = np.array([0, 1])  # both on the wrong side, u = -40
    gw, gb = probit_gradient(np.array([1.0]), 0.0, X, y)
    # lambda(-40) = phi(-40)/Phi(-40) is close to 40 (Mills ratio); the residuals are -lambda and +lambda.
    assert np.isfinite(gw).all() and np.isclose(gb, 0.0, atol=1e-9)
    assert np.isclose(gw[0], -2 * 40 * 40.02498, rtol=1e-4)


def test_probit_fit_matches_the_closed_form_for_one_binary_feature():
    # With one 0/1 feature the MLE fits each group's frequency: Phi(b) and Phi(w + b).
    x = np.repeat([0.0, 1.0], [40, 60])
    y = np.concatenate([np.arange(40) < 10, np.arange(60) < 45]).astype(int)
    model = ProbitRegression().fit(x[:, None], y)
    assert model.converged_
    assert np.isclose(model.intercept_[0], norm.ppf(10 / 40), atol=1e-8)
    assert np.isclose(model.coef_[0, 0] + model.intercept_[0], norm.ppf(45 / 60), atol=1e-8)
    np.testing.assert_allclose(model.predict_proba(np.array([[0.0], [1.0]]))[:, 1], [0.25, 0.75], atol=1e-8)


def test_probit_fit_is_a_stationary_point_and_never_decreases():
    X, y = _overlapping(np.random.default_rng(7))
    model = ProbitRegression().fit(X, y)
    gw, gb = probit_gradient(model.coef_[0], model.intercept_[0], X, y)
    assert np.max(np.abs(np.append(gw, gb))) / len(y) <= 1e-8
    assert np.all(np.diff(model.log_likelihood_history_) >= 0)
    p = model.predict_proba(X)
    np.testing.assert_allclose(p.sum(axis=1), 1.0)
    assert np.array_equal(model.predict(X), (p[:, 1] > 0.5).astype(int))


def test_logit_and_probit_coefficients_differ_by_about_1_7():
    rng = np.random.default_rng(8)
    X = rng.normal(size=(4000, 2))
    y = (rng.random(4000) < norm.cdf(X @ np.array([0.8, -0.5]) + 0.2)).astype(int)
    probit = ProbitRegression().fit(X, y)
    logit = LogisticRegression().fit(X, y)
    ratio = logit.coef_[0] / probit.coef_[0]
    assert np.all((ratio > 1.5) & (ratio < 1.9))
    t = np.linspace(-6, 6, 2001)
    assert np.max(np.abs(expit(1.702 * t) - norm.cdf(t))) < 0.0095


def test_probit_warns_on_separable_data():
    X, y = _separable(np.random.default_rng(9), n=30)
    with pytest.warns(ConvergenceWarning, match="separable"):
        model = ProbitRegression().fit(X, y)
    assert not model.converged_


@pytest.mark.parametrize("Model", [Perceptron, ProbitRegression])
def test_estimators_validate_like_logistic_regression(Model):
    from scipy.sparse import csr_matrix

    X, y = _overlapping(np.random.default_rng(10), n=20)
    with pytest.raises(TypeError, match="Sparse input"):
        Model().fit(csr_matrix(X), y)
    with pytest.raises(ValueError, match="2-dimensional"):
        Model().fit(X[:, 0], y)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        model = Model().fit(X, y)
    with pytest.raises(ValueError, match="expecting 2 features"):
        model.predict(np.ones((3, 5)))
    with pytest.raises(ValueError, match="two classes"):
        Model().fit(np.vstack([X, X[:3]]), np.r_[y, [2, 2, 2]])
