"""The one-layer operations that constructions are made of (Chen & Zou 2024, Sec. 10), written
into a :class:`~lib.constructions.weights.WeightBuilder` for the one-hot layout of their eq. (3):
rows ``[0, d)`` token one-hots, ``[d, d + n)`` position one-hots, then extra rows.

* :func:`instructive` (copy, Lemma 1): scores on the positional block only, so the attention
  pattern is a chosen non-negative matrix whatever the tokens; a large negative entry is the
  constrained ("mask") attention of Lemma 2.
* :func:`match` (an induction head): scores 1 between equal tokens on some token rows.
* :func:`parse_within_blocks` (parse): tokens attend to the equal tokens of their own block and
  write their offset in the block, so each position learns which positions repeat its token.
"""
from __future__ import annotations

from typing import Iterable, Mapping

from .weights import WeightBuilder


def instructive(w: WeightBuilder, layer: int, head: int, d: int, pattern: Mapping[tuple[int, int], float]) -> None:
    """Positional scores ``pattern[(destination, source)]`` (Lemma 1) for tokens of ``d`` rows."""
    for (destination, source), value in pattern.items():
        w.qk[layer][head, d + destination, d + source] = value


def match(w: WeightBuilder, layer: int, head: int, rows: Iterable[int], value: float = 1.0) -> None:
    """Score ``value`` between columns that share a one-hot on ``rows`` (token ids)."""
    for t in rows:
        w.qk[layer][head, t, t] = value


def parse_within_blocks(w: WeightBuilder, layer: int, head: int, *, d: int, n: int, n_words: int, span: int,
                        out_row: int, offsets: int, penalty: float = -2.0) -> None:
    """Parse every block of ``span`` positions on its own: equal words of the same block score 1
    (:func:`match` on the ``n_words`` word rows), positions of different blocks score ``penalty``
    (constrained attention), and the value writes the source's offset in its block, one-hot, into
    rows ``out_row + offset`` for the first ``offsets`` offsets."""
    match(w, layer, head, range(n_words))
    for i in range(n):
        for j in range(n):
            if i // span != j // span:
                w.qk[layer][head, d + i, d + j] = penalty
        if i % span < offsets:
            w.v[layer][head, d + i, out_row + i % span] = 1.0
