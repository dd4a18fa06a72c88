"""``make slides-pdf`` (tools/slides.py --pdf): one PDF per deck, one page per slide, from reveal.js's print view.

A small deck is written with the builder's own page template (``_ext/slide_decks.PAGE``) and reveal.js
beside it, in a temporary folder, so the test needs Chromium and reveal.js but not the book's build; it is
printed as ``make slides-pdf`` prints every deck, and the PDF is read back with poppler's pdfinfo
and pdftotext (as pdf_tests/ reads the book's PDF): as many pages as
slides, each of reveal.js's 1280x720 slide size, each slide's heading on its own page. The index page of
the decks (``slide_decks.write_index``) then links the deck and its PDF.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
sys.path.insert(0, str(ROOT / "_ext"))

import slide_decks  # noqa: E402  (_ext/slide_decks.py)
import slides  # noqa: E402  (tools/slides.py)

HEADINGS = ["The likelihood", "Its maximum", "An example"]


@pytest.fixture(scope="module")
def printed(tmp_path_factory):
    if slides.missing():
        pytest.fail(slides.missing())
    out = tmp_path_factory.mktemp("slides")
    for name in ("reveal.css", "reveal.js", "theme/white.css", "plugin/notes.js"):
        (out / "_static" / "reveal" / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(slides.REVEAL / name, out / "_static" / "reveal" / name)
    sections = "\n".join(f'<section id="slide-{i}"><h2>{h}</h2><div class="slide-body"><p>Slide {i}.</p></div>'
                         "</section>" for i, h in enumerate(HEADINGS, 1))
    deck = out / "02_maximum_likelihood.html"
    deck.write_text(slide_decks.PAGE.format(title="Maximum likelihood", book="The book", slides=sections,
                                            mathjax="{}"), encoding="utf-8")
    # In a process of its own: Playwright's sync API refuses to run inside the asyncio loop that the
    # other browser tests of this session leave behind.
    script = ("import sys; from pathlib import Path; sys.path.insert(0, sys.argv[1]); import slides; "
              "slides.write_pdfs([Path(sys.argv[2])], Path(sys.argv[3]))")
    subprocess.run([sys.executable, "-c", script, str(ROOT / "tools"), str(deck), str(out / "pdf")],
                   check=True, timeout=600)
    written = sorted((out / "pdf").glob("*.pdf"))
    slide_decks.write_index(out, "The book")
    return out, written


def test_one_pdf_per_deck_one_page_per_slide(printed):
    out, written = printed
    assert written == [out / "pdf" / "02_maximum_likelihood.pdf"]
    if not (shutil.which("pdftotext") and shutil.which("pdfinfo")):
        pytest.fail("pdftotext and pdfinfo are missing: install Debian's poppler-utils (tools/install_tex.sh does)")
    info = subprocess.run(["pdfinfo", str(written[0])], capture_output=True, text=True, check=True).stdout
    assert re.search(r"^Pages:\s+(\d+)$", info, re.M)[1] == str(len(HEADINGS))
    width, height = map(float, re.search(r"^Page size:\s+([\d.]+) x ([\d.]+) pts", info, re.M).groups())
    assert abs(width / height - 1280 / 720) < 0.01  # the slide's shape
    text = subprocess.run(["pdftotext", "-enc", "UTF-8", str(written[0]), "-"], capture_output=True, text=True,
                          check=True).stdout
    pages = text.lower().split("\f")  # reveal's theme sets headings in capitals
    for page, heading in zip(pages, HEADINGS):
        assert [h for h in HEADINGS if h.lower() in page] == [heading]  # one slide a page


def test_the_index_links_the_deck_and_its_pdf(printed):
    out, _ = printed
    text = (out / "index.html").read_text(encoding="utf-8")
    assert '<a href="02_maximum_likelihood.html">Maximum likelihood</a>' in text
    assert '<a href="pdf/02_maximum_likelihood.pdf">PDF</a>' in text
