"""Grade a folder of homework notebooks: each runs sealed off, and is judged where its code never ran.

    python tools/grade.py SUBMISSIONS [--out OUT] [-j 2] [--chapter PAGE] [--force] [--key KEY [--roster CSV]]
    make grade SUBMISSIONS=dir [KEY=course.key] [ROSTER=roster.csv] [OUT=dir]

Every ``.ipynb`` in SUBMISSIONS is one student's notebook (the file name
without ``.ipynb`` is the student id); a folder may mix chapters.  For each,
the grader

1. refuses files over ``--max-notebook-size`` before reading them, then finds
   which page of the book the notebook is the student edition of (its
   ``genmodels.page`` metadata, confirmed by its cells' ids);
2. runs the submission's code cells, top to bottom, in a fresh IPython kernel
   inside a sandbox (``tools/sandbox.py``: bubblewrap and cgroups; no network,
   no view of the submissions, the output, the book's sources or the other
   kernels; memory, processes, CPU and a private ``/tmp`` bounded; every
   process killed at the end), with a time limit per cell and per notebook;
3. at each check cell of the student edition (``student/<page>.ipynb``, the
   submission's own copy is ignored), calls the check of ``lib.checks`` *in
   the grading process*, with its own NumPy: the student's answer is a proxy
   that forwards each call to the kernel over the kernel's messaging and gets
   back plain data (numbers, strings, lists, dicts, NumPy arrays as ``.npy``),
   or the name and message of the exception the answer raised
   (``tools/grade_wire.py``, ``tools/grade_agent.py``).  Nothing the kernel
   prints is read; points come from the student edition only.

With ``--key`` (``make grade SUBMISSIONS=dir KEY=course.key``) the exercises
that have variants are judged against the student's own numbers: the grader
recomputes the student's seeds from the key and the student id (and the
re-rolls beside the key), never reads them from the notebook, and gives 0 to a
variant exercise whose variant cell holds another seed, naming the student it
was handed out to (``tools/variants.py``; ``OUT/variants.csv`` lists every
such pair).  Without ``--key`` every variant exercise is judged at the book's
variant 0.

It writes ``OUT/grades.csv`` (one row per submission: student, chapter, one
column per exercise label, total, max), ``OUT/feedback/<student>.md`` and
``OUT/results/<student>.json`` (which make a re-run skip that student unless
``--force``), prints a progress bar, the pass rate of every exercise and
whether the submissions folder is unchanged (hashes before and after).  What
the sandbox is and is not: the README, "Teaching with this book".
"""

from __future__ import annotations

import argparse
import ast
import builtins
import concurrent.futures
import csv
import hashlib
import json
import os
import re
import shutil
import signal
import sys
import tempfile
import time
import warnings
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
EDITIONS = ROOT / "student"
TOOLS = Path(__file__).resolve().parent
for _path in (str(ROOT), str(TOOLS)):  # the grading process judges with this checkout's lib
    if _path not in sys.path:
        sys.path.insert(0, _path)

DEFAULTS = {"cell_timeout": 60, "notebook_timeout": 600, "memory": "2GiB", "file_size": "100MiB",
            "tmp_size": "512MiB", "processes": 64, "max_notebook_size": "20MiB", "grader_memory": "6GiB"}
_UNITS = {"": 1, "k": 2**10, "kib": 2**10, "m": 2**20, "mib": 2**20, "g": 2**30, "gib": 2**30}
STATUSES = ("passed", "failed", "not implemented", "not run")
MAX_MESSAGE = 2000


def parse_size(text):
    """'2GiB' -> bytes."""
    match = re.fullmatch(r"\s*([\d.]+)\s*([a-zA-Z]*)\s*", str(text))
    if not match or match.group(2).lower() not in _UNITS:
        raise argparse.ArgumentTypeError(f"not a size: {text!r} (examples: 2GiB, 512MiB)")
    return int(float(match.group(1)) * _UNITS[match.group(2).lower()])


def bounded(text, limit=MAX_MESSAGE):
    """A message as the grader stores it: a str, without control characters, at most ``limit`` long."""
    if not isinstance(text, str):
        text = "" if text is None else f"<{type(text).__name__}>"
    text = re.sub(r"[\x00-\x08\x0b-\x1f\x7f]", "", text)
    return text if len(text) <= limit else text[: limit - 1] + "…"


