"""The instructor's grade book (issue 40): a roster with LMS ids, the LMS import files, HTML feedback,
one student re-graded, bad input refused before anything is graded.

One small class of chapter 2 is graded once (module fixture ``book``), then one student is graded
again after a corrected hand-in (the same fixture): every test reads those two runs.  The class:

* ``s01`` solved; ``s02`` an empty file (then the corrected notebook, graded again); ``s03`` solved,
  whose roster name holds a comma, double quotes and non-ASCII letters;
* ``s04`` on the roster, handed nothing in;
* ``x<i>&y`` handed in (an empty file) but not on the roster, a name that HTML must escape.

Three notebooks run in all (the empty files are refused unread): the fixture is the module's cost.

Each LMS file is checked against what its LMS's documentation says (guide/grade_book.md, "The grade book"):
header, byte-order mark, one row per roster student, RFC 4180 quoting (parsed back with ``csv``).
"""

import csv
import hashlib
import html.parser
import io
import os
import re
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # the grader package
sys.path.insert(0, str(ROOT / "tools"))
sys.path.insert(0, str(ROOT / "tests"))

import book  # noqa: E402
import student  # noqa: E402
from grader import grade as cli, feedback_html, find, lms, report  # noqa: E402

from sandbox_guard import require_sandbox  # noqa: E402

require_sandbox(ROOT)

CH2 = "02_maximum_likelihood"
NAME3 = 'O\'Brien, Zoë "Zo" Ñúñez'
ROSTER = ("student,name,lms_id,sis_user_id,sis_login_id,section,email,advisor\n"
          "s01,Ada Lovelace,101,U001,ada,A,ada@uni.example,Dr. X\n"
          "s02,Alan Turing,102,U002,alan,A,alan@uni.example,\n"
          f's03,"{NAME3.replace(chr(34), chr(34) * 2)}",103,U003,zoe,B,zoe@uni.example,"Dr. Y, Z"\n'
          "s04,Grace Hopper,104,U004,grace,B,grace@uni.example,\n")
STRANGER = "x<i>&y"
BOM = b"\xef\xbb\xbf"


def _solved(page=CH2):
    return student.build(ROOT / "chapters" / f"{page}.md", with_solutions=True)


def _labels():
    return [label for label, _ in find.load_editions()[CH2]["exercises"]]


def _grade(subs, out, *extra):
    cmd = [sys.executable, str(ROOT / "grader"), "grade", str(subs), "--out", str(out), "-j", "2",
           "--chapter", CH2, "--roster", str(subs.parent / "roster.csv"), "--lms", "canvas,moodle,gradescope",
           *extra]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stderr[-3000:]
    return done


def _state(folder):
    """name -> (inode, mtime_ns, sha256) of every file in ``folder``."""
    return {p.name: (p.stat().st_ino, p.stat().st_mtime_ns, hashlib.sha256(p.read_bytes()).hexdigest())
            for p in sorted(folder.iterdir()) if p.is_file()}


def _lms_files(out):
    return {fmt: (out / f"{fmt}.csv").read_bytes() for fmt in lms.FORMATS}


@pytest.fixture(scope="module")
def book_run(tmp_path_factory):
    """The class graded once (one column per assignment), then s02 graded again (one column per exercise)."""
    root = tmp_path_factory.mktemp("class")
    subs, out = root / "submissions", root / "grades"
    subs.mkdir()
    (root / "roster.csv").write_text(ROSTER, encoding="utf-8")
    nbformat.write(_solved(), subs / "s01.ipynb")
    (subs / "s02.ipynb").write_text("")
    nbformat.write(_solved(), subs / "s03.ipynb")
    (subs / f"{STRANGER}.ipynb").write_text("")
    first = _grade(subs, out)
    files = _lms_files(out)
    results_before = _state(out / "results")
    feedback_before = _state(out / "feedback")
    grades_before = (out / "grades.csv").read_bytes()
    nbformat.write(_solved(), subs / "s02.ipynb")  # the corrected hand-in
    again = _grade(subs, out, "--student", "s02", "--lms-columns", "exercise")
    return {"root": root, "subs": subs, "out": out, "first": first, "again": again, "files": files,
            "results_before": results_before, "feedback_before": feedback_before, "grades_before": grades_before}


def _parse(data):
    """(had a BOM, rows) of a CSV file's bytes, parsed as a spreadsheet would (csv module, RFC 4180)."""
    assert b"\r\n" in data  # RFC 4180's line ends
    return data.startswith(BOM), list(csv.reader(io.StringIO(data.decode("utf-8-sig"), newline="")))


