"""Attention by Construction: the library behind the book.

Shared infrastructure at the top (each small, each reused by every chapter):

- :mod:`lib.scale`          the three sizes of every experiment (smoke, default, paper)
- :mod:`lib.runtime`        device choice, seeding, the one setup call of every notebook
- :mod:`lib.train`          one trainer for ensembles of K models in a single batched pass
- :mod:`lib.results`        the results store under ``data/`` with provenance, named sweeps, verify
- :mod:`lib.claims`         the report card: each checked claim with a computed verdict, its evidence
- :mod:`lib.paper_setup`    a paper's stated setup as data, and a run's computed difference from it
- :mod:`lib.plots`          one figure style and the recurring plots
- :mod:`lib.bench`          throughput benchmarks of the trainer

Families, shared by every paper:

- :mod:`lib.models`         model families behind one interface (attention stack, MLP), ``build_model``
- :mod:`lib.tasks`          task generators by family (retrieval, templates, random labels)
- :mod:`lib.constructions`  reusable construction pieces (weight builder, copy/match/parse blocks)

One package per paper, imported only when asked for (keys as in :data:`lib.claims.PAPERS`):

- :mod:`lib.papers.course`       chapter 0's sweep
- :mod:`lib.papers.mahdavi2024`  memorization capacity of one multi-head attention layer
- :mod:`lib.papers.chen2024`     what 1, 2 and 3 attention layers can do
- :mod:`lib.papers.bhattamishra2024`  transformers vs recurrent models: constructions and lower bounds
- :mod:`lib.papers.boixadsera2024`    template tasks with abstract symbols, the transformer kernel
- :mod:`lib.papers.richard2024`  depth extrapolation on nested structures (Dyck, Boolean expressions)

Each paper's package holds its constructions, experiments (``sweeps.py``), the checks behind every
claim its chapters record (``checks.py``) and what the paper states about its trained experiments
(``setup.py``, compared field by field with what a result ran: :mod:`lib.paper_setup`).
"""
from __future__ import annotations

import os

# Tiny models on few cores run far slower when OpenMP threads spin-wait; this must be
# set before torch is first imported to take effect.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

from .runtime import pick_device, seed_everything, setup_notebook  # noqa: E402


def lazy_exports(package: str, exports: dict[str, str]):
    """``(__getattr__, __dir__)`` for a package that imports each name of ``exports`` from the
    submodule it maps to when the name is first used (PEP 562). :func:`lib.results.lib_closure`
    reads the same ``_EXPORTS`` table, so provenance follows a name to its submodule."""
    import importlib
    import sys

    def __getattr__(name: str):
        if name in exports:
            return getattr(importlib.import_module(f".{exports[name]}", package), name)
        raise AttributeError(f"module {package!r} has no attribute {name!r}")

    def __dir__() -> list[str]:
        return sorted(set(vars(sys.modules[package])) | set(exports))

    return __getattr__, __dir__


__all__ = ["lazy_exports", "pick_device", "seed_everything", "setup_notebook"]
__version__ = "0.1.0"
