"""The training sweeps of Chen & Zou (2024), Figures 2 and 4-7 and Sec. 6.1, at three scales,
with typed accessors for their results.

``SWEEPS[name].result()`` loads (or runs) one; ``python -m lib.papers.chen2024 SCALE [NAME ...]``
runs them from the command line. A curves sweep stores, per grid point, one entry per
architecture (heads per layer, keyed ``"1x1x10"``) with accuracy and loss curves over seeds;
:func:`curves` returns them as :class:`Curves` keyed by the architecture tuple.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ... import scale as _scale
from ...results import Result, Sweep
from .training import TASKS, curves_point, one_layer_limit_point, parse_arch, recipe


def _seeds(scale: str) -> list[int]:
    return list(range(_scale.pick(smoke=2, default=3, paper=5, scale=scale)))


def recipes_config(scale: str) -> dict:
    """What fixes every curves sweep at ``scale``: seeds, and each task's recipe and instance."""
    return {"seeds": _seeds(scale), "recipes": {t: recipe(t, scale).train.to_dict() for t in TASKS},
            "tasks": {t: repr(recipe(t, scale).task) for t in TASKS},
            "init_std": {t: recipe(t, scale).init_std for t in TASKS}}


def _pick(scale: str, smoke, default, paper):
    return _scale.pick(smoke=smoke, default=default, paper=paper, scale=scale)


# ----------------------------------------------------------------------------- definitions
def figure2(scale: str) -> tuple[dict, list[dict]]:
    """Figure 2: 1-4 layers on the four tasks, with the paper's and with a random initialisation."""
    deep = [[1], [1, 1], [1, 1, 1]]
    archs = {
        "memorization": _pick(scale, [[1]], deep, deep),
        "reasoning": _pick(scale, [[1], [1, 1]], deep, deep),
        "generalization": _pick(scale, [[1], [1, 1]], deep, deep),
        "contextual": _pick(scale, [[2], [2, 2, 2]], [[2], [2, 2], [2, 2, 2], [2, 2, 2, 2]],
                            [[2], [2, 2], [2, 2, 2], [2, 2, 2, 2]]),
    }
    grid = [{"task": t, "init": "paper", "archs": archs[t]} for t in TASKS]
    three = ("reasoning", "generalization", "contextual")
    grid += [{"task": t, "init": "random", "archs": archs[t]} for t in _pick(scale, ("reasoning",), three, three)]
    return recipes_config(scale), grid


def heads(scale: str) -> tuple[dict, list[dict]]:
    """Figures 4-7: heads per layer on the four tasks (two tasks at the smoke scale)."""
    qa_tm = [[1, 1], [2, 2], [4, 4], [1, 4]]
    ictm = [[2, 2, 1], [2, 2, 2], [2, 2, 4], [2, 2, 2, 1], [2, 2, 2, 2]]
    grid = [
        {"task": "memorization", "init": "paper", "archs": _pick(scale, [[1], [4]], [[1], [2], [4]],
                                                                  [[1], [2], [4], [8]])},
        {"task": "reasoning", "init": "paper", "archs": _pick(scale, [[1, 1], [4, 4]], qa_tm, qa_tm)},
        {"task": "generalization", "init": "paper", "archs": _pick(scale, [[1, 1], [4, 4]], qa_tm, qa_tm)},
        {"task": "contextual", "init": "paper", "archs": _pick(scale, [[2, 2, 1], [2, 2, 2]], ictm, ictm)},
    ]
    if scale == "smoke":  # the smoke run checks the code path on two tasks only
        grid = [g for g in grid if g["task"] in ("memorization", "reasoning")]
    return recipes_config(scale), grid


FIGURE4_SGD_LRS = (1.0, 2.0, 3.0, 5.0, 7.0, 10.0, 15.0)


