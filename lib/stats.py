"""Statistics for trained claims: intervals over seeds, a two-sample comparison, a monotone trend
and "training samples to reach a threshold", each with a decision that may be ``"inconclusive"``.

A trained figure's value is a random variable of the seed (initial weights, data order) and of the
finite test set. Every function here takes the per-seed values, so that the interval is over
seeds, and says when the data cannot decide. The tests themselves are scipy's
(``scipy.stats.t``, ``ttest_ind`` with Welch's correction, ``kendalltau``,
``binomtest(...).proportion_ci``); this module only adds the decisions and the floor/ceiling rule:

* a comparison where both arms sit at the same bound (every value within ``saturated`` of the
  floor or of the ceiling) is inconclusive, whatever the test says: two models at chance, or two
  at 100%, cannot tell the claim from its negation;
* fewer than two seeds give no interval over seeds: every decision is inconclusive.
"""
from __future__ import annotations

import math
import warnings
from dataclasses import dataclass
from typing import Literal, Sequence

import numpy as np

from . import validate

Decision = Literal["greater", "less", "inconclusive"]
Trend = Literal["increasing", "decreasing", "inconclusive"]

#: the default confidence level of every interval and test here
LEVEL = 0.95


@dataclass(frozen=True)
class Interval:
    """A mean (or proportion) with its two-sided interval at ``level``, from ``n`` values."""
    mean: float
    low: float
    high: float
    n: int
    level: float = LEVEL

    @property
    def defined(self) -> bool:
        return math.isfinite(self.low) and math.isfinite(self.high)

    def __str__(self) -> str:
        return self.text()

    def text(self, decimals: int | None = None) -> str:
        """``"0.84 [0.80, 0.88] (n = 5)"``: three significant digits, or ``decimals`` places after the
        point (claims read from trainings run live in a chapter use 2: float32 training rounds
        differently on another CPU, and a claim's text is compared word for word when the tests
        re-derive it)."""
        if decimals is None:
            form = ".3g"
        else:
            form = f".{validate.integer('Interval.text', 'decimals', decimals, minimum=0, maximum=17)}f"
        if not self.defined:
            return f"{self.mean:{form}} (n = {self.n}: no interval)"
        return f"{self.mean:{form}} [{self.low:{form}}, {self.high:{form}}] (n = {self.n})"


def _values(owner: str, name: str, values) -> np.ndarray:
    a = validate.array(owner, name, values, ndim=1)
    if a.size == 0:
        validate.fail(owner, name, "a non-empty list of per-seed values", values)
    return a


def _level(owner: str, level) -> float:
    return validate.real(owner, "level", level, above=0.0, below=1.0)


def mean_interval(values, level: float = LEVEL, bounds: tuple[float, float] | None = None) -> Interval:
    """The mean of per-seed ``values`` with its Student-t interval (``scipy.stats.t``); a single
    value, or values that are all equal, give an interval of zero width only if there are at
    least two (one value: no interval, ``low = -inf``, ``high = inf``). ``bounds``: the range the
    quantity cannot leave (``(0, 1)`` for an accuracy, ``(0, None)`` for a loss); the interval is
    clipped to it."""
    from scipy import stats

    a = _values("stats.mean_interval", "values", values)
    level = _level("stats.mean_interval", level)
    if bounds is not None:
        if not isinstance(bounds, (tuple, list)) or len(bounds) != 2:
            validate.fail("stats.mean_interval", "bounds", "a pair (low, high)", bounds)
        low_bound, high_bound = (b if b is None else validate.real("stats.mean_interval", "bounds", b) for b in bounds)
        low_bound = -math.inf if low_bound is None else low_bound
        high_bound = math.inf if high_bound is None else high_bound
        if not low_bound < high_bound:
            validate.fail("stats.mean_interval", "bounds", "(low, high) with low < high", bounds)
    mean = float(a.mean())
    if a.size < 2:
        return Interval(mean, -math.inf, math.inf, 1, level)
    half = float(stats.t.ppf(0.5 + level / 2, a.size - 1) * a.std(ddof=1) / math.sqrt(a.size))
    low, high = mean - half, mean + half
    if bounds is not None:
        low, high = max(low, low_bound), min(high, high_bound)
    return Interval(mean, low, high, int(a.size), level)


