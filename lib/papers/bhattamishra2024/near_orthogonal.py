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
    validate.memory("sign_vectors", f"the signs and the vectors (n x k = {n * k:.1e} numbers, twice)", 16.0 * n * k)
    rng = np.random.default_rng(validate.integer("sign_vectors", "seed", seed, minimum=0))
    return (rng.integers(0, 2, size=(n, k)) * 2 - 1) / math.sqrt(k)


def _vectors(owner: str, T) -> None:
    """``T``: a finite 2-D array of at least two rows (one vector per row), checked without
    converting it (the caller computes with ``T`` as given)."""
    a = validate.array(owner, "T", T, ndim=2)
    if a.shape[0] < 2:
        validate.fail(owner, "T", "at least two vectors (rows): with one there is no off-diagonal",
                      f"shape {a.shape}")


def max_off_diagonal(T: np.ndarray) -> float:
    """The largest ``<T_i, T_j>`` over ``i != j`` (the quantity the constructions bound)."""
    _vectors("max_off_diagonal", T)
    G = T @ T.T
    np.fill_diagonal(G, -np.inf)
    return float(G.max())


def nearly_orthogonal(n: int, k: int, threshold: float = 0.5, seed: int = 0, tries: int = 20) -> np.ndarray:
    """``n`` sign vectors in R^k whose off-diagonal inner products are all <= ``threshold``: the
    first of ``tries`` draws (seeds ``seed, seed + 1, ...``) that qualifies."""
    n = validate.integer("nearly_orthogonal", "n", n, minimum=1)
    k = validate.integer("nearly_orthogonal", "k", k, minimum=1)
    validate.memory("nearly_orthogonal", f"each draw (n x k = {n * k:.1e} numbers, twice, and n x n inner products)",
                    16.0 * n * k + 8.0 * n * n)
    validate.real("nearly_orthogonal", "threshold", threshold, above=0.0, below=1.0)
    validate.seed("nearly_orthogonal", "seed", seed)
    validate.integer("nearly_orthogonal", "tries", tries, minimum=1, maximum=10_000)
    if n == 1:  # no off-diagonal: the first draw qualifies
        return sign_vectors(n, k, seed)
    for attempt in range(tries):
        T = sign_vectors(n, k, seed + attempt)
        if max_off_diagonal(T) <= threshold:
            return T
    raise ValueError(f"nearly_orthogonal: no draw of {n} vectors in R^{k} has off-diagonals <= {threshold} "
                     f"in {tries} tries; raise k (see k_min)")


def lemma2_width(n: int, gamma: float) -> int:
    """Lemma 2's sufficient width ``ceil((8 / gamma^2) ln(2N))`` (``gamma`` in (0, 1]: inner
    products of unit vectors never exceed 1)."""
    validate.integer("lemma2_width", "n", n, minimum=1)
    validate.real("lemma2_width", "gamma", gamma, above=0.0, maximum=1.0)
    return math.ceil(8.0 / gamma**2 * math.log(2 * n))


def k_min(n: int, threshold: float, step: int = 4, draws: int = 2, seed: int = 0, start: int | None = None,
          max_k: int | None = None) -> int:
    """The smallest ``k`` on a grid of ``step`` (scanning up from ``start``, default ``step``) at
    which each of ``draws`` independent draws of ``n`` sign vectors has every off-diagonal inner
    product <= ``threshold``. k_min grows with n, so a scan over growing n may start each search
    from the previous answer (a ``start`` below ``step`` starts at ``step``).

    ``threshold`` must lie in (0, 1): the largest off-diagonal of ``n >= 2`` unit vectors is at
    least ``-1/(n-1)``, so a threshold <= 0 is (almost) never reached, and any threshold >= 1
    is reached at once. The scan stops with a ``ValueError`` at ``max_k`` (default: 4 times
    Lemma 2's width, where a draw fails with probability below ``2 N^2 (2N)^-8``)."""
    n = validate.integer("k_min", "n", n, minimum=2)
    threshold = validate.real("k_min", "threshold", threshold, above=0.0, below=1.0)
    step = validate.integer("k_min", "step", step, minimum=1)
    draws = validate.integer("k_min", "draws", draws, minimum=1, maximum=1000)
    validate.seed("k_min", "seed", seed)
    if start is not None:
        validate.integer("k_min", "start", start)
    k = max(step, (start or step) // step * step)
    if max_k is None:
        max_k = max(k, 4 * lemma2_width(n, threshold))
    max_k = validate.integer("k_min", "max_k", max_k, minimum=k)
    validate.memory("k_min", f"the largest draw of the scan (n x max_k = {n * max_k:.1e} numbers, twice, and n x n "
                    "inner products)", 16.0 * n * max_k + 8.0 * n * n)
    while not all(max_off_diagonal(sign_vectors(n, k, seed + 1000 * k + d)) <= threshold for d in range(draws)):
        k += step
        if k > max_k:
            raise ValueError(f"k_min: no k <= max_k = {max_k} (step {step}) has all {draws} draws of {n} vectors "
                             f"with off-diagonals <= {threshold}; raise max_k or the threshold")
    return k


def hoeffding_tail(k: int, gamma: float) -> float:
    """Lemma 2's bound on ``P(|<T_i, T_j>| >= gamma)``: ``2 exp(-k gamma^2 / 4)``, for ``k >= 1``
    dimensions and ``gamma`` in (0, 1] (the bound itself, which exceeds 1, i.e. says nothing,
    when ``k gamma^2 < 4 ln 2``)."""
    validate.integer("hoeffding_tail", "k", k, minimum=1)
    validate.real("hoeffding_tail", "gamma", gamma, above=0.0, maximum=1.0)
    return 2.0 * math.exp(-k * gamma**2 / 4.0)


def temperature(n: int, threshold: float, weight: float = 0.75) -> float:
    """A softmax scale eta that puts at least ``weight`` on the matching position when its logit
    is ``eta`` and the other ``n`` are at most ``eta * threshold``:
    ``e^eta / (e^eta + n e^(eta thr)) >= weight`` iff ``eta >= ln(n w / (1 - w)) / (1 - thr)``.
    ``threshold`` lies in [-1, 1) (an inner product of unit vectors; 1 leaves no margin) and
    ``weight`` in [1/(n+1), 1) (uniform attention already gives 1/(n+1); below it eta < 0)."""
    n = validate.integer("temperature", "n", n, minimum=1)
    validate.real("temperature", "threshold", threshold, minimum=-1.0, below=1.0)
    validate.real("temperature", "weight", weight, minimum=1.0 / (n + 1), below=1.0)
    return math.log(n * weight / (1.0 - weight)) / (1.0 - threshold)