def figure4_sgd(scale: str) -> tuple[dict, list[dict]]:
    """Figure 4 with the paper's optimizer: memorization with 1, 2, 4 (and 8) heads trained by
    plain SGD, one grid point per learning rate. Heads are averaged (1/m), so each head's step
    shrinks with m and every head count needs its own learning rate: the chapter compares each
    at its best rate of the grid, as the separations paper does per architecture."""
    lrs = _pick(scale, [3.0, 10.0], list(FIGURE4_SGD_LRS), list(FIGURE4_SGD_LRS))
    archs = _pick(scale, [[1], [4]], [[1], [2], [4]], [[1], [2], [4], [8]])
    grid = [{"task": "memorization", "init": "paper", "archs": archs, "train_args": {"optimizer": "sgd", "lr": lr}}
            for lr in lrs]
    return recipes_config(scale), grid


def figure7_size(scale: str) -> tuple[int, int]:
    """Template length l and number of words (= answers) of Figure 7's several-k grid."""
    return _pick(scale, 3, 3, 5), _pick(scale, 10, 10, 100)


def figure7_k(scale: str) -> tuple[dict, list[dict]]:
    """Figure 7 for several k: last-layer heads 1, 2 and 2l, and a fourth layer."""
    l7, words7 = figure7_size(scale)
    archs = [[1, 1, 1], [1, 1, 2], [1, 1, 2 * l7], [1, 1, 1, 1], [1, 1, 1, 2 * l7]]
    archs = _pick(scale, [[1, 1, 1], [1, 1, 2 * l7]], archs, archs)
    grid = [{"task": "contextual", "init": "paper", "archs": archs, "steps_factor": _pick(scale, 0.4, 5.0, 5.0),
             "task_args": {"k": k, "length": l7, "n_words": words7, "n_answers": words7}}
            for k in _pick(scale, [2], [2, 3, 4], [2, 3, 4])]
    return recipes_config(scale), grid


def figure7_l5(scale: str) -> tuple[dict, list[dict]]:
    """Figure 7 at the paper's l = 5, k = 4 with the construction's head count [1, 1, 2l]
    (below the paper scale, where figure7_k already has l = 5: 10 words and answers)."""
    _, words7 = figure7_size(scale)
    grid = [{"task": "contextual", "init": "paper", "archs": [[1, 1, 10]], "steps_factor": 20.0,
             "task_args": {"k": 4, "length": 5, "n_words": words7, "n_answers": words7}}]
    return recipes_config(scale), grid


LIMIT_TASKS = ("reasoning", "generalization")


def one_layer_limits(scale: str) -> tuple[dict, list[dict]]:
    """Sec. 6.1 / Theorems 2 and 4 in training: wider and multi-head one-layer models."""
    config = dict(seeds=_seeds(scale), recipes={t: recipe(t, scale).train.to_dict() for t in LIMIT_TASKS},
                  sizes={t: repr(recipe(t, scale).task) for t in LIMIT_TASKS})
    models = _pick(scale,
                   [(1, 1, 0, "random"), (1, 4, 64, "random"), (2, 1, 0, "paper")],
                   [(1, 1, 0, "random"), (1, 4, 0, "random"), (1, 16, 0, "random"), (1, 1, 64, "random"),
                    (1, 4, 64, "random"), (2, 1, 0, "paper")],
                   [(1, 1, 0, "random"), (1, 4, 0, "random"), (1, 16, 0, "random"), (1, 1, 64, "random"),
                    (1, 4, 64, "random"), (1, 16, 64, "random"), (2, 1, 0, "paper")])
    grid = [dict(task=t, layers=layers, heads=heads, extra_rows=extra, init=init)
            for t in LIMIT_TASKS for layers, heads, extra, init in models]
    return config, grid


# ----------------------------------------------------------------------------- running
def run_curves(config: dict, points: list[dict], *, scale: str, device=None, stop_after=None) -> list[dict]:
    return [curves_point(p, config["seeds"], scale, device, stop_after) for p in points]


