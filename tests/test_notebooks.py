"""The book's structure: paired notebooks in sync, one setup cell, the table of contents."""
import re
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = sorted(p for p in (ROOT / "chapters").rglob("*.ipynb") if ".ipynb_checkpoints" not in p.parts
                   and "_build" not in p.parts)


def cells(path: Path) -> list[tuple[str, str]]:
    import jupytext

    return [(c.cell_type, c.source.strip()) for c in jupytext.read(path).cells]


def test_there_are_chapters():
    assert NOTEBOOKS, "no notebooks under chapters/"


@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=lambda p: p.stem)
def test_paired_notebook_and_script_are_in_sync(notebook):
    script = notebook.with_suffix(".py")
    assert script.exists(), f"{notebook.name} has no py:percent twin (run `make sync`)"
    assert cells(notebook) == cells(script), f"{notebook.name} and {script.name} differ: run `make sync`"


def setup_cell(notebook: Path) -> str:
    import json

    cells = json.loads(notebook.read_text())["cells"]
    return "".join(next(c for c in cells if c["cell_type"] == "code")["source"])


def test_every_notebook_starts_with_the_same_setup_cell_and_repository():
    config = yaml.safe_load((ROOT / "_config.yml").read_text())
    url = config["repository"]["url"]
    cells = {nb.name: setup_cell(nb) for nb in NOTEBOOKS}
    first = next(iter(cells.values()))
    assert all(cell == first for cell in cells.values()), "setup cells differ between notebooks"
    assert f'REPO = "{url}"' in first, "the setup cell must install from _config.yml's repository url"
    assert "lib.setup_notebook" in first and "torch" not in re.sub(r"#.*", "", first)


def toc_files(entries):
    for entry in entries:
        if "file" in entry:
            yield entry["file"]
        yield from toc_files(entry.get("chapters", []) + entry.get("sections", []))


def test_table_of_contents_lists_existing_files_and_every_notebook():
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text())
    files = [toc["root"]] + list(toc_files([c for part in toc["parts"] for c in part["chapters"]]))
    for f in files:
        assert any((ROOT / f).with_suffix(s).exists() for s in (".md", ".ipynb")), f
    listed = {(ROOT / f).with_suffix(".ipynb") for f in files}
    assert set(NOTEBOOKS) <= listed, "a notebook is not in _toc.yml"


def test_setup_cell_is_hidden_in_the_book_and_retries_a_failed_install():
    import json

    for nb in NOTEBOOKS:
        cell = next(c for c in json.loads(nb.read_text())["cells"] if c["cell_type"] == "code")
        assert {"setup", "remove-cell"} <= set(cell["metadata"].get("tags", [])), nb.name
        source = "".join(cell["source"])
        # the install is skipped only after it completed: the marker is written last
        assert source.index(".installed\")") < source.index("pip") < source.rindex(".installed")


DIRECTIVE = re.compile(r"```\{prf:(\w+)\}(.*)\n((?:# :.*\n)*)")


def test_every_box_carries_the_papers_own_number():
    """One numbering: sphinx-proof's book-wide counter is off (``:nonumber:``) and each box's title
    starts with the number the paper (or, in chapter 0, the course) gives it."""
    found = 0
    for script in sorted((ROOT / "chapters").glob("[0-9]*/*.py")):
        text = script.read_text()
        for kind, title, options in DIRECTIVE.findall(text):
            if kind == "proof":
                continue
            found += 1
            assert ":nonumber:" in options, f"{script.name}: {kind} '{title.strip()}' needs :nonumber:"
            assert re.match(r"\s*\d+(\.\d+)?\b", title), f"{script.name}: '{kind}{title}' must start with its number"
        for target in re.findall(r"\{prf:ref\}`([^`]*)`", text):
            assert "<" in target, f"{script.name}: {{prf:ref}}`{target}` needs explicit text (the box has no number)"
    assert found >= 15


def test_no_table_is_left_undisplayed_in_the_middle_of_a_cell():
    """``plots.table`` returns a value; only a cell's last expression is shown, so a table built
    earlier in the cell never reaches the page unless it goes through ``display``."""
    import ast

    import jupytext

    for nb in NOTEBOOKS:
        for cell in jupytext.read(nb).cells:
            if cell.cell_type != "code" or not cell.source.strip():
                continue
            try:
                body = ast.parse("\n".join(l for l in cell.source.splitlines() if not l.lstrip().startswith(("%", "!"))))
            except SyntaxError:
                continue
            for statement in body.body[:-1]:
                call = statement.value if isinstance(statement, ast.Expr) else None
                name = getattr(getattr(call, "func", None), "attr", None) or getattr(getattr(call, "func", None), "id", None)
                assert name not in ("table", "paper_vs_ours"), \
                    f"{nb.name}, line {statement.lineno} of a cell: a table that is never shown (wrap it in display())"


def test_no_chapter_cross_references_the_library_api():
    """The book has no API pages, so a {func}/{class}/{mod} role is a dangling reference that fails
    the `-W` build; chapters name library functions as code literals instead."""
    import re

    roles = re.compile(r"\{(?:func|class|mod|meth|attr|py:[a-z]+)\}`")
    found = [f"{script.relative_to(ROOT)}:{i}" for script in sorted((ROOT / "chapters").glob("[0-9]*/*.py"))
             for i, line in enumerate(script.read_text().splitlines(), 1) if roles.search(line)]
    assert not found, f"API cross-references with no target: {found}"


def test_check_site_reads_redirect_pages_instead_of_opening_them(tmp_path):
    """Jupyter Book writes ``index.html`` as a refresh to the root page; check-site must not open it in the
    browser (the refresh navigates away while the inspection script runs: a script timeout)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("check_site", ROOT / "tests" / "check_site.py")
    check_site = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(check_site)
    redirect = tmp_path / "index.html"
    redirect.write_text('<!DOCTYPE html>\n<meta http-equiv="Refresh" content="0; url=intro.html" />\n')
    page = tmp_path / "intro.html"
    page.write_text('<html><head><meta charset="utf-8"></head><body><p>url=intro.html</p></body></html>')
    assert check_site.redirect_target(redirect) == "intro.html"
    assert check_site.redirect_target(page) is None
