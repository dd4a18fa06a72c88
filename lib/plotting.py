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
    "InteractiveFigure",
    "interactive_mixture_fit",
    "interactive_elbo",
    "interactive_decision_regions",
    "interactive_log_likelihood",
    "interactive_curves",
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


# ------------------------------------------------------ interactive figures --
#
# A figure whose every frame is computed in the notebook and stored in its
# output: the page needs no kernel and no network.  The output is a mime
# bundle: text/html (an SVG drawn by lib/interactive.js, with native controls)
# for the web book, Jupyter and Colab, and image/png (one still frame, drawn by
# matplotlib from the same data) for the PDF.  Numbers are rounded and element
# ids derived from the content, so the stored HTML is the same on every run
# and nbval can compare it.

_JS_FILE = "interactive.js"
_HIDDEN = "zzzzzz"  # a point's colour code meaning "not drawn in this frame"


def _nice_ticks(lo, hi, log=False, n=5):
    """(value, label) pairs of readable ticks inside [lo, hi]."""
    from matplotlib.ticker import LogLocator, MaxNLocator

    locator = LogLocator(numticks=n) if log else MaxNLocator(nbins=n)
    values = [v for v in locator.tick_values(lo, hi) if lo - 1e-12 * abs(hi - lo) <= v <= hi + 1e-12 * abs(hi - lo)]
    return [[_round_float(v), f"{v:g}"] for v in values]


def _round_float(v, digits=6):
    """Round to ``digits`` significant digits: stored numbers must not show BLAS noise."""
    v = float(v)
    if v == 0 or not np.isfinite(v):
        return 0.0 if v == 0 else None
    return round(v, digits - 1 - int(np.floor(np.log10(abs(v)))))


def _rounded(values, span, resolution=1e-4):
    """Data coordinates rounded to ``resolution`` of the axis span (a list)."""
    decimals = max(0, int(-np.floor(np.log10(span * resolution))))
    return np.round(np.asarray(values, dtype=float), decimals).tolist()


def _hex(colors):
    """(m, 3) RGB in [0, 1] -> one string of m six-digit hex colours."""
    rgb = np.clip(np.rint(np.asarray(colors, dtype=float) * 255), 0, 255).astype(int)
    return "".join(f"{r:02x}{g:02x}{b:02x}" for r, g, b in rgb)


def _blend(resp):
    """Responsibility-weighted mix of the palette colours, as in :func:`plot_mixture`."""
    resp = np.asarray(resp, dtype=float)
    rgb = np.array([mpl.colors.to_rgb(c) for c in _colors(resp.shape[-1])])  # (K, 3)
    return resp @ rgb  # (..., 3)


def _ellipse_mark(mean, cov, r, span, color, width):
    """[cx, cy, a11, a12, a21, a22, colour, width]: the Mahalanobis-radius-r ellipse of
    N(mean, cov) is {mean + A (cos t, sin t)} with A = V diag(r sqrt(lambda)) (eigh of cov)."""
    eigval, eigvec = np.linalg.eigh(np.asarray(cov, dtype=float)[:2, :2])
    A = eigvec * (r * np.sqrt(np.maximum(eigval, 0)))  # (2, 2): columns scaled
    return _rounded(np.asarray(mean, dtype=float)[:2], span) + _rounded(A.ravel(), span) + [color, width]


