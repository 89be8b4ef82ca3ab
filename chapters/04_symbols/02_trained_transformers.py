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
# (sy-trained)=
# # Abstract symbols: trained transformers and two parameters per head
#
# The {ref}`kernel chapters <sy-krr>` showed that a transformer can generalise to unseen symbols, with enough
# samples. This chapter trains the authors' transformer. It tests the paper's two proposals,
# each one trainable scalar per attention head that starts at 0:
#
# * **For real labels, $W_KW_Q^\top + a_h I$** (Observation 1.2, Sec. 4.3). This adds
#   $a_h\, h_i \cdot h_j$ to every attention score, handing attention the incidence matrix
#   $XX^\top$ that the kernel analysis identified as the key.
# * **For symbolic labels, $W_VW_O^\top + b_h I$** (Theorem 5.2). This adds $b_h \sum_j A_{ij}
#   h_j$ to the head's output, an attention-modulated skip connection that can carry a token's
#   own embedding to the read-out, where the tied unembedding can name it.
#
# **Scale.** The paper trains a 2-layer transformer (d = 128, 16 heads of 64, MLP 256) with Adam,
# batch 1024, for 1000 epochs and 5 trials. It picks the best epoch by validation loss on 100
# strings of one unseen alphabet and reports the test loss on 100 strings of another. The default
# scale keeps the protocol and shrinks the model to d = 64, 16 heads of 8, MLP 128. It trains
# full batch for 1000 steps (300 for copying), with 5 seeds (2 for Figures 2, 16 and 22), and n at
# most 512. The sweeps are
# loaded from `data/`. The paper scale is defined in `lib.papers.boixadsera2024.sweeps` but has
# not been run.

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
import torch
from IPython.display import display

from lib import claims, plots, scale
from lib.models import build_model
from lib.papers.boixadsera2024 import checks, copying, sweeps, training
from lib.papers.boixadsera2024 import curves as cv
from lib.plots import table
from lib.tasks import symbol_templates as st

plots.use_style()
record = claims.Recorder(paper="boixadsera2024", chapter="chapters/04_symbols/02_trained_transformers")

# %% [markdown]
# (sy-identity)=
# ## The two parameters in the shared stack
#
# `IdentityScalingConfig` is the shared attention stack with the authors' defaults: learned
# embeddings, pre-LayerNorm blocks with a GELU MLP, bidirectional attention, and the read-out at
# the final `[CLS]` token. Two switches add the scalars `id_kq` ($a_h$) and `id_vo` ($b_h$), one
# per head. They are placed where the authors' code puts them: $a_h\,h_ih_j^\top$ after the
# $1/\sqrt{d_{\rm head}}$ scaling, on the layer-normed input, and $b_h A h$ added to the
# attention sublayer's output. With both scalars at 0 the model computes exactly what the plain
# stack computes, weight for weight for the same seed. With a large $a_h$, a position attends
# to the positions that hold its own token.

# %%
task = st.SymbolTemplates(*st.aba_abb(), n_symbols=16)
shape = dict(d_model=64, n_layers=2, n_heads=16, d_head=8, d_mlp=128)
plain = build_model(training.model_config(task, "vanilla", **shape), seed=0)
both = build_model(training.model_config(task, "+KQ,VO", **shape), seed=0)
x = task.sample(8, seed=0).x
same_output = bool(torch.equal(plain(x), both(x)))
with torch.no_grad():
    both.layers[0].attn.id_kq.fill_(1.0)
    h = both.layers[0].ln_attn(both.embed(x))
    a = both.layers[0].attn.pattern(h, both.allowed(x.shape[1], "cpu"))
mass_on_equal = float(((x[:, :, None] == x[:, None, :]).float()[:, None] * a).sum(-1).min())
print(f"a_h = b_h = 0: same outputs as the plain stack: {same_output}; a_h = 1: least attention on "
      f"positions with one's own token: {mass_on_equal:.3f}; scalars: {[n for n, _ in both.named_parameters() if '.id_' in n]}")
