"""Feedback a student can read: ``OUT/feedback/<student>.html``, one standalone page per submission.

The page holds the score, every note, and per exercise its points, status and message, with a link to
the exercise in the web book: ``<published address>/chapters/<page>.html#<label>`` (the address from
``_config.yml`` through ``tools/book.py``; sphinx-exercise gives an exercise with ``:label: ex-...`` that
label as its ``id``).  No external asset (one inline style sheet, light and dark), and every text that can
come from a submission (its name, notes and messages quoting it) is HTML-escaped here, after
:func:`grader.common.escape` made it one printable line.
"""

from __future__ import annotations

import html
import os
import re
import tempfile
import urllib.parse
from pathlib import Path

from grader.common import ROOT, escape
from grader.report import score, shown_message, stamp_line

_LABEL = re.compile(r"^:label:\s*(\S+)\s*$", re.M)
_LABELS_CACHE = {}

STYLE = """
:root { color-scheme: light dark; --fg: #1a1a1a; --bg: #ffffff; --muted: #4a4a4a; --line: #8a8a8a;
        --link: #0b57a4; --passed: #1b6b2a; --failed: #a1261c; }
@media (prefers-color-scheme: dark) {
  :root { --fg: #ececec; --bg: #141414; --muted: #c4c4c4; --line: #8a8a8a;
          --link: #8cc4ff; --passed: #7ed98f; --failed: #ff9d94; }
}
body { font: 1rem/1.5 system-ui, sans-serif; color: var(--fg); background: var(--bg); margin: 0; }
main { max-width: 60rem; margin: 0 auto; padding: 1.5rem; }
a { color: var(--link); }
a:focus { outline: 3px solid var(--link); outline-offset: 2px; }
table { border-collapse: collapse; width: 100%; margin-top: 1rem; }
caption { text-align: left; font-weight: 600; padding-bottom: .5rem; }
th, td { border: 1px solid var(--line); padding: .4rem .6rem; text-align: left; vertical-align: top; }
td.points { white-space: nowrap; text-align: right; }
.passed { color: var(--passed); font-weight: 600; }
.failed, .not-implemented, .not-run { color: var(--failed); font-weight: 600; }
.message { overflow-wrap: anywhere; }
.note { border-left: 4px solid var(--line); padding-left: .8rem; }
.meta { color: var(--muted); }
"""


def _text(value, limit=2000):
    """Any text of the result as HTML: one printable line (grader.common.escape: controls, bidi overrides
    and line breaks shown as escapes), then HTML-escaped.  A backslash stays one backslash: the grader's
    texts already show a submission's bytes that way (``s07\\xff``)."""
    return html.escape(escape(value, limit).replace("\\\\", "\\"), quote=True)


def chapter_labels(page, chapters=ROOT / "chapters"):
    """The exercise labels (``:label:``) of ``chapters/<page>.md``: the anchors the web book has."""
    key = (str(chapters), page)
    if key not in _LABELS_CACHE:
        source = chapters / f"{page}.md"
        _LABELS_CACHE[key] = frozenset(_LABEL.findall(source.read_text(encoding="utf-8"))) if source.is_file() \
            else frozenset()
    return _LABELS_CACHE[key]


def exercise_url(book_url, page, label):
    """Where the exercise is in the web book: its page, with the label as the anchor when the page has it."""
    base = f"{book_url}/chapters/{urllib.parse.quote(page)}.html"
    return f"{base}#{urllib.parse.quote(label)}" if label in chapter_labels(page) else base


def render(result, book_url):
    """The whole page for one result (a dict as report.validated makes it). ``book_url`` None: no links
    (an instructor's own homework, ``--assignment``, is not a page of the web book)."""
    student = html.escape(result["student"], quote=True)  # already printable (find.printable_name)
    if result.get("name"):  # the roster's name, the id beside it
        student = f"{_text(result['name'], 200)} ({student})"
    total, top = score(result)
    parts = ["<!DOCTYPE html>", '<html lang="en">', "<head>", '<meta charset="utf-8">',
             '<meta name="viewport" content="width=device-width, initial-scale=1">',
             f"<title>Feedback for {student}</title>", f"<style>{STYLE}</style>", "</head>", "<body>", "<main>",
             f"<h1>Feedback for {student}</h1>"]
    if result.get("title"):
        parts.append(f'<p class="homework">Homework: <strong>{_text(result["title"], 200)}</strong></p>')
    page = result["page"]
    if page and book_url is None:
        parts.append(f'<p class="meta">Notebook: {html.escape(page)}</p>')
    elif page:
        page_url = html.escape(f"{book_url}/chapters/{urllib.parse.quote(page)}.html", quote=True)
        parts.append(f'<p class="meta">Notebook: <a href="{page_url}">{html.escape(page)}</a></p>')
    parts.append(f'<p class="score"><strong>Score: {total:g} / {top:g}</strong></p>')
    if result.get("graded_at"):
        parts.append(f'<p class="meta">Graded {html.escape(stamp_line(result))}</p>')
    for note in result["notes"]:
        parts.append(f'<p class="note"><strong>Note.</strong> {_text(" ".join(note.splitlines()))}</p>')
    if result["exercises"]:
        parts += ["<table>", "<caption>Each exercise: points earned, result and the check's message</caption>",
                  '<thead><tr><th scope="col">Exercise</th><th scope="col">Points</th><th scope="col">Result</th>'
                  '<th scope="col">Message</th></tr></thead>', "<tbody>"]
        for number, ex in enumerate(result["exercises"], 1):
            earned = ex["points"] if ex["status"] == "passed" else 0
            name = f"Exercise {number}"
            if book_url is not None:
                name = f'<a href="{html.escape(exercise_url(book_url, page, ex["exercise"]), quote=True)}">{name}</a>'
            name += f' <span class="meta">{html.escape(ex["exercise"])}</span>'  # the label: secondary
            status = html.escape(ex["status"])
            parts.append(f'<tr><th scope="row">{name}</th>'
                         f'<td class="points">{earned:g} / {ex["points"]:g}</td>'
                         f'<td class="{status.replace(" ", "-")}">{status}</td>'
                         f'<td class="message">{_text(" ".join(shown_message(ex).splitlines()))}</td></tr>')
        parts += ["</tbody>", "</table>"]
    parts += ["</main>", "</body>", "</html>"]
    return "\n".join(parts) + "\n"


def write(result, feedback_dir, book_url):
    """Write ``feedback_dir/<student>.html`` atomically; its path."""
    target = feedback_dir / f"{result['student']}.html"
    # a short temporary name, whatever the length of the student's
    fd, tmp = tempfile.mkstemp(prefix=".feedback-", suffix=".tmp", dir=feedback_dir)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(render(result, book_url))
        os.chmod(tmp, 0o644)
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return target
