"""What Richard (2024) states about its trained experiments (Sec. 2.2, Sec. 4.2, App. 5.3), as data.

One :class:`~lib.paper_setup.Setup` per trained claim, one :class:`~lib.paper_setup.Stated` per
field, each with the section it comes from; fields the paper leaves open are
:data:`~lib.paper_setup.NOT_STATED` (our choice there cannot differ). The functions below
(:func:`architectures`, :func:`sample_size`, :func:`completions`, :func:`ablations`,
:func:`figure_7`, :func:`gd_eq1`, :func:`boolean_simplification`) read the same fields from the
config and grid a stored result ran with, and from the library objects that config rebuilds
(the decoder, to read its dropout; the training rows, to read which tokens carry the loss), so
that each difference is computed, never typed.

Sec. 4.2 fixes the Dyck language (D_32), the depth split, the test size (1024 prefixes), the
models (L, h, d grid; MLP of 8d), minibatches of 8, AdamW with "learning rates between 6e-6 and
6e-5", at most 10,000 iterations and dropout 0.1. It gives no seeds. Sec. 2.2 fixes Figure 1's
model and budget but not its optimizer, rate, dropout or training depths.
"""
from __future__ import annotations

import numpy as np

from ... import validate
from ...paper_setup import NOT_STATED, Setup, Stated
from ...results import Result
from ...tasks import dyck_words

_MODELS = "Sec. 4.2, Models"
_DYCK = {
    "Dyck length 2N": Stated(32, "Sec. 4.2, Data"),
    "MLP hidden width": Stated("8d", _MODELS),
    "optimizer": Stated("adamw", _MODELS),
    "learning rate range": Stated((6e-6, 6e-5), _MODELS + " (which model got which rate is not stated)"),
    "batch": Stated(8, _MODELS),
    "steps": Stated(10_000, _MODELS + " (a maximum of 10,000 iterations)"),
    "dropout": Stated(0.1, _MODELS),
    "loss": Stated("next-token cross-entropy on every prefix", "Eq. (2)"),
    "seeds": Stated(NOT_STATED),
}
_LARGEST = Stated([1024, 4, 4], "Sec. 4.2, Sample size experiment (the largest model, d = 1024, L = h = 4)")

#: Figure 3 (left): every (L, h) with h | d, trained on the words of depth <= 8 of 2^25 draws
FIGURE_3_LEFT = Setup("richard2024", "Figure 3 (left)", {
    "training depth <=": Stated(8, "Sec. 4.2, Data"),
    "test prefix depth >=": Stated(9, "Sec. 4.2, Data"),
    "training words": Stated(24_000_000, "Sec. 4.2, Data (about 2.4e7 of 2^25 random words have depth <= 8)"),
    "test prefixes": Stated(1024, "Sec. 4.2, Data"),
    "widths d": Stated([2, 16, 128, 512, 1024], _MODELS),
    "layers and heads (L, h)": Stated([(L, h) for L in (1, 2, 4) for h in (1, 2, 4)], _MODELS),
    **_DYCK})

#: Figure 3 (right): the largest model on 10^k distinct words of depth <= 4, 8, 12
FIGURE_3_RIGHT = Setup("richard2024", "Figure 3 (right)", {
    "model d, L, h": _LARGEST,
    "training depths <=": Stated([4, 8, 12], "Sec. 4.2, Sample size experiment"),
    "distinct training words": Stated([1, 10, 1000, 100_000, 10_000_000],
                                      "Sec. 4.2, Sample size experiment (10^k, k = 0, 1, 3, 5, 7)"),
    "test prefix depth >=": Stated(13, "Sec. 4.2, Sample size experiment"),
    "test prefixes": Stated(1024, "Sec. 4.2, Sample size experiment"),
    **_DYCK})


def _completions_setup(ref: str) -> Setup:
    return Setup("richard2024", ref, {
        "model d, L, h": Stated([1024, 4, 4], "Sec. 4.2: the 1- and 10^7-word models of the sample size experiment "
                                              "(the largest model, d = 1024, L = h = 4)"),
        "one-word model: depth of its word": Stated(4, "Sec. 4.2, Completion distributions (a single q = 4 sample)"),
        "many-word model: training depth <=": Stated(8, "Sec. 4.2, Completion distributions"),
        "many-word model: distinct words": Stated(10_000_000, "Sec. 4.2, Completion distributions"),
        "samples per context": Stated(100, "Sec. 4.2, Completion distributions; Table 1"),
        **_DYCK})


