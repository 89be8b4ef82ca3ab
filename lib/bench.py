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
``python -m lib.bench anatomy [--members K] [--steps S]``
    Where the trainer's step goes (profiled): the share of kernel time in matrix products and the
    rate those products reach at the model's own shapes, the ceiling for a trainer of that model.
``python -m lib.bench side-by-side [--members K] [--steps S] [--workers W]``
    The trainer (bench model, K members) as one run on this process's threads against W
    single-thread runs at the same time (what ``--jobs W`` does with a sweep's groups), with the
    fraction of the matmul rate each reaches, measured in the same run.
``python -m lib.bench allocator [--steps S]``
    One group of the memorization paper's d = 64 heads sweep (H = 4, T = 2000, five seeds, full
    batch) for S steps in a fresh process with glibc's default allocator and in one that keeps
    freed memory (:mod:`lib.allocator`): wall time, peak memory and whether the accuracies agree.
``python -m lib.bench generation [--repeats R]``
    Greedy completion of 100 Boolean-simplification prompts (depth 3) by the depth-extrapolation
    paper's default decoder (d = 64, L = 2, h = 4, context 224; untrained, so every answer runs to
    the context), best of R timings: a plain loop that re-runs the whole prefix for every token, against
    :func:`lib.models.decoder.generate`, which computes each position once; whether they agree.
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
import contextlib
import json
import os
import re
import signal
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


def _timed_trainer_run(members: int, steps: int, batch_size: int, threads: int | None = None) -> float:
    """The bench model's trainer at ``members`` for ``steps`` steps on the CPU (after a 3-step
    warm-up), on ``threads`` torch threads (None: as this process has them); its wall time in
    seconds. Each run of :func:`side_by_side`, here and in its workers."""
    if threads is not None:
        torch.set_num_threads(threads)
    task, model = bench_model()
    seeds = list(range(members))
    train(model, seeds, TrainConfig(steps=3, batch_size=batch_size), task, progress=False)
    config = TrainConfig(steps=steps, lr=1e-3, batch_size=batch_size, eval_every=steps)
    start = time.perf_counter()
    train(model, seeds, config, task, progress=False)
    return time.perf_counter() - start


def side_by_side(members: int = 16, steps: int = 200, workers: int = 2, batch_size: int = 64) -> dict:
    """The trainer on the CPU as one run on this process's threads, and as ``workers`` single-thread
    runs at the same time in as many processes (what ``--jobs`` does with a sweep's groups:
    :class:`lib.papers.engines.ProcessEngine`): model-steps/s of the one run and of the workers
    together, each with its fraction of the float32 matrix-product rate measured in the same run.
    The workers start together to within their start-up (imports, a warm-up): give enough
    ``steps`` that this is small against the timed part."""
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    device = torch.device("cpu")
    peak, flops = matmul_rate(device), bench_flops(batch_size)
    one = members * steps / _timed_trainer_run(members, steps, batch_size)
    with ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("spawn")) as pool:
        walls = list(pool.map(_timed_trainer_run, [members] * workers, [steps] * workers,
                              [batch_size] * workers, [1] * workers))
    together = sum(members * steps / wall for wall in walls)
    rates = {f"one_run_{torch.get_num_threads()}_threads": one, f"{workers}_single_thread_runs": together}
    return {"what": "side_by_side", "members": members, "steps": steps, "workers": workers,
            "matmul_gflop_s": peak, "bench_flop_per_step": flops, "model_steps_per_s": rates,
            "fraction_of_peak": {k: r * flops / (peak * 1e9) for k, r in rates.items()},
            "worker_wall_s": walls}


