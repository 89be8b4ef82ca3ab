"""Training experiments of Chen & Zou (2024), Sec. 6 and 9 (Figures 2-7).

The paper trains Sec. 3.1's model (d' = d + n) with SGD and cross-entropy. Its initial
weights (Sec. 9.1): W_V "with a value of 1" (read here as the identity), and for every task
but memorization, the first layer's W_QK set to the constructed pattern of Theorem 3, 5 or 6;
the rest of the initialisation, the learning rate, batch size, steps and seeds are not given.
:func:`recipe` holds our choices per task and scale; :func:`model_factory` builds either
the paper's initialisation (``init="paper"``) or a plain random one (``init="random"``).
"""
from __future__ import annotations

from dataclasses import dataclass, replace

import torch

from ... import scale as _scale
from ... import validate
from ...models import build_model
from ...tasks import InContextQA, InContextTemplateMatching, SequenceClassification, TemplateMatching
from ...train import TrainConfig, train
from . import constructions

TASKS = ("memorization", "reasoning", "generalization", "contextual")


@dataclass(frozen=True)
class Recipe:
    """One task's training setup at one scale."""

    task: object
    train: TrainConfig
    init_std: float
    eval_size: int


def make_task(name: str, size: str, **overrides):
    """The task of Figure 2's column ``name`` at ``size`` ("paper" = Sec. 9.1's sizes, else our
    reduced sizes); ``overrides`` replace constructor arguments (e.g. ``k=3, length=3``)."""
    validate.choice("make_task", "name", name, TASKS)
    validate.instance("make_task", "size", size, str)
    small = size != "paper"
    if name == "memorization":
        args = dict(n_words=50 if small else 500, length=6, n_examples=1000 if small else 2000)
        return SequenceClassification(**{**args, **overrides})
    if name == "reasoning":
        args = dict(n_questions=20 if small else 100, n_answers=20 if small else 100, k=3)
        return InContextQA(**{**args, **overrides})
    if name == "generalization":
        args = dict(n_words=30 if small else 210, length=4 if small else 3)
        return TemplateMatching(**{**args, **overrides})
    if name == "contextual":
        args = dict(n_words=6 if small else 100, n_answers=6 if small else 100, length=2 if small else 5,
                    k=2 if small else 4)
        return InContextTemplateMatching(**{**args, **overrides})
    raise ValueError(f"unknown task {name!r}; choose one of {', '.join(TASKS)}")


def recipe(name: str, scale: str | None = None, steps_factor: float = 1.0, **overrides) -> Recipe:
    """Our training choices (the paper gives none), per task and scale."""
    validate.choice("recipe", "name", name, TASKS)
    validate.real("recipe", "steps_factor", steps_factor, above=0.0, maximum=1000.0)
    scale = _scale.validate(scale) if scale is not None else _scale.current()
    steps = {"smoke": 0.5, "default": 1.0, "paper": 3.0}[scale] * steps_factor
    size = "paper" if scale == "paper" else "small"
    if name == "memorization" and scale == "smoke":
        overrides = {"n_examples": 200, **overrides}
    task = make_task(name, size, **overrides)
    if name == "memorization":
        config = TrainConfig(steps=int(300 * steps), lr=1e-3, optimizer="adam", batch_size=None, eval_every=10)
        return Recipe(task, config, 0.02, 0)
    if name == "reasoning":
        config = TrainConfig(steps=int(1000 * steps), lr=0.05, optimizer="sgd", batch_size=256, eval_every=50)
        return Recipe(task, config, 0.02, 2000)
    if name == "generalization":
        config = TrainConfig(steps=int(1500 * steps), lr=0.02, optimizer="sgd", batch_size=256, eval_every=50)
        return Recipe(task, config, 0.02, 2000)
    config = TrainConfig(steps=int(1000 * steps), lr=3e-3, optimizer="adam", batch_size=256, eval_every=50,
                         grad_clip=1.0)
    return Recipe(task, config, 0.1, 2000)


