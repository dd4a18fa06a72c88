"""An instructor's own homework (issue 39): `python -m grader assignment` builds it, `grade --assignment` grades it.

* the example, ``examples/assignment/`` (three exercises on Chapter 2, public and hidden checks, one
  variant exercise), is built once: its student notebook holds no solution and nothing of
  ``hidden_checks.py``, passes the student editions' validation, and its check cells work with that one
  file (executed in a temporary folder: ``[TO DO]`` and ``[NOT YET]``); its answer key passes every check;
* a class of four (right; right only on the public checks; wrong, with a shortcut the allow-list refuses;
  hostile: it reads the assignment's folder and tries to carry the hidden inputs out in an exception) is
  handed out with a course key and graded in ONE grader run (a second run resumes): the hidden checks
  decide, the feedback names the hidden check that failed with its message and nothing of its inputs, the
  sandbox sees nothing of the assignment's folder;
* a homework written here by hand (not the example) goes from hw1.md to a student notebook and from a class
  to grades.csv, the hidden check deciding (the issue's "Done when"); its folder lies inside one the sandbox
  binds, and an answer that reads it finds nothing;
* every bad input is refused with a clear message before anything is written.
"""

import copy
import csv
import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # the grader package
sys.path.insert(0, str(ROOT / "tools"))
sys.path.insert(0, str(ROOT / "tests"))

from grader import assignment as tool  # noqa: E402
import student  # noqa: E402  (tools/student.py)
from grader import variants  # noqa: E402
from grader.find import notebook_seeds  # noqa: E402
from grader import assignment  # noqa: E402

EXAMPLE = ROOT / "examples" / "assignment" / "hw1.md"
LABELS = ["ex-hw-poisson-mle", "ex-hw-poisson-log-likelihood", "ex-hw-exponential-rate"]


def _code(nb, tag):
    return [c for c in nb.cells if c.cell_type == "code" and tag in c.metadata.get("tags", [])]


def _text(nb):
    return "\n".join(c.source for c in nb.cells)


def _outputs(cell):
    return "".join(o.get("text", "") or o.get("data", {}).get("text/plain", "") for o in cell.get("outputs", []))


def _execute(nb, where):
    import nbclient

    nbclient.NotebookClient(nb, timeout=300, kernel_name="python3",
                            resources={"metadata": {"path": str(where)}}).execute()
    return nb


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """The example, built once (into a temporary folder: nothing is written into the repository)."""
    out = tmp_path_factory.mktemp("build")
    hw, (student_path, key_path) = tool.build(EXAMPLE, out)
    return hw, nbformat.read(student_path, as_version=4), nbformat.read(key_path, as_version=4), out


# ------------------------------------------------------- the student notebook --

def test_student_notebook_holds_no_solution_and_nothing_hidden(built):
    hw, nb, _, _ = built
    assert not _code(nb, "solution")
    text = _text(nb)
    solution_lines = {line.strip() for ex in hw.exercises.values() for s in ex["solutions"]
                      for line in s.splitlines() if len(line.strip()) > 8}
    public = {line.strip() for line in (EXAMPLE.parent / "checks.py").read_text().splitlines()}
    public |= {line.strip() for c in hw.cells if c.cell_type == "code" and "solution" not in c.metadata.get("tags", [])
               for line in c.source.splitlines()}  # the starters' def lines
    assert len(solution_lines - public) >= 4
    assert not {line for line in solution_lines - public if line in text}
    assert "the inverse of the mean waiting time" not in text  # solution prose
    hidden = {line.strip() for line in (EXAMPLE.parent / "hidden_checks.py").read_text().splitlines()
              if len(line.strip()) > 12} - public
    assert not [line for line in hidden if line in text]
    assert "hidden_checks" not in text and "20261128" not in text


