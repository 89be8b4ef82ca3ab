"""Training experiments of Mahdavi, Liao & Thrampoulidis (2024), Sec. 6 and Appendices H-I
(Figures 2-5): how many random labels one trained attention layer memorizes.

The model and recipe follow the official code (the paper leaves them out; reading notes,
Sec. 4.0): a trainable linear embedding plus sinusoidal positions, one layer of H heads with
query/key size d_h, d_v = 1 and W_O, logits scaled by 1/sqrt(d_model) (not d_h), the query
(position 0) masked from itself and read out by a linear decoder with bias; Adam with a linear
warm-up over the first 5% of steps from lr/100, then cosine decay to zero; evaluation on the
training set and early stop at 100% training accuracy (classification). "Memorization" is the
final training accuracy at a fixed number of examples T (or the training MSE, regression).

Our deviations, kept in each result's config: weights start from N(0, 1/fan_in) (the code:
Xavier-uniform); the default scale uses d = 16, full-batch training with lr 1e-2 and
thousands rather than 50k-300k steps (the notes' tested reduced configuration). All points of a
sweep with the same T, and all their seeds, train together as one ensemble of masked models
(:func:`train_group`); each seed has its own random dataset.
"""
from __future__ import annotations

import json
import math

import numpy as np
import torch

from .. import scale as _scale
from ..constructions.memorization import probe
from ..models import ModelConfig, build_model
from ..tasks.base import Batch
from ..tasks.memorization import query_context_data
from ..train import TrainConfig, train

N_CLASSES = 100


def model_config(dim: int, context_size: int, n_heads: int, d_head: int, n_out: int = N_CLASSES) -> ModelConfig:
    """The official code's ``BaselineAttention`` as a configuration of the shared model."""
    return ModelConfig(d_model=dim, n_out=n_out, n_layers=1, n_heads=n_heads, d_head=d_head, d_value=1,
                       attention="softmax", attn_scale=1.0 / math.sqrt(dim), combine="project", residual=False,
                       input="vectors", input_dim=dim, embedding="linear", positions="sinusoidal",
                       max_len=context_size + 1, masked_keys=(0,), readout="first", readout_bias=True)


# ----------------------------------------------------------------------------- recipes
def recipe(size: str) -> dict:
    """Model width, optimiser and budget at one scale (JSON-able; goes into each config)."""
    if size == "paper":  # the official code: d = 64, batch 256, lr 1e-3, >= 50k steps
        return dict(dim=64, lr=1e-3, batch_size=256, steps=50_000, long_steps=300_000, eval_every=500,
                    seeds=[42, 43, 44])
    if size == "smoke":
        return dict(dim=16, lr=1e-2, batch_size=None, steps=250, long_steps=400, eval_every=50, seeds=[0, 1])
    return dict(dim=16, lr=1e-2, batch_size=None, steps=2000, long_steps=3000, eval_every=100, seeds=[0, 1, 2, 3])


