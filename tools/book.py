"""Build tools for the book's notebooks.

    python tools/book.py execute [--all] [chapters/NN_name.md ...]
    python tools/book.py check-sync
    python tools/book.py bootstrap [--fix]

``execute`` turns each MyST Markdown chapter (the source) into its executed
notebook ``chapters/NN_name.ipynb``: one BLAS/OpenMP thread, stable cell ids,
no timestamps or timing metadata, so that re-executing an unchanged chapter
rewrites no byte.  Without ``--all`` it executes only chapters whose notebook
is missing or no longer matches its source.

``check-sync`` lists every chapter whose notebook does not match its source
(exit status 1 if any), naming the file.

``bootstrap`` checks that every chapter's first code cell is the Colab/Binder
set-up cell built from ``pyproject.toml`` (version, and the extras a page
needs: those whose packages the page imports) and ``_config.yml`` (the book's
site, where the Pages deploy puts the wheel), and that ``binder/requirements.txt``
installs the repository's own ``lib`` (``-e .[dask]``); ``--fix`` rewrites them
(the cell in the source, the executed notebook and the student edition alike).
"""

import argparse
import json
import os
import re
import sys
import textwrap
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CHAPTERS = ROOT / "chapters"

# One thread for every numeric library, set before any kernel starts: printed
# results must not depend on how a BLAS splits its sums.
THREAD_VARS = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "BLIS_NUM_THREADS", "VECLIB_MAXIMUM_THREADS", "NUMEXPR_NUM_THREADS")


def pin_threads(n=1):
    for var in THREAD_VARS:
        os.environ.setdefault(var, str(n))
    os.environ.setdefault("PYTHONHASHSEED", "0")
    os.environ.setdefault("MPLBACKEND", "module://matplotlib_inline.backend_inline")


# ---------------------------------------------------------------- settings --

def repository_url():
    """The repository URL, read from its one home in ``_config.yml``."""
    text = (ROOT / "_config.yml").read_text()
    match = re.search(r"^repository:\s*\n(?:[ \t]+.*\n)*?[ \t]+url:\s*(\S+)", text, re.M)
    if not match:
        raise SystemExit("_config.yml has no repository: url: entry")
    return match.group(1).rstrip("/")


def pages_url():
    """The book's published address: GitHub Pages of the repository that ``_config.yml`` names
    (``https://<owner>.github.io/<repo>``; a repository named ``<owner>.github.io`` is served at the root)."""
    owner, repo = re.match(r"https?://github\.com/([^/]+)/([^/#?]+?)(?:\.git)?$", repository_url()).groups()
    site = f"https://{owner.lower()}.github.io"
    return site if repo.lower() == f"{owner.lower()}.github.io" else f"{site}/{repo}"


def wheels_url():
    """Where the published book carries ``lib``'s wheel (``tools/site_wheel.py`` writes it there):
    the folder ``wheels/`` of :func:`pages_url`, a page of links that ``pip --find-links`` reads."""
    return f"{pages_url()}/wheels/"


def repository_branch():
    text = (ROOT / "_config.yml").read_text()
    match = re.search(r"^repository:\s*\n(?:[ \t]+.*\n)*?[ \t]+branch:\s*(\S+)", text, re.M)
    return match.group(1) if match else "main"


def lib_version():
    """The version of ``lib`` declared in ``pyproject.toml``."""
    text = (ROOT / "pyproject.toml").read_text()
    match = re.search(r'^version\s*=\s*"([^"]+)"', text, re.M)
    if not match:
        raise SystemExit("pyproject.toml has no version")
    return match.group(1)


def optional_dependencies():
    """``{extra: [requirement, ...]}`` from ``[project.optional-dependencies]`` of ``pyproject.toml``."""
    try:
        import tomllib
    except ImportError:  # Python 3.10: one extra per line, its list on that line
        text = (ROOT / "pyproject.toml").read_text()
        section = re.search(r"^\[project\.optional-dependencies\]\s*\n(.*?)(?=^\[|\Z)", text, re.M | re.S)
        lines = re.finditer(r"^(\w[\w-]*)\s*=\s*\[(.*)\]\s*$", section.group(1) if section else "", re.M)
        return {m.group(1): re.findall(r'"([^"]+)"', m.group(2)) for m in lines}
    with open(ROOT / "pyproject.toml", "rb") as f:
        return dict(tomllib.load(f)["project"].get("optional-dependencies", {}))


