r"""EM for a Gaussian mixture on a Dask array: one pass over the row chunks per iteration.

Private: :meth:`lib.mixture.GaussianMixture.fit` (and its scoring methods)
come here when ``X`` is a ``dask.array.Array``.  Dask is an optional
dependency (``pip install "genmodels-lib[dask]"``); nothing in ``lib`` imports
it until a Dask array arrives.

Why it works (chapter 4, "EM when the data do not fit in memory"): the
M-step needs the data only through sums over the rows,

.. math::

    n_k = \sum_i \gamma_{ik}, \qquad
    s_k = \sum_i \gamma_{ik} (x_i - c_k), \qquad
    S_k = \sum_i \gamma_{ik} (x_i - c_k)(x_i - c_k)^\top,

and the E-step of a row needs only that row and the current parameters.  So
each chunk of rows computes its responsibilities with :func:`lib.mixture.e_step`,
its sums and its log-likelihood (the *map*); Dask adds the chunks' sums in a
tree (the *reduce*); the M-step runs on the small sums:

.. math::

    \pi_k = \frac{n_k}{n}, \qquad \mu_k = c_k + \frac{s_k}{n_k}, \qquad
    \Sigma_k = \frac{S_k}{n_k} - \frac{s_k s_k^\top}{n_k^2} + \varepsilon I .

The sums are taken about a centre :math:`c_k` per component, the current
mean :math:`\mu_k`, which every chunk knows: a point's contribution to
:math:`S_k` is then of the size of the component's spread, not of its
distance from the origin, so nothing cancels when the clusters lie far apart
against their width or far from the origin.  (About the global mean, the
correction :math:`s_k s_k^\top / n_k^2` would be as large as
:math:`S_k / n_k` and cancel it.)

Cost in passes over the data: one per EM iteration, plus one for the final
log-likelihood, plus what the initialisation needs (see
:class:`lib.mixture.GaussianMixture`, ``init_params``).
"""

import numpy as np

from ._fastpath import COUNT_EPS as _COUNT_EPS, check_not_empty as _check_not_empty
from .mixture import e_step, log_likelihood

_INSTALL = 'Dask is not installed: pip install "genmodels-lib[dask]" (or: pip install "dask[array]" distributed).'


def _dask_array():
    try:
        import dask.array as da
    except ImportError as exc:  # a Dask-like object arrived but Dask is missing
        raise ImportError(f"X is a Dask collection. {_INSTALL}") from exc
    return da


def check_dask_X(X, n_features=None):
    """A float64 Dask array of shape (n, d), chunked along rows only."""
    da = _dask_array()
    if not isinstance(X, da.Array):
        raise TypeError(f"X must be a dask.array.Array (or a numpy array); got {type(X).__name__}.")
    if X.ndim != 2:
        raise ValueError(f"X must be 2-D, shape (n_samples, n_features); got a {X.ndim}-D Dask array.")
    if any(np.isnan(c) for c in X.chunks[0]):
        raise ValueError("X has chunks of unknown size: call X.compute_chunk_sizes() first.")
    if not np.issubdtype(X.dtype, np.number) or np.issubdtype(X.dtype, np.complexfloating):
        raise TypeError(f"X must hold real numbers; its dtype is {X.dtype}.")
    if n_features is not None and X.shape[1] != n_features:
        raise ValueError(f"X has {X.shape[1]} features, but the model was fitted with {n_features}.")
    if len(X.chunks[1]) > 1:
        X = X.rechunk({1: -1})  # every chunk needs whole rows
    return X.astype(np.float64)


# ------------------------------------------------------------------ the map --

def _second_shape(K, d, covariance_type):
    return {"full": (K, d, d), "tied": (K, d, d), "diag": (K, d), "spherical": (K,)}[covariance_type]


