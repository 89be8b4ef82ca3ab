"""Decoders: the attention stack as a next-token predictor, with a tied unembedding, weights held
fixed, and generation.

:class:`DecoderConfig` is an :class:`~lib.models.attention.AttentionConfig` (every field and
check of the stack) with two more fields and the defaults of a causal language model (token
inputs, learned positions, causal mask, a read-out at every position):

* ``tie_embedding``: the read-out is the token embedding's transpose, ``logits = h W_E^T``
  (Richard 2024, Eq. 1; GPT-2), so the model has no ``W_U`` of its own;
* ``fixed``: names of weights that are held at the values a construction or an ablation sets
  (``set_weights`` still loads them); they are buffers, so the trainer leaves them alone.

Two configurations recur in the book: :func:`eq1_config` is the one-layer, one-head model of
Richard's Eq. (1) (uniform attention, value ``V = v I``, no residual, no LayerNorm, no MLP),
and :func:`gpt_config` a GPT-2-style pre-LayerNorm decoder with a GELU MLP.

:func:`generate` completes prefixes token by token (greedy or sampled), the "single generation
pass" of the paper.
"""
from __future__ import annotations

import itertools
from dataclasses import dataclass

import numpy as np
import torch
from torch import nn

from .. import validate
from .attention import AttentionConfig, AttentionModel
from .embedding import read_out


def _fail(message: str):
    raise ValueError(f"DecoderConfig: {message}")


@dataclass(frozen=True)
class DecoderConfig(AttentionConfig):
    """A causal next-token predictor of the attention stack (see the module docstring)."""

    positions: str = "learned"
    causal: bool = True
    readout: str = "all"
    tie_embedding: bool = True
    fixed: tuple[str, ...] = ()

    def __post_init__(self):
        super().__post_init__()
        validate.boolean("DecoderConfig", "tie_embedding", self.tie_embedding)
        if self.input != "tokens":
            _fail("a decoder reads token ids (input='tokens')")
        if self.tie_embedding:
            if self.embedding != "learned":
                _fail("tie_embedding needs a learned token embedding W_E (embedding='learned')")
            if self.n_out != self.vocab_size:
                _fail(f"tie_embedding predicts the next token: n_out must equal vocab_size ({self.vocab_size}), "
                      f"got {self.n_out}")
            if self.readout_bias:
                _fail("tie_embedding has no read-out bias")
        if not isinstance(self.fixed, tuple) or not all(isinstance(n, str) for n in self.fixed):
            _fail(f"fixed must be a tuple of weight names, got {self.fixed!r}")

    @property
    def model_class(self) -> type:
        return DecoderModel


class DecoderModel(AttentionModel):
    """The attention stack with a tied read-out and fixed weights (see the module docstring)."""

    def __init__(self, config: DecoderConfig, seed: int | None = 0):
        validate.instance(type(self).__name__, "config", config, DecoderConfig)
        super().__init__(config, seed)
        if config.tie_embedding:
            del self.W_U
            self._tied = True  # from here on read_out finds W_E^T through __getattr__ below
        known = dict(self.named_parameters())
        for name in config.fixed:
            if name not in known:
                raise ValueError(f"DecoderConfig: fixed names {name!r}, which is not a weight; known: "
                                 f"{', '.join(sorted(known))}")
            owner_name, _, leaf = name.rpartition(".")
            owner = self.get_submodule(owner_name) if owner_name else self
            value = owner._parameters.pop(leaf)
            owner.register_buffer(leaf, value.detach().clone())

    def __getattr__(self, name: str):
        if name == "W_U" and self.__dict__.get("_tied"):
            return self.W_E.T
        return super().__getattr__(name)


