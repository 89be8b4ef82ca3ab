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
# (dx-trained)=
# # Depth extrapolation: trained decoders
#
# {ref}`dx-closed-forms` built a head with $2N + 3$ weights that completes every Dyck prefix,
# however deep, from one training word. {cite}`richard2024depth` then trains GPT-2-style decoders
# (nanoGPT) on Dyck words with gradient descent and asks whether they find anything like it. Its
# answer (Sec. 4.2, App. 5.3): they need width, depth, heads and very many distinct words to
# complete prefixes a little deeper than their training words, they fail when the depth gap
# widens, and a model trained on one word memorizes it without extrapolating.
#
# **Scale.** The paper trains on $D_{32}$ ($N = 16$) models of up to 84 million parameters. The
# default scale of this book is the reading notes' reduced setting, $D_{20}$ ($N = 10$, all
# 16,796 words enumerated), widths up to 32 and 600 steps of 64 words, with nanoGPT's optimiser
# (AdamW, warm-up and cosine, weight decay 0.1, gradient clipping); the sweeps run on a CPU in
# about fifteen minutes, so the book loads them from `data/`.
#
# **Learning rate.** The paper uses "learning rates between $6 \cdot 10^{-6}$ and $6 \cdot
# 10^{-5}$" without saying which model got which. At our step budget those rates barely move a
# model, so the sweeps that compare architectures (Figures 3 left, 6 and 7) train every point at
# $3 \cdot 10^{-3}$, $10^{-2}$ and $3 \cdot 10^{-2}$ and read it at the rate of lowest training
# loss, a choice made on training data, never on the test. The other sweeps use $10^{-2}$, the
# rate this grid picks for the $d = 32$ decoders. The paper scale (`python -m lib.papers.richard2024 paper`) is defined with the paper's
# grid, but has not been run. Every model is the library's decoder
# (`lib.models.decoder.gpt_config`: pre-LayerNorm blocks, causal softmax attention, a GELU
# MLP of width $8d$ as in the paper, learned positions, tied read-out; no dropout and no biases in
# attention, unlike nanoGPT) trained by the shared trainer. Accuracy is the paper's: the share of
# sampled completions (temperature 1) that are balanced words.

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

from lib import claims, plots
from lib.papers.richard2024 import analysis, checks, closed_form as cf, figures, readings, remarks, sweeps, training
from lib.plots import table
from lib.tasks import dyck_words as dw

plots.use_style()
record = claims.Recorder(paper="richard2024", chapter="chapters/05_depth_extrapolation/02_trained_decoders")

# %%
results = {name: sweeps.result(name) for name in ("architectures", "sample_size", "completions", "ablations", "gd_eq1")}
for res in results.values():
    print(res.label())

# %% [markdown]
# (dx-closed-baseline)=
# ## The closed form on the same test
#
# Every comparison below has the closed form beside it, evaluated live on the very prompts the
# trained models get: Theorem 4.1's head for one training word of depth at most the training
# depth, with sampled decoding.

# %%
arch_result = results["architectures"]
N, train_depth, test_depth = (arch_result.config[k] for k in ("N", "train_depth", "test_depth"))
test_prompts = training.deep_prefixes(N, test_depth, arch_result.config["n_test"], seed=1)
one_word = training.word_set(N, 1, max_depth=train_depth, seed=0)[0]
closed = cf.dyck_completer(one_word)
closed_acc = training.completion_accuracy(closed, test_prompts, N, seed=3)
print(f"D_{2 * N}: training words of depth <= {train_depth}, {len(test_prompts)} test prompts of depth >= "
      f"{test_depth}; the closed form built from {dw.to_string(one_word)} ({cf.construction_size(closed)} weights): "
      f"{closed_acc:.1%} valid")
assert closed_acc == 1.0

# %% [markdown]
# (dx-figure-3-left)=
# ## Figure 3 (left): width first, then layers and heads
#
# The paper trains every combination of $L \in \{1, 2, 4\}$ layers, $h \in \{1, 2, 4\}$ heads and
# width $d \in \{2, 16, 128, 512, 1024\}$ on words of depth at most 8, and completes prefixes of
# depth at least 9. It reports that the best accuracy grows with $d$, that wide models need more
# layers and heads (the $h = L = 1$ models decay with $d$), that all $d = 2$ models are poor,
# and that only the closed form reaches 100%. Ours: $d \in \{2, 8, 32\}$, $(L, h) \in \{(1, 1),
# (2, 2), (4, 2)\}$, training depth at most 5, test depth at least 7, five seeds each; the check
# decides over seeds (Kendall's trend of the best accuracy against $d$, 95% intervals; the figure's
# bands are the seed means' 95% intervals).

