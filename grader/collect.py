"""Collect: an LMS's download of a class's submissions -> one ``<student>.ipynb`` per roster student.

``make collect FROM=download.zip ROSTER=roster.csv LMS=canvas|moodle|gradescope OUT=folder`` (or
``python -m grader collect --from ... --roster ... --lms ... --out ...``; ``make grade FROM=...`` collects,
then grades) reads the zip (or the folder it unpacked into) as the LMS wrote it, maps each
notebook to a roster student by the LMS's own identifiers, never by a guess, keeps the latest of several
submissions, and writes ``OUT/<student>.ipynb`` and ``OUT/collected.csv`` (who, from which file, with the
LMS's ids that the grader needs to name the feedback for upload: grader/upload.py). What it could not map
is listed, with why; nothing is copied for it. The download formats:

* Canvas, "Download Submissions": flat files ``<lastfirst>_[late_]<user id>_<attachment id>_<file name>``
  (Canvas renames a student's second upload of a file ``hw1-1.ipynb``); the user id is the roster's
  ``lms_id``; of several notebooks of one student, the highest attachment id (the latest upload) is kept;
* Moodle, "Download all submissions": ``<Full Name>_<participant id>_assignsubmission_file_/<file>``
  folders (or, without "Download submissions in folders", the same prefix on each file name); the
  participant id is Moodle's per-assignment "Participant <n>" (the Identifier column of the assignment's
  grading worksheet), given in the roster's ``moodle_participant`` column; of several notebooks in one
  folder the latest (the zip's file time) is kept, two with the same time are not guessed between;
* Gradescope, "Export Submissions": one ``submission_<id>/`` folder per submission and
  ``submission_metadata.yml``, whose ``:submitters:`` (``:email:``, ``:sid:``) map to the roster's
  ``email`` or ``sis_user_id``; of several submissions of one student the latest ``:created_at:`` is kept.

The download is untrusted: entries are read, never extracted by their own names (a file is written only
as ``OUT/<roster student id>.ipynb``), links and special files are refused, and sizes are bounded (a
notebook as large as the grader takes, the entries' count and their total).
"""

from __future__ import annotations

import argparse
import csv
import datetime
import os
import re
import stat
import sys
import zipfile
from pathlib import Path, PurePosixPath

from grader.common import DEFAULTS, csv_cell, escape, parse_size

FORMATS = ("canvas", "moodle", "gradescope")
MAX_ENTRIES = 20000
MAX_TOTAL = 4 * 2**30  # bytes read from the download in all
MAX_METADATA = 16 * 2**20
MANIFEST = "collected.csv"
MANIFEST_COLUMNS = ("student", "lms", "source", "user_id", "attachment_id", "participant", "full_name",
                    "submission_id", "submitted_at", "kept_of")

CANVAS = re.compile(r"^(?P<name>[^_/]*)_(?:late_)?(?P<user>\d+)_(?P<attachment>\d+)_(?P<file>.+)$")
CANVAS_COPY = re.compile(r"-(?P<n>\d+)\.ipynb$")  # hw1-1.ipynb: Canvas's name for a second upload of hw1.ipynb
MOODLE = re.compile(r"^(?P<name>.*)_(?P<participant>\d+)_assignsubmission_file_(?P<file>.*)$")
GRADESCOPE_FOLDER = re.compile(r"^submission_(?P<id>\d+)$")


class CollectError(Exception):
    """The download cannot be collected at all: the message says why and what to do."""


class Entry:
    """One file of the download: its path inside it (POSIX), size, time and how to read it (bounded)."""

    def __init__(self, path, size, when, read):
        self.path, self.size, self.when, self._read = path, size, when, read

    def read(self, limit):
        return self._read(limit)


def entries(source, max_size):
    """(entries, refused): the regular files of a zip or a folder, and [(path, why)] of what is not read."""
    source = Path(source)
    if source.is_dir():
        return _folder_entries(source)
    if not zipfile.is_zipfile(source):
        raise CollectError(f"{source} is neither a zip file nor a folder: give the file the LMS downloaded.")
    return _zip_entries(source)


