"""The input embedding and the read-out that every model family shares.

Inputs are either token ids ``(B, n)`` or vectors ``(B, n, input_dim)``:

* tokens, ``embedding="onehot"``: row ``[0, V)`` of the stream holds the token one-hot
  (Chen & Zou eq. 3, so a construction can address a token by its id);
* tokens, ``embedding="learned"``: a table ``W_E`` of shape ``(V, d_model)``;
* vectors, ``embedding="linear"``: ``x W_in + b_in``; ``"identity"``: ``x`` padded with zeros.

Positions are added: ``"onehot"`` puts position ``i`` in row ``token_block + i`` (after the
token one-hot), ``"learned"`` adds a table ``W_pos``, ``"sinusoidal"`` the fixed table of
Vaswani et al. (2017), ``"none"`` nothing (the sinusoidal table is computed in float64 and
rounded, or, ``sinusoid_precision="float32"``, in float32 as the common PyTorch recipe does,
e.g. Mahdavi et al.'s official code). The read-out is ``h W_U (+ b_U)``.

The weights are registered on the model itself (flat names ``W_E``, ``W_pos``, ``W_U``...), so
that every family names them alike and constructions load them by the same names.
"""
from __future__ import annotations

import contextlib
import contextvars
import math
from dataclasses import dataclass

import torch
import torch.nn.functional as F
from torch import nn

from .. import validate
from ..validate import ArgumentTypeError

INPUTS = ("tokens", "vectors")
EMBEDDINGS = {"tokens": ("onehot", "learned"), "vectors": ("linear", "identity")}
POSITIONS = ("none", "onehot", "learned", "sinusoidal")
#: the arithmetic of the sinusoidal table (stored in float32 either way)
SINUSOID_PRECISIONS = ("float64", "float32")


@dataclass(frozen=True, kw_only=True)
class InputFields:
    """The input and read-out fields every model family's config shares, declared once with the
    defaults most families use (a family that differs redeclares the field, with its reason), and
    their checks and derived sizes. Keyword-only: a config is built by names."""

    d_model: int  # the residual stream's width (a recurrent model's state, an MLP's per-token width)
    n_out: int  # outputs of the read-out (classes, or vocabulary for a decoder)
    input: str = "tokens"  # "tokens" (ids) or "vectors"
    vocab_size: int | None = None  # tokens only
    input_dim: int | None = None  # vectors only
    embedding: str = "learned"  # tokens: "learned" or "onehot"; vectors: "linear" or "identity"
    positions: str = "none"  # "none", "onehot", "learned" or "sinusoidal"
    max_len: int = 512  # longest input (the positional table's length)
    readout_bias: bool = True  # a bias b_U in the read-out
    sinusoid_precision: str = "float64"  # the sinusoidal table computed in "float64" or "float32"

    def check_input(self, fail) -> None:
        """Call ``fail(message)`` for the first inconsistent input field."""
        if not isinstance(self.input, str) or self.input not in INPUTS:
            fail(f"input must be one of {', '.join(INPUTS)}; got {self.input!r}")
        if not isinstance(self.positions, str) or self.positions not in POSITIONS:
            fail(f"positions must be one of {', '.join(POSITIONS)}; got {self.positions!r}")
        if not isinstance(self.sinusoid_precision, str) or self.sinusoid_precision not in SINUSOID_PRECISIONS:
            fail(f"sinusoid_precision must be one of {', '.join(SINUSOID_PRECISIONS)}; got {self.sinusoid_precision!r}")
        if not isinstance(self.embedding, str) or self.embedding not in EMBEDDINGS[self.input]:
            fail(f"embedding for {self.input} inputs must be one of {', '.join(EMBEDDINGS[self.input])}; "
                 f"got {self.embedding!r}")
        for name, needed in (("vocab_size", "tokens"), ("input_dim", "vectors")):
            value = getattr(self, name)
            if self.input == needed and (isinstance(value, bool) or not isinstance(value, int) or value < 1):
                fail(f"{needed} inputs need {name} to be a positive integer, got {value!r}")
            if self.input == needed and value > 10**6:
                fail(f"{name} must be at most 1,000,000, got {value!r}")
            if self.input != needed and value is not None and (
                    isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= 10**6):
                fail(f"{name} must be None or a positive integer up to 1,000,000 (unused by {self.input} "
                     f"inputs), got {value!r}")
        if self.embedding == "identity" and self.input_dim > self.d_model:
            fail(f"identity embedding needs input_dim <= d_model ({self.input_dim} > {self.d_model})")
        if self.onehot_width > self.d_model:
            fail(f"one-hot blocks need d_model >= {self.onehot_width} (tokens + positions), got {self.d_model}")

    @property
    def token_block(self) -> int:
        """Rows taken by the token one-hot (0 unless tokens are embedded one-hot)."""
        return self.vocab_size if self.input == "tokens" and self.embedding == "onehot" else 0

    @property
    def onehot_width(self) -> int:
        return self.token_block + (self.max_len if self.positions == "onehot" else 0)


