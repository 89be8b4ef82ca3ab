"""``python -m lib.papers queue --budget SECONDS [NAME ...]``: the paper-scale queue
(:mod:`lib.papers.queue`); ``python -m lib.papers status [NAME ...]``: how far each paper-scale
sweep has got, without running anything; ``python -m lib.papers dryrun [NAME ...]``: every
paper-scale sweep checked on the CPU (data, memory, models, FLOPs, one real step, H100 and T4
estimates; :mod:`lib.papers.dryrun`), exit status 1 if one cannot run."""
from __future__ import annotations

import argparse
import math
import os
import sys


def main(argv=None) -> int:
    from . import queue

    parser = argparse.ArgumentParser(prog="python -m lib.papers", description=__doc__)
    parser.add_argument("command", choices=["queue", "status", "dryrun"])
    parser.add_argument("names", nargs="*", help="papers (e.g. chen2024) or sweeps (chen2024.figure2_paper_sizes); "
                                                 "default: all, in the queue's priority")
    parser.add_argument("--budget", type=float, default=None, help="queue: seconds to spend (required)")
    parser.add_argument("--margin", type=float, default=0.0,
                        help="queue: stop trainings this many seconds before the budget ends (for saving)")
    parser.add_argument("--per-sweep", type=float, default=None,
                        help="queue: seconds at most per sweep, then the next one (default: no cap)")
    parser.add_argument("--device", default=None)
    parser.add_argument("--engine", choices=["local", "processes", "ray"], default="local",
                        help="queue: run each group here (default), in single-thread processes of this CPU, two side "
                             "by side, or as one Ray task with a GPU (lib.papers.engines)")
    parser.add_argument("--no-step", action="store_true", help="dryrun: sizes and FLOPs only, no real training steps")
    parser.add_argument("--save-rows", default=None, help="dryrun: also write the rows as JSON to this file")
    parser.add_argument("--host-gib", type=float, default=None,
                        help="dryrun: host memory each sweep may use (default 18 GiB; more where the machine has it)")
    parser.add_argument("--build-s", type=float, default=None,
                        help="dryrun: seconds each group's data may take to build (default 45)")
    args = parser.parse_intermixed_args(argv)
    try:
        sweeps = queue.ordered_sweeps(args.names)
    except ValueError as error:
        parser.error(str(error))
    if args.command == "dryrun":
        if args.host_gib is not None:
            if not (args.host_gib > 0 and math.isfinite(args.host_gib)):
                parser.error("--host-gib must be a finite number of GiB > 0")
            os.environ["ABC_DRYRUN_HOST_GB"] = str(args.host_gib)  # read by each sweep's process
        if args.build_s is not None:
            if not (args.build_s > 0 and math.isfinite(args.build_s)):
                parser.error("--build-s must be a finite number of seconds > 0")
            os.environ["ABC_DRYRUN_BUILD_S"] = str(args.build_s)
        from . import dryrun

        def save(rows):
            with open(args.save_rows, "w", encoding="utf-8") as out:
                out.write(dryrun.rows_json(rows))

        rows = dryrun.run_all(args.names, step=not args.no_step, on_row=save if args.save_rows else None)
        print(dryrun.table(rows))
        print()
        print(dryrun.footnote(), flush=True)
        return 0 if all(r.ok for r in rows) else 1
    if args.command == "status":
        outcomes = []
        for sweep in sweeps:
            try:
                outcomes.append(queue.status(sweep))
            except Exception as error:  # noqa: BLE001 - a config that cannot be defined
                outcomes.append(queue.Outcome(f"{sweep.paper}.{sweep.key}", "failed",
                                              message=f"{type(error).__name__}: {error}"))
        print(queue.table(outcomes))
        return 0
    if args.budget is None or not (args.budget > 0 and math.isfinite(args.budget)):
        parser.error("queue needs --budget SECONDS > 0 (finite)")
    if not 0 <= args.margin < args.budget:
        parser.error("--margin must be in [0, budget)")
    if args.per_sweep is not None and not (args.per_sweep > 0 and math.isfinite(args.per_sweep)):
        parser.error("--per-sweep must be a finite number of seconds > 0")
    from ..runtime import pick_device

    outcomes = queue.run_queue(args.budget, args.names, per_sweep_s=args.per_sweep, device=pick_device(args.device),
                               margin_s=args.margin, engine=args.engine)
    print(queue.table(outcomes), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
