"""Nearest neighbour and multi-query associative recall (Bhattamishra et al., 2024, Sec. 5.2 and
App. G; the task of their ref. [8]).

A sequence interleaves inputs and labels, ``x_1, y_1, x_2, y_2, ..., x_n, y_n``, as vectors of
size ``dim + 2``: an input token is ``[x_i, 0, 1]`` (a unit vector and an input flag), a label
token ``[0, y_i, 0]``. The first ``n_context`` labels are random bits; every later input ``x_t``
gets the label of its nearest earlier input, ``argmax_{s<t} <x_t, x_s>``, and that is the target
read at ``x_t``'s position (``IGNORE`` elsewhere). Examples whose nearest neighbour does not win
by ``margin`` (the paper's gamma) at every scored input are drawn again.

``keys="hypercube"``: points of ``{±1/sqrt(dim)}^dim`` (inner products on a grid of step
2/dim); ``"sphere"``: uniform unit vectors. ``mqar=True`` is multi-query associative recall
(Arora et al., 2024): the first ``n_context`` inputs are distinct and the rest are a
permutation of them, so each query's nearest neighbour is its exact copy (margin >= 2/dim on
the hypercube).
"""
from __future__ import annotations

import torch

from .. import validate
from .base import IGNORE, Batch, Task, Vocab, check_choice, check_int


def nearest_labels(x: torch.Tensor, labels: torch.Tensor, n_context: int) -> tuple[torch.Tensor, torch.Tensor]:
    """Labels of ``x`` (``(B, n, d)``) continued by the nearest-neighbour rule from the first
    ``n_context`` given ``labels``, and the margin of every scored input (best minus second-best
    inner product with the inputs before it)."""
    B, n, _ = x.shape
    y = labels.clone()
    gram = x @ x.transpose(1, 2)
    margins = torch.full((B, n), float("inf"), dtype=x.dtype)
    for t in range(n_context, n):
        sims = gram[:, t, :t]
        top = sims.topk(min(2, t), dim=1)
        y[:, t] = y[torch.arange(B), top.indices[:, 0]]
        if t >= 2:
            margins[:, t] = top.values[:, 0] - top.values[:, 1]
    return y, margins


class NearestNeighbour(Task):
    name = "nearest_neighbour"
    target = "tokens"

    def __init__(self, n_points: int = 16, dim: int = 8, n_context: int | None = None, keys: str = "hypercube",
                 mqar: bool = False, margin: float = 1e-3):
        owner = "NearestNeighbour"
        check_int(owner, "n_points", n_points, minimum=3, maximum=100_000)
        check_int(owner, "dim", dim, minimum=1, maximum=100_000)
        n_context = n_points // 2 if n_context is None else n_context
        check_int(owner, "n_context", n_context, minimum=1, maximum=n_points - 1)
        check_choice(owner, "keys", keys, ("hypercube", "sphere"))
        validate.boolean(owner, "mqar", mqar)
        validate.real(owner, "margin", margin, minimum=0.0)
        if mqar and (keys != "hypercube" or 2 * n_context != n_points or 2**dim < n_context):
            raise ValueError(f"{owner}: mqar=True needs hypercube keys, n_points = 2 n_context and "
                             f"2^dim >= n_context distinct keys (got {keys}, {n_points}, {n_context}, dim {dim})")
        self.n_points, self.dim, self.n_context, self.keys = n_points, dim, n_context, keys
        self.mqar, self.margin = mqar, float(margin)
        self.vocab = Vocab(["input", "label"])  # vector inputs: the vocabulary only names the token kinds
        self.input_dim = dim + 2
        self.seq_len = 2 * n_points
        self.n_classes = 2

    def _points(self, n: int, generator: torch.Generator) -> torch.Tensor:
        d, m = self.dim, self.n_points
        if self.mqar:
            codes = torch.rand(n, 2**d, generator=generator).argsort(1)[:, : self.n_context]
            keys = ((codes[..., None] >> torch.arange(d)) & 1).double() * 2 - 1
            order = torch.rand(n, self.n_context, generator=generator).argsort(1)
            x = torch.cat([keys, keys[torch.arange(n)[:, None], order]], dim=1)
        elif self.keys == "hypercube":
            x = torch.randint(2, (n, m, d), generator=generator).double() * 2 - 1
        else:
            x = torch.randn(n, m, d, generator=generator, dtype=torch.float64)
        return x / x.norm(dim=-1, keepdim=True)

    def encode(self, x: torch.Tensor, y: torch.Tensor) -> Batch:
        """The interleaved vector sequence of inputs ``x`` ``(B, n, dim)`` and labels ``y``."""
        B, m, d = x.shape
        seq = torch.zeros(B, 2 * m, d + 2, dtype=torch.float64)
        seq[:, 0::2, :d] = x
        seq[:, 0::2, d + 1] = 1.0
        seq[:, 1::2, d] = y.double()
        target = torch.full((B, 2 * m), IGNORE, dtype=torch.long)
        target[:, 2 * self.n_context::2] = y[:, self.n_context:]
        return Batch(seq.float(), target)

    def _sample(self, n: int, generator: torch.Generator) -> Batch:
        xs, ys = [], []
        need = n
        for _ in range(1000):
            x = self._points(2 * need, generator)
            labels = torch.randint(2, (2 * need, self.n_points), generator=generator)
            y, margins = nearest_labels(x, labels, self.n_context)
            ok = (margins[:, self.n_context:] >= self.margin).all(1)
            xs.append(x[ok][:need])
            ys.append(y[ok][:need])
            need -= int(ok.sum().clamp(max=need))
            if need == 0:
                return self.encode(torch.cat(xs), torch.cat(ys))
        raise ValueError(f"NearestNeighbour: could not draw examples with margin {self.margin}; lower it")

    @staticmethod
    def inputs(batch: Batch) -> tuple[torch.Tensor, torch.Tensor]:
        """The input vectors ``(B, n, dim)`` and labels ``(B, n)`` of a batch."""
        d = batch.x.shape[-1] - 2
        return batch.x[:, 0::2, :d].double(), batch.x[:, 1::2, d].round().long()