def sinusoidal_table(max_len: int, d_model: int, precision: str = "float64") -> torch.Tensor:
    """The sine/cosine positional table of Vaswani et al. (2017), shape (max_len, d_model), in
    float32: computed in float64 and rounded (``precision="float64"``), or every operation in
    float32 (``"float32"``), as the usual PyTorch module computes it (``arange`` positions times
    ``exp(arange(0, d, 2) * -log(10000) / d)``; Mahdavi et al.'s official
    ``SinPositionalEncoding``, bit for bit): the two differ in the last bits."""
    validate.integer("sinusoidal_table", "max_len", max_len, 1, validate.MAX_COUNT)
    validate.integer("sinusoidal_table", "d_model", d_model, 1, validate.MAX_COUNT)
    validate.choice("sinusoidal_table", "precision", precision, SINUSOID_PRECISIONS)
    validate.memory("sinusoidal_table", f"the table (max_len x d_model = {max_len * d_model:.1e} numbers)",
                    8.0 * max_len * d_model)
    if precision == "float32":
        position = torch.arange(max_len)[:, None].to(torch.float32)
        rate = torch.exp(torch.arange(0, d_model, 2).to(torch.float32) * (-math.log(10000.0) / d_model))
        table = torch.zeros(max_len, d_model, dtype=torch.float32)
        table[:, 0::2] = torch.sin(position * rate)
        table[:, 1::2] = torch.cos(position * rate)[:, : d_model // 2]
        return table
    position = torch.arange(max_len, dtype=torch.float64)[:, None]
    rate = torch.exp(torch.arange(0, d_model, 2, dtype=torch.float64) * (-math.log(10000.0) / d_model))
    table = torch.zeros(max_len, d_model, dtype=torch.float64)
    table[:, 0::2] = torch.sin(position * rate)
    table[:, 1::2] = torch.cos(position * rate)[:, : d_model // 2]
    return table.float()


def add_input_weights(model: nn.Module, c) -> None:
    """Register the embedding's weights on ``model`` (``W_E``, ``W_in``/``b_in``, ``W_pos``)."""
    validate.instance("add_input_weights", "model", model, nn.Module)
    validate.instance("add_input_weights", "c", c, InputFields)
    if c.input == "tokens" and c.embedding == "learned":
        model.W_E = nn.Parameter(torch.empty(c.vocab_size, c.d_model))
    if c.input == "vectors" and c.embedding == "linear":
        model.W_in = nn.Parameter(torch.empty(c.input_dim, c.d_model))
        model.b_in = nn.Parameter(torch.zeros(c.d_model))
    if c.positions == "learned":
        model.W_pos = nn.Parameter(torch.empty(c.max_len, c.d_model))
    elif c.positions == "sinusoidal":
        model.register_buffer("W_pos", sinusoidal_table(c.max_len, c.d_model, c.sinusoid_precision))


_CHECKED = contextvars.ContextVar("inputs_checked", default=False)


@contextlib.contextmanager
def inputs_checked():
    """Inside, models skip their per-call input check: the trainer checks its data once, up front
    (:func:`check_inputs`), and a check inside its vmapped or graph-captured step cannot run."""
    token = _CHECKED.set(True)
    try:
        yield
    finally:
        _CHECKED.reset(token)


def check_inputs(owner: str, c, x) -> None:
    """Raise a clear error unless ``x`` is what a model of config ``c`` reads: token ids
    ``(B, n)`` of an integer dtype in ``[0, vocab_size)``, or float vectors ``(B, n, input_dim)``;
    ``n <= max_len`` either way."""
    validate.instance(owner, "the config", c, InputFields)
    if not isinstance(x, torch.Tensor):
        raise ArgumentTypeError(f"{owner}: inputs must be a torch.Tensor, got {type(x).__name__}")
    if c.input == "tokens":
        if x.dim() != 2:
            raise ValueError(f"{owner}: token inputs must have shape (batch, length), got {tuple(x.shape)}")
        if x.dtype.is_floating_point or x.dtype.is_complex or x.dtype == torch.bool:
            raise ArgumentTypeError(f"{owner}: token ids must be integers (torch.long), got {x.dtype}")
        if x.numel() and (int(x.min()) < 0 or int(x.max()) >= c.vocab_size):
            raise ValueError(f"{owner}: token ids must lie in [0, {c.vocab_size}) (vocab_size), got ids from "
                             f"{int(x.min())} to {int(x.max())}")
    else:
        if x.dim() != 3 or x.shape[-1] != c.input_dim:
            raise ValueError(f"{owner}: vector inputs must have shape (batch, length, {c.input_dim}), "
                             f"got {tuple(x.shape)}")
        if not x.dtype.is_floating_point:
            raise ArgumentTypeError(f"{owner}: vector inputs must be floating point, got {x.dtype}")
    if x.shape[1] > c.max_len:
        raise ValueError(f"{owner}: sequence length {x.shape[1]} exceeds max_len={c.max_len}")


def _checkable(x) -> bool:
    """Whether a model call may check its inputs' values: not inside :func:`inputs_checked`, a
    ``vmap``/``grad`` transform or a CUDA-graph capture, where a data-dependent check cannot run."""
    if not isinstance(x, torch.Tensor):
        return True  # the check reports the wrong type
    if _CHECKED.get() or torch._C._functorch.is_functorch_wrapped_tensor(x):
        return False
    return not (x.is_cuda and torch.cuda.is_current_stream_capturing())


def embed(model: nn.Module, c, x: torch.Tensor, dtype: torch.dtype) -> torch.Tensor:
    """The stream before the first layer, ``(B, n, d_model)``, for token ids or vectors ``x``
    (checked by :func:`check_inputs` when called directly; see :func:`inputs_checked`)."""
    if _checkable(x):
        check_inputs(type(model).__name__, c, x)
    n = x.shape[1]
    if n > c.max_len:
        raise ValueError(f"sequence length {n} exceeds max_len={c.max_len}")
    if c.input == "tokens":
        if c.embedding == "learned":
            h = model.W_E[x]
        else:
            h = torch.eye(c.d_model, dtype=dtype, device=x.device)[x]  # token one-hot in rows [0, V)
    else:
        x = x.to(dtype)
        h = x @ model.W_in + model.b_in if c.embedding == "linear" else F.pad(x, (0, c.d_model - c.input_dim))
    if c.positions == "onehot":
        # position i in row token_block + i: an identity block padded into place, made on the device
        # (no host scalar written through an index, which a CUDA graph capture cannot copy)
        eye = torch.eye(n, c.max_len, dtype=dtype, device=h.device)
        h = h + F.pad(eye, (c.token_block, c.d_model - c.token_block - c.max_len))
    elif c.positions in ("learned", "sinusoidal"):
        h = h + model.W_pos[:n].to(dtype)
    return h


def add_readout_weights(model: nn.Module, d_model: int, n_out: int, bias: bool) -> None:
    """Register the read-out ``W_U`` (and ``b_U``) on ``model``."""
    validate.instance("add_readout_weights", "model", model, nn.Module)
    validate.integer("add_readout_weights", "d_model", d_model, 1)
    validate.integer("add_readout_weights", "n_out", n_out, 1)
    validate.boolean("add_readout_weights", "bias", bias)
    model.W_U = nn.Parameter(torch.empty(d_model, n_out))
    if bias:
        model.b_U = nn.Parameter(torch.zeros(n_out))


def read_out(model: nn.Module, h: torch.Tensor, bias: bool) -> torch.Tensor:
    """Logits ``h W_U (+ b_U)``."""
    logits = h @ model.W_U
    return logits + model.b_U if bias else logits
