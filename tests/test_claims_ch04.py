"""Words of size and comparison on chapter 4 hold for the printed numbers (issue 37).

The chapter-4 counterpart of tests/test_claims_ch01_ch02.py: each row of CLAIMS is a
claim of a page's prose (or of a figure's caption), the wording it has there, and a
check of that wording against the page's committed outputs, the values it glues
(``{glue:text}`name```) and the text it prints (streams and the checks' reports).
nbval makes the outputs reproduce; this test makes the words around them true, and
fails with the sentence to rewrite when a re-executed page moves its numbers.  The
list is the record of what the reading of issue 37 checked on pages 04, 04_1, 04_2,
04_3 and 04_4 (it replaces their ``% checked (issue 37)`` comments); hand
computations that the pages write out are recomputed below it.
"""

import ast
import functools
import json
import math
import re
from pathlib import Path

import numpy as np
import pytest

from claims import number, numbers
from claims import value as number_value
from test_prose_numbers import _glued

CHAPTERS = Path(__file__).resolve().parents[1] / "chapters"
P0, P1, P2, P3, P4 = ("04_em_gaussian_mixtures", "04_1_em_bound", "04_2_em_geometry",
                      "04_3_initialisation_model_choice", "04_4_em_at_scale")


def value(text):
    """A glued text as the number it shows, or the text itself ("runs off")."""
    try:
        return number_value(text)
    except ValueError:
        return text


@functools.lru_cache(maxsize=None)
def outputs(page):
    """(glued values by name, printed text) of an executed page: its streams and the
    plain-text results of its cells (the exercise checks' reports), read once."""
    path = CHAPTERS / f"{page}.ipynb"
    glued = {name: value(ast.literal_eval(text)) for name, text in _glued(path).items()}
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    text = ["".join(out.get("text") or out.get("data", {}).get("text/plain", ""))
            for cell in cells for out in cell.get("outputs", [])
            if "scrapbook" not in out.get("metadata", {})]
    return glued, "\n".join(text)


@functools.lru_cache(maxsize=None)
def source(page):
    return (CHAPTERS / f"{page}.md").read_text(encoding="utf-8")


def check_uses(page, label):
    """The report printed by the check of exercise ``label`` on ``page``."""
    match = re.search(rf"\[PASSED\] {label}: (.*)", outputs(page)[1])
    assert match, f"{page}: no passed check of {label} in the outputs"
    return match.group(1)


def _kmeans_rows(t):
    """04's k-means limit: [(sigma^2, mean gap, max gap)]."""
    return [tuple(float(v) for v in row) for row in
            re.findall(r"sigma\^2 = ([\d.]+) *: mean \|gamma - hard\| = ([\d.e+-]+), max = ([\d.e+-]+)", t)]


def _weighted_means(t, name):
    return numbers(t, rf"{name}: means \[(\[.*?\]\])")


def _scrub(t):
    """04_1's scrubber, per start: (ln p, weights, smallest gap, M-step, factor min, max)."""
    rows = re.findall(r"ln p = (-[\d.]+), .*?; weights \[(.*?)\] *\n *gap: smallest ([\d.e+-]+) "
                      r"\(M-step (\d+)\); the last ten M-steps multiply it by ([\d.]+) to ([\d.]+)", t)
    assert len(rows) == 3, "04_1: the scrubber no longer prints three starts"
    return [(float(r[0]), sorted(float(w) for w in r[1].split()), float(r[2]), int(r[3]),
             float(r[4]), float(r[5])) for r in rows]


def _info_along_path(theta_true):
    """04_2 (computed): the observed information of the one-free-mean model at 41 points from the
    fixed point theta^(inf) to Newton's start theta^(inf) + 2 (the page's data and model)."""
    from scipy.optimize import brentq

    from lib.em_theory import mean_em_update, mean_information

    rng = np.random.default_rng(0)  # the page's two_gaussians(theta_true): 500 points, seed 0
    x = np.where(rng.random(500) < 0.5, theta_true, 0.0) + rng.normal(size=500)
    w, v = np.array([0.5, 0.5]), np.array([1.0, 1.0])
    star = brentq(lambda th: mean_em_update(x, w, np.array([th, 0.0]), v) - th, theta_true - 1.5,
                  theta_true + 3.0, xtol=1e-14, rtol=1e-15)
    return [mean_information(x, w, np.array([th, 0.0]), v).observed for th in np.linspace(star, star + 2, 41)]


def _start_3_later(t):
    """04_1's start 3 run on: (ln p at 30, at 60, at 200, smallest weight at 200)."""
    m = re.search(r"start 3 run on: ln p (-[\d.]+) at iteration 30, (-[\d.]+) at 60, (-[\d.]+) at 200; "
                  r"weights \[(.*?)\]", t)
    assert m, "04_1: the run of start 3 to 200 iterations is no longer printed"
    return float(m.group(1)), float(m.group(2)), float(m.group(3)), min(float(w) for w in m.group(4).split())


def _rate_table(t):
    """04_2's one-free-mean table: {theta*: (predicted, measured, EM its, Newton or None)}."""
    rows = re.findall(r"^ +([\d.]+) +[\d.]+ +\([ \d.]+\) +[\d.]+ +([\d.]+) +([\d.]+) +(\d+) +(\d+|runs off)$",
                      t, re.M)
    return {float(r[0]): (float(r[1]), float(r[2]), int(r[3]), None if r[4] == "runs off" else int(r[4]))
            for r in rows}


