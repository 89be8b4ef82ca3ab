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
PAGE_WIDTH = 6.8  # inches: at the style's 100 dpi a figure this wide fills the article column (680 px)
FONT_PT = 9.5  # the smallest type in a figure, in points at page width
VERDICT_COLORS = {"reproduced": "#1a7f37", "substituted": "#0969da", "partly": "#bf8700", "inconclusive": "#6e7781",
                  "not reproduced": "#cf222e"}


#: what the band of :func:`curves`, :func:`sweep` and :func:`mean_and_interval` is, for a figure's stamp
BANDS = "bands: 95% intervals of the seed mean"


def use_style() -> None:
    """The book's style: seaborn ``whitegrid``, colour-blind palette, and type sized for the page:
    a figure at most :data:`PAGE_WIDTH` wide shows every label at :data:`FONT_PT` points or more
    when the book's column displays it (constrained layout, so nothing overlaps)."""
    sns.set_theme(context="notebook", style="whitegrid", palette=PALETTE)
    plt.rcParams.update({
        "figure.figsize": (4.6, 3.0), "figure.dpi": 100, "savefig.bbox": "tight",
        "figure.constrained_layout.use": True,
        "font.size": FONT_PT, "axes.titlesize": FONT_PT + 0.5, "axes.labelsize": FONT_PT,
        "xtick.labelsize": FONT_PT, "ytick.labelsize": FONT_PT, "legend.fontsize": FONT_PT,
        "legend.title_fontsize": FONT_PT, "figure.titlesize": FONT_PT + 1.5, "legend.frameon": False,
    })


