"""Sweeps of Chen & Zou (2024) at the paper's own sizes on our recipes, added after the results
of :mod:`.sweeps` were stored (in a module of their own, so that adding them leaves those results
fresh; :func:`lib.results.paper_sweeps` merges both).

``figure2_paper_sizes``: Figure 2a-c at Sec. 9.1's sizes (memorization: 500 words, 2,000 sequences
of length 6; in-context QA: 100 questions, 100 answers, k = 3; template matching: 210 words,
l = 3): one layer on memorization (Figure 2a's claim; a deeper model at d' = 508 costs minutes
per hundred full-batch steps on a CPU), 1, 2 and 3 layers on the other two, with the paper's
initialisation and with a random one. The default scale trains each task's default recipe (the
step budget of the reduced sizes) on three seeds; the paper scale trains the paper recipe (3x the
steps, five seeds), which is ``figure2``'s paper scale for these three tasks. Figure 2d's paper sizes
(d1 = d2 = 100, l = 5, k = 4) stay with the GPU: ``figure7_l5`` shows that even its 10-word
version needs 20x the steps, and ``figure7_paper_sizes`` one seed at these sizes.

``figure7_paper_sizes``: Figure 7 at the paper's own instance (100 words, 100 answers, l = 5,
k = 4) with the construction's head count [1, 1, 2l] = [1, 1, 10], the run ``figure7_l5`` makes
with 10 words. A step costs 0.25-0.4 s on a 2-core CPU at these sizes (5-8x the 10-word task), so
the default scale trains one seed for ``figure7_l5``'s 20,000 steps (5,874 s on an AMD EPYC); the
paper scale trains five seeds for 3x as long.
"""
from __future__ import annotations

from ... import scale as _scale
from ...results import Sweep
from .sweeps import _seeds, recipes_config, run_curves
from .training import recipe

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
    config = {"seeds": _seeds(scale), "recipes": {t: r.train.to_dict() for t, r in recipes.items()},
              "tasks": {t: repr(r.task) for t, r in recipes.items()},
              "init_std": {t: r.init_std for t, r in recipes.items()}}
    return config, grid


def figure7_paper_sizes(scale: str | None = None) -> tuple[dict, list[dict]]:
    """``(config, grid)`` of Figure 7 at the paper's instance (see the module docstring); the
    smoke scale keeps the sizes and trains one seed for 100 steps, a check of the code path."""
    scale = _scale.validate(scale or _scale.current())
    config = dict(recipes_config(scale), seeds=_scale.pick(smoke=[0], default=[0], paper=_seeds("paper"), scale=scale))
    grid = [{"task": "contextual", "init": "paper", "archs": [[1, 1, 10]],
             "steps_factor": _scale.pick(smoke=0.2, default=20.0, paper=20.0, scale=scale),
             "task_args": CONTEXTUAL_PAPER_SIZE}]
    return config, grid


SWEEPS: dict[str, Sweep] = {
    "figure2_paper_sizes": Sweep("chen2024", "figure2_paper_sizes", figure2_paper_sizes, run_curves,
                                 truncatable=True, verify_by=("task", "init"), nonfinite=True,
                                 about="Fig. 2a-c at Sec. 9.1's sizes, 1-3 layers, paper and random init"),
    "figure7_paper_sizes": Sweep("chen2024", "figure7_paper_sizes", figure7_paper_sizes, run_curves,
                                 truncatable=True, nonfinite=True,
                                 about="Fig. 7 at the paper's 100 words, l=5, k=4, [1, 1, 10]"),
}