def test_canvas_file_is_canvas_gradebook_import(book_run):
    bom, rows = _parse(book_run["files"]["canvas"])
    assert bom
    top = len(_labels())
    assert rows[0] == ["Student", "ID", "SIS User ID", "SIS Login ID", "Section", CH2]
    assert rows[1] == ["    Points Possible", "", "", "", "", f"{top}"]
    body = {r[1]: r for r in rows[2:]}
    assert list(body) == ["101", "102", "103", "104"]  # every roster student, in roster order; no stranger
    assert body["101"] == ["Ada Lovelace", "101", "U001", "ada", "A", f"{top}"]
    assert body["102"][-1] == "0"  # an empty file
    assert body["103"] == [NAME3, "103", "U003", "zoe", "B", f"{top}"]  # comma, quotes, accents kept
    assert body["104"] == ["Grace Hopper", "104", "U004", "grace", "B", "0"]  # handed nothing in
    assert f'"{NAME3.replace(chr(34), chr(34) * 2)}"'.encode() in book_run["files"]["canvas"]  # quoted, doubled


def test_moodle_file_matches_on_id_number_or_email_with_a_note(book_run):
    bom, rows = _parse(book_run["files"]["moodle"])
    assert bom
    assert rows[0] == ["Full name", "ID number", "Email address", "Section", "advisor", CH2, "Feedback"]
    body = {r[1]: r for r in rows[1:]}
    assert list(body) == ["U001", "U002", "U003", "U004"]
    assert body["U003"][:5] == [NAME3, "U003", "zoe@uni.example", "B", "Dr. Y, Z"]  # unknown column kept
    assert body["U004"][5:] == ["0", lms.NO_SUBMISSION]
    assert body["U001"][6].startswith(f"Score {len(_labels())} / {len(_labels())}.")


def test_gradescope_file_has_its_roster_columns_and_a_score(book_run):
    bom, rows = _parse(book_run["files"]["gradescope"])
    assert bom
    assert rows[0] == ["Name", "Email", "SID", "Section", CH2]
    assert [r[1] for r in rows[1:]] == ["ada@uni.example", "alan@uni.example", "zoe@uni.example", "grace@uni.example"]
    assert rows[3] == [NAME3, "zoe@uni.example", "U003", "B", str(len(_labels()))]
    assert rows[4][-1] == "0"


def test_the_summary_names_who_handed_nothing_in_and_who_is_not_on_the_roster(book_run):
    text = book_run["first"].stdout
    assert "handed nothing in (0 in the LMS files): s04" in text
    assert f"not on the roster (in grades.csv, not in the LMS files): {STRANGER}" in text
    rows = {r["student"]: r for r in csv.DictReader(io.StringIO(book_run["grades_before"].decode()))}
    assert rows[STRANGER]["chapter"] == CH2 and rows[STRANGER]["total"] == "0"  # graded all the same


def test_one_student_regraded_leaves_every_other_result_untouched(book_run):
    out, before = book_run["out"], book_run["results_before"]
    after = _state(out / "results")
    assert set(after) == set(before)
    for name in before:
        if name != "s02.json":
            assert after[name] == before[name], name  # not re-run: same inode, mtime and content
    assert after["s02.json"] != before["s02.json"]
    fb_before, fb_after = book_run["feedback_before"], _state(out / "feedback")
    assert {n: v for n, v in fb_after.items() if not n.startswith("s02.")} == \
        {n: v for n, v in fb_before.items() if not n.startswith("s02.")}
    assert "grading again s02; 3 other result(s) kept" in book_run["again"].stdout
    rows = {r["student"]: r for r in csv.DictReader(open(out / "grades.csv", encoding="utf-8"))}
    assert set(rows) == {"s01", "s02", "s03", STRANGER}  # rewritten from all results
    assert rows["s02"]["total"] == rows["s02"]["max"] == str(len(_labels()))
    assert "pass rate by exercise" in book_run["again"].stdout  # the summary, from all results
    assert re.search(rf"{re.escape(_labels()[0])}\s+3 / 4 ", book_run["again"].stdout)  # the stranger: 0


def test_per_exercise_columns_after_the_regrade(book_run):
    out, labels = book_run["out"], _labels()
    _, rows = _parse((out / "canvas.csv").read_bytes())
    assert rows[0] == ["Student", "ID", "SIS User ID", "SIS Login ID", "Section", *[f"{CH2}: {lab}" for lab in labels]]
    assert rows[1][5:] == ["1"] * len(labels)
    body = {r[1]: r[5:] for r in rows[2:]}
    assert body["102"] == ["1"] * len(labels)  # s02 after the corrected hand-in
    assert body["104"] == ["0"] * len(labels)
    _, rows = _parse((out / "moodle.csv").read_bytes())
    assert rows[0][-len(labels) - 1:] == [*[f"{CH2}: {lab}" for lab in labels], "Feedback"]