def sweep(name: str, size: str | None = None) -> tuple[dict, list[dict]]:
    """``(config, grid)`` of one experiment at one scale, for :func:`lib.results.load_or_run`.

    Names: ``fig2a`` (heads H), ``fig2b`` (context size n), ``fig2c`` (head size d_h) with
    shared contexts and 100 classes; ``fig4_heads``/``fig4_context`` (per-example contexts,
    classes), ``fig4_reg_heads``/``fig4_reg_context`` (per-example contexts, regression);
    ``fig5_heads``/``fig5_context`` (shared contexts, regression); ``fig3`` (saturation).
    Paper sizes are the official ``reproduce.sh`` grids.
    """
    size = _scale.validate(size or _scale.current())
    r = recipe(size)
    paper, smoke = size == "paper", size == "smoke"
    heads = [1, 5, 10, 20, 30, 40, 50, 60] if paper else ([1, 2, 3, 4] if smoke else [1, 2, 4, 6, 8])
    ctx = [1, 5, 10, 20, 30, 40, 50, 60] if paper else ([1, 2, 4] if smoke else [1, 2, 4, 8, 12])
    n_fix, h_fix = (32, 20) if paper else ((4, 2) if smoke else (8, 4))
    dh_fix = 64 if paper else r["dim"]
    base = dict(context="shared", labels="classes", early_stop=True, steps=r["steps"], **{
        k: v for k, v in r.items() if k not in ("steps", "long_steps")})

    def grid(Ts, key, values, **fixed):
        return [dict(T=T, **fixed, **{key: v}) for T in Ts for v in values]

    def pick(smoke_, default_, paper_):
        return paper_ if paper else (smoke_ if smoke else default_)

    if name == "fig2a":
        return base, grid(pick([80], [200, 400], [10_000, 20_000, 30_000, 40_000]), "H", heads, n=n_fix, d_h=dh_fix)
    if name == "fig2b":
        return base, grid(pick([60], [200, 400], [6000, 10_000, 14_000, 18_000]), "n", ctx, H=h_fix, d_h=dh_fix)
    if name == "fig2c":
        dhs = list(range(10, 61, 5)) + [64] if paper else ([1, 2, 4, 8] if smoke else [1, 2, 4, 8, 16])
        cfg = dict(base, steps=r["long_steps"])
        return cfg, grid(pick([60], [200], [10_000, 15_000, 20_000]), "d_h", dhs, H=30 if paper else h_fix,
                         n=n_fix)
    if name == "fig3":
        cfg = dict(base, steps=pick(800, 5000, 300_000), early_stop=False, saturation=True)
        points = pick([dict(T=30, H=4)], [dict(T=120, H=4), dict(T=250, H=8)], [dict(T=550, H=4),
                                                                               dict(T=1300, H=8)])
        return cfg, [dict(p, n=n_fix, d_h=dh_fix) for p in points]
    if name in ("fig4_heads", "fig4_context"):
        cfg = dict(base, context="per_example")
        if name == "fig4_heads":
            return cfg, grid(pick([80], [200, 400], [30_000, 50_000, 70_000, 90_000, 110_000, 130_000]), "H",
                             heads, n=n_fix, d_h=dh_fix)
        return cfg, grid(pick([60], [200, 400], [20_000, 30_000, 40_000, 50_000, 60_000]), "n", ctx, H=h_fix,
                         d_h=dh_fix)
    if name in ("fig4_reg_heads", "fig4_reg_context", "fig5_heads", "fig5_context"):
        cfg = dict(base, labels="reals", early_stop=False, steps=r["long_steps"],
                   context="per_example" if name.startswith("fig4") else "shared")
        if name.startswith("fig4"):
            Ts = pick([40], [100, 200], [10_000, 30_000, 50_000, 70_000, 90_000])
        else:
            Ts = pick([40], [50, 100], [10_000, 15_000, 20_000, 25_000, 30_000] if name == "fig5_heads"
                      else [10_000, 15_000, 20_000, 25_000])
        if name.endswith("heads"):
            return cfg, grid(Ts, "H", heads, n=n_fix, d_h=dh_fix)
        return cfg, grid(Ts, "n", ctx, H=h_fix, d_h=dh_fix)
    raise ValueError(f"sweep: unknown experiment {name!r}")


SWEEPS = ("fig2a", "fig2b", "fig2c", "fig3", "fig4_heads", "fig4_context", "fig4_reg_heads", "fig4_reg_context",
          "fig5_heads", "fig5_context")


