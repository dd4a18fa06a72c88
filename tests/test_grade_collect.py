"""Submissions in from the LMS, feedback back, no silent zeros (issue 54).

* Downloads built to each LMS's documented format (grader/collect.py cites them) are collected: each
  notebook mapped by the LMS's own ids, the latest of several kept, the rest listed, never guessed; the
  download is read as untrusted (no path outside it, no link, bounded sizes).
* One Canvas-style class (two students; one resubmitted) and one Moodle-style class are collected and
  graded in the sandbox into LMS files and feedback zips named as Canvas's "Re-Upload Submissions" and
  Moodle's "Upload multiple feedback files in a zip" read them; then one student graded again with
  ``--lms canvas`` rewrites the ``moodle.csv`` of the first run too.
* A folder of an instructor's homework graded without ``--assignment`` (or the book's pages with one) is
  refused before anything is graded; the LMS files of an earlier run are never left with old scores.
"""

import csv
import datetime
import io
import json
import os
import re
import subprocess
import sys
import zipfile
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # the grader package
sys.path.insert(0, str(ROOT / "tools"))
sys.path.insert(0, str(ROOT / "tests"))

import student  # noqa: E402
from grader import grade as cli, collect, find, lms, report, upload  # noqa: E402

CH2 = "02_maximum_likelihood"
ROSTER = ("student,name,lms_id,sis_user_id,email,moodle_participant\n"
          "s01,Ada Lovelace,101,U001,ada@uni.example,Participant 7001\n"
          "s02,Alan Turing,102,U002,alan@uni.example,Participant 7002\n"
          "s03,Grace Hopper,103,U003,grace@uni.example,Participant 7003\n")
MAX = 20 * 2**20


def _solved():
    return nbformat.writes(student.build(ROOT / "chapters" / f"{CH2}.md", with_solutions=True))


def _untouched():
    return (ROOT / "student" / f"{CH2}.ipynb").read_text(encoding="utf-8")


def _roster(folder):
    from grader import variants

    (folder / "roster.csv").write_text(ROSTER, encoding="utf-8")
    return variants.read_roster_rows(folder / "roster.csv")


def _zip(path, files, links=()):
    """A zip as an LMS writes it: ``files`` {name: (text, date_time)}; ``links``: entries that are symlinks."""
    with zipfile.ZipFile(path, "w") as archive:
        for name, (text, when) in files.items():
            archive.writestr(zipfile.ZipInfo(name, date_time=when), text)
        for name in links:
            info = zipfile.ZipInfo(name, date_time=(2026, 1, 1, 0, 0, 0))
            info.external_attr = 0o120777 << 16
            archive.writestr(info, "/etc/passwd")
    return path


T1, T2 = (2026, 11, 2, 9, 0, 0), (2026, 11, 3, 18, 30, 0)


def _canvas_download(path, first, second, alan):
    return _zip(path, {
        "lovelaceada_101_5001_hw-2.ipynb": (first, T1),
        "lovelaceada_late_101_5009_hw-2-1.ipynb": (second, T2),  # the resubmission, late: Canvas's -1 suffix
        "turingalan_102_5003_02_maximum_likelihood.ipynb": (alan, T1),
        "nobodyhere_999_5004_hw-2.ipynb": ("{}", T1),  # a user id on no roster row
        "../escape.ipynb": ("{}", T1),
        "lovelaceada_101_5010_notes.txt": ("not a notebook", T1),
    }, links=["lovelaceada_101_5011_link.ipynb"])


def _moodle_download(path, ada, alan):
    return _zip(path, {
        "Ada Lovelace_7001_assignsubmission_file_/02_maximum_likelihood.ipynb": (ada, T2),
        "Alan Turing_7002_assignsubmission_file_/old.ipynb": (_untouched(), T1),
        "Alan Turing_7002_assignsubmission_file_/hw.ipynb": (alan, T2),  # the later file of the folder
        "Someone Else_7099_assignsubmission_file_/hw.ipynb": ("{}", T1),
    })


# ---------------------------------------------------------------- collect --

