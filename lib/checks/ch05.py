"""Checks for chapter 5, "The ELBO and variational EM".

Every check compares the student's answer with :mod:`lib.variational` (and
:mod:`lib.mixture`) on generated inputs, and names the typical mistake it
recognises; none shows the reference value for the exercise's own input.
"""

import numpy as np

from ._core import check_rng  # every input a check draws: salted while the grader judges (issue 49)
from scipy.special import expit, logsumexp

from .. import mixture
from .. import variational as V
from . import _variants
from ._core import Failure, NotImplementedYet, call, check, expect_array, expect_ndarray, expect_number, expect_tuple

__all__ = [
    "elbo_discrete",
    "elbo_gap_by_hand",
    "mean_field_update",
    "hard_em_step",
    "mean_field_gap",
]


def _close(a, b, tol=1e-8):
    return bool(np.all(np.abs(np.asarray(a) - np.asarray(b)) <= tol * (1.0 + np.abs(np.asarray(b)))))


# ----------------------------------------------------------------- ex 1


def _elbo_cases(rng):
    """Clean cases first (so common mistakes are named), then zeros and extremes."""
    clean = []
    for S in (2, 3, 5, 8):
        lj = rng.normal(scale=2.0, size=S) - 3.0
        clean.append((lj, rng.dirichlet(np.ones(S))))
    return clean


@check("ex-elbo-discrete", "matches lib.variational.elbo on 4 random cases, a q with zero entries, "
       "an impossible state (log p = -inf) that q avoids, and log-joints near -1000.",
       solves=("lib.variational.elbo", "lib.variational.kl_to_posterior", "lib.mixture.entropy",
               "lib.mle.entropy"),
       allow=("scipy.special.xlogy", "scipy.special.logsumexp"))
