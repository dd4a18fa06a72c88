"""The authorship rule judged from the notebook's code (issue 49), as plain unit tests on sources.

No kernel runs here: the rule (lib/checks/_policy.py over lib/checks/_analysis.py, read by
grader/source.py) is applied to notebooks built in memory.  Evasions (tests/authorship_corpus.py)
must be refused for their exercise and only from where they are; the book's own solutions (every page,
read from the executed chapter notebooks), hand-written alternatives (also run through the real checks)
and mechanical rewrites of every solution (a wrapper, a class, a lambda, a decorator in another cell)
must pass.  The same corpus goes through the real grader in tests/test_grade_authorship.py.
"""

import copy
import sys
from pathlib import Path

import nbformat
import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # the grader package
sys.path.insert(0, str(ROOT / "tools"))
sys.path.insert(0, str(ROOT / "tests"))

import authorship_corpus as corpus  # noqa: E402
import lib  # noqa: E402
import lib.checks  # noqa: E402
from grader import find, source  # noqa: E402
from lib.checks import _analysis, _policy  # noqa: E402

EDITIONS = find.load_editions()
PAGES = sorted(p for p, e in EDITIONS.items() if e["checks"] and (ROOT / "chapters" / f"{p}.ipynb").exists())
CH2 = "02_maximum_likelihood"


def _chapter(page):
    return nbformat.read(ROOT / "chapters" / f"{page}.ipynb", as_version=4)


def _verdicts(nb, page):
    """{exercise: [Problem]} for notebook ``nb`` of ``page``, each check at its place in ``nb``."""
    edition = EDITIONS[page]
    code = source.read(nb, edition)
    out = {}
    kept = 0
    checks = {c["id"]: c for c in edition["checks"]}  # the chapter's check cells carry the edition's ids
    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        if "check" in cell.metadata.get("tags", []) and cell.get("id") in checks:
            check = checks[cell.id]
            name, args, kwargs = check["call"]
            fn = getattr(lib.checks, name)
            out[check["exercise"]] = _policy.problems(code, kept, [*args, *kwargs.values()], fn.allow)
        elif "check" not in cell.metadata.get("tags", []):
            kept += 1
    return out


def _check_index(nb, page, exercise):
    cid = next(c["id"] for c in EDITIONS[page]["checks"] if c["exercise"] == exercise)
    return next(i for i, c in enumerate(nb.cells) if c.get("id") == cid)


def _with_answer(page, exercise, cells):
    """The chapter notebook of ``page`` with ``exercise``'s solution cell replaced by ``cells``."""
    nb = copy.deepcopy(_chapter(page))
    at = _check_index(nb, page, exercise)
    sol = next(i for i in range(at - 1, -1, -1) if "solution" in nb.cells[i].metadata.get("tags", []))
    new = [nbformat.v4.new_code_cell(text, id=f"mine-{exercise}-{k}") for k, text in enumerate(cells)]
    nb.cells[sol:sol + 1] = new
    return nb


# ------------------------------------------------------------- the book --

@pytest.mark.parametrize("page", PAGES)
def test_the_books_solutions_keep_to_the_rule(page):
    found = _verdicts(_chapter(page), page)
    assert found, page
    assert not any(found.values()), {k: [p.message for p in v] for k, v in found.items() if v}


# ------------------------------------------------------------ evasions --

@pytest.mark.parametrize("label", sorted(corpus.EVASIONS))
def test_an_evasion_earns_zero_for_its_exercise_only(label):
    exercise = "ex-bernoulli-log-likelihood"  # the page's second exercise: the first stays unharmed
    nb = _with_answer(CH2, exercise, corpus.evasion_cells(label, exercise))
    found = _verdicts(nb, CH2)
    assert found[exercise], f"{label}: not refused"
    assert not found["ex-bernoulli-mle"], f"{label}: an earlier exercise was refused: {found['ex-bernoulli-mle']}"
    message = _policy.message(found[exercise])
    assert "0 points for this exercise" in message and "line " in message and "mine-" in message, message


def test_an_evasion_outside_every_answer_reaches_the_exercises_after_it():
    """A cell that prepares a shortcut (here: switches the profiler off) before any answer."""
    nb = copy.deepcopy(_chapter(CH2))
    nb.cells.insert(6, nbformat.v4.new_code_cell("import sys\nsys.setprofile(None)\n", id="prepare"))
    found = _verdicts(nb, CH2)
    assert all(found.values()), found
    assert "cell prepare, line 1" in found["ex-bernoulli-mle"][0].message


