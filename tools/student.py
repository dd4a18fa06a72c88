"""Build the student edition of the book: one plain Jupyter notebook per page.

    python tools/student.py [chapters/NN_name.md ...]
    python tools/student.py --check

The notebooks are written by the ``student`` Sphinx builder (``_ext/student_edition.py``)
from the resolved doctrees of the HTML build (``_build/.doctrees``; only pages whose
source changed are read again), so every number, reference text and citation is the
one the HTML shows.  This script runs the builder once and copies its output
(``_build/student/NN_name.ipynb``) to ``student/``, rewriting only files that
changed: an unchanged book rewrites no byte.  Compared with the source, a student
notebook

* starts with a Markdown cell saying what the student edition is, how to do the
  exercises and where the page's HTML is;
* has no solutions: no cell tagged ``solution``, nothing between
  ``solution-start`` and ``solution-end``, no ``solution`` directive;
* keeps the set-up, starter and check cells unchanged (code cells are copied from
  the ``.md`` with their ids, tags and metadata; outputs empty); a check cell's
  metadata names its exercise (``exercise``), which ``tools/grade.py`` reads;
* shows the Markdown through sphinx-markdown-builder: admonitions, theorems and
  proofs as block quotes, exercises as "### Exercise N (title)", numbered
  equations with ``\\tag{N}``, figure captions with their numbers, references to
  other pages as links to the HTML, citations "(Author, Year)" with the cited works
  listed at the end.

``--check`` writes nothing and exits 1 naming every student notebook that is
missing, differs from what the build gives, or has no page any more.
``build(md, with_solutions=True)`` gives the answer key the tests run: each
exercise's starter cells replaced by its solution cells.
"""

import argparse
import os
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import book  # noqa: E402  (tools/book.py)

ROOT = book.ROOT
STUDENT = ROOT / "student"
OUT = ROOT / "_build" / "student"
_BUILT = False


def run_builder(fresh=False):
    """Run the ``student`` Sphinx builder (once per process unless ``fresh``); exit on warnings."""
    global _BUILT
    if _BUILT and not fresh:
        return
    jupyter_book = Path(sys.executable).parent / "jupyter-book"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
    proc = subprocess.run([str(jupyter_book), "build", str(ROOT), "--builder", "custom", "--custom-builder", "student"],
                          cwd=ROOT, env=env, capture_output=True, text=True)
    warnings = [line for line in (proc.stdout + proc.stderr).splitlines()
                if "WARNING" in line or "ERROR" in line or "Traceback" in line]
    if proc.returncode or warnings:
        sys.stderr.write(proc.stdout[-4000:] + proc.stderr[-4000:])
        raise SystemExit("the student builder failed or warned:\n" + "\n".join(warnings))
    _BUILT = True


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
    import nbformat

    return nbformat.reads(render(md, with_solutions), as_version=4)


def check(sources):
    """Problems that make ``--check`` fail: missing, stale or orphaned student notebooks."""
    problems = []
    for md in sources:
        target = student_notebook_path(md)
        rel = target.relative_to(ROOT)
        if not target.exists():
            problems.append(f"{rel} is missing: run `python tools/student.py` (or `make student`).")
        elif target.read_text() != render(md):
            problems.append(f"{rel} differs from what {md.relative_to(ROOT)} gives: "
                            "run `python tools/student.py` (or `make student`).")
    stems = {Path(md).stem for md in book.chapter_sources()}
    problems += [f"{p.relative_to(ROOT)} has no chapter source: delete it."
                 for p in sorted(STUDENT.glob("*.ipynb")) if p.stem not in stems]
    return problems


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("files", nargs="*", type=Path, help="chapter sources (default: every chapter)")
    parser.add_argument("--check", action="store_true",
                        help="write nothing; exit 1 if a student notebook is missing or out of date")
    args = parser.parse_args(argv)
    sources = [f.resolve().with_suffix(".md") for f in args.files] or book.chapter_sources()
    for md in sources:
        if not md.exists():
            raise SystemExit(f"{md} does not exist")
    if args.check:
        problems = check(sources)
        print("\n".join(problems + [f"{len(sources)} student notebooks checked, {len(problems)} problem(s)"]))
        return 1 if problems else 0
    STUDENT.mkdir(exist_ok=True)
    for md in sources:
        text, target = render(md), student_notebook_path(md)
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
