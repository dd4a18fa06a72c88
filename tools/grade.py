"""Grade a folder of homework notebooks: runs each in a fresh, limited kernel and writes grades.

    python tools/grade.py SUBMISSIONS [--out OUT] [-j 2] [--chapter PAGE] [--force]
    make grade SUBMISSIONS=dir [OUT=dir]

Every ``.ipynb`` in SUBMISSIONS is one student's notebook (the file name
without ``.ipynb`` is the student id); a folder may mix chapters.  For each,
the grader

1. finds which page of the book it is the student edition of (the notebook's
   ``genmodels.page`` metadata, confirmed by its cells' ids);
2. builds the notebook it will run: the submission's code cells, without
   outputs, with every check cell replaced by the pristine check of the
   student edition (``student/<page>.ipynb``), wherever the student put or
   removed it;
3. runs it top to bottom in a fresh kernel, in a fresh temporary folder that
   holds nothing but that notebook, with a time limit per cell and per
   notebook and a memory cap (``resource`` limits on the kernel process);
4. evaluates each check with a copy of ``lib`` loaded afresh from its
   installed files after the student's cells ran (a redefined
   ``lib.checks.<fn>`` or ``CheckResult`` has no effect), and reads the result
   only from a line carrying a random per-run token (a printed "[PASSED]",
   or outputs pasted into the JSON, earn nothing).

It writes ``OUT/grades.csv`` (one row per submission: student, chapter, one
column per exercise label, total, max), ``OUT/feedback/<student>.md`` and
``OUT/results/<student>.json`` (which make a re-run skip that student unless
``--force``), and prints a progress bar and the pass rate of every exercise.
The submissions folder is only read.  What this isolation is and is not: see
the README, "Teaching with this book".
"""

from __future__ import annotations

import argparse
import ast
import concurrent.futures
import csv
import json
import os
import re
import secrets
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
EDITIONS = ROOT / "student"

DEFAULTS = {"cell_timeout": 60, "notebook_timeout": 600, "memory": "2GiB", "file_size": "100MiB"}
_UNITS = {"": 1, "k": 2**10, "kib": 2**10, "m": 2**20, "mib": 2**20, "g": 2**30, "gib": 2**30}


def parse_size(text):
    """'2GiB' -> bytes."""
    match = re.fullmatch(r"\s*([\d.]+)\s*([a-zA-Z]*)\s*", str(text))
    if not match or match.group(2).lower() not in _UNITS:
        raise argparse.ArgumentTypeError(f"not a size: {text!r} (examples: 2GiB, 512MiB)")
    return int(float(match.group(1)) * _UNITS[match.group(2).lower()])


# ------------------------------------------------------------ the editions --

def load_editions(folder=EDITIONS):
    """page -> {"checks": [check cell dicts in order], "exercises": [(label, points)], "nb": notebook}."""
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
                               "after": previous_code, "tag": cell.metadata.get("exercise")})
                exercises.append((label, points))
            previous_code = cell.id
        editions[page] = {"checks": checks, "exercises": exercises, "nb": nb, "path": path}
    return editions


def identify(nb, editions, expected=None):
    """(page, problem): which edition the submission is, or why it cannot be graded."""
    # A check cell is recognised by its id and the exercise it checks: ids alone
    # ("cell-036") recur on every page of a chapter.
    cells = {(getattr(c, "id", None), (c.get("metadata") or {}).get("exercise")) for c in nb.cells}
    claimed = (nb.metadata.get("genmodels") or {}).get("page")

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
        return claimed, (f"this notebook says it is the student edition of {claimed or 'no page'}, but its "
                         f"cells do not match that notebook{looks}. Start again from the student notebook "
                         "of the assignment and keep its cells.")
    if expected and page != expected:
        return page, (f"this is the notebook of {page}, but the assignment is {expected}: "
                      "hand in the notebook of the assignment.")
    return page, None


