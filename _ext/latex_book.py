"""Sphinx extension: the PDF numbers its chapters as the web book does.

Jupyter Book turns every page of ``_toc.yml`` into a LaTeX ``\\chapter``, so the
notation page (front matter) became "Chapter 1" and pushed every chapter one
number higher than on the web, while theorem numbers (written as text by
sphinx-proof) kept the web's numbers.  This extension, for the LaTeX builder
only:

* puts a ``\\bookfrontmatter`` / ``\\bookmainmatter`` / ``\\bookbackmatter``
  switch in front of the first page of each part of ``_toc.yml``: pages in an
  unnumbered part (the notation page, the references) are unnumbered chapters
  that still appear in the table of contents, and the chapter counter starts at
  0 when the numbered part begins, so "Chapter 4", "Figure 4.2" and
  "Theorem 4.2" mean the same in print and online;
* gives sphinx-proof's ``prf:proof`` boxes the title "Proof" (sphinx-proof
  writes them with no title, which LaTeX draws as an empty title bar) and drops
  the "Proof. " that the directive prepends to the text for the HTML.

The references page is the bibliography itself: the preamble keeps LaTeX's
bibliography from opening a second chapter ("Bibliography") after it.

The three switches are defined in the LaTeX preamble (``_config.yml``,
``latex_elements: preamble``).

The PDF is the instructor's edition of the chapters: the instructor's and the
maintainer's guide (``guide/``, web pages about the tools, not the subject) are
left out of it (``WEB_ONLY``, ``in_print``).
"""

from pathlib import Path

from docutils import nodes
from sphinx import addnodes

#: Documents under this folder are pages of the web book only (the guides), never printed.
WEB_ONLY = "guide/"


def in_print(docname):
    """Whether a document of ``_toc.yml`` is printed in the PDF (``pdf_tests/`` asks the same)."""
    return not str(docname).startswith(WEB_ONLY)


def _part_switches(srcdir):
    """docname -> LaTeX switch for the first page of each part of ``_toc.yml``."""
    import yaml

    toc = yaml.safe_load((Path(srcdir) / "_toc.yml").read_text())
    switches, seen_numbered = {}, False
    for part in toc.get("parts") or []:
        chapters = part.get("chapters") or []
        if not chapters or "file" not in chapters[0]:
            continue
        first = str(Path(chapters[0]["file"]).with_suffix(""))
        if part.get("numbered"):
            switches[first] = r"\bookmainmatter"
            seen_numbered = True
        else:
            switches[first] = r"\bookbackmatter" if seen_numbered else r"\bookfrontmatter"
    return switches


def add_part_switches(app, doctree, docname):
    """The LaTeX builder resolves one tree of the whole book, each page in a
    ``start_of_file`` node: put the switch first in the page, before its chapter."""
    if app.builder.name != "latex":
        return
    switches = _part_switches(app.srcdir)
    for page in doctree.findall(addnodes.start_of_file):
        switch = switches.get(page["docname"])
        if switch:
            page.insert(0, nodes.raw("", switch + "\n", format="latex"))


def drop_web_only_pages(app, doctree, docname):
    """Remove the guides' pages from the assembled LaTeX tree: each is one ``start_of_file`` node."""
    if app.builder.name != "latex":
        return
    for page in list(doctree.findall(addnodes.start_of_file)):
        if not in_print(page["docname"]):
            page.parent.remove(page)


def title_proofs(app, doctree, docname):
    if app.builder.name != "latex":
        return
    for admonition in doctree.findall(nodes.admonition):
        if "proof" not in admonition["classes"] or admonition.next_node(nodes.title):
            continue
        first = admonition.next_node(nodes.Text)
        if first is not None and str(first).startswith("Proof. "):
            first.parent.replace(first, nodes.Text(str(first)[len("Proof. "):]))
        admonition.insert(0, nodes.title("", "Proof"))


def setup(app):
    app.connect("doctree-resolved", drop_web_only_pages)
    app.connect("doctree-resolved", add_part_switches)
    app.connect("doctree-resolved", title_proofs)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
