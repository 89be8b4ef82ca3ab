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
from .base import (MAX_VOCAB, SIGN, ArgumentTypeError, Batch, Task, Vocab, check_choice, check_int, make_generator,
                   symbol_names)

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
    validate.seed(owner, "seed", seed)
    numbers = T * (n + 1) * d
    itemsize = torch.empty(0, dtype=dtype).element_size()
    validate.memory(owner, f"the data (n_examples x (context_size + 1) x dim = {numbers:.1e} numbers, in float64 "
                    f"and then {dtype})", numbers * (16.0 + itemsize) + T * label_dim * (8.0 + itemsize))
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


def _check_batch(owner: str, batch) -> None:
    validate.instance(owner, "batch", batch, Batch)
    if batch.x.dim() != 3 or batch.x.shape[1] < 2:
        validate.fail(owner, "batch", "a query/context batch with x of shape (T, n + 1, d), n >= 1",
                      f"x of shape {tuple(batch.x.shape)}")


def queries(batch: Batch) -> torch.Tensor:
    """The query vectors ``(T, d)`` of a query/context batch."""
    _check_batch("queries", batch)
    return batch.x[:, 0]


def contexts(batch: Batch) -> torch.Tensor:
    """The context matrices ``(T, n, d)`` of a query/context batch."""
    _check_batch("contexts", batch)
    return batch.x[:, 1:]


def as_sequences(query: torch.Tensor, context: torch.Tensor) -> torch.Tensor:
    """Queries ``(T, d)`` and contexts ``(T, n, d)`` (or one shared ``(n, d)``) laid out as the
    model's input ``(T, n + 1, d)``, query first."""
    tensors = []
    for name, value in (("query", query), ("context", context)):
        try:
            value = torch.as_tensor(value)
        except (TypeError, ValueError, RuntimeError):
            raise ArgumentTypeError(f"as_sequences: {name} must be an array of numbers, got "
                                    f"{type(value).__name__}") from None
        if not (value.is_floating_point() or value.dtype in (torch.int64, torch.int32)):
            validate.fail("as_sequences", name, "an array of real numbers", value.dtype, ArgumentTypeError)
        if value.is_floating_point() and not torch.isfinite(value).all():
            validate.fail("as_sequences", name, "finite (no NaN or infinity)",
                          f"an array with {int((~torch.isfinite(value)).sum())} such entries")
        tensors.append(value)
    query, context = tensors
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
        validate.seed(owner, "dataset_seed", dataset_seed)
        validate.memory(owner, f"the dataset and its draws (3 n_examples x (length + 1) = "
                        f"{3 * n_examples * (length + 1):.1e} numbers)", 8.0 * 3 * n_examples * (length + 1))
        self.n_words, self.length, self.n_examples, self.dataset_seed = n_words, length, n_examples, dataset_seed
        self.vocab = Vocab(symbol_names(n_words) + [SIGN])
        self.sign = n_words
        self.seq_len = length + 1
        self.n_classes = n_examples
        self._data: Batch | None = None

    def enumerate(self) -> Batch:
        if self._data is None:
            generator = make_generator(self.dataset_seed)
            every = self.length * math.log10(self.n_words) <= 7 + 1e-9 and self.n_examples == self.n_words**self.length
            if every:  # (n_examples <= 10^7, so no huge power is formed)
                words = torch.cartesian_prod(*[torch.arange(self.n_words)] * self.length).reshape(-1, self.length)
            else:
                seen, rows = set(), []
                for _ in range(1000):  # ~ln(n_words^length) / 2 rounds even for all but one sequence
                    if len(rows) >= self.n_examples:
                        break
                    for row in torch.randint(self.n_words, (2 * self.n_examples, self.length), generator=generator):
                        key = tuple(row.tolist())
                        if key not in seen and len(rows) < self.n_examples:
                            seen.add(key)
                            rows.append(row)
                if len(rows) < self.n_examples:
                    raise ValueError(f"SequenceClassification: found only {len(rows)} of {self.n_examples} distinct "
                                     "sequences in 1000 rounds; ask for fewer examples")
                words = torch.stack(rows)
            x = torch.cat([words, torch.full((len(words), 1), self.sign)], dim=1)
            labels = torch.randperm(self.n_examples, generator=generator)
            self._data = Batch(x, labels)
        return self._data

    def _sample(self, n, generator):
        data = self.enumerate()
        return data[torch.randint(len(data), (n,), generator=generator)]

    def split(self, n_train=None, n_test=None, seed=0):
        """The whole dataset as both sets (memorization); the sizes, if given, are checked and ignored."""
        for name, value in (("n_train", n_train), ("n_test", n_test)):
            if value is not None:
                check_int("SequenceClassification.split", name, value, minimum=1)
        validate.seed("SequenceClassification.split", "seed", seed)
        data = self.enumerate()
        return data, data

    def describe_target(self, y):
        return str(int(y) + 1)
