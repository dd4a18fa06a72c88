"""Open every page of the built book in headless Chromium, offline, and record what a reader gets.

``inspect_page`` loads one page from a local HTTP server in a fresh browser
context whose only reachable host is 127.0.0.1, waits for MathJax, reads the
DOM, takes the light and dark screenshots, unfolds every solution, audits the
page with axe-core (light), switches the theme to dark, audits it again and
reads every content figure's border pixels.  It returns
a ``PageReport``; the ``problems_*`` functions turn a report into a list of
human-readable problems, each naming the page.  The tests in
``test_book_in_browser.py`` only assert that those lists are empty.

Paths (environment variables, all optional):

* ``BOOK_HTML_DIR``: the built HTML (default ``<repo>/_build/html``).
* ``BOOK_REPO_DIR``: the repository whose ``_toc.yml``, ``_config.yml`` and
  notebooks the pages are checked against (default: the folder two levels
  above ``BOOK_HTML_DIR`` if it holds a ``_toc.yml``, else this repository).
* ``BOOK_SCREENSHOT_DIR``: where screenshots go (default
  ``<BOOK_HTML_DIR>/../screenshots``, i.e. ``_build/screenshots``).
* ``CHROMIUM``: the browser executable (default Debian's
  ``/usr/lib/chromium/chromium``, else ``chromium`` on the PATH).
"""

from __future__ import annotations

import dataclasses
import functools
import html.parser
import http.server
import os
import re
import shutil
import threading
import time
from pathlib import Path
from urllib.parse import parse_qs, unquote, urljoin, urlsplit

import yaml

THIS_REPO = Path(__file__).resolve().parents[1]
VIEWPORT = {"width": 1280, "height": 800}
TIMEOUT_MS = 20_000
MATHJAX_TIMEOUT_MS = 15_000
LOCAL_HOST = "127.0.0.1"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-quic",
    "--no-first-run",
    "--disable-dev-shm-usage",
    # Belt and braces next to the request routing: no host name but
    # 127.0.0.1 resolves, so nothing (not even a WebSocket) reaches the network.
    f"--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE {LOCAL_HOST}",
]
# Numbered chapters must offer Binder and Colab; other pages may.
CHAPTER_RE = re.compile(r"(^|/)\d\d_[^/]+$")


# --------------------------------------------------------------------------- paths


def html_dir() -> Path:
    return Path(os.environ.get("BOOK_HTML_DIR", THIS_REPO / "_build" / "html")).resolve()


def repo_dir() -> Path:
    if "BOOK_REPO_DIR" in os.environ:
        return Path(os.environ["BOOK_REPO_DIR"]).resolve()
    candidate = html_dir().parent.parent
    if html_dir().parent.name == "_build" and (candidate / "_toc.yml").is_file():
        return candidate
    return THIS_REPO


def screenshot_dir() -> Path:
    default = html_dir().parent / "screenshots"
    return Path(os.environ.get("BOOK_SCREENSHOT_DIR", default)).resolve()


def chromium_executable() -> str | None:
    if os.environ.get("CHROMIUM"):
        return os.environ["CHROMIUM"]
    if os.access("/usr/lib/chromium/chromium", os.X_OK):  # Debian's binary, without its wrapper script
        return "/usr/lib/chromium/chromium"
    return shutil.which("chromium") or shutil.which("chromium-browser")


# --------------------------------------------------------------------------- the book's structure


def toc_docnames(repo: Path | None = None) -> list[str]:
    """Every document of ``_toc.yml`` in reading order (root first), e.g. ``chapters/intro``."""
    toc = yaml.safe_load(((repo or repo_dir()) / "_toc.yml").read_text())
    names: list[str] = []

    def walk(node):
        if isinstance(node, dict):
            if isinstance(node.get("file"), str):
                names.append(re.sub(r"\.(md|ipynb|rst)$", "", node["file"]))
            for key in ("parts", "chapters", "sections"):
                for child in node.get(key) or []:
                    walk(child)
        elif isinstance(node, list):
            for child in node:
                walk(child)

    names.append(re.sub(r"\.(md|ipynb|rst)$", "", toc["root"]))
    walk(toc)
    return list(dict.fromkeys(names))


def book_docnames() -> list[str]:
    """The pages to test: every document of ``_toc.yml``.

    Other ``.html`` files in the build folder are left over from earlier builds
    (Sphinx never deletes output, and ``only_build_toc_files`` builds nothing
    outside the table of contents): no page of the book links to them.
    """
    return toc_docnames()


# A generated page audited with what a reader sees there: the search page with results.
GENERATED_QUERIES = {"search": "search.html?q=Gaussian+mixture"}
_NOT_PAGES = ("_static/", "_sources/", "_images/", "_downloads/", "_sphinx_design_static/")


