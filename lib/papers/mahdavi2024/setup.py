"""What Mahdavi, Liao & Thrampoulidis (2024) state about their trained experiments, as data.

Sec. 5.2 fixes the data (d = 64, uniform queries, a shared uniform context, 100 classes) and the
fixed sizes of each panel of Figure 2; Appendix A the optimiser (Adam, lr 1e-3, batch 256,
linear warm-up and cosine decay) and the budget (at least 500 epochs and 50,000 steps; 300,000
for Figures 2c and 3); Appendix H the two runs of Figure 3; Appendix I.1 the per-example contexts
of Figure 4. The swept values and the numbers of examples T are on the figures' axes and legends,
not in our text: they are taken from the official code's ``reproduce.sh``, which produced those
figures (reading notes, Sec. 4.2-4.5), and say so in their source. Minibatches: Appendix A counts
the budget in epochs, and the official code (``src/trainers.py``) shuffles each epoch; the official
recipe does too (:class:`lib.train.EpochOrder`), ours draws with replacement. Fields the
paper leaves open (the seeds, the initialisation, the checkpoint, early stopping) are
:data:`~lib.paper_setup.NOT_STATED`. Adam with warm-up and cosine decay is the trainer's fixed
choice for every run (:func:`lib.papers.mahdavi2024.training.train_group`), not a config field, so
it is not compared here.

:func:`ours` reads the same fields from a stored result's config and grid (or an in-memory one,
for the paper-scale configs in the tests). Sec. 5.1 and Appendix J (Tables 1 and 3, Figure 1)
test the assumptions on pretrained ViT-base, BERT and GPT-2: :data:`TABLE_1` and :data:`TABLE_3`
hold their setting, and :func:`vit_setting` and :func:`lm_setting` read ours from the arrays a
chapter checks.
"""
from __future__ import annotations

from ...paper_setup import NOT_STATED, Setup, Stated

_CODE = "official code, reproduce.sh (the figure's axes)"
_STEPS = "max(500 epochs, 50,000)"
_COMMON = {
    "width d": Stated(64, "Sec. 5.2"),
    "learning rate": Stated(1e-3, "App. A"),
    "batch": Stated(256, "App. A"),
    "minibatches": Stated("shuffled epochs", "App. A counts epochs; the official code shuffles them"),
    "seeds": Stated(NOT_STATED),
}


def _figure(ref: str, context: str, labels: str, steps, **fields) -> Setup:
    return Setup("mahdavi2024", ref, {
        "context": Stated(context, "Sec. 5.2" if context == "shared" else "App. I.1"),
        "labels": Stated(labels, "Sec. 5.2, App. A"), **fields, **_COMMON,
        "steps": Stated(steps, "App. A"),
    })


_H_AXIS = Stated([1, 5, 10, 20, 30, 40, 50, 60], _CODE)
_N_AXIS = Stated([1, 5, 10, 20, 30, 40, 50, 60], _CODE)

#: Figure 2 (Sec. 5.2): classification, shared context, one setup per panel
FIGURE_2 = {
    "a": _figure("Figure 2a", "shared", "100 classes", _STEPS, **{
        "heads H": _H_AXIS, "context n": Stated([32], "Sec. 5.2"), "head size d_h": Stated([64], "Sec. 5.2 (d_h = d)"),
        "examples T": Stated([10_000, 20_000, 30_000, 40_000], _CODE)}),
    "b": _figure("Figure 2b", "shared", "100 classes", _STEPS, **{
        "heads H": Stated([20], "Sec. 5.2"), "context n": _N_AXIS, "head size d_h": Stated([64], "Sec. 5.2 (d_h = d)"),
        "examples T": Stated([6000, 10_000, 14_000, 18_000], _CODE)}),
    "c": _figure("Figure 2c", "shared", "100 classes", 300_000, **{
        "heads H": Stated([30], _CODE), "context n": Stated([32], _CODE),
        "head size d_h": Stated(list(range(10, 61, 5)) + [64], _CODE),
        "examples T": Stated([10_000, 15_000, 20_000], _CODE)}),
}

#: Figure 3 (App. H): saturation at the largest T each H memorizes, 300,000 steps, no early stop
FIGURE_3 = _figure("Figure 3", "shared", "100 classes", 300_000, **{
    "heads H": Stated([4, 8], "App. H"), "context n": Stated([32], "App. H"), "head size d_h": Stated(NOT_STATED),
    "examples T": Stated([550, 1300], "App. H"),
    "weights measured": Stated("the lowest-loss checkpoint",
                               "official code (its analysis reloads the best checkpoint by training loss)")})

#: Figure 4 (App. I.1): per-example contexts; the classification panel against H carries the claim
FIGURE_4 = _figure("Figure 4", "per_example", "100 classes", _STEPS, **{
    "heads H": _H_AXIS, "context n": Stated([32], _CODE), "head size d_h": Stated([64], _CODE),
    "examples T": Stated([30_000, 50_000, 70_000, 90_000, 110_000, 130_000], _CODE)})

#: Figure 5 (App. A): regression, shared context, against H (the n panel: :data:`FIGURE_5_CONTEXT`)
FIGURE_5 = _figure("Figure 5", "shared", "reals U(0,1)", _STEPS, **{
    "heads H": _H_AXIS, "context n": Stated([32], _CODE), "head size d_h": Stated([64], _CODE),
    "examples T": Stated([10_000, 15_000, 20_000, 25_000, 30_000], _CODE)})