def _free_table(t):
    """04_2's both-means-free table: {theta*: (predicted, measured, iterations)}."""
    block = t[t.index("theta*  predicted rate  measured ratio  iterations to 1e-8"):]
    rows = re.findall(r"^ +([\d.]+) +([\d.]+) +([\d.]+) +(\d+)$", block, re.M)
    return {float(r[0]): (float(r[1]), float(r[2]), int(r[3])) for r in rows}


def _grid_runs(t, init):
    return numbers(t, rf"{init}: final ell of 10 runs \[([^\]]*)\]")


def _bic_rows(t):
    """04_3's table: [(K, params, BIC, train, held-out)]."""
    return [(int(r[0]), int(r[1]), float(r[2]), float(r[3]), float(r[4])) for r in
            re.findall(r"^ *(\d) +(\d+) +([\d.]+) +(-[\d.]+) +(-[\d.]+)$", t, re.M)]


def _spike(t):
    """04_3's spike: {s: ell} from the table of the degenerate solutions."""
    return {float(s): float(v) for s, v in re.findall(r"s = ([\d.e+-]+): +ell = +(-?[\d.]+)", t)}


def _posterior_rows(t):
    return [tuple(float(v) for v in r) for r in
            re.findall(r"^ +([\d.e+-]+) +(-[\d.]+) +(-[\d.]+)$", t, re.M)]


def _passes(t, passes):
    """04_4: (batch, stepwise 100, stepwise 1000) after ``passes`` passes."""
    match = re.search(rf"after {passes} pass\(es\): batch +(-[\d.]+) +stepwise \(batches of 100\) +(-[\d.]+)"
                      r" +stepwise \(batches of 1000\) +(-[\d.]+)", t)
    assert match, f"04_4: no line for {passes} passes"
    return [float(v) for v in match.groups()]


EPS = float(np.finfo(float).eps)

