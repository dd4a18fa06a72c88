"""Mutation testing of the exercise checks against the book's own solutions (issue 44).

Every exercise's solution (the ``solution`` cells inside its ``solution-start``
block in ``chapters/*.md``) is parsed, and :func:`mutants` derives small
wrong versions of it with an AST mutator (the operators are listed in
:data:`OPERATORS`).  Each mutant runs, in this process, through the check of
the exercise's check cell, on the check's own inputs:

* it is **killed** when the check fails it (its message is classified as
  ``specific``, ``generic``, ``shape`` for a wrong shape or type, or
  ``error`` when the mutant raised);
* when the check passes it, it must be shown **equivalent**: it agrees with the
  solution on a wide random set of inputs (:data:`PROBES`: other d and K,
  absent classes, extreme scales and lengths; the variants' seeds for an
  answer that is a number).  A survivor that differs somewhere, or whose
  exercise has no probe, is a **gap**: ``tests/test_mutation.py`` fails and
  names the exercise and the mutation.

Why a mutator of our own rather than a library (mutmut, cosmic-ray,
mutatest): those mutate files on disk and re-run a test command per mutant
(a process per mutant, seconds each), their operators are generic Python ones
(no "a shape read replaced by the example's d", no "axis dropped", no
"argument ignored") and they know nothing of notebook cells.  Here a mutant is
a code object compiled from the cell's AST and run in-process (the solutions
are our own code), so the 48 checks and their mutants run in about a minute.

Run ``python tests/mutation.py`` for the table of scores, ``--write`` to
regenerate ``tests/mutation_results.md`` (the README points at it), ``-v`` to
list every mutant, or give exercise labels to restrict the run.
"""

from __future__ import annotations

import ast
import copy
import re
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "tests" / "mutation_results.md"

# ----------------------------------------------------------------- extraction --

_CELL = re.compile(r"^```\{code-cell\}[^\n]*\n(.*?)^```[ \t]*$", re.S | re.M)
_SOLUTION = re.compile(r"^```\{solution-start\}\s*(\S+)", re.M)


def _cells(md):
    """[(offset, tags, source)] of the page's code cells."""
    out = []
    for match in _CELL.finditer(md):
        body, tags = match.group(1), []
        if body.startswith("---\n"):
            end = body.index("\n---\n", 4)
            meta, body = body[4:end], body[end + 5:]
            found = re.search(r"tags:\s*\[([^\]]*)\]", meta)
        else:
            lines = body.split("\n")
            found = None
            while lines and lines[0].startswith(":"):
                found = re.match(r":tags:\s*\[([^\]]*)\]", lines[0]) or found
                lines = lines[1:]
            body = "\n".join(lines)
        if found:
            tags = [t.strip() for t in found.group(1).split(",")]
        out.append((match.start(), tags, body))
    return out


def _parse(source):
    try:
        return ast.parse(source)
    except SyntaxError:  # a cell with IPython magics: not Python
        return None


@dataclass
class Exercise:
    label: str
    page: str
    check_name: str  # lib.checks.<check_name>
    check_args: list  # the names the check cell passes
    solution: ast.Module  # the solution cells, plotting and printing dropped
    target: str | None  # the function the check receives (None: a script whose values are checked)
    context: list = field(default_factory=list)  # page statements the solution needs (imports, data, helpers)
    variant_source: str = ""  # the variant cell (exercises whose answer is a number)


def _names_loaded(node):
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}


def _free_names(stmt):
    """Names ``stmt`` reads that it does not bind itself (a function's globals; a script's inputs)."""
    stored = {n.id for n in ast.walk(stmt) if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load)}
    stored |= {a.arg for n in ast.walk(stmt) if isinstance(n, (ast.FunctionDef, ast.Lambda))
               for a in n.args.args + n.args.kwonlyargs}
    stored |= {n.name for n in ast.walk(stmt) if isinstance(n, ast.FunctionDef) and n is not stmt}
    return _names_loaded(stmt) - stored - _names_bound(stmt)


def _names_bound(stmt):
    if isinstance(stmt, (ast.FunctionDef, ast.ClassDef)):
        return {stmt.name}
    if isinstance(stmt, (ast.Import, ast.ImportFrom)):
        return {(a.asname or a.name).split(".")[0] for a in stmt.names}
    targets = stmt.targets if isinstance(stmt, ast.Assign) else [getattr(stmt, "target", None)]
    out = set()
    for t in targets:
        if t is not None:
            out |= {n.id for n in ast.walk(t) if isinstance(n, ast.Name)}
    return out


