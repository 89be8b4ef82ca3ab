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
# (mem-saturation)=
# # Inside the trained layer: saturation, general position, regression
#
# The {ref}`previous chapter <mem-training>` trained one attention layer on random labels and read
# Figure 2 of {cite}`mahdavi2024memorization`. The same sweeps (its setup and recipe, its tables of
# sizes) carry the paper's remaining training experiments: Appendix H looks inside the trained
# heads for the softmax saturation the proof of Theorem 1 relies on (Figure 3), Appendix I.1
# repeats Figure 2 with a context drawn afresh for every example (Figure 4), here also at the
# paper's own $d = 64$, $n = 32$, and Appendix A with real-valued labels (Figure 5).

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
from lib.papers.mahdavi2024 import checks, sweeps, trained
from lib.results import paper_sweeps
from lib.plots import BANDS, legend_outside, panels, paper_vs_ours, readable, stamp, sweep, table, use_style

use_style()
record = claims.Recorder(paper="mahdavi2024", chapter="chapters/01_memorization/05_saturation_and_general_position")
results = {name: s.result(device=device) for name, s in paper_sweeps("mahdavi2024").items()}

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
# seed fits, as the paper does at its own. We measure on the final weights, the same rule as our
# recipe's accuracy; the official code's analysis reloads its lowest-loss checkpoint first, a
# difference the verdict lists with the others.

# %%
sat = results["fig3"]
ladder = pd.DataFrame([{"H": m.point["H"], "T": m.point["T"], "mean train accuracy": float(np.mean(m.acc)),
                        "seeds fitted": f"{int((m.acc == 1.0).sum())}/{len(m.acc)}",
                        "saturated (head, example) pairs": m.saturation["saturated_fraction"]}
                       for m in sweeps.points(sat)])
display(table(ladder, index=False))
largest_fitted = trained.largest_fitted(sat)  # per H, the largest T every seed fits
at_capacity = [m for m in largest_fitted.values() if m is not None]
print("largest T every seed fits:", readable({f"H={H}": m.point["T"] if m else None
                                              for H, m in largest_fitted.items()}))

# %% tags=["hide-input"]
fig, axes = panels(3 * len(at_capacity), ncols=3, height=2.2)
for row, m in zip(np.reshape(axes, (-1, 3)), at_capacity):
    H, T, top = m.point["H"], m.point["T"], m.max_coefficient  # (T, H)
    row[0].imshow((top[:20] > 0.99).T, cmap="Greys", vmin=0, vmax=1, aspect="auto")
    row[0].set(xlabel="example (first 20)", ylabel="head", title=f"H={H}, T={T}: saturated (black)")
    row[1].bar(range(H + 1), m.saturation["saturated_heads_hist"])
    row[1].set(xlabel="saturated heads", ylabel="examples", title="per example")
    row[2].hist(top.ravel(), bins=40, range=(0, 1))
    row[2].set(xlabel="largest softmax coeff.", ylabel="count", title="all (head, example) pairs")
stamp(fig, sat.label())
plt.show()

# %%
sat_table = pd.DataFrame(trained.saturation_rows(at_capacity))
table(sat_table[["H", "T", "H(n-1)+1", "train accuracy", "saturated (head, example) pairs",
                 "examples with a non-saturated head", "median largest coefficient"]])

# %% [markdown]
# The check (`checks.figure_3`) asks that every $H$ fits its largest $T$, that at least 95% of the
# examples keep a non-saturated head, and that a majority of the (head, example) pairs be
# saturated (the paper's "most"); its partly form asks for at least a quarter. The chapter asserts
# the partly form: the paper's "majority" is recorded, not assumed.

# %% tags=["hide-input"]
fig3_check = checks.figure_3(results)
assert fig3_check.passed or fig3_check.partly
if results["fig3"].scale == "default":  # a majority of saturated pairs is not reached on the ladder
    assert fig3_check.verdict == "partly", fig3_check.verdict
record(fig3_check)

