"""How to make a figure move in a static page: the candidates, measured on one figure.

The figure is chapter 4's EM scrubber (300 points, K = 3, three starting
points, 41 states each: the start and 20 E/M pairs).  Each way of embedding
it is written to a self-contained HTML fragment that works offline, and its
size is reported; the choice and these figures are in the README
("Interactive figures").  Candidates:

* matplotlib's own JavaScript player (``FuncAnimation.to_jshtml``): every
  frame a PNG, one slider and its own buttons; one starting point only (it
  has a single frame axis), so the size is multiplied by 3 for the full figure;
* Bokeh with inline resources (BokehJS embedded, ``bokeh.embed.file_html``)
  and a CustomJS callback over all frames in a ColumnDataSource;
* Plotly with its bundled script (``include_plotlyjs=True``) and frames;
* the book's own renderer (``lib.plotting.interactive_mixture_fit``).

Bokeh and Plotly are not dependencies of the book: run this in an
environment that has them (``pip install bokeh plotly`` in a scratch venv,
with this repository on PYTHONPATH)::

    PYTHONPATH=. python benchmarks/bench_interactive.py
"""

import io
import sys

import numpy as np

import matplotlib

matplotlib.use("Agg")

from lib import mixture, plotting  # noqa: E402


def em_runs(X, starts=3, pairs=20):
    runs = []
    for seed in range(starts):
        rng = np.random.default_rng(seed)
        w, m, c = np.full(3, 1 / 3), X[rng.choice(len(X), 3, replace=False)], np.array([np.eye(2)] * 3)
        run = {"resp": [np.full((len(X), 3), 1 / 3)], "means": [m], "covariances": [c],
               "log_likelihood": [mixture.log_likelihood(X, w, m, c)], "bound": [np.nan]}
        for _ in range(pairs):
            resp, _ = mixture.e_step(X, w, m, c)
            for state in ((w, m, c), None):
                if state is None:
                    w, m, c = mixture.m_step(X, resp)[:3]
                run["resp"].append(resp)
                run["means"].append(m)
                run["covariances"].append(c)
                run["log_likelihood"].append(mixture.log_likelihood(X, w, m, c))
                run["bound"].append(mixture.lower_bound(X, resp, w, m, c))
        runs.append(run)
    return runs


def main():
    rng = np.random.default_rng(0)
    X = np.vstack([rng.normal([0, 0], 0.6, (100, 2)), rng.normal([3, 1], 0.8, (100, 2)),
                   rng.normal([1, 3], 0.5, (100, 2))])
    runs = em_runs(X)
    T = len(runs[0]["resp"])
    sizes = {}

    ours = plotting.interactive_mixture_fit(X, runs, alt="EM scrubber").to_html()
    sizes["lib.plotting (SVG + own renderer)"] = len(ours.encode())

    import matplotlib.pyplot as plt
    from matplotlib.animation import FuncAnimation

    plotting.use_book_style()
    fig, ax = plt.subplots(figsize=(6.4, 3.0))
    run = runs[0]

    def draw(t):
        ax.clear()
        plotting.plot_mixture(ax, X, run["means"][t], run["covariances"][t], resp=run["resp"][t])

    anim = FuncAnimation(fig, draw, frames=T)
    jshtml = anim.to_jshtml(default_mode="once")
    plt.close(fig)
    sizes["matplotlib to_jshtml (1 start of 3, x3)"] = 3 * len(jshtml.encode())

    try:
        from bokeh.embed import file_html
        from bokeh.layouts import column
        from bokeh.models import ColumnDataSource, CustomJS, Select, Slider
        from bokeh.plotting import figure
        from bokeh.resources import INLINE

        colours = {f"c{r}_{t}": ["#" + plotting._hex(plotting._blend(runs[r]["resp"][t]))[6 * i: 6 * i + 6]
                                 for i in range(len(X))] for r in range(3) for t in range(T)}
        source = ColumnDataSource(dict(x=X[:, 0], y=X[:, 1], color=colours["c0_0"]))
        frames = ColumnDataSource({k: v for k, v in colours.items()})
        p = figure(width=640, height=300)
        p.scatter("x", "y", color="color", source=source)
        slider, select = Slider(start=0, end=T - 1, value=0, step=1, title="half-step"), \
            Select(options=["0", "1", "2"], value="0")
        code = "const k = 'c' + sel.value + '_' + sl.value; src.data.color = fr.data[k]; src.change.emit();"
        callback = CustomJS(args=dict(src=source, fr=frames, sl=slider, sel=select), code=code)
        slider.js_on_change("value", callback)
        select.js_on_change("value", callback)
        sizes["Bokeh, inline resources (points only)"] = len(file_html(column(select, slider, p), INLINE).encode())
    except ImportError:
        print("bokeh is not installed: skipped", file=sys.stderr)

    try:
        import plotly.graph_objects as go

        figp = go.Figure(
            data=[go.Scatter(x=X[:, 0], y=X[:, 1], mode="markers")],
            frames=[go.Frame(data=[go.Scatter(marker=dict(color=[
                "#" + plotting._hex(plotting._blend(runs[r]["resp"][t]))[6 * i: 6 * i + 6] for i in range(len(X))]))],
                name=f"{r}_{t}") for r in range(3) for t in range(T)])
        buf = io.StringIO()
        figp.write_html(buf, include_plotlyjs=True, full_html=False)
        sizes["Plotly, bundled plotly.js (points only)"] = len(buf.getvalue().encode())
    except ImportError:
        print("plotly is not installed: skipped", file=sys.stderr)

    print("| way | bytes of the embedded figure |\n|---|---:|")
    for name, size in sizes.items():
        print(f"| {name} | {size / 1e6:.2f} MB |")


if __name__ == "__main__":
    main()