class InteractiveFigure:
    """An interactive figure: panels of layers, controls, one value text per frame.

    Parameters
    ----------
    panels : list of dict
        Each with ``box`` ([left, top, width, height] in SVG units), ``xlim``,
        ``ylim``, optional ``xlabel``, ``ylabel``, ``title``, ``xlog``, ``ylog``
        and ``layers``.  A layer is ``{"type": "scatter" | "polylines" | "texts"
        | "raster", ..., "by": [control indices it depends on]}``; its
        ``frames`` (or ``colors`` for a scatter) are indexed row-major by the
        values of the controls in ``by``.
    controls : list of dict
        ``{"kind": "range", "label": str, "size": m}`` or ``{"kind": "select",
        "label": str, "options": [str, ...]}``.
    text : list of str
        The value written beside the controls for each combination of control
        values (row-major over all controls): the numbers the notebook prints.
    alt : str
        Text alternative of the picture (for screen readers and the PDF's alt text).
    size : (width, height)
        The SVG's coordinate box; it scales to the page width.
    still : int
        The frame drawn in the still image (the PDF).
    """

    def __init__(self, panels, controls, text, alt, size=(640, 300), still=0, initial=None):
        self.panels, self.controls, self.text, self.alt = panels, controls, list(text), alt
        self.size, self.still = size, still
        for control in controls:
            control.setdefault("size", len(control.get("options", [])))
        sizes = [c["size"] for c in controls]
        if len(self.text) != int(np.prod(sizes)):
            raise ValueError(f"text has {len(self.text)} entries; the controls {sizes} make {int(np.prod(sizes))} frames")
        self.initial = list(initial) if initial is not None else list(np.unravel_index(still, sizes))

    # -- the web ------------------------------------------------------------
    def spec(self):
        return {"panels": self.panels, "controls": self.controls, "text": self.text}

    def to_html(self):
        """The self-contained HTML fragment: controls, an SVG, the data and the renderer."""
        import hashlib
        import html
        import json
        from importlib.resources import files

        data = json.dumps(self.spec(), separators=(",", ":"), sort_keys=True)
        uid = "gmfig-" + hashlib.sha1((data + self.alt).encode()).hexdigest()[:10]
        parts = [f'<div class="interactive-figure" id="{uid}" role="group" aria-label="{html.escape(self.alt)}">',
                 '<div class="interactive-figure-controls" '
                 'style="display:flex;flex-wrap:wrap;gap:0.3em 0.8em;align-items:center;margin-bottom:0.4em">']
        for j, control in enumerate(self.controls):
            cid = f"{uid}-c{j}"
            parts.append(f'<label for="{cid}">{html.escape(control["label"])}</label>')
            if control["kind"] == "range":
                parts.append(f'<input type="range" id="{cid}" data-control min="0" max="{control["size"] - 1}" '
                             f'step="1" value="{self.initial[j]}">')
            elif control["kind"] == "select":
                options = "".join(f'<option value="{i}"{" selected" if i == self.initial[j] else ""}>'
                                  f'{html.escape(str(o))}</option>' for i, o in enumerate(control["options"]))
                parts.append(f'<select id="{cid}" data-control>{options}</select>')
            else:
                raise ValueError(f"unknown control kind {control['kind']!r}: expected 'range' or 'select'")
        parts.append(f'<output for="{" ".join(f"{uid}-c{j}" for j in range(len(self.controls)))}" '
                     f'aria-live="polite" style="flex-basis:100%;font-variant-numeric:tabular-nums">'
                     f'{html.escape(self.text[self.still])}</output></div>')
        w, h = self.size
        parts.append(f'<svg viewBox="0 0 {w} {h}" role="img" aria-label="{html.escape(self.alt)}" '
                     f'style="width:100%;max-width:{w}px;height:auto;background:#fff;font-family:sans-serif">'
                     f'<rect width="{w}" height="{h}" fill="#fff"/></svg>')
        safe = data.replace("</", "<\\/")  # "</" cannot appear inside a script element
        parts.append(f'<script type="application/json">{safe}</script>')
        js = files("lib").joinpath(_JS_FILE).read_text()
        parts.append(f"<script>{js}</script></div>")
        return "\n".join(parts)

    # -- the PDF ------------------------------------------------------------
    def still_figure(self):
        """A matplotlib Figure of the still frame (what the PDF prints)."""
        import matplotlib.pyplot as plt
        from matplotlib.ticker import NullLocator

        w, h = self.size
        # placed axes: no constrained layout (the book style turns it on)
        fig = plt.figure(figsize=(w / 100, h / 100), dpi=100, facecolor="white", layout="none")
        values = self.initial
        for panel in self.panels:
            left, top, pw, ph = panel["box"]
            ax = fig.add_axes([left / w, 1 - (top + ph) / h, pw / w, ph / h])
            ax.set_xlim(panel["xlim"])
            ax.set_ylim(panel["ylim"])
            if panel.get("xlog"):
                ax.set_xscale("log")
            if panel.get("ylog"):
                ax.set_yscale("log")
            # the ticks the web figure draws ([] draws none), with their labels
            for axis, key in ((ax.xaxis, "xticks"), (ax.yaxis, "yticks")):
                if key in panel:
                    axis.set_ticks([t[0] for t in panel[key]], [str(t[1]) for t in panel[key]])
                    axis.set_minor_locator(NullLocator())
            ax.set_xlabel(panel.get("xlabel", ""))
            ax.set_ylabel(panel.get("ylabel", ""))
            ax.set_title(panel.get("title", ""), fontsize=10, fontweight="bold")
            for layer in panel["layers"]:
                by = layer.get("by", list(range(len(self.controls))))
                k = int(np.ravel_multi_index([values[j] for j in by], [self.controls[j]["size"] for j in by])) \
                    if by else 0
                self._draw_still(ax, layer, k)
        return fig

    @staticmethod
    def _draw_still(ax, layer, k):
        kind = layer["type"]
        if kind == "scatter":
            x, y = np.asarray(layer["x"]), np.asarray(layer["y"])
            if "colors" in layer:
                codes = [layer["colors"][k][6 * i: 6 * i + 6] for i in range(x.size)]
                keep = np.array([c != _HIDDEN for c in codes])
                colors = ["#" + c for c in codes if c != _HIDDEN]
                x, y = x[keep], y[keep]
            else:
                colors = layer.get("color", "#888888")
            ax.scatter(x, y, s=(2 * layer["r"]) ** 2 / 2, c=colors, edgecolor="#333", linewidth=0.3, zorder=3)
        elif kind == "polylines":
            for xy, stroke, fill, width, dash in (m + [None] * (5 - len(m)) for m in layer["frames"][k]):
                xy = np.asarray(xy, dtype=float).reshape(-1, 2)
                if fill:
                    ax.fill(xy[:, 0], xy[:, 1], facecolor=fill, edgecolor=stroke or "none", linewidth=(width or 1.5) * 0.75)
                else:
                    ax.plot(xy[:, 0], xy[:, 1], color=stroke, linewidth=(width or 1.5) * 0.75,
                            linestyle="--" if dash else "-")
        elif kind == "ellipses":
            t = np.linspace(0, 2 * np.pi, 97)
            for cx, cy, a11, a12, a21, a22, color, width in layer["frames"][k]:
                ax.plot(cx + a11 * np.cos(t) + a12 * np.sin(t), cy + a21 * np.cos(t) + a22 * np.sin(t),
                        color=color, linewidth=width * 0.75)
        elif kind == "texts":
            for x, y, s, color, anchor in (m + [None] * (5 - len(m)) for m in layer["frames"][k]):
                ax.text(x, y, s, color=color or "#222", ha={"end": "right", "middle": "center"}.get(anchor, "left"),
                        fontsize=8, bbox=dict(facecolor="white", edgecolor="none", alpha=0.8, pad=1))
        elif kind == "raster":
            ny, nx = layer["shape"]
            codes = np.array([int(c) for c in layer["frames"][k]]).reshape(ny, nx)
            rgba = np.array([mpl.colors.to_rgba(c) for c in layer["palette"]])[codes]  # (ny, nx, 4)
            ax.imshow(rgba, extent=layer["extent"], origin="upper", aspect="auto", interpolation="nearest", zorder=0)

    def _repr_png_bytes(self):
        import io

        import matplotlib.pyplot as plt

        fig = self.still_figure()
        buf = io.BytesIO()
        fig.savefig(buf, format="png", dpi=100, facecolor="white")
        plt.close(fig)
        return buf.getvalue()

    def _repr_mimebundle_(self, include=None, exclude=None):
        import base64

        return {
            "text/html": self.to_html(),
            "image/png": base64.b64encode(self._repr_png_bytes()).decode("ascii"),
            "text/plain": f"<interactive figure: {self.alt}>",
        }


