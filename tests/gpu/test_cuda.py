"""The trainer's CUDA path, on a real GPU (skipped without one; ``tests/gpu/run.sh`` runs them).

The CPU suite checks the captured step's bookkeeping with CUDA replaced by eager stand-ins
(``tests/test_train.py``); here the real thing runs: every model family forward and backward on
the GPU, an ensemble step captured as a CUDA graph (vmap and autograd inside the capture) against
the eager step, a checkpointed run resumed on the GPU, a budget-cut run resumed to the end, and
the GPU against the CPU in float64. Nothing in the book trains in bfloat16 (every sweep is float32),
so float32 and float64 are the dtypes tested.
"""
import os
import warnings

import numpy as np
import pytest
import torch

from lib.models import (AttentionConfig, DecoderConfig, IdentityScalingConfig, MLPConfig, RecurrentConfig, SSMConfig,
                        build_model)
from lib.tasks import IndexLookup
from lib.train import TrainConfig, train

# ABC_GPU_TESTS_ON=cpu runs the same tests on the CPU (graph capture then falls back, so those are
# skipped): a check of the tests themselves on a machine without a GPU
ON = os.environ.get("ABC_GPU_TESTS_ON", "cuda")
pytestmark = pytest.mark.skipif(ON == "cuda" and not torch.cuda.is_available(), reason="needs a CUDA GPU")
CUDA = torch.device(ON)
TASK = IndexLookup(n_symbols=6, length=8)
V, N, C = len(TASK.vocab), TASK.seq_len, TASK.n_classes
FAMILIES = {
    "attention softmax": AttentionConfig(d_model=16, n_out=C, n_layers=2, n_heads=2, d_mlp=16, vocab_size=V,
                                         positions="learned", max_len=N),
    "attention relu bilinear": AttentionConfig(d_model=16, n_out=C, attention="relu", qk="bilinear", vocab_size=V,
                                               positions="sinusoidal", max_len=N),
    "mlp": MLPConfig(d_model=14, n_out=C, max_len=N, vocab_size=V),
    "elman": RecurrentConfig(d_model=16, n_out=C, cell="elman", activation="relu", vocab_size=V),
    "lstm": RecurrentConfig(d_model=16, n_out=C, cell="lstm", vocab_size=V),
    "dss": SSMConfig(d_model=16, n_out=C, mixer="dss", vocab_size=V, max_len=N),
    "mamba": SSMConfig(d_model=16, n_out=C, mixer="mamba", vocab_size=V, max_len=N),
    "retnet": SSMConfig(d_model=16, n_out=C, mixer="retnet", vocab_size=V, max_len=N),
    "linear attention": SSMConfig(d_model=16, n_out=C, mixer="linear", vocab_size=V, max_len=N),
    # Chen & Zou's model (eq. 3): one-hot tokens and positions, ReLU bilinear heads averaged
    "attention one-hot relu (depth paper)": AttentionConfig(
        d_model=V + N + 2, n_out=C, n_layers=2, n_heads=(1, 2), attention="relu", qk="bilinear", combine="mean",
        vocab_size=V, embedding="onehot", positions="onehot", max_len=N, readout="last"),
    "identity scalings": IdentityScalingConfig(d_model=16, n_out=C, vocab_size=V, max_len=N, kq_identity=True,
                                               vo_identity=True, tie_embedding=False),
}
# families whose update CUDA graph capture still refuses, with the cause; their capture tests are
# strict xfails, so a fix makes them fail until its entry is removed here
CAPTURE_FAILS: dict[str, str] = {}


def capture_cases() -> list:
    """Every family, the ones in :data:`CAPTURE_FAILS` as strict xfails."""
    return [pytest.param(name, marks=pytest.mark.xfail(strict=True, reason=CAPTURE_FAILS[name]))
            if name in CAPTURE_FAILS else name for name in FAMILIES]


# the next-token decoder (Richard's sweeps) has a class per token and position: forward only here
FORWARD_ONLY = {"decoder": DecoderConfig(d_model=16, n_out=V, n_heads=2, vocab_size=V, max_len=N)}
CONFIG = TrainConfig(steps=40, lr=(3e-3, 1e-2), optimizer="adamw", weight_decay=0.01, schedule="warmup_cosine",
                     warmup=5, batch_size=32, eval_every=10, grad_clip=1.0)


@pytest.mark.parametrize("name", list(FAMILIES) + list(FORWARD_ONLY))
def test_every_family_runs_forward_and_backward_on_cuda_as_on_the_cpu(name):
    config = {**FAMILIES, **FORWARD_ONLY}[name]
    x = TASK.sample(16, seed=0).x
    cpu = build_model(config, seed=3).double()
    gpu = build_model(config, seed=3).double().to(CUDA)
    out_cpu, out_gpu = cpu(x), gpu(x.to(CUDA))
    torch.testing.assert_close(out_gpu.cpu(), out_cpu, rtol=1e-9, atol=1e-9)
    out_gpu.square().sum().backward()
    out_cpu.square().sum().backward()
    for (n, a), (_, b) in zip(cpu.named_parameters(), gpu.named_parameters()):
        torch.testing.assert_close(b.grad.cpu(), a.grad, rtol=1e-7, atol=1e-9, msg=n)


