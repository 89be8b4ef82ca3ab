"""Open every page of the built book in headless Chromium and fail on what a reader would trip over.

``make check-site`` runs this on ``_build/html`` (``python tests/check_site.py --help``). For each
page it reports

* **math**     math left as raw TeX (``\\(...\\)`` not typeset) or a MathJax error box;
* **image**    an image that did not load;
* **link**     an internal link to a missing page or a missing anchor (external links are counted,
               not followed: the check runs offline);
* **console**  an error in the browser console (a failed request, a script error);
* **load**     MathJax or an image still loading after 25 s;
* **figure**   a chapter whose notebook calls ``plt.show()`` but whose page holds no figure (the
               kernel drew with a non-inline backend, e.g. ``MPLBACKEND=Agg`` left in the environment);
* **redirect** a redirect page (Jupyter Book's ``index.html`` -> the root page) whose target is missing;
               redirect pages are read, not opened: the refresh would navigate away mid-inspection
* **width**    content wider than the page at the window width (1280 px by default): the page
               itself scrolls sideways, or a table, code cell, output or equation in the article
               needs a horizontal scrollbar;
* **code**     a visible code cell (not folded with ``hide-input``, not removed) of more than
               :data:`MAX_VISIBLE_LINES` non-blank lines: code that draws figures or records claims
               is folded, code that teaches stays short. Every page's longest visible cell is printed.

It needs Debian's ``chromium`` and ``chromium-driver`` (``apt-get install chromium chromium-driver``)
and the Python package ``selenium``. The pages are served from a local HTTP server, so the check
sees what a reader of the published site sees. Exit status 1 if any page has a problem.
"""
from __future__ import annotations

import argparse
import functools
import http.server
import re
import shutil
import sys
import threading
from collections import defaultdict
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urldefrag, urlparse

SKIP_DIRS = {"_static", "_sources", "_images", "_sphinx_design_static", "_panels_static"}

# Runs in the page once MathJax (if any) has finished. Returns what the Python side checks.
INSPECT = r"""
const done = arguments[arguments.length - 1];
// MathJax is loaded with `defer`: wait until it has started (up to 30 s) and finished typesetting
const needsMath = document.querySelector('.math, script[src*="mathjax"]') !== null;
const started = new Promise(resolve => {
  const t0 = Date.now();
  const poll = () => (window.MathJax && MathJax.startup && MathJax.startup.promise) ? resolve(MathJax.startup.promise)
    : (Date.now() - t0 > 30000 ? resolve() : setTimeout(poll, 50));
  needsMath ? poll() : resolve();
});
const ready = started.then(p => p);
Array.from(document.images).forEach(img => { img.loading = 'eager'; });  // lazy images off-screen would never load
const imgs = Promise.all(Array.from(document.images).map(img => img.complete ? null :
    new Promise(r => { img.addEventListener('load', r); img.addEventListener('error', r); })));
// never wait forever: after 25 s inspect the page as it is and say what had not settled
let settled = false;
const waited = Promise.race([Promise.all([ready, imgs]).then(() => { settled = true; }),
                             new Promise(r => setTimeout(r, 25000))]);
waited.then(() => {
  const article = document.querySelector('article.bd-article') || document.body;
  const describe = el => {
    const cls = (el.className && el.className.baseVal === undefined) ? el.className : '';
    const head = (el.closest('[id]') || {}).id || '';
    return `${el.tagName.toLowerCase()}${cls ? '.' + cls.trim().split(/\s+/).join('.') : ''}` +
           (head ? ` in #${head}` : '') + `: "${(el.innerText || '').trim().slice(0, 60).replace(/\s+/g, ' ')}"`;
  };
  // math: a math element with no typeset output, a MathJax error, or TeX delimiters in plain text
  const math = [];
  article.querySelectorAll('.math').forEach(el => {
    if (!el.querySelector('mjx-container')) math.push('untypeset ' + describe(el));
  });
  article.querySelectorAll('mjx-merror').forEach(el => math.push('MathJax error ' + describe(el)));
  const walker = document.createTreeWalker(article, NodeFilter.SHOW_TEXT);
  const skip = 'pre, code, script, style, mjx-container, .math, textarea';
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    if (/\\\(|\\\[|\$\$/.test(n.textContent) && !n.parentElement.closest(skip))
      math.push('raw TeX "' + n.textContent.trim().slice(0, 60) + '"');
  }
  // images that did not load
  const images = Array.from(document.images).filter(i => i.naturalWidth === 0).map(i => i.src);
  // links
  const links = Array.from(document.querySelectorAll('a[href]')).map(a => a.href);
  // width: the page scrolls sideways, or a box in the article needs a horizontal scrollbar
  const width = [];
  const page = document.documentElement;
  if (page.scrollWidth > window.innerWidth + 1)
    width.push(`page is ${page.scrollWidth} px wide in a ${window.innerWidth} px window`);
  article.querySelectorAll('*').forEach(el => {
    if (el.scrollWidth <= el.clientWidth + 2 || el.clientWidth === 0) return;
    const ox = getComputedStyle(el).overflowX;
    if (ox === 'auto' || ox === 'scroll')
      width.push(`${el.scrollWidth} px of content in a ${el.clientWidth} px box: ` + describe(el));
  });
  const pending = settled ? [] : ['MathJax or an image had not finished after 25 s'];
  done({math, images, links, width, pending, title: document.title});
});
"""


