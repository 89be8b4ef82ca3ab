"""Figure 2's readings, each kept only where the data can tell it from its negation (rule 4 of
:mod:`lib.claims`), and Figure 3's (:func:`saturation_readings`).

:func:`~lib.papers.mahdavi2024.sweeps.figure2_trends` measures the paper's three readings;
:func:`figure2_readings` adds what each needs before it counts as evidence:

* **linear in H** (Fig. 2a; :func:`heads_fits` reads any sweep against H, Fig. 4's too): on four
  to six unsaturated points a concave curve also fits a line with R^2 near 1, so each fit is set
  beside the same least-squares fit against sqrt(H) and log(1 + H), and ``linear_best`` says
  whether the line fits better than both;
* **rising in n** (Fig. 2b): with a shared context, n = 1 gives every example the same output,
  so a rise measured from it cannot fail; ``rises_n`` is measured from the smallest n >= 2
  (``n_from``) instead;
* **flat beyond d_h = n** (Fig. 2c): a gain beyond d_h = n can show only if the accuracy at
  d_h = n leaves room below 1; ``room_d`` asks for at least twice the ``flat`` tolerance.

These read the seed means (the chapters' tables). The checks decide the same readings over seeds
(:mod:`lib.papers.mahdavi2024.checks.training`), with :func:`heads_lines`: a line per seed.
"""
from __future__ import annotations

import numpy as np

from ... import validate
from ...results import Result
from . import sweeps
from .training import _fit_points, linear_fit


def group_T(label: str) -> int:
    """The T of a group label ``"T=2000"``, as :func:`~lib.papers.mahdavi2024.sweeps.series` names
    the groups of a sweep against H (so that memorized counts, T x accuracy, can be formed)."""
    validate.instance("group_T", "label", label, str)
    name, _, value = label.partition("=")
    if name != "T" or not value.isdigit():
        raise ValueError(f"expected a group label 'T=<int>', got {label!r}")
    return int(value)


def first_informative_n(xs) -> int:
    """Index of the smallest context size n >= 2 in the sorted ``xs``: with a shared context,
    n = 1 gives every example the same output, so a trend measured from it cannot fail (used by
    Fig. 2b here and by the chapter's Fig. 5). Refuses a grid with no n >= 2 (no trend can be
    measured from it)."""
    xs = validate.integers("first_informative_n", "xs", xs, minimum=1)
    if any(b <= a for a, b in zip(xs, xs[1:])):
        validate.fail("first_informative_n", "xs", "context sizes in increasing order", xs)
    index = next((i for i, v in enumerate(xs) if v >= 2), None)
    if index is None:
        validate.fail("first_informative_n", "xs", "a grid with some context size n >= 2 (n = 1 gives every example "
                      "the same output)", xs)
    return index


def saturation_readings(saturated, free_head, *, free: float = 0.95, many: float = 0.25,
                        majority: float = 0.5) -> tuple[bool, bool, bool]:
    """Figure 3 (Appendix H) read on the trained points, given per point the share of (head,
    example) pairs that are saturated and the share of examples with a non-saturated head; returns
    ``(free_head, many, majority)``: ``free_head`` (at least ``free`` of the examples keep such a
    head at every point), ``many`` (at least ``many`` of the pairs saturated at every point) and ``majority`` (at least
    ``majority`` at every point: the paper's "most")."""
    owner = "saturation_readings"
    saturated, free_head = validate.array(owner, "saturated", saturated, 1), validate.array(owner, "free_head", free_head, 1)
    for name, values in (("saturated", saturated), ("free_head", free_head)):
        if values.size == 0 or values.min() < 0 or values.max() > 1:
            validate.fail(owner, name, "a non-empty list of shares in [0, 1]", values.tolist())
    if len(saturated) != len(free_head):
        validate.fail(owner, "free_head", f"one share per point ({len(saturated)})", f"{len(free_head)} shares")
    for name, value in (("free", free), ("many", many), ("majority", majority)):
        validate.real(owner, name, value, minimum=0.0, maximum=1.0)
    return bool((free_head >= free).all()), bool((saturated >= many).all()), bool((saturated >= majority).all())


def concave_fits(h, count) -> dict:
    """R^2 of the least-squares fits of ``count`` against sqrt(H) and log(1 + H), and whether the
    line through ``(h, count)`` fits better than both (``linear_best``)."""
    h, count = validate.array("concave_fits", "h", h, 1), validate.array("concave_fits", "count", count, 1)
    if h.size and h.min() < 0:
        validate.fail("concave_fits", "h", "head counts >= 0 (sqrt and log(1 + H) are fitted)", h.tolist())
    _fit_points("concave_fits", h, count)
    concave = {"r2_sqrt": linear_fit(np.sqrt(h), count)["r2"], "r2_log": linear_fit(np.log1p(h), count)["r2"]}
    return {**concave, "linear_best": bool(linear_fit(h, count)["r2"] > max(concave.values()))}