# ------------------------------------------------------------ the editions --

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
        checks, exercises, previous_code = [], [], None
        for cell in nb.cells:
            if cell.cell_type != "code":
                continue
            if "check" in cell.metadata.get("tags", []):
                label = cell.metadata.get("exercise") or f"check-{cell.id}"
                points = cell.metadata.get("points", 1)
                checks.append({"id": cell.id, "source": cell.source, "exercise": label, "points": points,
                               "after": previous_code, "tag": cell.metadata.get("exercise"),
                               "call": parse_check(cell.source, cell.id)})
                exercises.append((label, points))
            previous_code = cell.id
        editions[page] = {"checks": checks, "exercises": exercises, "nb": nb, "path": path}
    return editions


def parse_check(source, cell_id="?"):
    """``lib.checks.name(a, b, k=c)`` -> ("name", ["a", "b"], {"k": "c"}): parsed, never run."""
    tree = ast.parse(source)
    call = tree.body[0].value if len(tree.body) == 1 and isinstance(tree.body[0], ast.Expr) else None
    if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute)
            and ast.unparse(call.func.value) == "lib.checks"):
        raise ValueError(f"check cell {cell_id} is not a single call lib.checks.<name>(...)")
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

    graded = [p for p in editions if editions[p]["checks"]]
    best = max(graded, key=overlap) if graded else None
    if claimed in editions and (not editions[claimed]["checks"] or overlap(claimed) >= 0.5):
        page = claimed
    elif claimed is None and best is not None and overlap(best) >= 0.5:
        page = best
    else:
        looks = f" (its cells are those of {best})" if best and overlap(best) >= 0.5 else ""
        shown = bounded(claimed, 80) if claimed else "no page"
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


# ----------------------------------------------------- the kernel, as data --

class CheckAborted(BaseException):
    """The kernel did not answer in time or died: the check stops (not an Exception: checks cannot catch it)."""

    def __init__(self, reason, timed_out):
        super().__init__(reason)
        self.reason, self.timed_out = reason, timed_out


class InvalidReply(Exception):
    """The kernel's reply was not plain data of the agreed form."""


_KNOWN_EXCEPTIONS = {n: c for n, c in vars(builtins).items() if isinstance(c, type) and issubclass(c, Exception)}
_MADE = {}


def _exception(error):
    """The grader-side exception standing for the one the student's answer raised (a name and a message)."""
    import numpy as np

    known = dict(_KNOWN_EXCEPTIONS, LinAlgError=np.linalg.LinAlgError)
    try:
        from lib.checks import _core
        if isinstance(getattr(_core, "Delegation", None), type):
            known["Delegation"] = _core.Delegation
    except ImportError:
        pass
    if not isinstance(error, dict):
        return InvalidReply("the kernel's reply was not an exception")
    name = error.get("type")
    name = name if isinstance(name, str) and re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]{0,79}", name) else "Exception"
    mro = [n for n in (error.get("mro") or [])[:12] if isinstance(n, str)] if isinstance(error.get("mro"), list) else []
    message = bounded(error.get("message"))
    base = next((known[n] for n in [name, *mro] if n in known), Exception)
    if base is known.get("Delegation") and name == "Delegation":  # its argument: what the answer called
        dotted = error.get("name")
        return base(dotted if isinstance(dotted, str) and re.fullmatch(r"[A-Za-z_][\w.<>]{0,200}", dotted)
                    else "a function its exercise does not allow", error.get("itself") is True)
    cls = base if base.__name__ == name else _MADE.setdefault(
        (name, base), type(name, (base,), {"__module__": "__main__"}))
    try:
        return cls(message)
    except Exception:  # noqa: BLE001 - e.g. UnicodeDecodeError's five arguments
        return _MADE.setdefault((name, Exception), type(name, (Exception,), {"__module__": "__main__"}))(message)