def test_canvas_download_is_mapped_by_user_id_latest_kept_nothing_guessed(tmp_path):
    rows = _roster(tmp_path)
    source = _canvas_download(tmp_path / "submissions.zip", "old", "new", "alan")
    lines = collect.collect(source, rows, "canvas", tmp_path / "out", MAX)
    text = "\n".join(lines)
    assert (tmp_path / "out" / "s01.ipynb").read_text() == "new"  # attachment 5009 after 5001
    assert (tmp_path / "out" / "s02.ipynb").read_text() == "alan"
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == ["collected.csv", "s01.ipynb", "s02.ipynb"]
    assert "lovelaceada_101_5001_hw-2.ipynb (s01)" in text  # the older one, named
    assert "nobodyhere_999_5004_hw-2.ipynb: Canvas user id 999 is in no roster row's lms_id" in text
    assert "../escape.ipynb: a path outside the download" in text
    assert "lovelaceada_101_5011_link.ipynb: a link or a special file, never read" in text
    assert "no notebook for 1 roster student(s): s03" in text
    manifest = collect.read_manifest(tmp_path / "out")
    assert manifest["s01"]["user_id"] == "101" and manifest["s01"]["attachment_id"] == "5009"
    assert manifest["s01"]["kept_of"] == "2" and manifest["s01"]["source"].startswith("lovelaceada_late_")
    # named so that Canvas's re-upload finds the user and the file of the submission (its first two numbers)
    name = upload.upload_name(manifest["s01"])
    assert [p for p in name.split("_") if p.isdigit()][:2] == ["101", "5009"]


def test_moodle_download_is_mapped_by_participant_id(tmp_path):
    rows = _roster(tmp_path)
    source = _moodle_download(tmp_path / "moodle.zip", "ada", "alan-new")
    text = "\n".join(collect.collect(source, rows, "moodle", tmp_path / "out", MAX))
    assert (tmp_path / "out" / "s01.ipynb").read_text() == "ada"
    assert (tmp_path / "out" / "s02.ipynb").read_text() == "alan-new"  # the later of the folder's two
    assert "Moodle participant 7099 is in no roster row's moodle_participant" in text
    manifest = collect.read_manifest(tmp_path / "out")
    assert upload.upload_name(manifest["s01"]) == "Ada Lovelace_7001_assignsubmission_file_/feedback.html"


def test_moodle_folder_with_two_files_of_the_same_time_is_not_guessed(tmp_path):
    rows = _roster(tmp_path)
    source = _zip(tmp_path / "moodle.zip", {"Ada Lovelace_7001_assignsubmission_file_/a.ipynb": ("a", T1),
                                            "Ada Lovelace_7001_assignsubmission_file_/b.ipynb": ("b", T1)})
    text = "\n".join(collect.collect(source, rows, "moodle", tmp_path / "out", MAX))
    assert not (tmp_path / "out" / "s01.ipynb").exists()
    assert "with the same time: the latest is not guessed" in text


def test_gradescope_export_is_mapped_by_email_or_sid_latest_created_at(tmp_path):
    rows = _roster(tmp_path)
    meta = """\
submission_311:
  :submitters:
  - :name: Ada Lovelace
    :sid: U001
    :email: ADA@uni.example
  :created_at: 2026-11-02 09:00:00.000000000 -08:00
submission_300:
  :submitters:
  - :name: Ada Lovelace
    :sid: U001
    :email: ada@uni.example
  :created_at: 2026-11-03 18:00:00.000000000 +01:00
submission_320:
  :submitters:
  - :name: Alan Turing
    :sid: U002
    :email: alan@elsewhere.example
  - :name: Stranger
    :sid: X9
    :email: x9@elsewhere.example
  :created_at: 2026-11-02 10:00:00.000000000 -08:00
"""
    source = _zip(tmp_path / "export.zip", {
        "assignment_42_export/submission_metadata.yml": (meta, T1),
        "assignment_42_export/submission_311/hw.ipynb": ("ada-311", T1),
        "assignment_42_export/submission_300/hw.ipynb": ("ada-300", T1),
        "assignment_42_export/submission_320/hw.ipynb": ("group", T1)})
    text = "\n".join(collect.collect(source, rows, "gradescope", tmp_path / "out", MAX))
    # 311 was created on Nov 2 at 17:00 UTC, 300 on Nov 3 at 17:00 UTC: the later one, whatever its number
    assert (tmp_path / "out" / "s01.ipynb").read_text() == "ada-300"
    assert (tmp_path / "out" / "s02.ipynb").read_text() == "group"  # by sid; the email differs
    assert "submitter x9@elsewhere.example of submission_320 is in no roster row's email or sis_user_id" in text


