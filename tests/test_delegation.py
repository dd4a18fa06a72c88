"""Checks refuse borrowed code (issues 24 and 36): an answer may call only what its exercise allows.

Every check carries an allow-list (``allow``: what an answer may call besides
NumPy, Python's standard library and ``scipy.linalg``) and names lib's own
implementation of its exercise (``solves``).  For every check and every
function it names in ``solves``, two submissions must fail with the delegation
message: (a) the lib function itself handed in as the answer, (b) a wrapper
that calls it.  For every exercise whose function lib implements, a "calls
lib" answer adapted to the exercise's signature passes the check's body when
no allow-list applies (so it is a right answer) and fails under it.  The rest
tests ``lib.checks._core.tripwires`` itself; tests/test_shortcuts.py hands in
the shortcuts through SciPy and scikit-learn.
"""

import functools
import inspect
import sys
import threading
import types

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
SOLVING = [(name, fn) for name, fn in CHECKS if fn.solves]
PAIRS = [(name, solver) for name, fn in SOLVING for solver in fn.solves]


def _assert_delegation(result, name):
    assert result.status == "failed", result
    assert f"`{name}`" in result.message, result.message
    assert "this exercise asks you to write it" in result.message, result.message


def test_every_check_has_an_allow_list_of_resolvable_names():
    assert len(CHECKS) > 30
    for name, fn in CHECKS:
        assert isinstance(fn.allow, tuple) and isinstance(fn.solves, tuple), name
        assert fn.forbid == fn.solves, name  # the older name, read by tests/giveaways.py
        for dotted in fn.allow:
            _core._lookup(dotted)
            assert dotted.split(".")[0] in _core.ARMED_PACKAGES, (name, dotted)  # NumPy needs no allowing
        for dotted in fn.solves:
            assert isinstance(_core.resolve(dotted), types.FunctionType), (name, dotted)
            assert dotted.startswith("lib."), (name, dotted)
            assert dotted not in fn.allow, (name, dotted)
        assert _core.policy_of(fn) == {"exercise": fn.exercise, "allow": list(fn.allow)}


def test_no_allow_list_lets_lib_checks_or_scikit_learn_in():
    for name, fn in CHECKS:
        for dotted in fn.allow:
            assert not dotted.startswith(("lib.checks", "sklearn")), (name, dotted)
            assert dotted not in ("lib", "scipy", "scipy.special", "scipy.stats"), (name, dotted)


# Exercises whose answer lib implements must name it: a function check without a
# solves tuple is listed here with the reason.
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


def test_checks_without_solves_are_the_listed_ones():
    assert {name for name, fn in CHECKS if not fn.solves} == set(NO_LIB_IMPLEMENTATION)


@pytest.mark.parametrize("check_name, solver", PAIRS, ids=[f"{c}-{f}" for c, f in PAIRS])
def test_lib_function_itself_fails(check_name, solver):
    func = _core.resolve(solver)
    result = getattr(lib.checks, check_name)(func)
    _assert_delegation(result, solver)
    assert f"your answer is `{solver}` itself" in result.message


@pytest.mark.parametrize("check_name, solver", PAIRS, ids=[f"{c}-{f}" for c, f in PAIRS])
def test_wrapper_that_calls_lib_fails(check_name, solver):
    func = _core.resolve(solver)
    params = inspect.signature(func).parameters.values()
    takes = None if any(p.kind is p.VAR_POSITIONAL for p in params) else sum(
        p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) for p in params)

    def wrapper(*args, **kwargs):  # calls it with as many arguments as it takes (a call that binds)
        return func(*args[:takes]) if takes is not None and len(args) > takes else func(*args, **kwargs)

    result = getattr(lib.checks, check_name)(wrapper)
    if f"TypeError: {func.__name__}() missing" in result.message:
        # the check's arguments do not make a call of it (the wires see a function once it runs)
        assert result.status == "failed" and "raised an exception" in result.message
        return
    _assert_delegation(result, solver)
    assert f"your function calls `{solver}`" in result.message
    assert sys.getprofile() is None  # the wires are gone after the check


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

