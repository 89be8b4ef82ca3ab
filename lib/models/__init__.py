"""Model families behind one interface (:class:`~lib.models.base.Model`).

==========================  =============================================================
module                      family
==========================  =============================================================
:mod:`.base`                the interface: forward with a cache, weights by name, seeded
                            initialisation, parameter count, optional ``restrict``;
                            ``predict`` and ``accuracy`` for any model
:mod:`.embedding`           the input embedding and read-out every family shares
:mod:`.attention`           the configurable attention stack (:class:`AttentionConfig`)
:mod:`.mlp`                 an MLP on the flattened sequence (:class:`MLPConfig`)
==========================  =============================================================

:func:`build_model` dispatches on the config's type. A new family (recurrent networks,
state-space models) is one module with a frozen config dataclass and a :class:`Model`
subclass, registered in :data:`FAMILIES`. The trainer stacks the weights of K members and
``vmap``s the forward pass, so a family must be written with plain tensor operations
(``vmap`` has no batching rule for ``nn.LSTM``/``nn.GRU``: recurrent families unroll their
own stacked weights).
"""
from __future__ import annotations

import torch

from .attention import AttentionConfig, AttentionModel
from .base import Model, accuracy, predict
from .mlp import MLPConfig, MLPModel

FAMILIES: dict[type, type[Model]] = {AttentionConfig: AttentionModel, MLPConfig: MLPModel}


def build_model(config, seed: int = 0, device=None, dtype: torch.dtype | None = None) -> Model:
    """Build and initialise the model of ``config``'s family deterministically from ``seed``;
    optionally move and cast it."""
    family = FAMILIES.get(type(config))
    if family is None:
        raise ValueError(f"build_model: no model family for a {type(config).__name__}; "
                         f"known configs: {', '.join(c.__name__ for c in FAMILIES)}")
    model = family(config, seed=seed)
    if dtype is not None:
        model = model.to(dtype)
    if device is not None:
        model = model.to(device)
    return model


__all__ = ["AttentionConfig", "AttentionModel", "FAMILIES", "MLPConfig", "MLPModel", "Model", "accuracy",
           "build_model", "predict"]
