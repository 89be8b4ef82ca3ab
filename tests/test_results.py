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
    for key in ("config", "seeds", "scale", "git_commit", "lib_hash", "torch", "device", "created"):
        assert prov[key] not in (None, "", []), key
    assert prov["seeds"] == [0, 1] and prov["scale"] == "default"
    # code outside lib (this test) is named, not hashed, and `check` says so
    assert prov["unhashed_code"] == "test_results.square" and not loaded.hashed
    assert all(p["wall_s"] >= 0 for p in loaded.points)
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


def test_heavy_sweeps_at_default_scale_load_the_paper_result_only_if_its_config_is_the_papers(store):
    results.run("sweep", {"size": "big"}, [{"x": 9}], square, scale="paper", progress=False)
    paper = ({"size": "big"}, [{"x": 9}])
    loaded = results.load_or_run("sweep", {"size": "small"}, [{"x": 1}], square, heavy=True, paper=paper,
                                 scale="default", progress=False)
    assert loaded.scale == "paper" and loaded.get(x=9)["value"] == 81
    with pytest.raises(ValueError, match="paper scale's definition"):
        results.load_or_run("sweep", {"size": "small"}, [{"x": 1}], square, heavy=True, scale="default")
    smoke = results.load_or_run("sweep", {"size": "tiny"}, [{"x": 2}], square, heavy=True, scale="smoke",
                                progress=False)  # below the default scale nothing larger is loaded
    assert smoke.scale == "smoke" and smoke.get(x=2)["value"] == 4
    other = ({"size": "bigger"}, [{"x": 9}])  # the paper scale's definition has changed since the file was made
    loaded = results.load_or_run("sweep", {"size": "small"}, [{"x": 1}], square, heavy=True, paper=other,
                                 scale="default", progress=False)
    assert loaded.scale == "default" and loaded.get(x=1)["value"] == 1


def test_groups_run_together_and_resume_by_group(store):
    calls = []

    def run_group(points):
        calls.append([p["x"] for p in points])
        return [square(p) for p in points]

    grid = [{"T": t, "x": x} for t in (1, 2) for x in (3, 4)]
    done = results.run("grouped", {}, grid, run_group=run_group, group_by=("T",), scale="default", progress=False)
    assert calls == [[3, 4], [3, 4]] and done.complete and done.get(T=2, x=4)["value"] == 16
    assert [p["wall_s"] > 0 for p in done.points] == [True, False, True, False]  # a group's time at its first point
    with pytest.raises(TypeError, match="one dict of metrics per point"):
        results.run("bad", {}, grid, run_group=lambda points: [{}], group_by=("T",), scale="default",
                    progress=False)


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


def test_a_changed_config_never_resumes_from_the_old_checkpoints(store):
    """The checkpoints of a group are keyed by config and points: after a sweep's settings change,
    an interrupted group starts afresh instead of loading trainings made under the old settings."""
    group = [{"x": 1}, {"x": 2}]
    old = results.checkpoint_dir("demo", "default", group, {"steps": 100})
    assert old == results.checkpoint_dir("demo", "default", [dict(p) for p in group], {"steps": 100})
    assert old != results.checkpoint_dir("demo", "default", group, {"steps": 200})
    assert old != results.checkpoint_dir("demo", "default", group[:1], {"steps": 100})

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


def test_provenance_lists_the_files_a_paper_runs_and_no_other_papers():
    chen = results.lib_closure(["lib.papers.chen2024.sweeps"])
    mahdavi = results.lib_closure(["lib.papers.mahdavi2024.sweeps"])
    assert "lib/papers/chen2024/training.py" in chen and "lib/papers/chen2024/constructions.py" in chen
    assert "lib/train.py" in chen and "lib/models/attention.py" in chen and "lib/__init__.py" in chen
    assert not any("mahdavi2024" in f for f in chen) and not any("chen2024" in f for f in mahdavi)
    assert not any(f in chen for f in ("lib/results.py", "lib/plots.py", "lib/claims.py"))  # they compute nothing


