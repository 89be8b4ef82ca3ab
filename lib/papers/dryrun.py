"""``python -m lib.papers dryrun [NAME ...]``: every paper-scale sweep checked on the CPU before a
GPU is spent on it.

For each sweep of :func:`lib.papers.queue.ordered_sweeps` (all five papers and the course):

1. its paper-scale config and grid are defined (a config that cannot exist, e.g. more distinct
   Dyck words than there are, fails here or when its data is built, with the library's message);
2. its first and its last group (the grids list their sizes in increasing order, so the last is
   the largest) run up to their first call of the trainer (:func:`lib.train.train`): the data is
   built at the true size, on the host, and the trainer's arguments are read instead of training:
   members K, parameters per member, the bytes of every tensor the trainer puts on the device
   (weights, gradients and two Adam moments of K members; the training set or a task's pre-drawn
   batches; the evaluation sets; the activations one step saves for its backward pass, counted
   with :func:`torch.autograd.graph.saved_tensors_hooks` on one member and multiplied by K) and
   the FLOPs of one step (forward and backward of one member on one batch, counted with
   :class:`torch.utils.flop_counter.FlopCounterMode` (matrix products; element-wise work is not
   counted), times K);
3. the cheaper of the two groups runs for real, :data:`STEPS` steps of every training it holds
   (:func:`lib.train.step_limit`), within :data:`STEP_LIMIT_S` seconds (else the table says it was
   skipped, and why);
4. the time of the whole sweep is estimated on an H100 and on a Colab T4 from its FLOPs: its
   steps (each group's step budget, summed) times the mean step time of its first and last groups
   (:func:`group_step_s`: a group's trainings run one after the other; the real steps count them,
   and a probed group is taken to hold as many as the stepped one). This is an upper bound for
   sweeps that stop early, and evaluations come on top. Where ``data/bench/`` holds a measured H100 cost of the sweep
   (``python -m lib.bench paper-cost --save``), from that measurement (marked ``m``).

Each sweep runs in its own process (so its peak host memory, ``ru_maxrss``, is its own). A sweep
that cannot run (data that cannot exist, memory beyond the cap or beyond an H100) is reported
``INFEASIBLE`` with its message, and the command exits with status 1 after printing the table.
"""
from __future__ import annotations

import contextlib
import json
import os
import resource
import subprocess
import sys
import time
from dataclasses import asdict, dataclass, field

import torch

from .. import validate
from ..bench import TimeLimit, time_limit

#: float32 peak rates (dense, no tensor cores: the book trains in float32 without TF32).
#: H100 SXM5: 67 TFLOP/s FP32 (NVIDIA H100 Tensor Core GPU datasheet, 2023, "FP32 67 teraFLOPS");
#: T4: 8.1 TFLOP/s FP32 (NVIDIA T4 datasheet, 2019, "Single-Precision 8.1 TFLOPS")
PEAK_FLOP_S = {"H100": 67e12, "T4": 8.1e12}
#: the fraction of that peak assumed: the trainer reached 1.7% (K = 16) to 4.1% (K = 256) of the
#: measured matmul rate on an H100 for the bench model (``data/bench/nvidia-h100-80gb-hbm3.json``,
#: suite run ``fraction_of_peak``); 2% is taken for both cards
FRACTION = 0.02
#: the least time of one step whatever its FLOPs (launch-bound small models): the trainer with one
#: member ran 1,276 steps/s on the H100 (same file, ``trainer_1``); the T4 (a slower host in Colab)
#: is taken at 1.5 ms, an assumption, not a measurement
STEP_FLOOR_S = {"H100": 1 / 1276, "T4": 1.5e-3}
#: device memory: H100 80 GB; T4 16 GB (15 GiB usable as Colab reports it)
DEVICE_BYTES = {"H100": 80e9, "T4": 15 * 2**30}
#: the address space of one sweep's dry-run process (``python -m lib.papers dryrun``): the library's
#: default memory cap per call (16 GiB, :func:`lib.validate.memory_cap`) plus about 2 GiB for torch;
#: ``--host-gib`` (``ABC_DRYRUN_HOST_GB``) sets another, on a machine with more memory
HOST_LIMIT_BYTES = int(float(os.environ.get("ABC_DRYRUN_HOST_GB", "18")) * 2**30)
STEPS = 2  # real steps of the cheapest group
STEP_LIMIT_S = 30.0  # seconds at most for the real steps of one sweep on this CPU
PROBE_LIMIT_S = 45.0  # seconds at most to build one group's data and read its trainer call
_OVER = "over {seconds:.0f} s on this CPU"  # how a time limit reads in the table


