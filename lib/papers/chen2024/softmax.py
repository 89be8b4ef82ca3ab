"""Chen & Zou's constructions with softmax attention (Sec. 16 covers only the impossibility
side; these are our extensions): :func:`with_attention` loads the ReLU weights into a softmax
model, :func:`template_matching_softmax` repairs Theorem 5, and
:func:`in_context_template_matching_softmax` rebuilds Theorem 6 as below.

Theorem 6. The ReLU construction of :func:`lib.papers.chen2024.constructions.in_context_template_matching`
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

Theorem 3 needs no new mechanism and has no threshold in exact arithmetic
(:func:`in_context_qa_thresholds` measures it). Questions and answers are distinct one-hot
tokens in every example, attention is not causal, and layer 2 reads only question rows, so a
permutation of tokens and blocks maps any input to any other: the margin is the same on every
input. The correct answer a_c beats another answer a_b by a sum over the three positions r of a
block, ``sum_r (w_{c,r} - w_{b,r}) (own_r - other_r)``: layer 2's weight on position r of the
query's block c minus that on block b, times how much more of its own block's answer than of
another block's that position holds after layer 1. Each term is positive for every ``beta > 0``
(at the question position the weight gap is of order beta/n^2 and the content gap beta/n; at the
answer position the content gap is of order 1, the residual token, and the weight gap
beta^2/n^3), so the margin tends to ``2 beta^2 / n^3`` as ``beta -> 0`` and the construction is
exact at every temperature; a finite dtype sets the threshold, where the margin falls below the
rounding of the logits.

Width ``d' = d + n + l + l^2``. Every score is a function of equality patterns, so the
construction is exact once the inverse temperature ``beta`` makes layers 1-2 sharp enough
(layer 3 itself is exact at any beta > 0: the k answers are distinct). Layer 2's gather
puts weight ``(n-1) / (e^beta + n - 1)`` on the n-1 positions it should ignore, so the error
in the gathered ``M`` is of order ``(n-1) e^{-beta}`` and must stay below a fixed share of
layer 3's smallest margin ``min |M_t - M_t'|^2 / 2`` between templates: the threshold has the
form ``beta >= ln(n-1) + c``. :func:`in_context_template_matching_thresholds` measures it on
:func:`binding_examples` (the query's nearest template among the blocks) and the chapter fits c.
"""
from __future__ import annotations

import math

import torch

from ... import validate
from ...constructions.blocks import parse_within_blocks
from ...constructions.weights import WeightBuilder, last_column, normalized_classifier
from ...models import AttentionModel, build_model
from ...models.attention import ATTENTION
from ...tasks import InContextTemplateMatching, TemplateMatching
from .constructions import paper_config, template_matching


def _betas(owner: str, name: str, betas, increasing: bool = False) -> list[float]:
    """A non-empty list of finite inverse temperatures > 0 (strictly increasing if asked)."""
    if isinstance(betas, (str, bytes)) or not hasattr(betas, "__len__"):
        validate.fail(owner, name, "a list of inverse temperatures", betas, validate.ArgumentTypeError)
    if not len(betas):
        validate.fail(owner, name, "a non-empty list of inverse temperatures", betas)
    values = [validate.real(owner, f"{name}[{i}]", b, above=0.0) for i, b in enumerate(betas)]
    if increasing and any(b >= c for b, c in zip(values, values[1:])):
        validate.fail(owner, name, "strictly increasing (a scan in order)", betas)
    return values


def _accuracies(owner: str, accuracies, n: int) -> list[float]:
    if isinstance(accuracies, (str, bytes)) or not hasattr(accuracies, "__len__"):
        validate.fail(owner, "accuracies", "a list of accuracies", accuracies, validate.ArgumentTypeError)
    if len(accuracies) != n:
        validate.fail(owner, "accuracies", f"one accuracy per beta ({n})", f"{len(accuracies)} accuracies")
    return [validate.real(owner, f"accuracies[{i}]", a, minimum=0.0, maximum=1.0) for i, a in enumerate(accuracies)]


