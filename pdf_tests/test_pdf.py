"""The instructor's PDF, read back: `make pdf` must have run (make test does it).

Checks what a reader of the printed edition relies on: every page of
``_toc.yml`` but the guides (web pages only) is there under its title, the chapters carry the web's numbers,
no reference is unresolved, every figure of the HTML book is printed, the
solutions are printed, and no line of code runs past the margin.
"""

import re
import shutil
import subprocess
import sys
import unicodedata
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "_ext"))
import latex_book  # noqa: E402  (_ext/latex_book.py: which pages are printed)
LATEX = ROOT / "_build" / "latex"
PDF = LATEX / "book.pdf"
HTML = ROOT / "_build" / "html"


def _require(path, how):
    if not path.exists():
        pytest.fail(f"{path.relative_to(ROOT)} is missing: {how}")


@pytest.fixture(scope="module")
def pdf_text():
    _require(PDF, "run `make pdf` first")
    if shutil.which("pdftotext") is None:
        pytest.fail("pdftotext is missing: install Debian's poppler-utils (tools/install_tex.sh does)")
    text = subprocess.run(["pdftotext", "-enc", "UTF-8", str(PDF), "-"],
                          check=True, capture_output=True, text=True).stdout
    return _normalise(text)


@pytest.fixture(scope="module")
def latex_log():
    _require(LATEX / "book.log", "run `make pdf` first")
    return (LATEX / "book.log").read_text(errors="replace")


def _normalise(text):
    """Ligatures split, typographic quotes and dashes made plain, whitespace collapsed."""
    text = unicodedata.normalize("NFKC", text)
    for fancy, plain in {"\u2019": "'", "\u2018": "'", "\u201c": '"', "\u201d": '"',
                         "\u2013": "-", "\u2014": "-", "\u2011": "-", "\u00ad": ""}.items():
        text = text.replace(fancy, plain)
    return re.sub(r"\s+", " ", text)


def _toc():
    """[(docname, numbered)] for every printed page of _toc.yml, in reading order (root excluded;
    the guides are web pages only, ``_ext/latex_book.py``)."""
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text())
    pages = []

    def walk(entries, numbered):
        for entry in entries or []:
            if "file" in entry and latex_book.in_print(entry["file"]):
                pages.append((str(Path(entry["file"]).with_suffix("")), numbered))
            walk(entry.get("sections"), numbered)

    for part in toc.get("parts") or []:
        walk(part.get("chapters"), bool(part.get("numbered")))
    return pages


def _title(docname):
    """The page's H1 heading, as the reader sees it (MyST roles and inline math stripped)."""
    in_fence = None
    for line in (ROOT / f"{docname}.md").read_text().splitlines():
        fence = re.match(r"^(`{3,}|~{3,})", line)
        if fence:
            if in_fence is None:
                in_fence = fence.group(1)
            elif line.strip() == in_fence:
                in_fence = None
            continue
        if in_fence is None and line.startswith("# "):
            title = re.sub(r"\{[a-z:]+\}`([^`<]*)[^`]*`", r"\1", line[2:].strip())
            return _normalise(title.replace("`", "")).strip()
    raise AssertionError(f"{docname}.md has no '# ' title")


def _chapter_numbers():
    """docname -> the web's chapter number, for the top-level pages of numbered parts."""
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text())
    numbers, count = {}, 0
    for part in toc.get("parts") or []:
        if part.get("numbered"):
            for entry in part.get("chapters") or []:
                count += 1
                numbers[str(Path(entry["file"]).with_suffix(""))] = count
    return numbers


def test_every_page_of_the_toc_is_in_the_pdf_under_its_title(pdf_text):
    missing = [f"{doc}: {_title(doc)!r}" for doc, _ in _toc() if _title(doc).lower() not in pdf_text.lower()]
    assert not missing, "titles of _toc.yml pages not found in the PDF:\n" + "\n".join(missing)


def test_chapters_have_the_web_numbers_and_front_and_back_matter_none(pdf_text):
    numbers = _chapter_numbers()
    assert numbers, "_toc.yml has no numbered part"
    for doc, number in numbers.items():
        # The running head of every page of the chapter: "Chapter 4. Mixture models ..."
        head = f"Chapter {number}. {_title(doc)}"
        assert head in pdf_text, f"{doc}: no page headed {head!r}: the PDF numbers chapters differently from the web"
    for doc, numbered in _toc():
        if not numbered:
            assert not re.search(rf"Chapter \d+\. {re.escape(_title(doc))}", pdf_text), (
                f"{doc} is front or back matter on the web but a numbered chapter in the PDF")
    assert f"Chapter {len(numbers) + 1}." not in pdf_text, "the PDF has more numbered chapters than the web"


