"""The set-up cell installs ``lib`` with no PyPI release: offline, from a copy of the book's site.

What a fork's students get on the day its site is published: the Pages deploy puts the wheel on the
site (``tools/site_wheel.py``), and the set-up cell of every page (``tools/book.py``,
``bootstrap_source``) runs ``pip install genmodels-lib==<version> --find-links <site>/wheels/``.
Here the committed student notebook's own set-up cell runs in a fresh venv, with its site's address
replaced by a local HTTP server on 127.0.0.1 that holds the layout ``tools/site_wheel.py`` writes,
and pip's index an empty local folder (or, for the other case, a second local server holding the
release, as PyPI would).  pip's configuration files are ignored (``PIP_CONFIG_FILE=/dev/null``), so
nothing else is consulted.  The fresh venv sees ``lib``'s dependencies (numpy, scipy, ...) as
installed, through a folder of links to this venv's copies, so pip resolves them without an index
and installs ``genmodels-lib`` alone.
"""

import hashlib
import importlib.metadata
import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import nbformat
import pytest
from packaging.requirements import Requirement

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
import book  # noqa: E402  (tools/book.py)
import site_wheel  # noqa: E402  (tools/site_wheel.py)

VERSION = book.lib_version()


def _closure(name):
    """The installed distributions ``name`` needs (without extras), ``name`` excluded."""
    seen, todo = set(), [name]
    while todo:
        dist = importlib.metadata.distribution(todo.pop())
        key = dist.metadata["Name"].lower()
        if key in seen:
            continue
        seen.add(key)
        for spec in dist.requires or []:
            req = Requirement(spec)
            if req.marker is None or req.marker.evaluate({"extra": ""}):
                todo.append(req.name)
    return sorted(seen - {name})


@pytest.fixture(scope="module")
def wheel(tmp_path_factory):
    """lib's wheel, built as ``make dist`` builds it."""
    out = tmp_path_factory.mktemp("dist")
    proc = subprocess.run([sys.executable, "-m", "build", "--wheel", "--outdir", str(out), str(ROOT)],
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    return out / site_wheel.wheel_name()


@pytest.fixture(scope="module")
def dependencies(tmp_path_factory):
    """A folder of links to pip and to lib's dependencies as this venv has them (no lib)."""
    folder = tmp_path_factory.mktemp("dependencies")
    for name in ["pip"] + _closure("genmodels-lib"):
        dist = importlib.metadata.distribution(name)
        for top in {Path(f).parts[0] for f in dist.files if not str(f).startswith((".", "/"))} - {"bin"}:
            source = Path(dist.locate_file(top))
            if source.exists() and not (folder / top).exists():
                (folder / top).symlink_to(source)
    assert not (folder / "lib").exists() and (folder / "numpy").exists()
    return folder


def _fresh_venv(where, dependencies):
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(where)], check=True, timeout=120)
    python = where / "bin" / "python"
    purelib = subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                             capture_output=True, text=True, check=True).stdout.strip()
    (Path(purelib) / "dependencies.pth").write_text(f"{dependencies}\n")
    return python, Path(purelib)


def _setup_cell():
    """The set-up cell of the student notebook of the first page that needs no extra, as committed."""
    md = next(md for md in book.chapter_sources() if not book.page_extras(md))
    path = ROOT / "student" / f"{md.stem}.ipynb"
    cell = next(c for c in nbformat.read(path, as_version=4).cells if c.cell_type == "code")
    assert cell.source.strip() == book.bootstrap_source(md).strip(), f"{path.name}: run `make notebooks`"
    return cell.source


def _run_cell(python, cell, index_url, cwd):
    env = {"PATH": os.environ["PATH"], "HOME": str(cwd), "PIP_CONFIG_FILE": os.devnull,
           "PIP_INDEX_URL": index_url, "PIP_DISABLE_PIP_VERSION_CHECK": "1", "PIP_NO_CACHE_DIR": "1",
           "PIP_RETRIES": "0", "PIP_NO_INPUT": "1"}
    return subprocess.run([str(python), "-"], input=cell, cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=300)


def _installed(python, purelib, cwd):
    """The fresh venv imports lib from its own site-packages: genmodels-lib of this version, installed by pip
    by name (no direct URL), with lib.gaussian (this book's lib)."""
    code = ("import importlib.metadata as m, importlib.util as u, json, lib; d = m.distribution('genmodels-lib');"
            "print(json.dumps([d.version, lib.__file__, d.read_text('INSTALLER'), u.find_spec('lib.gaussian')"
            " is not None, d.read_text('direct_url.json')]))")
    out = subprocess.run([str(python), "-c", code], cwd=cwd, capture_output=True, text=True, timeout=120,
                         env={"PATH": os.environ["PATH"]})
    assert out.returncode == 0, out.stderr
    version, where, installer, gaussian, direct_url = json.loads(out.stdout)
    assert version == VERSION and gaussian and (installer or "").strip() == "pip" and direct_url is None
    assert Path(where).resolve() == (purelib / "lib" / "__init__.py").resolve()