def test_the_message_says_what_is_allowed():
    exercise = "ex-bernoulli-log-likelihood"
    nb = _with_answer(CH2, exercise, corpus.evasion_cells("alias", exercise))
    text = _verdicts(nb, CH2)[exercise][0].message
    assert "reaches `lib.mle.bernoulli_log_likelihood`" in text and "line 1" in text, text
    assert "`scipy.special.xlogy`" in text and "NumPy" in text, text


# -------------------------------------------------------- alternatives --

ALTERNATIVES = [(ex, i) for ex, alts in corpus.ALTERNATIVES.items() for i in range(len(alts))]


@pytest.mark.parametrize("exercise,index", ALTERNATIVES)
def test_an_honest_alternative_passes_the_rule_and_its_check(exercise, index):
    cells = corpus.ALTERNATIVES[exercise][index]
    cells = [cells] if isinstance(cells, str) else cells
    found = _verdicts(_with_answer(CH2, exercise, cells), CH2)
    assert not any(found.values()), {k: [p.message for p in v] for k, v in found.items() if v}
    namespace = {"np": np, "lib": lib}
    for text in cells:
        exec(compile(text, "<alternative>", "exec"), namespace)
    fn_name = corpus.CH2_EXERCISES[exercise][0]
    result = getattr(lib.checks, fn_name)(namespace[fn_name])
    assert result.passed, result


REWRITES = {
    "wrapper": "_orig_{fn} = {fn}\n\n\ndef {fn}(*args, **kwargs):\n    return _orig_{fn}(*args, **kwargs)\n",
    "class": ("class _Callable_{fn}:\n    def __init__(self, inner):\n        self.inner = inner\n\n"
              "    def __call__(self, *args, **kwargs):\n        return self.inner(*args, **kwargs)\n\n\n"
              "{fn} = _Callable_{fn}({fn})\n"),
    "lambda": "{fn} = (lambda inner: lambda *args, **kwargs: inner(*args, **kwargs))({fn})\n",
    "decorator": ("import functools\n\n\ndef _traced(fn):\n    @functools.wraps(fn)\n    def inner(*args, **kwargs):\n"
                  "        return fn(*args, **kwargs)\n    return inner\n\n\n{fn} = _traced({fn})\n"),
}


@pytest.mark.parametrize("page", PAGES)
def test_every_solution_rewritten_four_ways_keeps_to_the_rule(page):
    """Each function answer of the page wrapped (a helper, a class, a lambda, a decorator) in a cell
    of its own after the book's solution: resolution across cells and through the student's own
    wrappers reaches only the solution's code."""
    base = _chapter(page)
    for how, template in REWRITES.items():
        nb = copy.deepcopy(base)
        for check in [c for c in EDITIONS[page]["checks"]]:
            name, args, _ = check["call"]
            at = _check_index(nb, page, check["exercise"])
            nb.cells.insert(at, nbformat.v4.new_code_cell(template.format(fn=args[0]),
                                                          id=f"rewrite-{check['exercise']}"))
        found = _verdicts(nb, page)
        assert not any(found.values()), (how, {k: [p.message for p in v] for k, v in found.items() if v})


# ------------------------------------------------------- reading cells --

def test_magics_are_read_as_the_code_they_run():
    code = _analysis.Code([("a", "import lib\n", False),
                           ("b", "%timeit -n 3 f = lib.mle.bernoulli_mle\n%matplotlib inline\nf?\n", True)])
    refs = code.answer_closure("f", 2).references
    assert [r.dotted for r in refs] == ["lib.mle.bernoulli_mle"], refs
    assert not code.findings()
    shell = _analysis.Code([("c", "!ls\nx = !ls\n%load_ext foo\n", True)])
    assert len(shell.findings()) == 3, shell.findings()


