import math

import pytest
import torch

from lib.models import AttentionConfig, MLPConfig, accuracy, build_model, predict


def vectors(**kw):
    base = dict(d_model=2, n_out=2, input="vectors", input_dim=2, embedding="identity", readout="all")
    return AttentionConfig(**{**base, **kw})


def test_relu_attention_matches_its_equation_by_hand():
    # Chen & Zou (2024) eq. (1), one layer, two heads averaged, residual, row-major:
    # h_i + 1/2 sum_a sum_j relu(h_i W_QK[a] h_j) h_j W_V[a]
    config = vectors(attention="relu", qk="bilinear", combine="mean", n_heads=2)
    model = build_model(config).set_weights({
        "layers.0.attn.W_QK": torch.tensor([[[1.0, 0.0], [0.0, 1.0]], [[0.0, 1.0], [0.0, 0.0]]]),
        "layers.0.attn.W_V": torch.tensor([[[1.0, 0.0], [0.0, 1.0]], [[2.0, 0.0], [0.0, 0.0]]]),
        "W_U": torch.eye(2)})
    h = torch.tensor([[[1.0, 2.0], [3.0, -1.0]]])
    # head 0 scores h_i.h_j: [[5, 1], [1, 10]]; head 1 scores h_i[0]*h_j[1]: [[2, -1], [6, -3]] -> relu
    # head 0 out: row0 = 5*(1,2) + 1*(3,-1) = (8, 9); row1 = 1*(1,2) + 10*(3,-1) = (31, -8)
    # head 1 values h_j W_V = (2 h_j[0], 0): row0 = 2*(2,0) + 0 = (4, 0); row1 = 6*(2,0) + 0 = (12, 0)
    expected = torch.tensor([[1 + (8 + 4) / 2, 2 + 9 / 2], [3 + (31 + 12) / 2, -1 - 8 / 2]])
    assert torch.allclose(model(h)[0], expected)
    # no normalisation: doubling W_V doubles the update
    model.set_weights({"layers.0.attn.W_V": 2 * model.get_weight("layers.0.attn.W_V")})
    assert torch.allclose(model(h)[0] - h[0], 2 * (expected - h[0]))


def test_softmax_rows_sum_to_one_and_causal_mask_holds():
    config = AttentionConfig(d_model=8, n_out=3, n_heads=2, vocab_size=5, positions="sinusoidal", causal=True)
    model = build_model(config, seed=1)
    cache = {}
    model(torch.randint(5, (4, 6)), cache=cache)
    a = cache["layers.0.attn.pattern"]
    assert torch.allclose(a.sum(-1), torch.ones(4, 2, 6))
    assert torch.all(a.triu(1) == 0)


def test_uniform_attention_and_masked_keys():
    config = vectors(attention="uniform", combine="mean", residual=False, masked_keys=(0,), readout="first")
    model = build_model(config).set_weights({"layers.0.attn.W_V": torch.eye(2)[None], "W_U": torch.eye(2)})
    h = torch.tensor([[[100.0, 100.0], [1.0, 2.0], [3.0, 4.0]]])
    assert torch.allclose(model(h), torch.tensor([[2.0, 3.0]]))  # mean of keys 1, 2; key 0 never attended


def test_bilinear_equals_factored_with_w_qk_equal_wq_wk_transposed():
    kw = dict(d_model=6, n_out=4, n_heads=2, d_head=3, vocab_size=7, positions="learned", max_len=5)
    factored = build_model(AttentionConfig(**kw), seed=0).double()
    bilinear = build_model(AttentionConfig(qk="bilinear", **kw), seed=0).double()
    W_QK = factored.get_weight("layers.0.attn.W_Q") @ factored.get_weight("layers.0.attn.W_K").transpose(1, 2)
    state = {k: v for k, v in factored.state_dict().items() if "W_Q" not in k and "W_K" not in k}
    bilinear.load_state_dict({**state, "layers.0.attn.W_QK": W_QK})
    x = torch.randint(7, (3, 5))
    assert torch.allclose(factored(x), bilinear(x), atol=1e-12)


def test_onehot_layout_is_tokens_then_positions_then_padding():
    config = AttentionConfig(d_model=12, n_out=2, vocab_size=4, embedding="onehot", positions="onehot", max_len=5)
    h = build_model(config).embed(torch.tensor([[2, 0, 3]]))[0]
    expected = torch.zeros(3, 12)
    expected[[0, 1, 2], [2, 0, 3]] = 1
    expected[[0, 1, 2], [4, 5, 6]] = 1
    assert torch.equal(h, expected)


def test_weights_by_name_and_head_and_float64():
    model = build_model(AttentionConfig(d_model=4, n_out=2, n_layers=2, n_heads=(1, 3), vocab_size=3), seed=0)
    w = torch.arange(16.0).reshape(4, 4) / 10
    model.set_weights({"layers.1.attn.W_Q": w[:, :1]}, head=2)
    assert torch.equal(model.get_weight("layers.1.attn.W_Q", head=2), w[:, :1])
    with pytest.raises(ValueError, match="shape"):
        model.set_weights({"layers.1.attn.W_Q": w})
    with pytest.raises(KeyError, match="no weight named"):
        model.get_weight("layers.5.attn.W_Q")
    with pytest.raises(ValueError, match="head 3"):
        model.get_weight("layers.1.attn.W_Q", head=3)
    double = build_model(model.config, seed=0, dtype=torch.float64)
    assert double(torch.tensor([[0, 1, 2]])).dtype == torch.float64