assert same_output and mass_on_equal > 0.9

# %% [markdown]
# (sy-figure-21)=
# ## Figures 1 and 21: $a_h I$ against the data a transformer needs
#
# The paper's headline experiment is Figure 1: two programs that differ only in which variable is
# printed. Figure 21 is the same comparison on αβα vs αββ, with all four variants. In the paper,
# the vanilla transformer needs about 2,000 samples before its test loss on unseen symbols
# approaches 0, while the transformer with $a_h I$ needs about 64. The sweep `identity_scalings`
# runs both tasks at the default scale, reading each run's test loss at its best validation
# step. The program templates are our reconstruction (the text lost them):
# `α = 1 ; β = -1 ; print ( α )` → +1 and `… print ( β )` → −1. Where two variants
# coincide (a $b_h$ that stayed near 0 changes little), one line hides the other; the table
# gives every value.

# %%
res = sweeps.result("identity_scalings")
ns, loss = cv.identity_losses(res)

# %% tags=["hide-input"]
fig, axes = plots.panels(2, ncols=2, height=2.6, sharey=True)
for ax, name in zip(axes, ("program (Fig. 1)", "αβα vs αββ")):
    plots.sweep(ns, {v: loss[name, v] for v in training.VARIANTS if (name, v) in loss}, ax=ax,
                xlabel="training samples n (= alphabet size)", ylabel="test MSE, unseen symbols",
                title=name, bounds=(0, None), legend=None, band="ci95")
    ax.axhline(1.0, color="0.5", ls=":", lw=1)
    ax.set_xscale("log", base=2)
plots.shared_legend(fig, axes, ncols=4)
plots.stamp(fig, f"best validation step of {res.config['steps']} full-batch Adam steps (lr {res.config['lr']}); "
                 "dotted: predicting 0; bands: 95% intervals over seeds; " + res.label())
plt.show()
display(table(pd.DataFrame([{"task": t, "variant": v, **{f"n = {n}": loss[t, v][i].mean() for i, n in enumerate(ns)}}
                            for t in ("program (Fig. 1)", "αβα vs αββ") for v in training.VARIANTS if (t, v) in loss])
              .set_index(["task", "variant"])))
display(plots.paper_vs_ours([
    {"quantity": "Fig. 1, vanilla", "paper": "≈1.0 until n ≈ 64; 0.8 at 128; 0.55 at 512; ≈0 only at ≈2048",
     "ours": ", ".join(f"{loss['program (Fig. 1)', 'vanilla'][i].mean():.2f} at {n}" for i, n in enumerate(ns))},
    {"quantity": "Fig. 1, +a_h I", "paper": "1.0 at 16; 0.38 at 32; ≈0.05 at 64",
     "ours": ", ".join(f"{loss['program (Fig. 1)', '+KQ'][i].mean():.2f} at {n}" for i, n in enumerate(ns))},
    {"quantity": "Fig. 21, αβα vs αββ", "paper": "+KQ ≈0 at n ≈ 32-64; +KQ,VO ≈0 at 64; +VO ≈0 at ≈1000; "
     "vanilla ≈0 at ≈2000", "ours": "; ".join(f"{v} {loss['αβα vs αββ', v][-1].mean():.2f}" for v in training.VARIANTS)
     + f" at n = {ns[-1]}"}]))

# %%
a_learned = cv.mean_abs_scalar(res, "mean_abs_a", variant="+KQ")
print(f"mean |a_h| learned under +KQ: {a_learned:.3f} (from 0; Adam moves a scalar by at most about lr per step)")
assert all(loss[t, "vanilla"][0].mean() > 0.8 for t in ("program (Fig. 1)", "αβα vs αββ"))  # vanilla: not from the fewest samples

