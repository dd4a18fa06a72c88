"""The chapter 4 exercise checks accept right answers and name typical mistakes."""

import re

import numpy as np
import pytest
from scipy.special import logsumexp, xlogy

import lib.checks
from lib import mixture
from lib.checks import ch04
from check_helpers import assert_fails
from check_helpers import trusted_helpers  # noqa: E402,F401 - a fixture

pytestmark = pytest.mark.usefixtures("trusted_helpers")


def test_checks_are_exported():
    for name in ch04.__all__:
        assert getattr(lib.checks, name) is getattr(ch04, name)


def _sq_dist(X, means):
    return ((X[:, None, :] - means[None, :, :]) ** 2).sum(axis=2)


def _log_joint(X, weights, means, variances):
    d = X.shape[1]
    return np.log(weights) - 0.5 * d * np.log(2 * np.pi * variances) - _sq_dist(X, means) / (2 * variances)


# ------------------------------------------------------------------ generic failure modes --

CALLABLE_CHECKS = [ch04.em_e_step, ch04.em_m_step_spherical, ch04.em_run, ch04.em_lower_bound]


@pytest.mark.parametrize("check", CALLABLE_CHECKS, ids=lambda c: c.__name__)
def test_not_implemented(check):
    def starter(*args):
        raise NotImplementedError

    result = check(starter)
    assert result.status == "not implemented", result
    assert check(...).status == "not implemented"


@pytest.mark.parametrize("check", CALLABLE_CHECKS, ids=lambda c: c.__name__)
def test_not_callable(check):
    assert_fails(check(42), "expected a function")


@pytest.mark.parametrize("check", CALLABLE_CHECKS, ids=lambda c: c.__name__)
def test_function_that_raises(check):
    def broken(*args):
        raise KeyError("oops")

    assert_fails(check(broken), "raised an exception", "KeyError")


@pytest.mark.parametrize("check", CALLABLE_CHECKS, ids=lambda c: c.__name__)
def test_wrong_return_type(check):
    result = check(lambda *args: "a string")
    assert result.status == "failed", result


@pytest.mark.parametrize("check", CALLABLE_CHECKS, ids=lambda c: c.__name__)
def test_missing_return(check):
    assert_fails(check(lambda *args: None), "return")


# ------------------------------------------------------------------ ex-em-e-step --


def _e_step(X, weights, means, variances):
    log_joint = _log_joint(X, weights, means, variances)
    return np.exp(log_joint - logsumexp(log_joint, axis=1, keepdims=True))


def test_e_step_right_answer_passes():
    result = lib.checks.em_e_step(_e_step)
    assert result.passed, result
    assert "Passed" in result.message


def _softmax(log_p):
    return np.exp(log_p - logsumexp(log_p, axis=1, keepdims=True))


@pytest.mark.parametrize(
    "wrong, fragments",
    [
        # rows not summing to one
        (lambda X, w, m, v: np.exp(_log_joint(X, w, m, v)), ["sum to 1", "logsumexp"]),
        # normalised over the samples
        (lambda X, w, m, v: np.exp(_log_joint(X, w, m, v) - logsumexp(_log_joint(X, w, m, v), axis=0)),
         ["axis=1", "axis=0"]),
        # weights forgotten (visible only with unequal weights; the check uses unequal ones)
        (lambda X, w, m, v: _softmax(_log_joint(X, np.ones_like(w), m, v)), ["mixing weights"]),
        # the variance's normalising constant dropped
        (lambda X, w, m, v: _softmax(np.log(w) - _sq_dist(X, m) / (2 * v)), ["ln(2 pi sigma_k^2)"]),
        # variances used as standard deviations
        (lambda X, w, m, v: _e_step(X, w, m, np.sqrt(v)), ["standard deviations"]),
        # missing factor 1/2 in the exponent
        (lambda X, w, m, v: _softmax(np.log(w) - 0.5 * X.shape[1] * np.log(2 * np.pi * v) - _sq_dist(X, m) / v),
         ["1/2"]),
        # +(d/2) ln(2 pi sigma^2) instead of -(d/2) ln(2 pi sigma^2)
        (lambda X, w, m, v: _softmax(np.log(w) + 0.5 * X.shape[1] * np.log(2 * np.pi * v)
                                     - _sq_dist(X, m) / (2 * v)), ["wrong sign"]),
        # transposed
        (lambda X, w, m, v: _e_step(X, w, m, v).T, ["transposed"]),
    ],
)
def test_e_step_names_typical_mistakes(wrong, fragments):
    assert_fails(lib.checks.em_e_step(wrong), *fragments)


