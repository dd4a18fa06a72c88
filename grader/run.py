"""Run: one submission from its file to its result, in a process of its own, its kernel in the sandbox."""

from __future__ import annotations

import builtins
import contextlib
import json
import os
import secrets
import shutil
import signal
import stat
import tempfile
import warnings
from pathlib import Path

from grader import sandbox
from grader.common import ROOT, bounded, fence
from grader.find import identify, load_editions, notebook_seeds, plan
from grader.judge import authorship, run_check, variant_decisions, variant_message, with_authorship
from grader.source import read as read_code
from grader.kernel import AGENT_SOURCE, KernelLink, KernelRunner
from grader.report import validated

def _skeleton(student, page, editions, notes=()):
    edition = editions.get(page) if page else None
    exercises = [{"exercise": c["exercise"], "status": "not run", "message": "not graded: see the note above."}
                 for c in edition["checks"]] if edition else []
    return {"student": student, "page": page if edition else None, "exercises": exercises,
            "notes": list(notes), "errors": []}



def run_one(submission, page_expected, editions_dir, limits, target, unsafe=False, variants=None, student=None):
    """Grade one submission in this process (a subprocess of the grader); writes and returns its result."""
    import nbformat

    from lib.checks import _core as _checks_core
    from lib.checks import _sandbox as _checks_sandbox
    from lib.checks import _variants

    variants = variants or {"mine": {}, "owners": {}, "keyed": False}

    editions = load_editions(editions_dir)
    if limits.get("assignment"):  # an instructor's own homework (grade --assignment)
        from grader import assignment

        editions = assignment.editions(limits["assignment"])
    student = student or Path(submission).stem
    try:  # never through a link: the file as it is in the folder, or nothing
        fd = os.open(submission, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
    except OSError as exc:
        result = _skeleton(student, page_expected, editions, [_not_regular(exc.strerror)])
        _save(result, target)
        return result
    with os.fdopen(fd, "rb") as fh:
        info = os.fstat(fh.fileno())
        if not stat.S_ISREG(info.st_mode):
            result = _skeleton(student, page_expected, editions, [_not_regular("not a regular file")])
            _save(result, target)
            return result
        if info.st_size > limits["max_notebook_size"]:
            result = _skeleton(student, page_expected, editions, [_too_large(info.st_size, limits)])
            _save(result, target)
            return result
        raw = fh.read(limits["max_notebook_size"] + 1)
    try:
        nb = nbformat.reads(raw.decode("utf-8"), as_version=4)
        nbformat.validate(nb)
    except Exception as exc:  # noqa: BLE001 - any unreadable file is reported the same way
        result = _skeleton(student, page_expected, editions, [
            f"The file could not be read as a notebook ({type(exc).__name__}): hand in the .ipynb file that "
            "Jupyter or Colab saved. Grade 0."])
        _save(result, target)
        return result
    page, problem = identify(nb, editions, page_expected)
    result = _skeleton(student, page or page_expected, editions)
    if problem:
        result["notes"].append(problem + " Grade 0.")
        _save(result, target)
        return result
    edition = editions[page]
    judge_check, hidden = run_check, []  # hidden: the assignment's exercises whose hidden check is still to run
    if edition.get("assignment"):  # its public check here, its hidden check after the last cell (grader/assignment.py)
        from grader import assignment

        def judge_check(check, runner):
            return assignment.judge_public(check, runner, edition)
    steps, notes = plan(nb, edition)
    result["notes"] += notes
    code = None
    if not edition.get("assignment"):  # the book's exercises: what each answer reaches, read from the code
        try:
            code = read_code(nb, edition)
        except Exception as exc:  # noqa: BLE001 - a notebook the reader cannot take is not graded as own work
            code = exc
            result["notes"].append(f"The grader could not read this notebook's code ({bounded(type(exc).__name__, 80)}"
                                   "): its exercises are not graded as your own work. Grade 0; tell the instructor.")
    decided = variant_decisions(nb, edition, variants)
    result["variants"] = [[label, verdict, owner] for label, (_, verdict, owner) in decided.items()]
    others = sorted({owner for _, verdict, owner in decided.values() if verdict == "other"})
    if others:
        result["notes"].append(f"This notebook was handed out to {', '.join(fence(o, 100) for o in others)}: its "
                               "variant exercises are graded 0.")
    for ex in result["exercises"]:
        ex["message"] = "not run: the notebook stopped before this check (see the note)."
    _save(result, target)

    # The sandbox's lib.checks holds the variant cells' numbers and the tripwires, no check (issue 36;
    # lib/checks/_sandbox.py). Its folder is made (and removed) by the parent process, which outlives a
    # worker killed at the time limit; run alone, run_one makes and removes its own.
    own_folder = "checks_edition" not in limits
    checks_edition = Path(tempfile.mkdtemp(prefix="gm-checks-") if own_folder else limits["checks_edition"])
    os.chmod(checks_edition, 0o755)  # readable by the sandbox's user

    found = notebook_seeds(nb)  # the numbers of a seed in the notebook print as usual (0 points)
    _checks_sandbox.write_edition(checks_edition, {label: [0, seed, found.get(label, 0)]
                                                   for label, (seed, _, _) in decided.items()})
    limits = dict(limits, overlays=[(str(checks_edition), str(ROOT / "lib" / "checks"))])
    box_class = sandbox.Sandbox
    if limits.get("boundary") == "container":  # no bwrap where the grader runs (Gradescope): grader/container.py
        from grader.container import ContainerSandbox as box_class
    box = box_class(ROOT, limits, unsafe=unsafe, agent=AGENT_SOURCE)
    link = salting = None
    try:
        box.start()
        link = KernelLink(box.endpoints(), box.key)  # before any student code: the kernel's own sockets
        if not link.wait_ready(60, box.alive):
            result["notes"].append("The grader could not start a kernel for this notebook. Grade 0; the "
                                   "instructor can run it again.")
            _save(result, target)
            return result
        runner = KernelRunner(box, link, limits)
        # inputs the submission cannot know: every check's random inputs salted (issue 49), from the key and
        # the student with a key (a rerun draws the same), fresh for this run without one
        salt = variants.get("salt")
        salting = _checks_core.salted(salt if isinstance(salt, int) else secrets.randbits(63))
        salting.__enter__()
        first_error, index, ran = None, 0, 0
        for step in steps:
            if step[0] == "code":
                ran += 1
                _, cid, source, tags = step
                error = runner.run_cell(source)
                if error and error[0] != "NotRun":
                    result["errors"].append([cid, tags, error[0]])
                    if error[0] != "KernelDied":  # the note on the dead kernel says why
                        first_error = first_error or (cid, error)
                continue
            check = step[1]
            ex = result["exercises"][index]
            index += 1
            label = check["exercise"]
            seed, verdict, owner = decided.get(label, (0, "own", None))
            if runner.dead:
                ex.update(status="not run", message=f"{runner.dead} before this check (see the note).")
            elif verdict != "own":
                ex.update(status="failed", message=variant_message(label, verdict, owner, variants["keyed"]))
            else:
                with _variants.using(label, seed) if label in decided else contextlib.nullcontext():
                    status, message = _judged(judge_check, check, runner)  # the student's own numbers, from the key
                ex.update(zip(("status", "message"), _judged_as_own(code, check, ran, status, message)))
                if ex["status"] == "passed" and edition.get("assignment"):
                    hidden.append((check, ex, label, seed))
            _save(result, target)
        # The hidden checks, after the last cell: once one has handed the student's code its inputs, no cell
        # of the student's runs again, and what the code says is never quoted (assignment.hidden_message).
        for check, ex, label, seed in hidden:
            if runner.dead:
                ex.update(status="not run", message=f"{runner.dead} before the hidden check (see the note).")
                continue
            with _variants.using(label, seed) if label in decided else contextlib.nullcontext():
                judged = _judged(lambda c, r: assignment.judge_hidden(c, r, edition, ex["message"]), check, runner)
            if judged is not None:
                ex.update(status=judged[0], message=judged[1])
            _save(result, target)
        if runner.dead:
            why = "" if not (runner.dead == "the kernel stopped" or runner.dead.startswith("the kernel stopped (")) else (
                " (a call to os._exit, more memory than the limit for all its processes, or a crash)")
            result["notes"].append(f"{runner.dead[0].upper()}{runner.dead[1:]} before the end of the notebook{why}. "
                                   "The checks after that point were not run and get 0.")
        if first_error:
            cid, (name, value) = first_error
            if name == "CellTimeoutError":
                said = f"it did not finish within {limits['cell_timeout']} s and was interrupted"
            else:  # the student's text, quoted as data
                said = fence(value, 500)
            after = "" if runner.dead else " Cells after it still ran;"
            result["notes"].append(f"A cell of yours (id {fence(cid, 80)}) raised {fence(name, 80)}: {said}.{after} "
                                   "fix it so that the notebook runs top to bottom.")
    finally:
        if salting is not None:
            salting.__exit__(None, None, None)
        if link is not None:
            link.close()
        box.kill()
        if own_folder:
            shutil.rmtree(checks_edition, ignore_errors=True)
    _save(result, target)
    return result


def _judged_as_own(code, check, position, status, message):
    """The check's (status, message), with 0 when the answer's code reaches what the exercise does not allow
    or the code before it cannot be read (grader/judge.authorship; guide/maintainer/grader.md, "What an answer may call")."""
    if code is None:  # an instructor's own homework: its checks carry no allow-list
        return status, message
    if isinstance(code, Exception):
        return "failed", "not graded: the grader could not read this notebook's code (see the note)."
    return with_authorship(status, message, authorship(code, check, position))


def _judged(judge_check, check, runner):
    """A check's (status, message); a check that fails in the grader costs that exercise only.

    The exception's type is named only when it is Python's own: an exception the student's code raised
    comes back as a class of the name it chose (grader/kernel.py), which is the student's text.
    """
    try:
        return judge_check(check, runner)
    except Exception as exc:  # noqa: BLE001 - never the notebook's other checks, never the class
        name = type(exc).__name__ if type(exc).__name__ in _BUILTIN_ERRORS and type(exc).__module__ == "builtins" \
            else "an error"
        return "failed", f"the check could not judge this answer ({name} in the grader); the instructor can look."


_BUILTIN_ERRORS = frozenset(n for n, c in vars(builtins).items() if isinstance(c, type) and issubclass(c, BaseException))


def _not_regular(why):
    return (f"This entry of the submissions folder is not a notebook file ({why}: a link, a folder or a device "
            "is never opened). Hand in the .ipynb file itself. Grade 0.")


def _too_large(size, limits):
    return (f"The file is {size / 2**20:.1f} MiB, over the limit of {limits['max_notebook_size'] / 2**20:.3g} MiB "
            "for a notebook: it was not opened. Clear the outputs (Edit > Clear all outputs) and hand it in "
            "again. Grade 0.")


def _save(result, target):
    tmp = Path(str(target) + ".tmp")
    tmp.write_text(json.dumps(result))
    os.replace(tmp, target)



def _worker(submission, target, chapter, editions_dir, limits, unsafe, variants=None, student=None):
    """One submission, in a process forked from the grader's fork server (lib.checks already imported)."""
    import resource
    import traceback

    try:
        os.setsid()  # its own session and process group, killed as one at the time limit
    except OSError:
        pass
    parent = os.getppid()
    try:  # dies with the fork server (which dies with the grader): its sandbox then dies with it
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL, 0, 0, 0)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass
    if os.getppid() != parent:
        os._exit(1)
    # Nothing of the student's reaches the terminal from here: the warnings that their answers
    # raise are judged by the checks (which record them), never printed.
    warnings.showwarning = lambda *args, **kwargs: None
    # The grading process reads untrusted files: its own memory is bounded too.
    resource.setrlimit(resource.RLIMIT_AS, (limits["grader_memory"], resource.RLIM_INFINITY))
    try:
        run_one(submission, chapter, editions_dir, limits, target, unsafe=unsafe, variants=variants,
                student=student)
    except BaseException as exc:  # noqa: BLE001 - reported in the student's row, never a crash of the class
        try:
            raw = json.loads(Path(target).read_text())
        except (OSError, ValueError):
            raw = {"student": student, "page": chapter, "exercises": [], "notes": [], "errors": []}
        where = traceback.format_exception_only(type(exc), exc)[-1].strip()
        raw.setdefault("notes", []).append(
            f"The grader could not finish this notebook ({fence(where, 300)}). Grade 0 for the checks that had "
            "not reported.")
        _save(raw, target)
        os._exit(1)


