"""The paper-scale queue (lib.papers.queue): a budget that stops a sweep mid-group, resumes it in
later calls, and ends with exactly the numbers of one uninterrupted run."""
import numpy as np
import pytest

from lib.models import AttentionConfig
from lib.papers import queue
from lib.results import Sweep
from lib.tasks import IndexLookup
from lib.train import TrainConfig, train

TASK = IndexLookup(n_symbols=4, length=5)
MODEL = AttentionConfig(d_model=8, n_out=4, n_heads=2, vocab_size=len(TASK.vocab), positions="learned",
                        max_len=TASK.seq_len)


def define(scale):
    config = {"seeds": [1, 2], "steps": 60, "eval_every": 10}
    return config, [{"lr": lr, "group": g} for g in (0, 1) for lr in (0.01, 0.03)]


def run(config, points, *, scale, device=None, stop_after=None):
    recipe = TrainConfig(steps=config["steps"], lr=tuple(p["lr"] for p in points for _ in config["seeds"]),
                         batch_size=8, eval_every=config["eval_every"])
    out = train(MODEL, config["seeds"] * len(points), recipe, TASK, {"test": TASK}, progress=False, device=device)
    K = len(config["seeds"])
    return [{"loss": out.train_loss[i * K:(i + 1) * K].tolist(), "acc": out.metrics["test"]["acc"][i * K:(i + 1) * K]}
            for i in range(len(points))]


SWEEP = Sweep("course", "queue_test", define, run, group_by=("group",), heavy=False)


@pytest.fixture
def store(tmp_path, monkeypatch):
    monkeypatch.setenv("ABC_DATA", str(tmp_path))
    return tmp_path


def test_a_budgeted_queue_stops_resumes_and_ends_with_the_uninterrupted_numbers(store, tmp_path_factory,
                                                                                monkeypatch):
    whole_dir = tmp_path_factory.mktemp("whole")
    monkeypatch.setenv("ABC_DATA", str(whole_dir))
    [done] = queue.run_queue(1e6, sweeps=[SWEEP], progress=False, log=lambda *_: None)
    assert done.state == "complete" and done.done == 4
    whole = SWEEP.load("paper")

    monkeypatch.setenv("ABC_DATA", str(store))
    states = []
    while len(states) < 40:  # a budget of 0 s: each call advances the group in progress by one evaluation
        [outcome] = queue.run_queue(0.0, sweeps=[SWEEP], progress=False, log=lambda *_: None)
        states.append((outcome.state, outcome.done))
        if outcome.state == "complete":
            break
    assert states[0] == ("not started", 0)  # 10 of 60 steps of the first group, in its checkpoint only
    assert ("partial", 2) in states  # the first group stored, the second in progress
    assert states[-1] == ("complete", 4) and len(states) == 11  # 5 cuts per 60-step group, then its end
    assert queue.status(SWEEP).state == "complete"
    resumed = SWEEP.load("paper")
    for a, b in zip(whole.points, resumed.points):
        assert a["point"] == b["point"]
        np.testing.assert_array_equal(np.array(a["result"]["loss"]), np.array(b["result"]["loss"]))
        np.testing.assert_array_equal(np.array(a["result"]["acc"]), np.array(b["result"]["acc"]))
    assert not list((store / "checkpoints").rglob("*.pt"))  # finished groups leave no checkpoint


def test_the_queue_orders_headline_figures_first_and_refuses_unknown_names():
    names = [f"{s.paper}.{s.key}" for s in queue.ordered_sweeps()]
    assert names[:len(queue.PRIORITY)] == list(queue.PRIORITY)
    assert len(names) == len(set(names)) > 40
    assert [f"{s.paper}.{s.key}" for s in queue.ordered_sweeps(["richard2024"])][0] == "richard2024.architectures"
    with pytest.raises(ValueError, match="unknown sweep"):
        queue.ordered_sweeps(["nopaper"])