class _Links(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.hrefs, self.tags = [], []

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        self.hrefs += [v for k, v in attrs if tag == "a" and k == "href"]


def _ids_of_built_page(page):
    built = ROOT / "_build" / "html" / "chapters" / f"{page}.html"
    text = built.read_text(encoding="utf-8") if built.is_file() else ""
    if "</html>" not in text:  # not built, or being written by the -W build in make test's other lane
        return None
    return set(re.findall(r'\bid="([^"]+)"', text))


def test_html_feedback_links_each_exercise_to_the_web_book(book_run):
    feedback = book_run["out"] / "feedback"
    names = sorted(p.name for p in feedback.glob("*.html"))
    assert names == sorted(f"{s}.html" for s in ("s01", "s02", "s03", STRANGER))
    base = book.pages_url()
    ids = _ids_of_built_page(CH2) or feedback_html.chapter_labels(CH2)  # the built book's ids, else the labels
    for name in names:
        text = (feedback / name).read_text(encoding="utf-8")
        parser = _Links()
        parser.feed(text)
        assert not {"script", "link", "img", "iframe"} & set(parser.tags)  # standalone: no external asset
        anchors = [h for h in parser.hrefs if "#" in h]
        assert [h.split("#")[1] for h in anchors] == _labels(), name
        for href in parser.hrefs:
            assert href.startswith(f"{base}/chapters/{CH2}.html"), href
        assert all(h.split("#")[1] in ids for h in anchors)
    s02 = (feedback / "s02.html").read_text(encoding="utf-8")
    total = len(_labels())
    assert f"Score: {total} / {total}" in s02  # rewritten by the re-grade
    stranger = (feedback / f"{STRANGER}.html").read_text(encoding="utf-8")
    assert "Feedback for x&lt;i&gt;&amp;y" in stranger and "<i>" not in stranger


def test_hostile_student_text_is_escaped_in_the_html():
    editions = find.load_editions()
    raw = {"page": CH2, "notes": ['A cell of yours raised `</p><script>alert(1)</script>` \u202eevil'],
           "exercises": [{"exercise": _labels()[0], "status": "failed",
                          "message": 'expected "<img src=x onerror=alert(1)>" & more\nnext line'}]}
    result = report.validated(raw, '"><svg onload=alert(1)>', editions, CH2)
    text = feedback_html.render(result, "https://example.org/book")
    parser = _Links()
    parser.feed(text)
    assert not {"script", "img", "svg"} & set(parser.tags)
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in text and "&lt;img src=x onerror=alert(1)&gt;" in text
    assert "\u202e" not in text and "\\u202e" in text  # a bidi override is shown, never obeyed
    assert "more next line" in text  # one line: a message cannot open a row of its own
    assert "&quot;&gt;&lt;svg onload=alert(1)&gt;" in text


@pytest.mark.parametrize("argv, message", [
    (["--lms", "blackboard"], "unknown LMS 'blackboard'"),
    (["--lms", "canvas"], "--lms needs --roster"),
    (["--roster", "{nostudent}", "--lms", "canvas"], "no `student` column"),
    (["--roster", "{dupe}"], "student s01 appears twice"),
    (["--roster", "{dupe_lms}", "--lms", "canvas"], "duplicate ids"),
    (["--roster", "{no_email}", "--lms", "gradescope"], "gives no email"),
    (["--student", "s09"], "--student s09: no such submission"),
    (["--student", "s01", "--force"], "choose one"),
])
def test_bad_input_is_refused_before_anything_is_graded(tmp_path, capsys, argv, message):
    subs, out = tmp_path / "subs", tmp_path / "out"
    subs.mkdir()
    (subs / "s01.ipynb").write_text("{}")
    (out / "results").mkdir(parents=True)
    (out / "grades.csv").write_text("student,total\ns01,3\n")
    (out / "results" / "s01.json").write_text("{}")
    rosters = {"nostudent": "name\nAda\n", "dupe": "student\ns01\ns01\n",
               "dupe_lms": "student,lms_id\ns01,7\ns02,7\n", "no_email": "student,email\ns01,\n"}
    for key, text in rosters.items():
        (tmp_path / f"{key}.csv").write_text(text)
    argv = [a.format(**{k: str(tmp_path / f"{k}.csv") for k in rosters}) for a in argv]
    before = _state(out) | {f"results/{k}": v for k, v in _state(out / "results").items()}
    with pytest.raises(SystemExit) as exc:
        cli.main([str(subs), "--out", str(out), *argv])
    assert exc.value.code == 2
    assert message in capsys.readouterr().err
    assert before == _state(out) | {f"results/{k}": v for k, v in _state(out / "results").items()}  # nothing lost


def test_make_passes_the_grade_book_options():
    done = subprocess.run(["make", "-n", "--no-print-directory", "grade", "SUBMISSIONS=subs", "ROSTER=r.csv", "LMS=canvas,moodle",
                           "LMS_COLUMNS=exercise", "STUDENT=s01,s02"], capture_output=True, text=True, cwd=ROOT,
                          env={**os.environ, "MAKEFLAGS": ""})
    line = next(line for line in done.stdout.splitlines() if "-m grader grade" in line)  # under make test too
    assert '--roster "r.csv" --lms "canvas,moodle" --lms-columns "exercise"' in line and '--student "s01,s02"' in line