def panels(n: int, ncols: int | None = None, *, height: float = 2.4, sharey: bool = False, width: float = PAGE_WIDTH):
    """A figure of ``n`` panels laid out for the page: at most three per row (two by default
    when ``n`` > 1), ``height`` inches per row, ``width`` the whole figure. Returns ``(fig, axes)``
    with ``axes`` a flat list of the ``n`` panels (spare cells of the grid are removed)."""
    if n < 1:
        raise ValueError(f"plots.panels: need at least one panel, got n={n}")
    ncols = ncols or min(n, 2)
    if not 1 <= ncols <= 3:
        raise ValueError(f"plots.panels: at most three panels per row keep the type readable, got ncols={ncols}")
    nrows = -(-n // ncols)
    fig, grid = plt.subplots(nrows, ncols, figsize=(width, height * nrows), squeeze=False, sharey=sharey)
    axes = list(grid.flat)
    for ax in axes[n:]:
        fig.delaxes(ax)
    return fig, axes[:n]


def legend_outside(ax, **kwargs):
    """The axes' legend to the right of its plot, never over the data."""
    handles, labels = ax.get_legend_handles_labels()
    if handles:
        ax.legend(handles, labels, loc="upper left", bbox_to_anchor=(1.02, 1.0), borderaxespad=0.0, **kwargs)
    return ax


def shared_legend(fig, axes, ncols: int | None = None):
    """One legend above all ``axes`` (entries de-duplicated by label), replacing theirs. Above,
    not below: :func:`stamp` writes its line under the figure, and a legend there would overlap it."""
    entries = {}
    for ax in axes:
        for handle, label in zip(*ax.get_legend_handles_labels()):
            entries.setdefault(label, handle)
        if ax.get_legend() is not None:
            ax.get_legend().remove()
    if entries:
        fig.legend(list(entries.values()), list(entries), loc="outside upper center",
                   ncols=ncols or min(len(entries), 3))
    return fig


def stamp(target, text: str) -> None:
    """Write a provenance line (scale, device, code version) under the whole figure of
    ``target`` (a figure or any of its axes), below every axis label and legend, wrapped to the
    figure's width."""
    import textwrap

    fig = target if isinstance(target, plt.Figure) else target.figure
    chars = max(40, int(fig.get_figwidth() * 72 / (0.55 * (FONT_PT - 1))))
    fig.text(0.0, 0.0, "\n".join(textwrap.wrap(text, chars)), ha="left", va="top", fontsize=FONT_PT - 1,
             color="0.35", transform=fig.transFigure)


def _bounds_for(label: str):
    """The range a metric can take, from its axis label: accuracies lie in [0, 1]; losses,
    errors and MSEs are non-negative; anything else is unbounded."""
    label = label.lower()
    if "accuracy" in label or label.startswith("acc"):
        return (0.0, 1.0)
    if any(word in label for word in ("loss", "error", "mse")):
        return (0.0, None)
    return None


def _mean_with_band(ax, x, values: Mapping[str, np.ndarray], *, band: str = "ci95", marker: str | None = None,
                    logy: bool = False, xlabel: str = "", ylabel: str = "", title: str | None = None,
                    chance: float | None = None, bounds="auto", legend: str | None = "outside"):
    """The one drawing routine behind :func:`curves` and :func:`sweep`: for each group, the mean
    over seeds and a band (``"ci95"``, the default: the 95% interval of the mean,
    :func:`seed_interval`, what a trained claim is decided on; ``"sd"``: +- one standard deviation;
    ``"minmax"``; ``"none"``). One seed draws no band.
    ``values`` maps a group label to an array ``(seeds, len(x))``. The band is clipped to
    ``bounds`` (``"auto"``: from the y label, see :func:`_bounds_for`; or ``(lo, hi)``, either
    may be None), so a band never shows an accuracy above 1. On a log axis (``logy``) the band is
    left out wherever its lower end is not positive: an interval that reaches 0 has no log. ``legend``: ``"outside"``
    (right of the plot), ``"inside"`` (matplotlib's best spot) or None."""
    if bounds == "auto":
        bounds = _bounds_for(ylabel)
    lo_bound, hi_bound = bounds if bounds else (None, None)
    colors = sns.color_palette(PALETTE, len(values))
    for color, (label, arr) in zip(colors, values.items()):
        arr = np.atleast_2d(np.asarray(arr, dtype=float))
        mean = arr.mean(0)
        seeds = f"{arr.shape[0]} seed" + "s" * (arr.shape[0] != 1)
        ax.plot(x, mean, color=color, marker=marker, markersize=3, label=f"{label} ({seeds})")
        if band != "none" and arr.shape[0] > 1:
            lo, hi = ((mean - arr.std(0), mean + arr.std(0)) if band == "sd" else seed_interval(arr)
                      if band == "ci95" else (arr.min(0), arr.max(0)))
            if logy:
                lo = np.where(lo > 0, lo, np.nan)  # an interval reaching 0 has no log: no band there
            _band(ax, x, lo, hi, color, (lo_bound, hi_bound), alpha=0.2)
    if chance is not None:
        ax.axhline(chance, color="0.5", linestyle=":", linewidth=1, label="chance")
    if logy:
        ax.set_yscale("log")
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    if title:
        ax.set_title(title)
    if legend == "outside":
        legend_outside(ax)
    elif legend == "inside":
        ax.legend()
    elif legend is not None:
        raise ValueError(f"legend must be 'outside', 'inside' or None, got {legend!r}")
    return ax


def seed_interval(per_seed) -> tuple[np.ndarray, np.ndarray]:
    """The 95% interval of the mean over seeds at each x (:func:`lib.stats.mean_interval`, Student's
    t) of an array ``(seeds, len(x))``: what a figure's band shows where a trained claim is
    decided over seeds. With one seed there is no interval: both bounds are the value. Where a seed's
    value is not finite (a diverged loss stored as null), so is the mean, and the interval is NaN
    there: no band, as no line."""
    from .stats import mean_interval

    arr = np.atleast_2d(np.asarray(per_seed, dtype=float))
    if arr.shape[0] < 2:
        return arr[0], arr[0]
    bounds = [mean_interval(column) if np.isfinite(column).all() else None for column in arr.T]
    return (np.array([np.nan if b is None else b.low for b in bounds]),
            np.array([np.nan if b is None else b.high for b in bounds]))


def mean_and_interval(ax, x, per_seed, fmt: str = "o-", *, label: str | None = None, bounds=(0.0, 1.0), **kwargs):
    """One line of a figure whose points are seed means: the mean of ``per_seed`` (``(seeds,
    len(x))``) drawn with ``fmt`` and its 95% interval (:func:`seed_interval`) as a band clipped
    to ``bounds``; the label says how many seeds. Returns the line."""
    arr = np.atleast_2d(np.asarray(per_seed, dtype=float))
    seeds = f"{arr.shape[0]} seed" + "s" * (arr.shape[0] != 1)
    line, = ax.plot(x, arr.mean(0), fmt, label=f"{label} ({seeds})" if label else None, **kwargs)
    if arr.shape[0] > 1:
        _band(ax, x, *seed_interval(arr), line.get_color(), bounds, alpha=0.18)
    return line


def level_and_interval(ax, per_seed, *, label: str | None = None, bounds=(0.0, 1.0), color="0.2", alpha: float = 0.12,
                       **kwargs):
    """A level across the whole axis (a reference model's score, say): the mean of ``per_seed``
    (one value per seed) as a dashed line and its 95% interval (:func:`seed_interval`) as a
    horizontal band clipped to ``bounds``; the label says how many seeds. Returns the line."""
    arr = np.asarray(per_seed, dtype=float).reshape(-1)
    seeds = f"{arr.size} seed" + "s" * (arr.size != 1)
    line = ax.axhline(arr.mean(), color=color, ls="--", lw=1, label=f"{label} ({seeds})" if label else None, **kwargs)
    if arr.size > 1:
        low, high = _clipped(*(float(b[0]) for b in seed_interval(arr[:, None])), bounds)
        ax.axhspan(low, high, color=color, alpha=alpha, lw=0)
    return line


def _clipped(lo, hi, bounds):
    """``lo`` and ``hi`` (numbers or arrays) clipped to ``bounds`` ``(low, high)`` (either may be None)."""
    lo = lo if bounds[0] is None else np.maximum(lo, bounds[0])
    hi = hi if bounds[1] is None else np.minimum(hi, bounds[1])
    return lo, hi


def _band(ax, x, lo, hi, color, bounds, *, alpha: float) -> None:
    """A band from ``lo`` to ``hi``, clipped to ``bounds`` ``(low, high)`` (either may be None)."""
    ax.fill_between(x, *_clipped(lo, hi, bounds), color=color, alpha=alpha, linewidth=0)


def curves(steps: Sequence[float], values: Mapping[str, np.ndarray], *, ax=None, ylabel: str = "accuracy",
           xlabel: str = "training step", title: str | None = None, band: str = "ci95", chance: float | None = None,
           bounds="auto", legend: str | None = "outside", logy: bool = False):
    """Mean curve with a band over seeds for each group, against training steps.

    ``values`` maps a group label (e.g. ``"1 layer"``) to an array ``(seeds, len(steps))``.
    ``band`` is ``"ci95"`` (the 95% interval of the mean over seeds, the default), ``"sd"`` (mean
    +- one standard deviation), ``"minmax"`` or ``"none"``; the band is clipped to the metric's
    range (``bounds``, see :func:`_mean_with_band`); ``logy``: a log y axis.
    """
    return _mean_with_band(ax or plt.subplots()[1], steps, values, band=band, xlabel=xlabel, ylabel=ylabel,
                           title=title, chance=chance, bounds=bounds, legend=legend, logy=logy)


def sweep(x: Sequence[float], values: Mapping[str, np.ndarray], *, ax=None, xlabel: str = "", ylabel: str = "",
          title: str | None = None, logy: bool = False, chance: float | None = None, bounds="auto",
          legend: str | None = "outside", band: str = "ci95"):
    """Mean over seeds with a band (``band``, as in :func:`curves`: the 95% interval of the mean
    by default) against a swept variable, one line per group.

    ``values`` maps a group label (e.g. ``"T=200"``) to an array ``(len(x), seeds)`` (as
    :func:`lib.papers.mahdavi2024.sweeps.series` returns it).
    """
    ax = ax or plt.subplots()[1]
    values = {label: np.asarray(arr, dtype=float).reshape(len(x), -1).T for label, arr in values.items()}
    _mean_with_band(ax, x, values, band=band, marker="o", logy=logy, xlabel=xlabel, ylabel=ylabel, title=title,
                    chance=chance, bounds=bounds, legend=legend)
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


def number(value, digits: int = 3) -> str:
    """A number as a reader wants it: integers (and integral floats) without decimals or exponent,
    thousands separated from 10,000; other floats to ``digits`` significant digits, tiny ones in
    short scientific form; NaN and None as an en dash; anything else unchanged."""
    import math
    import numbers

    if value is None or (isinstance(value, numbers.Real) and not isinstance(value, bool) and math.isnan(value)):
        return "–"
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        return str(value)
    if math.isinf(value):
        return "∞" if value > 0 else "-∞"
    if float(value).is_integer() and abs(value) < 1e15:
        value = int(value)
        return f"{value:,}" if abs(value) >= 10_000 else str(value)
    if abs(value) >= 10 ** digits:
        return f"{round(value):,}"
    if abs(value) < 10 ** -(digits):
        return f"{value:.1e}"
    return f"{value:.{digits}g}"


def readable(obj, digits: int = 3) -> str:
    """Numbers inside dicts, lists and arrays written for reading (see :func:`number`):
    ``{"1 head": np.float64(0.7912)}`` -> ``"1 head: 0.791"``; ``[0.25, 0.5]`` -> ``"[0.25, 0.5]"``."""
    if isinstance(obj, Mapping):
        return ", ".join(f"{key}: " + (f"({readable(value, digits)})" if isinstance(value, Mapping)
                                         else readable(value, digits)) for key, value in obj.items())
    if isinstance(obj, np.ndarray):
        obj = obj.tolist()
    if isinstance(obj, (list, tuple)):
        return "[" + ", ".join(readable(value, digits) for value in obj) + "]"
    return number(obj, digits)


def table(frame, digits: int = 3, index: bool = True):
    """A DataFrame (or Series) for the page: every number through :func:`number` (NaN as a
    dash, integers as integers), the index kept or hidden. Returns a pandas ``Styler``, which
    the book renders as a plain HTML table."""
    import pandas as pd

    if isinstance(frame, pd.Series):
        frame = frame.to_frame()
    styler = (frame.style.format(lambda v: number(v, digits)).format_index(lambda v: number(v, digits))
              .format_index(lambda v: number(v, digits), axis=1))
    return styler if index else styler.hide(axis="index")


def paper_vs_ours(rows: Sequence[Mapping], columns: Sequence[str] = ("quantity", "paper", "ours")):
    """A "paper vs ours" table (see :func:`table`) with one row per quantity."""
    import pandas as pd

    return table(pd.DataFrame([{c: r.get(c, "") for c in columns} for r in rows]).set_index(columns[0]))


def verdict_bars(counts: Mapping[str, Mapping[str, int]], ax=None):
    """One horizontal bar per paper, split by verdict (colours of :data:`VERDICT_COLORS`);
    ``counts`` maps a paper's short name to ``{verdict: count}``."""
    ax = ax or plt.subplots(figsize=(PAGE_WIDTH, 0.45 * len(counts) + 1.0))[1]
    names = list(counts)[::-1]
    left = np.zeros(len(names))
    for verdict, color in VERDICT_COLORS.items():
        widths = np.array([counts[n].get(verdict, 0) for n in names], dtype=float)
        bars = ax.barh(names, widths, left=left, color=color, label=verdict, height=0.6)
        ax.bar_label(bars, labels=[str(int(w)) if w else "" for w in widths], label_type="center", color="white",
                     fontsize=FONT_PT, fontweight="bold")
        left += widths
    ax.set_xlabel("claims")
    ax.grid(axis="y", visible=False)
    ax.legend(loc="lower center", bbox_to_anchor=(0.5, 1.0), ncols=len(VERDICT_COLORS))
    return ax
