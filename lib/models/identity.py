"""Two trainable scalars per attention head (Boix-Adsera et al., 2024, Obs. 1.2, Sec. 4.3, Thm. 5.2).

Each head's ``W_K W_Qᵀ`` becomes ``W_K W_Qᵀ + a_h I`` and its ``W_V W_Oᵀ`` becomes
``W_V W_Oᵀ + b_h I``, both scalars starting at 0:

* ``kq_identity`` adds ``a_h (h_i · h_j)`` to head h's score of query i on key j, after the
  ``1/sqrt(d_head)`` scaling and on the (pre-LayerNormed) input of the layer, as the authors' code
  does. It hands attention the incidence matrix ``XXᵀ`` of the string (Sec. 4.3).
* ``vo_identity`` adds ``Σ_h b_h Σ_j A_hij h_j`` to the layer's output: an attention-modulated skip
  connection, which can copy a token's embedding to the read-out position (Sec. 5).

:class:`IdentityScalingConfig` is a :class:`~lib.models.decoder.DecoderConfig`, so it has every
option of the shared stack and the tied read-out ``logits = h W_Eᵀ`` that symbolic labels need.
Its defaults are those of the authors' template-task transformer (``experiments/models.py``):
bidirectional attention, learned positions, pre-LayerNorm blocks, and the read-out at the last
([CLS]) position. ``tie_embedding=False`` with ``n_out=1`` is the real-label model. With both
options off, the model is the shared stack itself, weight for weight for the same seed.

The scalars are named ``layers.{i}.attn.id_kq`` and ``layers.{i}.attn.id_vo`` (one per head).
"""
from __future__ import annotations

from dataclasses import dataclass

import torch
from torch import nn

from .. import validate
from .attention import Attention
from .decoder import DecoderConfig, DecoderModel


def _fail(message: str):
    raise ValueError(f"IdentityScalingConfig: {message}")


@dataclass(frozen=True)
class IdentityScalingConfig(DecoderConfig):
    """The attention stack with ``a_h I`` and/or ``b_h I`` per head (see the module docstring)."""

    causal: bool = False
    readout: str = "last"
    norm: str = "pre"
    kq_identity: bool = False
    vo_identity: bool = False

    def __post_init__(self):
        super().__post_init__()
        validate.boolean("IdentityScalingConfig", "kq_identity", self.kq_identity)
        validate.boolean("IdentityScalingConfig", "vo_identity", self.vo_identity)
        if self.fixed:
            _fail("fixed weights are not supported here; got fixed=" + repr(self.fixed))
        if self.attention != "softmax" and self.kq_identity:
            _fail("kq_identity changes softmax scores; it needs attention='softmax'")

    @property
    def model_class(self) -> type:
        return IdentityScalingModel


class IdentityAttention(Attention):
    """A layer of the stack with the per-head scalars ``id_kq`` (a_h) and ``id_vo`` (b_h)."""

    def __init__(self, config: IdentityScalingConfig, layer: int):
        validate.instance("IdentityAttention", "config", config, IdentityScalingConfig)
        super().__init__(config, layer)
        if config.kq_identity:
            self.id_kq = nn.Parameter(torch.zeros(self.n_heads))
        if config.vo_identity:
            self.id_vo = nn.Parameter(torch.zeros(self.n_heads))

    def scores(self, h: torch.Tensor, queries: torch.Tensor | None = None) -> torch.Tensor:
        s = super().scores(h, queries)
        if self.config.kq_identity:
            gram = (h if queries is None else queries) @ h.transpose(-1, -2)  # (B, n_query, n_key)
            s = s + self.id_kq[:, None, None] * gram[:, None]
        return s

    def pattern(self, h, allowed, queries=None):
        a = super().pattern(h, allowed, queries)
        if self.config.vo_identity:
            self.__dict__["_pattern"] = a  # read once by forward below, so scores are computed once
        return a

    def forward(self, h, allowed, cache=None, rows=None):
        out = super().forward(h, allowed, cache, rows)
        if self.config.vo_identity:
            a = self.__dict__.pop("_pattern")
            out = out + torch.einsum("h,bhij,bjd->bid", self.id_vo, a, h)
        return out


class IdentityScalingModel(DecoderModel):
    """The stack of :class:`IdentityAttention` layers; the scalars start at 0, and every other
    weight is drawn exactly as the plain stack draws it for the same seed."""

    def __init__(self, config: IdentityScalingConfig, seed: int | None = 0):
        validate.instance("IdentityScalingModel", "config", config, IdentityScalingConfig)
        super().__init__(config, seed)
        for layer, block in enumerate(self.layers):
            replacement = IdentityAttention(config, layer)
            missing, unexpected = replacement.load_state_dict(block.attn.state_dict(), strict=False)
            assert not unexpected and set(missing) <= {"id_kq", "id_vo"}
            block.attn = replacement

    def reset_parameters(self, seed: int | None = 0) -> None:
        """The stack's initialisation for every weight but the scalars, which are set to 0."""
        held = [(module, name, module._parameters.pop(name)) for module in self.modules()
                if isinstance(module, IdentityAttention) for name in ("id_kq", "id_vo") if name in module._parameters]
        try:
            super().reset_parameters(seed)
        finally:
            for module, name, value in held:
                with torch.no_grad():
                    value.zero_()
                module._parameters[name] = value