def _unsaturated(owner: str, result: Result, saturated: float, least: int):
    """Per T of a sweep against H, the H whose mean accuracy over seeds is below ``saturated`` and
    the per-seed accuracies there ``(points, seeds)``; a T with fewer than ``least`` such points
    is left out (a line through two points cannot fail)."""
    validate.instance(owner, "result", result, Result)
    validate.real(owner, "saturated", saturated, above=0.0, maximum=1.0)
    validate.integer(owner, "least", least, minimum=2)
    xs, acc = sweeps.series(result, "H", "acc")
    for group, arr in acc.items():
        keep = arr.mean(1) < saturated
        if keep.sum() >= least:
            yield group, np.array(xs)[keep], arr[keep]


def heads_fits(result: Result, *, saturated: float = 0.95, least: int = 3) -> dict:
    """Fig. 2a's reading of "linear in H" on any sweep against H (Figures 2a and 4, at any size):
    per T, the least-squares line through the memorized count (T x mean accuracy over seeds)
    against H on the points below ``saturated`` accuracy, with its R^2 (``slope`` is examples
    memorized per head), set beside the fits against sqrt(H) and log(1 + H)
    (:func:`concave_fits`). A curve with fewer than ``least`` such points gets no fit."""
    fits = {}
    for group, h, acc in _unsaturated("heads_fits", result, saturated, least):
        count = group_T(group) * acc.mean(1)
        fits[group] = {"points": len(h), **linear_fit(h, count), **concave_fits(h, count)}
    return fits


def heads_lines(result: Result, *, saturated: float = 0.95, least: int = 3) -> dict:
    """Fig. 2a's "linear in H" read seed by seed (Figures 2a and 4, at any size), for a check that
    decides over seeds: per T, on the points of :func:`heads_fits`, each seed's least-squares line
    through its memorized count (T x accuracy) against H. Returns per T ``H`` (the points kept)
    and, one value per seed, ``slope`` (examples per head), ``r2`` and ``margin``: the line's R^2
    less the better of the fits against sqrt(H) and log(1 + H) (:func:`concave_fits`)."""
    lines = {}
    for group, h, acc in _unsaturated("heads_lines", result, saturated, least):
        h = h.astype(float)
        fits = [{**linear_fit(h, count), **concave_fits(h, count)} for count in (group_T(group) * acc).T]
        lines[group] = {"H": [int(v) for v in h], "slope": np.array([f["slope"] for f in fits]),
                        "r2": np.array([f["r2"] for f in fits]),
                        "margin": np.array([f["r2"] - max(f["r2_sqrt"], f["r2_log"]) for f in fits])}
    return lines


def figure2_readings(fig2a: Result, fig2b: Result, fig2c: Result, *, saturated: float = 0.95,
                     rise: float = 0.1, flat: float = 0.05, **kwargs) -> dict:
    """:func:`~lib.papers.mahdavi2024.sweeps.figure2_trends` with the three additions of the
    module docstring: each fit gains ``r2_sqrt``, ``r2_log`` and ``linear_best``; ``rises_n``
    is measured from ``n_from`` (the smallest n >= 2); ``room_d`` is added."""
    owner = "figure2_readings"
    for name, value in (("fig2a", fig2a), ("fig2b", fig2b), ("fig2c", fig2c)):
        validate.instance(owner, name, value, Result)
    validate.real(owner, "saturated", saturated, above=0.0, maximum=1.0)
    validate.real(owner, "rise", rise, minimum=0.0, maximum=1.0)
    validate.real(owner, "flat", flat, minimum=0.0, maximum=0.5)
    trends = sweeps.figure2_trends(fig2a, fig2b, fig2c, saturated=saturated, rise=rise, flat=flat, **kwargs)
    trends["fits"] = heads_fits(fig2a, saturated=saturated)
    xs_n, _ = sweeps.series(fig2b, "n", "acc")
    first = first_informative_n(xs_n)
    at_n = trends["at_d"][max(v for v in trends["at_d"] if v <= trends["n"])]
    return {**trends, "n_from": xs_n[first],
            "rises_n": all(bool(m[-1] >= m[first] + rise) for m in trends["means_n"].values()),
            "room_d": bool(at_n <= 1 - 2 * flat)}