_PLOTTING = {"plt", "fig", "ax", "axes", "PALETTE"}


def _keep(stmt):
    """Solution statements that compute (not print, plot or assert)."""
    if isinstance(stmt, (ast.Expr, ast.Assert)):
        return False
    return not (_names_loaded(stmt) | _names_bound(stmt)) & _PLOTTING


def _names_mutated(stmt):
    """Names whose object a statement changes through a method call (``gammas.append(...)``)."""
    return {node.func.value.id for node in ast.walk(stmt)
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
            and isinstance(node.func.value, ast.Name)}


def _slice(statements, wanted):
    """The statements of a script that the values ``wanted`` depend on (the rest prints or plots)."""
    keep, need = [], set(wanted)
    for stmt in reversed(statements):
        if (_names_bound(stmt) | _names_mutated(stmt)) & need or isinstance(stmt, (ast.Import, ast.ImportFrom)):
            keep.append(stmt)
            need |= _free_names(stmt)
    return keep[::-1]


def _context(statements, wanted):
    """The page's statements (before the exercise) that define ``wanted``, with their own needs."""
    imports = [s for s in statements if isinstance(s, (ast.Import, ast.ImportFrom))]
    chosen, seen, todo = [], set(), set(wanted)
    bound_by_imports = set().union(*(_names_bound(s) for s in imports)) if imports else set()
    while todo:
        name = todo.pop()
        if name in seen or name in bound_by_imports:
            continue
        seen.add(name)
        for stmt in reversed(statements):
            if isinstance(stmt, (ast.Assign, ast.FunctionDef)) and name in _names_bound(stmt) and _keep(stmt):
                if stmt not in chosen:
                    chosen.append(stmt)
                    todo |= _free_names(stmt)
                break
    order = {id(s): i for i, s in enumerate(statements)}
    return imports + sorted(chosen, key=lambda s: order[id(s)])


class _ScriptSeed(ast.NodeTransformer):
    """``default_rng(c)`` -> ``default_rng(c + __variant_seed__)``: an experiment re-run on other seeds."""

    def visit_Call(self, node):
        self.generic_visit(node)
        name = getattr(node.func, "attr", None) or getattr(node.func, "id", None)
        if name == "default_rng" and len(node.args) == 1:
            node.args[0] = ast.BinOp(node.args[0], ast.Add(), ast.Name("__variant_seed__", ast.Load()))
        return node


class _VariantSeed(ast.NodeTransformer):
    """``lib.checks.variant(label, seed=0)`` -> ``seed=__variant_seed__`` (the equivalence probe's seeds)."""

    def visit_keyword(self, node):
        if node.arg == "seed":
            node.value = ast.Name("__variant_seed__", ast.Load())
        return node


def exercises():
    """Every exercise with a solution and a check, in page order."""
    out = []
    for path in sorted((ROOT / "chapters").glob("*.md")):
        md = path.read_text()
        cells = _cells(md)
        for match in _SOLUTION.finditer(md):
            label, start = match.group(1), match.start()
            end = md.index("{solution-end}", start)
            solution = [b for p, t, b in cells if start < p < end and "solution" in t]
            checks = [b for p, t, b in cells if p > end and "check" in t]
            opened = md.rfind("{exercise-start}", 0, start)
            variant = [b for p, t, b in cells if opened < p < start and "variant" in t]
            starter = [b for p, t, b in cells if opened < p < start and "starter" in t]
            given = {ast.unparse(s) for b in starter for s in (_parse(b) or ast.Module([], [])).body}
            call = ast.parse(checks[0]).body[0].value
            check_name = call.func.attr
            args = [a.id for a in call.args]
            module = ast.parse("\n\n".join(solution))
            target = None
            defs = {s.name for s in module.body if isinstance(s, ast.FunctionDef)}
            if len(args) == 1 and args[0] in defs:
                target = args[0]
                body = [s for s in module.body if isinstance(s, (ast.Import, ast.ImportFrom))
                        or (isinstance(s, ast.FunctionDef) and s.name == target)]
            else:
                body = _slice([s for s in module.body if _keep(s)], set(args))
            module.body = body
            if target is None and not variant:
                module = ast.fix_missing_locations(_ScriptSeed().visit(module))
                body = module.body
            for s in body:  # a statement the starter cell already holds is given, not written: not mutated
                if ast.unparse(s) in given:
                    for node in ast.walk(s):
                        node._given = True
            before = []
            for p, t, b in cells:
                tree = _parse(b) if p < start and "solution" not in t else None
                if tree is not None:
                    before.extend(s for s in tree.body)
            if variant:
                before.extend(_VariantSeed().visit(ast.parse(variant[-1])).body)
            needed = set().union(*(_free_names(s) for s in body)) if body else set()
            context = _context([s for s in before if _keep(s) or isinstance(s, (ast.Import, ast.ImportFrom))],
                               needed)
            out.append(Exercise(label, path.name, check_name, args, module, target, context,
                                variant[-1] if variant else ""))
    return out


