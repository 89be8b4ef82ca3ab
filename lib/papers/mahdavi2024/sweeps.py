"""The training sweeps of Mahdavi et al. (2024), Figures 2-5, at three scales.

``SWEEPS[name].result()`` loads (or runs) one; ``python -m lib.papers.mahdavi2024 SCALE [NAME ...]``
runs them from the command line. Every point of a sweep with the same T, with all its seeds,
trains as one masked ensemble (:func:`lib.papers.mahdavi2024.training.run_group`). The paper
scale is the official ``reproduce.sh`` grid (d = 64, T up to 130k) on the official code's recipe
(data, initial weights, float32 sinusoidal table, shuffled epochs of 256, checkpoint rule) and
budget: 500 epochs and at least 50,000 updates (300,000 for Figures 2c and 3), so a config's
``steps`` is the minimum and ``epochs`` the rule (:func:`~.training.group_steps`); the smaller
scales count updates only and use our recipe, and
``fig2a_official``, ``fig2b_official`` and ``fig2c_official`` run Figure 2 on the official recipe
at their budget, for the comparison of issue 16.

At the paper's own d = 64, n = 32 on our recipe (sweeps added later; provenance hashes only what a
sweep's run function reaches, so adding them here left the results above fresh):

``fig3_d64``: Figure 3 (Appendix H) for H = 4 at T = 550 and H = 8 at T = 1300, the paper's two
runs, on our recipe (full batch, lr 1e-2) for 5,000 steps instead of the official recipe's
300,000, five seeds (three at the paper scale), without early stop. The paper scale trains the same recipe for 50,000 steps
(``fig3`` at the paper scale is these sizes on the official recipe), so the two scales tell
whether our recipe's saturation grows with the budget.

``fig2a_d64``, ``fig2a_d64_4k``, ``fig4_heads_d64``: Figures 2a and 4 against the number of heads.
At the default sizes (d = 16, n = 8) the per-example curves of Figure 4 saturate by H = 4, which
leaves the paper's "linear in H" untestable there. Here d_h = 64, with T = 2000 examples at the
default scale, taken from Figure 3's capacities at these sizes (T = 550 for H = 4, 1300 for H = 8)
so that H = 8 would not fit every example: ``fig2a_d64`` is Figure 2a's setting (Sec. 5.2: one
context shared by every example, 100 classes), ``fig2a_d64_4k`` the same at T = 4000 (added once
T = 2000 proved too small, see below), ``fig4_heads_d64`` Figure 4's heads panel (Appendix I.1:
per-example contexts, so every token is in general position; 100 classes). Our recipe: 2,000
full-batch steps (lr 1e-2) with early stop, five seeds at the default scale (two at the paper scale). T = 2000
proved too small: H = 8 fits every example with a shared context, and per-example contexts, which
memorize more, fit 99.7% with H = 4 already, which leaves three and two unsaturated points. The paper scale adds H = 6 and
trains 20,000 steps, at T = 4000 and 8000 with a shared context (16000 for ``fig2a_d64_4k``) and
at T = 8000 and 16000 with per-example contexts.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import partial

import numpy as np

from ... import scale as _scale
from ... import validate
from ...results import Result, Sweep
from . import comparison
from .training import run_group


def recipe(size: str) -> dict:
    """Model width, optimiser and budget at one scale (JSON-able; goes into each config)."""
    validate.choice("recipe", "size", size, _scale.SCALES)
    if size == "paper":  # the official code: d = 64, batch 256, lr 1e-3, 500 epochs and >= 50k (300k) updates
        return dict(dim=64, lr=1e-3, batch_size=256, steps=50_000, long_steps=300_000, epochs=500, eval_every=500,
                    seeds=[42, 43, 44], max_padding=0.25, recipe="official")
    if size == "smoke":
        return dict(dim=16, lr=1e-2, batch_size=None, steps=250, long_steps=400, eval_every=50, seeds=[0, 1])
    return dict(dim=16, lr=1e-2, batch_size=None, steps=2000, long_steps=3000, eval_every=100, seeds=[0, 1, 2, 3, 4])


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


# ----------------------------------------------------------------------------- the paper's d = 64, n = 32
def fig3_d64(size: str | None = None) -> tuple[dict, list[dict]]:
    """``(config, grid)`` of Figure 3 at the paper's d = 64, n = 32 on our recipe (see the module
    docstring); the smoke scale keeps the sizes and trains 100 steps on T = 40."""
    size = _scale.validate(size or _scale.current())
    r, smoke = recipe("default" if size == "paper" else size), size == "smoke"
    steps = {"smoke": 100, "default": 5000, "paper": 50_000}[size]
    config = dict(context="shared", labels="classes", early_stop=False, saturation=True, steps=steps,
                  **{k: v for k, v in r.items() if k not in ("steps", "long_steps")})
    # five seeds at the default scale; the paper scale keeps the three its queue's cost was measured with
    config.update(dim=64, seeds=r["seeds"][:5 if size == "default" else 3],
                  eval_every=500 if size == "paper" else r["eval_every"])
    points = [dict(T=40, H=4)] if smoke else [dict(T=550, H=4), dict(T=1300, H=8)]
    return config, [dict(p, n=32, d_h=64) for p in points]


def heads_d64(context: str, size: str | None = None, *, default_T: int = 2000,
              paper_T: list[int] | None = None, default_seeds: int = 5) -> tuple[dict, list[dict]]:
    """``(config, grid)`` of memorization against H at the paper's d = 64, n = 32 with a
    ``context`` ("shared": Figure 2a, "per_example": Figure 4) on our recipe (see the module
    docstring), at ``default_T`` examples (default scale) and ``paper_T`` (paper scale; see the
    module docstring when None), on the recipe's first ``default_seeds`` seeds at the default
    scale (two elsewhere: the paper scale's queue cost was measured so); the smoke scale keeps the
    sizes and trains H = 1, 2 on T = 40."""
    size = _scale.validate(size or _scale.current())
    r = recipe("default" if size == "paper" else size)

    def pick(smoke, default, paper):
        return _scale.pick(smoke=smoke, default=default, paper=paper, scale=size)

    config = dict(context=context, labels="classes", early_stop=True, steps=pick(250, 2000, 20_000),
                  **{k: v for k, v in r.items() if k not in ("steps", "long_steps")})
    # one ensemble per H (max_padding): padding H = 1 to the largest H would cost twice the work
    config.update(dim=64, seeds=r["seeds"][:pick(2, default_seeds, 2)], eval_every=pick(50, 100, 500),
                  max_padding=0.25)
    paper_Ts = paper_T or ([4000, 8000] if context == "shared" else [8000, 16_000])
    heads, Ts = pick(([1, 2], [40]), ([1, 2, 4, 8], [default_T]), ([1, 2, 4, 6, 8], paper_Ts))
    return config, [dict(T=T, H=H, n=32, d_h=64) for T in Ts for H in heads]


def fig2a_d64(size: str | None = None) -> tuple[dict, list[dict]]:
    """Figure 2a (shared context) against H at d = 64, n = 32: :func:`heads_d64`."""
    return heads_d64("shared", size)


def fig2a_d64_4k(size: str | None = None) -> tuple[dict, list[dict]]:
    """Figure 2a (shared context) against H at d = 64, n = 32 and T = 4000, where H = 8 no longer
    fits every example as it does at T = 2000: a second curve for the line (the paper scale
    extends it to T = 16,000)."""
    return heads_d64("shared", size, default_T=4000, paper_T=[16_000])


def fig4_heads_d64(size: str | None = None) -> tuple[dict, list[dict]]:
    """Figure 4 (per-example contexts) against H at d = 64, n = 32: :func:`heads_d64`."""
    return heads_d64("per_example", size)


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
SWEEPS.update({
    "fig3_d64": Sweep("mahdavi2024", "fig3_d64", fig3_d64, _run, group_by=("T",),
                      about="Fig. 3 at the paper's d = 64, n = 32 (H = 4, T = 550; H = 8, T = 1300), our recipe"),
    "fig2a_d64": Sweep("mahdavi2024", "fig2a_d64", fig2a_d64, _run, group_by=("T",),
                       about="Fig. 2a (shared context) vs H at the paper's d = 64, n = 32, T = 2000, our recipe"),
    "fig2a_d64_4k": Sweep("mahdavi2024", "fig2a_d64_4k", fig2a_d64_4k, _run, group_by=("T",),
                          about="Fig. 2a (shared context) vs H at the paper's d = 64, n = 32, T = 4000, our recipe"),
    "fig4_heads_d64": Sweep("mahdavi2024", "fig4_heads_d64", fig4_heads_d64, _run, group_by=("T",),
                            about="Fig. 4 (per-example contexts) vs H at the paper's d = 64, n = 32, T = 2000, "
                                  "our recipe"),
})


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
    validate.instance("points", "result", result, Result)
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
    validate.instance("series", "result", result, Result)
    validate.choice("series", "value", value, ("acc", "mse"))
    validate.instance("series", "x", x, str)
    validate.instance("series", "group", group, str)
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

    owner = "figure2_trends"
    for name, value in (("fig2a", fig2a), ("fig2b", fig2b), ("fig2c", fig2c)):
        validate.instance(owner, name, value, Result)
    validate.real(owner, "saturated", saturated, above=0.0, maximum=1.0)
    validate.real(owner, "tolerance", tolerance, minimum=0.0, maximum=1.0)
    validate.real(owner, "rise", rise, minimum=0.0, maximum=1.0)
    validate.real(owner, "flat", flat, minimum=0.0, maximum=1.0)
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