# Checks naming lib's implementation for which no one-line right answer through lib exists (the
# generic submissions above still cover them).
NO_ONE_LINE_ANSWER = {"em_run"}


def test_every_solving_check_has_a_calls_lib_answer():
    assert set(CALLS_LIB) | NO_ONE_LINE_ANSWER == {name for name, _ in SOLVING}


@pytest.mark.parametrize("check_name", sorted(CALLS_LIB))
def test_calls_lib_answer_is_right_but_fails(check_name):
    checker = getattr(lib.checks, check_name)
    answer, forbidden = CALLS_LIB[check_name]
    # Without an allow-list (the check's body alone: call() sets none) the answer passes ...
    checker.__wrapped__(answer)
    # ... and under the check's allow-list it fails with the delegation message (naming the first
    # function of lib it calls that the exercise does not allow: lib's own version or a helper of it).
    result = checker(answer)
    assert result.status == "failed" and "this exercise asks you to write it" in result.message, result
    assert f"`{forbidden}`" in result.message or "calls `lib." in result.message, result


# ------------------------------------------------------------- the tripwires --

X01 = np.array([1, 0, 0, 1, 1])


def _copy(func):
    """A fresh function object running ``func``'s code (a copy made before the wires were set)."""
    return types.FunctionType(func.__code__, func.__globals__, func.__name__, func.__defaults__, func.__closure__)


# Calls made straight from the frame that entered the wires count as the check's own (see
# tripwires.stop); the answers below are lambdas, as a student's answer is a function of its own.


def test_tripwire_catches_every_route_to_lib():
    from lib.mle import bernoulli_mle as imported

    alias, held, copied = mle.bernoulli_mle, functools.partial(mle.bernoulli_mle), _copy(mle.bernoulli_mle)
    routes = (lambda: lib.mle.bernoulli_mle(X01), lambda: imported(X01), lambda: alias(X01),
              lambda: held(X01), lambda: mle.bernoulli_mle(x=X01), lambda: copied(X01),
              lambda: np.apply_along_axis(mle.bernoulli_mle, 0, X01),  # a callback run by NumPy
              lambda: list(map(mle.bernoulli_mle, [X01])))  # a callback run by a builtin
    for route in routes:
        with tripwires(()) as fired:
            with pytest.raises(Delegation) as info:
                route()
        assert info.value.name == "lib.mle.bernoulli_mle" and fired == ["lib.mle.bernoulli_mle"]
    assert imported(X01) == pytest.approx(0.6) and sys.getprofile() is None


def test_whole_packages_are_armed_without_naming_anything():
    from scipy import special, stats
    from sklearn.covariance import ledoit_wolf
    from sklearn.mixture._gaussian_mixture import _estimate_gaussian_parameters

    from lib.checks import _variants

    X = np.random.default_rng(0).normal(size=(20, 3))
    shortcuts = {
        "scipy.special.expit": lambda: special.expit(X),
        "scipy.special._logsumexp.softmax": lambda: special.softmax(X, axis=1),
        "sklearn.covariance._shrunk_covariance.ledoit_wolf": lambda: ledoit_wolf(X),
        "sklearn.mixture._gaussian_mixture._estimate_gaussian_parameters":
            lambda: _estimate_gaussian_parameters(X, np.ones((20, 1)), 1e-6, "full"),
        "lib.checks._variants.params": lambda: _variants.params("ex-gaussian-kl-value", 0),
    }
    for name, route in shortcuts.items():
        with tripwires(()) as fired:
            with pytest.raises(Delegation):
                route()
        assert fired and fired[0].startswith(name.rsplit(".", 1)[0]), (name, fired)
    with tripwires(()) as fired:  # a distribution's density: scipy.stats is armed as a whole
        with pytest.raises(Delegation):
            (lambda: stats.multivariate_normal(np.zeros(3), np.eye(3)).logpdf(X))()
    assert fired[0].startswith("scipy.stats")


