import pytest
import torch

from lib.tasks import IndexLookup
from lib.tasks.registry import REGISTRY


@pytest.mark.parametrize("name", sorted(REGISTRY))
def test_task_is_deterministic_by_seed(name):
    cls, kwargs = REGISTRY[name]
    task = cls(**kwargs)
    a, b, c = task.sample(64, seed=3), task.sample(64, seed=3), task.sample(64, seed=4)
    assert torch.equal(a.x, b.x) and torch.equal(a.y, b.y)
    assert not torch.equal(a.x, c.x)
    assert int(a.x.max()) < len(task.vocab)
    assert a.x.shape[1] == task.seq_len


@pytest.mark.parametrize("name", sorted(REGISTRY))
def test_task_rejects_bad_arguments(name):
    cls, kwargs = REGISTRY[name]
    for arg in kwargs:
        for bad in (-1, 0, 2.5, "3", None):
            with pytest.raises(ValueError, match=arg):
                cls(**{**kwargs, arg: bad})
    task = cls(**kwargs)
    with pytest.raises(ValueError, match="n"):
        task.sample(0, seed=0)
    with pytest.raises(ValueError, match="exactly one"):
        task.sample(4)


@pytest.mark.parametrize("name", sorted(REGISTRY))
def test_split_is_disjoint_and_deterministic(name):
    cls, kwargs = REGISTRY[name]
    task = cls(**kwargs)
    if not task.disjoint_splits:
        train, test = task.split(40, 20, seed=1)
        assert torch.equal(train.x, test.x) and torch.equal(train.x, task.enumerate().x)  # memorization
        return
    train, test = task.split(40, 20, seed=1)
    again, _ = task.split(40, 20, seed=1)
    assert torch.equal(train.x, again.x)
    seen = {tuple(x.flatten().tolist()) for x in train.x}
    assert len(seen) == 40 and not any(tuple(x.flatten().tolist()) in seen for x in test.x)


def test_index_lookup_targets_and_enumeration():
    task = IndexLookup(n_symbols=3, length=4)
    batch = task.sample(500, seed=0)
    positions = batch.x[:, -1] - task.n_symbols
    assert torch.equal(batch.y, batch.x[torch.arange(500), positions])
    everything = task.enumerate()
    assert len(everything) == 3**4 * 4 and len({tuple(x.tolist()) for x in everything.x}) == len(everything)
    assert task.render(batch, 1)[0].endswith(task.vocab.tokens[int(batch.y[0])])
    with pytest.raises(ValueError, match="distinct"):
        IndexLookup(n_symbols=2, length=1).split(3, 2)
