"""The ``student`` builder: the student edition from the HTML build's resolved doctrees.

``jupyter-book build . --builder custom --custom-builder student`` (``tools/student.py``)
reuses ``_build/.doctrees``.  For each notebook page it writes ``_build/student/NN_name.ipynb``
and the answer key ``NN_name.key.ipynb`` (solution cells in the starters' place).
Markdown comes from sphinx-markdown-builder's translator, extended for sphinx-proof,
sphinx-exercise, admonitions, figures, ``\\tag{N}`` equations and "(Author, Year)"
citations (works listed at the end): numbers and reference texts are the HTML's.  Each
myst-nb code cell becomes the source cell (ids, tags, metadata; no outputs); ``remove-cell``
cells (the set-up cell) are put back; solutions (``solution`` nodes hold all of
solution-start..solution-end; cells tagged ``solution``) are left out.  A node without a
conversion keeps its content, with a warning.
"""

import copy
import re
import sys
from pathlib import Path

import answers  # _ext/answers.py: when a listing shows an exercise's answer
import nbformat
import slide_decks  # _ext/slide_decks.py: the slide markers, which the student edition leaves out
from docutils import nodes
from sphinx.util import logging
from sphinx.util.math import get_node_equation_number
from sphinx_markdown_builder import MarkdownBuilder
from sphinx_markdown_builder.contexts import SubContext
from sphinx_markdown_builder.translator import MarkdownTranslator, pushing_context, pushing_status

logger = logging.getLogger(__name__)
TOOLS = str(Path(__file__).resolve().parent.parent / "tools")
CELL, BREAK = "\x00CELL {}\x00", "\x00BREAK\x00"  # markers in the Markdown: a code cell, a caption's end
MARK = re.compile(r"^.*\x00(CELL (\d+)|BREAK)\x00.*$", re.M)
ADMONITIONS = {**{n: n.capitalize() for n in "note warning tip important caution attention danger error hint".split()},
               "seealso": "See also"}
# amsmath environments (MyST's amsmath extension passes them on unwrapped) and what
# they become inside $$...$$: Jupyter and Colab number no equation.
AMSMATH = {"equation": None, "multline": "gathered", "gather": "gathered", "align": "aligned",
           "alignat": "alignedat", "flalign": "aligned", "eqnarray": "aligned"}


def display_math(text, nowrap):
    """Display math the way Sphinx's MathJax writer wraps it, or an amsmath environment made inline-able."""
    text = text.strip("\n")
    if nowrap:
        match = re.fullmatch(r"\s*\\begin\{(\w+)(\*?)\}(.*)\\end\{\1\2\}\s*", text, re.S)
        if match and match[1] in AMSMATH:
            inner = re.sub(r"\\(?:nonumber|notag)\b|\\label\{[^}]*\}", "", match[3]).strip("\n")
            inner = inner.replace("&=&", "&=") if match[1] == "eqnarray" else inner
            target = AMSMATH[match[1]]
            return f"\\begin{{{target}}}{inner}\\end{{{target}}}" if target else inner
        return text
    parts = [p.strip() for p in re.split(r"\n[ \t]*\n", text) if p.strip()]
    wrapped = [(r"\begin{split}" + p + r"\end{split}") if "\\\\" in p else p for p in parts]
    if len(wrapped) > 1:
        return r"\begin{aligned}" + "\\\\\n".join(wrapped) + r"\end{aligned}"
    return wrapped[0] if wrapped else ""


def starts_paragraph(text):
    """True when ``text`` starts with ordinary paragraph text (a bold title can run into it)."""
    return bool(text.strip()) and not re.match(r"^\s*(\$\$|[-*+] |\d+[.)] |>|#|\||`{3}|~{3}|<|\\begin)", text)


