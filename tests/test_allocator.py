"""lib.allocator: freed memory kept for reuse, so a large activation allocated again does not fault
its pages in again; the setting is opt-out and recorded."""
import os
import subprocess
import sys
import textwrap

import pytest

from lib import allocator

pytestmark = pytest.mark.skipif(allocator._libc() is None, reason="glibc only (elsewhere it does nothing)")

# A 64 MiB float32 tensor allocated, filled and freed 17 times: minor page faults of the last 7
_FAULTS = textwrap.dedent("""
    import resource, sys, torch
    from lib.allocator import keep_freed_memory
    kept = keep_freed_memory()
    for _ in range(10):  # the first allocations fault their pages in either way (measured: the freed blocks
        # are reused once a few of them have merged, 2-5 allocations in)
        torch.ones(16 << 20).sum()
    before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    for _ in range(7):
        torch.ones(16 << 20).sum()
    print(kept, resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before)
""")


def _faults(malloc: str) -> tuple[bool, int]:
    env = dict(os.environ, ABC_MALLOC=malloc, OMP_NUM_THREADS="1")
    out = subprocess.run([sys.executable, "-c", _FAULTS], env=env, capture_output=True, text=True, check=True,
                         cwd=os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    kept, faults = out.stdout.split()
    return kept == "True", int(faults)


def test_freed_memory_is_reused_without_page_faults():
    kept, faults_kept = _faults("keep")
    system, faults_system = _faults("system")
    assert kept and not system
    # glibc's default maps and unmaps each 64 MiB block: 16,384 pages of 4 KiB faulted per allocation
    assert faults_system > 7 * 10_000, faults_system
    assert faults_kept < 0.05 * faults_system, (faults_kept, faults_system)


def test_bad_setting_is_an_error(monkeypatch):
    monkeypatch.setattr(allocator, "_applied", None)
    monkeypatch.setenv("ABC_MALLOC", "jemalloc")
    with pytest.raises(ValueError, match="ABC_MALLOC must be 'keep'"):
        allocator.keep_freed_memory()


def test_a_run_applies_it_and_records_it(tmp_path, monkeypatch):
    from lib import results

    monkeypatch.setenv("ABC_DATA", str(tmp_path))
    r = results.run("alloc_probe", {"seeds": [0]}, [{"x": 1}], lambda p: {"y": p["x"]}, scale="smoke")
    assert r.provenance["malloc"] == ("keep" if os.environ.get("ABC_MALLOC", "keep") == "keep" else "system")
