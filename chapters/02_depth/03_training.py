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
# (depth-training)=
# # Training with varying depth
#
# The constructions say what 1, 2 and 3 layers *can* represent. Sec. 6 and 9 of
# {cite}`chen2024depth` train the same model with SGD and find the same thresholds: one layer
# memorizes but guesses on reasoning and generalization, two layers learn those, and in-context
# template matching needs three. This chapter reruns Figure 2 (accuracy and loss against steps
# for 1-4 layers on the four tasks), once with the paper's initialisation and once from plain
# random weights; and Figure 3 (attention maps of trained models next to the constructed ones, with
# numbers). The {ref}`next chapter <depth-heads>` varies the heads per layer (Figures 4-7).

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
import pandas as pd
import torch

from lib import bench, claims, plots, scale
from lib.papers.chen2024 import checks, constructions as build, sweeps
from lib.papers.chen2024.figures import TITLES, arch_label, chance, has_task, training_curves
from lib.papers.chen2024.sweeps import curves, final
from lib.papers.chen2024.circuits import figure_3_scores
from lib.papers.chen2024.training import model_factory, parse_scores, recipe
from lib.tasks.base import Batch
from lib.train import train

plots.use_style()
record = claims.Recorder(paper="chen2024", chapter="chapters/02_depth/03_training")

# %% [markdown]
# (depth-setup)=
# ## Setup: what the paper fixes and what we chose
#
# Sec. 9.1 fixes the model (Sec. 3.1's, $d' = d + n$), the loss (cross-entropy on the last column),
# the optimizer (SGD) and the initialisation: $W_V$ "with a value of 1" (we read: the identity),
# $W_{QK}$ of the first layer set to the constructed pattern of Theorem 3, 5 or 6 for every task but
# memorization ($W_{QK} \sim U[0,1)$ there), and the classifier $\sim U[0,1)$. It gives no learning
# rate, batch size, number of steps or seeds. Our choices, kept in every result's config:
#
# - every matrix starts at $N(0, \sigma^2)$, $W_V$ adds the identity, the first layer adds the
#   constructed pattern (`init="paper"`) or not (`init="random"`);
# - SGD for in-context QA and template matching as in the paper; **Adam** for memorization and
#   in-context template matching, where SGD from this initialisation barely moved in our trials
#   (with $1/m$ averaging, more heads also slow SGD down);
# - fresh online batches of 256 for the three generated tasks, full batch for memorization;
# - reduced sizes at the `default` scale (below), Sec. 9.1's sizes at the `paper` scale.

# %%
table = []
for name in TITLES:
    r = recipe(name)
    t = r.train
    table.append({"task": TITLES[name], "instance": repr(r.task), "optimizer": t.optimizer, "lr": t.lr,
                  "batch": t.batch_size or "full", "steps": t.steps, "init std": r.init_std,
                  "grad clip": t.grad_clip or "-"})
plots.table(pd.DataFrame(table).set_index("task"))

# %% [markdown]
# (depth-fig2)=
# ## Figure 2: the impact of depth
#
# One ensemble per architecture (heads per layer in brackets), each band the 95% interval of the seed mean; accuracy on the
# training set for memorization and on 2,000 fresh examples otherwise. The grids are the sweep
# `figure2` of `lib.papers.chen2024.sweeps` (`python -m lib.papers.chen2024 paper figure2` runs it
# at the paper's sizes).

# %%
fig2 = sweeps.result("figure2", device=device)
for init in ("paper", "random"):
    training_curves(fig2, init, title=f"Figure 2, {init} initialisation")
    plt.show()

# %% tags=["hide-input"]
fig2_checks = [checks.figure_2a(fig2), checks.figure_2b(fig2), checks.figure_2c(fig2), checks.figure_2d(fig2)]
# decided over seeds (lib.stats): a smoke run's two seeds may leave a claim undecided, never against it
assert not any(c.verdict == "not reproduced" for c in fig2_checks), [c.ref for c in fig2_checks]

