"""What Boix-Adsera et al. (2024) state about their trained experiments (App. A-B, Sec. 6), as data.

App. A fixes the model and protocol of Figure 1 (2 layers, 16 heads of 64, d_emb 128, MLP 256,
Adam at lr 1e-3, batch 1024, 1000 epochs, 5 trials, best epoch by validation loss), Figure 2's
changes (4 layers, d_emb 512) and Figure 5's ("the same hyperparameters as in Figure 1"). App. B
gives the base of its sweeps (depth 2, d_emb 128, head dimension 64, 16 heads, Adam, batch 1024,
1000 epochs, 5 trials unless noted) but no MLP width or learning rate. Our text lost every figure
and caption: the values compared along a figure's axis or legend (the depths of Figure 11, the
widths of Figure 5) are read from the authors' figure files (reading notes, Sec. 5) and cited as
such; what neither text nor figure gives is :data:`~lib.paper_setup.NOT_STATED`.

Each ``ours_*`` function reads the same fields from what a stored result ran with: its config,
its grid, and the model shape the sweep's own code builds at its scale (rebuilt, never typed).
The constructions that stand in for trained networks (Figure 24 by kernels, Figure 14 by least
squares) have a small setup too, with our fields computed from the objects the chapter checks.
"""
from __future__ import annotations

from ...paper_setup import NOT_STATED, Setup, Stated

PAPER = "boixadsera2024"
_FIGS = "read from the authors' figure file (reading notes, Sec. 5)"

_APP_A = {
    "depth": Stated(2, "App. A"), "d_emb": Stated(128, "App. A"), "heads": Stated(16, "App. A"),
    "d_head": Stated(64, "App. A"), "d_mlp": Stated(256, "App. A"),
    "optimizer": Stated("adam", "App. A"), "learning rate": Stated(1e-3, "App. A"),
    "batch": Stated(1024, "App. A"), "epochs": Stated(1000, "App. A (best of 1000 epochs)"),
    "trials": Stated(5, "App. A"),
}
_APP_B = {
    "depth": Stated(2, "App. B.1-B.2"), "d_emb": Stated(128, "App. B.1-B.2"), "heads": Stated(16, "App. B.1-B.2"),
    "d_head": Stated(64, "App. B.1-B.2"), "d_mlp": Stated(NOT_STATED),
    "optimizer": Stated("adam", "App. B.1-B.2"), "learning rate": Stated(NOT_STATED),
    "batch": Stated(1024, "App. B.1-B.2"), "epochs": Stated(1000, "App. B.1-B.2"),
    "trials": Stated(5, "App. B (error bars over 5 trials)"),
}
_VARIANTS = ("vanilla", "+KQ", "+VO", "+KQ,VO")

FIGURES_1_21 = Setup(PAPER, "Figures 1 and 21", {
    **_APP_A, "variants on αβα vs αββ": Stated(list(_VARIANTS), "App. B.3 (Figure 21)")})
FIGURES_16_22 = Setup(PAPER, "Figures 16 and 22", {
    **_APP_B, "majority lengths": Stated([2, 4, 6, 8], f"Figures 16, 22, {_FIGS}"),
    "variants": Stated(["vanilla", "+KQ,VO"], "App. B.2-B.3 (Figures 16, 22)")})
FIGURE_2 = Setup(PAPER, "Figure 2", {
    **_APP_A, "depth": Stated(4, "App. A (Figure 2)"), "d_emb": Stated(512, "App. A (Figure 2)"),
    "variants": Stated(["vanilla", "+KQ,VO"], f"Figure 2, {_FIGS}")})
FIGURE_17 = Setup(PAPER, "Figure 17", {
    **_APP_B, "regular tokens |R|": Stated([0, 1, 2], f"Figure 17, {_FIGS}"),
    "templates m, length k, wildcards |W|": Stated(NOT_STATED)})
FIGURE_5 = Setup(PAPER, "Figure 5", {
    **_APP_A, "d_emb": Stated([64, 128, 256, 512, 1024, 2048, 4096], f"Figure 5, {_FIGS}"),
    "variants": Stated(["vanilla", "+VO"], "Sec. 5 (Theorems 5.1-5.2), Figure 5")})

