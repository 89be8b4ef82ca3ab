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
