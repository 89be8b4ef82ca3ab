"""The three sizes of every experiment, chosen by one environment variable.

========  ==========================================================================
smoke     what ``pytest --nbmake chapters`` runs by default: seconds per notebook, CPU
default   a person running a notebook on a laptop CPU: live demos in minutes; heavy
          sweeps are loaded from ``data/`` where results exist
paper     the paper's own sizes, for a GPU; writes its results to ``data/``
========  ==========================================================================

Set ``ABC_SCALE`` to one of these (unset means ``default``; the test suite's
``conftest.py`` sets ``smoke``). Any other value is an error, so a typo never silently
runs the wrong size.
"""
from __future__ import annotations

import os
from typing import TypeVar

ENV_VAR = "ABC_SCALE"
SCALES = ("smoke", "default", "paper")
T = TypeVar("T")


def current() -> str:
    """The scale this process runs at, read from ``ABC_SCALE`` (default ``default``)."""
    value = os.environ.get(ENV_VAR, "default").strip().lower()
    return validate(value)


def validate(value: str) -> str:
    if value not in SCALES:
        raise ValueError(f"{ENV_VAR}={value!r} is not a scale; choose one of {', '.join(SCALES)}")
    return value


def pick(*, smoke: T, default: T, paper: T, scale: str | None = None) -> T:
    """Return the value for the current scale: ``pick(smoke=10, default=200, paper=5000)``."""
    chosen = validate(scale) if scale is not None else current()
    return {"smoke": smoke, "default": default, "paper": paper}[chosen]


def at(scale: str, smoke: T, default: T, paper: T) -> T:
    """:func:`pick` for a given scale, positionally, as the sweeps' definitions read it:
    ``at(scale, 2, 3, 5)`` is 2 seeds at smoke scale, 3 at default and 5 at paper."""
    return pick(smoke=smoke, default=default, paper=paper, scale=scale)


def rank(value: str) -> int:
    """Order of scales, smallest first: smoke < default < paper."""
    return SCALES.index(validate(value))
