"""The softmax chapter's measurements (Sec. 16; our extension): the ReLU constructions under
softmax, and the temperature thresholds of Theorems 1, 3, 5 and 6, each as one function that
returns its tables and fitted lines. Used by the chapter and by its checks (never imported by
the sweeps)."""
from __future__ import annotations

import numpy as np
import pandas as pd

from ... import validate
from ...models import accuracy
from ...tasks import InContextTemplateMatching
from . import softmax as build_softmax
from .softmax import exact_from


def relu_weights_under_softmax(cases: dict, betas) -> pd.DataFrame:
    """Accuracy of each ReLU construction loaded into a softmax model, per inverse temperature:
    ``cases`` maps a name to ``(model, data)``; one row per case, one column per beta."""
    validate.instance("relu_weights_under_softmax", "cases", cases, dict)
    build_softmax._betas("relu_weights_under_softmax", "betas", betas)
    acc = {name: [accuracy(build_softmax.with_attention(m, "softmax", b), data) for b in betas]
           for name, (m, data) in cases.items()}
    return pd.DataFrame(acc, index=pd.Index(betas, name="beta")).T


def exact_from_rows(table: pd.DataFrame) -> dict:
    """Per row of a (case x beta) accuracy table: the smallest beta from which every larger one is exact."""
    validate.instance("exact_from_rows", "table", table, pd.DataFrame)
    return {name: exact_from(list(table.columns), list(row)) for name, row in table.iterrows()}


def memorization_threshold(sizes, held_sizes, betas) -> dict:
    """Theorem 1 under softmax (float64, every sequence): the measured threshold per size, the
    line ``intercept + envelope + slope ln(V^l)`` fitted above them (largest residual added), its
    R^2, and the held-out sizes with the line's value beside the measured threshold."""
    build_softmax._sizes("memorization_threshold", held_sizes, 2)
    thresholds = pd.DataFrame(build_softmax.memorization_thresholds(sizes, betas))
    slope, intercept, envelope = build_softmax.upper_line(np.log(thresholds["sequences"]), thresholds["threshold"])
    fitted = intercept + slope * np.log(thresholds["sequences"])
    r2 = float(1 - ((thresholds["threshold"] - fitted) ** 2).sum()
               / ((thresholds["threshold"] - thresholds["threshold"].mean()) ** 2).sum())
    thresholds["stated threshold"] = fitted + envelope
    held = pd.DataFrame(build_softmax.memorization_thresholds(held_sizes, betas))
    held["stated threshold"] = intercept + envelope + slope * np.log(held["sequences"])
    return {"table": thresholds, "held": held, "slope": slope, "offset": intercept + envelope, "r2": r2}


def qa_threshold(sizes, held_sizes, betas, float32_grid, n_examples: int) -> dict:
    """Theorem 3 under softmax: float64 exactness and margins at ``betas``, the float32 threshold
    on ``float32_grid`` fitted as ``a n^power`` (largest residual added), tested on ``held_sizes``."""
    build_softmax._sizes("qa_threshold", held_sizes, 3)
    fitted = pd.DataFrame(build_softmax.in_context_qa_thresholds(sizes, betas, float32_grid, n_examples))
    power, log_a, envelope = build_softmax.upper_line(np.log(fitted["n"]),
                                                      np.log(fitted["float32 threshold"].astype(float)))
    a = float(np.exp(log_a + envelope))
    held = pd.DataFrame(build_softmax.in_context_qa_thresholds(held_sizes, betas, float32_grid, n_examples))
    for frame in (fitted, held):
        frame["2/n^3"] = 2.0 / frame["n"] ** 3
        frame["stated float32 threshold"] = a * frame["n"] ** power
    return {"table": fitted, "held": held, "a": a, "power": float(power), "betas": list(betas),
            "n_examples": n_examples}


def tm_threshold(lengths, betas) -> dict:
    """Our softmax Theorem 5 on every template of each length: the smallest float64 margin, the
    margin at the largest beta, the float32 window of exactness and the ReLU construction in
    float32; with the fitted decades of margin lost per unit of l (l >= 3)."""
    if len({v for v in validate.integers("tm_threshold", "lengths", lengths, minimum=1) if v >= 3}) < 2:
        validate.fail("tm_threshold", "lengths", "at least 2 distinct lengths >= 3 (the fitted line has two "
                      "parameters)", lengths)
    rows = build_softmax.template_matching_thresholds(lengths, betas)
    summary = pd.DataFrame([{
        "l": r["l"], "templates": r["templates"], "smallest float64 margin": min(r["float64 margin"]),
        "float64 margin at beta = 1000": r["float64 margin"][-1],
        "float32 exact from": build_softmax.exact_window(betas, r["float32 accuracy"])[0],
        "float32 exact up to": build_softmax.exact_window(betas, r["float32 accuracy"])[1],
        "ReLU construction, float32": r["ReLU construction, float32 accuracy"]} for r in rows])
    large = summary[summary["l"] >= 3]
    decade, _ = np.polyfit(large["l"], np.log10(large["float64 margin at beta = 1000"]), 1)
    return {"rows": rows, "summary": summary, "decade": float(decade), "betas": list(betas)}


def ictm_softmax(cases: dict, betas) -> pd.DataFrame:
    """Our softmax Theorem 6 (``in_context_template_matching_softmax``): accuracy per case
    ``name -> (task, data)`` and inverse temperature."""
    validate.instance("ictm_softmax", "cases", cases, dict)
    build_softmax._betas("ictm_softmax", "betas", betas)
    acc = {name: [accuracy(build_softmax.in_context_template_matching_softmax(t, b), data) for b in betas]
           for name, (t, data) in cases.items()}
    return pd.DataFrame(acc, index=pd.Index(betas, name="beta")).T


def ictm_threshold(sizes, betas, held_size) -> dict:
    """Our softmax Theorem 6's threshold on binding inputs per size, the offset c of the line
    ``ln(n-1) + c`` (the largest measured excess), and the held-out size's accuracy one unit
    below the line, at it, one above and at twice it."""
    validate.integers("ictm_threshold", "held_size", held_size, minimum=1)
    thresholds = pd.DataFrame(build_softmax.in_context_template_matching_thresholds(sizes, betas))
    if thresholds["threshold"].isna().any():
        raise ValueError("ictm_threshold: some sizes are not exact at the largest beta of betas, so they have no "
                         "threshold to fit; extend betas")
    c = float((thresholds["threshold"] - np.log(thresholds["n"] - 1)).max())
    thresholds["stated threshold"] = np.log(thresholds["n"] - 1) + c
    task = InContextTemplateMatching(*held_size)
    data, _ = build_softmax.binding_examples(task, 100, seed=1)
    line = float(np.log(task.seq_len - 1)) + c
    held = {round(b, 2): accuracy(build_softmax.in_context_template_matching_softmax(task, b), data)
            for b in (line - 1, line, line + 1, 2 * line)}
    return {"table": thresholds, "c": c, "held_n": task.seq_len, "held": held}
