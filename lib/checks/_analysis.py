"""A notebook's code read as text, never run: which code an answer reaches, and which code cannot be read.

This is the static half of "what an answer may call" (issue 49).  The grader
(``grader/source.py``) and the student's own check cell (``_policy.py``)
build a :class:`Code` from the notebook's code cells, in the order they run,
each marked as the student's or the edition's own; nothing here imports or
runs any of it.

* Every cell is read through IPython's own input transformer, so a magic or a
  ``!command`` is the Python it becomes (``get_ipython().system('ls')``), never
  skipped.  ``%time``/``%timeit`` (line and cell) are read as the code they run;
  the help and plotting magics (``f?``, ``%matplotlib``) as nothing; any other
  magic stays a call of ``get_ipython()``, which :meth:`Code.findings` reports.
* A cell is parsed with :mod:`ast` within a budget (:data:`MAX_CELL_CHARS`
  characters, :data:`MAX_DEPTH` levels of nesting): a cell over it, or that
  exhausts the parser, is reported (:attr:`Cell.problem`), never a crash.  A
  cell that is not valid Python is reported too; it would raise
  ``SyntaxError`` when run and define nothing.
* Names are resolved across cells in order (:meth:`Code.resolve`): a global
  name at a position (the number of cells run before it) is bound by the last
  top-level statement that binds it unconditionally, plus the bindings after
  that which may or may not have run (inside ``if``/``for``/``try``/``with``),
  the in-place changes of the object it names (``name.attr = v``,
  ``name[k] = v``, ``name.append(v)``...) and every assignment a function
  makes to it through ``global``.
* :meth:`Code.answer_closure` follows a name to the code it reaches: a
  function's body, decorators and defaults, a class's body and methods, a
  lambda, the expression of an assignment, the helpers, classes and globals
  those use, across cells, inside function scopes resolved as Python does
  (locals, closures, class scopes, comprehensions).  What it reaches outside
  the student's code is listed as :class:`Reference` (a dotted name such as
  ``scipy.special.expit``, whatever alias, import form or wrapper led there)
  with the cell and line; the edition's own cells (unchanged) are data and
  helpers of the book and are not followed, except an edition name that is
  an import or an alias of one, which is its dotted name.
* :meth:`Code.findings` lists the code of the student's cells that the
  grader cannot read (dynamic code, names computed at run time, reaching into
  code, frames, modules, other threads or processes, a module's attribute
  assigned, a shell command or an unknown magic): :class:`Finding`.
* :meth:`Code.stores` lists the values the student's code stores into an
  object (``obj.attr = v``, ``obj[k] = v``, ``obj.append(v)``, ``setattr``):
  an alias of the object could hand them to an answer, so the policy judges
  them wherever they are.

What is allowed is decided by ``_policy.py``; this module only says what is there.
"""

from __future__ import annotations

import ast
import builtins
import functools
from typing import NamedTuple

MAX_CELL_CHARS = 100_000
MAX_DEPTH = 100  # levels of nesting of a cell's syntax tree

#: Modules whose use makes code unreadable to the grader: they reach into the interpreter, code objects,
#: frames, other threads or processes, or run code from data.
UNREADABLE_MODULES = frozenset({
    "sys", "gc", "ctypes", "_ctypes", "cffi", "inspect", "types", "threading", "_thread", "multiprocessing",
    "concurrent", "subprocess", "os", "posix", "nt", "pty", "importlib", "builtins", "__builtin__", "pickle",
    "_pickle", "cPickle", "dill", "cloudpickle", "joblib", "shelve", "marshal", "copyreg", "code", "codeop",
    "runpy", "pkgutil", "zipimport", "signal", "asyncio", "atexit", "weakref", "sysconfig", "site",
    "faulthandler", "tracemalloc", "trace", "bdb", "pdb", "dis", "opcode", "ipykernel", "IPython",
    "jupyter_client", "zmq", "__main__", "_imp", "_io", "io", "mmap", "resource", "socket", "ssl",
})
#: What of those stays readable: os.path only computes file names.
READABLE_PARTS = frozenset({"os.path"})

#: Builtins that run code from text, compute names at run time or hand out namespaces.
DYNAMIC_BUILTINS = frozenset({"exec", "eval", "compile", "__import__", "globals", "vars", "locals", "breakpoint",
                              "__build_class__", "__loader__", "__spec__", "__builtins__", "input"})
#: Builtins whose second argument is an attribute name: readable only when it is a literal string.
NAMED_ATTRIBUTE_BUILTINS = frozenset({"getattr", "setattr", "delattr", "hasattr"})

