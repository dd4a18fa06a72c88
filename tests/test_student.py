"""The student edition (tools/student.py) and the launch buttons that open it.

* every chapter's student notebook is committed and matches its source
  (``tools/student.py --check``), and regenerating it changes no byte;
* no student notebook contains a solution (no cell tagged ``solution``, no
  line that only the source's solutions contain) or raw MyST syntax;
* every student notebook runs top to bottom on a fresh kernel and its check
  cells say "not implemented yet";
* with each exercise's solution pasted into its starter cell, every check
  passes;
* the conversion itself (numbering, references, solution removal, includes)
  on a small synthetic chapter, and the launch-button rewrite.

The execution tests run each chapter twice (student edition, then answer
key), one kernel per run, with one BLAS thread.
"""

import json
import re
import subprocess
import sys
import textwrap
from pathlib import Path
from types import SimpleNamespace

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
sys.path.insert(0, str(ROOT / "_ext"))

import book  # noqa: E402  (tools/book.py)
import listings  # noqa: E402  (_ext/listings.py)
import student  # noqa: E402  (tools/student.py)

SOURCES = book.chapter_sources()
IDS = [p.stem for p in SOURCES]

# MyST that Jupyter and Colab would show as raw text.
RAW_MYST = {
    "a backtick directive": r"```\{",
    "a colon directive": r":::\{",
    "an {eq} role": r"\{eq\}`",
    "a {cite} role": r"\{cite",
    "a {prf:...} directive or role": r"\{prf:",
    "a {numref} role": r"\{numref\}`",
    "a (label)= target": r"^\s*\([^()\s]+\)=\s*$",
    "an equation label after $$": r"\$\$[ \t]*\([^()\s]+\)",
    "a role": r"\{[a-z][\w:-]*\}`",
}


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
    proc = subprocess.run([sys.executable, str(ROOT / "tools" / "student.py"), "--check"],
                          cwd=ROOT, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_regeneration_is_byte_stable():
    first = student.Book()
    second = student.Book()
    for md in SOURCES:
        assert student.render(md, first)[0] == student.render(md, second)[0], md.name


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


def _without_code(markdown):
    """Markdown with fenced code blocks and inline code spans removed (they may show MyST on purpose)."""
    markdown = re.sub(r"^(?P<f>[ \t>]*(?:`{3,}|~{3,})).*?^(?P=f)[^\n]*$", "", markdown, flags=re.S | re.M)
    return re.sub(r"(`+)(?:.*?[^`])?\1(?!`)", "", markdown, flags=re.S)


@pytest.mark.parametrize("md", SOURCES, ids=IDS)
def test_student_notebook_is_plain_markdown(md):
    nb = _student_notebook(md)
    problems = []
    for cell in nb["cells"]:
        if cell["cell_type"] != "markdown":
            continue
        text = _without_code(_source(cell))
        for what, pattern in RAW_MYST.items():
            for match in re.finditer(pattern, text, re.M):
                problems.append(f"cell {cell['id']}: {what}: {match.group(0)!r}")
    assert not problems, f"{md.stem}: raw MyST in the student notebook:\n" + "\n".join(problems[:10])


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


# ------------------------------------------------ conversion, synthetic --

SYNTHETIC = '''---
jupytext:
  text_representation:
    extension: .md
    format_name: myst
kernelspec:
  display_name: Python 3
  language: python
  name: python3
---

# Synthetic chapter

```{code-cell} ipython3
:tags: [bootstrap, remove-cell]
print("set-up")
```

(syn-sec-first)=
## First section

Unlabelled $$-free text with $a$ and `{eq}` shown as code: ``{eq}`x` ``.

$$
a &= b \\\\
c &= d
$$ (syn-one)

$$ e = f $$ (syn-two)

% a MyST comment that must disappear

See {eq}`syn-two`, {eq}`syn-one`, {cite:p}`dempster1977`, {cite:t}`neal1998`,
{func}`~lib.gaussian.logpdf`, [](#syn-sec-first) and {numref}`fig-syn`.

```{prf:theorem} Main result
:label: thm-syn
Statement with {eq}`syn-one`.
```

```{prf:proof}
Proof text.
```

```{prf:lemma}
:label: lem-syn
A lemma.
```

```{prf:theorem} Second
Another theorem, {prf:ref}`thm-syn` and {prf:ref}`lem-syn`.
```

:::{warning} Pitfall: a trap
Body with {eq}`syn-two`.
:::

```{note}
A note.
```

\\begin{align}
x &= y
\\end{align}

```{literalinclude} ../lib/gaussian.py
:pyobject: logpdf
```

```{code-cell} ipython3
---
mystnb:
  figure:
    caption: A synthetic figure, see {eq}`syn-one`.
    name: fig-syn
---
print("figure")
```

```{exercise-start} First exercise
:label: ex-syn-one
```

Statement.

```{code-cell} ipython3
:tags: [starter]
def f(x):
    raise NotImplementedError
```

```{exercise-end}
```

```{solution-start} ex-syn-one
:class: dropdown
```

SOLUTION EXPLANATION that must not leak.

```{code-cell} ipython3
:tags: [solution]
def f(x):
    return 2 * x  # SOLUTION CODE
```

More SOLUTION TEXT.

```{solution-end}
```

Text after the solution stays.

```{code-cell} ipython3
:tags: [check]
print(f)
```

```{exercise-start} Second exercise
:label: ex-syn-two
```

```{code-cell} ipython3
:tags: [starter]
answer = ...
```

```{exercise-end}
```

```{solution-start} ex-syn-two
```

```{code-cell} ipython3
:tags: [solution]
answer = 42
```

```{solution-end}
```
'''


@pytest.fixture(scope="module")
def synthetic(tmp_path_factory):
    import jupytext

    bk = student.Book()
    nb = jupytext.reads(SYNTHETIC, fmt="md:myst")
    for i, cell in enumerate(nb.cells):
        cell["id"] = f"cell-{i:03d}"
    doc = student.make_document(nb, CHAPTERS_DIR / "97_synthetic.md", "chapters/97_synthetic", "7")
    bk.add(doc)
    converter = student.Converter(bk, doc)
    cells = converter.cells()
    key = student.Converter(bk, doc).cells(with_solutions=True)
    text = "\n\n".join(c.source for c in cells)
    return SimpleNamespace(cells=cells, key=key, text=text, converter=converter)


CHAPTERS_DIR = ROOT / "chapters"


def test_synthetic_numbers_and_references(synthetic):
    text = synthetic.text
    assert "# 7. Synthetic chapter" in text
    assert "## 7.1. First section" in text
    assert "\\tag{7.1}" in text and "\\tag{7.2}" in text and "\\tag{7.3}" in text  # the align is (7.3)
    assert "\\begin{split}a &= b" in text  # & and \\ work in Jupyter as in the HTML
    assert "See (7.2), (7.1), (Dempster et al., 1977), Neal and Hinton (1998)," in text
    assert "`logpdf`" in text and "First section and Figure 7.1." in text
    assert "> **Theorem 7.1 (Main result).** Statement with (7.1)." in text
    assert "> **Lemma 7.1.** A lemma." in text
    assert "> **Theorem 7.2 (Second).** Another theorem, Theorem 7.1 and Lemma 7.1." in text
    assert "*Proof.* Proof text. \u220e" in text
    assert "> **Pitfall: a trap**\n>\n> Body with (7.2)." in text
    assert "> **Note**" in text
    assert "**Figure 7.1.** A synthetic figure, see (7.1)." in text
    assert "### Exercise 7.1 (First exercise)" in text and "### Exercise 7.2 (Second exercise)" in text
    assert "a MyST comment" not in text and "(syn-sec-first)=" not in text
    assert "``{eq}`x` ``" in text  # inline code is left alone
    assert "- Dempster, A. P., Laird, N. M. and Rubin, D. B. (1977)." in text  # the cited works


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


def test_synthetic_solutions_removed_starters_and_checks_kept(synthetic):
    text = synthetic.text
    assert "SOLUTION" not in text and "return 2 * x" not in text and "answer = 42" not in text
    assert "Text after the solution stays." in text
    tags = [c.metadata.get("tags", []) for c in synthetic.cells if c.cell_type == "code"]
    assert tags[0] == ["bootstrap", "remove-cell"]
    assert sum("starter" in t for t in tags) == 2 and sum("check" in t for t in tags) == 1
    assert synthetic.cells[0].id == "student-edition" and "97_synthetic.html" in synthetic.cells[0].source
    ids = [c.id for c in synthetic.cells]
    assert len(ids) == len(set(ids))


def test_synthetic_answer_key_puts_solutions_in_the_starters(synthetic):
    code = {c.id: c.source for c in synthetic.key if c.cell_type == "code"}
    starters = [c.id for c in synthetic.cells if "starter" in c.metadata.get("tags", [])]
    assert "return 2 * x" in code[starters[0]]
    assert code[starters[1]].strip() == "answer = 42"
    assert "SOLUTION EXPLANATION" not in "\n".join(c.source for c in synthetic.key)


def test_unknown_labels_are_reported(synthetic):
    converter = synthetic.converter
    assert converter.inline("{eq}`no-such-label`") == "(no-such-label)"
    assert any("no-such-label" in w for w in converter.warnings)


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
