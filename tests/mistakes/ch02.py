"""Chapter 2's exercises: answers as students write them after reading the pages (issue 52).

Each wrong answer is a mistake the page warns about or that its statement rules out (underflow of a
product, 0 ln 0, integer division, np.var over the whole array, a K or d read off an example, a list or
an int where the statement asks for an array or a float); each right answer is written differently
from the book's solution.
"""

from tests.mistakes import Case

C = "lib.checks."
CASES = []


def _add(exercise, check, kind, source, expect=None):
    CASES.append(Case(exercise, C + check, kind, source, expect))


# ------------------------------------------------------------------ ex-bernoulli-mle --
E, K = "ex-bernoulli-mle", "ch02.bernoulli_mle"
_add(E, K, "wrong", """
import numpy as np
def bernoulli_mle(x):
    return np.mean(x == 0)
""", r"probability of a 0")
_add(E, K, "wrong", """
def bernoulli_mle(x):
    return x.sum() // len(x)
""", r"int.*float|integer division")
_add(E, K, "wrong", """
import numpy as np
def bernoulli_mle(x):
    return [np.mean(x)]
""", r"returned a list")
_add(E, K, "wrong", """
import numpy as np
def bernoulli_mle(x):
    return np.array(np.sum(x) / len(x))
""", r"0-d")
_add(E, K, "wrong", """
import numpy as np
def bernoulli_mle(x):
    return round(float(np.mean(x)), 2)
""", r"without rounding")
_add(E, K, "wrong", """
import numpy as np
def bernoulli_mle(x):
    return float(np.sum(x) / (len(x) - 1))
""", r"n - 1")
_add(E, K, "wrong", """
def bernoulli_mle(x):
    n1 = 0
    for xi in x:
        n1 += xi
    return float(n1)
""", r"number of ones")
_add(E, K, "right", """
import numpy as np
def bernoulli_mle(x):
    return float(np.mean(x))
""")
_add(E, K, "right", """
def bernoulli_mle(x):
    n1 = int(x.sum())
    return n1 / x.shape[0]
""")
_add(E, K, "right", """
import numpy as np
def bernoulli_mle(x):
    return np.count_nonzero(x) / np.size(x)
""")

# ------------------------------------------------------- ex-bernoulli-log-likelihood --
E, K = "ex-bernoulli-log-likelihood", "ch02.bernoulli_log_likelihood"
_add(E, K, "wrong", """
import numpy as np
def bernoulli_log_likelihood(x, theta):
    return float(np.log(np.prod(theta ** x * (1 - theta) ** (1 - x))))
""", r"underflow")
_add(E, K, "wrong", """
import numpy as np
def bernoulli_log_likelihood(x, theta):
    return np.sum(x * np.log(theta) + (1 - x) * np.log(1 - theta))
""", r"0 \* log\(0\)|0 ln 0")
_add(E, K, "wrong", """
import numpy as np
from scipy.special import xlogy
def bernoulli_log_likelihood(x, theta):
    return float(np.mean(xlogy(x, theta) + xlogy(1 - x, 1 - theta)))
""", r"average per observation")
_add(E, K, "wrong", """
from scipy.special import xlogy
def bernoulli_log_likelihood(x, theta):
    return xlogy(x, theta) + xlogy(1 - x, 1 - theta)
""", r"one term per observation")
_add(E, K, "wrong", """
import numpy as np
from scipy.special import xlogy
def bernoulli_log_likelihood(x, theta):
    return float(np.sum(xlogy(x, 1 - theta) + xlogy(1 - x, theta)))
""", r"swapped")
_add(E, K, "wrong", """
import numpy as np
def bernoulli_log_likelihood(x, theta):
    n1 = x.sum()
    n0 = len(x) - n1
    with np.errstate(divide="ignore"):
        terms = [n1 * np.log10(theta) if n1 else 0.0, n0 * np.log10(1 - theta) if n0 else 0.0]
    return float(sum(terms))
""", r"natural logarithm")
_add(E, K, "wrong", """
import numpy as np
from scipy.special import xlogy
def bernoulli_log_likelihood(x, theta):
    return [float(np.sum(xlogy(x, theta) + xlogy(1 - x, 1 - theta)))]
""", r"returned a list")
_add(E, K, "right", """
import numpy as np
from scipy.special import xlogy
def bernoulli_log_likelihood(x, theta):
    return float(np.sum(xlogy(x, theta) + xlogy(1 - x, 1 - theta)))
""")
_add(E, K, "right", """
import numpy as np
def bernoulli_log_likelihood(x, theta):
    n1 = int(np.sum(x))
    n0 = len(x) - n1
    total = 0.0
    if n1 > 0:
        total += n1 * np.log(theta) if theta > 0 else -np.inf
    if n0 > 0:
        total += n0 * np.log(1 - theta) if theta < 1 else -np.inf
    return float(total)
""")