def test_e_step_catches_underflow_of_the_direct_formula():
    def direct(X, weights, means, variances):
        d = X.shape[1]
        dens = np.exp(-_sq_dist(X, means) / (2 * variances)) / (2 * np.pi * variances) ** (d / 2)
        joint = weights * dens
        return joint / joint.sum(axis=1, keepdims=True)

    assert_fails(lib.checks.em_e_step(direct), "far from every component", "logsumexp")


def test_e_step_rejects_a_tuple_like_lib():
    def like_lib(X, w, m, v):  # lib.mixture.e_step returns (resp, log-likelihood)
        log_joint = _log_joint(X, w, m, v)
        return _e_step(X, w, m, v), float(logsumexp(log_joint, axis=1).sum())

    assert_fails(lib.checks.em_e_step(like_lib), "tuple", "only")


def test_e_step_message_never_shows_the_reference():
    result = lib.checks.em_e_step(lambda X, w, m, v: np.full((len(X), len(w)), 1.0 / len(w)))
    assert result.status == "failed"
    assert not re.search(r"\d\.\d{3}", result.message)  # no numbers printed


# ------------------------------------------------------------------ ex-em-m-step --


def _m_step(X, resp, *, mean="right", var="right", weights="right"):
    n, d = X.shape
    nk = resp.sum(axis=0)
    means = {
        "right": resp.T @ X / nk[:, None],
        "sum": resp.T @ X,
        "by_n": resp.T @ X / n,
        "unweighted": np.broadcast_to(X.mean(axis=0), (resp.shape[1], d)).copy(),
    }[mean]
    right_means = resp.T @ X / nk[:, None]
    sq = _sq_dist(X, right_means)
    variances = {
        "right": (resp * sq).sum(axis=0) / (d * nk),
        "no_d": (resp * sq).sum(axis=0) / nk,
        "by_n": (resp * sq).sum(axis=0) / (d * n),
        "d_is_3": (resp * sq).sum(axis=0) / (3 * nk),
        "nk_minus_1": (resp * sq).sum(axis=0) / (d * (nk - 1)),
        "unweighted": sq.sum(axis=0) / (d * nk),
        "diag": np.stack([resp[:, k] @ (X - right_means[k]) ** 2 / nk[k] for k in range(len(nk))]),
    }[var]
    w = {"right": nk / n, "counts": nk, "bad": np.full(len(nk), 0.3)}[weights]
    return w, means, variances


def test_m_step_right_answer_passes():
    result = lib.checks.em_m_step_spherical(_m_step)
    assert result.passed, result


@pytest.mark.parametrize(
    "kwargs, fragments",
    [
        ({"var": "no_d"}, ["d times too large", "d * n_k"]),
        ({"mean": "unweighted"}, ["unweighted", "resp[i, k]"]),
        ({"mean": "sum"}, ["weighted sums", "n_k"]),
        ({"mean": "by_n"}, ["divide by n", "n_k"]),
        ({"var": "by_n"}, ["d * n", "soft count"]),
        ({"var": "nk_minus_1"}, ["n_k - 1"]),
        ({"var": "unweighted"}, ["ignore the responsibilities"]),
        ({"var": "diag"}, ["(K, d)", "average over the d coordinates"]),
        ({"weights": "counts"}, ["soft counts", "n_k / n"]),
        ({"weights": "bad"}, ["sum to 1"]),
    ],
)
def test_m_step_names_typical_mistakes(kwargs, fragments):
    assert_fails(lib.checks.em_m_step_spherical(lambda X, r: _m_step(X, r, **kwargs)), *fragments)


