"""What Chen & Zou (2024) state about their trained experiments (Sec. 6 and 9.1), as data.

Sec. 9.1 fixes the model, the data sizes, the optimizer, the loss and the initialisation; it gives
no learning rate, batch size, number of steps, number of examples or seeds (the figures are not
in our text, so nothing can be read from their axes either). Fields the paper leaves open are
:data:`~lib.paper_setup.NOT_STATED`: our choice there cannot differ from the paper.
:func:`ours` reads the same fields from a stored Figure 2 result's config.
"""
from __future__ import annotations

from ...paper_setup import NOT_STATED, Setup, Stated

_INIT = Stated("layer-1 W_QK = the constructed pattern (memorization: U[0,1)), W_V = 1, W_C ~ U[0,1)",
               "Sec. 9.1, Model")
_COMMON = {
    "optimizer": Stated("sgd", "Sec. 9.1, Training"),
    "loss": Stated("cross_entropy", "Sec. 9.1, Training"),
    "initialisation": _INIT,
    "learning rate": Stated(NOT_STATED),
    "batch": Stated(NOT_STATED),
    "steps": Stated(NOT_STATED),
    "seeds": Stated(NOT_STATED),
}

#: Figure 2, one setup per column (task): the sizes of Sec. 9.1, Data
FIGURE_2 = {
    "memorization": Setup("chen2024", "Figure 2a", {
        "words d1": Stated(500, "Sec. 9.1, Data"),
        "sequence length": Stated(6, "Sec. 9.1, Data"),
        "examples e": Stated(NOT_STATED),
        "layers compared": Stated([1, 2, 3], "Figure 2 caption"),
        **_COMMON}),
    "reasoning": Setup("chen2024", "Figure 2b", {
        "questions d1": Stated(100, "Sec. 9.1, Data"),
        "answers d2": Stated(100, "Sec. 9.1, Data"),
        "examples k": Stated(NOT_STATED),
        "layers compared": Stated([1, 2, 3], "Figure 2 caption"),
        **_COMMON}),
    "generalization": Setup("chen2024", "Figure 2c", {
        "words d1": Stated(210, "Sec. 9.1, Data"),
        "template length l": Stated(NOT_STATED),
        "layers compared": Stated([1, 2, 3], "Figure 2 caption"),
        **_COMMON}),
    "contextual": Setup("chen2024", "Figure 2d", {
        "questions d1": Stated(100, "Sec. 9.1, Data"),
        "answers d2": Stated(100, "Sec. 9.1, Data"),
        "template length l": Stated(5, "Sec. 9.1, Data"),
        "examples k": Stated(NOT_STATED),
        "layers compared": Stated([1, 2, 3], "Figure 2 caption"),
        **_COMMON}),
}


def _init_used(init: str, task: str, std: float) -> str:
    noise = f"N(0, {std}^2)"
    if init == "random" or task == "memorization":
        return f"every matrix ~ {noise}, W_V + identity (no constructed pattern)"
    return f"layer-1 W_QK = the constructed pattern + {noise}, W_V = identity + {noise}, W_C ~ {noise}"


def task_that_ran(result, task: str):
    """The task object of column ``task`` that ``result`` ran: rebuilt by :func:`make_task` at the
    sizes its scale uses (or Sec. 9.1's) and accepted only if its description is the one stored in
    the result's config (a task changed since would not match, and this raises)."""
    from .training import make_task, recipe

    stored = result.config["tasks"][task]
    candidates = [recipe(task, result.scale).task, make_task(task, "paper"), make_task(task, "small")]
    for candidate in candidates:
        if repr(candidate) == stored:
            return candidate
    raise ValueError(f"{result.name}: the stored task {stored!r} is none of {[repr(c) for c in candidates]}")


