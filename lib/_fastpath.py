r"""The fast path shared by the estimators: Gaussian log-densities as matrix products.

Private: the book's reference implementations are :func:`lib.gaussian.log_prob`
and the step functions of :mod:`lib.mixture`; the tests hold this module
against them.  :class:`lib.mixture.GaussianMixture` runs EM through it, and
``predict``/``predict_proba``/``score_samples`` of the mixture and of
:class:`lib.discriminant.GaussianDiscriminantAnalysis` score new data with it.

ln pi_k + ln N(x | mu_k, Sigma_k) is a linear function of features of x:

    = c_k + x^T P_k mu_k - 1/2 x^T P_k x,        P_k = Sigma_k^{-1}.

Stacking the features of the centred data in a matrix phi(X) (one row per
sample), the E-step's log-probabilities are ONE product phi(X) @ W with a
(D, K) matrix W of natural parameters, and the M-step's soft sums
n_k, sum_i gamma_ik x_i, sum_i gamma_ik x_i x_i^T are ONE product resp.T @ phi(X).

  covariance  features phi(x)              D                 E-step
  full d<=20  [1, x, x_a x_b (a <= b)]     1 + d + d(d+1)/2   phi @ W
  full d>20   [1, x]                       1 + d              Y = phi @ B, (n, K*d):
                                                              -1/2 ||L_k^{-1}(x - mu_k)||^2
  tied        [1, x]                       1 + d              phi @ W - 1/2 ||L^{-1} x||^2
  diag        [1, x, x**2]                 1 + 2d             phi @ W
  spherical   [1, x, ||x||^2]              2 + d              phi @ W

For full covariances in many dimensions, x x^T has d(d+1)/2 columns and
reading it costs more than it saves; the second route evaluates all K
quadratic forms with one product against the stacked factors
B = [[-mu_1^T U_1, ..., -mu_K^T U_K], [U_1, ..., U_K]], U_k = L_k^{-T} (in pieces
of rows that skip the triangular factors' zeros: :func:`triangular_pieces`), and
its M-step gets sum_i gamma_ik x_i x_i^T from general products in pieces of
columns that skip the lower triangle (:func:`_moments_pieces`), or from one
symmetric rank update (BLAS syrk) per component on sqrt(gamma_ik) x_i where
this CPU's BLAS runs that faster (:func:`second_moment_kernel`).

In a pass (:meth:`SufficientStatistics.e_step`) the log-probabilities of a
block are held with one row per component, R of shape (K, m): the
log-sum-exp then runs along contiguous rows, and the soft sums are R @ phi.
The log-sum-exp is shifted by a bound known in advance instead of each
sample's maximum (the ceiling max_k ln pi_k - (d ln 2 pi + ln det Sigma_k)/2,
folded into W): one exponential, one sum and one scaling per entry, and the
block is redone with the maxima in the rare case that a sample lies so far
from every component that its exponentials would underflow
(:func:`normalise_shifted`).

Centring the data once (shift = a point near the data: the mean of X, or the
model's overall mean) removes a global offset (data 1e7 from the origin keep
their digits).  The work is done on row blocks small enough to stay in cache
between the E-step and the M-step.

One EM loop, two backends: :func:`em_iteration` is the loop body for the rows
in memory (:class:`SufficientStatistics`) and for the chunks of a Dask array
(``lib._dask.ChunkedData``); both offer ``hard``, ``e_step`` and ``final``,
and neither imports the estimator, :class:`lib.mixture.GaussianMixture`.

Where the fast path loses digits, and the exact route
-----------------------------------------------------
The expanded forms cancel.  For component k the E-step adds terms
x_a x_b P_ab, x_a (P mu)_a and mu^T P mu whose sum, (x - mu)^T P (x - mu), is
about d near the component, while each term is about (x - shift)^T P (x - shift);
the M-step's Sigma = second/n_k - mu mu^T cancels the same way.  The rounding
error, relative to the result, is therefore about eps * B_k with

    B_k = |mu_k - s|^T |P_k| |mu_k - s| + sum_ab |P_k|_ab |Sigma_k|_ab

(|.| entrywise; for diag and spherical the per-feature sum
sum_j ((mu_kj - s_j)^2 + sigma_kj^2) / sigma_kj^2).  B is large when clusters
lie far apart against their width (B ~ ratio^2: global centring cannot help,
the clusters are far from any single centre) or when a covariance is nearly
singular and the data spread along its wide directions (B ~ condition number).
:func:`cancellation_bounds` computes every B_k from the current parameters in
O(K d^2) (plus K small Cholesky factorisations).  The boundary:
:data:`MAX_CANCELLATION` = 1e5, so eps * B_k <= 2.2e-11 on the fast path
(a component more than about 300 of its widths from the centre, or a
covariance of condition number above about 1e5 with data along its wide
directions, is beyond it).  A component beyond it takes the **exact route**
(:func:`_exact_log_prob`, :func:`_exact_moments`): the differences x_i - mu_k
are formed first, as in the reference :func:`lib.gaussian.log_prob`, and its
second moments are summed about the current mean; the other components stay
on the fast path (tied covariances: all or none, the tied M-step sums over
components).  Because the M-step's cancellation is governed by the *new*
parameters, a component that an M-step makes hard is redone by the exact
route in the same iteration (:func:`em_iteration`).  The
exact route costs about what scikit-learn's E- and M-steps cost (K products
of d x d per row), so hard components are fitted at roughly scikit-learn's
speed, and to (better than) its digits.  A global offset alone never needs
it: centring removes it, and B_k does not see it.

Statistics and the M-step (also for chunked or distributed data)
----------------------------------------------------------------
Both routes return the same :class:`Statistics`: soft counts, first and second
moments **about per-component centres c_k shared by every chunk (the current
means)**, and the log-likelihood.  Moments about the current means are small
(of the size of the data's spread, not of their distance from the origin), so
they can be summed over chunks without losing digits, and :func:`m_step`
turns the sum into new parameters exactly (no large terms cancel).  A chunked
fit (e.g. dask) runs, per iteration, ``chunk_statistics(chunk, weights,
means, covariances, covariance_type)`` on every chunk, adds the results with
:meth:`Statistics.__add__` (a tree reduction is fine: the sum is associative up
to rounding), and calls ``m_step(total, means, n_samples, covariance_type,
reg_covar)``.

Every function here trusts its inputs: the public callers validate them.
"""

from functools import lru_cache
from typing import NamedTuple

import numpy as np
from scipy.linalg.lapack import dtrtri
from scipy.linalg.blas import dsyrk
from threadpoolctl import ThreadpoolController

from .gaussian import NotPositiveDefiniteError, cholesky_factors

_LOG_2PI = np.log(2.0 * np.pi)

#: Full covariances in more dimensions than this take the stacked-Cholesky
#: route of the fast path instead of the x x^T features (measured crossover).
MAX_QUADRATIC_FEATURES_DIM = 20

#: The fast path keeps wide features phi(X) (x**2, x x^T) of all rows when they
#: take at most this many bytes; narrow ones ([1, x], [1, x, ||x||^2]) are always
#: kept.  See :class:`SufficientStatistics`.
KEEP_FEATURES_BYTES = 32 << 20  # 32 MiB

#: The fast path works on blocks of rows whose per-block arrays take about this
#: many bytes (four times as many on the stacked-Cholesky route, whose products
#: are larger), so that a block stays in cache between the E- and the M-step.
#: Measured (CPU time, n = 1e5, k = 10, benchmarks/README.md): 512 KiB is 10-45%
#: faster than 2 MiB for every layout with features, and 2 MiB best for the
#: Cholesky route at d = 50.
BLOCK_BYTES = 1 << 19  # 512 KiB

