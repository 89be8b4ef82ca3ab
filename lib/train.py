"""One trainer for the whole book: an ensemble of K independent models in one batched pass.

The K members share shapes and differ in seed (initial weights, data order) and, if
asked, in learning rate or weight decay. Their parameters are stacked along a leading
axis (``torch.func.stack_module_state``) and the forward pass is ``vmap``-ed over it, so
K small models cost about as much as one wide one. The optimizers below act on the
stacked tensors element-wise and follow ``torch.optim`` exactly, which is why member k
of an ensemble ends with the same numbers as training that model alone with the same
seed (``tests/test_train.py`` checks this against a plain ``torch.optim`` loop).

Each member stops on its own (``stop_when``): once stopped, its weights are frozen while
the others go on, and training ends when every member has stopped.
"""
from __future__ import annotations

import copy
import math
import time
from dataclasses import asdict, dataclass, field
from typing import Callable, Mapping, Sequence

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn
from torch.func import functional_call, stack_module_state, vmap
from tqdm.auto import tqdm

from .models import build_model
from .tasks.base import IGNORE, Batch, Task, make_generator

OPTIMIZERS = ("sgd", "adam", "adamw")
SCHEDULES = ("constant", "warmup_cosine")
LOSSES = ("cross_entropy", "mse")


@dataclass(frozen=True)
class TrainConfig:
    """Optimisation settings. ``lr`` and ``weight_decay`` may be one value per member."""

    steps: int
    lr: float | tuple[float, ...] = 1e-3
    optimizer: str = "adam"
    momentum: float = 0.0  # sgd only
    betas: tuple[float, float] = (0.9, 0.999)
    eps: float = 1e-8
    weight_decay: float | tuple[float, ...] = 0.0
    schedule: str = "constant"
    warmup: int = 0  # steps of linear warm-up from lr/100 (warmup_cosine)
    grad_clip: float | None = None  # max gradient norm, per member
    batch_size: int | None = 64  # None: the full training set every step
    loss: str = "cross_entropy"
    eval_every: int = 100
    eval_size: int = 1024  # examples drawn once for an evaluation set given as a Task
    stop_when: tuple[str, str, float] | None = None  # e.g. ("train", "acc", 1.0)

    def __post_init__(self):
        def bad(message):
            raise ValueError(f"TrainConfig: {message}")

        if not isinstance(self.steps, int) or self.steps < 0:
            bad(f"steps must be a non-negative integer, got {self.steps!r}")
        if self.optimizer not in OPTIMIZERS:
            bad(f"optimizer must be one of {', '.join(OPTIMIZERS)}; got {self.optimizer!r}")
        if self.schedule not in SCHEDULES:
            bad(f"schedule must be one of {', '.join(SCHEDULES)}; got {self.schedule!r}")
        if self.loss not in LOSSES:
            bad(f"loss must be one of {', '.join(LOSSES)}; got {self.loss!r}")
        for name in ("lr", "weight_decay"):
            values = getattr(self, name)
            values = values if isinstance(values, tuple) else (values,)
            if any(not isinstance(v, (int, float)) or v < 0 or (name == "lr" and v == 0) for v in values):
                bad(f"{name} must be {'positive' if name == 'lr' else 'non-negative'}, got {getattr(self, name)!r}")
        if self.batch_size is not None and (not isinstance(self.batch_size, int) or self.batch_size < 1):
            bad(f"batch_size must be a positive integer or None, got {self.batch_size!r}")
        if not isinstance(self.eval_every, int) or self.eval_every < 1:
            bad(f"eval_every must be a positive integer, got {self.eval_every!r}")
        if self.grad_clip is not None and self.grad_clip <= 0:
            bad(f"grad_clip must be positive or None, got {self.grad_clip!r}")
        if self.stop_when is not None:
            if len(self.stop_when) != 3 or self.stop_when[1] not in ("acc", "loss"):
                bad(f"stop_when must be (eval set, 'acc' or 'loss', threshold), got {self.stop_when!r}")

    def per_member(self, name: str, k: int) -> list[float]:
        values = getattr(self, name)
        if isinstance(values, tuple):
            if len(values) != k:
                raise ValueError(f"TrainConfig: {name} has {len(values)} values for {k} members")
            return [float(v) for v in values]
        return [float(values)] * k

    def lr_factor(self, step: int) -> float:
        """Multiplier of the base learning rate for update number ``step`` (0-based)."""
        if self.schedule == "constant":
            return 1.0
        if step < self.warmup:
            return 0.01 + 0.99 * step / self.warmup
        span = max(1, self.steps - self.warmup)
        return 0.5 * (1.0 + math.cos(math.pi * (step - self.warmup) / span))

    def to_dict(self) -> dict:
        return asdict(self)


