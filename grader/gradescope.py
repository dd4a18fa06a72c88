"""Gradescope: the autograder bundle of a page or an assignment, and the grading of one submission inside it.

``make gradescope PAGE=04_em_gaussian_mixtures`` or ``make gradescope ASSIGNMENT=path/hw1.md`` (with
``KEY=course.key [ROSTER=roster.csv]`` for variants) runs :func:`build`, which writes
``build/gradescope/<name>/autograder.zip`` as Gradescope's specification asks:

* ``setup.sh`` (run once, when Gradescope builds the image): a venv with the numerics pinned to this
  checkout's versions (``requirements.txt``), ``lib`` from its wheel (``wheels/``, built as ``make dist``
  builds it) unpacked into the grader's folder, bubblewrap and the users ``gm-sandbox``
  (``tools/install_sandbox.sh``'s) and ``gm-autograder`` (grader/container.py's) where the image allows them;
* ``run_autograder`` (run per submission): :func:`run`, this project's grader on the one notebook in
  ``submission/``: the page's student edition (or the assignment, its public and hidden checks) decides
  the points, the key inside the bundle the student's variants (the student is named by
  ``submission_metadata.json``), and ``results/results.json`` gets one test per exercise with the check's
  message as its output; a hidden check of an assignment is a test of its own, shown after the due date.
* ``grader/``: the grader's own stages (the package ``grader/``, and the book's readers it uses,
  ``tools/book.py`` and ``tools/student.py``) and the page's student edition, laid out as in the checkout; ``private/``: the key,
  roster and assignment, which only root may read once ``run_autograder`` has started.

The scripts take Gradescope's root from ``AUTOGRADER_ROOT`` (default ``/autograder``): the test lays the
same tree out in a temporary folder.  The seal is the grader's own (grader/run.py, grader/sandbox.py):
where bubblewrap and cgroups cannot start (Docker's default seccomp profile refuses user namespaces), the
container is the boundary (grader/container.py) and ``results.json``'s top-level output says so.
"""

from __future__ import annotations

import argparse
import importlib.metadata
import json
import os
import shutil
import stat
import subprocess
import sys
import tempfile
import time
import types
import zipfile
from pathlib import Path

from grader.common import EDITIONS, ROOT, escape

ROOT_VARIABLE = "AUTOGRADER_ROOT"
DEFAULT_ROOT = "/autograder"
FORCE_BOUNDARY = "GM_AUTOGRADER_BOUNDARY"  # "container": skip bubblewrap even where it would start
# What grading needs, pinned to this checkout's versions: the kernel, the numerics, the notebooks.
GRADING_NEEDS = ["numpy", "scipy", "matplotlib", "scikit-learn", "threadpoolctl", "ipykernel", "nbformat",
                 "jupytext"]
MIN_PYTHON = (3, 11)  # the oldest Python the pinned numpy and scipy have wheels for
BUNDLE_FILES = ["tools/book.py", "tools/student.py", "pyproject.toml", "_config.yml"]  # and grader/ (build)
VISIBILITY = ("visible", "hidden", "after_due_date", "after_published")
SEALS = {
    "bubblewrap": "Sealed as on the instructor's machine: the notebook ran as an unprivileged user in "
                  "bubblewrap and cgroups, and was judged in the grading process.",
    "container": "bubblewrap could not start in this container ({why}): the container is the boundary. The "
                 "notebook ran as the unprivileged user gm-autograder, with the grader's limits on time, memory, "
                 "processes and file sizes, and was judged in the grading process.",
}

