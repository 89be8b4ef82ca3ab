"""Checks of the training chapters (``04_training``: the official recipe and Figure 2;
``05_saturation_and_general_position``: Figures 3-5 and the d = 64 runs), from the stored sweeps
alone. ``results`` is the chapter's mapping of sweep name to :class:`lib.results.Result`. Each
trained claim is compared with the paper's setup (:mod:`lib.papers.mahdavi2024.setup`), so a
passing check on a run that differs from it (a smaller width, another budget, full-batch steps)
is *substituted*, with the fields named.

Figures 2, 4 and 5 (and their d = 64 and official-recipe forms) are decided over seeds
(:mod:`lib.stats`, each check's tests at its Bonferroni level) and may be inconclusive. Figure 3
and ``trained_capacity`` read saturation, which the sweeps measure on one trained model (the
first seed), and whether every seed fits: they stay thresholds on those readings."""
from __future__ import annotations

import numpy as np

from .... import claims, stats
from .. import comparison as compare
from .. import readings, setup, sweeps, trained

__all__ = ["official_rebuilt", "official_gap", "figure_2a", "figure_2b", "figure_2c", "official_trend_row",
           "figure_2_official",
           "figure_3", "figure_3_d64", "trained_capacity", "figure_4", "figure_2a_d64", "figure_4_d64", "figure_5"]


def _check(ref, label, statement, paper_value, ours, passed, *, results, the_setup=None, config=None, partly=False,
           inconclusive=False, paper="mahdavi2024", note=""):
    return claims.check(paper=paper, ref=ref, label=label, statement=statement, paper_value=paper_value, ours=ours,
                        passed=bool(passed), partly=bool(partly), results=results, setup=the_setup, config=config,
                        note=note, inconclusive=bool(inconclusive) and not passed)


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
                  f"({round(200 * found['largest_apart'])} of 200 examples; the tolerance is 0.05) at all "
                  f"{found['compared']} (H, seed) pairs",
                  found["matched"], results=comparison, paper="course",
                  note="the official code's numbers come from running it by hand (1-3 seeds)")


def official_gap(comparison):
    """The course's ablation of its own recipe, over seeds: the whole recipe's gap over the
    official one is decidedly away from 0, and the single swapped ingredient with the largest mean
    effect (``comparison.ablation``'s cause) accounts for at least half of it, seed by seed
    (its gap less half the whole one, signed as the whole gap, decidedly above 0); both tests at
    the Bonferroni level of 2. With the whole gap undecided, the share is moot: inconclusive."""
    found = compare.ablation(compare.comparison_cells(comparison), compare.comparison_seeds(comparison))
    gap, cause, seeds = found["gap"], found["cause"], found["gap_seeds"]
    level = stats.family_level(2)
    sign = 1.0 if gap["ours"] >= 0 else -1.0
    real = stats.above(sign * seeds["ours"], 0.0, level=level)
    share = stats.above(sign * (seeds[cause] - 0.5 * seeds["ours"]), 0.0, level=level) if cause else False
    parts = {r: g for r, g in gap.items() if r.startswith("our ") and r not in ("our init", "our data")}
    return _check("Official code: our recipe's gap", "mem-official",
                  "which single deviation of our recipe makes it memorize more than the official code's",
                  "not in the paper (our own deviation)",
                  f"{cause}: {stats.describe(seeds[cause])} mean accuracy over the official recipe (our data "
                  f"{stats.describe(seeds['our data'])}, both {stats.describe(seeds['ours'])}); the whole gap decided: "
                  f"{stats.said(real)}, {cause} at least half of it: {stats.said(share)}; at H=4 one part of our init "
                  "alone: " + ", ".join(f"{r[4:]} {g:+.3f}" for r, g in parts.items()) + _level(level),
                  **claims.outcome(stats.all_hold(real, share) if real else real), results=comparison, paper="course",
                  note="an ablation of our own recipe")


# ----------------------------------------------------------------------------- Figure 2
# Every trained claim below is decided over seeds (:mod:`lib.stats`): each condition is a test on
# the per-seed values, all of a check's tests at its Bonferroni level (``stats.family_level``),
# combined three-valued (``stats.all_hold``); an undecided claim is inconclusive, never reproduced.


def _level(level: float) -> str:
    return f" (95% intervals; each test at level {level:.4f}, Bonferroni)"


