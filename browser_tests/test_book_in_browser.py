"""The book as a reader sees it: every page in headless Chromium, with no network.

Each test reads the report of one visit to one page (see ``book_browser.py``)
and fails with a list of problems, each naming the page and the element.
Screenshots of every page's first screen, light and dark, are written to
``_build/screenshots/<page>.png`` and ``<page>-dark.png``.
"""

import pytest

import book_browser as bb


def _assert_none(problems, show=30):
    if problems:
        more = f"\n  ... and {len(problems) - show} more" if len(problems) > show else ""
        pytest.fail(f"{len(problems)} problem(s):\n  " + "\n  ".join(problems[:show]) + more, pytrace=False)


def test_math_is_typeset_offline(visit, docname):
    """MathJax (the local copy) typesets every formula: no raw TeX, no MathJax errors."""
    _assert_none(bb.problems_math(visit(docname)))


def test_images_load(visit, docname):
    _assert_none(bb.problems_images(visit(docname)))


def test_images_and_figures_have_alt_text(visit, docname):
    """Every <img> (content, logos, buttons) has alt text; every <figure> an image and a caption."""
    _assert_none(bb.problems_alt_text(visit(docname)))


def test_internal_links_and_anchors_resolve(visit, docname, html_root, server):
    _assert_none(bb.problems_links(visit(docname), html_root, server.origin))


def test_no_console_errors(visit, docname):
    """No JavaScript error, no console error, no failed request (404) while reading and clicking."""
    _assert_none(bb.problems_console(visit(docname)))


def test_nothing_but_localhost_is_requested(visit, docname):
    """Offline means offline: the page never tries to fetch anything from another host."""
    _assert_none(bb.problems_network(visit(docname)))


def test_solutions_are_folded_until_clicked(visit, docname):
    _assert_none(bb.problems_solutions(visit(docname)))


def test_launch_buttons_open_notebooks_of_the_repository(visit, docname, repo_root):
    """Chapter pages offer Binder and Colab; every launch URL opens an .ipynb that exists in the repository."""
    targets, problems = bb.launch_targets(visit(docname), repo_root)
    _assert_none(problems)


def test_dark_mode_keeps_figures_readable(visit, docname):
    """The theme switch reaches dark mode, and every content figure has an opaque background."""
    _assert_none(bb.problems_dark_mode(visit(docname)))


def test_screenshots_are_written(visit, docname):
    report = visit(docname)
    _assert_none(bb.problems_crash(report))
    problems = [f"{docname}: screenshot {path} is missing or not a PNG" for path in report.screenshots
                if not (path.is_file() and path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n")]
    if len(report.screenshots) != 2:
        problems.append(f"{docname}: expected a light and a dark screenshot, got {len(report.screenshots)}")
    _assert_none(problems)


def test_front_page_redirects_to_the_root_document(browser, server, html_root, repo_root):
    """``index.html`` (what a web server shows first) lands on the book's root page."""
    root = bb.toc_docnames(repo_root)[0]
    context = browser.new_context()
    try:
        page = context.new_page()
        page.goto(server.url("index.html"))
        page.wait_for_url(f"**/{root}.html", timeout=10_000)
    except Exception as exc:  # noqa: BLE001 - report the reason with the page name
        pytest.fail(f"index.html does not redirect to {root}.html: {type(exc).__name__}: {exc}")
    finally:
        context.close()
