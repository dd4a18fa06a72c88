"""The grader (tools/grade.py) against honest and hostile submissions.

Every submission here lives in a temporary folder and runs under the
grader's limits (short ones for these tests).  Chapter 2's student edition is
the usual victim: it runs in a few seconds.  The full-chapter tests grade
every page with exercises twice, untouched (0, "not implemented yet") and with
the solutions pasted in (full marks): they are the student edition's
execution tests.
"""

import csv
import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))

import book  # noqa: E402
import grade  # noqa: E402
import student  # noqa: E402

CH2 = "02_maximum_likelihood"
PAGES = [md.stem for md in book.chapter_sources() if grade.load_editions()[md.stem]["checks"]]


def _edition(page):
    return nbformat.read(ROOT / "student" / f"{page}.ipynb", as_version=4)


def _solved(page):
    return student.build(ROOT / "chapters" / f"{page}.md", with_solutions=True)


def _labels(page):
    """The page's exercise labels, in order (from its check cells)."""
    return [c.metadata["exercise"] for c in _edition(page).cells
            if c.cell_type == "code" and "check" in c.metadata.get("tags", [])]


def _cell(nb, tag, index=0):
    return [c for c in nb.cells if c.cell_type == "code" and tag in c.metadata.get("tags", [])][index]


def _grade(folder, out, *extra, tmpdir=None):
    cmd = [sys.executable, str(ROOT / "tools" / "grade.py"), str(folder), "--out", str(out), "-j", "2", *extra]
    env = None if tmpdir is None else {**os.environ, "TMPDIR": str(tmpdir)}
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=900, env=env)
    assert done.returncode == 0, done.stderr
    rows = {r["student"]: r for r in csv.DictReader(open(out / "grades.csv"))}
    return rows, done


def _feedback(out, name):
    return (out / "feedback" / f"{name}.md").read_text()


def _digest(folder):
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(folder.iterdir())}


@pytest.fixture(scope="module")
def hostile(tmp_path_factory):
    """One grader run over a class of honest and hostile chapter-2 submissions."""
    subs = tmp_path_factory.mktemp("submissions")
    out = tmp_path_factory.mktemp("grades")
    bern = "ex-bernoulli-mle"

    nbformat.write(_solved(CH2), subs / "honest.ipynb")
    nbformat.write(_edition(CH2), subs / "untouched.ipynb")

    nb = _edition(CH2)  # a check cell edited to print a pass
    _cell(nb, "check").source = f'print("[PASSED] {bern}: Passed: everything")'
    nbformat.write(nb, subs / "edited_check.ipynb")

    nb = _edition(CH2)  # lib.checks.<fn> and CheckResult redefined in an answer cell
    _cell(nb, "starter").source = (
        "import lib.checks\n"
        "from lib.checks._core import CheckResult\n"
        f"lib.checks.bernoulli_mle = lambda f: CheckResult('{bern}', 'passed', 'Passed: all')\n"
        "CheckResult.passed = property(lambda self: True)\n"
        "CheckResult.__init__ = lambda self, e, s, m: setattr(self, 'status', 'passed') or "
        "setattr(self, 'message', 'Passed') or setattr(self, 'exercise', e)\n"
        "def bernoulli_mle(x):\n    raise NotImplementedError\n")
    nbformat.write(nb, subs / "redefined.ipynb")

    nb = _edition(CH2)  # outputs pasted into the JSON, no code
    for cell in nb.cells:
        if cell.cell_type == "code" and "check" in cell.metadata.get("tags", []):
            label = cell.metadata["exercise"]
            cell.outputs = [nbformat.v4.new_output("stream", name="stdout", text=f"[PASSED] {label}: Passed\n"),
                            nbformat.v4.new_output("stream", name="stdout", text="GMRESULT-0 {\"status\": "
                                                   "\"passed\", \"message\": \"x\"}\n")]
    nbformat.write(nb, subs / "pasted_outputs.ipynb")

    nb = _solved(CH2)  # another page's notebook claiming to be chapter 2
    other = _solved("04_em_gaussian_mixtures")
    other.metadata["genmodels"]["page"] = CH2
    nbformat.write(other, subs / "renamed_other.ipynb")

    (subs / "empty.ipynb").write_text("")
    (subs / "corrupt.ipynb").write_text('{"cells": [')

    def with_answer(name, code, index=0):
        nb = _solved(CH2)
        _cell(nb, "starter", index).source = code
        nbformat.write(nb, subs / f"{name}.ipynb")

    with_answer("loops", "def bernoulli_mle(x):\n    while True:\n        pass\n")
    with_answer("sys_exit", "import sys\nsys.exit('bye')\n")
    with_answer("keyboard", "raise KeyboardInterrupt\n")
    with_answer("allocates", "import numpy as np\nbig = np.ones(10**10)\n")
    with_answer("prints", "print('x' * 5_000_000)\nfor _ in range(200):\n    print('y' * 100_000)\n")
    with_answer("writes", "open('junk.bin', 'wb').write(b'0' * 10_000_000)\n"
                          "open('../escape.txt', 'w').write('hello')\n")
    with_answer("os_exit", "import os\nos._exit(3)\n", index=2)  # the third exercise's starter

    before = _digest(subs)
    rows, done = _grade(subs, out, "--cell-timeout", "10", "--notebook-timeout", "300")
    return {"rows": rows, "out": out, "subs": subs, "before": before, "stdout": done.stdout, "stderr": done.stderr}


