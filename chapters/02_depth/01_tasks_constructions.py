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
# (depth-constructions)=
# # Tasks and constructions
#
# Xingwu Chen and Difan Zou {cite}`chen2024depth` ask how many attention layers a transformer
# needs for four sequence tasks of increasing difficulty: *memorization*, *reasoning*,
# *generalization* and *contextual generalization*. Their answer: one layer memorizes, two
# reason and generalize, three generalize in context. This chapter builds their tasks and
# model, then every positive theorem as a model with explicit weights, checked on the whole
# task. The next chapter shows why one layer is not enough; the last one trains the models.

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

from lib import claims, plots, scale
from lib.constructions.weights import last_column
from lib.models import accuracy, build_model
from lib.papers.chen2024 import constructions as build
from lib.papers.chen2024 import softmax as build_softmax
from lib.papers.chen2024.examples import TABLE_1, table_1, table_1_rows
from lib.plots import attention_map, readable, table, use_style
from lib.tasks import InContextQA, InContextTemplateMatching, SequenceClassification, TemplateMatching
from lib.tasks.templates import all_templates

use_style()
record = claims.Recorder(paper="chen2024", chapter="chapters/02_depth/01_tasks_constructions")

# %% [markdown]
# (depth-tasks)=
# ## The four tasks (Sec. 4)
#
# Every sequence ends with the response sign `→` (the paper's `r`, or CLS), and the model
# classifies the last column. With $n$ the sequence length:
#
# - **Sequence classification** (memorization): $N$ distinct sequences of words, each its own
#   class.
# - **In-context question answering** (reasoning): $k$ question-answer pairs
#   $q \to a$ with distinct questions and answers, then a question from the context; the
#   target is its answer. $n = 3k + 2$. Pairings are drawn afresh for every example, so the
#   answer must be read from the context.
# - **Template matching** (generalization): a template $t \in \mathcal{W}^l$ over wildcards
#   $\alpha, \beta, \dots$; an injective substitution map $s$ turns it into words; the class is
#   the template. $n = l + 1$. We use all templates of length $l$ (the Bell number of them).
# - **In-context template matching** (contextual generalization): in-context QA in which each
#   question is a templated word sequence with its own map, and the query uses the template of
#   one context question with a fresh map. $n = (l+2)k + l + 1$.
#
# The generators reproduce the paper's Table 1 exactly:

# %%
for name, (task, batch) in table_1().items():
    print(f"{name}:")
    for line in task.render(batch, 9):
        print("   ", line)
ours_rows = table_1_rows()
table1_ok = ours_rows == TABLE_1  # all 26 examples of the four rows, token for token and target for target
assert table1_ok
record(ref="Table 1", label="depth-tasks",
       statement="worked examples of the four tasks", paper_value="the 4 rows of Table 1",
       ours=f"rendered from the generators: all {sum(map(len, TABLE_1.values()))} examples of the 4 rows identical "
            "to the printed ones", passed=table1_ok)

# %% [markdown]
# Splits test what each task claims to test. Template matching holds out substitution maps:
# test sequences come from maps never seen in training. In-context QA holds out question-answer
# pairings: a test example queries a pairing that never occurs in any training example, so it
# cannot be answered from memory.

# %%
tm = TemplateMatching(n_words=30, length=3)
tm_train, tm_test = tm.split(2000, 500, seed=0)
qa = InContextQA(n_questions=20, n_answers=20, k=3)
qa_train, qa_test = qa.split(2000, 500, seed=0)
print("template matching:", tm.render(tm_test, 3))
print("in-context QA:    ", qa.render(qa_test, 2))
print(f"templates of length 1..5: {[len(all_templates(l)) for l in range(1, 6)]} (Bell numbers)")

# %% [markdown]
# (depth-model)=
# ## The model (Sec. 3.1)
#
# Tokens are one-hot columns; the input is $H^{(0)} = [X; P; 0] \in \mathbb{R}^{d' \times n}$ with
# one-hot positions $P = I_n$ (eq. 3). Each layer is attention-only with ReLU attention, heads
# averaged and a residual connection,
#
# $$ H^{(l+1)} = H^{(l)} + \frac1m \sum_{i=1}^m W_{V_i} H^{(l)}\, \sigma\!\big((H^{(l)})^\top W_{QK_i} H^{(l)}\big), \qquad \sigma = \mathrm{ReLU}, $$
#
# and the classifier reads the last column, $o = W_O h^{(L)}_{n-1}$. In the library this is one
# configuration of the shared model, `lib.papers.chen2024.constructions.paper_config`. The library is
# row-major, so every matrix below is the transpose of the paper's.

# %%
config = build.paper_config(qa, n_layers=2, n_heads=1)
print(config)

