import pytest

from lib import claims


def test_verdict_follows_the_check():
    assert claims.verdict(True) == "reproduced"
    assert claims.verdict(True, substitute="digits instead of ImageNet") == "substituted"
    assert claims.verdict(False, partly=True) == "partly"
    assert claims.verdict(False, substitute="x") == "not reproduced"


def test_record_and_collect_prefers_the_largest_scale(tmp_path, monkeypatch):
    monkeypatch.setenv("ABC_DATA", str(tmp_path))
    common = dict(paper="chen2024", ref="Theorem 1", statement="s", paper_value="100%", chapter="chapters/x", label="x")
    claims.record(ours="90%", passed=False, scale="default", **common)
    claims.record(ours="40%", passed=False, scale="smoke", **common)
    claims.record(ours="95%", passed=False, partly=True, scale="default", **common)  # replaces the first
    collected = claims.collect()
    assert len(collected) == 1
    assert (collected[0].scale, collected[0].ours, collected[0].verdict) == ("default", "95%", "partly")
    table = claims.table_markdown(collected)
    assert "{ref}`Theorem 1 <x>`" in table and "partly" in table
    with pytest.raises(ValueError, match="unknown paper"):
        claims.record(**{**common, "paper": "nobody"}, ours="", passed=True)


def test_recorder_binds_paper_and_chapter_and_drops_reduced_only_at_paper_scale(tmp_path, monkeypatch):
    monkeypatch.setenv("ABC_DATA", str(tmp_path))

    class Evidence:  # a results.Result stand-in: only its scale matters here
        def __init__(self, scale):
            self.scale = scale

    record = claims.Recorder("chen2024", "chapters/x", scale="default")
    common = dict(statement="s", paper_value="p", ours="o", passed=True, label="x")
    assert record(ref="A", reduced="reduced sizes", result=Evidence("default"), **common) is None
    record(ref="B", reduced="reduced sizes", result=Evidence("paper"), **common)
    record(ref="C", substitute="digits instead of ImageNet", result=Evidence("paper"), **common)
    got = {c.ref: c for c in claims.collect()}
    assert (got["A"].verdict, got["A"].note) == ("substituted", "substitute: reduced sizes")
    assert (got["B"].verdict, got["B"].note) == ("reproduced", "")
    assert got["C"].verdict == "substituted" and got["A"].chapter == "chapters/x" and got["A"].paper == "chen2024"
    assert got["A"].scale == "default"
    record(ref="E", scale="paper", **common)  # evidence loaded at another scale
    assert {c.ref: c for c in claims.collect()}["E"].scale == "paper"
    with pytest.raises(ValueError, match="not both"):
        record(ref="D", reduced="a", substitute="b", **common)
    with pytest.raises(ValueError, match="unknown paper"):
        claims.Recorder("nobody", "chapters/x")
