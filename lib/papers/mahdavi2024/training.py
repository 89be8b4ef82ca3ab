"""Training experiments of Mahdavi, Liao & Thrampoulidis (2024), Sec. 6 and Appendices H-I
(Figures 2-5): how many random labels one trained attention layer memorizes.

The model and recipe follow the official code (the paper leaves them out; reading notes,
Sec. 4.0): a trainable linear embedding plus sinusoidal positions, one layer of H heads with
query/key size d_h, d_v = 1 and W_O, logits scaled by 1/sqrt(d_model) (not d_h), the query
(position 0) masked from itself and read out by a linear decoder with bias; Adam with a linear
warm-up over the first 5% of steps from lr/100, then cosine decay to zero; evaluation on the
training set and early stop at 100% training accuracy (classification). "Memorization" is the
final training accuracy at a fixed number of examples T (or the training MSE, regression).

Two recipes, chosen by a config's ``recipe`` (issue 16; :mod:`lib.papers.mahdavi2024.comparison`
compares them). ``"official"`` (:mod:`lib.papers.mahdavi2024.official`) is the code's data
generator, initial weights, float32 sinusoidal table, minibatches (shuffled epochs drawn from
torch's global generator after the initialisation, when a config has a ``batch_size``) and
checkpoint rule (the lowest-loss evaluation), bit for bit. ``"ours"`` (the default) deviates in
all of them: torch's generator for the data, weights from N(0, 1/fan_in) (the code:
Xavier-uniform and ``nn.Linear``'s default), the table computed in float64, minibatches drawn
with replacement, the last evaluation. A config's ``steps`` counts updates; with ``epochs`` as
well (the paper scale: 500, as the code), a group of T examples trains
``max(epochs * T // batch_size, steps)`` updates, the code's rule
(:func:`~lib.papers.mahdavi2024.official.official_steps`). The default scale also shrinks the
budget: d = 16, full-batch training with lr 1e-2 and thousands rather than 50k-300k steps (the
notes' tested reduced configuration). All points of a sweep with
the same T, and all their seeds, train together as one ensemble of masked models
(:func:`train_group`); each seed has its own random dataset. The sweeps themselves (grids at
each scale) are in :mod:`lib.papers.mahdavi2024.sweeps`.
"""
from __future__ import annotations

import json
import math

import numpy as np
import torch

from ... import validate
from ...models import AttentionConfig, build_model
from ...tasks.base import Batch
from ...tasks.random_labels import query_context_data
from ...train import TrainConfig, train
from .construction import probe
from .official import N_CLASSES, best_checkpoint, official_data, official_epochs, official_init, official_steps

RECIPES = ("ours", "official")


def model_config(dim: int, context_size: int, n_heads: int, d_head: int, n_out: int = N_CLASSES, *,
                 official: bool = False) -> AttentionConfig:
    """The official code's ``BaselineAttention`` as a configuration of the shared model; with
    ``official``, its sinusoidal table computed in float32 as the code's (ours: float64, rounded)."""
    for name, value in (("dim", dim), ("context_size", context_size), ("n_heads", n_heads), ("d_head", d_head),
                        ("n_out", n_out)):
        validate.integer("model_config", name, value, minimum=1, maximum=validate.MAX_COUNT)
    validate.boolean("model_config", "official", official)
    return AttentionConfig(d_model=dim, n_out=n_out, n_layers=1, n_heads=n_heads, d_head=d_head, d_value=1,
                       attention="softmax", attn_scale=1.0 / math.sqrt(dim), combine="project", residual=False,
                       input="vectors", input_dim=dim, embedding="linear", positions="sinusoidal",
                       max_len=context_size + 1, masked_keys=(0,), readout="first", readout_bias=True,
                       **({"sinusoid_precision": "float32"} if official else {}))


