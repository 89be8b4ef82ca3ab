"""The results store under ``data/``: every experiment's numbers with their provenance.

An experiment is a name, a config (any JSON-able dict, seeds included) and a grid of
points; running it calls ``run_point(point)`` for each point (or ``run_group(points)`` for
points that train together) and keeps what it returns (JSON-able metrics and small arrays).
Results live in one file per experiment and scale, ``data/<name>.<scale>.json``, rewritten
atomically after every point, so an interrupted sweep resumes where it stopped and loses at
most the point in progress. Each paper names its experiments as :class:`Sweep` objects in
``lib/papers/<key>/sweeps.py`` (:func:`paper_sweeps`);
``python -m lib.papers.<key> SCALE NAME`` runs one.

Provenance recorded with each file: config, seeds, scale, git commit (and whether the tree was
dirty), the ``lib`` files that the computing code runs (:func:`lib_closure`: read from the
sources, so a change to one paper never touches another's results) and their hash, torch and
Python versions, the device, the date and the wall time of every point.

``python -m lib.results check`` lists results whose code hash no longer matches ``lib``;
``python -m lib.results verify NAME`` re-runs a cheap part of one (a grid point, or its first
steps) and, only if the numbers come out identical, records it as verified under the new code.
"""
from __future__ import annotations

import ast
import contextlib
import datetime as _dt
import functools
import hashlib
import json
import math
import os
import platform
import shutil
import subprocess
import sys
import time
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterable, Sequence

import numpy as np

from . import scale as _scale
from .allocator import keep_freed_memory

LIB_DIR = Path(__file__).resolve().parent
ROOT = LIB_DIR.parent


def data_dir() -> Path:
    """``$ABC_DATA`` if set, else ``data/`` at the repository root."""
    return Path(os.environ.get("ABC_DATA", ROOT / "data"))


# ----------------------------------------------------------------------------- provenance
# Modules that store, draw or report results, or choose where memory comes from (lib.allocator),
# and never compute their numbers: editing them leaves every result fresh, so they are neither
# hashed nor followed.
NOT_COMPUTING = ("lib.results", "lib.plots", "lib.claims", "lib.bench", "lib.allocator")


def _module_path(name: str) -> Path | None:
    """The source file of ``lib`` module ``name`` (a package's ``__init__.py``), if it exists."""
    if name != "lib" and not name.startswith("lib."):
        return None
    base = LIB_DIR.joinpath(*name.split(".")[1:])
    for path in (base / "__init__.py", base.with_suffix(".py")):
        if path.is_file():
            return path
    return None


def _lazy_exports(name: str) -> dict[str, str]:
    """A package's ``_EXPORTS`` table (name -> submodule it is imported from when first used),
    read from its ``__init__.py``; empty if it has none."""
    path = _module_path(name)
    if path is None or path.name != "__init__.py":
        return {}
    for node in ast.parse(path.read_text()).body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", None) == "_EXPORTS" for t in node.targets):
            return ast.literal_eval(node.value)
    return {}


_IMPORTS: dict[tuple[str, str], set[str]] = {}
_HASHED: dict[tuple, str] = {}


def _imported_modules(path: Path, name: str, nodes: Sequence[ast.AST] | None = None) -> set[str]:
    """Every ``lib`` module that the source at ``path`` (module ``name``) imports, anywhere in
    the file (function-level imports included), read statically; only in ``nodes`` if given (the
    part of an entry module a result runs, :func:`entry_selection`). ``from package import X``
    counts the submodule ``X`` if there is one, and the submodule that the package's lazy
    ``_EXPORTS`` table imports ``X`` from."""
    if nodes is None:  # parsing is most of the time check takes: keyed by the text, so an edit is seen
        key = (name, path.read_text())
        if key not in _IMPORTS:
            _IMPORTS[key] = _imported_modules(path, name, [ast.parse(key[1])])
        return set(_IMPORTS[key])
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    out: set[str] = set()
    trees = list(nodes)
    for node in (n for tree in trees for n in ast.walk(tree)):
        if isinstance(node, ast.Import):
            out.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - (node.level - 1)]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            if not (target == "lib" or target.startswith("lib.")):
                continue
            out.add(target)
            exports = _lazy_exports(target)
            for alias in node.names:
                out.add(f"{target}.{alias.name}")  # a submodule among the names
                if alias.name in exports:
                    out.add(f"{target}.{exports[alias.name]}")
    return {m for m in out if m == "lib" or m.startswith("lib.")}


def lib_closure(modules: Iterable[str], entry: tuple[str, Sequence[str]] | None = None) -> list[str]:
    """Relative paths of the ``lib`` source files that running code from ``modules`` executes:
    the modules, every ``lib`` module they import (transitively, read from the sources, not from
    what this process happens to have imported) and their parent packages, less
    :data:`NOT_COMPUTING`. Papers import nothing of each other, so a result of one paper never
    depends on another paper's files. With ``entry = (module, roots)``, that module is followed
    only through the imports its functions ``roots`` reach (:func:`entry_selection`): a sweep
    added to a sweeps file adds nothing to the closure of the sweeps already there."""
    seen: dict[str, Path] = {}
    stack = list(modules)
    while stack:
        name = stack.pop()
        if name in seen or name in NOT_COMPUTING:
            continue
        path = _module_path(name)
        if path is None:
            continue
        seen[name] = path
        parts = name.split(".")
        stack.extend(".".join(parts[:i]) for i in range(1, len(parts)))
        selected = entry_selection(path, entry[1]) if entry is not None and entry[0] == name else None
        stack.extend(_imported_modules(path, name, selected[1] if selected else None))
    return sorted(p.resolve().relative_to(ROOT).as_posix() for p in seen.values())


def code_module(fn: Callable) -> str | None:
    """The ``lib`` module that defines ``fn`` (``python -m lib.x`` runs lib.x as ``__main__``:
    its real name is read from the module spec); None for code outside ``lib``."""
    name = getattr(fn, "__module__", None)
    if name == "__main__":
        spec = getattr(sys.modules.get("__main__"), "__spec__", None)
        name = spec.name if spec is not None else None
    return name if name is not None and _module_path(name) is not None else None


#: how :func:`code_hash` reads a source file: 1, its bytes; 2, its code (:func:`hashed_source`);
#: 3, as 2, but of the entry module (the one defining the function that computes a result) only the
#: part that function reaches (:func:`entry_selection`); 4, as 3, with a function's own parameters
#: and local variables told apart from module-level names by Python's scope analysis (``symtable``)
HASH_VERSION = 4

# names whose use lets code reach a module-level name without naming it (its own namespace, or
# the module object through sys.modules or an import by name): a selection using one counts whole
_DYNAMIC = {"globals", "vars", "locals", "eval", "exec", "__import__", "importlib", "sys"}


def _bound_names(node: ast.stmt, version: int = HASH_VERSION) -> list[str]:
    """The module-level names a statement defines or changes (a def, a class, an import, an
    assignment, ``X[k] = ...``, ``X += ...``, a method call on a name: ``X.update(...)``)."""
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return [node.name]
    if isinstance(node, (ast.Import, ast.ImportFrom)):
        return [(a.asname or a.name).split(".")[0] for a in node.names]
    if version >= 4 and isinstance(node, ast.Expr) and isinstance(node.value, ast.Call):
        base = node.value.func
        while isinstance(base, ast.Attribute):
            base = base.value
        return [base.id] if isinstance(base, ast.Name) and base is not node.value.func else []
    targets = node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(
        node, (ast.AnnAssign, ast.AugAssign) if version >= 4 else ast.AnnAssign) else []
    return [n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)]


def _global_references(text: str, tree: ast.Module) -> dict[int, set[str]]:
    """For each top-level def or class (by line), the module-level names its body reads, from
    Python's own scope analysis (``symtable``: a parameter or local variable that happens to share
    a module-level name is not a reference to it), plus the names in its decorators, defaults and
    bases, which run at module level."""
    import symtable

    def names_in(table) -> set[str]:
        out = {s.get_name() for s in table.get_symbols() if s.is_global() or (
            table.get_type() == "class" and s.is_referenced() and not s.is_assigned())}
        for child in table.get_children():
            out |= names_in(child)
        return out

    tables = {(t.get_name(), t.get_lineno()): t for t in symtable.symtable(text, "<entry>", "exec").get_children()}
    out = {}
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            line = min([node.lineno] + [d.lineno for d in node.decorator_list])
            table = tables.get((node.name, node.lineno)) or tables.get((node.name, line))
            if table is None:
                continue
            outer = list(node.decorator_list)
            if isinstance(node, ast.ClassDef):
                outer += node.bases + [k.value for k in node.keywords]
            else:
                outer += node.args.defaults + [d for d in node.args.kw_defaults if d is not None]
            out[node.lineno] = names_in(table) | {n.id for o in outer for n in ast.walk(o) if isinstance(n, ast.Name)}
    return out


