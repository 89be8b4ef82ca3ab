"""Boolean functions of two halves and string equality (Bhattamishra et al., 2024, Sec. 4.2, 5.1,
App. F and H.2).

* :class:`PairFunction`: ``x in {0,1}^N`` read as halves ``a = x[:N/2]``, ``b = x[N/2:]``;
  ``"eq"`` is 1[a = b], ``"ineq"`` its complement, ``"disj"`` the paper's DISJ(a, b) = 1[a.b > 0]
  (1 when the sets *intersect*, the paper's convention). Samples mix, in thirds, equal halves,
  halves that differ in exactly one bit and independent halves (a random pair is almost never
  equal, so a uniform sample would not test equality); ``density`` is the chance of a 1 bit.
* :class:`StringEquality`: the App. H.2 experiments: ``w [sep] w'`` over ``n_symbols`` symbols,
  half-length ``k/2`` with ``k ~ U{min_length, min_length + 2, ..., length}`` (``k`` counts the
  symbols, not ``[sep]``), left-padded with ``_`` to a common width.
  ``variant="random"`` (Eq-random): a positive with probability 1/2, else an independent second
  half (labelled by comparison); ``"one"`` (Eq-one): negatives differ in exactly one position;
  ``"ncp"`` (Eq-ncp): next-character prediction, a positive whose every symbol after ``[sep]``
  is a target (the single valid next symbol); before ``[sep]`` every symbol is valid, which is
  not scored (:data:`IGNORE`), so a string is correct when its whole second half is.
"""
from __future__ import annotations

import torch

from .base import IGNORE, MAX_VOCAB, ArgumentTypeError, Batch, Task, Vocab, check_choice, check_int, symbol_names
from .. import validate

FUNCTIONS = ("eq", "ineq", "disj")


