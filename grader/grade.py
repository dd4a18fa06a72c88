"""Grade a folder of homework notebooks: each runs sealed off, and is judged where its code never ran.

    python -m grader grade SUBMISSIONS [--out OUT] [-j 2] [--chapter PAGE] [--force] [--key KEY [--roster CSV]]
    make grade SUBMISSIONS=dir [KEY=course.key] [ROSTER=roster.csv] [OUT=dir]

Every ``.ipynb`` in SUBMISSIONS is one student's notebook (the file name
without ``.ipynb`` is the student id); a folder may mix chapters.  For each,
the grader

1. refuses files over ``--max-notebook-size`` before reading them, then finds
   which page of the book the notebook is the student edition of (its
   ``genmodels.page`` metadata, confirmed by its cells' ids);
2. runs the submission's code cells, top to bottom, in a fresh IPython kernel
   inside a sandbox (``grader/sandbox.py``: bubblewrap, cgroups and seccomp; no network,
   no view of the submissions, the output, the book's sources or the other
   kernels; memory, processes, CPU and a private ``/tmp`` bounded; every
   process killed at the end), with a time limit per cell and per notebook;
3. at each check cell of the student edition (``student/<page>.ipynb``, the
   submission's own copy is ignored), calls the check of ``lib.checks`` *in
   the grading process*, with its own NumPy: the student's answer is a proxy
   that forwards each call to the kernel over the kernel's messaging and gets
   back plain data (numbers, strings, lists, dicts, NumPy arrays as ``.npy``),
   or the name and message of the exception the answer raised
   (``grader/wire.py``, ``grader/agent.py``).  Nothing the kernel
   prints is read; points come from the student edition only.

With ``--key`` (``make grade SUBMISSIONS=dir KEY=course.key``) the exercises
that have variants are judged against the student's own numbers: the grader
recomputes the student's seeds from the key and the student id (and the
re-rolls beside the key), never reads them from the notebook, and gives 0 to a
variant exercise whose variant cell holds another seed, naming the student it
was handed out to (``grader/variants.py``; ``OUT/variants.csv`` lists every
such pair).  Without ``--key`` every variant exercise is judged at the book's
variant 0.

It writes ``OUT/grades.csv`` (one row per submission: student, chapter, one
column per exercise label, total, max), ``OUT/feedback/<student>.md`` and
``.html`` (the page links each exercise to the web book), and
``OUT/results/<student>.json`` (which make a re-run skip that student unless
``--force``), prints a progress bar, the pass rate of every exercise and
whether the submissions folder is unchanged (hashes before and after).
With ``--roster`` and ``--lms canvas|moodle|gradescope`` it also writes
``OUT/<lms>.csv``, one row per roster student; ``--student s01[,s02]``
grades only those again and rewrites the tables from all results, every
LMS file already in OUT included (the guide/grade_book.md, "The grade book").  A folder
from ``make collect`` (``collected.csv``) also gets ``OUT/canvas-feedback.zip``
or ``OUT/moodle-feedback.zip``, the HTML pages named for the LMS's bulk upload.
A folder none of whose notebooks is what the run grades (an assignment's
without ``--assignment``) is refused before anything is graded.  What
the sandbox is and is not: the guide/grading.md, "Teaching with this book".
"""

from __future__ import annotations

import argparse
import concurrent.futures
import json
import os
import queue
import sys
import time
from pathlib import Path

from grader import collect, feedback_html, lms, sandbox, upload
from grader.common import DEFAULTS, EDITIONS, ROOT, escape, parse_size
from grader.find import find_submissions, fingerprint, load_editions, title_of, wrong_kind
from grader.report import (_progress, feedback, handout_pairs, summary, validated, write_grades, write_similarity,
                           write_variants)
from grader.run import _grade_in_subprocess, _pool_context

