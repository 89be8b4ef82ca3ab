"""The Figure 2 checks of the depth part (Chen & Zou 2024, :mod:`lib.papers.chen2024.checks.training`)
on synthetic results at the paper's own grid with five seeds: final accuracies shaped as the
paper describes them must pass, their negation must fail, and seed noise about the bounds the
checks read must be inconclusive (issue 32: checks that decide at any scale)."""
from __future__ import annotations

import numpy as np
import pytest

from lib.papers.chen2024 import setup
from lib.papers.chen2024.checks import heads as checks_heads
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


# ----------------------------------------------------------------------------- Figures 4-7 (heads)
def curves_result(name: str, shape, seed: int = 0, noise: float = 0.002) -> Result:
    """Sweep ``name`` at the paper's grid with :data:`SEEDS` seeds, each architecture's curves
    built from ``shape(point, arch) = (final, speed)``: three evaluations whose last is the final
    accuracy and whose mean is the speed (mean accuracy over training), each seed's final and
    speed moved by N(0, noise^2)."""
    config, grid = SWEEPS[name].define("paper")
    config = dict(config, seeds=list(range(SEEDS)))
    rng = np.random.default_rng(seed)
    points = []
    for point in grid:
        runs = {}
        for arch in point["archs"]:
            final, speed = shape(point, tuple(arch))
            acc = []
            for _ in range(SEEDS):
                f = float(np.clip(final + rng.normal(0, noise), 0, 1))
                v = float(np.clip(speed + rng.normal(0, noise), f / 3, (2 + f) / 3))
                start = (3 * v - f) / 2
                acc.append([start, start, f])
            runs["x".join(map(str, arch))] = {"steps": [0, 50, 100], "acc": acc, "loss": [[1.0, 0.5, 0.1]] * SEEDS,
                                              "wall_s": 0.0}
        points.append({"point": point, "result": runs, "wall_s": 0.0})
    return Result(f"chen2024_{name}", "paper", {"config": config}, grid=grid, points=points)


def heads_paper(point, arch):
    """Figures 4-7 as the paper draws them: more heads memorize faster; QA and template matching
    the same for every head count; on IC-TM one last head fastest and a fourth layer faster still."""
    if point["task"] == "memorization":
        return 1.0, 0.5 + 0.05 * arch[0]
    if point["task"] != "contextual":
        return 1.0, 0.8
    return 1.0, {(2, 2, 1): 0.85, (2, 2, 2, 1): 0.95, (2, 2, 2, 2): 0.8}.get(arch, 0.7)


def heads_negation(point, arch):
    if point["task"] == "memorization":
        return 1.0, 0.9 - 0.05 * arch[0]
    if point["task"] != "contextual":
        return (1.0, 0.8) if arch == (1, 1) else (0.3, 0.3)
    return (0.3, 0.3) if arch[-1] == 1 else (1.0, 0.8)


def sgd_shape(faster_with_heads: bool):
    def shape(point, arch):
        h, lr = arch[0], point["train_args"]["lr"]
        base = 0.5 + 0.05 * (h if faster_with_heads else 8 - h)
        return 1.0, base - 0.05 * abs(np.log(lr / (2.0 * h)))
    return shape


def k_paper(point, arch):
    """Figure 7 for several k: every model learns; one last head fastest; a fourth layer faster."""
    return 1.0, {(1, 1, 1): 0.9, (1, 1, 2): 0.8, (1, 1, 10): 0.6, (1, 1, 1, 1): 0.95, (1, 1, 1, 10): 0.7}[arch]


def k_negation(point, arch):  # only the construction's 2l heads learn, and a fourth layer slows them
    chance = 1 / point["task_args"]["k"]
    return {(1, 1, 10): (1.0, 0.7), (1, 1, 1, 10): (1.0, 0.5)}.get(arch, (chance, chance))


def noise(point, arch):
    """The same for every model: finals at the bound each check reads (0.95 on IC-TM, else 0.99)."""
    return (0.95 if point["task"] == "contextual" else 0.99), 0.6


def heads_checks(heads, sgd):
    return [checks_heads.figures_5_6(heads), checks_heads.figure_7(heads), checks_heads.figure_4(heads, sgd)]


