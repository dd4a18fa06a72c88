"""The chapter 4 derivation checks accept right answers and name typical mistakes."""

import numpy as np
import pytest

import lib.checks
from lib import em_theory, mixture
from lib.checks import ch04_derivations as ch
from check_helpers import assert_fails, assert_standard_failure_modes

CHECKS = [ch.em_lagrange_weights, ch.em_m_step_full, ch.em_missing_information_rate, ch.em_map_covariances]


def test_checks_are_exported():
    for name in ch.__all__:
        assert getattr(lib.checks, name) is getattr(ch, name)


@pytest.mark.parametrize("check", CHECKS, ids=lambda c: c.__name__)
def test_generic_failures(check):
    assert_standard_failure_modes(check)
    assert check(lambda *a: "a string").status == "failed"
    assert check(lambda *a: None).status == "failed"


# ------------------------------------------------------------------ Lagrange weights --

def weights_right(resp, counts):
    nk = counts @ resp
    return nk / counts.sum()


def test_weights_right():
    result = ch.em_lagrange_weights(weights_right)
    assert result, result
    assert result.message.startswith("Passed")


@pytest.mark.parametrize("wrong, fragment", [
    (lambda r, c: r.sum(axis=0) / len(r), "ignore the counts"),
    (lambda r, c: (c @ r) / len(r), "divide by n"),
    (lambda r, c: c @ r, "soft counts themselves"),
    (lambda r, c: (c @ r) / r.shape[1], "number of components K"),
    (lambda r, c: r.sum(axis=0) / r.shape[1], "number of components K"),
    (lambda r, c: np.full(r.shape[1], 1 / r.shape[1]), "uniform"),
    (lambda r, c: (c @ r) / c.sum() + 0.01, "do not sum to 1"),
    (lambda r, c: (c @ r) ** 2 / np.sum((c @ r) ** 2), "differ from the maximiser"),
    (lambda r, c: np.ones((2, 2)), "shape"),
])
def test_weights_mistakes(wrong, fragment):
    assert_fails(ch.em_lagrange_weights(wrong), fragment)


# ------------------------------------------------------------------ full M-step --

def _iteration(X, w, m, c, how="right"):
    resp, _ = mixture.e_step(X, w, m, c, "full")
    n, d = X.shape
    nk = resp.sum(axis=0)
    weights = nk / n
    means = resp.T @ X / nk[:, None]
    centres = m if how == "old means" else means
    gam = np.ones_like(resp) if how in ("unweighted", "unweighted n") else resp
    covs = np.stack([(gam[:, k] * (X - centres[k]).T) @ (X - centres[k]) for k in range(len(nk))])
    if how == "n_k - 1":
        covs /= (nk - 1)[:, None, None]
    elif how in ("n", "unweighted n"):
        covs /= n
    else:
        covs /= nk[:, None, None]
    if how == "ridge":
        covs = covs + 1e-6 * np.eye(d)
    if how == "weights by K":
        weights = nk / len(nk)
    if how == "weights counts":
        weights = nk
    if how == "mean sum":
        means = resp.T @ X
    if how == "data cov":
        covs = np.stack([np.cov(X.T, bias=True)] * len(nk))
    return weights, means, covs


def test_full_right():
    assert ch.em_m_step_full(_iteration), ch.em_m_step_full(_iteration)


@pytest.mark.parametrize("how, fragment", [
    ("n_k - 1", "n_k - 1"),
    ("old means", "old means"),
    ("unweighted", "ignore the responsibilities"),
    ("unweighted n", "ignore the responsibilities"),
    ("n", "divide by n"),
    ("ridge", "small ridge"),
    ("weights by K", "number of components K"),
    ("weights counts", "soft counts n_k"),
    ("mean sum", "weighted sums"),
    ("data cov", "whole data set"),
])
def test_full_mistakes(how, fragment):
    assert_fails(ch.em_m_step_full(lambda X, w, m, c: _iteration(X, w, m, c, how)), fragment)


