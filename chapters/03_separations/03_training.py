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
# (sep-training)=
# # Separations in training: index lookup and bounded Dyck
#
# The constructions of {ref}`sep-constructions` say what a model *can* represent, the lower
# bounds of {ref}`sep-lower-bounds` what it cannot. Sec. 6 of
# {cite}`bhattamishra2024separations` asks whether the same differences show when the models are
# trained, at lengths where the lower bounds do not yet bite ({ref}`sep-implied-widths`): (1) are one-layer transformers
# better than larger recurrent models at index lookup? (2) are recurrent models and two-layer
# transformers better than one-layer transformers at recognizing Dyck-(2,2)?
#
# The paper trains with Adam on fresh batches of 64 for up to 250k steps, lengths 20 to 400,
# alphabets of 64 symbols, and reports the best of a learning-rate grid per model. Its figures
# carry no numbers in the text, so we reproduce the qualitative claims only. On a CPU we run
# the reduced configurations of the reading notes: a 4-symbol alphabet for index lookup (fewer
# bits per token make the length effect visible at small $N$) at $N \le 40$, and Dyck-(2,2) at
# $N \le 50$, each architecture with a small learning-rate grid trained as one ensemble of the
# library's trainer (five seeds per learning rate; each figure's stamp gives its sweep's counts). The models are the library's transformer (pre-LayerNorm,
# causal, four heads, learned positions, GPT-2 style as the paper's), its LSTM, and its
# state-space and linear-attention stacks (DSS by FFT convolution, Mamba's selective scan and
# RetNet's retention, written in plain PyTorch so that they run on a CPU; the paper used the
# authors' CUDA implementations of DSS and Mamba).

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
from IPython.display import display

from lib import bench, claims, plots, stats
from lib.papers.bhattamishra2024 import checks, sweeps
from lib.papers.bhattamishra2024.analysis import (best_table, equality_seed_table, equality_table, seed_table,
                                                  shortcut_table, width_table)
from lib.papers.bhattamishra2024.figures import by_length, curves_panel, width_panels
from lib.plots import table

plots.use_style()
record = claims.Recorder(paper="bhattamishra2024", chapter="chapters/03_separations/03_training")


# %% [markdown]
# (sep-fig2ab)=
# ## Figure 2a-b: index lookup
#
# A one-layer transformer of width 32 against recurrent models as wide or wider (an LSTM of
# width 64; two-layer DSS and RetNet stacks of width 64 and a two-layer Mamba of width 32), trained on
# lengths $n \sim U\{5..N\}$ and evaluated at length exactly $N$. Chance is 1/4. Every model is
# read at its best learning rate over five seeds, and the check decides each of its conditions
# over the seeds: a threshold by the seeds' 95% interval, a comparison by Welch's test, a trend
# by Kendall's, each at the Bonferroni level of the check's tests (`lib.stats`); a condition the
# seeds cannot decide makes the verdict "inconclusive" rather than a pass or a fail.

# %%
idx = sweeps.result("index_lookup")
idx_ssm = sweeps.result("index_lookup_ssm")
idx_table = pd.concat([best_table(idx), best_table(idx_ssm)], ignore_index=True)
idx_seeds = pd.concat([seed_table(idx), seed_table(idx_ssm)], ignore_index=True)
idx_table.insert(3, "best lr: mean [95% interval]", [stats.describe(v, bounds=(0, 1)) for v in idx_seeds["per seed"]])
display(table(idx_table.drop(columns=["accuracy at length N"]), index=False))

# %% tags=["hide-input"]
lengths = idx.config["lengths"]
all_archs = idx.config["archs"] + idx_ssm.config["archs"]
fig, axes = plt.subplots(1, 2, figsize=(10, 3.6))
by_length(axes[0], idx_seeds, all_archs, chance=1 / idx.config["n_symbols"],
          title="Figure 2a (reduced): accuracy against length")
axes[0].legend(fontsize=7)
curves_panel(idx, max(lengths), axes[1], f"Figure 2b (reduced): validation at N = {max(lengths)}")
curves_panel(idx_ssm, max(lengths), axes[1], f"Figure 2b (reduced): validation at N = {max(lengths)}")
axes[1].legend(fontsize=7)
plots.stamp(fig, f"{idx.label()}; {idx_ssm.label()}; |Σ| = {idx.config['n_symbols']}; transformer and LSTM: "
            f"{len(idx.config['seeds'])} seeds x {len(idx.config['lrs'])} learning rates, DSS/RetNet/Mamba: "
            f"{len(idx_ssm.config['seeds'])} seeds x {len(idx_ssm.config['lrs'])} learning rates; "
            f"{idx.config['steps']} steps of batch 64; bands: 95% intervals over seeds")
plt.show()

