"""lib.mixture on hard data: agreement with the book's reference EM to 1e-10.

The reference is the pure functions :func:`lib.mixture.e_step` and
:func:`lib.mixture.m_step`: they take the differences x_i - mu_k per component
before any product (Cholesky solves in :func:`lib.gaussian.log_prob`), so
nothing large cancels.  :class:`lib.mixture.GaussianMixture` runs EM through
``lib/_fastpath.py``, whose expanded quadratic forms cancel when clusters lie
far apart against their width or a covariance is nearly singular; there it
must switch to its exact route.  Each case runs a few EM iterations from the
same start in both and compares, for every covariance type: the
log-likelihood of every iteration, the fitted weights, means (relative to
their size) and covariances (relative, in the metric of the reference
covariance: ||L^-1 (C - C_ref) L^-T||), and score, score_samples and
predict_proba of the fitted model.

Hard cases: clusters 1e6 widths apart, data 1e7 from the origin, covariances
with condition number 1e10, a component of weight 1e-8, and d = 100.
"""

import warnings
import zlib

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lib import _fastpath
from lib._validation import COVARIANCE_TYPES, ConvergenceWarning
from lib.mixture import GaussianMixture, e_step, m_step

TOL = 1e-10


def clusters(rng, n, d, k, width, spread, offset=0.0, rotate=False, cond=1.0):
    """n points from k clusters: centres `spread` apart, per-feature widths `width`.

    With cond > 1 the widths go geometrically from `width` down to
    width / sqrt(cond) (covariances with condition number `cond`), in a random
    orientation when `rotate`.
    """
    centres = spread * rng.normal(size=(k, d))
    labels = np.arange(n) % k
    scales = width * np.logspace(0, -0.5 * np.log10(cond), d) * rng.uniform(0.8, 1.2, size=(k, d))
    Z = rng.normal(size=(n, d)) * scales[labels]
    if rotate:
        Q, _ = np.linalg.qr(rng.normal(size=(d, d)))
        Z = Z @ Q.T
    return centres[labels] + Z + offset, labels


def start(X, labels, k, covariance_type, reg_covar):
    """Initial parameters: one reference M-step from the true labels, slightly blurred."""
    resp = np.full((len(X), k), 0.01 / max(k - 1, 1)) if k > 1 else np.ones((len(X), 1))
    resp[np.arange(len(X)), labels] = 0.99 if k > 1 else 1.0
    return m_step(X, resp, covariance_type, reg_covar)


def hard_case(name, covariance_type):
    """(X, initial parameters, reg_covar) of a named hard case."""
    rng = np.random.default_rng(zlib.crc32(f"{name}/{covariance_type}".encode()))
    reg_covar = 0.0
    if name == "far apart (1e6 widths)":
        X, labels = clusters(rng, 600, 5, 3, width=1e-3, spread=1e3)
        theta = start(X, labels, 3, covariance_type, reg_covar)
    elif name == "offset 1e7":
        X, labels = clusters(rng, 600, 5, 3, width=1.0, spread=3.0, offset=1e7)
        theta = start(X, labels, 3, covariance_type, reg_covar)
    elif name == "condition 1e10":
        X, labels = clusters(rng, 900, 6, 3, width=1.0, spread=2.0, rotate=True, cond=1e10)
        theta = start(X, labels, 3, covariance_type, reg_covar)
    elif name == "weight 1e-8":
        X, labels = clusters(rng, 600, 4, 2, width=1.0, spread=5.0, offset=100.0)
        w, mu, cov = start(X, labels, 2, covariance_type, reg_covar)
        # a third component of weight 1e-8 on top of the first cluster
        weights = np.append(w * (1 - 1e-8), 1e-8)
        means = np.vstack([mu, mu[0] + 0.5])
        cov = cov if covariance_type == "tied" else np.concatenate([cov, cov[:1]])
        theta = (weights, means, cov)
    elif name == "d = 100, far apart":
        X, labels = clusters(rng, 1500, 100, 3, width=1e-2, spread=1e2)
        theta = start(X, labels, 3, covariance_type, 1e-12)
        reg_covar = 1e-12
    else:  # d = 100, easy: the fast path
        X, labels = clusters(rng, 1500, 100, 3, width=1.0, spread=3.0)
        theta = start(X, labels, 3, covariance_type, 1e-6)
        reg_covar = 1e-6
    return X, theta, reg_covar


