"""Training only the last layer of a random transformer (Boix-Adsera et al., 2024, App. B.1).

With every weight but the read-out frozen at its random initial value, the model is a linear
regression on random features: the [CLS] row after the final LayerNorm. Training the read-out
with MSE to convergence reaches the least-squares fit on those features, which
:func:`last_layer_only` computes exactly (``torch.linalg.lstsq``) instead of running 1000 epochs
of Adam towards it. This is the random-features side of Theorem 4.4: the features of unseen
symbols are drawn like those of the training symbols, so test error falls with n only as far as
the features separate the templates. ``init_scale`` multiplies every weight matrix below the
read-out (embeddings, attention and MLP weights; LayerNorms untouched). The paper multiplies
"the initialisation" by 1, 8 or 64 without saying which weights; all of them is our reading.
"""
from __future__ import annotations

import numpy as np
import torch

from ... import validate
from ...models import build_model
from ...tasks.symbol_templates import SymbolTemplates
from .training import authors_init, model_config


@torch.no_grad()
def readout_features(model, x: torch.Tensor, batch: int = 4096) -> torch.Tensor:
    """The read-out's input: the last position after the final LayerNorm, ``(len(x), d_model)``."""
    validate.instance("readout_features", "model", model, torch.nn.Module)
    validate.instance("readout_features", "x", x, torch.Tensor)
    validate.integer("readout_features", "batch", batch, minimum=1)
    rows = []
    last = f"layers.{len(model.layers) - 1}.resid_post"
    for i in range(0, len(x), batch):
        cache = {}
        model(x[i:i + batch], cache)
        rows.append(model.ln_final(cache[last])[:, -1])
    return torch.cat(rows).double()


@torch.no_grad()
def scale_init(model, factor: float):
    """Multiply every weight matrix (every parameter with two or more axes) except the read-out's."""
    validate.instance("scale_init", "model", model, torch.nn.Module)
    validate.real("scale_init", "factor", factor)
    for name, p in model.named_parameters():
        if p.ndim >= 2 and name != "W_U":
            p.mul_(factor)
    return model


def last_layer_only(task, n_train: int, init_scale: float = 1.0, seed: int = 0, data_seed: int = 0,
                    **shape) -> dict:
    """Fit the read-out of a frozen random transformer by least squares (with a bias) on
    ``n_train`` strings; return the train and test MSE on unseen symbols, and the feature count."""
    owner = "last_layer_only"
    validate.instance(owner, "task", task, SymbolTemplates)
    validate.integer(owner, "n_train", n_train, minimum=1, maximum=validate.MAX_COUNT)
    validate.real(owner, "init_scale", init_scale, above=0.0)
    validate.seed(owner, "seed", seed)
    validate.seed(owner, "data_seed", data_seed)
    sets = task.splits(n_train, seed=data_seed)
    model = scale_init(authors_init(build_model(model_config(task, "vanilla", **shape), seed=seed), seed), init_scale)
    model.eval()

    def design(x):
        f = readout_features(model, x)
        return torch.cat([f, torch.ones(len(f), 1, dtype=f.dtype)], 1)

    X, y = design(sets["train"].x), sets["train"].y.double().reshape(-1)
    w = torch.linalg.lstsq(X, y[:, None], driver="gelsd").solution[:, 0]
    mse = {name: float(((design(sets[name].x) @ w - sets[name].y.double().reshape(-1)) ** 2).mean())
           for name in ("train", "test")}
    return {"train": mse["train"], "test": mse["test"], "features": int(X.shape[1]),
            "rank": int(np.linalg.matrix_rank(X.numpy()))}