SETUP_SH = r"""#!/usr/bin/env bash
# Gradescope runs this once, when it builds the autograder's image (guide/gradescope.md, "Gradescope").
# It installs what grading needs: a venv with the pinned numerics, lib from its wheel, and the
# sandbox's bubblewrap and users (gm-sandbox, gm-autograder) where the image allows them.
set -euo pipefail
ROOT="${AUTOGRADER_ROOT:-/autograder}"
SRC="$ROOT/source"
VENV="${GM_AUTOGRADER_VENV:-$ROOT/venv}"

python_ok() { "$1" -c 'import sys, venv, ensurepip; sys.exit(sys.version_info < (@MAJOR@, @MINOR@))' 2>/dev/null; }
find_python() {
  for p in ${GM_AUTOGRADER_PYTHON:-} python3.13 python3.12 python3.11 python3; do
    if command -v "$p" >/dev/null 2>&1 && python_ok "$p"; then command -v "$p"; return 0; fi
  done
  return 1
}
APT=""
if [[ "$(id -u)" -eq 0 ]] && command -v apt-get >/dev/null 2>&1; then APT=1; fi
PYTHON="$(find_python || true)"
if [[ -z "$PYTHON" && -n "$APT" ]]; then  # Ubuntu 22.04's python3 is 3.10: its python3.11 will do
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3.11 python3.11-venv >/dev/null
  PYTHON="$(find_python || true)"
fi
if [[ -z "$PYTHON" ]]; then
  echo "setup.sh: no Python >= @MAJOR@.@MINOR@ with venv here; choose Gradescope's Ubuntu 24.04 base image" >&2
  exit 1
fi
if ! command -v bwrap >/dev/null 2>&1 && [[ -n "$APT" ]]; then
  # where the container refuses user namespaces bwrap will not start; run_autograder says so
  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq bubblewrap >/dev/null) \
    || echo "setup.sh: bubblewrap did not install: the container will be the sandbox's boundary" >&2
fi
# gm-sandbox runs the notebook under bubblewrap (tools/install_sandbox.sh's), gm-autograder where the
# container is the boundary: users that own nothing
for user in gm-sandbox gm-autograder; do
  if ! getent passwd "$user" >/dev/null; then
    useradd --system --user-group --no-create-home --home-dir /nonexistent --shell /usr/sbin/nologin \
      --comment "genmodels grader sandbox, owns nothing" "$user"
  fi
done
"$PYTHON" -m venv "$VENV"
"$VENV/bin/python" -m pip install --quiet --disable-pip-version-check -r "$SRC/requirements.txt"
# lib from its wheel, into the grader's folder (where the grader and the sandbox import it)
"$VENV/bin/python" -m pip install --quiet --disable-pip-version-check --no-deps --upgrade \
  --target "$SRC/grader" "$SRC"/wheels/*.whl
"$VENV/bin/python" -m pip check
# The sandbox's user reads the grader's folder and the venv; only root reads the rest of the bundle.
chmod -R a+rX "$SRC/grader" "$VENV"
chmod 755 "$SRC"
chmod -R go= "$SRC/wheels"  # lib's wheel holds every check: the grading process's, not the notebook's
if [[ -d "$SRC/private" ]]; then chmod -R go= "$SRC/private"; fi
chmod o+x "$ROOT"
"""

RUN_AUTOGRADER = r"""#!/usr/bin/env bash
# Gradescope runs this once per submission: this project's grader on the notebook in submission/,
# which writes results/results.json (guide/gradescope.md, "Gradescope").
ROOT="${AUTOGRADER_ROOT:-/autograder}"
VENV="${GM_AUTOGRADER_VENV:-$ROOT/venv}"
cd "$ROOT/source/grader"  # python -m grader: the bundle's grader package and lib (setup.sh put it there)
exec env OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 PYTHONHASHSEED=0 \
  "$VENV/bin/python" -m grader gradescope run --root "$ROOT"
"""


class BundleError(Exception):
    """Bad input to :func:`build`: the message says what to fix."""


# ------------------------------------------------------------------- building --

def _requirement_pins():
    """{normalised name: "name==version"} of this checkout's requirements.txt."""
    pins = {}
    for line in (ROOT / "requirements.txt").read_text().splitlines():
        line = line.split("#", 1)[0].strip()
        if "==" in line:
            name = line.split("==", 1)[0].split("[", 1)[0].strip()
            pins[_norm(name)] = line
    return pins


def _norm(name):
    return name.lower().replace("_", "-").replace(".", "-")


