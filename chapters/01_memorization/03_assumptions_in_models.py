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
# (mem-assumptions-models)=
# # Do the assumptions hold inside a transformer?
#
# Theorem 1 needs queries of Kruskal rank at least $n$ (Assumption 1) and full-rank contexts
# (Assumption 2), not general position. Sec. 4.4 and 5.1 of {cite}`mahdavi2024memorization`
# argue that this is what real models provide *after one layer*: at the embedding layer every
# [CLS] query is the same vector, so Assumption 1 fails, but one attention layer with a skip
# connection mixes the context into the query and repairs it (Prop. 4), while general position
# fails throughout. The paper checks this on ViT-base with ImageNet (Table 1, Figure 1) and on
# BERT and GPT-2 with Wikipedia (Table 3). None of those is reachable offline, so this chapter
# runs the same tests on **substitutes**, labelled as such: small transformers of the course's
# shared model on scikit-learn's digits and on the English help texts bundled with Python.

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

from lib import claims, scale
from lib.models import AttentionConfig, build_model
from lib.papers.mahdavi2024 import analysis, checks, kruskal, setup
from lib.papers.mahdavi2024 import assumptions as A
from lib.plots import legend_outside, readable, stamp, table, use_style
from lib.tasks.random_labels import query_context_data

use_style()
record = claims.Recorder(paper="mahdavi2024", chapter="chapters/01_memorization/03_assumptions_in_models")
TRIALS = scale.pick(smoke=300, default=5000, paper=5000)  # draws per randomized Kruskal test (paper: 5000)

# %% [markdown]
# (mem-prop4)=
# ## Proposition 4: one trivial attention layer repairs Assumption 1
#
# ```{prf:proposition} 4 and Lemma 2 (Mahdavi et al.)
# :label: mem-prop4
# :nonumber:
#
# Let $\mathcal{A}_0$ be a one-head self-attention layer with a skip connection, $d_v = d$,
# $W_K = W_Q = 0$ and $W_V = W_O = I$. If the data satisfy Assumptions 2 and 3, the layer's
# outputs $e' = e + \bar e$, $e_i' = e_i + \bar e$ ($\bar e$ the mean context token) satisfy
# Assumptions 1 and 2. (Lemma 2: adding the mean of independent vectors to each of them keeps
# them independent.)
# ```
#
# $W_K = W_Q = 0$ makes the softmax uniform, so in the shared model $\mathcal{A}_0$ is a layer
# with `attention="uniform"`, identity values and output, and the residual stream. We feed it
# [CLS]-like data: every query is the same vector, and each example has its own random,
# full-rank context.

# %%
d, n, T = 32, 8, 500
data = query_context_data(T, n, d, context="per_example", seed=0, dtype=torch.float64)
x = data.x.clone()
x[:, 0] = x[0, 0]  # one [CLS] query for every example
a0 = AttentionConfig(d_model=d, n_out=d, n_heads=1, d_head=d, d_value=d, attention="uniform", combine="project",
                     residual=True, input="vectors", input_dim=d, embedding="identity", positions="none",
                     max_len=n + 1, masked_keys=(0,), readout="first")
layer = build_model(a0, dtype=torch.float64).set_weights({"layers.0.attn.W_V": torch.eye(d)[None],
                                                          "layers.0.attn.W_O": torch.eye(d)[None]})

# %%
cache = {}
layer(x, cache=cache)
after = cache["layers.0.resid_post"].numpy()
before_report = kruskal.assumption_report(x[:, 0], x[:, 1:], trials=TRIALS)
after_report = kruskal.assumption_report(after[:, 0], after[:, 1:], trials=TRIALS)
lemma_2 = np.abs(after[:, 1:] - (x[:, 1:].numpy() + x[:, 1:].mean(1, keepdim=True).numpy())).max()
print(f"outputs are e_i + mean: max deviation {readable(lemma_2)}; {TRIALS} draws per Kruskal test")
table(pd.DataFrame({"input": before_report, "after A0": after_report}))

# %% tags=["hide-input"]
prop4_check = checks.proposition_4(before_report, after_report, lemma_2)
assert prop4_check.verdict == "reproduced", prop4_check.ours
record(prop4_check)

# %% [markdown]
# (mem-table-1)=
# ## Table 1 and Figure 1, on a substitute: a small ViT on digits
#
# The paper feeds 1973 ImageNet images through ViT-base ($n = 197$ tokens with [CLS], $d = 768$)
# and tests four layers: the embedding, one random attention layer with a skip connection, the
# first block of a random ViT, and the first block of the pretrained one. We cut the 1797 digits
# of scikit-learn into $2\times2$ patches: $n = 17$ tokens (with [CLS]) of width $d = 64$, about
# the same ratio $n/d$. The query is the [CLS] token and the context all $n$ tokens, [CLS]
# included, as in the paper's code. The "trained ViT" is ours: two blocks trained here to
# classify the digits.