class StudentTranslator(MarkdownTranslator):
    """sphinx-markdown-builder's translator plus the book's nodes, in Jupyter-renderable Markdown."""

    def number(self, node, key):  # Sphinx's number of a figure, equation, exercise, result, as the HTML shows it
        return ".".join(map(str, self.builder.fignumbers.get(key, {}).get((node.get("ids") or [""])[0], ())))

    def unknown_visit(self, node):  # warn, then translate the node's children
        if node.__class__.__name__ not in self._warned:
            self._warned.add(node.__class__.__name__)
            logger.warning(f"student edition: no conversion for <{node.__class__.__name__}>: its content is kept",
                           location=node)

    def unknown_departure(self, node):
        pass

    def render(self, children):
        """The Markdown of ``children`` as a string (not added to the output)."""
        self._push_context(SubContext())
        for child in children:
            if not isinstance(child, nodes.title):
                child.walkabout(self)
        return self._ctx_queue.pop().make().strip("\n")

    def quote(self, head, node, quoted=True, end="", run_in=True):
        """``head`` run into the node's first paragraph, then the rest; in a block quote when ``quoted``."""
        body = self.render(node.children)
        if head:
            body = f"{head} {body}" if run_in and starts_paragraph(body) else f"{head}\n\n{body}"
        if end:
            body += f" {end}" if starts_paragraph(body.split("\n")[-1]) else f"\n\n{end}"
        body = re.sub(r"^Proof\.", "*Proof.*", body) if end else body
        if quoted:
            body = "\n".join(("> " + line) if line.strip() else ">" for line in body.split("\n"))
        self.add(body, prefix_eol=2, suffix_eol=2)
        raise nodes.SkipNode

    def title_text(self, node):
        """The node's title as Markdown (math, emphasis and references kept)."""
        return self.render(next((c.children for c in node.children if isinstance(c, nodes.title)), [])).strip()

    def visit_container(self, node):
        if node.get("nb_element") != "cell_code":
            return
        self.add(CELL.format(node["cell_index"]), prefix_eol=2, suffix_eol=2)
        for figure in node.findall(nodes.figure):
            self.figure_caption(figure)
            self.add(BREAK, prefix_eol=2, suffix_eol=2)
        raise nodes.SkipNode

    def figure_caption(self, figure):
        for caption in figure.findall(nodes.caption):  # one at most
            number = self.number(figure, "figure")
            self.add((f"**Figure {number}.** " if number else "") + self.render(caption.children), prefix_eol=2, suffix_eol=2)

    def visit_figure(self, node):
        [image.walkabout(self) for image in node.findall(nodes.image)]
        self.figure_caption(node)
        raise nodes.SkipNode

    def visit_image(self, node):
        uri = node["uri"]
        if not re.match(r"^[a-z]+://", uri):
            uri = f"{self.builder.raw_url}/{uri.lstrip('/')}"
        self.add(f"![{node.get('alt', '')}]({uri})", prefix_eol=2, suffix_eol=2)

    @pushing_context
    def visit_title(self, node):
        super().visit_title(node)
        if isinstance(node.parent, nodes.section):
            anchor = "" if node.parent.parent is self.document else "#" + node.parent["ids"][0]
            number = self.builder.sec_numbers.get(anchor)
            if number:
                self.add(".".join(map(str, number)) + ". ")

    def visit_math_block(self, node):
        """Numbered equations get Sphinx's number as ``\\tag{}`` (MathJax in Jupyter numbers nothing)."""
        number = get_node_equation_number(self, node) if node.get("number") else ""
        math = display_math(node.astext(), node.get("nowrap")) + (f" \\tag{{{number}}}" if number else "")
        self.add(f"$$\n{math}\n$$", prefix_eol=2, suffix_eol=2)
        raise nodes.SkipNode

    @pushing_context  # as the base class's visit_comment is marked, so that its departure pops them
    @pushing_status
    def visit_comment(self, node):
        """Slide markers and speaker notes (``% slide``, ``% notes: ...``) stay out; other comments are kept."""
        if slide_decks.comment_kind(node):
            raise nodes.SkipNode
        super().visit_comment(node)

    def visit_raw(self, node):
        if node.get("format") == "html" and "<script" not in node.astext():
            self.add(node.astext(), prefix_eol=2, suffix_eol=2)
        raise nodes.SkipNode

    def visit_caption(self, node):  # a code listing's caption
        number = self.number(node.parent, "code-block")
        self.add((f"**Listing {number}.** " if number else "") + self.render(node.children), prefix_eol=2, suffix_eol=2)
        raise nodes.SkipNode

    def visit_reference(self, node):
        if "refuri" in node and not node["refuri"].startswith("#") and not node.get("citation"):
            return super().visit_reference(node)
        self._push_context(SubContext())  # same page: the text only

    visit_number_reference = visit_reference
    depart_number_reference = MarkdownTranslator._pop_context

    def depart_reference(self, node):
        self._pop_context()

    def visit_inline(self, node):
        if "bibtex-citation" not in node.get("classes", []):
            return
        # "[Dempster et al., 1977]" in the HTML -> "(Dempster et al., 1977)"; the works are listed at the end.
        for ref in node.findall(nodes.reference):
            self.builder.cited[ref.get("refuri", ref.astext())] = ref.get("reftitle", ref.astext())
            ref["citation"] = True
        for text in [c for c in node.children if isinstance(c, nodes.Text)]:
            node.replace(text, nodes.Text(re.sub(r"^, $", "; ", str(text)).replace("[", "(").replace("]", ")")))

    def visit_proof_node(self, node):
        self.quote("", node.next_node(nodes.admonition) or node, quoted=False, end="\u220e")

    def visit_admonition(self, node):
        self.quote(f"**{self.title_text(node)}**" if self.title_text(node) else "", node, run_in=False)

    def visit_exercise_enumerable_node(self, node):
        if node.get("label"):
            self.builder.posed[node["label"]] = self.number(node, "exercise")
        head = f"### Exercise {self.number(node, 'exercise')} {self.title_text(node)}".replace("  ", " ").rstrip()
        self.add(f"{head}\n\n{self.render(node.children)}", prefix_eol=2, suffix_eol=2)
        raise nodes.SkipNode

    visit_exercise_unenumerable_node = visit_exercise_enumerable_node

    def visit_literal_block(self, node):
        """A listing (or code fence) that shows the answer to an exercise posed above it on the page is
        left out, with a sentence pointing to the web page (the HTML keeps it after the folded solution)."""
        source = node.get("listing_source", "")
        for label, number in self.builder.posed.items():
            info = self.builder.exercises.get(label, {})
            if answers.shows_answer(node.astext(), info.get("names", ()), info.get("forbid", ()),
                                    info.get("solution", ""), source):
                shown = f"`{answers.dotted(source)}`" if answers.dotted(source) else "code"
                self.add(f"*{LEFT_OUT.format(what=shown, number=number, url=self.builder.get_target_uri(self.builder.current_docname))}*",
                         prefix_eol=2, suffix_eol=2)
                raise nodes.SkipNode
        return super().visit_literal_block(node)
    visit_target = visit_solution_node = MarkdownTranslator._skip  # anchors; solutions are left out

    def dispatch_visit(self, node):
        name = node.__class__.__name__
        if name.endswith("_node") and node.get("realtype"):  # a sphinx-proof result: theorem, lemma, ...
            kind = node["realtype"]
            number = self.number(node, node.get("countertype", kind))
            title = self.title_text(node)
            head = f"**{kind.capitalize()}{' ' + number if number else ''}{' ' + title if title else ''}.**"
            self.quote(head, node)
        if name in ADMONITIONS:
            self.quote(f"**{ADMONITIONS[name]}**", node, run_in=False)
        return super().dispatch_visit(node)


