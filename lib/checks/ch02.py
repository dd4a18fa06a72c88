"""Checks for the exercises of chapter 2, "Maximum likelihood estimation".

Each check runs the student's answer on generated inputs, compares it with
``lib.mle`` and names the first likely mistake it recognises.  None of them
prints the reference answer for the exercise's own inputs.
"""

import math

import numpy as np

from ._core import check_rng  # every input a check draws: salted while the grader judges (issue 49)

from .. import mle
from . import _variants
from ._core import (Failure, NotImplementedYet, call, check, expect_array, expect_ndarray, expect_number,
                    expect_tuple, refuse_container)

__all__ = [
    "bernoulli_mle",
    "bernoulli_log_likelihood",
    "smoothed_categorical_mle",
    "spherical_gaussian_mle",
    "gaussian_kl_value",
    "variance_mse_experiment",
]


def _close(a, b, rtol=1e-7, atol=1e-10):
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    return a.shape == b.shape and bool(np.allclose(a, b, rtol=rtol, atol=atol))


# ---------------------------------------------------- ex-bernoulli-mle --

def _bernoulli_cases(rng):
    yield np.array([1])
    yield np.zeros(6, dtype=int)
    yield np.ones(4, dtype=int)
    yield np.array([1, 0, 0, 1, 0, 0, 0])
    for n in (20, 101):
        yield (rng.random(n) < 0.3).astype(int)


@check("ex-bernoulli-mle",
       "matches the closed form on 6 samples (sizes 1 to 101), including all-0 and all-1 samples.",
       solves=("lib.mle.bernoulli_mle", "lib.mle.categorical_mle"),
       allow=())
def bernoulli_mle(student_fn):
    rng = check_rng(2)
    for x in _bernoulli_cases(rng):
        got = expect_number(call(student_fn, x, unchanged={0: "x"}), "theta_hat", name="bernoulli_mle",
                            float_only=True)
        want = mle.bernoulli_mle(x)
        n, n1 = x.shape[0], int(x.sum())
        if np.isclose(got, want, rtol=1e-9, atol=1e-12):
            continue
        if np.isclose(got, 1 - want) and abs(want - 0.5) > 1e-9:
            raise Failure("you estimated the probability of a 0, not of a 1: count the ones.")
        if np.isclose(got, n1) and n1 != want:
            raise Failure("you returned the number of ones; the estimate is a proportion in [0, 1].")
        if n > 1 and np.isclose(got, n1 / (n - 1)):
            raise Failure("you divided by n - 1; the MLE divides the number of ones by n.")
        if n == 1 and not math.isfinite(got):
            raise Failure("your estimate is infinite on a sample of one flip: a division by zero (n - 1 is 0 "
                          "there). The MLE divides the number of ones by n.")
        if not 0 <= got <= 1:
            raise Failure(f"your estimate {got:.4g} is not a probability: it must lie in [0, 1].")
        if 0 < want < 1 and got in (0.0, 1.0):
            raise Failure(
                f"your estimate is {got:.0f} on a sample of size {n} that contains both zeros and ones, "
                "so it should lie strictly between 0 and 1. If you used integer division (//) or int(...), "
                "divide with / instead."
            )
        if abs(got - want) < 0.01:
            raise Failure(
                f"your estimate is close to the MLE on a sample of size {n} but not equal to it: "
                "return the fraction itself, without rounding."
            )
        raise Failure(
            f"wrong estimate on a sample of size {n}. Set the derivative of the log-likelihood "
            "to zero again, and check the samples made only of zeros or only of ones."
        )


# ------------------------------------------ ex-bernoulli-log-likelihood --

def _log_likelihood_cases(rng):
    yield (rng.random(20) < 0.3).astype(int), 0.3        # generic
    yield (rng.random(2000) < 0.4).astype(int), 0.45     # the product underflows to 0
    yield np.zeros(7, dtype=int), 0.0                     # 0 ln 0 = 0: likelihood 1
    yield np.ones(5, dtype=int), 1.0
    yield np.array([0, 1, 0, 0]), 0.0                     # a one under theta = 0: -inf
    yield np.array([1, 1, 0, 1, 0, 1, 1]), 0.8