def chunk_statistics(X, resp, centres, covariance_type):
    """The sums of one chunk about the centres c_k: (n_k (K,), s_k (K, d), S_k).

    ``S_k`` is (K, d, d) for 'full' and 'tied', (K, d) for 'diag', (K,) for 'spherical'.
    """
    K, d = centres.shape
    counts = resp.sum(axis=0)  # (K,)
    first = np.empty((K, d))
    second = np.empty(_second_shape(K, d, covariance_type))
    for k in range(K):
        diff = X - centres[k]  # (m, d): small for the points this component is responsible for
        weighted = resp[:, k, None] * diff  # (m, d)
        first[k] = weighted.sum(axis=0)
        if covariance_type in ("full", "tied"):
            second[k] = weighted.T @ diff
        elif covariance_type == "diag":
            second[k] = np.einsum("md,md->d", weighted, diff)
        else:
            second[k] = np.einsum("md,md->", weighted, diff)
    return counts, first, second


def _pack(*arrays):
    return np.concatenate([np.ravel(a) for a in arrays])[None, :]  # (1, L): one row per chunk


def _unpack(flat, K, d, covariance_type):
    shapes = [(K,), (K, d), _second_shape(K, d, covariance_type), ()]
    out, start = [], 0
    for shape in shapes:
        size = int(np.prod(shape))
        out.append(flat[start : start + size].reshape(shape))
        start += size
    return out


def _e_step_block(block, weights, means, covariances, covariance_type):
    """One chunk: E-step, its sums about the current means, its log-likelihood."""
    resp, log_norm = e_step(block, weights, means, covariances, covariance_type)
    counts, first, second = chunk_statistics(block, resp, means, covariance_type)
    return _pack(counts, first, second, log_norm.sum())


def _log_likelihood_block(block, weights, means, covariances, covariance_type):
    return np.atleast_1d(log_likelihood(block, weights, means, covariances, covariance_type))


def _hard_block(block, seeds, covariance_type):
    """One chunk: each point to its nearest seed (hard responsibilities), sums about the seeds."""
    sq_dist = ((block[:, None, :] - seeds[None, :, :]) ** 2).sum(axis=2)  # (m, K)
    resp = np.zeros((len(block), len(seeds)))
    resp[np.arange(len(block)), np.argmin(sq_dist, axis=1)] = 1.0
    counts, first, second = chunk_statistics(block, resp, seeds, covariance_type)
    return _pack(counts, first, second, 0.0)


def _random_block(block, seed, centres, covariance_type, block_info=None):
    """One chunk: responsibilities drawn at random (its own stream), sums about ``centres``."""
    index = block_info[0]["chunk-location"][0] if block_info else 0
    rng = np.random.default_rng([seed, index])
    resp = rng.uniform(size=(len(block), len(centres)))
    resp /= resp.sum(axis=1, keepdims=True)
    counts, first, second = chunk_statistics(block, resp, centres, covariance_type)
    return _pack(counts, first, second, 0.0)


def _reduce(X, func, K, covariance_type, *args, **kwargs):
    """Map ``func`` over the row chunks, add the packed sums in a tree, unpack them."""
    d = X.shape[1]
    L = K + K * d + int(np.prod(_second_shape(K, d, covariance_type))) + 1  # packed length
    per_chunk = X.map_blocks(func, *args, dtype=np.float64, chunks=((1,) * X.numblocks[0], (L,)), **kwargs)
    total = per_chunk.sum(axis=0).compute()  # tree reduction (split_every), then one small array
    return _unpack(total, K, d, covariance_type)


# --------------------------------------------------------------- the M-step --

def m_step_from_sums(counts, first, second, centres, n_samples, covariance_type, reg_covar):
    r"""(weights, means, covariances) from the sums about the centres (the module docstring)."""
    _check_not_empty(counts)
    n_k = counts + _COUNT_EPS  # (K,), as in lib.mixture.m_step
    d = centres.shape[1]
    shift = first / n_k[:, None]  # (K, d): mu_k - c_k
    means = centres + shift
    if covariance_type == "full":
        cov = second / n_k[:, None, None] - shift[:, :, None] * shift[:, None, :]
        cov[:, np.arange(d), np.arange(d)] += reg_covar
    elif covariance_type == "tied":
        cov = (second - n_k[:, None, None] * shift[:, :, None] * shift[:, None, :]).sum(axis=0) / n_k.sum()
        cov.flat[:: d + 1] += reg_covar
    elif covariance_type == "diag":
        cov = second / n_k[:, None] - shift**2 + reg_covar
    else:
        cov = (second / n_k - np.sum(shift**2, axis=1)) / d + reg_covar
    return n_k / n_samples, means, cov