#: Attributes that reach into code, frames, namespaces and the class hierarchy.
UNREADABLE_ATTRIBUTES = frozenset({
    "__code__", "__globals__", "__dict__", "__builtins__", "__closure__", "__defaults__", "__kwdefaults__",
    "__subclasses__", "__bases__", "__base__", "__mro__", "__class__", "__getattribute__", "__func__",
    "__self__", "__wrapped__", "__import__", "__loader__", "__spec__", "__module__", "__reduce__",
    "__reduce_ex__", "__setattr__", "__delattr__", "__set_name__", "__init_subclass__", "__class_getitem__",
    "__objclass__", "__qualname__", "__annotations__", "__getattr__",
    "f_back", "f_globals", "f_locals", "f_builtins", "f_code", "f_trace", "tb_frame", "tb_next", "gi_frame",
    "gi_code", "cr_frame", "cr_code", "ag_frame", "ag_code", "co_code", "co_consts", "co_names",
    "user_ns", "user_global_ns", "shell",
})

#: Methods that put a value into the object they are called on.
MUTATORS = frozenset({"append", "extend", "insert", "update", "setdefault", "add", "appendleft", "extendleft",
                      "__setitem__", "put", "push", "fromkeys"})

#: Magics read as the code they run, and magics that run nothing of the notebook's.
CODE_MAGICS = frozenset({"time", "timeit"})
HARMLESS_MAGICS = frozenset({"matplotlib", "pinfo", "pinfo2", "pdoc", "pdef", "psource", "pfile", "who", "whos",
                             "who_ls", "lsmagic", "magic", "quickref", "precision", "pprint", "config"})

_BUILTINS = frozenset(dir(builtins))


class Cell(NamedTuple):
    """One code cell as read: ``index`` in run order, ``id``, the transformed ``source``, ``student`` (its code
    differs from the edition's cell of that id, or it was added), ``tree`` (None when it could not be read) and
    ``problem`` (why not) and ``unread`` (Python would run it all the same: over the reading budget)."""

    index: int
    id: str
    source: str
    student: bool
    tree: ast.Module | None
    problem: str | None
    unread: bool = False


class Reference(NamedTuple):
    """Code outside the student's and the edition's cells that an answer reaches: a dotted name."""

    dotted: str
    cell: str
    line: int


class Finding(NamedTuple):
    """Code in a student cell that the grader cannot read: where and what."""

    cell: str
    index: int
    line: int
    what: str


class Store(NamedTuple):
    """A value the student's code puts into an object: where, and the expression stored."""

    cell: str
    index: int
    line: int
    node: ast.AST
    scope: tuple


class Binding(NamedTuple):
    name: str
    cell: Cell
    seq: int
    kind: str  # "def", "class", "value", "import", "star", "contrib"
    node: ast.AST | None  # the statement (def, class) or expression (value, contrib) that gives the value
    dotted: str | None  # for an import: the module or name it binds
    conditional: bool
    sticky: bool  # an assignment through `global` inside a function: it may run at any time


class Closure(NamedTuple):
    """What an answer reaches: ``references`` outside the notebook, ``units`` of the student's code it
    runs or holds ((cell id, line, kind) each), ``findings`` of unreadable code among them."""

    references: list
    units: list
    findings: list


# ------------------------------------------------------------------ reading --

def transform(source):
    """The Python that IPython runs for the cell ``source`` (magics and ``!`` commands as calls)."""
    try:
        from IPython.core.inputtransformer2 import TransformerManager
    except ImportError:  # outside IPython (a script): the text is the code
        return source
    try:
        return TransformerManager().transform_cell(source)
    except Exception:  # noqa: BLE001 - IPython could not transform it: it would not run it either
        return source


def _depth(tree):
    deepest, stack = 0, [(tree, 1)]
    while stack:
        node, d = stack.pop()
        if d > deepest:
            deepest = d
            if deepest > MAX_DEPTH:
                return deepest
        stack.extend((child, d + 1) for child in ast.iter_child_nodes(node))
    return deepest


def parse(source):
    """(tree, problem, unread) of a transformed cell: the tree, or None and why it could not be read;
    ``unread``: Python would run it (it is over the budget read here), so what it does is unknown."""
    if not isinstance(source, str):
        return None, "its source is not text (it runs nothing)", False
    if len(source) > MAX_CELL_CHARS:
        return None, f"it is {len(source)} characters long, over the {MAX_CELL_CHARS} the grader reads", True
    try:
        tree = ast.parse(source)
    except SyntaxError as exc:
        return None, f"it is not valid Python (line {exc.lineno}: {exc.msg})", False
    except (RecursionError, MemoryError, ValueError):
        return None, "it is nested too deeply for the grader to read", True
    if _depth(tree) > MAX_DEPTH:
        return None, f"it is nested more than {MAX_DEPTH} levels deep, more than the grader reads", True
    try:
        tree = _Magics().visit(tree)
    except (RecursionError, MemoryError):
        return None, "it is nested too deeply for the grader to read", True
    return tree, None, False


