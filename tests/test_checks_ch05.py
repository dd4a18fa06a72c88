"""The chapter 5 checks accept right answers and name the usual wrong ones."""

import numpy as np
import pytest
from scipy.special import expit, logsumexp, xlogy

import lib.checks as checks
from lib import gaussian as lib_gaussian
from lib import mixture
from lib import variational as V
from check_helpers import assert_fails, not_implemented, raises
from check_helpers import trusted_helpers  # noqa: E402,F401 - a fixture

pytestmark = pytest.mark.usefixtures("trusted_helpers")


COMMON = [checks.elbo_discrete, checks.mean_field_update, checks.hard_em_step, checks.mean_field_gap]


@pytest.mark.parametrize("check", COMMON)
def test_generic_failures_become_messages(check):
    assert check(not_implemented).status == "not implemented"
    assert_fails(check(42), "expected a function")
    assert_fails(check(raises), "raised an exception", "boom")
    assert_fails(check(lambda *a: "text"), "")
    assert_fails(check(lambda *a: None), "return")


# ------------------------------------------------------------ ex-elbo-discrete


def elbo_right(log_joint, q):
    keep = q > 0
    return float(np.sum(q[keep] * (log_joint[keep] - np.log(q[keep]))))


def test_elbo_discrete_accepts_right_answers():
    assert checks.elbo_discrete(elbo_right)
    assert checks.elbo_discrete(lambda lj, q: float(np.sum(np.where(q > 0, q * lj, 0.0)) - np.sum(xlogy(q, q))))


@pytest.mark.parametrize(
    "wrong, fragment",
    [
        (lambda lj, q: float(np.sum(q * lj)), "entropy"),
        (lambda lj, q: float(np.sum(q * lj) + np.sum(q * np.log(q))), "subtracted the entropy"),
        (lambda lj, q: -elbo_right(lj, q), "sign"),
        (lambda lj, q: float(logsumexp(lj)), "evidence"),
        (lambda lj, q: float(np.sum(q * lj) - np.sum(q * np.log(q)) * 2), "exceeds ln p(x)"),
        (lambda lj, q: elbo_right(lj, q) - 0.1, "differs"),
        (lambda lj, q: (q * (lj - np.log(q))), "single number"),
        (lambda lj, q: float(np.sum(q * lj) - np.sum(q * np.log(q))), "0 * ln 0"),  # NaN at q = 0
        (lambda lj, q: float(np.sum(xlogy(q, np.exp(lj))) - np.sum(xlogy(q, q))), "exp(-1000)"),
        (lambda lj, q: float(np.sum(q * lj) - np.sum(xlogy(q, q)) / np.log(2)), "np.log2"),
        (lambda lj, q: elbo_right(lj, q) / len(q), "mean over the states"),
    ],
)
def test_elbo_discrete_names_the_mistake(wrong, fragment):
    assert_fails(checks.elbo_discrete(wrong), fragment)


def test_elbo_discrete_catches_zero_times_minus_infinity():
    def masks_q_log_only(lj, q):
        return float(np.sum(q * lj) - np.sum(xlogy(q, q)))  # 0 * (-inf) = NaN

    assert_fails(checks.elbo_discrete(masks_q_log_only), "0 * (-inf)")


# ------------------------------------------------------------ ex-elbo-gap


def test_elbo_gap_accepts_the_value_and_names_wrong_ones():
    # the book's numbers: pi_1 = 1/4, delta = 2, x = 2.5, q = (1/2, 1/2)
    lj = np.array([np.log(0.75) - 0.5 * np.log(2 * np.pi) - 0.5 * 2.5**2,
                   np.log(0.25) - 0.5 * np.log(2 * np.pi) - 0.5 * 0.5**2])
    q = np.array([0.5, 0.5])
    gap = V.log_evidence(lj) - V.elbo(lj, q)
    assert checks.elbo_gap_by_hand(gap)
    assert checks.elbo_gap_by_hand(round(gap, 4))
    post = V.posterior(lj)
    assert_fails(checks.elbo_gap_by_hand(float(np.sum(post * np.log(post / q)))), "other direction")
    assert_fails(checks.elbo_gap_by_hand(V.elbo(lj, q)), "ELBO itself")
    assert_fails(checks.elbo_gap_by_hand(V.log_evidence(lj)), "ln p(x) itself")
    assert_fails(checks.elbo_gap_by_hand(float(np.sum(q * np.log(q / [0.75, 0.25])))), "prior")
    assert_fails(checks.elbo_gap_by_hand(-gap), "negative")
    assert_fails(checks.elbo_gap_by_hand(gap + 0.05), "not the gap")
    assert_fails(checks.elbo_gap_by_hand("0.1"), "string")
    assert_fails(checks.elbo_gap_by_hand(np.array([0.1, 0.2])), "single number")
    assert_fails(checks.elbo_gap_by_hand(float("nan")), "nan")
    assert_fails(checks.elbo_gap_by_hand(float("inf")), "infinite")
    assert_fails(checks.elbo_gap_by_hand(lambda: gap), "function")
    assert_fails(checks.elbo_gap_by_hand(gap / np.log(2)), "bits")
    assert_fails(checks.elbo_gap_by_hand(round(gap, 3)), "four decimals")
    no_prior = lj - np.log([0.75, 0.25])
    assert_fails(checks.elbo_gap_by_hand(V.kl_to_posterior(no_prior, q)), "left out the prior")
    assert_fails(checks.elbo_gap_by_hand(V.kl_to_posterior(no_prior + np.log([0.25, 0.75]), q)), "swapped")
    assert checks.elbo_gap_by_hand(...).status == "not implemented"
    assert checks.elbo_gap_by_hand(None).status == "not implemented"


