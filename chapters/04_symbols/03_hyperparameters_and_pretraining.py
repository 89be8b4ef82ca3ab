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
# (sy-appendix)=
# # Abstract symbols: hyperparameters, harder templates and pretraining
#
# The previous chapter trained the authors' transformer on the paper's headline tasks. This one
# covers the rest of the paper's experiments. Each one asks what else decides how many samples a
# transformer needs before it handles symbols it has never seen:
#
# * **The optimiser and the architecture** (App. B.1, Figures 8-15). Learning rate, batch
#   size, depth, heads, width, training only the last layer, and mimetic initialisation.
# * **The task** (App. B.2, Figures 18-20). Random template tasks with more wildcards, longer
#   templates or more of them.
# * **Pretraining** (Sec. 6, Figures 6 and 7, and App. B.3, Figure 23). Identity scalings in a
#   language model, the diagonals of pretrained heads, and fine-tuning a pretrained model on a
#   template task.
#
# The chapter closes the part with a discussion: where the kernel theory of the first chapter
# predicts what training does, and where it does not.
#
# **Scale.** The paper's base model has 2 layers, d = 128 and 16 heads of 64, and trains with
# Adam, batch 1024, for 1000 epochs, 5 trials. The default scale keeps the previous chapter's
# CPU budget: d = 64, 16 heads of 8, MLP 128, 1000 full-batch steps, and n at most 512. It
# varies one knob at a time from that model. The sweeps load from `data/`. The lists of figures
# in the paper's App. B.1 and B.2 did not survive in our copy of the text. The numbering of
# Figures 8-15 and 17-20 below follows the reading notes, which take it from the figure files of
# the authors' repository.
#
# **Ensembles.** The course's trainer trains several models at once, as one batched
# computation; each model is a *member* of the ensemble. Here the members of one run differ in
# their learning rate (one seed each), so a whole learning-rate grid costs one run.

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
from IPython.display import display

from lib import claims, plots, scale
from lib.papers.boixadsera2024 import last_layer, sweeps
from lib.plots import readable, table
from lib.tasks import symbol_templates as st

plots.use_style()
record = claims.Recorder(paper="boixadsera2024", chapter="chapters/04_symbols/03_hyperparameters_and_pretraining")
REDUCED = "d = 64, 16 heads of 8, MLP 128, 1000 full-batch steps, one seed per learning rate, n <= 512 (a CPU budget)"


def by_lr(metrics: dict) -> dict:
    """Test loss per learning rate of an ensemble whose members are learning rates (one seed each)."""
    return dict(zip(metrics["lr"], metrics["test"]))


# %% [markdown]
# (sy-b1)=
# ## Figures 8-13: learning rate, batch size, depth, heads and width
#
# The sweep `hyperparameters` trains the vanilla transformer on αβα vs αββ, one run per knob
# value with the learning rates as members. The paper's findings, read from its
# figures, are these. The best learning rate is about $10^{-3}$, and $10^{-2}$ or more fails
# (Fig. 8). Smaller batches help a little (Figs. 9-10). Depth 2 or more and more heads help
# (Figs. 11-12). At n = 1024 a larger $d_{\rm emb}$ hurts at high learning rates (Fig. 13).
# The knobs are tried at the largest n of our budget, where the base model has started to
# generalise. A knob's base value (depth 2, 16 heads, d = 64) is the learning-rate run at the
# same n. The batch-size runs all train for the same number of epochs, 250 rather than 1000 to
# fit the budget. A batch of 64 at n = 512 therefore takes 2,000 steps and the full batch 250.

# %%
hres = sweeps.result("hyperparameters")
hcfg, hgrid = sweeps.SWEEPS["hyperparameters"].define(hres.scale)
lrs, knob_lrs = hcfg["lrs"], hcfg["knob_lrs"]
lr_ns = sorted({p["n"] for p in hgrid if p["knob"] == "lr"})
n_knob = max(p["n"] for p in hgrid if p["knob"] in ("depth", "heads", "d_emb", "batch"))
base = by_lr(hres.get(knob="lr", value=None, n=n_knob))
base_shape = sweeps._shape(hres.scale)
base_value = {"depth": base_shape["n_layers"], "heads": base_shape["n_heads"], "d_emb": base_shape["d_model"]}


def knob_curves(knob: str) -> dict:
    """{knob value: test loss at each of knob_lrs}, the base value taken from the lr run."""
    values = sorted({p["value"] for p in hgrid if p["knob"] == knob} | {base_value[knob]})
    return {v: np.array([(base if v == base_value[knob] else by_lr(hres.get(knob=knob, value=v, n=n_knob)))[lr]
                         for lr in knob_lrs]) for v in values}


batch_values = sorted({p["value"] for p in hgrid if p["knob"] == "batch"})
batch = {b: by_lr(hres.get(knob="batch", value=b, n=n_knob)) for b in batch_values}
curves = {"depth": knob_curves("depth"), "heads": knob_curves("heads"), "d_emb": knob_curves("d_emb")}

fig, axes = plots.panels(4, ncols=2, height=2.4, sharey=True)
plots.sweep(lrs, {f"n = {n}": np.array([by_lr(hres.get(knob="lr", value=None, n=n))[lr] for lr in lrs])
                  for n in lr_ns}, ax=axes[0], xlabel="learning rate", ylabel="test MSE, unseen symbols",
            title="Fig. 8: lr × n", bounds=(0, None), legend="inside")
