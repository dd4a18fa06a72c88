"""Tests for lib.logistic: the formulas of chapter 1 and the estimator's contract."""

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.datasets import load_iris
from sklearn.linear_model import LogisticRegression as SkLogisticRegression
from sklearn.utils.estimator_checks import parametrize_with_checks

from lib._validation import ConvergenceWarning
from lib.logistic import (
    LogisticRegression,
    gradient,
    hessian,
    log_likelihood,
    log_sigmoid,
    newton_step,
    separation,
    sgd_epoch,
    sigmoid,
    softmax,
)

SETTINGS = settings(max_examples=40, deadline=None)


def _iris_binary(features=(2, 3)):
    """Versicolor (0) vs virginica (1): overlapping classes, so the MLE exists."""
    X, y = load_iris(return_X_y=True)
    keep = y > 0
    return X[keep][:, list(features)], (y[keep] == 2).astype(int)


def _random_problem(seed, n=25, d=3, n_classes=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    if n_classes == 0:
        w, b = rng.normal(size=d), float(rng.normal())
        y = rng.integers(0, 2, size=n)
    else:
        w, b = rng.normal(size=(n_classes, d)), rng.normal(size=n_classes)
        y = rng.integers(0, n_classes, size=n)
    return w, b, X, y


# ---------------------------------------------------------------- sigmoid --


def test_sigmoid_is_stable_for_large_arguments():
    t = np.array([-1000.0, -745.0, -40.0, 0.0, 40.0, 1000.0])
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no overflow warning allowed
        s = sigmoid(t)
        ls = log_sigmoid(t)
    assert np.all(np.isfinite(s)) and np.all(np.isfinite(ls))
    assert s[0] == 0.0 and s[-1] == 1.0 and s[3] == 0.5
    assert ls[0] == pytest.approx(-1000.0) and ls[-1] == pytest.approx(0.0, abs=1e-300)


@SETTINGS
@given(st.floats(-30, 5))
def test_sigmoid_derivative_is_sigmoid_times_one_minus_sigmoid(t):
    # For t >> 0, 1 - sigmoid(t) cancels catastrophically; the derivative is even, so
    # testing t <= 5 covers the formula without testing float cancellation.
    h = 1e-5
    numeric = (sigmoid(t + h) - sigmoid(t - h)) / (2 * h)
    assert numeric == pytest.approx(sigmoid(t) * (1 - sigmoid(t)), rel=1e-6, abs=1e-12)


@SETTINGS
@given(st.floats(-700, 700))
def test_sigmoid_symmetry_and_log(t):
    assert sigmoid(-t) == pytest.approx(1 - sigmoid(t), abs=1e-15)
    if abs(t) < 30:
        assert log_sigmoid(t) == pytest.approx(np.log(sigmoid(t)), rel=1e-12)


def test_softmax_rows_sum_to_one_and_two_classes_reduce_to_sigmoid():
    rng = np.random.default_rng(0)
    T = rng.normal(size=(6, 4)) * 300  # large scores: no overflow
    P = softmax(T)
    assert np.allclose(P.sum(axis=1), 1.0)
    t = rng.normal(size=5)
    P2 = softmax(np.column_stack([np.zeros(5), t]))
    assert np.allclose(P2[:, 1], sigmoid(t), rtol=1e-12)


# ------------------------------------------------------- log-likelihood --


def test_log_likelihood_matches_the_textbook_formula():
    w, b, X, y = _random_problem(1)
    p = sigmoid(X @ w + b)
    naive = np.sum(y * np.log(p) + (1 - y) * np.log(1 - p))
    assert log_likelihood(w, b, X, y) == pytest.approx(naive, rel=1e-12)
    assert log_likelihood(w, b, X, y) <= 0


def test_log_likelihood_stays_finite_where_log_of_sigmoid_fails():
    X = np.array([[1.0], [-1.0]])
    y = np.array([0, 1])  # both badly misclassified by a huge weight
    value = log_likelihood(np.array([1000.0]), 0.0, X, y)
    assert np.isfinite(value) and value == pytest.approx(-2000.0)


def test_softmax_log_likelihood_with_two_classes_equals_binary():
    w, b, X, y = _random_problem(2)
    W = np.vstack([np.zeros_like(w), w])
    B = np.array([0.0, b])
    assert log_likelihood(W, B, X, y) == pytest.approx(log_likelihood(w, b, X, y), rel=1e-12)


def _numerical_gradient(f, x, h=1e-6):
    x = np.asarray(x, dtype=float)
    g = np.zeros_like(x)
    for idx in np.ndindex(x.shape):
        e = np.zeros_like(x)
        e[idx] = h
        g[idx] = (f(x + e) - f(x - e)) / (2 * h)
    return g


@SETTINGS
@given(st.integers(0, 10_000), st.integers(1, 4), st.sampled_from([0, 3]))
def test_gradient_matches_finite_differences(seed, d, n_classes):
    w, b, X, y = _random_problem(seed, d=d, n_classes=n_classes)
    gw, gb = gradient(w, b, X, y)
    num_w = _numerical_gradient(lambda v: log_likelihood(v, b, X, y), w)
    num_b = _numerical_gradient(lambda v: log_likelihood(w, v, X, y), np.asarray(b, dtype=float))
    assert np.allclose(gw, num_w, rtol=1e-5, atol=1e-6)
    assert np.allclose(gb, num_b, rtol=1e-5, atol=1e-6)


def test_gradient_vector_form():
    w, b, X, y = _random_problem(3)
    gw, gb = gradient(w, b, X, y)
    assert np.allclose(gw, X.T @ (y - sigmoid(X @ w + b)))
    assert gb == pytest.approx(np.sum(y - sigmoid(X @ w + b)))


@pytest.mark.parametrize("n_classes", [0, 3])
def test_hessian_matches_finite_differences_of_the_gradient(n_classes):
    w, b, X, y = _random_problem(4, d=2, n_classes=n_classes)

    def flat_gradient(theta):
        if n_classes == 0:
            gw, gb = gradient(theta[:-1], theta[-1], X, y)
            return np.append(gw, gb)
        th = theta.reshape(n_classes, -1)
        gw, gb = gradient(th[:, :-1], th[:, -1], X, y)
        return np.column_stack([gw, gb]).ravel()

    theta = np.append(w, b) if n_classes == 0 else np.column_stack([w, b]).ravel()
    H = hessian(w, b, X)
    numeric = np.column_stack(
        [(flat_gradient(theta + h) - flat_gradient(theta - h)) / 2e-6 for h in 1e-6 * np.eye(theta.size)]
    )
    assert np.allclose(H, numeric, rtol=1e-5, atol=1e-6)


@SETTINGS
@given(st.integers(0, 10_000), st.sampled_from([0, 3]))
def test_log_likelihood_is_concave(seed, n_classes):
    w, b, X, y = _random_problem(seed, n_classes=n_classes)
    H = hessian(w, b, X)
    eig = np.linalg.eigvalsh(H)
    assert eig.max() <= 1e-10 * max(1.0, abs(eig).max())  # negative semidefinite
    # and along a line: the midpoint is at least the average of the ends.
    rng = np.random.default_rng(seed + 1)
    w2, b2 = w + rng.normal(size=np.shape(w)), b + rng.normal(size=np.shape(b))
    mid = log_likelihood((w + w2) / 2, (np.asarray(b) + b2) / 2, X, y)
    ends = (log_likelihood(w, b, X, y) + log_likelihood(w2, b2, X, y)) / 2
    assert mid >= ends - 1e-9


@pytest.mark.parametrize(
    "args, match",
    [
        ((np.zeros(3), 0.0, np.zeros((4, 2)), np.zeros(4)), r"w must have one weight per feature"),
        ((np.zeros(2), np.zeros(2), np.zeros((4, 2)), np.zeros(4)), r"b must be a single number"),
        ((np.zeros(2), 0.0, np.zeros((4, 2)), np.zeros(3)), r"y must have shape \(4,\)"),
        ((np.zeros(2), 0.0, np.zeros((4, 2)), np.array([0, 1, 2, 1])), r"y must hold the labels 0 or 1"),
        ((np.zeros((3, 2)), np.zeros(2), np.zeros((4, 2)), np.zeros(4)), r"b must have shape \(3,\)"),
        ((np.zeros(2), np.nan, np.zeros((4, 2)), np.zeros(4)), r"must be finite"),
        ((np.zeros(2), 0.0, np.full((4, 2), np.nan), np.zeros(4)), r"NaN or infinite"),
    ],
)
def test_functions_reject_bad_input_with_a_message(args, match):
    with pytest.raises(ValueError, match=match):
        log_likelihood(*args)


# ------------------------------------------------------------ separation --


def test_separation_detects_the_three_cases():
    X, y = load_iris(return_X_y=True)
    assert separation(X[:, 2:], y == 0) == "complete"  # setosa vs the rest
    assert separation(*_iris_binary()) is None  # versicolor and virginica overlap
    assert separation(X, y) == "quasi"  # setosa separable, the other two overlap
    Xq = np.array([[0.0], [1.0], [1.0], [2.0]])
    assert separation(Xq, [0, 0, 1, 1]) == "quasi"  # a tie on the boundary


# -------------------------------------------------------------- estimator --


def test_newton_agrees_with_sklearn_without_penalty():
    X, y = _iris_binary()
    ours = LogisticRegression().fit(X, y)
    sk = SkLogisticRegression(C=np.inf, solver="lbfgs", tol=1e-14, max_iter=100_000).fit(X, y)
    assert np.allclose(ours.coef_, sk.coef_, rtol=1e-6, atol=1e-6)
    assert np.allclose(ours.intercept_, sk.intercept_, rtol=1e-6, atol=1e-5)
    sk_newton = SkLogisticRegression(C=np.inf, solver="newton-cholesky", tol=1e-12).fit(X, y)
    assert np.allclose(ours.coef_, sk_newton.coef_, rtol=1e-8)
    assert ours.converged_


@pytest.mark.parametrize("l2", [0.1, 1.0, 10.0])
def test_penalised_fit_agrees_with_sklearn_c_equals_one_over_l2(l2):
    X, y = _iris_binary((0, 1, 2, 3))
    ours = LogisticRegression(l2=l2).fit(X, y)
    sk = SkLogisticRegression(C=1 / l2, tol=1e-14, max_iter=100_000).fit(X, y)
    assert np.allclose(ours.coef_, sk.coef_, rtol=1e-6, atol=1e-6)
    assert np.allclose(ours.intercept_, sk.intercept_, rtol=1e-6, atol=1e-6)
    assert np.allclose(ours.predict_proba(X), sk.predict_proba(X), atol=1e-7)


@pytest.mark.parametrize("l2", [0.05, 1.0])
def test_multiclass_agrees_with_sklearn_multinomial(l2):
    X, y = load_iris(return_X_y=True)
    ours = LogisticRegression(l2=l2).fit(X, y)
    # newton-cg, not the default lbfgs: lbfgs also stops on a relative change of the
    # objective (ftol = 64 eps), which left its coefficients 7e-5 off on one machine.
    sk = SkLogisticRegression(C=1 / l2, solver="newton-cg", tol=1e-14, max_iter=100_000).fit(X, y)
    assert ours.coef_.shape == (3, 4) and ours.intercept_.shape == (3,)
    assert np.allclose(ours.coef_, sk.coef_, rtol=1e-6, atol=1e-5)
    assert np.allclose(ours.intercept_, sk.intercept_, rtol=1e-6, atol=1e-5)
    assert np.allclose(ours.predict_proba(X), sk.predict_proba(X), atol=1e-7)


def test_gradient_ascent_and_sgd_reach_the_newton_solution():
    X, y = _iris_binary()
    X = (X - X.mean(axis=0)) / X.std(axis=0)
    newton = LogisticRegression().fit(X, y)
    grad = LogisticRegression(method="gradient", tol=1e-8, max_iter=20_000).fit(X, y)
    assert grad.converged_
    assert np.allclose(grad.coef_, newton.coef_, atol=1e-5)
    with pytest.warns(ConvergenceWarning, match="sgd did not converge"):  # SGD's noise floor
        sgd = LogisticRegression(method="sgd", max_iter=300, tol=1e-6, random_state=0).fit(X, y)
        again = LogisticRegression(method="sgd", max_iter=300, tol=1e-6, random_state=0).fit(X, y)
    assert np.allclose(sgd.coef_, newton.coef_, atol=0.1)
    assert np.array_equal(sgd.coef_, again.coef_)  # reproducible with a seed


@pytest.mark.parametrize("method", ["newton", "gradient"])
@pytest.mark.parametrize("l2", [0.0, 1.0])
def test_objective_never_decreases(method, l2):
    X, y = _iris_binary()
    X = (X - X.mean(axis=0)) / X.std(axis=0)
    model = LogisticRegression(method=method, l2=l2, max_iter=3000).fit(X, y)
    history = model.objective_history_
    assert history.shape == (model.n_iter_ + 1,)
    assert history[0] == pytest.approx(len(y) * np.log(0.5))  # w = 0, b = 0
    assert np.all(np.diff(history) >= -1e-10)
    if l2 == 0:
        assert np.array_equal(history, model.log_likelihood_history_)


def test_newton_converges_quadratically():
    X, y = _iris_binary()
    model = LogisticRegression(tol=1e-12).fit(X, y)
    assert model.n_iter_ <= 12
    gap = model.log_likelihood_history_[-1] - model.log_likelihood_history_
    assert gap[-2] < 1e-8


def test_predictions_are_consistent_and_labels_are_kept():
    X, y = _iris_binary()
    names = np.array(["versicolor", "virginica"])[y]
    model = LogisticRegression().fit(X, names)
    assert list(model.classes_) == ["versicolor", "virginica"]
    proba = model.predict_proba(X)
    assert np.allclose(proba.sum(axis=1), 1)
    assert np.allclose(np.exp(model.predict_log_proba(X)), proba)
    t = model.decision_function(X)
    assert np.allclose(proba[:, 1], sigmoid(t))
    assert np.array_equal(model.predict(X), np.where(t > 0, "virginica", "versicolor"))
    assert model.score(X, names) == pytest.approx(np.mean(model.predict(X) == names))


def test_fitted_log_likelihood_matches_the_function():
    X, y = _iris_binary()
    model = LogisticRegression().fit(X, y)
    value = log_likelihood(model.coef_[0], model.intercept_[0], X, y)
    assert model.log_likelihood_history_[-1] == pytest.approx(value)
    gw, gb = gradient(model.coef_[0], model.intercept_[0], X, y)
    assert np.max(np.abs(gw)) < 1e-4 and abs(gb) < 1e-4  # stationary point


def test_separable_data_warn_and_stop():
    X, y = load_iris(return_X_y=True)
    with pytest.warns(ConvergenceWarning, match="linearly separable.*does not exist"):
        model = LogisticRegression().fit(X[:, 2:], y == 0)
    assert not model.converged_
    assert model.n_iter_ < 10
    assert model.score(X[:, 2:], y == 0) == 1.0
    with pytest.warns(ConvergenceWarning, match="partly separable"):
        LogisticRegression().fit(X, y)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        LogisticRegression(l2=1.0).fit(X[:, 2:], y == 0)  # the penalty makes the optimum exist


def test_too_few_iterations_warn():
    X, y = _iris_binary()
    with pytest.warns(ConvergenceWarning, match="did not converge in max_iter=2"):
        model = LogisticRegression(method="gradient", max_iter=2).fit(X, y)
    assert model.n_iter_ == 2 and not model.converged_


@pytest.mark.parametrize(
    "params, error, match",
    [
        (dict(method="lbfgs"), ValueError, r"method must be one of"),
        (dict(l2=-1.0), ValueError, r"l2 must be a finite number >= 0"),
        (dict(l2="big"), TypeError, r"l2 must be a number"),
        (dict(lr="fast"), ValueError, r"lr must be a positive number or 'auto'"),
        (dict(lr=0.0), ValueError, r"lr must be a finite number > 0"),
        (dict(max_iter=0), ValueError, r"max_iter must be an integer >= 1"),
        (dict(tol=-1e-3), ValueError, r"tol must be a finite number >= 0"),
    ],
)
def test_bad_hyperparameters_are_explained(params, error, match):
    X, y = _iris_binary()
    with pytest.raises(error, match=match):
        LogisticRegression(**params).fit(X, y)


def test_bad_data_are_explained():
    X, y = _iris_binary()
    with pytest.raises(ValueError, match=r"y has 99 labels but X has 100 rows"):
        LogisticRegression().fit(X, y[:-1])
    with pytest.raises(ValueError, match=r"1 distinct class"):
        LogisticRegression().fit(X, np.zeros(len(y)))
    with pytest.raises(ValueError, match=r"Reshape your data"):
        LogisticRegression().fit(X[:, 0], y)
    with pytest.raises(ValueError, match=r"NaN or infinite"):
        LogisticRegression().fit(np.where(X > 6, np.nan, X), y)
    model = LogisticRegression().fit(X, y)
    with pytest.raises(ValueError, match=r"X has 3 features, but LogisticRegression is expecting 2"):
        model.predict(np.zeros((2, 3)))
    from sklearn.exceptions import NotFittedError

    with pytest.raises(NotFittedError):
        LogisticRegression().predict(X)


@parametrize_with_checks([LogisticRegression(), LogisticRegression(l2=1.0, method="gradient", tol=1e-4)])
def test_sklearn_estimator_contract(estimator, check):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)  # check data are often separable
        check(estimator)