#: tests per curve of :func:`_lines`: slope, R^2 >= 0.98, the margin over the concave fits, R^2 >= 0.9
LINE_TESTS = 4


def _lines(lines: dict, level: float) -> tuple[bool | None, bool | None, str]:
    """Sec. 5.2's "linear in H" over seeds, on each T's line (:func:`~lib.papers.mahdavi2024.readings.heads_lines`):
    the per-seed slope decidedly positive; then, in full, the per-seed R^2 decidedly above the
    paper's 0.98 and the line decidedly better than sqrt(H) and log(1 + H) (R^2 less the better of
    theirs, above 0), and in part R^2 decidedly above 0.9. A slope not decided positive leaves its
    curve undecided (a flat curve's R^2 says nothing of linearity); so does no curve with three
    unsaturated points. Returns ``(full, part, text)``."""
    full, part, text = [], [], []
    for g, line in lines.items():
        rising = stats.above(line["slope"], 0.0, level=level)
        r2 = (stats.above(line["r2"], 0.98, level=level), stats.above(line["r2"], 0.9, level=level))
        full.append(stats.all_hold(r2[0], stats.above(line["margin"], 0.0, level=level)) if rising else rising)
        part.append(r2[1] if rising else rising)
        text.append(f"{g} on H = {line['H']}: R^2 {stats.describe(line['r2'], bounds=(None, 1.0))}, "
                    f"{stats.describe(line['slope'])} examples/head, R^2 above the better of sqrt(H) and "
                    f"log(1+H) by {stats.describe(line['margin'])}")
    if not lines:
        return None, None, "no curve with 3 unsaturated points"
    return stats.all_hold(*full), stats.all_hold(*part), "; ".join(text)


def _rises_in_n(result, level: float) -> tuple[bool | None, str]:
    """Fig. 2b over seeds, per T: the per-seed rise from n = 2 (n = 1 with a shared context gives
    every example the same output, so a rise from it cannot fail) to the largest n decidedly above
    0.1, and no step between neighbouring n decidedly falling (:func:`lib.stats.no_reversal`)."""
    xs, acc = sweeps.series(result, "n", "acc")
    first = readings.first_informative_n(xs)
    truths, text = [], []
    for g, a in acc.items():
        steps = stats.no_reversal(list(a), "increasing", level=level, floor=0.0, ceiling=1.0)
        truths += [stats.above(a[-1] - a[first], 0.1, level=level), steps]
        text.append(f"{g}: {stats.describe_accuracy(a[first])} at n = {xs[first]}, "
                    f"{stats.describe_accuracy(a[-1])} at n = {xs[-1]} "
                    f"(rise {stats.describe(a[-1] - a[first], bounds=(-1.0, 1.0))}; "
                    f"a step decidedly falling: {stats.said(not steps)})")
    return stats.all_hold(*truths), "; ".join(text)


def _n_tests(result) -> int:
    xs, acc = sweeps.series(result, "n", "acc")
    return len(acc) * len(xs)  # per T: the rise and each step


def _rises_in_d(result, level: float) -> tuple[bool | None, bool | None, str]:
    """Fig. 2c over seeds, per T, with d_h = n the largest d_h <= n: the per-seed rise from the
    smallest d_h to d_h = n decidedly above 0.1 and no step up to it decidedly falling (the partly
    form); in full, also every d_h > n within 0.05 of d_h = n (:func:`lib.stats.within`, an
    equivalence). "Flat after" is evidence only with room above: the accuracy at d_h = n decidedly
    below 0.9; nearer the ceiling an equivalence leaves the full claim undecided. Returns
    ``(full, part, text)``."""
    xs, acc = sweeps.series(result, "d_h", "acc")
    n = result.grid[0]["n"]
    below, beyond = [i for i, v in enumerate(xs) if v <= n], [i for i, v in enumerate(xs) if v > n]
    full, part, text = [], [], []
    for g, a in acc.items():
        at = a[below[-1]]
        rise = stats.all_hold(stats.above(at - a[below[0]], 0.1, level=level),
                              stats.no_reversal(list(a[below]), "increasing", level=level, floor=0.0, ceiling=1.0))
        room = stats.below(at, 0.9, level=level)
        flat = stats.all_hold(*(stats.within(a[i], at, 0.05, level=level) for i in beyond)) if beyond else None
        part.append(rise)
        full.append(stats.all_hold(rise, None if flat is True and room is not True else flat))
        text.append(f"{g}: {stats.describe_accuracy(a[below[0]])} at d_h = {xs[below[0]]}, "
                    f"{stats.describe_accuracy(at)} at d_h = {xs[below[-1]]} "
                    f"(n = {n}), " + ", ".join(f"{a[i].mean():.2f} at d_h = {xs[i]}" for i in beyond)
                    + f"; within 0.05 beyond: {stats.said(flat)}, room for a gain (below 0.9): {stats.said(room)}")
    return stats.all_hold(*full), stats.all_hold(*part), "; ".join(text)


