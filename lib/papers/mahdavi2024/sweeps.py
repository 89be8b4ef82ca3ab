"""The training sweeps of Mahdavi et al. (2024), Figures 2-5, at three scales.

``SWEEPS[name].result()`` loads (or runs) one; ``python -m lib.papers.mahdavi2024 SCALE [NAME ...]``
runs them from the command line. Every point of a sweep with the same T, with all its seeds,
trains as one masked ensemble (:func:`lib.papers.mahdavi2024.training.run_group`). The paper
scale is the official ``reproduce.sh`` grid (d = 64, T up to 130k, 50k-300k steps) on the
official code's recipe (data, initial weights, checkpoint rule); the smaller scales use ours, and
``fig2a_official``, ``fig2b_official`` and ``fig2c_official`` run Figure 2 on the official recipe
at their budget, for the comparison of issue 16.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import partial

import numpy as np

from ... import scale as _scale
from ...results import Result, Sweep
from . import comparison
from .training import run_group


def recipe(size: str) -> dict:
    """Model width, optimiser and budget at one scale (JSON-able; goes into each config)."""
    if size == "paper":  # the official code: d = 64, batch 256, lr 1e-3, >= 50k steps
        return dict(dim=64, lr=1e-3, batch_size=256, steps=50_000, long_steps=300_000, eval_every=500,
                    seeds=[42, 43, 44], max_padding=0.25, recipe="official")
    if size == "smoke":
        return dict(dim=16, lr=1e-2, batch_size=None, steps=250, long_steps=400, eval_every=50, seeds=[0, 1])
    return dict(dim=16, lr=1e-2, batch_size=None, steps=2000, long_steps=3000, eval_every=100, seeds=[0, 1, 2, 3])


def sweep(name: str, size: str | None = None) -> tuple[dict, list[dict]]:
    """``(config, grid)`` of one experiment at one scale (default: the current scale).

    Names: ``fig2a`` (heads H), ``fig2b`` (context size n), ``fig2c`` (head size d_h) with
    shared contexts and 100 classes; ``fig4_heads``/``fig4_context`` (per-example contexts,
    classes), ``fig4_reg_heads``/``fig4_reg_context`` (per-example contexts, regression);
    ``fig5_heads``/``fig5_context`` (shared contexts, regression); ``fig3`` (saturation).
    Paper sizes are the official ``reproduce.sh`` grids. A name ending in ``_official`` is that
    experiment on the official code's recipe (``recipe="official"``, the paper scale's anyway).
    """
    size = _scale.validate(size or _scale.current())
    if name.endswith("_official"):
        config, grid = sweep(name[:-len("_official")], size)
        return dict(config, recipe="official"), grid
    r = recipe(size)
    paper, smoke = size == "paper", size == "smoke"
    heads = [1, 5, 10, 20, 30, 40, 50, 60] if paper else ([1, 2, 3, 4] if smoke else [1, 2, 4, 6, 8])
    ctx = [1, 5, 10, 20, 30, 40, 50, 60] if paper else ([1, 2, 4] if smoke else [1, 2, 4, 8, 12])
    n_fix, h_fix = (32, 20) if paper else ((4, 2) if smoke else (8, 4))
    dh_fix = 64 if paper else r["dim"]
    base = dict(context="shared", labels="classes", early_stop=True, steps=r["steps"], **{
        k: v for k, v in r.items() if k not in ("steps", "long_steps")})

    def grid(Ts, key, values, **fixed):
        return [dict(T=T, **fixed, **{key: v}) for T in Ts for v in values]

    def pick(smoke_, default_, paper_):
        return paper_ if paper else (smoke_ if smoke else default_)

    if name == "fig2a":  # every H up to 6 at the default scale: 4-5 unsaturated points per curve for the fit
        heads_2a = heads if paper or smoke else [1, 2, 3, 4, 5, 6, 8]
        return base, grid(pick([80], [200, 400], [10_000, 20_000, 30_000, 40_000]), "H", heads_2a, n=n_fix,
                          d_h=dh_fix)
    if name == "fig2b":
        return base, grid(pick([60], [200, 400], [6000, 10_000, 14_000, 18_000]), "n", ctx, H=h_fix, d_h=dh_fix)
    if name == "fig2c":
        dhs = list(range(10, 61, 5)) + [64] if paper else ([1, 2, 4, 8] if smoke else [1, 2, 4, 8, 12, 16])
        cfg = dict(base, steps=r["long_steps"])
        return cfg, grid(pick([60], [200], [10_000, 15_000, 20_000]), "d_h", dhs, H=30 if paper else h_fix,
                         n=n_fix)
    if name == "fig3":
        cfg = dict(base, steps=pick(800, 5000, 300_000), early_stop=False, saturation=True)
        # Appendix H measures at the largest T each H memorizes perfectly: the paper's (H=4, T=550)
        # and (H=8, T=1300) at its sizes; below them a ladder of T per H, from which the chapter
        # takes the largest T that every seed fits
        ladder = [dict(T=T, H=4) for T in (120, 160, 200, 240)] + [dict(T=T, H=8) for T in (250, 330, 410, 490)]
        points = pick([dict(T=30, H=4), dict(T=60, H=4)], ladder, [dict(T=550, H=4), dict(T=1300, H=8)])
        return cfg, [dict(p, n=n_fix, d_h=dh_fix) for p in points]
    if name in ("fig4_heads", "fig4_context"):
        cfg = dict(base, context="per_example")
        if name == "fig4_heads":
            return cfg, grid(pick([80], [200, 400], [30_000, 50_000, 70_000, 90_000, 110_000, 130_000]), "H",
                             heads, n=n_fix, d_h=dh_fix)
        return cfg, grid(pick([60], [200, 400], [20_000, 30_000, 40_000, 50_000, 60_000]), "n", ctx, H=h_fix,
                         d_h=dh_fix)
    if name in ("fig4_reg_heads", "fig4_reg_context", "fig5_heads", "fig5_context"):
        cfg = dict(base, labels="reals", early_stop=False, steps=r["long_steps"],
                   context="per_example" if name.startswith("fig4") else "shared")
        if name.startswith("fig4"):
            Ts = pick([40], [100, 200], [10_000, 30_000, 50_000, 70_000, 90_000])
        else:
            Ts = pick([40], [50, 100], [10_000, 15_000, 20_000, 25_000, 30_000] if name == "fig5_heads"
                      else [10_000, 15_000, 20_000, 25_000])
        if name.endswith("heads"):
            return cfg, grid(Ts, "H", heads, n=n_fix, d_h=dh_fix)
        return cfg, grid(Ts, "n", ctx, H=h_fix, d_h=dh_fix)
    raise ValueError(f"sweep: unknown experiment {name!r}")


def _run(config: dict, points: list[dict], *, scale: str, device=None, stop_after=None) -> list[dict]:
    return run_group(config, points, device=device)


_ABOUT = {
    "fig2a": "Fig. 2a: memorization vs heads H (shared context, 100 classes)",
    "fig2b": "Fig. 2b: memorization vs context size n",
    "fig2c": "Fig. 2c: memorization vs head size d_h",
    "fig3": "Fig. 3: saturation of trained heads (no early stop), on a ladder of T per H",
    "fig4_heads": "Fig. 4: per-example contexts, classes, vs H",
    "fig4_context": "Fig. 4: per-example contexts, classes, vs n",
    "fig4_reg_heads": "Fig. 4: per-example contexts, regression, vs H",
    "fig4_reg_context": "Fig. 4: per-example contexts, regression, vs n",
    "fig5_heads": "Fig. 5: regression (shared context) vs H",
    "fig5_context": "Fig. 5: regression (shared context) vs n",
}
_ABOUT.update({f"{key}_official": f"{_ABOUT[key]}, on the official code's recipe" for key in ("fig2a", "fig2b", "fig2c")})
SWEEPS: dict[str, Sweep] = {
    key: Sweep("mahdavi2024", key, partial(sweep, key), _run, group_by=("T",), about=about)
    for key, about in _ABOUT.items()
}
SWEEPS["official_vs_ours"] = Sweep(
    "mahdavi2024", "official_vs_ours", comparison.comparison, comparison.run_comparison, group_by=("H",), heavy=False,
    about="issue 16: the official recipe and ours, one ingredient swapped at a time (d=16, n=8, T=200)")


def result(name: str, scale: str | None = None, *, device=None):
    """Sweep ``name`` at ``scale`` (default: the current one), loaded or run (see :class:`Sweep`)."""
    return SWEEPS[name].result(scale, device=device)


# ----------------------------------------------------------------------------- accessors
@dataclass(frozen=True)
class Memorized:
    """One grid point of a memorization sweep: its coordinates and what each seed fitted."""

    point: dict
    seeds: list[int]
    acc: np.ndarray | None  # final training accuracy per seed (classes)
    mse: np.ndarray | None  # final training MSE per seed (regression)
    label_var: float | None  # variance of the real labels (regression)
    saturation: dict | None  # Figure 3 only: see training.saturation_stats

    @property
    def max_coefficient(self) -> np.ndarray:
        """Figure 3: the query's largest softmax coefficient per (example, head) of the first seed."""
        return np.array(self.saturation["max_coefficient"])


