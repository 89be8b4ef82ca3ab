"""lib.stats: intervals over seeds and decisions that can say "inconclusive"."""
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lib import stats


def test_mean_interval_is_students_t():
    values = [0.80, 0.84, 0.86, 0.82, 0.88]
    got = stats.mean_interval(values)
    sem = np.std(values, ddof=1) / math.sqrt(5)
    assert got.mean == pytest.approx(0.84)
    assert got.high - got.mean == pytest.approx(2.7764451 * sem, rel=1e-6)  # t_{0.975, 4}
    assert got.n == 5 and got.defined


def test_one_seed_has_no_interval_and_decides_nothing():
    one = stats.mean_interval([0.9])
    assert not one.defined and "no interval" in str(one)
    assert stats.compare([0.9], [0.1, 0.2, 0.15]) == "inconclusive"
    assert stats.separated(one, stats.mean_interval([0.1, 0.12])) == "inconclusive"


def test_wilson_interval_against_its_formula():
    k, n, z = 99, 250, 1.959963984540054
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    got = stats.proportion_interval(k, n)
    assert (got.low, got.high) == pytest.approx((centre - half, centre + half), abs=1e-9)


def test_compare_decides_clear_differences_and_not_noise():
    rng = np.random.default_rng(0)
    assert stats.compare(0.9 + 0.01 * rng.standard_normal(5), 0.5 + 0.01 * rng.standard_normal(5)) == "greater"
    assert stats.compare(0.5 + 0.01 * rng.standard_normal(5), 0.9 + 0.01 * rng.standard_normal(5)) == "less"
    # the abstract-symbols case of issue 32: two seeds 0.70 and 0.88 against a 0.05 difference
    assert stats.compare([0.70, 0.88], [0.75, 0.83]) == "inconclusive"


def test_both_arms_at_a_floor_or_ceiling_are_inconclusive():
    assert stats.compare([1.0, 1.0, 0.999], [1.0, 0.995, 1.0], ceiling=1.0) == "inconclusive"
    assert stats.compare([0.25, 0.26, 0.25], [0.25, 0.25, 0.24], floor=0.25) == "inconclusive"
    # one arm at the ceiling and one well below is a difference
    assert stats.compare([1.0, 1.0, 1.0], [0.6, 0.62, 0.58], ceiling=1.0) == "greater"


def test_trend():
    xs = [10, 20, 40, 80]
    down = [[0.95, 0.93], [0.8, 0.78], [0.6, 0.63], [0.4, 0.42]]
    assert stats.trend(xs, down) == "decreasing"
    assert stats.trend(xs, [v[::-1] for v in down[::-1]]) == "increasing"
    rng = np.random.default_rng(1)
    assert stats.trend(xs, [list(0.5 + 0.01 * rng.standard_normal(2)) for _ in xs]) == "inconclusive"
    assert stats.trend(xs, [[0.9], [0.5], [0.4], [0.1]]) == "inconclusive"  # one seed


def test_samples_to_reach_interpolates_in_log_n():
    ns = [100, 1000, 10000]
    got = stats.samples_to_reach(ns, [[0.2, 0.6, 1.0], [0.2, 1.0, 1.0]], threshold=0.8)
    assert got.per_seed[0] == pytest.approx(10 ** 3.5)  # halfway between 0.6 and 1.0 in log n
    assert got.per_seed[1] == pytest.approx(10 ** (2 + 0.75))
    assert got.all_reached and got.interval.defined
    never = stats.samples_to_reach(ns, [[0.1, 0.2, 0.3], [0.1, 0.1, 0.2]], threshold=0.8)
    assert never.reached == 0 and math.isinf(never.per_seed[0])
    assert stats.fewer_samples(got, never) == "less"


def test_fewer_samples_needs_separated_intervals():
    ns = [16, 64, 256, 1024, 4096]
    fast = stats.samples_to_reach(ns, [[0.1, 0.9, 1, 1, 1], [0.1, 0.95, 1, 1, 1], [0.2, 0.92, 1, 1, 1]], 0.8)
    slow = stats.samples_to_reach(ns, [[0, 0.1, 0.3, 0.9, 1], [0, 0.1, 0.2, 0.85, 1], [0, 0.2, 0.3, 0.95, 1]], 0.8)
    assert stats.fewer_samples(fast, slow) == "less" and stats.fewer_samples(slow, fast) == "greater"
    noisy = stats.samples_to_reach(ns, [[0.1, 0.9, 1, 1, 1], [0, 0.1, 0.3, 0.9, 1]], 0.8)
    assert stats.fewer_samples(noisy, slow) == "inconclusive"


