"""Chapter 4's student mistakes (issue 52): wrong answers as students write them after reading the
pages, each with the words its message must hold, and right answers written differently."""

from tests.mistakes import Case

W, R = "wrong", "right"

_E = "lib.checks.ch04.em_e_step"
_MS = "lib.checks.ch04.em_m_step_spherical"
_SECOND = "lib.checks.ch04.em_second_iteration"
_RUN = "lib.checks.ch04.em_run"
_LB = "lib.checks.ch04.em_lower_bound"
_Q = "lib.checks.ch04.em_dempster_q"
_BERN = "lib.checks.ch04_bernoulli.em_bernoulli_mixture"
_LAG = "lib.checks.ch04_derivations.em_lagrange_weights"
_FULL = "lib.checks.ch04_derivations.em_m_step_full"
_RATE = "lib.checks.ch04_derivations.em_missing_information_rate"
_MAP = "lib.checks.ch04_derivations.em_map_covariances"
_SUMS = "lib.checks.ch04_scale.em_m_step_from_sums"
_STEP = "lib.checks.ch04_scale.em_stepwise_step"

# ex-em-second-iteration: the worked example's four points and the printed variant (em_variant)
_SECOND_SETUP = """
import numpy as np
X4 = np.array([[-1.5, 0.5], [-1.5, -0.5], [0.0, 0.5], [0.0, -0.5]])
v = em_variant
w = np.array([v.pi1, 1 - v.pi1])
mu = np.array([[v.a, 0.0], [v.b, 0.0]])
var = np.array([v.var1, v.var2])
sq = ((X4[:, None, :] - mu[None]) ** 2).sum(axis=2)
"""

