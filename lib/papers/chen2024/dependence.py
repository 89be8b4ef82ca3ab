"""Linear dependence of one-layer outputs (Chen & Zou 2024, Sec. 11, 13.1, 14.1 and 16).

In a one-layer attention-only model the last column's output is ``h_{n-1}`` plus a sum of
terms that each depend on one (token, position) pair and on ``h_{n-1}``. If a set of
sequences ending with the same token is *dependent* (Def. 3: integer weights ``lambda``
with the same multiset of tokens at every position on both sides), then

    sum_i lambda_i o(X_i) = 0                 (Prop. 7-8, ReLU, any number of heads)
    sum_i lambda_i Z_i o(X_i) = 0             (Prop. 9-10, softmax with one head,
                                               Z_i the softmax normaliser of X_i's last column)

for the logits ``o`` of *any* weights. Theorems 2 and 4 follow: the identity forbids the
sign pattern that classifying all the dependent sequences correctly would need. The dependent
sets of the proofs are in :mod:`lib.papers.chen2024.examples`.
"""
from __future__ import annotations

from collections import Counter

import torch

from ... import validate
from ...models import Model
from ...tasks import Batch


def _lambdas(owner: str, lambdas, n: int) -> list[int]:
    values = validate.integers(owner, "lambdas", list(lambdas) if isinstance(lambdas, torch.Tensor) else lambdas)
    if len(values) != n:
        validate.fail(owner, "lambdas", f"one integer weight per sequence ({n})", lambdas)
    return values


def is_dependent(x: torch.Tensor, lambdas) -> bool:
    """Def. 3: same last token everywhere, and equal token multisets at every position."""
    validate.instance("is_dependent", "x", x, torch.Tensor)
    if x.dim() != 2:
        validate.fail("is_dependent", "x", "token ids of shape (sequences, length)", f"shape {tuple(x.shape)}")
    lambdas = _lambdas("is_dependent", lambdas, x.shape[0])
    if len(set(x[:, -1].tolist())) != 1 or not any(lambdas):
        return False
    for position in range(x.shape[1]):
        plus, minus = Counter(), Counter()
        for row, lam in zip(x[:, position].tolist(), lambdas):
            (plus if lam > 0 else minus)[row] += abs(lam)
        if plus != minus:
            return False
    return True


@torch.no_grad()
def dependence_residual(model, batch: Batch, lambdas, weights: torch.Tensor | None = None) -> float:
    """``max |sum_i lambda_i w_i o(X_i)|`` relative to ``max |o|`` (w = 1 unless given)."""
    validate.instance("dependence_residual", "model", model, Model)
    validate.instance("dependence_residual", "batch", batch, Batch)
    lambdas = _lambdas("dependence_residual", lambdas, len(batch))
    logits = model(batch.x).double()
    lam = torch.tensor(lambdas, dtype=torch.float64)
    if weights is not None:
        validate.instance("dependence_residual", "weights", weights, torch.Tensor)
        validate.array("dependence_residual", "weights", weights, ndim=1)
        if len(weights) != len(batch):
            validate.fail("dependence_residual", "weights", f"one weight per sequence ({len(batch)})",
                          f"{len(weights)} weights")
        lam = lam * weights.double()
    return float((lam[:, None] * logits).sum(0).abs().max() / logits.abs().max().clamp_min(1e-300))


@torch.no_grad()
def softmax_normalizers(model, x: torch.Tensor) -> torch.Tensor:
    """Prop. 9's ``Z_i = sum_j exp(score(last, j))`` of a one-layer, one-head softmax model."""
    validate.instance("softmax_normalizers", "model", model, Model)
    validate.instance("softmax_normalizers", "x", x, torch.Tensor)
    attn = model.layers[0].attn
    if model.config.n_layers != 1 or attn.n_heads != 1 or model.config.attention != "softmax":
        raise ValueError("softmax_normalizers needs a one-layer, one-head softmax model")
    h = model.embed(x)
    scores = attn.scores(h, h[:, -1:])[:, 0, 0]  # (B, n): the last column's scores
    return torch.exp(scores.double()).sum(1)


