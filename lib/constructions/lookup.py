"""Index lookup with one-hot positions: the "naive" one-layer construction that
Bhattamishra et al. (2024, Sec. 3) mention before their O(log N)-width Theorem 1.

The residual stream is ``[token one-hot | position one-hot]`` (width V + N + 1). One
softmax head with bilinear scores lets the query token ``@p`` score ``beta`` on the key
at position ``p`` and 0 elsewhere; its value copies the symbol block, and the read-out
reads the symbol rows. The query's own one-hot lies outside the symbol rows, so only the
attended symbols reach the logits. Position ``p`` gets weight ``e^beta / (e^beta + N)``
and each of the other N-1 symbol positions ``1 / (e^beta + N)``. The worst input repeats
one wrong symbol at all N-1 other positions, so the arg-max is right for every input
exactly when ``e^beta > N - 1``, i.e. ``beta > log(N - 1)``.
"""
from __future__ import annotations

import math

import torch

from .. import validate
from ..models import AttentionConfig, AttentionModel, build_model
from ..tasks.base import Batch
from ..tasks.retrieval import IndexLookup


def index_lookup_config(task: IndexLookup) -> AttentionConfig:
    validate.instance("index_lookup_config", "task", task, IndexLookup)
    V = len(task.vocab)
    return AttentionConfig(d_model=V + task.seq_len, n_out=task.n_classes, n_layers=1, n_heads=1, attention="softmax",
                       qk="bilinear", attn_scale=1.0, combine="mean", input="tokens", vocab_size=V,
                       embedding="onehot", positions="onehot", max_len=task.seq_len, readout="last")


def exactness_threshold(task: IndexLookup) -> float:
    """The inverse temperature above which the construction is exact: log(N - 1)."""
    validate.instance("exactness_threshold", "task", task, IndexLookup)
    return math.log(task.length - 1) if task.length > 1 else -math.inf


def index_lookup_onehot(task: IndexLookup, beta: float = 10.0) -> AttentionModel:
    """One layer, one softmax head, width V + N + 1: solves every input when beta > log(N-1)."""
    validate.instance("index_lookup_onehot", "task", task, IndexLookup)
    validate.real("index_lookup_onehot", "beta", beta)
    config = index_lookup_config(task)
    d, V = config.d_model, len(task.vocab)
    W_QK = torch.zeros(1, d, d)
    for p in range(1, task.length + 1):
        W_QK[0, task.position_token(p), V + (p - 1)] = beta  # query @p -> key at 0-based position p-1
    W_V = torch.zeros(1, d, d)
    W_U = torch.zeros(d, task.n_classes)
    for s in range(task.n_symbols):
        W_V[0, s, s] = 1.0
        W_U[s, s] = 1.0
    model = build_model(config)
    return model.set_weights({"layers.0.attn.W_QK": W_QK, "layers.0.attn.W_V": W_V, "W_U": W_U})


def worst_case_inputs(task: IndexLookup) -> Batch:
    """The inputs on which :func:`index_lookup_onehot` is closest to failing: for every queried
    position p and symbol a, ``s_p = a`` and one other symbol b = a + 1 (mod S) at all N - 1 other
    positions, so b collects (N - 1) / (e^beta + N) of the attention against a's e^beta / (e^beta + N).
    N x S inputs; a check on them sees the threshold log(N - 1) that random samples miss."""
    validate.instance("worst_case_inputs", "task", task, IndexLookup)
    S, N = task.n_symbols, task.length
    validate.size("worst_case_inputs", "the inputs (N x S x (N + 1))", N * S * (N + 1))
    p = torch.arange(N).repeat_interleave(S)
    a = torch.arange(S).repeat(N)
    symbols = ((a + 1) % S)[:, None].repeat(1, N)
    symbols[torch.arange(len(p)), p] = a
    x = torch.cat([symbols, (S + p)[:, None]], dim=1)
    return Batch(x, a)