def entry_selection(path: Path, roots: Sequence[str], version: int = HASH_VERSION) -> tuple[str, list[ast.stmt]] | None:
    """The part of the module at ``path`` that its functions ``roots`` reach by name: the
    module-level definitions, imports and assignments they name, and those these name, and so on
    (a fixed point), plus every module-level statement that binds no name (it runs on import).
    Returns the source of those statements, in file order, and the statements; None if a root is
    missing or the module reaches names dynamically (``globals()``, ``getattr``, ``sys.modules``...),
    when the whole file counts. Static name resolution inside one module is exact otherwise:
    Python binds a module's global names only through such statements."""
    text = path.read_text()
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return None
    body = [n for n in tree.body if not (isinstance(n, ast.Expr) and isinstance(n.value, ast.Constant))]
    by_name: dict[str, list[ast.stmt]] = {}
    always = []
    for node in body:
        names = _bound_names(node, version)
        if isinstance(node, ast.ImportFrom) and node.module == "__future__":
            always.append(node)
        elif names:
            for name in names:
                by_name.setdefault(name, []).append(node)
        else:
            always.append(node)
    if any(r not in by_name for r in roots):
        return None
    scoped = _global_references(text, tree) if version >= 4 else {}
    chosen = {id(n) for n in always}
    stack = [n for r in roots for n in by_name[r]] + always
    while stack:
        node = stack.pop()
        chosen.add(id(node))
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node.lineno in scoped:
            refs = scoped[node.lineno]
        else:
            refs = {ref.id for ref in ast.walk(node) if isinstance(ref, ast.Name)}
        for name in refs:
            stack.extend(n for n in by_name.get(name, []) if id(n) not in chosen)
    kept = [n for n in body if id(n) in chosen]
    own = path.stem if path.name != "__init__.py" else path.parent.name
    for node in (n for k in kept for n in ast.walk(k)):
        if isinstance(node, ast.Name) and node.id in _DYNAMIC:
            return None
        module = (getattr(node, "module", None) or "").rpartition(".")[2]
        if isinstance(node, (ast.Import, ast.ImportFrom)) and (module == own or any(
                a.name.rpartition(".")[2] == own for a in node.names)):
            return None  # the module imports itself: its names are reachable as attributes
    return "\n".join(ast.get_source_segment(text, n, padded=False) or "" for n in kept), kept


def code_hash(files: Sequence[str], version: int = HASH_VERSION, entry: dict | None = None,
              root: Path | None = None) -> str:
    """SHA-256 over the named source files (path and content), first 16 hex digits.

    Version 1 hashes the bytes. Version 2 hashes :func:`hashed_source`: the code without its
    docstrings, and a package's lazy ``_EXPORTS`` table without the entries that route to files
    outside ``files``, so that documenting a module or adding a model or task family to a
    package leaves the results computed before it fresh. Version 3 with ``entry`` (``{"file",
    "roots"}``: the module whose functions compute the result) hashes of that file only the part
    ``roots`` reach (:func:`entry_selection`), without its path: adding a sweep to a sweeps file,
    or moving a run function with what it needs to another file, leaves results fresh. ``root``:
    another checkout (default: this one)."""
    root = root or ROOT
    digest = hashlib.sha256()
    entry_file = entry["file"] if entry and version >= 3 else None
    if entry_file:
        selected = entry_selection(root / entry_file, entry["roots"], version) if (root / entry_file).exists() \
            else None
        digest.update(b"entry:" + ",".join(entry["roots"]).encode() + b"\n")
        digest.update(_strip_docstrings(selected[0]).encode() if selected else
                      (b"<whole>" + hashed_source(entry_file, files, root).encode()
                       if (root / entry_file).exists() else b"<missing>"))
    for rel in sorted(files):
        if rel == entry_file:
            continue
        path = root / rel
        digest.update(rel.encode())
        if not path.exists():
            digest.update(b"<missing>")
        elif version == 1:
            digest.update(path.read_bytes())
        else:
            digest.update(hashed_source(rel, files, root).encode())
    return digest.hexdigest()[:16]


def _strip_docstrings(text: str) -> str:
    """``text`` (Python source) without docstrings and blank lines (see :func:`hashed_source`)."""
    return _hashed_text(text, "", ())


def hashed_source(rel: str, files: Sequence[str], root: Path | None = None) -> str:
    """The part of source file ``rel`` that can change what it computes (see :func:`code_hash`):
    every docstring and blank line removed, and in a package ``__init__.py`` the ``_EXPORTS`` table reduced to
    the entries whose target module is among ``files`` (written sorted). Comments and layout are
    kept, so the text is the same on every Python version."""
    return _hashed_text(((root or ROOT) / rel).read_text(), rel, files)


def _hashed_text(text: str, rel: str, files: Sequence[str]) -> str:
    key = (text, rel, tuple(sorted(files)) if rel.endswith("/__init__.py") else ())
    if key not in _HASHED:
        _HASHED[key] = _hashed_text_uncached(text, rel, files)
    return _HASHED[key]


def _hashed_text_uncached(text: str, rel: str, files: Sequence[str]) -> str:
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return text
    lines = text.splitlines(keepends=True)
    offsets = [0]
    for line in lines:
        offsets.append(offsets[-1] + len(line))

    def span(node):
        return offsets[node.lineno - 1] + node.col_offset, offsets[node.end_lineno - 1] + node.end_col_offset

    edits = []  # (start, end, replacement)
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and isinstance(first.value.value, str):
                edits.append((*span(first), ""))
    if rel.endswith("/__init__.py"):
        package = Path(rel).parent.as_posix()
        inside = set(files)
        for node in tree.body:
            if isinstance(node, ast.Assign) and any(getattr(t, "id", None) == "_EXPORTS" for t in node.targets) \
                    and isinstance(node.value, ast.Dict):
                table = ast.literal_eval(node.value)
                kept = {name: module for name, module in table.items()
                        if f"{package}/{module}.py" in inside or f"{package}/{module}/__init__.py" in inside}
                edits.append((*span(node.value), repr(dict(sorted(kept.items())))))
    for start, end, replacement in sorted(edits, reverse=True):
        text = text[:start] + replacement + text[end:]
    return "".join(line for line in text.splitlines(keepends=True) if line.strip())


def git_commit() -> str:
    """The commit of the checkout (``+dirty-lib`` if ``lib`` has uncommitted changes); a copy of
    the tree without ``.git`` (a lent GPU machine) names it through ``$ABC_GIT_COMMIT``."""
    if os.environ.get("ABC_GIT_COMMIT"):
        return os.environ["ABC_GIT_COMMIT"]
    try:
        commit = subprocess.run(["git", "rev-parse", "HEAD"], cwd=ROOT, capture_output=True, text=True,
                                timeout=10).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "--", "lib"], cwd=ROOT, capture_output=True,
                               text=True, timeout=10).stdout.strip()
        return (commit or "unknown") + ("+dirty-lib" if dirty else "")
    except (OSError, subprocess.SubprocessError):
        return "unknown"


def current_code(module: str | None, roots: Sequence[str] = ()) -> dict:
    """The ``lib`` files that ``module`` runs now (only what its functions ``roots`` reach, if
    given: :func:`entry_selection`), the entry, and their hash."""
    entry = None
    if module and roots:
        path = _module_path(module)
        if path is not None and entry_selection(path, roots) is not None:
            entry = {"file": path.resolve().relative_to(ROOT).as_posix(), "roots": list(roots)}
    files = lib_closure([module], (module, roots) if entry else None) if module else []
    return {"lib_files": files, **({"lib_entry": entry} if entry else {}), "lib_hash": code_hash(files, entry=entry),
            "hash_version": HASH_VERSION}


def code_record(module: str | None, roots: Sequence[str] = ()) -> dict:
    """The code behind a result, now (:func:`current_code`), with the git commit and the date (a
    run's provenance, and each later :func:`verify`, keep one)."""
    return {**current_code(module, roots), "git_commit": git_commit(),
            "created": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")}


def code_roots(fn: Callable | None) -> tuple[str, ...]:
    """The module-level name of ``fn`` if it has one (a nested function or a lambda has none)."""
    name = getattr(fn, "__qualname__", "")
    return (name,) if name and "." not in name and "<" not in name else ()


def provenance(config: dict, scale: str, device=None, code: Callable | None = None,
               sweep: str | None = None) -> dict:
    """What produced a result: ``code`` is the function that computes it; the ``lib`` files it
    runs (:func:`lib_closure`) are listed and hashed. Code outside ``lib`` (a notebook cell, a
    test) is named but cannot be hashed, and ``check`` says so."""
    import torch

    from .runtime import device_name

    module = code_module(code) if code is not None else None
    prov = {} if module or code is None else {
        "unhashed_code": f"{getattr(code, '__module__', '?')}.{getattr(code, '__qualname__', '?')}"}
    if sweep:
        prov["sweep"] = sweep
    return {**prov, "config": config, "seeds": config.get("seeds"), "scale": scale,
            **code_record(module, code_roots(code)),
            "torch": torch.__version__, "python": platform.python_version(), "device": device_name(device),
            "torch_threads": torch.get_num_threads(), "malloc": "keep" if keep_freed_memory() else "system"}


# ----------------------------------------------------------------------------- the record
def _jsonable(value):
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, (np.integer,)):
        return int(value)
    if isinstance(value, (np.floating,)):
        return float(value)
    if hasattr(value, "tolist"):  # torch tensors
        return value.tolist()
    return value


