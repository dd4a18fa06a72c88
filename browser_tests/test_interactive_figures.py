"""The interactive figures (lib.plotting.InteractiveFigure) as a reader uses them.

For every ``.interactive-figure`` in the built book, in headless Chromium with
every non-local request blocked: each control is moved with the keyboard alone
(arrow keys on a focused range input or select), and the picture's pixels and
the written value must change; each control has a label; a control set to
its first, last and middle value redraws to that value; nothing leaves the
book; the page with its figures weighs at most 5 MB; the picture stays on an
opaque background in dark mode.  The page weights are printed at the end.

Nothing here is timed: every wait is for a state (the value written, a frame
painted), so a slow or busy machine passes as a fast one does.  How fast a
control redraws (target: under 100 ms) is measured by
``benchmarks/bench_interactive.py --redraw`` (results in
``benchmarks/results_interactive.md``).
"""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeout

import book_browser as bb

MAX_PAGE_BYTES = 5 * 1024 * 1024
MEASURED: dict[str, str] = {}  # printed by conftest.pytest_terminal_summary


def _figures():
    """(docname, index) of every interactive figure in the built pages of _toc.yml."""
    root = bb.html_dir()
    found = []
    for docname in bb.book_docnames():
        page = root / f"{docname}.html"
        if page.is_file():
            count = len(re.findall(r'class="interactive-figure"', page.read_text()))
            found += [(docname, i) for i in range(count)]
    return found


FIGURES = _figures()


def test_the_book_has_interactive_figures():
    assert len(FIGURES) >= 5, f"expected at least five interactive figures in the built book, found {FIGURES}"


def _open(browser, server, docname, dark=False):
    context = browser.new_context(viewport=bb.VIEWPORT, color_scheme="dark" if dark else "light",
                                  device_scale_factor=1, service_workers="block")
    context.set_default_timeout(bb.TIMEOUT_MS)
    record = {"blocked": [], "bytes": 0, "errors": []}

    def route(r):
        if r.request.url.startswith(server.origin + "/"):
            r.continue_()
        else:
            record["blocked"].append(r.request.url)
            r.abort("internetdisconnected")

    def count(response):
        try:
            record["bytes"] += len(response.body())
        except Exception:  # noqa: BLE001 - a redirect or an aborted request has no body
            pass

    context.route("**/*", route)
    page = context.new_page()
    page.on("response", count)
    page.on("pageerror", lambda e: record["errors"].append(str(e)))
    page.goto(server.url(docname), wait_until="networkidle")
    return context, page, record


# One control set to ``value`` (an option's index for a select): fire the
# event, wait until the browser has painted the new frame (two animation frames
# later), and return what the figure shows then (the value text and the svg's
# markup) and the text its spec holds for the controls' values (row-major, as
# lib/interactive.js indexes it).  No clock is read.
_JS_REDRAW = r"""
async ([index, control, value]) => {
  const fig = document.querySelectorAll('.interactive-figure')[index];
  const input = fig.querySelectorAll('[data-control]')[control];
  await new Promise(r => requestAnimationFrame(() => r()));
  if (input.tagName === 'SELECT') input.selectedIndex = value; else input.value = String(value);
  input.dispatchEvent(new Event(input.tagName === 'SELECT' ? 'change' : 'input', {bubbles: true}));
  await new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)));
  const spec = JSON.parse(fig.querySelector("script[type='application/json']").textContent);
  let k = 0;
  fig.querySelectorAll('[data-control]').forEach((e, j) => { k = k * spec.controls[j].size + (+e.value); });
  return {text: fig.querySelector('output').textContent, expected: spec.text[k],
          svg: fig.querySelector('svg').innerHTML};
}
"""