def _limits(values, pad=0.05):
    values = np.asarray(values, dtype=float)
    values = values[np.isfinite(values)]
    lo, hi = float(values.min()), float(values.max())
    span = hi - lo if hi > lo else max(abs(hi), 1.0)
    return [_round_float(lo - pad * span), _round_float(hi + pad * span)]


def _axes(box, xlim, ylim, layers, **labels):
    panel = {"box": box, "xlim": xlim, "ylim": ylim, "layers": layers,
             "xticks": _nice_ticks(*xlim, log=labels.get("xlog", False)),
             "yticks": _nice_ticks(*ylim, log=labels.get("ylog", False))}
    panel.update({k: v for k, v in labels.items() if v})
    return panel


def _trace(x, y, xspan, yspan, stroke, dash=None, width=1.5):
    """One polyline mark of the finite points of (x, y)."""
    x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    keep = np.isfinite(y)
    flat = np.column_stack([_rounded(x[keep], xspan), _rounded(y[keep], yspan)]).ravel().tolist()
    return [flat, stroke, None, width, dash]


def _check_text(text, count, what):
    if text is None:
        return None
    text = [str(t) for t in text]
    if len(text) != count:
        raise ValueError(f"text has {len(text)} entries, but the figure has {count} {what}: give one per frame")
    return text


