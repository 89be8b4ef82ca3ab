"""Checks of the training chapters (``04_training``: the official recipe and Figure 2;
``05_saturation_and_general_position``: Figures 3-5 and the d = 64 runs), from the stored sweeps
alone. ``results`` is the chapter's mapping of sweep name to :class:`lib.results.Result`. Each
trained claim is compared with the paper's setup (:mod:`lib.papers.mahdavi2024.setup`), so a
passing check on a run that differs from it (a smaller width, another budget, full-batch steps)
is *substituted*, with the fields named."""
from __future__ import annotations

import numpy as np

from .... import claims
from .. import comparison as compare
from .. import readings, setup, trained

__all__ = ["official_rebuilt", "official_gap", "figure_2a", "figure_2b", "figure_2c", "official_trend_row",
           "figure_2_official",
           "figure_3", "figure_3_d64", "trained_capacity", "figure_4", "figure_2a_d64", "figure_4_d64", "figure_5"]


def _check(ref, label, statement, paper_value, ours, passed, *, results, the_setup=None, config=None, partly=False,
           paper="mahdavi2024", note=""):
    return claims.check(paper=paper, ref=ref, label=label, statement=statement, paper_value=paper_value, ours=ours,
                        passed=bool(passed), partly=bool(partly), results=results, setup=the_setup, config=config,
                        note=note)


# ----------------------------------------------------------------------------- the official recipe
def official_rebuilt(comparison):
    """The course's check of its rebuild of the official recipe (``official_vs_ours``): at every
    (H, seed) the official code was run at by hand (:data:`~lib.papers.mahdavi2024.comparison.OFFICIAL_CODE`),
    the rebuilt recipe's accuracy is within 0.05 of the code's."""
    found = compare.ablation(compare.comparison_cells(comparison), compare.comparison_seeds(comparison))
    code = "; ".join(f"H={h}: " + ", ".join(f"{v:.3f} (seed {s})" for s, v in runs.items())
                     for h, runs in compare.OFFICIAL_CODE.items())
    return _check("Official code: its recipe rebuilt", "mem-official",
                  "the course's model and trainer, given the official code's data, initial weights and checkpoint "
                  "rule, memorize what the official code does, seed by seed (d=16, n=8, T=200)",
                  "official code: " + code, f"official recipe: within {found['largest_apart']:.3f} "
                  f"({round(200 * found['largest_apart'])} of 200 examples) at all {found['compared']} (H, seed) pairs",
                  found["matched"], results=comparison, paper="course",
                  note="the official code's numbers come from running it by hand (1-3 seeds)")


def official_gap(comparison):
    """The course's ablation of its own recipe: the single swapped ingredient with the largest
    effect accounts for at least half of the whole recipe's gap over the official one."""
    found = compare.ablation(compare.comparison_cells(comparison), compare.comparison_seeds(comparison))
    gap, cause = found["gap"], found["cause"]
    parts = {r: g for r, g in gap.items() if r.startswith("our ") and r not in ("our init", "our data")}
    return _check("Official code: our recipe's gap", "mem-official",
                  "which single deviation of our recipe makes it memorize more than the official code's",
                  "not in the paper (our own deviation)",
                  f"{cause}: {gap[cause]:+.3f} mean accuracy (our data {gap['our data']:+.3f}, both {gap['ours']:+.3f}); "
                  "at H=4 one part of our init alone: " + ", ".join(f"{r[4:]} {g:+.3f}" for r, g in parts.items()),
                  abs(gap[cause]) >= 0.5 * abs(gap["ours"]), results=comparison, paper="course",
                  note="an ablation of our own recipe")


# ----------------------------------------------------------------------------- Figure 2
def _fig2(results, panel: str, key: str):
    return {"results": results[key], "the_setup": setup.FIGURE_2[panel], "config": setup.ours(results[key])}


def figure_2a(results):
    """Figure 2a (Sec. 5.2): memorization linear in H. Full check: on every T's unsaturated points
    (mean accuracy < 0.95, at least 3) the line rises, has R^2 >= 0.98 (the paper's figure) and
    fits better than sqrt(H) and log(1 + H); partly: it rises with R^2 >= 0.9."""
    fits = readings.heads_fits(results["fig2a"], saturated=trained.SATURATED)
    r2 = min((f["r2"] for f in fits.values()), default=float("nan"))
    rising = bool(fits) and all(f["slope"] > 0 for f in fits.values())
    best = sum(f["linear_best"] for f in fits.values())
    slopes = np.mean([f["slope"] for f in fits.values()]) if fits else float("nan")
    return _check("Figure 2a", "mem-fig2", "memorization grows linearly in H (R^2 of the fit to the non-saturated part)",
                  "R^2 >= 0.98 (d=64, n=32, H=1-60)", f"R^2 >= {r2:.3f} over {len(fits)} curve(s), {slopes:.0f} "
                  f"examples/head (d={results['fig2a'].config['dim']}); the line fits better than sqrt(H) and log(1+H) "
                  f"on {best} of {len(fits)}", rising and r2 >= 0.98 and best == len(fits),
                  partly=rising and r2 >= 0.9, **_fig2(results, "a", "fig2a"))


