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
# random weights; Figure 3 (attention maps of trained models next to the constructed ones, with
# numbers); and Figures 4-7 (heads per layer).

# %% tags=["setup"]
# Setup: on Colab, install the course (keeping Colab's own torch); elsewhere there is nothing to do.
import os, subprocess, sys
REPO = "https://github.com/attention-by-construction/attention-by-construction"
if "google.colab" in sys.modules:
    if not os.path.isdir("/content/abc"):
        subprocess.run(["git", "clone", "-q", "--depth", "1", REPO, "/content/abc"], check=True)
        subprocess.run([sys.executable, "-m", "pip", "install", "-q", "-e", "/content/abc"], check=True)
    sys.path.insert(0, "/content/abc")
import lib
device = lib.setup_notebook(seed=0)

# %%
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import torch

from lib import claims, plots, results, scale
from lib.constructions import depth as build
from lib.experiments.depth import (copy_match_scores, curves_point, model_factory, parse_scores, recipe)
from lib.train import train

plots.use_style()
CHAPTER = "chapters/02_depth/03_training"
TITLES = {"memorization": "memorization (SC)", "reasoning": "reasoning (IC-QA)",
          "generalization": "generalization (TM)", "contextual": "contextual gen. (IC-TM)"}

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
pd.DataFrame(table).set_index("task")

# %% [markdown]
# (depth-fig2)=
# ## Figure 2: the impact of depth
#
# One ensemble per architecture (heads per layer in brackets), seeds as bands; accuracy on the
# training set for memorization and on 2,000 fresh examples otherwise.

# %%
seeds = list(range(scale.pick(smoke=2, default=3, paper=5)))
archs = {
    "memorization": scale.pick(smoke=[[1]], default=[[1], [1, 1], [1, 1, 1]], paper=[[1], [1, 1], [1, 1, 1]]),
    "reasoning": scale.pick(smoke=[[1], [1, 1]], default=[[1], [1, 1], [1, 1, 1]], paper=[[1], [1, 1], [1, 1, 1]]),
    "generalization": scale.pick(smoke=[[1], [1, 1]], default=[[1], [1, 1], [1, 1, 1]],
                                 paper=[[1], [1, 1], [1, 1, 1]]),
    "contextual": scale.pick(smoke=[[2], [2, 2, 2]], default=[[2], [2, 2], [2, 2, 2], [2, 2, 2, 2]],
                             paper=[[2], [2, 2], [2, 2, 2], [2, 2, 2, 2]]),
}
fig2_grid = [{"task": t, "init": "paper", "archs": archs[t]} for t in TITLES]
fig2_grid += [{"task": t, "init": "random", "archs": archs[t]}
              for t in scale.pick(smoke=("reasoning",), default=("reasoning", "generalization", "contextual"),
                                  paper=("reasoning", "generalization", "contextual"))]
fig2_config = {"seeds": seeds, "recipes": {t: recipe(t).train.to_dict() for t in TITLES},
               "tasks": {t: repr(recipe(t).task) for t in TITLES}, "init_std": {t: recipe(t).init_std for t in TITLES}}
fig2 = results.load_or_run("depth_figure2", fig2_config, fig2_grid,
                           lambda p: curves_point(p, seeds, device=device), heavy=True)


def label(arch):
    layers = len(arch)
    return f"{layers} layer{'s' if layers > 1 else ''} {list(arch)}"


def curve_panel(result, init, metric, axes, chance=True):
    for ax, task in zip(axes, TITLES):
        try:
            runs = result.get(task=task, init=init)
        except KeyError:
            ax.set_visible(False)
            continue
        steps = next(iter(runs.values()))["steps"]
        values = {label([int(h) for h in key.split("x")]): np.array(v[metric]) for key, v in runs.items()}
        r = recipe(task, result.scale)
        base = None
        if chance and metric == "acc" and task != "memorization":
            base = 1 / r.task.k if task in ("reasoning", "contextual") else 1 / r.task.n_classes
        plots.curves(steps, values, ax=ax, ylabel=metric if metric == "loss" else "accuracy", title=TITLES[task],
                     chance=base)
        if metric == "loss":
            ax.set_yscale("log")