def elbo_discrete(student_fn):
    rng = check_rng(50)
    for lj, q in _elbo_cases(rng):
        got = expect_number(call(student_fn, lj, q, name="elbo_discrete"), "the ELBO", name="elbo_discrete")
        want = V.elbo(lj, q)
        if _close(got, want):
            continue
        cross = float(np.sum(q * lj))
        entropy = float(-np.sum(q * np.log(q)))
        if _close(got, cross):
            raise Failure("your value is E_q[ln p(x, z)] alone: the ELBO also contains the entropy H(q) "
                          "= -sum_z q(z) ln q(z).")
        if _close(got, cross - entropy):
            raise Failure("you subtracted the entropy: H(q) = -sum q ln q is positive, and the ELBO is "
                          "E_q[ln p(x, z)] + H(q), i.e. sum_z q(z) (ln p(x, z) - ln q(z)).")
        if _close(got, -want):
            raise Failure("your value has the wrong sign: the ELBO is sum_z q(z) ln(p(x, z) / q(z)), "
                          "which lies below ln p(x).")
        if _close(got, want - float(logsumexp(lj))):
            raise Failure("you normalised the log-joint into the log-posterior ln p(z | x) = ln p(x, z) - ln p(x): "
                          "sum_z q(z) (ln p(z | x) - ln q(z)) is -KL(q || p(z | x)), the ELBO minus ln p(x). The "
                          "ELBO takes ln p(x, z) as it is given, unnormalised.")
        if _close(got, float(logsumexp(lj))):
            raise Failure("you returned ln p(x) = ln sum_z p(x, z), the evidence, not its lower bound "
                          "for this q.")
        if _close(got, want - np.log(len(q))) or _close(got, want + np.log(len(q))):
            raise Failure("your value is off by ln(number of states): average with the weights q(z), not "
                          "with 1/S, and do not normalise the log-joint.")
        if _close(got, cross + entropy / np.log(2)):
            raise Failure("your entropy term is in bits: use the natural logarithm np.log(q), not np.log2, "
                          "so that both terms are in nats like ln p(x, z).")
        if _close(got, want / len(q)):
            raise Failure("you took a mean over the states instead of a sum: the ELBO is sum_z q(z) (ln p(x, z) "
                          "- ln q(z)); the weights q(z) already do the averaging.")
        if got > logsumexp(lj) + 1e-9:
            raise Failure("your value exceeds ln p(x) = logsumexp(log_joint), which no lower bound can do.")
        raise Failure("your value differs from sum_z q(z) (ln p(x, z) - ln q(z)) on a random case.")

    # q with zero entries: 0 ln 0 must count as 0
    lj = np.array([-1.0, -2.5, -0.5, -4.0])
    q = np.array([0.0, 0.3, 0.7, 0.0])
    got = call(student_fn, lj, q, name="elbo_discrete")
    if np.isscalar(got) or np.ndim(got) == 0:
        if np.isnan(float(got)):
            raise Failure("you get NaN when some q(z) = 0: 0 * ln 0 must count as 0. Use "
                          "scipy.special.xlogy(q, q) or keep only the states with q > 0.")
    got = expect_number(got, "the ELBO", name="elbo_discrete")
    if not _close(got, V.elbo(lj, q)):
        raise Failure("with zero entries in q your value is wrong: states with q(z) = 0 contribute "
                      "nothing to either term.")

    # an impossible state that q avoids: 0 * (-inf) must count as 0
    lj = np.array([-np.inf, -1.0, -2.0])
    q = np.array([0.0, 0.4, 0.6])
    got = call(student_fn, lj, q, name="elbo_discrete")
    if (np.isscalar(got) or np.ndim(got) == 0) and np.isnan(float(got)):
        raise Failure("you get NaN when ln p(x, z) = -inf on a state with q(z) = 0: the product "
                      "0 * (-inf) is NaN in floating point. Sum only over the states with q(z) > 0.")
    got = expect_number(got, "the ELBO", name="elbo_discrete")
    if not _close(got, V.elbo(lj, q)):
        raise Failure("a state with q(z) = 0 and ln p(x, z) = -inf must contribute nothing; your value "
                      "is off on such a case.")

    # very small probabilities: p(x, z) = exp(-1000) underflows to 0
    lj = np.array([-1000.0, -1001.0, -1003.0])
    q = np.array([0.2, 0.5, 0.3])
    got = call(student_fn, lj, q, name="elbo_discrete")
    if (np.isscalar(got) or np.ndim(got) == 0) and not np.isfinite(float(got)):
        raise Failure("your function breaks when ln p(x, z) is about -1000: exp(-1000) underflows to 0. "
                      "Work with the log-joint directly; never exponentiate it.")
    got = expect_number(got, "the ELBO", name="elbo_discrete")
    if not _close(got, V.elbo(lj, q)):
        raise Failure("your value is wrong when ln p(x, z) is about -1000 (underflow?): work in log space.")


# ----------------------------------------------------------------- ex 2

# Variants: p(z = 1) = prior1 (pi_1 on the page), x | z ~ N(delta z, 1), the observed x, and q(z = 1) = q1; variant 0 is the
# book's p(z = 1) = 1/4, x | z ~ N(2z, 1), x = 2, q = (1/2, 1/2).


_GAP_TOLERANCE = 1.5e-4  # the answer to 4 decimals, one unit either way


def _gap_model(p):
    """ln p(x, z) for z = 0, 1 and q, for the variant ``p``."""
    prior = np.array([1.0 - p["prior1"], p["prior1"]])
    log_lik = -0.5 * np.log(2 * np.pi) - 0.5 * (p["x"] - p["delta"] * np.array([0.0, 1.0])) ** 2
    return np.log(prior) + log_lik, np.array([1.0 - p["q1"], p["q1"]]), prior, log_lik


