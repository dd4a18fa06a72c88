"""Which answers look copied: from a classmate, from the book's folded solution, or from ``lib``.

Trusted-side code: it never runs student code.  An answer is read as text and
parsed with :mod:`ast` (an answer that does not parse is left out), then
normalised so that what copying changes cheaply does not count:

* formatting and comments (the code is rebuilt from its syntax tree);
* names: every name the answer binds (function, arguments, variables, loop
  and comprehension variables) becomes ``v0, v1, ...`` in order of first use;
  names it imports become their full dotted names (``np.exp``, ``exp`` after
  ``from numpy import exp`` and ``numpy.exp`` are one name); strings become
  one placeholder; docstrings, imports and top-level ``print`` calls go;
* the order of independent statements: within each block (a tuple
  assignment ``a, b = x, y`` counts as its parts), statements are sorted into a canonical order that keeps every dependency (a statement that
  reads or writes a name stays after the statements that write it, or read it
  before it is rewritten); control flow, ``return`` and calls whose result is
  not kept stay where they are.

Two normalised answers are compared as token sequences (``difflib``'s ratio
2M/T, M matching tokens in T); against ``lib``, whose functions are general
(every covariance type), the share of the answer found in lib's function
counts too.  Answers with fewer than :data:`MIN_TOKENS`
normalised tokens are left out: below that, the answer is one formula (a
sigmoid, a ratio of counts) and independent students write the same tokens; a
report would then accuse by coincidence.  A pair is reported at
:data:`THRESHOLD` or above.  Where those lines lie and why: the maintainer's
guide, guide/maintainer/grader.md, "Similar answers"; tests/test_similarity.py measures both sides
(planted copies above, independent answers below).

API: :func:`report` -> rows ``(exercise, student, other, similarity)``, where
``other`` is another student, ``"book"`` or ``"lib"``; :func:`write_csv`
writes ``OUT/similarity.csv``; :func:`summary` gives the lines the grader
prints; :func:`answers_of` reads a submission's answer cells (the cell each
check follows), :func:`book_solutions` and :func:`lib_sources` collect the two
references.
"""

from __future__ import annotations

import ast
import csv
import difflib
import io
import os
import re
import tokenize
from pathlib import Path

MIN_TOKENS = 60
THRESHOLD = 0.85
MAX_SOURCE = 50_000  # characters: a longer answer cell is left out (the comparison grows with its square)
COLUMNS = ("exercise", "student", "other", "similarity")

# Aliases a notebook of the book defines before any answer (the pages' first cells).
DEFAULT_IMPORTS = {"np": "numpy", "plt": "matplotlib.pyplot", "V": "lib.variational"}


# ------------------------------------------------------------- normalising --

class _Imports(ast.NodeVisitor):
    """Collect ``alias -> full dotted name`` from the answer's import statements."""

    def __init__(self):
        self.names = dict(DEFAULT_IMPORTS)

    def visit_Import(self, node):
        for alias in node.names:
            if alias.asname:
                self.names[alias.asname] = alias.name
            else:
                self.names[alias.name.split(".")[0]] = alias.name.split(".")[0]

    def visit_ImportFrom(self, node):
        base = ("." * node.level) + (node.module or "")
        for alias in node.names:
            self.names[alias.asname or alias.name] = f"{base}.{alias.name}"


def _bound_names(tree):
    """Every name the answer binds itself (stores, arguments, defined functions and classes)."""
    bound = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
            bound.add(node.id)
        elif isinstance(node, ast.arg):
            bound.add(node.arg)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            bound.add(node.name)
    return bound


class _Strip(ast.NodeTransformer):
    """Drop imports, docstrings, top-level prints and ``pass``; strings become one placeholder."""

    def _body(self, body):
        out = []
        for stmt in body:
            if isinstance(stmt, (ast.Import, ast.ImportFrom, ast.Pass)):
                continue
            if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant) and isinstance(
                    stmt.value.value, str):
                continue  # a docstring or a string on its own
            if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call) and isinstance(
                    stmt.value.func, ast.Name) and stmt.value.func.id in ("print", "display"):
                continue
            done = self.visit(stmt)
            out += done if isinstance(done, list) else [done]
        return out

    def generic_visit(self, node):
        for field in ("body", "orelse", "finalbody"):
            value = getattr(node, field, None)
            if isinstance(value, list) and value and isinstance(value[0], ast.stmt):
                setattr(node, field, self._body(value) or [ast.Pass()])
        return super().generic_visit(node)

    def visit_Module(self, node):
        node.body = self._body(node.body)
        return node

    def visit_Assign(self, node):  # noqa: N802 - ast's naming
        """``a, b = x, y`` becomes ``a = x`` and ``b = y`` (when neither side reads the other's names):
        the order of a tuple assignment's parts is the order of independent statements."""
        self.generic_visit(node)
        target = node.targets[0] if len(node.targets) == 1 else None
        if (isinstance(target, ast.Tuple) and isinstance(node.value, ast.Tuple)
                and len(target.elts) == len(node.value.elts) > 1
                and all(isinstance(e, ast.Name) for e in target.elts)):
            written = {e.id for e in target.elts}
            read = {n.id for n in ast.walk(node.value) if isinstance(n, ast.Name)}
            if not written & read and len(written) == len(target.elts):
                return [ast.fix_missing_locations(ast.copy_location(
                    ast.Assign(targets=[ast.Name(id=t.id, ctx=ast.Store())], value=v), node))
                    for t, v in zip(target.elts, node.value.elts)]
        return node

    def visit_Constant(self, node):
        if isinstance(node.value, (str, bytes)):
            return ast.copy_location(ast.Constant(value="S"), node)
        return node

    def visit_JoinedStr(self, node):
        return ast.copy_location(ast.Constant(value="S"), node)