class _Ids(HTMLParser):
    def __init__(self):
        super().__init__()
        self.ids = set()

    def handle_starttag(self, tag, attrs):
        for key, value in attrs:
            if key in ("id", "name") and value:
                self.ids.add(value)


def _serve(root: Path) -> tuple[http.server.ThreadingHTTPServer, str]:
    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Quiet, directory=str(root)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}/"


def _browser(width: int, height: int):
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = shutil.which("chromium") or "/usr/bin/chromium"
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--disable-quic",
                 "--no-first-run", "--disable-background-networking", "--disable-component-update",
                 "--disable-sync", "--hide-scrollbars", f"--window-size={width},{height}"):
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(options=options, service=Service(shutil.which("chromedriver") or "/usr/bin/chromedriver"))
    # the script waits at most 30 s for MathJax to start and 25 s for it to settle, then walks every
    # element of the article: on a long page and a busy 2-core machine that walk alone can take a while
    driver.set_script_timeout(180)
    driver.set_page_load_timeout(120)
    return driver


def _inspect(driver, url: str) -> dict:
    driver.get(url)
    return driver.execute_async_script(INSPECT)


def missing_figures(root: Path, page: Path) -> list[str]:
    """A chapter page with no figure although its notebook's twin calls ``plt.show()``."""
    script = root.parents[1] / page.relative_to(root).with_suffix(".py")
    if not script.exists():
        return []
    shows = len(re.findall(r"^[^#\n]*plt\.show\(\)", script.read_text(), flags=re.M))
    figures = len(re.findall(r'<img[^>]+src="[^"]*_images/', page.read_text(errors="replace")))
    if shows and not figures:
        return [f"{script.name} calls plt.show() {shows} times, the page shows no figure (was MPLBACKEND set?)"]
    return []


_REFRESH = re.compile(r'<meta[^>]+http-equiv="refresh"[^>]+content="\d+;\s*url=([^"]+)"', re.I)


#: the longest visible code cell a page may show, in non-blank lines (issue 30)
MAX_VISIBLE_LINES = 15


class _CodeCells(HTMLParser):
    """The visible code cells of a MyST-NB page: the text of every ``cell_input`` whose cell is not
    tagged ``hide-input`` (folded) or ``remove-input`` (absent from the page anyway)."""

    def __init__(self):
        super().__init__()
        self.stack: list[tuple[str, str]] = []  # (tag, class) of the open elements
        self.cells: list[str] = []
        self._text: list[str] | None = None
        self._depth = 0

    def handle_starttag(self, tag, attrs):
        cls = dict(attrs).get("class") or ""
        self.stack.append((tag, cls))
        if tag == "div" and "cell_input" in cls.split() and self._text is None:
            cell = next((c for t, c in reversed(self.stack[:-1]) if t == "div" and "cell" in c.split()), "")
            if "tag_hide-input" not in cell and "tag_remove-input" not in cell:
                self._text, self._depth = [], len(self.stack)

    def handle_endtag(self, tag):
        while self.stack:
            open_tag, _ = self.stack.pop()
            if self._text is not None and len(self.stack) < self._depth:
                self.cells.append("".join(self._text))
                self._text = None
            if open_tag == tag:
                break

    def handle_data(self, data):
        if self._text is not None:
            self._text.append(data)


def longest_visible_cell(page: Path) -> tuple[int, str]:
    """The non-blank line count of a page's longest visible code cell, and its first line."""
    parser = _CodeCells()
    parser.feed(page.read_text(errors="replace"))
    best = (0, "")
    for text in parser.cells:
        lines = [line for line in text.splitlines() if line.strip()]
        if len(lines) > best[0]:
            best = (len(lines), lines[0].strip()[:60])
    return best


def redirect_target(page: Path) -> str | None:
    """The URL a ``<meta http-equiv="refresh">`` page sends the reader to, or None for a real page."""
    match = _REFRESH.search(page.read_text(errors="replace")[:4000])
    return match.group(1).strip() if match else None


def pages(root: Path) -> list[Path]:
    return sorted(p for p in root.rglob("*.html") if not SKIP_DIRS & set(p.relative_to(root).parts))


