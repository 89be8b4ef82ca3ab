"""The state-space and linear-attention family against its references, and trained by the one
trainer as vmap-ed ensembles."""
import pytest
import torch

from lib.models import SSMConfig, build_model
from lib.models.ssm import dss_recurrence, retention_recurrence, selective_scan
from lib.tasks import VariableLengthIndexLookup
from lib.train import TrainConfig, train


def model(mixer, **kw):
    return build_model(SSMConfig(d_model=16, n_out=3, mixer=mixer, d_state=8, vocab_size=5, **kw), seed=1,
                       dtype=torch.float64)


def test_dss_convolution_equals_its_recurrence():
    layer = model("dss").layers[0].mixer
    u = torch.randn(3, 29, 16, dtype=torch.float64)
    assert torch.allclose(layer(u), dss_recurrence(layer, u), atol=1e-12)


@pytest.mark.parametrize("mixer", ["retnet", "linear"])
def test_retention_parallel_form_equals_its_recurrence(mixer):
    layer = model(mixer).layers[0].mixer
    x = torch.randn(2, 19, 16, dtype=torch.float64)
    assert torch.allclose(layer(x), retention_recurrence(layer, x), atol=1e-12)


def test_selective_scan_equals_the_unrolled_sum():
    B, L, di, n = 2, 13, 5, 4
    u, dt = torch.randn(B, L, di, dtype=torch.float64), torch.rand(B, L, di, dtype=torch.float64)
    A = -torch.rand(di, n, dtype=torch.float64) - 0.1
    Bm, Cm = torch.randn(B, L, n, dtype=torch.float64), torch.randn(B, L, n, dtype=torch.float64)
    P = torch.cumsum(dt[..., None] * A, dim=1)  # sum_{r <= t} dt_r A
    h = torch.zeros(B, L, di, n, dtype=torch.float64)
    for t in range(L):
        for s in range(t + 1):
            h[:, t] += torch.exp(P[:, t] - P[:, s]) * dt[:, s, :, None] * Bm[:, s, None, :] * u[:, s, :, None]
    y = (h * Cm[:, :, None, :]).sum(-1)
    assert torch.allclose(selective_scan(u, dt, A, Bm, Cm), y, atol=1e-12)


def test_mamba_is_causal():
    m = model("mamba")
    x = torch.randint(5, (2, 12))
    cache_a, cache_b = {}, {}
    m(x, cache=cache_a)
    y = x.clone()
    y[:, 8:] = (y[:, 8:] + 1) % 5
    m(y, cache=cache_b)
    assert torch.allclose(cache_a["layers.1.resid_post"][:, :8], cache_b["layers.1.resid_post"][:, :8])
    assert not torch.allclose(cache_a["layers.1.resid_post"][:, 8:], cache_b["layers.1.resid_post"][:, 8:])


@pytest.mark.parametrize("mixer, steps, lr", [("dss", 400, 3e-3), ("mamba", 400, 3e-3), ("retnet", 800, 1e-3)])
def test_each_mixer_learns_short_index_lookup_as_a_vmapped_ensemble(mixer, steps, lr):
    task = VariableLengthIndexLookup(n_symbols=2, length=5, min_length=5)
    config = SSMConfig(d_model=32, n_out=2, mixer=mixer, d_state=8, vocab_size=len(task.vocab), d_mlp=64)
    run = train(config, [0, 1], TrainConfig(steps=steps, lr=lr, batch_size=64, eval_every=steps // 2), task,
                evals={"test": task}, progress=False)
    assert min(run.final("test")) > 0.85  # chance is 0.5


def test_bad_configs_fail_loudly():
    with pytest.raises(ValueError, match="mixer"):
        SSMConfig(d_model=8, n_out=2, mixer="s4", vocab_size=3)
    with pytest.raises(ValueError, match="multiple of n_heads"):
        SSMConfig(d_model=10, n_out=2, mixer="retnet", n_heads=4, vocab_size=3)