def _names_in(node):
    """(reads, writes) of one statement, as sets of names."""
    reads, writes = set(), set()
    for sub in ast.walk(node):
        if isinstance(sub, ast.Name):
            (writes if isinstance(sub.ctx, (ast.Store, ast.Del)) else reads).add(sub.id)
        elif isinstance(sub, ast.arg):
            writes.add(sub.arg)
        elif isinstance(sub, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            writes.add(sub.name)
    if isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name):
        reads.add(node.target.id)
    targets = node.targets if isinstance(node, ast.Assign) else [getattr(node, "target", None)]
    for target in targets:  # a[k] = ... and a.x = ... write into a
        while isinstance(target, (ast.Subscript, ast.Attribute)):
            target = target.value
        if isinstance(target, ast.Name) and target is not getattr(node, "target", node):
            writes.add(target.id)
    return reads, writes


def _movable(stmt):
    """Whether a statement may change places with an independent neighbour: an assignment of names
    (or a definition), not control flow, a return or a call kept for its effect."""
    if isinstance(stmt, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
        targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
        return all(_plain_target(n) or (isinstance(n, (ast.Tuple, ast.List)) and all(
            _plain_target(e) for e in n.elts)) for n in targets)
    return isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef))


def _plain_target(node):
    """A name, or an item or attribute of a name (``a``, ``a[k]``, ``a.x``): a write into that name."""
    while isinstance(node, (ast.Subscript, ast.Attribute)):
        node = node.value
    return isinstance(node, ast.Name)


def _shape(stmt, bound, mark=None):
    """A statement's text with every bound name blanked (``mark`` shown as ``@``): the sort key that does
    not depend on naming."""
    class Blank(ast.NodeTransformer):
        def visit_Name(self, node):
            name = "@" if node.id == mark else "_" if node.id in bound else node.id
            return ast.copy_location(ast.Name(id=name, ctx=node.ctx), node)

        def visit_arg(self, node):
            node.arg = "_"
            return node

        def visit_FunctionDef(self, node):
            node.name = "_"
            self.generic_visit(node)
            return node

    return ast.unparse(Blank().visit(_clone(stmt)))


def _clone(node):
    return ast.parse(ast.unparse(node)).body[0]


def _uses(tree):
    """Every simple statement of the answer, and the condition or iterator of every compound one."""
    out = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Return, ast.Expr)):
            out.append(node)
        elif isinstance(node, (ast.For, ast.AsyncFor)):
            out.append(ast.Assign(targets=[node.target], value=node.iter))
        elif isinstance(node, (ast.If, ast.While)):
            out.append(ast.Expr(value=node.test))
    return out


def _reorder(body, bound, uses=None):
    """Sort a block's movable runs into a canonical order that keeps every dependency."""
    for stmt in body:
        for field in ("body", "orelse", "finalbody"):
            inner = getattr(stmt, field, None)
            if isinstance(inner, list) and inner and isinstance(inner[0], ast.stmt):
                setattr(stmt, field, _reorder(inner, bound, uses))
        for handler in getattr(stmt, "handlers", []) or []:
            handler.body = _reorder(handler.body, bound, uses)
    out, run = [], []
    for stmt in body + [None]:
        if stmt is not None and _movable(stmt):
            run.append(stmt)
            continue
        out += _topological(run, bound, uses or [])
        run = []
        if stmt is not None:
            out.append(stmt)
    return out


