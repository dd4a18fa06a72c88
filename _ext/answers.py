"""When does a piece of code show the answer to an exercise?  One home for the rule.

Two readers use it: the student edition (``_ext/student_edition.py``), which
leaves out of a student notebook every listing, after an exercise, that shows
the function the exercise asks for (the web book keeps it after the folded
solution); and the give-away test (``tests/giveaways.py``), which applies it
to everything a page shows, above and below each exercise.

A piece of code (a code cell, or a listing: ``literalinclude``, ``code-block``)
shows the answer to an exercise when

``defined``
    it defines a function of the name the exercise's starter defines
    (``def bernoulli_log_likelihood(``);
``listing``
    it is a listing of a ``lib`` function the exercise's check forbids, the
    function the exercise asks the reader to write;
``tokens``
    it contains most of the solution's code: at least ``TOKEN_SHARE`` of the
    distinct 5-grams of the normalised tokens of a solution function
    (identifiers, operators and numbers; comments, strings and docstrings
    dropped; local names kept), for a function of at least ``MIN_SHINGLES``
    5-grams.
"""

from __future__ import annotations

import ast
import io
import re
import textwrap
import tokenize

TOKEN_SHARE = 0.5
MIN_SHINGLES = 12
SHINGLE = 5
RE_DEF = re.compile(r"^[ \t]*def[ \t]+(\w+)[ \t]*\(", re.M)


def code_tokens(source):
    """Normalised tokens of Python code: names, operators, numbers (no comments, strings, layout)."""
    out = []
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(source).readline))
    except (tokenize.TokenError, IndentationError, SyntaxError):
        return [t for t in re.findall(r"[A-Za-z_]\w*|\d+\.?\d*|==|!=|<=|>=|\*\*|//|@|[-+*/%<>=()\[\],.:]", source)]
    for tok in tokens:
        if tok.type in (tokenize.NAME, tokenize.OP, tokenize.NUMBER):
            out.append(tok.string)
    return out


def functions(source):
    """[(name, body source)] of the functions in ``source`` (docstrings dropped), or [("", source)]."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return [("", source)]
    lines = source.split("\n")
    found = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(getattr(body[0], "value", None), ast.Constant) \
                    and isinstance(body[0].value.value, str):
                body = body[1:]
            if not body:
                continue
            start, end = body[0].lineno - 1, max(getattr(n, "end_lineno", n.lineno) for n in body)
            found.append((node.name, "\n".join(lines[start:end])))
    return found or [("", source)]


def shingles(tokens, k=SHINGLE):
    return {tuple(tokens[i:i + k]) for i in range(len(tokens) - k + 1)}


def token_share(solution_body, code):
    """The share of the distinct 5-grams of ``solution_body`` that occur in ``code`` (None: too short to tell)."""
    sol = shingles(code_tokens(textwrap.dedent(solution_body)))
    if len(sol) < MIN_SHINGLES:
        return None
    return len(sol & shingles(code_tokens(textwrap.dedent(code)))) / len(sol)


def dotted(source):
    """'lib.mle.bernoulli_log_likelihood' for a listing source 'lib/mle.py:bernoulli_log_likelihood' (else '')."""
    path, _, obj = (source or "").partition(":")
    return path.replace("/", ".").removesuffix(".py") + "." + obj if path and obj else ""


def shows_answer(code, names=(), forbid=(), solution_code="", source=""):
    """[(rule, detail)]: why ``code`` shows the answer to an exercise ([] when it does not).

    ``names``: the functions the exercise's starter defines; ``forbid``: the ``lib``
    functions its check forbids; ``solution_code``: its solution cells; ``source``:
    'lib/x.py:obj' when ``code`` is a listing of ``obj``.
    """
    found = []
    for name in dict.fromkeys(names):
        if re.search(r"^[ \t]*def[ \t]+" + re.escape(name) + r"[ \t]*\(", code, re.M):
            found.append(("defined", f"`def {name}(`"))
    if source and dotted(source) in forbid:
        found.append(("listing", f"a listing of `{dotted(source)}`"))
    for name, body in functions(solution_code or ""):
        share = token_share(body, code)
        if share is not None and share >= TOKEN_SHARE:
            found.append(("tokens", f"{share:.0%} of the solution's `{name or 'code'}`"))
    return found