class KernelRunner:
    """Runs a submission's cells in a sandboxed kernel and answers the checks' calls with plain data."""

    def __init__(self, sandbox, link, limits):
        self.sandbox, self.link, self.limits = sandbox, link, limits
        self.dead = None  # why the kernel can no longer be used
        self.deadline = None  # of the current check
        core = ROOT / "lib" / "checks" / "_core.py"  # the tripwires, should the kernel's copy be replaced
        self.agent = ((TOOLS / "grade_wire.py").read_text() + "\n" + (TOOLS / "grade_agent.py").read_text()
                      + f"\n_CORE_FILE = {str(core)!r}\n_CORE_SOURCE = {core.read_text()!r}\n")

    def _lost(self):
        if self.dead is None and not self.sandbox.alive():
            self.dead = "the kernel stopped"
            if self.sandbox.oom_killed():
                self.dead += f" (it used more than {self.limits['tree_memory'] / 2**30:.3g} GiB in all)"
        return self.dead

    def _stop_runaway(self):
        """After a time-out: interrupt; if the kernel does not come back (a C loop), kill the sandbox."""
        self.link.interrupt(timeout=2.0)
        msg_id = self.link.send("shell", "kernel_info_request", {})
        if self.link.reply("shell", msg_id, 10.0) is None:
            self.sandbox.kill()
            self.dead = (f"the kernel ignored the interrupt after {self.limits['cell_timeout']} s (a loop in C "
                         "code?) and was stopped")
            return False
        return True

    def run_cell(self, source):
        """None when the cell ran, else (exception name, message)."""
        if self._lost():
            return "NotRun", self.dead
        reply = self.link.execute(source, self.limits["cell_timeout"])
        if reply is None:
            if self._lost():
                return "KernelDied", self.dead
            self._stop_runaway()
            return "CellTimeoutError", f"no result within {self.limits['cell_timeout']} s"
        if reply.get("status") == "error":
            return bounded(reply.get("ename"), 80) or "Error", bounded(reply.get("evalue"), 500)
        return None

    def request(self, request):
        """Send one request to the agent; its decoded reply dict (or raise CheckAborted / InvalidReply)."""
        import grade_wire

        if self._lost():
            raise CheckAborted(self.dead, False)
        if self.deadline and time.monotonic() > self.deadline:
            raise CheckAborted(f"the check did not finish within {self.limits['cell_timeout']} s: "
                               "does your code loop forever?", True)
        code = (f"(lambda __gm_ns: (exec({self.agent!r}, __gm_ns), "
                f"__gm_ns['serve']({json.dumps(request)!r}, get_ipython())))({{'__name__': 'gm_agent'}})")
        left = max(0.5, self.deadline - time.monotonic()) if self.deadline else self.limits["cell_timeout"]
        reply = self.link.execute(code, left, silent=True)
        if reply is None:
            if self._lost():
                raise CheckAborted(self.dead, False)
            self._stop_runaway()
            raise CheckAborted(f"the check did not finish within {self.limits['cell_timeout']} s: "
                               "does your code loop forever?", True)
        payload = reply.get("payload")
        datas = [p.get("data") for p in payload if isinstance(p, dict) and p.get("source") == "gm-grader"] \
            if isinstance(payload, list) else []
        if reply.get("status") != "ok" or len(datas) != 1 or not isinstance(datas[0], str):
            name = bounded(reply.get("ename"), 80) or "no reply"
            raise InvalidReply(f"the grader's request failed in your kernel ({name}): was something of the "
                               "notebook's machinery (IPython, json, numpy) replaced?")
        if len(datas[0]) > grade_wire.MAX_ARRAY_BYTES * 2:
            raise InvalidReply("the reply was too large")
        try:
            out = json.loads(datas[0])
        except ValueError:
            raise InvalidReply("the reply was not JSON") from None
        if not isinstance(out, dict):
            raise InvalidReply("the reply was not a dict")
        return out

    def describe(self, name):
        """("missing" | "function" | "value", value)."""
        import grade_wire

        out = self.request({"op": "describe", "name": name})
        if out.get("defined") is not True:
            return "missing", None
        if out.get("callable") is True:
            return "function", None
        if "value" not in out:
            return "value", _Unreadable(bounded(out.get("too_large"), 200))
        try:
            return "value", grade_wire._dec(out["value"], 0, [0], grade_wire._opaque_type)
        except grade_wire.WireError as exc:
            return "value", _Unreadable(str(exc))

    def call(self, name, args, kwargs, policy):
        import grade_wire
        import numpy as np

        try:
            request = {"op": "call", "name": name, "args": grade_wire.encode(list(args)),
                       "kwargs": grade_wire.encode(dict(kwargs)), "errstate": np.geterr(), "policy": policy}
        except grade_wire.WireError as exc:
            raise TypeError(f"the grader cannot send these arguments to the kernel: {exc}") from None
        out = self.request(request)
        if "agent_error" in out:
            raise InvalidReply(f"the grader's call failed in your kernel: {bounded(out['agent_error'], 300)}")
        for item in (out.get("warnings") or [])[:20] if isinstance(out.get("warnings"), list) else []:
            if isinstance(item, list) and len(item) == 2:
                category = _KNOWN_EXCEPTIONS.get(item[0]) if isinstance(item[0], str) else None
                category = category if isinstance(category, type) and issubclass(category, Warning) else UserWarning
                warnings.warn(bounded(item[1], 500), category, stacklevel=3)
        for item in (out.get("mutated") or [])[:len(args)] if isinstance(out.get("mutated"), list) else []:
            try:
                index, value = item
                value = grade_wire._dec(value, 0, [0], grade_wire._opaque_type)
                target = args[index]
                if (isinstance(target, np.ndarray) and isinstance(value, np.ndarray) and target.flags.writeable
                        and target.shape == value.shape):
                    np.copyto(target, value, casting="unsafe")
            except (ValueError, TypeError, IndexError, grade_wire.WireError):
                continue
        if out.get("ok") is True and "value" in out:
            try:
                return grade_wire._dec(out["value"], 0, [0], grade_wire._opaque_type)
            except grade_wire.WireError as exc:
                raise InvalidReply(f"your function's value could not be read as data: {exc}") from None
        if out.get("ok") is False:
            raise _exception(out.get("error"))
        raise InvalidReply("the kernel's reply was neither a value nor an exception")


