"""Source: the submission's code as the grading process reads it (never runs it).

:func:`read` pairs a submission with its student edition and returns a
:class:`lib.checks._analysis.Code` (the analysis lives in ``lib.checks`` so that
the student's own check cell applies the same rule; one home):

* the code cells in the order the grader runs them (the submission's own check
  cells left out, as :func:`grader.find.plan` does), each read through IPython's
  own input transformer (magics and ``!`` commands as the Python they become);
* a cell is the student's when its code differs from the edition's cell of
  the same id (a variant cell's seed aside), or the edition has no such cell
  (an added cell);
* :func:`position` is where a check of the edition runs: the number of code
  cells run before it.

Then, on the :class:`Code`:

* ``code.answer_closure(name, position)`` -> ``Closure(references, units,
  findings)``: the code the function (or value) that ``name`` is bound to when
  the check runs reaches, across cells: its body, decorators and defaults, the
  helpers, classes and globals it uses; ``references`` are the dotted names it
  reaches outside the notebook (``Reference(dotted, cell, line)``), ``units``
  the pieces of the student's code it reaches (``(cell id, line, kind)``);
* ``code.resolve(name, position)`` -> the bindings of a global name in force;
* ``code.findings(position)`` -> code of the student's cells the grader cannot
  read (``Finding(cell, index, line, what)``);
* ``code.stores(position)``, ``code.value_closure(store)``: values the
  student's code puts into objects, and what they reach;
* ``code.cells``: ``Cell(index, id, source, student, tree, problem)``.

Stable API for other stages (the policy, the similarity report): :func:`read`,
:func:`position`, and the :class:`Code` methods above.
"""

from __future__ import annotations

from lib.checks._analysis import Closure, Code, Finding, Reference  # noqa: F401 - the API, re-exported


def _code_cells(nb):
    return [c for c in nb.cells if c.get("cell_type") == "code"]


def read(nb, edition):
    """The :class:`Code` of submission ``nb`` against ``edition`` (grader.find's edition dict or a notebook)."""
    from lib.checks._variants import unseeded

    edition_nb = edition["nb"] if isinstance(edition, dict) else edition
    pristine = {c.get("id"): unseeded(c.source) for c in _code_cells(edition_nb)
                if isinstance(c.get("id"), str) and isinstance(c.source, str)}
    checks = {c.get("id") for c in _code_cells(edition_nb) if "check" in c.metadata.get("tags", [])}
    cells = []
    for cell in _code_cells(nb):
        cid = cell.get("id") if isinstance(cell.get("id"), str) else ""
        tags = (cell.get("metadata") or {}).get("tags", [])
        tags = tags if isinstance(tags, list) else []
        if cid in checks or "check" in tags:
            continue  # not run: the edition's check is judged in the grader
        if isinstance(edition, dict) and edition.get("assignment") and (
                cid == "assignment-checks" or "assignment-checks" in tags):
            continue
        source = cell.source if isinstance(cell.source, str) else ""
        # a variant cell handed out with the student's seed is still the edition's (the seed is judged apart)
        cells.append((cid, source, pristine.get(cid) != unseeded(source)))
    return Code(cells)


def position(code, edition_check):
    """How many of ``code``'s cells run before ``edition_check`` (a grader.find check dict), as plan() places it."""
    after = edition_check.get("after")
    for cell in code.cells:
        if cell.id == after:
            return cell.index + 1
    return len(code.cells)