class StudentBuilder(MarkdownBuilder):
    """Writes ``<stem>.ipynb`` and ``<stem>.key.ipynb`` for every page with a MyST notebook source."""

    name = "student"
    format = "student"
    default_translator_class = StudentTranslator

    def init(self):
        super().init()
        import book  # tools/book.py

        self.book = book
        self.sources = {p.relative_to(book.ROOT).with_suffix("").as_posix(): p for p in book.chapter_sources()}
        url = book.repository_url()
        owner, repo = re.match(r"https?://github\.com/([^/]+)/([^/#?]+?)(?:\.git)?$", url).groups()
        self.owner, self.repo, self.branch = owner, repo, book.repository_branch()
        self.pages_url = book.pages_url()
        self.raw_url = f"https://raw.githubusercontent.com/{owner}/{repo}/{self.branch}"

    def get_outdated_docs(self):  # every page: writing is cheap
        return sorted(d for d in self.env.found_docs if d in self.sources)

    def get_target_uri(self, docname, typ=None):  # references to other pages link to the HTML
        return f"{self.pages_url}/{docname}.html"

    def get_relative_uri(self, from_, to, typ=None):
        return self.get_target_uri(to)

    def write_doc(self, docname, doctree):
        if docname not in self.sources:
            return
        self.sec_numbers = self.env.toc_secnumbers.get(docname, {})
        self.fignumbers = self.env.toc_fignumbers.get(docname, {})
        self.cited = {}
        self.current_docname = docname
        self.posed = {}  # label -> number of each exercise met so far on the page
        self.exercises = exercise_info(doctree, self.book.read_source(self.sources[docname]).cells)
        visitor = self.create_translator(doctree, self)
        doctree.walkabout(visitor)
        student, key = make_cells(self, docname, doctree, visitor.astext(), self.book.read_source(self.sources[docname]).cells)
        for cells, suffix in ((student, ""), (key, ".key")):
            nb = nbformat.v4.new_notebook(cells=cells)
            nb.metadata = {"kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"},
                           "language_info": {"name": "python"},
                           "genmodels": {"page": Path(docname).name}}  # the grader (grader/find.py): the page of this edition
            nbformat.validate(nb)
            out = Path(self.outdir) / f"{Path(docname).name}{suffix}.ipynb"
            out.with_suffix(".tmp").write_text(nbformat.writes(nb) + "\n")
            out.with_suffix(".tmp").replace(out)  # readers never see a half-written notebook