# %% tags=["hide-input"]
fig2_rows = []
for task in TITLES:
    for arch in curves(fig2, task=task, init="paper"):
        row = {"task": TITLES[task], "model": arch_label(arch),
               "paper init": f"{final(fig2, task, 'paper', arch).mean():.3f}"}
        try:
            row["random init"] = f"{final(fig2, task, 'random', arch).mean():.3f}"
        except KeyError:
            row["random init"] = "-"
        fig2_rows.append(row)
plots.table(pd.DataFrame(fig2_rows).set_index(["task", "model"]))

# %% tags=["hide-input"]
if fig2.scale == "default":  # the verdicts the stored default run (five seeds) bears
    assert [c.verdict for c in fig2_checks] == ["substituted"] * 3 + ["inconclusive"], [c.verdict for c in fig2_checks]
for fig2_check in fig2_checks:
    record(fig2_check)

# %% [markdown]
# Each claim is decided over the five seeds: a threshold by the interval of the seeds' mean, each
# of a claim's tests at the Bonferroni level of its tests (`lib.stats`). Figures 2a-c hold in every
# seed. Figure 2d does not decide: three seeds of the 3-layer model solve in-context template
# matching and two stay at 0.49 with the 2-layer models, so the interval of its mean, 0.80
# [0.45, 1], holds 0.95. At three seeds (the first three, all solved) this claim read
# "substituted"; two more seeds undid it, which is the point of reading a trained claim over seeds.

# %% [markdown]
# **What the initialisation changes.** With the paper's initialisation the thresholds appear
# within a few hundred steps. From random weights, with the same recipes and budget, the models
# that *can* represent the task (two layers for in-context QA and template matching, three for
# in-context template matching) stay where the one-layer model is: at $1/k$ on the in-context
# tasks and at chance on template matching. The paper notes (Sec. 9.1) that these tasks "can be
# challenging even for randomly initialized transformers with sufficient layers"; at our scale the
# constructed first layer is what makes them learnable. The depth thresholds of Figure 2 are
# therefore thresholds of *representation* seen through a favourable start, not evidence that
# plain gradient descent finds the circuits.

# %%
random_two = final(fig2, "reasoning", "random", [1, 1]).mean()
paper_two = final(fig2, "reasoning", "paper", [1, 1]).mean()
print(f"in-context QA, 2 layers: paper init {paper_two:.2f}, random init {random_two:.2f}")

# %% [markdown]
# (depth-fig2-paper-sizes)=
# ### Figure 2a-c at the paper's sizes
#
# The runs above use reduced sizes. Sec. 9.1's sizes for the first three tasks are 500 words and
# 2,000 sequences (memorization), 100 questions and 100 answers (in-context QA) and 210 words
# with $l = 3$ (template matching, 5 templates), and they fit a CPU. The sweep `figure2_paper_sizes`
# (`lib.papers.chen2024.sweeps`) trains the same recipes with the same step budgets at
# those sizes: one layer on memorization (the claim of Figure 2a; deeper models at $d' = 508$ cost
# minutes per hundred full-batch steps here), one to three layers on the other two, from the
# paper's initialisation and from random weights. Figure 2d's sizes ($d_1 = d_2 = 100$, $l = 5$,
# $k = 4$) stay with the GPU: even with 10 words that task needs 20 times our step budget
# ({ref}`depth-fig7-k`).

# %%
fig2p = sweeps.SWEEPS["figure2_paper_sizes"].result(device=device)
sizes = pd.DataFrame([{"task": TITLES[t], "Sec. 9.1 instance (this run)": fig2p.config["tasks"][t],
                       "d' reduced (above)": len(recipe(t).task.vocab) + recipe(t).task.seq_len,
                       "d' Sec. 9.1": len(recipe(t, **a).task.vocab) + recipe(t, **a).task.seq_len}
                      for t, a in sweeps.PAPER_SIZES.items()])
