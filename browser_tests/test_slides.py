"""The lecture slides (guide/slides.md, "Slides") in headless Chromium, opened from disk with no network.

Run after ``make slides`` (``make test`` builds them before the browser tests).  Every deck in
``_build/slides`` is opened once from ``file://`` in one browser context (the session's Chromium,
which resolves no host name) and once more in reveal.js's print view (``?print-pdf``); the tests
read that visit's report:

* no request leaves the build folder, none fails, the console shows no error;
* the arrow keys move to the next slide and back;
* no slide overflows reveal.js's 1280x720 slide (each slide's scroll size, measured);
* the print view lays out one page per slide (a slide taller than a page would take two);
* axe-core (the npm release ``browser_tests/package.json`` pins) finds no WCAG 2.0/2.1 A or AA
  violation on the print view, where every slide is shown at once, nor on the presenting view;
* speaker notes are hidden on the slide, and S opens the speaker view (a window of its own) with them;
* every interactive figure works on its slide: a control moved by the keyboard changes it.
"""

from __future__ import annotations

import dataclasses
import functools

import pytest

import book_browser as bb

SLIDES = bb.html_dir().parent / "slides"
DECKS = sorted(p.stem for p in SLIDES.glob("[0-9][0-9]_*.html"))
W, H = 1280, 720

_JS_MEASURE = """async () => {
  const out = [];
  const slides = Reveal.getSlides();
  for (let i = 0; i < slides.length; i++) {
    Reveal.slide(i);
    await new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)));
    out.push({i, id: slides[i].id, h: slides[i].scrollHeight, w: slides[i].scrollWidth,
              notes: Reveal.getSlideNotes(slides[i]) || '',
              shown: [...slides[i].querySelectorAll('aside.notes')].some(a => a.offsetParent !== null)});
  }
  Reveal.slide(0);
  return out;
}"""


@dataclasses.dataclass
class DeckReport:
    outside: list = dataclasses.field(default_factory=list)  # requests that are not file:// or data:
    failed: list = dataclasses.field(default_factory=list)
    errors: list = dataclasses.field(default_factory=list)  # console errors, page errors
    moves: tuple = ()  # slide index: at start, after ArrowRight, after ArrowLeft
    slides: list = dataclasses.field(default_factory=list)  # _JS_MEASURE's rows
    total: int = 0
    print_pages: int = -1
    axe: list | dict = dataclasses.field(default_factory=list)  # print view, then the first slide
    auditing: bool = False  # axe re-reads the style sheets (blocked from file://): not the deck's requests


def audit(page, report):
    """The book's axe-core audit (book_browser's rules and npm release) of the page as it is now; unlike
    ``bb.run_axe`` it waits for no animation (reveal.js's control arrows bounce for a while)."""
    report.auditing = True
    try:
        page.evaluate(bb.axe_script("npm"))
        return bb._run_axe_rules(page)
    except FileNotFoundError as exc:
        return {"error": str(exc)}
    finally:
        page.wait_for_timeout(50)
        report.auditing = False


@pytest.fixture(scope="module")
def deck_context(browser):
    if not DECKS:
        pytest.fail(f"no decks in {SLIDES}: run `make slides` first")
    ctx = browser.new_context(viewport={"width": W, "height": H})
    yield ctx
    ctx.close()


@pytest.fixture(scope="module")
def inspect(deck_context):
    @functools.lru_cache(maxsize=None)
    def _inspect(stem):
        report = DeckReport()
        page = deck_context.new_page()
        page.on("request", lambda r: None if r.url.startswith(("file://", "data:", "blob:"))
                else report.outside.append(r.url))
        page.on("requestfailed", lambda r: None if report.auditing else report.failed.append(f"{r.url}: {r.failure}"))
        page.on("console", lambda m: report.errors.append(m.text) if m.type == "error" and not report.auditing
                else None)
        page.on("pageerror", lambda e: report.errors.append(str(e)))
        url = (SLIDES / f"{stem}.html").as_uri()
        try:
            page.goto(url, wait_until="load", timeout=bb.TIMEOUT_MS)
            page.wait_for_selector("body[data-ready]", state="attached", timeout=bb.TIMEOUT_MS)
            report.total = page.evaluate("() => Reveal.getTotalSlides()")
            at = [page.evaluate("() => Reveal.getIndices().h")]
            for key in ("ArrowRight", "ArrowLeft"):
                page.keyboard.press(key)
                page.wait_for_timeout(50)
                at.append(page.evaluate("() => Reveal.getIndices().h"))
            report.moves = tuple(at)
            report.slides = page.evaluate(_JS_MEASURE)
            page.goto(url + "?print-pdf", wait_until="load", timeout=bb.TIMEOUT_MS)
            page.wait_for_selector("body[data-ready]", state="attached", timeout=bb.TIMEOUT_MS)
            page.wait_for_selector(".reveal .pdf-page", state="attached", timeout=bb.TIMEOUT_MS)
            report.print_pages = page.evaluate("() => document.querySelectorAll('.reveal .pdf-page').length")
            report.axe = audit(page, report)
            page.goto(url, wait_until="load", timeout=bb.TIMEOUT_MS)
            page.wait_for_selector("body[data-ready]", state="attached", timeout=bb.TIMEOUT_MS)
            more = audit(page, report)
            report.axe = more if isinstance(more, dict) else report.axe + more
        finally:
            page.close()
        return report

    return _inspect


