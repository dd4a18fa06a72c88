"""Tests for lib.datasets: shapes, contents, reproducibility and input validation."""

import doctest

import numpy as np
import pytest
from scipy import stats

from lib import datasets


# ------------------------------------------------------------------ Iris --

def test_load_iris_shapes_and_labels():
    X, y = datasets.load_iris()
    assert X.shape == (150, 4) and X.dtype == np.float64
    assert y.shape == (150,) and y.dtype.kind == "i"
    assert np.array_equal(np.bincount(y), [50, 50, 50])
    assert len(datasets.IRIS_FEATURE_NAMES) == 4 and len(datasets.IRIS_CLASS_NAMES) == 3
    assert all(isinstance(s, str) for s in datasets.IRIS_FEATURE_NAMES + datasets.IRIS_CLASS_NAMES)
    # Fisher's first flower: 5.1, 3.5, 1.4, 0.2, setosa.
    assert np.allclose(X[0], [5.1, 3.5, 1.4, 0.2]) and y[0] == 0


def test_load_iris_feature_selection_by_name_and_index():
    X, _ = datasets.load_iris()
    Xs, _ = datasets.load_iris(features=["petal length", 3])
    assert np.array_equal(Xs, X[:, [2, 3]])
    X1, _ = datasets.load_iris(features="Sepal Width")
    assert np.array_equal(X1, X[:, [1]])
    X2, _ = datasets.load_iris(features=0)
    assert X2.shape == (150, 1)


def test_load_iris_returns_copies():
    X, y = datasets.load_iris()
    X[:] = 0
    y[:] = 7
    X2, y2 = datasets.load_iris()
    assert X2[0, 0] == 5.1 and y2[0] == 0


@pytest.mark.parametrize(
    "features, error, match",
    [
        ("petal area", ValueError, "unknown Iris feature"),
        (4, ValueError, "out of range"),
        ([], ValueError, "empty"),
        ([1.5], TypeError, "indices or names"),
        ([True], TypeError, "boolean"),
        (3.0, TypeError, "features must be"),
    ],
)
def test_load_iris_bad_features(features, error, match):
    with pytest.raises(error, match=match):
        datasets.load_iris(features=features)


# ------------------------------------------------------- worked example --

def test_worked_example_values():
    ex = datasets.worked_example()
    assert np.array_equal(ex["X"], [[-1.5, 0.5], [-1.5, -0.5], [0.0, 0.5], [0.0, -0.5]])
    assert np.array_equal(ex["weights"], [0.5, 0.5])
    assert np.array_equal(ex["means"], [[-1.5, 0.0], [1.5, 0.0]])
    assert np.array_equal(ex["variances"], [0.25, 0.25])
    assert ex["covariance_type"] == "spherical"


def test_worked_example_density_matches_lecture_value():
    # The notes compute N(x_1 | mu_1, 0.25 I) = exp(-0.5) / (2 pi 0.25) ~ 0.386.
    ex = datasets.worked_example()
    dens = stats.multivariate_normal(ex["means"][0], ex["variances"][0] * np.eye(2)).pdf(ex["X"][0])
    assert np.isclose(dens, np.exp(-0.5) / (2 * np.pi * 0.25))
    assert round(dens, 3) == 0.386


def test_worked_example_is_fresh_each_call():
    a = datasets.worked_example()
    a["X"][0, 0] = 99.0
    assert datasets.worked_example()["X"][0, 0] == -1.5


# ---------------------------------------------------------- make_mixture --

def test_make_mixture_shapes_and_reproducibility():
    args = (200, [0.3, 0.7], [[0.0, 0.0], [5.0, 5.0]], [[[1.0, 0.3], [0.3, 1.0]], np.eye(2)])
    X1, z1 = datasets.make_mixture(*args, rng=3)
    X2, z2 = datasets.make_mixture(*args, rng=np.random.default_rng(3))
    assert X1.shape == (200, 2) and z1.shape == (200,) and z1.dtype.kind == "i"
    assert np.array_equal(X1, X2) and np.array_equal(z1, z2)
    assert set(np.unique(z1)) <= {0, 1}