CASES = [
    # ------------------------------------------------------------------ ex-em-e-step
    Case("ex-em-e-step", _E, W, """
import numpy as np
def e_step_spherical(X, weights, means, variances):
    d = X.shape[1]
    sq = ((X[:, None, :] - means[None]) ** 2).sum(axis=2)
    dens = weights * np.exp(-sq / (2 * variances)) / (2 * np.pi * variances) ** (d / 2)
    return dens / dens.sum(axis=1, keepdims=True)
""", r"far from every component.*logsumexp"),
    Case("ex-em-e-step", _E, W, """
import numpy as np
from scipy.special import logsumexp
def e_step_spherical(X, weights, means, variances):
    sq = ((X[:, None, :] - means[None]) ** 2).sum(axis=2)
    log_joint = np.log(weights) - sq / (2 * variances)      # the constant cancels
    return np.exp(log_joint - logsumexp(log_joint, axis=1, keepdims=True))
""", r"dropped the -\(d/2\) ln\(2 pi sigma_k\^2\)"),
    Case("ex-em-e-step", _E, W, """
import numpy as np
from scipy.special import logsumexp
def e_step_spherical(X, weights, means, variances):
    sq = ((X[:, None, :] - means[None]) ** 2).sum(axis=2)
    log_joint = np.log(weights) - np.log(2 * np.pi * variances) - sq / (2 * variances)   # 2-D constant
    return np.exp(log_joint - logsumexp(log_joint, axis=1, keepdims=True))
""", r"two-dimensional.*right only in d = 2"),
    Case("ex-em-e-step", _E, W, """
import numpy as np
from scipy.special import logsumexp
def e_step_spherical(X, weights, means, variances):
    d = X.shape[1]
    sq = ((X[:, None, :] - means[None]) ** 2).sum(axis=2)
    log_joint = np.log(weights) - 0.5 * d * np.log(2 * np.pi * variances) - sq / (2 * variances)
    return log_joint - logsumexp(log_joint, axis=1, keepdims=True)
""", r"log-responsibilities"),
    Case("ex-em-e-step", _E, W, """
import numpy as np
from scipy.special import logsumexp
def e_step_spherical(X, weights, means, variances):
    d = X.shape[1]
    sq = ((X[:, None, :] - means[None]) ** 2).sum(axis=2)
    log_joint = np.log(weights) - 0.5 * d * np.log(2 * np.pi * variances) - sq / (2 * variances)
    return np.exp(log_joint - logsumexp(log_joint, axis=0, keepdims=True))
""", r"each column.*axis=1"),
    Case("ex-em-e-step", _E, W, """
import numpy as np
from scipy.special import logsumexp
def e_step_spherical(X, weights, means, variances):
    d = X.shape[1]
    sq = ((X[:, None, :] - means[None]) ** 2).sum(axis=2)
    log_joint = -0.5 * d * np.log(2 * np.pi * variances) - sq / (2 * variances)
    return np.exp(log_joint - logsumexp(log_joint, axis=1, keepdims=True))
""", r"ignore the mixing weights"),
    Case("ex-em-e-step", _E, R, """
import numpy as np
from scipy.special import logsumexp
def e_step_spherical(X, weights, means, variances):
    n, d = X.shape
    K = len(weights)
    log_joint = np.empty((n, K))
    for k in range(K):
        diff = X - means[k]
        log_joint[:, k] = (np.log(weights[k]) - 0.5 * d * np.log(2 * np.pi * variances[k])
                           - np.einsum("ij,ij->i", diff, diff) / (2 * variances[k]))
    return np.exp(log_joint - logsumexp(log_joint, axis=1)[:, None])
""", None),
    Case("ex-em-e-step", _E, R, """
import numpy as np
def e_step_spherical(X, weights, means, variances):
    d = X.shape[1]
    sq = (X ** 2).sum(axis=1)[:, None] - 2 * X @ means.T + (means ** 2).sum(axis=1)[None, :]
    a = np.log(weights) - d / 2 * np.log(2 * np.pi * variances) - sq / (2 * variances)
    a -= a.max(axis=1, keepdims=True)           # log-sum-exp by hand
    r = np.exp(a)
    return r / r.sum(axis=1, keepdims=True)
""", None),
    # ------------------------------------------------------------------ ex-em-m-step
    Case("ex-em-m-step", _MS, W, """
import numpy as np
def m_step_spherical(X, resp):
    n, d = X.shape
    nk = resp.sum(axis=0)
    means = resp.T @ X / nk[:, None]
    second = resp.T @ (X ** 2).sum(axis=1) / nk           # E[||x||^2] under component k
    variances = (second - (means ** 2).sum(axis=1)) / d   # minus ||mu_k||^2
    return nk / n, means, variances
""", r"away from it.*cancellation"),
    Case("ex-em-m-step", _MS, W, """
import numpy as np
def m_step_spherical(X, resp):
    n, d = X.shape
    nk = resp.sum(axis=0)
    means = resp.T @ X / nk[:, None]
    sq = ((X[:, None, :] - means[None]) ** 2).sum(axis=2)
    return nk / n, means, (resp * sq).sum(axis=0) / nk
""", r"d times too large"),
    Case("ex-em-m-step", _MS, W, """
import numpy as np
def m_step_spherical(X, resp):
    n, d = X.shape
    nk = resp.sum(axis=0)
    means = resp.T @ X / nk[:, None]
    sq = ((X[:, None, :] - means[None]) ** 2).sum(axis=2)
    return nk / n, means, (resp * sq).sum(axis=0) / (3 * nk)
""", r"3 \* n_k, right only in d = 3"),
    Case("ex-em-m-step", _MS, W, """
import numpy as np
def m_step_spherical(X, resp):
    n, d = X.shape
    nk = resp.sum(axis=0)
    means = resp.T @ X / nk[:, None]
    sq = ((X[:, None, :] - means[None]) ** 2)           # (n, K, d)
    return nk / n, means, (resp[:, :, None] * sq).sum(axis=0) / nk[:, None]
""", r"shape \(K, d\).*diagonal"),
    Case("ex-em-m-step", _MS, W, """
import numpy as np
def m_step_spherical(X, resp):
    n, d = X.shape
    nk = resp.sum(axis=0)
    means = resp.T @ X / nk[:, None]
    sq = ((X[:, None, :] - means[None]) ** 2).sum(axis=2)
    return nk, means, (resp * sq).sum(axis=0) / (d * nk)
""", r"soft counts n_k"),
    Case("ex-em-m-step", _MS, W, """
import numpy as np
def m_step_spherical(X, resp):
    n, d = X.shape
    nk = resp.sum(axis=0)
    means = resp.T @ X / n
    sq = ((X[:, None, :] - means[None]) ** 2).sum(axis=2)
    return nk / n, means, (resp * sq).sum(axis=0) / (d * nk)
""", r"means divide by n"),
    Case("ex-em-m-step", _MS, R, """
import numpy as np
def m_step_spherical(X, resp):
    n, d = X.shape
    K = resp.shape[1]
    weights, means, variances = np.empty(K), np.empty((K, d)), np.empty(K)
    for k in range(K):
        r = resp[:, k]
        nk = r.sum()
        weights[k] = nk / n
        means[k] = r @ X / nk
        variances[k] = r @ ((X - means[k]) ** 2).sum(axis=1) / (d * nk)
    return weights, means, variances
""", None),
    Case("ex-em-m-step", _MS, R, """
import numpy as np
def m_step_spherical(X, resp):
    nk = resp.sum(axis=0)
    means = (resp.T @ X) / nk[:, None]
    variances = np.array([np.average(((X - m) ** 2).mean(axis=1), weights=resp[:, k])
                          for k, m in enumerate(means)])
    return nk / len(X), means, variances
""", None),
    # ------------------------------------------------------------------ ex-em-second-iteration
    Case("ex-em-second-iteration", _SECOND, W, _SECOND_SETUP + """
answer = v.pi1        # the weight of the component that starts at mu_1
""", r"pi_1 of theta\^\(1\)"),
    Case("ex-em-second-iteration", _SECOND, W, _SECOND_SETUP + """
log_joint = np.log(w) - sq / (2 * var)          # dropped the 1 / (2 pi sigma^2)
resp = np.exp(log_joint) / np.exp(log_joint).sum(axis=1, keepdims=True)
answer = round(float(resp[:, 0].mean()), 4)
""", r"dropped the normalising constant"),
    Case("ex-em-second-iteration", _SECOND, W, _SECOND_SETUP + """
log_joint = -np.log(2 * np.pi * var) - sq / (2 * var)     # forgot the weights
resp = np.exp(log_joint) / np.exp(log_joint).sum(axis=1, keepdims=True)
answer = round(float(resp[:, 0].mean()), 4)
""", r"ignore the weights"),
    Case("ex-em-second-iteration", _SECOND, W, _SECOND_SETUP + """
log_joint = np.log(w) - 0.5 * np.log(2 * np.pi * var) - sq / (2 * var)    # 1-D constant
resp = np.exp(log_joint) / np.exp(log_joint).sum(axis=1, keepdims=True)
answer = round(float(resp[:, 0].mean()), 4)
""", r"one-dimensional"),
    Case("ex-em-second-iteration", _SECOND, W, _SECOND_SETUP + """
sd = np.sqrt(var)
log_joint = np.log(w) - np.log(2 * np.pi * sd) - sq / (2 * sd)
resp = np.exp(log_joint) / np.exp(log_joint).sum(axis=1, keepdims=True)
answer = round(float(resp[:, 0].mean()), 4)
""", r"standard deviations"),
    Case("ex-em-second-iteration", _SECOND, W, _SECOND_SETUP + """
log_joint = np.log(w) - np.log(2 * np.pi * var) - sq / (2 * var)
resp = np.exp(log_joint) / np.exp(log_joint).sum(axis=1, keepdims=True)
answer = np.array([round(float(resp[:, 0].mean()), 4)])
""", r"numpy array of shape \(1,\).*single number"),
    Case("ex-em-second-iteration", _SECOND, W, """
import numpy as np
# the book's theta^(1), typed from the statement rather than from the variant cell
X4 = np.array([[-1.5, 0.5], [-1.5, -0.5], [0.0, 0.5], [0.0, -0.5]])
w, mu, var = np.array([0.75, 0.25]), np.array([[-1.0, 0.0], [0.0, 0.0]]), np.array([0.375, 0.125])
sq = ((X4[:, None, :] - mu[None]) ** 2).sum(axis=2)
dens = w * np.exp(-sq / (2 * var)) / (2 * np.pi * var)
answer = round(float((dens[:, 0] / dens.sum(axis=1)).mean()), 4)
""", r"book's variant"),
    Case("ex-em-second-iteration", _SECOND, R, _SECOND_SETUP + """
log_joint = np.log(w) - np.log(2 * np.pi * var) - sq / (2 * var)
resp = np.exp(log_joint) / np.exp(log_joint).sum(axis=1, keepdims=True)
answer = round(float(resp[:, 0].mean()), 4)
""", None),
    Case("ex-em-second-iteration", _SECOND, R, """
import math
v = em_variant
def density(x, y, mx, s2):
    return math.exp(-((x - mx) ** 2 + y ** 2) / (2 * s2)) / (2 * math.pi * s2)
def gamma_1(x, y):
    p1 = v.pi1 * density(x, y, v.a, v.var1)
    p2 = (1 - v.pi1) * density(x, y, v.b, v.var2)
    return p1 / (p1 + p2)
answer = round((2 * gamma_1(-1.5, 0.5) + 2 * gamma_1(0.0, 0.5)) / 4, 4)
""", None),
    # ------------------------------------------------------------------ ex-em-run
    Case("ex-em-run", _RUN, W, """
import numpy as np
from lib.mixture import e_step, m_step, log_likelihood
def run_em(X, weights, means, variances, n_iter):
    theta = (weights, means, variances)
    history = []
    for _ in range(n_iter):
        resp, _ = e_step(X, *theta, "spherical")
        theta = m_step(X, resp, "spherical", reg_covar=0)
        history.append(log_likelihood(X, *theta, "spherical"))
    return np.array(history)
""", r"n_iter \+ 1"),
    Case("ex-em-run", _RUN, W, """
import numpy as np
from lib.mixture import e_step, m_step, log_likelihood
def run_em(X, weights, means, variances, n_iter):
    theta = (weights, means, variances)
    history = [log_likelihood(X, *theta, "spherical")]
    for _ in range(n_iter):
        resp, _ = e_step(X, *theta, "spherical")
        theta = m_step(X, resp, "spherical", reg_covar=0)
        history.append(log_likelihood(X, *theta, "spherical"))
    return history
""", r"numpy array"),
    Case("ex-em-run", _RUN, W, """
import numpy as np
from lib.mixture import e_step, m_step, log_likelihood
def run_em(X, weights, means, variances, n_iter):
    theta = (weights, means, variances)
    history = [-log_likelihood(X, *theta, "spherical")]
    for _ in range(n_iter):
        resp, _ = e_step(X, *theta, "spherical")
        theta = m_step(X, resp, "spherical", reg_covar=0)
        history.append(-log_likelihood(X, *theta, "spherical"))
    return np.array(history)
""", r"wrong sign"),
    Case("ex-em-run", _RUN, W, """
import numpy as np
from lib.mixture import e_step, m_step, log_likelihood
def run_em(X, weights, means, variances, n_iter):
    theta = (weights, means, variances)
    history = [log_likelihood(X, *theta, "spherical") / len(X)]
    for _ in range(n_iter):
        resp, _ = e_step(X, *theta, "spherical")
        theta = m_step(X, resp, "spherical", reg_covar=0)
        history.append(log_likelihood(X, *theta, "spherical") / len(X))
    return np.array(history)
""", r"average log-likelihood per sample"),
    Case("ex-em-run", _RUN, W, """
import numpy as np
from lib.mixture import e_step, log_likelihood
def run_em(X, weights, means, variances, n_iter):
    n, d = X.shape
    history = [log_likelihood(X, weights, means, variances, "spherical")]
    for _ in range(n_iter):
        resp, _ = e_step(X, weights, means, variances, "spherical")
        nk = resp.sum(axis=0)
        sq = ((X[:, None, :] - means[None]) ** 2).sum(axis=2)     # old means
        variances = (resp * sq).sum(axis=0) / (d * nk)
        means = resp.T @ X / nk[:, None]
        weights = nk / n
        history.append(log_likelihood(X, weights, means, variances, "spherical"))
    return np.array(history)
""", r"variances about the old means"),
    Case("ex-em-run", _RUN, R, """
import numpy as np
from lib.mixture import e_step, m_step, log_likelihood
def run_em(X, weights, means, variances, n_iter):
    theta = (weights, means, variances)
    history = [log_likelihood(X, *theta, "spherical")]
    for _ in range(n_iter):
        resp, _ = e_step(X, *theta, "spherical")
        theta = m_step(X, resp, "spherical", reg_covar=0)
        history.append(log_likelihood(X, *theta, "spherical"))
    return np.array(history)
""", None),
    Case("ex-em-run", _RUN, R, """
import numpy as np
from scipy.special import logsumexp
from lib.mixture import e_step, m_step
def run_em(X, weights, means, variances, n_iter):
    d = X.shape[1]
    out = np.empty(n_iter + 1)
    for t in range(n_iter + 1):
        resp, log_norm = e_step(X, weights, means, variances, "spherical")
        out[t] = log_norm.sum()           # the E-step's normaliser is ln p(x_i)
        if t < n_iter:
            weights, means, variances = m_step(X, resp, "spherical", reg_covar=0.0)
    return out
""", None),
    # ------------------------------------------------------------------ ex-em-lower-bound
    Case("ex-em-lower-bound", _LB, W, """
import numpy as np
def lower_bound_spherical(X, resp, weights, means, variances):
    d = X.shape[1]
    sq = ((X[:, None, :] - means[None]) ** 2).sum(axis=2)
    log_joint = np.log(weights) - 0.5 * d * np.log(2 * np.pi * variances) - sq / (2 * variances)
    return float(np.sum(resp * (log_joint - np.log(resp))))
""", r"exact zeros.*0 ln 0 = 0"),
    Case("ex-em-lower-bound", _LB, W, """
import numpy as np
def lower_bound_spherical(X, resp, weights, means, variances):
    d = X.shape[1]
    sq = ((X[:, None, :] - means[None]) ** 2).sum(axis=2)
    log_joint = np.log(weights) - 0.5 * d * np.log(2 * np.pi * variances) - sq / (2 * variances)
    return float(np.sum(resp * log_joint))
""", r"without the entropy term"),
    Case("ex-em-lower-bound", _LB, W, """
import numpy as np
from scipy.special import xlogy
def lower_bound_spherical(X, resp, weights, means, variances):
    d = X.shape[1]
    sq = ((X[:, None, :] - means[None]) ** 2).sum(axis=2)
    log_joint = np.log(weights) - 0.5 * d * np.log(2 * np.pi * variances) - sq / (2 * variances)
    return float(np.sum(resp * log_joint) + np.sum(xlogy(resp, resp)))
""", r"entropy enters with the wrong sign"),
    Case("ex-em-lower-bound", _LB, W, """
import numpy as np
from scipy.special import xlogy
def lower_bound_spherical(X, resp, weights, means, variances):
    sq = ((X[:, None, :] - means[None]) ** 2).sum(axis=2)
    log_joint = np.log(weights) - np.log(2 * np.pi * variances) - sq / (2 * variances)   # d = 2
    return float(np.sum(resp * log_joint) - np.sum(xlogy(resp, resp)))
""", r"-\(d/2\) ln\(2 pi sigma_k\^2\)"),
    Case("ex-em-lower-bound", _LB, W, """
import numpy as np
from scipy.special import xlogy
def lower_bound_spherical(X, resp, weights, means, variances):
    d = X.shape[1]
    sq = ((X[:, None, :] - means[None]) ** 2).sum(axis=2)
    log_joint = np.log(weights) - 0.5 * d * np.log(2 * np.pi * variances) - sq / (2 * variances)
    return float(np.mean(np.sum(resp * log_joint - xlogy(resp, resp), axis=1)))
""", r"average over the samples"),
    Case("ex-em-lower-bound", _LB, R, """
import numpy as np
from scipy.special import xlogy
def lower_bound_spherical(X, resp, weights, means, variances):
    d = X.shape[1]
    total = 0.0
    for k in range(len(weights)):
        sq = ((X - means[k]) ** 2).sum(axis=1)
        lj = np.log(weights[k]) - 0.5 * d * np.log(2 * np.pi * variances[k]) - sq / (2 * variances[k])
        total += np.sum(resp[:, k] * lj - xlogy(resp[:, k], resp[:, k]))
    return float(total)
""", None),
    Case("ex-em-lower-bound", _LB, R, """
import numpy as np
def lower_bound_spherical(X, resp, weights, means, variances):
    d = X.shape[1]
    sq = ((X[:, None, :] - means[None]) ** 2).sum(axis=2)
    log_joint = np.log(weights) - 0.5 * d * np.log(2 * np.pi * variances) - sq / (2 * variances)
    keep = resp > 0
    return float(np.sum(resp[keep] * (log_joint[keep] - np.log(resp[keep]))))
""", None),
    # ------------------------------------------------------------------ ex-em-dempster-q
    Case("ex-em-dempster-q", _Q, W, """
import numpy as np
from scipy.special import xlogy
from lib.mixture import e_step
def dempster_q_spherical(X, theta, theta_old):
    resp, _ = e_step(X, *theta_old, "spherical")
    weights, means, variances = theta
    d = X.shape[1]
    sq = ((X[:, None, :] - means[None]) ** 2).sum(axis=2)
    log_joint = np.log(weights) - 0.5 * d * np.log(2 * np.pi * variances) - sq / (2 * variances)
    return float(np.sum(resp * log_joint) - np.sum(xlogy(resp, resp)))     # plus the entropy
""", r"added the entropy"),
    Case("ex-em-dempster-q", _Q, W, """
import numpy as np
from lib.mixture import e_step
def dempster_q_spherical(X, theta, theta_old):
    resp, _ = e_step(X, *theta, "spherical")                # posterior at theta
    weights, means, variances = theta
    d = X.shape[1]
    sq = ((X[:, None, :] - means[None]) ** 2).sum(axis=2)
    log_joint = np.log(weights) - 0.5 * d * np.log(2 * np.pi * variances) - sq / (2 * variances)
    return float(np.sum(resp * log_joint))
""", r"responsibilities come from theta"),
    Case("ex-em-dempster-q", _Q, W, """
import numpy as np
from lib.mixture import e_step
def dempster_q_spherical(X, theta, theta_old):
    resp, _ = e_step(X, *theta, "spherical")
    weights, means, variances = theta_old
    d = X.shape[1]
    sq = ((X[:, None, :] - means[None]) ** 2).sum(axis=2)
    log_joint = np.log(weights) - 0.5 * d * np.log(2 * np.pi * variances) - sq / (2 * variances)
    return float(np.sum(resp * log_joint))
""", r"arguments are swapped"),
    Case("ex-em-dempster-q", _Q, W, """
import numpy as np
from lib.mixture import e_step
def dempster_q_spherical(X, theta, theta_old):
    resp, _ = e_step(X, *theta_old, "spherical")
    hard = np.eye(resp.shape[1])[resp.argmax(axis=1)]
    weights, means, variances = theta
    d = X.shape[1]
    sq = ((X[:, None, :] - means[None]) ** 2).sum(axis=2)
    log_joint = np.log(weights) - 0.5 * d * np.log(2 * np.pi * variances) - sq / (2 * variances)
    return float(np.sum(hard * log_joint))
""", r"hard assignments"),
    Case("ex-em-dempster-q", _Q, W, """
import numpy as np
from lib.mixture import e_step
def dempster_q_spherical(X, theta, theta_old):
    _, log_norm = e_step(X, *theta, "spherical")
    return float(log_norm.sum())
""", r"log-likelihood ell\(theta\)"),
    Case("ex-em-dempster-q", _Q, R, """
import numpy as np
from lib.mixture import e_step
def dempster_q_spherical(X, theta, theta_old):
    resp, _ = e_step(X, *theta_old, "spherical")
    weights, means, variances = theta
    d = X.shape[1]
    total = 0.0
    for k in range(len(weights)):
        sq = np.sum((X - means[k]) ** 2, axis=1)
        total += resp[:, k] @ (np.log(weights[k]) - d / 2 * np.log(2 * np.pi * variances[k]) - sq / (2 * variances[k]))
    return float(total)
""", None),
    Case("ex-em-dempster-q", _Q, R, """
import numpy as np
from scipy.special import xlogy
from lib.mixture import e_step
def dempster_q_spherical(X, theta, theta_old):
    # Q = L(q, theta) - sum_i H(q_i) with q the posterior at theta_old
    resp, _ = e_step(X, *theta_old, "spherical")
    weights, means, variances = theta
    d = X.shape[1]
    sq = ((X[:, None, :] - means[None]) ** 2).sum(axis=2)
    log_joint = np.log(weights) - 0.5 * d * np.log(2 * np.pi * variances) - sq / (2 * variances)
    bound = np.sum(resp * log_joint - xlogy(resp, resp))
    return float(bound + np.sum(xlogy(resp, resp)))
""", None),
    # ------------------------------------------------------------------ ex-em-bernoulli-mixture
    Case("ex-em-bernoulli-mixture", _BERN, W, """
import numpy as np
def bernoulli_em_iteration(X, weights, means):
    lik = np.prod(means[None] ** X[:, None] * (1 - means[None]) ** (1 - X[:, None]), axis=2)   # (n, K)
    joint = weights * lik
    resp = joint / joint.sum(axis=1, keepdims=True)
    nk = resp.sum(axis=0)
    return resp, nk / len(X), resp.T @ X / nk[:, None]
""", r"underflows"),
    Case("ex-em-bernoulli-mixture", _BERN, W, """
import numpy as np
from scipy.special import logsumexp
def bernoulli_em_iteration(X, weights, means):
    log_joint = np.log(weights) + X @ np.log(means).T            # forgot the zeros
    resp = np.exp(log_joint - logsumexp(log_joint, axis=1, keepdims=True))
    nk = resp.sum(axis=0)
    return resp, nk / len(X), resp.T @ X / nk[:, None]
""", r"features equal to 1"),
    Case("ex-em-bernoulli-mixture", _BERN, W, """
import numpy as np
from scipy.special import logsumexp
def bernoulli_em_iteration(X, weights, means):
    log_joint = X @ np.log(means).T + (1 - X) @ np.log(1 - means).T
    resp = np.exp(log_joint - logsumexp(log_joint, axis=1, keepdims=True))
    nk = resp.sum(axis=0)
    return resp, nk / len(X), resp.T @ X / nk[:, None]
""", r"leave out the mixing weights"),
    Case("ex-em-bernoulli-mixture", _BERN, W, """
import numpy as np
from scipy.special import logsumexp
def bernoulli_em_iteration(X, weights, means):
    log_joint = np.log(weights) + X @ np.log(means).T + (1 - X) @ np.log(1 - means).T
    resp = np.exp(log_joint - logsumexp(log_joint, axis=1, keepdims=True))
    nk = resp.sum(axis=0)
    return resp, nk / len(X), resp.T @ X / len(X)
""", r"means divide by the number of points n"),
    Case("ex-em-bernoulli-mixture", _BERN, W, """
import numpy as np
from scipy.special import logsumexp
def bernoulli_em_iteration(X, weights, means):
    log_joint = np.log(weights) + X @ np.log(means).T + (1 - X) @ np.log(1 - means).T
    resp = np.exp(log_joint - logsumexp(log_joint, axis=1, keepdims=True))
    nk = resp.sum(axis=0)
    return resp, nk, resp.T @ X / nk[:, None]
""", r"soft counts n_k"),
    Case("ex-em-bernoulli-mixture", _BERN, R, """
import numpy as np
from scipy.special import logsumexp
def bernoulli_em_iteration(X, weights, means):
    log_joint = np.log(weights) + X @ np.log(means).T + (1 - X) @ np.log1p(-means).T
    resp = np.exp(log_joint - logsumexp(log_joint, axis=1, keepdims=True))
    nk = resp.sum(axis=0)
    return resp, nk / X.shape[0], (resp.T @ X) / nk[:, None]
""", None),
    Case("ex-em-bernoulli-mixture", _BERN, R, """
import numpy as np
def bernoulli_em_iteration(X, weights, means):
    n, K = X.shape[0], len(weights)
    log_joint = np.zeros((n, K))
    for k in range(K):
        log_joint[:, k] = np.log(weights[k]) + np.where(X == 1, np.log(means[k]), np.log(1 - means[k])).sum(axis=1)
    top = log_joint.max(axis=1, keepdims=True)
    resp = np.exp(log_joint - top)
    resp /= resp.sum(axis=1, keepdims=True)
    nk = resp.sum(axis=0)
    new_means = np.stack([resp[:, k] @ X / nk[k] for k in range(K)])
    return resp, nk / n, new_means
""", None),
    # ------------------------------------------------------------------ ex-em-lagrange-weights
    Case("ex-em-lagrange-weights", _LAG, W, """
import numpy as np
def weight_update(resp, counts):
    return resp.sum(axis=0) / len(resp)
""", r"ignore the counts"),
    Case("ex-em-lagrange-weights", _LAG, W, """
import numpy as np
def weight_update(resp, counts):
    return counts @ resp / len(resp)
""", r"divide by n, the number of distinct rows"),
    Case("ex-em-lagrange-weights", _LAG, W, """
import numpy as np
def weight_update(resp, counts):
    return counts @ resp / resp.shape[1]
""", r"number of components K"),
    Case("ex-em-lagrange-weights", _LAG, W, """
import numpy as np
def weight_update(resp, counts):
    return counts @ resp
""", r"soft counts themselves"),
    Case("ex-em-lagrange-weights", _LAG, W, """
import numpy as np
def weight_update(resp, counts):
    nk = counts @ resp
    return list(nk / counts.sum())
""", r"numpy array"),
    Case("ex-em-lagrange-weights", _LAG, W, """
import numpy as np
def weight_update(resp, counts):
    rows = np.repeat(resp, counts.astype(int), axis=0)       # each row as often as it was seen
    return rows.mean(axis=0)
""", r"whole numbers"),
    Case("ex-em-lagrange-weights", _LAG, R, """
import numpy as np
def weight_update(resp, counts):
    nk = (counts[:, None] * resp).sum(axis=0)
    return nk / nk.sum()
""", None),
    Case("ex-em-lagrange-weights", _LAG, R, """
import numpy as np
def weight_update(resp, counts):
    expanded = np.repeat(resp, counts.astype(int), axis=0) if np.all(counts == np.round(counts)) else None
    if expanded is not None:
        return expanded.mean(axis=0)
    return np.average(resp, axis=0, weights=counts)
""", None),
    # ------------------------------------------------------------------ ex-em-m-step-full
    Case("ex-em-m-step-full", _FULL, W, """
import numpy as np
from lib.mixture import e_step
def em_iteration_full(X, weights, means, covariances):
    resp, _ = e_step(X, weights, means, covariances, "full")
    n, d = X.shape
    nk = resp.sum(axis=0)
    mu = resp.T @ X / nk[:, None]
    covs = np.stack([(resp[:, k, None] * X).T @ X / nk[k] - np.outer(mu[k], mu[k]) for k in range(len(nk))])
    return nk / n, mu, covs
""", r"away from it.*cancellation"),
    Case("ex-em-m-step-full", _FULL, W, """
import numpy as np
from lib.mixture import e_step
def em_iteration_full(X, weights, means, covariances):
    resp, _ = e_step(X, weights, means, covariances, "full")
    n, d = X.shape
    nk = resp.sum(axis=0)
    mu = resp.T @ X / nk[:, None]
    covs = np.stack([(resp[:, k] * (X - means[k]).T) @ (X - means[k]) / nk[k] for k in range(len(nk))])
    return nk / n, mu, covs
""", r"centred at the old means"),
    Case("ex-em-m-step-full", _FULL, W, """
import numpy as np
from lib.mixture import e_step
def em_iteration_full(X, weights, means, covariances):
    resp, _ = e_step(X, weights, means, covariances, "full")
    n, d = X.shape
    nk = resp.sum(axis=0)
    mu = resp.T @ X / nk[:, None]
    covs = np.stack([np.cov(X.T, aweights=resp[:, k]) for k in range(len(nk))])     # unbiased
    return nk / n, mu, covs
""", r"np.cov's unbiased correction"),
    Case("ex-em-m-step-full", _FULL, W, """
import numpy as np
from lib.mixture import e_step
def em_iteration_full(X, weights, means, covariances):
    resp, _ = e_step(X, weights, means, covariances, "full")
    n, d = X.shape
    nk = resp.sum(axis=0)
    mu = resp.T @ X / nk[:, None]
    covs = np.stack([(resp[:, k] * (X - mu[k]).T) @ (X - mu[k]) / n for k in range(len(nk))])
    return nk / n, mu, covs
""", r"covariances divide by n; each component"),
    Case("ex-em-m-step-full", _FULL, W, """
import numpy as np
from lib.mixture import e_step
def em_iteration_full(X, weights, means, covariances):
    resp, _ = e_step(X, weights, means, covariances, "full")
    n, d = X.shape
    nk = resp.sum(axis=0)
    mu = resp.T @ X / nk[:, None]
    covs = np.stack([(resp[:, k] * (X - mu[k]).T) @ (X - mu[k]) / nk[k] + 1e-6 * np.eye(d)
                     for k in range(len(nk))])
    return nk / n, mu, covs
""", r"small ridge"),
    Case("ex-em-m-step-full", _FULL, R, """
import numpy as np
from lib.mixture import e_step
def em_iteration_full(X, weights, means, covariances):
    resp, _ = e_step(X, weights, means, covariances, "full")
    n, d = X.shape
    nk = resp.sum(axis=0)
    mu = resp.T @ X / nk[:, None]
    diff = X[None, :, :] - mu[:, None, :]                       # (K, n, d)
    covs = np.einsum("nk,kni,knj->kij", resp, diff, diff) / nk[:, None, None]
    return nk / n, mu, covs
""", None),
    Case("ex-em-m-step-full", _FULL, R, """
import numpy as np
from lib.mixture import e_step
def em_iteration_full(X, weights, means, covariances):
    resp, _ = e_step(X, weights, means, covariances, "full")
    K = resp.shape[1]
    new_w, new_m, new_c = [], [], []
    for k in range(K):
        r = resp[:, k]
        m = np.average(X, axis=0, weights=r)
        c = np.cov(X.T, aweights=r, bias=True)
        new_w.append(r.mean())
        new_m.append(m)
        new_c.append(c)
    return np.array(new_w), np.array(new_m), np.array(new_c)
""", None),
    # ------------------------------------------------------------------ ex-em-rate
    Case("ex-em-rate", _RATE, W, """
import numpy as np
from lib.mixture import e_step
def em_rate_one_mean(x, weights, means, variances, component):
    resp, _ = e_step(x[:, None], weights, means[:, None], variances, "spherical")
    g, v, r = resp[:, component], variances[component], x - means[component]
    missing = np.sum(g * r ** 2) / v ** 2                   # forgot the (1 - g)
    return float(missing / (g.sum() / v))
""", r"lacks the factor \(1 - gamma_ic\)"),
    Case("ex-em-rate", _RATE, W, """
import numpy as np
from lib.mixture import e_step
def em_rate_one_mean(x, weights, means, variances, component):
    resp, _ = e_step(x[:, None], weights, means[:, None], variances, "spherical")
    g, v, r = resp[:, component], variances[component], x - means[component]
    missing = np.sum(g * (1 - g) * r ** 2) / v ** 2
    complete = g.sum() / v
    return float((complete - missing) / complete)
""", r"1 minus the rate"),
    Case("ex-em-rate", _RATE, W, """
import numpy as np
from lib.mixture import e_step
def em_rate_one_mean(x, weights, means, variances, component):
    resp, _ = e_step(x[:, None], weights, means[:, None], variances, "spherical")
    g, v, r = resp[:, component], variances[component], x - means[component]
    missing = np.sum(g * (1 - g) * r ** 2) / v      # one sigma^2 short
    return float(missing / (g.sum() / v))
""", r"lacks a factor 1 / sigma_c\^2"),
    Case("ex-em-rate", _RATE, W, """
import numpy as np
from lib.mixture import e_step
def em_rate_one_mean(x, weights, means, variances, component):
    resp, _ = e_step(x[:, None], weights, means[:, None], variances, "spherical")
    g, v, r = resp[:, component], variances[component], x - means[component]
    missing = np.sum(g * (1 - g) * r ** 2) / v ** 2
    return float(missing / (len(x) / v))               # complete information of all points
""", r"sums 1 / sigma_c\^2 over all n points"),
    Case("ex-em-rate", _RATE, W, """
import numpy as np
from lib.mixture import e_step
def em_rate_one_mean(x, weights, means, variances, component):
    resp, _ = e_step(x[:, None], weights, means[:, None], variances, "spherical")
    g, v, r = resp[:, component], variances[component], x - means[component]
    missing = np.sum(g * (1 - g) * r ** 2) / v ** 2
    return np.array([missing / (g.sum() / v)])
""", r"numpy array of shape \(1,\).*single number"),
    Case("ex-em-rate", _RATE, R, """
import numpy as np
from lib.mixture import e_step
def em_rate_one_mean(x, weights, means, variances, component):
    resp, _ = e_step(x[:, None], weights, means[:, None], variances, "spherical")
    g = resp[:, component]
    score = (x - means[component]) / variances[component]
    missing = np.sum(g * (1 - g) * score ** 2)
    complete = np.sum(g) / variances[component]
    return float(missing / complete)
""", None),
    Case("ex-em-rate", _RATE, R, """
import numpy as np
from scipy.special import logsumexp
def em_rate_one_mean(x, weights, means, variances, component):
    log_joint = (np.log(weights) - 0.5 * np.log(2 * np.pi * variances)
                 - (x[:, None] - means) ** 2 / (2 * variances))
    g = np.exp(log_joint[:, component] - logsumexp(log_joint, axis=1))
    v = variances[component]
    return float(np.sum(g * (1 - g) * (x - means[component]) ** 2) / (v * np.sum(g)))
""", None),
    # ------------------------------------------------------------------ ex-em-map-covariances
    Case("ex-em-map-covariances", _MAP, W, """
import numpy as np
def map_covariances(X, resp, prior_scale, prior_dof):
    nk = resp.sum(axis=0)
    mu = resp.T @ X / nk[:, None]
    S = np.stack([(resp[:, k] * (X - mu[k]).T) @ (X - mu[k]) for k in range(len(nk))])
    return (prior_scale + S) / (nk + prior_dof)[:, None, None]
""", r"lacks the d \+ 1"),
    Case("ex-em-map-covariances", _MAP, W, """
import numpy as np
def map_covariances(X, resp, prior_scale, prior_dof):
    d = X.shape[1]
    nk = resp.sum(axis=0)
    mu = resp.T @ X / nk[:, None]
    S = np.stack([(resp[:, k] * (X - mu[k]).T) @ (X - mu[k]) for k in range(len(nk))])
    return S / nk[:, None, None] + prior_scale / (nk + prior_dof + d + 1)[:, None, None]
""", r"different numbers"),
    Case("ex-em-map-covariances", _MAP, W, """
import numpy as np
def map_covariances(X, resp, prior_scale, prior_dof):
    d = X.shape[1]
    nk = resp.sum(axis=0)
    S = np.stack([(resp[:, k] * X.T) @ X for k in range(len(nk))])        # about the origin
    return (prior_scale + S) / (nk + prior_dof + d + 1)[:, None, None]
""", r"about the origin"),
    Case("ex-em-map-covariances", _MAP, W, """
import numpy as np
def map_covariances(X, resp, prior_scale, prior_dof):
    nk = resp.sum(axis=0)
    mu = resp.T @ X / nk[:, None]
    S = np.stack([(resp[:, k] * (X - mu[k]).T) @ (X - mu[k]) for k in range(len(nk))])
    return (prior_scale + S) / (nk + prior_dof + 3)[:, None, None]          # d + 1 with d = 2
""", r"kappa \+ 3, right only in d = 2"),
    Case("ex-em-map-covariances", _MAP, W, """
import numpy as np
def map_covariances(X, resp, prior_scale, prior_dof):
    nk = resp.sum(axis=0)
    mu = resp.T @ X / nk[:, None]
    return np.stack([(resp[:, k] * (X - mu[k]).T) @ (X - mu[k]) / nk[k] for k in range(len(nk))])
""", r"maximum-likelihood covariances"),
    Case("ex-em-map-covariances", _MAP, R, """
import numpy as np
def map_covariances(X, resp, prior_scale, prior_dof):
    n, d = X.shape
    nk = resp.sum(axis=0)
    mu = resp.T @ X / nk[:, None]
    diff = X[None] - mu[:, None]                                   # (K, n, d)
    S = np.einsum("nk,kni,knj->kij", resp, diff, diff)
    return (prior_scale[None] + S) / (nk + prior_dof + d + 1)[:, None, None]
""", None),
    Case("ex-em-map-covariances", _MAP, R, """
import numpy as np
def map_covariances(X, resp, prior_scale, prior_dof):
    d = X.shape[1]
    out = []
    for k in range(resp.shape[1]):
        r = resp[:, k]
        m = np.average(X, axis=0, weights=r)
        S = np.cov(X.T, aweights=r, bias=True) * r.sum()
        out.append((prior_scale + S) / (r.sum() + prior_dof + d + 1))
    return np.array(out)
""", None),
    # ------------------------------------------------------------------ ex-em-sums-m-step
    Case("ex-em-sums-m-step", _SUMS, W, """
import numpy as np
def m_step_from_sums(counts, first, second, centres, n_samples):
    delta = first / counts[:, None]
    means = centres + delta
    # back to moments about the origin, then the textbook E[x x^T] - mu mu^T
    raw = (second + np.einsum("ki,kj->kij", centres, first) + np.einsum("ki,kj->kij", first, centres)
           + counts[:, None, None] * np.einsum("ki,kj->kij", centres, centres))
    covs = raw / counts[:, None, None] - np.einsum("ki,kj->kij", means, means)
    return counts / n_samples, means, covs
""", r"away from it.*cancellation"),
    Case("ex-em-sums-m-step", _SUMS, W, """
import numpy as np
def m_step_from_sums(counts, first, second, centres, n_samples):
    delta = first / counts[:, None]
    return counts / n_samples, centres + delta, second / counts[:, None, None]
""", r"subtract.*delta_k delta_k\^T"),
    Case("ex-em-sums-m-step", _SUMS, W, """
import numpy as np
def m_step_from_sums(counts, first, second, centres, n_samples):
    delta = first / counts[:, None]
    covs = second / counts[:, None, None] - np.einsum("ki,kj->kij", delta, delta)
    return counts / n_samples, delta, covs
""", r"add the centre c_k back"),
    Case("ex-em-sums-m-step", _SUMS, W, """
import numpy as np
def m_step_from_sums(counts, first, second, centres, n_samples):
    delta = first / counts[:, None]
    covs = second / counts[:, None, None] + np.einsum("ki,kj->kij", delta, delta)
    return counts / n_samples, centres + delta, covs
""", r"wrong sign"),
    Case("ex-em-sums-m-step", _SUMS, W, """
import numpy as np
def m_step_from_sums(counts, first, second, centres, n_samples):
    delta = first / counts[:, None]
    covs = second / counts[:, None, None] - np.einsum("ki,kj->kij", delta, delta)
    return counts / n_samples, centres + first / n_samples, covs
""", r"divided the sums n_k delta_k \(first\) by n"),
    Case("ex-em-sums-m-step", _SUMS, R, """
import numpy as np
def m_step_from_sums(counts, first, second, centres, n_samples):
    delta = first / counts[:, None]
    covs = second / counts[:, None, None] - delta[:, :, None] * delta[:, None, :]
    return counts / n_samples, centres + delta, covs
""", None),
    Case("ex-em-sums-m-step", _SUMS, R, """
import numpy as np
def m_step_from_sums(counts, first, second, centres, n_samples):
    K, d = first.shape
    weights, means, covs = np.empty(K), np.empty((K, d)), np.empty((K, d, d))
    for k in range(K):
        delta = first[k] / counts[k]
        weights[k] = counts[k] / n_samples
        means[k] = centres[k] + delta
        covs[k] = (second[k] - counts[k] * np.outer(delta, delta)) / counts[k]
    return weights, means, covs
""", None),
    # ------------------------------------------------------------------ ex-em-stepwise
    Case("ex-em-stepwise", _STEP, W, """
import numpy as np
from lib.mixture import e_step
def stepwise_step(stats, X_batch, weights, means, covariances, centre, t, tau):
    resp, _ = e_step(X_batch, weights, means, covariances)
    diff = X_batch - centre
    batch = (resp.mean(axis=0), resp.T @ diff / len(X_batch),
             np.einsum("ik,ia,ib->kab", resp, diff, diff) / len(X_batch))
    eta = (t + 1) ** (-tau)
    return tuple((1 - eta) * s + eta * b for s, b in zip(stats, batch))
""", r"\(t \+ 1\)\^\(-tau\)"),
    Case("ex-em-stepwise", _STEP, W, """
import numpy as np
from lib.mixture import e_step
def stepwise_step(stats, X_batch, weights, means, covariances, centre, t, tau):
    resp, _ = e_step(X_batch, weights, means, covariances)
    diff = X_batch - centre
    batch = (resp.mean(axis=0), resp.T @ diff / len(X_batch),
             np.einsum("ik,ia,ib->kab", resp, diff, diff) / len(X_batch))
    eta = (t + 2) ** (-tau)
    return [(1 - eta) * s + eta * b for s, b in zip(stats, batch)]
""", r"list of length 3.*as a tuple"),
    Case("ex-em-stepwise", _STEP, W, """
import numpy as np
from lib.mixture import e_step
def stepwise_step(stats, X_batch, weights, means, covariances, centre, t, tau):
    resp, _ = e_step(X_batch, weights, means, covariances)
    diff = X_batch - centre
    batch = (resp.sum(axis=0), resp.T @ diff, np.einsum("ik,ia,ib->kab", resp, diff, diff))    # sums
    eta = (t + 2) ** (-tau)
    return tuple((1 - eta) * s + eta * b for s, b in zip(stats, batch))
""", r"minibatch's sums"),
    Case("ex-em-stepwise", _STEP, W, """
import numpy as np
from lib.mixture import e_step
def stepwise_step(stats, X_batch, weights, means, covariances, centre, t, tau):
    resp, _ = e_step(X_batch, weights, means, covariances)
    batch = (resp.mean(axis=0), resp.T @ X_batch / len(X_batch),
             np.einsum("ik,ia,ib->kab", resp, X_batch, X_batch) / len(X_batch))
    eta = (t + 2) ** (-tau)
    return tuple((1 - eta) * s + eta * b for s, b in zip(stats, batch))
""", r"about the origin"),
    Case("ex-em-stepwise", _STEP, W, """
import numpy as np
from lib.mixture import e_step
def stepwise_step(stats, X_batch, weights, means, covariances, centre, t, tau):
    resp, _ = e_step(X_batch, weights, means, covariances)
    diff = X_batch - centre
    batch = (resp.mean(axis=0), resp.T @ diff / len(X_batch),
             np.einsum("ik,ia,ib->kab", resp, diff, diff) / len(X_batch))
    return batch
""", r"replaced the statistics by the minibatch"),
    Case("ex-em-stepwise", _STEP, W, """
import numpy as np
from lib.mixture import e_step
def stepwise_step(stats, X_batch, weights, means, covariances, centre, t, tau):
    resp, _ = e_step(X_batch, weights, means, covariances)
    diff = X_batch - centre
    batch = (resp.mean(axis=0), resp.T @ diff / len(X_batch),
             np.einsum("ik,ia,ib->kab", resp, diff, diff) / len(X_batch))
    eta = (t + 2) ** (-tau)
    return tuple((1 - eta) * b + eta * s for s, b in zip(stats, batch))
""", r"weights are swapped"),
    Case("ex-em-stepwise", _STEP, R, """
import numpy as np
from lib.mixture import e_step
def stepwise_step(stats, X_batch, weights, means, covariances, centre, t, tau):
    resp, _ = e_step(X_batch, weights, means, covariances)
    diff = X_batch - centre
    m = len(X_batch)
    batch = (resp.mean(axis=0), resp.T @ diff / m, np.einsum("ik,ia,ib->kab", resp, diff, diff) / m)
    eta = (t + 2.0) ** (-tau)
    return tuple(s + eta * (b - s) for s, b in zip(stats, batch))
""", None),
    Case("ex-em-stepwise", _STEP, R, """
import numpy as np
from lib.mixture import e_step
def stepwise_step(stats, X_batch, weights, means, covariances, centre, t, tau):
    s0, s1, s2 = stats
    resp, _ = e_step(X_batch, weights, means, covariances, "full")
    K, d = means.shape
    b0, b1, b2 = np.zeros(K), np.zeros((K, d)), np.zeros((K, d, d))
    for x, r in zip(X_batch, resp):
        u = x - centre
        b0 += r
        b1 += r[:, None] * u
        b2 += r[:, None, None] * np.outer(u, u)
    m = len(X_batch)
    eta = 1.0 / (t + 2) ** tau
    return ((1 - eta) * s0 + eta * b0 / m, (1 - eta) * s1 + eta * b1 / m, (1 - eta) * s2 + eta * b2 / m)
""", None),
]
