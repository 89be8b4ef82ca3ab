"""Retrieval tasks: read a symbol from the context by position or by key.

* :class:`IndexLookup` (Bhattamishra et al., 2024, Sec. 3): read the symbol at a queried position.
* :class:`InContextQA` (Chen & Zou, 2024, Sec. 4.2; associative recall): read the answer paired
  with the queried question in the context.

Index lookup: an example is ``s_1 ... s_N  p`` with symbols ``s_i`` from an alphabet of size ``n_symbols``
(repetitions allowed) and a final position token ``p`` in ``[1, N]``; the target is ``s_p``.
The vocabulary lists the symbols first (``a``, ``b``, ... or ``s0``, ``s1``, ...) and then
the position tokens ``@1 ... @N``, so class ids coincide with symbol token ids.
"""
from __future__ import annotations

import itertools
import math

import torch

from .. import validate
from .base import (MAX_VOCAB, SIGN, ArgumentTypeError, Batch, HeldOutSplit, Task, Vocab, check_choice, check_int,
                   _held_out, log10_perm, random_rows, symbol_names)

#: the most (question, answer) pairings InContextQA hashes into its held-out table (one Python call each)
MAX_PAIRINGS = 10**7


class IndexLookup(Task):
    name = "index_lookup"
    target = "class"

    def __init__(self, n_symbols: int = 8, length: int = 8):
        check_int("IndexLookup", "n_symbols", n_symbols, minimum=2, maximum=MAX_VOCAB)
        check_int("IndexLookup", "length", length, minimum=1, maximum=MAX_VOCAB)
        self.n_symbols, self.length = n_symbols, length
        self.vocab = Vocab(symbol_names(n_symbols) + [f"@{p}" for p in range(1, length + 1)])
        self.seq_len = length + 1
        self.n_classes = n_symbols

    def position_token(self, p: int) -> int:
        """Token id of the query ``@p`` (1-based position p)."""
        check_int(f"{type(self).__name__}.position_token", "p", p, minimum=1, maximum=self.length)
        return self.n_symbols + p - 1

    def _sample(self, n: int, generator: torch.Generator) -> Batch:
        symbols = torch.randint(self.n_symbols, (n, self.length), generator=generator)
        positions = torch.randint(self.length, (n,), generator=generator)  # 0-based
        x = torch.cat([symbols, (self.n_symbols + positions)[:, None]], dim=1)
        return Batch(x, symbols[torch.arange(n), positions])

    def enumerate(self) -> Batch:
        if self.length * math.log10(self.n_symbols) > 7:  # no huge powers: 10^7 > 2,000,000 anyway
            raise ValueError(f"IndexLookup: about 10^{self.length * math.log10(self.n_symbols):.0f} examples are too "
                             "many to enumerate; use sample()")
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