def test_m_step_variance_with_old_means_is_caught():
    def old_means(X, resp):
        w, m, v = _m_step(X, resp)
        sq = _sq_dist(X, np.zeros_like(m))
        return w, m, (resp * sq).sum(axis=0) / (X.shape[1] * resp.sum(axis=0))

    assert_fails(lib.checks.em_m_step_spherical(old_means), "new* means")


def test_m_step_wrong_tuple_length():
    assert_fails(lib.checks.em_m_step_spherical(lambda X, r: _m_step(X, r)[:2]), "tuple (weights, means, variances)")


# ------------------------------------------------------------------ ex-em-second-iteration --


def _second_pi1():
    ex = lib.datasets.worked_example()
    X = ex["X"]
    theta = (ex["weights"], ex["means"], ex["variances"])
    for _ in range(2):
        theta = mixture.m_step(X, mixture.e_step(X, *theta, "spherical")[0], "spherical", reg_covar=1e-300)
    return float(theta[0][0])


def test_second_iteration_right_answer_passes():
    value = _second_pi1()
    assert lib.checks.em_second_iteration(round(value, 4)).passed
    assert lib.checks.em_second_iteration(value).passed
    assert lib.checks.em_second_iteration(np.float64(round(value, 4))).passed


def test_second_iteration_mistakes():
    assert_fails(lib.checks.em_second_iteration(0.75), "first iteration")
    # the weight of the other component gets the general message: naming it would reveal pi_1
    wrong_component = lib.checks.em_second_iteration(1 - _second_pi1())
    assert_fails(wrong_component, "not yet")
    assert f"{_second_pi1():.3f}" not in wrong_component.message
    assert f"{_second_pi1():.2f}" not in wrong_component.message
    assert_fails(lib.checks.em_second_iteration(0.5), "not yet")
    assert_fails(lib.checks.em_second_iteration(1.5), "between 0 and 1")
    assert_fails(lib.checks.em_second_iteration("0.67"), "single number")
    assert_fails(lib.checks.em_second_iteration(None), "None")
    assert lib.checks.em_second_iteration(...).status == "not implemented"


def test_second_iteration_message_does_not_reveal_the_answer():
    text = repr(lib.checks.em_second_iteration(0.5))
    assert f"{round(_second_pi1(), 3):.3f}" not in text
    assert f"{round(_second_pi1(), 2):.2f}" not in text


# ------------------------------------------------------------------ ex-em-run --


def _run_em(X, weights, means, variances, n_iter, *, variant="right"):
    theta = (weights, means, variances)
    history = [mixture.log_likelihood(X, *theta, "spherical")]
    for _ in range(n_iter):
        resp, _ = mixture.e_step(X, *theta, "spherical")
        if variant == "sum_mean":  # the weighted sum, not the average, as the mean
            nk = resp.sum(axis=0)
            m = resp.T @ X
            v = np.maximum((resp * _sq_dist(X, m)).sum(axis=0) / (X.shape[1] * np.maximum(nk, 1e-300)), 1e-6)
            theta = (nk / len(X), m, v)
            history.append(mixture.log_likelihood(X, *theta, "spherical"))
            continue
        w, m, v = mixture.m_step(X, resp, "spherical", reg_covar=1e-300)
        if variant == "stale_weights":
            w = theta[0]
        theta = (w, m, v)
        history.append(mixture.log_likelihood(X, *theta, "spherical"))
    history = np.array(history)
    if variant == "no_initial":
        return history[1:]
    if variant == "average":
        return history / len(X)
    if variant == "shifted":
        return np.append(history[1:], history[-1])
    return history


