"""Binder's environment (``binder/``; guide/maintainer/versions.md, "Binder"): what a reader needs, nothing more.

Binder (repo2docker) reads ``binder/`` in preference to the repository's root, so
the book's own ``requirements.txt`` (Jupyter Book, Sphinx, Playwright, axe, ruff,
pytest, ...) is not what a reader waits for.  ``binder/requirements.txt`` holds
the repository's own ``lib`` with its extras (``-e .[dask]``: Binder has the
repository, and a fork's version may never be on PyPI), the numerics at the
versions the book's outputs were made with, and JupyterLab.
"""

import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
import book  # noqa: E402  (tools/book.py)

BINDER = ROOT / "binder"
# The book's build and test tools: none of them belongs in a reader's environment.
TOOLS = {"jupyter-book", "sphinx", "myst-nb", "sphinx-book-theme", "sphinx-proof", "sphinx-exercise",
         "sphinxcontrib-bibtex", "sphinx-mathjax-offline", "sphinx-markdown-builder", "jupytext", "nbval",
         "nbclient", "pytest", "hypothesis", "check-jsonschema", "ruff", "playwright", "greenlet",
         "axe-playwright-python", "build", "twine"}


def _pins(path):
    """{name: (extras, version)} of the exact pins; the line that installs the repository's lib is skipped."""
    pins = {}
    for line in path.read_text().splitlines():
        line = line.split("#", 1)[0].strip()
        if line and line != book.binder_lib_line():
            match = re.fullmatch(r"([A-Za-z0-9_.-]+)(\[[a-z,]+\])?==(\S+)", line)
            assert match, f"{path.relative_to(ROOT)}: {line!r} is not an exact pin"
            pins[match.group(1).lower()] = (match.group(2), match.group(3))
    return pins


def test_binder_installs_the_repositorys_own_lib_with_its_extras():
    lines = [line.split("#", 1)[0].strip() for line in (BINDER / "requirements.txt").read_text().splitlines()]
    extras = ",".join(sorted(book.optional_dependencies()))
    assert f"-e .[{extras}]" in lines and book.binder_lib_line() == f"-e .[{extras}]"
    assert book.binder_problem() is None
    assert "genmodels-lib" not in _pins(BINDER / "requirements.txt"), "Binder must not wait for a PyPI release"
    text = (BINDER / "requirements.txt").read_text()
    assert "git+" not in text


def test_binder_fix_turns_a_release_pin_into_the_repositorys_lib(tmp_path, monkeypatch):
    """A requirements file of before (the PyPI pin) is rewritten by `bootstrap --fix`, the rest kept."""
    old = tmp_path / "requirements.txt"
    old.write_text("# lib\ngenmodels-lib[dask]==0.3.0\nnumpy==2.4.6\n")
    monkeypatch.setattr(book, "BINDER_REQUIREMENTS", old)
    monkeypatch.setattr(book, "ROOT", tmp_path)
    (tmp_path / "pyproject.toml").write_text((ROOT / "pyproject.toml").read_text())  # the extras
    assert "does not install the repository's own lib" in book.binder_problem()
    assert book.binder_problem(fix=True) is None
    assert old.read_text() == f"# lib\n{book.binder_lib_line()}\nnumpy==2.4.6\n"


def test_binder_pins_the_numerics_the_outputs_were_made_with():
    binder, book_pins = _pins(BINDER / "requirements.txt"), _pins_of_requirements()
    shared = set(binder) & set(book_pins)
    assert {"numpy", "scipy", "matplotlib", "scikit-learn", "threadpoolctl", "dask", "distributed",
            "ipykernel"} <= shared
    for name in shared:
        assert binder[name][1] == book_pins[name][1], f"{name}: binder pins {binder[name][1]}, " \
            f"requirements.txt {book_pins[name][1]}"


def _pins_of_requirements():
    pins = {}
    for line in (ROOT / "requirements.txt").read_text().splitlines():
        match = re.match(r"^([A-Za-z0-9_.-]+)(\[[a-z,]+\])?==(\S+)", line)
        if match:
            pins[match.group(1).lower()] = (match.group(2), match.group(3))
    return pins


def test_binder_has_jupyterlab_and_none_of_the_books_tools():
    pins = _pins(BINDER / "requirements.txt")
    assert {"jupyterlab", "notebook", "ipykernel"} <= set(pins)
    assert not TOOLS & set(pins), f"build/test tools in binder/requirements.txt: {sorted(TOOLS & set(pins))}"


def test_binder_provides_every_module_the_pages_import():
    provides = {"lib", "numpy", "scipy", "matplotlib", "sklearn", "threadpoolctl", "dask", "distributed",
                "IPython", "ipykernel"}
    imported = set()
    for md in book.chapter_sources():
        imported |= book.page_imports(md)
    missing = sorted(name for name in imported - provides if name not in sys.stdlib_module_names)
    assert not missing, f"the pages import {missing}, which binder/requirements.txt does not install"


def test_binder_runtime_is_the_python_the_pins_were_resolved_for():
    assert (BINDER / "runtime.txt").read_text().strip() == "python-3.11"
    assert not (ROOT / "runtime.txt").exists(), "Binder reads binder/ only: a root runtime.txt would mislead"
