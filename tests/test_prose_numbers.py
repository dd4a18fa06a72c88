"""Numbers in prose come from the page's computation (issue 37; CONTRIBUTING.md, "Numbers in prose").

* Per page: no prose number equals a number the page's outputs print unless it is
  glued (the rule is in tests/prose_numbers.py).
* Per page: every ``{glue:text}`` key the prose uses is glued by the page's code as a
  string (``lib.glue``: a formatted number), and, outside solutions, reaches the
  student edition as that text (the student builder reads the HTML build's doctrees,
  where myst-nb has already pasted it).
* The rule itself on small examples.
"""

import json
import re
from decimal import Decimal

import nbformat
import pytest

import prose_numbers as P
from test_solution_equations import split as split_solutions

SOURCES = P.chapter_sources()
RE_USE = re.compile(r"\{glue:text\}`([^`:]+)(?::[^`]*)?`")


@pytest.mark.parametrize("md", SOURCES, ids=[p.stem for p in SOURCES])
def test_prose_numbers_that_outputs_print_are_glued(md):
    found = P.find_unglued(md)
    assert not found, (f"{md.name}: numbers typed into the prose that an output of the page prints (glue them: "
                       "lib.glue('name', f'{value:.3f}') in the code, {glue:text}`name` in the text):\n"
                       + "\n".join(f"  line {line}: {number} (printed: {out})" for line, number, out in found))


def _glued(ipynb):
    """key -> the text glued by the executed notebook (myst-nb's display_data with a scrapbook name)."""
    out = {}
    for cell in nbformat.read(ipynb, as_version=4).cells:
        for output in cell.get("outputs", []):
            meta = output.get("metadata", {}).get("scrapbook")
            if meta:
                data = output["data"]
                out[meta["name"]] = data.get("application/papermill.record/text/plain")
    return out


@pytest.mark.parametrize("md", SOURCES, ids=[p.stem for p in SOURCES])
def test_glued_numbers_are_strings_and_reach_the_student_edition(md):
    text, solutions = split_solutions(md)  # a solution's glued numbers stay with it in the web book
    used = set(RE_USE.findall(text))
    glued = _glued(md.with_suffix(".ipynb"))
    missing = sorted((used | set(RE_USE.findall(solutions))) - set(glued))
    assert not missing, f"{md.name}: the prose uses glue keys its executed notebook does not glue: {missing}"
    if not used:
        return
    student = nbformat.read(P.ROOT / "student" / f"{md.stem}.ipynb", as_version=4)
    markdown = "\n".join(c.source for c in student.cells if c.cell_type == "markdown")
    assert "{glue" not in markdown, f"student/{md.stem}.ipynb shows a glue role unresolved"
    for key in sorted(used):
        text = glued[key]
        assert text.startswith("'") and text.endswith("'"), (
            f"{md.name}: glue {key!r} stores {text!r}: glue a formatted string with lib.glue, not a number")
        assert text.strip("'") in markdown, f"student/{md.stem}.ipynb lacks the glued {key!r} = {text}"


def test_rule_on_examples():
    assert [n for n, _ in P.prose_numbers("all four score between 0.77 and 0.81; $\\rho^2 = 0.81$")] == \
        ["0.77", "0.81", "0.81"]
    # too short, code, roles, glue, section numbers: not quotations
    text = ("a 0.5 prior, `reg_covar=0.0123`, {eq}`x-1.25`, {glue:text}`acc`, section 4.3, Bishop's B.23,\n"
            "```python\nprint(0.987)\n```\n")
    assert P.prose_numbers(text) == []
    assert P.prose_numbers("97.3% of the points") == [("97.3%", [Decimal("97.3"), Decimal("0.973")])]
    assert P.prose_numbers("only 15% of its mass, 56 points") == [("15%", [Decimal("15"), Decimal("0.15")])]
    outputs = {Decimal("0.7733"), Decimal("12.5")}
    assert P._quotes(Decimal("0.77"), outputs) == Decimal("0.7733")
    assert P._quotes(Decimal("0.773"), outputs) == Decimal("0.7733")
    assert P._quotes(Decimal("0.78"), outputs) is None


def test_rule_on_a_page(tmp_path):
    """A typed-in copy of a printed number is found; the same number glued, or typed in the code, is not."""
    cells = [
        nbformat.v4.new_markdown_cell("# A page"),
        nbformat.v4.new_code_cell("acc = 0.9733\nrate = 0.123\nprint(f'{acc:.3f} {rate:.3f} {acc / 3:.4f}')"),
        nbformat.v4.new_markdown_cell("The accuracy is 0.973, the rate 0.123, a third 0.3244."),
    ]
    nb = nbformat.v4.new_notebook(cells=cells)
    nb.metadata = {"jupytext": {"text_representation": {"extension": ".md", "format_name": "myst"}},
                   "kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"}}
    import jupytext

    md = tmp_path / "p.md"
    jupytext.write(nb, md, fmt="md:myst")
    executed = json.loads(nbformat.writes(nb))
    executed["cells"][1]["outputs"] = [{"output_type": "stream", "name": "stdout", "text": "0.973 0.123 0.3244\n"}]
    (tmp_path / "p.ipynb").write_text(json.dumps(executed))
    found = P.find_unglued(md)
    # 0.973 is printed (acc is typed as 0.9733, not 0.973), 0.3244 is printed; 0.123 is typed in the code
    assert [number for _, number, _ in found] == ["0.973", "0.3244"]
