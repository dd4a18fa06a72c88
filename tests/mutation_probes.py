"""Wide random inputs on which a surviving mutant must agree with the solution (tests/mutation.py).

``PROBES[label](rng)`` yields argument tuples for the exercise's function:
other d and K than the statement's example, absent classes, extreme scales
and lengths, edge cases (zeros, ties, empty selections).  Inputs are of the types
the statements name (arrays where an array is asked for).  A mutant that the
check passes is *equivalent* only when it returns the same containers, shapes
and numbers (to 1e-7) on every one of them (inputs on which the solution
itself raises are skipped).  A :class:`Statistical` probe, for an experiment
drawn with a random generator, compares means over many seeds instead: two
experiments that draw differently but from the same distribution agree.
"""

from __future__ import annotations

import numpy as np

PROBES = {}


def probe(label):
    def register(func):
        PROBES[label] = func
        return func

    return register


class Statistical:
    """An experiment ``f(*args, rng, **kwargs)`` (``cases``: (args, kwargs) pairs): equivalent when, for each argument tuple, the mean outputs over
    ``n_seeds`` seeds of the mutant and the solution differ by less than 4 standard errors."""

    def __init__(self, cases, n_seeds=40):
        self.cases = cases
        self.n_seeds = n_seeds


def _sizes(rng):
    """(n, d, K) triples: the examples' sizes and others, small and large."""
    return [(1, 1, 2), (5, 1, 2), (7, 2, 2), (12, 3, 3), (30, 4, 5), (9, 5, 4), (60, 2, 3), (25, 3, 2)]


def _mixture(rng, n, d, K, scale=1.0, offset=0.0):
    weights = rng.dirichlet(np.ones(K))
    means = scale * rng.normal(size=(K, d)) * 3 + offset
    variances = scale**2 * rng.uniform(0.2, 3.0, size=K)
    X = means[rng.integers(0, K, size=n)] + scale * rng.normal(size=(n, d))
    return X, weights, means, variances


def _scales():
    return [(1.0, 0.0), (1e-3, 0.0), (1e3, 0.0), (1.0, 1e3), (1.0, -50.0)]


@probe("ex-dvg-softmax-gradient")
def _softmax(rng):
    for n, d, K in _sizes(rng):
        for scale in (0.1, 1.0, 30.0, 900.0):
            X = rng.normal(size=(n, d))
            y = rng.integers(0, max(K - 1, 1), size=n)  # the last class often absent
            W = scale * rng.normal(size=(K, d))
            b = scale * rng.normal(size=K)
            yield W, b, X, y
        b = np.zeros(K)
        b[0] = 1000.0
        X = np.vstack([np.zeros(d), 50 * np.ones((max(n - 1, 0), d))])[:n]
        yield rng.normal(size=(K, d)), b, X, np.arange(n) % K


def _logistic_data(rng, n, d, scale=1.0):
    y = np.arange(n) % 2
    rng.shuffle(y)
    X = scale * (rng.normal(size=(n, d)) + 0.5 * y[:, None])
    return X, y


@probe("ex-dvg-sgd")
def _sgd(rng):
    for n, d, _ in _sizes(rng):
        for scale in (0.01, 1.0, 20.0):
            X, y = _logistic_data(rng, n, d, scale)
            yield (rng.normal(size=d), float(rng.normal()), X, y, float(rng.choice([0.01, 0.5, 3.0])),
                   rng.permutation(n))
        X, y = _logistic_data(rng, n, d)
        yield np.zeros(d), 0.0, X, y, 1.0, rng.integers(0, n, size=2 * n)  # repeats allowed


@probe("ex-dvg-newton")
def _newton(rng):
    for n, d in [(6, 1), (10, 2), (25, 3), (40, 5), (9, 4)]:
        for scale in (0.1, 1.0, 10.0):
            X, y = _logistic_data(rng, n, d, scale)
            yield rng.normal(size=d) / scale, float(rng.normal()), X, y


@probe("ex-dvg-probit-gradient")
def _probit(rng):
    for n, d, _ in _sizes(rng):
        for scale in (0.1, 1.0, 40.0):
            X, y = _logistic_data(rng, n, d)
            yield scale * rng.normal(size=d), scale * float(rng.normal()), X, y


@probe("ex-dvg-perceptron")
def _perceptron(rng):
    for n, d, _ in _sizes(rng):
        X, y = _logistic_data(rng, n, d)
        yield rng.normal(size=d), float(rng.normal()), X, y, rng.permutation(n)
        Xi = rng.integers(-2, 3, size=(n, d)).astype(float)  # integer data: margins exactly 0
        yield np.zeros(d), 0.0, Xi, y, np.arange(n)
        yield np.ones(d), -1.0, Xi, y, rng.integers(0, n, size=2 * n)


