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
# (sep-constructions)=
# # Separations: log-width constructions and linear lower bounds
#
# {cite}`bhattamishra2024separations` ask how large a model must be, as a function of the input
# length $N$, to *represent* four tasks. Their answer splits the architectures both ways:
#
# | task | 1-layer transformer | 2-layer transformer | recurrent model (any RNN, SSM, linear attention) |
# |---|---|---|---|
# | index lookup | width $O(\log N)$ (Thm 1) | | state $\ge N/p$ numbers (Thm 3) |
# | bounded Dyck, Dyck-(2,2) | $mH \ge (N-1)/(3(p+\log N))$ (Thm 5) | | constant size |
# | equality, disjointness | $\Omega(N)$ (Thm 12) | width $O(\log N)$ (Thms 6, 13) | $\Omega(N)$ (Thm 11) |
# | nearest neighbour, MQAR | | width $O(\log N)$ (Thm 7) | $\ge N/(2p)$ (Thm 8) |
#
# Here $p$ is the number of bits per number, $m$ the width and $H$ the number of heads. The
# constructions rest on $N$ *nearly orthogonal* vectors in $O(\log N)$ dimensions, used as
# positional addresses; the lower bounds on communication complexity. This chapter builds the
# constructions as real models of the library, the ones that train, and checks them on whole
# tasks or worst-case inputs; then it computes each lower-bound argument exactly on instances
# small enough to enumerate. The training experiments (Figures 2 and 4) are in
# {ref}`sep-training`.

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
import itertools
import time

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import torch
from IPython.display import display

from lib import claims, plots, scale
from lib.models import accuracy, predict
from lib.papers.bhattamishra2024 import constructions, lower_bounds, near_orthogonal, sweeps
from lib.papers.bhattamishra2024.dyck_rnn import dyck_rnn
from lib.plots import table
from lib.tasks import BoundedDyck, NearestNeighbour, PairFunction, StringEquality, VariableLengthIndexLookup
from lib.tasks.dyck import count_members, dfa, is_member

plots.use_style()
record = claims.Recorder(paper="bhattamishra2024", chapter="chapters/03_separations/01_constructions_lower_bounds")

# %% [markdown]
# (sep-tasks)=
# ## The tasks
#
# Each task is a generator of the library (`lib.tasks`), deterministic by seed. Index lookup
# reads the symbol at a queried position; the paper trains it at lengths $n \sim U\{10..N\}$,
# which we write as the symbols, pads `_` and the index token last (the paper does not say how it
# pads). Dyck-(2,2) asks whether a bracket string is well matched with at most two brackets
# open; its negatives are corrupted positives. Equality compares two halves; nearest neighbour
# labels each later input by its nearest earlier one.

# %%
examples = {
    "index lookup": VariableLengthIndexLookup(n_symbols=4, length=12, min_length=4),
    "Dyck-(2,2)": BoundedDyck(length=12),
    "INEQ (pairs of bit strings)": PairFunction(half_length=6, function="ineq"),
    "Eq-one (App. H.2)": StringEquality(n_symbols=4, length=12, variant="one"),
}
for name, task in examples.items():
    print(f"{name}:")
    for line in task.render(task.sample(3, seed=1)):
        print("   ", line)

# %% [markdown]
# (sep-lemma2)=
# ## Nearly orthogonal vectors (Lemma 2)
#
# ```{prf:lemma} 2 (Bhattamishra et al.)
# :label: sep-lemma-2
# :nonumber:
# For any $N$ and $\gamma > 0$, $N$ vectors with i.i.d. entries uniform in $\{\pm 1/\sqrt{k}\}$,
# $k = O(\log N / \gamma^2)$, have unit norm and pairwise inner products in $[-\gamma, \gamma]$
# with probability at least $1/2$ (Hoeffding and a union bound give $k = (8/\gamma^2)\ln 2N$).
# ```
#
# The constructions need the off-diagonal inner products at most $1/4$ (Corollary 8.1), or,
# as the reading notes observe, any threshold below 1 with the softmax temperature scaled by
# $1/(1-\text{threshold})$. We measure the smallest width $k$ (on a grid of 4) at which two
# independent draws of $N$ sign vectors stay below the threshold.

# %%
lemma_ns = scale.pick(smoke=[16, 64, 256], default=[16, 64, 256, 1024, 4096], paper=[16, 64, 256, 1024, 4096])
start = time.perf_counter()
rows, previous = [], {0.25: 4, 0.5: 4}
for n in lemma_ns:  # k_min grows with N: each scan starts a little below the previous answer
    found = {thr: near_orthogonal.k_min(n, thr, start=previous[thr] - 16) for thr in (0.25, 0.5)}
    previous = found
    rows.append({"N": n, "k_min (thr 1/4)": found[0.25], "Lemma 2 width (γ = 1/4)": near_orthogonal.lemma2_width(n, 0.25),
                 "k_min (thr 1/2)": found[0.5]})
kmins = pd.DataFrame(rows)
print(f"{time.perf_counter() - start:.0f} s")
print("The smallest width at which N sign vectors are nearly orthogonal")
display(table(kmins, index=False))

# %% [markdown]
# Each fourfold increase of $N$ adds a roughly constant amount to $k_{\min}$: the growth is in
# $\log N$, as the lemma says, and the lemma's own width is a safe upper bound. The constants
# are large: at threshold 1/4, $k_{\min}$ exceeds $N$ for the smaller lengths, so the "log width"
# beats one-hot positions only for $N$ in the hundreds and beyond. A tail check: for a fixed
# pair the chance of an inner product beyond $\gamma$ is at most $2e^{-k\gamma^2/4}$.

# %%
tail_rows = []
for k, gamma in ((64, 0.25), (64, 0.5), (256, 0.25)):
    T = near_orthogonal.sign_vectors(400, k, seed=7)
    G = T @ T.T
    off = np.abs(G[~np.eye(len(G), dtype=bool)])
    tail_rows.append({"k": k, "γ": gamma, "measured P(|<T_i,T_j>| >= γ)": float((off >= gamma).mean()),
                      "bound 2 exp(-kγ²/4)": near_orthogonal.hoeffding_tail(k, gamma)})
tails = pd.DataFrame(tail_rows)
print("Hoeffding's tail bound against the measured tail (400 vectors)")
display(table(tails, index=False))
fit = np.polyfit(np.log(kmins["N"]), kmins["k_min (thr 1/4)"], 1)
residual = kmins["k_min (thr 1/4)"] - np.polyval(fit, np.log(kmins["N"]))
log_growth = bool(kmins["k_min (thr 1/4)"].iloc[-1] - kmins["k_min (thr 1/4)"].iloc[-2] <
                  kmins["k_min (thr 1/4)"].iloc[-2])  # the last fourfold step adds less than everything before