def _timed_memorization_group(malloc: str, steps: int) -> dict:
    """One run of :func:`allocator_effect`, in a fresh process: ``ABC_MALLOC=malloc``, then the
    d = 64 group (H = 4) for ``steps`` steps on two threads."""
    import resource

    os.environ["ABC_MALLOC"] = malloc
    from .allocator import keep_freed_memory
    from .papers.mahdavi2024 import sweeps
    from .papers.mahdavi2024.training import run_group
    from .train import step_limit

    kept = keep_freed_memory()
    torch.set_num_threads(2)
    config, grid = sweeps.fig2a_d64("default")
    start = time.perf_counter()
    with step_limit(steps):
        out = run_group(config, [p for p in grid if p["H"] == 4], progress=False)
    return {"kept": kept, "wall_s": time.perf_counter() - start, "acc": out[0]["acc"],
            "peak_rss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}


def allocator_effect(steps: int = 40) -> dict:
    """The same training with glibc's default allocator and with freed memory kept
    (:mod:`lib.allocator`), each in a fresh process, one after the other."""
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    runs = {}
    for malloc in ("system", "keep"):
        with ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn")) as pool:
            runs[malloc] = pool.submit(_timed_memorization_group, malloc, steps).result()
    return {"what": "allocator", "steps": steps, "runs": runs,
            "speed_up": runs["system"]["wall_s"] / runs["keep"]["wall_s"],
            "same_numbers": runs["system"]["acc"] == runs["keep"]["acc"]}


@torch.no_grad()
def generation_benchmark(repeats: int = 1, prompts: int = 100, length: int | None = None) -> dict:
    """:func:`lib.models.decoder.generate` against a plain greedy loop that re-runs the prefix for
    every token (``model(x[:, :t])[:, -1].argmax(-1)``, all prompts in one batch: what ``generate``
    did before it computed each position once), on the Boolean decoder of
    Richard (2024) at the default scale (see the module docstring): ``prompts`` prompts completed
    to ``length`` tokens (default: the context, 224); best of ``repeats``."""
    from .models.decoder import generate, gpt_config
    from .papers.richard2024 import boolean, sweeps
    from .tasks import boolean_expressions as bx

    config, _ = sweeps.boolean_simplification("default")
    prompts = [boolean.prompt(lhs) for lhs, _ in bx.sample(config["k"], 3, prompts, seed=0)]
    model = build_model(gpt_config(len(bx.VOCAB), config["context"], config["d"], config["layers"], config["heads"],
                                   mlp_ratio=config["mlp_ratio"]), seed=0).eval()
    length = length or config["context"]

    def plain():  # every prompt in one batch; a row's own tokens are kept until its prompt ends
        given = torch.tensor([len(p) for p in prompts])
        x = torch.zeros(len(prompts), length, dtype=torch.long)
        for i, p in enumerate(prompts):
            x[i, :len(p)] = torch.as_tensor(p)
        for t in range(int(given.min()), length):
            x[:, t] = torch.where(given <= t, model(x[:, :t])[:, -1].argmax(-1), x[:, t])
        return x.numpy()

    walls, outs = {}, {}
    for name, fn in (("plain_loop", plain), ("generate", lambda: generate(model, prompts, length, greedy=True))):
        best = float("inf")
        for _ in range(repeats):
            start = time.perf_counter()
            outs[name] = fn()
            best = min(best, time.perf_counter() - start)
        walls[name] = best
    tokens = sum(length - len(p) for p in prompts)
    return {"what": "generation", "prompts": len(prompts), "length": length, "generated_tokens": tokens,
            "wall_s": walls, "tokens_per_s": {k: tokens / w for k, w in walls.items()},
            "speed_up": walls["plain_loop"] / walls["generate"],
            "same_tokens": bool((outs["plain_loop"] == outs["generate"]).all())}


def matmul_rate(device, size: int | None = None, repeats: int = 10) -> float:
    """The machine's float32 matrix-product rate in GFLOP/s (a ``size``^3 product, median of
    ``repeats`` after a warm-up; 4096 on a GPU, 1024 on a CPU): the ceiling the trainer's
    fraction of peak is measured against, taken in the same run."""
    device = pick_device(device)
    size = size or (4096 if device.type == "cuda" else 1024)
    generator = torch.Generator().manual_seed(0)
    a = torch.randn(size, size, generator=generator).to(device)
    b = torch.randn(size, size, generator=generator).to(device)
    for _ in range(2):
        a @ b
    times = sorted(_timed(device, lambda: a @ b) for _ in range(repeats))
    return 2 * size ** 3 / times[len(times) // 2] / 1e9


def bench_flops(batch_size: int = 64) -> int:
    """FLOPs of one training step (forward and backward) of the bench model on one batch, counted
    by ``torch.utils.flop_counter`` (matrix products; element-wise work is not counted)."""
    from torch.utils.flop_counter import FlopCounterMode

    task, config = bench_model()
    model = build_model(config, seed=0)
    batch = task.sample(batch_size, seed=0)
    with FlopCounterMode(display=False) as counter:
        F.cross_entropy(model(batch.x), batch.y).backward()
    return int(counter.get_total_flops())


#: the kernels that carry a step's matrix products (what ``torch.utils.flop_counter`` counts)
PRODUCT_KERNELS = ("aten::bmm", "aten::mm", "aten::addmm", "aten::baddbmm")


def step_anatomy(members: int = 16, steps: int = 40, device=None, batch_size: int = 64) -> dict:
    """Where the trainer's time goes on the bench model with ``members`` members: one profiled run
    of ``steps`` steps (``torch.profiler``, CPU time of each kernel itself), split into the matrix
    products (:data:`PRODUCT_KERNELS`) and everything else. ``product_gflop_s`` is the rate of the
    model's own products at its own shapes (``bench_flops`` per member-step over their time): the
    ceiling a trainer of these shapes could reach with no other cost, to set beside the
    ``size``^3 product of :func:`matmul_rate`."""
    from torch.profiler import ProfilerActivity, profile

    device = pick_device(device)
    task, model = bench_model()
    seeds = list(range(members))
    config = TrainConfig(steps=steps, lr=1e-3, batch_size=batch_size, eval_every=steps)
    train(model, seeds, TrainConfig(steps=3, batch_size=batch_size), task, device=device, progress=False)
    with profile(activities=[ProfilerActivity.CPU]) as prof:
        wall = _timed(device, lambda: train(model, seeds, config, task, device=device, progress=False))
    by_kernel = {e.key: e.self_cpu_time_total / 1e6 for e in prof.key_averages()}
    total = sum(by_kernel.values())
    products = sum(by_kernel.get(k, 0.0) for k in PRODUCT_KERNELS)
    others = sorted(((t, k) for k, t in by_kernel.items() if k not in PRODUCT_KERNELS), reverse=True)[:5]
    flops = bench_flops(batch_size) * members * steps
    return {"members": members, "steps": steps, "wall_s": wall, "kernel_s": total, "product_s": products,
            "product_share": products / total if total else float("nan"),
            "product_gflop_s": flops / products / 1e9 if products else float("nan"),
            "largest_other_kernels_s": {k: t for t, k in others}}


def suite(device=None, steps: int = 100, members=(1, 16, 64, 256), memorization_steps: int = 2000,
          paper_group_steps: int = 200, compile_plain: bool = True, batch_size: int = 64, log=print) -> dict:
    """Every speed number of the trainer on one device, side by side in one run: the bench model
    as a plain ``torch.optim`` loop (eager and ``torch.compile``d) and through the trainer with
    each number of ``members``, with the fraction of the matrix-product ceiling each reaches; the
    56-member memorization group (ms per step and its 20,000 steps projected); and Mahdavi et al.'s
    Figure 2a group at the paper's size (T = 10,000, 24 members, d = 64), ms per step."""
    from .papers.mahdavi2024 import training as X
    from .papers.mahdavi2024.sweeps import sweep

    device = pick_device(device)
    task, model = bench_model()
    out: dict = {"what": "suite", "members": max(members), "steps": steps}
    peak = matmul_rate(device)
    flops = bench_flops(batch_size)
    out.update(matmul_gflop_s=peak, bench_flop_per_step=flops)
    log(f"  float32 matmul: {peak:.0f} GFLOP/s; bench model: {flops / 1e9:.3f} GFLOP per step")

    module = build_model(model, seed=0).to(device)
    generator = make_generator(data_seed(0))

    def batch():
        b = task.sample(batch_size, generator=generator)
        return b.x.to(device, non_blocking=True), b.y.to(device, non_blocking=True)

    rates = {}
    plain_loop(module, 3, batch, device)
    rates["plain_loop"] = steps / _timed(device, lambda: plain_loop(module, steps, batch, device))
    log(f"  plain loop: {rates['plain_loop']:.0f} steps/s")
    if compile_plain:
        try:
            compiled = torch.compile(build_model(model, seed=0).to(device))
            plain_loop(compiled, 5, batch, device)  # compiles
            rates["plain_loop_compiled"] = steps / _timed(device, lambda: plain_loop(compiled, steps, batch, device))
            log(f"  plain loop, compiled: {rates['plain_loop_compiled']:.0f} steps/s")
        except Exception as error:  # noqa: BLE001 - no compiler on this machine: say so, go on
            out["compile_error"] = f"{type(error).__name__}: {error}"[:300]
    config = TrainConfig(steps=steps, lr=1e-3, batch_size=batch_size, eval_every=steps)
    for k in members:
        seeds = list(range(k))
        train(model, seeds, TrainConfig(steps=3, batch_size=batch_size), task, device=device, progress=False)
        rates[f"trainer_{k}"] = k * steps / _timed(
            device, lambda: train(model, seeds, config, task, device=device, progress=False))
        log(f"  trainer, K = {k}: {rates[f'trainer_{k}']:.0f} model-steps/s "
            f"({rates[f'trainer_{k}'] * flops / (peak * 1e9):.1%} of the matmul rate)")
    out["model_steps_per_s"] = rates
    out["fraction_of_peak"] = {key: rate * flops / (peak * 1e9) for key, rate in rates.items()}
    anatomy = step_anatomy(16, max(10, steps // 2), device, batch_size)
    out["step_anatomy_16"] = anatomy
    log(f"  trainer, K = 16, profiled: {anatomy['product_share']:.0%} of kernel time in matrix products, which run "
        f"at {anatomy['product_gflop_s']:.0f} GFLOP/s at the model's shapes ({anatomy['product_gflop_s'] / peak:.0%} "
        "of the matmul rate); largest other kernels: "
        + ", ".join(f"{k} {t:.2f} s" for k, t in anatomy["largest_other_kernels_s"].items()))

    group_config, points = memorization_group()
    X.train_group(dict(group_config, steps=3), points, device=device, progress=False)
    wall = _timed(device, lambda: X.train_group(dict(group_config, steps=memorization_steps), points, device=device,
                                                progress=False))
    out["memorization_group"] = {"members": len(points) * len(group_config["seeds"]), "steps": memorization_steps,
                                 "ms_per_step": 1e3 * wall / memorization_steps,
                                 "projected_20000_steps_s": 20_000 * wall / memorization_steps}
    log(f"  memorization group: {out['memorization_group']['ms_per_step']:.2f} ms/step")
    if paper_group_steps:  # its data and models take seconds to build: timed at S and 2S steps, the difference
        paper_config, grid = sweep("fig2a", "paper")
        group = [g for g in grid if g["T"] == grid[0]["T"]]

        def group_run(steps):
            cfg = dict(paper_config, steps=steps, early_stop=False, eval_every=steps)
            return _timed(device, lambda: X.run_group(cfg, group, device=device, progress=False))

        short, long = group_run(paper_group_steps), group_run(2 * paper_group_steps)
        per_step = max(long - short, 0.0) / paper_group_steps
        out["fig2a_paper_group"] = {"T": group[0]["T"], "members": len(group) * len(paper_config["seeds"]),
                                    "ensembles": len(X.buckets(group, paper_config["dim"],
                                                               paper_config.get("max_padding"))),
                                    "steps": paper_group_steps, "ms_per_step": 1e3 * per_step,
                                    "setup_s": max(short - paper_group_steps * per_step, 0.0),
                                    "projected_50000_steps_s": 50_000 * per_step + max(short - paper_group_steps *
                                                                                        per_step, 0.0)}
        log(f"  Figure 2a paper group: {out['fig2a_paper_group']['ms_per_step']:.1f} ms/step")
    return out


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
def _budget(sweep, config: dict, point: dict) -> int | None:
    """The number of training steps of one point of a sweep at the paper scale (None where the
    config does not say)."""
    for key in ("steps", "pretrain_steps", "copy_steps"):
        if isinstance(config.get(key), int):
            return int(config[key])
    if sweep.paper == "chen2024":  # curves sweeps: each task's recipe
        from .papers.chen2024.training import recipe

        return recipe(point["task"], "paper", point.get("steps_factor", 1.0)).train.steps
    return None


class TimeLimit(Exception):
    """Raised by :func:`time_limit` when its seconds are up."""


@contextlib.contextmanager
def time_limit(seconds: float | None, message: str = "over {seconds:.0f} s"):
    """Raise :class:`TimeLimit` (``message``, formatted with ``seconds``) in this (main) thread
    after ``seconds`` (a POSIX alarm; no limit where there is none, or for ``seconds`` None or 0)."""
    if not seconds or not hasattr(signal, "SIGALRM"):
        yield
        return

    def ring(signum, frame):
        raise TimeLimit(message.format(seconds=seconds))

    previous = signal.signal(signal.SIGALRM, ring)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def sweep_cost(sweep, probe: int, device) -> dict:
    """One paper-scale sweep's measured cost: its first and last group run for ``probe`` and
    ``2 probe`` steps (see the module docstring)."""
    from .results import _groups

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
    budgets = [[_budget(sweep, config, p) for p in group] for group in groups]
    known = all(b is not None for bs in budgets for b in bs)
    steps = sum(max(bs) for bs in budgets) if known else None
    estimate = (steps * step_s + len(groups) * setup_s) / 3600 if known else None
    return {"sweep": f"{sweep.paper}.{sweep.key}", "groups": len(groups), "points": len(grid), "steps": steps,
            "s_per_step": step_s, "setup_s": setup_s, "estimate_h": estimate}


def paper_cost(only=None, probe: int = 20, device=None, limit_s: float | None = None, on_row=None,
               skip=()) -> dict:
    """Estimated time of every paper-scale sweep on ``device`` (see the module docstring); a
    sweep that fails or runs past ``limit_s`` seconds is reported as such and the next one runs.
    ``on_row(record)`` is called after each sweep with the record so far (to save as it goes)."""
    from .papers.queue import ordered_sweeps

    device = pick_device(device)
    rows = []
    for sweep in ordered_sweeps():
        names = {sweep.key, sweep.name, sweep.paper, f"{sweep.paper}.{sweep.key}"}
        if (only and not names & set(only)) or names & set(skip):
            continue
        start = time.perf_counter()
        try:
            with time_limit(limit_s, "over the {seconds:.0f}s limit per sweep"):
                row = sweep_cost(sweep, probe, device)
        except (TimeLimit, Exception) as error:  # noqa: BLE001 - one row per sweep, whatever happens
            row = {"sweep": f"{sweep.paper}.{sweep.key}", "error": f"{type(error).__name__}: {error}"[:300]}
        row["probe_wall_s"] = time.perf_counter() - start
        rows.append(row)
        if on_row is not None:
            on_row({"what": "paper_cost", "members": 0, "steps": probe, "sweeps": rows})
        if "error" in row:
            print(f"  {row['sweep']:38s} FAILED after {row['probe_wall_s']:.0f}s: {row['error'][:160]}", flush=True)
        else:
            hours = "?" if row["estimate_h"] is None else f"{row['estimate_h']:.2f}"
            print(f"  {row['sweep']:38s} {row['groups']:3d} groups {row['steps'] or 0:9d} steps  "
                  f"{1e3 * row['s_per_step']:8.1f} ms/step  setup {row['setup_s']:5.1f}s  ~{hours} h", flush=True)
    return {"what": "paper_cost", "members": 0, "steps": probe, "sweeps": rows}


def measured_costs(sweep: str) -> list[dict]:
    """Every ``paper-cost`` row stored under ``data/bench/`` for ``sweep`` (``paper.key``), each
    with its device: what the paper scale of that sweep was measured to cost, and where."""
    from .results import data_dir

    rows = []
    for path in sorted((data_dir() / "bench").glob("*.json")):
        stored = json.loads(path.read_text())
        for run in stored.get("runs", []):
            for row in run.get("sweeps", []) if run.get("what") == "paper_cost" else []:
                if row.get("sweep") == sweep:
                    rows.append({**row, "device": stored.get("device"), "torch": run.get("torch"),
                                 "git_commit": run.get("git_commit")})
    return rows


def cost_line(sweep: str) -> str:
    """One line per device on which ``sweep``'s paper scale was measured (for a chapter)."""
    out = []
    for row in measured_costs(sweep):
        if "error" in row:
            out.append(f"{row['device']}: not measured ({row['error']})")
        elif row.get("estimate_h") is not None:
            out.append(f"{row['device']}: {1e3 * row['s_per_step']:.1f} ms per step of a group, "
                       f"{row['steps']:,} steps in {row['groups']} groups: about "
                       + (f"{row['estimate_h']:.0f} hours " if row["estimate_h"] >= 2 else
                          f"{max(1, round(60 * row['estimate_h']))} "
                          f"minute{'' if round(60 * row['estimate_h']) <= 1 else 's'} ")
                       +
                       "(estimated from its first and last groups)")
    return "; ".join(out) or "no measured cost yet (python -m lib.bench paper-cost --save on a GPU)"


# ----------------------------------------------------------------------------- from a log
_COST_ROW = re.compile(r"^\s+(?P<sweep>\w+\.\w+)\s+(?P<groups>\d+) groups\s+(?P<steps>\d+) steps\s+(?P<ms>[\d.]+) ms/step"
                       r"\s+setup\s+(?P<setup>[\d.]+)s\s+~(?P<hours>[\d.?]+) h")
_COST_FAIL = re.compile(r"^\s+(?P<sweep>\w+\.\w+)\s+FAILED after (?P<wall>\d+)s: (?P<error>.*)$")


def records_from_log(text: str) -> list[dict]:
    """The ``suite`` and ``paper_cost`` records that ``tests/gpu/run.sh`` printed, read back from
    its log (for a run whose saved files did not come back): the suite's record is printed whole
    as JSON; paper-cost rows are printed rounded (0.1 ms, 0.1 s, 0.01 h), and are kept so, with
    ``"from_log": true``."""
    out = []
    start = text.find('{\n "what": "suite"')
    if start >= 0:
        depth = 0
        for i in range(start, len(text)):
            depth += {"{": 1, "}": -1}.get(text[i], 0)
            if depth == 0:
                out.append(dict(json.loads(text[start:i + 1]), from_log=True))
                break
    rows = []
    for line in text.splitlines():
        if (m := _COST_ROW.match(line)):
            hours = None if m["hours"] == "?" else float(m["hours"])
            rows.append({"sweep": m["sweep"], "groups": int(m["groups"]), "steps": int(m["steps"]),
                         "s_per_step": float(m["ms"]) / 1e3, "setup_s": float(m["setup"]), "estimate_h": hours})
        elif (m := _COST_FAIL.match(line)):
            rows.append({"sweep": m["sweep"], "error": m["error"].strip(), "probe_wall_s": float(m["wall"])})
    if rows:
        out.append({"what": "paper_cost", "members": 0, "steps": None, "sweeps": rows, "from_log": True})
    return out


# ----------------------------------------------------------------------------- saving
def save(record: dict, device, *, device_label: str | None = None, torch_version: str | None = None,
         threads: int | None = None) -> str:
    """Append ``record`` to ``data/bench/<device>.json`` with the device and provenance
    (``device_label``, ``torch_version`` and ``threads`` name another machine's, for records
    read from its log)."""
    from .results import code_record, data_dir

    label = device_label or device_name(device)
    name = re.sub(r"[^a-z0-9]+", "-", label.lower()).strip("-")[:60]
    path = data_dir() / "bench" / f"{name}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    stored = json.loads(path.read_text()) if path.exists() else {"device": label, "runs": []}
    if record["what"] == "paper_cost":  # rows of earlier calls (other sweeps) are kept, by sweep
        earlier = next((r for r in stored["runs"] if r["what"] == "paper_cost"), {"sweeps": []})
        mine = {row["sweep"] for row in record["sweeps"]}
        record = dict(record, sweeps=[r for r in earlier["sweeps"] if r["sweep"] not in mine] + record["sweeps"])
    stored["runs"] = [r for r in stored["runs"] if r["what"] != record["what"]] + [{
        **record, "torch": torch_version or torch.__version__, "threads": threads or torch.get_num_threads(),
        **code_record("lib.bench")}]
    path.write_text(json.dumps(stored, indent=1) + "\n")
    return str(path)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m lib.bench", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("which", choices=["ensemble", "memorization", "sweep", "paper-cost", "suite", "from-log",
                                          "anatomy", "side-by-side", "allocator", "generation"])
    parser.add_argument("--workers", type=int, default=2, help="side-by-side: single-thread runs at the same time")
    parser.add_argument("--log", default=None, help="from-log: a tests/gpu/run.sh log whose saved files were lost")
    parser.add_argument("--commit", default=None, help="from-log: the commit the logged run ran at")
    parser.add_argument("--only", nargs="*", default=None, help="paper-cost: only these sweeps (keys or names)")
    parser.add_argument("--probe", type=int, default=20, help="paper-cost: steps of the shorter probe run")
    parser.add_argument("--limit", type=float, default=None, help="paper-cost: seconds at most per sweep")
    parser.add_argument("--skip", nargs="*", default=(), help="paper-cost: leave these sweeps (or papers) out")
    parser.add_argument("--paper", action="store_true", help="sweep: the paper's sizes (d=64, T=10k, H up to 60)")
    parser.add_argument("--members", type=int, default=16)
    parser.add_argument("--memorization-steps", type=int, default=2000, help="suite: steps of the memorization group")
    parser.add_argument("--paper-group-steps", type=int, default=200, help="suite: steps of Figure 2a's paper group "
                                                                          "(0: skip it)")
    parser.add_argument("--no-compile", action="store_true", help="suite: skip the torch.compile'd plain loop")
    parser.add_argument("--steps", type=int, default=100)
    parser.add_argument("--repeats", type=int, default=1, help="generation: best of this many timings")
    parser.add_argument("--device", default=None)
    parser.add_argument("--threads", type=int, default=None, help="torch CPU threads (default: torch's choice)")
    parser.add_argument("--save", action="store_true", help="add the result to data/bench/<device>.json")
    args = parser.parse_args(argv)
    if args.members < 1 or args.steps < 1 or args.repeats < 1:
        parser.error("--members, --steps and --repeats must be positive")
    if args.threads:
        torch.set_num_threads(args.threads)
    if args.which == "from-log":
        if not args.log or not args.commit:
            parser.error("from-log needs --log PATH and --commit COMMIT")
        text = open(args.log, encoding="utf-8").read()
        device_line = re.search(r"^device: (.+?)  \(torch", text, re.M)
        torch_line = re.search(r"^torch (\S+) cuda", text, re.M)
        threads = re.search(r"threads: (\d+)\)", text)
        if not device_line or not torch_line:
            parser.error(f"{args.log}: no 'device:' or 'torch ...' line; not a tests/gpu/run.sh log")
        os.environ["ABC_GIT_COMMIT"] = args.commit
        for record in records_from_log(text):
            record["log"] = os.path.relpath(args.log)
            print(f"{record['what']}: saved to " + save(record, None, device_label=device_line[1],
                                                        torch_version=torch_line[1],
                                                        threads=int(threads[1]) if threads else None))
        return 0
    device = pick_device(args.device)
    if args.which == "paper-cost":
        print(f"device: {device_name(device)}  (torch threads: {torch.get_num_threads()})")
        r = paper_cost(args.only, args.probe, device, args.limit,
                       on_row=(lambda record: save(record, device)) if args.save else None, skip=args.skip)
        if args.save:
            print(f"saved to {save(r, device)}")
        return 0
    if args.which == "suite":
        r = suite(device, args.steps, memorization_steps=args.memorization_steps,
                  paper_group_steps=args.paper_group_steps, compile_plain=not args.no_compile)
        print(f"device: {device_name(device)}  (torch {torch.__version__}, threads: {torch.get_num_threads()})")
        print(json.dumps(r, indent=1))
        if args.save:
            print(f"saved to {save(r, device)}")
        return 0
    if args.which == "side-by-side":
        if args.workers < 1:
            parser.error("--workers must be positive")
        r = side_by_side(args.members, args.steps, args.workers)
        print(f"device: {device_name('cpu')}  (torch {torch.__version__}, threads here: {torch.get_num_threads()})")
        print(f"float32 matmul: {r['matmul_gflop_s']:.0f} GFLOP/s; bench model: {r['bench_flop_per_step'] / 1e9:.3f} "
              f"GFLOP per step; K = {r['members']}, {r['steps']} steps")
        for key, rate in r["model_steps_per_s"].items():
            print(f"  {key:26s} {rate:8.0f} model-steps/s ({r['fraction_of_peak'][key]:.1%} of the matmul rate)")
        if args.save:
            print(f"saved to {save(r, torch.device('cpu'))}")
        return 0
    if args.which == "allocator":
        r = allocator_effect(args.steps)
        print(f"device: {device_name('cpu')}  (torch {torch.__version__}, 2 threads); memorization d = 64, H = 4, "
              f"T = 2000, five seeds, {r['steps']} steps")
        for malloc, run in r["runs"].items():
            print(f"  {malloc:7s} (kept freed memory: {run['kept']!s:5s}) {run['wall_s']:7.2f} s, "
                  f"peak {run['peak_rss_mib']:,.0f} MiB")
        print(f"  {r['speed_up']:.2f}x; accuracies {'identical' if r['same_numbers'] else 'DIFFERENT'}")
        if args.save:
            print(f"saved to {save(r, torch.device('cpu'))}")
        return 0
    if args.which == "generation":
        r = generation_benchmark(args.repeats)
        print(f"device: {device_name('cpu')}  (torch {torch.__version__}, threads: {torch.get_num_threads()}); "
              f"{r['prompts']} prompts completed to {r['length']} tokens ({r['generated_tokens']:,} tokens)")
        for name, wall in r["wall_s"].items():
            print(f"  {name:10s} {wall:7.2f} s  {r['tokens_per_s'][name]:9,.0f} tokens/s")
        print(f"  {r['speed_up']:.1f}x; tokens {'identical' if r['same_tokens'] else 'DIFFERENT'}")
        if args.save:
            print(f"saved to {save(r, torch.device('cpu'))}")
        return 0
    if args.which == "anatomy":
        peak = matmul_rate(device)
        r = step_anatomy(args.members, args.steps, device)
        print(f"device: {device_name(device)}  (torch threads: {torch.get_num_threads()})")
        print(f"float32 matmul: {peak:.0f} GFLOP/s; trainer, K = {r['members']}, {r['steps']} steps: "
              f"{r['product_share']:.0%} of kernel time in matrix products, at {r['product_gflop_s']:.0f} GFLOP/s "
              f"({r['product_gflop_s'] / peak:.0%} of the matmul rate)")
        for k, t in r["largest_other_kernels_s"].items():
            print(f"  {k:40s} {t:8.3f} s")
        if args.save:
            print(f"saved to {save(dict(r, what='anatomy', matmul_gflop_s=peak), device)}")
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