def interactive_mixture_fit(X, runs, *, alt, run_names=None, covariance_type="full", n_std=(1, 2),
                            step_names=None, text=None, still=None):
    r"""EM scrubber: responsibilities and ellipses at every half-step, beside the traces and the gap.

    Parameters
    ----------
    X : ndarray of shape (n_samples, 2)
    runs : list of dict
        One per starting point, each with the state after every half-step
        (the same number ``T`` of states for every run): ``resp`` (T, n, K),
        ``means`` (T, K, 2), ``covariances`` (T, ...) in ``covariance_type``'s
        layout, ``log_likelihood`` (T,) and ``bound`` (T,), the lower bound
        :math:`\mathcal L(q, \theta)` of chapter 4 (``nan`` where it is not
        defined); optionally ``gap`` (T,), :math:`\ln p - \mathcal L`
        computed without cancellation (default: ``log_likelihood - bound``).
        The third panel draws the positive gaps on a log scale (after an
        E-step the gap is 0 and is left out).
    run_names : list of str, optional
        Names of the starting points for the select control.
    step_names : list of str, optional
        Names of the T states ("start", "E-step 1", "M-step 1", ...).
    text : list of str, optional
        The value text of each frame (len(runs) * T, run-major); default
        "<run>, <step>: ln p = ..., ℒ = ..., gap = ...".
    still : int, optional
        The frame (run-major index) drawn in the still image; default the last
        state of the first run.
    """
    X = np.asarray(X, dtype=float)
    if X.ndim != 2 or X.shape[1] != 2:
        raise ValueError(f"X must have shape (n_samples, 2); got {X.shape}")
    if not runs:
        raise ValueError("runs is empty: give at least one run of EM")
    T = len(runs[0]["log_likelihood"])
    if any(len(run["log_likelihood"]) != T for run in runs):
        raise ValueError("every run must hold the same number of states: run each for the same number of steps")
    R, K = len(runs), np.asarray(runs[0]["means"]).shape[1]
    run_names = run_names or [f"start {r + 1}" for r in range(R)]
    step_names = step_names or [f"state {t}" for t in range(T)]
    xlim, ylim = _limits(X[:, 0]), _limits(X[:, 1])
    xspan, yspan = xlim[1] - xlim[0], ylim[1] - ylim[0]
    lls = np.array([run["log_likelihood"] for run in runs], dtype=float)  # (R, T)
    bounds = np.array([run["bound"] for run in runs], dtype=float)  # (R, T)
    gaps = np.array([run.get("gap", np.asarray(run["log_likelihood"], dtype=float) - np.asarray(run["bound"], dtype=float))
                     for run in runs], dtype=float)  # (R, T)
    with np.errstate(invalid="ignore"):
        gaps = np.where(gaps > 1e-12 * np.maximum(1.0, np.abs(lls)), gaps, np.nan)  # 0 after an E-step: not drawn
    tlim = [-0.5, T - 0.5]
    llim = _limits(np.concatenate([lls.ravel(), bounds.ravel()]))
    lspan = llim[1] - llim[0]
    finite = gaps[np.isfinite(gaps)]
    glim = ([_round_float(10.0 ** np.floor(np.log10(finite.min()))), _round_float(10.0 ** np.ceil(np.log10(finite.max())))]
            if finite.size else [1e-3, 1.0])
    if glim[0] == glim[1]:
        glim[1] = _round_float(10 * glim[1])
    colors, ellipses, traces, markers, gap_traces, gap_markers = [], [], [], [], [], []
    for run in runs:
        resp = np.asarray(run["resp"], dtype=float)  # (T, n, K)
        colors += [_hex(_blend(resp[t])) for t in range(T)]
        for t in range(T):
            covs = full_covariances(np.asarray(run["covariances"][t]), covariance_type, K, 2)  # (K, 2, 2)
            marks = [_ellipse_mark(run["means"][t][k], covs[k], r, max(xspan, yspan), PALETTE[k % len(PALETTE)],
                                   2.0 if r == np.min(n_std) else 1.0)
                     for k in range(K) for r in np.atleast_1d(n_std)]
            ellipses.append(marks)
    for r in range(R):
        traces.append([_trace(np.arange(T), lls[r], 1, lspan, "#222"),
                       _trace(np.arange(T), bounds[r], 1, lspan, PALETTE[3], dash="5,3")])
        keep = np.isfinite(gaps[r])
        flat = np.column_stack([np.arange(T)[keep], [_round_float(g) for g in gaps[r][keep]]]).ravel().tolist()
        gap_traces.append([[flat, PALETTE[3], None, 1.5]])
        for t in range(T):
            markers.append([[[t, llim[0], t, llim[1]], "#999", None, 1.0, "2,2"]]
                           + [[[t, _round_float(v)] * 2, c, None, 7.0]
                              for v, c in ((lls[r, t], "#222"), (bounds[r, t], PALETTE[3])) if np.isfinite(v)])
            gap_markers.append([[[t, glim[0], t, glim[1]], "#999", None, 1.0, "2,2"]]
                               + ([[[t, _round_float(gaps[r, t])] * 2, PALETTE[3], None, 7.0]]
                                  if np.isfinite(gaps[r, t]) else []))
    by_all = [0, 1] if R > 1 else [0]
    controls = ([{"kind": "select", "label": "starting point", "options": list(run_names)}] if R > 1 else [])
    controls.append({"kind": "range", "label": "EM half-step", "size": T})
    left = _axes([50, 28, 280, 222], xlim, ylim, [
        {"type": "scatter", "x": _rounded(X[:, 0], xspan), "y": _rounded(X[:, 1], yspan), "r": 3.2,
         "colors": colors, "by": by_all},
        {"type": "ellipses", "frames": ellipses, "by": by_all}],
        xlabel="x1", ylabel="x2", title="responsibilities and components")
    legend = [[[0.5, llim[0] + 0.12 * lspan, 2.5, llim[0] + 0.12 * lspan], "#222", None, 1.5],
              [[0.5, llim[0] + 0.05 * lspan, 2.5, llim[0] + 0.05 * lspan], PALETTE[3], None, 1.5, "5,3"]]
    middle = _axes([410, 28, 190, 222], tlim, llim, [
        {"type": "polylines", "frames": [tr + legend for tr in traces], "by": [0] if R > 1 else []},
        {"type": "texts", "frames": [[[3, llim[0] + 0.12 * lspan, "ln p(X | θ)", "#222"],
                                      [3, llim[0] + 0.05 * lspan, "ℒ(q, θ)", PALETTE[3]]]], "by": []},
        {"type": "polylines", "frames": markers, "by": by_all}],
        xlabel="half-step", ylabel="log-likelihood", title="ln p and the bound ℒ")
    right = _axes([680, 28, 190, 222], tlim, glim, [
        {"type": "polylines", "frames": gap_traces, "by": [0] if R > 1 else []},
        {"type": "polylines", "frames": gap_markers, "by": by_all}],
        xlabel="half-step", ylabel="nats (log scale)", title="gap ln p − ℒ after M-steps", ylog=True)
    if text is None:
        text = [f"{run_names[r]}, {step_names[t]} (half-step {t} of {T - 1}): ln p = {lls[r, t]:.1f}"
                + (f", ℒ = {bounds[r, t]:.1f}" if np.isfinite(bounds[r, t]) else "")
                + (f", gap = {gaps[r, t]:.2g}" if np.isfinite(gaps[r, t]) else "")
                for r in range(R) for t in range(T)]
    text = _check_text(text, R * T, "frames")
    return InteractiveFigure([left, middle, right], controls, text, alt, size=(900, 300),
                             still=T - 1 if still is None else still)


