"""Checks for the exercises of chapter 3, Gaussian discriminant analysis.

Each check compares the student's function with :mod:`lib.discriminant` on
generated inputs and names the first mistake it recognises.
"""

import numpy as np

from ._core import check_rng  # every input a check draws: salted while the grader judges (issue 49)
from scipy.special import logsumexp
from scipy.stats import norm

from .. import discriminant
from ._core import (Failure, call, check, expect_array, expect_count, expect_ndarray, expect_number, expect_tuple,
                    refuse_container)

__all__ = ["gda_mle", "gda_posterior", "lda_logistic", "gda_n_params", "naive_bayes_vs_lda"]


def _close(a, b, rtol=1e-6, atol=1e-9):
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    return a.shape == b.shape and bool(np.allclose(a, b, rtol=rtol, atol=atol))


def _labelled_data(rng, sizes, d):
    """Gaussian classes with random means and covariances; labels 0..K-1, shuffled."""
    X, y = [], []
    for k, n_k in enumerate(sizes):
        A = rng.normal(size=(d, d))
        X.append(3 * rng.normal(size=d) + rng.normal(size=(n_k, d)) @ A)
        y.append(np.full(n_k, k))
    X, y = np.vstack(X), np.concatenate(y)
    order = rng.permutation(len(y))
    return X[order], y[order]


def _spd(rng, d):
    A = rng.normal(size=(d, d))
    return A @ A.T + 0.5 * np.eye(d)


def _array(value, shape, what, name, nan_hint, ndarray=False):
    """:func:`expect_array` with a NaN/inf message that fits this exercise (``nan_hint``); ``ndarray``:
    the statement asks for a numpy array, and a list is refused (:func:`expect_ndarray`)."""
    try:
        arr = np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError):
        arr = None
    if arr is not None and arr.shape == tuple(shape) and not np.all(np.isfinite(arr)):
        raise Failure(f"{name} returned NaN or an infinite value in {what}: {nan_hint}")
    return (expect_ndarray if ndarray else expect_array)(value, shape, what, name=name)


def _gaussian_terms(X, means, covs):
    """Per-class log-determinants (K,) and Mahalanobis forms (n, K), for naming mistakes."""
    logdet = np.array([np.linalg.slogdet(c)[1] for c in covs])
    quad = np.column_stack([np.sum((X - m) * np.linalg.solve(c, (X - m).T).T, axis=1) for m, c in zip(means, covs)])
    return logdet, quad


def _normalise(log_joint):
    return np.exp(log_joint - logsumexp(log_joint, axis=1, keepdims=True))




# ------------------------------------------------------------ ex-gda-mle --