def _gap_values(p):
    """The gap ln p(x) - ELBO(q) for the variant ``p`` and the usual wrong answers, [(value, message)]."""
    lj, q, prior, log_lik = _gap_model(p)
    gap = float(V.kl_to_posterior(lj, q))
    post = V.posterior(lj)
    wrong = [
        (float(np.sum(post * np.log(post / q))),
         "this is KL(p(z | x) || q), the divergence in the other direction. The ELBO gap is "
         "KL(q || p(z | x)) = sum_z q(z) ln(q(z) / p(z | x))."),
        (float(V.elbo(lj, q)), "this is the ELBO itself; the exercise asks for ln p(x) minus the ELBO."),
        (float(V.log_evidence(lj)), "this is ln p(x) itself; subtract the ELBO for the given q."),
        (float(np.sum(q * np.log(q / prior))),
         f"this is KL(q || p(z)), the divergence to the prior. The gap is the divergence to the posterior "
         f"p(z | x), which also depends on the likelihood of x = {p['x']:g}."),
        (float(V.kl_to_posterior(log_lik, q)),
         f"you left out the prior: ln p(x, z) = ln p(z) + ln p(x | z), with p(z = 1) = {prior[1]:g} and "
         f"p(z = 0) = {prior[0]:g}."),
        (float(V.kl_to_posterior(log_lik + np.log(prior[::-1]), q)),
         f"the prior is swapped: p(z = 1) = {prior[1]:g}, so p(z = 0) = {prior[0]:g}."),
        (gap / np.log(2),
         "this is the gap in bits (log base 2); the book measures it in nats, with the natural logarithm."),
    ]
    return gap, wrong


def _gap_degenerate(p):
    lj, q, _, _ = _gap_model(p)
    post = V.posterior(lj)
    if not 0.02 < post[1] < 0.98:
        return "the posterior is nearly certain"
    gap, wrong = _gap_values(p)
    if gap < 0.02:
        return "q is nearly the posterior"
    return _variants.mistaken_for(gap, wrong)


def _gap_draw(rng):
    return {"prior1": float(rng.integers(2, 19)) / 20, "delta": float(rng.integers(1, 7)) / 2,
            "x": float(rng.integers(-2, 9)) / 2, "q1": float(rng.integers(1, 10)) / 10}


_variants.register(_variants.Spec(
    "ex-elbo-gap",
    # x = 2.5, not 2: with x = delta = 2 a square taken as a doubling, -(x - delta z) instead of
    # -(x - delta z)^2 / 2, gave the right gap (issue 44's mutation test)
    book={"prior1": 0.25, "delta": 2.0, "x": 2.5, "q1": 0.5},
    draw=_gap_draw,
    degenerate=_gap_degenerate,
    describe=lambda p: (f"pi_1 = p(z = 1) = {p['prior1']:g}, delta = {p['delta']:g} (x | z ~ N(delta z, 1)), "
                        f"observed x = {p['x']:g}, q = ({1 - p['q1']:g}, {p['q1']:g})"),
    answer=lambda p: _gap_values(p)[0],
    tolerance=_GAP_TOLERANCE,
))


@check("ex-elbo-gap", "your number rounds to your variant's gap ln p(x) - ELBO(q) = KL(q || p(z | x)) "
                      "to 4 decimals.",
       allow=("scipy.special.logsumexp",))