# %% [markdown]
# **At the paper's own sizes.** The ladder is at $d = 16$, $n = 8$. Appendix H's two runs are at
# $d = 64$, $n = 32$: $H = 4$ at $T = 550$ and $H = 8$ at $T = 1300$, trained for 300,000 steps
# on the official recipe. We train the same two points on our recipe (full batch, learning rate
# $10^{-2}$, five seeds at the default scale, a budget of steps printed below: 5,000 at the default scale, which fits
# a CPU; 50,000 at the paper scale). The saturation is measured, as above, on the first seed.

# %%
sat64 = results["fig3_d64"]
print(f"{sat64.config['steps']:,} steps, seeds {sat64.config['seeds']}, {sat64.wall_s / 60:.0f} min on "
      f"{sat64.provenance['device']}")
fig, axes = panels(len(sat64.points), height=2.4)
for ax, m in zip(np.atleast_1d(axes), sweeps.points(sat64)):
    ax.hist(m.max_coefficient.ravel(), bins=40, range=(0, 1))
    ax.axvline(0.99, color="0.4", linestyle=":", linewidth=1)
    ax.set(xlabel="largest softmax coeff. (first seed)", ylabel="(head, example) pairs",
           title=f"d=64, n=32, H={m.point['H']}, T={m.point['T']}")
stamp(fig, sat64.label())
plt.show()
rows64 = trained.saturation_rows(sweeps.points(sat64))
table(pd.DataFrame(rows64)[["H", "T", "seeds fitted", "first seed's accuracy", "saturated (head, example) pairs",
                            "examples with a non-saturated head", "median largest coefficient"]], index=False)

# %% tags=["hide-input"]
fig3_d64_check = checks.figure_3_d64(results)
if sat64.scale != "smoke":  # 100 smoke steps fit nothing; at default the first seed fits H = 8 (not H = 4, below)
    fitted64 = [r for r in rows64 if r["first seed's accuracy"] == 1.0]
    assert fitted64 and all(r["examples with a non-saturated head"] >= 0.95 for r in fitted64)
if sat64.scale == "default":  # the saturated pairs stay well below half at the default budget
    assert fig3_d64_check.verdict == "not reproduced", fig3_d64_check.verdict
record(fig3_d64_check)

# %% [markdown]
# At the paper's sizes and the default budget, where a model fits, the first half of the picture
# holds and the second does not: at $H = 8$ every seed fits $T = 1300$ and every example keeps a
# head that is not saturated, but only a fifth of the (head, example) pairs are saturated, well
# below half. At $H = 4$ no seed fits $T = 550$ entirely: the five end between 0.02 and 0.99 of the
# examples, and the first, on which the saturation is measured, at 0.02 with every head saturated
# on every example (a model stuck, not one that memorizes). Full-batch training at the learning
# rate that suits $d = 16$ is unstable at this point: the same three seeds trained as a
# three-member ensemble (the stored run before this one) ended at 1.0, 0.02 and 0.15, and here at
# 0.02, 0.18 and 0.28. Seeds, data and recipe are the same; what changed is the ensemble's size,
# so the batched float32 kernels rounded differently, and that flipped seed 0. Whether a seed fits
# $T = 550$ with $H = 4$ on this recipe is close to chance (one of three before, none of five here,
# two within 6% of it), and a check that reads the first seed reads that chance. The paper trains
# sixty times longer, and softmax coefficients sharpen as the
# weights keep growing after the labels are fitted, so the budget is the first suspect: the
# paper scale of this sweep (`python -m lib.papers.mahdavi2024 paper fig3_d64`, 50,000 steps)
# and of `fig3` (the official recipe, 300,000) are the runs that would settle it, on a GPU.

# %% tags=["hide-input"]
# The paper gives the capacities (App. H) but never sets them beside Prop. 2's bound, and the
# ladder starts above the bound, so this is the course's observation, not a test of where
# capacity ends (rule 5; rule 4 for what it cannot show)
capacity_check = checks.trained_capacity(results)
assert capacity_check.passed
if results["fig3"].scale == "default":
    assert capacity_check.verdict == "substituted", capacity_check.verdict
