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
# (depth-softmax)=
# # Softmax attention (Sec. 16)
#
# The {ref}`previous chapter <depth-constructions>` built every positive theorem with ReLU attention.
# Sec. 16 of {cite}`chen2024depth` extends the *impossibility* results to one softmax head (next
# chapter). Do the constructions survive if ReLU is replaced by softmax at inverse temperature
# $\beta$? The paper does not say; what follows is the course's own extension, recorded under the
# course's name. We load the same weights into a softmax model and scan $\beta$ on the whole small
# tasks. The measurements are functions of `lib.papers.chen2024.softmax_study`, the checks those of
# `lib.papers.chen2024.checks.softmax`.

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

from lib import claims, plots, scale
from lib.papers.chen2024 import checks
from lib.papers.chen2024 import constructions as build
from lib.papers.chen2024 import softmax_study as study
from lib.papers.chen2024.examples import table_1
from lib.plots import readable, table
from lib.tasks import InContextQA, InContextTemplateMatching, TemplateMatching

plots.use_style()
record = claims.Recorder(paper="chen2024", chapter="chapters/02_depth/01b_softmax")

# %%
table_sc, _ = table_1()["Memorization"]
small_qa, small_tm, small_ictm = InContextQA(5, 5, 3), TemplateMatching(5, 3), InContextTemplateMatching(3, 2, 2, 2)
cases = {"Theorem 1 (Table 1)": (build.memorization(table_sc), table_sc.enumerate()),
         "Theorem 3 (5,5,k=3)": (build.in_context_qa(small_qa), small_qa.enumerate()),
         "Theorem 5 (|X|=5, l=3)": (build.template_matching(small_tm), small_tm.enumerate()),
         "Theorem 6 (648)": (build.in_context_template_matching(small_ictm), small_ictm.enumerate())}
relu_scan = study.relu_weights_under_softmax(cases, [0.5, 1, 2, 3, 5, 10, 30, 100])  # accuracy per beta
table(relu_scan.round(3))

# %%
exact_from = study.exact_from_rows(relu_scan)
print("ReLU weights under softmax, exact for every beta >=", readable(exact_from))
assert exact_from["Theorem 1 (Table 1)"] is not None and exact_from["Theorem 3 (5,5,k=3)"] is not None
assert exact_from["Theorem 5 (|X|=5, l=3)"] is None and exact_from["Theorem 6 (648)"] is None

# %% [markdown]
# A threshold found at one size says little about another. For Theorem 1 we measure it as a
# function of the size: for every vocabulary $V \in \{2, 3, 4\}$ and length $l$ up to a few
# thousand sequences, on *all* $V^l$ sequences (the inputs that bind), the smallest $\beta$ on a
# grid of step 0.25 from which every larger one is exact, in float64. We fit it against the log
# of the number of sequences and state the fitted line plus its largest residual as the
# threshold. By its making the line holds at every size it was fitted on, so the test is on sizes
# it was not fitted on: a larger vocabulary and a longer sequence.

# %% tags=["hide-input"]
mem = study.memorization_threshold(
    [(2, l) for l in range(2, scale.pick(smoke=8, default=12, paper=12))]
    + [(3, l) for l in range(2, scale.pick(smoke=6, default=8, paper=8))] + [(4, l) for l in range(2, 6)],
    scale.pick(smoke=[(5, 3)], default=[(5, 4), (2, 12)], paper=[(5, 4), (2, 12)]),
    [round(float(b), 2) for b in np.arange(0.5, 6.01, 0.25)])
display(table(mem["table"], index=False))
table(mem["held"], index=False)

# %% tags=["hide-input"]
mem_check = checks.softmax.theorem_1_threshold(mem)
assert mem_check.passed
record(mem_check)

# %% [markdown]
# The line explains only part of the threshold's variation ($R^2$ in the claim below): it is a loose
# upper envelope, not a law, and the Table 1 value of the scan above does not carry to larger sizes.

