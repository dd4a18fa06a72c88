"""Words of size and comparison on chapter 5's pages hold for the printed numbers (issue 37).

Each row of CLAIMS is a claim of a page's prose (or of a figure's caption), the
wording it has there, and a check of that wording against the page's committed
outputs (tests/claims.py reads them: the glued values and the printed lines).
nbval makes the outputs reproduce; this test makes the words around them true.  A
re-executed page whose numbers move so that a sentence no longer holds fails here,
with the sentence to rewrite.  The list is also the record of what the reading of
issue 37 checked on chapter 5; a claim of the chapter that rests on a computation
and is not listed here was not checked.
"""

import math
import re

import pytest

from claims import caption, number, numbers, outputs, table


def _last(rows, k):
    """The last ``k`` fields of each row (the names before them may hold spaces), as floats."""
    return [[float(v) for v in row[-k:]] for row in rows]


def _q_table(t):
    """05's table of five q's: rows (ELBO, KL, ELBO + KL, ln p(X))."""
    return _last(table(t, "ELBO + KL   ln p(X)", 5), 4)


def _tempered(t):
    """05's tempered posteriors: {s: (q_s, ELBO, KL, ELBO + KL)}."""
    found = {}
    for s, q, elbo, kl, total in re.findall(r"s = ([\d.]+): q_s = \[(.*?)\], ELBO = (-[\d.]+), KL = ([\d.]+), "
                                            r"ELBO \+ KL = (-[\d.]+)", t):
        found[float(s)] = ([float(v) for v in q.split()], float(elbo), float(kl), float(total))
    return found


def _hard_soft(t):
    """05's table: {truth, soft EM, hard EM: (pi_1, mu_1, mu_2, S_1, S_2, ln p(X), max_Z ln p(X, Z))}."""
    return dict(zip(["truth", "soft", "hard"], _last(table(t, "max_Z ln p(X,Z)", 3), 7)))


def _drop(t):
    """05_1's run with a drop: {t: (ln p(X; theta^(t)), ELBO)} for the printed iterations."""
    return {int(r[0]): (float(r[1]), float(r[2])) for r in table(t, "ln p(X; theta^(t))", 10)}


def _finals(t):
    """05_1's ten initialisations: rows (exact EM, variational EM, its ELBO), then the best row."""
    return _last(table(t, "its ELBO", 11), 3)


def _modes(t):
    """05_1's exact posterior probabilities of the states (1,1,0) and (0,0,1)."""
    match = re.search(r"\(1,1,0\): ([\d.]+) +\(0,0,1\): ([\d.]+)", t)
    assert match, "05_1 no longer prints the two modes"
    return [float(match.group(1)), float(match.group(2))]


def _cavi_sweeps(t):
    """05_2's first table: rows (sweep, zbar_1, zbar_2, error, ratio, ELBO)."""
    return [[float(v) for v in r] for r in table(t, "ratio     ELBO", 8)]


def _kl_fits(t):
    """05_2's table: {CAVI, marginals: (var_1, var_2, KL(q||p), MC, KL(p||q), MC)}."""
    return dict(zip(["cavi", "marginals"], _last(table(t, "KL(p||q)      MC", 2), 6)))


def _rho_rows(t):
    """05_2's table over rho: rows (rho, v_1 / sigma_1^2, 1 - rho^2, sweeps)."""
    return [[float(v) for v in r] for r in table(t, "1 - rho^2  sweeps", 5)]


def _weights(t):
    """05_3's table: rows (eight weights, largest first, then the count above 1%) for EM and five alpha_0."""
    return dict(zip(["EM", 0.001, 0.01, 1.0, 10.0, 1000.0], _last(table(t, "weights, largest first", 6), 9)))


def _charges(t):
    """05_3's table: rows (n_k, Dirichlet charge, Gauss-Wishart charge)."""
    return [[float(v) for v in r] for r in table(t, "Gauss-Wishart charge", 8)]


