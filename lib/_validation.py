"""Input validation shared by every public entry point of ``lib``.

Each check raises a ``TypeError`` (wrong kind of object) or a ``ValueError``
(right kind, wrong content) whose message says what was expected, what was
received, and how to fix it.  Model code calls these once, at the public
boundary, and then trusts its arrays.
"""

import numbers

import numpy as np
import scipy.sparse
from sklearn.exceptions import ConvergenceWarning  # re-exported: one warning class for both libraries
from sklearn.utils.validation import validate_data

__all__ = [
    "ConvergenceWarning",
    "COVARIANCE_TYPES",
    "check_data",
    "check_estimator_data",
    "check_n_features",
    "check_labels",
    "check_rng",
    "check_probability_vector",
    "check_covariance_type",
    "check_positive_scalar",
    "check_positive_int",
]

#: The covariance structures every Gaussian model in ``lib`` understands.
COVARIANCE_TYPES = ("full", "tied", "diag", "spherical")


def _describe(obj):
    if isinstance(obj, np.ndarray):
        return f"an array of dtype {obj.dtype} and shape {obj.shape}"
    return f"an object of type {type(obj).__name__}"


def check_data(X, name="X", *, ndim=2, min_samples=1, min_features=1):
    """Return ``X`` as a finite float64 array with ``ndim`` dimensions.

    Parameters
    ----------
    X : array-like
        Numeric data, shape ``(n_samples, n_features)`` when ``ndim == 2``,
        ``(n_samples,)`` when ``ndim == 1``.
    name : str
        The argument's name, used in error messages.
    ndim : {1, 2}
        The number of dimensions required.
    min_samples, min_features : int
        Smallest allowed number of rows and (for 2-D data) columns.

    Raises
    ------
    TypeError
        If ``X`` is not numeric (strings, objects, ``None``).
    ValueError
        If ``X`` has the wrong number of dimensions, too few rows or columns,
        or contains NaN or infinity.
    """
    if X is None:
        raise TypeError(f"{name} must be a numeric array, got None.")
    if isinstance(X, (str, bytes)):
        raise TypeError(f"{name} must be a numeric array, got a string {X!r}.")
    try:
        arr = np.asarray(X)
    except Exception as exc:  # ragged nested lists, exotic objects
        raise TypeError(
            f"{name} must be a numeric array (a list of equal-length rows or a numpy array); "
            f"numpy could not convert {_describe(X)}: {exc}"
        ) from None
    if arr.dtype.kind in "USO" or arr.dtype.kind not in "biuf":
        if arr.dtype.kind == "O":
            try:
                arr = arr.astype(np.float64)
            except (TypeError, ValueError):
                raise TypeError(
                    f"{name} must hold numbers only, got {_describe(arr)} with non-numeric entries; "
                    "convert or drop the non-numeric columns first."
                ) from None
        elif arr.dtype.kind == "b":
            pass
        else:
            raise TypeError(
                f"{name} must hold numbers, got {_describe(arr)}; "
                "convert it with np.asarray(..., dtype=float) after encoding any text columns."
            )
    arr = arr.astype(np.float64, copy=False)
    if arr.ndim != ndim:
        if ndim == 2 and arr.ndim == 1:
            hint = "reshape it with X.reshape(-1, 1) for one feature or X.reshape(1, -1) for one sample"
        elif ndim == 2:
            hint = "pass a table with one row per sample and one column per feature"
        else:
            hint = "pass a flat sequence, e.g. with np.ravel"
        raise ValueError(f"{name} must be {ndim}-dimensional, got shape {arr.shape}; {hint}.")
    if arr.shape[0] < min_samples:
        raise ValueError(
            f"{name} must have at least {min_samples} sample(s) (rows), got {arr.shape[0]}."
        )
    if ndim == 2 and arr.shape[1] < min_features:
        raise ValueError(
            f"{name} must have at least {min_features} feature(s) (columns), got {arr.shape[1]}."
        )
    if not np.all(np.isfinite(arr)):
        n_bad = int(np.size(arr) - np.count_nonzero(np.isfinite(arr)))
        raise ValueError(
            f"{name} contains {n_bad} NaN or infinite value(s); remove or impute them first "
            "(for example with np.nan_to_num or by dropping incomplete rows)."
        )
    return arr


