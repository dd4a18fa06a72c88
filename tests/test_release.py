"""The release workflow, read offline (guide/maintainer/publishing.md, "Releasing").

``.github/workflows/release.yml`` is checked against GitHub's schema by
tests/test_publishing.py (check-jsonschema's vendored copy, as every workflow);
here: when it runs (after ``make test`` passed on a push to main), the order of
its jobs, what each may do (only the PyPI job gets an OIDC token, only the
release job may write; no stored secret), and the decision script
``tools/release.py`` on every case, both as a function and as the workflow runs
it (a git remote with tags, PyPI's JSON answer, ``$GITHUB_OUTPUT``).
"""

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
import book  # noqa: E402  (tools/book.py)
import release  # noqa: E402  (tools/release.py)

WORKFLOW = ROOT / ".github" / "workflows" / "release.yml"


def _yaml(path):
    import yaml  # PyYAML comes with jupyter-book

    return yaml.safe_load(path.read_text())


@pytest.fixture(scope="module")
def wf():
    return _yaml(WORKFLOW)


def _needs(job):
    needs = job.get("needs", [])
    return [needs] if isinstance(needs, str) else list(needs)


# ------------------------------------------------------------- the workflow --

def test_runs_after_the_book_workflow_passed_on_a_push_to_main(wf):
    triggers = wf.get("on", wf.get(True))  # YAML 1.1 reads the key `on` as True
    assert list(triggers) == ["workflow_run"], "a release starts only from a finished test run"
    run = triggers["workflow_run"]
    book_wf = _yaml(ROOT / ".github" / "workflows" / "book.yml")
    assert run["workflows"] == [book_wf["name"]] and run["types"] == ["completed"] and run["branches"] == ["main"]
    book_triggers = book_wf.get("on", book_wf.get(True))
    assert book_triggers["push"]["branches"] == ["main"]
    assert any(s.get("run") == "make test" for s in book_wf["jobs"]["test"]["steps"])
    gate = wf["jobs"]["plan"]["if"]
    assert "github.event.workflow_run.conclusion == 'success'" in gate
    assert "github.event.workflow_run.event == 'push'" in gate
    assert wf["concurrency"]["cancel-in-progress"] is False


def test_every_job_checks_out_the_tested_commit(wf):
    for name, job in wf["jobs"].items():
        for step in job["steps"]:
            if step.get("uses", "").startswith("actions/checkout@"):
                assert step["with"]["ref"] == "${{ github.event.workflow_run.head_sha }}", name


def test_job_order_plan_build_tag_and_release_then_pypi(wf):
    jobs = wf["jobs"]
    assert set(jobs) == {"plan", "build", "github-release", "pypi"}
    assert _needs(jobs["plan"]) == []
    assert _needs(jobs["build"]) == ["plan"] and jobs["build"]["if"] == "needs.plan.outputs.release == 'true'"
    assert set(_needs(jobs["github-release"])) == {"plan", "build"}
    assert set(_needs(jobs["pypi"])) == {"plan", "github-release"}
    # the jobs after build carry no `if`: they run only when the one before succeeded
    assert "if" not in jobs["github-release"] and "if" not in jobs["pypi"]
    plan_steps = jobs["plan"]["steps"]
    assert plan_steps[-1]["run"] == "python tools/release.py plan" and plan_steps[-1]["id"] == "plan"
    assert set(jobs["plan"]["outputs"]) == {"release", "version", "tag"}


def test_build_runs_make_dist_and_hands_both_files_on(wf):
    steps = wf["jobs"]["build"]["steps"]
    assert any(s.get("run") == "make dist PY=python DIST_DEPS=" for s in steps)
    install = next(s["run"] for s in steps if "pip install" in s.get("run", ""))
    assert "requirements.txt" in install and "build|twine" in install
    upload = next(s for s in steps if s.get("uses", "").startswith("actions/upload-artifact@"))
    assert upload["with"]["path"] == "dist/" and upload["with"]["if-no-files-found"] == "error"
    for name in ("github-release", "pypi"):
        download = next(s for s in wf["jobs"][name]["steps"] if s.get("uses", "").startswith("actions/download-artifact@"))
        assert download["with"] == {"name": upload["with"]["name"], "path": "dist/"}


