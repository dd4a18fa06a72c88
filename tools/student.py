"""Build the student edition of the book: one plain Jupyter notebook per chapter.

    python tools/student.py [chapters/NN_name.md ...]
    python tools/student.py --check

The student notebook ``student/NN_name.ipynb`` is made from the chapter's
MyST source (never from the executed notebook), is not executed and carries
no outputs: students run it.  Compared with the source it

* starts with a Markdown cell saying what the student edition is, how to do
  the exercises and where the chapter's HTML page is;
* drops the solutions: every cell tagged ``solution`` and everything between
  ``{solution-start}`` and ``{solution-end}`` (code cells and Markdown,
  across cells), and every ``{solution}`` directive;
* keeps the set-up cell, the starter cells and the check cells unchanged
  (code cells are copied as they are, only their outputs are emptied);
* turns every piece of MyST syntax into Markdown that Jupyter and Colab
  render, with the numbers the HTML book shows: admonitions become block
  quotes, ``prf:`` results "**Theorem 4.2 (title).**", exercises
  "### Exercise 4.3 (title)", labelled equations get ``\\tag{4.2}``,
  ``{eq}``/``{numref}``/``{prf:ref}``/``{ref}``/``{doc}`` become text (links
  to the HTML page when the target is in another chapter), ``{cite}`` becomes
  "(Author, Year)" with the cited works listed, ``{literalinclude}`` becomes
  the included code, figure cells get their caption as a Markdown cell below.

Numbers follow the HTML: chapters are numbered by their position in the
numbered parts of ``_toc.yml``; equations, figures, tables and exercises are
numbered per chapter in order of appearance; ``prf:`` results per type.

The output is deterministic (stable cell ids ``cell-NNN`` taken from the
source, sorted keys): regenerating an unchanged book rewrites no byte.
``--check`` exits with status 1 naming every student notebook that is
missing, differs from what would be generated, or has no chapter any more.

``build(md, with_solutions=True)`` makes the answer-key variant used by the
tests: the same notebook with each exercise's starter cells replaced by its
solution cells.
"""

import argparse
import copy
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "_ext"))

import book  # noqa: E402  (tools/book.py)
import listings  # noqa: E402  (_ext/listings.py: Sphinx's literalinclude, as the HTML shows it)

ROOT = book.ROOT
CHAPTERS = book.CHAPTERS
STUDENT = ROOT / "student"

# ------------------------------------------------------------------ syntax --

ADMONITIONS = {
    "note": "Note", "warning": "Warning", "tip": "Tip", "important": "Important",
    "caution": "Caution", "attention": "Attention", "danger": "Danger", "error": "Error",
    "hint": "Hint", "seealso": "See also", "admonition": "", "dropdown": "", "toggle": "",
    "margin": "", "sidebar": "", "topic": "", "epigraph": "", "pull-quote": "", "highlights": "",
}
# sphinx-proof directive -> the name the HTML shows.
PROOF_TYPES = {
    "theorem": "Theorem", "lemma": "Lemma", "corollary": "Corollary", "definition": "Definition",
    "proposition": "Proposition", "remark": "Remark", "example": "Example", "conjecture": "Conjecture",
    "axiom": "Axiom", "criterion": "Criterion", "algorithm": "Algorithm", "observation": "Observation",
    "property": "Property", "assumption": "Assumption", "notation": "Notation",
}
# Python-domain roles: shown as inline code.
PY_ROLES = {"mod", "func", "class", "meth", "attr", "obj", "data", "exc", "const", "any"}
# Directives whose content is not Markdown (kept or transformed verbatim).
LITERAL_DIRECTIVES = {
    "code-block", "code", "sourcecode", "literalinclude", "math", "raw", "bibliography",
    "list-table", "eval-rst", "toctree", "tableofcontents", "csv-table", "glue:math",
}
# amsmath environments MyST accepts at the top level of Markdown, and what
# they become inside $$...$$ (Jupyter and Colab do not number equations).
AMSMATH = {
    "equation": None, "multline": "gathered", "gather": "gathered", "align": "aligned",
    "alignat": "alignedat", "flalign": "aligned", "eqnarray": "aligned", "matrix": "matrix",
    "pmatrix": "pmatrix", "bmatrix": "bmatrix", "Bmatrix": "Bmatrix", "vmatrix": "vmatrix",
    "Vmatrix": "Vmatrix",
}

RE_DIRECTIVE = re.compile(r"^(?P<indent>[ \t]*)(?P<fence>`{3,}|:{3,})\{(?P<name>[^}\s]+)\}[ \t]*(?P<arg>.*?)\s*$")
RE_FENCE = re.compile(r"^(?P<indent>[ \t]*)(?P<fence>`{3,}|~{3,})(?P<info>[^`]*)$")
RE_TARGET = re.compile(r"^[ \t]*\((?P<label>[^()\s]+)\)=[ \t]*$")
RE_HEADING = re.compile(r"^(?P<hashes>#{1,6})[ \t]+(?P<title>.*?)(?:[ \t]+#+)?[ \t]*$")
RE_AMS_OPEN = re.compile(r"^[ \t]{0,3}\\begin\{(?P<env>" + "|".join(AMSMATH) + r")(?P<star>\*?)\}")
RE_DOLLAR_CLOSE = re.compile(r"^(?P<body>.*?)\$\$[ \t]*(?:\((?P<label>[^()\s]+)\))?[ \t]*$")
RE_OPTION = re.compile(r"^[ \t]*:(?P<key>[\w-]+):(?:[ \t]+(?P<value>.*?))?[ \t]*$")
# A role, inline code (where roles are not recognised), or a Markdown link.
# Inline math needs no protection: a role needs a backtick, which TeX does not use.
RE_INLINE = re.compile(
    r"\{(?P<role>[a-zA-Z][\w:+-]*)\}`(?P<content>[^`]*)`"
    r"|(?P<code>`+)(?:.*?[^`])?(?P=code)(?!`)"
    r"|\[(?P<text>[^\]\n]*)\]\((?P<href>[^)\s]+)\)",
    re.S,
)


@dataclass
class Block:
    """One block of a Markdown cell.

    ``kind`` is ``text`` (plain lines), ``fence`` (a code fence, verbatim),
    ``directive``, ``dollarmath``, ``amsmath``, ``target`` or ``heading``.
    Numbering fills ``number`` (e.g. ``"4.2"``); directives with Markdown
    content have their content parsed into ``children``.
    """

    kind: str
    lines: list = field(default_factory=list)
    indent: str = ""
    name: str = ""
    arg: str = ""
    options: dict = field(default_factory=dict)
    content: list = field(default_factory=list)
    children: list = field(default_factory=list)
    label: str = ""
    number: str = None
    level: int = 0
    title: str = ""