@check("ex-bernoulli-log-likelihood",
       "matches the log-likelihood on 6 samples (n from 4 to 2000), including theta = 0 and theta = 1.",
       solves=("lib.mle.bernoulli_log_likelihood", "lib.mle.categorical_log_likelihood"),
       allow=("scipy.special.xlogy",))
def bernoulli_log_likelihood(student_fn):
    rng = check_rng(6)
    for x, theta in _log_likelihood_cases(rng):
        n, n1 = x.shape[0], int(x.sum())
        n0 = n - n1
        out = call(student_fn, x, theta, name="bernoulli_log_likelihood", unchanged={0: "x"})
        if not isinstance(out, (str, bytes)) and np.ndim(out) == 1 and np.shape(out)[0] == n and n > 1:
            raise Failure("you returned one term per observation: the log-likelihood is their sum, one number.")
        got = expect_number(out, "the log-likelihood", name="bernoulli_log_likelihood", float_only=True)
        want = mle.bernoulli_log_likelihood(x, theta)
        if got == want or (np.isfinite(want) and np.isclose(got, want, rtol=1e-9, atol=1e-9)):
            continue
        if np.isfinite(want) and got == -np.inf and 0 < theta < 1:
            raise Failure(
                f"your value is -inf on a sample of {n} flips with theta strictly between 0 and 1: the product "
                "of the probabilities underflowed to 0 before the log. Sum the logs instead of taking the "
                "log of a product."
            )
        if want == 0.0 and got == -np.inf:
            raise Failure(
                "with theta = 0 and no ones (or theta = 1 and no zeros) every flip has probability 1, so the "
                "log-likelihood is 0: use the convention 0 ln 0 = 0 (scipy.special.xlogy does)."
            )
        if want == -np.inf:
            raise Failure(
                "a sample that contains a one has probability 0 under theta = 0, so its log-likelihood is -inf."
            )
        slips = [
            (want / n, "that is the average per observation; the log-likelihood is the sum over the sample."),
            (want / np.log(10), "use the natural logarithm (np.log), not log10."),
            (want / np.log(2), "use the natural logarithm (np.log), not log2."),
            (n1 * np.log(1 - theta) + n0 * np.log(theta) if 0 < theta < 1 else None,
             "theta and 1 - theta are swapped: theta is the probability of a 1, so the ones get ln(theta)."),
            (n1 * np.log(theta) if theta > 0 else None,
             "the zeros are missing: each 0 contributes ln(1 - theta), the (1 - x_i) ln(1 - theta) term."),
            (-want, "the sign is wrong: a log-likelihood of discrete data is a sum of logs of probabilities, "
                    "so it is at most 0."),
        ]
        for value, message in slips:
            if value is not None and np.isfinite(value) and not np.isclose(value, want) and np.isclose(got, value):
                raise Failure(message)
        raise Failure(
            f"wrong log-likelihood on a sample of {n} flips with theta = {theta}. Write it as "
            "sum_i [x_i ln(theta) + (1 - x_i) ln(1 - theta)] and check the cases theta = 0 and theta = 1."
        )


# ------------------------------------------ ex-smoothed-categorical-mle --

def _categorical_cases(rng):
    yield np.array([3, 0, 5, 2]), 1.0
    yield np.array([0, 0, 7, 0, 1]), 0.5
    yield np.array([4, 1, 0]), 0.0
    yield rng.integers(0, 4, size=12), 2.0
    yield np.array([10, 0, 0, 0, 0, 0, 0, 0, 0, 0]), 0.1


@check("ex-smoothed-categorical-mle",
       "matches (n_j + alpha) / (N + alpha V) on 5 count vectors with zero counts, for alpha = 0, 0.1, 0.5, 1, 2.",
       solves=("lib.mle.categorical_mle", "lib.mle.dirichlet_mean",
               "lib.mle.dirichlet_categorical_predictive", "lib.naive_bayes.multinomial_log_probs"),
       allow=())
