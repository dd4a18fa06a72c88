"""Reading a chapter page's committed outputs, for the claims tests (issue 37).

tests/test_claims_ch01_ch02.py, test_claims_ch03.py, test_claims_ch04.py and
test_claims_ch05.py hold the words of a page
against what its executed notebook shows: the values it glues into its prose
(``lib.glue``, quoted as ``{glue:text}`name```) and the lines it prints.
"""

import ast
import functools
import json
import re
from pathlib import Path

CHAPTERS = Path(__file__).resolve().parents[1] / "chapters"
GLUE_MIME = "application/papermill.record/text/plain"
NUMBER = r"-?\d+\.?\d*(?:e-?\d+)?"


def value(text):
    """A glued text ("0.497", "49.7%", "6,800", "8e-02", "1/50") as the number it shows."""
    plain = text.replace(",", "")
    if plain.endswith("%"):
        return float(plain[:-1]) / 100
    if "/" in plain:
        top, bottom = plain.split("/")
        return float(top) / float(bottom)
    return int(plain) if plain.lstrip("-").isdigit() else float(plain)


@functools.lru_cache(maxsize=None)
def outputs(page):
    """(glued values by name, all printed text) of an executed chapter notebook (read once; do not
    modify the dictionary)."""
    notebook = json.loads((CHAPTERS / f"{page}.ipynb").read_text(encoding="utf-8"))
    glued, text = {}, []
    for cell in notebook["cells"]:
        for out in cell.get("outputs", []):
            if "scrapbook" in out.get("metadata", {}):
                glued[out["metadata"]["scrapbook"]["name"]] = value(ast.literal_eval(out["data"][GLUE_MIME]))
            elif out.get("output_type") == "stream":
                text.append("".join(out["text"]))
    return glued, "\n".join(text)


def number(text, pattern):
    """The float captured by ``pattern`` (one group) in the printed text."""
    match = re.search(pattern, text)
    assert match, f"no printed line matches {pattern!r}: the page's output changed"
    return float(match.group(1))


def numbers(text, pattern):
    """The floats inside the group that ``pattern`` captures (an array, a list, a row)."""
    match = re.search(pattern, text)
    assert match, f"no printed line matches {pattern!r}: the page's output changed"
    return [float(v) for v in re.findall(NUMBER, match.group(1))]


def table(text, header, n_rows):
    """The ``n_rows`` lines after the line that contains ``header``, split into fields."""
    lines = text[text.index(header):].splitlines()[1:n_rows + 1]
    assert len(lines) == n_rows, f"the table under {header!r} has fewer than {n_rows} rows"
    return [line.split() for line in lines]


def matrix(text, header, n_rows):
    """The rows of a numpy matrix printed on the ``n_rows`` lines after ``header``."""
    return [[float(v) for v in re.findall(NUMBER, row)] for row in
            text[text.index(header):].splitlines()[1:n_rows + 1]]


def caption(page, name):
    """The caption of the figure ``name`` in the page's MyST source."""
    source = (CHAPTERS / f"{page}.md").read_text(encoding="utf-8")
    block = source[:source.index(f"name: {name}")]
    return block[block.rindex("caption: |"):]
