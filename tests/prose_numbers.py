"""Numbers quoted in a page's prose that its outputs print, typed in instead of glued (issue 37).

Used by tests/test_prose_numbers.py; ``python tests/prose_numbers.py`` lists the
findings on every page.  CONTRIBUTING.md ("Numbers in prose") gives the
convention: a number the text quotes from a computation on its page is glued
(``lib.glue("name", f"{value:.3f}")`` in the code, ``{glue:text}`name``` in the
prose), so the two cannot drift apart.

A *prose number* is a decimal number written in a Markdown cell of the page's
source (prose, inline and display math, admonitions, exercise statements and
solutions; not code spans, code fences or glue roles) with at least
``MIN_DIGITS`` significant digits (``0.973``, ``2.25``, ``97.3%``: a section
number such as 3.2 or a round 0.5 is too short to tell a quotation from a
coincidence; a whole number counts only as a percentage, ``56%``), not the
number of a section, equation, figure or version.  An *output number* is a decimal number in a text output of the
executed notebook (streams and ``text/plain``).  A prose number is flagged when
some output number, rounded to the prose number's decimals, equals it (a
percentage counts as its fraction too: 97.3% against 0.973), unless the number
is written in one of the page's code cells (then it is an input the code was
given, such as ``rho = 0.95``, and the output only prints it back).
"""

from __future__ import annotations

import re
import sys
from decimal import Decimal, InvalidOperation
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MIN_DIGITS = 2
RE_DECIMAL = re.compile(r"(?<![\w.\\{])(\d+\.\d+|\d+(?=\s*\\?%))(\s*\\?%)?(?!\w|\.\d)")
RE_NUMBERED = re.compile(r"\b(?:[Ss]ections?|[Cc]hapters?|[Ee]qs?\.|[Ee]quations?|[Ff]igures?|[Tt]ables?|[Ee]xercises?"
                         r"|[Tt]heorems?|[Ll]emmas?|[Vv]ersions?|B)\s*\(?$")  # "section 4.3", "Bishop's B.23"
RE_GLUE = re.compile(r"\{glue(?::\w+)?\}`[^`]*`")
RE_FENCE = re.compile(r"^(?P<f>[ \t>]*(?:`{3,}|~{3,}))(?!\{).*?^(?P=f)[^\n]*$", re.S | re.M)
RE_CODE_SPAN = re.compile(r"(`+)(?!\{)(?:.*?[^`])?\1(?!`)", re.S)
RE_ROLE = re.compile(r"\{(?!glue)[\w:-]+\}`[^`]*`")  # {eq}`label`, {numref}`fig-x`, {doc}`03_1`: not numbers


def _book():
    path = str(ROOT / "tools")
    if path not in sys.path:
        sys.path.insert(0, path)
    import book  # tools/book.py

    return book


def significant(number):
    return len(number.replace(".", "").lstrip("0"))


def prose_text(markdown):
    """The Markdown of a cell without code fences, code spans, roles and glue roles."""
    text = RE_FENCE.sub(" ", markdown)
    text = RE_GLUE.sub(" ", text)
    text = RE_ROLE.sub(" ", text)
    text = RE_CODE_SPAN.sub(" ", text)
    text = re.sub(r"^%.*$", " ", text, flags=re.M)  # MyST comments: not shown to a reader
    return re.sub(r"^:[\w-]+:.*$", " ", text, flags=re.M)  # directive options (:label:, :class:)


def prose_numbers(markdown):
    """[(number as written, [the values it can quote])]: a percentage is also its fraction."""
    found = []
    text = prose_text(markdown)
    for match in RE_DECIMAL.finditer(text):
        number, percent = match.group(1), match.group(2)
        if significant(number) < MIN_DIGITS or RE_NUMBERED.search(text[:match.start()]):
            continue
        values = [Decimal(number)]
        if percent:  # 15% is 0.15 (two decimals), 97.3% is 0.973
            values.append((Decimal(number) / 100).quantize(Decimal(1).scaleb(Decimal(number).as_tuple().exponent - 2)))
        found.append((number + ("%" if percent else ""), values))
    return found


def output_numbers(cell):
    text = []
    for out in cell.get("outputs", []):
        if out.get("output_type") == "stream":
            text.append(out.get("text", ""))
        elif out.get("output_type") in ("execute_result", "display_data"):
            plain = out.get("data", {}).get("text/plain", "")
            text.append(plain if isinstance(plain, str) else "".join(plain))
    out = set()
    for match in re.finditer(r"(?<![\w.])-?\d+\.\d+(?:e[-+]?\d+)?(?!\w|\.\d)", "".join(text)):
        try:
            out.add(abs(Decimal(match.group(0))))
        except InvalidOperation:
            pass
    return out


def _quotes(value, outputs):
    exponent = value.as_tuple().exponent
    for out in outputs:
        try:
            if out.quantize(Decimal(1).scaleb(exponent)) == value:
                return out
        except InvalidOperation:
            continue
    return None


def find_unglued(md):
    """[(line of the source, number as written, the output number it equals)] on page ``md``."""
    import nbformat

    md = Path(md)
    page = _book().read_source(md)
    executed = nbformat.read(md.with_suffix(".ipynb"), as_version=4)
    outputs = set().union(*[output_numbers(c) for c in executed.cells if c.cell_type == "code"])
    code = "\n".join(c.source for c in page.cells if c.cell_type == "code")
    typed = {Decimal(n) for n in re.findall(r"(?<![\w.])\d+\.\d+(?!\w|\.\d)", code)}
    source = md.read_text()
    findings = []
    for cell in page.cells:
        if cell.cell_type != "markdown":
            continue
        offset = source.find(cell.source)
        for number, values in prose_numbers(cell.source):
            if any(v in typed for v in values):
                continue
            for value in values:
                out = _quotes(value, outputs)
                if out is not None:
                    where = cell.source.find(number.rstrip("%"))
                    line = source.count("\n", 0, offset + max(where, 0)) + 1 if offset >= 0 else 0
                    findings.append((line, number, str(out)))
                    break
    return findings


def chapter_sources():
    return sorted(p for p in (ROOT / "chapters").glob("*.md") if "jupytext:" in p.read_text()[:400])


if __name__ == "__main__":
    for md in chapter_sources():
        for line, number, out in find_unglued(md):
            print(f"{md.name}:{line}: {number} (an output prints {out})")