def _closing(lines, start, char, width):
    """Index of the line closing a fence of ``width`` ``char``s opened before ``start``."""
    pattern = re.compile(r"^[ \t]*" + re.escape(char) + "{" + str(width) + r",}[ \t]*$")
    for i in range(start, len(lines)):
        if pattern.match(lines[i]):
            return i
    return len(lines)


def _dedent(lines, indent):
    return [line[len(indent):] if line.startswith(indent) else line.lstrip() for line in lines]


def _parse_options(body):
    """Split a directive body into (options, content lines): ``:key: value`` lines or a YAML block."""
    options = {}
    i = 0
    if body and body[0].strip() == "---":
        import yaml

        end = next((j for j in range(1, len(body)) if body[j].strip() == "---"), None)
        if end is not None:
            options = yaml.safe_load("\n".join(body[1:end])) or {}
            i = end + 1
    else:
        while i < len(body):
            match = RE_OPTION.match(body[i])
            if not match:
                break
            options[match["key"]] = (match["value"] or "").strip()
            i += 1
    content = body[i:]
    while content and not content[0].strip():
        content = content[1:]
    while content and not content[-1].strip():
        content = content[:-1]
    return options, content


def parse_markdown(text):
    """Parse MyST Markdown into a list of :class:`Block` (nested for directives)."""
    lines = text.split("\n")
    blocks = []
    plain = []

    def flush():
        if plain:
            blocks.append(Block("text", lines=list(plain)))
            plain.clear()

    i = 0
    while i < len(lines):
        line = lines[i]
        directive = RE_DIRECTIVE.match(line)
        fence = None if directive else RE_FENCE.match(line)
        if directive:
            flush()
            end = _closing(lines, i + 1, directive["fence"][0], len(directive["fence"]))
            indent = directive["indent"]
            options, content = _parse_options(_dedent(lines[i + 1:end], indent))
            block = Block("directive", lines=lines[i:end + 1], indent=indent, name=directive["name"],
                          arg=directive["arg"], options=options, content=content)
            block.label = str(options.get("label") or options.get("name") or "").strip()
            if block.name not in LITERAL_DIRECTIVES:
                block.children = parse_markdown("\n".join(content))
            blocks.append(block)
            i = end + 1
        elif fence:
            flush()
            end = _closing(lines, i + 1, fence["fence"][0], len(fence["fence"]))
            blocks.append(Block("fence", lines=lines[i:end + 1]))
            i = end + 1
        elif line.lstrip().startswith("$$"):
            flush()
            indent = line[: len(line) - len(line.lstrip())]
            rest = line.lstrip()[2:]
            close = RE_DOLLAR_CLOSE.match(rest)
            if close:  # $$ ... $$ (label) on one line
                body, label, end = [close["body"]], close["label"], i
            else:
                body, end = [rest], i + 1
                while end < len(lines) and not RE_DOLLAR_CLOSE.match(lines[end]):
                    body.append(lines[end])
                    end += 1
                close = RE_DOLLAR_CLOSE.match(lines[end]) if end < len(lines) else None
                if close:
                    body.append(close["body"])
                label = close["label"] if close else None
            content = "\n".join(body).strip("\n")
            blocks.append(Block("dollarmath", lines=lines[i:end + 1], indent=indent,
                                content=[content], label=label or ""))
            i = end + 1
        elif RE_AMS_OPEN.match(line):
            flush()
            match = RE_AMS_OPEN.match(line)
            closing = "\\end{" + match["env"] + match["star"] + "}"
            end = i
            while end < len(lines) and not lines[end].rstrip().endswith(closing):
                end += 1
            body = lines[i:end + 1]
            blocks.append(Block("amsmath", lines=body, name=match["env"], arg=match["star"],
                                content=["\n".join(body)]))
            i = end + 1
        elif RE_TARGET.match(line):
            flush()
            blocks.append(Block("target", lines=[line], label=RE_TARGET.match(line)["label"]))
            i += 1
        elif RE_HEADING.match(line):
            flush()
            match = RE_HEADING.match(line)
            blocks.append(Block("heading", lines=[line], level=len(match["hashes"]), title=match["title"]))
            i += 1
        elif line.lstrip().startswith("%") or line.strip() == "+++" or line.startswith("+++ {"):
            i += 1  # a MyST comment or a cell break: nothing to show
        else:
            plain.append(line)
            i += 1
    flush()
    return blocks


# --------------------------------------------------------------- numbering --

@dataclass
class Target:
    """Something a cross-reference can point at, with the text the HTML shows."""

    kind: str  # equation, section, figure, table, code-block, exercise, proof, other
    docname: str
    anchor: str
    number: str = None
    name: str = ""  # "Theorem", "Exercise", "Figure", ...
    title: str = ""

    def numbered(self):
        """'Theorem 4.2', 'Figure 1.1', '(2.3)', or the name alone / title when it has no number."""
        if self.kind == "equation":
            return f"({self.number})" if self.number else self.title
        if self.number:
            return f"{self.name} {self.number}"
        return self.title if self.kind == "section" else (self.name or self.title)

    def default_text(self):
        """What ``{ref}`label``` and ``[](#label)`` show: a title for sections, figures and tables."""
        if self.kind in ("section", "figure", "table") and self.title:
            return self.title
        return self.numbered()


class Counters:
    """Per-chapter counters that give the numbers the HTML shows.

    Sphinx numbers figures, equations, exercises and results with the
    chapter's number as prefix (``numfig_secnum_depth: 1``) and one count per
    chapter that runs on across the chapter's section pages in _toc order:
    the chapter page and its section pages share one ``Counters``.
    """

    def __init__(self, chapter):
        self.prefix = f"{chapter}." if chapter else ""
        self.counts = {}

    def next(self, kind):
        self.counts[kind] = self.counts.get(kind, 0) + 1
        return f"{self.prefix}{self.counts[kind]}"


def _is_true(value):
    return value is not None and str(value).strip().lower() not in ("false", "0", "no")