plots.sweep(knob_lrs, {f"batch {b}": np.array([batch[b][lr] for lr in knob_lrs]) for b in batch_values}, ax=axes[1],
            xlabel="learning rate", title=f"Figs. 9-10: batch ({hcfg['batch_epochs']} epochs)", bounds=(0, None),
            legend="inside")
for ax, knob, title in zip(axes[2:], ("depth", "heads"), ("Fig. 11: depth", "Fig. 12: heads")):
    plots.sweep(knob_lrs, {f"{knob} {v}": c for v, c in curves[knob].items()}, ax=ax, xlabel="learning rate",
                title=title, bounds=(0, None), legend="inside")
for ax in axes:
    ax.set_xscale("log")
    ax.set_xticks(lrs if ax is axes[0] else knob_lrs, [f"{v:g}" for v in (lrs if ax is axes[0] else knob_lrs)])
    ax.minorticks_off()
    ax.axhline(1.0, color="0.5", ls=":", lw=1)
plots.stamp(fig, f"αβα vs αββ, vanilla; best validation step; knobs at n = {n_knob}; dotted: predicting 0; " + hres.label())
plt.show()

rows = [{"knob": "learning rate", "value": f"n = {n}", **{f"lr {lr:g}": by_lr(hres.get(knob="lr", value=None, n=n))[lr]
                                                          for lr in lrs}} for n in lr_ns]
rows += [{"knob": f"batch ({hcfg['batch_epochs']} epochs)", "value": b, **{f"lr {lr:g}": batch[b][lr] for lr in knob_lrs}}
         for b in batch_values]
rows += [{"knob": knob, "value": v, **{f"lr {lr:g}": c[i] for i, lr in enumerate(knob_lrs)}}
         for knob in curves for v, c in curves[knob].items()]
display(table(pd.DataFrame(rows).set_index(["knob", "value"])))

# %% [markdown]
# Each figure gets its own check. A knob "helps" if its best test loss over the learning rates
# is lower; with one seed per learning rate, a difference under 0.05 counts as none.

# %%
best = lambda losses: float(np.min(list(losses.values()) if isinstance(losses, dict) else losses))
first = by_lr(hres.get(knob="lr", value=None, n=lr_ns[0]))
assert min(first.values()) > 0.5  # from the fewest samples no learning rate generalises (Fig. 8: far from 0 below n ≈ 2048)
# "best about 1e-3" is read where some learning rate learns (loss < 0.9): where none does, the
# arg-min is noise (rule 4 of the report card)
per_n = {n: by_lr(hres.get(knob="lr", value=None, n=n)) for n in lr_ns}
learning = [n for n in lr_ns if min(per_n[n].values()) < 0.9]
top = per_n[lr_ns[-1]]
best_lr = min(top, key=top.get)
high = [lr for lr in lrs if lr >= 1e-2]
best_near = bool(learning) and all(3e-4 <= min(per_n[n], key=per_n[n].get) <= 3e-3 for n in learning)
high_fails = all(per_n[n][lr] > 0.9 for n in lr_ns for lr in high)
lr_ok = best_near and high_fails
record(ref="Figure 8 (learning rate × n)", label="sy-b1", reduced=REDUCED, result=hres,
       statement="the best learning rate is about 1e-3, and lr >= 1e-2 fails (test loss ≈ 1)",
       paper_value="best lr ≈ 1e-3 at every n; lr >= 1e-2 at ≈1; vanilla ≈0 only at n ≈ 2048",
       ours=f"at n = {lr_ns[-1]}: best lr {best_lr:g} (loss {top[best_lr]:.2f}); "
            + ", ".join(f"lr {lr:g}: {top[lr]:.2f}" for lr in high),
       passed=bool(lr_ok), partly=bool(best_near or high_fails))

small, full = batch_values[0], batch_values[-1]
record(ref="Figures 9 and 10 (batch size)", label="sy-b1",
       reduced=f"d = 64, 16 heads of 8, MLP 128, {hcfg['batch_epochs']} epochs at every batch size, one seed per "
               f"learning rate, n = {n_knob} (a CPU budget)",
       result=hres, statement="smaller minibatches help slightly",
       paper_value="n = 512: ≈0.1 at batch 32 against ≈0.35 at 512 (lr 1e-3)",
       ours=f"n = {n_knob}, best over lr: batch {small} {best(batch[small]):.2f}, batch {full} {best(batch[full]):.2f}",
       passed=bool(best(batch[small]) < best(batch[full]) - 0.05),
       partly=bool(best(batch[small]) <= best(batch[full]) + 0.05))

for fig_no, knob, statement, paper_value in (
        (11, "depth", "deeper models generalise better (depth 2 or more beats depth 1)",
         "n = 1024, lr 1e-3: depth 1 → 0.27, depth 8 → 0.02"),
        (12, "heads", "more heads per layer generalise better", "n = 1024, lr 1e-3: 1 head → 0.42, 64 heads → 0.03")):
    c = curves[knob]
    values = sorted(c)
    worse_than = [v for v in values[1:] if best(c[values[0]]) > best(c[v]) + 0.05]  # the smallest loses to these
    # the whole statement: the smallest value loses to every larger one, and no larger value
    # loses to a smaller one by more than the 0.05 of seed noise
    ordered = all(best(c[b]) <= best(c[a]) + 0.05 for a, b in zip(values, values[1:]))
    record(ref=f"Figure {fig_no} ({knob})", label="sy-b1", reduced=REDUCED, result=hres, statement=statement,
           paper_value=paper_value, ours=f"n = {n_knob}, best over lr: " + ", ".join(f"{knob} {v}: {best(c[v]):.2f}" for v in c),
           passed=len(worse_than) == len(values) - 1 and ordered, partly=bool(worse_than))

