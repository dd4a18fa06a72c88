"""The student edition (tools/student.py) and the launch buttons that open it.

* every chapter's student notebook is committed and matches its source
  (``tools/student.py --check``), and regenerating it changes no byte;
* no student notebook contains a solution (no cell tagged ``solution``, no
  line that only the source's solutions contain) or raw MyST syntax;
* every student notebook runs top to bottom on a fresh kernel and its check
  cells say "not implemented yet";
* with each exercise's solution pasted into its starter cell, every check
  passes;
* the conversion (``_ext/student_edition.py``, a Sphinx builder on the HTML
  build's doctrees): numbers, references, citations, theorems and exercises as
  the HTML shows them, solution removal and the answer key, on the book's pages;
  and the launch-button rewrite.
"""

import json
import re
import sys
import textwrap
from pathlib import Path
from types import SimpleNamespace

import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
sys.path.insert(0, str(ROOT / "_ext"))

import book  # noqa: E402  (tools/book.py)
import listings  # noqa: E402  (_ext/listings.py)
import student  # noqa: E402  (tools/student.py)
import student_edition  # noqa: E402  (_ext/student_edition.py)

SOURCES = book.chapter_sources()
IDS = [p.stem for p in SOURCES]


def _student_notebook(md):
    path = student.student_notebook_path(md)
    if not path.exists():
        pytest.fail(f"{path.relative_to(ROOT)} is missing: run `python tools/student.py`")
    return json.loads(path.read_text())


def _source(cell):
    return "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]


def _tags(cell):
    return cell.get("metadata", {}).get("tags", [])


# ------------------------------------------------------------ in sync --

def test_student_notebooks_are_in_sync():
    """What ``python tools/student.py --check`` (``make test``) checks."""
    problems = student.check(SOURCES) + student.WARNINGS  # a builder warning fails too
    assert not problems, "\n".join(problems)


def test_regeneration_is_byte_stable():
    """A second, separate run of the builder writes the same bytes as the first."""
    first = {md: student.render(md) for md in SOURCES}
    student.run_builder(fresh=True)
    for md in SOURCES:
        assert student.render(md) == first[md], md.name


# --------------------------------------------------- no solutions, no MyST --

def _solution_regions(text):
    pattern = r"^[ \t]*(?:`{3,}|:{3,})\{solution-start\}.*?^[ \t]*(?:`{3,}|:{3,})\{solution-end\}[^\n]*\n(?:[ \t]*(?:`{3,}|:{3,})[ \t]*\n)?"
    return list(re.finditer(pattern, text, re.S | re.M))


def _meaningful(line):
    line = line.strip()
    return (len(line) >= 4 and re.search(r"[A-Za-z0-9]", line) and not line.startswith(("```", ":::"))
            and not re.match(r"^:[\w-]+:", line))


def solution_only_lines(md):
    """Lines that occur in the source's solutions and nowhere else in the source (or the lib code it includes)."""
    text = md.read_text()
    regions = _solution_regions(text)
    secret = "\n".join(m.group(0) for m in regions)
    public = text
    for m in reversed(regions):
        public = public[: m.start()] + public[m.end():]
    for cell in book.read_source(md).cells:
        if "solution" in cell.metadata.get("tags", []):
            secret += "\n" + cell.source
            public = public.replace(cell.source, "")
    # Code the book shows from lib with {literalinclude} is public too.
    for include in re.findall(r"\{literalinclude\}\s*(\S+)", public):
        path = (md.parent / include).resolve()
        if path.is_file():
            public += "\n" + path.read_text()
    public_lines = {line.strip() for line in public.split("\n")}
    return {line.strip() for line in secret.split("\n") if _meaningful(line) and line.strip() not in public_lines}


@pytest.mark.parametrize("md", SOURCES, ids=IDS)
def test_student_notebook_has_no_solutions(md):
    nb = _student_notebook(md)
    tagged = [c["id"] for c in nb["cells"] if "solution" in _tags(c)]
    assert not tagged, f"{md.stem}: cells tagged solution in the student notebook: {tagged}"
    lines = {line.strip() for c in nb["cells"] for line in _source(c).split("\n")}
    leaked = sorted(solution_only_lines(md) & lines)
    assert not leaked, f"{md.stem}: the student notebook contains solution lines: {leaked[:5]}"


@pytest.mark.parametrize("md", SOURCES, ids=IDS)
def test_student_notebook_is_plain_markdown(md):
    problems = student.raw_myst(_student_notebook(md))
    assert not problems, f"{md.stem}: raw MyST in the student notebook:\n" + "\n".join(problems[:10])


@pytest.mark.parametrize("md", SOURCES, ids=IDS)
def test_student_notebook_is_valid(md):
    """The checks an instructor's assignment notebook passes too (tools/student.py, ``problems``)."""
    problems = student.problems(nbformat.read(student.student_notebook_path(md), as_version=4))
    assert not problems, f"{md.stem}: " + "\n".join(problems[:10])


