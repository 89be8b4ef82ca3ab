"""Checks of the chapter ``02_rank_bounds``: Props. 2, 5 and 3, on float64 random draws and
counts (:mod:`lib.papers.mahdavi2024.analysis`); constructions, so no setup is compared."""
from __future__ import annotations

from .... import claims
from .. import construction as mem

__all__ = ["proposition_2", "proposition_5", "proposition_3"]


def _check(ref: str, label: str, statement: str, paper_value: str, ours: str, passed):
    return claims.check(paper="mahdavi2024", ref=ref, label=label, statement=statement, paper_value=paper_value,
                        ours=ours, passed=bool(passed))


def proposition_2(draws, n: int, H: int):
    """Prop. 2: with a shared context the largest rank of Z over the random draws
    (:func:`lib.papers.mahdavi2024.analysis.proposition_2_draws`) is exactly H(n-1)+1, and
    per-example contexts exceed it (the bound is the shared context's)."""
    cap = mem.rank_bound(H, n)
    shared = int(draws[draws.context == "shared"]["max rank Z"].max())
    per_example = int(draws[draws.context == "per-example"]["max rank Z"].max())
    count = int(draws[draws.context == "shared"]["draws"].sum())
    return _check("Proposition 2", "mem-tightness", "shared context: rank(Z) <= H(n-1)+1 for any weights (so Prop. 1 "
                  "is tight)", f"<= {cap}", f"max over {count} random draws {shared}; per-example contexts reach "
                  f"{per_example}", shared == cap and per_example > cap)


def proposition_5(found: dict):
    """Prop. 5: tokens of constant coordinate sum reach rank Z = H(d-1)+1 and no more over the
    draws, unconstrained tokens Hd (``found``: :func:`lib.papers.mahdavi2024.analysis.proposition_5_draws`)."""
    d, H = found["d"], found["H"]
    bound = H * (d - 1) + 1
    return _check("Proposition 5", "mem-tightness", "tokens with a constant coordinate sum: rank(Z) <= H(d-1)+1 for any "
                  "weights", f"<= {bound} (d={d}, H={H})", f"max {found['constant_sum']} over {found['draws']} draws "
                  f"(unconstrained: {found['free']})", found["constant_sum"] == bound and found["free"] == H * d)


def proposition_3(counts, built: dict, jacobian, d: int, n: int):
    """Prop. 3: at equal parameters the ReLU upper bound and Theorem 1's count are of the same
    order (their ratio varies by less than 1.2x over H and stays below 2.5; ``counts``:
    :func:`lib.papers.mahdavi2024.analysis.proposition_3_counts`); Theorem 1 is built on Appendix
    F's data (``built``, d_h = 16); the ReLU Jacobian rank stays within the bound on that data and
    exceeds it on general-position data (``jacobian``: :func:`~lib.papers.mahdavi2024.analysis.relu_jacobians`)."""
    ratio = counts["ReLU / attention"]
    same_order = bool(ratio.max() / ratio.min() < 1.2 and ratio.max() < 2.5)
    relu_side = bool((jacobian["rank, Appendix F data (max of 3)"] <= jacobian["Prop. 3 bound"]).all()
                     and (jacobian["rank, per-example contexts"] > jacobian["Prop. 3 bound"]).all())
    m = jacobian["hidden units m"]
    return _check("Proposition 3", "mem-relu",
                  "on Appendix F's data a 2-layer ReLU net with as many parameters memorizes O(Hn), the order "
                  "attention is guaranteed", "O(Hn) vs Omega(Hn)",
                  f"equal parameters (d={d}, n={n}): ReLU upper / attention lower = {ratio.min():.2f}-{ratio.max():.2f} "
                  f"for H={counts['H'].min()}..{counts['H'].max()}; Theorem 1 built on this data; ReLU Jacobian rank "
                  f"<= the bound for m = {m.min()}-{m.max()} (up to {jacobian['parameters'].max()} parameters), above it "
                  "on general-position data", same_order and relu_side and mem.theorem_1_holds(built, 16))

