"""Checks notice delegation (issue 24): an answer that calls lib's own implementation fails.

Every check names, in its ``forbid=`` tuple, the ``lib`` functions that do
its exercise's work.  For every such check and every named function, two
submissions must fail with the delegation message: (a) the lib function
itself handed in as the answer, (b) a wrapper that calls it.  For every
exercise whose function lib implements, a "calls lib" answer adapted to the
exercise's signature passes the check's body when the tripwires are off (so
it is a right answer) and fails under them.  The rest tests
``lib.checks._core.tripwires`` itself.
"""

import functools
import inspect

import numpy as np
import pytest

import lib
import lib.checks
from scipy.special import digamma

from lib import _fastpath, bayesian_mixture, bernoulli_mixture, discriminant, em_theory, gaussian, logistic
from lib import mixture, mle, naive_bayes, online_em
from lib import variational as V
from lib.checks import _core
from lib.checks._core import Delegation, Failure, call, check, tripwires


def _all_checks():
    """(name, check) for every check exported by lib.checks."""
    return [(name, getattr(lib.checks, name)) for name in lib.checks.__all__
            if hasattr(getattr(lib.checks, name), "exercise")]  # CheckResult and variant are not checks


CHECKS = _all_checks()
FORBIDDING = [(name, fn) for name, fn in CHECKS if fn.forbid]
PAIRS = [(name, forbidden) for name, fn in FORBIDDING for forbidden in fn.forbid]


def _assert_delegation(result, name):
    assert result.status == "failed", result
    assert f"`{name}`" in result.message, result.message
    assert "this exercise asks you to write it" in result.message, result.message


def test_every_check_has_a_forbid_tuple_of_resolvable_functions():
    assert len(CHECKS) > 30
    for name, fn in CHECKS:
        assert isinstance(fn.forbid, tuple), name
        for dotted in fn.forbid:
            func = _core.resolve(dotted)
            assert inspect.isfunction(func), (name, dotted)
            assert dotted.startswith("lib."), (name, dotted)


# Exercises whose answer lib implements must name it: a function check without a
# forbid tuple is listed here with the reason.
NO_LIB_IMPLEMENTATION = {
    "naive_bayes_right": "an experiment (learning curves) run with the page's own helpers",
    "variance_mse_experiment": "a simulation; lib has no function that runs it",
    "naive_bayes_vs_lda": "the experiment fits lib's GaussianDiscriminantAnalysis by design",
    "mean_field_gap": "the statement asks for lib.variational's mean-field routines",
    "gaussian_kl_value": "a number, not a function",
    "elbo_gap_by_hand": "a number, not a function",
    "em_second_iteration": "a number, not a function",
    "em_lagrange_weights": "lib's m_step takes no counts (and its weights are the unit-count case)",
}


def test_checks_without_forbid_are_the_listed_ones():
    assert {name for name, fn in CHECKS if not fn.forbid} == set(NO_LIB_IMPLEMENTATION)


@pytest.mark.parametrize("check_name, forbidden", PAIRS, ids=[f"{c}-{f}" for c, f in PAIRS])
def test_lib_function_itself_fails(check_name, forbidden):
    func = _core.resolve(forbidden)
    result = getattr(lib.checks, check_name)(func)
    _assert_delegation(result, forbidden)
    assert f"your answer is `{forbidden}` itself" in result.message


@pytest.mark.parametrize("check_name, forbidden", PAIRS, ids=[f"{c}-{f}" for c, f in PAIRS])
def test_wrapper_that_calls_lib_fails(check_name, forbidden):
    func = _core.resolve(forbidden)

    def wrapper(*args, **kwargs):
        return func(*args, **kwargs)

    result = getattr(lib.checks, check_name)(wrapper)
    _assert_delegation(result, forbidden)
    assert f"your function calls `{forbidden}`" in result.message
    # the tripwires are gone after the check
    assert _core.resolve(forbidden).__code__ is func.__code__
    assert "tripwire" not in func.__code__.co_filename


# --------------------------------------------------- right answers that call lib --

