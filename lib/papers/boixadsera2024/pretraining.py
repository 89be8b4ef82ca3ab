"""Offline stand-ins for Sec. 6 of Boix-Adsera et al. (2024): Figures 6, 7 and 23.

The paper trains GPT-2 on Wikitext with and without the identity scalings (Fig. 6's table),
fine-tunes pretrained GPT-2 on a template task against training it from scratch (Fig. 7a, and
three sizes in Fig. 23), and shows diagonals in the pretrained heads' ``W_K W_Qᵀ`` and
``W_V W_Oᵀ`` (Fig. 7b-c). Neither Wikitext nor GPT-2's weights can be reached offline, so here a
small causal model of the shared stack is pretrained on
:class:`~lib.tasks.binding_text.VariableBindingText`, a synthetic corpus whose only
non-random tokens need a match on token identity, and then:

* :func:`pretrain` compares validation perplexity, vanilla against ``a_h I`` and ``b_h I``;
* :func:`diagonal_dominance` scores each head's ``W_Q W_Kᵀ`` and ``W_V W_O`` (the scalars
  included) by its mean diagonal entry over its mean absolute off-diagonal entry: about 0 at
  random initialisation, large where a head compares or copies a token as itself;
* :func:`transplant` starts a template-task model from the pretrained blocks (new token
  embeddings and read-out, the pretrained positions), which :func:`~.training.fit` then trains
  exactly as it trains the model from scratch.
"""
from __future__ import annotations

from contextlib import contextmanager

import numpy as np
import torch

from ... import validate
from ...models import IdentityScalingConfig, build_model
from ...tasks.binding_text import VariableBindingText
from ...train import TrainConfig, train
from .training import VARIANTS, authors_init


@contextmanager
def deterministic():
    """Deterministic torch kernels inside the block (restored after). Without them, two CPU runs
    of next-token training on this corpus differ in the last float digits (some kernels sum in
    an order that depends on threading), and ``python -m lib.results verify`` could not
    reproduce a stored result exactly."""
    enabled, warn_only = torch.are_deterministic_algorithms_enabled(), torch.is_deterministic_algorithms_warn_only_enabled()
    torch.use_deterministic_algorithms(True, warn_only=True)
    try:
        yield
    finally:
        torch.use_deterministic_algorithms(enabled, warn_only=warn_only)


def lm_config(task, variant: str = "vanilla", *, d_model: int = 64, n_layers: int = 2, n_heads: int = 4,
              d_head: int = 16, d_mlp: int = 256) -> IdentityScalingConfig:
    """A GPT-like next-token model for ``task``: causal, pre-LayerNorm, tied read-out at every position."""
    validate.choice("lm_config", "variant", variant, VARIANTS)
    validate.instance("lm_config", "task", task, VariableBindingText)
    for name, value in (("d_model", d_model), ("n_layers", n_layers), ("n_heads", n_heads), ("d_head", d_head)):
        validate.integer("lm_config", name, value, minimum=1, maximum=validate.MAX_COUNT)
    validate.integer("lm_config", "d_mlp", d_mlp, minimum=0, maximum=validate.MAX_COUNT)
    kq, vo = VARIANTS[variant]
    V = len(task.vocab)
    return IdentityScalingConfig(d_model=d_model, n_out=V, vocab_size=V, max_len=task.seq_len, n_layers=n_layers,
                                 n_heads=n_heads, d_head=d_head, d_value=d_head, d_mlp=d_mlp, causal=True,
                                 readout="all", tie_embedding=True, kq_identity=kq, vo_identity=vo)


@torch.no_grad()
def binding_accuracy(model, task, batch) -> float:
    """Share of printed values predicted right (the arg-max at each ``->``)."""
    validate.instance("binding_accuracy", "model", model, torch.nn.Module)
    validate.instance("binding_accuracy", "task", task, VariableBindingText)
    if len(batch) == 0:
        validate.fail("binding_accuracy", "batch", "a non-empty batch", "an empty batch")
    where = task.answer_positions(batch.x)
    predicted = model(batch.x).argmax(-1)
    return float((predicted[where] == batch.y[where]).float().mean())


