"""Machinery shared by the exercise checks.

A check runs the student's function on several generated inputs, compares it
with ``lib``'s reference, and returns a :class:`CheckResult` whose text names
the *first* problem in plain words.  Three rules hold for every check:

* it never shows the reference answer for the exercise's own inputs;
* it never crashes: wrong types, exceptions raised inside the student's code
  and ``NotImplementedError`` all become messages;
* a pass says what was checked, so "passed" is never read as "proved correct".

Chapter modules (``lib/checks/chNN.py``) build their checks from
:func:`check` (a decorator), :func:`call`, :func:`expect_array`,
:func:`expect_scalar` and :class:`Failure`.
"""

import functools
import hashlib
import math
import traceback

import numpy as np

__all__ = [
    "CheckResult",
    "Failure",
    "NotImplementedYet",
    "check",
    "call",
    "expect_array",
    "expect_scalar",
    "expect_tuple",
    "digest",
    "matches_digest",
]


class CheckResult:
    """Outcome of one exercise check.

    Attributes
    ----------
    exercise : str
        The exercise's label, e.g. ``"ex-bernoulli-mle"``.
    status : {"passed", "failed", "not implemented"}
    message : str
        What a student reads.

    The notebook shows the message (``repr``); ``bool(result)`` is ``True``
    only for a pass, so tests can ``assert check(...)``.
    """

    def __init__(self, exercise, status, message):
        self.exercise = exercise
        self.status = status
        self.message = message

    @property
    def passed(self):
        return self.status == "passed"

    def __bool__(self):
        return self.passed

    def __repr__(self):
        mark = {"passed": "PASSED", "failed": "NOT YET", "not implemented": "TO DO"}[self.status]
        return f"[{mark}] {self.exercise}: {self.message}"

    __str__ = __repr__


class Failure(Exception):
    """Raised inside a check to report a mistake; its text is shown to the student."""


class NotImplementedYet(Exception):
    """Raised when the student's function still raises ``NotImplementedError`` or returns ``...``."""


def check(exercise, what_was_checked):
    """Decorate a check body so that it always returns a :class:`CheckResult`.

    The body raises :class:`Failure` with a message on the first mistake and
    returns normally on success.  ``what_was_checked`` completes the sentence
    "Passed: ..." shown on success.
    """

    def decorate(body):
        @functools.wraps(body)
        def run(*args, **kwargs):
            try:
                body(*args, **kwargs)
            except NotImplementedYet:
                return CheckResult(
                    exercise,
                    "not implemented",
                    "not implemented yet: replace the `raise NotImplementedError` (or `...`) "
                    "with your code, run that cell again, then run this one.",
                )
            except Failure as failure:
                return CheckResult(exercise, "failed", str(failure))
            except Exception as exc:  # a bug in the check must not look like the student's
                where = traceback.format_exception_only(type(exc), exc)[-1].strip()
                return CheckResult(
                    exercise,
                    "failed",
                    f"the check could not evaluate your answer ({where}). "
                    "Look at the types your function returns.",
                )
            return CheckResult(exercise, "passed", f"Passed: {what_was_checked}")

        return run

    return decorate


def call(func, *args, name=None, **kwargs):
    """Call the student's ``func`` and turn every way it can fail into a message."""
    label = name or getattr(func, "__name__", "your function")
    if func is Ellipsis or func is None:
        raise NotImplementedYet()
    if not callable(func):
        raise Failure(
            f"expected a function (pass its name without parentheses), got a {type(func).__name__}."
        )
    # Give the student copies: an in-place edit of the inputs must not corrupt the reference.
    args = tuple(a.copy() if isinstance(a, np.ndarray) else a for a in args)
    try:
        with np.errstate(all="ignore"):
            out = func(*args, **kwargs)
    except NotImplementedError:
        raise NotImplementedYet() from None
    except Exception as exc:
        summary = traceback.format_exception_only(type(exc), exc)[-1].strip()
        raise Failure(
            f"{label} raised an exception: {summary}. Run it on a small input in a cell of its own to debug it."
        ) from None
    if out is Ellipsis:
        raise NotImplementedYet()
    if out is None:
        raise Failure(f"{label} returned None: did you forget a `return` statement?")
    return out


