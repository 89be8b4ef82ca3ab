"""Copying unseen symbols at early times (Boix-Adsera et al., 2024, Sec. 5, App. J, Theorems 5.1-5.2).

The attention-only model with tied embeddings on the one-token copy task (eq. 27): a length-1
input attends only to itself, so ``f(x) = W_E Σ_h W_{O,h} W_{V,h}ᵀ (W_Eᵀ x + γ p)`` (logits over
the vocabulary), and with one more scalar per head ``W_{O,h} W_{V,h}ᵀ + b_h I`` (eq. 28, b_h = 0
at initialisation). Initialisation as App. J: ``W_E`` and ``p`` standard Gaussian, ``W_V`` entries
of variance 1/d, ``W_O`` of variance 1/(H d_head), and the output scaled by 1/d (the mean-field
scaling under which the output variance vanishes as d grows).

At time 0 of gradient flow on one parameter group g alone, the test loss moves by
``R_g = <∇_g L_test, ∇_g L_train> / |∇_g L_train|²`` per unit decrease of the training loss, whatever
that group's learning rate: :func:`gradient_ratios`. Theorem 5.1 says the vanilla groups' ratios
vanish as d grows; Theorem 5.2 that b's does not.
"""
from __future__ import annotations

import math

import numpy as np
import torch
import torch.nn.functional as F

from ... import validate

GROUPS = ("W_E", "p", "W_V", "W_O", "b")


def gradient_ratios(d: int, n_train: int = 16, n_test: int = 100, n_heads: int = 8, d_head: int | None = None,
                    gamma: float = 1.0, seed: int = 0) -> dict[str, float]:
    """``R_g`` for each parameter group at initialisation (see the module docstring), for a
    vocabulary of ``n_train`` training tokens and ``n_test`` unseen ones."""
    owner = "gradient_ratios"
    validate.integer(owner, "d", d, minimum=1, maximum=1 << 16)
    validate.integer(owner, "n_train", n_train, minimum=1)
    validate.integer(owner, "n_test", n_test, minimum=1, maximum=validate.MAX_COUNT)
    validate.integer(owner, "n_heads", n_heads, minimum=1, maximum=validate.MAX_COUNT)
    if d_head is not None:
        validate.integer(owner, "d_head", d_head, minimum=1, maximum=validate.MAX_COUNT)
    validate.real(owner, "gamma", gamma)
    validate.seed(owner, "seed", seed)
    validate.integer(owner, "n_train", n_train, maximum=validate.MAX_COUNT)
    d_head = d if d_head is None else d_head
    numbers = (n_train + n_test) * d + d + 2 * n_heads * d * d_head + n_heads
    validate.memory(owner, f"the parameters and their two gradients ({numbers:.1e} numbers)",
                    8 * 3 * numbers + 8 * 2 * max(n_train, n_test) * (n_train + n_test + 2 * d))
    V = n_train + n_test
    g = torch.Generator().manual_seed(seed)
    normal = lambda *shape, std: (torch.randn(*shape, generator=g, dtype=torch.float64) * std).requires_grad_()  # noqa: E731
    params = {"W_E": normal(V, d, std=1.0), "p": normal(d, std=1.0), "W_V": normal(n_heads, d, d_head, std=d**-0.5),
              "W_O": normal(n_heads, d_head, d, std=(n_heads * d_head) ** -0.5),
              "b": torch.zeros(n_heads, dtype=torch.float64, requires_grad=True)}

    def loss(tokens: torch.Tensor) -> torch.Tensor:
        z = params["W_E"][tokens] + gamma * params["p"]  # (B, d): the only position attends to itself
        out = torch.einsum("bd,hde,hef->bf", z, params["W_V"], params["W_O"]) + params["b"].sum() * z
        logits = out @ params["W_E"].T / d
        return F.cross_entropy(logits, tokens)

    train_tokens, test_tokens = torch.arange(n_train), torch.arange(n_train, V)
    grads = {}
    for name, tokens in (("train", train_tokens), ("test", test_tokens)):
        grads[name] = torch.autograd.grad(loss(tokens), [params[gr] for gr in GROUPS])
    return {gr: float((gt * gr_).sum() / (gr_ * gr_).sum().clamp_min(1e-300))
            for gr, gr_, gt in zip(GROUPS, grads["train"], grads["test"])}


def ratio_table(ds=(32, 128, 512, 2048), seeds=range(5), **kwargs) -> dict[str, np.ndarray]:
    """``R_g`` for every group, shape ``(len(ds), len(seeds))`` each."""
    ds = validate.integers("ratio_table", "ds", ds, minimum=1)
    seeds = validate.integers("ratio_table", "seeds", seeds, minimum=0)
    out = {gr: np.zeros((len(ds), len(list(seeds)))) for gr in GROUPS}
    for i, d in enumerate(ds):
        for j, seed in enumerate(seeds):
            for gr, value in gradient_ratios(d, seed=seed, **kwargs).items():
                out[gr][i, j] = value
    return out
