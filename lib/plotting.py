"""Plots used across the book, in one consistent style.

Only this module imports matplotlib, so the model code in ``lib`` runs
without it.  Every figure has an opaque white background (readable in the
book's dark mode) and uses a colour-blind-safe palette (Okabe and Ito).
"""

import matplotlib as mpl
import numpy as np
from matplotlib.colors import ListedColormap
from matplotlib.patches import Ellipse

from .gaussian import full_covariances

__all__ = [
    "PALETTE",
    "use_book_style",
    "plot_decision_regions",
    "plot_gaussian_ellipse",
    "plot_mixture",
    "plot_log_likelihood",
]

#: Okabe-Ito colours: distinguishable with the common forms of colour blindness.
PALETTE = ("#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#F0E442", "#000000")

_STYLE = {
    "figure.facecolor": "white",
    "axes.facecolor": "white",
    "savefig.facecolor": "white",
    "savefig.transparent": False,
    "figure.dpi": 100,
    "savefig.dpi": 100,
    "font.size": 10,
    "axes.titlesize": 11,
    "axes.labelsize": 10,
    "legend.fontsize": 9,
    "legend.framealpha": 0.9,
    "axes.grid": True,
    "grid.alpha": 0.25,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "axes.prop_cycle": mpl.cycler(color=list(PALETTE)),
    "image.cmap": "viridis",
    "figure.constrained_layout.use": True,
}


def use_book_style():
    """Apply the book's plotting style to every later figure in this session."""
    mpl.rcParams.update(_STYLE)


def _colors(n):
    return [PALETTE[i % len(PALETTE)] for i in range(n)]


def plot_decision_regions(ax, predict, X, y=None, *, resolution=300, alpha=0.25, margin=0.5,
                          class_names=None, markers="os^DvP*X"):
    """Shade the regions where ``predict`` chooses each class, and scatter ``X``.

    Parameters
    ----------
    ax : matplotlib Axes
    predict : callable
        Maps an array of shape ``(m, 2)`` to ``m`` integer class indices ``0..K-1``.
    X : ndarray of shape (n_samples, 2)
    y : ndarray of shape (n_samples,), optional
        Integer labels ``0..K-1`` used to colour the points.
    resolution : int
        Grid points per axis.
    class_names : sequence of str, optional
        Legend labels for the classes.
    """
    X = np.asarray(X, dtype=float)
    x_min, x_max = X[:, 0].min() - margin, X[:, 0].max() + margin
    y_min, y_max = X[:, 1].min() - margin, X[:, 1].max() + margin
    xx, yy = np.meshgrid(np.linspace(x_min, x_max, resolution), np.linspace(y_min, y_max, resolution))
    grid = np.column_stack([xx.ravel(), yy.ravel()])  # (resolution**2, 2)
    zz = np.asarray(predict(grid)).reshape(xx.shape)
    n_classes = int(max(zz.max(), -1 if y is None else np.max(y))) + 1
    cmap = ListedColormap(_colors(n_classes))
    ax.contourf(xx, yy, zz, levels=np.arange(n_classes + 1) - 0.5, cmap=cmap, alpha=alpha)
    ax.contour(xx, yy, zz, levels=np.arange(n_classes + 1) - 0.5, colors="k", linewidths=0.6)
    if y is not None:
        y = np.asarray(y)
        for k in range(n_classes):
            mask = y == k
            if np.any(mask):
                label = class_names[k] if class_names is not None else f"class {k}"
                ax.scatter(X[mask, 0], X[mask, 1], s=18, color=PALETTE[k % len(PALETTE)],
                           marker=markers[k % len(markers)], edgecolor="k", linewidth=0.4, label=label)
    ax.set_xlim(x_min, x_max)
    ax.set_ylim(y_min, y_max)
    return ax


def plot_gaussian_ellipse(ax, mean, cov, n_std=(1, 2), color=PALETTE[0], **kwargs):
    r"""Draw the contours of :math:`\mathcal N(\mu, \Sigma)` at ``n_std`` Mahalanobis radii.

    The ellipse at radius :math:`r` is :math:`\{x : (x-\mu)^\top \Sigma^{-1} (x-\mu) = r^2\}`;
    its axes are the eigenvectors of :math:`\Sigma` with half-lengths
    :math:`r\sqrt{\lambda_j}`.  Only the first two coordinates are drawn.

    ``cov`` may be a 2x2 matrix, a length-2 diagonal, or a scalar variance.
    """
    mean = np.asarray(mean, dtype=float)[:2]
    cov = np.asarray(cov, dtype=float)
    if cov.ndim == 0:
        cov = cov * np.eye(2)
    elif cov.ndim == 1:
        cov = np.diag(cov[:2])
    cov = cov[:2, :2]
    eigval, eigvec = np.linalg.eigh(cov)  # ascending eigenvalues
    angle = np.degrees(np.arctan2(eigvec[1, 1], eigvec[0, 1]))  # direction of the major axis
    kwargs.setdefault("linewidth", 1.5)
    kwargs.setdefault("fill", False)
    for r in np.atleast_1d(n_std):
        width, height = 2 * r * np.sqrt(eigval[1]), 2 * r * np.sqrt(eigval[0])
        ax.add_patch(Ellipse(mean, width, height, angle=angle, edgecolor=color,
                             alpha=1.0 if r == np.min(n_std) else 0.6, **kwargs))
    ax.plot(*mean, marker="x", color=color, markersize=8, mew=2)
    return ax


def plot_mixture(ax, X, means, covariances, covariance_type="full", resp=None, weights=None,
                 n_std=(1, 2), point_size=14):
    """Scatter ``X`` coloured by responsibilities and draw each component's ellipses.

    With ``resp`` (shape ``(n_samples, K)``) each point's colour is the
    responsibility-weighted mix of the component colours, so uncertain points
    look blended.  Without it, points are grey.
    """
    X = np.asarray(X, dtype=float)
    means = np.asarray(means, dtype=float)
    K, d = means.shape
    covs = full_covariances(covariances, covariance_type, K, d)  # (K, d, d)
    rgb = np.array([mpl.colors.to_rgb(c) for c in _colors(K)])  # (K, 3)
    if resp is not None:
        colors = np.clip(np.asarray(resp) @ rgb, 0, 1)  # (n, 3): blend by responsibility
    else:
        colors = "0.5"
    ax.scatter(X[:, 0], X[:, 1], s=point_size, c=colors, edgecolor="k", linewidth=0.3)
    for k in range(K):
        plot_gaussian_ellipse(ax, means[k], covs[k], n_std=n_std, color=PALETTE[k % len(PALETTE)])
        if weights is not None:  # on an opaque box: readable over points and ellipses
            color = PALETTE[k % len(PALETTE)]
            ax.annotate(f"$\\pi_{k + 1}$ = {weights[k]:.2f}", means[k, :2], textcoords="offset points",
                        xytext=(8, 8), fontsize=9, color=color, zorder=5,
                        bbox=dict(boxstyle="round,pad=0.2", facecolor="white", edgecolor=color,
                                  linewidth=0.6, alpha=0.9))
    return ax


def plot_log_likelihood(ax, values, label=None, marker="o", xlabel="iteration",
                        ylabel="log-likelihood", **kwargs):
    """Plot a per-iteration trace (log-likelihood, ELBO, ...) against 0, 1, 2, ..."""
    values = np.asarray(values, dtype=float)
    ax.plot(np.arange(values.size), values, marker=marker, markersize=3, label=label, **kwargs)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    if label is not None:
        ax.legend()
    return ax