def test_code_run_as_main_is_hashed_under_its_module_name(monkeypatch):
    import sys
    import types

    fake_main = types.ModuleType("__main__")
    fake_main.__spec__ = types.SimpleNamespace(name="lib.papers.course.sweeps")
    monkeypatch.setitem(sys.modules, "__main__", fake_main)

    def run_point(point):
        return {}

    run_point.__module__ = "__main__"
    assert results.code_module(run_point) == "lib.papers.course.sweeps"
    import torch

    prov = results.provenance({}, "default", device=torch.device("cpu"), code=run_point)
    assert "lib/papers/course/sweeps.py" in prov["lib_files"] and "unhashed_code" not in prov
    assert json.loads(json.dumps(prov))["device"].startswith("cpu")  # a torch.device is recorded by name


def test_verify_records_identical_numbers_and_refuses_changed_ones(store):
    from lib.papers.course import sweeps

    sweep = sweeps.SWEEPS["width_length"]
    config = {"widths": [4], "lengths": [4], "seeds": [0], "steps": 6, "lr": 1e-2, "batch_size": 8, "n_symbols": 4}
    result = results.run(sweep.name, config, [{"width": 4, "length": 4}],
                         run_group=sweep.runner(config, "default"), code=sweep.run, scale="default", progress=False,
                         sweep="course.width_length")
    assert result.hashed and not result.is_stale() and "lib/papers/course/sweeps.py" in result.provenance["lib_files"]
    ok, message = results.verify(results.load(sweep.name, "default"), progress=False)
    assert ok, message
    verified = results.load(sweep.name, "default")
    assert len(verified.provenance["verified"]) == 1 and not verified.is_stale()
    tampered = results.load(sweep.name, "default")
    tampered.points[0]["result"]["accuracy"] += 0.01
    results.save(tampered)
    ok, message = results.verify(results.load(sweep.name, "default"), progress=False)
    assert not ok and "accuracy" in message
    assert len(results.load(sweep.name, "default").provenance["verified"]) == 1  # nothing recorded
    partial = results.load(sweep.name, "default")
    partial.grid.append({"width": 8, "length": 4})
    results.save(partial)
    ok, message = results.verify(results.load(sweep.name, "default"), progress=False)
    assert not ok and "incomplete" in message


def test_same_compares_exactly_and_allows_prefixes_only_when_asked():
    nan = float("nan")
    stored = {"steps": [0, 50, 100], "acc": [[0.1, 0.5, 0.9], [0.2, nan, nan]], "wall_s": 3.0}
    assert results._same(stored, {"steps": [0, 50, 100], "acc": [[0.1, 0.5, 0.9], [0.2, nan, nan]],
                                  "wall_s": 9.0}, False) is None  # wall times skipped, NaN equals NaN
    first = {"steps": [0, 50], "acc": [[0.1, 0.5], [0.2, nan]], "wall_s": 1.0}
    assert results._same(stored, first, True) is None and results._same(stored, first, False)
    assert results._same(stored, {"steps": [0, 50], "acc": [[0.1, 0.6], [0.2, nan]]}, True)
    assert results._same(stored, {"steps": [0, 50], "acc": [[0.1, 0.5]]}, True)  # a seed missing is not a prefix


def test_bad_names_and_scales_are_rejected(store):
    with pytest.raises(ValueError, match="plain file name"):
        results.run("a/b", {}, [{}], square, scale="default")
    with pytest.raises(ValueError, match="scale"):
        results.run("ok", {}, [{}], square, scale="large")


def test_a_papers_command_line_lists_and_refuses_bad_arguments(store, capsys):
    from lib.papers.course.sweeps import SWEEPS

    assert results.sweeps_main("course", SWEEPS, ["list"]) == 0
    assert "width_length" in capsys.readouterr().out
    for bad in (["huge"], ["default", "nosuch"]):
        with pytest.raises(SystemExit) as error:
            results.sweeps_main("course", SWEEPS, bad)
        assert error.value.code == 2


