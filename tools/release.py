"""Decide whether a push releases ``lib``, and check what a release ships.

    python tools/release.py plan [--remote origin] [--pypi URL]
    python tools/release.py check-dist DIR

The release workflow (``.github/workflows/release.yml``; guide/maintainer/publishing.md, "Releasing")
runs ``plan`` on the commit of ``main`` that ``make test`` has just passed.  It
reads the version of ``pyproject.toml``, the remote's tags (``git ls-remote``)
and the versions of ``genmodels-lib`` on PyPI (its simple index, in JSON), and decides:

* tag ``v<version>`` exists and PyPI has the version: nothing to release (a
  push that does not change the version); exit 0, ``release=false``;
* neither exists: release; exit 0, ``release=true``;
* PyPI has the version but there is no tag: fail (PyPI never takes a version
  twice: bump the version);
* the tag exists but PyPI lacks the version: fail (a release stopped half
  way: re-run the failed jobs of its workflow run);
* the version is not a release version, or is lower than a tagged one: fail.

It writes ``release``, ``version`` and ``tag`` to ``$GITHUB_OUTPUT`` when that
is set, and prints its reason; a failure prints a ``::error::`` line and exits 1.

``check-dist DIR`` (``make dist`` runs it) checks that ``DIR`` holds exactly
the sdist and the pure-Python wheel of that version, and that the wheel holds
``lib`` alone (its modules, data files and licences), no tests, notebooks or
book sources.
"""

import argparse
import json
import os
import re
import subprocess
import sys
import tarfile
import urllib.error
import urllib.request
import zipfile
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import book  # noqa: E402  (tools/book.py: the version's one reader)

DIST_NAME = "genmodels-lib"
# PyPI's simple index in JSON (PEP 691; its "versions" list, PEP 700). The older
# JSON API's "releases" is read too.
PYPI_JSON = f"https://pypi.org/simple/{DIST_NAME}/"
# A final release or a pre-/post-release in PEP 440's normal form (no local version:
# PyPI refuses those).
VERSION = re.compile(r"^(0|[1-9][0-9]*)(\.(0|[1-9][0-9]*))*((a|b|rc)(0|[1-9][0-9]*))?(\.post(0|[1-9][0-9]*))?$")


class ReleaseError(Exception):
    """The facts contradict each other: a person must look before anything is published."""


@dataclass(frozen=True)
class Plan:
    release: bool
    version: str
    tag: str
    reason: str


def release_numbers(version):
    """``"1.10.2rc1"`` -> ``(1, 10, 2)``: the release segment, compared numerically."""
    return tuple(int(n) for n in re.match(r"[0-9.]*[0-9]", version).group(0).split("."))


def plan(version, tags, published):
    """The decision for ``version`` given the remote's ``tags`` and the versions ``published`` on PyPI."""
    if not VERSION.match(version):
        raise ReleaseError(f"pyproject.toml's version {version!r} is not a release version "
                           "(N.N.N, optionally aN, bN, rcN or .postN)")
    tag = f"v{version}"
    tagged = tag in tags
    on_pypi = version in published
    if tagged and on_pypi:
        return Plan(False, version, tag, f"{tag} is tagged and {DIST_NAME} {version} is on PyPI: "
                    "this push does not change the version, nothing to release")
    if on_pypi:
        raise ReleaseError(f"{DIST_NAME} {version} is already on PyPI but {tag} is not tagged: PyPI never "
                           "takes a version twice; bump the version in pyproject.toml and run `make notebooks`")
    if tagged:
        raise ReleaseError(f"{tag} is tagged but PyPI has no {DIST_NAME} {version}: a release stopped half "
                           "way; re-run the failed jobs of that release's workflow run")
    newer = sorted(t for t in tags if VERSION.match(t[1:]) and release_numbers(t[1:]) > release_numbers(version))
    if newer:
        raise ReleaseError(f"pyproject.toml's version {version} is older than the tag {newer[-1]}: "
                           "a release only moves forward")
    return Plan(True, version, tag, f"{tag} is new: build, tag and publish {DIST_NAME} {version}")


def remote_tags(remote="origin"):
    """The tag names on ``remote`` (not this clone's: a shallow checkout has none)."""
    out = subprocess.run(["git", "ls-remote", "--tags", "--refs", remote], capture_output=True, text=True,
                         cwd=book.ROOT)
    if out.returncode:
        raise ReleaseError(f"git ls-remote {remote} failed: {out.stderr.strip()}")
    return {line.split("refs/tags/", 1)[1] for line in out.stdout.splitlines() if "refs/tags/" in line}


