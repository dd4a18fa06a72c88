"""The checks of ex-gda-fisher and ex-gda-ledoit-wolf accept right answers and name typical mistakes."""

import numpy as np
import pytest

import lib.checks
from lib.checks import ch03_fisher
from check_helpers import assert_fails, not_implemented, raises


def test_checks_are_exported():
    for name in ch03_fisher.__all__:
        assert getattr(lib.checks, name) is getattr(ch03_fisher, name)


# ------------------------------------------------------------------ Fisher --


def _fisher(kind="right"):
    def fn(X, y):
        mu0, mu1 = X[y == 0].mean(axis=0), X[y == 1].mean(axis=0)
        R = np.where((y == 1)[:, None], X - mu1, X - mu0)
        pooled = R.T @ R / len(y)
        covs = [np.cov(X[y == k].T, bias=True) for k in (0, 1)]
        w = {
            "right": np.linalg.solve(pooled, mu1 - mu0),
            "unbiased": np.linalg.solve(pooled * len(y) / (len(y) - 2), mu1 - mu0),
            "total": np.linalg.solve(np.cov(X.T), mu1 - mu0),
            "sign": np.linalg.solve(pooled, mu0 - mu1),
            "means": mu1 - mu0,
            "times_sigma": pooled @ (mu1 - mu0),
            "average": np.linalg.solve((covs[0] + covs[1]) / 2, mu1 - mu0),
            "unnormalised": np.linalg.solve(pooled, mu1 - mu0),
        }[kind]
        return w if kind == "unnormalised" else w / np.linalg.norm(w)
    return fn


@pytest.mark.parametrize("kind", ["right", "unbiased", "total"])
def test_fisher_equivalent_answers_pass(kind):
    result = lib.checks.gda_fisher_direction(_fisher(kind))
    assert result.passed, result


@pytest.mark.parametrize(
    "kind, fragments",
    [
        ("sign", ["wrong way"]),
        ("means", ["difference of the class means"]),
        ("times_sigma", ["Sigma^{-1}", "linear system"]),
        ("average", ["n_k / n"]),
        ("unnormalised", ["unit length"]),
    ],
)
def test_fisher_mistakes_are_named(kind, fragments):
    assert_fails(lib.checks.gda_fisher_direction(_fisher(kind)), *fragments)


def test_fisher_wrong_types_and_crashes():
    check = lib.checks.gda_fisher_direction
    assert_fails(check(lambda X, y: np.zeros(X.shape[1])), "zero vector")
    assert_fails(check(lambda X, y: "w"), "w")
    assert_fails(check(lambda X, y: np.ones(X.shape[1] + 1)), "shape")
    assert_fails(check(raises), "raised")
    assert_fails(check(5), "expected a function")
    assert check(not_implemented).status == "not implemented"


# ------------------------------------------------------------- Ledoit-Wolf --


def _lw(kind="right"):
    def fn(X):
        n, d = X.shape
        D = X if kind == "uncentred" else X - X.mean(axis=0)
        S = D.T @ D / (n - 1 if kind == "ddof1" else n)
        avg_var = np.trace(S) / d
        zeta2 = np.sum((S - avg_var * np.eye(d)) ** 2) / d
        mse = sum(np.sum((np.outer(x, x) - S) ** 2) for x in D) / (n * d if kind == "one_n" else n**2 * d)
        if kind == "no_clip":
            return mse / zeta2
        omega = min(mse, zeta2) / zeta2
        return 1 - omega if kind == "complement" else omega
    return fn


def test_ledoit_wolf_right_answer_passes():
    result = lib.checks.gda_ledoit_wolf(_lw())
    assert result.passed, result


def test_one_case_has_the_minimum_active():
    rng = np.random.default_rng(306)
    assert any(np.greater(*ch03_fisher._lw_terms(X)) for X in ch03_fisher._lw_cases(rng))


@pytest.mark.parametrize(
    "kind, fragments",
    [
        ("no_clip", ["above 1", "clip"]),
        ("uncentred", ["centre"]),
        ("ddof1", ["n - 1"]),
        ("one_n", ["1/n^2"]),
        ("complement", ["1 - omega"]),
    ],
)
def test_ledoit_wolf_mistakes_are_named(kind, fragments):
    assert_fails(lib.checks.gda_ledoit_wolf(_lw(kind)), *fragments)


def test_ledoit_wolf_wrong_types_and_crashes():
    check = lib.checks.gda_ledoit_wolf
    assert_fails(check(lambda X: np.ones(3)), "single number")
    assert_fails(check(lambda X: "a"), "single number")
    assert_fails(check(lambda X: 0.5), "does not match")
    assert_fails(check(raises), "raised")
    assert check(not_implemented).status == "not implemented"
