"""The authorship rule through the real grader (issue 49): a hostile class, honest classmates at full marks.

36 evasions of tests/authorship_corpus.py (all but near-twins), one per exercise, three to a notebook (chapter 2's first
page: its three exercises), plus a table of the checks' inputs filled with lib's answers in a cell
outside any answer (the notebook's own check cell passes it; the grader draws inputs the submission
cannot know).  Honest classmates: the book's solutions in the full edition with a cell of exploration
and magics, and the hand-written alternatives.  Notebooks keep only the cells they need (a student may
delete the page's other cells), so the class grades in about a minute with ``-j 2``.
"""

import csv
import copy
import subprocess
import sys
from pathlib import Path

import nbformat
import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
sys.path.insert(0, str(ROOT / "tests"))

import authorship_corpus as corpus  # noqa: E402
import lib.checks  # noqa: E402
from sandbox_guard import require_sandbox  # noqa: E402

require_sandbox(ROOT)

CH2 = "02_maximum_likelihood"
EXERCISES = list(corpus.CH2_EXERCISES)
# through the grader: every evasion but near-twins of others (all of them: tests/test_authorship.py)
TWINS = {"own-profiler", "threading", "vars", "gc", "inspect", "eval", "setattr-module", "list-store", "local-import"}
LABELS = sorted(set(corpus.EVASIONS) - TWINS)
GROUPS = [LABELS[i:i + 3] for i in range(0, len(LABELS), 3)]  # three evasions, one per exercise, a notebook


def _edition():
    return nbformat.read(ROOT / "student" / f"{CH2}.ipynb", as_version=4)


def _solutions():
    """{exercise: the book's solution source} from the executed chapter (its check cells carry the edition's ids)."""
    chapter = nbformat.read(ROOT / "chapters" / f"{CH2}.ipynb", as_version=4)
    ids = {c.id: c.metadata["exercise"] for c in _edition().cells if "check" in c.metadata.get("tags", [])}
    out, last = {}, None
    for cell in chapter.cells:
        if "solution" in cell.metadata.get("tags", []):
            last = cell.source
        elif cell.get("id") in ids:
            out[ids[cell.id]] = last
    return out


def _notebook(answers, full=False, extra=()):
    """The edition with ``answers`` ({exercise: [cells]}; the last replaces the starter, the others go
    before it); without ``full``, only the imports, the starters and the checks are kept."""
    nb = copy.deepcopy(_edition())
    checks = {c.metadata["exercise"]: i for i, c in enumerate(nb.cells) if "check" in c.metadata.get("tags", [])}
    for exercise, cells in answers.items():
        at = checks[exercise]
        starter = next(i for i in range(at - 1, -1, -1) if "starter" in nb.cells[i].metadata.get("tags", []))
        nb.cells[starter].source = cells[-1]
        nb.cells[starter:starter] = [nbformat.v4.new_code_cell(text, id=f"mine-{exercise}-{k}")
                                     for k, text in enumerate(cells[:-1])]
        checks = {c.metadata["exercise"]: i for i, c in enumerate(nb.cells) if "check" in c.metadata.get("tags", [])}
    if extra:
        nb.cells[3:3] = [nbformat.v4.new_code_cell(text, id=f"extra-{k}") for k, text in enumerate(extra)]
    if not full:  # the imports a student needs, the answers and the checks: a kernel that starts fast
        nb.cells = [c for c in nb.cells if c.cell_type == "code" and (
            c.id == "cell-003" or c.id.startswith(("mine-", "extra-"))
            or {"starter", "check"} & set(c.metadata.get("tags", [])))]
        next(c for c in nb.cells if c.id == "cell-003").source = "import numpy as np\n\nimport lib\n"
    return nb