# %% [markdown]
# (depth-blocks)=
# ## Building blocks (Sec. 10)
#
# Every construction is made of a few one-layer operations:
#
# - **copy** (instructive attention, Lemma 1): with $W_{QK}$ non-zero only on the positional block,
#   the scores are $P^\top W_{pp} P = W_{pp}$ whatever the tokens: any fixed non-negative pattern.
# - **mask** (constrained attention, Lemma 2): a large negative positional entry zeroes a pair
#   under ReLU.
# - **match** (an induction head): $W_{QK}$ is the identity on some token rows; a column attends to
#   the columns that share those rows.
# - **parse**: match on all token rows; each column learns which positions repeat its token.
# - **map**: instructive weights that write a sequence-level code into the last column.
#
# Lemma 1 checked: a random non-negative pattern is reproduced exactly for random inputs.

# %%
n, d = qa.seq_len, len(qa.vocab)
alpha = torch.rand(n, n, generator=torch.Generator().manual_seed(0), dtype=torch.float64)
copy_layer = build_model(build.paper_config(qa, 1, 1), dtype=torch.float64)
W = torch.zeros(1, d + n, d + n, dtype=torch.float64)
W[0, d:, d:] = alpha
copy_layer.set_weights({"layers.0.attn.W_QK": W})
cache = {}
copy_layer(qa.sample(5, seed=1).x, cache=cache)
assert torch.allclose(cache["layers.0.attn.pattern"][:, 0], alpha.expand(5, n, n))
print("Lemma 1: the attention pattern equals the chosen alpha on 5 random inputs")

# Lemma 2: a token-matching layer (identity on the token rows) with a large negative positional
# entry on chosen pairs: those pairs get no attention, every other pair keeps its matching score.
masked = torch.rand(n, n, generator=torch.Generator().manual_seed(1)) < 0.3
match = torch.zeros(1, d + n, d + n, dtype=torch.float64)
match[0, :d, :d] = torch.eye(d, dtype=torch.float64)
constrained = match.clone()
constrained[0, d:, d:] = -1e3 * masked.double()
inputs = qa.sample(5, seed=2).x
patterns = {}
for name, weights in (("match", match), ("constrained", constrained)):
    cache = {}
    copy_layer.set_weights({"layers.0.attn.W_QK": weights})(inputs, cache=cache)
    patterns[name] = cache["layers.0.attn.pattern"][:, 0]
lemma_2 = bool((patterns["constrained"][:, masked] == 0).all()
               and torch.equal(patterns["constrained"][:, ~masked], patterns["match"][:, ~masked]))
print(f"Lemma 2: {int(masked.sum())} masked pairs get no attention, the other {int((~masked).sum())} keep theirs:",
      lemma_2)
assert lemma_2
record(ref="Lemmas 1-2", label="depth-blocks",
       statement="positional weights alone give any fixed non-negative attention map (instructive attention) "
                 "and mask any chosen pairs (constrained attention)",
       paper_value="exact (proof)", ours=f"random alpha reproduced to float64; {int(masked.sum())} masked pairs at 0, "
       "the rest unchanged, on random in-context QA inputs", passed=lemma_2)

# %% [markdown]
# (depth-thm1)=
# ## Theorem 1: one layer memorizes
#
# ```{prf:theorem} 1 (Chen & Zou)
# :label: cz-thm-1
# :nonumber:
#
# For any sequence-classification dataset with token dimension $d$ and length $n$ (CLS
# included) there is a one-layer transformer with $n$ heads and $d' = \max\{nd, d+n\}$ that
# classifies every example correctly.
# ```
#
# The construction (Lemma 4): head $i < n-1$ makes the last column attend to position $i$ only and
# copies its token into block $i$ of the last column; head $n-1$ makes every column attend to
# itself and subtracts it, cancelling the residual. The last column becomes
# $[x_0; \dots; x_{n-2}; 0]$: distinct sequences give distinct vectors of equal norm, and the
# classifier $W_O$ with rows $v_y/\lVert v_y \rVert$ (the simplest form of Lemma 3) separates them.

# %%
table_sc, _ = table_1()["Memorization"]
acc_table = accuracy(build.memorization(table_sc), table_sc.enumerate())
sc = SequenceClassification(n_words=scale.pick(smoke=20, default=50, paper=500), length=6,
                            n_examples=scale.pick(smoke=200, default=1000, paper=2000))
sc_model = build.memorization(sc)
acc_sc = accuracy(sc_model, sc.enumerate())
print(f"Table 1 (9 sequences): {acc_table:.0%};  V={sc.n_words}, n={sc.seq_len}, N={sc.n_examples}, "
      f"d'={sc_model.config.d_model}, {sc_model.config.heads[0]} heads: {acc_sc:.2%}")
h = last_column(sc_model, sc.enumerate().x[:3])
print("last column of one example, token blocks:",
      [sc.vocab.tokens[int(h[0, i * len(sc.vocab):(i + 1) * len(sc.vocab)].argmax())] for i in range(sc.length)],
      "<- the sequence", sc.vocab.decode(sc.enumerate().x[0]))


def largest_cosine(model, x) -> float:
    """The largest |cos| between the last columns of two different sequences (Lemma 4: below 1)."""
    codes = last_column(model, x).double()
    codes = codes / codes.norm(dim=1, keepdim=True)
    return float((codes @ codes.T - torch.eye(len(codes), dtype=torch.float64)).abs().max())