@torch.no_grad()
def strict_correct(model, batch: Batch, margin: float = 1e-6) -> torch.Tensor:
    """Per example: does the target logit beat every other logit by more than ``margin``?
    (arg-max alone would count ties as right for the first class.)"""
    validate.instance("strict_correct", "model", model, Model)
    validate.instance("strict_correct", "batch", batch, Batch)
    validate.real("strict_correct", "margin", margin, minimum=0.0)
    logits = model(batch.x).double()
    target = logits.gather(1, batch.y[:, None])
    others = logits.scatter(1, batch.y[:, None], float("-inf"))
    return target[:, 0] > others.max(1).values + margin


def strict_accuracy(model, batch: Batch, margin: float = 1e-6) -> float:
    """Fraction of examples that are :func:`strict_correct`."""
    correct = strict_correct(model, batch, margin)  # checks the arguments
    if not len(correct):
        validate.fail("strict_accuracy", "batch", "a non-empty batch (an accuracy of no examples is undefined)",
                      "an empty batch")
    return float(correct.double().mean())


def position_counts(x: torch.Tensor, n_tokens: int) -> torch.Tensor:
    """How often each token occurs at each position of the sequences ``x``: ``(length, n_tokens)``
    (Lemma 5 counts these over all sequences of one template)."""
    validate.instance("position_counts", "x", x, torch.Tensor)
    if x.dim() != 2:
        validate.fail("position_counts", "x", "token ids of shape (sequences, length)", f"shape {tuple(x.shape)}")
    n_tokens = validate.integer("position_counts", "n_tokens", n_tokens, minimum=1)
    if len(x) and (int(x.min()) < 0 or int(x.max()) >= n_tokens):
        validate.fail("position_counts", "x", f"token ids in [0, {n_tokens})", f"ids up to {int(x.max())}")
    return torch.stack([torch.bincount(x[:, p], minlength=n_tokens) for p in range(x.shape[1])])


def template_weights(batch: Batch, first: int, second: int, n_tokens: int) -> tuple[Batch, list[int]]:
    """Lemma 6: the sequences of classes ``first`` and ``second`` of a template task's whole
    ``batch`` (every sequence of each template), and integer weights, positive on ``first`` and
    negative on ``second``, that make the two sets dependent (Def. 3; check with
    :func:`is_dependent`). By Lemma 5 every token a position uses occurs equally often there
    among the N sequences of one template, N / |X| times, so weights N_second and N_first
    (divided by their gcd) balance every position. Raises ``ValueError`` if a position's tokens
    are not equally frequent (Lemma 5 fails: the batch is not every sequence of the template)."""
    from math import gcd

    validate.instance("template_weights", "batch", batch, Batch)
    first = validate.integer("template_weights", "first", first, minimum=0)
    second = validate.integer("template_weights", "second", second, minimum=0)
    validate.integer("template_weights", "n_tokens", n_tokens, minimum=1)
    sizes = []
    for label in (first, second):
        x = batch.x[batch.y == label]
        if not len(x):
            validate.fail("template_weights", "first/second", "classes present in the batch", label)
        for row in position_counts(x, n_tokens):
            used = row[row > 0]
            if not bool((used == used[0]).all()):
                raise ValueError(f"template_weights: class {label}'s tokens are not equally frequent at every "
                                 "position (Lemma 5 needs every sequence of the template)")
        sizes.append(len(x))
    g = gcd(*sizes)
    x = torch.cat([batch.x[batch.y == first], batch.x[batch.y == second]])
    y = torch.cat([batch.y[batch.y == first], batch.y[batch.y == second]])
    return Batch(x, y), [sizes[1] // g] * sizes[0] + [-(sizes[0] // g)] * sizes[1]
