"""Accessibility of the HTML book: WCAG 2.1 AA (guide/maintainer/accessibility.md, "Accessibility").

* Every page a reader can reach, in light and in dark mode, has no violation of
  axe-core's WCAG 2.0 and 2.1 level A and AA rules: the pages of ``_toc.yml`` and
  the pages Sphinx and its extensions generate (the general index, the search page
  with results, sphinx-proof's proof index; ``book_browser.reachable_pages``).
  Two axe-core releases audit each page: the one the PyPI package
  ``axe-playwright-python`` bundles and the newest on the npm registry
  (``browser_tests/package.json``, installed by ``tools/install_axe.sh``), so a
  newer rule set cannot find what the audit missed.  The audits run inside the one
  visit per page of ``book_browser.inspect_page``, with every solution unfolded.
* Every formula carries MathJax's assistive MathML, offline.
* The keyboard alone reaches and works every control, with a visible focus:
  the sidebar's section toggles, a folded solution, the launch and download
  menus, an interactive figure (Tab, Enter, Space, arrow keys).
* Every interactive figure tells a screen reader its current value: a live
  region, and each slider's ``aria-valuetext`` (set by ``_static/a11y.js``).
* With styles off a page reads in a sensible order: the skip link first, then
  the article, whose headings and blocks come in the order they are shown.
"""

from __future__ import annotations

import json

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeout

import book_browser as bb

# A chapter page with a sidebar section list, folded solutions, launch and
# download menus and an interactive figure.
KEYBOARD_PAGE = "chapters/02_maximum_likelihood"
MAX_TABS = 1500


def _assert_none(problems, show=40):
    if problems:
        more = f"\n  ... and {len(problems) - show} more" if len(problems) > show else ""
        pytest.fail(f"{len(problems)} problem(s):\n  " + "\n  ".join(problems[:show]) + more, pytrace=False)


# --------------------------------------------------------------------------- axe-core, every page


GENERATED_PAGES = bb.generated_pages() if (bb.html_dir() / "index.html").is_file() else []
# What the build must generate: a change that drops one from the audit fails here.
EXPECTED_GENERATED = {"genindex", "search", "prf-prf"}


@pytest.mark.parametrize("engine", bb.AXE_ENGINES)
@pytest.mark.parametrize("mode", ["light", "dark"])
def test_no_wcag_a_or_aa_violation(visit, docname, mode, engine):
    """axe-core: no violation of a WCAG 2.0/2.1 A or AA rule (rule [impact] at selector: what fails)."""
    _assert_none(bb.problems_accessibility(visit(docname), mode, engine))


@pytest.mark.parametrize("engine", bb.AXE_ENGINES)
@pytest.mark.parametrize("mode", ["light", "dark"])
@pytest.mark.parametrize("generated", GENERATED_PAGES)
def test_generated_page_has_no_wcag_a_or_aa_violation(visit, generated, mode, engine):
    """The same audit on each page that Sphinx and its extensions write (indices, search, proof index)."""
    _assert_none(bb.problems_accessibility(visit(generated), mode, engine))


def test_the_audit_reaches_the_generated_pages(html_root):
    """The generated pages are found (linked or written at the build's top level), the known ones among them."""
    found = set(bb.generated_pages(html_root))
    assert EXPECTED_GENERATED <= found, f"not found among the generated pages: {EXPECTED_GENERATED - found}"


def test_the_audit_covers_the_book(visit):
    """The audit ran with the rules it claims: two real axe-core releases, the npm one the newer (the one
    package.json pins), with WCAG 2.1 AA rules, on a page with math."""
    report = visit(KEYBOARD_PAGE)
    _assert_none(bb.problems_crash(report))
    for mode in ("light", "dark"):
        for engine in bb.AXE_ENGINES:
            assert isinstance(report.axe.get((mode, engine)), list), (mode, engine, report.axe.get((mode, engine)))
    pinned = json.loads((bb.repo_dir() / "browser_tests" / "package.json").read_text())["dependencies"]["axe-core"]
    versions = report.axe_versions
    assert versions["npm"] == pinned, versions

    def key(v):
        return tuple(int(x) for x in v.split("."))

    assert key(versions["npm"]) > key(versions["bundled"]), versions
    assert report.dom["containers"] > 0 and report.dom["assistiveMml"] == report.dom["containers"]


# --------------------------------------------------------------------------- keyboard


def _wait_for(page, predicate):
    """Wait until ``predicate`` (JavaScript) holds, or ``bb.TIMEOUT_MS``: a state, never a fixed delay, so a
    slow or busy machine passes as a fast one does.  A timeout is not raised here: the check that reads the
    state next reports what it found."""
    try:
        page.wait_for_function(predicate, timeout=bb.TIMEOUT_MS)
    except PlaywrightTimeout:
        pass