def ours(result, task: str, init: str = "paper") -> dict:
    """Figure 2's fields for column ``task`` as ``result`` (a stored ``figure2``-like sweep) ran
    them: sizes from the stored task, training fields from the stored recipe, depths from the grid."""
    config = result.config
    t = task_that_ran(result, task)
    r = config["recipes"][task]
    point = next(p for p in result.grid if p["task"] == task and p["init"] == init)
    common = {"optimizer": r["optimizer"], "loss": r["loss"],
              "initialisation": _init_used(init, task, config["init_std"][task]), "learning rate": r["lr"],
              "batch": r["batch_size"] or "full", "steps": r["steps"], "seeds": len(config["seeds"]),
              "layers compared": sorted({len(a) for a in point["archs"]})}
    if task == "memorization":
        return {"words d1": t.n_words, "sequence length": t.length, "examples e": t.n_examples, **common}
    if task == "reasoning":
        return {"questions d1": t.n_questions, "answers d2": t.n_answers, "examples k": t.k, **common}
    if task == "generalization":
        return {"words d1": t.n_words, "template length l": t.length, **common}
    return {"questions d1": t.n_words, "answers d2": t.n_answers, "template length l": t.length, "examples k": t.k,
            **common}


# ----------------------------------------------------------------------------- any grid point
def _as_stored(config: dict) -> dict:
    """``config`` as a result file stores it (tuples become lists)."""
    import json

    return json.loads(json.dumps(config))


def _one(values):
    """The single value of ``values``, or the sorted list of the distinct ones (a field that took
    several values across the runs a claim reads)."""
    values = sorted(set(values), key=str)
    return values[0] if len(values) == 1 else values


def point_run(result, point: dict):
    """``(task, train config)`` that one grid point of a curves sweep ran: the base recipe is
    rebuilt by :func:`~.training.recipe` at the result's scale and accepted only if it is the one
    stored (task repr and training fields); the point's own task sizes (``task_args``), step
    factor and training overrides are then applied as :func:`~.training.train_depths` does."""
    from dataclasses import replace

    from .training import recipe

    name = point["task"]
    task_that_ran(result, name)  # the stored base task is what the code builds today
    stored = _as_stored(result.config["recipes"][name])
    r = recipe(name, result.scale, point.get("steps_factor", 1.0), **point.get("task_args", {}))
    base = _as_stored(recipe(name, result.scale).train.to_dict())
    if base != stored:
        raise ValueError(f"{result.name}: the stored {name} recipe {stored} is not the code's {base}")
    train = replace(r.train, **point["train_args"]) if point.get("train_args") else r.train
    return r.task, train


def _training_fields(result, points: list[dict]) -> dict:
    """The training fields common to Sec. 9.1's setups, read from ``points`` of ``result``:
    optimizers, learning rates, batch and steps (each a single value or the list of those used)."""
    runs = [point_run(result, p) for p in points]

    inits = _one(_init_used(p.get("init", "paper"), p["task"], result.config["init_std"][p["task"]]) for p in points)
    return {"optimizer": _one(t.optimizer for _, t in runs), "loss": _one(t.loss for _, t in runs),
            "initialisation": inits, "learning rate": _one(t.lr for _, t in runs),
            "batch": _one(t.batch_size or "full" for _, t in runs), "steps": _one(t.steps for _, t in runs),
            "seeds": len(result.config["seeds"])}


# ----------------------------------------------------------------------------- Sec. 6.1
#: Sec. 6.1 ("1 layer performs like a random guess"): Figure 2's columns b and c, single-head
#: models of 1, 2 and 3 layers, from the paper's initialisation
SEC_6_1 = Setup("chen2024", "Sec. 6.1", {
    "in-context QA: questions d1": Stated(100, "Sec. 9.1, Data"),
    "in-context QA: answers d2": Stated(100, "Sec. 9.1, Data"),
    "in-context QA: examples k": Stated(NOT_STATED),
    "template matching: words d1": Stated(210, "Sec. 9.1, Data"),
    "template matching: template length l": Stated(NOT_STATED),
    "heads per layer": Stated(1, "Sec. 9.2, first sentence"),
    "layers compared": Stated([1, 2, 3], "Figure 2 caption"),
    "extra width": Stated(0, "Sec. 9.1, Data (d' = d + n)"),
    **_COMMON})


