"""The curves that Part IV's chapters and checks read from the stored sweeps of Boix-Adsera et al. (2024).

Each function turns one stored :class:`lib.results.Result` into arrays indexed the way a figure
or a check reads them (one row per n, one column per seed or learning rate). Nothing here
trains; the sweeps and their training code do not import this module.
"""
from __future__ import annotations

import numpy as np

from ... import validate
from ...results import Result
from .training import VARIANTS


def _result(owner: str, name: str, value) -> Result:
    """A stored :class:`~lib.results.Result` (what every curve here reads)."""
    return validate.instance(owner, name, value, Result)


def grid_values(result, key: str, **where) -> list:
    """The sorted values of ``key`` over the grid points that match ``where``."""
    _result("grid_values", "result", result)
    validate.instance("grid_values", "key", key, str)
    return sorted({p[key] for p in result.grid if all(p.get(k) == v for k, v in where.items())})


def by_lr(metrics: dict) -> dict:
    """Test loss per learning rate of an ensemble whose members are (learning rate, seed) pairs:
    ``{lr: per-seed losses}`` (an array of one where each rate has one seed)."""
    validate.instance("by_lr", "metrics", metrics, dict)
    if "lr" not in metrics or "test" not in metrics or len(metrics["lr"]) != len(metrics["test"]):
        validate.fail("by_lr", "metrics", "an ensemble's metrics with one 'test' loss per 'lr'", sorted(metrics))
    grouped: dict = {}
    for lr, loss in zip(metrics["lr"], metrics["test"]):
        grouped.setdefault(lr, []).append(loss)
    return {lr: np.asarray(v, dtype=float) for lr, v in grouped.items()}


def _by_rate(owner: str, losses) -> np.ndarray:
    """``losses`` (a dict by lr, or an array ``(lrs,)`` or ``(lrs, seeds)``) as an array ``(lrs, seeds)``."""
    values = list(losses.values()) if isinstance(losses, dict) else losses
    try:
        values = np.asarray(values, dtype=float)
    except (TypeError, ValueError):
        raise validate.ArgumentTypeError(f"{owner}: losses must be test losses (a dict by lr or an array), got "
                                         f"{losses!r}") from None
    if values.size == 0:
        validate.fail(owner, "losses", "a non-empty set of test losses", losses)
    values = values.reshape(len(values), -1)
    if np.isnan(values.mean(axis=1)).all():
        validate.fail(owner, "losses", "test losses of which at least one rate has no diverged run (not NaN)", losses)
    return values


def best_rate(losses: dict):
    """The learning rate whose mean test loss over seeds is lowest (``losses``: a dict by lr of
    per-seed losses); a rate with a diverged run (a NaN loss) is left out of the choice."""
    validate.instance("best_rate", "losses", losses, dict)
    return list(losses)[int(np.nanargmin(_by_rate("best_rate", losses).mean(axis=1)))]


def best(losses) -> np.ndarray:
    """The per-seed test losses at the learning rate whose mean over seeds is lowest (App. B.1's
    "best over the learning rates"; each arm of a comparison at its own best rate): ``losses`` is a
    dict by lr of per-seed losses (or of one loss each), or an array ``(lrs,)`` or ``(lrs, seeds)``.
    A rate with a diverged run (NaN) is left out, and a grid where every rate has one is refused."""
    values = _by_rate("best", losses)
    return values[int(np.nanargmin(values.mean(axis=1)))]


# ----------------------------------------------------------------------------- chapter 2
def identity_losses(res) -> tuple[list, dict]:
    """Figures 1, 21: ``ns`` and ``{(task, variant): test loss (n, seeds)}``."""
    _result("identity_losses", "res", res)
    ns = grid_values(res, "n")
    pairs = {(p["task"], p["variant"]) for p in res.grid}
    return ns, {(t, v): np.array([res.get(task=t, variant=v, n=n)["test"] for n in ns]) for t, v in sorted(pairs)}


def majority_losses(res) -> tuple[list, list, dict]:
    """Figures 16, 22: ``ns``, majority lengths ``ks`` and ``{(k, variant): test loss (n, seeds)}``."""
    _result("majority_losses", "res", res)
    ns, ks = grid_values(res, "n"), sorted({int(p["task"].split("-")[1]) for p in res.grid})
    return ns, ks, {(k, v): np.array([res.get(task=f"majority-{k}", variant=v, n=n)["test"] for n in ns])
                    for k in ks for v in VARIANTS if any(p["variant"] == v for p in res.grid)}