CASES = ["far apart (1e6 widths)", "offset 1e7", "condition 1e10", "weight 1e-8",
         "d = 100, far apart", "d = 100, easy"]


def relative(a, b):
    """Largest difference relative to the largest entry (absolute below 1)."""
    return float(np.max(np.abs(np.asarray(a) - b)) / max(np.max(np.abs(b)), 1.0))


def reference_m_step(X, resp, covariance_type, reg_covar):
    """lib.mixture.m_step's formulas in extended precision (numpy longdouble), rounded at the end."""
    X, resp = X.astype(np.longdouble), resp.astype(np.longdouble)
    n, d = X.shape
    n_k = resp.sum(axis=0) + _fastpath.COUNT_EPS
    means = resp.T @ X / n_k[:, None]
    sq = [(resp[:, k] * (X - means[k]).T) @ (X - means[k]) for k in range(len(n_k))]  # (d, d) each
    if covariance_type == "full":
        cov = np.stack([s / n_k[k] for k, s in enumerate(sq)]) + reg_covar * np.eye(d)
    elif covariance_type == "tied":
        cov = sum(sq) / n_k.sum() + reg_covar * np.eye(d)
    else:
        cov = np.stack([np.diag(s) / n_k[k] for k, s in enumerate(sq)]) + reg_covar
        if covariance_type == "spherical":
            cov = cov.mean(axis=1)
    return tuple(np.asarray(a, dtype=np.float64) for a in (n_k / n, means, cov))


def errors(estimator_class, X, theta, covariance_type, reg_covar, n_iter=4):
    """Largest relative error of every output of `estimator_class` against the reference EM.

    Fitted values are compared with the reference trajectory (E-step:
    lib.mixture.e_step, differences first; M-step in extended precision);
    score, score_samples and predict_proba with the reference E-step at the
    estimator's own fitted parameters (a float64 mean 1e7 from the origin is
    only known to 2e-9, which alone moves log-densities by more than 1e-10).
    """
    weights, means, cov = theta
    K, d = means.shape
    history, ref = [], theta
    for _ in range(n_iter):
        resp, log_norm = e_step(X, *ref, covariance_type)
        history.append(log_norm.sum())
        ref = reference_m_step(X, resp, covariance_type, reg_covar)
    gm = estimator_class(K, covariance_type=covariance_type, init_params="given", weights_init=weights,
                         means_init=means, covariances_init=cov, max_iter=n_iter, tol=0.0,
                         reg_covar=reg_covar)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        gm.fit(X)
    fitted_resp, fitted_log_norm = e_step(X, gm.weights_, gm.means_, gm.covariances_, covariance_type)
    cov_ref = ref[2] if covariance_type != "tied" else ref[2][None]
    cov_got = gm.covariances_ if covariance_type != "tied" else gm.covariances_[None]
    return {
        "log-likelihood": relative(gm.log_likelihood_history_[:n_iter], np.array(history)),
        "weights": float(np.max(np.abs(gm.weights_ - ref[0]) / ref[0])),
        "means": relative(gm.means_, ref[1]),
        "covariances": max(relative(c, r) for c, r in zip(cov_got, cov_ref, strict=True)),
        "score": relative(gm.score(X), fitted_log_norm.mean()),
        "score_samples": relative(gm.score_samples(X), fitted_log_norm),
        "predict_proba": float(np.max(np.abs(gm.predict_proba(X) - fitted_resp))),
    }


@pytest.mark.parametrize("covariance_type", COVARIANCE_TYPES)
@pytest.mark.parametrize("case", CASES)
def test_hard_data_agree_with_the_reference(case, covariance_type):
    X, theta, reg_covar = hard_case(case, covariance_type)
    errs = errors(GaussianMixture, X, theta, covariance_type, reg_covar)
    assert max(errs.values()) <= TOL, errs