def probe_limit_s() -> float:
    """:data:`PROBE_LIMIT_S`, or the seconds ``ABC_DRYRUN_BUILD_S`` gives (``--build-s``: a sweep
    whose data takes minutes to build, checked on purpose)."""
    value = os.environ.get("ABC_DRYRUN_BUILD_S")
    return PROBE_LIMIT_S if value is None else validate.real("dryrun", "ABC_DRYRUN_BUILD_S", float(value), above=0.0)


class _Probed(Exception):
    """Raised by the intercepted trainer once it has read its arguments (probe mode)."""


@dataclass
class Call:
    """What one call of the trainer materialises, and its cost per step."""

    members: int
    params: int  # per member
    family: str
    batch_rows: int  # examples per member per step
    state_bytes: int  # weights, gradients, two Adam moments of every member
    data_bytes: int  # the training set (or a task's pre-drawn batches) on the device
    eval_bytes: int
    activation_bytes: int  # saved for backward, all members
    flops: int  # one step, all members

    @property
    def device_bytes(self) -> int:
        return self.state_bytes + self.data_bytes + self.eval_bytes + self.activation_bytes


@dataclass
class Row:
    """One sweep's line of the table."""

    sweep: str
    groups: int = 0
    points: int = 0
    steps: int | None = None  # the sum over groups of each group's step budget
    first: list = field(default_factory=list)  # Calls of the first group (its first trainer call, or all)
    largest: list = field(default_factory=list)  # Calls of the last group
    trainings: int = 1  # trainings per group (one after the other), counted in the real steps
    host_peak_bytes: int = 0
    step: str = ""  # what the real steps did
    estimate_h: dict = field(default_factory=dict)  # card -> hours
    measured: dict = field(default_factory=dict)  # card -> hours measured (lib.bench.measured_costs)
    error: str = ""  # INFEASIBLE: why

    @property
    def ok(self) -> bool:
        return not self.error


# ----------------------------------------------------------------------------- reading the trainer's call
def _bytes(t: torch.Tensor) -> int:
    return t.numel() * t.element_size()


def _sample(data, rows: int | None):
    """One member's batch of ``rows`` examples (all of a fixed set if None)."""
    from ..tasks.base import Batch, Task

    if isinstance(data, Task):
        return data.sample(rows or 1, seed=0)
    first = data[0] if isinstance(data, (list, tuple)) else data
    return first if rows is None else Batch(first.x[:rows], first.y[:rows])


def read_call(model, seeds, config, data, evals=None, dtype=None) -> Call:
    """The :class:`Call` of ``lib.train.train(model, seeds, config, data, evals, dtype=dtype)``,
    with one member built on the CPU and one step of it counted (:func:`one_step`)."""
    from ..models import build_model
    from ..tasks.base import Batch, Task
    from ..train import _Source

    K = len(seeds)
    one = model[0] if isinstance(model, (list, tuple)) else model
    module = build_model(one, seed=seeds[0]) if hasattr(one, "model_class") else one(seeds[0])
    if dtype is not None:
        module = module.to(dtype)
    n_params = sum(p.numel() for p in module.parameters())
    size = max((p.element_size() for p in module.parameters()), default=4)
    batch = _sample(data, config.batch_size)
    row = _bytes(batch.x) // max(1, len(batch)) + _bytes(batch.y) // max(1, len(batch))
    if isinstance(data, Task):
        data_bytes = min(_Source.CHUNK_BYTES, K * row * len(batch) * config.eval_every)
    elif isinstance(data, Batch):
        data_bytes = _bytes(data.x) + _bytes(data.y)  # shared by the members (expanded, not copied)
    else:
        data_bytes = sum(_bytes(b.x) + _bytes(b.y) for b in data)
    eval_bytes = 0
    for item in (evals or {}).values():
        if isinstance(item, Task):
            eval_bytes += K * row * config.eval_size
        elif isinstance(item, Batch):
            eval_bytes += _bytes(item.x) + _bytes(item.y)
        else:
            eval_bytes += sum(_bytes(b.x) + _bytes(b.y) for b in item)
    x, y = batch.x, batch.y
    if dtype is not None and x.is_floating_point():
        x = x.to(dtype)
    n = len(batch)
    if n > 3:  # cost is affine in the rows: measured at 2 and 3, so a large batch is never built on the host
        (saved2, flops2), (saved3, flops3) = (one_step(module, x[:r], y[:r], config.loss) for r in (2, 3))
        saved_bytes, flops = saved2 + (saved3 - saved2) * (n - 2), flops2 + (flops3 - flops2) * (n - 2)
    else:
        saved_bytes, flops = one_step(module, x, y, config.loss)
    return Call(members=K, params=n_params, family=type(module).__name__, batch_rows=len(batch),
                state_bytes=4 * K * n_params * size, data_bytes=int(data_bytes), eval_bytes=int(eval_bytes),
                activation_bytes=K * saved_bytes, flops=K * flops)