for init in ("paper", "random"):
    fig, axes = plt.subplots(2, 4, figsize=(16, 6.4))
    curve_panel(fig2, init, "acc", axes[0])
    curve_panel(fig2, init, "loss", axes[1], chance=False)
    fig.suptitle(f"Figure 2 ({'paper initialisation' if init == 'paper' else 'random initialisation'})", y=1.0)
    plots.stamp(axes[1, 0], fig2.label())
    plt.tight_layout()
    plt.show()

# %%
def final(result, task, init, arch):
    runs = result.get(task=task, init=init)
    return np.array(runs["x".join(map(str, arch))]["acc"])[:, -1]


k_qa = recipe("reasoning", fig2.scale).task.k
n_templates = recipe("generalization", fig2.scale).task.n_classes
checks = {
    "memorization, 1 layer": final(fig2, "memorization", "paper", [1]).min() >= 0.99,
    "reasoning, 1 layer <= 1/k": final(fig2, "reasoning", "paper", [1]).max() < 1 / k_qa + 0.05,
    "reasoning, 2 layers": final(fig2, "reasoning", "paper", [1, 1]).min() >= 0.99,
    "generalization, 1 layer at chance": final(fig2, "generalization", "paper", [1]).max() < 1 / n_templates + 0.05,
    "generalization, 2 layers": final(fig2, "generalization", "paper", [1, 1]).min() >= 0.99,
    "contextual, 1 layer fails": final(fig2, "contextual", "paper", [2]).max() < 0.6,
    "contextual, 3 layers": final(fig2, "contextual", "paper", [2, 2, 2]).min() >= 0.95,
}
if fig2.scale != "smoke":
    checks["contextual, 2 layers fail"] = final(fig2, "contextual", "paper", [2, 2]).max() < 0.6
for name, ok in checks.items():
    print(f"{'ok  ' if ok else 'FAIL'} {name}")
assert all(checks.values())

# %%
def archs_of(result, task, init="paper"):
    return [[int(h) for h in key.split("x")] for key in result.get(task=task, init=init)]


fig2_rows = []
for task in TITLES:
    for arch in archs_of(fig2, task):
        row = {"task": TITLES[task], "model": label(arch),
               "paper init": f"{final(fig2, task, 'paper', arch).mean():.3f}"}
        try:
            row["random init"] = f"{final(fig2, task, 'random', arch).mean():.3f}"
        except KeyError:
            row["random init"] = "-"
        fig2_rows.append(row)
pd.DataFrame(fig2_rows).set_index(["task", "model"])

# %%
mem = final(fig2, "memorization", "paper", [1]).mean()
claims.record(paper="chen2024", ref="Figure 2a", chapter=CHAPTER, label="depth-fig2",
              statement="a 1-layer transformer memorizes the sequence-classification set",
              paper_value="~100% (read from the figure)", ours=f"{mem:.3f} (1 layer, {fig2.scale} scale)",
              passed=checks["memorization, 1 layer"],
              substitute=None if fig2.scale == "paper" else "reduced sizes (V=50, N=1000) and Adam")
claims.record(paper="chen2024", ref="Figure 2b", chapter=CHAPTER, label="depth-fig2",
              statement="1 layer fails at in-context QA, 2 layers learn it",
              paper_value="1 layer ~ guess, 2 layers ~100%",
              ours=f"1 layer {final(fig2, 'reasoning', 'paper', [1]).mean():.2f} (1/k={1 / k_qa:.2f}), "
                   f"2 layers {final(fig2, 'reasoning', 'paper', [1, 1]).mean():.2f}",
              passed=checks["reasoning, 1 layer <= 1/k"] and checks["reasoning, 2 layers"],
              substitute=None if fig2.scale == "paper" else "reduced sizes (n_q=n_a=20, k=3)")