def requirement_module(requirement):
    """The import name of a requirement string: ``"dask[array]>=2024.1"`` -> ``"dask"``."""
    return re.match(r"[A-Za-z0-9_.-]+", requirement).group(0).lower().replace("-", "_")


def page_imports(md):
    """Top-level names of the modules that the code cells of ``md`` import (answers included)."""
    import ast

    names = set()
    for cell in read_source(md).cells:
        if cell.cell_type != "code":
            continue
        code = "\n".join(line for line in cell.source.splitlines() if not line.lstrip().startswith(("%", "!")))
        for node in ast.walk(ast.parse(code)):
            if isinstance(node, ast.Import):
                names.update(alias.name.split(".")[0] for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                names.add(node.module.split(".")[0])
    return names


def page_extras(md):
    """The extras of ``lib`` that page ``md`` needs: those with a requirement the page imports."""
    if md is None:
        return {}
    imported = page_imports(md)
    return {extra: reqs for extra, reqs in optional_dependencies().items()
            if any(requirement_module(r) in imported for r in reqs)}


def bootstrap_source(md=None):
    """The first code cell of chapter ``md``: install ``lib`` where it is missing.

    On Colab (and anywhere ``lib`` is not installed) it installs the release of
    ``lib`` this book version was written for, ``genmodels-lib==<version of
    pyproject.toml>``, with ``--find-links`` the ``wheels/`` folder of the book's
    site (:func:`wheels_url`, derived from ``_config.yml``; the Pages deploy
    puts the wheel there, ``tools/site_wheel.py``).  pip then takes PyPI's
    release when PyPI has that version and the site's wheel otherwise (measured,
    guide/maintainer/publishing.md, "Publishing": of two equal versions pip takes the index's, and
    ``tests/test_site_wheel.py`` runs this cell against an empty index and a
    local copy of the site), so a fork's notebooks work on the day its site is
    published, with no PyPI release.  A wheel, so no git and no clone of the
    book; where ``lib`` imports the cell does nothing.  ``lib`` is a generic
    top-level name: where another project's ``lib`` is importable (one without
    ``lib.gaussian``), or another distribution has installed files under
    ``lib/`` (its metadata says so), the cell stops with an ``ImportError``
    that names it rather than install over it (guide/maintainer/publishing.md, "Releasing").  A page that imports an
    optional dependency of ``lib`` (an extra of ``pyproject.toml``, such as
    ``dask``) installs ``lib`` with that extra, and where ``lib`` is present but
    the extra's modules are not, installs the extra's requirements alone (so a
    local ``pip install -e .`` is kept).  Without ``md``, or for a page that
    needs no extra, the cell is the plain one.
    """
    extras = page_extras(md)
    names = ",".join(sorted(extras))
    release = f"genmodels-lib{f'[{names}]' if extras else ''}=={lib_version()}"
    what = f"with its `{names}` extra, or the extra's packages alone, where they are" if extras else "where it is"
    intro = (f"Set-up for Colab and Binder: install the companion library `lib` {what} missing "
             f"(genmodels-lib {lib_version()}, the release this page was written for: PyPI's, or else "
             "the wheel on the book's site); elsewhere do nothing. Another project's `lib` stops it here.")
    # Every line within the 88 characters that chapter code keeps to (ruff E501).
    head = (
        textwrap.fill(intro, width=88, initial_indent="# ", subsequent_indent="# ",
                      break_long_words=False, break_on_hyphens=False) + "\n"
        + "import importlib.metadata, importlib.util, subprocess, sys\n"
        "spec = importlib.util.find_spec\n"
        "try:  # a `lib` without lib.gaussian belongs to another project\n"
        '    other = spec("lib") is not None and spec("lib.gaussian") is None\n'
        "except Exception:  # a module `lib` that is not a package, or fails to import\n"
        "    other = True\n"
        'owners = importlib.metadata.packages_distributions().get("lib", [])\n'
        'owners = sorted(set(owners) - {"genmodels-lib"})  # what else installed a `lib`\n'
        "if other or owners:\n"
        "    raise ImportError(\n"
        '        "Another package named `lib` is importable here"\n'
        "        + (f\" (installed by {', '.join(owners)})\" if owners else \"\")\n"
        '        + "; this book\'s library is imported as `lib` too, and installing it "\n'
        '        "would overwrite that package. Run this notebook in a fresh runtime "\n'
        '        "(or virtual environment), or uninstall the other package first.")\n'
        "# pip takes PyPI's release where it exists, else the wheel on the book's site\n"
        f'book_site = "{wheels_url()}"\n'
    )
    # pip says why it failed; the error under it says what a student can do about it
    tail = (
        "if need:\n"
        '    pip = [sys.executable, "-m", "pip", "install", "-q", *need]\n'
        '    if subprocess.run([*pip, "--find-links", book_site]).returncode:\n'
        "        raise RuntimeError(\n"
        "            f\"pip could not install {' '.join(need)} (its message is above). \"\n"
        '            "If it found no such version, neither PyPI nor this book\'s site "\n'
        '            f"({book_site}) has it yet: tell whoever handed the notebook out. "\n'
        '            "Otherwise check that this runtime can reach the internet.")'
    )
    if not extras:
        return head + (
            "need = []\n"
            'if spec("lib") is None:\n'
            f'    need.append("{release}")\n'
        ) + tail
    requirements = [r for extra in sorted(extras) for r in extras[extra]]
    modules = sorted({requirement_module(r) for r in requirements})
    module_test = " or ".join(f'spec("{m}") is None' for m in modules)
    return head + (
        "need = []\n"
        'if spec("lib") is None:\n'
        f'    need.append("{release}")\n'
        f"elif {module_test}:\n"
        f"    need += {json.dumps(requirements)}\n"
    ) + tail


# ---------------------------------------------------------------- notebooks --

def chapter_sources():
    """Every MyST-notebook source under chapters/ (files with a jupytext header)."""
    return sorted(p for p in CHAPTERS.glob("*.md") if "jupytext:" in p.read_text()[:400])


def notebook_path(md):
    return Path(md).with_suffix(".ipynb")


def read_source(md):
    """Parse a MyST chapter into a notebook with stable ids and metadata."""
    import jupytext

    nb = jupytext.read(md, fmt="md:myst")
    for i, cell in enumerate(nb.cells):
        cell["id"] = f"cell-{i:03d}"
    nb.metadata = {
        "kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"},
        "language_info": {"name": "python"},
        "jupytext": {"formats": "md:myst", "text_representation": {"extension": ".md", "format_name": "myst"}},
    }
    return nb


