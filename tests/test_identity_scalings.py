"""The two parameters per head of Boix-Adsera et al. (2024) as options of the shared stack."""
import pytest
import torch

from lib.models import AttentionConfig, IdentityScalingConfig, build_model
from lib.train import TrainConfig, train

BASE = dict(d_model=32, n_out=1, vocab_size=12, max_len=6, n_layers=2, n_heads=4, d_head=8, d_value=8, d_mlp=16,
            tie_embedding=False)


def _x(seed=0, n=5):
    return torch.randint(12, (n, 6), generator=torch.Generator().manual_seed(seed))


def test_zero_scalings_change_nothing():
    plain = build_model(AttentionConfig(**{k: v for k, v in BASE.items() if k != "tie_embedding"}, positions="learned",
                                        norm="pre", readout="last"), seed=3)
    for kq, vo in ((False, False), (True, False), (False, True), (True, True)):
        model = build_model(IdentityScalingConfig(**BASE, kq_identity=kq, vo_identity=vo), seed=3)
        assert torch.equal(model(_x()), plain(_x()))  # same seed: the same weights, and a_h = b_h = 0
        names = {n for n, _ in model.named_parameters()}
        assert ("layers.1.attn.id_kq" in names) == kq and ("layers.1.attn.id_vo" in names) == vo
    with pytest.raises(ValueError, match="kq_identity"):
        IdentityScalingConfig(**BASE, kq_identity="yes")


def test_large_a_attends_to_equal_tokens():
    config = IdentityScalingConfig(**{**BASE, "d_model": 64, "n_layers": 1}, kq_identity=True)
    model = build_model(config, seed=0)
    x = torch.tensor([[1, 2, 1, 3, 2, 1], [4, 4, 5, 6, 7, 4]])
    with torch.no_grad():
        model.layers[0].attn.id_kq.fill_(1.0)
        h = model.layers[0].ln_attn(model.embed(x))
        a = model.layers[0].attn.pattern(h, model.allowed(6, "cpu"))  # (B, heads, query, key)
    same = (x[:, :, None] == x[:, None, :]).float()[:, None]  # keys holding the query's token
    assert ((a * same).sum(-1) > 0.9).all()


def test_b_alone_is_attention_applied_to_the_input():
    config = IdentityScalingConfig(**{**BASE, "n_layers": 1}, vo_identity=True)
    model = build_model(config, seed=0)
    attn = model.layers[0].attn
    with torch.no_grad():
        attn.W_O.zero_()  # the learned value path off: only b_h's identity remains
        attn.id_vo.copy_(torch.tensor([1.0, 0.5, 0.0, 2.0]))
        h = model.layers[0].ln_attn(model.embed(_x()))
        allowed = model.allowed(6, "cpu")
        out = attn(h, allowed)
        a = attn.pattern(h, allowed)
    assert torch.allclose(out, torch.einsum("h,bhij,bjd->bid", attn.id_vo, a, h), atol=1e-6)


def test_scalings_train_in_an_ensemble_and_move_from_zero():
    config = IdentityScalingConfig(**BASE, kq_identity=True, vo_identity=True)
    x = _x(1, 64)
    y = (x[:, 0] == x[:, 1]).float() * 2 - 1
    from lib.tasks import Batch
    run = train(config, [0, 1], TrainConfig(steps=30, lr=1e-2, batch_size=None, loss="mse", eval_every=30),
                Batch(x, y), progress=False)
    for k in range(2):
        model = run.model(k)
        assert model.layers[0].attn.id_kq.abs().max() > 0 and model.layers[1].attn.id_vo.abs().max() > 0
    assert (run.train_loss[:, -1] < run.train_loss[:, 0]).all()
