"""Issue 32's rule for trained sweeps: at the default scale every sweep runs at least five seeds,
as members of one ensemble. The sweeps still short of five are listed here with the reason; the
test fails when one of them reaches five (take it off the list, so the list stays true) and when
any other falls below five. It reads each sweep's definition (``Sweep.define("default")``), every
list under a key ending in ``seeds`` (``seeds``, ``base_seeds``, ``finetune.seeds``, ...), so it
needs no stored data and no training (:func:`lib.results.seed_counts` reads the lists)."""
from __future__ import annotations

import pytest

from lib.claims import PAPERS
from lib.results import paper_sweeps, seed_counts

MINIMUM = 5

#: sweep -> why it still runs fewer than five seeds at the default scale (its smallest seed list)
SHORT: dict[str, str] = {}

#: seed lists a sweep's config carries but its grid never reads
UNUSED = {
    ("boixadsera2024_ppl_headroom", "other_seeds"): "pretraining's seeds for the small and large sizes; this grid "
                                                    "pretrains the base size only, on base_seeds",
}

#: sweeps without seeds by design
UNSEEDED = {
    "bhattamishra2024_lstm_protocol": "one trained LSTM read on every one of the N 2^N instances (exact, no sample)",
}


def _default_seed_counts() -> dict[str, dict[str, int]]:
    counts = {}
    for paper in PAPERS:
        for sweep in paper_sweeps(paper).values():
            config, _ = sweep.define("default")
            name = f"{sweep.paper}_{sweep.key}"
            counts[name] = {key: n for key, n in seed_counts(config).items() if (name, key) not in UNUSED}
    return counts


COUNTS = _default_seed_counts()


@pytest.mark.parametrize("name", sorted(COUNTS))
def test_every_default_sweep_runs_five_seeds_or_says_why(name):
    seeds = COUNTS[name]
    if name in UNSEEDED:
        assert not seeds, f"{name} now has seeds {seeds}: take it off UNSEEDED"
        return
    assert seeds, f"{name}: no seed list in its default config (add it to UNSEEDED with the reason)"
    fewest = min(seeds.values())
    if name in SHORT:
        assert fewest < MINIMUM, f"{name} now runs {seeds}: take it off SHORT"
    else:
        assert fewest >= MINIMUM, f"{name} runs {seeds} at the default scale, fewer than {MINIMUM} seeds"


def test_the_lists_name_existing_sweeps():
    assert set(SHORT) <= set(COUNTS) and set(UNSEEDED) <= set(COUNTS)
    for name, key in UNUSED:
        config, grid = next(s for s in paper_sweeps(name.split("_", 1)[0]).values()
                            if f"{s.paper}_{s.key}" == name).define("default")
        assert key in config and {p["size"] for p in grid} == {"base"}, (name, key)
