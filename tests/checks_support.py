"""What every ``tests/test_<key>_checks.py`` shares: the chapters' sizes at the default scale, a
stored default result that must exist, and the thread count the notebooks run with."""
import pytest
import torch

from lib import scale as _scale
from lib.results import Result, paper_sweeps

DEFAULT = "default"


def pick(smoke, default, paper):
    """The value a chapter picks at the default scale (the scale its committed claims ran at)."""
    return _scale.pick(smoke=smoke, default=default, paper=paper, scale=DEFAULT)


def stored(paper: str, name: str, scale: str = DEFAULT) -> Result:
    """Sweep ``name`` of ``paper`` from ``data/``; a missing file fails the test, naming it."""
    result = paper_sweeps(paper)[name].load(scale)
    assert result is not None, f"data/{paper}_{name}.{scale}.json is missing"
    return result


@pytest.fixture(autouse=True)
def notebook_threads():
    """Two threads, as :func:`lib.setup_notebook` sets on a CPU (imported, it applies to a module)."""
    threads = torch.get_num_threads()
    torch.set_num_threads(2)
    yield
    torch.set_num_threads(threads)


def at_paper_scale(paper: str, name: str) -> Result:
    """Sweep ``name``'s paper-scale definition as an in-memory result with no points: the config
    and grid a paper-scale run would store, to compare with the paper's setup before any run."""
    sweep = paper_sweeps(paper)[name]
    config, grid = sweep.define("paper")
    return Result(name=sweep.name, scale="paper", provenance={"config": config}, grid=grid)
