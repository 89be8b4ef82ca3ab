"""The checks behind the claims the course's tour records (``chapters/00_tour``), one function per
claim; ``tests/test_course_checks.py`` re-derives each stored verdict."""
from __future__ import annotations

from ... import claims, validate
from ...constructions.lookup import exactness_threshold, index_lookup_onehot, worst_case_inputs
from ...models import accuracy


def _accuracy(task, beta: float, data) -> float:
    return accuracy(index_lookup_onehot(task, beta=beta).double(), data)


def proposition_0_1(small, long, n_sample: int):
    """Proposition 0.1 (the tour; the naive construction of Bhattamishra et al., Sec. 3): one
    softmax head with one-hot positions solves index lookup on every input when beta > log(N-1),
    and fails on some input below. In float64: 100% on every input of ``small`` at beta = 10 and
    at log(N-1) + 0.01, below 100% at log(N-1) - 0.01; 100% on ``n_sample`` random inputs of
    ``long`` at beta = 10; on ``long``'s worst inputs (one other symbol everywhere else) 100% just
    above the threshold and below 100% just under it. Random inputs read 100% below it too: only
    the worst inputs show the threshold at a long length."""
    from ...tasks import IndexLookup
    validate.instance("proposition_0_1", "small", small, IndexLookup)
    validate.instance("proposition_0_1", "long", long, IndexLookup)
    validate.integer("proposition_0_1", "n_sample", n_sample, minimum=1, maximum=validate.MAX_COUNT)
    everything, sample, worst = small.enumerate(), long.sample(n_sample, seed=1), worst_case_inputs(long)
    at, long_at = exactness_threshold(small), exactness_threshold(long)
    acc = {"all": _accuracy(small, 10.0, everything), "long": _accuracy(long, 10.0, sample),
           "below": _accuracy(small, at - 0.01, everything), "above": _accuracy(small, at + 0.01, everything),
           "worst below": _accuracy(long, long_at - 0.01, worst), "worst above": _accuracy(long, long_at + 0.01, worst),
           "random below": _accuracy(long, long_at - 0.01, sample)}
    return claims.check(
        paper="course", ref="Proposition 0.1 (one-hot index lookup)", label="tour-construction",
        statement="one softmax head with one-hot positions solves index lookup on every input when beta > log(N-1), "
                  "not below",
        paper_value="100% above the threshold, <100% below",
        ours=f"{acc['above']:.0%} above, {acc['below']:.2%} below (all inputs, N={small.length}); at N={long.length} "
             f"on the {len(worst)} worst inputs {acc['worst above']:.0%} above, {acc['worst below']:.0%} below "
             f"(random inputs: {acc['random below']:.0%} below); float64",
        passed=bool(acc["all"] == 1.0 and acc["long"] == 1.0 and acc["above"] == 1.0 and acc["below"] < 1.0
                    and acc["worst above"] == 1.0 and acc["worst below"] < 1.0))
