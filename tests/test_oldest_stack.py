"""The oldest supported stack is stated once per place and the places agree.

``requirements-oldest.txt`` pins it (``make test-wheel``, part of ``make test``,
runs every student notebook on it, installing the built wheel through each
page's set-up cell), ``pyproject.toml``'s lower bounds declare it to pip, and the
README's "Supported versions" table tells readers.
"""

import re
import sys
from pathlib import Path

import pytest

import docs  # tests/docs.py: where the documentation's text lives

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
import oldest  # noqa: E402  (tools/oldest.py)

PACKAGES = ("numpy", "scipy", "scikit-learn", "matplotlib", "threadpoolctl")


def _version(text):
    return tuple(int(part) for part in text.split("."))


def _lower_bounds():
    text = (ROOT / "pyproject.toml").read_text()
    deps = re.search(r"^dependencies = \[(.*?)\]", text, re.M | re.S).group(1)
    return {m.group(1).lower(): m.group(2) for m in re.finditer(r'"([A-Za-z0-9_.-]+)>=([0-9.]+)"', deps)}


@pytest.mark.parametrize("package", PACKAGES)
def test_pins_equal_the_lower_bounds(package):
    pins, bounds = oldest.pinned_versions(), _lower_bounds()
    assert package in pins and package in bounds
    assert _version(pins[package]) == _version(bounds[package]) + (0,) * (
        len(_version(pins[package])) - len(_version(bounds[package]))
    ), f"{package}: requirements-oldest.txt pins {pins[package]}, pyproject.toml requires >={bounds[package]}"


@pytest.mark.parametrize("package", PACKAGES)
def test_guide_states_the_oldest_stack(package):
    section = "\n".join(docs.section(docs.guide_page("maintainer/versions"), "## Supported versions"))
    row = re.search(rf"^\| {re.escape(package)} \| ([0-9.]+) \|", section, re.M)
    assert row, f"the Supported versions table (guide/maintainer/versions.md) has no row for {package}"
    assert _version(row.group(1)) == _version(_lower_bounds()[package])


def test_every_lib_dependency_is_pinned_in_the_oldest_stack():
    assert set(_lower_bounds()) <= set(oldest.pinned_versions())
