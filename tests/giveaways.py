"""Find exercises whose answer is shown on their page (issues 24 and 36).

Used by tests/test_giveaways.py.  A page is first *extracted* into what a
reader sees, in order (:func:`extract_page`): code cells of the student
edition, listings (``literalinclude`` / ``code-block``, inlined in the student
edition), the outputs of the executed notebook (the HTML side), display
equations and the labels they carry, prose; and, for each exercise, where it
begins, its statement, the function names its starter cells define, the
``lib`` functions its check forbids, and its solution (code, outputs,
displayed and inline equations) from the chapter's source.  Solutions are never part of
what comes before an exercise.  :func:`find_giveaways` then applies the rules
below to an extract; the fixtures in tests/fixtures/giveaways/ are extracts
of the pages as they stood when the issue was filed.

The rules (each finding names its rule).  The first three look at the whole
page of the student edition, above *and below* the exercise (issue 36): code
cells, and the listings the student edition shows (below an exercise it leaves
out the listings that answer it, ``_ext/student_edition.py``; an extract records
which listings its student notebook shows, and an extract without that record
counts every listing as shown, as the student edition did before issue 36).
They are ``_ext/answers.py``'s rules, the ones the student edition applies:

``defined``
    a code cell or listing defines a function of the name the exercise asks
    for (``def bernoulli_log_likelihood(``);
``listing``
    a listing shows a ``lib`` function the exercise's check forbids (the
    function the exercise asks the reader to write);
``tokens``
    one code cell or listing contains most of the solution's code: at least
    ``TOKEN_SHARE`` of the distinct 5-grams of the normalised tokens of a
    solution function (identifiers, operators and numbers; comments, strings
    and docstrings dropped; local names kept), for a function of at least
    ``MIN_SHINGLES`` 5-grams.

The others look above the exercise only (below it the student edition has no
outputs, and a result the text goes on to use is stated after the exercise
that derives it):

``output``
    one output before the exercise prints most of the numbers the solution
    prints (at least ``NUMBER_SHARE`` of at least ``MIN_NUMBERS`` distinct
    numbers with 3 or more significant digits);
``rerun``
    the solution calls a function the page defined with a literal keyword
    argument (``problem(rho=0.0)``), and a code cell before the exercise
    already calls it with that value -- a loop over a literal list holding it
    (``for rho in [0.0, 0.5]: problem(rho=rho)``, or through a name bound to
    such a list) -- together with another page function the solution calls:
    the experiment the exercise asks for has been run and printed;
``derived``
    the statement asks to derive (or implement) an equation by its label --
    "Derive {eq}`x`", "Implement {eq}`x`", "Derive {eq}`x` and {eq}`y`"; not
    "derive the update from {eq}`x`" -- and that equation is displayed before
    the exercise on the page (a proof exercise may cite the result it proves:
    ``{prf:ref}`` targets are left to the ``equation`` rule);
``equation``
    in an exercise whose statement asks for a derivation, one side of an
    equation of the solution (displayed or inline; normalised LaTeX, with
    ``\\frac{a}{b}`` read as ``(a)/(b)``; an expression of at least
    ``MIN_EQUATION`` characters, not a lone symbol) is one side of an
    equation displayed before the exercise.

An exercise is exempt from all rules when its starter cell carries the
metadata ``giveaway-exempt: "<reason>"`` (CONTRIBUTING.md says how); an empty
reason does not count.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "tests" / "fixtures" / "giveaways"

NUMBER_SHARE = 0.6
MIN_NUMBERS = 4
MIN_EQUATION = 20
EXEMPT_KEY = "giveaway-exempt"

RE_FENCE = re.compile(r"^(`{3,}|~{3,})[^\n]*\n(.*?)^\1[ \t]*$", re.S | re.M)
RE_DISPLAY = re.compile(r"\$\$(.*?)\$\$", re.S)
RE_INLINE_MATH = re.compile(r"(?<![\\$])\$([^$\n]+?)\$(?!\$)")
RE_CHECK = re.compile(r"lib\.checks\.(\w+)\s*\(")
RE_DEF = re.compile(r"^[ \t]*def[ \t]+(\w+)[ \t]*\(", re.M)
RE_NUMBER = re.compile(r"(?<![\w.])-?\d+\.\d+(?:e[-+]?\d+)?(?![\w.])")
VERBS = r"(?:derive|implement)"
RE_DERIVED = re.compile(
    VERBS + r"\b(?P<between>[^.;:?!{}]{0,60}?)\{eq\}`(?:[^`<]*<)?(?P<label>[^`>]+)>?`"
    r"(?P<more>(?:\s*(?:,|and|,\s*and)\s*\{eq\}`[^`]+`)*)",
    re.I,
)
RE_ROLE_LABEL = re.compile(r"\{eq\}`(?:[^`<]*<)?([^`>]+)>?`")


# ------------------------------------------------------------------ extraction --

def _listings_module():
    path = str(ROOT / "_ext")
    if path not in sys.path:
        sys.path.insert(0, path)
    import listings  # _ext/listings.py: Sphinx's literalinclude, as the HTML shows it

    return listings


def _answers_module():
    path = str(ROOT / "_ext")
    if path not in sys.path:
        sys.path.insert(0, path)
    import answers  # _ext/answers.py: when code shows an exercise's answer (the student edition's rule too)

    return answers


def _book_module():
    path = str(ROOT / "tools")
    if path not in sys.path:
        sys.path.insert(0, path)
    import book  # tools/book.py

    return book


def _md_parser():
    """myst-parser's own markdown-it parser, with the extensions the book enables."""
    from markdown_it.renderer import RendererHTML
    from myst_parser.config.main import MdParserConfig
    from myst_parser.parsers.mdit import create_md_parser

    config = MdParserConfig(enable_extensions={"dollarmath", "amsmath", "colon_fence"}, dmath_allow_labels=True)
    return create_md_parser(config, RendererHTML)


