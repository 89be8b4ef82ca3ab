"""The official code's recipe for the training experiments (Mahdavi et al. 2024, reading notes
Sec. 4.0), as pieces the shared model and trainer take: its data, its initial weights and its
checkpoint rule. A sweep whose config says ``recipe="official"`` uses all three
(:func:`lib.papers.mahdavi2024.training.train_group`); the paper scale does.
:mod:`lib.papers.mahdavi2024.comparison` sets them against ours (issue 16).

* **data** (:func:`official_data`): one ``np.random.RandomState(seed)`` draws, in this order, the
  shared context ``E = uniform(size=(1, n, d))`` (or ``(T, n, d)`` per example), the queries
  ``e = uniform(size=(T, d))`` and the labels, ``multinomial(1, ones(C)/C, size=T).argmax(-1)``
  (classes) or ``uniform(size=T)`` (reals); ``X = [e; E]`` per example, in float32. Bit for bit
  (a test checks the code's fingerprints).
* **model**: :func:`lib.papers.mahdavi2024.training.model_config`, the same layer as ours, with
  the sinusoidal table computed in float32 as the code's ``SinPositionalEncoding`` does
  (``official=True``; ours computes it in float64 and rounds).
* **initialisation** (:func:`official_init`): the code's ``torch.manual_seed(seed)`` and then its
  modules' initialisers in construction order, bit for bit: ``nn.Linear``'s default for the
  embedding and the decoder, Xavier-uniform for each head's ``W_Q``, ``W_K`` (``d_model x d_h``)
  and ``W_V`` (``d_model x 1``), and for ``W_O`` as one ``(H, d_model)`` matrix.
* **minibatches** (:func:`official_epochs`): the code's ``DataLoader(batch_size=256,
  shuffle=True)``: shuffled epochs, the last partial batch kept (256, 256, 38 for T = 550), the
  shuffle drawn from torch's global generator after the model's initialisation, with the
  evaluation loader's draws in between (:class:`lib.train.EpochOrder`); the budget counts
  ``max(epochs x T // 256, min steps)`` updates (:func:`official_steps`, the code's
  ``_set_train_epochs``).
* **checkpoint rule** (:func:`best_checkpoint`): evaluations every 500 updates on the training
  set; the reported accuracy is that of the evaluation with the lowest loss (the first, on ties),
  not the last one.
"""
from __future__ import annotations

import math

import numpy as np
import torch

from ... import validate
from ...tasks.base import Batch
from ...train import EpochOrder, Run

#: the code's number of classes (classification)
N_CLASSES = 100


def official_data(n_examples: int, context_size: int, dim: int, *, seed: int = 42, n_classes: int = N_CLASSES,
                  context: str = "shared", labels: str = "classes") -> Batch:
    """The official ``RandomDataset``: ``x (T, n + 1, d)`` float32 with the query first and
    ``y (T,)``, classes or reals in [0, 1) (float32), drawn from ``np.random.RandomState(seed)``
    in the code's order."""
    owner = "official_data"
    T = validate.integer(owner, "n_examples", n_examples, minimum=1)
    n = validate.integer(owner, "context_size", context_size, minimum=1)
    d = validate.integer(owner, "dim", dim, minimum=1)
    validate.integer(owner, "seed", seed, minimum=0, maximum=2**32 - 1)
    C = validate.integer(owner, "n_classes", n_classes, minimum=2)
    validate.choice(owner, "context", context, ("shared", "per_example"))
    validate.choice(owner, "labels", labels, ("classes", "reals"))
    validate.size(owner, "the data (n_examples x (context_size + 1) x dim)", T * (n + 1) * d)
    rng = np.random.RandomState(seed)
    E = rng.uniform(size=(1 if context == "shared" else T, n, d))
    e = rng.uniform(size=(T, d))
    if labels == "classes":
        y = torch.from_numpy(rng.multinomial(1, np.ones(C) / C, size=T).argmax(-1)).long()
    else:
        y = torch.from_numpy(rng.uniform(size=T).astype(np.float32))
    X = np.concatenate([e[:, None, :], np.broadcast_to(E, (T, n, d))], axis=1).astype(np.float32)
    return Batch(torch.from_numpy(X), y)


def official_init(model, seed: int, n_heads: int | None = None, d_head: int | None = None):
    """Load the official code's initial weights into a model built from
    :func:`~lib.papers.mahdavi2024.training.model_config`, bit for bit; returns the model.

    The code calls ``torch.manual_seed(seed)`` and then builds its model, so torch's generator
    draws, in this order: the embedding ``nn.Linear(d, d_model)`` (Kaiming-uniform weight, then
    uniform bias), Xavier-uniform ``W_q``, ``W_k``, ``W_v`` head by head, ``W_o`` as one
    ``(H, d_model)`` matrix, then the decoder ``nn.Linear(d_model, C)``. We draw the same float32
    tensors with torch's own initialisers from a generator seeded alike (a test compares them
    with modules built after ``torch.manual_seed``). A ``maskable`` model may stand for a smaller
    one (:meth:`~lib.models.AttentionModel.restrict`): ``n_heads`` and ``d_head`` give that
    model's sizes; its weights fill the leading block and the switched-off rest is zero.
    """
    owner = "official_init"
    from ...models import AttentionModel

    validate.instance(owner, "model", model, AttentionModel)
    validate.integer(owner, "seed", seed, minimum=0, maximum=2**63 - 1)
    c = model.config
    H_all, dk_all = c.heads[0], c.head_size(0)
    H = H_all if n_heads is None else validate.integer(owner, "n_heads", n_heads, minimum=1, maximum=H_all)
    dk = dk_all if d_head is None else validate.integer(owner, "d_head", d_head, minimum=1, maximum=dk_all)
    return model.set_weights(_initial_weights(torch.Generator().manual_seed(seed), c, H, dk))


