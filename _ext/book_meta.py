"""Sphinx extension: the book's version in the footer and "edit" links to the sources.

* The footer of every page shows the version of ``lib`` declared in
  ``pyproject.toml`` (the release the notebooks' set-up cells install) and the
  build date (``SOURCE_DATE_EPOCH`` when set, for reproducible builds).
* Chapter pages are built from the executed ``chapters/NN_slug.ipynb``, but
  the file an author should edit is the MyST source ``chapters/NN_slug.md``:
  the theme's "Suggest edit" and "Show source" links are pointed there.
"""

import datetime
import os
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def book_version():
    text = (ROOT / "pyproject.toml").read_text()
    return re.search(r'^version\s*=\s*"([^"]+)"', text, re.M).group(1)


def build_date():
    epoch = os.environ.get("SOURCE_DATE_EPOCH")
    when = (datetime.datetime.fromtimestamp(int(epoch), tz=datetime.timezone.utc)
            if epoch else datetime.datetime.now(tz=datetime.timezone.utc))
    return when.date().isoformat()


def add_footer(app, config):
    footer = (
        f'<p class="book-version">Book and <code>lib</code> version {book_version()} '
        f"&middot; built {build_date()}</p>"
    )
    options = dict(config.html_theme_options or {})
    existing = options.get("extra_footer", "")
    options["extra_footer"] = f"{existing}{footer}"
    config.html_theme_options = options


def _walk_buttons(buttons):
    for button in buttons:
        yield button
        yield from _walk_buttons(button.get("buttons", []))


def edit_links_to_sources(app, pagename, templatename, context, doctree):
    """Point "edit"/"show source" at the .md source of a page built from an .ipynb."""
    if context.get("page_source_suffix") != ".ipynb" or not (ROOT / f"{pagename}.md").exists():
        return
    for button in _walk_buttons(context.get("header_buttons", [])):
        if button.get("label") in ("source-edit-button", "source-file-button"):
            button["url"] = re.sub(rf"{re.escape(pagename)}\.ipynb", f"{pagename}.md", button["url"])


def setup(app):
    app.connect("config-inited", add_footer)
    # After sphinx-book-theme builds its header buttons (priority 501).
    app.connect("html-page-context", edit_links_to_sources, priority=550)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
