"""Tests for lib.plotting's interactive figures (the data side; browser_tests/ drive them).

What they store must be deterministic (nbval compares the HTML), self-contained
(no URL the browser would fetch), and faithful: the ellipses are the ones of
chapter 4's geometry, the point colours the responsibility blend of
``plot_mixture``, and there is one value text per frame.
"""

import base64
import json
import re

import matplotlib

matplotlib.use("Agg")

import numpy as np  # noqa: E402
import pytest  # noqa: E402

from lib import mixture, plotting  # noqa: E402


def _spec(fig):
    html = fig.to_html()
    data = re.search(r'<script type="application/json">(.*?)</script>', html, re.S).group(1)
    return json.loads(data.replace("<\\/", "</"))


def _em_runs(X, n_runs=2, steps=3):
    runs = []
    for seed in range(n_runs):
        rng = np.random.default_rng(seed)
        w, m, c = np.full(2, 0.5), X[rng.choice(len(X), 2, replace=False)], np.array([np.eye(2)] * 2)
        run = {k: [] for k in ("resp", "means", "covariances", "log_likelihood", "bound")}
        for _ in range(steps):
            resp, _ = mixture.e_step(X, w, m, c)
            for key, value in zip(run, (resp, m, c, mixture.log_likelihood(X, w, m, c),
                                        mixture.lower_bound(X, resp, w, m, c))):
                run[key].append(value)
            out = mixture.m_step(X, resp)
            w, m, c = out[:3]
        runs.append(run)
    return runs


@pytest.fixture
def data():
    rng = np.random.default_rng(0)
    return np.vstack([rng.normal(0, 1, (30, 2)), rng.normal(4, 1, (30, 2))])


def test_mixture_fit_is_deterministic_and_self_contained(data):
    runs = _em_runs(data)
    a = plotting.interactive_mixture_fit(data, runs, alt="EM", run_names=["a", "b"]).to_html()
    b = plotting.interactive_mixture_fit(data, _em_runs(data), alt="EM", run_names=["a", "b"]).to_html()
    assert a == b
    assert 'class="interactive-figure"' in a and 'aria-label="EM"' in a
    assert re.search(r'<input type="range"[^>]*data-control', a) and "<select" in a
    assert len(re.findall(r"<label for=", a)) == 2
    # Nothing to fetch: no src/href attribute and no URL but the SVG namespace.
    assert not re.search(r"\b(src|href)=", a)
    assert set(re.findall(r"https?://[^\s\"']+", a)) <= {"http://www.w3.org/2000/svg"}


def test_mixture_fit_frames_colours_and_ellipses(data):
    runs = _em_runs(data, n_runs=2, steps=3)
    fig = plotting.interactive_mixture_fit(data, runs, alt="EM")
    spec = _spec(fig)
    assert [c["size"] for c in spec["controls"]] == [2, 3]
    assert len(spec["text"]) == 6
    assert spec["text"][4].startswith("start 2, state 1") and "ln p = " in spec["text"][4]
    scatter, ellipses = spec["panels"][0]["layers"]
    assert len(scatter["colors"]) == 6 and all(len(c) == 6 * len(data) for c in scatter["colors"])
    # colour of point 0 in run 1, state 2: the responsibility blend of the palette colours
    rgb = np.array([matplotlib.colors.to_rgb(c) for c in plotting.PALETTE[:2]])
    want = np.rint(np.asarray(runs[1]["resp"][2])[0] @ rgb * 255).astype(int)
    got = scatter["colors"][5][:6]
    assert [int(got[i:i + 2], 16) for i in (0, 2, 4)] == want.tolist()
    # ellipse of component 0 at radius 1: points c + A (cos t, sin t) satisfy the Mahalanobis equation
    cx, cy, a11, a12, a21, a22 = ellipses["frames"][5][0][:6]
    t = np.linspace(0, 2 * np.pi, 7)
    pts = np.column_stack([cx + a11 * np.cos(t) + a12 * np.sin(t), cy + a21 * np.cos(t) + a22 * np.sin(t)])
    mean, cov = runs[1]["means"][2][0], runs[1]["covariances"][2][0]
    d = pts - mean
    maha = np.einsum("ij,jk,ik->i", d, np.linalg.inv(cov), d)
    assert np.allclose(maha, 1.0, atol=1e-3)


