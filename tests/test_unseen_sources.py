"""No page, docstring or check message speaks of material the reader cannot see (issue 26).

A pitfall that rebuts "the slide", "lecture notes", "a version that
circulates" or "the public notebook of one of these lectures" argues with a
source the reader never saw.  The book states each such warning as its own,
with the right statement.  This test searches the chapter sources
(chapters/*.md), every module of ``lib`` (docstrings, comments and the
messages of the exercise checks in lib/checks) for such references.
"""

import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "_ext"))
from slide_decks import SOURCE_MARK  # noqa: E402  (the slide marks: authoring, not text the reader reads)

# (pattern, what it refers to); case-insensitive.  Built from issue 26's list.
UNSEEN = [
    (r"\blecture notes?\b", "lecture notes"),
    (r"\bslides?\b|\bslide's\b", "a slide"),
    (r"\bnotes on\b", "notes on a topic"),
    (r"\b(?:some|the|those|these|such) notes\b(?! in ``?lib/)", "notes"),
    (r"\bcirculat(?:es|ed|ing)\b", "a version that circulates"),
    (r"\bpublic notebooks?\b", "a public notebook"),
    (r"\b(?:one of )?these lectures\b", "lectures"),
    (r"\bwidely[- ]read\b", "a widely read derivation"),
    (r"\bsome (?:courses|tutorials|blog posts|handouts)\b", "unnamed course material"),
    (r"\b(?:a|one|some) (?:course|lecture)'s\b", "a course's material"),
]


def _sources():
    files = sorted((ROOT / "chapters").glob("*.md")) + sorted((ROOT / "lib").rglob("*.py"))
    assert len(files) > 40
    return files


def find_unseen(text):
    """[(line number, matched text, what)] for every reference to unseen material in ``text``
    (a slide mark, ``% slide`` or a ``slide`` tag, is the lecture's own slide, not a source)."""
    hits = []
    for number, line in enumerate(text.split("\n"), start=1):
        if SOURCE_MARK.match(line):
            continue
        for pattern, what in UNSEEN:
            for match in re.finditer(pattern, line, re.I):
                hits.append((number, match.group(0), what))
    return hits


def test_no_reference_to_unseen_material():
    hits = [f"{path.relative_to(ROOT)}:{number}: {found!r} ({what})"
            for path in _sources() for number, found, what in find_unseen(path.read_text())]
    assert not hits, ("references to material the reader cannot see; state each as the book's own "
                      "warning, with the right statement (issue 26):\n" + "\n".join(hits))


def test_check_messages_name_no_unseen_source():
    """The check modules are clean already (their messages are the book's own warnings)."""
    for path in sorted((ROOT / "lib" / "checks").glob("*.py")):
        assert find_unseen(path.read_text()) == [], path.name


@pytest.mark.parametrize("text", [
    "The slide's worked numbers do use both.",
    "A version of the M-step that circulates with this example reads",
    "the public notebook of one of these lectures calls `np.cov`",
    "Notes on variational EM sometimes give, as a second reason",
    "A widely read derivation of the lemma writes",
    "(the normalisation some lecture notes drop)",
    "The chapters grew from a course's lecture notes; those the notes made are corrected",
])
def test_the_listed_phrasings_are_found(text):
    assert find_unseen(text)


@pytest.mark.parametrize("text", [
    "Each chapter takes one or two lectures; the exercises are sized for a week.",
    "see the notes in ``lib/_fastpath.py``",
    "A footnote, a notebook, the student notebooks and the slider of the figure.",
    "The book's own warning: dividing by n_k is needed.",
])
def test_ordinary_words_are_not_flagged(text):
    assert find_unseen(text) == []
