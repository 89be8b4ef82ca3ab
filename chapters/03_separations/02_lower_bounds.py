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
# (sep-lower-bounds)=
# # Separations: linear lower bounds
#
# The constructions of {ref}`sep-constructions` give transformers of width $O(\log N)$. The
# other half of {cite}`bhattamishra2024separations` shows that the other side of each separation
# needs size linear in $N$, by communication complexity: a model of small size would give Alice
# and Bob, who each hold part of the input, a protocol shorter than the problem allows. This
# chapter computes each argument exactly on instances small enough to enumerate: Theorem 4's
# protocol for one-layer transformers, the fooling set of Lemma 1 and the ranks behind Theorems
# 5, 11 and 12, the two-layer escape of Lemma 5, the state of a trained LSTM as Alice's message
# (Theorems 2 and 3) and the reductions of Theorem 8.

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
from IPython.display import display

from lib import claims, plots, scale
from lib.papers.bhattamishra2024 import analysis, checks, lower_bounds, sweeps
from lib.plots import table

plots.use_style()
record = claims.Recorder(paper="bhattamishra2024", chapter="chapters/03_separations/02_lower_bounds")

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
#
# The bits are counted from the messages the protocol actually sends (each message's numbers
# times the width it declares, and every number is checked to fit that width exactly). Step by
# step, App. D's protocol sends the query token ($dp$ bits), then for each head the two local
# maxima ($2p$), the two local sums of exponentials ($2(p + \lceil\log_2 N\rceil)$) and the two
# weighted value sums of $m$ numbers at $2p$ bits each ($4mp$):
#
# $$dp + H\,\bigl(4(m + 1)p + 2\lceil\log_2 N\rceil\bigr) \;\le\; (5m + 4)\,H\,(p + \log N)
# \quad (d = m).$$
#
# This is $O(mH(p + \log N))$ as the theorem says, but not the paper's total of at most
# $3m(p + \log N)H$ bits: step 4 alone sends $4mp$, more than $3m(p + \log N)$ as soon as
# $p \ge 3\log N$. We record the paper's constant as an erratum; the check passes in its weaker
# form (an exact protocol of $O(mH(p + \log N))$ bits, with the count above) and fails the
# paper's constant.

# %%
# a random 2-head layer of the library's attention stack (lower_bounds.random_attention), 20 partitions
thm4 = analysis.theorem_4_study(n=64, d=16, m=8, heads=2, p=48, trials=20)
print(f"largest difference protocol vs direct over {thm4['partitions']} partitions: {thm4['largest difference']}; "
      f"bits counted from the messages: {thm4['bits exchanged']} (step-by-step count {thm4['formula']:,}; the paper's "
      f"3m(p + log N)H = {thm4[checks.PAPER_BITS]:,.0f}); the input itself is {thm4['input bits']:,} bits")
thm4_sizes = analysis.theorem_4_size_table(trials=5)  # (N, d, m, H, p) at four sizes, 5 partitions each
display(table(thm4_sizes, index=False))

# %% tags=["hide-input"]
theorem_4 = checks.theorem_4(thm4, thm4_sizes)
assert theorem_4.verdict == "partly"  # exact protocol of O(mH(p + log N)) bits; the paper's constant 3 is an erratum
record(theorem_4)

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
# stacks. With Theorem 4 this gives Theorem 5. The paper states it as $3mH(p + \log N) \ge N - 1$,
# from its count for Theorem 4; with the protocol's true count (above, $d = m$) the argument
# gives $mp + H(4(m + 1)p + 2\log N) \ge N - 1$, so $(5m + 4)H(p + \log N) \ge N - 1$: the same
# linear growth in $N$, with a larger constant. The check records the paper's constant as an erratum.

# %%
ranks = analysis.dyck_rank_table(scale.pick(smoke=[4, 6], default=[4, 6, 8], paper=[4, 6, 8]))
print("Communication matrices of Dyck-(2,2)")
display(table(ranks, index=False))

# %% tags=["hide-input"]
lemma_1, theorem_5 = checks.lemma_1(ranks), checks.theorem_5(ranks, thm4)
assert lemma_1.passed and theorem_5.verdict == "partly"  # both ingredients exact; the stated constant 3 is not
record(lemma_1)
record(theorem_5)

# %% [markdown]
# (sep-thm11)=
# ## Theorem 11 and Lemma 4: an automaton for INEQ needs $2^{N/2}$ states
#
# A recurrent model whose transition does not depend on time is a finite automaton with
# $2^{mp}$ states (Lemma 4). Any automaton that computes INEQ on $\{0,1\}^N$ must tell apart every
# first half, since each is distinguished from the others by the suffix that repeats it
# (Myhill-Nerode). We count the distinct residual functions after $t = N/2$ bits.
#
# Lemma 4's step, from a recurrent model to an automaton, we run on the one exact RNN the book
# has, the Dyck RNN of {ref}`sep-dyck-rnn`: its states are the hidden vectors it reaches from
# its start state one symbol at a time, each labelled by the RNN's output on reaching it. The
# automaton must agree with the RNN on every string and, minimised, be Dyck-(2,2)'s minimal
# automaton; the RNN's state then takes at least as many values, and $mp$ bits at least $\log_2$
# of that many.

# %%
classes = analysis.residual_table(scale.pick(smoke=[4, 8], default=[4, 8, 12], paper=[4, 8, 12]))
print("Myhill-Nerode classes of INEQ")
display(table(classes, index=False))
automaton = analysis.rnn_automaton_study(max_length=scale.pick(smoke=5, default=7, paper=7))
print("Lemma 4's automaton from the Dyck RNN:", automaton)

