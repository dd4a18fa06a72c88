r"""EM for a Gaussian mixture on a Dask array: one pass over the row chunks per iteration.

Private: :meth:`lib.mixture.GaussianMixture.fit` (and its scoring methods)
come here when ``X`` is a ``dask.array.Array``.  Dask is an optional
dependency (``pip install "genmodels-lib[dask]"``); nothing in ``lib`` imports
it until a Dask array arrives.

Why it works (chapter 4, "EM when the data do not fit in memory"): the
M-step needs the data only through sums over the rows: soft counts n_k and
the first and second moments about a centre c_k per component, the current
mean, which every chunk knows,

.. math::

    n_k = \sum_i \gamma_{ik}, \qquad
    n_k \delta_k = \sum_i \gamma_{ik} (x_i - c_k), \qquad
    S_k = \sum_i \gamma_{ik} (x_i - c_k)(x_i - c_k)^\top,

and the E-step of a row needs only that row and the current parameters.  So
each chunk computes its responsibilities, its sums and its log-likelihood
with the in-memory fit's own code, :func:`lib._fastpath.chunk_statistics`
(the *map*; fast or exact route per component, as in memory); Dask adds the
chunks' :class:`lib._fastpath.Statistics` in a tree (the *reduce*); and
:func:`lib._fastpath.m_step` turns the small sums into new parameters.  The
sums are about the current means, so a point's contribution to S_k is of the
size of the component's spread plus the step, not of its distance from the
origin.  The M-step's subtraction S_k / n_k - delta_k delta_k^T still cancels
digits: with sigma the component's width, about 2 log10(||delta_k|| / sigma)
of the 16 digits are lost, ||delta_k|| being the distance of the centre from
the new mean (book: chapters/04_4_em_at_scale.md, equation
``em-sums-m-step``).  About the origin that is the mean's own distance from 0,
at every iteration; about the current means it is only the step of an
iteration, large early in a fit (when a mean still moves by many widths) and
vanishing as EM converges, so the converged fit keeps its digits.  The first
sums of ``init_params="random"`` are about the origin (no mean exists yet): on
data far from the origin use ``"k-means++_nearest"`` or ``"random_seeds"``, or centre
the data.  The EM loop itself (history, stopping rule, best of ``n_init``,
warm start) is :meth:`lib.mixture.GaussianMixture._run_em` over
:func:`lib._fastpath.em_iteration`, the same for both backends:
:class:`ChunkedData` offers it the in-memory backend's interface.

Cost in passes over the data: one per EM iteration, plus one for the final
log-likelihood, plus what the initialisation needs (see
:class:`lib.mixture.GaussianMixture`, ``init_params``).
"""

import numpy as np

from . import _fastpath

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
    """Shape of Statistics.second (lib/_fastpath.py): tied sums over the components."""
    return {"full": (K, d, d), "tied": (d, d), "diag": (K, d), "spherical": (K,)}[covariance_type]


def _pack(stats):
    return np.concatenate([np.ravel(a) for a in stats])[None, :]  # (1, L): one row per chunk


def _unpack(flat, K, d, covariance_type):
    shapes = [(K,), (K, d), _second_shape(K, d, covariance_type), ()]
    out, start = [], 0
    for shape in shapes:
        size = int(np.prod(shape))
        out.append(flat[start : start + size].reshape(shape))
        start += size
    out[3] = float(out[3])
    return _fastpath.Statistics(*out)


def _e_step_block(block, weights, means, covariances, covariance_type, exact):
    """One chunk: E-step, its sums about the current means, its log-likelihood."""
    return _pack(_fastpath.chunk_statistics(block, weights, means, covariances, covariance_type, exact=exact))


def _log_likelihood_block(block, weights, means, covariances, covariance_type):
    """One chunk's log-likelihood, by the in-memory fit's own scoring (fast or exact route per component)."""
    log_p = _fastpath.log_joint(block, weights, means, covariances, covariance_type, shift=weights @ means)
    return np.atleast_1d(_fastpath.log_normaliser(log_p).sum())


def _hard_block(block, seeds, covariance_type):
    """One chunk: each point to its nearest seed (hard responsibilities), sums about the seeds."""
    sq_dist = ((block[:, None, :] - seeds[None, :, :]) ** 2).sum(axis=2)  # (m, K)
    resp = np.zeros((len(block), len(seeds)))
    resp[np.arange(len(block)), np.argmin(sq_dist, axis=1)] = 1.0
    return _pack(_fastpath.moments(block, resp, seeds, covariance_type))