# %% tags=["hide-input"]
arch = readings.frame(arch_result).rename(columns={"deep_acc": "deep (mean)", "in_acc": "in-sample (mean)"})
by_lr = pd.DataFrame(arch["deep_acc_by_lr"].tolist()).rename(columns=lambda lr: f"deep at lr {lr:g}")
shown = pd.concat([arch[["d", "layers", "heads", "params", "lr", "deep (mean)", "in-sample (mean)"]], by_lr], axis=1)
display(table(shown, index=False))
figures.architectures(arch_result, cf.construction_size(closed), closed_acc)
plt.show()

# %% tags=["hide-input"]
figure3_left = checks.figure_3_left(arch_result, closed_acc)
if arch_result.scale != "smoke":  # smoke models train for seconds: their numbers are no evidence
    assert figure3_left.verdict == "partly"  # width grows, d = 2 is poor (the other two trends do not hold here: see below)
record(figure3_left)

# %% [markdown]
# **Where we differ.** Width matters as the paper says: the $d = 2$ decoders fail at every depth
# and rate, and accuracy rises with $d$. But at $d = 32$ trained decoders do reach 100%: four of
# the five two-layer, two-head seeds complete every deep prompt at their best rate, as the closed
# form does, and the one-layer, one-head decoder does not decay with width. Two differences from the paper's setting may
# explain it: $D_{20}$ is a small language (14,041 words of depth at most 5, seen about three
# times each in 600 steps of 64), and the rate. The table's columns per rate show how much the
# rate matters: at $3 \cdot 10^{-3}$ the $d = 32$ decoders are already below their best, and the
# paper's rates are lower still, which may have left its wide models under-trained.

# %% [markdown]
# (dx-figure-3-right)=
# ## Figure 3 (right): samples against the depth gap
#
# The paper trains its largest model on $10^k$ distinct words of depth at most 4, 8 or 12 and
# tests on prefixes of depth at least 13, in sample (prefixes of the training words) and out of
# sample. In sample, every model completes well; out of sample, small training sets fail, and
# the shallowest training depth stays very low even with many words; the closed form, trained on
# one word, gets 100%. Ours: 1 to all (4,181 or 14,041) distinct words of depth at most 3 or 5;
# test depth at least 7.

# %%
size_result = results["sample_size"]
size_closed = analysis.closed_form_accuracy(size_result, one_word)  # the same closed form on this sweep's prompts
assert size_closed == 1.0

# %% tags=["hide-input"]
sizes = readings.frame(size_result).rename(columns={"out_acc": "out (mean)", "in_acc": "in (mean)"})
sizes["out (per seed)"] = sizes["out_acc_seeds"].map(lambda v: " / ".join(f"{x:.2f}" for x in v))
display(table(sizes[["train_depth", "size", "distinct_words", "in (mean)", "out (mean)", "out (per seed)"]], index=False))
figures.sample_size(size_result, size_closed)
plt.show()

# %% tags=["hide-input"]
figure3_right = checks.figure_3_right(size_result, size_closed)
if size_result.scale != "smoke":
    assert figure3_right.verdict == "partly"  # in sample high, one word fails, more words help near the test depth
record(figure3_right)

# %% [markdown]
# The depth gap is what matters, as in the paper: trained on words of depth at most 5, a
# thousand distinct words are enough for prompts of depth 7 and beyond (every seed at 99% or
# more); trained on depth at most 3, no training set is. But the depth-3 models are not "very
# low however many words": with all 4,181 words their five seeds reach 28% to 59% (the mean's
# 95% interval runs from about a third to nearly two thirds), and at a thousand words they
# scatter from 3% to 53% (the table's last column). That part of the paper's claim does not hold
# at our scale, so the verdict is partly.

# %% [markdown]
# (dx-single-word)=
# **One word, zero loss.** Sec. 4.2 adds that a decoder trained on a single word drives its
# training loss to "machine precision's zero", at a minimum without the closed form's
# extrapolation. Our one-word decoders are this sweep's (size 1) and those of Figure 4 below.

