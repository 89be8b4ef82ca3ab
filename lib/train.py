"""One trainer for the whole book: an ensemble of K independent models in one batched pass.

The K members share shapes and differ in seed (initial weights, data order) and, if asked, in
learning rate or weight decay. Their parameters live in one flat buffer (:mod:`lib.optim`), the
forward pass is ``vmap``-ed over the members, and the optimizer updates the whole buffer in a
dozen element-wise kernels, so K small models cost about as much as one wide one and the
per-step work on the host does not grow with K:

* fixed training data sits on the device; each member's minibatch indices come from a
  counter-based generator keyed by its seed and the step (:func:`keyed_indices`, one call for
  all members: draws with replacement, the default), or from shuffled epochs as torch's
  ``DataLoader(shuffle=True)`` makes them (``TrainConfig(batches="epochs")``, :class:`EpochOrder`:
  a permutation per epoch, the last partial batch kept); an online :class:`~lib.tasks.Task` is
  sampled on the host with each member's own generator, an evaluation interval at a time, and
  moved to the device in one copy;
* nothing waits for the device between evaluations (early stopping is decided there);
* on a GPU each update can be replayed as a captured CUDA graph (``graph=True``, the default on
  CUDA), which removes the launch cost of its few hundred small kernels;
* inside :func:`checkpoints` a run saves its state every few minutes and resumes exactly.

What is guaranteed, and in which dtype (``tests/test_train.py`` checks each):

* float64: member k of an ensemble ends with the same numbers as that model trained alone with
  the same seed, and as a plain ``torch.optim`` loop (to 1e-9), step by step;
* float32 (what the book trains in): the same up to rounding: batched kernels for K members
  may round differently from K = 1, so losses agree to about 1e-6 relative and drift slowly.
  A stop test on a threshold (``stop_when``) can then fire one evaluation earlier or later for
  a member that sits on the threshold; a 4th entry in ``stop_when`` (a logit margin, e.g.
  ``("train", "acc", 1.0, 1e-3)``) counts an example only if it is right by more than that
  margin, which keeps such near-ties from deciding the stop;
* a resumed run ends with exactly the numbers of an uninterrupted one (any dtype).

Each member stops on its own (``stop_when``): once stopped, its weights are frozen while
the others go on, and training ends when every member has stopped.
"""
from __future__ import annotations

import contextlib
import contextvars
import copy
import math
import os
import time
import warnings
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Callable, Mapping, Sequence

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn
from torch.func import functional_call, stack_module_state, vmap
from tqdm.auto import tqdm

from . import validate
from .models import build_model
from .models.embedding import check_inputs
from .optim import FlatStack, StackedOptimizer, clip_per_member
from .tasks.base import IGNORE, Batch, Task, make_generator

OPTIMIZERS = ("sgd", "adam", "adamw")
SCHEDULES = ("constant", "warmup_cosine")
LOSSES = ("cross_entropy", "mse")
#: how fixed data is cut into minibatches: independent draws with replacement (keyed_indices), or
#: shuffled epochs as torch's DataLoader(shuffle=True) makes them (EpochOrder)
BATCHES = ("with_replacement", "epochs")


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
    # e.g. ("train", "acc", 1.0); a 4th entry, a logit margin, makes the "acc" test count an example
    # only if its target logit wins by more than that (a stop robust to float noise; see train())
    stop_when: tuple | None = None
    # fixed data with a batch_size: "with_replacement" (each step's indices drawn independently) or
    # "epochs" (each epoch a shuffled permutation, batches of batch_size, the last partial one kept)
    batches: str = "with_replacement"

    def __post_init__(self):
        def bad(message):
            raise ValueError(f"TrainConfig: {message}")

        owner = "TrainConfig"
        validate.integer(owner, "steps", self.steps, minimum=0)
        validate.choice(owner, "optimizer", self.optimizer, OPTIMIZERS)
        validate.choice(owner, "schedule", self.schedule, SCHEDULES)
        validate.choice(owner, "loss", self.loss, LOSSES)
        validate.choice(owner, "batches", self.batches, BATCHES)
        if self.batches == "epochs" and self.batch_size is None:
            bad("batches='epochs' needs a batch_size (None trains on the full set every step)")
        for name, bounds in (("lr", {"above": 0.0}), ("weight_decay", {"minimum": 0.0})):
            values = getattr(self, name)
            if isinstance(values, (tuple, list)):
                if not values:
                    bad(f"{name} must be a number or a non-empty tuple of them (one per member), got {values!r}")
                for i, v in enumerate(values):
                    validate.real(owner, f"{name}[{i}]", v, **bounds)
            else:
                validate.real(owner, name, values, **bounds)
        validate.real(owner, "momentum", self.momentum, minimum=0.0, below=1.0)
        if not isinstance(self.betas, (tuple, list)) or len(self.betas) != 2:
            validate.fail(owner, "betas", "a pair (beta1, beta2) in [0, 1)", self.betas, validate.ArgumentTypeError)
        for i, beta in enumerate(self.betas):
            validate.real(owner, f"betas[{i}]", beta, minimum=0.0, below=1.0)
        validate.real(owner, "eps", self.eps, above=0.0)
        validate.integer(owner, "warmup", self.warmup, minimum=0)
        if self.grad_clip is not None:
            validate.real(owner, "grad_clip", self.grad_clip, above=0.0)
        if self.batch_size is not None:
            validate.integer(owner, "batch_size", self.batch_size, minimum=1)
        validate.integer(owner, "eval_every", self.eval_every, minimum=1)
        validate.integer(owner, "eval_size", self.eval_size, minimum=1)
        if self.stop_when is not None:
            if not isinstance(self.stop_when, tuple) or len(self.stop_when) not in (3, 4) or \
                    self.stop_when[1] not in ("acc", "loss") or isinstance(self.stop_when[2], bool) or \
                    not isinstance(self.stop_when[2], (int, float)) or not math.isfinite(self.stop_when[2]) or (
                    len(self.stop_when) == 4 and not (self.stop_when[1] == "acc" and isinstance(
                        self.stop_when[3], (int, float)) and math.isfinite(self.stop_when[3]) and self.stop_when[3] >= 0)):
                bad(f"stop_when must be (eval set, 'acc' or 'loss', threshold) or (eval set, 'acc', threshold, "
                    f"margin >= 0), got {self.stop_when!r}")

    @property
    def stop_margin(self) -> float:
        """The logit margin of an "acc" stop test (0: plain accuracy)."""
        return float(self.stop_when[3]) if self.stop_when is not None and len(self.stop_when) == 4 else 0.0

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
        """The fields as a dict; ``batches`` only when it is not the default, so that the configs
        stored before it existed (and checkpoints' fingerprints) stay the same."""
        out = asdict(self)
        if out["batches"] == "with_replacement":
            del out["batches"]
        return out


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