def _fisher(X, y):
    priors, means, cov = discriminant.fit_class_gaussians(X, y, "tied")
    w, _ = discriminant.logistic_parameters(priors, means, cov)
    return w / np.linalg.norm(w)


def _gda_mle(X, y):
    priors, means, covs = discriminant.fit_class_gaussians(X, y, "full")
    return priors, means, covs, discriminant.fit_class_gaussians(X, y, "tied")[2]


def _word_log_probs(X, y, alpha):
    _, feature_count = naive_bayes.class_statistics(X, y, int(y.max()) + 1)
    return naive_bayes.multinomial_log_probs(feature_count, alpha)


def _m_step_from_sums(counts, first, second, centres, n):
    stats = _fastpath.Statistics(counts, first, second, 0.0)
    return _fastpath.m_step(stats, centres, n, "full", 0.0)


def _bernoulli_em_iteration(X, w, m):
    resp = bernoulli_mixture.e_step(X, w, m)[0]
    return (resp, *bernoulli_mixture.m_step(X, resp))


def _stepwise_step(stats, X, w, m, c, centre, t, tau):
    batch = online_em.minibatch_statistics(X, mixture.e_step(X, w, m, c)[0], centre)
    eta = (t + 2.0) ** (-tau)
    return tuple((1 - eta) * s + eta * b for s, b in zip(stats, batch))


def _vb_dirichlet_weights(resp, alpha0):
    X = np.zeros((resp.shape[0], 1))
    alpha = bayesian_mixture.vb_m_step(X, resp, alpha0, 1.0, np.zeros(1), 1.0, np.eye(1))[0]
    return alpha, digamma(alpha) - digamma(alpha.sum())


def _hard_em_step(X, w, m, c):
    resp = V.hard_e_step(V.gmm_log_joint(X, w, m, c))
    return mixture.m_step(X, resp, "full", reg_covar=0.0)