def test_allowed_names_and_their_own_helpers_run():
    from scipy.special import logsumexp, xlogy

    X = np.random.default_rng(1).normal(size=(6, 2))
    with tripwires(("scipy.special.logsumexp", "scipy.special.xlogy", "lib.mixture.e_step")) as fired:
        assert np.isfinite(logsumexp(X, axis=1)).all()  # and the scipy helpers it calls itself
        assert np.isfinite(xlogy(X**2, X**2)).all()  # a ufunc, allowed by name
        resp, _ = mixture.e_step(X, np.array([0.5, 0.5]), X[:2], np.ones(2), "spherical")  # lib inside it too
        assert np.allclose(resp.sum(axis=1), 1.0)
        with pytest.raises(Delegation):
            (lambda: mixture.m_step(X, resp, "spherical"))()  # not allowed
        assert np.linalg.cholesky(np.eye(2)).shape == (2, 2)  # NumPy is never armed
        import scipy.linalg

        assert scipy.linalg.cho_factor(np.eye(2))[0].shape == (2, 2)  # BASE_ALLOW
    assert fired == ["lib.mixture.m_step"]


def test_answer_namespace_names_are_shielded_and_restored():
    from scipy.special import expit

    namespace = {"expit": expit, "np": np}
    exec("def answer(t):\n    return expit(t)\n", namespace)
    answer = namespace["answer"]
    with tripwires((), answer) as fired:
        assert namespace["expit"] is not expit
        with pytest.raises(Delegation):
            answer(0.0)
    assert namespace["expit"] is expit and fired == ["scipy.special.expit"]
    import scipy.special

    assert scipy.special.expit is expit and answer(0.0) == 0.5


def test_the_answer_itself_is_refused():
    from scipy.special import expit

    for answer, name in [(mle.bernoulli_mle, "lib.mle.bernoulli_mle"), (expit, "scipy.special.expit"),
                         (functools.partial(mle.bernoulli_mle), "lib.mle.bernoulli_mle")]:
        with pytest.raises(Delegation) as info:
            with tripwires((), answer):
                pass
        assert info.value.itself and info.value.name == name
    assert sys.getprofile() is None


def test_tripwires_restore_after_an_exception_and_when_nested():
    def profiler(frame, event, arg):
        return None

    sys.setprofile(profiler)
    try:
        with pytest.raises(ZeroDivisionError):
            with tripwires(["lib.mixture.e_step"]):
                1 / 0
        assert sys.getprofile() is profiler
        with tripwires(["lib.mixture.e_step", "lib.mixture.m_step"]):
            with tripwires(["lib.mixture.e_step"]):
                with pytest.raises(Delegation):
                    (lambda: mixture.m_step(np.zeros((2, 1)), np.ones((2, 1))))()
            (lambda: mixture.m_step(np.zeros((2, 1)), np.ones((2, 1)), "spherical"))()  # the outer list allows it
    finally:
        sys.setprofile(None)
    assert not _core._SHIELDS


def test_a_bad_allowed_name_is_refused():
    for bad in ["lib.mle.no_such_function", "lib.no_such_module.f", ""]:
        with pytest.raises((ValueError, TypeError)):
            with tripwires([bad]):
                pass
    assert sys.getprofile() is None and not _core._SHIELDS


def test_a_thread_started_by_the_answer_is_not_watched():
    """A limit the README states: the profiler follows the thread that runs the answer."""
    out = []
    with tripwires(()) as fired:
        worker = threading.Thread(target=lambda: out.append(mle.bernoulli_mle(X01)))
        worker.start()
        worker.join()
    assert out == [pytest.approx(0.6)] and fired == []