claims.record(paper="chen2024", ref="Figure 2c", chapter=CHAPTER, label="depth-fig2",
              statement="1 layer fails at template matching, 2 layers learn it",
              paper_value="1 layer ~ guess, 2 layers ~100%",
              ours=f"1 layer {final(fig2, 'generalization', 'paper', [1]).mean():.2f} (chance "
                   f"{1 / n_templates:.2f}), 2 layers {final(fig2, 'generalization', 'paper', [1, 1]).mean():.2f}",
              passed=checks["generalization, 1 layer at chance"] and checks["generalization, 2 layers"],
              substitute=None if fig2.scale == "paper" else "reduced sizes (|X|=30, l=4)")
claims.record(paper="chen2024", ref="Figure 2d", chapter=CHAPTER, label="depth-fig2",
              statement="1 and 2 layers fail at in-context template matching, 3 layers learn it",
              paper_value="1-2 layers ~ guess, 3 layers ~100%",
              ours=", ".join(f"{len(a)} layers {final(fig2, 'contextual', 'paper', a).mean():.2f}"
                             for a in archs_of(fig2, "contextual")),
              passed=all(v for k, v in checks.items() if k.startswith("contextual")),
              substitute=None if fig2.scale == "paper" else "reduced sizes (d1=d2=6, l=2, k=2) and Adam")

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

# %%
qa_recipe = recipe("reasoning")
qa_run = train(model_factory(qa_recipe.task, 2, (1, 1), "paper", qa_recipe.init_std), [0], qa_recipe.train,
               qa_recipe.task, {"test": qa_recipe.task.sample(1000, seed=10_007)}, device=device, desc="IC-QA 2 layers")
qa_trained = qa_run.model(0)
qa_constructed = build.in_context_qa(qa_recipe.task)
probe = qa_recipe.task.sample(1000, seed=5)
trained_scores = copy_match_scores(qa_trained, qa_recipe.task, probe)
built_scores = copy_match_scores(qa_constructed, qa_recipe.task, probe)
print(f"test accuracy of the trained model: {qa_run.final('test')[0]:.3f}")
pd.DataFrame([built_scores, trained_scores], index=["constructed", "trained"]).round(3)

# %%
example = probe[:1]
tokens = qa_recipe.task.vocab.decode(example.x[0])
fig, axes = plt.subplots(2, 2, figsize=(9, 8))
for row, (name, model) in enumerate([("constructed", qa_constructed), ("trained", qa_trained)]):
    cache = {}
    model(example.x, cache=cache)
    for layer in range(2):
        plots.attention_map(cache[f"layers.{layer}.attn.pattern"][0].sum(0), tokens=tokens, ax=axes[row, layer],
                            title=f"{name}, layer {layer + 1}")
plt.tight_layout()
plt.show()

# %%
tm_recipe = recipe("generalization")
tm_run = train(model_factory(tm_recipe.task, 2, (1, 1), "paper", tm_recipe.init_std), [0], tm_recipe.train,
               tm_recipe.task, {"test": tm_recipe.task.sample(1000, seed=10_007)}, device=device, desc="TM 2 layers")
tm_trained = tm_run.model(0)
tm_probe = tm_recipe.task.sample(1000, seed=5)
parse_trained = parse_scores(tm_trained, tm_probe)
parse_built = parse_scores(build.template_matching(tm_recipe.task), tm_probe)
print(f"test accuracy of the trained model: {tm_run.final('test')[0]:.3f}")
pd.DataFrame([parse_built, parse_trained], index=["constructed", "trained"]).round(3)

# %%
fig3_ok = (trained_scores["match"] > trained_scores["chance_match"] and trained_scores["copy"] > 0.5
           and parse_trained["equal"] > parse_trained["different"])
