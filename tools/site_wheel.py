"""Put ``lib``'s wheel on the book's site, where every set-up cell finds it without PyPI.

    python tools/site_wheel.py dist _build/html        (make site-wheel)

The Pages deploy (``.github/workflows/book.yml``) runs this after ``make dist`` and before
uploading ``_build/html``, so the published book carries, beside its HTML:

* ``wheels/genmodels_lib-<version>-py3-none-any.whl`` and ``wheels/index.html``, a page of links
  with each file's sha256: what the set-up cells name with ``pip install ... --find-links
  <site>/wheels/`` (``tools/book.py``, ``bootstrap_source``);
* ``simple/index.html`` and ``simple/genmodels-lib/index.html``, a PEP 503 simple index of the
  same file, for ``pip install --extra-index-url <site>/simple/ genmodels-lib==<version>``.

GitHub Pages serves a folder's ``index.html`` at the folder's address, which is all pip reads.
:func:`serve` and :func:`local_cell` let the tests (``tests/test_site_wheel.py``) and the run of
every student notebook (``tools/oldest.py``) use a copy of that layout on 127.0.0.1 instead of the
published site: the set-up cell's own command, with the site's address replaced.
"""

import argparse
import contextlib
import email
import hashlib
import html
import http.server
import shutil
import sys
import threading
import zipfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import book  # noqa: E402  (tools/book.py)

PROJECT = "genmodels-lib"  # the distribution's name, normalised as PEP 503 wants it in the index


def wheel_name(version=None):
    """The file name of ``lib``'s pure-Python wheel (``make dist`` builds it)."""
    return f"genmodels_lib-{version or book.lib_version()}-py3-none-any.whl"


def _page(title, links):
    """A PEP 503 page: one anchor per (href, text, requires_python)."""
    anchors = "".join(
        f'    <a href="{html.escape(href)}"'
        + (f' data-requires-python="{html.escape(requires)}"' if requires else "")
        + f">{html.escape(text)}</a><br>\n" for href, text, requires in links)
    return (f"<!DOCTYPE html>\n<html lang=\"en\">\n  <head><meta charset=\"utf-8\"><title>{html.escape(title)}</title>"
            f"</head>\n  <body>\n{anchors}  </body>\n</html>\n")


def _requires_python(wheel):
    with zipfile.ZipFile(wheel) as zf:
        name = next(n for n in zf.namelist() if n.endswith(".dist-info/METADATA"))
        return email.message_from_bytes(zf.read(name)).get("Requires-Python")


def write(wheels, site):
    """Copy ``wheels`` into ``site/wheels/`` and write the link page and the simple index there.

    Returns the paths written.  ``ValueError`` when a file is not a wheel of ``genmodels-lib``.
    """
    site = Path(site)
    wheels = [Path(w) for w in wheels]
    if not wheels:
        raise ValueError("no wheel to publish: build it first (make dist)")
    for wheel in wheels:
        if not (wheel.name.startswith("genmodels_lib-") and wheel.name.endswith(".whl") and wheel.is_file()):
            raise ValueError(f"{wheel} is not a wheel of {PROJECT} (genmodels_lib-<version>-*.whl)")
    folder, simple = site / "wheels", site / "simple" / PROJECT
    folder.mkdir(parents=True, exist_ok=True)
    simple.mkdir(parents=True, exist_ok=True)
    links, written = [], []
    for wheel in sorted(wheels):
        target = folder / wheel.name
        shutil.copyfile(wheel, target)
        digest = hashlib.sha256(target.read_bytes()).hexdigest()
        links.append((wheel.name, digest, _requires_python(target)))
        written.append(target)
    pages = {
        folder / "index.html": _page(f"Wheels of {PROJECT}",
                                     [(f"{n}#sha256={d}", n, r) for n, d, r in links]),
        simple / "index.html": _page(f"Links for {PROJECT}",
                                     [(f"../../wheels/{n}#sha256={d}", n, r) for n, d, r in links]),
        site / "simple" / "index.html": _page("Simple index", [(f"{PROJECT}/", PROJECT, None)]),
    }
    for path, text in pages.items():
        path.write_text(text)
        written.append(path)
    return written


class _Handler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format, *args):  # noqa: A002 - the base class's name
        self.server.requests.append(self.path)  # what pip asked for, instead of stderr noise


@contextlib.contextmanager
def serve(site):
    """Serve the folder ``site`` on 127.0.0.1 (a free port) while the block runs.

    Yields ``(url, requests)``: the site's address, and the list of paths requested so far.
    """
    handler = lambda *args, **kwargs: _Handler(*args, directory=str(site), **kwargs)  # noqa: E731
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    server.requests = []
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", server.requests
    finally:
        server.shutdown()
        server.server_close()


def local_cell(source, url):
    """The set-up cell ``source`` with the published site's wheel folder replaced by ``url``'s.

    Nothing else changes: the command that runs is the cell's own.  ``ValueError`` unless the cell
    names the site's wheel folder (:func:`book.wheels_url`) exactly once.
    """
    published = book.wheels_url()
    if source.count(published) != 1:
        raise ValueError(f"the set-up cell names {published} {source.count(published)} times, not once: "
                         "run `python tools/book.py bootstrap --fix`")
    return source.replace(published, f"{url.rstrip('/')}/wheels/")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("dist", type=Path, help="the folder make dist wrote (dist/)")
    parser.add_argument("site", type=Path, help="the built book (_build/html)")
    args = parser.parse_args(argv)
    wheel = args.dist / wheel_name()
    if not wheel.is_file():
        parser.error(f"{wheel} is missing: run `make dist` (pyproject.toml's version is {book.lib_version()})")
    if not (args.site / "index.html").is_file():
        parser.error(f"{args.site} holds no built book (index.html): run `make book` first")
    for path in write([wheel], args.site):
        print(f"wrote {path}")
    print(f"pip install {PROJECT}=={book.lib_version()} --find-links {book.wheels_url()} "
          "finds it once this folder is published")
    return 0


if __name__ == "__main__":
    sys.exit(main())