def versus(values, bound: float, *, level: float = LEVEL) -> Decision:
    """Whether the seeds' mean is above (``"greater"``) or below (``"less"``) a fixed ``bound``
    (a threshold a claim states, e.g. "near-perfect": 0.9): decided when the mean's 95% interval
    (:func:`mean_interval`) lies wholly on one side; ``"inconclusive"`` when it contains the bound
    or there are fewer than two seeds."""
    bound = validate.real("stats.versus", "bound", bound)
    interval = mean_interval(values, level)
    if not interval.defined:
        return "inconclusive"
    return "greater" if interval.low > bound else "less" if interval.high < bound else "inconclusive"


def above(values, bound: float, *, level: float = LEVEL) -> bool | None:
    """:func:`versus` read as a truth: True when the seeds' mean is decidedly above ``bound``,
    False when decidedly below, None when its interval contains it (or one seed)."""
    return holds(versus(values, bound, level=level), "greater")


def below(values, bound: float, *, level: float = LEVEL) -> bool | None:
    """:func:`versus` read as a truth: True when the seeds' mean is decidedly below ``bound``,
    False when decidedly above, None otherwise."""
    return holds(versus(values, bound, level=level), "less")


def said(truth: bool | None) -> str:
    """A three-valued truth as a check's text gives it: "yes", "no" or "undecided"."""
    if truth not in (True, False, None):
        validate.fail("stats.said", "truth", "True, False or None", truth)
    return {True: "yes", False: "no", None: "undecided"}[truth]


def family_level(tests: int, level: float = LEVEL) -> float:
    """The level of each of a check's ``tests`` so that, together, they err at most ``1 - level``
    of the time (Bonferroni): a check that asks a dozen questions of pure noise would otherwise
    find a "decided" answer to one of them about half the time."""
    tests = validate.integer("stats.family_level", "tests", tests, minimum=1)
    return 1 - (1 - _level("stats.family_level", level)) / tests


def holds(decision: str, expected: str) -> bool | None:
    """A decision read as a three-valued truth: True when it is ``expected``, None when it is
    ``"inconclusive"``, False when the data decided otherwise."""
    validate.choice("stats.holds", "expected", expected, ("greater", "less", "increasing", "decreasing"))
    return None if decision == "inconclusive" else decision == expected


def as_truth(owner: str, name: str, value) -> bool | None:
    """A three-valued truth as Python's: a numpy boolean (``np.float64(1) < 2``) becomes ``bool``,
    so that ``is False`` reads it; anything but a boolean or None is refused, named ``name``."""
    if value is not None and not isinstance(value, (bool, np.bool_)):
        validate.fail(owner, name, "True, False or None (undecided)", value)
    return None if value is None else bool(value)


def _truths(owner: str, truths) -> list[bool | None]:
    return [as_truth(owner, "truths", t) for t in truths]


def any_holds(*truths: bool | None) -> bool | None:
    """Three-valued "or": True when any is True, else None when any is undecided, else False."""
    truths = _truths("stats.any_holds", truths)
    if any(t is True for t in truths):
        return True
    return None if any(t is None for t in truths) else False


def within(a, b, margin: float, *, level: float = LEVEL) -> bool | None:
    """Whether two arms' means differ by less than ``margin`` (an equivalence test: the Welch
    interval of the difference, :func:`difference_interval`, inside ``(-margin, margin)``): True
    when it is, False when the interval lies wholly beyond the margin on one side, None otherwise.
    "No significant difference" read this way needs evidence of a small difference, not merely a
    test that fails to reject."""
    margin = validate.real("stats.within", "margin", margin, above=0.0)
    d = difference_interval(a, b, level)
    if not d.defined:
        return None
    if -margin < d.low and d.high < margin:
        return True
    return False if d.low >= margin or d.high <= -margin else None


