# ---
# jupyter:
#   jupytext:
#     cell_metadata_filter: tags,-all
#     formats: ipynb,py:percent
#     notebook_metadata_filter: kernelspec,jupytext,execution,mystnb
#     text_representation:
#       extension: .py
#       format_name: percent
#       format_version: '1.3'
#       jupytext_version: 1.19.6
#   kernelspec:
#     display_name: Python 3 (ipykernel)
#     language: python
#     name: python3
# ---

# %% [markdown]
# (mem-training)=
# # Training one attention layer to memorize
#
# Theorem 1 is a lower bound built by hand. Sec. 5.2 and Appendices H-I of
# {cite}`mahdavi2024memorization` ask what gradient descent finds: train one attention layer on
# $T$ random examples with random labels and measure the fraction it fits, as the number of heads
# $H$, the context size $n$ and the head size $d_h$ vary (Figure 2), look inside the trained heads
# for the softmax saturation the proof relies on (Figure 3), and repeat with per-example contexts
# (Figure 4) and with real-valued labels (Figure 5).

# %% tags=["setup", "remove-cell"]
# Setup (not shown in the book): on Colab, install the course once, keeping Colab's own torch.
# The marker file is written only after a complete install, so a failed one is retried on a re-run.
import os, subprocess, sys
REPO = "https://github.com/attention-by-construction/attention-by-construction"
if "google.colab" in sys.modules:
    if not os.path.exists("/content/abc/.installed"):
        subprocess.run(["rm", "-rf", "/content/abc"], check=True)
        subprocess.run(["git", "clone", "-q", "--depth", "1", REPO, "/content/abc"], check=True)
        subprocess.run([sys.executable, "-m", "pip", "install", "-q", "-e", "/content/abc"], check=True)
        open("/content/abc/.installed", "w").close()
    sys.path.insert(0, "/content/abc")
import lib
device = lib.setup_notebook(seed=0)


# %%
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from lib import claims, scale
from lib.papers.mahdavi2024 import comparison as compare
from lib.papers.mahdavi2024 import readings
from lib.papers.mahdavi2024 import sweeps
from lib.papers.mahdavi2024.construction import rank_bound
from lib.results import paper_sweeps
from lib.plots import legend_outside, panels, paper_vs_ours, readable, shared_legend, stamp, sweep, table, use_style

use_style()
record = claims.Recorder(paper="mahdavi2024", chapter="chapters/01_memorization/04_training")

# %% [markdown]
# ## Setup: the official code's recipe
#
# The paper leaves the training setup out; we take it from the official code (the reading notes
# list it): every example is a random query $e \sim U(0,1)^{d}$ and a context of $n$ tokens
# $U(0,1)^{d}$, **shared** by all examples (the setting of Prop. 2) unless said otherwise, with a
# label drawn uniformly from 100 classes. The model is the layer of the first chapter preceded by a
# trainable linear embedding and sinusoidal positions (query at position 0, masked from itself),
# with $d_v = 1$, logits scaled by $1/\sqrt{d}$, and a linear decoder with bias at the query. Adam
# with a 5% linear warm-up and cosine decay; training stops once every example is fitted
# (classification). Memorization is the training accuracy at a fixed $T$.
#
# | | official code (paper scale) | ours, default scale (CPU) |
# |---|---|---|
# | width $d$ | 64 | 16 |
# | $H$ sweep (Fig. 2a) | 1-60, $n = 32$, $T$ = 10k-40k | 1-8, $n = 8$, $T$ = 200, 400 |
# | $n$ sweep (Fig. 2b) | 1-60, $H = 20$, $T$ = 6k-18k | 1-12, $H = 4$, $T$ = 200, 400 |
# | $d_h$ sweep (Fig. 2c) | 10-64, $H = 30$, $n = 32$, $T$ = 10k-20k | 1-16, $H = 4$, $n = 8$, $T$ = 200 |
# | optimizer | Adam, lr $10^{-3}$, batch 256, 50k-300k steps | Adam, lr $10^{-2}$, full batch, 2k-5k steps |
# | initialization | Xavier uniform, `nn.Linear`'s default | $N(0, 1/\text{fan-in})$, zero biases (see {ref}`mem-official`) |
# | reported accuracy | the lowest-loss evaluation | the last evaluation |
# | seeds | 1 in `reproduce.sh` (6 in the authors' runs) | 4, each with its own dataset |
#
# All points of a sweep that share $T$, with all their seeds, train together as **one ensemble**
# through the course's trainer: every member is the largest model of the sweep with masks that
# switch off the heads, query/key columns and context positions it does not have, which makes it
# train exactly as its smaller model would (a test checks this). The results live in
# `data/mahdavi2024_*.json` with their provenance. The paper-scale grids are
# defined in `lib.papers.mahdavi2024.sweeps`, on the official code's recipe (its data, initial
# weights and checkpoint rule, {ref}`mem-official`), but need about 3 V100-days per seed;
# they have not been run for this book, so every figure below is at the scale it states.

# %%
results = {name: s.result(device=device) for name, s in paper_sweeps("mahdavi2024").items()}
table(pd.DataFrame([{"sweep": name, "scale": r.scale, "points": len(r.points), "seeds": len(r.config["seeds"]),
                     "settings": readable({k: v for k, v in r.config.items() if k != "seeds"}),
                     "wall time (s)": r.wall_s} for name, r in results.items()]).set_index("sweep"))

# %% [markdown]
# (mem-official)=
# ## Our recipe against the official code's
#
# Run side by side on one small configuration (shared context, $d = d_h = 16$, $n = 8$, 100
# classes, $T = 200$, Adam at $10^{-3}$ with the code's warm-up and cosine decay, every step the
# full set, 20,000 steps, early stop at 100%), our recipe memorized up to twice what the official
# code does (at $H = 2$ and $H = 4$). The official code's own numbers, from running it by hand
# (seed 42; seeds 1 and 2 at $H = 4, 8$; `comparison.OFFICIAL_CODE`), are the reference for this
# section.
#
# `lib.papers.mahdavi2024.official` rebuilds the official recipe on the course's own model and
# trainer, bit for bit where the code fixes the bits: its data generator (a test checks the
# code's fingerprints), its initial weights (the code seeds torch and builds its modules; we draw
# the same numbers in the same order, and a test compares them with torch's own modules) and its
# checkpoint rule (the accuracy of the lowest-loss evaluation). The sweep `official_vs_ours`
# (`lib.papers.mahdavi2024.comparison`) then swaps ingredients for ours: our initialisation
# $N(0, 1/\text{fan-in})$ with zero biases, our data generator (the same distributions, drawn by
# torch), both ("ours"), and, at $H = 4$, each part of our initialisation alone. Four seeds per
# cell, accuracy by the official rule.

# %%
comparison = sweeps.SWEEPS["official_vs_ours"].result(device=device)
cells, seeds_cmp = compare.comparison_cells(comparison), compare.comparison_seeds(comparison)
table(compare.comparison_table(cells))

# %% [markdown]
# Seed by seed, where the official code was run: the same data and the same initial weights, so
# only the arithmetic differs (its GPU against this CPU, and its evaluations one update later).