# ------------------------------------------------------------------ operators --

_SWAP_FUNC = {"sum": "mean", "mean": "sum", "max": "min", "min": "max", "argmax": "argmin",
              "argmin": "argmax", "log": "log1p", "log1p": "log", "exp": "expm1", "cumsum": "sum"}
_UNWRAP = {"sqrt", "log", "exp", "abs", "float", "int", "asarray", "array", "expit", "round", "copy", "stack",
           "column_stack", "log1p"}
_BINOP_SWAP = {ast.Add: ast.Sub, ast.Sub: ast.Add, ast.Mult: ast.Div, ast.Div: ast.Mult, ast.Pow: ast.Mult,
               ast.FloorDiv: ast.Div}
_CMP_SWAP = {ast.Lt: ast.LtE, ast.LtE: ast.Lt, ast.Gt: ast.GtE, ast.GtE: ast.Gt, ast.Eq: ast.NotEq,
             ast.NotEq: ast.Eq}
_SHAPE_LITERALS = (2, 3)

#: What each operator does (the README's table repeats these names).
OPERATORS = {
    "constant": "a number c becomes c + 1 and c - 1 (integers) or 2c and c + 1 (floats)",
    "shape": "a shape read (X.shape[i], len(x), .size, a name bound from one, K = y.max() + 1) becomes "
             "itself - 1 and the literals 2 and 3 (the statement's example d or K)",
    "axis": "axis=a dropped, or 0 and 1 exchanged; keepdims dropped",
    "function": "sum <-> mean, max <-> min, argmax <-> argmin, log <-> log1p, exp -> expm1, "
                "logsumexp -> max",
    "unwrap": "f(x) -> x for sqrt, log, exp, abs, float, int, asarray, array, ... (also the return type)",
    "operator": "+ <-> -, * <-> /, ** -> *, // -> /",
    "term": "a + b, a - b, a * b, a / b -> a and -> b (a term or factor removed)",
    "compare": "< <-> <=, > <-> >=, == <-> !=",
    "negate": "-x -> x",
    "transpose": "a @ b -> a.T @ b; x.T -> x",
    "statement": "a re-assignment (x = f(x), x /= ...) deleted",
    "argument": "an argument ignored: the function keeps the value of its first call",
    "return": "the first two returned values exchanged",
}


def _shape_names(func):
    """Local names bound from a shape read (n, d = X.shape; K = len(w); K = int(y.max()) + 1)."""
    out = set()
    for node in ast.walk(func):
        if isinstance(node, ast.Assign) and _is_shape_read(node.value, set(), deep=True):
            for t in node.targets:
                out |= {n.id for n in ast.walk(t) if isinstance(n, ast.Name)}
    return out


def _is_shape_read(node, names, deep=False):
    if isinstance(node, ast.Attribute) and node.attr in ("shape", "size"):
        return True
    if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Attribute) and node.value.attr == "shape":
        return True
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "len":
        return True
    if isinstance(node, ast.Name) and node.id in names:
        return True
    if deep:
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add) and isinstance(node.right, ast.Constant):
            inner = node.left
            if isinstance(inner, ast.Call) and isinstance(inner.func, ast.Name) and inner.func.id == "int":
                inner = inner.args[0]
            if isinstance(inner, ast.Call) and isinstance(inner.func, ast.Attribute) and inner.func.attr == "max":
                return True
        return _is_shape_read(node, names)
    return False


def _const(value):
    return ast.Constant(value=value)


