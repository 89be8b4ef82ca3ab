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
# The chapter closes the part with a discussion: where the kernel theory of the first two chapters
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
# computation; each model is a *member* of the ensemble. Here the members of one run are
# (learning rate, seed) pairs, five seeds per rate, so a whole learning-rate grid costs one run.

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
import numpy as np
from IPython.display import display

from lib import claims, plots, scale
from lib.papers.boixadsera2024 import analysis, checks, figures, sweeps
from lib.papers.boixadsera2024 import curves as cv
from lib.plots import readable, table

plots.use_style()
record = claims.Recorder(paper="boixadsera2024", chapter="chapters/04_symbols/03_hyperparameters_and_pretraining")


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

# %% tags=["hide-input"]
figures.hyperparameters(hres)
display(table(figures.hyperparameter_table(hres)))

# %% [markdown]
# Each figure gets its own check, decided over seeds: each arm is read at its own best learning
# rate, and a difference counts when Welch's test rejects at the check's Bonferroni level. The
# stored default run has **five seeds per learning rate** (55 minutes on a 2-core CPU, two
# single-thread processes side by side). At n = 512 two of the paper's findings hold over seeds:
# a batch of 64 beats the full batch, and one head is worse than 16 or 64 (both *substituted*:
# our n, epochs and sizes are not the paper's). Two stay *inconclusive*: depth makes no
# difference the seeds can tell, and the best learning rate at n = 512 is $10^{-2}$, the rate the
# paper finds failing, though no rate decidedly learns there (every mean test loss is above 0.5).

# %% tags=["hide-input"]
# from the fewest samples no learning rate generalises (Fig. 8: far from 0 below n ≈ 2048)
assert min(v.mean() for v in cv.lr_losses(hres)[min(cv.lr_losses(hres))].values()) > 0.5
b1_checks = [checks.figure_8(hres), checks.figures_9_and_10(hres), checks.figure_11(hres), checks.figure_12(hres)]
if hres.scale == "default":  # five seeds per rate: batch and heads decided, learning rate and depth not
    assert [c.verdict for c in b1_checks] == ["inconclusive", "substituted", "inconclusive", "substituted"], b1_checks
for b1_check in b1_checks:
    record(b1_check)

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
# in the authors' code. Ours is TK23's form with α = β = 0.7. The runs use lr $10^{-3}$ and 5
# seeds. The Gaussian runs and the $a_h I$ runs are the previous chapter's sweep (same
# protocol, same seeds).

# %%
ires = sweeps.result("identity_scalings")

# %% tags=["hide-input"]
figures.width_and_init(hres, ires)
fig13_check = checks.figure_13(hres)
assert fig13_check.verdict == "inconclusive" or hres.scale != "default", fig13_check.verdict  # no width decidedly best
record(fig13_check)
fig15_check = checks.figure_15(hres, ires)
assert fig15_check.verdict == "substituted" or scale.current() != "default", fig15_check.verdict
record(fig15_check)

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
# solution, with the frozen network evaluated in float64 (`analysis.last_layer_float64`: in float32
# the features' last bits depend on the CPU, and the fit turns them into a change in the second
# decimal). That makes the paper's own sizes cheap: d = 128, 16 heads of 64, n to 16,384. The
# paper does not say which weights its multiplier scales. We scale every weight matrix below the
# read-out. The read-out has only d + 1 = 129 weights. So its test loss can fall only as far as
# 129 random features separate the templates, whatever n is.

# %%
ll_ns = scale.pick(smoke=[256, 1024], default=[256, 1024, 4096, 16384], paper=[256, 1024, 4096, 16384])
ll_seeds = range(scale.pick(smoke=1, default=5, paper=5))
ll_shape = scale.pick(smoke=dict(d_model=64, n_heads=8, d_head=16, d_mlp=128),
                      default=dict(d_model=128, n_heads=16, d_head=64, d_mlp=256),
                      paper=dict(d_model=128, n_heads=16, d_head=64, d_mlp=256))
ll = analysis.last_layer_table(ll_ns, (1.0, 8.0, 64.0), ll_seeds, **ll_shape)

# %% tags=["hide-input"]
figures.last_layer(ll, ll_shape, ll_seeds, scale.current())
assert ll[ll_ns[-1], 1.0].mean() > 0.85  # at the usual initialisation the random features do not separate the templates
fig14_check = checks.figure_14(ll, ll_shape, ll_seeds)
if scale.current() == "default":  # ×8 and ×64 below ×1, but ×64 not below ×8
    assert fig14_check.verdict == "partly", fig14_check
