"""MLPs cannot generalise to unseen symbols (Boix-Adsera et al., 2024, App. I, Theorem I.2).

An MLP on the concatenated one-hots of a string (eq. 24) is trained on a real-label template
task by the shared trainer. A token that never occurs in a training input never receives a
gradient, so with Adam (and SGD, and gradient flow) the first-layer weights that read it keep
their initial values bit for bit; since the initialisation is i.i.d. Gaussian, the trained
network cannot tell unseen tokens apart in distribution (Lemma I.7), and on an all-wildcard
task its error on unseen symbols stays at the trivial level whatever the number of samples.
"""
from __future__ import annotations

import numpy as np
import torch

from ... import validate
from ...models import MLPConfig, build_model
from ...tasks.symbol_templates import SymbolTemplates
from ...train import TrainConfig, train


def mlp_config(task, d_hidden: int = 256, n_layers: int = 2) -> MLPConfig:
    """An MLP on the concatenated one-hots of ``task``'s strings, one real output."""
    validate.instance("mlp_config", "task", task, SymbolTemplates)
    validate.integer("mlp_config", "d_hidden", d_hidden, minimum=1, maximum=validate.MAX_COUNT)
    validate.integer("mlp_config", "n_layers", n_layers, minimum=1, maximum=1000)
    first = task.seq_len * len(task.vocab) * d_hidden
    validate.memory("mlp_config", f"the first layer (seq_len x V x d_hidden = {first:.1e} numbers)", 4 * first)
    return MLPConfig(d_model=len(task.vocab), vocab_size=len(task.vocab), n_out=1, max_len=task.seq_len,
                     d_hidden=d_hidden, n_layers=n_layers, embedding="onehot", readout_bias=True)


def unseen_rows(task, train_x: torch.Tensor) -> torch.Tensor:
    """The first-layer rows that read a token absent from every training input (all positions)."""
    validate.instance("unseen_rows", "task", task, SymbolTemplates)
    validate.instance("unseen_rows", "train_x", train_x, torch.Tensor)
    if train_x.dtype.is_floating_point or train_x.dtype == torch.bool:
        validate.fail("unseen_rows", "train_x", "an integer tensor of token ids", train_x.dtype,
                      validate.ArgumentTypeError)
    V = len(task.vocab)
    unseen = sorted(set(range(V)) - set(train_x.flatten().tolist()))
    return torch.tensor([i * V + v for i in range(task.seq_len) for v in unseen], dtype=torch.long)


def train_mlps(task, n_train: int, seeds, steps: int = 200, lr: float = 1e-3, d_hidden: int = 256,
               n_layers: int = 2, data_seed: int = 0, progress: bool = False, optimizer: str = "adam",
               batch_size: int | None = None) -> dict:
    """Train one MLP per seed (an ensemble) with Adam on ``n_train`` strings of ``task`` (its
    training alphabet) and report: each member's training and test MSE (the test set is 100
    strings of unseen symbols, as in App. A), whether every weight reading an unseen token is
    bit-identical to its initial value, and each member's mean output on the test strings of each
    template (Lemma I.7: equal in distribution across seeds), and how far the weights reading
    *seen* tokens moved (``seen_moved``: relative Frobenius change per member; Remark I.4).
    ``optimizer`` and ``batch_size`` (None: full batch) give Remark I.5's other trainers."""
    owner = "train_mlps"
    validate.instance(owner, "task", task, SymbolTemplates)
    validate.integer(owner, "n_train", n_train, minimum=1, maximum=validate.MAX_COUNT)
    seeds = validate.integers(owner, "seeds", seeds, minimum=0)
    validate.integer(owner, "steps", steps, minimum=1)
    validate.real(owner, "lr", lr, above=0.0)
    validate.seed(owner, "data_seed", data_seed)
    validate.boolean(owner, "progress", progress)
    validate.choice(owner, "optimizer", optimizer, ("adam", "sgd"))
    if batch_size is not None:
        validate.integer(owner, "batch_size", batch_size, minimum=1, maximum=validate.MAX_COUNT)
    sets = task.splits(n_train, seed=data_seed)
    config = mlp_config(task, d_hidden, n_layers)
    run = train(config, seeds, TrainConfig(steps=steps, lr=lr, optimizer=optimizer, batch_size=batch_size,
                                           loss="mse", eval_every=max(1, steps)),
                sets["train"], evals={"train": sets["train"], "test": sets["test"]}, progress=progress)
    rows = unseen_rows(task, sets["train"].x)
    unchanged, per_template, moved = [], [], []
    seen = torch.tensor(sorted(set(range(trained_rows := run.model(0).layers[0].W_in.shape[0])) - set(rows.tolist())))
    test_index = task.variant("test").template_index(sets["test"].x)
    for k, seed in enumerate(seeds):
        trained, initial = run.model(k), build_model(config, seed=seed)
        unchanged.append(bool(torch.equal(trained.layers[0].W_in[rows], initial.layers[0].W_in[rows])))
        with torch.no_grad():
            moved.append(float((trained.layers[0].W_in[seen] - initial.layers[0].W_in[seen]).norm()
                               / initial.layers[0].W_in[seen].norm()))
        with torch.no_grad():
            out = trained(sets["test"].x).reshape(-1)
        per_template.append([float(out[test_index == t].mean()) for t in range(len(task.templates))])
    return {"train_mse": run.final("train", "loss"), "test_mse": run.final("test", "loss"),
            "unseen_unchanged": np.array(unchanged), "unseen_rows": len(rows),
            "mean_output_by_template": np.array(per_template), "wall_s": run.wall_s,
            "seen_moved": np.array(moved), "all_rows": trained_rows}


