"""Point the Colab/Binder launch buttons of chapter pages at the student notebooks.

sphinx-book-theme builds its launch buttons from the page's own source, so a
chapter page built from ``chapters/NN_name.ipynb`` would open the executed
notebook, with solutions.  Students should open ``student/NN_name.ipynb``
instead (made by ``tools/student.py``): after the theme has added its
buttons, this extension rewrites their URLs, for every page that has a
student notebook.  Other pages are left alone.

Enabled in ``_config.yml``::

    sphinx:
      local_extensions:
        student_launch: _ext/
"""

from pathlib import Path
from urllib.parse import quote

STUDENT_DIR = "student"


def _student_urls(url, pagename, student):
    """``url`` with the page's notebook path replaced by the student notebook's (plain or %-encoded)."""
    for old, new in ((f"{pagename}.ipynb", student), (quote(f"{pagename}.ipynb", safe=""), quote(student, safe=""))):
        if old in url:
            head, _, tail = url.rpartition(old)
            return head + new + tail
    return url


def rewrite_launch_buttons(app, pagename, templatename, context, doctree):
    """``html-page-context`` handler, run after sphinx-book-theme's ``add_launch_buttons``."""
    student = f"{STUDENT_DIR}/{Path(pagename).name}.ipynb"
    if not (Path(app.srcdir) / student).is_file():
        return
    for group in context.get("header_buttons") or []:
        if group.get("label") != "launch-buttons":
            continue
        for button in group.get("buttons", []):
            if button.get("type") != "link" or not button.get("url"):
                continue
            button["url"] = _student_urls(button["url"], pagename, student)
            button["tooltip"] = f"Open the student notebook (exercises, no solutions) on {button.get('text', '')}".strip()


def setup(app):
    # sphinx-book-theme adds its launch buttons at priority 501; run after it.
    app.connect("html-page-context", rewrite_launch_buttons, priority=900)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