# ------------------------------------------------------- ex-smoothed-categorical-mle --
E, K = "ex-smoothed-categorical-mle", "ch02.smoothed_categorical_mle"
_add(E, K, "wrong", """
import numpy as np
def smoothed_categorical_mle(counts, alpha):
    seen = counts > 0
    smoothed = counts + alpha * seen
    return smoothed / smoothed.sum()
""", r"seen or not")
_add(E, K, "wrong", """
def smoothed_categorical_mle(counts, alpha):
    return (counts + alpha) / (counts.sum() + alpha)
""", r"N \+ alpha \* V")
_add(E, K, "wrong", """
def smoothed_categorical_mle(counts, alpha):
    total = counts.sum() + alpha * len(counts)
    return [(c + alpha) / total for c in counts]
""", r"returned a list.*numpy array")
_add(E, K, "wrong", """
def smoothed_categorical_mle(counts, alpha):
    return (counts + alpha) // (counts.sum() + alpha * len(counts))
""", r"integer division")
_add(E, K, "wrong", """
def smoothed_categorical_mle(counts, alpha):
    return (counts + alpha) / (counts.sum() + alpha * 4)
""", r"V.*entries of counts|number of entries|len\(counts\)")
_add(E, K, "wrong", """
def smoothed_categorical_mle(counts, alpha):
    return counts + alpha
""", r"pseudo-counts")
_add(E, K, "right", """
import numpy as np
def smoothed_categorical_mle(counts, alpha):
    smoothed = np.asarray(counts, dtype=float) + alpha
    return smoothed / smoothed.sum()
""")
_add(E, K, "right", """
import numpy as np
def smoothed_categorical_mle(counts, alpha):
    N, V = counts.sum(), counts.shape[0]
    omega = alpha * V / (N + alpha * V)
    return (1 - omega) * counts / N + omega * np.full(V, 1 / V)
""")

# ------------------------------------------------------- ex-spherical-gaussian-mle --
E, K = "ex-spherical-gaussian-mle", "ch02.spherical_gaussian_mle"
_add(E, K, "wrong", """
import numpy as np
def spherical_gaussian_mle(X):
    return X.mean(axis=0), float(np.var(X))
""", r"np\.var\(X\) flattens|one grand mean")
_add(E, K, "wrong", """
import numpy as np
def spherical_gaussian_mle(X):
    mu = X.mean(axis=0)
    return mu, float(np.sum((X - mu) ** 2) / X.shape[0])
""", r"divided by n only")
_add(E, K, "wrong", """
import numpy as np
def spherical_gaussian_mle(X):
    mu = np.mean(X, axis=0)
    return list(mu), float(np.mean((X - mu) ** 2))
""", r"returned a list|mean.*numpy array")
_add(E, K, "wrong", """
import numpy as np
def spherical_gaussian_mle(X):
    mu = np.mean(X, axis=0)
    return mu, np.array(np.mean((X - mu) ** 2))
""", r"0-d")
_add(E, K, "wrong", """
import numpy as np
def spherical_gaussian_mle(X):
    mu = X.mean(axis=0)
    return mu, X.var(axis=0)
""", r"one variance per coordinate")
_add(E, K, "wrong", """
import numpy as np
def spherical_gaussian_mle(X):
    return X.mean(axis=0), float(np.var(X, axis=0, ddof=1).mean())
""", r"\(n - 1\) d")
_add(E, K, "wrong", """
import numpy as np
def spherical_gaussian_mle(X):
    n = X.shape[0]
    mu = X.sum(axis=0) / n
    return mu, float(((X - mu) ** 2).sum() / (2 * n))
""", r"X\.shape\[1\]|fixed number")
_add(E, K, "wrong", """
import numpy as np
def spherical_gaussian_mle(X):
    mu = X.mean(axis=0)
    return mu, float(np.mean(X ** 2) - np.mean(mu ** 2))
""", r"far from the origin|cancel")
_add(E, K, "right", """
import numpy as np
def spherical_gaussian_mle(X):
    mu = X.mean(axis=0)
    return mu, float(np.mean((X - mu) ** 2))
""")
_add(E, K, "right", """
import numpy as np
def spherical_gaussian_mle(X):
    n, d = X.shape
    mean = X.sum(axis=0) / n
    sq = sum(float((row - mean) @ (row - mean)) for row in X)
    return mean, sq / (n * d)
""")
_add(E, K, "right", """
import numpy as np
def spherical_gaussian_mle(X):
    return np.mean(X, axis=0), float(np.var(X, axis=0).mean())
""")

