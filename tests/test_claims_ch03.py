"""Words of size and comparison on chapter 3's pages hold for the printed numbers (issue 37).

Each row of CLAIMS is a claim of a page's prose (or of a figure's caption), the
wording it has there, and a check of that wording against the page's committed
outputs (tests/claims.py reads them: the glued values and the printed lines).
nbval makes the outputs reproduce; this test makes the words around them true.  A
re-executed page whose numbers move so that a sentence no longer holds fails here,
with the sentence to rewrite.  The list is also the record of what the reading of
issue 37 checked on chapter 3; a claim of the chapter that rests on a computation
and is not listed here was not checked.  The few rows marked "(computed)" rest on
a figure, not on a printed number, and recompute what the figure shows (cheaply).
"""

import math
import re

import numpy as np
import pytest

from claims import matrix, number, numbers, outputs, table


def _petal_crossing():
    """Where versicolor's and virginica's joint densities of petal length cross (03's figure)."""
    from scipy.stats import norm

    import lib
    from lib.datasets import load_iris

    x, y = load_iris(features=["petal length"])
    priors, means, variances = lib.discriminant.fit_class_gaussians(x, y, "diag")
    grid = np.linspace(4.0, 6.0, 2001)
    joint = [priors[k] * norm.pdf(grid, means[k, 0], math.sqrt(variances[k, 0])) for k in (1, 2)]
    return grid[np.argmin(np.abs(joint[0] - joint[1]))]


def _cv_rows(t):
    """03_1's cross-validation table: {covariance type: (sepal, all four, parameters)}."""
    rows = table(t, "parameters (d=4, K=3)", 4)
    return dict(zip(["full", "tied", "diag", "spherical"],
                    [(float(r[-3]), float(r[-2]), int(r[-1])) for r in rows]))


def _held_out(t):
    """03_1's printed held-out accuracies: {training-set size: [one per classifier]}."""
    found = {}
    for size, acc in re.findall(r", (\d+) training flowers: accuracy on the 30 held-out flowers ([\d.]+)", t):
        found.setdefault(int(size), []).append(float(acc))
    return found


def _curves(t):
    """03_2's learning-curve table: rows (n, (a) excess LDA, excess LR, LR / LDA, (b) LDA, LR)."""
    return [[float(v) for v in row] for row in table(t, "(b) error LR", 8)]


def _shrinkage(t):
    """03_3's shrinkage table: {n: (tiny ridge, larger ridge, Ledoit-Wolf)}."""
    return {int(r[0]): tuple(float(v) for v in r[1:]) for r in table(t, "     Ledoit-Wolf", 7)}


def _threshold(t):
    """03_3's interpolation-threshold table: {n: (rank, null dim, null share, error, error of w_0, eig)}."""
    rows = table(t, "smallest eigval", 8)
    return {int(r[0]): tuple(float("nan") if v == "(none)" else float(v) for v in r[1:]) for r in rows}


def _imputation(t):
    """03_4's imputation table: {feature: (overall, class mean, conditional | y, mixed, accuracy)}."""
    return {" ".join(r[:2]): tuple(float(v) for v in r[2:]) for r in table(t, "hidden feature", 4)}


def _class_covariances_fisher():
    """03_3's fig-gda-fisher-iris (computed): each species' covariance in the two discriminant
    coordinates, and the pooled within-class covariance there."""
    import lib
    from lib.datasets import load_iris

    x, y = load_iris()
    lda = lib.discriminant.GaussianDiscriminantAnalysis("tied").fit(x, y)
    _, directions = lib.discriminant.discriminant_directions(lda.priors_, lda.means_, lda.covariances_)
    xf = x @ directions
    pooled = lib.discriminant.GaussianDiscriminantAnalysis("tied").fit(xf, y).covariances_
    return [np.cov(xf[y == k].T, bias=True) for k in range(3)], pooled


def _impute_switches():
    """03_4's fig-gda-impute (computed): the petal lengths at which the most probable class of the
    petal-only QDA model changes, and each species' range of petal lengths."""
    import lib
    from lib.datasets import load_iris

    x, y = load_iris()
    qda = lib.discriminant.GaussianDiscriminantAnalysis("full").fit(x[:, 2:], y)
    lengths = np.linspace(0.8, 7.2, 6401)
    queries = np.column_stack([lengths, np.full_like(lengths, np.nan)])
    best = lib.discriminant.log_posterior_observed(queries, qda.priors_, qda.means_, qda.covariances_).argmax(axis=1)
    changes = np.flatnonzero(np.diff(best))
    ranges = [(x[y == k, 2].min(), x[y == k, 2].max()) for k in range(3)]
    return list(zip(lengths[changes], best[changes], best[changes + 1])), ranges