RE_DIRECTIVE_INFO = re.compile(r"^\{(?P<name>[^}\s]+)\}\s*(?P<arg>.*)$")
RE_OPTION = re.compile(r"^:(?P<key>[\w-]+):(?:[ \t]+(?P<value>.*?))?[ \t]*$")


def _directive_body(content):
    """(options, content lines) of a directive body: leading ``:key: value`` lines or a YAML block."""
    lines = content.split("\n")
    options = {}
    if lines and lines[0].strip() == "---":
        import yaml

        end = next((i for i in range(1, len(lines)) if lines[i].strip() == "---"), 0)
        options = {str(k): "" if v is None else str(v) for k, v in (yaml.safe_load("\n".join(lines[1:end])) or {}).items()}
        return options, lines[end + 1:]
    i = 0
    while i < len(lines) and RE_OPTION.match(lines[i]):
        match = RE_OPTION.match(lines[i])
        options[match["key"]] = match["value"] or ""
        i += 1
    return options, lines[i:]


LITERAL = {"code-block", "code", "sourcecode", "literalinclude", "math", "raw", "list-table", "csv-table"}


def parse_blocks(text, parser=None):
    """MyST Markdown -> blocks (SimpleNamespace: kind, lines, name, arg, options, content, children,
    label), read with myst-parser's markdown-it parser; directives hold their parsed content."""
    from types import SimpleNamespace

    parser = parser or _md_parser()
    lines = text.split("\n")
    blocks = []

    def block(kind, start, end, **extra):
        fields = {"name": "", "arg": "", "options": {}, "content": [], "children": [], "label": ""}
        fields.update(extra)
        blocks.append(SimpleNamespace(kind=kind, lines=lines[start:end], **fields))

    for tok in parser.parse(text):
        if tok.level != 0 or tok.nesting < 0 or tok.map is None:
            continue
        start, end = tok.map
        if tok.type in ("fence", "colon_fence"):
            match = RE_DIRECTIVE_INFO.match(tok.info.strip())
            if not match:
                block("fence", start, end)
                continue
            options, content = _directive_body(tok.content.rstrip("\n"))
            name = match["name"]
            children = [] if name in LITERAL else parse_blocks("\n".join(content), parser)
            block("directive", start, end, name=name, arg=match["arg"], options=options, content=content,
                  children=children, label=str(options.get("label") or options.get("name") or "").strip())
        elif tok.type in ("math_block", "math_block_label"):
            block("dollarmath", start, end, content=[tok.content.strip("\n")], label=tok.info.strip())
        elif tok.type == "amsmath":
            block("amsmath", start, end, content=[tok.content])
        elif tok.type == "myst_target":
            block("target", start, end, label=tok.content.strip())
        elif tok.type not in ("myst_line_comment", "myst_block_break"):
            block("text", start, end)
    return blocks