@pytest.mark.parametrize("md", SOURCES, ids=IDS)
def test_student_notebook_layout(md):
    nb = _student_notebook(md)
    first = nb["cells"][0]
    assert first["cell_type"] == "markdown" and "Student edition" in _source(first)
    assert f"/{md.relative_to(ROOT).with_suffix('.html').as_posix()}" in _source(first)
    code = [c for c in nb["cells"] if c["cell_type"] == "code"]
    assert code and _source(code[0]).strip() == book.bootstrap_source(md).strip(), \
        f"{md.stem}: the set-up cell is not the first code cell"
    for cell in code:
        assert cell["outputs"] == [] and cell["execution_count"] is None, f"{md.stem}: cell {cell['id']} has outputs"
    starters = [c for c in code if "starter" in _tags(c)]
    checks = [c for c in code if "check" in _tags(c)]
    source_tags = [c.metadata.get("tags", []) for c in book.read_source(md).cells if c.cell_type == "code"]
    assert len(starters) == sum("starter" in t for t in source_tags), f"{md.stem}: a starter cell was lost"
    assert len(checks) == sum("check" in t for t in source_tags), f"{md.stem}: a check cell was lost"


# ------------------------------------------------------------- execution --
# Running every student notebook, untouched and with the solutions pasted in, is
# done once, by the grader: tests/test_grade.py (test_every_page_*).


# ------------------------------------------------- conversion, real pages --

def _markdown(stem, with_solutions=False):
    nb = student.build(ROOT / "chapters" / f"{stem}.md", with_solutions)
    return nb, "\n\n".join(c.source for c in nb.cells if c.cell_type == "markdown")


def test_numbers_references_and_citations_are_the_htmls():
    nb, text = _markdown("04_1_em_bound")
    assert text.count("\n# 4.5. Why EM never lowers the likelihood") == 1 and "## 4.5.1. One EM step by hand" in text
    assert "\\tag{4.13}" in text  # equations numbered per chapter, across its pages
    assert "**Figure 4.2.** One EM iteration" in text
    assert "> **Lemma 4.1 (The bound lies below the log-likelihood).** For every" in text
    assert "*Proof.* Fix $i$" in text and "\u220e" in text
    assert "### Exercise 4.5 (A second iteration of the worked example)" in text
    # another page: a link to its HTML, with Sphinx's text; this page: the text only
    assert re.search(r"\[\(4\.12\)\]\(https://[^)\s]+/chapters/04_em_gaussian_mixtures\.html#equation-em-m-step-cov\)", text)
    assert "Lemma 4.1 and (4.15)," in text
    assert "(Dempster *et al.*, 1977)" in text  # citations in parentheses, the works listed at the end
    assert nb.cells[-1].id == "student-references" and "Rubin. Maximum likelihood from incomplete data" in text
    assert "> **Note**\n>\n> The argument" in text


def test_display_math_is_wrapped_as_in_the_html():
    assert student_edition.display_math("a &= b \\\\\nc &= d", nowrap=False) == "\\begin{split}a &= b \\\\\nc &= d\\end{split}"
    assert student_edition.display_math("a\n\nb", nowrap=False) == "\\begin{aligned}a\\\\\nb\\end{aligned}"
    assert student_edition.display_math("\\begin{align}x &= y \\label{e}\\end{align}", nowrap=True) == \
        "\\begin{aligned}x &= y \\end{aligned}"


def test_unknown_nodes_keep_their_content_and_warn(caplog):
    """A node the translator has no conversion for (here a sidebar) keeps its content, with a warning."""
    from docutils import nodes
    from docutils.frontend import get_default_settings
    from docutils.parsers.rst import Parser
    from docutils.utils import new_document

    doc = new_document("page", get_default_settings(Parser))
    aside = nodes.sidebar("", nodes.paragraph("", "", nodes.Text("kept "), nodes.emphasis("", "text")))
    doc += nodes.section("", nodes.title("", "Title"), aside, ids=["title"])
    config = SimpleNamespace(markdown_docinfo=False, markdown_flavor="", markdown_anchor_sections=False,
                             markdown_http_base="", markdown_bullet="*")
    translator = student_edition.StudentTranslator(doc, SimpleNamespace(config=config, sec_numbers={}, fignumbers={}))
    doc.walkabout(translator)
    assert translator.astext() == "# Title\n\nkept *text*\n"
    assert "no conversion for <sidebar>" in caplog.text


