"""The grade book: the roster's students with their scores, as the import file of an LMS (``--lms``).

One row per roster student, in roster order: a student who handed nothing in gets 0 and a note.  A
submission whose name is not in the roster is graded (grades.csv, feedback) but has no LMS identity:
it is left out of the LMS files and named in the summary.  Each format follows its LMS's documentation
(the guide/grade_book.md, "The grade book", cites the pages):

* ``canvas.csv``: Canvas's gradebook import, the header ``Student, ID, SIS User ID, SIS Login ID,
  Section`` then one column per assignment (or per exercise), a ``Points Possible`` row, points;
* ``moodle.csv``: Moodle's CSV grade import, matched on ``ID number`` or ``Email address`` (chosen in
  its "Identify user by" mapping), one grade column per assignment (or exercise) and a ``Feedback``
  column holding the note;
* ``gradescope.csv``: the columns of Gradescope's roster upload (``Name``, ``Email``, ``SID``,
  ``Section``) and one score column per assignment (or exercise).

Every file is UTF-8 with a byte-order mark, so that a spreadsheet shows accented names as they are
(Canvas's importer finds its header columns by substring, Moodle's CSV reader removes the mark,
Gradescope asks for UTF-8); fields are quoted as RFC 4180 says (commas and quotes kept), and a cell
that a spreadsheet would run as a formula is prefixed with ``'`` (:func:`grader.common.csv_cell`).
"""

from __future__ import annotations

import csv
import html
import json
import os

from grader.common import csv_cell, escape
from grader.report import score

FORMATS = ("canvas", "moodle", "gradescope")
COLUMNS = ("assignment", "exercise")
NO_SUBMISSION = "No submission was found for this student: grade 0."


def _identifies(fmt):
    """The roster columns of which a student needs one for ``fmt``, and how the LMS calls them."""
    return {"canvas": (("lms_id", "sis_user_id", "sis_login_id"), "lms_id, sis_user_id or sis_login_id"),
            "moodle": (("sis_user_id", "email"), "sis_user_id (Moodle's ID number) or email"),
            "gradescope": (("email",), "email (Gradescope's roster matches on it)")}[fmt]


def check_roster(rows, formats):
    """Problems that make the LMS files useless, found before anything is graded: a list of sentences."""
    problems = []
    for fmt in formats:
        needed, said = _identifies(fmt)
        missing = [r["student"] for r in rows if not any(r.get(c) for c in needed)]
        if missing:
            shown = ", ".join(missing[:10]) + (f" and {len(missing) - 10} more" if len(missing) > 10 else "")
            problems.append(f"--lms {fmt}: the roster gives no {said} for {shown}: {fmt} cannot match them "
                            "to its students.")
        for column in needed:
            values = [r[column] for r in rows if r.get(column)]
            twice = sorted({v for v in values if values.count(v) > 1})
            if twice:
                problems.append(f"--lms {fmt}: the roster's {column} {', '.join(twice[:5])} belongs to several "
                                "students (duplicate ids).")
    return list(dict.fromkeys(problems))


def gradebook(results, roster):
    """(entries, unknown): an entry per roster student (its roster row and its result or None), and the
    students graded whose name is not in the roster."""
    by_student = {r["student"]: r for r in results}
    entries = [{"row": row, "result": by_student.get(row["student"])} for row in roster]
    listed = {row["student"] for row in roster}
    unknown = sorted(s for s in by_student if s not in listed)
    return entries, unknown


def _assignments(results, editions, columns, title=None):
    """[(header, page, label or None, points)]: one column per page graded, or per exercise of each."""
    pages = [p for p in editions if any(r["page"] == p for r in results)]
    out = []
    for page in pages:
        if columns == "exercise":
            out += [(f"{page}: {label}", page, label, points) for label, points in editions[page]["exercises"]]
        else:
            name = title if title and len(pages) == 1 else page
            out.append((name, page, None, sum(points for _, points in editions[page]["exercises"])))
    return out


def _points(result, page, label):
    """The points of one column for one student: 0 when nothing (or another page) was handed in."""
    if result is None or result["page"] != page:
        return 0
    if label is None:
        return score(result)[0]
    return next((ex["points"] for ex in result["exercises"] if ex["exercise"] == label and ex["status"] == "passed"),
                0)


def _note(entry):
    """Moodle's Feedback column: the score, each exercise's status, the notes. Moodle shows feedback as HTML
    (its grade import stores the text in Moodle's HTML-permitting format), so every text is HTML-escaped
    here, after :func:`grader.common.escape` made it one printable line."""
    if entry["result"] is None:
        return NO_SUBMISSION
    total, top = score(entry["result"])
    parts = [f"Score {total:g} / {top:g}."]
    parts += [f"Exercise {n} ({ex['exercise']}): {ex['status']}." for n, ex in enumerate(entry["result"]["exercises"], 1)]
    parts += [" ".join(n.split()) for n in entry["result"]["notes"]]
    return html.escape(escape(" ".join(parts), 4000), quote=False)


