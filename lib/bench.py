"""Benchmarks of the trainer against what a user would otherwise write.

``python -m lib.bench ensemble [--members K] [--steps S] [--device D]``
    The bench model (2 layers, 2 softmax heads, d_model 64, index lookup with 16 positions,
    batch 64) trained three ways: a plain hand-written ``torch.optim.Adam`` loop of one model,
    :func:`lib.train.train` with one member, and with K members; model-steps per second each.
``python -m lib.bench memorization [--steps S]``
    One group of a memorization sweep (d = 16, n = 8, T = 200, 7 head counts x 8 seeds = 56
    members, full batch, Adam with warm-up and cosine): the trainer's time per step, against a
    plain loop of one of its models (H = 4).
``python -m lib.bench sweep [--paper]``
    One T-group of Mahdavi et al.'s Fig. 2a as one masked ensemble vs one ensemble per point.
``python -m lib.bench paper-cost [--only NAME ...] [--probe S]``
    For every paper-scale sweep of the book, the first and the last group of its grid run for
    S and 2 S steps on this device; their difference gives the time per step, which with the
    setup time and each group's step budget estimates the whole sweep (an upper bound for sweeps
    that stop early; periodic evaluations on large training sets come on top).
``--save``
    Add the numbers, with the device and the code's provenance, to ``data/bench/<device>.json``.
"""
from __future__ import annotations

import argparse
import json
import os
import re
import sys
import time

os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402

from .models import AttentionConfig, build_model  # noqa: E402
from .runtime import device_name, pick_device  # noqa: E402
from .tasks import IndexLookup  # noqa: E402
from .tasks.base import make_generator  # noqa: E402
from .train import TrainConfig, data_seed, step_limit, train  # noqa: E402


def _timed(device, fn) -> float:
    """Wall time of ``fn()``, synchronising a GPU before and after."""
    if device.type == "cuda":
        torch.cuda.synchronize()
    start = time.perf_counter()
    fn()
    if device.type == "cuda":
        torch.cuda.synchronize()
    return time.perf_counter() - start


def plain_loop(model: torch.nn.Module, steps: int, batch, device, lr: float = 1e-3) -> None:
    """What one would write by hand: a module, ``torch.optim.Adam``, ``loss.backward()``;
    ``batch()`` returns the step's (x, y) on the device."""
    opt = torch.optim.Adam(model.parameters(), lr=lr)
    for _ in range(steps):
        x, y = batch()
        loss = F.cross_entropy(model(x), y)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()


# ----------------------------------------------------------------------------- the bench model
def bench_model():
    task = IndexLookup(n_symbols=16, length=16)
    return task, AttentionConfig(d_model=64, n_out=task.n_classes, n_layers=2, n_heads=2,
                                 vocab_size=len(task.vocab), positions="learned", max_len=task.seq_len)


def ensemble_benchmark(members: int = 16, steps: int = 100, device=None, batch_size: int = 64) -> dict:
    device = pick_device(device)
    task, model = bench_model()
    config = TrainConfig(steps=steps, lr=1e-3, batch_size=batch_size, eval_every=steps)
    seeds = list(range(members))
    train(model, seeds[:2], TrainConfig(steps=3, batch_size=batch_size), task, device=device, progress=False)

    module = build_model(model, seed=0).to(device)
    generator = make_generator(data_seed(0))

    def batch():
        b = task.sample(batch_size, generator=generator)
        return b.x.to(device), b.y.to(device)

    plain_loop(module, 3, batch, device)  # warm-up
    plain = _timed(device, lambda: plain_loop(module, steps, batch, device))
    one = _timed(device, lambda: train(model, seeds[:1], config, task, device=device, progress=False))
    many = _timed(device, lambda: train(model, seeds, config, task, device=device, progress=False))
    out = {"plain_loop": steps / plain, "trainer_1": steps / one, f"trainer_{members}": members * steps / many}
    return {"what": "ensemble", "members": members, "steps": steps, "model_steps_per_s": out}


# ----------------------------------------------------------------------------- memorization
def memorization_group(seeds: int = 8):
    """The group of the issue that asked for these benchmarks: d = 16, n = 8, T = 200."""
    config = dict(dim=16, lr=1e-2, batch_size=None, steps=0, eval_every=100, seeds=list(range(seeds)),
                  context="shared", labels="classes", early_stop=False)
    points = [dict(T=200, n=8, d_h=16, H=H) for H in (1, 2, 3, 4, 6, 8, 10)]
    return config, points


def memorization_benchmark(steps: int = 200, device=None) -> dict:
    from .papers.mahdavi2024 import training as X
    from .tasks.random_labels import query_context_data

    device = pick_device(device)
    config, points = memorization_group()
    X.train_group(dict(config, steps=3), points[:1], device=device, progress=False)
    group = _timed(device, lambda: X.train_group(dict(config, steps=steps), points, device=device, progress=False))
    members = len(points) * len(config["seeds"])

    data = query_context_data(200, 8, 16, n_classes=X.N_CLASSES, seed=0)
    x, y = data.x.to(device), data.y.to(device)
    module = build_model(X.model_config(16, 8, 4, 16), seed=0).to(device)
    plain_loop(module, 3, lambda: (x, y), device, lr=1e-2)
    plain = _timed(device, lambda: plain_loop(module, steps, lambda: (x, y), device, lr=1e-2))
    return {"what": "memorization", "members": members, "steps": steps,
            "ms_per_step": {"trainer_group": 1e3 * group / steps, "plain_loop_one_model": 1e3 * plain / steps},
            "model_steps_per_s": {"trainer_group": members * steps / group, "plain_loop": steps / plain}}


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
    return {"what": f"sweep_{size}", "members": len(group) * len(config["seeds"]), "points": len(group),
            "steps": steps, "T": group[0]["T"], "ms_per_step": {"one_ensemble": 1e3 * together / steps,
                                                                "one_per_point": 1e3 * apart / steps}}