@pytest.mark.parametrize(
    "covariance_type, covariances",
    [
        ("full", [[[1.0, 0.5], [0.5, 2.0]], [[0.5, 0.0], [0.0, 0.25]]]),
        ("tied", [[1.0, 0.5], [0.5, 2.0]]),
        ("diag", [[1.0, 2.0], [0.5, 0.25]]),
        ("spherical", [1.0, 0.25]),
    ],
)
def test_make_mixture_moments(covariance_type, covariances):
    weights = np.array([0.4, 0.6])
    means = np.array([[-3.0, 1.0], [4.0, -2.0]])
    X, z = datasets.make_mixture(20000, weights, means, covariances, covariance_type, rng=0)
    from lib.gaussian import full_covariances

    full = full_covariances(np.asarray(covariances), covariance_type, 2, 2)
    # Component frequencies: binomial standard error ~ 0.0035.
    assert abs(np.mean(z == 0) - 0.4) < 0.02
    for k in range(2):
        Xk = X[z == k]
        assert np.allclose(Xk.mean(axis=0), means[k], atol=0.06)
        assert np.allclose(np.cov(Xk.T), full[k], atol=0.1)


def test_make_mixture_zero_weight_component_never_drawn():
    X, z = datasets.make_mixture(50, [0.0, 1.0], [[0.0], [10.0]], [1.0, 1.0], "spherical", rng=1)
    assert np.all(z == 1)


@pytest.mark.parametrize(
    "kwargs, error, match",
    [
        (dict(n_samples=0), ValueError, "n_samples"),
        (dict(n_samples=2.5), TypeError, "n_samples"),
        (dict(weights=[0.5, 0.6]), ValueError, "sum to 1"),
        (dict(weights=[1.0]), ValueError, "one weight per component"),
        (dict(covariance_type="round"), ValueError, "covariance_type"),
        (dict(covariances=[1.0, 1.0, 1.0]), ValueError, "shape"),
        (dict(covariances=[-1.0, 1.0]), ValueError, "positive"),
        (dict(rng="seed"), TypeError, "Generator"),
    ],
)
def test_make_mixture_bad_inputs(kwargs, error, match):
    args = dict(n_samples=10, weights=[0.5, 0.5], means=[[0.0], [1.0]], covariances=[1.0, 1.0],
                covariance_type="spherical", rng=0)
    args.update(kwargs)
    with pytest.raises(error, match=match):
        datasets.make_mixture(**args)


# ------------------------------------------------------------------ text --

def test_load_text_is_ascii_and_modest():
    text = datasets.load_text()
    assert isinstance(text, str)
    assert text.isascii()
    assert 2000 <= len(text.encode()) <= 10000
    assert text.startswith("Alice was beginning to get very tired")
    assert "#" not in text  # header removed


def test_tokenize_rules():
    assert datasets.tokenize("Oh dear! Oh DEAR!") == ["oh", "dear", "oh", "dear"]
    assert datasets.tokenize("rabbit-hole, didn't; Dinah'll") == ["rabbit", "hole", "didn't", "dinah'll"]
    assert datasets.tokenize("'quoted' 42 words--here") == ["quoted", "words", "here"]
    assert datasets.tokenize("") == []


def test_tokenize_text_statistics():
    tokens = datasets.tokenize(datasets.load_text())
    assert len(tokens) > 1000
    assert all(t == t.lower() and t.strip() == t and t for t in tokens)
    assert tokens[:3] == ["alice", "was", "beginning"]
    assert max(set(tokens), key=tokens.count) == "the"


@pytest.mark.parametrize("bad", [None, b"bytes", ["a", "list"], 3])
def test_tokenize_rejects_non_strings(bad):
    with pytest.raises(TypeError, match="text must be a str"):
        datasets.tokenize(bad)


def test_docstring_examples():
    failures, _ = doctest.testmod(datasets, verbose=False)
    assert failures == 0