def render_block(block):
    """Markdown for what the reader sees of ``block``: prose as written, listings as fences of the
    code the HTML shows, display equations between $$."""
    if block.kind == "dollarmath" or block.kind == "amsmath":
        return f"$$\n{block.content[0]}\n$$"
    if block.kind in ("text", "fence", "target"):
        return "" if block.kind == "target" else "\n".join(block.lines)
    if block.name == "literalinclude":
        path = (ROOT / "chapters" / block.arg.strip()).resolve()
        code = _listings_module().read_listing(path, block.options)
        return f"```\n{code}\n```"
    if block.name in ("code-block", "code", "sourcecode"):
        return "```\n" + "\n".join(block.content) + "\n```"
    if block.name == "math":
        return "$$\n" + "\n".join(block.content) + "\n$$"
    return "\n\n".join(filter(None, (render_block(child) for child in block.children)))


def _outputs_text(cell):
    """The text a reader sees below an executed code cell (streams and text/plain results)."""
    parts = []
    for out in cell.get("outputs", []):
        if out.get("output_type") == "stream":
            parts.append(out.get("text", ""))
        elif out.get("output_type") in ("execute_result", "display_data"):
            data = out.get("data", {})
            if "text/plain" in data and not any(k.startswith("image/") for k in data):
                parts.append(data["text/plain"])
            elif "text/markdown" in data:
                parts.append(data["text/markdown"])
    text = "".join(p if isinstance(p, str) else "".join(p) for p in parts)
    return text


def _split_rendered(text):
    """Rendered Markdown -> [(kind, text)]: listings (fences), display equations, prose."""
    pieces = []
    pos = 0
    for match in sorted(list(RE_FENCE.finditer(text)) + list(RE_DISPLAY.finditer(text)), key=lambda m: m.start()):
        if match.start() < pos:
            continue
        if text[pos:match.start()].strip():
            pieces.append(("text", text[pos:match.start()]))
        if match.re is RE_FENCE:
            pieces.append(("listing", match.group(2)))
        else:
            pieces.append(("math", match.group(1)))
        pos = match.end()
    if text[pos:].strip():
        pieces.append(("text", text[pos:]))
    return pieces


def _labels_in(block):
    """Labels a block defines (equations, results, figures, tables), nested ones included."""
    out = []
    if block.label:
        out.append(block.label)
    for child in block.children:
        out.extend(_labels_in(child))
    return out


def _listing_source(block):
    """'lib/mle.py:bernoulli_log_likelihood' for a literalinclude of a pyobject, else ''."""
    if block.kind == "directive" and block.name == "literalinclude":
        path = block.arg.strip().replace("../", "")
        return f"{path}:{block.options.get('pyobject', '')}"
    return ""


def _listings_in(block):
    """The source of each fence ``block`` renders, in order: 'lib/x.py:obj' for a literalinclude, else ''."""
    if block.kind == "fence" or (block.kind == "directive" and block.name in ("code-block", "code", "sourcecode")):
        return [""]
    if block.kind == "directive" and block.name == "literalinclude":
        return [_listing_source(block)]
    found = []
    for child in block.children:
        found.extend(_listings_in(child))
    return found