# ----------------------------------------------------------------------------- paper cost
def _budget(sweep, config: dict, point: dict) -> int:
    """The number of training steps of one point of a sweep at the paper scale."""
    if "steps" in config:
        return int(config["steps"])
    from .papers.chen2024.training import recipe  # curves sweeps: each task's recipe

    return recipe(point["task"], "paper", point.get("steps_factor", 1.0)).train.steps


def paper_cost(only=None, probe: int = 20, device=None) -> dict:
    """Estimated time of every paper-scale sweep on ``device`` (see the module docstring)."""
    import pkgutil

    from . import papers
    from .results import _groups, paper_sweeps

    device = pick_device(device)
    rows = []
    sweeps = [s for info in pkgutil.iter_modules(papers.__path__) for s in paper_sweeps(info.name).values()]
    for sweep in sweeps:
        if only and sweep.key not in only and sweep.name not in only:
            continue
        config, grid = sweep.define("paper")
        groups = _groups(grid, sweep.group_by)
        sample = [groups[0]] if len(groups) == 1 else [groups[0], groups[-1]]
        per_step, fixed = [], []
        for group in sample:
            with step_limit(probe):
                t1 = _timed(device, lambda: sweep.run(config, group, scale="paper", device=device, stop_after=None))
            with step_limit(2 * probe):
                t2 = _timed(device, lambda: sweep.run(config, group, scale="paper", device=device, stop_after=None))
            per_step.append(max(t2 - t1, 0.0) / probe)
            fixed.append(max(t1 - probe * per_step[-1], 0.0))
        step_s, setup_s = sum(per_step) / len(per_step), sum(fixed) / len(fixed)
        steps = sum(max(_budget(sweep, config, p) for p in group) for group in groups)
        rows.append({"sweep": f"{sweep.paper}.{sweep.key}", "groups": len(groups), "steps": steps,
                     "s_per_step": step_s, "estimate_h": (steps * step_s + len(groups) * setup_s) / 3600})
        print(f"  {rows[-1]['sweep']:32s} {len(groups):3d} groups {steps:9d} steps  "
              f"{1e3 * step_s:8.1f} ms/step  ~{rows[-1]['estimate_h']:7.2f} h", flush=True)
    return {"what": "paper_cost", "members": 0, "steps": probe, "sweeps": rows}


# ----------------------------------------------------------------------------- saving
def save(record: dict, device) -> str:
    """Append ``record`` to ``data/bench/<device>.json`` with the device and provenance."""
    from .results import code_record, data_dir

    name = re.sub(r"[^a-z0-9]+", "-", device_name(device).lower()).strip("-")[:60]
    path = data_dir() / "bench" / f"{name}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    stored = json.loads(path.read_text()) if path.exists() else {"device": device_name(device), "runs": []}
    stored["runs"] = [r for r in stored["runs"] if r["what"] != record["what"]] + [{
        **record, "torch": torch.__version__, "threads": torch.get_num_threads(), **code_record("lib.bench")}]
    path.write_text(json.dumps(stored, indent=1) + "\n")
    return str(path)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m lib.bench", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("which", choices=["ensemble", "memorization", "sweep", "paper-cost"])
    parser.add_argument("--only", nargs="*", default=None, help="paper-cost: only these sweeps (keys or names)")
    parser.add_argument("--probe", type=int, default=20, help="paper-cost: steps of the shorter probe run")
    parser.add_argument("--paper", action="store_true", help="sweep: the paper's sizes (d=64, T=10k, H up to 60)")
    parser.add_argument("--members", type=int, default=16)
    parser.add_argument("--steps", type=int, default=100)
    parser.add_argument("--device", default=None)
    parser.add_argument("--threads", type=int, default=None, help="torch CPU threads (default: torch's choice)")
    parser.add_argument("--save", action="store_true", help="add the result to data/bench/<device>.json")
    args = parser.parse_args(argv)
    if args.members < 1 or args.steps < 1:
        parser.error("--members and --steps must be positive")
    if args.threads:
        torch.set_num_threads(args.threads)
    device = pick_device(args.device)
    if args.which == "paper-cost":
        print(f"device: {device_name(device)}  (torch threads: {torch.get_num_threads()})")
        r = paper_cost(args.only, args.probe, device)
        if args.save:
            print(f"saved to {save(r, device)}")
        return 0
    if args.which == "ensemble":
        r = ensemble_benchmark(args.members, args.steps, device)
    elif args.which == "memorization":
        r = memorization_benchmark(args.steps, device)
    else:
        r = sweep_benchmark(args.steps, device, "paper" if args.paper else "default")
    print(f"device: {device_name(device)}  (torch threads: {torch.get_num_threads()})")
    print(f"{r['what']}: {r['members']} models x {r['steps']} steps")
    for unit in ("model_steps_per_s", "ms_per_step"):
        for key, value in r.get(unit, {}).items():
            print(f"  {key:22s} {value:10.1f} {unit.replace('_', '-').replace('-per-', '/')}")
    if "plain_loop" in r.get("model_steps_per_s", {}):
        base = r["model_steps_per_s"]["plain_loop"]
        print("  vs plain loop: " + ", ".join(f"{k} {v / base:.1f}x" for k, v in r["model_steps_per_s"].items()
                                               if k != "plain_loop"))
    if args.save:
        print(f"saved to {save(r, device)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