# ----------------------------------------------------------------------------- one pass per T
def _point(owner: str, name: str, point, keys: tuple[str, ...] = ("T", "n", "H", "d_h")) -> dict:
    """A grid point: a dict with positive integers at ``keys``."""
    validate.instance(owner, name, point, dict)
    for key in keys:
        if key not in point:
            validate.fail(owner, name, "a grid point with keys " + ", ".join(keys), point)
        validate.integer(owner, f"{name}[{key!r}]", point[key], minimum=1, maximum=validate.MAX_COUNT)
    return point


def _points(owner: str, points, keys: tuple[str, ...] = ("T", "n", "H", "d_h")) -> list:
    if not isinstance(points, (list, tuple)):
        validate.fail(owner, "points", "a list of grid points", points, validate.ArgumentTypeError)
    if len(points) == 0:
        validate.fail(owner, "points", "a non-empty list of grid points", points)
    for i, p in enumerate(points):
        _point(owner, f"points[{i}]", p, keys)
    return points


def _config(owner: str, config) -> dict:
    validate.instance(owner, "config", config, dict)
    for key in ("dim", "steps", "eval_every"):
        if key not in config:
            validate.fail(owner, "config", f"a sweep config with {key!r}", sorted(config))
        validate.integer(owner, f"config[{key!r}]", config[key], minimum=0 if key == "steps" else 1)
    validate.integers(owner, "config['seeds']", config.get("seeds"), minimum=0)
    validate.real(owner, "config['lr']", config.get("lr"), above=0.0)
    if "epochs" in config:
        validate.integer(owner, "config['epochs']", config["epochs"], minimum=1)
        validate.integer(owner, "config['batch_size'] (a budget in epochs needs minibatches)", config.get("batch_size"),
                         minimum=1)
    return config


def group_steps(config: dict, T: int) -> int:
    """The updates a group of ``T`` examples trains: ``config["steps"]``, or with ``epochs`` the
    code's ``max(epochs * T // batch_size, steps)``."""
    _config("group_steps", config)
    validate.integer("group_steps", "T", T, minimum=1)
    if "epochs" not in config:
        return config["steps"]
    return official_steps(T, config["epochs"], config["steps"], config["batch_size"])