@check(
    "ex-gda-mle",
    "priors, class means, class covariances and the pooled covariance match the maximum-likelihood "
    "estimates (numpy arrays) on 4 labelled data sets (2 and 3 classes, equal and unequal class sizes, 2 and 3 "
    "features).",
    solves=("lib.discriminant.fit_class_gaussians", "lib.discriminant.class_gaussians",
            "lib.mle.gaussian_mle"),
    allow=(),
)
def gda_mle(student_fn):
    rng = check_rng(301)
    cases = [((30, 30), 2), ((40, 15, 25), 2), ((12, 50), 3), ((20, 35, 9), 3)]
    for sizes, d in cases:
        X, y = _labelled_data(rng, sizes, d)
        K, n = len(sizes), len(y)
        counts = np.array(sizes, dtype=float)
        unequal = len(set(sizes)) > 1
        try:
            out = call(student_fn, X, y, name="gda_mle")
        except Failure as failure:
            if K > 2 and "raised an exception" in str(failure):  # the first data set has 2 classes
                raise Failure(f"{failure} It failed on labels with {K} classes (0 to {K - 1}) after passing "
                              "two: read K from the labels, K = y.max() + 1, not from an example.") from None
            raise
        out = expect_tuple(out, 4, "(priors, means, covariances, pooled)", name="gda_mle")
        if np.ndim(out[0]) == 1 and np.shape(out[0])[0] != K and np.shape(out[1])[:1] == np.shape(out[0]):
            raise Failure(f"gda_mle returned {np.shape(out[0])[0]} priors for labels with {K} classes "
                          f"(0 to {K - 1}): read K from the labels, K = y.max() + 1, not from an example.")
        nan_hint = ("usually a class with no rows (a mean over zero rows is NaN) or a division by a zero "
                    "count; the labels run from 0 to K - 1 and every class is present.")
        priors = _array(out[0], (K,), "the priors", "gda_mle", nan_hint, ndarray=True)
        means = _array(out[1], (K, d), "the class means", "gda_mle", nan_hint, ndarray=True)
        covs = _array(out[2], (K, d, d), "the class covariances", "gda_mle", nan_hint, ndarray=True)
        pooled = _array(out[3], (d, d), "the pooled covariance", "gda_mle", nan_hint, ndarray=True)
        ref_priors, ref_means, ref_covs = discriminant.fit_class_gaussians(X, y, "full")
        _, _, ref_pooled = discriminant.fit_class_gaussians(X, y, "tied")

        if not _close(priors, ref_priors):
            if _close(priors, counts):
                raise Failure("your priors are the class counts n_k: divide them by n so that they sum to one.")
            if unequal and _close(priors, np.full(K, 1.0 / K)):
                raise Failure(
                    "your priors are uniform (1/K). That is right only when all classes have the same "
                    "size; the MLE is the class frequency n_k / n."
                )
            if _close(priors, counts / (n - 1)):
                raise Failure("your priors divide the class counts by n - 1; the MLE n_k / n divides by n "
                              "(the priors sum to one).")
            if _close(priors, ref_priors[::-1]) and K == 2:
                raise Failure("your priors are in the wrong order: priors[k] belongs to the class labelled k.")
            raise Failure("the priors are not the class frequencies n_k / n (count the labels equal to k).")
        if not _close(means, ref_means):
            if _close(means, np.broadcast_to(X.mean(axis=0), means.shape)):
                raise Failure("every class mean equals the overall mean of X: average only the rows of class k.")
            if means.shape[0] == means.shape[1] and _close(means, ref_means.T):
                raise Failure("your means look transposed: means[k] must be the mean vector of class k (a row).")
            raise Failure("the class means are wrong: means[k] is the average of the rows x_i with y_i = k.")
        if not _close(covs, ref_covs):
            if _close(covs, ref_covs * (counts / (counts - 1))[:, None, None]):
                raise Failure(
                    "your class covariances divide by n_k - 1 (np.cov's default), but the maximum-likelihood "
                    "estimate divides by n_k: use np.cov(..., bias=True) or divide the scatter by n_k."
                )
            if _close(np.moveaxis(covs, 2, 0), ref_covs):
                raise Failure(
                    "your class covariances are stacked along the last axis (shape (d, d, K)); "
                    "covariances[k] must be the d x d matrix of class k, e.g. np.stack([...]) over k."
                )
            if _close(covs, np.broadcast_to(np.cov(X.T, bias=True), covs.shape)):
                raise Failure("every class covariance is the covariance of all of X: use only the rows of class k.")
            uncentred = np.stack([X[y == k].T @ X[y == k] / counts[k] for k in range(K)])
            if _close(covs, uncentred):
                raise Failure("you forgot to subtract the class mean before forming (x_i - mu_k)(x_i - mu_k)^T.")
            raise Failure(
                "the class covariances do not match the MLE (1/n_k) sum_{i: y_i = k} (x_i - mu_k)(x_i - mu_k)^T."
            )
        if not _close(pooled, ref_pooled):
            if _close(pooled, np.cov(X.T, bias=True)) or _close(pooled, np.cov(X.T)):
                raise Failure(
                    "your pooled covariance is the TOTAL covariance of X (around the overall mean). LDA pools "
                    "the WITHIN-class deviations x_i - mu_{y_i}, each centred at its own class mean."
                )
            if unequal and _close(pooled, ref_covs.mean(axis=0)):
                raise Failure(
                    "your pooled covariance is the plain average of the class covariances; with unequal class "
                    "sizes the MLE weights class k by n_k / n."
                )
            if _close(pooled, ref_pooled * n / (n - K)):
                raise Failure(
                    "your pooled covariance divides by n - K (the unbiased estimate); the MLE divides by n."
                )
            if _close(pooled, ref_pooled * n / (n - 1)):
                raise Failure("your pooled covariance divides by n - 1; the MLE divides the within-class "
                              "scatter by n.")
            if _close(pooled, ref_pooled * n):
                raise Failure("your pooled covariance is the within-class scatter: divide it by n.")
            if _close(pooled, ref_covs.sum(axis=0)):
                raise Failure(
                    "your pooled covariance is the sum of the class covariances; weight class k by n_k / n "
                    "(the weights sum to one)."
                )
            raise Failure(
                "the pooled covariance does not match the MLE (1/n) sum_i (x_i - mu_{y_i})(x_i - mu_{y_i})^T."
            )