# ----------------------------------------------------------------------------- one pass per T
def train_group(config: dict, points: list[dict], *, device=None, progress: bool = True):
    """Train every (point, seed) of ``points`` (all with the same T) as one ensemble.

    Each member is a ``maskable`` model of the group's largest H, d_h and n, restricted to its
    own (:meth:`~lib.models.AttentionModel.restrict`), so it trains exactly as its smaller
    model would (``tests/test_train.py`` checks this); each seed has its own dataset, padded
    to the largest context with keys nobody attends to. Returns the
    :class:`~lib.train.Run` and the members as ``(point, seed, dataset)``.
    """
    if len({p["T"] for p in points}) != 1:
        raise ValueError("train_group: all points of a group must share T")
    classes = config["labels"] == "classes"
    H_max, d_max, n_max = (max(p[k] for p in points) for k in ("H", "d_h", "n"))
    shape = model_config(config["dim"], n_max, H_max, d_max, N_CLASSES if classes else 1).replace(maskable=True)
    members, factories, datasets = [], [], []
    for point in points:
        for seed in config["seeds"]:
            data = query_context_data(point["T"], point["n"], config["dim"], context=config["context"],
                                      labels=config["labels"], n_classes=N_CLASSES, seed=seed)
            data = Batch(torch.nn.functional.pad(data.x, (0, 0, 0, n_max - point["n"])), data.y)
            members.append((point, seed, data))
            datasets.append(data)
            factories.append(lambda s, p=point: build_model(shape, seed=s).restrict(p["H"], p["d_h"], p["n"] + 1))
    steps = config["steps"]
    train_cfg = TrainConfig(steps=steps, lr=config["lr"], optimizer="adam", schedule="warmup_cosine",
                            warmup=max(1, steps // 20), batch_size=config["batch_size"],
                            loss="cross_entropy" if classes else "mse", eval_every=config["eval_every"],
                            stop_when=("train", "acc", 1.0) if classes and config["early_stop"] else None)
    run = train(factories, [seed for _, seed, _ in members], train_cfg, datasets, evals={"train": datasets},
                device=device, progress=progress, desc=f"T={points[0]['T']}: {len(members)} models")
    return run, members


_GROUPS: dict[str, dict] = {}  # results of the last group trained, by point (see run_point)


def run_point(config: dict, point: dict, grid: list[dict] | None = None, *, device=None) -> dict:
    """One grid point's metrics: per-seed training accuracy and memorized count (classes) or
    training MSE (regression), and the step each seed stopped at.

    With ``grid``, the first point of each T trains every point of the grid with that T in one
    ensemble (:func:`train_group`) and keeps the others' results for their turn; the group's
    wall time is counted once, at that first point.
    """
    key = json.dumps([config, point], sort_keys=True)
    if key in _GROUPS:
        return _GROUPS.pop(key)
    group = [g for g in (grid or [point]) if g["T"] == point["T"]]
    if point not in group:
        group = [point]
    run, members = train_group(config, group, device=device)
    outputs = {}
    for k, (p, seed, data) in enumerate(members):
        row = outputs.setdefault(json.dumps([config, p], sort_keys=True), {"stopped_at": [], "seeds": []})
        row["stopped_at"].append(int(run.stopped_at[k]))
        row["seeds"].append(seed)
        if config["labels"] == "classes":
            row.setdefault("acc", []).append(float(run.final("train", "acc")[k]))
        else:
            row.setdefault("mse", []).append(float(run.final("train", "loss")[k]))
            row["label_var"] = float(np.var(data.y.numpy()))
        if config.get("saturation") and seed == config["seeds"][0]:
            row.update(saturation_stats(run.model(k), data, p["H"], p["n"]))
    for row_key, row in outputs.items():
        p = json.loads(row_key)[1]
        row.update(steps=run.eval_steps[-1], group_size=len(members), group_wall_s=run.wall_s)
        if "acc" in row:
            row.update(memorized=[round(a * p["T"]) for a in row["acc"]], acc_mean=float(np.mean(row["acc"])))
        else:
            row["mse_mean"] = float(np.mean(row["mse"]))
        _GROUPS[row_key] = row
    return _GROUPS.pop(key)


def saturation_stats(model, batch, n_heads: int, context_size: int, threshold: float = 0.99) -> dict:
    """Appendix H (Fig. 3): the query's largest softmax coefficient per (example, head), the
    fraction of saturated pairs (max > 0.99, the code's rule) and per example the number of
    saturated heads (active heads and context keys only)."""
    _, theta = probe(model, batch.x)
    top = theta[:, :n_heads, :context_size].max(-1)  # (T, H)
    saturated = top > threshold
    H = top.shape[1]
    return {"max_coefficient": np.round(top, 4).tolist(), "saturated_fraction": float(saturated.mean()),
            "examples_with_free_head": float((~saturated).any(1).mean()),
            "saturated_heads_hist": np.bincount(saturated.sum(1), minlength=H + 1).tolist()}


def linear_fit(x, y) -> dict:
    """Least-squares line through ``(x, y)`` and its R^2 (Fig. 2a's reading)."""
    x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    slope, intercept = np.polyfit(x, y, 1)
    residual = y - (slope * x + intercept)
    total = ((y - y.mean()) ** 2).sum()
    return {"slope": float(slope), "intercept": float(intercept),
            "r2": float(1 - (residual ** 2).sum() / total) if total > 0 else 1.0}


# ----------------------------------------------------------------------------- the store
def result(name: str, size: str | None = None, *, device=None):
    """Experiment ``name`` at ``size`` from ``data/memorization_<name>.<size>.json``, run (or
    resumed) if it is missing; at the default scale a complete paper-scale result wins."""
    from .. import results

    config, grid = sweep(name, size)
    return results.load_or_run(f"memorization_{name}", config, grid,
                               lambda p: run_point(config, p, grid, device=device),
                               heavy=True, scale=size)


if __name__ == "__main__":  # python -m lib.experiments.memorization [size] [names...]
    import sys

    from ..runtime import pick_device

    size = sys.argv[1] if len(sys.argv) > 1 else None
    for experiment in sys.argv[2:] or SWEEPS:
        print(result(experiment, size, device=pick_device()).label(), flush=True)
