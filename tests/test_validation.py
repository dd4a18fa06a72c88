"""lib._validation: every message says what was expected and how to fix it."""

import numpy as np
import pytest

from lib import _validation as v


def test_check_data_accepts_lists_and_ints():
    X = v.check_data([[1, 2], [3, 4]])
    assert X.dtype == np.float64 and X.shape == (2, 2)


@pytest.mark.parametrize(
    "X, error, match",
    [
        (None, TypeError, "got None"),
        ("abc", TypeError, "string"),
        (np.array([["a", "b"]]), TypeError, "numbers"),
        ([1.0, 2.0], ValueError, r"reshape\(-1, 1\)"),
        (np.zeros((2, 2, 2)), ValueError, "2-dimensional"),
        ([[np.inf, 1.0]], ValueError, "NaN or infinite"),
        (np.zeros((0, 3)), ValueError, "at least 1 sample"),
        ([[1, 2], [3]], TypeError, "numeric array"),
    ],
)
def test_check_data_errors(X, error, match):
    with pytest.raises(error, match=match):
        v.check_data(X)


def test_check_labels_maps_strings_to_indices():
    classes, idx = v.check_labels(np.array(["b", "a", "b"]), 3)
    assert list(classes) == ["a", "b"] and list(idx) == [1, 0, 1]


@pytest.mark.parametrize(
    "y, n, error, match",
    [
        ([0, 0, 0], 3, ValueError, "at least 2"),
        ([0.5, 1.0, 0.0], 3, ValueError, "non-integer"),
        ([0, 1], 3, ValueError, "must match"),
        (np.array([[0], [1], [0]]), 3, ValueError, "np.ravel"),
        (np.array([0, "a", 1], dtype=object), 3, TypeError, "mixes label types"),
        ([0, np.nan, 1], 3, ValueError, "NaN"),
    ],
)
def test_check_labels_errors(y, n, error, match):
    with pytest.raises(error, match=match):
        v.check_labels(y, n)


def test_check_probability_vector():
    np.testing.assert_allclose(v.check_probability_vector([0.25, 0.75]), [0.25, 0.75])
    with pytest.raises(ValueError, match="sums to 1.5"):
        v.check_probability_vector([0.75, 0.75])
    with pytest.raises(ValueError, match="non-negative"):
        v.check_probability_vector([-0.5, 1.5])


def test_check_rng():
    assert isinstance(v.check_rng(3), np.random.Generator)
    g = np.random.default_rng(1)
    assert v.check_rng(g) is g
    a = v.check_rng(np.random.RandomState(0)).random()
    b = v.check_rng(np.random.RandomState(0)).random()
    assert a == b
    with pytest.raises(ValueError, match="non-negative"):
        v.check_rng(-1)


def test_scalar_checks():
    assert v.check_positive_scalar(1e-6, "reg_covar") == 1e-6
    with pytest.raises(ValueError, match="reg_covar must be a finite number > 0"):
        v.check_positive_scalar(0.0, "reg_covar")
    with pytest.raises(TypeError, match="must be a number"):
        v.check_positive_scalar("1", "reg_covar")
    with pytest.raises(ValueError, match=">= 1"):
        v.check_positive_int(0, "n_components")
    with pytest.raises(TypeError, match="integer"):
        v.check_positive_int(2.5, "n_components")