# %% [markdown]
# Theorem 3 has no such threshold in exact arithmetic, and the reason is a symmetry. Questions
# and answers are distinct one-hot tokens in every example, attention is not causal, and layer 2
# reads only question rows, so a permutation of tokens and blocks maps any input to any other:
# the margin is the same on every input. The correct answer beats the answer of another block by
# a sum over the three positions of a block: layer 2's weight on that position in the query's
# block minus its weight on the same position in the other block, times how much more of its own
# block's answer than of the other's the position holds after layer 1. Every term is positive
# for $\beta > 0$ (at the question position the weight gap is of order $\beta/n^2$ and the content
# gap $\beta/n$; at the answer position the content gap is of order 1, the token itself, and the
# weight gap $\beta^2/n^3$), so the margin tends to $2\beta^2/n^3$ as $\beta \to 0$, and the
# construction is exact at every positive temperature. A finite dtype sets the threshold: where
# the margin falls below the rounding of the logits. That rounding depends on the order in which
# the machine's matrix kernels sum, so the float32 line below is a property of the machine that
# built this page as well as of the dtype (two CPUs we ran fitted different exponents); the
# float64 statement does not move. We measure the margin in float64 over sizes from $n = 8$ to 122,
# and the float32 threshold on a grid of step $10^{1/16}$, fit it as a power of $n$ (plus the
# largest residual), and test the line on a longer sequence it was not fitted on.

# %% tags=["hide-input"]
qa = study.qa_threshold([(5, 5, 2), (5, 5, 3), (6, 6, 4), (10, 10, 5), (10, 10, 8), (20, 20, 10), (30, 30, 20),
                         (60, 60, 40)], [(100, 100, 60)], [0.001, 0.01, 0.1, 1, 10, 100],
                        [round(10 ** e, 6) for e in np.arange(-4, 2.01, 1 / 16)],
                        scale.pick(smoke=200, default=500, paper=2000))
display(table(qa["table"].drop(columns=["questions", "answers"]), index=False))
table(qa["held"].drop(columns=["questions", "answers"]), index=False)

# %% tags=["hide-input"]
qa_check = checks.softmax.theorem_3_threshold(qa)
assert qa_check.passed
record(qa_check)

# %% [markdown]
# The copy and match steps survive normalisation: Theorem 3's weights are exact at every
# $\beta > 0$ by the argument above (float64: every $\beta$ tried, down to $10^{-3}$; float32 needs
# the $\beta$ above), and Theorem 1's once the attention is sharp enough. The
# *map* step of Theorem 5 and the subtraction of Theorem 6 do not: they rely on ReLU attention
# being an unnormalised sum with chosen magnitudes ($3^{l-1-j}$, or the number of mismatches),
# which softmax turns into an average dominated by the largest score.
#
# Theorem 5 can be repaired for softmax (`template_matching_softmax`): the parse scores depend
# only on which tokens are equal, so after layer 1 every column still holds a function of the
# template alone (now $e_i + [x_m = x_i]/c_i$, an average instead of a sum); the map layer gets
# moderate scores $(l-1-j)\log 3/4$ so that every column keeps a distinct positive weight, and
# the classifier is Lemma 3's on the resulting codes. Nothing in it depends on the tokens beyond
# their equality pattern, so one sequence per template gives every logit the task can produce:
# those are the inputs that bind. We check every template of length $l = 2$ to 8 at 49
# temperatures from $10^{-3}$ to $10^{3}$, in float64 and in float32.

# %% tags=["hide-input"]
tm = study.tm_threshold(list(range(2, scale.pick(smoke=7, default=9, paper=9))),
                        [round(10 ** e, 6) for e in np.arange(-3, 3.01, 1 / 8)])
table(tm["summary"], index=False)

# %% tags=["hide-input"]
fig, (ax_margin, ax_32) = plots.panels(2, height=2.8)
for r in tm["rows"]:
    ax_margin.loglog(tm["betas"], r["float64 margin"], label=f"l = {r['l']}")
    ax_32.semilogx(tm["betas"], r["float32 accuracy"], label=f"l = {r['l']}")
ax_margin.set(xlabel=r"inverse temperature $\beta$", ylabel="smallest logit margin (float64)",
              title="softmax Theorem 5: margin")
ax_32.set(xlabel=r"inverse temperature $\beta$", ylabel="accuracy on every template (float32)",
          title="the same weights in float32")
ax_32.legend(fontsize=7, ncol=2)
plt.show()

