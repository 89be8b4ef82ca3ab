"""The MLP family: a multilayer perceptron on the flattened, embedded sequence.

``x (B, n, ...) -> embed -> flatten (B, n * d_model) -> n_layers x [W_in, activation] -> W_U``.
With one-hot tokens and no positions (``embedding="onehot"``, ``d_model = vocab_size``) the
input is the concatenation of the tokens' one-hots, the setting of Boix-Adsera et al. (2024,
App. I), where an MLP cannot generalise to symbols it has not seen.
"""
from __future__ import annotations

from dataclasses import dataclass

import torch
import torch.nn.functional as F
from torch import nn

from .. import validate
from .base import MAX_SIZE, Config, Model, check_seed
from .embedding import InputFields, add_input_weights, add_readout_weights, embed, read_out

ACTIVATIONS = {"relu": F.relu, "gelu": F.gelu, "tanh": torch.tanh}


def _fail(message: str):
    raise ValueError(f"MLPConfig: {message}")


@dataclass(frozen=True, kw_only=True)
class MLPConfig(InputFields, Config):
    """An MLP on sequences of a fixed length ``max_len``."""

    max_len: int  # required: inputs are flattened, so every input has this length
    d_hidden: int = 64
    n_layers: int = 1  # hidden layers
    activation: str = "relu"
    embedding: str = "onehot"  # this family's default (InputFields: "learned")
    init_std: float | None = None  # None: N(0, 1/fan_in) for every matrix

    def __post_init__(self):
        self.check_positive(("d_model", "n_out", "max_len", "d_hidden", "n_layers"), _fail)
        self.check_types(booleans=("readout_bias",), optional_reals=("init_std",))
        if not isinstance(self.activation, str) or self.activation not in ACTIVATIONS:
            _fail(f"activation must be one of {', '.join(ACTIVATIONS)}; got {self.activation!r}")
        self.check_input(_fail)

    @property
    def model_class(self) -> type:
        """The family's model (:func:`lib.models.build_model` builds it)."""
        return MLPModel


class Dense(nn.Module):
    def __init__(self, d_in: int, d_out: int):
        validate.integer("Dense", "d_in", d_in, 1)
        validate.integer("Dense", "d_out", d_out, 1, MAX_SIZE)
        super().__init__()
        self.W_in = nn.Parameter(torch.empty(d_in, d_out))
        self.b_in = nn.Parameter(torch.zeros(d_out))

    def forward(self, h: torch.Tensor) -> torch.Tensor:
        return h @ self.W_in + self.b_in


class MLPModel(Model):
    """``model(x)`` returns logits; ``model(x, cache={})`` also keeps the embedding and every
    hidden layer's activations (``layers.{i}.hidden``)."""

    def __init__(self, config: MLPConfig, seed: int | None = 0):
        validate.instance("MLPModel", "config", config, MLPConfig)
        check_seed("MLPModel", seed)
        super().__init__()
        self.config = c = config
        add_input_weights(self, c)
        widths = [c.max_len * c.d_model] + [c.d_hidden] * c.n_layers
        self.layers = nn.ModuleList(Dense(a, b) for a, b in zip(widths[:-1], widths[1:]))
        add_readout_weights(self, widths[-1], c.n_out, c.readout_bias)
        self.activation = ACTIVATIONS[c.activation]
        self.reset_parameters(seed)

    def forward(self, x: torch.Tensor, cache: dict | None = None) -> torch.Tensor:
        if x.shape[1] != self.config.max_len:
            raise ValueError(f"MLPModel: inputs must have length max_len={self.config.max_len}, got {x.shape[1]}")
        h = embed(self, self.config, x, self.W_U.dtype)
        if cache is not None:
            cache["embed"] = h.detach()
        h = h.flatten(1)
        for i, layer in enumerate(self.layers):
            h = self.activation(layer(h))
            if cache is not None:
                cache[f"layers.{i}.hidden"] = h.detach()
        return read_out(self, h, self.config.readout_bias)
