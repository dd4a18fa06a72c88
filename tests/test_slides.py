"""The lecture slides (guide/slides.md, "Slides"): the ``slides`` builder (``_ext/slide_decks.py``, ``make slides``).

The builder runs once for the module (on the doctrees the student edition's tests have read, when
they ran first) and writes ``_build/slides``; each test then reads the decks it wrote:

* one deck per numbered page of ``_toc.yml``, with 10 to 30 slides, at least one figure and the
  page's numbered equations;
* every equation, figure, proposition and exercise number on a slide is the web book's (Sphinx's
  numbers in the build environment the HTML build made);
* speaker notes are in reveal.js's ``<aside class="notes">`` and nowhere else: not on a slide, not
  in the web book's page, not in the student edition; no proof and no solution is on a slide;
* every slide links to its place in the web book; reveal.js and MathJax are next to the decks and
  nothing is fetched from elsewhere (the browser tests load the decks, browser_tests/test_slides.py);
* the layout rules (``deck_slides``) on a small document.
"""

import html
import pickle
import re
import sys
from pathlib import Path

import pytest
from docutils import nodes
from docutils.frontend import get_default_settings
from docutils.utils import new_document

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
sys.path.insert(0, str(ROOT / "_ext"))

import book  # noqa: E402  (tools/book.py)
import slide_decks  # noqa: E402  (_ext/slide_decks.py)
import slides  # noqa: E402  (tools/slides.py)

PAGES = [p.stem for p in book.chapter_sources() if re.match(r"\d\d_", p.stem)]  # numbered pages
SLIDE = re.compile(r'<section id="(deck-title|deck-outline|slide-\d+)"[^>]*>(.*?)(?=<section id="(?:deck-outline|slide-\d+)"|</div>\n</main>)', re.S)
NOTES = re.compile(r'<aside class="notes">(.*?)</aside>', re.S)


def test_slides_and_the_builder_look_for_reveal_in_one_place():
    assert slides.REVEAL == slide_decks.REVEAL


@pytest.fixture(scope="module")
def built():
    """The builder's warnings; the decks are in _build/slides."""
    assert slides.missing() is None, slides.missing()  # else the build fails deep inside myst-nb
    return book.run_custom_builder("slides")


@pytest.fixture(scope="module")
def env(built):
    with open(ROOT / "_build" / ".doctrees" / "environment.pickle", "rb") as f:
        return pickle.load(f)


def deck(stem):
    return (slides.OUT / f"{stem}.html").read_text(encoding="utf-8")


def test_the_builder_warns_of_nothing(built):
    """No `% slide` that marks nothing, no proof or solution marked for a slide."""
    assert built == []


def test_one_deck_per_numbered_page(built):
    assert len(PAGES) == 23
    assert [p.stem for p in slides.decks()] == sorted(PAGES)
    index = (slides.OUT / "index.html").read_text(encoding="utf-8")  # the decks' own, not a redirect
    assert re.findall(r'<li><a href="([^"]+)\.html">', index) == sorted(PAGES)


def test_the_index_links_each_deck_by_its_title_and_its_pdf(tmp_path):
    (tmp_path / "02_b.html").write_text("<title>Means &amp; modes · slides · Book</title>", encoding="utf-8")
    (tmp_path / "01_a.html").write_text("<title>First · slides · Book</title>", encoding="utf-8")
    (tmp_path / "pdf").mkdir()
    (tmp_path / "pdf" / "02_b.pdf").write_bytes(b"%PDF-1.4")
    slide_decks.write_index(tmp_path, "Book & co")
    index = (tmp_path / "index.html").read_text(encoding="utf-8")
    assert re.findall(r"<li>(.*?)</li>", index) == [
        '<a href="01_a.html">First</a>', '<a href="02_b.html">Means &amp; modes</a> (<a href="pdf/02_b.pdf">PDF</a>)']
    assert "<h1>Slides: Book &amp; co</h1>" in index and "http-equiv" not in index


@pytest.mark.parametrize("stem", PAGES)
def test_a_deck_is_a_lecture(built, stem):
    """10 to 30 slides, a title slide, at least one figure, the page's numbered equations, a link on each."""
    text = deck(stem)
    found = SLIDE.findall(text)
    assert 10 <= len(found) <= 30, f"{stem}: {len(found)} slides (10 to 30 wanted): mark more or less in its source"
    assert found[0][0] == "deck-title"
    assert re.search(r"<img |class=\"interactive-figure\"", text), f"{stem}: no figure on any slide"
    assert text.count('class="eqno"') >= 2, f"{stem}: fewer than two numbered equations on its slides"
    for sid, body in found[1:]:
        assert re.search(rf'class="book-link" href="\.\./html/chapters/{stem}\.html(#[\w-]+)?"', body), (stem, sid)


