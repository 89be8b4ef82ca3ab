"""The recurrent family: Elman RNNs and LSTMs, written with plain tensor operations so that the
ensemble trainer can ``vmap`` K members (``nn.LSTM`` has no batching rule).

A model is ``embed -> L x [recurrent layer] -> read-out``, with the embedding and read-out that
every family shares (:mod:`.embedding`). Layer ``l`` has weights ``layers.l.W_ih`` (input to
pre-activations), ``layers.l.W_hh`` (state to pre-activations), ``layers.l.b_h`` and an initial
state ``layers.l.b_h0`` (zero unless set; the Dyck automaton of Bhattamishra et al. starts from a
chosen unit):

* ``cell="elman"``: ``h_t = act(h_{t-1} W_hh + x_t W_ih + b_h)`` with ``act`` ReLU or tanh;
* ``cell="lstm"``: pre-activations ``[i, f, g, o]`` (``4H`` columns, in ``torch.nn.LSTM``'s
  order), ``c_t = sigma(f) c_{t-1} + sigma(i) tanh(g)``, ``h_t = sigma(o) tanh(c_t)``; the LSTM
  also starts from ``c_0 = 0``. ``torch.nn.LSTM``'s ``weight_ih_l0`` is ``W_ih^T`` and its two
  biases sum to ``b_h`` (``tests/test_models.py`` checks the two against each other).

``readout="last"`` classifies a sequence from the last state, ``"all"`` reads every position.
The cache holds every layer's states (``layers.l.states``, ``(B, n, H)``) and its final ``(h, c)``
(``layers.l.final``); ``model(x, state=...)`` continues from given final states.
"""
from __future__ import annotations

from dataclasses import dataclass

import torch
from torch import nn

from .. import validate
from .base import Config, Model, check_seed
from .embedding import InputFields, add_input_weights, add_readout_weights, embed, read_out

CELLS = ("elman", "lstm")
ACTIVATIONS = {"relu": torch.relu, "tanh": torch.tanh}


def _fail(message: str):
    raise ValueError(f"RecurrentConfig: {message}")


@dataclass(frozen=True, kw_only=True)
class RecurrentConfig(InputFields, Config):
    """Shapes and computation of a recurrent model; ``d_model`` is the state width H (and the
    embedding width)."""

    cell: str = "lstm"
    n_layers: int = 1
    activation: str = "tanh"  # Elman only
    readout: str = "last"
    init_std: float | None = None

    def __post_init__(self):
        self.check_positive(("d_model", "n_out", "n_layers", "max_len"), _fail)
        self.check_types(booleans=("readout_bias",), optional_reals=("init_std",))
        for name, allowed in (("cell", CELLS), ("activation", tuple(ACTIVATIONS)), ("readout", ("last", "all"))):
            if not isinstance(getattr(self, name), str) or getattr(self, name) not in allowed:
                _fail(f"{name} must be one of {', '.join(allowed)}; got {getattr(self, name)!r}")
        self.check_input(_fail)

    @property
    def gates(self) -> int:
        return 4 if self.cell == "lstm" else 1

    @property
    def model_class(self) -> type:
        return RecurrentModel


class RecurrentLayer(nn.Module):
    def __init__(self, config: RecurrentConfig):
        validate.instance("RecurrentLayer", "config", config, RecurrentConfig)
        super().__init__()
        self.config = config
        H, g = config.d_model, config.gates
        self.W_ih = nn.Parameter(torch.empty(H, g * H))
        self.W_hh = nn.Parameter(torch.empty(H, g * H))
        self.b_h = nn.Parameter(torch.zeros(g * H))
        self.b_h0 = nn.Parameter(torch.zeros(H))

    def forward(self, x: torch.Tensor, state: tuple | None = None) -> tuple[torch.Tensor, tuple]:
        """States ``(B, n, H)`` for inputs ``(B, n, H)``, and the final state ``(h, c)`` (``c`` None
        for an Elman cell). ``state`` starts from a given ``(h, c)`` instead of ``(b_h0, 0)``."""
        B, n, H = x.shape
        drive = x @ self.W_ih + self.b_h  # every step's input part at once
        h = self.b_h0.expand(B, H) if state is None else state[0]
        states = []
        c = None
        if self.config.cell == "elman":
            act = ACTIVATIONS[self.config.activation]
            for x_t in drive.unbind(1):  # unbind, not drive[:, t]: no full-size gradient per step
                h = act(h @ self.W_hh + x_t)
                states.append(h)
        else:
            c = torch.zeros_like(h) if state is None else state[1]
            for x_t in drive.unbind(1):
                i, f, g, o = (h @ self.W_hh + x_t).chunk(4, dim=-1)
                c = torch.sigmoid(f) * c + torch.sigmoid(i) * torch.tanh(g)
                h = torch.sigmoid(o) * torch.tanh(c)
                states.append(h)
        return torch.stack(states, dim=1), (h, c)


class RecurrentModel(Model):
    """``model(x)`` returns logits; ``model(x, cache={})`` also records every layer's states."""

    def __init__(self, config: RecurrentConfig, seed: int | None = 0):
        validate.instance("RecurrentModel", "config", config, RecurrentConfig)
        check_seed("RecurrentModel", seed)
        super().__init__()
        self.config = config
        add_input_weights(self, config)
        self.layers = nn.ModuleList(RecurrentLayer(config) for _ in range(config.n_layers))
        add_readout_weights(self, config.d_model, config.n_out, config.readout_bias)
        self.reset_parameters(seed)

    def forward(self, x: torch.Tensor, cache: dict | None = None, state: list | None = None) -> torch.Tensor:
        """Logits; ``state`` (one ``(h, c)`` per layer) continues from a given state, and the cache
        records every layer's states and its final ``(h, c)`` (``layers.l.final``): how a sequence
        is split between two parties (Theorem 2 of Bhattamishra et al.)."""
        h = embed(self, self.config, x, self.W_U.dtype)
        if cache is not None:
            cache["embed"] = h.detach()
        for i, layer in enumerate(self.layers):
            h, final = layer(h, None if state is None else state[i])
            if cache is not None:
                cache[f"layers.{i}.states"] = h.detach()
                cache[f"layers.{i}.final"] = final
        if self.config.readout == "last":
            h = h[:, -1]
        return read_out(self, h, self.config.readout_bias)
