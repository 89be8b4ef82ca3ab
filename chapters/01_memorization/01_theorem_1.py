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
# (mem-theorem-1)=
# # One layer, many heads: Theorem 1 built
#
# Sadegh Mahdavi, Renjie Liao and Christos Thrampoulidis {cite}`mahdavi2024memorization` ask
# how many examples a *single* multi-head attention layer can memorize: fit any labels, exactly.
# Their answer is a lower bound, $T = H(\min(n, d_h) - 1) + 1$ examples for $H$ heads, context
# size $n$ and head size $d_h$, under two linear-independence assumptions that are much weaker
# than the usual "general position". This chapter states the layer and the assumptions, builds
# the proof's weights for any data that meet them, and checks Prop. 1 and Lemmas 3-4 on the way.
# The next chapter shows where the count is tight (Props. 2 and 5) and compares it with a ReLU
# network (Prop. 3); the third tests the assumptions inside real (small) models; the last one
# trains the layer and measures how much it memorizes.

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
from lib.models import build_model
from lib.papers.mahdavi2024 import analysis, checks, kruskal, lemmas
from lib.papers.mahdavi2024 import construction as mem
from lib.plots import legend_outside, readable, table, use_style
from lib.tasks.random_labels import contexts, queries, query_context_data

use_style()
record = claims.Recorder(paper="mahdavi2024", chapter="chapters/01_memorization/01_theorem_1")

# %% [markdown]
# (mem-layer)=
# ## The layer (eqs. 1-6)
#
# An example is a context $E = [e_1^\top; \dots; e_n^\top] \in \mathbb{R}^{n\times d}$ and one
# query $e \in \mathbb{R}^d$. Head $h$ has key and query weights
# $W_{K,h}, W_{Q,h} \in \mathbb{R}^{d\times d_h}$ and values $W_{V,h} \in \mathbb{R}^{d \times d_v}$;
# $W_O \in \mathbb{R}^{Hd_v\times d}$ mixes the heads and $W_D \in \mathbb{R}^{d\times d_{out}}$
# reads out:
#
# $$
# \begin{aligned}
# \alpha_h &= E W_{K,h} W_{Q,h}^\top e, & \theta_h &= \mathrm{softmax}(\alpha_h), & z_h &= E^\top \theta_h,\\
# p_h &= W_{V,h}^\top z_h, & o &= W_O^\top [p_1; \dots; p_H], & \hat y &= W_D^\top o .
# \end{aligned}
# $$
#
# Each head outputs a convex combination of the context tokens. With a skip connection
# (Appendix C) $o$ gains $+e$. In the course's shared model this is one layer with vector inputs
# (no embedding, no positions), unscaled softmax scores, heads projected by $W_O$, and the query
# stored at position 0, masked from itself and read out there
# (`lib.papers.mahdavi2024.construction.model_config`). First check: the shared model computes
# exactly eqs. (1)-(6), written out in numpy, for random weights.

# %%
d, n, H, d_h, d_v, d_out = 16, 6, 3, 5, 2, 2
config = mem.model_config(d, n, H, d_h, d_v, d_out)
model = build_model(config, seed=1, dtype=torch.float64)
batch = query_context_data(10, n, d, context="per_example", seed=0, dtype=torch.float64)
q, E = queries(batch).numpy(), contexts(batch).numpy()
W_K, W_Q = model.get_weight("layers.0.attn.W_K").numpy(), model.get_weight("layers.0.attn.W_Q").numpy()
W_V, W_O, W_D = (model.get_weight(name).numpy() for name in ("layers.0.attn.W_V", "layers.0.attn.W_O", "W_U"))

Z, theta = mem.head_outputs(E, q, np.einsum("hdk,hek->hde", W_K, W_Q))  # eqs. (1)-(3)
p = np.einsum("thd,hdv->thv", Z.reshape(10, H, d), W_V)  # eq. (4)
o = np.einsum("thv,hvd->td", p, W_O)  # eq. (5)
y_hat = o @ W_D  # eq. (6)
gap = np.abs(model(batch.x).detach().numpy() - y_hat).max()

