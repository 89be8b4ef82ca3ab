"""The figures of the depth-extrapolation chapters (Richard 2024), drawn from stored results and
the tables of :mod:`.analysis`; each returns the matplotlib figure (the chapter shows it).
Nothing here computes a claim, and nothing here is imported by the sweeps."""
from __future__ import annotations

import numpy as np

from ... import plots, validate
from ...results import Result
from ...tasks import dyck_words as dw
from . import closed_form as cf
from . import readings

#: the k-means clusters of the Figure 7 picture (the paper draws 8 of 1024 curves; ours has 32)
KMEANS_CLUSTERS = 4


def _per_seed(part, metric: str) -> np.ndarray:
    """A metric's per-seed values along a frame's rows (:func:`.readings.frame`), as ``(seeds, rows)``."""
    return np.array([list(v) for v in part[f"{metric}_seeds"]], dtype=float).T


def memorization(jl, t: int, n: int):
    """Theorem 3.1: exact log loss against v gamma / n for each JL width, with both bounds."""
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6, 3.6))
    for eps, part in jl.groupby("ε"):
        line, = ax.plot(part["vγ/n"], part["log loss"], "o-", label=f"exact loss, ε = {eps} (d = {part['d'].iloc[0]})")
        ax.plot(part["vγ/n"], part["log margin bound"], ":", color=line.get_color())
        ax.plot(part["vγ/n"], part["log paper bound"], "--", color=line.get_color(), alpha=0.6)
        ax.plot(part["vγ/n"], part["log loss, JL rescaled to margin 1"], "x", color=line.get_color())
    ax.plot([], [], "k:", label="margin bound (holds)")
    ax.plot([], [], "kx", label="exact loss, the same E rescaled to margin 1")
    ax.plot([], [], "k--", alpha=0.6, label="Theorem 3.1's bound")
    ax.set(xscale="log", xlabel="vγ / n", ylabel="natural log of the loss", title="One head memorizes one sequence")
    plots.legend_outside(ax)
    plots.stamp(fig, f"closed-form model (Eq. 1 with Eq. 4, JL embedding); t = {t}, n = {n}; exact computation")
    return fig


def path(picture: dict, title: str = "Theorem 4.1's head, γ = -1/2"):
    """Figure 2: the word's heights, the cumulative positional embedding, the prefix and its completion."""
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6.5, 3.6))
    r, k = picture["r"], len(picture["prefix"])
    ax.plot(r, picture["word"], "ks-", label="training word s: Δ_r(s)")
    ax.plot(r, picture["positional"], "r^-", label="cumulative positional embedding P_r")
    ax.plot(r[:k], picture["prefix"], "bo", ms=8, label=f"prefix z = {dw.to_string(picture['completion_word'][:k])}")
    ax.plot(r, picture["completion"], "*--", color="limegreen", label="completion of z")
    ax.axhline(0, color="0.6", lw=0.8)
    ax.set(xlabel="position r", ylabel="cumulative sum", title=title)
    plots.legend_outside(ax)
    plots.stamp(fig, f"closed-form model, N = {len(r) // 2}; completion {dw.to_string(picture['completion_word'])}")
    return fig


def architectures(arch_result, closed_weights: int, closed_acc: float):
    """Figure 3 (left): deep-prefix accuracy against parameters, one line per (L, h) (seed mean and
    its 95% interval), and the closed form."""
    validate.instance("architectures", "arch_result", arch_result, Result)
    import matplotlib.pyplot as plt

    arch = readings.frame(arch_result)
    fig, ax = plt.subplots(figsize=(6.2, 3.6))
    for (L, h), part in arch.groupby(["layers", "heads"]):
        plots.mean_and_interval(ax, part["params"], _per_seed(part, "deep_acc"), "o-" if (L, h) != (1, 1) else "o:",
                                label=f"L = {L}, h = {h}")
    ax.plot([closed_weights], [closed_acc], "D", color="limegreen", mec="k", ms=9, label="closed form")
    ax.set(xscale="log", xlabel="parameters", ylabel=f"valid completions, depth >= {arch_result.config['test_depth']}",
           title="Completion of deeper prefixes", ylim=(-0.03, 1.03))
    plots.legend_outside(ax)
    plots.stamp(fig, arch_result.label())
    return fig


def sample_size(size_result, closed_acc: float):
    """Figure 3 (right): in- and out-of-sample accuracy against distinct training words (seed mean
    and its 95% interval)."""
    validate.instance("sample_size", "size_result", size_result, Result)
    import matplotlib.pyplot as plt

    sizes = readings.frame(size_result)
    fig, ax = plt.subplots(figsize=(6.2, 3.6))
    for q, part in sizes.groupby("train_depth"):
        line = plots.mean_and_interval(ax, part["distinct_words"], _per_seed(part, "out_acc"), "o-",
                                       label=f"depth <= {q}, out of sample")
        plots.mean_and_interval(ax, part["distinct_words"], _per_seed(part, "in_acc"), "s--", color=line.get_color(),
                                alpha=0.7, label=f"depth <= {q}, in sample")
    ax.plot([1], [closed_acc], "D", color="limegreen", mec="k", ms=9, label="closed form (1 word)")
    ax.set(xscale="log", xlabel="distinct training words", ylabel="valid completions", ylim=(-0.03, 1.03),
           title=f"Prefixes of depth >= {size_result.config['test_depth']}")
    plots.legend_outside(ax)
    plots.stamp(fig, size_result.label())
    return fig