LEFT_OUT = ("The book shows here the listing of {what}, which answers Exercise {number}; it is left out of the "
            "student edition. Read it on the book's page, <{url}>, after the exercise's solution.")


def exercise_info(doctree, cells):
    """Exercise label -> what the exercise asks for: ``names`` (the functions its starters define),
    ``forbid`` (the ``lib`` functions its check forbids), ``solution`` (its solution cells)."""
    owner, solutions, _ = exercise_cells(doctree, cells)
    info = {}
    for i, label in owner.items():
        if not label:
            continue
        entry = info.setdefault(label, {"names": [], "forbid": (), "solution": "\n\n".join(solutions.get(label, []))})
        tags = cells[i].metadata.get("tags", [])
        if "starter" in tags:
            entry["names"] += answers.RE_DEF.findall(cells[i].source)
        if "check" in tags:
            match = re.search(r"lib\.checks\.(\w+)\s*\(", cells[i].source)
            if match:
                import lib.checks

                entry["forbid"] = tuple(getattr(getattr(lib.checks, match[1], None), "forbid", ()))
    return info


def exercise_cells(doctree, cells):
    """(cell index -> exercise label, exercise label -> solution sources, indices of every cell in the doctree)."""
    owner, solutions, seen, label = {}, {}, set(), None
    for node in doctree.findall(lambda n: isinstance(n, nodes.Element)):
        if node.__class__.__name__.startswith("exercise_") and node.get("label"):
            label = node["label"]
        elif node.__class__.__name__ == "solution_node":
            for cell in node.findall(lambda n: isinstance(n, nodes.container) and n.get("nb_element") == "cell_code"):
                if "solution" in cells[cell["cell_index"]].metadata.get("tags", []):
                    solutions.setdefault(node.get("target_label") or label, []).append(cells[cell["cell_index"]].source)
        elif isinstance(node, nodes.container) and node.get("nb_element") == "cell_code":
            shown = [c.astext().strip() for c in node.children if c.get("nb_element") == "cell_code_source"]
            if cells[node["cell_index"]].cell_type != "code" or shown[:1] not in ([], [cells[node["cell_index"]].source.strip()]):
                logger.warning(f"student edition: cell {node['cell_index']} of the built notebook is not the "
                               "source's: re-execute the page (tools/book.py execute)", location=node)
            owner[node["cell_index"]] = label
            seen.add(node["cell_index"])
    return owner, solutions, seen