# %%
print(f"max |model - eqs. (1)-(6)| = {gap:.1e}")
print(f"parameters: the paper's count 2Hd d_h + Hd d_v + d d_out = {mem.paper_param_count(d, H, d_h, d_v, d_out)}, "
      f"plus W_O (H d_v d = {H * d_v * d}) = {model.n_params()} in the model")
assert gap < 1e-12
assert model.n_params() == mem.paper_param_count(d, H, d_h, d_v, d_out) + H * d_v * d

# %% [markdown]
# Only the product $W_h = W_{K,h}W_{Q,h}^\top$ (rank at most $d_h$) enters the scores, and the
# parameter count the paper states after Theorem 1 leaves out $W_O$, which its proof fixes to
# stacked identities. (The paper's Table 2 is this notation.)
#
# (mem-assumptions)=
# ## The assumptions and how to test them
#
# The **Kruskal rank** of a set of vectors is the largest $k$ such that *every* $k$ of them are
# linearly independent; a set in $\mathbb{R}^d$ is in **general position** if its Kruskal rank
# is $d$. The paper needs much less:
#
# - **Assumption 1**: the $T$ query vectors have Kruskal rank at least $n$;
# - **Assumption 2**: every context matrix $E^{(t)}$ has rank $n$ (its tokens are independent);
# - **Assumption 3** (Sec. 4.4): the vectors $e^{(t)} + \frac1n\sum_i e_i^{(t)}$ have Kruskal
#   rank at least $n$.
#
# Computing a Kruskal rank exactly means checking every subset. `lib.papers.mahdavi2024.kruskal.kruskal_rank`
# does that for small sets; for large ones the paper draws $k$ vectors 5000 times and calls the
# Kruskal rank "at least $k$" when 99% of the draws are independent
# (`kruskal_pass_rate`). The randomized test can be fooled: below, 12 random
# vectors in $\mathbb{R}^5$ with one planted dependency $v_2 = v_0 + v_1$ have Kruskal rank 2,
# yet almost every random triple is independent.

# %%
planted = analysis.planted_dependency()  # 12 random vectors in R^5, then v_2 = v_0 + v_1
rates = planted["rates"]
print(f"exact Kruskal rank: {planted['exact_before']} before planting, {planted['exact_after']} after")
print("randomized pass rate by k:", readable(rates, 4))
fooled = rates[3] >= kruskal.PASS_RULE
print(f"the 99% rule declares Kruskal rank >= 3: {fooled} (the truth is {planted['exact_after']})")
assert planted["exact_before"] == 5 and planted["exact_after"] == 2 and fooled

# %%
same = np.ones((200, 16))  # identical queries (e.g. a [CLS] token before any layer)
uniform = query_context_data(500, 8, 16, seed=0)
report = kruskal.assumption_report(queries(uniform), contexts(uniform), trials=2000)
print(f"identical queries, k = 2: pass rate {kruskal.kruskal_pass_rate(same, 2, trials=500):.2f}")
print("uniform queries and shared context (n = 8, d = 16):", readable(report))
assert kruskal.kruskal_pass_rate(same, 2, trials=500) == 0.0
assert kruskal.holds(report["assumption_1"]) and kruskal.holds(report["general_position"])
assert kruskal.holds(report["assumption_2"], all_=True)

# %% tags=["hide-input"]
kruskal_check = checks.kruskal_test(planted)  # the course's own finding about the paper's test
assert kruskal_check.passed
record(kruskal_check)