def elbo_gap_by_hand(answer):
    if answer is Ellipsis or answer is None:
        raise NotImplementedYet()
    if isinstance(answer, (str, bytes)):
        raise Failure("`answer` is a string: assign the number itself, e.g. answer = 0.123 (no quotes).")
    if callable(answer):
        raise Failure("`answer` is a function: assign the number itself, e.g. answer = 0.123.")
    value = expect_number(answer, "the gap", name="`answer`")
    if not np.isfinite(value):
        raise Failure("`answer` is infinite; the gap for this q is a finite number of nats.")
    params = _variants.current("ex-elbo-gap")
    gap, wrong = _gap_values(params)
    if abs(value - gap) < _GAP_TOLERANCE:
        return
    book = _variants.registered()["ex-elbo-gap"].book
    if _variants.current_seed("ex-elbo-gap") != 0 and abs(value - _gap_values(book)[0]) < _GAP_TOLERANCE:
        raise Failure("that is the gap of the book's variant (pi_1 = 1/4, delta = 2, x = 2.5, q = (1/2, 1/2)); "
                      "your variant cell printed other numbers: compute with those.")
    for mistake, message in wrong:
        if abs(value - mistake) < _GAP_TOLERANCE:
            raise Failure(message)
    if value < 0:
        raise Failure("the gap ln p(x) - ELBO is a KL divergence, so it cannot be negative: check the order "
                      "of the subtraction.")
    if round(value, 3) == value and round(gap, 3) == value:  # right to 3 decimals, not to 4
        raise Failure("close, but not right to four decimals: carry full precision through the computation "
                      "and round only the final gap.")
    raise Failure("not the gap yet. Compute ln p(x, z) for z = 0 and z = 1, then ln p(x) with logsumexp, the "
                  "ELBO sum_z q(z)(ln p(x, z) - ln q(z)), and subtract.")


# ----------------------------------------------------------------- ex 3


def _update_variants(X, xi, m, probs, W, s2):
    """The reference update and the usual wrong ones, as (name, column) pairs."""
    logit = np.log(probs[m]) - np.log1p(-probs[m])
    others = xi @ W - xi[:, [m]] * W[m]
    ref = expit(logit + ((X - others) @ W[m] - 0.5 * W[m] @ W[m]) / s2)
    wrong = {
        "self": (expit(logit + ((X - xi @ W) @ W[m] - 0.5 * W[m] @ W[m]) / s2),
                 "your update subtracts xi_m w_m as well: the sum over l must skip l = m (the cause being "
                 "updated does not explain away itself; its own square gives the -||w_m||^2 / 2 term)."),
        "no_half": (expit(logit + ((X - others) @ W[m]) / s2),
                    "the term -||w_m||^2 / (2 sigma^2) is missing: it comes from E[z_m^2] = E[z_m] in the "
                    "expanded square ||x - sum_l z_l w_l||^2."),
        "full_sq": (expit(logit + ((X - others) @ W[m] - W[m] @ W[m]) / s2),
                    "the ||w_m||^2 term has a factor 1 where it should have 1/2: expand "
                    "-(1/(2 sigma^2)) ||x - sum_l z_l w_l||^2 carefully."),
        "no_prior": (expit(((X - others) @ W[m] - 0.5 * W[m] @ W[m]) / s2),
                     "the prior log-odds ln(vartheta_m / (1 - vartheta_m)) are missing from the argument of the sigmoid."),
        "sigma": (expit(logit + ((X - others) @ W[m] - 0.5 * W[m] @ W[m]) / np.sqrt(s2)),
                  "you divided by sigma instead of sigma^2 = noise_variance."),
        "logit": (logit + ((X - others) @ W[m] - 0.5 * W[m] @ W[m]) / s2,
                  "you returned the argument of the sigmoid (the log-odds); xi_m is its sigmoid."),
    }
    return ref, wrong


@check("ex-mean-field-update", "matches lib.variational.mean_field_update on 5 random models (1 to 4 causes), "
       "never lowers the ELBO, and stays finite for large fields.",
       solves=("lib.variational.mean_field_update", "lib.variational.mean_field_e_step"),
       allow=("scipy.special.expit", "lib.logistic.sigmoid"))