def _open(browser, server, docname, dark=False):
    context = browser.new_context(viewport=bb.VIEWPORT, color_scheme="dark" if dark else "light",
                                  device_scale_factor=1, service_workers="block", reduced_motion="reduce")
    context.set_default_timeout(bb.TIMEOUT_MS)
    context.route("**/*", lambda r: r.continue_() if r.request.url.startswith(server.origin + "/")
                  else r.abort("internetdisconnected"))
    page = context.new_page()
    page.goto(server.url(docname), wait_until="load")
    page.evaluate("() => window.MathJax && MathJax.startup && MathJax.startup.promise")
    return context, page


# What has the focus: a description, and the focus ring as drawn (outline, box-shadow).
_JS_FOCUS = r"""
(mark) => {
  const el = document.activeElement;
  if (!el || el === document.body) return null;
  if (mark) { document.querySelectorAll('[data-kb-focus]').forEach(e => e.removeAttribute('data-kb-focus'));
              el.setAttribute('data-kb-focus', mark); }
  const ring = (e) => {
    const s = getComputedStyle(e);
    const outline = s.outlineStyle !== 'none' && parseFloat(s.outlineWidth) > 0 ? `${s.outlineStyle} ${s.outlineWidth} ${s.outlineColor}` : '';
    return {outline, shadow: s.boxShadow === 'none' ? '' : s.boxShadow};
  };
  // The theme may draw a control's ring on a child (the sidebar chevron).
  const kids = [...el.querySelectorAll('*')].slice(0, 5).map(ring);
  return {
    tag: el.tagName.toLowerCase(), cls: el.className && el.className.baseVal === undefined ? el.className : '',
    id: el.id, text: (el.getAttribute('aria-label') || el.textContent || '').trim().replace(/\s+/g, ' ').slice(0, 60),
    focusVisible: el.matches(':focus-visible'), ring: ring(el), kids,
    visible: el.checkVisibility() && el.getBoundingClientRect().width > 0,
  };
}
"""

_JS_RING_UNFOCUSED = r"""
(mark) => {
  const el = document.querySelector(`[data-kb-focus="${mark}"]`);
  const ring = (e) => {
    const s = getComputedStyle(e);
    const outline = s.outlineStyle !== 'none' && parseFloat(s.outlineWidth) > 0 ? `${s.outlineStyle} ${s.outlineWidth} ${s.outlineColor}` : '';
    return {outline, shadow: s.boxShadow === 'none' ? '' : s.boxShadow};
  };
  el.blur();
  return {ring: ring(el), kids: [...el.querySelectorAll('*')].slice(0, 5).map(ring)};
}
"""


def _tab_to(page, matches, what, shift=False):
    """Press Tab until the focused element satisfies ``matches`` (a JS predicate on it); its focus info."""
    for _ in range(MAX_TABS):
        page.keyboard.press("Shift+Tab" if shift else "Tab")
        if page.evaluate(f"() => {{ const el = document.activeElement; return !!el && ({matches})(el); }}"):
            return page.evaluate(_JS_FOCUS, what)
    pytest.fail(f"{what}: not reached with {MAX_TABS} presses of Tab", pytrace=False)


def _focus_ring_problems(page, info, what):
    """The focused control shows a focus ring (outline or box-shadow) that it does not show unfocused."""
    problems = []
    if not info["visible"]:
        problems.append(f"{what}: has the keyboard focus but is not visible")
    if not info["focusVisible"]:
        problems.append(f"{what}: focused by Tab but does not match :focus-visible")
    unfocused = page.evaluate(_JS_RING_UNFOCUSED, what)
    focused_rings = [info["ring"]] + info["kids"]
    if focused_rings == [unfocused["ring"]] + unfocused["kids"] or not any(r["outline"] or r["shadow"] for r in focused_rings):
        problems.append(f"{what}: no visible focus indicator (outline/box-shadow focused {info['ring']}, "
                        f"unfocused {unfocused['ring']})")
    page.focus(f'[data-kb-focus="{what}"]')  # back where the keyboard left it
    return problems


