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
# (dx-boolean)=
# # Depth extrapolation: Boolean simplification
#
# The paper opens (Sec. 2) with a case study that motivates everything after it: a decoder
# trained to simplify nested Boolean expressions does well on expressions whose simplified form
# it has seen, poorly on the others, and worse still on expressions deeper than its training
# data. This chapter builds the task exactly as the paper describes it (the generator of
# Algorithm 1, sympy's `simplify_logic` as the oracle, the 14-token vocabulary, the 128
# held-out forms), checks it against the paper's printed examples, and runs Figure 1's experiment at a
# CPU scale. It closes the part with what the three chapters found.
#
# **Scale.** The paper trains a decoder of about $10^8$ parameters ($d = 1024$, $L = h = 8$,
# context 1024) for $10^5$ steps on expressions of 5 clauses, and tests on 10,000 expressions.
# By our estimate (about $10^{18}$ floating-point operations) that is a few GPU-hours per training
# depth. The default scale here is one clause, $d = 64$,
# $L = 2$, $h = 4$, context 224, 800 steps of 16 windows on 20,000 equations per depth, five
# seeds, 250 test expressions per cell: about 4.5 minutes per training depth on a 2-core CPU,
# of which the training takes 4.3 and the greedy completions with their sympy-checked answers
# about 15 seconds (the decoder computes each position once; re-running the whole prefix for
# every token took longer than the training), so the default book loads the sweep from `data/`. The paper scale is defined in
# `lib.papers.richard2024.sweeps.boolean_simplification` but has not been run.

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
from lib.papers.richard2024 import analysis, boolean, checks, figures, remarks, sweeps
from lib.plots import table
from lib.tasks import boolean_expressions as bx

plots.use_style()
record = claims.Recorder(paper="richard2024", chapter="chapters/05_depth_extrapolation/03_boolean_simplification")

# %% [markdown]
# (dx-boolean-task)=
# ## The task: expressions, their simplified forms, and the oracle
#
# Algorithm 1 (App. 5.1.2) builds a clause of maximum depth $q$: a leaf (`true`, `false`, a
# variable $p_0 \dots p_3$ or its negation) at $q \le 0$, and otherwise two children, each of
# depth $q - 1$ or $q - 2$ at random, joined by `&` or `|`. An expression of $k$ clauses wraps
# each clause in parentheses and joins them by `&` or `|` with no parentheses at the top, which
# is how the paper's printed example is written. The target is sympy's `simplify_logic` of the
# expression, and a training sequence is `<start> LHS = RHS <end>`.
#
# With four variables there are only $2^{16}$ Boolean functions, so the library's oracle
# (`lib.tasks.boolean_expressions.simplify`) evaluates the expression's truth table
# and calls `simplify_logic` once per distinct function; the cell below checks it against
# `simplify_logic` on the parsed expression, and against the two worked examples of the paper.
# For the GPT-4 example we use the expression as GPT-4 restates it ("Original Expression"): the
# prompt as printed has 29 opening and 28 closing parentheses, and does not parse.

# %%
example, gpt4_prompt, gpt4_answer = analysis.PAPER_EXAMPLE, analysis.GPT4_PROMPT, analysis.GPT4_ANSWER
print(f"Sec. 2.1 example (k = 3, q = 3): {bx.simplify(example)}  (the paper: {analysis.PAPER_EXAMPLE_FORM})")
print(f"App. 5.1.1 expression: {bx.simplify(gpt4_prompt)}  (the paper's correct solution: {analysis.GPT4_CORRECT})")
print(f"GPT-4's answer {gpt4_answer} equivalent to it: {bx.truth_table(gpt4_answer) == bx.truth_table(gpt4_prompt)}")
checked = analysis.oracle_sample(scale.pick(smoke=20, default=150, paper=150))  # k = 1 and 5, q = 1, 3 and 6

# %% tags=["hide-input"]
data_check = checks.boolean_data(checked)
assert data_check.passed
record(data_check)

# %% [markdown]
# (dx-gpt4)=
# **GPT-4's counts.** App. 5.1.1 reports GPT-4 right 9 times in 10 with 2 clauses of depth 1 and
# never in 10 with 5 clauses of depth 3. Reproducing the counts needs GPT-4, which this book
# cannot call: the verdict is *inconclusive* (untested). What the paper's own numbers allow is
# checked: the two counts are far apart even for samples of 10, and its printed example is one
# of the hard tasks (5 clauses, nested 4 deep) with GPT-4's answer wrong.

# %% tags=["hide-input"]
gpt4 = checks.gpt4_counts(remarks.gpt4_counts())
assert gpt4.verdict == "inconclusive"  # untested; "not reproduced" if the paper's numbers disagreed
record(gpt4)

# %% [markdown]
# (dx-boolean-data)=
# ## What the data look like
#
# Depth makes expressions long but not their simplified forms: most simplify to a constant or a
# short term, whatever the depth. The table counts tokens and distinct answers in 400 samples at
# each depth, for the paper's 5 clauses and for our 1.