def test_student_notebook_is_valid_and_carries_the_public_checks(built):
    hw, nb, _, _ = built
    assert student.problems(nb) == []
    assert nb.metadata["genmodels"] == {"page": "hw1", "assignment": True}
    code = [c for c in nb.cells if c.cell_type == "code"]
    assert code[0].id == "assignment-setup" and "genmodels-lib==" in code[0].source  # the released lib
    carrier = code[1]
    assert carrier.id == assignment.CARRIER and "@check(\"ex-hw-poisson-mle\"" in carrier.source
    assert [c.metadata["exercise"] for c in _code(nb, "check")] == LABELS
    assert [c.metadata["points"] for c in _code(nb, "check")] == [2, 1, 1]
    assert len(_code(nb, "starter")) == 3 and len(_code(nb, "variant")) == 1
    rebuilt = assignment.student_notebook(assignment.load(EXAMPLE))  # stable: the same cells and ids
    assert [(c.id, c.source) for c in rebuilt.cells] == [(c.id, c.source) for c in nb.cells]


def test_check_cells_work_with_the_notebook_alone(built, tmp_path):
    """Executed in an empty folder: untouched starters say [TO DO]; a wrong answer says [NOT YET]."""
    _, nb, _, _ = built
    nb = copy.deepcopy(nb)
    _code(nb, "starter")[0].source = "def poisson_mle(x):\n    return float(x.sum() / (len(x) - 1))"
    _execute(nb, tmp_path)
    said = [_outputs(c) for c in _code(nb, "check")]
    assert said[0].startswith("[NOT YET] ex-hw-poisson-mle: you divided by n - 1"), said[0]
    assert said[1].startswith("[TO DO] ex-hw-poisson-log-likelihood"), said[1]
    assert said[2].startswith("[TO DO] ex-hw-exponential-rate"), said[2]
    assert "n = 12 waiting times" in _outputs(_code(nb, "variant")[0])
    assert sorted(p.name for p in tmp_path.iterdir()) == []  # nothing but the notebook was needed


def test_answer_key_passes_every_check(built):
    _, _, key, out = built
    checks = _code(key, "check")
    assert [_outputs(c).split("]")[0] for c in checks] == ["[PASSED"] * 3
    assert not [c for c in key.cells if c.id.startswith("verify-")]  # the key shows no hidden check
    assert "hidden_checks" not in _text(key)
    assert sorted(p.name for p in out.iterdir()) == ["hw1.ipynb", "hw1.key.ipynb"]


# -------------------------------------------------------------- grading --

def _grade(subs, out, *extra, status=0):
    cmd = [sys.executable, str(ROOT / "grader"), "grade", str(subs), "--out", str(out), "-j", "2", *extra]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=900)
    assert done.returncode == status, done.stderr
    return {r["student"]: r for r in csv.DictReader(open(out / "grades.csv"))}, done


def _answered(nb, answers):
    nb = copy.deepcopy(nb)
    for cell, source in zip(_code(nb, "starter"), answers):
        if source is not None:
            cell.source = source
    return nb


RIGHT = ["def poisson_mle(x):\n    return float(np.mean(x))",
         "from scipy.special import gammaln, xlogy\n\ndef poisson_log_likelihood(x, lam):\n"
         "    return float(xlogy(np.sum(x), lam) - len(x) * lam - np.sum(gammaln(x + 1)))",
         "answer = rate_variant.n / rate_variant.total"]
NAIVE_LL = ("from scipy.special import gammaln\n\ndef poisson_log_likelihood(x, lam):\n"
            "    return float(np.sum(x * np.log(lam) - lam - gammaln(x + 1)))")
SHORTCUT = ("from scipy.stats import poisson\n\ndef poisson_log_likelihood(x, lam):\n"
            "    return float(poisson.logpmf(x, lam).sum())")  # right numbers, but not the answer's own code