# %% tags=["hide-input"]
fig1_check = checks.figures_1_and_21(res)
if res.scale == "default":  # no seed of either arm reaches test loss 0.1 by n = 512: nothing to compare
    assert fig1_check.verdict == "inconclusive", fig1_check.verdict
record(fig1_check)

# %% [markdown]
# The check reads the claim as the paper states it, in samples needed: the n at which each seed's
# test loss falls to 0.1 (interpolated in log n), compared over seeds, with +KQ needing about ten
# times fewer (`lib.stats.samples_to_reach`). It does not read the loss at our largest n, which
# would tie the verdict to our grid: at the paper's grid a model that needs 64 samples and one that
# needs 2,048 would both sit at 0 at the largest n. Within $n \le 512$ neither arm gets there, so
# the runs cannot say how many samples either needs, and the claim is **inconclusive** at this
# scale. At n = 512 the +KQ models' loss on αβα vs αββ is about half of vanilla's (0.45 against
# 0.93, five seeds each): suggestive of the paper's effect, but the claim is about samples
# needed, and neither arm has reached the threshold.

# %% [markdown]
# (sy-observation-1-2)=
# ### Observation 1.2, read from the same runs
#
# Observation 1.2 is the paper's general statement behind Figures 1 and 21: one trainable
# $a_h$ per head "dramatically" improves data efficiency on template tasks. Read as samples
# needed, it asks for the n at which the test loss first falls below 0.25 with $a_h I$ to be
# about an order of magnitude (here: at least 8 times) below vanilla's, on both tasks, decided
# over seeds; "partly" when $a_h I$ needs fewer samples on both tasks but not eight times fewer.
# The check reads the `identity_scalings` runs above.

# %% tags=["hide-input"]
obs_check = checks.observation_1_2(res)
if res.scale == "default":  # neither arm reaches 0.25 by n = 512 on either task
    assert obs_check.verdict == "inconclusive", obs_check.verdict
record(obs_check)

# %% [markdown]
# (sy-figure-21-paper-scale)=
# ### At the paper's scale, on a GPU (partial)
#
# The `paper` scale of `identity_scalings` is the paper's model (d = 128, two layers, 16 heads of
# 64) with n up to 8,192 and five seeds. It ran on an H100 for one short window through the
# paper-scale queue, which stores each finished point: the vanilla arm of αβα vs αββ up to some n.
# That arm alone cannot test the claim, which compares variants, so it records no verdict; the
# table shows where the vanilla transformer's test loss stands at the paper's size.

# %% tags=["hide-input"]
gpu_res = sweeps.SWEEPS["identity_scalings"].paper_result()
if gpu_res is None:
    print("no paper-scale result of identity_scalings in data/ yet")
else:
    print(f"{gpu_res.name}: {gpu_res.progress()}; {gpu_res.provenance['device']}, "
          f"commit {gpu_res.provenance['git_commit']}, {gpu_res.wall_s:.0f} s")
    done = sorted({(p["point"]["task"], p["point"]["variant"]) for p in gpu_res.points})
    gpu_rows = []
    for t, v in done:
        points = sorted((p["point"]["n"], p["result"]["test"]) for p in gpu_res.points
                        if (p["point"]["task"], p["point"]["variant"]) == (t, v))
        gpu_rows.append({"task": t, "variant": v, "seeds": len(points[0][1]),
                         **{f"n = {n}": np.mean(test) for n, test in points}})
    display(table(pd.DataFrame(gpu_rows).set_index(["task", "variant"])))
    missing = sorted({(p["task"], p["variant"]) for p in gpu_res.grid} - set(done))
    print("not run yet:", "; ".join(f"{t} {v}" for t, v in missing))