@dataclass
class Document:
    """A chapter (or plain Markdown page) parsed and numbered."""

    path: Path
    docname: str
    chapter: str  # "4", or None for an unnumbered page
    title: str
    items: list  # ("markdown", cell, blocks) or ("code", cell, None)
    targets: dict
    figure_numbers: dict  # code cell id -> figure number
    secnum: str = None  # the page's own number: "4" for a chapter page, "4.6" for a section page
    sections: int = 0  # how many top-level (##) sections the page has


def _number(doc_items, docname, chapter, secnum=None, counters=None):
    """Number headings, equations, results, exercises, figures and tables in document order.

    ``chapter`` is the chapter's number (the prefix of figures, equations,
    ...); ``secnum`` the page's own number, which heads its section numbers
    ("4" on a chapter page, "4.6" on a section page: its ``##`` sections are
    4.6.1, ...); ``counters`` carries the chapter's counts over from the
    pages before this one.  Returns the targets (label -> :class:`Target`),
    the figure numbers of code cells (cell id -> number), the page title and
    the number of top-level sections.  Numbers are stored on the blocks for
    rendering.  Solutions are numbered too: the HTML shows them.
    """
    secnum = secnum or chapter
    counters = counters if counters is not None else Counters(chapter)
    targets = {}
    figures = {}
    sections = [0] * 7
    pending = []  # (label) = targets waiting for the next block
    state = {"title": ""}

    def attach(target):
        for label in pending:
            targets[label] = Target(target.kind, docname, label, target.number, target.name, target.title)
        pending.clear()

    def walk(blocks, top):
        for block in blocks:
            if block.kind == "target":
                pending.append(block.label)
                continue
            if block.kind == "heading" and top:
                title = block.title
                if block.level == 1:
                    state["title"] = state["title"] or title
                    block.number = secnum
                    sections[1:] = [0] * 6
                else:
                    sections[block.level] += 1
                    sections[block.level + 1:] = [0] * (6 - block.level)
                    if secnum:
                        block.number = ".".join([secnum] + [str(max(n, 1)) for n in sections[2:block.level + 1]])
                slug = re.sub(r"[^\w\s-]", "", title.lower()).strip()
                attach(Target("section", docname, re.sub(r"[\s_]+", "-", slug), block.number, "Section", title))
                continue
            if block.kind == "dollarmath" and block.label:
                block.number = counters.next("equation")
                targets[block.label] = Target("equation", docname, f"equation-{block.label}", block.number,
                                              "Equation")
            elif block.kind == "amsmath" and not block.arg:
                block.number = counters.next("equation")
            elif block.kind == "directive":
                name = block.name
                kind = None
                if name == "math" and block.label:
                    kind, shown = "equation", "Equation"
                elif name.startswith("prf:") and name[4:] in PROOF_TYPES:
                    kind, shown = "proof:" + name[4:], PROOF_TYPES[name[4:]]
                elif name in ("exercise", "exercise-start"):
                    kind, shown = "exercise", "Exercise"
                elif name == "figure" and block.content:
                    kind, shown = "figure", "Figure"
                elif name in ("table", "list-table", "csv-table") and block.arg:
                    kind, shown = "table", "Table"
                elif name in ("code-block", "code", "literalinclude") and block.options.get("caption"):
                    kind, shown = "code-block", "Listing"
                if kind and not _is_true(block.options.get("nonumber")):
                    block.number = counters.next(kind)
                if kind:
                    title = block.arg if kind != "figure" else " ".join(block.content).strip()
                    anchor = f"equation-{block.label}" if kind == "equation" else block.label
                    target = Target(kind.split(":")[0], docname, anchor, block.number, shown, title)
                    if block.label:
                        targets[block.label] = target
                    attach(target)
                walk(block.children, False)
            pending.clear()

    for kind, cell, blocks in doc_items:
        if kind == "markdown":
            walk(blocks, True)
            continue
        figure = (cell.metadata.get("mystnb") or {}).get("figure") or {}
        if figure.get("caption"):
            figures[cell.id] = counters.next("figure")
        if figure.get("name"):
            targets[str(figure["name"])] = Target("figure", docname, str(figure["name"]), figures.get(cell.id),
                                                  "Figure", str(figure.get("caption", "")).strip())
    return targets, figures, state["title"], sections[2]


def make_document(nb, path, docname, chapter, secnum=None, counters=None):
    """Parse and number the notebook ``nb`` of the page ``docname``.

    ``chapter`` is the chapter number (``None`` for an unnumbered page),
    ``secnum`` the page's number when it is a section page ("4.6"), and
    ``counters`` the chapter's :class:`Counters` after its earlier pages.
    """
    items = []
    for cell in nb.cells:
        if cell.cell_type == "markdown":
            items.append(("markdown", cell, parse_markdown(cell.source)))
        elif cell.cell_type == "code":
            items.append(("code", cell, None))
    targets, figures, title, sections = _number(items, docname, chapter, secnum, counters)
    return Document(Path(path), docname, chapter, title, items, targets, figures, secnum or chapter, sections)


# ------------------------------------------------------------------- book --

def toc_chapters():
    """[(docname, [section docnames]), ...] for the numbered parts of _toc.yml, in order.

    Numbering continues across numbered parts (sphinx-multitoc-numbering);
    a chapter's ``sections:`` are its section pages.
    """
    import yaml

    toc = yaml.safe_load((ROOT / "_toc.yml").read_text())
    parts = toc.get("parts") or [{"chapters": toc.get("chapters") or [], "numbered": toc.get("numbered")}]
    chapters = []
    for part in parts:
        if not part.get("numbered"):
            continue
        for entry in part.get("chapters") or []:
            if "file" in entry:
                sections = [str(Path(s["file"]).with_suffix("")) for s in entry.get("sections") or []
                            if "file" in s]
                chapters.append((str(Path(entry["file"]).with_suffix("")), sections))
    return chapters


def _toc_chapter_numbers():
    """docname -> chapter number (str) for every chapter and section page in a numbered part."""
    numbers = {}
    for count, (chapter, sections) in enumerate(toc_chapters(), start=1):
        for docname in [chapter, *sections]:
            numbers[docname] = str(count)
    return numbers


def _strip_tex(text):
    """Remove BibTeX braces and the commonest accent commands."""
    accents = {"\"": "\u0308", "'": "\u0301", "`": "\u0300", "^": "\u0302", "~": "\u0303", "c": "\u0327"}
    import unicodedata

    def accent(match):
        return unicodedata.normalize("NFC", match["char"] + accents[match["cmd"]])

    text = re.sub(r"\{?\\(?P<cmd>[\"'`^~c])\s*\{?(?P<char>[A-Za-z])\}?\}?", accent, text)
    text = text.replace("--", "\u2013").replace("\\&", "&").replace("~", "\u00a0")
    return re.sub(r"\s+", " ", text.replace("{", "").replace("}", "")).strip()