# What a hostile answer tries to read: the assignment's folder, its files and its build, by absolute path.
PROBE = textwrap.dedent("""\
    import os
    SEEN = []
    for path in {paths!r}:
        try:
            if os.path.isdir(path):
                SEEN.append(("READ " + repr(os.listdir(path))) if os.listdir(path) else "empty")
            elif os.path.isfile(path):
                SEEN.append("READ " + open(path).read()[:40])
            else:
                SEEN.append("nothing")
        except Exception as exc:
            SEEN.append(type(exc).__name__)

    def poisson_mle(x):
        raise RuntimeError("SEEN " + " | ".join(SEEN))
    """)
LEAK = ("def poisson_log_likelihood(x, lam):\n"
        "    if lam == 0:\n        raise ValueError('LEAKED ' + repr(x.tolist()))\n"
        "    from scipy.special import gammaln, xlogy\n"
        "    return float(xlogy(np.sum(x), lam) - len(x) * lam - np.sum(gammaln(x + 1)))")

# Issue 51's three channels for the hidden inputs: the first answer keeps what the hidden check hands it
# (its 5000 counts: no public check has a sample that long); the second, called by its own hidden check
# afterwards, raises them in an exception's class name, or in a home-made Delegation's .name (the checks'
# own exception, which names what an answer called); a cell after them raises them in its text.
KEEP = ("SEEN = []\ndef poisson_mle(x):\n    SEEN.append([int(v) for v in x])\n    return float(np.mean(x))")
_LL = ("    from scipy.special import gammaln, xlogy\n"
       "    return float(xlogy(np.sum(x), lam) - len(x) * lam - np.sum(gammaln(x + 1)))")
BY_NAME = ("def poisson_log_likelihood(x, lam):\n    big = [a for a in SEEN if len(a) == 5000]\n    if big:\n"
           "        raise type('LEAK' + ''.join(map(str, big[0][:30])), (ValueError,), {})('LEAK ' + repr(big[0][:50]))\n"
           + _LL)
BY_DELEGATION = ("class Delegation(Exception):\n    pass\n\ndef poisson_log_likelihood(x, lam):\n"
                 "    big = [a for a in SEEN if len(a) == 5000]\n    if big:\n        e = Delegation('LEAK')\n"
                 "        e.name = 'LEAK.' + '.'.join('v%d' % v for v in big[0][:40])\n        raise e\n" + _LL)
LATER_CELL = ("big = [a for a in SEEN if len(a) == 5000]\n"
              "if big:\n    raise RuntimeError('LEAK ' + repr(big[0][:100]))\n")


@pytest.fixture(scope="module")
def classroom(built, tmp_path_factory):
    """One grader run (-j 2), with a course key, over four handed-out notebooks of the example."""
    from sandbox_guard import require_sandbox

    require_sandbox(ROOT)
    _, _, _, build = built
    work = tmp_path_factory.mktemp("class")
    key = variants.write_key(work / "course.key")
    roster = work / "roster.csv"
    names = ["right", "publiconly", "wrong", "hostile", "leak_by_name", "leak_by_delegation"]
    roster.write_text("student\n" + "\n".join(names) + "\n")
    folders, _ = variants.handout(roster, key, work / "handout", editions=build)
    handed = {name: nbformat.read(folders[name] / "hw1.ipynb", as_version=4) for name in names}
    folder = str(EXAMPLE.parent)
    probe = PROBE.format(paths=[folder, str(EXAMPLE), f"{folder}/checks.py", f"{folder}/hidden_checks.py"])
    answers = {"right": RIGHT,
               "publiconly": [RIGHT[0], NAIVE_LL, "answer = 0.123"],
               "wrong": ["def poisson_mle(x):\n    return float(x.sum() / (len(x) - 1))", SHORTCUT,
                         "answer = rate_variant.total / rate_variant.n"],
               "hostile": [probe, LEAK, RIGHT[2]],
               "leak_by_name": [KEEP, BY_NAME, RIGHT[2]], "leak_by_delegation": [KEEP, BY_DELEGATION, RIGHT[2]]}
    subs = work / "submissions"
    subs.mkdir()
    for name in names:
        nb = _answered(handed[name], answers[name])
        if name == "hostile":  # its copy of the public checks' cell would kill the kernel: it is never run
            next(c for c in nb.cells if c.id == assignment.CARRIER).source = "import os\nos._exit(1)"
        if name.startswith("leak_"):
            nb.cells.append(nbformat.v4.new_code_cell(LATER_CELL))
        nbformat.write(nb, subs / f"{name}.ipynb")
    out = work / "grades"
    rows, done = _grade(subs, out, "--assignment", str(EXAMPLE), "--key", str(key), "--roster", str(roster))
    feedback = {name: (out / "feedback" / f"{name}.md").read_text() for name in names}
    results = {name: json.loads((out / "results" / f"{name}.json").read_text()) for name in names}
    return rows, feedback, results, done, handed, (subs, out, key, roster)