#: Figure 4 and Table 1, and Figure 5 (the same two models' value-output matrices)
FIGURE_4 = _completions_setup("Figure 4 and Table 1")
FIGURE_5 = _completions_setup("Figure 5")

_ABLATION = "App. 5.3.4"
_VARIANTS = ("full", "no positional embedding", "uniform attention, fixed E", "V = I, no MLP", "one attention layer")
_ONES = "[1, ..., 1; -1, ..., -1]"

#: Figure 6: five models on random splits, 4^k distinct training words
FIGURE_6 = Setup("richard2024", "Figure 6", {
    "split": Stated("random 90% / 10%", _ABLATION + ", Data"),
    "distinct training words": Stated([4**k for k in range(1, 13)], _ABLATION + ", Data (4^k, k = 1, ..., 12)"),
    "models compared": Stated(list(_VARIANTS), _ABLATION + ", Models (1)-(5)"),
    "model d, L, h": Stated([1024, 4, 4], _ABLATION + ", Models (1): the largest model of Sec. 4.2"),
    "fixed token embedding E": Stated(_ONES, _ABLATION + ", Models (3)"),
    **_DYCK})

#: Figure 7: the positional paths of models (3)-(5), d = 1024, on 4^12 words, k-means with k = 8
FIGURE_7 = Setup("richard2024", "Figure 7", {
    "models pictured": Stated(list(_VARIANTS[2:]), "Figure 7 caption"),
    "width d": Stated(1024, _ABLATION + ", Observations"),
    "training words": Stated(4**12, _ABLATION + ", Observations (the broadest training set, 4^12 words)"),
    "fixed token embedding E": Stated(_ONES, _ABLATION + ", Models (3)"),
    "k-means clusters": Stated(8, "Figure 7 caption"),
    **_DYCK})

#: Sec. 4.2: "a Transformer model trained on a single sequence" reaches zero loss without the closed form
GD_EQ1 = Setup("richard2024", "Sec. 4.2 (gradient descent does not find the closed form)", {
    "model": Stated("GPT-2-style decoder, d = 1024, L = h = 4",
                    "Sec. 4.2, Sample size experiment (its single-sequence models)"),
    "training words": Stated(1, "Sec. 4.2, Sample size experiment"),
    **_DYCK})

_BOOLEAN = "Sec. 2.2, Train and test split and model training"

#: Figure 1: a decoder per training depth, tested in and out of sample at depths 3 and 6
FIGURE_1 = Setup("richard2024", "Figure 1", {
    "clauses k": Stated(5, _BOOLEAN),
    "held-out simplified forms": Stated(128, _BOOLEAN),
    "training depths": Stated(NOT_STATED),  # Figure 1's axis, not in the text
    "test depths": Stated([3, 6], "Sec. 2.2, Evaluation data and metrics"),
    "test expressions": Stated(10_000, "Sec. 2.2, Evaluation data and metrics"),
    "model d, L, h": Stated([1024, 8, 8], _BOOLEAN),
    "context": Stated(1024, _BOOLEAN),
    "steps": Stated(100_000, _BOOLEAN),
    "tokens per step": Stated(2**14, _BOOLEAN + " ('2^14 batches' read as 2^14 tokens a step: 16 windows of 1024)"),
    "training equations per depth": Stated(NOT_STATED),  # the paper gives 10^9 tokens, not equations
    "training windows per depth, at most": Stated(10**9 // 1024, _BOOLEAN + " ('10^9 length sequences' read as "
                                                  "10^9 tokens, in windows of 1024)"),
    "loss": Stated("next-token cross-entropy on every token",
                   "Eq. (2); Sec. 2.1-2.2 (a long concatenation of tokenized equalities, no masking stated)"),
    "optimizer": Stated(NOT_STATED),
    "learning rate": Stated(NOT_STATED),
    "dropout": Stated(NOT_STATED),
    "seeds": Stated(NOT_STATED),
})


# ----------------------------------------------------------------------------- our side, read from results
def _dropout(model_config) -> float:
    """The dropout rate of the decoder ``model_config`` builds: the largest ``p`` of its
    ``nn.Dropout`` modules, 0 when it has none. Read from a copy of width 8 (dropout does not
    depend on the width, and the paper's d = 1024 would cost seconds to build)."""
    import torch

    from ...models import build_model

    small = model_config.replace(d_model=8, d_mlp=16 if model_config.d_mlp else 0)
    rates = [m.p for m in build_model(small).modules() if isinstance(m, torch.nn.Dropout)]
    return float(max(rates, default=0.0))