print(f"trained copy share {trained_scores['copy']:.2f}, match share {trained_scores['match']:.2f} "
      f"(1/k = {trained_scores['chance_match']:.2f}); parse: equal {parse_trained['equal']:.2f} vs different "
      f"{parse_trained['different']:.2f}")
assert fig3_ok
claims.record(paper="chen2024", ref="Figure 3 / Sec. 6.2", chapter=CHAPTER, label="depth-fig3",
              statement="attention maps of trained 2-layer models resemble the copy-match and parse constructions",
              paper_value="qualitative (maps look alike)",
              ours=f"copy {trained_scores['copy']:.2f} (built 1.00), match {trained_scores['match']:.2f} "
                   f"(built 1.00, 1/k {trained_scores['chance_match']:.2f}); parse equal/different "
                   f"{parse_trained['equal']:.2f}/{parse_trained['different']:.2f} (built 1/0)",
              passed=fig3_ok, partly=trained_scores["match"] > trained_scores["chance_match"],
              note="the first layer starts from the constructed pattern, which biases this comparison")

# %% [markdown]
# The trained models keep the constructed mechanism only in part. Their first layer starts at the
# constructed pattern (that is the paper's initialisation), so a high copy or parse share is partly
# inherited. The second layer is learned, and its match share, the fraction of the last column's
# attention on the right block, is the informative number: above $1/k$, well below the
# construction's 1. The trained models solve the task with a softer, more distributed version of
# the same circuit.
#
# (depth-heads)=
# ## Figures 4-7: heads per layer
#
# The paper reports that more heads speed up memorization (Figure 4), make no significant
# difference on in-context QA and template matching (Figures 5-6), and that on in-context template
# matching a single head in the last layer, and a fourth layer, learn faster (Figure 7, for several
# $k$). Architectures are written as heads per layer.

# %%
heads_grid = [
    {"task": "memorization", "init": "paper", "archs": scale.pick(smoke=[[1], [4]], default=[[1], [2], [4]],
                                                                  paper=[[1], [2], [4], [8]])},
    {"task": "reasoning", "init": "paper", "archs": scale.pick(smoke=[[1, 1], [4, 4]],
                                                               default=[[1, 1], [2, 2], [4, 4], [1, 4]],
                                                               paper=[[1, 1], [2, 2], [4, 4], [1, 4]])},
    {"task": "generalization", "init": "paper", "archs": scale.pick(smoke=[[1, 1], [4, 4]],
                                                                    default=[[1, 1], [2, 2], [4, 4], [1, 4]],
                                                                    paper=[[1, 1], [2, 2], [4, 4], [1, 4]])},
    {"task": "contextual", "init": "paper", "archs": scale.pick(
        smoke=[[2, 2, 1], [2, 2, 2]], default=[[2, 2, 1], [2, 2, 2], [2, 2, 4], [2, 2, 2, 1], [2, 2, 2, 2]],
        paper=[[2, 2, 1], [2, 2, 2], [2, 2, 4], [2, 2, 2, 1], [2, 2, 2, 2]])},
]
if scale.current() == "smoke":  # the smoke run checks the code path on two tasks only
    heads_grid = [g for g in heads_grid if g["task"] in ("memorization", "reasoning")]
heads = results.load_or_run("depth_heads", fig2_config, heads_grid, lambda p: curves_point(p, seeds, device=device),
                            heavy=True)
fig, axes = plt.subplots(1, 4, figsize=(16, 3.4))
curve_panel(heads, "paper", "acc", axes)
fig.suptitle("Figures 4-7: heads per layer (brackets)", y=1.03)
plots.stamp(axes[0], heads.label())
plt.tight_layout()
plt.show()

# %%
def mean_curve(result, task, arch):
    return float(np.mean(result.get(task=task, init="paper")["x".join(map(str, arch))]["acc"]))


