"""Words of size and comparison on chapters 1 and 2 hold for the printed numbers (issue 37).

Each row of CLAIMS is a claim of a page's prose, the wording it has there, and a check of
that wording against the page's committed outputs: the values the page glues into its
text (``lib.plotting.glue``, quoted as ``{glue:text}`name```) and the lines it prints.
nbval makes those outputs reproduce (at one and two BLAS threads); this test makes the
words around them true.  A re-executed page whose numbers move so that a sentence no
longer holds fails here, with the sentence to rewrite.  The list is also the record of
what the last reading checked: a claim that rests on a computation of the page and is
not in this list was not checked.
"""

import re
from collections import Counter

import numpy as np
import pytest
from scipy.special import expit
from scipy.stats import norm

from claims import CHAPTERS, number, numbers, outputs  # one home for reading a page: tests/claims.py


def _lc_rows(t):
    """01_3's learning-curve table: {n: (NB shared, NB per-class, logistic)}."""
    block = t[t.index("NB per-class  logistic"):].splitlines()[1:12]
    return {int(r.split()[0]): tuple(float(v) for v in r.split()[1:4]) for r in block}


def _rho_lines(t):
    return re.findall(r"rho = ([\d.]+): Bayes error [\d.]+, naive Bayes' limit ([\d.]+);.*?"
                      r"logistic ahead from n = (\d+)", t)


def _table(t, header, n_rows):
    """Rows of a printed table after the line containing ``header``: {first column: rest}."""
    block = t[t.index(header):].splitlines()[1:1 + n_rows]
    return {int(r.split()[0]): [float(v) for v in r.split()[1:]] for r in block}


def _missing_width_curves():
    """01_3's curves of p(virginica | petal length) (fig-dvg-missing), recomputed: for naive
    Bayes (width integrated out), logistic regression retrained on length, and logistic
    regression with the mean width imputed, the length where p = 1/2 and the slope of
    the log-odds in the length (cm^-1)."""
    from lib.datasets import load_iris
    from lib.logistic import LogisticRegression

    X_all, y_all = load_iris(features=["petal length", "petal width"])
    X, y = X_all[y_all > 0], (y_all[y_all > 0] == 2).astype(int)
    both = LogisticRegression().fit(X, y)
    w, b = both.coef_[0], both.intercept_[0]
    length = LogisticRegression().fit(X[:, [0]], y)
    m0, m1 = X[y == 0, 0].mean(), X[y == 1, 0].mean()
    v = (X[y == 0, 0].var() + X[y == 1, 0].var()) / 2  # pooled, equal class sizes
    return {"naive Bayes": ((m0 + m1) / 2, (m1 - m0) / v),
            "retrained": (-length.intercept_[0] / length.coef_[0][0], length.coef_[0][0]),
            "imputed": (-(w[1] * X[:, 1].mean() + b) / w[0], w[0])}


def _theorem_margin():
    """01_2's prose (computed): the unit vector theta-bar = (w, b) that maximises Novikoff's margin
    u_min on setosa against the rest (petal measurements), by the quadratic programme
    min ||theta||^2 subject to s_i theta^T x~_i >= 1; returns (u_min, the bound (max ||x~|| / u_min)^2)
    and the SVM's u_min, which measures the margin with w alone."""
    from scipy.optimize import minimize
    from sklearn.svm import SVC

    from lib.datasets import load_iris

    X, y = load_iris(features=["petal length", "petal width"])
    s = np.where(y == 0, 1.0, -1.0)
    Xt = np.column_stack([X, np.ones(len(X))])
    svm = SVC(kernel="linear", C=1e6).fit(X, (y == 0).astype(int))
    svm_theta = np.append(svm.coef_[0], svm.intercept_[0])
    svm_theta /= np.linalg.norm(svm_theta)
    svm_u = np.min(s * (Xt @ svm_theta))
    A = s[:, None] * Xt
    res = minimize(lambda t: t @ t, svm_theta / svm_u, jac=lambda t: 2 * t, method="SLSQP",
                   constraints=[{"type": "ineq", "fun": lambda t: A @ t - 1, "jac": lambda t: A}],
                   options={"ftol": 1e-14, "maxiter": 1000})
    assert res.success
    u = 1 / np.linalg.norm(res.x)
    return u, (np.max(np.linalg.norm(Xt, axis=1)) / u) ** 2, svm_u