def interactive_elbo(param_values, log_evidence, elbo, kl, posterior, q, *, alt, param_label="q",
                     latent_labels=None, latent_name="z", text=None, still=0, xlog=False):
    r"""The identity :math:`\ln p(x) = \mathrm{ELBO}(q) + \mathrm{KL}(q \,\|\, p(z \mid x))` along a
    family of q.

    Three panels over the family's parameter: the ELBO as a curve below the flat line
    :math:`\ln p(x)`, with the gap at the chosen q drawn as a vertical bar; the KL
    divergence as a curve on the *same* vertical scale (its axis starts at 0 and spans
    as many nats as the first panel's), so the bar in the first panel and the height of
    the second curve are the same length; and the exact posterior beside q.

    Parameters
    ----------
    param_values : ndarray of shape (m,)
        The variational parameter at each slider position (increasing).
    log_evidence : float
        :math:`\ln p(x)`, the same for every q.
    elbo, kl : ndarray of shape (m,)
    posterior : ndarray of shape (L,)
        The exact posterior over the L values of z.
    q : ndarray of shape (m, L)
        The variational distribution at each slider position.
    latent_labels, latent_name : list of str, str
        Tick labels of the L latent values and the axis label of the third panel.
    xlog : bool
        Draw the parameter axis on a log scale (for a tempering exponent).
    """
    elbo, kl = np.asarray(elbo, dtype=float), np.asarray(kl, dtype=float)
    q, posterior = np.asarray(q, dtype=float), np.asarray(posterior, dtype=float)
    x = np.asarray(param_values, dtype=float)
    m, L = q.shape
    if elbo.shape != (m,) or kl.shape != (m,) or posterior.shape != (L,) or x.shape != (m,):
        raise ValueError("param_values, elbo and kl need one entry per row of q, posterior one per column")
    if xlog and np.any(x <= 0):
        raise ValueError("xlog=True needs positive param_values")
    latent_labels = latent_labels or [str(j) for j in range(L)]
    lp = _round_float(log_evidence)
    low = float(elbo.min())
    gap = max(lp - low, 1e-3)
    ylim = [_round_float(low - 0.12 * gap), _round_float(lp + 0.12 * gap)]
    span = ylim[1] - ylim[0]
    klim = [_round_float(-0.12 * gap), _round_float(span - 0.12 * gap)]  # same length as ylim
    xlim = [_round_float(x.min()), _round_float(x.max())] if xlog else _limits(x, pad=0.02)
    xspan = float(x.min()) if xlog else xlim[1] - xlim[0]
    elbo_curve = _trace(x, elbo, xspan, span, PALETTE[0], width=2.0)
    kl_curve = _trace(x, kl, xspan, span, PALETTE[1], width=2.0)
    flat = [[xlim[0], lp, xlim[1], lp], "#222", None, 1.2, "4,3"]
    gaps, kl_bars = [], []
    for i in range(m):
        xi, e, k = _round_float(x[i]), _round_float(elbo[i]), _round_float(kl[i])
        gaps.append([[[xi, e, xi, lp], PALETTE[1], None, 4.0], [[xi, e, xi, e], PALETTE[0], None, 8.0]])
        kl_bars.append([[[xi, 0.0, xi, k], PALETTE[1], None, 4.0], [[xi, k, xi, k], PALETTE[1], None, 8.0]])
    xlabel = param_label + (" (log scale)" if xlog else "")
    pleft = _axes([70, 28, 190, 222], xlim, ylim, [
        {"type": "polylines", "frames": [[elbo_curve, flat]], "by": []},
        {"type": "polylines", "frames": gaps, "by": [0]},
        {"type": "texts", "frames": [[[xlim[0], lp + 0.05 * span, " ln p(x)", "#222"],
                                      [xlim[0], ylim[0] + 0.05 * span, " ELBO (blue); KL = gap (orange)",
                                       PALETTE[0]]]], "by": []}],
        xlabel=xlabel, ylabel="nats", title="ELBO below ln p(x)", xlog=xlog)
    pmid = _axes([310, 28, 150, 222], xlim, klim, [
        {"type": "polylines", "frames": [[kl_curve, [[xlim[0], 0.0, xlim[1], 0.0], "#999", None, 1.0]]], "by": []},
        {"type": "polylines", "frames": kl_bars, "by": [0]}],
        xlabel=xlabel, title="KL(q || p(z | x))", xlog=xlog)
    dists = []
    for i in range(m):
        marks = []
        for j in range(L):
            for offset, height, color in ((-0.38, posterior[j], "#999999"), (0.02, q[i, j], PALETTE[0])):
                h = _round_float(height) or 0.0
                marks.append([[j + offset, 0, j + offset + 0.36, 0, j + offset + 0.36, h, j + offset, h],
                              "#333", color, 0.6])
        dists.append(marks)
    top = _round_float(1.15 * max(float(posterior.max()), float(q.max())))
    pright = _axes([510, 28, 200, 222], [-0.6, L - 0.4], [0, top], [
        {"type": "polylines", "frames": dists, "by": [0]},
        {"type": "texts", "frames": [[[-0.5, 0.95 * top, "grey: p(z | x)", "#555"],
                                      [-0.5, 0.88 * top, "blue: q(z)", PALETTE[0]]]], "by": []}],
        xlabel=latent_name, ylabel="probability", title="exact posterior and q")
    pright["xticks"] = [[j, str(lab)] for j, lab in enumerate(latent_labels)]
    if xlog and np.log10(xlim[1] / xlim[0]) < 2:  # too few decades for decade ticks: powers of 2
        ticks = [[_round_float(2.0**k), f"{2.0**k:g}" if k >= 0 else f"1/{2**-k}"]
                 for k in range(int(np.ceil(np.log2(xlim[0]) - 1e-9)), int(np.floor(np.log2(xlim[1]) + 1e-9)) + 1)]
        pleft["xticks"] = pmid["xticks"] = ticks
    if text is None:
        text = [f"{param_label} = {param_values[i]:.2f}: ELBO = {elbo[i]:.3f}, KL = {kl[i]:.3f}, "
                f"ELBO + KL = {elbo[i] + kl[i]:.3f} = ln p(x)" for i in range(m)]
    text = _check_text(text, m, "slider positions")
    controls = [{"kind": "range", "label": param_label, "size": m}]
    return InteractiveFigure([pleft, pmid, pright], controls, text, alt, size=(730, 300), still=still)


