"""Sphinx extension: drop duplicated <script> tags from every HTML page.

Sphinx 7.4 writes an inline script that an extension registers after the
builder has started (sphinx-thebe and sphinx-togglebutton do) twice: once as
registered (filename None) and once more from the registry (filename "").
sphinx-thebe's script declares ``const THEBE_JS_URL``, so the second copy is a
JavaScript error on every page ("Identifier 'THEBE_JS_URL' has already been
declared").  This keeps the first of identical scripts.
"""


def dedupe_scripts(app, pagename, templatename, context, doctree):
    scripts = context.get("script_files")
    if not scripts:
        return
    seen, unique = set(), []
    for script in scripts:
        key = (str(script.filename or ""), tuple(sorted(script.attributes.items())))
        if key not in seen:
            seen.add(key)
            unique.append(script)
    scripts[:] = unique


def setup(app):
    app.connect("html-page-context", dedupe_scripts, priority=900)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