def rows_for(fmt, entries, assignments, extra_columns=()):
    """The header and rows of ``fmt``'s import file (lists of str), before quoting."""
    pts = [[f"{_points(e['result'], page, label):g}" for _, page, label, _ in assignments] for e in entries]
    heads = [a[0] for a in assignments]
    if fmt == "canvas":
        header = ["Student", "ID", "SIS User ID", "SIS Login ID", "Section", *heads]
        possible = ["    Points Possible", "", "", "", "", *[f"{a[3]:g}" for a in assignments]]
        body = [[e["row"]["name"] or e["row"]["student"], e["row"]["lms_id"], e["row"]["sis_user_id"],
                 e["row"]["sis_login_id"], e["row"]["section"], *p] for e, p in zip(entries, pts)]
        return header, [possible, *body]
    if fmt == "moodle":
        header = ["Full name", "ID number", "Email address", "Section", *extra_columns, *heads, "Feedback"]
        body = [[e["row"]["name"] or e["row"]["student"], e["row"]["sis_user_id"], e["row"]["email"],
                 e["row"]["section"], *[e["row"].get(c, "") for c in extra_columns], *p, _note(e)]
                for e, p in zip(entries, pts)]
        return header, body
    if fmt == "gradescope":
        header = ["Name", "Email", "SID", "Section", *heads]
        body = [[e["row"]["name"] or e["row"]["student"], e["row"]["email"], e["row"]["sis_user_id"],
                 e["row"]["section"], *p] for e, p in zip(entries, pts)]
        return header, body
    raise ValueError(f"unknown LMS {fmt!r}: one of {', '.join(FORMATS)}")


def write_lms(fmt, results, roster, editions, out, columns="assignment", title=None, extra_columns=()):
    """Write ``OUT/<fmt>.csv`` (UTF-8 with a byte-order mark, RFC 4180 quoting) atomically; its path."""
    entries, _ = gradebook(results, roster)
    header, body = rows_for(fmt, entries, _assignments(results, editions, columns, title), extra_columns)
    target = out / f"{fmt}.csv"
    tmp = out / f"{fmt}.csv.tmp"
    with open(tmp, "w", newline="", encoding="utf-8-sig") as fh:
        writer = csv.writer(fh, lineterminator="\r\n")
        writer.writerow(header)
        writer.writerows([csv_cell(cell) for cell in row] for row in body)
    os.replace(tmp, target)
    _remember(out, fmt, columns, title)
    return target


OPTIONS = "lms-options.json"  # how each LMS file of OUT was written: a re-grade writes it again the same way


def _remember(out, fmt, columns, title):
    path = out / OPTIONS
    try:
        known = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        known = {}
    known = known if isinstance(known, dict) else {}
    known[fmt] = {"columns": columns, "title": title}
    path.write_text(json.dumps(known, indent=1), encoding="utf-8")


def refresh(results, roster, editions, out, written, extra_columns=(), graded=True):
    """Every LMS file of ``out`` that this run did not write (``written``), written again from all results
    with the options it was written with, or, when this run graded anyone (``graded``) and cannot write it
    (no roster, or one without the ids the LMS needs), removed: a file of an earlier run never keeps old
    scores. Lines for the summary."""
    try:
        known = json.loads((out / OPTIONS).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        known = {}
    known = known if isinstance(known, dict) else {}
    lines = []
    for fmt in FORMATS:
        path = out / f"{fmt}.csv"
        if fmt in written or not path.is_file():
            continue
        options = known.get(fmt) if isinstance(known.get(fmt), dict) else {}
        columns = options.get("columns") if options.get("columns") in COLUMNS else "assignment"
        title = options.get("title") if isinstance(options.get("title"), str) else None
        if roster and not check_roster(roster, [fmt]):
            write_lms(fmt, results, roster, editions, out, columns, title, extra_columns=extra_columns)
            lines.append(f"{fmt}: {path} written again from every result (an earlier run wrote it)")
        elif graded:
            path.unlink()
            lines.append(f"{fmt}: {path} REMOVED: an earlier run wrote it, and without ROSTER= (with the ids "
                         f"{fmt} needs) it cannot be written again; it would have kept the old scores. "
                         f"ROSTER=roster.csv LMS={fmt} writes it again.")
    return lines


def summary_lines(results, roster):
    """The summary's lines on the roster: who handed nothing in, which submissions are not on it."""
    entries, unknown = gradebook(results, roster)
    missing = [e["row"]["student"] for e in entries if e["result"] is None]
    lines = []
    if missing:
        lines.append(f"roster: {len(missing)} student(s) handed nothing in (0 in the LMS files): "
                     f"{', '.join(escape(m, 200) for m in missing)}")
    if unknown:
        lines.append(f"roster: {len(unknown)} submission(s) graded but not on the roster (in grades.csv, not in "
                     f"the LMS files): {', '.join(escape(u, 200) for u in unknown)}")
    return lines