def build_parser():
    """The command line of ``python -m grader grade`` (``make grade``)."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("submissions", type=Path, help="folder of .ipynb files, one per student")
    parser.add_argument("--out", type=Path, default=Path("grades"), help="output folder (default: grades)")
    parser.add_argument("-j", "--jobs", type=int, default=os.cpu_count() or 1,
                        help="submissions graded in parallel (default: the number of cores)")
    parser.add_argument("--chapter", help="the page every submission must be, e.g. 04_em_gaussian_mixtures")
    parser.add_argument("--force", action="store_true", help="grade again submissions already graded")
    parser.add_argument("--cell-timeout", type=int, default=DEFAULTS["cell_timeout"],
                        help="seconds per cell, and per check (default 60)")
    parser.add_argument("--notebook-timeout", type=int, default=DEFAULTS["notebook_timeout"],
                        help="seconds per notebook (default 600)")
    parser.add_argument("--memory", type=parse_size, default=parse_size(DEFAULTS["memory"]),
                        help="memory of a student's kernel and of all its processes together (default 2GiB)")
    parser.add_argument("--file-size", type=parse_size, default=parse_size(DEFAULTS["file_size"]),
                        help="largest file a student's kernel may write (default 100MiB)")
    parser.add_argument("--tmp-size", type=parse_size, default=parse_size(DEFAULTS["tmp_size"]),
                        help="size of the kernel's private /tmp, its only writable place (default 512MiB)")
    parser.add_argument("--processes", type=int, default=DEFAULTS["processes"],
                        help="processes and threads of one kernel, all together (default 64)")
    parser.add_argument("--max-notebook-size", type=parse_size, default=parse_size(DEFAULTS["max_notebook_size"]),
                        help="larger notebooks are refused unread, grade 0 (default 20MiB)")
    parser.add_argument("--grader-memory", type=parse_size, default=parse_size(DEFAULTS["grader_memory"]),
                        help="address space of the grading process of one notebook (default 6GiB)")
    parser.add_argument("--unsafe-no-sandbox", action="store_true",
                        help="run the kernels without bubblewrap and cgroups (see guide/maintainer/grader.md: what this loses)")
    parser.add_argument("--key", type=Path,
                        help="the course key (make course-key): judge each student's own variants")
    parser.add_argument("--roster", type=Path,
                        help="the roster of the handout (CSV, `student` column): names whose handout a notebook "
                             "is, also for students who handed in nothing (default: the submissions' ids)")
    # The grade book (issue 40; guide/grade_book.md, "The grade book"): LMS import files, one student re-graded.
    parser.add_argument("--lms", type=_lms_names, default=[],
                        help=f"also write OUT/<lms>.csv, the import file of the LMS ({', '.join(lms.FORMATS)}; "
                             "several with commas), one row per roster student: needs --roster")
    parser.add_argument("--lms-columns", choices=lms.COLUMNS, default="assignment",
                        help="one column per assignment (the notebook's total, default) or per exercise")
    parser.add_argument("--lms-assignment", help="the LMS's name of the assignment column, e.g. 'Homework 4 "
                                                 "(1234)' for Canvas's existing assignment 1234 (default: the page)")
    parser.add_argument("--student", type=lambda text: [s.strip() for s in text.split(",") if s.strip()],
                        help="grade again only these students' submissions (comma-separated ids), keep every "
                             "other result, and rewrite grades.csv, the LMS files and the summary from all results")
    parser.add_argument("--assignment", type=Path,
                        help="an instructor's own homework, path/to/hw1.md (with checks.py and hidden_checks.py "
                             "beside it): grade its notebooks instead of the book's pages")
    parser.add_argument("--editions", type=Path, default=EDITIONS, help=argparse.SUPPRESS)
    return parser


def _lms_names(text):
    names = [n.strip().lower() for n in text.split(",") if n.strip()]
    unknown = [n for n in names if n not in lms.FORMATS]
    if unknown or not names:
        raise argparse.ArgumentTypeError(f"unknown LMS {', '.join(map(repr, unknown)) or repr(text)}: "
                                         f"one of {', '.join(lms.FORMATS)} (several with commas)")
    return list(dict.fromkeys(names))


def limits_for(args, hidden):
    """The limits of every kernel and grading process, from the command line; ``hidden``: paths no kernel sees."""
    return {"cell_timeout": args.cell_timeout, "notebook_timeout": args.notebook_timeout,
            "memory": args.memory, "tree_memory": args.memory + 256 * 2**20, "file_size": args.file_size,
            "cpu_time": args.notebook_timeout, "processes": args.processes, "tmp_size": args.tmp_size,
            "max_notebook_size": args.max_notebook_size, "grader_memory": args.grader_memory,
            "hidden": [str(h) for h in hidden]}


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    parser = build_parser()
    args = parser.parse_args(argv)
    args.submissions, args.out = args.submissions.resolve(), args.out.resolve()
    args.editions = args.editions.resolve()
    if not args.submissions.is_dir():
        parser.error(f"{args.submissions} is not a folder")
    if args.out == args.submissions or args.submissions in args.out.parents:
        parser.error("the output folder must not be inside the submissions folder")
    from grader import variants as handouts

    homework = None
    if args.assignment:  # issue 39: loaded (and its variants registered) before the key's seeds are computed
        from grader import assignment

        try:
            homework = assignment.editions(args.assignment)
        except assignment.AssignmentError as exc:
            parser.error(str(exc))
        args.assignment = args.assignment.resolve()
        args.chapter = next(iter(homework))
    try:
        key = handouts.read_key(args.key) if args.key else None
        roster_rows = handouts.read_roster_rows(args.roster) if args.roster else []
        roster = [row["student"] for row in roster_rows]
        overrides = handouts.read_overrides(args.key) if args.key else {}
    except handouts.UsageError as exc:
        parser.error(str(exc))
    problem = _grade_book_problem(args, roster_rows)  # bad input is refused before anything is graded or written
    if problem:
        parser.error(problem)
    editions = homework or load_editions(args.editions)
    if args.chapter and args.chapter not in editions:
        parser.error(f"--chapter {args.chapter}: no student edition of that name in {args.editions}")
    problem = wrong_kind(find_submissions(args.submissions), editions, args.chapter, homework is not None,
                         args.max_notebook_size)  # no silent zeros: a whole class of the wrong kind is refused
    if problem:
        parser.error(problem)
    if args.key:
        args.key = args.key.resolve()
    secrets = [args.key, handouts.overrides_path(args.key)] if args.key else []
    # only root may read the key, its overrides and the roster (the class's names), whatever else happens
    for secret in [*secrets, *([args.roster.resolve()] if args.roster else [])]:
        tightened = _owner_only(secret)
        if tightened:
            print(f"grade: {escape(str(secret))} was readable by other users of this machine: made readable "
                  "by its owner only (chmod go=)", file=sys.stderr)
    # hidden by path from every kernel, should they lie inside a folder the sandbox binds
    limits = limits_for(args, [args.submissions, args.out, ROOT / "chapters", *secrets,
                               *([args.roster.resolve()] if args.roster else []),
                               *([args.assignment.parent] if args.assignment else [])])
    if args.assignment:  # each grading process loads it again (grader/run.py); no kernel sees its folder
        limits["assignment"] = str(args.assignment)
    problem = sandbox.probe(ROOT, limits)
    if problem and not args.unsafe_no_sandbox:
        print(f"grade: cannot sandbox the students' kernels on this machine: {problem}.\n"
              "Refusing to run student code unconfined. --unsafe-no-sandbox runs it anyway, without the "
              "sandbox (read the guide/grading.md, for what that loses).", file=sys.stderr)
        return 2
    if args.unsafe_no_sandbox:
        print("WARNING: --unsafe-no-sandbox: the students' code runs as this user, with its files, network "
              "and processes, without memory or process limits for the whole tree.", file=sys.stderr)
    before = fingerprint(args.submissions)
    submissions = find_submissions(args.submissions)
    results_dir, feedback_dir = args.out / "results", args.out / "feedback"
    args.out.mkdir(parents=True, exist_ok=True)
    results_dir.mkdir(parents=True, exist_ok=True)
    feedback_dir.mkdir(parents=True, exist_ok=True)
    for folder in (args.out, results_dir, feedback_dir):  # the grades are the instructor's: no other user
        os.chmod(folder, 0o700)                            # (a sandbox's) reads them, even moved elsewhere
    if args.student:  # only these, graded again; every other result stays as it is
        todo = [s for s in submissions if s.student in args.student]
    else:
        todo = [s for s in submissions if args.force or not (results_dir / f"{s.student}.json").exists()]
    variants = {"mine": {}, "owners": {}, "keyed": key is not None}
    if key is not None:
        everyone = list(dict.fromkeys([*roster, *(s.student for s in submissions)]))
        variants["mine"] = handouts.seeds(key, everyone, overrides)
        from lib.checks._variants import salt_for

        variants["salt"] = {s: salt_for(key, s) for s in everyone}  # the checks' inputs (issue 49)
        for student, mine in variants["mine"].items():
            for label, seed in mine.items():
                variants["owners"].setdefault(label, {})[seed] = student
    skipped = len(submissions) - len(todo)
    if args.student:
        print(f"grading again {', '.join(escape(s.student, 200) for s in todo)}; {skipped} other result(s) kept "
              "as they are")
    elif skipped:
        print(f"{skipped} submission(s) already graded: skipped (use --force to grade them again)")
    names = {row["student"]: row["name"] for row in roster_rows if row.get("name")}
    book_url = None if args.assignment else _book_url()  # an assignment is not a page of the web book
    jobs = max(1, args.jobs)
    if not args.unsafe_no_sandbox and jobs > sandbox.slots():  # one host user per kernel graded at once
        print(f"grade: -j {jobs}: this machine has {sandbox.slots()} sandbox user(s) "
              f"({sandbox.SANDBOX_USER}, {sandbox.SANDBOX_USER}1, ...; tools/install_sandbox.sh makes "
              f"{sandbox.MAX_SLOTS}): grading {sandbox.slots()} at a time", file=sys.stderr)
        jobs = sandbox.slots()
    free = queue.Queue()
    for slot in range(jobs):
        free.put(slot)
    start, done = time.monotonic(), 0
    _progress(0, len(todo), start)
    results = {}
    ctx = _pool_context()
    with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
        futures = {pool.submit(_in_slot, free, s, args, limits, results_dir, editions, ctx, variants): s
                   for s in todo}
        for future in concurrent.futures.as_completed(futures):
            submission = futures[future]
            try:
                result = future.result()
            except Exception as exc:  # noqa: BLE001 - one student's failure never stops the class
                result = validated(None, submission.student, editions, args.chapter)
                result["notes"].append(f"The grader failed on this notebook ({type(exc).__name__}). Grade 0.")
            result["file"] = submission.file
            _label(result, names, editions)
            results[submission.student] = result
            _write_feedback(result, feedback_dir)
            _write_html(result, feedback_dir, book_url)
            done += 1
            _progress(done, len(todo), start)
    sys.stderr.write("\n")
    for s in submissions:
        if s.student not in results:  # graded by an earlier run
            try:
                raw = json.loads((results_dir / f"{s.student}.json").read_text())
            except (OSError, ValueError):
                raw = None
            results[s.student] = validated(raw, s.student, editions, args.chapter)
            results[s.student]["file"] = s.file
            _label(results[s.student], names, editions)
            if not (feedback_dir / f"{s.student}.md").exists():
                _write_feedback(results[s.student], feedback_dir)
            if not (feedback_dir / f"{s.student}.html").exists():
                _write_html(results[s.student], feedback_dir, book_url)
    ordered = [results[s.student] for s in submissions]
    write_grades(ordered, editions, args.out)
    write_variants(ordered, args.out)
    print(f"{len(ordered)} submission(s) in {args.out / 'grades.csv'}; feedback in {feedback_dir}"
          f" ({time.monotonic() - start:.0f} s)")
    print(summary(ordered))
    if roster_rows:
        for line in lms.summary_lines(ordered, roster_rows):
            print(line)
    extra = [c for c in (roster_rows[0] if roster_rows else {}) if c not in handouts.ROSTER_COLUMNS]
    for fmt in args.lms:
        try:
            path = lms.write_lms(fmt, ordered, roster_rows, editions, args.out, args.lms_columns,
                                 args.lms_assignment, extra_columns=extra)
        except Exception as exc:  # noqa: BLE001 - one file of the grade book, never the class's grades
            print(f"grade: {fmt}: the LMS file could not be written ({type(exc).__name__}: "
                  f"{escape(str(exc), 300)}); grades.csv has every row", file=sys.stderr)
            continue
        print(f"{fmt}: {path} ({len(roster_rows)} roster student(s))")
    for line in lms.refresh(ordered, roster_rows, editions, args.out, args.lms, extra_columns=extra, graded=bool(todo)):
        print(line)
    for line in upload.write_zips(ordered, collect.read_manifest(args.submissions), args.out, book_url):
        print(line)
    pairs = handout_pairs(ordered)
    if pairs:
        print("notebooks handed out to another student (their variant exercises got 0; OUT/variants.csv):")
        print("\n".join(pairs))
    elif key is not None:
        print("variants: every notebook holds its own student's seeds (OUT/variants.csv)")
    try:
        print("\n".join(write_similarity(submissions, results, editions, args.out, limits["max_notebook_size"])))
    except Exception as exc:  # noqa: BLE001 - the comparison of answers, never the class's grades
        print(f"grade: the similarity report could not be written ({type(exc).__name__}: "
              f"{escape(str(exc), 300)}); grades.csv has every row", file=sys.stderr)
    after = fingerprint(args.submissions)
    if after == before:
        print(f"submissions folder unchanged: {len(before)} file(s), sha256 checked before and after")
        return 0
    changed = sorted(n for n in set(before) | set(after) if before.get(n) != after.get(n))
    print(f"WARNING: the submissions folder changed while grading: {', '.join(escape(n, 200) for n in changed[:20])}",
          file=sys.stderr)
    return 3


def _in_slot(free, submission, args, limits, *rest):
    """Grade one submission in a free kernel slot (its own host user): no two kernels at once share one."""
    slot = free.get()
    try:
        return _grade_in_subprocess(submission, args, dict(limits, slot=slot), *rest)
    finally:
        free.put(slot)


def _grade_book_problem(args, roster_rows):
    """Why the grade book's options cannot work (a sentence), or None: checked before anything is graded."""
    if args.lms and not roster_rows:
        return "--lms needs --roster (ROSTER=roster.csv): the LMS files have one row per roster student"
    problems = lms.check_roster(roster_rows, args.lms)
    if problems:
        return " ".join(problems)
    if args.student is not None:
        if not args.student:
            return "--student names no student (STUDENT=s01 or STUDENT=s01,s02)"
        present = {s.student for s in find_submissions(args.submissions)}
        absent = [s for s in args.student if s not in present]
        if absent:
            return (f"--student {', '.join(escape(a, 100) for a in absent)}: no such submission in "
                    f"{args.submissions} (a student is the file name without .ipynb)")
        if args.force:
            return "--student grades only the students named; --force would grade everyone again: choose one"
    return None