# %% [markdown]
# (sy-b1-width)=
# ### Figure 13: width, and Figure 15: mimetic initialisation
#
# In the paper, at n = 1024 the narrowest model (d = 32) generalises best, and the wider ones
# get worse at the higher learning rates. Mimetic initialisation [TK23] starts every head's
# $W_QW_K^\top$ near $\alpha Z + \beta I$, with $Z$ a random matrix of N(0, 1/d) entries: a
# diagonal from the start, close to what $a_h I$ adds. (A transpose does not move a diagonal,
# so $W_QW_K^\top$ and the paper's $W_KW_Q^\top$ have the same one.)
# In the paper it helps as much as the identity scaling, ≈0 at n ≈ 128 against about 2,048
# for Gaussian initialisation. Our heads have 8 dimensions in a 64-dimensional stream, so each
# head gets the best rank-8 approximation of $\alpha Z + \beta I$. That is a diagonal only
# within an 8-dimensional subspace, weaker than the paper's heads of 64 in 128. The paper gives
# neither its α and β nor its formula; the notes read $\sqrt\alpha Z_1^\top Z_2 + \sqrt\beta I$
# in the authors' code. Ours is TK23's form with α = β = 0.7. The runs use lr $10^{-3}$ and 2
# seeds. The Gaussian runs and the $a_h I$ runs are the previous chapter's sweep (same
# protocol, same seeds).

# %%
ires = sweeps.result("identity_scalings")
init_ns = sorted({p["n"] for p in hgrid if p["knob"] == "init"})
mimetic = {n: np.array(hres.get(knob="init", value="mimetic", n=n)["test"]) for n in init_ns}
gauss = {n: np.array(ires.get(task="αβα vs αββ", variant="vanilla", n=n)["test"]) for n in init_ns}
kq = {n: np.array(ires.get(task="αβα vs αββ", variant="+KQ", n=n)["test"]) for n in init_ns}

fig, axes = plots.panels(2, ncols=2, height=2.5)
plots.sweep(knob_lrs, {f"d = {v}": c for v, c in curves["d_emb"].items()}, ax=axes[0], xlabel="learning rate",
            ylabel="test MSE, unseen symbols", title=f"Fig. 13: width (n = {n_knob})", bounds=(0, None), legend="inside")
axes[0].set_xscale("log")
axes[0].set_xticks(knob_lrs, [f"{v:g}" for v in knob_lrs])
axes[0].minorticks_off()
plots.sweep(init_ns, {"Gaussian": np.stack([gauss[n] for n in init_ns]), "mimetic": np.stack([mimetic[n] for n in init_ns]),
                      "+a_h I": np.stack([kq[n] for n in init_ns])}, ax=axes[1], xlabel="training samples n",
            title="Fig. 15: initialisation (lr 1e-3)", bounds=(0, None), legend="inside")
axes[1].set_xscale("log", base=2)
for ax in axes:
    ax.axhline(1.0, color="0.5", ls=":", lw=1)
plots.stamp(fig, "αβα vs αββ; " + hres.label() + "; Gaussian and +a_h I: " + ires.label())
plt.show()

c = curves["d_emb"]
narrow, wide = min(c), max(c)
high_lr = knob_lrs[-1]
record(ref="Figure 13 (embedding dimension)", label="sy-b1-width", reduced=REDUCED, result=hres,
       statement="a larger d_emb hurts, most at high learning rates (the narrowest is best)",
       paper_value="n = 1024: d = 32 best (≈0.07-0.1); d = 512 worse at high lr",
       ours=f"n = {n_knob}, lr {high_lr:g}: " + ", ".join(f"d = {v}: {c[v][-1]:.2f}" for v in c)
            + "; best over lr: " + ", ".join(f"d = {v}: {best(c[v]):.2f}" for v in c),
       passed=bool(c[wide][-1] > c[narrow][-1] + 0.05 and best(c[narrow]) <= min(best(v) for v in c.values()) + 0.05),
       partly=bool(c[wide][-1] > c[narrow][-1] + 0.05))

gain = {n: gauss[n].mean() - mimetic[n].mean() for n in init_ns}
kq_gain = {n: gauss[n].mean() - kq[n].mean() for n in init_ns}
record(ref="Figure 15 (mimetic initialisation)", label="sy-b1-width", result=hres,
       reduced="d = 64, heads of 8, MLP 128, 1000 full-batch steps at lr 1e-3, 2 seeds, n <= 512 (a CPU budget)",
       statement="mimetic initialisation of W_Q W_K^T cuts the samples needed about as much as a_h I does",
       paper_value="mimetic ≈0 at n ≈ 128; Gaussian ≈0 at about 2048",
       ours="; ".join(f"n = {n}: Gaussian {gauss[n].mean():.2f}, mimetic {mimetic[n].mean():.2f}, +a_h I {kq[n].mean():.2f}"
                      for n in init_ns),
       passed=bool(all(g > 0.1 for g in gain.values()) and mimetic[init_ns[-1]].mean() < kq[init_ns[-1]].mean() + 0.1),
       partly=bool(gain[init_ns[-1]] > 0.1))