def _magic(node):
    """('line'|'cell', name, args) when ``node`` is ``get_ipython().run_line_magic(name, ...)``, else None."""
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
            and node.func.attr in ("run_line_magic", "run_cell_magic") and isinstance(node.func.value, ast.Call)
            and isinstance(node.func.value.func, ast.Name) and node.func.value.func.id == "get_ipython"):
        return None
    args = node.args
    if not args or not all(isinstance(a, ast.Constant) and isinstance(a.value, str) for a in args):
        return None
    return ("line" if node.func.attr == "run_line_magic" else "cell"), args[0].value, [a.value for a in args[1:]]


def _magic_code(kind, args):
    """The code a %time/%timeit runs (options dropped), or None when it cannot be parsed."""
    text = args[-1] if kind == "cell" else (args[0] if args else "")
    if kind == "line":
        words = text.split()
        while words and words[0].startswith("-"):  # %timeit -n 10 -r 3 f(x)
            flag = words.pop(0)
            if flag[1:] in ("n", "r", "p", "o") and words:
                words.pop(0)
        text = " ".join(words) if words != text.split() else text
    try:
        return ast.parse(text)
    except (SyntaxError, RecursionError, ValueError, MemoryError):
        return None


class _Magics(ast.NodeTransformer):
    """Read ``%time``/``%timeit`` as the code they run and harmless magics as nothing."""

    def _stmts(self, body):
        out = []
        for stmt in body:
            found = _magic(stmt.value) if isinstance(stmt, ast.Expr) else None
            if found and found[1] in CODE_MAGICS:
                inner = _magic_code(found[0], found[2])
                if inner is not None:
                    for node in ast.walk(inner):
                        if hasattr(node, "lineno"):
                            node.lineno = node.end_lineno = stmt.lineno
                    out += self._stmts(inner.body)
                continue
            if found and found[1] in HARMLESS_MAGICS:
                continue
            out.append(self.visit(stmt))
        return out

    def generic_visit(self, node):
        for field in ("body", "orelse", "finalbody"):
            value = getattr(node, field, None)
            if isinstance(value, list) and value and isinstance(value[0], ast.stmt):
                setattr(node, field, self._stmts(value) or [ast.Pass(lineno=value[0].lineno, col_offset=0)])
        for field, value in ast.iter_fields(node):
            if field in ("body", "orelse", "finalbody") and isinstance(value, list):
                continue
            if isinstance(value, list):
                setattr(node, field, [self.visit(v) if isinstance(v, ast.AST) else v for v in value])
            elif isinstance(value, ast.AST):
                setattr(node, field, self.visit(value))
        return node

    def visit_Module(self, node):
        node.body = self._stmts(node.body)
        return node

    def visit_Call(self, node):
        found = _magic(node)
        if found and found[0] == "line" and found[1] in CODE_MAGICS:
            inner = _magic_code("line", found[2])
            if inner is not None and len(inner.body) == 1 and isinstance(inner.body[0], ast.Expr):
                value = inner.body[0].value
                for sub in ast.walk(value):
                    if hasattr(sub, "lineno"):
                        sub.lineno = sub.end_lineno = node.lineno
                return self.visit(value)
        if found and found[1] in HARMLESS_MAGICS:
            return ast.Constant(None, lineno=node.lineno, col_offset=node.col_offset)
        return self.generic_visit(node)


@functools.lru_cache(maxsize=4096)
def _read(source):
    """(text, tree, problem, unread) of one cell's source (cached: a notebook's check cell reads its history
    again at every check; the trees are never changed once read)."""
    text = transform(source)
    return (text, *parse(text))


def read_cells(cells):
    """[Cell] from ``[(id, source, student)]`` in run order: transformed by IPython and parsed."""
    out = []
    for index, (cid, source, student) in enumerate(cells):
        text, tree, problem, unread = _read(source) if isinstance(source, str) else ("", *parse(source))
        out.append(Cell(index, str(cid), text, bool(student), tree, problem, unread))
    return out


# ------------------------------------------------------------------ scopes --

def _targets(node):
    """The names an assignment target binds (tuples, lists and starred unpacked)."""
    if isinstance(node, ast.Name):
        return [node.id]
    if isinstance(node, (ast.Tuple, ast.List)):
        return [n for elt in node.elts for n in _targets(elt)]
    if isinstance(node, ast.Starred):
        return _targets(node.value)
    return []


def _root(node):
    """The name at the root of ``a.b[c].d``, or None."""
    while isinstance(node, (ast.Attribute, ast.Subscript, ast.Starred)):
        node = node.value
    return node.id if isinstance(node, ast.Name) else None