def exact_from(betas, accuracies):
    """The smallest inverse temperature of a scan from which every larger one is exact (accuracy
    1), or None if the largest is not (exactness is not reached on the scan). ``betas`` is
    strictly increasing, with one accuracy in [0, 1] each; the beta returned is always one of
    ``betas`` (an element of the list as given)."""
    _betas("exact_from", "betas", betas, increasing=True)
    _accuracies("exact_from", accuracies, len(betas))
    return next((b for i, b in enumerate(betas) if all(a == 1.0 for a in accuracies[i:])), None)


def upper_line(x, y) -> tuple[float, float, float]:
    """The least-squares line through ``(x, y)`` raised by its largest residual, so that it lies
    on or above every point (how the chapter states a measured threshold as a function of size):
    ``(slope, intercept, lift)``; the stated line is ``intercept + lift + slope * x``."""
    import numpy as np

    xs, ys = validate.array("upper_line", "x", x, ndim=1), validate.array("upper_line", "y", y, ndim=1)
    if len(xs) != len(ys):
        validate.fail("upper_line", "y", f"one value per x ({len(xs)})", f"{len(ys)} values")
    if len(np.unique(xs)) < 2:
        validate.fail("upper_line", "x", "at least 2 distinct values (a line has two parameters)", x)
    x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    try:
        slope, intercept = np.polyfit(x, y, 1)
    except np.linalg.LinAlgError:
        validate.fail("upper_line", "x", "values far enough apart to fit a line (the least-squares fit did not "
                      "converge)", f"values spanning {float(xs.max() - xs.min()):.3g}")
    return float(slope), float(intercept), float((y - (intercept + slope * x)).max())


def scan_threshold(betas, accuracy_at) -> tuple[float | None, float]:
    """:func:`exact_from` without evaluating what it does not need: walk ``betas`` from the
    largest down and stop at the first that is not exact. Returns the threshold (None if the
    largest is not exact) and the accuracy at the first failing beta (1.0 if none fails)."""
    _betas("scan_threshold", "betas", betas)
    if not callable(accuracy_at):
        validate.fail("scan_threshold", "accuracy_at", "a function beta -> accuracy", accuracy_at,
                      validate.ArgumentTypeError)
    threshold = None
    for beta in sorted(betas, reverse=True):
        acc = accuracy_at(beta)
        if acc < 1.0:
            return threshold, acc
        threshold = beta
    return threshold, 1.0


def with_attention(model: AttentionModel, attention: str, beta: float = 1.0) -> AttentionModel:
    """The same weights in a model whose attention is ``attention`` with score scale ``beta``
    (Sec. 16: replace ReLU by softmax at inverse temperature beta)."""
    validate.instance("with_attention", "model", model, AttentionModel)
    validate.choice("with_attention", "attention", attention, ATTENTION)
    validate.real("with_attention", "beta", beta, above=0.0)
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
    validate.instance("template_matching_softmax", "task", task, TemplateMatching)
    validate.real("template_matching_softmax", "beta", beta, above=0.0)
    model = with_attention(template_matching(task), "softmax", beta)
    d, n, l = len(task.vocab), task.seq_len, task.length
    W2 = model.get_weight("layers.1.attn.W_QK")
    for j in range(l):
        # effective score beta * h_last[n-1] * W * h_j[j] with h_last[n-1] = 2, h_j[j] in (1, 2]
        W2[0, d + n - 1, d + j] = math.log(3) * (l - 1 - j) / (4 * beta)
    model.set_weights({"layers.1.attn.W_QK": W2})
    x = torch.tensor([list(t) + [task.sign] for t in task.templates])
    return model.set_weights({"W_U": normalized_classifier(last_column(model, x), rows=slice(d, d + n))})