def _random_block(block, seed, centres, covariance_type, block_info=None):
    """One chunk: responsibilities drawn at random (its own stream), sums about ``centres``."""
    index = block_info[0]["chunk-location"][0] if block_info else 0
    rng = np.random.default_rng([seed, index])
    resp = rng.uniform(size=(len(block), len(centres)))
    resp /= resp.sum(axis=1, keepdims=True)
    return _pack(_fastpath.moments(block, resp, centres, covariance_type))


def _reduce(X, func, K, covariance_type, *args, **kwargs):
    """Map ``func`` over the row chunks, add the packed sums in a tree: one Statistics."""
    d = X.shape[1]
    L = K + K * d + int(np.prod(_second_shape(K, d, covariance_type))) + 1  # packed length
    per_chunk = X.map_blocks(func, *args, dtype=np.float64, chunks=((1,) * X.numblocks[0], (L,)), **kwargs)
    total = per_chunk.sum(axis=0).compute()  # tree reduction (split_every), then one small array
    return _unpack(total, K, d, covariance_type)


# ------------------------------------------------------------------ fitting --

class ChunkedData:
    """A Dask array as a statistics backend of the one EM loop (:func:`lib._fastpath.em_iteration`).

    Its interface is that of the in-memory backend,
    :class:`lib._fastpath.SufficientStatistics`: ``hard``, ``e_step`` and
    ``final`` (each pass one pass over the chunks), plus ``initial_parameters``.
    It does not import the estimator.
    """

    def __init__(self, X, covariance_type, n_components):
        self.X = X
        self.n_samples = X.shape[0]
        self.covariance_type = covariance_type
        self.n_components = n_components

    def e_step(self, theta, hard):
        """One pass: every chunk's E-step and sums about theta's means, added in a tree."""
        return _reduce(self.X, _e_step_block, self.n_components, self.covariance_type,
                       *theta, self.covariance_type, hard)

    def hard(self, theta):
        """Boolean (K,): the components that take the exact route, chosen from theta (every chunk alike)."""
        return _fastpath.hard(*theta, self.covariance_type)

    def final(self, theta):
        """The log-likelihood at theta (one pass); labels are left to ``predict`` (lazy): None."""
        final = self.X.map_blocks(_log_likelihood_block, *theta, self.covariance_type, dtype=np.float64,
                                  drop_axis=1, chunks=((1,) * self.X.numblocks[0],))
        return float(final.sum().compute()), None

    def initial_parameters(self, init_params, reg_covar, init_sample_size, given, rng):
        """Initial (weights, means, covariances), in the passes the module docstring states."""
        X, n_samples = self.X, self.n_samples
        K, cov_type = self.n_components, self.covariance_type
        if init_params == "given":
            return given["weights"], given["means"], given["covariances"]
        if init_params in ("kmeans", "k-means++", "random_from_data"):
            raise ValueError(
                f"init_params={init_params!r} needs all of X in memory; on a Dask array use "
                "'k-means++_nearest' (with init_sample_size for a sample), 'random_seeds', 'random' or 'given'.")
        if init_params == "random":
            centres = np.zeros((K, X.shape[1]))
            stats = _reduce(X, _random_block, K, cov_type, int(rng.integers(2**31)), centres, cov_type)
        else:
            if init_params == "k-means++_nearest":
                from sklearn.cluster import kmeans_plusplus

                size = min(n_samples, init_sample_size or n_samples)
                if size < n_samples:  # reads only the chunks that hold these rows
                    sample = X[np.sort(rng.choice(n_samples, size=size, replace=False))].compute()
                else:  # all rows, drawn as the in-memory fit draws: the same seeds
                    sample = X.compute()
                seeds, _ = kmeans_plusplus(sample - sample.mean(axis=0), K,
                                           random_state=int(rng.integers(np.iinfo(np.int32).max)))
                seeds = seeds + sample.mean(axis=0)
            else:  # random_seeds: the same draw, in the same order, as the in-memory fit
                seeds = X[rng.choice(n_samples, size=K, replace=False)].compute()
            stats = _reduce(X, _hard_block, K, cov_type, seeds, cov_type)
            centres = seeds
        weights, means, cov = _fastpath.m_step(stats, centres, n_samples, cov_type, reg_covar)
        return given.get("weights", weights), given.get("means", means), given.get("covariances", cov)


# ------------------------------------------------------------ fitted model --

def map_rows(model_method, X, n_features, out_columns=None, dtype=np.float64):
    """``model_method`` applied to every row chunk of X, lazily: a Dask array chunked like X."""
    X = check_dask_X(X, n_features)
    if out_columns is None:
        return X.map_blocks(model_method, dtype=dtype, drop_axis=1)
    return X.map_blocks(model_method, dtype=dtype, chunks=(X.chunks[0], (out_columns,)))
