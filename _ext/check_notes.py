"""Sphinx extension: in the web book, say what a check cell's output was checked on.

The pages are executed with their solutions, so the output of an exercise's check cell reads
``[PASSED] ...``, while the starter the reader sees above it raises ``NotImplementedError``: the output
is true of the solution folded in between, not of the starter.  In the HTML, every check cell that
follows its exercise's solution gets one line between its code and its output that says so.  Only the
HTML builder: the student notebooks have no outputs, and the PDF (the instructor's edition) prints the
solution right above the check.
"""

from docutils import nodes

NOTE = ("Output of this check on the solution folded above, with which the page was run; "
        "in your notebook the same cell checks your code.")


def _is_check_cell(node):
    return (isinstance(node, nodes.container) and node.get("nb_element") == "cell_code"
            and "check" in node.get("cell_metadata", {}).get("tags", []))


def add_notes(app, doctree, docname):
    """Insert :data:`NOTE` before the output of each check cell that follows a solution."""
    if app.builder.name not in {"html", "dirhtml", "singlehtml"}:
        return
    solved = False
    for node in list(doctree.findall(nodes.Element)):
        kind = node.__class__.__name__
        if kind in {"exercise_node", "exercise_enumerable_node"}:
            solved = False  # a new exercise: its check waits for its own solution
        elif kind == "solution_node":
            solved = True
        elif _is_check_cell(node) and solved:
            outputs = [i for i, child in enumerate(node.children) if child.get("nb_element") == "cell_code_output"]
            if outputs:
                note = nodes.paragraph("", "", nodes.emphasis(NOTE, NOTE), classes=["check-note"])
                node.insert(outputs[0], note)


def setup(app):
    app.connect("doctree-resolved", add_notes)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