def test_still_frame_is_a_png_for_the_pdf(data):
    fig = plotting.interactive_mixture_fit(data, _em_runs(data, 1, 2), alt="EM")
    bundle = fig._repr_mimebundle_()
    assert set(bundle) == {"text/html", "image/png", "text/plain"}
    assert base64.b64decode(bundle["image/png"])[:8] == b"\x89PNG\r\n\x1a\n"
    assert bundle["text/plain"] == "<interactive figure: EM>"


def test_elbo_figure_splits_the_evidence():
    log_joint = np.log([0.2, 0.5, 0.1])
    log_p = np.log(0.8)
    ts = np.linspace(0.1, 0.9, 5)
    q = np.column_stack([ts, 1 - ts, np.zeros_like(ts)]) * 0.98 + 0.02 / 3
    elbo = (q * (log_joint - np.log(q))).sum(axis=1)
    kl = log_p - elbo
    fig = plotting.interactive_elbo(ts, log_p, elbo, kl, np.exp(log_joint - log_p), q, alt="ELBO",
                                    param_label="t")
    spec = _spec(fig)
    assert len(spec["text"]) == 5
    assert spec["text"][0] == (f"t = {ts[0]:.2f}: ELBO = {elbo[0]:.3f}, KL = {kl[0]:.3f}, "
                               f"ELBO + KL = {log_p:.3f} = ln p(x)")
    gap_bar = spec["panels"][0]["layers"][1]["frames"][2][0][0]  # the KL as the gap below ln p
    assert gap_bar[1] == pytest.approx(elbo[2], abs=1e-5) and gap_bar[3] == pytest.approx(log_p, abs=1e-5)
    kl_bar = spec["panels"][1]["layers"][1]["frames"][2][0][0]  # the KL from 0 in the middle panel
    assert kl_bar[1] == 0.0 and kl_bar[3] == pytest.approx(kl[2], abs=1e-5)
    # both panels have the same vertical scale, so the two bars have the same length
    (lo, hi), (klo, khi) = spec["panels"][0]["ylim"], spec["panels"][1]["ylim"]
    assert hi - lo == pytest.approx(khi - klo, rel=1e-5)
    assert spec["panels"][2]["xticks"] == [[0, "0"], [1, "1"], [2, "2"]]


def test_still_figure_draws_the_panels_ticks():
    """The PDF still shows the tick labels the web figure shows, not matplotlib's own."""
    import matplotlib.pyplot as plt

    q = np.array([[0.2, 0.3, 0.5], [0.1, 0.2, 0.7]])
    post = np.array([0.2, 0.3, 0.5])
    elbo = np.array([-3.0, -2.5])
    fig = plotting.interactive_elbo([0.5, 1.0], -2.4, elbo, -2.4 - elbo, post, q, alt="ELBO", param_label="s",
                                    latent_labels=["component 1", "component 2", "component 3"], still=1)
    still = fig.still_figure()
    right = still.axes[2]
    assert [t.get_text() for t in right.get_xticklabels()] == ["component 1", "component 2", "component 3"]
    assert list(right.get_xticks()) == [0, 1, 2]
    assert right.get_xlim() == pytest.approx((-0.6, 2.6))
    panel = fig.panels[0]
    assert list(still.axes[0].get_yticks()) == pytest.approx([t[0] for t in panel["yticks"]])
    plt.close(still)
    # a log axis spanning less than two decades gets ticks at powers of 2
    fig2 = plotting.interactive_elbo([0.25, 4.0], -2.4, elbo, -2.4 - elbo, post, q, alt="ELBO", xlog=True)
    assert [t[1] for t in fig2.panels[0]["xticks"]] == ["1/4", "1/2", "1", "2", "4"]
    # a panel with an empty tick list draws no ticks
    fig.panels[0]["xticks"] = []
    still = fig.still_figure()
    assert len(still.axes[0].get_xticks()) == 0
    plt.close(still)