# %% tags=["hide-input"]
single = remarks.single_word_models(size_result, results["completions"])
display(table(single, index=False))
single_check = checks.single_word_loss(single, size_result, results["completions"])
if size_result.scale != "smoke":
    assert single_check.passed  # loss below float32's epsilon; no deep prompt completed
if size_result.scale == "default":
    assert single_check.verdict == "substituted", single_check.verdict
record(single_check)

# %% [markdown]
# (dx-figure-4)=
# ## Figure 4 and Table 1: what a one-word model writes
#
# The paper samples 100 completions of a few contexts from a model trained on one word and from
# one trained on $10^7$ words. The one-word model regenerates its word from the word's own
# prefix, and on other contexts repeats the memorized pattern, which leaves the stack open (deep
# context) or closes too much (shallow context). On the deepest context of $D_{32}$, sixteen `(`,
# the many-word model is right 52 times in 100 and the one-word model never (Table 1). Ours: the
# word `(()(()())((()())))()` of $D_{20}$ (depth 4), against a model trained on every word of
# depth at most 5, five seeds each; the closed form for the same word beside them.

# %%
comp_result = results["completions"]
point = comp_result.points[0]["result"]["models"]
word, contexts = comp_result.config["word"], comp_result.config["contexts"]
closed_counts = analysis.closed_form_counts(comp_result)  # the closed form of the same word, 100 samples a context
fig4 = pd.DataFrame([{"context": f"{label}: {text}", "closed form": closed_counts[label],
                      **{name: " / ".join(str(readings.valid_count(m["contexts"][label])) for m in members)
                         for name, members in point.items()}} for label, text in contexts.items()]).set_index("context")
print("Valid completions out of 100 (one number per seed)")
display(table(fig4))
top = point["one word"][0]["contexts"]
for label in contexts:
    print(f"one-word model, {label}: most frequent completion {top[label]['completions'][0]} "
          f"({top[label]['counts'][0]}/100)")

# %% tags=["hide-input"]
figure4 = checks.figure_4(comp_result, closed_counts)
assert all(v == comp_result.config["samples"] for v in closed_counts.values())
if comp_result.scale != "smoke":
    assert figure4.partly  # the one-word model regenerates its word and fails on the deepest context
if comp_result.scale == "default":
    assert figure4.verdict == "partly", figure4.verdict
record(figure4)

# %% [markdown]
# The one-word model behaves as the paper's does: every seed writes its word from the word's
# prefix and repeats the word's pattern elsewhere (one seed of five completes the shallow context
# validly 46 times in 100, the others never). Our many-word model does not do what the paper's
# does on the deepest context: the paper's is right about half the time (52 in 100, a 95% interval
# of 0.42 to 0.62), ours 100 times in 100 in four seeds and 67 in the fifth, so that half of
# Table 1 is not reproduced and the verdict is *partly*. A likely reason is the easier task: $D_{20}$'s deepest context, ten `(`, is only five
# deeper than its training words, where $D_{32}$'s sixteen are eight deeper.

# %% [markdown]
# (dx-figure-5)=
# ## Figure 5: the value-output spectrum
#
# The paper looks at the last layer's value matrix times the output projection and finds it low
# rank in the model that generalizes, with a dominant real negative eigenvalue. We compute
# $\sum_h W_V^{(h)} W_O^{(h)}$ of each layer of both models, the map the layer applies, and compare
# the ratio of the top two singular values (a low-rank matrix has a large one) and where the top
# eigenvalue lies. "Value times projection" can also be read literally off nanoGPT's weights,
# $W_v W_{\rm proj}^\top$ (its `c_attn` value rows times `c_proj.weight` transposed), which pairs
# the heads' output coordinates with the model's input ones. That matrix has other eigenvalues,
# so we show both (the second table, and crosses in the figure).

# %% tags=["hide-input"]
display(table(pd.DataFrame(readings.spectrum_rows(point)), index=False))
display(table(pd.DataFrame(readings.spectrum_rows(point, "nanogpt_literal")), index=False))
figures.spectra(comp_result)
plt.show()

# %% tags=["hide-input"]
figure5 = checks.figure_5(comp_result)
if comp_result.scale == "default":
    assert figure5.verdict == "inconclusive"  # the low rank is not decided over five seeds; the sign fails
record(figure5)