def interactive_decision_regions(regions, extent, X, y, *, classifier_names, train_sizes, train_order,
                                 alt, text, class_names=None, still=None, xlabel="x1", ylabel="x2"):
    """Decision regions of several classifiers for several training-set sizes.

    Parameters
    ----------
    regions : int ndarray of shape (C, S, ny, nx)
        The predicted class on a grid over ``extent`` (rows from the top), for
        each of C classifiers trained on each of S training-set sizes.
    extent : (x_min, x_max, y_min, y_max)
    X, y : the training pool (first two features) and its labels 0..K-1.
    train_sizes : list of int
        Size s trains on ``X[train_order[:train_sizes[s]]]``.
    text : list of str
        One value text per (classifier, size), classifier-major.
    """
    regions = np.asarray(regions)
    X, y = np.asarray(X, dtype=float), np.asarray(y)
    C, S, ny, nx = regions.shape
    if len(classifier_names) != C or len(train_sizes) != S:
        raise ValueError(f"regions has shape {regions.shape}: give {C} classifier names and {S} training sizes")
    if regions.min() < 0 or regions.max() > 9:
        raise ValueError("regions must hold class indices 0..9")
    K = int(max(regions.max(), y.max())) + 1
    light = [mpl.colors.to_hex(0.35 * np.array(mpl.colors.to_rgb(c)) + 0.65) for c in _colors(K)]
    xlim, ylim = [_round_float(extent[0]), _round_float(extent[1])], [_round_float(extent[2]), _round_float(extent[3])]
    frames = ["".join(str(int(v)) for v in regions[c, s].ravel()) for c in range(C) for s in range(S)]
    base = _blend(np.eye(K)[y])  # (n, 3): the class colours
    colors = []
    for size in train_sizes:
        shown = np.zeros(len(y), dtype=bool)
        shown[np.asarray(train_order)[:size]] = True
        codes = _hex(base)
        colors.append("".join(codes[6 * i: 6 * i + 6] if shown[i] else _HIDDEN for i in range(len(y))))
    panel = _axes([60, 14, 400, 256], xlim, ylim, [
        {"type": "raster", "shape": [ny, nx], "extent": list(xlim) + list(ylim), "palette": light,
         "frames": frames, "by": [0, 1]},
        {"type": "scatter", "x": _rounded(X[:, 0], xlim[1] - xlim[0]), "y": _rounded(X[:, 1], ylim[1] - ylim[0]),
         "r": 3.2, "colors": colors, "by": [1]}], xlabel=xlabel, ylabel=ylabel)
    if class_names:
        panel["layers"].append({"type": "texts", "by": [], "frames": [[
            [xlim[0] + 0.02 * (xlim[1] - xlim[0]), ylim[1] - (0.07 + 0.07 * k) * (ylim[1] - ylim[0]),
             f"● {name}", _colors(K)[k]] for k, name in enumerate(class_names)]]})
    controls = [{"kind": "select", "label": "classifier", "options": list(classifier_names)},
                {"kind": "range", "label": "training points", "size": S}]
    text = _check_text(text, C * S, "(classifier, size) pairs")
    return InteractiveFigure([panel], controls, text, alt, size=(640, 310),
                             still=S - 1 if still is None else still)


