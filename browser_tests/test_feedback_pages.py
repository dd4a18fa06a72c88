"""The grader's HTML feedback (``OUT/feedback/<student>.html``, issue 40) passes the book's audit.

A class's feedback pages, one per student of the class that ``tests/test_grade_book.py`` grades (every
status an exercise can have, notes, a name HTML must escape, a hostile message), are written by
``grader.feedback_html`` from results as the grader validates them, served from a folder of their own,
and audited as the book's pages are (``book_browser.run_axe``: WCAG 2.0/2.1 A and AA, both axe-core
releases, light and dark).  The pages load nothing but themselves.
"""

from __future__ import annotations

import sys
import urllib.parse

import pytest

import book_browser as bb

sys.path.insert(0, str(bb.repo_dir()))  # the grader package
sys.path.insert(0, str(bb.repo_dir() / "tools"))

import book  # noqa: E402
from grader import feedback_html, find, report  # noqa: E402

PAGE = "02_maximum_likelihood"


def _class_results():
    """The results of the class, as report.validated makes them from what a grading process saved."""
    editions = find.load_editions(bb.repo_dir() / "student")
    labels = [label for label, _ in editions[PAGE]["exercises"]]

    def result(student, statuses, notes=(), messages=None):
        raw = {"page": PAGE, "notes": list(notes),
               "exercises": [{"exercise": label, "status": status,
                              "message": (messages or {}).get(label, f"{status}: the check's message.")}
                             for label, status in zip(labels, statuses)]}
        return report.validated(raw, student, editions, PAGE)

    n = len(labels)
    named = result("s01", ["passed"] * n)  # what the grader adds: the roster's name, the title, when, which file
    named.update(name="Zoë O'Brien", title="Maximum likelihood", graded_at="2026-12-06T00:40:12Z", sha256="ab" * 32)
    return [
        named,
        result("s02", ["not implemented"] * n),
        result("s03", (["passed", "failed"] * n)[:n], notes=["A cell of yours (id `cell-7`) raised `ValueError`: "
                                                            "`</p><script>alert(1)</script>` \u202eevil."],
               messages={labels[1]: 'expected shape (3,), got "<img src=x onerror=alert(1)>"'}),
        result("x<i>&y", (["passed"] + ["not run"] * n)[:n],
               notes=["The kernel stopped before the end of the notebook. The checks after that point were not "
                      "run and get 0."]),
    ]


@pytest.fixture(scope="module")
def feedback_site(tmp_path_factory):
    folder = tmp_path_factory.mktemp("feedback")
    names = [feedback_html.write(r, folder, book.pages_url()).name for r in _class_results()]
    server = bb.BookServer(folder)
    yield server, names
    server.close()


def test_feedback_pages_pass_the_accessibility_audit(browser, feedback_site):
    """One audit over every feedback page of the class: no WCAG A/AA violation, no request elsewhere."""
    server, names = feedback_site
    problems, blocked = [], []
    for mode in ("light", "dark"):
        context = browser.new_context(viewport=bb.VIEWPORT, color_scheme=mode, reduced_motion="reduce")

        def route(r):
            if r.request.url.startswith(server.origin + "/"):
                r.continue_()
            else:
                blocked.append(r.request.url)
                r.abort("internetdisconnected")

        context.route("**/*", route)
        page = context.new_page()
        try:
            for name in names:
                response = page.goto(f"{server.origin}/{urllib.parse.quote(name)}", wait_until="load")
                assert response is not None and response.ok, name
                assert page.title().startswith("Feedback for "), name
                for engine in bb.AXE_ENGINES:
                    found = bb.run_axe(page, engine=engine)
                    if isinstance(found, dict):
                        problems.append(f"{name} ({mode}, {engine}): {found['error']}")
                        continue
                    problems += [f"{name} ({mode}, {engine}): {v['id']} [{v['impact']}] at {node['target']}: "
                                 f"{v['help']}. {node['summary']}" for v in found for node in v["nodes"]]
        finally:
            context.close()
    assert not blocked, blocked
    assert not problems, "\n".join(problems)