lemma2_ok = bool((tails["measured P(|<T_i,T_j>| >= γ)"] <= tails["bound 2 exp(-kγ²/4)"]).all()
                 and (kmins["k_min (thr 1/4)"] <= kmins["Lemma 2 width (γ = 1/4)"]).all() and log_growth)
assert lemma2_ok
record(ref="Lemma 2", label="sep-lemma2",
       statement="N sign vectors in k = O(log N / γ²) dimensions are γ-orthogonal; Hoeffding tail 2exp(-kγ²/4)",
       paper_value="k = (8/γ²) ln 2N suffices (with prob. >= 1/2)",
       ours=f"k_min at threshold 1/4 for N = {', '.join(map(str, kmins['N']))}: "
       f"{', '.join(map(str, kmins['k_min (thr 1/4)']))} (slope {fit[0]:.0f} per unit of ln N); "
       f"measured tails below the bound", passed=lemma2_ok)
record(ref="Corollary 8.1", label="sep-lemma2",
       statement="N vectors in O(log N) dimensions with entries ±1/sqrt(k), off-diagonals <= 1/4 (diagonal 1)",
       paper_value="k = O(log N)", ours=f"found at k = {', '.join(map(str, kmins['k_min (thr 1/4)']))} for "
       f"N = {', '.join(map(str, kmins['N']))} (two draws each)", passed=lemma2_ok)

# %% [markdown]
# Lemma 3 is the general form the paper builds on (Johnson-Lindenstrauss with a sign matrix): a
# random linear map $x \mapsto Ax/\sqrt{k}$ with $A \in \{\pm 1\}^{k \times d}$ preserves every
# inner product of a set $Q$ of unit vectors to within $\varepsilon$ once $k = O(\log|Q| /
# \varepsilon^2)$; Lemma 2 is the case of one-hot vectors. We map 200 random unit vectors of
# $\mathbb{R}^{512}$ with maps of growing $k$ and compare the worst distortion with
# $\varepsilon(k) = \sqrt{8 \ln(2|Q|)/k}$, the width formula of Lemma 2 solved for $\varepsilon$.

# %%
rng = np.random.default_rng(3)
points = rng.standard_normal((200, 512))
points /= np.linalg.norm(points, axis=1, keepdims=True)
jl_rows = []
for k in (64, 256, 1024, 4096):
    A = rng.choice([-1.0, 1.0], size=(512, k)) / np.sqrt(k)
    mapped = points @ A
    distortion = float(np.abs(mapped @ mapped.T - points @ points.T).max())
    jl_rows.append({"k": k, "largest |<Ax,Ay> - <x,y>|": distortion, "ε(k)": float(np.sqrt(8 * np.log(400) / k))})
jl_map = pd.DataFrame(jl_rows)
display(table(jl_map, index=False))
lemma3_ok = bool((jl_map["largest |<Ax,Ay> - <x,y>|"] <= jl_map["ε(k)"]).all()
                 and jl_map["largest |<Ax,Ay> - <x,y>|"].is_monotonic_decreasing)
assert lemma3_ok
record(ref="Lemma 3", label="sep-lemma2",
       statement="a random ±1/sqrt(k) linear map preserves the inner products of |Q| unit vectors within ε "
                 "for k = O(log|Q| / ε²)",
       paper_value="k = O(log|Q|/ε²)", ours=f"200 unit vectors of R^512: worst distortion "
       f"{', '.join(f'{v:.3f}' for v in jl_map['largest |<Ax,Ay> - <x,y>|'])} at k = 64 ... 4096, under "
       "sqrt(8 ln(2|Q|)/k) each time", passed=lemma3_ok)

# %% [markdown]
# (sep-thm1)=
# ## Theorem 1: one layer of width $O(\log N)$ does index lookup
#
# ```{prf:theorem} 1 (Bhattamishra et al.)
# :label: sep-thm-1
# :nonumber:
# For all $N$ there is a one-layer transformer of width $O(\log N)$ and precision $O(\log N)$
# that performs index lookup for all input sequences of length up to $N$.
# ```
#
# The construction (App. C.2, in `lib.papers.bhattamishra2024.constructions`) embeds a symbol as
# its binary code $\rho(s)$ ($b = \lceil\log_2|\Sigma|\rceil$ bits), the index token $p$ as the
# address $T(p)$ and position $i$ as $T(i)$ in a third block: width $d = b + 2k$. The last
# token's query $\eta T(p)$ meets the keys $T(i)$: the logit is $\eta$ at $i = p$ and at most
# $\eta/2$ elsewhere (addresses at threshold 1/2), so with $\eta = \ln(3(N+1))/(1-1/2)$ at least
# 3/4 of the attention lands on $s_p$. The averaged code then has entries $\ge 3/4$ on 1-bits and
# $\le 1/4$ on 0-bits, and the ReLU MLP $\mathrm{relu}(2z-\tfrac12)-\mathrm{relu}(2z-\tfrac32)$
# rounds it to the exact bits. The weights are loaded into the library's attention stack, the
# module that training uses, with $|\Sigma| = 64$ as in the paper.
#
# Random inputs almost never bind: the leak of the 1/4 attention weight that misses $p$ is
# largest when every other symbol has every bit opposite to $s_p$. For each queried position
# we build both such inputs (symbol 0 among copies of symbol 63 and the reverse, at full length),
# and add random inputs of every length $n \in [10, N]$.

# %%
thm1_sizes = scale.pick(smoke=[(64, 56), (256, 64)], default=[(64, 56), (256, 64), (1024, 96), (4096, 120)],
                        paper=[(64, 56), (256, 64), (1024, 96), (4096, 120)])
n_random = scale.pick(smoke=100, default=500, paper=500)
rows = []
for N, k in thm1_sizes:
    start = time.perf_counter()
    task = VariableLengthIndexLookup(n_symbols=64, length=N, min_length=10)
    step = 1 if N <= 1024 else 8  # every 8th query at N = 4096 (the cost grows as N^2)
    worst = constructions.index_lookup_worst_cases(task, positions=range(1, N + 1, step))
    row = {"N": N, "k": k}
    for dtype in (torch.float64, torch.float32, torch.float16):
        model = constructions.index_lookup(task, k, dtype=dtype)
        row[f"worst cases {str(dtype)[6:]}"] = accuracy(model, worst)
        if dtype == torch.float64:
            row.update({"width d": model.config.d_model, "η": round(model.eta, 1),
                        "random inputs": accuracy(model, task.sample(n_random, seed=N))})
            row["least weight on p"] = float(constructions.weight_on_target(model, task, worst[:256]).min())
    row["worst-case inputs"] = len(worst)
    row["s"] = round(time.perf_counter() - start, 1)
    rows.append(row)