def _structure(nb):
    """What must agree between a source and its notebook: cell kinds, text, metadata."""
    out = []
    for cell in nb.cells:
        meta = {k: v for k, v in cell.get("metadata", {}).items() if k not in ("execution", "collapsed", "scrolled")}
        out.append((cell["cell_type"], cell["source"].strip(), repr(sorted(meta.items()))))
    return out


def sync_problem(md):
    """``None`` when ``md``'s notebook matches it, else a sentence saying what differs."""
    import nbformat

    ipynb = notebook_path(md)
    rel = ipynb.relative_to(ROOT)
    if not ipynb.exists():
        return f"{rel} is missing: run `make notebooks` and commit it."
    want = _structure(read_source(md))
    have = _structure(nbformat.read(ipynb, as_version=4))
    if want == have:
        return None
    if len(want) != len(have):
        return (f"{rel} has {len(have)} cells but {md.relative_to(ROOT)} has {len(want)}: "
                "the source changed without `make notebooks`.")
    for i, (w, h) in enumerate(zip(want, have)):
        if w != h:
            return (f"{rel} cell {i} ({h[0]}) differs from {md.relative_to(ROOT)}: "
                    "the source changed without `make notebooks`.")
    return f"{rel} differs from its source."


def _merge_streams(outputs):
    """Join consecutive stdout (or stderr) chunks into one output.

    The kernel flushes a stream whenever its buffer timer fires, so the same
    printed text can arrive in a different number of pieces from run to run.
    """
    merged = []
    for out in outputs:
        prev = merged[-1] if merged else None
        if (out.get("output_type") == "stream" and prev is not None
                and prev.get("output_type") == "stream" and prev.get("name") == out.get("name")):
            prev["text"] = prev["text"] + out["text"]
        else:
            merged.append(out)
    return merged