def in_context_template_matching_softmax(task: InContextTemplateMatching, beta: float = 1.0) -> AttentionModel:
    """Three softmax layers with 1, l and 1 heads (see the module docstring)."""
    validate.instance("in_context_template_matching_softmax", "task", task, InContextTemplateMatching)
    validate.real("in_context_template_matching_softmax", "beta", beta, above=0.0)
    d, n, l, k = len(task.vocab), task.seq_len, task.length, task.k
    w = WeightBuilder(paper_config(task, 3, (1, l, 1), extra_rows=l + l * l, attention="softmax", beta=beta))
    span, offsets, code = l + 2, d + n, d + n + l
    start = [span * b for b in range(k + 1)]  # block b starts at span*b; block k is the query
    # layer 1: parse within blocks
    parse_within_blocks(w, 0, 0, d=d, n=n, n_words=task.n_words, span=span, out_row=offsets, offsets=l)
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


def logit_margin(model: AttentionModel, batch) -> torch.Tensor:
    """Per example, the target's logit minus the largest other logit (positive = correct)."""
    from ...models.base import predict
    from ...tasks.base import Batch

    validate.instance("logit_margin", "model", model, AttentionModel)
    validate.instance("logit_margin", "batch", batch, Batch)
    logits = predict(model, batch.x)
    target = logits.gather(1, batch.y[:, None])[:, 0]
    others = logits.scatter(1, batch.y[:, None], float("-inf"))
    return target - others.max(1).values


def one_per_template(task: TemplateMatching):
    """One sequence per template (word w for wildcard w), labelled by the template's class. The
    constructions of Theorem 5 read only the equality pattern, so every input of a template has
    that sequence's logits: these inputs bind for the whole task."""
    from ...tasks.base import Batch

    validate.instance("one_per_template", "task", task, TemplateMatching)
    x = torch.tensor([list(t) + [task.sign] for t in task.templates])
    return Batch(x, torch.arange(len(task.templates)))


def template_matching_thresholds(lengths, betas) -> list[dict]:
    """:func:`template_matching_softmax` as a function of the template length and the dtype: for
    each ``l`` in ``lengths`` (``l + 2`` words; the vocabulary does not enter the logits), on
    :func:`one_per_template`, the smallest float64 margin and the float32 accuracy at every
    ``beta`` of ``betas`` (lists in that order), and the float32 accuracy of the ReLU
    construction itself. :func:`exact_window` reads the float32 lists."""
    from ...models import accuracy

    if isinstance(lengths, (str, bytes)) or not hasattr(lengths, "__iter__"):
        validate.fail("template_matching_thresholds", "lengths", "a list of template lengths", lengths,
                      validate.ArgumentTypeError)
    _betas("template_matching_thresholds", "betas", betas)
    for length in lengths:  # Bell(9) = 21,147 templates: the logits alone would take 3.6 GB
        validate.integer("template_matching_thresholds", "l", length, minimum=1, maximum=8)
    rows = []
    for length in lengths:
        task = TemplateMatching(length + 2, length)
        data = one_per_template(task)
        models = [template_matching_softmax(task, b) for b in betas]
        rows.append({"l": length, "templates": len(task.templates), "betas": list(betas),
                     "float64 margin": [float(logit_margin(m.double(), data).min()) for m in models],
                     "float32 accuracy": [accuracy(m.float(), data) for m in models],
                     "ReLU construction, float32 accuracy": accuracy(template_matching(task).float(), data)})
    return rows


def exact_window(betas, accuracies) -> tuple[float | None, float | None]:
    """The longest run of consecutive ``betas`` (sorted) at which the accuracy is 1, as its
    first and last beta; (None, None) when there is none."""
    values = _betas("exact_window", "betas", betas)
    if len(set(values)) != len(values):
        validate.fail("exact_window", "betas", "distinct inverse temperatures", betas)
    if len(betas) != len(accuracies):
        raise ValueError(f"exact_window: {len(betas)} betas but {len(accuracies)} accuracies")
    _accuracies("exact_window", accuracies, len(betas))
    best, start = (None, None, 0), None
    pairs = sorted(zip(betas, accuracies))
    for i, (b, a) in enumerate(pairs):
        if a == 1.0:
            start = i if start is None else start
            if i - start + 1 > best[2]:
                best = (pairs[start][0], b, i - start + 1)
        else:
            start = None
    return best[0], best[1]


