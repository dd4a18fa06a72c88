"""Upload: the HTML feedback named so that the LMS attaches each page to its student's submission.

Written when the submissions folder came from ``make collect`` (its ``collected.csv`` holds the LMS's ids):

* ``OUT/canvas-feedback.zip`` for Canvas's "Re-Upload Submissions" (gradebook, the assignment's menu):
  Canvas reads each file name's first two all-digit parts as the user id and the id of a file of that
  user's submission (canvas-lms, ``Assignment#infer_comment_context_from_filename``), the naming of its own
  download, so each page is ``<lastfirst>_<user id>_<attachment id>_feedback.html`` and becomes a comment
  with the page attached;
* ``OUT/moodle-feedback.zip`` for Moodle's "Upload multiple feedback files in a zip" (the assignment's
  grading action; needs "Feedback files" on): the folder structure of its download,
  ``<Full Name>_<participant id>_assignsubmission_file_/feedback.html``.

Gradescope has no bulk upload of feedback files: its students read ``OUT/feedback/<student>.html`` as sent.
"""

from __future__ import annotations

import os
import zipfile

from grader import feedback_html

ZIPS = {"canvas": "canvas-feedback.zip", "moodle": "moodle-feedback.zip"}


def upload_name(row):
    """The name of a student's feedback page inside the LMS's zip, from a row of collected.csv; or None."""
    if row["lms"] == "canvas" and row.get("user_id", "").isdigit() and row.get("attachment_id", "").isdigit():
        lastfirst = "".join(c for c in row.get("full_name", "") if c.isalnum()) or "student"
        return f"{lastfirst}_{row['user_id']}_{row['attachment_id']}_feedback.html"
    if row["lms"] == "moodle" and row.get("participant", "").isdigit():
        # Moodle writes the full name with '_' made ' ' (its participant id then splits off cleanly)
        name = " ".join(row.get("full_name", "").replace("_", " ").replace("/", " ").split()) or "Participant"
        return f"{name}_{row['participant']}_assignsubmission_file_/feedback.html"
    return None


def write_zips(results, manifest, out, book_url):
    """The LMS's feedback zip(s) for the results whose student the manifest knows; lines for the summary."""
    per_lms = {}
    for result in results:
        row = manifest.get(result["student"])
        name = upload_name(row) if row else None
        if name:
            per_lms.setdefault(row["lms"], []).append((name, feedback_html.render(result, book_url)))
    lines = []
    for lms, pages in sorted(per_lms.items()):
        target = out / ZIPS[lms]
        tmp = out / (ZIPS[lms] + ".tmp")
        with zipfile.ZipFile(tmp, "w", zipfile.ZIP_DEFLATED) as archive:
            for name, text in sorted(pages):
                archive.writestr(name, text)
        os.replace(tmp, target)
        lines.append(f"{lms}: {target}: the feedback page of {len(pages)} student(s), named for "
                     f"{'Re-Upload Submissions' if lms == 'canvas' else 'Upload multiple feedback files in a zip'}")
    return lines
