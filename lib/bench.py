"""Benchmarks. ``python -m lib.bench {ensemble|sweep} [--members K] [--steps S] [--device D]``

``ensemble``: trains K models of a representative small configuration (2 layers, 2 softmax
heads, d_model 64, index lookup with 16 positions, batch 64) for a fixed number of steps, once
as one ensemble and once one by one through the same trainer, and prints both throughputs
(model-steps per second) and their ratio.

``sweep``: one T-group of a memorization sweep (Mahdavi et al. Fig. 2a at the default or, with
``--paper``, the paper's sizes: every H with its seeds), once as one masked ensemble and once
as one ensemble per grid point, for ``--steps`` steps each.
"""
from __future__ import annotations

import argparse
import os
import sys
import time

os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

import torch  # noqa: E402

from .models import AttentionConfig  # noqa: E402
from .runtime import device_name, pick_device  # noqa: E402
from .tasks import IndexLookup  # noqa: E402
from .train import TrainConfig, train  # noqa: E402


def _timed(device, fn) -> float:
    """Wall time of ``fn()``, synchronising a GPU before and after."""
    if device.type == "cuda":
        torch.cuda.synchronize()
    start = time.perf_counter()
    fn()
    if device.type == "cuda":
        torch.cuda.synchronize()
    return time.perf_counter() - start


def ensemble_benchmark(members: int = 16, steps: int = 100, device=None, batch_size: int = 64) -> dict:
    device = pick_device(device)
    task = IndexLookup(n_symbols=16, length=16)
    model = AttentionConfig(d_model=64, n_out=task.n_classes, n_layers=2, n_heads=2, vocab_size=len(task.vocab),
                        positions="learned", max_len=task.seq_len)
    config = TrainConfig(steps=steps, lr=1e-3, batch_size=batch_size, eval_every=steps)
    seeds = list(range(members))
    train(model, seeds[:2], TrainConfig(steps=3, batch_size=batch_size), task, device=device, progress=False)  # warm-up

    together = _timed(device, lambda: train(model, seeds, config, task, device=device, progress=False))
    alone = _timed(device, lambda: [train(model, [s], config, task, device=device, progress=False) for s in seeds])
    return {"device": device_name(device), "members": members, "steps": steps,
            "ensemble_model_steps_per_s": members * steps / together,
            "one_by_one_model_steps_per_s": members * steps / alone,
            "ratio": alone / together, "ensemble_s": together, "one_by_one_s": alone,
            "threads": torch.get_num_threads()}


def sweep_benchmark(steps: int = 100, device=None, size: str = "default") -> dict:
    from .papers.mahdavi2024 import training as X
    from .papers.mahdavi2024.sweeps import sweep

    device = pick_device(device)
    config, grid = sweep("fig2a", size)
    config = dict(config, steps=steps, early_stop=False, eval_every=steps)
    group = [g for g in grid if g["T"] == grid[0]["T"]]

    X.train_group(dict(config, steps=2), group[:1], device=device, progress=False)  # warm-up
    together = _timed(device, lambda: X.train_group(config, group, device=device, progress=False))
    apart = _timed(device, lambda: [X.train_group(config, [p], device=device, progress=False) for p in group])
    members = len(group) * len(config["seeds"])
    return {"device": device_name(device), "members": members, "points": len(group), "steps": steps,
            "T": group[0]["T"], "one_pass_s": together, "per_point_s": apart, "ratio": apart / together,
            "threads": torch.get_num_threads()}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m lib.bench", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("which", choices=["ensemble", "sweep"])
    parser.add_argument("--paper", action="store_true", help="sweep: the paper's sizes (d=64, T=10k, H up to 60)")
    parser.add_argument("--members", type=int, default=16)
    parser.add_argument("--steps", type=int, default=100)
    parser.add_argument("--device", default=None)
    parser.add_argument("--threads", type=int, default=None, help="torch CPU threads (default: torch's choice)")
    args = parser.parse_args(argv)
    if args.members < 1 or args.steps < 1:
        parser.error("--members and --steps must be positive")
    if args.threads:
        torch.set_num_threads(args.threads)
    if args.which == "sweep":
        r = sweep_benchmark(args.steps, args.device, "paper" if args.paper else "default")
        print(f"device: {r['device']}  (torch threads: {r['threads']})")
        print(f"Fig. 2a group T={r['T']}: {r['points']} points, {r['members']} models, {r['steps']} steps")
        print(f"  one masked ensemble   : {r['one_pass_s']:.2f} s")
        print(f"  one ensemble per point: {r['per_point_s']:.2f} s")
        print(f"  ratio                 : {r['ratio']:.1f}x")
        return 0
    r = ensemble_benchmark(args.members, args.steps, args.device)
    print(f"device: {r['device']}  (torch threads: {r['threads']})")
    print(f"K={r['members']} models x {r['steps']} steps")
    print(f"  ensemble   : {r['ensemble_model_steps_per_s']:9.1f} model-steps/s  ({r['ensemble_s']:.2f} s)")
    print(f"  one by one : {r['one_by_one_model_steps_per_s']:9.1f} model-steps/s  ({r['one_by_one_s']:.2f} s)")
    print(f"  ratio      : {r['ratio']:.1f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
