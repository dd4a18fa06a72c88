"""The ``slides`` builder: one reveal.js deck per chapter and section page, from the HTML build's doctrees.

``jupyter-book build . --builder custom --custom-builder slides`` (``tools/slides.py``, ``make
slides``) reuses ``_build/.doctrees`` as the student edition does and writes
``_build/slides/<page>.html`` for every numbered page of ``_toc.yml``.  The builder is Sphinx's HTML
builder with its own page: every node on a slide is rendered by the HTML build's translator (so
equation, figure and proposition numbers, proofs' and exercises' boxes and the notebooks' outputs,
interactive figures included, are the web book's), reveal.js comes from its npm package
(``browser_tests/package.json``, ``tools/install_reveal.sh``) and MathJax from the same package as the
web book's (``sphinx-mathjax-offline``), both copied next to the decks: a deck opened from disk works
with no network.

What goes on a slide is marked in the page's source (guide/slides.md, "Slides"):

* every section heading starts a slide (the page title starts the deck);
* ``% slide`` (a MyST comment line) puts the block right after it on the current section's slide:
  a paragraph, a list, a displayed equation, a figure, a ``prf:`` or ``exercise`` directive, or a
  code cell (its outputs);
* a code cell tagged ``slide`` goes on the slide with its outputs, ``slide-code`` with its source too;
* ``% notes: ...`` (one or more comment lines) are speaker notes for the current slide, shown only
  in reveal.js's speaker view (press S).

A figure, a code cell or a directive starts a slide of its own ("(cont.)") when the slide holds
something already; proofs and solutions never go on a slide, nor text outputs longer than
``LONG_OUTPUT`` lines.  Every slide links to its place in the web book (``../html/``).
"""

import html
import posixpath
import re
import shutil
from pathlib import Path

from docutils import nodes
from docutils.utils import new_document
from myst_nb.core.render import base_render_priority
from sphinx.builders.html import StandaloneHTMLBuilder
from sphinx.util import logging
from sphinx.util.fileutil import copy_asset

logger = logging.getLogger(__name__)
ROOT = Path(__file__).resolve().parent.parent
REVEAL = ROOT / "browser_tests" / "node_modules" / "reveal.js" / "dist"
DECK_PAGE = re.compile(r"^chapters/\d\d_[^/]+$")  # the numbered chapter and section pages
LONG_OUTPUT = 12  # text outputs with more lines stay in the book
BIG = ("figure", "cell", "directive")  # blocks that start a slide of their own when it is not empty
CELL_TAGS = {"slide", "slide-code"}  # a code cell's tags that put it on a slide
# A line of a page's MyST source that is a slide mark, not text the reader reads (guide/slides.md, "Slides"):
# `% slide`, the first line of `% notes: ...`, a code cell's tag line that holds a slide tag.
SOURCE_MARK = re.compile(r"^\s*(% slide\s*$|% notes:|:?tags: \[(?:[\w-]+, )*slide(-code)?(?:, [\w-]+)*\]\s*$)")
CAPACITY = 4  # equations and paragraphs on one slide (an equation of several lines counts more)
WEB = "../html"  # the web book, relative to _build/slides/


def comment_kind(node):
    """'slide', 'notes' or None for a MyST comment node."""
    text = node.astext().strip()
    if text == "slide":
        return "slide"
    if text.startswith("notes:"):
        return "notes"
    return None


def notes_text(node):
    return " ".join(line.strip() for line in node.astext().strip()[len("notes:"):].splitlines()).strip()


def cell_tags(node):
    return set(node.get("cell_metadata", {}).get("tags", []))


def is_cell(node):
    return isinstance(node, nodes.container) and node.get("nb_element") == "cell_code"


def next_block(node):
    """The block a ``% slide`` comment marks: its next sibling, past link targets."""
    parent = node.parent
    for sibling in parent.children[parent.index(node) + 1:]:
        if isinstance(sibling, nodes.target) or (isinstance(sibling, nodes.comment) and not comment_kind(sibling)):
            continue
        return sibling
    return None