# %%
display(table(compare.seed_by_seed(cells, seeds_cmp)))
found = compare.ablation(cells, seeds_cmp)
print(f"largest difference: {found['largest_apart']:.3f} over {found['compared']} (H, seed) pair(s)")
if comparison.scale != "smoke":  # the smoke scale runs 200 steps: nothing to compare with
    record(ref="Official code: its recipe rebuilt", label="mem-official", paper="course",
           statement="the course's model and trainer, given the official code's data, initial weights and "
                     "checkpoint rule, memorize what the official code does, seed by seed (d=16, n=8, T=200)",
           paper_value="official code: " + "; ".join(f"H={h}: " + ", ".join(f"{v:.3f} (seed {s})" for s, v in
                                                                          runs.items())
                                                       for h, runs in compare.OFFICIAL_CODE.items()),
           ours=f"official recipe: within {found['largest_apart']:.3f} ({round(200 * found['largest_apart'])} of "
                f"200 examples) at all {found['compared']} (H, seed) pairs",
           passed=found["matched"], note="the official code's numbers come from running it by hand (1-3 seeds)")

# %%
gap, cause = found["gap"], found["cause"]
parts = {r: g for r, g in gap.items() if r.startswith("our ") and r not in ("our init", "our data")}
print("mean accuracy above the official recipe (averaged over the H each ran at):", readable(gap))
if comparison.scale != "smoke":
    record(ref="Official code: our recipe's gap", label="mem-official", paper="course",
           statement="which single deviation of our recipe makes it memorize more than the official code's",
           paper_value="not in the paper (our own deviation)",
           ours=f"{cause}: {gap[cause]:+.3f} mean accuracy (our data {gap['our data']:+.3f}, both "
                f"{gap['ours']:+.3f}); at H=4 one part of our init alone: "
                + ", ".join(f"{r[4:]} {g:+.3f}" for r, g in parts.items()),
           passed=abs(gap[cause]) >= 0.5 * abs(gap["ours"]), note="an ablation of our own recipe")

# %% [markdown]
# **What the comparison says** (default scale, four seeds per cell).
# - Seed by seed, the official recipe on the course's model and trainer lands on the official
#   code's numbers: exactly at $H = 1$ and $H = 2$ (seed 42), within 2 examples of 200 at $H = 8$
#   and within 1, 1 and 7 at $H = 4$. What is left is arithmetic: the same data and the same
#   initial weights, updated on this CPU and on the authors' GPU, drift apart over 20,000 steps.
#   The code's evaluation schedule matters once: counting our evaluation after the last update,
#   which the code never makes, would give $H = 1$, seed 42 one example more (0.045).
# - **Our initialisation** explains our recipe's gap. Swapped in alone it gives what our whole
#   recipe gives (at $H = 4$, a mean of 0.83 against 0.52; at $H = 8$ every seed fits all 200
#   examples within 2,500 steps, where the official recipe takes 2,500 to 6,500 and one seed
#   never fits its last example). Our data generator
#   alone (the same distributions, other draws) moves the means by at most 0.05 either way. The
#   checkpoint rule hardly matters here: the lowest-loss evaluation and the last one differ in one
#   run of 80, by one example.
# - No single part of our initialisation carries the effect. At $H = 4$, swapping in one part
#   alone raises the mean by 0.00 (embedding) to 0.08 ($W_V, W_O$: ours starts $W_O$ at standard
#   deviation 1, the code's Xavier at about 0.32), while all four together raise it by 0.31: the
#   parts compound. With four seeds, differences below about 0.1 are within the spread between
#   seeds (the official recipe alone ranges from 0.39 to 0.77 at $H = 4$).

# %% [markdown]
# (mem-fig2)=
# ## Figure 2: memorization against heads, context size and head size
#
# Theorem 1 predicts memorization growing **linearly in $H$** (it guarantees $H(n-1)+1$
# examples), **with $n$**, and **with $d_h$ up to $d_h = n$**, with nothing gained beyond. The
# paper's reading of its Figure 2: linear in $H$ with $R^2 \ge 0.98$ for the best linear fit to the
# non-saturated part of every curve; monotone in $n$; monotone in $d_h$ while $d_h \le n$.

# %%
fig, axes = panels(3, ncols=1, height=2.1)
for ax, (name, key, label) in zip(axes, (("fig2a", "H", "heads H"), ("fig2b", "n", "context size n"),
                                          ("fig2c", "d_h", "head size d_h"))):
    xs, acc = sweeps.series(results[name], key, "acc")
    sweep(xs, acc, ax=ax, xlabel=label, ylabel="training accuracy", title=f"Figure 2{name[-1]}")
n_fixed = results["fig2c"].grid[0]["n"]
axes[2].axvline(n_fixed, color="0.5", linestyle=":", label=f"d_h = n = {n_fixed}")
legend_outside(axes[2])
stamp(fig, "; ".join(results[name].label() for name in ("fig2a", "fig2b", "fig2c")))
plt.show()

# %% [markdown]
# The linear fit of Fig. 2a: the number of memorized examples ($T \times$ accuracy, averaged
# over seeds) against $H$, on the points that are not saturated (accuracy below 0.95), for each
# $T$. On four to six points a concave curve fits a line well too, so a high $R^2$ alone cannot
# tell "linear" from "growing ever more slowly": beside the line we fit the same count against
# $\sqrt{H}$ and $\log(1 + H)$, and the full check asks that the line fit best.

# %%
trends = readings.figure2_readings(results["fig2a"], results["fig2b"], results["fig2c"])
fit_table = pd.DataFrame(trends["fits"]).T
table(fit_table)

# %%
r2_min = fit_table["r2"].min() if len(fit_table) else float("nan")
slopes = fit_table["slope"] if len(fit_table) else pd.Series(dtype=float)
# the paper's own threshold, R^2 >= 0.98, is the full check; a clearly linear fit (R^2 >= 0.9) the partly form
fig2a_linear = bool(len(fit_table) > 0 and (slopes > 0).all())
line_best = bool(len(fit_table) > 0 and fit_table["linear_best"].all())
fig2a_ok = fig2a_linear and r2_min >= 0.98 and line_best
print(f"smallest R^2 {r2_min:.3f}; examples memorized per head: {', '.join(f'{s:.0f}' for s in slopes)}; "
      f"the line fits better than sqrt(H) and log(1+H) on {int(fit_table['linear_best'].sum())} of {len(fit_table)} curves")
assert fig2a_linear and r2_min >= 0.9
record(ref="Figure 2a", label="mem-fig2",
       statement="memorization grows linearly in H (R^2 of the fit to the non-saturated part)",
       paper_value="R^2 >= 0.98 (d=64, n=32, H=1-60)", ours=f"R^2 >= {r2_min:.3f} over {len(fit_table)} "
       f"curve(s), {slopes.mean():.0f} examples/head (d={results['fig2a'].config['dim']}); the line fits better than "
       f"sqrt(H) and log(1+H) on {int(fit_table['linear_best'].sum())} of {len(fit_table)}",
       passed=fig2a_ok, partly=fig2a_linear and r2_min >= 0.9,
       result=results["fig2a"], reduced="reduced scale (see the table above)")