def parse_bib(text):
    """A small BibTeX reader: key -> {field: value} (braces kept, ``type`` added)."""
    entries = {}
    for match in re.finditer(r"@(?P<type>\w+)\s*\{\s*(?P<key>[^,\s]+)\s*,", text):
        if match["type"].lower() in ("comment", "string", "preamble"):
            continue
        fields = {"type": match["type"].lower()}
        i = match.end()
        while True:
            field_match = re.compile(r"\s*(?P<name>[\w-]+)\s*=\s*").match(text, i)
            if not field_match:
                break
            i = field_match.end()
            if text[i] == "{":
                depth, j = 0, i
                while j < len(text):
                    depth += {"{": 1, "}": -1}.get(text[j], 0)
                    if depth == 0:
                        break
                    j += 1
                value, i = text[i + 1:j], j + 1
            elif text[i] == '"':
                j = text.index('"', i + 1)
                value, i = text[i + 1:j], j + 1
            else:
                bare = re.compile(r"[^,}\s]+").match(text, i)
                value, i = bare.group(0), bare.end()
            fields[field_match["name"].lower()] = value
            comma = re.compile(r"\s*,").match(text, i)
            if not comma:
                break
            i = comma.end()
        entries[match["key"]] = fields
    return entries


def _split_names(names):
    """BibTeX author list -> [(last, first), ...]."""
    parts, depth, current = [], 0, ""
    for token in re.split(r"(\s+and\s+|[{}])", names):
        if token == "{":
            depth += 1
        elif token == "}":
            depth -= 1
        if depth == 0 and re.fullmatch(r"\s+and\s+", token or ""):
            parts.append(current)
            current = ""
        else:
            current += token or ""
    parts.append(current)
    people = []
    for name in (p.strip() for p in parts if p.strip()):
        if "," in name:
            last, first = name.split(",", 1)
        else:
            words = name.rsplit(" ", 1) if not name.startswith("{") else [name]
            first, last = (words[0], words[1]) if len(words) == 2 else ("", words[0])
        people.append((_strip_tex(last), _strip_tex(first)))
    return people


class Bibliography:
    """Author-year citations and reference-list lines from references.bib."""

    def __init__(self, path):
        self.entries = parse_bib(path.read_text()) if path.exists() else {}

    def _people(self, key):
        entry = self.entries.get(key, {})
        return _split_names(entry.get("author") or entry.get("editor") or "")

    def author(self, key):
        people = self._people(key)
        if not people:
            return _strip_tex(self.entries.get(key, {}).get("title", key))
        if len(people) == 1:
            return people[0][0]
        if len(people) == 2:
            return f"{people[0][0]} and {people[1][0]}"
        return f"{people[0][0]} et al."

    def year(self, key):
        return _strip_tex(self.entries.get(key, {}).get("year", "n.d."))

    def cite(self, role, keys):
        """The text of ``{cite:role}`key1,key2``` in the book's author-year style."""
        known = [k for k in keys if k in self.entries]
        if not known:
            return ", ".join(keys)
        if role in ("t", "ts", "alt", "alts"):
            return ", ".join(f"{self.author(k)} ({self.year(k)})" for k in known)
        if role in ("author", "authors"):
            return ", ".join(self.author(k) for k in known)
        if role == "year":
            return ", ".join(self.year(k) for k in known)
        if role == "yearpar":
            return "(" + "; ".join(self.year(k) for k in known) + ")"
        inner = "; ".join(f"{self.author(k)}, {self.year(k)}" for k in known)
        return inner if role in ("alp", "alps") else f"({inner})"

    def reference(self, key):
        """One line of a reference list: 'Bishop, C. M. (2006). *Title*. Publisher.'"""
        entry = self.entries.get(key, {})
        names = []
        for last, first in self._people(key):
            initials = " ".join(w[0] + "." for w in re.split(r"[\s.]+", first) if w and w[0].isalpha())
            names.append(f"{last}, {initials}".strip(", "))
        authors = ", ".join(names[:-1]) + (" and " if len(names) > 1 else "") + (names[-1] if names else "")
        title = _strip_tex(entry.get("title", key))
        venue = entry.get("journal") or entry.get("booktitle") or entry.get("publisher") \
            or entry.get("howpublished") or entry.get("school") or entry.get("institution") or ""
        line = f"{authors} ({self.year(key)}). "
        line += f"*{title}*." if entry.get("type") in ("book", "phdthesis") else f"{title}."
        if venue and entry.get("type") not in ("book",):
            line += f" *{_strip_tex(venue)}*."
        elif entry.get("publisher"):
            line += f" {_strip_tex(entry['publisher'])}."
        if entry.get("doi"):
            line += f" https://doi.org/{entry['doi']}"
        elif entry.get("url"):
            line += f" {entry['url']}"
        return line


class Book:
    """Everything a chapter's conversion needs from the whole book.

    Parses and numbers every page under chapters/ once: labels from one
    chapter are referred to from others.
    """

    def __init__(self):
        url = book.repository_url()
        match = re.match(r"https?://github\.com/(?P<owner>[^/]+)/(?P<repo>[^/#?]+?)(?:\.git)?$", url)
        if not match:
            raise SystemExit(f"_config.yml's repository url {url} is not a GitHub repository URL")
        self.owner, self.repo = match["owner"], match["repo"]
        self.branch = book.repository_branch()
        self.pages_url = f"https://{self.owner.lower()}.github.io/{self.repo}"
        self.raw_url = f"https://raw.githubusercontent.com/{self.owner}/{self.repo}/{self.branch}"
        self.chapter_numbers = _toc_chapter_numbers()
        self.bib = Bibliography(ROOT / "references.bib")
        self.documents = {}
        self.targets = {}
        notebooks = set(book.chapter_sources())
        paths = {p.relative_to(ROOT).with_suffix("").as_posix(): p for p in sorted(CHAPTERS.glob("*.md"))}
        # Numbered pages in _toc order: a chapter page, then its section pages, which
        # continue the chapter's counts and are numbered after its own ## sections.
        for count, (chapter, sections) in enumerate(toc_chapters(), start=1):
            counters = Counters(str(count))
            own_sections = 0
            for i, docname in enumerate([chapter, *sections]):
                if docname not in paths:
                    continue
                secnum = str(count) if i == 0 else f"{count}.{own_sections + i}"
                doc = self._load(paths.pop(docname), notebooks, str(count), secnum, counters)
                own_sections = doc.sections if i == 0 else own_sections
                self._register(doc)
        for path in paths.values():  # unnumbered pages
            self._register(self._load(path, notebooks, None, None, None))

    def _register(self, doc):
        self.documents[doc.docname] = doc
        for label, target in doc.targets.items():
            self.targets.setdefault(label, target)

    def _load(self, path, notebooks, chapter, secnum, counters):
        docname = path.relative_to(ROOT).with_suffix("").as_posix()
        if path in notebooks:
            nb = book.read_source(path)
        else:  # a plain Markdown page: one Markdown cell
            import nbformat

            text = path.read_text()
            text = re.sub(r"\A---\n.*?\n---\n", "", text, flags=re.S)
            nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell(text)])
        return make_document(nb, path, docname, chapter, secnum, counters)

    def add(self, doc):
        """Add a document made by :func:`make_document` (its labels win over earlier ones)."""
        self.documents[doc.docname] = doc
        self.targets.update(doc.targets)

    def page_url(self, docname):
        """The GitHub Pages URL of a page of the book."""
        return f"{self.pages_url}/{docname}.html"