# ------------------------------------------------------ ex-gda-posterior --


@check(
    "ex-gda-posterior",
    "posterior probabilities match Bayes' rule on 5 inputs (equal and unequal priors, 2 and 3 classes, "
    "1 to 3 features), including points so far from every mean that all densities underflow to 0.",
    solves=("lib.discriminant.posterior", "lib.discriminant.log_posterior",
            "lib.discriminant.log_joint", "lib.discriminant.log_posterior_observed",
            "lib.mixture.e_step"),
    allow=("scipy.special.logsumexp", "scipy.stats.multivariate_normal",
           "scipy.stats._multivariate.multivariate_normal_frozen"),  # the page teaches its logpdf
)
def gda_posterior(student_fn):
    rng = check_rng(302)
    cases = [  # (priors, n_features, how far the points are)
        (np.array([0.5, 0.5]), 2, 1.0),
        (np.array([0.7, 0.2, 0.1]), 2, 1.0),
        (np.array([0.15, 0.85]), 3, 1.0),
        (np.array([0.3, 0.3, 0.4]), 2, 60.0),
        (np.array([0.4, 0.6]), 1, 1.0),  # one feature: variances and standard deviations differ visibly
    ]
    for priors, d, spread in cases:
        K = priors.shape[0]
        means = 2.0 * rng.normal(size=(K, d))
        covs = np.stack([_spd(rng, d) for _ in range(K)])
        X = spread * 3.0 * rng.normal(size=(12, d))
        out = call(student_fn, X, priors, means, covs, name="gda_posterior")
        refuse_container(out, (12, K), "the posteriors", name="gda_posterior")
        try:
            got = np.asarray(out, dtype=np.float64)
        except (TypeError, ValueError):
            raise Failure(f"gda_posterior should return a numeric array of shape {(12, K)}, got a {type(out).__name__}.")
        if got.shape != (12, K):
            hint = ""
            if got.shape == (K, 12):
                hint = " It looks transposed."
            elif got.shape == (12,):
                hint = (" You returned one number per point (the predicted class?); return the whole "
                        "probability vector of each point.")
            raise Failure(f"gda_posterior should return an array of shape (n_samples, K) = {(12, K)}, got {got.shape}.{hint}")
        log_joint = discriminant.log_joint(X, priors, means, covs, "full")
        ref_log = log_joint - logsumexp(log_joint, axis=1, keepdims=True)
        ref = np.exp(ref_log)
        if not np.all(np.isfinite(got)):
            if spread > 1:
                raise Failure(
                    "your function returns NaN (or inf) for points far from every class mean: each density "
                    "exp(log N) underflows to 0 there, and 0/0 = NaN. Stay in log space: compute "
                    "log pi_k + log N(x | mu_k, Sigma_k), subtract scipy.special.logsumexp over k, then exponentiate."
                )
            raise Failure("gda_posterior returned NaN or inf on ordinary points; look for a log of 0 or a division by 0.")
        if _close(got, ref, rtol=1e-6, atol=1e-8):
            continue
        if _close(got, ref_log, rtol=1e-6, atol=1e-8):
            raise Failure("you returned log-probabilities: exponentiate them (np.exp) to get probabilities.")
        if not np.allclose(got.sum(axis=1), 1.0, atol=1e-6):
            if _close(got, np.exp(log_joint), rtol=1e-6, atol=1e-300):
                raise Failure(
                    "the rows do not sum to one: you returned the joint densities pi_k N(x | mu_k, Sigma_k). "
                    "Divide by p(x), their sum over k (in log space: subtract logsumexp)."
                )
            raise Failure("the rows do not sum to one: the posterior of each point is a probability vector over k.")
        flat = discriminant.log_joint(X, np.full(K, 1.0 / K), means, covs, "full")
        if _close(got, np.exp(flat - logsumexp(flat, axis=1, keepdims=True)), rtol=1e-6, atol=1e-8):
            raise Failure(
                "your posterior ignores the priors (it would be right only if all pi_k were equal): "
                "add log pi_k to each class's log density before normalising."
            )
        logdet, quad = _gaussian_terms(X, means, covs)
        log_pi = np.log(priors)
        if _close(got, _normalise(log_pi - 0.5 * quad), rtol=1e-6, atol=1e-8):
            raise Failure(
                "you dropped the log-determinant term -1/2 ln det Sigma_k. It differs between classes with "
                "different covariances, so it does not cancel in Bayes' rule."
            )
        if _close(got, _normalise(log_pi - 0.5 * logdet - quad), rtol=1e-6, atol=1e-8):
            raise Failure(
                "the quadratic form is missing its factor 1/2: ln N(x | mu, Sigma) contains "
                "-1/2 (x - mu)^T Sigma^{-1} (x - mu)."
            )
        if _close(got, _normalise(log_pi + 0.5 * logdet - 0.5 * quad), rtol=1e-6, atol=1e-8):
            raise Failure(
                "the log-determinant term has the wrong sign: ln N(x | mu, Sigma) contains -1/2 ln det Sigma "
                "(the density's normalising constant divides by det(Sigma)^{1/2})."
            )
        if d == 1:
            var = covs[:, 0, 0]
            as_sd = np.column_stack([norm.logpdf(X[:, 0], means[k, 0], var[k]) for k in range(K)])
            if _close(got, _normalise(log_pi + as_sd), rtol=1e-6, atol=1e-8):
                raise Failure(
                    "with one feature you passed the variance Sigma_k where a standard deviation is expected "
                    "(scipy.stats.norm's scale is the standard deviation, the square root of the variance)."
                )
        with_cov = np.column_stack([np.sum((X - m) * ((X - m) @ c), axis=1) for m, c in zip(means, covs)])
        if _close(got, _normalise(log_pi - 0.5 * logdet - 0.5 * with_cov), rtol=1e-6, atol=1e-8):
            raise Failure(
                "the quadratic form uses Sigma instead of its inverse: it is (x - mu)^T Sigma^{-1} (x - mu) "
                "(solve a linear system, or use scipy.stats.multivariate_normal)."
            )
        raise Failure(
            "the posteriors do not match Bayes' rule p(k | x) = pi_k N(x | mu_k, Sigma_k) / sum_l pi_l N(x | mu_l, Sigma_l); "
            "check the log-determinant and the quadratic form of the Gaussian log density."
        )


