"""The documentation's shape (issue 54): a short README, the guides as pages of the web book.

The README is the front door and stays short; the instructor's and the maintainer's guide
(``guide/``) are built with the book, so a guide page that ``_toc.yml`` does not list would
never be published (``only_build_toc_files``), and a README link to a guide page that does
not exist would lead nowhere.
"""

import re

import docs

MAX_README_LINES = 250


def _toc_files():
    return set(re.findall(r"file:\s*(\S+)", (docs.ROOT / "_toc.yml").read_text()))


def test_readme_is_short():
    lines = docs.readme().count("\n")
    assert lines <= MAX_README_LINES, (
        f"README.md has {lines} lines (at most {MAX_README_LINES}): move the detail to a page of guide/")


def test_every_guide_page_is_in_the_toc():
    toc = _toc_files()
    missing = [p.relative_to(docs.ROOT).as_posix() for p in docs.guide_pages()
               if p.relative_to(docs.ROOT).with_suffix("").as_posix() not in toc]
    assert docs.guide_pages(), "guide/ holds no page"
    assert not missing, f"guide pages not listed in _toc.yml (the book would not build them): {missing}"


def test_readme_points_at_the_guides_that_exist():
    readme = docs.readme()
    for page in ("guide/index", "guide/maintainer/index"):
        assert f"{page}.md" in readme, f"README.md should name {page}.md"
        assert f"/{page}.html" in readme, f"README.md should link to the published {page}.html"
        assert (docs.ROOT / f"{page}.md").is_file()


def test_the_guide_opens_with_the_workflow_and_its_prerequisites():
    """The instructor's guide names every step, in order, and every prerequisite, before anything else."""
    text = docs.guide_page("index")
    steps = ["Fork", "Set the repository address", "Publish", "Hand out", "Collect", "Grade", "Upload",
             "Send feedback"]
    where = [text.find(f"**{step}**") for step in steps]
    assert -1 not in where, f"steps missing from guide/index.md: {[s for s, w in zip(steps, where) if w < 0]}"
    assert where == sorted(where), "the workflow's steps should be in order"
    for need in ("Linux", "root", "bubblewrap", "gm-sandbox", "npm", "TeX"):
        assert need in text, f"guide/index.md should name the prerequisite {need!r}"
