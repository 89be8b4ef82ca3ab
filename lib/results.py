"""The results store under ``data/``: every experiment's numbers with their provenance.

An experiment is a name, a config (any JSON-able dict, seeds included) and a grid of
points; running it calls ``run_point(point)`` for each point and keeps what it returns
(JSON-able metrics and small arrays). Results live in one file per experiment and scale,
``data/<name>.<scale>.json``, rewritten atomically after every point, so an interrupted
sweep resumes where it stopped and loses at most the point in progress.

Provenance recorded with each file: config, seeds, scale, git commit (and whether the
tree was dirty), a hash of the ``lib`` sources the process had imported, their file
list, torch and Python versions, the device, the date and the wall time of every point.
``python -m lib.results check`` lists results whose code hash no longer matches ``lib``.
"""
from __future__ import annotations

import datetime as _dt
import hashlib
import json
import os
import platform
import subprocess
import sys
import time
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterable, Sequence

import numpy as np

from . import scale as _scale

LIB_DIR = Path(__file__).resolve().parent
ROOT = LIB_DIR.parent


def data_dir() -> Path:
    """``$ABC_DATA`` if set, else ``data/`` at the repository root."""
    return Path(os.environ.get("ABC_DATA", ROOT / "data"))


# ----------------------------------------------------------------------------- provenance
PRESENTATION = ("lib.plots", "lib.claims")  # modules that draw or report, never compute results


def lib_sources(modules: Iterable[str] | None = None) -> list[str]:
    """Relative paths of the ``lib`` source files that this process has imported
    (less the presentation modules, whose edits do not change any number)."""
    names = modules if modules is not None else [m for m in sys.modules if m == "lib" or m.startswith("lib.")]
    names = [m for m in names if m not in PRESENTATION]
    files = set()
    for name in names:
        module = sys.modules.get(name)
        path = getattr(module, "__file__", None)
        if path and Path(path).resolve().is_relative_to(LIB_DIR):
            files.add(Path(path).resolve().relative_to(ROOT).as_posix())
    return sorted(files)


def code_hash(files: Sequence[str]) -> str:
    """SHA-256 over the named source files (path and content), first 16 hex digits."""
    digest = hashlib.sha256()
    for rel in sorted(files):
        path = ROOT / rel
        digest.update(rel.encode())
        digest.update(path.read_bytes() if path.exists() else b"<missing>")
    return digest.hexdigest()[:16]


def git_commit() -> str:
    try:
        commit = subprocess.run(["git", "rev-parse", "HEAD"], cwd=ROOT, capture_output=True, text=True,
                                timeout=10).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "--", "lib"], cwd=ROOT, capture_output=True,
                               text=True, timeout=10).stdout.strip()
        return (commit or "unknown") + ("+dirty-lib" if dirty else "")
    except (OSError, subprocess.SubprocessError):
        return "unknown"


def provenance(config: dict, scale: str, device: str | None = None) -> dict:
    import torch

    from .runtime import device_name

    files = lib_sources()
    return {
        "config": config,
        "seeds": config.get("seeds"),
        "scale": scale,
        "git_commit": git_commit(),
        "lib_files": files,
        "lib_hash": code_hash(files),
        "torch": torch.__version__,
        "python": platform.python_version(),
        "device": device or device_name(),
        "created": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
    }


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

    def is_stale(self) -> bool:
        """True when the ``lib`` sources it ran have changed since."""
        prov = self.provenance
        return code_hash(prov.get("lib_files", [])) != prov.get("lib_hash")

    def get(self, **point) -> dict:
        """The result of the grid point with these coordinates."""
        for p in self.points:
            if all(p["point"].get(k) == v for k, v in point.items()):
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

    def label(self) -> str:
        """Short provenance line for figure captions."""
        prov = self.provenance
        return (f"{self.name} · scale={self.scale} · {prov.get('device', '?')} · "
                f"{self.wall_s:.0f}s · lib {prov.get('lib_hash', '?')[:8]}")

    def to_json(self) -> dict:
        return {"name": self.name, "scale": self.scale, "provenance": self.provenance, "grid": self.grid,
                "points": self.points}


def path_for(name: str, scale: str) -> Path:
    if not name or any(c in name for c in "/\\ ") or name.startswith("."):
        raise ValueError(f"experiment name {name!r} must be a plain file name (no spaces or slashes)")
    return data_dir() / f"{name}.{_scale.validate(scale)}.json"


