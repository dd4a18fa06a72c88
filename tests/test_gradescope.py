"""Gradescope's autograder (issue 55): the bundle built, set up and run offline in Gradescope's own tree.

For chapter 2's first page and for the example assignment (with a course key and a roster of emails), the
test builds ``autograder.zip`` (lib's wheel built once, as ``make dist`` builds it), lays out Gradescope's
tree in a temporary root (``source/`` unzipped, ``submission/``, ``results/``, ``submission_metadata.json``;
the scripts read the root from ``AUTOGRADER_ROOT``), runs ``setup.sh`` (a fresh venv from the system's
Python, the pinned numerics from the package index pip is configured with), then ``run_autograder`` on an
honest, a wrong, an untouched and a hostile submission.  Every ``results.json`` validates against
``tests/gradescope_results.schema.json`` (written from Gradescope's specification); the honest one has
full marks and every score equals the total ``make grade`` (python -m grader grade) gives the same notebooks.
The hostile submissions try to forge results.json (also from a process left behind) and to read the
bundle's key, hidden checks and the submission folder; they are also graded where the container is the
boundary (no bubblewrap), where they must still earn and read nothing more.
"""

import concurrent.futures
import copy
import csv
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import zipfile
from pathlib import Path

import jsonschema
import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # the grader package
sys.path.insert(0, str(ROOT / "tools"))
sys.path.insert(0, str(ROOT / "tests"))

from grader import assignment as assignment_tool  # noqa: E402
import grade_attacks as attacks  # noqa: E402
import student  # noqa: E402
from grader import variants  # noqa: E402
from grader import assignment, container, gradescope  # noqa: E402
from sandbox_guard import require_sandbox  # noqa: E402
from test_assignment import LEAK, NAIVE_LL, RIGHT  # noqa: E402

require_sandbox(ROOT)

PAGE = "02_maximum_likelihood"
EXAMPLE = ROOT / "examples" / "assignment" / "hw1.md"
SCHEMA = json.loads((ROOT / "tests" / "gradescope_results.schema.json").read_text())
NAMES = ["honest", "wrong", "untouched", "hostile"]
# What a hostile notebook tries in Gradescope's container: forge the results (now, and from a process that
# outlives the notebook), and read what only the grader may (the key, the assignment, the submissions).
HOSTILE = """\
import json, os, subprocess, sys
FORGED = json.dumps({{"score": 1000, "tests": []}})
for path in {results!r}:
    try:
        open(path, "w").write(FORGED)
    except Exception:
        pass
subprocess.Popen([sys.executable, "-c", "import time\\nwhile True:\\n    try:\\n        open(%r, 'w').write(%r)\\n"
                  "    except Exception:\\n        pass\\n    time.sleep(0.2)" % ({results!r}[0], FORGED)],
                 start_new_session=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
SEEN = []
for path in {paths!r}:
    try:
        SEEN.append("READ " + (repr(os.listdir(path)) if os.path.isdir(path) else open(path).read(60)))
    except Exception as exc:
        SEEN.append(type(exc).__name__)

def {function}(*args):
    raise RuntimeError("SEEN " + " | ".join(SEEN))
"""


def _system_python():
    """A Python >= 3.11 that another user may run (not under /root): the container boundary's kernel runs it."""
    for candidate in ("/usr/bin/python3", "/usr/local/bin/python3"):
        ok = Path(candidate).exists() and subprocess.run(
            [candidate, "-c", "import sys, venv, ensurepip; sys.exit(sys.version_info < (3, 11))"],
            capture_output=True).returncode == 0
        if ok:
            return candidate
    pytest.skip("no system Python >= 3.11 with venv to build the bundle's venv from")


def _starters(nb):
    return [c for c in nb.cells if c.cell_type == "code" and "starter" in c.metadata.get("tags", [])]


def _answered(nb, answers):
    nb = copy.deepcopy(nb)
    for cell, source in zip(_starters(nb), answers):
        if source is not None:
            cell.source = source
    return nb