# ------------------------------------------------------------------ ex-beta-map --
E, K = "ex-beta-map", "ch02_bayes.beta_bernoulli_map"
_add(E, K, "wrong", """
def beta_bernoulli_map(n1, n, alpha, beta):
    return (n1 + alpha) / (n + alpha + beta)
""", r"posterior mean")
_add(E, K, "wrong", """
def beta_bernoulli_map(n1, n, alpha, beta):
    return (n1 + alpha - 1) / (n + alpha + beta - 1)
""", r"-1 where it needs -2")
_add(E, K, "wrong", """
def beta_bernoulli_map(n1, n, alpha, beta):
    if n == 0:
        return (alpha - 1) / (alpha + beta - 2)
    return n1 / n
""", r"maximum likelihood estimate")
_add(E, K, "wrong", """
def beta_bernoulli_map(n1, n, alpha, beta):
    return (n1 + beta - 1) / (n + alpha + beta - 2)
""", r"swapped")
_add(E, K, "wrong", """
def beta_bernoulli_map(n1, n, alpha, beta):
    if n1 == 0 and alpha == 1:
        return 0
    return (n1 + alpha - 1) / (n + alpha + beta - 2)
""", r"returned an int.*float")
_add(E, K, "wrong", """
import numpy as np
def beta_bernoulli_map(n1, n, alpha, beta):
    return np.array([(n1 + alpha - 1) / (n + alpha + beta - 2)])
""", r"array of shape \(1,\)")
_add(E, K, "right", """
def beta_bernoulli_map(n1, n, alpha, beta):
    return (n1 + alpha - 1) / (n + alpha + beta - 2)
""")
_add(E, K, "right", """
def beta_bernoulli_map(n1, n, alpha, beta):
    a_post, b_post = n1 + alpha, n - n1 + beta   # the posterior Beta(a', b'): its mode
    return float((a_post - 1) / (a_post + b_post - 2))
""")

# -------------------------------------------------------------- ex-dirichlet-map --
E, K = "ex-dirichlet-map", "ch02_bayes.dirichlet_categorical_map"
_add(E, K, "wrong", """
def dirichlet_categorical_map(counts, alpha):
    return (counts + alpha) / (counts.sum() + alpha.sum())
""", r"posterior mean")
_add(E, K, "wrong", """
def dirichlet_categorical_map(counts, alpha):
    c = counts + alpha - 1
    return c / (counts.sum() + alpha.sum() - 1)
""", r"subtracts 1 where it must subtract V")
_add(E, K, "wrong", """
def dirichlet_categorical_map(counts, alpha):
    return counts / counts.sum()
""", r"maximum likelihood estimate")
_add(E, K, "wrong", """
def dirichlet_categorical_map(counts, alpha):
    c = counts + alpha - 1
    return [float(cj) / float(c.sum()) for cj in c]
""", r"returned a list.*numpy array")
_add(E, K, "wrong", """
def dirichlet_categorical_map(counts, alpha):
    c = counts + alpha - 1
    return c / (counts.sum() + alpha.sum() - 4)
""", r"V.*number of outcomes|len\(counts\)|fixed")
_add(E, K, "wrong", """
def dirichlet_categorical_map(counts, alpha):
    alpha -= 1
    alpha += counts
    return alpha / alpha.sum()
""", r"alpha.*(changed|modif)|in place")
_add(E, K, "right", """
def dirichlet_categorical_map(counts, alpha):
    c = counts + alpha - 1
    return c / c.sum()
""")
_add(E, K, "right", """
import numpy as np
def dirichlet_categorical_map(counts, alpha):
    V = len(counts)
    nu = np.sum(counts) + np.sum(alpha) - V   # the Lagrange multiplier
    return (np.asarray(counts, dtype=float) + alpha - 1.0) / nu
""")

