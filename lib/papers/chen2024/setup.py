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
