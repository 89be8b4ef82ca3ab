"""Datasets of Mahdavi, Liao & Thrampoulidis (2024) beyond the query/context data of
:mod:`lib.tasks.random_labels`: Prop. 3's adversarial data (Appendix F)."""
from __future__ import annotations

import torch

from ... import validate
from ...tasks.base import Batch, check_int, make_generator
from ...tasks.random_labels import as_sequences


def relu_hard_data(n_examples: int, context_size: int, dim: int, seed: int = 0,
                   dtype: torch.dtype = torch.float64) -> Batch:
    """Prop. 3's dataset (Appendix F): one shared context of the first n standard basis
    vectors and queries ``[0_{d-n}; x^(t)]`` with ``x^(t) ~ N(0, I_n)`` (general position in
    ``R^n``). It meets Assumptions 1 and 2, yet a two-layer ReLU network sees only n varying
    coordinates. Labels are reals ``N(0, 1)``."""
    owner = "relu_hard_data"
    T = check_int(owner, "n_examples", n_examples, minimum=1)
    n = check_int(owner, "context_size", context_size, minimum=1)
    d = check_int(owner, "dim", dim, minimum=n + 1)
    check_int(owner, "seed", seed, minimum=0)
    validate.dtype(owner, "dtype", dtype)
    validate.size(owner, "the data (n_examples x (context_size + 1) x dim)", T * (n + 1) * d)
    g = make_generator(seed)
    q = torch.zeros(T, d, dtype=torch.float64)
    q[:, d - n:] = torch.randn(T, n, generator=g, dtype=torch.float64)
    context = torch.eye(n, d, dtype=torch.float64)
    y = torch.randn(T, generator=g, dtype=torch.float64)
    return Batch(as_sequences(q, context).to(dtype), y.to(dtype))