# %% [markdown]
# The low rank is suggestive but not decided: on average the last layer's $\sigma_1/\sigma_2$ is
# about twice as large in the model that generalizes, but it varies so much between the five seeds
# (the verdict's line gives the interval) that Welch's test cannot put it above 1.5 times the
# one-word models'. The sign does not reproduce: read as the
# layer's map, its top eigenvalue is never real and negative in our five seeds (real and positive
# in two, complex in three). Transposing the product
# leaves the eigenvalues unchanged, but nanoGPT's literal $W_v W_{\rm proj}^\top$ is another matrix:
# its top eigenvalues differ in sign and may be complex, so which matrix the paper took matters,
# and its text does not say. We judge by the layer's map and report the literal one beside it.

# %% [markdown]
# (dx-figure-6)=
# ## Figure 6: what each part contributes
#
# App. 5.3.4 trains five models on random (not depth-based) splits of $D_{32}$, with $4^k$
# distinct training words: (1) the full decoder; (2) the same without positional embedding;
# (3) uniform attention with a fixed token embedding $E = [\mathbf{1}, -\mathbf{1}]$, the rest
# learned; (4) as (3) with $V = I$ fixed and no MLP; (5) one layer, one head, uniform attention and
# fixed $E$ (with residual and LayerNorm). Its findings: positional embeddings are pivotal ((1)
# far above (2)); (3) is strong with few words; (4) mostly under-performs and (5) beats it; (1)
# needs the most data and ends best.
#
# **A pitfall the reading notes found.** With a centring LayerNorm, the literal $E = [\mathbf 1,
# -\mathbf 1]$ is invisible: $\mathrm{LN}(x + c\mathbf 1) = \mathrm{LN}(x)$, so models (3)-(5)
# could see positions only. The paper's implementation must differ in a way it does not state;
# we use $E = [u, -u]$ for a random direction $u$ (the same construction up to a rotation).

# %%
import torch

ln = torch.nn.LayerNorm(8)
x = torch.randn(3, 8)
assert torch.allclose(ln(x + 5.0), ln(x), atol=1e-5)  # LN removes the all-ones direction
abl_result = results["ablations"]
out = checks.ablation_table(abl_result)  # out of sample, at each variant's best rate
display(table(out.dropna(how="all")))  # the smoke scale trains only the first two variants

# %% tags=["hide-input"]
figures.ablations(abl_result, out)
plt.show()
abl = readings.frame(abl_result)
largest = max(out.columns)
rates = pd.DataFrame(abl[abl["distinct_words"] == largest].set_index("variant")["out_acc_by_lr"].tolist(),
                     index=abl[abl["distinct_words"] == largest]["variant"])
print(f"out of sample at {largest} words, by learning rate")
display(table(rates.rename(columns=lambda lr: f"lr {lr:g}")))
print(f"full minus no positional embedding by size: {(out.loc['full'] - out.loc['no positional embedding']).round(2).to_dict()}")

# %% tags=["hide-input"]
figure6 = checks.figure_6(abl_result)
if abl_result.scale != "smoke":
    assert figure6.passed  # pivotal positions, full model best at most words, fixed E strong at few, (5) beats (4)
if abl_result.scale == "default":
    assert figure6.verdict == "substituted", figure6.verdict
record(figure6)

# %% [markdown]
# The paper's ranking holds at our scale, decided over five seeds (Welch's test at 95%; the
# figure's bands are the seed means' 95% intervals): without positions the decoder stays below
# the full one at every size, by a fifth to a third; uniform attention with fixed embeddings
# learns from a handful of words (93% at 4 words, where the full model has 61%); the one-layer
# model beats $V = I$ without MLP (91% against 83%). The second table shows why the rate grid is there: variants (4) and
# (5) learn best at the largest rate, $3 \cdot 10^{-2}$, and at $3 \cdot 10^{-3}$ they stay near a
# quarter, below a decoder without positions.

# %% [markdown]
# (dx-figure-7)=
# ## Figure 7: learned positional embeddings against the closed form
#
# For the models with uniform attention and fixed token embeddings, the paper plots, for every
# coordinate $j$ of the positional embedding, the cumulative sum $r \mapsto \sum_{i \le r} B_{i,j}$,
# clusters these $d$ curves with k-means and draws the centroids. In the closed form the
# cumulative sum $P_r$ mirrors the training word's path and ends within $1/2$ of 0. The paper
# sees the curves end nearer the origin as the model gets closer to Eq. (1): (3) least, (4) more,
# (5) most. We cluster our $d = 32$ curves into 4 groups and measure how far each model's curves
# end from 0, relative to their size.

