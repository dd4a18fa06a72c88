"""Build the student edition of the book: one plain Jupyter notebook per page.

    python tools/student.py [chapters/NN_name.md ...]
    python tools/student.py --check

Runs the ``student`` Sphinx builder (``_ext/student_edition.py``, which says what a
student notebook holds) on the HTML build's doctrees and copies its output to
``student/``, rewriting only files that changed.  ``--check`` writes nothing and exits 1
naming every student notebook that is missing, stale or orphaned.  The builder's
warnings are printed and make the exit status 1.  ``build(md, with_solutions=True)`` is
the answer key the tests run.
"""

import argparse
import re
import sys
from pathlib import Path

import nbformat

sys.path.insert(0, str(Path(__file__).resolve().parent))

import book  # noqa: E402  (tools/book.py)

ROOT, STUDENT, OUT = book.ROOT, book.ROOT / "student", book.ROOT / "_build" / "student"
WARNINGS = []  # the builder's warnings in this process
_BUILT = []


def run_builder(fresh=False):
    """Run the ``student`` Sphinx builder (once per process unless ``fresh``); print its warnings."""
    if _BUILT and not fresh:
        return
    WARNINGS[:] = book.run_custom_builder("student")
    print("".join(f"student builder: {line}\n" for line in WARNINGS), end="", file=sys.stderr)
    _BUILT.append(True)


# MyST that Jupyter and Colab would show as raw text (what no student notebook may hold).
RAW_MYST = {
    "a fenced directive": r"(?:```|~~~)\{",
    "a colon directive": r":::\{",
    "an {eq} role": r"\{eq\}`",
    "a {cite} role": r"\{cite",
    "a {prf:...} directive or role": r"\{prf:",
    "a {numref} role": r"\{numref\}`",
    "a (label)= target": r"^\s*\([^()\s]+\)=\s*$",
    "an equation label after $$": r"\$\$[ \t]*\([^()\s]+\)",
    "a role": r"\{[a-z][\w:-]*\}`",
}


FENCE = re.compile(r"^[ \t>]*(?P<fence>`{3,}|~{3,})(?P<info>[^\n]*)$")
# An inline code span, and the role name right before it when there is one ({ref}`label`).
CODE_SPAN = re.compile(r"(?P<role>\{[a-z][\w:-]*\})?(?P<ticks>`+)(?:.*?[^`])?(?P=ticks)(?!`)", re.S)


def without_code(markdown):
    """Markdown with its code blocks and inline code spans removed: they may show MyST on purpose.

    What only looks like code is kept, because it is MyST that Jupyter shows as raw text: a fence
    whose info string opens a directive (```` ```{note} ````, its content and its closing fence), and
    the backtick span of a role (``{ref}`label` ``, ``{eq}`...` ``, ``{numref}`...` ``).
    """
    out, directives, lines, i = [[]], [], markdown.split("\n"), 0
    while i < len(lines):
        match = FENCE.match(lines[i])
        if match:
            fence, info = match["fence"], match["info"].strip()
            closes = (directives and not info and fence[0] == directives[-1][0]
                      and len(fence) >= len(directives[-1]))
            if closes or info.startswith("{"):
                directives.pop() if closes else directives.append(fence)
                out += [lines[i], []]  # a fence line, kept whole; then a new run of text
                i += 1
                continue
            # a code block: skip to its closing fence (the same character, at least as many)
            close = re.compile(rf"^[ \t>]*{re.escape(fence[0])}{{{len(fence)},}}[ \t]*$")
            i += 1
            while i < len(lines) and not close.match(lines[i]):
                i += 1
            i += 1
            continue
        out[-1].append(lines[i])
        i += 1
    spans = lambda run: CODE_SPAN.sub(lambda m: m.group(0) if m["role"] else "", "\n".join(run))  # noqa: E731
    return "\n".join(piece if isinstance(piece, str) else spans(piece) for piece in out)


