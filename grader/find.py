"""Find: the student editions, which edition a submission is, the seeds its variant cells hold, and the
steps of its run."""

from __future__ import annotations

import ast
import hashlib
import os
import stat
from pathlib import Path
from typing import NamedTuple

from grader.common import EDITIONS, bounded, escape, fence, printable_name


MAX_ID = 64  # bytes of a student id: OUT/results/<id>.json.tmp and the feedback files stay far below NAME_MAX


class Submission(NamedTuple):
    """One ``.ipynb`` of the submissions folder, named as the grader names it."""

    path: Path
    student: str  # the student id (student_id): grades.csv's `student`, OUT/feedback/<student>.md
    file: str  # the whole file name, printable (grades.csv's `file`): escapes show bytes that are not UTF-8
    regular: bool  # a regular file; a link, a folder or a device is never opened


def student_id(stem):
    """The id of the student whose file is ``stem``.ipynb (str, as os.fsdecode gives it): bounded, printable.

    A name that is printable and at most MAX_ID bytes is its own id (``s07``, ``s07\\xff`` for a byte
    that is not UTF-8).  A longer one, or an empty one, becomes its first 24 printable characters and
    a digest of the whole name (``\\xe9\\xe9...-3f1c...``): the file names the grader derives from it
    always fit, two names never share an id, and the whole name is kept as data (grades.csv's `file`).
    """
    printable = printable_name(stem)
    if printable and len(printable.encode()) <= MAX_ID:
        return printable
    digest = hashlib.sha256(os.fsencode(stem)).hexdigest()[:16]
    return f"{printable[:24]}-{digest}" if printable else f"unnamed-{digest}"


def find_submissions(folder):
    """Every entry of ``folder`` whose name ends in .ipynb, in name order (by bytes), links included."""
    found = []
    for entry in sorted(os.scandir(folder), key=lambda e: os.fsencode(e.name)):
        if not entry.name.endswith(".ipynb"):
            continue
        try:
            regular = stat.S_ISREG(entry.stat(follow_symlinks=False).st_mode)
        except OSError:  # gone, or unreadable: its row says it is not a notebook file
            regular = False
        found.append(Submission(Path(entry.path), student_id(Path(entry.name).stem), printable_name(entry.name),
                                regular))
    return found


def notebook_seeds(nb):
    """{exercise: seed} read (never run) from the variant calls in a notebook's code cells.

    The value is None when the notebook's cells disagree or the seed is not a
    plain whole number (a changed variant cell).
    """
    found = {}
    for cell in nb.get("cells", []):
        if not isinstance(cell, dict) or cell.get("cell_type") != "code":
            continue
        source = cell.get("source")
        source = "".join(source) if isinstance(source, list) else source
        if not isinstance(source, str) or "variant" not in source or len(source) > 100_000:
            continue
        try:
            tree = ast.parse(source)
        except (SyntaxError, ValueError):
            continue
        for node in ast.walk(tree):
            if not (isinstance(node, ast.Call) and ast.unparse(node.func) in ("lib.checks.variant", "variant")):
                continue
            if not node.args or not isinstance(node.args[0], ast.Constant) or not isinstance(node.args[0].value, str):
                continue
            label = node.args[0].value
            given = [k.value for k in node.keywords if k.arg == "seed"] or node.args[1:2]
            value = given[0].value if given and isinstance(given[0], ast.Constant) else (0 if not given else None)
            value = value if isinstance(value, int) and not isinstance(value, bool) else None
            if label in found and found[label] != value:
                value = None
            found[label] = value
    return found


_EDITIONS_CACHE = {}


def load_editions(folder=EDITIONS):
    """page -> {"checks": [check cell dicts in order], "exercises": [(label, points)], "nb": notebook}."""
    key = str(Path(folder).resolve())
    if key not in _EDITIONS_CACHE:
        _EDITIONS_CACHE[key] = _load_editions(folder)
    return _EDITIONS_CACHE[key]


def _load_editions(folder):
    import nbformat

    editions = {}
    for path in sorted(Path(folder).glob("*.ipynb")):
        nb = nbformat.read(path, as_version=4)
        page = (nb.metadata.get("genmodels") or {}).get("page", path.stem)
        editions[page] = edition_of(nb, path)
    return editions


