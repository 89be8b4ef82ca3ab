"""The data assumptions of Mahdavi et al. (2024), Sec. 3, and how to test them.

* **Kruskal rank** of a set of vectors: the largest k such that *every* k of them are linearly
  independent. **General Position** in ``R^d``: Kruskal rank d.
* **Assumption 1**: the T query vectors have Kruskal rank >= n (the context size).
* **Assumption 2**: every context matrix ``E^(t)`` has rank n.
* **Assumption 3** (Sec. 4.4): the vectors ``e^(t) + mean_i e_i^(t)`` have Kruskal rank >= n.

The exact Kruskal rank checks every subset (NP-hard in general; :func:`kruskal_rank` refuses
sets with more than ``max_subsets`` subsets to check). The paper's randomized test
(:func:`kruskal_pass_rate`) draws k of the vectors ``trials`` times and calls the Kruskal rank
">= k" when at least 99% of the draws are independent. It can overestimate: a dependency among
a few of many vectors is rarely drawn (the chapter shows a planted example).

Ranks use the tolerance of ``torch.linalg.matrix_rank`` (``sigma_max * max(m, n) * eps``) with
the epsilon of float32, the precision the official code ran in; SVDs run in numpy float64
(torch's batched float64 SVD is far slower on a CPU).
"""
from __future__ import annotations

import itertools
import math

import numpy as np

from ... import validate

PASS_RULE = 0.99  # the paper's threshold: "Kruskal rank >= k" if 99% of random k-subsets pass
EPS = {"float32": float(np.finfo(np.float32).eps), "float64": float(np.finfo(np.float64).eps)}


def _array(vectors, owner: str = "kruskal", name: str = "vectors") -> np.ndarray:
    """Finite float64 vectors as rows of a matrix (or a stack of matrices)."""
    a = validate.array(owner, name, vectors)
    if a.ndim < 2:
        raise ValueError(f"{owner}: {name} must be vectors as rows of a matrix, got shape {a.shape}")
    if 0 in a.shape:
        raise ValueError(f"{owner}: {name} must hold at least one vector of dimension >= 1, got shape {a.shape}")
    return a


def _precision(owner: str, precision) -> str:
    return validate.choice(owner, "precision", precision, tuple(EPS))


def ranks(matrices, precision: str = "float32") -> np.ndarray:
    """Numerical rank of each matrix in a stack ``(..., m, k)``."""
    precision = _precision("ranks", precision)
    a = _array(matrices, "ranks", "matrices")
    s = np.linalg.svd(a, compute_uv=False)
    tol = s[..., :1] * max(a.shape[-2:]) * EPS[precision]
    return (s > tol).sum(-1)