# %% [markdown]
# (mem-thm-1)=
# ## Theorem 1, constructed
#
# ```{prf:theorem} 1 (Mahdavi et al.)
# :label: mem-thm1
# :nonumber:
#
# Let the training set have context size $n < d$ and satisfy Assumptions 1 and 2, let
# $d_v \ge d_{out}$ and $r = \min(n, d_h)$. If $T \le H(r-1)+1$, there are weights with which the
# $H$-head layer maps every example to its label, whatever the labels are.
# ```
#
# The proof has two steps. **Step 1** (Prop. 1) chooses key/query weights so that the matrix
# $Z \in \mathbb{R}^{T\times Hd}$, whose row $t$ stacks the head outputs $z_1^{(t)}, \dots,
# z_H^{(t)}$, has rank $T$. **Step 2** then solves the linear system $Z W_V = [Y \mid 0]$ for the
# values, with $W_O$ and $W_D$ fixed to identities (eq. 8). Step 1 is the interesting part:
# head 1 sets the softmax of $r$ examples to chosen values; every later head sets the softmax of
# $r-1$ *new* examples and *saturates* every earlier one, by adding $c\,W^+$ with a rank-one
# $W^+$ that vanishes on the new queries (Lemma 3) and makes the softmax of the others one-hot as
# $c \to \infty$ (Lemma 4). Saturated heads do not interfere, so each head adds $r-1$ to the
# rank. `lib.papers.mahdavi2024.construction.memorize` implements both steps in float64 for any
# data; `check_theorem_1` there loads its weights into the shared model and reports, through the
# model's own forward pass, every property the proof promises (the unit tests call the same
# check), here at the paper's size ($d = 64$, $n = 32$, $H = 8$).

# %%
d, n, H = 64, 32, 8
T = mem.rank_bound(H, n, d)
paper_size = mem.check_theorem_1(analysis.paper_size_data(T, n, d), H, d)
table(pd.Series(paper_size).to_frame("d=64, n=32, H=8, shared context"))

# %% tags=["hide-input"]
theorem_check = checks.theorem_1(paper_size, d, n, H)
assert theorem_check.passed
record(theorem_check)

# %% [markdown]
# **The induction of Prop. 1, step by step.** The proof adds one head at a time and shows (with
# Lemma 1, $\mathrm{rank}\begin{bmatrix}A & B\\ 0 & C\end{bmatrix} \ge \mathrm{rank}A +
# \mathrm{rank}C$) that the examples seen so far, against the heads built so far, gain rank
# $r - 1$ per head. We rebuild the paper-size construction and read that rank off $Z$
# (`analysis.rank_growth`: the rank of $Z$ restricted to the first $h$ heads and their examples):

# %%
growth = analysis.rank_growth(analysis.paper_size_data(T, n, d), H, d)
print("rank of Z restricted to the first h heads and their examples:", growth)

# %% tags=["hide-input"]
proposition_1_check = checks.proposition_1(growth, n, d)
assert proposition_1_check.passed
record(proposition_1_check)

# %% [markdown]
# The theorem covers more than that one case. The same routine, unchanged:
#
# - **$d_h < n$**: then $r = d_h$ and each head takes $d_h - 1$ examples;
# - **per-example contexts** (general position; not needed by the theorem, but allowed);
# - **vector labels** ($d_{out} > 1$) and **wider values** ($d_v > d_{out}$);
# - the **skip connection** of Appendix C: solve for the shifted labels $y - I_{d_{out}\times d}\,e$;
# - **Prop. 3's adversarial data**: a shared context of standard basis vectors and queries
#   that vary in only $n$ coordinates;
# - **larger** than the paper: $d = 128$, $n = 64$, $H = 12$ ($T = 757$; skipped at smoke scale,
#   where `tests/test_memorization.py` runs it instead).

# %%
cases = analysis.variant_cases(larger=scale.current() != "smoke")  # name: (data, H, d_h, options)
variants = {name: mem.check_theorem_1(b, h, dh, **kw) for name, (b, h, dh, kw) in cases.items()}
variant_table = pd.DataFrame(variants).T
table(variant_table.rename(columns=lambda c: c.replace("_", " ")))

# %% tags=["hide-input"]
variants_check = checks.theorem_1_variants(variants, cases)
assert variants_check.passed
record(variants_check)