def run_limits(config: dict, points: list[dict], *, scale: str, device=None, stop_after=None) -> list[dict]:
    return [one_layer_limit_point(p, config["seeds"], scale, device) for p in points]


# The training curves may hold a NaN evaluation loss: ReLU attention (unnormalised) can push a
# deep model's logits to infinity on unseen test inputs while its training loss stays finite (the
# 3-layer model on template matching, Figure 2, does). Such a loss is stored as null, declared here.
SWEEPS: dict[str, Sweep] = {
    "figure2": Sweep("chen2024", "figure2", figure2, run_curves, truncatable=True, verify_by=("task", "init"),
                     about="Fig. 2: 1-4 layers on the four tasks, paper and random initialisation", nonfinite=True),
    "heads": Sweep("chen2024", "heads", heads, run_curves, truncatable=True, verify_by=("task",),
                   about="Figs. 4-7: heads per layer", nonfinite=True),
    "figure4_sgd": Sweep("chen2024", "figure4_sgd", figure4_sgd, run_curves, truncatable=True,
                         about="Fig. 4 with plain SGD: heads 1-4 (8), one point per learning rate", nonfinite=True),
    "figure7_k": Sweep("chen2024", "figure7_k", figure7_k, run_curves, truncatable=True,
                       about="Fig. 7 for k = 2, 3, 4 (l = 3 below the paper scale)", nonfinite=True),
    "figure7_l5": Sweep("chen2024", "figure7_l5", figure7_l5, run_curves, truncatable=True,
                        about="Fig. 7 at l = 5, k = 4, [1, 1, 10], 20x steps", nonfinite=True),
    "one_layer_limits": Sweep("chen2024", "one_layer_limits", one_layer_limits, run_limits, verify_by=("task", "layers"),
                              about="Sec. 6.1: one layer at chance on QA and TM, two layers solve them"),
}


def result(name: str, scale: str | None = None, *, device=None) -> Result:
    """Sweep ``name`` at ``scale`` (default: the current one), loaded or run (see :class:`Sweep`)."""
    return SWEEPS[name].result(scale, device=device)


# ----------------------------------------------------------------------------- accessors
@dataclass(frozen=True)
class Curves:
    """One architecture's training curves: accuracy and loss ``(seeds, evaluations)``."""

    steps: list[int]
    acc: np.ndarray
    loss: np.ndarray
    wall_s: float

    @property
    def final(self) -> np.ndarray:
        """Each seed's last evaluated accuracy."""
        return self.acc[:, -1]

    @property
    def speed(self) -> float:
        """Mean accuracy over training and seeds (the paper's "faster")."""
        return float(self.acc.mean())


def as_curves(runs: dict) -> dict[tuple[int, ...], Curves]:
    """A stored point's curves by architecture (heads per layer)."""
    return {parse_arch(key): Curves(v["steps"], np.array(v["acc"], dtype=float),  # null (declared NaN) -> nan
                                    np.array(v["loss"], dtype=float), v["wall_s"])
            for key, v in runs.items()}


def curves(result: Result, **point) -> dict[tuple[int, ...], Curves]:
    """The curves of the grid point with these coordinates (e.g. ``task="reasoning", init="paper"``)."""
    return as_curves(result.get(**point))


def speeds_by_lr(result: Result) -> dict[tuple[int, ...], dict[float, np.ndarray]]:
    """A learning-rate sweep (points with ``train_args["lr"]``): each seed's speed (mean
    accuracy over training) for each architecture at each learning rate."""
    out: dict = {}
    for point in result.grid:
        for arch, c in as_curves(result.get_exact(point)).items():
            out.setdefault(arch, {})[point["train_args"]["lr"]] = c.acc.mean(axis=1)
    return out


def final(result: Result, task: str, init: str, arch) -> np.ndarray:
    """Final accuracy per seed of one architecture at ``(task, init)``."""
    return curves(result, task=task, init=init)[tuple(arch)].final