def test_run_right_answer_passes():
    assert lib.checks.em_run(_run_em).passed
    # the statement asks for an array of shape (n_iter + 1,): a list fails, and says so (issue 44)
    assert_fails(lib.checks.em_run(lambda *a: list(_run_em(*a))), "returned a list", "numpy array")


@pytest.mark.parametrize(
    "variant, fragments",
    [
        ("no_initial", ["n_iter + 1", "initial parameters"]),
        ("average", ["average", "total"]),
        ("sum_mean", ["decreases", "never lowers"]),
        ("shifted", ["after one iteration"]),
        ("stale_weights", ["later entries differ"]),
    ],
)
def test_run_names_typical_mistakes(variant, fragments):
    assert_fails(lib.checks.em_run(lambda *a: _run_em(*a, variant=variant)), *fragments)


def test_run_catches_a_wrong_first_entry():
    def off(X, w, m, v, n_iter):
        h = _run_em(X, w, m, v, n_iter)
        return h - 1.0 * (np.arange(len(h)) == 0)  # only entry 0 off: still monotone

    assert_fails(lib.checks.em_run(off), "first entry")


# ------------------------------------------------------------------ ex-em-lower-bound --


def _lower_bound(X, resp, weights, means, variances, *, variant="right"):
    log_joint = _log_joint(X, weights, means, variances)
    F = float(np.sum(np.where(resp > 0, resp * log_joint, 0.0)))
    H = float(-np.sum(xlogy(resp, resp)))
    if variant == "F":
        return F
    if variant == "F-H":
        return F - H
    if variant == "L":
        return float(logsumexp(log_joint, axis=1).sum())
    if variant == "mean":
        return (F + H) / len(X)
    if variant == "naive_log":
        with np.errstate(divide="ignore", invalid="ignore"):
            return float(np.sum(resp * log_joint) - np.sum(resp * np.log(resp)))
    if variant == "no_const":
        return float(np.sum(resp * (np.log(weights) - _sq_dist(X, means) / (2 * variances)))) + H
    return F + H


def test_lower_bound_right_answer_passes():
    assert lib.checks.em_lower_bound(_lower_bound).passed


@pytest.mark.parametrize(
    "variant, fragments",
    [
        ("F", ["without the entropy"]),
        ("F-H", ["wrong sign"]),
        ("L", ["does not depend on Q"]),
        ("mean", ["average"]),
        ("naive_log", ["0 ln 0 = 0", "xlogy"]),
        ("no_const", ["differs", "(d/2) ln(2 pi sigma_k^2)"]),
    ],
)
def test_lower_bound_names_typical_mistakes(variant, fragments):
    assert_fails(lib.checks.em_lower_bound(lambda *a: _lower_bound(*a, variant=variant)), *fragments)


def test_lower_bound_array_return_is_rejected():
    assert_fails(lib.checks.em_lower_bound(lambda X, r, *a: np.zeros(len(X))), "single number")


# ------------------------------------------------------------------ further typical mistakes --


def test_e_step_log_responsibilities_are_named():
    def log_resp(X, w, m, v):
        log_joint = _log_joint(X, w, m, v)
        return log_joint - logsumexp(log_joint, axis=1, keepdims=True)

    assert_fails(lib.checks.em_e_step(log_resp), "log-responsibilities", "exponentiate")


def test_e_step_refuses_a_list():
    # the statement asks for resp of shape (n, K), an array: a list fails, and says so (issue 44)
    assert_fails(lib.checks.em_e_step(lambda X, w, m, v: _e_step(X, w, m, v).tolist()), "returned a list",
                 "numpy array")


def test_e_step_wrong_number_of_arguments():
    assert_fails(lib.checks.em_e_step(lambda X, w, m: _e_step(X, w, m, np.ones(len(w)))), "TypeError")


def test_m_step_standard_deviations_are_named():
    def stds(X, resp):
        w, m, v = _m_step(X, resp)
        return w, m, np.sqrt(v)

    assert_fails(lib.checks.em_m_step_spherical(stds), "standard deviations")


