"""The book's report card: every claim a chapter checks, with a verdict computed from the check.

A chapter calls :func:`record` once per claim (a theorem, figure or table it reproduces).
The verdict is never typed in: it follows from the check's own outcome,

* ``reproduced``      the check passed in the paper's own setting;
* ``substituted``     the check passed, in a stated substitute setting (other data, smaller scale of a
                      different kind, a model trained here instead of a pretrained one);
* ``partly``          the check failed but its weaker form (``partly=True``) held;
* ``not reproduced``  the check failed.

Claims are stored per chapter and scale in ``data/claims/<chapter>.<scale>.json``; the
report card shows, for each claim, the record from the largest scale that has run. A chapter
records through a :class:`Recorder` bound to its paper and chapter.
"""
from __future__ import annotations

import json
import os
from dataclasses import asdict, dataclass
from pathlib import Path

from . import scale as _scale
from .results import _jsonable, data_dir

VERDICTS = ("reproduced", "substituted", "partly", "not reproduced")
PAPERS = {
    "mahdavi2024": "Memorization capacity of multi-head attention (Mahdavi, Liao & Thrampoulidis)",
    "chen2024": "What can transformers learn with varying depth? (Chen & Zou)",
    "bhattamishra2024": "Separations between transformers and recurrent models (Bhattamishra et al.)",
    "boixadsera2024": "When can transformers reason with abstract symbols? (Boix-Adsera et al.)",
    "richard2024": "Depth extrapolation on nested structures (Richard)",
    "course": "The course's own checks (chapter 0)",
}


@dataclass
class Claim:
    paper: str
    ref: str  # "Theorem 1", "Figure 2a", ...
    statement: str
    paper_value: str
    ours: str
    verdict: str
    scale: str
    chapter: str  # docname, e.g. "chapters/00_tour/tour"
    label: str  # MyST label of the section that checks it
    note: str = ""


def verdict(passed: bool, partly: bool = False, substitute: str | None = None) -> str:
    """The verdict that a check's outcome implies (see the module docstring)."""
    if passed:
        return "substituted" if substitute else "reproduced"
    return "partly" if partly else "not reproduced"


def _path(chapter: str, scale: str) -> Path:
    slug = chapter.replace("/", "__")
    return data_dir() / "claims" / f"{slug}.{scale}.json"


def record(*, paper: str, ref: str, statement: str, paper_value, ours, passed: bool, chapter: str, label: str,
           partly: bool = False, substitute: str | None = None, note: str = "", scale: str | None = None) -> Claim:
    """Record (or update) one claim and return it; prints a one-line report.

    ``passed`` must be the outcome of the assertion the chapter makes, computed from data.
    """
    if paper not in PAPERS:
        raise ValueError(f"claims.record: unknown paper {paper!r}; known: {', '.join(PAPERS)}")
    scale = _scale.validate(scale) if scale is not None else _scale.current()
    claim = Claim(paper=paper, ref=ref, statement=statement, paper_value=str(paper_value), ours=str(ours),
                  verdict=verdict(bool(passed), partly, substitute), scale=scale, chapter=chapter, label=label,
                  note="; ".join(x for x in (f"substitute: {substitute}" if substitute else "", note) if x))
    path = _path(chapter, scale)
    path.parent.mkdir(parents=True, exist_ok=True)
    claims = json.loads(path.read_text()) if path.exists() else []
    claims = [c for c in claims if not (c["paper"] == paper and c["ref"] == ref)] + [asdict(claim)]
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(_jsonable(claims), indent=1))
    os.replace(tmp, path)
    print(f"[claim] {paper} {ref}: {claim.verdict} (ours: {claim.ours}; paper: {claim.paper_value}; scale {scale})")
    return claim


class Recorder:
    """:func:`record` bound to one paper, chapter and scale (default: the current one):
    ``record = Recorder("chen2024", CHAPTER)``, then ``record(ref=..., label=..., statement=...,
    paper_value=..., ours=..., passed=...)``; ``scale=`` on a call overrides the scale for that
    claim (a claim whose evidence was loaded at another scale).

    ``reduced="..."`` names a substitution that holds only below the paper's scale (reduced
    sizes, a CPU budget): it applies unless the evidence, ``result`` (a
    :class:`lib.results.Result`) or else the current scale, is at the ``paper`` scale.
    ``substitute="..."`` applies at every scale (other data, a model trained here). Returns
    nothing, so a notebook cell that ends with a record prints only the one-line report.
    """

    def __init__(self, paper: str, chapter: str, scale: str | None = None):
        if paper not in PAPERS:
            raise ValueError(f"claims.Recorder: unknown paper {paper!r}; known: {', '.join(PAPERS)}")
        self.paper, self.chapter = paper, chapter
        self.scale = _scale.validate(scale) if scale is not None else _scale.current()

    def __call__(self, *, ref: str, label: str, statement: str, paper_value, ours, passed: bool,
                 partly: bool = False, substitute: str | None = None, reduced: str | None = None, result=None,
                 note: str = "", scale: str | None = None) -> None:
        if substitute and reduced:
            raise ValueError("claims.Recorder: give substitute= or reduced=, not both")
        scale = _scale.validate(scale) if scale is not None else self.scale
        if reduced:
            evidence = result.scale if result is not None else scale
            substitute = None if evidence == "paper" else reduced
        record(paper=self.paper, ref=ref, statement=statement, paper_value=paper_value, ours=ours, passed=passed,
               chapter=self.chapter, label=label, partly=partly, substitute=substitute, note=note, scale=scale)


def collect(directory: Path | None = None) -> list[Claim]:
    """Every recorded claim, one per (paper, ref), from the largest scale that recorded it."""
    directory = directory or data_dir() / "claims"
    best: dict[tuple[str, str], Claim] = {}
    for path in sorted(directory.glob("*.json")):
        for raw in json.loads(path.read_text()):
            claim = Claim(**raw)
            key = (claim.paper, claim.ref)
            if key not in best or _scale.rank(claim.scale) > _scale.rank(best[key].scale):
                best[key] = claim
    order = {p: i for i, p in enumerate(PAPERS)}
    return sorted(best.values(), key=lambda c: (order.get(c.paper, 99), c.chapter, c.ref))


def table_markdown(claims: list[Claim]) -> str:
    """The report card as a MyST Markdown table, each claim linking to its section."""
    lines = ["| paper | claim | statement | paper | ours | scale | verdict |", "|---|---|---|---|---|---|---|"]
    mark = {"reproduced": "✅", "substituted": "🔁", "partly": "◐", "not reproduced": "❌"}
    for c in claims:
        cells = [c.paper, f"{{ref}}`{c.ref} <{c.label}>`", c.statement, c.paper_value, c.ours, c.scale,
                 f"{mark[c.verdict]} {c.verdict}"]
        lines.append("| " + " | ".join(str(x).replace("|", "\\|").replace("\n", " ") for x in cells) + " |")
    return "\n".join(lines)
