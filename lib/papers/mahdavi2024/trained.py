"""Readings of the stored training sweeps (Figures 3-5 and the d = 64 runs of Mahdavi et al. 2024)
that the training chapters show and their checks (:mod:`lib.papers.mahdavi2024.checks.training`)
assert, computed from ``data/`` alone; Figure 2's are in :mod:`lib.papers.mahdavi2024.readings`.
Nothing here is imported by the sweeps or the training code.

``results`` is always the mapping of sweep name to stored :class:`lib.results.Result` that a
chapter loads (``{name: s.result() for name, s in paper_sweeps("mahdavi2024").items()}``).
"""
from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from ... import validate
from ...results import Result
from . import readings, sweeps
from .construction import rank_bound

#: a curve's points at or above this mean accuracy are left out of its line (as in Figure 2a)
SATURATED = 0.95
#: a regression run whose training MSE is below this fraction of the label variance has fitted
#: its labels (Figures 4-5: the order of runs below it is float noise, which a log scale magnifies)
FITTED = 1e-4


def _results(owner: str, results, names: tuple[str, ...]) -> dict:
    """A dict of stored results holding each of ``names``."""
    validate.instance(owner, "results", results, Mapping)
    missing = [n for n in names if n not in results]
    if missing:
        validate.fail(owner, "results", f"a dict of stored results with {', '.join(map(repr, names))}", sorted(results))
    for n in names:
        validate.instance(owner, f"results[{n!r}]", results[n], Result)
    return results


# ----------------------------------------------------------------------------- Figure 3
#: the column of :func:`saturation_rows` that the checks read fitting from (saturation is measured on the first seed)
FIRST_ACCURACY = "first seed's accuracy"


def saturation_rows(points, first_seed: bool = False) -> list[dict]:
    """Appendix H's measurements of trained points (:func:`~lib.papers.mahdavi2024.sweeps.points`
    of a saturation sweep): per point its accuracy, the share of saturated (head, example) pairs,
    the share of examples with a non-saturated head and the median largest coefficient (of the
    first seed, on which the sweep measures saturation)."""
    if not isinstance(points, (list, tuple)):
        validate.fail("saturation_rows", "points", "a list of trained points (sweeps.points)", points,
                      validate.ArgumentTypeError)
    validate.boolean("saturation_rows", "first_seed", first_seed)
    rows = []
    for m in points:
        H, T = m.point["H"], m.point["T"]
        row = {"H": H, "T": T, "H(n-1)+1": rank_bound(H, m.point["n"]), "train accuracy": float(np.mean(m.acc)),
               "seeds fitted": f"{int((m.acc == 1.0).sum())}/{len(m.acc)}", FIRST_ACCURACY: float(m.acc[0]),
               "saturated (head, example) pairs": m.saturation["saturated_fraction"],
               "examples with a non-saturated head": m.saturation["examples_with_free_head"],
               "median largest coefficient": float(np.median(m.max_coefficient))}
        rows.append(row)
    return rows


def largest_fitted(fig3) -> dict:
    """Per H of the ``fig3`` ladder, the point with the largest T that every seed fits (None if
    none does): where Appendix H measures saturation."""
    validate.instance("largest_fitted", "fig3", fig3, Result)
    heads = sorted({m.point["H"] for m in sweeps.points(fig3)})
    return {H: max((m for m in sweeps.points(fig3, H=H) if (m.acc == 1.0).all()), key=lambda m: m.point["T"],
                   default=None) for H in heads}


