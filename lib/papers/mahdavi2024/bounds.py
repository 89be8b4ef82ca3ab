"""How good Theorem 1's count is (Mahdavi et al. 2024, Props. 2, 3 and 5): the rank of Z that
random attention weights reach, and Prop. 3's bound on a two-layer ReLU network."""
from __future__ import annotations

import numpy as np

from ... import validate
from ...tasks.base import Batch
from ...tasks.random_labels import contexts, queries
from .construction import head_outputs


def random_ranks(batch: Batch, n_heads: int, scale: float, draws: int, seed: int = 0) -> np.ndarray:
    """rank(Z) of ``n_heads`` heads with ``draws`` random key/query weights: W_K, W_Q entries
    ``N(0, scale^2)``, scores divided by d (Prop. 2: at most H(n-1)+1 under a shared context)."""
    validate.instance("random_ranks", "batch", batch, Batch)
    validate.integer("random_ranks", "n_heads", n_heads, minimum=1)
    validate.real("random_ranks", "scale", scale, above=0.0)
    validate.integer("random_ranks", "draws", draws, minimum=1, maximum=10**6)
    validate.integer("random_ranks", "seed", seed, minimum=0)
    d = batch.x.shape[-1]
    validate.memory("random_ranks", f"the weights of one draw (2 x n_heads x d x d = {2 * n_heads * d * d:.1e} numbers)",
                    8 * 3 * n_heads * d * d)
    q, E = queries(batch).double().numpy(), contexts(batch).double().numpy()
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(draws):
        W_K, W_Q = rng.standard_normal((2, n_heads, q.shape[1], q.shape[1])) * scale
        Z, _ = head_outputs(E, q, np.einsum("hdk,hek->hde", W_K, W_Q) / q.shape[1])
        out.append(np.linalg.matrix_rank(Z))
    return np.array(out)


def relu_capacity(context_size: int, hidden: int, d_out: int = 1) -> float:
    """Prop. 3's upper bound on what a two-layer ReLU network with ``hidden`` units memorizes on
    Appendix F's data: ``(n + 1) m / d_out + m + 1``."""
    for name, value in (("context_size", context_size), ("hidden", hidden), ("d_out", d_out)):
        validate.integer("relu_capacity", name, value, minimum=1)
    return (context_size + 1) * hidden / d_out + hidden + 1


def relu_jacobian_rank(batch: Batch, hidden: int, seed: int = 0, bias_scale: float = 0.1) -> dict:
    """The ReLU side of Prop. 3, measured: a two-layer ReLU network with ``hidden`` units on the
    flattened input ``[e_1; ...; e_n; e] in R^{(n+1)d}`` (weights ``N(0, 1/fan_in)``, first-layer
    biases ``N(0, bias_scale^2)``, so that each unit cuts through the data), and the rank of the
    Jacobian of its T outputs with respect to all its parameters. The labels it can fit near
    these weights form a manifold of that dimension, so generic labels of more examples than the
    rank cannot be fitted there. Prop. 3 says the rank never exceeds :func:`relu_capacity` on
    Appendix F's data, however many parameters the network has. Returns the rank, the bound, T
    and the parameter count."""
    import torch

    validate.instance("relu_jacobian_rank", "batch", batch, Batch)
    hidden = validate.integer("relu_jacobian_rank", "hidden", hidden, minimum=1, maximum=10**4)
    validate.real("relu_jacobian_rank", "bias_scale", bias_scale, minimum=0.0)
    g = torch.Generator().manual_seed(validate.integer("relu_jacobian_rank", "seed", seed, minimum=0))
    x = batch.x.double().reshape(len(batch), -1)
    width = x.shape[1]
    params = [torch.randn(width, hidden, generator=g, dtype=torch.float64) / width ** 0.5,
              torch.randn(hidden, generator=g, dtype=torch.float64) * bias_scale,
              torch.randn(hidden, generator=g, dtype=torch.float64) / hidden ** 0.5,
              torch.randn(1, generator=g, dtype=torch.float64)]

    def outputs(W1, b1, w2, b2):
        return torch.relu(x @ W1 + b1) @ w2 + b2

    blocks = torch.autograd.functional.jacobian(outputs, tuple(params))
    J = torch.cat([b.reshape(len(batch), -1) for b in blocks], dim=1).numpy()
    s = np.linalg.svd(J, compute_uv=False)
    rank = int((s > 1e-9 * s[0]).sum())
    n = contexts(batch).shape[1]
    return {"T": len(batch), "parameters": int(sum(p.numel() for p in params)), "jacobian rank": rank,
            "bound": relu_capacity(n, hidden)}
