"""Engines that run a sweep's groups beyond this process: one Ray task per group, a GPU each,
or several single-thread processes of this machine (:class:`ProcessEngine`, no Ray needed).

The groups of a sweep (:func:`lib.results.run`, ``group_by``) are independent trainings, so a
machine with several GPUs, or a cluster of them, can run them side by side. Rather than a
scheduler of our own, :class:`RayEngine` hands them to `Ray <https://docs.ray.io>`_ (``pip
install ray``, or ``pip install -e .[ray]``): each group is one Ray task that asks for one GPU
(``num_gpus=1``, when the cluster has GPUs; one CPU otherwise) and calls the very function a
run here calls for it (:class:`lib.results.GroupJob`: the group's trainings inside
:func:`lib.train.checkpoints`). The driver gathers each finished group into the same results
file, in the order a run here stores its points, and saves after each; so the file holds the
numbers a run here gives (``tests/test_engines.py`` checks it on a local Ray cluster on the CPU),
its provenance names the engine, and an interrupted run resumes like any other.

Running here stays the default and needs nothing more: Ray is imported only when asked for.
``python -m lib.papers queue --engine ray --budget SECONDS`` starts a Ray instance on this machine
(all its GPUs), or joins the cluster named by ``$RAY_ADDRESS`` (``ray start --head`` on one
machine, ``ray start --address ...`` on the others). Inside the queue's budget each worker stops
its training at the first evaluation past the deadline and saves its state; checkpoints are
written under the driver's ``data/`` path on the worker's machine, so a stopped group resumes
where it stopped when the workers share that folder (one machine, or a shared disk), and
restarts from its beginning otherwise.
"""
from __future__ import annotations

import contextlib
import functools
import time

from .. import validate

ENGINES = ("local", "processes", "ray")


def require_ray():
    """The ``ray`` module, or an ImportError that says how to install it."""
    try:
        import ray
    except ImportError as error:
        raise ImportError("the Ray engine needs Ray, which is not installed: `pip install ray` (or `pip install "
                          "-e .[ray]` in this repository); without it, run with the default engine (local)") from error
    return ray


def _run_group_task(job, group: list[dict], deadline_at: float | None):
    """What one Ray task runs: ``job(group)`` (the function a run here calls for each group),
    under the driver's deadline if it has one (a wall-clock time: the worker may be another
    machine). Returns ``("done", (metrics, wall_s))``, or ``("spent", message)`` when the
    deadline stopped the group's training (its state is saved in its checkpoint)."""
    from ..allocator import keep_freed_memory
    from ..train import BudgetSpent, deadline

    keep_freed_memory()  # both engines' workers run every group through here (lib.allocator)
    budget = contextlib.nullcontext() if deadline_at is None else deadline(max(0.0, deadline_at - time.time()))
    try:
        with budget:
            return "done", job(group)
    except BudgetSpent as spent:
        return "spent", str(spent)


def _gathered(finished, n_groups: int):
    """What every engine's ``run_groups`` yields: ``(group, (metrics, wall_s))`` for each group of
    ``finished`` (pairs ``(group, get)``, ``get()`` returning :func:`_run_group_task`'s answer or
    raising the task's error) as it comes; after the last, raise the first error a task raised, or
    :class:`lib.train.BudgetSpent` if the deadline stopped some group (every finished group has
    been yielded, and so stored)."""
    from ..train import BudgetSpent

    spent, failure = [], None
    for group, get in finished:
        try:
            state, value = get()
        except Exception as error:  # noqa: BLE001 - gather the other groups, then raise the first
            failure = failure or error
            continue
        if state == "spent":
            spent.append(value)
        else:
            yield group, value
    if failure is not None:
        raise failure
    if spent:
        raise BudgetSpent(f"{len(spent)} of {n_groups} groups stopped at the deadline with their "
                          f"state saved ({spent[0]})")


def _worker_device(device: str) -> str:
    """The name of the device a task of this engine trains on (read on a worker)."""
    from ..runtime import device_name

    return device_name(device)


