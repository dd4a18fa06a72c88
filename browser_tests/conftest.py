"""Fixtures for the browser tests: a local server, headless Chromium, one visit per page.

Run after the book is built (``make test`` does it after the ``-W`` build)::

    .venv/bin/python -m pytest browser_tests

Every page of ``_toc.yml`` is visited once, in a fresh browser context that can
reach nothing but the local server; the tests then read that visit's report.
"""

from __future__ import annotations

import pytest

import book_browser as bb

_TIMINGS: dict[str, float] = {}
_AXE_TIMINGS: dict[str, float] = {}
_WIDE: dict[str, list[str]] = {}


def pytest_generate_tests(metafunc):
    if "docname" in metafunc.fixturenames:
        names = bb.book_docnames()
        metafunc.parametrize("docname", names, ids=[bb.screenshot_stem(n) for n in names])


@pytest.fixture(scope="session")
def html_root():
    root = bb.html_dir()
    if not (root / "index.html").is_file():
        pytest.fail(f"no built book at {root}: run `make book` first (or set BOOK_HTML_DIR)")
    return root


@pytest.fixture(scope="session")
def repo_root():
    return bb.repo_dir()


@pytest.fixture(scope="session")
def server(html_root):
    srv = bb.BookServer(html_root)
    yield srv
    srv.close()


@pytest.fixture(scope="session")
def browser():
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        pytest.fail("the browser tests need the `playwright` package: pip install -r requirements.txt")
    executable = bb.chromium_executable()
    if not executable:
        pytest.fail("no Chromium found: run tools/install_browser.sh (Debian's `chromium` package) or set CHROMIUM")
    # Playwright starts the browser with a fresh temporary profile (--user-data-dir) and
    # deletes it on close; Playwright's own browser download is never used.
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=executable, headless=True, args=bb.CHROMIUM_ARGS, timeout=60_000)
        yield b
        b.close()


@pytest.fixture(scope="session")
def visit(browser, server, html_root):
    """``visit(docname)`` -> the page's ``PageReport`` (each page is opened once per session)."""
    cache: dict[str, bb.PageReport] = {}
    shots = bb.screenshot_dir()

    def _visit(docname: str) -> bb.PageReport:
        if docname not in cache:
            if not (html_root / f"{docname}.html").is_file():
                pytest.fail(f"{docname}: listed in _toc.yml but {docname}.html was not built")
            cache[docname] = bb.inspect_page(browser, server, docname, shots)
            _TIMINGS[docname] = cache[docname].seconds
            _AXE_TIMINGS[docname] = cache[docname].axe_seconds
            _WIDE[docname] = bb.wide_equations(cache[docname])
        return cache[docname]

    return _visit


def pytest_terminal_summary(terminalreporter):
    import sys

    measured = getattr(sys.modules.get("test_interactive_figures"), "MEASURED", {})
    if measured:
        terminalreporter.section("interactive figures: page weights")
        for key, value in measured.items():
            terminalreporter.write_line(f"{key}: {value}")
    if bb.LAUNCH_SUMMARY:
        terminalreporter.section("launch buttons (page -> notebook opened)")
        for docname, lines in bb.LAUNCH_SUMMARY.items():
            terminalreporter.write_line(f"{docname}: " + ("; ".join(lines) if lines else "none"))
    if any(_WIDE.values()):
        terminalreporter.section("notes, not failures: display equations wider than the text column at 1280 px")
        for docname, lines in _WIDE.items():
            if lines:
                terminalreporter.write_line(f"{docname}: {len(lines)}: " + "; ".join(lines))
    if _TIMINGS:
        total = sum(_TIMINGS.values())
        per_page = ", ".join(f"{bb.screenshot_stem(d)} {t:.1f}" for d, t in _TIMINGS.items())
        terminalreporter.write_line(
            f"browser: {len(_TIMINGS)} pages in {total:.1f} s ({per_page}); screenshots in {bb.screenshot_dir()}")
        terminalreporter.write_line(
            f"of which the axe-core audits (light and dark): {sum(_AXE_TIMINGS.values()):.1f} s")