# -------------------------------------------------------------- rendering --

def _blockquote(lines):
    return [("> " + line) if line.strip() else ">" for line in lines]


def _starts_paragraph(line):
    """True when ``line`` is ordinary paragraph text (a bold title can be put in front of it)."""
    return bool(line.strip()) and not re.match(r"^\s*(\$\$|[-*+] |\d+[.)] |>|#|\||`{3}|~{3}|<|\\begin)", line)


def sphinx_display_math(content):
    """Wrap display math the way Sphinx's MathJax writer does, so ``&`` and ``\\\\`` work in Jupyter.

    Parts separated by blank lines become rows of an ``aligned``; a part
    containing ``\\\\`` is put in a ``split`` environment.
    """
    parts = [p.strip() for p in re.split(r"\n[ \t]*\n", content) if p.strip()]
    wrapped = [(r"\begin{split}" + p + r"\end{split}") if "\\\\" in p else p for p in parts]
    if len(wrapped) > 1:
        return r"\begin{aligned}" + "\\\\\n".join(wrapped) + r"\end{aligned}"
    return wrapped[0] if wrapped else ""


class Converter:
    """Turn one numbered :class:`Document` into the cells of its student notebook."""

    def __init__(self, bk, doc):
        self.book = bk
        self.doc = doc
        self.cited = []
        self.warnings = []

    # ---- references

    def _target(self, label):
        target = self.doc.targets.get(label) or self.book.targets.get(label)
        if target is None:
            self.warnings.append(f"unknown label {label!r}")
        return target

    def _link(self, text, target):
        """Plain text for a target in this chapter, a link to the HTML page otherwise."""
        if target is None or target.docname == self.doc.docname:
            return text
        return f"[{text}]({self.book.page_url(target.docname)}#{target.anchor})"

    def _role(self, role, content):
        explicit = re.fullmatch(r"(?P<text>.*?)\s*<(?P<label>[^<>]+)>", content, re.S)
        text, label = (explicit["text"], explicit["label"]) if explicit else (None, content.strip())
        if role == "eq":
            target = self._target(label)
            return self._link(target.numbered() if target else f"({label})", target)
        if role == "numref":
            target = self._target(label)
            if target is None:
                return text or label
            template = text or f"{'Figure' if target.kind == 'figure' else target.name} %s"
            shown = template.replace("%s", target.number or "").replace("{number}", target.number or "")
            shown = shown.replace("{name}", self.inline(target.title))
            return self._link(shown, target)
        if role in ("prf:ref", "ref"):
            target = self._target(label)
            if text:
                return self._link(self.inline(text), target)
            if target is None:
                return label
            shown = self.inline(target.default_text()) if role == "ref" else target.numbered()
            return self._link(shown, target)
        if role == "doc":
            name = label[:-3] if label.endswith(".md") else label
            docname = name.lstrip("/") if name.startswith("/") else \
                (Path(self.doc.docname).parent / name).as_posix()
            docname = re.sub(r"[^/]+/\.\./", "", docname)
            other = self.book.documents.get(docname)
            shown = text or (self.inline(other.title) if other else name)
            return f"[{shown}]({self.book.page_url(docname)})"
        if role == "cite" or role.startswith("cite:"):
            keys = [k.strip() for k in content.split(",") if k.strip()]
            for key in keys:
                if key not in self.cited:
                    self.cited.append(key)
                if key not in self.book.bib.entries:
                    self.warnings.append(f"unknown citation key {key!r}")
            return self.book.bib.cite(role.partition(":")[2], keys)
        if role == "math":
            return f"${content}$"
        if role in ("code", "literal", "samp", "kbd", "file", "command", "envvar", "program", "option"):
            return f"`{content}`"
        if role in PY_ROLES or role.startswith("py:"):  # {func}`~lib.mixture.e_step` -> `e_step`
            shown = text or label.lstrip("!")
            if shown.startswith("~"):
                shown = shown[1:].rsplit(".", 1)[-1]
            return f"`{shown}`"
        if role in ("sub", "sup"):
            return f"<{role}>{content}</{role}>"
        if role == "download":
            return f"[{text or Path(label).name}]({self.book.raw_url}/{Path(self.doc.docname).parent.as_posix()}/{label})"
        if role == "abbr":
            return re.sub(r"\s*\(.*\)$", "", content)
        return text if text is not None else content  # term, index, glue:text and the rest

    def inline(self, text):
        """Convert the roles and MyST links of one run of Markdown text."""
        def replace(match):
            if match["role"]:
                return self._role(match["role"], match["content"])
            if match["href"]:
                return self._href(match["text"], match["href"], match.group(0))
            return match.group(0)

        # Paragraph by paragraph: a stray backtick must not pair with one in the next paragraph.
        parts = re.split(r"(\n[ \t>]*\n)", text)
        return "".join(part if i % 2 else RE_INLINE.sub(replace, part) for i, part in enumerate(parts))

    def _href(self, text, href, original):
        """``[text](#label)`` and ``[text](other.md)`` -> links that work outside the book."""
        if re.match(r"^[a-z]+:", href):
            return original
        path, _, anchor = href.partition("#")
        if not path:
            target = self.doc.targets.get(anchor) or self.book.targets.get(anchor)
            if target is None:  # a heading anchor Jupyter knows, or a mistake the HTML build reports
                return original
            return self._link(self.inline(text) or self.inline(target.default_text()), target)
        if path.endswith((".md", ".ipynb")):
            docname = re.sub(r"[^/]+/\.\./", "", (Path(self.doc.docname).parent / path).with_suffix("").as_posix())
            other = self.book.documents.get(docname)
            shown = self.inline(text) or (self.inline(other.title) if other else docname)
            return f"[{shown}]({self.book.page_url(docname)}{'#' + anchor if anchor else ''})"
        return original

    # ---- blocks

    def render_blocks(self, blocks, top=True, state=None):
        """Render blocks into Markdown chunks (strings) joined later by blank lines."""
        state = state if state is not None else {}
        chunks = []
        for block in blocks:
            if top and block.kind == "directive" and block.name == "solution-start":
                state["solution"] = True
                continue
            if top and block.kind == "directive" and block.name == "solution-end":
                state["solution"] = False
                continue
            if state.get("solution"):
                continue
            chunks.extend(self.render_block(block))
        return [c for c in chunks if c.strip()]

    def render_block(self, block):
        kind = block.kind
        if kind == "text":
            text = "\n".join(block.lines).strip("\n")
            return [self.inline(text)] if text.strip() else []
        if kind == "fence":
            return ["\n".join(block.lines)]
        if kind == "target":
            return []
        if kind == "heading":
            number = f"{block.number}. " if block.number else ""
            return [f"{'#' * block.level} {number}{self.inline(block.title)}"]
        if kind == "dollarmath":
            return [self._display_math(block.indent, block.content[0], block.number)]
        if kind == "amsmath":
            return [self._amsmath(block)]
        return self.render_directive(block)

    def _display_math(self, indent, content, number, wrap=True):
        body = sphinx_display_math(content) if wrap else content.strip("\n")
        if number:
            body += f" \\tag{{{number}}}"
        lines = ["$$", *body.split("\n"), "$$"]
        return "\n".join(indent + line for line in lines)

    def _amsmath(self, block):
        env, star = block.name, block.arg
        text = block.content[0].strip()
        inner = text[len(f"\\begin{{{env}{star}}}"):]
        inner = inner[: inner.rfind(f"\\end{{{env}{star}}}")]
        inner = re.sub(r"\\(?:nonumber|notag)\b|\\label\{[^}]*\}", "", inner).strip("\n")
        target = AMSMATH[env]
        if env == "eqnarray":
            inner = inner.replace("&=&", "&=")
        if target:
            inner = f"\\begin{{{target}}}{inner}\\end{{{target}}}"
        return self._display_math("", inner, block.number, wrap=False)

    def render_children(self, block):
        return self.render_blocks(block.children, top=False)

    def _with_title(self, title, body_chunks):
        """Put a bold ``title`` in front of the first paragraph, or on its own line."""
        if body_chunks and _starts_paragraph(body_chunks[0].split("\n")[0]):
            return [f"{title} {body_chunks[0]}", *body_chunks[1:]]
        return [title, *body_chunks]

    def render_directive(self, block):
        name, arg, options = block.name, block.arg, block.options
        if name in ("solution", "exercise-end", "toctree", "tableofcontents", "eval-rst") or name.startswith("glue"):
            return []
        if name == "bibliography":
            return self._references(heading=False)
        if name.startswith("prf:"):
            kind = name[4:]
            if kind == "proof":
                chunks = self._with_title("*Proof.*", self.render_children(block))
                chunks[-1] = chunks[-1] + (" \u220e" if _starts_paragraph(chunks[-1].split("\n")[-1]) else "\n\n\u220e")
                return ["\n\n".join(chunks)]
            shown = PROOF_TYPES.get(kind, kind.capitalize())
            head = shown + (f" {block.number}" if block.number else "")
            head += f" ({self.inline(arg)})" if arg else ""
            chunks = self._with_title(f"**{head}.**", self.render_children(block))
            return ["\n".join(_blockquote("\n\n".join(chunks).split("\n")))]
        if name in ("exercise", "exercise-start"):
            head = "Exercise" + (f" {block.number}" if block.number else "")
            head += f" ({self.inline(arg)})" if arg else ""
            return [f"### {head}", *self.render_children(block)]
        if name in ADMONITIONS:
            default = ADMONITIONS[name]
            title = self.inline(arg) if arg else default
            chunks = self.render_children(block)
            if title:
                chunks = [f"**{title}**", *chunks]
            if not chunks:
                return []
            return ["\n".join(_blockquote("\n\n".join(chunks).split("\n")))]
        if name in ("figure", "image"):
            return self._figure(block)
        if name == "math":
            return [self._display_math(block.indent, "\n".join(block.content), block.number,
                                       wrap="nowrap" not in options)]
        if name in ("code-block", "code", "sourcecode"):
            fence = "````" if any(line.startswith("```") for line in block.content) else "```"
            return self._listing_caption(block) + [f"{fence}{arg.strip()}\n" + "\n".join(block.content) + f"\n{fence}"]
        if name == "literalinclude":
            return self._literalinclude(block)
        if name in ("table", "list-table", "csv-table"):
            chunks = []
            if arg:
                title = self.inline(arg)
                chunks.append(f"**Table {block.number}.** {title}" if block.number else f"**{title}**")
            if name == "list-table":
                chunks.append(self._list_table(block))
            else:
                chunks.extend(self.render_children(block))
            return chunks
        if name == "raw":
            return ["\n".join(block.content)] if arg.strip() == "html" else []
        if name == "only":
            return self.render_children(block) if "html" in arg else []
        if name in ("tab-item", "grid-item-card", "card") and arg:
            return [f"**{self.inline(arg)}**", *self.render_children(block)]
        # Unknown or layout-only directives (div, container, tab-set, grid, ...): show the content.
        if name not in ("div", "container", "tab-set", "grid", "grid-item", "tab-item", "card", "rubric",
                        "centered", "glossary", "epigraph"):
            self.warnings.append(f"directive {{{name}}} has no special conversion; its content is kept")
        if name == "rubric":
            return [f"**{self.inline(arg)}**"]
        return self.render_children(block)

    def _figure(self, block):
        path = block.arg.strip()
        if not re.match(r"^[a-z]+://", path):
            base = Path(self.doc.docname).parent if not path.startswith("/") else Path()
            path = f"{self.book.raw_url}/{(base / path.lstrip('/')).as_posix()}"
            path = re.sub(r"[^/]+/\.\./", "", path)
        alt = str(block.options.get("alt", ""))
        chunks = [f"![{alt}]({path})"]
        if block.name == "figure":
            caption = self.render_children(block)
            if caption:
                prefix = f"**Figure {block.number}.** " if block.number else ""
                chunks.append(prefix + caption[0])
                chunks.extend(caption[1:])
        return chunks

    def _literalinclude(self, block):
        arg = block.arg.strip()
        path = (ROOT / arg.lstrip("/")) if arg.startswith("/") else (self.doc.path.parent / arg)
        path = path.resolve()
        if not path.exists():
            raise SystemExit(f"{self.doc.path.relative_to(ROOT)}: literalinclude of a missing file {arg}")
        try:
            code = listings.read_listing(path, block.options)
        except ValueError as exc:
            raise SystemExit(f"{self.doc.path.relative_to(ROOT)}: literalinclude {arg}: {exc}") from None
        language = block.options.get("language") or {".py": "python"}.get(path.suffix, "")
        fence = "````" if "```" in code else "```"
        return self._listing_caption(block) + [f"{fence}{language}\n{code}\n{fence}"]

    def _listing_caption(self, block):
        caption = block.options.get("caption")
        if not caption:
            return []
        number = f"**Listing {block.number}.** " if block.number else ""
        return [number + self.inline(str(caption))]

    def _list_table(self, block):
        rows, row = [], None
        for line in block.content:
            if re.match(r"^[*-] +[*-] ", line):
                row = [re.sub(r"^[*-] +[*-] ", "", line)]
                rows.append(row)
            elif re.match(r"^ +[*-] ", line) and row is not None:
                row.append(re.sub(r"^ +[*-] ", "", line))
            elif line.strip() and row:
                row[-1] += " " + line.strip()
        if not rows:
            return ""
        width = max(len(r) for r in rows)
        rows = [[self.inline(c.strip()).replace("|", "\\|") for c in r] + [""] * (width - len(r)) for r in rows]
        header = int(str(block.options.get("header-rows", 0)) or 0)
        head = rows[0] if header else [""] * width
        body = rows[1:] if header else rows
        out = ["| " + " | ".join(head) + " |", "|" + "---|" * width]
        out += ["| " + " | ".join(r) + " |" for r in body]
        return "\n".join(out)

    def _references(self, heading=True):
        if not self.cited:
            return []
        keys = sorted((k for k in self.cited if k in self.book.bib.entries),
                      key=lambda k: (self.book.bib.author(k).lower(), self.book.bib.year(k)))
        lines = [f"- {self.book.bib.reference(k)}" for k in keys]
        return (["**References**"] if heading else []) + ["\n".join(lines)]

    # ---- cells

    def _launch_links(self):
        """' Open it on [Colab](...) or [Binder](...).' from _config.yml's launch_buttons (or '')."""
        student = f"student/{Path(self.doc.docname).name}.ipynb"
        config = book_config().get("launch_buttons") or {}
        bk = self.book
        links = []
        if config.get("colab_url"):
            links.append(f"[Colab]({config['colab_url'].rstrip('/')}/github/{bk.owner}/{bk.repo}/blob/{bk.branch}/{student})")
        if config.get("binderhub_url"):
            links.append(f"[Binder]({config['binderhub_url'].rstrip('/')}/v2/gh/{bk.owner}/{bk.repo}/{bk.branch}"
                         f"?urlpath=tree/{student})")
        return f" Open this notebook on {' or '.join(links)}." if links else ""

    def banner(self):
        """The first cell: what this notebook is, how to do the exercises, the HTML page."""
        doc = self.doc
        title = self.inline(doc.title) or Path(doc.docname).name
        if doc.secnum and doc.secnum != doc.chapter:
            name = f"Section {doc.secnum}, *{title}*, of Chapter {doc.chapter}"
        else:
            name = f"Chapter {doc.chapter}, *{title}*" if doc.chapter else f"*{title}*"
        has_exercises = any(
            kind == "code" and "starter" in cell.metadata.get("tags", []) for kind, cell, _ in doc.items
        )
        source = "" if title.casefold() == book_title().casefold() else f", from *{book_title()}*"
        folded = " and the worked solutions folded away" if has_exercises else ""
        lines = [
            f"**Student edition** of {name}{source}. The book page, with every output{folded}, is "
            f"<{self.book.page_url(doc.docname)}>.",
            "",
            "Run the cells in order from the top. The first code cell installs the companion "
            "library `lib` on Colab or Binder (it does nothing where `lib` is already installed)."
            + self._launch_links(),
        ]
        if has_exercises:
            lines += [
                "",
                "**How to do the exercises.** The solutions are not in this notebook. For each exercise:",
                "",
                "1. edit the **starter cell** (the code cell right after the exercise statement): replace "
                "`raise NotImplementedError` (or the `...`) with your code, then run the cell;",
                "2. run the **check cell** that follows (`lib.checks.<name>(...)`): it prints `[PASSED]` "
                "with what was checked, `[NOT YET]` with the first problem it found, or `[TO DO]` while "
                "the starter is unchanged;",
                "3. if you change an earlier cell, run it again before the check.",
                "",
                "A check tests your code on a few generated inputs: a pass is good evidence, not a proof.",
            ]
        return "\n".join(_blockquote(lines))

    def cells(self, with_solutions=False):
        """The notebook cells, in order; ``with_solutions`` puts each exercise's solution in its starter's place."""
        import nbformat

        new_md = nbformat.v4.new_markdown_cell
        cells = [new_md(self.banner(), id="student-edition")]
        replacements = self._solution_replacements() if with_solutions else {}
        state = {"solution": False}
        has_bibliography = False
        exercise = None  # label of the exercise the cells belong to (the grader reads it)
        for kind, cell, blocks in self.doc.items:
            if kind == "markdown":
                has_bibliography |= any(b.kind == "directive" and b.name == "bibliography" for b in blocks)
                for block in blocks:
                    if block.kind == "directive" and block.name in ("exercise-start", "exercise"):
                        exercise = block.label or exercise
                chunks = self.render_blocks(blocks, state=state)
                if chunks:
                    cells.append(new_md("\n\n".join(chunks), id=cell.id))
                continue
            tags = cell.metadata.get("tags", [])
            if state["solution"] or "solution" in tags:
                continue
            source = cell.source
            if cell.id in replacements:
                source = replacements[cell.id]
                if source is None:
                    continue
            new = nbformat.v4.new_code_cell(source, id=cell.id)
            new.metadata = copy.deepcopy(dict(cell.metadata))
            if "check" in tags and exercise:
                new.metadata["exercise"] = exercise  # tools/grade.py: which exercise this checks
            cells.append(new)
            figure = (cell.metadata.get("mystnb") or {}).get("figure") or {}
            if figure.get("caption"):
                number = self.doc.figure_numbers.get(cell.id)
                caption = self.inline(str(figure["caption"]).strip())
                prefix = f"**Figure {number}.** " if number else ""
                cells.append(new_md(prefix + caption, id=f"{cell.id}-caption"))
        if self.cited and not has_bibliography:
            cells.append(new_md("\n\n".join(self._references()), id="student-references"))
        return cells

    def _solution_replacements(self):
        """cell id -> new source (``None``: drop) putting each exercise's solution in its starter's place.

        Starters and solutions are matched per exercise label: one to one when
        their numbers agree, otherwise all solution cells go into the first
        starter and the other starters are dropped.
        """
        starters, solutions = {}, {}
        exercise, in_solution = None, None
        for kind, cell, blocks in self.doc.items:
            if kind == "markdown":
                for block in blocks:
                    if block.kind != "directive":
                        continue
                    if block.name in ("exercise-start", "exercise"):
                        exercise = block.label or exercise
                    elif block.name == "solution-start":
                        in_solution = block.arg.strip() or exercise
                    elif block.name == "solution-end":
                        in_solution = None
                continue
            tags = cell.metadata.get("tags", [])
            if "starter" in tags and exercise:
                starters.setdefault(exercise, []).append(cell.id)
            elif "solution" in tags or in_solution:
                if "solution" in tags:
                    solutions.setdefault(in_solution or exercise, []).append(cell.source)
        out = {}
        for label, ids in starters.items():
            sources = solutions.get(label, [])
            if not sources:
                continue
            if len(sources) == len(ids):
                out.update(zip(ids, sources))
            else:
                out[ids[0]] = "\n\n".join(sources)
                out.update({i: None for i in ids[1:]})
        return out