@check("ex-test-delegation", "matches the fraction of ones.", solves=("lib.mle.bernoulli_mle",))
def _fraction_check(student_fn):
    got = call(student_fn, X01, name="bernoulli_mle")
    if got != mle.bernoulli_mle(X01):  # the reference runs outside call(): no tripwire
        raise Failure("wrong fraction.")


@check("ex-test-free", "matches the fraction of ones.", allow=("lib.mle",))
def _lib_mle_allowed(student_fn):
    if call(student_fn, X01) != 0.6:
        raise Failure("wrong fraction.")


def test_check_reference_works_and_answers_are_judged():
    assert _fraction_check.allow == () and _fraction_check.solves == ("lib.mle.bernoulli_mle",)
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


def test_the_message_names_what_was_called_and_what_is_allowed():
    message = _lib_mle_allowed(lambda x: mixture.m_step(x[:, None], np.ones((5, 1)))[0]).message
    assert "`lib.mixture.m_step`" in message and "`lib.mle`" in message and "`scipy.linalg`" in message
    assert _lib_mle_allowed(mle.bernoulli_mle).passed  # a whole module allowed
    assert _lib_mle_allowed(lambda x: mle.bernoulli_mle(x)).passed


def test_allow_list_reaches_call_only_while_the_check_runs():
    assert _core._ALLOW.get() is None
    assert call(mle.bernoulli_mle, X01) == pytest.approx(0.6)  # no check running: no tripwire
    _fraction_check(mle.bernoulli_mle)
    assert _core._ALLOW.get() is None


def test_a_function_that_runs_elsewhere_gets_no_local_wires():
    """The grader's proxy for the sandboxed kernel: the policy travels with each call instead."""
    class Proxy:
        runs_elsewhere = True
        __name__ = "bernoulli_mle"

        def __call__(self, x):
            return mle.bernoulli_mle(x)  # stands for the kernel's reply

    assert _fraction_check(Proxy()).passed


def test_a_delegation_from_the_kernel_is_a_failure():
    class Proxy:
        runs_elsewhere = True
        __name__ = "bernoulli_mle"

        def __call__(self, x):
            raise Delegation("sklearn.covariance.ledoit_wolf")

    _assert_delegation(_fraction_check(Proxy()), "sklearn.covariance.ledoit_wolf")


@pytest.mark.parametrize("check_name", ["em_m_step_spherical", "bernoulli_mle", "cavi_update"])
def test_a_right_answer_through_allowed_lib_passes_and_the_reference_works(check_name):
    checker = getattr(lib.checks, check_name)
    answer, _ = CALLS_LIB[check_name]
    result = checker(answer)
    assert result.status == "failed" and "calls `lib." in result.message, result
    assert not _core._SHIELDS and sys.getprofile() is None


def test_scipy_linalg_functions_behind_scipy_wrappers_are_allowed():
    """SciPy wraps cho_factor, cho_solve, solve_triangular, ... in a wrapper that lives in scipy._lib (armed):
    the base allow-list's scipy.linalg still runs from an answer, and the wrapper lets nothing else through
    (issue 52: a Cholesky Newton step was refused under scipy.linalg's own name)."""
    namespace = {"np": np}
    exec("import scipy.linalg\n"
         "from scipy.stats import norm\n"
         "def answer(A, b):\n"
         "    return scipy.linalg.cho_solve(scipy.linalg.cho_factor(A), b)\n"
         "def answer_pdf(A, b):\n"
         "    return scipy.linalg.solve_triangular(np.linalg.cholesky(A), b, lower=True) + norm.pdf(b)\n",
         namespace)
    A, b = np.array([[4.0, 1.0], [1.0, 3.0]]), np.array([1.0, 2.0])
    with tripwires((), namespace["answer"]) as fired:
        assert np.allclose(namespace["answer"](A, b), np.linalg.solve(A, b))
    assert fired == []
    with tripwires((), namespace["answer_pdf"]) as fired:
        with pytest.raises(Delegation):
            namespace["answer_pdf"](A, b)
    assert fired and fired[0].startswith("scipy.stats")