def pinned_requirements(names):
    """Lines ``name==version``: ``names`` at requirements.txt's pins and everything they need at this venv's
    versions, so that the bundle grades with the numbers the book was tested with."""
    from packaging.markers import default_environment
    from packaging.requirements import Requirement

    pins, out, seen = _requirement_pins(), {}, set()
    todo = [(Requirement(n).name, frozenset(Requirement(n).extras)) for n in names]
    environment = default_environment()
    while todo:
        name, extras = todo.pop()
        name = _norm(name)
        if (name, extras) in seen:
            continue
        seen.add((name, extras))
        try:
            dist = importlib.metadata.distribution(name)
        except importlib.metadata.PackageNotFoundError:
            raise BundleError(f"{name} is not installed in this venv: run make install first") from None
        out[name] = pins.get(name, f"{dist.metadata['Name']}=={dist.version}")
        for text in dist.requires or []:
            req = Requirement(text)
            if req.marker is None or any(req.marker.evaluate({**environment, "extra": extra})
                                         for extra in ("", *extras)):
                todo.append((req.name, frozenset(req.extras)))
    return [out[name] for name in sorted(out)]


def _page_needs(md):
    """The packages of the extras of ``lib`` that page ``md`` imports (dask for chapter 4's last page)."""
    import book
    from packaging.requirements import Requirement

    return [Requirement(r).name for reqs in book.page_extras(md).values() for r in reqs]