# ------------------------------------------------------------- ex-nb-word-log-probs --
E, K = "ex-nb-word-log-probs", "ch02_naive_bayes.nb_word_log_probs"
_add(E, K, "wrong", """
import numpy as np
def nb_word_log_probs(X, y, alpha):
    rows = []
    for k in range(2):
        N = X[y == k].sum(axis=0) + alpha
        rows.append(np.log(N / N.sum()))
    return np.array(rows)
""", r"K.*(fixed|hard)|from y")
_add(E, K, "wrong", """
import numpy as np
def nb_word_log_probs(X, y, alpha):
    K = y.max() + 1
    out = []
    for k in range(K):
        N = X[y == k].sum(axis=0)
        out.append(np.log((N + alpha) / (np.sum(y == k) + alpha * X.shape[1])))
    return np.array(out)
""", r"number of documents")
_add(E, K, "wrong", """
import numpy as np
def nb_word_log_probs(X, y, alpha):
    K = y.max() + 1
    N = np.stack([X[y == k].sum(axis=0) for k in range(K)]) + alpha
    return N / N.sum(axis=1, keepdims=True)
""", r"natural logarithms|returned probabilities")
_add(E, K, "wrong", """
import numpy as np
def nb_word_log_probs(X, y, alpha):
    K = y.max() + 1
    N = np.stack([(X[y == k] > 0).sum(axis=0) for k in range(K)]) + alpha
    return np.log(N / N.sum(axis=1, keepdims=True))
""", r"Bernoulli model")
_add(E, K, "wrong", """
import numpy as np
def nb_word_log_probs(X, y, alpha):
    K = y.max() + 1
    N = np.stack([X[y == k].sum(axis=0) for k in range(K)]) + alpha
    return np.log(N / N.sum(axis=0, keepdims=True))
""", r"normalised over the classes")
_add(E, K, "wrong", """
import numpy as np
def nb_word_log_probs(X, y, alpha):
    K = y.max() + 1
    N = np.stack([X[y == k].sum(axis=0) for k in range(K)])
    return np.log((N + alpha) / N.sum(axis=1, keepdims=True))
""", r"numerator only")
_add(E, K, "right", """
import numpy as np
def nb_word_log_probs(X, y, alpha):
    K = int(y.max()) + 1
    counts = np.zeros((K, X.shape[1]))
    for k in range(K):
        counts[k] = X[y == k].sum(axis=0)
    smoothed = counts + alpha
    with np.errstate(divide="ignore"):
        return np.log(smoothed) - np.log(smoothed.sum(axis=1, keepdims=True))
""")
_add(E, K, "right", """
import numpy as np
def nb_word_log_probs(X, y, alpha):
    classes = np.unique(y)           # every class occurs: 0..K-1
    onehot = (y[:, None] == classes[None, :]).astype(float)
    N = onehot.T @ X + alpha
    with np.errstate(divide="ignore"):
        return np.log(N / N.sum(axis=1)[:, None])
""")

