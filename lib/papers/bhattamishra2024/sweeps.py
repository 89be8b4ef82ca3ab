"""The training experiments of Bhattamishra et al. (2024, Sec. 6, App. H) as named sweeps.

Each grid point trains one architecture at one length as one ensemble of the shared trainer:
every seed at every learning rate of a small grid is a member (the paper reports the best
learning rate per model; so do we, and we keep every member's curve to show that choice).
Evaluation is on examples of length exactly N (the paper's; training lengths vary for index
lookup). Architectures are named as the paper's labels: ``TF-(1,64)`` is a transformer with one
layer of width 64, ``LSTM-(1,64)`` an LSTM with one layer of 64 units.

=================  ========================================================================
sweep              what
=================  ========================================================================
``index_lookup``   Figure 2a/2b: accuracy against length and training curves (|Σ| = 4 on a
                   CPU, where the length effect shows at small N; the paper's |Σ| = 64)
``dyck``           Figure 2c: Dyck-(2,2), 1- and 2-layer transformers against an LSTM
=================  ========================================================================

``python -m lib.papers.bhattamishra2024 SCALE [NAME ...]`` runs them.
"""
from __future__ import annotations

import numpy as np

from ... import scale as _scale
from ...models import AttentionConfig, RecurrentConfig
from ...results import Result, Sweep
from ...tasks import BoundedDyck, VariableLengthIndexLookup
from ...train import TrainConfig, train


def _pick(scale: str, smoke, default, paper):
    return _scale.pick(smoke=smoke, default=default, paper=paper, scale=scale)


def architecture(name: str, vocab_size: int, n_out: int, max_len: int):
    """The model config for a paper-style label ``"TF-(layers,width)"`` or ``"LSTM-(layers,width)"``:
    a GPT-2-style pre-LayerNorm causal transformer (4 heads, MLP 4x, learned positions) or an LSTM."""
    kind, sizes = name.split("-", 1)
    layers, width = (int(v) for v in sizes.strip("()").split(","))
    if kind == "TF":
        return AttentionConfig(d_model=width, n_out=n_out, n_layers=layers, n_heads=4, d_mlp=4 * width, norm="pre",
                               causal=True, vocab_size=vocab_size, positions="learned", max_len=max_len,
                               readout="last", readout_bias=True)
    if kind == "LSTM":
        return RecurrentConfig(d_model=width, n_out=n_out, cell="lstm", n_layers=layers, vocab_size=vocab_size,
                               max_len=max_len)
    raise ValueError(f"architecture: unknown model {name!r}; use TF-(L,d) or LSTM-(L,d)")


def _train_point(config: dict, arch: str, task, eval_task, device=None, stop_after=None) -> dict:
    """Train every (seed, learning rate) member of one architecture on ``task``; curves on
    ``eval_task``, and the learning rate with the best mean final accuracy."""
    seeds, lrs = config["seeds"], config["lrs"]
    members = [(s, lr) for lr in lrs for s in seeds]
    model = architecture(arch, len(task.vocab), task.n_classes, task.seq_len)
    recipe = TrainConfig(steps=config["steps"], lr=tuple(lr for _, lr in members), batch_size=config["batch_size"],
                         eval_every=config["eval_every"], eval_size=config["eval_size"])
    run = train(model, [1000 * i + s for i, (s, _) in enumerate(members)], recipe, task, evals={"test": eval_task},
                device=device, progress=False, stop_after=stop_after)
    acc = run.metrics["test"]["acc"]
    final = {lr: float(np.mean([acc[i, -1] for i, (_, l) in enumerate(members) if l == lr])) for lr in lrs}
    best = max(lrs, key=lambda lr: final[lr])
    return {"eval_steps": run.eval_steps, "acc": acc.tolist(), "lr": [lr for _, lr in members],
            "seed": [s for s, _ in members], "final_by_lr": {str(lr): v for lr, v in final.items()},
            "best_lr": best, "best_final": final[best], "params": int(sum(p.numel() for p in run.model(0).parameters())),
            "wall_s": run.wall_s}