def _d_tests(result) -> int:
    xs, acc = sweeps.series(result, "d_h", "acc")
    return len(acc) * (len(xs) + 1)  # per T: the rise, each step up to n, each d_h beyond, the room


def _fig2(results, panel: str, key: str):
    return {"results": results[key], "the_setup": setup.FIGURE_2[panel], "config": setup.ours(results[key])}


def figure_2a(results):
    """Figure 2a (Sec. 5.2): memorization linear in H, decided over seeds on every T's unsaturated
    points (mean accuracy < 0.95, at least 3; :func:`_lines`): a rising line with R^2 above 0.98
    (the paper's figure) that fits better than sqrt(H) and log(1 + H); partly: a rising line with
    R^2 above 0.9."""
    lines = readings.heads_lines(results["fig2a"], saturated=trained.SATURATED)
    level = stats.family_level(LINE_TESTS * max(len(lines), 1))
    full, part, text = _lines(lines, level)
    return _check("Figure 2a", "mem-fig2", "memorization grows linearly in H (R^2 of the fit to the non-saturated part)",
                  "R^2 >= 0.98 (d=64, n=32, H=1-60)",
                  f"d={results['fig2a'].config['dim']}, per seed: {text}{_level(level)}",
                  **claims.outcome(full, part), **_fig2(results, "a", "fig2a"))


def figure_2b(results):
    """Figure 2b (Sec. 5.2, "memorization increases monotonically with n"), over seeds for every
    T: it rises by more than 0.1 from n = 2 to the largest n and no step decidedly falls
    (:func:`_rises_in_n`)."""
    level = stats.family_level(_n_tests(results["fig2b"]))
    full, text = _rises_in_n(results["fig2b"], level)
    return _check("Figure 2b", "mem-fig2", "memorization grows monotonically with the context size n",
                  "monotone in n", text + _level(level),
                  **claims.outcome(full), **_fig2(results, "b", "fig2b"))


def figure_2c(results):
    """Figure 2c (Sec. 5.2: "no benefit beyond d_h > n"), over seeds for every T
    (:func:`_rises_in_d`): a rise by more than 0.1 up to d_h = n with no decided fall, and every
    d_h > n within 0.05 of d_h = n where there is room for a gain; partly: the rise."""
    level = stats.family_level(_d_tests(results["fig2c"]))
    full, part, text = _rises_in_d(results["fig2c"], level)
    return _check("Figure 2c", "mem-fig2", "memorization rises with d_h up to d_h = n, with no gain beyond",
                  "monotone for d_h <= n, flat after", text + _level(level), **claims.outcome(full, part),
                  **_fig2(results, "c", "fig2c"))


def official_trend_row(t: dict) -> dict:
    """One recipe's Figure 2 readings as a table row (``t``: ``readings.figure2_readings``, on
    the seed means: the chapter's table; the checks decide over seeds)."""
    fits = list(t["fits"].values())
    return {"Fig. 2a: smallest R^2": min((f["r2"] for f in fits), default=float("nan")),
            "Fig. 2a: examples per head": ", ".join(f"{f['slope']:.0f}" for f in fits),
            "Fig. 2a: the line fits best": bool(fits) and all(f["linear_best"] for f in fits),
            "Fig. 2b: monotone and rising in n": t["monotone_n"] and t["rises_n"],
            "Fig. 2c: rises to d_h = n": t["rises_d"], "Fig. 2c: flat after": t["flat_after"],
            "Fig. 2c: room for a gain": t["room_d"]}