# check name -> (a right answer that delegates to lib, the lib function it calls)
CALLS_LIB = {
    "stable_sigmoid": (lambda t: logistic.sigmoid(t), "lib.logistic.sigmoid"),
    "softmax_gradient": (lambda W, b, X, y: logistic.gradient(W, b, X, y), "lib.logistic.gradient"),
    "sgd_epoch": (lambda w, b, X, y, lr, o: logistic.sgd_epoch(w, b, X, y, lr, o), "lib.logistic.sgd_epoch"),
    "newton_step": (lambda w, b, X, y: logistic.newton_step(w, b, X, y), "lib.logistic.newton_step"),
    "marginal_posterior": (lambda X, p, m, v: np.exp(discriminant.log_posterior_observed(X, p, m, v, "diag")),
                           "lib.discriminant.log_posterior_observed"),
    "perceptron_epoch": (lambda w, b, X, y, o: logistic.perceptron_epoch(w, b, X, y, 1.0, o),
                         "lib.logistic.perceptron_epoch"),
    "probit_gradient": (lambda w, b, X, y: logistic.probit_gradient(w, b, X, y), "lib.logistic.probit_gradient"),
    "bernoulli_mle": (lambda x: mle.bernoulli_mle(x), "lib.mle.bernoulli_mle"),
    "bernoulli_log_likelihood": (lambda x, t: mle.bernoulli_log_likelihood(x, t), "lib.mle.bernoulli_log_likelihood"),
    "smoothed_categorical_mle": (lambda c, a: mle.categorical_mle(c, alpha=a), "lib.mle.categorical_mle"),
    "spherical_gaussian_mle": (lambda X: mle.gaussian_mle(X, "spherical"), "lib.mle.gaussian_mle"),
    "beta_bernoulli_map": (lambda n1, n, a, b: mle.beta_mode(a + n1, b + n - n1), "lib.mle.beta_mode"),
    "dirichlet_categorical_map": (lambda c, a: mle.dirichlet_mode(c + a), "lib.mle.dirichlet_mode"),
    "gaussian_max_log_likelihood": (lambda X: mle.gaussian_log_likelihood(X, *mle.gaussian_mle(X)),
                                    "lib.mle.gaussian_log_likelihood"),
    "nb_word_log_probs": (_word_log_probs, "lib.naive_bayes.class_statistics"),
    "nb_log_posterior": (lambda X, lp, lt: naive_bayes.log_posterior(naive_bayes.multinomial_log_joint(X, lp, lt)),
                         "lib.naive_bayes.multinomial_log_joint"),
    "gda_mle": (_gda_mle, "lib.discriminant.fit_class_gaussians"),
    "gda_posterior": (lambda X, p, m, c: discriminant.posterior(X, p, m, c), "lib.discriminant.posterior"),
    "lda_logistic": (lambda p, m, c: discriminant.logistic_parameters(p, m, c),
                     "lib.discriminant.logistic_parameters"),
    "gda_n_params": (lambda d, K, t: discriminant.n_parameters(d, K, t), "lib.discriminant.n_parameters"),
    "gda_fisher_direction": (_fisher, "lib.discriminant.fit_class_gaussians"),
    "gda_ledoit_wolf": (lambda X: discriminant.ledoit_wolf(X)[1], "lib.discriminant.ledoit_wolf"),
    "gda_conditional": (lambda m, c, o, x: gaussian.conditional_gaussian(m, c, o, x),
                        "lib.gaussian.conditional_gaussian"),
    "em_e_step": (lambda X, w, m, v: mixture.e_step(X, w, m, v, "spherical")[0], "lib.mixture.e_step"),
    "em_m_step_spherical": (lambda X, r: mixture.m_step(X, r, "spherical", reg_covar=0.0), "lib.mixture.m_step"),
    "em_lower_bound": (lambda X, r, w, m, v: mixture.lower_bound(X, r, w, m, v, "spherical"),
                       "lib.mixture.lower_bound"),
    "em_m_step_full": (lambda X, w, m, c: mixture.m_step(X, mixture.e_step(X, w, m, c)[0], "full", reg_covar=0.0),
                       "lib.mixture.m_step"),
    "em_missing_information_rate": (lambda x, w, m, v, c: em_theory.em_rate(x, w, m, v, c),
                                    "lib.em_theory.em_rate"),
    "em_map_covariances": (lambda X, r, psi, kappa: mixture.map_m_step(X, r, psi, kappa)[2],
                           "lib.mixture.map_m_step"),
    "em_m_step_from_sums": (_m_step_from_sums, "lib._fastpath.m_step"),
    "elbo_discrete": (lambda lj, q: V.elbo(lj, q), "lib.variational.elbo"),
    "mean_field_update": (lambda X, xi, m, p, W, s2: V.mean_field_update(X, V.FactorialParams(p, W, s2), xi, m),
                          "lib.variational.mean_field_update"),
    "hard_em_step": (_hard_em_step, "lib.variational.hard_e_step"),
    "cavi_update": (lambda qm, j, m, c: V.cavi_gaussian_update(qm, j, m, V.gaussian_precision(c)),
                    "lib.variational.cavi_gaussian_update"),
    "em_bernoulli_mixture": (_bernoulli_em_iteration, "lib.bernoulli_mixture.e_step"),
    "em_stepwise_step": (_stepwise_step, "lib.online_em.minibatch_statistics"),
    "em_dempster_q": (lambda X, th, old: em_theory.dempster_q(X, th, old, "spherical"), "lib.em_theory.dempster_q"),
    "vb_dirichlet_weights": (_vb_dirichlet_weights, "lib.bayesian_mixture.vb_m_step"),
    "kl_p_to_factorised": (lambda m, c, qm, qv: V.kl_gaussian_to_diag(m, c, qm, qv),
                           "lib.variational.kl_gaussian_to_diag"),
}

# Forbidding checks for which no one-line right answer through lib exists (the
# generic submissions above still cover them).
NO_ONE_LINE_ANSWER = {"em_run"}


def test_every_forbidding_check_has_a_calls_lib_answer():
    assert set(CALLS_LIB) | NO_ONE_LINE_ANSWER == {name for name, _ in FORBIDDING}
    for name, (_, forbidden) in CALLS_LIB.items():
        assert forbidden in getattr(lib.checks, name).forbid, name