def _topological(run, bound, uses):
    """Kahn's algorithm over the run's dependencies, the smallest shape first among the ready ones.

    Statements of the same shape (``a = np.zeros(K)`` and ``c = np.zeros(K)``) are told apart by how
    the names they write are used everywhere else in the answer (``return a, b, c`` puts them in order).
    """
    if len(run) < 2:
        return list(run)
    info = [_names_in(s) for s in run]
    after = {i: set() for i in range(len(run))}  # i must come after every j in after[i]
    for i in range(len(run)):
        reads_i, writes_i = info[i]
        for j in range(i):
            reads_j, writes_j = info[j]
            if writes_j & (reads_i | writes_i) or reads_j & writes_i:
                after[i].add(j)
    shapes = [_shape(s, bound) for s in run]
    tied = {shape for shape in shapes if shapes.count(shape) > 1}
    shapes = [(shape, tuple(sorted(_shape(use, bound, mark=name) for name in sorted(info[i][1])
                                   for use in uses if use is not run[i] and name in _names_in(use)[0]))
               if shape in tied else (shape, ())) for i, shape in enumerate(shapes)]
    done, order = set(), []
    while len(order) < len(run):
        ready = [i for i in range(len(run)) if i not in done and after[i] <= done]
        pick = min(ready, key=lambda i: (shapes[i], i))
        done.add(pick)
        order.append(run[pick])
    return order


class _Rename(ast.NodeTransformer):
    """Bound names -> v0, v1, ... in order of first appearance; imported names -> full dotted names."""

    def __init__(self, bound, imports):
        self.bound, self.imports, self.names = bound, imports, {}

    def _canonical(self, name):
        if name not in self.names:
            self.names[name] = f"v{len(self.names)}"
        return self.names[name]

    def visit_FunctionDef(self, node):
        node.name = self._canonical(node.name)
        self.generic_visit(node)
        return node

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_arg(self, node):
        node.arg = self._canonical(node.arg)
        node.annotation = None
        return node

    def visit_Name(self, node):
        if node.id in self.bound:
            return ast.copy_location(ast.Name(id=self._canonical(node.id), ctx=node.ctx), node)
        if node.id in self.imports:
            return ast.copy_location(ast.Name(id=self.imports[node.id], ctx=node.ctx), node)
        return node


def normalise(source):
    """The answer's normalised code (a string), or None when it does not parse (or is over MAX_SOURCE)."""
    if not isinstance(source, str) or len(source) > MAX_SOURCE:
        return None
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    imports = _Imports()
    imports.visit(tree)
    tree = _Strip().visit(tree)
    bound = _bound_names(tree)
    tree.body = _reorder(tree.body, bound, _uses(tree))
    tree = _Rename(bound, imports.names).visit(tree)
    ast.fix_missing_locations(tree)
    try:
        return ast.unparse(tree)
    except (ValueError, RecursionError):  # pragma: no cover - a tree ast.parse made always unparses
        return None


def tokens(source):
    """The normalised answer as a list of tokens ([] when it does not parse)."""
    code = normalise(source)
    if code is None:
        return []
    out = []
    try:
        for tok in tokenize.generate_tokens(io.StringIO(code).readline):
            if tok.type in (tokenize.NL, tokenize.COMMENT, tokenize.ENDMARKER):
                continue
            out.append(tok.type if tok.type in (tokenize.INDENT, tokenize.DEDENT, tokenize.NEWLINE)
                       else tok.string)
    except (tokenize.TokenError, IndentationError):  # pragma: no cover - unparse writes valid code
        return []
    return [str(t) for t in out]


def score(a, b, floor=0.0):
    """Similarity in [0, 1] of two token lists: difflib's 2M/T, the larger of both directions.

    Pairs whose quick upper bound lies below ``floor`` score 0 without the full comparison.
    """
    if not a or not b:
        return 0.0
    best = 0.0
    for x, y in ((a, b), (b, a)):
        matcher = difflib.SequenceMatcher(None, x, y, autojunk=False)
        if matcher.real_quick_ratio() < floor or matcher.quick_ratio() < floor:
            continue
        best = max(best, matcher.ratio())
    return best


def contained(a, reference):
    """The share of ``a``'s tokens found, in order, in ``reference``: a part of a longer function copied
    (lib's functions handle every covariance type; an answer copies one branch)."""
    if not a or not reference:
        return 0.0
    matcher = difflib.SequenceMatcher(None, a, reference, autojunk=False)
    return sum(block.size for block in matcher.get_matching_blocks()) / len(a)


# ----------------------------------------------------------------- report --