def exceeds(a, b, size: float, *, level: float = LEVEL) -> bool | None:
    """Whether arm ``a``'s mean exceeds ``b``'s by more than ``size``: True when the Welch interval
    of the difference (:func:`difference_interval`) lies wholly above ``size``, False when wholly
    below, None otherwise (or with fewer than two seeds in an arm)."""
    size = validate.real("stats.exceeds", "size", size)
    d = difference_interval(a, b, level)
    if not d.defined:
        return None
    return True if d.low > size else False if d.high < size else None


def all_hold(*truths: bool | None) -> bool | None:
    """Three-valued "and" of decided conditions: False when any is False, else None when any is
    undecided, else True. A check's verdict reads it: True passes, False fails, None is
    inconclusive."""
    truths = _truths("stats.all_hold", truths)
    if any(t is False for t in truths):
        return False
    return None if any(t is None for t in truths) else True


def proportion_interval(successes: int, trials: int, level: float = LEVEL) -> Interval:
    """A proportion measured on ``trials`` test items with its Wilson interval
    (``scipy.stats.binomtest(...).proportion_ci(method="wilson")``): the test set's own noise,
    to compare with the spread over seeds."""
    from scipy import stats

    owner = "stats.proportion_interval"
    trials = validate.integer(owner, "trials", trials, minimum=1)
    successes = validate.integer(owner, "successes", successes, minimum=0, maximum=trials)
    level = _level(owner, level)
    ci = stats.binomtest(successes, trials).proportion_ci(confidence_level=level, method="wilson")
    return Interval(successes / trials, float(ci.low), float(ci.high), trials, level)


def _saturated(a: np.ndarray, b: np.ndarray, bounds, saturated: float) -> bool:
    """Whether both arms sit at the same bound (floor or ceiling), within ``saturated``."""
    return any(np.all(np.abs(a - bound) <= saturated) and np.all(np.abs(b - bound) <= saturated)
               for bound in bounds if bound is not None)


def compare(a, b, *, level: float = LEVEL, floor: float | None = None, ceiling: float | None = None,
            saturated: float = 0.01) -> Decision:
    """Whether arm ``a``'s per-seed values are greater or less than arm ``b``'s: Welch's two-sample
    t-test (``scipy.stats.ttest_ind(equal_var=False)``) rejecting equal means at ``1 - level``;
    ``"inconclusive"`` when it does not reject, when an arm has fewer than two seeds, or when both
    arms sit at ``floor`` or at ``ceiling`` (every value within ``saturated`` of it). Two arms with
    no spread at all are compared by their values."""
    from scipy import stats

    owner = "stats.compare"
    a, b = _values(owner, "a", a), _values(owner, "b", b)
    level = _level(owner, level)
    saturated = validate.real(owner, "saturated", saturated, minimum=0.0)
    for name, bound in (("floor", floor), ("ceiling", ceiling)):
        if bound is not None:
            validate.real(owner, name, bound)
    if _saturated(a, b, (floor, ceiling), saturated) or a.size < 2 or b.size < 2:
        return "inconclusive"
    if a.std() == 0 and b.std() == 0:
        return "inconclusive" if a[0] == b[0] else ("greater" if a[0] > b[0] else "less")
    with warnings.catch_warnings():  # an arm with (almost) no spread: scipy warns, its answer stands
        warnings.simplefilter("ignore", RuntimeWarning)
        test = stats.ttest_ind(a, b, equal_var=False)
    if not test.pvalue < 1 - level:
        return "inconclusive"
    return "greater" if a.mean() > b.mean() else "less"