# %%
stats = analysis.boolean_stats(scale.pick(smoke=60, default=400, paper=400))
display(table(stats, index=False))
longest = int(stats[(stats["clauses k"] == 5)]["LHS tokens (max)"].max())
print(f"the longest 5-clause expression of depth <= 6 here has {longest} tokens (the paper's context: 1024)")

# %% [markdown]
# (dx-boolean-split)=
# ## In sample and out of sample
#
# Sec. 2.2 holds out 128 simplified forms: an expression is *out of sample* when its simplified
# form is one of them (no training equation has that answer) and *in sample* otherwise. The
# paper does not say how the 128 were drawn; we draw them uniformly from the distinct
# non-constant forms of a pool of expressions of every depth
# (`lib.tasks.boolean_expressions.held_out_forms`); with the constants among them the
# out-of-sample set would be mostly `true` and `false`. A model is right when its greedy
# answer, read up to `<end>`, is shorter than the expression and logically equivalent to the
# oracle's form (the paper checks with sympy's `equals`; we compare truth tables, the same test).
#
# Training rows are the paper's: equations concatenated into one stream, cut into windows that
# start at `<start>` and need not end at `<end>`. One difference: the loss is on the answer
# tokens only (the paper's is presumably on every token), which learns much faster at this
# budget.

# %%
bool_result = sweeps.result("boolean_simplification")
print(bool_result.label())
cfg = bool_result.config
data = boolean.make_data(k=cfg["k"], train_depths=cfg["train_depths"], test_depths=cfg["test_depths"],
                         n_train=cfg["n_train"], n_test=cfg["n_test"], n_held_out=cfg["n_held_out"],
                         pool_per_depth=cfg["pool_per_depth"])  # the sweep's own data (same seeds)
held = data["held_out"]

# %% tags=["hide-input"]
pool = [rhs for q in cfg["test_depths"] for _, rhs in bx.sample(cfg["k"], q, 2000, seed=7)]
share = np.mean([f in held for f in pool])
tokens = lambda forms: np.mean([len(bx.tokenize(f)) for f in forms])
print(f"{len(held)} held-out forms, e.g. {sorted(held, key=len)[:3]}; {share:.1%} of fresh expressions of "
      f"depth {cfg['test_depths']} are out of sample")
print(f"tokens per answer: {tokens(held):.1f} in the held-out forms, {tokens(pool):.1f} over all answers")
windows = {q: boolean.encode(pairs, cfg["context"]) for q, pairs in data["train"].items()}
first = windows[cfg["train_depths"][0]]
print(f"a training window (first 30 of {first.x.shape[1]} tokens): {' '.join(bx.VOCAB.decode(first.x[0].tolist())[:30])} ...")
print(f"loss on {int((first.y[0] >= 0).sum())} of its {first.y.shape[1]} positions (answers and <end>)")
passes = pd.Series({q: cfg["steps"] * cfg["batch_size"] / len(w.x) for q, w in windows.items()}, name="passes")
print(f"{cfg['steps']} steps of {cfg['batch_size']} windows pass over each depth's {cfg['n_train']:,} equations "
      f"this many times: {passes.round(1).to_dict()}")

# %% [markdown]
# Two consequences of these choices, stated before the results. Held-out forms drawn uniformly
# over *distinct* forms are rare and long (the line above), so out-of-sample answers are longer
# than in-sample ones, which makes them harder independently of having been seen; a draw
# weighted by frequency would hold out mostly one-literal forms instead. And with a fixed
# number of equations per depth, the shallow models see each equation many more times than the
# deep ones (the paper fixes tokens, $10^9$, rather than equations). The training depths, 1 to 6,
# are our reading of Figure 1's axis, which the text does not give.

# %% [markdown]
# (dx-figure-1)=
# ## Figure 1: in sample, out of sample, and deeper
#
# One decoder per training depth $q \in \{1, \dots, 6\}$, each tested on expressions of depth 3
# and 6, in and out of sample. The paper's Figure 1 (log scale) shows in-sample accuracy far
# above out-of-sample, the best accuracy on depth-3 tests for the model trained at depth 3 (68%
# in sample, 9% out of sample, best on both counts), and lower accuracy on depth-6 tests: out of
# sample about 1%, in sample rising as the training depth approaches 6.
# The grey line is what always answering `true` scores (about a fifth of the answers are
# `true`): a model must beat it to have simplified anything.

# %% tags=["hide-input"]
fig1 = checks.figure_1_frame(bool_result)
depths = cfg["test_depths"]
columns = [f"{where}_{q}" for q in depths for where in ("in", "out")]
shown = fig1[columns + [f"true_in_{q}" for q in depths] + ["final_loss"]]
display(table(shown.rename(columns=lambda c: c.replace("_", " at depth ").replace("true in", "'true' in"))))
figures.boolean_accuracy(fig1, bool_result)
plt.show()