def _zip_entries(source):
    found, refused, total = [], [], 0
    archive = zipfile.ZipFile(source)
    infos = archive.infolist()
    if len(infos) > MAX_ENTRIES:
        raise CollectError(f"{source} holds {len(infos)} entries, more than {MAX_ENTRIES}: not a class's download.")
    for info in infos:
        name = info.filename.replace("\\", "/")
        mode = info.external_attr >> 16
        if info.is_dir():
            continue
        parts = PurePosixPath(name).parts
        if name.startswith("/") or ".." in parts or not parts:
            refused.append((name, "a path outside the download (absolute or with ..)"))
            continue
        if stat.S_IFMT(mode) not in (0, stat.S_IFREG):  # 0: a zip made without Unix modes (Windows)
            refused.append((name, "a link or a special file, never read"))
            continue
        total += info.file_size
        if total > MAX_TOTAL:
            raise CollectError(f"{source} unpacks to more than {MAX_TOTAL // 2**30} GiB: not read further.")

        def read(limit, info=info):
            with archive.open(info) as fh:  # bounded: the declared size can lie, the read cannot
                return fh.read(limit + 1)

        found.append(Entry(name, info.file_size, datetime.datetime(*info.date_time), read))
    return found, refused


def _folder_entries(source):
    found, refused = [], []
    for folder, dirs, files in os.walk(source, followlinks=False):
        for name in [*dirs]:
            if os.path.islink(os.path.join(folder, name)):
                refused.append((os.path.relpath(os.path.join(folder, name), source), "a link, never followed"))
        for name in files:
            path = os.path.join(folder, name)
            rel = PurePosixPath(*Path(os.path.relpath(path, source)).parts).as_posix()
            info = os.lstat(path)
            if not stat.S_ISREG(info.st_mode):
                refused.append((rel, "a link or a special file, never read"))
                continue

            def read(limit, path=path):
                fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
                with os.fdopen(fd, "rb") as fh:
                    return fh.read(limit + 1)

            found.append(Entry(rel, info.st_size, datetime.datetime.fromtimestamp(info.st_mtime), read))
            if len(found) > MAX_ENTRIES:
                raise CollectError(f"{source} holds more than {MAX_ENTRIES} files: not a class's download.")
    return found, refused


# ----------------------------------------------------------------- mapping --

def _roster_index(rows, column, normalise=str.strip):
    return {normalise(r[column]): r for r in rows if r.get(column, "").strip()}


def _participant(value):
    """Moodle's identifier as its grading worksheet writes it ("Participant 1234") or as a number."""
    match = re.fullmatch(r"\s*(?:participant\s*)?(\d+)\s*", value or "", re.I)
    return match[1] if match else ""


def map_canvas(found, rows):
    """({student: [candidates]}, unmapped): each candidate (sort key, entry, ids)."""
    by_id = _roster_index(rows, "lms_id")
    out, unmapped = {}, []
    for entry in found:
        base = PurePosixPath(entry.path).name
        match = CANVAS.match(base)
        if not match:
            unmapped.append((entry.path, "not named as Canvas names a submission (<name>_<user id>_<file id>_<file>)"))
            continue
        row = by_id.get(match["user"])
        if row is None:
            unmapped.append((entry.path, f"Canvas user id {match['user']} is in no roster row's lms_id"))
            continue
        copy = CANVAS_COPY.search(match["file"])
        key = (int(match["attachment"]), int(copy["n"]) if copy else 0)
        out.setdefault(row["student"], []).append(
            (key, entry, {"user_id": match["user"], "attachment_id": match["attachment"], "full_name": match["name"]}))
    return out, unmapped


def map_moodle(found, rows):
    by_participant = {_participant(r.get("moodle_participant", "")): r for r in rows
                      if _participant(r.get("moodle_participant", ""))}
    out, unmapped = {}, []
    for entry in found:
        head = PurePosixPath(entry.path).parts[0] if "/" in entry.path else entry.path
        match = MOODLE.match(head)
        if not match:
            unmapped.append((entry.path, "not in a folder named as Moodle names one "
                                         "(<Full Name>_<participant id>_assignsubmission_file_)"))
            continue
        row = by_participant.get(match["participant"])
        if row is None:
            unmapped.append((entry.path, f"Moodle participant {match['participant']} is in no roster row's "
                                         "moodle_participant"))
            continue
        out.setdefault(row["student"], []).append(
            ((entry.when, 0), entry, {"participant": match["participant"], "full_name": match["name"]}))
    return out, unmapped


def _created(value):
    if isinstance(value, datetime.datetime):
        return value if value.tzinfo else value.replace(tzinfo=datetime.timezone.utc)
    match = re.match(r"(\d{4}-\d\d-\d\d)[ T](\d\d:\d\d:\d\d)(?:\.\d+)?\s*([+-]\d\d):?(\d\d)?", str(value or ""))
    if not match:
        return None
    zone = datetime.timezone(datetime.timedelta(hours=int(match[3]), minutes=int(match[4] or 0)
                                                * (1 if match[3][0] == "+" else -1)))
    return datetime.datetime.fromisoformat(f"{match[1]} {match[2]}").replace(tzinfo=zone)