@pytest.mark.parametrize("covariance_type", COVARIANCE_TYPES)
def test_hard_cases_are_hard(covariance_type):
    """The far-apart and ill-conditioned cases lie beyond the fast path's bound, the easy one within."""
    def bound(case):
        X, theta, reg_covar = hard_case(case, covariance_type)
        w, mu, cov = m_step(X, e_step(X, *theta, covariance_type)[0], covariance_type, reg_covar)
        return _fastpath.cancellation_bound(mu - X.mean(axis=0), cov, covariance_type)

    assert bound("far apart (1e6 widths)") > 1e7 * _fastpath.MAX_CANCELLATION  # ~ (1e6 widths)^2
    assert bound("d = 100, far apart") > _fastpath.MAX_CANCELLATION
    assert bound("d = 100, easy") <= _fastpath.MAX_CANCELLATION
    assert bound("offset 1e7") <= _fastpath.MAX_CANCELLATION  # centring is enough there
    if covariance_type in ("full", "tied"):  # rotated: the cancellation shows in x^T P x
        assert bound("condition 1e10") > _fastpath.MAX_CANCELLATION


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(0, 2**32 - 1),
    log_ratio=st.floats(0.0, 6.0),
    log_offset=st.floats(0.0, 7.0),
    covariance_type=st.sampled_from(COVARIANCE_TYPES),
)
def test_any_separation_and_offset_agree_with_the_reference(seed, log_ratio, log_offset, covariance_type):
    """Both sides of the fast path's boundary, and the boundary itself."""
    rng = np.random.default_rng(seed)
    X, labels = clusters(rng, 300, 3, 3, width=1.0, spread=10.0**log_ratio, offset=10.0**log_offset)
    theta = start(X, labels, 3, covariance_type, 1e-6)
    errs = errors(GaussianMixture, X, theta, covariance_type, 1e-6, n_iter=3)
    assert max(errs.values()) <= TOL, errs


def test_chunk_statistics_add_up_to_the_whole():
    """Statistics of chunks about the current means add up to those of all the data (for chunked EM)."""
    rng = np.random.default_rng(3)
    for covariance_type in COVARIANCE_TYPES:
        for case in ("far apart (1e6 widths)", "offset 1e7"):
            X, theta, reg_covar = hard_case(case, covariance_type)
            chunks = np.array_split(X[rng.permutation(len(X))], 4)
            exact = None
            for _ in range(2):  # the contract: redo the components that the M-step made hard
                parts = [_fastpath.chunk_statistics(chunk, *theta, covariance_type, exact=exact)
                         for chunk in chunks]
                total = parts[0] + parts[1] + (parts[2] + parts[3])
                got = _fastpath.m_step(total, theta[1], len(X), covariance_type, reg_covar)
                newly_hard = _fastpath.hard(*got, covariance_type) & ~_fastpath.hard(*theta, covariance_type)
                if exact is not None or not newly_hard.any():
                    break
                exact = newly_hard
            resp, log_norm = e_step(X, *theta, covariance_type)
            want = reference_m_step(X, resp, covariance_type, reg_covar)
            assert total.log_likelihood == pytest.approx(log_norm.sum(), rel=TOL)
            K, d = theta[1].shape
            assert relative(got[1], want[1]) <= TOL
            assert relative(got[2], want[2]) <= TOL


@pytest.mark.parametrize("keep_features", [True, False])
@pytest.mark.parametrize("covariance_type", COVARIANCE_TYPES)
def test_samples_far_from_every_component_agree_with_the_reference(monkeypatch, covariance_type,
                                                                   keep_features):
    """Samples 1e3 widths from every component: the fast path's log-sum-exp, shifted by the
    ceiling of the log-densities instead of each sample's maximum, would underflow for them,
    so their blocks are redone with the maxima (lib/_fastpath.py, normalise_shifted); with
    the features kept and rebuilt at every pass (full: SufficientStatistics._feature_pass)."""
    if not keep_features:
        monkeypatch.setattr(_fastpath, "KEEP_FEATURES_BYTES", 0)
        monkeypatch.setattr(_fastpath, "BLOCK_BYTES", 1)  # blocks of 64 rows: most need no redo
    rng = np.random.default_rng(11)
    X, labels = clusters(rng, 600, 4, 3, width=1.0, spread=3.0, offset=50.0)
    theta = start(X, labels, 3, covariance_type, 1e-6)
    X = np.vstack([X, X[:3] + 1e3])  # the start knows nothing of them
    declined = []
    shifted = _fastpath.normalise_shifted

    def spy(log_p):
        total = shifted(log_p)
        declined.append(total is None)
        return total

    monkeypatch.setattr(_fastpath, "normalise_shifted", spy)
    errs = errors(GaussianMixture, X, theta, covariance_type, 1e-6)
    assert any(declined) and not all(declined)
    assert max(errs.values()) <= TOL, errs