# random sequences rarely differ in one position only, the pairs that bind (cos (l-1)/l), so the
# check also takes every one of the 3^5 sequences of a small vocabulary
every = SequenceClassification(n_words=3, length=5, n_examples=3 ** 5)
every_model = build.memorization(every)
largest_cos, largest_cos_every = largest_cosine(sc_model, sc.enumerate().x), largest_cosine(every_model, every.enumerate().x)
acc_every = accuracy(every_model, every.enumerate())
print(f"Lemma 4: the {sc.n_examples} last columns are pairwise non-parallel (largest |cos| {largest_cos:.3f}); on all "
      f"{every.n_examples} sequences of V=3, l=5, largest |cos| {largest_cos_every:.3f} (one position apart: "
      f"{(every.length - 1) / every.length:.3f}); Lemma 3: the linear read-out separates them ({acc_sc:.0%}, {acc_every:.0%})")
lemmas_3_4_ok = largest_cos < 1 - 1e-9 and largest_cos_every < 1 - 1e-9 and acc_sc == 1.0 and acc_every == 1.0
assert acc_table == 1.0 and lemmas_3_4_ok
record(ref="Lemmas 3-4", label="depth-thm1",
       statement="the one-layer construction maps distinct sequences to pairwise non-parallel vectors (Lemma 4), "
                 "which a linear map separates by arg-max (Lemma 3)",
       paper_value="exact (proof)", ours=f"N={sc.n_examples}: largest |cos| {largest_cos:.3f}; all {every.n_examples} "
       f"sequences of V=3, l=5: largest |cos| {largest_cos_every:.3f}; arg-max accuracy {acc_sc:.0%} and {acc_every:.0%}",
       passed=lemmas_3_4_ok)
record(ref="Theorem 1", label="depth-thm1",
       statement="1 layer, n heads, d'=max(nd, d+n) memorizes any sequence-classification set",
       paper_value="100%", ours=f"{acc_sc:.0%} on N={sc.n_examples} (V={sc.n_words}), 100% on Table 1",
       passed=acc_table == 1.0 and acc_sc == 1.0)

# %% [markdown]
# (depth-thm3)=
# ## Theorem 3: two layers reason (copy, then match)
#
# ```{prf:theorem} 3 (Chen & Zou)
# :label: cz-thm-3
# :nonumber:
#
# For in-context question answering with $k$ pairs ($n = 3k+2$) there is a two-layer transformer
# with one head and $d' = d + n$ that answers every example correctly.
# ```
#
# Layer 1 *copies* within each question-sign-answer block (positional pattern
# $\mathrm{blockdiag}(1 - I_3, \dots, 1 - I_2)$), so every column holds its block's question and
# answer. Layer 2 is an induction head that *matches* on the question rows: the last column
# attends to the block holding the query question and collects its answer, $3 a_c$ in the answer
# rows. We check every one of the 10,800 examples with 5 questions, 5 answers and $k = 3$, and a
# sample at the paper's size ($n_q = n_a = 100$).

# %%
small_qa = InContextQA(5, 5, 3)
acc_qa_all = accuracy(build.in_context_qa(small_qa), small_qa.enumerate())
paper_qa = InContextQA(100, 100, 4)
acc_qa_paper = accuracy(build.in_context_qa(paper_qa), paper_qa.sample(scale.pick(smoke=500, default=2000, paper=10000), seed=0))
print(f"all {len(small_qa.enumerate())} examples: {acc_qa_all:.2%};  n_q=n_a=100, k=4 sample: {acc_qa_paper:.2%}")
assert acc_qa_all == 1.0 and acc_qa_paper == 1.0
record(ref="Theorem 3", label="depth-thm3",
       statement="2 layers, 1 head, d'=d+n solve every in-context QA example (copy -> match)",
       paper_value="100%", ours=f"{acc_qa_all:.0%} of 10,800 (5,5,k=3); {acc_qa_paper:.0%} at n_q=n_a=100",
       passed=acc_qa_all == 1.0 and acc_qa_paper == 1.0)

# %% [markdown]
# The two layers at work on `a → 1 b → 2 a →`: layer 1 copies inside blocks, layer 2 matches the
# query question with its block.

# %%
toy_task, toy_batch = table_1()["Reasoning"]
toy_model = build.in_context_qa(toy_task)
cache = {}
toy_model(toy_batch.x[:1], cache=cache)
fig, axes = plots.panels(2, height=3.1)
tokens = toy_task.vocab.decode(toy_batch.x[0])
for layer, ax in enumerate(axes):
    attention_map(cache[f"layers.{layer}.attn.pattern"][0, 0], tokens=tokens, ax=ax,
                  title=f"constructed layer {layer + 1}")
plt.show()

