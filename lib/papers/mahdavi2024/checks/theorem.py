"""Checks of the chapter ``01_theorem_1``: Theorem 1 built, Prop. 1, Remark 1, Lemmas 1 and 3-5,
Claims 1-2, and the course's finding about Sec. 5.1's randomized Kruskal test. Every input is a
float64 construction (:mod:`lib.papers.mahdavi2024.analysis`), so no setup is compared: each check
holds on the instance it is given, and rounding-noise errors are reported as
:func:`lib.claims.below`."""
from __future__ import annotations

import numpy as np

from .... import claims
from .. import construction as mem
from .. import kruskal

__all__ = ["kruskal_test", "theorem_1", "proposition_1", "theorem_1_variants", "remark_1", "lemmas_3_4",
           "claims_1_2", "lemmas_1_5"]


def _check(ref: str, label: str, statement: str, paper_value: str, ours: str, passed, paper: str = "mahdavi2024"):
    return claims.check(paper=paper, ref=ref, label=label, statement=statement, paper_value=paper_value, ours=ours,
                        passed=bool(passed))


def kruskal_test(planted: dict):
    """Sec. 5.1's randomized Kruskal test (the course's finding): with one planted dependency the
    exact Kruskal rank is 2, yet the 99% rule (:data:`~lib.papers.mahdavi2024.kruskal.PASS_RULE`)
    declares k = 3. ``planted``: :func:`lib.papers.mahdavi2024.analysis.planted_dependency`."""
    rates, exact = planted["rates"], planted["exact_after"]
    fooled = rates[3] >= kruskal.PASS_RULE
    return _check("Sec. 5.1 (Kruskal-rank test)", "mem-assumptions",
                  "the randomized Kruskal test (99% of 5000 draws) is a heuristic that can overestimate",
                  "used as the test", f"planted dependency: exact rank {exact}, test passes k=3 in {rates[3]:.1%} of "
                  "draws", fooled and exact == 2, paper="course")


def theorem_1(report: dict, d: int, n: int, H: int):
    """Theorem 1: the construction at d, n, H (``report`` from
    :func:`~lib.papers.mahdavi2024.construction.check_theorem_1`) passes
    :func:`~lib.papers.mahdavi2024.construction.theorem_1_holds` (rank Z = T = H(r-1)+1, every
    label within 1e-6, rank W_K W_Q^T <= d_h, saturation as the proof says)."""
    return _check("Theorem 1", "mem-thm-1",
                  "one H-head layer memorizes any labels of T = H(min(n,d_h)-1)+1 examples under Asm. 1-2",
                  "exists (proof)", f"built: T={report['T']} at d={d}, n={n}, H={H}, max error "
                  f"{claims.below(report['max |y_hat - y|'])}, rank Z = {report['rank Z']}",
                  mem.theorem_1_holds(report, d))


def proposition_1(growth: list[int], n: int, d: int):
    """Prop. 1: the rank of Z on the first h heads and their examples is H(r-1)+1 for every h
    (each head adds r - 1); ``growth``: :func:`lib.papers.mahdavi2024.analysis.rank_growth`."""
    H = len(growth)
    return _check("Proposition 1", "mem-thm-1",
                  "key/query weights with rank(Z) >= H(r-1)+1: each added head adds r-1 to the rank",
                  "rank grows by r-1 per head", f"ranks {growth[0]}, {growth[1]}, ..., {growth[-1]} for h = 1..{H} "
                  f"(d={d}, n={n})", growth == [mem.rank_bound(h + 1, n) for h in range(H)])


def theorem_1_variants(variants: dict, cases: dict):
    """Theorem 1 (variants) and Remark 2: every variant of
    :func:`lib.papers.mahdavi2024.analysis.variant_cases` passes ``theorem_1_holds``."""
    ok = {name: mem.theorem_1_holds(variants[name], cases[name][2]) for name in cases}
    largest = max(v["max |y_hat - y|"] for v in variants.values())
    return _check("Theorem 1 (variants), Remark 2", "mem-thm-1",
                  "the construction for d_h < n, per-example contexts, d_out > 1, the skip connection "
                  "(App. C), Prop. 3's data, and (default scale) at d=128, n=64, H=12",
                  "exists (proof)", f"{sum(ok.values())}/{len(ok)} variants exact (max error {claims.below(largest)})",
                  all(ok.values()))


