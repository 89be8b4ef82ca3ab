"""The common shape of a task.

A task is a generator of labelled sequences that is deterministic given a seed. It knows
its vocabulary, its sequence length and its number of classes, returns token ids and
targets as tensors (a :class:`Batch`), and makes train/test splits. Every subclass
validates its arguments with :func:`check_int` / :func:`check_choice`, so a bad
argument fails at construction with a message that says what is allowed.
"""
from __future__ import annotations

import math
import string
import zlib
from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import ClassVar, Iterable, Sequence

import torch

from .. import validate
from ..validate import ArgumentTypeError  # noqa: F401  (re-exported for the task modules)

#: the largest vocabulary (words, symbols, answers) or length a task builds
MAX_VOCAB = validate.MAX_COUNT

IGNORE = -100  # target value that losses and accuracies skip (cross_entropy's ignore_index)
SIGN = "→"  # the response sign that ends a sequence to be classified (Chen & Zou's r, a CLS token)


# ----------------------------------------------------------------------------- validation
def check_int(owner: str, name: str, value, minimum: int | None = None, maximum: int | None = None) -> int:
    """``value`` as an integer in [minimum, maximum] (see :func:`lib.validate.integer`)."""
    return validate.integer(owner, name, value, minimum, maximum)


def check_choice(owner: str, name: str, value, choices: Iterable) -> object:
    """``value`` if it is one of ``choices`` (see :func:`lib.validate.choice`)."""
    return validate.choice(owner, name, value, choices)


# ----------------------------------------------------------------------------- containers
class Vocab:
    """An ordered list of token strings; token id = position in the list."""

    def __init__(self, tokens: Sequence[str]):
        if isinstance(tokens, (str, bytes)) or not hasattr(tokens, "__iter__"):
            raise ArgumentTypeError(f"Vocab: tokens must be a list of strings, got {type(tokens).__name__}")
        tokens = list(tokens)
        if not all(isinstance(t, str) for t in tokens):
            bad = next(t for t in tokens if not isinstance(t, str))
            raise ArgumentTypeError(f"Vocab: tokens must be a list of strings, got an element {bad!r}")
        if len(set(tokens)) != len(tokens):
            raise ValueError("Vocab: tokens must be distinct")
        self.tokens = tokens
        self._index = {t: i for i, t in enumerate(tokens)}

    def __len__(self) -> int:
        return len(self.tokens)

    def __getitem__(self, token: str) -> int:
        try:
            return self._index[token]
        except KeyError:
            raise KeyError(f"{token!r} is not in the vocabulary") from None

    def encode(self, tokens: Sequence[str]) -> torch.Tensor:
        if isinstance(tokens, (str, bytes)) or not hasattr(tokens, "__iter__"):
            raise ArgumentTypeError(f"Vocab.encode: tokens must be a list of token strings, got {tokens!r}"[:200])
        return torch.tensor([self[t] for t in tokens], dtype=torch.long)

    def decode(self, ids) -> list[str]:
        if isinstance(ids, (str, bytes)) or not hasattr(ids, "__iter__"):
            raise ArgumentTypeError(f"Vocab.decode: ids must be a sequence of token ids, got {type(ids).__name__}")
        ids = ids.tolist() if isinstance(ids, torch.Tensor) else \
            [i.item() if isinstance(i, torch.Tensor) and i.numel() == 1 and not i.is_floating_point() else i for i in ids]
        for i in ids:
            validate.integer("Vocab.decode", "ids", i, 0, len(self.tokens) - 1)
        return [self.tokens[int(i)] for i in ids]

    def __repr__(self) -> str:
        shown = " ".join(self.tokens[:12]) + (" ..." if len(self) > 12 else "")
        return f"Vocab({len(self)}: {shown})"


@dataclass(frozen=True)
class Batch:
    """Inputs and targets of a set of examples.

    ``x``: token ids ``(B, n)`` (long) or input vectors ``(B, n, d)`` (float).
    ``y``: one class per sequence ``(B,)``, one target per token ``(B, n)`` with
    :data:`IGNORE` where there is none, or real-valued targets (regression).
    """

    x: torch.Tensor
    y: torch.Tensor

    def __post_init__(self):
        for name in ("x", "y"):
            if not isinstance(getattr(self, name), torch.Tensor):
                raise ArgumentTypeError(f"Batch: {name} must be a torch.Tensor, got {type(getattr(self, name)).__name__}")
        if self.x.dim() < 2:
            raise ValueError(f"Batch: x must have a batch and a sequence axis, (B, n) or (B, n, d); got shape "
                             f"{tuple(self.x.shape)}")
        if self.y.dim() < 1:
            raise ValueError("Batch: y must have a batch axis, got a scalar")
        if self.x.shape[0] != self.y.shape[0]:
            raise ValueError(f"Batch: x has {self.x.shape[0]} examples but y has {self.y.shape[0]}")

    def __len__(self) -> int:
        return self.x.shape[0]

    def __getitem__(self, index) -> "Batch":
        if isinstance(index, int):
            index = slice(index, index + 1)
        return Batch(self.x[index], self.y[index])

    def to(self, device) -> "Batch":
        validate.device("Batch.to", "device", device)
        return Batch(self.x.to(device), self.y.to(device))

    @staticmethod
    def cat(batches: Sequence["Batch"]) -> "Batch":
        _check_batches("Batch.cat", batches)
        return Batch(torch.cat([b.x for b in batches]), torch.cat([b.y for b in batches]))

    @staticmethod
    def stack(batches: Sequence["Batch"]) -> "Batch":
        """Stack equally-sized batches along a new leading (ensemble member) axis."""
        _check_batches("Batch.stack", batches)
        return Batch(torch.stack([b.x for b in batches]), torch.stack([b.y for b in batches]))


