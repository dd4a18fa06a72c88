"""Run every student notebook top to bottom on the oldest supported stack.

``make test-oldest`` builds ``.venv-oldest`` from ``requirements-oldest.txt``
(the oldest numpy, scipy, scikit-learn and matplotlib the README supports, a
stack like Colab's), installs ``lib`` from the working tree the way a page's
set-up cell installs it (a regular, non-editable install with its declared
dependencies, no extras), and then runs this script with that environment's
Python::

    .venv-oldest/bin/python tools/oldest.py [student/NN_name.ipynb ...]

What runs is the *student edition* (``student/*.ipynb``), the notebook that
Colab and Binder open: no solutions, the set-up cell first.  A starter cell
(tag ``starter``) is allowed to raise, since it is the student's unfinished
function; every other cell must run.  In particular a cell that needs a name
only a hidden solution defines fails here, as it would for a student.  A
page's set-up cell runs too: where the page needs an extra of ``lib`` (04_4
imports dask) it installs it into ``.venv-oldest`` under the same
constraints, so the oldest numpy, scipy, scikit-learn and matplotlib stay in
place (``PIP_CONSTRAINT``, set by the make target).

The script prints one line per notebook and, for a failure, the cell and the
last line of the error; it exits with 1 if any notebook failed, and also if
the stack it ran on is not the one ``requirements-oldest.txt`` pins.
"""

import argparse
import os
import re
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
STUDENT = ROOT / "student"
PINS = ROOT / "requirements-oldest.txt"
CHECKED = ("numpy", "scipy", "scikit-learn", "matplotlib")
ANSI = re.compile(r"\x1b\[[0-9;]*m")


def pinned_versions():
    pins = {}
    for line in PINS.read_text().splitlines():
        match = re.match(r"^([A-Za-z0-9_.-]+)==([^\s#]+)", line)
        if match:
            pins[match.group(1).lower()] = match.group(2)
    return pins


def installed_versions():
    from importlib.metadata import version

    return {name: version(name) for name in CHECKED}


def stack_problems():
    pins, have = pinned_versions(), installed_versions()
    return [f"{name} {have[name]} is installed, {PINS.name} pins {pins.get(name)}"
            for name in CHECKED if pins.get(name) != have[name]]


def run_notebook(path, timeout):
    """Execute the student notebook ``path``; return None or (cell index, error summary)."""
    import nbformat
    from nbclient import NotebookClient
    from nbclient.exceptions import CellExecutionError

    nb = nbformat.read(path, as_version=4)
    for cell in nb.cells:
        tags = cell.get("metadata", {}).get("tags", [])
        if cell.cell_type == "code" and "starter" in tags:
            cell.metadata["tags"] = list(tags) + ["raises-exception"]
    client = NotebookClient(nb, timeout=timeout, kernel_name="python3",
                            resources={"metadata": {"path": str(path.parent)}})
    try:
        client.execute()
    except CellExecutionError as error:
        index = next((i for i, c in enumerate(nb.cells) if c.cell_type == "code"
                      and any(o.get("output_type") == "error" for o in c.get("outputs", []))), None)
        lines = [line for line in ANSI.sub("", str(error)).strip().splitlines() if line.strip()]
        return index, lines[-1] if lines else type(error).__name__
    except Exception as error:  # a timeout, or a kernel that did not start or died
        return None, f"{type(error).__name__}: {error}".strip()
    return None


def run_with_retry(path, timeout):
    """``run_notebook``, once more when the kernel itself failed (not a cell): on a
    loaded machine a kernel start can fail for reasons that have nothing to do with
    the notebook."""
    problem = run_notebook(path, timeout)
    if problem is not None and problem[0] is None:
        print(f"retry {path.name}: {problem[1]}", flush=True)
        problem = run_notebook(path, timeout)
    return problem


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("notebooks", nargs="*", type=Path, help="student notebooks (default: all)")
    parser.add_argument("--timeout", type=int, default=900, help="seconds per cell (default 900)")
    args = parser.parse_args(argv)
    os.environ.setdefault("MPLBACKEND", "module://matplotlib_inline.backend_inline")
    notebooks = [p.resolve() for p in args.notebooks] or sorted(STUDENT.glob("*.ipynb"))
    print(f"Python {sys.version.split()[0]}; "
          + ", ".join(f"{k} {v}" for k, v in installed_versions().items()))
    failures = []
    for path in notebooks:
        start = time.perf_counter()
        problem = run_with_retry(path, args.timeout)
        seconds = time.perf_counter() - start
        if problem is None:
            print(f"ok    {path.name} ({seconds:.0f} s)", flush=True)
        else:
            index, summary = problem
            where = f"cell {index}" if index is not None else "run"
            print(f"FAIL  {path.name} ({seconds:.0f} s): {where}: {summary}", flush=True)
            failures.append(path.name)
    drift = stack_problems()
    for line in drift:
        print(f"STACK {line}")
    print(f"{len(notebooks) - len(failures)} of {len(notebooks)} notebooks ran top to bottom"
          + (f"; failed: {', '.join(failures)}" if failures else ""))
    return 1 if failures or drift else 0


if __name__ == "__main__":
    sys.exit(main())