record(capacity_check)

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

# %% tags=["hide-input"]
fig4_panels = (("fig4_heads", "H", "acc", False), ("fig4_context", "n", "acc", False),
               ("fig4_reg_heads", "H", "mse", True), ("fig4_reg_context", "n", "mse", True))
fig, axes = panels(len(fig4_panels), ncols=1, height=2.0)
for ax, (name, key, value, logy) in zip(axes, fig4_panels):
    xs_, vals = sweeps.series(results[name], key, value)
    sweep(xs_, vals, ax=ax, xlabel=key, ylabel="training accuracy" if value == "acc" else "training MSE",
          logy=logy, title=f"Fig. 4: {'classes' if value == 'acc' else 'regression'} vs {key}")
stamp(fig, "; ".join([results[name].label() for name, *_ in fig4_panels] + [BANDS]))
plt.show()

# %% [markdown]
# The check (`checks.figure_4`) decides over seeds, at its Bonferroni level: per-example contexts
# memorize more than a shared one (Welch, where the two grids share $(T, H)$: more somewhere, less
# nowhere), $n = 1$ stays above 0.1, no $H$ curve decidedly falls and the regression MSE never
# decidedly rises with $H$ or with $n$ (read as log10 of its share of the label variance, with
# $10^{-4}$ counted as fitted). The paper's own reading, "linear in $H$", needs unsaturated points
# to fit: with per-example contexts every curve here saturates by $H = 4$, which leaves too few
# (rule 4 of the report card), so the full claim cannot be checked at this scale (the next
# section tests it at the paper's $d = 64$, $n = 32$). The partly form is undecided too: at
# $T = 400$ the accuracy at $n = 1$, 0.13, is not decided above 0.1 by five seeds at the check's
# level.

# %%
fig4 = trained.figure_4_reading(results)
display(table(fig4["compare"], index=False))
print(f"n = 1 with per-example contexts: accuracy {readable(fig4['n1'], 2)} (shared: the majority class)")
print("unsaturated points per curve (H):", readable(fig4["unsaturated"]), "; fits:",
      readable(fig4["fits"]) or "none possible")
print("regression, training MSE by H:", readable({g: a.mean(1) for g, a in fig4["regression"]["H"].items()}, 4),
      "; by n:", readable({g: a.mean(1) for g, a in fig4["regression"]["n"].items()}, 4))

# %% tags=["hide-input"]
assert fig4["more"] and (fig4["reg_falls"] or scale.current() == "smoke")  # smoke's 400 steps do not converge
fig4_check = checks.figure_4(results)
if results["fig4_heads"].scale == "default":  # no line to test; n = 1 at T = 400 undecided against 0.1
    assert fig4_check.verdict == "inconclusive", fig4_check
record(fig4_check)

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
# recipe is ours (full batch, learning rate $10^{-2}$, five seeds with either context at the
# default scale and two at the paper scale, the step budget printed below,
# early stop once every example is fitted); the official grids sweep $H$ from 1 to 60 at
# $T$ = 10k-40k (Figure 2a) and 30k-130k (Figure 4) on the official recipe. Each curve is read
# as Figure 2a in the previous chapter ({ref}`mem-fig2`): a line through the memorized count
# against $H$ on its unsaturated points, set beside the fits against $\sqrt{H}$ and
# $\log(1 + H)$. The grey lines are two counts from the paper: the dotted $H(n-1)+1$ that
# Theorem 1's construction guarantees, and the dashed $H(d-1)+1$ that it asks about for general
# position (the open question after Prop. 5, and Figure 4's caption).

# %%
d64 = trained.heads_d64_reading(results)  # each context's sweeps (the shared one at T = 2000 and 4000)
shared_name, general_name = d64["shared"], d64["general"]
print("\n".join(f"{r.name}: {r.config['steps']:,} steps, seeds {r.config['seeds']}, {r.wall_s / 60:.0f} min on "
                 f"{r.provenance['device']}" for rs in d64["results"].values() for r in rs))