@pytest.fixture(scope="module")
def base():
    """A folder other users may walk through (the container boundary's kernel reads the venv and lib in it)."""
    folder = Path(tempfile.mkdtemp(prefix="gm-gradescope-test-"))
    os.chmod(folder, 0o755)
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture(scope="module")
def wheel(base):
    start = time.monotonic()
    path = gradescope.build_wheel(base / "wheel")
    return path, time.monotonic() - start


def _env(root, venv):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("AUTOGRADER_", "GM_AUTOGRADER_"))}
    return {**env, "AUTOGRADER_ROOT": str(root), "GM_AUTOGRADER_VENV": str(venv)}


def _set_up(zip_path, root, venv, python):
    """Gradescope's image build: source/ unzipped, then setup.sh (as root, its working folder the root)."""
    (root / "source").mkdir(parents=True)
    with zipfile.ZipFile(zip_path) as z:
        z.extractall(root / "source")
    for name in ("setup.sh", "run_autograder"):  # a zip keeps no modes for extractall: Gradescope's chmod
        os.chmod(root / "source" / name, 0o755)
    start = time.monotonic()
    done = subprocess.run(["bash", str(root / "source" / "setup.sh")], cwd=root, capture_output=True, text=True,
                          env={**_env(root, venv), "GM_AUTOGRADER_PYTHON": python}, timeout=900)
    assert done.returncode == 0, done.stderr[-3000:]
    return time.monotonic() - start


def _run(source_root, root, notebook, metadata, venv, boundary=None):
    """One submission in a tree of its own (a copy of the set-up source/): its results.json and seconds."""
    shutil.copytree(source_root / "source", root / "source", symlinks=True)
    (root / "submission").mkdir()
    (root / "results").mkdir()
    nbformat.write(notebook, root / "submission" / "notebook.ipynb")
    (root / "submission_metadata.json").write_text(json.dumps(metadata))
    env = _env(root, venv)
    if boundary:
        env["GM_AUTOGRADER_BOUNDARY"] = boundary
    start = time.monotonic()
    done = subprocess.run(["bash", str(root / "source" / "run_autograder")], cwd=root, capture_output=True,
                          text=True, env=env, timeout=900)
    seconds = time.monotonic() - start
    assert done.returncode == 0, done.stderr[-3000:]
    data = json.loads((root / "results" / "results.json").read_text())
    jsonschema.validate(data, SCHEMA)
    return data, seconds, done.stdout


def _metadata(sid):
    """Gradescope's submission_metadata.json for the roster's student ``sid`` (its documented fields)."""
    return {"id": 1, "created_at": "2026-12-06T00:00:00+00:00", "submission_method": "upload",
            "assignment": {"id": 2, "title": "Homework", "due_date": "2026-12-10T00:00:00+00:00"},
            "users": [{"email": f"{sid}@example.edu", "id": 3, "name": "A Student", "sid": sid}],
            "previous_submissions": []}