@probe("ex-dvg-missing")
def _missing(rng):
    for n, d, K in _sizes(rng):
        for scale, offset in _scales():
            X, weights, means, variances = _mixture(rng, n, d, K, scale, offset)
            variances = np.outer(variances, rng.uniform(0.5, 2.0, size=d))
            X = X.copy()
            X[rng.random(X.shape) < 0.4] = np.nan
            X[0] = np.nan
            yield X, weights, means, variances


@probe("ex-dvg-sigmoid")
def _sigmoid(rng):
    for t in (0.0, -0.0, 1.0, -1.0, 745.0, -745.0, 1e308, -1e308, 36.0, -36.0, 3, -3, 0):
        yield (t,)
    yield (np.array([-1000.0, -0.0, 0.0, 1e-300, 1000.0]),)
    yield (rng.normal(scale=50, size=(3, 4, 2)),)
    yield (np.arange(-5, 6),)


@probe("ex-dirichlet-map")
def _dirichlet(rng):
    for K in (2, 3, 7):
        counts = rng.integers(0, 20, size=K)
        yield counts, rng.uniform(1.0, 5.0, size=K)
        yield counts.astype(float), np.full(K, 1.0)
        yield np.zeros(K, dtype=int), [3.0] * K


@probe("ex-nb-word-log-probs")
def _nb_word(rng):
    for n, V, K in [(5, 3, 2), (12, 7, 3), (40, 20, 4), (3, 30, 2), (8, 1, 3)]:
        for alpha in (0.0, 0.5, 1.0, 100.0):
            X = rng.poisson(rng.gamma(0.5, 3.0, size=V), size=(n, V))
            y = np.arange(n) % K
            rng.shuffle(y)
            yield X, y, alpha


@probe("ex-nb-log-posterior")
def _nb_post(rng):
    for n, V, K in [(1, 3, 2), (6, 7, 3), (12, 30, 4), (5, 2, 2)]:
        for length in (0, 3, 100, 20000):
            theta = rng.dirichlet(np.full(V, 0.7), size=K)
            theta = np.maximum(theta, 1e-8)
            theta /= theta.sum(axis=1, keepdims=True)
            X = np.stack([rng.multinomial(rng.integers(0, length + 1), theta[rng.integers(K)]) for _ in range(n)])
            log_priors = np.log(rng.dirichlet(np.ones(K)))
            yield X, log_priors, np.log(theta)


def _gaussian_data(rng):
    for n, d in [(2, 1), (5, 2), (12, 3), (40, 6), (8, 7)]:
        for scale, offset in _scales():
            A = rng.normal(size=(d, d))
            yield scale * rng.normal(size=(n, d)) @ A + offset


@probe("ex-spherical-gaussian-mle")
def _spherical(rng):
    for X in _gaussian_data(rng):
        yield (X,)


@probe("ex-gaussian-max-log-likelihood")
def _max_ll(rng):
    for X in _gaussian_data(rng):
        if X.shape[0] > X.shape[1]:
            yield (X,)


@probe("ex-variance-mse-experiment")
def _variance(rng):
    for n_values in ([2], [2, 5, 20], [3, 50], [10]):
        for n_repeats in (1, 7, 500):
            for sigma2 in (1.0, 1e-4, 250.0):
                yield n_values, n_repeats, sigma2, np.random.default_rng(int(rng.integers(1 << 30)))


@probe("ex-bernoulli-mle")
def _bernoulli(rng):
    for n in (1, 2, 7, 100, 10001):
        x = (rng.random(n) < rng.random()).astype(int)
        yield (x,)
        yield (x.astype(float),)
        yield (np.zeros(n, dtype=int),)


@probe("ex-bernoulli-log-likelihood")
def _bernoulli_ll(rng):
    for n in (1, 3, 10, 1000):
        x = (rng.random(n) < 0.4).astype(int)
        for theta in (0.0, 1.0, 1e-300, 0.3, 0.999999, rng.random()):
            yield x, theta
        yield np.ones(n, dtype=int), 1.0
        yield np.zeros(n, dtype=int), 0.0


@probe("ex-smoothed-categorical-mle")
def _smoothed(rng):
    for K in (1, 2, 5, 30):
        counts = rng.integers(0, 10, size=K)
        for alpha in (0.0, 0.5, 1.0, 1e6):
            if alpha > 0 or counts.sum() > 0:
                yield counts, alpha
                yield counts.astype(float), alpha