def _trends(results, suffix: str = ""):
    return readings.figure2_readings(*(results[f"fig2{p}{suffix}"] for p in "abc"))


def figure_2b(results):
    """Figure 2b: memorization monotone in n (no seed mean falls by more than 0.03) and rising by
    0.1 from n = 2 (n = 1 with a shared context gives every example the same output) to the
    largest n, for every T (:func:`lib.papers.mahdavi2024.readings.figure2_readings`)."""
    t = _trends(results)
    xs = sorted({p["n"] for p in results["fig2b"].grid})
    first = xs.index(t["n_from"])
    return _check("Figure 2b", "mem-fig2", "memorization grows monotonically with the context size n",
                  "monotone in n", f"monotone (tolerance 0.03) for every T; from n = {t['n_from']} to {xs[-1]}: "
                  + ", ".join(f"{g}: {m[first]:.2f} -> {m[-1]:.2f}" for g, m in t["means_n"].items()),
                  t["monotone_n"] and t["rises_n"], **_fig2(results, "b", "fig2b"))


def figure_2c(results):
    """Figure 2c: memorization rises by 0.1 from the smallest d_h to d_h = n and stays within 0.05
    of it beyond; "flat after" counts as evidence only with room above (accuracy at d_h = n at
    most 0.9), so the full check needs that room and the partly form is the rise."""
    t = _trends(results)
    at, n = t["at_d"], t["n"]
    below = [v for v in at if v <= n]
    return _check("Figure 2c", "mem-fig2", "memorization rises with d_h up to d_h = n, with no gain beyond",
                  "monotone for d_h <= n, flat after", f"{at[below[0]]:.2f} at d_h={below[0]}, {at[below[-1]]:.2f} at "
                  f"d_h=n={below[-1]}, " + ", ".join(f"{at[v]:.2f} at d_h={v}" for v in at if v > n)
                  + ("" if t["room_d"] else " (too near 1 at d_h=n for a gain beyond to show)"),
                  t["rises_d"] and t["flat_after"] and t["room_d"], partly=t["rises_d"], **_fig2(results, "c", "fig2c"))


def official_trend_row(t: dict) -> dict:
    """One recipe's Figure 2 readings as a table row (``t``: ``readings.figure2_readings``)."""
    fits = list(t["fits"].values())
    return {"Fig. 2a: smallest R^2": min((f["r2"] for f in fits), default=float("nan")),
            "Fig. 2a: examples per head": ", ".join(f"{f['slope']:.0f}" for f in fits),
            "Fig. 2a: the line fits best": bool(fits) and all(f["linear_best"] for f in fits),
            "Fig. 2b: monotone and rising in n": t["monotone_n"] and t["rises_n"],
            "Fig. 2c: rises to d_h = n": t["rises_d"], "Fig. 2c: flat after": t["flat_after"],
            "Fig. 2c: room for a gain": t["room_d"]}


def figure_2_official(results):
    """Figure 2's trends on the official code's recipe (``fig2a_official`` etc.). Full check: the
    lines rise with R^2 >= 0.98 and fit best of three, monotone and rising in n, rising in d_h up
    to n and flat after with room for a gain; partly: rising lines with R^2 >= 0.9, monotone and
    rising in n, rising in d_h."""
    t = _trends(results, "_official")
    row = official_trend_row(t)
    r2 = row["Fig. 2a: smallest R^2"]
    linear = bool(t["fits"]) and all(f["slope"] > 0 for f in t["fits"].values())
    most = bool(linear and r2 >= 0.9 and row["Fig. 2b: monotone and rising in n"] and t["rises_d"])
    same = most and r2 >= 0.98 and row["Fig. 2a: the line fits best"] and t["flat_after"] and t["room_d"]

    def yes(x):
        return "yes" if x else "no"

    return _check("Figure 2 (official recipe)", "mem-fig2-official",
                  "on the official code's recipe, Figure 2's trends hold: linear in H, monotone in n, rising with d_h "
                  "up to n and flat after", "linear in H (R^2 >= 0.98), monotone in n, in d_h up to n, flat after",
                  f"official recipe: R^2 >= {r2:.3f} ({row['Fig. 2a: examples per head'] or 'no'} examples/head; the "
                  f"line fits better than sqrt(H) and log(1+H): {yes(row['Fig. 2a: the line fits best'])}); monotone and "
                  f"rising in n: {yes(row['Fig. 2b: monotone and rising in n'])}; rising in d_h up to n: "
                  f"{yes(t['rises_d'])}, flat after: {yes(t['flat_after'])}", same, partly=most,
                  results=tuple(results[f"fig2{p}_official"] for p in "abc"), the_setup=setup.FIGURE_2["a"],
                  config=setup.ours(results["fig2a_official"]))


