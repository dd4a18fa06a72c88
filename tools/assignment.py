"""Build an instructor's own homework: the student notebook and the answer key (``make assignment``).

    python tools/assignment.py path/to/hw1.md [--out path/to/build]
    make assignment SRC=path/to/hw1.md

``hw1.md`` is a MyST notebook in the book's exercise format; ``checks.py`` beside it holds the public
checks and ``hidden_checks.py`` the hidden ones (what an assignment is, and what is refused:
``tools/grader/assignment.py``).  This writes, under ``path/to/build/`` (or ``--out``):

* ``hw1.ipynb``, the student notebook: statements, starters, variant and check cells, the set-up cell
  that installs ``lib`` (PyPI's release, or else the wheel on the book's site), and the public checks in
  one cell, so that the check cells work on Colab or Binder with this file alone; no solution, nothing of
  the hidden checks;
* ``hw1.key.ipynb``, the answer key, executed: each solution in its starter's place.

To run ``hw1.md`` itself in Jupyter while writing it (Jupytext opens it as a notebook), put the line
``import checks`` in a code cell above the first check cell: ``checks.py`` lies beside the page.  Both
notebooks leave that line out; there the cell that carries the public checks defines ``checks``.

The key is executed first, in a kernel of its own in a temporary folder, with every public and every
hidden check run after its check cell: unless all pass, nothing is written and the message names the
check.  Hand the student notebook out as it is, or with per-student variants
(``make handout ROSTER=... KEY=... ASSIGNMENT=path/to/hw1.md``); grade with
``make grade SUBMISSIONS=dir ASSIGNMENT=path/to/hw1.md``.
"""

import argparse
import json
import sys
import tempfile
from pathlib import Path

_TOOLS = str(Path(__file__).resolve().parent)
if _TOOLS not in sys.path:
    sys.path.insert(0, _TOOLS)

from grader import assignment as homework  # noqa: E402
from grader.assignment import AssignmentError  # noqa: E402

MARK = "GM-VERIFY "


def _verify_cells(hw):
    """{check cell id: cell} that run the exercise's public and hidden checks and print their results."""
    import nbformat

    loader = ("import importlib.util as _gm_util, json as _gm_json\n"
              "def _gm_report(label, kind, result):\n"
              f"    print({MARK!r} + _gm_json.dumps([label, kind, result.status, result.message]))\n")
    hidden = hw.md.parent / "hidden_checks.py"
    if hw.hidden:
        loader += (f"_gm_spec = _gm_util.spec_from_file_location('gm_hidden_checks', {str(hidden)!r})\n"
                   "_gm_hidden = _gm_util.module_from_spec(_gm_spec)\n"
                   "_gm_spec.loader.exec_module(_gm_hidden)\n")
    cells = {homework.CARRIER: nbformat.v4.new_code_cell(loader, id="verify-loader")}
    for label, ex in hw.exercises.items():
        check = ex["check"]
        args = ", ".join([*check["args"], *(f"{k}={v}" for k, v in check["kwargs"].items())])
        source = f"_gm_report({label!r}, 'public', checks.{check['name']}({args}))\n"
        if label in hw.hidden:
            source += f"_gm_report({label!r}, 'hidden', _gm_hidden.{hw.hidden[label].__name__}({args}))\n"
        cells[check["id"]] = nbformat.v4.new_code_cell(source, id=f"verify-{check['id']}")
    return cells


def execute_key(hw, timeout=600):
    """The answer key, executed; AssignmentError naming the first check it does not pass."""
    import nbclient
    import nbformat

    key = homework.key_notebook(hw)
    extra = _verify_cells(hw)
    run = nbformat.v4.new_notebook(metadata=key.metadata)
    for cell in key.cells:
        run.cells.append(cell)
        if cell.get("id") in extra:
            run.cells.append(extra[cell.id])
    with tempfile.TemporaryDirectory(prefix="gm-answer-key-") as where:
        client = nbclient.NotebookClient(run, timeout=timeout, kernel_name="python3",
                                         resources={"metadata": {"path": where}})
        try:
            client.execute()
        except nbclient.exceptions.CellExecutionError as exc:
            raise AssignmentError(f"{hw.md.name}: the answer key stopped with an error: "
                                  f"{str(exc).strip().splitlines()[-1]}") from None
    results = {}
    for cell in run.cells:
        for output in cell.get("outputs", []):
            for line in output.get("text", "").splitlines() if output.get("name") == "stdout" else []:
                if line.startswith(MARK):
                    label, kind, status, message = json.loads(line[len(MARK):])
                    results[(label, kind)] = (status, message)
    for label, ex in hw.exercises.items():
        for kind in ("public", "hidden") if label in hw.hidden else ("public",):
            status, message = results.get((label, kind), ("not run", "the check did not report"))
            if status != "passed":
                name = f"checks.{ex['check']['name']}" if kind == "public" else \
                    f"hidden_checks.{hw.hidden[label].__name__}"
                raise AssignmentError(f"{hw.md.name}: the solution of {label} fails its {kind} check {name}: "
                                      f"{message}")
    key.cells = [c for c in run.cells if not c.get("id", "").startswith("verify-")]
    for cell in key.cells:  # the same bytes at every build of the same page
        cell.metadata.pop("execution", None)
    return key


def build(src, out=None):
    """Check ``src``, execute its key, then write the two notebooks; returns their paths."""
    import nbformat

    hw = homework.load(src)
    student = homework.student_notebook(hw)
    key = execute_key(hw)
    out = Path(out) if out else hw.md.parent / "build"
    out.mkdir(parents=True, exist_ok=True)
    paths = out / f"{hw.name}.ipynb", out / f"{hw.name}.key.ipynb"
    nbformat.write(student, paths[0])
    nbformat.write(key, paths[1])
    return hw, paths


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("src", type=Path, help="the assignment's page, path/to/hw1.md")
    parser.add_argument("--out", type=Path, help="output folder (default: build/ beside the page)")
    args = parser.parse_args(argv)
    try:
        hw, (student, key) = build(args.src, args.out)
    except AssignmentError as exc:
        print(f"assignment.py: {exc}\nNothing was written.", file=sys.stderr)
        return 2
    hidden = sum(label in hw.hidden for label in hw.exercises)
    print(f"{len(hw.exercises)} exercise(s), {hidden} with a hidden check"
          + (f", {len(hw.variants)} with variants" if hw.variants else "") + ": every solution passes "
          f"every check.\nstudent notebook: {student}\nanswer key (keep it private): {key}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