def _clean_outputs(nb):
    for cell in nb.cells:
        cell.metadata.pop("execution", None)
        if cell.cell_type == "code":
            cell.outputs = _merge_streams(cell.get("outputs", []))
            for out in cell.outputs:
                out.get("metadata", {}).pop("execution", None)
    nb.metadata["language_info"] = {"name": "python"}
    nb.metadata.pop("widgets", None)
    return nb


def execute(md, timeout=600):
    """Execute ``md`` and write its notebook; return (seconds, changed)."""
    import nbformat
    from nbclient import NotebookClient

    pin_threads(1)
    nb = read_source(md)
    start = time.perf_counter()
    client = NotebookClient(
        nb,
        timeout=timeout,
        kernel_name="python3",
        resources={"metadata": {"path": str(CHAPTERS)}},
        record_timing=False,
    )
    client.execute()
    seconds = time.perf_counter() - start
    _clean_outputs(nb)
    text = nbformat.writes(nb) + "\n"
    target = notebook_path(md)
    changed = not target.exists() or target.read_text() != text
    if changed:
        target.write_text(text)
    return seconds, changed


# ---------------------------------------------------------------- builders --

def run_custom_builder(name):
    """Run the Sphinx builder ``name`` (``_ext/``: ``student``, ``slides``) on the HTML build's
    doctrees (``_build/.doctrees``; sources it has not read are read first) into ``_build/<name>``.

    Returns the build's output lines that are warnings or errors; a failed build is a SystemExit.
    """
    import subprocess

    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
    proc = subprocess.run([str(Path(sys.executable).parent / "jupyter-book"), "build", str(ROOT), "--builder",
                           "custom", "--custom-builder", name], cwd=ROOT, env=env, capture_output=True, text=True)
    if proc.returncode:
        raise SystemExit(proc.stdout[-4000:] + proc.stderr[-4000:] + f"\nthe {name} builder failed")
    return [line for line in (proc.stdout + proc.stderr).splitlines() if "WARNING" in line or "ERROR" in line]


# ---------------------------------------------------------------- bootstrap --

BINDER_REQUIREMENTS = ROOT / "binder" / "requirements.txt"


def binder_lib_line():
    """Binder's line for ``lib``: the repository's own, with every extra (``-e .[dask]``).

    Binder has the repository, so it installs ``lib`` from it rather than from PyPI, where a fork's
    version may never be.  repo2docker runs ``pip install -r binder/requirements.txt`` from the
    repository's root (so ``.`` is the root), and only after copying the whole repository in when the
    file names a local path.  Editable: a reader's change to ``lib/`` shows after a kernel restart.
    """
    extras = ",".join(sorted(optional_dependencies()))
    return f"-e .{f'[{extras}]' if extras else ''}"


_BINDER_LIB = re.compile(r"^(?:genmodels-lib\S*|-e \.\S*|\.\S*)$", re.M)


def binder_problem(fix=False):
    """``None`` when ``binder/requirements.txt`` installs the repository's own ``lib``; ``fix`` rewrites it."""
    text = BINDER_REQUIREMENTS.read_text()
    if [m.group(0) for m in _BINDER_LIB.finditer(text)] == [binder_lib_line()]:
        return None
    if fix:
        BINDER_REQUIREMENTS.write_text(_BINDER_LIB.sub(binder_lib_line(), text, count=1))
        print(f"rewrote {BINDER_REQUIREMENTS.relative_to(ROOT)}: {binder_lib_line()}")
        return None
    return (f"{BINDER_REQUIREMENTS.relative_to(ROOT)} does not install the repository's own lib with "
            f"`{binder_lib_line()}` (run `python tools/book.py bootstrap --fix`).")