def book_config():
    """_config.yml as a dict."""
    import yaml

    return yaml.safe_load((ROOT / "_config.yml").read_text()) or {}


def book_title():
    return book_config().get("title", "the book")


# --------------------------------------------------------------- notebooks --

_BOOK = None


def get_book(refresh=False):
    """The parsed book (cached; ``refresh`` re-reads every chapter)."""
    global _BOOK
    if _BOOK is None or refresh:
        _BOOK = Book()
    return _BOOK


def student_notebook_path(md):
    return STUDENT / (Path(md).stem + ".ipynb")


def convert(md, with_solutions=False, bk=None):
    """(notebook, warnings): the student notebook of chapter source ``md``, not executed."""
    import nbformat

    bk = bk or get_book()
    md = Path(md).resolve()
    docname = md.relative_to(ROOT).with_suffix("").as_posix()
    if docname not in bk.documents:
        raise SystemExit(f"{md} is not a chapter source under chapters/")
    converter = Converter(bk, bk.documents[docname])
    nb = nbformat.v4.new_notebook()
    nb.nbformat, nb.nbformat_minor = 4, 5
    nb.cells = converter.cells(with_solutions=with_solutions)
    nb.metadata = {
        "kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"},
        "language_info": {"name": "python"},
        # tools/grade.py: the page this notebook is the student edition of
        "genmodels": {"page": Path(md).stem},
    }
    nbformat.validate(nb)
    return nb, [f"{md.relative_to(ROOT)}: {w}" for w in dict.fromkeys(converter.warnings)]