# ------------------------------------------------------------------------- losses, metrics
def loss_and_correct(logits: torch.Tensor, y: torch.Tensor, kind: str):
    """Per-member mean loss ``(K,)``, correct count ``(K,)`` and counted targets ``(K,)``.

    ``logits`` is ``(K, B, C)`` or ``(K, B, n, C)``; targets equal to IGNORE are skipped.
    """
    K = logits.shape[0]
    if kind == "mse":
        pred = logits.reshape(y.shape) if logits.numel() == y.numel() else logits
        err = ((pred - y.to(pred.dtype)) ** 2).reshape(K, -1).mean(1)
        nan = torch.full((K,), float("nan"), device=logits.device)
        return err, nan, torch.ones(K, device=logits.device)
    C = logits.shape[-1]
    flat_logits, flat_y = logits.reshape(-1, C), y.reshape(-1)
    losses = F.cross_entropy(flat_logits, flat_y, ignore_index=IGNORE, reduction="none").reshape(K, -1)
    counted = (y.reshape(K, -1) != IGNORE)
    n = counted.sum(1).clamp_min(1)
    correct = ((flat_logits.argmax(-1) == flat_y).reshape(K, -1) & counted).sum(1)
    return losses.sum(1) / n, correct.to(logits.dtype), n.to(logits.dtype)


# ------------------------------------------------------------------------- optimizers
def _member_view(values: torch.Tensor, like: torch.Tensor) -> torch.Tensor:
    return values.reshape((-1,) + (1,) * (like.dim() - 1))


class StackedOptimizer:
    """SGD (with momentum), Adam and AdamW on stacked parameters, as ``torch.optim`` does them.

    ``lr`` and ``weight_decay`` are tensors of shape ``(K,)``; ``active`` (K,) freezes
    stopped members.
    """

    def __init__(self, params: dict[str, torch.Tensor], config: TrainConfig, lr, weight_decay):
        self.params, self.config = params, config
        self.lr, self.wd = lr, weight_decay
        self.t = 0
        self.state = {name: {} for name in params}

    @torch.no_grad()
    def step(self, grads: dict[str, torch.Tensor], factor: float, active: torch.Tensor) -> None:
        c = self.config
        self.t += 1
        for name, p in self.params.items():
            g = grads[name]
            lr = _member_view(self.lr * factor, p)
            wd = _member_view(self.wd, p)
            keep = _member_view(active, p)
            state = self.state[name]
            if c.optimizer == "sgd":
                g = g + wd * p
                if c.momentum:
                    buf = state.get("momentum")
                    buf = g.clone() if buf is None else buf * c.momentum + g
                    state["momentum"] = buf
                    g = buf
                update = lr * g
            else:
                if c.optimizer == "adam":
                    g = g + wd * p
                    decay = 0.0
                else:  # adamw: decoupled decay
                    decay = lr * wd * p
                b1, b2 = c.betas
                m = state.setdefault("exp_avg", torch.zeros_like(p))
                v = state.setdefault("exp_avg_sq", torch.zeros_like(p))
                m.lerp_(g, 1 - b1)
                v.mul_(b2).addcmul_(g, g, value=1 - b2)
                bias1 = 1 - b1**self.t
                bias2_sqrt = math.sqrt(1 - b2**self.t)
                denom = (v.sqrt() / bias2_sqrt).add_(c.eps)
                update = (lr / bias1) * m / denom + decay
            p.sub_(keep * update)


def clip_per_member(grads: dict[str, torch.Tensor], max_norm: float) -> None:
    """Scale each member's gradient to norm <= max_norm (as ``clip_grad_norm_`` does per model)."""
    first = next(iter(grads.values()))
    total = torch.zeros(first.shape[0], device=first.device, dtype=first.dtype)
    for g in grads.values():
        total = total + g.reshape(first.shape[0], -1).pow(2).sum(1).to(total.dtype)
    coef = (max_norm / (total.sqrt() + 1e-6)).clamp(max=1.0)
    for g in grads.values():
        g.mul_(_member_view(coef, g).to(g.dtype))


# ------------------------------------------------------------------------- data
DATA_SEED_OFFSET = 1_000_003  # member data streams never share a seed with its weights


def data_seed(seed: int) -> int:
    return seed + DATA_SEED_OFFSET


