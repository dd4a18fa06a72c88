"""Per-student variants: a course key, one handout folder per student, re-rolls.

    python -m grader variants key KEY                        # make course-key KEY=course.key
    python -m grader variants handout --roster CSV --key KEY [--out handout] [--assignment path/to/hw1.md]
                                                             # make handout ROSTER=roster.csv KEY=course.key
    python -m grader variants reroll --key KEY --student ID --exercise LABEL [--reason TEXT]
    python -m grader variants show --roster CSV --key KEY    # every student's numbers, for the instructor
    (handout, reroll and show take --assignment path/to/hw1.md for an instructor's own homework)

An exercise whose answer is a number has a variant cell,
``lib.checks.variant("ex-...", seed=0)``.  ``handout`` copies every student
notebook (``student/*.ipynb``) into ``OUT/<student>/`` with that seed
replaced by the student's own, HMAC-SHA256(course key, student id + NUL +
exercise label) (``lib/checks/_variants.py``).  A notebook shows one student's
seeds; without the key nobody can compute another's.  The grader recomputes
them: ``make grade SUBMISSIONS=dir KEY=course.key``.

The roster is a CSV file with a ``student`` column: the ids the grader sees
as file names (``<student>.ipynb``).  The key is a file the instructor keeps
and never hands out.  A re-roll (a variant that turned out to be unfair)
writes the student's new seed for one exercise into ``KEY.overrides.csv``,
beside the key; ``handout`` and the grader read it.  The instructor's guide,
guide/variants.md, tells the whole procedure.
"""

from __future__ import annotations

import argparse
import csv
import os
import re
import secrets
import sys
from pathlib import Path

from grader.common import EDITIONS  # and this checkout's lib on sys.path

from lib.checks import _variants  # noqa: E402  (after grader.common: the checkout's lib, from any folder)

OVERRIDE_COLUMNS = ["student", "exercise", "seed", "reason", "reroll"]
STUDENT_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,99}")
VARIANT_CALL = _variants.VARIANT_CALL  # a variant cell's seed argument (its home: lib/checks/_variants.py)


class UsageError(Exception):
    """A problem with the instructor's files, said so that they can fix it."""


# ------------------------------------------------------------------ files --

def write_key(path):
    """Write a new course key (32 random bytes, hex) to ``path``, readable by its owner only."""
    path = Path(path)
    if path.exists():
        raise UsageError(f"{path} exists: a course key is never overwritten (the class's seeds come from it). "
                         "Choose another file name, or delete it yourself if it was never used.")
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w") as fh:
        fh.write(secrets.token_hex(32) + "\n")
    return path


def read_key(path):
    """The key's bytes from a file written by :func:`write_key`."""
    path = Path(path)
    try:
        text = path.read_text().strip()
    except OSError as exc:
        raise UsageError(f"cannot read the course key {path}: {exc.strerror}. Make one with "
                         f"`make course-key KEY={path}`.") from None
    try:
        key = bytes.fromhex(text)
    except ValueError:
        raise UsageError(f"{path} is not a course key (expected 64 hexadecimal digits, as written by "
                         "`make course-key`).") from None
    if len(key) < 16:
        raise UsageError(f"{path} holds a key of {len(key)} bytes; a course key has 32 (`make course-key`).")
    return key


def read_roster(path):
    """The student ids of a roster CSV (a ``student`` column), checked: unique, usable as file names."""
    return [row["student"] for row in read_roster_rows(path)]


# The columns of a roster that the grader's LMS files use (guide/grade_book.md, "The grade book"); any other column
# is kept as it is.
ROSTER_COLUMNS = ("student", "name", "lms_id", "sis_user_id", "sis_login_id", "section", "email")