def _grade_book(notebooks, out, *extra):
    """What make grade gives the same notebooks (python -m grader grade): {student: total}."""
    subs = out / "submissions"
    subs.mkdir(parents=True)
    for name, nb in notebooks.items():
        nbformat.write(nb, subs / f"{name}.ipynb")
    start = time.monotonic()
    done = subprocess.run([sys.executable, str(ROOT / "grader"), "grade", str(subs), "--out", str(out / "grades"),
                           "-j", "2", *extra], capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stderr[-3000:]
    print(f"\nmake grade: {len(notebooks)} notebooks in {time.monotonic() - start:.1f} s (-j 2)")
    return {r["student"]: float(r["total"]) for r in csv.DictReader(open(out / "grades" / "grades.csv"))}


def _grade_all(set_up, base_name, notebooks, emails, venv, base):
    with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:  # as make grade's -j 2
        futures = {name: pool.submit(_run, set_up, base / f"{base_name}-{name}", nb, _metadata(emails[name]), venv)
                   for name, nb in notebooks.items()}
        return {name: f.result() for name, f in futures.items()}


# ------------------------------------------------------------------------ a page of the book --

def _hostile_page(honest, root):
    """The honest notebook, but its first answer forges and reads in the tree at ``root`` (where it is graded)."""
    nb = copy.deepcopy(honest)
    secrets = [str(root / "source" / "private"), str(root / "submission"),
               str(root / "source" / "grader" / "lib" / "checks" / "ch02.py")]
    _starters(nb)[0].source = HOSTILE.format(results=[str(root / "results" / "results.json")], paths=secrets,
                                             function="bernoulli_mle")
    return nb


@pytest.fixture(scope="module")
def page(base, wheel):
    python = _system_python()
    venv = base / "venv"
    out = base / "out"
    zip_path = gradescope.build(out, page=PAGE, wheel=wheel[0])
    set_up = base / "page"
    setup_seconds = _set_up(zip_path, set_up, venv, python)
    edition = nbformat.read(ROOT / "student" / f"{PAGE}.ipynb", as_version=4)
    honest = student.build(ROOT / "chapters" / f"{PAGE}.md", with_solutions=True)
    hostile = _hostile_page(honest, base / "page-hostile")
    notebooks = {"honest": honest, "wrong": _answered(honest, [attacks.WRONG]), "untouched": edition,
                 "hostile": hostile}
    emails = {name: f"s-{name}" for name in NAMES}  # the roster's ids: Gradescope's sid
    results = _grade_all(set_up, "page", notebooks, emails, venv, base)
    book = _grade_book({emails[n]: nb for n, nb in notebooks.items()}, base / "page-grade")
    return {"zip": zip_path, "results": results, "book": book, "emails": emails, "notebooks": notebooks,
            "set_up": set_up, "venv": venv, "setup_seconds": setup_seconds, "wheel": wheel[0], "hostile": hostile}


def test_the_bundle_holds_the_scripts_the_wheel_and_the_page_alone(page):
    names = zipfile.ZipFile(page["zip"]).namelist()
    assert {"setup.sh", "run_autograder", "requirements.txt", "config.json"} <= set(names)
    assert [n for n in names if n.startswith("wheels/")] == [f"wheels/{page['wheel'].name}"]
    assert [n for n in names if n.startswith("grader/student/")] == [f"grader/student/{PAGE}.ipynb"]
    assert not [n for n in names if n.startswith(("chapters/", "grader/chapters/", "grader/lib/"))]  # no solution
    pins = zipfile.ZipFile(page["zip"]).read("requirements.txt").decode()
    assert "numpy==" in pins and "scipy==" in pins and "ipykernel==" in pins


def test_every_results_json_validates_and_scores_as_make_grade(page):
    for name in NAMES:
        data, _, _ = page["results"][name]
        assert data["score"] == page["book"][page["emails"][name]], (name, data)
        assert data["score"] == sum(t["score"] for t in data["tests"])
        assert [t["name"] for t in data["tests"]] == ["ex-bernoulli-mle", "ex-bernoulli-log-likelihood",
                                                      "ex-smoothed-categorical-mle"]
        assert data["extra_data"]["student"] == page["emails"][name]  # from submission_metadata.json
        assert "bubblewrap" in data["output"] and "Sealed" in data["output"]
    honest = page["results"]["honest"][0]
    assert honest["score"] == 3 and all(t["status"] == "passed" for t in honest["tests"])
    assert page["results"]["wrong"][0]["score"] == 2 and page["results"]["untouched"][0]["score"] == 0
    assert "not implemented" in page["results"]["untouched"][0]["tests"][0]["output"].lower() \
        or "to do" in page["results"]["untouched"][0]["tests"][0]["output"].lower()
    wrong = page["results"]["wrong"][0]["tests"][0]
    assert wrong["status"] == "failed" and wrong["score"] == 0 and wrong["output"]


def test_a_hostile_notebook_forges_nothing_and_reads_nothing(page):
    data, _, _ = page["results"]["hostile"]
    # make grade's score: the exercises after its hostile cell are not graded as its own (issue 49's rule)
    assert data["score"] == page["book"]["s-hostile"] and data["tests"][0]["score"] == 0
    said = data["tests"][0]["output"]
    assert "SEEN" in said and "READ" not in said, said  # bubblewrap: none of those paths exists for it
    time.sleep(1.0)  # a forger left behind would have written by now
    for name in NAMES:  # each tree's results.json is still the grader's own
        again = json.loads((page["set_up"].parent / f"page-{name}" / "results" / "results.json").read_text())
        assert again == page["results"][name][0]


def test_where_bubblewrap_cannot_start_the_container_is_the_boundary(page, base):
    uid = container.container_user()[0]
    set_up = page["set_up"]
    hostile = _hostile_page(page["notebooks"]["honest"], base / "container-hostile")
    data, seconds, stdout = _run(set_up, base / "container-hostile", hostile, _metadata("s-hostile"),
                                 page["venv"], boundary="container")
    assert "(container)" in stdout
    assert data["score"] == page["book"]["s-hostile"]  # judged through the boundary as make grade judges it
    assert "the container is the boundary" in data["output"] and "gm-autograder" in data["output"]
    said = data["tests"][0]["output"]
    assert "READ" not in said and "PermissionError" in said, said  # root's files: the key, submissions, checks
    assert not container.processes_of(uid)  # the forger left behind was killed with the kernel
    time.sleep(1.0)
    assert json.loads((base / "container-hostile" / "results" / "results.json").read_text()) == data
    print(f"\nper submission: bubblewrap {[round(page['results'][n][1], 1) for n in NAMES]} s (two at a time), "
          f"container {seconds:.1f} s; setup.sh {page['setup_seconds']:.0f} s")


# --------------------------------------------------------------------------- the assignment --

@pytest.fixture(scope="module")
def homework(base, wheel, page):
    python = _system_python()
    work = base / "hw-work"
    work.mkdir()
    _, (student_path, _) = assignment_tool.build(EXAMPLE, work / "build")
    key = variants.write_key(work / "course.key")
    emails = {name: f"s-{name}" for name in NAMES}  # the roster's ids: Gradescope's sid
    roster = work / "roster.csv"
    roster.write_text("student\n" + "\n".join(emails.values()) + "\n")
    folders, _ = variants.handout(roster, key, work / "handout", editions=work / "build")
    handed = {name: nbformat.read(folders[emails[name]] / "hw1.ipynb", as_version=4) for name in NAMES}
    zip_path = gradescope.build(base / "out", assignment=EXAMPLE, key=key, roster=roster, wheel=wheel[0])
    set_up = base / "hw"
    _set_up(zip_path, set_up, page["venv"], python)
    there = base / "hw-hostile"  # the tree the hostile notebook is graded in
    folder = there / "source" / "private" / "assignment"
    probe = HOSTILE.format(results=[str(there / "results" / "results.json")],
                           paths=[str(folder), str(folder / "hidden_checks.py"), str(there / "source" / "private")],
                           function="poisson_mle")
    notebooks = {"honest": _answered(handed["honest"], RIGHT),
                 "wrong": _answered(handed["wrong"], ["def poisson_mle(x):\n    return float(x.sum() / (len(x) - 1))",
                                                      NAIVE_LL, "answer = rate_variant.total / rate_variant.n"]),
                 "untouched": handed["untouched"],
                 "hostile": _answered(handed["hostile"], [probe, LEAK, RIGHT[2]])}
    results = _grade_all(set_up, "hw", notebooks, emails, page["venv"], base)
    book = _grade_book({emails[n]: nb for n, nb in notebooks.items()}, base / "hw-grade", "--assignment",
                       str(EXAMPLE), "--key", str(key), "--roster", str(roster))
    return {"zip": zip_path, "results": results, "book": book, "emails": emails}


def test_the_assignment_bundle_keeps_its_secrets_private(homework):
    assert homework["zip"].stat().st_mode & 0o077 == 0  # the key and the solutions: the instructor's alone
    names = zipfile.ZipFile(homework["zip"]).namelist()
    assert {"private/course.key", "private/roster.csv", "private/assignment/hw1.md",
            "private/assignment/checks.py", "private/assignment/hidden_checks.py"} <= set(names)
    assert not [n for n in names if n.startswith("grader/student/")]


def test_the_assignment_scores_as_make_grade_hidden_checks_after_the_due_date(homework):
    results = homework["results"]
    for name in NAMES:
        data, _, _ = results[name]
        assert data["score"] == homework["book"][homework["emails"][name]], (name, data)
        assert data["score"] == sum(t["score"] for t in data["tests"])
    honest = results["honest"][0]
    assert honest["score"] == 4 == sum(t["max_score"] for t in honest["tests"])
    tests = {t["name"]: t for t in honest["tests"]}
    hidden = [t for t in honest["tests"] if t["visibility"] == "after_due_date"]
    assert {t["name"] for t in hidden} == {f"{label}: hidden check" for label in
                                           assignment.load(EXAMPLE).hidden}
    assert all(tests[t["name"].replace("hidden", "public")]["visibility"] == "visible" for t in hidden)
    assert all(tests[t["name"].replace("hidden", "public")]["max_score"] == 0 for t in hidden)
    wrong = {t["name"]: t for t in results["wrong"][0]["tests"]}
    assert results["wrong"][0]["score"] == 0
    # its log-likelihood passes the public check and fails the hidden one: visible pass, hidden 0
    public = wrong["ex-hw-poisson-log-likelihood: public check"]
    secret = wrong["ex-hw-poisson-log-likelihood: hidden check"]
    assert public["status"] == "passed" and secret["status"] == "failed" and secret["score"] == 0
    assert secret["visibility"] == "after_due_date" and "returned NaN" in secret["output"]
    assert wrong["ex-hw-poisson-mle: public check"]["output"].startswith("failed: you divided by n - 1")
    assert results["untouched"][0]["score"] == 0


def test_the_assignment_hostile_reads_no_secret_and_leaks_no_hidden_input(homework):
    data, _, _ = homework["results"]["hostile"]
    text = json.dumps(data)
    assert "READ" not in text and "LEAKED" not in text
    assert "hidden_checks" not in text.replace("hidden check", "")


# ------------------------------------------------------------------ what Gradescope hands over --

def test_the_notebook_handed_in_is_found_never_through_a_link(tmp_path):
    sub = tmp_path / "submission"
    (sub / "deep").mkdir(parents=True)
    assert gradescope.find_notebook(sub, PAGE)[0] is None  # nothing handed in: grade 0, says why
    (sub / "deep" / "mine.ipynb").write_text("{}")
    assert gradescope.find_notebook(sub, PAGE) == (sub / "deep" / "mine.ipynb", None)
    (sub / "other.ipynb").write_text("{}")
    path, note = gradescope.find_notebook(sub, PAGE)
    assert path is None and "2 notebooks" in note and f"{PAGE}.ipynb" in note
    (sub / f"{PAGE}.ipynb").write_text("{}")
    assert gradescope.find_notebook(sub, PAGE)[0] == sub / f"{PAGE}.ipynb"
    (sub / f"{PAGE}.ipynb").unlink()
    (sub / f"{PAGE}.ipynb").symlink_to("/etc/shadow")  # a link is never the submission
    assert gradescope.find_notebook(sub, PAGE)[0] is None


def test_the_student_is_gradescopes_sid_or_says_why_not(tmp_path):
    meta = tmp_path / "submission_metadata.json"
    meta.write_text(json.dumps(_metadata("s-ada")))
    assert gradescope.student_of(meta, "sid") == ("s-ada", None)
    data = _metadata("s-ada")
    del data["users"][0]["sid"]
    meta.write_text(json.dumps(data))
    student_id, note = gradescope.student_of(meta, "sid")
    assert student_id == "s-ada@example.edu" and "no sid" in note and "variant" in note
    meta.write_text("{not json")
    assert gradescope.student_of(meta, "sid")[0] == "student"


def test_an_autograder_that_fails_still_writes_a_valid_results_json(tmp_path, capsys):
    (tmp_path / "source").mkdir()  # no config.json: the bundle is broken
    assert gradescope.main(["run", "--root", str(tmp_path)]) == 1
    data = json.loads((tmp_path / "results" / "results.json").read_text())
    jsonschema.validate(data, SCHEMA)
    assert data["score"] == 0 and "FileNotFoundError" in data["output"] and "grade it again" in data["output"]
    assert "Traceback" in capsys.readouterr().err  # the instructor's log says where