# %%
vit_steps = scale.pick(smoke=30, default=400, paper=400)
layers, vit_acc = A.table_1_layers(patch=2, steps=vit_steps, seed=0)
print(f"trained ViT: {vit_steps} AdamW steps, training accuracy {vit_acc:.3f}")
reports = {name: A.layer_report(states, query=0, trials=TRIALS) for name, states in layers.items()}
table(A.verdict_table(reports, checks.PAPER_TABLE_1, assumption_3=True))

# %% [markdown]
# The official code's ViT notebook prints the raw pass rates behind the paper's check marks
# (the reading notes copy them): at $k = n = 197$, Assumption 1 passes in 0% of draws for the
# embedding, 100% for the random attention layer and the random ViT, and 99.82% for the
# pretrained ViT; general position ($k = 768$) passes in 0% for every layer. Ours beside them:

# %%
OFFICIAL = {"Embedding": (0.0, 0.0), "Random Attention (+skip)": (1.0, 0.0), "Random ViT, block 1": (1.0, 0.0),
            "Trained ViT (ours), block 1": (0.9982, 0.0)}  # (Asm. 1 at k=n, Gen. Pos. at k=d), official notebook
pd.DataFrame({name: {"Asm. 1, official (ImageNet, ViT-base)": OFFICIAL[name][0],
                     "Asm. 1, ours (digits)": reports[name]["assumption_1"],
                     "Gen. Pos., official": OFFICIAL[name][1],
                     "Gen. Pos., ours": reports[name]["general_position"]} for name in reports}).T.round(4)

# %% [markdown]
# Each cell shows the verdict and the pass rate (the fraction of random $k$-subsets that are
# independent; Assumption 2: the fraction of full-rank contexts). The pattern to check is the
# paper's: general position fails everywhere, Assumption 1 fails at the embedding and holds
# after one layer, Assumption 2 holds throughout.

# %% tags=["hide-input"]
vit_setting = setup.vit_setting(layers["Embedding"], TRIALS, vit_steps)
table_1_check = checks.table_1(reports, vit_setting)
assert table_1_check.verdict == "substituted", table_1_check.ours  # digits and a small ViT, not ImageNet
record(table_1_check)

# %% [markdown]
# One difference the table shows: the paper finds Assumption 3 already at the embedding layer
# (the notebook of its code tests it on ImageNet and it passes), and ours fails there. A
# $2\times2$ patch has only 4 pixels, so $e + \bar e$ lives in an affine space of dimension at most
# 5 plus the fixed positions, and can never have Kruskal rank $n = 17$; an ImageNet patch has 768
# numbers. Patches of at least $n$ pixels remove that cause: with $4\times4$ patches (16 pixels,
# $n = 5$ tokens with [CLS]) we run the same four layers.

# %%
layers_4x4, vit_acc_4x4 = A.table_1_layers(patch=4, steps=vit_steps, seed=0)
reports_4x4 = {name: A.layer_report(states, query=0, trials=TRIALS) for name, states in layers_4x4.items()}
display(table(A.verdict_table(reports_4x4, checks.PAPER_TABLE_1, assumption_3=True)))
asm3_embedding = {"2x2 patches (n=17)": reports["Embedding"]["assumption_3"],
                  "4x4 patches (n=5)": reports_4x4["Embedding"]["assumption_3"]}
print(f"trained ViT on 4x4 patches: training accuracy {vit_acc_4x4:.3f}; Assumption 3 at the embedding, pass rate: "
      f"{readable(asm3_embedding)}")

# %% tags=["hide-input"]
asm3_check = checks.table_1_assumption_3(reports, reports_4x4, setup.vit_setting(layers_4x4["Embedding"], TRIALS,
                                                                                  vit_steps))
assert asm3_check.verdict == "substituted" and not reports["Embedding"]["holds"]["assumption_3"], asm3_check.ours
record(asm3_check)

# %% [markdown]
# So the failure was the patch size, not the claim: with patches of at least $n$ pixels the
# embedding satisfies Assumption 3 and every other cell of Table 1 keeps the paper's pattern.
# Prop. 4's promise is about Assumption 3 inputs, so it did not apply to the $2\times2$ embedding;
# Assumption 1 holds after the random layers at both patch sizes, because they are not uniform
# and mix tokens with learned weights and an MLP.
#
# **Figure 1** sweeps $k$ for the Random Attention layer's [CLS] outputs: the fraction of random
# $k$-subsets that are independent. The paper's reading: the Kruskal rank is only slightly above
# $n$ and far below $d$.
# On our substitute only the first half can be tested: with 5 numbers per patch and $n = 17$
# tokens, the layer's outputs cannot span more than about 25 of the 64 dimensions (the cell below
# measures the span), so a Kruskal rank far below $d$ is guaranteed, whatever the layer does.
# The same bound decides one cell of Table 1 above: general position fails for the Random
# Attention row on this substitute by construction, so that cell's agreement with the paper is
# not evidence (the row's other cells are).

