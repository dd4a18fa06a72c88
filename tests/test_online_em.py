"""lib.online_em: stepwise EM settles at batch EM's fixed point; its pieces match their formulas."""

import numpy as np
import pytest

import lib
from lib.mixture import GaussianMixture, e_step, m_step
from lib.online_em import (minibatch_statistics, parameters_from_statistics, step_sizes,
                           stepwise_em)

WEIGHTS = np.array([0.5, 0.3, 0.2])
MEANS = np.array([[0.0, 0.0], [6.0, 1.0], [1.0, 7.0]])  # well separated
COVS = np.array([[[1.0, 0.3], [0.3, 0.8]], [[0.7, 0.0], [0.0, 1.2]], [[0.9, -0.2], [-0.2, 0.6]]])
START = (np.full(3, 1 / 3), np.array([[1.0, 1.0], [5.0, 0.0], [0.0, 6.0]]), np.stack([np.eye(2)] * 3))


@pytest.fixture(scope="module")
def data():
    X, _ = lib.datasets.make_mixture(3000, WEIGHTS, MEANS, COVS, rng=np.random.default_rng(0))
    return X


def _batch_fixed_point(X, start=START):
    return GaussianMixture(3, init_params="given", weights_init=start[0], means_init=start[1],
                           covariances_init=start[2], tol=1e-12, max_iter=2000).fit(X)


def test_converges_to_the_fixed_point_of_batch_em(data):
    batch = _batch_fixed_point(data)
    online = stepwise_em(data, *START, batch_size=100, n_epochs=15, rng=np.random.default_rng(1))
    assert np.abs(online.means - batch.means_).max() < 0.05
    assert np.abs(online.weights - batch.weights_).max() < 0.01
    assert np.abs(online.covariances - batch.covariances_).max() < 0.05
    # the log-likelihood per point ends within 1e-3 of batch EM's maximum
    assert batch.log_likelihood_history_[-1] / len(data) - online.log_likelihood[-1] / len(data) < 1e-3


def test_one_pass_closes_most_of_the_gap(data):
    batch = _batch_fixed_point(data)
    online = stepwise_em(data, *START, batch_size=50, n_epochs=1, rng=3)
    assert online.passes.tolist() == [0.0, 1.0]
    start, best = online.log_likelihood[0], batch.log_likelihood_history_[-1]
    assert (online.log_likelihood[1] - start) / (best - start) > 0.99


def test_seeded_runs_repeat_and_differ_by_seed(data):
    a = stepwise_em(data, *START, n_epochs=1, rng=7)
    b = stepwise_em(data, *START, n_epochs=1, rng=np.random.default_rng(7))
    c = stepwise_em(data, *START, n_epochs=1, rng=8)
    assert np.array_equal(a.means, b.means)
    assert not np.array_equal(a.means, c.means)


def test_step_one_on_the_whole_data_is_batch_em(data):
    # With one minibatch of all rows, the statistics of the first step get weight
    # eta_0 = 2^(-tau); tau -> the update is the convex combination, so check the formula
    # through its pieces: statistics of the E-step, then the M-step, equal lib.mixture.m_step.
    resp, _ = e_step(data, *START)
    centre = data[:10].mean(axis=0)
    s = minibatch_statistics(data, resp, centre)
    got = parameters_from_statistics(*s, centre, reg_covar=0.0)
    want = m_step(data, resp, "full", reg_covar=0.0)
    for a, b in zip(got, want):
        assert np.allclose(a, b, rtol=1e-9, atol=1e-10)


def test_statistics_far_from_the_origin_keep_their_digits():
    rng = np.random.default_rng(0)
    X = 1e6 + 1e-2 * rng.normal(size=(500, 1))
    resp = np.ones((500, 1))
    centre = X[:20].mean(axis=0)
    _, _, cov = parameters_from_statistics(*minibatch_statistics(X, resp, centre), centre, 0.0)
    assert np.isclose(cov[0, 0, 0], X.var(), rtol=1e-6)


def test_step_sizes():
    eta = step_sizes(5, 0.6)
    assert np.allclose(eta, (np.arange(5) + 2.0) ** -0.6)
    assert np.all(np.diff(eta) < 0) and eta[0] < 1
    assert np.allclose(step_sizes(3, 1), [1 / 2, 1 / 3, 1 / 4])


def test_evaluate_every_counts_passes(data):
    out = stepwise_em(data, *START, batch_size=300, n_epochs=2, evaluate_every=5, rng=0)
    assert np.allclose(out.passes, [0.0, 0.5, 1.0, 1.5, 2.0])
    assert len(out.log_likelihood) == 5


@pytest.mark.parametrize("kwargs, error, fragment", [
    ({"step_exponent": 0.5}, ValueError, "(0.5, 1]"),
    ({"step_exponent": 1.5}, ValueError, "(0.5, 1]"),
    ({"step_exponent": "0.6"}, TypeError, "step_exponent"),
    ({"batch_size": 0}, ValueError, "batch_size"),
    ({"n_epochs": 1.5}, TypeError, "n_epochs"),
    ({"reg_covar": -1.0}, ValueError, "reg_covar"),
    ({"rng": "seed"}, TypeError, "rng"),
])
def test_bad_arguments_raise_clear_errors(data, kwargs, error, fragment):
    with pytest.raises(error, match=None) as info:
        stepwise_em(data, *START, **kwargs)
    assert fragment in str(info.value)


def test_bad_parameters_raise_clear_errors(data):
    with pytest.raises(ValueError, match="weights"):
        stepwise_em(data, np.array([0.5, 0.6, 0.2]), START[1], START[2])
    with pytest.raises(ValueError, match="covariances"):
        stepwise_em(data, START[0], START[1], np.ones(3))
    with pytest.raises(ValueError, match="feature"):
        stepwise_em(data[:, :1], *START)
    with pytest.raises(ValueError, match="empty"):
        parameters_from_statistics(np.array([1.0, 0.0]), np.zeros((2, 1)), np.ones((2, 1, 1)), np.zeros(1))
    with pytest.raises(ValueError, match="resp"):
        minibatch_statistics(data, np.ones((5, 3)), np.zeros(2))
