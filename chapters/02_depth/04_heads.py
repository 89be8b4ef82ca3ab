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
# (depth-heads)=
# # Heads per layer
#
# The {ref}`previous chapter <depth-training>` trained 1-4 layers; Sec. 6 of
# {cite}`chen2024depth` also varies the number of heads in each layer. The paper reports that more
# heads speed up memorization (Figure 4), make no significant difference on in-context QA and
# template matching (Figures 5-6), and that on in-context template matching a single head in the
# last layer, and a fourth layer, learn faster (Figure 7, for several $k$). Architectures are
# written as heads per layer; the recipes are the previous chapter's.

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

from lib import claims, plots, scale
from lib.papers.chen2024 import analysis, checks, sweeps
from lib.papers.chen2024.figures import arch_label, training_curves
from lib.papers.chen2024.sweeps import as_curves

plots.use_style()
record = claims.Recorder(paper="chen2024", chapter="chapters/02_depth/04_heads")

# %%
heads = sweeps.result("heads", device=device)
training_curves(heads, "paper", title="Figures 4-7: heads per layer (in brackets)")
plt.show()

# %% tags=["hide-input"]
memorization_speed = analysis.memorization_speeds(heads)
print("memorization, mean accuracy over training (higher = faster):", plots.readable(memorization_speed))
print("final accuracy, reasoning and generalization:", plots.readable(analysis.qa_tm(heads, analysis.final_mean)))
print("mean accuracy over training:", plots.readable(analysis.qa_tm(heads, analysis.speed)))
print("contextual (final, mean over training):", plots.readable(analysis.contextual(heads)))
adam_speeds = list(memorization_speed.values())
assert adam_speeds[-1] >= adam_speeds[0]  # Figure 4 under Adam: the most heads memorize at least as fast

# %% tags=["hide-input"]
fig56_check = checks.heads.figures_5_6(heads)
assert fig56_check.partly or fig56_check.passed  # every head count learns both tasks
assert fig56_check.verdict == "partly" or heads.scale != "default", fig56_check.verdict  # equal speed not shown
record(fig56_check)
if analysis.contextual(heads):  # the smoke grid has no in-context template matching
    fig7_heads = checks.heads.figure_7(heads)
    if heads.scale == "default":  # some seeds of [2, 2, 1] and of the 4-layer models do not learn
        assert fig7_heads.verdict == "inconclusive", fig7_heads.verdict
    record(fig7_heads)

# %% [markdown]
# Figures 5-6 hold for the final accuracy (every head count solves in-context QA and template
# matching), but not for the curves: the mean accuracy over training, printed above, falls as
# heads are added, most on in-context QA. Both tasks train with SGD at one learning rate for
# every head count, and with heads averaged ($1/m$) more heads take smaller steps, the effect
# the next section measures for memorization. So the claim is recorded as holding in part: no
# difference in what is learned (every head count above 0.99 in every seed), while "no
# difference in speed" needs evidence of equality: the interval of each pair's difference in mean
# accuracy over training within ±0.05, over five seeds, and it is not (an equivalence test;
# merely failing to find a difference would not do). On in-context template matching (Figure 7)
# the heads grid reads inconclusive: $[2, 2, 1]$ and the 4-layer models leave $1/k$ in some seeds
# only, so their means carry intervals too wide to rank them.

# %% [markdown]
# (depth-fig4-sgd)=
# ## Figure 4 with the paper's optimizer
#
# The paper trains with SGD; the curves above use Adam. With plain SGD the $1/m$ average over
# heads scales each head's gradient step by $1/m$, so at one learning rate more heads are
# *slower*, and every head count needs its own rate. We train memorization with SGD at seven
# learning rates (the paper gives none) and compare each head count at its best rate, as one
# would tune any architecture.

# %% tags=["hide-input"]
sgd = sweeps.result("figure4_sgd", device=device)
sgd_speeds = analysis.sgd_speeds(sgd)
by_lr, lrs = sgd_speeds["by_lr"], sorted(next(iter(sgd_speeds["by_lr"].values())))
ax = plots.sweep(lrs, {f"{arch[0]} head(s)": np.array([by_lr[arch][lr] for lr in lrs]) for arch in by_lr},
                 xlabel="learning rate (plain SGD)", ylabel="mean accuracy over training",
                 title="Figure 4 with SGD: memorization speed against the learning rate")
ax.set_xscale("log")
ax.set_xticks(lrs, [f"{lr:g}" for lr in lrs])
plots.stamp(ax, sgd.label() + " · " + plots.BANDS)
plt.show()