def test_docstrings_and_new_lazy_exports_leave_results_fresh_but_code_changes_do_not(store, tmp_path, monkeypatch):
    fake_root = tmp_path / "repo"
    package = fake_root / "lib" / "fam"
    package.mkdir(parents=True)
    init = package / "__init__.py"
    init.write_text('"""Families."""\n_EXPORTS = {"A": "a"}\n')
    (package / "a.py").write_text('"""Family a."""\n\n\ndef f(x):\n    """Twice x."""\n    return 2 * x\n')
    monkeypatch.setattr(results, "ROOT", fake_root)
    files = ["lib/fam/__init__.py", "lib/fam/a.py"]
    result = results.Result("old", "default", {"config": {}, "lib_files": files, "lib_hash": results.code_hash(files),
                                               "hash_version": results.HASH_VERSION}, grid=[{}],
                            points=[{"point": {}, "result": {}, "wall_s": 0.0}])
    results.save(result)
    fresh = lambda: not results.load("old", "default").is_stale()  # noqa: E731
    init.write_text('"""Families, a table of them."""\n_EXPORTS = {"B": "b", "A": "a"}\n')  # a new family
    (package / "a.py").write_text('"""Family a, documented."""\n\n\ndef f(x):\n    """2x."""\n    return 2 * x\n')
    assert fresh()
    (package / "a.py").write_text('"""Family a."""\n\n\ndef f(x):\n    return 3 * x\n')  # the code changes
    assert not fresh()
    (package / "a.py").write_text('"""Family a."""\n\n\ndef f(x):\n    return 2 * x\n')
    assert fresh()
    init.write_text('_EXPORTS = {"A": "b"}\n')  # an export re-routed: the code it runs changes
    assert not fresh()


def test_rehash_moves_fresh_v1_results_to_the_current_version_and_leaves_stale_ones(store, tmp_path, monkeypatch):
    fake_root = tmp_path / "repo"
    (fake_root / "lib").mkdir(parents=True)
    source = fake_root / "lib" / "thing.py"
    source.write_text('"""Doc."""\nx = 1\n')
    monkeypatch.setattr(results, "ROOT", fake_root)
    for name in ("stale", "fresh"):  # "stale" hashes x = 1, "fresh" the x = 2 now on disk
        if name == "fresh":
            source.write_text('"""Doc."""\nx = 2\n')
        results.save(results.Result(name, "default", {"config": {}, "lib_files": ["lib/thing.py"],
                                                      "lib_hash": results.code_hash(["lib/thing.py"], version=1)},
                                    grid=[{}], points=[{"point": {}, "result": {}, "wall_s": 0.0}]))
    assert results.main(["rehash"]) == 0
    fresh, stale = results.load("fresh", "default"), results.load("stale", "default")
    assert fresh.code["hash_version"] == results.HASH_VERSION and not fresh.is_stale()
    assert "hash_version" not in stale.code and stale.is_stale()
    source.write_text('"""Another doc."""\nx = 2\n')  # v2 ignores docstrings
    assert not results.load("fresh", "default").is_stale() and results.load("stale", "default").is_stale()


def test_paper_sweeps_merge_later_modules_and_find_sweep_reads_them():
    from lib.results import find_sweep, paper_sweeps
    found = paper_sweeps("mahdavi2024")
    assert "fig2a" in found and "fig3_d64" in found  # one sweeps file per paper
    assert find_sweep("mahdavi2024_fig3_d64") is found["fig3_d64"]
    config, grid = found["fig3_d64"].define("default")
    assert config["dim"] == 64 and [(p["H"], p["T"], p["n"]) for p in grid] == [(4, 550, 32), (8, 1300, 32)]
    with pytest.raises(KeyError, match="no paper"):
        find_sweep("nosuchpaper_fig1")
    with pytest.raises(KeyError, match="no such sweep"):
        find_sweep("mahdavi2024_nosuch")


def _lib_committed() -> bool:
    import subprocess

    out = subprocess.run(["git", "status", "--porcelain", "--", "lib"], cwd=results.ROOT, capture_output=True,
                         text=True)
    return out.returncode == 0 and not out.stdout.strip()