# %% [markdown]
# Note the condition numbers: with a shared context $Z$ is badly conditioned (about $10^5$ at the
# paper's size) and the saturation constants are large, which is why the construction runs in
# float64. With per-example contexts the same $T$ is far better conditioned.
#
# **Remark 1.** If the queries have Kruskal rank only $Q < n$, the bound becomes
# $H(\min(Q, d_h) - 1) + 1$. Queries confined to a $Q$-dimensional subspace (Kruskal rank $Q$)
# still let the construction run with $r = Q$, here by choosing $d_h = Q$:

# %%
case = analysis.remark_1_case(Q=4, n=8, d=16, H=5)  # queries in a Q-dim subspace, with d_h = Q and d_h = n
print(f"Kruskal rank of the queries: {case['query_rank']} (first 12 of {case['built']['T']})")
assert case["query_rank"] == case["Q"]
print(readable(case["built"]))
# What limits T is the queries' Kruskal rank, not d_h: the same examples with d_h = n (so that
# d_h does not bind) make the construction group n queries per head, which span only Q
# dimensions, and it fails on the very T that r = Q reaches.
unlimited = case["unlimited"]
print(f"same T = {unlimited['T']} with d_h = n = {case['n']}: rank Z {unlimited['rank Z']}, "
      f"max |y_hat - y| {unlimited['max |y_hat - y|']:.2f}")

# %% tags=["hide-input"]
remark_1_check = checks.remark_1(case)
assert remark_1_check.passed and not mem.theorem_1_holds(unlimited, case["n"])
record(remark_1_check)

# %% [markdown]
# (mem-lemmas)=
# ## Lemmas 3 and 4: saturation by design
#
# ```{prf:lemma} 3 and Lemma 4 (Mahdavi et al.)
# :label: mem-lemma-34
# :nonumber:
#
# Given queries of Kruskal rank at least $n$ and a group of $m < n$ of them, there is a rank-one
# $W^+$ with $E^{(t)}W^+e^{(t)} = 0$ on the group and pairwise-distinct logits
# $e_i^{(t)\top}W^+e^{(t)}$ on every other example. Then for any $W$, the softmax of
# $E^{(t)}(W + cW^+)e^{(t)}$ on those other examples tends to the one-hot vector of the largest
# $W^+$ logit as $c \to \infty$.
# ```
#
# We take head 2 of the construction above ($d = 64$, $n = 32$), keep its exact part $W^*$ and
# its $W^+$, and vary $c$. On the earlier examples the distance to one-hot,
# $\lVert\theta - \mathbb{1}[\arg\max]\rVert_1$, falls exponentially in $c$; on the head's own
# group the softmax does not move at all.

# %%
path = analysis.saturation_path(analysis.paper_size_data(T, n, d), H, d, head=1)
W_plus, plus_logits, c_used = path["W_plus"], path["plus_logits"], path["c_used"]
sorted_plus = np.sort(plus_logits[path["earlier"]], 1)
print(f"W+ rank {np.linalg.matrix_rank(W_plus)}; |W+ logits| on its own group <= "
      f"{np.abs(plus_logits[path['own']]).max():.1e}; smallest top-2 gap on earlier examples "
      f"{np.min(sorted_plus[:, -1] - sorted_plus[:, -2]):.2e}")
print(f"own group's softmax moved by at most {path['own_drift'].max():.1e}; distance at the c used: "
      f"{path['distance'][-1]:.1e}")

# %% tags=["hide-input"]
fig, ax = plt.subplots()
ax.semilogy(path["cs"], np.maximum(path["distance"], 1e-300), marker=".",
            label="earlier examples: max L1 distance to one-hot")
ax.axvline(c_used, color="0.5", linestyle=":", label=f"c used by the construction ({c_used:.3g})")
ax.set_xscale("log")
ax.set(xlabel="c", ylabel="distance", title="Lemma 4: softmax saturation of head 2 (d=64, n=32)")
legend_outside(ax)
plt.show()

