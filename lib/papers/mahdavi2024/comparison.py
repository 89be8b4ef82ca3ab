"""Our training recipe against the official code's (issue 16), on the configuration where the two
first disagreed: shared context, d = d_model = d_h = 16, n = 8, 100 classes, T = 200 examples,
Adam lr 1e-3 (5% warm-up from lr/100, then cosine), every step the full set, 20,000 steps,
evaluation every 500 and early stop at 100% training accuracy.

A *recipe* is the official one (:mod:`lib.papers.mahdavi2024.official`: its data, its initial
weights, its float32 sinusoidal table, its checkpoint rule; every step the full set, as the
code's one shuffled batch of all T = 200 < 256 examples is up to the order of a sum) with some
ingredients of ours swapped in: our data generator (``"data"``), our whole initialisation
(``"init"``) or one part of it (a key of :data:`INIT_PARTS`); ``"ours"`` is our whole recipe,
our float64 table included. ``OFFICIAL_CODE`` holds what the official code itself reported on this
configuration, run by hand: the reference, like a paper's value.
"""
from __future__ import annotations

import numpy as np

from ... import validate
from ...models import build_model
from ...results import Result
from ...tasks.random_labels import query_context_data
from ...train import TrainConfig, train
from .official import N_CLASSES, best_checkpoint, official_data, official_init
from .training import model_config

#: the model's weights in four parts; a recipe may take any part's initialisation from ours
INIT_PARTS = {"embedding": ("W_in", "b_in"), "W_Q, W_K": ("layers.0.attn.W_Q", "layers.0.attn.W_K"),
              "W_V, W_O": ("layers.0.attn.W_V", "layers.0.attn.W_O"), "decoder": ("W_U", "b_U")}

#: each recipe differs from the official one in the listed ingredients only ("ours": all of them)
RECIPES = {"official": (), "our init": ("init",), "our data": ("data",), "ours": ("init", "data"),
           **{f"our {part}": (part,) for part in INIT_PARTS}}

#: the official code's training accuracy (its own rule) on this configuration, by H and seed
OFFICIAL_CODE = {1: {42: 0.040}, 2: {42: 0.200}, 4: {42: 0.385, 1: 0.400, 2: 0.555}, 8: {42: 1.000, 1: 1.000, 2: 0.985}}


def official_model(dim: int, context_size: int, n_heads: int, d_head: int, ours: tuple[str, ...] = ()):
    """``seed -> model`` with the official code's initialisation, for :func:`lib.train.train`;
    the parts named in ``ours`` (keys of :data:`INIT_PARTS`) start from our initialisation
    (:func:`lib.models.build_model`'s, N(0, 1/fan_in) weights and zero biases) instead."""
    if isinstance(ours, str) or not isinstance(ours, (tuple, list)):
        validate.fail("official_model", "ours", "a tuple of parts such as ('embedding',)", ours,
                      validate.ArgumentTypeError)
    for part in ours:
        validate.choice("official_model", "ours", part, tuple(INIT_PARTS))
    config = model_config(dim, context_size, n_heads, d_head, official=True)

    def make(seed: int):
        mine = build_model(config, seed=seed)
        kept = {name: mine.get_weight(name) for part in ours for name in INIT_PARTS[part]}
        return official_init(mine, seed).set_weights(kept)

    return make


def comparison(scale: str) -> tuple[dict, list[dict]]:
    """The configuration (module docstring) and one point per (recipe, H): the official recipe,
    our data, our initialisation and ours at H = 1, 2, 4, 8; each part of our initialisation
    alone at H = 4, where the gap is widest. The smoke scale runs a few steps of two points."""
    validate.choice("comparison", "scale", scale, ("smoke", "default", "paper"))
    smoke = scale == "smoke"
    config = dict(dim=16, n=8, d_h=16, T=200, lr=1e-3, steps=200 if smoke else 20_000, eval_every=50 if smoke else 500,
                  seeds=[42] if smoke else [42, 1, 2, 3, 4])
    if smoke:
        return config, [dict(recipe=r, H=1) for r in ("official", "ours")]
    whole = [dict(recipe=r, H=h) for r in ("official", "our init", "our data", "ours") for h in (1, 2, 4, 8)]
    return config, whole + [dict(recipe=f"our {part}", H=4) for part in INIT_PARTS]