@pytest.mark.parametrize("page,index", FIGURES, ids=[f"{bb.screenshot_stem(d)}-{i}" for d, i in FIGURES])
def test_interactive_figure(browser, server, page, index):
    docname = page
    context, page, record = _open(browser, server, docname)
    problems = []
    try:
        fig = page.locator(".interactive-figure").nth(index)
        fig.scroll_into_view_if_needed()
        page.wait_for_function("(i) => document.querySelectorAll('.interactive-figure')[i].hasAttribute('data-ready')",
                               arg=index)
        where = f"{docname}, interactive figure {index + 1}"
        if not (fig.get_attribute("aria-label") or "").strip():
            problems.append(f"{where}: no text alternative (aria-label)")
        if fig.locator("svg[role=img][aria-label]").count() != 1:
            problems.append(f"{where}: the picture is not one labelled svg role=img")
        if not page.evaluate("(i) => !!document.querySelectorAll('.interactive-figure')[i].closest('figure')"
                             " && !!document.querySelectorAll('.interactive-figure')[i].closest('figure')"
                             ".querySelector('figcaption')", index):
            problems.append(f"{where}: not inside a numbered figure with a caption")
        controls = fig.locator("[data-control]")
        if controls.count() == 0:
            problems.append(f"{where}: no control")
        output = fig.locator("output")
        picture = fig.locator("svg")
        for j in range(controls.count()):
            control = controls.nth(j)
            tag = control.evaluate("e => e.tagName.toLowerCase() + (e.type ? ':' + e.type : '')")
            if tag not in ("input:range", "select:select-one", "button:button"):
                problems.append(f"{where}: control {j} is a {tag}, not a native range input, select or button")
            cid = control.get_attribute("id")
            if not cid or fig.locator(f"label[for='{cid}']").count() != 1:
                problems.append(f"{where}: control {j} has no <label for=...>")
            before_text, before_pixels = output.inner_text(), picture.screenshot()
            at_end = control.evaluate(
                "e => e.tagName === 'SELECT' ? e.selectedIndex === e.options.length - 1 : +e.value === +e.max")
            control.focus()
            page.keyboard.press(("ArrowLeft" if at_end else "ArrowRight") if tag == "input:range"
                                else ("ArrowUp" if at_end else "ArrowDown"))
            try:  # a state, not a delay: however long the redraw takes on this machine
                page.wait_for_function("([i, t]) => document.querySelectorAll('.interactive-figure')[i]"
                                       ".querySelector('output').innerText !== t", arg=[index, before_text])
            except PlaywrightTimeout:
                pass  # reported below: the value text did not change
            after_text, after_pixels = output.inner_text(), picture.screenshot()
            if after_text == before_text:
                problems.append(f"{where}: the value text did not change when control {j} moved ({before_text!r})")
            if after_pixels == before_pixels:
                problems.append(f"{where}: the picture did not change when control {j} moved")
            if tag == "button:button":
                continue  # a button has no values to set
            size = control.evaluate("e => e.tagName === 'SELECT' ? e.options.length : +e.max + 1")
            # Set to its last, first and middle value, the figure writes the text its spec holds for
            # each, and set back to a value it draws what it drew there (a function of the state).
            shown = {v: page.evaluate(_JS_REDRAW, [index, j, v]) for v in (size - 1, 0, size // 2)}
            again = page.evaluate(_JS_REDRAW, [index, j, size - 1])
            for v, state in shown.items():
                if state["text"] != state["expected"]:
                    problems.append(f"{where}: control {j} set to {v} writes {state['text']!r}, "
                                    f"not {state['expected']!r}")
            if again != shown[size - 1]:
                problems.append(f"{where}: control {j} set back to {size - 1} does not draw what it drew before")
        if record["blocked"]:
            problems.append(f"{where}: requests left the book: {record['blocked'][:5]}")
        if record["errors"]:
            problems.append(f"{where}: JavaScript errors: {record['errors'][:3]}")
        MEASURED[f"{docname} page weight"] = f"{record['bytes'] / 2**20:.2f} MiB"
        if record["bytes"] > MAX_PAGE_BYTES:
            problems.append(f"{docname}: the page weighs {record['bytes'] / 2**20:.1f} MiB (limit 5 MiB)")
    finally:
        context.close()
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("page,index", FIGURES, ids=[f"{bb.screenshot_stem(d)}-{i}" for d, i in FIGURES])
def test_interactive_figure_is_readable_in_dark_mode(browser, server, page, index):
    docname = page
    context, page, _ = _open(browser, server, docname, dark=True)
    try:
        page.evaluate("() => { document.documentElement.dataset.theme = 'dark'; }")
        colours = page.evaluate(r"""(i) => {
            const fig = document.querySelectorAll('.interactive-figure')[i];
            const svg = fig.querySelector('svg'), out = fig.querySelector('output');
            return {svg: getComputedStyle(svg).backgroundColor, text: getComputedStyle(out).color,
                    page: getComputedStyle(document.body).backgroundColor};
        }""", index)
    finally:
        context.close()
    assert colours["svg"] in ("rgb(255, 255, 255)", "rgba(255, 255, 255, 1)"), (
        f"{docname}: the picture has no opaque white background in dark mode ({colours['svg']})")
    assert colours["text"] != colours["page"], f"{docname}: the value text is invisible in dark mode ({colours})"