#: App. B.1 (Figures 8-13, 15) on αβα vs αββ, one knob at a time from the base model
FIGURE_8 = Setup(PAPER, "Figure 8", {**_APP_B, "learning rates": Stated(NOT_STATED)})
FIGURES_9_10 = Setup(PAPER, "Figures 9 and 10", {**_APP_B, "batch": Stated(NOT_STATED),
                                                 "batch sizes compared": Stated(NOT_STATED)})
FIGURE_11 = Setup(PAPER, "Figure 11", {**_APP_B, "depth": Stated(NOT_STATED),
                                       "depths compared": Stated([1, 2, 4, 8, 16], f"Figure 11, {_FIGS}")})
FIGURE_12 = Setup(PAPER, "Figure 12", {**_APP_B, "heads": Stated(NOT_STATED),
                                       "heads compared": Stated([1, 4, 16, 64], f"Figure 12, {_FIGS}")})
FIGURE_13 = Setup(PAPER, "Figure 13", {**_APP_B, "d_emb": Stated(NOT_STATED),
                                       "d_emb compared": Stated([32, 128, 512], f"Figure 13, {_FIGS}")})
FIGURE_15 = Setup(PAPER, "Figure 15", {**_APP_B, "mimetic α, β": Stated(NOT_STATED)})
#: App. B.1's last-layer-only runs: the base model, its read-out trained by Adam for 1000 epochs
FIGURE_14 = Setup(PAPER, "Figure 14", {
    "depth": Stated(2, "App. B.1"), "d_emb": Stated(128, "App. B.1"), "heads": Stated(16, "App. B.1"),
    "d_head": Stated(64, "App. B.1"),
    "read-out trained by": Stated("Adam, batch 1024, 1000 epochs", "App. B.1"),
    "initialisation multipliers": Stated([1, 8, 64], f"Figure 14, {_FIGS}"),
    "weights multiplied": Stated(NOT_STATED), "trials": Stated(5, "App. B (error bars over 5 trials)")})
#: App. B.2 (Figures 18-20): random template tasks, one setting varied at a time
_KNOB_FIELD = {"wildcards": "wildcards |W|", "length": "length k", "m": "templates m"}
FIGURES_18_20 = {
    knob: Setup(PAPER, f"Figure {number}", {
        **_APP_B, "learning rate": Stated(NOT_STATED),
        f"{_KNOB_FIELD[knob]} compared": Stated(values, f"Figure {number}, {_FIGS}"),
        "other template settings": Stated(NOT_STATED),
        "measure": Stated("samples n needed to reach ≈0 test loss", f"App. B.2, Figure {number}")})
    for number, knob, values in ((18, "wildcards", [2, 3, 4, 5, 6, 7]), (19, "length", [2, 3, 5, 10, 15, 20]),
                                 (20, "m", [2, 4, 6, 8, 10, 15]))}

#: Sec. 6 (Figures 6, 7) and App. B.3 (Figure 23): GPT-2, pretrained or trained on Wikitext
_GPT2 = Stated("GPT-2, pretrained (OpenAI's weights)", "Sec. 6 (Figure 7), App. B.3")
FIGURE_6 = Setup(PAPER, "Figure 6", {
    "model": Stated("GPT-2", "Sec. 6 (Figure 6)"), "data": Stated("Wikitext-2 and Wikitext-103", "Figure 6 (table)"),
    "identity scalings trained": Stated(NOT_STATED), "training": Stated(NOT_STATED)})
FIGURE_7A = Setup(PAPER, "Figure 7a", {
    "model fine-tuned": _GPT2, "template task": Stated(NOT_STATED), "fine-tuning": Stated(NOT_STATED)})
FIGURE_7BC = Setup(PAPER, "Figure 7b-c", {"model": _GPT2})
FIGURE_23 = Setup(PAPER, "Figure 23", {
    "models fine-tuned": Stated(["GPT-2 small", "GPT-2 medium", "GPT-2 large"], "App. B.3 (Figure 23)"),
    "fine-tuning": Stated(NOT_STATED)})

