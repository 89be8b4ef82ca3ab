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
# (tour)=
# # 0. Attention, tasks and constructions
#
# The five papers in this book ask the same kind of question: *given an attention model of a
# certain shape (layers, heads, width), which tasks can it represent, and which can it learn?*
# This chapter fixes the notation they share and tours the library `lib` that every chapter
# uses. It runs in well under a minute on a laptop CPU.

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
import torch

from lib import claims, plots, scale
from lib.constructions.lookup import exactness_threshold, index_lookup_onehot
from lib.models import AttentionConfig, accuracy, build_model
from lib.papers.course import checks, sweeps
from lib.tasks import IndexLookup
from lib.train import TrainConfig, train

plots.use_style()
record = claims.Recorder(paper="course", chapter="chapters/00_tour/attention_tasks_constructions")

# %% [markdown]
# (tour-notation)=
# ## Notation
#
# A sequence of $n$ tokens enters the model as the **residual stream** $h \in \mathbb{R}^{n \times d}$:
# one row per token, $d$ the width (`d_model`). Each row is the sum or concatenation of a
# token embedding and a **positional encoding** (none, one-hot, learned, or sinusoidal).
#
# ```{prf:definition} 0.1 (attention layer)
# :label: def-attention-layer
# :nonumber:
#
# A layer with $m$ heads maps $h$ to $h + \operatorname{Attn}(h)$ (the **residual** connection; without it,
# to $\operatorname{Attn}(h)$). Head $a$ scores destination (query) $i$ against source (key) $j$,
#
# $$ s^a_{ij} = c\,(h_i W^a_Q)\cdot(h_j W^a_K) , $$
#
# or, with one bilinear matrix, $s^a_{ij} = c\, h_i W^a_{QK} h_j^\top$. The head
# turns scores into weights $A^a_{ij}$ and outputs $z^a_i = \sum_j A^a_{ij}\, h_j W^a_V$. The weights are
#
# - **softmax**: $A^a_{ij} = e^{s^a_{ij}} / \sum_{j'} e^{s^a_{ij'}}$ (non-negative, rows sum to one);
# - **ReLU**: $A^a_{ij} = \max(0, s^a_{ij})$ (no normalisation), as in {cite}`chen2024depth`;
# - **uniform**: $A^a_{ij} = 1/|\{j' : j' \text{ allowed}\}|$ (scores ignored).
#
# A **causal** mask allows only $j \le i$. Heads are combined either by **averaging**,
# $\operatorname{Attn}(h)_i = \frac1m \sum_a z^a_i$, or by **projection**, $\sum_a z^a_i W^a_O$.
# ```
#
# Chen & Zou write tokens as columns, $H \in \mathbb{R}^{d \times n}$; the library is row-major
# (batch, token, width), so their matrices are loaded transposed. Each part says so where it matters.
#
# A ReLU layer computed by hand: two tokens, one head, $W_{QK} = W_V = I$, no positions. Then
# $s_{ij} = h_i \cdot h_j$ and the output at $i$ is $h_i + \sum_j \max(0, h_i\cdot h_j)\, h_j$.

# %%
relu_layer = AttentionConfig(d_model=2, n_out=2, attention="relu", qk="bilinear", combine="mean",
                         input="vectors", input_dim=2, embedding="identity", readout="all")
model = build_model(relu_layer).set_weights({"layers.0.attn.W_QK": torch.eye(2)[None],
                                             "layers.0.attn.W_V": torch.eye(2)[None], "W_U": torch.eye(2)})
h = torch.tensor([[[1.0, 0.0], [1.0, -2.0]]])
by_hand = h[0] + torch.stack([sum(max(0.0, float(h[0, i] @ h[0, j])) * h[0, j] for j in range(2)) for i in range(2)])
print("library:", model(h)[0].tolist(), "\nby hand:", by_hand.tolist())
assert torch.allclose(model(h)[0], by_hand)

# %% [markdown]
# (tour-tasks)=
# ## Building a task
#
# A task is a generator of labelled sequences, deterministic given a seed. It knows its
# vocabulary, sequence length and number of classes, and returns token ids and targets as
# tensors. Our example is **index lookup** from {cite}`bhattamishra2024separations`: read a
# sequence of symbols $s_1 \dots s_N$ followed by a position token `@p`, output $s_p$.

# %%
task = IndexLookup(n_symbols=4, length=6)
batch = task.sample(5, seed=0)
print(task, "\n", task.vocab)
print("\n".join(task.render(batch)))
assert torch.equal(batch.x, task.sample(5, seed=0).x)  # same seed, same data
train_set, test_set = task.split(n_train=200, n_test=100, seed=0)
print(f"split: {len(train_set)} train / {len(test_set)} test examples, disjoint inputs")