# %% tags=["hide-input"]
fig, ax = plt.subplots(figsize=(6.4, 2.8))
for name, (hs, acc_by_T) in d64["series"].items():
    sweep(hs, {f"{name}, {g}": int(g[2:]) * a for g, a in acc_by_T.items()}, ax=ax, legend=None,
          bounds=(0, None), xlabel="heads H", ylabel="examples memorized (T x accuracy)",
          title="d = 64, n = 32: memorized count against H")
h_line = np.array(sorted({h for hs, _ in d64["series"].values() for h in hs}), dtype=float)
n64, d_64 = results["fig4_heads_d64"].grid[0]["n"], results["fig4_heads_d64"].config["dim"]
ax.plot(h_line, h_line * (n64 - 1) + 1, ":", color="0.5", label=f"H(n-1)+1 (n={n64})")
ax.plot(h_line, h_line * (d_64 - 1) + 1, "--", color="0.5", label=f"H(d-1)+1 (d={d_64})")
for T in sorted({p["T"] for rs in d64["results"].values() for r in rs for p in r.grid}):
    ax.axhline(T, color="0.75", linewidth=0.8, label=f"T = {T} (every example)")
legend_outside(ax)
stamp(fig, ";\n".join([r.label() for rs in d64["results"].values() for r in rs] + [BANDS]))
plt.show()

# %%
display(table(pd.DataFrame({f"{name}, {g}": f for name, fits in d64["fits"].items() for g, f in fits.items()}).T))
print("accuracy by H:", readable({name: {g: a.mean(1) for g, a in acc_by_T.items()}
                                  for name, (hs, acc_by_T) in d64["series"].items()}, 3))
print(f"per-example >= shared at every common (T, H): {d64['general_more']}; examples memorized, per-example / "
      "shared:", readable(d64["count_ratio"], 2))
print("linear (R^2 >= 0.98, best of three) / rising line (R^2 >= 0.9):",
      readable({name: "untested" if d64["untested"][name] else f"{d64['linear'][name]} / {d64['rising'][name]}"
                for name in d64["series"]}))
# per head, the examples gained from one H to the next on the shared context's unsaturated points:
# rising gains mean a count that grows faster than linearly (the reading below)
print("shared context, examples gained per head from one H to the next:", readable(d64["gains"], 0))
print("the largest H fits (accuracy >= 0.95):", readable(d64["largest_h_fits"]))

# %% tags=["hide-input"]
if scale.current() != "smoke":  # smoke trains H = 1, 2 on T = 40: two points, no line to fit
    assert d64["rising"][shared_name] and d64["general_more"]
    assert d64["rising"][general_name] or d64["untested"][general_name]
if d64["results"][shared_name][0].scale == "default":  # the reading below, made on the default runs
    assert d64["faster_than_linear"]  # at both T
    assert all(f["linear_best"] for f in d64["fits"][shared_name].values())
    assert d64["fits"][shared_name]["T=2000"]["r2"] < 0.98 <= d64["fits"][shared_name]["T=4000"]["r2"]
    assert d64["largest_h_fits"][shared_name]["T=2000"] and d64["largest_h_fits"][general_name]["T=2000"]
    assert not d64["largest_h_fits"][shared_name]["T=4000"]
    assert d64["untested"][general_name]
    assert max(d64["count_ratio"], key=d64["count_ratio"].get) == "T=2000, H=2"
d64_checks = [checks.figure_2a_d64(results), checks.figure_4_d64(results)]
if d64["results"][shared_name][0].scale == "default":  # per-seed R^2 straddles 0.98; the comparison holds
    assert [c.verdict for c in d64_checks] == ["inconclusive", "partly"], d64_checks
for d64_check in d64_checks:
    record(d64_check)