mem_archs = [a["archs"] for a in heads.grid if a["task"] == "memorization"][0]
speed = {f"{a[0]} head(s)": mean_curve(heads, "memorization", a) for a in mem_archs}
print("memorization, mean accuracy over training (higher = faster):", {k: round(v, 3) for k, v in speed.items()})
fig4_ok = speed[f"{mem_archs[-1][0]} head(s)"] >= speed[f"{mem_archs[0][0]} head(s)"]
finals = {task: {label(a): final(heads, task, "paper", a).mean() for a in g["archs"]}
          for g in heads.grid for task in [g["task"]] if task in ("reasoning", "generalization")}
fig56_ok = all(v >= 0.99 for d in finals.values() for v in d.values())
print("final accuracy, reasoning and generalization:", {t: {k: round(v, 3) for k, v in d.items()} for t, d in finals.items()})
ictm = {label(a): (final(heads, "contextual", "paper", a).mean(), mean_curve(heads, "contextual", a))
        for g in heads.grid if g["task"] == "contextual" for a in g["archs"]}
print("contextual (final, mean over training):", {k: tuple(round(x, 3) for x in v) for k, v in ictm.items()})
assert fig4_ok and fig56_ok
claims.record(paper="chen2024", ref="Figure 4", chapter=CHAPTER, label="depth-heads",
              statement="more heads make memorization faster", paper_value="faster with more heads",
              ours=", ".join(f"{k}: {v:.2f}" for k, v in speed.items()) + " (mean accuracy over training, Adam)",
              passed=fig4_ok, substitute=None if heads.scale == "paper" else "reduced sizes and Adam (with SGD, "
              "1/m averaging makes more heads slower)")
claims.record(paper="chen2024", ref="Figures 5-6", chapter=CHAPTER, label="depth-heads",
              statement="extra heads make no significant difference for in-context QA and template matching",
              paper_value="no significant impact",
              ours="all " + ", ".join(f"{t}: min {min(d.values()):.2f}" for t, d in finals.items()),
              passed=fig56_ok, substitute=None if heads.scale == "paper" else "reduced sizes")
if ictm:
    best = max(ictm, key=lambda k: ictm[k][1])
    fig7_ok = ictm[best][0] >= 0.95 and "[2, 2, 2, 1]" in best
    claims.record(paper="chen2024", ref="Figure 7", chapter=CHAPTER, label="depth-heads",
                  statement="on in-context template matching one head in the last layer, and a 4th layer, learn fastest",
                  paper_value="[.., 1] faster than more heads; 4 layers faster than 3 (k=4, l=5)",
                  ours=f"fastest: {best}; " + ", ".join(f"{k} {v[1]:.2f}" for k, v in ictm.items()),
                  passed=fig7_ok, partly=all(v[0] >= 0.95 for v in ictm.values()),
                  note="k=2, l=2 here; several k (l=3) in the next section")

# %% [markdown]
# (depth-fig7-k)=
# ### Figure 7 for several $k$
#
# With templates of length 2 there are only two templates, so $k \le 2$. For several $k$ we use
# templates of length $l = 3$ (five templates) with 10 words and 10 answers (the paper: $l = 5$,
# 100 and 100), $k = 2, 3, 4$ and 5,000 steps. The grid varies what Figure 7 varies, the heads of
# the last layer and a fourth layer: one head, two heads, and $2l$ heads, the head count of
# Theorem 6's match layer.

# %%
l7 = scale.pick(smoke=3, default=3, paper=5)
words7 = scale.pick(smoke=10, default=10, paper=100)
archs7 = scale.pick(smoke=[[1, 1, 1], [1, 1, 2 * l7]],
                    default=[[1, 1, 1], [1, 1, 2], [1, 1, 2 * l7], [1, 1, 1, 1], [1, 1, 1, 2 * l7]],
                    paper=[[1, 1, 1], [1, 1, 2], [1, 1, 2 * l7], [1, 1, 1, 1], [1, 1, 1, 2 * l7]])
