"""Chapter 5's student mistakes (issue 52): wrong answers as students write them, and right ones written
differently.  Read by tests/test_student_mistakes.py."""

from tests.mistakes import Case

W, R = "wrong", "right"

_ELBO = "lib.checks.ch05.elbo_discrete"
_HARD = "lib.checks.ch05.hard_em_step"
_GAP = "lib.checks.ch05.elbo_gap_by_hand"
_MFU = "lib.checks.ch05.mean_field_update"
_MFG = "lib.checks.ch05.mean_field_gap"
_CAVI = "lib.checks.ch05_vi.cavi_update"
_KL = "lib.checks.ch05_vi.kl_p_to_factorised"
_DIR = "lib.checks.ch05_vi.vb_dirichlet_weights"

# ex-elbo-gap: the numbers of the student's variant, as the variant cell prints them (gap_variant)
_GAP_MODEL = """
import numpy as np
from scipy.special import logsumexp
g = gap_variant
prior = np.array([1 - g.prior1, g.prior1])
q = np.array([1 - g.q1, g.q1])
log_lik = -0.5 * np.log(2 * np.pi) - 0.5 * (g.x - g.delta * np.array([0.0, 1.0])) ** 2
log_joint = np.log(prior) + log_lik
log_px = logsumexp(log_joint)
post = np.exp(log_joint - log_px)
"""