def smoothed_categorical_mle(student_fn):
    rng = check_rng(3)
    for counts, alpha in _categorical_cases(rng):
        V, N = counts.shape[0], counts.sum()
        out = call(student_fn, counts, alpha, name="smoothed_categorical_mle", unchanged={0: "counts"})
        if isinstance(out, dict):
            raise Failure("return a numpy array with one probability per count (position j for outcome j), not a dict.")
        got = expect_ndarray(out, (V,), "the probabilities", name="smoothed_categorical_mle")
        want = mle.categorical_mle(counts, alpha=alpha)
        if _close(got, want):
            continue
        if alpha > 0 and _close(got, counts + alpha):
            raise Failure(
                "you returned the pseudo-counts n_j + alpha: divide them by their total to get probabilities."
            )
        if alpha > 0 and _close(got, counts / N):
            raise Failure("you ignored alpha: with alpha > 0 every outcome gets alpha added to its count.")
        seen = counts > 0
        only_seen = (counts + alpha * seen) / (N + alpha * seen.sum())
        if alpha > 0 and _close(got, only_seen):
            raise Failure(
                "outcomes with count 0 still get probability 0: the pseudo-count alpha goes to every "
                "outcome of the vocabulary, seen or not -- that is the point of smoothing."
            )
        if alpha > 0 and _close(got, (counts + alpha) / (N + alpha)):
            raise Failure("the denominator must be N + alpha * V: each of the V outcomes receives alpha.")
        if alpha > 0 and (_close(got, (counts + alpha) / (N * V + alpha))
                          or _close(got, (counts + alpha) / ((N + alpha) * V))):
            raise Failure("the denominator must be N + alpha * V (alpha times V, added to N).")
        if alpha > 0 and seen.sum() < V and _close(got, (counts + alpha) / (N + alpha * seen.sum())):
            raise Failure(
                "V is the size of the vocabulary, i.e. the number of entries of counts (zeros included), "
                "not the number of outcomes that were seen."
            )
        if np.all(got == np.floor(got)) and not np.all(want == np.floor(want)):
            raise Failure(
                "all your probabilities are whole numbers: integer division (//) truncates them; "
                "divide with / (or convert the counts to float first)."
            )
        if np.any(got < 0):
            raise Failure("probabilities cannot be negative.")
        for fixed in range(1, 13):
            if alpha % 1 and fixed != V and _close(got, (counts + alpha) / (N + alpha * fixed)):  # not N + V + 1
                raise Failure(
                    f"your denominator adds alpha * {fixed}, but this count vector has V = {V} entries: V is "
                    "the number of entries of counts (len(counts)), not a fixed number."
                )
        if abs(got.sum() - 1) > 1e-6:
            raise Failure(f"your probabilities sum to {got.sum():.4g}, not 1: check the normalising denominator.")
        raise Failure(
            f"wrong probabilities for alpha = {alpha} on {V} outcomes. Recompute "
            "(n_j + alpha) / (N + alpha V) by hand on a small count vector and compare."
        )


# --------------------------------------------- ex-spherical-gaussian-mle --

#: Coordinates of the last data set sit this far from the origin (the statement asks to test "data whose
#: coordinates have very different means"): a mean of squares minus a squared mean loses its digits there.
_FAR = 1e6


def _spherical_cases(rng):
    for n, d, far in ((7, 2, 5.0), (50, 3, 5.0), (2, 1, 5.0), (30, 5, 5.0), (40, 3, _FAR)):
        scale = rng.uniform(0.5, 3.0, size=d)
        shift = rng.uniform(-far, far, size=d)
        yield rng.normal(size=(n, d)) * scale + shift


@check("ex-spherical-gaussian-mle",
       "mean and variance match the closed forms on 5 data sets (n from 2 to 50, d from 1 to 5, "
       "coordinates with different means and scales, one with means up to 1e6 from the origin).",
       solves=("lib.mle.gaussian_mle", "lib.mixture.m_step"),
       allow=())