def kind_of(node):
    """What a marked block is, for the layout: 'figure', 'cell', 'directive' or 'text'."""
    if isinstance(node, nodes.figure) or (is_cell(node) and next(node.findall(nodes.figure), None) is not None):
        return "figure"
    if is_cell(node):
        return "cell"
    if isinstance(node, (nodes.admonition, nodes.Admonition)) or type(node).__name__.endswith("_node"):
        return "directive"
    return "text"


def left_out(node):
    """Why a marked block cannot go on a slide (a proof, a solution), or ''."""
    name = type(node).__name__
    classes = node.get("classes", []) if isinstance(node, nodes.Element) else []
    if "solution" in name or "solution" in classes or "solution" in cell_tags(node):
        return "a solution"
    if name == "proof_node":
        return "a proof"
    return ""


class Slide:
    def __init__(self, title, anchor, number):
        self.title, self.anchor, self.number = title, anchor, number
        self.blocks, self.notes = [], []  # (kind, node), str
        self.continued = False  # the section's second or later slide

    @property
    def big(self):
        return any(kind in BIG for kind, _ in self.blocks)

    @property
    def weight(self):
        return sum(weight(kind, node) for kind, node in self.blocks)


def weight(kind, node):
    """How much of a slide a block takes: a big block all of it, an equation one unit per two lines."""
    if kind in BIG:
        return CAPACITY
    if isinstance(node, nodes.math_block):
        return 1 + node.astext().count("\\\\") // 2
    return 1


def deck_slides(doctree, secnumbers):
    """The page's slides: (title slide, [Slide ...]) from the resolved doctree and its section numbers."""
    slides = []

    def number_of(section, top):
        key = "" if top else "#" + section["ids"][0]
        return ".".join(map(str, secnumbers.get(key, ())))

    def walk(section, top=False):
        title = next(iter(section.findall(nodes.title)))
        slide = Slide(title, section["ids"][0], number_of(section, top))
        if not top:
            slides.append(slide)
        current = [slide]

        def add(kind, node):
            cur = current[0]
            if cur.blocks and (kind in BIG or cur.big or cur.weight + weight(kind, node) > CAPACITY) or (
                    top and cur is slide):
                cont = Slide(title, section["ids"][0], number_of(section, top))
                cont.continued = bool(cur.blocks) or not top
                slides.append(cont)
                current[0] = cont
            current[0].blocks.append((kind, node))

        for child in section.children:
            if isinstance(child, nodes.section):
                walk(child)
                continue
            found = [child] if isinstance(child, (nodes.comment, nodes.container)) else []
            found += [n for n in child.findall(lambda n: isinstance(n, nodes.comment) or is_cell(n)) if n is not child]
            for node in found:
                if isinstance(node, nodes.comment) and comment_kind(node) == "notes":
                    current[0].notes.append(notes_text(node))
                elif isinstance(node, nodes.comment) and comment_kind(node) == "slide":
                    block = next_block(node)
                    if block is None:
                        logger.warning("slides: `% slide` marks nothing (it must come right before a block)",
                                       location=node)
                    elif left_out(block):
                        logger.warning(f"slides: `% slide` marks {left_out(block)}, which stays in the book",
                                       location=node)
                    else:
                        add(kind_of(block), block)
                elif is_cell(node) and cell_tags(node) & CELL_TAGS:
                    if left_out(node):
                        logger.warning(f"slides: a `slide` tag on {left_out(node)}, which stays in the book",
                                       location=node)
                    else:
                        add(kind_of(node), node)
        return slide

    first = walk(next(iter(doctree.findall(nodes.section))), top=True)
    return first, slides


