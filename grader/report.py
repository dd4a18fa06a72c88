"""Report: results as the grader trusts them, and what it writes (grades.csv, variants.csv, feedback)."""

from __future__ import annotations

import csv
import os
import re
import sys
import time

from grader.common import ROOT, STATUSES, bounded, csv_cell, escape, fence
from grader.judge import VERDICTS

def validated(raw, student, editions, fallback_page=None):
    """A result as the grader trusts it: page and exercises from the editions, statuses from a fixed set."""
    raw = raw if isinstance(raw, dict) else {}
    page = raw.get("page") if raw.get("page") in editions else (
        fallback_page if fallback_page in editions else None)
    notes = [bounded(n) for n in raw.get("notes", [])[:20] if isinstance(n, str)] \
        if isinstance(raw.get("notes"), list) else []
    seen = {}
    for ex in raw.get("exercises", []) if isinstance(raw.get("exercises"), list) else []:
        if isinstance(ex, dict) and isinstance(ex.get("exercise"), str):
            seen.setdefault(ex["exercise"], ex)
    exercises = []
    for label, points in (editions[page]["exercises"] if page else []):
        got = seen.get(label, {})
        status = got.get("status") if got.get("status") in STATUSES else "not run"
        message = bounded(got.get("message")) or "not graded: see the note above."
        exercises.append({"exercise": label, "points": points, "status": status, "message": message})
    errors = [e for e in raw.get("errors", []) if isinstance(e, list) and len(e) == 3][:200] \
        if isinstance(raw.get("errors"), list) else []
    labels = {label for label, _ in (editions[page]["exercises"] if page else [])}
    variants = [[label, verdict, bounded(owner, 100) if isinstance(owner, str) else None]
                for label, verdict, owner in (v for v in raw.get("variants", [])[:50]
                                              if isinstance(v, list) and len(v) == 3)
                if isinstance(label, str) and label in labels and verdict in VERDICTS] \
        if isinstance(raw.get("variants"), list) else []
    stamp = {k: raw[k] for k, form in _STAMPS.items() if isinstance(raw.get(k), str) and form.fullmatch(raw[k])}
    return {"student": student, "page": page, "exercises": exercises, "notes": notes, "errors": errors,
            "variants": variants, **stamp}