def raw_myst(nb):
    """["cell <id>: <what>: <text>"] for every piece of raw MyST in ``nb``'s Markdown cells."""
    problems = []
    for cell in nb["cells"]:
        if cell["cell_type"] != "markdown":
            continue
        source = "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]
        for what, pattern in RAW_MYST.items():
            for match in re.finditer(pattern, without_code(source), re.M):
                problems.append(f"cell {cell['id']}: {what}: {match.group(0)!r}")
    return problems


def problems(nb):
    """What keeps ``nb`` (nbformat) from being a student notebook: [] when it is one.

    The nbformat schema, ids that are unique, code cells without outputs, no cell tagged ``solution``,
    no raw MyST (``raw_myst``).  The book's student editions (tests/test_student.py) and an instructor's
    assignment (grader/assignment.py) are held to it.
    """
    found = []
    try:
        nbformat.validate(nb)
    except nbformat.ValidationError as exc:
        found.append(f"not a valid notebook: {str(exc).splitlines()[0]}")
    ids = [cell.get("id") for cell in nb["cells"]]
    found += [f"cell id {i!r} is used twice" for i in sorted({i for i in ids if ids.count(i) > 1}, key=str)]
    for cell in nb["cells"]:
        tags = cell.get("metadata", {}).get("tags", [])
        if cell["cell_type"] == "code" and (cell.get("outputs") or cell.get("execution_count") is not None):
            found.append(f"cell {cell['id']} has outputs")
        if "solution" in tags:
            found.append(f"cell {cell['id']} is tagged solution")
    return found + raw_myst(nb)


def student_notebook_path(md):
    return STUDENT / (Path(md).stem + ".ipynb")


def render(md, with_solutions=False):
    """The exact text of ``md``'s student notebook (or answer key) as the builder wrote it."""
    run_builder()
    built = OUT / f"{Path(md).stem}{'.key' if with_solutions else ''}.ipynb"
    if not built.exists():
        raise SystemExit(f"{md} has no student edition: is it a notebook page in _toc.yml?")
    return built.read_text()


def build(md, with_solutions=False):
    """The student notebook of page source ``md`` (nbformat, not executed); ``with_solutions``: the answer key."""
    return nbformat.reads(render(md, with_solutions), as_version=4)


def check(sources):
    """Problems that make ``--check`` fail: missing, stale or orphaned student notebooks."""
    fix = "run `python tools/student.py` (or `make student`)."
    problems = [f"{student_notebook_path(md).relative_to(ROOT)} is missing or differs from what "
                f"{md.relative_to(ROOT)} gives: {fix}" for md in sources if not student_notebook_path(md).exists()
                or student_notebook_path(md).read_text() != render(md)]
    stems = {Path(md).stem for md in book.chapter_sources()}
    return problems + [f"{p.relative_to(ROOT)} has no chapter source: delete it."
                       for p in sorted(STUDENT.glob("*.ipynb")) if p.stem not in stems]


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("files", nargs="*", type=Path, help="chapter sources (default: every chapter)")
    parser.add_argument("--check", action="store_true", help="write nothing; exit 1 if a notebook is out of date")
    args = parser.parse_args(argv)
    sources = [f.resolve().with_suffix(".md") for f in args.files] or book.chapter_sources()
    for md in sources:
        if not md.exists():
            raise SystemExit(f"{md} does not exist")
    if args.check:
        problems = check(sources)
        print("\n".join(problems + [f"{len(sources)} student notebooks checked, {len(problems)} problem(s)"]))
        return 1 if problems or WARNINGS else 0
    STUDENT.mkdir(exist_ok=True)
    for md in sources:
        text, target = render(md), student_notebook_path(md)
        changed = not target.exists() or target.read_text() != text
        if changed:
            target.write_text(text)
        print(f"{target.relative_to(ROOT)}: {'updated' if changed else 'unchanged'}")
    for orphan in [] if args.files else sorted(STUDENT.glob("*.ipynb")):
        if orphan.stem not in {md.stem for md in sources}:
            orphan.unlink()
            print(f"{orphan.relative_to(ROOT)}: removed (no chapter source)")
    return 1 if WARNINGS else 0


if __name__ == "__main__":
    sys.exit(main())