# %% [markdown]
# (sy-last-layer)=
# ## Figure 14: training only the last layer
#
# Theorem 4.4 is about a transformer trained only in its last layer, in the limit of infinite
# width: a kernel method. The paper trains only the last layer of its finite model at three
# initialisation scales. At the usual scale the test loss stays at about 1 up to n = 16,384.
# Scaled by 8 it falls to 0.3, and by 64 to 0.11. A frozen random network with a trained linear
# read-out is a least-squares problem on its random features, so we solve that problem exactly
# (`lib.papers.boixadsera2024.last_layer`) instead of running 1000 epochs of Adam towards its
# solution. That makes the paper's own sizes cheap: d = 128, 16 heads of 64, n to 16,384. The
# paper does not say which weights its multiplier scales. We scale every weight matrix below the
# read-out. The read-out has only d + 1 = 129 weights. So its test loss can fall only as far as
# 129 random features separate the templates, whatever n is.

# %%
ll_ns = scale.pick(smoke=[256, 1024], default=[256, 1024, 4096, 16384], paper=[256, 1024, 4096, 16384])
ll_scales = (1.0, 8.0, 64.0)
ll_seeds = range(scale.pick(smoke=1, default=3, paper=5))
ll_shape = scale.pick(smoke=dict(d_model=64, n_heads=8, d_head=16, d_mlp=128),
                      default=dict(d_model=128, n_heads=16, d_head=64, d_mlp=256),
                      paper=dict(d_model=128, n_heads=16, d_head=64, d_mlp=256))
ll = {}
for n in ll_ns:
    task = st.SymbolTemplates(*st.aba_abb(), n_symbols=n, n_heldout=100)
    for c in ll_scales:
        ll[n, c] = np.array([last_layer.last_layer_only(task, n, c, seed=s, **ll_shape)["test"] for s in ll_seeds])
ax = plots.sweep(ll_ns, {f"init × {c:g}": np.stack([ll[n, c] for n in ll_ns]) for c in ll_scales},
                 xlabel="training samples n", ylabel="test MSE, unseen symbols", title="Fig. 14: last layer only",
                 bounds=(0, None))
ax.set_xscale("log", base=2)
ax.axhline(1.0, color="0.5", ls=":", lw=1)
plots.stamp(ax, f"least-squares read-out on a frozen random transformer (d = {ll_shape['d_model']}), "
                f"{len(ll_seeds)} seeds; computed live at scale={scale.current()}")
plt.show()
largest = ll_ns[-1]
assert ll[largest, 1.0].mean() > 0.85  # at the usual initialisation the random features do not separate the templates
print(", ".join(f"init × {c:g}: {ll[largest, c].mean():.2f}" for c in ll_scales), f"at n = {largest}")
scaled_best = min(ll[largest, c].mean() for c in ll_scales[1:])
record(ref="Figure 14 (last layer only)", label="sy-last-layer",
       substitute="the read-out solved by least squares, the limit of training it; our reading of the init multiplier",
       reduced={5: None, 3: "3 seeds"}.get(len(ll_seeds), f"d = {ll_shape['d_model']}, {len(ll_seeds)} seed(s)"),
       scale=scale.current(),
       statement="training only the last layer stays at chance at the usual initialisation and learns from many "
                 "samples at a larger one, the more so the larger",
       paper_value="n = 16384: ×1 ≈1.0, ×8 → 0.3, ×64 → 0.11",
       ours=", ".join(f"×{c:g}: {ll[largest, c].mean():.2f}" for c in ll_scales) + f" at n = {largest}",
       passed=bool(ll[largest, 1.0].mean() > 0.9 and ll[largest, 8.0].mean() < ll[largest, 1.0].mean() - 0.1
                   and ll[largest, 64.0].mean() < ll[largest, 8.0].mean() - 0.05),
       partly=bool(ll[largest, 1.0].mean() > 0.9 and scaled_best < ll[largest, 1.0].mean() - 0.1))

# %% [markdown]
# (sy-template-knobs)=
# ## Figures 18-20: harder random templates
#
# A random template task draws m templates of length k over a set W of wildcards and a set R of
# regular tokens, and gives each a Gaussian label. In the paper, the samples a transformer needs
# grow with |W| (Fig. 18), with k (Fig. 19; n = 512 solves only short templates, n = 2,048
# all of them) and with m (Fig. 20; from about 1,000 for 2 templates to 8,000 for 15). The
# paper does not give the other settings of these sweeps. We change one setting at a time from
# Figure 17's task with one regular token: 4 templates of length 5 over 3 wildcards. That task
# is learned within our budget; the one with no regular token is not (previous chapter). Each
# setting draws its own templates and labels (the same generator seed), so two points differ in
# more than the one setting. The sweep `template_knobs` runs at n = 128, where the base task is
# learned up to a test loss of about 0.15 and there is room on both sides. The base point is
# Figure 17's run. With one n per point, the test loss there stands in for the paper's "samples
# needed".

# %%
kres = sweeps.result("template_knobs")
kcfg, kgrid = sweeps.SWEEPS["template_knobs"].define(kres.scale)
rres = sweeps.result("random_templates")
k_n = kgrid[0]["n"]
kbase = np.array(rres.get(task="random, |R| = 1", variant="vanilla", n=k_n)["test"])
knob_names = {"wildcards": "|W| (Fig. 18)", "length": "length k (Fig. 19)", "m": "templates m (Fig. 20)"}
knob_loss = {}
for knob in knob_names:
    values = sorted({p[knob] for p in kgrid if p[knob] != sweeps.KNOB_BASE[knob]} | {sweeps.KNOB_BASE[knob]})
    knob_loss[knob] = {v: kbase if v == sweeps.KNOB_BASE[knob] else
                       np.array(kres.get(**dict(sweeps.KNOB_BASE, **{knob: v}, n=k_n))["test"]) for v in values}
