"""The attention family: one configurable transformer stack for every paper in the book.

A model is ``embed -> L x [attention (+ MLP)] -> read-out``, with every variant the five
papers use chosen in :class:`AttentionConfig`:

* attention-only or with an MLP; optional pre-LayerNorm;
* ``softmax``, ``relu`` or ``uniform`` attention (Chen & Zou 2024 eq. 1 use ReLU);
* heads averaged with 1/m (``combine="mean"``) or projected by per-head ``W_O``;
* query-key weights factored (``W_Q``, ``W_K``) or one bilinear ``W_QK`` per head;
* residual on or off; causal or full mask; key positions nobody may attend to;
* token inputs (one-hot or learned embedding) or vector inputs (linear or identity);
* one-hot, learned, sinusoidal or no positional encoding;
* read-out from the last or first position (classification) or from every position (LM);
* optional masks (``maskable=True``) that switch off heads, query/key columns and key positions
  per model, so models of different H, d_h and context size train as one ensemble
  (:meth:`AttentionModel.restrict`).

Conventions (row-major, batch first): the residual stream is ``h`` of shape
``(B, n, d_model)``; the attention score of destination (query) ``i`` on source (key)
``j`` in head ``a`` is

    s_aij = scale * (h_i W_Q[a]) . (h_j W_K[a])     or     scale * h_i W_QK[a] h_j^T,

and the head's output at ``i`` is ``sum_j A_aij h_j W_V[a]``. Papers that write tokens as
columns (Chen & Zou's ``H in R^{d' x n}``) load the transposes of their matrices.

One-hot inputs are laid out by concatenation, as in Chen & Zou eq. (3): rows
``[0, V)`` hold the token one-hot, the next ``max_len`` rows the position one-hot, and the
rest is zero padding. Learned, sinusoidal and linear inputs are added over all rows.

Every weight has a stable name (see :meth:`AttentionModel.weight_names`); per-head
weights are stacked along their first axis. :meth:`AttentionModel.set_weights` loads a
closed-form construction into the very module that training uses.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import torch
import torch.nn.functional as F
from torch import nn

from .. import validate
from .base import MAX_SIZE, Config, Model, check_seed
from .embedding import InputFields, add_input_weights, add_readout_weights, embed, read_out

ATTENTION = ("softmax", "relu", "uniform")
COMBINE = ("mean", "project")
QK = ("factored", "bilinear")
READOUT = ("last", "first", "all")
NORM = ("none", "pre")
ACTIVATIONS = {"relu": F.relu, "gelu": F.gelu}


def _fail(message: str):
    raise ValueError(f"AttentionConfig: {message}")


@dataclass(frozen=True, kw_only=True)
class AttentionConfig(InputFields, Config):
    """Everything that fixes a model's shapes and computation (not its weights)."""

    n_layers: int = 1
    n_heads: int | tuple[int, ...] = 1  # one number for every layer, or one per layer
    d_head: int | None = None  # query/key size; default d_model/heads (project) or d_model (mean)
    d_value: int | None = None  # value size; must equal d_model when combine="mean"
    attention: str = "softmax"
    qk: str = "factored"
    attn_scale: float | None = None  # None: 1/sqrt(d_head) for softmax, 1 otherwise
    combine: str = "project"
    residual: bool = True
    d_mlp: int = 0  # 0: attention-only
    mlp_activation: str = "gelu"
    norm: str = "none"
    max_len: int = 64  # this family's default (InputFields: 512)
    causal: bool = False
    masked_keys: tuple[int, ...] = ()  # key positions that no query attends to
    readout: str = "last"
    readout_bias: bool = False  # this family's default: no read-out bias (InputFields: True)
    init_std: float | None = None  # None: N(0, 1/fan_in) for every matrix
    maskable: bool = False  # buffers that restrict heads, d_head and keys per model (see restrict)

    def __post_init__(self):
        def fail(message: str):  # named after the class the user called (DecoderConfig too)
            raise ValueError(f"{type(self).__name__}: {message}")

        self.check_positive(("d_model", "n_out", "n_layers", "max_len"), fail)
        self.check_types(booleans=("residual", "causal", "readout_bias", "maskable"),
                         optional_positive=("d_head", "d_value"), optional_reals=("attn_scale", "init_std"))
        if isinstance(self.d_mlp, bool) or not isinstance(self.d_mlp, int):
            fail(f"d_mlp must be an integer >= 0, got {self.d_mlp!r}")
        if self.d_mlp > MAX_SIZE:
            fail(f"d_mlp must be at most {MAX_SIZE:,}, got {self.d_mlp!r}")
        choices = {"attention": ATTENTION, "combine": COMBINE, "qk": QK, "readout": READOUT, "norm": NORM,
                   "mlp_activation": tuple(ACTIVATIONS)}
        for name, allowed in choices.items():
            if not isinstance(getattr(self, name), str) or getattr(self, name) not in allowed:
                fail(f"{name} must be one of {', '.join(allowed)}; got {getattr(self, name)!r}")
        self.check_input(fail)
        if isinstance(self.n_heads, bool) or not isinstance(self.n_heads, (int, tuple, list)):
            fail(f"n_heads must be a positive integer or {self.n_layers} of them, got {self.n_heads!r}")
        heads = self.heads
        if len(heads) != self.n_layers or any(isinstance(h, bool) or not isinstance(h, int) or h < 1 for h in heads):
            fail(f"n_heads must be a positive integer or {self.n_layers} of them, got {self.n_heads!r}")
        if max(heads) > MAX_SIZE:
            fail(f"n_heads must be at most {MAX_SIZE:,} per layer, got {self.n_heads!r}")
        if self.combine == "mean" and self.value_size != self.d_model:
            fail("combine='mean' averages head outputs in the residual stream, so d_value must equal d_model")
        if self.d_mlp < 0:
            fail(f"d_mlp must be >= 0, got {self.d_mlp}")
        if self.maskable and self.qk != "factored":
            fail("maskable models need qk='factored' (the head-size mask acts on W_Q's columns)")
        if not isinstance(self.masked_keys, tuple) or any(
                isinstance(p, bool) or not isinstance(p, int) or not 0 <= p < self.max_len for p in self.masked_keys):
            fail(f"masked_keys must be positions in [0, {self.max_len}), got {self.masked_keys!r}")

    # -- derived sizes
    @property
    def heads(self) -> tuple[int, ...]:
        if isinstance(self.n_heads, int):
            return (self.n_heads,) * self.n_layers
        return tuple(self.n_heads)

    def head_size(self, layer: int) -> int:
        validate.integer("AttentionConfig.head_size", "layer", layer, 0, self.n_layers - 1)
        if self.d_head is not None:
            return self.d_head
        return self.d_model if self.combine == "mean" else max(1, self.d_model // self.heads[layer])

    @property
    def value_size(self) -> int:
        if self.d_value is not None:
            return self.d_value
        return self.d_model if self.combine == "mean" else max(1, self.d_model // max(self.heads))

    @property
    def model_class(self) -> type:
        """The family's model (:func:`lib.models.build_model` builds it)."""
        return AttentionModel


class Attention(nn.Module):
    """One multi-head attention layer; per-head weights are stacked on the first axis."""

    def __init__(self, config: AttentionConfig, layer: int):
        validate.instance("Attention", "config", config, AttentionConfig)
        validate.integer("Attention", "layer", layer, 0, config.n_layers - 1)
        super().__init__()
        self.config, self.layer = config, layer
        h, d, dk, dv = config.heads[layer], config.d_model, config.head_size(layer), config.value_size
        self.n_heads = h
        if config.qk == "factored":
            self.W_Q = nn.Parameter(torch.empty(h, d, dk))
            self.W_K = nn.Parameter(torch.empty(h, d, dk))
        else:
            self.W_QK = nn.Parameter(torch.empty(h, d, d))
        self.W_V = nn.Parameter(torch.empty(h, d, dv))
        if config.combine == "project":
            self.W_O = nn.Parameter(torch.empty(h, dv, d))
        if config.maskable:
            self.register_buffer("head_mask", torch.ones(h))
            self.register_buffer("qk_mask", torch.ones(dk))
        if config.attn_scale is not None:
            self.scale = float(config.attn_scale)
        else:
            self.scale = 1.0 / math.sqrt(config.head_size(layer)) if config.attention == "softmax" else 1.0

    def scores(self, h: torch.Tensor, queries: torch.Tensor | None = None) -> torch.Tensor:
        """Scaled scores ``(B, heads, n_query, n_key)``; ``queries`` (default ``h``) are the
        destination rows, ``h`` the source rows."""
        queries = h if queries is None else queries
        if self.config.qk == "factored":
            q = torch.einsum("bnd,hde->bhne", queries, self.W_Q)
            if self.config.maskable:
                q = q * self.qk_mask.to(q.dtype)
            if self._fold(queries.shape[1], h.shape[1]):
                return self.scale * _per_head_rows(torch.einsum("bhme,hde->bhmd", q, self.W_K), h)
            k = torch.einsum("bnd,hde->bhne", h, self.W_K)
            s = q @ k.transpose(-1, -2)
        else:
            s = torch.einsum("bid,hde->bhie", queries, self.W_QK) @ h.transpose(-1, -2)[:, None]
        return self.scale * s

    def _fold(self, n_query: int, n_key: int) -> bool:
        """Factored heads with few query rows (a read-out layer): fold W_K into the queries
        (``(q W_K^T) h^T``) and apply A to ``h`` before W_V, which skips computing the keys and
        values of every position; it costs ``m (d_h + n) d`` instead of ``n d d_h`` per head."""
        return self.config.qk == "factored" and n_query * (self.W_Q.shape[-1] + n_key) < n_key * self.W_Q.shape[-1]

    def pattern(self, h: torch.Tensor, allowed: torch.Tensor, queries: torch.Tensor | None = None) -> torch.Tensor:
        """Attention weights ``A[b, head, i, j]``; zero wherever ``allowed[i, j]`` is False."""
        kind = self.config.attention
        if kind == "uniform":
            weights = allowed.to(h.dtype)
            count = weights.sum(-1, keepdim=True).clamp_min(1.0)
            return (weights / count).expand(h.shape[0], self.n_heads, -1, -1)
        s = self.scores(h, queries)
        if kind == "relu":
            return F.relu(s) * allowed
        # softmax; a query with no allowed key gets all-zero weights instead of NaN
        s = s.masked_fill(~allowed, torch.finfo(s.dtype).min)
        return torch.softmax(s, dim=-1) * allowed

    def forward(self, h: torch.Tensor, allowed: torch.Tensor, cache: dict | None = None,
                rows: slice | None = None) -> torch.Tensor:
        """The layer's output for every position, or only for ``rows`` (e.g. the read-out position
        of the last layer: then scores and values are computed for those destinations alone)."""
        queries = h if rows is None else h[:, rows]
        a = self.pattern(h, allowed if rows is None else allowed[rows], None if rows is None else queries)
        # (A h) W_V: cheaper than A (h W_V) when few destinations or wide values
        if self._fold(queries.shape[1], h.shape[1]):
            z = torch.einsum("bhmd,hde->bhme", _per_head_rows(a, h.transpose(-1, -2)), self.W_V)
        else:
            z = torch.einsum("bhij,bjd,hde->bhie", a, h, self.W_V)  # (B, heads, n_query, d_value)
        if self.config.maskable:
            z = z * self.head_mask.to(z.dtype)[:, None, None]
        if cache is not None:
            cache[f"layers.{self.layer}.attn.pattern"] = a.detach()
            cache[f"layers.{self.layer}.attn.z"] = z.detach()
        if self.config.combine == "mean":
            return z.mean(dim=1)
        return torch.einsum("bhne,hed->bnd", z, self.W_O)


def _per_head_rows(rows: torch.Tensor, h: torch.Tensor) -> torch.Tensor:
    """``rows[b, a, i] @ h[b]^T`` for every head ``a`` as one batched product over the batch:
    ``rows`` is ``(B, heads, m, d)``, ``h`` is ``(B, n, d)``; returns ``(B, heads, m, n)``."""
    B, heads, m, d = rows.shape
    return (rows.reshape(B, heads * m, d) @ h.transpose(-1, -2)).reshape(B, heads, m, h.shape[1])


class MLP(nn.Module):
    def __init__(self, config: AttentionConfig):
        validate.instance("MLP", "config", config, AttentionConfig)
        super().__init__()
        self.W_in = nn.Parameter(torch.empty(config.d_model, config.d_mlp))
        self.b_in = nn.Parameter(torch.zeros(config.d_mlp))
        self.W_out = nn.Parameter(torch.empty(config.d_mlp, config.d_model))
        self.b_out = nn.Parameter(torch.zeros(config.d_model))
        self.activation = ACTIVATIONS[config.mlp_activation]

    def forward(self, h: torch.Tensor) -> torch.Tensor:
        return self.activation(h @ self.W_in + self.b_in) @ self.W_out + self.b_out


class Block(nn.Module):
    def __init__(self, config: AttentionConfig, layer: int):
        validate.instance("Block", "config", config, AttentionConfig)
        validate.integer("Block", "layer", layer, 0, config.n_layers - 1)
        super().__init__()
        self.config = config
        self.attn = Attention(config, layer)
        self.mlp = MLP(config) if config.d_mlp else None
        if config.norm == "pre":
            self.ln_attn = nn.LayerNorm(config.d_model)
            self.ln_mlp = nn.LayerNorm(config.d_model) if config.d_mlp else None

    def forward(self, h, allowed, cache=None, rows: slice | None = None):
        pre = self.ln_attn if self.config.norm == "pre" else (lambda t: t)
        out = self.attn(pre(h), allowed, cache, rows)
        if rows is not None:
            h = h[:, rows]
        h = h + out if self.config.residual else out
        if self.mlp is not None:
            pre = self.ln_mlp if self.config.norm == "pre" else (lambda t: t)
            out = self.mlp(pre(h))
            h = h + out if self.config.residual else out
        return h


class AttentionModel(Model):
    """The configurable stack. ``model(x)`` returns logits; ``model(x, cache={})`` also
    fills the dict with every layer's residual stream and attention pattern."""

    per_head_marker = ".attn."

    def __init__(self, config: AttentionConfig, seed: int | None = 0):
        validate.instance(type(self).__name__, "config", config, AttentionConfig)
        check_seed(type(self).__name__, seed)
        super().__init__()
        self.config = c = config
        add_input_weights(self, c)
        if c.maskable:
            self.register_buffer("key_mask", torch.ones(c.max_len))
        self.layers = nn.ModuleList(Block(c, layer) for layer in range(c.n_layers))
        if c.norm == "pre":
            self.ln_final = nn.LayerNorm(c.d_model)
        add_readout_weights(self, c.d_model, c.n_out, c.readout_bias)
        self.reset_parameters(seed)

    def embed(self, x: torch.Tensor) -> torch.Tensor:
        """The residual stream before the first layer, ``(B, n, d_model)``."""
        return embed(self, self.config, x, self.W_U.dtype)

    def allowed(self, n: int, device) -> torch.Tensor:
        """Boolean ``(n, n)`` mask: may query ``i`` attend to key ``j``?"""
        mask = torch.ones(n, n, dtype=torch.bool, device=device)
        if self.config.causal:
            mask = torch.tril(mask)
        for p in self.config.masked_keys:
            if p < n:
                mask[:, p] = False
        if self.config.maskable:
            mask = mask & (self.key_mask[:n] > 0.5)[None, :]
        return mask

    def restrict(self, n_heads: int | None = None, d_head: int | None = None,
                 n_keys: int | None = None) -> "AttentionModel":
        """Make this (``maskable``) model compute like a smaller one, in place: only the first
        ``n_heads`` heads of every layer contribute, only the first ``d_head`` query/key columns
        enter the scores, and only positions ``< n_keys`` can be attended to. The switched-off
        weights get zero gradients, so an ensemble of restricted models trains each member as
        its smaller model (with the same initial distribution)."""
        if not self.config.maskable:
            raise ValueError("restrict: build the model with AttentionConfig(maskable=True)")
        for name, value in (("n_heads", n_heads), ("d_head", d_head), ("n_keys", n_keys)):
            if value is not None:
                validate.integer("restrict", name, value)
        with torch.no_grad():
            for block in self.layers:
                attn = block.attn
                for name, value, size in (("n_heads", n_heads, attn.head_mask.numel()),
                                          ("d_head", d_head, attn.qk_mask.numel())):
                    if value is not None and not 1 <= value <= size:
                        raise ValueError(f"restrict: {name} must be in [1, {size}], got {value}")
                if n_heads is not None:
                    attn.head_mask.copy_((torch.arange(attn.head_mask.numel()) < n_heads).to(attn.head_mask.dtype))
                if d_head is not None:
                    attn.qk_mask.copy_((torch.arange(attn.qk_mask.numel()) < d_head).to(attn.qk_mask.dtype))
            if n_keys is not None:
                if not 1 <= n_keys <= self.config.max_len:
                    raise ValueError(f"restrict: n_keys must be in [1, {self.config.max_len}], got {n_keys}")
                self.key_mask.copy_((torch.arange(self.config.max_len) < n_keys).to(self.key_mask.dtype))
        return self

    def forward(self, x: torch.Tensor, cache: dict | None = None) -> torch.Tensor:
        h = self.embed(x)
        allowed = self.allowed(h.shape[1], h.device)
        if cache is not None:
            cache["embed"] = h.detach()
        # With a single read-out position and no probing, the last layer is computed for that
        # position only (same numbers, n times less work there).
        last = len(self.layers) - 1
        rows = {"last": slice(-1, None), "first": slice(0, 1)}.get(self.config.readout) if cache is None else None
        for i, block in enumerate(self.layers):
            h = block(h, allowed, cache, rows if i == last else None)
            if cache is not None:
                cache[f"layers.{i}.resid_post"] = h.detach()
        if self.config.norm == "pre":
            h = self.ln_final(h)
        if self.config.readout == "last":
            h = h[:, -1]
        elif self.config.readout == "first":
            h = h[:, 0]  # (after the last layer, h holds only the read-out row when rows is set)
        return read_out(self, h, self.config.readout_bias)