# %% tags=["hide-input"]
figure1 = checks.figure_1(bool_result)
if bool_result.scale == "default":  # five seeds: the matched-depth optimum is within their spread (below)
    assert figure1.verdict == "inconclusive"
record(figure1)

# %% [markdown]
# Over five seeds per training depth (95% intervals of the seed mean, default scale), part of the
# paper's shape is decided and part is not:
#
# - **Decided, as in the paper.** In-sample accuracy is far above out-of-sample (on depth-3 tests
#   after training at depth 3: 0.36 [0.33, 0.39] against 0.07 [0.03, 0.10]); out of sample on
#   depth-6 tests stays under 1% after every training depth; in sample on depth-6 tests rises with
#   the training depth (0.13 after depth 1 to 0.37 [0.36, 0.38] after depth 6, a decided increasing
#   trend); training at depth 3 beats always-`true` (a fifth of the answers) on depth-3 tests.
# - **Not decided.** Training at depth 3 has the highest mean on depth-3 tests, in and out of
#   sample, but within the seeds' spread of its neighbours (in sample 0.36 against 0.34 [0.32, 0.36]
#   after depth 4 and 0.32 [0.29, 0.35] after depth 2; out of sample 0.07 against 0.06
#   [0.02, 0.10] after depth 2). And depth-6 tests are *not* worse in sample at our scale: their
#   best, 0.37 after training at depth 6, equals the depth-3 tests' best, 0.36 (the paper reports
#   "overall lower performance" on depth-6 tests, against 68% at depth 3).
#
# So the verdict stays *inconclusive* with five seeds where it was with one: the gaps it would
# need are smaller than the spread between seeds (at training depth 3, in sample 0.33 to 0.40,
# out of sample 0.04 to 0.11; seed 0 is the stored one-seed run, bit for bit). The
# intervals are over training seeds on one test set of 250 expressions per cell: that set's own
# sampling error (about ±0.06 at these accuracies) is shared by every seed and is not in them, so
# a claim about the task rather than about this test set would need more test expressions too.

# %% [markdown]
# (dx-part-summary)=
# ## What this part found
#
# * **Extrapolation is representable.** {ref}`dx-closed-forms` built Theorem 4.1's head, $2N + 3$
#   weights from one training word, and it completes every prefix of every depth (all 9.9 million
#   word-prefix pairs of $D_{16}$, and deep prefixes of $D_{32}$); Claim 5.3's three weights do it
#   too. Theorem 3.1's memorization bound holds as a margin bound, not as the loss bound stated.
# * **Gradient descent does not find it.** {ref}`dx-trained` trains decoders on Dyck words and
#   on the closed form's own model class: they memorize, and their extrapolation depends on width,
#   data and the depth gap (see the verdicts there, several of which differ from the paper at our
#   scale).
# * **Boolean simplification** shows the same tension on a task people care about, at our small
#   scale and over five seeds: in sample far above out of sample (on depth-3 tests after training
#   at depth 3, 36% against 7%; the paper: 68% and 9%), and on depth-6 tests out of sample below
#   1% whatever the training depth, while in sample rises with it. Only in-sample accuracy clears
#   the always-`true` baseline (a fifth of the answers), and on depth-6 tests only after training
#   at depth 4 or more. The paper's sharper points are not decided here (so the verdict is
#   *inconclusive*): depth 3 is best on depth-3 tests only within the seeds' spread, and deeper
#   tests are not worse in sample.
#
# **Where the paper's text does not add up** (stated once here; the chapters check each):
# 10^7 distinct Dyck words of depth at most 4 (Figure 3 right) do not exist in $D_{32}$, which has
# 7,174,454 ({ref}`dx-closed-forms`); if the $2^{25}$ "randomly generated words" were uniform
# draws they would hold about 32 million of depth at most 8, not 24 million; in the text we have, the training word of Figure 4 has 29 characters and is
# not balanced, and Table 1's completions have 39 characters, so only Table 1's counts are usable
# and we train on a word of our own of the same depth; Sec. 2.2's "$2^{14} \approx 1.6 \cdot 10^4$
# batches" is read as steps of $2^{14}$ tokens (16 windows of 1024), as the reading notes do; the learning rate, the decoding and the held-out draw of Sec.
# 2.2 are not stated (we use nanoGPT's rate schedule, greedy decoding and a uniform draw of
# non-constant forms). In Sec. 2 and App. 5.1: the appendix names the variables $p_1 \dots p_3$
# where Sec. 2.1 and every example use $p_0 \dots p_3$; Sec. 2.1 says a depth-0 clause is a
# variable or its negation, while Algorithm 1's leaves and the worked example include `true` and
# `false` (we follow the algorithm); the GPT-4 prompt as printed does not balance its
# parentheses; and the precedence of the unparenthesized top-level joins is not stated (sympy's
# usual `¬` over `&` over `|` is the one that gives the paper's printed simplification).