def random_template_losses(res, regular=(0, 1, 2)) -> tuple[list, dict]:
    """Figure 17: ``ns`` and ``{|R|: test loss (n, seeds)}``."""
    _result("random_template_losses", "res", res)
    regular = validate.integers("random_template_losses", "regular", regular, minimum=0)
    ns = grid_values(res, "n")
    return ns, {r: np.array([res.get(task=f"random, |R| = {r}", n=n)["test"] for n in ns]) for r in regular}


def program_errors(res) -> tuple[list, dict]:
    """Figure 2: ``ns`` and ``{variant: test error (n, seeds)}``."""
    _result("program_errors", "res", res)
    ns = grid_values(res, "n")
    return ns, {v: np.array([res.get(variant=v, n=n)["test"] for n in ns]) for v in grid_values(res, "variant")}


def copy_errors(res) -> tuple[list, list, dict]:
    """Figure 5: ``ns``, widths ``ds`` and ``{(variant, d): test error (n, seeds)}``."""
    _result("copy_errors", "res", res)
    ns, ds = grid_values(res, "n"), grid_values(res, "d_model")
    return ns, ds, {(v, d): np.array([res.get(variant=v, d_model=d, n=n)["test"] for n in ns])
                    for v in grid_values(res, "variant") for d in ds}


def mean_abs_scalar(res, key: str, **where) -> float:
    """The mean learned |a_h| (``mean_abs_a``) or |b_h| (``mean_abs_b``) over the matching points;
    refuses a ``where`` that matches no point (the mean of nothing)."""
    _result("mean_abs_scalar", "res", res)
    validate.choice("mean_abs_scalar", "key", key, ("mean_abs_a", "mean_abs_b"))
    if not any(all(p["point"].get(k) == v for k, v in where.items()) for p in res.points):
        validate.fail("mean_abs_scalar", "where", "coordinates of some stored point", where)
    return float(np.mean([np.mean(p["result"][key]) for p in res.points
                          if all(p["point"].get(k) == v for k, v in where.items())]))


# ----------------------------------------------------------------------------- chapter 3
def knob_n(hres) -> int:
    """The n at which App. B.1's knobs (batch, depth, heads, d_emb) are tried."""
    _result("knob_n", "hres", hres)
    return max(p["n"] for p in hres.grid if p["knob"] in ("depth", "heads", "d_emb", "batch"))


def lr_losses(hres) -> dict:
    """Figure 8: ``{n: {lr: test loss per seed}}`` of the learning-rate points."""
    _result("lr_losses", "hres", hres)
    return {n: by_lr(hres.get(knob="lr", value=None, n=n)) for n in grid_values(hres, "n", knob="lr")}


def batch_losses(hres) -> dict:
    """Figures 9-10: ``{batch: {lr: test loss per seed}}`` at :func:`knob_n`."""
    _result("batch_losses", "hres", hres)
    return {b: by_lr(hres.get(knob="batch", value=b, n=knob_n(hres))) for b in grid_values(hres, "value", knob="batch")}


def knob_curves(hres, knob: str) -> dict:
    """Figures 11-13: ``{value: test loss (knob learning rate, seed)}`` at :func:`knob_n`; the
    knob's base value (the stored config's shape) is the learning-rate run at the same n."""
    _result("knob_curves", "hres", hres)
    validate.choice("knob_curves", "knob", knob, ("depth", "heads", "d_emb"))
    n, knob_lrs = knob_n(hres), hres.config["knob_lrs"]
    base_value = hres.config["shape"][{"depth": "n_layers", "heads": "n_heads", "d_emb": "d_model"}[knob]]
    base = by_lr(hres.get(knob="lr", value=None, n=n))
    values = sorted(set(grid_values(hres, "value", knob=knob)) | {base_value})
    return {v: np.array([(base if v == base_value else by_lr(hres.get(knob=knob, value=v, n=n)))[lr]
                         for lr in knob_lrs]) for v in values}