def read_roster_rows(path):
    """Every row of a roster CSV as a dict (column -> text, names and values stripped), in file order.

    The ``student`` column is required and checked (unique, usable as a file name); the known columns
    (:data:`ROSTER_COLUMNS`) are always present (empty when the file lacks them); unknown columns are kept.
    A UTF-8 byte-order mark (a spreadsheet's "CSV UTF-8") is read as such, not as part of a column name.
    """
    path = Path(path)
    try:
        with open(path, newline="", encoding="utf-8-sig") as fh:
            reader = csv.reader(fh)
            header = next(reader, [])
            lines = list(reader)
    except OSError as exc:
        raise UsageError(f"cannot read the roster {path}: {exc.strerror}") from None
    except UnicodeDecodeError:
        raise UsageError(f"{path} is not UTF-8 text: save the roster as CSV UTF-8.") from None
    columns = [c.strip() for c in header]
    if "student" not in columns:
        raise UsageError(f"{path} has no `student` column (its columns: {', '.join(columns) or 'none'}). "
                         "A roster is a CSV file whose header has a column named student.")
    repeated = sorted({c for c in columns if c and columns.count(c) > 1})
    if repeated:
        raise UsageError(f"{path}: the column(s) {', '.join(repeated)} appear twice in the header.")
    rows, seen = [], set()
    for line, values in enumerate(lines, start=2):
        if not any(v.strip() for v in values):
            continue  # a blank line, as spreadsheets leave at the end
        row = {c: "" for c in ROSTER_COLUMNS}
        row.update({c: (values[i].strip() if i < len(values) else "") for i, c in enumerate(columns) if c})
        sid = row["student"]
        if not STUDENT_ID.fullmatch(sid):
            raise UsageError(f"{path}, line {line}: {sid!r} is not a usable student id (letters, digits, '.', "
                             "'_' and '-', starting with a letter or digit): the grader reads it as a file name.")
        if sid in seen:
            raise UsageError(f"{path}, line {line}: student {sid} appears twice.")
        seen.add(sid)
        rows.append(row)
    if not rows:
        raise UsageError(f"{path} lists no students.")
    return rows


def overrides_path(key_path):
    """Where the re-rolls of the course whose key is ``key_path`` live: beside it."""
    return Path(str(key_path) + ".overrides.csv")


def read_overrides(key_path):
    """{(student, exercise): seed} from the overrides file beside the key (empty when there is none)."""
    path = overrides_path(key_path)
    if not path.exists():
        return {}
    out = {}
    with open(path, newline="") as fh:
        for line, row in enumerate(csv.DictReader(fh), start=2):
            try:
                seed = int(row["seed"])
                exercise = row["exercise"]
                if exercise not in _variants.registered():
                    raise ValueError(f"{exercise!r} is not a variant exercise")
                if not 1 <= seed <= _variants.MAX_SEED:
                    raise ValueError(f"seed {seed} out of range")
            except (KeyError, TypeError, ValueError) as exc:
                raise UsageError(f"{path}, line {line}: {exc} (columns: student, exercise, seed, reason)") from None
            out[(row["student"], exercise)] = seed
    return out


def seeds(key, students, overrides=None, exercises=None):
    """{student: {exercise: seed}}: the HMAC seed, or the re-rolled one."""
    overrides = overrides or {}
    exercises = sorted(exercises or _variants.registered())
    return {s: {ex: overrides.get((s, ex)) or _variants.seed_for(key, s, ex) for ex in exercises}
            for s in students}


def _read_override_rows(path):
    if not Path(path).exists():
        return []
    with open(path, newline="") as fh:
        return list(csv.DictReader(fh))


def _write_override_rows(path, rows):
    tmp = Path(str(path) + ".tmp")
    with open(tmp, "w", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=OVERRIDE_COLUMNS)
        writer.writeheader()
        writer.writerows({k: r.get(k, "") for k in OVERRIDE_COLUMNS} for r in rows)
    os.replace(tmp, path)