def graded_notebook(nb, edition, nonce, lib_dir):
    """The notebook that runs: the submission's code, the pristine checks in place of its own."""
    import nbformat

    pristine = {c["id"]: c for c in edition["checks"]}
    cells = [c for c in nb.cells if c.cell_type == "code" and getattr(c, "id", None) not in pristine
             and "check" not in c.metadata.get("tags", [])]
    out = [nbformat.v4.new_code_cell(_prelude(), id="grader-prelude")]
    for cell in cells:
        new = nbformat.v4.new_code_cell(cell.source, id=cell.id)
        new.metadata = {"tags": list(cell.metadata.get("tags", []))}
        out.append(new)
    # Each pristine check goes after the cell it follows in the student edition.
    for check in edition["checks"]:
        position = next((i + 1 for i, c in enumerate(out) if c.id == check["after"]), len(out))
        out.insert(position, nbformat.v4.new_code_cell(_check_cell(check, nonce, lib_dir),
                                                        id=f"grader-{check['id']}"))
    graded = nbformat.v4.new_notebook(cells=out)
    graded.metadata = {"kernelspec": {"name": "gm-grader", "display_name": "grader", "language": "python"}}
    return graded


def _prelude():
    # Caps what one cell can print (1 MB), so a student's flood does not fill the grader's memory.
    return (
        "import sys as _gm_sys\n"
        "class _GmCapped:\n"
        "    def __init__(self, stream, limit=1_000_000):\n"
        "        self.stream, self.left = stream, limit\n"
        "    def write(self, text):\n"
        "        if self.left > 0:\n"
        "            self.stream.write(text[: self.left])\n"
        "            if len(text) >= self.left:\n"
        "                self.stream.write('\\n[output cut by the grader]\\n')\n"
        "        self.left -= len(text)\n"
        "        return len(text)\n"
        "    def __getattr__(self, name):\n"
        "        return getattr(self.stream, name)\n"
        "_gm_sys.stdout = _GmCapped(_gm_sys.stdout)\n"
        "_gm_sys.stderr = _GmCapped(_gm_sys.stderr)\n"
        "def _gm_fresh_budget(*_):  # the limit holds per cell\n"
        "    for stream in (_gm_sys.stdout, _gm_sys.stderr):\n"
        "        if isinstance(stream, _GmCapped):\n"
        "            stream.left = 1_000_000\n"
        "get_ipython().events.register('pre_run_cell', _gm_fresh_budget)\n"
    )


def _check_cell(check, nonce, lib_dir):
    """The grader's version of one check cell: a fresh lib, the student's arguments, a token."""
    tree = ast.parse(check["source"])
    call = tree.body[0].value if len(tree.body) == 1 and isinstance(tree.body[0], ast.Expr) else None
    if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute)):
        raise ValueError(f"check cell {check['id']} is not a single call lib.checks.<name>(...)")
    name = call.func.attr
    args = ", ".join([ast.unparse(a) for a in call.args] + [""]) if call.args else ""
    kwargs = ", ".join(f"{k.arg!r}: {ast.unparse(k.value)}" for k in call.keywords)
    return f'''\
def _gm_check():
    import importlib, importlib.util, json, sys, time
    token = {nonce!r}
    name = "_gm_lib_" + token + "_" + str(time.perf_counter_ns())
    spec = importlib.util.spec_from_file_location(
        name, {str(lib_dir / "__init__.py")!r}, submodule_search_locations=[{str(lib_dir)!r}])
    fresh = importlib.util.module_from_spec(spec)
    sys.modules[name] = fresh
    spec.loader.exec_module(fresh)
    checks = importlib.import_module(name + ".checks")
    try:
        args, kwargs = ({args}), {{{kwargs}}}
    except NameError as exc:
        status, message = "failed", (f"{{exc}}: the check could not find your answer; run the cells "
                                     "that define it, and keep its name.")
    else:
        result = getattr(checks, {name!r})(*args, **kwargs)
        if type(result) is not checks.CheckResult:
            status, message = "failed", "the check did not return a result."
        else:
            status, message = result.status, result.message
    print("GMRESULT-" + token + " " + json.dumps({{"status": status, "message": message}}))
_gm_check()
'''


# --------------------------------------------------------------- one run --

