"""Chapter 3's student mistakes (issue 52): wrong answers as students write them after reading the
pages, each with the words its message must hold, and right answers written differently."""

from tests.mistakes import Case

W, R = "wrong", "right"

_MLE = "lib.checks.ch03.gda_mle"
_POST = "lib.checks.ch03.gda_posterior"
_NP = "lib.checks.ch03.gda_n_params"
_NB = "lib.checks.ch03.naive_bayes_vs_lda"
_LOG = "lib.checks.ch03.lda_logistic"
_FISH = "lib.checks.ch03_fisher.gda_fisher_direction"
_LW = "lib.checks.ch03_fisher.gda_ledoit_wolf"
_COND = "lib.checks.ch03_missing.gda_conditional"

# ex-gda-naive-bayes: the model of the statement, drawn with the generator it receives
_NB_DRAW = """
import numpy as np
from lib.discriminant import GaussianDiscriminantAnalysis
def _draw(rng, rho, m):
    cov = np.array([[1.0, rho], [rho, 1.0]])
    y = rng.integers(0, 2, size=m)
    X = np.column_stack([y.astype(float), np.zeros(m)]) + rng.multivariate_normal([0.0, 0.0], cov, size=m)
    return X, y
"""

CASES = [
    # ------------------------------------------------------------------ ex-gda-mle
    Case("ex-gda-mle", _MLE, W, """
import numpy as np
def gda_mle(X, y):
    K = y.max() + 1
    priors = np.bincount(y) / len(y)
    means = np.stack([X[y == k].mean(axis=0) for k in range(K)])
    covs = np.stack([np.cov(X[y == k].T) for k in range(K)])          # np.cov's default
    resid = X - means[y]
    return priors, means, covs, resid.T @ resid / len(y)
""", r"n_k - 1.*np.cov"),
    Case("ex-gda-mle", _MLE, W, """
import numpy as np
def gda_mle(X, y):
    K = y.max() + 1
    priors = np.bincount(y) / len(y)
    means = np.stack([X[y == k].mean(axis=0) for k in range(K)])
    covs = np.stack([np.cov(X[y == k].T, bias=True) for k in range(K)])
    return priors, means, covs, np.cov(X.T, bias=True)               # pooled = covariance of all X
""", r"TOTAL covariance"),
    Case("ex-gda-mle", _MLE, W, """
import numpy as np
def gda_mle(X, y):
    K = y.max() + 1
    priors = np.bincount(y) / len(y)
    means = np.stack([X[y == k].mean(axis=0) for k in range(K)])
    covs = np.stack([np.cov(X[y == k].T, bias=True) for k in range(K)])
    return priors, means, covs, covs.mean(axis=0)
""", r"plain average of the class covariances"),
    Case("ex-gda-mle", _MLE, W, """
import numpy as np
def gda_mle(X, y):
    K = y.max() + 1
    priors = np.full(K, 1.0 / K)
    means = np.stack([X[y == k].mean(axis=0) for k in range(K)])
    covs = np.stack([np.cov(X[y == k].T, bias=True) for k in range(K)])
    resid = X - means[y]
    return priors, means, covs, resid.T @ resid / len(y)
""", r"priors are uniform"),
    Case("ex-gda-mle", _MLE, W, """
import numpy as np
def gda_mle(X, y):
    K = 2                                                             # two classes, as in the figure
    priors = np.array([np.mean(y == k) for k in range(K)])
    means = np.stack([X[y == k].mean(axis=0) for k in range(K)])
    covs = np.stack([np.cov(X[y == k].T, bias=True) for k in range(K)])
    resid = X - means[y]
    return priors, means, covs, resid.T @ resid / len(y)
""", r"read K from the labels"),
    Case("ex-gda-mle", _MLE, W, """
import numpy as np
def gda_mle(X, y):
    K = y.max() + 1
    priors = np.bincount(y) / len(y)
    means = np.stack([X[y == k].mean(axis=0) for k in range(K)])
    covs = np.stack([X[y == k].T @ X[y == k] / np.sum(y == k) for k in range(K)])
    resid = X - means[y]
    return priors, means, covs, resid.T @ resid / len(y)
""", r"subtract the class mean"),
    Case("ex-gda-mle", _MLE, R, """
import numpy as np
def gda_mle(X, y):
    n, d = X.shape
    classes = np.unique(y)
    priors = np.array([np.mean(y == k) for k in classes])
    means = np.array([X[y == k].mean(axis=0) for k in classes])
    covs = np.array([np.cov(X[y == k], rowvar=False, bias=True).reshape(d, d) for k in classes])
    pooled = np.einsum("k,kij->ij", priors, covs)
    return priors, means, covs, pooled
""", None),
    Case("ex-gda-mle", _MLE, R, """
import numpy as np
def gda_mle(X, y):
    n, d = X.shape
    K = int(y.max()) + 1
    counts = np.bincount(y, minlength=K).astype(float)
    means = np.zeros((K, d))
    np.add.at(means, y, X)
    means /= counts[:, None]
    resid = X - means[y]
    covs = np.zeros((K, d, d))
    np.add.at(covs, y, resid[:, :, None] * resid[:, None, :])
    pooled = covs.sum(axis=0) / n
    return counts / n, means, covs / counts[:, None, None], pooled
""", None),
    # ------------------------------------------------------------------ ex-gda-posterior
    Case("ex-gda-posterior", _POST, W, """
import numpy as np
from scipy.stats import multivariate_normal
def gda_posterior(X, priors, means, covariances):
    joint = np.column_stack([priors[k] * multivariate_normal(means[k], covariances[k]).pdf(X)
                             for k in range(len(priors))]).reshape(len(X), len(priors))
    return joint / joint.sum(axis=1, keepdims=True)
""", r"far from every class mean.*logsumexp"),
    Case("ex-gda-posterior", _POST, W, """
import numpy as np
from scipy.special import logsumexp
from scipy.stats import multivariate_normal
def gda_posterior(X, priors, means, covariances):
    log_dens = np.column_stack([multivariate_normal(means[k], covariances[k]).logpdf(X)
                                for k in range(len(priors))]).reshape(len(X), len(priors))
    return np.exp(log_dens - logsumexp(log_dens, axis=1, keepdims=True))
""", r"ignores the priors"),
    Case("ex-gda-posterior", _POST, W, """
import numpy as np
from scipy.special import logsumexp
def gda_posterior(X, priors, means, covariances):
    cols = []
    for k in range(len(priors)):
        diff = X - means[k]
        quad = np.sum(diff * np.linalg.solve(covariances[k], diff.T).T, axis=1)
        cols.append(np.log(priors[k]) - 0.5 * quad)                   # the constant cancels
    log_joint = np.column_stack(cols)
    return np.exp(log_joint - logsumexp(log_joint, axis=1, keepdims=True))
""", r"dropped the log-determinant"),
    Case("ex-gda-posterior", _POST, W, """
import numpy as np
from scipy.special import logsumexp
from scipy.stats import multivariate_normal
def gda_posterior(X, priors, means, covariances):
    log_joint = np.column_stack([np.log(priors[k]) + multivariate_normal(means[k], covariances[k]).logpdf(X)
                                 for k in range(len(priors))]).reshape(len(X), len(priors))
    return log_joint - logsumexp(log_joint, axis=1, keepdims=True)
""", r"log-probabilities"),
    Case("ex-gda-posterior", _POST, W, """
import numpy as np
from scipy.special import logsumexp
from scipy.stats import multivariate_normal
def gda_posterior(X, priors, means, covariances):
    log_joint = np.column_stack([np.log(priors[k]) + multivariate_normal(means[k], covariances[k]).logpdf(X)
                                 for k in range(len(priors))]).reshape(len(X), len(priors))
    return (np.exp(log_joint - logsumexp(log_joint, axis=1, keepdims=True))).tolist()
""", r"returned a list.*numpy array"),
    Case("ex-gda-posterior", _POST, R, """
import numpy as np
from scipy.special import logsumexp
def gda_posterior(X, priors, means, covariances):
    n, d = X.shape
    log_joint = np.empty((n, len(priors)))
    for k, (m, S) in enumerate(zip(means, covariances)):
        L = np.linalg.cholesky(S)
        z = np.linalg.solve(L, (X - m).T)
        log_joint[:, k] = (np.log(priors[k]) - np.log(np.diag(L)).sum() - 0.5 * (z ** 2).sum(axis=0)
                           - 0.5 * d * np.log(2 * np.pi))
    return np.exp(log_joint - logsumexp(log_joint, axis=1, keepdims=True))
""", None),
    Case("ex-gda-posterior", _POST, R, """
import numpy as np
from scipy.stats import multivariate_normal
def gda_posterior(X, priors, means, covariances):
    a = np.stack([np.log(p) + np.atleast_1d(multivariate_normal(m, S).logpdf(X))
                  for p, m, S in zip(priors, means, covariances)], axis=1)
    a = a - a.max(axis=1, keepdims=True)
    e = np.exp(a)
    return e / e.sum(axis=1, keepdims=True)
""", None),
    # ------------------------------------------------------------------ ex-gda-n-params
    Case("ex-gda-n-params", _NP, W, """
def n_params(d, K, covariance_type):
    cov = {"full": K * d * d, "tied": d * d, "diag": K * d, "spherical": K}[covariance_type]
    return (K - 1) + K * d + cov
""", r"symmetric.*d\(d\+1\)/2"),
    Case("ex-gda-n-params", _NP, W, """
def n_params(d, K, covariance_type):
    cov = {"full": K * d * (d + 1) // 2, "tied": d * (d + 1) // 2, "diag": K * d, "spherical": K}[covariance_type]
    return K + K * d + cov
""", r"only K - 1 priors are free"),
    Case("ex-gda-n-params", _NP, W, """
def n_params(d, K, covariance_type):
    cov = {"full": K * d * (d + 1) / 2, "tied": d * (d + 1) / 2, "diag": K * d, "spherical": K}[covariance_type]
    return (K - 1) + K * d + cov
""", r"float.*integer"),
    Case("ex-gda-n-params", _NP, W, """
import numpy as np
def n_params(d, K, covariance_type):
    cov = {"full": K * d * (d + 1) // 2, "tied": d * (d + 1) // 2, "diag": K * d, "spherical": K}
    return np.int64(K - 1) + K * d + cov[covariance_type]
""", r"numpy integer.*int"),
    Case("ex-gda-n-params", _NP, W, """
def n_params(d, K, covariance_type):
    cov = {"full": K * d * (d + 1) // 2, "tied": K * d * (d + 1) // 2, "diag": K * d, "spherical": K}
    return (K - 1) + K * d + cov[covariance_type]
""", r"'tied' has ONE covariance"),
    Case("ex-gda-n-params", _NP, W, """
def n_params(d, K, covariance_type):
    cov = {"full": K * d * (d + 1) // 2, "tied": d * (d + 1) // 2, "diag": K * d, "spherical": 1}
    return (K - 1) + K * d + cov[covariance_type]
""", r"EACH class its own variance"),
    Case("ex-gda-n-params", _NP, R, """
def n_params(d, K, covariance_type):
    if covariance_type == "full":
        per_class = d * (d + 1) // 2
        shared = 0
    elif covariance_type == "tied":
        per_class, shared = 0, d * (d + 1) // 2
    elif covariance_type == "diag":
        per_class, shared = d, 0
    else:
        per_class, shared = 1, 0
    return (K - 1) + K * (d + per_class) + shared
""", None),
    Case("ex-gda-n-params", _NP, R, """
import numpy as np
def n_params(d, K, covariance_type):
    cov = {"full": K * d * (d + 1) // 2, "tied": d * (d + 1) // 2, "diag": K * d, "spherical": K}
    return int(np.int64(K - 1 + K * d + cov[covariance_type]))
""", None),
    # ------------------------------------------------------------------ ex-gda-naive-bayes
    Case("ex-gda-naive-bayes", _NB, W, _NB_DRAW + """
def naive_bayes_vs_lda(rho, n_train, rng):
    rng = np.random.default_rng(0)                       # reproducible
    X_tr, y_tr = _draw(rng, rho, n_train)
    X_te, y_te = _draw(rng, rho, 20000)
    nb = GaussianDiscriminantAnalysis("diag").fit(X_tr, y_tr)
    lda = GaussianDiscriminantAnalysis("tied").fit(X_tr, y_tr)
    return nb.score(X_te, y_te), lda.score(X_te, y_te)
""", r"ignores its rng"),
    Case("ex-gda-naive-bayes", _NB, W, _NB_DRAW + """
def naive_bayes_vs_lda(rho, n_train, rng):
    X_tr, y_tr = _draw(rng, rho, n_train)
    X_te, y_te = _draw(rng, rho, 20000)
    nb = GaussianDiscriminantAnalysis("diag").fit(X_tr, y_tr)
    lda = GaussianDiscriminantAnalysis("tied").fit(X_tr, y_tr)
    return lda.score(X_te, y_te), nb.score(X_te, y_te)
""", r"swapped"),
    Case("ex-gda-naive-bayes", _NB, W, _NB_DRAW + """
def naive_bayes_vs_lda(rho, n_train, rng):
    X_tr, y_tr = _draw(rng, rho, n_train)
    X_te, y_te = _draw(rng, rho, 20000)
    nb = GaussianDiscriminantAnalysis("diag").fit(X_tr, y_tr)
    lda = GaussianDiscriminantAnalysis("tied").fit(X_tr, y_tr)
    return np.mean(nb.predict(X_te) != y_te), np.mean(lda.predict(X_te) != y_te)
""", r"error rates"),
    Case("ex-gda-naive-bayes", _NB, W, _NB_DRAW + """
def naive_bayes_vs_lda(rho, n_train, rng):
    X_tr, y_tr = _draw(rng, rho, 500)                   # the plot's training size
    X_te, y_te = _draw(rng, rho, 20000)
    nb = GaussianDiscriminantAnalysis("diag").fit(X_tr, y_tr)
    lda = GaussianDiscriminantAnalysis("tied").fit(X_tr, y_tr)
    return nb.score(X_te, y_te), lda.score(X_te, y_te)
""", r"ignores n_train"),
    Case("ex-gda-naive-bayes", _NB, W, _NB_DRAW + """
def naive_bayes_vs_lda(rho, n_train, rng):
    X_tr, y_tr = _draw(rng, rho, n_train)
    X_te, y_te = _draw(rng, rho, 20000)
    nb = GaussianDiscriminantAnalysis("diag").fit(X_tr, y_tr)
    lda = GaussianDiscriminantAnalysis("tied").fit(X_tr, y_tr)
    return [nb.score(X_te, y_te), lda.score(X_te, y_te)]
""", r"list of length 2.*as a tuple"),
    Case("ex-gda-naive-bayes", _NB, R, _NB_DRAW + """
def naive_bayes_vs_lda(rho, n_train, rng):
    X_tr, y_tr = _draw(rng, rho, n_train)
    X_te, y_te = _draw(rng, rho, 20000)
    nb = GaussianDiscriminantAnalysis("diag").fit(X_tr, y_tr)
    lda = GaussianDiscriminantAnalysis("tied").fit(X_tr, y_tr)
    return nb.score(X_te, y_te), lda.score(X_te, y_te)
""", None),
    Case("ex-gda-naive-bayes", _NB, R, """
import numpy as np
from lib.discriminant import GaussianDiscriminantAnalysis
def naive_bayes_vs_lda(rho, n_train, rng, n_test=20000):
    L = np.linalg.cholesky(np.array([[1.0, rho], [rho, 1.0]]))
    def sample(m):
        y = (rng.random(m) < 0.5).astype(int)
        return np.outer(y, [1.0, 0.0]) + rng.standard_normal((m, 2)) @ L.T, y
    X_tr, y_tr = sample(n_train)
    X_te, y_te = sample(n_test)
    accs = []
    for kind in ("diag", "tied"):
        model = GaussianDiscriminantAnalysis(kind).fit(X_tr, y_tr)
        accs.append(float(np.mean(model.predict(X_te) == y_te)))
    return tuple(accs)
""", None),
    # ------------------------------------------------------------------ ex-gda-logistic
    Case("ex-gda-logistic", _LOG, W, """
import numpy as np
def lda_logistic(priors, means, covariance):
    w = np.linalg.solve(covariance, means[1] - means[0])
    b = -0.5 * (means[0] + means[1]) @ w                      # equal priors, as in the example
    return w, float(b)
""", r"missing the log-prior term"),
    Case("ex-gda-logistic", _LOG, W, """
import numpy as np
def lda_logistic(priors, means, covariance):
    w = np.linalg.solve(covariance, means[0] - means[1])
    b = 0.5 * (means[0] + means[1]) @ np.linalg.solve(covariance, means[1] - means[0]) - np.log(priors[1] / priors[0])
    return w, float(b)
""", r"wrong sign"),
    Case("ex-gda-logistic", _LOG, W, """
import numpy as np
def lda_logistic(priors, means, covariance):
    w = np.linalg.solve(covariance, means[1] - means[0])
    b = -0.5 * (means[0] + means[1]) @ w + np.log(priors[0] / priors[1])
    return w, float(b)
""", r"upside down"),
    Case("ex-gda-logistic", _LOG, W, """
import numpy as np
def lda_logistic(priors, means, covariance):
    w = np.linalg.solve(covariance, means[1] - means[0])
    b = -0.5 * (means[1] - means[0]) @ w + np.log(priors[1] / priors[0])
    return w, float(b)
""", r"difference of the means where it needs their sum"),
    Case("ex-gda-logistic", _LOG, W, """
import numpy as np
def lda_logistic(priors, means, covariance):
    w = np.linalg.solve(covariance, means[1] - means[0])
    b = -0.5 * (means[0] + means[1]) @ w + np.log(priors[1:] / priors[:1])     # a (1,) array
    return w, b
""", r"numpy array of shape \(1,\).*single number"),
    Case("ex-gda-logistic", _LOG, R, """
import numpy as np
def lda_logistic(priors, means, covariance):
    a0 = np.linalg.solve(covariance, means[0])
    a1 = np.linalg.solve(covariance, means[1])
    w = a1 - a0
    b = -0.5 * means[1] @ a1 + 0.5 * means[0] @ a0 + np.log(priors[1]) - np.log(priors[0])
    return w, float(b)
""", None),
    Case("ex-gda-logistic", _LOG, R, """
import numpy as np
from scipy.linalg import cho_factor, cho_solve
def lda_logistic(priors, means, covariance):
    c = cho_factor(covariance)
    w = cho_solve(c, means[1] - means[0])
    b = float(np.log(priors[1] / priors[0]) - 0.5 * w @ (means[0] + means[1]))
    return w, b
""", None),
    # ------------------------------------------------------------------ ex-gda-fisher
    Case("ex-gda-fisher", _FISH, W, """
import numpy as np
def fisher_direction(X, y):
    mu0, mu1 = X[y == 0].mean(axis=0), X[y == 1].mean(axis=0)
    w = mu1 - mu0
    return w / np.linalg.norm(w)
""", r"difference of the class means"),
    Case("ex-gda-fisher", _FISH, W, """
import numpy as np
def fisher_direction(X, y):
    mu0, mu1 = X[y == 0].mean(axis=0), X[y == 1].mean(axis=0)
    S = 0.5 * (np.cov(X[y == 0].T, bias=True) + np.cov(X[y == 1].T, bias=True))   # average of the two
    w = np.linalg.solve(S, mu1 - mu0)
    return w / np.linalg.norm(w)
""", r"averaged the class covariances equally"),
    Case("ex-gda-fisher", _FISH, W, """
import numpy as np
def fisher_direction(X, y):
    mu0, mu1 = X[y == 0].mean(axis=0), X[y == 1].mean(axis=0)
    resid = np.where((y == 1)[:, None], X - mu1, X - mu0)
    w = np.linalg.solve(resid.T @ resid / len(y), mu0 - mu1)
    return w / np.linalg.norm(w)
""", r"points the wrong way"),
    Case("ex-gda-fisher", _FISH, W, """
import numpy as np
def fisher_direction(X, y):
    mu0, mu1 = X[y == 0].mean(axis=0), X[y == 1].mean(axis=0)
    resid = np.where((y == 1)[:, None], X - mu1, X - mu0)
    return np.linalg.solve(resid.T @ resid / len(y), mu1 - mu0)
""", r"not of unit length"),
    Case("ex-gda-fisher", _FISH, W, """
import numpy as np
def fisher_direction(X, y):
    mu0, mu1 = X[y == 0].mean(axis=0), X[y == 1].mean(axis=0)
    resid = np.where((y == 1)[:, None], X - mu1, X - mu0)
    w = (resid.T @ resid / len(y)) @ (mu1 - mu0)
    return w / np.linalg.norm(w)
""", r"by Sigma where it needs Sigma\^\{-1\}"),
    Case("ex-gda-fisher", _FISH, R, """
import numpy as np
def fisher_direction(X, y):
    mu = [X[y == k].mean(axis=0) for k in (0, 1)]
    Sw = sum((X[y == k] - mu[k]).T @ (X[y == k] - mu[k]) for k in (0, 1))     # scale does not matter
    w = np.linalg.solve(Sw, mu[1] - mu[0])
    return w / np.sqrt(w @ w)
""", None),
    Case("ex-gda-fisher", _FISH, R, """
import numpy as np
from scipy.linalg import eigh
def fisher_direction(X, y):
    mu0, mu1 = X[y == 0].mean(axis=0), X[y == 1].mean(axis=0)
    resid = np.where((y == 1)[:, None], X - mu1, X - mu0)
    Sigma = resid.T @ resid / len(y)
    diff = mu1 - mu0
    vals, vecs = eigh(np.outer(diff, diff), Sigma)        # S_B w = lambda Sigma w
    w = vecs[:, -1]
    w = w / np.linalg.norm(w)
    return w if w @ diff > 0 else -w
""", None),
    # ------------------------------------------------------------------ ex-gda-ledoit-wolf
    Case("ex-gda-ledoit-wolf", _LW, W, """
import numpy as np
def ledoit_wolf_intensity(X):
    n, d = X.shape
    S = X.T @ X / n                                       # forgot to centre
    zeta2 = np.sum((S - np.trace(S) / d * np.eye(d)) ** 2)
    mse = sum(np.sum((np.outer(x, x) - S) ** 2) for x in X) / n ** 2
    return float(min(mse, zeta2) / zeta2)
""", r"did not centre"),
    Case("ex-gda-ledoit-wolf", _LW, W, """
import numpy as np
def ledoit_wolf_intensity(X):
    n, d = X.shape
    D = X - X.mean(axis=0)
    S = np.cov(X.T)                                       # divides by n - 1
    zeta2 = np.sum((S - np.trace(S) / d * np.eye(d)) ** 2)
    mse = sum(np.sum((np.outer(x, x) - S) ** 2) for x in D) / n ** 2
    return float(min(mse, zeta2) / zeta2)
""", r"n - 1"),
    Case("ex-gda-ledoit-wolf", _LW, W, """
import numpy as np
def ledoit_wolf_intensity(X):
    n, d = X.shape
    D = X - X.mean(axis=0)
    S = D.T @ D / n
    zeta2 = np.sum((S - np.trace(S) / d * np.eye(d)) ** 2)
    mse = sum(np.sum((np.outer(x, x) - S) ** 2) for x in D) / n ** 2
    return float(mse / zeta2)                             # forgot the minimum
""", r"above 1.*minimum"),
    Case("ex-gda-ledoit-wolf", _LW, W, """
import numpy as np
def ledoit_wolf_intensity(X):
    n, d = X.shape
    D = X - X.mean(axis=0)
    S = D.T @ D / n
    zeta2 = np.sum((S - np.trace(S) / d * np.eye(d)) ** 2)
    mse = sum(np.sum((np.outer(x, x) - S) ** 2) for x in D) / n
    return float(min(mse, zeta2) / zeta2)
""", r"divided by n once"),
    Case("ex-gda-ledoit-wolf", _LW, W, """
import numpy as np
def ledoit_wolf_intensity(X):
    n, d = X.shape
    D = X - X.mean(axis=0)
    S = D.T @ D / n
    zeta2 = np.sum((S - np.trace(S) / d * np.eye(d)) ** 2)
    mse = sum(np.sum((np.outer(x, x) - S) ** 2) for x in D) / n ** 2
    return np.array([min(mse, zeta2) / zeta2])
""", r"numpy array of shape \(1,\).*single number"),
    Case("ex-gda-ledoit-wolf", _LW, R, """
import numpy as np
def ledoit_wolf_intensity(X):
    n, d = X.shape
    D = X - X.mean(axis=0)
    S = D.T @ D / n
    mu = np.trace(S) / d
    zeta2 = np.linalg.norm(S - mu * np.eye(d), "fro") ** 2 / d
    sq = (D ** 2).sum(axis=1)
    mse = (np.sum(sq ** 2) - 2 * np.sum((D @ S) * D) + n * np.sum(S ** 2)) / (n ** 2 * d)
    return min(mse, zeta2) / zeta2
""", None),
    Case("ex-gda-ledoit-wolf", _LW, R, """
import numpy as np
def ledoit_wolf_intensity(X):
    n, d = X.shape
    D = X - X.mean(axis=0)
    S = np.cov(D.T, bias=True).reshape(d, d)
    target = np.trace(S) / d * np.eye(d)
    zeta2 = ((S - target) ** 2).sum()
    outer = np.einsum("ni,nj->nij", D, D)
    mse = ((outer - S) ** 2).sum() / n ** 2
    return float(np.clip(mse / zeta2, 0.0, 1.0))
""", None),
    # ------------------------------------------------------------------ ex-gda-conditional
    Case("ex-gda-conditional", _COND, W, """
import numpy as np
def conditional_gaussian(mean, covariance, observed, x_observed):
    o, m = observed, ~observed
    S_oo, S_mo, S_mm = covariance[np.ix_(o, o)], covariance[np.ix_(m, o)], covariance[np.ix_(m, m)]
    cond_mean = mean[m] + S_mo @ np.linalg.solve(S_oo, x_observed)            # forgot mu_o
    return cond_mean, S_mm - S_mo @ np.linalg.solve(S_oo, S_mo.T)
""", r"x_o where it needs the deviation"),
    Case("ex-gda-conditional", _COND, W, """
import numpy as np
def conditional_gaussian(mean, covariance, observed, x_observed):
    o, m = observed, ~observed
    S_oo, S_mo, S_mm = covariance[np.ix_(o, o)], covariance[np.ix_(m, o)], covariance[np.ix_(m, m)]
    cond_mean = mean[m] + S_mo @ np.linalg.solve(S_oo, x_observed - mean[o])
    return cond_mean, S_mm                                                     # uncertainty unchanged
""", r"marginal Sigma_mm"),
    Case("ex-gda-conditional", _COND, W, """
import numpy as np
def conditional_gaussian(mean, covariance, observed, x_observed):
    o, m = observed, ~observed
    S_oo, S_om, S_mm = covariance[np.ix_(o, o)], covariance[np.ix_(o, m)], covariance[np.ix_(m, m)]
    cond_mean = mean[m] + S_om @ np.linalg.solve(S_oo, x_observed - mean[o])  # Sigma_om for Sigma_mo
    return cond_mean, S_mm - S_om.T @ np.linalg.solve(S_oo, S_om)
""", r"cross-covariance in the conditional mean is transposed"),
    Case("ex-gda-conditional", _COND, W, """
import numpy as np
def conditional_gaussian(mean, covariance, observed, x_observed):
    o, m = observed, ~observed
    S_oo, S_mo, S_mm = covariance[np.ix_(o, o)], covariance[np.ix_(m, o)], covariance[np.ix_(m, m)]
    cond_mean = mean[m] - S_mo @ np.linalg.solve(S_oo, x_observed - mean[o])
    return cond_mean, S_mm - S_mo @ np.linalg.solve(S_oo, S_mo.T)
""", r"wrong sign"),
    Case("ex-gda-conditional", _COND, W, """
import numpy as np
def conditional_gaussian(mean, covariance, observed, x_observed):
    o, m = observed, ~observed
    S_oo, S_mo, S_mm = covariance[np.ix_(o, o)], covariance[np.ix_(m, o)], covariance[np.ix_(m, m)]
    cond_mean = mean[m] + S_mo @ np.linalg.solve(S_oo, x_observed - mean[o])
    return cond_mean, S_mm + S_mo @ np.linalg.solve(S_oo, S_mo.T)
""", r"correction to the conditional covariance has the wrong sign"),
    Case("ex-gda-conditional", _COND, R, """
import numpy as np
def conditional_gaussian(mean, covariance, observed, x_observed):
    o = np.flatnonzero(observed)
    m = np.flatnonzero(~observed)
    L = np.linalg.cholesky(covariance[np.ix_(o, o)])
    A = np.linalg.solve(L, covariance[np.ix_(o, m)])            # L^-1 Sigma_om
    r = np.linalg.solve(L, x_observed - mean[o])
    return mean[m] + A.T @ r, covariance[np.ix_(m, m)] - A.T @ A
""", None),
    Case("ex-gda-conditional", _COND, R, """
import numpy as np
def conditional_gaussian(mean, covariance, observed, x_observed):
    o, m = observed, np.logical_not(observed)
    S_oo = covariance[o][:, o]
    S_mo = covariance[m][:, o]
    K = np.linalg.solve(S_oo, S_mo.T).T                          # Sigma_mo Sigma_oo^-1
    return mean[m] + K @ (x_observed - mean[o]), covariance[m][:, m] - K @ S_mo.T
""", None),
]