def _points(row):
    return [row[label] for label in LABELS]


def test_the_hidden_checks_decide(classroom):
    rows, feedback, results, done, handed, _ = classroom
    assert _points(rows["right"]) == ["2", "1", "1"] and rows["right"]["total"] == "4"
    assert _points(rows["publiconly"]) == ["2", "0", "0"]
    assert _points(rows["wrong"]) == ["0", "0", "0"]
    said = {ex["exercise"]: ex["message"] for ex in results["publiconly"]["exercises"]}
    assert said["ex-hw-poisson-log-likelihood"].startswith("the public check passed, the hidden check did not")
    assert "returned NaN" in said["ex-hw-poisson-log-likelihood"]
    assert "not the maximum likelihood estimate of the rate for your numbers" in said["ex-hw-exponential-rate"]
    assert "Hidden check: passed." in said["ex-hw-poisson-mle"]
    wrong = {ex["exercise"]: ex["message"] for ex in results["wrong"]["exercises"]}
    assert wrong["ex-hw-poisson-mle"].startswith("public check: you divided by n - 1")
    assert wrong["ex-hw-exponential-rate"].startswith("public check: you gave the mean waiting time")
    assert wrong["ex-hw-poisson-log-likelihood"].startswith("public check: your function calls `scipy.stats")
    assert "`scipy.special.gammaln`, `scipy.special.xlogy`" in wrong["ex-hw-poisson-log-likelihood"]  # allow-list
    # each student's own numbers: the handout gave seeds, and the right answer to them passed
    seeds = {name: notebook_seeds(handed[name])["ex-hw-exponential-rate"] for name in handed}
    assert len(set(seeds.values())) == len(handed) and 0 not in seeds.values()
    assert "every notebook holds its own student's seeds" in done.stdout
    assert "pass rate by exercise" in done.stdout and "similarity: " in done.stdout  # the summary, the report


def test_the_sandbox_never_sees_the_assignment_and_nothing_hidden_leaks(classroom):
    rows, feedback, results, _, _, _ = classroom
    seen = results["hostile"]["exercises"][0]["message"]
    assert "SEEN " in seen and "READ" not in seen, seen
    assert _points(rows["hostile"]) == ["0", "0", "1"]  # its kernel lived to the end: its carrier cell never ran
    leak = results["hostile"]["exercises"][1]["message"]
    assert "raised an exception: ValueError" in leak and "LEAKED" not in leak, leak
    for text in feedback.values():
        assert "LEAKED" not in text and "hidden_checks" not in text and "20261128" not in text


def test_hidden_inputs_reach_no_feedback_through_any_channel(classroom):
    rows, feedback, results, _, _, (_, out, _, _) = classroom
    for name in ("leak_by_name", "leak_by_delegation"):
        assert _points(rows[name]) == ["2", "0", "1"], (name, rows[name])  # its own hidden check failed it
        page = (out / "feedback" / f"{name}.html").read_text()
        for text in (feedback[name], page, json.dumps(results[name])):
            assert "LEAK" not in text, (name, text)
    said = {name: results[name]["exercises"][1]["message"] for name in ("leak_by_name", "leak_by_delegation")}
    assert "raised an exception: an exception. Run it" in said["leak_by_name"], said
    assert "your function calls a function this exercise does not allow" in said["leak_by_delegation"], said


