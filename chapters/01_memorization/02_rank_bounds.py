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
# (mem-rank-bounds)=
# # Where the count is tight: rank bounds and a ReLU network
#
# Theorem 1 ({ref}`previous chapter <mem-theorem-1>`) guarantees $H(\min(n, d_h) - 1) + 1$
# memorized examples by giving the matrix $Z$ of head outputs that rank. This chapter asks how
# good that is. With a context shared by all examples no weights give $Z$ more rank
# (Proposition 2), so the construction is as good as its first step can be; tokens with a
# constant coordinate sum cap the rank at $H(d-1)+1$ even in general position (Proposition 5);
# and a two-layer ReLU network with as many parameters memorizes the same order on Prop. 3's
# data.

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
from lib import claims
from lib.papers.mahdavi2024 import analysis, checks
from lib.papers.mahdavi2024 import construction as mem
from lib.papers.mahdavi2024.data import relu_hard_data
from lib.plots import table, use_style

use_style()
record = claims.Recorder(paper="mahdavi2024", chapter="chapters/01_memorization/02_rank_bounds")

# %% [markdown]
# (mem-tightness)=
# ## Proposition 2: with a shared context the rank bound is tight
#
# ```{prf:proposition} 2 (Mahdavi et al.)
# :label: mem-prop2
# :nonumber:
#
# If every example has the same context $E$, then for **any** key/query weights
# $\mathrm{rank}(Z) \le H(n-1)+1$.
# ```
#
# (With a shared context, $Z^\top = (I_H\otimes E^\top)\Theta^\top$, and the row-stochastic
# softmax matrices differ from each other by matrices of rank at most $n-1$.) So the
# construction is as good as Step 1 can be in this setting. The proposition bounds the rank of
# $Z$ for fixed attention weights, not what a trained layer memorizes (see the last chapter). We
# try many random weight matrices at three scales, shared and per-example contexts:

# %%
d, n, H, T_big = 16, 6, 4, 80
cap = mem.rank_bound(H, n)
prop2 = analysis.proposition_2_draws(d, n, H, T_big, draws=50)  # 50 draws per weight scale and context
print(f"T = {T_big}, H = {H}, n = {n}, d = {d}: H(n-1)+1 = {cap}, Hd = {H * d}")
table(prop2)

# %% tags=["hide-input"]
collapse = prop2[(prop2.context == "shared") & (prop2["weight scale"] == 10.0)]["max rank Z"].item()
proposition_2_check = checks.proposition_2(prop2, n, H)
assert proposition_2_check.passed and collapse < cap
record(proposition_2_check)

# %% [markdown]
# Three readings of the table. Random weights of moderate size already reach the bound exactly;
# the construction's value is that it reaches it *with a rank that survives to memorization of
# arbitrary labels*, deterministically. Large random weights saturate heads at random and
# *lose* rank (at scale 10 the best draw stays below $H(n-1)+1$): saturation has to be designed, as in
# Lemma 3. And per-example contexts break the bound, which is why the paper's Fig. 4 (general
# position) memorizes more.
#
# One more observation of ours, not the paper's: the factor $\min(n, d_h)$ is a property of the
# proof, not of the rank. Under a shared context even $d_h = 1$ reaches rank $H(n-1)+1$ with
# random weights, but with a far smaller least singular value, so a linear read-out needs huge
# values. Conditioning, not rank, improves with $d_h$:

# %%
conditioning = analysis.head_size_conditioning(d, n, H, T_big, seeds=10)
table(conditioning)

# %%
assert conditioning["rank Z (max)"].eq(cap).all()
assert conditioning["sigma_(H(n-1)+1) (median)"].iloc[-1] > 10 * conditioning["sigma_(H(n-1)+1) (median)"].iloc[0]

# %% [markdown]
# ```{prf:proposition} 5 (Mahdavi et al., Appendix I)
# :label: mem-prop5
# :nonumber:
#
# If every context token has the same coordinate sum, $\mathbf{1}^\top e_i^{(t)} = C$, then
# for any key/query weights (with $d_h = d$, $d_v = 1$) $\mathrm{rank}(Z) \le H(d-1)+1$, even in
# general position.
# ```
#
# So $Z$ can never reach its full size $Hd$ on such data. We rescale per-example random tokens
# to a constant sum and try random weights:

# %%
prop5 = analysis.proposition_5_draws(d=12, n=8, H=3, T=120, draws=20)  # tokens rescaled to 1^T e_i = 1
print(f"constant-sum tokens: max rank Z = {prop5['constant_sum']}; H(d-1)+1 = {prop5['H'] * (prop5['d'] - 1) + 1}; "
      f"unconstrained tokens: {prop5['free']} (Hd = {prop5['H'] * prop5['d']})")

# %% tags=["hide-input"]
proposition_5_check = checks.proposition_5(prop5)
assert proposition_5_check.passed
record(proposition_5_check)

# %% [markdown]
# (mem-relu)=
# ## Proposition 3: a two-layer ReLU network of the same size memorizes less
#
# ```{prf:proposition} 3 (Mahdavi et al.)
# :label: mem-prop3
# :nonumber:
#
# There are datasets with context size $n < d$ that satisfy Assumptions 1 and 2 on which a
# two-layer ReLU network with $m$ hidden units, fed the flattened input
# $[e_1; \dots; e_n; e] \in \mathbb{R}^{(n+1)d}$, memorizes at most
# $T \le (n+1)m/d_{out} + m + 1$ examples.
# ```
#
# The data (Appendix F): one shared context of the first $n$ standard basis vectors and queries
# $[0_{d-n}; x^{(t)}]$. The context part of the input is a constant that folds into the first
# layer's bias, so the network is really a ReLU network on $\mathbb{R}^n$ with
# $(n+1)m + (m+1)d_{out}$ parameters, and a network cannot fit more generic real labels than it
# has parameters. The proposition is a count; we make it concrete. Theorem 1 memorized this very
# dataset in the previous chapter (the "Prop. 3 data" row), and does so again below. At the
# paper's size ($d = 64$, $n = 32$, $d_{out} = 1$), give the ReLU network as many parameters as
# the attention layer ($d_h = n$, $d_v = 1$), and compare what each memorizes:

# %%
d, n = 64, 32
prop3 = analysis.proposition_3_counts(d, n, heads=(1, 5, 10, 20, 40))  # equal parameters, d_h = n, d_v = 1
table(prop3)

# %% [markdown]
# The ReLU side measured, not only counted: the rank of the Jacobian of $T = 120$ outputs of a
# two-layer ReLU network with respect to all its parameters (the dimension of the labels it can
# reach near those weights), on Appendix F's data and, for contrast, on per-example contexts in
# general position; $d = 16$, $n = 6$, three draws of weights per width
# (`analysis.relu_jacobians`).

# %%
ratio = prop3["ReLU / attention"]
print(f"ReLU upper bound / attention lower bound: {ratio.min():.2f} to {ratio.max():.2f} for H = 1..40")
prop3_built = mem.check_theorem_1(relu_hard_data(21, 6, 16, seed=6), 4, 16)  # as in the previous chapter
jacobian = analysis.relu_jacobians(T=120, n=6, d=16, widths=(2, 4, 8))
display(table(jacobian, index=False))

# %% tags=["hide-input"]
proposition_3_check = checks.proposition_3(prop3, prop3_built, jacobian, d, n)
assert proposition_3_check.passed
record(proposition_3_check)

# %% [markdown]
# The Jacobian ranks make the ReLU side concrete: on Appendix F's data the network's outputs can
# move in at most as many directions as the bound, however many parameters it has, while the
# same network on data in general position reaches every one of the 120 examples once it has a
# few units. It is the data's $n$ varying coordinates, not the network's size, that cap it.
#
# The ReLU number is an upper bound and the attention number a lower bound, and the upper bound
# is about twice the lower one at every $H$: the comparison says the two are of the same order,
# $\Theta(Hn)$, which is what the paper claims ("at least as powerful" in order), not that
# attention memorizes more on this data.
# Where the two assumptions come from in practice, and whether they hold after a layer of a
# real model, is the subject of the {ref}`next chapter <mem-assumptions-models>`.