@settings(max_examples=40, deadline=None)
@given(values=st.lists(st.floats(0, 1), min_size=2, max_size=12), level=st.floats(0.5, 0.99))
def test_interval_contains_the_mean_and_widens_with_the_level(values, level):
    narrow, wide = stats.mean_interval(values, level), stats.mean_interval(values, min(level + 0.005, 0.995))
    assert narrow.low <= narrow.mean <= narrow.high
    assert wide.low <= narrow.low + 1e-12 and wide.high >= narrow.high - 1e-12


@pytest.mark.parametrize("call", [
    lambda: stats.mean_interval([]),
    lambda: stats.mean_interval([0.5, float("nan")]),
    lambda: stats.mean_interval([0.5, 0.6], level=1.5),
    lambda: stats.proportion_interval(5, 3),
    lambda: stats.compare([0.1, 0.2], [0.3], saturated=-1),
    lambda: stats.trend([1, 2, 3], [[0.1, 0.2]]),
    lambda: stats.samples_to_reach([10, 5], [[0.1, 0.2]], 0.5),
    lambda: stats.samples_to_reach([10, 20], [[0.1, 0.2, 0.3]], 0.5),
])
def test_bad_input_is_named(call):
    with pytest.raises(ValueError, match=r"stats\.\w+: \w+"):
        call()


def test_difference_interval_is_welchs():
    """Against Welch's interval written out: the t quantile at the Welch-Satterthwaite degrees of freedom."""
    from scipy import stats as sp

    a, b = np.array([4.13, 4.15, 4.13, 4.15, 4.15]), np.array([4.12, 4.14, 4.14, 4.13, 4.14])
    va, vb = a.var(ddof=1) / a.size, b.var(ddof=1) / b.size
    df = (va + vb) ** 2 / (va ** 2 / (a.size - 1) + vb ** 2 / (b.size - 1))
    half = sp.t.ppf(0.975, df) * np.sqrt(va + vb)
    interval = stats.difference_interval(a, b)
    assert np.isclose(interval.mean, a.mean() - b.mean())
    assert np.isclose(interval.low, interval.mean - half) and np.isclose(interval.high, interval.mean + half)
    assert not stats.difference_interval([1.0], [2.0, 3.0]).defined
    assert stats.difference_interval([1.0, 1.0], [0.5, 0.5]).low == 0.5


def test_versus_decides_against_a_stated_bound_by_the_interval():
    assert stats.versus([1.0, 1.0, 0.99, 1.0, 1.0], 0.9) == "greater"
    assert stats.versus([0.2, 0.25, 0.3, 0.22, 0.27], 0.6) == "less"
    assert stats.versus([0.5, 1.0, 0.7, 0.95, 0.6], 0.9) == "inconclusive"  # the interval holds 0.9
    assert stats.versus([1.0], 0.5) == "inconclusive"  # one seed: no interval
    assert stats.versus([0.9, 0.9], 0.9) == "inconclusive"  # exactly at the bound


def test_three_valued_reading_of_decisions():
    assert stats.holds("greater", "greater") is True and stats.holds("less", "greater") is False
    assert stats.holds("inconclusive", "decreasing") is None
    assert stats.all_hold(True, True) is True and stats.all_hold(True, None) is None
    assert stats.all_hold(None, False, True) is False and stats.all_hold() is True


def test_bounded_interval_is_clipped_to_the_range():
    wide = stats.mean_interval([0.2, 1.0], bounds=(0.0, 1.0))
    assert wide.low == 0.0 and wide.high == 1.0 and wide.mean == 0.6
    assert stats.describe([0.2, 1.0], bounds=(0, 1)) == "0.6 [0, 1] (n = 2)"
    assert stats.mean_interval([0.4, 0.5, 0.6]) == stats.mean_interval([0.4, 0.5, 0.6], bounds=(0, 1))
    loss = stats.mean_interval([0.0, 1.0], bounds=(0, None))  # a loss: bounded below only
    assert loss.low == 0.0 and loss.high > 1
    for bad in ((1, 0), (0,), "01"):
        with pytest.raises(ValueError, match=r"stats\.mean_interval: bounds"):
            stats.mean_interval([0.5, 0.6], bounds=bad)


def test_describe_accuracy_and_nonnegative_clip_to_their_ranges():
    assert stats.describe_accuracy([0.2, 1.0]) == "0.6 [0, 1] (n = 2)"
    assert stats.describe_nonnegative([0.0, 1.0]).startswith("0.5 [0, ")  # clipped below only
    assert stats.describe_nonnegative([0.0, 1.0]) != "0.5 [0, 1] (n = 2)"
    assert stats.describe_accuracy([0.7]) == stats.describe([0.7])  # one seed: no interval either way
    assert stats.describe_accuracy([0.4, 0.5, 0.6], level=0.99) == stats.describe([0.4, 0.5, 0.6], 0.99, (0, 1))