@pytest.mark.parametrize("case, said", [
    ("not a zip", "neither a zip file nor a folder"),
    ("out not empty", "is not empty"),
    ("moodle without participants", "no moodle_participant column"),
    ("gradescope without metadata", "no submission_metadata.yml"),
])
def test_a_download_that_cannot_be_collected_is_refused_before_anything_is_written(tmp_path, case, said):
    from grader import variants

    rows = _roster(tmp_path)
    source = _canvas_download(tmp_path / "d.zip", "a", "b", "c")
    out, fmt = tmp_path / "out", "canvas"
    if case == "not a zip":
        source = tmp_path / "d.csv"
        source.write_text("student\n")
    elif case == "out not empty":
        out.mkdir()
        (out / "keep.txt").write_text("mine")
    elif case == "moodle without participants":
        (tmp_path / "r.csv").write_text("student,email\ns01,a@b\n")
        rows, fmt = variants.read_roster_rows(tmp_path / "r.csv"), "moodle"
    else:
        fmt = "gradescope"
    with pytest.raises(collect.CollectError, match=said):
        collect.collect(source, rows, fmt, out, MAX)
    assert not out.exists() or sorted(p.name for p in out.iterdir()) == ["keep.txt"]


def test_a_notebook_over_the_limit_is_listed_not_collected(tmp_path):
    rows = _roster(tmp_path)
    source = _zip(tmp_path / "d.zip", {"turingalan_102_5003_hw.ipynb": ("x" * 5000, T1)})
    text = "\n".join(collect.collect(source, rows, "canvas", tmp_path / "out", 4096))
    assert "larger than the notebook limit" in text and not (tmp_path / "out" / "s02.ipynb").exists()


def test_make_collect_passes_its_options():
    done = subprocess.run(["make", "-n", "--no-print-directory", "collect", "FROM=d.zip", "ROSTER=r.csv",
                           "LMS=moodle", "OUT=subs"], capture_output=True, text=True, cwd=ROOT,
                          env={**os.environ, "MAKEFLAGS": ""})
    line = next(line for line in done.stdout.splitlines() if "-m grader collect" in line)
    assert '--from "d.zip" --roster "r.csv" --lms "moodle" --out "subs"' in line


def test_make_grade_from_a_download_collects_first_and_refuses_half_its_options():
    env = {**os.environ, "MAKEFLAGS": ""}
    done = subprocess.run(["make", "-n", "--no-print-directory", "-o", ".venv/.installed", "grade", "FROM=d.zip",
                           "ROSTER=r.csv", "LMS=canvas", "OUT=g"], capture_output=True, text=True, cwd=ROOT, env=env)
    lines = done.stdout.splitlines()
    first = next(i for i, line in enumerate(lines) if "-m grader collect" in line)
    assert '--from "d.zip" --roster "r.csv" --lms "canvas" --out "g/submissions"' in lines[first]
    assert '-m grader grade "g/submissions" --out "g"' in lines[first + 1] and '--lms "canvas"' in lines[first + 1]
    for wrong in (["FROM=d.zip", "SUBMISSIONS=s"], ["FROM=d.zip", "ROSTER=r.csv"], ["FROM=d.zip", "LMS=canvas"], []):
        refused = subprocess.run(["make", "--no-print-directory", "-o", ".venv/.installed", "grade", *wrong],
                                 capture_output=True, text=True, cwd=ROOT, env=env)
        assert refused.returncode == 2 and ("usage: make grade" in refused.stdout or "ROSTER= and LMS=" in
                                            refused.stdout), (wrong, refused.stdout, refused.stderr)


# ------------------------------------------------------- no silent zeros --