def test_no_unresolved_reference(pdf_text, latex_log):
    undefined = [line for line in latex_log.splitlines() if "undefined" in line.lower()]
    assert not undefined, "LaTeX reports undefined references or citations:\n" + "\n".join(undefined[:20])
    assert "??" not in pdf_text, "the PDF shows '??' (an unresolved reference)"


def _html_figures():
    """Number of pictures in the HTML pages of _toc.yml: images (cell outputs and
    figures) and interactive figures (an SVG on the web, a still image in print)."""
    _require(HTML, "run `make book` (or make build-check) first")
    count = 0
    for doc, _ in [("chapters/intro", False)] + _toc():
        page = HTML / f"{doc}.html"
        _require(page, "the HTML build is incomplete")
        text = page.read_text()
        count += len(re.findall(r'<img\b[^>]*\bsrc="[^"]*_images/', text))
        count += len(re.findall(r'class="interactive-figure"', text))
    return count


def test_every_html_figure_is_in_the_pdf():
    tex = (LATEX / "book.tex").read_text()
    included = len(re.findall(r"\\sphinxincludegraphics", tex))
    listing = subprocess.run(["pdfimages", "-list", str(PDF)], check=True, capture_output=True,
                             text=True).stdout.splitlines()[2:]
    printed = sum(1 for row in listing if row.split()[2] == "image")
    html = _html_figures()
    assert html > 0
    assert included == html, f"the HTML book has {html} figures, the LaTeX source includes {included}"
    assert printed == html, f"the HTML book has {html} figures, the PDF draws {printed} images"


def test_the_solutions_are_printed(pdf_text):
    # Solutions are written {solution-start} ... {solution-end} (they hold code cells).
    fence = re.compile(r"^(`{3,}|:{3,})\{solution(?:-start)?\}", re.M)
    expected = sum(len(fence.findall((ROOT / f"{doc}.md").read_text())) for doc, _ in _toc())
    assert expected > 0
    printed = len(re.findall(r"Solution to Exercise \d+(?:\.\d+)*", pdf_text))
    assert printed == expected, f"{expected} solutions in the sources, {printed} in the PDF"


def test_proofs_have_a_title_and_no_empty_title_bar():
    tex = (LATEX / "book.tex").read_text()
    empty = re.findall(r"\\begin\{sphinxadmonition\}\{note\}\s*\n", tex)
    assert not empty, f"{len(empty)} boxes have an empty title bar"
    assert "{note}{Proof}" in tex


def _verbatim_lines(tex):
    """Line numbers of book.tex inside sphinxVerbatim environments (code and outputs)."""
    inside, lines = False, set()
    for number, line in enumerate(tex.splitlines(), start=1):
        if r"\begin{sphinxVerbatim" in line:
            inside = True
        if inside:
            lines.add(number)
        if r"\end{sphinxVerbatim" in line:
            inside = False
    return lines


def test_no_code_line_runs_past_the_margin(latex_log):
    tex = (LATEX / "book.tex").read_text()
    verbatim = _verbatim_lines(tex)
    overfull = []
    for match in re.finditer(r"Overfull \\hbox \(([\d.]+)pt too wide\) in paragraph at lines (\d+)--(\d+)",
                             latex_log):
        first, last = int(match.group(2)), int(match.group(3))
        if any(n in verbatim for n in range(first, last + 1)):
            overfull.append(f"book.tex lines {first}-{last}: {match.group(1)}pt too wide")
    assert not overfull, "code runs past the margin:\n" + "\n".join(overfull)


def test_readme_states_the_page_count():
    info = subprocess.run(["pdfinfo", str(PDF)], check=True, capture_output=True, text=True).stdout
    pages = int(re.search(r"^Pages:\s+(\d+)", info, re.M).group(1))
    guide = (ROOT / "guide" / "slides.md").read_text()  # the instructor's guide, "Slides and the PDF"
    stated = re.search(r"The current PDF has (\d+) pages", guide)
    assert stated, "guide/slides.md's PDF section should say 'The current PDF has N pages'"
    assert int(stated.group(1)) == pages, (
        f"guide/slides.md says {stated.group(1)} pages, the PDF has {pages}: update it")