#: Block size on the stacked-Cholesky route (full, d > 20), where the (K d, m)
#: product Y dominates.  Measured at n = 1e5, d = 50, k = 10 (CPU time, interleaved):
#: 16 MiB blocks (4194 rows) 15% faster than 2 MiB; 32 MiB slower.
CHOLESKY_BLOCK_BYTES = 1 << 24  # 16 MiB

#: Largest cancellation bound B (see the module docstring) for which the fast
#: path is used; above it the exact route runs.  eps * 1e5 = 2.2e-11.
MAX_CANCELLATION = 1e5

#: Added to every soft count n_k before dividing by it, exactly as scikit-learn
#: does, so the M-step of a nearly empty component stays finite.
COUNT_EPS = 10 * np.finfo(np.float64).eps


_CONTROLLER = None


def one_blas_thread():
    """Context manager that limits BLAS to one thread (see "Threads" in lib.mixture.GaussianMixture).

    The controller is created once, at first use: creating it scans the
    loaded libraries (about 0.5 ms); entering its ``limit`` costs microseconds.
    """
    global _CONTROLLER
    if _CONTROLLER is None:
        _CONTROLLER = ThreadpoolController()
    return _CONTROLLER.limit(limits=1, user_api="blas")


def cholesky_route(covariance_type, n_features):
    return covariance_type == "full" and n_features > MAX_QUADRATIC_FEATURES_DIM


