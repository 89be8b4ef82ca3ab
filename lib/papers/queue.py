"""The paper-scale queue: every paper's sweeps at the paper scale, in a stated priority, cut to fit
a time budget, resumable.

A GPU comes to this project in windows of minutes (a Colab session, a short lease), while a paper's
own scale takes hours. ``python -m lib.papers queue --budget SECONDS [NAME ...]`` runs the
paper-scale sweeps in the order of :data:`PRIORITY` (each paper's headline figure first), skipping
those already complete. Inside the budget, each group of grid points trains with checkpoints
(:func:`lib.train.checkpoints`); when the budget is close, the training in progress saves its state
at its next evaluation and stops (:func:`lib.train.deadline`). The results file then holds the
groups that finished (``python -m lib.results list`` shows ``done/total`` points, and the book
marks such a result as partial), and the checkpoint under ``data/checkpoints/`` holds the group in
progress. A later call resumes there; the finished sweep has exactly the numbers of one
uninterrupted run (``tests/test_queue.py``).

A sweep whose paper-scale config cannot run (data that cannot exist, memory beyond the machine)
raises a clear error when defined or started; the queue reports it and goes on to the next.

``--engine ray`` runs the groups of each sweep side by side, one Ray task and one GPU per group
(:mod:`lib.papers.engines`), into the same results files; the default runs them here, one after
the other, and needs no Ray.
"""
from __future__ import annotations

import time
import traceback
from dataclasses import dataclass

from .. import results as _results
from .. import validate
from . import engines
from ..train import BudgetSpent, deadline

PAPER_KEYS = ("mahdavi2024", "chen2024", "bhattamishra2024", "boixadsera2024", "richard2024", "course")

#: the headline figure of each paper first (the figure its part is built around), then the rest of
#: each paper's sweeps in the order its module lists them
PRIORITY = (
    "chen2024.figure2_paper_sizes",       # Chen & Zou, Figure 2a-c at Sec. 9.1's sizes
    "mahdavi2024.fig2a",                  # Mahdavi et al., Figure 2a on the official recipe
    "bhattamishra2024.index_lookup",      # Bhattamishra et al., Figure 2a-b
    "boixadsera2024.identity_scalings",   # Boix-Adsera et al., Figures 1 and 21
    "richard2024.architectures",          # Richard, Figure 3 left
)


@dataclass
class Outcome:
    """What the queue did with one sweep."""

    sweep: str
    state: str  # "complete", "partial", "not started", "failed"
    done: int = 0  # grid points stored
    total: int = 0
    wall_s: float = 0.0
    message: str = ""


def ordered_sweeps(names=None) -> list:
    """The paper-scale :class:`~lib.results.Sweep` objects in queue order; ``names`` (paper keys,
    ``paper.key`` or file names ``paper_key``) keeps only those, in the same order."""
    every = {}
    for paper in PAPER_KEYS:
        for sweep in _results.paper_sweeps(paper).values():
            every[f"{sweep.paper}.{sweep.key}"] = sweep
    order = [n for n in PRIORITY if n in every] + [n for n in every if n not in PRIORITY]
    if isinstance(names, (str, bytes)):
        validate.fail("ordered_sweeps", "names", "a list of paper or sweep names (not one string)", names,
                      validate.ArgumentTypeError)
    if names:
        wanted = set(names)
        unknown = wanted - set(PAPER_KEYS) - set(every) - {s.name for s in every.values()}
        if unknown:
            raise ValueError(f"queue: unknown sweep(s) or paper(s) {', '.join(sorted(unknown))}; papers: "
                             f"{', '.join(PAPER_KEYS)}; sweeps: {', '.join(order)}")
        order = [n for n in order if n in wanted or every[n].paper in wanted or every[n].name in wanted]
    return [every[n] for n in order]


def status(sweep) -> Outcome:
    """How far ``sweep``'s paper-scale file has got."""
    validate.instance("status", "sweep", sweep, _results.Sweep)
    config, grid = sweep.define("paper")
    stored = _results.load(sweep.name, "paper")
    label = f"{sweep.paper}.{sweep.key}"
    if stored is None or stored.config != _results._jsonable(dict(config)) or \
            stored.grid != [_results._jsonable(dict(g)) for g in grid]:
        return Outcome(label, "not started", 0, len(grid))
    return Outcome(label, "complete" if stored.complete else "partial", len(stored.points), len(grid),
                   stored.wall_s)