def _training_gaps():
    """01_1's fig-dvg-training (b), recomputed: the gaps to the maximum of the 300 gradient
    steps on the standardised features and of Newton's steps on the raw ones."""
    import warnings

    from lib.datasets import load_iris
    from lib.logistic import LogisticRegression

    X_all, y_all = load_iris(features=["petal length", "petal width"])
    X, y = X_all[y_all > 0], (y_all[y_all > 0] == 2).astype(int)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # stopped after 300 steps on purpose, as on the page
        gd = LogisticRegression(method="gradient", lr="auto", tol=0.0, max_iter=300).fit(
            (X - X.mean(axis=0)) / X.std(axis=0), y)
    newton = LogisticRegression().fit(X, y)
    best = newton.log_likelihood_history_[-1]
    return best - np.asarray(gd.objective_history_), best - np.asarray(newton.log_likelihood_history_)


def _mixture_density(x):
    """02_4's p = 0.4 N(-2, 0.5^2) + 0.6 N(1.5, 0.7^2)."""
    return 0.4 * norm.pdf(x, -2.0, 0.5) + 0.6 * norm.pdf(x, 1.5, 0.7)


def _log_sigmoid_safely():
    """01's prose (computed): ln sigma(t) = min(t, 0) - ln(1 + e^-|t|) exponentiates only
    non-positive numbers and is ~ t for t << 0, where -ln(1 + e^-t) overflows to -inf."""
    from scipy.special import log_expit

    t = np.array([-1000.0, -40.0, -1.0, 0.0, 1.0, 40.0, 1000.0])
    safe = np.minimum(t, 0) - np.log1p(np.exp(-np.abs(t)))
    with np.errstate(over="ignore"):
        direct = -np.log1p(np.exp(-t))
    return (np.allclose(safe, log_expit(t), rtol=1e-15, atol=0) and safe[0] == -1000.0
            and direct[0] == -np.inf)


def _spherical_versus_petal():
    """02_3's fig-mle-gauss-shapes (computed): the spherical MLE's variance tr(Sigma_hat)/4 for
    versicolor, the average of the two petal variances, and that of the two sepal variances."""
    from lib.datasets import load_iris

    x, y = load_iris()
    variances = np.diag(np.cov(x[y == 1].T, bias=True))
    return variances.mean(), variances[2:].mean(), variances[:2].mean()


def _uniform_prior_posterior_mean(n_ones, n):
    """02_1's prose (computed): the posterior mean of a coin's theta under Uniform[0, 0.2], from
    n_ones ones in n tosses (the Beta(n_ones + 1, n - n_ones + 1) posterior cut to [0, 0.2])."""
    grid = np.linspace(0, 0.2, 200001)[1:]
    log_post = n_ones * np.log(grid) + (n - n_ones) * np.log1p(-grid)
    weights = np.exp(log_post - log_post.max())
    return float((grid * weights).sum() / weights.sum())