def test_elbo_gap_messages_do_not_reveal_the_answer():
    lj = np.array([np.log(0.75) - 0.5 * np.log(2 * np.pi) - 2.0, np.log(0.25) - 0.5 * np.log(2 * np.pi)])
    gap = V.kl_to_posterior(lj, np.array([0.5, 0.5]))
    for wrong in (0.0, 0.5, -1.0, round(gap, 2), gap / np.log(2), "x"):
        message = checks.elbo_gap_by_hand(wrong).message
        for decimals in (2, 3, 4):
            assert f"{gap:.{decimals}f}" not in message, message


# ------------------------------------------------------------ ex-mean-field-update


def update_right(X, xi, m, probs, components, noise_variance):
    W = components
    others = xi @ W - np.outer(xi[:, m], W[m])
    field = np.log(probs[m] / (1 - probs[m])) + ((X - others) @ W[m] - 0.5 * W[m] @ W[m]) / noise_variance
    return expit(field)


def test_mean_field_update_accepts_right_answers():
    assert checks.mean_field_update(update_right)


def _variant(kind):
    def fn(X, xi, m, probs, W, s2):
        logit = np.log(probs[m] / (1 - probs[m]))
        others = xi @ W - np.outer(xi[:, m], W[m])
        half = 0.5 * W[m] @ W[m]
        if kind == "self":
            others = xi @ W
        if kind == "no_half":
            half = 0.0
        if kind == "no_prior":
            logit = 0.0
        if kind == "sigma":
            s2 = np.sqrt(s2)
        field = logit + ((X - others) @ W[m] - half) / s2
        if kind == "logit":
            return field
        if kind == "matrix":
            out = xi.copy()
            out[:, m] = expit(field)
            return out
        if kind == "ratio_sigmoid":
            return np.exp(field) / (1.0 + np.exp(field))  # inf / inf = NaN for a large field
        return expit(field)

    return fn


@pytest.mark.parametrize(
    "kind, fragment",
    [
        ("self", "skip l = m"),
        ("no_half", "||w_m||^2 / (2 sigma^2) is missing"),
        ("no_prior", "prior log-odds"),
        ("sigma", "instead of sigma^2"),
        ("logit", "log-odds"),
        ("matrix", "only the new column"),
        ("ratio_sigmoid", "expit"),
    ],
)
def test_mean_field_update_names_the_mistake(kind, fragment):
    assert_fails(checks.mean_field_update(_variant(kind)), fragment)


# ------------------------------------------------------------ ex-hard-em-step


def _hard_resp(X, weights, means, covariances):
    """One-hot argmax_k of ln pi_k + ln N(x_i | mu_k, Sigma_k), written without lib."""
    log_joint = np.log(weights) + np.column_stack(
        [-0.5 * np.sum((X - means[k]) @ np.linalg.inv(covariances[k]) * (X - means[k]), axis=1)
         - 0.5 * np.linalg.slogdet(2 * np.pi * covariances[k])[1] for k in range(len(weights))])
    return np.eye(len(weights))[np.argmax(log_joint, axis=1)]


def hard_right(X, weights, means, covariances):
    resp = _hard_resp(X, weights, means, covariances)
    nk = resp.sum(axis=0)
    new_means = resp.T @ X / nk[:, None]
    covs = np.stack([(resp[:, k, None] * (X - new_means[k])).T @ (X - new_means[k]) / nk[k]
                     for k in range(len(weights))])
    return nk / len(X), new_means, covs


def test_hard_em_step_accepts_right_answers():
    assert checks.hard_em_step(hard_right)

    def with_lib(X, w, mu, cov):  # the lib functions the statement allows
        labels = np.argmax(np.log(w) + lib_gaussian.log_prob(X, mu, cov), axis=1)
        return mixture.m_step(X, np.eye(len(w))[labels], "full")

    assert checks.hard_em_step(with_lib)