# ----------------------------------------------------------------------------- index lookup
def index_lookup(scale: str) -> tuple[dict, list[dict]]:
    config = dict(
        n_symbols=_pick(scale, 4, 4, 64), min_length=_pick(scale, 4, 5, 10),
        lengths=_pick(scale, [10], [10, 20, 40], [20, 50, 100, 200, 400]),
        archs=_pick(scale, ["TF-(1,32)", "LSTM-(1,32)"], ["TF-(1,32)", "LSTM-(1,64)"],
                    ["TF-(1,64)", "LSTM-(1,256)", "LSTM-(3,256)"]),
        seeds=list(range(_pick(scale, 1, 2, 3))), lrs=_pick(scale, [3e-3], [1e-3, 3e-3, 1e-2], [1e-4, 5e-4, 1e-3, 5e-3]),
        steps=_pick(scale, 100, 1000, 20000), batch_size=64, eval_every=_pick(scale, 50, 100, 1000),
        eval_size=_pick(scale, 256, 1000, 5000))
    grid = [{"arch": a, "length": n} for a in config["archs"] for n in config["lengths"]]
    return config, grid


def run_index_lookup(config: dict, points: list[dict], *, scale: str, device=None, stop_after=None) -> list[dict]:
    out = []
    for point in points:
        n = point["length"]
        task = VariableLengthIndexLookup(config["n_symbols"], n, min_length=min(config["min_length"], n))
        exact = VariableLengthIndexLookup(config["n_symbols"], n, min_length=n)
        out.append(_train_point(config, point["arch"], task, exact, device, stop_after))
    return out


# ----------------------------------------------------------------------------- Dyck
def dyck(scale: str) -> tuple[dict, list[dict]]:
    config = dict(
        lengths=_pick(scale, [20], [20, 50], [20, 50, 100, 200, 400]),
        archs=_pick(scale, ["TF-(1,32)", "LSTM-(1,32)"], ["TF-(1,64)", "TF-(2,64)", "LSTM-(1,32)"],
                    ["TF-(1,256)", "TF-(2,64)", "LSTM-(1,64)"]),
        seeds=list(range(_pick(scale, 1, 2, 3))), lrs=_pick(scale, [3e-3], [1e-3, 3e-3], [1e-4, 5e-4, 1e-3, 5e-3]),
        steps=_pick(scale, 100, 1500, 20000), batch_size=64, eval_every=_pick(scale, 50, 150, 1000),
        eval_size=_pick(scale, 256, 1000, 5000))
    grid = [{"arch": a, "length": n} for a in config["archs"] for n in config["lengths"]]
    return config, grid


def run_dyck(config: dict, points: list[dict], *, scale: str, device=None, stop_after=None) -> list[dict]:
    out = []
    for point in points:
        task = BoundedDyck(length=point["length"])
        out.append(_train_point(config, point["arch"], task, task, device, stop_after))
    return out


SWEEPS: dict[str, Sweep] = {
    "index_lookup": Sweep("bhattamishra2024", "index_lookup", index_lookup, run_index_lookup, truncatable=True,
                          about="Figure 2a/2b: index lookup, 1-layer transformer vs LSTM, accuracy against length"),
    "dyck": Sweep("bhattamishra2024", "dyck", dyck, run_dyck, truncatable=True,
                  about="Figure 2c: Dyck-(2,2), 1- and 2-layer transformers vs LSTM"),
}


def result(name: str, scale: str | None = None, *, device=None) -> Result:
    """Sweep ``name`` at ``scale`` (default: the current one), loaded or run (see :class:`Sweep`)."""
    return SWEEPS[name].result(scale, device=device)


def best_curves(result: Result, arch: str, length: int) -> tuple[list[int], np.ndarray, float]:
    """The evaluation steps, the per-seed accuracy curves at the best learning rate, and that rate."""
    point = result.get(arch=arch, length=length)
    acc = np.asarray(point["acc"])
    rows = [i for i, lr in enumerate(point["lr"]) if lr == point["best_lr"]]
    return point["eval_steps"], acc[rows], point["best_lr"]