CLAIMS = [
    # (page, the prose's words, check(glued, printed text))
    # --- 04, the chapter page ---
    (P0, "the log-space computation says so [the point is closer to the second component], the "
     "direct one says nothing",
     lambda g, t: "direct formula: [[nan nan]]" in t and "log space: [[0. 1.]]" in t),
    (P0, "a weighted sum ... in general nowhere near the data (outside their convex hull), and the "
     "log-likelihood collapses instead of rising",
     lambda g, t: "(correct): means [[4.21, 4.03], [7.96, 5.11]], inside the hull: [True, True]" in t
     and "weighted sum: means" in t and "inside the hull: [False, False]" in t
     and number(t, r"weighted sum: .*ell = (-[\d.]+)") < number(t, r"ell before the step: (-[\d.]+)")
     < number(t, r"\(correct\): .*ell = (-[\d.]+)")),
    (P0, "The unnormalised sum is n_k times the correct mean",
     lambda g, t: (lambda avg, tot: all(abs(tot[j] / avg[j] - tot[j + 1] / avg[j + 1]) < 0.2
                                        for j in (0, 2))
                   and abs(tot[0] / avg[0] + tot[2] / avg[2] - 100) < 0.5)(
         _weighted_means(t, r"weighted average \(correct\)"), _weighted_means(t, "weighted sum"))),
    (P0, "[lib's estimator] computes the same E- and M-steps as the loop ... and uses the same "
     "stopping rule",
     lambda g, t: re.search(r"iterations: the loop (\d+), lib's estimator \1\b", t) is not None
     and "log-likelihood histories agree to 1e-8: True" in t and "parameters agree to 1e-6: True" in t),
    (P0, "The fitted log-likelihood is higher than that of the true parameters, by D",
     lambda g, t: g["em-fit-above-true"] > 0 and g["em-fit-above-true"] == pytest.approx(
         number(t, r"-> (-[\d.]+) +\(true") - number(t, r"\(true parameters: (-[\d.]+)\)"), abs=0.006)),
    (P0, "The maximum converges last [the k-means limit]: it belongs to the point closest to a "
     "boundary",
     lambda g, t: (lambda rows: len(rows) == 4 and all(b[2] / b[1] > a[2] / a[1] for a, b in zip(rows, rows[1:]))
                   and all(b[1] < a[1] and b[2] < a[2] for a, b in zip(rows, rows[1:])))(_kmeans_rows(t))
     and "EM mean update at sigma^2 = 1e-4 equals the k-means update: True" in t),
    (P0, "ex-em-e-step: the check uses unequal weights and variances, and points far from every component",
     lambda g, t: "unequal weights and variances" in check_uses(P0, "ex-em-e-step")
     and "far from every component" in check_uses(P0, "ex-em-e-step")),
    (P0, "ex-em-lagrange-weights: the check uses 5 problems with K = 2, 3, 5: unit, whole and fractional counts",
     lambda g, t: "on 5 problems (K = 2, 3, 5), with unit counts, unequal whole counts and fractional counts"
     in check_uses(P0, "ex-em-lagrange-weights") and "fractional counts such as 2.5" in source(P0)),
    (P0, "ex-em-m-step: the check uses d = 2, 3 and 5 and responsibilities far from uniform",
     lambda g, t: "(d = 3, 2 and 5, the last 1e7 from the origin) with uneven responsibilities"
     in check_uses(P0, "ex-em-m-step") and "The check uses $d = 2, 3$ and $5$" in source(P0)
     and "one data set $10^7$ from the\norigin" in source(P0)),
    (P0, "ex-em-m-step-full: the check uses 3 data sets with d = 2 and 3, the last 1e7 from the origin",
     lambda g, t: "on 3 data sets (d = 2, 3), the last 1e7 from the origin" in check_uses(P0, "ex-em-m-step-full")),
    # --- 04_1, the bound ---
    (P1, "N(x1 | mu1) ~ 0.386, N(x1 | mu2) ~ 5.88e-9; gamma_11 ~ 1 - 1.52e-8; pi ~ (3/4, 1/4), "
     "mu = (-1, 0), (0, 0); sigma^2 = 0.375, 0.125 (the hand computation)",
     lambda g, t: "[3.861e-01 5.881e-09]" in t and "1 - gamma_11 = 1.52e-08" in t
     and "soft counts n_k: [3. 1.]" in t and "pi     : [0.75 0.25]" in t
     and "mu     : [[-1.0, 0.0], [0.0, 0.0]]" in t and "sigma^2: [0.375 0.125]" in t
     and "the hand computation, to the digits it writes: True" in t),
    (P1, "one iteration raises the log-likelihood [EM never lowers it]",
     lambda g, t: number(t, r"ell after: (-[\d.]+)") > number(t, r"ell before: (-[\d.]+)")),
    (P1, "it omits the factor 1/d, so the variance is d times too large",
     lambda g, t: number(t, r"without 1/d +: ([\d.]+)") == 2 * number(t, r"em-m-step-cov +: ([\d.]+)")),
    (P1, "After each E-step L touches ell; after each M-step L rises, and ell rises at least as much",
     lambda g, t: all(f"{line}: True" in t for line in (
         "after every E-step bound = ell (to 1e-9)", "bound <= ell at every half-step         ",
         "bound never decreases                   ", "ell never decreases                     ",
         "ell gain >= Q gain >= 0 every iteration "))),
    (P1, "the first iteration gains less than 1e-2 per point, so a rule with that tolerance would stop "
     "right at the start, far below the value EM reaches later",
     lambda g, t: "would stop at iteration 1 with" in t
     and number(t, r"would stop at iteration 1 with ell = (-[\d.]+)") + 100
     < number(t, r"ell: -[\d.]+ -> (-[\d.]+); with tol")),
    (P1, "EM crawls twice, first while escaping ... and again from iteration A to B (gains below 1e-2 "
     "per point), before it jumps [04: 'EM can crawl ... and then jump']; [alt] flattens near minus 222",
     lambda g, t: f"per point from iteration {g['em-crawl-from']} to {g['em-crawl-to']}," in t
     and g["em-crawl-to"] - g["em-crawl-from"] >= 5
     and number(t, r"to \d+, ell (-[\d.]+) ->") < -222 < number(t, r"to \d+, ell -[\d.]+ -> (-[\d.]+)")
     and number(t, r"ell: -[\d.]+ -> (-[\d.]+); with tol") > number(t, r"to \d+, ell -[\d.]+ -> (-[\d.]+)") + 50),
    (P1, "The second [start] finds the three clusters, and its gap falls along a straight line on the "
     "log scale (by a factor between A and B in each of the last ten M-steps)",
     lambda g, t: (lambda runs: all(abs(w - v) < 0.05 for w, v in zip(runs[1][1], [0.25, 0.35, 0.4]))
                   and runs[1][5] - runs[1][4] <= 0.02 and runs[1][5] < 1
                   and (runs[1][4], runs[1][5]) == (g["em-scrub-ratio-2-min"], g["em-scrub-ratio-2-max"]))(
         _scrub(t))),
    (P1, "The first has not converged: its gap falls to G nats and then grows again, to H at the end",
     lambda g, t: (lambda run: run[2] == g["em-scrub-gap-1-min"] and run[3] < 25
                   and g["em-scrub-gap-1"] > 5 * run[2] and run[5] > 1.2)(_scrub(t)[0])),
    (P1, "The third is on its way, slowly, to a worse local optimum ... another is left with W of the points. "
     "After 30 iterations it is not there yet: its gap falls to G nats and grows again, to H, and run on, "
     "ln p still climbs from A to B by iteration 60, where it settles with the small component down to V "
     "[caption: start 3 falling and rising again, not converged, reaches it after about 60 iterations]",
     lambda g, t: (lambda runs, later: runs[2][0] < runs[1][0] and runs[2][1][0] == g["em-scrub-weight-3"]
                   and runs[2][2] == g["em-scrub-gap-3-min"] and runs[2][3] < 25
                   and g["em-scrub-gap-3"] > 1.2 * runs[2][2]
                   and later[0] == g["em-scrub-3-at-30"] and later[1] == g["em-scrub-3-at-60"]
                   and later[1] > later[0] + 1 and abs(later[2] - later[1]) < 0.1 and later[2] < runs[1][0]
                   and f"{100 * later[3]:.0f}%" == f"{100 * g['em-scrub-3-limit-weight']:.0f}%")(
         _scrub(t), _start_3_later(t))),
    (P1, "[caption] each square sits on a riser of the step line, below its top by the gap, which is largest, "
     "M nats, in the jump that ends the second crawl",
     lambda g, t: (lambda m: float(m.group(1)) == g["em-trace-max-gap"] > 1
                   and g["em-crawl-to"] < int(m.group(2)) <= g["em-crawl-to"] + 5)(
         re.search(r"at every half-step +: True \(largest gap ([\d.]+), after M-step (\d+) of (\d+)\)", t))),
    (P1, "[EM on the digits] its log-likelihood never falls; it runs a fixed 1500 iterations",
     lambda g, t: "1500 iterations, ell per image" in t and "never decreases: True" in t),
    (P1, "rising by less than 1e-10 per image for up to N iterations in a row [hundreds], ... (the last gain "
     "above 1e-6 comes at iteration M)",
     lambda g, t: f"below 1e-10 per image: {g['em-bits-flat']} iterations" in t and g["em-bits-flat"] >= 200
     and f"last gain above 1e-6 at iteration {g['em-bits-last']}" in t),
    (P1, "Components are prototypes found without labels; some digits share one, and one digit gets two",
     lambda g, t: (lambda m: len(set(range(10)) - set(m)) >= 1
                   and sorted(m.count(d) for d in set(m))[-2:] == [1, 2])(
         [int(v) for v in numbers(t, r"most common digit of each component: \[(.*)\]")])),
    # --- 04_2, the geometry ---
    (P2, "Each parabola touches ln p at theta^(t) and has its top at theta^(t+1)",
     lambda g, t: all(abs(float(top) - float(nxt)) <= 0.0125 + 5e-4 for top, nxt in re.findall(
         r"bound = ln p there: True, bound <= ln p on the grid: True, argmax of the bound on the grid "
         r"([\d.]+), theta\^\(t\+1\) = ([\d.]+)", t)) and t.count("bound = ln p there: True") == 2),
    (P2, "The gap after the E-steps is zero to rounding, and after each M-step it is positive and shrinks "
     "by a roughly constant factor per iteration",
     lambda g, t: "largest gap after an E-step: 0.0e+00" in t
     and (lambda gaps: len(gaps) == 12 and all(v > 0 for v in gaps)
          and max(r := [b / a for a, b in zip(gaps[5:], gaps[6:])]) < 1.05 * min(r))(
         [float(v) for v in re.search(r"gap after each M-step: \[([^\]]*)\]", t).group(1).split(",")])),
    (P2, "The measured ratios agree with the predicted rates to the four digits printed",
     lambda g, t: len(_rate_table(t)) == 3 and all(p == m for p, m, *_ in _rate_table(t).values())
     and all(p == m for p, m, _ in _free_table(t).values())),
    (P2, "On the best-separated data EM needs A iterations to 1e-8 and Newton's method B ... Newton runs off "
     "at theta* = 2 and 1; EM converges from that start at all three",
     lambda g, t: (lambda rows: rows[4.0][3] == g["em-one-mean-newton-4"] < g["em-one-mean-em-4"] == rows[4.0][2]
                   and rows[2.0][3] is None and rows[1.0][3] is None
                   and g["em-one-mean-newton-phrase-2"] == g["em-one-mean-newton-phrase-1"] == "runs off"
                   and all(r[2] < 400 for r in rows.values()))(_rate_table(t))),
    (P2, "Newton's step trusts a parabola ...: at theta* = 1, ell is convex at the start (I_observed = A < 0), so "
     "the step goes the wrong way; at theta* = 2, ell is concave along the whole way to the optimum, but nearly "
     "flat at the start (I_observed = B, small beside I_complete), so the step, C, overshoots the optimum by far",
     lambda g, t: (lambda first: first[1][0] < 0 < first[2][0] and first[1][2] * first[1][3] < 0
                   and f"{first[1][0]:.1f}" == f"{g['em-newton-first-iobs-1']:.1f}"
                   and f"{first[2][0]:.1f}" == f"{g['em-newton-first-iobs-2']:.1f}"
                   and first[2][0] < first[2][1] / 5 and abs(first[2][3]) > 3 * 2.0
                   and abs(first[2][3] - g["em-newton-first-step-2"]) < 0.051
                   and min(_info_along_path(2.0)) > 0 and _info_along_path(2.0)[-1] == min(_info_along_path(2.0)))(
         {float(a): (float(b), float(c), float(d), float(e)) for a, b, c, d, e in re.findall(
             r"theta\* = ([\d.]+): I_obs +(-?[\d.]+), I_complete +([\d.]+); EM's step +(-?[\d.]+), "
             r"Newton's +(-?[\d.]+)", t)})),
    (P2, "the table's last two columns are computed from the same start theta^(inf) + 2 (Newton: at most "
     "50 iterations) [formerly a % checked comment]",
     lambda g, t: "errors = em_errors(x_d, star + 2.0, star)" in source(P2)
     and "newton_its = newton_iterations(x_d, star + 2.0, star)" in source(P2)
     and "def newton_iterations(x, start, target, n_iter=50):" in source(P2)),
    (P2, "With only one mean free the rate stays moderate ... Free both means and the same three data sets "
     "give the crawl",
     lambda g, t: (lambda one, both: all(both[k][0] > one[k][0] for k in one) and both[1.0][0] > 0.8
                   and both[1.0][2] > 3 * one[1.0][2] and g["em-both-free-rate-1"] == both[1.0][0])(
         _rate_table(t), _free_table(t))),
    (P2, "the gap after each M-step falls by a factor close to the square of the rate per iteration",
     lambda g, t: all(abs(r - number(t, r"rate\^2 ([\d.]+)")) < 1e-3 for r in numbers(t, r"last gap ratios \[(.*)\]"))
     and number(t, r"rate\^2 ([\d.]+)") == pytest.approx(number(t, r"rate ([\d.]+), rate") ** 2, abs=1e-4)),
    (P2, "The prediction agrees with the measured distance to the digits printed ... and theta^(t+1) is the "
     "rate times that away",
     lambda g, t: number(t, r"theta\^\(t\) is ([\d.]+) from") == number(t, r"predicted ([\d.]+);")
     and number(t, r"theta\^\(t\+1\) is ([\d.]+) from it") == pytest.approx(
         _rate_table(t)[1.0][0] * number(t, r"theta\^\(t\) is ([\d.]+) from"), abs=1e-3)),
    (P2, "by the default rule (a rise below 1e-3 per point, 0.5 for these 500 points) ... stands D from its "
     "limit, below the estimate's own standard error S",
     lambda g, t: number(t, r"stopped with a rise of ell of ([\d.]+)") < 0.5
     and g["em-stop-distance"] < g["em-stop-se"]
     and g["em-stop-se"] == round(number(t, r"1 / sqrt\(I_observed\): ([\d.]+)"), 2)),
    (P2, "Fisher's identity against central finite differences",
     lambda g, t: "largest relative difference to finite differences below 1e-6: True" in t),
    (P2, "ex-em-rate: the check compares ... on 4 mixtures with K = 2 and 3 and unequal weights and variances",
     lambda g, t: "on 4 one-dimensional mixtures (K = 2 and 3, unequal weights and variances"
     in check_uses(P2, "ex-em-rate")),
    # --- 04_3, initialisation and model choice ---
    (P3, "k-means++ seeds reach the best value in A of the 10 runs, seeds drawn uniformly in B; the other "
     "runs stop at lower values",
     lambda g, t: all(sum(v > g["em-grid-best"] - 0.1 for v in _grid_runs(t, init)) == g[name]
                      for init, name in [("random_seeds", "em-grid-best-random"),
                                         ("k-means\\+\\+_nearest", "em-grid-best-k-mean")])
     and g["em-grid-best-k-mean"] > g["em-grid-best-random"]
     and max(_grid_runs(t, "random_seeds")) == g["em-grid-best"]),
    (P3, "gamma_ik = pi_k for every point ... the weights do not move; a fixed point of EM, reached after "
     "one step and never left",
     lambda g, t: "resp = pi_k True, weights after 3 iterations [0.5, 0.3, 0.2]" in t
     and "responsibilities all 1/3: True" in t
     and "largest distance between means after 50 iterations: 0.0e+00" in t),
    (P3, "pushing two means apart ... raises ell. The gain grows only like delta^4",
     lambda g, t: (lambda gain: all(v > 0 for v in gain.values())
                   and all(abs(math.log(gain[b] / gain[a]) / math.log(b / a) - 4) < 0.15
                           for a, b in [(0.01, 0.1), (0.1, 0.3)]))(
         {float(d): float(v) for d, v in
          re.findall(r"delta = ([\d.]+) *: ell - ell\(fixed point\) = ([\d.e+-]+)", t)})),
    (P3, "x_1 occurs C times, so once s is small each factor 1000 in s adds about (d/2) ln 1000 per copy, G in "
     "all, to ell",
     lambda g, t: f"copies of x_1 in the data: {g['em-copies']}\n" in t
     and g["em-copies-gain"] == round(g["em-copies"] * math.log(1000))
     and (lambda ell: all(abs(ell[b] - ell[a] - g["em-copies-gain"]) < 1 for a, b in [(1e-6, 1e-9), (1e-9, 1e-12)])
          and ell[1e-6] - ell[1e-3] < g["em-copies-gain"] - 5)(_spike(t))),
    (P3, "[fig-em-map caption] Below the measurement precision ell first dips (lowest near s = S), then rises "
     "without bound as s -> 0 [alt: both peak near 0.01; ell dips to a minimum near 1e-3 and rises again]",
     lambda g, t: (lambda m: float(m.group(2)) < float(m.group(1)) < float(m.group(4))
                   and 2e-4 <= float(m.group(3)) == g["em-map-dip"] <= 3e-3)(
         re.search(r"ell - ell\(s = 0.1\): ([\d.-]+) at s = 1e-2, lowest ([\d.-]+) at s = ([\de.+-]+), "
                   r"([\d.-]+) at s = 1e-6", t))),
    (P3, "Three standard answers [to how many components]: held-out log-likelihood, BIC, AIC",
     lambda g, t: (lambda text: "Three standard answers:" in text and all(
         f"* **{name}" in text for name in ("Held-out log-likelihood", "BIC", "AIC")))(source(P3))),
    (P3, "AIC tends to choose more components: on the data below it picks K = A where BIC picks B and the "
     "held-out likelihood C",
     lambda g, t: g["em-K-aic"] > g["em-K-bic"]
     and f"K chosen by BIC: {g['em-K-bic']}   by held-out likelihood: {g['em-K-held-out']}" in t
     and f"K chosen by AIC: {g['em-K-aic']}" in t and "BIC recomputed by hand agrees: True" in t),
    (P3, "[caption] BIC, minimal at K = B; the training log-likelihood keeps rising with K, while on held-out "
     "data it peaks at K = C [alt: BIC rises after, held-out declines after]",
     lambda g, t: (lambda rows: len(rows) == 6
                   and [r[2] for r in rows].index(min(r[2] for r in rows)) + 1 == g["em-K-bic"]
                   and all(b[3] > a[3] for a, b in zip(rows, rows[1:]))
                   and [r[4] for r in rows].index(max(r[4] for r in rows)) + 1 == g["em-K-held-out"]
                   and all(b[2] > a[2] and b[4] < a[4] for a, b in zip(rows[2:], rows[3:])))(_bic_rows(t))),
    (P3, "the parameter counts of the four covariance structures, checked against scikit-learn's",
     lambda g, t: t.count(", equal: True") == 4),
    (P3, "Started from the same parameters ... both follow the same trajectory",
     lambda g, t: re.search(r"iterations: lib (\d+), scikit-learn \1\b", t) is not None
     and re.search(r"log-likelihood: lib (-[\d.]+), scikit-learn \1\b", t) is not None
     and t.count("agree to 1e-6: True") == 3),
    (P3, "the ridge is the MAP M-step of the 'prior' with Psi_k = eps n_k I and kappa = -(d + 1)",
     lambda g, t: "equals the reg_covar M-step: True" in t),
    (P3, "the spike raises the log-likelihood without bound as s -> 0, but the log-posterior falls "
     "without bound",
     lambda g, t: (lambda rows: len(rows) == 4 and all(b[1] > a[1] and b[2] < a[2] for a, b in zip(rows, rows[1:]))
                   and rows[-1][2] < -1e6)(_posterior_rows(t))),
    (P3, "Maximum-likelihood EM ... within a few iterations, the E-step cannot even be computed. MAP-EM "
     "leaves the spike, and its log-posterior rises at every iteration",
     lambda g, t: "numerically singular: True; the E-step failed with: NotPositiveDefiniteError" in t
     and "MAP-EM: log-posterior never decreases: True" in t),
    (P3, "MAP-EM ends with one component on the small-petal group (setosa) and one on the rest ... 7 "
     "pseudo-observations against 50 or 100 real ones; no covariance narrower than the prior allows",
     lambda g, t: "MAP-EM weights [0.667 0.333]" in t
     and min(numbers(t, r"MAP-EM weights .* means \[\[[\d.]+, [\d.]+\], \[([\d.]+), ")) < 2.5
     and number(t, r"MAP covariances: ([\d.]+)") > 7 * 0.1**2 / (150 + 7)),
    (P3, "ex-em-run: the runs end at different values ... best, reached by N of 10",
     lambda g, t: len(set(numbers(t, r"final ell of the 10 runs: \[([^\]]*)\]"))) > 1
     and re.search(r"best: -[\d.]+, reached by \d+ of 10 runs", t) is not None),
    (P3, "ex-em-map-covariances: the check uses 3 problems with d = 2 and 3",
     lambda g, t: "on 3 problems (d = 2, 3)" in check_uses(P3, "ex-em-map-covariances")),
    # --- 04_4, EM at scale ---
    (P4, "About the origin the variance is lost entirely (relative error E): x_i^2 ~ 1e12 is stored to about "
     "2e-4, some two hundred times the variance 1e-6 [formerly a % checked comment]",
     lambda g, t: g["em-far-error-origin"] > 1 and 150 < EPS * 1e12 / 1e-6 < 300
     and "about the origin                  : |delta| / sigma =  1.0e+09" in t),
    (P4, "About a centre a fifth of a width from the mean the relative error is E, the rounding of sums of "
     "1e5 terms; a hundred widths away it is F, close to the eps_mach 100^2 of the dotted line",
     lambda g, t: "|delta| / sigma =  2.0e-01" in t and g["em-far-error-near"] < 1e3 * EPS
     and "|delta| / sigma =  1.0e+02" in t
     and 0.7 < g["em-far-error-hundred"] / (EPS * 100**2) < 1.5),
    (P4, "The two fits are the same to rounding: the same number of iterations, the same trace of the "
     "log-likelihood (to 12 digits), the same parameters",
     lambda g, t: re.search(r"in memory +iterations (\d+),.*\n.*\nDask, 4 chunks +iterations \1,", t) is not None
     and "largest difference in the parameters below 1e-10: True" in t
     and "same number of log-likelihoods in the trace: True ; largest relative difference below 1e-12: True" in t),
    (P4, "a smaller tau takes larger steps and forgets faster; at tau = 1 the running average is the plain "
     "average of the starting statistics and all minibatches [formerly a % checked comment]",
     lambda g, t: g["em-forget-0.6"] < 1e-6 * g["em-forget-1.0"] and f"{1 / 2001:.0e}" == "5e-04"
     and g["em-forget-1.0"] == 5e-4),
    (P4, "Stepwise EM with minibatches of 100 ... is within 1e-3 [S] per point of the batch optimum after two "
     "passes, where batch EM needs P passes",
     lambda g, t: _passes(t, 2)[1] == -g["em-stepwise-two-passes"] and g["em-stepwise-two-passes"] < 1e-3
     and f"batch EM: {g['em-batch-passes']} passes to converge" in t and g["em-batch-passes"] > 10),
    (P4, "Batch EM ... crawls over a plateau before it converges; with minibatches of 1000 it is still on the "
     "plateau after five [passes]",
     lambda g, t: all(-0.4 < _passes(t, p)[0] < -0.25 for p in (1, 2, 5))
     and abs(_passes(t, 5)[2] - _passes(t, 5)[0]) < 0.05),
    (P4, "it ends near batch EM's fixed point, not on it (means within D)",
     lambda g, t: 0 < g["em-stepwise-means-gap"] < 0.05
     and f"means within {g['em-stepwise-means-gap']:.3f} of batch EM's" in t),
    # --- the figures' alt texts (not glueable: an HTML attribute), against the printed numbers ---
    (P1, "[alt, fig-em-worked-example] on the right a larger circle is centred at minus 1 and a small one at "
     "the origin",
     lambda g, t: "mu     : [[-1.0, 0.0], [0.0, 0.0]]" in t and "sigma^2: [0.375 0.125]" in t),
    (P1, "[alt, fig-em-bound-trace] a rising staircase line from about minus 273 to minus 134 over 30 iterations",
     lambda g, t: (round(number(t, r"ell: (-[\d.]+) ->")), round(number(t, r"ell: -[\d.]+ -> (-[\d.]+)")))
     == (-273, -134)),
    (P1, "[alt, fig-em-bernoulli-digits] blurry averages of handwritten digits such as 0, 1, 2, 3, 4, 6 and 7",
     lambda g, t: {0, 1, 2, 3, 4, 6, 7} <= {int(v) for v in numbers(t, r"most common digit of each component: \[(.*)\]")}),
    (P2, "[alt, fig-em-bound-1d] the first [parabola] touches the curve at theta equals 5 and peaks near 2.9, "
     "the second ... peaks near 2.2",
     lambda g, t: "t = 0: theta^(t) = 5.0000" in t
     and [round(float(v), 1) for v in re.findall(r"theta\^\(t\+1\) = ([\d.]+)", t)] == [2.9, 2.2]),
    (P2, "[alt, fig-em-rate] the gap ... falls from about 200 to about 1e-7 over 12 iterations; [errors] reach 1e-12 "
     "within about 20 (true mean 4), 30 (true mean 2) iterations and fall slowly over about 130 (true mean 1)",
     lambda g, t: (lambda gaps: len(gaps) == 12 and 150 < gaps[0] < 250 and 5e-8 < gaps[-1] < 5e-7)(
         [float(v) for v in re.search(r"gap after each M-step: \[([^\]]*)\]", t).group(1).split(",")])
     and all(abs(its + math.log(1e-4) / math.log(rate) - about) < 0.2 * about for (rate, _, its), about
             in zip((_free_table(t)[k] for k in (4.0, 2.0, 1.0)), (20, 30, 130)))),
    (P4, "[alt, fig-em-chunk-cancellation] the error stays near 2e-14 up to a distance over sigma of about 10, "
     "then rises ... to about 100 at a distance over sigma of 1e9",
     lambda g, t: 1e-14 <= g["em-far-error-near"] < 4e-14 and 50 < g["em-far-error-origin"] < 500),
    (P4, "[alt, fig-em-stepwise] passes over the data from 0 to about 35; the batch EM line falls to a plateau "
     "near 0.3 ...; the stepwise line for minibatches of 100 drops below 1e-3 within two passes",
     lambda g, t: 30 <= g["em-batch-passes"] <= 40 and all(abs(_passes(t, p)[0] + 0.3) < 0.06 for p in (1, 2, 5))
     and -1e-3 < _passes(t, 2)[1]),
    (P4, "ex-em-sums-m-step: the check builds 3 mixtures (d = 2, 3, up to 1e4 from the origin)",
     lambda g, t: "for 3 mixtures" in check_uses(P4, "ex-em-sums-m-step")
     and "(d = 2, 3; data up to 1e4 from the origin)" in check_uses(P4, "ex-em-sums-m-step")),
    (P4, "ex-em-stepwise: the check uses 3 minibatches at steps t = 0, 4, 40, one about a centre far from "
     "the origin",
     lambda g, t: "on 3 minibatches (d = 2, 3; steps t = 0, 4, 40" in check_uses(P4, "ex-em-stepwise")
     and "centre far from the origin" in check_uses(P4, "ex-em-stepwise")),
]