# ---------------------------------------------------------- ex-gda-logistic --


@check(
    "ex-gda-logistic",
    "w and b match the logistic form of the shared-covariance posterior for 4 parameter sets "
    "(1 to 3 features, equal and unequal priors).",
    solves=("lib.discriminant.logistic_parameters", "lib.discriminant.discriminant_directions"),
    allow=(),
)
def lda_logistic(student_fn):
    rng = check_rng(303)
    cases = [(np.array([0.5, 0.5]), 2), (np.array([0.8, 0.2]), 2), (np.array([0.35, 0.65]), 3), (np.array([0.1, 0.9]), 1)]
    for priors, d in cases:
        means = 2.0 * rng.normal(size=(2, d))
        cov = _spd(rng, d)
        out = expect_tuple(call(student_fn, priors, means, cov, name="lda_logistic"), 2, "(w, b)", name="lda_logistic")
        if d > 1 and np.size(out[0]) == 1 and np.size(out[1]) == d:
            raise Failure("lda_logistic returned (b, w); return them in the order (w, b).")
        nan_hint = "look for a division by zero, or a log of a non-positive prior ratio."
        w = _array(np.ravel(out[0]) if np.size(out[0]) == d else out[0], (d,), "w", "lda_logistic", nan_hint)
        b = expect_number(out[1], "b", name="lda_logistic")
        w_ref, b_ref = discriminant.logistic_parameters(priors, means, cov)
        log_ratio = float(np.log(priors[1] / priors[0]))
        if not _close(w, w_ref):
            if _close(w, -w_ref):
                raise Failure(
                    "w has the wrong sign: p(y = 1 | x) must grow as x moves from mu_0 towards mu_1, "
                    "so w = Sigma^{-1} (mu_1 - mu_0)."
                )
            if _close(w, means[1] - means[0]) or _close(w, cov @ (means[1] - means[0])):
                raise Failure("w must be Sigma^{-1} (mu_1 - mu_0): solve a linear system with Sigma.")
            raise Failure("w is not Sigma^{-1} (mu_1 - mu_0).")
        if np.isclose(b, b_ref, rtol=1e-6, atol=1e-9):
            continue
        if abs(log_ratio) > 1e-9 and np.isclose(b, b_ref - log_ratio, rtol=1e-6, atol=1e-9):
            raise Failure(
                "b is missing the log-prior term: with unequal priors, b contains ln(pi_1 / pi_0) "
                "(it vanishes only when pi_0 = pi_1)."
            )
        if abs(log_ratio) > 1e-9 and np.isclose(b, b_ref - 2 * log_ratio, rtol=1e-6, atol=1e-9):
            raise Failure("the log-prior term in b is upside down: it is ln(pi_1 / pi_0), not ln(pi_0 / pi_1).")
        if np.isclose(b, -0.5 * float((means[1] - means[0]) @ w_ref) + log_ratio, rtol=1e-6, atol=1e-9):
            raise Failure(
                "b uses the difference of the means where it needs their sum: "
                "b = -1/2 (mu_0 + mu_1)^T w + ln(pi_1 / pi_0), so the boundary passes near the midpoint."
            )
        if np.isclose(b, -(b_ref - log_ratio) + log_ratio, rtol=1e-6, atol=1e-9):
            raise Failure(
                "the quadratic terms of b have the wrong signs: b = -1/2 mu_1^T Sigma^{-1} mu_1 "
                "+ 1/2 mu_0^T Sigma^{-1} mu_0 + ln(pi_1 / pi_0)."
            )
        raise Failure("w is right but b is not; expand both quadratic forms in the log-odds and collect the constant terms.")