def map_gradescope(found, rows, metadata_entry):
    import yaml

    raw = metadata_entry.read(MAX_METADATA)
    if len(raw) > MAX_METADATA:
        raise CollectError(f"{metadata_entry.path} is larger than {MAX_METADATA // 2**20} MiB: not read.")
    try:
        meta = yaml.safe_load(raw.decode("utf-8"))
    except (yaml.YAMLError, UnicodeDecodeError) as exc:
        raise CollectError(f"{metadata_entry.path} is not the YAML Gradescope writes ({type(exc).__name__}).") \
            from None
    if not isinstance(meta, dict):
        raise CollectError(f"{metadata_entry.path} holds no submissions (a mapping submission_<id>: ...).")
    base = PurePosixPath(metadata_entry.path).parent
    by_email = _roster_index(rows, "email", lambda v: v.strip().lower())
    by_sid = _roster_index(rows, "sis_user_id")
    out, unmapped = {}, []
    notebooks = {}
    for entry in found:
        rel = PurePosixPath(entry.path)
        try:
            rel = rel.relative_to(base) if str(base) != "." else rel
        except ValueError:
            continue
        if len(rel.parts) >= 2 and GRADESCOPE_FOLDER.match(rel.parts[0]):
            notebooks.setdefault(rel.parts[0], []).append(entry)
    for folder, entries_ in sorted(notebooks.items()):
        info = meta.get(folder)
        submitters = info.get(":submitters") if isinstance(info, dict) else None
        if not isinstance(submitters, list) or not submitters:
            unmapped += [(e.path, f"{folder} has no :submitters: in submission_metadata.yml") for e in entries_]
            continue
        if len(entries_) > 1:
            unmapped += [(e.path, f"{folder} holds {len(entries_)} notebooks: which one is the homework is not "
                                  "guessed") for e in entries_]
            continue
        entry = entries_[0]
        when = _created(info.get(":created_at"))
        for who in submitters:
            who = who if isinstance(who, dict) else {}
            email, sid = str(who.get(":email") or "").strip().lower(), str(who.get(":sid") or "").strip()
            row = by_email.get(email) or by_sid.get(sid)
            if row is None:
                unmapped.append((entry.path, f"submitter {escape(email or sid or '?', 100)} of {folder} is in no "
                                             "roster row's email or sis_user_id"))
                continue
            key = (when or datetime.datetime.min.replace(tzinfo=datetime.timezone.utc), int(folder.split("_")[1]))
            out.setdefault(row["student"], []).append(
                (key, entry, {"submission_id": folder.split("_")[1], "full_name": str(who.get(":name") or ""),
                              "submitted_at": when.isoformat() if when else ""}))
    return out, unmapped