def _dyck_loss(N: int) -> str:
    """Which next tokens of a word carry the loss in the Dyck sweeps' training rows."""
    from .training import as_batch

    batch = as_batch(dyck_words.from_string("()" * N)[None])
    targets = batch.y[0].numpy()
    return "next-token cross-entropy on every prefix" if (targets >= 0).all() and len(targets) == 2 * N - 1 \
        else f"next-token cross-entropy on {int((targets >= 0).sum())} of {2 * N - 1} prefixes"


def _rates(config: dict) -> tuple:
    rates = config.get("lrs") or [config["lr"]]
    return (min(rates), max(rates))


def _dyck_common(config: dict, model_config, *, batch=None, mlp: bool = True) -> dict:
    from .training import RECIPE

    ratio = model_config.d_mlp // model_config.d_model if mlp else 0
    return {"Dyck length 2N": 2 * config["N"], "MLP hidden width": f"{ratio}d" if ratio else "none",
            "optimizer": RECIPE["optimizer"], "learning rate range": _rates(config),
            "batch": config["batch_size"] if batch is None else batch, "steps": config["steps"],
            "dropout": _dropout(model_config), "loss": _dyck_loss(config["N"]), "seeds": len(config["seeds"])}


def _words(N: int, count, max_depth: int) -> int:
    """The number of distinct training words: ``count``, or every word of depth <= ``max_depth``."""
    return int(count) if count is not None else int(dyck_words.depth_counts(N)[max_depth])


def _gpt(config: dict, d: int, layers: int, heads: int):
    from ...models.decoder import gpt_config

    return gpt_config(2, 2 * config["N"], d, layers, heads, mlp_ratio=config["mlp_ratio"])


def architectures(result) -> dict:
    """Figure 3 (left)'s fields as the ``architectures`` sweep in ``result`` ran them."""
    validate.instance("architectures", "result", result, Result)
    c, grid = result.config, result.grid
    return {"training depth <=": c["train_depth"], "test prefix depth >=": c["test_depth"],
            "training words": _words(c["N"], c["train_words"], c["train_depth"]), "test prefixes": c["n_test"],
            "widths d": sorted({p["d"] for p in grid}),
            "layers and heads (L, h)": sorted({(p["layers"], p["heads"]) for p in grid}),
            **_dyck_common(c, _gpt(c, grid[0]["d"], grid[0]["layers"], grid[0]["heads"]))}


def sample_size(result) -> dict:
    """Figure 3 (right)'s fields as the ``sample_size`` sweep in ``result`` ran them ("all": every
    word of the training depth)."""
    validate.instance("sample_size", "result", result, Result)
    c, grid = result.config, result.grid
    return {"model d, L, h": [c["d"], c["layers"], c["heads"]],
            "training depths <=": sorted({p["train_depth"] for p in grid}),
            "distinct training words": list(dict.fromkeys(p["size"] for p in grid)),
            "test prefix depth >=": c["test_depth"], "test prefixes": c["n_test"],
            **_dyck_common(c, _gpt(c, c["d"], c["layers"], c["heads"]))}


def completions(result) -> dict:
    """Figure 4, Table 1 and Figure 5's fields as the ``completions`` sweep in ``result`` ran them."""
    validate.instance("completions", "result", result, Result)
    c = result.config
    return {"model d, L, h": [c["d"], c["layers"], c["heads"]],
            "one-word model: depth of its word": int(dyck_words.depth(dyck_words.from_string(c["word"]))),
            "many-word model: training depth <=": c["train_depth"],
            "many-word model: distinct words": _words(c["N"], c["train_words"], c["train_depth"]),
            "samples per context": c["samples"], **_dyck_common(c, _gpt(c, c["d"], c["layers"], c["heads"]))}


def _fixed_embedding(d: int) -> str:
    """The fixed token embedding the ablations set, described from the matrix itself."""
    from .sweeps import fixed_embedding

    E = fixed_embedding(d)
    if np.allclose(E[0], 1) and np.allclose(E[1], -1):
        return _ONES
    return "[u, -u], u a random direction" if np.allclose(E[0], -E[1]) else "other"


def _ablation_model(c: dict, variant: str = "full"):
    from .sweeps import variant_config

    return variant_config(variant, c["N"], c["d"], c["layers"], c["heads"], c["mlp_ratio"])


