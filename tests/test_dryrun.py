"""The paper-scale dry run (lib.papers.dryrun): sizes and FLOPs read from the trainer's call, the
feasibility of every paper-scale definition, one real step of a small sweep, and an infeasible
config reported with its message and a failing exit status."""
import pytest
import torch

from lib.bench import _budget, bench_flops, bench_model
from lib.papers import dryrun
from lib.papers.__main__ import main
from lib.papers.queue import ordered_sweeps
from lib.results import Sweep, _groups
from lib.train import TrainConfig


def test_read_call_counts_the_bench_model_as_bench_flops_does():
    task, config = bench_model()
    call = dryrun.read_call(config, [0, 1, 2], TrainConfig(steps=1, batch_size=64), task)
    assert call.members == 3 and call.batch_rows == 64
    assert call.flops == 3 * bench_flops(64)
    assert call.state_bytes == 4 * 3 * call.params * 4
    assert call.activation_bytes > 0 and call.device_bytes > call.state_bytes


@pytest.mark.parametrize("family", ["decoder", "lstm", "mamba"])
def test_a_steps_cost_measured_on_two_rows_is_what_the_whole_batch_costs(family):
    """read_call measures saved bytes and FLOPs at 2 and 3 rows and extrapolates (a large batch is
    never built on the host): exact, for each model family, against one step on all 24 rows."""
    from lib.models import RecurrentConfig, SSMConfig, build_model
    from lib.models.decoder import gpt_config
    from lib.tasks.base import Batch

    config = {"decoder": lambda: gpt_config(5, 12, 16, 2, 2, mlp_ratio=2),
              "lstm": lambda: RecurrentConfig(d_model=16, n_out=5, vocab_size=5),
              "mamba": lambda: SSMConfig(d_model=16, n_out=5, vocab_size=5, mixer="mamba", d_state=4)}[family]()
    x = torch.randint(0, 5, (24, 12), generator=torch.Generator().manual_seed(0))
    y = torch.randint(0, 5, (24, 12) if family == "decoder" else (24,), generator=torch.Generator().manual_seed(1))
    train_config = TrainConfig(steps=1, batch_size=24)
    call = dryrun.read_call(config, [0, 1], train_config, Batch(x, y))
    saved, flops = dryrun.one_step(build_model(config, seed=0), x, y, train_config.loss)
    assert (call.activation_bytes, call.flops) == (2 * saved, 2 * flops) and flops > 0


def test_every_paper_scale_sweep_is_defined_with_groups_and_steps():
    sweeps = ordered_sweeps()
    assert len({s.paper for s in sweeps}) == 6  # five papers and the course
    for sweep in sweeps:
        config, grid = sweep.define("paper")
        groups = _groups(grid, sweep.group_by)
        assert grid and groups, sweep.name
        steps = [_budget(sweep, config, p) for p in grid]
        assert all(s is None or s > 0 for s in steps), sweep.name


def test_a_small_sweep_is_probed_and_stepped_at_its_true_size():
    (sweep,) = ordered_sweeps(["course.width_length"])
    row = dryrun.dry_run(sweep, step=True)
    assert row.ok, row.error
    assert row.groups == 25 and row.steps == 75_000
    assert row.first and row.largest and row.largest[0].params > row.first[0].params
    assert row.step.startswith("first group: 1 training(s) x 2 steps")
    assert set(row.estimate_h) == {"H100", "T4"} and row.estimate_h["T4"] > row.estimate_h["H100"] > 0
    assert "course.width_length" in dryrun.table([row])


def _too_many_words(scale):
    return {"N": 4, "count": 100}, [{"depth": 2}]


def _run_too_many(config, points, *, scale, device=None, stop_after=None):
    from lib.papers.richard2024.training import word_set

    word_set(config["N"], config["count"], max_depth=points[0]["depth"])
    return [{}]


def test_an_infeasible_config_fails_with_its_message(monkeypatch, capsys):
    sweep = Sweep("richard2024", "too_many_words", _too_many_words, _run_too_many)
    row = dryrun.dry_run(sweep, step=True)
    assert row.error.startswith("INFEASIBLE: ValueError: word_set: only") and "asked for 100" in row.error
    text = dryrun.table([row])
    assert "Failed:" in text and "asked for 100" in text
    monkeypatch.setattr(dryrun, "run_all", lambda names, step=True, on_row=None: [row])
    assert main(["dryrun", "course"]) == 1
    out = capsys.readouterr().out
    assert "richard2024.too_many_words" in out and "asked for 100" in out


def test_a_training_beyond_an_h100_is_infeasible(monkeypatch):
    def huge(*args, **kwargs):
        return dryrun.Call(members=1, params=10**12, family="X", batch_rows=1, state_bytes=16 * 10**12, data_bytes=0,
                           eval_bytes=0, activation_bytes=0, flops=1)

    monkeypatch.setattr(dryrun, "read_call", huge)
    (sweep,) = ordered_sweeps(["course.width_length"])
    row = dryrun.dry_run(sweep, step=False)
    assert row.error.startswith("INFEASIBLE") and "H100" in row.error


def test_bad_arguments():
    with pytest.raises(TypeError):
        dryrun.dry_run("course.width_length")
    with pytest.raises(TypeError):
        dryrun.dry_run(ordered_sweeps(["course"])[0], step="yes")
    with pytest.raises(SystemExit):
        main(["dryrun", "course", "--host-gib", "-1"])
    with pytest.raises(SystemExit):
        main(["dryrun", "no_such_paper"])
    assert torch.get_default_dtype() == torch.float32


def test_the_data_build_limit_can_be_raised_for_a_slow_sweep(monkeypatch):
    from lib.papers import dryrun

    monkeypatch.delenv("ABC_DRYRUN_BUILD_S", raising=False)
    assert dryrun.probe_limit_s() == dryrun.PROBE_LIMIT_S
    monkeypatch.setenv("ABC_DRYRUN_BUILD_S", "600")
    assert dryrun.probe_limit_s() == 600.0
    monkeypatch.setenv("ABC_DRYRUN_BUILD_S", "-1")
    with pytest.raises(ValueError):
        dryrun.probe_limit_s()