def slide_block(kind, node):
    """The node as it goes on a slide: a code cell keeps its outputs (and source if tagged
    ``slide-code``) without long text outputs; anything else as it is."""
    node = node.deepcopy()
    if not is_cell(node):
        return node
    if "slide-code" not in cell_tags(node):
        for source in [c for c in node.children if c.get("nb_element") == "cell_code_source"]:
            node.remove(source)
    for block in list(node.findall(nodes.literal_block)):
        if block.parent.get("nb_element") != "cell_code_source" and block.astext().count("\n") >= LONG_OUTPUT:
            block.parent.remove(block)
    return node


class SlidesBuilder(StandaloneHTMLBuilder):
    """reveal.js decks of the numbered pages, rendered by the HTML translator (see the module docstring)."""

    name = "slides"
    format = "html"
    epilog = "The decks are in %(outdir)s (open one in a browser; press S for the speaker view)."
    search = False
    use_index = False
    copysource = False

    def get_outdated_docs(self):
        return [d for d in self.env.found_docs if DECK_PAGE.match(d)]

    def get_outfilename(self, pagename):
        return str(Path(self.outdir) / (posixpath.basename(pagename) + ".html"))

    def write_doc_serialized(self, docname, doctree):
        self.imgpath = "_images"
        self.post_process_images(doctree)

    def render(self, blocks):
        """HTML of docutils nodes, as the HTML build writes them."""
        doc = new_document("<slides>", self.docsettings)
        doc.extend(blocks)
        visitor = self.create_translator(doc, self)
        doc.walkabout(visitor)
        return "".join(visitor.body)

    def web_links(self, text, docname):
        """Links in rendered HTML point into the web book (a slide is not the page)."""
        page = posixpath.basename(docname) + ".html"

        def fix(match):
            href = html.unescape(match[1])
            if re.match(r"^[a-z]+:", href):
                return match[0]
            if href.startswith("#"):
                href = page + href
            elif href.startswith("_images/"):
                return match[0]
            return f'href="{WEB}/chapters/{html.escape(href)}"'

        return re.sub(r'href="([^"]*)"', fix, text)

    def write_doc(self, docname, doctree):
        if not DECK_PAGE.match(docname):
            return
        self.current_docname = docname
        self.secnumbers = self.env.toc_secnumbers.get(docname, {})
        self.fignumbers = self.env.toc_fignumbers.get(docname, {})
        self.imgpath = "_images"
        first, slides = deck_slides(doctree, self.secnumbers)
        page = f"{WEB}/{docname}.html"
        book = html.escape(self.config.html_title or self.config.project)
        parts = [f'<section id="deck-title" data-web="{page}">'
                 f'<h1>{"Chapter " + first.number + ". " if "." not in first.number else first.number + " "}'
                 f'{self.title_html(first.title)}</h1>'
                 f'<p class="deck-book">{book}</p>'
                 f'<p class="deck-web"><a href="{page}">Read this page in the web book</a></p>'
                 + self.notes_html(first) + "</section>"]
        # The lecture's arc: the page's sections, each a link to its first slide.
        depth, seen, items = first.number.count(".") + 1, set(), []
        for i, slide in enumerate(slides):
            if slide.number.count(".") + 1 == depth + 1 and slide.anchor not in seen:
                seen.add(slide.anchor)
                items.append(f'<li><a href="#/slide-{i + 1}"><span class="secnum">{slide.number}</span> '
                             f'{self.title_html(slide.title)}</a></li>')
        if items:
            parts.append(f'<section id="deck-outline" data-web="{page}"><h2>Outline</h2>'
                         f'<ol class="outline{" long" if len(items) > 7 else ""}">{"".join(items)}</ol>'
                         f'<a class="book-link" href="{page}">This page in the web book</a></section>')
        for i, slide in enumerate(slides):
            body = self.web_links(self.render([slide_block(k, n) for k, n in slide.blocks]), docname)
            # reveal.js takes every <section> for a slide: sphinx-proof's content sections become divs
            body = re.sub(r"<(/?)section\b", r"<\1div", body)
            cont = " (cont.)" if slide.continued else ""
            number = f'<span class="secnum">{slide.number}</span> ' if slide.number else ""
            parts.append(f'<section id="slide-{i + 1}" data-web="{page}#{slide.anchor}">'
                         f'<h2>{number}{self.title_html(slide.title)}{cont}</h2>'
                         f'<div class="slide-body">{body}</div>'
                         f'<a class="book-link" href="{page}#{slide.anchor}">'
                         f'{"§" + slide.number if slide.number else "This page"} in the web book</a>'
                         + self.notes_html(slide) + "</section>")
        title = html.escape(first.title.astext())
        out = Path(self.get_outfilename(docname))
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(PAGE.format(title=title, book=book, slides="\n".join(parts),
                                   mathjax=self.mathjax_config()), encoding="utf-8")

    def title_html(self, title):
        """A section title's inline content (math, code) as HTML, links dropped."""
        inner = nodes.inline()
        inner.extend(c.deepcopy() for c in title.children)
        for ref in list(inner.findall(nodes.reference)):
            ref.replace_self(ref.children)
        return re.sub(r"^<span>|</span>$", "", self.render([nodes.paragraph("", "", inner)]).strip()[3:-4].strip())

    def notes_html(self, slide):
        if not slide.notes:
            return ""
        return '<aside class="notes">' + "".join(f"<p>{html.escape(n)}</p>" for n in slide.notes) + "</aside>"

    def mathjax_config(self):
        import json

        config = {"tex": {"inlineMath": [["\\(", "\\)"]], "displayMath": [["\\[", "\\]"]]},
                  "options": {"processHtmlClass": "tex2jax_process|mathjax_process|math|output_area"},
                  "startup": {"typeset": True}}
        for key, value in (self.config.mathjax3_config or {}).items():
            config[key] = {**config.get(key, {}), **value} if isinstance(value, dict) else value
        return json.dumps(config)

    def copy_assets(self):  # the theme's static files: a deck uses none of them (copy_deck_assets)
        pass

    def finish(self):
        self.finish_tasks.add_task(self.copy_image_files)
        self.finish_tasks.add_task(self.copy_deck_assets)
        # before build-finished, where sphinx-external-toc would write an index.html that redirects to the
        # root page (chapters/intro.html), which is no deck
        write_index(Path(self.outdir), self.config.html_title or self.config.project)

    def copy_deck_assets(self):
        out = Path(self.outdir) / "_static"
        if not (REVEAL / "reveal.js").is_file():
            logger.warning(f"slides: reveal.js is not installed ({REVEAL}): run tools/install_reveal.sh")
            return
        for name in ("reveal.css", "reveal.js", "theme/white.css", "plugin/notes.js"):
            target = out / "reveal" / name
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(REVEAL / name, target)
        import importlib.util

        mathjax = Path(importlib.util.find_spec("sphinx-mathjax-offline").origin).parent / "static" / "mathjax"
        if not (out / "mathjax" / "tex-chtml.js").is_file():
            copy_asset(str(mathjax), str(out / "mathjax"))
        shutil.copyfile(Path(__file__).with_name("slide_decks.css"), out / "slides.css")

    def dump_inventory(self):
        pass

    def handle_finish(self):
        pass