def test_full_wrong_shapes():
    assert_fails(ch.em_m_step_full(lambda X, w, m, c: (w, m)), "tuple")
    assert_fails(ch.em_m_step_full(lambda X, w, m, c: (w, m, c[0])), "shape")


# ------------------------------------------------------------------ rate --

def _rate_parts(x, w, m, v, c, var=None):
    v_used = v if var is None else var
    resp, _ = mixture.e_step(x[:, None], w, m[:, None], v_used, "spherical")
    return resp[:, c], x - m[c]


def _information(x, w, m, v, c):
    """(complete, missing, observed) information for mean c, written without lib.em_theory."""
    g, r = _rate_parts(x, w, m, v, c)
    complete = g.sum() / v[c]
    missing = np.sum(g * (1 - g) * r**2) / v[c] ** 2
    return complete, missing, complete - missing


def rate_right(x, w, m, v, c):
    complete, missing, _ = _information(x, w, m, v, c)
    return missing / complete


def test_rate_right():
    assert ch.em_missing_information_rate(rate_right)
    rng = np.random.default_rng(1)
    x, w, m, v = rng.normal(size=40), np.array([0.3, 0.7]), np.array([-1.0, 1.0]), np.array([0.8, 1.5])
    assert np.isclose(rate_right(x, w, m, v, 1), em_theory.em_rate(x, w, m, v, 1))


@pytest.mark.parametrize("wrong, fragment", [
    (lambda x, w, m, v, c: 1 - rate_right(x, w, m, v, c), "1 minus the rate"),
    (lambda x, w, m, v, c: (lambda i: i[1] / i[2])(_information(x, w, m, v, c)), "observed information"),
    (lambda x, w, m, v, c: (lambda g, r: np.sum(g * r**2) / v[c] ** 2 / (g.sum() / v[c]))(*_rate_parts(x, w, m, v, c)),
     "(1 - gamma_ic)"),
    (lambda x, w, m, v, c: (lambda g, r: np.sum(g * (1 - g) * r**2) / v[c] / (g.sum() / v[c]))(*_rate_parts(x, w, m, v, c)),
     "lacks a factor 1 / sigma_c^2"),
    (lambda x, w, m, v, c: (lambda g, r: np.sum(g * (1 - g) * r**2) / g.sum())(*_rate_parts(x, w, m, v, c)),
     "lacks a factor 1 / sigma_c^2"),
    (lambda x, w, m, v, c: (lambda g, r: np.sum(g * (1 - g) * r**2) / v[c] ** 4 / (g.sum() / v[c] ** 2))(
        *_rate_parts(x, w, m, v, c, v**2)), "squared the variances"),
    (lambda x, w, m, v, c: (lambda g, r: np.sum(g * (1 - g) * r**2) / v[c] ** 4 / (g.sum() / v[c] ** 2))(
        *_rate_parts(x, w, m, v, c)), "squared variances[c]"),
    (lambda x, w, m, v, c: (lambda g, r: np.sum(g * (1 - g) * r**2) / (v[c] * len(x)))(*_rate_parts(x, w, m, v, c)),
     "all n points"),
    (lambda x, w, m, v, c: 1.5, "lies in [0, 1)"),
    (lambda x, w, m, v, c: 0.5 * rate_right(x, w, m, v, c), "differs from I_missing / I_complete"),
    (lambda x, w, m, v, c: np.array([0.1, 0.2]), "single number"),
])
def test_rate_mistakes(wrong, fragment):
    assert_fails(ch.em_missing_information_rate(wrong), fragment)


# ------------------------------------------------------------------ MAP covariances --

def map_right(X, resp, psi, nu):
    nk, S, d = _map_parts(X, resp)
    return (psi + S) / (nk + nu + d + 1)[:, None, None]


def _map_parts(X, resp, centres=None):
    nk = resp.sum(axis=0)
    means = resp.T @ X / nk[:, None]
    c = means if centres is None else centres
    S = np.stack([(resp[:, k] * (X - c[k]).T) @ (X - c[k]) for k in range(len(nk))])
    return nk, S, X.shape[1]