def _kernel_spec(folder, memory, file_size):
    """A kernelspec whose kernel process starts under resource limits."""
    spec_dir = Path(folder) / "jupyter" / "kernels" / "gm-grader"
    spec_dir.mkdir(parents=True)
    launcher = (
        "import resource, sys\n"
        "memory, file_size = int(sys.argv.pop(1)), int(sys.argv.pop(1))\n"
        "resource.setrlimit(resource.RLIMIT_AS, (memory, memory))\n"
        "resource.setrlimit(resource.RLIMIT_FSIZE, (file_size, file_size))\n"
        "resource.setrlimit(resource.RLIMIT_CORE, (0, 0))\n"
        "from ipykernel import kernelapp\n"
        "kernelapp.launch_new_instance()\n"
    )
    (spec_dir / "kernel.json").write_text(json.dumps({
        "argv": [sys.executable, "-c", launcher, str(memory), str(file_size), "-f", "{connection_file}",
                 "--HistoryManager.enabled=False"],
        "display_name": "grader", "language": "python",
    }))
    return spec_dir.parent.parent


def run_one(submission, page_expected, editions_dir, limits, work=None):
    """Grade one submission in this process (called in a subprocess by the grader). Returns a result dict."""
    import nbformat
    from nbclient import NotebookClient
    from nbclient.exceptions import DeadKernelError

    import lib

    editions = load_editions(editions_dir)
    result = {"student": Path(submission).stem, "page": None, "exercises": [], "notes": []}
    try:
        nb = nbformat.reads(Path(submission).read_text(), as_version=4)
        nbformat.validate(nb)
    except Exception as exc:  # noqa: BLE001 - any unreadable file is reported the same way
        result["notes"].append(f"The file could not be read as a notebook ({type(exc).__name__}): "
                               "hand in the .ipynb file that Jupyter or Colab saved. Grade 0.")
        return result
    page, problem = identify(nb, editions, page_expected)
    result["page"] = page
    edition = editions.get(page)
    if edition is not None:
        result["exercises"] = [{"exercise": c["exercise"], "points": c["points"], "status": "not run",
                                "message": ""} for c in edition["checks"]]
    if problem:
        result["notes"].append(problem + " Grade 0.")
        for ex in result["exercises"]:
            ex["message"] = "not graded: see the note above."
        return result

    nonce = secrets.token_hex(16)
    lib_dir = Path(lib.__file__).resolve().parent
    work = Path(work or tempfile.mkdtemp(prefix="gm-grade-"))
    try:
        graded = graded_notebook(nb, edition, nonce, lib_dir)
        jupyter_path = _kernel_spec(work / ".grader", limits["memory"], limits["file_size"])
        run_dir = work / "run"
        run_dir.mkdir()
        (run_dir / "submission.ipynb").write_text(nbformat.writes(nb))  # its own copy, nothing else
        # The kernel inherits this environment: keep only what Python and BLAS need, so that
        # nothing (a path to the submissions, say) leaks to the student's code.
        keep = {k: v for k, v in os.environ.items()
                if k in ("PATH", "LANG", "LC_ALL", "TZ", "VIRTUAL_ENV") or k.startswith("OPENBLAS_CORETYPE")
                or k == "OPENBLAS_L2_SIZE"}
        os.environ.clear()
        os.environ.update(keep)
        os.environ.update({"JUPYTER_PATH": str(jupyter_path), "HOME": str(run_dir), "TMPDIR": str(run_dir),
                           "MPLBACKEND": "Agg", "OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1",
                           "MKL_NUM_THREADS": "1", "PYTHONHASHSEED": "0"})
        started, seconds = {}, {}  # cell id -> duration: a KeyboardInterrupt at the limit is a time-out

        def on_start(cell, cell_index):
            started[cell.id] = time.monotonic()

        def on_executed(cell, cell_index, execute_reply):
            seconds[cell.id] = time.monotonic() - started.get(cell.id, time.monotonic())
            if not cell.id.startswith("grader-"):
                cell.outputs = [o for o in cell.outputs if o.get("output_type") == "error"]  # keep memory low

        client = NotebookClient(graded, timeout=limits["cell_timeout"], kernel_name="gm-grader",
                                allow_errors=True, interrupt_on_timeout=True, record_timing=False,
                                resources={"metadata": {"path": str(run_dir)}},
                                on_cell_start=on_start, on_cell_executed=on_executed)
        limits = {**limits, "seconds": seconds}
        died = None
        try:
            client.execute()
        except DeadKernelError:
            died = "the kernel stopped"
        except Exception as exc:  # noqa: BLE001 - e.g. a timeout nbclient could not interrupt
            died = f"the run stopped ({type(exc).__name__})"
        _read_results(graded, nonce, result, edition, limits, died)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return result