# %%
ks = scale.pick(smoke=[1, 8, 17, 20, 30, 64], default=list(range(1, 65)), paper=list(range(1, 65)))
figure_1 = analysis.figure_1_reading(layers["Random Attention (+skip)"], ks, trials=min(TRIALS, 2000))
fig, ax = plt.subplots()
ax.plot(ks, figure_1["fraction"], marker=".", label="Random Attention, [CLS] outputs")
ax.axvline(17, color="tab:green", linestyle="--", label="n = 17")
ax.axvline(64, color="tab:red", linestyle="--", label="d = 64")
ax.axhline(kruskal.PASS_RULE, color="0.5", linestyle=":", linewidth=1)
ax.set(xlabel="Kruskal rank candidate k", ylabel="satisfied fraction", title="Figure 1 (substitute: digits, small ViT)")
legend_outside(ax)
stamp(ax, f"scale={scale.current()} · {min(TRIALS, 2000)} draws per k · computed live")
plt.show()
print(f"largest k passing the 99% rule: {figure_1['largest']} (n = 17, d = 64)")

# %% [markdown]
# "Far below $d$" is evidence only if the outputs could have had more: the [CLS] output is
# $e_{cls}$ plus $W_O W_V$ times a mix of LayerNorm-ed tokens, each in the span of the embedding's 5
# input columns, its position vector, the all-ones vector and the LayerNorm bias, so every output
# lies in a space of at most $5 + 17 + 3 = 25$ dimensions, whatever the weights or the images. The
# rank of all the outputs together (singular values above $10^{-6}$ of the first: the outputs are
# float32, whose rounding sits near $10^{-7}$ of the top) measures that span: below $d$, the upper
# half of the reading is built in.

# %%
span, singular = figure_1["span"], figure_1["singular"]
print(f"rank of all {len(layers['Random Attention (+skip)'])} [CLS] outputs together: {span} (d = 64); singular "
      f"values {span} and {span + 1}, relative to the first: {singular[span - 1] / singular[0]:.1e}, "
      f"{singular[span] / singular[0]:.1e}")

# %% tags=["hide-input"]
figure_1_check = checks.figure_1(figure_1, setup.vit_setting(layers["Random Attention (+skip)"], min(TRIALS, 2000),
                                                             vit_steps))
assert figure_1_check.passed or figure_1_check.partly
if scale.current() == "default":  # "far below d" is built into the substitute (the span above)
    assert figure_1_check.verdict == "partly", figure_1_check.ours
record(figure_1_check)

# %% [markdown]
# (mem-table-3)=
# ## Table 3, on a substitute: GPT-like and BERT-like models on English text
#
# Appendix J repeats the tests on GPT-2 (query = the last token, causal attention) and BERT
# (query = [CLS]), random and trained, at the embedding (L0) and after the first block (L1). Our
# substitutes are one-block byte-level transformers ($n = 32$, $d = 64$, 4 heads) on windows of
# the English help texts bundled with Python; "trained" means trained here, next-byte prediction
# for the GPT-like model and the masked-byte objective (15% of bytes masked) for the BERT-like
# one.

# %%
lm_steps = scale.pick(smoke=20, default=500, paper=500)
probe_count = scale.pick(smoke=600, default=2000, paper=2000)
lm_reports, lm_notes, lm_queries = {}, {}, {}
for kind, query in (("gpt", -1), ("bert", 0)):
    config = A.lm_config(kind)
    data = A.lm_training_data(kind, count=20_000 if lm_steps > 100 else 2000, seed=0)
    lm_run = A.train_classifier(config, data, steps=lm_steps, seed=0, lr=3e-3, batch_size=64)
    lm_notes[kind] = float(lm_run.final("train", "acc")[0])
    probe_x = A.lm_probe_inputs(kind, probe_count)
    for label, model in (("Random", build_model(config, seed=1)), ("Trained", lm_run.model(0))):
        for layer_index, states in enumerate(A.hidden_states(model, probe_x)):
            key = (kind.upper() + "-like", label, f"L{layer_index}")
            lm_reports[key] = A.layer_report(states, query=query, trials=TRIALS)
            lm_queries[key] = states[:, query]
print("training accuracy (next byte / masked byte):", readable(lm_notes))

# %%
table(A.verdict_table(lm_reports, checks.PAPER_TABLE_3))

# %%
gp_rates = {key: r["general_position"] for key, r in lm_reports.items()}
print("pass rates of the general-position test:", readable(gp_rates, 2))