class _Source:
    """Yields per-member training batches ``(K, B, ...)`` from a task or fixed data."""

    def __init__(self, data, seeds: Sequence[int], batch_size: int | None):
        self.data, self.batch_size, K = data, batch_size, len(seeds)
        self.generators = [make_generator(data_seed(s)) for s in seeds]
        if isinstance(data, Task):
            if batch_size is None:
                raise ValueError("train: online tasks need a batch_size")
            self.kind = "task"
        elif isinstance(data, Batch):
            self.kind = "shared"
        elif isinstance(data, (list, tuple)) and all(isinstance(b, Batch) for b in data):
            if len(data) != K:
                raise ValueError(f"train: {len(data)} per-member datasets for {K} members")
            if len({len(b) for b in data}) != 1:
                raise ValueError("train: per-member datasets must have equal sizes")
            self.kind = "per_member"
        else:
            raise ValueError("train: training data must be a Task, a Batch, or one Batch per member")

    def next(self) -> Batch:
        if self.kind == "task":
            return Batch.stack([self.data.sample(self.batch_size, generator=g) for g in self.generators])
        members = [self.data] * len(self.generators) if self.kind == "shared" else self.data
        if self.batch_size is None:
            return Batch.stack(members)
        picks = []
        for batch, g in zip(members, self.generators):
            picks.append(batch[torch.randint(len(batch), (self.batch_size,), generator=g)])
        return Batch.stack(picks)


def _eval_sets(evals: Mapping | None, K: int, config: TrainConfig) -> dict[str, Batch]:
    out = {}
    for name, data in (evals or {}).items():
        if isinstance(data, Task):
            out[name] = Batch.stack([data.sample(config.eval_size, seed=12_345)] * K)
        elif isinstance(data, Batch):
            out[name] = Batch(data.x.expand(K, *data.x.shape), data.y.expand(K, *data.y.shape))
        elif isinstance(data, (list, tuple)) and len(data) == K:
            out[name] = Batch.stack(list(data))
        else:
            raise ValueError(f"train: evaluation set {name!r} must be a Task, a Batch, or one Batch per member")
    return out


# ------------------------------------------------------------------------- the run
@dataclass
class Run:
    """What an ensemble training returns. Metrics arrays are ``(K, number of evaluations)``."""

    seeds: list[int]
    config: TrainConfig
    eval_steps: list[int]
    metrics: dict[str, dict[str, np.ndarray]]
    train_loss: np.ndarray  # (K, steps run)
    stopped_at: np.ndarray  # (K,), step at which each member stopped; -1 if it never did
    wall_s: float
    params: dict[str, torch.Tensor] = field(repr=False)
    buffers: dict[str, torch.Tensor] = field(repr=False)
    make_model: Callable[[int], nn.Module] = field(repr=False)  # member index -> fresh module

    @property
    def K(self) -> int:
        return len(self.seeds)

    def final(self, name: str, metric: str = "acc") -> np.ndarray:
        """Each member's last evaluated value of ``metric`` on set ``name``, shape (K,)."""
        return self.metrics[name][metric][:, -1]

    def model(self, k: int) -> nn.Module:
        """Member ``k`` as an ordinary module with its trained weights (on the CPU)."""
        first = next(iter(self.params.values()))
        module = self.make_model(k).to(first.dtype)
        state = {n: t[k].detach().cpu() for n, t in {**self.params, **self.buffers}.items()}
        module.load_state_dict(state)
        return module

    def summary(self) -> dict:
        """JSON-able metrics (lists), for :mod:`lib.results`."""
        return {
            "seeds": list(self.seeds),
            "eval_steps": list(self.eval_steps),
            "metrics": {n: {m: v.tolist() for m, v in d.items()} for n, d in self.metrics.items()},
            "stopped_at": self.stopped_at.tolist(),
            "wall_s": self.wall_s,
        }


def _as_factory(model) -> Callable[[int], nn.Module]:
    if hasattr(model, "model_class"):  # a family's config
        return lambda seed: build_model(model, seed=seed)
    if callable(model):
        return model
    raise ValueError("train: model must be a model config (e.g. AttentionConfig) or a function seed -> nn.Module")