def _sites(tree, func):
    """[(node, description, replacement)] for every mutation of ``func`` (a FunctionDef) or of the
    script ``tree`` (``func`` None).  ``replacement`` is a node, or the string "delete"."""
    root = func if func is not None else tree
    shape_names = _shape_names(root)
    params = [a.arg for a in func.args.args] if func is not None else []
    sites = []
    docstrings = set()  # the string constants that document a function: not mutated
    for node in ast.walk(root):
        if isinstance(node, (ast.FunctionDef, ast.Module)) and node.body and isinstance(node.body[0], ast.Expr) \
                and isinstance(node.body[0].value, ast.Constant):
            docstrings.add(id(node.body[0].value))
    seeds = {id(b) for n in ast.walk(root) if isinstance(n, ast.Call)
             and (getattr(n.func, "attr", None) or getattr(n.func, "id", None)) == "default_rng"
             for a in n.args for b in ast.walk(a)}
    for node in ast.walk(root):
        if getattr(node, "_given", False) or id(node) in seeds:  # given by the starter; a seed is arbitrary
            continue
        src = ast.unparse(node) if isinstance(node, ast.AST) and not isinstance(node, ast.Module) else ""
        if isinstance(node, ast.Constant) and id(node) not in docstrings:
            v = node.value
            if isinstance(v, bool) or not isinstance(v, (int, float)):
                continue
            if isinstance(v, int):
                for new in (v + 1, v - 1):
                    sites.append((node, f"constant: {v} -> {new}", _const(new)))
            else:
                for new in ((2 * v, v + 1) if v != 0 else (1.0,)):
                    sites.append((node, f"constant: {v!r} -> {new!r}", _const(new)))
        elif _is_shape_read(node, set()) and not (isinstance(node, ast.Attribute) and node.attr == "shape"):
            for new, what in [(ast.BinOp(copy.deepcopy(node), ast.Sub(), _const(1)), f"{src} - 1")] + [
                    (_const(v), str(v)) for v in _SHAPE_LITERALS]:
                sites.append((node, f"shape: {src} -> {what}", new))
        if isinstance(node, ast.Call):
            for i, kw in enumerate(node.keywords):
                if kw.arg in ("axis", "keepdims"):
                    sites.append((node, f"axis: {kw.arg}={ast.unparse(kw.value)} dropped in {src[:60]}",
                                  _call_without_kw(node, i)))
                if kw.arg == "axis" and isinstance(kw.value, ast.Constant) and kw.value.value in (0, 1):
                    new = copy.deepcopy(node)
                    new.keywords[i].value = _const(1 - kw.value.value)
                    sites.append((node, f"axis: axis={kw.value.value} -> {1 - kw.value.value} in {src[:60]}", new))
            name = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
            if name in _SWAP_FUNC:
                new = copy.deepcopy(node)
                if isinstance(new.func, ast.Attribute):
                    new.func.attr = _SWAP_FUNC[name]
                else:
                    new.func = ast.Attribute(ast.Name("np", ast.Load()), _SWAP_FUNC[name], ast.Load())
                sites.append((node, f"function: {name} -> {_SWAP_FUNC[name]} in {src[:60]}", new))
            if name == "logsumexp":
                new = copy.deepcopy(node)
                new.func = ast.Attribute(ast.Name("np", ast.Load()), "max", ast.Load())
                sites.append((node, f"function: logsumexp -> max in {src[:60]}", new))
            if name in _UNWRAP and len(node.args) == 1 and not isinstance(node.args[0], ast.Starred):
                sites.append((node, f"unwrap: {src[:60]} -> {ast.unparse(node.args[0])[:40]}",
                               copy.deepcopy(node.args[0])))
        elif isinstance(node, ast.BinOp):
            op = type(node.op)
            if op in _BINOP_SWAP:
                new = copy.deepcopy(node)
                new.op = _BINOP_SWAP[op]()
                sites.append((node, f"operator: {src[:60]} ({op.__name__} -> {_BINOP_SWAP[op].__name__})", new))
            if op in (ast.Add, ast.Sub, ast.Mult, ast.Div):
                sites.append((node, f"term: {src[:60]} -> {ast.unparse(node.left)[:40]}", copy.deepcopy(node.left)))
                if op in (ast.Add, ast.Mult):
                    sites.append((node, f"term: {src[:60]} -> {ast.unparse(node.right)[:40]}",
                                  copy.deepcopy(node.right)))
            if op is ast.MatMult:
                new = copy.deepcopy(node)
                new.left = ast.Attribute(new.left, "T", ast.Load())
                sites.append((node, f"transpose: {src[:60]} -> ({ast.unparse(node.left)[:30]}).T @ ...", new))
        elif isinstance(node, ast.Compare) and len(node.ops) == 1 and type(node.ops[0]) in _CMP_SWAP:
            new = copy.deepcopy(node)
            new.ops = [_CMP_SWAP[type(node.ops[0])]()]
            sites.append((node, f"compare: {src[:60]} ({type(node.ops[0]).__name__} -> "
                                f"{_CMP_SWAP[type(node.ops[0])].__name__})", new))
        elif isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub) and not isinstance(
                node.operand, ast.Constant):
            sites.append((node, f"negate: {src[:60]} -> {ast.unparse(node.operand)[:40]}",
                          copy.deepcopy(node.operand)))
        elif isinstance(node, ast.Attribute) and node.attr == "T":
            sites.append((node, f"transpose: {src[:60]} -> {ast.unparse(node.value)[:40]}", copy.deepcopy(node.value)))
        elif isinstance(node, ast.Return) and isinstance(node.value, ast.Tuple) and len(node.value.elts) >= 2:
            new = copy.deepcopy(node)
            new.value.elts[0], new.value.elts[1] = new.value.elts[1], new.value.elts[0]
            sites.append((node, "return: first two values exchanged", new))
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) and node.id in shape_names:
            for new, what in [(ast.BinOp(ast.Name(node.id, ast.Load()), ast.Sub(), _const(1)), f"{node.id} - 1")] + [
                    (_const(v), str(v)) for v in _SHAPE_LITERALS]:
                sites.append((node, f"shape: {node.id} -> {what}", new))
    # statements: a re-assignment deleted
    for node in ast.walk(root):
        for stmt in getattr(node, "body", []) if isinstance(getattr(node, "body", None), list) else []:
            if getattr(stmt, "_given", False):
                continue
            if isinstance(stmt, ast.AugAssign) or (
                    isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name)
                    and stmt.targets[0].id in _names_loaded(stmt.value)):
                sites.append((stmt, f"statement: `{ast.unparse(stmt)[:60]}` deleted", "delete"))
    return sites, params