def no_reversal(values, expected: str, *, level: float = LEVEL, floor: float | None = None,
                ceiling: float | None = None) -> bool:
    """Whether no step between neighbours goes decidedly against ``expected`` (``"increasing"`` or
    ``"decreasing"``): ``values[i]`` are the seeds' values at the i-th x, in order, and each
    neighbouring pair is compared (:func:`compare` at ``level``, with its floor/ceiling rule).
    Two-valued (True or False), as "monotone" is read over seeds: seed noise seldom decides a step,
    so a claim of a monotone change reads it beside a decided change (a rise, a trend) that noise
    leaves undecided."""
    validate.choice("stats.no_reversal", "expected", expected, ("increasing", "decreasing"))
    if len(values) < 2:
        validate.fail("stats.no_reversal", "values", "the seeds' values at two x or more", values)
    against = "less" if expected == "increasing" else "greater"
    return not any(compare(b, a, level=level, floor=floor, ceiling=ceiling) == against
                   for a, b in zip(values, values[1:]))


def difference_interval(a, b, level: float = LEVEL) -> Interval:
    """The difference of means ``mean(a) - mean(b)`` of two arms' per-seed values with its
    Welch interval (``scipy.stats.ttest_ind(equal_var=False).confidence_interval``): what a
    check reads to say an effect of a given size is ruled out, when :func:`compare` cannot tell
    the arms apart. Fewer than two seeds in an arm: no interval."""
    from scipy import stats

    owner = "stats.difference_interval"
    a, b = _values(owner, "a", a), _values(owner, "b", b)
    level = _level(owner, level)
    mean = float(a.mean() - b.mean())
    if a.size < 2 or b.size < 2:
        return Interval(mean, -math.inf, math.inf, int(min(a.size, b.size)), level)
    if a.std() == 0 and b.std() == 0:
        return Interval(mean, mean, mean, int(min(a.size, b.size)), level)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        ci = stats.ttest_ind(a, b, equal_var=False).confidence_interval(level)
    return Interval(mean, float(ci.low), float(ci.high), int(min(a.size, b.size)), level)


def trend(xs, values, *, level: float = LEVEL) -> Trend:
    """The monotone trend of per-seed values against ``xs`` (``values[i]``: the seeds' values at
    ``xs[i]``, a list per x): Kendall's tau (``scipy.stats.kendalltau``) over every (x, value) pair,
    ``"inconclusive"`` when it does not reject independence at ``1 - level`` or when fewer than
    three x values or two seeds per x are given."""
    from scipy import stats

    owner = "stats.trend"
    x = _values(owner, "xs", xs)
    if len(values) != x.size:
        validate.fail(owner, "values", f"one list of per-seed values per x ({x.size})", f"{len(values)} lists")
    per_x = [_values(owner, f"values[{i}]", v) for i, v in enumerate(values)]
    level = _level(owner, level)
    if x.size < 3 or min(v.size for v in per_x) < 2:
        return "inconclusive"
    xx = np.concatenate([np.full(v.size, xi) for xi, v in zip(x, per_x)])
    yy = np.concatenate(per_x)
    if np.all(yy == yy[0]):
        return "inconclusive"
    tau = stats.kendalltau(xx, yy)
    if not tau.pvalue < 1 - level:
        return "inconclusive"
    return "increasing" if tau.statistic > 0 else "decreasing"


@dataclass(frozen=True)
class Reach:
    """Training samples (or steps) each seed needs to reach a threshold, with the interval of
    their geometric mean; ``reached``: how many seeds reach it within the grid."""
    per_seed: tuple[float, ...]
    interval: Interval
    reached: int

    @property
    def all_reached(self) -> bool:
        return self.reached == len(self.per_seed)


