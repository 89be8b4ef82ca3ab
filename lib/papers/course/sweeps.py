"""The tour's sweep: test accuracy of one-layer softmax models on index lookup against the
width and the sequence length (chapter 0, "Results with provenance")."""
from __future__ import annotations

from ... import scale as _scale
from ... import validate
from ...models import AttentionConfig
from ...results import Result, Sweep
from ...tasks import IndexLookup
from ...train import TrainConfig, train


def width_length(scale: str) -> tuple[dict, list[dict]]:
    config = dict(
        widths=_scale.pick(smoke=[4, 16], default=[4, 8, 16], paper=[4, 8, 16, 32, 64], scale=scale),
        lengths=_scale.pick(smoke=[8, 16], default=[8, 16, 32], paper=[16, 32, 64, 128, 256], scale=scale),
        seeds=list(range(_scale.pick(smoke=2, default=5, paper=5, scale=scale))),
        steps=_scale.pick(smoke=150, default=600, paper=3000, scale=scale), lr=1e-2, batch_size=128, n_symbols=8)
    return config, [{"width": w, "length": n} for w in config["widths"] for n in config["lengths"]]


def width_length_point(config: dict, point: dict, device=None, stop_after: int | None = None) -> dict:
    """Mean and per-seed test accuracy of one-layer models of width ``point["width"]`` on index
    lookup of length ``point["length"]``, all seeds in one ensemble."""
    validate.instance("width_length_point", "config", config, dict)
    validate.instance("width_length_point", "point", point, dict)
    validate.integer("width_length_point", "point['width']", point.get("width"), minimum=1, maximum=validate.MAX_COUNT)
    validate.integer("width_length_point", "point['length']", point.get("length"), minimum=1,
                     maximum=validate.MAX_COUNT)
    task = IndexLookup(n_symbols=config["n_symbols"], length=point["length"])
    d = point["width"]
    model = AttentionConfig(d_model=d, n_out=task.n_classes, d_head=d, d_value=d, vocab_size=len(task.vocab),
                            positions="learned", max_len=task.seq_len)
    recipe = TrainConfig(steps=config["steps"], lr=config["lr"], batch_size=config["batch_size"],
                         eval_every=config["steps"])
    out = train(model, config["seeds"], recipe, task, evals={"test": task}, device=device, progress=False,
                stop_after=stop_after)
    return {"accuracy": float(out.final("test").mean()), "per_seed": out.final("test").tolist()}


def run_points(config: dict, points: list[dict], *, scale: str, device=None, stop_after=None) -> list[dict]:
    return [width_length_point(config, p, device, stop_after) for p in points]


SWEEPS: dict[str, Sweep] = {
    "width_length": Sweep("course", "width_length", width_length, run_points,
                          about="one-layer index lookup: test accuracy against width and length"),
}


def result(name: str, scale: str | None = None, *, device=None) -> Result:
    """Sweep ``name`` at ``scale`` (default: the current one), loaded or run (see :class:`Sweep`)."""
    validate.choice("result", "name", name, tuple(SWEEPS))
    if scale is not None:
        validate.choice("result", "scale", scale, _scale.SCALES)
    return SWEEPS[name].result(scale, device=device)
