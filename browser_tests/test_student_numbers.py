"""The student edition shows the numbers the HTML book shows, on every page.

Sphinx numbers a chapter's section pages after the chapter page's own
sections (a chapter page with five ``##`` sections is followed by section
pages 4.6, 4.7, ...) and runs the chapter's counts of figures, equations,
exercises and results on across its pages.  The student builder
(``_ext/student_edition.py``) takes these numbers from Sphinx; this guards
the committed notebooks against a stale build.  It reads both: the built
HTML (no browser needed) and the committed student notebooks.
"""

import json
import re
from collections import defaultdict

import pytest

import book_browser as bb

CAPTION = re.compile(r'<span class="caption-number">(?P<kind>[A-Z][a-z]+\.?) (?P<number>\d+(?:\.\d+)*) </span>')
EQNO = re.compile(r'<span class="eqno">\((?P<number>\d+(?:\.\d+)*)\)')
SECTION = re.compile(r'<h[1-6]><span class="section-number">(?P<number>\d+(?:\.\d+)*)\. </span>')

STUDENT_HEADING = re.compile(r"^#+ (?P<number>\d+(?:\.\d+)*)\. ", re.M)
STUDENT_EXERCISE = re.compile(r"^### Exercise (?P<number>\d+(?:\.\d+)*)\b", re.M)
STUDENT_RESULT = re.compile(r"\*\*(?P<kind>[A-Z][a-z]+) (?P<number>\d+(?:\.\d+)*)[ .]")
STUDENT_TAG = re.compile(r"\\tag\{(?P<number>\d+(?:\.\d+)*)\}")
STUDENT_FIGURE = re.compile(r"\*\*Figure (?P<number>\d+(?:\.\d+)*)\.\*\*")


def _html_numbers(page):
    numbers = defaultdict(set)
    for match in CAPTION.finditer(page):
        kind = "Figure" if match["kind"] == "Fig." else match["kind"]
        numbers[kind].add(match["number"])
    numbers["equation"] = {m["number"] for m in EQNO.finditer(page)}
    numbers["section"] = {m["number"] for m in SECTION.finditer(page)}
    return numbers


def _student_numbers(nb):
    text = "\n\n".join("".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "markdown")
    numbers = defaultdict(set)
    numbers["section"] = {m["number"] for m in STUDENT_HEADING.finditer(text)}
    numbers["Exercise"] = {m["number"] for m in STUDENT_EXERCISE.finditer(text)}
    for match in STUDENT_RESULT.finditer(text):
        if match["kind"] not in ("Figure", "Table", "Listing"):
            numbers[match["kind"]].add(match["number"])
    numbers["equation"] = {m["number"] for m in STUDENT_TAG.finditer(text)}
    numbers["Figure"] = {m["number"] for m in STUDENT_FIGURE.finditer(text)}
    return numbers


def _pages():
    repo = bb.repo_dir()
    return [d for d in bb.toc_docnames() if (repo / "student" / f"{d.split('/')[-1]}.ipynb").is_file()]


@pytest.mark.parametrize("page", _pages())
def test_student_edition_numbers_match_the_html(page, html_root):
    docname = page
    page = (html_root / f"{docname}.html").read_text()
    nb = json.loads((bb.repo_dir() / "student" / f"{docname.split('/')[-1]}.ipynb").read_text())
    html, student = _html_numbers(page), _student_numbers(nb)
    assert student["section"] == html["section"], (
        f"{docname}: section numbers differ: student only {sorted(student['section'] - html['section'])}, "
        f"HTML only {sorted(html['section'] - student['section'])}")
    # Exercises are never inside solutions: the student edition has every one of them.
    assert student["Exercise"] == html["Exercise"], (
        f"{docname}: exercise numbers differ: student {sorted(student['Exercise'])}, HTML {sorted(html['Exercise'])}")
    # Figures, equations and results inside solutions are numbered in the HTML only.
    for kind, numbers in student.items():
        extra = numbers - html[kind]
        assert not extra, f"{docname}: the student edition shows {kind} {sorted(extra)}, which the HTML page does not"


def test_pages_with_numbers_exist():
    assert any("." in n for d in _pages() for n in _student_numbers(
        json.loads((bb.repo_dir() / "student" / f"{d.split('/')[-1]}.ipynb").read_text()))["Exercise"])
