"""The recurring figures of the Chen & Zou part: training curves per task, one line per
architecture (heads per layer), with a band over seeds and the chance level."""
from __future__ import annotations

import numpy as np

from ... import plots
from ...results import Result
from .sweeps import curves
from .training import TASKS, recipe

TITLES = {"memorization": "memorization (SC)", "reasoning": "reasoning (IC-QA)",
          "generalization": "generalization (TM)", "contextual": "contextual gen. (IC-TM)"}


def arch_label(arch) -> str:
    """``(2, 2, 1)`` -> ``"3 layers [2, 2, 1]"``."""
    layers = len(arch)
    return f"{layers} layer{'s' if layers > 1 else ''} {list(arch)}"


def chance(task: str, scale: str, task_args: dict | None = None) -> float | None:
    """Accuracy of guessing: 1/k on the in-context tasks, 1/classes on template matching
    (``task_args``: the grid point's task overrides, e.g. the paper's sizes)."""
    if task == "memorization":
        return None
    t = recipe(task, scale, **(task_args or {})).task
    return 1 / t.k if task in ("reasoning", "contextual") else 1 / t.n_classes


def has_task(result: Result, task: str, init: str) -> bool:
    try:
        curves(result, task=task, init=init)
    except KeyError:
        return False
    return True


def training_curves(result: Result, init: str, tasks=TASKS, title: str | None = None):
    """Figure 2 laid out for the page: one row per task of ``result`` (in :data:`TASKS` order),
    accuracy on the left with the chance level, loss (log scale) on the right, the row's legend
    beside it; a task missing from ``result`` is left out. Returns the figure."""
    present = [task for task in tasks if has_task(result, task, init)]
    if not present:
        raise ValueError(f"training_curves: {result.name} has no curves for init={init!r}")
    fig, axes = plots.panels(2 * len(present), ncols=2, height=1.9)
    for row, task in enumerate(present):
        runs = curves(result, task=task, init=init)
        task_args = next(p for p in result.grid if p["task"] == task and p["init"] == init).get("task_args")
        steps = next(iter(runs.values())).steps
        acc_ax, loss_ax = axes[2 * row], axes[2 * row + 1]
        plots.curves(steps, {arch_label(a): c.acc for a, c in runs.items()}, ax=acc_ax, ylabel="accuracy",
                     title=TITLES[task], chance=chance(task, result.scale, task_args), legend=None)
        losses = np.concatenate([np.ravel(c.loss) for c in runs.values()])
        losses = losses[np.isfinite(losses) & (losses > 0)]
        spans_decades = bool(losses.size and losses.max() / losses.min() > 20)  # a log axis only then
        plots.curves(steps, {arch_label(a): c.loss for a, c in runs.items()}, ax=loss_ax, ylabel="loss",
                     title="loss", legend=None, logy=spans_decades)
        loss_ax.legend(*acc_ax.get_legend_handles_labels(), loc="upper left", bbox_to_anchor=(1.02, 1.0),
                       borderaxespad=0.0)
        if row < len(present) - 1:
            acc_ax.set_xlabel("")
            loss_ax.set_xlabel("")
    if title:
        fig.suptitle(title)
    plots.stamp(fig, f"{result.label()}; {plots.BANDS}")
    return fig