def write_index(outdir, book):
    """``outdir/index.html``: a page that links every deck of ``outdir`` by its title (the decks' own
    ``<title>``, in file order), and the PDF of each beside it when ``make slides-pdf`` made one."""
    items = []
    for deck in sorted(Path(outdir).glob("[0-9][0-9]_*.html")):
        found = re.search(r"<title>(.*?) · slides · ", deck.read_text(encoding="utf-8"), re.S)
        title = found[1] if found else html.escape(deck.stem)  # already HTML (the deck wrote it escaped)
        pdf = Path(outdir) / "pdf" / f"{deck.stem}.pdf"
        also = f' (<a href="pdf/{deck.stem}.pdf">PDF</a>)' if pdf.is_file() else ""
        items.append(f'<li><a href="{deck.name}">{title}</a>{also}</li>')
    book = html.escape(book)
    text = (f'<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
            f'<meta name="viewport" content="width=device-width, initial-scale=1">\n'
            f"<title>Slides · {book}</title>\n</head>\n<body>\n<main>\n<h1>Slides: {book}</h1>\n"
            f"<p>One reveal.js deck per page of the book (S: speaker view; ?print-pdf: print view).</p>\n"
            f'<ol>\n{chr(10).join(items)}\n</ol>\n</main>\n</body>\n</html>\n')
    (Path(outdir) / "index.html").write_text(text, encoding="utf-8")