def test_cells_the_parser_cannot_take_are_reported_not_crashed():
    deep = "x = " + "[" * 150 + "]" * 150 + "\n"  # Python runs it; over the budget read here
    huge = "x = 1\n" * (_analysis.MAX_CELL_CHARS // 6 + 10)
    code = _analysis.Code([("deep", deep, True), ("huge", huge, True), ("bad", "def f(:\n", True),
                           ("bin", None, True), ("worse", "x = " + "(" * 300 + ")" * 300 + "\n", True)])
    problems = {c.id: c.problem for c in code.cells}
    assert all(problems.values()), problems
    found = _policy.problems(code, 5, ["x"])
    cells = {p.cell for p in found}
    assert cells == {"deep", "huge"}, found  # a cell that is not Python (to Python itself) runs nothing


def test_names_resolve_in_the_order_cells_run():
    cells = [("e", "import lib\nimport numpy as np\n", False),
             ("s1", "f = lib.mle.bernoulli_mle\nprint(f([1, 0]))\n", True),
             ("s2", "def f(x):\n    return float(np.mean(x))\n", True),
             ("s3", "f = lib.mle.bernoulli_mle\n", True)]
    code = _analysis.Code(cells)
    assert not code.answer_closure("f", 3).references[1:]  # after s2: the student's own f
    assert [r.dotted for r in code.answer_closure("f", 3).references] == ["numpy.mean"]
    assert [r.dotted for r in code.answer_closure("f", 4).references] == ["lib.mle.bernoulli_mle"]
    conditional = _analysis.Code(cells[:3] + [("s4", "if False:\n    f = lib.mle.bernoulli_mle\n", True)])
    assert "lib.mle.bernoulli_mle" in [r.dotted for r in conditional.answer_closure("f", 4).references]


def test_the_edition_cells_are_not_the_students():
    nb = _chapter(CH2)
    code = source.read(nb, EDITIONS[CH2])
    assert {c.id for c in code.student_cells()} == {c.id for c in nb.cells if "solution" in c.metadata.get("tags", [])}
    assert not code.findings()  # the bootstrap cell imports sys and subprocess: it is the edition's


# ------------------------------------------- the tripwires' own cache --

def test_a_clone_never_makes_libs_own_function_count_as_the_students():
    """The tripwires (instant feedback in the notebook) key code objects by identity: a clone of lib's
    function under another file name equals lib's own code object, and once it had run it made
    lib.mle.bernoulli_mle itself count as the student's code (the second trial of issue 49)."""
    import types

    import lib.mle
    from lib.checks import _core

    original = lib.mle.bernoulli_mle
    clone = types.FunctionType(original.__code__.replace(co_filename="<ipython-input-1>"), original.__globals__)
    assert clone.__code__ == original.__code__  # equality ignores the file name: hence identity
    rules = _core._Rules(())
    assert rules.kind(clone.__code__) == _core._STUDENT
    assert rules.kind(original.__code__) == _core._ARMED_CODE
    assert rules.kind(original.__code__) == _core._ARMED_CODE  # cached: still lib's own
    with pytest.raises(_core.Delegation):  # the clone itself runs as the student's and trips on lib's helpers
        with _core.tripwires((), clone):
            clone(np.array([1, 0, 1]))

    def answer(x):
        return lib.mle.bernoulli_mle(x)

    with pytest.raises(_core.Delegation):
        with _core.tripwires((), answer):
            answer(np.array([1, 0, 1]))


# --------------------------------------------- the student's own check --

class _Shell:
    """What notebook_problems reads of IPython: the history ``In`` (its first entry is empty)."""

    def __init__(self, *cells):
        self.user_ns = {"In": ["", *cells]}


def _edition_sources(page):
    return [c.source for c in nbformat.read(ROOT / "student" / f"{page}.ipynb", as_version=4).cells
            if c.cell_type == "code"]


def test_the_notebooks_own_check_reads_its_history_as_the_grader_reads_the_file():
    edition = _edition_sources(CH2)
    bootstrap, imports = edition[0], edition[1]  # the bootstrap imports sys and subprocess: the book's
    check = "lib.checks.bernoulli_mle(bernoulli_mle)"
    honest = _Shell(bootstrap, imports, "def bernoulli_mle(x):\n    return float(np.mean(x))\n", check)
    assert _policy.notebook_problems(lib.checks.bernoulli_mle, honest) == []
    for label in ("alias", "profiler-off", "container"):
        cells = corpus.evasion_cells(label, "ex-bernoulli-mle")
        found = _policy.notebook_problems(lib.checks.bernoulli_mle, _Shell(bootstrap, imports, *cells, check))
        assert found and "[3]" in found[0].message, (label, found)
    assert _policy.notebook_problems(lib.checks.bernoulli_mle, _Shell(imports)) == []  # not a check cell


def test_a_check_in_a_notebook_fails_with_the_graders_message(monkeypatch):
    """The check itself (the decorator) turns a pass into the rule's failure when its kernel's history
    breaks the rule; outside IPython nothing changes."""
    import types

    edition = _edition_sources(CH2)
    shell = _Shell(edition[1], "shortcut = lib.mle.bernoulli_mle\n\ndef bernoulli_mle(x):\n"
                               "    return float(np.mean(x))\n\nunused = shortcut\n",
                   "import sys\n", "lib.checks.bernoulli_mle(bernoulli_mle)")
    fake = types.ModuleType("IPython")
    fake.get_ipython = lambda: shell
    monkeypatch.setitem(sys.modules, "IPython", fake)

    def bernoulli_mle(x):
        return float(np.mean(x))

    result = lib.checks.bernoulli_mle(bernoulli_mle)
    assert result.status == "failed" and "the module `sys`" in result.message and "[3]" in result.message, result
    shell.user_ns["In"][3] = "x = 1\n"
    assert lib.checks.bernoulli_mle(bernoulli_mle).passed


def test_the_edition_fingerprints_are_current():
    import subprocess

    done = subprocess.run([sys.executable, str(ROOT / "tools" / "edition_cells.py"), "--check"],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr


def test_a_variant_cell_handed_out_with_the_students_seed_is_still_the_editions():
    from grader import variants

    from lib.checks import _variants

    for page in PAGES:
        nb = copy.deepcopy(_chapter(page))
        if not variants.personalise(nb, {label: 123456789 for label in _variants.registered()}):
            continue
        found = _verdicts(nb, page)
        assert not any(found.values()), (page, {k: [p.message for p in v] for k, v in found.items() if v})
        history = [c.source for c in nb.cells if c.cell_type == "code" and "lib.checks.variant(" in c.source]
        assert all(_policy.edition_hash(h) in __import__("lib.checks._edition_cells").checks._edition_cells.HASHES
                   for h in history), page


def test_a_check_that_crashes_on_salted_inputs_runs_again_on_others():
    """grader/judge.run_check: a check whose own code raised on the salted inputs (never a verdict on the
    answer) is run again on other inputs the submission cannot know either."""
    from grader import judge

    from lib.checks import _core

    @_core.check("ex-flaky", "nothing.")
    def flaky(answer):
        if _core.check_rng(1).random() < 0.5:
            raise RuntimeError("a draw this check cannot take")

    class Runner:
        limits, deadline = {"cell_timeout": 10}, None

        def describe(self, name):
            return "value", 1.0

    def crashes(salt):
        with _core.salted(salt):
            return flaky(1.0).crashed

    salt = next(s for s in range(100) if crashes(s) and not (crashes(s + 1) and crashes(s + 2)))
    check = {"call": ("flaky", ["answer"], {})}
    with _core.salted(salt):
        assert judge.run_check(check, Runner(), fn=flaky)[0] == "passed"
    always = next(s for s in range(1000) if crashes(s) and crashes(s + 1) and crashes(s + 2))
    with _core.salted(always):
        status, message = judge.run_check(check, Runner(), fn=flaky)
    assert status == "failed" and "could not evaluate" in message


# ------------------------------------ the corpus of correct alternatives (issue 52's) --

def _right_answers():
    """Every correct answer of the corpus of student mistakes (tests/mistakes/chNN.py): two or more per
    exercise of the book, each written differently from the book's solution."""
    import importlib

    pages = {c["exercise"]: page for page, e in EDITIONS.items() for c in e["checks"]}
    cases = []
    for module in sorted((ROOT / "tests" / "mistakes").glob("ch*.py")):
        for case in importlib.import_module(f"tests.mistakes.{module.stem}").CASES:
            if case.kind == "right" and case.exercise in pages:
                cases.append((pages[case.exercise], case.exercise, case.source))
    return cases


RIGHT_ANSWERS = _right_answers()


def test_every_exercise_has_two_correct_alternatives_for_the_rule():
    counts = {}
    for _, exercise, _ in RIGHT_ANSWERS:
        counts[exercise] = counts.get(exercise, 0) + 1
    every = {c["exercise"] for e in EDITIONS.values() for c in e["checks"]}
    assert {ex for ex in every if counts.get(ex, 0) < 2} == set()


@pytest.mark.parametrize("page,exercise,text", RIGHT_ANSWERS,
                         ids=[f"{ex}-{i}" for i, (_, ex, _) in enumerate(RIGHT_ANSWERS)])
def test_a_correct_alternative_of_the_mistakes_corpus_keeps_to_the_rule(page, exercise, text):
    """Honest work is never refused: each correct answer of the corpus (loops, helpers, einsum, other
    libraries the page allows...), put in the place of the book's solution, passes the rule."""
    found = _verdicts(_with_answer(page, exercise, [text]), page)
    assert not found.get(exercise), [p.message for p in found[exercise]]


@pytest.mark.parametrize("page", PAGES)
def test_every_check_of_the_executed_book_passed(page):
    """The committed pages ran their solutions through every check, rule included: a page executed
    against stale fingerprints of the edition's cells (lib/checks/_edition_cells.py) shows the book's
    own code refused, which `make notebooks` avoids by running such pages again."""
    for cell in _chapter(page).cells:
        if cell.cell_type == "code" and "check" in cell.metadata.get("tags", []):
            shown = "".join("".join(o.get("data", {}).get("text/plain", "")) + "".join(o.get("text", ""))
                            for o in cell.get("outputs", []))
            assert shown.startswith(("[PASSED]", "'[PASSED]", '"[PASSED]')), (cell.source, shown[:300])
