"""The tasks of Bhattamishra et al. (2024): each generator's defining property on samples."""
import itertools

import pytest
import torch

from lib.tasks import IGNORE, BoundedDyck, NearestNeighbour, PairFunction, StringEquality, VariableLengthIndexLookup
from lib.tasks.dyck import count_members, dfa, is_member


def test_variable_length_index_lookup_reads_the_queried_symbol_at_every_length():
    task = VariableLengthIndexLookup(n_symbols=4, length=30, min_length=10)
    batch = task.sample(2000, seed=0)
    p = batch.x[:, -1] - task.n_symbols
    assert torch.equal(batch.y, batch.x[torch.arange(2000), p])
    lengths = (batch.x[:, :-1] != task.pad).sum(1)
    assert int(lengths.min()) == 10 and int(lengths.max()) == 30
    assert bool((p < lengths).all())  # the query points inside the sequence, never at a pad
    pads_after = [(row[:n] != task.pad).all() and (row[n:-1] == task.pad).all() for row, n in zip(batch.x, lengths)]
    assert all(pads_after)
    exact = VariableLengthIndexLookup(n_symbols=4, length=30, min_length=30).sample(200, seed=1)
    assert not (exact.x == task.pad).any()


def test_dyck_generator_positives_are_members_negatives_are_not_and_classes_balance():
    for choice in ("symbol", "move"):
        task = BoundedDyck(length=40, choice=choice)
        batch = task.sample(1000, seed=0)
        members = torch.tensor([is_member(row, 2) for row in batch.x.tolist()]).long()
        assert torch.equal(members, batch.y)
        assert abs(batch.y.float().mean().item() - 0.5) < 0.05


def test_dyck_22_has_two_to_the_n_minus_one_members_and_seven_live_states():
    for n in range(2, 101, 2):
        assert count_members(n) == 2 ** (n - 1)
    for n in (2, 4, 6, 8):
        assert int(BoundedDyck(length=n).enumerate().y.sum()) == 2 ** (n - 1)
    states, delta = dfa(2, 2)
    assert len(states) == 7
    for length in range(0, 9):
        for s in itertools.product(range(4), repeat=length):
            q = ()
            for c in s:
                q = delta[(q, c)] if q is not None else None
            assert (q == ()) == is_member(s, 2)


def test_pair_functions_label_equality_inequality_and_intersection():
    for function in ("eq", "ineq", "disj"):
        task = PairFunction(half_length=6, function=function)
        batch = task.enumerate()
        a, b = batch.x[:, :6], batch.x[:, 6:]
        expected = {"eq": (a == b).all(1), "ineq": (a != b).any(1), "disj": (a & b).any(1)}[function]
        assert torch.equal(batch.y, expected.long())
    sample = PairFunction(half_length=32).sample(300, seed=0)
    differing = (sample.x[:, :32] != sample.x[:, 32:]).sum(1)
    assert (differing == 0).sum() >= 100 and (differing == 1).sum() >= 100


@pytest.mark.parametrize("variant", ["random", "one", "ncp"])
def test_string_equality_variants(variant):
    task = StringEquality(n_symbols=5, length=20, variant=variant)
    batch = task.sample(500, seed=0)
    for row, y in zip(batch.x.tolist(), batch.y):
        body = [t for t in row if t != task.pad]
        sep = body.index(task.sep)
        first, second = body[:sep], body[sep + 1:]
        assert len(first) == len(second) and 2 * len(first) >= task.min_length
        if variant == "ncp":
            assert [t for t in y.tolist() if t != IGNORE] == second and first == second
        else:
            assert int(y) == int(first == second)
            if variant == "one" and not int(y):
                assert sum(u != v for u, v in zip(first, second)) == 1
    if variant != "ncp":
        assert abs(batch.y.float().mean().item() - 0.5) < 0.08


def test_nearest_neighbour_targets_are_the_label_of_the_nearest_earlier_input_with_the_margin():
    task = NearestNeighbour(n_points=20, dim=6, keys="sphere", margin=0.05)
    batch = task.sample(200, seed=0)
    x, labels = NearestNeighbour.inputs(batch)
    for b in range(200):
        for t in range(task.n_context, task.n_points):
            sims = x[b, :t] @ x[b, t]
            best = sims.topk(2).values
            assert best[0] - best[1] >= 0.05 - 1e-9
            assert int(batch.y[b, 2 * t]) == int(labels[b, int(sims.argmax())]) == int(labels[b, t])
    mqar = NearestNeighbour(n_points=16, dim=5, mqar=True)
    batch = mqar.sample(100, seed=1)
    x, labels = NearestNeighbour.inputs(batch)
    first, second = x[:, :8], x[:, 8:]
    match = (second @ first.transpose(1, 2)).argmax(-1)
    assert torch.allclose(first[torch.arange(100)[:, None], match], second)
    assert torch.equal(labels[:, 8:], labels[torch.arange(100)[:, None], match])
