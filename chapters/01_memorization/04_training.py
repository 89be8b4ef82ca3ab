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
# $H$, the context size $n$ and the head size $d_h$ vary (Figure 2). This chapter sets up the
# training (and checks our recipe against the official code's) and reads Figure 2; the
# {ref}`next one <mem-saturation>` looks inside the trained heads for the softmax saturation the
# proof relies on (Figure 3), and repeats the sweeps with per-example contexts (Figure 4) and with
# real-valued labels (Figure 5).

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
import pandas as pd

from lib import claims, scale
from lib.papers.mahdavi2024 import checks, readings, sweeps
from lib.papers.mahdavi2024 import comparison as compare
from lib.results import paper_sweeps
from lib.plots import BANDS, legend_outside, panels, readable, shared_legend, stamp, sweep, table, use_style

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
# | minibatches | shuffled epochs, the last batch partial; 500 epochs, at least 50k steps | the full set |
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
# weights, positional table, shuffled epochs and checkpoint rule, {ref}`mem-official`), but need
# about 3 V100-days per seed;
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
# the same numbers in the same order, and a test compares them with torch's own modules), its
# sinusoidal table (computed in float32, as the code does), its minibatches (shuffled epochs of
# 256, the last one partial, drawn from torch's generator where the code's `DataLoader` draws
# them; a test compares the batches with a real `DataLoader`: here $T = 200 < 256$, so every
# step is the full set, as in the code) and its checkpoint rule (the accuracy of the lowest-loss
# evaluation). The sweep `official_vs_ours`
# (`lib.papers.mahdavi2024.comparison`) then swaps ingredients for ours: our initialisation
# $N(0, 1/\text{fan-in})$ with zero biases, our data generator (the same distributions, drawn by
# torch), both ("ours"), and, at $H = 4$, each part of our initialisation alone. Five seeds per
# cell, accuracy by the official rule.

# %%
comparison = sweeps.SWEEPS["official_vs_ours"].result(device=device)
cells, seeds_cmp = compare.comparison_cells(comparison), compare.comparison_seeds(comparison)
table(compare.comparison_table(cells))

# %% [markdown]
# Seed by seed, where the official code was run: the same data and the same initial weights, so
# only the arithmetic differs: the official code was run by hand on a 2-core CPU (the reading
# notes' machine, not a GPU), whose float32 kernels may round differently from this one's, and it
# evaluates one update later.
# A match below means each (H, seed) pair within 0.05 of the code's accuracy (10 of 200
# examples), seed by seed; the seed means are compared in the next table's rows.

# %%
display(table(compare.seed_by_seed(cells, seeds_cmp)))
found = compare.ablation(cells, seeds_cmp)
print(f"largest difference: {found['largest_apart']:.3f} over {found['compared']} (H, seed) pair(s)")
print("mean accuracy above the official recipe (averaged over the H each ran at):", readable(found["gap"]))

# %% tags=["hide-input"]
if comparison.scale != "smoke":  # the smoke scale runs 200 steps: nothing to compare with
    rebuilt, gap = checks.official_rebuilt(comparison), checks.official_gap(comparison)
    assert rebuilt.verdict == gap.verdict == "reproduced" or scale.current() != "default", (rebuilt.verdict, gap.verdict)
    record(rebuilt)
    record(gap)