def spherical_gaussian_mle(student_fn):
    rng = check_rng(4)
    for X in _spherical_cases(rng):
        n, d = X.shape
        out = call(student_fn, X, name="spherical_gaussian_mle", unchanged={0: "X"})
        expect_tuple(out, 2, "the pair (mean, variance), e.g. `return mu, var`,", name="spherical_gaussian_mle")
        mean_out, var_out = out
        try:
            mean_arr = np.asarray(mean_out, dtype=float)
        except (TypeError, ValueError):
            mean_arr = None  # expect_array below reports it
        var_shape = np.shape(var_out) if not isinstance(var_out, str) else None
        if mean_arr is not None and mean_arr.size == 1 and d > 1 and var_shape == (d,):
            raise Failure(
                "the pair is in the wrong order: return (mean, variance), the mean vector first."
            )
        if mean_arr is not None and mean_arr.size == 1 and d > 1:
            raise Failure(
                "the mean is a vector with one entry per coordinate: average over the samples "
                "(axis=0), not over all entries."
            )
        if d == 1 and mean_arr is not None and mean_arr.shape == ():
            mean_out = mean_arr.reshape(1)  # a scalar mean is fine in one dimension
        refuse_container(mean_out, (d,), "the mean", name="spherical_gaussian_mle")
        got_mean = expect_array(mean_out, (d,), "the mean", name="spherical_gaussian_mle")
        var_arr = np.asarray(var_out) if not isinstance(var_out, str) else None
        if var_arr is not None and var_arr.shape == (d,) and d > 1:
            raise Failure(
                "you returned one variance per coordinate; the spherical model has a single variance "
                "sigma^2 shared by all d coordinates."
            )
        if var_arr is not None and var_arr.shape == (d, d) and d > 1:
            raise Failure("you returned a covariance matrix; the spherical model has a single number sigma^2.")
        got_var = expect_number(var_out, "the variance", name="spherical_gaussian_mle", float_only=True)
        want_mean, want_var = mle.gaussian_mle(X, "spherical")
        if not _close(got_mean, want_mean):
            raise Failure("the mean is wrong: it is the average of the rows, (1/n) sum_i x_i.")
        if np.isclose(got_var, want_var, rtol=1e-8):
            continue
        sq = np.sum((X - want_mean) ** 2)
        if d > 1 and np.isclose(got_var, sq / n):
            raise Failure(
                "you divided by n only: the sum of squared distances runs over n points of d "
                "coordinates each, so divide by n * d."
            )
        if n > 1 and np.isclose(got_var, sq / ((n - 1) * d)):
            raise Failure("you divided by (n - 1) d; the MLE divides by n d (it is biased, and that is fine).")
        if n > 1 and d > 1 and np.isclose(got_var, sq / (n - 1)):
            raise Failure(
                "two problems: divide by n (not n - 1), and by d as well, because each point has d coordinates."
            )
        if d > 1 and np.isclose(got_var, np.var(X)):
            raise Failure(
                "you centred every entry at one grand mean (np.var(X) flattens the array): centre "
                "each coordinate at its own mean, x_ij - mu_hat_j."
            )
        if np.isclose(got_var, np.sum(X**2) / (n * d)):
            raise Failure("you did not subtract the mean: use ||x_i - mu_hat||^2, not ||x_i||^2.")
        if np.isclose(got_var, np.sqrt(want_var)):
            raise Failure("you returned a standard deviation; return the variance sigma^2.")
        for fixed in range(1, 7):
            if fixed != d and np.isclose(got_var, sq / (n * fixed)):
                raise Failure(
                    f"you divided by n * {fixed}, but this data set has d = {d} coordinates: read d from "
                    "X.shape[1], not a fixed number."
                )
        if np.abs(want_mean).max() > 1e3 and abs(got_var - want_var) < 1e-2 * want_var:
            raise Failure(
                "right near the origin, but not on data far from it (coordinates about 1e6 from the origin): "
                "a mean of squares minus a squared mean (E[x^2] - mu^2) subtracts two nearly equal large "
                "numbers, which cancel with most of their digits. Centre the data first and average "
                "||x_i - mu_hat||^2."
            )
        raise Failure(
            f"the variance is wrong on a data set with n = {n}, d = {d}. It is the average squared "
            "distance to the mean per coordinate: (1/(n d)) sum_i ||x_i - mu_hat||^2."
        )


