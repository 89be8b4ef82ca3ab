"""Checks of what a public function is given, made at the boundary, with one message format:

    ``"<function>: <argument> must be <what is allowed>, got <value>"``

Every check returns the value (converted only where that loses nothing: ``np.int64`` to ``int``,
``np.bool_`` to ``bool``) or raises

* :class:`ArgumentTypeError` for a value of the wrong type (a string where a bool belongs, a float
  where an integer belongs). It is both a ``TypeError`` and a ``ValueError``, so code that
  catches either for bad arguments catches it.
* ``ValueError`` for a value of the right type outside what is allowed (negative, NaN, infinite,
  not one of the choices, a size that would not fit in memory).

The first argument of every check, ``owner``, names the function or class the user called,
so the message points at the user's own call and not at a helper deep in the stack.
"""
from __future__ import annotations

import contextlib
import contextvars
import math
import numbers
import os
from typing import Iterable

import numpy as np
import torch

#: the most elements a single table, vocabulary or sample may have (2^31, about 8 GiB of float32)
MAX_ELEMENTS = 2**31
#: the largest single size an argument may ask for (a width, a vocabulary, a length); a bigger one
#: would not fit in memory once multiplied by anything else
MAX_COUNT = 10**6
#: the largest seed: torch's and numpy's generators take 64-bit seeds
MAX_SEED = 2**63 - 1
#: the most memory one call may ask for before it allocates, in bytes, unless raised with
#: :func:`memory_cap` or the environment variable ``ABC_MEMORY_CAP_GB``
DEFAULT_MEMORY_CAP = 16 * 2**30
_MEMORY_CAP = contextvars.ContextVar("memory_cap", default=None)


class ArgumentTypeError(TypeError, ValueError):
    """An argument of the wrong type (also a ValueError: see the module docstring)."""


def _show(value) -> str:
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


def fail(owner: str, name: str, must: str, value, kind: type[Exception] = ValueError):
    raise kind(f"{owner}: {name} must be {must}, got {_show(value)}")


def boolean(owner: str, name: str, value) -> bool:
    """``True`` or ``False`` (a numpy bool or a one-element bool tensor too, as comparisons give
    them); never a string, a number or None."""
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    if isinstance(value, torch.Tensor) and value.dtype == torch.bool and value.numel() == 1:
        return bool(value.item())
    fail(owner, name, "True or False", value, ArgumentTypeError)


def integer(owner: str, name: str, value, minimum: int | None = None, maximum: int | None = None) -> int:
    """An integer (not a bool, not a float such as 1.0 or 1.7) in ``[minimum, maximum]``."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Integral):
        fail(owner, name, "an integer", value, ArgumentTypeError)
    value = int(value)
    if minimum is not None and value < minimum:
        fail(owner, name, f"an integer >= {minimum}", value)
    if maximum is not None and value > maximum:
        fail(owner, name, f"an integer <= {maximum}", value)
    return value


def real(owner: str, name: str, value, *, minimum: float | None = None, maximum: float | None = None,
         above: float | None = None, below: float | None = None) -> float:
    """A finite real number (an integer is accepted) with the given bounds: ``minimum`` and
    ``maximum`` inclusive, ``above`` and ``below`` strict."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        fail(owner, name, "a real number", value, ArgumentTypeError)
    value = float(value)
    if not math.isfinite(value):
        fail(owner, name, "a finite number", value)
    bounds = [(minimum, lambda v, b: v >= b, ">="), (maximum, lambda v, b: v <= b, "<="),
              (above, lambda v, b: v > b, ">"), (below, lambda v, b: v < b, "<")]
    for bound, ok, word in bounds:
        if bound is not None and not ok(value, bound):
            fail(owner, name, f"a finite number {word} {bound}", value)
    return value


def choice(owner: str, name: str, value, choices: Iterable):
    """One of ``choices`` (compared with ``==``, types included: ``True`` is not ``1``)."""
    choices = tuple(choices)
    if not any(type(value) is type(c) and value == c for c in choices):
        fail(owner, name, "one of " + ", ".join(map(repr, choices)), value)
    return value


def integers(owner: str, name: str, values, minimum: int | None = None, nonempty: bool = True) -> list[int]:
    """A list or tuple of integers (each as :func:`integer`), non-empty unless told otherwise."""
    if isinstance(values, (str, bytes)) or not isinstance(values, (list, tuple, range, np.ndarray)):
        fail(owner, name, "a list of integers", values, ArgumentTypeError)
    if nonempty and len(values) == 0:
        fail(owner, name, "a non-empty list of integers", values)
    return [integer(owner, f"{name}[{i}]", v, minimum) for i, v in enumerate(values)]


def instance(owner: str, name: str, value, cls: type | tuple[type, ...]):
    """An instance of ``cls`` (a task handed to a construction, a config to a builder)."""
    if not isinstance(value, cls):
        names = " or ".join(c.__name__ for c in (cls if isinstance(cls, tuple) else (cls,)))
        raise ArgumentTypeError(f"{owner}: {name} must be a {names}, got {type(value).__name__}")
    return value