# When a result was graded and the SHA-256 of the bytes graded (grader/run.py), kept only in their own form.
_STAMPS = {"graded_at": re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ"), "sha256": re.compile(r"[0-9a-f]{64}")}


def feedback(result):
    """OUT/feedback/<student>.md, headed by ``result["name"]`` and ``result["title"]`` (the roster's name, the
    homework's title) when the grader knows them. Student text is data here too: the student id and name
    (title line included) and every exercise's message (a check's words around the answer's exception,
    warnings, values) are code spans, whose backticks outnumber any run of the text's own; the notes quote
    the student's text as code where they are written (grader/run.py, grader/find.py). No markup of a
    student's reaches the page."""
    who = fence(result["student"], 200)
    if result.get("name"):
        who = f"{fence(result['name'], 200)} ({who})"
    lines = [f"# Feedback for {who}", ""]
    if result.get("title"):
        lines += [f"Homework: {fence(result['title'], 200)}", ""]
    if result["page"]:
        lines += [f"Notebook: {result['page']}", ""]
    if result.get("graded_at"):
        lines += [f"Graded {stamp_line(result)}", ""]
    for note in result["notes"]:  # one line each: whatever a note quotes cannot start a line of its own
        lines += [f"**Note.** {' '.join(note.splitlines())}", ""]
    total, top = score(result)
    lines += [f"Score: {total:g} / {top:g}", "", "| exercise | points | result | message |", "|---|---:|---|---|"]
    for number, ex in enumerate(result["exercises"], 1):
        earned = ex["points"] if ex["status"] == "passed" else 0
        message = fence(shown_message(ex)).replace("|", "\\|")  # a pipe ends a table cell even in a code span
        lines.append(f"| Exercise {number} ({ex['exercise']}) | {earned:g} / {ex['points']:g} | {ex['status']} "
                     f"| {message} |")
    return "\n".join(lines) + "\n"


def shown_message(ex):
    """An exercise's message without the status it repeats (a check's "Passed: ..." beside "passed")."""
    message = ex["message"]
    head = ex["status"] + ": "
    return message[len(head):] if message.lower().startswith(head) else message


def stamp_line(result):
    """When the result was graded and which notebook: "2026-12-06 00:40:12 UTC, notebook SHA-256 ab12...";
    the hash lets a student check that the grade is that of the file they handed in."""
    when = result["graded_at"].replace("T", " ").replace("Z", " UTC")
    return when + (f", notebook SHA-256 {result['sha256']}" if result.get("sha256") else "")


def score(result):
    total = sum(ex["points"] for ex in result["exercises"] if ex["status"] == "passed")
    return total, sum(ex["points"] for ex in result["exercises"])


def write_grades(results, editions, out):
    labels = [label for page in editions for label, _ in editions[page]["exercises"]
              if any(r["page"] == page for r in results)]
    tmp = out / "grades.csv.tmp"
    with open(tmp, "w", newline="", encoding="utf-8") as fh:
        writer = csv.writer(fh)
        writer.writerow(["student", "chapter", *labels, "total", "max", "file"])
        for r in sorted(results, key=lambda r: r["student"]):
            earned = {ex["exercise"]: (ex["points"] if ex["status"] == "passed" else 0) for ex in r["exercises"]}
            total, top = score(r)
            writer.writerow([csv_cell(r["student"]), r["page"] or "", *[earned.get(lab, "") for lab in labels],
                             f"{total:g}", f"{top:g}", csv_cell(r.get("file", ""))])
    os.replace(tmp, out / "grades.csv")


def write_variants(results, out):
    """OUT/variants.csv: every variant exercise of every submission, and whose numbers its notebook holds."""
    tmp = out / "variants.csv.tmp"
    with open(tmp, "w", newline="", encoding="utf-8") as fh:
        writer = csv.writer(fh)
        writer.writerow(["student", "chapter", "exercise", "variant", "handed_out_to"])
        for r in sorted(results, key=lambda r: r["student"]):
            for label, verdict, owner in r.get("variants", []):
                writer.writerow([csv_cell(r["student"]), r["page"] or "", label, verdict, csv_cell(owner or "")])
    os.replace(tmp, out / "variants.csv")


def handout_pairs(results):
    """Lines naming each submission whose variant cells are another student's handout."""
    lines = []
    for r in sorted(results, key=lambda r: r["student"]):
        owners = sorted({owner for _, verdict, owner in r.get("variants", []) if verdict == "other"})
        if owners:
            lines.append(f"  {escape(r['student'], 200)} handed in the notebook handed out to "
                         f"{', '.join(escape(o, 200) for o in owners)}")
    return lines


def summary(results):
    rates = {}
    for r in results:
        for ex in r["exercises"]:
            rates.setdefault(ex["exercise"], []).append(ex["status"] == "passed")
    lines = ["pass rate by exercise (hardest first):"]
    for label, passed in sorted(rates.items(), key=lambda kv: sum(kv[1]) / len(kv[1])):
        lines.append(f"  {label:<32} {sum(passed):>4} / {len(passed):<4} {100 * sum(passed) / len(passed):5.1f}%")
    return "\n".join(lines)


def _progress(done, total, start, width=30):
    filled = int(width * done / total) if total else width
    rate = (time.monotonic() - start) / done if done else 0
    eta = f", about {rate * (total - done):.0f} s left" if done and done < total else ""
    sys.stderr.write(f"\r[{'#' * filled}{'.' * (width - filled)}] {done}/{total} graded{eta}   ")
    sys.stderr.flush()




def write_similarity(submissions, results, editions, out, max_size):
    """OUT/similarity.csv and the summary's lines naming the pairs (grader/similarity.py: answers read as
    text, never run).  Each notebook is read as the grader reads it: a regular file, never through a link,
    no larger than the notebook limit."""
    import stat

    import nbformat

    import lib.checks
    from grader import similarity

    answers, starters = {}, {}
    for submission in submissions:
        result = results.get(submission.student) or {}
        edition = editions.get(result.get("page"))
        if edition is None or not submission.regular:
            continue
        try:
            fd = os.open(submission.path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
            with os.fdopen(fd, "rb") as fh:
                info = os.fstat(fh.fileno())
                if not stat.S_ISREG(info.st_mode) or info.st_size > max_size:
                    continue
                nb = nbformat.reads(fh.read(max_size + 1).decode("utf-8"), as_version=4)
            answers[submission.student] = similarity.answers_of(nb, edition["checks"])
            starters.update(similarity.answers_of(edition["nb"], edition["checks"]))
        except Exception:  # noqa: BLE001 - a notebook that cannot be read or parsed has no answers to compare
            continue
    checks = [getattr(lib.checks, name) for name in lib.checks.__all__]
    rows = similarity.report(answers, similarity.book_solutions(ROOT / "chapters"),
                             similarity.lib_sources(checks), starters=starters)
    similarity.write_csv(rows, out)
    return similarity.summary(rows)