# %% [markdown]
# (tour-models)=
# ## Building a model
#
# Models come in families behind one interface (`lib.models`): a config dataclass, a seeded
# initialisation, `model(x, cache={})` for probing, and weights read and set by name. The attention
# family's `AttentionConfig` covers every variant the papers use: attention-only or with an MLP;
# softmax, ReLU or uniform attention; heads averaged or projected; residual on or off; one-hot,
# learned, sinusoidal or no positions; causal or full mask; read-out from the last token or an LM
# head on every token. Per-head weights are stacked on their first axis. `build_model(config)`
# builds any family from its config (`MLPConfig` gives an MLP on the flattened sequence).

# %%
config = AttentionConfig(d_model=16, n_out=task.n_classes, n_layers=2, n_heads=2, d_mlp=32,
                     vocab_size=len(task.vocab), positions="learned", max_len=task.seq_len)
model = build_model(config, seed=0)
print(f"{model.n_params()} parameters")
for name in model.weight_names():
    print(f"  {name:24s} {tuple(model.get_weight(name).shape)}")

# %% [markdown]
# (tour-construction)=
# ## Loading closed-form weights
#
# The constructions of the papers are explicit weights loaded into the very same module that
# training uses, so a construction is evaluated, probed and fine-tuned like any trained model.
# Here is the "naive" index-lookup construction that {cite}`bhattamishra2024separations`
# (Sec. 3) mention before their width-$O(\log N)$ theorem.
#
# ```{prf:proposition} 0.1 (index lookup with one-hot positions)
# :label: prop-index-lookup-onehot
# :nonumber:
#
# Let the residual stream of token $j$ be [token one-hot | position one-hot], of width $|V| + N + 1$.
# One layer with one softmax head, whose bilinear score is $\beta$ from query `@p` to the key at
# position $p$ and $0$ otherwise, whose value copies the symbol block, and whose read-out reads the
# symbol rows, outputs $s_p$ on **every** input of length $N$ when $\beta > \log(N-1)$, and fails on some
# input when $\beta < \log(N-1)$.
# ```
#
# ```{prf:proof}
# Position $p$ gets weight $e^\beta/(e^\beta + N)$ and every other key $1/(e^\beta+N)$. The query's
# own value has no symbol component, so the logit of symbol $s_p$ is at least $e^\beta/(e^\beta+N)$,
# and any other symbol collects at most $(N-1)/(e^\beta+N)$, with equality when that symbol fills all
# other $N-1$ positions. So the arg-max is right on all inputs when $e^\beta > N-1$, and wrong on that
# input when $e^\beta < N-1$.
# ```
#
# We check {prf:ref}`Proposition 0.1 <prop-index-lookup-onehot>` on *every* input of a small instance and on a large
# random sample of a long one, and the threshold on both sides.

# %%
small = IndexLookup(n_symbols=4, length=6)
everything = small.enumerate()  # 4^6 sequences x 6 positions
construction = index_lookup_onehot(small, beta=10.0).double()
threshold = exactness_threshold(small)  # log(N - 1)
for beta in (10.0, threshold - 0.01, threshold + 0.01):
    acc = accuracy(index_lookup_onehot(small, beta=beta).double(), everything)
    print(f"beta = {beta:.3f}: {acc:.4f} on all {len(everything)} inputs (N={small.length})")

# %% [markdown]
# At a long length the threshold binds only on the worst inputs (one other symbol everywhere
# else): random inputs read 100% below it too, so they cannot show it. The check
# (`lib.papers.course.checks.proposition_0_1`) takes every input of the small instance, a random
# sample of a long one and the long one's worst inputs, on both sides of the threshold.

# %% tags=["hide-input"]
long = IndexLookup(n_symbols=scale.pick(smoke=16, default=64, paper=64), length=scale.pick(smoke=32, default=64, paper=256))
prop_check = checks.proposition_0_1(small, long, scale.pick(smoke=2_000, default=10_000, paper=50_000))
assert prop_check.passed
record(prop_check)

# %% [markdown]
# Probing a model: `model(x, cache={})` fills the dict with every layer's residual stream and
# attention pattern. The constructed head puts its weight on the queried position:

# %%
cache = {}
example = small.sample(1, seed=3)
construction(example.x, cache=cache)
ax = plots.attention_map(cache["layers.0.attn.pattern"][0, 0], tokens=small.vocab.decode(example.x[0]),
                         title="constructed head, beta = 10")
plt.show()
query_row = cache["layers.0.attn.pattern"][0, 0, -1]
assert query_row.argmax().item() == int(example.x[0, -1]) - small.n_symbols