def _refused(tmp_path, capsys, notebook_meta, *argv):
    subs = tmp_path / "subs"
    subs.mkdir()
    for name in ("s01", "s02"):
        nb = nbformat.v4.new_notebook()
        nb.metadata["genmodels"] = notebook_meta
        nbformat.write(nb, subs / f"{name}.ipynb")
    (subs / "s03.ipynb").write_text("")  # an empty file claims nothing
    with pytest.raises(SystemExit) as exc:
        cli.main([str(subs), "--out", str(tmp_path / "out"), *argv])
    assert exc.value.code == 2
    assert not (tmp_path / "out").exists()  # refused before anything is graded or written
    return capsys.readouterr().err


def test_an_assignment_graded_without_assignment_is_refused_with_the_fix(tmp_path, capsys):
    err = _refused(tmp_path, capsys, {"page": "hw_mle", "assignment": True})
    assert "s01.ipynb (and 1 other notebook(s)) is the notebook of the homework hw_mle" in err
    assert "ASSIGNMENT=path/to/hw_mle.md" in err and "Nothing was graded." in err


def test_a_page_graded_with_assignment_is_refused(tmp_path, capsys):
    hw = tmp_path / "hw"
    hw.mkdir()
    from test_assignment import _homework

    md = _homework(hw)
    err = _refused(tmp_path, capsys, {"page": CH2}, "--assignment", str(md))
    assert f"is the notebook of the book's page {CH2}, not of the assignment hw1" in err


def test_another_page_than_chapter_is_refused(tmp_path, capsys):
    err = _refused(tmp_path, capsys, {"page": CH2}, "--chapter", "04_em_gaussian_mixtures")
    assert f"is the notebook of {CH2}, but this run grades 04_em_gaussian_mixtures" in err


def test_a_folder_that_mixes_them_is_graded_each_foreign_notebook_with_a_note():
    editions = find.load_editions()
    nb = nbformat.v4.new_notebook()
    nb.metadata["genmodels"] = {"page": "hw_mle", "assignment": True}
    page, problem = find.identify(nb, editions)
    assert page is None and "the homework ` hw_mle `, an instructor's own assignment" in problem


def test_untouched_starters_are_not_told_to_run_a_cell_again():
    from grader import judge

    assert "run that cell again" not in judge.NOT_IMPLEMENTED and "hand the notebook in again" in judge.NOT_IMPLEMENTED


def test_stale_lms_files_are_removed_with_a_word_when_they_cannot_be_written_again(tmp_path):
    editions = find.load_editions()
    result = report.validated({"page": CH2}, "s01", editions, CH2)
    (tmp_path / "moodle.csv").write_text("Full name,ID number\nAda,U001\n")
    # a run that graded no one (all skipped) changed no score: the file stays as it is
    assert lms.refresh([result], [], editions, tmp_path, written=["canvas"], graded=False) == []
    assert (tmp_path / "moodle.csv").is_file()
    lines = lms.refresh([result], [], editions, tmp_path, written=["canvas"])
    assert not (tmp_path / "moodle.csv").exists()
    assert "moodle.csv REMOVED" in lines[0] and "ROSTER=roster.csv LMS=moodle writes it again" in lines[0]


# ----------------------------------------------- collected, graded, sent back --

def _grade(subs, out, roster, *extra):
    cmd = [sys.executable, str(ROOT / "grader"), "grade", str(subs), "--out", str(out), "-j", "2",
           "--roster", str(roster), *extra]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stderr[-3000:]
    return done


def _csv(path):
    return list(csv.reader(io.StringIO(path.read_bytes().decode("utf-8-sig"), newline="")))