def test_the_github_release_tags_the_tested_commit_with_both_files(wf):
    job = wf["jobs"]["github-release"]
    step = next(s for s in job["steps"] if "gh release create" in s.get("run", ""))
    assert '"$TAG" dist/*' in step["run"] and '--target "$SHA"' in step["run"]
    assert step["env"]["TAG"] == "${{ needs.plan.outputs.tag }}"
    assert step["env"]["SHA"] == "${{ github.event.workflow_run.head_sha }}"
    assert step["env"]["GH_TOKEN"] == "${{ github.token }}"


def test_pypi_by_trusted_publishing_and_no_stored_secret(wf):
    job = wf["jobs"]["pypi"]
    publish = [s for s in job["steps"] if s.get("uses", "").startswith("pypa/gh-action-pypi-publish@")]
    assert len(publish) == 1 and "with" not in publish[0], "no password, no repository-url: PyPI, by OIDC"
    assert job["environment"]["name"] == "pypi"
    assert "secrets." not in WORKFLOW.read_text(), "trusted publishing needs no stored token"


def test_permissions_least_privilege(wf):
    assert wf["permissions"] == {}
    jobs = wf["jobs"]
    assert jobs["plan"]["permissions"] == {"contents": "read"}
    assert jobs["build"]["permissions"] == {"contents": "read"}
    assert jobs["github-release"]["permissions"] == {"contents": "write"}
    assert jobs["pypi"]["permissions"] == {"id-token": "write"}
    assert [n for n, j in jobs.items() if "id-token" in j["permissions"]] == ["pypi"]


def test_make_dist_is_what_the_workflow_runs():
    make = (ROOT / "Makefile").read_text()
    recipe = re.search(r"^dist: \$\(DIST_DEPS\)\n((?:\t.*\n)+)", make, re.M)
    assert recipe, "Makefile has no `dist: $(DIST_DEPS)` target"
    assert "-m build --outdir dist ." in recipe.group(1) and "twine check --strict dist/*" in recipe.group(1)
    assert "tools/release.py check-dist dist" in recipe.group(1)
    pins = re.findall(r"^(build|twine)==\S+$", (ROOT / "requirements.txt").read_text(), re.M)
    assert sorted(pins) == ["build", "twine"]


# ------------------------------------------------------------ the decision --

@pytest.mark.parametrize("tags, published, release_it", [
    (set(), set(), True),                                   # the first release
    ({"v0.2.0"}, {"0.2.0"}, True),                          # a bumped version
    ({"v0.2.0", "v0.3.0"}, {"0.2.0", "0.3.0"}, False),      # the version did not change
    ({"v0.3.0", "docs-1"}, {"0.3.0", "0.1.0"}, False),      # other tags and versions do not matter
])
def test_plan_releases_a_new_version_only(tags, published, release_it):
    plan = release.plan("0.3.0", tags, published)
    assert plan.release is release_it and plan.version == "0.3.0" and plan.tag == "v0.3.0"
    assert ("nothing to release" in plan.reason) is not release_it


@pytest.mark.parametrize("version, tags, published, message", [
    ("0.3.0", {"v0.2.0"}, {"0.2.0", "0.3.0"}, "already on PyPI"),     # PyPI has it, no tag
    ("0.3.0", {"v0.3.0"}, {"0.2.0"}, "stopped half way"),             # tagged, never published
    ("0.2.1", {"v0.3.0"}, {"0.3.0"}, "older than the tag v0.3.0"),    # going backwards
    ("0.10.0", {"v0.9.0", "v0.10.1"}, set(), "older than the tag v0.10.1"),  # compared as numbers
    ("0.3", set(), set(), None),                                       # a valid short version
    ("0.3.0-dev", set(), set(), "not a release version"),
    ("0.3.0+local", set(), set(), "not a release version"),
    ("v0.3.0", set(), set(), "not a release version"),
    ("", set(), set(), "not a release version"),
])
def test_plan_fails_loudly_on_contradictions(version, tags, published, message):
    if message is None:
        assert release.plan(version, tags, published).release
        return
    with pytest.raises(release.ReleaseError, match=re.escape(message)):
        release.plan(version, tags, published)