# %%
means_n = trends["means_n"]
xs_n = sweeps.series(results["fig2b"], "n", "acc")[0]
from_n = xs_n.index(trends["n_from"])
majority = {}
for m in sweeps.points(results["fig2b"], n=1):  # n = 1 with a shared context: every output is the same
    majority[m.point["T"]] = max(m.acc)
print("seed means by n:", readable(means_n, 2))
print("n = 1 (constant output, at most the majority-class frequency):", readable(majority))
# the rise is measured from n = 2: from n = 1, where every example gets the same output, it could not
# fail. At smoke scale (2 seeds, 250 steps, n up to 4) n = 2 and 4 are still level, so there the
# rise is recorded, not asserted (as for d_h below)
fig2b_ok = trends["monotone_n"] and trends["rises_n"]
assert trends["monotone_n"] and (trends["rises_n"] or scale.current() == "smoke")
record(ref="Figure 2b", label="mem-fig2",
       statement="memorization grows monotonically with the context size n", paper_value="monotone in n",
       ours=f"monotone (tolerance 0.03) for every T; from n = {trends['n_from']} to {xs_n[-1]}: "
            + ", ".join(f"{g}: {m[from_n]:.2f} -> {m[-1]:.2f}" for g, m in means_n.items()),
       passed=fig2b_ok,
       result=results["fig2b"], reduced="reduced scale (see the table above)")

# %%
at, n_fixed = trends["at_d"], trends["n"]
below = [v for v in at if v <= n_fixed]
print(f"accuracy by d_h {readable(at)}; n = {n_fixed}")
# "flat after" is evidence only where a gain could show: the accuracy at d_h = n at least 0.1
# below 1 (twice the 0.05 tolerance); nearer the ceiling the check is the partly form
fig2c_ok = trends["rises_d"] and trends["flat_after"] and trends["room_d"]
print(f"room above d_h = n for a gain to show: {'yes' if trends['room_d'] else 'no'} "
      f"(accuracy {at[below[-1]]:.2f} at d_h = n)")
# The d_h effect is the weakest of the three (the notes saw it non-monotone with few seeds and
# steps); at smoke scale (2 seeds, 400 steps, T = 60) it is within the noise, so it is asserted
# from the default scale up and only recorded at smoke scale.
assert trends["rises_d"] or scale.current() == "smoke"
record(ref="Figure 2c", label="mem-fig2",
       statement="memorization rises with d_h up to d_h = n, with no gain beyond",
       paper_value="monotone for d_h <= n, flat after", ours=f"{at[below[0]]:.2f} at d_h={below[0]}, "
       f"{at[below[-1]]:.2f} at d_h=n={below[-1]}, " + ", ".join(f"{at[v]:.2f} at d_h={v}" for v in at
                                                               if v > n_fixed)
       + ("" if trends["room_d"] else " (too near 1 at d_h=n for a gain beyond to show)"),
       passed=fig2c_ok, partly=trends["rises_d"],
       result=results["fig2c"], reduced="reduced scale (see the table above)")

# %% [markdown]
# (mem-fig2-official)=
# ### Figure 2 on the official recipe
#
# The same three sweeps, at the same default budget (lr $10^{-2}$, full batch, 2,000-3,000 steps),
# with the official code's data, initial weights and checkpoint rule (`fig2a_official`,
# `fig2b_official`, `fig2c_official`): solid lines ours, dashed the official recipe.

# %%
official_results = {name: results[f"{name}_official"] for name in ("fig2a", "fig2b", "fig2c")}
trends_official = readings.figure2_readings(*official_results.values())
fig, axes = panels(3, ncols=3, height=2.3)
for ax, (name, key, label) in zip(axes, (("fig2a", "H", "heads H"), ("fig2b", "n", "context size n"),
                                          ("fig2c", "d_h", "head size d_h"))):
    for recipe, source, style in (("ours", results, "-"), ("official", official_results, "--")):
        xs, acc = sweeps.series(source[name], key, "acc")
        sweep(xs, {f"{recipe}, {g}": a for g, a in acc.items()}, ax=ax, xlabel=label,
              ylabel="training accuracy" if name == "fig2a" else "", title=f"Figure 2{name[-1]}", legend=None)
        for line in ax.get_lines()[-len(acc):]:
            line.set_linestyle(style)
shared_legend(fig, axes, ncols=2)
stamp(fig, "; ".join(official_results[name].label() for name in official_results))
plt.show()

# %%
def trend_row(recipe, t):
    fits = pd.DataFrame(t["fits"]).T
    return {"recipe": recipe, "Fig. 2a: smallest R^2": fits["r2"].min() if len(fits) else float("nan"),
            "Fig. 2a: examples per head": ", ".join(f"{v:.0f}" for v in fits["slope"]) if len(fits) else "",
            "Fig. 2a: the line fits best": bool(len(fits)) and bool(fits["linear_best"].all()),
            "Fig. 2b: monotone and rising in n": t["monotone_n"] and t["rises_n"],
            "Fig. 2c: rises to d_h = n": t["rises_d"], "Fig. 2c: flat after": t["flat_after"],
            "Fig. 2c: room for a gain": t["room_d"]}


official_row = trend_row("official", trends_official)
trend_table = pd.DataFrame([trend_row("ours", trends), official_row]).set_index("recipe")
display(table(trend_table))
official_r2 = official_row["Fig. 2a: smallest R^2"]
official_linear = bool(trends_official["fits"]) and all(f["slope"] > 0 for f in trends_official["fits"].values())
most_trends = bool(official_linear and official_r2 >= 0.9 and official_row["Fig. 2b: monotone and rising in n"]
                   and trends_official["rises_d"])
same_trends = (most_trends and official_r2 >= 0.98 and official_row["Fig. 2a: the line fits best"]
               and trends_official["flat_after"] and trends_official["room_d"])
record(ref="Figure 2 (official recipe)", label="mem-fig2-official",
       statement="on the official code's recipe, Figure 2's trends hold: linear in H, monotone in n, rising "
                 "with d_h up to n and flat after",
       paper_value="linear in H (R^2 >= 0.98), monotone in n, in d_h up to n, flat after",
       ours=f"official recipe: R^2 >= {official_r2:.3f} ({official_row['Fig. 2a: examples per head'] or 'no'} "
            f"examples/head; the line fits better than sqrt(H) and log(1+H): "
            f"{'yes' if official_row['Fig. 2a: the line fits best'] else 'no'}); monotone and rising in n: "
            f"{'yes' if official_row['Fig. 2b: monotone and rising in n'] else 'no'}; "
            f"rising in d_h up to n: {'yes' if trends_official['rises_d'] else 'no'}, flat after: "
            f"{'yes' if trends_official['flat_after'] else 'no'}",
       passed=same_trends, partly=most_trends, result=official_results["fig2a"],
       reduced="reduced scale (see the table above)")

