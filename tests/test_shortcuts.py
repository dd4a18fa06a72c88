"""Shortcut submissions fail (issue 36): an answer may call only what its exercise allows.

Every check allows less than everything (tests/test_delegation.py checks that
each has an allow-list), so for every function check:

* a *generic* shortcut through each armed package fails with the delegation
  message: an answer that touches ``lib.checks`` (a variant's ``Spec.answer``,
  the checks' own helpers), scikit-learn, a SciPy density or a SciPy special
  function the exercise did not allow, whatever it then returns;
* the *realistic* shortcuts of the issue, each a right answer when no
  allow-list applies (the check's body alone), fail with a message that names
  what was called: ``scipy.special.expit``, ``sklearn.covariance.ledoit_wolf``,
  ``MultinomialNB(...).feature_log_prob_``, ``multivariate_normal(...).logpdf``,
  ``lib.online_em.parameters_from_statistics``, ``log_likelihood -
  posterior_kl``, scikit-learn's private ``_estimate_gaussian_parameters``;
* experiments are run, not reported: theoretical values (with or without a
  token noise) and values read from lib.checks fail.

The class at the end goes through the real sandboxed grader (as
tests/test_grade.py does): each shortcut, pasted into an otherwise solved
student notebook, is graded 0 for its exercise, with the same message as the
student's own check cell gives; a variant's answer read from ``lib.checks``
in a cell finds nothing there (the sandbox's ``lib.checks`` holds no check).
"""

import csv
import math
import os
import subprocess
import sys
from pathlib import Path

import nbformat
import numpy as np
import pytest
import scipy.special
import scipy.stats
import sklearn.utils.validation
from sklearn.covariance import LedoitWolf, ledoit_wolf
from sklearn.mixture._gaussian_mixture import _estimate_gaussian_parameters
from sklearn.naive_bayes import MultinomialNB

import lib
import lib.checks
from lib import em_theory, mixture, online_em
from lib.checks import _variants

ROOT = Path(__file__).resolve().parents[1]


def _function_checks():
    """(name, check) of every check whose answer is a function (a number's check calls nothing)."""
    numbers = {"gaussian_kl_value", "elbo_gap_by_hand", "em_second_iteration", "naive_bayes_right"}
    return [(name, getattr(lib.checks, name)) for name in lib.checks.__all__
            if hasattr(getattr(lib.checks, name), "exercise") and name not in numbers]


FUNCTION_CHECKS = _function_checks()


def _assert_refused(result, name_part):
    assert result.status == "failed", result
    assert "this exercise asks you to write it" in result.message, result
    assert name_part in result.message, result


# ------------------------------------------------------ generic shortcuts --

def _touch_variants(*args, **kwargs):
    spec = _variants.registered()["ex-gaussian-kl-value"]
    return spec.answer(spec.params(0))  # a variant's answer, read while the answer runs


def _touch_sklearn(*args, **kwargs):
    return sklearn.utils.validation.check_array(np.zeros((2, 2)))


def _touch_scipy_density(*args, **kwargs):
    return scipy.stats.gamma(2.0).logpdf(1.0)  # a density no exercise teaches


def _touch_softmax(*args, **kwargs):
    return scipy.special.softmax(np.zeros(3))


GENERIC = {"lib.checks": _touch_variants, "sklearn.": _touch_sklearn, "scipy.stats": _touch_scipy_density,
           "scipy.special": _touch_softmax}


@pytest.mark.parametrize("route", sorted(GENERIC))
@pytest.mark.parametrize("check_name", [name for name, _ in FUNCTION_CHECKS])
def test_every_function_check_refuses_every_armed_package(check_name, route):
    result = getattr(lib.checks, check_name)(GENERIC[route])
    _assert_refused(result, f"calls `{route}")


def test_a_ufunc_the_exercise_did_not_allow_is_refused_everywhere():
    allowing = {name for name, fn in FUNCTION_CHECKS if "scipy.special.expit" in fn.allow}
    assert allowing == {"sgd_epoch", "newton_step", "mean_field_update"}
    for name, fn in FUNCTION_CHECKS:
        if name not in allowing:
            _assert_refused(fn(lambda *a, **k: scipy.special.expit(0.0)), "calls `scipy.special.expit`")


# ---------------------------------------------------- the issue's shortcuts --

def _nb_word_log_probs(X, y, alpha):
    return MultinomialNB(alpha=alpha, force_alpha=True).fit(X, y).feature_log_prob_


def _max_log_likelihood(X):
    cov = np.atleast_2d(np.cov(X.T, bias=True))
    return scipy.stats.multivariate_normal(X.mean(axis=0), cov).logpdf(X).sum()