class _Unreadable:
    """A student's value that could not travel as data (too large, or not plain data)."""

    def __init__(self, why):
        self.why = why

    def __repr__(self):
        return f"<value the grader could not read: {self.why}>"


class KernelFunction:
    """The student's function as the checks see it: each call runs in the kernel, on copies of the data."""

    runs_elsewhere = True  # lib.checks._core.watched sets no wires here: the policy travels with each call

    def __init__(self, runner, name, policy):
        self._runner, self._policy = runner, policy
        self.__name__ = self.__qualname__ = name

    def __call__(self, *args, **kwargs):
        return self._runner.call(self.__name__, args, kwargs, self._policy)

    def __repr__(self):
        return f"<function {self.__name__} (in the student's kernel)>"


def run_check(check, runner):
    """(status, message) of one check, judged in this process."""
    import lib.checks
    from lib.checks import _core

    name, arg_names, kwarg_names = check["call"]
    fn = getattr(lib.checks, name)
    policy = _core.policy_of(fn)  # what the answer may call, applied in the kernel (grade_agent.py)
    runner.deadline = time.monotonic() + runner.limits["cell_timeout"]
    try:
        values = {}
        for student_name in [*arg_names, *kwarg_names.values()]:
            kind, value = runner.describe(student_name)
            if kind == "missing":
                return "failed", (f"name '{student_name}' is not defined: the check could not find your answer; "
                                  "run the cells that define it, and keep its name.")
            values[student_name] = KernelFunction(runner, student_name, policy) if kind == "function" else value
        result = fn(*[values[n] for n in arg_names], **{k: values[n] for k, n in kwarg_names.items()})
    except CheckAborted as stop:
        if stop.timed_out:
            return "failed", bounded(stop.reason)
        return "not run", bounded(f"{stop.reason} during this check (see the note).")
    except InvalidReply as exc:
        return "failed", bounded(str(exc))
    finally:
        runner.deadline = None
    if type(result) is not _core.CheckResult or result.status not in STATUSES:
        return "failed", "the check did not return a result."
    return result.status, bounded(result.message)


# --------------------------------------------------------------- one run --

def _skeleton(student, page, editions, notes=()):
    edition = editions.get(page) if page else None
    exercises = [{"exercise": c["exercise"], "status": "not run", "message": "not graded: see the note above."}
                 for c in edition["checks"]] if edition else []
    return {"student": student, "page": page if edition else None, "exercises": exercises,
            "notes": list(notes), "errors": []}


VERDICTS = ("own", "other", "book", "changed")  # of a variant cell, as the results record it


def variant_decisions(nb, edition, variants):
    """{exercise: (expected seed, verdict, owner)} for the variant exercises of ``edition``.

    ``variants`` is {"mine": {exercise: seed}, "owners": {exercise: {seed: student}}, "keyed": bool};
    the notebook's seeds are read from its cells, never run (tools/variants.notebook_seeds).
    """
    from lib.checks import _variants

    import variants as handouts

    found = handouts.notebook_seeds(nb)
    out = {}
    for check in edition["checks"]:
        label = check["exercise"]
        if label not in _variants.registered():
            continue
        expected = variants["mine"].get(label, 0)
        seen = found.get(label, expected if not variants["keyed"] else None)
        if seen == expected:
            out[label] = (expected, "own", None)
        elif seen is not None and seen in variants["owners"].get(label, {}):
            out[label] = (expected, "other", variants["owners"][label][seen])
        elif seen == 0:
            out[label] = (expected, "book", None)
        else:
            out[label] = (expected, "changed", None)
    return out