# %% [markdown]
# **The trends barely depend on the recipe; the levels do.** On both recipes memorization grows
# with $H$, monotonically in $n$, and with $d_h$ up to $d_h = n$. The details differ, and the
# table above has them:
# - The linear fit is closer on the official recipe: $R^2$ of 0.985-0.998, where ours gives
#   0.978-0.986, just under the paper's 0.98 on its 6-point curve. Per head, the official recipe
#   memorizes about 38-47 examples and ours 53-59. On the official recipe the line also fits
#   better than $\sqrt{H}$ and $\log(1+H)$ on both curves; on ours, at $T = 200$ (four unsaturated
#   points) the concave fits are better ($R^2$ 0.9995 and 0.9997 against 0.986), so there "linear"
#   is not what the data single out.
# - Beyond $d_h = n$ ours stays flat (within 0.05), but at 0.94 at $d_h = n$ it sits too near 1
#   for a gain to show, so that reading is not evidence on our recipe. The official recipe,
#   further from the ceiling (0.77 at $d_h = 8$), reaches 0.85 at $d_h = 12$ before falling back
#   to 0.80 at 16: with four seeds one point, not a trend, but it fails the "flat after" check.
#   Both Figure 2c claims are therefore "partly".
# - At the same budget the official recipe memorizes less (at $T = 400$, $H = 8$: 0.84 against
#   0.99), as the small comparison above predicts.
#
# **Which recipe the book's figures use, and why.** The default and smoke scales keep ours: the
# paper's claims about Figure 2 are trends, which this section shows to hold on both recipes
# (each misses one detail), and ours memorizes more within a CPU budget, which makes the
# differences between points larger than the seed-to-seed spread. The paper-scale sweeps run the official recipe, so
# that their numbers can be set beside the paper's. A reader comparing absolute numbers at the
# default scale with the paper should read the dashed curves.

# %% [markdown]
# (mem-fig3)=
# ## Figure 3: do trained heads saturate?
#
# The proof makes every head saturated (one-hot softmax) on all examples but the ones it is
# responsible for. Appendix H trains at the largest $T$ memorized perfectly, without early stop,
# and finds the same pattern: most (head, example) pairs saturated (largest softmax coefficient
# above 0.99, the code's rule), and almost every example with at least one head that is not.
# The paper's $d = 64$, $n = 32$ runs (300,000 steps at $T = 550$ and 1300) do not fit a CPU, so
# we train a ladder of $T$ for each $H$ at our sizes and measure at the largest $T$ that every
# seed fits, as the paper does at its own.

# %%
sat = results["fig3"]
ladder = pd.DataFrame([{"H": m.point["H"], "T": m.point["T"], "mean train accuracy": float(np.mean(m.acc)),
                        "seeds fitted": f"{int((m.acc == 1.0).sum())}/{len(m.acc)}",
                        "saturated (head, example) pairs": m.saturation["saturated_fraction"]}
                       for m in sweeps.points(sat)])
display(table(ladder, index=False))
largest_fitted = {H: max((m for m in sweeps.points(sat, H=H) if (m.acc == 1.0).all()), key=lambda m: m.point["T"],
                         default=None) for H in sorted(ladder["H"].unique())}
at_capacity = [m for m in largest_fitted.values() if m is not None]
print("largest T every seed fits:", readable({f"H={H}": m.point["T"] if m else None
                                              for H, m in largest_fitted.items()}))

# %%
fig, axes = panels(3 * len(at_capacity), ncols=3, height=2.2)
sat_rows = []
for row, m in zip(np.reshape(axes, (-1, 3)), at_capacity):
    H, T = m.point["H"], m.point["T"]
    top = m.max_coefficient  # (T, H)
    row[0].imshow((top[:20] > 0.99).T, cmap="Greys", vmin=0, vmax=1, aspect="auto")
    row[0].set_xlabel("example (first 20)")
    row[0].set_ylabel("head")
    row[0].set_title(f"H={H}, T={T}: saturated (black)")
    row[1].set_title("per example")
    row[2].set_title("all (head, example) pairs")
    row[1].bar(range(H + 1), m.saturation["saturated_heads_hist"])
    row[1].set_xlabel("saturated heads")
    row[1].set_ylabel("examples")
    row[2].hist(top.ravel(), bins=40, range=(0, 1))
    row[2].set_xlabel("largest softmax coeff.")
    row[2].set_ylabel("count")
    sat_rows.append({"H": H, "T": T, "H(n-1)+1": rank_bound(H, m.point["n"]),
                     "train accuracy": np.mean(m.acc),
                     "saturated (head, example) pairs": m.saturation["saturated_fraction"],
                     "examples with a non-saturated head": m.saturation["examples_with_free_head"],
                     "median largest coefficient": float(np.median(top))})
stamp(fig, sat.label())
plt.show()
sat_table = pd.DataFrame(sat_rows)
table(sat_table)

# %%
fitted = len(at_capacity) == len(largest_fitted) and bool((sat_table["train accuracy"] == 1.0).all())
free_head, many, majority = readings.saturation_readings(
    sat_table["saturated (head, example) pairs"], sat_table["examples with a non-saturated head"])
fig3_ok = fitted and free_head and majority
print(f"fitted: {fitted}; >= 95% of examples keep a free head: {free_head}; "
      f">= 25% of pairs saturated: {many}; a majority saturated: {majority}")
assert fitted and free_head and many  # the paper's "majority" is recorded, not assumed
record(ref="Figure 3", label="mem-fig3",
       statement="trained heads: most (head, example) pairs saturated, almost every example has a "
                 "non-saturated head", paper_value="H=4, T=550 and H=8, T=1300 (d=64)",
       ours="; ".join(f"H={r['H']}, T={r['T']}: acc {r['train accuracy']:.2f}, "
                      f"{r['saturated (head, example) pairs']:.0%} saturated, "
                      f"{r['examples with a non-saturated head']:.0%} with a free head" for r in sat_rows),
       passed=fig3_ok, partly=fitted and free_head and many,
       result=sat, reduced="d=16, n=8, 5000 steps: at the largest T of a ladder that every seed fits")

# %% [markdown]
# **At the paper's own sizes.** The ladder is at $d = 16$, $n = 8$. Appendix H's two runs are at
# $d = 64$, $n = 32$: $H = 4$ at $T = 550$ and $H = 8$ at $T = 1300$, trained for 300,000 steps
# on the official recipe. We train the same two points on our recipe (full batch, learning rate
# $10^{-2}$, three seeds, a budget of steps printed below: 5,000 at the default scale, which fits
# a CPU; 50,000 at the paper scale). The saturation is measured, as above, on the first seed.

# %%
sat64 = results["fig3_d64"]
print(f"{sat64.config['steps']:,} steps, seeds {sat64.config['seeds']}, {sat64.wall_s / 60:.0f} min on "
      f"{sat64.provenance['device']}")
rows64 = []
fig, axes = panels(len(sat64.points), height=2.4)
for ax, m in zip(np.atleast_1d(axes), sweeps.points(sat64)):
    H, T = m.point["H"], m.point["T"]
    ax.hist(m.max_coefficient.ravel(), bins=40, range=(0, 1))
    ax.axvline(0.99, color="0.4", linestyle=":", linewidth=1)
    ax.set(xlabel="largest softmax coeff. (first seed)", ylabel="(head, example) pairs",
           title=f"d=64, n=32, H={H}, T={T}")
    rows64.append({"H": H, "T": T, "seeds fitted": f"{int((m.acc == 1.0).sum())}/{len(m.acc)}",
                   "first seed's accuracy": float(m.acc[0]),
                   "saturated (head, example) pairs": m.saturation["saturated_fraction"],
                   "examples with a non-saturated head": m.saturation["examples_with_free_head"],
                   "median largest coefficient": float(np.median(m.max_coefficient))})