# ---------------------------------------------------- ex-gaussian-kl-value --

# Variants: p = N(mu0, var0), q = N(mu1, var1); variant 0 is the book's p = N(1, 2), q = N(-2, 4) (with
# sigma_0^2 = 1 and mu_0 - mu_1 = 1, as the book had them, a ratio without sigma_0^2, a sum of the means
# or a lost square gave the right number, and with mu_0 - mu_1 = 2 a square taken as a doubling: issue
# 44's mutation test).
_KL_TOLERANCE = 1.5e-4  # the answer to 4 decimals, one unit either way


def _kl_values(p):
    """KL(p || q) for the variant ``p`` and the values of typical mistakes, {name: (value, message)}."""
    mu0, var0, mu1, var1 = p["mu0"], p["var0"], p["mu1"], p["var1"]
    right = float(mle.gaussian_kl([mu0], var0, [mu1], var1))
    log_ratio = 0.5 * np.log(var1 / var0)  # ln(sigma_1 / sigma_0)
    quad = (var0 + (mu0 - mu1) ** 2) / (2 * var1)
    wrong = {
        "reverse": (float(mle.gaussian_kl([mu1], var1, [mu0], var0)),
                    "that is KL(q || p), the other direction: KL is not symmetric; the expectation is under p."),
        "no_half": (right + 0.5,
                    "you are missing the constant -1/2 (it comes from E_p[(x - mu_0)^2] / (2 sigma_0^2))."),
        "std_as_var": (float(mle.gaussian_kl([mu0], var0**2, [mu1], var1**2)),
                       "you used the variances as standard deviations: the second argument of N is the "
                       "variance sigma^2, so sigma is its square root."),
        "log_var_ratio": (2 * log_ratio + quad - 0.5,
                          "the log term is ln(sigma_1 / sigma_0) = (1/2) ln(sigma_1^2 / sigma_0^2), not "
                          "ln(sigma_1^2 / sigma_0^2)."),
        "bits": (right / np.log(2),
                 "that is the answer in bits (log base 2); the book uses natural logarithms (nats)."),
        "no_mean_term": (float(mle.gaussian_kl([mu0], var0, [mu0], var1)),
                         "you left out the mean term: E_p[(x - mu_1)^2] = sigma_0^2 + (mu_0 - mu_1)^2, and "
                         "here the means differ."),
        "log_sign": (-log_ratio + quad - 0.5,
                     "the log term has the wrong sign: ln p(x) - ln q(x) contributes +ln(sigma_1 / sigma_0), "
                     "i.e. +1/2 ln(sigma_1^2 / sigma_0^2) (in d dimensions +1/2 ln det Sigma_1 - 1/2 ln det "
                     "Sigma_0)."),
        "no_half_quadratic": (log_ratio + 2 * quad - 0.5,
                              "the quadratic term E_p[(x - mu_1)^2] / (2 sigma_1^2) has lost its 1/2."),
        "twice": (2 * right,
                  "that is twice the divergence: a missing 1/2 in front of the bracket "
                  "[tr + quadratic form - d + ln det ratio]."),
    }
    return right, wrong


def _kl_degenerate(p):
    """Why the variant ``p`` is not a fair exercise, or None."""
    if p["mu0"] == p["mu1"]:
        return "equal means: the mean term vanishes"
    if p["var0"] == p["var1"]:
        return "equal variances: the log term vanishes"
    right, wrong = _kl_values(p)
    if right < 0.05:
        return "p and q nearly equal"
    return _variants.mistaken_for(right, wrong.values())