# %% tags=["hide-input"]
fig4_check = checks.heads.figure_4(heads, sgd)
assert fig4_check.verdict == "substituted" or scale.current() != "default", fig4_check.verdict  # the stored default runs' verdict
record(fig4_check)

# %% [markdown]
# (depth-fig7-k)=
# ## Figure 7 for several $k$
#
# With templates of length 2 there are only two templates, so $k \le 2$. For several $k$ we use
# templates of length $l = 3$ (five templates) with 10 words and 10 answers (the paper: $l = 5$,
# 100 and 100), $k = 2, 3, 4$ and 5,000 steps. The grid varies what Figure 7 varies, the heads of
# the last layer and a fourth layer: one head, two heads, and $2l$ heads, the head count of
# Theorem 6's match layer.

# %% tags=["hide-input"]
l7, words7 = sweeps.figure7_size(scale.current())
by_k = sweeps.result("figure7_k", device=device)
fig, axes = plots.panels(len(by_k.points), ncols=min(3, len(by_k.points)), height=2.4, sharey=True)
for ax, point in zip(axes, by_k.points):
    runs, args = as_curves(point["result"]), point["point"]["task_args"]
    plots.curves(next(iter(runs.values())).steps, {arch_label(arch): c.acc for arch, c in runs.items()}, ax=ax,
                 title=f"IC-TM, l={args['length']}, k={args['k']}", chance=1 / args["k"], legend=None)
plots.shared_legend(fig, axes)
plots.stamp(fig, by_k.label() + " · " + plots.BANDS)
plt.show()

# %% [markdown]
# Per architecture and $k$: the final accuracy (mean over seeds), how many seeds end above 0.95
# (of five at the default scale), and the mean accuracy over training, our measure of speed.

# %% tags=["hide-input"]
table7 = analysis.figure7_table(by_k)
speed7 = table7.pivot(index="arch", columns="k", values="mean over training")
plots.table(pd.concat({"final accuracy": table7.pivot(index="arch", columns="k", values="final"),
                        "seeds >= 0.95": table7.pivot(index="arch", columns="k", values="seeds >= 0.95"),
                        "mean over training": speed7}, axis=1))

# %% tags=["hide-input"]
several_k, last_heads = checks.heads.figure_7_several_k(by_k), checks.heads.figure_7_last_heads(by_k)
assert (several_k.verdict, last_heads.verdict) == ("inconclusive", "inconclusive") or scale.current() != "default", \
    (several_k.verdict, last_heads.verdict)
record(several_k)
record(last_heads)
# a speed comparison says something only where one of the two models learns (the rule's point 4)
informative = analysis.informative_fourth_layer_pairs(by_k, l7)
print("fourth layer against three, pairs where one of the two learns:",
      ", ".join(f"{deep} vs {shallow} at k={k}" for deep, shallow, k in informative) or "none")
if informative:
    four_layers = checks.heads.figure_7_four_layers(by_k)
    assert four_layers.verdict == "inconclusive" or scale.current() != "default", four_layers.verdict
    record(four_layers)

# %% [markdown]
# What the grid shows at $l = 3$ (numbers in the table above):
#
# - **One head in the last layer never learns** here, with three layers or four: every seed
#   stays at $1/k$ for every $k$. The paper reports the opposite at $k = 4$: a single last head
#   learned fastest.
# - **$2l = 6$ heads in the last layer, the construction's count, learn in some seeds**: at
#   $k = 2$ three seeds of five reach 1.0 and the other two end at 0.84 and 0.96; at $k = 4$ two
#   seeds reach 0.99 and three end between 0.24 and 0.36; at $k = 3$ one seed reaches 1.0 and the
#   others end between $1/k$ and 0.78, still climbing when the 5,000 steps end. Two last-layer
#   heads sit in between: at $k = 2$ one seed reaches 1.0 and two end at 0.84 and 0.91, at $k = 4$
#   one climbs to 0.69, at $k = 3$ none leaves $1/k$.
# - **A fourth layer does not speed learning**: $[1, 1, 1, 1]$ stays at $1/k$ like $[1, 1, 1]$
#   (one seed of five climbs to 0.78 at $k = 2$), and $[1, 1, 1, 6]$ is slower than $[1, 1, 6]$
#   at every $k$ on the seed means. The paper reports four layers faster.
#
# Read over the five seeds, as the checks do, neither ordering is decided: the models that learn
# do so in some seeds only, so their mean accuracy over training carries an interval that spans
# much of $[1/k, 1]$, and Welch's test cannot rank a single last head below $2l$ heads, or a
# fourth layer below three, at the check's level. Both claims therefore read **inconclusive**
# (they read "not reproduced" on the seed means). So does the several-$k$ claim: with three seeds
# (an earlier run) $2l$ heads solved $k = 2$ in every seed and the claim read *partly*; with five,
# two seeds end below 1.0 (0.84 and 0.96), the interval of the mean reaches below 0.95, and no
# $k$ is decidedly solved.
#
# A reading, not a proof: Theorem 6's match layer uses $2l$ heads because each pair $\pm i$ turns
# one coordinate of the difference between two templates into a penalty $|\cdot|$, which a single
# ReLU head, whose score is linear in the compared features, cannot form. With $l = 2$ one
# coordinate separates the two templates, and there a single last head does learn
# ($[2, 2, 1]$ in the heads grid above). Our runs use Adam and 5,000 steps where the paper used
# SGD and an unknown budget, so this is a difference at our setting, not a refutation.