@pytest.mark.parametrize("check_name", sorted(CALLS_LIB))
def test_calls_lib_answer_is_right_but_fails(check_name):
    checker = getattr(lib.checks, check_name)
    answer, forbidden = CALLS_LIB[check_name]
    # Without tripwires (the check's body alone: call() sets none) the answer passes ...
    checker.__wrapped__(answer)
    # ... and under the check's tripwires it fails with the delegation message.
    _assert_delegation(checker(answer), forbidden)


# ------------------------------------------------------------- the tripwires --

X01 = np.array([1, 0, 0, 1, 1])


def test_tripwire_catches_every_route_to_the_function():
    from lib.mle import bernoulli_mle as imported

    alias = mle.bernoulli_mle
    held = functools.partial(mle.bernoulli_mle)
    with tripwires(["lib.mle.bernoulli_mle"]) as fired:
        for route in (lambda: lib.mle.bernoulli_mle(X01), lambda: imported(X01), lambda: alias(X01),
                      lambda: held(X01), lambda: mle.bernoulli_mle(x=X01)):
            with pytest.raises(Delegation) as info:
                route()
            assert info.value.name == "lib.mle.bernoulli_mle"
    assert fired == ["lib.mle.bernoulli_mle"] * 5
    assert imported(X01) == pytest.approx(0.6)  # restored


def test_tripwire_leaves_other_functions_and_keeps_metadata():
    original = mle.bernoulli_mle.__code__
    with tripwires(("lib.mle.bernoulli_mle",)):
        assert mle.bernoulli_log_likelihood(X01, 0.5) == pytest.approx(5 * np.log(0.5))
        assert mle.bernoulli_mle.__name__ == "bernoulli_mle"
        assert mle.bernoulli_mle.__code__.co_name == "bernoulli_mle"
        assert mle.bernoulli_mle.__code__ is not original
    assert mle.bernoulli_mle.__code__ is original


def test_tripwires_restore_after_an_exception_and_when_nested():
    e_step, m_step = mixture.e_step.__code__, mixture.m_step.__code__
    with pytest.raises(ZeroDivisionError):
        with tripwires(["lib.mixture.e_step"]):
            1 / 0
    assert mixture.e_step.__code__ is e_step
    with tripwires(["lib.mixture.e_step"]):
        with tripwires(["lib.mixture.e_step", "lib.mixture.m_step"]):
            with pytest.raises(Delegation):
                mixture.m_step(np.zeros((2, 1)), np.ones((2, 1)))
        assert mixture.m_step.__code__ is m_step
        with pytest.raises(Delegation):
            mixture.e_step(None, None, None, None)
    assert mixture.e_step.__code__ is e_step and mixture.m_step.__code__ is m_step
    assert _core._HOOK not in vars(mixture) and not _core._ACTIVE


def test_tripwire_on_a_method_and_a_bad_name():
    fit = mixture.GaussianMixture.fit.__code__
    with tripwires(["lib.mixture.GaussianMixture.fit"]):
        with pytest.raises(Delegation):
            mixture.GaussianMixture(n_components=1).fit(np.zeros((3, 1)))
    assert mixture.GaussianMixture.fit.__code__ is fit
    for bad in ["lib.mle.no_such_function", "lib.no_such_module.f", "lib.variational.FactorialParams", ""]:
        with pytest.raises((ValueError, TypeError)):
            with tripwires([bad]):
                pass
    # a half-set group is undone when a later name fails
    with pytest.raises(ValueError):
        with tripwires(["lib.mle.bernoulli_mle", "lib.mle.nothing"]):
            pass
    assert mle.bernoulli_mle(X01) == pytest.approx(0.6)


