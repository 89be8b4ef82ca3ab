"""Summaries of the stored heads sweeps (Figures 4-7) that the heads chapter shows and its
checks read: speeds, final accuracies and the several-k table. Computed from stored results
only (never imported by the sweeps)."""
from __future__ import annotations

import math

import numpy as np

import pandas as pd

from ... import validate
from ...results import Result
from .figures import arch_label
from .sweeps import as_curves, curves, final, speeds_by_lr


def speed(result, task: str, arch) -> float:
    """Mean accuracy over training and seeds of one architecture (the paper's "faster")."""
    validate.instance("speed", "result", result, Result)
    return curves(result, task=task, init="paper")[tuple(arch)].speed


def seed_speeds(result, task: str, arch) -> np.ndarray:
    """Each seed's mean accuracy over training of one architecture (paper initialisation): the
    paper's "faster", per seed, for comparisons over seeds."""
    validate.instance("seed_speeds", "result", result, Result)
    return curves(result, task=task, init="paper")[tuple(arch)].acc.mean(1)


def archs(result, task: str) -> list:
    """The architectures (heads per layer) of ``task``'s grid point."""
    validate.instance("archs", "result", result, Result)
    return next(p["archs"] for p in result.grid if p["task"] == task)


def memorization_speeds(heads) -> dict[str, float]:
    """Figure 4 under Adam: speed per head count, ``{"1 head(s)": 0.79, ...}``."""
    validate.instance("memorization_speeds", "heads", heads, Result)
    return {f"{a[0]} head(s)": speed(heads, "memorization", a) for a in archs(heads, "memorization")}


def qa_tm(heads, value) -> dict[str, dict[str, float]]:
    """Figures 5-6: ``value(result, task, arch)`` for each architecture of in-context QA and
    template matching, keyed by task and then :func:`~.figures.arch_label`."""
    validate.instance("qa_tm", "heads", heads, Result)
    if not callable(value):
        validate.fail("qa_tm", "value", "a function (result, task, arch) -> number", value, validate.ArgumentTypeError)
    return {g["task"]: {arch_label(a): value(heads, g["task"], a) for a in g["archs"]}
            for g in heads.grid if g["task"] in ("reasoning", "generalization")}


def final_mean(result, task: str, arch) -> float:
    """Mean over seeds of the final accuracy of one architecture (paper initialisation)."""
    validate.instance("final_mean", "result", result, Result)
    return float(final(result, task, "paper", arch).mean())


def contextual(heads) -> dict[str, tuple[float, float]]:
    """Figure 7 in the heads grid: ``{arch label: (final accuracy, speed)}`` (empty at smoke scale)."""
    validate.instance("contextual", "heads", heads, Result)
    return {arch_label(a): (final_mean(heads, "contextual", a), speed(heads, "contextual", a))
            for g in heads.grid if g["task"] == "contextual" for a in g["archs"]}


def sgd_speeds(sgd) -> dict:
    """Figure 4 under SGD: per head count (architecture tuple) its best learning rate, its speed
    there, and every head count's speed at the 1-head model's best rate."""
    validate.instance("sgd_speeds", "sgd", sgd, Result)
    by_lr = speeds_by_lr(sgd)
    for arch, v in by_lr.items():
        diverged = [lr for lr, speeds in v.items() if not math.isfinite(float(speeds.mean()))]
        if diverged:
            raise ValueError(f"sgd_speeds: the runs of {arch} at learning rate(s) {diverged} have no finite speed "
                             "(diverged); no best rate can be chosen among them")
    best = {arch: max(v, key=lambda lr: v[lr].mean()) for arch, v in by_lr.items()}
    fewest = min(by_lr)
    return {"by_lr": by_lr, "best_lr": best, "speed": {a: float(by_lr[a][best[a]].mean()) for a in by_lr},
            "fewest": fewest, "most": max(by_lr),
            "at_fewest_best": {a: float(by_lr[a][best[fewest]].mean()) for a in by_lr}}


def figure7_table(by_k) -> pd.DataFrame:
    """One row per (k, architecture) of the ``figure7_k`` sweep: final accuracy (mean over seeds),
    seeds, seeds ending >= 0.95, mean accuracy over training, and whether most seeds learn."""
    validate.instance("figure7_table", "by_k", by_k, Result)
    rows = []
    for point in by_k.points:
        for arch, c in as_curves(point["result"]).items():
            rows.append({"k": point["point"]["task_args"]["k"], "arch": str(list(arch)), "final": c.final.mean(),
                         "seeds": len(c.acc), "seeds >= 0.95": int((c.final >= 0.95).sum()),
                         "mean over training": c.speed, "final per seed": c.final.tolist(),
                         "speed per seed": c.acc.mean(1).tolist()})
    table = pd.DataFrame(rows)
    return table.assign(learns=table["seeds >= 0.95"] * 2 > table["seeds"])


def informative_fourth_layer_pairs(by_k, l7: int) -> list[tuple[str, str, int]]:
    """Figure 7's fourth-layer comparisons ``(deep, shallow, k)`` where at least one of the two
    models learns (two models at chance are equally slow: not evidence, the rule's point 4)."""
    validate.integer("informative_fourth_layer_pairs", "l7", l7, minimum=1)
    table = figure7_table(by_k)
    learns = table.pivot(index="arch", columns="k", values="learns")
    pairs = [(f"[1, 1, 1, {h}]", f"[1, 1, {h}]") for h in (1, 2 * l7) if f"[1, 1, 1, {h}]" in learns.index]
    return [(deep, shallow, k) for deep, shallow in pairs for k in sorted(set(table["k"]))
            if learns.loc[deep, k] or learns.loc[shallow, k]]