def test_newton_step_iterated_reaches_the_estimator():
    X, y = _iris_binary()
    w, b = np.zeros(2), 0.0
    for _ in range(12):
        w, b = newton_step(w, b, X, y)
    model = LogisticRegression(tol=1e-12).fit(X, y)
    assert np.allclose(w, model.coef_[0], rtol=1e-9) and np.isclose(b, model.intercept_[0], rtol=1e-9)


def test_sgd_epoch_is_per_sample_ascent():
    X, y = _iris_binary()
    X = (X - X.mean(axis=0)) / X.std(axis=0)
    order = np.random.default_rng(3).permutation(len(y))
    w, b = np.zeros(2), 0.0
    for i in order:
        r = y[i] - sigmoid(X[i] @ w + b)
        w, b = w + 0.1 * r * X[i], b + 0.1 * r
    got_w, got_b = sgd_epoch(np.zeros(2), 0.0, X, y, 0.1, order)
    assert np.allclose(got_w, w) and np.isclose(got_b, b)
    before = log_likelihood(np.zeros(2), 0.0, X, y)
    assert log_likelihood(got_w, got_b, X, y) > before


def test_multiclass_parameters_sum_to_zero_and_column_y_is_flattened():
    X, y = load_iris(return_X_y=True)
    model = LogisticRegression(l2=1.0).fit(X, y)
    assert np.allclose(model.coef_.sum(axis=0), 0, atol=1e-10)
    assert np.isclose(model.intercept_.sum(), 0, atol=1e-10)
    from sklearn.exceptions import DataConversionWarning

    with pytest.warns(DataConversionWarning, match="column-vector y"):
        flat = LogisticRegression(l2=1.0).fit(X, y[:, None])
    assert np.allclose(flat.coef_, model.coef_)
