"""Sphinx extension: ``{literalinclude}`` with ``:pyobject:`` shows code, not the docstring.

A chapter shows a `lib` function to read its code; the function's docstring
(often 30 lines of parameters and the book's equation labels) belongs in the
library and its help, not in the listing.  With this extension a
``:pyobject:`` listing leaves the object's docstring out, unless the
directive says ``:docstring:``.  It does so by turning the docstring's lines
into Sphinx's own ``:lines:`` option (relative to the object), so every other
option keeps Sphinx's meaning.

``read_listing`` gives the student edition (``tools/student.py``) exactly the
text the HTML shows, through Sphinx's own ``LiteralIncludeReader``.  Each listing's
literal block carries ``listing_source`` ('lib/mle.py:bernoulli_mle'), which the
student edition reads (``_ext/student_edition.py``: a listing that answers an
exercise above it is left out there).
"""

import ast
from pathlib import Path
from types import SimpleNamespace

from docutils import nodes

from docutils.parsers.rst import directives
from sphinx.directives.code import LiteralInclude, LiteralIncludeReader
from sphinx.pycode import ModuleAnalyzer


def _object_node(tree, dotted):
    """The ``def``/``class`` node named ``dotted`` (``Class.method`` for a method)."""
    nodes = tree.body
    node = None
    for name in dotted.split("."):
        node = next((n for n in nodes if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
                     and n.name == name), None)
        if node is None:
            raise ValueError(f"no object {dotted!r}")
        nodes = node.body
    return node


def docstring_free_options(filename, options):
    """``options`` with a ``lines`` entry that leaves out the ``pyobject``'s docstring.

    Unchanged when there is no ``pyobject``, when ``docstring`` is set, when
    ``lines`` is already given, or when the object has no docstring.
    """
    dotted = options.get("pyobject")
    if not dotted or "docstring" in options or "lines" in options:
        return options
    tags = ModuleAnalyzer.for_file(filename, "").find_tags()
    if dotted not in tags:
        return options  # Sphinx's reader reports the missing object
    start = tags[dotted][1]  # first line of the object as Sphinx cuts it (1-based, in the file)
    with open(filename, encoding="utf-8") as f:
        node = _object_node(ast.parse(f.read()), dotted)
    first = node.body[0] if node.body else None
    if not (isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant)
            and isinstance(first.value.value, str)):
        return options
    before = first.lineno - start  # lines of the object before its docstring (the signature)
    after = first.end_lineno - start + 2  # first line after the docstring, relative to the object
    keep = f"1-{before},{after}-" if before >= 1 else f"{after}-"
    return {**options, "lines": keep}


def read_listing(filename, options):
    """The text a ``{literalinclude}`` of ``filename`` with ``options`` shows (no trailing newline).

    Options are strings as written in the directive; Sphinx's reader applies
    them after :func:`docstring_free_options`.
    """
    options = dict(options)
    for key in ("dedent", "lineno-start", "tab-width"):
        if key in options and str(options[key]).strip():
            options[key] = int(options[key])
        elif key == "dedent" and key in options:
            options[key] = None  # a bare :dedent: removes the common indentation
    options = docstring_free_options(str(filename), options)
    reader = LiteralIncludeReader(str(filename), options, SimpleNamespace(source_encoding="utf-8-sig"))
    text, _ = reader.read()
    return text.rstrip("\n")


class BookLiteralInclude(LiteralInclude):
    """``literalinclude`` whose ``:pyobject:`` listings leave the docstring out (``:docstring:`` keeps it)."""

    option_spec = {**LiteralInclude.option_spec, "docstring": directives.flag}

    def run(self):
        _, filename = self.env.relfn2path(self.arguments[0])
        try:
            self.options = docstring_free_options(filename, self.options)
        except (OSError, SyntaxError, ValueError):
            pass  # Sphinx's own reader reports the problem
        self.options.pop("docstring", None)
        result = super().run()
        # Which object of which file this listing shows ('lib/mle.py:bernoulli_mle'), for the
        # student edition's rule on listings that answer an exercise (_ext/answers.py).
        shown = f"{Path(filename).resolve().relative_to(Path(self.env.srcdir).resolve()).as_posix()}:" \
                f"{self.options.get('pyobject', '')}" if Path(filename).resolve().is_relative_to(
                    Path(self.env.srcdir).resolve()) else ""
        for node in result:
            for block in node.findall(nodes.literal_block):
                block["listing_source"] = shown
        return result


def setup(app):
    app.add_directive("literalinclude", BookLiteralInclude, override=True)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