# %% [markdown]
# (sy-majority)=
# ## Figures 16 and 22: majority tasks get harder with length
#
# The length-k majority task has all $2^{k-1}$ templates $\alpha\{\alpha,\beta\}^{k-1}$. Its label
# says whether α fills most of positions 2..k. The {ref}`first chapter <sy-n-matrix>` found its N matrix the worst
# conditioned of the tasks there, by two to three orders of magnitude. The paper's Figure 16
# shows the vanilla transformer solving majority-2 by n ≈ 2,048 and majority-4 only at 8,192,
# and majority-6 and -8 not at all. Figure 22 shows that with both identity scalings, majority-2
# is solved by 128, majority-4 by about 1,000, and majority-6 and -8 by 8,192. The sweep
# `majority` runs k = 2, 4, 6 at the default budget.

# %%
mres = sweeps.result("majority")
mns, mks, mloss = cv.majority_losses(mres)
display(table(pd.DataFrame({f"{v}, n = {n}": {f"majority-{k}": mloss[k, v][i].mean() for k in mks}
                            for v in ("vanilla", "+KQ,VO") for i, n in enumerate(mns)})))
print(mres.label())

# %% tags=["hide-input"]
fig16_22 = checks.figures_16_and_22(mres)
if mres.scale == "default":  # longer is harder (decided); the scalings help majority-2, majority-4 and -6 undecided
    assert fig16_22.verdict == "partly", fig16_22.verdict
record(fig16_22)

# %% [markdown]
# (sy-random-templates)=
# ## Figure 17: regular tokens make a task easy
#
# App. B.2 draws random template tasks. Each has m templates over a set of wildcards and a set of
# regular tokens, with Gaussian labels scaled so that predicting 0 has MSE 1. Figure 17 varies
# the number of regular tokens. With none, the task is as hard as αβα vs αββ (≈0 only at n ≈
# 2,048). With one or two, the test loss is below 0.25 from n = 8, because a regular token's
# position alone tells many templates apart, and regular tokens are seen in training. The
# paper's other settings for this sweep are not in its text. Ours are 4 templates of length 5
# over 3 wildcards, the same draw for each number of regular tokens.

# %%
rres = sweeps.result("random_templates")
rns, rloss = cv.random_template_losses(rres)
display(table(pd.DataFrame({f"|R| = {r}": {f"n = {n}": rloss[r][i].mean() for i, n in enumerate(rns)} for r in rloss})))
for r in rloss:
    print(f"|R| = {r}:", "; ".join(" ".join(t.split()) for t in st.random_templates(4, 5, 3, r, seed=0)[0]))
print(rres.label())

# %% tags=["hide-input"]
fig17_check = checks.figure_17(rres)
if rres.scale == "default":  # |R| = 1, 2 reach test loss 0.25 by n = 128 in every seed, |R| = 0 in none by 512
    assert fig17_check.verdict == "substituted", fig17_check.verdict
record(fig17_check)

# %% [markdown]
# (sy-figure-2)=
# ## Figure 2: a program whose answer is an unseen symbol
#
# Figure 2 makes the program task symbolic: `α = γ ; β = δ ; print ( α )` is labelled with
# whatever token γ became (reconstructed templates). To answer, the model must look up which
# value was bound to the printed variable, then output a token it never saw in training. In the
# paper, the vanilla transformer (4 layers, d = 512) plateaus at error 0.5 from n ≈ 500 to
# 30,000 and is still at 0.15 at 260,000. With both scalings it leaves the plateau early and
# reaches 0 near 8,000. The plateau at 0.5 is the model copying one of the two values without
# knowing which. The sweep `program_symbolic` runs the default budget, 2 layers and d = 64, up
# to n = 512, five seeds per point.

# %%
pres = sweeps.result("program_symbolic")
pns, perr = cv.program_errors(pres)
display(table(pd.DataFrame({v: {f"n = {n}": perr[v][i].mean() for i, n in enumerate(pns)} for v in perr})))
print(pres.label())

