"""Run every student notebook top to bottom as Colab gets it: the oldest supported
stack, a fresh folder, and the set-up cell installing the wheel that ``make dist`` built.

``make test-wheel`` (part of ``make test``; ``make test-oldest`` is the same) builds
the wheel (``make dist``), keeps ``.venv-oldest`` with the stack of
``requirements-oldest.txt`` (the oldest numpy, scipy, scikit-learn and matplotlib the
README supports, a stack like Colab's, with the ``dask`` extra's packages installed as
on Colab's image) and *without* ``lib``, and then runs this script with that
environment's Python::

    .venv-oldest/bin/python tools/oldest.py --wheel-dir dist [student/NN_name.ipynb ...]

The built wheel is put in the layout the Pages deploy publishes (``tools/site_wheel.py``)
and served on 127.0.0.1 for the whole run: a copy of the book's site.  For each notebook
it uninstalls ``genmodels-lib``, checks that no ``lib`` is importable, copies the notebook
into a new folder outside the checkout with its set-up cell's site address replaced by
that server's (nothing else changes), and runs it there with no package index
(``PIP_NO_INDEX``, pip's configuration files ignored, ``PIP_ONLY_BINARY``, the stack's pins
as ``PIP_CONSTRAINT``): the page's own set-up cell installs ``genmodels-lib==<version>``
(04_4's with its ``dask`` extra) from the site's wheel, as it does on Colab while PyPI has
no release.  Afterwards it checks that the wheel was downloaded from that server and that
``lib`` was installed from it (the version of ``pyproject.toml``, a regular install in the
venv's site-packages, not the checkout).

What runs is the *student edition* (``student/*.ipynb``), the notebook that Colab and
Binder open: no solutions, the set-up cell first.  A starter cell (tag ``starter``) is
allowed to raise, since it is the student's unfinished function; every other cell must
run.  In particular a cell that needs a name only a hidden solution defines fails
here, as it would for a student.

The script prints one line per notebook and, for a failure, the cell and the last line
of the error; it exits with 1 if any notebook failed, and also if the stack it ran on
is not the one ``requirements-oldest.txt`` pins.
"""

import argparse
import json
import os
import re
import subprocess
import sys
import sysconfig
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))

import site_wheel  # noqa: E402  (tools/site_wheel.py)

STUDENT = ROOT / "student"
PINS = ROOT / "requirements-oldest.txt"
CHECKED = ("numpy", "scipy", "scikit-learn", "matplotlib")
DIST = "genmodels-lib"
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


def lib_version():
    text = (ROOT / "pyproject.toml").read_text()
    return re.search(r'^version\s*=\s*"([^"]+)"', text, re.M).group(1)


def pip_env():
    """pip, as the set-up cells call it, has no index and no configuration: it sees the wheel on the
    site the cell names (``--find-links``) and nothing else."""
    return {"PIP_NO_INDEX": "1", "PIP_FIND_LINKS": "", "PIP_CONFIG_FILE": os.devnull, "PIP_ONLY_BINARY": ":all:",
            "PIP_CONSTRAINT": str(PINS), "PIP_DISABLE_PIP_VERSION_CHECK": "1", "PIP_RETRIES": "0"}


def copy_for_site(path, target, url):
    """Copy the notebook ``path`` to ``target`` with its set-up cell naming the site at ``url``."""
    import nbformat

    from site_wheel import local_cell

    nb = nbformat.read(path, as_version=4)
    cell = next(c for c in nb.cells if c.cell_type == "code")
    cell.source = local_cell(cell.source, url)
    nbformat.write(nb, target)


