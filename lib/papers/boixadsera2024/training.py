"""Trained transformers on template tasks (Boix-Adsera et al., 2024, App. A-B).

The model is the authors' template-task transformer in the shared stack
(:class:`~lib.models.IdentityScalingConfig`): learned token and positional embeddings, pre-LayerNorm
blocks of bidirectional softmax attention and a GELU MLP, the read-out at the final [CLS] token,
and optionally ``a_h I`` / ``b_h I`` per head. Real labels are read out by a linear map (MSE);
symbolic labels by the tied embedding (cross-entropy over the whole vocabulary). Training follows
App. A: Adam without weight decay, the validation set (100 strings of its own unseen alphabet)
picks the best evaluation, and the test set (100 strings of another unseen alphabet) is reported
there.
"""
from __future__ import annotations

import numpy as np
import torch

from ... import validate
from ...models import IdentityScalingConfig, build_model
from ...tasks.symbol_templates import SymbolTemplates
from ...train import TrainConfig, train

VARIANTS = {"vanilla": (False, False), "+KQ": (True, False), "+VO": (False, True), "+KQ,VO": (True, True)}


def model_config(task, variant: str = "vanilla", d_model: int = 128, n_layers: int = 2, n_heads: int = 16,
                 d_head: int = 64, d_mlp: int = 256, **changes) -> IdentityScalingConfig:
    """The authors' transformer for ``task`` (App. A: 2 layers, 16 heads of 64, d = 128, MLP 256);
    ``changes`` set other fields of the stack (e.g. ``causal=True``)."""
    validate.choice("model_config", "variant", variant, VARIANTS)
    validate.instance("model_config", "task", task, SymbolTemplates)
    for name, value in (("d_model", d_model), ("n_layers", n_layers), ("n_heads", n_heads), ("d_head", d_head)):
        validate.integer("model_config", name, value, minimum=1, maximum=validate.MAX_COUNT)
    validate.integer("model_config", "d_mlp", d_mlp, minimum=0, maximum=validate.MAX_COUNT)
    kq, vo = VARIANTS[variant]
    symbolic = task.target == "class"
    V = len(task.vocab)
    return IdentityScalingConfig(d_model=d_model, n_out=V if symbolic else 1, vocab_size=V, max_len=task.seq_len,
                                 n_layers=n_layers, n_heads=n_heads, d_head=d_head, d_value=d_head, d_mlp=d_mlp,
                                 tie_embedding=symbolic, kq_identity=kq, vo_identity=vo, **changes)


def authors_init(model, seed: int):
    """The authors' embeddings: token and positional tables N(0, 1) (PyTorch's ``nn.Embedding``
    default and their ``randn`` positions), not the stack's N(0, 1/fan_in), which would make a
    token's embedding 1/sqrt(V) the size of its position's. Other weights keep the stack's
    N(0, 1/fan_in), close to PyTorch's ``nn.Linear`` default (uniform, std 1/sqrt(3 fan_in))."""
    validate.seed("authors_init", "seed", seed)
    validate.instance("authors_init", "model", model, torch.nn.Module)
    g = torch.Generator().manual_seed(10_000 + seed)
    weights = {name: torch.randn(model.get_weight(name).shape, generator=g) for name in ("W_E", "W_pos")}
    return model.set_weights(weights)


def mimetic_init(model, seed: int, alpha: float = 0.7, beta: float = 0.7):
    """Mimetic initialisation of every head's query-key product ([TK23], App. B.1): draw
    ``M = alpha Z + beta I`` with ``Z`` N(0, 1/d) entries, and set ``W_Q = U_k S_k^{1/2}``,
    ``W_K = V_k S_k^{1/2}`` from its SVD, so that ``W_Q W_Kᵀ`` is M's best rank-``d_head``
    approximation. The paper does not give its alpha and beta; 0.7 and 0.7 are ours."""
    validate.instance("mimetic_init", "model", model, torch.nn.Module)
    validate.seed("mimetic_init", "seed", seed)
    validate.real("mimetic_init", "alpha", alpha)
    validate.real("mimetic_init", "beta", beta)
    g = torch.Generator().manual_seed(20_000 + seed)
    weights = {}
    for name in model.weight_names():
        if name.endswith("attn.W_Q"):
            h, d, k = model.get_weight(name).shape
            q, kk = torch.empty(h, d, k), torch.empty(h, d, k)
            for head in range(h):
                m = alpha * torch.randn(d, d, generator=g) / d ** 0.5 + beta * torch.eye(d)
                u, s, vh = torch.linalg.svd(m)
                q[head], kk[head] = u[:, :k] * s[:k].sqrt(), vh[:k].T * s[:k].sqrt()
            weights[name], weights[name[:-1] + "K"] = q, kk
    return model.set_weights(weights)