def assign(key_path, students, max_tries=50):
    """{student: {exercise: seed}} with no two students' numbers or answers interchangeable.

    Students are taken in roster order.  A student whose variant of an
    exercise has the same numbers as an earlier student's, or an answer
    within ``2 * tolerance`` of one (so that the earlier student's number
    would pass the check), gets another seed derived from the key; the new
    seed is written to the overrides file beside the key, so that it stays
    the same at every later handout and the grader reads it.  Returns the
    table and the list of changes [(student, exercise, earlier student)];
    an exercise whose answers cannot all be kept apart (a class larger than
    its answer's precision allows) is reported in the list with ``None`` as
    the earlier student.
    """
    key = read_key(key_path)
    table = seeds(key, students, read_overrides(key_path))
    changes, rows = [], _read_override_rows(overrides_path(key_path))
    for exercise, spec in sorted(_variants.registered().items()):
        taken = []  # (answer, numbers, student) of the students before
        for student in students:
            seed, first = table[student][exercise], None
            for attempt in range(1, max_tries + 1):
                params = spec.params(seed)
                answer, numbers = spec.answer(params), sorted(params.items())
                clash = next((t for t in taken if t[1] == numbers or abs(t[0] - answer) < 2 * spec.tolerance), None)
                if clash is None:
                    break
                first = first or clash[2]
                seed = _variants.seed_for(key, student, f"{exercise}#distinct{attempt}")
            else:  # every seed tried matches someone: keep the student's own and say so
                changes.append((student, exercise, None))
                seed = table[student][exercise]
                params = spec.params(seed)
                answer, numbers = spec.answer(params), sorted(params.items())
            if seed != table[student][exercise]:
                changes.append((student, exercise, first))
                rows = [r for r in rows if not (r["student"] == student and r["exercise"] == exercise)]
                rows.append({"student": student, "exercise": exercise, "seed": str(seed),
                             "reason": "kept apart from an earlier student's numbers", "reroll": "distinct"})
                table[student][exercise] = seed
            taken.append((answer, numbers, student))
    if any(earlier is not None for _, _, earlier in changes):
        _write_override_rows(overrides_path(key_path), rows)
    return table, changes


# ------------------------------------------------------------- notebooks --

def personalise(nb, student_seeds):
    """``nb`` (a student notebook, changed in place) with each variant cell's seed set to ``student_seeds``.

    Returns the exercise labels whose seed was set.
    """
    done = []
    for cell in nb.cells:
        if cell.cell_type != "code" or "lib.checks.variant(" not in cell.source:
            continue

        def replace(match):
            label = match.group("label")
            if label not in student_seeds:
                return match.group(0)
            done.append(label)
            return f"{match.group(1)}{student_seeds[label]}{match.group(4)}"

        cell.source = VARIANT_CALL.sub(replace, cell.source)
        cell.outputs = []  # the book's numbers must not stay printed under the student's seed
        cell.execution_count = None
    return done


def handout(roster, key_path, out, editions=EDITIONS):
    """Write ``out/<student>/<page>.ipynb`` for every student of ``roster``.

    Returns ({student: folder}, the changes :func:`assign` made to keep the students' numbers apart).
    """
    import nbformat

    students = read_roster(roster)
    table, changes = assign(key_path, students)
    pages = sorted(p for p in Path(editions).glob("*.ipynb") if not p.name.endswith(".key.ipynb"))
    if not pages:
        raise UsageError(f"no student notebooks in {editions}: run `make student` first.")
    out = Path(out)
    if out.resolve() == Path(editions).resolve():
        raise UsageError("the handout folder must not be the student edition's own folder.")
    folders = {}
    for student in students:
        folder = out / student
        folder.mkdir(parents=True, exist_ok=True)
        for page in pages:
            nb = nbformat.read(page, as_version=4)
            personalise(nb, table[student])
            nbformat.write(nb, folder / page.name)
        folders[student] = folder
    return folders, changes


# ------------------------------------------------------------------- main --

def _cmd_key(args):
    path = write_key(args.key)
    print(f"wrote a new course key to {path} (mode 600). Keep it with your grading files, never in the "
          "handout: whoever has it can compute every student's numbers.")


def _assignment(md):
    """An instructor's own homework (issue 39, grader/assignment.py), its variants registered here."""
    from grader import assignment

    try:
        return assignment.load(md)
    except assignment.AssignmentError as exc:
        raise UsageError(str(exc)) from None