# %% tags=["hide-input"]
fig2_check = checks.figure_2(pres)
if pres.scale == "default":  # neither variant reaches error 0.1 by n = 512: the samples needed are beyond the grid
    assert fig2_check.verdict == "inconclusive", fig2_check.verdict
record(fig2_check)

# %% [markdown]
# Read in samples needed, as for Figure 1: the paper's +KQ,VO reaches error 0 near n = 8,000, sixteen
# times our largest n, and no seed of either variant gets below error 0.1 here (means over five
# seeds 0.89 and 0.95 at n = 512, every seed between 0.85 and 0.98), so
# the runs say nothing about how many samples either needs: **inconclusive** at this scale (the
# earlier check read a vanilla plateau above 0.3 with no gain for +KQ,VO as "not reproduced", a
# verdict tied to where our grid stops).

# %% [markdown]
# (sy-copy)=
# ## Copying unseen symbols: Theorems 5.1 and 5.2
#
# With symbolic labels the model must *output* a token it never saw. The simplest such task is
# copying, where the template `α` is labelled `α`. For a one-token input, the paper's
# attention-only model with tied embeddings is eq. (27), $f(x) = W_E\sum_h W_{O,h}W_{V,h}^\top
# (W_E^\top x + \gamma p)$. Theorem 5.1 considers the training loss decreasing at a bounded rate.
# In that case, the loss on an unseen token does not decrease at first, as the width grows. The
# reason is that updates stay in the span of the training tokens' embeddings, and a fresh
# embedding is nearly orthogonal to that span. Theorem 5.2: with $b_h I$ added, it does
# decrease.
#
# At time 0 of gradient flow on one group of parameters g, the test loss moves by
# $R_g = \langle \nabla_g L_{\rm test}, \nabla_g L_{\rm train}\rangle / \|\nabla_g L_{\rm train}\|^2$
# per unit of training loss, whatever that group's learning rate. Theorem 5.1 says $R_g \to 0$
# (or below) for every vanilla group as d grows, and Theorem 5.2 says $R_b$ stays of order 1. The
# computation below uses 16 training tokens, 100 unseen ones, 8 heads, the mean-field
# initialisation of App. J, and 5 seeds.

# %%
ds = scale.pick(smoke=[32, 128, 512], default=[32, 128, 512, 2048], paper=[32, 128, 512, 2048])
ratios = copying.ratio_table(ds, seeds=range(scale.pick(smoke=2, default=5, paper=5)))
display(table(pd.DataFrame({g: v.mean(axis=1) for g, v in ratios.items()}, index=pd.Index(ds, name="d"))))

# %% tags=["hide-input"]
copy_check = checks.theorems_5_1_and_5_2(ds, ratios)
assert copy_check.passed
record(copy_check)

# %% [markdown]
# The vanilla ratios do not merely vanish: for the embedding and the positional vector they are
# negative at every d. Training on seen tokens makes unseen ones *worse* at first. The
# reading notes observed the same, which is why the book states Theorem 5.1 as "no first-order
# decrease".
#
# (sy-figure-5)=
# ## Figure 5: inverse scaling, and $b_h I$ against it
#
# Figure 5 trains the full transformer on the copy task for a range of embedding widths. The
# vanilla model needs more samples the wider it is, about d/2 to d of them. The paper calls this
# an inverse scaling law. With $b_h I$, about 16 samples suffice at every width. The sweep
# `copy` runs d = 32 and 128 with the model and protocol above (300 full-batch steps).

# %%
cres = sweeps.result("copy")
cns, cds, err = cv.copy_errors(cres)

# %% tags=["hide-input"]
fig, axes = plots.panels(2, ncols=2, height=2.6, sharey=True)
for ax, v in zip(axes, ("vanilla", "+VO")):
    plots.sweep(cns, {f"d = {d}": err[v, d] for d in cds}, ax=ax, xlabel="training samples n",
                ylabel="test error, unseen tokens", title=v, bounds=(0, 1), legend=None, band="ci95")
    ax.set_xscale("log", base=2)