def k_checks(by_k):
    return [checks_heads.figure_7_several_k(by_k), checks_heads.figure_7_last_heads(by_k),
            checks_heads.figure_7_four_layers(by_k)]


def test_heads_checks_shape_passes_negation_fails_noise_inconclusive():
    shape = heads_checks(curves_result("heads", heads_paper), curves_result("figure4_sgd", sgd_shape(True)))
    assert all(c.passed for c in shape), [(c.ref, c.ours) for c in shape if not c.passed]
    negated = heads_checks(curves_result("heads", heads_negation), curves_result("figure4_sgd", sgd_shape(False)))
    assert all(c.verdict == "not reproduced" for c in negated), [(c.ref, c.verdict) for c in negated]
    verdicts = [c.verdict for seed in range(10) for c in heads_checks(curves_result("heads", noise, seed, 0.02),
                                                                      curves_result("figure4_sgd", noise, seed, 0.02))]
    assert verdicts.count("inconclusive") >= len(verdicts) - 2 and "reproduced" not in verdicts, verdicts


def test_several_k_checks_shape_passes_negation_fails_noise_inconclusive():
    assert all(c.passed for c in k_checks(curves_result("figure7_k", k_paper)))
    negated = k_checks(curves_result("figure7_k", k_negation))
    assert negated[0].passed and [c.verdict for c in negated[1:]] == ["not reproduced"] * 2  # 2l heads learn
    nothing = k_checks(curves_result("figure7_k", lambda p, a: (1 / p["task_args"]["k"],) * 2))
    assert nothing[0].verdict == "not reproduced" and nothing[2].verdict == "inconclusive"  # no pair to compare
    verdicts = [c.verdict for seed in range(10) for c in k_checks(curves_result("figure7_k", noise, seed, 0.02))]
    assert verdicts.count("inconclusive") >= len(verdicts) - 2 and "reproduced" not in verdicts, verdicts


@pytest.mark.parametrize("name", ["figure7_l5", "figure7_paper_sizes"])
def test_learned_checks_shape_passes_negation_fails_noise_inconclusive(name):
    check = checks_heads.figure_7_l5 if name == "figure7_l5" else checks_heads.figure_7_paper_instance
    assert check(curves_result(name, lambda p, a: (1.0, 0.8))).passed
    assert check(curves_result(name, lambda p, a: (0.25, 0.25))).verdict == "not reproduced"
    verdicts = [check(curves_result(name, lambda p, a: (0.5, 0.4), seed, 0.2)).verdict for seed in range(10)]
    assert verdicts.count("inconclusive") >= 9, verdicts


# ----------------------------------------------------------------------------- Sec. 6.1
def limits_result(accuracy, seed: int = 0, noise: float = 0.002) -> Result:
    """``one_layer_limits`` at the paper's grid, five seeds; ``accuracy(point, chance)`` per point."""
    from lib.papers.chen2024.training import recipe

    config, grid = SWEEPS["one_layer_limits"].define("paper")
    config = dict(config, seeds=list(range(SEEDS)))
    rng = np.random.default_rng(seed)
    points = []
    for point in grid:
        task = recipe(point["task"], "paper").task
        chance = 1 / task.k if point["task"] == "reasoning" else 1 / task.n_classes
        acc = np.clip(accuracy(point, chance) + rng.normal(0, noise, SEEDS), 0, 1).tolist()
        points.append({"point": point, "result": {"acc": acc, "mean_acc": float(np.mean(acc)), "d_model": 1,
                                                  "wall_s": 0.0}, "wall_s": 0.0})
    return Result("chen2024_one_layer_limits", "paper", {"config": config}, grid=grid, points=points)


def test_section_6_1_shape_passes_negation_fails_noise_inconclusive():
    from lib.papers.chen2024.checks import limits

    assert limits.section_6_1(limits_result(lambda p, c: 1.0 if p["layers"] == 2 else c)).passed
    wide_learns = limits_result(lambda p, c: 1.0 if p["layers"] == 2 or p["extra_rows"] else c)
    assert limits.section_6_1(wide_learns).verdict == "not reproduced"
    verdicts = [limits.section_6_1(limits_result(lambda p, c: 0.99 if p["layers"] == 2 else c + 0.05, seed, 0.02))
                .verdict for seed in range(10)]
    assert verdicts.count("inconclusive") >= 9, verdicts