@pytest.mark.parametrize("stem", DECKS)
def test_deck_loads_offline_without_errors(inspect, stem):
    report = inspect(stem)
    assert report.outside == [], f"{stem}: requests outside the build folder: {report.outside[:5]}"
    assert report.failed == [], f"{stem}: failed requests: {report.failed[:5]}"
    assert report.errors == [], f"{stem}: console errors: {report.errors[:5]}"
    assert 10 <= report.total <= 30, f"{stem}: {report.total} slides"


@pytest.mark.parametrize("stem", DECKS)
def test_arrow_keys_move_through_the_deck(inspect, stem):
    assert inspect(stem).moves == (0, 1, 0), f"{stem}: slide index at start, after ->, after <-"


@pytest.mark.parametrize("stem", DECKS)
def test_no_slide_overflows(inspect, stem):
    report = inspect(stem)
    assert len(report.slides) == report.total
    over = [f"slide {s['i'] + 1} ({s['id']}): {s['w']}x{s['h']}" for s in report.slides
            if s["h"] > H + 1 or s["w"] > W + 1]
    assert over == [], f"{stem}: slides larger than {W}x{H}: {over}"


@pytest.mark.parametrize("stem", DECKS)
def test_print_view_renders_every_slide(inspect, stem):
    report = inspect(stem)
    assert report.print_pages == report.total, f"{stem}: {report.print_pages} print pages for {report.total} slides"


@pytest.mark.parametrize("stem", DECKS)
def test_no_wcag_a_or_aa_violation(inspect, stem):
    violations = inspect(stem).axe
    assert isinstance(violations, list), violations
    assert violations == [], f"{stem}: " + "; ".join(
        f"{v['id']} [{v['impact']}] at {n['target']}: {n['summary']}" for v in violations for n in v["nodes"][:3])


def test_speaker_notes_reach_the_speaker_view(inspect):
    """Chapter 4's deck has notes; reveal.js's notes plugin reads them and the slides do not show them."""
    rows = inspect("04_em_gaussian_mixtures").slides
    noted = [r for r in rows if r["notes"].strip()]
    assert len(noted) >= 3, rows
    assert not any(r["shown"] for r in rows)


INTERACTIVE = [s for s in DECKS if 'class="interactive-figure"' in (SLIDES / f"{s}.html").read_text(encoding="utf-8")]


def test_the_decks_have_interactive_figures():
    assert len(INTERACTIVE) >= 5, INTERACTIVE


@pytest.mark.parametrize("stem", INTERACTIVE)
def test_interactive_figure_works_in_the_deck(deck_context, stem):
    """On its slide, the figure draws itself and a control moved by the keyboard changes what it shows
    (reveal.js leaves the arrow keys to a focused control)."""
    page = deck_context.new_page()
    try:
        page.goto((SLIDES / f"{stem}.html").as_uri(), wait_until="load", timeout=bb.TIMEOUT_MS)
        page.wait_for_selector("body[data-ready]", state="attached", timeout=bb.TIMEOUT_MS)
        page.evaluate("""() => {
          const fig = document.querySelector('.interactive-figure');
          Reveal.slide(Reveal.getSlides().indexOf(fig.closest('.slides > section')));
        }""")
        page.wait_for_function("() => document.querySelector('.interactive-figure').hasAttribute('data-ready')",
                               timeout=bb.TIMEOUT_MS)
        at = page.evaluate("() => Reveal.getIndices().h")
        fig = page.locator(".interactive-figure").first
        control, output = fig.locator("[data-control]").first, fig.locator("output")
        before = output.inner_text()
        is_range = control.evaluate("e => e.type === 'range'")
        at_end = control.evaluate(
            "e => e.tagName === 'SELECT' ? e.selectedIndex === e.options.length - 1 : +e.value === +e.max")
        control.focus()
        page.keyboard.press(("ArrowLeft" if at_end else "ArrowRight") if is_range else ("ArrowUp" if at_end
                                                                                      else "ArrowDown"))
        page.wait_for_function("(t) => document.querySelector('.interactive-figure output').innerText !== t",
                               arg=before, timeout=bb.TIMEOUT_MS)
        assert page.evaluate("() => Reveal.getIndices().h") == at, f"{stem}: the arrow key left the slide"
    finally:
        page.close()


def test_speaker_view_shows_the_notes(deck_context):
    """S opens reveal.js's speaker view (a window of its own, from disk) with the current slide's notes."""
    page = deck_context.new_page()
    try:
        page.goto((SLIDES / "04_em_gaussian_mixtures.html").as_uri() + "#/slide-1", wait_until="load",
                  timeout=bb.TIMEOUT_MS)
        page.wait_for_selector("body[data-ready]", state="attached", timeout=bb.TIMEOUT_MS)
        want = " ".join(page.evaluate("() => Reveal.getCurrentSlide().querySelector('aside.notes').innerText").split())
        assert want.startswith("Start from the generative story"), want
        with deck_context.expect_page(timeout=bb.TIMEOUT_MS) as opened:
            page.keyboard.press("s")
        speaker = opened.value
        speaker.wait_for_function("(t) => (document.querySelector('.speaker-controls-notes') || {}).innerText"
                                  " && document.querySelector('.speaker-controls-notes').innerText.includes(t)",
                                  arg=want[:40], timeout=bb.TIMEOUT_MS)
        speaker.close()
    finally:
        page.close()
