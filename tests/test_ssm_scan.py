"""Mamba's fast selective scans (``SSMConfig.scan``: ``"fused"``, ``"chunked"``) against the
step-by-step loop they replace: values and gradients of every input, float32 and float64, odd
lengths and length 1, large decays, inside the model and under the trainer's vmap."""
import copy
import dataclasses

import pytest
import torch
from torch.func import functional_call, stack_module_state, vmap

from lib.models import SSMConfig, build_model
from lib.models.ssm import SCAN_NAMES, chunk_length, selective_scan
from lib.tasks import VariableLengthIndexLookup
from lib.train import TrainConfig, train

FAST = [s for s in SCAN_NAMES if s != "loop"]
TOL = {torch.float64: 1e-11, torch.float32: 2e-4}


def inputs(L, dtype, B=3, di=5, n=4, dt_scale=2.0, seed=0):
    g = torch.Generator().manual_seed(seed)
    u = torch.randn(B, L, di, generator=g, dtype=dtype)
    dt = torch.rand(B, L, di, generator=g, dtype=dtype) * dt_scale
    A = -torch.rand(di, n, generator=g, dtype=dtype) * 5 - 0.1
    Bm, Cm = torch.randn(B, L, n, generator=g, dtype=dtype), torch.randn(B, L, n, generator=g, dtype=dtype)
    return [x.requires_grad_() for x in (u, dt, A, Bm, Cm)]


def values_and_grads(scan, xs):
    y = selective_scan(*xs, scan=scan)
    return y, torch.autograd.grad(y.sin().sum(), xs)  # a nonlinear loss: every gradient is exercised


@pytest.mark.parametrize("scan", FAST)
@pytest.mark.parametrize("dtype", [torch.float64, torch.float32])
@pytest.mark.parametrize("L", [1, 2, 7, 16, 17, 41])
def test_fast_scans_equal_the_loop(scan, dtype, L):
    xs = inputs(L, dtype)
    y_ref, g_ref = values_and_grads("loop", xs)
    y, g = values_and_grads(scan, xs)
    assert y.dtype == dtype and y.shape == y_ref.shape
    scale = max(1.0, float(y_ref.detach().abs().max()))
    assert float((y - y_ref).abs().max()) <= TOL[dtype] * scale
    for a, b in zip(g, g_ref):
        assert float((a - b).abs().max()) <= TOL[dtype] * max(1.0, float(b.abs().max()))


@pytest.mark.parametrize("scan", FAST)
def test_large_decays_stay_finite(scan):
    """dt A down to about -1000 per step: the chunked scan's cumulative log-decays reach -10^4
    within a chunk; every exponential is of a number <= 0, so nothing overflows."""
    xs = inputs(37, torch.float32, dt_scale=200.0)
    y_ref, g_ref = values_and_grads("loop", xs)
    y, g = values_and_grads(scan, xs)
    assert torch.isfinite(y).all() and all(torch.isfinite(v).all() for v in g)
    assert torch.allclose(y, y_ref, atol=1e-3, rtol=1e-4)


def test_chunk_length_is_about_sqrt():
    assert [chunk_length(L) for L in (1, 2, 4, 5, 16, 17, 401)] == [1, 2, 2, 3, 4, 5, 21]


def member_grads(scan, dtype, grads=True):
    config = SSMConfig(d_model=16, n_out=4, mixer="mamba", d_state=4, d_mlp=32, vocab_size=14, max_len=11, scan=scan)
    models = [build_model(config, seed=s).to(dtype) for s in range(3)]
    stacked, buffers = stack_module_state(models)
    base = copy.deepcopy(models[0]).to("meta")
    params = {k: p.detach().requires_grad_() for k, p in stacked.items()}
    x = torch.randint(0, 14, (3, 8, 11), generator=torch.Generator().manual_seed(1))
    out = vmap(lambda p, b, x: functional_call(base, (p, b), (x,)))(params, buffers, x)
    if not grads:
        return out
    return out, torch.autograd.grad(out.square().sum(), list(params.values()))


@pytest.mark.parametrize("scan", FAST)
@pytest.mark.parametrize("dtype", [torch.float64, torch.float32])
def test_fast_scans_under_the_trainers_vmap(scan, dtype):
    """Three members with their own weights (their own A) in one vmap-ed forward, as the trainer
    runs them: the outputs and every parameter's gradient equal the loop's."""
    out_ref, g_ref = member_grads("loop", dtype)
    out, g = member_grads(scan, dtype)
    assert torch.allclose(out, out_ref, atol=TOL[dtype], rtol=TOL[dtype])
    for a, b in zip(g, g_ref):
        assert torch.allclose(a, b, atol=10 * TOL[dtype], rtol=10 * TOL[dtype])


def test_the_default_is_the_loop_and_a_wrong_scan_is_refused():
    assert SSMConfig(d_model=8, n_out=2, mixer="mamba", vocab_size=5).scan == "loop"
    with pytest.raises(ValueError, match="scan"):
        SSMConfig(d_model=8, n_out=2, mixer="mamba", vocab_size=5, scan="parallel")
    with pytest.raises(ValueError, match="scan"):
        selective_scan(*inputs(3, torch.float64), scan="blelloch")


def test_a_fused_mamba_trains_like_the_loop():
    """Thirty steps of the trainer: the fused scan's loss curve follows the loop's (float64, so
    only rounding separates them)."""
    task = VariableLengthIndexLookup(4, 8, min_length=4)
    config = SSMConfig(d_model=16, n_out=task.n_classes, mixer="mamba", d_state=4, vocab_size=len(task.vocab),
                       max_len=task.seq_len)
    recipe = TrainConfig(steps=30, lr=3e-3, batch_size=16, eval_every=10, eval_size=64)
    runs = [train(dataclasses.replace(config, scan=s), [0, 1], recipe, task, evals={"test": task}, progress=False,
                  dtype=torch.float64) for s in ("loop", "fused")]
    assert abs(runs[0].metrics["test"]["loss"] - runs[1].metrics["test"]["loss"]).max() < 1e-8



def test_fused_without_gradients_agrees_with_the_loop():
    """Evaluation (no_grad) takes the fused scan's state-free path: alone and in a vmap-ed ensemble."""
    xs = [x.detach() for x in inputs(23, torch.float64)]
    with torch.no_grad():
        assert torch.allclose(selective_scan(*xs, scan="fused"), selective_scan(*xs, scan="loop"), atol=1e-12)
        outs = [member_grads(scan, torch.float64, grads=False) for scan in ("loop", "fused")]
    assert torch.allclose(outs[0], outs[1], atol=1e-12)