# %% [markdown]
# (depth-thm5)=
# ## Theorem 5: two layers generalize (parse, then map)
#
# ```{prf:theorem} 5 (Chen & Zou)
# :label: cz-thm-5
# :nonumber:
#
# For template matching with templates of length $l$ ($n = l + 1$) there is a two-layer
# transformer with one head and $d' = d + n$ that classifies every sequence by its template.
# ```
#
# Layer 1 *parses*: equal tokens attend to each other, and the value negates the token rows and
# copies the positional rows, so column $i$ holds column $i$ of the template matrix
# $T = I + [x_m = x_i]$, which depends only on the template. Layer 2 *maps*: the last column sums
# the columns $j < l$ with weights $\propto 3^{l-1-j}$, writing each row of $T$ as a base-3 number.
# Distinct templates give distinct codes. (The paper's second $W_V$ term puts $I_n$ in the word
# columns; it must be the positional ones.)

# %%
accs_tm = {}
for n_words, length in [(3, 2), (5, 3), (7, 5)]:
    task = TemplateMatching(n_words, length)
    accs_tm[(n_words, length)] = accuracy(build.template_matching(task), task.enumerate())
paper_tm = TemplateMatching(210, 3)
acc_tm_paper = accuracy(build.template_matching(paper_tm), paper_tm.sample(scale.pick(smoke=500, default=2000, paper=10000), seed=0))
for (v, l), a in accs_tm.items():
    print(f"all {v}^{l} = {v ** l} sequences, {len(all_templates(l))} templates: {a:.2%}")
print(f"|X| = 210, l = 3, random sample: {acc_tm_paper:.2%}")
tm_ok = all(a == 1.0 for a in accs_tm.values()) and acc_tm_paper == 1.0
assert tm_ok
record(ref="Theorem 5", label="depth-thm5",
       statement="2 layers, 1 head, d'=d+n solve template matching (parse -> map)", paper_value="100%",
       ours=f"100% of all 16,807 sequences (|X|=7, l=5, 52 templates); {acc_tm_paper:.0%} at |X|=210",
       passed=tm_ok)

# %% [markdown]
# The template matrix of the paper's worked example `b d b a →` sits in the positional rows after
# layer 1 (rows: positions, columns: the first four tokens):

# %%
ex_task = TemplateMatching(n_words=4, length=4)
example = ex_task.vocab.encode(["b", "d", "b", "a", "→"])[None]
cache = {}
build.template_matching(ex_task)(example, cache=cache)
T = cache["layers.0.resid_post"][0, :4, len(ex_task.vocab):len(ex_task.vocab) + 4].T
print(T.round().int())
assert torch.equal(T.round().int(), torch.tensor([[2, 0, 1, 0], [0, 2, 0, 0], [1, 0, 2, 0], [0, 0, 0, 2]],
                                                  dtype=torch.int32))

# %% [markdown]
# (depth-thm6)=
# ## Theorem 6: three layers generalize in context
#
# ```{prf:theorem} 6 (Chen & Zou)
# :label: cz-thm-6
# :nonumber:
#
# For in-context template matching with templates of length $l$ and $k$ examples
# ($n = k(l+2) + l + 1$) there is a three-layer transformer with $2l$ heads and
# $d' = d + n + l + 2$ that answers every example correctly.
# ```
#
# The idea is parse, copy, match: layer 1 parses each question into its template matrix (in
# $l+2$ extra rows), layer 2 copies each answer into its question's columns and subtracts the
# query's template column from every question's, and layer 3's $2l$ heads make the last column
# subtract every block whose template differs from the query's somewhere.
#
# **The paper's matrices do not work as written.** Its layer 2 leaves the query's template rows
# in the last column, so in layer 3 the last column scores positively on *itself* and subtracts its
# own sum of answers; its layer-1 $W_{QK}$ also carries a stray rectangular identity. Our version
# keeps the depth, the head count ($1, 1, 2l$) and the width, and changes the routing: the last
# column keeps zero template rows and is only ever a destination of the subtraction (its sign row
# is the query of layer 3's scores). Details are in the docstring of
# `lib.papers.chen2024.constructions.in_context_template_matching`.

# %%
small_ictm = InContextTemplateMatching(3, 2, 2, 2)
acc_ictm_all = accuracy(build.in_context_template_matching(small_ictm), small_ictm.enumerate())
paper_ictm = InContextTemplateMatching(100, 100, 5, 4)
acc_ictm_paper = accuracy(build.in_context_template_matching(paper_ictm),
                          paper_ictm.sample(scale.pick(smoke=200, default=1000, paper=5000), seed=0))
print(f"all {len(small_ictm.enumerate())} examples (3 words, 2 answers, l=2, k=2): {acc_ictm_all:.2%}")
print(f"d1=d2=100, l=5, k=4 (n={paper_ictm.seq_len}, d'={build.paper_config(paper_ictm, 3, (1, 1, 10), 7).d_model}): "
      f"{acc_ictm_paper:.2%}")
assert acc_ictm_all == 1.0 and acc_ictm_paper == 1.0
record(ref="Theorem 6", label="depth-thm6",
       statement="3 layers, 2l heads, d'=d+n+l+2 solve in-context template matching",
       paper_value="100% (construction as printed fails)",
       ours=f"{acc_ictm_all:.0%} of 648; {acc_ictm_paper:.0%} at d1=d2=100, l=5, k=4 (corrected construction)",
       passed=acc_ictm_all == 1.0 and acc_ictm_paper == 1.0,
       note="the paper's layer-2/3 matrices subtract the last column from itself; corrected routing")