def mean_field_update(student_fn):
    rng = check_rng(51)
    for M, d in ((1, 2), (2, 2), (3, 4), (4, 3), (3, 1)):
        probs = rng.uniform(0.1, 0.9, size=M)
        W = rng.normal(scale=1.5, size=(M, d))
        s2 = float(rng.uniform(0.2, 2.0))
        params = V.FactorialParams(probs, W, s2)
        X, _ = V.sample(params, 7, rng)
        xi = rng.random((7, M))
        m = int(rng.integers(M))
        out = call(student_fn, X, xi, m, probs, W, s2, name="mean_field_update", unchanged={1: "xi"})
        if np.shape(out) == (7, M):
            raise Failure(f"return only the new column xi[:, m], shape (n_samples,) = (7,), not the whole "
                          f"matrix of shape (7, {M}).")
        got = expect_ndarray(out, (7,), "the new xi[:, m]", name="mean_field_update")
        ref, wrong = _update_variants(X, xi, m, probs, W, s2)
        if _close(got, ref, 1e-7):
            new = xi.copy()
            new[:, m] = got
            if V.mean_field_elbo(X, params, new) < V.mean_field_elbo(X, params, xi) - 1e-8:
                raise Failure("your update lowered the ELBO on a random case.")
            continue
        for key, (value, message) in wrong.items():
            if _close(got, value, 1e-7) and not _close(value, ref, 1e-7):
                raise Failure(message)
        if np.any((got < 0) | (got > 1)):
            raise Failure("xi_m = q(z_m = 1) is a probability: pass the field through the sigmoid.")
        raise Failure(f"your column differs from the coordinate-ascent update on a random model with {M} "
                      "cause(s); compare your formula with the derivation term by term.")

    # a huge field must not overflow into NaN: sigmoid(+-800)
    probs = np.array([0.5, 0.5])
    W = np.array([[40.0, 0.0], [0.0, 40.0]])
    X = np.array([[40.0, -40.0], [-40.0, 40.0]])
    xi = np.full((2, 2), 0.5)
    out = call(student_fn, X, xi, 0, probs, W, 1.0, name="mean_field_update")
    if np.shape(out) == (2,) and not np.all(np.isfinite(np.asarray(out, dtype=float))):
        raise Failure("for a very large field (about +-800) your sigmoid returns NaN or inf (exp overflows); "
                      "use scipy.special.expit, which is stable for any argument.")
    got = expect_ndarray(out, (2,), "the new xi[:, m]", name="mean_field_update")
    if not _close(got, V.mean_field_update(X, V.FactorialParams(probs, W, 1.0), xi, 0), 1e-7):
        raise Failure("for a very large field (about +-800) your sigmoid is inaccurate; use scipy.special.expit.")


# ----------------------------------------------------------------- ex 4


def _hard_cases(rng):
    cases = []
    # first, components of very different spreads (0.25 and 4): the nearest mean is not the most probable
    # component there, whatever the weights
    for K, d, w, spread in ((2, 2, [0.6, 0.4], (0.25, 4.0)), (2, 1, [0.85, 0.15], None),
                            (2, 2, [0.7, 0.3], None), (3, 2, [0.6, 0.3, 0.1], None)):
        for _ in range(100):  # a draw whose hard E-step leaves a component empty has no M-step: draw again
            centres = rng.normal(scale=2.0, size=(K, d))
            X = np.concatenate([c + rng.normal(size=(30, d)) for c in centres])
            means = centres + rng.normal(scale=0.3, size=(K, d))
            scales = spread if spread else [rng.uniform(0.8, 1.5) for _ in range(K)]
            covs = np.stack([np.eye(d) * v for v in scales])
            if np.all(V.hard_e_step(V.gmm_log_joint(X, np.array(w), means, covs)).sum(axis=0) > 0):
                break
        cases.append((X, np.array(w), means, covs))
    return cases


@check("ex-hard-em-step", "matches one hard-EM step (argmax of ln pi_k + ln N(x_i | mu_k, Sigma_k), then the "
       "M-step) on 4 mixtures with unequal weights, in 1 and 2 dimensions, one with components of very "
       "different spreads.",
       solves=("lib.variational.hard_e_step",),
       # logsumexp: normalising the log-joint before the argmax changes nothing, and is no shortcut
       allow=("lib.gaussian.log_prob", "lib.mixture.m_step", "lib.variational.gmm_log_joint",
              "scipy.special.logsumexp"))