def eq1_config(vocab_size: int, max_len: int, d_model: int = 1, *, learn_embedding: bool = False,
               learn_value: bool = True, positions: str = "learned") -> DecoderConfig:
    """The model of Richard's Eq. (1): one layer, one head, uniform attention (Q = 0), value
    ``W_V`` (``v I`` in the constructions), tied embedding ``W_E``, learned positions ``W_pos``
    added to the input, no residual, no LayerNorm, no MLP:
    ``logits_r = (1/r) sum_{i<=r} (E_{s_i} + B_i) W_V E^T``.
    By default ``W_E`` is fixed (the constructions set it) and ``W_V`` and ``W_pos`` train; the
    unused ``W_Q``, ``W_K`` are fixed. ``positions="none"`` drops ``W_pos`` (Claim 5.3)."""
    validate.integer("eq1_config", "vocab_size", vocab_size, 1, validate.MAX_COUNT)
    validate.integer("eq1_config", "max_len", max_len, 1, validate.MAX_COUNT)
    validate.integer("eq1_config", "d_model", d_model, 1, validate.MAX_COUNT)
    validate.boolean("eq1_config", "learn_embedding", learn_embedding)
    validate.boolean("eq1_config", "learn_value", learn_value)
    validate.choice("eq1_config", "positions", positions, ("none", "onehot", "learned", "sinusoidal"))
    fixed = tuple(name for name, learned in (("W_E", learn_embedding), ("layers.0.attn.W_V", learn_value))
                  if not learned) + ("layers.0.attn.W_Q", "layers.0.attn.W_K")  # unused: attention is uniform
    return DecoderConfig(d_model=d_model, n_out=vocab_size, vocab_size=vocab_size, max_len=max_len,
                         attention="uniform", combine="mean", residual=False, positions=positions, fixed=fixed)


def gpt_config(vocab_size: int, max_len: int, d_model: int, n_layers: int, n_heads: int, *, mlp_ratio: int = 8,
               **changes) -> DecoderConfig:
    """A GPT-2-style decoder: pre-LayerNorm blocks of causal softmax attention (heads projected
    by ``W_O``) and a GELU MLP of width ``mlp_ratio * d_model``, learned positions, a final
    LayerNorm and the tied read-out (no biases in attention). ``changes`` override any field."""
    for name, value in (("vocab_size", vocab_size), ("max_len", max_len), ("d_model", d_model),
                        ("n_layers", n_layers), ("n_heads", n_heads), ("mlp_ratio", mlp_ratio)):
        validate.integer("gpt_config", name, value, 0 if name == "mlp_ratio" else 1, validate.MAX_COUNT)
    if mlp_ratio * d_model > validate.MAX_COUNT:
        validate.fail("gpt_config", "mlp_ratio * d_model", f"at most {validate.MAX_COUNT:,} (the MLP width)",
                      mlp_ratio * d_model)
    fields = dict(d_model=d_model, n_out=vocab_size, vocab_size=vocab_size, max_len=max_len, n_layers=n_layers,
                  n_heads=n_heads, d_mlp=mlp_ratio * d_model, norm="pre", mlp_activation="gelu")
    fields.update(changes)
    return DecoderConfig(**fields)