# %% tags=["hide-input"]
end_ratio = checks.end_ratios(abl_result)
fig, picture = figures.positional_paths(abl_result, checks.pictured_variants(), end_ratio, word)
plt.show()
print("end distance relative to size, per seed:", {k: [round(x, 2) for x in v] for k, v in end_ratio.items()})
figure7 = checks.figure_7(abl_result, figures.KMEANS_CLUSTERS)
if abl_result.scale != "smoke":
    assert figure7.verdict == "not reproduced"  # the ordering is reversed here, decided over seeds: see below
record(figure7)

# %% [markdown]
# Here we see the paper's order reversed: the curves of the model nearest to Eq. (1), one layer
# of uniform attention, end *farther* from the origin relative to their size than those of (4),
# and those farther than (3)'s, each step significant over five seeds (the check's Welch tests).
# The picture shows one seed's centroids, and the centroids of k-means depend on the
# clustering, so we report the measure rather than read shapes off the plot.

# %% [markdown]
# (dx-gd-eq1)=
# ## Gradient descent on the closed form's own model class
#
# The paper notes that models trained on a single word drive the loss to zero without finding
# the closed form. The sharpest test of that is the closed form's own class: the model of
# Eq. (1) with $d = 1$ and $E = [1, -1]$ fixed, learning only $B$ and $v$ ($2N + 1$ numbers), of
# which Theorem 4.1's weights are a global minimum. We run full-batch Adam from six random
# starts on the word of Figure 4. In the closed form the context sums are $c_r E_{s_{r+1}}$ with
# $c_r = \gamma = -1/2$ at every $r$, which is what makes it elastic. The paper trains GPT-2-style
# decoders, not this class, so the claim is the course's own (recorded under the course, with the
# paper's setup beside ours).

# %%
gd_result = results["gd_eq1"]
gd = pd.DataFrame(gd_result.points[0]["result"]["members"])
gd["max |c_r|"] = gd["c"].map(lambda c: float(np.abs(c).max()))
display(table(gd[["seed", "loss", "memorized", "deep_acc", "v", "max |c_r|"]], index=False))

# %% tags=["hide-input"]
gd_check = checks.gd_eq1(gd_result, closed_acc)
if gd_result.scale != "smoke":
    assert gd_check.passed
if gd_result.scale == "default":
    assert gd_check.verdict == "substituted", gd_check.verdict
record(gd_check)

# %% [markdown]
# (dx-trained-summary)=
# ## What extrapolates, and what does not
#
# * **The closed form extrapolates from one word; trained decoders need many.** At every point
#   the closed form, built from one word, completes 100% of the deep prompts. Trained decoders
#   need width and many distinct words, and a wider gap between training and test depth costs
#   them accuracy (Figure 3 right). At our small scale the widest ones with two or more layers
#   do reach 100% on prompts a little deeper than their words, which the paper does not see.
# * **Gradient descent finds memorization, not the closed form,** even inside the closed form's
#   own two-dozen-weight model class: the context sums grow instead of staying at $\gamma$.
# * **Where we differ.** Our scale is $D_{20}$ and widths up to 32, not $D_{32}$ and 1024; our
#   learning rates are a grid read at the lowest training loss, far above the paper's; the
#   spectrum's sign (Figure 5) and the order of Figure 7 do not reproduce; our
#   decoder has no dropout and no attention biases; the fixed embedding of the ablations is a
#   random direction; prefixes are cut at their peak (the paper does not say how it cut them).
#   Each verdict above lists these differences field by field, computed from the config its
#   result ran with against the paper's setup (`lib.papers.richard2024.setup`); the paper-scale
#   sweeps are defined in `lib.papers.richard2024.sweeps` and wait for a GPU. Even there the
#   paper's setup is not matched everywhere: the Dyck decoders have no dropout (the paper: 0.1),
#   Figure 3 (left) trains on $10^5$ words (the paper: about $2.4 \cdot 10^7$) and Figure 4 on
#   $10^5$ instead of $10^7$, and the Boolean decoders of the next chapter are trained on the
#   answers only.