def n_phi_columns(n_features, covariance_type):
    d = n_features
    if covariance_type == "tied" or cholesky_route(covariance_type, d):
        return 1 + d
    return {"full": 1 + d + d * (d + 1) // 2, "diag": 1 + 2 * d, "spherical": 2 + d}[covariance_type]


def row_blocks(n_samples, n_features, n_components, covariance_type):
    """Slices of rows such that one block's arrays take about BLOCK_BYTES, of a length that is
    not a multiple of 512 rows."""
    width = max(n_phi_columns(n_features, covariance_type), n_components)
    size = BLOCK_BYTES
    if cholesky_route(covariance_type, n_features):
        width = n_components * n_features  # Y = phi @ B dominates
        size = CHOLESKY_BLOCK_BYTES
    step = max(64, size // (8 * width))
    if step % 512 == 0:
        # rows of 4 KiB multiples put every row of a (., m) buffer in the same cache sets:
        # measured on the Cholesky route, n = 1e5, SkylakeX kernels, CPU per iteration:
        # d = 32, k = 16: 4096 rows 199-213 ms, 4160 rows 158-165; d = 64, k = 8: 259-268
        # against 227-230; at d = 50, k = 10, 2048 and 8192 rows were 15% slower than 2100
        step += 64
    return [slice(start, min(start + step, n_samples)) for start in range(0, n_samples, step)]


def is_narrow(covariance_type, n_features):
    """Whether phi(x) is [1, x] or [1, x, ||x||^2]: then columns 1..d of phi are the centred data."""
    return covariance_type in ("tied", "spherical") or cholesky_route(covariance_type, n_features)


def features(X, covariance_type, shift=0.0):
    """phi(X - shift), shape (m, D): see the table above.

    The data are centred while they are copied into phi, so for the narrow
    layouts (:func:`is_narrow`) ``phi[:, 1 : 1 + d]`` can serve as the centred
    data without a second copy.
    """
    m, d = X.shape
    D = n_phi_columns(d, covariance_type)
    if D == 1 + d or covariance_type in ("diag", "spherical"):
        phi = np.empty((m, D))
        phi[:, 0] = 1.0
        Xc = phi[:, 1 : 1 + d]  # (m, d) view
        np.subtract(X, shift, out=Xc)
        if covariance_type == "diag":
            np.square(Xc, out=phi[:, 1 + d :])
        elif covariance_type == "spherical":
            np.einsum("ij,ij->i", Xc, Xc, out=phi[:, 1 + d])
        return phi
    # full: built transposed so that every product x_a x_b is a contiguous row
    phiT = np.empty((D, m))
    phiT[0] = 1.0
    np.subtract(X, shift, out=phiT[1 : 1 + d].T)  # the centred data, written once, transposed
    fill_quadratic(phiT, d)
    return phiT.T  # (m, D), Fortran-ordered: fine for BLAS


@lru_cache(maxsize=None)
def quadratic_pairs(n_features):
    """Row and column indices (a, b), a <= b, of the features x_a x_b in their order in phi.

    Ordered by diagonal: (a, a + s) for s = 0, ..., d - 1, so that
    :func:`fill_quadratic` builds each diagonal with one same-shape product.
    """
    d = n_features
    rows = np.concatenate([np.arange(d - s) for s in range(d)])
    cols = np.concatenate([np.arange(s, d) for s in range(d)])
    rows.flags.writeable = cols.flags.writeable = False
    return rows, cols


def fill_quadratic(phiT, d):
    """Rows 1 + d, ... of phiT (D, m) from its rows 1..d (the centred data): x_a x_b in
    :func:`quadratic_pairs` order.

    One product per diagonal, between two blocks of whole rows of the same shape
    (measured 1.3 times faster than one broadcast product per row a: numpy's
    broadcasting loop is slower than its contiguous one).
    """
    XcT = phiT[1 : 1 + d]
    row = 1 + d
    for s in range(d):
        np.multiply(XcT[: d - s], XcT[s:], out=phiT[row : row + d - s])
        row += d - s


class Natural(NamedTuple):
    """What :func:`natural_parameters` returns: see there."""

    route: str
    W: np.ndarray
    extra: np.ndarray | None
    ceiling: float

    def shifted(self, s):
        """The same parameters for ln pi_k + ln N(x | mu_k, Sigma_k) - s."""
        W = self.W - s if self.route == "cholesky" else np.vstack([self.W[:1] - s, self.W[1:]])
        return self._replace(W=W, ceiling=self.ceiling - s)


def factors(covariances, covariance_type):
    """Cholesky factors L_k (Sigma_k = L_k L_k^T) and their inverses, each (K, d, d) ((1, d, d) for tied).

    One batched factorisation (numpy) and one LAPACK ``trtri`` per component:
    per iteration this is called for the E-step's parameters and for the
    cancellation bounds of the old and the new parameters, and scipy's
    ``cholesky``/``solve_triangular`` cost about 100 microseconds per call in
    argument handling (measured: 3 ms per EM iteration at k = 10, a fifth of an
    iteration at n = 1e5, d = 10).  A matrix that is not positive definite is
    passed to :func:`lib.gaussian.cholesky_factors` for its error message.
    """
    covs = np.asarray(covariances, dtype=np.float64)
    covs = covs if covariance_type == "full" else covs[None]
    try:
        chols = np.linalg.cholesky(covs)
        ok = bool(np.isfinite(chols).all())
    except np.linalg.LinAlgError:
        ok = False
    if not ok:
        chols = cholesky_factors(covariances, covariance_type)  # raises NotPositiveDefiniteError
        chols = chols if covariance_type == "full" else chols[None]
    L_inv = np.empty_like(chols)
    for k, L in enumerate(chols):
        L_inv[k], info = dtrtri(L, lower=1)
        if info != 0:
            raise NotPositiveDefiniteError(f"covariance {k} has a singular Cholesky factor; increase reg_covar.")
    return chols, L_inv


def natural_parameters(weights, means_c, covariances, covariance_type):
    """Parameters of the linear form, see the table above.

    Returns a :class:`Natural` ``(route, W, extra, ceiling)``:
    ``("linear", W (D, K), None)`` for full (d <= 20), diag, spherical;
    ``("tied", W (1 + d, K), L^{-1} (d, d))`` for tied;
    ``("cholesky", c (K,), B (1 + d, K d))`` for full (d > 20).
    ``ceiling`` = max_k (ln pi_k - (d ln 2 pi + ln det Sigma_k) / 2) bounds every
    log-probability from above (the Mahalanobis term is >= 0).
    """
    n_components, d = means_c.shape
    with np.errstate(divide="ignore"):
        log_weights = np.log(weights)  # (K,)
    if covariance_type in ("diag", "spherical"):
        precision = 1.0 / covariances  # (K, d) or (K,)
        if covariance_type == "spherical":
            log_det = d * np.log(covariances)
            maha_mean = np.sum(means_c**2, axis=1) * precision  # mu^T P mu
            quad = -0.5 * precision[None, :]  # (1, K): coefficient of ||x||^2
            linear = (means_c * precision[:, None]).T  # (d, K)
        else:
            log_det = np.log(covariances).sum(axis=1)
            maha_mean = np.sum(means_c**2 * precision, axis=1)
            quad = -0.5 * precision.T  # (d, K): coefficients of x_j^2
            linear = (means_c * precision).T
        ceiling = float(np.max(log_weights - 0.5 * (d * _LOG_2PI + log_det)))
        const = log_weights - 0.5 * (d * _LOG_2PI + log_det + maha_mean)
        return Natural("linear", np.vstack([const, linear, quad]), None, ceiling)

    chols, L_inv = factors(covariances, covariance_type)  # L_k with Sigma_k = L_k L_k^T, L_k^{-1}
    log_det = 2.0 * np.log(np.diagonal(chols, axis1=1, axis2=2)).sum(axis=1)  # (K,) or (1,)
    if covariance_type == "tied":
        L_inv = np.broadcast_to(L_inv, (n_components, d, d))
    z = np.einsum("kab,kb->ka", L_inv, means_c)  # (K, d): L_k^{-1} mu_k
    const = log_weights - 0.5 * (d * _LOG_2PI + log_det)  # (K,)
    ceiling = float(np.max(const))

    if cholesky_route(covariance_type, d):
        U = np.swapaxes(L_inv, 1, 2)  # (K, d, d): U_k = L_k^{-T}
        B = np.empty((1 + d, n_components * d))
        B[0] = -z.reshape(-1)  # -mu_k^T U_k = -(L_k^{-1} mu_k)^T
        B[1:] = np.swapaxes(U, 0, 1).reshape(d, n_components * d)  # [U_1, ..., U_K]
        return Natural("cholesky", const, B, ceiling)

    const -= 0.5 * np.sum(z**2, axis=1)  # - mu_k^T P_k mu_k / 2

    precisions = np.swapaxes(L_inv, 1, 2) @ L_inv  # (K, d, d): P_k = L_k^{-T} L_k^{-1}
    linear = np.einsum("kab,kb->ak", precisions, means_c)  # (d, K): P_k mu_k
    if covariance_type == "tied":
        return Natural("tied", np.vstack([const, linear]), L_inv[0], ceiling)
    rows, cols = quadratic_pairs(d)
    quad = -precisions[:, rows, cols]  # (K, d(d+1)/2): -P_ab counts x_a x_b and x_b x_a
    quad[:, rows == cols] *= 0.5  # -P_aa / 2 on the diagonal
    return Natural("linear", np.vstack([const, linear, quad.T]), None, ceiling)


def weighted_log_prob(phi, natural):
    """ln pi_k + ln N(x_i | mu_k, Sigma_k) for the rows of phi, shape (m, K)."""
    route, W, extra, _ = natural
    if route == "cholesky":
        m, K, d = phi.shape[0], W.shape[0], phi.shape[1] - 1
        Y = (phi @ extra).reshape(m, K, d)  # (m, K, d): L_k^{-1} (x_i - mu_k)
        return W - 0.5 * np.einsum("mkd,mkd->mk", Y, Y)
    out = phi @ W  # (m, D) x (D, K)
    if route == "tied":
        y = phi[:, 1:] @ extra.T  # (m, d): L^{-1} x_i
        out -= 0.5 * np.einsum("md,md->m", y, y)[:, None]
    return out


def normalise_rows(log_p):
    """In place: log_p (m, K) becomes the responsibilities; returns ln sum_k exp(log_p), shape (m,).

    The log-sum-exp trick, with a single exponential per entry.
    """
    row_max = log_p.max(axis=1, keepdims=True)  # (m, 1)
    log_p -= row_max
    np.exp(log_p, out=log_p)
    total = log_p.sum(axis=1, keepdims=True)  # (m, 1), >= 1
    log_p /= total
    return (row_max + np.log(total))[:, 0]


def weighted_log_prob_columns(phi, natural, scratch=None):
    """:func:`weighted_log_prob` transposed: shape (K, m), one row per component.

    In this layout the log-sum-exp over components (:func:`normalise_columns`)
    runs along contiguous rows of length m instead of across rows of length K
    (measured 2.4 times faster for K = 10), and the M-step's sums are R @ phi.
    ``scratch`` (optional): preallocated buffers of a pass ("R" (K, m) for the
    output; on the Cholesky route also "Y", see :func:`squared_distances`).
    """
    route, W, extra, _ = natural
    phiT = phi.T  # (D, m): contiguous for the full layout (built transposed), a view otherwise
    m = phiT.shape[1]
    out = None if scratch is None else scratch["R"][:, :m]
    if route == "cholesky":
        K = W.shape[0]
        out = squared_distances(phiT, _pieces_of(extra, K), K, out, None if scratch is None else scratch["Y"])
        out *= -0.5
        out += W[:, None]
        return out
    out = np.matmul(W.T, phiT, out=out)  # (K, m)
    if route == "tied":
        y = extra @ phiT[1:]  # (d, m): L^{-1} x_i
        np.square(y, out=y)
        out -= 0.5 * y.sum(axis=0)
    return out


def squared_distances(phiT, pieces, n_components, out=None, Y=None):
    """||L_k^{-1}(x_i - mu_k)||^2 for every component and row, shape (K, m), into ``out``.

    phiT = [1, x]^T (1 + d, m); ``pieces`` from :func:`triangular_pieces`; ``Y`` an optional
    buffer of at least (K w, m) entries for each piece's product (w = TRIANGULAR_PIECE).
    The squares are summed by one ``einsum`` per piece, which reads each product once
    (measured 5-10% faster per pass than squaring in place and summing the reshaped rows).
    """
    K, m = n_components, phiT.shape[1]
    out = np.empty((K, m)) if out is None else out
    if Y is None:
        Y = np.empty(pieces[0][1].shape[0] * m)  # the first piece is the widest
    for p, (depth, BT) in enumerate(pieces):
        Yp = Y.reshape(-1)[: BT.shape[0] * m].reshape(BT.shape[0], m)
        np.matmul(BT, phiT[:depth], out=Yp)  # (K w, m): w rows of L_k^{-1} (x_i - mu_k) per component
        Y3 = Yp.reshape(K, -1, m)  # (K, w, m)
        if p == 0:
            np.einsum("kwm,kwm->km", Y3, Y3, out=out)
        else:
            out += np.einsum("kwm,kwm->km", Y3, Y3)
    return out


#: The stacked-Cholesky E-step (:func:`weighted_log_prob_columns`) takes the rows of each
#: L_k^{-1} in pieces of at most this many (see :func:`triangular_pieces`).
TRIANGULAR_PIECE = 10


def triangular_pieces(B, n_components):
    """The product B^T [1, x] of the stacked-Cholesky route in pieces that skip the zeros of the
    triangular factors: a list of (depth, B_p^T), B_p^T of shape (K w, depth).

    Row j of L_k^{-1} (x - mu_k) involves only x_0..x_j (L_k^{-1} is lower triangular; column
    k d + j of B has zeros below row 1 + j), so the rows j in [a, b) of every component need
    only the first 1 + b rows of phi^T = [1, x]^T.  In pieces of TRIANGULAR_PIECE rows the
    product does (about) 0.6 of the full product's flops at d = 50.  Measured at d = 50, k = 10,
    4194-row blocks (CPU time per 1e5 rows; OpenBLAS SkylakeX / Haswell / Prescott kernels):
    146 / 148 / 305 ms in one product, 98 / 108 (3 pieces) / 204 ms in 5 pieces: faster under
    every kernel set, so no per-CPU choice is needed.  B is (1 + d, K d), columns k d + j.
    """
    d = B.shape[0] - 1
    j = np.tile(np.arange(d), n_components)  # (K d,): the row j of L_k^{-1} of each column
    pieces = []
    for a in range(0, d, TRIANGULAR_PIECE):
        b = min(a + TRIANGULAR_PIECE, d)
        cols = np.flatnonzero((j >= a) & (j < b))  # component-major: k, then j
        pieces.append((1 + b, np.ascontiguousarray(B[: 1 + b, cols].T)))
    return pieces


_PIECES = (None, None)  # (B, triangular_pieces(B)) of the last pass: a pass calls once per block


def _pieces_of(B, n_components):
    """:func:`triangular_pieces` of B, computed once per B (one pass), not once per row block
    (measured: 5% of an iteration at n = 1e6, d = 50).  Keyed on the identity of B, which a
    pass shares between its blocks; the tuple is replaced whole, so threads (Dask) see a
    consistent pair."""
    global _PIECES
    cached_B, pieces = _PIECES
    if cached_B is not B:
        pieces = triangular_pieces(B, n_components)
        _PIECES = (B, pieces)
    return pieces


def normalise_columns(log_p):
    """In place: log_p (K, m) becomes the responsibilities (column i sums to 1); returns
    ln sum_k exp(log_p[k, i]), shape (m,).  :func:`normalise_rows` in the transposed layout."""
    col_max = log_p.max(axis=0)  # (m,)
    log_p -= col_max
    np.exp(log_p, out=log_p)
    total = log_p.sum(axis=0)  # (m,), >= 1
    log_p *= 1.0 / total
    return col_max + np.log(total)


#: :func:`normalise_shifted` declines a block in which some sample's total is below
#: this (its largest log-probability is more than 230 below the ceiling); see there.
SHIFTED_FLOOR = 1e-100


def normalise_shifted(shifted_log_p):
    """:func:`normalise_columns` for log-probabilities minus their ceiling (:class:`Natural`), in
    place; returns the column sums of the exponentials, or None (log_p unusable) when a
    column's sum is below :data:`SHIFTED_FLOOR`.

    A known upper bound s of every log-probability replaces each column's maximum, so
    that exp(log_p - s) cannot overflow; this saves the maximum and the subtraction,
    two of the five passes over the (K, m) block.  Exponentials of arguments down to
    about -708 are normal numbers, with full relative precision: when a column's
    largest entry is within 230 + ln K of s (its sum is >= 1e-100), every
    responsibility above exp(-470) ~ 1e-204 of that column's largest keeps all its
    digits, as with the maximum (which resolves down to exp(-708)).  Otherwise (a
    sample more than about 20 standard deviations from every component) the caller
    redoes the block with :func:`normalise_columns`.  ln p(x_i) = s + ln(sum).
    """
    np.exp(shifted_log_p, out=shifted_log_p)
    total = shifted_log_p.sum(axis=0)  # (m,)
    if not total.min() >= SHIFTED_FLOOR:  # a NaN too: redone (and propagated) as before
        return None
    shifted_log_p *= 1.0 / total
    return total


def log_joint(X, weights, means, covariances, covariance_type, shift):
    """ln w_k + ln N(x_i | mu_k, Sigma_k) for every row of X, shape (n, K).

    The rows are centred by ``shift`` (a point near the data: the model's
    overall mean) and scored block by block, with BLAS on one thread; the
    columns of components beyond :data:`MAX_CANCELLATION` by the exact route.
    """
    n_samples, n_features = X.shape
    n_components = means.shape[0]
    out = np.empty((n_samples, n_components))
    with one_blas_thread():
        h = np.flatnonzero(hard_components(means - shift, covariances, covariance_type))
        if h.size:
            exact = exact_parameters(weights[h], means[h], _subset(covariances, covariance_type, h),
                                     covariance_type)
        if h.size == n_components:
            for rows in exact_blocks(n_samples, n_features, n_components):
                out[rows] = _exact_log_prob(X[rows] - means[:, None, :], exact, covariance_type)
            return out
        natural = natural_parameters(weights, means - shift, covariances, covariance_type)
        for rows in row_blocks(n_samples, n_features, n_components, covariance_type):
            out[rows] = weighted_log_prob(features(X[rows], covariance_type, shift), natural)
            if h.size:  # the hard components' columns by the exact route
                out[rows, h] = _exact_log_prob(X[rows] - means[h][:, None, :], exact, covariance_type)
    return out


def log_normaliser(log_p):
    """Row-wise ln sum_k exp(log_p[i, k]), shape (n,); log_p is left unchanged.

    The log-sum-exp trick without scipy's per-call overhead; log_p must have a
    finite entry in every row.
    """
    row_max = log_p.max(axis=1, keepdims=True)  # (n, 1)
    return (row_max + np.log(np.exp(log_p - row_max).sum(axis=1, keepdims=True)))[:, 0]



# --------------------------------------------------------------------------
# Cancellation bound and the exact route
# --------------------------------------------------------------------------


def cancellation_bounds(means_c, covariances, covariance_type):
    """The bound B_k of the module docstring for every component, shape (K,).

    ``means_c`` are the means minus the shift.  O(K d^2) (plus K Cholesky
    factorisations for full covariances, one for tied).
    """
    n_components, d = means_c.shape
    if covariance_type == "diag":
        return np.sum(means_c**2 / covariances, axis=1) + d
    if covariance_type == "spherical":
        return np.sum(means_c**2, axis=1) / covariances + d
    _, L_inv = factors(covariances, covariance_type)
    covs = covariances if covariance_type == "full" else covariances[None]
    abs_P = np.abs(np.swapaxes(L_inv, 1, 2) @ L_inv)  # (K, d, d) or (1, d, d): |P_k| entrywise
    e = np.abs(means_c)  # (K, d)
    spread = np.sum(abs_P * np.abs(covs), axis=(1, 2))  # (K,) or (1,)
    return np.einsum("ka,kab,kb->k", e, np.broadcast_to(abs_P, (n_components, d, d)), e) + spread


def cancellation_bound(means_c, covariances, covariance_type):
    """max_k B_k: the largest of :func:`cancellation_bounds`."""
    return float(np.max(cancellation_bounds(means_c, covariances, covariance_type)))


def hard_components(means_c, covariances, covariance_type):
    """Boolean (K,): the components beyond :data:`MAX_CANCELLATION`, which take the exact route.

    For tied covariances all or none (the tied M-step sums over components).
    """
    hard = cancellation_bounds(means_c, covariances, covariance_type) > MAX_CANCELLATION
    if covariance_type == "tied" and hard.any():
        hard[:] = True
    return hard


def _subset(covariances, covariance_type, h):
    return covariances if covariance_type == "tied" else covariances[h]


def exact_parameters(weights, means, covariances, covariance_type):
    """What the exact route needs: (const (K,), scale).

    const_k = ln w_k - (d ln 2 pi + ln det Sigma_k) / 2; scale is U_k = L_k^{-T}
    (K, d, d) for full, U (d, d) for tied, 1/sigma (K, d) for diag, (K,) for spherical.
    """
    n_components, d = means.shape
    with np.errstate(divide="ignore"):
        log_weights = np.log(weights)
    if covariance_type in ("diag", "spherical"):
        log_det = np.log(covariances).sum(axis=1) if covariance_type == "diag" else d * np.log(covariances)
        return log_weights - 0.5 * (d * _LOG_2PI + log_det), 1.0 / np.sqrt(covariances)
    chols, L_inv = factors(covariances, covariance_type)
    U = np.swapaxes(L_inv, 1, 2)
    log_det = 2.0 * np.log(np.diagonal(chols, axis1=1, axis2=2)).sum(axis=1)
    const = log_weights - 0.5 * (d * _LOG_2PI + log_det)
    return const, (U if covariance_type == "full" else U[0])


def exact_blocks(n_samples, n_features, n_components):
    """Row blocks for the exact route, whose (K, m, d) differences take about BLOCK_BYTES."""
    step = max(64, BLOCK_BYTES // (8 * n_components * n_features))
    return [slice(start, min(start + step, n_samples)) for start in range(0, n_samples, step)]


def _exact_log_prob(D, exact, covariance_type):
    """ln w_k + ln N(x_i | mu_k, Sigma_k), shape (m, K), from the differences D = x_i - mu_k, (K, m, d)."""
    const, scale = exact
    if covariance_type in ("full", "tied"):
        Y = D @ scale  # (K, m, d): rows (x_i - mu_k)^T L_k^{-T}, i.e. L_k^{-1}(x_i - mu_k)
    elif covariance_type == "diag":
        Y = D * scale[:, None, :]
    else:
        Y = D * scale[:, None, None]
    return (const[:, None] - 0.5 * np.einsum("kmd,kmd->km", Y, Y)).T


def _exact_moments(D, resp, covariance_type):
    """First and second moments about the centres from the differences D (K, m, d) and resp (m, K)."""
    weighted = D * resp.T[:, :, None]  # (K, m, d): gamma_ik (x_i - c_k)
    first = weighted.sum(axis=1)  # (K, d)
    if covariance_type in ("full", "tied"):
        second = np.swapaxes(weighted, 1, 2) @ D  # (K, d, d)
        second = 0.5 * (second + np.swapaxes(second, 1, 2))
        if covariance_type == "tied":
            second = second.sum(axis=0)
    else:
        second = np.einsum("kmd,kmd->kd", weighted, D)  # (K, d)
        if covariance_type == "spherical":
            second = second.sum(axis=1)
    return first, second


# --------------------------------------------------------------------------
# Sufficient statistics, the M-step, and one fit's data
# --------------------------------------------------------------------------


class Statistics(NamedTuple):
    """Soft sums of one pass over (a chunk of) the data, about per-component centres c_k.

    counts : (K,) sum_i gamma_ik
    first : (K, d) sum_i gamma_ik (x_i - c_k)
    second : sum_i gamma_ik (x_i - c_k)(x_i - c_k)^T, (K, d, d) for full; its
        sum over k (d, d) for tied; its diagonal (K, d) for diag; its trace (K,)
        for spherical
    log_likelihood : float, sum_i ln p(x_i | theta) (theta: the parameters of
        the E-step; 0.0 when the responsibilities were given)

    Statistics of chunks computed about the same centres add up (``a + b``).
    """

    counts: np.ndarray
    first: np.ndarray
    second: np.ndarray
    log_likelihood: float

    def __add__(self, other):
        return Statistics(*(a + b for a, b in zip(self, other, strict=True)))


def m_step(stats, centres, n_samples, covariance_type, reg_covar):
    """(weights, means, covariances) from :class:`Statistics` about ``centres``, as lib.mixture.m_step.

    With N_k = counts, n_k = N_k + COUNT_EPS (scikit-learn's convention) and
    a_k = first_k: mu_k = (N_k c_k + a_k) / n_k = c_k + delta_k with
    delta_k = (a_k - COUNT_EPS c_k) / n_k, and
    sum_i gamma_ik (x_i - mu_k)(x_i - mu_k)^T
      = second_k - a_k delta_k^T - delta_k a_k^T + N_k delta_k delta_k^T,
    divided by n_k (by sum_k n_k for tied).  delta_k is small when the centres
    are the current means, so nothing large cancels.  ``centres`` and the
    returned means are in the same coordinates (those of the data).
    """
    counts, first, second, _ = stats
    n_components, d = first.shape
    n_k = counts + COUNT_EPS  # (K,); an empty component is kept alive (lib.mixture.m_step)
    weights = n_k / n_samples
    delta = (first - COUNT_EPS * centres) / n_k[:, None]  # (K, d)
    means = centres + delta
    if covariance_type in ("full", "tied"):
        cross = first[:, :, None] * delta[:, None, :]  # (K, d, d): a_k delta_k^T
        outer = counts[:, None, None] * delta[:, :, None] * delta[:, None, :]
        scatter = -(cross + np.swapaxes(cross, 1, 2)) + outer  # (K, d, d)
        if covariance_type == "full":
            cov = (second + scatter) / n_k[:, None, None]
            cov[:, np.arange(d), np.arange(d)] += reg_covar
        else:
            cov = (second + scatter.sum(axis=0)) / n_k.sum()
            cov.flat[:: d + 1] += reg_covar
    else:
        if covariance_type == "diag":
            cov = (second - 2.0 * first * delta + counts[:, None] * delta**2) / n_k[:, None] + reg_covar
        else:
            sq = second - 2.0 * np.sum(first * delta, axis=1) + counts * np.sum(delta**2, axis=1)
            cov = sq / (d * n_k) + reg_covar
        if not np.all(cov > 0):  # full and tied: their Cholesky factorisation checks
            raise NotPositiveDefiniteError(
                f"variances must be strictly positive, got a minimum of {np.min(cov):.3g}; increase reg_covar."
            )
    return weights, means, cov


def _second_moments_syrk(XcT, R, out):
    """out[:, :, k] += upper triangle of sum_i gamma_ik x_i x_i^T: one symmetric rank-m update
    (BLAS syrk) per component on sqrt(gamma_ik) x_i.  XcT (d, m) C-ordered, R (K, m), out (d, d, K)
    Fortran-ordered.  Half the flops of a general product."""
    d, m = XcT.shape
    root = np.sqrt(R)
    ZT = np.empty((d, m))
    for k in range(R.shape[0]):
        np.multiply(XcT, root[k], out=ZT)  # sqrt(gamma_ik) x_i, transposed
        dsyrk(1.0, ZT.T, beta=1.0, c=out[:, :, k], trans=1, overwrite_c=1)  # upper


def _moments_pieces(phiT, R, acc, scratch=None):
    """The M-step's soft sums of one block in pieces of columns that skip the lower triangle:
    adds sum_i gamma_ik [1, x_i] x_i^T to acc = [products (K, 1 + d), second (d, d, K)].

    For the columns a in [s, t) of a piece (t - s = w <= TRIANGULAR_PIECE) only the rows
    r < t of sum_i gamma_ik x_ir x_ia are needed (the upper triangle and the diagonal
    block), so ONE general product [1, x]^T[: 1 + t] @ Z_p^T per piece, with Z_p the (w K, m)
    weighted copies gamma_ik x_ia, gives them for every component; its row 0 gives the
    first moments sum_i gamma_ik x_ia for free.  At d = 50 the pieces do 1.18 times the
    flops of a symmetric rank update (syrk) in the kernel that every BLAS tunes first
    (measured at d = 50, k = 10, 4194-row blocks, OpenBLAS's SkylakeX kernels: the pieces'
    products at 25-42 GFLOP/s, 38 on average, syrk at 26; 97 against 116 ms per 1e5 rows
    with the weighted copies; and syrk ran at a tenth of a general product on an AVX2
    EPYC, issue 41).  phiT (1 + d, m), R (K, m);
    ``scratch`` (optional) holds flat buffers "Z" (w K m entries) and "G" ((1 + d) w K).
    """
    D1, m = phiT.shape
    d, K = D1 - 1, R.shape[0]
    products, second = acc
    products[:, 0] += R.sum(axis=1)  # soft counts
    w_max = min(TRIANGULAR_PIECE, d)
    Z = np.empty(w_max * K * m) if scratch is None else scratch["Z"]
    G = np.empty(D1 * w_max * K) if scratch is None else scratch["G"]
    for s in range(0, d, TRIANGULAR_PIECE):
        t = min(s + TRIANGULAR_PIECE, d)
        w = t - s
        Zp = Z[: w * K * m].reshape(w, K, m)
        np.multiply(phiT[1 + s : 1 + t, None, :], R[None, :, :], out=Zp)  # (w, K, m): gamma_ik x_ia
        Gp = G[: (1 + t) * w * K].reshape(1 + t, w * K)
        np.matmul(phiT[: 1 + t], Zp.reshape(w * K, m).T, out=Gp)  # (1 + t, w K): column (a, k)
        Gp = Gp.reshape(1 + t, w, K)
        products[:, 1 + s : 1 + t] += Gp[0].T  # sum_i gamma_ik x_ia
        second[:t, s:t, :] += Gp[1:]  # sum_i gamma_ik x_ir x_ia, r < t


def _moments_syrk(phiT, R, acc):
    """The same sums as :func:`_moments_pieces` (the upper triangles of the second moments)
    from R @ [1, x] and one syrk per component (:func:`_second_moments_syrk`)."""
    products, second = acc
    products += R @ phiT.T  # (K, 1 + d): counts and first moments
    _second_moments_syrk(phiT[1:], R, second)


#: :func:`second_moment_kernel` times its candidates on at most this many rows (a power of two).
SECOND_MOMENT_PROBE_ROWS = 2048


@lru_cache(maxsize=None)
def second_moment_kernel(n_features, block_rows, n_components):
    """'syrk' or 'pieces': the faster of :func:`_moments_syrk` and :func:`_moments_pieces`
    on this CPU's BLAS kernels for a block of this shape, measured once per process (cached;
    :func:`moment_kernel` rounds ``block_rows`` up to a power of two, caps it at
    :data:`SECOND_MOMENT_PROBE_ROWS` and adds 64, so that a few shapes cover all fits and the probe
    stays cheap: 15-50 ms of CPU at d = 23-50, k = 10, once).

    Which wins depends on the BLAS kernels the CPU selects, not on the data: syrk on
    this layout ran at 2.7 GFLOP/s on an AVX2 EPYC (OpenBLAS's Haswell kernels) against 24
    for a general product (issue 41), and at about half the general product's rate under
    SkylakeX kernels on an AVX-512 CPU.  Each candidate runs twice (after a warm-up) on
    random data of the block's shape and the smaller CPU time wins.  Both compute the same
    sums (to rounding, about 1e-16 relative), so the choice moves no printed digit.
    """
    import time

    rng = np.random.default_rng(0)
    phiT = np.empty((1 + n_features, block_rows))
    phiT[0] = 1.0
    phiT[1:] = rng.standard_normal((n_features, block_rows))
    R = rng.dirichlet(np.ones(n_components), size=block_rows).T.copy()  # (K, m)
    acc = [np.zeros((n_components, 1 + n_features)), np.zeros((n_features, n_features, n_components), order="F")]
    scratch = moment_buffers(n_features, block_rows, n_components)

    def best(fn):
        fn()  # warm-up
        times = []
        for _ in range(2):
            start = time.process_time()
            fn()
            times.append(time.process_time() - start)
        return min(times)

    syrk = best(lambda: _moments_syrk(phiT, R, acc))
    pieces = best(lambda: _moments_pieces(phiT, R, acc, scratch))
    return "syrk" if syrk < pieces else "pieces"


def moment_kernel(n_features, block_rows, n_components):
    """:func:`second_moment_kernel` for blocks of ``block_rows`` rows (the first block's length),
    probed on at most :data:`SECOND_MOMENT_PROBE_ROWS` rows, rounded up to a power of two, plus 64:
    like the fits' blocks (:func:`row_blocks`), the probe's are not a multiple of 512 rows."""
    probe_rows = min(SECOND_MOMENT_PROBE_ROWS, 1 << max(8, (block_rows - 1).bit_length())) + 64
    return second_moment_kernel(n_features, probe_rows, n_components)


def moment_buffers(n_features, block_rows, n_components):
    """Flat buffers for :func:`squared_distances` ("Y") and :func:`_moments_pieces` ("Z", "G")
    on blocks of at most ``block_rows`` rows, and the (K, m) log-probabilities ("R")."""
    w, K, m = min(TRIANGULAR_PIECE, n_features), n_components, block_rows
    return {"Y": np.empty(K * w * m), "Z": np.empty(w * K * m), "G": np.empty((1 + n_features) * w * K),
            "R": np.empty((K, m))}


def _huge_page_arrays(shapes):
    """Arrays np.empty(shape) for the given shapes, laid out one after the other from the start
    of a 2 MiB-aligned region of one allocation of at least 4 MiB.

    numpy asks the kernel for transparent huge pages for allocations of 4 MiB or
    more; buffers inside huge pages are physically contiguous, so how they map
    onto the cache no longer depends on which physical pages a process happens to
    get (measured at n = 1e5, d = 10: every process at 112-122 ns per row, where
    with ordinary pages one process in two or four took 141-146).  Successive
    arrays start 4 KiB + 256 bytes apart modulo 4 KiB, so that they do not alias.
    """
    page = 1 << 21
    sizes = [8 * int(np.prod(shape)) for shape in shapes]
    starts, at = [], 0
    for i, size in enumerate(sizes):
        starts.append(at)
        at += -(-size // 4096) * 4096 + 256 * (i + 1)
    arena = np.empty(max(at + page, 1 << 22) + page, dtype=np.uint8)
    offset = (-arena.ctypes.data) % page
    return [arena[offset + a : offset + a + size].view(np.float64).reshape(shape)
            for a, size, shape in zip(starts, sizes, shapes, strict=True)]


class SufficientStatistics:
    """One fit's data (centred once, with its features) and its passes over them.

    Parameters go in and come out in the data's own coordinates; the fast path
    converts the means to centred coordinates (minus ``shift``) internally.
    """

    def __init__(self, X, covariance_type, n_components, shift=None):
        self.X = X  # (n, d), the validated data (not copied)
        self.covariance_type = covariance_type
        self.n_samples, self.n_features = X.shape
        self.n_components = n_components
        self.shift = X.mean(axis=0) if shift is None else shift  # (d,)
        self.blocks = row_blocks(self.n_samples, self.n_features, n_components, covariance_type)
        d = self.n_features
        # buffers reused by every block: the E-step's (K, m) output ("R"; full, d <= 20 with x x^T
        # rebuilt: in huge pages), and on the Cholesky route also the products' (moment_buffers)
        self._scratch = None
        if cholesky_route(covariance_type, d):
            # phi = [1, x] is kept transposed, (1 + d, n): the M-step's weighted copies
            # sqrt(gamma_ik) x_i are then products of whole contiguous rows
            phiT = np.empty((1 + d, self.n_samples))
            phiT[0] = 1.0
            np.subtract(X, self.shift, out=phiT[1:].T)
            self._Xc = phiT[1:].T  # (n, d) view: one copy of the data, not two
            self.phi = [phiT[:, rows].T for rows in self.blocks]
            self._scratch = moment_buffers(d, self.blocks[0].stop, n_components)  # reused by every block
        elif is_narrow(covariance_type, d):
            # phi = [1, x] or [1, x, ||x||^2] is kept, and its columns 1..d are the centred
            # data: one copy of the data, not two
            phi = features(X, covariance_type, shift=self.shift)  # (n, D)
            self._Xc = phi[:, 1 : 1 + d]  # (n, d) view
            self.phi = [phi[rows] for rows in self.blocks]
        else:
            # Wide features (x**2, x x^T) are kept while they are small. Large ones are
            # rebuilt block by block at every pass: building them in a cache-sized block costs
            # no more than reading them back from memory (measured), and memory stays O(n d).
            n_columns = n_phi_columns(d, covariance_type)
            keep = 8 * self.n_samples * n_columns <= KEEP_FEATURES_BYTES
            if covariance_type == "full" and not keep:
                # x x^T is rebuilt in one preallocated (D, m) buffer whose rows 1..d are copied
                # from the centred data stored transposed (d, n): whole contiguous rows
                self._XcT = np.empty((d, self.n_samples))
                np.subtract(X, self.shift, out=self._XcT.T)
                self._Xc = None
                step = self.blocks[0].stop
                self._buffer, R = _huge_page_arrays([(n_columns, step), (n_components, step)])
                self._buffer[0] = 1.0
                self._scratch = {"R": R}
            else:
                self._Xc = X - self.shift  # (n, d)
            self.phi = [features(self._Xc[rows], covariance_type) for rows in self.blocks] if keep else None
        self._scatter = None  # tied: sum_i x_i x_i^T (centred), computed at first use

    @property
    def Xc(self):
        """The centred data (n, d), C-ordered (a copy when they are stored transposed)."""
        return self._Xc if self._Xc is not None else np.ascontiguousarray(self._XcT.T)

    def _phi(self, b):
        if self.phi is not None:
            return self.phi[b]
        rows = self.blocks[b]
        if self._Xc is None:  # full: rebuilt in the buffer (valid until the next call)
            d = self.n_features
            phiT = self._buffer[:, : rows.stop - rows.start]
            np.copyto(phiT[1 : 1 + d], self._XcT[:, rows])
            fill_quadratic(phiT, d)
            return phiT.T
        return features(self._Xc[rows], self.covariance_type)

    def hard(self, theta):
        """Boolean (K,): the components for which the fast path would lose digits."""
        weights, means, cov = theta
        return hard_components(means - self.shift, cov, self.covariance_type)

    # ---- the fast route ---------------------------------------------------

    def _accumulate(self, R, phi, acc):
        """Add block b's soft sums R @ phi (R: responsibilities, (K, m)) to acc, and on the Cholesky
        route the upper triangles of sum_i gamma_ik x_i x_i^T.

        Those come from one symmetric rank-m update per component (BLAS syrk on
        sqrt(gamma_ik) x_i, half the flops) or from general products in pieces of
        columns (:func:`_moments_pieces`), whichever :func:`second_moment_kernel`
        measured faster on this CPU's kernels for the block's shape.
        """
        if cholesky_route(self.covariance_type, self.n_features):
            K, d = R.shape[0], self.n_features  # R: (K, m), m rows in this block
            if acc[0] is None:
                # acc[1][:, :, k] is Fortran-contiguous: syrk updates it in place
                acc[:] = [np.zeros((K, 1 + d)), np.zeros((d, d, K), order="F")]
            if moment_kernel(d, self.blocks[0].stop, K) == "syrk":
                _moments_syrk(phi.T, R, acc)
            else:
                _moments_pieces(phi.T, R, acc, self._scratch)
            return
        products = R @ phi  # (K, D)
        acc[0] = products if acc[0] is None else acc[0] + products

    def _about_centres(self, acc, centres, log_lik):
        """Statistics about the centres from the fast path's sums about the shift.

        With e_k = c_k - shift: first = sums - N_k e_k and
        second = S_k - sums e_k^T - e_k sums^T + N_k e_k e_k^T; the terms are
        of size N_k |e_k|^2, which is why B must stay small here.
        """
        products, second = acc
        d = self.n_features
        counts, sums = products[:, 0], products[:, 1 : 1 + d]
        e = centres - self.shift  # (K, d)
        first = sums - counts[:, None] * e
        ct = self.covariance_type
        if ct in ("full", "tied"):
            if ct == "tied":
                if self._scatter is None:
                    self._scatter = self.Xc.T @ self.Xc  # (d, d)
                second = self._scatter
            elif second is not None:  # the Cholesky route: the upper triangles are filled (syrk or gemm)
                rows, cols = np.triu_indices(d, k=1)
                second = np.moveaxis(second, 2, 0).copy()  # (K, d, d)
                second[:, cols, rows] = second[:, rows, cols]  # symmetric exactly, whichever kernel
            else:  # unpack the upper triangles
                rows, cols = quadratic_pairs(d)
                second = np.empty((len(counts), d, d))
                second[:, rows, cols] = products[:, 1 + d :]
                second[:, cols, rows] = products[:, 1 + d :]
            cross = sums[:, :, None] * e[:, None, :]  # (K, d, d): sums_k e_k^T
            correction = counts[:, None, None] * e[:, :, None] * e[:, None, :] - cross - np.swapaxes(cross, 1, 2)
            second = second + (correction.sum(axis=0) if ct == "tied" else correction)
        elif ct == "diag":
            second = products[:, 1 + d :] - 2.0 * sums * e + counts[:, None] * e**2
        else:
            second = products[:, 1 + d] - 2.0 * np.sum(sums * e, axis=1) + counts * np.sum(e**2, axis=1)
        return Statistics(counts, first, second, float(log_lik))

    # ---- passes -------------------------------------------------------------

    def e_step(self, theta, hard=None):
        """E-step at theta = (weights, means, covariances): :class:`Statistics` about the means.

        ``hard`` (boolean (K,), default :meth:`hard`) marks the components that
        take the exact route; all of them: one exact pass.
        """
        hard = self.hard(theta) if hard is None else hard
        if hard.all() or (self.covariance_type == "tied" and hard.any()):  # tied: all or none
            return self._exact_pass(theta)
        return self._fast_pass(theta, hard)

    def _fast_pass(self, theta, hard=None):
        """The fast route, with the columns and moments of the ``hard`` components done exactly."""
        weights, means, cov = theta
        ct = self.covariance_type
        natural = natural_parameters(weights, means - self.shift, cov, ct)
        h = np.flatnonzero(hard) if hard is not None else np.empty(0, dtype=np.intp)
        if h.size:
            exact = exact_parameters(weights[h], means[h], _subset(cov, ct, h), ct)
            exact_first, exact_second = 0.0, 0.0
        if not h.size and self._Xc is None:  # full, d <= 20, x x^T rebuilt: the lean loop
            acc, log_lik = self._feature_pass(natural)
            return self._about_centres(acc, means, log_lik)
        shifted = natural.shifted(natural.ceiling)  # log-probabilities minus their ceiling
        log_lik = 0.0
        acc = [None, None]
        for b, rows in enumerate(self.blocks):
            phi = self._phi(b)
            if h.size:
                D = self.X[rows][None, :, :] - means[h][:, None, :]  # (H, m, d): x_i - mu_k, k hard
                exact_log_p = _exact_log_prob(D, exact, ct).T  # (H, m)
            R = weighted_log_prob_columns(phi, shifted, self._scratch)  # (K, m)
            if h.size:
                R[h] = exact_log_p - natural.ceiling
            total = normalise_shifted(R)  # R now holds gamma_ik, or None: redo with the maxima
            if total is not None:
                log_lik += len(total) * natural.ceiling + np.log(total).sum()
            else:
                R = weighted_log_prob_columns(phi, natural)
                if h.size:
                    R[h] = exact_log_p
                log_lik += normalise_columns(R).sum()
            self._accumulate(R, phi, acc)
            if h.size:
                first, second = _exact_moments(D, R[h].T, ct)
                exact_first, exact_second = exact_first + first, exact_second + second
        stats = self._about_centres(acc, means, log_lik)
        if h.size:  # replace the hard components' moments by the exact ones
            stats.first[h] = exact_first
            stats.second[h] = exact_second
        return stats

    def _feature_pass(self, natural):
        """The loop of :meth:`_fast_pass` for full covariances (d <= 20) with x x^T rebuilt at
        every pass and no hard component, its steps written out: (sums R @ phi, log-likelihood).

        At n = 1e5, d = 10 the general loop's layers (method calls, route tests,
        lookups) cost about 3% of an iteration (measured, three interleaved
        process pairs: 113-115 against 116-119 ns per row).
        """
        d = self.n_features
        W_T = natural.shifted(natural.ceiling).W.T  # (K, D): log-probabilities minus the ceiling
        buffer, XcT, R_buffer = self._buffer, self._XcT, self._scratch["R"]
        step = buffer.shape[1]
        sums = np.zeros((self.n_components, buffer.shape[0]))
        log_lik = 0.0
        for rows in self.blocks:
            m = rows.stop - rows.start
            phiT = buffer if m == step else buffer[:, :m]  # (D, m)
            np.copyto(phiT[1 : 1 + d], XcT[:, rows])
            fill_quadratic(phiT, d)
            R = np.matmul(W_T, phiT, out=R_buffer if m == step else R_buffer[:, :m])  # (K, m)
            total = normalise_shifted(R)  # R now holds gamma_ik, or None: redo with the maxima
            if total is not None:
                log_lik += m * natural.ceiling + np.log(total).sum()
            else:
                R = weighted_log_prob_columns(phiT.T, natural)
                log_lik += normalise_columns(R).sum()
            sums += R @ phiT.T
        return [sums, None], log_lik

    def _exact_pass(self, theta):
        """The exact route: responsibilities from theta, moments about its means."""
        return _exact_statistics(self.X, self.covariance_type, theta[1], theta=theta)

    def statistics(self, resp):
        """Statistics of given responsibilities, about their own weighted means (exact; for initialisation)."""
        counts = resp.sum(axis=0) + COUNT_EPS  # (K,); an empty component's centre is the shift
        Xc = self._Xc if self._Xc is not None else self._XcT.T
        centres = (resp.T @ Xc) / counts[:, None] + self.shift  # (K, d), approximate means
        return moments(self.X, resp, centres, self.covariance_type), centres

    def final(self, theta):
        """The final pass: log-likelihood at theta and the most responsible component of every sample.

        An E-step without its M-step: the same blocks, features and (K, m) layout as
        :meth:`_fast_pass` (no (n, K) array, no second copy of the features), so it
        costs a fraction of an iteration; the exact route when every component is hard.
        """
        weights, means, cov = theta
        ct = self.covariance_type
        hard = self.hard(theta)
        if hard.all() or (ct == "tied" and hard.any()):
            log_p = log_joint(self.X, weights, means, cov, ct, self.shift)  # (n, K), all exact
            return float(log_normaliser(log_p).sum()), np.argmax(log_p, axis=1)
        natural = natural_parameters(weights, means - self.shift, cov, ct)
        h = np.flatnonzero(hard)
        if h.size:
            exact = exact_parameters(weights[h], means[h], _subset(cov, ct, h), ct)
        shifted = natural.shifted(natural.ceiling)  # log-probabilities minus their ceiling
        labels = np.empty(self.n_samples, dtype=np.intp)
        log_lik = 0.0
        for b, rows in enumerate(self.blocks):
            phi = self._phi(b)
            R = weighted_log_prob_columns(phi, shifted, self._scratch)  # (K, m)
            if h.size:
                R[h] = _exact_log_prob(self.X[rows][None, :, :] - means[h][:, None, :], exact, ct).T \
                    - natural.ceiling
            labels[rows] = np.argmax(R, axis=0)
            np.exp(R, out=R)
            total = R.sum(axis=0)  # (m,)
            if total.min() >= SHIFTED_FLOOR:  # as in normalise_shifted
                log_lik += len(total) * natural.ceiling + np.log(total).sum()
            else:  # a sample far from every component: the maxima
                R = weighted_log_prob_columns(phi, natural)
                if h.size:
                    R[h] = _exact_log_prob(self.X[rows][None, :, :] - means[h][:, None, :], exact, ct).T
                log_lik += normalise_columns(R).sum()
        return float(log_lik), labels


def em_iteration(backend, theta, reg_covar, hard=None):
    """One EM iteration from theta on any statistics backend: (log-likelihood at theta, new theta,
    hard mask of the new theta).

    A backend (rows in memory: :class:`SufficientStatistics`; chunks of a Dask
    array: ``lib._dask.ChunkedData``) offers ``n_samples``, ``covariance_type``,
    ``hard(theta)`` (the components beyond :data:`MAX_CANCELLATION`),
    ``e_step(theta, hard)`` (one pass: :class:`Statistics` about theta's means)
    and ``final(theta)`` (one pass: the log-likelihood, and labels or None).
    The route of each component is chosen from theta (``hard``: its mask,
    computed when not given); a component that the M-step made hard (it
    sharpened) is redone by the exact route, because the fast M-step's
    cancellation is governed by the new parameters.
    """
    ct, n = backend.covariance_type, backend.n_samples
    hard = backend.hard(theta) if hard is None else hard
    stats = backend.e_step(theta, hard)
    new = m_step(stats, theta[1], n, ct, reg_covar)
    new_hard = backend.hard(new)
    if (new_hard & ~hard).any():
        stats = backend.e_step(theta, hard | new_hard)
        new = m_step(stats, theta[1], n, ct, reg_covar)
        new_hard = backend.hard(new)
    return stats.log_likelihood, new, new_hard


def _exact_statistics(X, covariance_type, centres, theta=None, resp=None):
    """Exact route over the rows of X: responsibilities from ``theta`` (or the given ``resp``),
    moments about ``centres`` from the differences x_i - c_k."""
    if theta is not None:
        exact = exact_parameters(*theta, covariance_type)
    K, d = centres.shape
    counts = np.zeros(K)
    first = np.zeros((K, d))
    second = None
    log_lik = 0.0
    for rows in exact_blocks(X.shape[0], d, K):
        D = X[rows][None, :, :] - centres[:, None, :]  # (K, m, d): x_i - c_k
        if theta is not None:
            r = _exact_log_prob(D, exact, covariance_type)  # (m, K)
            log_lik += normalise_rows(r).sum()  # r now holds gamma_ik
        else:
            r = resp[rows]
        counts += r.sum(axis=0)
        f, s = _exact_moments(D, r, covariance_type)
        first += f
        second = s if second is None else second + s
    return Statistics(counts, first, second, float(log_lik))


def moments(X, resp, centres, covariance_type):
    """:class:`Statistics` of given responsibilities ``resp`` (n, K) about ``centres`` (K, d).

    Exact (differences first); the log-likelihood field is 0.0.  Used to
    start EM from responsibilities (an initialisation), in memory or chunk by
    chunk.  Inputs are trusted.
    """
    return _exact_statistics(X, covariance_type, centres, resp=resp)


def chunk_statistics(X, weights, means, covariances, covariance_type, exact=None):
    """E-step statistics of one chunk of rows: :class:`Statistics` about ``means``.

    The entry point for chunked or distributed EM: call it on every chunk with
    the same (current) parameters, add the results, and pass the sum with
    ``means`` as the centres to :func:`m_step`.  The chunk is centred at the
    mixture's overall mean (a point near the data, shared by all chunks); the
    route (fast or exact) is chosen from the parameters, so every chunk takes
    the same one.  As in :func:`em_iteration`, components
    that were not hard at these parameters (:func:`hard`) but are at the new
    ones from :func:`m_step` need the pass redone with ``exact`` = the boolean
    (K,) mask of those components (or True for all).  BLAS runs on one thread.  Inputs are trusted (validated
    float64 arrays).
    """
    theta = (weights, means, covariances)
    with one_blas_thread():
        data = SufficientStatistics(X, covariance_type, means.shape[0], shift=weights @ means)
        if exact is None:
            return data.e_step(theta)
        return data.e_step(theta, np.asarray(exact, dtype=bool) | data.hard(theta))


def hard(weights, means, covariances, covariance_type):
    """Boolean (K,): the components beyond the fast path's boundary (see the module docstring)."""
    shift = weights @ means  # the point chunk_statistics centres at
    return hard_components(means - shift, covariances, covariance_type)