def finite_or_declared(name: str, point, value, nonfinite: bool = False):
    """``value`` (already :func:`_jsonable`) with every NaN or infinity replaced by None (JSON's
    null) if the experiment declares that its metrics may hold them (``nonfinite=True``);
    otherwise a ValueError naming the point and the metric. Nothing non-finite is stored silently,
    and the file is always valid JSON."""
    def walk(v, path):
        if isinstance(v, float) and not math.isfinite(v):
            if not nonfinite:
                raise ValueError(f"{name}: point {point}: metric {path or 'value'} is {v}; a run must return "
                                 "finite numbers, or its sweep must declare non-finite ones (nonfinite=True)")
            return None
        if isinstance(v, dict):
            return {k: walk(x, f"{path}/{k}" if path else str(k)) for k, x in v.items()}
        if isinstance(v, list):
            return [walk(x, f"{path}[{i}]") for i, x in enumerate(v)]
        return v

    return walk(value, "")


@dataclass
class Result:
    """One experiment at one scale: its provenance and the result of every grid point."""

    name: str
    scale: str
    provenance: dict
    grid: list[dict]
    points: list[dict] = field(default_factory=list)  # {"point", "result", "wall_s"}
    path: Path | None = None

    @property
    def config(self) -> dict:
        return self.provenance["config"]

    @property
    def complete(self) -> bool:
        done = [p["point"] for p in self.points]
        return all(g in done for g in self.grid)

    @property
    def wall_s(self) -> float:
        return float(sum(p["wall_s"] for p in self.points))

    @property
    def code(self) -> dict:
        """The code record in force: the last verification (:func:`verify`) if any, else the run's."""
        verified = self.provenance.get("verified") or []
        return verified[-1] if verified else self.provenance

    @property
    def code_records(self) -> list[dict]:
        """The run's code record and each :func:`verify` since, oldest first: every one of them
        stands for the numbers stored now (a verification re-runs a part and changes none)."""
        return [self.provenance, *(self.provenance.get("verified") or [])]

    @property
    def hashed(self) -> bool:
        """False when the result was computed by code outside ``lib``, which cannot be hashed."""
        return "unhashed_code" not in self.provenance

    def is_stale(self) -> bool:
        """True when the ``lib`` files that computed it (or last verified it) have changed since."""
        code = self.code
        if code.get("lib_entry") and code.get("hash_version", 1) >= 4:
            # the code that would compute it now: its sweep's run function, wherever it lives today
            # (the entry's path is not hashed, so a sweep moved to another file stays fresh)
            run = _sweep_run(self)
            if code_module(run) is not None:
                return current_code(code_module(run), code_roots(run))["lib_hash"] != code.get("lib_hash")
        return code_hash(code.get("lib_files", []), code.get("hash_version", 1), code.get("lib_entry")) != \
            code.get("lib_hash")

    def rehash(self) -> bool:
        """Re-express a fresh result's hash in the current :data:`HASH_VERSION` (the files are
        unchanged, so this records the same fact in the new way; from version 3 on, with the part
        of its entry module that its sweep's run function reaches); False if it is stale or
        already current."""
        code = self.code
        old = code.get("hash_version", 1)
        if self.is_stale() or old == HASH_VERSION or "lib_files" not in code:
            return False
        run = _sweep_run(self)
        record = code_record(code_module(run), code_roots(run)) if code_module(run) else None
        if record is None or not set(record["lib_files"]) <= set(code["lib_files"]):  # no sweep to read it from
            record = {"lib_files": code["lib_files"], "lib_hash": code_hash(code["lib_files"])}
        record["hash_version"] = HASH_VERSION
        code["rehashed_from"] = old
        code[f"lib_hash_v{old}"] = code["lib_hash"]
        code[f"lib_files_v{old}"] = list(code["lib_files"])
        for key in ("lib_files", "lib_entry", "lib_hash", "hash_version"):
            if key in record:
                code[key] = record[key]
        return True

    def get(self, **point) -> dict:
        """The result of the grid point with these coordinates."""
        for p in self.points:
            if all(p["point"].get(k) == v for k, v in point.items()):
                return p["result"]
        raise KeyError(f"{self.name}: no point {point}")

    def get_exact(self, point: dict) -> dict:
        """The result of exactly this grid point (all coordinates given)."""
        for p in self.points:
            if p["point"] == point:
                return p["result"]
        raise KeyError(f"{self.name}: no point {point}")

    def rows(self) -> list[dict]:
        """One flat dict per point: coordinates and scalar results (for a DataFrame)."""
        out = []
        for p in self.points:
            row = dict(p["point"])
            row.update({k: v for k, v in p["result"].items() if not isinstance(v, (list, dict))})
            out.append(row)
        return out

    def frame(self):
        import pandas as pd

        return pd.DataFrame(self.rows())

    def progress(self) -> str:
        """``"complete"`` or ``"partial: k of n grid points"`` (a run stopped at a budget)."""
        return "complete" if self.complete else f"partial: {len(self.points)} of {len(self.grid)} grid points"

    def label(self) -> str:
        """Short provenance line for figure captions."""
        prov = self.provenance
        part = "" if self.complete else f" · {len(self.points)}/{len(self.grid)} points"
        return (f"{self.name} · scale={self.scale}{part} · {prov.get('device', '?')} · "
                f"{self.wall_s:.0f}s · lib {self.code.get('lib_hash', '?')[:8]}")

    def to_json(self) -> dict:
        return {"name": self.name, "scale": self.scale, "provenance": self.provenance, "grid": self.grid,
                "points": self.points}


def _sweep_run(result: Result) -> Callable | None:
    """The run function of the sweep that computed ``result``, if it is a sweep of lib/papers."""
    try:
        return find_sweep(result.name).run
    except (KeyError, ValueError):
        return None


def path_for(name: str, scale: str) -> Path:
    if not name or any(c in name for c in "/\\ ") or name.startswith("."):
        raise ValueError(f"experiment name {name!r} must be a plain file name (no spaces or slashes)")
    return data_dir() / f"{name}.{_scale.validate(scale)}.json"


def save(result: Result) -> Path:
    path = result.path or path_for(result.name, result.scale)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".json.tmp")
    tmp.write_text(json.dumps(_jsonable(result.to_json()), indent=1, allow_nan=False))
    os.replace(tmp, path)  # atomic: a crash never leaves half a file
    result.path = path
    return path


def load(name: str, scale: str) -> Result | None:
    path = path_for(name, scale)
    if not path.exists():
        return None
    return _read(path)


def _read(path: Path) -> Result:
    """The result stored in ``path``; a file that is not one is an error naming it."""
    try:
        raw = json.loads(path.read_text())
        return Result(name=raw["name"], scale=raw["scale"], provenance=raw["provenance"], grid=raw["grid"],
                      points=raw["points"], path=path)
    except (ValueError, KeyError, TypeError) as error:
        raise ValueError(f"{path}: not a results file ({type(error).__name__}: {str(error)[:200]}); it is left as "
                         "it is: delete it to rerun its sweep, or restore it from git") from None


# ----------------------------------------------------------------------------- running
RunPoint = Callable[[dict], dict]
RunGroup = Callable[[list[dict]], list[dict]]


def _groups(grid: Sequence[dict], group_by: Sequence[str] | None) -> list[list[dict]]:
    """The grid cut into groups of points that run together (each point alone if ``group_by``
    is None; points sharing the coordinates ``group_by`` otherwise), in grid order."""
    if group_by is None:
        return [[point] for point in grid]
    groups: dict[str, list[dict]] = {}
    for point in grid:
        groups.setdefault(json.dumps([point.get(k) for k in group_by]), []).append(point)
    return list(groups.values())


CHECKPOINT_EVERY_S = 300.0


def checkpoint_dir(name: str, scale: str, group: Sequence[dict], config: dict, root: Path | None = None) -> Path:
    """Where the trainings of one group of a run save their state until the group is done
    (``data/checkpoints/``, not committed; ``root`` replaces ``data/``). The key covers the config
    as well as the points, so a sweep whose settings changed (steps, learning rate, ensembling)
    never resumes from the state of trainings made under the old ones."""
    key = hashlib.sha256(json.dumps(_jsonable([dict(config), list(group)]), sort_keys=True).encode()).hexdigest()[:12]
    return Path(root or data_dir()) / "checkpoints" / f"{name}.{scale}" / key