stamp(fig, sat64.label())
plt.show()
sat64_table = pd.DataFrame(rows64)
table(sat64_table, index=False)

# %%
fitted64 = bool((sat64_table["first seed's accuracy"] == 1.0).all())
free64, many64, majority64 = readings.saturation_readings(
    sat64_table["saturated (head, example) pairs"], sat64_table["examples with a non-saturated head"])
print(f"d=64, n=32: the first seed fits every point: {fitted64}; >= 95% of examples keep a free head: {free64}; "
      f">= 25% of pairs saturated: {many64}; a majority saturated: {majority64}")
record(ref="Figure 3 (the paper's d=64, n=32)", label="mem-fig3",
       statement="trained heads at the paper's sizes: most (head, example) pairs saturated, almost every example "
                 "has a non-saturated head", paper_value="H=4, T=550 and H=8, T=1300 (d=64): most / almost all",
       ours="; ".join(f"H={r['H']}, T={r['T']}: {r['seeds fitted']} seeds fit, first seed "
                      f"{r['saturated (head, example) pairs']:.0%} saturated, "
                      f"{r['examples with a non-saturated head']:.0%} with a free head" for r in rows64),
       passed=fitted64 and free64 and majority64, partly=fitted64 and free64 and many64, result=sat64,
       reduced=f"our recipe (full batch, lr 1e-2), {sat64.config['steps']:,} steps instead of 300,000 on the official "
               "one")
if sat64.scale != "smoke":  # 100 smoke steps fit nothing; the default runs fit the first seed at both points
    assert fitted64 and free64

# %% [markdown]
# At the paper's sizes and the default budget, the first half of the picture holds and the
# second does not: every example keeps a head that is not saturated, but the saturated pairs stay
# well below half at both points, including $H = 8$, where every seed fits $T = 1300$. The
# learning rate that suits $d = 16$ fits $T = 550$ with $H = 4$ on only part of the seeds (the
# table's count). The paper trains sixty times longer, and softmax coefficients sharpen as the
# weights keep growing after the labels are fitted, so the budget is the first suspect: the
# paper scale of this sweep (`python -m lib.papers.mahdavi2024 paper fig3_d64`, 50,000 steps)
# and of `fig3` (the official recipe, 300,000) are the runs that would settle it, on a GPU.

# %%
beyond = [(r["T"], r["H(n-1)+1"]) for r in sat_rows if r["train accuracy"] == 1.0]
beyond_ok = len(beyond) > 0 and all(T_ > bound for T_, bound in beyond)
assert beyond_ok
# The paper gives the capacities (App. H) but never sets them beside Prop. 2's bound, and the
# ladder starts above the bound, so this is the course's observation, not a test of where
# capacity ends (rule 5; rule 4 for what it cannot show)
record(ref="Trained capacity vs the rank bound", label="mem-discussion",
       statement="trained classification memorizes more than the rank bound H(n-1)+1 of Prop. 2 (from App. H's "
                 "capacities; the paper does not make the comparison)",
       paper_value="App. H: T=550 at H=4 and T=1300 at H=8, against bounds 125 and 249",
       ours=", ".join(f"T={T_} fitted vs bound {bound}" for T_, bound in beyond), passed=beyond_ok,
       result=sat, reduced="reduced scale", paper="course",
       note="the ladder starts above the bound: an observation of what was fitted, not where capacity ends")

# %% [markdown]
# Along the ladder the saturated share rises with $T$ for both $H$, so the paper's choice to
# measure at capacity matters: below it, heads have slack and saturate less.
#
# Note the sizes: the runs memorize $T$ far above $H(n-1)+1$ (the bound on rank $Z$ under a
# shared context). Prop. 2 caps the rank of $Z$ for fixed attention weights, not what a trained
# classifier memorizes: it only needs the arg-max right, and its 100-way decoder and trainable
# embedding add capacity of their own.
#
# (mem-fig4)=
# ## Figure 4: per-example contexts (general position)
#
# Appendix I.1 draws every context token afresh for every example, so the data are in general
# position and Prop. 2 no longer caps the rank. The paper's reading: the linearity in $H$ remains,
# the dependence on $n$ weakens, suggesting $H(d-1)+1$ as the relevant count.

# %%
fig4_panels = (("fig4_heads", "H", "acc", False), ("fig4_context", "n", "acc", False),
               ("fig4_reg_heads", "H", "mse", True), ("fig4_reg_context", "n", "mse", True))
fig, axes = panels(len(fig4_panels), ncols=1, height=2.0)
for ax, (name, key, value, logy) in zip(axes, fig4_panels):
    xs_, vals = sweeps.series(results[name], key, value)
    sweep(xs_, vals, ax=ax, xlabel=key, ylabel="training accuracy" if value == "acc" else "training MSE",
          logy=logy, title=f"Fig. 4: {'classes' if value == 'acc' else 'regression'} vs {key}")
stamp(fig, "; ".join(results[name].label() for name, *_ in fig4_panels))
plt.show()

# %%
compare = []
for m in sweeps.points(results["fig4_heads"]):
    for shared in sweeps.points(results["fig2a"], **m.point):  # where the two grids share (T, H)
        compare.append({**m.point, "shared": np.mean(shared.acc), "per-example": float(np.mean(m.acc))})
compare = pd.DataFrame(compare, columns=["T", "n", "d_h", "H", "shared", "per-example"])
n1 = [float(np.mean(m.acc)) for m in sweeps.points(results["fig4_context"], n=1)]
xs_h4, acc_h4 = sweeps.series(results["fig4_heads"], "H", "acc")
fig4_ok = bool((compare["per-example"] >= compare["shared"] - 0.02).all() and min(n1) > 0.1
               and all(np.all(np.diff(a.mean(1)) >= -0.03) for a in acc_h4.values()))
display(table(compare, index=False))
print(f"n = 1 with per-example contexts: accuracy {readable(n1, 2)} (shared: the majority class)")
# The paper's own reading, "linear in H", needs unsaturated points to fit: with per-example
# contexts every curve here saturates by H = 4, which leaves too few (the rule's point 4), so
# the full claim cannot be checked at this scale and the check above is its partly form (the next section
# tests it at the paper's d = 64, n = 32).
unsaturated = {g: int((a.mean(1) < 0.95).sum()) for g, a in acc_h4.items()}
fits_h4 = readings.heads_fits(results["fig4_heads"], saturated=0.95)  # a line per T with >= 3 unsaturated points
linear_h4 = len(fits_h4) == len(acc_h4) and all(f["r2"] >= 0.98 and f["slope"] > 0 for f in fits_h4.values())
print("unsaturated points per curve (H):", readable(unsaturated), "; fits:", readable(fits_h4) or "none possible")
# The regression panels: the training MSE must not rise with H or with n (1e-4 of float noise)
reg_curves = {key: sweeps.series(results[name], key, "mse")[1] for name, key in
              (("fig4_reg_heads", "H"), ("fig4_reg_context", "n"))}