@pytest.mark.skipif(not _lib_committed(), reason="lib has uncommitted changes: HEAD's code is not the current code")
def test_verify_against_an_older_commit_compares_its_code_with_the_current_code_on_this_machine(store):
    """verify_against: the code of a commit, checked out in a git worktree, and the current code
    re-run the same cheap part here; it verifies only if that commit's files are the code that
    computed the result and both runs agree bit for bit."""
    from lib.papers.course import sweeps

    sweep = sweeps.SWEEPS["width_length"]
    config = {"widths": [4], "lengths": [4], "seeds": [0], "steps": 6, "lr": 1e-2, "batch_size": 8, "n_symbols": 4}
    results.run(sweep.name, config, [{"width": 4, "length": 4}], run_group=sweep.runner(config, "default"),
                code=sweep.run, scale="default", progress=False, sweep="course.width_length")
    ok, message = results.verify_against(results.load(sweep.name, "default"), "HEAD", progress=False)
    assert ok, message
    record = results.load(sweep.name, "default").provenance["verified"][-1]
    assert record["against"] == "HEAD" and "identical under the code of HEAD" in record["checked"]
    # a commit whose files hash otherwise (the first commit of lib/papers/course) did not compute it
    first = __import__("subprocess").run(["git", "log", "--format=%H", "--reverse", "--", "lib/papers/course/sweeps.py"],
                                         cwd=results.ROOT, capture_output=True, text=True).stdout.split()[0]
    ok, message = results.verify_against(results.load(sweep.name, "default"), first, progress=False)
    assert not ok and ("not the code that computed it" in message or "failed" in message), message
    ok, message = results.verify_against(results.load(sweep.name, "default"), "no-such-commit", progress=False)
    assert not ok and "cannot check out" in message
    # an incomplete result (a run stopped at its budget) is verified on the groups it has stored
    partial = results.load(sweep.name, "default")
    partial.grid.append({"width": 8, "length": 4})
    results.save(partial)
    ok, message = results.verify_against(results.load(sweep.name, "default"), "HEAD", progress=False)
    assert ok and "1 point(s) [{'width': 4, 'length': 4}]" in message, message
    partial.points.clear()
    results.save(partial)
    ok, message = results.verify_against(results.load(sweep.name, "default"), "HEAD", progress=False)
    assert not ok and "no group of points stored yet" in message, message


def test_a_corrupt_results_file_is_named_skipped_in_listings_and_never_overwritten(store, capsys):
    results.run("good", {"seeds": [0]}, [{"x": 1}], square, scale="default", progress=False)
    bad = store / "bad.default.json"
    bad.write_text("{not json")
    with pytest.warns(UserWarning, match=r"skipped .*bad\.default\.json: not a results file"):
        assert [r.name for r in results.all_results()] == ["good"]
    with pytest.warns(UserWarning, match="bad.default.json"):
        assert results.main(["list"]) == 0
    assert "good.default.json" in capsys.readouterr().out
    with pytest.raises(ValueError, match=r"bad\.default\.json: not a results file"):
        results.load("bad", "default")
    with pytest.raises(ValueError, match="not a results file"):  # a sweep never overwrites what it cannot read
        results.run("bad", {"seeds": [0]}, [{"x": 1}], square, scale="default", progress=False)
    assert bad.read_text() == "{not json"
    with pytest.warns(UserWarning, match="bad.default.json"):
        assert results.main(["verify", "good", "--scale"]) == 2
    assert "needs a value" in capsys.readouterr().out


def test_resuming_a_partial_result_computed_by_other_code_warns(store):
    from lib.papers.course import sweeps

    sweep = sweeps.SWEEPS["width_length"]
    config = {"widths": [4], "lengths": [4, 5], "seeds": [0], "steps": 4, "lr": 1e-2, "batch_size": 8, "n_symbols": 4}
    grid = [{"width": 4, "length": 4}, {"width": 4, "length": 5}]
    runner = sweep.runner(config, "default")
    calls = []

    def first_only(points):
        calls.append(points)
        if len(calls) > 1:
            raise KeyboardInterrupt  # interrupted after the first point
        return runner(points)

    with pytest.raises(KeyboardInterrupt):
        results.run(sweep.name, config, grid, run_group=first_only, group_by=("length",), code=sweep.run,
                    scale="default", progress=False)
    partial = results.load(sweep.name, "default")
    partial.provenance["lib_hash"] = "0" * 16  # as if computed by code since changed
    results.save(partial)
    with pytest.warns(UserWarning, match="resuming 1 stored points computed by other code"):
        done = results.run(sweep.name, config, grid, run_group=runner, group_by=("length",), code=sweep.run,
                           scale="default", progress=False)
    assert done.complete