@pytest.mark.parametrize("name", capture_cases())
def test_the_captured_graph_replays_the_eager_trajectory_of_every_family(name):
    """vmap over members and autograd inside one CUDA graph give the eager step's numbers.

    The same kernels run, so where the eager step is deterministic (two eager runs agree bit for
    bit) the graph must agree to float32 rounding over the whole run. Where it is not, Adam
    amplifies last-bit differences within a few dozen steps: the graph must then agree on the
    first steps, before they grow, and stay within the eager runs' own spread. (On an H100 on
    2026-11-26, RetNet's graph drifted from the eager run by 2e-5 at step 10 and 3% by step 18,
    the nine other families agreed to 1e-5; the eager-vs-eager spread was not measured then.
    RetNet alone has a GroupNorm, whose CUDA backward may reduce in a varying order.)"""
    if CUDA.type != "cuda":
        pytest.skip("graph capture needs CUDA")
    config = FAMILIES[name]
    eager = train(config, [1, 2], CONFIG, TASK, {"test": TASK}, device=CUDA, progress=False, graph=False)
    again = train(config, [1, 2], CONFIG, TASK, {"test": TASK}, device=CUDA, progress=False, graph=False)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a failed capture falls back with a warning
        graphed = train(config, [1, 2], CONFIG, TASK, {"test": TASK}, device=CUDA, progress=False, graph=True)
    spread = np.abs(again.train_loss - eager.train_loss).max()
    if spread == 0:
        np.testing.assert_allclose(graphed.train_loss, eager.train_loss, rtol=1e-5, atol=1e-6)
        for n, p in eager.params.items():
            torch.testing.assert_close(graphed.params[n], p, rtol=1e-4, atol=1e-5, msg=n)
    else:
        np.testing.assert_allclose(graphed.train_loss[:, :3], eager.train_loss[:, :3], rtol=1e-5, atol=1e-6)
        assert np.abs(graphed.train_loss - eager.train_loss).max() <= 10 * spread + 1e-6


def test_float64_training_on_cuda_matches_the_cpu():
    config = FAMILIES["attention softmax"]
    cpu = train(config, [1, 2], CONFIG, TASK, {"test": TASK}, progress=False, device="cpu", dtype=torch.float64)
    gpu = train(config, [1, 2], CONFIG, TASK, {"test": TASK}, progress=False, device=CUDA, dtype=torch.float64)
    np.testing.assert_allclose(gpu.train_loss, cpu.train_loss, rtol=1e-9, atol=1e-10)


def test_fixed_data_minibatches_are_the_same_on_cuda_and_cpu():
    from lib.train import keyed_indices

    keys = torch.arange(5, dtype=torch.int64) * 977 + 3
    np.testing.assert_array_equal(keyed_indices(keys.to(CUDA), 17, 64, 1000).cpu().numpy(),
                                  keyed_indices(keys, 17, 64, 1000).numpy())


@pytest.mark.parametrize("data", ["task", "minibatches"])
def test_a_resumed_run_on_cuda_ends_exactly_as_an_uninterrupted_one(tmp_path, data):
    from lib.train import checkpoints

    config = FAMILIES["attention softmax"]
    source = TASK if data == "task" else [TASK.sample(200, seed=s) for s in (5, 6)]
    whole = train(config, [1, 2], CONFIG, source, {"test": TASK}, device=CUDA, progress=False)
    with checkpoints(tmp_path, every_s=0):
        train(config, [1, 2], CONFIG, source, {"test": TASK}, device=CUDA, progress=False, stop_after=25)
    with checkpoints(tmp_path, every_s=0):
        resumed = train(config, [1, 2], CONFIG, source, {"test": TASK}, device=CUDA, progress=False)
    assert resumed.resumed_at == 20
    np.testing.assert_array_equal(resumed.train_loss, whole.train_loss)
    for n, p in whole.params.items():
        assert torch.equal(resumed.params[n], p), n


def test_a_budget_cut_run_on_cuda_resumes_to_the_uninterrupted_numbers(tmp_path):
    from lib.train import BudgetSpent, checkpoints, deadline

    config = FAMILIES["attention softmax"]
    whole = train(config, [1, 2], CONFIG, TASK, {"test": TASK}, device=CUDA, progress=False)
    with checkpoints(tmp_path, every_s=1e9), deadline(0), pytest.raises(BudgetSpent):
        train(config, [1, 2], CONFIG, TASK, {"test": TASK}, device=CUDA, progress=False)
    with checkpoints(tmp_path, every_s=1e9):
        resumed = train(config, [1, 2], CONFIG, TASK, {"test": TASK}, device=CUDA, progress=False)
    assert resumed.resumed_at == 10
    np.testing.assert_array_equal(resumed.train_loss, whole.train_loss)