def one_step(module, x, y, loss: str) -> tuple[int, int]:
    """The bytes ``module`` saves for its backward pass (its own parameters left out) and the FLOPs
    of its forward and backward pass on the batch ``(x, y)``. :func:`read_call` measures them at
    2 and 3 rows and extrapolates: both are affine in the rows (``tests/test_dryrun.py``; at 1 row a
    Mamba block saves less than the line through 2 and 3)."""
    from torch.utils.flop_counter import FlopCounterMode

    from ..train import loss_and_correct

    own = {p.data_ptr() for p in module.parameters()}
    saved: dict[int, int] = {}

    def pack(t):
        if t.device.type != "meta" and t.data_ptr() not in own:
            saved[t.data_ptr()] = max(saved.get(t.data_ptr(), 0), _bytes(t))
        return t

    with FlopCounterMode(display=False) as counter:
        with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
            value, _, _ = loss_and_correct(module(x)[None], y[None], loss)
        value.sum().backward()
    module.zero_grad(set_to_none=True)
    return sum(saved.values()), int(counter.get_total_flops())


@contextlib.contextmanager
def intercept(calls: list, probe: bool):
    """Within this block every call of :func:`lib.train.train` (also through the names papers
    imported it under) appends its :class:`Call` to ``calls``; with ``probe`` it then raises
    :class:`_Probed` instead of training, else it trains as usual."""
    from .. import train as _train

    original = _train.train

    def wrapper(model, seeds, config, data, evals=None, **kwargs):
        calls.append(read_call(model, list(seeds), config, data, evals, kwargs.get("dtype")))
        if probe:
            raise _Probed
        return original(model, seeds, config, data, evals, **kwargs)

    patched = [m for name, m in list(sys.modules.items())
               if (name == "lib" or name.startswith("lib.")) and getattr(m, "train", None) is original]
    for m in patched:
        m.train = wrapper
    try:
        yield
    finally:
        for m in patched:
            m.train = original


def _probe(sweep, config, group) -> list[Call]:
    """Build ``group``'s data at the true size and read its first trainer call (none: the group
    does not train, e.g. a closed form)."""
    calls: list[Call] = []
    with intercept(calls, probe=True), time_limit(probe_limit_s(), _OVER):
        try:
            sweep.run(config, group, scale="paper", device=torch.device("cpu"), stop_after=None)
        except _Probed:
            pass
    return calls


# ----------------------------------------------------------------------------- estimates
def step_s(flops: float, card: str) -> float:
    """Seconds of one step of ``flops`` on ``card``: the FLOPs at :data:`FRACTION` of its peak,
    and at least :data:`STEP_FLOOR_S`."""
    return max(STEP_FLOOR_S[card], flops / (FRACTION * PEAK_FLOP_S[card]))


def group_step_s(calls: list[Call], card: str, trainings: int = 1) -> float:
    """Seconds of one step of a group on ``card``: the step times of its trainings (they run one
    after the other), ``trainings`` times the first one's where only the first was read."""
    if trainings > len(calls) and len(calls) == 1:
        return trainings * step_s(calls[0].flops, card)
    return sum(step_s(c.flops, card) for c in calls)


def _group_flops(calls: list[Call], trainings: int = 1) -> int:
    if trainings > len(calls) and len(calls) == 1:
        return trainings * calls[0].flops
    return sum(c.flops for c in calls)


def _measured(label: str) -> dict:
    from ..bench import measured_costs

    out = {}
    for row in measured_costs(label):
        if row.get("estimate_h") is not None and "H100" in str(row.get("device", "")).upper():
            out["H100"] = float(row["estimate_h"])
    return out


# ----------------------------------------------------------------------------- one sweep
def _failure(error: Exception, where: str = "") -> str:
    """A failure's line: ``INFEASIBLE`` for the library's refusals (a ValueError: data that cannot
    exist, memory beyond the cap), ``FAILED`` for anything else (a bug)."""
    if isinstance(error, MemoryError) or "can't allocate memory" in str(error):  # numpy; torch's CPU allocator
        return (f"INFEASIBLE{where}: MemoryError: the data would not fit in the dry run's "
                f"{HOST_LIMIT_BYTES / 2**30:.0f} GiB of host memory")
    kind = "INFEASIBLE" if isinstance(error, ValueError) and not isinstance(error, TypeError) else "FAILED"
    return f"{kind}{where}: {type(error).__name__}: {error}"


