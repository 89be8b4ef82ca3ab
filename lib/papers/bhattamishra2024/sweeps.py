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
``index_lookup_ssm`` the same for DSS, Mamba and RetNet (fewer members: slow on a CPU)
``mamba_width``    Figure 3 (App. H.1): 2-layer Mamba of growing width against length, with
                   LSTMs of the same widths (the paper's comparison) and a 1-layer transformer
``dyck``           Figure 2c: Dyck-(2,2), 1- and 2-layer transformers against an LSTM
``equality``       Figure 4: string equality, Eq-random / Eq-one (classification) and Eq-ncp
                   (copy after [sep]; a string counts when all of it is right)
=================  ========================================================================

A config with a ``scan`` entry runs Mamba with that selective scan (:data:`lib.models.ssm.SCAN_NAMES`):
the paper-scale configs and ``mamba_width`` take ``"fused"``; the other default-scale configs
name none, so they keep the loop their stored results ran with.

``python -m lib.papers.bhattamishra2024 SCALE [NAME ...]`` runs them.
"""
from __future__ import annotations

import dataclasses

import numpy as np
import torch

from ... import scale as _scale
from ...scale import at
from ... import validate
from ...models import AttentionConfig, RecurrentConfig, SSMConfig
from ...results import Result, Sweep
from ...tasks import IGNORE, BoundedDyck, StringEquality, VariableLengthIndexLookup
from ...train import TrainConfig, train




def architecture(name: str, vocab_size: int, n_out: int, max_len: int, readout: str = "last"):
    """The model config for a paper-style label ``"KIND-(layers,width)"``: ``TF`` a GPT-2-style
    pre-LayerNorm causal transformer (4 heads, MLP 4x, learned positions), ``LSTM``, or a
    state-space / linear-attention stack (``DSS``, ``Mamba``, ``RetNet``, ``LinearTF``; pre-LN
    blocks with an MLP 2x, state size 16)."""
    import re

    validate.instance("architecture", "name", name, str)
    if not re.fullmatch(r"[A-Za-z]+-\(\d+,\s*\d+\)", name):
        validate.fail("architecture", "name", "a label KIND-(layers,width) such as 'TF-(2,64)'", name)
    for arg, value in (("vocab_size", vocab_size), ("n_out", n_out), ("max_len", max_len)):
        validate.integer("architecture", arg, value, minimum=1, maximum=validate.MAX_COUNT)
    kind, sizes = name.split("-", 1)
    layers, width = (int(v) for v in sizes.strip("()").split(","))
    if layers < 1 or width < 1:
        validate.fail("architecture", "name", "a label with layers >= 1 and width >= 1", name)
    if kind == "TF":
        return AttentionConfig(d_model=width, n_out=n_out, n_layers=layers, n_heads=4, d_mlp=4 * width, norm="pre",
                               causal=True, vocab_size=vocab_size, positions="learned", max_len=max_len,
                               readout=readout, readout_bias=True)
    if kind == "LSTM":
        return RecurrentConfig(d_model=width, n_out=n_out, cell="lstm", n_layers=layers, vocab_size=vocab_size,
                               max_len=max_len, readout=readout)
    mixers = {"DSS": "dss", "Mamba": "mamba", "RetNet": "retnet", "LinearTF": "linear"}
    if kind in mixers:
        return SSMConfig(d_model=width, n_out=n_out, mixer=mixers[kind], n_layers=layers, d_state=16,
                         d_mlp=2 * width, vocab_size=vocab_size, max_len=max_len, readout=readout)
    raise ValueError(f"architecture: unknown model {name!r}; use TF, LSTM, DSS, Mamba, RetNet or LinearTF-(L,d)")


def _train_point(config: dict, arch: str, task, eval_task, device=None, stop_after=None) -> dict:
    """Train every (seed, learning rate) member of one architecture on ``task``; each member's
    accuracy curve on ``eval_task`` (:func:`summary` picks the best learning rate from them)."""
    seeds, lrs = config["seeds"], config["lrs"]
    members = [(s, lr) for lr in lrs for s in seeds]
    model = architecture(arch, len(task.vocab), task.n_classes, task.seq_len,
                         "all" if task.target == "tokens" else "last")
    if "scan" in config and isinstance(model, SSMConfig):  # Mamba's selective scan, where a config names one
        model = dataclasses.replace(model, scan=config["scan"])
    recipe = TrainConfig(steps=config["steps"], lr=tuple(lr for _, lr in members), batch_size=config["batch_size"],
                         eval_every=config["eval_every"], eval_size=config["eval_size"])
    run = train(model, [1000 * i + s for i, (s, _) in enumerate(members)], recipe, task, evals={"test": eval_task},
                device=device, progress=False, stop_after=stop_after)
    acc = run.metrics["test"]["acc"]
    extra = {}
    if task.target == "tokens":  # a string counts only if every scored position is right (Eq-ncp)
        batch = eval_task.sample(config["eval_size"], seed=12345)
        strings = []
        for i in range(len(members)):
            model_i = run.model(i).eval()
            with torch.no_grad():
                wrong = (model_i(batch.x).argmax(-1) != batch.y) & (batch.y != IGNORE)
            strings.append(float((~wrong.any(1)).double().mean()))
        extra["string_acc"] = strings
        acc = acc.copy()
        acc[:, -1] = strings  # the final point of each curve is the string accuracy
    return {"eval_steps": run.eval_steps, "acc": acc.tolist(), "lr": [lr for _, lr in members],
            "seed": [s for s, _ in members], "params": int(sum(p.numel() for p in run.model(0).parameters())),
            "wall_s": run.wall_s, **extra}


def summary(point: dict) -> dict:
    """The mean final accuracy of each learning rate over seeds (``final_by_lr``, keyed by the
    rate as text), the best rate and its accuracy: the paper reports each model at its best rate."""
    validate.instance("summary", "point", point, dict)
    if "acc" not in point or "lr" not in point:
        validate.fail("summary", "point", "a stored point with 'acc' and 'lr'", f"keys {sorted(point)}")
    a = validate.array("summary", "point['acc'] (a NaN is a diverged run, and no best rate can be chosen among them)",
                       point["acc"], ndim=2)
    if a.shape[0] == 0 or a.shape[1] == 0 or a.shape[0] != len(point["lr"]):
        validate.fail("summary", "point['lr']", f"one learning rate per run ({a.shape[0]} runs, at least one)",
                      point["lr"])
    acc = np.asarray(point["acc"])
    final = {lr: float(np.mean([acc[i, -1] for i, l in enumerate(point["lr"]) if l == lr]))
             for lr in dict.fromkeys(point["lr"])}
    best = max(final, key=final.get)
    return {"final_by_lr": {str(lr): v for lr, v in final.items()}, "best_lr": best, "best_final": final[best]}


# ----------------------------------------------------------------------------- index lookup
def index_lookup(scale: str) -> tuple[dict, list[dict]]:
    config = dict(
        n_symbols=at(scale, 4, 4, 64), min_length=at(scale, 4, 5, 10),
        lengths=at(scale, [10], [10, 20, 40], [20, 50, 100, 200, 400]),
        archs=at(scale, ["TF-(1,32)", "LSTM-(1,32)"], ["TF-(1,32)", "LSTM-(1,64)"],
                    ["TF-(1,64)", "LSTM-(1,256)", "LSTM-(3,256)"]),
        seeds=list(range(at(scale, 1, 5, 3))), lrs=at(scale, [3e-3], [1e-3, 3e-3, 1e-2], [1e-4, 5e-4, 1e-3, 5e-3]),
        steps=at(scale, 100, 1000, 20000), batch_size=64, eval_every=at(scale, 50, 100, 1000),
        eval_size=at(scale, 256, 1000, 5000))
    grid = [{"arch": a, "length": n} for a in config["archs"] for n in config["lengths"]]
    return config, grid


def index_lookup_ssm(scale: str) -> tuple[dict, list[dict]]:
    """Figure 2a-b's state-space and linear-attention models, a sweep of their own: on a CPU their
    plain-PyTorch forms cost 10-50x a transformer's step (measured: DSS-(2,64) 0.67 s, RetNet-(2,64)
    0.47 s, Mamba-(2,32) 2.3 s per step of 6 members at N = 40 with the loop scan, on 2 busy cores),
    so at default scale they get two learning rates (five seeds each, as every trained figure) and
    Mamba stops at N = 20; Mamba runs the fused selective scan at every scale (about 4x the loop's
    speed here, the same function to rounding)."""
    config, _ = index_lookup(scale)
    config.update(archs=at(scale, ["DSS-(2,16)"], ["DSS-(2,64)", "RetNet-(2,64)", "Mamba-(2,32)"],
                              ["DSS-(6,256)", "Mamba-(6,256)", "RetNet-(6,256)", "LinearTF-(6,256)"]),
                  seeds=at(scale, [0], list(range(5)), config["seeds"]),
                  lrs=at(scale, [3e-3], [1e-3, 3e-3], config["lrs"]),
                  longest_mamba=at(scale, 10, 20, 400), scan="fused")
    grid = [{"arch": a, "length": n} for a in config["archs"] for n in config["lengths"]
            if not (a.startswith("Mamba") and n > config["longest_mamba"])]
    return config, grid


def run_index_lookup(config: dict, points: list[dict], *, scale: str, device=None, stop_after=None) -> list[dict]:
    out = []
    for point in points:
        n = point["length"]
        task = VariableLengthIndexLookup(config["n_symbols"], n, min_length=min(config["min_length"], n))
        exact = VariableLengthIndexLookup(config["n_symbols"], n, min_length=n)
        out.append(_train_point(config, point["arch"], task, exact, device, stop_after))
    return out


# ----------------------------------------------------------------------------- Figure 3: Mamba's width
def mamba_width(scale: str) -> tuple[dict, list[dict]]:
    """Figure 3 (App. H.1, "Additional Experiment with Mamba"): index lookup for 2-layer Mamba of
    widths {32, 64, 256, 512, 1024} at lengths 20 to 400, and LSTMs of growing width (the
    paper's "similar experiment with LSTM": their depth and widths are not stated; we take one
    layer and Mamba's widths), with TF-(1,64), the paper's point of comparison, as a reference.
    Mamba runs the fused selective scan (``scan``, :data:`lib.models.ssm.SCAN_NAMES`; the same
    function as the loop to rounding, 2-10x faster on a CPU and keeping one state tensor); the
    points train as :func:`run_index_lookup`'s.

    Paper scale: the paper's grid and alphabet, 20,000 steps (the paper's "up to 250k"), two
    seeds at three of its learning rates (six members a group: Mamba-(2,1024) at N = 400 keeps
    about 3.4 GB of states per member and layer in float32). Default (CPU, measured on 2 cores with the
    fused scan): |Σ| = 4 as in ``index_lookup``'s default, widths 8-32 at N = 10 and 20,
    five seeds at one learning rate, 600 steps; about 9 minutes in all."""
    config = dict(
        n_symbols=at(scale, 4, 4, 64), min_length=at(scale, 4, 5, 10),
        lengths=at(scale, [10], [10, 20], [20, 50, 100, 200, 400]),
        widths=at(scale, [4, 8, 16], [8, 16, 32], [32, 64, 256, 512, 1024]),
        mamba_layers=2, lstm_layers=1, transformer=at(scale, "TF-(1,16)", "TF-(1,32)", "TF-(1,64)"), scan="fused",
        seeds=list(range(at(scale, 2, 5, 2))), lrs=at(scale, [3e-3], [3e-3], [5e-4, 1e-3, 5e-3]),
        steps=at(scale, 60, 600, 20000), batch_size=64, eval_every=at(scale, 30, 100, 1000),
        eval_size=at(scale, 256, 1000, 5000))
    archs = ([f"Mamba-({config['mamba_layers']},{w})" for w in config["widths"]]
             + [f"LSTM-({config['lstm_layers']},{w})" for w in config["widths"]] + [config["transformer"]])
    config["archs"] = archs
    return config, [{"arch": a, "length": n} for a in archs for n in config["lengths"]]


# ----------------------------------------------------------------------------- Dyck
def dyck(scale: str) -> tuple[dict, list[dict]]:
    config = dict(
        lengths=at(scale, [20], [20, 50], [20, 50, 100, 200, 400]),
        archs=at(scale, ["TF-(1,32)", "LSTM-(1,32)"], ["TF-(1,64)", "TF-(2,64)", "LSTM-(1,32)"],
                    ["TF-(1,256)", "TF-(2,64)", "LSTM-(1,64)"]),
        seeds=list(range(at(scale, 1, 5, 3))), lrs=at(scale, [3e-3], [1e-3, 3e-3], [1e-4, 5e-4, 1e-3, 5e-3]),
        steps=at(scale, 100, 1500, 20000), batch_size=64, eval_every=at(scale, 50, 150, 1000),
        eval_size=at(scale, 256, 1000, 5000))
    grid = [{"arch": a, "length": n} for a in config["archs"] for n in config["lengths"]]
    return config, grid


def run_dyck(config: dict, points: list[dict], *, scale: str, device=None, stop_after=None) -> list[dict]:
    out = []
    for point in points:
        task = BoundedDyck(length=point["length"])
        out.append(_train_point(config, point["arch"], task, task, device, stop_after))
    return out


# ----------------------------------------------------------------------------- string equality
def equality(scale: str) -> tuple[dict, list[dict]]:
    config = dict(
        variants=at(scale, ["random"], ["random", "one", "ncp"], ["random", "one", "ncp"]),
        n_symbols={"random": 2, "one": at(scale, 8, 16, 1024), "ncp": at(scale, 8, 16, 1024)},
        lengths=at(scale, [10], [10, 20, 40], [20, 50, 100, 200, 400]),
        archs=at(scale, ["TF-(2,32)", "LSTM-(1,32)"], ["TF-(2,32)", "LSTM-(1,64)"],
                    ["TF-(2,64)", "LSTM-(1,64)", "DSS-(2,64)", "Mamba-(2,64)"]),
        seeds=list(range(at(scale, 1, 5, 3))), lrs=at(scale, [3e-3], [1e-3, 3e-3], [1e-4, 5e-4, 1e-3, 5e-3]),
        steps=at(scale, 100, 1000, 20000), batch_size=64, eval_every=at(scale, 50, 100, 1000),
        eval_size=at(scale, 256, 1000, 5000), **({"scan": "fused"} if scale == "paper" else {}))
    grid = [{"variant": v, "arch": a, "length": n} for v in config["variants"] for a in config["archs"]
            for n in config["lengths"]]
    return config, grid


def run_equality(config: dict, points: list[dict], *, scale: str, device=None, stop_after=None) -> list[dict]:
    out = []
    for point in points:
        v, n = point["variant"], point["length"]
        task = StringEquality(config["n_symbols"][v], n, variant=v)
        exact = StringEquality(config["n_symbols"][v], n, variant=v, min_length=n)
        out.append(_train_point(config, point["arch"], task, exact, device, stop_after))
    return out


# ----------------------------------------------------------------------------- Theorem 3's protocol
def lstm_protocol(scale: str) -> tuple[dict, list[dict]]:
    config = dict(length=at(scale, 8, 14, 20), arch=at(scale, "LSTM-(1,16)", "LSTM-(1,32)", "LSTM-(1,64)"),
                  steps=at(scale, 400, 6000, 20000), lr=3e-3, batch_size=64, seed=0,
                  bits=[1, 2, 3, 4, 6, 8, 12], short_units=[1, 2, 3, 4, 6, 8, 12])
    return config, [{"length": config["length"]}]


def _final_states(model, strings: torch.Tensor, chunk: int = 1 << 16) -> tuple[torch.Tensor, torch.Tensor]:
    """The LSTM's final ``(h, c)`` after each of ``strings``, run ``chunk`` strings at a time (the
    paper's N = 20 has 2^20 of them: all at once, the cached activations alone take several GB)."""
    hs, cs = [], []
    for part in strings.split(chunk):
        cache: dict = {}
        model(part, cache=cache)
        h, c = cache["layers.0.final"]
        hs.append(h)
        cs.append(c)
    return torch.cat(hs), torch.cat(cs)


