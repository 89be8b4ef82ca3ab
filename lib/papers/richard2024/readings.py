"""Readings of the stored Dyck training results (Richard 2024, Sec. 4.2, App. 5.3) for the chapter:
tables over seeds and the quantities the figures plot.

* :func:`frame`: one row per point, per-seed lists averaged at the best learning rate;
* :func:`valid_count`: how many of a context's sampled completions are Dyck words (Figure 4,
  Table 1);
* :func:`spectrum_rows`: the value-output spectrum of each layer of each model (Figure 5);
* :func:`end_ratio`: how far the cumulative positional curves end from the origin, relative to
  their size (Figure 7).
"""
from __future__ import annotations

import numpy as np

from ... import validate
from ...results import Result
from .training import best_lr


def frame(result: Result):
    """One row per point: its coordinates and metrics, where a per-member list of numbers becomes
    its mean over seeds (the list itself kept as ``<metric>_seeds``); nested records are left
    out. A point trained at several learning rates (an ``lr`` list) is read at its best rate
    (:func:`~.training.best_lr`: lowest training loss), given as ``lr``, with every rate's mean
    test accuracy in ``<metric>_by_lr``."""
    import pandas as pd

    validate.instance("frame", "result", result, Result)
    rows = []
    for p in result.points:
        row, value = dict(p["point"]), dict(p["result"])
        value.pop("seed", None)
        members = range(len(value.get("final_loss", [])))
        chosen = list(members)
        if isinstance(value.get("lr"), list):
            lrs = value.pop("lr")
            row["lr"] = best_lr(lrs, value["final_loss"])
            chosen = [k for k in members if lrs[k] == row["lr"]]
            for key in [k for k, v in value.items() if k.endswith("_acc") and isinstance(v, list)]:
                row[f"{key}_by_lr"] = {lr: float(np.mean([v for r, v in zip(lrs, value[key]) if r == lr]))
                                       for lr in dict.fromkeys(lrs)}
        for key, v in value.items():
            if isinstance(v, list) and v and all(isinstance(x, (int, float)) for x in v):
                if len(v) == len(members):
                    v = [v[k] for k in chosen]
                row[key], row[f"{key}_seeds"] = float(np.mean(v)), v
            elif not isinstance(v, (list, dict)):
                row[key] = v
        rows.append(row)
    return pd.DataFrame(rows)


def valid_count(context: dict) -> int:
    """Of a context's stored sampled completions (``completions``, ``counts``, ``valid``), how
    many are Dyck words."""
    validate.instance("valid_count", "context", context, dict)
    for key in ("counts", "valid"):
        if key not in context:
            validate.fail("valid_count", "context", "a dict with 'counts' and 'valid'", sorted(context))
    if len(context["counts"]) != len(context["valid"]):
        validate.fail("valid_count", "context", "counts and valid of equal lengths",
                      f"{len(context['counts'])} and {len(context['valid'])}")
    for i, c in enumerate(context["counts"]):
        validate.integer("valid_count", f"context['counts'][{i}]", c, 0)
    return int(sum(c for c, ok in zip(context["counts"], context["valid"]) if ok))


def spectrum_rows(models: dict, convention: str = "circuit") -> list[dict]:
    """For every model, seed and layer of the ``completions`` sweep, the value-output matrix's top
    two singular values' ratio, its effective rank ``(sum s)^2 / sum s^2`` and its eigenvalue of
    largest modulus (Figure 5's "low rank, dominant real negative eigenvalue"), in either
    convention of :func:`.training.ov_matrix`."""
    validate.instance("spectrum_rows", "models", models, dict)
    convention = validate.choice("spectrum_rows", "convention", convention, ("circuit", "nanogpt_literal"))
    key = "spectra" if convention == "circuit" else f"spectra_{convention}"
    rows = []
    for name, members in models.items():
        for member in members:
            for layer, spec in enumerate(member[key]):
                s = np.asarray(spec["singular"])
                eig = np.asarray(spec["eig_real"]) + 1j * np.asarray(spec["eig_imag"])
                rows.append({"model": name, "seed": member["seed"], "layer": layer, "σ1/σ2": float(s[0] / s[1]),
                             "effective rank": float(s.sum() ** 2 / (s**2).sum()),
                             "top eigenvalue": complex(eig[np.argmax(np.abs(eig))])})
    return rows


def end_ratio(curves: np.ndarray) -> float:
    """Figure 7's reading: the mean distance from 0 at which the cumulative positional curves
    (rows of ``curves``) end, over their mean largest excursion; the closed form's ``P_r`` ends
    within 1/2 of 0 after excursions as high as the word is deep."""
    curves = validate.array("end_ratio", "curves", curves, ndim=2)
    if curves.shape[0] < 1 or curves.shape[1] < 1:
        validate.fail("end_ratio", "curves", "a non-empty (curves, positions) array", f"shape {curves.shape}")
    if not np.abs(curves).max(1).mean() > 0:
        validate.fail("end_ratio", "curves", "curves with some non-zero value (the ratio divides by their size)",
                      "all zeros")
    return float(np.abs(curves[:, -1]).mean() / np.abs(curves).max(1).mean())
