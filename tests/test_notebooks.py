"""The pipeline's own guarantees: sources and notebooks travel together.

* every chapter source has an executed notebook that matches it cell for cell;
* every chapter starts with the Colab/Binder set-up cell, pinned to the
  version in pyproject.toml and the repository URL in _config.yml;
* committed notebooks carry no timestamps or timing metadata;
* every chapter notebook is in the table of contents.

nbval (run by `make test` after this file) checks that the outputs reproduce.
"""

import json
import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
sys.path.insert(0, str(ROOT / "_ext"))

import book  # noqa: E402  (tools/book.py)
import docs  # noqa: E402  (tests/docs.py: where the documentation's text lives)

SOURCES = book.chapter_sources()
IDS = [p.stem for p in SOURCES]


def _toc_files():
    return re.findall(r"file:\s*(\S+)", (ROOT / "_toc.yml").read_text())


def test_toc_entries_exist():
    entries = _toc_files()
    assert "chapters/intro" in (ROOT / "_toc.yml").read_text()
    for entry in entries:
        md = ROOT / f"{entry}.md"
        assert md.exists(), f"_toc.yml lists {entry} but {md.relative_to(ROOT)} does not exist"
        if md in SOURCES:
            assert md.with_suffix(".ipynb").exists(), f"{entry}.ipynb is missing: run `make notebooks`"


@pytest.mark.parametrize("md", SOURCES, ids=IDS)
def test_notebook_matches_source(md):
    problem = book.sync_problem(md)
    assert problem is None, problem


@pytest.mark.parametrize("md", SOURCES, ids=IDS)
def test_first_code_cell_is_the_setup_cell(md):
    nb = book.read_source(md)
    code = [c for c in nb.cells if c.cell_type == "code"]
    assert code, f"{md.name} has no code cell"
    assert code[0].source.strip() == book.bootstrap_source(md).strip(), (
        f"{md.name}: the first code cell is not the set-up cell; run `python tools/book.py bootstrap --fix`"
    )
    assert "bootstrap" in code[0].metadata.get("tags", [])


@pytest.mark.parametrize("md", [None] + SOURCES, ids=["plain"] + IDS)
def test_setup_cell_installs_the_declared_release_from_pypi(md):
    src = book.bootstrap_source(md)
    assert re.search(rf'"genmodels-lib(\[[a-z,]+\])?=={re.escape(book.lib_version())}"', src)
    # a wheel from PyPI: no git URL, tag or branch (no git, no clone of the book on Colab)
    assert "git+" not in src and "@v" not in src and book.repository_url() not in src
    compile(src, "set-up cell", "exec")
    assert max(len(line) for line in src.splitlines()) <= 88


@pytest.mark.parametrize("md", SOURCES, ids=IDS)
def test_setup_cell_installs_the_extras_the_page_imports(md):
    """A page that imports an optional dependency of lib (e.g. dask) installs it where it is missing."""
    src = book.bootstrap_source(md)
    imported = book.page_imports(md)
    for extra, requirements in book.optional_dependencies().items():
        modules = {book.requirement_module(r) for r in requirements}
        if modules & imported:
            assert f'"genmodels-lib[{extra}]==' in src, f"{md.name} imports {modules & imported}"
            for requirement in requirements:
                assert f'"{requirement}"' in src
            for module in modules:
                assert f'spec("{module}") is None' in src
        else:
            assert f"[{extra}]" not in src


def test_the_dask_page_installs_the_dask_extra():
    md = next(p for p in SOURCES if p.name.startswith("04_4"))
    assert "dask" in book.page_extras(md)
    assert book.page_extras(next(p for p in SOURCES if p.name.startswith("03_1"))) == {}


def test_requirement_module_names():
    assert book.requirement_module("dask[array]>=2024.1") == "dask"
    assert book.requirement_module("scikit-learn>=1.6") == "scikit_learn"


@pytest.mark.parametrize("md", SOURCES, ids=IDS)
def test_notebook_has_no_timing_metadata(md):
    raw = book.notebook_path(md).read_text()
    nb = json.loads(raw)
    for cell in nb["cells"]:
        assert "execution" not in cell.get("metadata", {}), f"{md.stem}: timing metadata in cell {cell.get('id')}"
        assert re.fullmatch(r"cell-\d{3}", cell.get("id", "")), f"{md.stem}: unstable cell id {cell.get('id')}"
    assert nb["metadata"].get("language_info") == {"name": "python"}
    assert not re.search(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d", raw), f"{md.stem}: a timestamp is committed"


@pytest.mark.parametrize("md", SOURCES, ids=IDS)
def test_code_cells_were_executed(md):
    nb = json.loads(book.notebook_path(md).read_text())
    code = [c for c in nb["cells"] if c["cell_type"] == "code"]
    counts = [c["execution_count"] for c in code]
    assert counts == list(range(1, len(code) + 1)), f"{md.stem}: not executed top to bottom in one run"
    errors = [o for c in code for o in c.get("outputs", []) if o.get("output_type") == "error"]
    assert not errors, f"{md.stem}: a committed output is an error"


def test_every_chapter_is_in_the_toc():
    toc = (ROOT / "_toc.yml").read_text()
    for md in SOURCES:
        assert f"chapters/{md.stem}" in toc, f"{md.name} is not listed in _toc.yml"


def test_sync_check_detects_an_edited_source(tmp_path, monkeypatch):
    # A chapter whose .md was edited without `make notebooks` must be reported.
    md = SOURCES[0]
    copy_md = tmp_path / md.name
    copy_md.write_text(md.read_text() + "\n\nAn added paragraph.\n")
    (tmp_path / md.with_suffix(".ipynb").name).write_text(book.notebook_path(md).read_text())
    monkeypatch.setattr(book, "ROOT", tmp_path)
    problem = book.sync_problem(copy_md)
    assert problem is not None and md.with_suffix(".ipynb").name in problem


MAX_PAGE_LINES = 1100


from slide_decks import SOURCE_MARK as SLIDE_MARK  # noqa: E402  (one home: _ext/slide_decks.py)


@pytest.mark.parametrize("md", SOURCES, ids=IDS)
def test_no_page_is_longer_than_a_page_should_be(md):
    """A long chapter becomes a chapter page with section pages (``sections:`` in _toc.yml)."""
    # the slide marks (guide/slides.md, "Slides") are not text a reader reads: `% slide`, `% notes: ...`, a `slide` tag line;
    # nor is the set-up cell (tagged remove-cell: the HTML does not show it)
    text = md.read_text().replace(book.bootstrap_source(md), "")
    lines = len([line for line in text.splitlines() if not SLIDE_MARK.match(line)])
    assert lines <= MAX_PAGE_LINES, (
        f"{md.relative_to(ROOT)} has {lines} source lines (at most {MAX_PAGE_LINES}): move a part of it "
        "to a section page of its chapter (a new chapters/NN_M_slug.md listed under the chapter's "
        "`sections:` in _toc.yml)")


def test_readme_chapter_table_lists_every_page():
    """README's "Chapters" table names every chapter and section page of _toc.yml, in order."""
    readme = docs.readme()
    table = readme.split("## Chapters", 1)[1].split("\n## ", 1)[0]
    rows = re.findall(r"^\|[^|]*`(chapters/[\w]+)\.md`", table, re.M)
    pages = [f for f in _toc_files() if re.match(r"chapters/\d\d_", f)]
    assert rows == pages, f"README's chapter table lists {rows}; _toc.yml has {pages}"