reg_falls = all(np.all(np.diff(a.mean(1)) <= 1e-4) for curves in reg_curves.values() for a in curves.values())
print("regression, training MSE by H:", readable({g: a.mean(1) for g, a in reg_curves["H"].items()}, 4),
      "; by n:", readable({g: a.mean(1) for g, a in reg_curves["n"].items()}, 4))
assert fig4_ok and (reg_falls or scale.current() == "smoke")  # smoke's 400 steps do not converge
record(ref="Figure 4", label="mem-fig4",
       statement="per-example (general-position) contexts: linear in H, n matters less, "
                 "more memorized than with a shared context",
       paper_value="linear in H; linearity in n weakens", ours=f"per-example >= shared at every (H, T); "
       f"n = 1 reaches {min(n1):.2f}; regression MSE never rises with H or with n; "
       f"linearity in H " + ("holds" if linear_h4 else
       f"not testable here ({', '.join(f'{g}: {k}' for g, k in unsaturated.items())} unsaturated points)"),
       passed=fig4_ok and reg_falls and linear_h4, partly=fig4_ok and reg_falls,
       result=results["fig4_heads"], reduced="reduced scale")

# %% [markdown]
# (mem-fig4-d64)=
# ### Figures 2a and 4 at the paper's d = 64, n = 32
#
# At the default sizes every per-example curve saturates by $H = 4$, so the paper's reading of
# Figure 4, "the linearity in $H$ still remains", cannot be tested there. At the paper's own
# width and context size ($d = 64$, $n = 32$, $d_h = 64$) we train $H$ = 1, 2, 4 and 8 heads on
# $T = 2000$ examples, once with one context shared by all examples (Figure 2a's setting) and once
# with per-example contexts (Figure 4's); the shared context also at $T = 4000$ (see below). $T$ was meant to be out of reach for $H = 8$:
# Appendix H reports 1,300 as the largest $T$ that $H = 8$ fits perfectly at these sizes. The
# recipe is ours (full batch, learning rate $10^{-2}$, two seeds, the step budget printed below,
# early stop once every example is fitted); the official grids sweep $H$ from 1 to 60 at
# $T$ = 10k-40k (Figure 2a) and 30k-130k (Figure 4) on the official recipe. Each curve is read
# as Figure 2a above: a line through the memorized count against $H$ on its unsaturated points,
# set beside the fits against $\sqrt{H}$ and $\log(1 + H)$. The grey lines are two counts from
# the paper: the dotted $H(n-1)+1$ that Theorem 1's construction guarantees, and the dashed
# $H(d-1)+1$ that it asks about for general position (the open question after Prop. 5, and
# Figure 4's caption).

# %%
# each context's sweeps, one T each (the shared context's second T was added once T = 2000 proved too small)
d64 = {"shared (Fig. 2a)": [results["fig2a_d64"], results["fig2a_d64_4k"]],
       "per-example (Fig. 4)": [results["fig4_heads_d64"]]}
shared_name, general_name = d64
SATURATED = 0.95  # a curve's points at or above this accuracy are left out of its line (as in Figure 2a)
print("\n".join(f"{r.name}: {r.config['steps']:,} steps, seeds {r.config['seeds']}, {r.wall_s / 60:.0f} min on "
                 f"{r.provenance['device']}" for rs in d64.values() for r in rs))


def merged_series(rs):
    """One context's H values and accuracy per seed by T (``{"T=...": (H, seeds)}``) over its sweeps."""
    hs, acc_by_T = None, {}
    for r in rs:
        hs_r, acc = sweeps.series(r, "H", "acc")
        if hs is not None and hs_r != hs:
            raise ValueError(f"{r.name}: H grid {hs_r} differs from {hs}")
        hs = hs_r
        acc_by_T.update(acc)
    return hs, acc_by_T


series_d64 = {name: merged_series(rs) for name, rs in d64.items()}  # (H values, {"T=...": acc})
fig, ax = plt.subplots(figsize=(6.4, 2.8))
for name, (hs, acc_by_T) in series_d64.items():
    sweep(hs, {f"{name}, {g}": readings.group_T(g) * a for g, a in acc_by_T.items()}, ax=ax, legend=None,
          bounds=(0, None), xlabel="heads H", ylabel="examples memorized (T x accuracy)",
          title="d = 64, n = 32: memorized count against H")
h_line = np.array(sorted({h for hs, _ in series_d64.values() for h in hs}), dtype=float)
n64, d_64 = results["fig4_heads_d64"].grid[0]["n"], results["fig4_heads_d64"].config["dim"]
ax.plot(h_line, h_line * (n64 - 1) + 1, ":", color="0.5", label=f"H(n-1)+1 (n={n64})")
ax.plot(h_line, h_line * (d_64 - 1) + 1, "--", color="0.5", label=f"H(d-1)+1 (d={d_64})")
for T in sorted({p["T"] for rs in d64.values() for r in rs for p in r.grid}):
    ax.axhline(T, color="0.75", linewidth=0.8, label=f"T = {T} (every example)")
legend_outside(ax)
stamp(fig, ";\n".join(r.label() for rs in d64.values() for r in rs))
plt.show()

# %%
fits_d64 = {name: {g: f for r in rs for g, f in readings.heads_fits(r, saturated=SATURATED).items()}
            for name, rs in d64.items()}
display(table(pd.DataFrame({f"{name}, {g}": f for name, fits in fits_d64.items() for g, f in fits.items()}).T))
# seed-mean accuracy at every (T, H), per context; the two contexts are compared where both ran
mean_at = {name: {(readings.group_T(g), h): float(v) for g, a in acc_by_T.items() for h, v in zip(hs, a.mean(1))}
           for name, (hs, acc_by_T) in series_d64.items()}
common = sorted(set(mean_at[shared_name]) & set(mean_at[general_name]))
general_more = bool(common) and all(mean_at[general_name][k] >= mean_at[shared_name][k] - 0.02 for k in common)
count_ratio = {f"T={T}, H={H}": mean_at[general_name][(T, H)] / max(mean_at[shared_name][(T, H)], 1e-9)
               for T, H in common}
untested_d64 = {name: not fits for name, fits in fits_d64.items()}  # no curve with 3 unsaturated points
linear_d64 = {name: bool(fits) and all(f["slope"] > 0 and f["r2"] >= 0.98 and f["linear_best"] for f in fits.values())
              for name, fits in fits_d64.items()}
rising_d64 = {name: bool(fits) and all(f["slope"] > 0 and f["r2"] >= 0.9 for f in fits.values())
              for name, fits in fits_d64.items()}
print("accuracy by H:", readable({name: {g: a.mean(1) for g, a in acc_by_T.items()}
                                  for name, (hs, acc_by_T) in series_d64.items()}, 3))
print(f"per-example >= shared at every common (T, H): {general_more}; examples memorized, per-example / shared:",
      readable(count_ratio, 2))
