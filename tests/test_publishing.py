"""Publishing: the workflow is valid and publishes only from main; every notebook pins lib's version."""

import importlib.util
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

ROOT = Path(__file__).resolve().parents[1]
WORKFLOWS = sorted((ROOT / ".github" / "workflows").glob("*.yml"))
sys.path.insert(0, str(ROOT / "tools"))

import book  # noqa: E402  (tools/book.py)
import docs  # noqa: E402  (tests/docs.py: where the documentation's text lives)


def _yaml(path):
    import yaml  # PyYAML comes with jupyter-book

    return yaml.safe_load(path.read_text())


def test_workflows_exist():
    assert WORKFLOWS, "no GitHub workflow in .github/workflows"


@pytest.mark.parametrize("path", WORKFLOWS, ids=[p.name for p in WORKFLOWS])
def test_workflow_validates_against_the_github_schema(path):
    # check-jsonschema ships the schema: nothing is downloaded.
    exe = shutil.which("check-jsonschema", path=str(Path(sys.executable).parent)) or "check-jsonschema"
    out = subprocess.run([exe, "--builtin-schema", "vendor.github-workflows", str(path)],
                         capture_output=True, text=True)
    assert out.returncode == 0, out.stdout + out.stderr


def test_workflow_tests_every_change_and_publishes_only_main():
    wf = _yaml(ROOT / ".github" / "workflows" / "book.yml")
    triggers = wf.get("on", wf.get(True))  # YAML 1.1 reads the key `on` as True
    assert "pull_request" in triggers and triggers["push"]["branches"] == ["main"]
    test_steps = wf["jobs"]["test"]["steps"]
    assert any(step.get("run") == "make test" for step in test_steps), "the test job must run the README's test command"
    upload = [s for s in test_steps if "upload-pages-artifact" in s.get("uses", "")]
    assert upload and "refs/heads/main" in upload[0]["if"] and upload[0]["with"]["path"] == "_build/html"
    # lib's wheel goes onto the site after make test built it and before the upload (tools/site_wheel.py)
    runs = [step.get("run") for step in test_steps]
    assert runs.index("make test") < runs.index("make site-wheel") < test_steps.index(upload[0])
    assert test_steps[runs.index("make site-wheel")]["if"] == upload[0]["if"]
    make = (ROOT / "Makefile").read_text()
    assert re.search(r"^site-wheel: dist\n\t\$\(PY\) tools/site_wheel.py dist _build/html$", make, re.M)
    publish = wf["jobs"]["publish"]
    assert publish["needs"] == "test"
    assert "github.event_name == 'push'" in publish["if"] and "refs/heads/main" in publish["if"]
    assert any("deploy-pages" in s.get("uses", "") for s in publish["steps"])
    assert publish["permissions"] == {"pages": "write", "id-token": "write"}


def test_readme_test_command_is_what_ci_runs():
    readme = docs.readme()
    assert "make test" in readme and "make book" in readme
    ci = (ROOT / ".ci" / "run").read_text()
    assert re.search(r"^make test$", ci, re.M)


def _pinned_versions(cells):
    found = []
    for cell in cells:
        if cell["cell_type"] == "code":
            src = "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]
            found += re.findall(r"genmodels-lib(?:\[[a-z,]+\])?==([0-9][^\"'\s]*)", src)
            assert "git+" not in src and not re.search(r"@v[0-9]", src), \
                "a notebook installs lib from git or names a tag: run `python tools/book.py bootstrap --fix`"
    return found


NOTEBOOKS = sorted(ROOT.glob("chapters/*.ipynb")) + sorted(ROOT.glob("student/*.ipynb"))


@pytest.mark.parametrize("nb_path", NOTEBOOKS, ids=[str(p.relative_to(ROOT)) for p in NOTEBOOKS])
def test_every_notebook_pins_the_declared_version(nb_path):
    nb = json.loads(nb_path.read_text())
    versions = _pinned_versions(nb["cells"])
    assert versions, f"{nb_path.relative_to(ROOT)} has no set-up cell installing lib"
    assert set(versions) == {book.lib_version()}, (
        f"{nb_path.relative_to(ROOT)} installs lib {versions}, but pyproject.toml declares {book.lib_version()}: "
        "run `make notebooks`"
    )


def _load_extension():
    spec = importlib.util.spec_from_file_location("book_meta", ROOT / "_ext" / "book_meta.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_footer_shows_the_version_and_build_date(monkeypatch):
    meta = _load_extension()
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1795219200")  # 2026-11-21
    config = SimpleNamespace(html_theme_options={"extra_footer": ""})
    meta.add_footer(None, config)
    footer = config.html_theme_options["extra_footer"]
    assert f"version {book.lib_version()}" in footer and "2026-11-21" in footer


def test_edit_links_point_at_the_markdown_source(tmp_path, monkeypatch):
    meta = _load_extension()
    md = ROOT / "chapters" / "intro.md"
    assert md.exists()
    url = f"{book.repository_url()}/edit/main/chapters/intro.ipynb"
    context = {
        "page_source_suffix": ".ipynb",
        "header_buttons": [{"buttons": [{"label": "source-edit-button", "url": url}]}],
    }
    meta.edit_links_to_sources(None, "chapters/intro", "page.html", context, None)
    assert context["header_buttons"][0]["buttons"][0]["url"].endswith("chapters/intro.md")


def test_repository_url_lives_only_in_config():
    url = book.repository_url()
    offenders = []
    for path in ROOT.rglob("*"):
        if any(part in {".git", ".venv", "_build", "node_modules", ".pytest_cache", ".hypothesis"} for part in path.parts):
            continue
        if path.is_file() and path.suffix in {".py", ".md", ".yml", ".yaml", ".toml", ".cfg", ".txt"} and path.name != "_config.yml":
            if url in path.read_text(errors="ignore") and path.suffix != ".md":
                offenders.append(str(path.relative_to(ROOT)))
    assert not offenders, f"the repository URL is hard-coded outside _config.yml in {offenders}"