fig, axes = plots.panels(3, ncols=3, height=2.4, sharey=True)
for ax, (knob, title) in zip(axes, knob_names.items()):
    vs = list(knob_loss[knob])
    plots.sweep(vs, {"vanilla": np.stack([knob_loss[knob][v] for v in vs])}, ax=ax, xlabel=title,
                ylabel="test MSE, unseen symbols" if ax is axes[0] else "", bounds=(0, None), legend=None)
    ax.axhline(1.0, color="0.5", ls=":", lw=1)
plots.stamp(fig, f"n = {k_n}; base task m = 4, k = 5, |W| = 3, |R| = 1; " + kres.label())
plt.show()
display(table(pd.DataFrame([{"knob": knob_names[k], "value": v, "test MSE": knob_loss[k][v].mean()}
                            for k in knob_loss for v in knob_loss[k]]).set_index(["knob", "value"])))

fitted = [max(kres.get_exact(p)["train_loss_final"]) for p in kgrid]
assert max(fitted) < 0.05  # every run fits its training set: the differences are in generalisation
for fig_no, knob, statement, paper_value in (
        (18, "wildcards", "more wildcards need more samples", "all |W| from 2 to 7 ≈0 by 2048-8192; larger |W| slower"),
        (19, "length", "longer templates need more samples", "n = 512 solves only short templates; n = 2048 all up to k = 20"),
        (20, "m", "more templates need more samples", "the n needed grows from ≈1000 (m = 2) to ≈8000 (m = 15)")):
    losses = knob_loss[knob]
    lo, hi = min(losses), max(losses)
    rising = losses[hi].mean() > losses[lo].mean() + 0.05
    record(ref=f"Figure {fig_no} (random templates: {knob})", label="sy-template-knobs", result=kres,
           reduced=f"the loss at n = {k_n} for the samples needed, the previous chapter's CPU budget",
           substitute="one regular token in every task (the paper's other settings are not in its text)",
           statement=statement, paper_value=paper_value,
           ours=f"n = {k_n}: " + ", ".join(f"{v}: {losses[v].mean():.2f}" for v in losses),
           passed=bool(rising and losses[hi].mean() >= max(x.mean() for x in losses.values()) - 0.05),
           partly=bool(rising))

# %% [markdown]
# (sy-pretraining)=
# ## Figures 6, 7 and 23 offline: a small pretrained model
#
# Section 6 of the paper takes the two parameters to real data. Figure 6 is a table: GPT-2
# trained from scratch on Wikitext-2 reaches perplexity 64.00, and 60.46 with trainable identity
# scalings (16.83 and 16.40 on Wikitext-103). Figure 7a fine-tunes pretrained GPT-2 on a template
# task: it needs about 256 samples, where GPT-2 from scratch needs more than 8,000. Figure 7b-c
# show heads of pretrained GPT-2 whose $W_KW_Q^\top$ and $W_VW_O^\top$ have a strong diagonal, like
# the identity scalings. Figure 23 fine-tunes three GPT-2 sizes: small and large are near 0 from
# n ≈ 16-32, and medium sits at 0.3 up to n = 128.
#
# **None of this data is offline.** Wikitext and GPT-2's weights come from the Hugging Face hub.
# Our stand-in is a synthetic corpus built to need the mechanism in question. It is a stream of
# statements `x = c ;` and `print x c ;`. The value after a printed variable is its latest
# binding (`lib.tasks.VariableBindingText`: 4 variables, 8 values, a vocabulary of 15 tokens,
# texts of 32 tokens). Every name and every choice of statement is random. So beyond the
# grammar and the frequencies, the one thing to learn is where the same variable last
# appeared.
#
# The model is a small GPT built from the course's attention stack (`lib.models`). It is causal,
# with 2 layers, heads of 16, an MLP of width 4d and a tied read-out. It comes in three widths
# (d = 32, 64, 128) and is trained by Adam at lr 3·10⁻³ on fresh text. The base width has 2
# seeds and the other two have 1. With identity scalings, $a_h$ and $b_h$ are both trained. The
# $a_h$ term includes each token's score on itself. The notes read the authors' GPT-2 run as
# $a_h$ only, with that diagonal masked, but the paper does not say. The sweep `pretraining`
# runs all of it.

# %%
pres = sweeps.result("pretraining")
pcfg, pgrid = sweeps.SWEEPS["pretraining"].define(pres.scale)
pre = {(p["size"], p["variant"]): pres.get_exact(p) for p in pgrid if p["stage"] == "pretrain"}
ppl = {v: np.array(pre["base", v]["val_ppl"]) for v in ("vanilla", "+KQ,VO")}
binding = {v: np.array(pre["base", v]["binding_acc"]) for v in ("vanilla", "+KQ,VO")}
display(plots.paper_vs_ours([
    {"quantity": "perplexity, vanilla", "paper": "64.00 (Wikitext-2), 16.83 (Wikitext-103)",
     "ours": f"{ppl['vanilla'].mean():.3f} (binding corpus, {len(ppl['vanilla'])} seeds)"},
    {"quantity": "perplexity, + identity scalings", "paper": "60.46, 16.40",
     "ours": f"{ppl['+KQ,VO'].mean():.3f}"},
    {"quantity": "printed values right", "paper": "-",
     "ours": f"vanilla {binding['vanilla'].mean():.3f}, + scalings {binding['+KQ,VO'].mean():.3f}"},
    {"quantity": "learned |a_h|, |b_h|", "paper": "-",
     "ours": f"{np.mean(pre['base', '+KQ,VO']['mean_abs_a']):.3f}, {np.mean(pre['base', '+KQ,VO']['mean_abs_b']):.3f}"}]))