def _python(code, cwd):
    """Run ``code`` in a fresh interpreter of this environment, from ``cwd`` (no PYTHONPATH)."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    return subprocess.run([sys.executable, "-c", code], cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=300)


def remove_lib(folder):
    """Uninstall genmodels-lib; return a problem if some ``lib`` is still importable from ``folder``."""
    subprocess.run([sys.executable, "-m", "pip", "uninstall", "--yes", "--quiet", DIST], capture_output=True,
                   timeout=300)
    out = _python("import importlib.util; print(importlib.util.find_spec('lib'))", folder)
    if out.stdout.strip() != "None":
        return f"a lib is importable before the set-up cell ran: {out.stdout.strip() or out.stderr.strip()}"
    return None


def installed_from_wheel(folder):
    """A problem, or None when ``lib`` is genmodels-lib of pyproject's version installed from a wheel."""
    out = _python("import json, lib, importlib.metadata as m; d = m.distribution('genmodels-lib'); "
                  "print(json.dumps([d.version, lib.__file__, d.read_text('direct_url.json'), "
                  "d.read_text('INSTALLER')]))", folder)
    if out.returncode:
        return f"lib is not importable after the set-up cell: {out.stderr.strip().splitlines()[-1:]}"
    version, where, direct_url, installer = json.loads(out.stdout)
    site = Path(sysconfig.get_paths()["purelib"]).resolve()
    if version != lib_version():
        return f"genmodels-lib {version} is installed, pyproject.toml says {lib_version()}"
    if direct_url is not None or (installer or "").strip() != "pip":
        return f"genmodels-lib was not installed by pip from the wheel (direct_url.json: {direct_url})"
    if Path(where).resolve() != site / "lib" / "__init__.py":
        return f"lib was imported from {where}, not from this environment's {site}"
    return None


def run_as_colab(path, timeout, site):
    """Run ``path`` the way a student gets it, with ``site`` = (url, requests) the served copy of the
    book's site; return None or (cell index or None, problem)."""
    url, requests = site
    with tempfile.TemporaryDirectory(prefix="colab-") as folder:
        folder = Path(folder).resolve()
        if folder.is_relative_to(ROOT):
            return None, f"{folder} is inside the checkout"
        problem = remove_lib(folder)
        if problem:
            return None, problem
        copy = folder / path.name
        copy_for_site(path, copy, url)
        asked = len(requests)
        saved = dict(os.environ)
        os.environ.update(pip_env())
        os.environ.pop("PYTHONPATH", None)
        try:
            result = run_with_retry(copy, timeout)
        finally:
            os.environ.clear()
            os.environ.update(saved)
        if result is not None:
            return result
        wheel = f"/wheels/genmodels_lib-{lib_version()}-py3-none-any.whl"
        if wheel not in requests[asked:]:
            return None, f"the set-up cell did not download {wheel} from the site (it asked for {requests[asked:]})"
        problem = installed_from_wheel(folder)
        return None if problem is None else (None, problem)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("notebooks", nargs="*", type=Path, help="student notebooks (default: all)")
    parser.add_argument("--timeout", type=int, default=900, help="seconds per cell (default 900)")
    parser.add_argument("--wheel-dir", type=Path, required=True,
                        help="the folder holding the built wheel of genmodels-lib (make dist: dist/)")
    args = parser.parse_args(argv)
    wheels = sorted(args.wheel_dir.resolve().glob(f"genmodels_lib-{lib_version()}-py3-none-any.whl"))
    if not wheels:
        parser.error(f"{args.wheel_dir} has no genmodels_lib-{lib_version()}-py3-none-any.whl: run `make dist`")
    os.environ.setdefault("MPLBACKEND", "module://matplotlib_inline.backend_inline")
    notebooks = [p.resolve() for p in args.notebooks] or sorted(STUDENT.glob("*.ipynb"))
    print(f"Python {sys.version.split()[0]}; "
          + ", ".join(f"{k} {v}" for k, v in installed_versions().items()))
    failures = []
    with tempfile.TemporaryDirectory(prefix="book-site-") as site_dir, site_wheel.serve(site_dir) as site:
        site_wheel.write(wheels, site_dir)
        for path in notebooks:
            start = time.perf_counter()
            problem = run_as_colab(path, args.timeout, site)
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