def test_family_level_is_bonferroni():
    assert stats.family_level(1) == pytest.approx(0.95) and stats.family_level(10) == pytest.approx(0.995)
    with pytest.raises(ValueError, match=r"stats\.family_level: tests"):
        stats.family_level(0)


def test_any_holds_and_within():
    assert stats.any_holds(False, True) is True and stats.any_holds(False, None) is None
    assert stats.any_holds(False, False) is False and stats.any_holds() is False
    same = [0.80, 0.81, 0.79, 0.80, 0.80]
    assert stats.within(same, [0.81, 0.80, 0.80, 0.82, 0.81], 0.05) is True
    assert stats.within(same, [0.60, 0.61, 0.59, 0.60, 0.62], 0.05) is False  # 0.2 apart, decidedly
    assert stats.within(same, [0.2, 0.9, 0.5, 1.0, 0.6], 0.05) is None  # too noisy to tell
    assert stats.within([0.8], same, 0.05) is None
    with pytest.raises(ValueError, match=r"stats\.within: margin"):
        stats.within(same, same, 0.0)


def test_no_reversal_fails_only_on_a_decided_step_the_other_way():
    rng = np.random.default_rng(2)
    rising = [0.2 + 0.1 * i + 0.01 * rng.standard_normal(5) for i in range(4)]
    assert stats.no_reversal(rising, "increasing") is True
    assert stats.no_reversal(rising, "decreasing") is False
    assert stats.no_reversal(rising[::-1], "decreasing") is True
    dip = rising[:2] + [rising[0] - 0.1] + rising[3:]  # one step decidedly down
    assert stats.no_reversal(dip, "increasing") is False
    flat = [0.5 + 0.05 * rng.standard_normal(5) for _ in range(4)]  # noise decides no step
    assert stats.no_reversal(flat, "increasing") is True and stats.no_reversal(flat, "decreasing") is True
    # a fall between two arms at the ceiling is no reversal (the floor/ceiling rule of compare)
    assert stats.no_reversal([[1.0, 1.0, 1.0], [0.992, 0.991, 0.993]], "increasing", ceiling=1.0) is True
    assert stats.no_reversal([[1.0, 1.0, 1.0], [0.992, 0.991, 0.993]], "increasing") is False
    for bad in (lambda: stats.no_reversal(rising, "flat"), lambda: stats.no_reversal(rising[:1], "increasing")):
        with pytest.raises(ValueError, match=r"stats\.no_reversal: \w+"):
            bad()


def test_above_and_below_read_versus_as_a_truth_and_said_names_it():
    high, low, wide = [0.95, 0.96, 0.97], [0.1, 0.12, 0.11], [0.0, 1.0, 0.5]
    assert (stats.above(high, 0.9), stats.below(high, 0.9)) == (True, False)
    assert (stats.above(low, 0.9), stats.below(low, 0.9)) == (False, True)
    assert stats.above(wide, 0.5) is None and stats.below([0.95], 0.9) is None  # one seed decides nothing
    assert stats.above(high, 0.94, level=0.999) is None  # a stricter level leaves it undecided
    assert [stats.said(t) for t in (True, False, None)] == ["yes", "no", "undecided"]
    with pytest.raises(ValueError):
        stats.said("maybe")


def test_exceeds_reads_the_difference_interval_against_a_size():
    a, b = [0.9, 0.92, 0.91, 0.9], [0.3, 0.31, 0.29, 0.3]
    assert stats.exceeds(a, b, 0.5) is True and stats.exceeds(a, b, 0.7) is False
    assert stats.exceeds([0.5, 0.9, 0.1], [0.3, 0.0, 0.6], 0.2) is None  # too spread to tell
    assert stats.exceeds([0.9], b, 0.5) is None  # one seed decides nothing


def test_numpy_booleans_read_as_python_booleans():
    """A condition computed from numpy numbers is ``np.bool_``; ``is False`` would miss it, and a
    failed condition would then pass a check."""
    from lib import claims

    assert stats.all_hold(np.False_, True) is False and stats.all_hold(np.True_, None) is None
    assert stats.any_holds(np.True_, False) is True and stats.any_holds(np.False_, None) is None
    assert claims.outcome(np.float64(1.0) < 1e-12) == claims.outcome(False)
    assert claims.outcome(np.True_, np.False_) == {"passed": True, "partly": False, "inconclusive": False}
    with pytest.raises(ValueError, match="True, False or None"):
        stats.all_hold(1)


def test_describe_with_decimals_for_live_trainings():
    assert stats.describe([1.0, 1.02, 1.03], decimals=2) == "1.02 [0.98, 1.05] (n = 3)"
    assert stats.describe([1.0, 1.02, 1.03]) == "1.02 [0.979, 1.05] (n = 3)"
    assert stats.describe_accuracy([0.3], decimals=2) == "0.30 (n = 1: no interval)"