k_grid = [{"task": "contextual", "init": "paper", "archs": archs7,
           "steps_factor": scale.pick(smoke=0.4, default=5.0, paper=5.0),
           "task_args": {"k": k, "length": l7, "n_words": words7, "n_answers": words7}}
          for k in scale.pick(smoke=[2], default=[2, 3, 4], paper=[2, 3, 4])]
by_k = results.load_or_run("depth_figure7_k", fig2_config, k_grid, lambda p: curves_point(p, seeds, device=device),
                           heavy=True)
fig, axes = plt.subplots(1, len(by_k.grid), figsize=(5 * len(by_k.grid), 3.4), squeeze=False)
for ax, point in zip(axes[0], by_k.points):
    runs, args = point["result"], point["point"]["task_args"]
    plots.curves(next(iter(runs.values()))["steps"],
                 {label([int(h) for h in key.split("x")]): np.array(v["acc"]) for key, v in runs.items()}, ax=ax,
                 title=f"IC-TM, l={args['length']}, k={args['k']}", chance=1 / args["k"], band="minmax")
    ax.get_legend().remove()
fig.legend(*axes[0, 0].get_legend_handles_labels(), loc="center left", bbox_to_anchor=(1.0, 0.55), frameon=False)
plots.stamp(axes[0, 0], by_k.label() + " · bands: min-max over seeds")
plt.tight_layout()
plt.show()

# %% [markdown]
# Per architecture and $k$: the final accuracy (mean over seeds), how many seeds end above 0.95
# (of three at the default scale), and the mean accuracy over training, our measure of speed.

# %%
rows7 = []
for point in by_k.points:
    for key, v in point["result"].items():
        acc = np.array(v["acc"])
        rows7.append({"k": point["point"]["task_args"]["k"], "arch": f"[{key.replace('x', ', ')}]",
                      "final": acc[:, -1].mean(), "seeds": len(acc),
                      "seeds >= 0.95": int((acc[:, -1] >= 0.95).sum()),
                      "mean over training": acc.mean()})
table7 = pd.DataFrame(rows7)
speed7 = table7.pivot(index="arch", columns="k", values="mean over training")
pd.concat({"final accuracy": table7.pivot(index="arch", columns="k", values="final"),
           "seeds >= 0.95": table7.pivot(index="arch", columns="k", values="seeds >= 0.95"),
           "mean over training": speed7}, axis=1).round(3)

# %%
ks = sorted(set(table7["k"]))
solved = sorted(set(table7[table7["seeds >= 0.95"] * 2 > table7["seeds"]]["k"]))  # most seeds of some arch
one, many = "[1, 1, 1]", f"[1, 1, {2 * l7}]"
print("k solved by some architecture:", solved)
claims.record(paper="chen2024", ref="Figure 7 (several k)", chapter=CHAPTER, label="depth-fig7-k",
              statement="3 and 4 layers learn in-context template matching for several k",
              paper_value="yes, k up to 4 (l=5)",
              ours="; ".join(f"k={k}: " + ", ".join(f"{r.arch} {r.final:.2f}" for r in table7[table7.k == k].itertuples())
                             for k in ks),
              passed=solved == ks, partly=bool(solved),
              substitute=None if by_k.scale == "paper" else f"l={l7}, {words7} words and answers, CPU")
claims.record(paper="chen2024", ref="Figure 7 (last-layer heads)", chapter=CHAPTER, label="depth-fig7-k",
              statement="a single head in the last layer learns faster than several (k=4)",
              paper_value="[.., 1] fastest at k=4",
              ours=f"mean accuracy over training at k={ks[-1]}: {one} {speed7.loc[one, ks[-1]]:.2f}, "
                   f"{many} {speed7.loc[many, ks[-1]]:.2f}",
              passed=bool(speed7.loc[one, ks[-1]] >= speed7.loc[many, ks[-1]]),
              substitute=None if by_k.scale == "paper" else f"l={l7}, {words7} words and answers, CPU")
