"""The corpus of student mistakes (tests/mistakes/chNN.py, issue 52) against the exercise checks.

Mutants are not students: this runs answers written as students write them through the same path as
the student's check cell.  Each case's source runs in a fresh namespace holding what the page defines
before the exercise (tests/mutation.py extracts it), then the page's check cell is evaluated there
(for an exercise whose answer is a number, on the book's variant and four students' seeds).
A right answer must pass; a wrong one must fail with a message matching the case's ``expect``.
Every exercise of a chapter that has a corpus module needs at least four wrong answers and two right
ones.
"""

import ast
import importlib
import pkgutil
import re
import sys
import warnings
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # `tests.mistakes` whether pytest runs as a module or a script
    sys.path.insert(0, str(ROOT))

import mutation as M  # noqa: E402
from tests import mistakes  # noqa: E402

MIN_WRONG, MIN_RIGHT = 4, 2


def _corpus():
    """{chapter number "01": [Case, ...]} for every tests/mistakes/chNN.py."""
    out = {}
    for info in pkgutil.iter_modules(mistakes.__path__):
        found = re.fullmatch(r"ch(\d\d)", info.name)
        if found:
            out[found.group(1)] = list(importlib.import_module(f"tests.mistakes.{info.name}").CASES)
    return out


CORPUS = _corpus()
CASES = [case for chapter in sorted(CORPUS) for case in CORPUS[chapter]]
EXERCISES = {ex.label: ex for ex in M.exercises()}


def _ids():
    seen = {}
    out = []
    for case in CASES:
        key = f"{case.exercise}-{case.kind}"
        seen[key] = seen.get(key, 0) + 1
        out.append(f"{key}-{seen[key]}")
    return out


def _judge(case):
    """(passed, message) of the exercise's check cell on the case's answer."""
    ex = EXERCISES[case.exercise]
    module = ast.parse(case.source)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return M.run_check(ex, module)


@pytest.mark.parametrize("case", CASES, ids=_ids())
def test_case(case):
    assert case.exercise in EXERCISES, f"no exercise {case.exercise} with a solution and a check cell"
    import lib.checks

    ex = EXERCISES[case.exercise]
    check = getattr(lib.checks, ex.check_name)
    assert case.check == f"{check.__module__}.{ex.check_name}", f"{case.exercise} is checked by {check.__module__}"
    assert case.kind in ("wrong", "right")
    passed, message = _judge(case)
    if case.kind == "right":
        assert case.expect is None
        assert passed, f"a correct answer is refused: {message}\n{case.source}"
    else:
        assert case.expect, "a wrong answer names the words its message must hold"
        assert not passed, f"a wrong answer passes:\n{case.source}"
        assert "not implemented" not in message.lower() or "not implemented" in case.expect
        assert re.search(case.expect, message, re.I | re.S), (
            f"the message does not name this mistake ({case.expect!r}):\n{message}\n{case.source}")


@pytest.mark.parametrize("chapter", sorted(CORPUS))
def test_every_exercise_of_the_chapter_has_its_mistakes(chapter):
    labels = {ex.label for ex in EXERCISES.values() if ex.page.startswith(f"{chapter}_")}
    assert labels
    cases = CORPUS[chapter]
    assert {c.exercise for c in cases} <= labels, "a case belongs to another chapter's module"
    short = []
    for label in sorted(labels):
        wrong = sum(c.exercise == label and c.kind == "wrong" for c in cases)
        right = sum(c.exercise == label and c.kind == "right" for c in cases)
        if wrong < MIN_WRONG or right < MIN_RIGHT:
            short.append(f"{label}: {wrong} wrong, {right} right")
    assert not short, "exercises with too few cases:\n" + "\n".join(short)
    sources = [(c.exercise, ast.dump(ast.parse(c.source))) for c in cases]
    assert len(set(sources)) == len(sources), "two cases of an exercise hold the same code"
