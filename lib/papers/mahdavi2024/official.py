"""The official code's recipe for the training experiments (Mahdavi et al. 2024, reading notes
Sec. 4.0), as configuration of the shared model and trainer, beside ours in
:mod:`lib.papers.mahdavi2024.training`. Issue 16 (our recipe memorizes up to twice what the
official code does) starts here.

What the official code does, and what this module reproduces:

* **data** (:func:`official_data`): one ``np.random.RandomState(seed)`` draws, in this order, the
  shared context ``E = uniform(size=(1, n, d))`` (or ``(T, n, d)`` per example), the queries
  ``e = uniform(size=(T, d))`` and the labels ``multinomial(1, ones(C)/C, size=T).argmax(-1)``;
  ``X = [e; E]`` per example, in float32. Bit for bit (a test checks the code's fingerprints).
* **model**: :func:`lib.papers.mahdavi2024.training.model_config`, the same layer as ours.
* **initialisation** (:func:`official_init`): Xavier-uniform for each head's ``W_Q``, ``W_K``
  (``d_model x d_h``) and ``W_V`` (``d_model x 1``), and for ``W_O`` as one ``(H, d_model)``
  matrix; the embedding and the decoder keep ``nn.Linear``'s default, uniform in
  ``+-1/sqrt(fan_in)`` for weights and biases. The distributions of the code, drawn from one
  generator per member (not torch's global one, so not the code's bits).
* **checkpoint rule** (:func:`best_checkpoint`): evaluations every 500 updates on the training
  set; the reported accuracy is that of the evaluation with the lowest loss (the first, on ties),
  not the last one.
"""
from __future__ import annotations

import math

import numpy as np
import torch

from ... import validate
from ...models import build_model
from ...tasks.base import Batch
from ...train import Run
from .training import N_CLASSES, model_config


def official_data(n_examples: int, context_size: int, dim: int, *, seed: int = 42, n_classes: int = N_CLASSES,
                  context: str = "shared") -> Batch:
    """The official ``RandomDataset`` (classification): ``x (T, n + 1, d)`` float32 with the query
    first, ``y (T,)`` classes, drawn from ``np.random.RandomState(seed)`` in the code's order."""
    owner = "official_data"
    T = validate.integer(owner, "n_examples", n_examples, minimum=1)
    n = validate.integer(owner, "context_size", context_size, minimum=1)
    d = validate.integer(owner, "dim", dim, minimum=1)
    validate.integer(owner, "seed", seed, minimum=0, maximum=2**32 - 1)
    C = validate.integer(owner, "n_classes", n_classes, minimum=2)
    validate.choice(owner, "context", context, ("shared", "per_example"))
    validate.size(owner, "the data (n_examples x (context_size + 1) x dim)", T * (n + 1) * d)
    rng = np.random.RandomState(seed)
    E = rng.uniform(size=(1 if context == "shared" else T, n, d))
    e = rng.uniform(size=(T, d))
    y = rng.multinomial(1, np.ones(C) / C, size=T).argmax(-1)
    X = np.concatenate([e[:, None, :], np.broadcast_to(E, (T, n, d))], axis=1).astype(np.float32)
    return Batch(torch.from_numpy(X), torch.from_numpy(y).long())


def _xavier(shape: tuple[int, int], generator: torch.Generator) -> torch.Tensor:
    fan_out, fan_in = shape[0], shape[1]  # torch's convention for a 2-D weight (out, in)
    bound = math.sqrt(6.0 / (fan_in + fan_out))
    return (torch.rand(shape, generator=generator, dtype=torch.float64) * 2 - 1) * bound


def _linear_default(shape: tuple[int, ...], fan_in: int, generator: torch.Generator) -> torch.Tensor:
    bound = 1.0 / math.sqrt(fan_in)
    return (torch.rand(shape, generator=generator, dtype=torch.float64) * 2 - 1) * bound


def official_init(model, seed: int):
    """Load the official code's initial weights (distributions; see the module docstring) into a
    model built from :func:`~lib.papers.mahdavi2024.training.model_config`; returns the model."""
    validate.integer("official_init", "seed", seed, minimum=0)
    g = torch.Generator().manual_seed(seed)
    c = model.config
    H, d, dk = c.heads[0], c.d_model, c.head_size(0)
    attn = "layers.0.attn."
    weights = {
        "W_in": _linear_default((c.input_dim, d), c.input_dim, g),  # stored (in, out): same bound
        "b_in": _linear_default((d,), c.input_dim, g),
        attn + "W_Q": torch.stack([_xavier((d, dk), g) for _ in range(H)]),
        attn + "W_K": torch.stack([_xavier((d, dk), g) for _ in range(H)]),
        attn + "W_V": torch.stack([_xavier((d, 1), g) for _ in range(H)]),
        attn + "W_O": _xavier((H, d), g)[:, None, :],  # the code's W_o (H, d_model), one matrix
        "W_U": _linear_default((d, c.n_out), d, g),
        "b_U": _linear_default((c.n_out,), d, g),
    }
    return model.set_weights(weights)


def official_model(dim: int, context_size: int, n_heads: int, d_head: int):
    """``seed -> model`` with the official code's initialisation, for :func:`lib.train.train`."""
    config = model_config(dim, context_size, n_heads, d_head)
    return lambda seed: official_init(build_model(config, seed=seed), seed)


def best_checkpoint(run: Run, name: str = "train") -> np.ndarray:
    """Each member's accuracy at its lowest-loss evaluation (the first such, as the code keeps a
    checkpoint only when the loss is strictly lower), shape (K,)."""
    loss, acc = run.metrics[name]["loss"], run.metrics[name]["acc"]
    best = np.nanargmin(np.where(np.isnan(loss), np.inf, loss), axis=1)
    return acc[np.arange(len(best)), best]