def run_lstm_protocol(config: dict, points: list[dict], *, scale: str, device=None, stop_after=None) -> list[dict]:
    """Theorems 2-3 with a trained LSTM: train it on binary index lookup at length N, then run
    every one of the 2^N strings as Alice (her final (h, c), each number quantized to b bits, is
    the whole message) and every index as Bob (he continues from the message). Accuracy over all
    N 2^N instances against the information bound for a 2mb-bit message, and the number of
    distinct messages (100% accuracy needs all 2^N of them distinct)."""
    from .lower_bounds import index_accuracy_bound, uniform_quantize
    n = points[0]["length"]
    task = VariableLengthIndexLookup(2, n, min_length=n)
    model_config = architecture(config["arch"], len(task.vocab), 2, task.seq_len)
    run = train(model_config, [config["seed"]], TrainConfig(steps=config["steps"], lr=config["lr"],
                batch_size=config["batch_size"], eval_every=max(1, config["steps"] // 10)), task,
                evals={"test": task}, device=device, progress=False, stop_after=stop_after)
    model = run.model(0).eval()
    strings = ((torch.arange(2**n)[:, None] >> torch.arange(n - 1, -1, -1)) & 1).long()  # every x in {0,1}^N
    with torch.no_grad():
        h, c = _final_states(model, strings)
        bound = float(torch.maximum(h.abs().max(), c.abs().max()))
        queries = (task.n_symbols + torch.arange(n))[:, None]  # Bob's inputs: one index token
        rows = []
        for bits in config["bits"] + [None]:
            qh, qc = (h, c) if bits is None else (uniform_quantize(h, bits, bound), uniform_quantize(c, bits, bound))
            correct = 0
            for p in range(n):
                logits = model(queries[p].expand(len(strings), 1), state=[(qh, qc)])
                correct += int((logits.argmax(-1) == strings[:, p]).sum())
            message_bits = None if bits is None else 2 * h.shape[-1] * bits
            rows.append({"bits_per_number": bits, "message_bits": message_bits,
                         "accuracy": correct / (n * len(strings)),
                         "bound": 1.0 if bits is None else index_accuracy_bound(message_bits, n),
                         "distinct_messages": len(torch.unique(torch.cat([qh, qc], 1), dim=0))})
        # messages shorter than N bits, where the bound bites: the k most variable state numbers at
        # b bits each (the others replaced by their mean over all strings)
        state = torch.cat([h, c], 1)
        order = state.var(0).argsort(descending=True)
        short = []
        for k in config["short_units"]:
            for bits in (1, 2):
                if k * bits >= n:
                    continue
                sent = state.mean(0).expand_as(state).clone()
                sent[:, order[:k]] = uniform_quantize(state[:, order[:k]], bits, bound)
                qh, qc = sent[:, : h.shape[1]], sent[:, h.shape[1]:]
                correct = sum(int((model(queries[p].expand(len(strings), 1), state=[(qh, qc)]).argmax(-1)
                                   == strings[:, p]).sum()) for p in range(n))
                short.append({"numbers_sent": k, "bits_per_number": bits, "message_bits": k * bits,
                              "accuracy": correct / (n * len(strings)), "bound": index_accuracy_bound(k * bits, n)})
    return [{"train_acc": run.final("test").tolist(), "state_bound": bound, "rows": rows, "short": short,
             "wall_s": run.wall_s}]


SWEEPS: dict[str, Sweep] = {
    "index_lookup": Sweep("bhattamishra2024", "index_lookup", index_lookup, run_index_lookup, truncatable=True,
                          about="Figure 2a/2b: index lookup, 1-layer transformer vs LSTM, accuracy against length"),
    "index_lookup_ssm": Sweep("bhattamishra2024", "index_lookup_ssm", index_lookup_ssm, run_index_lookup,
                              truncatable=True, about="Figure 2a-b: DSS, Mamba and RetNet on index lookup"),
    "mamba_width": Sweep("bhattamishra2024", "mamba_width", mamba_width, run_index_lookup, truncatable=True,
                         about="Figure 3: 2-layer Mamba of growing width on index lookup, against LSTMs"),
    "dyck": Sweep("bhattamishra2024", "dyck", dyck, run_dyck, truncatable=True, verify_steps=150,
                  about="Figure 2c: Dyck-(2,2), 1- and 2-layer transformers vs LSTM"),
    "lstm_protocol": Sweep("bhattamishra2024", "lstm_protocol", lstm_protocol, run_lstm_protocol,
                           about="Theorems 2-3: a trained LSTM's quantized state as Alice's message"),
    "equality": Sweep("bhattamishra2024", "equality", equality, run_equality,  # string accuracy: at the end only
                      about="Figure 4: string equality (Eq-random, Eq-one, Eq-ncp), transformers vs recurrent models"),
}


def result(name: str, scale: str | None = None, *, device=None) -> Result:
    """Sweep ``name`` at ``scale`` (default: the current one), loaded or run (see :class:`Sweep`)."""
    validate.choice("result", "name", name, tuple(SWEEPS))
    if scale is not None:
        validate.choice("result", "scale", scale, _scale.SCALES)
    return SWEEPS[name].result(scale, device=device)


def best_curves(result: Result, arch: str, length: int) -> tuple[list[int], np.ndarray, float]:
    """The evaluation steps, the per-seed accuracy curves at the best learning rate, and that rate."""
    validate.instance("best_curves", "result", result, Result)
    point = result.get(arch=arch, length=length)
    acc, best = np.asarray(point["acc"]), summary(point)["best_lr"]
    rows = [i for i, lr in enumerate(point["lr"]) if lr == best]
    return point["eval_steps"], acc[rows], best
