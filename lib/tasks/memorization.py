"""Query/context data of Mahdavi, Liao & Thrampoulidis (2024), Sec. 2 and 6.

Each example is a context ``E in R^{n x d}`` (n tokens) and one query ``e in R^d``; the model
predicts from the query. An example is stored as one sequence of ``n + 1`` vectors with the
query first, ``x[t] = [e^(t); e_1^(t); ...; e_n^(t)]`` (the official code's layout: token 0 is
the query, and the query never attends to itself).

Contexts are either *shared*, one ``E`` for every example (the paper's main experiments and
the setting of Prop. 2, where the rank bound is tight), or drawn *per example* (Appendix I,
"general position"). Raw tokens are i.i.d. ``U(0, 1)``, as in the code. Labels are classes
``U({0..C-1})`` (memorization = training accuracy) or reals ``U(0, 1)`` (regression, Fig. 5).

A memorization dataset is a fixed set of T examples, not an online task: there is nothing to
generalise to, so it is a :class:`~lib.tasks.base.Batch`, not a :class:`~lib.tasks.base.Task`.
"""
from __future__ import annotations

import torch

from .base import Batch, check_choice, check_int, make_generator

CONTEXTS = ("shared", "per_example")
LABELS = ("classes", "reals")


def query_context_data(n_examples: int, context_size: int, dim: int, *, context: str = "shared",
                       labels: str = "classes", n_classes: int = 100, label_dim: int = 1, seed: int = 0,
                       dtype: torch.dtype = torch.float32) -> Batch:
    """T = ``n_examples`` examples with random queries, a shared or per-example context of
    ``context_size`` tokens in ``R^dim``, and random labels.

    Returns a Batch with ``x`` of shape ``(T, n + 1, dim)`` (query first) and ``y`` of shape
    ``(T,)`` (classes, or reals when ``label_dim == 1``) or ``(T, label_dim)`` (real vectors).
    """
    owner = "query_context_data"
    T = check_int(owner, "n_examples", n_examples, minimum=1)
    n = check_int(owner, "context_size", context_size, minimum=1)
    d = check_int(owner, "dim", dim, minimum=1)
    check_choice(owner, "context", context, CONTEXTS)
    check_choice(owner, "labels", labels, LABELS)
    check_int(owner, "n_classes", n_classes, minimum=2)
    check_int(owner, "label_dim", label_dim, minimum=1)
    g = make_generator(seed)
    queries = torch.rand(T, 1, d, generator=g, dtype=torch.float64)
    if context == "shared":
        tokens = torch.rand(1, n, d, generator=g, dtype=torch.float64).expand(T, n, d)
    else:
        tokens = torch.rand(T, n, d, generator=g, dtype=torch.float64)
    x = torch.cat([queries, tokens], 1).to(dtype)
    if labels == "classes":
        y = torch.randint(n_classes, (T,), generator=g)
    else:
        y = torch.rand(T, label_dim, generator=g, dtype=torch.float64).to(dtype)
        y = y[:, 0] if label_dim == 1 else y
    return Batch(x, y)


def queries(batch: Batch) -> torch.Tensor:
    """The query vectors ``(T, d)`` of a query/context batch."""
    return batch.x[:, 0]


def contexts(batch: Batch) -> torch.Tensor:
    """The context matrices ``(T, n, d)`` of a query/context batch."""
    return batch.x[:, 1:]


def as_sequences(query: torch.Tensor, context: torch.Tensor) -> torch.Tensor:
    """Queries ``(T, d)`` and contexts ``(T, n, d)`` (or one shared ``(n, d)``) laid out as the
    model's input ``(T, n + 1, d)``, query first."""
    query = torch.as_tensor(query)
    context = torch.as_tensor(context)
    if context.dim() == 2:
        context = context.expand(query.shape[0], *context.shape)
    if query.dim() != 2 or context.dim() != 3 or context.shape[0] != query.shape[0] \
            or context.shape[2] != query.shape[1]:
        raise ValueError(f"as_sequences: need queries (T, d) and contexts (T, n, d); got "
                         f"{tuple(query.shape)} and {tuple(context.shape)}")
    return torch.cat([query[:, None].to(context.dtype), context], 1)


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
    g = make_generator(seed)
    q = torch.zeros(T, d, dtype=torch.float64)
    q[:, d - n:] = torch.randn(T, n, generator=g, dtype=torch.float64)
    context = torch.eye(n, d, dtype=torch.float64)
    y = torch.randn(T, generator=g, dtype=torch.float64)
    return Batch(as_sequences(q, context).to(dtype), y.to(dtype))
