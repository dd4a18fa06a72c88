"""What an answer may reach, judged from the notebook's code (issue 49): the one home of the rule.

The grader (``grader/judge.py``) and the student's own check cell
(:func:`notebook_problems`, called by every check in a notebook) apply the same
rule to a :class:`lib.checks._analysis.Code`:

* an answer (every name the check cell hands to the check) may reach NumPy,
  the builtins that compute, the standard library's computing modules
  (:data:`STANDARD`), the student's own functions, classes and values, the data
  and helpers the edition's own cells define, :data:`lib.checks._core.BASE_ALLOW`
  and the check's ``allow=`` list; any route to other library code (a call, an
  alias, a wrapper, a container, a default argument, a class attribute, a
  function handed to another, ``functools.partial``, a decorator...) is a
  :class:`Problem` that names the cell, the line and what is allowed instead;
* code the grader cannot read (:meth:`Code.findings`: ``exec``, ``getattr`` with
  a computed name, ``sys``, ``__code__``, a module's attribute assigned, a
  shell command...) in *any* student cell before the check is a problem for
  that exercise: a cell outside every answer can prepare a shortcut;
* a value stored into an object (``obj.attr = lib.f``, ``table.append(f)``)
  anywhere before the check is judged as if it were part of the answer: an
  alias of that object could hand it over.

An exercise with a problem earns 0, whatever its check says.
"""

from __future__ import annotations

import hashlib
import re
import sys
from typing import NamedTuple

from lib.checks._analysis import Code

#: Modules of Python's standard library an answer may use (they compute; none reaches library code).
STANDARD = ("math", "cmath", "collections", "itertools", "functools", "operator", "statistics", "random",
            "heapq", "bisect", "numbers", "fractions", "decimal", "typing", "dataclasses", "copy", "warnings",
            "re", "string", "enum", "abc", "contextlib", "time", "json", "csv", "textwrap", "array", "queue",
            "os.path", "pathlib", "unicodedata", "datetime", "__future__")
#: Parts of NumPy that reach outside it (C libraries, compilers, the test machinery).
NUMPY_OUTSIDE = ("numpy.ctypeslib", "numpy.f2py", "numpy.distutils", "numpy.testing")


class Problem(NamedTuple):
    """Why an exercise earns 0: where (cell id, line) and what the student reads."""

    cell: str
    line: int
    message: str


def _under(dotted, prefix):
    return dotted == prefix or dotted.startswith(prefix + ".")


def allowed(dotted, allow=()):
    """Whether an answer may reach the dotted name ``dotted`` under the check's ``allow`` list."""
    from lib.checks._core import BASE_ALLOW

    if any(_under(dotted, a) for a in (*BASE_ALLOW, *allow)):
        return True
    if _under(dotted, "numpy"):
        return not any(_under(dotted, bad) for bad in NUMPY_OUTSIDE)
    return any(_under(dotted, s) for s in STANDARD)


def allowed_text(allow=()):
    """The sentence part that says what an answer may use."""
    from lib.checks._core import BASE_ALLOW

    extra = ", ".join(f"`{a}`" for a in (*BASE_ALLOW, *allow))
    return (f"NumPy, Python's builtins and standard library, {extra}, your own functions and classes, and the "
            "data and helpers of the notebook's own cells")


def _cell(cid):
    """A cell id as the message shows it: the student's text, kept printable and short."""
    text = re.sub(r"[^A-Za-z0-9_.\[\]-]", "?", str(cid))[:40]
    return text or "?"


