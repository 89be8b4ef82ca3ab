"""The recurring figures of the Chen & Zou part: training curves per task, one line per
architecture (heads per layer), with a band over seeds and the chance level."""
from __future__ import annotations

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


def chance(task: str, scale: str) -> float | None:
    """Accuracy of guessing: 1/k on the in-context tasks, 1/classes on template matching."""
    if task == "memorization":
        return None
    t = recipe(task, scale).task
    return 1 / t.k if task in ("reasoning", "contextual") else 1 / t.n_classes


def curve_panels(result: Result, init: str, metric: str, axes, with_chance: bool = True) -> None:
    """One panel per task (in :data:`TASKS` order) of ``metric`` ("acc" or "loss") against
    training steps; a task missing from ``result`` leaves its panel hidden."""
    for ax, task in zip(axes, TASKS):
        try:
            runs = curves(result, task=task, init=init)
        except KeyError:
            ax.set_visible(False)
            continue
        steps = next(iter(runs.values())).steps
        values = {arch_label(arch): getattr(c, metric) for arch, c in runs.items()}
        base = chance(task, result.scale) if with_chance and metric == "acc" else None
        plots.curves(steps, values, ax=ax, ylabel="loss" if metric == "loss" else "accuracy", title=TITLES[task],
                     chance=base)
        if metric == "loss":
            ax.set_yscale("log")