# ---------------------------------------------------------- ex-gda-n-params --


@check(
    "ex-gda-n-params",
    "the parameter counts (integers) of all four covariance types match the formula for 6 values of (d, K).",
    solves=("lib.discriminant.n_parameters",),
    allow=(),
)
def gda_n_params(student_fn):
    for d, K in [(1, 2), (2, 3), (4, 3), (5, 2), (10, 4), (3, 7)]:
        for covariance_type in ("full", "tied", "diag", "spherical"):
            out = call(student_fn, d, K, covariance_type, name="n_params")
            if isinstance(out, np.integer):
                raise Failure(f"n_params returned a numpy integer ({type(out).__name__}); the statement asks for "
                              "an int: build the count with Python arithmetic, or return int(...).")
            got = expect_count(out, f"the number of parameters for covariance_type={covariance_type!r}",
                               name="n_params")
            want = discriminant.n_parameters(d, K, covariance_type)
            if got == want:
                continue
            where = f"(d={d}, K={K}, covariance_type={covariance_type!r})"
            # mistakes about one covariance type first: for some (d, K) their counts coincide with
            # the generic slips below (e.g. K - 1 = K d - d when d = 1 and K = 2)
            if covariance_type == "tied" and got == discriminant.n_parameters(d, K, "full"):
                raise Failure(f"{where}: 'tied' has ONE covariance matrix shared by all K classes.")
            if covariance_type == "diag" and got == want - (K - 1) * d:
                raise Failure(f"{where}: 'diag' gives EACH class its own d variances, K d in all.")
            if covariance_type == "spherical" and got == want - (K - 1):
                raise Failure(f"{where}: 'spherical' gives EACH class its own variance sigma_k^2, K in all.")
            if covariance_type == "spherical" and got == want - K + K * d:
                raise Failure(f"{where}: a spherical covariance sigma_k^2 I has one free number per class, not d.")
            if got == want - (K - 1):
                raise Failure(f"{where}: you left out the class priors; they add K - 1 free parameters.")
            if got == want + 1:
                raise Failure(f"{where}: only K - 1 priors are free, because they sum to one.")
            if covariance_type == "full" and got == want + K * d * (d - 1) // 2:
                raise Failure(
                    f"{where}: a covariance matrix is symmetric, so it has d(d+1)/2 free entries, not d^2."
                )
            if covariance_type == "tied" and got == want + d * (d - 1) // 2:
                raise Failure(f"{where}: the shared covariance is symmetric: d(d+1)/2 free entries, not d^2.")
            if got == want - K * d:
                raise Failure(f"{where}: you left out the class means (d numbers per class).")
            raise Failure(f"{where}: the count is wrong; add priors, means and covariance entries separately.")


