"""The Figure 2 checks of the depth part (Chen & Zou 2024, :mod:`lib.papers.chen2024.checks.training`)
on synthetic results at the paper's own grid with five seeds: final accuracies shaped as the
paper describes them must pass, their negation must fail, and seed noise about the bounds the
checks read must be inconclusive (issue 32: checks that decide at any scale)."""
from __future__ import annotations

import numpy as np
import pytest

from lib.papers.chen2024 import setup
from lib.papers.chen2024.checks import training as checks
from lib.papers.chen2024.sweeps import SWEEPS
from lib.results import Result

SEEDS = 5


def synthetic(name: str, accuracy, seed: int = 0, noise: float = 0.002) -> Result:
    """Sweep ``name`` at the paper's grid with :data:`SEEDS` seeds: ``accuracy(task, layers, chance)``
    is each architecture's mean final accuracy; every seed adds N(0, noise^2), clipped to [0, 1]."""
    config, grid = SWEEPS[name].define("paper")
    config = dict(config, seeds=list(range(SEEDS)))
    rng = np.random.default_rng(seed)
    probe = Result(f"chen2024_{name}", "paper", {"config": config}, grid=grid, points=[])
    points = []
    for point in grid:
        task = setup.task_that_ran(probe, point["task"])
        chance = 1 / task.k if point["task"] == "reasoning" else 1 / task.n_classes
        runs = {}
        for arch in point["archs"]:
            finals = np.clip(accuracy(point["task"], len(arch), chance) + rng.normal(0, noise, SEEDS), 0.0, 1.0)
            acc = [[chance, float(f)] for f in finals]
            runs["x".join(map(str, arch))] = {"steps": [0, 100], "acc": acc, "loss": [[1.0, 0.1]] * SEEDS,
                                              "wall_s": 0.0}
        points.append({"point": point, "result": runs, "wall_s": 0.0})
    return Result(f"chen2024_{name}", "paper", {"config": config}, grid=grid, points=points)


def depth_needed(task: str) -> int:
    """Figure 2: one layer memorizes; QA and template matching need two; in-context template matching three."""
    return {"memorization": 1, "reasoning": 2, "generalization": 2, "contextual": 3}[task]


def paper(task, layers, chance):
    return 1.0 if layers >= depth_needed(task) else chance


def negation(task, layers, chance):  # depth does not help: every model at the 1-layer model's level
    return chance if task != "memorization" else 0.5


def at_bounds(task, layers, chance):  # each model's seeds scattered about the bound it is read against
    if layers >= depth_needed(task):
        return 0.99 if task != "contextual" else 0.95
    return chance + 0.05 if task != "contextual" else 0.6


def figure_2(result):
    return [checks.figure_2a(result), checks.figure_2b(result), checks.figure_2c(result), checks.figure_2d(result)]


@pytest.mark.parametrize("name", ["figure2", "figure2_paper_sizes"])
def test_figure_2_shape_passes_its_negation_fails_and_noise_is_inconclusive(name):
    run = figure_2 if name == "figure2" else lambda r: [checks.figure_2a_paper_sizes(r),
                                                         checks.figure_2b_paper_sizes(r),
                                                         checks.figure_2c_paper_sizes(r)]
    assert all(c.passed for c in run(synthetic(name, paper))), [c.ours for c in run(synthetic(name, paper))]
    assert all(c.verdict == "not reproduced" for c in run(synthetic(name, negation)))
    verdicts = [c.verdict for seed in range(10) for c in run(synthetic(name, at_bounds, seed, noise=0.02))]
    assert verdicts.count("inconclusive") >= len(verdicts) - 2 and "reproduced" not in verdicts, verdicts