def array(owner: str, name: str, value, ndim: int | tuple[int, ...] | None = None) -> np.ndarray:
    """A finite float64 numpy array (from a list, an array or a tensor) with ``ndim`` axes."""
    try:
        a = np.asarray(value.detach().cpu() if hasattr(value, "detach") else value, dtype=np.float64)
    except (TypeError, ValueError):
        raise ArgumentTypeError(f"{owner}: {name} must be an array of numbers, got {type(value).__name__}") from None
    allowed = (ndim,) if isinstance(ndim, int) else ndim
    if allowed is not None and a.ndim not in allowed:
        fail(owner, name, f"an array with {' or '.join(map(str, allowed))} axes", f"shape {a.shape}")
    if not np.isfinite(a).all():
        fail(owner, name, "finite (no NaN or infinity)", f"an array with {int((~np.isfinite(a)).sum())} such entries")
    return a


def dtype(owner: str, name: str, value, floating: bool = True) -> torch.dtype:
    """A ``torch.dtype`` (a floating one unless ``floating=False``), not its name as a string."""
    if not isinstance(value, torch.dtype):
        hint = f" (torch.{value})" if isinstance(value, str) and isinstance(getattr(torch, value, None),
                                                                              torch.dtype) else ""
        fail(owner, name, "a torch.dtype such as torch.float32" + hint, value, ArgumentTypeError)
    if floating and not value.is_floating_point:
        fail(owner, name, "a floating-point torch.dtype", value)
    return value


def device(owner: str, name: str, value) -> torch.device:
    """A device that exists on this machine: ``"cpu"``, ``"cuda"`` / ``"cuda:N"`` with a GPU
    there, ``"mps"`` where available. Given as a string or a ``torch.device``."""
    if not isinstance(value, (str, torch.device)):
        fail(owner, name, "a device name such as 'cpu' or 'cuda', or a torch.device", value, ArgumentTypeError)
    try:
        dev = torch.device(value)
    except RuntimeError:
        fail(owner, name, "a device name such as 'cpu', 'cuda' or 'cuda:0'", value)
    if dev.type == "cuda":
        count = torch.cuda.device_count() if torch.cuda.is_available() else 0
        if count == 0:
            fail(owner, name, "'cpu' on this machine, which has no CUDA GPU", value)
        if dev.index is not None and dev.index >= count:
            fail(owner, name, f"a CUDA device index below {count}", value)
    elif dev.type == "mps":
        if not (getattr(torch.backends, "mps", None) and torch.backends.mps.is_available()):
            fail(owner, name, "'cpu' on this machine, which has no MPS device", value)
    elif dev.type != "cpu":
        fail(owner, name, "'cpu', 'cuda' or 'mps'", value)
    return dev


def size(owner: str, name: str, count: int, limit: int = MAX_ELEMENTS) -> int:
    """A count of things to materialise (vocabulary, table, sample) that fits in memory."""
    if count > limit:
        raise ValueError(f"{owner}: {name} would hold {count:,} elements, more than the {limit:,} "
                         "this library materialises at once; use smaller sizes")
    return count


def seed(owner: str, name: str, value) -> int:
    """A seed: an integer in ``[0, 2**63 - 1]``, the range both torch's and numpy's generators take."""
    return integer(owner, name, value, 0, MAX_SEED)


def current_memory_cap() -> int:
    """The memory cap in bytes: the innermost :func:`memory_cap` block's, else ``ABC_MEMORY_CAP_GB``
    from the environment, else :data:`DEFAULT_MEMORY_CAP` (16 GiB)."""
    cap = _MEMORY_CAP.get()
    if cap is not None:
        return cap
    text = os.environ.get("ABC_MEMORY_CAP_GB")
    if text is None:
        return DEFAULT_MEMORY_CAP
    try:
        gib = float(text)
    except ValueError:
        gib = float("nan")
    if not (math.isfinite(gib) and gib > 0):
        raise ValueError(f"ABC_MEMORY_CAP_GB must be a positive number of GiB, got {text!r}")
    return int(gib * 2**30)


@contextlib.contextmanager
def memory_cap(gib: float):
    """Within this block, calls may ask for up to ``gib`` GiB (instead of 16 GiB): raise it
    explicitly for a run that needs more and has it."""
    gib = real("memory_cap", "gib", gib, above=0)
    token = _MEMORY_CAP.set(int(gib * 2**30))
    try:
        yield
    finally:
        _MEMORY_CAP.reset(token)


def _gib(n_bytes: float) -> str:
    return f"{n_bytes / 2**30:,.1f} GiB" if n_bytes >= 2**27 else f"{n_bytes / 2**20:,.1f} MiB"


def memory(owner: str, what: str, n_bytes: float) -> float:
    """Refuse, before anything is allocated, a call that would need ``n_bytes`` for ``what`` (e.g.
    "the parameters, gradients and Adam moments (3.2e12 numbers)") beyond the memory cap; the
    message says how much, why, and how to raise the cap."""
    cap = current_memory_cap()
    if not n_bytes <= cap:
        raise ValueError(f"{owner}: {what} would need {_gib(n_bytes)}, more than the memory cap of {_gib(cap)}; "
                         "use smaller sizes, or raise the cap explicitly with lib.validate.memory_cap(gib) "
                         "or ABC_MEMORY_CAP_GB")
    return n_bytes