@dataclass(frozen=True)
class GroupJob:
    """One group of points of a run, as :func:`run` runs it: ``job(group) -> (metrics, wall_s)``
    trains the group inside :func:`lib.train.checkpoints` (so an interrupted group resumes) and
    checks that it returned one dict of metrics per point. It is the unit an engine hands out
    (:mod:`lib.papers.engines`: one Ray task per group); ``root`` is the data folder, fixed
    where the run starts so that a worker elsewhere saves its checkpoints under the same path."""

    name: str
    scale: str
    config: dict
    run_group: RunGroup
    root: str

    def __call__(self, group: Sequence[dict]) -> tuple[list[dict], float]:
        from .train import checkpoints, time_in_checkpoints  # (lazily: storing and listing results needs no torch)

        directory = checkpoint_dir(self.name, self.scale, group, self.config, Path(self.root))
        earlier = time_in_checkpoints(directory)  # a resumed group has run this long already
        start = time.perf_counter()
        with checkpoints(directory, every_s=CHECKPOINT_EVERY_S):
            values = self.run_group([dict(p) for p in group])
        wall = earlier + time.perf_counter() - start
        if not isinstance(values, list) or len(values) != len(group) or not all(isinstance(v, dict) for v in values):
            raise TypeError(f"{self.name}: the run must return one dict of metrics per point")
        return values, wall


def run(name: str, config: dict, grid: Sequence[dict], run_point: RunPoint | None = None, *,
        run_group: RunGroup | None = None, group_by: Sequence[str] | None = None, scale: str | None = None,
        device: str | None = None, progress: bool = True, sweep: str | None = None,
        code: Callable | None = None, nonfinite: bool = False, engine=None) -> Result:
    """Run (or resume) an experiment and save after every point (or group of points).

    Give ``run_point(point) -> metrics``, or ``run_group(points) -> [metrics, ...]`` with
    ``group_by``, the coordinates whose points the experiment trains together (e.g. one
    ensemble per T); a group's wall time is counted at its first point, with the time its trainings
    had spent when they last saved if it resumes from checkpoints. ``code`` is the function
    whose ``lib`` files provenance hashes (default: the run function itself). A metric that is
    NaN or infinite is an error unless ``nonfinite=True`` declares that the experiment's metrics
    may hold them (they are then stored as null; see :func:`finite_or_declared`).

    ``engine`` (default: here, one group after the other) runs the groups elsewhere: an object
    with ``run_groups(job, groups)`` yielding ``(group, job(group))`` as each finishes, where
    ``job`` is this run's :class:`GroupJob`, and ``describe()``, a dict kept in the provenance
    (:class:`lib.papers.engines.RayEngine`: one Ray task per group). Each finished group is
    stored and saved as here; points are kept in the order of a run here whatever order the
    groups finish in, so the file is the one a run here writes.
    """
    if (run_point is None) == (run_group is None):
        raise ValueError(f"{name}: give exactly one of run_point and run_group")
    keep_freed_memory()  # large activations reuse freed pages (lib.allocator; numbers unchanged)
    if run_group is None:
        run_group = lambda points: [run_point(dict(points[0]))]  # noqa: E731
        group_by = None
    scale = _scale.validate(scale) if scale is not None else _scale.current()
    config, grid = _jsonable(dict(config)), [_jsonable(dict(g)) for g in grid]
    existing = load(name, scale)
    if existing is not None and existing.config == config and existing.grid == grid:
        result = existing  # resume
        if result.points and result.hashed and result.is_stale():
            warnings.warn(f"{name}: resuming {len(result.points)} stored points computed by other code (lib "
                          f"{result.code.get('lib_hash')}, commit {result.code.get('git_commit')}); the finished "
                          f"result keeps that provenance and `check` will list it: verify it or delete the file to "
                          "rerun it whole", stacklevel=2)
    else:
        result = Result(name=name, scale=scale, provenance=provenance(config, scale, device,
                                                                      code or run_point or run_group, sweep),
                        grid=grid)
        if engine is not None:
            result.provenance["engine"] = engine.describe()
            result.provenance["device"] = result.provenance["engine"].get("device", result.provenance["device"])
    rank = {json.dumps(p, sort_keys=True): i for i, p in enumerate(p for g in _groups(grid, group_by) for p in g)}
    done = [p["point"] for p in result.points]
    todo = [[p for p in group if p not in done] for group in _groups(grid, group_by)]
    todo = [group for group in todo if group]
    count = len(done)
    # a long group saves its trainings every few minutes; rerunning after an interruption resumes
    job = GroupJob(name, scale, config, run_group, str(data_dir()))

    def here():
        for group in todo:
            if progress:
                shown = group[0] if len(group) == 1 else f"{len(group)} points {group[0]} ... {group[-1]}"
                print(f"[{name}] point {count + 1}/{len(grid)}: {shown}", flush=True)
            yield group, job(group)

    started, elapsed_before = time.perf_counter(), float(result.provenance.get("elapsed_s", 0.0))
    if todo:  # groups cut earlier have run this long already (exact when groups run one after another)
        from .train import time_in_checkpoints  # (lazily: a run with nothing to do needs no torch)

        elapsed_before += max(time_in_checkpoints(checkpoint_dir(name, scale, g, config, Path(job.root)))
                              for g in todo)
    for group, (values, wall) in (here() if engine is None else engine.run_groups(job, todo)):
        # the run's own wall time (summed over resumptions): with an engine's groups side by side
        # it is less than the sum of the groups' times
        result.provenance["elapsed_s"] = elapsed_before + time.perf_counter() - started
        for i, (point, value) in enumerate(zip(group, values)):
            value = finite_or_declared(name, point, _jsonable(value), nonfinite)
            result.points.append({"point": point, "result": value, "wall_s": wall if i == 0 else 0.0})
        result.points.sort(key=lambda p: rank[json.dumps(p["point"], sort_keys=True)])  # as a run here stores them
        count += len(group)
        save(result)
        shutil.rmtree(checkpoint_dir(name, scale, group, config, Path(job.root)), ignore_errors=True)
        if progress and engine is not None:
            print(f"[{name}] {count}/{len(grid)} points stored (a group of {len(group)} done, {wall:.0f}s)", flush=True)
    if not todo:
        save(result)
    return result


def load_or_run(name: str, config: dict, grid: Sequence[dict], run_point: RunPoint | None = None, *,
                run_group: RunGroup | None = None, group_by: Sequence[str] | None = None, heavy: bool = False,
                paper: tuple[dict, list[dict]] | None = None, scale: str | None = None, device: str | None = None,
                progress: bool = True, sweep: str | None = None, code: Callable | None = None,
                nonfinite: bool = False, engine=None) -> Result:
    """Load the experiment's saved result if it matches, else run (or resume) it.

    ``config`` must describe everything that determines the result at this scale (sizes,
    seeds, optimiser settings); a saved file with another config or grid is rerun.
    With ``heavy=True`` at the ``default`` scale, a complete result saved at the ``paper`` scale
    is loaded instead of running anything (that is how a laptop reads the GPU sweeps), but only
    if its config and grid are ``paper``, the paper scale's definition. A stale result (``lib``
    changed since) is still loaded, with a warning.
    """
    scale = _scale.validate(scale) if scale is not None else _scale.current()
    if heavy and scale == "default" and paper is None:
        raise ValueError(f"{name}: heavy=True needs paper=(config, grid), the paper scale's definition, so that "
                         "only a paper-scale file computed with it is loaded")
    candidates = []
    if heavy and scale == "default":
        big = load(name, "paper")
        if big is not None and big.config == _jsonable(dict(paper[0])) and \
                big.grid == [_jsonable(dict(g)) for g in paper[1]]:
            candidates.append(big)
    own = load(name, scale)
    if own is not None and own.config == _jsonable(dict(config)) and own.grid == [_jsonable(dict(g)) for g in grid]:
        candidates.append(own)
    for result in candidates:
        if result is not None and result.complete:
            if result.is_stale():
                warnings.warn(f"{result.path.name}: lib has changed since this result was computed "
                              f"(commit {result.provenance.get('git_commit')}); run `python -m lib.results verify "
                              f"{name} --scale {result.scale}` or rerun it at scale {result.scale}", stacklevel=2)
            return result
    return run(name, config, grid, run_point, run_group=run_group, group_by=group_by, scale=scale, device=device,
               progress=progress, sweep=sweep, code=code, nonfinite=nonfinite, engine=engine)