# %% [markdown]
# The printed construction, loaded as literally as it parses (`lib.papers.chen2024.printed`:
# the layer-1 typo left out, and the answers-to-last-column route of the paper's illustration
# added so that it has a chance), fails on every size where some answer is absent from the
# context. It scores 100% only when every answer appears in the context (as in the small task
# above, 3 words and 2 answers with $k = 2$): then subtracting the same sum from every answer
# shifts all logits alike.

# %%
from lib.papers.chen2024.printed import in_context_template_matching_as_printed

printed_sizes = [(3, 2, 2, 2), (3, 3, 2, 2), (4, 4, 3, 3), (100, 100, 5, 4)]
printed_rows = []
for size in printed_sizes:
    task = InContextTemplateMatching(*size)
    data = task.sample(scale.pick(smoke=300, default=1000, paper=5000), seed=2)
    printed_rows.append({"(d1, d2, l, k)": size, "every answer in context": size[1] == size[3],
                         "as printed": accuracy(in_context_template_matching_as_printed(task), data),
                         "corrected": accuracy(build.in_context_template_matching(task), data)})
printed_table = pd.DataFrame(printed_rows)
display(table(printed_table, index=False))
absent = printed_table[~printed_table["every answer in context"]]
printed_fails = bool((absent["as printed"] < 0.6).all() and (printed_table["corrected"] == 1.0).all())
assert printed_fails
record(ref="Theorem 6 (Sec. 15 matrices as printed)", label="depth-thm6",
       statement="the printed three-layer matrices solve in-context template matching",
       paper_value="100%",
       ours="; ".join(f"{r['as printed']:.1%} at {r['(d1, d2, l, k)']}" for r in printed_rows)
            + " (corrected: 100% at each)",
       passed=not printed_fails,
       note="read literally (layer-1 typo left out, the illustrated answers-to-last route added): the last column "
            "subtracts itself; exact only when every answer is in the context")

# %% [markdown]
# (depth-softmax)=
# ## Softmax attention (Sec. 16)
#
# Sec. 16 extends the *impossibility* results to one softmax head (next chapter). Do the
# constructions survive if ReLU is replaced by softmax at inverse temperature $\beta$? We load the
# same weights into a softmax model and scan $\beta$ on the whole small tasks.

# %%
betas = [0.5, 1, 2, 3, 5, 10, 30, 100]
cases = {"Theorem 1 (Table 1)": (build.memorization(table_sc), table_sc.enumerate()),
         "Theorem 3 (5,5,k=3)": (build.in_context_qa(small_qa), small_qa.enumerate()),
         "Theorem 5 (|X|=5, l=3)": (build.template_matching(TemplateMatching(5, 3)), TemplateMatching(5, 3).enumerate()),
         "Theorem 6 (648)": (build.in_context_template_matching(small_ictm), small_ictm.enumerate())}
softmax_acc = {name: [accuracy(build_softmax.with_attention(m, "softmax", b), data) for b in betas]
               for name, (m, data) in cases.items()}
display_table = pd.DataFrame(softmax_acc, index=pd.Index(betas, name="beta")).T.round(3)
table(display_table)

# %%
exact_from = {name: build_softmax.exact_from(betas, accs) for name, accs in softmax_acc.items()}
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

# %%
threshold_sizes = [(2, l) for l in range(2, scale.pick(smoke=8, default=12, paper=12))] + \
                  [(3, l) for l in range(2, scale.pick(smoke=6, default=8, paper=8))] + [(4, l) for l in range(2, 6)]
threshold_betas = [round(float(b), 2) for b in np.arange(0.5, 6.01, 0.25)]
thresholds = pd.DataFrame(build_softmax.memorization_thresholds(threshold_sizes, threshold_betas))
slope, intercept, envelope = build_softmax.upper_line(np.log(thresholds["sequences"]), thresholds["threshold"])
fitted = intercept + slope * np.log(thresholds["sequences"])
fit_r2 = float(1 - ((thresholds["threshold"] - fitted) ** 2).sum()
               / ((thresholds["threshold"] - thresholds["threshold"].mean()) ** 2).sum())
thresholds["stated threshold"] = fitted + envelope
table(thresholds, index=False)

# %%
held_sizes = scale.pick(smoke=[(5, 3)], default=[(5, 4), (2, 12)], paper=[(5, 4), (2, 12)])
held_thresholds = pd.DataFrame(build_softmax.memorization_thresholds(held_sizes, threshold_betas))
held_thresholds["stated threshold"] = intercept + envelope + slope * np.log(held_thresholds["sequences"])
display(table(held_thresholds, index=False))
stated_ok = bool(held_thresholds["threshold"].notna().all()
                 and (held_thresholds["threshold"] <= held_thresholds["stated threshold"] + 1e-9).all())