def test_keyboard_reaches_and_works_the_sidebar(browser, server):
    """Tab reaches a sidebar section toggle; Enter and Space fold and unfold it; its links follow in Tab order."""
    context, page = _open(browser, server, "chapters/intro")
    problems = []
    try:
        first = _tab_to(page, "el => true", "first tab stop")
        if "skip" not in (first["cls"] + " " + first["text"]).lower():
            problems.append(f"the first Tab stop is {first}, not the 'skip to main content' link")
        info = _tab_to(page, "el => el.matches('.bd-sidebar-primary details > summary')", "sidebar toggle")
        problems += _focus_ring_problems(page, info, "sidebar toggle")
        if not info["text"]:
            problems.append("the sidebar toggle has no accessible name")
        is_open = "() => document.activeElement.parentElement.open"
        before = page.evaluate(is_open)
        page.keyboard.press("Enter")
        after_enter = page.evaluate(is_open)
        page.keyboard.press("Space")
        after_space = page.evaluate(is_open)
        if after_enter == before or after_space != before:
            problems.append(f"Enter/Space do not toggle the sidebar section (open: {before} -> {after_enter} -> {after_space})")
        if not before:
            page.keyboard.press("Enter")  # open it, then its first link must be the next stop
        page.keyboard.press("Tab")
        nxt = page.evaluate("() => !!document.activeElement.closest('details[open] > ul') && document.activeElement.tagName")
        if nxt != "A":
            problems.append("Tab after an open sidebar toggle does not reach the section's first link")
        href = page.evaluate("() => document.activeElement.href")
        try:
            with page.expect_navigation(timeout=bb.TIMEOUT_MS):
                page.keyboard.press("Enter")
        except Exception:  # noqa: BLE001 - reported below with the page reached
            pass
        if page.url.split("#")[0] != href.split("#")[0]:
            problems.append(f"Enter on the sidebar link {href} went to {page.url}")
    finally:
        context.close()
    _assert_none(problems)


def test_keyboard_reaches_and_works_a_folded_solution(browser, server):
    """Tab reaches a solution's toggle; Enter unfolds it, Space folds it again; aria-expanded follows."""
    context, page = _open(browser, server, KEYBOARD_PAGE)
    problems = []
    try:
        info = _tab_to(page, "el => el.matches('div.solution button.toggle-button')", "solution toggle")
        problems += _focus_ring_problems(page, info, "solution toggle")
        state = """() => { const b = document.activeElement, s = b.closest('div.solution');
            const body = [...s.children].filter(c => !c.classList.contains('admonition-title'));
            return {expanded: b.getAttribute('aria-expanded'),
                    shown: body.some(c => c.checkVisibility() && c.getBoundingClientRect().height > 0)}; }"""
        folded = page.evaluate(state)
        page.keyboard.press("Enter")
        _wait_for(page, f"() => ({state})().shown")  # the theme's fold transition, however long it takes
        shown = page.evaluate(state)
        page.keyboard.press("Space")
        _wait_for(page, f"() => !({state})().shown")
        refolded = page.evaluate(state)
        if folded["shown"] or not shown["shown"] or refolded["shown"]:
            problems.append(f"Enter/Space do not unfold and fold the solution: {folded} -> {shown} -> {refolded}")
        if shown["expanded"] != "true" or folded["expanded"] != "false":
            problems.append(f"aria-expanded does not follow the solution: {folded} -> {shown}")
    finally:
        context.close()
    _assert_none(problems)


@pytest.mark.parametrize("menu", ["launch", "download"])
def test_keyboard_opens_the_launch_and_download_menus(browser, server, menu):
    """Tab reaches the rocket (launch) and download buttons; Enter opens the menu, the arrow keys walk its
    entries, Escape closes it and gives the focus back."""
    context, page = _open(browser, server, KEYBOARD_PAGE)
    problems = []
    try:
        what = f"{menu} button"
        info = _tab_to(page, f"el => el.matches('.dropdown-{menu}-buttons > button.dropdown-toggle')", what)
        problems += _focus_ring_problems(page, info, what)
        if not info["text"]:
            problems.append(f"the {what} has no accessible name")
        page.keyboard.press("Enter")
        _wait_for(page, f"() => [...document.querySelectorAll('.dropdown-{menu}-buttons .dropdown-item')]"
                        ".some(e => e.checkVisibility())")
        page.keyboard.press("ArrowDown")
        entry = page.evaluate(_JS_FOCUS, f"{menu} entry")
        if not entry or "dropdown-item" not in entry["cls"]:
            problems.append(f"Enter then ArrowDown on the {what} does not focus a menu entry (focus: {entry})")
        else:
            problems += _focus_ring_problems(page, entry, f"{menu} entry")
            if not entry["text"]:
                problems.append(f"a {menu} menu entry has no accessible name")
        page.keyboard.press("Escape")
        _wait_for(page, f"() => document.activeElement.matches('.dropdown-{menu}-buttons > button.dropdown-toggle')")
        back = page.evaluate("(sel) => document.activeElement.matches(sel)",
                             f".dropdown-{menu}-buttons > button.dropdown-toggle")
        if not back:
            problems.append(f"Escape does not give the focus back to the {what}")
    finally:
        context.close()
    _assert_none(problems)