def test_m_step_transposed_square_means_are_named():
    # the first case has K = d = 3, so a transposed mean matrix has the right shape
    def transposed(X, resp):
        w, m, v = _m_step(X, resp)
        return w, m.T, v

    assert_fails(lib.checks.em_m_step_spherical(transposed), "transposed")


def test_m_step_with_lib_default_ridge_is_named():
    def with_ridge(X, r):  # lib.mixture.m_step's default reg_covar=1e-6
        weights, means, variances = _m_step(X, r)
        return weights, means, variances + 1e-6

    assert_fails(lib.checks.em_m_step_spherical(with_ridge), "no ridge")


def test_m_step_accepts_lists():
    assert lib.checks.em_m_step_spherical(lambda X, r: [np.asarray(a).tolist() for a in _m_step(X, r)]).passed


def test_run_negative_log_likelihood_is_named():
    assert_fails(lib.checks.em_run(lambda *a: -_run_em(*a)), "wrong sign", "negative log-likelihood")


def test_run_wrong_number_of_arguments():
    assert_fails(lib.checks.em_run(lambda X, w, m, v: _run_em(X, w, m, v, 3)), "TypeError")


def test_run_nan_is_named():
    assert_fails(lib.checks.em_run(lambda X, w, m, v, n_iter: np.full(n_iter + 1, np.nan)), "NaN")


def test_lower_bound_negated_is_named():
    assert_fails(lib.checks.em_lower_bound(lambda *a: -_lower_bound(*a)), "wrong overall sign")


def test_second_iteration_nan_is_named():
    assert_fails(lib.checks.em_second_iteration(float("nan")), "NaN")


def _second_slip(kind):
    """pi_1 after the second iteration when the second E-step makes one typical slip."""
    ex = lib.datasets.worked_example()
    X = ex["X"]
    resp0, _ = mixture.e_step(X, ex["weights"], ex["means"], ex["variances"], "spherical")
    w, m, v = mixture.m_step(X, resp0, "spherical", reg_covar=0.0)
    sq = _sq_dist(X, m)
    var = {"squared": v**2, "sqrt": np.sqrt(v)}.get(kind, v)
    log_c = {"no constant": 0.0, "one-d": -0.5 * np.log(2 * np.pi * var),
             "plus": np.log(2 * np.pi * var)}.get(kind, -np.log(2 * np.pi * var))
    log_w = 0.0 if kind == "no weights" else np.log(w)
    half = 1.0 if kind == "no half" else 0.5
    lj = log_w + log_c - half * sq / var
    return float(np.exp(lj - logsumexp(lj, axis=1, keepdims=True))[:, 0].mean())


@pytest.mark.parametrize("kind, fragment", [
    ("no weights", "ignore the weights"),
    ("no constant", "dropped the normalising constant"),
    ("one-d", "one-dimensional"),
    ("plus", "wrong sign"),
    ("no half", "factor 1/2"),
    ("squared", "squared the variances"),
    ("sqrt", "standard deviations"),
])
def test_second_iteration_typical_slips(kind, fragment):
    slip = round(_second_slip(kind), 4)
    assert abs(slip - round(_second_pi1(), 4)) > 3e-4  # a slip is never the answer
    result = lib.checks.em_second_iteration(slip)
    assert_fails(result, fragment)
    assert f"{round(_second_pi1(), 3):.3f}" not in result.message


# ------------------------------------------------------------------ ex-em-dempster-q --

