"""Sweep groups run as Ray tasks (lib.papers.engines) store exactly the numbers of a run here, on a
local Ray cluster on the CPU; the queue through Ray stops at its budget, resumes and ends with the
numbers of one uninterrupted run here; running here needs no Ray at all."""
import json
import subprocess
import sys

import pytest

from lib.papers import engines, queue
from lib.results import ROOT, Sweep, find_sweep
import test_queue
from test_queue import define, run

# the queue tests' tiny sweep (two groups of two points, each group one ensemble of 4 trainings)
SWEEP = Sweep("course", "engine_test", define, run, group_by=("group",), heavy=False)


def without_wall_times(value):
    """``value`` with every key holding a wall time left out (they differ from run to run)."""
    if isinstance(value, dict):
        return {k: without_wall_times(v) for k, v in value.items() if "wall_s" not in k}
    if isinstance(value, list):
        return [without_wall_times(v) for v in value]
    return value


def stored(path):
    return json.loads(path.read_text())


@pytest.fixture(scope="module")
def cluster():
    ray = pytest.importorskip("ray")
    from ray import cloudpickle

    for module in (sys.modules[__name__], test_queue):  # the sweep's functions, sent to the workers by value
        cloudpickle.register_pickle_by_value(module)
    started = not ray.is_initialized()
    if started:
        ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield ray
    if started:
        ray.shutdown()


def test_running_here_is_the_default_and_needs_no_ray(monkeypatch):
    out = subprocess.run([sys.executable, "-c", "import sys, lib.results, lib.papers.queue, lib.papers.__main__; "
                          "print('ray' in sys.modules)"], capture_output=True, text=True, cwd=ROOT, check=True)
    assert out.stdout.strip() == "False"
    assert engines.get() is None and engines.get("local") is None
    monkeypatch.setitem(sys.modules, "ray", None)  # as if Ray were not installed
    with pytest.raises(ImportError, match="pip install ray"):
        engines.get("ray")
    with pytest.raises(ImportError, match="pip install ray"):
        queue.run_queue(1.0, sweeps=[SWEEP], engine="ray", log=lambda *_: None)
    with pytest.raises(ValueError, match="local, processes, ray"):
        engines.get("dask")


def test_a_sweep_run_in_single_thread_processes_stores_the_numbers_of_a_single_thread_run_here(tmp_path, monkeypatch):
    """The processes engine (no Ray): a paper's smoke-scale sweep and the test sweep, against a run
    here with one torch thread, as each worker has."""
    import torch

    with pytest.raises(ValueError, match="workers"):
        engines.ProcessEngine(workers=0)
    with pytest.raises(TypeError, match="threads"):
        engines.ProcessEngine(threads=1.5)
    engine = engines.get("processes", workers=2, threads=1)
    assert engine.describe()["threads_per_worker"] == 1 and engine.worker_device == "cpu"
    threads = torch.get_num_threads()
    for sweep in (find_sweep("bhattamishra2024_index_lookup"), SWEEP):
        files = {}
        for label, used in (("here", None), ("processes", engine)):
            monkeypatch.setenv("ABC_DATA", str(tmp_path / label))
            torch.set_num_threads(1)
            try:
                result = sweep.result("smoke", progress=False, engine=used)
            finally:
                torch.set_num_threads(threads)
            assert result.complete
            files[label] = stored(result.path)
        here, ran = files["here"], files["processes"]
        assert [p["point"] for p in ran["points"]] == [p["point"] for p in here["points"]]  # same order
        assert without_wall_times(ran["points"]) == without_wall_times(here["points"])  # every number, exactly
        assert ran["provenance"]["engine"] == {**engine.describe()} and "engine" not in here["provenance"]
        assert not list((tmp_path / "processes" / "checkpoints").rglob("*.pt"))


def test_a_sweep_run_through_ray_stores_the_numbers_of_a_run_here(cluster, tmp_path, monkeypatch):
    """A paper's smoke-scale sweep (two groups), and the test sweep (two groups of two points)."""
    engine = engines.RayEngine()
    assert engine.gpus_per_group == 0 and engine.worker_device == "cpu"  # no GPU in this cluster
    for sweep in (find_sweep("bhattamishra2024_index_lookup"), SWEEP):
        files = {}
        for label, used in (("here", None), ("ray", engine)):
            monkeypatch.setenv("ABC_DATA", str(tmp_path / label))
            result = sweep.result("smoke", progress=False, engine=used)
            assert result.complete
            files[label] = stored(result.path)
        here, ray = files["here"], files["ray"]
        assert [p["point"] for p in ray["points"]] == [p["point"] for p in here["points"]]  # same order
        assert without_wall_times(ray["points"]) == without_wall_times(here["points"])  # every number, exactly
        assert ray["grid"] == here["grid"] and ray["provenance"]["config"] == here["provenance"]["config"]
        for key in ("lib_files", "lib_hash", "sweep", "scale", "seeds"):
            assert ray["provenance"][key] == here["provenance"][key], key
        assert ray["provenance"]["engine"]["name"] == "ray" and "engine" not in here["provenance"]
        assert ray["provenance"]["device"] == ray["provenance"]["engine"]["device"]
        assert not list((tmp_path / "ray" / "checkpoints").rglob("*.pt"))  # finished groups leave no checkpoint


def test_the_queue_through_ray_stops_resumes_and_ends_with_the_numbers_of_one_run_here(cluster, tmp_path, monkeypatch):
    monkeypatch.setenv("ABC_DATA", str(tmp_path / "here"))
    [whole] = queue.run_queue(1e6, sweeps=[SWEEP], progress=False, log=lambda *_: None)
    assert whole.state == "complete" and whole.done == 4

    monkeypatch.setenv("ABC_DATA", str(tmp_path / "ray"))
    states = []
    while len(states) < 20:  # a budget of 0 s: each call advances each group by one evaluation (of 6)
        [outcome] = queue.run_queue(0.0, sweeps=[SWEEP], progress=False, log=lambda *_: None, engine="ray")
        states.append((outcome.state, outcome.done))
        if outcome.state == "complete":
            break
    assert states[0] == ("not started", 0) and states[-1] == ("complete", 4) and len(states) >= 6
    here, ray = stored(tmp_path / "here" / f"{SWEEP.name}.paper.json"), stored(tmp_path / "ray" / f"{SWEEP.name}.paper.json")
    assert without_wall_times(ray["points"]) == without_wall_times(here["points"])
    assert not list((tmp_path / "ray" / "checkpoints").rglob("*.pt"))