pairs = [(f"[1, 1, 1, {h}]", f"[1, 1, {h}]") for h in (1, 2 * l7) if f"[1, 1, 1, {h}]" in speed7.index]
if pairs:  # a fourth layer against three, with one last head and with the construction's 2l
    four = all(speed7.loc[deep, k] > speed7.loc[shallow, k] for deep, shallow in pairs for k in ks)
    claims.record(paper="chen2024", ref="Figure 7 (4 layers)", chapter=CHAPTER, label="depth-fig7-k",
                  statement="a fourth layer makes in-context template matching learn faster",
                  paper_value="4 single-head layers faster than 3",
                  ours="; ".join(f"{deep} vs {shallow}: " + ", ".join(
                      f"k={k} {speed7.loc[deep, k]:.2f}/{speed7.loc[shallow, k]:.2f}" for k in ks)
                      for deep, shallow in pairs) + " (mean accuracy over training)",
                  passed=four, substitute=None if by_k.scale == "paper" else f"l={l7}, {words7} words and answers, CPU")

# %% [markdown]
# What the grid shows at $l = 3$ (numbers in the table above):
#
# - **One head in the last layer never learns** here, with three layers or four: every seed
#   stays at $1/k$ for every $k$. The paper reports the opposite at $k = 4$: a single last head
#   learned fastest.
# - **$2l = 6$ heads in the last layer, the construction's count, learn**: every seed at $k = 2$,
#   two seeds of three at $k = 4$; at $k = 3$ the seeds are still climbing when the 5,000 steps
#   end. Two last-layer heads sit in between: one seed in three leaves $1/k$ at $k = 2$ and
#   $k = 4$, none at $k = 3$.
# - **A fourth layer does not speed learning**: $[1, 1, 1, 1]$ stays at $1/k$ like $[1, 1, 1]$,
#   and $[1, 1, 1, 6]$ is slower than $[1, 1, 6]$. The paper reports four layers faster.
#
# A reading, not a proof: Theorem 6's match layer uses $2l$ heads because each pair $\pm i$ turns
# one coordinate of the difference between two templates into a penalty $|\cdot|$, which a single
# ReLU head, whose score is linear in the compared features, cannot form. With $l = 2$ one
# coordinate separates the two templates, and there a single last head does learn
# ($[2, 2, 1]$ in the heads grid above). Our runs use Adam and 5,000 steps where the paper used
# SGD and an unknown budget, so this is a difference at our setting, not a refutation.

# %%
if by_k.scale == "default":  # the findings above (l = 3); 200 smoke steps are too few to leave 1/k
    for k in ks:
        at_k = table7[table7.k == k].set_index("arch")
        assert at_k.loc[one, "final"] < 1 / k + 0.05, (k, at_k.loc[one, "final"])  # one last head: chance
    assert all(speed7.loc[many, k] > speed7.loc[one, k] for k in ks)  # 2l last heads: faster at every k

# %% [markdown]
# At the paper's own $l = 5$ and $k = 4$ (all 52 templates of length 5; 10 words and answers
# instead of 100, which keeps the width at $d' = 55$), we train only the construction's head
# count, $[1, 1, 2l] = [1, 1, 10]$, for 20,000 steps.