display(plots.table(sizes.set_index("task")))
for init in ("paper", "random"):
    if any(has_task(fig2p, t, init) for t in TITLES):
        training_curves(fig2p, init, title=f"Figure 2a-c at Sec. 9.1's sizes, {init} initialisation")
        plt.show()

# %% tags=["hide-input"]
rows = [{"task": TITLES[p["task"]], "init": p["init"], "model": arch_label(a),
         "final accuracy (seeds)": " ".join(f"{v:.2f}" for v in final(fig2p, p["task"], p["init"], a))}
        for p in fig2p.grid for a in p["archs"]]
display(plots.table(pd.DataFrame(rows).set_index(["task", "init", "model"])))
# from random weights two layers stay near 1/k and chance at these sizes too
assert all(final(fig2p, p["task"], "random", [1, 1]).max() < chance(p["task"], fig2p.scale, p["task_args"]) + 0.05
           for p in fig2p.grid if p["init"] == "random")

# %% tags=["hide-input"]
paper_size_checks = [checks.training.figure_2b_paper_sizes(fig2p)]
if fig2p.scale != "smoke":  # the smoke run trains in-context QA only
    paper_size_checks = [checks.training.figure_2a_paper_sizes(fig2p),
                         checks.training.figure_2c_paper_sizes(fig2p)] + paper_size_checks
assert not any(c.verdict == "not reproduced" for c in paper_size_checks), [c.ref for c in paper_size_checks]
for paper_size_check in paper_size_checks:
    assert paper_size_check.verdict == "substituted" or scale.current() != "default", paper_size_check.ref
    record(paper_size_check)

# %% [markdown]
# At the paper's sizes the picture is the one above. One layer memorizes all 2,000 sequences;
# it stays at or below $1/k$ on in-context QA and at chance on template matching, and two layers
# reach 100% on both. From random weights two layers again stay near $1/k$ and chance, so the
# dependence on the constructed first layer is not an artefact of the reduced sizes. Three layers
# of one head are unstable here as well: some seeds fall back to about $1/k$ or chance.

# %% [markdown]
# (depth-fig2-paper-scale)=
# ### Figure 2a-c at the paper's scale, on a GPU (partial)
#
# The `paper` scale of the same sweep trains five seeds for three times the steps. It ran on an
# H100 in two short windows through the paper-scale queue (`python -m lib.papers queue`, which
# stores each finished group and resumes the one in progress), so the file holds only the groups
# that finished. Below: every grid point of the sweep, its default-scale accuracies beside the
# paper-scale ones where they exist, and the same check as above on each finished group.

# %% tags=["hide-input"]
fig2_gpu = sweeps.SWEEPS["figure2_paper_sizes"].paper_result()
if fig2_gpu is None:
    print("no paper-scale result of figure2_paper_sizes in data/ yet")
else:
    print(f"{fig2_gpu.name}: {fig2_gpu.progress()}; {fig2_gpu.provenance['device']}, "
          f"commit {fig2_gpu.provenance['git_commit']}, {fig2_gpu.wall_s:.0f} s")
    print("measured cost of the whole sweep:", bench.cost_line("chen2024.figure2_paper_sizes"))
    def seeds_text(result, task, init, arch):  # each seed's final accuracy, if this run trained it
        runs = curves(result, task=task, init=init) if has_task(result, task, init) else {}
        return " ".join(f"{v:.2f}" for v in runs[tuple(arch)].final) if tuple(arch) in runs else None

    cells = [{"task": TITLES[p["task"]], "init": p["init"], "model": arch_label(a),
              f"{fig2p.scale} scale": seeds_text(fig2p, p["task"], p["init"], a) or "-",
              "paper scale": seeds_text(fig2_gpu, p["task"], p["init"], a) or "not run yet"}
             for p in fig2_gpu.grid for a in p["archs"]]
    display(plots.table(pd.DataFrame(cells).set_index(["task", "init", "model"])))