print(pres.label())
assert np.mean(pre["base", "+KQ,VO"]["mean_abs_b"]) > 0 and ppl["+KQ,VO"].mean() < 1.05 * ppl["vanilla"].mean()
spread = max(np.ptp(ppl["vanilla"]), np.ptp(ppl["+KQ,VO"]), 1e-3)
improves = ppl["+KQ,VO"].mean() < ppl["vanilla"].mean() - spread
record(ref="Figure 6 (perplexity with identity scalings)", label="sy-pretraining", result=pres,
       substitute="a small causal model on a synthetic binding corpus, not GPT-2 on Wikitext",
       statement="trainable identity scalings lower a language model's perplexity",
       paper_value="Wikitext-2 64.00 → 60.46; Wikitext-103 16.83 → 16.40",
       ours=f"{ppl['vanilla'].mean():.3f} → {ppl['+KQ,VO'].mean():.3f} (seed spread {spread:.3f})",
       passed=bool(improves), partly=bool(ppl["+KQ,VO"].mean() < ppl["vanilla"].mean()))

# %% [markdown]
# (sy-diagonals)=
# ### Figure 7b-c: diagonals in pretrained heads
#
# A head's score of query $h_i$ on key $h_j$ is $h_i W_QW_K^\top h_j^\top$. A strong diagonal in
# $W_QW_K^\top$ makes a token attend to copies of itself, which is what $a_h I$ adds. Likewise a
# diagonal in $W_VW_O$ passes a token on as itself, which is what $b_h I$ adds. We score each head
# by its mean diagonal entry over its mean absolute off-diagonal entry. A random head scores
# about 0; a head with $a_h I$ scores high. The maps show the vanilla base model's heads with
# the highest scores. The table pools the heads of all seeds of a width (8 heads per base model).

# %%
diag = {size: pre[size, "vanilla"]["diagonal"] for size in sorted({p["size"] for p in pgrid})}
init_diag = pre["base", "vanilla"]["diagonal_init"]
rows = []
for size, per_seed in diag.items():
    for which in ("kq", "vo"):
        scores = np.array([s[which] for s in per_seed])  # (seeds, layers, heads)
        rows.append({"model": f"{size}, pretrained", "product": {"kq": "W_Q W_K^T", "vo": "W_V W_O"}[which],
                     "max over heads": scores.max(), "median": np.median(scores), "heads above 1": int((scores > 1).sum()),
                     "heads": scores.size})
for which in ("kq", "vo"):
    scores = np.array(init_diag[which])
    rows.append({"model": "base, at initialisation", "product": {"kq": "W_Q W_K^T", "vo": "W_V W_O"}[which],
                 "max over heads": scores.max(), "median": np.median(scores), "heads above 1": int((scores > 1).sum()),
                 "heads": scores.size})
display(table(pd.DataFrame(rows).set_index(["model", "product"])))
fig, axes = plots.panels(2, ncols=2, height=3.0)
for ax, (which, head) in zip(axes, pre["base", "vanilla"]["top_heads"].items()):
    m = np.array(head["matrix"])
    bound = np.abs(m).max()
    image = ax.imshow(m, cmap="RdBu_r", vmin=-bound, vmax=bound)
    ax.set_title(f"{'$W_QW_K^T$' if which == 'kq' else '$W_VW_O$'}: layer {head['layer']}, head {head['head']} "
                 f"(score {head['score']:.2f})", fontsize=8)
    ax.grid(False)
    ax.set_xlabel("residual coordinate")
    ax.set_ylabel("residual coordinate")
    fig.colorbar(image, ax=ax, shrink=0.8)
plots.stamp(fig, "base model (d = 64), seed 0, the head of highest diagonal score per product; " + pres.label())
plt.show()
assert max(np.abs(init_diag["kq"]).max(), np.abs(init_diag["vo"]).max()) < 0.5  # random heads have no diagonal
base_kq = np.array([s["kq"] for s in diag["base"]])
base_vo = np.array([s["vo"] for s in diag["base"]])
init_max = max(np.abs(init_diag["kq"]).max(), np.abs(init_diag["vo"]).max())
record(ref="Figure 7b-c (diagonals of pretrained heads)", label="sy-diagonals", result=pres,
       substitute="heads of a small model pretrained on the binding corpus, not GPT-2",
       statement="several pretrained heads have W_K W_Q^T and W_V W_O^T diagonals stronger than their other entries",
       paper_value="several of GPT-2's 144 heads show a pronounced diagonal (heat maps, no score given)",
       ours=f"base model: highest score W_Q W_K^T {base_kq.max():.2f}, W_V W_O {base_vo.max():.2f}; "
            f"heads above 1: {int((base_kq > 1).sum())} and {int((base_vo > 1).sum())} of {base_kq.size} "
            f"({base_kq.shape[-1]} heads × {base_kq.shape[-2]} layers × {base_kq.shape[0]} seeds); "
            f"at initialisation at most {init_max:.2f}",
       passed=bool((base_kq > 1).sum() >= 2 and (base_vo > 1).sum() >= 2),
       partly=bool(max(base_kq.max(), base_vo.max()) > 1))  # at least one head with a dominant diagonal