@probe("ex-gda-n-params")
def _n_params(rng):
    for d in (1, 2, 3, 4, 7, 50):
        for K in (1, 2, 3, 10):
            for kind in ("full", "tied", "diag", "spherical"):
                yield d, K, kind


@probe("ex-gda-naive-bayes")
def _nb_lda(rng):
    return Statistical([((0.0, 3000), {"n_test": 2000}), ((0.9, 8), {}), ((-0.6, 40), {"n_test": 500})],
                       n_seeds=40)


@probe("ex-gda-logistic")
def _lda_logistic(rng):
    for d in (1, 2, 3, 6):
        for scale in (1e-2, 1.0, 1e3):
            A = rng.normal(size=(d, d))
            cov = scale**2 * (A @ A.T + d * np.eye(d))
            priors = rng.dirichlet(np.ones(2))
            yield priors, scale * rng.normal(size=(2, d)), cov


def _two_classes(rng, n, d, scale=1.0, offset=0.0):
    y = np.arange(n) % 2
    rng.shuffle(y)
    A = rng.normal(size=(d, d))
    X = scale * (rng.normal(size=(n, d)) @ A + 2 * y[:, None] * rng.normal(size=d)) + offset
    return X, y


@probe("ex-gda-fisher")
def _fisher(rng):
    for n, d in [(6, 1), (10, 2), (30, 3), (50, 6)]:
        for scale, offset in _scales():
            yield _two_classes(rng, n, d, scale, offset)


@probe("ex-gda-ledoit-wolf")
def _lw(rng):
    for X in _gaussian_data(rng):
        if X.shape[1] > 1:
            yield (X,)


@probe("ex-gda-mle")
def _gda_mle(rng):
    for n, d, K in [(6, 1, 2), (12, 2, 3), (30, 4, 5), (20, 3, 2), (40, 2, 4)]:
        for scale, offset in _scales():
            y = np.arange(n) % K
            rng.shuffle(y)
            means = scale * 3 * rng.normal(size=(K, d)) + offset
            yield means[y] + scale * rng.normal(size=(n, d)), y


def _resp(rng, n, K, zeros=False):
    resp = rng.dirichlet(np.full(K, 0.5), size=n)
    if zeros:
        resp[::2] = np.eye(K)[rng.integers(0, K, size=len(resp[::2]))]
    return resp


@probe("ex-em-lower-bound")
def _lower_bound(rng):
    for n, d, K in _sizes(rng):
        for scale, offset in _scales():
            X, weights, means, variances = _mixture(rng, n, d, K, scale, offset)
            yield X, _resp(rng, n, K), weights, means, variances
            yield X, _resp(rng, n, K, zeros=True), weights, means, variances


@probe("ex-em-dempster-q")
def _dempster(rng):
    for n, d, K in _sizes(rng):
        for scale, offset in _scales():
            X, weights, means, variances = _mixture(rng, n, d, K, scale, offset)
            _, w2, m2, v2 = _mixture(rng, n, d, K, scale, offset)
            yield X, (w2, m2, v2), (weights, means, variances)


@probe("ex-em-rate")
def _rate(rng):
    for n, _, K in _sizes(rng):
        for scale, offset in _scales():
            X, weights, means, variances = _mixture(rng, max(n, 2), 1, K, scale, offset)
            yield X[:, 0], weights, means[:, 0], variances, int(rng.integers(0, K))


@probe("ex-em-map-covariances")
def _map_cov(rng):
    for n, d, K in _sizes(rng):
        for scale, offset in _scales():
            X, *_ = _mixture(rng, n, d, K, scale, offset)
            A = rng.normal(size=(d, d))
            yield X, _resp(rng, n, K), scale**2 * (A @ A.T + np.eye(d)), float(rng.uniform(0, 5))


@probe("ex-em-run")
def _run_em(rng):
    for n, d, K in [(12, 1, 2), (30, 2, 3), (40, 3, 4), (25, 2, 2)]:
        for scale, offset in _scales()[:3]:
            X, weights, means, variances = _mixture(rng, n, d, K, scale, offset)
            for n_iter in (0, 1, 4):
                yield X, weights, means, variances, n_iter


@probe("ex-em-e-step")
def _e_step(rng):
    for n, d, K in _sizes(rng):
        for scale, offset in _scales():
            yield _mixture(rng, n, d, K, scale, offset)


@probe("ex-em-lagrange-weights")
def _lagrange(rng):
    for n, _, K in _sizes(rng):
        yield _resp(rng, n, K), rng.integers(1, 20, size=n)
        yield _resp(rng, n, K), rng.uniform(0.1, 7.0, size=n)  # the statement's counts are positive numbers
        yield _resp(rng, n, K, zeros=True), rng.integers(1, 3, size=n).astype(float)


