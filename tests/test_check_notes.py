"""The web book says what a check cell's output was checked on (``_ext/check_notes.py``).

A doctree shaped as myst-nb and sphinx-exercise build a page: an exercise with its starter, the
folded solution, then the check cell with the output of the page's run, ``[PASSED]``.
"""

import importlib.util
from pathlib import Path
from types import SimpleNamespace

from docutils import nodes

ROOT = Path(__file__).resolve().parents[1]
_spec = importlib.util.spec_from_file_location("check_notes", ROOT / "_ext" / "check_notes.py")
check_notes = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(check_notes)


class exercise_enumerable_node(nodes.Element):  # noqa: N801 - sphinx-exercise's class name
    pass


class solution_node(nodes.Element):  # noqa: N801 - sphinx-exercise's class name
    pass


def _cell(source, tags, output=None):
    cell = nodes.container(nb_element="cell_code", cell_metadata={"tags": tags})
    cell += nodes.container("", nodes.literal_block(source, source), nb_element="cell_code_source")
    if output is not None:
        cell += nodes.container("", nodes.literal_block(output, output), nb_element="cell_code_output")
    return cell


def _page(with_solution=True):
    doc = nodes.section()
    exercise = exercise_enumerable_node(label="ex-mean")
    exercise += _cell("def mean(x):\n    raise NotImplementedError", ["starter"])
    doc += exercise
    if with_solution:
        doc += solution_node("", _cell("def mean(x):\n    return sum(x) / len(x)", ["solution"]))
    doc += _cell("lib.checks.mean(mean)", ["check"], "[PASSED] right on 3 samples.")
    doc += _cell("print(1)", [], "1")
    return doc


def _run(doc, builder="html"):
    check_notes.add_notes(SimpleNamespace(builder=SimpleNamespace(name=builder)), doc, "chapters/x")
    return doc


def _notes(doc):
    return [p for p in doc.findall(nodes.paragraph) if "check-note" in p["classes"]]


def test_the_check_cell_says_its_output_is_the_solutions():
    doc = _run(_page())
    notes = _notes(doc)
    assert len(notes) == 1 and notes[0].astext() == check_notes.NOTE
    cell = notes[0].parent
    kinds = [child.get("nb_element") for child in cell.children]
    assert kinds == ["cell_code_source", None, "cell_code_output"]  # between the code and [PASSED]
    assert "solution folded above" in notes[0].astext() and "checks your code" in notes[0].astext()


def test_no_note_without_a_solution_above_or_outside_the_html():
    assert _notes(_run(_page(with_solution=False))) == []
    for builder in ("student", "slides", "latex"):
        assert _notes(_run(_page(), builder)) == []


def test_the_next_exercise_waits_for_its_own_solution():
    doc = _page()
    second = exercise_enumerable_node(label="ex-var")
    second += _cell("def var(x):\n    raise NotImplementedError", ["starter"])
    doc += second
    doc += _cell("lib.checks.var(var)", ["check"], "[TO DO] var raises NotImplementedError.")
    assert len(_notes(_run(doc))) == 1