def ours_section_6_1(result) -> dict:
    """Sec. 6.1's fields as the ``one_layer_limits`` sweep ran them (``result``: its stored
    result): sizes rebuilt from the stored task descriptions, models from the grid."""
    from .training import recipe

    tasks = {}
    for name in ("reasoning", "generalization"):
        t = recipe(name, result.scale).task
        if repr(t) != result.config["sizes"][name]:
            raise ValueError(f"{result.name}: stored {result.config['sizes'][name]!r} is not the code's {t!r}")
        if _as_stored(recipe(name, result.scale).train.to_dict()) != _as_stored(result.config["recipes"][name]):
            raise ValueError(f"{result.name}: the stored {name} recipe is not the code's")
        tasks[name] = recipe(name, result.scale)
    qa, tm = tasks["reasoning"].task, tasks["generalization"].task

    trains = [r.train for r in tasks.values()]
    return {"in-context QA: questions d1": qa.n_questions, "in-context QA: answers d2": qa.n_answers,
            "in-context QA: examples k": qa.k, "template matching: words d1": tm.n_words,
            "template matching: template length l": tm.length,
            "heads per layer": _one(p["heads"] for p in result.grid),
            "layers compared": sorted({p["layers"] for p in result.grid}),
            "extra width": _one(p["extra_rows"] for p in result.grid),
            "optimizer": _one(t.optimizer for t in trains), "loss": _one(t.loss for t in trains),
            "initialisation": _one(_init_used(p["init"], p["task"], tasks[p["task"]].init_std) for p in result.grid),
            "learning rate": _one(t.lr for t in trains), "batch": _one(t.batch_size or "full" for t in trains),
            "steps": _one(t.steps for t in trains), "seeds": len(result.config["seeds"])}


# ----------------------------------------------------------------------------- Figure 3
#: Figure 3 / Sec. 6.2: attention maps of trained two-layer models on in-context QA and template
#: matching (Figure 2's runs: Sec. 9.1's sizes, SGD, the paper's initialisation)
FIGURE_3 = Setup("chen2024", "Figure 3", {
    "in-context QA: questions d1": Stated(100, "Sec. 9.1, Data"),
    "in-context QA: answers d2": Stated(100, "Sec. 9.1, Data"),
    "in-context QA: examples k": Stated(2, "Figure 3 caption (A=1 B=2 A=)"),
    "template matching: words d1": Stated(210, "Sec. 9.1, Data"),
    "template matching: template length l": Stated(3, "Sec. 6.2 (AAB=, ABB=)"),
    "layers": Stated(2, "Figure 3 caption"),
    **_COMMON})


def ours_figure_3(qa_recipe, tm_recipe, seeds) -> dict:
    """Figure 3's fields as the chapter trained them: from the two recipes it trained
    (:func:`~.training.recipe`) and the seeds it passed."""
    qa, tm, trains = qa_recipe.task, tm_recipe.task, (qa_recipe.train, tm_recipe.train)
    return {"in-context QA: questions d1": qa.n_questions, "in-context QA: answers d2": qa.n_answers,
            "in-context QA: examples k": qa.k, "template matching: words d1": tm.n_words,
            "template matching: template length l": tm.length, "layers": 2,
            "optimizer": _one(t.optimizer for t in trains), "loss": _one(t.loss for t in trains),
            "initialisation": _one(_init_used("paper", name, r.init_std)
                                  for name, r in (("reasoning", qa_recipe), ("generalization", tm_recipe))),
            "learning rate": _one(t.lr for t in trains), "batch": _one(t.batch_size or "full" for t in trains),
            "steps": _one(t.steps for t in trains), "seeds": len(seeds)}


# ----------------------------------------------------------------------------- Figures 4-7
_HEADS_COMMON = {**_COMMON, "heads compared": Stated(NOT_STATED)}  # the figures are not in our text

