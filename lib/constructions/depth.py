"""Closed-form weights for Chen & Zou (2024): Theorems 1, 3, 5 and 6, built from the
operations of their Sec. 10 (instructive "copy", constrained "mask", "match", "parse", "map").

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

import math

import torch

from ..models import AttentionModel, ModelConfig, build_model
from ..tasks.depth import InContextQA, InContextTemplateMatching, SequenceClassification, TemplateMatching


def paper_config(task, n_layers: int, n_heads, extra_rows: int = 0, attention: str = "relu",
                 beta: float = 1.0) -> ModelConfig:
    """Sec. 3.1's model for a task: d' = d + n + extra_rows, read-out from the last column.

    ``attention="softmax"`` gives Sec. 16's variant, with scores multiplied by ``beta``.
    """
    d, n = len(task.vocab), task.seq_len
    return ModelConfig(d_model=d + n + extra_rows, n_out=task.n_classes, n_layers=n_layers, n_heads=n_heads,
                       attention=attention, qk="bilinear", attn_scale=beta, combine="mean", residual=True,
                       input="tokens", vocab_size=d, embedding="onehot", positions="onehot", max_len=n,
                       readout="last")


class _Weights:
    """Zero weights for a config, filled entry by entry, then loaded into a model."""

    def __init__(self, config: ModelConfig):
        self.config = config
        D = config.d_model
        self.qk = [torch.zeros(h, D, D, dtype=torch.float64) for h in config.heads]
        self.v = [torch.zeros(h, D, D, dtype=torch.float64) for h in config.heads]
        self.u = torch.zeros(D, config.n_out, dtype=torch.float64)

    def model(self, dtype=torch.float64) -> AttentionModel:
        weights = {"W_U": self.u}
        for layer, (qk, v) in enumerate(zip(self.qk, self.v)):
            weights[f"layers.{layer}.attn.W_QK"] = qk
            weights[f"layers.{layer}.attn.W_V"] = v
        return build_model(self.config, dtype=dtype).set_weights(weights)


def last_column(model: AttentionModel, x: torch.Tensor) -> torch.Tensor:
    """The last column of the final residual stream, ``h^(L)_{n-1}``, for each sequence."""
    cache: dict = {}
    model(x, cache=cache)
    return cache[f"layers.{model.config.n_layers - 1}.resid_post"][:, -1]


def normalized_classifier(representations: torch.Tensor, rows: slice | None = None) -> torch.Tensor:
    """Lemma 3 (in its simplest form): classifier column y = v_y / |v_y|.

    For pairwise non-parallel vectors ``v_y`` the arg-max of ``v W_U`` at ``v = v_y`` is ``y``
    (Cauchy-Schwarz). ``rows`` restricts the classifier to some features.
    """
    v = representations.double().clone()
    if rows is not None:
        mask = torch.zeros(v.shape[1], dtype=torch.bool)
        mask[rows] = True
        v[:, ~mask] = 0.0
    return (v / v.norm(dim=1, keepdim=True)).T


# ----------------------------------------------------------------------------- Theorem 1
def memorization(task: SequenceClassification) -> AttentionModel:
    """Theorem 1 / Lemma 4: one layer, n heads, d' = max(nd, d + n), memorizes any SC dataset.

    Head i < n-1 makes the last column attend to position i only (instructive attention,
    Lemma 1) and copies its token into block i of the last column; head n-1 attends from
    every column to itself and cancels the residual. The last column becomes
    ``[x_0; x_1; ...; x_{n-2}; 0]``: distinct sequences give distinct vectors of equal norm,
    which Lemma 3's classifier separates.
    """
    d, n = len(task.vocab), task.seq_len
    width = max(n * d, d + n)
    w = _Weights(paper_config(task, 1, n, extra_rows=width - d - n))
    for i in range(n - 1):
        w.qk[0][i, d + n - 1, d + i] = 1.0  # destination: last position; source: position i
        for t in range(d):
            w.v[0][i, t, i * d + t] = n  # copy the token into block i (x n against the 1/m average)
    for j in range(n):
        w.qk[0][n - 1, d + j, d + j] = 1.0  # every column attends to itself ...
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
    d, n, k = len(task.vocab), task.seq_len, task.k
    w = _Weights(paper_config(task, 2, 1))
    block = [min(i // 3, k) for i in range(n)]  # the final question and sign form block k
    for i in range(n):
        for j in range(n):
            if i != j and block[i] == block[j]:
                w.qk[0][0, d + i, d + j] = 1.0
    w.v[0][0] = torch.eye(w.config.d_model, dtype=torch.float64)
    for q in range(task.n_questions):
        w.qk[1][0, q, q] = 1.0
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
    d, n, l = len(task.vocab), task.seq_len, task.length
    w = _Weights(paper_config(task, 2, 1))
    D = w.config.d_model
    for t in range(d):
        w.qk[0][0, t, t] = 1.0
        w.v[0][0, t, t] = -1.0
    for j in range(n):
        w.v[0][0, d + j, d + j] = 1.0
    for j in range(l):
        w.qk[1][0, d + n - 1, d + j] = 3.0 ** (l - 1 - j)
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
    d, n, l, k = len(task.vocab), task.seq_len, task.length, task.k
    d1, sign = task.n_words, task.sign
    w = _Weights(paper_config(task, 3, (1, 1, 2 * l), extra_rows=l + 2))
    D, E0, span = w.config.d_model, d + n, l + 2
    start = [span * b for b in range(k + 1)]  # block b starts at span*b; block k is the query
    # layer 1
    for t in range(d1):
        w.qk[0][0, t, t] = 1.0
    for i in range(n):
        for j in range(n):
            if i // span != j // span:
                w.qk[0][0, d + i, d + j] = -2.0
        w.v[0][0, d + i, E0 + i % span] = 1.0
    # layer 2
    for b in range(k):
        answer = start[b] + l + 1
        for c in range(l):
            w.qk[1][0, d + start[b] + c, d + answer] = 1.0  # (a) answer -> its questions
            w.qk[1][0, d + start[b] + c, d + start[k] + c] = 1.0  # (b) query column c -> column c
        w.qk[1][0, d + n - 1, d + answer] = 1.0  # (c) every answer -> last column
    w.v[1][0] = torch.diag(torch.cat([torch.ones(d), -torch.ones(D - d)])).double()
    # layer 3
    for i in range(l):
        w.qk[2][i, sign, E0 + i] = 1.0
        w.qk[2][l + i, sign, E0 + i] = -1.0
    w.v[2][:] = -torch.eye(D, dtype=torch.float64)
    for a in range(task.n_answers):
        w.u[task.answer_offset + a, a] = 1.0
    return w.model()


def with_attention(model: AttentionModel, attention: str, beta: float = 1.0) -> AttentionModel:
    """The same weights in a model whose attention is ``attention`` with score scale ``beta``
    (Sec. 16: replace ReLU by softmax at inverse temperature beta)."""
    config = model.config.replace(attention=attention, attn_scale=beta)
    return build_model(config, dtype=next(model.parameters()).dtype).set_weights(dict(model.named_parameters()))


def template_matching_softmax(task: TemplateMatching, beta: float = 1.0) -> AttentionModel:
    """Theorem 5 with softmax attention at inverse temperature ``beta`` (our extension).

    Layer 1 keeps the parse weights: scores depend only on which tokens are equal, so the
    averaged positional rows ``e_i + [x_m = x_i] / c_i`` still depend on the template alone.
    The map layer cannot keep ReLU's weights (softmax would put all weight on the largest
    score), so its scores are set to ``(l-1-j) log(3) / 4`` in effect, which gives the columns
    distinct positive weights; Lemma 3's classifier is built from the resulting codes.
    Exact as long as the codes of distinct templates differ, which the tests check on every
    sequence.
    """
    model = with_attention(template_matching(task), "softmax", beta)
    d, n, l = len(task.vocab), task.seq_len, task.length
    W2 = model.get_weight("layers.1.attn.W_QK")
    for j in range(l):
        # effective score beta * h_last[n-1] * W * h_j[j] with h_last[n-1] = 2, h_j[j] in (1, 2]
        W2[0, d + n - 1, d + j] = math.log(3) * (l - 1 - j) / (4 * beta)
    model.set_weights({"layers.1.attn.W_QK": W2})
    x = torch.tensor([list(t) + [task.sign] for t in task.templates])
    return model.set_weights({"W_U": normalized_classifier(last_column(model, x), rows=slice(d, d + n))})