def extract_page(md):
    """What a reader sees on page ``md`` before each exercise, and each exercise's solution (a dict)."""
    import nbformat

    md = Path(md).resolve()
    parser = _md_parser()
    page = _book_module().read_source(md)  # the cells, with the ids the executed notebook has
    executed = {}
    ipynb = md.with_suffix(".ipynb")
    if ipynb.exists():
        executed = {c.get("id"): c for c in nbformat.read(ipynb, as_version=4).cells}

    blocks = []  # what the reader sees, in order
    exercises = []
    current = None  # the exercise whose statement, starter, solution or check we are in
    in_statement = False
    solution = None  # label of the open {solution-start}

    def add(kind, text, **extra):
        if text.strip():
            blocks.append({"kind": kind, "text": text, **extra})

    def open_exercise(block):
        nonlocal current
        current = {"label": block.label, "position": len(blocks), "statement": "", "names": [],
                   "forbid": [], "exempt": "", "solution_code": "", "solution_math": [],
                   "solution_inline": [], "solution_output": "", "check": ""}
        exercises.append(current)

    for cell in page.cells:
        if cell.cell_type == "markdown":
            cell_blocks = parse_blocks(cell.source, parser)
            for block in cell_blocks:
                if block.kind == "directive" and block.name == "solution-start":
                    solution = block.arg.strip() or (current or {}).get("label")
                    continue
                if block.kind == "directive" and block.name == "solution-end":
                    solution = None
                    continue
                if block.kind == "directive" and block.name == "solution":
                    ex = _exercise(exercises, block.arg.strip())
                    if ex is not None:
                        raw = "\n".join(block.content)
                        ex["solution_math"] += [m.group(1) for m in RE_DISPLAY.finditer(raw)]
                    continue
                if solution:
                    ex = _exercise(exercises, solution)
                    if ex is not None:
                        raw = "\n".join(block.lines)
                        ex["solution_math"] += [m.group(1) for m in RE_DISPLAY.finditer(raw)]
                        ex["solution_inline"] += RE_INLINE_MATH.findall(RE_DISPLAY.sub(" ", raw))
                        ex["solution_math"] += ["\n".join(block.content)] if block.kind == "amsmath" else []
                    continue
                if block.kind == "directive" and block.name in ("exercise-start", "exercise"):
                    open_exercise(block)
                    in_statement = block.name == "exercise-start"
                    if block.name == "exercise":
                        current["statement"] += "\n".join(block.content)
                    blocks.append({"kind": "exercise", "text": block.label})
                    continue
                if block.kind == "directive" and block.name == "exercise-end":
                    in_statement = False
                    continue
                if in_statement and current is not None:
                    current["statement"] += "\n".join(block.lines) + "\n"
                labels = _labels_in(block)
                sources = _listings_in(block)
                rendered = render_block(block)
                for piece_kind, text in _split_rendered(rendered):
                    extra = {}
                    if piece_kind == "listing" and sources:
                        source = sources.pop(0)
                        if source:
                            extra["source"] = source
                    add(piece_kind, text, **extra)
                for label in labels:
                    blocks.append({"kind": "label", "text": label})
            continue
        tags = cell.metadata.get("tags", [])
        source = cell.source
        out = _outputs_text(executed.get(cell.id, {}))
        if solution or "solution" in tags:
            ex = _exercise(exercises, solution) if solution else current
            if ex is not None:
                ex["solution_code"] += source + "\n\n"
                ex["solution_output"] += out
            continue
        if "starter" in tags and current is not None:
            current["names"] += RE_DEF.findall(source)
            current["exempt"] = str(cell.metadata.get(EXEMPT_KEY) or "").strip() or current["exempt"]
        if "check" in tags and current is not None:
            match = RE_CHECK.search(source)
            if match:
                current["check"] = match.group(1)
                current["forbid"] = list(_forbid(match.group(1)))
        kind_of = "starter" if "starter" in tags else "check" if "check" in tags else "code"
        add(kind_of, source)
        add("output", out)
        figure = (cell.metadata.get("mystnb") or {}).get("figure") or {}
        if figure.get("caption"):
            add("text", str(figure["caption"]))
        if figure.get("name"):
            blocks.append({"kind": "label", "text": str(figure["name"])})
    student = ROOT / "student" / f"{md.stem}.ipynb"
    if student.exists():  # which listings the student edition shows (it leaves out those that answer an exercise)
        shown = "\n".join(c.source for c in nbformat.read(student, as_version=4).cells if c.cell_type == "markdown")
        for block in blocks:
            if block["kind"] == "listing":
                block["student"] = block["text"] in shown
    return {"page": md.stem, "blocks": blocks, "exercises": exercises}


def _exercise(exercises, label):
    return next((e for e in exercises if e["label"] == label), None)


def _forbid(check_name):
    import lib.checks

    fn = getattr(lib.checks, check_name, None)
    return getattr(fn, "forbid", ())


# --------------------------------------------------------------------- rules --



def code_tokens(source):
    return _answers_module().code_tokens(source)


def shingles(tokens):
    return _answers_module().shingles(tokens)


