"""What ``make dist`` ships: the sdist and the pure-Python wheel of ``lib``.

The wheel is what Colab installs (``pip install genmodels-lib==<version>``, from PyPI or
the book's site): it
must hold ``lib``'s modules, data files and licences, and nothing of the book
(tests, notebooks, chapter sources, tools).  Built here with ``python -m build``
into a temporary folder, as ``make dist`` builds it; ``twine check`` reads both
files as PyPI will.
"""

import email
import os
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
import book  # noqa: E402  (tools/book.py)
import release  # noqa: E402  (tools/release.py)

VERSION = book.lib_version()
STEM = f"genmodels_lib-{VERSION}"


@pytest.fixture(scope="module")
def dist(tmp_path_factory):
    out = tmp_path_factory.mktemp("dist")
    proc = subprocess.run([sys.executable, "-m", "build", "--outdir", str(out), str(ROOT)],
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    return out, proc.stdout + proc.stderr


def test_builds_exactly_the_sdist_and_a_pure_python_wheel(dist):
    out, _ = dist
    assert {p.name for p in out.iterdir()} == {f"{STEM}.tar.gz", f"{STEM}-py3-none-any.whl"}
    assert release.dist_problems(out, VERSION) == []


def test_the_build_warns_of_nothing_setuptools_will_drop(dist):
    _, log = dist
    assert "is absent from the `packages` configuration" not in log and "absent from the packages" not in log
    assert "project.license` as a TOML table is deprecated" not in log
    assert "SetuptoolsDeprecationWarning" not in log


def test_twine_check_passes(dist):
    out, _ = dist
    proc = subprocess.run([sys.executable, "-m", "twine", "check", "--strict", *sorted(map(str, out.iterdir()))],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout.count("PASSED") == 2


def _tracked(prefix):
    names = subprocess.run(["git", "ls-files", prefix], cwd=ROOT, capture_output=True, text=True, check=True)
    return {n for n in names.stdout.splitlines() if (ROOT / n).exists()}


def test_the_wheel_holds_lib_its_data_and_licences_and_nothing_else(dist):
    out, _ = dist
    names = set(zipfile.ZipFile(out / f"{STEM}-py3-none-any.whl").namelist())
    info = f"{STEM}.dist-info"
    expected = {n for n in _tracked("lib") if n.endswith((".py", ".js")) or n.startswith("lib/data/")}
    expected |= {f"{info}/{n}" for n in ("METADATA", "WHEEL", "RECORD", "top_level.txt", "licenses/LICENSE",
                                         "licenses/lib/data/spam_assassin_subset_LICENSE.txt")}
    assert names == expected, f"extra: {sorted(names - expected)}; missing: {sorted(expected - names)}"
    # what lib reads at run time is there (lib.datasets, lib.plotting's interactive figures)
    assert {"lib/data/alice_chapter1.txt", "lib/data/spam_assassin_subset.jsonl.gz", "lib/interactive.js",
            "lib/checks/__init__.py"} <= names
    assert not any(n.startswith(("tests/", "chapters/", "student/", "tools/", "_ext/", "benchmarks/"))
                   or n.endswith((".ipynb", ".md", ".pyc")) for n in names)


def test_the_wheel_metadata(dist):
    out, _ = dist
    with zipfile.ZipFile(out / f"{STEM}-py3-none-any.whl") as wheel:
        meta = email.message_from_string(wheel.read(f"{STEM}.dist-info/METADATA").decode())
        tags = email.message_from_string(wheel.read(f"{STEM}.dist-info/WHEEL").decode())
        top = wheel.read(f"{STEM}.dist-info/top_level.txt").decode().split()
    assert meta["Name"] == "genmodels-lib" and meta["Version"] == VERSION
    assert meta["License-Expression"] == "MIT"
    assert set(meta.get_all("License-File")) == {"LICENSE", "lib/data/spam_assassin_subset_LICENSE.txt"}
    assert meta["Requires-Python"] == ">=3.10"
    assert meta.get_all("Provides-Extra") == list(book.optional_dependencies())
    requires = meta.get_all("Requires-Dist")
    for package in ("numpy>=2.0.2", "scipy>=1.14.1", "scikit-learn>=1.6.1", "matplotlib>=3.10.0"):
        assert package in requires
    assert tags["Root-Is-Purelib"] == "true" and tags.get_all("Tag") == ["py3-none-any"]
    assert top == ["lib"]


def test_the_sdist_holds_lib_and_its_licences_not_the_book(dist):
    out, _ = dist
    with tarfile.open(out / f"{STEM}.tar.gz") as tar:
        names = {m.name.split("/", 1)[1] for m in tar.getmembers() if "/" in m.name}
    assert {"pyproject.toml", "README.md", "LICENSE", "PKG-INFO", "lib/__init__.py",
            "lib/data/spam_assassin_subset_LICENSE.txt"} <= names
    assert not any(n.startswith(("tests", "chapters", "student", "tools", "grader", "_ext", "benchmarks")) for n in names)


def test_make_test_runs_the_student_notebooks_against_the_wheel():
    """``make test`` runs ``make test-wheel``: the built wheel, the oldest stack, pip with no index."""
    import re

    import oldest  # tools/oldest.py

    make = (ROOT / "Makefile").read_text()
    test_recipe = re.search(r"^test: .*\n((?:\t.*\n|#.*\n)+)", make, re.M).group(1)
    for lane in re.findall(r"\b(test-lane-[\w-]+)", test_recipe):  # make test runs its lanes side by side
        test_recipe += re.search(rf"^{lane}: .*\n((?:\t.*\n|#.*\n)+)", make, re.M).group(1)
    assert "$(MAKE) test-wheel" in test_recipe
    wheel_recipe = re.search(r"^test-wheel: dist\n((?:\t.*\n)+)", make, re.M)
    assert wheel_recipe, "test-wheel must build the wheel first (make dist)"
    assert "tools/oldest.py --wheel-dir dist" in wheel_recipe.group(1)
    assert "pip uninstall" in wheel_recipe.group(1) and "freeze.txt" in wheel_recipe.group(1)
    # no index and no pip configuration: the wheel comes from the copy of the site the set-up cell names
    env = oldest.pip_env()
    assert env["PIP_NO_INDEX"] == "1" and env["PIP_ONLY_BINARY"] == ":all:" and env["PIP_FIND_LINKS"] == ""
    assert env["PIP_CONFIG_FILE"] == os.devnull
    assert env["PIP_CONSTRAINT"] == str(ROOT / "requirements-oldest.txt")
