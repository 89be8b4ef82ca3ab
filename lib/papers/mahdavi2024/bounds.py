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