class _LinkCollector(html.parser.HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.hrefs: list[str] = []

    def handle_starttag(self, tag, attrs):
        # Links, the head's <link rel="index"> and friends, and the search box's form.
        wanted = {"a": "href", "link": "href", "form": "action"}.get(tag)
        self.hrefs.extend(v for k, v in attrs if wanted and k == wanted and v)


def reachable_pages(root: Path | None = None) -> list[str]:
    """Every HTML page of the build that a reader can reach, as docnames: the table of contents' pages,
    every page the build writes at its top level (the general index, the search page, the proof index
    that sphinx-proof writes, any index another extension adds), and every page their links lead to
    (``<a>``, the head's ``<link>``, the search box's form), followed breadth first inside the build folder.

    The root ``index.html`` is a redirect (meta refresh) to the first page, not a page of its own.
    Content pages left over from an earlier build in a subfolder are not pages of this book unless linked.
    """
    root = root or html_dir()
    start = book_docnames() + sorted(p.stem for p in root.glob("*.html") if p.stem != "index")
    seen = dict.fromkeys(start)
    queue = list(seen)
    while queue:
        docname = queue.pop(0)
        parser = _LinkCollector()
        parser.feed((root / f"{docname}.html").read_text(encoding="utf-8"))
        base = f"http://book/{docname}.html"
        for href in parser.hrefs:
            url = urlsplit(urljoin(base, href))
            if url.netloc != "book" or not url.path.endswith(".html"):
                continue
            path = url.path.lstrip("/")
            name = path.removesuffix(".html")
            if name in seen or name == "index" or path.startswith(_NOT_PAGES) or not (root / path).is_file():
                continue
            seen[name] = None
            queue.append(name)
    return list(seen)


def generated_pages(root: Path | None = None) -> list[str]:
    """The reachable pages that ``_toc.yml`` does not list: pages Sphinx and its extensions generate."""
    toc = set(book_docnames())
    return [d for d in reachable_pages(root) if d not in toc]


def repository_settings(repo: Path | None = None) -> tuple[str, str, str]:
    """``(owner, name, branch)`` from ``_config.yml``'s ``repository:``."""
    config = yaml.safe_load(((repo or repo_dir()) / "_config.yml").read_text())
    repository = config.get("repository") or {}
    parts = urlsplit(repository.get("url", "")).path.strip("/").removesuffix(".git").split("/")
    owner, name = (parts + ["", ""])[:2]
    return owner, name, str(repository.get("branch", "main"))


class _IdCollector(html.parser.HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.ids: set[str] = set()

    def handle_starttag(self, tag, attrs):
        for key, value in attrs:
            if value and (key == "id" or (tag == "a" and key == "name")):
                self.ids.add(value)


@functools.lru_cache(maxsize=None)
def static_ids(path: Path) -> frozenset[str]:
    """Every ``id`` (and ``<a name>``) in a built HTML file, as served."""
    parser = _IdCollector()
    parser.feed(path.read_text(encoding="utf-8", errors="replace"))
    return frozenset(parser.ids)


# --------------------------------------------------------------------------- the local server


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


class BookServer:
    """``_build/html`` on http://127.0.0.1:<free port>/, in a daemon thread."""

    def __init__(self, root: Path):
        handler = functools.partial(_QuietHandler, directory=str(root))
        self.httpd = http.server.ThreadingHTTPServer((LOCAL_HOST, 0), handler)
        self.httpd.daemon_threads = True
        self.origin = f"http://{LOCAL_HOST}:{self.httpd.server_address[1]}"
        self.thread = threading.Thread(target=self.httpd.serve_forever, name="book-server", daemon=True)
        self.thread.start()

    def url(self, docname_or_path: str) -> str:
        path = GENERATED_QUERIES.get(docname_or_path, docname_or_path)
        path = path if ".html" in path else f"{path}.html"
        return f"{self.origin}/{path}"

    def close(self):
        self.httpd.shutdown()
        self.httpd.server_close()
        self.thread.join(timeout=5)


# --------------------------------------------------------------------------- what the browser reports

# Where an element sits, for messages: the nearest section id and a short tag.
_JS_DESCRIBE = r"""
function describe(el) {
  const sec = el.closest('section[id], div[id], figure[id]');
  let tag = el.tagName.toLowerCase();
  if (el.id) tag += '#' + el.id;
  else if (el.classList.length) tag += '.' + [...el.classList].slice(0, 2).join('.');
  return sec && sec !== el ? `${tag} in #${sec.id}` : tag;
}
"""

# One pass over the loaded page: math, images, figures, links, ids, launch buttons, solutions.
_JS_COLLECT = r"""
async () => {
""" + _JS_DESCRIBE + r"""
  // Load every image now, including lazy ones, and wait for all of them.
  const imgs = [...document.images];
  imgs.forEach(i => { i.loading = 'eager'; });
  await Promise.race([
    Promise.all(imgs.map(i => i.complete ? null : new Promise(r => { i.addEventListener('load', r); i.addEventListener('error', r); }))),
    new Promise(r => setTimeout(r, 10000)),
  ]);
  const out = {};
  const skip = 'script, style, pre, code, kbd, samp, textarea, noscript, svg, mjx-container, .highlight';
  const tex = /\$\$|\\\(|\\\)|\\\[|\\\]|\\begin\{|\\end\{|\$[^$\n]*\\[A-Za-z]|\\[A-Za-z]{2,}/;
  out.rawTex = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    const el = n.parentElement;
    if (!el || el.closest(skip) || el.closest('.math')) continue;  // .math: see untypeset
    const m = n.nodeValue.match(tex);
    if (m) out.rawTex.push({match: m[0].slice(0, 40), text: n.nodeValue.trim().slice(0, 160), where: describe(el)});
  }
  out.mathElements = document.querySelectorAll('.math').length;
  out.untypeset = [...document.querySelectorAll('.math')]
    .filter(el => !el.querySelector('mjx-container') && !el.closest('mjx-container'))
    .map(el => ({text: el.textContent.trim().slice(0, 160), where: describe(el)}));
  out.mathjaxVersion = (window.MathJax && window.MathJax.version) || null;
  out.containers = document.querySelectorAll('mjx-container').length;
  out.merrors = [...document.querySelectorAll('mjx-merror')]
    .map(el => ({message: el.getAttribute('data-mjx-error') || el.textContent.slice(0, 160), where: describe(el)}));
  // \undefinedmacro is rendered in red by MathJax's noundefined package, not as mjx-merror.
  // (the assistive MathML keeps the macro's name; the CHTML glyphs do not).
  out.undefinedMacros = [...document.querySelectorAll('mjx-container')]
    .filter(c => c.querySelector('mtext[mathcolor="red"], mjx-mtext[style*="color: red"]'))
    .map(c => ({text: [...c.querySelectorAll('mtext[mathcolor="red"]')].map(t => t.textContent).join(' ') || '(red text)',
                where: describe(c.parentElement || c)}));

  // Not a failure, reported in the summary: display equations wider than the text column.
  out.wideEquations = [...document.querySelectorAll('mjx-container[display="true"]')]
    .filter(m => m.scrollWidth > m.clientWidth + 8)
    .map(m => ({where: describe(m.parentElement || m), overflow: m.scrollWidth - m.clientWidth}));

  out.images = imgs.map(i => ({
    src: i.getAttribute('src'), url: i.currentSrc || i.src, alt: i.getAttribute('alt'),
    complete: i.complete, naturalWidth: i.naturalWidth, where: describe(i),
  }));
  out.figures = [...document.querySelectorAll('figure')].map(f => ({
    id: f.id, where: describe(f),
    media: f.querySelectorAll('img, svg, object, video, canvas, [role=img]').length,
    alts: [...f.querySelectorAll('img')].map(i => i.getAttribute('alt')),
    caption: (f.querySelector('figcaption') || {textContent: ''}).textContent.trim(),
  }));
  out.links = [...document.querySelectorAll('a[href], area[href]')].map(a => ({
    href: a.getAttribute('href'), url: a.href, text: a.textContent.trim().replace(/\s+/g, ' ').slice(0, 60), where: describe(a),
  }));
  out.ids = [...document.querySelectorAll('[id]')].map(e => e.id);
  out.launch = [...document.querySelectorAll('.dropdown-launch-buttons a')].map(a => ({
    href: a.href, title: a.getAttribute('title') || '', text: a.textContent.trim(),
  }));
  // Mathematics for assistive technology: MathJax's hidden MathML copy of each formula.
  out.assistiveMml = [...document.querySelectorAll('mjx-container')].filter(c => {
    const a = c.querySelector(':scope > mjx-assistive-mml');
    if (!a || !a.querySelector('math') || c.closest('[aria-hidden="true"]')) return false;
    // (visibility is not asked: a formula in a folded solution inherits "hidden" until unfolded)
    return getComputedStyle(a).display !== 'none';
  }).length;
  out.solutions = [...document.querySelectorAll('div.solution')].map(s => ({
    id: s.id, dropdown: s.classList.contains('dropdown'),
    title: (s.querySelector('.admonition-title') || {textContent: ''}).textContent.trim().replace(/\s+/g, ' '),
  }));
  return out;
}
"""

# Document order (what remains with styles off) against the order on screen: the
# article's headings, paragraphs, figures and boxes must come top to bottom, and
# heading levels must not skip a level going down.
_JS_READING_ORDER = r"""
() => {
  const out = {problems: []};
  const focusables = [...document.querySelectorAll('a[href], button, summary, input, select, [tabindex]')]
    .filter(e => e.tabIndex >= 0);
  const first = focusables[0];
  out.firstFocusable = first ? (first.textContent || '').trim().slice(0, 60) : null;
  out.skipTarget = first && first.getAttribute('href');
  const main = document.querySelector('main');
  const article = document.querySelector('main article') || main;
  if (!article) { out.problems.push('no <main> element'); return out; }
  // The theme's print header (.onlyprint: the title and the page's contents, shown
  // with styles off too) comes before the article, as on a printed page.
  const h1 = [...document.querySelectorAll('h1')].filter(h => !h.closest('.onlyprint'));
  if (h1.length !== 1) out.problems.push(`${h1.length} <h1> elements (expected one, the page title)`);
  else if (!article.contains(h1[0])) out.problems.push('the page title (h1) is not inside the article');
  // Everything before the article in document order is navigation, not content.
  const beforeMain = [...document.querySelectorAll('p, h2, h3, h4, figure, table')]
    .filter(e => !main.contains(e) && (main.compareDocumentPosition(e) & Node.DOCUMENT_POSITION_PRECEDING)
                 && !e.closest('nav, header, .bd-sidebar-primary, .bd-sidebar-secondary, [role=navigation], dialog, .search-button__wrapper, .bd-header-announcement'));
  if (beforeMain.length) out.problems.push(`${beforeMain.length} content blocks before <main> in document order, e.g. ${beforeMain[0].outerHTML.slice(0, 80)}`);
  let level = 0;
  for (const h of article.querySelectorAll('h1, h2, h3, h4, h5, h6')) {
    const l = +h.tagName[1];
    if (level && l > level + 1) out.problems.push(`heading level jumps from h${level} to h${l} at ${h.textContent.trim().slice(0, 60)}`);
    level = l;
  }
  const blocks = [...article.querySelectorAll(':scope section > h1, :scope section > h2, :scope section > h3, :scope section > h4, :scope section > p, :scope section > figure, :scope section > div.admonition, :scope section > div.cell')]
    .filter(e => e.checkVisibility({visibilityProperty: true, opacityProperty: true}) && e.getBoundingClientRect().height > 0);
  let prev = null;
  for (const b of blocks) {
    const r = b.getBoundingClientRect();
    const y = r.top + window.scrollY;
    if (prev && y < prev.y - 2) {
      out.problems.push(`"${b.textContent.trim().slice(0, 50)}" comes after "${prev.text}" in the document but above it on screen`);
    }
    prev = {y, text: b.textContent.trim().slice(0, 50)};
  }
  out.blocks = blocks.length;
  return out;
}
"""

# Solution ``i``: is its body (everything but the title) visible?
_JS_SOLUTION_STATE = r"""
(i) => {
  const s = document.querySelectorAll('div.solution')[i];
  const body = [...s.children].filter(c => !c.classList.contains('admonition-title'));
  const button = s.querySelector('button.toggle-button');
  return {
    bodyParts: body.length,
    visible: body.filter(c => c.checkVisibility() && c.getBoundingClientRect().height > 0).length,
    expanded: button ? button.getAttribute('aria-expanded') : null,
  };
}
"""

# Border pixels of every content image, drawn into a canvas (same origin: not tainted).
_JS_FIGURE_BORDERS = r"""
() => {
  const root = document.querySelector('article.bd-article') || document.querySelector('main') || document.body;
  return [...root.querySelectorAll('img')].map(img => {
    const w = img.naturalWidth, h = img.naturalHeight;
    const r = {src: img.getAttribute('src'), alt: img.getAttribute('alt'), width: w, height: h};
    if (!w || !h) { r.error = 'not loaded'; return r; }
    const c = document.createElement('canvas');
    c.width = w; c.height = h;
    const g = c.getContext('2d', {willReadFrequently: true});
    g.drawImage(img, 0, 0);
    let total = 0, clear = 0, minAlpha = 255;
    for (const [x, y, sw, sh] of [[0, 0, w, 1], [0, h - 1, w, 1], [0, 0, 1, h], [w - 1, 0, 1, h]]) {
      const d = g.getImageData(x, y, sw, sh).data;
      for (let k = 3; k < d.length; k += 4) { total++; if (d[k] < 255) { clear++; minAlpha = Math.min(minAlpha, d[k]); } }
    }
    r.corners = [[0, 0], [w - 1, 0], [0, h - 1], [w - 1, h - 1]].map(([x, y]) => g.getImageData(x, y, 1, 1).data[3]);
    Object.assign(r, {borderPixels: total, nonOpaque: clear, minAlpha});
    return r;
  });
}
"""


@dataclasses.dataclass
class PageReport:
    docname: str
    url: str = ""
    final_url: str = ""
    crash: str | None = None
    dom: dict = dataclasses.field(default_factory=dict)
    console_errors: list[str] = dataclasses.field(default_factory=list)
    failed_requests: list[str] = dataclasses.field(default_factory=list)
    blocked: list[str] = dataclasses.field(default_factory=list)
    solutions: list[dict] = dataclasses.field(default_factory=list)
    launch_menu_opened: bool | None = None
    dark: dict = dataclasses.field(default_factory=dict)
    figure_borders: list[dict] = dataclasses.field(default_factory=list)
    axe: dict = dataclasses.field(default_factory=dict)  # (mode, engine) -> axe-core violations (or {"error": ...})
    axe_versions: dict = dataclasses.field(default_factory=dict)  # engine -> the axe-core version that ran
    reading: dict = dataclasses.field(default_factory=dict)
    auditing: bool = False  # axe-core is running: its own requests are not the page's
    axe_seconds: float = 0.0
    screenshots: list[Path] = dataclasses.field(default_factory=list)
    seconds: float = 0.0


def screenshot_stem(docname: str) -> str:
    return docname.rsplit("/", 1)[-1]


def inspect_page(browser, server: BookServer, docname: str, shots: Path) -> PageReport:
    """Everything the tests need about one page, from one visit in a fresh context."""
    start = time.perf_counter()
    report = PageReport(docname, url=server.url(docname))
    context = browser.new_context(
        viewport=VIEWPORT, color_scheme="light", reduced_motion="reduce", device_scale_factor=1,
        service_workers="block",
    )
    context.set_default_timeout(TIMEOUT_MS)

    def route(r):
        url = r.request.url
        if url.startswith(server.origin + "/"):
            r.continue_()
        else:
            report.blocked.append(url)
            r.abort("internetdisconnected")

    context.route("**/*", route)
    page = context.new_page()
    page.on("console", lambda m: m.type == "error" and not report.auditing and report.console_errors.append(
        f"console error: {m.text} ({m.location.get('url', '')}:{m.location.get('lineNumber', '')})"))
    page.on("pageerror", lambda e: report.console_errors.append(f"uncaught exception: {e}"))
    page.on("requestfailed", lambda r: r.url.startswith(server.origin) and not report.auditing
            and report.failed_requests.append(f"{r.url} ({r.failure})"))
    page.on("response", lambda r: r.status >= 400 and not report.auditing
            and report.failed_requests.append(f"{r.url} (HTTP {r.status})"))
    try:
        page.goto(report.url, wait_until="load")
        report.final_url = page.url
        # Sphinx loads MathJax only on pages with math: wait for its first typeset there.
        try:
            page.wait_for_function(
                "() => !document.querySelector('.math') || (window.MathJax && MathJax.startup && MathJax.startup.promise)",
                timeout=MATHJAX_TIMEOUT_MS)
            page.evaluate("() => window.MathJax && MathJax.startup && MathJax.startup.promise")
        except Exception:  # reported by problems_math as "MathJax never started"
            pass
        page.evaluate("() => document.fonts.ready.then(() => true)")
        if docname in GENERATED_QUERIES:  # the search page: audit it with its results listed
            page.wait_for_function("() => document.querySelector('#search-results ul.search li')",
                                   timeout=MATHJAX_TIMEOUT_MS)
        report.dom = page.evaluate(_JS_COLLECT)
        report.reading = page.evaluate(_JS_READING_ORDER)

        shots.mkdir(parents=True, exist_ok=True)
        stem = screenshot_stem(docname)
        page.evaluate("() => window.scrollTo(0, 0)")
        light = shots / f"{stem}.png"
        page.screenshot(path=str(light), animations="disabled", caret="hide")
        report.screenshots.append(light)

        _check_launch_menu(page, report)
        _unfold_solutions(page, report)
        for engine in AXE_ENGINES:  # solutions unfolded: their content is audited too
            report.axe[("light", engine)] = run_axe(page, report, engine)
        _switch_to_dark(page, report)
        for engine in AXE_ENGINES:
            report.axe[("dark", engine)] = run_axe(page, report, engine)
        page.evaluate("() => window.scrollTo(0, 0)")
        dark = shots / f"{stem}-dark.png"
        page.screenshot(path=str(dark), animations="disabled", caret="hide")
        report.screenshots.append(dark)
        report.figure_borders = page.evaluate(_JS_FIGURE_BORDERS)
    except Exception as exc:  # reported by every test of the page, with the page's name
        report.crash = f"{type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}"
    finally:
        context.close()
        report.seconds = time.perf_counter() - start
    return report


# --------------------------------------------------------------------------- accessibility audit

# WCAG 2.0 and 2.1, levels A and AA: every axe-core rule with one of these tags,
# including the rules axe marks experimental (label-content-name-mismatch, td-has-header).
AXE_TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]


# Two axe-core releases audit every page: the one the PyPI package axe-playwright-python
# bundles, and the newest on the npm registry (browser_tests/package.json pins it;
# tools/install_axe.sh installs it), so that a newer rule set cannot find what the audit missed.
AXE_ENGINES = ("bundled", "npm")
NPM_AXE = Path(__file__).resolve().parent / "node_modules" / "axe-core" / "axe.min.js"


@functools.lru_cache(maxsize=None)
def axe_script(engine: str = "bundled") -> str:
    """axe-core's script: ``bundled`` by axe-playwright-python, or the ``npm`` package's ``axe.min.js``."""
    if engine == "npm":
        if not NPM_AXE.is_file():
            raise FileNotFoundError(f"no {NPM_AXE}: run tools/install_axe.sh (npm ci in browser_tests/)")
        return NPM_AXE.read_text(encoding="utf-8")
    from axe_playwright_python.base import AXE_SCRIPT

    return AXE_SCRIPT


def run_axe(page, report: PageReport | None = None, engine: str = "bundled") -> list[dict] | dict:
    """axe-core's WCAG 2.0/2.1 A and AA violations on the page as it is now, by the ``engine``'s axe-core.

    While axe runs, ``report.auditing`` is set: axe re-fetches the page's style
    sheets to read their media queries and resolves the theme's
    ``@import "../basic.css"`` against the page instead of the sheet (a 404 of
    axe's own, not a request of the page).  Loading the second engine's script
    replaces ``window.axe``: each audit runs the release it names (its version is
    in every violation found, and ``axe_version`` reads it back).
    """
    try:
        script = axe_script(engine)
    except ImportError:
        return {"error": "the accessibility audit needs `axe-playwright-python`: pip install -r requirements.txt"}
    except FileNotFoundError as exc:
        return {"error": str(exc)}
    if report is not None:
        report.auditing = True
    start = time.perf_counter()
    try:
        # A solution just unfolded fades in (0.3 s): mid-fade colours are not the page's.
        page.wait_for_function("() => document.getAnimations().every(a => a.playState !== 'running')",
                               timeout=TIMEOUT_MS)
        page.evaluate(script)
        if report is not None:
            report.axe_versions[engine] = page.evaluate("() => axe.version")
        return _run_axe_rules(page)
    finally:
        if report is not None:
            page.wait_for_timeout(50)  # late console messages of axe's requests
            report.auditing = False
            report.axe_seconds += time.perf_counter() - start


def _run_axe_rules(page) -> list[dict]:
    return page.evaluate(
        r"""(tags) => axe.run(document, {
             runOnly: {type: 'rule', values: axe.getRules(tags).map(r => r.ruleId)},
             resultTypes: ['violations'],
           }).then(r => r.violations.map(v => ({
             id: v.id, impact: v.impact, help: v.help, version: r.testEngine.version,
             nodes: v.nodes.map(n => ({target: n.target.join(' '), html: n.html.slice(0, 160),
                                       summary: (n.failureSummary || '').replace(/\s+/g, ' ').slice(0, 240)})),
           })))""", AXE_TAGS)


def _check_launch_menu(page, report: PageReport):
    """Open the rocket menu as a reader would: its Binder and Colab entries must become visible."""
    toggle = page.locator(".dropdown-launch-buttons > button.dropdown-toggle")
    if toggle.count() == 0:
        return
    toggle.first.click()
    try:
        page.locator(".dropdown-launch-buttons a.dropdown-item").first.wait_for(state="visible", timeout=TIMEOUT_MS)
        report.launch_menu_opened = True
    except Exception:
        report.launch_menu_opened = False
    page.keyboard.press("Escape")


def _unfold_solutions(page, report: PageReport):
    """Each solution: folded at first, shown after a click on its toggle button."""
    for i, solution in enumerate(report.dom.get("solutions", [])):
        state = {"id": solution["id"], "title": solution["title"], "dropdown": solution["dropdown"]}
        state["before"] = page.evaluate(_JS_SOLUTION_STATE, i)
        button = page.locator("div.solution").nth(i).locator("button.toggle-button")
        if button.count():
            button.first.scroll_into_view_if_needed()
            button.first.click()
            try:
                page.wait_for_function(
                    "([js, i]) => eval(js)(i).visible > 0", arg=[_JS_SOLUTION_STATE, i], timeout=TIMEOUT_MS)
            except Exception:
                pass
        state["after"] = page.evaluate(_JS_SOLUTION_STATE, i)
        report.solutions.append(state)


def _switch_to_dark(page, report: PageReport):
    """Click the theme switcher (light -> dark -> auto cycle) until the page is dark."""
    switch = page.locator("button.theme-switch-button:visible")
    report.dark = {"switch": switch.count() > 0, "clicks": 0}
    for _ in range(3):
        if page.evaluate("() => document.documentElement.dataset.theme") == "dark" or not switch.count():
            break
        switch.first.click()
        report.dark["clicks"] += 1
    report.dark["theme"] = page.evaluate("() => document.documentElement.dataset.theme")
    report.dark["background"] = page.evaluate("() => getComputedStyle(document.body).backgroundColor")
    # No focus ring or tooltip on the switch in the screenshot; let the new colours paint.
    page.evaluate("() => document.activeElement && document.activeElement.blur()")
    page.mouse.move(0, VIEWPORT["height"] - 1)
    page.wait_for_timeout(100)


# --------------------------------------------------------------------------- verdicts


def problems_crash(report: PageReport) -> list[str]:
    return [f"{report.docname}: the browser could not inspect the page: {report.crash}"] if report.crash else []


def problems_math(report: PageReport) -> list[str]:
    out = problems_crash(report)
    d, name = report.dom, report.docname
    if not d:
        return out
    if d["mathElements"] and not d["mathjaxVersion"]:
        out.append(f"{name}: {d['mathElements']} math elements but MathJax did not start within "
                   f"{MATHJAX_TIMEOUT_MS // 1000} s (is the offline copy in _static/mathjax?)")
    else:
        out += [f"{name}: math not typeset in {u['where']}: {u['text']!r}" for u in d["untypeset"]]
    out += [f"{name}: raw TeX {r['match']!r} in visible text in {r['where']}: {r['text']!r}" for r in d["rawTex"]]
    out += [f"{name}: MathJax error in {e['where']}: {e['message']}" for e in d["merrors"]]
    out += [f"{name}: undefined TeX macro {u['text']!r} in {u['where']}" for u in d["undefinedMacros"]]
    return out


def problems_images(report: PageReport) -> list[str]:
    out = problems_crash(report)
    for img in report.dom.get("images", []):
        if not img["complete"] or img["naturalWidth"] == 0:
            out.append(f"{report.docname}: broken image {img['src']!r} ({img['where']})")
    return out


def problems_alt_text(report: PageReport) -> list[str]:
    out = problems_crash(report)
    name = report.docname
    for img in report.dom.get("images", []):
        if not (img["alt"] or "").strip():
            out.append(f"{name}: image {img['src']!r} has no alt text ({img['where']})")
    for fig in report.dom.get("figures", []):
        label = fig["id"] or fig["where"]
        if not fig["media"]:
            out.append(f"{name}: figure {label} shows no image")
        if any(not (a or "").strip() for a in fig["alts"]):
            out.append(f"{name}: figure {label} has an image without alt text")
        if not fig["caption"]:
            out.append(f"{name}: figure {label} has no caption")
    return out


def problems_links(report: PageReport, root: Path, origin: str) -> list[str]:
    """Every link to the book itself reaches an existing file, and its #anchor an existing id."""
    out = problems_crash(report)
    here = urlsplit(report.final_url or report.url).path
    live_ids = set(report.dom.get("ids", []))
    for link in report.dom.get("links", []):
        href, parts = link["href"], urlsplit(link["url"])
        what = f"link {href!r} ({link['text'] or 'no text'!r}, {link['where']})"
        if parts.scheme in ("mailto", "tel", "javascript", "data"):
            continue
        if parts.scheme in ("http", "https") and f"{parts.scheme}://{parts.netloc}" != origin:
            continue  # external: cannot be checked offline (launch buttons are checked separately)
        if parts.scheme not in ("http", "https"):
            out.append(f"{report.docname}: {what} uses the scheme {parts.scheme!r}")
            continue
        path = unquote(parts.path)
        target = root / path.lstrip("/")
        if path.endswith("/") or target.is_dir():
            target = target / "index.html"
        if not target.is_file():
            out.append(f"{report.docname}: {what} points to {path}, which does not exist")
            continue
        fragment = unquote(parts.fragment)
        if fragment and target.suffix == ".html":
            ids = set(static_ids(target)) | (live_ids if parts.path == here else set())
            if fragment not in ids:
                out.append(f"{report.docname}: {what}: no id {fragment!r} in {path}")
    return out


def problems_console(report: PageReport) -> list[str]:
    out = problems_crash(report)
    out += [f"{report.docname}: {m}" for m in report.console_errors]
    out += [f"{report.docname}: request failed: {m}" for m in report.failed_requests]
    return out


def problems_network(report: PageReport) -> list[str]:
    return problems_crash(report) + [
        f"{report.docname}: tried to reach the network (blocked): {u}" for u in dict.fromkeys(report.blocked)]


def problems_solutions(report: PageReport) -> list[str]:
    out = problems_crash(report)
    name = report.docname
    for s in report.solutions:
        label = f"solution {s['id']!r} ({s['title']!r})"
        before, after = s["before"], s["after"]
        if not s["dropdown"]:
            out.append(f"{name}: {label} is not a dropdown (add ':class: dropdown')")
        if before["bodyParts"] == 0:
            out.append(f"{name}: {label} has no content")
            continue
        if before["visible"]:
            out.append(f"{name}: {label} is visible before it is clicked")
        if not after["visible"]:
            out.append(f"{name}: {label} stays hidden after a click on its toggle button")
        elif after["expanded"] not in ("true", None):
            out.append(f"{name}: {label} shown but its button says aria-expanded={after['expanded']}")
    if CHAPTER_RE.search(name) and not report.crash and not report.solutions:
        out.append(f"{name}: a chapter page with no exercise solution")
    return out


@dataclasses.dataclass
class LaunchTarget:
    service: str  # "Binder" or "Colab"
    url: str
    path: str | None  # the notebook path in the repository, or None if the URL could not be read
    problem: str | None = None


def parse_launch_url(url: str, owner: str, name: str, branch: str) -> LaunchTarget:
    """The repository path a Binder or Colab URL opens, checked against ``_config.yml``'s repository."""
    parts = urlsplit(url)
    if parts.netloc.endswith("colab.research.google.com"):
        m = re.match(r"^/github/([^/]+)/([^/]+)/blob/([^/]+)/(.+)$", parts.path)
        if not m:
            return LaunchTarget("Colab", url, None, "not a colab.research.google.com/github/<owner>/<repo>/blob/<branch>/<path> URL")
        got = m.groups()
        path = unquote(got[3])
    elif "binder" in parts.netloc:
        m = re.match(r"^/v2/gh/([^/]+)/([^/]+)/([^/?]+)/?$", parts.path)
        query = parse_qs(parts.query)
        raw = (query.get("urlpath") or query.get("labpath") or query.get("filepath") or [""])[0]
        raw = re.sub(r"^(lab/tree/|tree/|notebooks/|doc/tree/)", "", unquote(raw))
        if not m or not raw:
            return LaunchTarget("Binder", url, None, "not a <binderhub>/v2/gh/<owner>/<repo>/<branch>?urlpath=tree/<path> URL")
        got = (*m.groups(), raw)
        path = raw
    else:
        return LaunchTarget("?", url, None, "neither a Binder nor a Colab URL")
    service = "Colab" if "colab" in parts.netloc else "Binder"
    if (got[0].lower(), got[1].lower(), unquote(got[2])) != (owner.lower(), name.lower(), branch):
        return LaunchTarget(service, url, path,
                            f"opens {got[0]}/{got[1]}@{unquote(got[2])}, not {owner}/{name}@{branch} (_config.yml)")
    return LaunchTarget(service, url, path)


LAUNCH_SUMMARY: dict[str, list[str]] = {}  # printed at the end of the run by conftest.py


def wide_equations(report: PageReport) -> list[str]:
    """Display equations that need a horizontal scroll at 1280 px (a note, not a failure)."""
    return [f"{w['where']} (+{w['overflow']} px)" for w in report.dom.get("wideEquations", [])]


def launch_targets(report: PageReport, repo: Path) -> tuple[list[LaunchTarget], list[str]]:
    out = problems_crash(report)
    name = report.docname
    owner, repo_name, branch = repository_settings(repo)
    targets = []
    for link in report.dom.get("launch", []):
        target = parse_launch_url(link["href"], owner, repo_name, branch)
        targets.append(target)
        if target.problem:
            out.append(f"{name}: {target.service} button {target.url}: {target.problem}")
        elif not target.path.endswith(".ipynb"):
            out.append(f"{name}: {target.service} button opens {target.path!r}, not a notebook (.ipynb)")
        elif not (repo / target.path).is_file():
            out.append(f"{name}: {target.service} button opens {target.path!r}, which is not in the repository")
    LAUNCH_SUMMARY[name] = [f"{t.service} -> {t.path or t.url}" for t in targets]
    services = {t.service for t in targets}
    if CHAPTER_RE.search(name) and not report.crash:
        for service in ("Binder", "Colab"):
            if service not in services:
                out.append(f"{name}: no {service} launch button")
    if targets and report.launch_menu_opened is False:
        out.append(f"{name}: the launch menu (rocket button) does not open on click")
    return targets, out


def problems_accessibility(report: PageReport, mode: str, engine: str = "bundled") -> list[str]:
    """One line per element that violates an axe-core WCAG 2.0/2.1 A/AA rule: rule, impact, selector."""
    out = problems_crash(report)
    if report.crash:
        return out
    found = report.axe.get((mode, engine))
    where = f"{report.docname} ({mode}, axe-core {report.axe_versions.get(engine, engine)})"
    if found is None:
        return out + [f"{where}: the accessibility audit did not run"]
    if isinstance(found, dict):
        return out + [f"{where}: {found['error']}"]
    for v in found:
        for node in v["nodes"]:
            out.append(f"{where}: {v['id']} [{v['impact']}] at {node['target']}: {v['help']}. "
                       f"{node['summary']} -- {node['html']}")
    return out


def problems_reading_order(report: PageReport) -> list[str]:
    out = problems_crash(report)
    if report.crash:
        return out
    got, name = report.reading, report.docname
    out += [f"{name}: {p}" for p in got.get("problems", [])]
    if not re.search(r"skip", got.get("firstFocusable") or "", re.I) or got.get("skipTarget") != "#main-content":
        out.append(f"{name}: the first link is {got.get('firstFocusable')!r} -> {got.get('skipTarget')!r}, "
                   "not a skip link to the main content")
    if got.get("blocks", 0) < 1:
        out.append(f"{name}: no content block found in the article")
    return out


def problems_assistive_math(report: PageReport) -> list[str]:
    out = problems_crash(report)
    d = report.dom
    if d and d.get("containers") and d.get("assistiveMml", 0) != d["containers"]:
        out.append(f"{report.docname}: {d['containers'] - d.get('assistiveMml', 0)} of {d['containers']} formulas have "
                   "no assistive MathML (<mjx-assistive-mml><math>) for screen readers (mathjax3_config in _config.yml)")
    return out


def problems_dark_mode(report: PageReport) -> list[str]:
    out = problems_crash(report)
    name = report.docname
    if not report.dom:
        return out
    if not report.dark.get("switch"):
        out.append(f"{name}: no visible theme switch button")
    elif report.dark.get("theme") != "dark":
        out.append(f"{name}: the theme switch never reached dark mode (theme={report.dark.get('theme')!r})")
    for fig in report.figure_borders:
        label = f"figure image {fig['src']!r} ({(fig['alt'] or '')[:50]!r})"
        if fig.get("error"):
            out.append(f"{name}: {label} {fig['error']} in dark mode")
        elif fig["nonOpaque"]:
            out.append(
                f"{name}: {label} has a transparent background ({fig['nonOpaque']} of {fig['borderPixels']} "
                f"border pixels not opaque, corner alphas {fig['corners']}): its dark text vanishes on the dark "
                "theme; save it with an opaque facecolor")
    return out
