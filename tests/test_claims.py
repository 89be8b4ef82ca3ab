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
    # another optimiser stays a substitute at the paper's sizes; the sizes join it only below them
    record(ref="D", reduced="reduced sizes", substitute="Adam, not the paper's SGD", result=Evidence("paper"), **common)
    record(ref="F", reduced="reduced sizes", substitute="Adam, not the paper's SGD", result=Evidence("default"), **common)
    got = {c.ref: c for c in claims.collect()}
    assert (got["D"].verdict, got["D"].note) == ("substituted", "substitute: Adam, not the paper's SGD")
    assert got["F"].note == "substitute: reduced sizes; Adam, not the paper's SGD"
    with pytest.raises(ValueError, match="unknown paper"):
        claims.Recorder("nobody", "chapters/x")


def test_report_card_table_puts_a_text_badge_first_and_links_each_claim(tmp_path, monkeypatch):
    monkeypatch.setenv("ABC_DATA", str(tmp_path))
    record = claims.Recorder("chen2024", "chapters/x", scale="default")
    record(ref="Theorem 2", label="l2", statement="s | with a bar", paper_value="p", ours="o", passed=False)
    table = claims.table_markdown(claims.collect())
    rows = table.split("\n* - ")
    assert rows[0].startswith("```{list-table}") and rows[1].startswith("verdict")
    assert rows[2].startswith("{bdg-danger}`not reproduced`") and "{ref}`Theorem 2 <l2>` (default scale)" in rows[2]
    assert not any(ord(ch) > 0x2000 for ch in table), "no emoji or symbol that needs a special font"


def test_an_update_keeps_its_place_so_the_card_follows_the_chapter(tmp_path, monkeypatch):
    monkeypatch.setenv("ABC_DATA", str(tmp_path))
    record = claims.Recorder("chen2024", "chapters/x", scale="default")
    common = dict(statement="s", paper_value="p", ours="o", label="x")
    for ref in ("Theorem 5", "Figure 2a", "Theorem 1"):
        record(ref=ref, passed=True, **common)
    record(ref="Figure 2a", passed=False, **common)  # re-running one cell
    assert [c.ref for c in claims.collect()] == ["Theorem 5", "Figure 2a", "Theorem 1"]


def test_coverage_counts_the_papers_numbered_results_a_claim_speaks_to():
    assert claims.covers("Props. 7-10") == {f"Proposition {i}" for i in range(7, 11)}
    assert claims.covers("Figure 3 / Sec. 6.2") == {"Figure 3"}
    assert claims.covers("Proposition 4, Lemma 2") == {"Proposition 4", "Lemma 2"}
    assert claims.covers("Sec. 5.1 (Kruskal-rank test)") == set()
    assert claims.covers("Lemma 5.1 and Theorem 3.1") == {"Lemma 5.1", "Theorem 3.1"}
    assert claims.covers("Corollary 8.1") == {"Corollary 8.1"}
    assert claims.covers("Lemmas 4.5-4.7 and Remark I.6") == {"Lemma 4.5", "Lemma 4.6", "Lemma 4.7"}
    assert claims.covers("Figures 1 and 21 (a_h I)") == {"Figure 1", "Figure 21"}
    assert claims.covers("Figures 9 and 10, Theorems 5.1 and 5.2") == {"Figure 9", "Figure 10", "Theorem 5.1", "Theorem 5.2"}
    made = [claims.Claim(paper="chen2024", ref=ref, statement="", paper_value="", ours="", verdict=v, scale="default",
                         chapter="c", label="l") for ref, v in (("Theorem 1", "reproduced"), ("Figures 5-6", "partly"))]
    (row,) = claims.summary(made)
    assert (row["reproduced"], row["partly"], row["not reproduced"]) == (1, 1, 0)
    assert row["covered"] == ["Theorem 1", "Figure 5", "Figure 6"]
    assert len(row["missing"]) == len(claims.RESULTS["chen2024"]) - 3


def test_rounding_noise_does_not_change_a_claims_wording():
    assert claims.below(2e-8) == claims.below(3e-8) == "< 1e-07"
    assert claims.below(6e-7) == "< 1e-06" and claims.below(0.0) == "0"


def test_nothing_meaningless_is_recorded_and_a_corrupt_claims_file_is_named_not_overwritten(tmp_path, monkeypatch):
    monkeypatch.setenv("ABC_DATA", str(tmp_path))
    common = dict(paper="chen2024", ref="Theorem 1", statement="s", chapter="chapters/x", label="x", scale="default")
    with pytest.raises(ValueError, match="ours must be a finite number"):
        claims.record(paper_value="1", ours=float("nan"), passed=True, **common)
    with pytest.raises(ValueError, match="not just NaN"):
        claims.record(paper_value="1", ours="nan", passed=True, **common)
    with pytest.raises(TypeError, match="paper_value must be a string or a number"):
        claims.record(paper_value=object(), ours="1", passed=True, **common)
    with pytest.raises(TypeError, match="passed must be"):
        claims.verdict("no")
    assert not (tmp_path / "claims").exists() or not list((tmp_path / "claims").glob("*.json"))
    claims.record(paper_value="1", ours=0.5, passed=True, **common)
    other = dict(common, chapter="chapters/y", ref="Theorem 2")
    claims.record(paper_value="1", ours="0.5", passed=True, **other)
    corrupt = tmp_path / "claims" / "chapters__x.default.json"
    corrupt.write_text("[{\"paper\": ")
    with pytest.raises(ValueError, match=r"chapters__x\.default\.json: not a claims file"):
        claims.record(paper_value="1", ours="1", passed=True, **common)
    assert corrupt.read_text() == "[{\"paper\": "  # left as it was
    with pytest.warns(UserWarning, match=r"skipped .*chapters__x\.default\.json"):
        assert [c.ref for c in claims.collect()] == ["Theorem 2"]  # the other chapter's claims survive
