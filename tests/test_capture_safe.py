"""What a CUDA graph capture refuses, checked on the CPU: a training step that makes a tensor
from host data (``aten.lift_fresh``: ``torch.tensor(...)``, or a Python scalar written through an
index, ``t[i] = 1.0``) copies it to the GPU inside the capture, and the trainer falls back to the
eager step (seen on an H200 for the depth paper's one-hot positions, 2026-11-28: about 38 ms a
step eager). Every model family of the GPU tests (``tests/gpu/test_cuda.py``) runs trainer steps
here under a dispatch mode that records such operations; none may occur, except in the families
``CAPTURE_FAILS`` lists with their cause (strict xfails: a fix turns them into failures until the
entry goes)."""
import dataclasses

import pytest
import torch
from torch.utils._python_dispatch import TorchDispatchMode

import lib.train as trainer
from gpu.test_cuda import CONFIG, FAMILIES, TASK, capture_cases

HOST_DATA = ("aten.lift_fresh", "aten._local_scalar_dense")


class _Recorder(TorchDispatchMode):
    def __init__(self):
        super().__init__()
        self.seen = []

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        if str(func).startswith(HOST_DATA):
            self.seen.append(str(func))
        return func(*args, **(kwargs or {}))


@pytest.mark.parametrize("name", capture_cases())
def test_a_training_step_makes_no_tensor_from_host_data(name, monkeypatch):
    recorded = []

    class Step:  # stands in for the captured step: records the update the capture would see
        def __init__(self, update, optimizer):
            self.update = update

        def __call__(self, x, y, scalars):
            tensors = {k: torch.tensor(v, dtype=torch.float32) for k, v in scalars.items()}  # as the capture does
            with _Recorder() as recorder:
                loss = self.update(x, y, tensors)
            recorded.append(recorder.seen)
            return loss

    monkeypatch.setattr(trainer, "_CapturedStep", Step)
    config = dataclasses.replace(CONFIG, steps=4, eval_every=2, warmup=1)
    trainer.train(FAMILIES[name], [1, 2], config, TASK, {"test": TASK}, progress=False, graph=True)
    assert recorded and all(seen == [] for seen in recorded), (name, recorded[0])