# ------------------------------------------------------------ ex-nb-log-posterior --
E, K = "ex-nb-log-posterior", "ch02_naive_bayes.nb_log_posterior"
_add(E, K, "wrong", """
import numpy as np
def nb_log_posterior(X, log_priors, log_probs):
    joint = np.exp(log_priors) * np.prod(np.exp(log_probs)[None, :, :] ** X[:, None, :], axis=2)
    return np.log(joint / joint.sum(axis=1, keepdims=True))
""", r"underflow")
_add(E, K, "wrong", """
import numpy as np
def nb_log_posterior(X, log_priors, log_probs):
    scores = X @ log_probs.T + log_priors
    p = np.exp(scores - scores.max())
    return np.log(p / p.sum(axis=1, keepdims=True))
""", r"one maximum.*whole array|each row by its own")
_add(E, K, "wrong", """
from scipy.special import logsumexp
def nb_log_posterior(X, log_priors, log_probs):
    scores = X @ log_probs.T
    return scores - logsumexp(scores, axis=1, keepdims=True)
""", r"log prior")
_add(E, K, "wrong", """
def nb_log_posterior(X, log_priors, log_probs):
    return X @ log_probs.T + log_priors
""", r"log joint scores")
_add(E, K, "wrong", """
from scipy.special import logsumexp
def nb_log_posterior(X, log_priors, log_probs):
    scores = X @ log_probs.T + log_priors
    return scores - logsumexp(scores, axis=0, keepdims=True)
""", r"over the documents")
_add(E, K, "wrong", """
from scipy.special import logsumexp
def nb_log_posterior(X, log_priors, log_probs):
    scores = X @ log_probs.T + log_priors
    return (scores - logsumexp(scores, axis=1, keepdims=True)).tolist()
""", r"returned a list.*numpy array")
_add(E, K, "right", """
from scipy.special import logsumexp
def nb_log_posterior(X, log_priors, log_probs):
    scores = X @ log_probs.T + log_priors
    return scores - logsumexp(scores, axis=1, keepdims=True)
""")
_add(E, K, "right", """
import numpy as np
def nb_log_posterior(X, log_priors, log_probs):
    scores = log_priors[None, :] + np.einsum("nv,kv->nk", X, log_probs)
    top = scores.max(axis=1, keepdims=True)
    return scores - top - np.log(np.exp(scores - top).sum(axis=1, keepdims=True))
""")

# ------------------------------------------------- ex-gaussian-max-log-likelihood --
E, K = "ex-gaussian-max-log-likelihood", "ch02_gaussian.gaussian_max_log_likelihood"
_add(E, K, "wrong", """
import numpy as np
def gaussian_max_log_likelihood(X):
    n, d = X.shape
    S = np.cov(X.T, bias=True).reshape(d, d)
    return float(-0.5 * n * (d * np.log(2 * np.pi) + np.linalg.slogdet(S)[1] + 1))
""", r"missing its d")
_add(E, K, "wrong", """
import numpy as np
def gaussian_max_log_likelihood(X):
    n, d = X.shape
    S = np.cov(X.T).reshape(d, d)
    return float(-0.5 * n * (d * np.log(2 * np.pi) + np.linalg.slogdet(S)[1] + d))
""", r"n - 1")
_add(E, K, "wrong", """
import numpy as np
def gaussian_max_log_likelihood(X):
    n, d = X.shape
    S = np.cov(X.T, bias=True).reshape(d, d)
    return float(-0.5 * (d * np.log(2 * np.pi) + np.linalg.slogdet(S)[1] + d))
""", r"average per point")
_add(E, K, "wrong", """
import numpy as np
def gaussian_max_log_likelihood(X):
    n, d = X.shape
    var = X.var(axis=0)
    return float(-0.5 * n * (d * np.log(2 * np.pi) + np.sum(np.log(var)) + d))
""", r"diagonal")
_add(E, K, "wrong", """
import numpy as np
def gaussian_max_log_likelihood(X):
    n, d = X.shape
    S = np.cov(X.T, bias=True).reshape(d, d)
    return -0.5 * n * (d * np.log(2 * np.pi) + np.linalg.slogdet(S)[1] + d) * np.ones(1)
""", r"array of shape \(1,\)")
_add(E, K, "wrong", """
import numpy as np
def gaussian_max_log_likelihood(X):
    n, d = X.shape
    S = np.cov(X.T, bias=True).reshape(d, d)
    return float(-0.5 * n * (2 * np.log(2 * np.pi) + np.linalg.slogdet(S)[1] + 2))
""", r"d.*fixed|X\.shape\[1\]|missing its d")
_add(E, K, "right", """
import numpy as np
def gaussian_max_log_likelihood(X):
    n, d = X.shape
    centred = X - X.mean(axis=0)
    sigma = centred.T @ centred / n
    _, logdet = np.linalg.slogdet(sigma)
    return float(-n / 2 * (d * np.log(2 * np.pi) + logdet + d))
""")
_add(E, K, "right", """
import numpy as np
def gaussian_max_log_likelihood(X):
    n, d = X.shape
    L = np.linalg.cholesky(np.atleast_2d(np.cov(X, rowvar=False, bias=True)))
    logdet = 2 * np.sum(np.log(np.diag(L)))
    return float(-0.5 * n * d * (1 + np.log(2 * np.pi)) - 0.5 * n * logdet)
""")