def hard_em_step(student_fn):
    rng = check_rng(52)
    for X, w, mu, cov in _hard_cases(rng):
        out = call(student_fn, X, w, mu, cov, name="hard_em_step")
        expect_tuple(out, 3, "the tuple (weights, means, covariances)", name="hard_em_step")
        K, d = mu.shape
        got_w = expect_array(out[0], (K,), "weights", name="hard_em_step")
        got_mu = expect_array(out[1], (K, d), "means", name="hard_em_step")
        got_cov = expect_array(out[2], (K, d, d), "covariances", name="hard_em_step")
        lj = V.gmm_log_joint(X, w, mu, cov)
        variants = {
            "ref": V.hard_e_step(lj),
            "soft": mixture.e_step(X, w, mu, cov)[0],
            "noweights": V.hard_e_step(lj - np.log(w)[None, :]),
            "nearest": V.hard_e_step(-((X[:, None, :] - mu[None]) ** 2).sum(axis=2)),  # k-means' assignment
        }
        results = {k: mixture.m_step(X, r, "full", reg_covar=1e-6) if np.all(r.sum(axis=0) > 0) else None
                   for k, r in variants.items()}

        def agrees(res):
            return res is not None and all(
                _close(a, b, 1e-4) for a, b in zip((got_w, got_mu, got_cov), res))

        if agrees(results["ref"]):
            if not np.isclose(got_w.sum(), 1.0):
                raise Failure("the weights must sum to 1.")
            continue
        if agrees(results["soft"]):
            raise Failure("this is a soft EM step: hard EM replaces the responsibilities by a one-hot "
                          "assignment to the most probable component of each point.")
        if agrees(results["nearest"]) and not agrees(results["noweights"]):
            raise Failure("you assigned each point to its nearest mean (k-means' assignment): that ignores the "
                          "mixing weights and the covariances. The hard E-step takes the argmax of "
                          "ln pi_k + ln N(x_i | mu_k, Sigma_k), with the log-determinant and the Mahalanobis "
                          "form of each component.")
        if agrees(results["noweights"]):
            raise Failure("your assignments ignore the mixing weights: the hard E-step takes the argmax of "
                          "ln pi_k + ln N(x_i | mu_k, Sigma_k), not of the density alone.")
        ref = results["ref"]
        if _close(got_w, ref[0] * len(X), 1e-6):
            raise Failure("your weights are the counts n_k of points per component: divide by the number of "
                          "points n so that they sum to 1.")
        if _close(got_w, ref[0], 1e-6) and _close(got_mu, ref[1], 1e-6):
            onehot = variants["ref"]
            nk = onehot.sum(axis=0)
            scatter = ref[2] - 1e-6 * np.eye(d)[None]  # n_k-normalised scatter, without reg_covar
            if np.all(nk > 1) and _close(got_cov, scatter * (nk / (nk - 1))[:, None, None], 1e-4):
                raise Failure("your covariances divide by n_k - 1: the M-step is a maximum-likelihood "
                              "estimate and divides the summed outer products by n_k.")
            if _close(got_cov, scatter * (nk / len(X))[:, None, None], 1e-4):
                raise Failure("your covariances divide by n, the total number of points: divide the outer "
                              "products of component k by n_k, the number of points assigned to k.")
            old = np.stack([(onehot[:, k, None] * (X - mu[k])).T @ (X - mu[k]) / nk[k] if nk[k] > 0
                            else np.zeros((d, d)) for k in range(K)])
            if _close(got_cov, old, 1e-4):
                raise Failure("your covariances are centred on the old means: centre the outer products on "
                              "the new means, the averages of the points assigned to each component.")
            raise Failure("weights and means are right but the covariances are not: average the outer "
                          "products (x_i - mu_k)(x_i - mu_k)^T over the points assigned to k, around the new "
                          "mean.")
        raise Failure("your step differs from a hard-EM step on a random mixture.")


# ----------------------------------------------------------------- ex 5