def _table_of_inputs():
    """An answer to ex-bernoulli-mle that looks up the check cell's own inputs in a table of lib's answers."""
    from lib.checks import _core

    seen = []

    def recorder(x):
        seen.append(tuple(int(v) for v in x))
        return float(np.mean(x))

    assert lib.checks.bernoulli_mle(recorder).passed
    table = {key: lib.mle.bernoulli_mle(np.array(key)) for key in seen}
    cells = [f"TABLE = {table!r}\n", "def bernoulli_mle(x):\n    return TABLE[tuple(int(v) for v in x)]\n"]
    namespace = {"np": np}
    for text in cells:
        exec(text, namespace)
    assert lib.checks.bernoulli_mle(namespace["bernoulli_mle"]).passed  # the notebook's own check cell: fooled
    with _core.salted(12345):
        assert not lib.checks.bernoulli_mle(namespace["bernoulli_mle"]).passed  # other inputs: KeyError
    return cells


EXPLORING = ["x_demo = np.array([1, 0, 1, 1])\nprint(lib.mle.bernoulli_mle(x_demo))\n%timeit lib.mle.bernoulli_mle(x_demo)\n"
             "%matplotlib inline\nresults = {}\nresults['lib'] = lib.mle.bernoulli_mle(x_demo)\n"]


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    subs, out = tmp_path_factory.mktemp("authorship"), tmp_path_factory.mktemp("authorship-out")
    solutions = _solutions()
    nbformat.write(_notebook({ex: [solutions[ex]] for ex in EXERCISES}, full=True, extra=EXPLORING),
                   subs / "honest-book.ipynb")
    for k in range(1):  # one notebook of alternatives here; every one of them: tests/test_authorship.py
        answers = {}
        for ex in EXERCISES:
            alt = corpus.ALTERNATIVES[ex][k]
            answers[ex] = [alt] if isinstance(alt, str) else alt
        nbformat.write(_notebook(answers), subs / f"honest-alternative-{k}.ipynb")
    for n, group in enumerate(GROUPS):
        answers = {ex: corpus.evasion_cells(label, ex) for ex, label in zip(EXERCISES, group)}
        nbformat.write(_notebook(answers), subs / f"evasion-{n:02d}.ipynb")
    table = {"ex-bernoulli-mle": _table_of_inputs()}
    nbformat.write(_notebook({**{ex: [solutions[ex]] for ex in EXERCISES}, **table}), subs / "evasion-table.ipynb")
    cmd = [sys.executable, str(ROOT / "grader"), "grade", str(subs), "--out", str(out), "-j", "2"]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=1200)
    assert done.returncode == 0, done.stderr
    rows = {r["student"]: r for r in csv.DictReader(open(out / "grades.csv"))}
    return rows, out


def _feedback(out, student, exercise):
    text = (out / "feedback" / f"{student}.md").read_text()
    return next(line for line in text.splitlines() if line.startswith("| Exercise ") and f"({exercise}) |" in line)


def test_honest_classmates_keep_full_marks(graded):
    rows, _ = graded
    for student in ["honest-book", "honest-alternative-0"]:
        assert all(rows[student][ex] == "1" for ex in EXERCISES), rows[student]


@pytest.mark.parametrize("n", range(len(GROUPS)))
def test_every_evasion_earns_zero(graded, n):
    rows, out = graded
    student = f"evasion-{n:02d}"
    for exercise, label in zip(EXERCISES, GROUPS[n]):
        assert rows[student][exercise] == "0", (label, rows[student])
        line = _feedback(out, student, exercise)
        assert "0 points for this exercise" in line or "calls `" in line or "is `" in line, (label, line)


def test_a_table_of_the_notebooks_inputs_earns_zero(graded):
    rows, out = graded
    assert rows["evasion-table"]["ex-bernoulli-mle"] == "0", rows["evasion-table"]
    assert "KeyError" in _feedback(out, "evasion-table", "ex-bernoulli-mle")
    assert all(rows["evasion-table"][ex] == "1" for ex in EXERCISES[1:]), rows["evasion-table"]


def test_the_corpus_is_large_enough():
    assert len(LABELS) >= 36 and sum(len(v) for v in corpus.ALTERNATIVES.values()) >= 2 * len(EXERCISES)