# ----------------------------------------------------------------------------- named sweeps
@dataclass(frozen=True)
class Tolerance:
    """What another machine reproduces of a sweep's stored numbers (issue 30).

    Float32 training is not bit-reproducible across processors: another CPU's kernels round
    differently and training amplifies the difference, so a sweep of trained models declares how
    far a rerun elsewhere may land from the stored numbers. Each metric named in ``bounds`` may
    differ by at most its bound (absolute); with ``mean=True`` a list of numbers under that metric
    (the seeds of a point, the steps of a curve) is compared by its mean, not entry by entry.
    Everything else (the grid, the shapes, every other metric, integer counts not named) must
    match exactly, as must every number of a sweep without a tolerance (constructions, exact
    counts). ``why`` says what the bounds rest on (a measurement, with where it was made)."""

    bounds: dict = field(default_factory=dict)
    mean: bool = False
    why: str = ""

    def __post_init__(self):
        if not isinstance(self.bounds, dict) or not all(
                isinstance(v, (int, float)) and math.isfinite(v) and v >= 0 for v in self.bounds.values()):
            raise ValueError(f"Tolerance: bounds must map metric names to finite numbers >= 0, got {self.bounds!r}")
        if not self.why.strip():
            raise ValueError("Tolerance: say what the bounds rest on (why=...)")

    def bound(self, key: str, stored, new) -> float | None:
        """The bound for a number under ``key`` (None: it must match exactly)."""
        if isinstance(stored, bool) or isinstance(new, bool) or not isinstance(stored, (int, float)) \
                or not isinstance(new, (int, float)):
            return None
        return self.bounds.get(key)

    def __str__(self) -> str:
        per = ", ".join(f"{k} {v:.3g}" for k, v in sorted(self.bounds.items()))
        return f"|Δ{' of the mean' if self.mean else ''}| <= {per or 'nothing'}"


def _numbers(values) -> bool:
    return bool(values) and all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in values)


@dataclass
class Comparison:
    """How a rerun compares with stored numbers: ``identical``, ``within tolerance`` or
    ``differs``; ``where`` the first place it differs beyond the tolerance (or at all, if
    identical is required), ``worst`` the largest tolerated difference and where it is."""

    outcome: str = "identical"
    where: str = ""
    worst: tuple[float, str] = (0.0, "")


def compare(stored, new, prefix: bool = False, tolerance: Tolerance | None = None) -> Comparison:
    """Compare ``new`` with ``stored`` the way :func:`verify` does (see :func:`_same`), with
    ``tolerance`` applied to the metrics it names."""
    out = Comparison()

    def walk(a, b, path, key):
        if out.outcome == "differs":
            return
        if isinstance(a, dict) and isinstance(b, dict):
            for k in sorted(k for k in set(a) | set(b) if "wall_s" not in k):
                if k not in a or k not in b:
                    out.outcome, out.where = "differs", f"{path}/{k}: only in {'the stored' if k in a else 'the new'} result"
                    return
                walk(a[k], b[k], f"{path}/{k}", k)
            return
        if isinstance(a, list) and isinstance(b, list):
            innermost = all(not isinstance(v, (list, dict)) for v in a + b)
            if len(a) != len(b) and not (prefix and innermost and 0 < len(b) < len(a)):
                out.outcome, out.where = "differs", f"{path}: {len(b)} entries, stored {len(a)}"
                return
            n = len(b)  # a prefix (the first steps of a curve) against the same entries stored
            if tolerance is not None and tolerance.mean and key in tolerance.bounds and _numbers(a[:n]) and _numbers(b):
                walk(float(np.mean(a[:n])), float(np.mean(b)), f"{path} (mean of {n})", key)
                return
            for i, (x, y) in enumerate(zip(a, b)):
                walk(x, y, f"{path}[{i}]", key)
            return
        if isinstance(a, (dict, list)) or isinstance(b, (dict, list)):
            out.outcome, out.where = "differs", f"{path}: stored {a!r}, now {b!r}"
            return
        if _equal_leaves(a, b):
            return
        bound = tolerance.bound(key, a, b) if tolerance is not None else None
        if bound is not None and math.isfinite(a) and math.isfinite(b):
            gap = abs(a - b)
            if gap <= bound:
                out.outcome = "within tolerance"
                if gap > out.worst[0]:
                    out.worst = (gap, f"{path}: stored {a!r}, now {b!r}")
                return
        out.outcome, out.where = "differs", f"{path}: stored {a!r}, now {b!r}"

    walk(stored, new, "", "")
    return out


@dataclass(frozen=True)
class Sweep:
    """One named experiment of a paper, defined at every scale, runnable from the command line.

    ``define(scale) -> (config, grid)``; ``run(config, points, *, scale, device, stop_after)``
    returns one dict of metrics per point (``points`` is one group: a single point unless
    ``group_by`` names the coordinates whose points train together). ``stop_after`` asks for the
    first steps only: sweeps whose results hold curves over training (``truncatable``) honour it,
    which is how :func:`verify` re-checks them cheaply; ``verify_by`` names coordinates whose every
    value :func:`verify` covers (e.g. each task, so that every task's code path is re-run). The
    data file is ``data/<paper>_<key>.<scale>.json``.
    """

    paper: str
    key: str
    define: Callable[[str], tuple[dict, list[dict]]]
    run: Callable[..., list[dict]]
    group_by: tuple[str, ...] | None = None
    heavy: bool = True
    truncatable: bool = False
    verify_steps: int = 100
    verify_by: tuple[str, ...] = ()
    about: str = ""
    # metrics may hold NaN or infinity (stored as null); say why where it is set
    nonfinite: bool = False
    # what a rerun on another machine reproduces: "measured" (read from GAPS_FILE by tolerance_of:
    # a sweep measured with no gap, or not measured, must match exactly), a Tolerance, or None
    # (every number exactly, whatever was measured)
    tolerance: Tolerance | str | None = "measured"

    @property
    def name(self) -> str:
        return f"{self.paper}_{self.key}"

    def runner(self, config: dict, scale: str, device=None) -> RunGroup:
        """``points -> metrics`` for :func:`run` (the whole run of each group)."""
        # a partial of the module-level run function, not a lambda: an engine's worker process unpickles it
        return functools.partial(self.run, config, scale=scale, device=device, stop_after=None)

    def result(self, scale: str | None = None, *, device=None, progress: bool = True, engine=None) -> Result:
        """The sweep at ``scale`` (default: the current one) from ``data/``, run or resumed if
        missing. At the default scale a complete paper-scale file with the paper's config wins.
        ``engine`` runs its groups elsewhere (:func:`run`); each worker then trains on the device
        the engine gives it (``engine.worker_device``), not on ``device``."""
        scale = _scale.validate(scale) if scale is not None else _scale.current()
        config, grid = self.define(scale)
        paper = self.define("paper") if self.heavy else None
        runner = self.runner(config, scale, device if engine is None else engine.worker_device)
        return load_or_run(self.name, config, grid, run_group=runner, group_by=self.group_by, heavy=self.heavy,
                           paper=paper, scale=scale, device=device, progress=progress,
                           sweep=f"{self.paper}.{self.key}", code=self.run, nonfinite=self.nonfinite, engine=engine)

    def load(self, scale: str) -> Result | None:
        """The saved result at ``scale`` if it exists (whatever its config)."""
        return load(self.name, scale)

    def paper_result(self) -> Result | None:
        """The stored paper-scale result if it was computed with this sweep's paper-scale
        definition, complete or not (a queue stopped at its budget stores the groups it finished:
        :attr:`Result.complete` and :meth:`Result.progress` say how far it got); None otherwise."""
        stored = load(self.name, "paper")
        config, grid = self.define("paper")
        if stored is None or stored.config != _jsonable(dict(config)) or \
                stored.grid != [_jsonable(dict(g)) for g in grid]:
            return None
        return stored


def paper_sweeps(paper: str) -> dict[str, Sweep]:
    """Every :class:`Sweep` of ``lib/papers/<paper>``, from its ``sweeps.py`` (one file per paper:
    a result's provenance covers only what its own run function reaches, so adding a sweep there
    leaves the others fresh). Raises KeyError for an unknown paper."""
    import importlib

    try:
        importlib.import_module(f"lib.papers.{paper}")
        return dict(importlib.import_module(f"lib.papers.{paper}.sweeps").SWEEPS)
    except ModuleNotFoundError as error:
        if error.name not in (f"lib.papers.{paper}", f"lib.papers.{paper}.sweeps"):
            raise  # a dependency missing inside the paper's code, not an unknown paper
        raise KeyError(f"no paper {paper!r} under lib/papers") from None


def find_sweep(name: str) -> Sweep:
    """The :class:`Sweep` behind a data file's name ``<paper>_<key>``, importing only that paper."""
    paper = name.split("_", 1)[0]
    try:
        sweeps = paper_sweeps(paper)
    except KeyError:
        raise KeyError(f"{name}: no paper {paper!r} under lib/papers") from None
    for sweep in sweeps.values():
        if sweep.name == name:
            return sweep
    raise KeyError(f"{name}: lib.papers.{paper} defines no such sweep; known: "
                   f"{', '.join(s.name for s in sweeps.values())}")


def _same(stored, new, prefix: bool, path: str = "") -> str | None:
    """Where ``new`` differs from ``stored`` at all (None if nowhere): :func:`compare` with no
    tolerance. Keys holding wall times are skipped and NaN equals NaN; with ``prefix``, a list of
    numbers (a series over training steps) may be a prefix of the stored one (the first steps)."""
    got = compare(stored, new, prefix)
    return None if got.outcome == "identical" else (f"{path}{got.where}" if path else got.where)