def _call_without_kw(node, i):
    new = copy.deepcopy(node)
    del new.keywords[i]
    return new


def _replace(tree, old_id, new):
    for parent in ast.walk(tree):
        for name, value in ast.iter_fields(parent):
            if isinstance(value, ast.AST) and getattr(value, "_mid", None) == old_id:
                setattr(parent, name, new)
                return True
            if isinstance(value, list):
                for j, item in enumerate(value):
                    if isinstance(item, ast.AST) and getattr(item, "_mid", None) == old_id:
                        if isinstance(new, str):  # "delete"
                            del value[j]
                            if not value:
                                value.append(ast.Pass())
                        else:
                            value[j] = new
                        return True
    return False


@dataclass
class Mutant:
    description: str
    module: ast.Module


def mutants(ex):
    """The mutants of ``ex``'s solution, in a fixed order."""
    tree = copy.deepcopy(ex.solution)
    for i, node in enumerate(ast.walk(tree)):
        node._mid = i
    func = next((s for s in tree.body if isinstance(s, ast.FunctionDef) and s.name == ex.target), None)
    sites, params = _sites(tree, func)
    out, seen = [], set()
    for node, description, replacement in sites:
        new_tree = copy.deepcopy(tree)
        if not _replace(new_tree, node._mid, copy.deepcopy(replacement) if not isinstance(replacement, str)
                        else replacement):
            continue
        key = ast.unparse(new_tree)
        if key in seen or key == ast.unparse(tree):
            continue
        seen.add(key)
        new_tree = ast.fix_missing_locations(new_tree)
        try:
            compile(new_tree, "<mutant>", "exec")
        except (SyntaxError, ValueError, TypeError):  # not a program (e.g. a literal as an assignment target)
            continue
        out.append(Mutant(description, new_tree))
    for p in params:
        new_tree = copy.deepcopy(tree)
        f = next(s for s in new_tree.body if isinstance(s, ast.FunctionDef) and s.name == ex.target)
        freeze = ast.parse(f"{p} = __mutation_freeze__({p!r}, {p})").body[0]
        f.body.insert(0, freeze)
        out.append(Mutant(f"argument: {p} ignored (the value of the first call kept)",
                          ast.fix_missing_locations(new_tree)))
    return out


# ------------------------------------------------------------------- running --

class _Freeze:
    def __init__(self):
        self.values = {}

    def __call__(self, name, value):
        if name not in self.values:
            self.values[name] = copy.deepcopy(value)
        return copy.deepcopy(self.values[name])


def _namespace(ex, seed=0):
    import lib
    import lib.checks

    ns = {"__name__": "__mutation__", "np": np, "lib": lib, "__mutation_freeze__": _Freeze(),
          "__variant_seed__": seed}
    code = compile(ast.fix_missing_locations(ast.Module(body=list(ex.context), type_ignores=[])), ex.page, "exec")
    exec(code, ns)
    return ns


#: Page functions that run an experiment: deterministic in their arguments (the generator's state
#: included), so within one run a second call with the same arguments reuses the first's result.
MEMOISED = ("learning_curves",)
_MEMO = {}