plots.shared_legend(fig, axes, ncols=len(cds))
plots.stamp(fig, f"copy task, best validation step of {cres.config['copy_steps']} full-batch Adam steps; bands: 95% "
                 "intervals over seeds; " + cres.label())
plt.show()
display(table(pd.DataFrame({f"{v}, d = {d}": {f"n = {n}": err[v, d][i].mean() for i, n in enumerate(cns)}
                            for v in ("vanilla", "+VO") for d in cds})))
print("mean |b_h| learned:", {d: round(cv.mean_abs_scalar(cres, "mean_abs_b", variant="+VO", d_model=d), 3) for d in cds})

# %% tags=["hide-input"]
fig5_check = checks.figure_5(cres)
if cres.scale == "default":  # inverse scaling decided over five seeds; no variant reaches error 0.1 by n = 128
    assert fig5_check.verdict == "partly", fig5_check.verdict
record(fig5_check)

# %% [markdown]
# Over five seeds the inverse scaling is decided: at n = 128 the wider vanilla model's copy error
# is 0.96 against the narrower one's 0.60 (Welch at the check's level, and no n the other way).
# The second half is not shown: $b_h I$ does not bring the error to 0.1 by n = 128 at either
# width, so how many samples it saves cannot be read from these runs. The claim is **partly**
# shown. With two seeds the same gap could not be decided.

# %% [markdown]
# (sy-trained-differ)=
# ## What this chapter found, and what is not here yet
#
# * **Where the kernel theory predicts training.** The early-time analysis of Theorems 5.1-5.2
#   holds as computed: at initialisation only $b_h$ moves the loss on unseen tokens. The
#   inverse scaling of Figure 5 appears in training too: at the same n, the wider vanilla model
#   copies worse, decidedly so over five seeds. The kernel chapters' ranking of tasks by $\sigma_{\min}(N)$ agrees with the
#   paper's trained transformers (Fig. 16: majority-4 is the hardest of the four). Their Figure 24
#   analogue agrees with trained MLPs.
# * **Where it does not, here.** At this CPU budget, Figure 21's direction holds on αβα vs
#   αββ: $a_h I$ lowers the test loss at the largest n. The size of the effect does not hold:
#   no variant reaches the paper's near-zero loss by n = 512. On the program task neither
#   variant generalises by n = 512. Read in samples needed, as the paper states the saving, these
#   runs cannot decide it (inconclusive, not refuted): they end before either arm gets there. The scalars themselves barely move: $|a_h|$ and $|b_h|$ end at about a hundredth
#   (printed above), although Adam at lr $10^{-3}$ could take them to 1 in 1000 steps. Their
#   gradients do not keep one sign. The early-time theory predicts the first instant of training
#   exactly, but Adam on a finite budget follows it only if the scalars keep pace with the
#   embeddings, which memorise the training tokens first (the notes saw the same stall in a
#   minimal copy model). The paper's scale (d = 128, heads of 64, n to 8192, 5 seeds) is the
#   test this needs, on a GPU. The majority runs and the symbolic program tell the same story.
#   Length makes majority harder, as in Figure 16, but the scalings help only majority-2 at
#   this budget. Neither variant learns the symbolic program by n = 512, so its 0.5 plateau
#   has not even been reached.
# * **Our initialisation.** The token and positional tables are drawn N(0, 1), as the authors'
#   `nn.Embedding` does. The stack's default of N(0, 1/fan_in) made token embeddings about
#   1/√V the size of positional ones, and the first copy runs with it were at chance for every
#   variant.
# * **Where the rest is.** The App. B sweeps (Figures 8-15, 18-20), the offline stand-ins for
#   Section 6 (Figures 6, 7 and 23) and a discussion of the whole part are in the
#   {ref}`next chapter <sy-appendix>`. Nothing here has run at the paper's scale, which needs a GPU.