def _equal_leaves(a, b) -> bool:
    """Two stored numbers or texts agree: equal, or both missing (NaN, or the null a declared
    non-finite metric is stored as)."""
    def missing(v):
        return v is None or (isinstance(v, float) and v != v)

    return a == b or (missing(a) and missing(b))


def _cheap_part(result: Result, sweep: Sweep) -> tuple[list[list[dict]], int | None]:
    """The groups :func:`verify` re-runs (the one that took least time, for every value of the
    sweep's ``verify_by`` coordinates) and the steps it runs them for (None: in full)."""
    walls = {json.dumps(p["point"], sort_keys=True): p["wall_s"] for p in result.points}
    cheapest: dict[str, list[dict]] = {}
    for group in _groups(result.grid, sweep.group_by):
        if not all(json.dumps(p, sort_keys=True) in walls for p in group):
            continue  # not stored yet (a paper-scale run stopped at its budget)
        key = json.dumps([group[0].get(k) for k in sweep.verify_by])
        cost = sum(walls[json.dumps(p, sort_keys=True)] for p in group)
        if key not in cheapest or cost < sum(walls[json.dumps(p, sort_keys=True)] for p in cheapest[key]):
            cheapest[key] = group
    return list(cheapest.values()), (sweep.verify_steps if sweep.truncatable else None)


def _rerun(result: Result, sweep: Sweep, groups: list[list[dict]], stop_after, device=None,
           progress: bool = True) -> list[list[dict]]:
    """The metrics of ``groups`` recomputed with the code in this process."""
    out = []
    for group in groups:
        if progress:
            how = f"first {stop_after} steps" if stop_after else "in full"
            print(f"[verify {result.name}] {len(group)} point(s) from {group[0]}, {how}", flush=True)
        new = sweep.run(result.config, [dict(p) for p in group], scale=result.scale, device=device,
                        stop_after=stop_after)
        out.append([finite_or_declared(result.name, point, _jsonable(value), sweep.nonfinite)
                    for point, value in zip(group, new)])
    return out


#: where :func:`measure_gaps` keeps its measurements, and what a sweep's ``tolerance="measured"`` reads
GAPS_FILE = "bench/rounding_gaps.json"
#: a measured tolerance allows this many times the largest gap measured
GAP_MARGIN = 2.0


def measure_gaps(result: Result, sweep: Sweep, *, device=None, progress: bool = False) -> dict:
    """How far this process's rerun of ``result``'s cheap part (:func:`verify`'s) lands from the
    stored numbers, per metric: the largest gap of one number and of the mean of a list (seeds,
    steps). Run it with other kernels than the machine that computed the result (e.g.
    ``ATEN_CPU_CAPABILITY=avx2 MKL_ENABLE_INSTRUCTIONS=AVX2`` on an AVX-512 machine) to measure
    what another processor's rounding does to it."""
    import torch

    groups, stop_after = _cheap_part(result, sweep)
    gaps: dict[str, dict] = {}

    def walk(a, b, key):
        if isinstance(a, dict) and isinstance(b, dict):
            for k in a.keys() & b.keys():
                if "wall_s" not in k:
                    walk(a[k], b[k], k)
        elif isinstance(a, list) and isinstance(b, list):
            n = min(len(a), len(b))
            if _numbers(a[:n]) and _numbers(b[:n]) and n:
                entry = gaps.setdefault(key, {"entry": 0.0, "mean": 0.0, "numbers": 0, "differ": 0})
                entry["mean"] = max(entry["mean"], abs(float(np.mean(a[:n])) - float(np.mean(b[:n]))))
            for x, y in zip(a, b):
                walk(x, y, key)
        elif isinstance(a, (int, float)) and isinstance(b, (int, float)) and not isinstance(a, bool) \
                and math.isfinite(a) and math.isfinite(b):
            entry = gaps.setdefault(key, {"entry": 0.0, "mean": 0.0, "numbers": 0, "differ": 0})
            entry["entry"] = max(entry["entry"], abs(a - b))
            entry["numbers"] += 1
            entry["differ"] += a != b

    start = time.perf_counter()
    for group, values in zip(groups, _rerun(result, sweep, groups, stop_after, device, progress)):
        for point, value in zip(group, values):
            walk(result.get_exact(point), value, "")
    from .runtime import device_name

    return {"result": f"{result.name}.{result.scale}", "stored_device": result.provenance.get("device"),
            "stored_commit": result.code.get("git_commit"), "rerun_device": device_name(device),
            "kernels": torch.backends.cpu.get_cpu_capability(),
            "mkl_instructions": os.environ.get("MKL_ENABLE_INSTRUCTIONS", "default"),
            "points": [p for g in groups for p in g], "steps": stop_after or "all",
            "gaps": {k: v for k, v in sorted(gaps.items()) if v["differ"] or v["mean"]},
            "wall_s": time.perf_counter() - start, **{k: v for k, v in code_record(None).items() if k != "lib_hash"}}


def tolerance_of(sweep: Sweep) -> Tolerance | None:
    """The sweep's declared tolerance; ``"measured"``: :data:`GAP_MARGIN` times the seed-mean gaps
    :func:`measure_gaps` recorded for it in :data:`GAPS_FILE` (None if it has none: every number
    must then match)."""
    if sweep.tolerance != "measured":
        return sweep.tolerance
    path = data_dir() / GAPS_FILE
    measured = json.loads(path.read_text()).get(sweep.name) if path.exists() else None
    if not measured:
        return None
    bounds = {k: GAP_MARGIN * (v["mean"] or v["entry"]) for k, v in measured["gaps"].items()}
    return Tolerance(bounds, mean=True, why=(
        f"{GAP_MARGIN:g}x the largest gap of a mean measured when {measured['kernels']} kernels (MKL "
        f"{measured['mkl_instructions']}) reran {measured['points'][:2]}{'...' if len(measured['points']) > 2 else ''}, "
        f"{measured['steps']} steps ({GAPS_FILE}, {measured['created'][:10]})"))


def verify(result: Result, *, device=None, progress: bool = True) -> tuple[bool, str]:
    """Re-run a cheap part of a stored result with the current code: the group of grid points
    that took least time (one such group for every value of the sweep's ``verify_by``
    coordinates), only its first ``verify_steps`` steps if the sweep is truncatable. If every
    number comes out identical, or within the sweep's declared :class:`Tolerance`, record in the
    file that the result was verified under the current code (its files and hash, the outcome and
    the largest tolerated difference), which makes it fresh; if it differs, change nothing.

    Float32 training is not bit-reproducible across processors (another CPU's kernels round
    differently, and the differences grow over training): a sweep that declares no tolerance
    fails this on another machine even when the code has not changed; :func:`verify_against`
    checks a code change on this machine, bit for bit, instead."""
    if not result.complete:
        return False, f"{result.name}: incomplete ({len(result.points)}/{len(result.grid)} points); run it to the end"
    try:
        sweep = find_sweep(result.name)
    except KeyError as error:
        return False, f"{result.name}: not a sweep of lib/papers, cannot be re-run ({error.args[0]})"
    groups, stop_after = _cheap_part(result, sweep)
    tolerance = tolerance_of(sweep)
    how = f"first {stop_after} steps" if stop_after else "in full"
    start = time.perf_counter()
    outcome, worst = "identical", (0.0, "")
    for group, values in zip(groups, _rerun(result, sweep, groups, stop_after, device, progress)):
        for point, new_value in zip(group, values):
            got = compare(result.get_exact(point), new_value, stop_after is not None, tolerance)
            if got.outcome == "differs":
                bound = f" (beyond its tolerance, {tolerance})" if tolerance else \
                    " (the sweep declares no tolerance: every number must match)"
                return False, f"{result.name}: differs: {point} at {got.where}{bound}"
            if got.outcome == "within tolerance":
                outcome = got.outcome
                worst = max(worst, got.worst)
    wall = time.perf_counter() - start
    points = [p for group in groups for p in group]
    checked = f"{len(points)} point(s) {points}, {how}"
    detail = "" if outcome == "identical" else f", largest difference {worst[0]:.4g} at {worst[1]}; {tolerance}"
    record = {**code_record(code_module(sweep.run), code_roots(sweep.run)), "checked": checked, "outcome": outcome,
              "wall_s": wall, **({"largest_difference": worst[0]} if worst[1] else {})}
    result.provenance.setdefault("verified", []).append(record)
    save(result)
    return True, (f"{result.name}: {outcome} ({checked}{detail}, {wall:.0f}s); now verified under lib "
                  f"{record['lib_hash']}")


