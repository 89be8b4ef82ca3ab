"""Boix-Adsera et al. (2024), the trained side: the binding corpus behind the offline Sec. 6
stand-in, mimetic initialisation (App. B.1), learning rates as ensemble members, the diagonal
score of Fig. 7b-c, transplanting pretrained blocks, and last-layer-only training (App. B.1)."""
import numpy as np
import pytest
import torch

from lib.models import build_model
from lib.papers.boixadsera2024 import last_layer, pretraining, training
from lib.tasks import IGNORE, VariableBindingText
from lib.tasks import symbol_templates as st


def test_binding_text_prints_the_last_bound_value():
    task = VariableBindingText(n_variables=3, n_values=5, seq_len=64)
    batch = task.sample(200, seed=1)
    checked = 0
    for row, target in zip(batch.x, batch.y):
        words, bound = task.vocab.decode(row), {}
        for s in range(0, len(words), 4):
            first, second, value, end = words[s:s + 4]
            assert end == ";"
            if first == "print":
                assert bound[second] == value  # printed only once bound, and the latest binding
                checked += 1
            else:
                assert second == "="
                bound[first] = value
        assert target[-1] == IGNORE and torch.equal(target[:-1], row[1:])
    where = task.answer_positions(batch.x)
    assert where.sum() == checked > 200
    assert all(task.vocab.decode([t])[0].startswith("c") for t in batch.y[where])


def test_binding_text_rejects_bad_arguments():
    with pytest.raises(ValueError, match="multiple of 4"):
        VariableBindingText(seq_len=30)
    with pytest.raises(ValueError, match="print_fraction"):
        VariableBindingText(print_fraction=1.5)


def _small(variant="vanilla", **changes):
    task = st.SymbolTemplates(*st.aba_abb(), n_symbols=8)
    return task, training.model_config(task, variant, d_model=32, n_heads=2, d_head=32, d_mlp=64, **changes)


def test_mimetic_init_at_full_head_size_is_alpha_z_plus_beta_identity():
    task, config = _small()
    model = training.mimetic_init(build_model(config, seed=0), seed=0, alpha=0.7, beta=0.7)
    products = pretraining.head_products(model)["kq"]  # d_head = d: the SVD keeps all of M
    diag = torch.diagonal(products, dim1=-2, dim2=-1)
    off = products - torch.diag_embed(diag)
    assert abs(diag.mean().item() - 0.7) < 0.05
    assert abs(off.std().item() - 0.7 / 32**0.5) < 0.02
    assert min(min(row) for row in pretraining.diagonal_dominance(model)["kq"]) > 3


def test_random_heads_have_no_diagonal_and_a_large_a_gives_one():
    task, config = _small("+KQ")
    model = build_model(config, seed=0)
    assert max(abs(v) for row in pretraining.diagonal_dominance(model)["kq"] for v in row) < 0.5
    with torch.no_grad():
        model.layers[0].attn.id_kq.fill_(1.0)
    assert min(pretraining.diagonal_dominance(model)["kq"][0]) > 5


def test_learning_rates_are_members_with_seeds_fastest():
    task = st.SymbolTemplates(*st.aba_abb(), n_symbols=16)
    shape = dict(d_model=16, n_heads=2, d_head=8, d_mlp=32)
    both = training.fit(task, 16, [0, 1], steps=20, lr=(1e-3, 1e-1), eval_every=10, **shape)
    assert both["lr"] == [1e-3, 1e-3, 1e-1, 1e-1]
    alone = training.fit(task, 16, [1], steps=20, lr=1e-1, eval_every=10, **shape)
    assert "lr" not in alone
    assert np.isclose(both["train_loss_final"][3], alone["train_loss_final"][0], rtol=1e-4, atol=1e-6)


def test_transplant_copies_the_blocks_and_keeps_new_embeddings():
    corpus = VariableBindingText(n_variables=3, n_values=4, seq_len=16)
    shape = dict(d_model=16, n_layers=2, n_heads=2, d_head=8, d_mlp=32)
    lm = build_model(pretraining.lm_config(corpus, **shape), seed=3)
    task = st.SymbolTemplates(*st.aba_abb(), n_symbols=8)
    fresh = training.authors_init(build_model(training.model_config(task, causal=True, **shape), seed=0), 0)
    embedding = fresh.get_weight("W_E")
    moved = pretraining.transplant([lm])(fresh, 0)
    for name in ("layers.1.attn.W_Q", "layers.0.mlp.W_in", "ln_final.weight"):
        assert torch.equal(moved.get_weight(name), lm.get_weight(name))
    assert torch.equal(moved.get_weight("W_pos"), lm.get_weight("W_pos")[:task.seq_len])
    assert torch.equal(moved.get_weight("W_E"), embedding)
    deeper = build_model(pretraining.lm_config(corpus, **dict(shape, n_layers=3)), seed=0)
    with pytest.raises(ValueError, match="pretrained shape"):
        pretraining.transplant([deeper])(fresh, 0)


def test_last_layer_only_needs_a_large_initialisation():
    """App. B.1: a trained read-out on frozen random features stays near chance at the usual
    initialisation and learns the task from many samples when the initialisation is scaled up."""
    task = st.SymbolTemplates(*st.aba_abb(), n_symbols=2048, n_heldout=100)
    shape = dict(d_model=64, n_heads=8, d_head=16, d_mlp=128)
    plain = last_layer.last_layer_only(task, 2048, 1.0, **shape)
    scaled = last_layer.last_layer_only(task, 2048, 8.0, **shape)
    assert plain["rank"] == plain["features"] == 65
    assert plain["test"] > 0.9 and scaled["test"] < 0.8