# ----------------------------------------------------------------------------- Figure 4
def figure_4_reading(results) -> dict:
    """Figure 4 at the default sizes: per-example accuracy beside the shared context's where the
    two grids share (T, H); n = 1's accuracy; whether per-example >= shared - 0.02 everywhere,
    n = 1 above 0.1 and the H curves never fall by more than 0.03 (``more``); the unsaturated
    points per curve, the lines (:func:`~lib.papers.mahdavi2024.readings.heads_fits`) and whether
    they are linear (R^2 >= 0.98, rising); whether the regression MSE never rises with H or n
    (1e-4 of float noise)."""
    import pandas as pd

    _results("figure_4_reading", results, ("fig4_heads", "fig2a", "fig4_context", "fig4_reg_heads", "fig4_reg_context"))
    compare = []
    for m in sweeps.points(results["fig4_heads"]):
        for shared in sweeps.points(results["fig2a"], **m.point):
            compare.append({**m.point, "shared": np.mean(shared.acc), "per-example": float(np.mean(m.acc))})
    compare = pd.DataFrame(compare, columns=["T", "n", "d_h", "H", "shared", "per-example"])
    n1 = [float(np.mean(m.acc)) for m in sweeps.points(results["fig4_context"], n=1)]
    _, acc_h = sweeps.series(results["fig4_heads"], "H", "acc")
    more = bool((compare["per-example"] >= compare["shared"] - 0.02).all() and min(n1) > 0.1
                and all(np.all(np.diff(a.mean(1)) >= -0.03) for a in acc_h.values()))
    fits = readings.heads_fits(results["fig4_heads"], saturated=SATURATED)
    reg = {key: sweeps.series(results[name], key, "mse")[1] for name, key in
           (("fig4_reg_heads", "H"), ("fig4_reg_context", "n"))}
    return {"compare": compare, "n1": n1, "more": more, "fits": fits,
            "unsaturated": {g: int((a.mean(1) < SATURATED).sum()) for g, a in acc_h.items()},
            "linear": len(fits) == len(acc_h) and all(f["r2"] >= 0.98 and f["slope"] > 0 for f in fits.values()),
            "regression": reg,
            "reg_falls": all(np.all(np.diff(a.mean(1)) <= 1e-4) for curves in reg.values() for a in curves.values())}


# ----------------------------------------------------------------------------- d = 64, against H
D64 = {"shared (Fig. 2a)": ("fig2a_d64", "fig2a_d64_4k"), "per-example (Fig. 4)": ("fig4_heads_d64",)}


def merged_series(rs):
    """One context's H values and accuracy per seed by T (``{"T=...": (H, seeds)}``) over its sweeps."""
    if not isinstance(rs, (list, tuple)) or len(rs) == 0:
        validate.fail("merged_series", "rs", "a non-empty list of stored results", rs)
    for i, r in enumerate(rs):
        validate.instance("merged_series", f"rs[{i}]", r, Result)
    hs, acc_by_T = None, {}
    for r in rs:
        hs_r, acc = sweeps.series(r, "H", "acc")
        if hs is not None and hs_r != hs:
            raise ValueError(f"{r.name}: H grid {hs_r} differs from {hs}")
        hs = hs_r
        acc_by_T.update(acc)
    return hs, acc_by_T


