"""Benchmarks. ``python -m lib.bench ensemble [--members K] [--steps S] [--device D]``

Trains K models of a representative small configuration (2 layers, 2 softmax heads,
d_model 64, index lookup with 16 positions, batch 64) for a fixed number of steps, once
as one ensemble and once one by one through the same trainer, and prints both
throughputs (model-steps per second) and their ratio.
"""
from __future__ import annotations

import argparse
import os
import sys
import time

os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

import torch  # noqa: E402

from .models import ModelConfig  # noqa: E402
from .runtime import device_name, pick_device  # noqa: E402
from .tasks import IndexLookup  # noqa: E402
from .train import TrainConfig, train  # noqa: E402


def ensemble_benchmark(members: int = 16, steps: int = 100, device=None, batch_size: int = 64) -> dict:
    device = pick_device(device)
    task = IndexLookup(n_symbols=16, length=16)
    model = ModelConfig(d_model=64, n_out=task.n_classes, n_layers=2, n_heads=2, vocab_size=len(task.vocab),
                        positions="learned", max_len=task.seq_len)
    config = TrainConfig(steps=steps, lr=1e-3, batch_size=batch_size, eval_every=steps)
    seeds = list(range(members))
    train(model, seeds[:2], TrainConfig(steps=3, batch_size=batch_size), task, device=device, progress=False)  # warm-up

    def timed(fn):
        if device.type == "cuda":
            torch.cuda.synchronize()
        start = time.perf_counter()
        fn()
        if device.type == "cuda":
            torch.cuda.synchronize()
        return time.perf_counter() - start

    together = timed(lambda: train(model, seeds, config, task, device=device, progress=False))
    alone = timed(lambda: [train(model, [s], config, task, device=device, progress=False) for s in seeds])
    return {"device": device_name(device), "members": members, "steps": steps,
            "ensemble_model_steps_per_s": members * steps / together,
            "one_by_one_model_steps_per_s": members * steps / alone,
            "ratio": alone / together, "ensemble_s": together, "one_by_one_s": alone,
            "threads": torch.get_num_threads()}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m lib.bench", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("which", choices=["ensemble"])
    parser.add_argument("--members", type=int, default=16)
    parser.add_argument("--steps", type=int, default=100)
    parser.add_argument("--device", default=None)
    parser.add_argument("--threads", type=int, default=None, help="torch CPU threads (default: torch's choice)")
    args = parser.parse_args(argv)
    if args.members < 1 or args.steps < 1:
        parser.error("--members and --steps must be positive")
    if args.threads:
        torch.set_num_threads(args.threads)
    r = ensemble_benchmark(args.members, args.steps, args.device)
    print(f"device: {r['device']}  (torch threads: {r['threads']})")
    print(f"K={r['members']} models x {r['steps']} steps")
    print(f"  ensemble   : {r['ensemble_model_steps_per_s']:9.1f} model-steps/s  ({r['ensemble_s']:.2f} s)")
    print(f"  one by one : {r['one_by_one_model_steps_per_s']:9.1f} model-steps/s  ({r['one_by_one_s']:.2f} s)")
    print(f"  ratio      : {r['ratio']:.1f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
