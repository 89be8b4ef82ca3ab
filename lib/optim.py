"""The ensemble's parameters in one flat buffer, and the optimizers that update it in a few kernels.

K members' parameters live in one 1-D buffer: each parameter owns an aligned block holding its
``(K, *shape)`` stack contiguously, and the model sees those blocks as ordinary tensors
(:meth:`FlatStack.views`). Gradients are gathered into a buffer of the same layout, so an
optimizer step is a dozen element-wise kernels over the whole ensemble, whatever the number of
parameters or members (``torch.optim`` with ``foreach``/``fused`` does the same for one model).

The update rules follow ``torch.optim`` (SGD with momentum, Adam, AdamW) operation by operation;
element-wise arithmetic does not depend on the layout, so a member ends with the same bits as it
would with one tensor per parameter (``tests/test_train.py`` compares with ``torch.optim``).
Per-member learning rates, weight decays and the frozen/active mask are spread over the buffer
once (:meth:`FlatStack.spread`).
"""
from __future__ import annotations

import math

import torch

ALIGN = 16  # elements: every block starts 64-byte aligned (float32), as a separately allocated tensor would


class FlatStack:
    """Layout of K members' named tensors in one aligned 1-D buffer."""

    def __init__(self, shapes: dict[str, torch.Size], K: int):
        self.K, self.shapes, self.blocks = K, dict(shapes), {}
        offset = 0
        for name, shape in self.shapes.items():
            size = K * math.prod(shape)
            self.blocks[name] = (offset, size)
            offset += -(-size // ALIGN) * ALIGN
        self.numel = offset

    def zeros(self, dtype, device) -> torch.Tensor:
        return torch.zeros(self.numel, dtype=dtype, device=device)

    def views(self, buffer: torch.Tensor) -> dict[str, torch.Tensor]:
        """Each name's ``(K, *shape)`` view into ``buffer`` (contiguous, shares its storage)."""
        return {name: buffer[start:start + size].view(self.K, *self.shapes[name])
                for name, (start, size) in self.blocks.items()}

    def pack(self, tensors: dict[str, torch.Tensor], dtype=None, device=None) -> torch.Tensor:
        """A new buffer holding ``tensors`` (each ``(K, *shape)``); padding is zero."""
        first = next(iter(tensors.values()))
        buffer = self.zeros(dtype or first.dtype, device or first.device)
        for name, view in self.views(buffer).items():
            view.copy_(tensors[name])
        return buffer

    def spread(self, values: torch.Tensor, out: torch.Tensor | None = None) -> torch.Tensor:
        """Per-member ``values`` (K,) written over every element of each member (padding 0)."""
        out = self.zeros(values.dtype, values.device) if out is None else out
        for view in self.views(out).values():
            view.copy_(values.reshape((-1,) + (1,) * (view.dim() - 1)).expand_as(view))
        return out


class StackedOptimizer:
    """SGD (with momentum), Adam and AdamW over a :class:`FlatStack` buffer, as ``torch.optim``.

    ``lr`` and ``weight_decay`` are per-member ``(K,)`` tensors; :meth:`freeze` stops members
    (their weights no longer move). :meth:`step` takes the step's learning-rate factor and
    Adam's bias corrections either as Python numbers or as 0-d device tensors (a captured CUDA
    graph reads them from there; see :meth:`scalars`).
    """

    def __init__(self, layout: FlatStack, params: torch.Tensor, config, lr: torch.Tensor, weight_decay: torch.Tensor):
        self.layout, self.params, self.config = layout, params, config
        self.lr = layout.spread(lr)
        self.wd = layout.spread(weight_decay)
        self.keep = layout.spread(torch.ones_like(lr))
        self.t = 0
        self.state: dict[str, torch.Tensor] = {}
        if config.optimizer == "sgd":
            if config.momentum:
                self.state["momentum"] = torch.zeros_like(params)
        else:
            self.state["exp_avg"] = torch.zeros_like(params)
            self.state["exp_avg_sq"] = torch.zeros_like(params)

    def freeze(self, active: torch.Tensor) -> None:
        """Keep only members with ``active[k] > 0`` moving (in place: a captured graph sees it)."""
        self.layout.spread(active.to(self.keep.dtype), out=self.keep)

    def scalars(self, factor: float) -> dict[str, float]:
        """The numbers update ``t + 1`` needs: learning-rate factor and Adam's bias corrections."""
        t = self.t + 1
        b1, b2 = self.config.betas
        return {"factor": factor, "bias1": 1 - b1**t, "bias2_sqrt": math.sqrt(1 - b2**t)}

    @torch.no_grad()
    def step(self, grads: torch.Tensor, scalars: dict) -> None:
        """One update from the flat gradient buffer ``grads``; ``scalars`` from :meth:`scalars`
        (or 0-d tensors holding them)."""
        c, p, g = self.config, self.params, grads
        self.t += 1
        lr = self.lr * scalars["factor"]
        if c.optimizer == "sgd":
            g = g + self.wd * p
            if c.momentum:
                buf = self.state["momentum"]
                buf.mul_(c.momentum).add_(g)  # = g at the first step, as torch.optim's clone
                g = buf
            update = lr * g
        else:
            if c.optimizer == "adam":
                g = g + self.wd * p
            b1, b2 = c.betas
            m, v = self.state["exp_avg"], self.state["exp_avg_sq"]
            m.lerp_(g, 1 - b1)
            v.mul_(b2).addcmul_(g, g, value=1 - b2)
            denom = (v.sqrt() / scalars["bias2_sqrt"]).add_(c.eps)
            update = (lr / scalars["bias1"]) * m / denom
            if c.optimizer == "adamw":  # decoupled decay
                update = update + lr * self.wd * p
        p.sub_(self.keep * update)

    def state_dict(self) -> dict:
        return {"t": self.t, **{k: v.clone() for k, v in self.state.items()}}

    def load_state_dict(self, state: dict) -> None:
        self.t = int(state["t"])
        for k, v in self.state.items():
            v.copy_(state[k])


def clip_per_member(grads: list[torch.Tensor], max_norm: float) -> None:
    """Scale each member's gradient to norm <= ``max_norm`` (``clip_grad_norm_`` per model).
    ``grads`` are the ``(K, ...)`` gradients of the parameters, in order."""
    K = grads[0].shape[0]
    total = torch.zeros(K, device=grads[0].device, dtype=grads[0].dtype)
    for g in grads:
        total = total + g.reshape(K, -1).pow(2).sum(1).to(total.dtype)
    coef = (max_norm / (total.sqrt() + 1e-6)).clamp(max=1.0)
    for g in grads:
        g.mul_(coef.reshape((-1,) + (1,) * (g.dim() - 1)).to(g.dtype))