print(f"Theorem 1 under softmax is exact for beta >= {intercept + envelope:.2f} + {slope:.2f} ln(V^l) on every size "
      f"measured (float64); the measured threshold ranges from {thresholds['threshold'].min():.2f} to "
      f"{thresholds['threshold'].max():.2f} (the line explains R^2 = {fit_r2:.2f} of its variation: a loose "
      f"upper envelope, not a law); held out, it holds at {', '.join(f'V={V}, l={l}' for V, l in held_sizes)}: "
      f"{'yes' if stated_ok else 'no'}; the Table 1 value above ({exact_from['Theorem 1 (Table 1)']}) does not "
      "carry to larger sizes")
assert stated_ok and slope > 0
record(ref="Sec. 16 (softmax Theorem 1 threshold)", label="depth-softmax",
       statement="Theorem 1's weights under softmax are exact above a temperature threshold that grows with the "
                 "number of sequences", paper_value="not claimed",
       ours=f"beta >= {intercept + envelope:.2f} + {slope:.2f} ln(V^l) exact on all V^l sequences for "
            f"{len(thresholds)} sizes (V = 2-4, up to {thresholds['sequences'].max()} sequences, float64); measured "
            f"{thresholds['threshold'].min():.2f}-{thresholds['threshold'].max():.2f} (fit R^2 {fit_r2:.2f}); on "
            "held-out sizes " + ", ".join(f"V={r['V']}, l={r['l']}: measured {r['threshold']} vs stated "
                                          f"{r['stated threshold']:.2f}" for r in held_thresholds.to_dict("records")),
       passed=stated_ok and slope > 0, paper="course")

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

# %%
qa_sizes = [(5, 5, 2), (5, 5, 3), (6, 6, 4), (10, 10, 5), (10, 10, 8), (20, 20, 10), (30, 30, 20), (60, 60, 40)]
qa_betas = [0.001, 0.01, 0.1, 1, 10, 100]
qa_grid32 = [round(10 ** e, 6) for e in np.arange(-4, 2.01, 1 / 16)]
qa_examples = scale.pick(smoke=200, default=500, paper=2000)
qa_thresholds = pd.DataFrame(build_softmax.in_context_qa_thresholds(qa_sizes, qa_betas, qa_grid32, qa_examples))
assert qa_thresholds["float32 threshold"].notna().all()  # float32 exact at the grid's top at every size
qa_power, qa_log_a, qa_envelope = build_softmax.upper_line(np.log(qa_thresholds["n"]),
                                                            np.log(qa_thresholds["float32 threshold"].astype(float)))
qa_a = float(np.exp(qa_log_a + qa_envelope))
qa_thresholds["2/n^3"] = 2.0 / qa_thresholds["n"] ** 3
qa_thresholds["stated float32 threshold"] = qa_a * qa_thresholds["n"] ** qa_power
table(qa_thresholds.drop(columns=["questions", "answers"]), index=False)

# %%
qa_held = pd.DataFrame(build_softmax.in_context_qa_thresholds([(100, 100, 60)], qa_betas, qa_grid32, qa_examples))
qa_held["2/n^3"] = 2.0 / qa_held["n"] ** 3
qa_held["stated float32 threshold"] = qa_a * qa_held["n"] ** qa_power
display(table(qa_held.drop(columns=["questions", "answers"]), index=False))
qa_all = pd.concat([qa_thresholds, qa_held])
qa_law = (qa_all["margin / beta^2 at 0.001"] / qa_all["2/n^3"] - 1).abs().max()
qa_same_everywhere = float(qa_all["relative margin spread"].max())
qa_held_row = qa_held.iloc[0]
qa_threshold_ok = bool(qa_all["float64 exact at every beta"].all() and qa_law < 0.01 and qa_same_everywhere < 1e-3
                       and qa_held_row["stated float32 threshold"] / 4 <= qa_held_row["float32 threshold"]
                       <= qa_held_row["stated float32 threshold"])
print(f"Theorem 3 under softmax, float64: exact at every beta in {qa_betas} at all {len(qa_all)} sizes; the margin is "
      f"near 2 beta^2 / n^3 at small beta (within {qa_law:.2%} at beta = 0.001) and the same on every input (spread at most "
      f"{qa_same_everywhere:.0e} of the margin, the rounding of float64). float32: exact for beta >= {qa_a:.2e} n^{qa_power:.2f}; held out at "
      f"n = {qa_held_row['n']}: measured {qa_held_row['float32 threshold']:.3f}, stated "
      f"{qa_held_row['stated float32 threshold']:.3f}")
assert qa_threshold_ok
record(ref="Sec. 16 (softmax Theorem 3 threshold)", label="depth-softmax",
       statement="Theorem 3's weights under softmax are exact at every beta > 0 (the margin is the same on every "
                 "input and tends to 2 beta^2/n^3 as beta -> 0); the threshold is the dtype's",
       paper_value="not claimed",
       ours=f"float64: exact at beta = 0.001-100 for n = {qa_all['n'].min()}-{qa_all['n'].max()} ({len(qa_all)} sizes, "
            f"{qa_examples} inputs each), margin/beta^2 within {qa_law:.2%} of 2/n^3 at beta = 0.001; float32: exact "
            f"for beta >= {qa_a:.2e} n^{qa_power:.2f} (fitted on n = 8-122; held out at n = {qa_held_row['n']}: "
            f"measured {qa_held_row['float32 threshold']:.3f} vs stated {qa_held_row['stated float32 threshold']:.3f})",
       passed=qa_threshold_ok, paper="course")

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