def _dempster_q(X, theta, theta_old, *, variant="right"):
    from scipy.special import xlogy

    def log_joint(t):
        w, m, v = t
        d = X.shape[1]
        sq = ((X[:, None, :] - m[None]) ** 2).sum(axis=2)
        return np.log(w) - 0.5 * d * np.log(2 * np.pi * v) - sq / (2 * v)

    def posterior(t):
        lj = log_joint(t)
        return np.exp(lj - lj.max(axis=1, keepdims=True)) / np.exp(lj - lj.max(axis=1, keepdims=True)).sum(
            axis=1, keepdims=True)

    post, target = posterior(theta_old), theta
    if variant == "new-post":
        post = posterior(theta)
    if variant == "swapped":
        post, target = posterior(theta), theta_old
    if variant == "hard":
        post = np.eye(post.shape[1])[np.argmax(post, axis=1)]
    value = float(np.sum(post * log_joint(target)))
    if variant == "entropy":
        value -= float(np.sum(xlogy(post, post)))
    if variant == "ell":
        lj = log_joint(theta)
        value = float(np.sum(np.log(np.exp(lj).sum(axis=1))))
    if variant == "mean":
        value /= len(X)
    if variant == "no-const":
        value += 0.5 * X.shape[1] * np.log(2 * np.pi) * len(X)
    return value


def test_dempster_q_right_answer_passes():
    result = lib.checks.em_dempster_q(_dempster_q)
    assert result.passed, result
    assert "2 spherical mixtures" in result.message


@pytest.mark.parametrize(
    "variant, fragments",
    [
        ("entropy", ["entropy", "bound L(q, theta)"]),
        ("ell", ["log-likelihood ell(theta)"]),
        ("new-post", ["responsibilities come from theta", "theta_old"]),
        ("swapped", ["swapped"]),
        ("hard", ["hard assignments"]),
        ("mean", ["average"]),
        ("no-const", ["differs", "(d/2) ln(2 pi sigma_k^2)"]),
    ],
)
def test_dempster_q_names_typical_mistakes(variant, fragments):
    assert_fails(lib.checks.em_dempster_q(lambda *a: _dempster_q(*a, variant=variant)), *fragments)


def test_dempster_q_standard_failures_and_no_numbers():
    from check_helpers import assert_standard_failure_modes
    assert_standard_failure_modes(lib.checks.em_dempster_q)
    message = lib.checks.em_dempster_q(lambda *a: _dempster_q(*a, variant="new-post")).message
    assert not re.search(r"\d\.\d", message), message


def test_run_without_log_weights_is_not_blamed_on_the_m_step():
    """Issue 44: a log-likelihood without ln pi_k is wrong at the start; the M-step is not blamed."""
    from scipy.special import logsumexp

    def loglik(X, w, m, v):
        d = X.shape[1]
        sq = ((X[:, None, :] - m[None]) ** 2).sum(axis=2)
        return float(logsumexp(-0.5 * d * np.log(2 * np.pi * v) - sq / (2 * v), axis=1).sum())  # no ln pi_k

    def run(X, w, m, v, n_iter):
        theta = (w, m, v)
        history = [loglik(X, *theta)]
        for _ in range(n_iter):
            resp, _ = mixture.e_step(X, *theta, "spherical")
            theta = mixture.m_step(X, resp, "spherical", reg_covar=0.0)
            history.append(loglik(X, *theta))
        return np.array(history)

    result = lib.checks.em_run(run)
    assert_fails(result, "first entry", "ln(weights)")
    assert "M-step" not in result.message


def test_run_must_use_the_data_it_is_given():
    first = {}
    assert_fails(lib.checks.em_run(lambda X, *a: _run_em(first.setdefault("X", X), *a)))


def test_m_step_with_d_fixed_at_3_is_caught():
    """Issue 44: variances divided by 3 * n_k passed when every data set had d = 3."""
    assert_fails(lib.checks.em_m_step_spherical(lambda X, r: _m_step(X, r, var="d_is_3")), "3 * n_k", "X.shape[1]")


def test_e_step_with_n_for_d_is_named():
    def n_for_d(X, weights, means, variances):
        n = X.shape[0]
        sq = _sq_dist(X, means)
        log_joint = np.log(weights) - 0.5 * n * np.log(2 * np.pi * variances) - sq / (2 * variances)
        return _softmax(log_joint)

    assert_fails(lib.checks.em_e_step(n_for_d), "number of samples", "X.shape[1]")
