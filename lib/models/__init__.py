"""Model families behind one interface (:class:`~lib.models.base.Model`).

==========================  =============================================================
module                      family
==========================  =============================================================
:mod:`.base`                the interface: forward with a cache, weights by name, seeded
                            initialisation, parameter count, optional ``restrict``;
                            ``build_model``, ``predict`` and ``accuracy`` for any model
:mod:`.embedding`           the input embedding and read-out every family shares
:mod:`.attention`           the configurable attention stack (:class:`AttentionConfig`)
:mod:`.mlp`                 an MLP on the flattened sequence (:class:`MLPConfig`)
:mod:`.recurrent`           Elman (ReLU/tanh) RNNs and LSTMs (:class:`RecurrentConfig`)
:mod:`.ssm`                 DSS, selective SSM (Mamba), RetNet / linear attention (:class:`SSMConfig`)
:mod:`.decoder`             the stack as a next-token predictor: tied read-out, fixed weights,
                            :func:`~lib.models.decoder.generate` (:class:`DecoderConfig`)
:mod:`.identity`            the stack with two trainable scalars per head, ``a_h I`` in ``W_K W_Qᵀ``
                            and ``b_h I`` in ``W_V W_Oᵀ`` (:class:`IdentityScalingConfig`)
==========================  =============================================================

A new family (recurrent networks, state-space models) is one module with a frozen config
dataclass, whose ``model_class`` property names a :class:`Model` subclass, and an entry in
``_EXPORTS`` below. The trainer stacks the weights of K members and ``vmap``s the forward
pass, so a family must be written with plain tensor operations (``vmap`` has no batching rule
for ``nn.LSTM``/``nn.GRU``: recurrent families unroll their own stacked weights).

Families are imported when first used (``from lib.models import AttentionConfig`` imports
:mod:`.attention` only), so a result's provenance (:func:`lib.results.lib_closure`, which reads
``_EXPORTS``) lists only the families that computed it, and a new family leaves it fresh.
"""
from __future__ import annotations

from .. import lazy_exports
from .base import Model, accuracy, build_model, predict

_EXPORTS = {"AttentionConfig": "attention", "AttentionModel": "attention", "MLPConfig": "mlp", "MLPModel": "mlp",
            "RecurrentConfig": "recurrent", "RecurrentModel": "recurrent", "SSMConfig": "ssm", "SSMModel": "ssm",
            "DecoderConfig": "decoder", "DecoderModel": "decoder",
            "IdentityScalingConfig": "identity", "IdentityScalingModel": "identity"}
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)


__all__ = ["Model", "accuracy", "build_model", "predict", *_EXPORTS]