# %%
if l7 != 5:  # at the paper scale the grid above already has l = 5
    lk_grid = [{"task": "contextual", "init": "paper", "archs": [[1, 1, 10]], "steps_factor": 20.0,
                "task_args": {"k": 4, "length": 5, "n_words": words7, "n_answers": words7}}]
    if scale.current() == "smoke":  # too slow for a smoke run (about an hour on a CPU core)
        lk = results.load("depth_figure7_l5", "default")
    else:
        lk = results.load_or_run("depth_figure7_l5", fig2_config, lk_grid,
                                 lambda p: curves_point(p, seeds, device=device), heavy=True)
    if lk is not None:
        run5 = lk.points[0]["result"]["1x1x10"]
        acc5 = np.array(run5["acc"])
        fig, ax = plt.subplots(figsize=(7, 3.4))
        plots.curves(run5["steps"], {"3 layers [1, 1, 10]": acc5}, ax=ax, title="IC-TM, l=5, k=4", chance=1 / 4,
                     band="minmax")
        plots.stamp(ax, lk.label() + " · band: min-max over seeds")
        plt.show()
        print("final accuracy per seed:", acc5[:, -1].round(3))
        claims.record(paper="chen2024", ref="Figure 7 (l=5, k=4)", chapter=CHAPTER, label="depth-fig7-k",
                      statement="3 layers learn in-context template matching at l=5, k=4",
                      paper_value="learned (curves reach 1)",
                      ours=f"[1, 1, 10], final per seed {', '.join(f'{a:.2f}' for a in acc5[:, -1])} after "
                           f"{run5['steps'][-1]} steps (1/k = 0.25)",
                      passed=bool((acc5[:, -1] >= 0.95).sum() * 2 > len(acc5)),
                      partly=bool(acc5[:, -1].max() >= 0.95 or acc5[:, -1].mean() > 0.5),
                      substitute=f"{words7} words and answers instead of 100, CPU", scale=lk.scale)

# %% [markdown]
# At $l = 5$ the model does not get there at our budget: two seeds of three leave $1/k$ but level
# off far below 1 and the third stays at $1/k$ (the curves are flat over the second half of
# training; final accuracies printed above), so this run does not
# reproduce Figure 7 at the paper's $l$ and $k$. With 52 templates, every pair of which the match
# layer must tell apart, the task is much harder than at $l = 3$; whether more steps, the paper's
# 100 words, or its SGD recipe close the gap is open here, and a `paper`-scale run on a GPU is
# the way to find out.

# %% [markdown]
# (depth-discussion)=
# ## What reproduces, and where we differ
#
# - **Constructions.** Theorems 1, 3 and 5 hold exactly as stated, on whole tasks and at the
#   paper's sizes; Theorem 6 holds for a corrected construction (the printed one does not work).
#   See {ref}`depth-constructions`.
# - **Impossibility.** The linear-dependence identity holds to rounding for ReLU with any number
#   of heads and for one softmax head, and training cannot beat the 3/4 bound of Theorem 2; with
#   several softmax heads the identity fails, which the paper leaves open. See {ref}`depth-limits`.
# - **Figure 2.** The thresholds reproduce at reduced sizes: one layer memorizes and sits at $1/k$
#   or chance elsewhere, two layers solve in-context QA and template matching, three solve
#   in-context template matching while one and two do not. They rely on the paper's initialisation:
#   from random weights, at our budget, no depth learns the three generated tasks. More depth is not
#   uniformly better: with the same SGD recipe, three one-head layers are unstable on in-context QA
#   and template matching (some seeds diverge; see the table under Figure 2), which the paper does
#   not show because it plots at most the depth each task needs.
# - **Figure 3.** Trained models use a soft version of the copy-match circuit (match share above
#   $1/k$, below the construction's 1); the comparison is biased by the constructed first layer.
# - **Figures 4-7.** More heads speed memorization with Adam (with SGD the $1/m$ average makes them
#   slower); heads do not matter for in-context QA and template matching. Figure 7's orderings do
#   not reproduce: with templates of length 2 the fastest model has four last-layer heads, and with
#   length 3 ({ref}`depth-fig7-k`) a single last head never learns while the construction's $2l$
#   heads do (fully at $k = 2$, in two seeds of three at $k = 4$, still climbing at $k = 3$); a
#   fourth layer is slower, not faster. At the paper's $l = 5$, $k = 4$ (10 words instead of 100)
#   the construction's head count levels off far below 1 (at most 0.51) after 20,000 steps.
# - **Scale.** Results shown come from `data/` at the scale printed on each figure (the `default`
#   scale on a CPU unless a `paper`-scale file exists); the paper's sizes run with
#   `ABC_SCALE=paper` on a GPU.