@pytest.mark.parametrize("stem", PAGES)
def test_numbers_are_the_web_books(env, stem):
    """Each numbered block on a slide shows the number Sphinx gave it for the web book."""
    text = deck(stem)
    numbers = env.toc_fignumbers[f"chapters/{stem}"]
    checked = 0
    for kind, table in numbers.items():
        for ident, number in table.items():
            at = text.find(f'id="{ident}"')
            if at < 0:
                continue
            shown = ".".join(map(str, number))
            end = text.find("</figure>", at) if kind == "figure" else at + 1500
            head = text[at:end]
            if kind == "displaymath":
                match = re.search(r'class="eqno">\(([\d.]+)\)', head)
            else:
                match = re.search(r'class="caption-number">\w+\.? ([\d.]+) ', head)
            assert match and match[1] == shown, f"{stem}: {ident} shows {match and match[1]}, the web book {shown}"
            checked += 1
    assert checked >= 2, f"{stem}: fewer than two numbered blocks on its slides"


@pytest.mark.parametrize("stem", PAGES)
def test_no_proof_or_solution_on_a_slide(built, stem):
    text = deck(stem)
    for mark in ('class="proof admonition"', 'class="solution', "tag_solution"):
        assert mark not in text, f"{stem}: {mark} on a slide"


def notes_of(stem):
    return [html.unescape(re.sub(r"<[^>]+>", " ", n)).split() for n in NOTES.findall(deck(stem))]


def test_speaker_notes_only_in_the_speaker_view(built):
    """Notes (`% notes:` in the source) are reveal.js notes; no slide, web page or student notebook shows them."""
    with_notes = [s for s in PAGES if notes_of(s)]
    assert "04_em_gaussian_mixtures" in with_notes
    for stem in with_notes:
        text = deck(stem)
        outside = NOTES.sub("", text)
        student = (ROOT / "student" / f"{stem}.ipynb").read_text(encoding="utf-8")
        md = (ROOT / "chapters" / f"{stem}.md").read_text(encoding="utf-8")
        for words in notes_of(stem):
            phrase = " ".join(words[:6])
            assert phrase in " ".join(md.split()), f"{stem}: a note not from its source: {phrase}"
            assert phrase not in " ".join(html.unescape(re.sub(r"<[^>]+>", " ", outside)).split()), (stem, phrase)
            assert phrase not in " ".join(student.split()), f"{stem}: the student edition shows a note: {phrase}"
        assert "% slide" not in student and "notes:" not in student


def test_decks_carry_reveal_and_mathjax(built):
    """reveal.js, its notes plugin and MathJax are copied next to the decks; every script and sheet is local."""
    static = slides.OUT / "_static"
    for part in ("reveal/reveal.js", "reveal/reveal.css", "reveal/plugin/notes.js", "mathjax/tex-chtml.js",
                 "slides.css"):
        assert (static / part).is_file(), part
    for path in slides.decks():
        for ref in re.findall(r'(?:src|href)="([^"#]+)', path.read_text(encoding="utf-8")):
            assert not re.match(r"^[a-z]+://|^//", ref), f"{path.name} loads {ref}"


# -------------------------------------------------------------------------------- the layout rules --

def _doc(*blocks_per_section):
    """A page: a title section holding one subsection per argument, each with the given blocks."""
    doc = new_document("<test>", get_default_settings())
    top = nodes.section(ids=["page"])
    top += nodes.title(text="Page")
    for i, blocks in enumerate(blocks_per_section):
        sec = nodes.section(ids=[f"s{i}"])
        sec += nodes.title(text=f"Section {i}")
        for block in blocks:
            sec += block
        top += sec
    doc += top
    return doc


def _marked(node):
    return [nodes.comment(text="slide"), node]


def test_layout_sections_marks_and_notes():
    eq = lambda: nodes.math_block(text="a = b")  # noqa: E731
    fig = nodes.figure()
    doc = _doc(_marked(eq()) + _marked(eq()) + [nodes.comment(text="notes: say why")] + _marked(fig),
               [nodes.paragraph(text="not marked")],
               sum((_marked(eq()) for _ in range(5)), []) + [nodes.comment(text="a remark, no marker")])
    first, got = slide_decks.deck_slides(doc, {"": (2,), "#s0": (2, 1), "#s1": (2, 2), "#s2": (2, 3)})
    assert first.title.astext() == "Page" and first.number == "2"
    # section 0: two equations, then the figure on a slide of its own; section 1: its title only;
    # section 2: five equations, four on a slide
    assert [(s.title.astext(), [k for k, _ in s.blocks]) for s in got] == [
        ("Section 0", ["text", "text"]), ("Section 0", ["figure"]), ("Section 1", []),
        ("Section 2", ["text"] * 4), ("Section 2", ["text"])]
    assert [s.number for s in got] == ["2.1", "2.1", "2.2", "2.3", "2.3"]
    assert got[0].notes == ["say why"] and all(not s.notes for s in got[1:])


def test_a_marked_proof_stays_in_the_book():
    class proof_node(nodes.Admonition, nodes.Element):
        pass

    doc = _doc(_marked(proof_node()))
    _, got = slide_decks.deck_slides(doc, {})
    assert got[0].blocks == []
