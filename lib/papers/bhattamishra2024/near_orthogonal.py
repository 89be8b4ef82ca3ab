"""Nearly orthogonal vectors (Bhattamishra et al., 2024, Lemma 2, Lemma 3, Corollary 8.1).

N vectors with i.i.d. entries uniform in ``{±1/sqrt(k)}`` have unit norm, and by Hoeffding
``P(|<T_i, T_j>| >= gamma) <= 2 exp(-k gamma^2 / 4)`` for ``i != j``; a union bound over the N^2
pairs makes ``k = (8 / gamma^2) ln(2N)`` enough with probability >= 1/2 (Lemma 2). The
constructions need a *margin*: the diagonal (1) minus the largest off-diagonal inner product.
Corollary 8.1 asks for off-diagonals <= 1/4; the constructions work for any threshold < 1 once
the softmax temperature is scaled by 1/(1 - threshold) (:func:`temperature`).
"""
from __future__ import annotations

import math

import numpy as np

from ... import validate


def sign_vectors(n: int, k: int, seed: int = 0) -> np.ndarray:
    """``n`` vectors in R^k with i.i.d. entries ``±1/sqrt(k)`` (float64, one per row)."""
    n = validate.integer("sign_vectors", "n", n, minimum=1)
    k = validate.integer("sign_vectors", "k", k, minimum=1)
    rng = np.random.default_rng(validate.integer("sign_vectors", "seed", seed, minimum=0))
    return (rng.integers(0, 2, size=(n, k)) * 2 - 1) / math.sqrt(k)


def max_off_diagonal(T: np.ndarray) -> float:
    """The largest ``<T_i, T_j>`` over ``i != j`` (the quantity the constructions bound)."""
    G = T @ T.T
    np.fill_diagonal(G, -np.inf)
    return float(G.max())


def nearly_orthogonal(n: int, k: int, threshold: float = 0.5, seed: int = 0, tries: int = 20) -> np.ndarray:
    """``n`` sign vectors in R^k whose off-diagonal inner products are all <= ``threshold``: the
    first of ``tries`` draws (seeds ``seed, seed + 1, ...``) that qualifies."""
    validate.real("nearly_orthogonal", "threshold", threshold, above=0.0, below=1.0)
    for attempt in range(tries):
        T = sign_vectors(n, k, seed + attempt)
        if max_off_diagonal(T) <= threshold:
            return T
    raise ValueError(f"nearly_orthogonal: no draw of {n} vectors in R^{k} has off-diagonals <= {threshold} "
                     f"in {tries} tries; raise k (see k_min)")


def lemma2_width(n: int, gamma: float) -> int:
    """Lemma 2's sufficient width ``ceil((8 / gamma^2) ln(2N))``."""
    return math.ceil(8.0 / gamma**2 * math.log(2 * n))


def k_min(n: int, threshold: float, step: int = 4, draws: int = 2, seed: int = 0, start: int | None = None) -> int:
    """The smallest ``k`` on a grid of ``step`` (scanning up from ``start``, default ``step``) at
    which each of ``draws`` independent draws of ``n`` sign vectors has every off-diagonal inner
    product <= ``threshold``. k_min grows with n, so a scan over growing n may start each search
    from the previous answer."""
    k = max(step, (start or step) // step * step)
    while not all(max_off_diagonal(sign_vectors(n, k, seed + 1000 * k + d)) <= threshold for d in range(draws)):
        k += step
    return k


def hoeffding_tail(k: int, gamma: float) -> float:
    """Lemma 2's bound on ``P(|<T_i, T_j>| >= gamma)``: ``2 exp(-k gamma^2 / 4)``."""
    return 2.0 * math.exp(-k * gamma**2 / 4.0)


def temperature(n: int, threshold: float, weight: float = 0.75) -> float:
    """A softmax scale eta that puts at least ``weight`` on the matching position when its logit
    is ``eta`` and the other ``n`` are at most ``eta * threshold``:
    ``e^eta / (e^eta + n e^(eta thr)) >= weight`` iff ``eta >= ln(n w / (1 - w)) / (1 - thr)``."""
    return math.log(n * weight / (1.0 - weight)) / (1.0 - threshold)