def stored_recipe(config: dict, name: str, scale: str | None = None, steps_factor: float = 1.0,
                  **overrides) -> Recipe:
    """The recipe a sweep's stored ``config`` fixes for task ``name``: the training fields of
    ``config["recipes"][name]`` (steps times ``steps_factor``), the initial std of
    ``config["init_std"]`` where the sweep stores one, and the task at ``scale``'s sizes with
    ``overrides``, accepted only if it or its base instance (without ``overrides``) is the one the
    config describes (``config["tasks"]`` or ``config["sizes"]``). The run functions train from this,
    so what a result says it ran is what ran, whatever :func:`recipe` says today."""
    validate.instance("stored_recipe", "config", config, dict)
    validate.choice("stored_recipe", "name", name, TASKS)
    stored = config.get("recipes", {}).get(name)
    described = (config.get("tasks") or config.get("sizes") or {}).get(name)
    if not isinstance(stored, dict) or described is None:
        validate.fail("stored_recipe", "config", f"a sweep config with a recipe and a task for {name!r}",
                      f"one with keys {sorted(config)}")
    code, base = recipe(name, scale, **overrides), recipe(name, scale)
    if described not in (repr(code.task), repr(base.task)):
        raise ValueError(f"stored_recipe: the config's {name} task {described!r} is not the one this code builds at "
                         f"scale {scale!r} ({base.task!r}, or {code.task!r} with {overrides})")
    fields = dict(stored, betas=tuple(stored["betas"]))
    fields.update({k: tuple(fields[k]) for k in ("lr", "weight_decay", "stop_when") if isinstance(fields[k], list)})
    train_config = TrainConfig(**fields)
    train_config = replace(train_config, steps=int(train_config.steps * steps_factor))
    init_std = config["init_std"][name] if "init_std" in config else code.init_std
    return Recipe(code.task, train_config, init_std, code.eval_size)


def _first_layer_pattern(task) -> torch.Tensor | None:
    """The constructed first-layer W_QK (Theorems 3, 5, 6) restricted to d' = d + n."""
    if isinstance(task, InContextQA):
        full = constructions.in_context_qa(task)
    elif isinstance(task, TemplateMatching):
        full = constructions.template_matching(task)
    elif isinstance(task, InContextTemplateMatching):
        full = constructions.in_context_template_matching(task)
    else:
        return None
    d_model = len(task.vocab) + task.seq_len
    return full.get_weight("layers.0.attn.W_QK")[:1, :d_model, :d_model]


def model_factory(task, n_layers: int, n_heads, init: str = "paper", std: float = 0.02, extra_rows: int = 0):
    """``seed -> model`` for Sec. 3.1's model on ``task`` (d' = d + n + extra_rows).

    Every matrix starts at N(0, std^2); W_V adds the identity. With ``init="paper"`` every
    head of the first layer starts from the constructed W_QK pattern (plus the noise), as in
    Sec. 9.1; memorization has no such pattern and always starts random.
    """
    validate.choice("model_factory", "init", init, ("paper", "random"))
    validate.real("model_factory", "std", std, minimum=0.0)
    validate.integer("model_factory", "extra_rows", extra_rows, minimum=0, maximum=validate.MAX_COUNT)
    config = constructions.paper_config(task, n_layers, n_heads, extra_rows=extra_rows).replace(init_std=std)
    pattern = None
    small = _first_layer_pattern(task) if init == "paper" else None
    if small is not None:  # pad to the model's width
        pattern = torch.zeros(1, config.d_model, config.d_model)
        pattern[:, : small.shape[1], : small.shape[2]] = small
    eye = torch.eye(config.d_model)

    def make(seed: int):
        model = build_model(config, seed=seed)
        with torch.no_grad():
            for layer in model.layers:
                layer.attn.W_V.add_(eye)
            if pattern is not None:
                model.layers[0].attn.W_QK.add_(pattern.to(torch.float32))
        return model

    return make


def arch_key(arch) -> str:
    """How an architecture (heads per layer) is keyed in stored results: ``(1, 1, 10)`` -> ``"1x1x10"``."""
    validate.integers("arch_key", "arch", list(arch) if isinstance(arch, (tuple, list)) else arch, minimum=1)
    return "x".join(str(int(h)) for h in arch)


