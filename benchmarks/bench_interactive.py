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

With ``--redraw`` it measures instead how fast every interactive figure of
the built book redraws (after ``make book``; headless Chromium as in
``make browser``; the book's own environment suffices)::

    .venv/bin/python benchmarks/bench_interactive.py --redraw

Each control of each figure is set to its last, first and middle value, five
times; a redraw is timed from the control's event to the frame painted after
it (two animation frames).  The target is 100 ms, the delay under which a
reader sees a response as immediate.  The same run times two animation frames
with no control moved (the browser's own frame time on this machine now); the
ratio of the redraw to that idle time is what a figure adds to the frame, the
figure that travels between machines.  The browser tests check that every
redraw happens and is right, never how fast.
"""

import io
import os
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


# One control set to ``value`` (an option's index for a select), timed from its event to the frame
# painted after it; ``control`` = -1 moves nothing (the idle frame time).
_JS_REDRAW_MS = r"""
async ([index, control, value]) => {
  const fig = document.querySelectorAll('.interactive-figure')[index];
  await new Promise(r => requestAnimationFrame(() => r()));
  const t0 = performance.now();
  if (control >= 0) {
    const input = fig.querySelectorAll('[data-control]')[control];
    if (input.tagName === 'SELECT') input.selectedIndex = value; else input.value = String(value);
    input.dispatchEvent(new Event(input.tagName === 'SELECT' ? 'change' : 'input', {bubbles: true}));
    fig.querySelector('svg').getBoundingClientRect();  // force layout
  }
  await new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)));
  return performance.now() - t0;
}
"""
TARGET_MS = 100.0


def redraw(repeats=5):
    """Redraw time of every control of every interactive figure in the built book (a Markdown table)."""
    import platform
    import statistics
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "browser_tests"))
    import book_browser as bb
    from playwright.sync_api import sync_playwright

    root = bb.html_dir()
    if not (root / "index.html").is_file():
        sys.exit(f"no built book at {root}: run `make book` first (or set BOOK_HTML_DIR)")
    pages = [d for d in bb.book_docnames() if (root / f"{d}.html").is_file()
             and 'class="interactive-figure"' in (root / f"{d}.html").read_text()]
    rows, server = [], bb.BookServer(root)
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=bb.chromium_executable(), headless=True,
                                        args=bb.CHROMIUM_ARGS)
            for docname in pages:
                context = browser.new_context(viewport=bb.VIEWPORT, device_scale_factor=1, service_workers="block")
                context.route("**/*", lambda r: r.continue_() if r.request.url.startswith(server.origin + "/")
                              else r.abort("internetdisconnected"))
                page = context.new_page()
                page.goto(server.url(docname), wait_until="networkidle")
                page.wait_for_function("() => [...document.querySelectorAll('.interactive-figure')]"
                                       ".every(f => f.hasAttribute('data-ready'))")
                for i in range(page.locator(".interactive-figure").count()):
                    page.locator(".interactive-figure").nth(i).scroll_into_view_if_needed()
                    controls = page.locator(".interactive-figure").nth(i).locator("[data-control]")
                    for j in range(controls.count()):
                        size = controls.nth(j).evaluate(
                            "e => e.tagName === 'SELECT' ? e.options.length : +e.max + 1")
                        idle, times = [], []
                        for _ in range(repeats):
                            for v in (size - 1, 0, size // 2):
                                idle.append(page.evaluate(_JS_REDRAW_MS, [i, -1, 0]))
                                times.append(page.evaluate(_JS_REDRAW_MS, [i, j, v]))
                        rows.append((f"{docname}, figure {i + 1}, control {j}", statistics.median(times),
                                     max(times), statistics.median(idle)))
                context.close()
            version = browser.version
            browser.close()
    finally:
        server.close()
    load = " ".join(f"{x:.1f}" for x in os.getloadavg())
    print(f"Chromium {version} (headless), {platform.machine()}, {os.cpu_count()} cores, load {load}; "
          f"{repeats} x 3 moves per control.\n")
    print("| figure, control | median redraw (ms) | max redraw (ms) | idle 2 frames (ms) | "
          "median / idle | max under 100 ms |\n|---|---:|---:|---:|---:|---|")
    for name, median, worst, idle in rows:
        print(f"| {name} | {median:.1f} | {worst:.1f} | {idle:.1f} | {median / idle:.2f} | "
              f"{'yes' if worst < TARGET_MS else 'no'} |")


if __name__ == "__main__":
    if "--redraw" in sys.argv[1:]:
        redraw()
    else:
        main()