# ----------------------------------------------------- ex-variance-mse-experiment --
E, K = "ex-variance-mse-experiment", "ch02.variance_mse_experiment"
_add(E, K, "wrong", """
import numpy as np
def variance_mse_experiment(n_values, n_repeats, sigma2, rng):
    rows = []
    for n in n_values:
        x = rng.normal(0.0, sigma2, size=(n_repeats, n))
        mle = x.var(axis=1)
        unb = x.var(axis=1, ddof=1)
        rows.append([mle.mean(), np.mean((mle - sigma2) ** 2), np.mean((unb - sigma2) ** 2)])
    return np.array(rows)
""", r"standard deviation")
_add(E, K, "wrong", """
import numpy as np
def variance_mse_experiment(n_values, n_repeats, sigma2, rng):
    rows = []
    for n in n_values:
        x = rng.normal(0.0, np.sqrt(sigma2), size=(n_repeats, n))
        mle = x.var(axis=1)
        unb = x.var(axis=1, ddof=1)
        rows.append([mle.mean(), np.mean((mle - sigma2) ** 2), np.mean((unb - sigma2) ** 2)])
    return rows
""", r"returned a list.*numpy array")
_add(E, K, "wrong", """
import numpy as np
def variance_mse_experiment(n_values, n_repeats, sigma2, rng):
    rows = []
    for n in n_values:
        x = rng.normal(0.0, np.sqrt(sigma2), size=(n_repeats, n))
        mle = np.mean(x ** 2, axis=1)           # centred at the true mean 0
        unb = x.var(axis=1, ddof=1)
        rows.append([mle.mean(), np.mean((mle - sigma2) ** 2), np.mean((unb - sigma2) ** 2)])
    return np.array(rows)
""", r"unbiased.*sample mean|not at the true mean")
_add(E, K, "wrong", """
import numpy as np
def variance_mse_experiment(n_values, n_repeats, sigma2, rng):
    rows = []
    for n in n_values:
        x = rng.normal(0.0, np.sqrt(sigma2), size=(n_repeats, n))
        mle = x.var(axis=1)
        unb = x.var(axis=1, ddof=1)
        rows.append([mle.mean(), np.var(mle), np.var(unb)])
    return np.array(rows)
""", r"variance of the MLE around its own average")
_add(E, K, "wrong", """
import numpy as np
def variance_mse_experiment(n_values, n_repeats, sigma2, rng):
    rows = []
    for n in n_values:
        x = rng.normal(0.0, np.sqrt(sigma2), size=(n_repeats, n))
        mle = x.var(axis=1)
        unb = x.var(axis=1, ddof=1)
        rows.append([mle.mean(), np.mean((unb - sigma2) ** 2), np.mean((mle - sigma2) ** 2)])
    return np.array(rows)
""", r"swapped")
_add(E, K, "wrong", """
import numpy as np
def variance_mse_experiment(n_values, n_repeats, sigma2, rng):
    n = np.asarray(n_values, dtype=float)
    mse_mle = (2 * n - 1) / n ** 2 * sigma2 ** 2
    mse_unb = 2 / (n - 1) * sigma2 ** 2
    return np.column_stack([(n - 1) / n * sigma2, mse_mle, mse_unb])
""", r"theoretical values|same for every generator|ignores")
_add(E, K, "wrong", """
import numpy as np
def variance_mse_experiment(n_values, n_repeats, sigma2, rng):
    rng = np.random.default_rng(0)
    rows = []
    for n in n_values:
        x = rng.normal(0.0, np.sqrt(sigma2), size=(n_repeats, n))
        mle = x.var(axis=1)
        unb = x.var(axis=1, ddof=1)
        rows.append([mle.mean(), np.mean((mle - sigma2) ** 2), np.mean((unb - sigma2) ** 2)])
    return np.array(rows)
""", r"ignores the generator rng")
_add(E, K, "right", """
import numpy as np
def variance_mse_experiment(n_values, n_repeats, sigma2, rng):
    table = np.empty((len(n_values), 3))
    for i, n in enumerate(n_values):
        x = rng.normal(0.0, np.sqrt(sigma2), size=(n_repeats, n))
        q = ((x - x.mean(axis=1, keepdims=True)) ** 2).sum(axis=1)
        mle, unbiased = q / n, q / (n - 1)
        table[i] = mle.mean(), ((mle - sigma2) ** 2).mean(), ((unbiased - sigma2) ** 2).mean()
    return table
""")
_add(E, K, "right", """
import numpy as np
def variance_mse_experiment(n_values, n_repeats, sigma2, rng):
    averages, mse_mle, mse_unbiased = [], [], []
    for n in n_values:
        samples = np.sqrt(sigma2) * rng.standard_normal((n_repeats, n))
        mle = np.var(samples, axis=1)
        unbiased = mle * n / (n - 1)
        averages.append(mle.mean())
        mse_mle.append(np.mean((mle - sigma2) ** 2))
        mse_unbiased.append(np.mean((unbiased - sigma2) ** 2))
    return np.column_stack([averages, mse_mle, mse_unbiased])
""")