INITS = {"gaussian": lambda model, seed: model, "mimetic": mimetic_init}


def fit(task, n_train: int, seeds, variant: str = "vanilla", *, steps: int = 1000, lr: float | tuple = 1e-3,
        batch_size: int | None = 1024, eval_every: int = 10, data_seed: int = 0, init: str = "gaussian",
        device=None, stop_after: int | None = None, **shape) -> dict:
    """Train one model per seed on ``n_train`` strings (alphabet of ``n_train`` tokens, as in
    App. B) and read the test metric at the evaluation of lowest validation loss. ``batch_size``
    1024 is full-batch below 1024 samples, so a step is an epoch there. Returns per-member lists:
    ``test`` (MSE for real labels, error = 1 - accuracy for symbolic ones) at the chosen
    evaluation, ``test_final``, ``train_loss_final``, ``best_step``, and the mean |a_h|, |b_h| learned.

    ``lr`` a tuple: one member per (learning rate, seed), the seeds varying fastest, all trained
    together; the result then lists each member's ``lr``. ``init="mimetic"``: :func:`mimetic_init`
    on top of the authors' initialisation; a function ``(model, seed) -> model`` may replace it
    (e.g. one that loads pretrained blocks)."""
    seeds = validate.integers("fit", "seeds", seeds, minimum=0)
    if not (isinstance(init, str) or callable(init)):
        validate.fail("fit", "init", "one of " + ", ".join(map(repr, INITS)) + " or a function (model, seed) -> model",
                      init, validate.ArgumentTypeError)
    start = INITS[validate.choice("fit", "init", init, INITS)] if isinstance(init, str) else init
    validate.instance("fit", "task", task, SymbolTemplates)
    validate.integer("fit", "n_train", n_train, minimum=1, maximum=validate.MAX_COUNT)
    validate.integer("fit", "steps", steps, minimum=1)
    if isinstance(lr, (tuple, list)):
        if len(lr) == 0:
            validate.fail("fit", "lr", "a learning rate or a non-empty tuple of them", lr)
        for i, value in enumerate(lr):
            validate.real("fit", f"lr[{i}]", value, above=0.0)
    else:
        validate.real("fit", "lr", lr, above=0.0)
    if batch_size is not None:
        validate.integer("fit", "batch_size", batch_size, minimum=1)
    validate.integer("fit", "eval_every", eval_every, minimum=1)
    validate.seed("fit", "data_seed", data_seed)
    if stop_after is not None:
        validate.integer("fit", "stop_after", stop_after, minimum=0)
    lrs = tuple(lr) if isinstance(lr, (tuple, list)) else None
    if lrs is not None:
        lr = tuple(v for v in lrs for _ in seeds)
        seeds = [s for _ in lrs for s in seeds]
    sets = task.splits(n_train, seed=data_seed)
    config = model_config(task, variant, **shape)
    symbolic = task.target == "class"
    run = train(lambda seed: start(authors_init(build_model(config, seed=seed), seed), seed), seeds, TrainConfig(steps=steps, lr=lr, optimizer="adam", loss="cross_entropy" if symbolic
                                           else "mse", batch_size=None if batch_size is None or batch_size >= n_train
                                           else batch_size, eval_every=eval_every),
                sets["train"], evals={"val": sets["val"], "test": sets["test"]}, device=device, progress=False,
                stop_after=stop_after)
    metric = (lambda name: 1.0 - run.metrics[name]["acc"]) if symbolic else (lambda name: run.metrics[name]["loss"])
    val, test = run.metrics["val"]["loss"], metric("test")
    best = np.nanargmin(np.where(np.isfinite(val), val, np.inf), axis=1)
    scalars = {}
    for name in ("id_kq", "id_vo"):
        per_member = []
        for k in range(run.K):
            values = [np.abs(p.detach().numpy()).mean() for n, p in run.model(k).named_parameters()
                      if n.endswith(name)]
            per_member.append(float(np.mean(values)) if values else 0.0)
        scalars[name] = per_member
    out = {"lr": list(lr)} if lrs is not None else {}
    return out | {"test": [float(test[k, best[k]]) for k in range(run.K)], "test_final": test[:, -1].tolist(),
            "train_loss_final": run.train_loss[:, -1].tolist(),
            "best_step": [int(run.eval_steps[b]) for b in best], "mean_abs_a": scalars["id_kq"],
            "mean_abs_b": scalars["id_vo"], "wall_s": run.wall_s}