def test_same_seed_same_weights_and_global_rng_untouched():
    config = AttentionConfig(d_model=8, n_out=2, vocab_size=3)
    torch.manual_seed(123)
    before = torch.rand(1)
    torch.manual_seed(123)
    a, b = build_model(config, seed=5), build_model(config, seed=5)
    assert torch.equal(torch.rand(1), before)
    assert all(torch.equal(p, q) for p, q in zip(a.parameters(), b.parameters()))
    assert not torch.equal(a.W_U, build_model(config, seed=6).W_U)


@pytest.mark.parametrize("bad, message", [
    (dict(attention="linear"), "attention"), (dict(n_heads=(1, 2)), "n_heads"), (dict(d_model=0), "d_model"),
    (dict(embedding="linear"), "embedding"), (dict(combine="mean", d_value=3), "d_value"),
    (dict(embedding="onehot", positions="onehot", max_len=8), "one-hot"), (dict(vocab_size=None), "vocab_size"),
])
def test_config_rejects_bad_arguments(bad, message):
    with pytest.raises(ValueError, match=message):
        AttentionConfig(**{**dict(d_model=8, n_out=2, vocab_size=3), **bad})


def test_chunked_prediction_equals_full():
    model = build_model(AttentionConfig(d_model=8, n_out=3, vocab_size=5, positions="learned", max_len=6), seed=0)
    x = torch.randint(5, (50, 6))
    assert torch.allclose(predict(model, x, max_elements=500), model(x).detach(), atol=1e-6)
    from lib.tasks import Batch
    y = model(x).argmax(-1)
    assert accuracy(model, Batch(x, y), max_elements=500) == 1.0
    assert math.isclose(accuracy(model, Batch(x, (y + 1) % 3)), 0.0)


@pytest.mark.parametrize("readout, causal", [("last", False), ("last", True), ("first", False)])
def test_readout_row_shortcut_gives_the_full_computation(readout, causal):
    # model(x) computes the last layer for the read-out row only; with cache={} it computes every row
    config = AttentionConfig(d_model=16, n_out=5, n_layers=2, n_heads=(2, 3), d_mlp=8, vocab_size=7, norm="pre",
                         positions="learned", max_len=9, readout=readout, causal=causal)
    model = build_model(config, seed=2).double()
    x = torch.randint(7, (4, 9))
    assert torch.allclose(model(x), model(x, cache={}), atol=1e-12)


# ----------------------------------------------------------------------------- other families
def test_mlp_family_keeps_the_interface_and_equals_its_equation():
    config = MLPConfig(d_model=5, n_out=3, max_len=4, d_hidden=7, n_layers=2, vocab_size=5)
    model = build_model(config, seed=3, dtype=torch.float64)
    assert model.weight_names() == ["W_U", "b_U", "layers.0.W_in", "layers.0.b_in", "layers.1.W_in", "layers.1.b_in"]
    assert model.n_params() == (20 * 7 + 7) + (7 * 7 + 7) + (7 * 3 + 3)
    x = torch.randint(5, (6, 4))
    cache = {}
    out = model(x, cache=cache)
    h = torch.nn.functional.one_hot(x, 5).double().flatten(1)  # concatenated token one-hots
    for i in range(2):
        h = torch.relu(h @ model.get_weight(f"layers.{i}.W_in") + model.get_weight(f"layers.{i}.b_in"))
    assert torch.allclose(out, h @ model.W_U + model.b_U) and torch.allclose(cache["layers.1.hidden"], h)
    again = build_model(config, seed=3, dtype=torch.float64)
    assert all(torch.equal(p, q) for p, q in zip(model.parameters(), again.parameters()))
    with pytest.raises(ValueError, match="max_len"):
        model(torch.randint(5, (2, 3)))
    with pytest.raises(ValueError, match="restrict"):
        model.restrict(n_heads=1)
    with pytest.raises(ValueError, match="d_hidden"):
        MLPConfig(d_model=5, n_out=3, max_len=4, d_hidden=0, vocab_size=5)


def test_the_trainer_trains_any_family():
    from lib.tasks import IndexLookup
    from lib.train import TrainConfig, train

    task = IndexLookup(n_symbols=4, length=4)
    config = MLPConfig(d_model=len(task.vocab), n_out=4, max_len=task.seq_len, d_hidden=64, vocab_size=len(task.vocab))
    run = train(config, [0, 1], TrainConfig(steps=300, lr=1e-2, batch_size=128, eval_every=100), task,
                evals={"test": task}, progress=False)
    assert run.metrics["test"]["acc"][:, 0].max() < 0.5 and run.final("test").min() > 0.9


def test_build_model_refuses_an_unknown_config():
    with pytest.raises(ValueError, match="no model family"):
        build_model({"d_model": 4})
