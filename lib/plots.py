"""One figure style and the plots that recur across the papers.

Every plot takes plain arrays or a :class:`lib.results.Result`, returns the matplotlib
``Axes`` it drew on, and can stamp the scale and provenance of the data on the figure
(:func:`stamp`), so a figure always says what produced it.
"""
from __future__ import annotations

from typing import Mapping, Sequence

import matplotlib.pyplot as plt
import numpy as np
import seaborn as sns

PALETTE = "colorblind"


def use_style() -> None:
    """The book's style: seaborn ``whitegrid``, colour-blind palette, compact fonts."""
    sns.set_theme(context="notebook", style="whitegrid", palette=PALETTE, font_scale=0.9)
    plt.rcParams.update({"figure.figsize": (6.0, 3.6), "figure.dpi": 110, "axes.titlesize": "medium",
                         "savefig.bbox": "tight"})


def stamp(ax, text: str, width: int = 60) -> None:
    """Write a provenance line (scale, device, code version) under the axes, wrapped at
    ``width`` characters so that stamps of side-by-side panels do not run into each other."""
    import textwrap

    ax.annotate("\n".join(textwrap.wrap(text, width)), xy=(0, -0.22), xycoords="axes fraction", fontsize=7,
                color="0.4", ha="left", va="top")


def _mean_with_band(ax, x, values: Mapping[str, np.ndarray], *, band: str = "sd", marker: str | None = None,
                    logy: bool = False, xlabel: str = "", ylabel: str = "", title: str | None = None,
                    chance: float | None = None):
    """The one drawing routine behind :func:`curves` and :func:`sweep`: for each group, the mean
    over seeds and a band (``"sd"``: +- one standard deviation, ``"minmax"``, ``"none"``).
    ``values`` maps a group label to an array ``(seeds, len(x))``."""
    colors = sns.color_palette(PALETTE, len(values))
    for color, (label, arr) in zip(colors, values.items()):
        arr = np.atleast_2d(np.asarray(arr, dtype=float))
        mean = arr.mean(0)
        ax.plot(x, mean, color=color, marker=marker, markersize=3, label=f"{label} ({arr.shape[0]} seeds)")
        if band != "none" and arr.shape[0] > 1:
            lo, hi = ((mean - arr.std(0), mean + arr.std(0)) if band == "sd" else (arr.min(0), arr.max(0)))
            if logy:
                lo = np.maximum(lo, mean * 1e-3)  # a band below zero has no log
            ax.fill_between(x, lo, hi, color=color, alpha=0.2, linewidth=0)
    if chance is not None:
        ax.axhline(chance, color="0.5", linestyle=":", linewidth=1, label="chance")
    if logy:
        ax.set_yscale("log")
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    if title:
        ax.set_title(title)
    ax.legend(fontsize="small", frameon=False)
    return ax


def curves(steps: Sequence[float], values: Mapping[str, np.ndarray], *, ax=None, ylabel: str = "accuracy",
           xlabel: str = "training step", title: str | None = None, band: str = "sd", chance: float | None = None):
    """Mean curve with a band over seeds for each group, against training steps.

    ``values`` maps a group label (e.g. ``"1 layer"``) to an array ``(seeds, len(steps))``.
    ``band`` is ``"sd"`` (mean +- one standard deviation), ``"minmax"`` or ``"none"``.
    """
    return _mean_with_band(ax or plt.subplots()[1], steps, values, band=band, xlabel=xlabel, ylabel=ylabel,
                           title=title, chance=chance)


def sweep(x: Sequence[float], values: Mapping[str, np.ndarray], *, ax=None, xlabel: str = "", ylabel: str = "",
          title: str | None = None, logy: bool = False, chance: float | None = None):
    """Mean over seeds with a +-1 sd band against a swept variable, one line per group.

    ``values`` maps a group label (e.g. ``"T=200"``) to an array ``(len(x), seeds)`` (as
    :func:`lib.papers.mahdavi2024.sweeps.series` returns it).
    """
    ax = ax or plt.subplots()[1]
    values = {label: np.asarray(arr, dtype=float).reshape(len(x), -1).T for label, arr in values.items()}
    _mean_with_band(ax, x, values, marker="o", logy=logy, xlabel=xlabel, ylabel=ylabel, title=title, chance=chance)
    ax.set_xticks(list(x))
    return ax


def heatmap(frame, *, x: str, y: str, value: str, ax=None, title: str | None = None, fmt: str = ".2f",
            vmin: float | None = 0.0, vmax: float | None = 1.0, cmap: str = "viridis"):
    """Heatmap of ``value`` over two sweep axes of a DataFrame (mean over repeated cells)."""
    ax = ax or plt.subplots()[1]
    table = frame.pivot_table(index=y, columns=x, values=value, aggfunc="mean").sort_index(ascending=False)
    sns.heatmap(table, annot=True, fmt=fmt, vmin=vmin, vmax=vmax, cmap=cmap, ax=ax, cbar_kws={"label": value})
    if title:
        ax.set_title(title)
    return ax


def attention_map(weights, *, tokens: Sequence[str] | None = None, ax=None, title: str | None = None,
                  vmax: float | None = None):
    """One head's attention matrix ``A[query, key]`` with token labels on both axes."""
    ax = ax or plt.subplots(figsize=(3.6, 3.2))[1]
    weights = np.asarray(weights.detach().cpu() if hasattr(weights, "detach") else weights, dtype=float)
    labels = list(tokens) if tokens is not None else False
    sns.heatmap(weights, ax=ax, cmap="rocket_r", vmin=0.0, vmax=vmax, square=True, xticklabels=labels,
                yticklabels=labels, cbar_kws={"shrink": 0.8})
    ax.set_xlabel("key (attended to)")
    ax.set_ylabel("query")
    if title:
        ax.set_title(title)
    return ax


def paper_vs_ours(rows: Sequence[Mapping], columns: Sequence[str] = ("quantity", "paper", "ours")):
    """A "paper vs ours" table as a pandas DataFrame (renders as an HTML table in the book)."""
    import pandas as pd

    return pd.DataFrame([{c: r.get(c, "") for c in columns} for r in rows]).set_index(columns[0])