# ----------------------------------------------------------------------------- Figure 3
def _saturation(rows) -> tuple[bool, bool, bool]:
    return readings.saturation_readings([r["saturated (head, example) pairs"] for r in rows],
                                        [r["examples with a non-saturated head"] for r in rows])


def figure_3(results):
    """Figure 3 (App. H) on the ``fig3`` ladder, at the largest T every seed fits per H: every H
    has one and fits it; at least 95% of examples keep a non-saturated head; a majority of (head,
    example) pairs saturated (the paper's "most"). Partly: at least 25% saturated."""
    fitted_at = trained.largest_fitted(results["fig3"])
    rows = trained.saturation_rows([m for m in fitted_at.values() if m is not None])
    fitted = len(rows) == len(fitted_at) and all(r["train accuracy"] == 1.0 for r in rows)
    free, many, majority = _saturation(rows)
    return _check("Figure 3", "mem-fig3", "trained heads: most (head, example) pairs saturated, almost every example "
                  "has a non-saturated head", "H=4, T=550 and H=8, T=1300 (d=64)",
                  "; ".join(f"H={r['H']}, T={r['T']}: acc {r['train accuracy']:.2f}, "
                            f"{r['saturated (head, example) pairs']:.0%} saturated, "
                            f"{r['examples with a non-saturated head']:.0%} with a free head" for r in rows),
                  fitted and free and majority, partly=fitted and free and many, results=results["fig3"],
                  the_setup=setup.FIGURE_3, config=setup.ours(results["fig3"]))


def figure_3_d64(results):
    """Figure 3 at the paper's d = 64, n = 32 (``fig3_d64``, App. H's two points): the first seed
    (on which saturation is measured) fits both; at least 95% of examples keep a non-saturated
    head; a majority of pairs saturated. Partly: at least 25%."""
    rows = trained.saturation_rows(trained.sweeps.points(results["fig3_d64"]))
    fitted = all(r["first seed's accuracy"] == 1.0 for r in rows)
    free, many, majority = _saturation(rows)
    return _check("Figure 3 (the paper's d=64, n=32)", "mem-fig3",
                  "trained heads at the paper's sizes: most (head, example) pairs saturated, almost every example "
                  "has a non-saturated head", "H=4, T=550 and H=8, T=1300 (d=64): most / almost all",
                  "; ".join(f"H={r['H']}, T={r['T']}: {r['seeds fitted']} seeds fit, first seed "
                            f"{r['saturated (head, example) pairs']:.0%} saturated, "
                            f"{r['examples with a non-saturated head']:.0%} with a free head" for r in rows),
                  fitted and free and majority, partly=fitted and free and many, results=results["fig3_d64"],
                  the_setup=setup.FIGURE_3, config=setup.ours(results["fig3_d64"]))


def trained_capacity(results):
    """The course's observation from App. H's capacities: every T the ``fig3`` ladder fits
    (mean accuracy 1 at the largest T per H) is above Prop. 2's rank bound H(n-1)+1."""
    fitted_at = trained.largest_fitted(results["fig3"])
    rows = trained.saturation_rows([m for m in fitted_at.values() if m is not None])
    beyond = [(r["T"], r["H(n-1)+1"]) for r in rows if r["train accuracy"] == 1.0]
    return _check("Trained capacity vs the rank bound", "mem-discussion",
                  "trained classification memorizes more than the rank bound H(n-1)+1 of Prop. 2 (from App. H's "
                  "capacities; the paper does not make the comparison)",
                  "App. H: T=550 at H=4 and T=1300 at H=8, against bounds 125 and 249",
                  ", ".join(f"T={T} fitted vs bound {bound}" for T, bound in beyond),
                  len(beyond) > 0 and all(T > bound for T, bound in beyond), results=results["fig3"],
                  the_setup=setup.FIGURE_3, config=setup.ours(results["fig3"]), paper="course",
                  note="the ladder starts above the bound: an observation of what was fitted, not where capacity ends")


