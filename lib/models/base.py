"""The interface every model family keeps, so that the trainer, the sweeps, the plots and the
constructions treat every architecture alike.

A model is an ``nn.Module`` built from a frozen config dataclass and a seed:

* ``model(x)`` returns logits; ``model(x, cache={})`` also fills the dict with named
  intermediates (residual streams, attention patterns, hidden states) for probing;
* every weight has a stable name (:meth:`Model.weight_names`), readable with
  :meth:`Model.get_weight` and settable with :meth:`Model.set_weights` (how a closed-form
  construction is loaded into the very module that training uses); weights stacked per head
  can be read and set one head at a time;
* :meth:`Model.reset_parameters` draws the weights from the model's own generator, so the same
  seed gives the same weights on any device and never touches the global RNG;
* :meth:`Model.n_params` counts parameters; :meth:`Model.restrict` (optional) makes a model
  compute like a smaller one of its family, so a sweep over sizes trains as one ensemble.

Families live one per module beside this one, each a frozen config dataclass (with the
:class:`Config` mixin) whose ``model_class`` property names its :class:`Model` subclass;
:func:`build_model` builds any of them.
"""
from __future__ import annotations

import contextlib
from dataclasses import asdict, replace
from typing import Mapping

import numpy as np

import torch
from torch import nn

from .. import validate

#: the largest width, vocabulary or length a config accepts
MAX_SIZE = validate.MAX_COUNT


class Config:
    """Mixin for every family's frozen config dataclass: ``replace``, ``to_dict`` and the check
    of positive integer fields."""

    def replace(self, **changes):
        """A copy with some fields changed (validated again)."""
        return replace(self, **changes)

    def to_dict(self) -> dict:
        return asdict(self)

    def check_positive(self, names, fail) -> None:
        """Call ``fail(message)`` for the first of ``names`` that is not a positive integer (up to
        :data:`MAX_SIZE`)."""
        for name in names:
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                fail(f"{name} must be a positive integer, got {value!r}")
            if value > MAX_SIZE:
                fail(f"{name} must be at most {MAX_SIZE:,}, got {value!r}")

    def check_types(self, *, booleans=(), optional_positive=(), optional_reals=()) -> None:
        """Booleans that are real bools (``residual="no"`` is an error, not True), optional
        positive integers (None or >= 1) and optional finite reals > 0."""
        owner = type(self).__name__
        for name in booleans:
            validate.boolean(owner, name, getattr(self, name))
        for name in optional_positive:
            if getattr(self, name) is not None:
                validate.integer(owner, name, getattr(self, name), minimum=1, maximum=MAX_SIZE)
        for name in optional_reals:
            if getattr(self, name) is not None:
                validate.real(owner, name, getattr(self, name), above=0.0)