# %% tags=["hide-input"]
if fig2_gpu is not None and has_task(fig2_gpu, "memorization", "paper"):
    gpu_check = checks.training.figure_2a_paper_scale(fig2_gpu)
    assert gpu_check.passed
    record(gpu_check)

# %% [markdown]
# Figure 2a's group is complete at the paper's scale: one layer memorizes all 2,000 sequences in
# every seed, as at the default scale, so that claim no longer rests on a CPU
# budget (it stays *substituted*: Adam, not the paper's SGD). The other four groups, Figures 2b and
# 2c with one to three layers from both initialisations, had not run when the GPU window closed.
# The whole sweep's measured cost is printed above (`python -m lib.bench paper-cost`, stored in
# `data/bench/`); a rerun of the queue resumes it where it stopped.

# %% [markdown]
# (depth-fig3)=
# ## Figure 3 and Sec. 6.2: do trained models use the constructed circuits?
#
# We train two-layer models on in-context QA and on template matching (paper initialisation) and
# compare their attention with the constructions', on the paper's example and in numbers:
#
# - **copy** (in-context QA, layer 1): the share of attention that stays inside the column's own
#   question-sign-answer block; the construction has 1.
# - **match** (in-context QA, layer 2): the share of the last column's attention to the context that
#   lands on the block holding the query question; the construction has 1, uniform attention $1/k$.
# - **parse** (template matching, layer 1): mean attention between equal tokens against different
#   tokens; the construction has 1 against 0.
#
# Each score is measured on five trained seeds (two at the smoke scale). The check reads their
# means: it shows 95% intervals and decides each of its six thresholds at the Bonferroni level of
# the six. The maps are seed 0's.

# %%
qa_recipe, fig3_seeds = recipe("reasoning"), list(range(scale.pick(smoke=2, default=5, paper=5)))
qa_run = train(model_factory(qa_recipe.task, 2, (1, 1), "paper", qa_recipe.init_std), fig3_seeds, qa_recipe.train,
               qa_recipe.task, {"test": qa_recipe.task.sample(1000, seed=10_007)}, device=device, desc="IC-QA 2 layers")
qa_trained = qa_run.model(0)  # the maps below are seed 0's
qa_constructed = build.in_context_qa(qa_recipe.task)
print(f"test accuracy of the trained models: {plots.readable(qa_run.final('test'))}")

# %% [markdown]
# The maps on the paper's example, `A=1 B=2 A=` (the query repeats the first question), written
# in this task's vocabulary with its $k = 3$ blocks: `q0→a0 q1→a1 q2→a2 q0→`.

# %%
k_fig3 = qa_recipe.task.k
example = qa_recipe.task.encode(torch.arange(k_fig3)[None], torch.arange(k_fig3)[None], torch.tensor([0]))
tokens = qa_recipe.task.vocab.decode(example.x[0])
fig, axes = plots.panels(4, ncols=2, height=3.3)
for row, (name, model) in enumerate([("constructed", qa_constructed), ("trained", qa_trained)]):
    cache = {}
    model(example.x, cache=cache)
    for layer in range(2):
        plots.attention_map(cache[f"layers.{layer}.attn.pattern"][0].sum(0), tokens=tokens, ax=axes[2 * row + layer],
                            title=f"{name}, layer {layer + 1}")
plt.show()

# %%
tm_recipe = recipe("generalization")
tm_run = train(model_factory(tm_recipe.task, 2, (1, 1), "paper", tm_recipe.init_std), fig3_seeds, tm_recipe.train,
               tm_recipe.task, {"test": tm_recipe.task.sample(1000, seed=10_007)}, device=device, desc="TM 2 layers")
