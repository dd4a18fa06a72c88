"""Build the lecture slides: one reveal.js deck per chapter and section page.

    python tools/slides.py          # the decks
    python tools/slides.py --pdf    # then one PDF per deck (make slides-pdf)

Runs the ``slides`` Sphinx builder (``_ext/slide_decks.py``, which says what goes on a slide) on the
HTML build's doctrees, like the student edition (``tools/student.py``), into
``_build/slides/<page>.html``.  The builder's warnings (a ``% slide`` that marks nothing, a
proof or a solution marked for a slide) are printed and make the exit status 1.  Each slide
links to its place in the web book, ``_build/html`` (``make book``).
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import book  # noqa: E402  (tools/book.py)

REVEAL = book.ROOT / "browser_tests" / "node_modules" / "reveal.js" / "dist"  # _ext/slide_decks.py copies it

OUT = book.ROOT / "_build" / "slides"


def decks():
    """The decks the builder wrote, one per numbered page of _toc.yml."""
    return sorted(OUT.glob("[0-9][0-9]_*.html"))


def missing():
    """Why the decks cannot be built (a sentence), or None."""
    if not (REVEAL / "reveal.js").is_file():
        return f"reveal.js is not installed ({REVEAL}): run bash tools/install_reveal.sh (make slides does)"
    return None


def write_pdfs(paths=None, out=None):
    """One PDF per deck (``make slides-pdf``): each deck in reveal.js's print view (``?print-pdf``, one page
    per slide, the page size reveal.js sets), printed by the Chromium the browser tests use, offline
    (nothing but the build folder is loaded). Writes ``_build/slides/pdf/<page>.pdf``; returns the paths."""
    sys.path.insert(0, str(book.ROOT / "browser_tests"))
    sys.path.insert(0, str(book.ROOT / "_ext"))
    import book_browser  # the browser tests' Chromium and its flags: one home
    import slide_decks
    from playwright.sync_api import sync_playwright

    executable = book_browser.chromium_executable()
    if not executable:
        raise SystemExit("slides: no Chromium found: run bash tools/install_browser.sh (or set CHROMIUM)")
    decks_ = paths or decks()
    out = Path(out or OUT / "pdf")
    out.mkdir(parents=True, exist_ok=True)
    written = []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=executable, headless=True, args=book_browser.CHROMIUM_ARGS,
                                    timeout=60_000)
        try:
            page = browser.new_page()
            page.route("**/*", lambda r: r.continue_() if r.request.url.startswith(("file:", "data:"))
                       else r.abort())
            for deck in decks_:
                page.goto(deck.as_uri() + "?print-pdf", wait_until="load", timeout=120_000)
                page.wait_for_selector("body[data-ready]", state="attached", timeout=120_000)
                page.wait_for_selector(".reveal .pdf-page", state="attached", timeout=120_000)
                target = out / f"{deck.stem}.pdf"
                page.pdf(path=str(target), prefer_css_page_size=True, print_background=True)
                written.append(target)
        finally:
            browser.close()
    if OUT.is_dir() and out == OUT / "pdf":
        slide_decks.write_index(OUT, _book_title())  # the index links each deck's PDF too
    return written


def _book_title():
    """The book's title, from its one home in ``_config.yml``."""
    import re

    match = re.search(r'^title:\s*"?(.*?)"?\s*$', (book.ROOT / "_config.yml").read_text(encoding="utf-8"), re.M)
    return match[1] if match else "the book"


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    problem = missing()
    if problem:
        print(f"slides: {problem}", file=sys.stderr)
        return 2
    if argv == ["--pdf"]:
        if not decks():
            print("slides: no deck in _build/slides: run make slides first", file=sys.stderr)
            return 2
        written = write_pdfs()
        print(f"{len(written)} PDF(s) in {(OUT / 'pdf').relative_to(book.ROOT)}/ (one page per slide)")
        return 0
    warnings = book.run_custom_builder("slides")
    print("".join(f"slides builder: {line}\n" for line in warnings), end="", file=sys.stderr)
    print(f"{len(decks())} decks in {OUT.relative_to(book.ROOT)}/ (open one in a browser; S: speaker view; "
          "?print-pdf: print view)")
    return 1 if warnings else 0


if __name__ == "__main__":
    sys.exit(main())