# %% tags=["hide-input"]
figure_2ab = checks.figure_2ab(idx, idx_ssm)
if idx.scale == "default":  # the verdict the stored default run bears (Mamba at N = 20 undecided)
    assert figure_2ab.verdict == "inconclusive", figure_2ab.verdict
record(figure_2ab)

# %% [markdown]
# At the same step budget the transformer reads the queried symbol at every length (0.98 at
# $N = 40$), while the recurrent models, as wide or wider, fall towards chance as $N$ grows: over
# five seeds the LSTM, DSS and RetNet each end below 0.6 at $N = 40$, each is beaten by the
# transformer there, and each decreases with length (RetNet from 0.56 at $N = 10$, DSS from 0.93,
# the LSTM from 0.84). That is the paper's qualitative picture, at lengths ten times shorter.
# Mamba ran to $N = 20$ only (the sweep's `longest_mamba`): even with the fused selective scan
# its cost grows with the length, and the default sweep stops where five seeds stay affordable on
# a CPU. At $N = 20$ it is at 0.48 [0.40, 0.56] over five seeds: below the transformer, but at
# the check's Bonferroni level (13 tests, 99.6% each) not decidedly below 0.6, and two lengths
# give no trend. So the verdict is **inconclusive**; with one seed of the state-space models it
# read "partly", from single thresholds on seed means. Mamba at $N = 40$ would settle it (about
# eight more minutes of this sweep). The lower bound does not force the failures: an LSTM of 64
# units with 32-bit numbers could hold $2^{11}$ bits, far more than the $2 \times 40$ bits of a
# length-40 string. What the experiment shows is what is *learned* in a budget, which is how the
# paper frames it too.
#
# (sep-fig2ab-paper-scale)=
# ### At the paper's scale, on a GPU (partial)
#
# The `paper` scale of `index_lookup` is Figure 2a-b's own: |Σ| = 64, N from 20 to 400, TF-(1,64)
# against LSTM-(1,256) and LSTM-(3,256), four learning rates, 20,000 steps. It ran on an H100
# for two short windows through the paper-scale queue, which stores each finished point. One
# point cannot tell the transformer from the recurrent models, so it records no verdict; the
# table shows what the stored points say, and the cost line what the rest would take.

# %% tags=["hide-input"]
idx_gpu = sweeps.SWEEPS["index_lookup"].paper_result()
if idx_gpu is None:
    print("no paper-scale result of index_lookup in data/ yet")
else:
    print(f"{idx_gpu.name}: {idx_gpu.progress()}; {idx_gpu.provenance['device']}, "
          f"commit {idx_gpu.provenance['git_commit']}, {idx_gpu.wall_s:.0f} s")
    display(table(best_table(idx_gpu), index=False))
    print("measured cost of the whole sweep:", bench.cost_line("bhattamishra2024.index_lookup"))

# %% [markdown]
# (sep-fig2c)=
# ## Figure 2c: Dyck-(2,2)
#
# Strings of exactly $N$ brackets, half members (the paper's generator) and half corrupted
# members; chance is 1/2. One- and two-layer transformers of width 64 against an LSTM of
# width 32.

# %%
dyck = sweeps.result("dyck")
display(table(best_table(dyck), index=False))

# %% tags=["hide-input"]
dyck_lengths = dyck.config["lengths"]
fig, axes = plt.subplots(1, len(dyck_lengths), figsize=(5 * len(dyck_lengths), 3.6), squeeze=False)
for ax, n in zip(axes[0], dyck_lengths):
    curves_panel(dyck, n, ax, f"Figure 2c (reduced): Dyck-(2,2), N = {n}")
    ax.axhline(0.5, color="0.5", ls=":", lw=1)
axes[0][0].legend(fontsize=8)
plots.stamp(fig, f"{dyck.label()}; {len(dyck.config['seeds'])} seeds x {len(dyck.config['lrs'])} learning rates "
            f"per model, {dyck.config['steps']} steps of batch 64; bands: 95% intervals over seeds")
plt.show()

# %% tags=["hide-input"]
figure_2c = checks.figure_2c(dyck)
if dyck.scale == "default":  # the verdict the stored default run bears (five seeds): the LSTM not decided above 0.95
    assert figure_2c.verdict == "inconclusive", figure_2c.verdict
record(figure_2c)