def points(result: Result, **fixed) -> list[Memorized]:
    """The points of a memorization sweep (those with the coordinates ``fixed``), in grid order."""
    out = []
    for p in result.points:
        if all(p["point"].get(k) == v for k, v in fixed.items()):
            r = p["result"]
            saturation = {k: r[k] for k in ("max_coefficient", "saturated_fraction", "examples_with_free_head",
                                            "saturated_heads_hist") if k in r} or None
            out.append(Memorized(p["point"], r["seeds"], np.array(r["acc"]) if "acc" in r else None,
                                 np.array(r["mse"]) if "mse" in r else None, r.get("label_var"), saturation))
    return out


def series(result: Result, x: str, value: str, group: str = "T", **fixed):
    """``value`` ("acc" or "mse") per seed against coordinate ``x``: the sorted values of ``x``
    and, per value of ``group``, an array ``(len(xs), seeds)`` (for :func:`lib.plots.sweep`).
    ``fixed`` keeps only points with those coordinates."""
    chosen = points(result, **fixed)
    xs = sorted({m.point[x] for m in chosen})
    out = {}
    for g in sorted({m.point[group] for m in chosen}):
        rows = {m.point[x]: getattr(m, value) for m in chosen if m.point[group] == g}
        out[f"{group}={g}"] = np.array([rows[v] for v in xs], dtype=float)
    return xs, out


