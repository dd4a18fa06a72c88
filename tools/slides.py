"""Build the lecture slides: one reveal.js deck per chapter and section page.

    python tools/slides.py

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


def main():
    problem = missing()
    if problem:
        print(f"slides: {problem}", file=sys.stderr)
        return 2
    warnings = book.run_custom_builder("slides")
    print("".join(f"slides builder: {line}\n" for line in warnings), end="", file=sys.stderr)
    print(f"{len(decks())} decks in {OUT.relative_to(book.ROOT)}/ (open one in a browser; S: speaker view; "
          "?print-pdf: print view)")
    return 1 if warnings else 0


if __name__ == "__main__":
    sys.exit(main())