def _map_wrong(kind):
    def fn(X, resp, psi, nu):
        if kind == "unweighted":
            nk, _, d = _map_parts(X, resp)
            _, S, _ = _map_parts(X, np.ones_like(resp), resp.T @ X / nk[:, None])
        elif kind == "origin":
            nk, S, d = _map_parts(X, resp, np.zeros((resp.shape[1], X.shape[1])))
        else:
            nk, S, d = _map_parts(X, resp)
        n3 = lambda a: a[:, None, None]
        return {
            "no d+1": (psi + S) / n3(nk + nu),
            "no nu": (psi + S) / n3(nk + d + 1),
            "ml denominator": (psi + S) / n3(nk),
            "ml": S / n3(nk),
            "split": S / n3(nk) + psi / n3(nk + nu + d + 1),
            "no psi": S / n3(nk + nu + d + 1),
            "unweighted": (psi + S) / n3(nk + nu + d + 1),
            "origin": (psi + S) / n3(nk + nu + d + 1),
            "d-1": (psi + S) / n3(nk + nu + d - 1),
            "other": (2 * psi + S) / n3(nk + nu + d + 1),
        }[kind]
    return fn


def test_map_right():
    assert ch.em_map_covariances(map_right)
    rng = np.random.default_rng(2)
    X, resp, psi = rng.normal(size=(30, 2)), rng.dirichlet(np.ones(3), size=30), np.eye(2) * 0.5
    assert np.allclose(map_right(X, resp, psi, 4.0), mixture.map_m_step(X, resp, psi, 4.0)[2])


@pytest.mark.parametrize("kind, fragment", [
    ("no d+1", "lacks the d + 1"),
    ("no nu", "degrees of freedom kappa"),
    ("ml denominator", "maximum-likelihood denominator"),
    ("ml", "maximum-likelihood covariances"),
    ("split", "different numbers"),
    ("no psi", "forgot Psi"),
    ("unweighted", "ignores the responsibilities"),
    ("origin", "about the origin"),
    ("d-1", "d - 1"),
    ("other", "differ from the MAP update"),
])
def test_map_mistakes(kind, fragment):
    assert_fails(ch.em_map_covariances(_map_wrong(kind)), fragment)


def test_messages_never_contain_decimal_numbers():
    """Failure messages are fixed text: no decimal number (a reference value) appears in them."""
    import re

    for check, wrong in [(ch.em_lagrange_weights, lambda r, c: np.full(r.shape[1], 0.3)),
                         (ch.em_lagrange_weights, lambda r, c: (c @ r) ** 2 / np.sum((c @ r) ** 2)),
                         (ch.em_missing_information_rate, lambda *a: 0.123),
                         (ch.em_map_covariances, _map_wrong("other")),
                         (ch.em_m_step_full, lambda X, w, m, c: _iteration(X, w, m, c, "n_k - 1"))]:
        msg = check(wrong).message
        assert check(wrong).status == "failed"
        assert not re.search(r"\d\.\d", msg), msg


def test_lists_where_arrays_are_asked_for_are_refused():
    """Issue 44: np.stack forgotten returns a list of arrays; the statements ask for arrays (K, d, d)."""
    import lib.mixture

    def full_as_list(X, weights, means, covariances):
        resp, _ = lib.mixture.e_step(X, weights, means, covariances, "full")
        nk = resp.sum(axis=0)
        new_means = resp.T @ X / nk[:, None]
        covs = [(resp[:, k] * (X - new_means[k]).T) @ (X - new_means[k]) / nk[k] for k in range(len(nk))]
        return nk / len(X), new_means, covs

    result = lib.checks.em_m_step_full(full_as_list)
    assert result.status == "failed" and "returned a list" in result.message, result

    def map_as_list(X, resp, prior_scale, prior_dof):
        n, d = X.shape
        nk = resp.sum(axis=0)
        means = resp.T @ X / nk[:, None]
        return [(prior_scale + (resp[:, k] * (X - means[k]).T) @ (X - means[k])) / (nk[k] + prior_dof + d + 1)
                for k in range(len(nk))]

    result = lib.checks.em_map_covariances(map_as_list)
    assert result.status == "failed" and "numpy array" in result.message, result