@pytest.mark.parametrize("page, wording, holds", CLAIMS, ids=[f"{c[0][:4]}:{c[1][:40]}" for c in CLAIMS])
def test_claim_holds_for_the_printed_numbers(page, wording, holds):
    glued, text = outputs(page)
    assert holds(glued, text), f"chapters/{page}.md: the words \"{wording}\" no longer hold for its outputs"


def test_every_glued_value_is_quoted():
    """Each value a page of chapter 4 glues is quoted in its prose (or a caption), or is
    one of a family glued in a loop (04_2's table: em-one-mean-rate-4, -2, -1) of which
    the prose quotes a member."""
    for page in (P0, P1, P2, P3, P4):
        quoted = set(re.findall(r"\{glue:text\}`([^`]+)`", source(page)))
        for name in outputs(page)[0]:
            family = name.rsplit("-", 1)[0]
            assert name in quoted or any(q.rsplit("-", 1)[0] == family for q in quoted), (
                f"{page}: {name} is glued but never quoted")


def test_no_checked_comments_left():
    """The `% checked (issue 37)` comments of chapter 4 became rows of CLAIMS."""
    for page in (P0, P1, P2, P3, P4):
        assert "% checked (issue 37)" not in source(page), f"{page}: turn the comment into a row of CLAIMS"