def test_honest_submission_full_marks_untouched_zero(hostile):
    rows = hostile["rows"]
    assert rows["honest"]["total"] == rows["honest"]["max"] == str(len(_labels(CH2)))
    assert rows["untouched"]["total"] == "0" and rows["untouched"]["max"] == str(len(_labels(CH2)))
    assert "not implemented yet" in _feedback(hostile["out"], "untouched")


@pytest.mark.parametrize("name", ["edited_check", "redefined", "pasted_outputs"])
def test_faked_passes_get_no_credit(hostile, name):
    row = hostile["rows"][name]
    assert row["ex-bernoulli-mle"] == "0", (name, row)
    assert row["total"] == "0", (name, row)


def test_a_notebook_of_another_chapter_gets_no_credit(hostile, tmp_path):
    row = hostile["rows"]["renamed_other"]
    assert row["total"] == "0"
    assert "do not match" in _feedback(hostile["out"], "renamed_other")
    # and with the assignment named, an honest notebook of another chapter is refused too
    subs = tmp_path / "subs"
    subs.mkdir()
    nbformat.write(_solved(CH2), subs / "wrong_chapter.ipynb")
    rows, _ = _grade(subs, tmp_path / "out", "--chapter", "04_em_gaussian_mixtures")
    assert rows["wrong_chapter"]["total"] == "0"
    assert "the assignment is 04_em_gaussian_mixtures" in _feedback(tmp_path / "out", "wrong_chapter")


@pytest.mark.parametrize("name", ["empty", "corrupt"])
def test_unreadable_notebooks_get_zero_and_a_clear_line(hostile, name):
    assert hostile["rows"][name]["total"] == "0"
    assert "could not be read as a notebook" in _feedback(hostile["out"], name)


@pytest.mark.parametrize("name,reason", [
    ("loops", "did not finish within 10 s"),
    ("sys_exit", "SystemExit"),
    ("keyboard", "KeyboardInterrupt"),
    ("allocates", "MemoryError"),
])
def test_misbehaving_answer_loses_its_exercise_only(hostile, name, reason):
    row = hostile["rows"][name]
    assert row["ex-bernoulli-mle"] == "0", row
    others = [row[label] for label in row if label.startswith("ex-") and label != "ex-bernoulli-mle"]
    assert others == ["1"] * (len(_labels(CH2)) - 1), row  # the other exercises are graded normally
    assert reason in _feedback(hostile["out"], name)


def test_a_dead_kernel_stops_the_rest_with_a_reason(hostile):
    row = hostile["rows"]["os_exit"]  # the kernel dies in the third exercise's starter
    first, second, third, *rest = _labels(CH2)
    assert row[first] == "1" and row[second] == "1"
    assert row[third] == "0" and all(row[label] == "0" for label in rest) and row["total"] == "2"
    assert "kernel stopped" in _feedback(hostile["out"], "os_exit")


def test_floods_and_file_writes_stay_harmless(hostile):
    for name in ("prints", "writes"):
        total = str(len(_labels(CH2)) - 1)
        assert hostile["rows"][name]["total"] == total, hostile["rows"][name]  # only the first exercise lost
    # nothing in the submissions folder was changed or added
    assert _digest(hostile["subs"]) == hostile["before"]
    assert not (hostile["subs"].parent / "escape.txt").exists()


def test_outputs_summary_and_progress(hostile):
    out = hostile["out"]
    names = {p.stem for p in hostile["subs"].glob("*.ipynb")}
    assert {p.stem for p in (out / "feedback").glob("*.md")} == names
    header = next(csv.reader(open(out / "grades.csv")))
    assert header[:2] == ["student", "chapter"] and header[-2:] == ["total", "max"]
    assert "pass rate by exercise" in hostile["stdout"] and "ex-bernoulli-mle" in hostile["stdout"]
    assert "graded" in hostile["stderr"]  # the progress bar