def parse_arch(key: str) -> tuple[int, ...]:
    """The inverse of :func:`arch_key`."""
    validate.instance("parse_arch", "key", key, str)
    parts = key.split("x")
    if not all(part.isdigit() and int(part) >= 1 for part in parts):
        validate.fail("parse_arch", "key", "heads per layer joined by 'x', such as '1x1x10'", key)
    return tuple(int(h) for h in key.split("x"))


def train_depths(name: str, depths: list[tuple[int, ...]], seeds: list[int], init: str = "paper",
                 scale: str | None = None, device=None, progress: bool = True, steps_factor: float = 1.0,
                 stop_after: int | None = None, train_args: dict | None = None, config: dict | None = None,
                 **overrides) -> dict:
    """Figures 2 and 4-7: train ``len(seeds)`` models (one ensemble) per architecture, given
    as heads per layer (``(2, 2, 2)``: three layers of two heads), and return their accuracy
    and loss curves on the training set (memorization) or a fixed test sample, keyed by
    :func:`arch_key`. ``stop_after``: only the first steps (see :func:`lib.train.train`);
    ``train_args``: fields of the recipe's :class:`~lib.train.TrainConfig` to replace (e.g.
    ``{"optimizer": "sgd", "lr": 3.0}``); ``config``: a sweep's stored config, whose recipe is
    trained (:func:`stored_recipe`) instead of :func:`recipe`'s; ``overrides``: the task's
    constructor arguments."""
    validate.choice("train_depths", "name", name, TASKS)
    if isinstance(depths, (str, bytes)) or not hasattr(depths, "__len__") or not len(depths):
        validate.fail("train_depths", "depths", "a non-empty list of architectures (heads per layer)", depths)
    for i, heads in enumerate(depths):
        validate.integers("train_depths", f"depths[{i}]", list(heads) if isinstance(heads, tuple) else heads, minimum=1)
    validate.integers("train_depths", "seeds", seeds, minimum=0)
    if stop_after is not None:
        validate.integer("train_depths", "stop_after", stop_after, minimum=0)
    r = recipe(name, scale, steps_factor, **overrides) if config is None else \
        stored_recipe(config, name, scale, steps_factor, **overrides)
    if train_args:
        r = replace(r, train=replace(r.train, **train_args))
    task = r.task
    evals = {"train": task.enumerate()} if name == "memorization" else {"test": task.sample(r.eval_size, seed=10_007)}
    data = task.enumerate() if name == "memorization" else task
    out = {}
    for heads in depths:
        run = train(model_factory(task, len(heads), tuple(heads), init, r.init_std), seeds, r.train, data, evals,
                    device=device, progress=progress, desc=f"{name} {heads}", stop_after=stop_after)
        key = next(iter(evals))
        out[arch_key(heads)] = {"steps": run.eval_steps, "acc": run.metrics[key]["acc"].tolist(),
                                          "loss": run.metrics[key]["loss"].tolist(), "wall_s": run.wall_s}
    return out


def one_layer_limit_point(point: dict, seeds: list[int], scale: str | None = None, device=None,
                          config: dict | None = None) -> dict:
    """Theorems 2 and 4 in training: final test accuracy of ``len(seeds)`` models with
    ``point = {"task", "layers", "heads", "extra_rows", "init"}`` on the online task (with the
    recipe of the sweep's stored ``config`` when given, see :func:`stored_recipe`)."""
    validate.instance("one_layer_limit_point", "point", point, dict)
    missing = {"task", "layers", "heads", "extra_rows", "init"} - set(point)
    if missing:
        validate.fail("one_layer_limit_point", "point", "a dict with task, layers, heads, extra_rows and init",
                      f"one without {sorted(missing)}")
    validate.integer("one_layer_limit_point", "point['layers']", point["layers"], minimum=1)
    validate.integer("one_layer_limit_point", "point['heads']", point["heads"], minimum=1)
    validate.integers("one_layer_limit_point", "seeds", seeds, minimum=0)
    r = recipe(point["task"], scale) if config is None else stored_recipe(config, point["task"], scale)
    heads = (point["heads"],) * point["layers"]
    factory = model_factory(r.task, point["layers"], heads, point["init"], r.init_std, point["extra_rows"])
    test = r.task.sample(r.eval_size, seed=10_007)
    run = train(factory, seeds, r.train, r.task, {"test": test}, device=device, progress=False)
    return {"acc": run.final("test").tolist(), "mean_acc": float(run.final("test").mean()),
            "d_model": factory(0).config.d_model, "wall_s": run.wall_s}