def test_hand_computations():
    """The numbers 04_1 computes by hand (the worked example and ex-em-second-iteration's
    solution), recomputed from the formulas it writes."""
    def weighted(x, weight, mean, var):  # pi_k N(x | mu_k, sigma_k^2 I), d = 2
        return weight / (2 * np.pi * var) * np.exp(-np.sum((np.asarray(x) - mean) ** 2) / (2 * var))

    assert round(2 / np.pi, 4) == 0.6366
    assert round(2 / np.pi * np.exp(-0.5), 3) == 0.386
    assert f"{2 / np.pi * np.exp(-18.5):.2e}" == "5.88e-09"
    assert f"{np.exp(-18.5) / np.exp(-0.5):.2e}" == "1.52e-08"  # 1 - gamma_11
    assert (0.5 + 0.5 + 0.625 + 0.625) / 6 == 0.375 and 0.5 * 0.25 == 0.125
    # the second iteration, from theta^(1) = ((3/4, 1/4), (-1, 0), (0, 0), 0.375, 0.125)
    assert (round(1 / (2 * np.pi * 0.375), 4), round(1 / (2 * np.pi * 0.125), 4)) == (0.4244, 1.2732)
    mu1, mu2 = np.array([-1.0, 0.0]), np.zeros(2)
    n11, n12 = weighted([-1.5, 0.5], 0.75, mu1, 0.375), weighted([-1.5, 0.5], 0.25, mu2, 0.125)
    n31, n32 = weighted([0.0, 0.5], 0.75, mu1, 0.375), weighted([0.0, 0.5], 0.25, mu2, 0.125)
    assert (round(n11, 4), f"{n12:.3e}", round(n31, 5), round(n32, 4)) == (0.1634, "1.445e-05", 0.06012, 0.1171)
    g11, g31 = n11 / (n11 + n12), n31 / (n31 + n32)
    assert (round(g11, 5), round(g31, 4), round((2 * g11 + 2 * g31) / 4, 4)) == (0.99991, 0.3392, 0.6696)


