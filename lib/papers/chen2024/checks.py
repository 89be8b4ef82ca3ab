"""The checks behind every claim the depth chapters record (Chen & Zou 2024), one function per claim.

Each takes the stored results (and, for a construction, the objects a chapter builds) and returns a
:class:`lib.claims.Check`: the verdict's inputs, the evidence (each result's name, scale, code
hash, commit and date) and, for a trained claim, the computed difference between the config the
result ran with and the paper's setup (:mod:`.setup`). A chapter records one with one line,
``record(checks.figure_2a(fig2))``; ``tests/test_chen2024_checks.py`` re-derives every committed
verdict from ``data/`` alone.
"""
from __future__ import annotations

from ... import claims
from . import setup
from .sweeps import curves, final


def _acc(result, task: str, arch, init: str = "paper"):
    return final(result, task, init, arch)


def _chance(result, task: str) -> float:
    """1/k for in-context QA (the answer is one of the k in context), 1/#templates for template matching."""
    t = setup.task_that_ran(result, task)
    return 1 / t.k if task == "reasoning" else 1 / t.n_classes


def _fig2(result, task: str, statement: str, paper_value: str, ours: str, passed: bool, irrelevant=None):
    s = setup.FIGURE_2[task]
    return claims.check(paper="chen2024", ref=s.ref, label="depth-fig2", statement=statement,
                        paper_value=paper_value, ours=ours, passed=passed, results=result, setup=s,
                        config=setup.ours(result, task), irrelevant=irrelevant)


def figure_2a(fig2):
    """Figure 2a: a 1-layer transformer memorizes the sequence-classification set (every seed >= 0.99)."""
    acc = _acc(fig2, "memorization", [1])
    return _fig2(fig2, "memorization", "a 1-layer transformer memorizes the sequence-classification set",
                 "~100% (read from the figure)", f"{acc.mean():.3f} (1 layer, {fig2.scale} scale)",
                 bool(acc.min() >= 0.99))


def figure_2b(fig2):
    """Figure 2b: 1 layer stays at 1/k on in-context QA (every seed < 1/k + 0.05), 2 layers learn it (>= 0.99)."""
    one, two, chance = _acc(fig2, "reasoning", [1]), _acc(fig2, "reasoning", [1, 1]), _chance(fig2, "reasoning")
    return _fig2(fig2, "reasoning", "1 layer fails at in-context QA, 2 layers learn it",
                 "1 layer ~ guess, 2 layers ~100%",
                 f"1 layer {one.mean():.2f} (1/k={chance:.2f}), 2 layers {two.mean():.2f}",
                 bool(one.max() < chance + 0.05 and two.min() >= 0.99))


def figure_2c(fig2):
    """Figure 2c: 1 layer at chance on template matching (every seed < chance + 0.05), 2 layers learn it."""
    one, two = _acc(fig2, "generalization", [1]), _acc(fig2, "generalization", [1, 1])
    chance = _chance(fig2, "generalization")
    return _fig2(fig2, "generalization", "1 layer fails at template matching, 2 layers learn it",
                 "1 layer ~ guess, 2 layers ~100%",
                 f"1 layer {one.mean():.2f} (chance {chance:.2f}), 2 layers {two.mean():.2f}",
                 bool(one.max() < chance + 0.05 and two.min() >= 0.99))


def figure_2d(fig2):
    """Figure 2d: 1 and 2 layers fail at in-context template matching (every seed < 0.6), 3 layers
    learn it (>= 0.95). The smoke run trains no 2-layer model, so its check is 1 vs 3 layers."""
    archs = curves(fig2, task="contextual", init="paper")
    depth = {len(a): _acc(fig2, "contextual", a) for a in archs}
    passed = depth[1].max() < 0.6 and depth[3].min() >= 0.95 and (2 not in depth or depth[2].max() < 0.6)
    return _fig2(fig2, "contextual", "1 and 2 layers fail at in-context template matching, 3 layers learn it",
                 "1-2 layers ~ guess, 3 layers ~100%",
                 ", ".join(f"{n} layers {a.mean():.2f}" for n, a in sorted(depth.items())), bool(passed),
                 irrelevant={"layers compared": "the 4-layer model is extra; the check reads 1, 2 and 3 layers"})


FIGURE_2 = (figure_2a, figure_2b, figure_2c, figure_2d)