def _m_step_spherical(X, resp):
    nk, means, variances = _estimate_gaussian_parameters(X, resp, 0.0, "spherical")
    return nk / len(X), means, variances


def _m_step_full(X, weights, means, covariances):
    resp, _ = mixture.e_step(X, weights, means, covariances, "full")  # allowed by this exercise
    nk, new_means, new_covs = _estimate_gaussian_parameters(X, resp, 0.0, "full")
    return nk / len(X), new_means, new_covs


def _m_step_from_sums(counts, first, second, centres, n_samples):
    return online_em.parameters_from_statistics(counts / n_samples, first / n_samples, second / n_samples,
                                                centres, reg_covar=0.0)


def _lower_bound(X, resp, weights, means, variances):
    return (mixture.log_likelihood(X, weights, means, variances, "spherical")
            - em_theory.posterior_kl(X, resp, weights, means, variances, "spherical"))


# check -> [(a shortcut answer, the name the message gives, is it right without the allow-list?)]
SHORTCUTS = {
    "stable_sigmoid": [(scipy.special.expit, "your answer is `scipy.special.expit` itself", True),
                       (lambda t: scipy.special.expit(t), "calls `scipy.special.expit`", True)],
    "gda_ledoit_wolf": [(lambda X: ledoit_wolf(X)[1], "calls `sklearn.covariance", True),
                        (lambda X: LedoitWolf().fit(X).shrinkage_, "calls `sklearn.", True)],
    "nb_word_log_probs": [(_nb_word_log_probs, "calls `sklearn.", False)],
    "gaussian_max_log_likelihood": [(_max_log_likelihood, "calls `scipy.stats", True)],
    # not right: scikit-learn's spherical variances are moments about the origin, E[x^2] - 2 E[x] mu + mu^2,
    # which lose their digits on the check's data 1e7 from the origin (issue 52); refused all the same
    "em_m_step_spherical": [(_m_step_spherical, "_estimate_gaussian_parameters`", False)],
    "em_m_step_full": [(_m_step_full, "_estimate_gaussian_parameters`", True)],
    "em_m_step_from_sums": [(_m_step_from_sums, "calls `lib.online_em.parameters_from_statistics`", False)],
    "em_lower_bound": [(_lower_bound, "calls `lib.", True)],  # log_likelihood, the first call, or posterior_kl
    "softmax_gradient": [(lambda W, b, X, y: scipy.special.softmax(X @ W.T + b, axis=1),
                          "calls `scipy.special", False)],
    "gda_posterior": [(lambda X, p, m, c: np.exp(lib.discriminant.log_posterior(X, p, m, c)),
                       "calls `lib.discriminant", False)],
}


@pytest.mark.parametrize("check_name", sorted(SHORTCUTS))
def test_the_issues_shortcuts_fail(check_name):
    checker = getattr(lib.checks, check_name)
    for answer, says, right in SHORTCUTS[check_name]:
        if right:  # a right answer when nothing is armed: the allow-list, not a wrong value, refuses it
            checker.__wrapped__(answer)
        _assert_refused(checker(answer), says)


def test_the_page_advertised_helper_is_fine_where_the_page_taught_it():
    """sgd_epoch allows expit (01_1 teaches it for the epoch); the sigmoid exercise itself does not."""
    def epoch(w, b, X, y, lr, order):
        w = np.array(w, dtype=float)
        for i in order:
            error = y[i] - scipy.special.expit(X[i] @ w + b)
            w, b = w + lr * error * X[i], b + lr * error
        return w, b

    assert lib.checks.sgd_epoch(epoch).passed
    _assert_refused(lib.checks.stable_sigmoid(lambda t: scipy.special.expit(t)), "scipy.special.expit")


# ------------------------------------------- experiments are run, not reported --

def _variance_theory(n_values, n_repeats, sigma2, rng, noise=0.0):
    """The table an experiment would report, from the closed forms (no simulation); with ``noise``, a token
    noise that shrinks with n_repeats as a real run's does, so that every argument is used."""
    n = np.asarray(n_values, dtype=float)
    table = np.stack([(n - 1) / n * sigma2, (2 * n - 1) / n**2 * sigma2**2, 2 / (n - 1) * sigma2**2], axis=1)
    return table * (1 + noise / np.sqrt(n_repeats) * rng.standard_normal(table.shape))


def test_a_reported_variance_table_fails():
    check = lib.checks.variance_mse_experiment
    # the closed forms alone use neither n_repeats nor rng: the first argument check names it (issue 44)
    assert "ignores n_repeats" in check(_variance_theory).message
    # with a token noise every argument moves the table, but far less than a real run's Monte Carlo error
    assert "barely changes" in check(lambda *a: _variance_theory(*a, noise=1e-5)).message

    def from_the_check(n_values, n_repeats, sigma2, rng):
        from lib.checks import ch02

        mean, _, mse_mle, _, mse_unb, _ = ch02._experiment_expectations(n_values, n_repeats, sigma2)
        return np.stack([mean, mse_mle, mse_unb], axis=1)

    _assert_refused(check(from_the_check), "calls `lib.checks.ch02._experiment_expectations`")