# %% [markdown]
# What the default runs show (numbers above):
#
# - **$T = 2000$ is not out of reach.** With a shared context $H = 8$ fits every example, within
#   the 2,000 steps, above the 1,300 that Appendix H reports for $H = 8$ after 300,000 steps on
#   the official recipe: the paper's capacities are its recipe's, and ours fits more at $H = 8$.
#   Per-example contexts fit nearly every example from $H = 4$ on. The number of examples a layer
#   fits out of a larger set is also not the largest set it fits entirely: $H = 4$ fits most of
#   the 2,000 examples here, while our own Figure 3 runs at $d = 64$ fit $T = 550$ entirely on
#   none of five seeds (on one of three in the earlier run).
# - **With a shared context the count grows faster than linearly** from $H = 1$ to $H = 4$, at
#   both $T$: the examples gained per added head rise from the second head to the third and
#   fourth (printed above). A line fits better than $\sqrt{H}$ and $\log(1 + H)$ at both $T$. On
#   the seed means its $R^2$ is 0.96 at $T = 2000$, on three unsaturated points, and 0.99 at
#   $T = 4000$, where $H = 8$ stays below the 0.95 cut (0.91 [0.82, 1] over five seeds) and the
#   curve keeps four points. The second curve was added once $T = 2000$ proved too small. Over
#   five seeds the slope is decided positive (518 [468, 567] examples per head at $T = 4000$),
#   but each seed's $R^2$ is not decided on either side of the paper's 0.98 (0.954 [0.914, 0.995]
#   at $T = 2000$, 0.970 [0.924, 1] at $T = 4000$), so Figure 2a at these sizes stays
#   *inconclusive*, as it was on two seeds. This rests on three and four points per curve and one
#   budget: the runs that did not fit every example trained the whole 2,000 steps, and the models
#   with few heads may be the furthest from what they could fit by then. The paper scale of these
#   sweeps (20,000 steps, $H$ up to 8, at $T$ up to 16,000) is the run that would tell, on a GPU.
# - **Per-example contexts memorize more examples**, as at the reduced sizes, and this is decided:
#   over five seeds with each context, Welch's test finds per-example above shared at some
#   $(T, H)$ and below at none, at the Bonferroni level of the check (at $T = 2000$: 0.15 against
#   0.04 of the examples with $H = 1$, 0.72 [0.58, 0.86] against 0.16 [0.04, 0.27] with $H = 2$,
#   1.00 against 0.79 [0.62, 0.96] with $H = 4$; both fit everything with $H = 8$). The ratio is
#   largest at $H = 2$. With two unsaturated points the linearity in $H$ is not tested (rule 4 of
#   the report card), so Figure 4 at these sizes is *partly* reproduced: the comparison (our
#   reading of the caption's $H(d-1)+1$, not a sentence of the paper) holds, the line is untested.
#   With two seeds per context the comparison had been undecided (*inconclusive*).

# %% [markdown]
# (mem-fig5)=
# ## Figure 5: regression
#
# With real labels $y \sim U(0, 1)$ and the squared loss (shared context), memorization is the
# training MSE, on a log scale. The paper: the same monotone trends in $H$ and $n$.

# %% tags=["hide-input"]
fig, axes = panels(2, ncols=1, height=2.1)
for ax, (name, key) in zip(axes, (("fig5_heads", "H"), ("fig5_context", "n"))):
    xs_, vals = sweeps.series(results[name], key, "mse")
    sweep(xs_, vals, ax=ax, xlabel=key, ylabel="training MSE", logy=True, title=f"Figure 5: MSE vs {key}")
stamp(fig, "; ".join([results[name].label() for name in ("fig5_heads", "fig5_context")]
                     + [f"{BANDS}, drawn only where positive (log axis)"]))
plt.show()

# %% [markdown]
# Once a run has fitted its labels the training MSE sits at a floor set by float32 and the
# optimizer ($10^{-14}$ to $10^{-6}$), and the order of runs on that floor is noise, which the
# log scale magnifies (the paper's caption warns of the same). So the check counts an MSE below
# $10^{-4}$ times the label variance (an RMS error under 1% of the labels' spread) as fitted, and
# decides over seeds on log10 of each seed's MSE as a share of the label variance. The drop in
# $n$ is measured from $n = 2$: with a shared context, $n = 1$ gives every example the same
# output, so its MSE is the label variance whatever the model, and a drop from it could not fail.
# The full check asks for a drop decidedly above tenfold along each axis and no step decidedly
# up, the partly form for a decided fall. Over five seeds the drop along $n$ at $T = 50$ (about
# 0.8 decades, from $-0.5$ to $2.2$ decades) is decided neither way, so the verdict is
# *inconclusive*.