print("linear (R^2 >= 0.98, best of three) / rising line (R^2 >= 0.9):",
      readable({name: "untested" if untested_d64[name] else f"{linear_d64[name]} / {rising_d64[name]}"
                for name in d64}))

# %%
# per head, the examples gained from one H to the next on the shared context's unsaturated points:
# rising gains mean a count that grows faster than linearly (the reading below)
hs_shared, acc_shared = series_d64[shared_name]
gains_d64 = {}
for g, a in acc_shared.items():
    keep = a.mean(1) < SATURATED
    gains_d64[g] = np.diff(readings.group_T(g) * a.mean(1)[keep]) / np.diff(np.array(hs_shared)[keep])
faster_than_linear = bool(gains_d64) and all(len(v) >= 2 and np.all(np.diff(v) > 0) for v in gains_d64.values())
largest_h_fits = {name: {g: bool(a.mean(1)[-1] >= SATURATED) for g, a in acc_by_T.items()}
                  for name, (hs, acc_by_T) in series_d64.items()}
print("shared context, examples gained per head from one H to the next:", readable(gains_d64, 0))
print("the largest H fits (accuracy >= 0.95):", readable(largest_h_fits))
if scale.current() != "smoke":  # smoke trains H = 1, 2 on T = 40: two points, no line to fit
    assert rising_d64[shared_name] and general_more
    assert rising_d64[general_name] or untested_d64[general_name]
if d64[shared_name][0].scale == "default":  # the reading below, made on the default runs
    assert faster_than_linear  # at both T
    assert all(f["linear_best"] and f["r2"] < 0.98 for f in fits_d64[shared_name].values())
    assert largest_h_fits[shared_name]["T=2000"] and largest_h_fits[general_name]["T=2000"]
    assert untested_d64[general_name]
    assert max(count_ratio, key=count_ratio.get) == "T=2000, H=2"


def fit_text(name):
    """Each T's line on one context, or why there is none (fewer than three unsaturated points)."""
    hs, acc_by_T = series_d64[name]
    return ", ".join(
        f"{g}: R^2 {f['r2']:.3f} on {f['points']} points, {f['slope']:.0f} examples/head, line "
        f"{'best' if f['linear_best'] else 'not best'} of three" if (f := fits_d64[name].get(g)) else
        f"{g}: untested, {int((a.mean(1) < SATURATED).sum())} unsaturated point(s) (memorized by H = {hs}: "
        f"{readable(np.round(int(g.split('=')[1]) * a.mean(1)).astype(int))})" for g, a in acc_by_T.items())


official_T = {shared_name: "10k-40k", general_name: "30k-130k"}
for ref, name, statement, paper_value, extra in (
        ("Figure 2a (the paper's d=64, n=32)", shared_name,
         "memorization grows linearly in H (R^2 of the fit to the non-saturated part), at the paper's d and n",
         "R^2 >= 0.98 (d=64, n=32, H=1-60)", True),
        ("Figure 4 (the paper's d=64, n=32)", general_name,
         "per-example (general-position) contexts: memorization still linear in H, and above the shared "
         "context's (the caption's H(d-1)+1 against Theorem 1's H(n-1)+1, d > n)",
         "linear in H (d=64, n=32, H=1-60); suggests H(d-1)+1", general_more)):
    r = d64[name][0]
    Ts = ", ".join(str(T) for T in sorted({p["T"] for r_ in d64[name] for p in r_.grid}))
    record(ref=ref, label="mem-fig4-d64", statement=statement, paper_value=paper_value,
           ours=fit_text(name) + ("" if name == shared_name else
                                  f"; per-example >= shared at every common (T, H): {general_more}"),
           passed=linear_d64[name] and extra,
           # per-example: the part the data show (above shared) holds, and the line, where testable, rises
           partly=rising_d64[name] if name == shared_name else (rising_d64[name] or untested_d64[name]) and extra,
           substitute=f"H = {min(h_line):.0f}-{max(h_line):.0f} (official grid: 1-60) at T = {Ts} (official: "
                      f"{official_T[name]}), on our recipe, {r.config['steps']:,} steps, {len(r.config['seeds'])} seeds")

# %% [markdown]
# What the default runs show (numbers above):
#
# - **$T = 2000$ is not out of reach.** With a shared context $H = 8$ fits every example, within
#   the 2,000 steps, above the 1,300 that Appendix H reports for $H = 8$ after 300,000 steps on
#   the official recipe: the paper's capacities are its recipe's, and ours fits more at $H = 8$.
#   Per-example contexts fit nearly every example from $H = 4$ on. The number of examples a layer
#   fits out of a larger set is also not the largest set it fits entirely: $H = 4$ fits most of
#   the 2,000 examples here, while our own Figure 3 runs at $d = 64$ fit $T = 550$ entirely on only
#   part of the seeds.
# - **With a shared context the count grows faster than linearly** from $H = 1$ to $H = 4$, at
#   both $T$: the examples gained per added head rise from the second head to the third and
#   fourth (printed above). A line fits better than $\sqrt{H}$ and $\log(1 + H)$, but on three
#   points of a convex curve its $R^2$ stays below the paper's 0.98, so Figure 2a at these sizes
#   is recorded as partly. The second curve, at $T = 4000$, was added once $T = 2000$ proved too small; $H = 8$
#   just reaches the 0.95 cut there, so it too keeps three unsaturated points. This rests on
#   three points per curve, two seeds and one budget: the runs that did not fit every example
#   trained the whole 2,000 steps, and the models with few heads may be the furthest from what
#   they could fit by then. The paper scale of these sweeps (20,000 steps, $H$ up to 8, at $T$ up
#   to 16,000) is the run that would tell, on a GPU.
# - **Per-example contexts memorize at least as many examples at every $H$**, and more wherever
#   neither fits everything, as at the reduced sizes; the ratio is largest at $H = 2$. With two
#   unsaturated points the linearity in $H$ is not tested (rule 4 of the report card), so
#   Figure 4 at these sizes is recorded as partly: the part that holds is the comparison with a
#   shared context, which is our reading of the caption's $H(d-1)+1$, not a sentence of the paper.

# %% [markdown]
# (mem-fig5)=
# ## Figure 5: regression
#
# With real labels $y \sim U(0, 1)$ and the squared loss (shared context), memorization is the
# training MSE, on a log scale. The paper: the same monotone trends in $H$ and $n$.

# %%
fig, axes = panels(2, ncols=1, height=2.1)
mse_means = {}
for ax, (name, key) in zip(axes, (("fig5_heads", "H"), ("fig5_context", "n"))):
    xs_, vals = sweeps.series(results[name], key, "mse")
    mse_means[name] = (xs_, {g: a.mean(1) for g, a in vals.items()})
    sweep(xs_, vals, ax=ax, xlabel=key, ylabel="training MSE", logy=True, title=f"Figure 5: MSE vs {key}")
stamp(fig, "; ".join(results[name].label() for name in ("fig5_heads", "fig5_context")))
plt.show()