# ------------------------------------------------------------ ex-gaussian-kl-value --
E, K = "ex-gaussian-kl-value", "ch02.gaussian_kl_value"
_PQ = "mu0, var0, mu1, var1 = kl_variant.mu0, kl_variant.var0, kl_variant.mu1, kl_variant.var1\n"
_add(E, K, "wrong", _PQ + """
import numpy as np
answer = 0.5 * np.log(var0 / var1) + (var1 + (mu1 - mu0) ** 2) / (2 * var0) - 0.5
""", r"KL\(q \|\| p\)")
_add(E, K, "wrong", _PQ + """
import numpy as np
answer = np.log(np.sqrt(var1) / np.sqrt(var0)) + (var0 + (mu0 - mu1) ** 2) / (2 * var1)
""", r"missing the constant -1/2")
_add(E, K, "wrong", _PQ + """
import numpy as np
answer = np.log(var1 / var0) + (var0 ** 2 + (mu0 - mu1) ** 2) / (2 * var1 ** 2) - 0.5
""", r"variances as standard deviations")
_add(E, K, "wrong", """
answer = 1.2216   # worked out by hand for p = N(1, 2), q = N(-2, 4)
""", r"book's p.*not for your variant")
_add(E, K, "wrong", _PQ + """
import numpy as np
answer = round(0.5 * np.log(var1 / var0) + (var0 + (mu0 - mu1) ** 2) / (2 * var1) - 0.5, 2)
""", r"4 decimals")
_add(E, K, "wrong", _PQ + """
import numpy as np
answer = [0.5 * np.log(var1 / var0) + (var0 + (mu0 - mu1) ** 2) / (2 * var1) - 0.5]
""", r"returned a list|a list")
_add(E, K, "right", _PQ + """
import math
answer = math.log(math.sqrt(var1 / var0)) + (var0 + (mu0 - mu1) ** 2) / (2 * var1) - 0.5
""")
_add(E, K, "right", _PQ + """
import numpy as np
s0, s1 = np.sqrt(var0), np.sqrt(var1)
answer = float(np.log(s1 / s0) + var0 / (2 * var1) + (mu0 - mu1) ** 2 / (2 * var1) - 1 / 2)
""")
_add(E, K, "wrong", _PQ + """
import numpy as np
answer = round(0.5 * np.log(var1 / var0) + (var0 + (mu0 - mu1) ** 2) / (2 * var1) - 0.5, 3)
""", r"at least 4 decimals.*not to 3")