# %% [markdown]
# (sy-finetune)=
# ### Figures 7a and 23: fine-tuning against training from scratch
#
# The template-task model has the pretrained model's shape: causal, heads of 16, at the same
# width. It trains on αβα vs αββ under the previous chapter's protocol (Adam at $10^{-3}$, 1000
# full-batch steps, best validation step, 2 seeds). Fine-tuning starts from the vanilla
# pretrained model. It keeps the blocks, the final LayerNorm and the first positions, and gets
# new token embeddings and a new read-out. Training from scratch uses the same shape. Figure 23's
# three GPT-2 sizes become our three widths. For the small and large widths, both fine-tuning
# seeds start from the one pretrained model.

# %%
ft_ns = sorted({p["n"] for p in pgrid if p["stage"] == "finetune"})
sizes = [s for s in ("small", "base", "large") if any(p["size"] == s for p in pgrid)]
ft = {(size, v): np.stack([pres.get(size=size, stage="finetune", variant=v, n=n)["test"] for n in ft_ns])
      for size in sizes for v in ("pretrained", "scratch") if any(p["size"] == size and p["variant"] == v for p in pgrid)}
fig, axes = plots.panels(2, ncols=2, height=2.5, sharey=True)
plots.sweep(ft_ns, {"from scratch": ft["base", "scratch"], "pretrained": ft["base", "pretrained"]}, ax=axes[0],
            xlabel="training samples n", ylabel="test MSE, unseen symbols", title="Fig. 7a: base model (d = 64)",
            bounds=(0, None), legend="inside")
plots.sweep(ft_ns, {f"{s} (d = {sweeps.LM_SIZES[s]['d_model']})": ft[s, "pretrained"] for s in sizes}, ax=axes[1],
            xlabel="training samples n", title="Fig. 23: pretrained sizes", bounds=(0, None), legend="inside")
for ax in axes:
    ax.set_xscale("log", base=2)
    ax.axhline(1.0, color="0.5", ls=":", lw=1)
plots.stamp(fig, "αβα vs αββ, causal model, best validation step; " + pres.label())
plt.show()
display(table(pd.DataFrame({f"n = {n}": {f"{s}, {v}": ft[s, v][i].mean() for (s, v) in ft} for i, n in enumerate(ft_ns)})))
print("pretraining, printed values right: " + ", ".join(
    f"{s} {np.mean(pre[s, 'vanilla']['binding_acc']):.2f}" for s in sizes))

assert all(max(pres.get_exact(p)["train_loss_final"]) < 0.05 for p in pgrid if p["stage"] == "finetune")
# %% [markdown]
# Read these curves with care. Every fine-tuning run fits its training set, and the test losses
# at one n move a lot between runs. While building this sweep, we reran the small width's
# pretraining with results that differed only in the last float digits, and its loss at
# n = 512 moved by more than the gaps between the widths here. (The sweep now uses
# deterministic kernels, so it reproduces exactly.) The widths also did not all learn the corpus. The line above gives each width's
# share of printed values right. A width that did not learn binding is no test of what binding
# teaches.

# %%
pre_gain = ft["base", "scratch"].mean(1) - ft["base", "pretrained"].mean(1)
record(ref="Figure 7a (fine-tuning a pretrained model)", label="sy-finetune", result=pres,
       reduced="n <= 512, 1000 full-batch steps, 2 seeds",
       substitute="a small model pretrained on the binding corpus, not GPT-2",
       statement="a pretrained model fine-tuned on a template task needs far fewer samples than the same model "
                 "trained from scratch",
       paper_value="pretrained 0.25 at n = 32, ≈0.02 at 256; from scratch ≈1.0 until n ≈ 2000",
       ours="; ".join(f"n = {n}: scratch {ft['base', 'scratch'][i].mean():.2f}, pretrained {ft['base', 'pretrained'][i].mean():.2f}"
                      for i, n in enumerate(ft_ns)),
       passed=bool(ft["base", "pretrained"][-1].mean() < 0.2 and pre_gain.max() > 0.3 and (pre_gain > 0).all()),
       # a gain counts only where the pretrained model learns at all (below 0.9): between two
       # models at chance it says nothing (rule 4 of the report card)
       partly=bool(any(g > 0.1 and ft["base", "pretrained"][i].mean() < 0.9 for i, g in enumerate(pre_gain))))
size_best = {s: ft[s, "pretrained"].mean(1) for s in sizes}
record(ref="Figure 23 (pretrained model sizes)", label="sy-finetune", result=pres,
       reduced="n <= 512, 1000 full-batch steps", substitute="three widths of our small pretrained model, not GPT-2 "
       "small, medium and large",
       statement="pretrained models of several sizes, fine-tuned, learn the template task from few samples (in the "
                 "paper two of three sizes do; GPT-2 medium stays at 0.3)",
       paper_value="small 0.2 at n = 8, ≈0 from 16; large ≈0.05 at 32; medium 0.3 plateau up to 128",
       ours="; ".join(f"{s}: " + ", ".join(f"{v:.2f}" for v in size_best[s]) + f" at n = {', '.join(map(str, ft_ns))}"
                      for s in sizes),
       passed=bool(sum(min(size_best[s][i] for i, n in enumerate(ft_ns) if n <= 128) < 0.2 for s in sizes) >= 2),
       partly=bool(any(size_best[s].min() < 0.5 for s in sizes)))