class Model(nn.Module):
    """Base class of every model family (see the module docstring).

    Subclasses set ``self.config`` and register their weights in ``__init__``, call
    :meth:`reset_parameters` last, and implement ``forward(x, cache=None)``. Parameters whose
    name starts with ``b_`` (biases) start at zero, ``ln_`` (LayerNorm) at the identity, all
    others at N(0, std^2) with std = ``config.init_std`` or 1/sqrt(fan_in).
    """

    config: object
    #: substring that marks a weight stacked per head along its first axis
    per_head_marker: str | None = None

    # ------------------------------------------------------------------ initialisation
    def reset_parameters(self, seed: int | None = 0) -> None:
        """Draw every weight in registration order from a generator seeded with ``seed``."""
        check_seed(f"{type(self).__name__}.reset_parameters", seed)
        generator = torch.Generator().manual_seed(0 if seed is None else seed)
        init_std = getattr(self.config, "init_std", None)
        with torch.no_grad():
            for name, p in self.named_parameters():
                if name.startswith("b_") or ".b_" in name:
                    p.zero_()
                elif "ln_" in name:
                    p.fill_(1.0 if name.endswith("weight") else 0.0)
                else:
                    fan_in = p.shape[-2]
                    std = init_std if init_std is not None else fan_in**-0.5
                    p.copy_(torch.randn(p.shape, generator=generator, dtype=torch.float64).to(p.dtype) * std)

    # ------------------------------------------------------------------ weights by name
    def weight_names(self) -> list[str]:
        return [name for name, _ in self.named_parameters()]

    def get_weight(self, name: str, head: int | None = None) -> torch.Tensor:
        """A copy of weight ``name`` (e.g. ``"layers.0.attn.W_QK"``), or of one head's slice."""
        validate.instance("get_weight", "name", name, str)
        if head is not None:
            validate.integer("get_weight", "head", head)
        tensor = self._lookup(name)
        return (tensor if head is None else tensor[self._head_index(name, tensor, head)]).detach().clone()

    def set_weights(self, weights: Mapping[str, torch.Tensor], head: int | None = None) -> "Model":
        """Load weights by name, in place, checking shapes. With ``head``, set that head's slice.

        Values may be tensors or arrays of any float dtype; they are cast to the model's; every
        value must be finite (a NaN or infinite weight makes every output meaningless).
        """
        validate.instance("set_weights", "weights", weights, Mapping)
        if head is not None:
            validate.integer("set_weights", "head", head)
        for name, value in weights.items():
            validate.instance("set_weights", "a weight name", name, str)
            if isinstance(value, (str, bytes)) or not isinstance(value, (torch.Tensor, np.ndarray, list, tuple,
                                                                         int, float, np.number)):
                raise validate.ArgumentTypeError(f"set_weights: {name} must be a tensor or an array of numbers, "
                                                 f"got {type(value).__name__}")
            value = torch.as_tensor(value)
            if (value.dtype.is_floating_point or value.dtype.is_complex) and not bool(torch.isfinite(value).all()):
                validate.fail("set_weights", name, "finite (no NaN or infinity)",
                              f"a tensor with {int((~torch.isfinite(value)).sum())} such entries")
        with torch.no_grad():
            for name, value in weights.items():
                tensor = self._lookup(name)
                target = tensor if head is None else tensor[self._head_index(name, tensor, head)]
                value = torch.as_tensor(value)
                if tuple(value.shape) != tuple(target.shape):
                    raise ValueError(f"set_weights: {name}{'' if head is None else f'[{head}]'} has shape "
                                     f"{tuple(target.shape)}, got {tuple(value.shape)}")
                target.copy_(value.to(dtype=target.dtype, device=target.device))
        return self

    def _lookup(self, name: str) -> torch.Tensor:
        tensors = dict(self.named_parameters())
        tensors.update(dict(self.named_buffers()))
        if name not in tensors:
            raise KeyError(f"no weight named {name!r}; known: {', '.join(sorted(tensors))}")
        return tensors[name]

    def _head_index(self, name: str, tensor: torch.Tensor, head: int) -> int:
        if self.per_head_marker is None or self.per_head_marker not in name:
            raise ValueError(f"{name} is not a per-head weight")
        if not 0 <= head < tensor.shape[0]:
            raise ValueError(f"{name} has {tensor.shape[0]} heads; head {head} does not exist")
        return head

    # ------------------------------------------------------------------ size
    def n_params(self) -> int:
        return sum(p.numel() for p in self.parameters())

    def restrict(self, **sizes) -> "Model":
        """Compute like a smaller model of the same family (families that support it override)."""
        raise ValueError(f"restrict: {type(self).__name__} cannot be restricted")

    def forward(self, x: torch.Tensor, cache: dict | None = None) -> torch.Tensor:  # pragma: no cover
        raise NotImplementedError


def check_seed(owner: str, seed) -> None:
    """A model's seed: None (read as 0) or a seed in ``[0, 2**63 - 1]`` (:func:`lib.validate.seed`)."""
    if seed is not None:
        validate.seed(owner, "seed", seed)


def parameter_memory(owner: str, config, dtype: torch.dtype | None = None, copies: int = 1) -> int:
    """Refuse (:func:`lib.validate.memory`) a model too big to hold, before anything is allocated:
    the model is built on the ``meta`` device (shapes only, no storage, the global RNG untouched)
    and its parameters count ``copies`` times (1 to build it; :func:`lib.train.train` checks the
    weights, gradients and two Adam moments of every member itself), its buffers once, at
    ``dtype``'s size (the default: the size the model is built with). Returns the bytes needed."""
    if not isinstance(config, Config) or getattr(config, "model_class", None) is None:
        raise validate.ArgumentTypeError(f"{owner}: config must be a model family's config (lib.models.AttentionConfig, "
                                         f"lib.models.MLPConfig, ...), got {type(config).__name__}")
    if dtype is not None:
        validate.dtype(owner, "dtype", dtype)
    key = (config, torch.get_default_dtype())
    try:
        counted = _COUNTS.get(key)
    except TypeError:  # a config with a list in it cannot be a key
        counted = None
    if counted is None:
        counted = _count(config)
        with contextlib.suppress(TypeError):
            if len(_COUNTS) > 256:
                _COUNTS.clear()
            _COUNTS[key] = counted
    family, n_params, n_buffers, size = counted
    per = torch.empty((), dtype=dtype).element_size() if dtype is not None else size
    n_bytes = (copies * n_params + n_buffers) * per
    what = f"the parameters of the {family} ({n_params:.1e} numbers" if copies == 1 else \
        f"{copies} copies of the parameters of the {family} ({copies} x {n_params:.1e} numbers"
    validate.memory(owner, f"{what}, plus {n_buffers:.1e} in buffers)", n_bytes)
    return n_bytes