@probe("ex-em-m-step")
def _m_step(rng):
    for n, d, K in _sizes(rng):
        for scale, offset in _scales():
            X, *_ = _mixture(rng, n, d, K, scale, offset)
            yield X, _resp(rng, n, K)


@probe("ex-em-m-step-full")
def _m_step_full(rng):
    for n, d, K in [(12, 1, 2), (30, 2, 3), (40, 3, 2), (60, 4, 3)]:
        for scale, offset in _scales():
            X, weights, means, variances = _mixture(rng, n, d, K, scale, offset)
            covs = np.stack([v * np.eye(d) for v in variances])
            yield X, weights, means, covs


@probe("ex-mean-field-update")
def _mean_field(rng):
    for n, d, M in [(1, 2, 2), (10, 3, 2), (20, 2, 4), (5, 6, 3)]:
        for scale in (0.1, 1.0, 10.0):
            W = scale * rng.normal(size=(M, d))
            X = rng.normal(size=(n, d)) * scale
            yield X, rng.random((n, M)), int(rng.integers(0, M)), rng.uniform(0.05, 0.95, size=M), W, \
                float(rng.uniform(0.1, 3.0))


@probe("ex-mean-field-gap")
def _mean_field_gap(rng):
    import lib.variational as V

    for M, d, angle in [(2, 2, 0.3), (2, 2, np.pi / 2), (3, 2, 0.9), (2, 3, 1.2)]:
        W = 2.0 * rng.normal(size=(M, d))
        params = V.FactorialParams(rng.uniform(0.2, 0.7, size=M), W, float(rng.uniform(0.3, 1.0)))
        X, _ = V.sample(params, int(rng.integers(5, 40)), rng=int(rng.integers(1000)))
        yield X, params


@probe("ex-cavi-update")
def _cavi(rng):
    for d in (2, 3, 5):
        for scale in (1e-2, 1.0, 1e3):
            A = rng.normal(size=(d, d))
            cov = scale**2 * (A @ A.T + 0.5 * np.eye(d))
            mean = scale * rng.normal(size=d)
            for j in range(d):
                yield scale * rng.normal(size=d), j, mean, cov


@probe("ex-kl-gauss-pq")
def _kl_pq(rng):
    for d in (1, 2, 3, 6):
        for scale in (1e-2, 1.0, 1e3):
            A = rng.normal(size=(d, d))
            cov = scale**2 * (A @ A.T + 0.5 * np.eye(d))
            mean = scale * rng.normal(size=d)
            qm, qv = scale * rng.normal(size=d), scale**2 * rng.uniform(0.1, 3, size=d)
            yield mean, cov, qm, qv


@probe("ex-elbo-discrete")
def _elbo(rng):
    for K in (1, 2, 3, 10):
        for scale in (1.0, 100.0, 1e4):
            log_joint = -scale * rng.random(K)
            q = rng.dirichlet(np.ones(K))
            yield log_joint, q
            q0 = q.copy()
            q0[0] = 0.0
            if q0.sum() > 0:
                yield log_joint, q0 / q0.sum()
        yield np.full(K, -np.inf), np.eye(K)[0] if K > 1 else np.ones(1)


@probe("ex-gda-conditional")
def _conditional(rng):
    for d in (2, 3, 5):
        for scale in (1e-2, 1.0, 1e3):
            A = rng.normal(size=(d, d))
            cov = scale**2 * (A @ A.T + 0.5 * np.eye(d))
            mean = scale * rng.normal(size=d)
            observed = rng.random(d) < 0.5
            observed[0], observed[-1] = True, False
            yield mean, cov, observed, scale * rng.normal(size=observed.sum())


@probe("ex-dvg-nb-right")
def _nb_right(build, build_solution):
    """An experiment: the mutant's curves agree with the solution's within its Monte Carlo noise (0.03, the
    check's own tolerance) on the book's seed and another one, and the check passes on both."""
    import lib.checks

    for seed in (0, 1):
        got, want = build(seed), build_solution(seed)
        for name in ("nb_errors", "lr_errors"):
            a, b = np.asarray(got[name], dtype=float), np.asarray(want[name], dtype=float)
            if a.shape != b.shape or np.max(np.abs(a - b)) > 0.03:
                return False, f"seed {7 + seed}: {name} differs from the solution's by more than 0.03"
        result = lib.checks.naive_bayes_right(got["sizes_ex"], got["nb_errors"], got["lr_errors"])
        if not result.passed:
            return False, f"seed {7 + seed}: {result.message[:80]}"
    return True, ""