def _accuracy_theory(rho, n_train, rng, noise=0.0, n_test=20000):
    """The large-sample accuracies, reported; with ``noise``, a token noise, a token dependence on n_train
    and counts over n_test test points, so that every argument is used."""
    phi = 0.5 * (1 + math.erf(0.5 / math.sqrt(2)))  # naive Bayes: the axis-aligned rule
    lda = 0.5 * (1 + math.erf(0.5 / math.sqrt(1 - rho**2) / math.sqrt(2)))
    if not noise:
        return phi, lda
    shift = 0.01 / n_train
    return tuple(round((a - shift + noise * rng.standard_normal()) * n_test) / n_test for a in (phi, lda))


def test_reported_accuracies_fail():
    check = lib.checks.naive_bayes_vs_lda
    assert "ignores its rng argument" in check(_accuracy_theory).message  # the same for every seed
    # every argument used, but the accuracies vary far less than a 20000-point test set makes them vary
    assert "hardly change" in check(lambda *a, **k: _accuracy_theory(*a, noise=1e-4, **k)).message

    def from_the_check(rho, n_train, rng):
        from lib.checks import ch03

        lda, nb = ch03._theory_accuracies(rho)
        return nb + 0.003 * rng.standard_normal(), lda + 0.003 * rng.standard_normal()

    _assert_refused(check(from_the_check), "calls `lib.checks.ch03._theory_accuracies`")


# ------------------------------------------------- through the real grader --

sys.path.insert(0, str(ROOT))  # the grader package
sys.path.insert(0, str(ROOT / "tools"))
from grader import sandbox  # noqa: E402
import student  # noqa: E402

_NO_SANDBOX = sandbox.probe(ROOT, {})

# submission -> (page, exercise, shortcut answer cell, what the feedback names)
GRADED = {
    "01_discriminative_vs_generative": ("01_discriminative_vs_generative", "ex-dvg-sigmoid", "from scipy.special import expit\n\nsigmoid = expit\n",
                                        # the same ufunc is also lib.logistic.expit: the kernel may name either
                                        "expit` itself"),
    "02_2_naive_bayes_spam": ("02_2_naive_bayes_spam", "ex-nb-word-log-probs", "from sklearn.naive_bayes import MultinomialNB\n\n\n"
                              "def nb_word_log_probs(X, y, alpha):\n"
                              "    return MultinomialNB(alpha=alpha, force_alpha=True).fit(X, y).feature_log_prob_\n",
                              "calls `sklearn."),
    "02_3_gaussian_mle": ("02_3_gaussian_mle", "ex-gaussian-max-log-likelihood", "from scipy.stats import multivariate_normal\n\n\n"
                          "def gaussian_max_log_likelihood(X):\n"
                          "    cov = np.atleast_2d(np.cov(X.T, bias=True))\n"
                          "    return multivariate_normal(X.mean(axis=0), cov).logpdf(X).sum()\n",
                          "calls `scipy.stats"),
    "03_3_fisher_shrinkage": ("03_3_fisher_shrinkage", "ex-gda-ledoit-wolf", "from sklearn.covariance import ledoit_wolf\n\n\n"
                              "def ledoit_wolf_intensity(X):\n    return ledoit_wolf(X)[1]\n",
                              "calls `sklearn.covariance"),
    "04_1_em_bound": ("04_1_em_bound", "ex-em-lower-bound", "import lib.em_theory\n\n\n"
                      "def lower_bound_spherical(X, resp, weights, means, variances):\n"
                      "    return (log_likelihood(X, weights, means, variances, 'spherical')\n"
                      "            - lib.em_theory.posterior_kl(X, resp, weights, means, variances, 'spherical'))\n",
                      "calls `lib."),
    # a variant's answer read from lib.checks in a cell: the sandbox's lib.checks holds no check
    # (lib/checks/_sandbox.py), so the cell fails and the answer is missing
    "variant-spec-answer": ("02_4_risk_kl_misspecification", "ex-gaussian-kl-value",
                            "from lib.checks import _variants\n\n"
                            "spec = _variants.registered()['ex-gaussian-kl-value']\n"
                            "answer = spec.answer(spec.params(0))\n", "name 'answer' is not defined"),
    "variant-reference": ("02_4_risk_kl_misspecification", "ex-gaussian-kl-value",
                          "import lib.checks.ch02\n\nanswer = lib.checks.ch02._kl_reference()[0]\n",
                          "name 'answer' is not defined"),
}