def bootstrap_problems(fix=False):
    problems = [p for p in [binder_problem(fix)] if p]
    for md in chapter_sources():
        want = bootstrap_source(md)
        nb = read_source(md)
        code = [c for c in nb.cells if c.cell_type == "code"]
        if code and code[0].source.strip() == want.strip():
            continue
        if not fix:
            problems.append(f"{md.relative_to(ROOT)}: the first code cell is not the set-up cell "
                            "(run `python tools/book.py bootstrap --fix`).")
            continue
        text = md.read_text()
        block = "```{code-cell} ipython3\n:tags: [bootstrap, remove-cell]\n" + want + "\n```\n"
        first = re.search(r"```\{code-cell\}[^\n]*\n(?::tags:[^\n]*\n)?(.*?)\n```\n", text, re.S)
        if first and "Set-up for Colab" in first.group(0):
            text = text[: first.start()] + block + text[first.end():]
        else:
            # Insert right after the title line.
            title = re.search(r"^# .*\n", text, re.M)
            at = title.end() if title else 0
            text = text[:at] + "\n" + block + text[at:]
        md.write_text(text)
        print(f"rewrote the set-up cell of {md.relative_to(ROOT)}")
        for path in (notebook_path(md), ROOT / "student" / f"{md.stem}.ipynb"):
            if path.exists() and replace_setup_cell(path, want):
                print(f"rewrote the set-up cell of {path.relative_to(ROOT)} (no other cell changed)")
    return problems


def replace_setup_cell(path, source):
    """Put ``source`` into the set-up cell of the notebook ``path``; return whether it changed.

    The set-up cell prints nothing where ``lib`` is installed, so a new release's
    cell changes the executed notebook (and the student edition, which copies code
    cells unchanged) in that cell's source alone: no re-execution is needed.  A
    set-up cell with outputs is left for ``execute`` (the sync test names it).
    """
    import nbformat

    text = path.read_text()
    nb = nbformat.reads(text, as_version=4)
    cell = next((c for c in nb.cells if c.cell_type == "code"), None)
    if cell is None or "bootstrap" not in cell.metadata.get("tags", []) or cell.outputs:
        return False
    if cell.source == source:
        return False
    cell.source = source
    new = nbformat.writes(nb)
    path.write_text(new + "\n" if text.endswith("\n") and not new.endswith("\n") else new)
    return True


# ---------------------------------------------------------------- main --

def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="cmd", required=True)
    ex = sub.add_parser("execute")
    ex.add_argument("--all", action="store_true", help="execute every chapter, changed or not")
    ex.add_argument("files", nargs="*", type=Path)
    sub.add_parser("check-sync")
    bs = sub.add_parser("bootstrap")
    bs.add_argument("--fix", action="store_true")
    args = parser.parse_args(argv)

    if args.cmd == "check-sync":
        problems = [p for p in map(sync_problem, chapter_sources()) if p]
        for p in problems:
            print(p)
        print(f"{len(chapter_sources()) - len(problems)} of {len(chapter_sources())} notebooks in sync")
        return 1 if problems else 0

    if args.cmd == "bootstrap":
        problems = bootstrap_problems(fix=args.fix)
        for p in problems:
            print(p)
        return 1 if problems else 0

    files = [f.resolve() for f in args.files] or chapter_sources()
    bootstrap_problems(fix=True)
    for md in files:
        if md.suffix != ".md":
            md = md.with_suffix(".md")
        if not args.all and not args.files and sync_problem(md) is None:
            continue
        seconds, changed = execute(md)
        state = "updated" if changed else "unchanged"
        print(f"{md.relative_to(ROOT)}: executed in {seconds:.1f} s, notebook {state}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
