"""Plotting helpers of the separation chapters (moved out of the chapters, issue 30); not imported
by :mod:`.sweeps`."""
from __future__ import annotations

import numpy as np

from .sweeps import best_curves


def curves_panel(result, length: int, ax, title: str) -> None:
    """Each architecture's accuracy curve at its best learning rate, the mean over seeds with its
    95% interval (:func:`lib.plots.mean_and_interval`), for those trained at ``length``."""
    from ... import plots

    for arch in result.config["archs"]:
        if not any(p["point"] == {"arch": arch, "length": length} for p in result.points):
            continue
        steps, acc, lr = best_curves(result, arch, length)
        plots.mean_and_interval(ax, steps, acc, "-", label=f"{arch}, lr {lr:g}")
    ax.set(xlabel="training step", ylabel=f"accuracy at length {length}", ylim=(0, 1.02), title=title)


def by_length(ax, table, models, *, chance: float | None = None, title: str = "") -> None:
    """Final accuracy against length for each of ``models``: the seed mean at each point's best
    learning rate with its 95% interval; ``table``: :func:`.analysis.seed_table` (or the
    equality table of one variant, which has the same columns)."""
    from ... import plots

    for model in models:
        rows = table[table["model"] == model].sort_values("N")
        per_seed = np.array([list(v) for v in rows["per seed"]]).T  # (seeds, lengths)
        plots.mean_and_interval(ax, list(rows["N"]), per_seed, "o-", label=model)
    if chance is not None:
        ax.axhline(chance, color="0.5", ls=":", lw=1, label="chance")
    ax.set(xlabel="length N", ylabel="accuracy at length N (best lr)", ylim=(0, 1.02), title=title)


def width_panels(mw, axes) -> None:
    """Figure 3 (reduced): a heatmap of Mamba's mean accuracy over (length, width) on ``axes[0]``,
    then one panel per length of accuracy against width for Mamba and the LSTM (mean over seeds
    with its 95% interval, :func:`lib.plots.sweep`) and the transformer as a dashed line (its seed
    mean) on a grey band (its 95% interval)."""
    from ... import plots
    from .analysis import width_table

    table = width_table(mw)
    plots.heatmap(table[table["kind"] == "Mamba"], x="width", y="N", value="mean", ax=axes[0],
                  title="Mamba: accuracy at length N")
    chance = 1 / mw.config["n_symbols"]
    for ax, (n, rows) in zip(axes[1:], table.groupby("N")):
        values = {}
        for kind in ("Mamba", "LSTM"):
            part = rows[rows["kind"] == kind].sort_values("width")
            values[f"{kind}-({int(part['layers'].iloc[0])}, width)"] = np.array(list(part["per seed"]))
        widths = sorted(rows[rows["kind"] == "Mamba"]["width"])
        plots.sweep(widths, values, ax=ax, xlabel="width", ylabel=f"accuracy at N = {n}", chance=chance,
                    legend=None, title=f"N = {n}", band="ci95")
        ax.set_xscale("log", base=2)
        ax.set_xticks(widths, [str(w) for w in widths])
        for _, tf in rows[rows["kind"] == "TF"].iterrows():
            plots.level_and_interval(ax, tf["per seed"], label=tf["model"])
        ax.set_ylim(0, 1.02)
