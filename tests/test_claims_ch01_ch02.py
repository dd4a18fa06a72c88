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

import ast
import json
import re
from pathlib import Path

import pytest

CHAPTERS = Path(__file__).resolve().parents[1] / "chapters"
GLUE_MIME = "application/papermill.record/text/plain"


def value(text):
    """A glued text ("0.497", "49.7%", "6,800", "8e-02") as the number it shows."""
    plain = text.replace(",", "")
    if plain.endswith("%"):
        return float(plain[:-1]) / 100
    return int(plain) if plain.lstrip("-").isdigit() else float(plain)


def outputs(page):
    """(glued values by name, all printed text) of an executed chapter notebook."""
    notebook = json.loads((CHAPTERS / f"{page}.ipynb").read_text(encoding="utf-8"))
    glued, text = {}, []
    for cell in notebook["cells"]:
        for out in cell.get("outputs", []):
            if "scrapbook" in out.get("metadata", {}):
                glued[out["metadata"]["scrapbook"]["name"]] = value(ast.literal_eval(out["data"][GLUE_MIME]))
            elif out.get("output_type") == "stream":
                text.append("".join(out["text"]))
    return glued, "\n".join(text)


def number(text, pattern):
    """The float captured by ``pattern`` (one group) in the printed text."""
    match = re.search(pattern, text)
    assert match, f"no printed line matches {pattern!r}: the page's output changed"
    return float(match.group(1))


def numbers(text, pattern):
    match = re.search(pattern, text)
    assert match, f"no printed line matches {pattern!r}: the page's output changed"
    return [float(v) for v in re.findall(r"-?\d+\.?\d*(?:e-?\d+)?", match.group(1))]


def _lc_rows(t):
    """01_3's learning-curve table: {n: (NB shared, NB per-class, logistic)}."""
    block = t[t.index("NB per-class  logistic"):].splitlines()[1:12]
    return {int(r.split()[0]): tuple(float(v) for v in r.split()[1:4]) for r in block}


def _rho_lines(t):
    return re.findall(r"rho = ([\d.]+): Bayes error [\d.]+, naive Bayes' limit ([\d.]+);.*?"
                      r"logistic ahead from n = (\d+)", t)


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
