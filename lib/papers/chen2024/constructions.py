"""Closed-form weights for Chen & Zou (2024): Theorems 1, 3, 5 and 6 (ReLU attention), built
from the operations of their Sec. 10 (:mod:`lib.constructions.blocks`: instructive "copy",
constrained "mask", "match", "parse"; "map" is an instructive layer with graded scores).
The softmax versions are in :mod:`lib.papers.chen2024.softmax`.

The model is Sec. 3.1's: attention-only, ReLU attention, heads averaged with 1/m, residual,
one-hot tokens and positions laid out as eq. (3) (:func:`paper_config`). Rows of the
residual stream: ``[0, d)`` token one-hots in vocabulary order (so a token id is its row),
``[d, d + n)`` position one-hots, then padding ("extra" rows).

Convention. The paper writes tokens as columns and scores ``S[j, k] = h_j^T W h_k`` for
source ``j`` and destination ``k``; the library is row-major with ``s_kj = h_k W h_j^T``.
So every matrix here is written as ``W[destination feature, source feature]`` for scores,
``W_V[source feature, destination feature]`` for values and ``W_U[feature, class]`` for the
classifier: the transposes of the paper's ``W_QK``, ``W_V`` and ``W_O``.
"""
from __future__ import annotations

import torch

from ... import validate
from ...constructions.blocks import instructive, match, parse_within_blocks
from ...constructions.weights import WeightBuilder, last_column, normalized_classifier
from ...models import AttentionConfig, AttentionModel
from ...tasks import InContextQA, InContextTemplateMatching, SequenceClassification, TemplateMatching

__all__ = ["paper_config", "memorization", "in_context_qa", "template_matching", "in_context_template_matching",
           "last_column", "normalized_classifier"]


def paper_config(task, n_layers: int, n_heads, extra_rows: int = 0, attention: str = "relu",
                 beta: float = 1.0) -> AttentionConfig:
    """Sec. 3.1's model for a task: d' = d + n + extra_rows, read-out from the last column.

    ``attention="softmax"`` gives Sec. 16's variant, with scores multiplied by ``beta``.
    """
    from ...tasks import Task
    validate.instance("paper_config", "task", task, Task)
    validate.integer("paper_config", "n_layers", n_layers, minimum=1, maximum=1000)
    validate.integer("paper_config", "extra_rows", extra_rows, minimum=0, maximum=validate.MAX_COUNT)
    validate.real("paper_config", "beta", beta, above=0.0)
    d, n = len(task.vocab), task.seq_len
    return AttentionConfig(d_model=d + n + extra_rows, n_out=task.n_classes, n_layers=n_layers, n_heads=n_heads,
                       attention=attention, qk="bilinear", attn_scale=beta, combine="mean", residual=True,
                       input="tokens", vocab_size=d, embedding="onehot", positions="onehot", max_len=n,
                       readout="last")


# ----------------------------------------------------------------------------- Theorem 1
def memorization(task: SequenceClassification) -> AttentionModel:
    """Theorem 1 / Lemma 4: one layer, n heads, d' = max(nd, d + n), memorizes any SC dataset.

    Head i < n-1 makes the last column attend to position i only (instructive attention,
    Lemma 1) and copies its token into block i of the last column; head n-1 attends from
    every column to itself and cancels the residual. The last column becomes
    ``[x_0; x_1; ...; x_{n-2}; 0]``: distinct sequences give distinct vectors of equal norm,
    which Lemma 3's classifier separates.
    """
    validate.instance("memorization", "task", task, SequenceClassification)
    d, n = len(task.vocab), task.seq_len
    width = max(n * d, d + n)
    w = WeightBuilder(paper_config(task, 1, n, extra_rows=width - d - n))
    for i in range(n - 1):
        instructive(w, 0, i, d, {(n - 1, i): 1.0})  # destination: last position; source: position i
        for t in range(d):
            w.v[0][i, t, i * d + t] = n  # copy the token into block i (x n against the 1/m average)
    instructive(w, 0, n - 1, d, {(j, j): 1.0 for j in range(n)})  # every column attends to itself ...
    w.v[0][n - 1] = -n * torch.eye(width, dtype=torch.float64)  # ... and subtracts itself
    model = w.model()
    data = task.enumerate()
    representations = last_column(model, data.x)
    order = torch.argsort(data.y)  # classifier column y = representation of the example labelled y
    return model.set_weights({"W_U": normalized_classifier(representations[order])})