# %% [markdown]
# (tour-ensemble)=
# ## Training an ensemble
#
# `lib.train.train` trains K independent models (one per seed; optionally one learning rate per
# member) in one batched pass: the members' parameters share one flat buffer, the forward pass is
# `vmap`-ed over them and one optimizer step updates them all, so the work on the host per step
# does not grow with K (on a GPU each step is replayed as a captured CUDA graph). Each member sees
# its own data stream and stops on its own. What is guaranteed, and in which dtype (unit tests
# check each):
#
# - **float64**: member k ends with the same numbers as that model trained alone with the same
#   seed, and as a plain `torch.optim` loop, to 1e-9;
# - **float32**, the dtype the book trains in: the same up to rounding. Batched kernels may round
#   differently for K members than for one, so losses agree to about 1e-6 and drift slowly; a
#   member sitting exactly on an early-stop threshold may then stop one evaluation earlier or
#   later. A margin in the stop test (`stop_when=("train", "acc", 1.0, 1e-3)`) keeps such
#   near-ties from deciding it;
# - **interrupted runs**: inside `lib.train.checkpoints(dir)` a run saves its state every few
#   minutes and a rerun resumes it, ending with exactly the numbers of an uninterrupted run (the
#   sweeps of `lib.papers` do this by themselves).
#
# Here: one-layer softmax models with learned positions learn index lookup from data.

# %%
learned_task = IndexLookup(n_symbols=8, length=16)
one_layer = AttentionConfig(d_model=16, n_out=8, n_layers=1, n_heads=1, d_head=16, d_value=16,
                        vocab_size=len(learned_task.vocab), positions="learned", max_len=learned_task.seq_len)
recipe = TrainConfig(steps=scale.pick(smoke=200, default=600, paper=2000), lr=1e-2, batch_size=128, eval_every=50)
seeds = list(range(scale.pick(smoke=2, default=4, paper=8)))
run = train(one_layer, seeds, recipe, learned_task, evals={"test": learned_task}, device=device, desc="index lookup")
ax = plots.curves(run.eval_steps, {"1 layer, d=16": run.metrics["test"]["acc"]}, chance=1 / 8,
                  title=f"index lookup, N=16 (scale={scale.current()}, {run.wall_s:.1f}s)")
plots.stamp(ax, plots.BANDS)
plt.show()
final = run.final("test", "acc")
print("final test accuracy per seed:", final.round(3))
assert final.min() > 0.5, "one-layer attention should learn index lookup well above chance (1/8)"

# %% [markdown]
# (tour-results)=
# ## Results with provenance
#
# Every experiment whose numbers the book shows is a named **sweep** defined in `lib`
# (`lib/papers/<paper>/sweeps.py`): a config and a grid of points at each scale, and the function
# that runs a point. `sweep.result()` loads the saved result if its config matches and otherwise
# runs it, saving after every point (an interrupted sweep resumes); the same sweep runs from the
# command line, `python -m lib.papers.course default width_length`. Each file in `data/` records
# the config and seeds, scale, git commit, the library files that computed it and their hash, the
# torch version, the device and the wall time. At the `default` scale a complete `paper`-scale
# file is loaded instead, when its config is the paper scale's.
#
# The sweep: accuracy of one-layer models against width and sequence length. Index lookup needs
# more width as $N$ grows, although far less than $N$ (the subject of
# {cite}`bhattamishra2024separations`, Part III).

# %%
sweep_result = sweeps.result("width_length", device=device)
ax = plots.heatmap(sweep_result.frame(), x="length", y="width", value="accuracy",
                   title="one-layer index lookup: test accuracy")
plots.stamp(ax, sweep_result.label())
plt.show()
frame = sweep_result.frame()
widest, narrowest = frame[frame.width == frame.width.max()], frame[frame.width == frame.width.min()]
print(f"mean accuracy: widest {widest.accuracy.mean():.3f}, narrowest {narrowest.accuracy.mean():.3f}")
assert widest.accuracy.mean() > narrowest.accuracy.mean()

# %% [markdown]
# The provenance travels with the numbers. `python -m lib.results check` lists results whose
# library files have changed since; `python -m lib.results verify NAME` re-runs a cheap part of
# one (a grid point, or its first steps) and records it as verified under the new code only if
# the numbers come out identical.

# %%
prov = sweep_result.provenance
print(plots.readable({k: prov[k] for k in ("scale", "git_commit", "torch", "device", "created")}))
print(f"lib files: {len(sweep_result.code['lib_files'])}, hash {sweep_result.code['lib_hash']}")
print(f"{len(sweep_result.points)} points, {sweep_result.wall_s:.1f}s of compute")

# %% [markdown]
# ## The pattern every part follows
#
# 1. The paper's tasks are generators in `lib.tasks` (by family), its models configurations of a
#    family in `lib.models`; everything of that paper alone lives in `lib/papers/<key>/`.
# 2. Its theorems are stated as numbered directives; every construction is loaded into a model
#    and checked on the whole task; every impossibility result is demonstrated numerically.
# 3. Its experiments are named sweeps in `lib/papers/<key>/sweeps.py`, run through `lib.train`
#    and stored by `lib.results`, at three scales.
# 4. Every checked claim is recorded with a `lib.claims.Recorder` and lands in the
#    {doc}`report card <../99_report_card/report_card>`.