def train_group(config: dict, points: list[dict], *, device=None, progress: bool = True):
    """Train every (point, seed) of ``points`` (all with the same T) as one ensemble.

    Each member is a ``maskable`` model of the group's largest H, d_h and n, restricted to its
    own (:meth:`~lib.models.AttentionModel.restrict`), so it trains exactly as its smaller
    model would (``tests/test_train.py`` checks this); each seed has its own dataset, padded
    to the largest context with keys nobody attends to. ``config["recipe"]`` (default
    ``"ours"``) picks the data generator, the initial weights, the sinusoidal table and (with a
    ``batch_size``) the minibatches: the official recipe's shuffled epochs, each member's drawn
    from the generator its own run of the code would use. Returns the
    :class:`~lib.train.Run` and the members as ``(point, seed, dataset)``.
    """
    _config("train_group", config)
    _points("train_group", points)
    if len({p["T"] for p in points}) != 1:
        raise ValueError("train_group: all points of a group must share T")
    official = validate.choice("train_group", "recipe", config.get("recipe", "ours"), RECIPES) == "official"
    classes = config["labels"] == "classes"
    H_max, d_max, n_max = (max(p[k] for p in points) for k in ("H", "d_h", "n"))
    shape = model_config(config["dim"], n_max, H_max, d_max, N_CLASSES if classes else 1,
                         official=official).replace(maskable=True)
    epochs = official and config["batch_size"] is not None
    members, factories, datasets, orders = [], [], [], []
    for point in points:
        for seed in config["seeds"]:
            make_data = official_data if official else query_context_data
            data = make_data(point["T"], point["n"], config["dim"], context=config["context"], labels=config["labels"],
                             n_classes=N_CLASSES, seed=seed)
            data = Batch(torch.nn.functional.pad(data.x, (0, 0, 0, n_max - point["n"])), data.y)
            members.append((point, seed, data))
            datasets.append(data)
            factories.append(lambda s, p=point: _initial(shape, s, p, official).restrict(p["H"], p["d_h"], p["n"] + 1))
            if epochs:
                orders.append(official_epochs(shape, seed, point["H"], point["d_h"], config["eval_every"]))
    steps = group_steps(config, points[0]["T"])
    train_cfg = TrainConfig(steps=steps, lr=config["lr"], optimizer="adam", schedule="warmup_cosine",
                            warmup=max(1, steps // 20), batch_size=config["batch_size"],
                            loss="cross_entropy" if classes else "mse", eval_every=config["eval_every"],
                            stop_when=("train", "acc", 1.0) if classes and config["early_stop"] else None,
                            **({"batches": "epochs"} if epochs else {}))
    run = train(factories, [seed for _, seed, _ in members], train_cfg, datasets, evals={"train": datasets},
                device=device, progress=progress, desc=f"T={points[0]['T']}: {len(members)} models",
                epochs=orders if epochs else None)
    return run, members


def _initial(shape: AttentionConfig, seed: int, point: dict, official: bool):
    """A member's initial model: ours from ``build_model``, or the official code's weights for
    the point's own H and d_h (:func:`~lib.papers.mahdavi2024.official.official_init`)."""
    model = build_model(shape, seed=seed)
    return official_init(model, seed, point["H"], point["d_h"]) if official else model


def member_cost(point: dict, dim: int) -> int:
    """Multiply-adds per example of one member (:class:`~lib.models.AttentionModel` with the
    read-out row folded): the embedding of n + 1 tokens, then per head the query, the folded
    key, the scores, the value mix and W_V/W_O."""
    _point("member_cost", "point", point, ("n", "H", "d_h"))
    validate.integer("member_cost", "dim", dim, minimum=1, maximum=validate.MAX_COUNT)
    n, H, d_h = point["n"] + 1, point["H"], point["d_h"]
    return n * dim * dim + H * (2 * dim * d_h + 2 * n * dim + 2 * dim)


def buckets(points: list[dict], dim: int, max_padding: float | None) -> list[list[dict]]:
    """``points`` cut into ensembles that waste at most ``max_padding`` (a fraction) of their
    work on padding: sorted by :func:`member_cost`, a bucket grows while its members, each padded
    to the bucket's largest H, d_h and n, cost at most ``1 + max_padding`` times their own cost.
    ``None``: one ensemble (on a CPU, measured faster at the default sizes than buckets)."""
    _points("buckets", points, ("n", "H", "d_h"))
    validate.integer("buckets", "dim", dim, minimum=1, maximum=validate.MAX_COUNT)
    if max_padding is not None:
        validate.real("buckets", "max_padding", max_padding, minimum=0.0)
    if max_padding is None:
        return [list(points)]
    out: list[list[dict]] = []
    for point in sorted(points, key=lambda p: (member_cost(p, dim), p["H"], p["d_h"], p["n"])):
        bucket = out[-1] + [point] if out else None
        if bucket:
            padded = {k: max(p[k] for p in bucket) for k in ("H", "d_h", "n")}
            if len(bucket) * member_cost(padded, dim) <= (1 + max_padding) * sum(member_cost(p, dim) for p in bucket):
                out[-1] = bucket
                continue
        out.append([point])
    return out


def run_group(config: dict, points: list[dict], *, device=None, progress: bool = True) -> list[dict]:
    """The metrics of each of ``points`` (one T), trained as one masked ensemble, or as a few
    (:func:`train_group` per bucket of similar cost, :func:`buckets`) when ``config`` sets
    ``max_padding``: per-seed training accuracy and memorized count (classes) or training MSE
    (regression), and the step each seed stopped at; each ensemble's size and wall time are
    kept with its points."""
    _config("run_group", config)
    _points("run_group", points)
    outputs = {}
    for bucket in buckets(points, config["dim"], config.get("max_padding")):
        outputs.update(_run_bucket(config, bucket, device=device, progress=progress))
    return [outputs[json.dumps(p, sort_keys=True)] for p in points]


def _run_bucket(config: dict, points: list[dict], *, device=None, progress: bool = True) -> dict[str, dict]:
    run, members = train_group(config, points, device=device, progress=progress)
    official = config.get("recipe") == "official"  # the code reports its lowest-loss evaluation
    acc = best_checkpoint(run) if official else run.final("train", "acc")
    loss = best_checkpoint(run, metric="loss") if official else run.final("train", "loss")
    outputs = {}
    for k, (p, seed, data) in enumerate(members):
        row = outputs.setdefault(json.dumps(p, sort_keys=True), {"stopped_at": [], "seeds": []})
        row["stopped_at"].append(int(run.stopped_at[k]))
        row["seeds"].append(seed)
        if config["labels"] == "classes":
            row.setdefault("acc", []).append(float(acc[k]))
        else:
            row.setdefault("mse", []).append(float(loss[k]))
            row["label_var"] = float(np.var(data.y.numpy()))
        if config.get("saturation") and seed == config["seeds"][0]:
            row.update(saturation_stats(run.model(k), data, p["H"], p["n"]))
    for row_key, row in outputs.items():
        p = json.loads(row_key)
        row.update(steps=run.eval_steps[-1], group_size=len(members), group_wall_s=run.wall_s)
        if "acc" in row:
            row.update(memorized=[round(a * p["T"]) for a in row["acc"]], acc_mean=float(np.mean(row["acc"])))
        else:
            row["mse_mean"] = float(np.mean(row["mse"]))
    return outputs


def saturation_stats(model, batch, n_heads: int, context_size: int, threshold: float = 0.99) -> dict:
    """Appendix H (Fig. 3): the query's largest softmax coefficient per (example, head), the
    fraction of saturated pairs (max > 0.99, the code's rule) and per example the number of
    saturated heads (active heads and context keys only)."""
    validate.integer("saturation_stats", "n_heads", n_heads, minimum=1)
    validate.integer("saturation_stats", "context_size", context_size, minimum=1)
    validate.real("saturation_stats", "threshold", threshold, above=0.0, below=1.0)
    _, theta = probe(model, batch.x)
    top = theta[:, :n_heads, :context_size].max(-1)  # (T, H)
    saturated = top > threshold
    H = top.shape[1]
    return {"max_coefficient": np.round(top, 4).tolist(), "saturated_fraction": float(saturated.mean()),
            "examples_with_free_head": float((~saturated).any(1).mean()),
            "saturated_heads_hist": np.bincount(saturated.sum(1), minlength=H + 1).tolist()}


def _fit_points(owner: str, x: np.ndarray, y: np.ndarray) -> None:
    """The points of a line fit: one y per x and at least two distinct x."""
    if len(x) != len(y):
        validate.fail(owner, "y", f"one value per x ({len(x)})", f"{len(y)} values")
    if len(np.unique(x)) < 2:
        validate.fail(owner, "x", "at least 2 distinct values (a line has 2 parameters)", x.tolist())


def linear_fit(x, y) -> dict:
    """Least-squares line through ``(x, y)`` and its R^2 (Fig. 2a's reading); refuses fewer than
    two distinct x (no line is determined by them)."""
    x, y = validate.array("linear_fit", "x", x, 1), validate.array("linear_fit", "y", y, 1)
    _fit_points("linear_fit", x, y)
    if not np.ptp(x) ** 2 > 0:  # the spread underflows once squared: least squares cannot resolve it
        validate.fail("linear_fit", "x", "values spread enough for a least-squares line (spread^2 > 0)", x.tolist())
    try:
        slope, intercept = np.polyfit(x, y, 1)
    except np.linalg.LinAlgError:
        validate.fail("linear_fit", "x", "values spread enough for a least-squares line (the fit did not converge)",
                      x.tolist())
    residual = y - (slope * x + intercept)
    total = ((y - y.mean()) ** 2).sum()
    return {"slope": float(slope), "intercept": float(intercept),
            "r2": float(1 - (residual ** 2).sum() / total) if total > 0 else 1.0}