def variant_message(label, verdict, owner, keyed):
    """What the student reads for a variant exercise graded 0 because of its variant cell."""
    if verdict == "other":
        return (f"the variant cell of {label} holds the seed handed out to {owner}, not yours: this notebook's "
                "numbers are another student's. 0 points for this exercise.")
    if verdict == "book":
        return (f"the variant cell of {label} holds seed 0, the book's numbers, not the seed handed out to you. "
                "0 points for this exercise.")
    if keyed:
        return (f"the variant cell of {label} is missing or its seed is not the one handed out to you; keep the "
                "cell as handed out. 0 points for this exercise.")
    return (f"the variant cell of {label} holds a seed other than 0, and the grader was run without the course "
            "key, so it judges the book's numbers (variant 0). 0 points for this exercise.")


def run_one(submission, page_expected, editions_dir, limits, target, unsafe=False, variants=None):
    """Grade one submission in this process (a subprocess of the grader); writes and returns its result."""
    import nbformat

    import sandbox
    from lib.checks import _sandbox, _variants

    variants = variants or {"mine": {}, "owners": {}, "keyed": False}

    editions = load_editions(editions_dir)
    student = Path(submission).stem
    size = Path(submission).stat().st_size
    if size > limits["max_notebook_size"]:
        result = _skeleton(student, page_expected, editions, [_too_large(size, limits)])
        _save(result, target)
        return result
    try:
        nb = nbformat.reads(Path(submission).read_text(), as_version=4)
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
    steps, notes = plan(nb, edition)
    result["notes"] += notes
    decided = variant_decisions(nb, edition, variants)
    result["variants"] = [[label, verdict, owner] for label, (_, verdict, owner) in decided.items()]
    others = sorted({owner for _, verdict, owner in decided.values() if verdict == "other"})
    if others:
        result["notes"].append(f"This notebook was handed out to {', '.join(others)}: its variant exercises are "
                               "graded 0.")
    for ex in result["exercises"]:
        ex["message"] = "not run: the notebook stopped before this check (see the note)."
    _save(result, target)

    # The sandbox's lib.checks holds the variant cells' numbers and the tripwires, no check (issue 36).
    # Its folder is made (and removed) by the parent process, which outlives a worker killed at the limit.
    own_folder = "checks_edition" not in limits
    checks_edition = Path(limits["checks_edition"] if not own_folder else tempfile.mkdtemp(prefix="gm-checks-"))
    os.chmod(checks_edition, 0o755)
    import variants as handouts

    found = handouts.notebook_seeds(nb)  # the numbers of a seed in the notebook print as usual (0 points)
    _sandbox.write_edition(checks_edition, {label: [0, seed, found.get(label, 0)]
                                            for label, (seed, _, _) in decided.items()})
    limits = dict(limits, overlays=[(str(checks_edition), str(ROOT / "lib" / "checks"))])
    box = sandbox.Sandbox(ROOT, limits, unsafe=unsafe)
    link = None
    try:
        box.start()
        link = sandbox.KernelLink(box.connection())
        if not link.wait_ready(60, box.alive):
            result["notes"].append("The grader could not start a kernel for this notebook. Grade 0; the "
                                   "instructor can run it again.")
            _save(result, target)
            return result
        runner = KernelRunner(box, link, limits)
        first_error, index = None, 0
        for step in steps:
            if step[0] == "code":
                _, cid, source, tags = step
                error = runner.run_cell(source)
                if error and error[0] != "NotRun":
                    result["errors"].append([cid, tags, error[0]])
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
            elif label in decided:
                with _variants.using(label, seed):  # the student's own numbers, from the key
                    status, message = run_check(check, runner)
                ex.update(status=status, message=message)
            else:
                status, message = run_check(check, runner)
                ex.update(status=status, message=message)
            _save(result, target)
        if runner.dead:
            why = "" if "ignored" in runner.dead else (
                " (a call to os._exit, more memory than the limit for all its processes, or a crash)")
            result["notes"].append(f"{runner.dead[0].upper()}{runner.dead[1:]} before the end of the notebook{why}. "
                                   "The checks after that point were not run and get 0.")
        if first_error:
            cid, (name, value) = first_error
            if name == "CellTimeoutError":
                value = f"it did not finish within {limits['cell_timeout']} s and was interrupted"
            after = "" if runner.dead else " Cells after it still ran;"
            result["notes"].append(f"A cell of yours (id {cid}) raised {name}: {value}.{after} fix it so that the "
                                   "notebook runs top to bottom.")
    finally:
        if link is not None:
            link.close()
        box.kill()
        if own_folder:
            shutil.rmtree(checks_edition, ignore_errors=True)
    _save(result, target)
    return result


