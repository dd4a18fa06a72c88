"""What the set-up cell does when it runs (tools/book.py, ``bootstrap_source``).

The cell is run in a separate Python whose ``subprocess.run`` records its calls
instead of running pip, with ``sys.path`` arranged for each case: ``lib``
missing (Colab: pip is asked for the release, with the book's site as a place
to find it where PyPI lacks it), this book's ``lib`` installed (the book's own venv), and
another project's top-level ``lib`` importable (PyPI's ``lib`` is one; README,
"Releasing").  ``tests/test_site_wheel.py`` runs the real cell against an empty index and a
local copy of the site; ``make test-wheel`` runs every student notebook that way.
"""

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
import book  # noqa: E402  (tools/book.py)

DASK_PAGE = ROOT / "chapters" / "04_4_em_at_scale.md"

RUNNER = """
import json, os, subprocess, sys, types
calls = []
def pip(args, **kwargs):  # records the call; exits as PIP_EXIT says (0: installed)
    calls.append([str(a) for a in args[3:]])
    return types.SimpleNamespace(returncode=int(os.environ["PIP_EXIT"]))
subprocess.run = pip
try:
    exec(compile(sys.stdin.read(), "set-up cell", "exec"), {})
except (ImportError, RuntimeError) as error:
    print(json.dumps({"error": str(error), "kind": type(error).__name__, "calls": calls}))
else:
    print(json.dumps({"error": None, "calls": calls}))
"""


def run_cell(md, where, site=False, pip_exit=0):
    """Run the set-up cell of ``md`` from folder ``where``; without ``site``, no site-packages
    (so this venv's ``lib`` is not importable); pip, faked, exits with ``pip_exit``."""
    args = [sys.executable] + ([] if site else ["-S"]) + ["-c", RUNNER]
    proc = subprocess.run(args, input=book.bootstrap_source(md), cwd=where, capture_output=True,
                          text=True, timeout=60, env={"PATH": "/usr/bin:/bin", "PIP_EXIT": str(pip_exit)})
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


SITE = ["--find-links", book.wheels_url()]  # the book's site: the wheel where PyPI has no release


def test_lib_missing_installs_the_release_from_pypi_or_the_books_site(tmp_path):
    out = run_cell(None, tmp_path)
    assert out == {"error": None, "calls": [["install", "-q", f"genmodels-lib=={book.lib_version()}", *SITE]]}


def test_lib_missing_on_the_dask_page_installs_the_extra(tmp_path):
    out = run_cell(DASK_PAGE, tmp_path)
    assert out == {"error": None, "calls": [["install", "-q", f"genmodels-lib[dask]=={book.lib_version()}",
                                             *SITE]]}


@pytest.mark.parametrize("md", [None, DASK_PAGE], ids=["plain", "dask"])
def test_a_release_pip_cannot_find_stops_the_cell_with_what_to_do(tmp_path, md):
    """Where neither PyPI nor the site has the release (a fork whose site is not yet published), pip's own
    message is followed by one that names the release and the site and says whom to tell."""
    out = run_cell(md, tmp_path, pip_exit=1)
    release = out["calls"][0][2]
    assert out["kind"] == "RuntimeError" and len(out["calls"]) == 1
    assert f"could not install {release} " in out["error"] and book.wheels_url() in out["error"]
    assert "tell whoever handed the notebook out" in out["error"] and "internet" in out["error"]


def test_the_site_is_derived_from_the_repository_in_config(tmp_path, monkeypatch):
    """One home for the address: a fork that sets its repository in _config.yml gets its own site."""
    monkeypatch.setattr(book, "repository_url", lambda: "https://github.com/Some-Teacher/gm-course")
    assert book.wheels_url() == "https://some-teacher.github.io/gm-course/wheels/"
    assert 'book_site = "https://some-teacher.github.io/gm-course/wheels/"' in book.bootstrap_source(None)
    monkeypatch.setattr(book, "repository_url", lambda: "https://github.com/some-teacher/Some-Teacher.github.io")
    assert book.wheels_url() == "https://some-teacher.github.io/wheels/"  # a user site is served at the root


def test_this_books_lib_installed_does_nothing(tmp_path):
    out = run_cell(None, tmp_path, site=True)
    assert out == {"error": None, "calls": []}


def _other_lib(folder, as_module=False, owner=None):
    if as_module:
        (folder / "lib.py").write_text("VALUE = 1\n")
    else:
        (folder / "lib").mkdir()
        (folder / "lib" / "__init__.py").write_text("class LibGen:\n    pass\n")
    if owner:  # the metadata pip writes, so that the message can name the distribution
        info = folder / f"{owner}-4.0.0.dist-info"
        info.mkdir()
        (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {owner}\nVersion: 4.0.0\n")
        (info / "top_level.txt").write_text("lib\n")
        (info / "RECORD").write_text("lib/__init__.py,,\n")


@pytest.mark.parametrize("md", [None, DASK_PAGE], ids=["plain", "dask page"])
def test_another_lib_stops_the_cell_and_names_its_owner(tmp_path, md):
    _other_lib(tmp_path, owner="lib")
    out = run_cell(md, tmp_path)
    assert out["calls"] == [], "the cell must not install over another project's lib"
    assert out["error"].startswith("Another package named `lib` is importable here (installed by lib);")
    assert "fresh runtime" in out["error"] and "uninstall the other package" in out["error"]


@pytest.mark.parametrize("as_module", [False, True], ids=["package", "module lib.py"])
def test_another_lib_without_metadata_stops_the_cell(tmp_path, as_module):
    _other_lib(tmp_path, as_module=as_module)
    out = run_cell(None, tmp_path)
    assert out["calls"] == [] and out["error"].startswith("Another package named `lib` is importable here;")


def test_another_distribution_that_wrote_into_lib_stops_the_cell(tmp_path):
    """PyPI's ``lib`` installed after this book's: pip let it overwrite lib/__init__.py (lib.gaussian
    is still there), and only the metadata shows the clash."""
    (tmp_path / "lib").mkdir()
    for name in ("__init__.py", "gaussian.py"):
        (tmp_path / "lib" / name).write_text("")
    info = tmp_path / "lib-4.0.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: lib\nVersion: 4.0.0\n")
    (info / "top_level.txt").write_text("lib\n")
    out = run_cell(None, tmp_path)
    assert out["calls"] == [] and "(installed by lib)" in out["error"]


def test_a_lib_that_fails_to_import_stops_the_cell(tmp_path):
    (tmp_path / "lib").mkdir()
    (tmp_path / "lib" / "__init__.py").write_text("raise RuntimeError('needs a server')\n")
    out = run_cell(None, tmp_path)
    assert out["calls"] == [] and out["error"].startswith("Another package named `lib`")
