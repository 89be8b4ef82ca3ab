"""The training sweeps of Chen & Zou (2024), Figures 2 and 4-7 and Sec. 6.1, at three scales,
with typed accessors for their results.

``SWEEPS[name].result()`` loads (or runs) one; ``python -m lib.papers.chen2024 SCALE [NAME ...]``
runs them from the command line. A curves sweep stores, per grid point, one entry per
architecture (heads per layer, keyed ``"1x1x10"``) with accuracy and loss curves over seeds;
:func:`curves` returns them as :class:`Curves` keyed by the architecture tuple.

At the paper's own sizes (added later; provenance hashes only what a sweep's run function reaches,
so adding them here left the results above fresh):

``figure2_paper_sizes``: Figure 2a-c at Sec. 9.1's sizes (memorization: 500 words, 2,000 sequences
of length 6; in-context QA: 100 questions, 100 answers, k = 3; template matching: 210 words,
l = 3): one layer on memorization (Figure 2a's claim; a deeper model at d' = 508 costs minutes
per hundred full-batch steps on a CPU), 1, 2 and 3 layers on the other two, with the paper's
initialisation and with a random one. The default scale trains each task's default recipe (the
step budget of the reduced sizes) on three seeds; the paper scale trains the paper recipe (3x the
steps, five seeds), which is ``figure2``'s paper scale for these three tasks. Figure 2d's paper sizes
(d1 = d2 = 100, l = 5, k = 4) stay with the GPU: ``figure7_l5`` shows that even its 10-word
version needs 20x the steps, and ``figure7_paper_sizes`` five seeds at these sizes.

``figure7_paper_sizes``: Figure 7 at the paper's own instance (100 words, 100 answers, l = 5,
k = 4) with the construction's head count [1, 1, 2l] = [1, 1, 10], the run ``figure7_l5`` makes
with 10 words. Both scales train five seeds as one ensemble, the default scale for ``figure7_l5``'s
20,000 steps and the paper scale for 3x as long. A step of the five-member ensemble costs 0.75 s
on a 2-core CPU (about 4 hours for the default run), so its stored default result was trained on
a GPU (an H200, about 38 ms a step); its provenance names the device.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ... import scale as _scale
from ...scale import at
from ... import validate
from ...results import Result, Sweep
from .training import TASKS, curves_point, one_layer_limit_point, parse_arch, recipe


def _seeds(scale: str) -> list[int]:
    return list(range(_scale.pick(smoke=2, default=3, paper=5, scale=scale)))


def _decided_seeds(scale: str) -> list[int]:
    """Five seeds at the default scale too, for the sweeps whose checks decide over seeds (an
    interval over three seeds is wide: Student's t at 2 degrees of freedom is 4.3)."""
    return list(range(_scale.pick(smoke=2, default=5, paper=5, scale=scale)))


def recipes_config(scale: str) -> dict:
    """What fixes every curves sweep at ``scale``: seeds, and each task's recipe and instance."""
    return {"seeds": _seeds(scale), "recipes": {t: recipe(t, scale).train.to_dict() for t in TASKS},
            "tasks": {t: repr(recipe(t, scale).task) for t in TASKS},
            "init_std": {t: recipe(t, scale).init_std for t in TASKS}}




# ----------------------------------------------------------------------------- definitions
def figure2(scale: str) -> tuple[dict, list[dict]]:
    """Figure 2: 1-4 layers on the four tasks, with the paper's and with a random initialisation."""
    deep = [[1], [1, 1], [1, 1, 1]]
    archs = {
        "memorization": at(scale, [[1]], deep, deep),
        "reasoning": at(scale, [[1], [1, 1]], deep, deep),
        "generalization": at(scale, [[1], [1, 1]], deep, deep),
        "contextual": at(scale, [[2], [2, 2, 2]], [[2], [2, 2], [2, 2, 2], [2, 2, 2, 2]],
                            [[2], [2, 2], [2, 2, 2], [2, 2, 2, 2]]),
    }
    grid = [{"task": t, "init": "paper", "archs": archs[t]} for t in TASKS]
    three = ("reasoning", "generalization", "contextual")
    grid += [{"task": t, "init": "random", "archs": archs[t]} for t in at(scale, ("reasoning",), three, three)]
    return dict(recipes_config(scale), seeds=_decided_seeds(scale)), grid


def heads(scale: str) -> tuple[dict, list[dict]]:
    """Figures 4-7: heads per layer on the four tasks (two tasks at the smoke scale)."""
    qa_tm = [[1, 1], [2, 2], [4, 4], [1, 4]]
    ictm = [[2, 2, 1], [2, 2, 2], [2, 2, 4], [2, 2, 2, 1], [2, 2, 2, 2]]
    grid = [
        {"task": "memorization", "init": "paper", "archs": at(scale, [[1], [4]], [[1], [2], [4]],
                                                                  [[1], [2], [4], [8]])},
        {"task": "reasoning", "init": "paper", "archs": at(scale, [[1, 1], [4, 4]], qa_tm, qa_tm)},
        {"task": "generalization", "init": "paper", "archs": at(scale, [[1, 1], [4, 4]], qa_tm, qa_tm)},
        {"task": "contextual", "init": "paper", "archs": at(scale, [[2, 2, 1], [2, 2, 2]], ictm, ictm)},
    ]
    if scale == "smoke":  # the smoke run checks the code path on two tasks only
        grid = [g for g in grid if g["task"] in ("memorization", "reasoning")]
    return dict(recipes_config(scale), seeds=_decided_seeds(scale)), grid


FIGURE4_SGD_LRS = (1.0, 2.0, 3.0, 5.0, 7.0, 10.0, 15.0)


def figure4_sgd(scale: str) -> tuple[dict, list[dict]]:
    """Figure 4 with the paper's optimizer: memorization with 1, 2, 4 (and 8) heads trained by
    plain SGD, one grid point per learning rate. Heads are averaged (1/m), so each head's step
    shrinks with m and every head count needs its own learning rate: the chapter compares each
    at its best rate of the grid, as the separations paper does per architecture."""
    lrs = at(scale, [3.0, 10.0], list(FIGURE4_SGD_LRS), list(FIGURE4_SGD_LRS))
    archs = at(scale, [[1], [4]], [[1], [2], [4]], [[1], [2], [4], [8]])
    grid = [{"task": "memorization", "init": "paper", "archs": archs, "train_args": {"optimizer": "sgd", "lr": lr}}
            for lr in lrs]
    return dict(recipes_config(scale), seeds=_decided_seeds(scale)), grid


def figure7_size(scale: str) -> tuple[int, int]:
    """Template length l and number of words (= answers) of Figure 7's several-k grid."""
    return at(scale, 3, 3, 5), at(scale, 10, 10, 100)


def figure7_k(scale: str) -> tuple[dict, list[dict]]:
    """Figure 7 for several k: last-layer heads 1, 2 and 2l, and a fourth layer."""
    l7, words7 = figure7_size(scale)
    archs = [[1, 1, 1], [1, 1, 2], [1, 1, 2 * l7], [1, 1, 1, 1], [1, 1, 1, 2 * l7]]
    archs = at(scale, [[1, 1, 1], [1, 1, 2 * l7]], archs, archs)
    grid = [{"task": "contextual", "init": "paper", "archs": archs, "steps_factor": at(scale, 0.4, 5.0, 5.0),
             "task_args": {"k": k, "length": l7, "n_words": words7, "n_answers": words7}}
            for k in at(scale, [2], [2, 3, 4], [2, 3, 4])]
    return dict(recipes_config(scale), seeds=_decided_seeds(scale)), grid


def figure7_l5(scale: str) -> tuple[dict, list[dict]]:
    """Figure 7 at the paper's l = 5, k = 4 with the construction's head count [1, 1, 2l]
    (below the paper scale, where figure7_k already has l = 5: 10 words and answers), on five
    seeds at the default scale (:func:`_decided_seeds`)."""
    _, words7 = figure7_size(scale)
    grid = [{"task": "contextual", "init": "paper", "archs": [[1, 1, 10]], "steps_factor": 20.0,
             "task_args": {"k": 4, "length": 5, "n_words": words7, "n_answers": words7}}]
    return {**recipes_config(scale), "seeds": _decided_seeds(scale)}, grid


LIMIT_TASKS = ("reasoning", "generalization")


def one_layer_limits(scale: str) -> tuple[dict, list[dict]]:
    """Sec. 6.1 / Theorems 2 and 4 in training: wider and multi-head one-layer models."""
    config = dict(seeds=_decided_seeds(scale), recipes={t: recipe(t, scale).train.to_dict() for t in LIMIT_TASKS},
                  sizes={t: repr(recipe(t, scale).task) for t in LIMIT_TASKS})
    models = at(scale,
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
    return [curves_point(p, config["seeds"], scale, device, stop_after, config=config) for p in points]


def run_limits(config: dict, points: list[dict], *, scale: str, device=None, stop_after=None) -> list[dict]:
    return [one_layer_limit_point(p, config["seeds"], scale, device, config=config) for p in points]


# The training curves may hold a NaN evaluation loss: ReLU attention (unnormalised) can push a
# deep model's logits to infinity on unseen test inputs while its training loss stays finite (the
# 3-layer model on template matching, Figure 2, does). Such a loss is stored as null, declared here.
# ----------------------------------------------------------------------------- the paper's sizes
# Sec. 9.1's instances, as constructor arguments (``training.make_task(name, "paper")``; a test
# checks that the two agree)
PAPER_SIZES = {
    "memorization": dict(n_words=500, length=6, n_examples=2000),
    "reasoning": dict(n_questions=100, n_answers=100, k=3),
    "generalization": dict(n_words=210, length=3),
}
# Sec. 9.1's in-context template matching instance (Figures 2d and 7); a test checks it too
CONTEXTUAL_PAPER_SIZE = dict(k=4, length=5, n_words=100, n_answers=100)


def figure2_paper_sizes(scale: str | None = None) -> tuple[dict, list[dict]]:
    """``(config, grid)`` of Figure 2a-c at the paper's sizes (see the module docstring); the
    smoke scale keeps the sizes and trains one and two layers on in-context QA only, for 900 steps
    (1.8x its budget: two layers pass 99% after about 650 steps at these sizes)."""
    scale = _scale.validate(scale or _scale.current())
    deep = [[1], [1, 1], [1, 1, 1]]
    if scale == "smoke":
        grid = [{"task": "reasoning", "init": "paper", "archs": [[1], [1, 1]], "steps_factor": 1.8}]
    else:
        grid = [{"task": t, "init": "paper", "archs": [[1]] if t == "memorization" else deep} for t in PAPER_SIZES]
        grid += [{"task": t, "init": "random", "archs": deep} for t in ("reasoning", "generalization")]
    grid = [dict(g, task_args=PAPER_SIZES[g["task"]]) for g in grid]
    recipes = {t: recipe(t, scale, **sizes) for t, sizes in PAPER_SIZES.items()}
    config = {"seeds": _decided_seeds(scale), "recipes": {t: r.train.to_dict() for t, r in recipes.items()},
              "tasks": {t: repr(r.task) for t, r in recipes.items()},
              "init_std": {t: r.init_std for t, r in recipes.items()}}
    return config, grid


def figure7_paper_sizes(scale: str | None = None) -> tuple[dict, list[dict]]:
    """``(config, grid)`` of Figure 7 at the paper's instance (see the module docstring); the
    smoke scale keeps the sizes and trains one seed for 100 steps, a check of the code path."""
    scale = _scale.validate(scale or _scale.current())
    config = dict(recipes_config(scale), seeds=_scale.pick(smoke=[0], default=_decided_seeds(scale),
                                                           paper=_decided_seeds(scale), scale=scale))
    grid = [{"task": "contextual", "init": "paper", "archs": [[1, 1, 10]],
             "steps_factor": _scale.pick(smoke=0.2, default=20.0, paper=20.0, scale=scale),
             "task_args": CONTEXTUAL_PAPER_SIZE}]
    return config, grid


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
    "figure2_paper_sizes": Sweep("chen2024", "figure2_paper_sizes", figure2_paper_sizes, run_curves,
                                 truncatable=True, verify_by=("task", "init"), nonfinite=True,
                                 about="Fig. 2a-c at Sec. 9.1's sizes, 1-3 layers, paper and random init"),
    "figure7_paper_sizes": Sweep("chen2024", "figure7_paper_sizes", figure7_paper_sizes, run_curves,
                                 truncatable=True, nonfinite=True,
                                 about="Fig. 7 at the paper's 100 words, l=5, k=4, [1, 1, 10]"),
}


def result(name: str, scale: str | None = None, *, device=None) -> Result:
    """Sweep ``name`` at ``scale`` (default: the current one), loaded or run (see :class:`Sweep`)."""
    validate.choice("result", "name", name, tuple(SWEEPS))
    if scale is not None:
        validate.choice("result", "scale", scale, _scale.SCALES)
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
    validate.instance("as_curves", "runs", runs, dict)
    return {parse_arch(key): Curves(v["steps"], np.array(v["acc"], dtype=float),  # null (declared NaN) -> nan
                                    np.array(v["loss"], dtype=float), v["wall_s"])
            for key, v in runs.items()}


def curves(result: Result, **point) -> dict[tuple[int, ...], Curves]:
    """The curves of the grid point with these coordinates (e.g. ``task="reasoning", init="paper"``)."""
    validate.instance("curves", "result", result, Result)
    return as_curves(result.get(**point))


def speeds_by_lr(result: Result) -> dict[tuple[int, ...], dict[float, np.ndarray]]:
    """A learning-rate sweep (points with ``train_args["lr"]``): each seed's speed (mean
    accuracy over training) for each architecture at each learning rate."""
    validate.instance("speeds_by_lr", "result", result, Result)
    out: dict = {}
    for point in result.grid:
        for arch, c in as_curves(result.get_exact(point)).items():
            out.setdefault(arch, {})[point["train_args"]["lr"]] = c.acc.mean(axis=1)
    return out


def final(result: Result, task: str, init: str, arch) -> np.ndarray:
    """Final accuracy per seed of one architecture at ``(task, init)``."""
    validate.instance("final", "result", result, Result)
    return curves(result, task=task, init=init)[tuple(arch)].final