def test_the_site_layout_is_a_link_page_and_a_simple_index(tmp_path, wheel):
    written = site_wheel.write([wheel], tmp_path)
    assert (tmp_path / "wheels" / wheel.name).read_bytes() == wheel.read_bytes()
    digest = hashlib.sha256(wheel.read_bytes()).hexdigest()
    links = (tmp_path / "wheels" / "index.html").read_text()
    assert f'<a href="{wheel.name}#sha256={digest}" data-requires-python="&gt;=3.10">{wheel.name}</a>' in links
    simple = (tmp_path / "simple" / "genmodels-lib" / "index.html").read_text()
    assert f'href="../../wheels/{wheel.name}#sha256={digest}"' in simple
    assert '<a href="genmodels-lib/">' in (tmp_path / "simple" / "index.html").read_text()
    assert len(written) == 4
    with pytest.raises(ValueError, match="not a wheel of genmodels-lib"):
        site_wheel.write([tmp_path / "simple" / "index.html"], tmp_path)
    with zipfile.ZipFile(wheel) as zf:
        assert "lib/gaussian.py" in zf.namelist()


def test_the_set_up_cell_installs_the_sites_wheel_when_pypi_has_no_release(tmp_path, wheel, dependencies):
    site, empty = tmp_path / "site", tmp_path / "empty-index"
    empty.mkdir()
    site_wheel.write([wheel], site)
    python, purelib = _fresh_venv(tmp_path / "venv", dependencies)
    with site_wheel.serve(site) as (url, requests):
        out = _run_cell(python, site_wheel.local_cell(_setup_cell(), url), empty.as_uri(), tmp_path)
        assert out.returncode == 0, out.stdout + out.stderr
        assert requests == ["/wheels/", f"/wheels/{wheel.name}"]
    _installed(python, purelib, tmp_path)
    # run again where lib is installed: the cell does nothing (no pip, no request)
    with site_wheel.serve(site) as (url, requests):
        again = _run_cell(python, site_wheel.local_cell(_setup_cell(), url), empty.as_uri(), tmp_path)
        assert again.returncode == 0 and again.stdout == again.stderr == "" and requests == []


def test_the_set_up_cell_takes_pypis_release_where_there_is_one(tmp_path, wheel, dependencies):
    """Of two equal versions pip takes the index's: the site's wheel is only the fallback."""
    site, pypi = tmp_path / "site", tmp_path / "pypi"
    site_wheel.write([wheel], site)
    site_wheel.write([wheel], pypi)  # its simple/ is a PEP 503 index like PyPI's
    python, purelib = _fresh_venv(tmp_path / "venv", dependencies)
    with site_wheel.serve(site) as (url, site_requests), site_wheel.serve(pypi) as (index, pypi_requests):
        out = _run_cell(python, site_wheel.local_cell(_setup_cell(), url), f"{index}/simple/", tmp_path)
        assert out.returncode == 0, out.stdout + out.stderr
        assert site_requests == ["/wheels/"], "the site's wheel was downloaded although the index has it"
        assert pypi_requests == ["/simple/genmodels-lib/", f"/wheels/{wheel.name}"]
    _installed(python, purelib, tmp_path)


def test_the_set_up_cell_says_what_to_do_where_neither_has_the_release(tmp_path, dependencies):
    """A fork whose site is not published yet: pip finds the version nowhere, and the cell stops with pip's
    message and then one that names the release and the site (a student reads what to do, not a traceback
    of CalledProcessError)."""
    site, empty = tmp_path / "site", tmp_path / "empty-index"
    (site / "wheels").mkdir(parents=True)
    (site / "wheels" / "index.html").write_text("<!DOCTYPE html><html><body></body></html>\n")
    empty.mkdir()
    python, _ = _fresh_venv(tmp_path / "venv", dependencies)
    with site_wheel.serve(site) as (url, requests):
        out = _run_cell(python, site_wheel.local_cell(_setup_cell(), url), empty.as_uri(), tmp_path)
    assert out.returncode != 0 and requests == ["/wheels/"]
    assert "No matching distribution found for genmodels-lib" in out.stderr, out.stderr[-2000:]
    last = out.stderr.strip().splitlines()[-1]
    assert last.startswith(f"RuntimeError: pip could not install genmodels-lib=={VERSION} "), last
    assert f"{url}/wheels/" in last and "tell whoever handed the notebook out" in last


def test_the_cell_names_the_site_once_and_only_the_copy_changes():
    cell = book.bootstrap_source(None)
    local = site_wheel.local_cell(cell, "http://127.0.0.1:1234")
    assert local == cell.replace(book.wheels_url(), "http://127.0.0.1:1234/wheels/")
    with pytest.raises(ValueError, match="not once"):
        site_wheel.local_cell(cell.replace(book.wheels_url(), "https://elsewhere.example/"), "http://x")