def samples_to_reach(ns, curves, threshold: float, *, higher_is_better: bool = True, level: float = LEVEL) -> Reach:
    """For each seed's curve (``curves[seed][i]``: its value at training-set size ``ns[i]``), the
    smallest n at which it reaches ``threshold``, interpolated linearly in log n between the
    grid points around the first crossing (the grid-independent form of "how many samples it
    takes"); a seed that never reaches it counts as ``inf``. The interval is over the seeds that
    reach it, on log n (a geometric mean); with fewer than two such seeds there is none."""
    owner = "stats.samples_to_reach"
    n = _values(owner, "ns", ns)
    if np.any(n <= 0) or np.any(np.diff(n) <= 0):
        validate.fail(owner, "ns", "positive and increasing", list(n))
    grid = validate.array(owner, "curves", curves, ndim=2)
    if grid.shape[1] != n.size or grid.shape[0] == 0:
        validate.fail(owner, "curves", f"one row per seed of {n.size} values", f"shape {grid.shape}")
    threshold = validate.real(owner, "threshold", threshold)
    higher_is_better = validate.boolean(owner, "higher_is_better", higher_is_better)
    sign = 1.0 if higher_is_better else -1.0
    reach = []
    for curve in grid:
        margin = sign * (curve - threshold)
        hit = np.flatnonzero(margin >= 0)
        if hit.size == 0:
            reach.append(math.inf)
        elif hit[0] == 0:
            reach.append(float(n[0]))
        else:
            i = int(hit[0])
            frac = -margin[i - 1] / (margin[i] - margin[i - 1])
            reach.append(float(np.exp(np.log(n[i - 1]) + frac * (np.log(n[i]) - np.log(n[i - 1])))))
    finite = [r for r in reach if math.isfinite(r)]
    if finite:
        logs = mean_interval(np.log(finite), level)
        interval = Interval(math.exp(logs.mean), math.exp(logs.low) if logs.defined else -math.inf,
                            math.exp(logs.high) if logs.defined else math.inf, logs.n, level)
    else:
        interval = Interval(math.inf, -math.inf, math.inf, 0, level)
    return Reach(tuple(reach), interval, len(finite))


def fewer_samples(a: Reach, b: Reach) -> Decision:
    """Whether ``a`` reaches its threshold with fewer samples than ``b`` (``"less"``), more
    (``"greater"``), or cannot be told (``"inconclusive"``): decided when the two intervals
    separate; an arm whose every seed reaches it against one that never does is decided
    too (at the grid's resolution); anything else is inconclusive."""
    if a.reached and not b.reached and len(b.per_seed) >= 2 and a.all_reached:
        return "less"
    if b.reached and not a.reached and len(a.per_seed) >= 2 and b.all_reached:
        return "greater"
    if not (a.all_reached and b.all_reached and a.interval.defined and b.interval.defined):
        return "inconclusive"
    if a.interval.high < b.interval.low:
        return "less"
    if b.interval.high < a.interval.low:
        return "greater"
    return "inconclusive"


def separated(a: Interval, b: Interval) -> Decision:
    """``"greater"`` / ``"less"`` when two intervals do not overlap, else ``"inconclusive"``."""
    if not (a.defined and b.defined):
        return "inconclusive"
    if a.low > b.high:
        return "greater"
    if a.high < b.low:
        return "less"
    return "inconclusive"


def describe(values: Sequence[float], level: float = LEVEL, bounds: tuple[float, float] | None = None,
             decimals: int | None = None) -> str:
    """``"0.84 [0.80, 0.88] (n = 5)"``: a per-seed list as its mean and interval (clipped to
    ``bounds``, see :func:`mean_interval`), for claim text: three significant digits, or
    ``decimals`` places (:meth:`Interval.text`)."""
    return mean_interval(values, level, bounds).text(decimals)


#: the range of an accuracy, a rate or a share (what :func:`describe_accuracy` clips to)
ACCURACY = (0.0, 1.0)
#: the range of a loss, a perplexity, an error or a count (what :func:`describe_nonnegative` clips to)
NONNEGATIVE = (0.0, None)


def describe_accuracy(values: Sequence[float], level: float = LEVEL, decimals: int | None = None) -> str:
    """:func:`describe` for accuracies, rates and shares: the interval clipped to [0, 1]."""
    return describe(values, level, ACCURACY, decimals)


def describe_nonnegative(values: Sequence[float], level: float = LEVEL, decimals: int | None = None) -> str:
    """:func:`describe` for losses, perplexities, errors and counts: the interval clipped at 0."""
    return describe(values, level, NONNEGATIVE, decimals)
