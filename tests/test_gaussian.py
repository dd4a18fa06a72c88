"""lib.gaussian against scipy.stats and against its own closed forms."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import multivariate_normal

from lib import gaussian


def _spd(rng, d, scale=1.0):
    A = rng.normal(size=(d, d))
    return scale * (A @ A.T) + 0.5 * np.eye(d)


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), d=st.integers(1, 6), k=st.integers(1, 4), n=st.integers(1, 30))
def test_log_prob_matches_scipy_for_every_covariance_type(seed, d, k, n):
    rng = np.random.default_rng(seed)
    X = rng.normal(scale=3, size=(n, d))
    means = rng.normal(size=(k, d))
    full = np.stack([_spd(rng, d) for _ in range(k)])
    layouts = {
        "full": (full, full),
        "tied": (full[0], np.repeat(full[:1], k, axis=0)),
        "diag": (np.stack([np.diag(c) for c in full]), np.stack([np.diag(np.diag(c)) for c in full])),
        "spherical": (full[:, 0, 0], full[:, 0, 0][:, None, None] * np.eye(d)),
    }
    for cov_type, (params, dense) in layouts.items():
        got = gaussian.log_prob(X, means, params, cov_type)
        want = np.column_stack([multivariate_normal(means[j], dense[j]).logpdf(X).reshape(-1) for j in range(k)])
        np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-10, err_msg=cov_type)
        np.testing.assert_allclose(gaussian.full_covariances(params, cov_type, k, d), dense)


def test_log_density_stays_finite_where_the_density_underflows():
    # exp(-0.5 * 1e4) underflows to 0.0; its logarithm does not.
    x = np.array([[100.0]])
    value = gaussian.logpdf(x, np.zeros(1), 1.0)[0]
    assert np.isfinite(value)
    assert value == pytest.approx(-0.5 * np.log(2 * np.pi) - 5000.0)


def test_standard_normal_closed_form():
    x = np.array([[0.0, 0.0], [1.0, -1.0]])
    got = gaussian.logpdf(x, np.zeros(2), np.eye(2))
    np.testing.assert_allclose(got, [-np.log(2 * np.pi), -np.log(2 * np.pi) - 1.0])


def test_cholesky_factors_reconstruct_the_covariance():
    rng = np.random.default_rng(0)
    cov = np.stack([_spd(rng, 3) for _ in range(2)])
    L = gaussian.cholesky_factors(cov, "full")
    np.testing.assert_allclose(L @ np.swapaxes(L, 1, 2), cov)
    assert np.allclose(np.triu(L[0], 1), 0)
    np.testing.assert_allclose(gaussian.cholesky_factors(np.array([4.0, 9.0]), "spherical"), [2.0, 3.0])


def test_sample_moments_and_reproducibility():
    rng_cov = np.random.default_rng(1)
    cov = _spd(rng_cov, 3)
    mean = np.array([1.0, -2.0, 0.5])
    a = gaussian.sample(mean, cov, 20000, rng=0)
    b = gaussian.sample(mean, cov, 20000, rng=np.random.default_rng(0))
    np.testing.assert_array_equal(a, b)
    assert a.shape == (20000, 3)
    np.testing.assert_allclose(a.mean(axis=0), mean, atol=0.06)
    np.testing.assert_allclose(np.cov(a.T), cov, rtol=0.08, atol=0.05)


@pytest.mark.parametrize(
    "args, kwargs, error, match",
    [
        (([[0.0, 1.0]], [[0.0, 0.0]], [[[1.0, 2.0], [2.0, 1.0]]]), {}, ValueError, "not positive definite"),
        (([[0.0, 1.0]], [[0.0, 0.0]], [[[1.0, 0.5], [0.0, 1.0]]]), {}, ValueError, "symmetric"),
        (([[0.0, 1.0]], [[0.0, 0.0]], [1.0]), {"covariance_type": "full"}, ValueError, "must have shape"),
        (([[0.0, 1.0]], [[0.0, 0.0]], [1.0]), {"covariance_type": "banana"}, ValueError, "covariance_type must be one of"),
        (([[0.0, np.nan]], [[0.0, 0.0]], [1.0]), {"covariance_type": "spherical"}, ValueError, "NaN or infinite"),
        (([0.0, 1.0], [[0.0, 0.0]], [1.0]), {"covariance_type": "spherical"}, ValueError, "reshape"),
        (([["a", "b"]], [[0.0, 0.0]], [1.0]), {"covariance_type": "spherical"}, TypeError, "numbers"),
        (([[0.0, 1.0, 2.0]], [[0.0, 0.0]], [1.0]), {"covariance_type": "spherical"}, ValueError, "feature"),
        (([[0.0, 1.0]], [[0.0, 0.0]], [0.0]), {"covariance_type": "spherical"}, ValueError, "strictly positive"),
    ],
)
def test_bad_input_gets_a_clear_message(args, kwargs, error, match):
    with pytest.raises(error, match=match):
        gaussian.log_prob(*args, **kwargs)


def test_bad_rng_is_rejected_with_a_hint():
    with pytest.raises(TypeError, match="default_rng"):
        gaussian.sample(np.zeros(2), np.eye(2), 3, rng="seed")