def make_cells(builder, docname, doctree, markdown, cells):
    """(student cells, answer-key cells) from the translated Markdown with its cell markers."""
    owner, solutions, seen = exercise_cells(doctree, cells)
    # Cells the HTML does not show (remove-cell: the set-up cell) go back in source order.
    hidden = [i for i, c in enumerate(cells) if c.cell_type == "code" and i not in seen
              and "solution" not in c.metadata.get("tags", [])]
    student = [nbformat.v4.new_markdown_cell(banner(builder, docname, cells), id="student-edition")]
    key, starters = list(student), {}
    pieces = MARK.split(markdown)  # text, marker, index, text, ...
    md_id, previous = cells[0].id if cells else "cell-000", None

    def after(i):  # the id of the Markdown that follows code cell i: the source's next cell's
        return cells[i + 1].id if i + 1 < len(cells) and cells[i + 1].cell_type == "markdown" else f"{cells[i].id}-md"

    def add_markdown(text, cell_id):
        text = "\n".join(line.rstrip() for line in text.strip("\n").split("\n"))
        while any(c.id == cell_id for c in student):
            cell_id += "-"
        if text.strip():
            cell = nbformat.v4.new_markdown_cell(text, id=cell_id)
            student.append(cell)
            key.append(cell)

    def add_code(i):
        cell = cells[i]
        new = nbformat.v4.new_code_cell(cell.source, id=cell.id)
        new.metadata = copy.deepcopy(dict(cell.metadata))
        tags = cell.metadata.get("tags", [])
        if set(tags) & slide_decks.CELL_TAGS:  # what goes on the lecture slides is no student's business
            new.metadata["tags"] = [t for t in tags if t not in slide_decks.CELL_TAGS]
            if not new.metadata["tags"]:
                del new.metadata["tags"]
        if "check" in tags and owner.get(i):
            new.metadata["exercise"] = owner[i]  # the grader (grader/find.py): which exercise this checks
        student.append(new)
        if "starter" in tags and owner.get(i):
            starters.setdefault(owner[i], []).append(len(key))
        key.append(new)

    # The set-up cell follows the page's title: split the title off the text after it.
    head, _, rest = pieces[0].strip("\n").partition("\n")
    if hidden and len(cells) > hidden[0] + 1 and head.startswith("# ") \
            and re.fullmatch(r"(\(\S+\)=\s*)*#[^\n]*", cells[hidden[0] - 1].source.strip()):
        add_markdown(head, md_id)
        md_id = after(hidden[0])
        add_code(hidden.pop(0))
        pieces[0] = rest
    add_markdown(pieces[0], md_id)
    for j in range(1, len(pieces), 3):
        index, text = pieces[j + 1], pieces[j + 2]
        caption = j + 4 < len(pieces) and pieces[j + 4] is None  # the next marker ends a figure caption
        if index is None:
            md_id = after(previous) if previous is not None else "student-md"
        else:
            previous = i = int(index)
            while hidden and hidden[0] < i:
                add_code(hidden.pop(0))
            if "solution" not in cells[i].metadata.get("tags", []):
                add_code(i)
            md_id = f"{cells[i].id}-caption" if caption else after(i)
        add_markdown(text, md_id)
    for i in hidden:
        add_code(i)
    if builder.cited:
        works = "\n".join(f"- {work}" for work in dict.fromkeys(builder.cited.values()))
        add_markdown("**References**\n\n" + works, "student-references")
    # The answer key: each exercise's solution cells in its starters' place (all in the first if the counts differ).
    drop = set()
    for label, positions in starters.items():
        sources = solutions.get(label) or [None] * len(positions)
        if len(sources) != len(positions):
            sources, drop = ["\n\n".join(sources)], drop | set(positions[1:])
        for position, source in zip(positions, sources):
            key[position] = copy.deepcopy(key[position])
            key[position].source = source or key[position].source
    key = [c for n, c in enumerate(key) if n not in drop]
    return student, key