def check(root: Path, width: int = 1280, height: int = 900, screenshots: Path | None = None,
          only: str | None = None) -> dict[str, dict[str, list[str]]]:
    """``{page: {kind: [problem, ...]}}`` for every built page (``only``: pages whose path contains it)."""
    root = root.resolve()
    server, base = _serve(root)
    driver = _browser(width, height)
    problems: dict[str, dict[str, list[str]]] = {}
    ids: dict[Path, set[str]] = {}

    def anchors(path: Path) -> set[str]:
        if path not in ids:
            parser = _Ids()
            parser.feed(path.read_text(errors="replace"))
            ids[path] = parser.ids
        return ids[path]

    external = set()
    try:
        for path in pages(root):
            rel = path.relative_to(root).as_posix()
            if only and only not in rel:
                continue
            found = defaultdict(list)
            target = redirect_target(path)
            if target is not None:
                if not (path.parent / urldefrag(unquote(target))[0]).exists():
                    found["redirect"].append(f"redirects to missing {target}")
                problems[rel] = dict(found)
                print(f"{rel:70s} {'ok (redirect to ' + target + ')' if not found else 'missing redirect target'}",
                      flush=True)
                continue
            try:
                seen = _inspect(driver, base + rel)
            except Exception as error:  # a browser that hung or crashed: start a new one and try once more
                print(f"{rel}: {type(error).__name__}, retrying in a new browser", flush=True)
                driver.quit()
                driver = _browser(width, height)
                seen = _inspect(driver, base + rel)
            found["load"] = seen["pending"]
            found["math"] = seen["math"]
            found["image"] = seen["images"]
            found["width"] = seen["width"]
            found["figure"] = missing_figures(root, path)
            longest, first = longest_visible_cell(path)
            if longest > MAX_VISIBLE_LINES:
                found["code"].append(f"a visible code cell of {longest} lines (over {MAX_VISIBLE_LINES}): "
                                     f"\"{first}\": fold it (hide-input) or move the computing into lib")
            for entry in driver.get_log("browser"):
                # the browser asks every new origin for /favicon.ico on its own; the book sets none
                if entry["level"] == "SEVERE" and "favicon.ico" not in entry["message"]:
                    found["console"].append(re.sub(re.escape(base), "/", entry["message"]))
            for href in seen["links"]:
                url, fragment = urldefrag(href)
                if not url.startswith(base):
                    if urlparse(url).scheme in ("http", "https"):
                        external.add(url)
                    continue
                target = root / unquote(url[len(base):])
                if target.is_dir():
                    target = target / "index.html"
                if not target.exists():
                    found["link"].append(f"missing page {url[len(base):]}")
                elif fragment and target.suffix == ".html" and unquote(fragment) not in anchors(target):
                    found["link"].append(f"missing anchor {url[len(base):]}#{fragment}")
            if screenshots is not None:
                screenshots.mkdir(parents=True, exist_ok=True)
                _full_page_screenshot(driver, screenshots / (rel.replace("/", "__") + ".png"), width)
            problems[rel] = {k: v for k, v in found.items() if v}
            status = "ok" if not problems[rel] else ", ".join(f"{len(v)} {k}" for k, v in problems[rel].items())
            print(f"{rel:70s} {status} (longest visible code cell: {longest} lines)", flush=True)
    finally:
        driver.quit()
        server.shutdown()
    print(f"{len(problems)} pages at {width} px; {len(external)} external links not followed (offline check)")
    return problems


def _full_page_screenshot(driver, path: Path, width: int) -> None:
    """The whole page, not just the window: grow the window to the page's height first."""
    height = driver.execute_script("return Math.min(document.documentElement.scrollHeight, 16000)")
    driver.set_window_size(width, height)
    driver.save_screenshot(str(path))
    driver.set_window_size(width, 900)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("root", nargs="?", default="_build/html", type=Path, help="the built site (default %(default)s)")
    parser.add_argument("--width", type=int, default=1280, help="window width in px (default %(default)s)")
    parser.add_argument("--screenshots", type=Path, help="save a full-page PNG of every page into this folder")
    parser.add_argument("--only", help="check only pages whose path contains this")
    args = parser.parse_args(argv)
    if not (args.root / "index.html").exists() and not (args.root / "intro.html").exists():
        parser.error(f"{args.root} holds no built book: run `make book` first")
    problems = check(args.root, args.width, screenshots=args.screenshots, only=args.only)
    bad = {page: found for page, found in problems.items() if found}
    for page, found in bad.items():
        print(f"\n{page}")
        for kind, items in found.items():
            for item in items[:12]:
                print(f"  {kind:8s} {item}")
            if len(items) > 12:
                print(f"  {kind:8s} ... and {len(items) - 12} more")
    print(f"\n{len(bad)} of {len(problems)} pages have problems" if bad else "\nevery page passes")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