def _sizes(owner: str, sizes, width: int) -> None:
    """A non-empty list of ``width``-tuples of positive integers."""
    if isinstance(sizes, (str, bytes)) or not hasattr(sizes, "__len__") or not len(sizes):
        validate.fail(owner, "sizes", f"a non-empty list of {width}-tuples of sizes", sizes)
    for i, size in enumerate(sizes):
        values = validate.integers(owner, f"sizes[{i}]", size, minimum=1)
        if len(values) != width:
            validate.fail(owner, f"sizes[{i}]", f"{width} sizes", size)


def in_context_qa_thresholds(sizes, betas, float32_grid, n_examples: int = 500, seed: int = 0) -> list[dict]:
    """Theorem 3's weights under softmax (see the module docstring), for each
    ``(n_questions, n_answers, k)`` in ``sizes`` on ``n_examples`` sampled inputs (every input
    binds alike: the margin is the same on all of them): whether float64 is exact at every
    ``beta`` of ``betas``, the smallest margin divided by ``beta^2`` at the smallest and at the
    largest ``beta < 1`` (equal if the margin grows as ``beta^2``), the margin's spread across
    inputs relative to the margin (the largest over ``betas``), and the float32 threshold: the
    smallest ``beta`` of ``float32_grid`` from which every larger one is exact
    (:func:`scan_threshold`; None if float32 is not exact at the grid's largest)."""
    from ...models import accuracy
    from ...tasks import InContextQA
    from .constructions import in_context_qa

    validate.integer("in_context_qa_thresholds", "n_examples", n_examples, minimum=1, maximum=validate.MAX_COUNT)
    validate.seed("in_context_qa_thresholds", "seed", seed)
    _betas("in_context_qa_thresholds", "betas", betas)
    _betas("in_context_qa_thresholds", "float32_grid", float32_grid)
    _sizes("in_context_qa_thresholds", sizes, 3)
    small = sorted(b for b in betas if b < 1)
    if len(small) < 2:
        raise ValueError("in_context_qa_thresholds: betas needs two values below 1 to read the beta^2 law")
    rows = []
    for n_questions, n_answers, k in sizes:
        task = InContextQA(n_questions, n_answers, k)
        data, model = task.sample(n_examples, seed=seed), in_context_qa(task)
        margins = {b: logit_margin(with_attention(model, "softmax", b), data) for b in betas}
        threshold, below = scan_threshold(
            float32_grid, lambda b: accuracy(with_attention(model, "softmax", b).float(), data))
        rows.append({"questions": n_questions, "answers": n_answers, "k": k, "n": task.seq_len,
                     "float64 exact at every beta": bool(all((m > 0).all() for m in margins.values())),
                     f"margin / beta^2 at {small[0]:g}": float(margins[small[0]].min()) / small[0] ** 2,
                     f"margin / beta^2 at {small[-1]:g}": float(margins[small[-1]].min()) / small[-1] ** 2,
                     "relative margin spread": float(max(float((m.max() - m.min()) / m.min())
                                                         for m in margins.values())),
                     "float32 threshold": threshold, "float32 accuracy just below": below})
    return rows


def memorization_thresholds(sizes, betas) -> list[dict]:
    """The softmax threshold of Theorem 1's weights as a function of the size: for each
    ``(V, l)`` in ``sizes``, every one of the V^l sequences (the inputs that bind: all of them),
    and the smallest ``beta`` of ``betas`` from which every larger one classifies them all
    (:func:`exact_from`; None if none does), in the model's dtype (float64)."""
    from ...models import accuracy
    from ...tasks import SequenceClassification
    from . import constructions as build

    _sizes("memorization_thresholds", sizes, 2)
    _betas("memorization_thresholds", "betas", betas, increasing=True)
    rows = []
    for V, l in sizes:
        task = SequenceClassification(n_words=V, length=l, n_examples=V ** l)
        model, data = build.memorization(task), task.enumerate()
        accs = [accuracy(with_attention(model, "softmax", b), data) for b in betas]
        rows.append({"V": V, "l": l, "sequences": len(data), "threshold": exact_from(betas, accs),
                     "accuracy at the smallest beta": accs[0], "dtype": str(next(model.parameters()).dtype)})
    return rows