def _chain(node):
    """(root name, [attributes]) of a plain ``a.b.c`` chain, or None."""
    attrs = []
    while isinstance(node, ast.Attribute):
        attrs.append(node.attr)
        node = node.value
    return (node.id, attrs[::-1]) if isinstance(node, ast.Name) else None


def _import_names(stmt):
    """[(bound name, dotted name)] of an import statement (``*`` for a star import)."""
    out = []
    if isinstance(stmt, ast.Import):
        for alias in stmt.names:
            if alias.asname:
                out.append((alias.asname, alias.name))
            else:
                out.append((alias.name.split(".")[0], alias.name.split(".")[0]))
    elif isinstance(stmt, ast.ImportFrom):
        base = "." * stmt.level + (stmt.module or "")
        for alias in stmt.names:
            out.append(("*" if alias.name == "*" else alias.asname or alias.name,
                        base if alias.name == "*" else f"{base}.{alias.name}"))
    return out


class _Scope:
    """The names a function, lambda, class body or comprehension binds itself; its imports' dotted names."""

    def __init__(self, kind, node):
        self.kind, self.node = kind, node
        self.local, self.imports, self.declared_global = set(), {}, set()
        if kind in ("function", "lambda"):
            args = node.args
            for a in [*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg]:
                if a is not None:
                    self.local.add(a.arg)
        if kind == "comprehension":
            for gen in node.generators:
                self.local.update(_targets(gen.target))
            return
        body = [node.body] if kind == "lambda" else node.body
        for sub in self._own(body):
            if isinstance(sub, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                self.local.add(sub.name)
            elif isinstance(sub, ast.Name) and isinstance(sub.ctx, (ast.Store, ast.Del)):
                self.local.add(sub.id)
            elif isinstance(sub, (ast.Import, ast.ImportFrom)):
                for name, dotted in _import_names(sub):
                    if name != "*":
                        self.local.add(name)
                        self.imports[name] = dotted
            elif isinstance(sub, (ast.Global, ast.Nonlocal)):
                self.declared_global.update(sub.names)
            elif isinstance(sub, ast.ExceptHandler) and sub.name:
                self.local.add(sub.name)
            elif isinstance(sub, ast.alias):
                pass
        self.local -= self.declared_global

    @staticmethod
    def _own(body):
        """Every node of ``body`` that belongs to this scope (nested scopes' insides left out, their
        decorators, defaults and the first iterable of a comprehension kept)."""
        stack = list(body) if isinstance(body, list) else [body]
        while stack:
            node = stack.pop()
            yield node
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                stack += node.decorator_list + node.args.defaults + [d for d in node.args.kw_defaults if d]
            elif isinstance(node, ast.Lambda):
                stack += node.args.defaults + [d for d in node.args.kw_defaults if d]
            elif isinstance(node, ast.ClassDef):
                stack += node.decorator_list + node.bases + [k.value for k in node.keywords]
            elif isinstance(node, (ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp)):
                stack.append(node.generators[0].iter)
                for sub in ast.walk(node):  # a walrus in a comprehension binds here
                    if isinstance(sub, ast.NamedExpr):
                        stack.append(sub.target)
            else:
                stack.extend(ast.iter_child_nodes(node))


_SCOPE_NODES = {ast.FunctionDef: "function", ast.AsyncFunctionDef: "function", ast.Lambda: "lambda",
                ast.ClassDef: "class", ast.ListComp: "comprehension", ast.SetComp: "comprehension",
                ast.GeneratorExp: "comprehension", ast.DictComp: "comprehension"}


def _lookup(scopes, name):
    """('local', None) | ('import', dotted) | ('global', None) for ``name`` read in the innermost of ``scopes``
    (a class scope is seen only by its own body, as in Python)."""
    for depth, scope in enumerate(reversed(scopes)):
        if scope.kind == "class" and depth > 0:
            continue
        if name in scope.declared_global:
            return "global", None
        if name in scope.local:
            return ("import", scope.imports[name]) if name in scope.imports else ("local", None)
    return "global", None


# -------------------------------------------------------------------- code --

class Code:
    """The code cells of a notebook, in run order, read (never run): see the module's docstring.

    ``cells``: ``[(id, source, student)]`` in the order they run; ``source`` as the notebook holds it
    (IPython's transformer is applied here).  The API: :attr:`cells` (:class:`Cell`), :meth:`resolve`,
    :meth:`answer_closure`, :meth:`findings`, :meth:`stores`, :meth:`student_cells`.
    """

    def __init__(self, cells):
        self.cells = read_cells(cells)
        self._bindings = {}  # name -> [Binding] in order
        self._seq = 0
        self._findings, self._stores, self._value_closures = [], [], {}
        for cell in self.cells:
            if cell.tree is None:
                continue
            self._collect(cell, cell.tree.body, conditional=False)
            if cell.student:
                _Unreadable(self, cell).run()

    # -------------------------------------------------------- bindings --
    def _bind(self, name, cell, kind, node, dotted=None, conditional=False, sticky=False):
        self._seq += 1
        self._bindings.setdefault(name, []).append(
            Binding(name, cell, self._seq, kind, node, dotted, conditional, sticky))

    def _collect(self, cell, body, conditional):
        for stmt in body:
            if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                self._bind(stmt.name, cell, "class" if isinstance(stmt, ast.ClassDef) else "def", stmt,
                           conditional=conditional)
                self._globals_assigned(cell, stmt)
            elif isinstance(stmt, (ast.Import, ast.ImportFrom)):
                for name, dotted in _import_names(stmt):
                    self._bind(name, cell, "star" if name == "*" else "import", stmt, dotted, conditional)
            elif isinstance(stmt, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
                targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
                if stmt.value is None:
                    continue
                for target in targets:
                    for name in _targets(target):
                        self._bind(name, cell, "value", stmt.value, conditional=conditional
                                   or isinstance(stmt, ast.AugAssign))
                    if isinstance(target, (ast.Attribute, ast.Subscript)) and _root(target):
                        self._bind(_root(target), cell, "contrib", stmt.value, conditional=True)
            elif isinstance(stmt, (ast.For, ast.AsyncFor)):
                for name in _targets(stmt.target):
                    self._bind(name, cell, "value", stmt.iter, conditional=True)
                self._collect(cell, stmt.body + stmt.orelse, True)
            elif isinstance(stmt, (ast.With, ast.AsyncWith)):
                for item in stmt.items:
                    for name in _targets(item.optional_vars) if item.optional_vars is not None else []:
                        self._bind(name, cell, "value", item.context_expr, conditional=True)
                self._collect(cell, stmt.body, conditional)
            elif isinstance(stmt, (ast.If, ast.While)):
                self._collect(cell, stmt.body + stmt.orelse, True)
            elif isinstance(stmt, ast.Try) or type(stmt).__name__ == "TryStar":
                for handler in stmt.handlers:
                    if handler.name:
                        self._bind(handler.name, cell, "value", handler.type or ast.Constant(None), conditional=True)
                self._collect(cell, stmt.body + [s for h in stmt.handlers for s in h.body] + stmt.orelse
                              + stmt.finalbody, True)
            elif type(stmt).__name__ == "Match":
                self._collect(cell, [s for case in stmt.cases for s in case.body], True)
            # module-level expressions: in-place changes and walruses
            for node in _module_level(stmt):
                if isinstance(node, ast.NamedExpr):
                    self._bind(node.target.id, cell, "value", node.value, conditional=True)
                elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                        and node.func.attr in MUTATORS and _root(node.func.value):
                    for arg in [*node.args, *(k.value for k in node.keywords)]:
                        self._bind(_root(node.func.value), cell, "contrib", arg, conditional=True)

    def _globals_assigned(self, cell, stmt):
        """Assignments a function makes to a global (``global x``): bindings that may happen at any time."""
        for node in ast.walk(stmt):
            if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            declared = {n for sub in ast.walk(node) if isinstance(sub, ast.Global) for n in sub.names}
            if not declared:
                continue
            for sub in ast.walk(node):
                if isinstance(sub, (ast.Assign, ast.AnnAssign, ast.AugAssign)) and sub.value is not None:
                    for target in (sub.targets if isinstance(sub, ast.Assign) else [sub.target]):
                        for name in _targets(target):
                            if name in declared:
                                self._bind(name, cell, "value", sub.value, conditional=True, sticky=True)
                elif isinstance(sub, (ast.For, ast.AsyncFor)):
                    for name in _targets(sub.target):
                        if name in declared:
                            self._bind(name, cell, "value", sub.iter, conditional=True, sticky=True)
                elif isinstance(sub, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and sub is not node \
                        and sub.name in declared:
                    self._bind(sub.name, cell, "def", sub, conditional=True, sticky=True)
                elif isinstance(sub, (ast.Import, ast.ImportFrom)):
                    for name, dotted in _import_names(sub):
                        if name in declared:
                            self._bind(name, cell, "import", sub, dotted, conditional=True, sticky=True)

    def resolve(self, name, position, before=None, every=False):
        """The bindings of the global ``name`` that can be in force after the first ``position`` cells ran
        (``before``: and before the statement of that sequence number; ``every``: all of them, not only
        those since the last one that surely ran)."""
        found = [b for b in self._bindings.get(name, ()) if b.cell.index < position
                 and (before is None or b.seq < before)]
        last = None if every else max((i for i, b in enumerate(found) if not b.conditional and not b.sticky),
                                      default=None)
        found = found if last is None else [b for b in found[:last] if b.sticky] + found[last:]
        # a star import after that may bind any name: `module.name`, as an import that may have run
        since = found[0].seq if found and last is not None else -1
        stars = [Binding(name, b.cell, b.seq, "import", b.node, f"{b.dotted}.{name}", True, False)
                 for b in self._bindings.get("*", ()) if b.cell.index < position and b.seq > since
                 and (before is None or b.seq < before)]
        return sorted(found + stars, key=lambda b: b.seq) if stars else found

    def star_imports(self, position):
        return [b for b in self._bindings.get("*", ()) if b.cell.index < position]

    # ---------------------------------------------------------- answers --
    def answer_closure(self, name, position):
        """The :class:`Closure` of the global ``name`` as the check that runs after ``position`` cells sees it."""
        reach = _Reach(self, position)
        reach.global_name(name, None, [])
        return Closure(reach.references, reach.units, reach.findings)

    def value_closure(self, store):
        """The :class:`Closure` of a stored value (:meth:`stores`): what it can hand to whoever reads it.

        A library call made when the value is stored gives data and is not counted (a function of the
        student's called then is followed the same way); a function or lambda stored, or made then, is
        code that runs later, and everything it reaches counts.
        """
        key = (store.cell, store.line, id(store.node))
        if key not in self._value_closures:
            # every binding a name read there ever had: a name rebound after the store is no escape
            reach = _Reach(self, store.index + 1, every=True)
            reach.walk(store.node, list(store.scope), self.cells[store.index], now=len(store.scope))
            self._value_closures[key] = Closure(reach.references, reach.units, reach.findings)
        return self._value_closures[key]

    def findings(self, position=None):
        """[:class:`Finding`] of the student's cells (among the first ``position``, default all)."""
        return [f for f in self._findings if position is None or f.index < position]

    def stores(self, position=None):
        """[:class:`Store`] of the student's cells (among the first ``position``, default all)."""
        return [s for s in self._stores if position is None or s.index < position]

    def student_cells(self):
        return [c for c in self.cells if c.student]


def _module_level(stmt):
    """The nodes of a top-level statement outside any function, lambda, class body or comprehension."""
    stack = [stmt]
    while stack:
        node = stack.pop()
        yield node
        if isinstance(node, tuple(_SCOPE_NODES)):
            continue
        stack.extend(ast.iter_child_nodes(node))


class _Scoped(ast.NodeVisitor):
    """A visitor that keeps ``self.scopes`` as Python does: a function, lambda, class or comprehension
    opens a :class:`_Scope`; its decorators, defaults and bases are visited in the enclosing one."""

    def generic_visit(self, node):
        kind = _SCOPE_NODES.get(type(node))
        if kind is None:
            return super().generic_visit(node)
        scope = _Scope(kind, node)
        # decorators, defaults and bases belong to the enclosing scope
        outer = []
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            outer = (getattr(node, "decorator_list", []) + node.args.defaults
                     + [d for d in node.args.kw_defaults if d])
        elif isinstance(node, ast.ClassDef):
            outer = node.decorator_list + node.bases + [k.value for k in node.keywords]
        for sub in outer:
            self.visit(sub)
        self.scopes.append(scope)
        try:
            if isinstance(node, ast.Lambda):
                self.visit(node.body)
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                for stmt in node.body:
                    self.visit(stmt)
            else:
                for gen in node.generators:
                    self.visit(gen)
                for field in ("elt", "key", "value"):
                    if getattr(node, field, None) is not None:
                        self.visit(getattr(node, field))
        finally:
            self.scopes.pop()

    visit_FunctionDef = visit_AsyncFunctionDef = visit_Lambda = visit_ClassDef = generic_visit
    visit_ListComp = visit_SetComp = visit_GeneratorExp = visit_DictComp = generic_visit


class _Unreadable(_Scoped):
    """Collect, in one student cell, the :class:`Finding` list and the :class:`Store` list."""

    def __init__(self, code, cell):
        self.code, self.cell, self.scopes = code, cell, []

    def run(self):
        try:
            self.visit(self.cell.tree)
        except RecursionError:
            self.find(1, "code nested too deeply for the grader to read")

    def find(self, line, what):
        self.code._findings.append(Finding(self.cell.id, self.cell.index, line or 1, what))

    def store(self, node, value):
        self.code._stores.append(Store(self.cell.id, self.cell.index, getattr(node, "lineno", 1), value,
                                       tuple(self.scopes)))

    def _module(self, name):
        """The dotted name ``name`` stands for here if it is an import (of a function scope or a global)."""
        kind, dotted = _lookup(self.scopes, name)
        if kind == "import":
            return dotted
        if kind == "local":
            return None
        bindings = self.code.resolve(name, self.cell.index + 1)
        for b in bindings:
            if b.kind == "import":
                return b.dotted
        return None

    def _builtin(self, name):
        kind, _ = _lookup(self.scopes, name)
        return kind == "global" and name in _BUILTINS and not self.code.resolve(name, self.cell.index + 1)

    def visit_Import(self, node):
        for _, dotted in _import_names(node):
            self._module_use(node, dotted)

    def visit_ImportFrom(self, node):
        for name, dotted in _import_names(node):
            self._module_use(node, dotted if name != "*" else dotted)

    def _module_use(self, node, dotted):
        parts = dotted.split(".")
        if parts[0] in UNREADABLE_MODULES and not any(dotted == p or dotted.startswith(p + ".")
                                                      for p in READABLE_PARTS):
            self.find(node.lineno, f"the module `{parts[0]}` (it reaches into the interpreter, other threads or "
                                   "processes, or runs code the grader cannot read)")

    def visit_Name(self, node):
        if isinstance(node.ctx, ast.Load) and node.id in DYNAMIC_BUILTINS and self._builtin(node.id):
            self.find(node.lineno, f"`{node.id}` (code or names made at run time)")
        elif node.id == "get_ipython" and _lookup(self.scopes, node.id)[0] == "global":
            self.find(node.lineno, "IPython's own interface (`get_ipython()`: a shell command `!...`, a magic "
                                   "other than %time, %timeit or %matplotlib, or the kernel's namespace)")
        elif isinstance(node.ctx, ast.Load) and node.id in NAMED_ATTRIBUTE_BUILTINS and self._builtin(node.id):
            pass  # judged at the call (a literal name is readable)

    def visit_Attribute(self, node):
        if node.attr in UNREADABLE_ATTRIBUTES:
            self.find(node.lineno, f"the attribute `{node.attr}` (it reaches into code, frames or namespaces)")
        if isinstance(node.ctx, (ast.Store, ast.Del)):
            chain = _chain(node.value)
            if chain is not None and self._module(chain[0]) is not None:
                what = ".".join([self._module(chain[0]), *chain[1], node.attr])
                self.find(node.lineno, f"an attribute of a module assigned (`{what}`)")
        self.generic_visit(node)

    def visit_Assign(self, node):
        for target in node.targets:
            if isinstance(target, (ast.Attribute, ast.Subscript)):
                self.store(target, node.value)
        self.generic_visit(node)

    def visit_AugAssign(self, node):
        if isinstance(node.target, (ast.Attribute, ast.Subscript)):
            self.store(node.target, node.value)
        self.generic_visit(node)

    def visit_AnnAssign(self, node):
        if node.value is not None and isinstance(node.target, (ast.Attribute, ast.Subscript)):
            self.store(node.target, node.value)
        self.generic_visit(node)

    def visit_Call(self, node):
        func = node.func
        if isinstance(func, ast.Name) and func.id in NAMED_ATTRIBUTE_BUILTINS and self._builtin(func.id):
            literal = len(node.args) >= 2 and isinstance(node.args[1], ast.Constant) and isinstance(
                node.args[1].value, str)
            if not literal:
                self.find(node.lineno, f"`{func.id}` with an attribute name computed at run time")
            else:
                name = node.args[1].value
                if name in UNREADABLE_ATTRIBUTES:
                    self.find(node.lineno, f"the attribute `{name}` (it reaches into code, frames or namespaces)")
                if func.id in ("setattr", "delattr"):
                    chain = _chain(node.args[0])
                    if chain is not None and self._module(chain[0]) is not None:
                        self.find(node.lineno, f"an attribute of a module assigned (`{func.id}`)")
                    elif func.id == "setattr" and len(node.args) >= 3:
                        self.store(node, node.args[2])
        if isinstance(func, ast.Attribute) and func.attr in MUTATORS:
            for arg in [*node.args, *(k.value for k in node.keywords)]:
                self.store(node, arg)
        for keyword in node.keywords:
            if keyword.arg == "allow_pickle":
                self.find(node.lineno, "`allow_pickle` (a pickle runs code when it is loaded)")
        self.generic_visit(node)


class _Reach:
    """Follow names from an answer to the code they reach (see :meth:`Code.answer_closure`)."""

    def __init__(self, code, position, every=False):
        self.code, self.position, self.every = code, position, every
        self.references, self.units, self.findings = [], [], []
        self._seen = set()

    def refer(self, dotted, cell, node):
        self.references.append(Reference(dotted, cell.id, getattr(node, "lineno", 1)))

    def global_name(self, name, cell, attrs, node=None, now=None, before=None):
        """A global ``name`` (followed by ``attrs``) read at the check's position.

        ``now``: None where everything counts (an answer, code that runs later); "read" or "call" where a
        value is stored and the name is read or called then: a library's function called then gives data.
        ``before``: the name is read by a statement at module level, which sees the bindings before it.
        """
        for b in self.code.resolve(name, self.position, before, self.every):
            self.binding(b, attrs, now, (cell, node))

    def binding(self, b, attrs, now=None, site=(None, None)):
        """Follow one binding; ``site``: the (cell, node) where the student's code reads it (the place a
        reference is reported at; the binding's own place when it is read from the edition's code)."""
        if b.kind in ("import", "star"):
            if now != "call":  # a library's function called when a value is stored gives data
                cell, node = site if site[0] is not None and site[0].student else (b.cell, b.node)
                self.refer(".".join([b.dotted, *attrs]), cell, node)
            return
        if not b.cell.student:
            # the edition's own data and helpers; an alias of an import is that import
            if now != "call" and b.kind == "value" and _chain(b.node) is not None:
                root, more = _chain(b.node)
                key = ("edition-alias", b.seq, tuple(attrs))
                if key not in self._seen:
                    self._seen.add(key)
                    reach = _Reach(self.code, b.cell.index)
                    reach.global_name(root, site[0] or b.cell, [*more, *attrs], site[1] or b.node)
                    self.references += reach.references
            return
        # the student's code: what runs when the value is stored (a function called then, a value
        # computed then) is walked with its library calls as data; code stored to run later counts whole
        depth = None
        if now == "call" and (b.kind == "def" or isinstance(b.node, ast.Lambda)):
            depth = 1
        elif now is not None and b.kind in ("value", "contrib") and not isinstance(b.node, ast.Lambda):
            depth = 0
        key = (b.seq, depth)
        if key in self._seen or (b.seq, None) in self._seen:
            return
        self._seen.add(key)
        if depth is None:
            self.units.append((b.cell.id, getattr(b.node, "lineno", 1), b.kind))
        self.walk(b.node, [], b.cell, now=depth, before=b.seq)

    def walk(self, node, scopes, cell, now=None, before=None):
        """Walk ``node``; ``now``: how many function scopes deep the code runs when a value is stored (its
        library calls give data there), None when it all counts; ``before``: the sequence number of the
        statement, whose module-level names see only the bindings before it."""
        _Walk(self, cell, scopes, now, before).visit(node)


class _Walk(_Scoped):
    """Walk one unit of student code, resolving its names in Python's scopes."""

    def __init__(self, reach, cell, scopes, now=None, before=None):
        self.reach, self.cell, self.scopes, self.now, self.before = reach, cell, list(scopes), now, before

    def _now(self):
        """Whether the code being walked runs when a value is stored (not later)."""
        return self.now is not None and sum(s.kind != "comprehension" for s in self.scopes) <= self.now

    def name(self, name, attrs, node, now=None):
        kind, dotted = _lookup(self.scopes, name)
        if kind == "import":
            self.reach.refer(".".join([dotted, *attrs]), self.cell, node)
        elif kind == "global":
            if name in DYNAMIC_BUILTINS and name in _BUILTINS:
                self.reach.findings.append(Finding(self.cell.id, self.cell.index, node.lineno, f"`{name}`"))
            at_module = not any(s.kind in ("function", "lambda") for s in self.scopes)
            self.reach.global_name(name, self.cell, attrs, node, now, self.before if at_module else None)

    def visit_Name(self, node):
        if isinstance(node.ctx, ast.Load):
            self.name(node.id, [], node, "read" if self._now() else None)

    def visit_Attribute(self, node):
        chain = _chain(node)
        if chain is not None and isinstance(node.ctx, ast.Load):
            self.name(chain[0], chain[1], node, "read" if self._now() else None)
            return
        self.generic_visit(node)

    def visit_Import(self, node):
        for name, dotted in _import_names(node):
            if name == "*":
                self.reach.refer(dotted + ".*", self.cell, node)

    visit_ImportFrom = visit_Import

    def visit_Call(self, node):
        func = node.func
        if isinstance(func, ast.Name) and func.id == "getattr" and len(node.args) >= 2 \
                and isinstance(node.args[1], ast.Constant) and isinstance(node.args[1].value, str) \
                and _lookup(self.scopes, "getattr")[0] == "global" and not self.reach.code.resolve(
                    "getattr", self.reach.position):
            target = _chain(node.args[0])
            if target is not None:
                self.name(target[0], [*target[1], node.args[1].value], node)
                for arg in node.args[2:]:
                    self.visit(arg)
                return
        if self._now():
            # a call made when the value is stored: a library's gives data; a function of the student's
            # called then is followed the same way; the arguments always count
            chain = _chain(func)
            if chain is not None:  # a local name's values are walked where they are assigned
                if _lookup(self.scopes, chain[0])[0] == "global":
                    self.name(chain[0], chain[1], func, now="call")
            else:
                self.visit(func)
            for arg in [*node.args, *(k.value for k in node.keywords)]:
                self.visit(arg)
            return
        self.generic_visit(node)