def _dedent(text):
    import textwrap

    return textwrap.dedent(text)


def normalise_latex(text):
    """LaTeX without layout: no spacing, sizing, tags, alignment, blockquote marks; fractions as (a)/(b)."""
    text = re.sub(r"^[ \t]*>[ \t]?", "", text, flags=re.M)
    text = re.sub(r"\\(?:tag|label)\{[^}]*\}", "", text)
    text = re.sub(r"\\(?:left|right|bigl|bigr|Bigl|Bigr|biggl|biggr|big|Big|bigg)\b", "", text)
    text = re.sub(r"\\[,;:!> ]|\\quad|\\qquad|~|&|\\\\", "", text)
    text = re.sub(r"\\(?:begin|end)\{(?:aligned|split|gathered|align\*?|equation\*?)\}", "", text)
    text = re.sub(r"[.,;]\s*$", "", text.strip())
    return _slash_fractions(re.sub(r"\s+", "", text))


def _group(text, start):
    """(content, end) of the brace group opening at ``text[start] == '{'``."""
    depth = 0
    for i in range(start, len(text)):
        depth += {"{": 1, "}": -1}.get(text[i], 0)
        if depth == 0:
            return text[start + 1:i], i + 1
    return text[start + 1:], len(text)


def _slash_fractions(text):
    """\\frac{a}{b}, \\tfrac and \\dfrac as (a)/(b), so that both spellings compare equal."""
    while True:
        match = re.search(r"\\[td]?frac(?=\{)", text)
        if not match:
            return text
        num, end = _group(text, match.end())
        if end >= len(text) or text[end] != "{":
            return text
        den, end = _group(text, end)
        num, den = _slash_fractions(num), _slash_fractions(den)
        wrap = lambda t: t if re.fullmatch(r"[A-Za-z0-9]+|\\[A-Za-z]+", t) else f"({t})"  # noqa: E731
        text = text[:match.start()] + f"{wrap(num)}/{wrap(den)}" + text[end:]


def _sides(norm):
    """The sides of a (chain of) equation(s) that are expressions (not a symbol) of MIN_EQUATION characters."""
    return {side for side in re.split(r"=|\\approx|\\propto", norm)
            if len(side) >= MIN_EQUATION and re.search(r"[-+/]|\\(?:sum|prod|cdot|ln|log|exp|det)\b", side)}


def _numbers(text):
    out = set()
    for match in RE_NUMBER.findall(text):
        digits = re.sub(r"[^0-9]", "", match.split("e")[0]).lstrip("0")
        if len(digits) >= 3:
            out.add(match.lstrip("-"))
    return out


def find_giveaways(extract):
    """[(exercise label, rule, detail)] for every exercise of ``extract`` whose answer its page shows."""
    findings = []
    blocks = extract["blocks"]
    for ex in extract["exercises"]:
        if ex.get("exempt"):
            continue
        before = blocks[: ex["position"]]
        label = ex["label"]
        # defined, listing, tokens: code cells and listings anywhere on the page the student edition shows
        page = [(i, b, "an earlier") for i, b in enumerate(before) if b["kind"] in ("code", "listing", "starter")]
        page += [(i, b, "a later") for i, b in enumerate(blocks) if i >= ex["position"]
                 and b["kind"] in ("code", "listing") and b.get("student", True)]
        for i, block, where in page:
            for rule, detail in _answers_module().shows_answer(
                    block["text"], names=ex["names"], forbid=ex.get("forbid", []),
                    solution_code=ex.get("solution_code", "") if block["kind"] != "starter" else "",
                    source=block.get("source", "") if block["kind"] == "listing" else ""):
                findings.append((label, rule, f"{detail} in {where} {block['kind']} (block {i})"))
        # output: the numbers the solution prints, printed before
        wanted = _numbers(ex.get("solution_output", ""))
        if len(wanted) >= MIN_NUMBERS:
            for i, block in enumerate(before):
                if block["kind"] == "output":
                    share = len(wanted & _numbers(block["text"])) / len(wanted)
                    if share >= NUMBER_SHARE:
                        findings.append((label, "output", f"{share:.0%} of the numbers the solution prints in an "
                                                          f"earlier output (block {i})"))
        # rerun: the solution's experiment setting already run by an earlier cell
        for detail in _reruns(ex.get("solution_code", ""), before):
            findings.append((label, "rerun", detail))
        # derived: "Derive {eq}`x`" with x displayed before
        shown = {b["text"] for b in before if b["kind"] == "label"}
        for match in RE_DERIVED.finditer(ex.get("statement", "")):
            if re.search(r"\b(?:from|using|with|by|via|in)\b", match.group("between")):
                continue  # "derive the update from {eq}`x`": x is where the derivation starts
            targets = [match.group("label")] + RE_ROLE_LABEL.findall(match.group("more") or "")
            for target in targets:
                if target.strip() in shown:
                    findings.append((label, "derived", f"the statement asks to derive `{target}`, displayed before it"))
        # equation: in a derivation, a side of an equation of the solution (displayed or inline)
        # displayed before
        earlier = set().union(set(), *[_sides(normalise_latex(b["text"])) for b in before if b["kind"] == "math"])
        derivation = re.search(r"\bderiv", ex.get("statement", ""), re.I)
        for eq in (ex.get("solution_math", []) + ex.get("solution_inline", [])) if derivation else []:
            for side in sorted(_sides(normalise_latex(eq)) & earlier):
                findings.append((label, "equation", f"the solution's {side[:60]!r} is displayed before"))
    return findings