def edition_of(nb, path, module="lib.checks"):
    """One student edition as the grader uses it; ``module``: what its check cells call (an assignment's
    call ``checks.<name>``, grader/assignment.py)."""
    checks, exercises, previous_code = [], [], None
    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        if "check" in cell.metadata.get("tags", []):
            label = cell.metadata.get("exercise") or f"check-{cell.id}"
            points = cell.metadata.get("points", 1)
            checks.append({"id": cell.id, "source": cell.source, "exercise": label, "points": points,
                           "after": previous_code, "tag": cell.metadata.get("exercise"),
                           "call": parse_check(cell.source, cell.id, module)})
            exercises.append((label, points))
        previous_code = cell.id
    return {"checks": checks, "exercises": exercises, "nb": nb, "path": path}


def title_of(edition):
    """The homework's title as a student knows it: an assignment's, or the page's first heading."""
    if edition.get("assignment") is not None:
        return edition["assignment"].title
    for cell in edition["nb"].cells:
        if cell.cell_type == "markdown":
            for line in cell.source.splitlines():
                if line.startswith("# "):
                    return line[2:].strip()
    return None


def parse_check(source, cell_id="?", module="lib.checks"):
    """``lib.checks.name(a, b, k=c)`` -> ("name", ["a", "b"], {"k": "c"}): parsed, never run."""
    tree = ast.parse(source)
    call = tree.body[0].value if len(tree.body) == 1 and isinstance(tree.body[0], ast.Expr) else None
    if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute)
            and ast.unparse(call.func.value) == module):
        raise ValueError(f"check cell {cell_id} is not a single call {module}.<name>(...)")
    if not all(isinstance(a, ast.Name) for a in call.args) or not all(
            k.arg and isinstance(k.value, ast.Name) for k in call.keywords):
        raise ValueError(f"check cell {cell_id}: the check's arguments must be names of the student's answers")
    return call.func.attr, [a.id for a in call.args], {k.arg: k.value.id for k in call.keywords}


def identify(nb, editions, expected=None):
    """(page, problem): which edition the submission is, or why it cannot be graded."""
    # A check cell is recognised by its id and the exercise it checks: ids alone
    # ("cell-036") recur on every page of a chapter.
    cells = {(c.get("id") if isinstance(c.get("id"), str) else None,
              ex if isinstance(ex := (c.get("metadata") or {}).get("exercise"), str) else None) for c in nb.cells}
    meta = nb.metadata.get("genmodels")
    claimed = meta.get("page") if isinstance(meta, dict) else None
    claimed = claimed if isinstance(claimed, str) else None

    def overlap(page):
        checks = editions[page]["checks"]
        return sum((c["id"], c["tag"]) in cells for c in checks) / len(checks) if checks else 0.0

    if isinstance(meta, dict) and meta.get("assignment") is True and claimed not in editions:
        return None, (f"this notebook is the homework {fence(claimed or '?', 80)}, an instructor's own assignment, "
                      "which this run does not grade (the instructor grades it with ASSIGNMENT=).")
    graded = [p for p in editions if editions[p]["checks"]]
    best = max(graded, key=overlap) if graded else None
    if claimed in editions and (not editions[claimed]["checks"] or overlap(claimed) >= 0.5):
        page = claimed
    elif claimed is None and best is not None and overlap(best) >= 0.5:
        page = best
    else:
        looks = f" (its cells are those of {best})" if best and overlap(best) >= 0.5 else ""
        shown = fence(claimed, 80) if claimed else "no page"
        return (claimed if claimed in editions else None), (
            f"this notebook says it is the student edition of {shown}, but its "
            f"cells do not match that notebook{looks}. Start again from the student notebook "
            "of the assignment and keep its cells.")
    if expected and page != expected:
        return page, (f"this is the notebook of {page}, but the assignment is {expected}: "
                      "hand in the notebook of the assignment.")
    return page, None