# ------------------------------------------------------------------ fitting --

def initial_parameters(model, X, given, rng):
    """Initial (weights, means, covariances) for a Dask X, in the passes the docstring states."""
    n_samples = X.shape[0]
    K, cov_type = model.n_components, model.covariance_type
    if model.init_params == "given":
        return given["weights"], given["means"], given["covariances"]
    if model.init_params in ("kmeans", "k-means++", "random_from_data"):
        raise ValueError(
            f"init_params={model.init_params!r} needs all of X in memory; on a Dask array use "
            "'kmeans++' (with init_sample_size for a sample), 'random_seeds', 'random' or 'given'.")
    if model.init_params == "random":
        centres = np.zeros((K, X.shape[1]))
        sums = _reduce(X, _random_block, K, cov_type, int(rng.integers(2**31)), centres, cov_type)
    else:
        if model.init_params == "kmeans++":
            from sklearn.cluster import kmeans_plusplus

            size = min(n_samples, model.init_sample_size or n_samples)
            if size < n_samples:  # reads only the chunks that hold these rows
                sample = X[np.sort(rng.choice(n_samples, size=size, replace=False))].compute()
            else:  # all rows, drawn as the in-memory fit draws: the same seeds
                sample = X.compute()
            seeds, _ = kmeans_plusplus(sample - sample.mean(axis=0), K,
                                       random_state=int(rng.integers(np.iinfo(np.int32).max)))
            seeds = seeds + sample.mean(axis=0)
        else:  # random_seeds: the same draw, in the same order, as the in-memory fit
            seeds = X[rng.choice(n_samples, size=K, replace=False)].compute()
        sums = _reduce(X, _hard_block, K, cov_type, seeds, cov_type)
        centres = seeds
    counts, first, second, _ = sums
    weights, means, cov = m_step_from_sums(counts, first, second, centres, n_samples, cov_type, model.reg_covar)
    return given.get("weights", weights), given.get("means", means), given.get("covariances", cov)


def run_em(model, X, given, rng):
    """EM on the chunks of X: the same loop, history and stopping rule as the in-memory fit."""
    n_samples = X.shape[0]
    K, cov_type = model.n_components, model.covariance_type
    best = None
    n_runs = 1 if model.init_params == "given" else model.n_init
    for init in range(n_runs):
        theta = initial_parameters(model, X, given, rng)
        history, converged, n_iter = [], False, 0
        for n_iter in range(1, model.max_iter + 1):
            counts, first, second, log_lik = _reduce(X, _e_step_block, K, cov_type, *theta, cov_type)
            history.append(float(log_lik))
            theta = m_step_from_sums(counts, first, second, theta[1], n_samples, cov_type, model.reg_covar)
            change = (history[-1] - history[-2]) / n_samples if len(history) > 1 else np.inf
            if model.verbose >= 2 and n_iter % model.verbose_interval == 0:
                print(f"  Iteration {n_iter}: mean log-likelihood {log_lik / n_samples:.6f} "
                      f"(change {change:.3g})")
            if abs(change) < model.tol:
                converged = True
                break
        final = X.map_blocks(_log_likelihood_block, *theta, cov_type, dtype=np.float64, drop_axis=1,
                             chunks=((1,) * X.numblocks[0],))
        history.append(float(final.sum().compute()))
        bound = (history[-2] if len(history) > 1 else history[-1]) / n_samples
        if best is None or bound > best["bound"]:
            best = dict(bound=bound, theta=theta, history=history, n_iter=n_iter, converged=converged)
    return best


# ------------------------------------------------------------ fitted model --

def map_rows(model_method, X, n_features, out_columns=None, dtype=np.float64):
    """``model_method`` applied to every row chunk of X, lazily: a Dask array chunked like X."""
    X = check_dask_X(X, n_features)
    if out_columns is None:
        return X.map_blocks(model_method, dtype=dtype, drop_axis=1)
    return X.map_blocks(model_method, dtype=dtype, chunks=(X.chunks[0], (out_columns,)))
