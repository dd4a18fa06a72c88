"""The grader's layout (issue 51): a top-level package, one module per stage, imports in one direction.

Every import is read from the source, those inside functions too (the grader imports some stages lazily,
where they are needed): an import inside a function is an arrow all the same.
"""

import ast
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "grader"
MODULES = sorted(p.stem for p in PACKAGE.glob("*.py"))
BOOK_READERS = {"book", "student"}  # tools/ modules the grader may use: the book's sources and editions


def _imported(path):
    """Every module name ``path`` imports absolutely, anywhere in it (a relative import stays in its package)."""
    names = set()
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0:
            names.add(node.module)
            if node.module == "grader":  # from grader import run, sandbox: the submodules
                names.update(f"grader.{alias.name}" for alias in node.names)
    return names


def _graph():
    """{module: stages of the grader it imports} over grader/*.py."""
    graph = {}
    for name in MODULES:
        used = _imported(PACKAGE / f"{name}.py")
        graph[name] = sorted({n.split(".")[1] for n in used if n.startswith("grader.") and n.count(".") == 1}
                             - {name})
    return graph


def test_the_grader_is_a_top_level_package_and_tools_holds_no_grader():
    assert (PACKAGE / "__init__.py").is_file() and (PACKAGE / "__main__.py").is_file()
    assert not (ROOT / "tools" / "grader").exists()
    for gone in ("grade.py", "collect.py", "gradescope.py", "assignment.py", "variants.py"):
        assert not (ROOT / "tools" / gone).exists(), f"tools/{gone}: the grader's commands live in grader/"
    assert {"variants", "assignment", "grade", "collect", "gradescope"} <= set(MODULES)


def test_the_grader_imports_its_stages_by_their_full_names():
    """No relative import: a stage reads the same whichever way the package was started (-m or by path)."""
    for name in MODULES:
        tree = ast.parse((PACKAGE / f"{name}.py").read_text())
        relative = [n.lineno for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.level]
        assert not relative, f"grader/{name}.py: relative imports at lines {relative}"


def test_every_stage_imports_exist():
    graph = _graph()
    for name, used in graph.items():
        missing = [u for u in used if u not in MODULES]
        assert not missing, f"grader/{name}.py imports grader.{missing}, which does not exist"


def test_no_circle_between_the_grader_modules():
    """A topological order exists: each module imports only modules before it (depth-first, three colours)."""
    graph, state, order = _graph(), {}, []

    def visit(name, path):
        if state.get(name) == "done":
            return
        assert state.get(name) != "open", "a circle of imports: " + " -> ".join([*path, name])
        state[name] = "open"
        for used in graph[name]:
            visit(used, [*path, name])
        state[name] = "done"
        order.append(name)

    for name in MODULES:
        visit(name, [])
    assert len(order) == len(MODULES)
    # the circle issue 51 found (assignment -> judge -> variants -> assignment) stays broken: judge and
    # run read a notebook's seeds through find, and variants sits above assignment
    assert "variants" not in graph["judge"] and "variants" not in graph["run"]


def test_the_stages_sit_where_the_package_docstring_says():
    """The low stages never reach up to the command lines or the reports."""
    graph = _graph()
    below = {"common": set(), "wire": {"common"}, "find": {"common"}, "source": set(), "syscalls": set()}
    for name, allowed in below.items():
        assert set(graph[name]) <= allowed, f"grader/{name}.py imports {graph[name]}; it may use {allowed or 'none'}"
    commands = {"grade", "gradescope", "collect", "variants", "assignment", "__main__"}
    stages = set(MODULES) - commands - {"preload"}
    for name in stages:
        up = set(graph[name]) & {"grade", "gradescope", "__main__"}
        assert not up, f"grader/{name}.py, a stage, imports the command line {up}"


@pytest.mark.parametrize("folder", ["lib", "tools", "_ext"])
def test_nothing_the_book_is_built_from_imports_the_grader(folder):
    for path in sorted((ROOT / folder).rglob("*.py")):
        used = [n for n in _imported(path) if n == "grader" or n.startswith("grader.")]
        assert not used, f"{path.relative_to(ROOT)} imports {used}: the grader is built on the book, not under it"


def test_the_grader_uses_only_the_book_readers_of_tools():
    tools = {p.stem for p in (ROOT / "tools").glob("*.py")}
    for name in MODULES:
        used = {n.split(".")[0] for n in _imported(PACKAGE / f"{name}.py")} & tools
        assert used <= BOOK_READERS, f"grader/{name}.py imports tools/{sorted(used - BOOK_READERS)}"


def test_python_m_grader_lists_its_commands_and_runs_by_path_from_any_folder(tmp_path):
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    listed = subprocess.run([sys.executable, "-m", "grader", "--help"], cwd=ROOT, capture_output=True, text=True,
                            env=env)
    assert listed.returncode == 0, listed.stderr
    for command in ("grade", "collect", "variants", "assignment", "gradescope"):
        assert f"  {command} " in listed.stdout, listed.stdout
    wrong = subprocess.run([sys.executable, "-m", "grader", "nonsense"], cwd=ROOT, capture_output=True, text=True,
                           env=env)
    assert wrong.returncode == 2 and "commands:" in wrong.stderr
    for command in ("grade", "collect", "variants", "assignment", "gradescope"):  # by path, from elsewhere
        done = subprocess.run([sys.executable, str(PACKAGE), command, "--help"], cwd=tmp_path, capture_output=True,
                              text=True, env=env)
        assert done.returncode == 0, (command, done.stderr)
        assert f"usage: python -m grader {command}" in done.stdout, done.stdout[:300]