def coupling_check(task, n_train: int, seed: int = 0, steps: int = 200, lr: float = 1e-3, d_hidden: int = 64,
                   n_layers: int = 2, data_seed: int = 0) -> dict:
    """Lemma I.7's coupling, run: train one MLP from its initialisation and another from the same
    initialisation with the first-layer rows of the unseen test tokens permuted by a random π.
    The training data never contain those tokens, so both runs take identical steps and the
    second network computes ``f'(π x) = f(x)``; as the permuted initialisation has the same
    (Gaussian) distribution, ``f(x)`` and ``f(π x)`` are equal in distribution for every x. Returns

    * ``same_steps``: whether the two trained networks are bit-identical once π is undone (the
      runs took the same steps: the lemma's coupling itself);
    * ``coupled``: the largest ``|f'(π x) - f(x)|`` over the test set, zero up to float32 rounding
      (the one-hot product reads the rows in another order, so a BLAS may round differently);
    * ``uncoupled``: the largest ``|f(π x) - f(x)|`` (not zero: one network does tell unseen
      tokens apart, just not in a way training chose)."""
    owner = "coupling_check"
    validate.instance(owner, "task", task, SymbolTemplates)
    validate.integer(owner, "n_train", n_train, minimum=1, maximum=validate.MAX_COUNT)
    validate.seed(owner, "seed", seed)
    validate.integer(owner, "steps", steps, minimum=1)
    validate.real(owner, "lr", lr, above=0.0)
    validate.seed(owner, "data_seed", data_seed)
    sets = task.splits(n_train, seed=data_seed)
    config = mlp_config(task, d_hidden, n_layers)
    V, test_ids = len(task.vocab), list(task.alphabet_ids("test"))
    perm = torch.arange(V)
    perm[test_ids] = torch.tensor(test_ids)[torch.randperm(len(test_ids), generator=torch.Generator().manual_seed(seed))]

    def permuted(s: int):
        model = build_model(config, seed=s)
        with torch.no_grad():
            w = model.layers[0].W_in.view(task.seq_len, V, -1)
            w[:, perm] = w.clone()  # the row read by token t now sits where token perm[t] is read
        return model

    cfg = TrainConfig(steps=steps, lr=lr, optimizer="adam", batch_size=None, loss="mse", eval_every=max(1, steps))
    runs = [train(factory, [seed], cfg, sets["train"], progress=False)
            for factory in (lambda s: build_model(config, seed=s), permuted)]
    f, f_perm = (run.model(0) for run in runs)
    undone = {name: p.detach().clone() for name, p in f_perm.named_parameters()}
    first = undone["layers.0.W_in"].view(task.seq_len, V, -1)
    first.copy_(first[:, perm])  # row perm[t] back to where token t is read
    same_steps = all(torch.equal(undone[name], p) for name, p in f.named_parameters())
    x = sets["test"].x
    with torch.no_grad():
        coupled = (f_perm(perm[x]) - f(x)).abs().max().item()
        plain = (f(perm[x]) - f(x)).abs().max().item()
    return {"same_steps": same_steps, "coupled": coupled, "uncoupled": plain}