def _check_batches(owner: str, batches) -> None:
    if isinstance(batches, Batch) or not isinstance(batches, (list, tuple)):
        raise ArgumentTypeError(f"{owner}: batches must be a list of Batch, got {type(batches).__name__}")
    if not batches:
        raise ValueError(f"{owner}: batches must be a non-empty list, got []")
    if not all(isinstance(b, Batch) for b in batches):
        raise ArgumentTypeError(f"{owner}: every element of batches must be a Batch")


def make_generator(seed: int) -> torch.Generator:
    validate.seed("make_generator", "seed", seed)
    return torch.Generator().manual_seed(seed)


# ----------------------------------------------------------------------------- helpers
def symbol_names(n: int) -> list[str]:
    """``a, b, ...`` for small alphabets, ``s0, s1, ...`` beyond 26."""
    check_int("symbol_names", "n", n, minimum=0, maximum=MAX_VOCAB)
    return list(string.ascii_lowercase[:n]) if n <= 26 else [f"s{i}" for i in range(n)]


def log10_perm(n: int, k: int) -> float:
    """log10 of ``math.perm(n, k)`` (ordered choices of k of n), without forming the number."""
    check_int("log10_perm", "n", n, minimum=0)
    check_int("log10_perm", "k", k, minimum=0, maximum=n)
    return (math.lgamma(n + 1) - math.lgamma(n - k + 1)) / math.log(10)


def random_rows(n: int, population: int, k: int, generator: torch.Generator) -> torch.Tensor:
    """``n`` rows of ``k`` distinct values from ``range(population)``, uniformly."""
    check_int("random_rows", "n", n, minimum=0)
    check_int("random_rows", "population", population, minimum=1)
    check_int("random_rows", "k", k, minimum=0, maximum=population)
    if not isinstance(generator, torch.Generator):
        raise ArgumentTypeError(f"random_rows: generator must be a torch.Generator, got {type(generator).__name__}")
    validate.memory("random_rows", f"the random keys and their order (n x population = {n * population:.1e} numbers)",
                    12.0 * n * population)
    return torch.rand(n, population, generator=generator).argsort(dim=1)[:, :k]


def held_out(key: tuple, seed: int, fraction: float) -> bool:
    """A deterministic pseudo-random choice of held-out items (maps, pairings) by hash."""
    if isinstance(key, (str, bytes)) or not hasattr(key, "__iter__"):
        raise ArgumentTypeError(f"held_out: key must be a tuple, got {type(key).__name__}")
    validate.seed("held_out", "seed", seed)
    validate.real("held_out", "fraction", fraction, minimum=0.0, maximum=1.0)
    return _held_out(key, seed, fraction)


def _held_out(key: tuple, seed: int, fraction: float) -> bool:
    """:func:`held_out` without its checks, for the tasks' per-item loops (arguments checked once)."""
    return (zlib.crc32(repr((seed,) + tuple(key)).encode()) % 10_000) < fraction * 10_000