def save(result: Result) -> Path:
    path = result.path or path_for(result.name, result.scale)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".json.tmp")
    tmp.write_text(json.dumps(_jsonable(result.to_json()), indent=1))
    os.replace(tmp, path)  # atomic: a crash never leaves half a file
    result.path = path
    return path


def load(name: str, scale: str) -> Result | None:
    path = path_for(name, scale)
    if not path.exists():
        return None
    return _read(path)


def _read(path: Path) -> Result:
    raw = json.loads(path.read_text())
    return Result(name=raw["name"], scale=raw["scale"], provenance=raw["provenance"], grid=raw["grid"],
                  points=raw["points"], path=path)


# ----------------------------------------------------------------------------- running
def run(name: str, config: dict, grid: Sequence[dict], run_point: Callable[[dict], dict], *,
        scale: str | None = None, device: str | None = None, progress: bool = True) -> Result:
    """Run (or resume) an experiment and save after every point."""
    scale = _scale.validate(scale) if scale is not None else _scale.current()
    config, grid = _jsonable(dict(config)), [_jsonable(dict(g)) for g in grid]
    existing = load(name, scale)
    if existing is not None and existing.config == config and existing.grid == grid:
        result = existing  # resume
    else:
        result = Result(name=name, scale=scale, provenance=provenance(config, scale, device), grid=grid)
    done = [p["point"] for p in result.points]
    todo = [g for g in grid if g not in done]
    for i, point in enumerate(todo):
        if progress:
            print(f"[{name}] point {len(done) + i + 1}/{len(grid)}: {point}", flush=True)
        start = time.perf_counter()
        value = run_point(dict(point))
        if not isinstance(value, dict):
            raise TypeError(f"{name}: run_point must return a dict of metrics, got {type(value).__name__}")
        result.points.append({"point": point, "result": _jsonable(value), "wall_s": time.perf_counter() - start})
        save(result)
    if not todo:
        save(result)
    return result


def load_or_run(name: str, config: dict, grid: Sequence[dict], run_point: Callable[[dict], dict], *,
                heavy: bool = False, scale: str | None = None, device: str | None = None,
                progress: bool = True) -> Result:
    """Load the experiment's saved result if it matches, else run (or resume) it.

    ``config`` must describe everything that determines the result at this scale (sizes,
    seeds, optimiser settings); a saved file with another config or grid is rerun.
    With ``heavy=True`` at the ``default`` scale, a complete result saved at a larger scale
    (``paper``) is loaded instead of running anything: that is how a laptop reads the
    GPU sweeps. A stale result (``lib`` changed since) is still loaded, with a warning.
    """
    scale = _scale.validate(scale) if scale is not None else _scale.current()
    candidates = []
    if heavy and scale == "default":
        candidates.append(load(name, "paper"))
    own = load(name, scale)
    if own is not None and own.config == _jsonable(dict(config)) and own.grid == [_jsonable(dict(g)) for g in grid]:
        candidates.append(own)
    for result in candidates:
        if result is not None and result.complete:
            if result.is_stale():
                warnings.warn(f"{result.path.name}: lib has changed since this result was computed "
                              f"(commit {result.provenance.get('git_commit')}); rerun it at scale "
                              f"{result.scale} to refresh", stacklevel=2)
            return result
    return run(name, config, grid, run_point, scale=scale, device=device, progress=progress)


def all_results(directory: Path | None = None) -> list[Result]:
    directory = directory or data_dir()
    return [_read(p) for p in sorted(directory.glob("*.json"))]


def check(directory: Path | None = None) -> list[Result]:
    """Results whose ``lib`` code hash no longer matches (or that are incomplete)."""
    return [r for r in all_results(directory) if r.is_stale() or not r.complete]


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] not in (["check"], ["list"]):
        print("usage: python -m lib.results {check|list}\n"
              "  list   every result under data/ with its scale, size and provenance\n"
              "  check  the results whose lib code hash no longer matches (exit 1 if any)")
        return 2
    results = all_results()
    if argv[0] == "list":
        for r in results:
            state = "stale" if r.is_stale() else "fresh"
            print(f"{r.path.name:50s} {len(r.points):4d}/{len(r.grid):<4d} points  {state}  "
                  f"{r.provenance.get('device')}  {r.wall_s:.0f}s")
        return 0
    bad = check()
    for r in bad:
        why = "incomplete" if not r.complete else f"lib changed since {r.provenance.get('git_commit')}"
        print(f"{r.path.name}: {why} (files: {', '.join(r.provenance.get('lib_files', []))})")
    print(f"{len(bad)} of {len(results)} results need a rerun" if bad else f"all {len(results)} results are fresh")
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