def _memoised(func):
    import pickle

    def run(*args, **kwargs):
        key = (func.__name__, pickle.dumps((args, sorted(kwargs.items()))))
        if key not in _MEMO:
            _MEMO[key] = func(*args, **kwargs)
        return copy.deepcopy(_MEMO[key])

    return run


def build(ex, module, seed=None):
    """Run ``module`` (the solution or a mutant) in the page's context; return the namespace.

    ``seed`` re-draws the variant of an exercise whose answer is a number."""
    ns = _namespace(ex, seed or 0)
    for name in MEMOISED:
        if name in ns:
            ns[name] = _memoised(ns[name])
    with np.errstate(all="ignore"):
        exec(compile(module, f"<{ex.label}>", "exec"), ns)
    return ns


#: An answer that is a number is judged on the book's variant and four students' (seeds 0-4).
CHECK_SEEDS = (0, 1, 2, 3, 4)
#: (label, mutant source) of the answers-as-numbers that pass on the book's variant and fail on another.
BOOK_VARIANT_PASSES = []


def run_check(ex, module):
    """(passed, message) of the exercise's check on ``module``; a variant exercise is left at the book's
    variant afterwards (the variant cell of a run sets the seed the check reads)."""
    import lib.checks

    try:
        return _run_check(ex, module)
    finally:
        if ex.variant_source:
            lib.checks.variant(ex.label, seed=0)


def _run_check(ex, module):
    import warnings

    import lib.checks

    check = getattr(lib.checks, ex.check_name)
    for seed in CHECK_SEEDS if ex.variant_source else (0,):
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                ns = build(ex, module, seed)
        except Exception as exc:  # a script mutant that raises before the check: killed at once
            return False, f"the solution raised {type(exc).__name__}"
        args = [ns.get(a, ...) for a in ex.check_args]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            result = check(*args)
        if not result.passed:
            if seed != CHECK_SEEDS[0] and ex.variant_source:
                BOOK_VARIANT_PASSES.append((ex.label, ast.unparse(module)))
            return False, result.message
    return True, result.message


def classify(message, generic):
    if "raised an exception" in message or message.startswith("the solution raised") \
            or "could not evaluate" in message:
        return "error"
    if any(key in message for key in ("should return", "returned a tuple", "returned a dict", "returned None",
                                       "returned NaN", "an infinite value", "as a single number",
                                       "expected a function", "as a tuple of", "as one numpy array")):
        return "shape"
    if any(message[:40] == g[:40] for g in generic):
        return "generic"
    return "specific"


# ------------------------------------------------------------------ equivalence --

def _same(a, b):
    """Whether two outputs agree: the same containers, arrays of the same shape, numbers close."""
    if isinstance(a, (tuple, list)) or isinstance(b, (tuple, list)):
        return (type(a) is type(b) or {type(a), type(b)} <= {tuple, list}) and len(a) == len(b) \
            and all(_same(x, y) for x, y in zip(a, b))
    if isinstance(a, np.ndarray) != isinstance(b, np.ndarray) and (np.ndim(a) or np.ndim(b)):
        return False
    for x, y in ((a, b), (b, a)):  # a count and a float: different answers to "how many"
        if isinstance(x, (int, np.integer)) and not isinstance(x, bool) and isinstance(y, (float, np.floating)):
            return False
    try:
        x, y = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    except (TypeError, ValueError):
        return False
    return x.shape == y.shape and bool(np.allclose(x, y, rtol=1e-7, atol=1e-10, equal_nan=True))


def _outcome(func, args):
    import warnings

    args = copy.deepcopy(args)
    try:
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            return "ok", func(*args)
    except Exception as exc:
        return "raised", type(exc).__name__


def equivalent(ex, module, solution_ns=None):
    """(True, "") when the mutant agrees with the solution on the exercise's probe inputs, else
    (False, where they differ)."""
    if ex.target is None:
        if ex.variant_source:  # right for every variant: the check passes on 40 more seeds
            import lib.checks

            try:
                for seed in range(5, 45):
                    ns = build(ex, module, seed)
                    result = getattr(lib.checks, ex.check_name)(*[ns.get(a, ...) for a in ex.check_args])
                    if not result.passed:
                        return False, f"variant seed {seed}: {result.message[:80]}"
                return True, ""
            finally:
                lib.checks.variant(ex.label, seed=0)  # the book's variant again for whatever runs next
        probe = PROBES.get(ex.label)
        if probe is None:
            return False, "no probe for this experiment"
        return probe(lambda seed: build(ex, module, seed), lambda seed: build(ex, ex.solution, seed))
    probe = PROBES.get(ex.label)
    if probe is None:
        return False, "no probe inputs for this exercise"
    want_f = (solution_ns or build(ex, ex.solution))[ex.target]
    got_f = build(ex, module)[ex.target]
    rng = np.random.default_rng(20261128)
    cases = probe(rng)
    if isinstance(cases, Statistical):
        return _statistically_equivalent(cases, want_f, got_f)
    for i, args in enumerate(cases):
        want = _outcome(want_f, args)
        got = _outcome(got_f, args)
        if want[0] == "raised":
            continue  # an input the solution itself rejects says nothing
        if got[0] == "raised" or not _same(got[1], want[1]):
            return False, f"probe input {i} ({_describe(args)}): {'raised ' + got[1] if got[0] == 'raised' else 'differs'}"
    return True, ""