def test_tripwire_on_a_function_with_a_closure():
    def outer():
        scale = 2.0

        def inner(x):
            return scale * x
        return inner

    inner = outer()
    module = type(np)("tripwire_fixture")
    module.inner = inner
    import sys

    sys.modules["tripwire_fixture"] = module
    try:
        with tripwires(["tripwire_fixture.inner"]):
            with pytest.raises(Delegation):
                inner(1.0)
        assert inner(1.0) == 2.0
    finally:
        del sys.modules["tripwire_fixture"]


FORBID = ("lib.mle.bernoulli_mle",)


@check("ex-test-delegation", "matches the fraction of ones.", forbid=FORBID)
def _fraction_check(student_fn):
    got = call(student_fn, X01, name="bernoulli_mle")
    if got != mle.bernoulli_mle(X01):  # the reference runs outside call(): no tripwire
        raise Failure("wrong fraction.")


@check("ex-test-free", "matches the fraction of ones.")
def _free_check(student_fn):
    if call(student_fn, X01) != 0.6:
        raise Failure("wrong fraction.")


def test_check_reference_works_and_answers_are_judged():
    assert _fraction_check.forbid == FORBID
    assert _fraction_check(lambda x: float(np.mean(x))).passed
    _assert_delegation(_fraction_check(mle.bernoulli_mle), "lib.mle.bernoulli_mle")

    def swallows(x):  # catching the tripwire's exception does not help
        try:
            return mle.bernoulli_mle(x)
        except Exception:
            return float(np.mean(x))

    _assert_delegation(_fraction_check(swallows), "lib.mle.bernoulli_mle")
    assert _fraction_check(lambda x: 1 / 0).status == "failed"
    assert mle.bernoulli_mle(X01) == pytest.approx(0.6)


def test_check_without_forbid_is_unaffected():
    assert _free_check.forbid == ()
    assert _free_check(mle.bernoulli_mle).passed
    assert _free_check(lambda x: mle.bernoulli_mle(x)).passed


def test_forbid_reaches_call_only_while_the_check_runs():
    assert _core._FORBID.get() == ()
    assert call(mle.bernoulli_mle, X01) == pytest.approx(0.6)  # no check running: no tripwire
    _fraction_check(mle.bernoulli_mle)
    assert _core._FORBID.get() == ()


def test_grader_side_tripwires_around_a_whole_check():
    """tools/grade.py sets the check's tripwires itself; a Delegation reaching the check is a failure."""
    def answer(x):
        return mle.bernoulli_mle(x)

    with tripwires(_fraction_check.forbid) as fired:
        result = _free_check(answer)  # a check that does not forbid it, run under the grader's wires
    assert fired == ["lib.mle.bernoulli_mle"]
    assert result.status == "failed" and "`lib.mle.bernoulli_mle`" in result.message


def test_grader_wires_around_a_whole_check_leave_its_reference_working():
    with tripwires(_fraction_check.forbid) as fired:
        right = _fraction_check(lambda x: float(np.mean(x)))  # the reference calls lib.mle.bernoulli_mle
        wrong = _fraction_check(lambda x: mle.bernoulli_mle(x))
    assert right.passed, right
    _assert_delegation(wrong, "lib.mle.bernoulli_mle")
    assert fired == []  # the check's own (inner) wires caught it
    assert not _core._ACTIVE


@pytest.mark.parametrize("check_name", ["em_m_step_spherical", "bernoulli_mle", "cavi_update"])
def test_a_real_check_under_grader_wires(check_name):
    checker = getattr(lib.checks, check_name)
    answer, forbidden = CALLS_LIB.get(check_name, (None, None))
    with tripwires(checker.forbid):
        _assert_delegation(checker(answer), forbidden)
    assert not _core._ACTIVE


def test_a_right_answer_passes_under_grader_wires():
    """The reference of a real check calls the very function the wires are set on."""
    with tripwires(lib.checks.bernoulli_mle.forbid):
        assert lib.checks.bernoulli_mle(lambda x: float(np.mean(x))).passed
        assert lib.checks.em_e_step.forbid and lib.checks.em_e_step(
            lambda X, w, m, v: mixture.e_step(X, w, m, v, "spherical")[0]).status == "failed"
    assert not _core._ACTIVE