def write_similarity(submissions, results, editions, out, max_size):
    """OUT/similarity.csv and the pairs in the summary (tools/grader/similarity.py: answers read as text)."""
    import nbformat
    from grader import similarity

    import lib.checks

    answers, starters = {}, {}
    for path, result in zip(submissions, results):
        edition = editions.get(result.get("page"))
        if edition is None or path.stat().st_size > max_size:
            continue
        try:
            nb = nbformat.reads(path.read_text(), as_version=4)
        except Exception:  # noqa: BLE001 - an unreadable notebook has no answers to compare
            continue
        answers[result["student"]] = similarity.answers_of(nb, edition["checks"])
        starters.update(similarity.answers_of(edition["nb"], edition["checks"]))
    checks = [getattr(lib.checks, name) for name in lib.checks.__all__]
    rows = similarity.report(answers, similarity.book_solutions(ROOT / "chapters"),
                             similarity.lib_sources(checks), starters=starters)
    similarity.write_csv(rows, out)
    print("\n".join(similarity.summary(rows)))


def _too_large(size, limits):
    return (f"The file is {size / 2**20:.1f} MiB, over the limit of {limits['max_notebook_size'] / 2**20:.3g} MiB "
            "for a notebook: it was not opened. Clear the outputs (Edit > Clear all outputs) and hand it in "
            "again. Grade 0.")


def _save(result, target):
    tmp = Path(str(target) + ".tmp")
    tmp.write_text(json.dumps(result))
    os.replace(tmp, target)


# ---------------------------------------------------------------- reports --

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
    return {"student": student, "page": page, "exercises": exercises, "notes": notes, "errors": errors,
            "variants": variants}


def feedback(result):
    lines = [f"# Feedback for {result['student']}", ""]
    if result["page"]:
        lines += [f"Notebook: {result['page']}", ""]
    for note in result["notes"]:
        lines += [f"**Note.** {note}", ""]
    total, top = score(result)
    lines += [f"Score: {total:g} / {top:g}", "", "| exercise | points | result |", "|---|---:|---|"]
    for ex in result["exercises"]:
        earned = ex["points"] if ex["status"] == "passed" else 0
        message = ex["message"].replace("|", "\\|").replace("\n", " ")
        lines.append(f"| {ex['exercise']} | {earned:g} / {ex['points']:g} | {ex['status']}: {message} |")
    return "\n".join(lines) + "\n"


def score(result):
    total = sum(ex["points"] for ex in result["exercises"] if ex["status"] == "passed")
    return total, sum(ex["points"] for ex in result["exercises"])


def write_grades(results, editions, out):
    labels = [label for page in editions for label, _ in editions[page]["exercises"]
              if any(r["page"] == page for r in results)]
    tmp = out / "grades.csv.tmp"
    with open(tmp, "w", newline="") as fh:
        writer = csv.writer(fh)
        writer.writerow(["student", "chapter", *labels, "total", "max"])
        for r in sorted(results, key=lambda r: r["student"]):
            earned = {ex["exercise"]: (ex["points"] if ex["status"] == "passed" else 0) for ex in r["exercises"]}
            total, top = score(r)
            writer.writerow([r["student"], r["page"] or "", *[earned.get(lab, "") for lab in labels],
                             f"{total:g}", f"{top:g}"])
    os.replace(tmp, out / "grades.csv")


def write_variants(results, out):
    """OUT/variants.csv: every variant exercise of every submission, and whose numbers its notebook holds."""
    tmp = out / "variants.csv.tmp"
    with open(tmp, "w", newline="") as fh:
        writer = csv.writer(fh)
        writer.writerow(["student", "chapter", "exercise", "variant", "handed_out_to"])
        for r in sorted(results, key=lambda r: r["student"]):
            for label, verdict, owner in r.get("variants", []):
                writer.writerow([r["student"], r["page"] or "", label, verdict, owner or ""])
    os.replace(tmp, out / "variants.csv")