def test_a_result_hashes_only_the_part_of_its_entry_module_that_its_run_function_reaches(tmp_path, monkeypatch):
    """Issue 30, item 5: adding a sweep (or anything its run function does not reach) to a sweeps
    file leaves the results already there fresh; changing what the run function calls does not."""
    root = tmp_path / "repo"
    (root / "lib" / "pkg").mkdir(parents=True)
    for init in (root / "lib" / "__init__.py", root / "lib" / "pkg" / "__init__.py"):
        init.write_text("")
    (root / "lib" / "pkg" / "helpers.py").write_text("def scale(x):\n    return 2 * x\n")
    sweeps = root / "lib" / "pkg" / "sweeps.py"
    base = ('"""Sweeps."""\nfrom . import helpers\nfrom .helpers import scale\nSTEPS = 3\n\n\n'
            'def _inner(x):\n    return scale(x) + STEPS\n\n\n'
            'def run(config, points):\n    return [_inner(p) for p in points]\n\n\n'
            'def other(config, points):\n    return helpers.scale(1)\n\n\nSWEEPS = {"a": run}\n')
    sweeps.write_text(base)
    monkeypatch.setattr(results, "ROOT", root)
    monkeypatch.setattr(results, "LIB_DIR", root / "lib")
    record = results.code_record("lib.pkg.sweeps", ("run",))
    assert record["lib_entry"] == {"file": "lib/pkg/sweeps.py", "roots": ["run"]}
    assert set(record["lib_files"]) == {"lib/__init__.py", "lib/pkg/__init__.py", "lib/pkg/helpers.py",
                                        "lib/pkg/sweeps.py"}

    def fresh():
        return results.code_hash(record["lib_files"], entry=record["lib_entry"]) == record["lib_hash"]

    sweeps.write_text(base + '\n\ndef new_sweep(config, points):\n    return [0]\n\n\nSWEEPS["b"] = new_sweep\n'
                      .replace('SWEEPS["b"] = new_sweep\n', ''))
    assert fresh()  # a new sweep in the same file
    sweeps.write_text(base.replace("return helpers.scale(1)", "return helpers.scale(2)"))
    assert fresh()  # a function the run function never reaches
    sweeps.write_text(base.replace("STEPS = 3", "STEPS = 4"))
    assert not fresh()  # a constant it reads
    sweeps.write_text(base.replace("scale(x) + STEPS", "scale(x) - STEPS"))
    assert not fresh()  # a private helper it calls
    sweeps.write_text(base)
    (root / "lib" / "pkg" / "helpers.py").write_text("def scale(x):\n    return 3 * x\n")
    assert not fresh()  # another module it imports
    (root / "lib" / "pkg" / "helpers.py").write_text("def scale(x):\n    return 2 * x\n")
    sweeps.write_text(base.replace("SWEEPS = {", "print(globals())\nSWEEPS = {"))
    assert results.entry_selection(sweeps, ["run"]) is None  # dynamic name access: the whole file counts
    assert not fresh()
    sweeps.write_text(base.replace("def run(", "def run_renamed("))
    assert not fresh()  # the function that computed it is gone


