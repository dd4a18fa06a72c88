"""The check of the chunk-sums M-step exercise (lib/checks/ch04_scale.py): the right answer
passes, every typical mistake gets its own message, and no input crashes it."""

import pytest

import lib.checks
from check_helpers import assert_fails, not_implemented, raises
from lib.checks import ch04_scale

check = lib.checks.em_m_step_from_sums


def _right(counts, first, second, centres, n):
    shift = first / counts[:, None]
    return counts / n, centres + shift, second / counts[:, None, None] - shift[:, :, None] * shift[:, None, :]


def _variant(kind):
    def fn(counts, first, second, centres, n):
        w, m, c = _right(counts, first, second, centres, n)
        shift = first / counts[:, None]
        outer = shift[:, :, None] * shift[:, None, :]
        if kind == "no-correction":
            c = second / counts[:, None, None]
        elif kind == "plus":
            c = second / counts[:, None, None] + outer
        elif kind == "by-n":
            c = second / n - outer
        elif kind == "n-1":
            c = second / (counts - 1)[:, None, None] - outer
        elif kind == "twice":
            c = second / counts[:, None, None] - 2 * outer
        elif kind == "mean-no-centre":
            m = shift
        elif kind == "mean-by-n":
            m = centres + first / n
        elif kind == "mean-sign":
            m = centres - shift
        elif kind == "weights-counts":
            w = counts
        elif kind == "weights-K":
            w = counts / len(counts)
        elif kind == "tuple":
            return w, m
        elif kind == "transposed-means":
            m = m.T
        return w, m, c
    return fn


def test_all_checks_exported():
    for name in ch04_scale.__all__:
        assert getattr(lib.checks, name) is getattr(ch04_scale, name)


def test_right_answer_passes_and_says_what_was_checked():
    result = check(_right)
    assert result.passed, result
    assert "3 mixtures" in result.message and "previous means" in result.message


def test_the_book_solution_passes_on_lists_too():
    assert check(lambda *a: tuple(x.tolist() for x in _right(*a))).passed


@pytest.mark.parametrize("kind, fragments", [
    ("no-correction", ["S_k / n_k", "subtract"]),
    ("plus", ["wrong sign"]),
    ("by-n", ["divide the scatter by n", "own soft count"]),
    ("n-1", ["n_k - 1"]),
    ("twice", ["cross terms"]),
    ("mean-no-centre", ["add the centre"]),
    ("mean-by-n", ["divided the sums n_k delta_k (first) by n"]),
    ("mean-sign", ["sign of the step"]),
    ("weights-counts", ["soft counts n_k", "divide by the number of points"]),
    ("weights-K", ["by K"]),
    ("tuple", ["(weights, means, covariances) as a tuple of 3 values", "length 2"]),
    ("transposed-means", ["transposed"]),
])
def test_typical_mistakes_are_named(kind, fragments):
    assert_fails(check(_variant(kind)), *fragments)


def test_messages_never_show_numbers_of_the_answer():
    for kind in ("no-correction", "plus", "by-n", "mean-no-centre", "weights-counts"):
        message = check(_variant(kind)).message
        assert not any(ch.isdigit() for ch in message.replace("n_k - 1", "").replace("d = 2, 3", "")
                       .replace("1e4", "")), message


def test_untouched_raising_and_wrong_types_do_not_crash():
    assert check(not_implemented).status == "not implemented"
    assert_fails(check(raises), "raised an exception", "RuntimeError")
    assert_fails(check(lambda *a: "weights"), "tuple")
    assert_fails(check(lambda *a: (1, 2, 3)), "weights")
    assert_fails(check(lambda *a: None), "return")


def test_the_student_cannot_change_the_sums_the_check_uses():
    def mutating(counts, first, second, centres, n):
        out = _right(counts, first, second, centres, n)
        counts *= 0  # a student who overwrites the inputs in place
        return out
    assert check(mutating).passed


# ---- ex-em-stepwise ------------------------------------------------------------------------

import numpy as np  # noqa: E402
from check_helpers import assert_standard_failure_modes  # noqa: E402
from lib.mixture import e_step  # noqa: E402

step_check = lib.checks.em_stepwise_step


def _batch(X, w, m, c, centre):
    r, _ = e_step(X, w, m, c)
    D = X - centre
    return r.mean(axis=0), r.T @ D / len(X), np.einsum("mk,md,me->kde", r, D, D) / len(X)


def _step(kind):
    def fn(stats, X, w, m, c, centre, t, tau):
        eta = (t + 2.0) ** (-tau)
        b = _batch(X, w, m, c, np.zeros_like(centre) if kind == "origin" else centre)
        if kind == "t+1":
            eta = (t + 1.0) ** (-tau)
        if kind == "sums":
            b = tuple(x * len(X) for x in b)
        if kind == "no-decay":
            return tuple(s + eta * x for s, x in zip(stats, b))
        if kind == "swapped":
            return tuple((1 - eta) * x + eta * s for s, x in zip(stats, b))
        if kind == "replace":
            return b
        if kind == "pair":
            return stats[:2]
        return tuple((1 - eta) * s + eta * x for s, x in zip(stats, b))
    return fn


def test_stepwise_right_answer_passes():
    result = step_check(_step("right"))
    assert result.passed, result
    assert "3 minibatches" in result.message


@pytest.mark.parametrize("kind, fragments", [
    ("t+1", ["(t + 2)^(-tau)"]),
    ("sums", ["averages per point"]),
    ("no-decay", ["full weight"]),
    ("swapped", ["swapped"]),
    ("replace", ["replaced"]),
    ("origin", ["about the origin"]),
    ("pair", ["tuple of 3 values"]),
])
def test_stepwise_typical_mistakes_are_named(kind, fragments):
    assert_fails(step_check(_step(kind)), *fragments)


def test_stepwise_standard_failure_modes():
    assert_standard_failure_modes(step_check)


def test_stepwise_student_cannot_change_the_inputs():
    def mutating(stats, X, w, m, c, centre, t, tau):
        out = _step("right")(stats, X, w, m, c, centre, t, tau)
        stats[0][:] = 0
        X[:] = 0
        return out
    assert step_check(mutating).passed