# %% tags=["hide-input"]
theorem_11 = checks.theorem_11(classes, automaton)
assert theorem_11.passed
record(theorem_11)

# %% [markdown]
# (sep-thm12)=
# ## Theorem 12: one layer needs linear size for equality; Lemma 5: two layers escape every split
#
# We evaluate equality on every pair of halves (Alice's first half followed by Bob's second) and
# compute the rank of the resulting communication matrix: it is full, $2^{N/2}$ (Fact 2: the
# matrix is the identity), so EQ needs $N/2$ bits whichever way Alice and Bob talk. The table's
# DISJ column is the matrix of "the halves intersect", $1 - \mathrm{DISJ}$: its rank is
# $2^{N/2} - 1$, one short of full because the empty set's row is zero, and
# $\log_2(2^{N/2} - 1)$ still rounds up to $N/2$ bits (Fact 1 states full rank for DISJ itself,
# the complement with the all-ones matrix added). With Theorem 4 this bounds a one-layer
# transformer, $dp + H(4(m + 1)p + 2\log N) \ge N/2$, so $mpH = \Omega(N)$ (Theorem 12, which
# states only the order and so is unaffected by the constant of Theorem 4). A two-layer
# transformer is not bound this way. Lemma 5: for *every* balanced partition there is a 2-layer
# transformer of width $O(\log N)$ that compares Alice's positions with Bob's,
# $[x_{S_A} \ne x_{S_B}]$, which needs $N/2$ bits across that very partition; so no protocol of
# Theorem 4's kind exists for two layers (Corollary 13.1). We build Theorem 6's
# model with the pairing of random balanced partitions and check it on every input at $N = 12$.

# %%
eq_ranks = analysis.equality_rank_table((4, 6, 8, 10))
display(table(eq_ranks, index=False))
partitions = analysis.partition_table(trials=scale.pick(smoke=2, default=5, paper=5), n=12, k=48)
display(table(partitions, index=False))

# %% tags=["hide-input"]
theorem_12, lemma_5 = checks.theorem_12(eq_ranks, thm4), checks.lemma_5(partitions)
assert theorem_12.passed and lemma_5.passed
record(theorem_12)
record(lemma_5)

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
linear = analysis.linear_state_table(n=32, widths=(4, 8, 16, 24, 31, 32, 48))
display(table(linear, index=False))
display(table(analysis.fano_table(), index=False))

# %%
protocol = sweeps.result("lstm_protocol")
full, short = analysis.protocol_tables(protocol)
n_bits = protocol.config["length"]
print(f"{protocol.config['arch']} trained on binary index lookup at N = {n_bits}; Alice's message by bits per number:")
display(table(full, index=False))
print("messages shorter than N bits:")
display(table(short, index=False))

# %% tags=["hide-input"]
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

# %% tags=["hide-input"]
theorem_3 = checks.theorem_3(protocol, linear)
assert theorem_3.partly  # the bound and the linear case hold exactly; the trained LSTM may fall short of 95%
assert theorem_3.verdict == "reproduced" or protocol.scale != "default", theorem_3.verdict
record(theorem_3)

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
# This checks the reductions' protocol (any correct solver lets Bob recover Alice's input), not
# the bound on a recurrent model: that rests on the communication complexity of INDEX and DISJ,
# which the paper cites, and no recurrent solver is run here. The claim is recorded as holding in
# part.

# %%
reductions = analysis.reduction_table(n_random=scale.pick(smoke=10, default=50, paper=50))
display(table(reductions, index=False))

# %% tags=["hide-input"]
theorem_8 = checks.theorem_8(reductions)
assert theorem_8.verdict == "partly"  # the reductions run; the recurrent bound itself is cited, not computed
record(theorem_8)

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
# not what can be represented. For the one-layer transformer we invert the protocol's true count
# (one head, $d = m$): $m \ge (N - 1 - 4p - 2\log_2 N)/(5p)$; the paper's constant,
# $m \ge (N - 1)/(3(p + \log_2 N))$, is dashed for $p = 64$ (it asks for a larger width than the
# argument supports, as it undercounts the protocol's bits).

# %% tags=["hide-input"]
ns = np.logspace(1, 5, 200)
fig, axes = plt.subplots(1, 2, figsize=(10, 3.8), sharey=True)
for ax, bound, title in ((axes[0], "rnn_index", "recurrent model, index lookup (Thm 3)"),
                         (axes[1], "tf1_dyck", "1-layer transformer, Dyck-(2,2) (Thm 5)")):
    for p in (16, 32, 64):
        ax.plot(ns, [lower_bounds.implied_width(bound, n, p) for n in ns], label=f"p = {p} bits")
    if bound == "tf1_dyck":
        ax.plot(ns, [lower_bounds.implied_width("tf1_dyck_paper", n, 64) for n in ns], "--", color="0.4",
                label="p = 64, paper's constant 3")
    ax.axvspan(20, 400, color="0.85", label="lengths trained in the paper")
    ax.axhline(64, color="0.3", ls=":", lw=1, label="width 64")
    ax.set(xscale="log", yscale="log", xlabel="input length N", title=title)
axes[0].set_ylabel("smallest width allowed")
axes[1].legend(fontsize=8)
plots.stamp(fig, "The bounds of Theorems 3 and 5 evaluated as formulas (Theorem 5 with the protocol's true count); "
            "no model is run.")
plt.show()
print(f"index lookup, p = 64: width >= 128 from N = {int(128 * 64):,}; "
      f"at N = 400 the bound asks for {lower_bounds.implied_width('rnn_index', 400, 64):.1f}")