record(fig14_check)

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
# needed" (a run over several n, as at the paper scale, is read in samples needed to reach test
# loss 0.25); each check asks whether it rises with the setting, by Kendall's trend over every
# (value, seed), and is inconclusive when five seeds cannot decide it.

# %%
kres = sweeps.result("template_knobs")
rres = sweeps.result("random_templates")

# %% tags=["hide-input"]
display(table(figures.template_knobs(kres, rres)))
assert max(max(kres.get_exact(p)["train_loss_final"]) for p in kres.grid) < 0.05  # every run fits its training set
knob_checks = [checks.figure_18(kres, rres), checks.figure_19(kres, rres), checks.figure_20(kres, rres)]
if kres.scale == "default":  # more wildcards and more templates: a rising loss at n = 128; length: no decided trend
    assert [c.verdict for c in knob_checks] == ["substituted", "inconclusive", "substituted"], knob_checks
for knob_check in knob_checks:
    record(knob_check)

# %% [markdown]
# Over five seeds the test loss at n = 128 rises with the number of wildcards and with the number
# of templates, decidedly (Kendall's trend). With the template length it does not: the shortest
# templates are the hardest here. Each length draws its own templates (4 of length 3 over 3
# wildcards and one regular token have few positions to differ in), so this point differs from
# the others in more than its length; we have not separated the two.

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
# (d = 32, 64, 128) and is trained by Adam at lr 3·10⁻³ on fresh text. Every width has 5 seeds
# (the paper has one GPT-2 of each size, so its spread between runs is unknown). With identity
# scalings, $a_h$ and $b_h$ are both trained. The $a_h$ term includes each token's score on
# itself. The notes read the authors' GPT-2 run as $a_h$ only, with that diagonal masked, but the
# paper does not say. The sweep `pretraining` runs all of it.

# %%
pres = sweeps.result("pretraining")
display(figures.perplexity_table(pres))
print(pres.label())

# %% tags=["hide-input"]
base = cv.pretrained(pres)["base", "+KQ,VO"]
assert np.mean(base["mean_abs_b"]) > 0 and np.mean(base["val_ppl"]) < 1.05 * np.mean(cv.pretrained(pres)["base", "vanilla"]["val_ppl"])
floor = analysis.binding_bayes_perplexity(**pres.config["corpus"])
at_floor = checks.figure_6(pres)  # read, not recorded: Figure 6 is judged on the corpus below
print(f"this corpus's own perplexity (no model goes below it): {floor:.4f}; Figure 6 here: {at_floor.verdict}")
if pres.scale == "default":
    assert at_floor.verdict == "inconclusive"  # near the corpus's floor, and too spread: see below

# %% [markdown]
# **Figure 6 at a floor, and with room above it.** A corpus has a least perplexity, that of the
# process that writes it (`analysis.binding_bayes_perplexity`, computed exactly from the
# statements' probabilities and checked against them on sampled text). Both base models above
# end within about 3% of it on average (the best seeds within 1.5%), no further than the smaller
# of the paper's two gains (2.6%, Wikitext-103), and they spread between seeds by more than such
# a gain: on this corpus a gain like the paper's could not be told from its absence (the line
# above: *inconclusive*). The sweep `ppl_headroom` asks Figure 6's question again on a harder
# corpus (16 variables, 16 values, texts of 64 tokens), at the same budget and with five seeds
# per model.

# %%
hres = sweeps.result("ppl_headroom")
display(figures.perplexity_table(hres))
figure6 = checks.figure_6(hres)  # Welch's test, and the interval of the gain against the paper's 2.6%
if hres.scale == "default":
    assert figure6.verdict == "not reproduced"  # no gain, measured tightly enough to rule out the paper's
record(figure6)

# %% [markdown]
# Here the models stay about 12% above the floor and find the last binding about a quarter of
# the time, so there is room for the scalings to help. They do not, measurably: the scaled
# models' perplexity is lower by 0.009 on average, a gain whose 95% interval (over five seeds
# each) runs from -0.006 to 0.024, while the paper's smaller gain would be 0.106 here. At this
# size and budget the scalings leave perplexity where it is; the verdict is *not reproduced*.
# GPT-2 on Wikitext is another model on another text, and we cannot run it offline.

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