# %% [markdown]
# In float64 the construction is exact at every temperature and length tried, but its margin is
# small, and as $\beta$ grows it settles at a value that falls steeply with $l$ (Lemma 3's
# classifier separates ever more codes that lie ever closer; the rate is fitted below). Float32
# resolves a margin only down to about $10^{-7}$ of the logits, so there the construction is
# exact only on a window of temperatures that narrows with $l$, and the window is a property of
# the dtype. The table's last column is the ReLU construction itself in float32.

# %% tags=["hide-input"]
tm_check = checks.softmax.theorem_5_threshold(tm)
assert tm_check.passed
record(tm_check)

# %% [markdown]
# Theorem 6 needs a new mechanism, because softmax cannot subtract one template from another.
# `lib.papers.chen2024.softmax` keeps the three layers and compares templates by a score
# instead: layer 1 writes each block's equality matrix $M_b$ (columns normalised to sum 1) into
# its positions, layer 2 ($l$ heads) gathers $M_b$ into the block's answer and $M_q$ into the last
# position, and layer 3 scores each answer by $\langle M_q, M_b\rangle - \tfrac12\operatorname{tr}M_b
# = \tfrac12(\lVert M_q\rVert^2 - \lVert M_q - M_b\rVert^2)$ (the trace of $M_b$ is its squared norm,
# the number of distinct words), which is largest exactly for the block with the query's
# template, and copies that answer. Width $d + n + l + l^2$, heads 1, $l$, 1.

# %%
paper_ictm = InContextTemplateMatching(100, 100, 5, 4)
ictm_cases = {"l=2, k=2 (all 648)": (small_ictm, small_ictm.enumerate()),
              "d1=d2=100, l=5, k=4 (sample)": (paper_ictm, paper_ictm.sample(scale.pick(smoke=300, default=1000,
                                                                                        paper=10_000), seed=5))}
ictm_scan = study.ictm_softmax(ictm_cases, [1, 2, 3, 5, 10, 30, 100])
table(ictm_scan)

# %%
ictm_exact_from = study.exact_from_rows(ictm_scan)
print("softmax Theorem 6, exact for every beta >=", readable(ictm_exact_from))
assert all(v is not None for v in ictm_exact_from.values())

# %% [markdown]
# These two sizes do not fix the threshold for others. Layer 2's gather gives weight
# $(n-1)/(e^\beta + n - 1)$ to the $n-1$ positions it should ignore, so the gathered $M$ are off
# by about $(n-1)e^{-\beta}$, and that error must stay below layer 3's smallest margin (half the
# squared distance between two templates' $M$, which is 1 for every $l$ here): the threshold has
# the form $\beta \ge \ln(n-1) + c$. We measure it on inputs that bind, where the query's
# *nearest* template is one of the other blocks (`binding_examples`), for sequence lengths from
# 11 to 146, fit $c$ as the largest measured excess over $\ln(n-1)$, and then test the stated
# line where it was not fitted: a longer sequence, exact at the line and wrong one unit below.

# %% tags=["hide-input"]
ictm = study.ictm_threshold(
    [(5, 5, 2, 2), (6, 6, 3, 2), (6, 6, 3, 3), (8, 8, 4, 4), (10, 10, 5, 4)]
    + scale.pick(smoke=[], default=[(20, 20, 5, 10), (40, 40, 5, 20)], paper=[(20, 20, 5, 10), (40, 40, 5, 20)]),
    [round(float(b), 2) for b in np.arange(0.5, 8.01, 0.25)] + [9, 10, 12, 16, 32],
    scale.pick(smoke=(20, 20, 5, 10), default=(60, 60, 5, 40), paper=(80, 80, 6, 60)))
display(table(ictm["table"], index=False))
print(f"stated: softmax Theorem 6 exact for beta >= ln(n-1) + {ictm['c']:.2f} (float64, binding inputs); "
      f"held-out n = {ictm['held_n']}: accuracy at beta = {readable(ictm['held'])}")

# %% tags=["hide-input"]
ictm_check = checks.softmax.theorem_6_threshold(ictm)
assert ictm_check.passed
record(ictm_check)
constructions_check = checks.softmax.constructions(relu_scan, tm, ictm_scan, ictm)
assert constructions_check.passed
record(constructions_check)
