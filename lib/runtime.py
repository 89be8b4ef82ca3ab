"""Device choice, seeding and the one setup call every notebook makes."""
from __future__ import annotations

import os
import random

import numpy as np
import torch

from . import validate

from . import scale as _scale



def pick_device(preferred: str | None = None) -> torch.device:
    """Return the best available device: cuda, then mps, then cpu.

    ``preferred`` (or the environment variable ``ABC_DEVICE``) forces one; asking for a
    device that is not available is an error rather than a silent fallback.
    """
    preferred = preferred if preferred is not None else (os.environ.get("ABC_DEVICE") or None)
    if preferred is not None:
        name = "preferred" if not os.environ.get("ABC_DEVICE") or preferred != os.environ["ABC_DEVICE"] \
            else "ABC_DEVICE"
        return validate.device("pick_device", name, preferred)
    if torch.cuda.is_available():
        return torch.device("cuda")
    if hasattr(torch.backends, "mps") and torch.backends.mps.is_available():
        return torch.device("mps")
    return torch.device("cpu")


def seed_everything(seed: int, deterministic: bool = True) -> None:
    """Seed Python, NumPy and torch (all devices); optionally ask for deterministic kernels.

    Library code never draws from these global generators: every generator and model in
    :mod:`lib` takes its own seed. This call makes ad-hoc notebook code repeatable too.
    """
    if not isinstance(seed, int) or seed < 0:
        raise ValueError(f"seed must be a non-negative integer, got {seed!r}")
    random.seed(seed)
    np.random.seed(seed % 2**32)
    torch.manual_seed(seed)
    if deterministic:
        os.environ.setdefault("CUBLAS_WORKSPACE_CONFIG", ":4096:8")
        torch.backends.cudnn.deterministic = True
        torch.backends.cudnn.benchmark = False
        torch.use_deterministic_algorithms(True, warn_only=True)


def setup_notebook(seed: int = 0, threads: int | None = None) -> torch.device:
    """The common start of every chapter: device, seeds, CPU threads; prints what it chose.

    On a CPU the number of torch threads is capped at 2 by default (``threads`` overrides):
    the book's models are small, and more threads mostly add synchronisation cost.
    """
    device = pick_device()
    seed_everything(seed)
    if device.type == "cpu":
        torch.set_num_threads(threads or min(2, os.cpu_count() or 1))
    name = torch.cuda.get_device_name(device) if device.type == "cuda" else device.type
    print(f"scale={_scale.current()}  device={name}  torch={torch.__version__}  seed={seed}")
    return device


def device_name(device: torch.device | str | None = None) -> str:
    """A human-readable name of the device, for provenance records."""
    device = torch.device(device) if device is not None else pick_device()
    if device.type == "cuda":
        return torch.cuda.get_device_name(device)
    if device.type == "cpu":
        import platform

        return f"cpu ({platform.processor() or platform.machine()}, {os.cpu_count()} cores)"
    return device.type
