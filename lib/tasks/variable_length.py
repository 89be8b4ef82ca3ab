"""Index lookup at variable length, as Bhattamishra et al. (2024, App. H.1) train it.

:class:`VariableLengthIndexLookup` extends :class:`lib.tasks.retrieval.IndexLookup` (same
symbols, same position tokens ``@1 ... @N``, index tokens separate from symbols): an example is
``s_1 ... s_n`` with ``n ~ U{min_length .. N}``, then ``N - n`` pad tokens ``_``, then the index
token ``@p`` with ``p ~ U{1 .. n}``; the target is ``s_p``. Every example has ``N + 1`` tokens, the
symbols keep their absolute positions and the index token is always last, so one model reads
every length. The paper does not say how it pads (its GPT-2 backbone would mask padded keys);
here the pads are ordinary tokens that a model must learn to ignore, and Theorem 1's
construction ignores them exactly (a pad's value is zero and its key is one more position).
``min_length = N`` gives the paper's evaluation set, all of length exactly N.

(It lives in its own module so that the results computed with ``IndexLookup`` keep their
provenance.)
"""
from __future__ import annotations

import torch

from .base import Batch, Vocab, check_int
from .retrieval import IndexLookup

PAD = "_"


class VariableLengthIndexLookup(IndexLookup):
    name = "index_lookup_variable"

    def __init__(self, n_symbols: int = 64, length: int = 20, min_length: int = 10):
        super().__init__(n_symbols=n_symbols, length=length)
        self.min_length = check_int("VariableLengthIndexLookup", "min_length", min_length, minimum=1, maximum=length)
        self.vocab = Vocab(self.vocab.tokens + [PAD])
        self.pad = len(self.vocab) - 1

    def _sample(self, n: int, generator: torch.Generator) -> Batch:
        symbols = torch.randint(self.n_symbols, (n, self.length), generator=generator)
        lengths = torch.randint(self.min_length, self.length + 1, (n,), generator=generator)
        positions = (torch.rand(n, generator=generator) * lengths).long()  # 0-based, uniform below each length
        symbols = symbols.masked_fill(torch.arange(self.length)[None, :] >= lengths[:, None], self.pad)
        x = torch.cat([symbols, (self.n_symbols + positions)[:, None]], dim=1)
        return Batch(x, symbols[torch.arange(n), positions])

    def enumerate(self) -> Batch:
        if self.min_length < self.length:
            raise ValueError("VariableLengthIndexLookup: enumerate() covers min_length == length only; "
                             "use sample()")
        return super().enumerate()