def report(answers, book=None, lib=None, *, starters=None, threshold=THRESHOLD, min_tokens=MIN_TOKENS):
    """Rows ``(exercise, student, other, similarity)`` of the pairs at ``threshold`` or above.

    ``answers`` is {student: {exercise label: answer source}}; ``book`` and
    ``lib`` are {label: source} (the folded solution, lib's own function);
    ``starters`` ({label: the student edition's starter cell}) leaves out the
    answers that are the untouched starter.
    ``other`` is another student (each pair once, the two ids in sorted
    order), ``"book"`` or ``"lib"``.  Answers with fewer than ``min_tokens``
    normalised tokens, and answers that do not parse, are left out.  Sorted by
    exercise, then by similarity (highest first), then by names.
    """
    book, lib = book or {}, lib or {}
    untouched = {label: tokens(source) for label, source in (starters or {}).items()}
    by_exercise = {}
    for student, mine in sorted(answers.items()):
        for label, source in sorted((mine or {}).items()):
            toks = tokens(source)
            if len(toks) >= min_tokens and toks != untouched.get(label):
                by_exercise.setdefault(label, []).append((str(student), toks))
    rows = []
    for label, entries in sorted(by_exercise.items()):
        references = [(name, tokens(src)) for name, src in (("book", book.get(label)), ("lib", lib.get(label)))
                      if src]
        for i, (student, toks) in enumerate(entries):
            for other, other_toks in entries[i + 1:]:
                s = score(toks, other_toks, threshold)
                if s >= threshold:
                    rows.append((label, student, other, round(s, 3)))
            for name, ref in references:
                s = max(score(toks, ref), contained(toks, ref) if name == "lib" else 0.0)
                if s >= threshold:
                    rows.append((label, student, name, round(s, 3)))
    rows.sort(key=lambda r: (r[0], -r[3], r[1], r[2]))
    return rows


def write_csv(rows, out):
    """``OUT/similarity.csv`` (columns exercise, student, other, similarity), written atomically."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    tmp = out / "similarity.csv.tmp"
    with open(tmp, "w", newline="") as fh:
        writer = csv.writer(fh)
        writer.writerow(COLUMNS)
        for row in rows:
            writer.writerow([_cell(v) for v in row])
    os.replace(tmp, out / "similarity.csv")
    return out / "similarity.csv"


def _cell(value):
    """A CSV cell that a spreadsheet will not run as a formula (student ids are the students' data)."""
    text = f"{value:.3f}" if isinstance(value, float) else str(value)
    return "'" + text if text[:1] in ("=", "+", "-", "@") else text


def summary(rows, limit=20):
    """The lines the grader prints at the end: the pairs, most similar first."""
    if not rows:
        return [f"similarity: no pair of answers at {THRESHOLD:.2f} or above (OUT/similarity.csv)"]
    lines = [f"similar answers ({len(rows)} pairs at {THRESHOLD:.2f} or above; OUT/similarity.csv):"]
    for label, student, other, s in sorted(rows, key=lambda r: -r[3])[:limit]:
        whom = {"book": "the book's solution", "lib": "lib's own function"}.get(other, other)
        lines.append(f"  {label}: {student} and {whom} ({s:.2f})")
    if len(rows) > limit:
        lines.append(f"  ... and {len(rows) - limit} more")
    return lines


def answers_of(nb, checks):
    """{exercise label: the source of the answer cell} of a submission, read as text, never run.

    ``nb`` is the submission (an nbformat notebook or its dict); ``checks`` is
    the student edition's check list as the grader loads it (each with its
    ``exercise`` and ``after``, the id of the answer cell the check follows).
    """
    cells = {}
    for cell in (nb.get("cells") or []) if isinstance(nb, dict) else []:
        if isinstance(cell, dict) and cell.get("cell_type") == "code" and isinstance(cell.get("id"), str):
            source = cell.get("source")
            source = "".join(source) if isinstance(source, list) else source
            if isinstance(source, str):
                cells[cell["id"]] = source
    return {c["exercise"]: cells[c["after"]] for c in checks
            if isinstance(c, dict) and c.get("after") in cells and isinstance(c.get("exercise"), str)}


# ------------------------------------------------------------- references --

_SOLUTION = re.compile(r"```\{solution-start\} (\S+)\n(.*?)```\{solution-end\}", re.S)
_CODE_CELL = re.compile(r"```\{code-cell\}[^\n]*\n(.*?)```", re.S)


def book_solutions(chapters):
    """{exercise label: the code of its folded solution} from the chapters' MyST sources."""
    out = {}
    for md in sorted(Path(chapters).glob("*.md")):
        for match in _SOLUTION.finditer(md.read_text()):
            cells = [re.sub(r"\A(?:---\n.*?\n---\n|:[a-z]+:[^\n]*\n)+", "", c, flags=re.S)
                     for c in _CODE_CELL.findall(match.group(2))]
            if cells:
                out[match.group(1)] = "\n".join(cells)
    return out


def lib_sources(checks):
    """{exercise label: the source of lib's own implementation} for checks that name one (``solves``)."""
    import inspect

    out = {}
    for fn in checks:
        label, solves = getattr(fn, "exercise", None), getattr(fn, "solves", ())
        if not label or not solves:
            continue
        from lib.checks import _core

        try:
            out[label] = "\n".join(inspect.getsource(_core.resolve(name)) for name in solves[:1])
        except (OSError, TypeError, ValueError):
            continue
    return out