def figure_2_official(results):
    """Figure 2's trends on the official code's recipe (``fig2a_official`` etc.), decided over
    seeds as :func:`figure_2a`, :func:`figure_2b` and :func:`figure_2c`, all tests at one
    Bonferroni level. Full: each panel's claim in full; partly: rising lines with R^2 above 0.9,
    Figure 2b's claim and the rise in d_h."""
    a, b, c = (results[f"fig2{p}_official"] for p in "abc")
    lines = readings.heads_lines(a, saturated=trained.SATURATED)
    level = stats.family_level(LINE_TESTS * len(lines) + _n_tests(b) + _d_tests(c))
    line_full, line_part, line_text = _lines(lines, level)
    n_full, n_text = _rises_in_n(b, level)
    d_full, d_part, d_text = _rises_in_d(c, level)
    return _check("Figure 2 (official recipe)", "mem-fig2-official",
                  "on the official code's recipe, Figure 2's trends hold: linear in H, monotone in n, rising with d_h "
                  "up to n and flat after", "linear in H (R^2 >= 0.98), monotone in n, in d_h up to n, flat after",
                  f"official recipe, per seed: in H {line_text}; in n {n_text}; in d_h {d_text}{_level(level)}",
                  **claims.outcome(stats.all_hold(line_full, n_full, d_full), stats.all_hold(line_part, n_full, d_part)),
                  results=(a, b, c), the_setup=setup.FIGURE_2["a"], config=setup.ours(a))


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
    free, many, majority = _saturation(rows) if rows else (False, False, False)
    return _check("Figure 3", "mem-fig3", "trained heads: most (head, example) pairs saturated, almost every example "
                  "has a non-saturated head", "H=4, T=550 and H=8, T=1300 (d=64)",
                  "; ".join(f"H={r['H']}, T={r['T']}: acc {r['train accuracy']:.2f}, "
                            f"{r['saturated (head, example) pairs']:.0%} saturated, "
                            f"{r['examples with a non-saturated head']:.0%} with a free head" for r in rows)
                  or "no T of the ladder fitted by every seed at any H",
                  fitted and free and majority, partly=fitted and free and many, results=results["fig3"],
                  the_setup=setup.FIGURE_3, config=setup.ours(results["fig3"]))


def figure_3_d64(results):
    """Figure 3 at the paper's d = 64, n = 32 (``fig3_d64``, App. H's two points): the first seed
    (on which saturation is measured) fits both; at least 95% of examples keep a non-saturated
    head; a majority of pairs saturated. Partly: at least 25%. Where the first seed did not fit,
    the text says so instead of quoting a stuck model's saturation."""
    rows = trained.saturation_rows(trained.sweeps.points(results["fig3_d64"]))
    fitted = all(r[trained.FIRST_ACCURACY] == 1.0 for r in rows)
    free, many, majority = _saturation(rows)
    return _check("Figure 3 (the paper's d=64, n=32)", "mem-fig3",
                  "trained heads at the paper's sizes: most (head, example) pairs saturated, almost every example "
                  "has a non-saturated head", "H=4, T=550 and H=8, T=1300 (d=64): most / almost all",
                  "; ".join(f"H={r['H']}, T={r['T']}: {r['seeds fitted']} seeds fit, first seed " + (
                      f"{r['saturated (head, example) pairs']:.0%} saturated, "
                      f"{r['examples with a non-saturated head']:.0%} with a free head"
                      if r[trained.FIRST_ACCURACY] == 1.0 else
                      f"not fitted ({r[trained.FIRST_ACCURACY]:.2f}), so its saturation is not a memorizing model's")
                  for r in rows),
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
                  ", ".join(f"T={T} fitted vs bound {bound}" for T, bound in beyond)
                  or "no T of the ladder fitted by every seed at any H",
                  len(beyond) > 0 and all(T > bound for T, bound in beyond), results=results["fig3"],
                  the_setup=setup.FIGURE_3, config=setup.ours(results["fig3"]), paper="course",
                  note="the ladder starts above the bound: an observation of what was fitted, not where capacity ends")


# ----------------------------------------------------------------------------- Figure 4
def _common(general, shared) -> list[tuple]:
    """The per-seed accuracies ``(per-example, shared)`` at every (T, H) both grids hold
    (``{"T=...": (xs, array (len(xs), seeds))}`` each)."""
    return [(a[i], shared[g][1][shared[g][0].index(x)]) for g, (xs, a) in general.items() if g in shared
            for i, x in enumerate(xs) if x in shared[g][0]]