def remark_1(case: dict):
    """Remark 1: queries of Kruskal rank Q < n are memorized with d_h = Q
    (``theorem_1_holds``), and with d_h = n the construction's rank Z falls below T (the Kruskal
    rank binds); ``case``: :func:`lib.papers.mahdavi2024.analysis.remark_1_case`."""
    built, unlimited, Q = case["built"], case["unlimited"], case["Q"]
    return _check("Remark 1", "mem-thm-1", "queries of Kruskal rank Q < n: T = H(min(Q,d_h)-1)+1 still memorized",
                  "exists (proof)", f"built with Q=d_h={Q}, n={case['n']}, H={case['H']}: T={built['T']}; with "
                  f"d_h=n the construction reaches rank Z {unlimited['rank Z']} < T (the Kruskal rank binds)",
                  mem.theorem_1_holds(built, Q) and unlimited["rank Z"] < unlimited["T"])


def lemmas_3_4(path: dict):
    """Lemmas 3-4 on one head (``path``: :func:`lib.papers.mahdavi2024.analysis.saturation_path`):
    W+ has rank 1, vanishes on the head's own group (|logits| < 1e-8) with distinct logits on
    the earlier examples; the distance to one-hot never rises with c (1e-15) and is below 1e-12
    at the c used; the own group's softmax moves by less than 1e-8."""
    logits = path["plus_logits"]
    top = np.sort(logits[path["earlier"]], 1)
    distance, drift = path["distance"], path["own_drift"]
    ok = (np.linalg.matrix_rank(path["W_plus"]) == 1 and np.abs(logits[path["own"]]).max() < 1e-8
          and np.min(np.diff(top, axis=1)) > 0 and np.all(np.diff(distance) <= 1e-15)
          and distance[-1] < 1e-12 and drift.max() < 1e-8)
    return _check("Lemmas 3-4", "mem-lemmas",
                  "a rank-one W+ vanishing on a head's group saturates the softmax of all other examples",
                  "limit c -> infinity", f"distance to one-hot {distance[0]:.2g} -> {claims.below(distance[-1])} "
                  f"as c grows 1000x; own group unchanged (drift {claims.below(drift.max())})", ok)


def claims_1_2(found: dict):
    """Claims 1-2 (``found``: :func:`lib.papers.mahdavi2024.analysis.claims_1_2`): the chosen
    coefficients of r = n examples are reproduced within 1e-10; the later head sets its min(n, d)
    - 1 examples within 1e-8 and keeps the earlier ones within delta < 1e-12 (L1) of one-hot."""
    n, d = found["n"], found["d"]
    ok = (found["claim_1_error"] < 1e-10 and found["own"] == min(n, d) - 1 and found["own_exact"] < 1e-8
          and found["delta"] < 1e-12)
    return _check("Claims 1-2", "mem-claims-12",
                  "one head gives any chosen softmax coefficients to r examples; a later head sets r-1 new "
                  "examples exactly and keeps the earlier ones within delta of one-hot",
                  "exact (proof)", f"r=n={n}: chosen coefficients to {claims.below(found['claim_1_error'])}; head 2: "
                  f"{found['own']} examples to {claims.below(found['own_exact'])}, earlier within "
                  f"{claims.below(found['delta'])} (d={d})", ok)


def lemmas_1_5(lemma_1: dict, lemma_5: dict):
    """Lemma 1 (no random block upper-triangular matrix has rank below the sum of its diagonal
    blocks') and Lemma 5 (every perturbation inside the condition keeps the rank, every one at
    its edge drops it); from :mod:`lib.papers.mahdavi2024.lemmas`."""
    ok = (lemma_1["smallest_margin"] >= 0 and lemma_5["kept"] == lemma_5["trials"]
          and lemma_5["dropped_at_edge"] == lemma_5["trials"])
    return _check("Lemma 1, Lemma 5", "mem-lemmas-15",
                  "rank of a block upper-triangular matrix >= sum of its diagonal blocks' ranks; a perturbation "
                  "smaller than the least non-zero singular value cannot lower the rank",
                  "exact (proof)", f"{lemma_1['trials']} random block matrices, margin >= {lemma_1['smallest_margin']}; "
                  f"{lemma_5['kept']}/{lemma_5['trials']} perturbations kept the rank, "
                  f"{lemma_5['dropped_at_edge']}/{lemma_5['trials']} dropped it at the edge", ok)