# %% [markdown]
# The checks: Assumption 1 must fail at every embedding and hold after the GPT-like model's first
# block (random and trained), and general position must fail in every row. A row fails the 99%
# rule at a pass rate of 0.98 as it does at 0: the paper's point, a Kruskal rank far below $d$,
# needs the test to fail clearly (at most half of the draws pass) in every row, which is the
# full check; failing the rule in every row is its partly form. The models are trained here, in
# float32, so the claims report verdicts and counts, not the pass rates themselves.

# %% tags=["hide-input"]
lm_setting = setup.lm_setting(probe_x, A.lm_config("bert"), TRIALS, lm_steps, A.text_bytes.__doc__.split(" as ")[0])
table_3_check = checks.table_3(lm_reports, lm_setting)
table_3_gp_check = checks.table_3_general_position(lm_reports, lm_setting)
assert table_3_check.verdict == "substituted" and table_3_gp_check.verdict == "partly", (table_3_check.ours,
                                                                                       table_3_gp_check.ours)
record(table_3_check)
record(table_3_gp_check)

# %% [markdown]
# A cell of the table says only which side of the 99% rule a pass rate falls on. The Kruskal rank
# that the randomized test reads (the largest $k$ whose $k$-subsets pass the rule, found by
# bisection, with the chapter's number of draws) says how far each row is from $n$ and from
# general position ($d$). The paper gives this number for BERT only: its [CLS] query vectors have
# Kruskal rank 349 (random) and 291 (trained) against $n = 512$ and $d = 1024$, below $n$, so
# Assumption 1 fails but Remark 1's weaker bound keeps most of its value. Appendix J does not say
# at which layer; we read it as L1, the output the bound is about, and compare our L1.

# %%
lm_d, lm_n = next(iter(lm_queries.values())).shape[1], probe_x.shape[1]
kruskal_rows = pd.DataFrame([{"model": model_, "weights": weights, "layer": layer_,
                              "Kruskal rank (randomized test)": kruskal.kruskal_estimate(q, trials=TRIALS),
                              "n": lm_n, "d": lm_d} for (model_, weights, layer_), q in lm_queries.items()])
kruskal_rows["rank / n"] = kruskal_rows["Kruskal rank (randomized test)"] / lm_n
kruskal_rows["rank / d"] = kruskal_rows["Kruskal rank (randomized test)"] / lm_d
table(kruskal_rows, index=False)

# %%
ranks_of = {tuple(r[:3]): int(r[3]) for r in kruskal_rows.itertuples(index=False)}
cells = {key: verdicts for key, (verdicts, _) in A.agreement(lm_reports, checks.PAPER_TABLE_3).items()}
consistent = all((ranks_of[key] >= lm_n) == cells[key][1] for key in cells)  # the rank and the Asm. 1 cell agree
below_d = all(rank < lm_d for rank in ranks_of.values())
print(f"Kruskal rank read by the randomized test, of n = {lm_n} and d = {lm_d}: {readable(ranks_of)}; below d in "
      f"every row: {below_d}; the same side of n as the Assumption 1 cell in every row: {consistent}")
assert consistent and below_d == all(not c[0] for c in cells.values())

# %% tags=["hide-input"]
kruskal_check = checks.table_3_bert_kruskal(ranks_of, lm_setting)
if scale.current() == "default":  # our BERT-like [CLS] outputs pass Assumption 1 (see below)
    assert kruskal_check.verdict == "not reproduced", kruskal_check.ours
record(kruskal_check)

# %% [markdown]
# Where we differ from Table 3, and why. The paper's BERT fails Assumption 1 even after one layer:
# its [CLS] outputs have Kruskal rank 291 (trained) and 349 (random) against $n = 512$, a context
# long relative to $d = 1024$ (Remark 1 then gives the weaker bound with $Q$ in place of $n$).
# Our BERT-like model has $n/d = 0.5$ and a single block, and its [CLS] outputs pass. The paper's
# trained GPT-2 fails Assumption 2 at L1, which it blames on low-rank learned position embeddings
# after long pretraining; a few hundred steps on our model do not produce that. So the robust
# part of the claim, the part both settings share, is the one the assertion checks: general
# position never holds, and Assumption 1, absent at the embedding, appears after one layer
# of a causal model. General position is checked too (second claim): with only $d = 64$
# dimensions and a nonlinear block, our L1 features come much closer to general position than
# ViT-base's 768-dimensional ones (compare the Kruskal ranks above with $d$; the paper's BERT
# reads well under half of its $d$), so the verdict there depends on the run and is reported,
# not assumed; and the BERT Kruskal-rank claim is not reproduced, because our L1 ranks exceed $n$.
# At L0 the query is a token embedding plus a fixed position vector, so inputs that share the
# query token share the query vector: the BERT-like [CLS] is the same in every input, and the
# GPT-like last byte repeats often enough that more than 1% of random pairs coincide, which is
# all the randomized test needs to read rank 1.