def correct_by_margin(logits: torch.Tensor, y: torch.Tensor, margin: float) -> torch.Tensor:
    """Per-member count ``(K,)`` of examples whose target logit beats every other by more than
    ``margin`` (classification; IGNORE targets skipped): the stop test of ``stop_margin``."""
    C = logits.shape[-1]
    flat_logits, flat_y = logits.reshape(-1, C), y.reshape(-1)
    counted = flat_y != IGNORE
    target = flat_logits.gather(1, flat_y.clamp_min(0)[:, None])[:, 0]
    others = flat_logits.scatter(1, flat_y.clamp_min(0)[:, None], float("-inf")).max(1).values
    clear = (target - others > margin) & counted
    return clear.reshape(logits.shape[0], -1).sum(1)


# ------------------------------------------------------------------------- data
DATA_SEED_OFFSET = 1_000_003  # member data streams never share a seed with its weights
_GOLDEN = -7046029254386353131  # 0x9E3779B97F4A7C15 as a signed 64-bit integer
_MIX1 = -4658895280553007687  # 0xBF58476D1CE4E5B9
_MIX2 = -7723592293110705685  # 0x94D049BB133111EB


def data_seed(seed: int) -> int:
    return seed + DATA_SEED_OFFSET


def _mix(z: torch.Tensor) -> torch.Tensor:
    """SplitMix64's finaliser on int64 tensors (wrapping arithmetic, logical shifts)."""
    z = (z ^ ((z >> 30) & ((1 << 34) - 1))) * _MIX1
    z = (z ^ ((z >> 27) & ((1 << 37) - 1))) * _MIX2
    return z ^ ((z >> 31) & ((1 << 33) - 1))


def keyed_indices(keys: torch.Tensor, step: int | torch.Tensor, batch_size: int, population: int) -> torch.Tensor:
    """Batch indices ``(K, batch_size)`` in ``[0, population)`` for update ``step``, a pure function
    of each member's key: one call for the whole ensemble, on the keys' device, the same on every
    device and for every K (a counter-based generator, like Philox, built from SplitMix64)."""
    base = _mix(keys * _GOLDEN + _mix(torch.as_tensor(step, dtype=torch.int64, device=keys.device)))
    j = torch.arange(batch_size, dtype=torch.int64, device=keys.device)
    z = _mix(base[:, None] + (j[None, :] + 1) * _GOLDEN)
    return ((z >> 1) & ((1 << 62) - 1)) % population


def _int64_draw(generator: torch.Generator) -> int:
    """One ``torch.empty((), dtype=torch.int64).random_()`` from ``generator``: the draw torch's
    DataLoader makes for an iterator's base seed, and RandomSampler for its epoch's seed."""
    return int(torch.empty((), dtype=torch.int64).random_(generator=generator).item())