def _cell_error(cell, limits=None):
    for out in cell.get("outputs", []):
        if out.get("output_type") == "error":
            name = out.get("ename", "Error")
            timed_out = limits and limits.get("seconds", {}).get(cell.id, 0) >= limits["cell_timeout"] - 0.5
            if name == "KeyboardInterrupt" and timed_out:  # nbclient interrupted the cell at its limit
                return "CellTimeoutError", f"no result within {limits['cell_timeout']} s"
            return name, out.get("evalue", "")
    return None


def _read_results(graded, nonce, result, edition, limits, died):
    by_id = {c.id: c for c in graded.cells}
    marker = re.compile(r"^GMRESULT-" + nonce + r" (\{.*\})$", re.M)
    first_error = None
    result["errors"] = []  # every cell of the student's that raised: (id, tags, exception name)
    for cell in graded.cells:
        if cell.id.startswith("grader-"):
            continue
        error = _cell_error(cell, limits)
        if error:
            result["errors"].append([cell.id, cell.metadata.get("tags", []), error[0]])
            first_error = first_error or (cell.id, error)
    for ex, check in zip(result["exercises"], edition["checks"]):
        cell = by_id[f"grader-{check['id']}"]
        text = "".join(o.get("text", "") for o in cell.get("outputs", []) if o.get("output_type") == "stream")
        found = marker.search(text)
        error = _cell_error(cell, limits)
        if found:
            ex.update(json.loads(found.group(1)))
        elif error and error[0] == "CellTimeoutError":
            ex.update(status="failed", message=f"the check did not finish within {limits['cell_timeout']} s: "
                                               "does your code loop forever?")
        elif error:
            ex.update(status="failed", message=f"the check stopped with {error[0]}: {error[1]}".strip())
        elif not cell.get("outputs") and died:
            ex.update(status="not run", message=f"not run: {died} before this check (see the note).")
        else:
            ex.update(status="failed", message="the check printed no result: something in the notebook "
                                               "replaced Python's output or the check's machinery.")
    if died:
        result["notes"].append(f"{died.capitalize()} before the end of the notebook (a call to os._exit, "
                               f"memory beyond {limits['memory'] / 2**30:.3g} GiB, or a crash). The checks "
                               "after that point were not run and get 0.")
    if first_error:
        cell_id, (name, value) = first_error
        result["notes"].append(f"A cell of yours (id {cell_id}) raised {name}: {value}. Cells after it still "
                               "ran; fix it so that the notebook runs top to bottom.")


# ---------------------------------------------------------------- reports --

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
    with open(out / "grades.csv", "w", newline="") as fh:
        writer = csv.writer(fh)
        writer.writerow(["student", "chapter", *labels, "total", "max"])
        for r in sorted(results, key=lambda r: r["student"]):
            earned = {ex["exercise"]: (ex["points"] if ex["status"] == "passed" else 0) for ex in r["exercises"]}
            total, top = score(r)
            writer.writerow([r["student"], r["page"] or "", *[earned.get(lab, "") for lab in labels],
                             f"{total:g}", f"{top:g}"])


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