def _statistically_equivalent(probe, want_f, got_f):
    for i, (args, kwargs) in enumerate(probe.cases):
        a, b = [], []
        for seed in range(probe.n_seeds):
            want = _outcome(lambda *x: want_f(*x, rng=np.random.default_rng(seed), **kwargs), args)
            if want[0] == "raised":  # a draw the solution itself cannot fit (a class with too few points)
                continue
            got = _outcome(lambda *x: got_f(*x, rng=np.random.default_rng(seed), **kwargs), args)
            if got[0] == "raised":
                return False, f"probe case {i} ({_describe(args)}): raised {got[1]}"
            a.append(np.asarray(want[1], dtype=float))
            b.append(np.asarray(got[1], dtype=float))
        a, b = np.array(a), np.array(b)
        if a.shape != b.shape:
            return False, f"probe case {i}: shapes differ"
        se = np.sqrt(a.var(axis=0) / len(a) + b.var(axis=0) / len(b))
        if np.any(np.abs(a.mean(axis=0) - b.mean(axis=0)) > 4 * se + 1e-12):
            return False, f"probe case {i} ({_describe(args)}): the means over {probe.n_seeds} seeds differ"
    return True, ""


def _describe(args):
    parts = []
    for a in args:
        if isinstance(a, np.ndarray):
            parts.append(f"array{a.shape}")
        elif isinstance(a, (tuple, list)):
            parts.append(f"{type(a).__name__}[{len(a)}]")
        elif isinstance(a, np.random.Generator):
            parts.append("rng")
        else:
            parts.append(repr(a)[:12])
    return ", ".join(parts)


from mutation_probes import PROBES, Statistical  # noqa: E402  (per-exercise random inputs; kept in their own file)

# ------------------------------------------------------------------- the run --

@dataclass
class Outcome:
    label: str
    description: str
    status: str  # killed / equivalent / gap
    kind: str  # specific / generic / shape / error (killed), or why equivalent / why a gap
    message: str = ""
    book_variant_passes: bool = False  # a number: right on the book's variant, wrong on a student's


def _generic_messages(ex, solution_ns):
    """The messages the check gives to an answer that is merely wrong (the solution's output perturbed)."""
    import lib.checks

    if ex.target is None:
        return []
    right = solution_ns[ex.target]

    def perturbed(*args, **kwargs):
        return _perturb(right(*args, **kwargs))

    result = getattr(lib.checks, ex.check_name)(perturbed)
    return [] if result.passed else [result.message]


def _perturb(value):
    if isinstance(value, tuple):
        return tuple(_perturb(v) for v in value)
    if isinstance(value, list):
        return [_perturb(v) for v in value]
    if isinstance(value, (bool, np.bool_)):
        return value
    if isinstance(value, (int, np.integer)):
        return value + 7
    if isinstance(value, (float, np.floating)):
        return float(value) * 1.37 + 0.11
    if isinstance(value, np.ndarray) and value.dtype.kind == "f":
        return value * 1.37 + 0.11
    if isinstance(value, np.ndarray) and value.dtype.kind in "iu":
        return value + 7
    return value


def run(labels=None, verbose=False):
    """[Outcome] for every mutant of every exercise (or of ``labels``); also {label: seconds}."""
    outcomes, timing = [], {}
    for ex in exercises():
        if labels and ex.label not in labels:
            continue
        start = time.perf_counter()
        passed, message = run_check(ex, ex.solution)
        if not passed:
            outcomes.append(Outcome(ex.label, "the solution itself", "gap", "solution fails", message))
            continue
        solution_ns = build(ex, ex.solution) if ex.target else None
        generic = _generic_messages(ex, solution_ns)
        for m in mutants(ex):
            before = len(BOOK_VARIANT_PASSES)
            passed, message = run_check(ex, m.module)
            if not passed:
                o = Outcome(ex.label, m.description, "killed", classify(message, generic), message,
                            book_variant_passes=len(BOOK_VARIANT_PASSES) > before)
            else:
                same, why = equivalent(ex, m.module, solution_ns)
                o = Outcome(ex.label, m.description, "equivalent" if same else "gap",
                            "agrees on the probes" if same else why)
            outcomes.append(o)
            if verbose:
                print(f"{o.label:32s} {o.status:10s} {o.kind:9s} {o.description}", file=sys.stderr)
        timing[ex.label] = time.perf_counter() - start
    return outcomes, timing


