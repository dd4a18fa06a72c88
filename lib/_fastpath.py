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
B = [[-mu_1^T U_1, ..., -mu_K^T U_K], [U_1, ..., U_K]], U_k = L_k^{-T}, and
its M-step gets sum_i gamma_ik x_i x_i^T from one (K d, n) x (n, d) product.

Centring the data once (shift = a point near the data: the mean of X, or the
model's overall mean) keeps the expanded quadratic forms
accurate: their rounding error is about eps * ||mu_k - shift||^2 / lambda_min(Sigma_k).
The work is done on row blocks small enough to stay in cache between the
E-step and the M-step.

Every function here trusts its inputs: the public callers validate them.
"""

import numpy as np
from scipy.linalg import solve_triangular
from threadpoolctl import ThreadpoolController

from .gaussian import cholesky_factors

_LOG_2PI = np.log(2.0 * np.pi)

#: Full covariances in more dimensions than this take the stacked-Cholesky
#: route of the fast path instead of the x x^T features (measured crossover).
MAX_QUADRATIC_FEATURES_DIM = 20

#: The fast path keeps wide features phi(X) (x**2, x x^T) of all rows when they
#: take at most this many bytes; narrow ones ([1, x], [1, x, ||x||^2]) are always
#: kept.  See lib.mixture._SufficientStatistics.
KEEP_FEATURES_BYTES = 32 << 20  # 32 MiB

#: The fast path works on blocks of rows whose per-block arrays take about this
#: many bytes, so that a block stays in cache between the E- and the M-step.
BLOCK_BYTES = 1 << 21  # 2 MiB


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
    """Slices of rows such that one block's arrays take about BLOCK_BYTES."""
    width = max(n_phi_columns(n_features, covariance_type), n_components)
    if cholesky_route(covariance_type, n_features):
        width = n_components * n_features  # Y = phi @ B dominates
    step = max(64, BLOCK_BYTES // (8 * width))
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
    Xc = X - shift
    # full: built transposed so that every product x_a x_b is a contiguous row
    XcT = np.ascontiguousarray(Xc.T)  # (d, m)
    phiT = np.empty((D, m))
    phiT[0] = 1.0
    phiT[1 : 1 + d] = XcT
    row = 1 + d
    for a in range(d):  # x_a x_b for b >= a, in np.triu_indices order
        np.multiply(XcT[a], XcT[a:], out=phiT[row : row + d - a])
        row += d - a
    return phiT.T  # (m, D), Fortran-ordered: fine for BLAS


def natural_parameters(weights, means_c, covariances, covariance_type):
    """Parameters of the linear form, see the table above.

    Returns ``(route, W, extra)``:
    ``("linear", W (D, K), None)`` for full (d <= 20), diag, spherical;
    ``("tied", W (1 + d, K), L^{-1} (d, d))`` for tied;
    ``("cholesky", c (K,), B (1 + d, K d))`` for full (d > 20).
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
        const = log_weights - 0.5 * (d * _LOG_2PI + log_det + maha_mean)
        return "linear", np.vstack([const, linear, quad]), None

    chol = cholesky_factors(covariances, covariance_type)  # L_k with Sigma_k = L_k L_k^T
    chols = chol if covariance_type == "full" else chol[None]
    eye = np.eye(d)
    L_inv = np.stack([solve_triangular(L, eye, lower=True, check_finite=False) for L in chols])
    log_det = 2.0 * np.log(np.diagonal(chols, axis1=1, axis2=2)).sum(axis=1)  # (K,) or (1,)
    if covariance_type == "tied":
        L_inv = np.broadcast_to(L_inv, (n_components, d, d))
    z = np.einsum("kab,kb->ka", L_inv, means_c)  # (K, d): L_k^{-1} mu_k
    const = log_weights - 0.5 * (d * _LOG_2PI + log_det)  # (K,)

    if cholesky_route(covariance_type, d):
        U = np.swapaxes(L_inv, 1, 2)  # (K, d, d): U_k = L_k^{-T}
        B = np.empty((1 + d, n_components * d))
        B[0] = -z.reshape(-1)  # -mu_k^T U_k = -(L_k^{-1} mu_k)^T
        B[1:] = np.swapaxes(U, 0, 1).reshape(d, n_components * d)  # [U_1, ..., U_K]
        return "cholesky", const, B

    const -= 0.5 * np.sum(z**2, axis=1)  # - mu_k^T P_k mu_k / 2

    precisions = np.swapaxes(L_inv, 1, 2) @ L_inv  # (K, d, d): P_k = L_k^{-T} L_k^{-1}
    linear = np.einsum("kab,kb->ak", precisions, means_c)  # (d, K): P_k mu_k
    if covariance_type == "tied":
        return "tied", np.vstack([const, linear]), L_inv[0]
    rows, cols = np.triu_indices(d)
    quad = -precisions[:, rows, cols]  # (K, d(d+1)/2): -P_ab counts x_a x_b and x_b x_a
    quad[:, rows == cols] *= 0.5  # -P_aa / 2 on the diagonal
    return "linear", np.vstack([const, linear, quad.T]), None


def weighted_log_prob(phi, natural):
    """ln pi_k + ln N(x_i | mu_k, Sigma_k) for the rows of phi, shape (m, K)."""
    route, W, extra = natural
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


def log_joint(X, weights, means, covariances, covariance_type, shift):
    """ln w_k + ln N(x_i | mu_k, Sigma_k) for every row of X, shape (n, K).

    The rows are centred by ``shift`` (a point near the data: the model's
    overall mean) and scored block by block, with BLAS on one thread.
    """
    n_samples, n_features = X.shape
    n_components = means.shape[0]
    out = np.empty((n_samples, n_components))
    with one_blas_thread():
        natural = natural_parameters(weights, means - shift, covariances, covariance_type)
        for rows in row_blocks(n_samples, n_features, n_components, covariance_type):
            out[rows] = weighted_log_prob(features(X[rows], covariance_type, shift), natural)
    return out


def log_normaliser(log_p):
    """Row-wise ln sum_k exp(log_p[i, k]), shape (n,); log_p is left unchanged.

    The log-sum-exp trick without scipy's per-call overhead; log_p must have a
    finite entry in every row.
    """
    row_max = log_p.max(axis=1, keepdims=True)  # (n, 1)
    return (row_max + np.log(np.exp(log_p - row_max).sum(axis=1, keepdims=True)))[:, 0]