def pretrain(task, variant: str, seeds, *, steps: int, lr: float = 1e-3, batch_size: int = 32, eval_every: int = 100,
             n_val: int = 512, device=None, stop_after: int | None = None, **shape):
    """Train next-token models on fresh text from ``task`` (Adam, constant ``lr``); returns the
    :class:`~lib.train.Run` and per-member metrics: validation perplexity at the end and its
    best, binding accuracy, and the mean |a_h|, |b_h|."""
    owner = "pretrain"
    validate.choice(owner, "variant", variant, VARIANTS)
    validate.instance(owner, "task", task, VariableBindingText)
    seeds = validate.integers(owner, "seeds", seeds, minimum=0)
    validate.integer(owner, "steps", steps, minimum=1)
    validate.real(owner, "lr", lr, above=0.0)
    validate.integer(owner, "batch_size", batch_size, minimum=1, maximum=validate.MAX_COUNT)
    validate.integer(owner, "eval_every", eval_every, minimum=1)
    validate.integer(owner, "n_val", n_val, minimum=1, maximum=validate.MAX_COUNT)
    if stop_after is not None:
        validate.integer(owner, "stop_after", stop_after, minimum=0)
    config = lm_config(task, variant, **shape)
    val = task.sample(n_val, seed=10**6)
    run = train(lambda seed: authors_init(build_model(config, seed=seed), seed), seeds,
                TrainConfig(steps=steps, lr=lr, optimizer="adam", loss="cross_entropy", batch_size=batch_size,
                            eval_every=eval_every), task, evals={"val": val}, device=device, progress=False,
                stop_after=stop_after)
    loss = run.metrics["val"]["loss"]
    models = [run.model(k).cpu().eval() for k in range(run.K)]
    scalars = {name: [float(np.mean([p.abs().mean().item() for n, p in m.named_parameters() if n.endswith(name)]
                                    or [0.0])) for m in models] for name in ("id_kq", "id_vo")}
    metrics = {"val_ppl": np.exp(loss[:, -1]).tolist(), "val_ppl_best": np.exp(np.nanmin(loss, axis=1)).tolist(),
               "binding_acc": [binding_accuracy(m, task, val) for m in models],
               "mean_abs_a": scalars["id_kq"], "mean_abs_b": scalars["id_vo"], "wall_s": run.wall_s}
    return models, metrics


def head_products(model) -> dict[str, torch.Tensor]:
    """Every head's ``W_Q W_Kᵀ + a_h I`` and ``W_V W_O + b_h I`` as ``(layers, heads, d, d)``.
    The score of query row h_i on key h_j is ``h_i (W_Q W_Kᵀ) h_jᵀ`` (times 1/sqrt(d_head))."""
    validate.instance("head_products", "model", model, torch.nn.Module)
    kq, vo = [], []
    for block in model.layers:
        attn = block.attn
        eye = torch.eye(attn.W_Q.shape[1])
        a = attn.id_kq.detach() * attn.scale ** -1 if hasattr(attn, "id_kq") else torch.zeros(attn.W_Q.shape[0])
        b = attn.id_vo.detach() if hasattr(attn, "id_vo") else torch.zeros(attn.W_Q.shape[0])
        kq.append(attn.W_Q.detach() @ attn.W_K.detach().transpose(1, 2) + a[:, None, None] * eye)
        vo.append(attn.W_V.detach() @ attn.W_O.detach() + b[:, None, None] * eye)
    return {"kq": torch.stack(kq), "vo": torch.stack(vo)}


def diagonal_dominance(model) -> dict[str, list[list[float]]]:
    """Per layer and head: mean diagonal entry / mean absolute off-diagonal entry of each product
    of :func:`head_products` (Fig. 7b-c's "diagonals stronger than the other weights")."""
    out = {}
    for name, m in head_products(model).items():
        d = m.shape[-1]
        if d < 2:
            validate.fail("diagonal_dominance", "model", "a model of width d_model >= 2 (a 1 x 1 product has no "
                          "off-diagonal entries to compare with)", f"d_model = {d}")
        diag = torch.diagonal(m, dim1=-2, dim2=-1).mean(-1)
        off = (m.abs().sum((-2, -1)) - torch.diagonal(m, dim1=-2, dim2=-1).abs().sum(-1)) / (d * d - d)
        out[name] = (diag / off).tolist()
    return out


def top_heads(model, digits: int = 4) -> dict[str, dict]:
    """For each product, the head with the highest :func:`diagonal_dominance` score: its layer,
    head, score and matrix (rounded, for Fig. 7b-c's heat maps)."""
    validate.integer("top_heads", "digits", digits, minimum=0, maximum=17)
    scores, products = diagonal_dominance(model), head_products(model)
    out = {}
    for name, per_layer in scores.items():
        layer, head = np.unravel_index(int(np.argmax(per_layer)), np.shape(per_layer))
        out[name] = {"layer": int(layer), "head": int(head), "score": float(np.max(per_layer)),
                     "matrix": np.round(products[name][layer, head].numpy(), digits).tolist()}
    return out


def transplant(pretrained: list, positions: bool = True):
    """An ``init`` for :func:`~.training.fit`: member ``seed`` starts from ``pretrained[seed % len]``'s
    blocks and final LayerNorm (and its first positions), keeping its own new token embeddings
    and read-out (Fig. 7a: new tokens, new head)."""
    if not isinstance(pretrained, (list, tuple)):
        validate.fail("transplant", "pretrained", "a list of pretrained models", pretrained, validate.ArgumentTypeError)
    if len(pretrained) == 0:
        validate.fail("transplant", "pretrained", "a non-empty list of pretrained models", pretrained)
    for i, m in enumerate(pretrained):
        validate.instance("transplant", f"pretrained[{i}]", m, torch.nn.Module)
    validate.boolean("transplant", "positions", positions)

    def start(model, seed: int):
        source = pretrained[seed % len(pretrained)].state_dict()
        weights = {k: v for k, v in source.items() if k.startswith(("layers.", "ln_final."))}
        if positions:
            weights["W_pos"] = source["W_pos"][:model.config.max_len]
        missing = [k for k in weights if k not in dict(model.named_parameters())]
        if missing:
            raise ValueError(f"transplant: the model has no {missing}; build it with the pretrained shape")
        return model.set_weights(weights)
    return start
