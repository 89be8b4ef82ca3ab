import math

import pytest

from lib.constructions.lookup import exactness_threshold, index_lookup_onehot
from lib.models import accuracy
from lib.tasks import IndexLookup


@pytest.mark.parametrize("n_symbols, length", [(2, 1), (3, 5), (5, 4)])
def test_index_lookup_construction_is_exact_on_the_whole_task(n_symbols, length):
    task = IndexLookup(n_symbols=n_symbols, length=length)
    assert accuracy(index_lookup_onehot(task, beta=8.0).double(), task.enumerate()) == 1.0


def test_index_lookup_construction_exact_on_a_long_random_sample():
    task = IndexLookup(n_symbols=32, length=128)
    assert accuracy(index_lookup_onehot(task, beta=8.0).double(), task.sample(2000, seed=0)) == 1.0


def test_index_lookup_threshold_is_log_n_minus_one():
    task = IndexLookup(n_symbols=3, length=5)
    everything = task.enumerate()
    beta = exactness_threshold(task)
    assert math.isclose(beta, math.log(4))
    assert accuracy(index_lookup_onehot(task, beta + 1e-3).double(), everything) == 1.0
    assert accuracy(index_lookup_onehot(task, beta - 1e-3).double(), everything) < 1.0


def test_worst_case_inputs_bind_the_threshold_at_any_length():
    import torch

    from lib.constructions.lookup import exactness_threshold, index_lookup_onehot, worst_case_inputs
    from lib.models import accuracy
    from lib.tasks import IndexLookup

    for S, N in ((3, 5), (16, 40)):
        task = IndexLookup(S, N)
        worst = worst_case_inputs(task)
        assert len(worst) == S * N and (worst.y == worst.x[torch.arange(len(worst)), worst.x[:, -1] - S]).all()
        threshold = exactness_threshold(task)
        assert accuracy(index_lookup_onehot(task, beta=threshold + 0.01).double(), worst) == 1.0
        assert accuracy(index_lookup_onehot(task, beta=threshold - 0.01).double(), worst) == 0.0