def _parse(source):
    import ast

    try:
        return ast.parse(source)
    except SyntaxError:
        return None


def _literal_values(node):
    """The constants of a literal list/tuple/set node, or None."""
    import ast

    if isinstance(node, (ast.List, ast.Tuple, ast.Set)) and all(isinstance(e, ast.Constant) for e in node.elts):
        return [e.value for e in node.elts]
    return None


def _reruns(solution_code, before):
    """Details of earlier cells that already call the solution's page functions with its literal settings."""
    import ast

    trees = [(i, _parse(_dedent(b["text"]))) for i, b in enumerate(before) if b["kind"] == "code"]
    trees = [(i, t) for i, t in trees if t is not None]
    page_functions = {n.name for _, t in trees for n in ast.walk(t) if isinstance(n, ast.FunctionDef)}
    lists = {}  # name -> literal values, from assignments in earlier cells
    for _, tree in trees:
        for node in ast.walk(tree):
            if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
                values = _literal_values(node.value)
                if values is not None:
                    lists[node.targets[0].id] = values
    solution = _parse(_dedent(solution_code))
    if solution is None:
        return []
    called = {n.func.id for n in ast.walk(solution) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)
              and n.func.id in page_functions}
    settings = {(n.func.id, k.arg, k.value.value) for n in ast.walk(solution)
                if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id in page_functions
                for k in n.keywords if k.arg and isinstance(k.value, ast.Constant)}
    found = []
    for i, tree in trees:
        loops = {}
        for node in ast.walk(tree):
            if isinstance(node, ast.For) and isinstance(node.target, ast.Name):
                values = _literal_values(node.iter)
                if values is None and isinstance(node.iter, ast.Name):
                    values = lists.get(node.iter.id)
                if values is not None:
                    loops[node.target.id] = values
        cell_calls = {n.func.id for n in ast.walk(tree) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)}
        for node in ast.walk(tree):
            if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)):
                continue
            for k in node.keywords:
                if isinstance(k.value, ast.Name) and k.value.id in loops:
                    for value in loops[k.value.id]:
                        if (node.func.id, k.arg, value) in settings and len(called & cell_calls) >= 2:
                            found.append(f"an earlier cell (block {i}) already runs `{node.func.id}({k.arg}="
                                         f"{value!r})` with {sorted(called & cell_calls - {node.func.id})}")
    return list(dict.fromkeys(found))


def chapter_sources():
    return sorted(p for p in (ROOT / "chapters").glob("*.md") if "jupytext:" in p.read_text()[:400])


def write_fixture(md, path=None):
    """Save the extract of page ``md`` as a fixture (JSON)."""
    extract = extract_page(md)
    path = Path(path or FIXTURES / f"{Path(md).stem}.json")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(extract, indent=1, sort_keys=True) + "\n")
    return path


if __name__ == "__main__":  # print the findings over the real pages
    for md in chapter_sources():
        for finding in find_giveaways(extract_page(md)):
            print(md.stem, *finding, sep=" | ")