def test_html_feedback_has_no_link_to_the_web_book(classroom):
    """An instructor's homework is not a page of the web book: its HTML feedback links nowhere."""
    *_, (subs, out, key, roster) = classroom
    page = (out / "feedback" / "publiconly.html").read_text()
    assert "ex-hw-poisson-log-likelihood" in page and "the hidden check did not" in page
    assert "<a " not in page and "href" not in page


def test_a_second_run_resumes(classroom):
    """Run again without --force: every student is skipped and grades.csv is the same."""
    rows, _, _, _, _, (subs, out, key, roster) = classroom
    again, done = _grade(subs, out, "--assignment", str(EXAMPLE), "--key", str(key), "--roster", str(roster))
    assert f"{len(rows)} submission(s) already graded: skipped" in done.stdout
    assert again == rows


def test_hidden_message_keeps_only_the_checks_own_words():
    made = ("poisson_mle raised an exception: LEAK0_0_4: [0, 0, 4]. Run it on a small input in a cell of its "
            "own to debug it.")
    assert assignment.hidden_message(made) == ("poisson_mle raised an exception: an exception. Run it on a small "
                                                "input in a cell of its own to debug it.")
    called = "your function calls `LEAK.v0.v0.v4`; this exercise asks you to write it."
    assert assignment.hidden_message(called) == ("your function calls a function this exercise does not allow; "
                                                 "this exercise asks you to write it.")
    data = "your function's value could not be read as data: LEAK [0, 0, 4]"
    assert assignment.hidden_message(data) == "your function's value could not be read as data."


def test_hidden_message_removes_the_text_of_an_exception():
    said = ("poisson_mle raised an exception: ValueError: [0, 0, 4]. Run it on a small input in a cell of its "
            "own to debug it.")
    assert assignment.hidden_message(said) == ("poisson_mle raised an exception: ValueError. Run it on a small "
                                               "input in a cell of its own to debug it.")
    assert assignment.hidden_message("not the log-likelihood.") == "not the log-likelihood."


# ------------------------------------------------- a homework written by hand --

PAGE = """\
---
jupytext:
  text_representation:
    extension: .md
    format_name: myst
kernelspec:
  display_name: Python 3
  language: python
  name: python3
---

# Week 3: the variance

```{code-cell} ipython3
import numpy as np
```

```{exercise-start} The maximum likelihood variance
:label: ex-week3-variance
```

Write `mle_variance(x)`: the maximum likelihood estimate of the variance of a Gaussian sample `x`.

```{code-cell} ipython3
:tags: [starter]
def mle_variance(x):
    raise NotImplementedError
```

```{exercise-end}
```

```{solution-start} ex-week3-variance
:class: dropdown
```

Divide by $n$, not $n - 1$.

```{code-cell} ipython3
:tags: [solution]
def mle_variance(x):
    return float(np.mean((x - np.mean(x)) ** 2))
```

```{solution-end}
```

```{code-cell} ipython3
:tags: [check]
checks.mle_variance(mle_variance)
```
"""
CHECKS = """\
import numpy as np
from lib.checks._core import Failure, call, check, expect_scalar


@check("ex-week3-variance", "right on the sample [1, 2, 3, 4].")
def mle_variance(fn):
    got = expect_scalar(call(fn, np.array([1.0, 2.0, 3.0, 4.0])), "the variance", name="mle_variance")
    if abs(got - 1.25) > 1e-9:
        raise Failure("not the maximum likelihood variance of [1, 2, 3, 4].")
"""
HIDDEN = """\
import numpy as np
from lib.checks._core import Failure, call, check, expect_scalar


@check("ex-week3-variance", "right on 3 more samples.")
def variance_more(fn):
    rng = np.random.default_rng(99)
    for n in (2, 10, 1000):
        x = rng.normal(3.0, 2.0, size=n)
        got = expect_scalar(call(fn, x), "the variance", name="mle_variance")
        if abs(got - np.var(x)) > 1e-9 * max(1.0, np.var(x)):
            raise Failure(f"not the maximum likelihood variance of a sample of size {n}.")
"""


