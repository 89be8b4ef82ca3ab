"""Theorem 6's construction as the paper prints it (Sec. 15), to show that it fails.

The corrected version the book uses is
:func:`lib.papers.chen2024.constructions.in_context_template_matching`; this module reads
the printed matrices as literally as they parse, in the same model and the same convention
(``W[destination feature, source feature]``):

* **Layer 1** (parse): ``W_QK = I_{d1}`` on the word rows plus ``W_pp`` (0 within a block,
  a penalty across blocks), and ``W_V`` writes each position's offset in its block into the
  ``l + 2`` extra rows. The printed ``W_QK`` also carries a rectangular identity below
  ``I_{d1}``, which would add scores between word rows and sign/answer/position rows; it is a
  typo (it breaks the parse) and is left out, so layer 1 is the corrected one.
* **Layer 2** (copy and pre-match, one instructive head, ``W_V = diag(I_d, -I)``): the
  transposed ``A_{(l+2)}`` blocks send each answer to every position of its block, the
  transposed ``A_{(l+1)}`` sends every position of the query block to the last position, and
  the ``B`` blocks send query position c to position c of every context block (c <= l).
  The printed matrix never sends the answers to the last position although the paper's
  illustration shows them there; ``answers_to_last=True`` (the default) adds that route so
  that the construction has a chance.
* **Layer 3** (2l heads, ``W_V = -I``): head i scores ``+h_dest[E_i] h_src[E_i]``, head l+i
  ``-h_dest[E_i] h_src[E_i]``, on the template rows ``E_i``.

Why it fails: the ``A_{(l+1)}`` route leaves minus the query's template (its class sizes) in
the last position's template rows, so in layer 3 the last position scores positively on
itself and subtracts its own sum of answers; context answers end with logits near or below
those of answers absent from the context.
"""
from __future__ import annotations

import torch

from ... import validate
from ...constructions.blocks import instructive, parse_within_blocks
from ...constructions.weights import WeightBuilder
from ...models import AttentionModel
from ...tasks import InContextTemplateMatching
from .constructions import paper_config


def in_context_template_matching_as_printed(task: InContextTemplateMatching,
                                            answers_to_last: bool = True) -> AttentionModel:
    """Sec. 15's three layers (1, 1 and 2l heads, d' = d + n + l + 2) as printed; see the module
    docstring for the one typo removed and the one route added."""
    validate.instance("in_context_template_matching_as_printed", "task", task, InContextTemplateMatching)
    validate.boolean("in_context_template_matching_as_printed", "answers_to_last", answers_to_last)
    d, n, l, k = len(task.vocab), task.seq_len, task.length, task.k
    w = WeightBuilder(paper_config(task, 3, (1, 1, 2 * l), extra_rows=l + 2))
    D, E0, span = w.config.d_model, d + n, l + 2
    start = [span * b for b in range(k + 1)]  # block b starts at span*b; block k is the query
    parse_within_blocks(w, 0, 0, d=d, n=n, n_words=task.n_words, span=span, out_row=E0, offsets=span)
    pattern = {}
    for b in range(k):
        answer = start[b] + l + 1
        for c in range(l + 2):
            pattern[(start[b] + c, answer)] = 1.0  # A_(l+2)^T: answer -> every position of its block
        for c in range(l + 1):
            pattern[(start[b] + c, start[k] + c)] = 1.0  # B^T: query position c -> block position c
        if answers_to_last:
            pattern[(n - 1, answer)] = 1.0  # the illustration's route, not in the printed matrix
    for c in range(l + 1):
        pattern[(n - 1, start[k] + c)] = 1.0  # A_(l+1)^T: every query position -> the last one
    instructive(w, 1, 0, d, pattern)
    w.v[1][0] = torch.diag(torch.cat([torch.ones(d), -torch.ones(D - d)])).double()
    for i in range(l):
        w.qk[2][i, E0 + i, E0 + i] = 1.0
        w.qk[2][l + i, E0 + i, E0 + i] = -1.0
    w.v[2][:] = -torch.eye(D, dtype=torch.float64)
    for a in range(task.n_answers):
        w.u[task.answer_offset + a, a] = 1.0
    return w.model()