def ablations(result) -> dict:
    """Figure 6's fields as the ``ablations`` sweep in ``result`` ran them."""
    validate.instance("ablations", "result", result, Result)
    c, grid = result.config, result.grid
    share = round(100 * c["test_share"])
    return {"split": f"random {100 - share}% / {share}%",
            "distinct training words": list(dict.fromkeys(p["size"] for p in grid)),
            "models compared": list(dict.fromkeys(p["variant"] for p in grid)),
            "model d, L, h": [c["d"], c["layers"], c["heads"]], "fixed token embedding E": _fixed_embedding(c["d"]),
            **_dyck_common(c, _ablation_model(c))}


def figure_7(result, pictured, clusters: int) -> dict:
    """Figure 7's fields: the variants whose paths ``result`` stored and the chapter pictures
    (``pictured``), at the largest training set, and the chapter's number of k-means clusters."""
    validate.instance("figure_7", "result", result, Result)
    clusters = validate.integer("figure_7", "clusters", clusters, 1)
    c, grid = result.config, result.grid
    largest = grid[-1]["size"]
    words = next(p["result"]["distinct_words"] for p in result.points if p["point"]["size"] == largest)
    return {"models pictured": list(pictured), "width d": c["d"], "training words": words,
            "fixed token embedding E": _fixed_embedding(c["d"]), "k-means clusters": clusters,
            **_dyck_common(c, _ablation_model(c))}


def gd_eq1(result) -> dict:
    """The fields of Sec. 4.2's single-sequence claim as the ``gd_eq1`` sweep in ``result`` ran them:
    the model of Eq. (1) trained by full-batch Adam (the sweep's own optimiser)."""
    validate.instance("gd_eq1", "result", result, Result)
    from ...models.decoder import eq1_config

    c = result.config
    model = eq1_config(2, 2 * c["N"])
    common = _dyck_common({**c, "batch_size": None}, model, batch="full (1 word)", mlp=False)
    from .sweeps import run_gd_eq1

    return {"model": result.grid[0]["model"], "training words": 1,
            **common, "optimizer": _keyword(run_gd_eq1, "TrainConfig", "optimizer")}


def _keyword(function, call: str, name: str):
    """The constant that ``function``'s source passes as keyword ``name`` to ``call(...)`` (a
    setting the sweep's code fixes rather than its config; the result's code hash covers it)."""
    import ast
    import inspect
    import textwrap

    tree = ast.parse(textwrap.dedent(inspect.getsource(function)))
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and getattr(node.func, "id", None) == call:
            for keyword in node.keywords:
                if keyword.arg == name:
                    return ast.literal_eval(keyword.value)
    raise ValueError(f"{function.__name__} passes no constant {name}= to {call}(...)")


def _boolean_loss(config: dict) -> str:
    """Which tokens of an equation carry the loss in the rows the Boolean sweep trains on."""
    from ...tasks import boolean_expressions as bx
    from .boolean import encode

    lhs, rhs = bx.sample(1, 1, 1, seed=0)[0]
    targets = encode([(lhs, rhs)], config["context"]).y[0].numpy()
    equation = len(bx.VOCAB.encode(bx.equation(lhs, rhs)))
    answer = len(bx.tokenize(rhs)) + 1
    carried = int((targets >= 0).sum())
    if carried == equation - 1:
        return "next-token cross-entropy on every token"
    return "next-token cross-entropy on the answer and <end> only" if carried == answer else \
        f"next-token cross-entropy on {carried} of {equation - 1} tokens"


def boolean_simplification(result) -> dict:
    """Figure 1's fields as the ``boolean_simplification`` sweep in ``result`` ran them."""
    validate.instance("boolean_simplification", "result", result, Result)
    from ...models.decoder import gpt_config
    from ...tasks import boolean_expressions as bx
    from .training import RECIPE

    c = result.config
    model = gpt_config(len(bx.VOCAB), c["context"], c["d"], c["layers"], c["heads"], mlp_ratio=c["mlp_ratio"])
    return {"clauses k": c["k"], "held-out simplified forms": c["n_held_out"],
            "training depths": sorted({p["train_depth"] for p in result.grid}), "test depths": c["test_depths"],
            "test expressions": c["n_test"], "model d, L, h": [c["d"], c["layers"], c["heads"]],
            "context": c["context"], "steps": c["steps"], "tokens per step": c["batch_size"] * c["context"],
            "training equations per depth": c["n_train"],
            "training windows per depth, at most": c.get("train_rows", "all (no cap)"),
            "loss": _boolean_loss(c),
            "optimizer": RECIPE["optimizer"], "learning rate": c["lr"], "dropout": _dropout(model),
            "seeds": len(c["seeds"])}
