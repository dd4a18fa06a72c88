"""Tests for lib.plotting: the figures draw what their docstrings say.

The geometry is checked from the math (an ellipse at Mahalanobis radius r has
half-axes r sqrt(lambda_j) along the eigenvectors of Sigma), the colours from
the responsibilities, and the book style from its promise of opaque figures.
"""

import matplotlib

matplotlib.use("Agg")  # no display: must precede pyplot

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402
from matplotlib.colors import to_rgb, to_rgba  # noqa: E402
from matplotlib.patches import Ellipse  # noqa: E402

from lib import plotting  # noqa: E402


@pytest.fixture
def ax():
    fig, ax = plt.subplots()
    yield ax
    plt.close(fig)


def _ellipses(ax):
    return [p for p in ax.patches if isinstance(p, Ellipse)]


def test_book_style_is_opaque_and_colour_blind_safe():
    with matplotlib.rc_context():
        plotting.use_book_style()
        assert to_rgba(matplotlib.rcParams["figure.facecolor"]) == (1.0, 1.0, 1.0, 1.0)
        assert to_rgba(matplotlib.rcParams["axes.facecolor"]) == (1.0, 1.0, 1.0, 1.0)
        assert not matplotlib.rcParams["savefig.transparent"]
        cycle = [c["color"] for c in matplotlib.rcParams["axes.prop_cycle"]]
        assert cycle == list(plotting.PALETTE)
    assert len(set(plotting.PALETTE)) == len(plotting.PALETTE) == 8


def test_ellipse_axes_are_scaled_eigenvectors(ax):
    cov = np.array([[2.0, 0.8], [0.8, 0.5]])
    mean = np.array([1.0, -2.0])
    plotting.plot_gaussian_ellipse(ax, mean, cov, n_std=(1, 2))
    eigval, eigvec = np.linalg.eigh(cov)
    ellipses = _ellipses(ax)
    assert len(ellipses) == 2
    for r, e in zip((1, 2), ellipses):
        np.testing.assert_allclose(e.center, mean)
        np.testing.assert_allclose([e.width, e.height], [2 * r * np.sqrt(eigval[1]), 2 * r * np.sqrt(eigval[0])])
        major = np.array([np.cos(np.radians(e.angle)), np.sin(np.radians(e.angle))])
        np.testing.assert_allclose(cov @ major, eigval[1] * major, atol=1e-12)  # an eigenvector
        # a point on the boundary is at Mahalanobis distance r
        point = mean + e.width / 2 * major
        diff = point - mean
        assert diff @ np.linalg.solve(cov, diff) == pytest.approx(r**2)


def test_ellipse_accepts_diagonal_and_scalar_covariances():
    fig, axes = plt.subplots(1, 3)
    try:
        plotting.plot_gaussian_ellipse(axes[0], [0, 0], np.diag([3.0, 0.5]), n_std=1)
        plotting.plot_gaussian_ellipse(axes[1], [0, 0], np.array([3.0, 0.5]), n_std=1)
        plotting.plot_gaussian_ellipse(axes[2], [0, 0], 0.7, n_std=1)
        (full,), (diag,), (scalar,) = (_ellipses(a) for a in axes)
        assert (full.width, full.height) == pytest.approx((diag.width, diag.height))
        assert (scalar.width, scalar.height) == pytest.approx((2 * np.sqrt(0.7), 2 * np.sqrt(0.7)))
    finally:
        plt.close(fig)


def test_mixture_colours_blend_by_responsibility_and_labels_the_weights(ax):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(30, 2))
    means = np.array([[-1.0, 0.0], [1.0, 0.0], [0.0, 2.0]])
    covariances = np.array([0.5, 1.0, 2.0])
    resp = rng.dirichlet(np.ones(3), size=30)
    plotting.plot_mixture(ax, X, means, covariances, "spherical", resp=resp, weights=[0.2, 0.5, 0.3])
    assert len(_ellipses(ax)) == 3 * 2  # K components x the two default radii
    rgb = np.array([to_rgb(c) for c in plotting.PALETTE[:3]])
    colours = ax.collections[0].get_facecolors()[:, :3]
    np.testing.assert_allclose(colours, resp @ rgb)
    texts = sorted(t.get_text() for t in ax.texts)
    assert texts == ["$\\pi_1$ = 0.20", "$\\pi_2$ = 0.50", "$\\pi_3$ = 0.30"]
    assert all(t.get_bbox_patch() is not None for t in ax.texts)  # readable over the points


def test_mixture_without_responsibilities_is_grey(ax):
    X = np.zeros((4, 2)) + np.arange(4)[:, None]
    plotting.plot_mixture(ax, X, [[0.0, 0.0]], [[1.0, 1.0]], "diag", n_std=1)
    np.testing.assert_allclose(ax.collections[0].get_facecolors()[:, :3], 0.5)
    assert len(_ellipses(ax)) == 1 and not ax.texts


def test_decision_regions_call_predict_on_a_grid_and_label_classes(ax):
    X = np.array([[0.0, 0.0], [1.0, 1.0], [2.0, 0.0]])
    y = np.array([0, 1, 1])
    seen = []

    def predict(grid):
        seen.append(grid.shape)
        return (grid[:, 0] > 0.5).astype(int)

    plotting.plot_decision_regions(ax, predict, X, y, resolution=40, class_names=["a", "b"], margin=0.5)
    assert seen == [(40 * 40, 2)]
    assert ax.get_xlim() == pytest.approx((-0.5, 2.5)) and ax.get_ylim() == pytest.approx((-0.5, 1.5))
    assert [t.get_text() for t in ax.legend().get_texts()] == ["a", "b"]


def test_log_likelihood_trace_starts_at_iteration_zero(ax):
    values = [-10.0, -6.0, -5.5]
    plotting.plot_log_likelihood(ax, values, label="EM")
    (line,) = ax.lines
    np.testing.assert_array_equal(line.get_xdata(), [0, 1, 2])
    np.testing.assert_array_equal(line.get_ydata(), values)
    assert ax.get_xlabel() == "iteration" and ax.get_legend() is not None