def plan(nb, edition):
    """The steps of a run: the submission's code cells, each pristine check after the cell it follows.

    Returns (steps, notes): a step is ("code", id, source, tags) or ("check", check).  The
    submission's own check cells (by id or tag) are dropped; a cell id of the grader's own
    namespace ("grader-...") is renamed.
    """
    pristine = {c["id"] for c in edition["checks"]}
    steps, notes, renamed = [], [], []
    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        cid = cell.get("id") if isinstance(cell.get("id"), str) else ""
        tags = (cell.get("metadata") or {}).get("tags", [])
        tags = [bounded(t, 40) for t in (tags if isinstance(tags, list) else [])[:10] if isinstance(t, str)]
        if cid in pristine or "check" in tags:
            continue
        if edition.get("assignment") and (cid == "assignment-checks" or "assignment-checks" in tags):
            continue  # an assignment's public checks: judged in the grader, never run in the kernel
        if cid.startswith("grader-"):
            renamed.append(cid)
            cid = "student-" + cid
        source = cell.source if isinstance(cell.source, str) else ""
        steps.append(("code", bounded(cid, 80), source, tags))
    if renamed:
        notes.append(f"{len(renamed)} cell id(s) of yours used the grader's own names (grader-...): they were "
                     "renamed and ran as usual.")
    for check in edition["checks"]:
        position = next((i + 1 for i, s in enumerate(steps) if s[0] == "code" and s[1] == check["after"]),
                        len(steps))
        steps.insert(position, ("check", check))
    return steps, notes


def fingerprint(folder):
    """name -> sha256 of every file in the submissions folder (what the grader checks is unchanged)."""
    out = {}
    for path in sorted(Path(folder).iterdir()):
        if path.is_file() and not path.is_symlink():
            digest = hashlib.sha256()
            with open(path, "rb") as fh:
                for block in iter(lambda: fh.read(2**20), b""):
                    digest.update(block)
            out[path.name] = digest.hexdigest()
        else:
            out[path.name] = "(not a regular file)"
    return out




def claim_of(path, max_size):
    """(page, is_assignment) that a notebook's metadata names (``genmodels.page``, ``genmodels.assignment``),
    or (None, False): read as data, never through a link, no larger than the notebook limit."""
    import json

    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
        with os.fdopen(fd, "rb") as fh:
            if not stat.S_ISREG(os.fstat(fh.fileno()).st_mode):
                return None, False
            raw = fh.read(max_size + 1)
        if len(raw) > max_size:
            return None, False
        meta = json.loads(raw.decode("utf-8")).get("metadata", {}).get("genmodels")
    except Exception:  # noqa: BLE001 - an unreadable notebook claims nothing (the grader reports it)
        return None, False
    if not isinstance(meta, dict) or not isinstance(meta.get("page"), str):
        return None, False
    return meta["page"], meta.get("assignment") is True


def wrong_kind(submissions, editions, expected, grading_assignment, max_size):
    """Why this run would grade the whole folder 0 (a sentence naming the fix), or None.

    A notebook's metadata names what it is: a page of the book, or an instructor's own homework
    (``"assignment": true``). When no notebook of the folder is what this run grades and some name
    something else (an assignment graded without ``--assignment``, a page of the book graded with one, or
    another page than ``--chapter``), grading would give everyone 0: the run is refused before anything is
    graded. A folder that mixes them is graded, each foreign notebook with a note (:func:`identify`).
    """
    ours, foreign = [], []
    for submission in submissions:
        if not submission.regular:
            continue
        page, is_assignment = claim_of(submission.path, max_size)
        if page is None:
            continue
        if page in editions and is_assignment == grading_assignment and (expected is None or page == expected):
            ours.append(submission.student)
        else:
            foreign.append((submission.student, page, is_assignment))
    if ours or not foreign:
        return None
    student, page, is_assignment = foreign[0]
    more = f" (and {len(foreign) - 1} other notebook(s))" if len(foreign) > 1 else ""
    first = f"{escape(student, 100)}.ipynb{more}"
    shown = escape(page, 100)
    if is_assignment and not grading_assignment:
        return (f"{first} is the notebook of the homework {shown}, an instructor's own assignment (its metadata "
                f"says so): grade it with ASSIGNMENT=path/to/{shown}.md (python -m grader grade --assignment "
                f"path/to/{shown}.md). Nothing was graded.")
    if grading_assignment and not is_assignment:
        return (f"{first} is the notebook of the book's page {shown}, not of the assignment {escape(expected, 100)}: "
                "grade the book's pages without ASSIGNMENT= (--assignment). Nothing was graded.")
    if is_assignment:
        return (f"{first} is the notebook of the homework {shown}, not of {escape(expected, 100)}: grade it with "
                f"ASSIGNMENT=path/to/{shown}.md. Nothing was graded.")
    if page not in editions:
        return (f"{first} says it is the notebook of {shown}, which is no page of the book's student editions: "
                "hand out and collect the notebook of the assignment. Nothing was graded.")
    return (f"{first} is the notebook of {shown}, but this run grades {escape(expected, 100)}: grade it with "
            f"--chapter {shown}, or without --chapter. Nothing was graded.")
