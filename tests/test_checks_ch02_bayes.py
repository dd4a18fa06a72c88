"""Tests for the checks of chapter 2's MAP page: right answers pass, typical slips are named,
bad submissions become messages."""

import numpy as np
import pytest

import lib.checks
from lib.checks import ch02_bayes

from check_helpers import assert_fails, assert_standard_failure_modes


def test_checks_exported():
    for name in ch02_bayes.__all__:
        assert getattr(lib.checks, name) is getattr(ch02_bayes, name)


@pytest.mark.parametrize("check", [ch02_bayes.beta_bernoulli_map, ch02_bayes.dirichlet_categorical_map])
def test_bad_submissions(check):
    assert_standard_failure_modes(check)
    assert_fails(check(lambda *a: [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0]))


# ---------------------------------------------------------- ex-beta-map --

def test_beta_map_right_answers():
    assert ch02_bayes.beta_bernoulli_map(lambda n1, n, a, b: (n1 + a - 1) / (n + a + b - 2))
    assert ch02_bayes.beta_bernoulli_map(lambda n1, n, a, b: np.float64(n1 + a - 1) / (n - n1 + b - 1 + n1 + a - 1))
    result = ch02_bayes.beta_bernoulli_map(lambda n1, n, a, b: (n1 + a - 1) / (n + a + b - 2))
    assert "(n1 + a - 1)" not in result.message   # the pass message does not spell out the formula


@pytest.mark.parametrize(
    "wrong, fragments",
    [
        (lambda n1, n, a, b: (n1 + a) / (n + a + b), ["posterior mean"]),
        (lambda n1, n, a, b: (n1 + a) / (n + a + b - 2), ["numerator", "-1"]),
        (lambda n1, n, a, b: (n1 + a - 1) / (n + a + b), ["n + alpha + beta - 2"]),
        (lambda n1, n, a, b: (n1 + a - 1) / (n + a + b - 1), ["-1 where it needs -2"]),
        (lambda n1, n, a, b: (n1 + a - 1) / (a + b - 2), ["forgets the n flips"]),
        (lambda n1, n, a, b: (n - n1 + b - 1) / (n + a + b - 2), ["probability of a 0"]),
        (lambda n1, n, a, b: (n1 + b - 1) / (n + a + b - 2), ["swapped"]),
        (lambda n1, n, a, b: n1 / n, ["maximum likelihood estimate"]),
        (lambda n1, n, a, b: (a - 1) / (a + b - 2), ["mode of the prior"]),
        (lambda n1, n, a, b: (n1 + a - 1) / (n + a + b - 2) + 2, ["not a probability"]),
        (lambda n1, n, a, b: (n1 + a - 0.9) / (n + a + b - 1.8), ["wrong estimate", "log-posterior"]),
    ],
)
def test_beta_map_typical_slips(wrong, fragments):
    assert_fails(ch02_bayes.beta_bernoulli_map(wrong), *fragments)


def test_beta_map_mle_slip_named_even_when_it_divides_by_zero_only_later():
    # n1 / n is caught on the first (generic) input, before the n = 0 case would raise
    result = ch02_bayes.beta_bernoulli_map(lambda n1, n, a, b: n1 / n)
    assert "maximum likelihood" in result.message


def test_beta_map_wrong_types():
    assert_fails(ch02_bayes.beta_bernoulli_map(lambda n1, n, a, b: np.array([0.1, 0.2])), "array of shape (2,)")
    # issue 52: "returns the MAP estimate as a float": the int 0 of a sample without ones is refused
    assert_fails(ch02_bayes.beta_bernoulli_map(
        lambda n1, n, a, b: 0 if n1 == 0 and a == 1 else (n1 + a - 1) / (n + a + b - 2)), "returned an integer")
    assert_fails(ch02_bayes.beta_bernoulli_map(lambda n1, n, a, b: True), "boolean")
    assert_fails(ch02_bayes.beta_bernoulli_map(lambda n1, n, a, b: float("nan")), "NaN")


def test_beta_map_messages_never_show_the_answer():
    wrong = lambda n1, n, a, b: (n1 + a - 0.9) / (n + a + b - 1.8)  # noqa: E731
    message = ch02_bayes.beta_bernoulli_map(wrong).message
    assert f"{4 / 15:.3f}" not in message and f"{4 / 15:.2f}" not in message


# ----------------------------------------------------- ex-dirichlet-map --

def right_dirichlet(counts, alpha):
    c = np.asarray(counts, dtype=float) + np.asarray(alpha, dtype=float) - 1
    return c / c.sum()


def test_dirichlet_map_right_answers():
    assert ch02_bayes.dirichlet_categorical_map(right_dirichlet)
    assert ch02_bayes.dirichlet_categorical_map(
        lambda n, a: (n + a - 1) / (n.sum() + a.sum() - n.size))
    assert_fails(ch02_bayes.dirichlet_categorical_map(lambda n, a: list(right_dirichlet(n, a))), "returned a list")


@pytest.mark.parametrize(
    "wrong, fragments",
    [
        (lambda n, a: (n + a) / (n.sum() + a.sum()), ["posterior mean"]),
        (lambda n, a: (n + a) / (n.sum() + a.sum() - n.size), ["numerators", "-1"]),
        (lambda n, a: (n + a - 1) / (n.sum() + a.sum()), ["do not sum to one", "minus V"]),
        (lambda n, a: (n + a - 1) / (n.sum() + a.sum() - 1), ["subtracts 1 where it must subtract V"]),
        (lambda n, a: (n + a - 1.0), ["coefficients", "divide"]),
        (lambda n, a: n / n.sum(), ["maximum likelihood estimate"]),
        (lambda n, a: (a - 1) / (a.sum() - a.size), ["mode of the prior"]),
        (lambda n, a: right_dirichlet(n, a) - 0.5, ["negative"]),
        (lambda n, a: right_dirichlet(n, a) * 1.5, ["sum to"]),
        (lambda n, a: right_dirichlet(n, a)[::-1], ["wrong probabilities", "nu"]),
        (lambda n, a: dict(enumerate(right_dirichlet(n, a))), ["not a dict"]),
        (lambda n, a: right_dirichlet(n, a)[:, None], ["shape"]),
    ],
)
def test_dirichlet_map_typical_slips(wrong, fragments):
    assert_fails(ch02_bayes.dirichlet_categorical_map(wrong), *fragments)


def test_dirichlet_map_refuses_edited_inputs():
    def edits_alpha(counts, alpha):
        out = right_dirichlet(counts, alpha)
        alpha[:] = 1
        return out

    assert_fails(ch02_bayes.dirichlet_categorical_map(edits_alpha), "changed its argument `alpha` in place")