CLAIMS = [
    # (page, the prose's words, check(glued, printed text))
    ("01_1_fitting_logistic", "even 20000 steps [on the raw features] reach only ... "
     "(below the standardised run after 300)",
     lambda g, t: g["ll_raw_300"] < g["ll_raw_20000"] < g["ll_std_300"]),
    ("01_1_fitting_logistic", "Newton ... needs only a handful of steps; stopped after N steps",
     lambda g, t: g["newton_steps"] <= 10),
    ("01_1_fitting_logistic", "near the maximum each step roughly squares the error "
     "(ex-dvg-newton's solution, gaps after steps 5, 6, 7)",
     lambda g, t: g["newton_gap_6"] <= 2 * g["newton_gap_5"] ** 2
     and g["newton_gap_7"] <= 2 * g["newton_gap_6"] ** 2),
    ("01_1_fitting_logistic", "with the penalty lambda = 1 the same fit converges to finite weights",
     lambda g, t: "with l2 = 1: converged True" in t),
    ("01_2_perceptron_probit", "(computed) The theta-bar that maximises the theorem's margin reaches "
     "u_min = 0.2685 and a bound of 748 updates, below the SVM's [whose margin is measured with w alone]",
     lambda g, t: (lambda u, bound, svm_u: f"{u:.4f}" == "0.2685" and round(bound) == 748 and svm_u < u
                   and f"u_min = {svm_u:.4f}" in t and round(bound) < g["perceptron_bound"])(*_theorem_margin())),
    ("01_2_perceptron_probit", "The bound is far from tight here: U updates against a bound of B",
     lambda g, t: 10 * g["perceptron_updates"] < g["perceptron_bound"]),
    ("01_2_perceptron_probit", "with c = C the two curves never differ by more than G ... "
     "a probit model with parameters theta / c ..., as the fitted parameters above confirm",
     lambda g, t: g["probit_gap"] < 0.01
     and max(abs(g["ratio_min"] - g["probit_scale"]), abs(g["ratio_max"] - g["probit_scale"])) <= 0.1),
    ("01_2_perceptron_probit", "the training accuracy of the final weights depends on the epoch at "
     "which we stop", lambda g, t: len(set(numbers(t, r"after epochs 96 to 100: \[(.*)\]"))) > 1),
    ("01_3_generative_vs_discriminative", "correlated in the data and not in the samples",
     lambda g, t: all(float(data) > 0.2 and abs(float(fake)) < 0.05 for data, fake in
                      re.findall(r"correlation (-?[\d.]+) in the data, (-?[\d.]+) in 10000", t))),
    ("01_3_generative_vs_discriminative", "All three approaches lose some accuracy ...; the retrained "
     "logistic regression ... has the smallest log loss",
     lambda g, t: (lambda rows: all(r[0] < rows[3][0] for r in rows[:3])
                   and rows[2][1] == min(r[1] for r in rows[:3]))(
         [tuple(float(v) for v in line.split()[-2:]) for line in
          t[t.index("petal width missing"):].splitlines()[1:5]])),
    ("01_3_generative_vs_discriminative", "Both classifiers still name a species with confidence; "
     "ln p(x) shows the input to be far outside everything it has seen",
     lambda g, t: min(numbers(t, r"(?s)(= [\d.]+\nnaive Bayes: +p\(versicolor \| odd flower\) = [\d.]+)"))
     > 0.8 and number(t, r"ln p\(x\) = (-?[\d.]+) for the odd") + 10
     < number(t, r"for the odd flower; (-?[\d.]+) to")),
    ("01_3_generative_vs_discriminative", "From A to B examples shared-variance naive Bayes is ahead; "
     "from C on logistic regression is ahead, and the gap does not close",
     lambda g, t: (lambda rows: all((rows[n][0] < rows[n][2]) == (g["lc_nb_first"] <= n <= g["lc_before"])
                                    for n in rows if n >= g["lc_nb_first"])
                   and rows[1000][0] - rows[1000][2] > 2 * g["lc_se"])(_lc_rows(t))),
    ("01_3_generative_vs_discriminative", "its error does not improve from n = 40 to n = 63",
     lambda g, t: _lc_rows(t)[63][2] >= _lc_rows(t)[40][2]),
    ("01_3_generative_vs_discriminative", "At the smallest sizes ... the two linear ones are equal "
     "within the noise (no standard error above S)",
     lambda g, t: all(abs(_lc_rows(t)[n][0] - _lc_rows(t)[n][2]) < 2 * 2 ** 0.5 * g["lc_se"]
                      for n in (10, 16))),
    ("01_3_generative_vs_discriminative", "the stronger the correlation, the higher naive Bayes's "
     "plateau, and logistic regression overtakes it no later",
     lambda g, t: (lambda rows: [float(r[1]) for r in rows] == sorted(float(r[1]) for r in rows)
                   and [int(r[2]) for r in rows] == sorted((int(r[2]) for r in rows), reverse=True))(
         _rho_lines(t))),
    ("01_3_generative_vs_discriminative", "ex-dvg-nb-right: the gaps are smaller for naive Bayes at "
     "n = 250, 400, 1000; logistic regression ahead only at n = 10, within two standard errors",
     lambda g, t: all(a < b for a, b in zip(numbers(t, r"naive Bayes: +\[(.*)\]"),
                                            numbers(t, r"logistic regression: \[(.*)\]")))
     and "ahead at n = [10]," in t and g["nbr_margin"] < g["nbr_2se"]),
    ("02_maximum_likelihood", "The product is exactly 0.0 ...; even the best Gaussian ... far below "
     "the logarithm of the smallest representable number",
     lambda g, t: "product of 1000 densities: 0.0\n" in t
     and number(t, r"over all Gaussians: +(-[\d.]+)") < 1.5 * number(t, r"positive float64: +(-[\d.]+)")),
    ("02_maximum_likelihood", "never seen in N words (the training part)",
     lambda g, t: f"in the {g['n_train']} training tokens" in t),
    ("02_1_map_bayesian", "the MAP estimate under Dir(alpha + 1) is smoothing with pseudo-count alpha",
     lambda g, t: "posterior mean under Dir(1, ..., 1): True" in t),
    ("02_2_naive_bayes_spam", "nearly half of the test messages (P) are impossible under both classes",
     lambda g, t: 0.4 < g["share_both_impossible"] < 0.5
     and g["n_both_impossible"] / g["n_test"] == pytest.approx(g["share_both_impossible"], abs=5e-4)),
    ("02_2_naive_bayes_spam", "classify alike except for K of the N ..., well within the noise of a "
     "test set of this size",
     lambda g, t: g["n_changed"] / g["n_test"]
     < 2 * (0.98 * 0.02 / g["n_test"]) ** 0.5),
    ("02_2_naive_bayes_spam", "Accuracy stays between A and B ... and drops to C at alpha = 10",
     lambda g, t: g["acc_10"] < g["acc_low"] <= g["acc_high"]),
    ("02_2_naive_bayes_spam", "gets exactly twice the log odds (apart from the prior term)",
     lambda g, t: number(t, r"2 copies: log odds minus the prior term ([\d.]+)")
     == pytest.approx(2 * number(t, r"1 copy: log odds minus the prior term ([\d.]+)"), abs=0.011)),
    ("02_2_naive_bayes_spam", "a rate of P, about R times higher [than one in a million]",
     lambda g, t: g["sure_ratio"] == pytest.approx(g["sure_wrong"] / 1e-6, rel=0.05)
     and g["sure_ratio"] >= 1000),
    ("02_2_naive_bayes_spam", "The two are about equally accurate, but naive Bayes' log loss is "
     "R times larger",
     lambda g, t: abs(number(t, r"naive Bayes: accuracy ([\d.]+)")
                      - number(t, r"logistic regression: accuracy ([\d.]+)")) <= 0.01
     and g["loss_ratio"] > 2),
    ("02_2_naive_bayes_spam", "Most messages lie tens or hundreds of nats from the boundary",
     lambda g, t: number(t, r"median \|log odds\| on the test set: ([\d.]+)") > 10),
    ("02_3_gaussian_mle", "the MLE is closer to the truth on average at every n (the simulation of "
     "ex-variance-mse-experiment)",
     lambda g, t: all(float(a) < float(b) for a, b in
                      re.findall(r"MSE MLE ([\d.]+) \(theory [\d.]+\), MSE unbiased ([\d.]+)", t))),
    ("02_3_gaussian_mle", "the wrong divisor gives four times the MLE",
     lambda g, t: "(ratio 4.0 = d)" in t),
    ("02_4_risk_kl_misspecification", "The two differ by Z standard errors, fewer than the two ...",
     lambda g, t: g["kl_mc_z"] < 2 and "within 3 standard errors: True" in t),
    ("02_4_risk_kl_misspecification", "n KL stays between A and B from n = 100 on, near the "
     "classical asymptotic value 1",
     lambda g, t: 0.8 < g["nkl_low"] <= g["nkl_high"] < 1.25),
    ("02_4_risk_kl_misspecification", "The last two numbers agree [average log loss and entropy]",
     lambda g, t: number(t, r"on setosa: (-[\d.]+)") == number(t, r"differential entropy: (-[\d.]+)")),
    ("02_4_risk_kl_misspecification", "Both follow the dashed reference lines of slope -1/2",
     lambda g, t: numbers(t, r"slopes: (mean -[\d.]+, covariance -[\d.]+)")[::1] == [-0.5, -0.5]),
    ("02_4_risk_kl_misspecification", "H(p) by Monte Carlo, checked by numerical integration",
     lambda g, t: abs(number(t, r"Monte Carlo ([\d.]+) \+- [\d.]+, quadrature")
                      - number(t, r"quadrature ([\d.]+)")) < 3 * number(t, r"Monte Carlo [\d.]+ \+- ([\d.]+)")),
    # The page-by-page reading of issue 37's round 4 (every page of chapters 1 and 2 against its
    # own outputs); a few claims about a figure are checked by recomputing what it draws.
    ("01_discriminative_vs_generative", "at t = 40 the naive sigma(t) rounds to exactly 1 ...; "
     "for t = -1000 ... the logarithm ... is lost",
     lambda g, t: re.search(r"naive sigmoid +\['0', '[\de.-]+', '0.5', '1', '1'\]", t) is not None
     and "log(naive sigmoid)  ['-inf'" in t and "'-4.248e-18'" in t),
    ("01_1_fitting_logistic", "[eta = 4n / eig_max] makes every step increase l",
     lambda g, t: "never decreased: True" in t),
    ("01_1_fitting_logistic", "fig-dvg-training: starting from w = 0, b = 0, where it equals "
     "n ln 1/2 (n = 100)",
     lambda g, t: number(t, r"log-likelihood: (-[\d.]+) at w = 0") == round(100 * np.log(0.5), 4)),
    ("01_1_fitting_logistic", "after 300 steps gradient ascent has not quite converged, while "
     "Newton's method stopped ... at the maximum",
     lambda g, t: number(t, r"(-[\d.]+) after 300 steps") < number(t, r"step 10: log-likelihood (-[\d.]+)")
     - 0.005 and g["newton_steps"] < 300),
    ("01_1_fitting_logistic", "fig-dvg-training: the gap ... eventually shrinks by a constant factor per "
     "gradient step ... but faster than exponentially under Newton's method (recomputed)",
     lambda g, t: (lambda gd, nt: np.ptp(gd[101:] / gd[100:-1]) < 0.01 and gd[-1] > 0
                   and all(b <= a ** 2 for a, b in zip(nt[4:-2], nt[5:-1])))(*_training_gaps())),
    ("01_1_fitting_logistic", "The fitted model predicts ... exactly the observed fraction of virginica",
     lambda g, t: "sum of p_i = 50.000000, number of virginica = 50" in t),
    ("01_1_fitting_logistic", "ex-dvg-newton: ... below the printed precision from step 8 on",
     lambda g, t: len({number(t, rf"step +{k}: log-likelihood (-[\d.]+)") for k in (8, 9, 10)}) == 1
     and number(t, r"step  7: log-likelihood (-[\d.]+)") != number(t, r"step  8: log-likelihood (-[\d.]+)")),
    ("01_1_fitting_logistic", "ex-dvg-sgd: SGD hovers near the maximum: its log-likelihood is close to "
     "the optimum",
     lambda g, t: 0 < number(t, r"maximum likelihood: .*log-likelihood (-[\d.]+)")
     - number(t, r"SGD after 50 epochs: .*log-likelihood (-[\d.]+)") < 0.1),
    ("01_2_perceptron_probit", "If no hyperplane separates the classes, every epoch contains a mistake "
     "(fig-dvg-perceptron-epochs: every epoch makes mistakes)",
     lambda g, t: min(numbers(t, r"updates in the last ten epochs: \[(.*)\]")) > 0),
    ("01_2_perceptron_probit", "theta is eta times what it would be with eta = 1: the step size "
     "rescales every score without moving the boundary",
     lambda g, t: "same predictions for every flower: True" in t
     and abs(number(t, r"lr = 0.01: score +(-[\d.]+)") - 0.01 * number(t, r"lr = 1 +: score +(-[\d.]+)"))
     <= 0.0005 + 1e-12),
    ("01_2_perceptron_probit", "np.log(norm.cdf(t)) ... is ln 0 = -inf from about t = -38 on",
     lambda g, t: norm.cdf(-38.0) == 0.0 and norm.cdf(-37.0) > 0.0),
    ("01_2_perceptron_probit", "With c = C the two curves never differ by more than G (recomputed on a "
     "grid 40 times finer than the page's)",
     lambda g, t: (lambda s: np.max(np.abs(expit(g["probit_scale"] * s) - norm.cdf(s))))(
         np.linspace(-8, 8, 160001)) <= g["probit_gap"]),
    ("01_2_perceptron_probit", "The two fits describe nearly the same conditional distribution",
     lambda g, t: number(t, r"largest difference between the fitted probabilities: ([\d.]+)") < 0.05
     and "training accuracy 0.94 and 0.94" in t),
    ("01_3_generative_vs_discriminative", "As it must, logistic regression attains the larger "
     "conditional log-likelihood",
     lambda g, t: number(t, r"conditional log-likelihood: logistic regression (-[\d.]+)")
     > number(t, r"conditional log-likelihood: .*naive Bayes (-[\d.]+)")),
    ("01_3_generative_vs_discriminative", "fig-dvg-missing: the three curves put the boundary at "
     "almost the same petal length and differ in steepness; the retrained logistic regression is "
     "the steepest (recomputed)",
     lambda g, t: (lambda c: max(v[0] for v in c.values()) - min(v[0] for v in c.values()) < 0.1
                   and c["retrained"][1] > 1.5 * max(c["naive Bayes"][1], c["imputed"][1]))(
         _missing_width_curves())),
    ("01_3_generative_vs_discriminative", "logistic regression is still estimating 41 parameters from "
     "at most about six times as many examples",
     lambda g, t: 5.5 < g["lc_before"] / 41 < 6.5),
    ("01_3_generative_vs_discriminative", "Shared-variance naive Bayes is within 0.005 of its "
     "asymptotic error from N examples on; logistic regression keeps improving towards the Bayes error",
     lambda g, t: (lambda rows, limit, bayes: all((abs(rows[n][0] - limit) <= 0.005) == (n >= g["lc_nb_near"])
                                                  for n in rows if n >= 100)
                   and all(rows[a][2] > rows[b][2] > bayes for a, b in ((250, 400), (400, 630), (630, 1000))))(
         _lc_rows(t), number(t, r"naive Bayes' limit: ([\d.]+)"),
         number(t, r"Bayes error \(logistic regression's limit\): ([\d.]+)"))),
    ("01_3_generative_vs_discriminative", "The naive Bayes variant with per-class variances pays for its "
     "d extra parameters with small samples",
     lambda g, t: (lambda rows: all(r[1] > r[0] for r in rows.values())
                   and rows[10][1] - rows[10][0] == max(r[1] - r[0] for r in rows.values()))(_lc_rows(t))),
    ("01_3_generative_vs_discriminative", "fig-dvg-nb-right: naive Bayes gets there sooner (closer at "
     "400 examples than logistic regression at 1000)",
     lambda g, t: numbers(t, r"naive Bayes: +\[(.*)\]")[1] < numbers(t, r"logistic regression: \[(.*)\]")[2]),
    ("02_maximum_likelihood", "a single such word makes the held-out log-likelihood -inf",
     lambda g, t: "held-out log-likelihood under the MLE: -inf" in t),
    ("02_maximum_likelihood", "fig-mle-loglik-growing-n: the MLE settles on the truth while the curve "
     "settles on its limit",
     lambda g, t: abs(number(t, r"n = 5000: MLE = ([\d.]+)") - 0.3) < 0.005
     and number(t, r"n = 5000: .* = ([\d.]+)\n") == min(
         float(v) for v in re.findall(r"largest gap to the limit curve on \[0.05, 0.95\] = ([\d.]+)", t))),
    ("02_maximum_likelihood", "fig-mle-smoothing: ... The best alpha (dot) sits in between [and beats "
     "the uniform model]",
     lambda g, t: 1e-3 < number(t, r"best alpha on the grid: ([\d.]+)") < 10 ** 1.5
     and number(t, r"held-out log-likelihood per token (-[\d.]+)")
     > number(t, r"uniform model over the V = \d+ words: +(-[\d.]+)")),
    ("02_maximum_likelihood", "fig-mle-word-frequencies: the first others [after function words] are "
     "\"down\" ... and \"alice\" (recomputed)",
     lambda g, t: (lambda top: top.index("down") < top.index("alice") < 20
                   and set(top[:top.index("alice")]) - {"down"} <= {
                       "the", "to", "she", "was", "and", "it", "a", "of", "her", "i", "in"})(
         [w for w, _ in Counter(__import__("lib").datasets.tokenize(
             __import__("lib").datasets.load_text())).most_common(20)])),
    ("02_1_map_bayesian", "the probability that the next flip is a one is the posterior mean; the mean "
     "and the MAP estimate differ",
     lambda g, t: number(t, r"P\(next flip = 1\) ([\d.]+)") == number(t, r"posterior mean ([\d.]+)")
     != number(t, r"MAP ([\d.]+)")),
    ("02_1_map_bayesian", "written in terms of the log-odds, the same posterior has its maximum at the "
     "*mean* of the Beta density, not its mode",
     lambda g, t: number(t, r"mapped back to theta: ([\d.]+)") == number(t, r"; posterior mean: ([\d.]+)")
     != number(t, r"mode in theta: ([\d.]+)")),
    ("02_1_map_bayesian", "[the posterior variance] behaves like theta(1 - theta)/n for large n: the "
     "posterior sd shrinks like 1/sqrt(n)",
     lambda g, t: (lambda rows: all(abs(rows[n][4] / rows[n][5] - 1) < 0.05 for n in (100, 1000))
                   and rows[5][4] / rows[5][5] < 0.8)(_table(t, "posterior sd", 4))),
    ("02_1_map_bayesian", "a weak prior barely moves the estimate, a prior worth 200 pseudo-flips holds "
     "it near 1/2 (posterior means (n_1 + a)/(20 + 2a) from the table's n_1 at n = 20)",
     lambda g, t: (lambda n1: abs((n1 + 1) / 22 - n1 / 20) < 0.02 and abs((n1 + 100) / 220 - 0.5) < 0.02)(
         _table(t, "posterior sd", 4)[20][0])),
    ("02_1_map_bayesian", "for large n the MAP estimate and the posterior mean approach the MLE, as the "
     "table ... showed",
     lambda g, t: (lambda rows: max(abs(rows[1000][2] - rows[1000][1]), abs(rows[1000][3] - rows[1000][1]))
                   <= 0.002 < min(abs(rows[5][2] - rows[5][1]), abs(rows[5][3] - rows[5][1])))(
         _table(t, "posterior sd", 4))),
    ("02_1_map_bayesian", "the penalty is exactly -ln p(w) up to the constant (d/2) ln(lambda/2 pi), and "
     "the penalised fit is the MAP estimate",
     lambda g, t: "agree to 1e-4: True" in t
     and number(t, r"difference ([\d.]+) =") == number(t, r"ln\(lambda / 2 pi\) = ([\d.]+)")),
    ("02_1_map_bayesian", "With alpha = 1 ... [the MAP estimate] is the MLE, and every unseen word keeps "
     "probability zero",
     lambda g, t: "MAP under Dir(1, ..., 1):            -inf" in t),
    ("02_2_naive_bayes_spam", "lib ships a seeded sample of 1,400 ham and 700 spam messages",
     lambda g, t: "train: 1470 messages, 980 ham, 490 spam" in t and "test: 630 messages, 420 ham, 210 spam" in t),
    ("02_2_naive_bayes_spam", "a message uses only about a hundred of the many thousands of words",
     lambda g, t: 70 < number(t, r"and ([\d.]+)% non-zero entries") / 100 * number(t, r"V = (\d+) words") < 150),
    ("02_2_naive_bayes_spam", "under a thousand training messages per class",
     lambda g, t: max(numbers(t, r"train: \d+ messages, (\d+ ham, \d+) spam")) < 1000),
    ("02_2_naive_bayes_spam", "factors ... about 1e-3 on average ... after about a hundred words it "
     "underflows; the log joints are far below the logarithm of the smallest positive double",
     lambda g, t: all(np.log(10 ** -3.5) < v < np.log(10 ** -2.5)
                      for v in numbers(t, r"mean ln theta_kj per word \[(.*)\]"))
     and 70 < number(t, r"at that size (\d+) factors underflow") < 150
     and max(numbers(t, r"log joints a_k = \[(.*)\]")) < 2 * np.log(np.nextafter(0.0, 1.0))),
    ("02_2_naive_bayes_spam", "With alpha = 1 no word has probability zero in either class, and every "
     "test message gets a posterior",
     lambda g, t: number(t, r"smallest probability ([\d.e-]+);") > 0 and "NaN posteriors: 0" in t),
    ("02_2_naive_bayes_spam", "fig-nb-words: Spam talks about loans, debt and opting out of mailings",
     lambda g, t: {"loans", "debt", "opt", "mailings"} <= set(re.findall(r"'(\w+)'", re.search(
         r"spam words: (.*)", t).group(1)))),
    ("02_2_naive_bayes_spam", "fig-nb-confidence: the crosses mark the misclassified messages, several "
     "of them far on the wrong side",
     lambda g, t: sum(v >= 0.9999 for v in numbers(t, r"(?s)confidence in the wrong class:\n\[(.*?)\]")) >= 3),
    ("02_2_naive_bayes_spam", "on long documents with large vocabularies the multinomial model is "
     "usually the better of the two. Here: [it is at least as accurate at both alphas]",
     lambda g, t: all(float(b) <= float(m) for b, m in re.findall(
         r"test accuracy Bernoulli ([\d.]+), multinomial ([\d.]+)", t))
     and len(re.findall(r"test accuracy Bernoulli", t)) == 2),
    ("02_3_gaussian_mle", "A simulation ... confirms (mle-cov-bias) entry by entry",
     lambda g, t: all(max(abs(v - row[0]) for v in row[1:]) < 0.015
                      for row in _table(t, "average Sigma_hat / Sigma", 5).values())),
    ("02_3_gaussian_mle", "np.var(X) counts that spread between the coordinate means as variance",
     lambda g, t: number(t, r"np.var\(X\) = ([\d.]+)") > 10 * number(t, r"sigma2_hat = ([\d.]+)")),
    ("02_3_gaussian_mle", "np.cov divides by n - 1 by default",
     lambda g, t: number(t, r"Sigma_hat = ([\d.]+) =") == number(t, r"n/\(n-1\) = ([\d.]+)")),
    ("02_4_risk_kl_misspecification", "It is not symmetric: KL(p || q) != KL(q || p)",
     lambda g, t: number(t, r"KL\(p \|\| q\) = ([\d.]+)") != number(t, r"KL\(q \|\| p\) = ([\d.]+)")),
    ("02_4_risk_kl_misspecification", "A normal density with sigma = 0.1 is 3.99 at its mean (loss L), "
     "and the Gaussian fitted to the 50 setosa flowers has a negative average log loss",
     lambda g, t: f"{norm.pdf(0.0, 0.0, 0.1):.2f}" == "3.99" and g["loss_at_mean"] < 0
     and number(t, r"Gaussian on setosa: (-[\d.]+)") < 0),
    ("02_4_risk_kl_misspecification", "ex-gaussian-kl-value: 1/2 ln 2 + 7/8",
     lambda g, t: f"{np.log(2) / 2 + 7 / 8:.4f}\n" in t),
    ("02_4_risk_kl_misspecification", "with mixture data it levels off at the approximation gap; what "
     "lies above the gap is estimation error, and it vanishes like 1/n",
     lambda g, t: (lambda rows, gap: abs(rows[10000][0] - gap) < 0.001
                   and max(r[1] for n, r in rows.items() if n >= 100)
                   < 1.1 * min(r[1] for n, r in rows.items() if n >= 100))(
         _table(t, "n * (KL - gap)", 7), number(t, r"approximation gap .* = ([\d.]+) nats"))),
    ("02_4_risk_kl_misspecification", "a unimodal Gaussian centred in the trough between the two bumps of "
     "p, where the true density is a fraction of its peaks (recomputed)",
     lambda g, t: (lambda mu: -2 < mu < 1.5 and _mixture_density(mu)
                   < 0.25 * _mixture_density(np.linspace(-5, 5, 10001)).max())(
         number(t, r"mean mu_p = ([\d.]+)"))),
    # ---- the fresh reading of chapters 1-3 (issue 53, text round 4)
    ("01_discriminative_vs_generative", "(computed) use ln sigma(t) = min(t, 0) - ln(1 + e^-|t|), which for "
     "t << 0 returns ~ t rather than ln 0 = -inf (written as -ln(1 + e^-t) it would overflow there)",
     lambda g, t: _log_sigmoid_safely()),
    ("02_3_gaussian_mle", "(computed) the spherical one keeps only the average variance of all four "
     "measurements, tr Sigma_hat / 4, which for versicolor is larger than the average of the two petal "
     "variances (the sepals vary more)",
     lambda g, t: (lambda all4, petal, sepal: all4 > 1.1 * petal and sepal > petal)(*_spherical_versus_petal())
     and "spherical = trace / d: True" in t),
    ("02_1_map_bayesian", "(computed) a prior that is zero around the truth, Uniform[0, 0.2] for a coin "
     "with theta* = 0.3, piles the posterior up at 0.2",
     lambda g, t: all(0.2 - 3 / n < _uniform_prior_posterior_mean(3 * n // 10, n) < 0.2 for n in (1000, 10000))),
    ("02_2_naive_bayes_spam", "its worst mistakes are made with near certainty (seven of the eleven errors "
     "have a confidence above 0.9)",
     lambda g, t: (lambda conf: len(conf) == 11 and sum(c > 0.9 for c in conf) == 7)(
         numbers(t, r"the 11 errors, their confidence in the wrong class:\n\[([^\]]*)\]"))),
]


@pytest.mark.parametrize("page, wording, holds", CLAIMS, ids=[f"{c[0][:4]}:{c[1][:40]}" for c in CLAIMS])
def test_claim_holds_for_the_printed_numbers(page, wording, holds):
    glued, text = outputs(page)
    assert holds(glued, text), f"chapters/{page}.md: the words \"{wording}\" no longer hold for its outputs"


def test_every_glued_value_is_quoted_and_checked():
    """Each value a page of chapters 1-2 glues is quoted in its prose; the rounded text is
    what nbval compares, so it does not change with the BLAS threads."""
    for page in sorted({c[0] for c in CLAIMS}):
        source = (CHAPTERS / f"{page}.md").read_text(encoding="utf-8")
        for name in outputs(page)[0]:
            assert f"{{glue:text}}`{name}`" in source, f"{page}: {name} is glued but never quoted"