def _elbo_by_k(t):
    """05_3's table: {K: (ELBO, components above 1%)}."""
    return {int(r[0]): (float(r[1]), int(r[2])) for r in table(t, "ELBO   components above 1%", 6)}


N_BGMM = 400  # 05_3's points

CLAIMS = [
    # (page, the words, check(glued, printed text))
    # ---- 05_elbo_variational_em
    ("05_elbo_variational_em", "the joint latent space has K^n states, yet {eq}`elbo-factorise` evaluates "
     "the evidence with nK densities (a brute-force check on six points)",
     lambda g, t: "joint latent states          : 729" in t
     and number(t, r"sum over all K\^n +: (-[\d.]+)") == number(t, r"point by point \(nK\) : (-[\d.]+)")),
    ("05_elbo_variational_em", "The last two columns agree on every row, and only the posterior closes "
     "the gap", lambda g, t: (lambda rows: all(r[2] == r[3] for r in rows) and rows[0][1] == 0
                              and all(r[1] > 0 for r in rows[1:]))(_q_table(t))),
    ("05_elbo_variational_em", "The point mass is close behind ...; the prior and the uniform q fall short "
     "by thousands of nats",
     lambda g, t: (lambda rows: rows[1][1] < 10 and all(r[1] > 1000 for r in rows[2:4]))(_q_table(t))),
    ("05_elbo_variational_em", "lib.variational's functions agree with the code above and with Chapter 4's "
     "lower_bound", lambda g, t: "match the scratch versions: True" in t
     and "gmm_elbo == lib.mixture.lower_bound for every q: True" in t),
    ("05_elbo_variational_em", "small s flattens the posterior towards the uniform distribution, s = 1 is "
     "the exact posterior, and large s approaches the point mass; ln p(x) stays fixed",
     lambda g, t: (lambda rows: max(rows[0.125][0]) - min(rows[0.125][0]) < 0.1 and rows[1.0][2] == 0
                   and max(rows[8.0][0]) >= 0.99
                   and len({r[3] for r in rows.values()}) == 1)(_tempered(t))),
    ("05_elbo_variational_em", "caption of fig-elbo-split: In print: s = 1/4, a flattened posterior with a "
     "gap of 0.15 nats (a caption is cell metadata, which tests/prose_numbers.py does not read)",
     lambda g, t: f"gap of {_tempered(t)[0.25][2]:.2f} nats" in caption("05_elbo_variational_em",
                                                                          "fig-elbo-split")),
    ("05_elbo_variational_em", "Soft EM lands close to the truth and has the higher log-likelihood. Hard "
     "EM has the higher classification likelihood",
     lambda g, t: (lambda r: r["soft"][5] > r["hard"][5] and r["hard"][6] > r["soft"][6]
                   and r["soft"][5] >= r["truth"][5]
                   and all(abs(s - u) < 0.15 for s, u in zip(r["soft"][:3], r["truth"][:3])))(_hard_soft(t))),
    ("05_elbo_variational_em", "Both fitted variances along the axis joining the means are smaller than "
     "soft EM's, and both means have moved outwards",
     lambda g, t: (lambda r: r["hard"][3] < r["soft"][3] and r["hard"][4] < r["soft"][4]
                   and r["hard"][1] < r["soft"][1] and r["hard"][2] > r["soft"][2])(_hard_soft(t))),
    ("05_elbo_variational_em", "ex-hard-em-step: at the fixed point every mean is the plain average of the "
     "points assigned to it", lambda g, t: "means are averages of their points: True" in t),
    ("05_elbo_variational_em", "ex-elbo-gap's solution: ln p(x) is the log-sum-exp of the two log joints, "
     "L(q) = (lj0 + lj1)/2 + ln 2, the gap is ln p(x) - L(q), and the posterior sums to one",
     lambda g, t: abs(math.log(math.exp(g["elbo-gap-lj0"]) + math.exp(g["elbo-gap-lj1"])) - g["elbo-gap-logpx"])
     < 1e-4 and abs((g["elbo-gap-lj0"] + g["elbo-gap-lj1"]) / 2 + math.log(2) - g["elbo-gap-elbo"]) < 1e-4
     and abs(g["elbo-gap-logpx"] - g["elbo-gap-elbo"] - g["elbo-gap-kl"]) < 2e-4
     and abs(g["elbo-gap-post0"] + g["elbo-gap-post1"] - 1) < 2e-4),
    # ---- 05_1_variational_em
    ("05_1_variational_em", "Cause 3 adds nearly what causes 1 and 2 add together (the same direction, three "
     "quarters of the length); the inner products w_3^T w_1 = w_3^T w_2 = 3, ten times sigma^2 (G_13 = G_23 = 10)",
     lambda g, t: (lambda w, s2: w[2] == [0.75 * (a + b) for a, b in zip(w[0], w[1])]
                   and sum(a * b for a, b in zip(w[2], w[0])) == 3 == 10 * s2)([[2.0, 0.0], [0.0, 2.0], [1.5, 1.5]], 0.3)
     and "log-joint agrees with lib (1e-10)      : True" in t),
    ("05_1_variational_em", "Each update maximises the ELBO exactly along its coordinate, so the ELBO never "
     "decreases along the sweeps; the closed-form ELBO is the enumerated one",
     lambda g, t: "ELBO never decreases over 60 updates: True" in t
     and "closed-form ELBO == enumerated ELBO: True" in t),
    ("05_1_variational_em", "The mean-field fixed point has switched causes 1 and 2 on and cause 3 off",
     lambda g, t: (lambda xi: xi[0] > 0.98 and xi[1] > 0.98 and xi[2] < 0.01)(
         numbers(t, r"xi after 20 sweeps +: \[(.*)\]"))),
    ("05_1_variational_em", "the exact posterior has two modes; each mean-field fixed point sits on one; "
     "the one reached from the prior is the smaller mode (caption); q(z_3 = 1) ~ 0 or ~ 1 when the "
     "truth is a near coin flip",
     lambda g, t: (lambda prior, half, modes: prior[2] < 0.01 < 0.99 < half[2] and modes[0] < modes[1]
                   and all(0.3 < m < 0.7 for m in modes))(
         numbers(t, r"start at prior : xi = \[(.*?)\]"), numbers(t, r"start at 0.5 +: xi = \[(.*?)\]"),
         _modes(t))),
    ("05_1_variational_em", "A from-scratch M-step with mean-field moments, against lib",
     lambda g, t: "M-step agrees with lib (1e-10): True" in t),
    ("05_1_variational_em", "The log-likelihood peaks at iteration P and then falls for F iterations in a "
     "row while the ELBO keeps rising ... Later the run climbs again, slowly. A drop of D nats",
     lambda g, t: (lambda rows, p, f: max(rows, key=lambda s: rows[s][0]) == p
                   and all(rows[s + 1][0] < rows[s][0] for s in range(p, p + f))
                   and rows[p + f + 1][0] > rows[p + f][0]
                   and all(rows[s + 1][1] > rows[s][1] for s in range(3, 12))
                   and abs(rows[p][0] - rows[p + f][0] - g["vem-fall"]) < 0.06)(
         _drop(t), g["vem-peak"], g["vem-fall-steps"])),
    ("05_1_variational_em", "The bound still rises at every step (over all half-steps); exact EM never "
     "lowers ln p(X)", lambda g, t: "ELBO never decreases over all half-steps: True" in t
     and "exact EM never lowers ln p(X): True" in t),
    ("05_1_variational_em", "started at the exact-EM estimate the ELBO climbs while the log-likelihood "
     "falls by several nats before both level off, far apart (caption)",
     lambda g, t: (lambda v: 2 < v[0] - v[1] < 10 and v[3] > v[2] and v[1] - v[3] > 10)(
         numbers(t, r"started at the exact-EM estimate: (ln p\(X\) -[\d.]+ -> -[\d.]+, ELBO -[\d.]+ -> -[\d.]+)"))),
    ("05_1_variational_em", "its best runs explain the data better than anything variational EM reaches, "
     "by G nats; the bias accounts for only about B of them (from S to E); the other O nats are worse "
     "local optima; the exact-EM estimate's log-likelihood is the highest any of our runs reaches",
     lambda g, t: (lambda rows: abs(rows[-1][0] - rows[-1][1] - g["vem-best-gap"]) < 0.6
                   and rows[-1][0] == g["vem-ll-start"]
                   and abs(g["vem-ll-start"] - g["vem-ll-end"] - g["vem-bias"]) < 0.6
                   and abs(g["vem-best-gap"] - g["vem-bias"] - g["vem-optima"]) <= 1
                   and g["vem-bias"] < g["vem-optima"])(_finals(t))),
    ("05_1_variational_em", "That run ends at an ELBO of E, while no random start gets above B: a higher "
     "ELBO exists", lambda g, t: (lambda rows: max(r[2] for r in rows[:-1]) == g["vem-elbo-best"]
                                  < g["vem-elbo-end"])(_finals(t))),
    ("05_1_variational_em", "At the random-start end points the ELBO is within M nats of the "
     "log-likelihood (in N of the ten runs within a quarter of a nat)",
     lambda g, t: (lambda gaps: abs(max(gaps) - g["vem-gap-max"]) < 0.06
                   and sum(v < 0.25 for v in gaps) == g["vem-gap-small"])(
         [r[1] - r[2] for r in _finals(t)[:-1]])),
    ("05_1_variational_em", "05_3's summary: on the binary-cause data that bias cost a few nats, and worse "
     "local optima of the ELBO far more", lambda g, t: g["vem-bias"] <= 10 and g["vem-optima"] > 3 * g["vem-bias"]),
    ("05_1_variational_em", "ex-mean-field-gap: orthogonal vectors make mean field exact; the gap grows "
     "as the angle closes", lambda g, t: "gap at angle pi/2 (orthogonal) below 1e-9: True" in t
     and "gap falls as the angle opens, at every step: True" in t),
    # ---- 05_2_cavi_gaussian
    ("05_2_cavi_gaussian", "The ratio column is rho^2 from the first sweep on, and the ELBO rises at "
     "every step", lambda g, t: (lambda rows: all(r[4] == g["vem-cavi-rho2"] for r in rows)
                                 and all(b[5] > a[5] for a, b in zip(rows, rows[1:]))
                                 and "ELBO never decreases over the 16 single-factor updates: True" in t)(
         _cavi_sweeps(t))),
    ("05_2_cavi_gaussian", "Run to convergence, CAVI lands on the closed form: exact means, variances "
     "sigma_j^2 (1 - rho^2)",
     lambda g, t: (lambda m, v: m[:2] == m[2:] and v[0].split() == v[1].split())(
         numbers(t, r"means +: (\[.*\]  mu: \[.*\])"),
         re.search(r"variances : \[(.*?)\]  sigma_j\^2 \(1 - rho\^2\): \[(.*?)\]", t).groups())),
    ("05_2_cavi_gaussian", "Each fit wins in the direction it minimises and loses in the other; the CAVI "
     "row's KL(q||p) is -1/2 ln(1 - rho^2), and its KL(p||q) the marginals' KL(q||p)",
     lambda g, t: (lambda f: f["cavi"][2] < f["marginals"][2] and f["marginals"][4] < f["cavi"][4]
                   and all(abs(r[2] - r[3]) < 0.03 and abs(r[4] - r[5]) < 0.03 for r in f.values())
                   and f["cavi"][2] == number(t, r"-1/2 ln\(1 - rho\^2\) = ([\d.]+)")
                   and "CAVI's KL(p||q) = the marginals' KL(q||p): True" in t)(_kl_fits(t))),
    ("05_2_cavi_gaussian", "[the CAVI ellipse] bulges out across it, to a Mahalanobis distance "
     "2 sqrt(1 + rho) ~ 2.76 under p instead of 2; for p itself e^-2 ~ 0.135 lies outside",
     lambda g, t: round(2 * math.sqrt(1.9), 2) == 2.76 and round(math.exp(-2), 3) == 0.135),
    ("05_2_cavi_gaussian", "The CAVI ellipse's half-axes are both longer than the target's minor "
     "half-axis, and it pokes out; but only C% of its mass lies outside, hardly more than the 13.5% of "
     "p's own, against M% for the product of the marginals",
     lambda g, t: min(g["vem-cavi-axis-1"], g["vem-cavi-axis-2"]) > g["vem-target-minor"]
     and 13.5 <= g["vem-cavi-outside"] <= 20 and g["vem-marginals-outside"] > 3 * g["vem-cavi-outside"]),
    ("05_2_cavi_gaussian", "the variances are too small by the factor 1 - rho^2 (a fifth of the truth at "
     "rho = 0.9, so standard deviations too small by more than half)",
     lambda g, t: (lambda r: 0.15 < r < 0.25 and math.sqrt(r) < 0.5)(number(t, r"ratio: ([\d.]+) = 1 - rho\^2"))),
    ("05_2_cavi_gaussian", "How strongly the variance is underestimated depends on nothing but the "
     "correlation; at rho = 0 the first sweep lands on the answer (the second only confirms it); "
     "convergence is slow as |rho| -> 1",
     lambda g, t: (lambda rows: all(r[1] == r[2] for r in rows) and rows[0][3] == 2
                   and [r[3] for r in rows] == sorted(r[3] for r in rows))(_rho_rows(t))),
    ("05_2_cavi_gaussian", "at rho = 0.99 the factors have R of the true variance and CAVI needs S "
     "sweeps, each shrinking the error by only rho^2",
     lambda g, t: (lambda last: last[0] == 0.99 and abs(g["vem-cavi-099-ratio"] - last[1]) < 0.001
                   and g["vem-cavi-099-sweeps"] == last[3]
                   and g["vem-cavi-099-rate"] == round(0.99**2, 2))(_rho_rows(t)[-1])),
    ("05_2_cavi_gaussian", "ex-kl-gauss-pq: KL(p||q) is smallest at the true marginals and reproduces "
     "the table", lambda g, t: (lambda kl: min(kl) == kl[2])(
         numbers(t, r"KL\(p\|\|q\) as v_1 varies around sigma_1\^2: \[(.*)\]"))
     and "same as the table for both fits: True" in t),
    # ---- 05_3_bayesian_mixture
    ("05_3_bayesian_mixture", "E_q[ln pi_k] is smaller than ln E[pi_k] by Jensen's inequality (and a "
     "Monte Carlo average agrees with it)",
     lambda g, t: (lambda e, mc, plug: all(a < b for a, b in zip(e, plug))
                   and all(abs(a - b) < 0.003 for a, b in zip(e, mc)))(
         numbers(t, r"E\[ln pi_k\] +: \[(.*)\]"), numbers(t, r"Monte Carlo +: \[(.*)\]"),
         numbers(t, r"ln E\[pi_k\] larger: \[(.*)\]"))),
    ("05_3_bayesian_mixture", "The fitted parameters agree [with scikit-learn] to rounding, and "
     "scikit-learn's bound is the ELBO minus a constant; the ELBO never decreases",
     lambda g, t: t.count("largest difference below 1e-9: True") == 5
     and number(t, r"difference (-[\d.]+), the constant") == number(t, r"the constant (-[\d.]+)")
     and re.search(r"ELBO never decreases over \d+ iterations: True", t) is not None),
    ("05_3_bayesian_mixture", "EM spreads the eight components over the three clusters, with no weight "
     "near zero. A large alpha_0 pins the weights near 1/K and all eight stay in use. With alpha_0 <= 1 "
     "variational Bayes keeps three components and empties the other five",
     lambda g, t: (lambda w: w["EM"][8] == 8 and min(w["EM"][:8]) > 0.05
                   and w[1000.0][8] == 8 and all(abs(v - 1 / 8) < 0.002 for v in w[1000.0][:8])
                   and all(w[a][8] == 3 for a in (0.001, 0.01, 1.0)))(_weights(t))),
    ("05_3_bayesian_mixture", "at alpha_0 = 1 the emptied ones keep about the weight alpha_0 / (K alpha_0 "
     "+ n) that the prior alone gives them",
     lambda g, t: all(abs(v - 1 / (8 + N_BGMM)) < 0.1 / (8 + N_BGMM) for v in _weights(t)[1.0][3:8])),
    ("05_3_bayesian_mixture", "2.5 / n_k nats in two dimensions, more than five times the Dirichlet's charge, "
     "which is a little less than 1/(2 n_k) (the table below shows 5 to 7.5 times)",
     lambda g, t: all(5 < gw / d < 7.5 and d < 1 / (2 * n) for n, d, gw in _charges(t))),
    ("05_3_bayesian_mixture", "E_q[ln pi_k] is only about 1/(2 n_k) - 1/(2(n + K alpha_0)) below the log of "
     "the plug-in weight; "
     "the Gauss-Wishart charge is about 2.5 / n_k in two dimensions",
     lambda g, t: all(abs(d - (1 / (2 * (n + 1)) - 1 / (2 * (8 + N_BGMM)))) < 0.1 * d
                      and abs(gw - 2.5 / n) < 0.1 * gw for n, d, gw in _charges(t))),
    ("05_3_bayesian_mixture", "The charges per point are small, about a tenth of a nat at most, and the "
     "Gaussian-Wishart charge is several times the Dirichlet's",
     lambda g, t: (lambda rows: max(max(r[1:]) for r in rows) < 0.125
                   and all(3 < r[2] / r[1] < 10 for r in rows))(_charges(t))),
    ("05_3_bayesian_mixture", "Started where all eight components are used, CAVI empties E of them within "
     "50 iterations while the ELBO rises, and ends at the L-component fit",
     lambda g, t: (lambda runs: runs[0][1] == 8 and runs[3][0] == 50
                   and runs[0][1] - runs[3][1] == g["vem-bgmm-emptied"] and runs[-1][1] == g["vem-bgmm-left"]
                   and all(b[2] > a[2] for a, b in zip(runs, runs[1:])))(
         [(int(i), int(c), float(e)) for i, c, e in
          re.findall(r"iteration +(\d+): components above 1%: (\d+), ELBO (-[\d.]+)", t)])),
    ("05_3_bayesian_mixture", "With three clusters this clear the two answers nearly agree: the weights "
     "and means sit next to the maximum-likelihood estimates, pulled slightly by the prior",
     lambda g, t: all(abs(a - b) < 0.01 for a, b in zip(numbers(t, r"weights, VB \(alpha_0 = 0.001\): \[(.*)\]"),
                                                        numbers(t, r"weights, EM \(lib, K = 3\) +: \[(.*)\]")))
     and all(abs(a - b) < 0.1 for a, b in zip(numbers(t, r"means, +VB: (\[.*\])"),
                                              numbers(t, r"means, +EM: (\[.*\])")))),
    ("05_3_bayesian_mixture", "The ELBO is largest at the true K = 3. Above it the surplus components are "
     "emptied, and the ELBO falls slowly, by the cost of the Dirichlet spreading prior weight over "
     "components that are not used (ln K - ln(n + K) per empty component)",
     lambda g, t: (lambda rows: max(rows, key=lambda k: rows[k][0]) == 3
                   and all(rows[k][1] == 3 for k in rows if k > 3)
                   and all(abs(rows[k + 1][0] - rows[k][0] - math.log(k / (N_BGMM + k))) < 0.2
                           for k in rows if 3 <= k < max(rows)))(_elbo_by_k(t))),
]


@pytest.mark.parametrize("page, wording, holds", CLAIMS, ids=[f"{c[0][:4]}:{c[1][:40]}" for c in CLAIMS])
def test_claim_holds_for_the_printed_numbers(page, wording, holds):
    glued, text = outputs(page)
    assert holds(glued, text), f"chapters/{page}.md: the words \"{wording}\" no longer hold for its outputs"