# ---------------------------------------------------- ex-gda-naive-bayes --


def _theory_accuracies(rho, delta=1.0):
    """Bayes accuracy (= asymptotic LDA) and the asymptotic accuracy of the axis-aligned rule."""
    lda = norm.cdf(0.5 * delta / np.sqrt(1.0 - rho**2))
    nb = norm.cdf(0.5 * delta)
    return lda, nb


@check(
    "ex-gda-naive-bayes",
    "both accuracies lie in [0, 1], are reproducible for a fixed seed, change with the seed and follow "
    "n_train and n_test, and with 2000 training points are within 0.03 of their large-sample values for "
    "rho = 0 and rho = 0.9.",
    allow=("lib.discriminant.GaussianDiscriminantAnalysis",),
)
def naive_bayes_vs_lda(student_fn):
    for rho in (0.0, 0.9):
        out = expect_tuple(call(student_fn, rho, 2000, check_rng(5), name="naive_bayes_vs_lda"),
                           2, "(accuracy_nb, accuracy_lda)", name="naive_bayes_vs_lda", tuple_only=True)
        acc_nb = expect_number(out[0], "accuracy_nb", name="naive_bayes_vs_lda")
        acc_lda = expect_number(out[1], "accuracy_lda", name="naive_bayes_vs_lda")
        if not (0.0 <= acc_nb <= 1.0 and 0.0 <= acc_lda <= 1.0):
            raise Failure("accuracies must lie between 0 and 1: the fraction of test points classified correctly.")
        again = call(student_fn, rho, 2000, check_rng(5), name="naive_bayes_vs_lda")
        if not (np.isclose(float(again[0]), acc_nb) and np.isclose(float(again[1]), acc_lda)):
            raise Failure("two runs with the same seed give different results: draw every random number from rng.")
        other = call(student_fn, rho, 2000, check_rng(6), name="naive_bayes_vs_lda")
        if float(other[0]) == acc_nb and float(other[1]) == acc_lda:
            raise Failure(
                "two different generators give exactly the same accuracies: your function ignores its rng "
                "argument. Draw the training and test sets with the rng you receive."
            )
        lda_inf, nb_inf = _theory_accuracies(rho)
        if rho > 0 and abs(acc_nb - lda_inf) < 0.03 and abs(acc_lda - nb_inf) < 0.03:
            raise Failure("the two accuracies are swapped: return (accuracy_nb, accuracy_lda) in that order.")
        if abs((1 - acc_lda) - lda_inf) < 0.03 and abs((1 - acc_nb) - nb_inf) < 0.03:
            raise Failure("these look like error rates: return accuracies, the fraction classified CORRECTLY.")
        if rho == 0.0 and abs(acc_nb - acc_lda) > 0.03:
            raise Failure(
                "with rho = 0 the two features are independent within each class, so naive Bayes and LDA should "
                "be about equally accurate; check how you generate the classes and the test set."
            )
        if abs(acc_lda - lda_inf) > 0.03:
            raise Failure(
                f"with rho = {rho} the LDA accuracy is far from its large-sample value; check the class means "
                "(0, 0) and (1, 0), the shared covariance [[1, rho], [rho, 1]], equal priors and the 20000 "
                "test points of the statement."
            )
        if abs(acc_nb - nb_inf) > 0.03:
            raise Failure(
                f"with rho = {rho} the naive Bayes accuracy is far from its large-sample value; fit it with "
                'covariance_type="diag" on the same training set.'
            )
        if rho > 0:  # the sizes are arguments: a smaller training or test set gives other accuracies
            def pair(*args, **kwargs):
                out = expect_tuple(call(student_fn, *args, name="naive_bayes_vs_lda", **kwargs), 2,
                                   "(accuracy_nb, accuracy_lda)", name="naive_bayes_vs_lda")
                return [expect_number(v, "an accuracy", name="naive_bayes_vs_lda") for v in out]

            small = pair(rho, 20, check_rng(5))
            if small[0] == acc_nb and small[1] == acc_lda:
                raise Failure(
                    "with n_train = 20 instead of 2000 (and the same seed) your accuracies are exactly the same: "
                    "your function ignores n_train. Draw a training set of n_train points."
                )
            try:  # n_test is the solution's optional argument, not the statement's: probe it only if taken
                counts = 400 * np.array(pair(rho, 2000, check_rng(5), n_test=400))
            except Failure as failure:
                if "unexpected keyword argument 'n_test'" not in str(failure):
                    raise
                counts = np.zeros(2)
            if not np.allclose(counts, np.round(counts), rtol=0, atol=1e-6):
                raise Failure(
                    "with n_test = 400 your accuracies are not multiples of 1/400: your function ignores n_test. "
                    "Draw a test set of n_test points and report the fraction classified correctly."
                )
    _accuracies_are_run(student_fn)


def _accuracies_are_run(student_fn):
    """Refuse accuracies that are reported rather than measured: over 6 seeds of the check's own, each
    accuracy must vary at least a tenth as much as the 20000-point test set alone makes it vary."""
    runs = []
    for seed in range(10, 16):
        out = expect_tuple(call(student_fn, 0.9, 2000, check_rng(seed), name="naive_bayes_vs_lda"),
                           2, "(accuracy_nb, accuracy_lda)", name="naive_bayes_vs_lda")
        runs.append([expect_number(v, "an accuracy", name="naive_bayes_vs_lda") for v in out])
    runs = np.array(runs)  # (6, 2)
    lda_inf, nb_inf = _theory_accuracies(0.9)
    test_noise = np.sqrt(np.array([nb_inf * (1 - nb_inf), lda_inf * (1 - lda_inf)]) / 20000)
    if np.any(runs.std(axis=0, ddof=1) < 0.1 * test_noise):
        raise Failure(
            "your accuracies hardly change between generators: the check runs your experiment with its own "
            "seeds, and accuracies measured on a random test set of 20000 points vary by about 0.003. Draw the "
            "training and test sets with rng, fit both classifiers and score them; do not return theoretical "
            "values."
        )