def spectra(comp_result):
    """Figure 5: eigenvalues of the last layer's value-output matrix, first seed of each model, as
    the map the layer applies (dots) and as nanoGPT's literal W_v W_proj^T (crosses)."""
    validate.instance("spectra", "comp_result", comp_result, Result)
    import matplotlib.pyplot as plt

    models = comp_result.points[0]["result"]["models"]
    fig, axes = plt.subplots(1, 2, figsize=(9, 3.4), sharex=True, sharey=True)
    for ax, (name, members) in zip(axes, models.items()):
        s, literal = members[0]["spectra"][-1], members[0]["spectra_nanogpt_literal"][-1]
        ax.scatter(s["eig_real"], s["eig_imag"], s=12, label="W_V W_O (the layer's map)")
        ax.scatter(literal["eig_real"], literal["eig_imag"], s=14, marker="x", label="nanoGPT's W_v W_proj^T")
        ax.axhline(0, color="0.7", lw=0.8)
        ax.axvline(0, color="0.7", lw=0.8)
        ax.set(title=name, xlabel="real part")
    axes[0].set_ylabel("imaginary part")
    axes[1].legend(fontsize=8)
    plots.stamp(fig, f"eigenvalues of the last layer's value-output matrix, two conventions; {comp_result.label()}")
    return fig


def ablations(abl_result, out):
    """Figure 6: out-of-sample (solid) and in-sample (dashed) accuracy of each trained variant, seed
    means with their 95% intervals."""
    validate.instance("ablations", "abl_result", abl_result, Result)
    import matplotlib.pyplot as plt

    abl = readings.frame(abl_result)
    fig, ax = plt.subplots(figsize=(6.4, 3.6))
    for variant in out.dropna(how="all").index:
        part = abl[abl["variant"] == variant]
        line = plots.mean_and_interval(ax, part["distinct_words"], _per_seed(part, "out_acc"), "o-", label=variant)
        plots.mean_and_interval(ax, part["distinct_words"], _per_seed(part, "in_acc"), "--", color=line.get_color(),
                                alpha=0.6)
    ax.set(xscale="log", xlabel="distinct training words", ylabel="valid completions (random-cut prefixes)",
           ylim=(-0.03, 1.03), title="Ablations (solid: out of sample, dashed: in sample)")
    plots.legend_outside(ax)
    plots.stamp(fig, f"{abl_result.label()}; {plots.BANDS}")
    return fig


def positional_paths(abl_result, variants, ratios: dict, word: str):
    """Figure 7: k-means centroids of each pictured variant's cumulative positional curves (its
    first seed at its chosen rate), and the closed form's P_r for ``word``; ``ratios``: each
    variant's per-seed end ratios (:func:`.checks.end_ratios`)."""
    validate.instance("positional_paths", "abl_result", abl_result, Result)
    import matplotlib.pyplot as plt

    from .training import kmeans

    paths = {row["point"]["variant"]: np.array(row["result"]["positional_paths"]) for row in abl_result.points
             if "positional_paths" in row["result"] and row["point"]["variant"] in variants}
    fig, axes = plt.subplots(1, 4, figsize=(12, 3.0), sharex=True)
    for ax, (variant, curves) in zip(axes, paths.items()):
        labels, centroids = kmeans(curves, KMEANS_CLUSTERS, seed=0)
        for j, c in enumerate(centroids):
            ax.plot(np.arange(1, len(c) + 1), c, label=f"{(labels == j).sum()} curves")
        ax.set(title=f"{variant}\n|end| / max = {np.mean(ratios[variant]):.2f} (seed mean)", xlabel="position r")
        ax.legend(fontsize=7)
    axes[0].set_ylabel("cumulative sum of B")
    picture = cf.path_picture(dw.from_string(word), dw.from_string(word[:4]))
    axes[3].plot(picture["r"], picture["positional"], "r^-", label="closed form P_r")
    axes[3].set(title="closed form (Theorem 4.1)", xlabel="position r")
    axes[3].legend(fontsize=7)
    plots.stamp(fig, f"k-means (k = {KMEANS_CLUSTERS}) centroids of the d = {abl_result.config['d']} curves; "
                     f"{abl_result.label()}")
    return fig, picture


def boolean_accuracy(fig1, result):
    """Figure 1: accuracy (log scale) against the training depth, per test depth, in and out of
    sample (seed means with their 95% intervals, :func:`lib.plots.mean_and_interval`; a seed's 0
    is drawn at half a test item), with the always-'true' baseline."""
    validate.instance("boolean_accuracy", "result", result, Result)
    import matplotlib.pyplot as plt

    depths, n_test = result.config["test_depths"], result.config["n_test"]
    fig, axes = plt.subplots(1, len(depths), figsize=(9, 3.4), sharey=True)
    floor = 0.5 / n_test  # zero drawn at half a test item, so the log axis can show it
    for ax, q in zip(np.atleast_1d(axes), depths):
        for where, colour, label in (("in", "tab:red", "in sample"), ("out", "tab:blue", "out of sample")):
            per_seed = np.maximum(_per_seed(fig1, f"{where}_{q}"), floor)
            plots.mean_and_interval(ax, list(fig1.index), per_seed, "o-", color=colour, label=label, bounds=(floor, 1.0))
        ax.plot(fig1.index, fig1[f"true_in_{q}"], ":", color="0.5", label="always 'true' (in sample)")
        ax.set(yscale="log", xlabel="training depth q", title=f"test expressions of depth {q}", xticks=list(fig1.index))
    np.atleast_1d(axes)[0].set_ylabel(f"accuracy (0 drawn at {floor:.3f})")
    plots.legend_outside(np.atleast_1d(axes)[-1])
    plots.stamp(fig, f"{result.label()}; {plots.BANDS}")
    return fig