def _kl_draw(rng):
    variances = [0.25, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0, 9.0]
    return {"mu0": float(rng.integers(-12, 13)) / 4, "var0": float(rng.choice(variances)),
            "mu1": float(rng.integers(-12, 13)) / 4, "var1": float(rng.choice(variances))}


_variants.register(_variants.Spec(
    "ex-gaussian-kl-value",
    book={"mu0": 1.0, "var0": 2.0, "mu1": -2.0, "var1": 4.0},
    draw=_kl_draw,
    degenerate=_kl_degenerate,
    describe=lambda p: f"p = N({p['mu0']:g}, {p['var0']:g}) and q = N({p['mu1']:g}, {p['var1']:g}) "
                       "(mean, variance)",
    answer=lambda p: _kl_values(p)[0],
    tolerance=_KL_TOLERANCE,
))


@check("ex-gaussian-kl-value", "your number equals KL(p || q) for your variant's p and q to 4 decimals.",
       allow=())
def gaussian_kl_value(answer):
    if answer is Ellipsis or answer is None:
        raise NotImplementedYet()
    if callable(answer):
        raise Failure("pass the number itself (e.g. `answer = 0.1234`), not a function.")
    value = expect_number(answer, "KL(p || q)", name="your answer")
    p = _variants.current("ex-gaussian-kl-value")
    right, wrong = _kl_values(p)
    if abs(value - right) <= _KL_TOLERANCE:
        return
    book = _variants.params("ex-gaussian-kl-value", 0)
    if p != book and abs(value - _kl_values(book)[0]) <= _KL_TOLERANCE:
        raise Failure("that is the value for the book's p = N(1, 2) and q = N(-2, 4), not for your variant: "
                      "evaluate your formula for the p and q that your notebook's variant cell prints.")
    for mistake, message in wrong.values():
        if abs(value - mistake) <= _KL_TOLERANCE:
            raise Failure(message)
    if value < 0:
        raise Failure("a KL divergence is never negative (Gibbs' inequality): check the signs.")
    for places in (1, 2, 3):  # rounded (or cut) to too few decimals
        if value in (round(right, places), math.trunc(right * 10**places) / 10**places):
            raise Failure(f"give the value to at least 4 decimals (e.g. compute it with np.log), not to {places}.")
    raise Failure(
        "not the right value. Write KL(p || q) = E_p[ln p(x) - ln q(x)], expand both log-densities, "
        "and use E_p[x] = mu_0 and E_p[(x - mu_0)^2] = sigma_0^2."
    )


def _kl_reference(p=None):
    """KL(p || q) and the typical mistakes' values for the variant ``p`` (the book's by default), for the tests."""
    right, wrong = _kl_values(p or _variants.params("ex-gaussian-kl-value", 0))
    return right, {name: value for name, (value, _) in wrong.items()}


# ----------------------------------------------- ex-variance-mse-experiment --

_EXPERIMENT_N = np.array([2, 3, 5, 10, 30])
_EXPERIMENT_REPEATS = 20000
_EXPERIMENT_SIGMA2 = 2.0
_EXPERIMENT_N_SE = 6.0  # tolerance, in Monte Carlo standard errors


def _chi2_raw_moment(k, m):
    """E[X^m] for X ~ chi-square with k degrees of freedom: k (k + 2) ... (k + 2m - 2)."""
    return float(np.prod([k + 2.0 * i for i in range(m)]))


def _mse_and_relative_se(n, c, n_repeats):
    """For the estimator c Q with Q / sigma^2 ~ chi2_{n-1}: MSE / sigma^4 and the relative
    standard error of its average over n_repeats repetitions (exact, from chi-square moments)."""
    k = n - 1
    # Y = c X - 1 with X ~ chi2_k; E[Y^p] by the binomial theorem.
    def moment(p):
        return sum(float(math.comb(p, j)) * c**j * _chi2_raw_moment(k, j) * (-1) ** (p - j)
                   for j in range(p + 1))
    m2, m4 = moment(2), moment(4)
    return m2, np.sqrt(m4 - m2**2) / m2 / np.sqrt(n_repeats)


