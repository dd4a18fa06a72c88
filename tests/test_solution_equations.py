"""The text never depends on a solution (issue 36).

A student edition has no solutions, so an equation defined (``$$ ... $$ (label)``)
only inside a folded solution does not exist there: "Four remarks on (5.24)"
then cites a number the notebook never shows.  A result the text goes on to use
is stated in the text after the exercise, with its label, and the solution
derives it.

The test reads every page's MyST source: solutions are the regions from
``{solution-start}`` to ``{solution-end}``; everything else (prose, exercise
statements, admonitions, proofs, figure captions) is text.  It fails, per page,
listing every ``{eq}`` reference in the text whose label is displayed only inside
solutions (on any page of the book).  A solution may cite another solution's
equation: both are folded together in the web book and absent together in the
student edition.
"""

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
CHAPTERS = ROOT / "chapters"
SOURCES = sorted(p for p in CHAPTERS.glob("*.md") if "jupytext:" in p.read_text()[:400])
RE_SOLUTION = re.compile(
    r"^[ \t]*(?:`{3,}|:{3,})\{solution-start\}.*?^[ \t]*(?:`{3,}|:{3,})\{solution-end\}[^\n]*$", re.S | re.M)
RE_LABEL = re.compile(r"^[ \t>]*\$\$[ \t]*\(([^)\s]+)\)[ \t]*$", re.M)  # $$ (label) closing a display
RE_EQ_REF = re.compile(r"\{eq\}`(?:[^`<]*<)?([^`>]+)>?`")


def split(md):
    """(text, solutions) of a page source: the solution regions cut out, and those regions."""
    text = md.read_text(encoding="utf-8")
    regions = list(RE_SOLUTION.finditer(text))
    solutions = "\n".join(m.group(0) for m in regions)
    outside = RE_SOLUTION.sub(lambda m: "\n" * m.group(0).count("\n"), text)  # keeps line numbers
    return outside, solutions


def labels():
    """(labels displayed in the text of some page, labels displayed in some solution)."""
    in_text, in_solutions = set(), set()
    for md in SOURCES:
        outside, solutions = split(md)
        in_text |= set(RE_LABEL.findall(outside))
        in_solutions |= set(RE_LABEL.findall(solutions))
    return in_text, in_solutions


def solution_only_citations(md, in_text, in_solutions):
    """[(line, label)]: {eq} references in the text of ``md`` to equations displayed only in solutions."""
    outside, _ = split(md)
    return [(outside.count("\n", 0, m.start()) + 1, m.group(1)) for m in RE_EQ_REF.finditer(outside)
            if m.group(1) in in_solutions and m.group(1) not in in_text]


@pytest.mark.parametrize("md", SOURCES, ids=[p.stem for p in SOURCES])
def test_text_cites_no_solution_only_equation(md):
    found = solution_only_citations(md, *labels())
    assert not found, (f"{md.name} cites equations that only a folded solution displays (state the result in "
                       "the text after the exercise, with its label, and let the solution derive it):\n"
                       + "\n".join(f"  line {line}: {{eq}}`{label}`" for line, label in found))


def test_the_rule_finds_a_solution_only_citation(tmp_path):
    """On a small page: a citation of a solution's equation is found, one of the text's is not, and a
    solution citing its own equation is fine."""
    page = tmp_path / "x.md"
    page.write_text("Text with\n$$\na = b\n$$ (x-text)\n\n```{exercise-start} E\n:label: ex-x\n```\n\nDerive it.\n\n"
                    "```{exercise-end}\n```\n\n```{solution-start} ex-x\n:class: dropdown\n```\n\n$$\nc = d\n$$ (x-sol)"
                    "\n\nby {eq}`x-sol`.\n\n```{solution-end}\n```\n\nAs {eq}`x-sol` and {eq}`x-text` show.\n")
    outside, solutions = split(page)
    in_text, in_solutions = set(RE_LABEL.findall(outside)), set(RE_LABEL.findall(solutions))
    assert (in_text, in_solutions) == ({"x-text"}, {"x-sol"})
    assert solution_only_citations(page, in_text, in_solutions) == [(28, "x-sol")]


def test_labels_are_read_on_the_real_pages():
    in_text, in_solutions = labels()
    assert len(in_text) > 100  # every page's displayed labels are read (a few are in solutions)
