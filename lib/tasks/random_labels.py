"""Random labels: datasets with nothing to learn but the examples themselves (memorization).

* :class:`SequenceClassification` (Chen & Zou, 2024, Sec. 4.1): N distinct token sequences,
  each its own class.
* :func:`query_context_data` (Mahdavi, Liao & Thrampoulidis, 2024, Sec. 2 and 6): random
  vectors, a query and a context per example, with random classes or reals.

Query/context data: each example is a context ``E in R^{n x d}`` (n tokens) and one query
``e in R^d``; the model predicts from the query. An example is stored as one sequence of ``n + 1`` vectors with the
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

import math

import torch

from .. import validate
from .base import MAX_VOCAB, SIGN, Batch, Task, Vocab, check_choice, check_int, make_generator, symbol_names

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
    validate.size(owner, "the data (n_examples x (context_size + 1) x dim)", T * (n + 1) * d)
    validate.dtype(owner, "dtype", dtype)
    check_int(owner, "seed", seed, minimum=0)
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


# ----------------------------------------------------------------------------- SC
class SequenceClassification(Task):
    """Memorization (Sec. 4.1): N distinct sequences of ``length`` words, each its own class.

    The dataset is fixed by ``dataset_seed``; :meth:`enumerate` returns it, :meth:`sample`
    draws from it with replacement, and :meth:`split` returns it as both train and test set:
    memorization is measured on the memorized examples.
    """

    name = "sequence_classification"
    disjoint_splits = False

    def __init__(self, n_words: int = 50, length: int = 6, n_examples: int = 1000, dataset_seed: int = 0):
        owner = "SequenceClassification"
        check_int(owner, "n_words", n_words, minimum=1, maximum=MAX_VOCAB)
        check_int(owner, "length", length, minimum=1, maximum=MAX_VOCAB)
        distinct = 10**7 if length * math.log10(n_words) >= 7 else n_words**length  # no huge powers
        check_int(owner, "n_examples", n_examples, minimum=1, maximum=distinct)
        check_int(owner, "dataset_seed", dataset_seed, minimum=0)
        self.n_words, self.length, self.n_examples, self.dataset_seed = n_words, length, n_examples, dataset_seed
        self.vocab = Vocab(symbol_names(n_words) + [SIGN])
        self.sign = n_words
        self.seq_len = length + 1
        self.n_classes = n_examples
        self._data: Batch | None = None

    def enumerate(self) -> Batch:
        if self._data is None:
            generator = make_generator(self.dataset_seed)
            if self.n_examples == self.n_words**self.length:
                words = torch.cartesian_prod(*[torch.arange(self.n_words)] * self.length).reshape(-1, self.length)
            else:
                seen, rows = set(), []
                while len(rows) < self.n_examples:
                    for row in torch.randint(self.n_words, (2 * self.n_examples, self.length), generator=generator):
                        key = tuple(row.tolist())
                        if key not in seen and len(rows) < self.n_examples:
                            seen.add(key)
                            rows.append(row)
                words = torch.stack(rows)
            x = torch.cat([words, torch.full((len(words), 1), self.sign)], dim=1)
            labels = torch.randperm(self.n_examples, generator=generator)
            self._data = Batch(x, labels)
        return self._data

    def _sample(self, n, generator):
        data = self.enumerate()
        return data[torch.randint(len(data), (n,), generator=generator)]

    def split(self, n_train=None, n_test=None, seed=0):
        data = self.enumerate()
        return data, data

    def describe_target(self, y):
        return str(int(y) + 1)
