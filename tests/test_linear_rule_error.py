"""lib.discriminant.linear_rule_error: the exact error of a linear rule under two Gaussian classes."""

import numpy as np
import pytest
from scipy.stats import norm

import lib
from lib.discriminant import linear_rule_error


def _monte_carlo(w, b, means, covs, priors, n, rng):
    y = (rng.random(n) < priors[1]).astype(int)
    X = np.empty((n, len(w)))
    for k in (0, 1):
        X[y == k] = lib.gaussian.sample(means[k], covs[k], int(np.sum(y == k)), rng=rng)
    return np.mean((X @ w + b > 0) != y)


def test_matches_monte_carlo_with_unequal_covariances_and_priors():
    rng = np.random.default_rng(0)
    means = np.array([[0.0, 1.0, -1.0], [1.5, 0.0, 0.5]])
    A = rng.normal(size=(3, 3))
    covs = np.stack([A @ A.T + np.eye(3), np.diag([0.5, 2.0, 1.0])])
    w, b, priors = np.array([1.0, -0.5, 0.8]), -0.3, np.array([0.3, 0.7])
    exact = linear_rule_error(w, b, means, covs, priors)
    n = 400_000
    mc = _monte_carlo(w, b, means, covs, priors, n, rng)
    assert abs(exact - mc) < 4 * np.sqrt(exact * (1 - exact) / n)


def test_bayes_rule_error_is_phi_of_half_the_mahalanobis_distance():
    rng = np.random.default_rng(1)
    A = rng.normal(size=(4, 4))
    cov = A @ A.T + 0.5 * np.eye(4)
    means = rng.normal(size=(2, 4))
    w, b = lib.discriminant.logistic_parameters([0.5, 0.5], means, cov)
    delta = means[1] - means[0]
    mahalanobis = np.sqrt(delta @ np.linalg.solve(cov, delta))
    assert np.isclose(linear_rule_error(w, b, means, cov), norm.cdf(-mahalanobis / 2), rtol=1e-12)
    # a shared covariance and the same matrix stacked twice give the same number
    assert linear_rule_error(w, b, means, cov) == linear_rule_error(w, b, means, np.stack([cov, cov]))
    # no other rule does better
    for _ in range(20):
        other = w + 0.3 * rng.normal(size=4)
        assert linear_rule_error(other, b + 0.3 * rng.normal(), means, cov) >= norm.cdf(-mahalanobis / 2)


def test_constant_rule_and_symmetry():
    means, cov = np.array([[0.0, 0.0], [1.0, 1.0]]), np.eye(2)
    assert linear_rule_error(np.zeros(2), 1.0, means, cov, [0.3, 0.7]) == 0.3
    assert linear_rule_error(np.zeros(2), -1.0, means, cov, [0.3, 0.7]) == 0.7
    w, b = np.array([1.0, 2.0]), -1.5
    # the flipped rule errs exactly where this one is right
    assert np.isclose(linear_rule_error(w, b, means, cov) + linear_rule_error(-w, -b, means, cov), 1.0)


@pytest.mark.parametrize(
    "args, error, match",
    [
        ((np.ones(3), 0.0, np.zeros((2, 2)), np.eye(2)), ValueError, "w must be a finite vector of shape \\(2,\\)"),
        ((np.ones(2), 0.0, np.zeros((3, 2)), np.eye(2)), ValueError, "exactly 2 classes"),
        ((np.ones(2), "0", np.zeros((2, 2)), np.eye(2)), TypeError, "b must be a real number"),
        ((np.ones(2), np.inf, np.zeros((2, 2)), np.eye(2)), ValueError, "b must be finite"),
        ((np.ones(2), 0.0, np.zeros((2, 2)), np.eye(3)), ValueError, "covariance must be"),
        ((np.ones(2), 0.0, np.zeros((2, 2)), -np.eye(2)), ValueError, "positive semidefinite"),
        ((np.ones(2), 0.0, np.zeros((2, 2)), np.eye(2), [0.5, 0.6]), ValueError, "sum to 1"),
    ],
)
def test_bad_input(args, error, match):
    with pytest.raises(error, match=match):
        linear_rule_error(*args)
