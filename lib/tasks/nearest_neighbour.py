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
from .base import IGNORE, ArgumentTypeError, Batch, Task, Vocab, check_choice, check_int


def _tensor(owner: str, name: str, value, ndim: int, floating: bool | None = None) -> torch.Tensor:
    if not isinstance(value, torch.Tensor):
        validate.fail(owner, name, f"a torch.Tensor with {ndim} axes", type(value).__name__, ArgumentTypeError)
    if value.dim() != ndim:
        validate.fail(owner, name, f"a tensor with {ndim} axes", f"shape {tuple(value.shape)}")
    if floating is True and not value.is_floating_point():
        validate.fail(owner, name, "a floating-point tensor", value.dtype, ArgumentTypeError)
    if floating is False and (value.is_floating_point() or value.is_complex()):
        validate.fail(owner, name, "an integer tensor", value.dtype, ArgumentTypeError)
    if floating is True and not torch.isfinite(value).all():
        validate.fail(owner, name, "finite (no NaN or infinity)", f"a tensor with {int((~torch.isfinite(value)).sum())} "
                      "such entries")
    return value


def nearest_labels(x: torch.Tensor, labels: torch.Tensor, n_context: int) -> tuple[torch.Tensor, torch.Tensor]:
    """Labels of ``x`` (``(B, n, d)``) continued by the nearest-neighbour rule from the first
    ``n_context`` given ``labels``, and the margin of every scored input (best minus second-best
    inner product with the inputs before it)."""
    owner = "nearest_labels"
    _tensor(owner, "x", x, 3, floating=True)
    _tensor(owner, "labels", labels, 2, floating=False)
    if labels.shape != x.shape[:2]:
        validate.fail(owner, "labels", f"a tensor of shape {tuple(x.shape[:2])} (B, n), one label per input",
                      f"shape {tuple(labels.shape)}")
    check_int(owner, "n_context", n_context, minimum=1, maximum=max(1, x.shape[1]))
    validate.memory(owner, f"the Gram matrices (B x n x n = {x.shape[0] * x.shape[1] ** 2:.1e} numbers)",
                    float(x.shape[0]) * x.shape[1] ** 2 * x.element_size() * 2)
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
        self.check_memory(owner, 1)

    def sample_memory(self, n: int) -> tuple[str, float]:
        """Drawing ``n`` examples draws ``2n`` candidates at a time: their points (``n_points x
        dim`` each, in float64, with the integer draws and the normalised copy), their Gram
        matrices (``n_points x n_points``, and the similarities read from them), for MQAR a
        random order of all ``2^dim`` keys, and then the float64 and float32 sequences
        (``2 n_points x (dim + 2)``)."""
        m, d = self.n_points, self.dim
        keys = (float("inf") if d > 1000 else 2.0**d) if self.mqar else 0.0
        numbers = 2.0 * n * (m * d + m * m + keys) + n * 2 * m * (d + 2)
        n_bytes = 2.0 * n * (3 * 8 * m * d + 16 * m * m + 12 * keys + 32 * m) + n * 2 * m * (d + 2) * 12
        what = (f"the points{', all 2^dim keys' if self.mqar else ''} and Gram matrices of 2n candidates and the "
                f"sequences (2n x n_points x (dim + n_points){' + 2n x 2^dim' if self.mqar else ''} + n x 2 n_points "
                f"x (dim + 2) = {numbers:.1e} numbers)")
        return what, n_bytes

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
        _tensor("NearestNeighbour.encode", "x", x, 3, floating=True)
        _tensor("NearestNeighbour.encode", "y", y, 2, floating=False)
        if x.shape[1:] != (self.n_points, self.dim) or y.shape != x.shape[:2]:
            validate.fail("NearestNeighbour.encode", "x, y", f"tensors of shapes (B, {self.n_points}, {self.dim}) and "
                          f"(B, {self.n_points})", f"shapes {tuple(x.shape)} and {tuple(y.shape)}")
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
        validate.instance("NearestNeighbour.inputs", "batch", batch, Batch)
        if batch.x.dim() != 3 or batch.x.shape[-1] < 3 or not batch.x.is_floating_point():
            validate.fail("NearestNeighbour.inputs", "batch", "a batch of vector sequences (B, 2n, dim + 2)",
                          f"x of shape {tuple(batch.x.shape)}, {batch.x.dtype}")
        d = batch.x.shape[-1] - 2
        return batch.x[:, 0::2, :d].double(), batch.x[:, 1::2, d].round().long()