CASES = [
    # ------------------------------------------------------------------ ex-elbo-discrete
    Case("ex-elbo-discrete", _ELBO, W, """
import numpy as np
def elbo_discrete(log_joint, q):
    return np.sum(q * (log_joint - np.log(q)))
""", r"0 \* ln 0"),
    Case("ex-elbo-discrete", _ELBO, W, """
import numpy as np
from scipy.special import xlogy
def elbo_discrete(log_joint, q):
    return float(np.sum(q * log_joint) - np.sum(xlogy(q, q)))
""", r"0 \* \(-inf\)"),
    Case("ex-elbo-discrete", _ELBO, W, """
import numpy as np
def elbo_discrete(log_joint, q):
    keep = q > 0
    p = np.exp(log_joint[keep])
    return float(np.sum(q[keep] * np.log(p / q[keep])))
""", r"-1000.*never exponentiate"),
    Case("ex-elbo-discrete", _ELBO, W, """
import numpy as np
from scipy.special import logsumexp
def elbo_discrete(log_joint, q):
    keep = q > 0
    log_post = log_joint - logsumexp(log_joint)   # normalise first
    return float(np.sum(q[keep] * (log_post[keep] - np.log(q[keep]))))
""", r"normalis.*posterior.*ln p\(x\)"),
    Case("ex-elbo-discrete", _ELBO, W, """
import numpy as np
def elbo_discrete(log_joint, q):
    keep = q > 0
    return float(np.mean(q[keep] * (log_joint[keep] - np.log(q[keep]))))
""", r"mean over the states"),
    Case("ex-elbo-discrete", _ELBO, W, """
import numpy as np
def elbo_discrete(log_joint, q):
    keep = q > 0
    return np.array([np.sum(q[keep] * (log_joint[keep] - np.log(q[keep])))])
""", r"numpy array of shape \(1,\).*single number"),
    Case("ex-elbo-discrete", _ELBO, R, """
import numpy as np
def elbo_discrete(log_joint, q):
    total = 0.0
    for lp, qz in zip(log_joint, q):
        if qz > 0:
            total += qz * (lp - np.log(qz))
    return total
""", None),
    Case("ex-elbo-discrete", _ELBO, R, """
import numpy as np
from scipy.special import xlogy
def elbo_discrete(log_joint, q):
    cross = np.where(q > 0, q * np.where(q > 0, log_joint, 0.0), 0.0).sum()
    return float(cross - xlogy(q, q).sum())
""", None),
    # ------------------------------------------------------------------ ex-hard-em-step
    Case("ex-hard-em-step", _HARD, W, """
import numpy as np
import lib
from lib.mixture import m_step
def hard_em_step(X, weights, means, covariances):
    log_joint = np.log(weights) + lib.gaussian.log_prob(X, means, covariances, "full")
    q = np.exp(log_joint - log_joint.max(axis=1, keepdims=True))
    q /= q.sum(axis=1, keepdims=True)     # responsibilities, not one-hot
    return m_step(X, q, "full")
""", r"soft EM step"),
    Case("ex-hard-em-step", _HARD, W, """
import numpy as np
from lib.mixture import m_step
def hard_em_step(X, weights, means, covariances):
    dist = ((X[:, None, :] - means[None]) ** 2).sum(axis=2)
    q = np.eye(len(weights))[np.argmin(dist, axis=1)]
    return m_step(X, q, "full")
""", r"nearest mean"),
    Case("ex-hard-em-step", _HARD, W, """
import numpy as np
import lib
from lib.mixture import m_step
def hard_em_step(X, weights, means, covariances):
    log_dens = lib.gaussian.log_prob(X, means, covariances, "full")
    q = np.eye(len(weights))[np.argmax(log_dens, axis=1)]
    return m_step(X, q, "full")
""", r"ignore the mixing weights"),
    Case("ex-hard-em-step", _HARD, W, """
import numpy as np
import lib
def hard_em_step(X, weights, means, covariances):
    log_joint = np.log(weights) + lib.gaussian.log_prob(X, means, covariances, "full")
    z = np.argmax(log_joint, axis=1)
    K, d = means.shape
    nk = np.bincount(z, minlength=K)
    mu = np.stack([X[z == k].mean(axis=0) for k in range(K)])
    cov = np.stack([np.cov(X[z == k].T).reshape(d, d) for k in range(K)])   # np.cov divides by n_k - 1
    return nk / len(X), mu, cov
""", r"n_k - 1"),
    Case("ex-hard-em-step", _HARD, W, """
import numpy as np
import lib
def hard_em_step(X, weights, means, covariances):
    log_joint = np.log(weights) + lib.gaussian.log_prob(X, means, covariances, "full")
    z = np.argmax(log_joint, axis=1)
    K = len(weights)
    nk = np.bincount(z, minlength=K).astype(float)
    mu = np.stack([X[z == k].mean(axis=0) for k in range(K)])
    cov = np.stack([(X[z == k] - means[k]).T @ (X[z == k] - means[k]) / nk[k] for k in range(K)])
    return nk / len(X), mu, cov
""", r"old means"),
    Case("ex-hard-em-step", _HARD, W, """
import numpy as np
import lib
from lib.mixture import m_step
def hard_em_step(X, weights, means, covariances):
    log_joint = np.log(weights) + lib.gaussian.log_prob(X, means, covariances, "full")
    q = np.eye(len(weights))[np.argmax(log_joint, axis=1)]
    w, mu, cov = m_step(X, q, "full")
    return w * len(X), mu, cov
""", r"counts n_k"),
    Case("ex-hard-em-step", _HARD, R, """
import numpy as np
from scipy.special import logsumexp
import lib
from lib.mixture import m_step
def hard_em_step(X, weights, means, covariances):
    log_joint = np.log(weights) + lib.gaussian.log_prob(X, means, covariances, "full")
    log_resp = log_joint - logsumexp(log_joint, axis=1, keepdims=True)   # same argmax as log_joint
    q = np.zeros_like(log_resp)
    q[np.arange(len(X)), np.argmax(log_resp, axis=1)] = 1.0
    return m_step(X, q, "full")
""", None),
    Case("ex-hard-em-step", _HARD, R, """
import numpy as np
def hard_em_step(X, weights, means, covariances):
    n, d = X.shape
    K = len(weights)
    scores = np.empty((n, K))
    for k in range(K):
        L = np.linalg.cholesky(covariances[k])
        u = np.linalg.solve(L, (X - means[k]).T)
        scores[:, k] = (np.log(weights[k]) - np.log(np.diag(L)).sum() - 0.5 * (u ** 2).sum(axis=0)
                        - 0.5 * d * np.log(2 * np.pi))
    z = scores.argmax(axis=1)
    nk = np.array([(z == k).sum() for k in range(K)], dtype=float)
    mu = np.stack([X[z == k].mean(axis=0) for k in range(K)])
    cov = np.stack([(X[z == k] - mu[k]).T @ (X[z == k] - mu[k]) / nk[k] + 1e-6 * np.eye(d) for k in range(K)])
    return nk / n, mu, cov
""", None),
    # ------------------------------------------------------------------ ex-elbo-gap
    Case("ex-elbo-gap", _GAP, W, _GAP_MODEL + """
answer = round(float(np.sum(post * np.log(post / q))), 4)   # KL(p || q)
""", r"other direction"),
    Case("ex-elbo-gap", _GAP, W, _GAP_MODEL + """
answer = round(float(np.sum(q * (log_joint - np.log(q)))), 4)   # the ELBO
""", r"ELBO itself"),
    Case("ex-elbo-gap", _GAP, W, _GAP_MODEL + """
answer = round(float(np.sum(q * np.log(q / prior))), 4)
""", r"divergence to the prior"),
    Case("ex-elbo-gap", _GAP, W, _GAP_MODEL + """
post_lik = np.exp(log_lik - logsumexp(log_lik))      # forgot the prior
answer = round(float(np.sum(q * np.log(q / post_lik))), 4)
""", r"left out the prior"),
    Case("ex-elbo-gap", _GAP, W, _GAP_MODEL + """
answer = round(float(np.sum(q * np.log2(q / post))), 4)
""", r"bits"),
    Case("ex-elbo-gap", _GAP, W, _GAP_MODEL + """
answer = round(float(np.sum(q * np.log(q / post))), 3)
""", r"four decimals"),
    Case("ex-elbo-gap", _GAP, W, _GAP_MODEL + """
answer = np.array([round(float(np.sum(q * np.log(q / post))), 4)])
""", r"numpy array of shape \(1,\).*single number"),
    Case("ex-elbo-gap", _GAP, R, _GAP_MODEL + """
answer = round(float(np.sum(q * np.log(q / post))), 4)
""", None),
    Case("ex-elbo-gap", _GAP, R, """
import math
g = gap_variant
lj = [math.log(1 - g.prior1) - 0.5 * math.log(2 * math.pi) - 0.5 * g.x ** 2,
      math.log(g.prior1) - 0.5 * math.log(2 * math.pi) - 0.5 * (g.x - g.delta) ** 2]
top = max(lj)
log_px = top + math.log(sum(math.exp(v - top) for v in lj))
qs = [1 - g.q1, g.q1]
elbo = sum(qz * (v - math.log(qz)) for qz, v in zip(qs, lj))
answer = round(log_px - elbo, 4)
""", None),
    Case("ex-elbo-gap", _GAP, W, """
import math
# the book's numbers, pi_1 = 1/4, delta = 2, x = 2.5, q = (1/2, 1/2), whatever the variant cell printed
lj0 = math.log(0.75) - 0.5 * math.log(2 * math.pi) - 0.5 * 2.5 ** 2
lj1 = math.log(0.25) - 0.5 * math.log(2 * math.pi) - 0.5 * 0.5 ** 2
log_px = max(lj0, lj1) + math.log(math.exp(lj0 - max(lj0, lj1)) + math.exp(lj1 - max(lj0, lj1)))
elbo = 0.5 * (lj0 - math.log(0.5)) + 0.5 * (lj1 - math.log(0.5))
answer = round(log_px - elbo, 4)
""", r"book's variant"),
    # ------------------------------------------------------------------ ex-mean-field-update
    Case("ex-mean-field-update", _MFU, W, """
import numpy as np
from scipy.special import expit
def mean_field_update(X, xi, m, probs, components, noise_variance):
    W = components
    xi[:, m] = 0.0                     # drop cause m from the reconstruction
    residual = X - xi @ W
    field = np.log(probs[m] / (1 - probs[m])) + (residual @ W[m] - 0.5 * W[m] @ W[m]) / noise_variance
    xi[:, m] = expit(field)
    return xi[:, m]
""", r"changed.*`xi`"),
    Case("ex-mean-field-update", _MFU, W, """
import numpy as np
from scipy.special import expit
def mean_field_update(X, xi, m, probs, components, noise_variance):
    W = components
    residual = X - xi @ W
    field = np.log(probs[m] / (1 - probs[m])) + (residual @ W[m] - 0.5 * W[m] @ W[m]) / noise_variance
    return expit(field)
""", r"skip l = m"),
    Case("ex-mean-field-update", _MFU, W, """
import numpy as np
def mean_field_update(X, xi, m, probs, components, noise_variance):
    W = components
    sigma = np.sqrt(noise_variance)
    others = xi @ W - np.outer(xi[:, m], W[m])
    field = np.log(probs[m] / (1 - probs[m])) + ((X - others) @ W[m] - 0.5 * W[m] @ W[m]) / sigma
    return 1.0 / (1.0 + np.exp(-field))
""", r"divided by sigma instead of sigma\^2"),
    Case("ex-mean-field-update", _MFU, W, """
import numpy as np
from scipy.special import expit
def mean_field_update(X, xi, m, probs, components, noise_variance):
    W = components
    others = xi @ W - np.outer(xi[:, m], W[m])
    return expit(np.log(probs[m] / (1 - probs[m])) + ((X - others) @ W[m]) / noise_variance)
""", r"-\|\|w_m\|\|\^2 / \(2 sigma\^2\) is missing"),
    Case("ex-mean-field-update", _MFU, W, """
import numpy as np
from scipy.special import expit
def mean_field_update(X, xi, m, probs, components, noise_variance):
    W = components
    others = xi @ W - np.outer(xi[:, m], W[m])
    return expit(((X - others) @ W[m] - 0.5 * W[m] @ W[m]) / noise_variance)
""", r"prior log-odds"),
    Case("ex-mean-field-update", _MFU, W, """
import numpy as np
from scipy.special import expit
def mean_field_update(X, xi, m, probs, components, noise_variance):
    W = components
    new = xi.copy()
    others = xi @ W - np.outer(xi[:, m], W[m])
    new[:, m] = expit(np.log(probs[m] / (1 - probs[m])) + ((X - others) @ W[m] - 0.5 * W[m] @ W[m]) / noise_variance)
    return new
""", r"only the new column"),
    Case("ex-mean-field-update", _MFU, R, """
import numpy as np
from scipy.special import expit
def mean_field_update(X, xi, m, probs, components, noise_variance):
    xi = xi.copy()
    xi[:, m] = 0.0
    residual = X - xi @ components
    w = components[m]
    field = np.log(probs[m]) - np.log(1 - probs[m]) + (residual @ w - 0.5 * w @ w) / noise_variance
    return expit(field)
""", None),
    Case("ex-mean-field-update", _MFU, R, """
import numpy as np
from scipy.special import expit
def mean_field_update(X, xi, m, probs, components, noise_variance):
    M = len(probs)
    G = components @ components.T
    t = np.log(probs[m] / (1 - probs[m])) + (X @ components[m] - 0.5 * G[m, m]) / noise_variance
    coupling = sum(G[m, l] * xi[:, l] for l in range(M) if l != m) / noise_variance
    return expit(t - coupling)
""", None),
    # ------------------------------------------------------------------ ex-mean-field-gap
    Case("ex-mean-field-gap", _MFG, W, """
import numpy as np
from scipy.special import logsumexp
from lib import variational as V
def mean_field_gap(X, params):
    xi = np.tile(params.probs, (len(X), 1))
    for _ in range(500):
        for m in range(2):                     # two causes, as in the figure
            xi[:, m] = V.mean_field_update(X, params, xi, m)
    states = V.all_states(2)
    log_q = np.log(xi) @ states.T + np.log1p(-xi) @ (1 - states).T
    lj = V.log_joint(X, params)
    log_post = lj - logsumexp(lj, axis=1, keepdims=True)
    return float(np.sum(np.exp(log_q) * (log_q - log_post)))
""", r"M = 3.*len\(params.probs\)"),
    Case("ex-mean-field-gap", _MFG, W, """
import numpy as np
from scipy.special import logsumexp
from lib import variational as V
def mean_field_gap(X, params):
    M = len(params.probs)
    xi = np.tile(params.probs, (len(X), 1))
    for m in range(M):                          # one sweep only
        xi[:, m] = V.mean_field_update(X, params, xi, m)
    states = V.all_states(M)
    log_q = np.log(xi) @ states.T + np.log1p(-xi) @ (1 - states).T
    lj = V.log_joint(X, params)
    log_post = lj - logsumexp(lj, axis=1, keepdims=True)
    return float(np.sum(np.exp(log_q) * (log_q - log_post)))
""", r"convergence"),
    Case("ex-mean-field-gap", _MFG, W, """
import numpy as np
from scipy.special import logsumexp
from lib import variational as V
def mean_field_gap(X, params):
    M = len(params.probs)
    xi = np.tile(params.probs, (len(X), 1))
    for _ in range(500):
        for m in range(M):
            xi[:, m] = V.mean_field_update(X, params, xi, m)
    states = V.all_states(M)
    log_q = np.log(xi) @ states.T + np.log1p(-xi) @ (1 - states).T
    lj = V.log_joint(X, params)
    log_post = lj - logsumexp(lj, axis=1, keepdims=True)
    return float(np.mean(np.sum(np.exp(log_q) * (log_q - log_post), axis=1)))   # per point
""", r"per data point"),
    Case("ex-mean-field-gap", _MFG, W, """
import numpy as np
from scipy.special import logsumexp
from lib import variational as V
def mean_field_gap(X, params):
    M = len(params.probs)
    xi = np.tile(params.probs, (len(X), 1))
    for _ in range(500):
        for m in range(M):
            xi[:, m] = V.mean_field_update(X, params, xi, m)
    states = V.all_states(M)
    log_q = np.log(xi) @ states.T + np.log1p(-xi) @ (1 - states).T
    lj = V.log_joint(X, params)
    log_post = lj - logsumexp(lj, axis=1, keepdims=True)
    post = np.exp(log_post)
    return float(np.sum(post * (log_post - log_q)))          # KL(p || q)
""", r"KL\(p \|\| q\)|other direction"),
    Case("ex-mean-field-gap", _MFG, W, """
import numpy as np
from scipy.special import logsumexp
from lib import variational as V
def mean_field_gap(X, params):
    M = len(params.probs)
    xi = np.tile(params.probs, (len(X), 1))
    for _ in range(500):
        for m in range(M):
            xi[:, m] = V.mean_field_update(X, params, xi, m)
    states = V.all_states(M)
    log_q = np.log(xi) @ states.T + np.log1p(-xi) @ (1 - states).T
    lj = V.log_joint(X, params)
    log_post = lj - logsumexp(lj, axis=1, keepdims=True)
    return np.sum(np.exp(log_q) * (log_q - log_post), axis=1)      # one per point, not summed
""", r"shape \(15,\).*single number"),
    Case("ex-mean-field-gap", _MFG, R, """
import numpy as np
from scipy.special import logsumexp
from lib import variational as V
def mean_field_gap(X, params):
    M = len(params.probs)
    xi = np.tile(params.probs, (len(X), 1))
    for _ in range(500):
        old = xi.copy()
        for m in range(M):
            xi[:, m] = V.mean_field_update(X, params, xi, m)
        if np.max(np.abs(xi - old)) < 1e-12:
            break
    states = V.all_states(M)
    log_q = np.log(xi) @ states.T + np.log1p(-xi) @ (1 - states).T
    lj = V.log_joint(X, params)
    log_post = lj - logsumexp(lj, axis=1, keepdims=True)
    return float(np.sum(np.exp(log_q) * (log_q - log_post)))
""", None),
    Case("ex-mean-field-gap", _MFG, R, """
import numpy as np
from scipy.special import logsumexp
from lib import variational as V
def mean_field_gap(X, params):
    n, M = len(X), len(params.probs)
    xi = np.tile(params.probs, (n, 1))
    for sweep in range(500):
        change = 0.0
        for m in range(M):
            col = V.mean_field_update(X, params, xi, m)
            change = max(change, np.abs(col - xi[:, m]).max())
            xi[:, m] = col
        if change < 1e-12:
            break
    states = V.all_states(M)
    lj = V.log_joint(X, params)
    gap = 0.0
    for i in range(n):
        q_i = np.prod(np.where(states == 1, xi[i], 1 - xi[i]), axis=1)
        gap += np.sum(q_i * (np.log(q_i) - (lj[i] - logsumexp(lj[i]))))
    return gap
""", None),
    # ------------------------------------------------------------------ ex-cavi-update
    Case("ex-cavi-update", _CAVI, W, """
import numpy as np
def cavi_update(q_means, j, mean, covariance):
    L = np.linalg.inv(covariance)
    new_mean = mean[j] - (L[j] @ (q_means - mean)) / L[j, j]   # the sum includes l = j
    return new_mean, 1.0 / L[j, j]
""", r"includes l = j"),
    Case("ex-cavi-update", _CAVI, W, """
import numpy as np
def cavi_update(q_means, j, mean, covariance):
    L = np.linalg.inv(covariance)
    others = [l for l in range(len(mean)) if l != j]
    new_mean = mean[j] - L[j, others] @ (q_means[others] - mean[others]) / L[j, j]
    return new_mean, covariance[j, j]
""", r"Sigma_jj, the true marginal"),
    Case("ex-cavi-update", _CAVI, W, """
import numpy as np
def cavi_update(q_means, j, mean, covariance):
    others = [l for l in range(len(mean)) if l != j]
    new_mean = mean[j] - covariance[j, others] @ (q_means[others] - mean[others]) / covariance[j, j]
    return new_mean, 1.0 / np.linalg.inv(covariance)[j, j]
""", r"covariance Sigma where the update needs the precision"),
    Case("ex-cavi-update", _CAVI, W, """
import numpy as np
def cavi_update(q_means, j, mean, covariance):
    L = np.linalg.inv(covariance)
    others = [l for l in range(len(mean)) if l != j]
    new_mean = mean[j] - L[j, others] @ (q_means[others] - mean[others]) / L[j, j]
    return np.array([new_mean]), np.array([1.0 / L[j, j]])
""", r"numpy array of shape \(1,\).*single number"),
    Case("ex-cavi-update", _CAVI, W, """
import numpy as np
def cavi_update(q_means, j, mean, covariance):
    L = np.linalg.inv(covariance)
    others = [l for l in range(len(mean)) if l != j]
    new_mean = mean[j] - L[j, others] @ (q_means[others] - mean[others]) / L[j, j]
    return [new_mean, 1.0 / L[j, j]]
""", r"list of length 2.*as a tuple"),
    Case("ex-cavi-update", _CAVI, W, """
import numpy as np
def cavi_update(q_means, j, mean, covariance):
    L = np.linalg.inv(covariance)
    other = 1 - j                          # the other coordinate (2-D target)
    new_mean = mean[j] - L[j, other] * (q_means[other] - mean[other]) / L[j, j]
    return new_mean, 1.0 / L[j, j]
""", r"passed the 2-dimensional targets.*every other coordinate"),
    Case("ex-cavi-update", _CAVI, R, """
import numpy as np
def cavi_update(q_means, j, mean, covariance):
    L = np.linalg.inv(covariance)
    others = np.arange(len(mean)) != j
    new_mean = mean[j] - L[j, others] @ (q_means[others] - mean[others]) / L[j, j]
    return float(new_mean), float(1.0 / L[j, j])
""", None),
    Case("ex-cavi-update", _CAVI, R, """
import numpy as np
def cavi_update(q_means, j, mean, covariance):
    L = np.linalg.inv(covariance)
    diff = q_means - mean
    diff[j] = 0.0                                   # diff is a new array: q_means is untouched
    return mean[j] - (L[j] @ diff) / L[j, j], 1 / L[j, j]
""", None),
    # ------------------------------------------------------------------ ex-kl-gauss-pq
    Case("ex-kl-gauss-pq", _KL, W, """
import numpy as np
def kl_p_to_factorised(mean, covariance, q_means, q_variances):
    d = len(mean)
    tr = np.sum((np.diag(covariance) + (mean - q_means) ** 2) / q_variances)
    return tr - d + np.sum(np.log(q_variances)) - np.linalg.slogdet(covariance)[1]
""", r"twice"),
    Case("ex-kl-gauss-pq", _KL, W, """
import numpy as np
def kl_p_to_factorised(mean, covariance, q_means, q_variances):
    d = len(mean)
    tr = np.sum(np.diag(covariance) / q_variances)
    return 0.5 * (tr - d + np.sum(np.log(q_variances)) - np.linalg.slogdet(covariance)[1])
""", r"mean term is missing"),
    Case("ex-kl-gauss-pq", _KL, W, """
import numpy as np
def kl_p_to_factorised(mean, covariance, q_means, q_variances):
    d = len(mean)
    tr = np.sum((np.diag(covariance) + (mean - q_means) ** 2) / q_variances)
    kl = 0.5 * (tr - d + np.sum(np.log(q_variances)) - np.linalg.slogdet(covariance)[1])
    return round(float(kl), 3)
""", r"round"),
    Case("ex-kl-gauss-pq", _KL, W, """
import numpy as np
def kl_p_to_factorised(mean, covariance, q_means, q_variances):
    tr = np.sum((np.diag(covariance) + (mean - q_means) ** 2) / q_variances)
    return 0.5 * (tr + np.sum(np.log(q_variances)) - np.linalg.slogdet(covariance)[1])
""", r"constant -d is missing"),
    Case("ex-kl-gauss-pq", _KL, W, """
import numpy as np
def kl_p_to_factorised(mean, covariance, q_means, q_variances):
    S_q = np.diag(q_variances)
    d = len(mean)
    diff = q_means - mean
    return 0.5 * (np.trace(np.linalg.solve(covariance, S_q)) + diff @ np.linalg.solve(covariance, diff) - d
                  + np.linalg.slogdet(covariance)[1] - np.sum(np.log(q_variances)))
""", r"other direction"),
    Case("ex-kl-gauss-pq", _KL, W, """
import numpy as np
def kl_p_to_factorised(mean, covariance, q_means, q_variances):
    d = len(mean)
    tr = np.sum((np.diag(covariance) + (mean - q_means) ** 2) / q_variances)
    return np.array([0.5 * (tr - d + np.sum(np.log(q_variances)) - np.linalg.slogdet(covariance)[1])])
""", r"numpy array of shape \(1,\).*single number"),
    Case("ex-kl-gauss-pq", _KL, R, """
import numpy as np
def kl_p_to_factorised(mean, covariance, q_means, q_variances):
    d = len(mean)
    sign, logdet = np.linalg.slogdet(covariance)
    e_log_p = -0.5 * d * np.log(2 * np.pi) - 0.5 * logdet - 0.5 * d
    e_log_q = np.sum(-0.5 * np.log(2 * np.pi * q_variances)
                     - (np.diag(covariance) + (mean - q_means) ** 2) / (2 * q_variances))
    return float(e_log_p - e_log_q)
""", None),
    Case("ex-kl-gauss-pq", _KL, R, """
import numpy as np
def kl_p_to_factorised(mean, covariance, q_means, q_variances):
    L = np.linalg.cholesky(covariance)
    logdet = 2 * np.sum(np.log(np.diag(L)))
    total = 0.0
    for j in range(len(mean)):
        total += (covariance[j, j] + (mean[j] - q_means[j]) ** 2) / q_variances[j] + np.log(q_variances[j]) - 1
    return 0.5 * (total - logdet)
""", None),
    # ------------------------------------------------------------------ ex-vb-dirichlet-weights
    Case("ex-vb-dirichlet-weights", _DIR, W, """
import numpy as np
from scipy.special import digamma
def vb_dirichlet_weights(resp, alpha0):
    alpha = alpha0 - 1 + resp.sum(axis=0)
    return alpha, digamma(alpha) - digamma(alpha.sum())
""", r"MAP weights"),
    Case("ex-vb-dirichlet-weights", _DIR, W, """
import numpy as np
from scipy.special import digamma
def vb_dirichlet_weights(resp, alpha0):
    alpha = alpha0 + resp.sum(axis=0)
    return alpha, np.log(alpha / alpha.sum())
""", r"ln E\[pi_k\]"),
    Case("ex-vb-dirichlet-weights", _DIR, W, """
import numpy as np
from scipy.special import digamma
def vb_dirichlet_weights(resp, alpha0):
    alpha = alpha0 + resp.sum(axis=1)
    return alpha, digamma(alpha) - digamma(alpha.sum())
""", r"one entry per data point"),
    Case("ex-vb-dirichlet-weights", _DIR, W, """
import numpy as np
from scipy.special import digamma
def vb_dirichlet_weights(resp, alpha0):
    alpha = alpha0 + resp.sum(axis=0)
    K = resp.shape[1]
    return alpha, digamma(alpha) - digamma(K * alpha0)
""", r"sum of the posterior concentrations"),
    Case("ex-vb-dirichlet-weights", _DIR, W, """
import numpy as np
from scipy.special import digamma
def vb_dirichlet_weights(resp, alpha0):
    alpha = alpha0 + resp.sum(axis=0)
    return alpha, digamma(alpha)
""", r"normalising term"),
    Case("ex-vb-dirichlet-weights", _DIR, W, """
import numpy as np
from scipy.special import digamma
def vb_dirichlet_weights(resp, alpha0):
    alpha = alpha0 + resp.sum(axis=0)
    return list(alpha), list(digamma(alpha) - digamma(alpha.sum()))
""", r"numpy array"),
    Case("ex-vb-dirichlet-weights", _DIR, R, """
import numpy as np
from scipy.special import digamma
def vb_dirichlet_weights(resp, alpha0):
    alpha = alpha0 + resp.sum(axis=0)
    return alpha, digamma(alpha) - digamma(alpha.sum())
""", None),
    Case("ex-vb-dirichlet-weights", _DIR, R, """
import numpy as np
from scipy.special import digamma
def vb_dirichlet_weights(resp, alpha0):
    n, K = resp.shape
    alpha = np.array([alpha0 + resp[:, k].sum() for k in range(K)])
    total = K * alpha0 + n        # the rows of resp sum to 1
    return alpha, digamma(alpha) - digamma(total)
""", None),
]