def test_verify_says_identical_within_tolerance_or_differs_by_the_sweeps_declared_tolerance(store, monkeypatch):
    """Issue 30, item 4: a float32 result perturbed within its sweep's tolerance (as another CPU's
    rounding would) still verifies, and says so; beyond it, or in an integer count, it differs."""
    import dataclasses

    def define(scale):
        return {"seeds": [0, 1]}, [{"T": 10}, {"T": 20}]

    def run(config, points, *, scale, device=None, stop_after=None):
        return [{"acc": [0.5 + p["T"] / 100, 0.25], "memorized": [p["T"], p["T"] - 1]} for p in points]

    tolerant = results.Sweep("chen2024", "toy_tolerance", define, run,
                             tolerance=results.Tolerance({"acc": 0.02}, why="measured in a test"))
    sweeps = {"toy_tolerance": tolerant}
    monkeypatch.setattr(results, "find_sweep", lambda name: sweeps[name.split("_", 1)[1]])
    stored = tolerant.result("default", progress=False)
    ok, message = results.verify(results.load(stored.name, "default"), progress=False)
    assert ok and ": identical (" in message

    def perturb(result, key, index, delta):
        for point in result.points:  # every point: verify re-runs the cheapest one
            point["result"][key][index] += delta
        results.save(result)
        return results.load(result.name, "default")

    near = perturb(results.load(stored.name, "default"), "acc", 0, 0.015)  # 3 of 200 examples
    ok, message = results.verify(near, progress=False)
    assert ok and "within tolerance" in message and "largest difference 0.015" in message
    assert near.code["outcome"] == "within tolerance" and not near.is_stale()
    far = perturb(results.load(stored.name, "default"), "acc", 0, 0.03)  # now 0.045 from the rerun
    ok, message = results.verify(far, progress=False)
    assert not ok and "differs" in message and "beyond its tolerance" in message
    count = perturb(perturb(far, "acc", 0, -0.045), "memorized", 1, 1)  # an integer count is exact
    ok, message = results.verify(count, progress=False)
    assert not ok and "/memorized[1]" in message
    exact = dataclasses.replace(tolerant, tolerance=None)
    sweeps["toy_tolerance"] = exact
    ok, message = results.verify(near, progress=False)
    assert not ok and "declares no tolerance" in message
    assert results.compare({"acc": [0.5]}, {"acc": [0.51]}, tolerance=tolerant.tolerance).outcome == "within tolerance"
    assert results.compare({"acc": [0.5]}, {"acc": 0.5}).outcome == "differs"
    # a band on the seed mean: seeds may move further, their mean may not
    on_mean = results.Tolerance({"acc": 0.02}, mean=True, why="measured in a test")
    assert results.compare({"acc": [0.5, 0.7]}, {"acc": [0.56, 0.62]}, tolerance=on_mean).outcome == "within tolerance"
    assert results.compare({"acc": [0.5, 0.7]}, {"acc": [0.56, 0.68]}, tolerance=on_mean).outcome == "differs"
    with pytest.raises(ValueError, match="rest on"):
        results.Tolerance({"acc": 0.01})
    with pytest.raises(ValueError, match="finite numbers"):
        results.Tolerance({"acc": -1}, why="x")


def test_times_sums_each_papers_sweeps_at_one_scale(store, capsys):
    a = results.run("pa_one", {"seeds": [0, 1]}, [{"x": 1}, {"x": 2}], square, scale="default", progress=False)
    b = results.run("pa_two", {"seeds": [0]}, [{"x": 3}], square, scale="default", progress=False)
    results.run("pb_one", {"seeds": [0]}, [{"x": 4}], square, scale="smoke", progress=False)  # another scale: left out
    table = results.times_table(results.all_results(), "default").splitlines()
    assert [line.split()[:2] for line in table[1:3]] == [["pa_one", "2"], ["pa_two", "1"]]
    assert float(table[-2].split()[-1]) == pytest.approx((a.wall_s + b.wall_s) / 60, abs=0.05)
    assert table[-2].startswith("total, pa") and table[-1].startswith("total") and "pb" not in "".join(table)
    assert results.main(["times"]) == 0 and "pa_one" in capsys.readouterr().out
    with pytest.raises(ValueError):
        results.times_table([], "huge")
    # seed lists under other keys and nested dicts count too; lists that differ show fewest-most
    results.run("pa_three", {"base_seeds": [0, 1, 2], "finetune": {"seeds": [0, 1, 2]}}, [{"x": 5}], square,
                scale="default", progress=False)
    results.run("pa_four", {"base_seeds": [0, 1, 2], "other_seeds": [0]}, [{"x": 6}], square, scale="default",
                progress=False)
    rows = {x.split()[0]: x.split()[1] for x in results.times_table(results.all_results(), "default").splitlines()}
    assert rows["pa_three"] == "3" and rows["pa_four"] == "1-3"
    assert results.seed_counts({"lr": 1, "seeds": [0], "finetune": {"seeds": [0, 1]}}) == {"seeds": 1, "finetune.seeds": 2}
    # groups run side by side by an engine: the run's elapsed time counts, not the groups' sum
    assert 0 < a.provenance["elapsed_s"]
    a.provenance.update(engine={"name": "processes", "workers": 2}, elapsed_s=a.wall_s / 2 + 60)
    results.save(a)
    line = next(x for x in results.times_table(results.all_results(), "default").splitlines() if x.startswith("pa_one"))
    assert float(line.split()[2]) == pytest.approx(a.wall_s / 120 + 1, abs=0.05) and "2 workers side by side" in line
    # a sweep run on an accelerator is marked, and named under the totals
    assert "not a CPU" not in "".join(results.times_table(results.all_results(), "default"))
    b.provenance["device"] = "NVIDIA H200"
    results.save(b)
    table = results.times_table(results.all_results(), "default").splitlines()
    assert "(on NVIDIA H200, not a CPU)" in next(x for x in table if x.startswith("pa_two"))
    assert "not a CPU" not in next(x for x in table if x.startswith("pa_one"))
    assert table[-1].startswith("(the totals count 1 sweep(s)") and table[-1].endswith(": pa_two)")