# %% [markdown]
# The proof needs only a *finite* $c$ (Appendix B.2): by Weyl's inequality (Lemma 5), a
# perturbation smaller than the least singular value cannot lower a rank, so it suffices that
# the saturated softmax be within some $\delta$ of one-hot. Our routine picks $c$ so that the
# largest $W^+$ logit leads the next one by the spread of the $W^*$ logits plus 40 nats, an error
# of order $e^{-40}$, and the exact ranks above confirm that this $c$ is large enough.

# %% tags=["hide-input"]
lemmas_check = checks.lemmas_3_4(path)
assert lemmas_check.passed
record(lemmas_check)

# %% [markdown]
# (mem-claims-12)=
# ## Claims 1 and 2: what one head can set
#
# The proof of Prop. 1 (Appendix B) rests on two claims about a single head. **Claim 1**: one
# head can give any chosen softmax coefficient vectors to $r$ examples. **Claim 2**: a later head
# sets the coefficients of $r-1$ new examples exactly while keeping every earlier example within
# $\delta$ of a fixed one-hot vector. For Claim 1 we choose coefficient vectors at random (from a
# Dirichlet distribution) for $r = n$ examples, fit $W^*$ to their logarithms
# (`construction.fit_logits`) and compare; Claim 2 is head 2 above, at the $c$ the construction
# uses: its own group keeps the coefficients $W^*$ sets, its earlier examples sit at the distance
# to one-hot measured above.

# %%
found = analysis.claims_1_2(path)  # Claim 1: Dirichlet coefficients for r = n examples; Claim 2: head 2
print(f"Claim 1: {found['n']} chosen coefficient vectors reproduced to {found['claim_1_error']:.1e}")
print(f"Claim 2: head 2 sets its {found['own']} examples to {found['own_exact']:.1e} and keeps the "
      f"{found['earlier']} earlier ones within delta = {found['delta']:.1e} (L1) of one-hot")

# %% tags=["hide-input"]
claims_12_check = checks.claims_1_2(found)
assert claims_12_check.passed
record(claims_12_check)

# %% [markdown]
# (mem-lemmas-15)=
# ## Lemmas 1 and 5: two rank facts the proofs use
#
# Appendix D also states two general facts about ranks. **Lemma 1**: a block upper-triangular
# matrix $\begin{bmatrix} A & C \\ 0 & B \end{bmatrix}$ has rank at least
# $\operatorname{rank} A + \operatorname{rank} B$, whatever $C$. **Lemma 5**: if the largest
# singular value of $B - A$ is below the smallest non-zero singular value of $A$, then
# $\operatorname{rank} B \ge \operatorname{rank} A$. We check both on random matrices of random,
# often deficient, rank (`lib.papers.mahdavi2024.lemmas`). For Lemma 5 the perturbation sits just
# inside the condition (0.999 of the smallest singular value) and is aimed at $A$'s weakest
# direction, the hardest case. At the edge itself (exactly the smallest singular value) the rank
# does drop, so the condition cannot be relaxed.

# %%
lemma_1 = lemmas.lemma_1_trials(trials=500, seed=0)
lemma_5 = lemmas.lemma_5_trials(trials=500, seed=0)
print(f"Lemma 1: {lemma_1['trials']} trials, smallest rank(M) - rank(A) - rank(B) = {lemma_1['smallest_margin']} "
      f"(strictly above the bound in {lemma_1['strict']})")
print(f"Lemma 5: rank kept in {lemma_5['kept']} of {lemma_5['trials']} trials inside the condition; "
      f"dropped in {lemma_5['dropped_at_edge']} at its edge")

# %% tags=["hide-input"]
lemmas_15_check = checks.lemmas_1_5(lemma_1, lemma_5)
assert lemmas_15_check.passed
record(lemmas_15_check)

# %% [markdown]
# Saturation is what makes the construction work, and it also says how far it can go: the
# {ref}`next chapter <mem-rank-bounds>` shows that with a shared context no weights give $Z$ more
# rank than Theorem 1's $H(n-1)+1$, and compares the count with a ReLU network of the same size.