thm1 = pd.DataFrame(rows)
print("Theorem 1's transformer on worst-case and random inputs (|Σ| = 64)")
display(table(thm1, index=False))

# %%
exact = thm1[[c for c in thm1.columns if c.startswith("worst cases") or c == "random inputs"]]
largest = thm1.iloc[-1]
thm1_ok = bool((exact == 1.0).all().all() and (thm1["least weight on p"] >= 0.75).all()
               and (largest["N"] < 1024 or largest["width d"] < largest["N"]))
assert thm1_ok
record(ref="Theorem 1", label="sep-thm1",
       statement="a 1-layer transformer of width O(log N) does index lookup for every length up to N",
       paper_value="exact, width O(log N)",
       ours=f"100% on worst-case and random inputs at N = {', '.join(map(str, thm1['N']))} "
       f"(width {', '.join(map(str, thm1['width d']))}), in float64, float32 and float16; "
       f">= {thm1['least weight on p'].min():.3f} of the attention on the target", passed=thm1_ok)

# %% [markdown]
# At $N = 4096$ the model is 246 wide, where one-hot positions would need 4096 dimensions. The
# float16 copy is exact too: the construction needs only the logit gap $\eta/2 \approx 9.4$ to
# survive rounding.

# %% [markdown]
# (sep-thm6)=
# ## Theorem 6: two layers of width $O(\log N)$ compute equality
#
# ```{prf:theorem} 6 (Bhattamishra et al.)
# :label: sep-thm-6
# :nonumber:
# For any $N$ there is a 2-layer transformer of width $O(\log N)$ and precision $O(\log N)$
# that computes $\mathrm{EQ}(x)$ for all $x \in \{0,1\}^N$.
# ```
#
# Layer 1 (App. F.2): every position $i$ in the second half attends to its partner $i - N/2$
# (query $\eta[T(i'), 1]$, key $[T(j), -\tfrac12]$) and copies its bit; positions in the first
# half attend to themselves. An MLP of four ReLUs writes the XOR of the two bits, *exactly* 0 or 1
# once the copy is within 1/4. Layer 2 has zero queries, so its attention is uniform: the last
# position reads the fraction of mismatches, and an MLP outputs
# $\mathrm{relu}(Nm)-\mathrm{relu}(Nm-1)$, which is 1 iff some position differs (we output INEQ,
# the complement of EQ). Exact zeros matter: a leak of $\varepsilon$ per position would add up
# to $N\varepsilon$ against the threshold $1/N$. Samples are a third equal halves, a third halves
# that differ in one bit (the binding case) and a third independent halves.

# %%
thm6_sizes = scale.pick(smoke=[(8, 40), (64, 56)], default=[(8, 40), (64, 56), (256, 64), (1024, 96)],
                        paper=[(8, 40), (64, 56), (256, 64), (1024, 96)])