_OLD_CODE_SCRIPT = """
import json, sys
from lib import results
spec = json.loads(sys.stdin.read())
stored = results._read(results.Path(spec["path"]))
sweep = results.find_sweep(stored.name)
code = stored.code
out = {"values": []}
import contextlib
from lib.train import step_limit
for group in spec["groups"]:
    with step_limit(spec["limit"]) if spec["limit"] else contextlib.nullcontext():
        new = sweep.run(stored.config, [dict(p) for p in group], scale=stored.scale, device=spec["device"],
                        stop_after=spec["stop_after"])
    out["values"].append([results.finite_or_declared(stored.name, p, results._jsonable(v), sweep.nonfinite)
                          for p, v in zip(group, new)])
print("@@RESULT@@" + json.dumps(out, allow_nan=True))
"""


def verify_against(result: Result, commit: str, *, device=None, progress: bool = True) -> tuple[bool, str]:
    """Check a code change on this machine: re-run :func:`verify`'s cheap part with the ``lib`` of
    ``commit`` (checked out in a temporary git worktree) and with the current ``lib``, both here.
    The result is marked verified under the current code only if ``commit``'s files hash to the
    code that computed (or last verified) the stored result, and the two runs agree bit for bit:
    then the change does not alter what the result computes, whichever processor made it (the
    stored numbers themselves may differ from this machine's in the last bits of float32).

    Both runs compare two computations, not a computation with stored numbers, so a sweep that
    cannot be truncated runs every training for its first ``verify_steps`` steps only
    (:func:`lib.train.step_limit`): the same code paths at a fraction of the cost. Because it
    compares two computations, an incomplete result (a paper-scale run stopped at its budget) can
    be verified too, on the groups it has stored; the groups a later run adds use the new code."""
    try:
        sweep = find_sweep(result.name)
    except KeyError as error:
        return False, f"{result.name}: not a sweep of lib/papers, cannot be re-run ({error.args[0]})"
    import tempfile

    from .runtime import device_name

    groups, stop_after = _cheap_part(result, sweep)
    if not groups:
        return False, f"{result.name}: no group of points stored yet ({len(result.points)}/{len(result.grid)} points)"
    limit = None if stop_after else sweep.verify_steps
    device_text = str(device) if device is not None else "cpu"
    start = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        tree = Path(tmp) / "old"
        made = subprocess.run(["git", "worktree", "add", "--detach", str(tree), commit], cwd=ROOT,
                              capture_output=True, text=True)
        if made.returncode:
            return False, f"{result.name}: cannot check out {commit}: {made.stderr.strip()}"
        code = result.code
        try:  # the old tree's files, hashed here the way the stored record was
            old_hash = code_hash(code.get("lib_files", []), code.get("hash_version", 1), code.get("lib_entry"),
                                 root=tree)
            if old_hash != code.get("lib_hash"):
                return False, (f"{result.name}: {commit} is not the code that computed it (its files hash to "
                               f"{old_hash}, the result records {code.get('lib_hash')})")
            spec = json.dumps({"path": str(result.path), "groups": groups, "stop_after": stop_after,
                               "device": device_text, "limit": limit})
            env = {**os.environ, "PYTHONPATH": str(tree)}
            old = subprocess.run([sys.executable, "-c", _OLD_CODE_SCRIPT], cwd=tree, input=spec, env=env,
                                 capture_output=True, text=True)
        finally:
            subprocess.run(["git", "worktree", "remove", "--force", str(tree)], cwd=ROOT, capture_output=True)
        if old.returncode or "@@RESULT@@" not in old.stdout:
            return False, f"{result.name}: the code of {commit} failed: {old.stderr.strip()[-400:]}"
        old_out = json.loads(old.stdout.split("@@RESULT@@", 1)[1])
        from .train import step_limit

        with step_limit(limit) if limit else contextlib.nullcontext():
            new_values = _rerun(result, sweep, groups, stop_after, device_text, progress)
    for group, old_values, values in zip(groups, old_out["values"], new_values):
        for point, a, b in zip(group, old_values, values):
            where = _same(a, b, False)
            if where:
                return False, f"{result.name}: {point}: the code of {commit} and the current code differ at {where}"
    wall = time.perf_counter() - start
    how = f"first {stop_after or limit} steps of every training"
    points = [p for group in groups for p in group]
    checked = (f"{len(points)} point(s) {points}, {how}: identical under the code of {commit} and the current code, "
               f"both run on {device_name(device_text)}")
    record = {**code_record(code_module(sweep.run), code_roots(sweep.run)), "checked": checked, "against": commit,
              "wall_s": wall}
    result.provenance.setdefault("verified", []).append(record)
    save(result)
    return True, f"{result.name}: {checked} ({wall:.0f}s); now verified under lib {record['lib_hash']}"


def sweeps_main(paper: str, sweeps: dict[str, Sweep] | None = None, argv: Sequence[str] | None = None) -> int:
    """The command line of a paper's sweeps (``sweeps``, default :func:`paper_sweeps`):
    ``python -m lib.papers.<paper> [SCALE] [NAME ...] [--jobs N]`` runs (or resumes) the named sweeps
    (all if none) at SCALE (default: $ABC_SCALE) and saves them under data/, with ``--jobs N`` in N
    single-thread processes; ``list`` shows them."""
    import argparse

    sweeps = paper_sweeps(paper) if sweeps is None else sweeps

    parser = argparse.ArgumentParser(prog=f"python -m lib.papers.{paper}", description=sweeps_main.__doc__)
    parser.add_argument("scale", nargs="?", default=None, help="smoke, default, paper or list")
    parser.add_argument("names", nargs="*", help=f"sweeps to run: {', '.join(sweeps)} (default: all)")
    parser.add_argument("--device", default=None)
    parser.add_argument("--jobs", type=int, default=1,
                        help="run each sweep's groups in this many single-thread processes side by side "
                             "(lib.papers.engines.ProcessEngine; on a CPU, 2 on 2 cores does more work per second "
                             "than one two-thread run); default 1: here, one group after the other")
    parser.add_argument("--budget", type=float, default=None,
                        help="stop after about this many seconds: the training in progress saves its checkpoint "
                             "at its next evaluation and the command exits with status 3; rerun it to resume")
    args = parser.parse_args(list(sys.argv[1:] if argv is None else argv))
    if args.jobs < 1:
        parser.error(f"--jobs must be at least 1; got {args.jobs}")
    if args.budget is not None and not args.budget > 0:
        parser.error(f"--budget must be a positive number of seconds; got {args.budget}")
    if args.scale == "list":
        for key, sweep in sweeps.items():
            saved = {s: load(sweep.name, s) for s in _scale.SCALES}
            shown = ", ".join(f"{s}: {'stale' if r.is_stale() else 'fresh'}" for s, r in saved.items() if r) or "none"
            print(f"{key:20s} data/{sweep.name}.<scale>.json ({shown})  {sweep.about}")
        return 0
    if args.scale is not None and args.scale not in _scale.SCALES:
        parser.error(f"the scale must be one of {', '.join(_scale.SCALES)} (or list); got {args.scale!r}")
    scale = args.scale or _scale.current()
    unknown = [n for n in args.names if n not in sweeps]
    if unknown:
        parser.error(f"unknown sweep(s) {', '.join(unknown)}; choose from {', '.join(sweeps)}")
    from .runtime import pick_device

    device = pick_device(args.device)
    engine = None
    if args.jobs > 1:
        if device.type != "cpu":
            parser.error(f"--jobs runs single-thread CPU processes; the device here is {device}")
        from .papers.engines import ProcessEngine

        engine = ProcessEngine(workers=args.jobs, threads=1)
    from .train import BudgetSpent, deadline

    with deadline(args.budget) if args.budget is not None else contextlib.nullcontext():
        for key in args.names or list(sweeps):
            try:
                print(sweeps[key].result(scale, device=device, engine=engine).label(), flush=True)
            except BudgetSpent as spent:
                print(f"{sweeps[key].name} ({scale}): stopped at the --budget of {args.budget:g} s ({spent}); "
                      "its finished groups and checkpoints are saved: run the same command again to resume",
                      flush=True)
                return 3
    return 0


def all_results(directory: Path | None = None) -> list[Result]:
    """Every result under ``directory``; a corrupt file is named in a warning and skipped."""
    directory = directory or data_dir()
    out = []
    for path in sorted(directory.glob("*.json")):
        try:
            out.append(_read(path))
        except ValueError as error:
            warnings.warn(f"skipped {error}", stacklevel=2)
    return out


def seed_counts(config: dict, prefix: str = "") -> dict[str, int]:
    """How many seeds each seed list of a sweep's config holds: every list under a key ending in
    ``seeds`` (``seeds``, ``base_seeds``, ``finetune.seeds``, ...), keyed by its dotted path."""
    counts = {}
    for key, value in config.items():
        if isinstance(value, dict):
            counts.update(seed_counts(value, f"{prefix}{key}."))
        elif isinstance(key, str) and key.endswith("seeds") and isinstance(value, (list, tuple)):
            counts[f"{prefix}{key}"] = len(value)
    return counts


def _seeds_text(config: dict) -> str:
    """A result's seeds for :func:`times_table`: the one count its seed lists share, ``fewest-most``
    where they differ, ``-`` without one."""
    counts = set(seed_counts(config).values())
    return "-" if not counts else str(counts.pop()) if len(counts) == 1 else f"{min(counts)}-{max(counts)}"