def handout_pairs(results):
    """Lines naming each submission whose variant cells are another student's handout."""
    lines = []
    for r in sorted(results, key=lambda r: r["student"]):
        owners = sorted({owner for _, verdict, owner in r.get("variants", []) if verdict == "other"})
        if owners:
            lines.append(f"  {r['student']} handed in the notebook handed out to {', '.join(owners)}")
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


def _worker(submission, target, chapter, editions_dir, limits, unsafe, variants=None):
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
    # The grading process reads untrusted files: its own memory is bounded too.
    resource.setrlimit(resource.RLIMIT_AS, (limits["grader_memory"], resource.RLIM_INFINITY))
    try:
        run_one(submission, chapter, editions_dir, limits, target, unsafe=unsafe, variants=variants)
    except BaseException as exc:  # noqa: BLE001 - reported in the student's row, never a crash of the class
        try:
            raw = json.loads(Path(target).read_text())
        except (OSError, ValueError):
            raw = {"student": Path(submission).stem, "page": chapter, "exercises": [], "notes": [], "errors": []}
        where = traceback.format_exception_only(type(exc), exc)[-1].strip()
        raw.setdefault("notes", []).append(
            f"The grader could not finish this notebook ({bounded(where, 300)}). Grade 0 for the checks that had "
            "not reported.")
        _save(raw, target)
        os._exit(1)


def _pool_context():
    """A fork server that has imported lib.checks, the editions and the sandbox once for all workers."""
    import multiprocessing

    ctx = multiprocessing.get_context("forkserver")
    ctx.set_forkserver_preload(["grade_preload"])
    return ctx