# %%
ks, one, many = sorted(set(table7["k"])), "[1, 1, 1]", f"[1, 1, {2 * l7}]"
if by_k.scale == "default":  # the findings above (l = 3); 200 smoke steps are too few to leave 1/k
    for k in ks:
        at_k = table7[table7.k == k].set_index("arch")
        assert at_k.loc[one, "final"] < 1 / k + 0.05, (k, at_k.loc[one, "final"])  # one last head: chance
    assert all(speed7.loc[many, k] > speed7.loc[one, k] for k in ks)  # 2l last heads: faster at every k

# %% [markdown]
# At the paper's own $l = 5$ and $k = 4$ (all 52 templates of length 5; 10 words and answers
# instead of 100, which keeps the width at $d' = 55$), we train only the construction's head
# count, $[1, 1, 2l] = [1, 1, 10]$, for 20,000 steps.

# %% tags=["hide-input"]
if l7 != 5:  # at the paper scale the grid above already has l = 5
    l5 = sweeps.SWEEPS["figure7_l5"]
    if scale.current() == "smoke":  # too slow for a smoke run (about an hour on a CPU core)
        lk = l5.load("default")
    else:
        lk = l5.result(device=device)
    if lk is not None:
        run5 = as_curves(lk.points[0]["result"])[(1, 1, 10)]
        acc5 = run5.acc
        fig, (ax,) = plots.panels(1, height=2.6)
        plots.curves(run5.steps, {"3 layers [1, 1, 10]": acc5}, ax=ax, title="IC-TM, l=5, k=4", chance=1 / 4)
        plots.stamp(ax, lk.label() + " · " + plots.BANDS)
        plt.show()
        print("final accuracy per seed:", acc5[:, -1].round(3))
        l5_check = checks.heads.figure_7_l5(lk)
        assert l5_check.verdict == "inconclusive" or scale.current() != "default", l5_check.verdict
        record(l5_check)

# %% [markdown]
# At $l = 5$ the model does not get there at our budget. Of five seeds, three leave $1/k$ but
# level off far below 1 (final 0.39, 0.51 and 0.37) and two stay near $1/k$ (0.24 and 0.23); the
# curves are flat over the second half of training (final accuracies printed above; the first
# three seeds repeat an earlier three-seed run exactly). The seed mean, 0.35 [0.21, 0.49] at 95%,
# is decidedly below 0.95, so the claim in full does not hold here. Whether it is above 0.5 (the
# partial form) is undecided at the check's level for its two tests (a 97.5% interval), which
# reaches just past 0.5, so the check reads **inconclusive**: the data lean against even the
# partial form. With 52 templates, every pair of which the match
# layer must tell apart, the task is much harder than at $l = 3$. The paper's 100 words do not
# close the gap (next section); whether more steps or its SGD recipe do is open here, and a
# `paper`-scale run on a GPU is the way to find out.

# %% [markdown]
# (depth-fig7-paper)=
# ### At the paper's own instance
#
# Sec. 9.1 trains Figure 7 on 100 words and 100 answers. The sweep `figure7_paper_sizes` trains
# the same model, $[1, 1, 10]$, with the same recipe and 20,000 steps on that instance, five seeds
# as one ensemble. A step of that ensemble costs 0.75 s on two CPU cores (about four hours in
# all), so the stored default run was trained on a GPU (an NVIDIA H200, about 13 minutes; the
# stamp under the figure names the device). The paper scale trains the same five seeds for three
# times as long.