def figure2_trends(fig2a: Result, fig2b: Result, fig2c: Result, *, saturated: float = 0.95,
                   tolerance: float = 0.03, rise: float = 0.1, flat: float = 0.05) -> dict:
    """The paper's three readings of Figure 2, measured on one recipe's three sweeps.

    * ``fits``: per T of Fig. 2a, the least-squares line through the memorized count
      (T x mean accuracy over seeds) against H on the points below ``saturated`` accuracy (when
      at least 3 are), with its R^2 (:func:`~lib.papers.mahdavi2024.training.linear_fit`);
    * ``monotone_n`` (every T's seed means never fall by more than ``tolerance`` as n grows) and
      ``rises_n`` (each rises by ``rise`` from the smallest n to the largest), with ``means_n``;
    * ``rises_d`` (the mean at d_h = n is ``rise`` above the smallest d_h) and ``flat_after``
      (every d_h > n within ``flat`` of d_h = n), with ``at_d`` (mean by d_h) and ``n``.
    """
    from .training import linear_fit

    xs, acc = series(fig2a, "H", "acc")
    fits = {}
    for group, arr in acc.items():
        mean = arr.mean(1)
        keep = mean < saturated
        if keep.sum() >= 3:
            T = int(group.split("=")[1])
            fits[group] = {"points": int(keep.sum()), **linear_fit(np.array(xs)[keep], T * mean[keep])}
    _, acc_n = series(fig2b, "n", "acc")
    means_n = {g: a.mean(1) for g, a in acc_n.items()}
    xs_d, acc_d = series(fig2c, "d_h", "acc")
    n = fig2c.grid[0]["n"]
    at_d = dict(zip(xs_d, next(iter(acc_d.values())).mean(1)))
    below = [v for v in xs_d if v <= n]
    return {"fits": fits, "means_n": means_n,
            "monotone_n": all(bool(np.all(np.diff(m) >= -tolerance)) for m in means_n.values()),
            "rises_n": all(bool(m[-1] >= m[0] + rise) for m in means_n.values()),
            "at_d": at_d, "n": n, "rises_d": bool(at_d[below[-1]] >= at_d[below[0]] + rise),
            "flat_after": all(abs(at_d[v] - at_d[below[-1]]) <= flat for v in xs_d if v > n)}
