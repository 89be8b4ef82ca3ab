"""The constructions chapter's measurements: Lemmas 1-4 of Chen & Zou (Sec. 10 and 12) on
explicit weights (instructive and constrained attention, the codes of Theorem 1's construction)
and Theorem 6's printed matrices against the corrected ones. Used by the constructions chapter
and its checks (never imported by the sweeps)."""
from __future__ import annotations

import torch

from ... import validate
from ...constructions.weights import last_column
from ...models import accuracy, build_model
from ...tasks import InContextTemplateMatching
from .constructions import in_context_template_matching, paper_config
from .printed import in_context_template_matching_as_printed


def _one_layer(task):
    return build_model(paper_config(task, 1, 1), dtype=torch.float64)


def _pattern(model, weights, x) -> torch.Tensor:
    cache: dict = {}
    model.set_weights({"layers.0.attn.W_QK": weights})(x, cache=cache)
    return cache["layers.0.attn.pattern"][:, 0]


def lemma_1(task, n_inputs: int = 5, seed: int = 0) -> bool:
    """Lemma 1 (instructive attention): with W_QK non-zero only on the positional block, set to a
    random non-negative alpha, the attention pattern is alpha on random inputs (float64)."""
    validate.integer("lemma_1", "n_inputs", n_inputs, minimum=1, maximum=validate.MAX_COUNT)
    validate.seed("lemma_1", "seed", seed)
    n, d = task.seq_len, len(task.vocab)
    alpha = torch.rand(n, n, generator=torch.Generator().manual_seed(seed), dtype=torch.float64)
    W = torch.zeros(1, d + n, d + n, dtype=torch.float64)
    W[0, d:, d:] = alpha
    pattern = _pattern(_one_layer(task), W, task.sample(n_inputs, seed=1).x)
    return bool(torch.allclose(pattern, alpha.expand(n_inputs, n, n)))


def lemma_2(task, n_inputs: int = 5, seed: int = 1) -> tuple[int, int, bool]:
    """Lemma 2 (constrained attention): a token-matching layer (identity on the token rows) with a
    large negative positional entry on randomly chosen pairs: those pairs get no attention and
    every other pair keeps its matching score. Returns (masked pairs, other pairs, holds)."""
    validate.integer("lemma_2", "n_inputs", n_inputs, minimum=1, maximum=validate.MAX_COUNT)
    validate.seed("lemma_2", "seed", seed)
    n, d = task.seq_len, len(task.vocab)
    masked = torch.rand(n, n, generator=torch.Generator().manual_seed(seed)) < 0.3
    match = torch.zeros(1, d + n, d + n, dtype=torch.float64)
    match[0, :d, :d] = torch.eye(d, dtype=torch.float64)
    constrained = match.clone()
    constrained[0, d:, d:] = -1e3 * masked.double()
    model, x = _one_layer(task), task.sample(n_inputs, seed=2).x
    plain, masked_pattern = _pattern(model, match, x), _pattern(model, constrained, x)
    holds = bool((masked_pattern[:, masked] == 0).all() and torch.equal(masked_pattern[:, ~masked], plain[:, ~masked]))
    return int(masked.sum()), int((~masked).sum()), holds


def largest_cosine(model, x) -> float:
    """The largest |cos| between the last columns of two different sequences (Lemma 4: below 1)."""
    validate.instance("largest_cosine", "x", x, torch.Tensor)
    if x.dim() != 2 or len(x) < 2:
        validate.fail("largest_cosine", "x", "token ids of at least two sequences, shape (sequences, length)",
                      f"shape {tuple(x.shape)}")
    codes = last_column(model, x).double()
    codes = codes / codes.norm(dim=1, keepdim=True)
    return float((codes @ codes.T - torch.eye(len(codes), dtype=torch.float64)).abs().max())


def printed_against_corrected(sizes, n_sample: int) -> list[dict]:
    """Theorem 6 with Sec. 15's matrices as printed (``printed``) and with the corrected ones, on
    ``n_sample`` examples of each size ``(d1, d2, l, k)``, in float64 (so that ties between equal
    logits, which the printed matrices produce, do not depend on rounding)."""
    validate.integer("printed_against_corrected", "n_sample", n_sample, minimum=1, maximum=validate.MAX_COUNT)
    for i, size in enumerate(sizes):
        if len(validate.integers("printed_against_corrected", f"sizes[{i}]", size, minimum=1)) != 4:
            validate.fail("printed_against_corrected", f"sizes[{i}]", "a (d1, d2, l, k) tuple", size)
    rows = []
    for size in sizes:
        task = InContextTemplateMatching(*size)
        data = task.sample(n_sample, seed=2)
        rows.append({"(d1, d2, l, k)": tuple(size), "every answer in context": size[1] == size[3],
                     "as printed": accuracy(in_context_template_matching_as_printed(task).double(), data),
                     "corrected": accuracy(in_context_template_matching(task).double(), data)})
    return rows
