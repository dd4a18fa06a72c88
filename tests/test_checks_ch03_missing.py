"""The check of ex-gda-conditional accepts right answers and names typical mistakes."""

import numpy as np
import pytest

import lib.checks
from lib.checks import ch03_missing
from check_helpers import assert_fails, not_implemented, raises


def test_check_is_exported():
    assert lib.checks.gda_conditional is ch03_missing.gda_conditional


def _blocks(mean, cov, o):
    m = ~o
    return cov[np.ix_(o, o)], cov[np.ix_(m, o)], cov[np.ix_(o, m)], cov[np.ix_(m, m)], m


def right(mean, cov, o, x_o):
    S_oo, S_mo, S_om, S_mm, m = _blocks(mean, cov, o)
    gain = np.linalg.solve(S_oo, S_om).T
    return mean[m] + gain @ (x_o - mean[o]), S_mm - gain @ S_om


def right_lists(mean, cov, o, x_o):
    a, b = right(mean, cov, o, x_o)
    return a.tolist(), b.tolist()


def test_right_answers_pass():
    for fn in (right, right_lists):
        result = lib.checks.gda_conditional(fn)
        assert result.passed, result


def _mean_variant(kind):
    def fn(mean, cov, o, x_o):
        S_oo, S_mo, S_om, S_mm, m = _blocks(mean, cov, o)
        r = x_o - mean[o]
        cond_cov = S_mm - S_mo @ np.linalg.solve(S_oo, S_om)
        cond_mean = {
            "no_centring": mean[m] + S_mo @ np.linalg.solve(S_oo, x_o),
            "not_inverse": mean[m] + S_mo @ S_oo @ r,
            "transposed": mean[m] + (S_om @ np.linalg.solve(S_oo, r) if S_om.shape[0] == S_om.shape[1]
                                     else S_mo @ np.linalg.solve(S_oo, r)),
            "no_mu_m": S_mo @ np.linalg.solve(S_oo, r),
            "sign": mean[m] - S_mo @ np.linalg.solve(S_oo, r),
            "marginal": mean[m],
        }[kind]
        return cond_mean, cond_cov
    return fn


def _cov_variant(kind):
    def fn(mean, cov, o, x_o):
        S_oo, S_mo, S_om, S_mm, m = _blocks(mean, cov, o)
        cond_mean = mean[m] + S_mo @ np.linalg.solve(S_oo, x_o - mean[o])
        right_cov = S_mm - S_mo @ np.linalg.solve(S_oo, S_om)
        cond_cov = {
            "marginal": S_mm,
            "sign": S_mm + S_mo @ np.linalg.solve(S_oo, S_om),
            "not_inverse": S_mm - S_mo @ S_oo @ S_om,
            "transposed": (S_mm - S_om @ np.linalg.solve(S_oo, S_mo) if S_om.shape[0] == S_om.shape[1]
                           else right_cov),
            "std": np.sqrt(right_cov) if right_cov.shape == (1, 1) else right_cov,
        }[kind]
        return cond_mean, cond_cov
    return fn


@pytest.mark.parametrize(
    "kind, fragments",
    [
        ("no_centring", ["x_o - mu_o"]),
        ("not_inverse", ["inverse"]),
        ("transposed", ["transposed", "Sigma_mo"]),
        ("no_mu_m", ["missing mu_m"]),
        ("sign", ["wrong sign"]),
        ("marginal", ["ignores the observed"]),
    ],
)
def test_mean_mistakes_are_named(kind, fragments):
    assert_fails(lib.checks.gda_conditional(_mean_variant(kind)), *fragments)


@pytest.mark.parametrize(
    "kind, fragments",
    [
        ("marginal", ["marginal Sigma_mm"]),
        ("sign", ["wrong sign"]),
        ("not_inverse", ["inverse"]),
        ("transposed", ["transposed"]),
        ("std", ["standard deviation", "VARIANCE"]),
    ],
)
def test_covariance_mistakes_are_named(kind, fragments):
    assert_fails(lib.checks.gda_conditional(_cov_variant(kind)), *fragments)


def test_swapped_outputs_wrong_types_and_crashes():
    assert_fails(lib.checks.gda_conditional(lambda *a: right(*a)[::-1]), "(cond_mean, cond_cov)")
    assert_fails(lib.checks.gda_conditional(lambda *a: right(*a)[0]), "tuple")
    assert_fails(lib.checks.gda_conditional(lambda *a: ("a", "b")), "cond_mean")
    assert_fails(lib.checks.gda_conditional(lambda *a: (np.zeros(7), np.zeros((2, 2)))), "shape")
    assert_fails(lib.checks.gda_conditional(raises), "raised")
    assert_fails(lib.checks.gda_conditional(3), "expected a function")
    assert lib.checks.gda_conditional(not_implemented).status == "not implemented"


def test_message_never_contains_the_expected_numbers():
    result = lib.checks.gda_conditional(_mean_variant("sign"))
    rng = np.random.default_rng(304)
    mean, cov, o, x_o = next(ch03_missing._cases(rng))
    want, _ = right(mean, cov, o, x_o)
    assert all(f"{v:.3f}" not in result.message for v in want)