# %% tags=["hide-input"]
if l7 != 5:  # at the paper scale figure7_k trains this instance, with every architecture
    f7p = sweeps.SWEEPS["figure7_paper_sizes"]
    lp = f7p.load("default") if scale.current() == "smoke" else f7p.result(device=device)
    if lp is not None:
        run_p = as_curves(lp.points[0]["result"])[(1, 1, 10)]
        acc_p, size_p = run_p.acc, lp.points[0]["point"]["task_args"]
        fig, (ax,) = plots.panels(1, height=2.6)
        shown = {f"{size_p['n_words']} words and answers (the paper's)": acc_p}
        if lk is not None and np.array_equal(run5.steps, run_p.steps):
            shown[f"{words7} words and answers"] = acc5
        plots.curves(run_p.steps, shown, ax=ax, title="IC-TM, l=5, k=4, [1, 1, 10]", chance=1 / 4)
        plots.stamp(ax, ";\n".join([lp.label()] + [lk.label()] * (len(shown) > 1)) + " · " + plots.BANDS)
        plt.show()
        print(f"{size_p['n_words']} words, final accuracy per seed:", acc_p[:, -1].round(3),
              "· best over training:", acc_p.max(1).round(3))
        instance_check = checks.heads.figure_7_paper_instance(lp)
        assert instance_check.verdict == "not reproduced" or scale.current() != "default", instance_check.verdict
        record(instance_check)
        if lp.scale == "default":  # the reading below, made on the default run
            assert acc_p.max() < 0.25 + 0.05 and (lk is None or acc5[:, -1].max() > acc_p.max())

# %% [markdown]
# On the paper's instance the same model does not leave chance. Every one of the five seeds
# reaches $1/k = 0.25$ within the first 200 steps and stays there for 20,000: no seed's accuracy
# ever passes 0.29, and the final accuracies (printed above) average 0.251 [0.233, 0.268] at 95%,
# where with 10 words three seeds of five leave $1/k$. At our recipe the paper's 100 words make
# the task harder, not easier. The seed mean is decidedly below 0.5, so the claim reads **not
# reproduced**, at our setting: Adam for 20,000 steps, where the paper trains with SGD for a
# budget it does not state. The `paper` scale (60,000 steps) has not run yet.

# %% [markdown]
# (depth-discussion)=
# ## What reproduces, and where we differ
#
# - **Constructions.** Theorems 1, 3 and 5 hold exactly as stated, on whole tasks and at the
#   paper's sizes; Theorem 6 holds for a corrected construction (the printed one does not work).
#   See {ref}`depth-constructions`.
# - **Impossibility.** The linear-dependence identity holds to rounding for ReLU with any number
#   of heads and for one softmax head, and training cannot beat the 3/4 bound of Theorem 2; with
#   several softmax heads the identity fails, which the paper leaves open. See {ref}`depth-limits`.
# - **Figure 2.** The thresholds reproduce at reduced sizes: one layer memorizes and sits at $1/k$
#   or chance elsewhere, two layers solve in-context QA and template matching, three solve
#   in-context template matching while one and two do not, but in three seeds of five only, which
#   leaves panel d inconclusive over seeds. Panels a-c also hold at Sec. 9.1's own
#   sizes ({ref}`depth-fig2-paper-sizes`); panel d's sizes need a GPU. They rely on the paper's
#   initialisation: from random weights, at our budget, no depth learns the three generated tasks
#   (two layers stay near $1/k$ and chance at the paper's sizes too). More depth is not
#   uniformly better: with the same SGD recipe, three one-head layers are unstable on in-context QA
#   and template matching (some seeds diverge; see the table under {ref}`Figure 2 <depth-fig2>`),
#   which the paper does not show because it plots at most the depth each task needs.
# - **Figure 3.** Trained models use a soft version of the copy-match circuit (match share above
#   $1/k$, below the construction's 1); the comparison is biased by the constructed first layer.
# - **Figures 4-7.** More heads speed memorization with Adam, and with the paper's SGD when each
#   head count gets its own best learning rate (at one rate more heads are slower, because heads are
#   averaged); heads do not change what is learned on in-context QA and template matching, but at
#   one SGD rate they slow it. Figure 7's orderings do not show, and over seeds cannot be
#   decided (inconclusive): with templates of length 2 the fastest model has four last-layer
#   heads, and with
#   length 3 ({ref}`depth-fig7-k`) a single last head never learns while the construction's $2l$
#   heads do in some seeds (three of five reach 1.0 at $k = 2$, two at $k = 4$, one at $k = 3$); a
#   fourth layer is slower, not faster. At the paper's $l = 5$, $k = 4$ (10 words instead of 100)
#   the construction's head count levels off far below 1 (at most 0.51) after 20,000 steps, and
#   on the paper's own instance (100 words) all five seeds stay at $1/k$ for all 20,000 steps
#   (not reproduced at our recipe; {ref}`depth-fig7-paper`).
# - **Scale.** Results shown come from `data/` at the scale printed on each figure (the `default`
#   scale on a CPU unless a `paper`-scale file exists); the paper's sizes run with
#   `ABC_SCALE=paper` on a GPU.