def pair_function(function: str, a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    """EQ, INEQ or DISJ of bit rows ``a``, ``b`` (``(B, N/2)``), as 0/1 longs."""
    check_choice("pair_function", "function", function, FUNCTIONS)
    for name, value in (("a", a), ("b", b)):
        if not isinstance(value, torch.Tensor) or value.is_floating_point() or value.is_complex():
            validate.fail("pair_function", name, "an integer or bool torch.Tensor of bits",
                          value.dtype if isinstance(value, torch.Tensor) else type(value).__name__, ArgumentTypeError)
        if value.dim() < 1:
            validate.fail("pair_function", name, "a tensor with a last axis of bits", "a scalar")
        if value.numel() and not ((value == 0) | (value == 1)).all():
            validate.fail("pair_function", name, "bits 0 and 1", f"a tensor with values {value.unique()[:5].tolist()}")
    if a.shape != b.shape:
        validate.fail("pair_function", "b", f"the shape of a {tuple(a.shape)}", f"shape {tuple(b.shape)}")
    if function == "disj":
        return (a * b).sum(-1).gt(0).long()
    equal = (a == b).all(-1).long()
    return equal if function == "eq" else 1 - equal


class PairFunction(Task):
    name = "pair_function"

    def __init__(self, half_length: int = 8, function: str = "ineq", density: float = 0.5):
        owner = "PairFunction"
        check_int(owner, "half_length", half_length, minimum=1, maximum=MAX_VOCAB // 2)
        check_choice(owner, "function", function, FUNCTIONS)
        validate.real(owner, "density", density, above=0.0, below=1.0)
        self.half_length, self.function, self.density = half_length, function, float(density)
        self.vocab = Vocab(["0", "1"])
        self.seq_len = 2 * half_length
        self.n_classes = 2

    def label(self, x: torch.Tensor) -> torch.Tensor:
        """The function's value on each row of bits ``x`` ``(B, 2 half_length)``."""
        if not isinstance(x, torch.Tensor) or x.dim() != 2 or x.shape[1] != self.seq_len:
            validate.fail("PairFunction.label", "x", f"a tensor of shape (B, {self.seq_len})",
                          f"shape {tuple(x.shape)}" if isinstance(x, torch.Tensor) else type(x).__name__,
                          ArgumentTypeError)
        h = self.half_length
        return pair_function(self.function, x[:, :h], x[:, h:])

    def _sample(self, n: int, generator: torch.Generator) -> Batch:
        h = self.half_length
        a = (torch.rand(n, h, generator=generator) < self.density).long()
        b = (torch.rand(n, h, generator=generator) < self.density).long()
        mode = torch.arange(n) % 3
        b = torch.where((mode == 0)[:, None], a, b)
        flipped = a.clone()
        flipped[torch.arange(n), torch.randint(h, (n,), generator=generator)] ^= 1
        b = torch.where((mode == 1)[:, None], flipped, b)
        x = torch.cat([a, b], dim=1)
        return Batch(x, self.label(x))

    def enumerate(self) -> Batch:
        if self.seq_len > 20:
            raise ValueError(f"PairFunction: 2^{self.seq_len} strings are too many to enumerate; use sample()")
        x = ((torch.arange(2**self.seq_len)[:, None] >> torch.arange(self.seq_len - 1, -1, -1)) & 1).long()
        return Batch(x, self.label(x))


class StringEquality(Task):
    name = "string_equality"

    def __init__(self, n_symbols: int = 2, length: int = 20, variant: str = "random", min_length: int | None = None):
        owner = "StringEquality"
        check_int(owner, "n_symbols", n_symbols, minimum=1, maximum=MAX_VOCAB)
        check_int(owner, "length", length, minimum=2, maximum=MAX_VOCAB)
        check_choice(owner, "variant", variant, ("random", "one", "ncp"))
        if length % 2:
            raise ValueError(f"{owner}: length must be even (two halves), got {length}")
        if min_length is None:
            min_length = max(2, (length // 10) // 2 * 2)
        check_int(owner, "min_length", min_length, minimum=2, maximum=length)
        if min_length % 2:
            raise ValueError(f"{owner}: min_length must be even, got {min_length}")
        self.n_symbols, self.length, self.variant, self.min_length = n_symbols, length, variant, min_length
        self.vocab = Vocab(symbol_names(n_symbols) + ["[sep]", "_"])
        self.sep, self.pad = n_symbols, n_symbols + 1
        self.seq_len = length + 1
        self.n_classes = n_symbols if variant == "ncp" else 2
        self.target = "tokens" if variant == "ncp" else "class"

    def _sample(self, n: int, generator: torch.Generator) -> Batch:
        L, h = self.length, self.length // 2
        halves = torch.randint(self.min_length // 2, h + 1, (n,), generator=generator)
        first = torch.randint(self.n_symbols, (n, h), generator=generator)
        other = torch.randint(self.n_symbols, (n, h), generator=generator)
        positive = (torch.rand(n, generator=generator) < 0.5) | (self.variant == "ncp")
        second = first.clone()
        if self.variant == "random":
            second = torch.where(positive[:, None], first, other)
        elif self.variant == "one":
            where = (torch.rand(n, generator=generator) * halves).long()
            shift = 1 + torch.randint(max(1, self.n_symbols - 1), (n,), generator=generator)
            changed = first.clone()
            changed[torch.arange(n), where] = (first[torch.arange(n), where] + shift) % self.n_symbols
            second = torch.where(positive[:, None], first, changed)
        x = torch.full((n, L + 1), self.pad, dtype=torch.long)
        y = torch.full((n, L + 1), IGNORE, dtype=torch.long)
        cols = torch.arange(h)
        for i in range(n):
            k = int(halves[i])
            start = L - 2 * k  # left padding
            x[i, start:start + k] = first[i, :k]
            x[i, start + k] = self.sep
            x[i, start + k + 1:] = second[i, :k]
            if self.variant == "ncp":  # the prediction at position t is the symbol at t + 1
                y[i, start + k:L] = second[i, :k]
        if self.variant == "ncp":
            return Batch(x, y)
        valid = cols[None, :] < halves[:, None]
        equal = ((first == second) | ~valid).all(-1).long()
        return Batch(x, equal)

    def describe_target(self, y: torch.Tensor) -> str:
        if self.variant == "ncp":
            return " ".join(self.vocab.tokens[int(t)] for t in y if int(t) != IGNORE)
        return "equal" if int(y) else "different"