def _homework(folder, page=PAGE, checks=CHECKS, hidden=HIDDEN):
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "hw1.md").write_text(page)
    if checks is not None:
        (folder / "checks.py").write_text(checks)
    if hidden is not None:
        (folder / "hidden_checks.py").write_text(hidden)
    return folder / "hw1.md"


def test_a_homework_written_by_hand_goes_to_grades(tmp_path):
    """The guide's commands (guide/own_homework.md) on a new folder: make assignment, then make grade ASSIGNMENT=.

    The folder lies inside one the sandbox binds (the venv, as tests/test_sandbox_audit.py plants its
    secrets): a third student's answer reads it and finds nothing, while a file beside it is readable.
    """
    import secrets

    from sandbox_guard import require_sandbox

    require_sandbox(ROOT)
    plant = Path(os.path.realpath(sys.prefix)) / f"gm-assignment-{secrets.token_hex(4)}"
    try:
        md = _homework(plant / "week3")
        (plant / "readme.txt").write_text("visible\n")
        make = subprocess.run([sys.executable, str(ROOT / "grader"), "assignment", str(md)],
                              capture_output=True, text=True, timeout=600)
        assert make.returncode == 0, make.stderr
        assert "1 exercise(s), 1 with a hidden check: every solution passes every check." in make.stdout
        nb = nbformat.read(md.parent / "build" / "hw1.ipynb", as_version=4)
        assert student.problems(nb) == [] and "np.mean((x - np.mean(x))" not in _text(nb)
        subs = tmp_path / "handed_in"
        subs.mkdir()
        nbformat.write(_answered(nb, ["def mle_variance(x):\n    return float(np.var(x))"]), subs / "ada.ipynb")
        nbformat.write(_answered(nb, ["def mle_variance(x):\n    return 1.25"]), subs / "bob.ipynb")  # tuned
        asked = [str(md.parent), str(md), str(md.parent / "hidden_checks.py"),
                 str(md.parent / "build" / "hw1.key.ipynb"), str(plant / "readme.txt")]
        probe = PROBE.format(paths=asked).replace("def poisson_mle(x):", "def mle_variance(x):")
        nbformat.write(_answered(nb, [probe]), subs / "eve.ipynb")
        out = tmp_path / "grades"
        rows, _ = _grade(subs, out, "--assignment", str(md))
    finally:
        shutil.rmtree(plant, ignore_errors=True)
    assert rows["ada"]["ex-week3-variance"] == "1" and rows["bob"]["ex-week3-variance"] == "0"
    feedback = (out / "feedback" / "bob.md").read_text()
    assert "the hidden check did not" in feedback and "sample of size 2" in feedback
    seen = json.loads((out / "results" / "eve.json").read_text())["exercises"][0]["message"]
    seen = seen.split("SEEN ", 1)[1].split(". Run it")[0].split(" | ")
    assert seen[-1].startswith("READ visible"), seen  # the planted folder is visible: the test is real
    assert not [s for s in seen[:-1] if s.startswith("READ")], seen


# ----------------------------------------------------------- bad input --