# %% [markdown]
# **What the comparison says** (default scale, five seeds per cell).
# - Seed by seed, the official recipe on the course's model and trainer lands on the official
#   code's numbers: within one example of 200 at $H = 1$ and $H = 2$ (seed 42), within 0, 0 and 1
#   at $H = 8$ and within 2, 0 and 6 at $H = 4$ (with the code's float32 positional table; before
#   it, 0, 0, 0-2 and 1-7). What is left is arithmetic: the same data and the same initial
#   weights, updated on this CPU and on the CPU the official code ran on, drift apart over 20,000
#   steps (float32 training is rounding-chaotic at some points: another processor's kernels round
#   differently, and the difference grows).
#   The code's evaluation schedule matters once: counting our evaluation after the last update,
#   which the code never makes, would give $H = 1$, seed 42 one example fewer (0.040, the code's
#   own number).
# - **Our initialisation** explains our recipe's gap. Swapped in alone it gives what our whole
#   recipe gives (at $H = 4$, a mean of 0.79, ours 0.78, against the official recipe's 0.50; at
#   $H = 8$ every seed fits all 200 examples, where one seed of the official recipe never fits its
#   last two). Over the four $H$, its gain over the official recipe, seed by seed, is 0.12 [0.09,
#   0.14], and the whole recipe's 0.11 [0.07, 0.16] (95% intervals over five seeds): decided,
#   and our initialisation carries at least half of it (the verdict below). Our data generator
#   alone (the same distributions, other draws) moves the means by at most 0.05 either way. The
#   checkpoint rule hardly matters here: the lowest-loss evaluation and the last one differ in
#   four runs of 100, by one example each.
# - No single part of our initialisation carries the effect. At $H = 4$, swapping in one part
#   alone raises the mean by 0.00 ($W_Q, W_K$) to 0.07 ($W_V, W_O$: ours starts $W_O$ at standard
#   deviation 1, the code's Xavier at about 0.32), while all four together raise it by 0.30: the
#   parts compound. With five seeds, differences below about 0.1 are within the spread between
#   seeds (the official recipe alone ranges from 0.395 to 0.65 at $H = 4$).

# %% [markdown]
# (mem-fig2)=
# ## Figure 2: memorization against heads, context size and head size
#
# Theorem 1 predicts memorization growing **linearly in $H$** (it guarantees $H(n-1)+1$
# examples), **with $n$**, and **with $d_h$ up to $d_h = n$**, with nothing gained beyond. The
# paper's reading of its Figure 2: linear in $H$ with $R^2 \ge 0.98$ for the best linear fit to the
# non-saturated part of every curve; monotone in $n$; monotone in $d_h$ while $d_h \le n$.

# %% tags=["hide-input"]
fig, axes = panels(3, ncols=1, height=2.1)
for ax, (name, key, label) in zip(axes, (("fig2a", "H", "heads H"), ("fig2b", "n", "context size n"),
                                          ("fig2c", "d_h", "head size d_h"))):
    xs, acc = sweeps.series(results[name], key, "acc")
    sweep(xs, acc, ax=ax, xlabel=label, ylabel="training accuracy", title=f"Figure 2{name[-1]}")
n_fixed = results["fig2c"].grid[0]["n"]
axes[2].axvline(n_fixed, color="0.5", linestyle=":", label=f"d_h = n = {n_fixed}")
legend_outside(axes[2])
stamp(fig, "; ".join([results[name].label() for name in ("fig2a", "fig2b", "fig2c")] + [BANDS]))
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

# %% [markdown]
# The checks decide over seeds (`lib.stats`; five seeds here), each check's tests at its
# Bonferroni level. Figure 2a fits a line to each seed's memorized count on the unsaturated
# points and asks for a rising slope, an $R^2$ above the paper's 0.98 and a line that fits better
# than $\sqrt{H}$ and $\log(1+H)$; its partly form asks for $R^2$ above 0.9. Figure 2b asks for a
# rise of more than 0.1 from $n = 2$ (from $n = 1$, where a shared context gives every example the
# same output, it could not fail) and no step decidedly down. Figure 2c asks for a rise of more
# than 0.1 up to $d_h = n$ and, in full, every $d_h > n$ within 0.05 of it: evidence only where a
# gain could show, so the accuracy at $d_h = n$ must be decidedly below 0.9. The table above and
# the lines below are seed means; at smoke scale (2 seeds, 250 steps) the checks decide nothing.

# %%
means_n, n_fixed = trends["means_n"], trends["n"]
majority = {m.point["T"]: max(m.acc) for m in sweeps.points(results["fig2b"], n=1)}
print("seed means by n:", readable(means_n, 2))
print("n = 1 (constant output, at most the majority-class frequency):", readable(majority))
print(f"accuracy by d_h {readable(trends['at_d'])}; n = {n_fixed}; room above d_h = n for a gain to show: "
      f"{'yes' if trends['room_d'] else 'no'}")

# %% tags=["hide-input"]
fig2_checks = [checks.figure_2a(results), checks.figure_2b(results), checks.figure_2c(results)]
smoke = scale.current() == "smoke"
assert trends["monotone_n"] and (trends["rises_d"] or smoke)  # the seed means' trends
if results["fig2a"].scale == "default":  # over five seeds: the rise in n is decided, R^2 and d_h's flatness are not
    assert [c.verdict for c in fig2_checks] == ["inconclusive", "substituted", "partly"], fig2_checks