def kruskal_rank(vectors, precision: str = "float64", max_subsets: int = 2_000_000) -> int:
    """Exact Kruskal rank of the rows of ``vectors`` (T, d), by checking every subset.

    Subsets are checked from size 1 upwards; the first size with a dependent subset ends the
    search. Refuses sets where that could mean more than ``max_subsets`` subsets.
    """
    precision = _precision("kruskal_rank", precision)
    validate.integer("kruskal_rank", "max_subsets", max_subsets, minimum=1)
    v = _array(vectors, "kruskal_rank")
    if v.ndim != 2:
        raise ValueError(f"kruskal_rank: vectors must be a matrix (T, d), got shape {v.shape}")
    T, d = v.shape
    for k in range(1, min(T, d) + 1):
        count = math.comb(T, k)
        if count > max_subsets:
            raise ValueError(f"kruskal_rank: {count:,} subsets of size {k} among {T} vectors; use "
                             f"kruskal_pass_rate for sets this large")
        subsets = np.array(list(itertools.combinations(range(T), k)))
        for chunk in np.array_split(subsets, max(1, len(subsets) // 20_000)):
            if (ranks(v[chunk], precision) < k).any():
                return k - 1
    return min(T, d)


def kruskal_pass_rate(vectors, k: int, trials: int = 5000, seed: int = 0, precision: str = "float32") -> float:
    """The paper's randomized test: fraction of ``trials`` random k-subsets (without
    replacement) of the rows that are linearly independent."""
    owner = "kruskal_pass_rate"
    precision = _precision(owner, precision)
    v = _array(vectors, owner)
    if v.ndim != 2:
        raise ValueError(f"{owner}: vectors must be a matrix (T, d), got shape {v.shape}")
    T = v.shape[0]
    validate.integer(owner, "k", k, minimum=1, maximum=T)
    validate.integer(owner, "trials", trials, minimum=1, maximum=10**8)
    validate.integer(owner, "seed", seed, minimum=0)
    if k > v.shape[1]:
        return 0.0  # more than d vectors in R^d are always dependent
    rng = np.random.default_rng(seed)
    passed = 0
    for start in range(0, trials, 1000):
        m = min(1000, trials - start)
        picks = np.argsort(rng.random((m, T)), axis=1)[:, :k]
        passed += int((ranks(v[picks], precision) == k).sum())
    return passed / trials


def kruskal_estimate(vectors, trials: int = 5000, seed: int = 0, precision: str = "float32") -> int:
    """The randomized test's Kruskal rank: the largest k whose :func:`kruskal_pass_rate` is at
    least :data:`PASS_RULE` (0 if none), found by bisection over ``1 <= k <= min(T, d)``. The
    pass rate falls with k (every subset of an independent set is independent), so bisection
    finds the same k as a scan. Like the test it reads, it can overestimate the exact
    :func:`kruskal_rank`."""
    v = _array(vectors, "kruskal_estimate")
    if v.ndim != 2:
        raise ValueError(f"kruskal_estimate: vectors must be a matrix (T, d), got shape {v.shape}")
    _precision("kruskal_estimate", precision)
    validate.integer("kruskal_estimate", "trials", trials, minimum=1, maximum=10**8)
    validate.integer("kruskal_estimate", "seed", seed, minimum=0)
    lo, hi = 0, min(v.shape)  # the pass rule holds at lo (trivially at 0); find the largest such k
    while lo < hi:
        k = (lo + hi + 1) // 2
        if kruskal_pass_rate(v, k, trials, seed, precision) >= PASS_RULE:
            lo = k
        else:
            hi = k - 1
    return lo


def full_rank_fraction(contexts, precision: str = "float32") -> float:
    """Fraction of the context matrices ``(T, n, d)`` with rank n (Assumption 2 holds if 1)."""
    precision = _precision("full_rank_fraction", precision)
    c = _array(contexts, "full_rank_fraction", "contexts")
    return float((ranks(c, precision) == c.shape[-2]).mean())


def assumption_report(queries, contexts, trials: int = 5000, seed: int = 0, precision: str = "float32") -> dict:
    """Pass rates of General Position (k = d), Assumption 1 (k = n), Assumption 3 (k = n on
    query + mean context token) and the full-rank fraction of Assumption 2."""
    owner = "assumption_report"
    q, c = _array(queries, owner, "queries"), _array(contexts, owner, "contexts")
    if q.ndim != 2:
        raise ValueError(f"{owner}: queries must be a matrix (T, d), got shape {q.shape}")
    if c.ndim != 3 or c.shape[0] != q.shape[0] or c.shape[2] != q.shape[1]:
        raise ValueError(f"{owner}: contexts must be one context (n, {q.shape[1]}) per query ({q.shape[0]}), "
                         f"got shape {c.shape}")
    _precision(owner, precision)
    validate.integer(owner, "trials", trials, minimum=1, maximum=10**8)
    validate.integer(owner, "seed", seed, minimum=0)
    if c.shape[1] > len(q):
        raise ValueError(f"{owner}: contexts of n = {c.shape[1]} tokens need at least n = {c.shape[1]} queries for "
                         f"Assumption 1 (k = n among T = {len(q)} vectors)")
    n, d = c.shape[-2], q.shape[-1]
    shifted = q + c.mean(-2)
    return {
        "general_position": kruskal_pass_rate(q, d, trials, seed, precision) if d <= len(q) else 0.0,
        "assumption_1": kruskal_pass_rate(q, n, trials, seed, precision),
        "assumption_2": full_rank_fraction(c, precision),
        "assumption_3": kruskal_pass_rate(shifted, n, trials, seed, precision),
    }


def holds(rate: float, *, all_: bool = False) -> bool:
    """Whether a pass rate counts as "holds": >= 99% (Kruskal tests), or 100% (``all_``,
    Assumption 2, which is about every example)."""
    validate.real("holds", "rate", rate, minimum=0.0, maximum=1.0)
    validate.boolean("holds", "all_", all_)
    return rate >= (1.0 if all_ else PASS_RULE)