def _grade_in_subprocess(submission, args, limits, results_dir):
    """Run one submission in its own process group; kill it at the notebook time limit."""
    target = results_dir / f"{submission.stem}.json"
    # The working folder belongs to this process: it is removed even when the run is killed.
    work = tempfile.mkdtemp(prefix="gm-grade-")
    cmd = [sys.executable, str(Path(__file__).resolve()), "_one", str(submission), str(target), "--work", work,
           "--editions", str(args.editions), "--cell-timeout", str(limits["cell_timeout"]),
           "--memory", str(limits["memory"]), "--file-size", str(limits["file_size"])]
    if args.chapter:
        cmd += ["--chapter", args.chapter]
    proc = subprocess.Popen(cmd, start_new_session=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                            cwd=tempfile.gettempdir())
    try:
        _, err = proc.communicate(timeout=limits["notebook_timeout"])
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        err = b""
        result = {"student": submission.stem, "page": None, "exercises": [], "notes": [
            f"The notebook did not finish within {limits['notebook_timeout']} s in all and was stopped. Grade 0 "
            "for the checks that had not reported."]}
        target.write_text(json.dumps(result))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    if not target.exists():
        result = {"student": submission.stem, "page": None, "exercises": [], "notes": [
            "The grader could not run this notebook (its process failed). Grade 0; "
            f"the instructor can see why: {err.decode(errors='replace')[-300:].strip()}"]}
        target.write_text(json.dumps(result))
    return json.loads(target.read_text())


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if argv and argv[0] == "_one":  # internal: grade one notebook in this process
        p = argparse.ArgumentParser()
        p.add_argument("submission")
        p.add_argument("target")
        p.add_argument("--editions", type=Path, default=EDITIONS)
        p.add_argument("--chapter")
        p.add_argument("--cell-timeout", type=int)
        p.add_argument("--memory", type=int)
        p.add_argument("--file-size", type=int)
        p.add_argument("--work")
        a = p.parse_args(argv[1:])
        limits = {"cell_timeout": a.cell_timeout, "memory": a.memory, "file_size": a.file_size}
        result = run_one(a.submission, a.chapter, a.editions, limits, a.work)
        Path(a.target).write_text(json.dumps(result))
        return 0

    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("submissions", type=Path, help="folder of .ipynb files, one per student")
    parser.add_argument("--out", type=Path, default=Path("grades"), help="output folder (default: grades)")
    parser.add_argument("-j", "--jobs", type=int, default=os.cpu_count() or 1,
                        help="submissions graded in parallel (default: the number of cores)")
    parser.add_argument("--chapter", help="the page every submission must be, e.g. 04_em_gaussian_mixtures")
    parser.add_argument("--force", action="store_true", help="grade again submissions already graded")
    parser.add_argument("--cell-timeout", type=int, default=DEFAULTS["cell_timeout"],
                        help="seconds per cell (default 60)")
    parser.add_argument("--notebook-timeout", type=int, default=DEFAULTS["notebook_timeout"],
                        help="seconds per notebook (default 600)")
    parser.add_argument("--memory", type=parse_size, default=parse_size(DEFAULTS["memory"]),
                        help="memory cap of a student's kernel (default 2GiB)")
    parser.add_argument("--file-size", type=parse_size, default=parse_size(DEFAULTS["file_size"]),
                        help="largest file a student's kernel may write (default 100MiB)")
    parser.add_argument("--editions", type=Path, default=EDITIONS, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if not args.submissions.is_dir():
        parser.error(f"{args.submissions} is not a folder")
    limits = {"cell_timeout": args.cell_timeout, "notebook_timeout": args.notebook_timeout,
              "memory": args.memory, "file_size": args.file_size}
    editions = load_editions(args.editions)
    submissions = sorted(p for p in args.submissions.glob("*.ipynb") if p.is_file())
    results_dir, feedback_dir = args.out / "results", args.out / "feedback"
    results_dir.mkdir(parents=True, exist_ok=True)
    feedback_dir.mkdir(parents=True, exist_ok=True)
    todo = [s for s in submissions if args.force or not (results_dir / f"{s.stem}.json").exists()]
    skipped = len(submissions) - len(todo)
    if skipped:
        print(f"{skipped} submission(s) already graded: skipped (use --force to grade them again)")
    start, done = time.monotonic(), 0
    _progress(0, len(todo), start)
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        futures = [pool.submit(_grade_in_subprocess, s, args, limits, results_dir) for s in todo]
        for future in concurrent.futures.as_completed(futures):
            result = future.result()
            (feedback_dir / f"{result['student']}.md").write_text(feedback(result))
            done += 1
            _progress(done, len(todo), start)
    sys.stderr.write("\n")
    results = [json.loads((results_dir / f"{s.stem}.json").read_text()) for s in submissions]
    for r in results:
        if not (feedback_dir / f"{r['student']}.md").exists():
            (feedback_dir / f"{r['student']}.md").write_text(feedback(r))
    write_grades(results, editions, args.out)
    print(f"{len(results)} submission(s) in {args.out / 'grades.csv'}; feedback in {feedback_dir}"
          f" ({time.monotonic() - start:.0f} s)")
    print(summary(results))
    return 0


if __name__ == "__main__":
    sys.exit(main())