def test_keyboard_works_an_interactive_figure(browser, server):
    """Tab reaches the figure's slider; arrow keys, Home and End move it, redraw and rewrite the value."""
    context, page = _open(browser, server, KEYBOARD_PAGE)
    problems = []
    try:
        info = _tab_to(page, "el => el.matches('.interactive-figure input[type=range]')", "figure slider")
        problems += _focus_ring_problems(page, info, "figure slider")
        read = """() => { const i = document.activeElement, f = i.closest('.interactive-figure');
                         return {value: i.value, max: i.max, text: f.querySelector('output').textContent,
                                 frame: f.dataset.frame}; }"""
        start = page.evaluate(read)
        seen = [start]
        for key in ("Home", "ArrowRight", "End", "ArrowLeft"):
            page.keyboard.press(key)
            seen.append(page.evaluate(read))
        values = [s["value"] for s in seen[1:]]
        if values != ["0", "1", start["max"], str(int(start["max"]) - 1)]:
            problems.append(f"Home/ArrowRight/End/ArrowLeft move the slider to {values}")
        if len({s["text"] for s in seen[1:]}) != 4 or len({s["frame"] for s in seen[1:]}) != 4:
            problems.append(f"the figure's value text or frame did not follow the slider: {seen}")
    finally:
        context.close()
    _assert_none(problems)


# --------------------------------------------------------------------------- screen readers: figure values


def _figure_pages():
    root = bb.html_dir()
    return [d for d in bb.book_docnames()
            if (root / f"{d}.html").is_file() and 'class="interactive-figure"' in (root / f"{d}.html").read_text()]


FIGURE_PAGES = _figure_pages()

# Each control of figure ``i`` moved by the keyboard: what a screen reader is given.
_JS_ANNOUNCED = r"""
(i) => {
  const fig = document.querySelectorAll('.interactive-figure')[i];
  const out = fig.querySelector('output');
  const live = [...fig.querySelectorAll('[aria-live], [role=status], [role=log]')]
    .filter(e => (e.getAttribute('aria-live') || 'polite') !== 'off');
  return {
    liveText: live.map(e => e.textContent.replace(/\s+/g, ' ').trim()),
    outputText: out ? out.textContent.replace(/\s+/g, ' ').trim() : null,
    controls: [...fig.querySelectorAll('[data-control]')].map(c => ({
      tag: c.tagName.toLowerCase(), type: c.type, valuetext: c.getAttribute('aria-valuetext'),
      hidden: !!c.closest('[aria-hidden=true]'),
    })),
  };
}
"""


def test_the_book_has_figures_to_announce():
    assert FIGURE_PAGES, "no page of the built book has an interactive figure"


@pytest.mark.parametrize("page_name", FIGURE_PAGES, ids=[bb.screenshot_stem(d) for d in FIGURE_PAGES])
def test_interactive_figures_announce_their_value(browser, server, page_name):
    """After each keyboard move, the figure's new value is in a live region (announced by screen readers),
    and every slider's aria-valuetext is that same text (not its index, never a stale text)."""
    docname = page_name
    context, page = _open(browser, server, docname)
    problems = []
    try:
        page.wait_for_function("() => [...document.querySelectorAll('.interactive-figure')].every(f => f.hasAttribute('data-ready'))")
        for i in range(page.locator(".interactive-figure").count()):
            fig = page.locator(".interactive-figure").nth(i)
            where = f"{docname}, interactive figure {i + 1}"
            controls = fig.locator("[data-control]")
            for j in range(controls.count()):
                control = controls.nth(j)
                control.focus()
                kind = control.evaluate("e => e.tagName === 'SELECT' ? 'select' : e.type")
                at_end = control.evaluate(
                    "e => e.tagName === 'SELECT' ? e.selectedIndex === e.options.length - 1 : +e.value === +e.max")
                page.keyboard.press(("ArrowLeft" if at_end else "ArrowRight") if kind == "range"
                                    else ("ArrowUp" if at_end else "ArrowDown"))
                got = page.evaluate(_JS_ANNOUNCED, i)
                if not got["outputText"]:
                    problems.append(f"{where}: no value text after moving control {j}")
                    continue
                if got["outputText"] not in got["liveText"]:
                    problems.append(f"{where}: the value text {got['outputText']!r} is not in a live region "
                                    f"(aria-live or role=status): screen readers do not announce it")
                c = got["controls"][j]
                if c["hidden"]:
                    problems.append(f"{where}: control {j} is hidden from assistive technology")
                for k, other in enumerate(got["controls"]):
                    if other["type"] == "range" and other["valuetext"] != got["outputText"]:
                        problems.append(f"{where}: after control {j} moved, slider {k}'s aria-valuetext is "
                                        f"{other['valuetext']!r}, not the value shown ({got['outputText']!r})")
    finally:
        context.close()
    _assert_none(problems)


# --------------------------------------------------------------------------- reading order


def test_reading_order_without_styles(visit, docname):
    """With styles off the page reads: skip link, navigation, then the article, its title first, its blocks in
    the order shown on screen, its heading levels in sequence."""
    _assert_none(bb.problems_reading_order(visit(docname)))