def test_a_papers_command_line_stops_at_its_budget_and_resumes(store, tmp_path_factory, monkeypatch, capsys):
    """``--budget``: the group in progress stops at an evaluation (exit status 3, its state in a
    checkpoint), and the same command run again finishes it with the uninterrupted numbers."""
    from test_queue import SWEEP

    sweeps = {"queue_test": SWEEP}
    for bad in ("0", "-1", "nan"):
        with pytest.raises(SystemExit) as error:
            results.sweeps_main("course", sweeps, ["paper", "--budget", bad])
        assert error.value.code == 2
    monkeypatch.setenv("ABC_DATA", str(tmp_path_factory.mktemp("whole")))
    assert results.sweeps_main("course", sweeps, ["paper"]) == 0
    whole = SWEEP.load("paper")
    monkeypatch.setenv("ABC_DATA", str(store))
    codes = [results.sweeps_main("course", sweeps, ["paper", "--budget", "1e-9"]) for _ in range(4)]
    assert codes == [3] * 4 and SWEEP.load("paper") is None  # steps 10-40 of the first group's 60
    assert "run the same command again" in capsys.readouterr().out
    assert results.sweeps_main("course", sweeps, ["paper"]) == 0
    cut = SWEEP.load("paper")
    assert len(cut.points) == len(whole.points) == 4
    for a, b in zip(cut.points, whole.points):
        assert a["result"] == b["result"]


def test_a_resumed_group_counts_the_time_its_checkpoints_hold(store):
    """A group cut by a budget and resumed stores its whole time: what its trainings had run
    when they saved (read from the checkpoints) plus the rerun's own clock."""
    import torch
    from test_queue import SWEEP

    import lib.train as trainer

    sweeps = {"queue_test": SWEEP}
    assert results.sweeps_main("course", sweeps, ["paper", "--budget", "1e-9"]) == 3
    (saved,) = (store / "checkpoints").glob("course_queue_test.paper/*/train-*.pt")
    state = torch.load(saved, weights_only=True)
    state["wall_s"] = 100.0  # as if the cut part had trained for 100 s
    torch.save(state, saved)
    assert trainer.time_in_checkpoints(saved.parent) == 100.0
    assert trainer.time_in_checkpoints(store / "nowhere") == 0.0
    assert results.sweeps_main("course", sweeps, ["paper"]) == 0
    done = SWEEP.load("paper")
    first, second = done.points[0]["wall_s"], done.points[2]["wall_s"]
    assert 100.0 < first < 100.0 + 60 and 0.0 < second < 60  # the resumed group carries the 100 s, the other not
    assert 100.0 < done.provenance["elapsed_s"] < 100.0 + 120