# %% [markdown]
# (sy-discussion)=
# ## Discussion: where the kernel theory predicts training, and where it does not
#
# The paper's theory has two parts. Section 4 studies a transformer trained only in its last
# layer, at infinite width: a kernel method. Section 5 studies the first instant of training of
# the full model on the copy task. Its experiments train whole finite models with Adam. The
# table below puts each prediction of the theory beside the claims of this part that test it in
# training, with the verdicts recorded in this part's three chapters.

# %%
PREDICTIONS = {
    "MLPs cannot generalise to unseen symbols (App. I)": ("Theorem I.2", "Figure 24"),
    "the kernel generalises as n grows, slower where N is ill-conditioned (Thm 4.4)": (
        "Theorem 4.4", "Figure 14", "Figures 16 and 22"),
    "giving attention XXᵀ helps (Sec. 4.3, Obs. 1.2)": ("Figure 24", "Figures 1 and 21", "Figure 15", "Figure 7b-c"),
    "symbolic labels: vanilla stalls as d grows, b_h I does not (Thms 5.1-5.2)": (
        "Theorems 5.1 and 5.2", "Figure 5", "Figure 2"),
    "outside the theory: optimiser, task and pretraining": (
        "Figure 8", "Figures 9 and 10", "Figure 11", "Figure 12", "Figure 13", "Figure 17", "Figure 18", "Figure 19",
        "Figure 20", "Figure 6", "Figure 7a", "Figure 23")}
part = [c for c in claims.collect() if c.paper == "boixadsera2024"]
rows = []
for prediction, refs in PREDICTIONS.items():
    for ref in refs:
        for c in part:
            if c.ref == ref or c.ref.startswith(ref + " "):
                rows.append({"prediction": prediction, "claim": c.ref, "verdict": c.verdict, "scale": c.scale,
                             "ours": c.ours if len(c.ours) < 160 else c.ours[:157] + "..."})
discussion = pd.DataFrame(rows)
display(table(discussion.set_index(["prediction", "claim"])))
missing = {ref for refs in PREDICTIONS.values() for ref in refs
           if not any(r["claim"] == ref or r["claim"].startswith(ref + " ") for r in rows)}
assert not missing, f"claims not recorded yet: {missing}"

# how far Adam moved the two scalars (from 0) in every trained run of this part that has them
learned = {"a_h": [], "b_h": []}
for name in ("identity_scalings", "majority", "copy", "program_symbolic", "pretraining"):
    for row in sweeps.result(name).points:
        for key, label in (("mean_abs_a", "a_h"), ("mean_abs_b", "b_h")):
            learned[label] += [v for v in row["result"].get(key, []) if v > 0]
print("mean |a_h| learned: " + readable([min(learned["a_h"]), max(learned["a_h"])], 2) + "; mean |b_h| learned: "
      + readable([min(learned["b_h"]), max(learned["b_h"])], 2) + " (smallest, largest over runs)")

# %% [markdown]
# **Where the theory predicts what training does.**
#
# * *MLPs.* Theory and training agree exactly. An MLP trained by Adam never moves the weights
#   of a token it has not seen, and stays at chance on unseen symbols for every n.
# * *Which tasks are hard.* The kernel's N matrix ranks the tasks, and trained transformers
#   follow that ranking. Majority-4, whose N is the worst conditioned, is the hardest task for
#   kernel ridge regression and for the trained models, in the paper and here. More templates
#   (a larger N) cost samples in training too (Figure 20 above).
# * *A diagonal in attention helps.* The kernel analysis says attention should see the
#   incidence matrix $XX^\top$. A diagonal in $W_QW_K^\top$ gives it that. In our runs, the
#   largest single gain of the whole part comes from putting that diagonal in at
#   initialisation: mimetic initialisation (Figure 15 above) takes the test loss at n = 512
#   much lower than the Gaussian start does, and lower than $a_h I$ does.
# * *Copying.* The early-time gradients of Theorems 5.1-5.2 are exactly as computed, and the
#   inverse scaling in $d_{\rm emb}$ that they predict shows up in trained models.
#
# **Where it does not.**
#
# * *Rates.* Theorem 4.4 is a limit: infinite width, and n and diversity going to infinity. At
#   the widths one trains, the literal kernel regime is weak. A trained read-out on a frozen
#   random transformer of the paper's width does much worse than the infinite-width kernel
#   (Figure 14 above against kernel ridge regression in the first chapter). In the paper, the
#   fully trained transformer reaches ≈0 by n ≈ 2,048, while its last layer alone is still at
#   0.11-0.3 at n = 16,384. So the data efficiency the paper measures comes from training the
#   whole network, which the theory does not describe.
# * *The two parameters as trained.* The theory shows what $a_h$ and $b_h$ make possible, not
#   that Adam will use them. In every run of this part they stay small (the range is printed
#   above, language model included). A diagonal put in from the start (mimetic) helps more than one that
#   has to be learned.
# * *Optimiser and architecture.* Learning rate, batch size, depth, heads and width lie outside
#   the theory. At our budget some of the paper's trends hold (smaller batches help, one head
#   is worst) and others do not (depth and width make no clear difference, and lr $10^{-2}$
#   still learns).
# * *Pretraining.* The paper's explanation of Figure 7 is that pretrained heads already carry
#   the diagonals. Our stand-in cannot settle it. A small model that learned the binding task
#   perfectly did so without diagonal heads. Starting from it did not help on αβα vs αββ at the
#   base width, the one width with a from-scratch run beside it. So a corpus that rewards
#   finding the same token again is not enough to grow the identity-like heads the paper sees
#   in GPT-2. The paper's evidence is GPT-2's own weights, and those are not offline.