def published_versions(url=PYPI_JSON):
    """The versions of ``genmodels-lib`` on PyPI; none when the project does not exist yet (404)."""
    request = urllib.request.Request(url, headers={"Accept": "application/vnd.pypi.simple.v1+json"})
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            data = json.load(response)
            return set(data.get("versions") or data.get("releases") or ())
    except urllib.error.HTTPError as error:
        if error.code == 404:
            return set()
        raise ReleaseError(f"PyPI answered {error.code} for {url}: cannot tell what is published") from error
    except (urllib.error.URLError, OSError, ValueError) as error:
        raise ReleaseError(f"cannot read {url}: {error}") from error


def write_outputs(result):
    lines = [f"release={'true' if result.release else 'false'}", f"version={result.version}", f"tag={result.tag}"]
    if os.environ.get("GITHUB_OUTPUT"):
        with open(os.environ["GITHUB_OUTPUT"], "a") as out:
            out.write("".join(line + "\n" for line in lines))
    print("\n".join(lines))


# ---------------------------------------------------------------- the files --

def expected_dist_files(version):
    stem = f"{DIST_NAME.replace('-', '_')}-{version}"
    return {f"{stem}.tar.gz", f"{stem}-py3-none-any.whl"}


def wheel_problems(wheel, version):
    """What is wrong with the wheel's file list: ``lib`` alone, with its data and licences."""
    info = f"{DIST_NAME.replace('-', '_')}-{version}.dist-info/"
    names = zipfile.ZipFile(wheel).namelist()
    problems = [f"{name}: not part of lib" for name in names if not name.startswith(("lib/", info))]
    problems += [f"{name}: a compiled or cached file" for name in names if name.endswith((".pyc", ".so"))
                 or "__pycache__" in name]
    needed = ["lib/__init__.py", "lib/checks/__init__.py", "lib/interactive.js", "lib/data/alice_chapter1.txt",
              "lib/data/spam_assassin_subset.jsonl.gz", "lib/data/spam_assassin_subset_LICENSE.txt",
              f"{info}licenses/LICENSE", f"{info}licenses/lib/data/spam_assassin_subset_LICENSE.txt",
              f"{info}METADATA", f"{info}WHEEL"]
    problems += [f"{name}: missing" for name in needed if name not in names]
    return problems


def dist_problems(folder, version):
    folder = Path(folder)
    have = {p.name for p in folder.iterdir()} if folder.is_dir() else set()
    want = expected_dist_files(version)
    if have != want:
        return [f"{folder} holds {sorted(have)}, expected exactly {sorted(want)}"]
    wheel = next(folder / name for name in want if name.endswith(".whl"))
    sdist = next(folder / name for name in want if name.endswith(".tar.gz"))
    problems = wheel_problems(wheel, version)
    with tarfile.open(sdist) as tar:
        top = f"{DIST_NAME.replace('-', '_')}-{version}/"
        problems += [f"{sdist.name}: {m.name} is a test, notebook, book source or the grader" for m in tar.getmembers()
                     if m.name.startswith(tuple(top + d for d in ("tests", "chapters", "student", "tools", "grader", "_ext")))
                     or m.name.endswith(".ipynb")]
    return problems


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("plan", help="decide whether this commit releases lib")
    p.add_argument("--remote", default="origin", help="the git remote whose tags count (default origin)")
    p.add_argument("--pypi", default=PYPI_JSON, help=f"PyPI's JSON for the project (default {PYPI_JSON})")
    c = sub.add_parser("check-dist", help="check the built sdist and wheel")
    c.add_argument("folder", type=Path)
    args = parser.parse_args(argv)
    version = book.lib_version()
    if args.cmd == "check-dist":
        problems = dist_problems(args.folder, version)
        for problem in problems:
            print(f"::error::{problem}")
        if not problems:
            print(f"{args.folder}: the sdist and the py3-none-any wheel of {DIST_NAME} {version}, lib alone")
        return 1 if problems else 0
    try:
        result = plan(version, remote_tags(args.remote), published_versions(args.pypi))
    except ReleaseError as error:
        print(f"::error::{error}")
        return 1
    print(result.reason)
    write_outputs(result)
    return 0


if __name__ == "__main__":
    sys.exit(main())