class RayEngine:
    """Runs each group of a sweep as one Ray task (see the module docstring).

    ``gpus_per_group``: GPUs each task asks for (default: 1 if the cluster has GPUs, else 0, and
    the task trains on the CPU); ``cpus_per_group``: CPUs each task asks for (Ray also sets the
    task's thread count to it). Ray is started on first use unless it already is (``ray.init()``,
    which joins ``$RAY_ADDRESS`` when set); ``init`` adds arguments to that call."""

    name = "ray"

    def __init__(self, gpus_per_group: float | None = None, cpus_per_group: float = 1.0, init: dict | None = None):
        if gpus_per_group is not None:
            validate.real("RayEngine", "gpus_per_group", gpus_per_group, minimum=0.0)
        validate.real("RayEngine", "cpus_per_group", cpus_per_group, above=0.0)
        if init is not None and not isinstance(init, dict):
            validate.fail("RayEngine", "init", "a dict of ray.init arguments", init, validate.ArgumentTypeError)
        self.ray = require_ray()
        self._gpus, self.cpus_per_group, self._init = gpus_per_group, float(cpus_per_group), dict(init or {})
        self._described = None

    def _start(self):
        if not self.ray.is_initialized():
            self.ray.init(**{"include_dashboard": False, "log_to_driver": True, **self._init})
        return self.ray

    @property
    def gpus_per_group(self) -> float:
        if self._gpus is None:
            self._gpus = 1.0 if self._start().cluster_resources().get("GPU", 0) > 0 else 0.0
        return self._gpus

    @property
    def worker_device(self) -> str:
        """The device each task trains on: its GPU (Ray makes it ``cuda``), or the CPU."""
        return "cuda" if self.gpus_per_group > 0 else "cpu"

    def _options(self) -> dict:
        return {"num_gpus": self.gpus_per_group, "num_cpus": self.cpus_per_group, "max_retries": 0}

    def describe(self) -> dict:
        """What the results file's provenance keeps of this engine: Ray's version, the cluster's
        resources, what each task asks for, and the device a task trains on (asked of a worker)."""
        if self._described is None:
            ray = self._start()
            probe = ray.remote(_worker_device).options(**self._options())
            resources = ray.cluster_resources()
            self._described = {"name": "ray", "ray": ray.__version__,
                               "cluster": {k: resources[k] for k in ("CPU", "GPU") if k in resources},
                               "gpus_per_group": self.gpus_per_group, "cpus_per_group": self.cpus_per_group,
                               "device": ray.get(probe.remote(self.worker_device))}
        return self._described

    def run_groups(self, job, groups: list[list[dict]]):
        """Submit one task per group, then yield ``(group, (metrics, wall_s))`` as each finishes.
        After the last, raise the first error a task raised, or :class:`lib.train.BudgetSpent` if
        the deadline stopped some group (every finished group has been yielded, and so stored)."""
        from ..train import time_left

        ray = self._start()
        left = time_left()
        deadline_at = None if left is None else time.time() + left
        task = ray.remote(_run_group_task).options(**self._options())
        job_ref = ray.put(job)
        pending = {task.remote(job_ref, group, deadline_at): group for group in groups}

        def finished():
            while pending:
                [ready], _ = ray.wait(list(pending), num_returns=1)
                yield pending.pop(ready), functools.partial(ray.get, ready)

        yield from _gathered(finished(), len(groups))


def _start_worker(threads: int) -> None:
    """Each :class:`ProcessEngine` worker, once: its torch thread count, set before it trains."""
    import torch

    torch.set_num_threads(threads)


class ProcessEngine:
    """Runs the groups of a sweep side by side in ``workers`` processes of this machine, each
    with ``threads`` torch threads (default: the cores shared out evenly, at least one).

    The book's models are small: their matrix products are too small to keep two cores busy,
    so one training per core does more work in the same time than one training on both
    (measured on a 2-core CPU, 150 steps of depth Figure 7's k = 4 group: one two-thread run takes
    8.1-8.4 s, one single-thread run 8.3 s, and two single-thread runs side by side 10.8-10.9 s
    each, 1.5x the trainings per second; ``python -m lib.bench side-by-side`` measures it on the
    bench model: 382 model-steps/s on two threads, 572 as two single-thread runs).
    Workers are started fresh (``spawn``: no torch state is forked) and reused for every group of
    the run. A worker's single-thread kernels may round differently from a two-thread run here;
    the provenance names the engine, its workers and their threads."""

    name = "processes"

    def __init__(self, workers: int = 2, threads: int | None = None):
        import os

        validate.integer("ProcessEngine", "workers", workers, 1)
        cores = os.cpu_count() or 1
        threads = max(1, cores // workers) if threads is None else threads
        validate.integer("ProcessEngine", "threads", threads, 1)
        self.workers, self.threads = workers, threads
        self.worker_device = "cpu"

    def describe(self) -> dict:
        """What the results file's provenance keeps of this engine."""
        from ..runtime import device_name

        return {"name": self.name, "workers": self.workers, "threads_per_worker": self.threads,
                "device": device_name("cpu")}

    def run_groups(self, job, groups: list[list[dict]]):
        """Start one task per group in the pool, then yield ``(group, (metrics, wall_s))`` as
        each finishes; after the last, raise as :meth:`RayEngine.run_groups` does."""
        import multiprocessing
        from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait

        from ..train import time_left

        left = time_left()
        deadline_at = None if left is None else time.time() + left
        with ProcessPoolExecutor(max_workers=min(self.workers, len(groups)) or 1,
                                 mp_context=multiprocessing.get_context("spawn"),
                                 initializer=_start_worker, initargs=(self.threads,)) as pool:
            pending = {pool.submit(_run_group_task, job, group, deadline_at): group for group in groups}

            def finished():
                while pending:
                    done, _ = wait(list(pending), return_when=FIRST_COMPLETED)
                    for future in done:
                        yield pending.pop(future), future.result

            yield from _gathered(finished(), len(groups))


def get(engine=None, **options):
    """The engine named ``engine`` ("local" or None: None, i.e. run here; "processes": a
    :class:`ProcessEngine`, "ray": a :class:`RayEngine`, each with ``options``); an engine object
    is returned as it is."""
    if engine is None or engine == "local":
        return None
    if engine == "processes":
        return ProcessEngine(**options)
    if engine == "ray":
        return RayEngine(**options)
    if isinstance(engine, str):
        validate.fail("engines.get", "engine", f"one of {', '.join(ENGINES)}", engine)
    if not callable(getattr(engine, "run_groups", None)) or not callable(getattr(engine, "describe", None)):
        validate.fail("engines.get", "engine", "an engine name or an object with run_groups() and describe()", engine,
                      validate.ArgumentTypeError)
    return engine
