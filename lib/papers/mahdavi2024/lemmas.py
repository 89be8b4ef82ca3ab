"""The linear-algebra lemmas of Appendix D of Mahdavi et al. (2024) that the proofs lean on,
checked on random instances that sit at their edge (Lemmas 2-4 are checked with the
construction, :mod:`lib.papers.mahdavi2024.construction`).

* **Lemma 1**: a block upper-triangular matrix ``[[A, C], [0, B]]`` has rank at least
  rank(A) + rank(B), for any C.
* **Lemma 5**: if the largest singular value of B - A is below the smallest non-zero singular
  value of A, then rank(B) >= rank(A) (a corollary of Weyl's inequality).
"""
from __future__ import annotations

import numpy as np

from ... import validate


def _rank(M: np.ndarray, scale: float, rtol: float = 1e-9) -> int:
    """Numerical rank: singular values above ``rtol`` times ``scale``, the size of the matrices
    of the trial (a rank drop leaves a singular value of about 1e-16 times that)."""
    return int((np.linalg.svd(M, compute_uv=False) > rtol * scale).sum()) if M.size else 0


def _low_rank(rng: np.random.Generator, rows: int, cols: int, rank: int) -> np.ndarray:
    return rng.standard_normal((rows, rank)) @ rng.standard_normal((rank, cols))


def lemma_1_trials(trials: int = 200, seed: int = 0) -> dict:
    """Random blocks A (m x k), B (p x q) of random (often deficient) ranks and C of any rank:
    the number of trials, the smallest rank margin rank(M) - rank(A) - rank(B) (>= 0 if the
    lemma holds) and how many trials had a margin above 0 (the bound is not always tight)."""
    trials = validate.integer("lemma_1_trials", "trials", trials, minimum=1, maximum=10**5)
    rng = np.random.default_rng(validate.integer("lemma_1_trials", "seed", seed, minimum=0))
    margins = []
    for _ in range(trials):
        m, k, p, q = rng.integers(1, 7, size=4)
        A = _low_rank(rng, m, k, int(rng.integers(0, min(m, k) + 1)))
        B = _low_rank(rng, p, q, int(rng.integers(0, min(p, q) + 1)))
        C = _low_rank(rng, m, q, int(rng.integers(0, min(m, q) + 1)))
        M = np.block([[A, C], [np.zeros((p, k)), B]])
        scale = max(np.abs(M).max(), 1.0)
        margins.append(_rank(M, scale) - _rank(A, scale) - _rank(B, scale))
    return {"trials": trials, "smallest_margin": int(min(margins)), "strict": int(sum(m > 0 for m in margins))}


def lemma_5_trials(trials: int = 200, seed: int = 0, slack: float = 0.999) -> dict:
    """Random A of random rank r, and two perturbations D with sigma_max(D) = ``slack`` times
    A's smallest non-zero singular value (just inside the lemma's condition): a random one, and
    the one aimed at A's weakest direction (``-slack * sigma_min * u v^T``), the hardest for the
    rank. Counts the trials where rank(A + D) >= rank(A) held for both (``kept``), and where
    the aimed perturbation at the edge (``slack = 1``) did lower the rank (``dropped_at_edge``:
    the condition cannot be relaxed)."""
    trials = validate.integer("lemma_5_trials", "trials", trials, minimum=1, maximum=10**5)
    validate.real("lemma_5_trials", "slack", slack, above=0.0, below=1.0)
    rng = np.random.default_rng(validate.integer("lemma_5_trials", "seed", seed, minimum=0))
    kept = dropped = 0
    for _ in range(trials):
        rows, cols = (int(v) for v in rng.integers(2, 8, size=2))
        r = int(rng.integers(1, min(rows, cols) + 1))
        A = _low_rank(rng, rows, cols, r)
        U, S, Vt = np.linalg.svd(A)
        smallest = S[r - 1]
        aimed = -np.outer(U[:, r - 1], Vt[r - 1])  # removes A's weakest singular value at scale 1
        noise = rng.standard_normal((rows, cols))
        noise /= np.linalg.norm(noise, 2)
        kept += _rank(A + slack * smallest * noise, S[0]) >= r and _rank(A + slack * smallest * aimed, S[0]) >= r
        dropped += _rank(A + smallest * aimed, S[0]) < r
    return {"trials": trials, "kept": int(kept), "dropped_at_edge": int(dropped)}