#: App. B.3, Figure 24: trained networks, compared by their test loss on αβα vs αββ
FIGURE_24 = Setup(PAPER, "Figure 24", {
    "models": Stated("an MLP and an MLP on [one-hot, XXᵀ], trained", "App. B.3 (Figure 24)")})


# ----------------------------------------------------------------------------- our side
def _epochs(steps: int, batch: int | None, ns) -> int | list:
    """Epochs that ``steps`` steps of batch ``batch`` make at each n (full batch below it)."""
    per_n = sorted({steps * min(batch or n, n) // n for n in ns})
    return per_n[0] if len(per_n) == 1 else per_n


def _transformer(shape: dict, lr, batch, steps, seeds, ns) -> dict:
    return {"depth": shape["n_layers"], "d_emb": shape["d_model"], "heads": shape["n_heads"],
            "d_head": shape["d_head"], "d_mlp": shape["d_mlp"], "optimizer": "adam",
            "learning rate": list(lr) if isinstance(lr, (list, tuple)) else lr, "batch": batch,
            "epochs": _epochs(steps, batch, ns), "trials": len(seeds)}


def _trained(result, ns=None) -> dict:
    """The base transformer fields of a stored template-task sweep (its config's shape and recipe)."""
    c = result.config
    ns = ns or sorted({p["n"] for p in result.grid})
    return _transformer(c["shape"], c["lr"], c["batch_size"], c["steps"], c["seeds"], ns)


def _variants(result, **where) -> list:
    return [v for v in _VARIANTS if any(p["variant"] == v and all(p[k] == x for k, x in where.items())
                                        for p in result.grid)]


def ours_figures_1_21(result) -> dict:
    return {**_trained(result), "variants on αβα vs αββ": _variants(result, task="αβα vs αββ")}


def ours_figures_16_22(result) -> dict:
    return {**_trained(result), "majority lengths": sorted({int(p["task"].split("-")[1]) for p in result.grid}),
            "variants": _variants(result)}


def ours_figure_2(result) -> dict:
    return {**_trained(result), "variants": _variants(result)}


def ours_figure_17(result) -> dict:
    from ...tasks import symbol_templates as st
    from .sweeps import TASKS

    tasks = sorted({p["task"] for p in result.grid})
    templates = {name: TASKS[name][1]()[0] for name in tasks}
    settings = sorted({(len(t), len(t[0].split()), len({x for x in " ".join(t).split() if st.is_wildcard(x)}))
                       for t in templates.values()})
    return {**_trained(result), "regular tokens |R|": sorted(int(name.split("= ")[1]) for name in tasks),
            "templates m, length k, wildcards |W|": [f"m = {m}, k = {k}, |W| = {w}" for m, k, w in settings]}


def ours_figure_5(result) -> dict:
    from .sweeps import _shape

    c = result.config
    ds = sorted({p["d_model"] for p in result.grid})
    shape = _shape(result.scale)
    fields = _transformer(shape, c["lr"], c["batch_size"], c["copy_steps"], c["seeds"],
                          sorted({p["n"] for p in result.grid}))
    return {**fields, "d_emb": ds, "variants": _variants(result)}


def _knob_values(result, knob: str, base) -> list:
    return sorted({p["value"] for p in result.grid if p["knob"] == knob} | {base})


def _hyper(result, knob: str) -> dict:
    """The base fields of the ``hyperparameters`` sweep for ``knob``'s points (steps, lr and n as they ran)."""
    c = result.config
    ns = sorted({p["n"] for p in result.grid if p["knob"] == knob})
    lr = c["lrs"] if knob == "lr" else c["lr"] if knob == "init" else c["knob_lrs"]
    seeds = c["init_seeds"] if knob == "init" else c["seeds"]
    steps = c["steps"]
    return _transformer(c["shape"], lr, c["batch_size"], steps, seeds, ns)


def ours_figure_8(result) -> dict:
    fields = _hyper(result, "lr")
    return {**fields, "learning rates": result.config["lrs"]}


def ours_figures_9_10(result) -> dict:
    c = result.config
    fields = _hyper(result, "batch")
    return {**fields, "batch": NOT_STATED, "epochs": c["batch_epochs"],
            "batch sizes compared": sorted({p["value"] for p in result.grid if p["knob"] == "batch"})}


def ours_figure_11(result) -> dict:
    shape = result.config["shape"]
    return {**_hyper(result, "depth"), "depth": NOT_STATED,
            "depths compared": _knob_values(result, "depth", shape["n_layers"])}


def ours_figure_12(result) -> dict:
    shape = result.config["shape"]
    return {**_hyper(result, "heads"), "heads": NOT_STATED,
            "heads compared": _knob_values(result, "heads", shape["n_heads"])}


def ours_figure_13(result) -> dict:
    shape = result.config["shape"]
    return {**_hyper(result, "d_emb"), "d_emb": NOT_STATED,
            "d_emb compared": _knob_values(result, "d_emb", shape["d_model"])}


def ours_figure_15(result) -> dict:
    import inspect

    from .training import mimetic_init

    defaults = inspect.signature(mimetic_init).parameters
    return {**_hyper(result, "init"),
            "mimetic α, β": f"{defaults['alpha'].default}, {defaults['beta'].default} (TK23's αZ + βI, rank d_head)"}


def ours_figure_14(shape: dict, init_scales, seeds) -> dict:
    """Figure 14's fields as the chapter computes it: ``last_layer.last_layer_only`` at ``shape``."""
    return {"depth": shape.get("n_layers", 2), "d_emb": shape["d_model"], "heads": shape["n_heads"],
            "d_head": shape["d_head"], "read-out trained by": "least squares (the limit of training it to convergence)",
            "initialisation multipliers": [float(c) for c in init_scales],
            "weights multiplied": "every weight matrix below the read-out", "trials": len(list(seeds))}


def ours_figures_18_20(result, knob: str) -> dict:
    from .sweeps import KNOB_BASE

    points = [p for p in result.grid if all(p[k] == v for k, v in KNOB_BASE.items() if k != knob)]
    ns = sorted({p["n"] for p in result.grid})
    others = ", ".join(f"{k} = {v}" for k, v in KNOB_BASE.items() if k != knob)
    return {**_trained(result), "learning rate": NOT_STATED,
            f"{_KNOB_FIELD[knob]} compared": sorted({p[knob] for p in points} | {KNOB_BASE[knob]}),
            "other template settings": others,
            "measure": f"test loss at n = {', '.join(map(str, ns))}"}


def _lm(result, size: str = "base") -> str:
    """Our pretrained model, described from the shape the sweep builds and the corpus it ran."""
    from .sweeps import _lm_shape

    s, c = _lm_shape(size), result.config
    return (f"a causal transformer of {s['n_layers']} layers, d = {s['d_model']}, {s['n_heads']} heads, "
            f"pretrained here for {c['pretrain_steps']} steps on {_corpus(result)}")


def _corpus(result) -> str:
    from ...tasks.binding_text import VariableBindingText

    return repr(VariableBindingText(**result.config["corpus"]))


def ours_figure_6(result) -> dict:
    from .sweeps import _lm_shape

    s = _lm_shape("base")
    return {"model": f"a causal transformer of {s['n_layers']} layers, d = {s['d_model']}", "data": _corpus(result),
            "identity scalings trained": NOT_STATED, "training": NOT_STATED}


def ours_figure_7a(result) -> dict:
    return {"model fine-tuned": _lm(result), "template task": NOT_STATED, "fine-tuning": NOT_STATED}


def ours_figure_7bc(result) -> dict:
    return {"model": _lm(result)}


def ours_figure_23(result) -> dict:
    from .sweeps import _lm_shape

    sizes = [s for s in ("small", "base", "large") if any(p["size"] == s for p in result.grid)]
    widths = ", ".join(f"d = {_lm_shape(s)['d_model']}" for s in sizes)
    return {"models fine-tuned": f"our causal transformer at {widths}, each pretrained here for "
                                 f"{result.config['pretrain_steps']} steps on {_corpus(result)}",
            "fine-tuning": NOT_STATED}


def ours_figure_24(kernels) -> dict:
    return {"models": "kernel ridge regression with the random-features kernels of " + ", ".join(kernels)}