def build(md, with_solutions=False, bk=None):
    """The student notebook of chapter source ``md`` (an nbformat notebook, not executed).

    ``with_solutions=True`` gives the answer-key variant: each exercise's
    starter cells replaced by its solution cells (the tests run it).
    """
    return convert(md, with_solutions, bk)[0]


def render(md, bk=None):
    """(text, warnings): the exact text of ``md``'s student notebook file."""
    import nbformat

    nb, warnings = convert(md, bk=bk)
    return nbformat.writes(nb) + "\n", warnings


def check(sources, bk):
    """Problems that make ``--check`` fail: missing, stale or orphaned student notebooks."""
    problems = []
    for md in sources:
        target = student_notebook_path(md)
        rel = target.relative_to(ROOT)
        if not target.exists():
            problems.append(f"{rel} is missing: run `python tools/student.py` (or `make notebooks`).")
        elif target.read_text() != render(md, bk)[0]:
            problems.append(f"{rel} differs from what {md.relative_to(ROOT)} gives: "
                            "run `python tools/student.py` (or `make notebooks`).")
    stems = {Path(md).stem for md in book.chapter_sources()}
    for orphan in sorted(STUDENT.glob("*.ipynb")):
        if orphan.stem not in stems:
            problems.append(f"{orphan.relative_to(ROOT)} has no chapter source: delete it.")
    return problems


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("files", nargs="*", type=Path, help="chapter sources (default: every chapter)")
    parser.add_argument("--check", action="store_true",
                        help="write nothing; exit 1 if a student notebook is missing or out of date")
    args = parser.parse_args(argv)

    bk = get_book()
    sources = [f.resolve().with_suffix(".md") for f in args.files] or book.chapter_sources()
    for md in sources:
        if not md.exists():
            raise SystemExit(f"{md} does not exist")

    if args.check:
        problems = check(sources, bk)
        for problem in problems:
            print(problem)
        print(f"{len(sources)} student notebooks checked, {len(problems)} problem(s)")
        return 1 if problems else 0

    STUDENT.mkdir(exist_ok=True)
    for md in sources:
        text, warnings = render(md, bk)
        for warning in warnings:
            print(f"warning: {warning}", file=sys.stderr)
        target = student_notebook_path(md)
        changed = not target.exists() or target.read_text() != text
        if changed:
            target.write_text(text)
        print(f"{target.relative_to(ROOT)}: {'updated' if changed else 'unchanged'}")
    if not args.files:
        stems = {md.stem for md in sources}
        for orphan in sorted(STUDENT.glob("*.ipynb")):
            if orphan.stem not in stems:
                orphan.unlink()
                print(f"{orphan.relative_to(ROOT)}: removed (no chapter source)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