@torch.no_grad()
def generate(model: nn.Module, prefixes, length: int, *, greedy: bool = False, seed: int = 0,
             batch_size: int = 8192, stop: int | None = None) -> np.ndarray:
    """Complete every prefix to ``length`` tokens, one token at a time from the model's next-token
    distribution: sampled (temperature 1, the default, as the paper's ``generate``) or the arg-max
    (``greedy``). ``prefixes``: a list of 1-d integer arrays (any lengths from 1 to ``length``)
    or a 2-d array. Returns an ``(len(prefixes), length)`` int64 array.

    Prefixes of every length run as one batch: the model is causal, so at step ``t`` the logits
    at position ``t - 1`` of ``x[:, :t]`` are the next-token distribution of every row whose
    prefix is no longer than ``t`` (the other rows keep their given token). That is
    ``length - 1`` steps per batch whatever the mix of lengths. An attention stack computes each
    position once (:func:`_last_logits` keeps every layer's input at earlier positions, which is
    what a key-value cache keeps), so a step costs one position's MLP and projections instead of
    the whole prefix's. A row's sampled tokens
    come from one generator seeded with ``seed``, drawn for all rows at each step.

    ``stop``: a token id that ends a row (an end-of-sequence token); a batch stops early once
    every row has generated it, and the rest of such a row is filled with ``stop``."""
    validate.instance("generate", "model", model, nn.Module)
    length = validate.integer("generate", "length", length, minimum=1)
    validate.boolean("generate", "greedy", greedy)
    seed = validate.seed("generate", "seed", seed)
    batch_size = validate.integer("generate", "batch_size", batch_size, minimum=1)
    config = getattr(model, "config", None)
    vocab_size = getattr(config, "vocab_size", None)
    if stop is not None:
        stop = validate.integer("generate", "stop", stop, minimum=0,
                                maximum=None if vocab_size is None else vocab_size - 1)
    if not getattr(config, "causal", False):
        raise ValueError("generate: the model must be causal (a DecoderConfig, or causal=True), so that a "
                         "position's logits do not read later tokens")
    if getattr(config, "readout", "all") != "all":
        validate.fail("generate", "model", "a model that reads out every position's next-token logits (readout='all')",
                      f"one with readout={config.readout!r}")
    if isinstance(prefixes, (str, bytes)) or not hasattr(prefixes, "__iter__"):
        validate.fail("generate", "prefixes", "a list of 1-d integer arrays or a 2-d integer array", prefixes,
                      validate.ArgumentTypeError)
    rows = []
    for i, p in enumerate(prefixes):
        given_p = np.asarray(p.detach().cpu() if isinstance(p, torch.Tensor) else p)
        if given_p.size and given_p.dtype.kind not in "iu":
            validate.fail("generate", f"prefixes[{i}]", "token ids (integers)", f"an array of {given_p.dtype}",
                          validate.ArgumentTypeError)
        rows.append(given_p.astype(np.int64).reshape(-1))
    validate.memory("generate", f"the completions ({len(rows)} x {length} = {len(rows) * length:.1e} token ids)",
                    8.0 * len(rows) * length)
    for i, p in enumerate(rows):
        if not 1 <= len(p) <= length:
            raise ValueError(f"generate: prefix {i} has {len(p)} tokens; prefixes need 1 to {length} (length)")
        if vocab_size is not None and (p.min() < 0 or p.max() >= vocab_size):
            validate.fail("generate", f"prefixes[{i}]", f"token ids in [0, {vocab_size}) (vocab_size)",
                          f"ids from {p.min()} to {p.max()}")
    was_training = model.training
    model.eval()
    device = next(itertools.chain(model.parameters(), model.buffers())).device
    generator = torch.Generator(device="cpu").manual_seed(seed)
    out = np.zeros((len(rows), length), dtype=np.int64)
    given = np.array([len(p) for p in rows], dtype=np.int64)
    for i, p in enumerate(rows):
        out[i, :len(p)] = p
    for start in range(0, len(rows), batch_size):
        x = torch.as_tensor(out[start:start + batch_size], device=device)
        known = torch.as_tensor(given[start:start + batch_size], device=device)
        stopped = torch.zeros(len(x), dtype=torch.bool, device=device)
        streams: list[torch.Tensor] = []
        done = 0
        for t in range(int(known.min()), length):
            if stop is not None and bool(stopped.all()):
                x[:, t:] = stop
                break
            if isinstance(model, AttentionModel):
                logits = _last_logits(model, x[:, :t], streams, done).double()
                done = t
            else:
                logits = model(x[:, :t])[:, -1].double()
            if greedy:
                nxt = logits.argmax(-1)
            else:
                nxt = torch.multinomial(torch.softmax(logits, -1).cpu(), 1, generator=generator)[:, 0].to(device)
            if stop is not None:
                nxt = torch.where(stopped, stop, nxt)
            x[:, t] = torch.where(known <= t, nxt, x[:, t])
            if stop is not None:
                stopped |= (known <= t) & (x[:, t] == stop)
        out[start:start + batch_size] = x.cpu().numpy()
    model.train(was_training)
    return out


def _last_logits(model: AttentionModel, x: torch.Tensor, streams: list[torch.Tensor], done: int) -> torch.Tensor:
    """``model(x)[:, -1]`` of a causal stack, computing only positions ``done`` to ``len(x) - 1``:
    ``streams`` holds every layer's input (residual stream) at the earlier positions, one
    ``(B, max_len, d_model)`` buffer per layer (allocated on the first call, when ``done`` is 0),
    and the new positions are written into it. Under the causal mask a position's stream reads
    only itself and earlier ones, so the earlier rows are what the full pass would compute; the
    new rows' queries attend to all of them (``Block``'s ``rows``)."""
    n = x.shape[1]
    rows = slice(done, n)
    h = model.embed(x)[:, rows]
    if not streams:
        streams.extend(h.new_empty(len(x), model.config.max_len, h.shape[-1]) for _ in model.layers)
    allowed = model.allowed(n, x.device)
    for block, stream in zip(model.layers, streams):
        stream[:, rows] = h
        h = block(stream[:, :n], allowed, None, rows)
    if model.config.norm == "pre":
        h = model.ln_final(h)
    return read_out(model, h[:, -1], model.config.readout_bias)