def build_wheel(out):
    """lib's wheel, built as ``make dist`` builds it (``python -m build``), into ``out``: from a copy of what
    the build reads (pyproject.toml, README.md, LICENSE, MANIFEST.in, lib/), so the checkout's build/ (make
    dist's) is never touched."""
    with tempfile.TemporaryDirectory(prefix="gm-wheel-") as tmp:
        for name in ("pyproject.toml", "README.md", "LICENSE", "MANIFEST.in"):
            if (ROOT / name).exists():
                shutil.copy2(ROOT / name, Path(tmp) / name)
        shutil.copytree(ROOT / "lib", Path(tmp) / "lib", ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
        done = subprocess.run([sys.executable, "-m", "build", "--wheel", "--outdir", str(Path(out).resolve()), tmp],
                              capture_output=True, text=True)
    if done.returncode:
        raise BundleError(f"building lib's wheel failed:\n{done.stderr[-2000:]}")
    return next(Path(out).glob("*.whl"))


def build(out, page=None, assignment=None, key=None, roster=None, wheel=None, id_field="sid"):
    """Write ``out/<name>/autograder.zip`` for ``page`` (a page of the book with exercises) or ``assignment``
    (``path/hw1.md``); return its path.  ``key`` (and ``roster``) judge each student's own variants."""
    from grader import assignment as homework
    from grader.find import load_editions

    from grader import variants as handouts

    if (page is None) == (assignment is None):
        raise BundleError("give a page (PAGE=04_em_gaussian_mixtures) or an assignment (ASSIGNMENT=path/hw1.md)")
    if id_field not in ("email", "sid", "id", "name"):
        raise BundleError(f"ID_FIELD={id_field!r}: one of email, sid, id, name (the field of Gradescope's "
                          "submission_metadata.json that names the student in the roster of the handout)")
    if assignment is not None:
        try:
            editions = homework.editions(assignment)
        except homework.AssignmentError as exc:
            raise BundleError(str(exc)) from None
        name = next(iter(editions))
        md = Path(assignment).resolve()
    else:
        editions = load_editions(EDITIONS)
        if page not in editions or not editions[page]["checks"]:
            with_checks = ", ".join(p for p, e in editions.items() if e["checks"])
            raise BundleError(f"PAGE={page}: not a page of the book with exercises (pages: {with_checks}).")
        name, md = page, ROOT / "chapters" / f"{page}.md"
    if key is not None:
        try:
            handouts.read_key(key)
            if roster is not None:
                handouts.read_roster_rows(roster)
        except handouts.UsageError as exc:
            raise BundleError(str(exc)) from None
    elif roster is not None:
        raise BundleError("ROSTER= without KEY=: the roster only serves to judge variants with the course key.")
    target = Path(out) / name
    target.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="gm-gradescope-") as tmp:
        wheel = Path(wheel) if wheel else build_wheel(tmp)
        if not wheel.is_file() or wheel.suffix != ".whl":
            raise BundleError(f"{wheel}: not a wheel (make dist builds it into dist/)")
        needs = GRADING_NEEDS + _page_needs(md)
        files = {
            "setup.sh": SETUP_SH.replace("@MAJOR@", str(MIN_PYTHON[0])).replace("@MINOR@", str(MIN_PYTHON[1])),
            "run_autograder": RUN_AUTOGRADER,
            "requirements.txt": "# What grading needs, at the versions the book was tested with\n"
                                + "\n".join(pinned_requirements(needs)) + "\n",
            "config.json": json.dumps({"name": name, "page": None if assignment else page,
                                       "assignment": f"private/assignment/{md.name}" if assignment else None,
                                       "key": "private/course.key" if key else None,
                                       "roster": "private/roster.csv" if roster else None,
                                       "id_field": id_field}, indent=1) + "\n",
        }
        zip_path = target / "autograder.zip"
        tmp_zip = target / "autograder.zip.tmp"
        with zipfile.ZipFile(tmp_zip, "w", zipfile.ZIP_DEFLATED) as z:
            for arc, text in files.items():
                _add(z, arc, text.encode(), 0o755 if arc in ("setup.sh", "run_autograder") else 0o644)
            _add(z, f"wheels/{wheel.name}", wheel.read_bytes())
            package = ROOT / "grader"
            for path in sorted([*package.glob("*.py"), *package.glob("*.json")]):  # the seccomp profile too
                _add(z, f"grader/grader/{path.name}", path.read_bytes())
            for rel in BUNDLE_FILES:
                _add(z, f"grader/{rel}", (ROOT / rel).read_bytes())
            if page is not None:
                _add(z, f"grader/student/{page}.ipynb", (EDITIONS / f"{page}.ipynb").read_bytes())
            else:  # the instructor's page, public and hidden checks: only root reads them in the container
                for part in (md, md.parent / "checks.py", md.parent / "hidden_checks.py"):
                    if part.is_file():
                        _add(z, f"private/assignment/{part.name}", part.read_bytes(), 0o600)
            if key is not None:
                _add(z, "private/course.key", Path(key).read_bytes(), 0o600)
                overrides = handouts.overrides_path(Path(key))  # the re-rolls, beside the key
                if overrides.is_file():
                    _add(z, handouts.overrides_path("private/course.key").as_posix(), overrides.read_bytes(), 0o600)
                if roster is not None:
                    _add(z, "private/roster.csv", Path(roster).read_bytes(), 0o600)
        os.chmod(tmp_zip, 0o600)  # it may hold the key, the solutions and the hidden checks: the instructor's
        os.replace(tmp_zip, zip_path)
    return zip_path


def _add(z, name, data, mode=0o644):
    info = zipfile.ZipInfo(name, date_time=(2026, 1, 1, 0, 0, 0))  # the same bundle from the same sources
    info.external_attr = (stat.S_IFREG | mode) << 16
    info.compress_type = zipfile.ZIP_DEFLATED
    z.writestr(info, data)


# -------------------------------------------------------------------- grading --

def student_of(metadata_path, id_field):
    """(student id, note) from Gradescope's submission_metadata.json (its first user: a group's first member).

    ``id_field`` names the roster's student (``sid``, Gradescope's student ID, by default); where Gradescope
    gave none, the email names the student and the note says that variants cannot be the student's own."""
    try:
        users = json.loads(Path(metadata_path).read_text()).get("users") or []
        user = users[0] if isinstance(users[0], dict) else {}
    except (OSError, ValueError, AttributeError, IndexError):
        user = {}
    for field in dict.fromkeys([id_field, "email", "id"]):
        value = user.get(field)
        if value not in (None, ""):
            note = None if field == id_field else (
                f"Gradescope gave no {id_field} for this submission (its roster lacks it): it is named by its "
                f"{field}, and the variant exercises are judged as for a student not in the roster.")
            return escape(str(value), 200), note
    return "student", f"Gradescope gave no {id_field} for this submission (no submission_metadata.json user)."