@pytest.fixture(scope="module")
def classes(tmp_path_factory):
    from sandbox_guard import require_sandbox

    require_sandbox(ROOT)
    root = tmp_path_factory.mktemp("lms")
    _roster(root)
    roster = root / "roster.csv"
    canvas = _canvas_download(root / "canvas.zip", _untouched(), _solved(), _untouched())
    assert collect.collect(canvas, _roster(root), "canvas", root / "canvas", MAX)
    first = _grade(root / "canvas", root / "canvas-out", roster, "--lms", "canvas,moodle")
    moodle_before = (root / "canvas-out" / "moodle.csv").read_bytes()
    (root / "canvas" / "s02.ipynb").write_text(_solved(), encoding="utf-8")  # graded again after a fix
    again = _grade(root / "canvas", root / "canvas-out", roster, "--lms", "canvas", "--student", "s02")
    moodle = _moodle_download(root / "moodle.zip", _solved(), _untouched())
    # collected and graded in one command: make grade FROM= (into OUT/submissions, then graded from there)
    third = subprocess.run(["make", "--no-print-directory", "-o", ".venv/.installed", "grade", f"FROM={moodle}",
                            f"ROSTER={roster}", "LMS=moodle", f"OUT={root / 'moodle-out'}", "GRADE_ARGS=-j 2"],
                           cwd=ROOT, capture_output=True, text=True, timeout=900, env={**os.environ, "MAKEFLAGS": ""})
    assert third.returncode == 0, third.stdout[-2000:] + third.stderr[-3000:]
    assert sorted(p.name for p in (root / "moodle-out" / "submissions").iterdir()) == [
        "collected.csv", "s01.ipynb", "s02.ipynb"]
    return {"root": root, "first": first, "again": again, "third": third, "moodle_before": moodle_before}


def _labels():
    return [label for label, _ in find.load_editions()[CH2]["exercises"]]


def test_canvas_class_graded_into_canvas_csv_and_a_reupload_zip(classes):
    out, top = classes["root"] / "canvas-out", len(_labels())
    rows = {r[1]: r for r in _csv(out / "canvas.csv")[2:]}
    assert rows["101"][-1] == str(top)  # the resubmission was graded, not the untouched first file
    assert rows["102"][-1] == str(top)  # after the re-grade
    assert rows["103"][-1] == "0"
    with zipfile.ZipFile(out / "canvas-feedback.zip") as archive:
        names = sorted(archive.namelist())
        page = archive.read(names[0]).decode("utf-8")
    assert names == ["lovelaceada_101_5009_feedback.html", "turingalan_102_5003_feedback.html"]
    assert "Feedback for Ada Lovelace (s01)" in page and "Exercise 1" in page
    assert re.search(r"Graded \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC, notebook SHA-256 [0-9a-f]{64}", page)


def test_a_regrade_with_one_lms_rewrites_the_other_lms_file(classes):
    out = classes["root"] / "canvas-out"
    before = {r[1]: r for r in _csv_bytes(classes["moodle_before"])[1:]}
    after = {r[1]: r for r in _csv(out / "moodle.csv")[1:]}
    top = str(len(_labels()))
    assert before["U002"][-2] == "0" and after["U002"][-2] == top
    assert f"moodle: {out / 'moodle.csv'} written again from every result" in classes["again"].stdout


def _csv_bytes(data):
    return list(csv.reader(io.StringIO(data.decode("utf-8-sig"), newline="")))


def test_moodle_class_graded_with_per_exercise_feedback_and_a_feedback_zip(classes):
    out, labels = classes["root"] / "moodle-out", _labels()
    header, *body = _csv(out / "moodle.csv")
    rows = {r[1]: r for r in body}
    note = rows["U001"][header.index("Feedback")]
    assert note.startswith(f"Score {len(labels)} / {len(labels)}.")
    assert f"Exercise 1 ({labels[0]}): passed." in note and f"Exercise {len(labels)} ({labels[-1]}): passed." in note
    assert f"Exercise 1 ({labels[0]}): not implemented." in rows["U002"][header.index("Feedback")]
    with zipfile.ZipFile(out / "moodle-feedback.zip") as archive:
        assert sorted(archive.namelist()) == ["Ada Lovelace_7001_assignsubmission_file_/feedback.html",
                                              "Alan Turing_7002_assignsubmission_file_/feedback.html"]
    md = (out / "feedback" / "s02.md").read_text()
    assert md.startswith("# Feedback for ` Alan Turing ` (` s02 `)")  # student text quoted as code
    assert "Homework: " in md and "| Exercise 1 (" in md and "passed: Passed:" not in md
    assert "run that cell again" not in md and "hand the notebook in again" in md
    result = json.loads((out / "results" / "s01.json").read_text())
    assert re.fullmatch(r"[0-9a-f]{64}", result["sha256"])
    graded = datetime.datetime.fromisoformat(result["graded_at"].replace("Z", "+00:00"))
    assert abs((datetime.datetime.now(datetime.timezone.utc) - graded).total_seconds()) < 3600
