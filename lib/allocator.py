"""Keep freed memory in the process: a CPU run's large activations without page faults.

glibc's ``malloc`` serves every request above its mmap threshold (which grows to at most 32 MiB)
with fresh pages from the kernel and hands them back on ``free``. A training step that allocates
an activation above that size therefore pays, on every step, a page fault and the kernel's
zeroing for every 4 KiB it touches. The memorization paper's d = 64 ensembles are such steps: the
embedded inputs of two members, ``(2, 2000, 33, 64)`` float32, are 34 MiB, and a plain ``add`` of
two of them took 25-30 ms, under 3 GB/s.

:func:`keep_freed_memory` sets ``M_MMAP_MAX = 0`` (every block comes from the heap) and
``M_TRIM_THRESHOLD`` to 1 GiB (freed heap is kept, up to that much above the top), so a step
reuses the pages of the step before. It changes where tensors live, not what is computed: one
group of each of 17 sweeps, run with and without it, gave the same numbers. The price is memory
the process keeps after a peak (measured: at most 23% higher peak RSS). :func:`lib.results.run` and
the process engine's workers call it before training; ``ABC_MALLOC=system`` leaves glibc's
defaults. Outside glibc (macOS, Windows, musl) it does nothing.

Measured on this project's 2-core CPU, whole sweep groups for a fixed number of steps: the d = 64
memorization groups 1.65-1.9x faster, depth Figure 7 at l = 5 1.37x, depth Figure 2 1.2x, the
rest of the book 1.0-1.26x (``python -m lib.bench allocator`` repeats the first).
"""
from __future__ import annotations

import ctypes
import ctypes.util
import os
import sys

M_TRIM_THRESHOLD = -1  # <malloc.h>
M_MMAP_MAX = -4
TRIM_THRESHOLD = 1 << 30

_applied: bool | None = None


def _libc():
    """glibc's shared library, or None where the C library is another one."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        libc.gnu_get_libc_version.restype = ctypes.c_char_p
        libc.gnu_get_libc_version()
    except (OSError, AttributeError):  # not glibc (musl has no gnu_get_libc_version)
        return None
    return libc


def keep_freed_memory() -> bool:
    """Make glibc keep freed memory for reuse (see the module docstring), once per process.
    Returns whether the setting is in effect; False outside glibc or with ``ABC_MALLOC=system``."""
    global _applied
    if _applied is not None:
        return _applied
    choice = os.environ.get("ABC_MALLOC", "keep")
    if choice not in ("keep", "system"):
        raise ValueError(f"ABC_MALLOC must be 'keep' (the default) or 'system', got {choice!r}")
    libc = _libc() if choice == "keep" else None
    _applied = bool(libc is not None and libc.mallopt(M_MMAP_MAX, 0) == 1
                    and libc.mallopt(M_TRIM_THRESHOLD, TRIM_THRESHOLD) == 1)
    return _applied