def init_losses(hres, ires) -> tuple[list, dict]:
    """Figure 15: ``init_ns`` and ``{"Gaussian" | "mimetic" | "+a_h I": {n: test loss (seeds)}}``:
    mimetic from the hyperparameter sweep, the other two from ``identity_scalings`` (same protocol)."""
    _result("init_losses", "hres", hres)
    _result("init_losses", "ires", ires)
    ns = grid_values(hres, "n", knob="init")
    return ns, {"Gaussian": {n: np.array(ires.get(task="αβα vs αββ", variant="vanilla", n=n)["test"]) for n in ns},
                "mimetic": {n: np.array(hres.get(knob="init", value="mimetic", n=n)["test"]) for n in ns},
                "+a_h I": {n: np.array(ires.get(task="αβα vs αββ", variant="+KQ", n=n)["test"]) for n in ns}}


def template_knob_losses(kres, rres) -> tuple[int, dict]:
    """Figures 18-20: the n and ``{knob: {value: test loss (seeds)}}``; the base value is
    Figure 17's run with one regular token at the same n."""
    from .sweeps import KNOB_BASE

    _result("template_knob_losses", "kres", kres)
    _result("template_knob_losses", "rres", rres)
    n = kres.grid[0]["n"]
    base = np.array(rres.get(task="random, |R| = 1", variant="vanilla", n=n)["test"])
    out = {}
    for knob in ("wildcards", "length", "m"):
        values = sorted({p[knob] for p in kres.grid} | {KNOB_BASE[knob]})
        out[knob] = {v: base if v == KNOB_BASE[knob] else np.array(kres.get(**dict(KNOB_BASE, **{knob: v}, n=n))["test"])
                     for v in values}
    return n, out


def template_knob_curves(kres, rres) -> tuple[list, dict]:
    """Figures 18-20 over every n the sweep ran: ``ns`` and ``{knob: {value: test loss (n, seeds)}}``;
    a value the sweep did not run at the base task (:data:`.sweeps.KNOB_BASE`) is Figure 17's run
    with one regular token at the same n."""
    from .sweeps import KNOB_BASE

    _result("template_knob_curves", "kres", kres)
    _result("template_knob_curves", "rres", rres)
    ns = grid_values(kres, "n")

    def at(coords: dict, n: int):
        if any(all(p["point"].get(k) == v for k, v in coords.items()) and p["point"]["n"] == n for p in kres.points):
            return kres.get(**coords, n=n)["test"]
        return rres.get(task="random, |R| = 1", variant="vanilla", n=n)["test"]

    out = {}
    for knob in ("wildcards", "length", "m"):
        values = sorted({p[knob] for p in kres.grid} | {KNOB_BASE[knob]})
        out[knob] = {v: np.array([at(dict(KNOB_BASE, **{knob: v}), n) for n in ns]) for v in values}
    return ns, out


def pretrained(pres) -> dict:
    """``{(size, variant): metrics}`` of the pretraining points."""
    _result("pretrained", "pres", pres)
    return {(p["size"], p["variant"]): pres.get_exact(p) for p in pres.grid if p["stage"] == "pretrain"}


def pretrained_sizes(pres) -> list:
    """The model sizes of the pretraining points, smallest first."""
    _result("pretrained_sizes", "pres", pres)
    return [s for s in ("small", "base", "large") if any(p["size"] == s for p in pres.grid)]


def finetune_losses(pres) -> tuple[list, dict]:
    """Figures 7a, 23: ``ft_ns`` and ``{(size, "pretrained" | "scratch"): test loss (n, seeds)}``."""
    _result("finetune_losses", "pres", pres)
    ns = grid_values(pres, "n", stage="finetune")
    return ns, {(s, v): np.stack([pres.get(size=s, stage="finetune", variant=v, n=n)["test"] for n in ns])
                for s in pretrained_sizes(pres) for v in ("pretrained", "scratch")
                if any(p["size"] == s and p["variant"] == v for p in pres.grid)}


def diagonal_scores(pres, size: str = "base") -> tuple[np.ndarray, np.ndarray]:
    """Figure 7b-c: the vanilla pretrained heads' diagonal scores, ``(seeds, layers, heads)`` for
    ``W_Q W_K^T`` and for ``W_V W_O``."""
    _result("diagonal_scores", "pres", pres)
    validate.choice("diagonal_scores", "size", size, tuple(pretrained_sizes(pres)))
    per_seed = pretrained(pres)[size, "vanilla"]["diagonal"]
    return np.array([s["kq"] for s in per_seed]), np.array([s["vo"] for s in per_seed])