def _experiment_expectations(n_values, n_repeats, sigma2):
    """Exact expected columns of the table and their relative Monte Carlo tolerances."""
    n = np.asarray(n_values, dtype=float)
    mean_mle = (n - 1) / n * sigma2
    tol_mean = _EXPERIMENT_N_SE * np.sqrt(2.0 / (n - 1)) / np.sqrt(n_repeats)
    mse_mle, tol_mle, mse_unb, tol_unb = [], [], [], []
    for size in n_values:
        m, se = _mse_and_relative_se(int(size), 1.0 / size, n_repeats)
        mse_mle.append(m * sigma2**2)
        tol_mle.append(_EXPERIMENT_N_SE * se)
        m, se = _mse_and_relative_se(int(size), 1.0 / (size - 1), n_repeats)
        mse_unb.append(m * sigma2**2)
        tol_unb.append(_EXPERIMENT_N_SE * se)
    return (mean_mle, tol_mean, np.array(mse_mle), np.array(tol_mle),
            np.array(mse_unb), np.array(tol_unb))


def _experiment_uses_its_arguments(student_fn):
    """Small runs that differ in one argument only: a table that does not change ignores it."""
    name = "variance_mse_experiment"

    def table(n_values, n_repeats, sigma2, seed):
        out = call(student_fn, np.array(n_values), n_repeats, sigma2, check_rng(seed), name=name)
        try:
            shape = np.shape(out)
        except ValueError:  # ragged: expect_ndarray below says so
            shape = None
        if shape is not None and len(shape) == 2 and shape != (len(n_values), 3):
            raise Failure(
                f"called with n_values = {n_values}, your table has shape {shape}; it needs one row per "
                "entry of n_values: loop over the n_values you are given."
            )
        return expect_ndarray(out, (len(n_values), 3), "the table", name=name)

    base = table([4, 8], 1, 0.5, 6)
    for changed, what in [(table([4, 8], 2, 0.5, 6), "n_repeats (1 and 2, same generator)"),
                          (table([4, 8], 1, 2.0, 6), "sigma2 (0.5 and 2, same generator)"),
                          (table([4, 8], 1, 0.5, 7), "the generator rng (two different seeds)")]:
        if np.array_equal(changed, base):
            argument = what.split(" (")[0]
            raise Failure(
                f"your table is exactly the same for two values of {what}: the function ignores {argument}. "
                f"Use the argument itself (not a fixed number or a generator of your own) when drawing the "
                "samples and computing the errors."
            )


def _near(values, target, rel_tol):
    return bool(np.all(np.abs(values - target) <= rel_tol * np.abs(target)))


@check("ex-variance-mse-experiment",
       "on n = 2, 3, 5, 10, 30 with 20,000 repetitions: shape, the average of the MLE near (n-1)/n sigma^2, "
       "and both mean squared errors near their exact values within Monte Carlo error; the table is a numpy "
       "array and changes with each argument (other n_values, n_repeats, sigma2 and generators).",
       allow=())
