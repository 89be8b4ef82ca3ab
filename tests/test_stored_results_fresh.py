"""The stored default-scale results match the code: every ``data/*.default.json`` is complete
and its ``lib`` code hash is current (or verified under it, ``python -m lib.results verify``).
A change to a file a sweep's provenance hashes (its run function's closure, e.g. a paper's
``training.py``) makes that paper's results stale at once; this test says so before the change
lands, instead of the default book showing numbers the code no longer computes. Needs no
training: the hashes are read from the sources."""
from __future__ import annotations

import pytest

from lib import results

DEFAULT = [r for r in results.all_results() if r.scale == "default"]


def test_there_are_stored_default_results():
    assert len(DEFAULT) >= 40


@pytest.mark.parametrize("result", DEFAULT, ids=lambda r: r.name)
def test_stored_default_result_is_complete_and_fresh(result):
    assert result.complete, f"{result.name}: {len(result.points)}/{len(result.grid)} points; run it to the end"
    assert not result.is_stale(), (f"{result.name}: the lib files its provenance hashes changed since it ran "
                                   f"({result.code.get('git_commit')}); rerun it, or `python -m lib.results verify "
                                   f"{result.name}` if the change keeps its numbers")