def _pool_context():
    """A fork server that has imported lib.checks, the editions and the sandbox once for all workers.

    Python 3.11's fork server imports its preload with the folder it starts in as its path, not the
    grader's ``sys.path`` (it is handed over and ignored): started elsewhere, ``grader.preload`` was not
    found (silently: each worker then imported everything itself) or, worse, was whatever ``grader``
    that folder holds.  So it starts here, in the checkout's top folder, once; its workers are handed
    absolute paths only.
    """
    import multiprocessing
    from multiprocessing import forkserver

    ctx = multiprocessing.get_context("forkserver")
    ctx.set_forkserver_preload(["grader.preload"])
    here = os.getcwd()
    os.chdir(ROOT)
    try:
        forkserver.ensure_running()
    finally:
        os.chdir(here)
    return ctx


def _grade_in_subprocess(submission, args, limits, results_dir, editions, ctx, variants=None):
    """Run one submission (a find.Submission) in its own process; kill it (and its sandbox) at the time limit."""
    student = submission.student
    target = results_dir / f"{student}.json"
    if target.exists():
        target.unlink()
    early = None
    if not submission.regular:
        early = _not_regular("not a regular file")
    else:
        size = submission.path.stat(follow_symlinks=False).st_size
        if size > limits["max_notebook_size"]:  # refused before anything reads it
            early = _too_large(size, limits)
    if early:
        result = _skeleton(student, args.chapter, editions, [early])
        result["graded_at"] = _now()
        _save(result, target)
        return validated(result, student, editions, args.chapter)
    graded_at, digest = _now(), _sha256(submission.path)
    from grader import run as this  # by its module name: the fork server imports it so

    mine = {"mine": variants["mine"].get(student, {}), "owners": variants["owners"], "keyed": variants["keyed"],
            "salt": variants.get("salt", {}).get(student)} if variants else None
    checks_edition = tempfile.mkdtemp(prefix="gm-checks-")  # the sandbox's lib.checks (run_one)
    proc = ctx.Process(target=this._worker, args=(str(submission.path), str(target), args.chapter,
                                                  str(args.editions), dict(limits, checks_edition=checks_edition),
                                                  args.unsafe_no_sandbox, mine, student),
                       daemon=True)
    proc.start()
    note = None
    proc.join(limits["notebook_timeout"])
    if proc.is_alive():
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        proc.kill()
        proc.join()
        note = (f"The notebook did not finish within {limits['notebook_timeout']} s in all and was stopped. "
                "Grade 0 for the checks that had not reported.")
    shutil.rmtree(checks_edition, ignore_errors=True)
    sandbox.remove_stale_cgroups(proc.pid)
    if not args.unsafe_no_sandbox:  # a worker killed at the time limit did not purge its slot's keyrings
        sandbox.purge_keys(sandbox.sandbox_user(limits.get("slot", 0))[0])
    try:
        raw = json.loads(target.read_text())
    except (OSError, ValueError):
        raw = None
    result = validated(raw, student, editions, args.chapter)
    if note:
        result["notes"].append(note)
        for ex in result["exercises"]:
            if ex["status"] == "not run":
                ex["message"] = f"not run: the notebook was stopped after {limits['notebook_timeout']} s."
    elif raw is None or proc.exitcode not in (0, 1):
        result["notes"].append(f"The grader could not finish this notebook (its process ended with code "
                               f"{proc.exitcode}). Grade 0 for the checks that had not reported.")
    result["graded_at"], result["sha256"] = graded_at, digest  # which bytes were graded, and when
    _save(result, target)
    return result


def _now():
    """The time a notebook is graded (UTC, to the second), as its result records it."""
    import datetime

    return datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def _sha256(path):
    """The SHA-256 of the notebook's bytes (never through a link), or None when it cannot be read."""
    import hashlib

    digest = hashlib.sha256()
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
        with os.fdopen(fd, "rb") as fh:
            for block in iter(lambda: fh.read(2**20), b""):
                digest.update(block)
    except OSError:
        return None
    return digest.hexdigest()