def check_labels(y, n_samples, name="y", *, min_classes=2):
    """Return ``(classes, y_index)`` for a 1-D label vector of length ``n_samples``.

    ``classes`` is the sorted array of distinct labels and ``y_index[i]`` the
    position of ``y[i]`` in it, so model code can work with 0, ..., K-1.
    """
    if y is None:
        raise TypeError(f"{name} must be a 1-D array of class labels, got None.")
    try:
        arr = np.asarray(y)
    except Exception:
        raise TypeError(f"{name} must be a 1-D array of class labels, got {_describe(y)}.") from None
    if arr.ndim == 2 and 1 in arr.shape:
        raise ValueError(
            f"{name} must be 1-dimensional, got shape {arr.shape}; flatten it with np.ravel({name})."
        )
    if arr.ndim != 1:
        raise ValueError(f"{name} must be a 1-D array of class labels, got shape {arr.shape}.")
    if arr.shape[0] != n_samples:
        raise ValueError(
            f"{name} has {arr.shape[0]} labels but X has {n_samples} rows; they must match one to one."
        )
    if arr.dtype.kind == "f":
        if not np.all(np.isfinite(arr)):
            raise ValueError(f"{name} contains NaN or infinite labels; every sample needs a class.")
        if not np.all(arr == np.round(arr)):
            raise ValueError(
                f"{name} holds non-integer floats; class labels must be integers or strings. "
                "For a continuous target use a regression model instead."
            )
    elif arr.dtype.kind == "O":
        kinds = {type(v) for v in arr}
        if len(kinds) > 1:
            raise TypeError(
                f"{name} mixes label types {sorted(k.__name__ for k in kinds)}; use one type for all labels."
            )
    elif arr.dtype.kind not in "biuUS":
        raise TypeError(f"{name} must hold integer or string class labels, got dtype {arr.dtype}.")
    classes, y_index = np.unique(arr, return_inverse=True)
    if classes.shape[0] < min_classes:
        raise ValueError(
            f"{name} contains {classes.shape[0]} distinct class(es); a classifier needs at least "
            f"{min_classes}. Check that the training set holds examples of every class."
        )
    return classes, y_index.reshape(-1)


def check_rng(rng):
    """Return a ``numpy.random.Generator`` from ``None``, an int seed or a Generator."""
    if rng is None or isinstance(rng, (numbers.Integral, np.integer)):
        if rng is not None and rng < 0:
            raise ValueError(f"a random seed must be a non-negative integer, got {rng}.")
        return np.random.default_rng(rng)
    if isinstance(rng, np.random.Generator):
        return rng
    if isinstance(rng, np.random.RandomState):
        # scikit-learn style: draw a seed from the legacy generator so results stay reproducible.
        return np.random.default_rng(rng.randint(np.iinfo(np.int32).max))
    raise TypeError(
        f"rng/random_state must be None, an int seed or a numpy.random.Generator, got {_describe(rng)}; "
        "create one with np.random.default_rng(seed)."
    )


def check_probability_vector(p, name="p", *, atol=1e-8, allow_zero=True):
    """Return ``p`` as a float array of non-negative entries summing to 1."""
    arr = check_data(p, name, ndim=1)
    if np.any(arr < 0):
        raise ValueError(f"{name} must have non-negative entries, got a minimum of {arr.min():.3g}.")
    if not allow_zero and np.any(arr == 0):
        raise ValueError(f"{name} must have strictly positive entries; a zero probability makes log(0) = -inf.")
    total = arr.sum()
    if abs(total - 1.0) > atol:
        raise ValueError(
            f"{name} must sum to 1 (it is a probability vector), but it sums to {total:.6g}; "
            f"divide it by its sum: {name} / {name}.sum()."
        )
    return arr