def problems(code, position, names, allow=()):
    """[:class:`Problem`] of an exercise whose check runs after the first ``position`` cells of ``code``
    and is handed the names ``names``; empty when its answer keeps to the rule."""
    out, seen = [], set()

    def add(cell, line, message):
        if (cell, line, message) not in seen:
            seen.add((cell, line, message))
            out.append(Problem(_cell(cell), int(line), message))

    for finding in code.findings(position):
        add(finding.cell, finding.line,
            f"cell {_cell(finding.cell)}, line {finding.line}, uses {finding.what}; the grader reads your code to "
            "see what your answers call, and it cannot read what this does, so the exercises after it are not "
            f"graded as your work. Remove it: an answer may use {allowed_text(allow)}.")
    for cell in code.student_cells():
        if cell.index < position and cell.unread:
            add(cell.id, 1, f"cell {_cell(cell.id)} could not be read by the grader: {cell.problem}. Split it "
                            "into smaller cells.")
    for name in names:
        closure = code.answer_closure(name, position)
        for ref in closure.references:
            if not allowed(ref.dotted, allow):
                add(ref.cell, ref.line,
                    f"your answer `{name}` reaches `{ref.dotted}` (cell {_cell(ref.cell)}, line {ref.line}); this "
                    f"exercise asks you to write it. An answer may use {allowed_text(allow)}: write the "
                    "computation yourself.")
    for store in code.stores(position):
        closure = code.value_closure(store)
        for ref in closure.references:
            if not allowed(ref.dotted, allow):
                add(store.cell, store.line,
                    f"cell {_cell(store.cell)}, line {store.line}, puts `{ref.dotted}` into an object, which can "
                    f"hand it to an answer; this exercise asks you to write it. An answer may use "
                    f"{allowed_text(allow)}.")
    return out


def message(found):
    """The one message a student reads for an exercise with problems (the first three, and how many more)."""
    shown = " ".join(p.message for p in found[:3])
    more = f" ({len(found) - 3} more places like these.)" if len(found) > 3 else ""
    return f"0 points for this exercise: {shown}{more}"


# ------------------------------------------------ in the student's notebook --

def edition_hash(source):
    """The fingerprint of a cell's code as the student edition hands it out (IPython-transformed, stripped,
    a variant cell's seed set to 0 so that a handout with the student's seed is still the edition's):
    how the notebook's own check cell tells the edition's cells from the student's."""
    from lib.checks._analysis import transform
    from lib.checks._variants import unseeded

    return hashlib.sha256(transform(unseeded(source)).strip().encode()).hexdigest()[:16]


def notebook_problems(check_fn, shell=None):
    """[:class:`Problem`] of the check running now in a student's notebook, from the kernel's history.

    The cells run so far (IPython's ``In``, in the order they ran) are read as the grader reads a
    submission: a cell whose code is one of the student editions' (``_edition_cells.HASHES``) is the
    book's, any other the student's; the last cell is the check cell, whose call names the answers.
    Outside IPython (a script, the tests, the grading process), or when the history cannot be read as
    a check cell, there is nothing to judge here and the list is empty.
    """
    if shell is None:
        ipython = sys.modules.get("IPython")
        shell = ipython.get_ipython() if ipython is not None else None
    history = getattr(shell, "user_ns", {}).get("In") if shell is not None else None
    if not isinstance(history, list) or len(history) < 2 or not isinstance(history[-1], str):
        return []
    names = _called_names(history[-1], check_fn)
    if names is None:
        return []
    from lib.checks._edition_cells import HASHES

    cells = [(f"[{i}]", src, edition_hash(src) not in HASHES) for i, src in enumerate(history[1:-1], start=1)
             if isinstance(src, str)]
    return problems(Code(cells), len(cells), names, getattr(check_fn, "allow", ()))


def _called_names(source, check_fn):
    """The names handed to ``check_fn`` by the check cell ``source`` (``lib.checks.name(a, b, k=c)``)."""
    import ast

    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                and node.func.attr == getattr(check_fn, "__name__", None):
            names = [a.id for a in node.args if isinstance(a, ast.Name)]
            names += [k.value.id for k in node.keywords if isinstance(k.value, ast.Name)]
            return names
    return None


def judge(cells, position, names, allow=()):
    """Convenience: :func:`problems` of ``[(id, source, student)]`` cells."""
    return problems(Code(cells), position, names, allow)