def table(outcomes):
    """The markdown table of mutation scores, one row per exercise."""
    rows = {}
    for o in outcomes:
        r = rows.setdefault(o.label, {"mutants": 0, "killed": 0, "equivalent": 0, "gap": 0,
                                      "specific": 0, "generic": 0, "shape": 0, "error": 0})
        r["mutants"] += 1
        r[o.status] += 1
        if o.status == "killed":
            r[o.kind] += 1
    lines = ["| exercise | mutants | killed | equivalent | gaps | score | specific | generic | shape/type | "
             "raised |", "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    total = {k: 0 for k in ("mutants", "killed", "equivalent", "gap", "specific", "generic", "shape", "error")}
    for label, r in rows.items():
        for k in total:
            total[k] += r[k]
        lines.append(_row(f"`{label}`", r))
    lines.append(_row("**all**", total))
    return "\n".join(lines)


def _row(name, r):
    denominator = r["mutants"] - r["equivalent"]
    score = f"{100 * r['killed'] / denominator:.0f}%" if denominator else "-"
    return (f"| {name} | {r['mutants']} | {r['killed']} | {r['equivalent']} | {r['gap']} | {score} | "
            f"{r['specific']} | {r['generic']} | {r['shape']} | {r['error']} |")


def results_markdown(outcomes):
    equivalents = [o for o in outcomes if o.status == "equivalent"]
    gaps = [o for o in outcomes if o.status == "gap"]
    out = [
        "# Mutation scores of the exercise checks",
        "",
        "Generated by `python tests/mutation.py --write` (tests/mutation.py says how; "
        "tests/test_mutation.py fails on any gap and when this file is out of date).",
        "The score is killed / (mutants - equivalent). Of the killed mutants, *generic* ones get the "
        "message the check gives to merely wrong numbers (the solution's output times 1.37 plus 0.11; a "
        "check that diagnoses even that, e.g. rows that no longer sum to one, counts its diagnosis as "
        "generic), *shape/type* a message about the returned shape, type or NaN, *raised* the mutant's own "
        "exception, and *specific* ones any other message: one that names a mistake.",
        "",
        table(outcomes),
        "",
        "## Surviving mutants shown equivalent",
        "",
    ]
    out += [f"- `{o.label}`: {o.description}" for o in equivalents] or ["none"]
    book = [o for o in outcomes if o.book_variant_passes]
    out += ["", "## Answers that are numbers: killed on a student's variant only", "",
            "An exercise whose answer is a number is judged on the book's variant and on four students' "
            "(seeds 0-4). These mutants give the right number for the book's own values and a wrong one "
            "for a student's, so a reader of the book with this mistake is told it passed:", ""]
    out += [f"- `{o.label}`: {o.description}" for o in book] or ["none"]
    out += ["", "## Gaps", ""]
    out += [f"- `{o.label}`: {o.description} ({o.kind})" for o in gaps] or ["none"]
    out += ["", "## Killed with the generic message", "",
            "A check may not know the mistake; these are the mutants its message does not name.", ""]
    out += [f"- `{o.label}`: {o.description}" for o in outcomes if o.status == "killed" and o.kind == "generic"]
    return "\n".join(out) + "\n"


def main(argv):
    verbose = "-v" in argv
    write = "--write" in argv
    labels = [a for a in argv if not a.startswith("-")] or None
    start = time.perf_counter()
    outcomes, timing = run(labels, verbose)
    print(table(outcomes))
    for o in outcomes:
        if o.status == "gap":
            print(f"GAP {o.label}: {o.description} [{o.kind}]")
    print(f"{time.perf_counter() - start:.1f} s; slowest: " + ", ".join(
        f"{k} {v:.1f}" for k, v in sorted(timing.items(), key=lambda kv: -kv[1])[:6]))
    if write:
        RESULTS.write_text(results_markdown(outcomes))


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT / "tests"))
    sys.path.insert(0, str(ROOT))
    main(sys.argv[1:])
