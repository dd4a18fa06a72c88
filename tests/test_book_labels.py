"""Equation labels cited in lib's docstrings exist in the book.

lib's docstrings name the equation they implement ("Book: chapters/...md,
eq. label ``em-e-step``" or "eq. labels ``a``, ``b`` and ``c``").  Every
such label must be defined by some chapter source, ``chapters/*.md``
(section pages ``chapters/0N_M_*.md`` included): as a display equation
``$$ ... $$ (label)`` or a ``:label:`` option.  A renamed or deleted
equation then fails here instead of leaving a dangling reference.
"""

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
CITATION = re.compile(r"eq\.\s+labels?\s+((?:``[^`]+``(?:\s*,\s*|\s+and\s+|\s*,\s*and\s+)?)+)")
LABEL = re.compile(r"``([^`]+)``")
DEFINITION = re.compile(r"\$\$\s*\(([A-Za-z0-9_:.-]+)\)|^:label:\s*([A-Za-z0-9_:.-]+)", re.MULTILINE)


def defined_labels():
    labels = set()
    for source in sorted((ROOT / "chapters").glob("*.md")):
        for match in DEFINITION.finditer(source.read_text(encoding="utf-8")):
            labels.add(match.group(1) or match.group(2))
    return labels


def cited_labels():
    """(module path, object name, label) for every equation label in lib's docstrings."""
    cited = []
    for module in sorted((ROOT / "lib").rglob("*.py")):
        tree = ast.parse(module.read_text(encoding="utf-8"))
        nodes = [tree] + [n for n in ast.walk(tree)
                          if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))]
        for node in nodes:
            doc = ast.get_docstring(node, clean=False) or ""
            for citation in CITATION.finditer(" ".join(doc.split())):
                for label in LABEL.findall(citation.group(1)):
                    cited.append((module.relative_to(ROOT).as_posix(), getattr(node, "name", "<module>"), label))
    return cited


CITED = cited_labels()


def test_the_docstrings_cite_labels():
    assert len(CITED) >= 30  # the parser still finds the citations
    assert ("lib/mixture.py", "e_step", "em-e-step") in CITED


@pytest.mark.parametrize("where, name, label", CITED, ids=[f"{w}:{n}:{lab}" for w, n, lab in CITED])
def test_cited_label_is_defined_by_a_chapter(where, name, label):
    assert label in DEFINED, (
        f"{where}: the docstring of {name} cites eq. label {label!r}, which no chapters/*.md defines; "
        "cite the equation's current label."
    )


DEFINED = defined_labels()


def test_a_missing_label_is_caught():
    doc = "Book: chapters/04_em_gaussian_mixtures.md, eq. labels ``em-e-step``, ``no-such-eq`` and ``gmm-density``."
    found = [lab for c in CITATION.finditer(doc) for lab in LABEL.findall(c.group(1))]
    assert found == ["em-e-step", "no-such-eq", "gmm-density"]
    assert "no-such-eq" not in DEFINED and {"em-e-step", "gmm-density"} <= DEFINED