def find_notebook(folder, name):
    """(path, note): the submission's notebook, regular files only; ``<name>.ipynb`` among several."""
    found = []
    for here, dirs, files in os.walk(folder):  # never through a link (os.walk does not follow them)
        for f in files:
            path = Path(here) / f
            if f.endswith(".ipynb") and ".ipynb_checkpoints" not in path.parts \
                    and stat.S_ISREG(os.lstat(path).st_mode):
                found.append(path)
    found.sort(key=lambda p: os.fsencode(str(p)))
    if len(found) == 1:
        return found[0], None
    named = [p for p in found if p.name == f"{name}.ipynb"]
    if len(named) == 1:
        return named[0], None
    if not found:
        return None, "No .ipynb file was handed in: upload the notebook itself (File > Download > .ipynb). Grade 0."
    shown = ", ".join(escape(p.name, 100) for p in found[:10])
    return None, (f"{len(found)} notebooks were handed in ({shown}): upload only {name}.ipynb. Grade 0.")


def _boundary(limits):
    """("bubblewrap", None) where the grader's sandbox starts, ("container", why) where only the user and
    the limits do, (None, why) where not even that (no root, no gm-sandbox)."""
    from grader import sandbox
    from grader.container import container_user

    problem = sandbox.probe(ROOT, limits) or _bwrap_fails()
    if os.environ.get(FORCE_BOUNDARY) == "container":
        problem = problem or f"{FORCE_BOUNDARY}=container"
    elif not problem:
        return "bubblewrap", None
    if os.geteuid() != 0:
        return None, f"{problem}; and the grader is not root, so it cannot run the notebook as another user"
    try:
        container_user()
    except sandbox.SandboxUnavailable as exc:
        return None, f"{problem}; and {exc}"
    return "container", problem