def collect(source, rows, fmt, out, max_size):
    """Collect the download ``source`` for the roster ``rows`` into ``out``; the lines of the report."""
    if fmt not in FORMATS:
        raise CollectError(f"unknown LMS {fmt!r}: one of {', '.join(FORMATS)}")
    if fmt == "moodle" and not any(_participant(r.get("moodle_participant", "")) for r in rows):
        raise CollectError("LMS=moodle: the roster has no moodle_participant column: copy it from the assignment's "
                           "grading worksheet (its Identifier column, 'Participant 1234'), one per student.")
    if fmt == "canvas" and not any(r.get("lms_id") for r in rows):
        raise CollectError("LMS=canvas: the roster has no lms_id (Canvas's user id, the ID column of its "
                           "gradebook export): the download names students by it.")
    out = Path(out)
    if out.exists() and any(out.iterdir()):
        raise CollectError(f"{out} is not empty: collect into a new folder (a class's notebooks, nothing else).")
    found, refused = entries(source, max_size)
    others = [e for e in found if not e.path.endswith(".ipynb")]
    notebooks = [e for e in found if e.path.endswith(".ipynb")
                 and not PurePosixPath(e.path).name.startswith("._")]  # macOS's resource forks
    if fmt == "canvas":
        mapped, unmapped = map_canvas(notebooks, rows)
    elif fmt == "moodle":
        mapped, unmapped = map_moodle(notebooks, rows)
    else:
        meta = [e for e in found if PurePosixPath(e.path).name == "submission_metadata.yml"]
        if len(meta) != 1:
            raise CollectError(f"{source}: {'no' if not meta else len(meta)} submission_metadata.yml: a Gradescope "
                               "export holds exactly one.")
        mapped, unmapped = map_gradescope(notebooks, rows, meta[0])
    out.mkdir(parents=True, exist_ok=True)
    lines, manifest, older, too_large, ties = [], [], [], [], []
    for row in rows:
        candidates = sorted(mapped.get(row["student"], []), key=lambda c: c[0])
        if not candidates:
            continue
        if len(candidates) > 1 and candidates[-1][0] == candidates[-2][0]:
            ties.append(row["student"])
            unmapped += [(c[1].path, f"one of {len(candidates)} notebooks of {row['student']} with the same time: "
                                     "the latest is not guessed") for c in candidates]
            continue
        _, entry, ids = candidates[-1]
        older += [(c[1].path, row["student"]) for c in candidates[:-1]]
        data = entry.read(max_size)
        if len(data) > max_size:
            too_large.append(entry.path)
            unmapped.append((entry.path, f"larger than the notebook limit ({max_size // 2**20} MiB)"))
            continue
        target = out / f"{row['student']}.ipynb"
        fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o644)
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        manifest.append({"student": row["student"], "lms": fmt, "source": entry.path, "kept_of": str(len(candidates)),
                         **ids})
    write_manifest(out, manifest)
    collected = {m["student"] for m in manifest}
    missing = [r["student"] for r in rows if r["student"] not in collected]
    lines.append(f"collected {len(manifest)} notebook(s) of {len(rows)} roster student(s) into {out} "
                 f"({MANIFEST}: who came from which file)")
    if older:
        lines.append(f"kept the latest of several submissions; {len(older)} older one(s) left out:")
        lines += [f"  {escape(path, 300)} ({student})" for path, student in older]
    if unmapped:
        lines.append(f"{len(unmapped)} notebook(s) NOT collected (nothing guessed; copy one by hand as "
                     "OUT/<student>.ipynb if it is a student's):")
        lines += [f"  {escape(path, 300)}: {why}" for path, why in unmapped]
    if refused:
        lines.append(f"{len(refused)} entr(y/ies) of the download refused unread:")
        lines += [f"  {escape(path, 300)}: {why}" for path, why in refused]
    if others:
        lines.append(f"{len(others)} file(s) that are not notebooks ignored (first: {escape(others[0].path, 200)})")
    if missing:
        lines.append(f"no notebook for {len(missing)} roster student(s): {', '.join(missing)}")
    return lines


def write_manifest(out, rows):
    with open(Path(out) / MANIFEST, "w", newline="", encoding="utf-8") as fh:
        writer = csv.DictWriter(fh, fieldnames=MANIFEST_COLUMNS, extrasaction="ignore")
        writer.writeheader()
        for row in rows:  # a file name is the student's text: never a formula when a spreadsheet opens it
            writer.writerow({c: csv_cell(escape(row.get(c, ""), 1000)) for c in MANIFEST_COLUMNS})


def read_manifest(folder):
    """{student: manifest row} of a collected folder (``collected.csv``), or {} when it has none."""
    path = Path(folder) / MANIFEST
    if not path.is_file() or path.is_symlink():
        return {}
    with open(path, newline="", encoding="utf-8") as fh:
        return {row["student"]: row for row in csv.DictReader(fh) if row.get("student") and row.get("lms")}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--from", dest="source", type=Path, required=True,
                        help="the LMS's download: the zip file, or the folder it was unpacked into")
    parser.add_argument("--roster", type=Path, required=True, help="the roster (CSV, `student` column and the "
                                                                    "LMS's ids: lms_id, moodle_participant, email)")
    parser.add_argument("--lms", choices=FORMATS, required=True, help="the LMS that made the download")
    parser.add_argument("--out", type=Path, required=True, help="a new folder: <student>.ipynb and collected.csv")
    parser.add_argument("--max-notebook-size", type=parse_size, default=parse_size(DEFAULTS["max_notebook_size"]),
                        help="larger notebooks are not collected (default 20MiB, the grader's limit)")
    args = parser.parse_args(argv)
    from grader import variants

    try:
        rows = variants.read_roster_rows(args.roster)
    except variants.UsageError as exc:
        parser.error(str(exc))
    if not args.source.exists():
        parser.error(f"{args.source}: no such file or folder")
    if args.source.resolve() == args.out.resolve() or args.source.resolve() in args.out.resolve().parents:
        parser.error("the output folder must not be inside the download")
    try:
        lines = collect(args.source, rows, args.lms, args.out, args.max_notebook_size)
    except CollectError as exc:
        print(f"collect: {exc} Nothing was written.", file=sys.stderr)
        return 2
    print("\n".join(lines))
    return 0