def equality_matrix(template) -> torch.Tensor:
    """``M_t``: the template's equality matrix with columns normalised to sum 1 (layer 1's
    output for a block with template t; see the module docstring)."""
    if isinstance(template, (str, bytes)):
        validate.fail("equality_matrix", "template", "a sequence of word ids", template, validate.ArgumentTypeError)
    ids = validate.integers("equality_matrix", "template",
                            template.tolist() if isinstance(template, torch.Tensor) else list(template))
    del ids
    t = torch.as_tensor(template)
    same = (t[:, None] == t[None, :]).double()
    return same / same.sum(0, keepdim=True)


def binding_examples(task: InContextTemplateMatching, n: int, seed: int = 0):
    """``n`` examples on which layer 3's margin is smallest: the query's template t and its
    nearest template t' (by ``|M_t - M_t'|^2``) are both among the blocks, the other k-2
    templates, the maps, the answers and the block order at random (deterministic by seed).
    Returns the batch and the smallest squared distance between two templates."""
    validate.instance("binding_examples", "task", task, InContextTemplateMatching)
    validate.integer("binding_examples", "n", n, minimum=1, maximum=validate.MAX_COUNT)
    validate.seed("binding_examples", "seed", seed)
    if task.k < 2:
        raise ValueError("binding_examples: needs k >= 2 blocks (the query's template and its nearest)")
    g = torch.Generator().manual_seed(seed)
    m = torch.stack([equality_matrix(t) for t in task.templates])
    distance = ((m[:, None] - m[None]) ** 2).sum((2, 3))
    distance.fill_diagonal_(float("inf"))
    nearest = distance.argmin(1)
    n_templates = len(task.templates)
    template_ids, query_block = [], []
    for _ in range(n):
        t = int(torch.randint(n_templates, (), generator=g))
        rest = [int(i) for i in torch.randperm(n_templates, generator=g) if int(i) not in (t, int(nearest[t]))]
        blocks = [t, int(nearest[t])] + rest[: task.k - 2]
        order = torch.randperm(task.k, generator=g).tolist()
        template_ids.append([blocks[i] for i in order])
        query_block.append(order.index(0))
    maps = torch.rand(n, task.k + 1, task.n_words, generator=g).argsort(dim=2)[:, :, : task.wildcards]
    answers = torch.rand(n, task.n_answers, generator=g).argsort(dim=1)[:, : task.k]
    batch = task.encode(torch.tensor(template_ids), maps, answers, torch.tensor(query_block))
    return batch, float(distance.min())


def in_context_template_matching_thresholds(sizes, betas, n_examples: int = 100, seed: int = 0) -> list[dict]:
    """The softmax threshold of :func:`in_context_template_matching_softmax` as a function of
    the size: for each ``(n_words, n_answers, l, k)`` in ``sizes``, ``n_examples``
    :func:`binding_examples` and the smallest ``beta`` of ``betas`` from which every larger
    one is exact (:func:`scan_threshold`), in the model's dtype (float64)."""
    from ...models import accuracy

    _sizes("in_context_template_matching_thresholds", sizes, 4)
    _betas("in_context_template_matching_thresholds", "betas", betas)
    validate.integer("in_context_template_matching_thresholds", "n_examples", n_examples, minimum=1,
                     maximum=validate.MAX_COUNT)
    validate.seed("in_context_template_matching_thresholds", "seed", seed)
    rows = []
    for n_words, n_answers, length, k in sizes:
        task = InContextTemplateMatching(n_words, n_answers, length, k)
        data, min_distance = binding_examples(task, n_examples, seed)
        dtype = next(in_context_template_matching_softmax(task).parameters()).dtype
        threshold, below = scan_threshold(
            betas, lambda b: accuracy(in_context_template_matching_softmax(task, b), data))
        rows.append({"words": n_words, "answers": n_answers, "l": length, "k": k, "n": task.seq_len,
                     "threshold": threshold, "accuracy just below": below,
                     "smallest |M_t - M_t'|^2": min_distance, "dtype": str(dtype)})
    return rows
