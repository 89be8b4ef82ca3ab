"""Writing closed-form weights: a builder for bilinear attention stacks, the last-column probe
and the normalised classifier (Chen & Zou 2024, Lemma 3).

Convention (row-major, as :mod:`lib.models.attention`): scores are ``s_kj = h_k W_QK h_j^T``
for destination ``k`` and source ``j``, so ``W_QK[destination feature, source feature]``;
values ``W_V[source feature, destination feature]``; the read-out ``W_U[feature, class]``.
Papers that write tokens as columns load the transposes of their matrices.
"""
from __future__ import annotations

import torch

from ..models import AttentionConfig, AttentionModel, build_model


class WeightBuilder:
    """Zero weights for a bilinear (``qk="bilinear"``) attention config, filled entry by entry,
    then loaded into a model: ``qk[layer][head, dest, src]``, ``v[layer][head, src, dest]``,
    ``u[feature, class]`` (float64)."""

    def __init__(self, config: AttentionConfig):
        if config.qk != "bilinear":
            raise ValueError("WeightBuilder: the config must use qk='bilinear'")
        self.config = config
        D = config.d_model
        self.qk = [torch.zeros(h, D, D, dtype=torch.float64) for h in config.heads]
        self.v = [torch.zeros(h, D, D, dtype=torch.float64) for h in config.heads]
        self.u = torch.zeros(D, config.n_out, dtype=torch.float64)

    def model(self, dtype=torch.float64) -> AttentionModel:
        """A model of the config with these weights loaded."""
        weights = {"W_U": self.u}
        for layer, (qk, v) in enumerate(zip(self.qk, self.v)):
            weights[f"layers.{layer}.attn.W_QK"] = qk
            weights[f"layers.{layer}.attn.W_V"] = v
        return build_model(self.config, dtype=dtype).set_weights(weights)


def last_column(model: AttentionModel, x: torch.Tensor) -> torch.Tensor:
    """The last column of the final residual stream, ``h^(L)_{n-1}``, for each sequence."""
    cache: dict = {}
    model(x, cache=cache)
    return cache[f"layers.{model.config.n_layers - 1}.resid_post"][:, -1]


def normalized_classifier(representations: torch.Tensor, rows: slice | None = None) -> torch.Tensor:
    """Lemma 3 (in its simplest form): classifier column y = v_y / |v_y|.

    For pairwise non-parallel vectors ``v_y`` the arg-max of ``v W_U`` at ``v = v_y`` is ``y``
    (Cauchy-Schwarz). ``rows`` restricts the classifier to some features.
    """
    v = representations.double().clone()
    if rows is not None:
        mask = torch.zeros(v.shape[1], dtype=torch.bool)
        mask[rows] = True
        v[:, ~mask] = 0.0
    return (v / v.norm(dim=1, keepdim=True)).T