def curves_point(point: dict, seeds: list[int], scale: str | None = None, device=None,
                 stop_after: int | None = None, config: dict | None = None) -> dict:
    """One grid point of a curves sweep: ``{"task", "init", "archs": [[h1, h2, ...], ...]}`` plus
    optional ``"steps_factor"``, task overrides under ``"task_args"`` and training overrides
    under ``"train_args"``; ``config``: the sweep's stored config, whose recipes it trains."""
    validate.instance("curves_point", "point", point, dict)
    if not {"task", "init", "archs"} <= set(point):
        validate.fail("curves_point", "point", "a dict with task, init and archs", f"keys {sorted(point)}")
    return train_depths(point["task"], [tuple(a) for a in point["archs"]], seeds, point["init"], scale, device,
                        progress=False, steps_factor=point.get("steps_factor", 1.0), stop_after=stop_after,
                        train_args=point.get("train_args"), config=config, **point.get("task_args", {}))


@torch.no_grad()
def copy_match_scores(model, task: InContextQA, batch) -> dict:
    """Figure 3, quantitatively: how much a two-layer model on in-context QA attends like
    Theorem 3's construction.

    ``copy``: the share of layer-1 attention (all heads, every column, self excluded) that
    stays inside the column's own question-sign-answer block (construction: 1).
    ``match``: the share of the last column's layer-2 attention over context positions that
    falls on the block holding the query question (construction: 1; uniform: 1/k).
    """
    from ...tasks import Batch
    validate.instance("copy_match_scores", "task", task, InContextQA)
    validate.instance("copy_match_scores", "batch", batch, Batch)
    cache: dict = {}
    model(batch.x, cache=cache)
    n, k = task.seq_len, task.k
    block = torch.tensor([min(i // 3, k) for i in range(n)])
    same = (block[:, None] == block[None, :]) & ~torch.eye(n, dtype=torch.bool)
    a1 = cache["layers.0.attn.pattern"].abs().sum(1)  # (B, n, n), summed over heads
    off_diagonal = a1 * ~torch.eye(n, dtype=torch.bool)
    copy = float((off_diagonal * same).sum() / off_diagonal.sum().clamp_min(1e-12))
    a2 = cache["layers.1.attn.pattern"].abs().sum(1)[:, -1, : 3 * k]  # last column -> context
    questions = batch.x[:, : 3 * k].reshape(-1, k, 3)[:, :, 0]
    c = (questions == batch.x[:, -2:-1]).float().argmax(1)
    in_block = (block[: 3 * k][None, :] == c[:, None])
    match = float((a2 * in_block).sum() / a2.sum().clamp_min(1e-12))
    return {"copy": copy, "match": match, "chance_match": 1.0 / k}


@torch.no_grad()
def parse_scores(model, batch) -> dict:
    """Figure 3 for template matching: mean layer-1 attention between equal tokens vs between
    different tokens (positions before the sign, self excluded). Theorem 5's parse: 1 vs 0."""
    from ...tasks import Batch
    validate.instance("parse_scores", "batch", batch, Batch)
    cache: dict = {}
    model(batch.x, cache=cache)
    a = cache["layers.0.attn.pattern"].abs().sum(1)[:, :-1, :-1]
    x = batch.x[:, :-1]
    equal = x[:, :, None] == x[:, None, :]
    off = ~torch.eye(x.shape[1], dtype=torch.bool)
    return {"equal": float(a[equal & off].mean()), "different": float(a[~equal & off].mean())}