# ----------------------------------------------------------------------------- IC-QA
class InContextQA(HeldOutSplit, Task):
    """Reasoning (Sec. 4.2): ``q_0 → a_0 ... q_{k-1} → a_{k-1} q_c →``, target ``a_c``.

    ``k`` distinct questions and ``k`` distinct answers per example, ``c`` uniform; n = 3k + 2.
    ``pairs`` restricts which (question, answer) pairings occur: ``"train"`` excludes a
    held-out fraction of pairings from every block, ``"test"`` makes the queried block's
    pairing a held-out one (the other blocks are unrestricted).
    """

    name = "in_context_qa"

    def __init__(self, n_questions: int = 20, n_answers: int = 20, k: int = 3, pairs: str = "all",
                 holdout: float = 0.25, split_seed: int = 0):
        owner = "InContextQA"
        check_int(owner, "n_questions", n_questions, minimum=1, maximum=MAX_VOCAB)
        check_int(owner, "n_answers", n_answers, minimum=1, maximum=MAX_VOCAB)
        check_int(owner, "k", k, minimum=1, maximum=min(n_questions, n_answers))
        check_choice(owner, "pairs", pairs, ("all", "train", "test"))
        validate.real(owner, "holdout", holdout, above=0.0, below=1.0)
        validate.seed(owner, "split_seed", split_seed)
        if n_questions * n_answers > MAX_PAIRINGS:
            raise ValueError(f"{owner}: n_questions x n_answers = {n_questions * n_answers:,} pairings, more than the "
                             f"{MAX_PAIRINGS:,} whose held-out table this task builds (one hash each); use fewer "
                             "questions or answers")
        self.n_questions, self.n_answers, self.k, self.pairs = n_questions, n_answers, k, pairs
        self.holdout, self.split_seed = holdout, split_seed
        self.vocab = Vocab([f"q{i}" if n_questions > 26 else symbol_names(n_questions)[i] for i in range(n_questions)]
                           + [SIGN] + [str(i + 1) for i in range(n_answers)])
        self.sign = n_questions
        self.answer_offset = n_questions + 1
        self.seq_len = 3 * k + 2
        self.n_classes = n_answers
        self._held = torch.tensor([[_held_out((q, a), split_seed, holdout) for a in range(n_answers)]
                                   for q in range(n_questions)])
        if pairs != "all" and (self._held.all() or not self._held.any()):
            raise ValueError(f"{owner}: holdout={holdout} leaves no pairing on one side of the split")

    def variant(self, pairs: str) -> "InContextQA":
        """The same task restricted to training pairings (``"train"``) or querying a held-out one
        (``"test"``); :meth:`split` draws from these."""
        return InContextQA(self.n_questions, self.n_answers, self.k, pairs, self.holdout, self.split_seed)

    def encode(self, questions: torch.Tensor, answers: torch.Tensor, c: torch.Tensor) -> Batch:
        """Sequences from question ids ``(B, k)``, answer ids ``(B, k)`` and query block ``(B,)``."""
        owner = "InContextQA.encode"
        for name, value, ndim, top in (("questions", questions, 2, self.n_questions),
                                       ("answers", answers, 2, self.n_answers), ("c", c, 1, self.k)):
            if not isinstance(value, torch.Tensor) or value.is_floating_point() or value.dtype == torch.bool:
                validate.fail(owner, name, "an integer torch.Tensor", type(value).__name__ if not isinstance(
                    value, torch.Tensor) else value.dtype, ArgumentTypeError)
            if value.dim() != ndim:
                validate.fail(owner, name, f"a tensor with {ndim} axes", f"shape {tuple(value.shape)}")
            if value.numel() and (value.min() < 0 or value.max() >= top):
                validate.fail(owner, name, f"ids in [0, {top - 1}]", f"ids in [{int(value.min())}, {int(value.max())}]")
        if questions.shape != (len(c), self.k) or answers.shape != (len(c), self.k):
            validate.fail(owner, "questions, answers, c", f"shapes (B, {self.k}), (B, {self.k}), (B,)",
                          f"{tuple(questions.shape)}, {tuple(answers.shape)}, {tuple(c.shape)}")
        n, k = questions.shape
        sign = torch.full((n, k), self.sign)
        blocks = torch.stack([questions, sign, answers + self.answer_offset], dim=2).reshape(n, 3 * k)
        query = questions[torch.arange(n), c]
        x = torch.cat([blocks, query[:, None], torch.full((n, 1), self.sign)], dim=1)
        return Batch(x, answers[torch.arange(n), c])

    def sample_memory(self, n: int) -> tuple[str, float]:
        """Distinct questions and answers are drawn as the first k of a random order of each."""
        numbers = n * (self.n_questions + self.n_answers + self.seq_len)
        return (f"the random orders of the questions and answers (n x (n_questions + n_answers) = {numbers:.1e} "
                "numbers)", 12.0 * numbers + 16.0 * n * self.seq_len)

    def _draw(self, n, generator):
        q = random_rows(n, self.n_questions, self.k, generator)
        a = random_rows(n, self.n_answers, self.k, generator)
        c = torch.randint(self.k, (n,), generator=generator)
        return q, a, c

    def _ok(self, q, a, c):
        held = self._held[q, a]  # (n, k)
        if self.pairs == "train":
            return ~held.any(1)
        return held[torch.arange(len(c)), c]

    def _sample(self, n, generator):
        q, a, c = self._draw(n, generator)
        if self.pairs != "all":
            for _ in range(1000):
                bad = ~self._ok(q, a, c)
                if not bad.any():
                    break
                q2, a2, c2 = self._draw(int(bad.sum()), generator)
                q[bad], a[bad], c[bad] = q2, a2, c2
            else:
                raise ValueError("InContextQA: could not satisfy the pairing split; lower holdout or k")
        return self.encode(q, a, c)

    def enumerate(self) -> Batch:
        log_count = log10_perm(self.n_questions, self.k) + log10_perm(self.n_answers, self.k) + math.log10(self.k)
        if log_count > 7:  # 10^7 > 2,000,000: no huge products
            raise ValueError(f"InContextQA: about 10^{log_count:.0f} examples are too many to enumerate; use sample()")
        count = math.perm(self.n_questions, self.k) * math.perm(self.n_answers, self.k) * self.k
        if count > 2_000_000:
            raise ValueError(f"InContextQA: {count} examples are too many to enumerate; use sample()")
        qs = torch.tensor(list(itertools.permutations(range(self.n_questions), self.k)))
        as_ = torch.tensor(list(itertools.permutations(range(self.n_answers), self.k)))
        grid = torch.cartesian_prod(torch.arange(len(qs)), torch.arange(len(as_)), torch.arange(self.k))
        q, a, c = qs[grid[:, 0]], as_[grid[:, 1]], grid[:, 2]
        if self.pairs != "all":
            keep = self._ok(q, a, c)
            q, a, c = q[keep], a[keep], c[keep]
        return self.encode(q, a, c)

    def describe_target(self, y):
        return self.vocab.tokens[self.answer_offset + int(y)]