# %%
tm_lengths = list(range(2, scale.pick(smoke=7, default=9, paper=9)))
tm_betas = [round(10 ** e, 6) for e in np.arange(-3, 3.01, 1 / 8)]
tm_rows = build_softmax.template_matching_thresholds(tm_lengths, tm_betas)
tm_summary = pd.DataFrame([{
    "l": r["l"], "templates": r["templates"], "smallest float64 margin": min(r["float64 margin"]),
    "float64 margin at beta = 1000": r["float64 margin"][-1],
    "float32 exact from": build_softmax.exact_window(tm_betas, r["float32 accuracy"])[0],
    "float32 exact up to": build_softmax.exact_window(tm_betas, r["float32 accuracy"])[1],
    "ReLU construction, float32": r["ReLU construction, float32 accuracy"]} for r in tm_rows])
table(tm_summary, index=False)

# %%
fig, (ax_margin, ax_32) = plots.panels(2, height=2.8)
for r in tm_rows:
    ax_margin.loglog(tm_betas, r["float64 margin"], label=f"l = {r['l']}")
    ax_32.semilogx(tm_betas, r["float32 accuracy"], label=f"l = {r['l']}")
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

# %%
tm_large = tm_summary[tm_summary["l"] >= 3]
tm_decade, _ = np.polyfit(tm_large["l"], np.log10(tm_large["float64 margin at beta = 1000"]), 1)
tm_soft_ok = bool((tm_summary["smallest float64 margin"] > 0).all())
tm_window_ok = bool(tm_summary["float32 exact from"].notna().all()
                    and tm_summary["float32 exact from"].is_monotonic_increasing
                    and tm_summary["float32 exact up to"].is_monotonic_decreasing
                    and tm_summary["float32 exact up to"].iloc[-1] < tm_betas[-1] / 10)
tm_last = tm_summary.to_dict("records")[-1]
print(f"softmax Theorem 5, float64: exact at every beta in [0.001, 1000] for l = 2-{tm_lengths[-1]}; the margin at "
      f"large beta falls 10^{tm_decade:.2f} per unit of l. float32: exact on a window that narrows with l, from "
      f"[{tm_summary['float32 exact from'].iloc[0]:.2g}, {tm_summary['float32 exact up to'].iloc[0]:.3g}] at l = 2 to "
      f"[{tm_last['float32 exact from']:.2g}, {tm_last['float32 exact up to']:.3g}] at l = {tm_last['l']}; the ReLU "
      "construction in float32 is below 100% at l = "
      + (", ".join(str(r["l"]) for r in tm_summary.to_dict("records") if r["ReLU construction, float32"] < 1) or "none"))
assert tm_soft_ok and tm_window_ok and tm_decade < -0.5
record(ref="Sec. 16 (softmax Theorem 5 threshold)", label="depth-softmax",
       statement="our softmax Theorem 5 is exact in float64 at every temperature tried; its margin falls with the "
                 "template length, so float32 holds it only on a window of temperatures that narrows with l",
       paper_value="not claimed",
       ours=f"float64: exact on every template at all 49 beta in [0.001, 1000] for l = 2-{tm_lengths[-1]} "
            f"(up to {tm_summary['templates'].max()} templates), large-beta margin x10^{tm_decade:.2f} per unit of l "
            f"({tm_summary['float64 margin at beta = 1000'].iloc[0]:.1e} at l = 2, "
            f"{tm_last['float64 margin at beta = 1000']:.1e} at l = {tm_last['l']}); float32 window "
            + ", ".join(f"l={r['l']}: [{r['float32 exact from']:.2g}, {r['float32 exact up to']:.3g}]"
                        for r in tm_summary.to_dict("records")),
       passed=tm_soft_ok and tm_window_ok and tm_decade < -0.5, paper="course")

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
soft_betas = [1, 2, 3, 5, 10, 30, 100]
ictm_soft = {"l=2, k=2 (all 648)": (small_ictm, small_ictm.enumerate()),
             "d1=d2=100, l=5, k=4 (sample)": (paper_ictm, paper_ictm.sample(scale.pick(smoke=300, default=1000,
                                                                                       paper=10_000), seed=5))}
ictm_soft_acc = {name: [accuracy(build_softmax.in_context_template_matching_softmax(t, b), data)
                        for b in soft_betas] for name, (t, data) in ictm_soft.items()}
table(pd.DataFrame(ictm_soft_acc, index=pd.Index(soft_betas, name="beta")).T)