rows = []
for N, k in thm6_sizes:
    start = time.perf_counter()
    task = PairFunction(half_length=N // 2, function="ineq")
    data = task.enumerate() if N <= 16 else task.sample(scale.pick(smoke=150, default=600, paper=600), seed=N)
    one_flip = (data.x[:, : N // 2] != data.x[:, N // 2:]).sum(1) == 1
    model = constructions.inequality(task, k)
    correct = predict(model, data.x).argmax(-1) == data.y
    rows.append({"N": N, "width d": model.config.d_model, "inputs": "all 2^N" if N <= 16 else "sample",
                 "examples": len(data), "one-flip pairs": int(one_flip.sum()),
                 "errors": int((~correct).sum()), "errors on one-flip pairs": int((~correct[one_flip]).sum()),
                 "float32 accuracy": accuracy(constructions.inequality(task, k, dtype=torch.float32), data),
                 "s": round(time.perf_counter() - start, 1)})
thm6 = pd.DataFrame(rows)
print("Theorem 6's transformer (INEQ) on every string (N = 8) and on samples")
display(table(thm6, index=False))
thm6_ok = bool((thm6["errors"] == 0).all() and (thm6["float32 accuracy"] == 1.0).all())
assert thm6_ok
record(ref="Theorem 6", label="sep-thm6",
       statement="a 2-layer transformer of width O(log N) computes equality of the two halves",
       paper_value="exact, width O(log N)",
       ours=f"0 errors (all 256 strings at N = 8; samples with {thm6['one-flip pairs'].sum()} one-flip pairs "
       f"up to N = {thm6['N'].max()}), widths {', '.join(map(str, thm6['width d']))}; float32 too", passed=thm6_ok)

# %% [markdown]
# (sep-thm13)=
# ## Theorem 13: thresholds of sparse features, disjointness among them
#
# ```{prf:theorem} 13 (Bhattamishra et al.)
# :label: sep-thm-13
# :nonumber:
# Every threshold of at most $N$ features that each depend on $k = O(1)$ input bits,
# $f(x) = [\sum_i g_i(x_{I_i}) > b]$, is computed by a 2-layer transformer with $k$ heads of width
# $O(\log N)$ and precision $O(\log N)$.
# ```
#
# With a beginning-of-sequence token at position 0 (bit 0, address $T(0)$, read by features
# that need fewer positions), head $h$ of layer 1 queries the address of the $h$-th position
# feature $i$ reads and copies that bit. The MLP rounds the two copies to exact bits $a, c$ and
# writes $g(a, c) = g_{10}a + g_{01}c + (g_{11}-g_{10}-g_{01})\,\mathrm{AND}(a,c)$, where
# $\mathrm{AND} = \mathrm{relu}(4s-5) - \mathrm{relu}(4s-6)$ of the raw sum $s$ of the copies is exact
# once each copy is within 1/4. Layer 2 averages uniformly; its MLP thresholds the integer sum.
# Two instances, with $I_i = \{i, i + N/2\}$: the paper's DISJ (1 when the halves intersect) is
# $g = \mathrm{AND}$, $b = 0$; INEQ is $g = \mathrm{XOR}$. Besides every string at $N = 8$ and
# samples, DISJ is checked on its binding inputs: disjoint halves, and the same with exactly one
# common position.

# %%
thm13_sizes = scale.pick(smoke=[(8, 40), (64, 56)], default=[(8, 40), (64, 56), (256, 72)],
                         paper=[(8, 40), (64, 56), (256, 72)])
rows = []
for N, k in thm13_sizes:
    for function, g in (("disj", constructions.AND), ("ineq", constructions.XOR)):
        task = PairFunction(half_length=N // 2, function=function)
        model = constructions.sparse_threshold(N, constructions.pair_sets(N // 2), g, 0, k)
        sets = {"all 2^N" if N <= 16 else "sample": task.enumerate() if N <= 16 else task.sample(300, seed=N)}
        if function == "disj":
            sets["0 or 1 common"] = constructions.near_disjoint_pairs(N // 2, 300, seed=N)
        for name, data in sets.items():
            rows.append({"N": N, "function": function, "inputs": name, "examples": len(data),
                         "width d": model.config.d_model,
                         "accuracy": accuracy(model, constructions.bos_inputs(data))})
thm13 = pd.DataFrame(rows)
print("Theorem 13's transformer: NOT-DISJ and INEQ as thresholds of 2-sparse features")
display(table(thm13, index=False))
thm13_ok = bool((thm13["accuracy"] == 1.0).all())
assert thm13_ok
record(ref="Theorem 13", label="sep-thm13",
       statement="a 2-layer transformer with k heads of width O(log N) computes any threshold of k-sparse features "
                 "(disjointness and equality among them)",
       paper_value="exact, width O(log N), k heads",
       ours=f"100% for DISJ (g = AND) and INEQ (g = XOR) with 2 heads: all strings at N = 8, samples and "
       f"0-or-1-common pairs up to N = {thm13['N'].max()} (width {thm13['width d'].max()})", passed=thm13_ok)

# %% [markdown]
# (sep-thm7)=
# ## Theorem 7: two layers implement the nearest-neighbour rule
#
# ```{prf:theorem} 7 (Bhattamishra et al.)
# :label: sep-thm-7
# :nonumber:
# For any $N$ there is a 2-layer transformer of width $O(\log N)$ and precision $O(\log N)$
# that labels each later input of a sequence $x_1, y_1, \dots, x_{k-1}, y_{k-1}, x_k$ (unit
# vectors, binary labels, a margin $\gamma \ge N^{-c}$ between the nearest and the next
# nearest) by the label of its nearest earlier input.
# ```
#
# Layer 1 scores an earlier input $j$ from the query $x_t$ by $\langle x_t, x_j\rangle + 3$, the
# query itself by $4 - c_1$ (the self-exclusion term $-c_1\langle T(t), T(j)\rangle$), labels by
# about $-6$; so the nearest neighbour wins by the margin, and with $\eta_1 = \frac{5}{4\gamma}\ln 18N$
# it takes more than 9/10 of the weight. Its value is twice the sign pattern of the address of
# the label that follows it; an MLP clips the average to exactly that sign pattern, and layer 2
# looks the label up by address. We fix the paper's inconsistencies as the reading notes list
# them (the constant is $+3$, the label key $-6$, the layer-2 query $T_s/\sqrt{k}$ not $T_s/k$).
#
# With exactly orthogonal addresses (rows of a Hadamard matrix) the construction is exact, on
# MQAR (keys on the hypercube, margin $2/d$) and on random unit vectors whose margin is as small
# as $10^{-2}$.

# %%
def nn_errors(model, batch):
    """Errors and scored positions of a nearest-neighbour model on a batch."""
    scored = batch.y != -100
    wrong = predict(model, batch.x).argmax(-1)[scored] != batch.y[scored]
    return int(wrong.sum()), int(scored.sum())


mqar = NearestNeighbour(n_points=32, dim=8, mqar=True)
sphere = NearestNeighbour(n_points=40, dim=16, keys="sphere", margin=0.01)
n_seq = scale.pick(smoke=10, default=50, paper=50)
exact_rows = []
for name, task, gamma in (("MQAR, hypercube keys (margin 2/d = 0.25)", mqar, 0.25),
                          ("unit vectors, margin >= 0.01", sphere, 0.01)):
    errs, scored = nn_errors(constructions.nearest_neighbour(task, gamma), task.sample(n_seq, seed=0))
    exact_rows.append({"inputs": name, "sequences": n_seq, "scored queries": scored, "errors": errs})
exact_nn = pd.DataFrame(exact_rows)
display(table(exact_nn, index=False))

# %% [markdown]
# With random sign addresses the self-exclusion term is no longer exact: the leak
# $c_1\langle T(t), T(j)\rangle$ must stay below the margin, so the width needed grows as
# $c_1^2 \log N / \gamma^2$. The O(log N) of the theorem holds for a constant margin, with a large
# constant. We measure the error on MQAR ($\gamma = 1/4$, 32 points) against the address width for
# the paper's $c_1 = 10$ and for $c_1 = 3$, which is enough ($c_1 > 2 + \gamma$ excludes the query).

# %%
jl_ks = scale.pick(smoke=[64, 256], default=[64, 256, 1024, 4096], paper=[64, 256, 1024, 4096])
jl_batch = mqar.sample(scale.pick(smoke=6, default=12, paper=12), seed=1)
jl_rows = []
start = time.perf_counter()
for c1 in (3.0, 10.0):
    for k in jl_ks:
        errs, scored = nn_errors(constructions.nearest_neighbour(
            mqar, 0.25, addresses=near_orthogonal.sign_vectors(mqar.seq_len, k, seed=k), c1=c1), jl_batch)
        jl_rows.append({"c1": c1, "address width k": k, "error rate": errs / scored})
jl = pd.DataFrame(jl_rows)
print(f"{time.perf_counter() - start:.0f} s")
fig, ax = plt.subplots(figsize=(5, 3.2))
for c1, part in jl.groupby("c1"):
    ax.plot(part["address width k"], part["error rate"], marker="o", label=f"c1 = {c1:g}")
ax.set(xscale="log", xlabel="address width k", ylabel="error rate on MQAR",
       title="Theorem 7 with random sign addresses")
ax.legend()
plots.stamp(fig, f"closed-form model; {len(jl_batch)} MQAR sequences of 32 points, margin 1/4")
plt.show()
err = {(r["c1"], r["address width k"]): r["error rate"] for r in jl_rows}
thm7_ok = bool((exact_nn["errors"] == 0).all() and err[(10.0, 256)] > 0
               and err[(3.0, max(jl_ks))] < err[(3.0, min(jl_ks))] and err[(3.0, max(jl_ks))] <= err[(10.0, max(jl_ks))])
if max(jl_ks) >= 4096:
    thm7_ok = thm7_ok and err[(3.0, 4096)] == 0.0
assert thm7_ok
record(ref="Theorem 7", label="sep-thm7",
       statement="a 2-layer transformer of width O(log N) implements the nearest-neighbour rule (MQAR included)",
       paper_value="exact, width O(log N)",
       ours=f"0 errors with orthogonal addresses (MQAR and unit vectors with margin >= 0.01); with random sign "
       f"addresses at margin 1/4, error at k = {', '.join(map(str, jl_ks))}: c1 = 3 "
       f"{', '.join(f'{err[(3.0, k)]:.3f}' for k in jl_ks)}, c1 = 10 {', '.join(f'{err[(10.0, k)]:.3f}' for k in jl_ks)} "
       "(the width grows as c1^2 log N / gamma^2)",
       passed=thm7_ok, note="fixed: +3 (text also +2), label key -6 (text -2.3), layer-2 query T_s/sqrt(k)")

# %% [markdown]
# (sep-dyck-rnn)=
# ## A constant-size RNN for Dyck-(2,2)
#
# Bounded Dyck languages are regular: the stacks of height at most 2 over two bracket types are
# the 7 live states of an automaton (a dead state makes 8), and $|\text{Dyck-(2,2)} \cap
# \Sigma^N| = 2^{N-1}$ for even $N$ (Lemma 1's proof). The paper cites constant-size RNNs that
# recognize it ({cite}`bhattamishra2024separations`, Sec. 4.1); we build one as an Elman ReLU
# RNN of the library's recurrent family, one unit per (state, symbol), 32 units: unit $(q, c)$
# fires iff the state before the current symbol was $q$ and the symbol is $c$,
#
# $$u_t[(q,c)] = \mathrm{relu}\Big(\sum_{(q',c'):\,\delta(q',c') = q} u_{t-1}[(q',c')] + [x_t = c] - 1\Big).$$
#
# Its size does not depend on the length. We check it against the exact recognizer on every
# string of length 1 to 8 and on generated strings of length 400 (the paper's longest).

# %%
max_enum = scale.pick(smoke=6, default=8, paper=8)
rnn = dyck_rnn()
states, _ = dfa(2, 2)
checked = errors = 0
start = time.perf_counter()
for length in range(1, max_enum + 1):
    x = torch.cartesian_prod(*[torch.arange(4)] * length).reshape(-1, length) if length > 1 else torch.arange(4)[:, None]
    truth = torch.tensor([is_member(row, 2) for row in x.tolist()])
    errors += int((predict(rnn, x).argmax(-1).bool() != truth).sum())
    checked += len(x)
long = BoundedDyck(length=400).sample(scale.pick(smoke=200, default=2000, paper=2000), seed=0)
long_acc = accuracy(rnn, long)
long32 = accuracy(dyck_rnn(dtype=torch.float32), long)
counts_ok = all(count_members(n) == 2 ** (n - 1) for n in range(2, 401, 2))
print(f"{checked:,} strings of length 1-{max_enum}: {errors} errors; length 400: {long_acc:.4f} (float32 {long32:.4f}); "
      f"{len(states)} live states, {rnn.config.d_model} units; {time.perf_counter() - start:.1f} s")
dyck_ok = errors == 0 and long_acc == 1.0 and long32 == 1.0 and len(states) == 7 and counts_ok
assert dyck_ok
record(ref="Sec. 4.1 (constant-size RNN for Dyck-(2,2))", label="sep-dyck-rnn",
       statement="a constant-size (ReLU) RNN recognizes Dyck-(2,2); the automaton has 7 live states; "
                 "2^(N-1) members of length N",
       paper_value="constant size (cited: Hewitt et al. 2020, Bhattamishra et al. 2020)",
       ours=f"32-unit ReLU RNN: 0 errors on all {checked:,} strings of length <= {max_enum} and 100% on "
       f"{len(long)} generated strings of length 400 (float64 and float32); member counts 2^(N-1) for every "
       "even N <= 400", passed=dyck_ok)

# %% [markdown]
# The same network shows Theorem 2's protocol, the reason recurrent models face only
# prefix/suffix splits: Alice runs the prefix and sends the state, Bob starts from it and reads
# the rest. Here the state is one of 32 one-hot vectors (5 bits, whatever the length), and Bob's
# answer equals the network's on the whole string.

# %%
split_batch = BoundedDyck(length=40).sample(scale.pick(smoke=20, default=100, paper=100), seed=3)
cut = 17
agree, states_sent = 0, set()
for row in split_batch.x:
    cache = {}
    rnn(row[None, :cut], cache=cache)
    message = cache["layers.0.states"][0, -1]  # Alice's whole message: the state after her prefix
    states_sent.add(tuple(message.tolist()))
    bob = dyck_rnn()
    bob.set_weights({"layers.0.b_h0": message})  # Bob starts from Alice's state
    agree += int(predict(bob, row[None, cut:]).argmax(-1) == predict(rnn, row[None]).argmax(-1))
thm2_ok = agree == len(split_batch) and len(states_sent) <= 32
print(f"Bob's answer equals the RNN's on {agree}/{len(split_batch)} strings; {len(states_sent)} distinct states sent")
assert thm2_ok
record(ref="Theorem 2 (the Dyck RNN as a protocol)", label="sep-dyck-rnn",
       statement="an RNN with an mp-bit state gives a one-way protocol of mp bits for any prefix/suffix split",
       paper_value="exact protocol", ours=f"Dyck RNN split after {cut} of 40 symbols: Bob's output equals the RNN's on "
       f"{agree}/{len(split_batch)} strings; the message is one of 32 one-hot states (5 bits)", passed=thm2_ok)

# %% [markdown]
# (sep-thm4)=
# ## Theorem 4: a one-layer transformer is a short protocol for *any* split
#
# ```{prf:theorem} 4 (Bhattamishra et al.)
# :label: sep-thm-4
# :nonumber:
# Let a one-layer transformer with $H$ heads of width $m$ and $p$-bit precision read $N$
# positions, and let Alice hold the positions in $S_A$ and Bob those in $S_B$, for *any* partition.
# Then Alice and Bob can compute its output by exchanging $O(mH(p + \log N))$ bits.
# ```
#
# Softmax attention splits over the keys: each side computes its logits against the query,
# they exchange their local maxima (to subtract the overall maximum, App. D), their sums of
# exponentials and their weighted value sums. We run the protocol on a random two-head layer of
# the library's attention stack, in App. B.2's fixed point (every number rounded down to
# $2^{-24}$), for random partitions, and compare with the layer computed in one place.

# %%
layer = lower_bounds.random_attention(d=16, m=8, heads=2, seed=0)
heads = lower_bounds.attention_heads(layer)
rng = np.random.default_rng(0)
N = 64
X = lower_bounds.fixed_point(rng.standard_normal((N, 16)), 24)
direct = lower_bounds.one_layer_direct(X, heads)
gaps, bit_counts = [], []
for trial in range(20):
    alice = sorted(set(rng.choice(N - 1, int(rng.integers(1, N - 1)), replace=False).tolist()) | {N - 1})
    out, bits = lower_bounds.one_layer_protocol(X, heads, alice)
    gaps.append(float(np.abs(out - direct).max()))
    bit_counts.append(bits)
budget = lower_bounds.protocol_bits(16, 8, 2, N, 48)
print(f"largest difference protocol vs direct over 20 partitions: {max(gaps)}; bits exchanged: {set(bit_counts)} "
      f"(formula {budget}); the input itself is {N * 16 * 48:,} bits")
thm4_ok = max(gaps) == 0.0 and set(bit_counts) == {budget} and budget < N * 16 * 48
assert thm4_ok
record(ref="Theorem 4", label="sep-thm4",
       statement="for any partition of the positions, a 1-layer H-head transformer is computed by a protocol "
                 "of O(mH(p + log N)) bits",
       paper_value="exact protocol, 3m(p + log N)H bits (plus the query)",
       ours=f"identical output (difference 0) for 20 random partitions, N = {N}, H = 2, m = 8, p = 48 bits: "
       f"{budget:,} bits against {N * 16 * 48:,} for the input", passed=thm4_ok)

# %% [markdown]
# (sep-lemma1)=
# ## Lemma 1 and Theorem 5: Dyck-(2,2) is hard to split between odd and even positions
#
# ```{prf:lemma} 1 (Bhattamishra et al.)
# :label: sep-lemma-1
# :nonumber:
# If Alice holds the symbols at the odd positions of $s \in \Sigma^N$ and Bob those at the even
# positions, deciding $s \in$ Dyck-(2,2) needs at least $N-1$ bits.
# ```
#
# The proof uses a fooling set: in a member, the odd-position symbols fix the even ones, so
# the $2^{N-1}$ members pair every Alice input with at most one Bob input. We write out the
# communication matrix $M[a, b] = [\,\mathrm{interleave}(a, b) \in \text{Dyck-(2,2)}\,]$ over all
# $4^{N/2}$ halves each. Under the odd/even split every row has at most one 1 and the rank is
# $2^{N-1}$, so even the log-rank bound gives $N-1$ bits. Under the prefix/suffix split (the one
# an RNN faces) the rank stays small: Alice only needs to send her open brackets, at most 7
# stacks. With Theorem 4 this gives Theorem 5: $3mH(p + \log N) \ge N - 1$.

# %%
rank_rows = []
for n in scale.pick(smoke=[4, 6], default=[4, 6, 8], paper=[4, 6, 8]):
    for split in ("odd_even", "prefix_suffix"):
        M = lower_bounds.dyck_communication_matrix(n, split)
        rank_rows.append({"N": n, "split": split, "rank": int(np.linalg.matrix_rank(M)), "members": int(M.sum()),
                          "most 1s in a row": int(M.sum(1).max()), "2^(N-1)": 2 ** (n - 1)})
ranks = pd.DataFrame(rank_rows)
print("Communication matrices of Dyck-(2,2)")
display(table(ranks, index=False))
odd = ranks[ranks["split"] == "odd_even"]
prefix = ranks[ranks["split"] == "prefix_suffix"]
lemma1_ok = bool((odd["rank"] == odd["2^(N-1)"]).all() and (odd["most 1s in a row"] == 1).all()
                 and (prefix["rank"] <= 7).all())
assert lemma1_ok
record(ref="Lemma 1", label="sep-lemma1",
       statement="with odd/even positions split, Dyck-(2,2) membership needs >= N-1 bits (a fooling set of size 2^(N-1))",
       paper_value=">= N - 1 bits",
       ours=f"odd/even rank = 2^(N-1) and at most one member per row for N = {', '.join(map(str, odd['N']))}; "
       f"prefix/suffix rank <= {prefix['rank'].max()}", passed=lemma1_ok)
record(ref="Theorem 5 (restated as Theorem 10)", label="sep-lemma1",
       statement="a 1-layer transformer recognizing Dyck-(2,2) has mH >= (N-1)/(3(p + log N))",
       paper_value="follows from Theorem 4 and Lemma 1",
       ours="both ingredients hold exactly here (the protocol above; the fooling set and ranks); the implied "
       "widths are plotted below", passed=lemma1_ok and thm4_ok)

# %% [markdown]
# (sep-thm11)=
# ## Theorem 11 and Lemma 4: an automaton for INEQ needs $2^{N/2}$ states
#
# A recurrent model whose transition does not depend on time is a finite automaton with
# $2^{mp}$ states (Lemma 4). Any automaton that computes INEQ on $\{0,1\}^N$ must tell apart every
# first half, since each is distinguished from the others by the suffix that repeats it
# (Myhill-Nerode). We count the distinct residual functions after $t = N/2$ bits.

# %%
mn_rows = [{"N": n, "residual classes after N/2 bits": lower_bounds.residual_classes(lower_bounds.inequality, n, n // 2),
            "2^(N/2)": 2 ** (n // 2)} for n in scale.pick(smoke=[4, 8], default=[4, 8, 12], paper=[4, 8, 12])]
mn = pd.DataFrame(mn_rows)
print("Myhill-Nerode classes of INEQ")
display(table(mn, index=False))
thm11_ok = bool((mn["residual classes after N/2 bits"] == mn["2^(N/2)"]).all())
assert thm11_ok
record(ref="Theorem 11 and Lemma 4", label="sep-thm11",
       statement="a recurrent model computing INEQ on {0,1}^N needs mp >= N/2 (an automaton needs 2^(N/2) states)",
       paper_value="2^(N/2) states", ours=f"exactly 2^(N/2) residual classes for N = {', '.join(map(str, mn['N']))}",
       passed=thm11_ok)

# %% [markdown]
# (sep-thm12)=
# ## Theorem 12: one layer needs linear size for equality; Lemma 5: two layers escape every split
#
# Equality's communication matrix over the halves is the identity of size $2^{N/2}$, and
# disjointness's is full rank too (Facts 1 and 2): both need $N/2$ bits whichever way Alice and
# Bob talk. With Theorem 4 this bounds a one-layer transformer, $3mH(p + \log N) \ge N/2$
# (Theorem 12). A two-layer transformer is not bound this way. Lemma 5: for *every* balanced
# partition there is a 2-layer transformer of width $O(\log N)$ that compares Alice's positions
# with Bob's, $[x_{S_A} \ne x_{S_B}]$, which needs $N/2$ bits across that very partition; so no
# protocol of Theorem 4's kind exists for two layers (Corollary 13.1). We build Theorem 6's
# model with the pairing of random balanced partitions and check it on every input at $N = 12$.

# %%
cc_rows = []
for n in (4, 6, 8, 10):
    half = list(itertools.product((0, 1), repeat=n // 2))
    eq = np.array([[int(a == b) for b in half] for a in half])
    disj = np.array([[int(any(u and v for u, v in zip(a, b))) for b in half] for a in half])
    cc_rows.append({"N": n, "EQ rank": int(np.linalg.matrix_rank(eq)), "DISJ rank": int(np.linalg.matrix_rank(disj)),
                    "2^(N/2)": 2 ** (n // 2)})
cc = pd.DataFrame(cc_rows)
display(table(cc, index=False))
n_split = 12
split_task = PairFunction(half_length=n_split // 2, function="ineq")
everything = split_task.enumerate()
split_rows = []
for trial in range(scale.pick(smoke=2, default=5, paper=5)):
    alice = sorted(np.random.default_rng(trial).choice(n_split, n_split // 2, replace=False).tolist())
    bob = [i for i in range(n_split) if i not in alice]
    model = constructions.inequality(split_task, 48, alice=alice)
    target = (everything.x[:, alice] != everything.x[:, bob]).any(1).long()
    split_rows.append({"Alice's positions": str(alice), "inputs": len(everything),
                       "accuracy": float((predict(model, everything.x).argmax(-1) == target).double().mean())})
splits = pd.DataFrame(split_rows)
display(table(splits, index=False))
thm12_ok = bool((cc["EQ rank"] == cc["2^(N/2)"]).all() and thm4_ok)
lemma5_ok = bool((splits["accuracy"] == 1.0).all())
assert thm12_ok and lemma5_ok
record(ref="Theorem 12", label="sep-thm12",
       statement="a 1-layer transformer computing EQ on {0,1}^N has mpH = Ω(N)",
       paper_value="Theorem 4 + Fact 2 (EQ needs N/2 bits)",
       ours=f"EQ's matrix has rank 2^(N/2) (DISJ's {', '.join(map(str, cc['DISJ rank']))}, 2^(N/2) - 1: the "
       f"empty set's row is zero) for N = "
       f"{', '.join(map(str, cc['N']))}, and the protocol of Theorem 4 is exact", passed=thm12_ok)
record(ref="Lemma 5 and Corollary 13.1", label="sep-thm12",
       statement="for every balanced partition a 2-layer log-width transformer computes a function needing N/2 bits "
                 "across it, so no Theorem-4-style protocol exists for 2 layers",
       paper_value="exists for every partition", ours=f"Theorem 6's model with the pairing of {len(splits)} random "
       f"balanced partitions: 100% on all {len(everything)} inputs at N = {n_split}", passed=lemma5_ok)

# %% [markdown]
# (sep-linear-rnn)=
# ## Why a recurrent state must grow with $N$ (Theorems 2 and 3)
#
# Theorem 2: a recurrent model with an $mp$-bit state gives a one-way protocol of $mp$ bits for
# any prefix/suffix split; Alice runs the prefix and sends the state. For index lookup Bob holds
# only the index, so the state must carry the whole prefix: INDEX needs $N$ bits one way, hence
# $m \ge N/p$ (Theorem 3). Three exact pictures of this:
#
# * a *linear* recurrence ends in $h_N = Mx$ with $\mathrm{rank}\,M \le m$; the best affine
#   read-out of the $N$ bits from it has mean squared error $(N - \mathrm{rank}\,M)/(4N)$ per bit,
#   zero only once $m \ge N$ (with infinite precision one real number could store every bit,
#   which is why the theorem counts bits);
# * any $b$-bit message about uniform $x \in \{0,1\}^N$ lets Bob read a random bit with accuracy
#   at most $1 - h^{-1}(1 - b/N)$ (Fano), which falls towards 1/2 as $N$ grows at fixed $b$;
# * a trained LSTM run as the protocol (below): Alice feeds the $N$ bits and sends her final
#   state $(h, c)$, each number quantized to $b$ bits; Bob feeds the index token from it. Every
#   one of the $2^N$ strings is Alice's input and every index Bob's, so the accuracy is exact.
#   Messages shorter than $N$ bits (the $k$ most variable state numbers, the rest replaced by
#   their mean) must stay under the information bound; and a message that gives 100% must take
#   $2^N$ distinct values (injectivity).

# %%
widths = [4, 8, 16, 24, 31, 32, 48]
lin = pd.DataFrame([{"state width m": m, **dict(zip(("MSE per bit", "rank M"), lower_bounds.linear_state_mse(32, m)))}
                    for m in widths])
lin["(N - rank)/(4N)"] = (32 - lin["rank M"]) / (4 * 32)
display(table(lin, index=False))
fano = pd.DataFrame([{"N": n, **{f"{b}-bit state": round(lower_bounds.index_accuracy_bound(b, n), 3)
                                 for b in (32, 128, 512)}} for n in (64, 256, 1024, 4096)])
display(table(fano, index=False))
linear_ok = bool(np.allclose(lin["MSE per bit"], lin["(N - rank)/(4N)"], atol=1e-9)
                 and ((lin["MSE per bit"] > 1e-6) == (lin["state width m"] < 32)).all())

# %%
protocol = sweeps.result("lstm_protocol")
proto = protocol.points[0]["result"]
n_bits = protocol.config["length"]
full = pd.DataFrame(proto["rows"])
short = pd.DataFrame(proto["short"])
print(f"{protocol.config['arch']} trained on binary index lookup at N = {n_bits}; Alice's message by bits per number:")
display(table(full, index=False))
print("messages shorter than N bits:")
display(table(short, index=False))
fig, ax = plt.subplots(figsize=(5, 3.2))
ax.plot(short["message_bits"], short["accuracy"], "o", label="trained LSTM, short message")
grid_bits = np.arange(0, n_bits + 1)
ax.plot(grid_bits, [lower_bounds.index_accuracy_bound(b, n_bits) for b in grid_bits], "-", color="0.3",
        label="information bound 1 - h⁻¹(1 - b/N)")
ax.set(xlabel="message bits b", ylabel="accuracy over all strings and indices", ylim=(0.45, 1.02),
       title=f"Theorems 2-3: Alice's message, N = {n_bits}")
ax.legend(fontsize=8)
plots.stamp(fig, protocol.label())
plt.show()
exact_state = full[full["bits_per_number"].isna()].iloc[0]
under_bound = bool((short["accuracy"] <= short["bound"] + 1e-12).all())
injective = bool(exact_state["accuracy"] < 1.0 or exact_state["distinct_messages"] == 2**n_bits)
thm3_ok = linear_ok and under_bound and injective and exact_state["accuracy"] >= 0.95
assert linear_ok and under_bound and injective
record(ref="Theorem 3 and Theorem 2", label="sep-linear-rnn",
       statement="a recurrent model doing index lookup at length N needs a state of >= N bits: its state is a "
                 "one-way message, and a message of b < N bits caps the accuracy at 1 - h^-1(1 - b/N)",
       paper_value="m >= N/p", ours=f"trained {protocol.config['arch']} at N = {n_bits}: full state "
       f"{exact_state['accuracy']:.3f} over all {n_bits * 2**n_bits:,} instances with {int(exact_state['distinct_messages']):,} "
       f"distinct messages (2^N = {2**n_bits:,}); every message of b < N bits under the bound "
       f"(best {short['accuracy'].max():.3f}); linear recurrences: error (N - rank)/(4N) exactly, zero iff m >= N",
       passed=thm3_ok, partly=linear_ok and under_bound)

# %% [markdown]
# (sep-thm8)=
# ## Theorem 8 and Proposition 9: recall and nearest neighbour need the same state
#
# The same argument covers associative recall and nearest neighbour by reduction. Alice writes
# her bits as the labels of pre-agreed distinct keys on the hypercube, $(v_1, a_1), \dots,
# (v_n, a_n)$; a recurrent model would now hold all of it in its state, its one message. Bob
# queries $v_p$ and reads $a_p$: INDEX, so the state needs $n$ bits (Proposition 9). Or he
# queries every $v_i$ in turn, writing the model's own answer as the label that follows, recovers
# all of $a$ and computes $\mathrm{DISJ}(a, b)$ with his own $b$: $n$ bits again (Theorem 8,
# $m \ge N/(2p)$ for sequences of $N = 2n$ points). We run both reductions with Theorem 7's
# transformer as the solver, on every pair $(a, b)$ at $n = 4$ and on random $a$ at $n = 16$.

# %%
reduction_rows = []
for n_keys, dim, exhaustive in ((4, 3, True), (16, 5, False)):
    recall = NearestNeighbour(n_points=2 * n_keys, dim=dim, mqar=True)
    solver = constructions.nearest_neighbour(recall, gamma=2 / dim)
    if exhaustive:
        alice = [torch.tensor(bits) for bits in itertools.product((0, 1), repeat=n_keys)]
    else:
        g = torch.Generator().manual_seed(0)
        alice = [torch.randint(2, (n_keys,), generator=g) for _ in range(scale.pick(smoke=10, default=50, paper=50))]
    recovered = [lower_bounds.recall_protocol(a, solver, recall) for a in alice]
    bobs = [torch.tensor(bits) for bits in itertools.product((0, 1), repeat=n_keys)] if exhaustive else alice
    disj = [bool((r & b).any()) == bool((a & b).any()) for a, r in zip(alice, recovered) for b in bobs]
    reduction_rows.append({"n keys": n_keys, "Alice inputs": len(alice), "all bits recovered":
                           sum(bool(torch.equal(a, r)) for a, r in zip(alice, recovered)), "DISJ pairs": len(disj),
                           "DISJ right": sum(disj)})
reductions = pd.DataFrame(reduction_rows)
display(table(reductions, index=False))
thm8_ok = bool((reductions["all bits recovered"] == reductions["Alice inputs"]).all()
               and (reductions["DISJ right"] == reductions["DISJ pairs"]).all())
assert thm8_ok
record(ref="Theorem 8 and Proposition 9", label="sep-thm8",
       statement="a recurrent model doing nearest neighbour (or associative recall) at length N needs m >= N/(2p) "
                 "(or N/p): the reductions from DISJ and INDEX",
       paper_value="reductions (proofs)", ours=f"run with Theorem 7's transformer as the solver: Bob recovers all of "
       f"Alice's bits for every input at n = 4 and {reduction_rows[1]['Alice inputs']} random inputs at n = 16, and "
       f"answers DISJ on all {reduction_rows[0]['DISJ pairs']} pairs at n = 4", passed=thm8_ok)

# %% [markdown]
# (sep-implied-widths)=
# ## Where the bounds bite
#
# The lower bounds are asymptotic in a precise sense: they say nothing until $N$ is large
# compared with the width times the precision. The paper says so itself (Sec. 6): for a
# recurrent model with a state of 128 numbers of 64 bits, the index lookup bound applies only
# beyond $N \approx 8\text{k}$. The plot shows the smallest width each bound allows, for a few
# precisions, with the lengths of the paper's experiments marked: at those lengths every bound
# asks for less than the widths the paper trains, so the experiments measure what is *learned*,
# not what can be represented.

# %%
ns = np.logspace(1, 5, 200)
fig, axes = plt.subplots(1, 2, figsize=(10, 3.8), sharey=True)
for ax, bound, title in ((axes[0], "rnn_index", "recurrent model, index lookup (Thm 3)"),
                         (axes[1], "tf1_dyck", "1-layer transformer, Dyck-(2,2) (Thm 5)")):
    for p in (16, 32, 64):
        ax.plot(ns, [lower_bounds.implied_width(bound, n, p) for n in ns], label=f"p = {p} bits")
    ax.axvspan(20, 400, color="0.85", label="lengths trained in the paper")
    ax.axhline(64, color="0.3", ls=":", lw=1, label="width 64")
    ax.set(xscale="log", yscale="log", xlabel="input length N", title=title)
axes[0].set_ylabel("smallest width allowed")
axes[1].legend(fontsize=8)
plots.stamp(fig, "The paper's bounds (Theorems 3 and 5) evaluated as formulas; no model is run.")
plt.show()
print(f"index lookup, p = 64: width >= 128 from N = {int(128 * 64):,}; "
      f"at N = 400 the bound asks for {lower_bounds.implied_width('rnn_index', 400, 64):.1f}")