BAD = {
    "a check cell that names no check": (
        lambda p, c, h: (p.replace("checks.mle_variance(mle_variance)", "checks.variance(mle_variance)"), c, h),
        "calls checks.variance, which names no check of checks.py"),
    "a label with no starter": (
        lambda p, c, h: (p.replace(":tags: [starter]\n", ""), c, h),
        "exercise ex-week3-variance has no starter cell"),
    "a missing checks.py": (lambda p, c, h: (p, None, h), "checks.py is missing"),
    "a hidden check for a label the page does not have": (
        lambda p, c, h: (p, c, h.replace('@check("ex-week3-variance"', '@check("ex-week4-mean"')),
        "checks ex-week4-mean, a label hw1.md does not have"),
    "an exercise without a label": (
        lambda p, c, h: (p.replace(":label: ex-week3-variance\n", ""), c, h), "without a `:label:`"),
    "a check cell that is not one call": (
        lambda p, c, h: (p.replace("checks.mle_variance(mle_variance)", "print(checks.mle_variance(1))"), c, h),
        "is not a single call checks.<name>(...)"),
    "raw MyST left in the page": (
        lambda p, c, h: (p.replace("Write `mle_variance(x)`:", "(week3-variance)=\nWrite `mle_variance(x)`:"), c, h),
        "raw MyST"),
}


@pytest.mark.parametrize("case", list(BAD), ids=list(BAD))
def test_bad_input_is_refused_before_anything_is_written(case, tmp_path, capsys):
    change, said = BAD[case]
    page, checks, hidden = change(PAGE, CHECKS, HIDDEN)
    md = _homework(tmp_path, page, checks, hidden)
    before = sorted(p.name for p in tmp_path.iterdir())
    assert tool.main([str(md)]) == 2
    err = capsys.readouterr().err
    assert said in err and "Nothing was written." in err, err
    assert sorted(p.name for p in tmp_path.iterdir()) == before


def test_a_solution_that_fails_its_own_check_is_refused(tmp_path, capsys):
    md = _homework(tmp_path, PAGE.replace("return float(np.mean((x - np.mean(x)) ** 2))",
                                          "return float(np.var(x, ddof=1))"))
    assert tool.main([str(md)]) == 2
    err = capsys.readouterr().err
    assert "the solution of ex-week3-variance fails its public check checks.mle_variance" in err, err
    assert not (tmp_path / "build").exists()


def test_grade_refuses_a_bad_assignment_before_grading(tmp_path):
    md = _homework(tmp_path / "hw", checks=None)
    (tmp_path / "subs").mkdir()
    done = subprocess.run([sys.executable, str(ROOT / "grader"), "grade", str(tmp_path / "subs"), "--out",
                           str(tmp_path / "out"), "--assignment", str(md)], capture_output=True, text=True,
                          timeout=120, env={**os.environ})
    assert done.returncode == 2 and "checks.py is missing" in done.stderr
    assert not (tmp_path / "out").exists()


def test_handout_of_an_assignment_not_built_is_refused(tmp_path, capsys):
    md = _homework(tmp_path / "hw")
    key = variants.write_key(tmp_path / "course.key")
    (tmp_path / "roster.csv").write_text("student\nann\n")
    assert variants.main(["handout", "--roster", str(tmp_path / "roster.csv"), "--key", str(key), "--out",
                          str(tmp_path / "out"), "--assignment", str(md)]) == 2
    assert "run `make assignment SRC=" in capsys.readouterr().err
    assert not (tmp_path / "out").exists()


def test_reroll_and_show_take_an_assignment(tmp_path, capsys):
    key = variants.write_key(tmp_path / "course.key")
    (tmp_path / "roster.csv").write_text("student\nann\n")
    label = "ex-hw-exponential-rate"
    assert variants.main(["reroll", "--key", str(key), "--student", "ann", "--exercise", label,
                          "--assignment", str(EXAMPLE)]) == 0
    assert ("ann", label) in variants.read_overrides(key)
    assert variants.main(["show", "--roster", str(tmp_path / "roster.csv"), "--key", str(key),
                          "--assignment", str(EXAMPLE)]) == 0
    shown = capsys.readouterr().out
    assert f"  {label} (seed {variants.read_overrides(key)[('ann', label)]}): n = " in shown
    assert "ex-gaussian-kl-value" not in shown  # the assignment's variants only
