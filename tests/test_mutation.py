"""Every exercise check is mutation-tested against the book's own solution (issue 44; tests/mutation.py).

One run derives the mutants of all 48 solutions and passes each through its
check (about a minute on one core).  A mutant the check passes must agree with
the solution on the probe inputs of tests/mutation_probes.py; otherwise the
test fails and names the exercise and the mutation.
"""

import ast

import numpy as np
import pytest

import mutation as M


@pytest.fixture(scope="module")
def outcome():
    return M.run()


def test_every_exercise_is_mutation_tested(outcome):
    outcomes, _ = outcome
    labels = {ex.label for ex in M.exercises()}
    assert len(labels) == 48
    tested = {o.label for o in outcomes}
    assert tested == labels
    for label in labels:  # every solution yields mutants, and the check kills most of them
        killed = sum(o.status == "killed" for o in outcomes if o.label == label)
        assert killed >= 4, label


def test_no_non_equivalent_mutant_passes_its_check(outcome):
    outcomes, _ = outcome
    gaps = [f"{o.label}: {o.description} ({o.kind})" for o in outcomes if o.status == "gap"]
    assert not gaps, "mutants that pass their check but differ from the solution:\n" + "\n".join(gaps)


def test_the_results_file_is_up_to_date(outcome):
    """tests/mutation_results.md (the README's table) is what this run measured."""
    outcomes, _ = outcome
    assert M.RESULTS.read_text() == M.results_markdown(outcomes), (
        "tests/mutation_results.md is out of date: run `python tests/mutation.py --write`"
    )


def test_killed_mutants_are_classified(outcome):
    outcomes, _ = outcome
    kinds = {o.kind for o in outcomes if o.status == "killed"}
    assert kinds <= {"specific", "generic", "shape", "error"}
    assert "specific" in kinds and "generic" in kinds


# ------------------------------------------------------- the mutator itself --


def _exercise(label):
    return next(ex for ex in M.exercises() if ex.label == label)


def test_operators_cover_the_issue_list():
    """Constants, n -> n - 1, a shape read replaced by a literal, axes dropped and swapped, sums and means
    exchanged, terms removed, transposes, arguments ignored: each appears among the mutants."""
    descriptions = [m.description for ex in M.exercises() for m in M.mutants(ex)]
    for prefix in ("constant:", "shape:", "axis:", "function: sum -> mean", "function: max -> min",
                   "term:", "transpose:", "argument:", "unwrap:", "statement:", "compare:", "operator:"):
        assert any(d.startswith(prefix) for d in descriptions), prefix
    em = [m.description for m in M.mutants(_exercise("ex-em-m-step"))]
    assert "shape: d -> 3" in em and "shape: d -> d - 1" in em
    soft = [m.description for m in M.mutants(_exercise("ex-dvg-softmax-gradient"))]
    assert any("axis=1 dropped in" in d and ".max(axis=1" in d for d in soft)


def test_mutants_compile_and_differ_from_the_solution():
    ex = _exercise("ex-em-e-step")
    source = ast.unparse(ex.solution)
    for m in M.mutants(ex):
        assert ast.unparse(m.module) != source
        compile(m.module, "<mutant>", "exec")


def test_a_known_gap_is_reported():
    """The mutation test finds the issue's own example: a check that only ever sees d = 3."""
    ex = _exercise("ex-em-m-step")
    mutant = next(m for m in M.mutants(ex) if m.description == "shape: d -> 3")
    passed, _ = M.run_check(ex, mutant.module)
    assert not passed  # the check now has d = 2 and 5 as well
    same, where = M.equivalent(ex, mutant.module)
    assert not same and "probe input" in where


def test_an_equivalent_mutant_is_recognised():
    ex = _exercise("ex-em-e-step")  # ln(2 pi) is the same for every component: it cancels
    mutant = next(m for m in M.mutants(ex) if m.description.startswith("term: 2 * np.pi * variances -> variances"))
    assert M.run_check(ex, mutant.module)[0]
    assert M.equivalent(ex, mutant.module) == (True, "")


def test_same_compares_containers_shapes_and_values():
    a = np.arange(3.0)
    assert M._same(a, a + 1e-12)
    assert not M._same(a, list(a))
    assert not M._same((a, 1.0), (a, 1.1))
    assert not M._same(np.ones((2, 3)), np.ones((3, 2)))
    assert M._same(np.array([np.nan, 1.0]), np.array([np.nan, 1.0]))
    assert not M._same(3, 3.0) and not M._same(3.0, 3)
