"""Attention by Construction: the library behind the book.

Modules (each small, each reused by every chapter):

- :mod:`lib.scale`         the three sizes of every experiment (smoke, default, paper)
- :mod:`lib.tasks`         deterministic task generators with vocabularies and splits
- :mod:`lib.models`        one configurable attention stack, weights readable/settable by name
- :mod:`lib.constructions` closed-form weights loaded into that same stack
- :mod:`lib.train`         one trainer for ensembles of K models in a single batched pass
- :mod:`lib.results`       the results store under ``data/`` with provenance
- :mod:`lib.claims`        the report card: each checked claim with a computed verdict
- :mod:`lib.plots`         one figure style and the recurring plots
"""
from __future__ import annotations

import os

# Tiny models on few cores run far slower when OpenMP threads spin-wait; this must be
# set before torch is first imported to take effect.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

from .runtime import pick_device, seed_everything, setup_notebook  # noqa: E402

__all__ = ["pick_device", "seed_everything", "setup_notebook"]
__version__ = "0.1.0"