def dry_run(sweep, *, step: bool = True) -> Row:
    """The dry run of one paper-scale :class:`~lib.results.Sweep` (see the module docstring);
    never raises for the sweep's own failures: they go to :attr:`Row.error`."""
    from ..bench import _budget
    from ..results import Sweep, _groups
    from ..train import step_limit

    validate.instance("dry_run", "sweep", sweep, Sweep)
    validate.boolean("dry_run", "step", step)
    row = Row(f"{sweep.paper}.{sweep.key}", measured=_measured(f"{sweep.paper}.{sweep.key}"))
    try:
        config, grid = sweep.define("paper")
        groups = _groups(grid, sweep.group_by)
        row.groups, row.points = len(groups), len(grid)
        budgets = [[_budget(sweep, config, p) for p in g] for g in groups]
        if all(b is not None for bs in budgets for b in bs):
            row.steps = sum(max(bs) for bs in budgets)
        row.first = _probe(sweep, config, groups[0])
        row.largest = _probe(sweep, config, groups[-1]) if len(groups) > 1 else list(row.first)
    except TimeLimit as error:
        row.error = f"NOT CHECKED: building a group's data up to its trainer call ran {error}"
    except Exception as error:  # noqa: BLE001 - one row per sweep, whatever happens
        row.error = _failure(error)
    row.host_peak_bytes = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    if row.ok:
        big = max(c.device_bytes for c in row.first + row.largest) if row.first + row.largest else 0
        if big > DEVICE_BYTES["H100"]:
            row.error = (f"INFEASIBLE: about {big / 2**30:.0f} GiB on the device for one training, more than an H100's "
                         f"{DEVICE_BYTES['H100'] / 2**30:.0f} GiB")
    if row.ok and step:
        cheap = groups[0] if _group_flops(row.first) <= _group_flops(row.largest) else groups[-1]
        calls: list[Call] = []
        start = time.perf_counter()
        try:
            with intercept(calls, probe=False), step_limit(STEPS), time_limit(STEP_LIMIT_S, _OVER):
                sweep.run(config, cheap, scale="paper", device=torch.device("cpu"), stop_after=None)
            which = "first" if cheap is groups[0] else "last"
            row.step = f"{which} group: {len(calls)} training(s) x {STEPS} steps in {time.perf_counter() - start:.2f} s"
            row.trainings = max(1, len(calls))
            if calls:
                row.first, row.largest = (calls, row.largest) if cheap is groups[0] else (row.first, calls)
                if len(groups) == 1:
                    row.largest = calls
        except TimeLimit as error:
            row.step = f"skipped: the cheaper group's {STEPS} steps ran {error}"
            row.trainings = max(1, len(calls))
        except Exception as error:  # noqa: BLE001
            row.error = _failure(error, " in the real steps")
        row.host_peak_bytes = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    if row.ok and row.steps is not None and (row.first or row.largest):
        row.estimate_h = {card: row.steps * (group_step_s(row.first, card, row.trainings) +
                                             group_step_s(row.largest, card, row.trainings)) / 2 / 3600
                          for card in PEAK_FLOP_S}
    return row