def run_queue(budget_s: float, names=None, *, sweeps=None, per_sweep_s: float | None = None, device=None,
              margin_s: float = 0.0, progress: bool = True, log=print, engine=None) -> list[Outcome]:
    """Run the queue for at most about ``budget_s`` seconds (see the module docstring); a training
    in progress stops at its first evaluation past ``budget_s - margin_s``, or past
    ``per_sweep_s`` from its sweep's start (then the queue goes on with the next sweep, so that a
    short window advances several papers). ``sweeps`` replaces the paper sweeps (tests).
    ``engine``: "local" (or None, the default: each group here, in turn), "processes" (single-thread
    worker processes of this CPU, :class:`lib.papers.engines.ProcessEngine`), "ray" (each group a Ray
    task with a GPU of its own: :mod:`lib.papers.engines`) or an engine object. Returns one
    :class:`Outcome` per sweep in the queue."""
    validate.real("run_queue", "budget_s", budget_s, minimum=0.0)
    validate.real("run_queue", "margin_s", margin_s, minimum=0.0)
    if per_sweep_s is not None:
        validate.real("run_queue", "per_sweep_s", per_sweep_s, above=0.0)
    validate.boolean("run_queue", "progress", progress)
    if not callable(log):
        validate.fail("run_queue", "log", "a function of one string (such as print)", log, validate.ArgumentTypeError)
    sweeps = ordered_sweeps(names) if sweeps is None else list(sweeps)
    engine = engines.get(engine)
    end = time.monotonic() + float(budget_s) - float(margin_s)
    outcomes, started = [], False
    for sweep in sweeps:
        label = f"{sweep.paper}.{sweep.key}"
        try:
            before = status(sweep)
        except Exception as error:  # noqa: BLE001 - a paper config that cannot even be defined
            outcomes.append(Outcome(label, "failed", message=f"{type(error).__name__}: {error}"))
            log(f"[queue] {label}: cannot be defined: {outcomes[-1].message}")
            continue
        now = time.monotonic()
        if before.state == "complete" or (now >= end and started):
            outcomes.append(before)
            continue
        started = True  # the first sweep to run always gets to its first evaluation, even at budget 0
        stop = end if per_sweep_s is None else min(end, now + float(per_sweep_s))
        log(f"[queue] {label}: {before.done}/{before.total} points stored; {stop - now:.0f}s for it")
        start = time.perf_counter()
        message = ""
        try:
            with deadline(max(0.0, stop - time.monotonic())):
                sweep.result("paper", device=device, progress=progress, engine=engine)
        except BudgetSpent as spent:
            message = "stopped at the budget; resumes from its checkpoint"
            log(f"[queue] {label}: {spent}")
        except Exception as error:  # noqa: BLE001 - report, go on with the next sweep
            message = f"{type(error).__name__}: {error}"
            log(f"[queue] {label}: failed: {message}\n{traceback.format_exc(limit=3)}")
            after = status(sweep)
            outcomes.append(Outcome(label, "failed", after.done, after.total, time.perf_counter() - start, message))
            continue
        after = status(sweep)
        after.wall_s, after.message = time.perf_counter() - start, message
        outcomes.append(after)
        log(f"[queue] {label}: {after.state}, {after.done}/{after.total} points, {after.wall_s:.0f}s this call")
    return outcomes


def table(outcomes: list[Outcome]) -> str:
    """The queue's state as a plain-text table."""
    if not isinstance(outcomes, (list, tuple)) or not all(isinstance(o, Outcome) for o in outcomes):
        validate.fail("table", "outcomes", "a list of Outcome", outcomes, validate.ArgumentTypeError)
    lines = [f"{'sweep':44s} {'state':12s} {'points':>9s} {'wall s':>8s}  note"]
    for o in outcomes:
        lines.append(f"{o.sweep:44s} {o.state:12s} {f'{o.done}/{o.total}':>9s} {o.wall_s:8.0f}  {o.message[:80]}")
    return "\n".join(lines)