def _more(pairs, level: float) -> bool | None:
    """Per-example contexts memorize more than a shared one, over the ``pairs`` of :func:`_common`
    (Welch; both arms at 1: undecided): True when some pair decides "more" and none "less", False
    when one decides "less", None otherwise (also with no pair)."""
    truths = [stats.holds(stats.compare(a, b, level=level, floor=0.0, ceiling=1.0), "greater") for a, b in pairs]
    return stats.all_hold(False not in truths, stats.any_holds(*truths)) if truths else None


def _by_T(result, x: str = "H") -> dict:
    xs, acc = sweeps.series(result, x, "acc")
    return {g: (xs, a) for g, a in acc.items()}


def figure_4(results):
    """Figure 4 (App. I.1) at the default sizes, over seeds: per-example contexts memorize more
    than a shared one (:func:`_more`, at every (T, H) the grids share), n = 1 decidedly above 0.1
    (a per-example context is not the shared one's constant output), no H curve decidedly falls,
    and the regression MSE (log10 of its fraction of the label variance, fitted at 1e-4:
    :func:`~lib.papers.mahdavi2024.trained.log_relative_mse`) never decidedly rises with H or n;
    the full check adds the paper's "linear in H" (:func:`_lines`), undecided where curves keep
    fewer than 3 unsaturated points. Each test at the check's Bonferroni level."""
    heads, context = results["fig4_heads"], results["fig4_context"]
    general, shared = _by_T(heads), _by_T(results["fig2a"])
    n1 = {g: a[0] for g, a in sweeps.series(context, "n", "acc", n=1)[1].items()}
    regression = {k: trained.log_relative_mse(results[name], k)[1] for name, k in
                  (("fig4_reg_heads", "H"), ("fig4_reg_context", "n"))}
    lines = readings.heads_lines(heads, saturated=trained.SATURATED)
    pairs = _common(general, shared)
    level = stats.family_level(len(pairs) + len(n1) + sum(len(xs) - 1 for xs, _ in general.values())
                               + sum(len(a) - 1 for curves in regression.values() for a in curves.values())
                               + LINE_TESTS * len(lines))
    more = _more(pairs, level)
    n1_above = stats.all_hold(*(stats.above(v, 0.1, level=level) for v in n1.values()))
    h_rises = all(stats.no_reversal(list(a), "increasing", level=level, floor=0.0, ceiling=1.0)
                  for _, a in general.values())
    reg_falls = all(stats.no_reversal(list(a), "decreasing", level=level, floor=np.log10(trained.FITTED))
                    for curves in regression.values() for a in curves.values())
    part = stats.all_hold(more, n1_above, h_rises, reg_falls)
    line_full, _, line_text = _lines(lines, level)
    return _check("Figure 4", "mem-fig4", "per-example (general-position) contexts: linear in H, n matters less, more "
                  "memorized than with a shared context", "linear in H; linearity in n weakens",
                  f"per-example > shared somewhere and nowhere below (Welch, {len(pairs)} common (T, H)): "
                  f"{stats.said(more)}; "
                  f"n = 1: " + ", ".join(f"{g}: {stats.describe_accuracy(v)}" for g, v in n1.items())
                  + f"; an H curve decidedly falls: {stats.said(not h_rises)}; regression MSE decidedly rises with H or n: "
                  f"{stats.said(not reg_falls)}; linearity in H: {line_text}" + _level(level),
                  **claims.outcome(stats.all_hold(part, line_full), part),
                  results=tuple(results[k] for k in ("fig4_heads", "fig2a", "fig4_context", "fig4_reg_heads",
                                                     "fig4_reg_context")),
                  the_setup=setup.FIGURE_4, config=setup.ours(results["fig4_heads"]))


def _d64(results, name: str) -> tuple[list, dict, dict]:
    """One context's d = 64 sweeps (:data:`~lib.papers.mahdavi2024.trained.D64`), their series
    by T and their per-seed lines."""
    rs = [results[k] for k in trained.D64[name]]
    return rs, {g: v for r in rs for g, v in _by_T(r).items()}, \
        {g: line for r in rs for g, line in readings.heads_lines(r, saturated=trained.SATURATED).items()}


