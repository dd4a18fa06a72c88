"""The package `lib` as software: installable, versioned, layered."""

import ast
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

import docs  # tests/docs.py: where the documentation's text lives
import lib

ROOT = Path(__file__).resolve().parents[1]
LIB = ROOT / "lib"


def test_import_from_any_folder(tmp_path):
    out = subprocess.run(
        [sys.executable, "-c", "import lib, lib.gaussian; print(lib.__version__)"],
        cwd=tmp_path, capture_output=True, text=True, check=True,
    )
    assert out.stdout.strip() == lib.__version__


def test_version_matches_pyproject():
    declared = re.search(r'^version\s*=\s*"([^"]+)"', (ROOT / "pyproject.toml").read_text(), re.M).group(1)
    assert lib.__version__ == declared


@pytest.mark.parametrize("name", lib.SUBMODULES)
def test_submodules_load_lazily(name):
    module = getattr(lib, name)
    assert module.__name__ == f"lib.{name}"


def _imports(path):
    tree = ast.parse(path.read_text())
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = "." * node.level + (node.module or "")
            names.add(base)
            names.update(f"{base}.{a.name}" if node.level and not node.module else base for a in node.names)
    return names


MODULES = sorted(p for p in LIB.rglob("*.py"))


@pytest.mark.parametrize("path", MODULES, ids=[str(p.relative_to(LIB)) for p in MODULES])
def test_layering(path):
    """Arrows point one way: model code never imports plotting or checks; only plotting imports matplotlib."""
    names = _imports(path)
    rel = path.relative_to(LIB).as_posix()
    uses_mpl = any(n == "matplotlib" or n.startswith("matplotlib.") for n in names)
    if rel != "plotting.py":
        assert not uses_mpl, f"lib/{rel} imports matplotlib; only lib/plotting.py may"
    if not rel.startswith("checks/") and rel not in ("plotting.py", "__init__.py"):
        bad = [n for n in names if re.search(r"(^|\.)(plotting|checks)($|\.)", n)]
        assert not bad, f"lib/{rel} imports {bad}: model code must not depend on plotting or checks"
    for n in names:
        assert not re.match(r"(chapters|tests|benchmarks|tools)(\.|$)", n), f"lib/{rel} imports {n}"


def test_model_modules_import_without_matplotlib(tmp_path):
    # Model code must work where matplotlib is absent: block it and import everything else.
    code = (
        "import sys; sys.modules['matplotlib'] = None\n"
        "import lib\n"
        "for name in lib.SUBMODULES:\n"
        "    if name != 'plotting':\n"
        "        __import__('lib.' + name)\n"
        "print('ok')\n"
    )
    env = dict(os.environ)
    out = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, env=env)
    assert out.returncode == 0, out.stderr


def test_guide_benchmark_numbers_come_from_the_latest_results():
    """The maintainer's guide ("Benchmarks") quotes benchmarks/results.md and results_cases.md
    (summary and table rows) without editing them."""
    readme = docs.section(docs.guide_page("maintainer/benchmarks"), "# Benchmarks")
    results = set((ROOT / "benchmarks" / "results.md").read_text().splitlines())
    results |= set((ROOT / "benchmarks" / "results_cases.md").read_text().splitlines())
    quoted = [line for line in readme if line.startswith(("- headline", "- largest", "- median", "- memory", "| 1e"))]
    assert len(quoted) >= 10, "guide/maintainer/benchmarks.md should quote the summary and some rows"
    stale = [line for line in quoted if line not in results]
    assert not stale, f"guide/maintainer/benchmarks.md lines not in benchmarks/results.md (copy them from the latest run): {stale}"


def test_glue_takes_text_only_and_needs_no_myst_nb(monkeypatch):
    """lib.glue stores what the page prints (a string), and does nothing where myst-nb is absent (Colab)."""
    import builtins

    with pytest.raises(TypeError, match="must be a string"):
        lib.glue("x", 0.1 + 0.2)
    with pytest.raises(TypeError, match="name"):
        lib.glue("", "0.30")
    real_import = builtins.__import__

    def no_myst_nb(name, *args, **kwargs):
        if name.startswith("myst_nb"):
            raise ImportError("No module named 'myst_nb'")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_myst_nb)
    assert lib.glue("x", "0.30") is None