def test_hard_em_step_names_the_mistake():
    def soft(X, w, mu, cov):
        return mixture.m_step(X, mixture.e_step(X, w, mu, cov)[0], "full")

    def no_weights(X, w, mu, cov):
        resp = _hard_resp(X, np.full(len(w), 1 / len(w)), mu, cov)
        return mixture.m_step(X, resp, "full")

    def unbiased_cov(X, w, mu, cov):
        new_w, new_mu, new_cov = hard_right(X, w, mu, cov)
        nk = new_w * len(X)
        return new_w, new_mu, new_cov * (nk / (nk - 1))[:, None, None]

    assert_fails(checks.hard_em_step(soft), "soft EM step")
    assert_fails(checks.hard_em_step(no_weights), "mixing weights")
    assert_fails(checks.hard_em_step(unbiased_cov), "n_k - 1")

    def cov_over_n(X, w, mu, cov):
        new_w, new_mu, new_cov = hard_right(X, w, mu, cov)
        return new_w, new_mu, new_cov * new_w[:, None, None]

    def cov_old_means(X, w, mu, cov):
        new_w, new_mu, _ = hard_right(X, w, mu, cov)
        resp = _hard_resp(X, w, mu, cov)
        covs = np.stack([(resp[:, k, None] * (X - mu[k])).T @ (X - mu[k]) / resp[:, k].sum()
                         for k in range(len(w))])
        return new_w, new_mu, covs

    def cov_off(X, w, mu, cov):
        new_w, new_mu, new_cov = hard_right(X, w, mu, cov)
        return new_w, new_mu, new_cov * 1.1

    assert_fails(checks.hard_em_step(cov_over_n), "divide by n, the total")
    assert_fails(checks.hard_em_step(cov_old_means), "old means")
    assert_fails(checks.hard_em_step(cov_off), "covariances are not")
    assert_fails(checks.hard_em_step(lambda X, w, mu, cov: hard_right(X, w, mu, cov)[:2]), "tuple")

    def counts(X, w, mu, cov):
        new_w, new_mu, new_cov = hard_right(X, w, mu, cov)
        return new_w * len(X), new_mu, new_cov

    assert_fails(checks.hard_em_step(counts), "counts")
    assert_fails(checks.hard_em_step(lambda X, w, mu, cov: dict(weights=w)), "tuple")


# ------------------------------------------------------------ ex-mean-field-gap


def gap_right(X, params):
    xi = np.broadcast_to(params.probs, (X.shape[0], len(params.probs))).copy()
    for _ in range(1000):
        for m in range(len(params.probs)):
            xi[:, m] = V.mean_field_update(X, params, xi, m)
    return V.log_likelihood(X, params) - V.mean_field_elbo(X, params, xi)


def test_mean_field_gap_accepts_right_answer_and_names_mistakes():
    assert checks.mean_field_gap(gap_right)
    assert_fails(checks.mean_field_gap(lambda X, p: -gap_right(X, p)), "negative")

    def exact_q(X, params):
        lj = V.log_joint(X, params)
        return V.log_evidence(lj) - V.elbo(lj, V.posterior(lj))

    assert_fails(checks.mean_field_gap(exact_q), "exact posterior")

    def unconverged(X, params):
        xi = np.broadcast_to(params.probs, (X.shape[0], len(params.probs))).copy()
        return V.log_likelihood(X, params) - V.mean_field_elbo(X, params, xi)

    assert_fails(checks.mean_field_gap(unconverged), "convergence")
    assert_fails(checks.mean_field_gap(lambda X, p: gap_right(X, p) / len(X)), "per data point")
    assert_fails(checks.mean_field_gap(lambda X: 0.0), "raised an exception")


def test_hard_em_step_nearest_mean_is_named():
    """Issue 44: assigning each point to its nearest mean was told only about the weights."""
    def nearest(X, w, mu, cov):
        labels = np.argmin(((X[:, None, :] - mu[None]) ** 2).sum(axis=2), axis=1)
        return mixture.m_step(X, np.eye(len(w))[labels], "full")

    assert_fails(checks.hard_em_step(nearest), "nearest mean", "covariances")


def test_mean_field_update_refuses_a_list():
    from scipy.special import expit

    def as_list(X, xi, m, probs, W, noise_variance):
        others = xi @ W - np.outer(xi[:, m], W[m])
        field = (np.log(probs[m]) - np.log1p(-probs[m])
                 + ((X - others) @ W[m] - 0.5 * W[m] @ W[m]) / noise_variance)
        return expit(field).tolist()

    result = checks.mean_field_update(as_list)
    assert result.status == "failed" and "numpy array" in result.message, result