for check in fig2_checks:
    record(check)

# %% [markdown]
# Over five seeds the rise in $n$ is decided (by about 0.50 and 0.35 from $n = 2$; *substituted*
# only because our sizes are not the paper's), and so is the rise in $d_h$ up to $d_h = n$; at
# 0.92 there, too near 1 for a gain beyond to show, Figure 2c is *partly*. Figure 2a is
# *inconclusive*: every seed's line rises (about 54 and 59 examples per head), but single seeds'
# lines fit with $R^2$ of 0.96 on average, and five seeds decide it neither above the paper's
# 0.98 nor above 0.9 (the verdict's line gives the intervals).

# %% [markdown]
# (mem-fig2-official)=
# ### Figure 2 on the official recipe
#
# The same three sweeps, at the same default budget (lr $10^{-2}$, full batch, 2,000-3,000 steps),
# with the official code's data, initial weights, positional table and checkpoint rule
# (`fig2a_official`, `fig2b_official`, `fig2c_official`): solid lines ours, dashed the official
# recipe.

# %% tags=["hide-input"]
official_results = {name: results[f"{name}_official"] for name in ("fig2a", "fig2b", "fig2c")}
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
stamp(fig, "; ".join([official_results[name].label() for name in official_results] + [BANDS]))
plt.show()

# %%
trends_official = readings.figure2_readings(*official_results.values())
trend_table = pd.DataFrame({"ours": checks.official_trend_row(trends),
                            "official": checks.official_trend_row(trends_official)}).T.rename_axis("recipe")
table(trend_table)

# %% tags=["hide-input"]
fig2_official = checks.figure_2_official(results)
assert fig2_official.verdict == "inconclusive" or scale.current() != "default", fig2_official.verdict  # R^2 undecided
record(fig2_official)

# %% [markdown]
# **The trends barely depend on the recipe; the levels do.** On both recipes memorization grows
# with $H$, monotonically in $n$, and with $d_h$ up to $d_h = n$. The details differ, and the
# table above has them:
# - The linear fit of the seed means is about as close on both recipes: $R^2$ of 0.975-0.998 on
#   the official one (just under the paper's 0.98 on its curve at $T = 400$) and 0.981-0.986 on
#   ours. Per head, the official recipe memorizes about 39-47 examples and ours 54-59. On the
#   official recipe the line also fits better than $\sqrt{H}$ and $\log(1+H)$ on both curves; on
#   ours, at $T = 200$ (four unsaturated points) the concave fits are better ($R^2$ 0.996 and
#   0.995 against 0.986), so there "linear" is not what the data single out.
# - Beyond $d_h = n$ ours stays flat (within 0.05), but at 0.92 at $d_h = n$ it sits too near 1
#   for a gain to show, so that reading is not evidence on our recipe. The official recipe,
#   further from the ceiling (0.76 at $d_h = 8$), reaches 0.81 at $d_h = 12$ and 0.79 at 16:
#   within 0.05, and over seeds undecided.
# - Decided over seeds, the official recipe's check is *inconclusive* for the same reason as our
#   Figure 2a: each seed's line rises, but five seeds do not put its $R^2$ above 0.98 or 0.9.
# - At the same budget the official recipe memorizes less (at $T = 400$, $H = 8$: 0.82 against
#   0.99), as the small comparison above predicts.
#
# **Which recipe the book's figures use, and why.** The default and smoke scales keep ours: the
# paper's claims about Figure 2 are trends, which this section shows to hold on both recipes
# (each misses one detail), and ours memorizes more within a CPU budget, which makes the
# differences between points larger than the seed-to-seed spread. The paper-scale sweeps run the official recipe, so
# that their numbers can be set beside the paper's. A reader comparing absolute numbers at the
# default scale with the paper should read the dashed curves.
#
# The {ref}`next chapter <mem-saturation>` looks inside the trained heads (Figure 3), trains with
# per-example contexts (Figure 4), at the paper's own $d = 64$, $n = 32$, and with real-valued
# labels (Figure 5).