# ----------------------------------------------------------------------------- Figure 4
def figure_4(results):
    """Figure 4 (App. I.1) at the default sizes: per-example contexts memorize at least as much as
    a shared one (within 0.02) at every shared (T, H), n = 1 is above 0.1, the H curves never fall
    (0.03), the regression MSE never rises with H or n (1e-4); the full check adds the paper's
    "linear in H" (R^2 >= 0.98 on every curve), untestable where curves saturate."""
    f = trained.figure_4_reading(results)
    linearity = "holds" if f["linear"] else (
        f"not testable here ({', '.join(f'{g}: {k}' for g, k in f['unsaturated'].items())} unsaturated points)")
    return _check("Figure 4", "mem-fig4", "per-example (general-position) contexts: linear in H, n matters less, more "
                  "memorized than with a shared context", "linear in H; linearity in n weakens",
                  f"per-example >= shared at every (H, T); n = 1 reaches {min(f['n1']):.2f}; regression MSE never rises "
                  f"with H or with n; linearity in H {linearity}", f["more"] and f["reg_falls"] and f["linear"],
                  partly=f["more"] and f["reg_falls"],
                  results=tuple(results[k] for k in ("fig4_heads", "fig2a", "fig4_context", "fig4_reg_heads",
                                                     "fig4_reg_context")),
                  the_setup=setup.FIGURE_4, config=setup.ours(results["fig4_heads"]))


def figure_2a_d64(results):
    """Figure 2a at the paper's d = 64, n = 32 (``fig2a_d64``, ``fig2a_d64_4k``): every T's line
    rises with R^2 >= 0.98 and fits best of three; partly: R^2 >= 0.9."""
    r = trained.heads_d64_reading(results)
    name = r["shared"]
    return _check("Figure 2a (the paper's d=64, n=32)", "mem-fig4-d64",
                  "memorization grows linearly in H (R^2 of the fit to the non-saturated part), at the paper's d and n",
                  "R^2 >= 0.98 (d=64, n=32, H=1-60)", trained.fit_text(r, name), r["linear"][name],
                  partly=r["rising"][name], results=tuple(r["results"][name]), the_setup=setup.FIGURE_2["a"],
                  config=setup.merged(r["results"][name]))


def figure_4_d64(results):
    """Figure 4 at the paper's d = 64, n = 32 (``fig4_heads_d64``, against the shared context's
    runs): linear in H (as :func:`figure_2a_d64`) and per-example >= shared - 0.02 at every
    common (T, H); partly: the comparison holds and the line, where testable, rises."""
    r = trained.heads_d64_reading(results)
    name, more = r["general"], r["general_more"]
    return _check("Figure 4 (the paper's d=64, n=32)", "mem-fig4-d64",
                  "per-example (general-position) contexts: memorization still linear in H, and above the shared "
                  "context's (the caption's H(d-1)+1 against Theorem 1's H(n-1)+1, d > n)",
                  "linear in H (d=64, n=32, H=1-60); suggests H(d-1)+1",
                  trained.fit_text(r, name) + f"; per-example >= shared at every common (T, H): {more}",
                  r["linear"][name] and more, partly=(r["rising"][name] or r["untested"][name]) and more,
                  results=tuple(r["results"][name]) + tuple(r["results"][r["shared"]]), the_setup=setup.FIGURE_4,
                  config=setup.ours(results["fig4_heads_d64"]))


# ----------------------------------------------------------------------------- Figure 5
def figure_5(results):
    """Figure 5 (App. A, regression): the median seed's training MSE (fitted below 1e-4 of the
    label variance) never rises by more than 10^0.3 along H or n, and drops tenfold from the
    smallest value (n from 2) to the largest on every curve; partly: it falls at all."""
    f = trained.figure_5_reading(results)
    drop = f["drop"]
    return _check("Figure 5", "mem-fig5", "regression: training MSE falls with H and with n", "monotone trends",
                  "median MSE falls " + ", ".join(f"{v:.3g}x ({g})" for g, v in drop.items())
                  + " from the smallest value to the largest", f["decreasing"] and min(drop.values()) >= 10,
                  partly=f["decreasing"] and min(drop.values()) > 1,
                  results=(results["fig5_heads"], results["fig5_context"]), the_setup=setup.FIGURE_5,
                  config=setup.ours(results["fig5_heads"]))