def _grade_in_subprocess(submission, args, limits, results_dir, editions, ctx, variants=None):
    """Run one submission in its own process; kill it (and its sandbox) at the notebook time limit."""
    import sandbox

    student = submission.stem
    target = results_dir / f"{student}.json"
    if target.exists():
        target.unlink()
    size = submission.stat().st_size
    if size > limits["max_notebook_size"]:  # refused before anything reads it
        result = _skeleton(student, args.chapter, editions, [_too_large(size, limits)])
        _save(result, target)
        return validated(result, student, editions, args.chapter)
    import grade as this  # by its module name: the fork server imports it so

    mine = {"mine": variants["mine"].get(student, {}), "owners": variants["owners"], "keyed": variants["keyed"]} \
        if variants else None
    checks_edition = tempfile.mkdtemp(prefix="gm-checks-")  # the sandbox's lib.checks (run_one)
    proc = ctx.Process(target=this._worker, args=(str(submission), str(target), args.chapter, str(args.editions),
                                                  dict(limits, checks_edition=checks_edition),
                                                  args.unsafe_no_sandbox, mine), daemon=True)
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
    _save(result, target)
    return result


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
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
                        help="run the kernels without bubblewrap and cgroups (see the README: what this loses)")
    parser.add_argument("--key", type=Path,
                        help="the course key (make course-key): judge each student's own variants")
    parser.add_argument("--roster", type=Path,
                        help="the roster of the handout (CSV, `student` column): names whose handout a notebook "
                             "is, also for students who handed in nothing (default: the submissions' ids)")
    parser.add_argument("--editions", type=Path, default=EDITIONS, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    args.submissions, args.out = args.submissions.resolve(), args.out.resolve()
    args.editions = args.editions.resolve()
    if not args.submissions.is_dir():
        parser.error(f"{args.submissions} is not a folder")
    if args.out == args.submissions or args.submissions in args.out.parents:
        parser.error("the output folder must not be inside the submissions folder")
    import variants as handouts

    try:
        key = handouts.read_key(args.key) if args.key else None
        roster = handouts.read_roster(args.roster) if args.roster else []
        overrides = handouts.read_overrides(args.key) if args.key else {}
    except handouts.UsageError as exc:
        parser.error(str(exc))
    if args.key:
        args.key = args.key.resolve()
    limits = {"cell_timeout": args.cell_timeout, "notebook_timeout": args.notebook_timeout,
              "memory": args.memory, "tree_memory": args.memory + 256 * 2**20, "file_size": args.file_size,
              "cpu_time": args.notebook_timeout, "processes": args.processes, "tmp_size": args.tmp_size,
              "max_notebook_size": args.max_notebook_size, "grader_memory": args.grader_memory,
              "hidden": [str(args.submissions), str(args.out)]
              + ([str(args.key), str(handouts.overrides_path(args.key))] if args.key else [])}
    import sandbox

    problem = sandbox.probe(ROOT, limits)
    if problem and not args.unsafe_no_sandbox:
        print(f"grade.py: cannot sandbox the students' kernels on this machine: {problem}.\n"
              "Refusing to run student code unconfined. --unsafe-no-sandbox runs it anyway, without the "
              "sandbox (read the README, 'Teaching with this book', for what that loses).", file=sys.stderr)
        return 2
    if args.unsafe_no_sandbox:
        print("WARNING: --unsafe-no-sandbox: the students' code runs as this user, with its files, network "
              "and processes, without memory or process limits for the whole tree.", file=sys.stderr)
    editions = load_editions(args.editions)
    if args.chapter and args.chapter not in editions:
        parser.error(f"--chapter {args.chapter}: no student edition of that name in {args.editions}")
    before = fingerprint(args.submissions)
    submissions = sorted(p for p in args.submissions.glob("*.ipynb") if p.is_file() and not p.is_symlink())
    results_dir, feedback_dir = args.out / "results", args.out / "feedback"
    results_dir.mkdir(parents=True, exist_ok=True)
    feedback_dir.mkdir(parents=True, exist_ok=True)
    todo = [s for s in submissions if args.force or not (results_dir / f"{s.stem}.json").exists()]
    variants = {"mine": {}, "owners": {}, "keyed": key is not None}
    if key is not None:
        everyone = list(dict.fromkeys([*roster, *(s.stem for s in submissions)]))
        variants["mine"] = handouts.seeds(key, everyone, overrides)
        for student, mine in variants["mine"].items():
            for label, seed in mine.items():
                variants["owners"].setdefault(label, {})[seed] = student
    skipped = len(submissions) - len(todo)
    if skipped:
        print(f"{skipped} submission(s) already graded: skipped (use --force to grade them again)")
    start, done = time.monotonic(), 0
    _progress(0, len(todo), start)
    results = {}
    ctx = _pool_context()
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        futures = {pool.submit(_grade_in_subprocess, s, args, limits, results_dir, editions, ctx, variants): s
                   for s in todo}
        for future in concurrent.futures.as_completed(futures):
            submission = futures[future]
            try:
                result = future.result()
            except Exception as exc:  # noqa: BLE001 - one student's failure never stops the class
                result = validated(None, submission.stem, editions, args.chapter)
                result["notes"].append(f"The grader failed on this notebook ({type(exc).__name__}). Grade 0.")
            results[submission.stem] = result
            (feedback_dir / f"{result['student']}.md").write_text(feedback(result))
            done += 1
            _progress(done, len(todo), start)
    sys.stderr.write("\n")
    for s in submissions:
        if s.stem not in results:  # graded by an earlier run
            try:
                raw = json.loads((results_dir / f"{s.stem}.json").read_text())
            except (OSError, ValueError):
                raw = None
            results[s.stem] = validated(raw, s.stem, editions, args.chapter)
            if not (feedback_dir / f"{s.stem}.md").exists():
                (feedback_dir / f"{s.stem}.md").write_text(feedback(results[s.stem]))
    ordered = [results[s.stem] for s in submissions]
    write_grades(ordered, editions, args.out)
    write_variants(ordered, args.out)
    print(f"{len(ordered)} submission(s) in {args.out / 'grades.csv'}; feedback in {feedback_dir}"
          f" ({time.monotonic() - start:.0f} s)")
    print(summary(ordered))
    pairs = handout_pairs(ordered)
    if pairs:
        print("notebooks handed out to another student (their variant exercises got 0; OUT/variants.csv):")
        print("\n".join(pairs))
    elif key is not None:
        print("variants: every notebook holds its own student's seeds (OUT/variants.csv)")
    write_similarity(submissions, ordered, editions, args.out, limits["max_notebook_size"])
    after = fingerprint(args.submissions)
    if after == before:
        print(f"submissions folder unchanged: {len(before)} file(s), sha256 checked before and after")
        return 0
    changed = sorted(n for n in set(before) | set(after) if before.get(n) != after.get(n))
    print(f"WARNING: the submissions folder changed while grading: {', '.join(changed[:20])}", file=sys.stderr)
    return 3


if __name__ == "__main__":
    sys.exit(main())
