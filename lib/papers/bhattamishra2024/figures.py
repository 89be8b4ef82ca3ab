"""Plotting helpers of the separation chapters (moved out of the chapters, issue 30); not imported
by :mod:`.sweeps`."""
from __future__ import annotations

from .sweeps import best_curves


def curves_panel(result, length: int, ax, title: str) -> None:
    """Each architecture's accuracy curves at its best learning rate (mean and seeds), for those
    trained at ``length``."""
    for arch in result.config["archs"]:
        if not any(p["point"] == {"arch": arch, "length": length} for p in result.points):
            continue
        steps, acc, lr = best_curves(result, arch, length)
        line, = ax.plot(steps, acc.mean(0), label=f"{arch}, lr {lr:g}")
        for seed_curve in acc:
            ax.plot(steps, seed_curve, color=line.get_color(), alpha=0.25, lw=0.8)
    ax.set(xlabel="training step", ylabel=f"accuracy at length {length}", ylim=(0, 1.02), title=title)