#: Figure 4 (Sec. 9.2): memorization with one layer and more heads
FIGURE_4 = Setup("chen2024", "Figure 4", {
    "words d1": Stated(500, "Sec. 9.1, Data"),
    "sequence length": Stated(6, "Sec. 9.1, Data"),
    "examples e": Stated(NOT_STATED),
    **_HEADS_COMMON})

#: Figures 5 and 6 (Sec. 9.2): two-layer models with more heads on in-context QA and template matching
FIGURES_5_6 = Setup("chen2024", "Figures 5-6", {
    "in-context QA: questions d1": Stated(100, "Sec. 9.1, Data"),
    "in-context QA: answers d2": Stated(100, "Sec. 9.1, Data"),
    "in-context QA: examples k": Stated(NOT_STATED),
    "template matching: words d1": Stated(210, "Sec. 9.1, Data"),
    "template matching: template length l": Stated(NOT_STATED),
    **_HEADS_COMMON})

#: Figure 7 (Sec. 9.3): heads of the last layer and a fourth layer on in-context template matching
FIGURE_7 = Setup("chen2024", "Figure 7", {
    "questions d1": Stated(100, "Sec. 9.1, Data"),
    "answers d2": Stated(100, "Sec. 9.1, Data"),
    "template length l": Stated(5, "Sec. 9.1, Data"),
    "examples k": Stated(4, "Sec. 9.3 (each sequence contains 4 examples)"),
    "layers compared": Stated([3, 4], "Sec. 9.3"),
    **_HEADS_COMMON})


def _heads_compared(points: list[dict]):
    return sorted({tuple(a) for p in points for a in p["archs"]})


def ours_figure_4(heads, sgd) -> dict:
    """Figure 4's fields as our two memorization runs ran them: the ``heads`` sweep (its
    recipe, Adam) and the ``figure4_sgd`` learning-rate grid (SGD); a field that differs between
    the two lists both values."""
    points = [p for p in heads.grid if p["task"] == "memorization"]
    t = task_that_ran(heads, "memorization")
    fields = _merge(_training_fields(heads, points), _training_fields(sgd, sgd.grid))
    return {"words d1": t.n_words, "sequence length": t.length, "examples e": t.n_examples,
            "heads compared": _heads_compared(points + sgd.grid), **fields}


def ours_figures_5_6(heads) -> dict:
    """Figures 5-6's fields as the ``heads`` sweep ran them."""
    points = [p for p in heads.grid if p["task"] in ("reasoning", "generalization")]
    qa, tm = task_that_ran(heads, "reasoning"), task_that_ran(heads, "generalization")
    return {"in-context QA: questions d1": qa.n_questions, "in-context QA: answers d2": qa.n_answers,
            "in-context QA: examples k": qa.k, "template matching: words d1": tm.n_words,
            "template matching: template length l": tm.length, "heads compared": _heads_compared(points),
            **_training_fields(heads, points)}


def ours_figure_7(*results) -> dict:
    """Figure 7's fields as the in-context template matching points of ``results`` (``heads``,
    ``figure7_k``, ``figure7_l5``, ``figure7_paper_sizes``) ran them; a field with several values
    across the runs lists them all."""
    fields, tasks, archs = [], [], []
    for result in results:
        points = [p for p in result.grid if p["task"] == "contextual"]
        fields.append(_training_fields(result, points))
        tasks += [point_run(result, p)[0] for p in points]
        archs += _heads_compared(points)

    return {"questions d1": _one(t.n_words for t in tasks), "answers d2": _one(t.n_answers for t in tasks),
            "template length l": _one(t.length for t in tasks), "examples k": _one(t.k for t in tasks),
            "layers compared": sorted({len(a) for a in archs}), "heads compared": sorted(set(archs)),
            **_merge(*fields)}


def _merge(*fields: dict) -> dict:
    """Field by field: the single value all of ``fields`` share, else the sorted list of their values."""
    out = {}
    for name in fields[0]:
        values = []
        for f in fields:
            v = f[name]
            values += v if isinstance(v, list) else [v]
        values = sorted(set(values), key=str)
        out[name] = values[0] if len(values) == 1 else values
    return out