def heads_d64_reading(results) -> dict:
    """Figures 2a and 4 against H at d = 64, n = 32 (:data:`D64`): per context its series and
    lines; per-example >= shared - 0.02 at every common (T, H) (``general_more``) and the ratio of
    their counts; per context whether every line is linear (R^2 >= 0.98, rising, best of three),
    rising (R^2 >= 0.9) or untested (no curve with 3 unsaturated points); the shared context's
    gains per head and whether they rise (a count growing faster than linearly); whether the
    largest H fits each T."""
    _results("heads_d64_reading", results, tuple(k for keys in D64.values() for k in keys))
    d64 = {name: [results[k] for k in keys] for name, keys in D64.items()}
    shared, general = D64
    series = {name: merged_series(rs) for name, rs in d64.items()}
    fits = {name: {g: f for r in rs for g, f in readings.heads_fits(r, saturated=SATURATED).items()}
            for name, rs in d64.items()}
    mean_at = {name: {(readings.group_T(g), h): float(v) for g, a in acc_by_T.items() for h, v in zip(hs, a.mean(1))}
               for name, (hs, acc_by_T) in series.items()}
    common = sorted(set(mean_at[shared]) & set(mean_at[general]))
    hs_shared, acc_shared = series[shared]
    gains = {}
    for g, a in acc_shared.items():
        keep = a.mean(1) < SATURATED
        gains[g] = np.diff(readings.group_T(g) * a.mean(1)[keep]) / np.diff(np.array(hs_shared)[keep])
    return {
        "results": d64, "series": series, "fits": fits, "shared": shared, "general": general,
        "general_more": bool(common) and all(mean_at[general][k] >= mean_at[shared][k] - 0.02 for k in common),
        "count_ratio": {f"T={T}, H={H}": mean_at[general][(T, H)] / max(mean_at[shared][(T, H)], 1e-9)
                        for T, H in common},
        "untested": {name: not f for name, f in fits.items()},
        "linear": {name: bool(f) and all(x["slope"] > 0 and x["r2"] >= 0.98 and x["linear_best"] for x in f.values())
                   for name, f in fits.items()},
        "rising": {name: bool(f) and all(x["slope"] > 0 and x["r2"] >= 0.9 for x in f.values())
                   for name, f in fits.items()},
        "gains": gains,
        "faster_than_linear": bool(gains) and all(len(v) >= 2 and np.all(np.diff(v) > 0) for v in gains.values()),
        "largest_h_fits": {name: {g: bool(a.mean(1)[-1] >= SATURATED) for g, a in acc_by_T.items()}
                           for name, (hs, acc_by_T) in series.items()},
    }


# ----------------------------------------------------------------------------- Figure 5
def figure_5_reading(results) -> dict:
    """Figure 5: the median seed's training MSE (an MSE below 1e-4 of the label variance counts
    as fitted, at that floor) along H and along n (from n = 2: n = 1 gives a constant output);
    whether it never rises by more than 10^0.3 between neighbours (``decreasing``), the drop from
    the smallest value to the largest, and whether some run learned (MSE below half the label
    variance)."""
    _results("figure_5_reading", results, ("fig5_heads", "fig5_context"))
    label_var = sweeps.points(results["fig5_heads"])[0].label_var
    floor = FITTED * label_var
    drop, decreasing, medians = {}, True, {}
    for name, key in (("fig5_heads", "H"), ("fig5_context", "n")):
        xs, per_seed = sweeps.series(results[name], key, "mse")
        median = {g: np.median(np.maximum(a, floor), axis=1) for g, a in per_seed.items()}
        medians[key] = median
        decreasing &= all(np.all(np.diff(np.log10(m)) <= 0.3) for m in median.values())
        start = readings.first_informative_n(xs) if key == "n" else 0
        drop.update({f"{key} from {xs[start]}, {g}": m[start] / m[-1] for g, m in median.items()})
    learned = min(m.mse.min() for m in sweeps.points(results["fig5_heads"])) < label_var / 2
    return {"medians": medians, "drop": drop, "decreasing": bool(decreasing), "learned": bool(learned)}


def log_relative_mse(result: Result, x: str) -> tuple[list, dict]:
    """Figures 4-5's regression read seed by seed: against coordinate ``x``, per T, log10 of each
    seed's training MSE as a fraction of its point's label variance, floored at ``log10(FITTED)``
    (:data:`FITTED`); ``(xs, {"T=...": array (len(xs), seeds)})`` as
    :func:`~lib.papers.mahdavi2024.sweeps.series`."""
    validate.instance("log_relative_mse", "result", result, Result)
    xs, mse = sweeps.series(result, x, "mse")
    var = {(m.point["T"], m.point[x]): m.label_var for m in sweeps.points(result)}
    return xs, {g: np.log10(np.maximum(a / np.array([[var[readings.group_T(g), v]] for v in xs]), FITTED))
                for g, a in mse.items()}