# %%
ictm_exact_from = {name: build_softmax.exact_from(soft_betas, accs) for name, accs in ictm_soft_acc.items()}
print("softmax Theorem 6, exact for every beta >=", readable(ictm_exact_from))
ictm_soft_ok = all(v is not None for v in ictm_exact_from.values())
assert ictm_soft_ok

# %% [markdown]
# These two sizes do not fix the threshold for others. Layer 2's gather gives weight
# $(n-1)/(e^\beta + n - 1)$ to the $n-1$ positions it should ignore, so the gathered $M$ are off
# by about $(n-1)e^{-\beta}$, and that error must stay below layer 3's smallest margin (half the
# squared distance between two templates' $M$, which is 1 for every $l$ here): the threshold has
# the form $\beta \ge \ln(n-1) + c$. We measure it on inputs that bind, where the query's
# *nearest* template is one of the other blocks (`binding_examples`), for sequence lengths from
# 11 to 146, fit $c$ as the largest measured excess over $\ln(n-1)$, and then test the stated
# line where it was not fitted: a longer sequence, exact at the line and wrong one unit below.

# %%
ictm_sizes = [(5, 5, 2, 2), (6, 6, 3, 2), (6, 6, 3, 3), (8, 8, 4, 4), (10, 10, 5, 4)] + \
    scale.pick(smoke=[], default=[(20, 20, 5, 10), (40, 40, 5, 20)], paper=[(20, 20, 5, 10), (40, 40, 5, 20)])
ictm_grid = [round(float(b), 2) for b in np.arange(0.5, 8.01, 0.25)] + [9, 10, 12, 16, 32]
ictm_thresholds = pd.DataFrame(build_softmax.in_context_template_matching_thresholds(ictm_sizes, ictm_grid))
ictm_c = float((ictm_thresholds["threshold"] - np.log(ictm_thresholds["n"] - 1)).max())
ictm_thresholds["stated threshold"] = np.log(ictm_thresholds["n"] - 1) + ictm_c
table(ictm_thresholds, index=False)

# %%
held_size = scale.pick(smoke=(20, 20, 5, 10), default=(60, 60, 5, 40), paper=(80, 80, 6, 60))
held_task = InContextTemplateMatching(*held_size)
held_data, _ = build_softmax.binding_examples(held_task, 100, seed=1)
held_line = float(np.log(held_task.seq_len - 1)) + ictm_c
held_acc = {round(b, 2): accuracy(build_softmax.in_context_template_matching_softmax(held_task, b), held_data)
            for b in (held_line - 1, held_line, held_line + 1, 2 * held_line)}
print(f"stated: softmax Theorem 6 exact for beta >= ln(n-1) + {ictm_c:.2f} (float64, binding inputs); "
      f"held-out n = {held_task.seq_len}: accuracy at beta = {readable(held_acc)}")
ictm_line_ok = bool(ictm_thresholds["threshold"].notna().all()) and \
    list(held_acc.values())[1:] == [1.0, 1.0, 1.0] and list(held_acc.values())[0] < 1.0
assert ictm_line_ok
record(ref="Sec. 16 (softmax Theorem 6 threshold)", label="depth-softmax",
       statement="our softmax Theorem 6 is exact above a temperature threshold that grows like the log of the "
                 "sequence length", paper_value="not claimed",
       ours=f"beta >= ln(n-1) + {ictm_c:.2f} (float64) fitted on binding inputs at n = "
            f"{ictm_thresholds['n'].min()}-{ictm_thresholds['n'].max()} (measured thresholds "
            f"{ictm_thresholds['threshold'].min():.2f}-{ictm_thresholds['threshold'].max():.2f}); at held-out "
            f"n = {held_task.seq_len}: exact at the line, the line + 1 and twice it, "
            f"{list(held_acc.values())[0]:.0%} one unit below",
       passed=ictm_line_ok, paper="course")
record(ref="Sec. 16 (softmax constructions)", label="depth-softmax",
       statement="the constructions also work with softmax attention (our extension; the paper's Sec. 16 "
                 "covers only the impossibility side)",
       paper_value="not claimed",
       ours=f"Thm 1 exact for beta>={exact_from['Theorem 1 (Table 1)']} on Table 1 (other sizes: the threshold "
            f"claim above), Thm 3 for beta>="
            f"{exact_from['Theorem 3 (5,5,k=3)']} on this scan at (5,5,k=3) (in fact every beta > 0: the Thm 3 "
            "threshold claim above); Thm 5 with a softmax map layer at every beta in "
            f"[0.001, 1000] in float64 (float32: a window that narrows with l, the Thm 5 threshold claim above); Thm 6 with a score-based match layer for beta>="
            f"{max(ictm_exact_from.values())} at the two sizes tried (l=2 all; l=5, k=4 sample; other sizes: "
            f"beta >= ln(n-1) + {ictm_c:.2f}, the threshold claim above)",
       passed=exact_from["Theorem 3 (5,5,k=3)"] is not None and exact_from["Theorem 1 (Table 1)"] is not None
       and tm_soft_ok and ictm_soft_ok,
       paper="course")  # our extension, not a claim of the paper