def _initial_weights(g: torch.Generator, c, H: int, dk: int) -> dict:
    """The code's initial weights for ``H`` heads of query/key size ``dk``, drawn from ``g`` in
    its order, laid out for a model of config ``c`` (switched-off heads and columns zero)."""
    H_all, d, dk_all = c.heads[0], c.d_model, c.head_size(0)
    init = torch.nn.init

    def linear(n_in: int, n_out: int) -> tuple[torch.Tensor, torch.Tensor]:
        """``nn.Linear(n_in, n_out)``'s initial weight (out, in) and bias, as its reset draws them."""
        weight = init.kaiming_uniform_(torch.empty(n_out, n_in), a=math.sqrt(5), generator=g)
        bound = 1.0 / math.sqrt(n_in)
        return weight, init.uniform_(torch.empty(n_out), -bound, bound, generator=g)

    W_in, b_in = linear(c.input_dim, d)
    W_Q, W_K, W_V = torch.zeros(H_all, d, dk_all), torch.zeros(H_all, d, dk_all), torch.zeros(H_all, d, 1)
    for h in range(H):
        for weight, width in ((W_Q, dk), (W_K, dk), (W_V, 1)):
            weight[h, :, :width] = init.xavier_uniform_(torch.empty(d, width), generator=g)
    W_O = torch.zeros(H_all, 1, d)
    W_O[:H, 0] = init.xavier_uniform_(torch.empty(H, d), generator=g)
    W_U, b_U = linear(d, c.n_out)
    attn = "layers.0.attn."
    return {"W_in": W_in.T, "b_in": b_in, attn + "W_Q": W_Q, attn + "W_K": W_K, attn + "W_V": W_V,
            attn + "W_O": W_O, "W_U": W_U.T, "b_U": b_U}


def official_epochs(config, seed: int, n_heads: int, d_head: int, eval_every: int) -> EpochOrder:
    """The code's minibatch order for one run: torch's global generator as the code leaves it
    after ``torch.manual_seed(seed)`` and building its model of ``n_heads`` heads of size
    ``d_head`` (config ``config``, :func:`~lib.papers.mahdavi2024.training.model_config`), as
    an :class:`~lib.train.EpochOrder` that also draws the seed of each evaluation pass, which
    the code runs through a second DataLoader after updates 1, 1 + ``eval_every``, ...
    (``src/trainers.py``)."""
    from ...models import AttentionConfig

    owner = "official_epochs"
    validate.instance(owner, "config", config, AttentionConfig)
    validate.integer(owner, "seed", seed, minimum=0, maximum=2**63 - 1)
    H = validate.integer(owner, "n_heads", n_heads, minimum=1, maximum=config.heads[0])
    dk = validate.integer(owner, "d_head", d_head, minimum=1, maximum=config.head_size(0))
    validate.integer(owner, "eval_every", eval_every, minimum=1)
    g = torch.Generator().manual_seed(seed)
    _initial_weights(g, config, H, dk)
    return EpochOrder(g, other_loader_every=eval_every)


def official_steps(T: int, epochs: int, min_steps: int, batch_size: int) -> int:
    """The code's budget in updates: ``max(epochs * T // batch_size, min_steps)`` (``src/main.py``,
    ``_set_train_epochs``: 500 epochs and at least 50,000 updates by default)."""
    owner = "official_steps"
    for name, value in (("T", T), ("epochs", epochs), ("batch_size", batch_size)):
        validate.integer(owner, name, value, minimum=1)
    validate.integer(owner, "min_steps", min_steps, minimum=0)
    return max(epochs * T // batch_size, min_steps)


def best_checkpoint(run: Run, name: str = "train", metric: str = "acc", *, last_update_counts: bool = False
                    ) -> np.ndarray:
    """Each member's ``metric`` ("acc" or "loss") at its lowest-loss evaluation (the first such,
    as the code keeps a checkpoint only when the loss is strictly lower), shape (K,).

    The code evaluates after updates 1, 1 + E, 1 + 2E, ... (E = ``eval_every``), so the updates
    after its last evaluation, at least E - 1 of them, never count; ours evaluates after updates
    E, 2E, ..., and the last. By default the evaluations in the last E updates are left out, as
    they would be there; ``last_update_counts=True`` keeps them.
    """
    if not (hasattr(run, "metrics") and hasattr(run, "eval_steps") and hasattr(run, "config")):
        validate.fail("best_checkpoint", "run", "a trained Run", run, validate.ArgumentTypeError)
    validate.instance("best_checkpoint", "name", name, str)
    if name not in run.metrics:
        validate.fail("best_checkpoint", "name", "one of the run's evaluations " + ", ".join(map(repr, run.metrics)), name)
    validate.choice("best_checkpoint", "metric", metric, ("acc", "loss"))
    validate.boolean("best_checkpoint", "last_update_counts", last_update_counts)
    loss, value = run.metrics[name]["loss"], run.metrics[name][metric]
    if not last_update_counts:
        until = max(0, run.config.steps - run.config.eval_every)
        loss = np.where(np.asarray(run.eval_steps)[None, :] <= until, loss, np.nan)
    best = np.argmin(np.where(np.isnan(loss), np.inf, loss), axis=1)
    return value[np.arange(len(best)), best]
