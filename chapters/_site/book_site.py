"""The book's own Sphinx tweaks, loaded through ``local_extensions`` in ``_config.yml``.

* ``static/book.css``: code and outputs that wrap at the column, tables that
  wrap instead of scrolling, and the report card's column widths.
* The theme's colour mode starts as "auto" on a first visit, which it otherwise logs as an error.
* Each page's scripts are de-duplicated: sphinx-thebe (pulled in by Jupyter Book 1.x, unused here)
  registers its inline ``const THEBE_JS_URL`` twice, which is a console error on every page.
"""
from pathlib import Path

HERE = Path(__file__).resolve().parent


def _add_static_path(app):
    app.config.html_static_path.append(str(HERE / "static"))


# On a first visit the theme finds no colour mode stored, sets data-mode="" and logs "Got invalid
# theme mode" as a console error before falling back to "auto"; start from "auto" instead.
THEME_MODE = 'if (!document.documentElement.dataset.mode) { document.documentElement.dataset.mode = "auto"; }'


def _dedupe_scripts(app, pagename, templatename, context, doctree):
    """Drop repeated scripts in place (the list is shared with handlers that run later)."""
    scripts = context.get("script_files")
    if not isinstance(scripts, list):
        return
    seen, unique = set(), []
    for script in scripts:
        # an inline script is registered once with filename None and once with "": treat them alike
        key = (getattr(script, "filename", script) or "", tuple(sorted(getattr(script, "attributes", {}).items())))
        if key not in seen:
            seen.add(key)
            unique.append(script)
    scripts[:] = unique


def setup(app):
    app.connect("builder-inited", _add_static_path)
    app.add_js_file(None, body=THEME_MODE, priority=100)
    app.add_css_file("book.css")
    # early: Sphinx stops calling html-page-context handlers at the first that returns a value
    app.connect("html-page-context", _dedupe_scripts, priority=1)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