# %% [markdown]
# The LSTM separates from the one-layer transformer at equal steps in every seed, the paper's
# main point for Dyck (its lower bound is for one-layer transformers against nonlinear RNNs): at
# $N = 50$ the LSTM ends at 0.94 (0.86 to 0.99 over five seeds) and the one-layer transformer
# near chance (0.52), and over the seeds that separation is decided (Welch, at the check's level).
# Whether the two-layer transformer also learns the language within the CPU budget is the second
# half of the claim: in our runs it does at the shorter length (0.99) and is still far from it at
# $N = 50$ after 1,500 steps (0.58). The check makes its three tests at the Bonferroni level
# (98.3% each), and its partial form also needs the LSTM decidedly near-perfect (above 0.95),
# which five seeds spread from 0.86 to 0.99 do not decide: the verdict is **inconclusive**. The
# paper trains up to 250k steps; the reading notes found no reliable TF-2 vs TF-1 separation
# within a minute of CPU at $N = 50$ either.
#
# (sep-fig3)=
# ## Figure 3: Mamba's width (App. H.1)
#
# Could a recurrent model that fails at index lookup succeed if it were wider? App. H.1 trains
# two-layer Mamba of widths 32 to 1024 at lengths 20 to 400 and reports that its accuracy "increases
# monotonically with the increase in the width", while LSTMs show "no such trend" (at chance
# above $N = 100$ at every width), and that even width 1024 stays "much worse" than TF-(1,64).
# We run the same comparison at CPU sizes: widths 8 to 32 for a two-layer Mamba and a one-layer
# LSTM (the paper does not say which LSTMs it widened), a one-layer transformer as the reference,
# |Σ| = 4 and $N \in \{10, 20\}$, five seeds each, 600 steps. Mamba runs the fused selective
# scan (`SSMConfig(scan="fused")`: the loop's recurrence with its backward written out, equal to
# the loop to rounding and 2-10x faster on a CPU), which makes these sizes affordable.

# %%
mw = sweeps.result("mamba_width")
mw_table = width_table(mw)
mw_table["accuracy [95% interval over seeds]"] = [stats.describe(v) for v in mw_table["per seed"]]
display(table(mw_table.pivot(index="model", columns="N", values="accuracy [95% interval over seeds]")
              .loc[mw.config["archs"]]))

# %% tags=["hide-input"]
fig, axes = plots.panels(1 + len(mw.config["lengths"]), ncols=3, height=2.8)
width_panels(mw, axes)
plots.shared_legend(fig, axes[1:])
plots.stamp(fig, f"{mw.label()}; |Σ| = {mw.config['n_symbols']}; {len(mw.config['seeds'])} seeds x "
            f"{len(mw.config['lrs'])} learning rate, {mw.config['steps']} steps of batch 64; bands: 95% intervals "
            "over seeds")
plt.show()

# %% tags=["hide-input"]
trends = checks.width_trends(mw)
display(plots.paper_vs_ours([
    {"quantity": "Mamba's accuracy against width", "paper": "rises monotonically (widths 32-1024, N = 20-400)",
     "ours": "; ".join(f"N = {n}: {t}" for n, t in trends["Mamba"].items())},
    {"quantity": "LSTM's accuracy against width", "paper": "no such trend; chance above N = 100",
     "ours": "; ".join(f"N = {n}: {t}" for n, t in trends["LSTM"].items())},
    {"quantity": "widest Mamba against the transformer", "paper": "Mamba-(2,1024) much worse than TF-(1,64)",
     "ours": "; ".join(f"N = {r['N']}: {r['model']} {r['mean']:.2f}" for _, r in mw_table.iterrows()
                       if r["kind"] == "TF" or r["model"] == mw.config["archs"][len(mw.config["widths"]) - 1])}]))
figure_3 = checks.figure_3(mw)
if mw.scale == "default":  # the verdict the stored default run bears
    assert figure_3.verdict == "partly", figure_3.verdict
record(figure_3)

# %% [markdown]
# **What we find.** Mamba does gain from width here: at $N = 10$ its accuracy climbs from about
# 0.62 (width 8) to 0.88 (16) and 0.99 (32), and at $N = 20$ it rises from 0.30 to 0.42, a
# significant trend over the five seeds at both lengths. Even the widest Mamba at $N = 20$ stays
# far below the one-layer transformer (0.42 against 1.00), as the paper says of width 1024. What
# we do not reproduce is the contrast: our LSTM also improves with width at $N = 10$ (0.42 to
# 0.48, a small but consistent trend), while at $N = 20$ its trend is inconclusive. The check
# therefore reads **partly**. Our sizes are far from the paper's (widths 8-32 against 32-1024,
# lengths 10-20 against 20-400, 600 steps against up to 250,000), and at such short lengths an LSTM
# can still store part of the sequence in its state; the paper's "no trend" is stated for
# $N > 100$, where ours never goes. The paper-scale sweep (`mamba_width` at `ABC_SCALE=paper`)
# runs the paper's own grid on a GPU.