def run_comparison(config: dict, points: list[dict], *, scale: str, device=None, stop_after=None) -> list[dict]:
    """The points of one H (every recipe, every seed) as one ensemble. Reports, per seed, the
    accuracy by the code's rule (``acc_best_loss_early``: the lowest-loss evaluation, leaving out
    the last 500 updates as the code's evaluation schedule does; :func:`best_checkpoint`), by
    that rule with the evaluation after the last update counted (``acc_best_loss``), the last
    evaluation's, and the step of the early stop (-1: none)."""
    owner = "run_comparison"
    validate.instance(owner, "config", config, dict)
    for key in ("dim", "n", "T", "d_h", "steps", "eval_every"):
        validate.integer(owner, f"config[{key!r}]", config.get(key), minimum=0 if key == "steps" else 1)
    validate.integers(owner, "config['seeds']", config.get("seeds"), minimum=0)
    validate.real(owner, "config['lr']", config.get("lr"), above=0.0)
    if not isinstance(points, (list, tuple)) or len(points) == 0:
        validate.fail(owner, "points", "a non-empty list of points", points)
    for i, point in enumerate(points):
        validate.instance(owner, f"points[{i}]", point, dict)
        validate.choice(owner, f"points[{i}]['recipe']", point.get("recipe"), tuple(RECIPES))
        validate.integer(owner, f"points[{i}]['H']", point.get("H"), minimum=1)
    d, n, T, seeds = config["dim"], config["n"], config["T"], config["seeds"]
    factories, data, members = [], [], []
    for point in points:
        swapped = RECIPES[point["recipe"]]
        shape = model_config(d, n, point["H"], config["d_h"], official=point["recipe"] != "ours")
        for seed in seeds:
            data.append(query_context_data(T, n, d, n_classes=N_CLASSES, seed=seed) if "data" in swapped
                        else official_data(T, n, d, seed=seed))
            factories.append((lambda s, c=shape: build_model(c, seed=s)) if "init" in swapped
                             else official_model(d, n, point["H"], config["d_h"], ours=tuple(
                                 part for part in swapped if part in INIT_PARTS)))
            members.append(seed)
    steps = config["steps"]
    train_config = TrainConfig(steps=steps, lr=config["lr"], optimizer="adam", schedule="warmup_cosine",
                               warmup=max(1, steps // 20), batch_size=None, eval_every=config["eval_every"],
                               stop_when=("train", "acc", 1.0))
    run = train(factories, members, train_config, data, {"train": data}, device=device, progress=False,
                stop_after=stop_after)
    best, last = best_checkpoint(run, last_update_counts=True), run.final("train")
    early = best_checkpoint(run)
    out = []
    for i, _ in enumerate(points):
        mine = slice(i * len(seeds), (i + 1) * len(seeds))
        out.append({"seeds": seeds, "acc_best_loss": best[mine].tolist(), "acc_best_loss_early": early[mine].tolist(),
                    "acc_last": last[mine].tolist(), "stopped_at": run.stopped_at[mine].tolist(),
                    "steps": run.eval_steps[-1]})
    return out


def _cells(owner: str, cells) -> dict:
    """``(recipe, H) -> accuracies`` as :func:`comparison_cells` gives them: non-empty, accuracies in [0, 1]."""
    validate.instance(owner, "cells", cells, dict)
    if not cells:
        validate.fail(owner, "cells", "a non-empty dict (recipe, H) -> accuracy per seed", cells)
    for key, values in cells.items():
        if not (isinstance(key, tuple) and len(key) == 2):
            validate.fail(owner, "cells", "keyed by (recipe, H)", key)
        a = validate.array(owner, f"cells[{key!r}]", values, ndim=1)
        if a.size == 0 or a.min() < 0 or a.max() > 1:
            validate.fail(owner, f"cells[{key!r}]", "a non-empty array of accuracies in [0, 1]", values)
    return cells


def comparison_cells(result) -> dict[tuple[str, int], np.ndarray]:
    """``(recipe, H) -> accuracy per seed`` (the code's rule) from the ``official_vs_ours`` result."""
    validate.instance("comparison_cells", "result", result, Result)
    return {(p["point"]["recipe"], p["point"]["H"]): np.array(p["result"]["acc_best_loss_early"], dtype=float)
            for p in result.points}


def comparison_seeds(result) -> list[int]:
    """The seeds of the ``official_vs_ours`` result, in the order of each cell's values."""
    validate.instance("comparison_seeds", "result", result, Result)
    return list(result.points[0]["result"]["seeds"])


def comparison_table(cells: dict):
    """Recipes by H: ``"mean (min-max)"`` over seeds, with the official code's runs as a last row."""
    import pandas as pd

    _cells("comparison_table", cells)
    heads = sorted({h for _, h in cells})
    recipes = list(dict.fromkeys(r for r, _ in cells))
    rows = {r: {f"H={h}": f"{cells[r, h].mean():.3f} ({cells[r, h].min():.3f}-{cells[r, h].max():.3f})"
                if (r, h) in cells else "" for h in heads} for r in recipes}
    rows["official code (by hand)"] = {f"H={h}": ", ".join(f"{v:.3f}" for v in OFFICIAL_CODE[h].values())
                                       for h in heads}
    return pd.DataFrame(rows).T.rename_axis("recipe")


def seed_by_seed(cells: dict, seeds: list[int]):
    """The official recipe against the official code at every (H, seed) both were run at: both
    accuracies and the difference in memorized examples (of T = 200)."""
    import pandas as pd

    _cells("seed_by_seed", cells)
    seeds = validate.integers("seed_by_seed", "seeds", seeds, minimum=0)
    rows = []
    for h, runs in OFFICIAL_CODE.items():
        for seed, code in runs.items():
            if ("official", h) not in cells or seed not in seeds:
                continue
            ours = float(cells["official", h][seeds.index(seed)])
            rows.append({"H": h, "seed": seed, "official recipe (ours)": ours, "official code": code,
                         "examples apart": round(200 * abs(ours - code))})
    return pd.DataFrame(rows).set_index(["H", "seed"])


def ablation(cells: dict, seeds: list[int], tolerance: float = 0.05) -> dict:
    """What the comparison says: whether the official recipe lands within ``tolerance`` of the
    official code at every (H, seed) the code was run at (``matched``, and the largest
    difference). A match is per seed, not on seed means: the same data and initial weights, the
    official recipe's training accuracy within 0.05 of the code's (10 of T = 200 examples) for
    each (H, seed) pair separately, since the two differ only in arithmetic (another processor's
    float32 rounding, evaluated one update apart). Also: each swapped recipe's mean accuracy above
    the official recipe's (averaged over the H it ran at; ``gap_seeds``: the same per seed, the
    cells of a seed sharing data and initial weights), and the single ingredient with the largest
    effect among those run at every H."""
    _cells("ablation", cells)
    seeds = validate.integers("ablation", "seeds", seeds, minimum=0)
    validate.real("ablation", "tolerance", tolerance, minimum=0.0)
    if not any(("official", h) in cells and seed in seeds for h, runs in OFFICIAL_CODE.items() for seed in runs):
        validate.fail("ablation", "cells", "cells with the official recipe at some (H, seed) the official code ran "
                      f"({ {h: list(r) for h, r in OFFICIAL_CODE.items()} })", sorted(cells))
    heads = sorted(h for r, h in cells if r == "official")
    recipes = list(dict.fromkeys(r for r, _ in cells))
    apart = {(h, seed): abs(float(cells["official", h][seeds.index(seed)]) - code)
             for h, runs in OFFICIAL_CODE.items() if h in heads for seed, code in runs.items() if seed in seeds}
    gap = {r: float(np.mean([cells[r, h].mean() - cells["official", h].mean() for h in heads if (r, h) in cells]))
           for r in recipes if any((r, h) in cells for h in heads)}
    gap_seeds = {r: np.mean([cells[r, h] - cells["official", h] for h in heads if (r, h) in cells], axis=0) for r in gap}
    single = [r for r in recipes if r not in ("official", "ours") and all((r, h) in cells for h in heads)]
    return {"matched": all(v <= tolerance + 1e-12 for v in apart.values()), "largest_apart": max(apart.values()),
            "compared": len(apart), "gap": gap, "gap_seeds": gap_seeds,
            "cause": max(single, key=lambda r: abs(gap[r])) if single else None}
