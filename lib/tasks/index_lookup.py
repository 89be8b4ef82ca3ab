"""Index lookup (Bhattamishra et al., 2024, Sec. 3): read the symbol at a queried position.

An example is ``s_1 ... s_N  p`` with symbols ``s_i`` from an alphabet of size ``n_symbols``
(repetitions allowed) and a final position token ``p`` in ``[1, N]``; the target is ``s_p``.
The vocabulary lists the symbols first (``a``, ``b``, ... or ``s0``, ``s1``, ...) and then
the position tokens ``@1 ... @N``, so class ids coincide with symbol token ids.
"""
from __future__ import annotations

import string

import torch

from .base import Batch, Task, Vocab, check_int


def symbol_names(n: int) -> list[str]:
    """``a, b, ...`` for small alphabets, ``s0, s1, ...`` beyond 26."""
    return list(string.ascii_lowercase[:n]) if n <= 26 else [f"s{i}" for i in range(n)]


class IndexLookup(Task):
    name = "index_lookup"
    target = "class"

    def __init__(self, n_symbols: int = 8, length: int = 8):
        check_int("IndexLookup", "n_symbols", n_symbols, minimum=2)
        check_int("IndexLookup", "length", length, minimum=1)
        self.n_symbols, self.length = n_symbols, length
        self.vocab = Vocab(symbol_names(n_symbols) + [f"@{p}" for p in range(1, length + 1)])
        self.seq_len = length + 1
        self.n_classes = n_symbols

    def position_token(self, p: int) -> int:
        """Token id of the query ``@p`` (1-based position p)."""
        return self.n_symbols + p - 1

    def _sample(self, n: int, generator: torch.Generator) -> Batch:
        symbols = torch.randint(self.n_symbols, (n, self.length), generator=generator)
        positions = torch.randint(self.length, (n,), generator=generator)  # 0-based
        x = torch.cat([symbols, (self.n_symbols + positions)[:, None]], dim=1)
        return Batch(x, symbols[torch.arange(n), positions])

    def enumerate(self) -> Batch:
        total = self.n_symbols**self.length * self.length
        if total > 2_000_000:
            raise ValueError(f"IndexLookup: {total} examples are too many to enumerate; use sample()")
        grids = torch.cartesian_prod(*[torch.arange(self.n_symbols)] * self.length).reshape(-1, self.length)
        symbols = grids.repeat_interleave(self.length, dim=0)
        positions = torch.arange(self.length).repeat(grids.shape[0])
        x = torch.cat([symbols, (self.n_symbols + positions)[:, None]], dim=1)
        return Batch(x, symbols[torch.arange(len(x)), positions])

    def describe_target(self, y: torch.Tensor) -> str:
        return self.vocab.tokens[int(y)]
