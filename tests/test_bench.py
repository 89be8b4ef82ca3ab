"""lib.bench's bookkeeping: paper-cost rows saved row by row and merged by sweep, read back from a
GPU run's log when its files were lost, and shown to a chapter as one line per device; the
generation benchmark's two loops agree."""
import json

import pytest

from lib import bench

LOG = """=== bench suite (62s of 550)
  float32 matmul: 49918 GFLOP/s; bench model: 0.130 GFLOP per step
device: NVIDIA H100 80GB HBM3  (torch 2.11.0+cu130, threads: 16)
{
 "what": "suite",
 "members": 256,
 "model_steps_per_s": {
  "plain_loop": 134.9
 }
}
saved to /work/main/data/bench/nvidia-h100-80gb-hbm3.json
=== paper cost (122s of 550)
  chen2024.figure2_paper_sizes             5 groups     15900 steps      26.4 ms/step  setup   0.5s  ~0.12 h
  mahdavi2024.fig2a                      FAILED after 20s: _TimeLimit: over the 20s limit per sweep
  bhattamishra2024.index_lookup           15 groups    300000 steps     809.5 ms/step  setup   3.9s  ~67.48 h
"""


@pytest.fixture
def store(tmp_path, monkeypatch):
    monkeypatch.setenv("ABC_DATA", str(tmp_path))
    return tmp_path


def test_records_are_read_back_from_a_gpu_log_as_printed():
    suite, cost = bench.records_from_log(LOG)
    assert suite["what"] == "suite" and suite["model_steps_per_s"] == {"plain_loop": 134.9} and suite["from_log"]
    rows = {r["sweep"]: r for r in cost["sweeps"]}
    assert rows["chen2024.figure2_paper_sizes"] == {"sweep": "chen2024.figure2_paper_sizes", "groups": 5,
                                                    "steps": 15900, "s_per_step": pytest.approx(0.0264),
                                                    "setup_s": 0.5, "estimate_h": 0.12}
    assert rows["mahdavi2024.fig2a"]["error"].startswith("_TimeLimit") and rows["mahdavi2024.fig2a"]["probe_wall_s"] == 20
    assert bench.records_from_log("no records here") == []


def test_paper_cost_rows_merge_by_sweep_and_read_as_one_line_per_device(store):
    first = {"what": "paper_cost", "members": 0, "steps": 3, "sweeps": [
        {"sweep": "a.x", "groups": 2, "steps": 100, "s_per_step": 0.5, "setup_s": 1.0, "estimate_h": 0.014},
        {"sweep": "a.y", "error": "ValueError: too big"}]}
    bench.save(first, None, device_label="Some GPU", torch_version="2.0")
    later = {"what": "paper_cost", "members": 0, "steps": 3, "sweeps": [
        {"sweep": "a.y", "groups": 1, "steps": 10, "s_per_step": 0.1, "setup_s": 0.0, "estimate_h": 3.0}]}
    bench.save(later, None, device_label="Some GPU", torch_version="2.0")
    stored = json.loads((store / "bench" / "some-gpu.json").read_text())
    assert [r["sweep"] for r in stored["runs"][0]["sweeps"]] == ["a.x", "a.y"]  # a.y replaced, a.x kept
    assert bench.cost_line("a.x") == ("Some GPU: 500.0 ms per step of a group, 100 steps in 2 groups: about 1 minute "
                                      "(estimated from its first and last groups)")
    assert "about 3 hours" in bench.cost_line("a.y")
    assert bench.cost_line("a.z").startswith("no measured cost yet")


def test_time_limit_raises_its_message_after_its_seconds_and_never_without_them():
    import time

    from lib.bench import TimeLimit, time_limit

    with pytest.raises(TimeLimit, match="over 0.2 s here"):
        with time_limit(0.2, "over {seconds} s here"):
            time.sleep(2)
    with time_limit(None):
        time.sleep(0.01)


def test_step_anatomy_splits_the_step_into_products_and_the_rest():
    r = bench.step_anatomy(members=2, steps=3)
    assert 0.0 < r["product_share"] < 1.0 and r["product_s"] <= r["kernel_s"]
    assert r["product_gflop_s"] > 0 and "aten::bmm" not in r["largest_other_kernels_s"]


def test_generation_benchmark_completes_the_same_tokens_both_ways():
    r = bench.generation_benchmark(prompts=6, length=96)
    assert r["same_tokens"] and r["generated_tokens"] > 6 * 40
    assert r["wall_s"]["generate"] < r["wall_s"]["plain_loop"]  # one position a step against the whole prefix