#: (config, default dtype) -> (family name, parameters, buffer elements, bytes per element), so that an ensemble of
#: K seeds builds the shapes once
_COUNTS: dict = {}


def _count(config) -> tuple[str, int, int, int]:
    state = torch.get_rng_state()
    try:
        with torch.device("meta"):
            shapes = config.model_class(config, seed=0)
    finally:
        torch.set_rng_state(state)
    n_params = sum(p.numel() for p in shapes.parameters())
    n_buffers = sum(b.numel() for b in shapes.buffers())
    size = max((t.element_size() for t in (*shapes.parameters(), *shapes.buffers())), default=4)
    return type(shapes).__name__, n_params, n_buffers, size


def build_model(config, seed: int = 0, device=None, dtype: torch.dtype | None = None) -> Model:
    """Build and initialise the model of ``config``'s family (its ``model_class``)
    deterministically from ``seed``; optionally move and cast it. A model whose parameters would
    not fit under the memory cap (:func:`lib.validate.memory`) is refused before anything is
    allocated (:func:`lib.train.train` checks what training adds: gradients and Adam moments)."""
    family = getattr(config, "model_class", None)
    if family is None:
        raise ValueError(f"build_model: no model family for a {type(config).__name__}; give a family's config "
                         "(lib.models.AttentionConfig, lib.models.MLPConfig, ...)")
    seed = validate.seed("build_model", "seed", seed)
    if dtype is not None:
        validate.dtype("build_model", "dtype", dtype)
    if device is not None:
        device = validate.device("build_model", "device", device)
    parameter_memory("build_model", config, dtype)
    model = family(config, seed=seed)
    if dtype is not None:
        model = model.to(dtype)
    if device is not None:
        model = model.to(device)
    return model


# ----------------------------------------------------------------------------- evaluation
@torch.no_grad()
def predict(model: nn.Module, x: torch.Tensor, max_elements: int = 20_000_000) -> torch.Tensor:
    """Logits for ``x`` computed in chunks that keep each residual stream under
    ``max_elements`` numbers, so whole-task checks of wide constructions fit in memory."""
    validate.instance("predict", "model", model, nn.Module)
    validate.instance("predict", "x", x, torch.Tensor)
    max_elements = validate.integer("predict", "max_elements", max_elements, minimum=1)
    if x.dim() < 2:
        validate.fail("predict", "x", "a batch of sequences, (batch, length) or (batch, length, input_dim)",
                      f"shape {tuple(x.shape)}")
    config = getattr(model, "config", None)
    n_out = getattr(config, "n_out", 1)
    per_row = n_out * (x.shape[1] if getattr(config, "readout", "last") == "all" else 1)
    if len(x) == 0:
        validate.fail("predict", "x", "a non-empty batch", f"shape {tuple(x.shape)}")
    validate.memory("predict", f"the logits ({len(x)} x {per_row} = {len(x) * per_row:.1e} numbers)",
                    4.0 * len(x) * per_row)
    width = getattr(getattr(model, "config", None), "d_model", 1)
    per_example = max(1, x.shape[1] * width * 4)  # the stream, scores and values
    chunk = max(1, int(max_elements // per_example))
    rows = min(chunk, len(x))
    validate.memory("predict", f"the activations of a chunk ({rows} x {x.shape[1]} x {width} x 4 = "
                    f"{rows * per_example:.1e} numbers; lower max_elements)", 4.0 * rows * per_example)
    device = next(model.parameters()).device
    return torch.cat([model(x[i:i + chunk].to(device)).cpu() for i in range(0, len(x), chunk)])


def accuracy(model: nn.Module, batch, max_elements: int = 20_000_000) -> float:
    """Fraction of examples whose arg-max logit equals the target (class targets)."""
    if not (isinstance(getattr(batch, "x", None), torch.Tensor) and isinstance(getattr(batch, "y", None), torch.Tensor)):
        raise validate.ArgumentTypeError(f"accuracy: batch must be a Batch with tensors x and y, got {type(batch).__name__}")
    if len(batch.x) == 0 or len(batch.x) != len(batch.y):
        validate.fail("accuracy", "batch", "a non-empty batch with one target per input",
                      f"{len(batch.x)} inputs and {len(batch.y)} targets")
    logits = predict(model, batch.x, max_elements)
    return (logits.argmax(-1) == batch.y).double().mean().item()