# ----------------------------------------------------------------------------- the task
class Task(ABC):
    """Base class of every task in the book.

    Subclasses set ``vocab``, ``seq_len`` and ``n_classes`` in ``__init__`` (after checking
    their arguments) and implement :meth:`_sample`. They may override :meth:`enumerate`
    (every sequence of a small instance) and :meth:`split` (where a split must test
    something specific, such as unseen symbols).
    """

    name: ClassVar[str] = "task"
    target: ClassVar[str] = "class"  # "class" | "tokens" | "regression"
    disjoint_splits: ClassVar[bool] = True  # False for memorization tasks: train = test
    vocab: Vocab
    seq_len: int
    n_classes: int

    # -- generation
    @abstractmethod
    def _sample(self, n: int, generator: torch.Generator) -> Batch:
        """Draw ``n`` examples using only ``generator`` for randomness (CPU tensors)."""

    def sample(self, n: int, seed: int | None = None, *, generator: torch.Generator | None = None) -> Batch:
        """Draw ``n`` examples, deterministically given ``seed`` (or a torch.Generator)."""
        owner = f"{type(self).__name__}.sample"
        check_int(owner, "n", n, minimum=1)
        validate.size(owner, "the sample (n x seq_len)", n * self.seq_len)
        if generator is not None and not isinstance(generator, torch.Generator):
            raise ArgumentTypeError(f"{owner}: generator must be a torch.Generator, got {type(generator).__name__}")
        if (seed is None) == (generator is None):
            raise ValueError(f"{owner}: give exactly one of seed= or generator=")
        if seed is not None:
            validate.seed(owner, "seed", seed)
        self.check_memory(owner, n)
        return self._sample(n, generator if generator is not None else make_generator(seed))

    def sample_memory(self, n: int) -> tuple[str, float]:
        """What drawing ``n`` examples allocates at its peak: a description (the tensor and its
        number of elements) and the bytes. Tasks whose drawing needs more than the sample itself
        (tables of random keys, Gram matrices) override it."""
        numbers = n * self.seq_len * getattr(self, "input_dim", 1)
        return f"the sample (n x seq_len = {numbers:.1e} numbers)", 16.0 * numbers

    def check_memory(self, owner: str, n: int) -> None:
        """Refuse, before anything is allocated, drawing ``n`` examples beyond the memory cap."""
        check_int(owner, "n", n, minimum=0)
        what, n_bytes = self.sample_memory(n)
        validate.memory(owner, what, n_bytes)

    def enumerate(self) -> Batch:
        """Every example of the task (small instances only)."""
        raise NotImplementedError(f"{type(self).__name__} does not enumerate its examples")

    def split(self, n_train: int, n_test: int, seed: int = 0) -> tuple[Batch, Batch]:
        """Disjoint train and test sets of distinct examples (no test input occurs in train)."""
        owner = f"{type(self).__name__}.split"
        check_int(owner, "n_train", n_train, minimum=1)
        check_int(owner, "n_test", n_test, minimum=1)
        check_int(owner, "seed", seed, minimum=0, maximum=validate.MAX_SEED - 1)
        validate.size(owner, "the split ((n_train + n_test) x seq_len)", (n_train + n_test) * self.seq_len)
        self.check_memory(owner, 2 * (n_train + n_test) + 64)
        pool = self._distinct(n_train + n_test, seed)
        order = torch.randperm(len(pool), generator=make_generator(seed + 1))
        pool = pool[order]
        return pool[:n_train], pool[n_train:]

    def _distinct(self, n: int, seed: int, max_rounds: int = 50) -> Batch:
        """``n`` examples with pairwise distinct inputs, drawn deterministically from ``seed``."""
        generator = make_generator(seed)
        seen: set[bytes] = set()
        xs, ys = [], []
        for _ in range(max_rounds):
            batch = self._sample(max(2 * (n - len(xs)), 64), generator)
            for x, y in zip(batch.x, batch.y):
                key = x.numpy().tobytes()
                if key not in seen:
                    seen.add(key)
                    xs.append(x)
                    ys.append(y)
                    if len(xs) == n:
                        return Batch(torch.stack(xs), torch.stack(ys))
        raise ValueError(f"{type(self).__name__}: could not find {n} distinct examples (found {len(xs)}); "
                         "ask for fewer or use a larger instance")

    # -- display
    def render(self, batch: Batch, limit: int = 8) -> list[str]:
        """Human-readable lines ``tokens -> target`` for the first ``limit`` examples."""
        validate.instance(f"{type(self).__name__}.render", "batch", batch, Batch)
        check_int(f"{type(self).__name__}.render", "limit", limit, minimum=0)
        lines = []
        for i in range(min(limit, len(batch))):
            tokens = " ".join(self.vocab.decode(batch.x[i]))
            lines.append(f"{tokens}  ->  {self.describe_target(batch.y[i])}")
        return lines

    def describe_target(self, y: torch.Tensor) -> str:
        return str(y.tolist())

    def __repr__(self) -> str:
        return f"{type(self).__name__}(seq_len={self.seq_len}, vocab={len(self.vocab)}, classes={self.n_classes})"


class HeldOutSplit:
    """Mixin for tasks whose split holds out part of the task itself (substitution maps,
    question-answer pairings), so that a test example cannot be answered from memory.

    The task implements ``variant(which)`` for ``which`` in ``"train"`` / ``"test"``: the same
    task restricted to the training part or to the held-out part.
    """

    def variant(self, which: str) -> Task:  # pragma: no cover
        raise NotImplementedError

    def split(self, n_train: int, n_test: int, seed: int = 0) -> tuple[Batch, Batch]:
        """Distinct training examples from the training part, test examples from the held-out part."""
        owner = f"{type(self).__name__}.split"
        check_int(owner, "n_train", n_train, minimum=1)
        check_int(owner, "n_test", n_test, minimum=1)
        check_int(owner, "seed", seed, minimum=0, maximum=validate.MAX_SEED - 1)
        validate.size(owner, "the split ((n_train + n_test) x seq_len)", (n_train + n_test) * self.seq_len)
        self.check_memory(owner, 2 * max(n_train, n_test) + 64)
        return self.variant("train")._distinct(n_train, seed), self.variant("test")._distinct(n_test, seed + 1)