class EpochOrder:
    """One member's shuffled epochs, as ``DataLoader(dataset, batch_size, shuffle=True)`` draws
    them from torch's global generator, here ``generator`` (a CPU ``torch.Generator`` in the
    state the global one would be in when training starts).

    Each epoch the loop calls ``iter(loader)``, which draws the iterator's base seed (one int64),
    and its first batch makes ``RandomSampler`` draw another int64, seed a fresh generator with
    it and take ``torch.randperm(population)`` from that; the batches are that permutation cut
    into ``batch_size`` pieces, the last one partial (``drop_last=False``). A loop that also
    iterates another DataLoader (an evaluation set, ``shuffle=False``) after updates
    1, 1 + E, 1 + 2E, ... (``other_loader_every=E``) draws one base seed each time, in between.
    ``tests/test_train.py`` checks the batches against a real DataLoader.
    """

    def __init__(self, generator: torch.Generator, *, other_loader_every: int | None = None):
        validate.instance("EpochOrder", "generator", generator, torch.Generator)
        if generator.device.type != "cpu":
            validate.fail("EpochOrder", "generator", "a CPU generator (torch's global one is)", generator.device)
        if other_loader_every is not None:
            validate.integer("EpochOrder", "other_loader_every", other_loader_every, minimum=1)
        self.generator, self.every, self.other_draws = generator, other_loader_every, 0

    def permutation(self, population: int, first_update: int) -> torch.Tensor:
        """The order of the epoch whose first update is number ``first_update`` (0-based), shape
        ``(population,)``; epochs must be asked for in order."""
        if self.every is not None:  # the other loader's iterations before this epoch's first batch
            due = -(-first_update // self.every)
            for _ in range(due - self.other_draws):
                _int64_draw(self.generator)
            self.other_draws = max(self.other_draws, due)
        _int64_draw(self.generator)  # iter(loader): the iterator's base seed
        seed = _int64_draw(self.generator)  # RandomSampler.__iter__: the epoch's own generator
        return torch.randperm(population, generator=torch.Generator().manual_seed(seed))

    def state_dict(self) -> dict:
        return {"generator": self.generator.get_state(), "other_draws": self.other_draws}

    def load_state_dict(self, state: dict) -> None:
        self.generator.set_state(state["generator"])
        self.other_draws = int(state["other_draws"])


class _Source:
    """Each update's training batch ``(K, B, ...)``, resident on the device.

    * fixed data (one Batch shared by all members, or one per member) is moved to the device
      once; the full set is every step's batch (``batch_size=None``), or each member's
      indices come from :func:`keyed_indices` (no host work, no generator state), or from its
      :class:`EpochOrder` (``epochs``: one permutation per member and epoch, drawn on the host
      and moved to the device once per epoch);
    * a Task is sampled on the host with each member's own generator, as before, but a whole
      run of updates (up to the next evaluation) at a time, and moved to the device in one
      copy. The streams are those of one ``sample(batch_size)`` call per update.
    """

    CHUNK_BYTES = 64 * 2**20  # a task's pre-drawn batches, at most

    def __init__(self, data, seeds: Sequence[int], batch_size: int | None, device: torch.device,
                 epochs: Sequence[EpochOrder] | None = None):
        self.batch_size, self.device, K = batch_size, device, len(seeds)
        self.data, self.epochs = data, epochs
        if isinstance(data, Task):
            if batch_size is None:
                raise ValueError("train: online tasks need a batch_size")
            self.kind = "task"
            self.generators = [make_generator(data_seed(s)) for s in seeds]
            self.pool, self.pool_start = None, 0
        elif isinstance(data, Batch):
            self.kind = "fixed"
            x, y = data.x.to(device), data.y.to(device)
            self.x, self.y = x.expand(K, *x.shape), y.expand(K, *y.shape)
        elif isinstance(data, (list, tuple)) and data and all(isinstance(b, Batch) for b in data):
            if len(data) != K:
                raise ValueError(f"train: {len(data)} per-member datasets for {K} members")
            if len({len(b) for b in data}) != 1:
                raise ValueError("train: per-member datasets must have equal sizes")
            self.kind = "fixed"
            stacked = Batch.stack(list(data))
            self.x, self.y = stacked.x.to(device), stacked.y.to(device)
        else:
            raise ValueError("train: training data must be a Task, a Batch, or one Batch per member")
        if self.kind == "fixed" and batch_size is not None:
            self.keys = torch.tensor([data_seed(s) for s in seeds], dtype=torch.int64, device=device)
            self.members = torch.arange(K, device=device)[:, None]
        if epochs is not None:
            if self.kind != "fixed" or batch_size is None:
                raise ValueError("train: batches='epochs' needs fixed training data (a Batch, or one per member) "
                                 "and a batch_size")
            if len(epochs) != K or not all(isinstance(e, EpochOrder) for e in epochs):
                raise ValueError(f"train: epochs must be one EpochOrder per member ({K})")
            self.per_epoch = -(-self.x.shape[1] // batch_size)
            self.epoch, self.order = -1, None

    def batch(self, step: int, until: int) -> tuple[torch.Tensor, torch.Tensor]:
        """The batch of update ``step`` (1-based); ``until``: the last update before the next
        evaluation (a task draws its updates up to there in one go)."""
        if self.kind == "fixed":
            if self.batch_size is None:
                return self.x, self.y
            if self.epochs is not None:
                idx = self._epoch_indices(step)
                return self.x[self.members, idx], self.y[self.members, idx]
            idx = keyed_indices(self.keys, step, self.batch_size, self.x.shape[1])
            return self.x[self.members, idx], self.y[self.members, idx]
        if self.pool is None or not self.pool_start <= step < self.pool_start + self.pool[0].shape[1]:
            self._draw(step, until)
        i = step - self.pool_start
        return self.pool[0][:, i], self.pool[1][:, i]

    def _epoch_indices(self, step: int) -> torch.Tensor:
        """Each member's indices ``(K, b)`` for update ``step`` (1-based) in shuffled epochs."""
        epoch, i = divmod(step - 1, self.per_epoch)
        if epoch != self.epoch:
            if epoch != self.epoch + 1:
                raise RuntimeError(f"train: epoch {epoch} asked for after epoch {self.epoch} (epochs go in order)")
            population = self.x.shape[1]
            self.order = torch.stack([e.permutation(population, epoch * self.per_epoch) for e in self.epochs]
                                     ).to(self.device)
            self.epoch = epoch
        return self.order[:, i * self.batch_size:(i + 1) * self.batch_size]

    def _draw(self, first: int, until: int) -> None:
        one = self.data.sample(self.batch_size, generator=self.generators[0])
        per_step = len(self.generators) * (one.x.numel() * one.x.element_size() + one.y.numel() * one.y.element_size())
        count = max(1, min(until - first + 1, self.CHUNK_BYTES // max(1, per_step)))
        members = []
        for k, g in enumerate(self.generators):
            draws = [one] if k == 0 else []
            draws += [self.data.sample(self.batch_size, generator=g) for _ in range(count - len(draws))]
            members.append(Batch.stack(draws))
        stacked = Batch.stack(members)  # (K, count, B, ...)
        self.pool = (stacked.x.to(self.device, non_blocking=True), stacked.y.to(self.device, non_blocking=True))
        self.pool_start = first

    def state_dict(self) -> dict:
        """What a resumed run needs (taken at an evaluation, where no drawn batch is pending)."""
        if self.epochs is not None:
            return {"epochs": [e.state_dict() for e in self.epochs], "epoch": self.epoch,
                    "order": None if self.order is None else self.order.cpu()}
        return {"generators": [g.get_state() for g in self.generators]} if self.kind == "task" else {}

    def load_state_dict(self, state: dict) -> None:
        if self.kind == "task":
            for g, s in zip(self.generators, state["generators"]):
                g.set_state(s)
            self.pool = None
        if self.epochs is not None:
            for e, s in zip(self.epochs, state["epochs"]):
                e.load_state_dict(s)
            self.epoch = int(state["epoch"])
            self.order = None if state["order"] is None else state["order"].to(self.device)


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
    resumed_at: int = 0  # the step a checkpoint resumed this run from (0: it ran from the start)
    # (K,), the evaluation step at which a member's loss or weights stopped being finite (-1: never);
    # such a member is frozen there and its metrics from that evaluation on are NaN, not numbers
    diverged_at: np.ndarray | None = None

    @property
    def diverged(self) -> np.ndarray:
        """Whether each member diverged (its loss or weights became NaN or infinite), shape (K,)."""
        return np.zeros(self.K, bool) if self.diverged_at is None else self.diverged_at >= 0

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
          stop_after: int | None = None, graph: bool | None = None,
          epochs: Sequence[EpochOrder] | None = None) -> Run:
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
    ``graph``: capture each update as a CUDA graph (default: on a CUDA device), which removes
    the per-step launch overhead of many small kernels; the numbers are those of the eager step.
    ``epochs``: with ``config.batches="epochs"``, each member's :class:`EpochOrder` (the state of
    the generator its DataLoader would draw from); default: one on a generator seeded with the
    member's :func:`data_seed`.

    Inside :func:`checkpoints`, the run saves its state every few minutes (at evaluations) and
    a rerun of the same call resumes from it, ending with exactly the numbers of an
    uninterrupted run.
    """
    seeds = validate.integers("train", "seeds", seeds, minimum=0)
    if not isinstance(config, TrainConfig):
        raise validate.ArgumentTypeError(f"train: config must be a TrainConfig, got {type(config).__name__}")
    if dtype is not None:
        validate.dtype("train", "dtype", dtype)
    if device is not None:
        validate.device("train", "device", device)
    validate.boolean("train", "progress", progress)
    if graph is not None:
        validate.boolean("train", "graph", graph)
    if stop_after is not None:
        stop_after = validate.integer("train", "stop_after", stop_after, minimum=0)
    limit = _STEP_LIMIT.get()
    if limit is not None:
        stop_after = limit if stop_after is None else min(int(stop_after), limit)
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
    first = factory(0)
    n_params = sum(p.numel() for p in first.parameters())
    size = torch.empty((), dtype=dtype).element_size() if dtype is not None else \
        max((p.element_size() for p in first.parameters()), default=4)
    validate.memory("train", f"the weights, gradients and two Adam moments of {K} members (4 x {K} x {n_params:.1e} "
                    "numbers)", 4 * K * n_params * size)
    models = [first] + [factory(k) for k in range(1, K)]
    if dtype is not None:
        models = [m.to(dtype) for m in models]
    models = [m.to(device) for m in models]
    _check_data(getattr(models[0], "config", None), data, evals, config)
    stacked, buffers = stack_module_state(models)
    base = copy.deepcopy(models[0]).to("meta")
    del models
    layout = FlatStack({n: p.shape[1:] for n, p in stacked.items()}, K)
    flat = layout.pack({n: p.detach() for n, p in stacked.items()})
    params = layout.views(flat)
    for p in params.values():
        p.requires_grad_(True)
    grad_flat = torch.zeros_like(flat)
    grad_views = list(layout.views(grad_flat).values())
    del stacked

    def member_forward(p, b, x):
        return functional_call(base, (p, b), (x,))

    forward = vmap(member_forward)
    float_dtype = flat.dtype
    lr = torch.tensor(config.per_member("lr", K), device=device, dtype=float_dtype)
    wd = torch.tensor(config.per_member("weight_decay", K), device=device, dtype=float_dtype)
    optimizer = StackedOptimizer(layout, flat, config, lr, wd)
    if epochs is not None and config.batches != "epochs":
        raise ValueError("train: epochs (EpochOrder per member) are for config.batches='epochs'")
    if config.batches == "epochs" and epochs is None:
        epochs = [EpochOrder(torch.Generator().manual_seed(data_seed(s))) for s in seeds]
    source = _Source(data, seeds, config.batch_size, device, epochs)
    eval_sets = {n: b.to(device) for n, b in _eval_sets(evals, K, config).items()}
    if config.stop_when is not None and config.stop_when[0] not in eval_sets:
        raise ValueError(f"train: stop_when refers to evaluation set {config.stop_when[0]!r}, "
                         f"but evals has {sorted(eval_sets) or 'none'}")

    last = config.steps if stop_after is None else min(config.steps, int(stop_after))
    stopped_at = np.full(K, -1)
    diverged_at = np.full(K, -1)
    eval_steps: list[int] = []
    history: dict[str, dict[str, list]] = {n: {"loss": [], "acc": []} for n in eval_sets}
    loss_log = torch.zeros(last, K, device=device, dtype=float_dtype)

    def update(x, y, scalars):
        """One training step of every member: forward, gradients, (clip), optimizer."""
        loss, _, _ = loss_and_correct(forward(params, buffers, x), y, config.loss)
        grads = list(torch.autograd.grad(loss.sum(), list(params.values())))
        if config.grad_clip is not None:
            clip_per_member(grads, config.grad_clip)
        with torch.no_grad():
            for view, g in zip(grad_views, grads):
                view.copy_(g)
        optimizer.step(grad_flat, scalars)
        return loss.detach()

    stop_name = config.stop_when[0] if config.stop_when is not None else None

    @torch.no_grad()
    def evaluate(step: int) -> None:
        eval_steps.append(step)
        stop_value = None
        for name, batch in eval_sets.items():
            clear = torch.zeros(K, device=device, dtype=torch.float64)
            total_loss = torch.zeros(K, device=device, dtype=torch.float64)
            correct = torch.zeros(K, device=device, dtype=torch.float64)
            counted = torch.zeros(K, device=device, dtype=torch.float64)
            n = batch.x.shape[1]
            for start in range(0, n, 1024):
                x, y = batch.x[:, start:start + 1024], batch.y[:, start:start + 1024]
                logits = forward(params, buffers, x)
                loss, right, count = loss_and_correct(logits, y, config.loss)
                total_loss += loss.double() * count.double()
                correct += right.double()
                counted += count.double()
                if config.stop_margin and stop_name == name:
                    clear += correct_by_margin(logits, y, config.stop_margin).double()
            history[name]["loss"].append((total_loss / counted).cpu().numpy())
            history[name]["acc"].append((correct / counted).cpu().numpy())
            if config.stop_margin and stop_name == name:
                stop_value = (clear / counted).cpu().numpy()
        # a member whose training loss or weights are no longer finite has diverged: freeze it and
        # report NaN for it from here on (its "accuracy" would be an artefact of NaN logits). An
        # evaluation loss alone may overflow on unseen inputs while training is sound: it is kept.
        finite = torch.isfinite(loss_log[:step]).all(0) if step else torch.ones(K, dtype=torch.bool, device=device)
        for view in params.values():
            finite &= torch.isfinite(view.detach().reshape(K, -1)).all(1)
        finite = finite.cpu().numpy()
        newly_diverged = ~finite & (diverged_at < 0)
        if newly_diverged.any():
            diverged_at[newly_diverged] = step
            optimizer.freeze(torch.as_tensor(_training(stopped_at, diverged_at), device=device))
        if (diverged_at >= 0).any():
            for h in history.values():
                for metric in h:
                    h[metric][-1] = np.where(diverged_at >= 0, np.nan, h[metric][-1])
        if config.stop_when is not None:
            name, metric, threshold = config.stop_when[:3]
            value = stop_value if metric == "acc" and config.stop_margin else history[name][metric][-1]
            done = value >= threshold if metric == "acc" else value <= threshold
            newly = done & _training(stopped_at, diverged_at)
            if newly.any():
                stopped_at[newly] = step
                optimizer.freeze(torch.as_tensor(_training(stopped_at, diverged_at), device=device))

    saver = _Checkpoint.begin(dict(seeds=seeds, config=config.to_dict(), layout=[(n, list(s)) for n, s in
                                                                              layout.shapes.items()],
                                   dtype=str(float_dtype), init=float(flat.double().abs().sum())))
    step, wall_before = 0, 0.0
    state = saver.load() if saver else None
    if state is not None and state["step"] > last:  # saved further than this call goes: recompute
        state = None
    if state is not None:  # resume where an interrupted run saved
        step, wall_before = _restore(state, flat, optimizer, source, stopped_at, diverged_at, eval_steps, history,
                                     loss_log)
    resumed_at = step

    start_time = time.perf_counter()
    if not eval_steps:
        evaluate(0)
    stepper = _CapturedStep(update, optimizer) if (graph if graph is not None else device.type == "cuda") else None
    bar = tqdm(total=last, initial=step, desc=desc, disable=not progress, mininterval=1.0, leave=False)
    while step < last and _training(stopped_at, diverged_at).any():
        step += 1
        until = min(last, (step + config.eval_every - 1) // config.eval_every * config.eval_every)
        x, y = source.batch(step, until)
        scalars = optimizer.scalars(config.lr_factor(step - 1))
        loss_log[step - 1] = stepper(x, y, scalars) if stepper is not None else update(x, y, scalars)
        if step % config.eval_every == 0 or step == config.steps:
            evaluate(step)
            shown = {f"{n}_acc": f"{np.mean(h['acc'][-1]):.3f}" for n, h in history.items()}
            bar.set_postfix(active=int(_training(stopped_at, diverged_at).sum()), **shown)
            if saver and step == until:
                saver.maybe_save(lambda: _snapshot(flat, optimizer, source, stopped_at, diverged_at, eval_steps, step,
                                                   history, loss_log, wall_before + time.perf_counter() - start_time))
            if step == until and step < last and _past_deadline():
                if saver:
                    saver.save(_snapshot(flat, optimizer, source, stopped_at, diverged_at, eval_steps, step, history,
                                         loss_log, wall_before + time.perf_counter() - start_time))
                bar.close()
                raise BudgetSpent(f"train ({desc}): the time budget ran out at step {step} of {last}"
                                  + ("; its state is saved and a rerun resumes there" if saver else ""))
        bar.update(1)
    bar.close()
    if eval_steps[-1] != step:
        evaluate(step)
    wall = wall_before + time.perf_counter() - start_time
    train_loss = loss_log[:step].T.cpu().numpy()
    metrics = {n: {m: np.stack(v, 1) for m, v in h.items()} for n, h in history.items()}
    run = Run(seeds=seeds, config=config, eval_steps=eval_steps, metrics=metrics, train_loss=train_loss,
              stopped_at=stopped_at, wall_s=wall, params={n: p.detach() for n, p in params.items()},
              buffers=dict(buffers), make_model=factory, resumed_at=resumed_at, diverged_at=diverged_at)
    if saver and stop_after is None:
        saver.save(_snapshot(flat, optimizer, source, stopped_at, diverged_at, eval_steps, step, history, loss_log,
                             wall))
    return run


def _training(stopped_at: np.ndarray, diverged_at: np.ndarray) -> np.ndarray:
    """Which members still train: neither stopped early nor diverged."""
    return (stopped_at < 0) & (diverged_at < 0)


def _check_data(model_config, data, evals, config: TrainConfig) -> None:
    """Up-front checks of what the trainer will feed the models (inside its vmapped step the
    models cannot check): token ids in the model's vocabulary, vector widths, and an output for
    every class of a classification loss."""
    if model_config is None or not hasattr(model_config, "input"):
        return
    sets = [("data", data)] + [(f"evals[{name!r}]", e) for name, e in (evals or {}).items()]
    for where, item in sets:
        batches = item if isinstance(item, (list, tuple)) else [item]
        for batch in batches:
            if isinstance(batch, Batch):
                check_inputs(f"train ({where})", model_config, batch.x)
                if config.loss == "cross_entropy" and batch.y.numel():
                    targets = batch.y[batch.y != IGNORE]
                    if targets.numel() and not targets.dtype.is_floating_point and \
                            int(targets.max()) >= model_config.n_out:
                        raise ValueError(f"train ({where}): targets go up to class {int(targets.max())}, but the "
                                         f"model has n_out={model_config.n_out} outputs")
            elif isinstance(batch, Task):
                if model_config.input == "tokens" and len(batch.vocab) > model_config.vocab_size:
                    raise ValueError(f"train ({where}): the task's vocabulary has {len(batch.vocab)} tokens, but "
                                     f"the model's vocab_size is {model_config.vocab_size}")
                if config.loss == "cross_entropy" and batch.target == "class" and \
                        batch.n_classes > model_config.n_out:
                    raise ValueError(f"train ({where}): the task has {batch.n_classes} classes, but the model has "
                                     f"n_out={model_config.n_out} outputs")


# ------------------------------------------------------------------------- captured steps
class _CapturedStep:
    """The update as a CUDA graph: captured once, then replayed with the step's batch copied
    into static buffers and the step's scalars written into 0-d device tensors.

    Warm-up runs (needed before capture) act on a copy of the state, which is then restored,
    so the trajectory is exactly the eager one. If capture fails, the eager step is used.
    """

    def __init__(self, update, optimizer: StackedOptimizer):
        self.update, self.optimizer, self.graph = update, optimizer, None
        self.failed = False
        self.shape, self.captured = None, {}  # one graph per batch shape (shuffled epochs end partial)

    def __call__(self, x, y, scalars):
        if self.failed:
            return self.update(x, y, scalars)
        shape = (tuple(x.shape), tuple(y.shape))
        if shape != self.shape and shape in self.captured:
            self.graph, self.x, self.y, self.scalars, self.loss = self.captured[shape]
            self.shape = shape
        elif shape != self.shape:
            try:
                self._capture(x, y, scalars)
            except Exception as error:  # noqa: BLE001 - fall back, loudly
                warnings.warn(f"train: CUDA graph capture failed ({error}); using the eager step", stacklevel=3)
                self.failed = True
                return self.update(x, y, scalars)
            self.shape = shape
            self.captured[shape] = (self.graph, self.x, self.y, self.scalars, self.loss)
        self.x.copy_(x)
        self.y.copy_(y)
        for name, value in scalars.items():
            self.scalars[name].fill_(value)
        self.graph.replay()
        self.optimizer.t += 1  # the replay runs no Python: count the update by hand
        return self.loss.clone()

    def _capture(self, x, y, scalars):
        opt = self.optimizer
        saved = (opt.params.clone(), opt.state_dict())
        self.x, self.y = x.clone(), y.clone()
        self.scalars = {k: torch.tensor(v, dtype=opt.params.dtype, device=x.device) for k, v in scalars.items()}
        side = torch.cuda.Stream()
        side.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(side):
            for _ in range(3):
                self.update(self.x, self.y, self.scalars)
        torch.cuda.current_stream().wait_stream(side)
        self.graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(self.graph):
            self.loss = self.update(self.x, self.y, self.scalars)
        opt.params.copy_(saved[0])  # undo the warm-up updates (the capture itself ran nothing)
        opt.load_state_dict(saved[1])


# ------------------------------------------------------------------------- step limit
_STEP_LIMIT: contextvars.ContextVar = contextvars.ContextVar("step_limit", default=None)


@contextlib.contextmanager
def step_limit(steps: int):
    """Within this block every :func:`train` call ends after at most ``steps`` updates, as with
    ``stop_after`` (``python -m lib.bench paper-cost`` times the first steps of whole sweeps so)."""
    if not isinstance(steps, int) or isinstance(steps, bool) or steps < 1:
        raise ValueError(f"step_limit: steps must be a positive integer, got {steps!r}")
    token = _STEP_LIMIT.set(steps)
    try:
        yield
    finally:
        _STEP_LIMIT.reset(token)


# ------------------------------------------------------------------------- time budget
class BudgetSpent(RuntimeError):
    """Raised by :func:`train` inside :func:`deadline` once the time is up (at an evaluation,
    after saving its state if it runs inside :func:`checkpoints`)."""


_DEADLINE: contextvars.ContextVar = contextvars.ContextVar("deadline", default=None)


@contextlib.contextmanager
def deadline(seconds: float):
    """Within this block, a :func:`train` call that is still running ``seconds`` from now stops at
    its next evaluation: it saves its state (inside :func:`checkpoints`) and raises
    :class:`BudgetSpent`. Rerunning the same calls resumes them, and the finished run has exactly
    the numbers of an uninterrupted one (``python -m lib.papers queue`` cuts paper scale so)."""
    validate.real("deadline", "seconds", seconds, minimum=0.0)
    token = _DEADLINE.set(time.monotonic() + float(seconds))
    try:
        yield
    finally:
        _DEADLINE.reset(token)


def _past_deadline() -> bool:
    end = _DEADLINE.get()
    return end is not None and time.monotonic() >= end


def time_left() -> float | None:
    """Seconds left before the innermost :func:`deadline` (None outside one)."""
    end = _DEADLINE.get()
    return None if end is None else end - time.monotonic()


# ------------------------------------------------------------------------- checkpoints
_CHECKPOINTS: contextvars.ContextVar = contextvars.ContextVar("checkpoints", default=None)


@contextlib.contextmanager
def checkpoints(directory, every_s: float = 300.0):
    """Within this block, every :func:`train` call saves its state to ``directory`` at the first
    evaluation after each ``every_s`` seconds, and a finished call saves its end state; run the
    block again after an interruption and each call resumes (a finished one returns at once).

    Calls are told apart by their order in the block; a saved state whose seeds, config, shapes
    or initial weights differ from the call's is ignored (with a warning) and overwritten.
    """
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    token = _CHECKPOINTS.set({"dir": directory, "every_s": float(every_s), "count": 0})
    try:
        yield directory
    finally:
        _CHECKPOINTS.reset(token)


def time_in_checkpoints(directory) -> float:
    """Seconds of training that the states :func:`checkpoints` saved in ``directory`` hold: the
    sum over its trainings (run one after another) of each one's wall time at its last save. A
    run resumed from them has spent that long already, which its own clock does not see. A file
    that does not load counts 0 (the training it held starts afresh, see :meth:`_Checkpoint.load`)."""
    total = 0.0
    for path in sorted(Path(directory).glob("train-*.pt")):
        try:
            state = torch.load(path, map_location="cpu", weights_only=True)
        except Exception:  # noqa: BLE001 - whatever is wrong with it, train() will not resume it either
            continue
        total += float(state.get("wall_s", 0.0)) if isinstance(state, dict) else 0.0
    return total


class _Checkpoint:
    def __init__(self, path: Path, every_s: float, fingerprint: dict):
        self.path, self.every_s, self.fingerprint = path, every_s, fingerprint
        self.last_save = time.perf_counter()

    @classmethod
    def begin(cls, fingerprint: dict) -> "_Checkpoint | None":
        context = _CHECKPOINTS.get()
        if context is None:
            return None
        context["count"] += 1
        return cls(context["dir"] / f"train-{context['count']:03d}.pt", context["every_s"], fingerprint)

    def load(self) -> dict | None:
        """The saved state, read with ``weights_only=True`` (tensors, numbers, strings and
        containers only: a file that would run code when unpickled is refused, never executed). A
        file this trainer did not write, or a truncated one, is moved aside to ``*.unreadable``
        with a warning naming it, and the run starts afresh."""
        if not self.path.exists():
            return None
        try:
            state = torch.load(self.path, map_location="cpu", weights_only=True)
            if not isinstance(state, dict) or not {"fingerprint", "params", "step"} <= set(state):
                raise ValueError("not a state saved by lib.train")
        except Exception as error:  # noqa: BLE001 - whatever is wrong with the file, it is not resumed
            aside = self.path.with_suffix(".unreadable")
            os.replace(self.path, aside)
            warnings.warn(f"{self.path}: not a checkpoint of this trainer, or truncated ({type(error).__name__}: "
                          f"{str(error)[:200]}); moved to {aside.name}, starting afresh", stacklevel=3)
            return None
        if state.get("fingerprint") != self.fingerprint:
            warnings.warn(f"{self.path}: saved by another run (seeds, config or weights differ); starting afresh",
                          stacklevel=3)
            return None
        return state

    def maybe_save(self, snapshot: Callable[[], dict]) -> None:
        if time.perf_counter() - self.last_save >= self.every_s:
            self.save(snapshot())

    def save(self, state: dict) -> None:
        tmp = self.path.with_suffix(".tmp")
        torch.save({"fingerprint": self.fingerprint, **state}, tmp)
        os.replace(tmp, self.path)
        self.last_save = time.perf_counter()


def _restore(state, flat, optimizer, source, stopped_at, diverged_at, eval_steps, history,
             loss_log) -> tuple[int, float]:
    """Load a :func:`_snapshot` into a run's state, in place; returns its step and wall time."""
    device = flat.device
    flat.copy_(state["params"].to(device))
    optimizer.load_state_dict({k: v.to(device) if torch.is_tensor(v) else v for k, v in state["optimizer"].items()})
    source.load_state_dict(state["source"])
    stopped_at[:] = np.asarray(state["stopped_at"])
    diverged_at[:] = np.asarray(state.get("diverged_at", -1))
    optimizer.freeze(torch.as_tensor(_training(stopped_at, diverged_at), device=device))
    eval_steps[:] = state["eval_steps"]
    history.update({n: {m: [np.asarray(v) for v in vs] for m, vs in h.items()} for n, h in state["history"].items()})
    loss_log[:state["step"]] = state["loss_log"].to(device)
    return state["step"], state["wall_s"]


def _snapshot(flat, optimizer, source, stopped_at, diverged_at, eval_steps, step, history, loss_log,
              wall_s) -> dict:
    return {"params": flat.detach().cpu().clone(), "optimizer": {k: v.cpu() if torch.is_tensor(v) else v
                                                                for k, v in optimizer.state_dict().items()},
            # tensors, not numpy arrays: the file must load with weights_only=True
            "source": source.state_dict(), "stopped_at": torch.from_numpy(stopped_at.copy()),
            "diverged_at": torch.from_numpy(diverged_at.copy()), "eval_steps": list(eval_steps),
            "step": step, "history": {n: {m: [torch.from_numpy(np.array(v)) for v in vs] for m, vs in h.items()}
                                      for n, h in history.items()},
            "loss_log": loss_log[:step].cpu().clone(), "wall_s": wall_s}