def interactive_log_likelihood(theta, curves, ns, mles, truth, *, alt, param_label="θ",
                               ylabel="average log-likelihood", text=None, still=None):
    """The (average) log-likelihood of one parameter as n grows, the MLE and the truth marked.

    ``curves`` has shape (len(ns), len(theta)): row s is the curve after ``ns[s]`` observations.
    """
    theta, curves = np.asarray(theta, dtype=float), np.asarray(curves, dtype=float)
    S = len(ns)
    if curves.shape != (S, theta.size) or len(mles) != S:
        raise ValueError(f"curves must have shape ({S}, {theta.size}) and mles {S} entries")
    xlim, ylim = _limits(theta, pad=0), _limits(curves)
    xspan, yspan = xlim[1] - xlim[0], ylim[1] - ylim[0]
    frames = []
    for s in range(S):
        mle = _round_float(mles[s])
        frames.append([_trace(theta, curves[s], xspan, yspan, PALETTE[0], width=2.0),
                       [[mle, ylim[0], mle, ylim[1]], PALETTE[3], None, 1.5, "5,3"]])
    t = _round_float(truth)
    static = [[[t, ylim[0], t, ylim[1]], "#222", None, 1.2]]
    panel = _axes([80, 28, 440, 222], xlim, ylim, [
        {"type": "polylines", "frames": [static], "by": []},
        {"type": "polylines", "frames": frames, "by": [0]},
        {"type": "texts", "by": [], "frames": [[[xlim[0] + 0.02 * xspan, ylim[0] + 0.1 * yspan,
                                                 "dashed: MLE, solid: truth", "#222"]]]}],
        xlabel=param_label, ylabel=ylabel)
    if text is None:
        text = [f"n = {ns[s]}: MLE {param_label} = {mles[s]:.3f} (truth {truth:.3f})" for s in range(S)]
    text = _check_text(text, S, "values of n")
    controls = [{"kind": "range", "label": "number of observations n", "size": S}]
    return InteractiveFigure([panel], controls, text, alt, size=(640, 300), still=S - 1 if still is None else still)