tm_trained = tm_run.model(0)  # the maps below are seed 0's
print(f"test accuracy of the trained models: {plots.readable(tm_run.final('test'))}")
# Figure 3's scores on 1,000 probes of each task, per seed: copy and match (in-context QA), parse (template matching)
copy_match, parse = figure_3_scores(qa_run, qa_recipe.task, qa_recipe.task.sample(1000, seed=5),
                                    tm_run, tm_recipe.task, tm_recipe.task.sample(1000, seed=5))
for scores in (copy_match, parse):
    display(plots.table(pd.DataFrame([scores["constructed"]] + scores["trained"],
                                     index=["constructed"] + [f"trained, seed {s}" for s in fig3_seeds])))

# %% [markdown]
# The paper reads the parse off two maps, `AAB=` and `ABB=`: the repeated token's two positions
# attend to each other. Our templates have $l = 4$, so the two examples are `s0 s0 s1 s2 →` and
# `s0 s1 s1 s2 →` (the paper's `A A B` and `A B B`, with a fourth word), drawn for layer 1 of the
# constructed and the trained model (heads summed). Under each map, the attention between the repeated pair against the mean
# over pairs of different tokens.

# %% tags=["hide-input"]
sign = tm_recipe.task.sign
tm_examples = torch.tensor([[0, 0, 1, 2, sign], [0, 1, 1, 2, sign]])
fig, axes = plots.panels(4, ncols=2, height=3.0)
pair_shares = []
for row, (name, model) in enumerate([("constructed", build.template_matching(tm_recipe.task)),
                                     ("trained", tm_trained)]):
    cache = {}
    model(tm_examples, cache=cache)
    maps = cache["layers.0.attn.pattern"].abs().sum(1)  # heads summed, as parse_scores does
    for i, x in enumerate(tm_examples):
        tokens = tm_recipe.task.vocab.decode(x)
        plots.attention_map(maps[i], tokens=tokens, ax=axes[2 * row + i], title=f"{name}, layer 1: {' '.join(tokens[:-1])}")
        # on one example, parse_scores' "equal" is the repeated pair's mutual attention
        scores = parse_scores(model, Batch(x[None], torch.zeros(1, dtype=torch.long)))
        pair_shares.append({"model": name, "example": " ".join(tokens[:-1]), "repeated pair": scores["equal"],
                            "different pairs (mean)": scores["different"]})
plt.show()
pair_shares = pd.DataFrame(pair_shares)
display(plots.table(pair_shares, index=False))
# the construction's parse holds on both examples; seed 0's trained shares are in the table
built_rows = pair_shares[pair_shares["model"] == "constructed"]
assert (built_rows["repeated pair"] > built_rows["different pairs (mean)"]).all()

# %% tags=["hide-input"]
fig3_check = checks.training.figure_3(copy_match, parse, qa_recipe, tm_recipe, fig3_seeds)
assert fig3_check.verdict != "not reproduced", fig3_check.ours
if scale.current() == "default":
    assert fig3_check.verdict == "partly", fig3_check.ours
record(fig3_check)

# %% [markdown]
# The trained models keep the constructed mechanism only in part. Their first layer starts at the
# constructed pattern (that is the paper's initialisation), so a high copy or parse share is partly
# inherited. The second layer is learned, and its match share, the fraction of the last column's
# attention on the right block, is the informative number: above $1/k$, well below the
# construction's 1, over five seeds (at the default scale: 0.52 [0.51, 0.52] against
# $1/k = 0.33$; the copy share 0.78 [0.78, 0.79] against the construction's 1). The seeds barely
# differ, so the intervals decide each threshold. The trained models solve the task with a softer,
# more distributed version of the same circuit. The template maps show the same: on `s0 s0 s1 s2`
# and `s0 s1 s1 s2` the trained first layer draws the construction's blocks (the repeated pair attend to each other), more
# softly, with every position also looking at the sign token; it started from those blocks.

# %% [markdown]
# Heads per layer, the rest of Sec. 6, are the subject of the {ref}`next chapter <depth-heads>`,
# which also sums up what reproduces in this part.