# %% [markdown]
# Once a run has fitted its labels the training MSE sits at a floor set by float32 and the
# optimizer ($10^{-14}$ to $10^{-6}$), and the order of runs on that floor is noise, which the
# log scale magnifies (the paper's caption warns of the same). So the check counts an MSE below
# $10^{-4}$ times the label variance (an RMS error under 1% of the labels' spread) as fitted, and
# compares the median seed. The drop in $n$ is measured from $n = 2$: with a shared context,
# $n = 1$ gives every example the same output, so its MSE is the label variance whatever the
# model, and a drop from it could not fail. The full check asks for a tenfold drop along each
# axis, the partly form for a fall.

# %%
xs_h, _ = mse_means["fig5_heads"]
label_var = sweeps.points(results["fig5_heads"])[0].label_var
floor = 1e-4 * label_var
drop, decreasing = {}, True
for name, key in (("fig5_heads", "H"), ("fig5_context", "n")):
    xs_key, per_seed = sweeps.series(results[name], key, "mse")
    median = {g: np.median(np.maximum(a, floor), axis=1) for g, a in per_seed.items()}
    decreasing &= all(np.all(np.diff(np.log10(m)) <= 0.3) for m in median.values())
    start = readings.first_informative_n(xs_key) if key == "n" else 0  # n = 1: constant output
    drop.update({f"{key} from {xs_key[start]}, {g}": m[start] / m[-1] for g, m in median.items()})
    print(f"median MSE by {key} (fitted = floor):", readable(median, 2))
print("median MSE at the smallest / the largest value:", ", ".join(f"{g}: {v:.3g}x" for g, v in drop.items()))
fig5_ok = decreasing and min(drop.values()) >= 10
fig5_falls = decreasing and min(drop.values()) > 1
learned = min(m.mse.min() for m in sweeps.points(results["fig5_heads"])) < label_var / 2
# At smoke scale (400 full-batch steps, T = 40) regression shows no trend yet: with so few steps
# more heads even optimize more slowly. There we assert only that some run learned (MSE below half
# the label variance); the trend itself is asserted from the default scale up.
assert fig5_falls or (scale.current() == "smoke" and learned)
record(ref="Figure 5", label="mem-fig5",
       statement="regression: training MSE falls with H and with n", paper_value="monotone trends",
       ours="median MSE falls " + ", ".join(f"{v:.3g}x ({g})" for g, v in drop.items())
       + " from the smallest value to the largest", passed=fig5_ok, partly=fig5_falls,
       result=results["fig5_heads"], reduced="reduced scale")

# %% [markdown]
# (mem-discussion)=
# ## What is tight and what is not
#
# - **Tight: the rank of $Z$.** With a shared context no attention weights give $Z$ more rank
#   than $H(n-1)+1$ (Prop. 2), and Theorem 1's construction reaches it exactly, at the paper's size
#   and larger, with every label fitted to $10^{-8}$ ({ref}`mem-thm-1`).
# - **Not tight: what a trained layer memorizes.** Trained classification fits far more examples
#   than $H(n-1)+1$ (Figure 3's runs above), because fitting a class needs only the arg-max right
#   and the trained embedding and decoder add parameters of their own. The theorem is a lower
#   bound; the only hard upper bound is of the order of the parameter count.
# - **The trends hold at our scale where the data can show them**, with our numbers in the report
#   card: growth in $H$ on the non-saturated part (a line fits it with $R^2 \ge 0.978$, but on
#   four points a concave curve fits as well, so "linear" is not singled out everywhere),
#   monotone in $n$, rising in $d_h$ up to $n$ (flat after, where our accuracy is too near 1 for
#   a gain to show), more memorized with per-example contexts, MSE falling with $H$ and $n$ in
#   regression (tenfold from $n = 2$ only at $T = 100$). Figure 2's trends are
#   the same on the official code's recipe, whose absolute numbers are lower at the same budget
#   ({ref}`mem-fig2-official`); on the code's own configuration that recipe lands on the code's
#   numbers seed by seed ({ref}`mem-official`).
# - **Saturation holds in part.** Trained heads do saturate on many examples and nearly every
#   example keeps a head that is not saturated, as the proof's picture suggests. Along our ladder
#   of $T$ the saturated share grows as $T$ approaches what the model can fit (table in
#   {ref}`mem-fig3`); at the largest $T$ every seed fits, it is a majority for $H = 8$ and below
#   half for $H = 4$, whose capacity at our sizes (5000 steps, $d = 16$, $n = 8$) is small. At
#   the paper's own $d = 64$, $n = 32$ and $T$ = 550 and 1300, after 5,000 steps instead of its
#   300,000, the saturated share stays well below half for both $H$, so the "most pairs
#   saturated" half of Figure 3 is not reproduced at our budget.
# - **What we did not run**: the paper's own sizes ($d = 64$, $T$ up to 130k, 50k-300k steps),
#   except Figure 3's two points at 5,000 steps and Figures 2a and 4 against $H \le 8$ at
#   $T$ = 2000 and 4000, both on our recipe (above). The grids are in the code,
#   on the official recipe; on a GPU,
#   `python -m lib.papers.mahdavi2024 paper` writes them to `data/`, and
#   this chapter then reads them instead of the CPU runs.

# %%
summary = paper_vs_ours([
    {"quantity": "Fig. 2a: linear in H", "paper": "R^2 >= 0.98",
     "ours": f"R^2 >= {r2_min:.3f}; the line fits best on {int(fit_table['linear_best'].sum())} of {len(fit_table)}"},
    {"quantity": "Fig. 2b: monotone in n", "paper": "yes", "ours": "yes" if fig2b_ok else "no"},
    {"quantity": "Fig. 2c: rises up to d_h = n, flat after", "paper": "yes",
     "ours": f"rises: {'yes' if trends['rises_d'] else 'no'}; flat after: {'yes' if trends['flat_after'] else 'no'}"
             + ("" if trends["room_d"] else " (no room for a gain to show)")},
    {"quantity": "Fig. 2 on the official code's recipe: the same trends", "paper": "(its recipe)",
     "ours": "yes" if same_trends else "no"},
    {"quantity": "Fig. 3: saturated pairs / examples with a free head", "paper": "most / almost all",
     "ours": "; ".join(f"H={r['H']}: {r['saturated (head, example) pairs']:.0%} / "
                       f"{r['examples with a non-saturated head']:.0%}" for r in sat_rows)},
    {"quantity": "Fig. 3 at the paper's d = 64, n = 32 (our recipe, 5,000 steps)", "paper": "most / almost all",
     "ours": "; ".join(f"H={r['H']}: {r['saturated (head, example) pairs']:.0%} / "
                       f"{r['examples with a non-saturated head']:.0%}" for r in rows64)},
    {"quantity": "Fig. 4: per-example contexts memorize more", "paper": "yes (suggests H(d-1)+1)",
     "ours": "yes" if fig4_ok else "no"},
    {"quantity": "Figs. 2a and 4 at d = 64, n = 32: linear in H", "paper": "yes (H = 1-60)",
     "ours": "; ".join(f"{name}: {fit_text(name)}" for name in d64)},
    {"quantity": "Fig. 5: MSE falls with H and n", "paper": "yes",
     "ours": ", ".join(f"{v:.3g}x ({g})" for g, v in drop.items())},
])
summary