def test_solutions_removed_starters_and_checks_kept():
    nb, text = _markdown("04_1_em_bound")
    key, _ = _markdown("04_1_em_bound", with_solutions=True)
    source = {c.id: c for c in book.read_source(ROOT / "chapters" / "04_1_em_bound.md").cells}
    code = [c for c in nb.cells if c.cell_type == "code"]
    for cell in code:  # copied unchanged: source, tags, metadata (a check cell also names its exercise)
        assert cell.source == source[cell.id].source
        want = dict(source[cell.id].metadata)  # but for the slide tags (guide/slides.md, "Slides"), left out
        tags = [t for t in want.get("tags", []) if t not in student_edition.slide_decks.CELL_TAGS]
        want = {**{k: v for k, v in want.items() if k != "tags"}, **({"tags": tags} if tags else {})}
        assert {k: v for k, v in cell.metadata.items() if k != "exercise"} == want
        assert not set(cell.metadata.get("tags", [])) & student_edition.slide_decks.CELL_TAGS
    assert [c.metadata.get("exercise") for c in code if "check" in c.metadata.get("tags", [])] == \
        ["ex-em-second-iteration", "ex-em-lower-bound", "ex-em-dempster-q", "ex-em-bernoulli-mixture"]
    assert "Solution to" not in text
    starters = {c.id for c in code if "starter" in c.metadata.get("tags", [])}
    solved = {c.id: c.source for c in key.cells if c.id in starters}
    assert solved and all(solved[i] != source[i].source for i in starters)
    assert all(any(solved[i].strip() in c.source for c in source.values() if "solution" in c.metadata.get("tags", []))
               for i in starters)
    ids = [c.id for c in nb.cells]
    assert len(ids) == len(set(ids)) and ids[0] == "student-edition"


def test_literalinclude_shows_the_code_without_the_docstring():
    """A ``:pyobject:`` listing shows the signature and the body, not the docstring
    (``_ext/listings.py``; the HTML and the student edition use the same reader)."""
    import ast
    import inspect

    import lib.gaussian

    source = inspect.getsource(lib.gaussian.logpdf).rstrip("\n")
    doc = ast.get_docstring(ast.parse(source).body[0], clean=False)
    assert doc and len(doc.splitlines()) > 3
    shown = listings.read_listing(ROOT / "lib" / "gaussian.py", {"pyobject": "logpdf"})
    assert shown.splitlines()[0] == source.splitlines()[0]  # the signature
    assert doc.strip().splitlines()[0] not in shown  # no docstring
    body = source.split('"""', 2)[2].split("\n", 1)[1]  # the code after the docstring
    assert shown.endswith(body)
    assert ast.parse(textwrap.dedent(shown))  # still valid Python
    with_doc = listings.read_listing(ROOT / "lib" / "gaussian.py", {"pyobject": "logpdf", "docstring": ""})
    assert with_doc == source
    first_two = listings.read_listing(ROOT / "lib" / "gaussian.py", {"lines": "1-2"})
    assert first_two == "\n".join((ROOT / "lib" / "gaussian.py").read_text().split("\n")[:2]).strip("\n")


def test_chapters_include_no_private_function_and_no_docstring():
    """Listings show public code: no ``:pyobject:`` names a private object, none keeps its docstring."""
    import re

    problems = []
    for md in sorted((ROOT / "chapters").glob("*.md")):
        for match in re.finditer(r"```\{literalinclude\}[^\n]*\n((?::[^\n]*\n)*)", md.read_text()):
            options = dict(re.findall(r"^:([\w-]+):[ \t]*(.*)$", match.group(1), re.M))
            name = options.get("pyobject", "")
            if any(part.startswith("_") for part in name.split(".")):
                problems.append(f"{md.name}: includes the private {name}")
            if "docstring" in options:
                problems.append(f"{md.name}: listing of {name} keeps its docstring")
    assert not problems, "\n".join(problems)


# ------------------------------------------------------- launch buttons --

def test_launch_buttons_point_at_the_student_notebook(tmp_path):
    import student_launch

    (tmp_path / "student").mkdir()
    (tmp_path / "student" / "04_em.ipynb").write_text("{}")
    base = "https://github.com/o/r/blob/main"

    def context():
        return {"header_buttons": [{"label": "launch-buttons", "type": "group", "buttons": [
            {"type": "link", "text": "Binder", "url": "https://mybinder.org/v2/gh/o/r/main?urlpath=tree/chapters/04_em.ipynb"},
            {"type": "link", "text": "Colab", "url": "https://colab.research.google.com/github/o/r/blob/main/chapters/04_em.ipynb"},
            {"type": "link", "text": "Deepnote", "url": f"https://deepnote.com/launch?url={base}%2Fchapters%2F04_em.ipynb"},
        ]}]}

    app = SimpleNamespace(srcdir=str(tmp_path))
    ctx = context()
    student_launch.rewrite_launch_buttons(app, "chapters/04_em", "page.html", ctx, None)
    urls = [b["url"] for b in ctx["header_buttons"][0]["buttons"]]
    assert urls[0] == "https://mybinder.org/v2/gh/o/r/main?urlpath=tree/student/04_em.ipynb"
    assert urls[1] == "https://colab.research.google.com/github/o/r/blob/main/student/04_em.ipynb"
    assert urls[2].endswith("%2Fstudent%2F04_em.ipynb")

    ctx = context()  # a page without a student notebook keeps its buttons
    student_launch.rewrite_launch_buttons(app, "chapters/05_other", "page.html", ctx, None)
    assert ctx == context()