# %% tags=["hide-input"]
display(table(figures.diagonal_table(pres)))
figures.diagonal_maps(pres)
init = cv.pretrained(pres)["base", "vanilla"]["diagonal_init"]
assert max(np.abs(init["kq"]).max(), np.abs(init["vo"]).max()) < 0.5  # random heads have no diagonal
fig7bc_check = checks.figure_7bc(pres)
assert fig7bc_check.verdict == "not reproduced" or pres.scale != "default", fig7bc_check  # no head above 1 in any seed
record(fig7bc_check)

# %% [markdown]
# (sy-finetune)=
# ### Figures 7a and 23: fine-tuning against training from scratch
#
# The template-task model has the pretrained model's shape: causal, heads of 16, at the same
# width. It trains on αβα vs αββ under the previous chapter's protocol (Adam at $10^{-3}$, 1000
# full-batch steps, best validation step, 5 seeds). Fine-tuning starts from the vanilla
# pretrained model. It keeps the blocks, the final LayerNorm and the first positions, and gets
# new token embeddings and a new read-out. Training from scratch uses the same shape. Figure 23's
# three GPT-2 sizes become our three widths. At every width, fine-tuning seed $i$ starts from
# pretrained seed $i$, so each interval spans pretraining and fine-tuning together.

# %% tags=["hide-input"]
display(table(figures.finetuning(pres)))
print("pretraining, printed values right: " + ", ".join(
    f"{s} {np.mean(cv.pretrained(pres)[s, 'vanilla']['binding_acc']):.2f}" for s in cv.pretrained_sizes(pres)))
assert all(max(pres.get_exact(p)["train_loss_final"]) < 0.05 for p in pres.grid if p["stage"] == "finetune")

# %% [markdown]
# Read these curves with care. Every fine-tuning run fits its training set, and the test losses
# at one n move a lot between runs. While building this sweep, we reran the small width's
# pretraining with results that differed only in the last float digits, and its loss at
# n = 512 moved by more than the gaps between the widths here. (The sweep now uses
# deterministic kernels, so it reproduces exactly.) The widths also did not all learn the corpus. The line above gives each width's
# share of printed values right. A width that did not learn binding is no test of what binding
# teaches.

# %% tags=["hide-input"]
fig7a_check, fig23_check = checks.figure_7a(pres), checks.figure_23(pres)
if pres.scale == "default":  # five seeds per point: the pretrained models barely learn, and no gain is decided
    assert [fig7a_check.verdict, fig23_check.verdict] == ["inconclusive", "inconclusive"], (fig7a_check, fig23_check)
record(fig7a_check)
record(fig23_check)

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

# %% tags=["hide-input"]
discussion, missing = analysis.discussion_frame(PREDICTIONS, claims.collect())
display(table(discussion))
assert not missing, f"claims not recorded yet: {missing}"
learned = analysis.learned_scalars()
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
#   (Figure 14 above against {ref}`kernel ridge regression <sy-krr>`). In the paper, the
#   fully trained transformer reaches ≈0 by n ≈ 2,048, while its last layer alone is still at
#   0.11-0.3 at n = 16,384. So the data efficiency the paper measures comes from training the
#   whole network, which the theory does not describe.
# * *The two parameters as trained.* The theory shows what $a_h$ and $b_h$ make possible, not
#   that Adam will use them. In every run of this part they stay small (the range is printed
#   above, language model included). A diagonal put in from the start (mimetic) helps more than one that
#   has to be learned.
# * *Optimiser and architecture.* Learning rate, batch size, depth, heads and width lie outside
#   the theory. Over five seeds per learning rate, smaller batches help and one head is worst,
#   as in the paper (Figures 9-10 and 12), while depth and width make no difference the seeds
#   can tell and lr $10^{-2}$ does not fail (Figures 8, 11 and 13 inconclusive).
# * *Pretraining.* The paper's explanation of Figure 7 is that pretrained heads already carry
#   the diagonals. Our stand-in cannot settle it. A small model that learned the binding task
#   perfectly did so without diagonal heads. Starting from it did not help on αβα vs αββ at the
#   base width, the one width with a from-scratch run beside it. So a corpus that rewards
#   finding the same token again is not enough to grow the identity-like heads the paper sees
#   in GPT-2. The paper's evidence is GPT-2's own weights, and those are not offline.