def check_covariance_type(covariance_type):
    """Return ``covariance_type`` if it is one of :data:`COVARIANCE_TYPES`."""
    if not isinstance(covariance_type, str) or covariance_type not in COVARIANCE_TYPES:
        raise ValueError(
            f"covariance_type must be one of {COVARIANCE_TYPES}, got {covariance_type!r}."
        )
    return covariance_type


def check_positive_scalar(value, name, *, allow_zero=False):
    """Return ``value`` as a float if it is a finite number > 0 (or >= 0)."""
    if isinstance(value, bool) or not isinstance(value, (numbers.Real, np.floating, np.integer)):
        raise TypeError(f"{name} must be a number, got {_describe(value)}.")
    value = float(value)
    if not np.isfinite(value) or value < 0 or (value == 0 and not allow_zero):
        bound = ">= 0" if allow_zero else "> 0"
        raise ValueError(f"{name} must be a finite number {bound}, got {value!r}.")
    return value


def check_positive_int(value, name, *, minimum=1):
    """Return ``value`` as an int if it is an integer >= ``minimum``."""
    if isinstance(value, bool) or not isinstance(value, (numbers.Integral, np.integer)):
        raise TypeError(f"{name} must be an integer, got {_describe(value)}.")
    if value < minimum:
        raise ValueError(f"{name} must be an integer >= {minimum}, got {value}.")
    return int(value)


def check_n_features(X, n_features):
    """Raise the ValueError for data whose number of columns differs from the means' (checked arrays)."""
    if X.shape[1] != n_features:
        raise ValueError(
            f"X has {X.shape[1]} feature(s) but the means have {n_features}; they must match."
        )


def check_estimator_data(estimator, X, *, reset):
    """``X`` for an estimator's ``fit`` (``reset=True``) or later methods (``reset=False``).

    Returns :func:`check_data`'s array (the book's error messages); the data
    are converted and checked once.  scikit-learn's ``validate_data`` then
    only does its bookkeeping (``skip_check_array=True``: records or checks
    ``n_features_in_`` and ``feature_names_in_`` from the original object,
    which keeps a DataFrame's column names).  A few cases are worded the way
    scikit-learn's estimator checks expect.
    """
    name = type(estimator).__name__
    if scipy.sparse.issparse(X):
        raise TypeError(
            f"{name} does not accept sparse input (a scipy.sparse matrix or array); "
            "convert it with X.toarray() first."
        )
    try:  # for the checks below only (np.ndim & co. do not accept every array-like)
        arr = np.asarray(X)
    except Exception:
        arr = None  # check_data explains ragged or exotic input
    shape = None if arr is None else arr.shape
    if shape is not None and len(shape) == 1:
        raise ValueError(
            f"X must be 2-dimensional (n_samples, n_features), got shape {shape}. "
            "Reshape your data either using X.reshape(-1, 1) if it has a single feature "
            "or X.reshape(1, -1) if it contains a single sample."
        )
    if arr is not None and np.iscomplexobj(arr):
        raise ValueError(
            "Complex data not supported: X must hold real numbers; "
            "keep X.real and X.imag as separate features if both matter."
        )
    if isinstance(X, np.ndarray) and X.dtype.kind == "O":
        try:
            np.asarray(X, dtype=np.float64)
        except (TypeError, ValueError) as exc:
            raise TypeError(
                f"X must hold numbers only ({exc}); convert or drop the non-numeric columns first."
            ) from None
    if shape is not None and len(shape) == 2 and shape[1] == 0:
        raise ValueError(
            f"X has 0 feature(s) (shape={shape}) while a minimum of 1 is required; "
            "pass at least one column."
        )
    X_checked = check_data(X, "X")  # the book's messages for None, text, NaN/inf, ...
    validate_data(estimator, X, reset=reset, skip_check_array=True)  # bookkeeping only
    return X_checked