def interactive_curves(x, sets, *, alt, set_label, xlabel, ylabel, text, xlog=False, ylim=None, still=0):
    """Families of curves on one axes, with a select to switch between families.

    ``sets`` is a list of ``(name, [(label, y), ...])``: each family's curves
    over the common ``x``.  ``text`` gives one value text per family.
    """
    x = np.asarray(x, dtype=float)
    all_y = np.concatenate([np.asarray(yv, dtype=float) for _, curves in sets for _, yv in curves])
    xlim = [_round_float(x.min()), _round_float(x.max())] if xlog else _limits(x, pad=0.02)
    ylim = ylim or _limits(all_y)
    xspan, yspan = xlim[1] - xlim[0], ylim[1] - ylim[0]
    frames, labels = [], []
    for _, curves in sets:
        marks, names = [], []
        for j, (label, yv) in enumerate(curves):
            color = PALETTE[j % len(PALETTE)]
            # x in data units: the renderer maps a log axis itself; round to 1e-4 of the smallest x
            marks.append(_trace(x, yv, float(x.min()) if xlog else xspan, yspan, color, width=2.0))
            names.append([xlim[0], ylim[1] - (0.07 + 0.07 * j) * yspan, f"  {label}", color])
        frames.append(marks)
        labels.append(names)
    panel = _axes([80, 28, 520, 222], xlim, ylim, [
        {"type": "polylines", "frames": frames, "by": [0]},
        {"type": "texts", "frames": labels, "by": [0]}], xlabel=xlabel, ylabel=ylabel, xlog=xlog)
    text = _check_text(text, len(sets), "families")
    controls = [{"kind": "select", "label": set_label, "options": [name for name, _ in sets]}]
    return InteractiveFigure([panel], controls, text, alt, size=(640, 300), still=still)