def _shortcut_notebook(page, exercise, source):
    """The page's student edition with every solution pasted in, and ``source`` as ``exercise``'s answer."""
    nb = student.build(ROOT / "chapters" / f"{page}.md", with_solutions=True)
    cells = [c for c in nb.cells if c.cell_type == "code"]
    at = next(i for i, c in enumerate(cells) if c.metadata.get("exercise") == exercise
              and "check" in c.metadata.get("tags", []))
    starter = next(c for c in reversed(cells[:at]) if "starter" in c.metadata.get("tags", []))
    starter.source = source
    return nb


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    if _NO_SANDBOX:
        if os.environ.get("CI") == "true":
            pytest.fail(f"the grader's sandbox is not available on this CI machine: {_NO_SANDBOX}", pytrace=False)
        pytest.skip(f"no sandbox for the grader here: {_NO_SANDBOX}")
    subs, out = tmp_path_factory.mktemp("shortcuts"), tmp_path_factory.mktemp("shortcuts-out")
    for name, (page, exercise, source, _) in GRADED.items():
        nbformat.write(_shortcut_notebook(page, exercise, source), subs / f"shortcut-{name}.ipynb")
    cmd = [sys.executable, str(ROOT / "grader"), "grade", str(subs), "--out", str(out), "-j", "2",
           "--cell-timeout", "120"]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=1200)
    assert done.returncode == 0, done.stderr
    rows = {r["student"]: r for r in csv.DictReader(open(out / "grades.csv"))}
    return rows, out


@pytest.mark.parametrize("name", sorted(GRADED))
def test_the_grader_gives_a_shortcut_zero(graded, name):
    rows, out = graded
    _, exercise, _, says = GRADED[name]
    row = rows[f"shortcut-{name}"]
    assert row[exercise] == "0", row
    feedback = (out / "feedback" / f"shortcut-{name}.md").read_text()
    line = next(line for line in feedback.splitlines() if line.startswith("| Exercise ") and f"({exercise}) |" in line)
    assert says in line, line
    if not name.startswith("variant-"):
        assert "this exercise asks you to write it" in line, line
    # the page's other exercises (a class of several chapters leaves the other pages' columns empty)
    others = [label for label in row if label.startswith("ex-") and label != exercise and row[label] != ""]
    assert all(row[label] == "1" for label in others), row  # graded as usual (01 and 02_4 have one)


@pytest.mark.parametrize("page", sorted(name for name in GRADED if not name.startswith("variant-")))
def test_the_students_own_check_cell_agrees(page):
    """The same answer cell, run in this process, and the same check: the same verdict and name."""
    _, exercise, source, says = GRADED[page]
    namespace = {"np": np, "log_likelihood": mixture.log_likelihood}
    exec(compile(source, f"<answer cell of {page}>", "exec"), namespace)
    checker = next(fn for _, fn in FUNCTION_CHECKS if fn.exercise == exercise)
    answer = next(v for k, v in namespace.items() if callable(v) and not k.startswith("__")
                  and k not in ("log_likelihood", "multivariate_normal", "MultinomialNB", "expit")
                  and getattr(v, "__name__", "") != "ledoit_wolf" and not isinstance(v, type(np)))
    _assert_refused(checker(answer), says)


def test_the_sandbox_edition_of_lib_checks_holds_no_check(tmp_path):
    """lib/checks/_sandbox.py: what the grading sandbox mounts over lib/checks."""
    import importlib.util

    from lib.checks import _sandbox

    folder = _sandbox.write_edition(tmp_path / "checks", {"ex-gaussian-kl-value": [0, 12345]})
    assert sorted(p.name for p in folder.iterdir()) == ["__init__.py", "_core.py", "variants.json"]
    spec = importlib.util.spec_from_file_location("sandboxed_checks", folder / "__init__.py",
                                                  submodule_search_locations=[str(folder)])
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    for seed in (0, 12345):
        shown, real = module.variant("ex-gaussian-kl-value", seed=seed), _variants.Variant(
            _exercise="ex-gaussian-kl-value", _seed=seed, **_variants.params("ex-gaussian-kl-value", seed))
        assert repr(shown) == repr(real) and shown.mu0 == real.mu0
    with pytest.raises(ValueError, match="not the one handed out"):
        module.variant("ex-gaussian-kl-value", seed=7)
    with pytest.raises(AttributeError, match="the grader runs the checks itself"):
        module.gaussian_kl_value  # noqa: B018 - the attribute access is the test
    text = "".join(p.read_text() for p in folder.iterdir())
    assert "_kl_values" not in text and "answer" not in (folder / "variants.json").read_text()