# ----------------------------------------------------------------------------- Theorem 3
def in_context_qa(task: InContextQA) -> AttentionModel:
    """Theorem 3: two layers, one head, d' = d + n, solve every IC-QA example (copy -> match).

    Layer 1 (copy, Lemma 1): every column sums its question-sign-answer block
    (alpha = blockdiag(1 - I_3, ..., 1 - I_2) on positions). Layer 2 (match, an induction
    head): the last column scores 1 on every column whose question rows equal its own, i.e.
    the block holding the query question. The last column's answer rows become 3 a_c.
    """
    validate.instance("in_context_qa", "task", task, InContextQA)
    d, n, k = len(task.vocab), task.seq_len, task.k
    w = WeightBuilder(paper_config(task, 2, 1))
    block = [min(i // 3, k) for i in range(n)]  # the final question and sign form block k
    instructive(w, 0, 0, d, {(i, j): 1.0 for i in range(n) for j in range(n) if i != j and block[i] == block[j]})
    w.v[0][0] = torch.eye(w.config.d_model, dtype=torch.float64)
    match(w, 1, 0, range(task.n_questions))
    w.v[1][0] = torch.eye(w.config.d_model, dtype=torch.float64)
    for a in range(task.n_answers):
        w.u[task.answer_offset + a, a] = 1.0
    return w.model()


# ----------------------------------------------------------------------------- Theorem 5
def template_matching(task: TemplateMatching) -> AttentionModel:
    """Theorem 5: two layers, one head, d' = d + n, solve template matching (parse -> map).

    Layer 1 (parse): scores 1 between equal tokens (sign row included); the value negates
    token rows and copies positional rows, so column i's positional rows hold the template
    matrix column ``T[:, i] = e_i + [x_m = x_i]_m``. Layer 2 (map, instructive): the last
    column sums columns j < l with weights proportional to 3^(l-1-j), writing each row of T
    as a base-3 number. Distinct templates give distinct codes; Lemma 3's classifier on the
    positional rows separates them.
    """
    validate.instance("template_matching", "task", task, TemplateMatching)
    d, n, l = len(task.vocab), task.seq_len, task.length
    w = WeightBuilder(paper_config(task, 2, 1))
    D = w.config.d_model
    match(w, 0, 0, range(d))
    for t in range(d):
        w.v[0][0, t, t] = -1.0
    for j in range(n):
        w.v[0][0, d + j, d + j] = 1.0
    instructive(w, 1, 0, d, {(n - 1, j): 3.0 ** (l - 1 - j) for j in range(l)})
    w.v[1][0] = torch.eye(D, dtype=torch.float64)
    model = w.model()
    x = torch.tensor([list(t) + [task.sign] for t in task.templates])  # one sequence per template (word w for wildcard w)
    codes = last_column(model, x)
    return model.set_weights({"W_U": normalized_classifier(codes, rows=slice(d, d + n))})


# ----------------------------------------------------------------------------- Theorem 6
def in_context_template_matching(task: InContextTemplateMatching) -> AttentionModel:
    """Theorem 6 (corrected): three layers with 1, 1 and 2l heads, d' = d + n + l + 2.

    Layer 1 (parse within blocks): scores 1 between equal words of the same block (a -2
    positional penalty across blocks keeps ReLU at zero); the value writes the source's
    offset in its block into ``l + 2`` extra rows, so question column (b, c) holds its
    block's template column ``T_b[:, c]``.
    Layer 2 (copy, instructive): each answer is copied into its block's question columns,
    the query's column c is subtracted from column c of every block (the value negates
    positional and extra rows), and every answer is copied into the last column. Extra rows
    of context column (b, c) are now ``T_b[:, c] - T_q[:, c]``: zero iff the templates match.
    Layer 3 (match, 2l heads): head ±i scores ``±(extra row i of the source)`` from the last
    column and subtracts the source: every non-matching block loses some of its answer, the
    matching one keeps all of it.

    The paper's own layer-2/3 matrices make the last column subtract itself and fail
    (see the chapter); this version keeps its depth, head count and width.
    """
    validate.instance("in_context_template_matching", "task", task, InContextTemplateMatching)
    d, n, l, k = len(task.vocab), task.seq_len, task.length, task.k
    d1, sign = task.n_words, task.sign
    w = WeightBuilder(paper_config(task, 3, (1, 1, 2 * l), extra_rows=l + 2))
    D, E0, span = w.config.d_model, d + n, l + 2
    start = [span * b for b in range(k + 1)]  # block b starts at span*b; block k is the query
    # layer 1
    parse_within_blocks(w, 0, 0, d=d, n=n, n_words=d1, span=span, out_row=E0, offsets=span)
    # layer 2
    for b in range(k):
        answer = start[b] + l + 1
        for c in range(l):
            instructive(w, 1, 0, d, {(start[b] + c, answer): 1.0,  # (a) answer -> its questions
                                     (start[b] + c, start[k] + c): 1.0})  # (b) query column c -> column c
        instructive(w, 1, 0, d, {(n - 1, answer): 1.0})  # (c) every answer -> last column
    w.v[1][0] = torch.diag(torch.cat([torch.ones(d), -torch.ones(D - d)])).double()
    # layer 3
    for i in range(l):
        w.qk[2][i, sign, E0 + i] = 1.0
        w.qk[2][l + i, sign, E0 + i] = -1.0
    w.v[2][:] = -torch.eye(D, dtype=torch.float64)
    for a in range(task.n_answers):
        w.u[task.answer_offset + a, a] = 1.0
    return w.model()