@check("ex-mean-field-gap", "returns ln p(X) - ELBO at the mean-field fixed point within 1e-6 of lib on "
       "orthogonal components (gap 0) and on 4 coupled models (two and three causes).",
       # the coordinate update of ex-mean-field-update, the states and the log joint: the gap itself (the
       # KL of each point) is the exercise, so the ELBO, the likelihood and the whole E-step stay armed
       allow=("lib.variational.mean_field_update", "lib.variational.all_states", "lib.variational.log_joint",
              "lib.variational.FactorialParams", "scipy.special.logsumexp"))
def mean_field_gap(student_fn):
    rng = check_rng(53)
    models = [V.FactorialParams(np.array([0.3, 0.6]), 2.0 * np.eye(2), 0.5)]
    for angle in (0.3, 0.8, 1.2):
        W = 2.0 * np.array([[1.0, 0.0], [np.cos(angle), np.sin(angle)]])
        models.append(V.FactorialParams(np.array([0.4, 0.5]), W, 0.5))
    # three causes in two dimensions: M is read from the parameters, not fixed at the figure's 2
    W3 = 2.0 * np.array([[1.0, 0.0], [np.cos(0.7), np.sin(0.7)], [np.cos(1.9), np.sin(1.9)]])
    models.append(V.FactorialParams(np.array([0.3, 0.5, 0.6]), W3, 0.5))
    for params in models:
        X, _ = V.sample(params, 15, rng)
        M = len(params.probs)
        try:
            out = call(student_fn, X, params, name="mean_field_gap")
        except Failure as failure:
            if M == 3 and "raised an exception" in str(failure):
                raise Failure(f"{failure} It passed the models with two causes and failed on one with M = 3: "
                              "read the number of causes from params (len(params.probs)), do not fix it at "
                              "the figure's 2.") from None
            raise
        got = expect_number(out, "the gap", name="mean_field_gap")
        xi = V.mean_field_e_step(X, params, n_sweeps=500, tol=1e-12)
        want = V.log_likelihood(X, params) - V.mean_field_elbo(X, params, xi)
        if abs(got - want) <= 1e-6 * (1 + abs(want)):
            continue
        if got < -1e-9:
            raise Failure("your gap is negative, but ln p(X) - ELBO is a KL divergence: subtract the ELBO from "
                          "the log-likelihood, not the other way round.")
        if abs(got + want) <= 1e-6 * (1 + abs(want)) and want > 1e-6:
            raise Failure("your gap has the wrong sign.")
        if want > 1e-6 and abs(got * len(X) - want) <= 1e-6 * (1 + abs(want)):
            raise Failure("you returned the gap per data point: return the total ln p(X) - ELBO over all points "
                          "(divide by n only for the plot of part (c)).")
        states = V.all_states(M)
        log_q = np.log(xi) @ states.T + np.log1p(-xi) @ (1 - states).T
        lj = V.log_joint(X, params)
        log_post = lj - logsumexp(lj, axis=1, keepdims=True)
        reverse = float(np.sum(np.exp(log_post) * (log_post - log_q)))
        if want > 1e-6 and abs(got - reverse) <= 1e-6 * (1 + abs(reverse)):
            raise Failure("this is KL(p(z | x) || q) summed over the points, the divergence in the other direction: "
                          "ln p(X) - ELBO is sum_i KL(q_i || p(z_i | x_i)) = sum_i sum_z q_i(z) ln(q_i(z) / "
                          "p(z | x_i)), averaged under q.")
        if abs(got) < 1e-8 and want > 1e-6:
            raise Failure("your gap is 0 on a model with coupled causes: compute the ELBO of the mean-field q "
                          "(mean_field_elbo at the converged xi), not of the exact posterior.")
        raise Failure("your gap differs from ln p(X) - ELBO(q_MF) on a model; run the coordinate updates to "
                      "convergence (hundreds of sweeps, starting from xi = pi) before evaluating the ELBO.")