def _bwrap_fails():
    """Why bubblewrap cannot make the sandbox's namespaces here (Docker's seccomp profile refuses them), or None.

    ``sandbox.probe`` finds bwrap, the cgroups and the user; this starts bwrap as that user, with the
    namespaces every kernel gets, so that a container that refuses them is found before a notebook runs."""
    from grader import sandbox

    uid, gid = sandbox.sandbox_user()

    def drop():
        os.setgroups([])
        os.setresgid(gid, gid, gid)
        os.setresuid(uid, uid, uid)

    argv = [sandbox.bwrap_path(), "--unshare-user", "--uid", str(sandbox.NOBODY), "--disable-userns",
            "--unshare-pid", "--unshare-net", "--unshare-ipc", "--unshare-uts", "--die-with-parent",
            "--ro-bind", "/", "/", "--proc", "/proc", "--", "/bin/true"]
    try:
        done = subprocess.run(argv, preexec_fn=drop, capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"bwrap did not start ({exc})"
    if done.returncode:
        return f"bwrap did not start: {escape(done.stderr.strip()[-300:], 300) or f'exit code {done.returncode}'}"
    return None


def _lock(*paths):
    """Only root may read (or write) these from now on."""
    for path in paths:
        if path.exists() and not path.is_symlink():
            os.chmod(path, 0o700 if path.is_dir() else 0o600)


def _variants(config, source, student):
    """The variants of ``student`` as grader/run.py takes them, from the key (and roster) in the bundle."""
    from grader import variants as handouts

    if not config.get("key"):
        return {"mine": {}, "owners": {}, "keyed": False}
    key_path = source / config["key"]
    key = handouts.read_key(key_path)
    overrides = handouts.read_overrides(key_path)
    roster = [r["student"] for r in handouts.read_roster_rows(source / config["roster"])] \
        if config.get("roster") else []
    mine = handouts.seeds(key, list(dict.fromkeys([*roster, student])), overrides)
    owners = {}
    for who, seeds in mine.items():
        for label, seed in seeds.items():
            owners.setdefault(label, {})[seed] = who
    return {"mine": mine, "owners": owners, "keyed": True}


def _said(status, message):
    """A test's output: the check's message, with its status where the message does not start with it."""
    return message if message.lower().startswith(status) else f"{status}: {message}"


def tests_of(result, edition):
    """Gradescope's tests for one result: one per exercise; an assignment's hidden check a test of its own,
    after the due date, which carries the exercise's points (the visible test shows the public check)."""
    from grader.assignment import split_message

    hidden = set(edition["assignment"].hidden) if edition.get("assignment") else set()
    tests = []
    for number, ex in enumerate(result["exercises"], 1):
        label, points, status = ex["exercise"], ex["points"], ex["status"]
        earned = points if status == "passed" else 0
        if label not in hidden:
            tests.append({"name": label, "number": str(number), "score": earned, "max_score": points,
                          "status": "passed" if earned else "failed", "output": _said(status, ex["message"]),
                          "visibility": "visible"})
            continue
        (public_status, public), (secret_status, secret) = split_message(status, ex["message"])
        tests.append({"name": f"{label}: public check", "number": f"{number}.1", "score": 0, "max_score": 0,
                      "status": "passed" if public_status == "passed" else "failed",
                      "output": f"{_said(public_status, public)} (the points of this exercise come with its hidden "
                                "check, shown after the due date)", "visibility": "visible"})
        tests.append({"name": f"{label}: hidden check", "number": f"{number}.2", "score": earned,
                      "max_score": points, "status": "passed" if earned else "failed",
                      "output": _said(secret_status, secret), "visibility": "after_due_date"})
    return tests


def results_json(result, edition, seal, seconds):
    """Gradescope's results.json (tests/gradescope_results.schema.json) for one validated result."""
    from grader.report import score

    total, top = score(result)
    lines = [f"Notebook: {result['page'] or 'not recognised'}. Score: {total:g} / {top:g}.",
             *[f"Note. {' '.join(n.splitlines())}" for n in result["notes"]], seal]
    return {"score": total, "execution_time": round(seconds), "output": "\n\n".join(lines),
            "visibility": "visible", "stdout_visibility": "hidden", "tests": tests_of(result, edition),
            "extra_data": {"student": result["student"], "page": result["page"], "variants": result["variants"]}}


def _write_results(results_dir, data):
    results_dir.mkdir(parents=True, exist_ok=True)
    tmp = results_dir / "results.json.tmp"
    tmp.write_text(json.dumps(data, indent=1))
    os.replace(tmp, results_dir / "results.json")


def run(root):
    """Grade the one submission of Gradescope's tree at ``root``; write ``root/results/results.json``."""
    from grader import find, report
    from grader import grade as command
    from grader import run as runner
    from grader.container import BOUNDARY, container_user, kill_user

    start = time.monotonic()
    root = Path(root).resolve()
    source, submission_dir, results_dir = root / "source", root / "submission", root / "results"
    config = json.loads((source / "config.json").read_text())
    if (source / "grader").resolve() != ROOT:
        raise SystemExit(f"gradescope run: this grader is {ROOT}, not the bundle's {source / 'grader'}")
    name = config["name"]
    results_dir.mkdir(parents=True, exist_ok=True)
    # Nothing of the bundle's secrets, the submission or the results is the sandbox's user's to read.
    _lock(results_dir, submission_dir, source / "private", source / "wheels", root / "submission_metadata.json")
    student, who = student_of(root / "submission_metadata.json", config["id_field"])
    args = command.build_parser().parse_args([str(submission_dir)])
    hidden = [submission_dir, results_dir, source / "private", root / "submission_metadata.json"]
    limits = command.limits_for(args, hidden)
    editions = find.load_editions(EDITIONS)
    if config.get("assignment"):
        from grader import assignment

        limits["assignment"] = str(source / config["assignment"])
        editions = assignment.editions(limits["assignment"])
    edition = editions[name]
    boundary, why = _boundary(limits)
    seal = SEALS["bubblewrap"] if boundary == "bubblewrap" else SEALS["container"].format(why=why) \
        if boundary == "container" else None
    path, note = find_notebook(submission_dir, name)
    if boundary is None or path is None:
        result = runner._skeleton(student, name, editions, [note or (
            f"The grader could not run the notebook safely in this container ({why}). Grade 0; the instructor "
            "will grade it again.")])
        result = report.validated(result, student, editions, name)
        _write_results(results_dir, results_json(result, edition, seal or "Not run.", time.monotonic() - start))
        print(f"gradescope: {student}: not graded ({note or why})")
        return 1 if boundary is None else 0
    if boundary == "container":
        limits["boundary"] = BOUNDARY
        _lock(ROOT / "lib" / "checks")  # the kernel sees the sandbox's edition of lib.checks only
    work = Path(tempfile.mkdtemp(prefix="gm-gradescope-"))  # root's: the grader's own results
    try:
        grading = types.SimpleNamespace(chapter=name, editions=EDITIONS, unsafe_no_sandbox=False)
        entry = find.Submission(path, student, escape(path.name, 200), True)
        result = runner._grade_in_subprocess(entry, grading, limits, work, editions, runner._pool_context(),
                                             _variants(config, source, student))
    finally:
        if boundary == "container":  # whatever the notebook left running dies before results.json is written
            kill_user(container_user()[0])
        shutil.rmtree(work, ignore_errors=True)
    if who and config.get("key"):
        result["notes"].append(who)
    data = results_json(result, edition, seal, time.monotonic() - start)
    _write_results(results_dir, data)
    print(f"gradescope: {student}: {data['score']:g} / {sum(t['max_score'] for t in data['tests']):g} in "
          f"{time.monotonic() - start:.1f} s ({boundary})")
    return 0


# ------------------------------------------------------------------- the command line --

def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    make = sub.add_parser("build", help="write OUT/<name>/autograder.zip")
    make.add_argument("--page", help="a page of the book with exercises, e.g. 04_em_gaussian_mixtures")
    make.add_argument("--assignment", type=Path, help="an instructor's homework, path/to/hw1.md")
    make.add_argument("--key", type=Path, help="the course key: judge each student's own variants")
    make.add_argument("--roster", type=Path, help="the roster of the handout (names another student's seeds)")
    make.add_argument("--wheel", type=Path, help="lib's wheel (make dist); default: build it")
    make.add_argument("--id-field", default="sid", help="the field of submission_metadata.json's users that "
                                                       "is the roster's student (sid, email, id, name; default sid, "
                                                       "the student ID of Gradescope's roster)")
    make.add_argument("--out", type=Path, default=ROOT / "build" / "gradescope")
    grade = sub.add_parser("run", help="grade the submission of Gradescope's tree (run_autograder)")
    grade.add_argument("--root", type=Path, default=Path(os.environ.get(ROOT_VARIABLE, DEFAULT_ROOT)))
    args = parser.parse_args(argv)
    if args.command == "run":
        try:
            return run(args.root)
        except Exception as exc:  # noqa: BLE001 - the student reads a reason, never an empty page
            import traceback

            traceback.print_exc()  # Gradescope shows run_autograder's output to the instructor only
            _write_results(Path(args.root) / "results", {
                "score": 0, "output": f"The autograder failed before it could grade this notebook "
                                      f"({type(exc).__name__}). The instructor will grade it again.",
                "visibility": "visible", "stdout_visibility": "hidden", "tests": []})
            return 1
    try:
        path = build(args.out, page=args.page, assignment=args.assignment, key=args.key, roster=args.roster,
                     wheel=args.wheel, id_field=args.id_field)
    except BundleError as exc:
        parser.error(str(exc))
    print(f"{path} ({path.stat().st_size / 2**20:.1f} MiB): upload it on Gradescope's Configure Autograder page "
          "(guide/gradescope.md)")
    return 0