def figure_2a_d64(results):
    """Figure 2a at the paper's d = 64, n = 32 (``fig2a_d64``, ``fig2a_d64_4k``), over seeds as
    :func:`figure_2a`: every T's line rises with R^2 above 0.98 and fits best of three; partly:
    R^2 above 0.9."""
    name = next(iter(trained.D64))
    rs, _, lines = _d64(results, name)
    level = stats.family_level(LINE_TESTS * max(len(lines), 1))
    full, part, text = _lines(lines, level)
    return _check("Figure 2a (the paper's d=64, n=32)", "mem-fig4-d64",
                  "memorization grows linearly in H (R^2 of the fit to the non-saturated part), at the paper's d and n",
                  "R^2 >= 0.98 (d=64, n=32, H=1-60)", f"per seed: {text}{_level(level)}", **claims.outcome(full, part),
                  results=tuple(rs), the_setup=setup.FIGURE_2["a"], config=setup.merged(rs))


def figure_4_d64(results):
    """Figure 4 at the paper's d = 64, n = 32 (``fig4_heads_d64``, against the shared context's
    runs), over seeds: linear in H (as :func:`figure_2a_d64`) and per-example contexts memorize more
    than the shared one (:func:`_more`); partly: the comparison holds and every line that can be
    tested (3 unsaturated points) rises with R^2 above 0.9."""
    shared_name, general_name = trained.D64
    _, shared, _ = _d64(results, shared_name)
    rs, general, lines = _d64(results, general_name)
    pairs = _common(general, shared)
    level = stats.family_level(len(pairs) + LINE_TESTS * len(lines))
    line_full, line_part, text = _lines(lines, level)
    more = _more(pairs, level)
    return _check("Figure 4 (the paper's d=64, n=32)", "mem-fig4-d64",
                  "per-example (general-position) contexts: memorization still linear in H, and above the shared "
                  "context's (the caption's H(d-1)+1 against Theorem 1's H(n-1)+1, d > n)",
                  "linear in H (d=64, n=32, H=1-60); suggests H(d-1)+1",
                  f"per seed: {text}; per-example > shared somewhere and nowhere below (Welch, {len(pairs)} common "
                  f"(T, H)): {stats.said(more)}{_level(level)}",
                  **claims.outcome(stats.all_hold(line_full, more), stats.all_hold(more, line_part if lines else True)),
                  results=tuple(rs) + tuple(results[k] for k in trained.D64[shared_name]), the_setup=setup.FIGURE_4,
                  config=setup.ours(results["fig4_heads_d64"]))


# ----------------------------------------------------------------------------- Figure 5
def figure_5(results):
    """Figure 5 (App. A, regression: "the same ... monotonicity with H and n"), over seeds on
    log10 of the training MSE as a fraction of the label variance, fitted at 1e-4
    (:func:`~lib.papers.mahdavi2024.trained.log_relative_mse`; the paper's log scale): on every
    curve no step decidedly rises, and the per-seed drop from the smallest H (n from 2: n = 1 gives a
    constant output) to the largest is decidedly above tenfold; partly: decidedly above none."""
    truths, parts, text = [], [], []
    curves = [(key, *trained.log_relative_mse(results[name], key)) for name, key in
              (("fig5_heads", "H"), ("fig5_context", "n"))]
    level = stats.family_level(sum(len(per_T) * (len(xs) + 1) for _, xs, per_T in curves))
    for key, xs, per_T in curves:
        start = readings.first_informative_n(xs) if key == "n" else 0
        for g, a in per_T.items():
            steps = stats.no_reversal(list(a), "decreasing", level=level, floor=np.log10(trained.FITTED))
            drop = a[start] - a[-1]
            truths.append(stats.all_hold(steps, stats.above(drop, 1.0, level=level)))
            parts.append(stats.all_hold(steps, stats.above(drop, 0.0, level=level)))
            text.append(f"{key} from {xs[start]} to {xs[-1]}, {g}: {stats.describe(drop)}"
                        + ("" if steps else ", a step decidedly up"))
    return _check("Figure 5", "mem-fig5", "regression: training MSE falls with H and with n", "monotone trends",
                  "per seed, decades the MSE falls: " + "; ".join(text) + _level(level),
                  **claims.outcome(stats.all_hold(*truths), stats.all_hold(*parts)),
                  results=(results["fig5_heads"], results["fig5_context"]), the_setup=setup.FIGURE_5,
                  config=setup.ours(results["fig5_heads"]))