SE_150 = math.sqrt(0.8 * 0.2 / 150)  # standard error of an accuracy near 0.8 on 150 flowers
SE_30 = math.sqrt(0.8 * 0.2 / 30)  # ... on 30 held-out flowers, the text's 0.07

CLAIMS = [
    # (page, the words, check(glued, printed text))
    # ---- 03_gaussian_discriminant_analysis
    ("03_gaussian_discriminant_analysis", "the dashed joint densities each integrate to their class's "
     "prior pi_k = 1/3", lambda g, t: numbers(t, r"priors: \[(.*)\]") == [0.333] * 3),
    ("03_gaussian_discriminant_analysis", "Where the dashed curves overlap (around 5 cm) (computed)",
     lambda g, t: 4.6 < _petal_crossing() < 5.2),
    ("03_gaussian_discriminant_analysis", "In the petal features the total variance is L to H times the "
     "pooled within-class variance (the diagonals above): most of the variation is between species",
     lambda g, t: (lambda pooled, total: all(abs(total[j][j] / pooled[j][j] - r) < 1 for j, r in
                                             [(2, g["gda-petal-ratio-high"]), (3, g["gda-petal-ratio-low"])])
                   and g["gda-petal-ratio-low"] > 2)(
         matrix(t, "pooled within-class covariance:", 4), matrix(t, "total covariance (includes", 4))),
    ("03_gaussian_discriminant_analysis", "the pooled covariance weights the class covariances by n_k / n",
     lambda g, t: "pooled = sum_k (n_k / n) Sigma_k: True" in t),
    # ---- 03_1_prediction
    ("03_1_prediction", "Its log joint densities are thousands below zero, far beyond the smallest "
     "positive double (e^-745), yet the log-space posterior is a valid probability vector",
     lambda g, t: all(v < -1000 for v in numbers(t, r"log joint densities: \[\[(.*)\]\]"))
     and sum(numbers(t, r"posterior: \[\[(.*)\]\]")) == 1.0),
    ("03_1_prediction", "far from every flower the posterior stays high, practically one in the two "
     "right-hand corners and about four in five in the left-hand ones [alt: bright towards the right "
     "edge, green (about 0.8) towards the bottom-left and top-left corners]",
     lambda g, t: (lambda c: min(c[2:]) > 0.99 and all(0.75 <= v <= 0.85 for v in c[:2]))(
         numbers(t, r"at the corners \(left: bottom, top; right: bottom, top\): \[(.*)\]"))),
    ("03_1_prediction", "with K = 3 [the QDA count] passes 1000 at d = 25",
     lambda g, t: "first d with more than 1000 QDA parameters (K=3): 25" in t),
    ("03_1_prediction", "With the two sepal features all four models score between L and H, and the "
     "differences are within the noise of a 150-flower data set",
     lambda g, t: (lambda sepal: round(min(sepal), 2) == g["gda-cv-sepal-low"]
                   and round(max(sepal), 2) == g["gda-cv-sepal-high"]
                   and max(sepal) - min(sepal) < 2 * SE_150)([r[0] for r in _cv_rows(t).values()])),
    ("03_1_prediction", "With all four features the petal measurements separate the species almost "
     "perfectly, and LDA, with about half as many parameters as QDA, is at least as accurate",
     lambda g, t: (lambda rows: all(g[f"gda-cv-all-{k}"] == rows[k][1] for k in rows)
                   and min(r[1] for r in rows.values()) > 0.9
                   and rows["tied"][1] >= rows["full"][1]
                   and 0.45 < rows["tied"][2] / rows["full"][2] < 0.6)(_cv_rows(t))),
    ("03_1_prediction", "an accuracy near 0.8 has a standard error of about sqrt(0.8 * 0.2 / 30) ~ 0.07, "
     "so the numbers printed under the figure do not rank the classifiers",
     lambda g, t: round(SE_30, 2) == 0.07 and all(
         len(accs) == 4 and max(accs) - min(accs) < 2 * SE_30 for accs in _held_out(t).values())),
    ("03_1_prediction", "naive Bayes' accuracy stays near Phi(1/2) ~ 0.69",
     lambda g, t: round(0.5 * (1 + math.erf(0.5 / math.sqrt(2))), 2) == 0.69),
    # ---- 03_2_lda_logistic
    ("03_2_lda_logistic", "the posterior that Bayes' rule gives must be the sigmoid of the score "
     "(and in the figure all points lie on the sigmoid curve)",
     lambda g, t: "posterior == sigmoid(w.x + b) to 1e-10: True" in t),
    ("03_2_lda_logistic", "In (a) logistic regression's excess error is two to about three times LDA's "
     "at every size (column LR / LDA: from L to H)",
     lambda g, t: (lambda ratios: min(ratios) == g["gda-lr-lda-low"] and max(ratios) == g["gda-lr-lda-high"]
                   and 1.95 <= min(ratios) and max(ratios) < 3.5)([r[3] for r in _curves(t)])),
    ("03_2_lda_logistic", "Both excess errors fall roughly like 1/n",
     lambda g, t: (lambda rows: all(-1.2 < math.log(rows[-1][c] / rows[0][c]) / math.log(rows[-1][0] / rows[0][0])
                                    < -0.8 for c in (1, 2)))(_curves(t))),
    ("03_2_lda_logistic", "(b): LDA's error levels off well above that of logistic regression, however "
     "much data it gets (caption); no amount of data repairs a wrong model",
     lambda g, t: (lambda rows: all(r[4] - r[5] > 0.02 for r in rows if r[0] >= 80)
                   and max(r[4] for r in rows if r[0] >= 80) - min(r[4] for r in rows if r[0] >= 80) < 0.005)(
         _curves(t))),
    ("03_2_lda_logistic", "(b): with 10 and 20 points the two are level within two standard errors, and "
     "from 40 on logistic regression is ahead by many",
     lambda g, t: numbers(t, r"in standard errors of the mean:\n +below 2 at n = \[(.*?)\]") == [10, 20]
     and numbers(t, r"; above 4 at n = \[(.*?)\]") == [40, 80, 160, 320, 640, 1280]),
    # ---- 03_3_fisher_shrinkage
    ("03_3_fisher_shrinkage", "the total covariance splits into the two: S_T = Sigma + S_B",
     lambda g, t: "S_T = Sigma + S_B to 1e-12: True" in t),
    ("03_3_fisher_shrinkage", "The first direction carries almost all of the separation: its eigenvalue is "
     "R times the second's",
     lambda g, t: (lambda J: abs(J[0] / J[1] - g["gda-fisher-ratio"]) < 1 and g["gda-fisher-ratio"] > 10)(
         numbers(t, r"eigenvalues J_1, J_2: \[(.*)\]"))),
    ("03_3_fisher_shrinkage", "the computation follows the proof and agrees with lib and scikit-learn "
     "(up to sign); the directions are Sigma-orthonormal",
     lambda g, t: all(s in t for s in ("F^T Sigma F = I: True", "from scratch = lib (up to sign): True",
                                       "lib = scikit-learn scalings_ (up to sign): True"))),
    ("03_3_fisher_shrinkage", "on versicolor and virginica the two vectors are parallel",
     lambda g, t: number(t, r"\|cos\| between Fisher's direction and LDA's w: ([\d.]+)") > 1 - 1e-9),
    ("03_3_fisher_shrinkage", "LDA in these d' coordinates makes exactly the same predictions; the "
     "within-class covariance is the identity",
     lambda g, t: "within-class covariance of X F = I: True" in t
     and "LDA on X F = LDA on X (posteriors to 1e-8): True" in t),
    ("03_3_fisher_shrinkage", "With one coordinate reduced-rank LDA is about as accurate as with two; "
     "the first discriminant coordinate alone separates the species almost perfectly (caption)",
     lambda g, t: (lambda a1, a2: abs(a1 - a2) <= 2 / 150 and a1 > 0.95)(
         number(t, r"accuracy of rank-1 LDA: ([\d.]+)"), number(t, r"accuracy of rank-2 LDA: ([\d.]+)"))),
    ("03_3_fisher_shrinkage", "Even when every true eigenvalue equals one, the sample eigenvalues spread "
     "out; the smallest are far too small",
     lambda g, t: (lambda rows: all(lo < 1 < hi for _, lo, hi in rows) and rows[0][1] < 0.05
                   and [hi - lo for _, lo, hi in rows] == sorted((hi - lo for _, lo, hi in rows), reverse=True))(
         [tuple(float(v) for v in m) for m in
          re.findall(r"n = +(\d+), d = 50: sample eigenvalues from ([\d.]+) to ([\d.]+)", t)])),
    ("03_3_fisher_shrinkage", "ex-gda-ledoit-wolf: the estimate stays close to one for N(0, I_20)",
     lambda g, t: (lambda w: len(w) == 3 and min(w) > 0.85)(
         [float(v) for v in re.findall(r"n = +\d+: omega = ([\d.]+)", t)])),
    ("03_3_fisher_shrinkage", "lib.discriminant.ledoit_wolf agrees with sklearn.covariance.ledoit_wolf",
     lambda g, t: "lib = scikit-learn to 1e-10: True" in t),
    ("03_3_fisher_shrinkage", "With a few dozen points shrinkage is clearly best: from 30 to 80 points its "
     "excess error is A% to B% below the tiny ridge's and C% to D% below the larger ridge's",
     lambda g, t: (lambda rows, bayes: all(
         min(g[f"gda-lw-below-{name}-low"], g[f"gda-lw-below-{name}-high"]) - 1
         <= 100 * (1 - (rows[n][2] - bayes) / (rows[n][j] - bayes))
         <= max(g[f"gda-lw-below-{name}-low"], g[f"gda-lw-below-{name}-high"]) + 1
         for j, name in [(0, "tiny"), (1, "larger")] for n in (30, 50, 80))
         and g["gda-lw-below-larger-low"] >= 20
         and all(rows[n][2] < min(rows[n][:2]) for n in rows if n <= 150))(
         _shrinkage(t), number(t, r"Bayes error: ([\d.]+)"))),
    ("03_3_fisher_shrinkage", "The larger ridge helps; with many points per feature all three approach "
     "the same rule", lambda g, t: (lambda rows: all(r[1] <= r[0] for r in rows.values())
                                    and max(rows[600]) - min(rows[600]) < 0.01)(_shrinkage(t))),
    ("03_3_fisher_shrinkage", "The tiny ridge is worst near n = d + K = 52 (caption); its bump at n = 50",
     lambda g, t: (lambda rows: max(rows, key=lambda n: rows[n][0]) == 50)(_shrinkage(t))),
    ("03_3_fisher_shrinkage", "Below the threshold the rank is exactly n - K; the null space shrinks from "
     "32 dimensions at n = 20 to 2 at n = 50 (two at n = 50); from the threshold on the rank is d",
     lambda g, t: (lambda rows: all(rows[n][0] == n - 2 and rows[n][1] == 52 - n for n in rows if n < 52)
                   and all(rows[n][0] == 50 and rows[n][1] == 0 for n in rows if n >= 52)
                   and rows[20][1] == 32 and rows[50][1] == 2)(_threshold(t))),
    ("03_3_fisher_shrinkage", "all of |w|^2 but a twentieth of a per cent lies in the null space, and the "
     "tiny ridge's error is the error of w_0 (to within 1e-3 at n = 50, to the printed digits at the "
     "smaller sizes)",
     lambda g, t: (lambda rows: all(rows[n][2] >= 0.9995 and (rows[n][3] == rows[n][4]) == (n < 50)
                                    for n in rows if n < 52)
                   and abs(rows[50][3] - rows[50][4]) < 1e-3 and abs(1 - rows[50][2] - 5e-4) < 1e-4)(_threshold(t))),
    ("03_3_fisher_shrinkage", "the error rises as the null space shrinks; it peaks around the "
     "interpolation threshold n = d + K; from it on the smallest eigenvalue grows from nearly zero "
     "and the error falls",
     lambda g, t: (lambda rows: [rows[n][3] for n in rows if n <= 50] == sorted(rows[n][3] for n in rows if n <= 50)
                   and max(rows, key=lambda n: rows[n][3]) in (50, 52, 54)
                   and [rows[n][3] for n in rows if n >= 52] == sorted((rows[n][3] for n in rows if n >= 52),
                                                                       reverse=True)
                   and [rows[n][5] for n in rows if n >= 52] == sorted(rows[n][5] for n in rows if n >= 52)
                   and rows[52][5] < 1e-3)(_threshold(t))),
    # ---- 03_4_missing_features
    ("03_4_missing_features", "the conditional density equals the joint divided by the marginal",
     lambda g, t: "ln p(x_m | x_o) = ln p(x) - ln p(x_o) to 1e-10: True" in t),
    ("03_4_missing_features", "For setosa, the sepal measurements say little about the petals: the "
     "conditional covariance is only slightly smaller than the marginal one",
     lambda g, t: (lambda m: all(0.85 < m[2 + j][j] / m[j][j] < 1 for j in (0, 1)))(
         matrix(t, "given the sepals (mm^2):", 4))),
    ("03_4_missing_features", "The ranking is the same for every feature. The overall mean ignores "
     "everything and comes last throughout; knowing the class helps most for the petal measurements",
     lambda g, t: (lambda rows: len({tuple(np.argsort(r[:4])) for r in rows.values()}) == 1
                   and all(r[0] == max(r[:4]) for r in rows.values())
                   and min(rows[f][0] / rows[f][1] for f in ("petal length", "petal width"))
                   > max(rows[f][0] / rows[f][1] for f in ("sepal length", "sepal width")))(_imputation(t))),
    ("03_4_missing_features", "Conditioning on the other three measurements lowers the error by G% "
     "(one number per feature)",
     lambda g, t: all(abs(100 * (1 - r[2] / r[1]) - g[f"gda-impute-gain-{f.replace(' ', '-')}"]) <= 1
                      for f, r in _imputation(t).items())),
    ("03_4_missing_features", "The mixed conditional mean comes within G mm of the one that does, and "
     "beats the class mean, which needs the label",
     lambda g, t: all(r[3] - r[2] <= g["gda-impute-mixed-gap"] + 0.01 and r[3] < r[1]
                      for r in _imputation(t).values())),
    ("03_4_missing_features", "Ignoring the missingness, the flower is versicolor with probability A; if widths "
     "go missing with probabilities 0.1, 0.1 and 0.9 for the three species, ... virginica with probability B",
     lambda g, t: (lambda ign, inf: ign[1] == max(ign) == g["gda-mar-ignored"] and inf[2] == max(inf)
                   == g["gda-mar-informed"] and abs(sum(ign) - 1) < 2e-3
                   and abs(inf[2] - ign[2] * 0.9 / (0.1 * ign[0] + 0.1 * ign[1] + 0.9 * ign[2])) < 2e-3)(
         numbers(t, r"missingness ignored +: \[(.*)\]"), numbers(t, r"P\(missing \| y\) above: \[(.*)\]"))),
    ("03_4_missing_features", "the three observed measurements almost always identify the species; the "
     "classifier that marginalises the hidden measurement loses at most D of the accuracy with all four; "
     "hiding sepal width even helps slightly, a difference of F flowers",
     lambda g, t: (lambda rows, full: abs(max(full - r[4] for r in rows.values()) - g["gda-missing-accuracy-drop"])
                   < 1e-3 and rows["sepal width"][4] > full and min(r[4] for r in rows.values()) > 0.94
                   and round((rows["sepal width"][4] - full) * 150) == g["gda-missing-width-flowers"])(
         _imputation(t), number(t, r"accuracy with all four features: ([\d.]+)"))),
    ("03_3_fisher_shrinkage", "(computed) [fig-gda-fisher-iris caption] the pooled within-class covariance "
     "is the identity; the classes' own covariances differ from it (setosa's clearly tilted)",
     lambda g, t: (lambda own, pooled: np.allclose(pooled, np.eye(2), atol=1e-10)
                   and all(np.abs(c - np.eye(2)).max() > 0.2 for c in own)
                   and abs(own[0][0, 1]) / math.sqrt(own[0][0, 0] * own[0][1, 1]) > 0.5)(*_class_covariances_fisher())),
    ("03_4_missing_features", "(computed) [fig-gda-impute] the mixed mean bends from one line to the next "
     "where the posterior changes hands: in the empty gap between setosa and versicolor, and in the overlap "
     "of versicolor and virginica",
     lambda g, t: (lambda switches, ranges: [(a, b) for _, a, b in switches] == [(0, 1), (1, 2)]
                   and ranges[0][1] < switches[0][0] < ranges[1][0]
                   and ranges[2][0] < switches[1][0] < ranges[1][1])(*_impute_switches())),
]


@pytest.mark.parametrize("page, wording, holds", CLAIMS, ids=[f"{c[0][:4]}:{c[1][:40]}" for c in CLAIMS])
def test_claim_holds_for_the_printed_numbers(page, wording, holds):
    glued, text = outputs(page)
    assert holds(glued, text), f"chapters/{page}.md: the words \"{wording}\" no longer hold for its outputs"