def variance_mse_experiment(student_fn):
    n_values = _EXPERIMENT_N.copy()
    sigma2 = _EXPERIMENT_SIGMA2
    out = call(student_fn, n_values, _EXPERIMENT_REPEATS, sigma2, check_rng(5),
               name="variance_mse_experiment")
    got = expect_ndarray(out, (n_values.shape[0], 3), "the table (average MLE, MSE of MLE, MSE of unbiased)",
                         name="variance_mse_experiment")
    _experiment_uses_its_arguments(student_fn)
    n = n_values.astype(float)
    mean_mle, tol_mean, mse_mle, tol_mle, mse_unbiased, tol_unb = _experiment_expectations(
        n_values, _EXPERIMENT_REPEATS, sigma2)
    var_mle = 2 * (n - 1) / n**2 * sigma2**2  # variance only, without the squared bias
    # Tolerances: 6 Monte Carlo standard errors of each average, from the chi-square moments.
    if _near(got[:, 0], sigma2, tol_mean):
        raise Failure(
            "the averages of column 0 are close to sigma^2 itself, so your estimator is unbiased: "
            "the MLE divides by n (np.var's default ddof=0) and centres at the sample mean, not at the true mean."
        )
    if _near(got[:, 0], mean_mle * sigma2, tol_mean):
        raise Failure(
            "column 0 is sigma^2 times too large: rng.normal(loc, scale) takes the standard deviation "
            "as scale, so draw with scale=np.sqrt(sigma2), not sigma2."
        )
    if not _near(got[:, 0], mean_mle, tol_mean):
        raise Failure(
            "column 0 (the average of the MLE over the repetitions) is not where the chapter's theorem "
            "puts it, (n - 1)/n sigma^2. Compute the variance MLE of each simulated sample with ddof=0."
        )
    if _near(got[:, 1], mse_unbiased, tol_unb) and _near(got[:, 2], mse_mle, tol_mle):
        raise Failure(
            "columns 1 and 2 are swapped: column 1 is the MSE of the MLE, column 2 of the unbiased estimator."
        )
    if _near(got[:, 1], var_mle, tol_mle):
        raise Failure(
            "column 1 looks like the variance of the MLE around its own average; the MSE is the average "
            "of (sigma_hat^2 - sigma^2)^2 around the true sigma^2, which adds the squared bias."
        )
    if not _near(got[:, 1], mse_mle, tol_mle):
        raise Failure("column 1 (mean squared error of the MLE, average of (estimate - sigma^2)^2) is off.")
    if not _near(got[:, 2], mse_unbiased, tol_unb):
        raise Failure(
            "column 2 (mean squared error of the unbiased estimator, which divides by n - 1) is off."
        )
    _experiment_is_run(student_fn, got, n_values, sigma2, (tol_mean * mean_mle, tol_mle * mse_mle,
                                                          tol_unb * mse_unbiased))


def _experiment_is_run(student_fn, got, n_values, sigma2, tolerances):
    """Refuse a table that is reported rather than simulated: the check runs the experiment again with its
    own seeds.  The same seed must give the same table; other seeds must move every column by about its
    Monte Carlo error, as independent runs do (a table of exact values, or exact values plus a token
    noise, does not move; the average |z| of 15 differences of real runs is about 0.8)."""
    again = call(student_fn, n_values.copy(), _EXPERIMENT_REPEATS, sigma2, check_rng(5),
                 name="variance_mse_experiment")
    if not np.array_equal(np.asarray(again, dtype=float), got):
        raise Failure("two runs with the same generator give different tables: draw every random number "
                      "from the rng argument, and nothing from np.random's global state.")
    se = np.stack(tolerances, axis=1) / _EXPERIMENT_N_SE  # (len(n), 3): one Monte Carlo standard error
    z = []
    for seed in (6, 7):
        other = expect_array(call(student_fn, n_values.copy(), _EXPERIMENT_REPEATS, sigma2,
                                  check_rng(seed), name="variance_mse_experiment"),
                             got.shape, "the table", name="variance_mse_experiment")
        z.append(np.abs(other - got) / (np.sqrt(2.0) * se))
    spread = float(np.mean(z))
    if spread == 0.0:
        raise Failure("your table is the same for every generator: the check runs your experiment with its own "
                      "seeds, and a simulation's averages change with its random draws. Simulate the samples "
                      "with rng and average over the repetitions; do not return the theoretical values.")
    if spread < 0.1:
        raise Failure("your table barely changes between generators (far less than the Monte Carlo error of "
                      "20,000 repetitions): the check runs your experiment with its own seeds. Simulate the "
                      "samples with rng and average over the repetitions; do not return theoretical values.")
    if spread > 10.0:
        raise Failure("your table changes between generators far more than the Monte Carlo error of 20,000 "
                      "repetitions allows: average over all the repetitions you were asked for.")