PAGE = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{title} · slides · {book}</title>
<link rel="stylesheet" href="_static/reveal/reveal.css">
<link rel="stylesheet" href="_static/reveal/theme/white.css">
<link rel="stylesheet" href="_static/slides.css">
<script>window.MathJax = {mathjax};</script>
<script defer src="_static/mathjax/tex-chtml.js"></script>
</head>
<body>
<main class="reveal" aria-label="Slides: {title}">
<div class="slides">
{slides}
</div>
</main>
<script src="_static/reveal/reveal.js"></script>
<script src="_static/reveal/plugin/notes.js"></script>
<script>
// Fit a shown slide (a hidden one has no size): a displayed equation wider than the slide is set
// smaller until it fits, then the whole text if the slide is still too tall (down to 70%, as
// beamer's shrink; the browser tests measure every slide).
function fitSlide(slide) {{
  const room = slide.clientWidth, body = slide.querySelector(".slide-body");
  if (!room || !body) return;
  slide.querySelectorAll('mjx-container[display="true"]').forEach(m => {{
    m.style.fontSize = "";
    const eqno = m.parentElement.querySelector(".eqno");
    const width = m.scrollWidth + (eqno ? 2 * eqno.offsetWidth : 0);
    if (width > room) m.style.fontSize = (100 * room / width).toFixed(1) + "%";
  }});
  body.style.fontSize = "";
  for (let f = 95; slide.scrollHeight > Reveal.getConfig().height && f >= 70; f -= 5) {{
    body.style.fontSize = (0.8 * f / 100).toFixed(3) + "em";
  }}
}}
Reveal.initialize({{width: 1280, height: 720, margin: 0.04, center: false, hash: true, slideNumber: "c/t",
                   transition: "none", plugins: [RevealNotes],
                   // a focused control of an interactive figure keeps its keys (reveal.js leaves only inputs alone)
                   keyboardCondition: e => !(e.target.closest && e.target.closest("select, input, textarea"))
                  }}).then(() => {{
  const ready = window.MathJax && MathJax.startup && MathJax.startup.promise;
  (ready || Promise.resolve()).then(() => {{
    // The print view shows every slide at once: none is hidden from assistive technology there.
    if (Reveal.isPrintView()) document.querySelectorAll(".slides section[aria-hidden]").forEach(
      s => s.removeAttribute("aria-hidden"));
    document.querySelectorAll(".slides > section").forEach(fitSlide);
    Reveal.on("slidechanged", e => fitSlide(e.currentSlide));
    Reveal.layout();
    document.body.dataset.ready = "1";
  }});
}});
</script>
</body>
</html>
"""


def mime_priorities(app, config):
    """myst-nb picks an output's mime type by builder name: the decks choose as the HTML does."""
    extra = [("slides", mime, prio) for mime, prio in base_render_priority()["html"].items()]
    config.nb_mime_priority_overrides = list(config.nb_mime_priority_overrides) + extra


def setup(app):
    app.connect("config-inited", mime_priorities)
    app.add_builder(SlidesBuilder)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