def expect_array(value, shape, what, *, name="your function", finite=True):
    """Return ``value`` as a float array of exactly ``shape`` or raise :class:`Failure`.

    ``finite=False`` lets NaN and infinities through, for a check that names
    their cause itself (a log-probability of -inf can be right).
    """
    if isinstance(value, dict):
        raise Failure(f"{name} returned a dict; return {what} as one numpy array of shape {tuple(shape)}.")
    if isinstance(value, tuple) and shape != () and len(shape) == 1 and len(value) != shape[0]:
        raise Failure(f"{name} returned a tuple of length {len(value)}; expected {what} as one array of shape {shape}.")
    try:
        arr = np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError):
        raise Failure(
            f"{name} should return {what} as a numeric array of shape {shape}, "
            f"got a {type(value).__name__} that numpy cannot turn into numbers."
        ) from None
    if arr.shape != tuple(shape):
        if isinstance(value, tuple):
            raise Failure(f"{name} returned a tuple of length {len(value)}; return {what} as one array of "
                          f"shape {tuple(shape)}.")
        hint = ""
        if arr.shape == tuple(shape)[::-1] and len(shape) == 2:
            hint = " It looks transposed."
        elif arr.size == int(np.prod(shape)):
            hint = " The number of entries is right: check how you reshape or stack."
        raise Failure(f"{name} should return {what} of shape {tuple(shape)}, got shape {arr.shape}.{hint}")
    if not finite:
        return arr
    if np.any(np.isnan(arr)):
        raise Failure(
            f"{name} returned NaN in {what}. If you exponentiate log-densities and then take a log "
            "(or divide by a sum that underflows to 0), work in log space with scipy.special.logsumexp."
        )
    if np.any(np.isinf(arr)):
        raise Failure(
            f"{name} returned an infinite value in {what}: a log of 0 or a division by 0. "
            "Work in log space (logsumexp) and check for empty classes or components."
        )
    return arr


def expect_tuple(value, size, what, *, name="your function"):
    """Return ``value`` (a tuple or list of ``size`` items) or raise :class:`Failure`."""
    if not isinstance(value, (tuple, list)) or len(value) != size:
        got = f"a tuple of length {len(value)}" if isinstance(value, (tuple, list)) else f"a {type(value).__name__}"
        raise Failure(f"{name} should return {what} as a tuple of {size} values, got {got}.")
    return value


def expect_scalar(value, what, *, name="your function"):
    """Return ``value`` as a Python float or raise :class:`Failure`."""
    if isinstance(value, (bool, np.bool_)):
        raise Failure(f"{name} should return {what} as a number, got a boolean.")
    arr = np.asarray(value) if not isinstance(value, (str, bytes)) else None
    if arr is None or arr.dtype.kind not in "iuf" or arr.size != 1:
        shape = "" if arr is None else f" of shape {arr.shape}"
        raise Failure(f"{name} should return {what} as a single number, got a {type(value).__name__}{shape}.")
    out = float(arr.reshape(()))
    if math.isnan(out):
        raise Failure(f"{name} returned NaN for {what}; look for 0 * log(0), 0/0 or a log of a negative number.")
    return out


def digest(value, decimals):
    """A one-way fingerprint of ``value`` rounded to ``decimals`` places.

    Numeric-answer exercises store this digest, not the answer, so reading the
    check's source does not give the answer away at a glance.  It is not a
    secret: an answer with 3 decimals in [0, 1] has only 1001 possible values,
    and anyone can try them all against the digest (the README's "Teaching
    with this book" says so).
    """
    text = f"{round(float(value), decimals):.{decimals}f}"
    if text.startswith("-0") and float(text) == 0.0:
        text = text[1:]
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def matches_digest(value, expected_digest, decimals):
    """True when ``value`` rounds to the stored answer (one unit of tolerance either way)."""
    step = 10.0**-decimals
    return any(digest(value + s * step, decimals) == expected_digest for s in (-1, 0, 1))