def test_decision_regions_hide_points_outside_the_training_set():
    rng = np.random.default_rng(0)
    X, y = rng.normal(size=(10, 2)), np.array([0, 1] * 5)
    regions = rng.integers(0, 2, size=(2, 2, 4, 5))
    order = np.arange(10)[::-1]
    fig = plotting.interactive_decision_regions(regions, (-2, 2, -2, 2), X, y, classifier_names=["A", "B"],
                                                train_sizes=[3, 10], train_order=order, alt="regions",
                                                text=["a3", "a10", "b3", "b10"])
    spec = _spec(fig)
    raster, scatter = spec["panels"][0]["layers"][:2]
    assert raster["frames"][3] == "".join(str(v) for v in regions[1, 1].ravel())
    small = scatter["colors"][0]
    hidden = [i for i in range(10) if small[6 * i: 6 * i + 6] == "zzzzzz"]
    assert hidden == list(range(7))  # only the first 3 of order (9, 8, 7) are shown
    assert fig.text == ["a3", "a10", "b3", "b10"]


def test_log_likelihood_and_curves_figures():
    theta = np.linspace(0.05, 0.95, 19)
    curves = np.array([0.3 * np.log(theta) + 0.7 * np.log(1 - theta) - k for k in range(3)])
    fig = plotting.interactive_log_likelihood(theta, curves, [10, 100, 1000], [0.31, 0.29, 0.3], 0.3,
                                              alt="ll", param_label="p")
    assert fig.text[1] == "n = 100: MLE p = 0.290 (truth 0.300)"
    x = np.array([10.0, 100.0, 1000.0])
    fig = plotting.interactive_curves(x, [("a", [("one", x ** -0.5)]), ("b", [("two", x ** -0.3)])], alt="c",
                                      set_label="family", xlabel="n", ylabel="error", text=["A", "B"], xlog=True)
    spec = _spec(fig)
    assert spec["controls"][0]["options"] == ["a", "b"] and spec["panels"][0]["xlog"] is True


def test_bad_input_is_explained(data):
    runs = _em_runs(data, 2, 2)
    runs[1]["log_likelihood"] = runs[1]["log_likelihood"][:1]
    with pytest.raises(ValueError, match="same number of states"):
        plotting.interactive_mixture_fit(data, runs, alt="EM")
    with pytest.raises(ValueError, match="shape"):
        plotting.interactive_mixture_fit(data[:, :1], runs, alt="EM")
    with pytest.raises(ValueError, match="one per frame"):
        plotting.interactive_log_likelihood(np.arange(3.0), np.zeros((2, 3)), [1, 2], [0, 1], 0, alt="x",
                                            text=["only one"])
    with pytest.raises(ValueError, match="entries"):
        plotting.InteractiveFigure([], [{"kind": "range", "label": "t", "size": 3}], ["a"], alt="x")


def test_still_frame_draws_without_warnings(data):
    import warnings

    with matplotlib.rc_context():
        plotting.use_book_style()  # constrained layout on, as in the chapters
        fig = plotting.interactive_mixture_fit(data, _em_runs(data, 1, 2), alt="EM")
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            fig._repr_mimebundle_()


def test_mixture_fit_draws_the_gap_after_m_steps_on_a_log_scale(data):
    # half-steps: start, then (E-step, M-step) pairs; the gap ln p - bound is 0 after an E-step
    w, m, c = np.full(2, 0.5), data[[0, 1]], np.array([np.eye(2)] * 2)
    run = {"resp": [np.full((len(data), 2), 0.5)], "means": [m], "covariances": [c],
           "log_likelihood": [mixture.log_likelihood(data, w, m, c)], "bound": [np.nan]}
    for _ in range(3):
        resp, _ = mixture.e_step(data, w, m, c)
        for half in "EM":
            if half == "M":
                w, m, c = mixture.m_step(data, resp)[:3]
            for key, value in zip(run, (resp, m, c, mixture.log_likelihood(data, w, m, c),
                                        mixture.lower_bound(data, resp, w, m, c))):
                run[key].append(value)
    fig = plotting.interactive_mixture_fit(data, [run], alt="EM")
    spec = _spec(fig)
    gap_panel = spec["panels"][2]
    assert gap_panel["ylog"] is True
    trace = np.array(gap_panel["layers"][0]["frames"][0][0][0]).reshape(-1, 2)
    want = (np.array(run["log_likelihood"]) - np.array(run["bound"]))[2::2]  # after each M-step
    assert trace[:, 0].tolist() == [2, 4, 6]
    assert np.allclose(trace[:, 1], want, rtol=1e-5)
    assert np.all(trace[:, 1] > 0) and gap_panel["ylim"][0] <= trace[:, 1].min()
    assert "gap = " in spec["text"][2] and "gap" not in spec["text"][1]
    assert "ℒ = " in spec["text"][1]