def test_lib_default_tolerance():
    """04's stopping rules: lib and scikit-learn stop on a change of ell / n below 1e-3."""
    from sklearn.mixture import GaussianMixture as SkGM

    from lib.mixture import GaussianMixture

    assert GaussianMixture(2).tol == SkGM(2).tol == 1e-3


def test_figure_claims_recomputed():
    """Claims of captions and alt texts that rest on numbers the pages draw but do not
    print, recomputed with the pages' own code (a few milliseconds)."""
    from scipy.optimize import brentq

    import lib
    from lib.em_theory import mean_em_update
    from lib.mixture import GaussianMixture, log_likelihood, log_posterior

    # 04_2, fig-em-bound-1d's alt text: "a log-likelihood curve ... with its maximum near 1.8"
    rng = np.random.default_rng(0)  # two_gaussians(2.0) of the page
    x = np.where(rng.random(500) < 0.5, 2.0, 0.0) + rng.normal(size=500)
    w, v = np.array([0.5, 0.5]), np.ones(2)
    top = brentq(lambda th: mean_em_update(x, w, np.array([th, 0.0]), v) - th, 1.0, 4.0, xtol=1e-10)
    assert round(top, 1) == 1.8
    # 04_3, fig-em-map's caption: around s = 0.01 both the log-likelihood and the
    # log-posterior rise above their values at s = 0.1; below the measurement precision
    # they part, the one rising and the other falling
    X, _ = lib.datasets.load_iris(features=["petal length", "petal width"])
    psi, kappa = 7 * 0.1**2 * np.eye(2), 4.0
    means, cov_all = np.stack([X.mean(axis=0), X[0]]), np.cov(X.T, bias=True)
    ell, post = {}, {}
    for s in (1e-1, 1e-2, 1e-6):
        covs = np.stack([cov_all, s * np.eye(2)])
        ell[s] = log_likelihood(X, np.array([0.9, 0.1]), means, covs)
        post[s] = log_posterior(X, np.array([0.9, 0.1]), means, covs, psi, kappa)
    assert ell[1e-2] > ell[1e-1] and post[1e-2] > post[1e-1]
    assert ell[1e-6] > ell[1e-2] and post[1e-6] < post[1e-1] - 1e3
    # 04_3, after MAP-EM: "the fit that maximum-likelihood EM finds from a sensible start"
    fit = GaussianMixture(2, random_state=0).fit(X)
    assert sorted(np.round(fit.weights_, 2)) == [0.33, 0.67] and fit.means_[:, 0].min() < 2.5