# %% [markdown]
# (sep-fig4)=
# ## Figure 4: string equality (App. H.2)
#
# Three variants, all with a separator between the halves and lengths drawn from
# $U\{N/10, \dots, N\}$ in training: Eq-random (bits; the second half equal with probability
# 1/2, else independent), Eq-one (negatives differ in exactly one symbol) and Eq-ncp (predict the
# second half symbol by symbol after the separator, a copy task; a string counts only when its
# whole second half is right). The paper's observations: on Eq-random transformers are
# near-perfect to $N = 400$ while LSTMs and linear transformers struggle beyond 100; Eq-one is
# easy for every model; on Eq-ncp at width 64 DSS and Mamba fall to chance beyond 400 while
# transformers stay near-perfect. Two shortcuts explain why Eq-random and Eq-one say little:
# Eq-random is solved with high probability by comparing the first few symbols, and Eq-one
# exactly by comparing symbol counts, which a recurrent model can do with $|\Sigma|$ counters.
# We train a two-layer transformer and an LSTM at $N \le 40$ with alphabets of 16 for Eq-one and
# Eq-ncp (the paper's 1024).

# %%
eq = sweeps.result("equality")
eq_table = equality_table(eq)
display(table(eq_table.pivot(index=["variant", "N"], columns="model", values="accuracy at length N")))

# %% tags=["hide-input"]
fig, axes = plt.subplots(1, len(eq.config["variants"]), figsize=(4 * len(eq.config["variants"]), 3.4), squeeze=False)
eq_seeds = equality_seed_table(eq)
for ax, variant in zip(axes[0], eq.config["variants"]):
    by_length(ax, eq_seeds[eq_seeds["variant"] == variant], eq.config["archs"], title=f"Eq-{variant}")
    ax.set_ylabel("accuracy (strings)" if variant == "ncp" else "accuracy")
axes[0][0].legend(fontsize=8)
plots.stamp(fig, f"{eq.label()}; {len(eq.config['seeds'])} seeds x {len(eq.config['lrs'])} learning rates per model, "
            f"{eq.config['steps']} steps of batch 64; bands: 95% intervals over seeds")
plt.show()

# %%
# per-seed finals at each point's best learning rate, and TF vs LSTM decided over the seeds as the check does
eq_seeds = eq_seeds.merge(checks.equality_comparisons(eq), on=["variant", "N"], how="left")
eq_seeds.loc[~eq_seeds["model"].str.startswith("TF") | (eq_seeds["variant"] == "one"), "TF vs LSTM"] = ""
eq_seeds["mean [95% interval over seeds]"] = [stats.describe(v, bounds=(0, 1)) for v in eq_seeds["per seed"]]
eq_seeds["per seed"] = [", ".join(f"{a:.3f}" for a in v) for v in eq_seeds["per seed"]]
display(table(eq_seeds, index=False))

# %% tags=["hide-input"]
figure_4 = checks.figure_4(eq)
if eq.scale != "smoke":  # the Eq-ncp order is decided at N = 10 and 20, not at the longest length
    assert figure_4.verdict == "inconclusive", figure_4.verdict
record(figure_4)

# %% [markdown]
# What shows at these sizes, read over the five seeds (the table above). On Eq-ncp, the copy
# task the paper moved to because the classification variants have shortcuts, the transformer
# copies whole second halves more often than the LSTM, decidedly so at $N = 10$ and $N = 20$
# (1.00 against 0.75, and 0.93 against 0.03); at the longest length, $N = 40$, the LSTM copies
# nothing while the transformer's seeds disagree (a mean of 0.16, one seed copying most strings),
# so that comparison is not decided. Eq-random does not separate: the LSTM is ahead at every
# length, decidedly at $N = 20$ (0.98 against 0.84), which is what the shortcut predicts (an
# independent second half almost always differs within its first few symbols, so remembering a
# prefix suffices); the paper's LSTMs fail only beyond $N = 100$. Eq-one, which the paper finds
# easy for every model at 250k steps, is near chance (0.5) for both models at the longest length
# within 1,000 steps. The check asks twelve questions of these runs (every model near-perfect on
# Eq-one, the Eq-ncp order at every length, the longest lengths), each at the Bonferroni level
# (99.6%). So the paper's claim, a separation on all three variants, does not hold at CPU scale,
# and the one part that could (the Eq-ncp order) is decided at the two shorter lengths but not at
# the longest, where it matters: the claim is recorded as **inconclusive**. The paper-scale sweep
# (`python -m lib.papers.bhattamishra2024 paper equality`) is defined for a GPU.
#
# The shortcuts of the paper's remark (App. H.2) are checked directly on the book's own task
# samples: on Eq-random, "equal iff the first four symbols of the halves agree" (a state of four
# symbols, whatever $N$), and on Eq-one, "equal iff the halves have the same symbol counts" ($|\Sigma|$
# counters).

# %%
shortcuts = shortcut_table(lengths=eq.config["lengths"], prefix=4, n=20000)
display(table(shortcuts, index=False))

# %% tags=["hide-input"]
remark_h2 = checks.remark_h2(shortcuts)
assert remark_h2.passed
record(remark_h2)