def _steps(config: dict, grid: list[dict]) -> str | int:
    """The budget in updates: App. A's rule where the config counts it so (500 epochs of 256 and
    at least 50,000 updates: the paper scale), else the number every point trains
    (:func:`~lib.papers.mahdavi2024.training.group_steps`), or the rule the config states when the
    points train different numbers."""
    from .training import group_steps

    if config.get("epochs") == 500 and config.get("batch_size") == 256 and config["steps"] == 50_000:
        return _STEPS
    each = {group_steps(config, p["T"]) for p in grid}
    if len(each) == 1:
        return each.pop()
    return f"max({config['epochs']} epochs, {config['steps']:,})"


def _minibatches(config: dict) -> str:
    """How the run cut its data into minibatches (:func:`~lib.papers.mahdavi2024.training.train_group`)."""
    if config["batch_size"] is None:
        return "every step the full set"
    return "shuffled epochs" if config.get("recipe") == "official" else "drawn with replacement"


def _values(grid: list[dict], key: str) -> list:
    return sorted({p[key] for p in grid})


def ours(result) -> dict:
    """The fields of :data:`FIGURE_2` (any panel), :data:`FIGURE_3`, :data:`FIGURE_4` and
    :data:`FIGURE_5` as ``result`` (a stored memorization sweep) ran them: sizes from its grid,
    the rest from its config."""
    config, grid = result.config, result.grid
    batch = config["batch_size"]
    return {"context": config["context"], "labels": "100 classes" if config["labels"] == "classes" else "reals U(0,1)",
            "heads H": _values(grid, "H"), "context n": _values(grid, "n"), "head size d_h": _values(grid, "d_h"),
            "examples T": _values(grid, "T"), "width d": config["dim"], "learning rate": config["lr"],
            "batch": batch if batch is not None else "full set",
            "minibatches": _minibatches(config),
            "seeds": len(config["seeds"]), "steps": _steps(config, grid),
            # Figure 3's saturation is read off the trained weights (training.saturation_stats on run.model)
            **({"weights measured": "the final weights"} if config.get("saturation") else {})}


def merged(results) -> dict:
    """:func:`ours` over several results of one experiment (e.g. ``fig2a_d64`` and
    ``fig2a_d64_4k``, the same sweep at two T): their grids' values together; every other field
    must agree."""
    each = [ours(r) for r in results]
    out = dict(each[0])
    for field in ("heads H", "context n", "head size d_h", "examples T"):
        out[field] = sorted({v for o in each for v in o[field]})
    for o in each[1:]:
        for field, value in o.items():
            if field not in ("heads H", "context n", "head size d_h", "examples T") and value != out[field]:
                raise ValueError(f"setup.merged: the results differ in {field}: {out[field]!r} and {value!r}")
    return out


# ----------------------------------------------------------------------------- the assumptions
#: Table 1 and Figure 1 (Sec. 5.1): ViT-base on ImageNet, the [CLS] query, 5000 draws per test
TABLE_1 = Setup("mahdavi2024", "Table 1", {
    "images": Stated(2000, "Sec. 5.1"),
    "tokens n": Stated(197, "Sec. 4, after Theorem 1 (ViT's n/d = 197/768)"),
    "width d": Stated(768, "Sec. 4, after Theorem 1 (ViT's n/d = 197/768)"),
    "trained model": Stated("base ViT, pretrained on ImageNet", "Sec. 5.1"),
    "draws per test": Stated(5000, "Sec. 5.1"),
})

#: Table 3 (App. J): BERT and GPT-2 on Wikipedia; the paper gives BERT's n and d only
TABLE_3 = Setup("mahdavi2024", "Table 3", {
    "text": Stated("Wikipedia", "App. J"),
    "BERT tokens n": Stated(512, "App. J"),
    "BERT width d": Stated(1024, "App. J"),
    "trained models": Stated("BERT and GPT-2, pretrained", "App. J"),
    "examples": Stated(NOT_STATED),
    "draws per test": Stated(5000, "Sec. 5.1"),
})


def vit_setting(states, trials: int, steps: int) -> dict:
    """:data:`TABLE_1`'s fields for the layer outputs ``states`` (images x tokens x width) a
    chapter tested with ``trials`` draws per test, its trained ViT trained ``steps`` steps."""
    count, n, d = states.shape
    return {"images": count, "tokens n": n, "width d": d,
            "trained model": f"a small ViT of width {d}, trained {steps} steps here", "draws per test": trials}


def lm_setting(probe_x, config, trials: int, steps: int, text: str) -> dict:
    """:data:`TABLE_3`'s fields for the probe inputs ``probe_x`` (examples x tokens) of the
    language models of ``config`` (:func:`lib.papers.mahdavi2024.assumptions.lm_config`), trained
    ``steps`` steps here on ``text`` and tested with ``trials`` draws per test."""
    count, n = probe_x.shape
    return {"text": text, "BERT tokens n": n, "BERT width d": config.d_model,
            "trained models": f"{config.n_layers}-block BERT-like and GPT-like models of width {config.d_model}, "
                              f"trained {steps} steps here", "examples": count, "draws per test": trials}