def times_table(results: Sequence[Result], scale: str = "default") -> str:
    """Each stored sweep at ``scale``: its recompute time (the run's elapsed time where it was
    recorded, which is less than the sum of its points' wall times where an engine ran groups side
    by side, else that sum; on the machine its provenance names) and its seeds (every seed list of
    its config, :func:`seed_counts`), then each paper's total and the sum: the budget a full
    recompute of that scale costs. A sweep run on an accelerator is marked with its device, and a
    last line names those sweeps: their time is not what a CPU would take."""
    scale = _scale.validate(scale)
    rows = sorted((r for r in results if r.scale == scale), key=lambda r: r.name)
    lines, totals, elsewhere = [f"{'sweep':45s} {'seeds':>5s} {'minutes':>8s}"], {}, []
    for r in rows:
        device = str(r.provenance.get("device") or "")
        accelerated = bool(device) and not device.lower().startswith("cpu")
        if accelerated:
            elsewhere.append(r.name)
        paper = r.name.split("_")[0]
        engine = r.provenance.get("engine") or {}
        took = float(r.provenance["elapsed_s"]) if engine.get("workers", 1) > 1 and "elapsed_s" in r.provenance \
            else r.wall_s
        totals[paper] = totals.get(paper, 0.0) + took
        lines.append(f"{r.name:45s} {_seeds_text(r.config):>5} {took / 60:8.1f}"
                     + (f"  ({engine['workers']} workers side by side; {r.wall_s / 60:.1f} summed over groups)"
                        if took != r.wall_s else "")
                     + ("" if r.complete else f"  (incomplete: {len(r.points)}/{len(r.grid)} points)")
                     + (f"  (on {device}, not a CPU)" if accelerated else ""))
    lines += [f"{'total, ' + paper:45s} {'':5s} {t / 60:8.1f}" for paper, t in totals.items()]
    lines.append(f"{'total':45s} {'':5s} {sum(totals.values()) / 60:8.1f}")
    if elsewhere:
        lines.append(f"(the totals count {len(elsewhere)} sweep(s) at the time they took on the accelerator their "
                     f"provenance names, not a CPU's: {', '.join(elsewhere)})")
    return "\n".join(lines)


def check(directory: Path | None = None) -> list[Result]:
    """Results whose ``lib`` code hash no longer matches (or that are incomplete)."""
    return [r for r in all_results(directory) if r.is_stale() or not r.complete]


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    usage = ("usage: python -m lib.results {check|list|rehash|times [SCALE]|verify NAME [NAME ...] [--scale SCALE] "
             "| verify --stale} [--against COMMIT]\n"
             "  list    every result under data/ with its scale, size and provenance\n"
             "  check   the results whose lib code hash no longer matches (exit 1 if any)\n"
             "  verify  re-run a cheap part of a result with the current code; if the numbers are\n"
             "          identical, record it as verified under the current code (exit 1 if not);\n"
             "          --against COMMIT: compare COMMIT's code with the current code on this machine\n"
             "  rehash  re-express the hash of every fresh result in the current hash version\n"
             "  times [SCALE]  each stored sweep's recompute time and seeds at SCALE (default), with each paper's total\n"
             "  gaps NAME [NAME ...] [--max-s S]  measure how far this process's kernels land from the stored\n"
             "          default-scale numbers (run with ATEN_CPU_CAPABILITY=avx2 MKL_ENABLE_INSTRUCTIONS=AVX2 on an\n"
             "          AVX-512 machine); kept in data/bench/rounding_gaps.json for tolerance=\"measured\"")
    if argv[:1] not in (["check"], ["list"], ["verify"], ["rehash"], ["gaps"], ["times"]):
        print(usage)
        return 2
    if argv[0] == "gaps":
        return _gaps_main(argv[1:])
    results = all_results()
    if argv[0] == "times":
        scale = _scale.validate(argv[1]) if len(argv) > 1 else "default"
        print(times_table(results, scale))
        return 0
    if argv[0] == "rehash":
        done = [r for r in results if r.rehash()]
        for r in done:
            save(r)
            old = r.code["rehashed_from"]
            print(f"{r.path.name}: hash {r.code[f'lib_hash_v{old}']} (v{old}) -> {r.code['lib_hash']} (v{HASH_VERSION}), "
                  f"{len(r.code[f'lib_files_v{old}'])} -> {len(r.code['lib_files'])} files")
        print(f"{len(done)} of {len(results)} results rehashed")
        return 0
    if argv[0] == "list":
        for r in results:
            state = "stale" if r.is_stale() else ("fresh" if r.hashed else "unhashed")
            print(f"{r.path.name:50s} {len(r.points):4d}/{len(r.grid):<4d} points  {state}  "
                  f"{r.provenance.get('device')}  {r.wall_s:.0f}s")
        return 0
    if argv[0] == "verify":
        rest = argv[1:]
        scale = "default"
        against = None
        if "--against" in rest:
            i = rest.index("--against")
            if i + 1 >= len(rest) or rest[i + 1].startswith("--"):
                print("verify --against needs a commit")
                return 2
            against, rest = rest[i + 1], rest[:i] + rest[i + 2:]
        if "--scale" in rest:
            i = rest.index("--scale")
            if i + 1 >= len(rest) or rest[i + 1].startswith("--"):
                print(f"verify --scale needs a value: one of {', '.join(_scale.SCALES)}")
                return 2
            scale = _scale.validate(rest[i + 1])
            rest = rest[:i] + rest[i + 2:]
        if rest == ["--stale"]:
            todo = check()
        elif rest and "--stale" not in rest:
            todo = [load(name, scale) for name in rest]
            missing = [n for n, r in zip(rest, todo) if r is None]
            if missing:
                print(f"no result {', '.join(missing)} at scale {scale} under {data_dir()}")
                return 2
        else:
            print(usage)
            return 2
        failed = 0
        for r in todo:
            ok, message = verify(r) if against is None else verify_against(r, against)
            print(("ok    " if ok else "FAIL  ") + message, flush=True)
            failed += not ok
        return 1 if failed else 0
    bad = check()
    for r in bad:
        why = (f"incomplete, {len(r.points)}/{len(r.grid)} points (a paper-scale run stopped at its budget: "
               f"python -m lib.papers queue resumes it)" if not r.complete and r.scale == "paper" else
               "incomplete" if not r.complete else f"lib changed since {r.code.get('git_commit')}")
        print(f"{r.path.name}: {why} (files: {', '.join(r.code.get('lib_files', []))})")
    unhashed = [r for r in results if not r.hashed]
    for r in unhashed:
        print(f"{r.path.name}: computed by code outside lib ({r.provenance['unhashed_code']}), not hashed")
    print(f"{len(bad)} of {len(results)} results need a rerun" if bad else f"all {len(results)} results are fresh")
    from . import claims  # claims read results; results never import claims at module level

    recorded = claims.collect()
    stale_claims = claims.stale(recorded)
    for claim, why in stale_claims:
        print(f"claim {claim.paper} {claim.ref} ({claim.chapter}, {claim.scale}): {why}")
    print(f"{len(stale_claims)} of {len(recorded)} claims rest on missing or stale evidence" if stale_claims
          else f"all {len(recorded)} claims rest on fresh evidence ({sum(bool(c.evidence) for c in recorded)} on "
               "stored results)")
    return 1 if bad or stale_claims else 0


def _gaps_main(argv: list[str]) -> int:
    """``gaps NAME ... [--max-s S]``: :func:`measure_gaps` for each default-scale result (skipping
    one whose cheap part took more than S seconds when stored), merged into :data:`GAPS_FILE`."""
    max_s = math.inf
    if "--max-s" in argv:
        i = argv.index("--max-s")
        max_s, argv = float(argv[i + 1]), argv[:i] + argv[i + 2:]
    path = data_dir() / GAPS_FILE
    for name in argv:
        result = load(name, "default")
        if result is None:
            print(f"{name}: no default-scale result")
            continue
        sweep = find_sweep(name)
        groups, stop_after = _cheap_part(result, sweep)
        walls = {json.dumps(p["point"], sort_keys=True): p["wall_s"] for p in result.points}
        cost = sum(walls[json.dumps(p, sort_keys=True)] for g in groups for p in g)
        if stop_after is None and cost > max_s:
            print(f"{name}: skipped, its cheap part took {cost:.0f}s > {max_s:.0f}s", flush=True)
            continue
        measured = measure_gaps(result, sweep)
        stored = json.loads(path.read_text()) if path.exists() else {}
        stored[name] = measured
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(_jsonable(stored), indent=1, sort_keys=True))
        worst = {k: round(v["mean"] or v["entry"], 4) for k, v in measured["gaps"].items()}
        print(f"{name}: {measured['wall_s']:.0f}s, largest gaps (of a mean, else of a number) {worst or 'none'}",
              flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