def test_newer_minor_with_more_digits_is_not_older():
    assert release.plan("0.10.0", {"v0.9.0"}, {"0.9.0"}).release


# ------------------------------------------------- the script as CI runs it --

def _git(*args, cwd):
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True,
                   env={**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t",
                        "GIT_COMMITTER_EMAIL": "t@t"})


@pytest.fixture()
def remote(tmp_path):
    """A bare repository with one commit, standing in for GitHub's."""
    work, bare = tmp_path / "work", tmp_path / "remote.git"
    work.mkdir()
    _git("init", "-q", str(work), cwd=tmp_path)
    _git("commit", "-q", "--allow-empty", "-m", "one", cwd=work)
    _git("clone", "-q", "--bare", str(work), str(bare), cwd=tmp_path)
    return work, bare


def _run_plan(tmp_path, bare, releases, extra_tags=()):
    for tag in extra_tags:
        _git("tag", tag, cwd=tmp_path / "work")
        _git("push", "-q", str(bare), tag, cwd=tmp_path / "work")
    pypi = tmp_path / "pypi.json"
    # PyPI's simple index in JSON (PEP 691/700), as https://pypi.org/simple/genmodels-lib/ answers
    pypi.write_text(json.dumps({"meta": {"api-version": "1.1"}, "name": "genmodels-lib",
                                "versions": list(releases), "files": []}))
    out = tmp_path / "github_output"
    out.write_text("")
    proc = subprocess.run([sys.executable, str(ROOT / "tools" / "release.py"), "plan", "--remote", str(bare),
                           "--pypi", pypi.as_uri()], capture_output=True, text=True, timeout=60,
                          env={**os.environ, "GITHUB_OUTPUT": str(out)})
    return proc, dict(line.split("=", 1) for line in out.read_text().splitlines())


def test_script_new_version_writes_release_true(tmp_path, remote):
    version = book.lib_version()
    proc, outputs = _run_plan(tmp_path, remote[1], releases=["0.0.1"], extra_tags=["v0.0.1"])
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert outputs == {"release": "true", "version": version, "tag": f"v{version}"}


def test_script_unchanged_version_writes_release_false(tmp_path, remote):
    version = book.lib_version()
    proc, outputs = _run_plan(tmp_path, remote[1], releases=[version], extra_tags=[f"v{version}"])
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert outputs["release"] == "false" and "nothing to release" in proc.stdout


def test_script_version_on_pypi_without_tag_fails_loudly(tmp_path, remote):
    proc, outputs = _run_plan(tmp_path, remote[1], releases=[book.lib_version()])
    assert proc.returncode == 1 and outputs == {}
    assert proc.stdout.startswith("::error::") and "already on PyPI" in proc.stdout


def test_published_versions_reads_both_pypi_answers(tmp_path):
    simple, legacy = tmp_path / "simple.json", tmp_path / "legacy.json"
    simple.write_text(json.dumps({"name": "genmodels-lib", "versions": ["0.2.0", "0.3.0"], "files": []}))
    legacy.write_text(json.dumps({"info": {}, "releases": {"0.2.0": [], "0.3.0": []}}))
    assert release.published_versions(simple.as_uri()) == release.published_versions(legacy.as_uri()) \
        == {"0.2.0", "0.3.0"}


def test_script_unreadable_pypi_or_remote_fails(tmp_path, remote):
    proc = subprocess.run([sys.executable, str(ROOT / "tools" / "release.py"), "plan", "--remote", str(remote[1]),
                           "--pypi", (tmp_path / "missing.json").as_uri()], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 1 and "cannot read" in proc.stdout
    proc = subprocess.run([sys.executable, str(ROOT / "tools" / "release.py"), "plan", "--remote",
                           str(tmp_path / "nowhere.git")], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 1 and "ls-remote" in proc.stdout