# %%
fig5 = trained.figure_5_reading(results)
for key, median in fig5["medians"].items():
    print(f"median MSE by {key} (fitted = floor):", readable(median, 2))
print("median MSE at the smallest / the largest value:", ", ".join(f"{g}: {v:.3g}x" for g, v in fig5["drop"].items()))

# %% tags=["hide-input"]
# At smoke scale (400 full-batch steps, T = 40) regression shows no trend yet: with so few steps
# more heads even optimize more slowly. There we assert only that some run learned (MSE below half
# the label variance); the trend itself is asserted from the default scale up.
fig5_check = checks.figure_5(results)
assert fig5["decreasing"] or (scale.current() == "smoke" and fig5["learned"])  # the median seed's trend
if results["fig5_heads"].scale == "default":  # the drop along n at T = 50 is undecided over five seeds
    assert fig5_check.verdict == "inconclusive", fig5_check
record(fig5_check)

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
# - **The trends show at our scale, and some are decided over seeds**, with our numbers in the
#   report card. Decided: memorization rises with $n$ and with $d_h$ up to $n$, and per-example
#   contexts memorize more than a shared one. Shown by the seed means but not decided by five
#   seeds (so *inconclusive*): growth in $H$ that is linear (a line through the means fits with
#   $R^2 \ge 0.981$, single seeds' lines less well, and on four points a concave curve fits as
#   well), flat after $d_h = n$ (our accuracy there is too near 1 for a gain to show), and MSE
#   falling tenfold with $H$ and $n$ in regression. Figure 2's trends are
#   the same on the official code's recipe, whose absolute numbers are lower at the same budget
#   ({ref}`mem-fig2-official`); on the code's own configuration that recipe lands on the code's
#   numbers seed by seed ({ref}`mem-official`).
# - **Saturation holds in part.** Trained heads do saturate on many examples and nearly every
#   example keeps a head that is not saturated, as the proof's picture suggests. Along our ladder
#   of $T$ the saturated share grows as $T$ approaches what the model can fit (table in
#   {ref}`mem-fig3`); at the largest $T$ every seed fits, it is a majority for $H = 8$ and below
#   half for $H = 4$, whose capacity at our sizes (5000 steps, $d = 16$, $n = 8$) is small. At
#   the paper's own $d = 64$, $n = 32$ and $T$ = 550 and 1300, after 5,000 steps instead of its
#   300,000, the saturated share stays well below half at $H = 8$, where every seed fits, and no
#   seed fits $T = 550$ with $H = 4$ (whether one does is close to chance on our recipe), so the
#   "most pairs saturated" half of Figure 3 is not reproduced at our budget.
# - **What we did not run**: the paper's own sizes ($d = 64$, $T$ up to 130k, 50k-300k steps),
#   except Figure 3's two points at 5,000 steps and Figures 2a and 4 against $H \le 8$ at
#   $T$ = 2000 and 4000, both on our recipe (above). The grids are in the code,
#   on the official recipe; on a GPU,
#   `python -m lib.papers.mahdavi2024 paper` writes them to `data/`, and
#   these chapters then read them instead of the CPU runs.

# %% tags=["hide-input"]
trained_checks = [checks.figure_2a(results), checks.figure_2b(results), checks.figure_2c(results),
                  checks.figure_2_official(results), fig3_check, fig3_d64_check, checks.figure_4(results),
                  checks.figure_2a_d64(results), checks.figure_4_d64(results), fig5_check]
paper_vs_ours([{"quantity": f"{c.ref}: {c.statement}", "paper": c.paper_value, "ours": f"{c.verdict}: {c.ours}"}
               for c in trained_checks])