def test_rerun_skips_graded_submissions_unless_forced(tmp_path):
    subs = tmp_path / "subs"
    subs.mkdir()
    nbformat.write(_edition(CH2), subs / "a.ipynb")
    _grade(subs, tmp_path / "out")
    stamp = (tmp_path / "out" / "results" / "a.json").stat().st_mtime_ns
    _, again = _grade(subs, tmp_path / "out")
    assert "already graded: skipped" in again.stdout
    assert (tmp_path / "out" / "results" / "a.json").stat().st_mtime_ns == stamp
    _, forced = _grade(subs, tmp_path / "out", "--force")
    assert "skipped" not in forced.stdout
    assert (tmp_path / "out" / "results" / "a.json").stat().st_mtime_ns != stamp


def test_a_notebook_over_its_time_is_stopped(tmp_path):
    subs = tmp_path / "subs"
    subs.mkdir()
    nb = _solved(CH2)
    _cell(nb, "starter").source = "import time\ntime.sleep(30)\n"
    nbformat.write(nb, subs / "slow.ipynb")
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    rows, _ = _grade(subs, tmp_path / "out", "--notebook-timeout", "8", "--cell-timeout", "60", tmpdir=scratch)
    assert rows["slow"]["total"] == "0"
    assert "did not finish within 8 s" in _feedback(tmp_path / "out", "slow")
    assert not list(scratch.iterdir()), "the killed run left its working folder behind"


# ------------------------------------------------ every page of the book --

@pytest.fixture(scope="module")
def book_grades(tmp_path_factory):
    subs = tmp_path_factory.mktemp("book")
    for page in PAGES:
        nbformat.write(_solved(page), subs / f"solved-{page}.ipynb")
        nbformat.write(_edition(page), subs / f"untouched-{page}.ipynb")
    out = tmp_path_factory.mktemp("book-out")
    rows, _ = _grade(subs, out, "--cell-timeout", "120")
    return rows, out


def _statuses(out, name):
    result = json.loads((out / "results" / f"{name}.json").read_text())
    return {ex["exercise"]: (ex["status"], ex["message"]) for ex in result["exercises"]}


def _errors(out, name):
    return json.loads((out / "results" / f"{name}.json").read_text())["errors"]


@pytest.mark.parametrize("page", PAGES)
def test_every_page_solutions_score_full_marks(book_grades, page):
    """The student edition with the solutions pasted into the starters passes every check."""
    rows, out = book_grades
    row = rows[f"solved-{page}"]
    assert row["chapter"] == page
    failing = {k: v for k, v in _statuses(out, f"solved-{page}").items() if v[0] != "passed"}
    assert not failing, f"{page}: with the solutions pasted in, checks do not pass: {failing}"
    assert not _errors(out, f"solved-{page}"), f"{page}: cells raise with the solutions pasted in"
    assert int(row["max"]) > 0 and row["total"] == row["max"], row


@pytest.mark.parametrize("page", PAGES)
def test_every_page_untouched_scores_zero(book_grades, page):
    """The untouched student edition runs top to bottom and every check says "not implemented yet"."""
    rows, out = book_grades
    row = rows[f"untouched-{page}"]
    assert row["chapter"] == page and row["total"] == "0" and int(row["max"]) > 0, row
    for label, (status, message) in _statuses(out, f"untouched-{page}").items():
        assert status == "not implemented" and "not implemented yet" in message, (page, label, message)
    # only the starters raise (NotImplementedError): every other cell runs without a solution
    unexpected = [e for e in _errors(out, f"untouched-{page}")
                  if not ("starter" in e[1] and e[2] == "NotImplementedError")]
    assert not unexpected, f"{page}: cells other than starters fail in the student edition: {unexpected}"


def test_help_documents_the_limits():
    done = subprocess.run([sys.executable, str(ROOT / "tools" / "grade.py"), "--help"], capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 0
    for flag in ("--out", "--jobs", "--cell-timeout", "--notebook-timeout", "--memory", "--force", "--chapter"):
        assert flag in done.stdout


def test_results_are_json_per_student(hostile):
    result = json.loads((hostile["out"] / "results" / "honest.json").read_text())
    assert result["page"] == CH2 and all(ex["status"] == "passed" for ex in result["exercises"])


def test_the_kernel_sees_no_path_to_the_submissions(tmp_path):
    subs = tmp_path / "secret-class-folder"
    subs.mkdir()
    nb = _solved(CH2)
    starter = _cell(nb, "starter")
    starter.source = (
        "import os, sys\n"
        "leak = [k for k, v in os.environ.items() if 'secret-class-folder' in v]\n"
        "leak += [p for p in sys.path if 'secret-class-folder' in p]\n"
        "assert not leak and 'secret-class-folder' not in os.getcwd(), leak\n"
        + starter.source)  # then the honest solution
    nbformat.write(nb, subs / "curious.ipynb")
    rows, _ = _grade(subs, tmp_path / "out", "--cell-timeout", "60")
    assert rows["curious"]["total"] == rows["curious"]["max"], _feedback(tmp_path / "out", "curious")
