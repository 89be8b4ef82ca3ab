import json

import pytest

from lib import results


@pytest.fixture
def store(tmp_path, monkeypatch):
    monkeypatch.setenv("ABC_DATA", str(tmp_path))
    return tmp_path


def square(point):
    return {"value": point["x"] ** 2, "curve": [point["x"]] * 3}


def test_round_trip_with_provenance(store):
    grid = [{"x": 1}, {"x": 2}]
    saved = results.run("demo", {"seeds": [0, 1], "steps": 5}, grid, square, scale="default", progress=False)
    loaded = results.load("demo", "default")
    assert loaded.points == json.loads(json.dumps(saved.points))
    assert loaded.get(x=2) == {"value": 4, "curve": [2, 2, 2]}
    prov = loaded.provenance
    for key in ("config", "seeds", "scale", "git_commit", "lib_hash", "lib_files", "torch", "device", "created"):
        assert prov[key] not in (None, "", []), key
    assert prov["seeds"] == [0, 1] and prov["scale"] == "default"
    assert "lib/results.py" in prov["lib_files"] and all(p["wall_s"] >= 0 for p in loaded.points)
    assert list(loaded.frame().columns) == ["x", "value"]
    assert (store / "demo.default.json").exists()


def test_load_or_run_loads_matching_and_reruns_changed_config(store):
    calls = []

    def counted(point):
        calls.append(point)
        return square(point)

    grid = [{"x": 3}]
    results.load_or_run("demo", {"a": 1}, grid, counted, scale="default", progress=False)
    results.load_or_run("demo", {"a": 1}, grid, counted, scale="default", progress=False)
    assert len(calls) == 1
    results.load_or_run("demo", {"a": 2}, grid, counted, scale="default", progress=False)
    assert len(calls) == 2


def test_heavy_sweeps_at_default_scale_load_the_paper_result(store):
    results.run("sweep", {"size": "big"}, [{"x": 9}], square, scale="paper", progress=False)
    loaded = results.load_or_run("sweep", {"size": "small"}, [{"x": 1}], square, heavy=True, scale="default")
    assert loaded.scale == "paper" and loaded.get(x=9)["value"] == 81


def test_interrupted_sweep_resumes_losing_only_the_running_point(store):
    grid = [{"x": i} for i in range(5)]
    calls = []

    def crashes_at_three(point):
        calls.append(point["x"])
        if point["x"] == 3:
            raise KeyboardInterrupt
        return square(point)

    with pytest.raises(KeyboardInterrupt):
        results.run("long", {}, grid, crashes_at_three, scale="default", progress=False)
    partial = results.load("long", "default")
    assert [p["point"]["x"] for p in partial.points] == [0, 1, 2] and not partial.complete
    calls.clear()
    done = results.run("long", {}, grid, square_and_log(calls), scale="default", progress=False)
    assert calls == [3, 4] and done.complete


def square_and_log(calls):
    def run_point(point):
        calls.append(point["x"])
        return square(point)
    return run_point


def test_stale_results_are_detected(store, tmp_path, monkeypatch, capsys):
    fake_root = tmp_path / "repo"
    (fake_root / "lib").mkdir(parents=True)
    source = fake_root / "lib" / "thing.py"
    source.write_text("x = 1\n")
    monkeypatch.setattr(results, "ROOT", fake_root)
    result = results.Result("old", "default", {"config": {}, "lib_files": ["lib/thing.py"],
                                               "lib_hash": results.code_hash(["lib/thing.py"])}, grid=[{}],
                            points=[{"point": {}, "result": {}, "wall_s": 0.0}])
    results.save(result)
    assert results.main(["check"]) == 0 and not results.load("old", "default").is_stale()
    source.write_text("x = 2\n")
    assert results.load("old", "default").is_stale()
    assert results.main(["check"]) == 1
    assert "old.default.json" in capsys.readouterr().out


def test_bad_names_and_scales_are_rejected(store):
    with pytest.raises(ValueError, match="plain file name"):
        results.run("a/b", {}, [{}], square, scale="default")
    with pytest.raises(ValueError, match="scale"):
        results.run("ok", {}, [{}], square, scale="large")