def train(model, seeds: Sequence[int], config: TrainConfig, data, evals: Mapping | None = None, *,
          device=None, dtype: torch.dtype | None = None, progress: bool = True, desc: str = "train",
          stop_after: int | None = None) -> Run:
    """Train one model per seed, all together, and evaluate them every ``eval_every`` steps.

    ``model``: a model config (:class:`~lib.models.AttentionConfig`, ...) or a function ``seed -> nn.Module`` (e.g. one that
    builds a model and loads a construction into its first layer), or one of those per member
    (a list as long as ``seeds``; the modules must share shapes, e.g. restricted ``maskable``
    models of different head counts, which makes a whole sweep one ensemble).
    ``data``: a :class:`Task` (fresh batches from each member's own generator), a
    :class:`Batch` shared by all members, or one Batch per member.
    ``evals``: named evaluation sets, each a Task (one fixed sample), a Batch, or one
    Batch per member; ``config.stop_when`` refers to them by name.
    ``stop_after``: end after this many steps of the same run (same learning-rate schedule),
    so its first steps can be recomputed cheaply (``python -m lib.results verify``).
    """
    seeds = [int(s) for s in seeds]
    if not seeds:
        raise ValueError("train: give at least one seed")
    K = len(seeds)
    if isinstance(model, (list, tuple)):
        if len(model) != K:
            raise ValueError(f"train: {len(model)} models for {K} seeds")
        factories = [_as_factory(m) for m in model]
    else:
        factories = [_as_factory(model)] * K

    def factory(k: int) -> nn.Module:
        return factories[k](seeds[k])

    device = torch.device(device) if device is not None else torch.device("cpu")
    models = [factory(k) for k in range(K)]
    if dtype is not None:
        models = [m.to(dtype) for m in models]
    models = [m.to(device) for m in models]
    params, buffers = stack_module_state(models)
    params = {n: p.detach().requires_grad_(True) for n, p in params.items()}
    base = copy.deepcopy(models[0]).to("meta")
    del models

    def member_forward(p, b, x):
        return functional_call(base, (p, b), (x,))

    forward = vmap(member_forward)
    float_dtype = next(iter(params.values())).dtype
    lr = torch.tensor(config.per_member("lr", K), device=device, dtype=float_dtype)
    wd = torch.tensor(config.per_member("weight_decay", K), device=device, dtype=float_dtype)
    optimizer = StackedOptimizer(params, config, lr, wd)
    source = _Source(data, seeds, config.batch_size)
    eval_sets = {n: b.to(device) for n, b in _eval_sets(evals, K, config).items()}
    if config.stop_when is not None and config.stop_when[0] not in eval_sets:
        raise ValueError(f"train: stop_when refers to evaluation set {config.stop_when[0]!r}, "
                         f"but evals has {sorted(eval_sets) or 'none'}")

    active = torch.ones(K, device=device, dtype=float_dtype)
    stopped_at = np.full(K, -1)
    eval_steps: list[int] = []
    history: dict[str, dict[str, list]] = {n: {"loss": [], "acc": []} for n in eval_sets}
    losses = []

    @torch.no_grad()
    def evaluate(step: int) -> None:
        eval_steps.append(step)
        for name, batch in eval_sets.items():
            total_loss = torch.zeros(K, device=device, dtype=torch.float64)
            correct = torch.zeros(K, device=device, dtype=torch.float64)
            counted = torch.zeros(K, device=device, dtype=torch.float64)
            n = batch.x.shape[1]
            for start in range(0, n, 1024):
                x, y = batch.x[:, start:start + 1024], batch.y[:, start:start + 1024]
                loss, right, count = loss_and_correct(forward(params, buffers, x), y, config.loss)
                total_loss += loss.double() * count.double()
                correct += right.double()
                counted += count.double()
            history[name]["loss"].append((total_loss / counted).cpu().numpy())
            history[name]["acc"].append((correct / counted).cpu().numpy())
        if config.stop_when is not None:
            name, metric, threshold = config.stop_when
            value = history[name][metric][-1]
            done = value >= threshold if metric == "acc" else value <= threshold
            newly = done & (stopped_at < 0)
            stopped_at[newly] = step
            active[torch.as_tensor(newly, device=device)] = 0.0

    start_time = time.perf_counter()
    evaluate(0)
    bar = tqdm(total=config.steps, desc=desc, disable=not progress, mininterval=1.0, leave=False)
    step = 0
    last = config.steps if stop_after is None else min(config.steps, int(stop_after))
    for step in range(1, last + 1):
        if not bool(active.any()):
            step -= 1
            break
        batch = source.next().to(device)
        loss, _, _ = loss_and_correct(forward(params, buffers, batch.x), batch.y, config.loss)
        grads = dict(zip(params, torch.autograd.grad(loss.sum(), list(params.values()))))
        if config.grad_clip is not None:
            clip_per_member(grads, config.grad_clip)
        optimizer.step(grads, config.lr_factor(step - 1), active)
        losses.append(loss.detach())
        if step % config.eval_every == 0 or step == config.steps:
            evaluate(step)
            shown = {f"{n}_acc": f"{np.mean(h['acc'][-1]):.3f}" for n, h in history.items()}
            bar.set_postfix(active=int(active.sum()), **shown)
        bar.update(1)
    bar.close()
    if eval_steps[-1] != step:
        evaluate(step)
    wall = time.perf_counter() - start_time
    train_loss = torch.stack(losses, 1).cpu().numpy() if losses else np.zeros((K, 0))
    metrics = {n: {m: np.stack(v, 1) for m, v in h.items()} for n, h in history.items()}
    return Run(seeds=seeds, config=config, eval_steps=eval_steps, metrics=metrics, train_loss=train_loss,
               stopped_at=stopped_at, wall_s=wall, params={n: p.detach() for n, p in params.items()},
               buffers=dict(buffers), make_model=factory)