def _cmd_handout(args):
    editions, count = EDITIONS, len(_variants.registered())
    if args.assignment:
        hw = _assignment(args.assignment)
        editions, count = hw.md.parent / "build", len(hw.variants)
        if not (editions / f"{hw.name}.ipynb").is_file():
            raise UsageError(f"{editions / (hw.name + '.ipynb')} is missing: run `make assignment "
                             f"SRC={args.assignment}` first.")
    folders, changes = handout(args.roster, args.key, args.out, editions=editions)
    for student, exercise, earlier in changes:
        if earlier is None:
            print(f"note: {exercise}: no variant for {student} lies apart from every earlier student's "
                  "(the class is larger than the answer's precision allows); two students share an answer")
        else:
            print(f"{student}'s variant of {exercise} would have matched {earlier}'s: given another seed "
                  f"(kept in {overrides_path(args.key)})")
    overrides = read_overrides(args.key)
    print(f"handed out {len(folders)} folder(s) in {args.out}: one per student, each with every student notebook "
          f"and that student's seeds for {count} variant exercise(s)"
          + (f"; {len(overrides)} re-roll(s) from {overrides_path(args.key)}" if overrides else "") + ".")


def _cmd_reroll(args):
    key = read_key(args.key)
    if args.assignment:
        _assignment(args.assignment)
    if args.exercise not in _variants.registered():
        raise UsageError(f"{args.exercise!r} has no variants; those that do: "
                         f"{', '.join(sorted(_variants.registered()))}.")
    path = overrides_path(args.key)
    rows = _read_override_rows(path)
    earlier = [r for r in rows if r["student"] == args.student and r["exercise"] == args.exercise
               and r.get("reroll", "").isdigit()]
    count = max([int(r["reroll"]) for r in earlier], default=0) + 1
    seed = _variants.seed_for(key, args.student, f"{args.exercise}#reroll{count}")
    rows = [r for r in rows if not (r["student"] == args.student and r["exercise"] == args.exercise)]
    rows.append({"student": args.student, "exercise": args.exercise, "seed": str(seed),
                 "reason": args.reason or "", "reroll": str(count)})
    _write_override_rows(path, rows)
    print(f"{args.student}'s variant of {args.exercise} is now seed {seed} (in {path}). Hand out again "
          f"(`make handout`) and give {args.student} the new notebook; the grader reads the same file.")


def _cmd_show(args):
    key = read_key(args.key)
    only = _assignment(args.assignment).variants if args.assignment else None
    if only == []:
        print(f"{args.assignment} has no variant exercise.")
        return
    table = seeds(key, read_roster(args.roster), read_overrides(args.key), exercises=only)
    specs = _variants.registered()
    for student, mine in table.items():
        print(f"{student}:")
        for exercise, seed in mine.items():
            print(f"  {exercise} (seed {seed}): {specs[exercise].describe(specs[exercise].params(seed))}")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("key", help="write a new course key")
    p.add_argument("key", type=Path, help="file to create (it must not exist)")
    p.set_defaults(run=_cmd_key)
    p = sub.add_parser("handout", help="one folder of notebooks per student, with that student's seeds")
    p.add_argument("--roster", type=Path, required=True, help="CSV file with a `student` column")
    p.add_argument("--key", type=Path, required=True, help="the course key (make course-key)")
    p.add_argument("--out", type=Path, default=Path("handout"), help="output folder (default: handout)")
    p.add_argument("--assignment", type=Path, help="hand out an instructor's own homework, path/to/hw1.md "
                   "(built first: make assignment SRC=...), not the book's student notebooks")
    p.set_defaults(run=_cmd_handout)
    p = sub.add_parser("reroll", help="give one student a new seed for one exercise")
    p.add_argument("--key", type=Path, required=True)
    p.add_argument("--student", required=True)
    p.add_argument("--exercise", required=True, help="an exercise label, e.g. ex-elbo-gap")
    p.add_argument("--reason", help="why (kept in the overrides file)")
    p.add_argument("--assignment", type=Path, help="an instructor's own homework, path/to/hw1.md (issue 39)")
    p.set_defaults(run=_cmd_reroll)
    p = sub.add_parser("show", help="print every student's numbers (for the instructor)")
    p.add_argument("--roster", type=Path, required=True)
    p.add_argument("--key", type=Path, required=True)
    p.add_argument("--assignment", type=Path, help="an instructor's own homework, path/to/hw1.md (issue 39)")
    p.set_defaults(run=_cmd_show)
    args = parser.parse_args(argv)
    try:
        args.run(args)
    except UsageError as exc:
        print(f"variants: {exc}", file=sys.stderr)
        return 2
    return 0

