"""The official recipe's minibatches, budget and positional table (Mahdavi et al. 2024, the
official code's ``src/main.py``, ``src/trainers.py`` and ``src/attn_models.py``): shuffled epochs
of 256 drawn as the code's DataLoader draws them, ``max(500 epochs, 50,000)`` updates, and the
sinusoidal table computed in float32."""
from __future__ import annotations

import math

import pytest
import torch
from torch.utils.data import DataLoader, TensorDataset

from lib.papers.mahdavi2024 import setup, sweeps
from lib.papers.mahdavi2024.official import official_epochs, official_steps
from lib.papers.mahdavi2024.training import group_steps, model_config, train_group
from lib.tasks.base import Batch
from lib.train import _Source


def code_batches(seed: int, T: int, d: int, H: int, d_h: int, n_out: int, steps: int, eval_every: int) -> list:
    """The indices the official code trains on, update by update: ``torch.manual_seed(seed)``,
    its model's initialisers in construction order (``nn.Linear``, per-head Xavier W_q, W_k, W_v,
    one Xavier W_o, the decoder), then its loop over ``DataLoader(..., batch_size=256,
    shuffle=True)``, restarted at each epoch's end, with an evaluation pass through an
    unshuffled DataLoader after updates 1, 1 + eval_every, ..."""
    with torch.random.fork_rng():
        torch.manual_seed(seed)
        torch.nn.Linear(d, d)
        for _ in range(H):
            for width in (d_h, d_h, 1):
                torch.nn.init.xavier_uniform_(torch.empty(d, width))
        torch.nn.init.xavier_uniform_(torch.empty(H, d))
        torch.nn.Linear(d, n_out)
        data = TensorDataset(torch.arange(T))
        train_loader, test_loader = DataLoader(data, batch_size=256, shuffle=True), DataLoader(data, batch_size=256)
        out, iterator = [], iter(train_loader)
        while len(out) < steps:
            try:
                (batch,) = next(iterator)
            except StopIteration:
                iterator = iter(train_loader)
                continue
            out.append(batch)
            if (len(out) - 1) % eval_every == 0:
                for _ in test_loader:
                    pass
    return out


@pytest.mark.parametrize("T, H, d_h, eval_every", [(550, 4, 64, 500), (550, 2, 3, 2), (1300, 8, 16, 5)])
def test_official_epochs_are_the_codes_dataloader_batches(T, H, d_h, eval_every):
    """Each member (its own seed, heads and head size) gets the code's batches: 256, 256, 38 for
    T = 550, a new permutation every epoch, the evaluation loader's draws in between."""
    d, seeds = 16, [42, 43]
    shape = model_config(d, 8, 8, 64).replace(maskable=True)
    per_epoch = math.ceil(T / 256)
    steps = 4 * per_epoch + 1
    orders = [official_epochs(shape, seed, H, d_h, eval_every) for seed in seeds]
    source = _Source([Batch(torch.zeros(T, 1), torch.arange(T)) for _ in seeds], seeds, 256, torch.device("cpu"),
                     orders)
    expected = [code_batches(seed, T, d, H, d_h, 100, steps, eval_every) for seed in seeds]
    if T == 550:
        assert [len(b) for b in expected[0][:3]] == [256, 256, 38]
    for step in range(1, steps + 1):
        _, y = source.batch(step, step)
        for k in range(len(seeds)):
            assert torch.equal(y[k], expected[k][step - 1]), (step, k)
    assert not torch.equal(expected[0][0], expected[1][0])  # each seed its own order


def test_train_group_trains_the_official_recipe_in_epochs_and_ours_with_replacement():
    config = dict(dim=8, lr=1e-3, batch_size=16, steps=3, eval_every=2, seeds=[0], context="shared", labels="classes",
                  early_stop=False)
    point = [dict(T=40, n=2, H=1, d_h=4)]
    official, _ = train_group(dict(config, recipe="official"), point, progress=False)
    ours, _ = train_group(config, point, progress=False)
    assert official.config.batches == "epochs" and ours.config.batches == "with_replacement"
    full, _ = train_group(dict(config, recipe="official", batch_size=None), point, progress=False)
    assert full.config.batches == "with_replacement" and full.config.batch_size is None  # the full set


def test_the_budget_counts_epochs_as_the_code_does():
    """``max(train_epochs * train_size // batch_size, min_train_steps)``: 50,000 updates up to
    T = 25,600, then 500 epochs (78,125 updates at T = 40,000); the paper scale's configs say so."""
    assert official_steps(550, 500, 50_000, 256) == 50_000
    assert official_steps(40_000, 500, 50_000, 256) == 78_125
    assert official_steps(90_000, 500, 50_000, 256) == 175_781
    config, grid = sweeps.sweep("fig2a", "paper")
    assert config["epochs"] == 500 and config["steps"] == 50_000
    assert [group_steps(config, T) for T in (10_000, 40_000)] == [50_000, 78_125]
    assert group_steps(sweeps.sweep("fig2a", "default")[0], 400) == 2000  # default scale: updates only
    c_config, c_grid = sweeps.sweep("fig2c", "paper")
    assert {group_steps(c_config, p["T"]) for p in c_grid} == {300_000}


def test_the_official_model_computes_its_positional_table_in_float32():
    """The code's ``SinPositionalEncoding`` (float32 throughout) against the official model's
    table, bit for bit; ours (float64, rounded) differs in the last bits."""
    from lib.models import build_model

    d, n = 16, 8

    def code_table(d_model, max_len):
        position = torch.arange(max_len).unsqueeze(1)
        div_term = torch.exp(torch.arange(0, d_model, 2) * (-math.log(10000.0) / d_model))
        pe = torch.zeros(max_len, d_model)
        pe[:, 0::2] = torch.sin(position * div_term)
        pe[:, 1::2] = torch.cos(position * div_term)
        return pe

    official = build_model(model_config(d, n, 2, 4, official=True), seed=0).W_pos
    ours = build_model(model_config(d, n, 2, 4), seed=0).W_pos
    assert torch.equal(official, code_table(d, 8192)[:n + 1])
    assert not torch.equal(ours, official) and torch.allclose(ours, official, atol=1e-6, rtol=0)


def test_the_official_recipe_at_the_paper_scale_differs_in_no_minibatch_field():
    """The paper-scale official config reads "shuffled epochs" (ours: "drawn with replacement")."""
    config, grid = sweeps.sweep("fig2b", "paper")
    result = type("R", (), {"config": config, "grid": grid})()
    assert setup.ours(result)["minibatches"] == "shuffled epochs"
    ours = dict(config, recipe="ours")
    assert setup.ours(type("R", (), {"config": ours, "grid": grid})())["minibatches"] == "drawn with replacement"
