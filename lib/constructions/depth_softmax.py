"""Theorem 6 of Chen & Zou (2024) with softmax attention (Sec. 16; our construction).

The ReLU construction of :func:`lib.constructions.depth.in_context_template_matching`
subtracts the query's template from every block and lets the last column lose the answers of
blocks whose difference is non-zero. Softmax cannot subtract: every head outputs a convex
combination. This version keeps the depth (three layers) and compares templates by a
*score* instead, which softmax turns into a choice:

* **Layer 1 (parse, 1 head).** Every template position attends to the positions of its own
  block that hold the same word (score 1; other words in the block 0; other blocks -2) and
  writes their offsets: position (b, c) gets column c of ``M_b``, the block's equality matrix
  with columns normalised to sum 1 (``M_b[c', c] = [x_{b,c'} = x_{b,c}] / #{c'': x_{b,c''} =
  x_{b,c}}``), a function of the template alone.
* **Layer 2 (gather, l heads).** Head c sends column c of the block into the block's answer
  position (and of the query block into the last position): the answer of block b holds
  ``M_b``, the last position ``M_q``, in ``l x l`` extra rows.
* **Layer 3 (match, 1 head).** The last position scores each answer by
  ``<M_q, M_b> - tr(M_b) / 2 = (|M_q|^2 - |M_q - M_b|^2) / 2`` (``|M|^2 = tr M`` = the number
  of distinct words), largest exactly for the block with the query's template, and copies the
  answer tokens; the classifier reads them.

Width ``d' = d + n + l + l^2``. Every score is a function of equality patterns, so the
construction is exact once the inverse temperature ``beta`` makes layers 1-2 sharp enough
(the chapter scans beta; layer 3 itself is exact at any beta > 0).
"""
from __future__ import annotations

from ..models import AttentionModel
from ..tasks.depth import InContextTemplateMatching
from .depth import _Weights, paper_config


def in_context_template_matching_softmax(task: InContextTemplateMatching, beta: float = 1.0) -> AttentionModel:
    """Three softmax layers with 1, l and 1 heads (see the module docstring)."""
    d, n, l, k = len(task.vocab), task.seq_len, task.length, task.k
    w = _Weights(paper_config(task, 3, (1, l, 1), extra_rows=l + l * l, attention="softmax", beta=beta))
    span, offsets, code = l + 2, d + n, d + n + l
    start = [span * b for b in range(k + 1)]  # block b starts at span*b; block k is the query
    # layer 1: parse within blocks
    for t in range(task.n_words):
        w.qk[0][0, t, t] = 1.0
    for i in range(n):
        for j in range(n):
            if i // span != j // span:
                w.qk[0][0, d + i, d + j] = -2.0
        if i % span < l:
            w.v[0][0, d + i, offsets + i % span] = 1.0
    # layer 2: head c gathers column c into the answer (and the query block's into the last position)
    for c in range(l):
        for b in range(k):
            w.qk[1][c, d + start[b] + l + 1, d + start[b] + c] = 1.0
        w.qk[1][c, d + n - 1, d + start[k] + c] = 1.0
        for r in range(l):
            w.v[1][c, offsets + r, code + c * l + r] = float(l)  # x l undoes the mean over l heads
    # layer 3: score <M_q, M_b> - tr(M_b)/2 from the last position, copy the answer token
    for r in range(l * l):
        w.qk[2][0, code + r, code + r] = 1.0
    for c in range(l):
        w.qk[2][0, task.sign, code + c * l + c] = -0.5
    for a in range(task.n_answers):
        w.v[2][0, task.answer_offset + a, task.answer_offset + a] = 1.0
        w.u[task.answer_offset + a, a] = 1.0
    return w.model()