# ----------------------------------------------------------------------------- the table
def _si(x: float | None, unit: str = "") -> str:
    if x is None:
        return "?"
    for scale, prefix in ((1e15, "P"), (1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k")):
        if abs(x) >= scale:
            return f"{x / scale:.3g}{prefix}{unit}"
    return f"{x:.3g}{unit}"


def _hours(h: float | None) -> str:
    if h is None:
        return "?"
    return f"{h:.1f} h" if h >= 1 else f"{max(1, round(60 * h))} min"


def table(rows: list[Row]) -> str:
    """The dry run as a markdown table (one line per sweep) and the failures' messages below."""
    head = ("| sweep | groups | K first/last | trainings | steps | params | FLOP/step | host peak | device | H100 | T4 "
            "| real steps on the CPU |")
    lines = [head, "|" + "---|" * (head.count("|") - 1)]
    for r in rows:
        calls = r.first + r.largest
        k = f"{r.first[0].members} / {r.largest[0].members}" if r.first and r.largest else "-"
        params = _si(max(c.params for c in calls)) if calls else "-"
        flops = _si(max(_group_flops(r.first, r.trainings), _group_flops(r.largest, r.trainings))) if calls else "-"
        device = f"{max(c.device_bytes for c in calls) / 2**30:.2f} GiB" if calls else "-"
        h100 = _hours(r.estimate_h.get("H100"))
        if "H100" in r.measured:
            h100 = f"{_hours(r.measured['H100'])} m ({h100})"
        t4 = _hours(r.estimate_h.get("T4"))
        if calls and max(c.device_bytes for c in calls) > DEVICE_BYTES["T4"]:
            t4 = "no (memory)"
        note = ("**" + r.error.split(":")[0] + "** (below)") if r.error else \
            (r.step or ("no training" if not calls else ""))
        steps = r.steps if r.steps is not None else "?"
        lines.append(f"| {r.sweep} | {r.groups} | {k} | {r.trainings} | {steps} | {params} | {flops} |"
                     f" {r.host_peak_bytes / 2**30:.2f} GiB | {device} | {h100} | {t4} | {note} |")
    failed = [r for r in rows if r.error]
    if failed:
        lines += ["", "Failed:"] + [f"- {r.sweep}: {r.error}" for r in failed]
    return "\n".join(lines)


def _child(label: str, step: bool) -> None:
    """Run one sweep's dry run and print its :class:`Row` as JSON (the subprocess' entry), its
    address space limited to :data:`HOST_LIMIT_BYTES` (a sweep whose data would not fit fails
    with a MemoryError instead of exhausting the machine)."""
    from .queue import ordered_sweeps

    with contextlib.suppress(ValueError, OSError):
        resource.setrlimit(resource.RLIMIT_AS, (HOST_LIMIT_BYTES, HOST_LIMIT_BYTES))

    (sweep,) = ordered_sweeps([label])
    row = dry_run(sweep, step=step)
    print("DRYRUN " + json.dumps(asdict(row)), flush=True)


def rows_json(rows: list[Row]) -> str:
    """The rows as JSON (``--save-rows``), read back by :func:`rows_from_json`."""
    return json.dumps([asdict(r) for r in rows], indent=1)


def rows_from_json(text: str) -> list[Row]:
    return [_row(r) for r in json.loads(text)]


def _row(data: dict) -> Row:
    data = dict(data)
    data["first"] = [Call(**c) for c in data["first"]]
    data["largest"] = [Call(**c) for c in data["largest"]]
    return Row(**data)


def run_all(names=None, *, step: bool = True, log=None, on_row=None) -> list[Row]:
    """:func:`dry_run` of every sweep ``names`` selects (as the queue reads names), each in its own
    process (its own peak memory, and a sweep that crashes the interpreter is one failed row);
    ``on_row(rows)`` is called after each sweep with the rows so far (to save as it goes)."""
    from .queue import ordered_sweeps

    log = log or (lambda line: print(line, flush=True))
    rows = []
    limit = 2 * probe_limit_s() + STEP_LIMIT_S + 60
    for sweep in ordered_sweeps(names):
        label = f"{sweep.paper}.{sweep.key}"
        start = time.perf_counter()
        code = f"from lib.papers.dryrun import _child; _child({label!r}, {step!r})"
        env = dict(os.environ, OMP_WAIT_POLICY="PASSIVE")
        try:
            done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=limit, env=env)
            found = [line for line in done.stdout.splitlines() if line.startswith("DRYRUN ")]
            row = _row(json.loads(found[-1][7:])) if found else \
                Row(label, error=f"FAILED: crashed (exit {done.returncode}): {done.stderr.strip()[-300:]}")
        except subprocess.TimeoutExpired:
            row = Row(label, error=f"FAILED: over {limit:.0f} s on this CPU (killed)")
        log(f"[dryrun] {label}: {'ok' if row.ok else row.error[:160]} ({time.perf_counter() - start:.0f} s)")
        rows.append(row)
        if on_row is not None:
            on_row(rows)
    return rows


def footnote() -> str:
    """How the estimates are made (printed under the table)."""
    return (f"H100 and T4 times: the sweep's steps x the mean step time of its first and last groups, each step "
            f"max({1e3 * STEP_FLOOR_S['H100']:.2f} ms resp. {1e3 * STEP_FLOOR_S['T4']:.1f} ms, FLOPs / ({FRACTION:.0%} "
            f"of {PEAK_FLOP_S['H100'] / 1e12:.0f} resp. {PEAK_FLOP_S['T4'] / 1e12:.1f} TFLOP/s float32)); 'm': measured "
            "on an H100 (lib.bench paper-cost), the FLOP estimate in brackets. "
            "FLOPs: matrix products counted by torch.utils.flop_counter. "
            "device: weights, gradients, Adam moments, data, evaluation sets and saved activations of the largest "
            "training; host peak: the dry run's own peak RSS (data built at the true size). "
            f"T4 'no (memory)': over {DEVICE_BYTES['T4'] / 2**30:.0f} GiB.")