def _label(result, names, editions):
    """What the feedback calls the student and the homework: the roster's name, the edition's title."""
    if result["student"] in names:
        result["name"] = names[result["student"]]
    if result["page"] in editions:
        result["title"] = title_of(editions[result["page"]])


def _write_feedback(result, feedback_dir):
    """OUT/feedback/<student>.md; a failure costs that file only, said on the terminal and in the row's notes."""
    try:
        (feedback_dir / f"{result['student']}.md").write_text(feedback(result), encoding="utf-8")
    except Exception as exc:  # noqa: BLE001 - one student's file, never the class
        result["notes"].append(f"The grader could not write this feedback file ({type(exc).__name__}).")
        print(f"grade: no Markdown feedback for {escape(result['student'], 200)} ({type(exc).__name__}: "
              f"{escape(str(exc), 200)}); its row is in grades.csv", file=sys.stderr)


def _write_html(result, feedback_dir, book_url):
    """The HTML feedback of one result; a failure costs that page only (the Markdown feedback has it all)."""
    try:
        feedback_html.write(result, feedback_dir, book_url)
    except Exception as exc:  # noqa: BLE001 - one student's page, never the class
        print(f"grade: no HTML feedback for {escape(result['student'], 200)} ({type(exc).__name__}: "
              f"{escape(str(exc), 200)}; the Markdown feedback has it all)", file=sys.stderr)


def _book_url():
    """The web book's published address (tools/book.py reads it from _config.yml)."""
    import book

    return book.pages_url()


def _owner_only(path):
    """Make ``path`` readable by its owner only when others or its group may read it; whether it changed."""
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        return False
    if mode & 0o077:
        os.chmod(path, mode & 0o700)
        return True
    return False