SETUP = ("Run the cells in order from the top. The first code cell installs the companion library `lib` on "
         "Colab or Binder (it does nothing where `lib` is already installed).")
HOWTO = """

**How to do the exercises.** The solutions are not in this notebook. For each exercise:

1. edit the **starter cell** (the code cell that ends the exercise statement): replace \
`raise NotImplementedError` (or the `...`) with your code, then run the cell;
2. run the **check cell** that follows (`lib.checks.<name>(...)`): it prints `[PASSED]` with what was \
checked, `[NOT YET]` with the first problem it found, or `[TO DO]` while the starter is unchanged;
3. if you change an earlier cell, run it again before the check.

A check tests your code on a few generated inputs: a pass is good evidence, not a proof."""
VARIANTS = """

**Your numbers.** An exercise whose answer is a number starts with a **variant cell**, \
`lib.checks.variant("ex-...", seed=...)`, that prints the numbers to use; its check judges that variant. \
Seed 0 gives the book's numbers. If your course handed you this notebook, the seed is yours: leave the \
cell as it is."""


def banner(builder, docname, cells):
    """The first cell: what this notebook is, how to do the exercises, the HTML page."""
    title = builder.env.titles[docname].astext()
    number = ".".join(map(str, builder.env.toc_secnumbers.get(docname, {}).get("", ())))
    if "." in number:
        name = f"Section {number}, *{title}*, of Chapter {number.split('.')[0]}"
    else:
        name = f"Chapter {number}, *{title}*" if number else f"*{title}*"
    has_exercises = any("starter" in c.metadata.get("tags", []) for c in cells if c.cell_type == "code")
    has_variants = any("variant" in c.metadata.get("tags", []) for c in cells if c.cell_type == "code")
    book_title = builder.config.html_title or builder.config.project
    source = "" if title.casefold() == book_title.casefold() else f", from *{book_title}*"
    folded = " and the worked solutions folded away" if has_exercises else ""
    student = f"student/{Path(docname).name}.ipynb"
    launch = (builder.config.html_theme_options or {}).get("launch_buttons") or {}
    repo = f"{builder.owner}/{builder.repo}"
    links = [f"[{name}]({launch[key].rstrip('/')}{path})" for name, key, path in (
        ("Colab", "colab_url", f"/github/{repo}/blob/{builder.branch}/{student}"),
        ("Binder", "binderhub_url", f"/v2/gh/{repo}/{builder.branch}?urlpath=tree/{student}")) if launch.get(key)]
    text = (f"**Student edition** of {name}{source}. The book page, with every output{folded}, is "
            f"<{builder.get_target_uri(docname)}>.\n\n" + SETUP
            + (f" Open this notebook on {' or '.join(links)}." if links else "") + (HOWTO if has_exercises else "")
            + (VARIANTS if has_variants else ""))
    return "\n".join(("> " + line) if line else ">" for line in text.split("\n"))


def _quiet_outputs(app):  # outputs are not written: no mime type to choose
    if app.builder.name == "student":
        app.config.suppress_warnings = [*app.config.suppress_warnings, "mystnb.mime_priority"]


def setup(app):
    sys.path[:0] = [] if TOOLS in sys.path else [TOOLS]  # tools/book.py
    app.setup_extension("sphinx_markdown_builder")
    app.add_builder(StudentBuilder)
    app.connect("builder-inited", _quiet_outputs)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
