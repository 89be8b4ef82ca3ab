import pytest

from lib import claims


def test_verdict_follows_the_check():
    assert claims.verdict(True) == "reproduced"
    assert claims.verdict(True, substituted=True) == "substituted"
    assert claims.verdict(False, partly=True) == "partly"
    assert claims.verdict(False, substituted=True) == "not reproduced"


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


def test_report_card_table_puts_a_text_badge_first_and_links_each_claim(tmp_path, monkeypatch):
    monkeypatch.setenv("ABC_DATA", str(tmp_path))
    record = claims.Recorder("chen2024", "chapters/x", scale="default")
    record(claims.check(paper="chen2024", ref="Theorem 2", label="l2", statement="s | with a bar", paper_value="p",
                        ours="o", passed=False))
    table = claims.table_markdown(claims.collect())
    rows = table.split("\n* - ")
    assert rows[0].startswith("```{list-table}") and rows[1].startswith("verdict")
    assert rows[2].startswith("{bdg-danger}`not reproduced`") and "{ref}`Theorem 2 <l2>` (default scale)" in rows[2]
    assert not any(ord(ch) > 0x2000 for ch in table), "no emoji or symbol that needs a special font"


def test_an_update_keeps_its_place_so_the_card_follows_the_chapter(tmp_path, monkeypatch):
    monkeypatch.setenv("ABC_DATA", str(tmp_path))
    record = claims.Recorder("chen2024", "chapters/x", scale="default")
    common = dict(paper="chen2024", statement="s", paper_value="p", ours="o", label="x")
    for ref in ("Theorem 5", "Figure 2a", "Theorem 1"):
        record(claims.check(ref=ref, passed=True, **common))
    record(claims.check(ref="Figure 2a", passed=False, **common))  # re-running one cell
    assert [c.ref for c in claims.collect()] == ["Theorem 5", "Figure 2a", "Theorem 1"]


def test_coverage_counts_the_papers_numbered_results_a_claim_speaks_to():
    assert claims.covers("Props. 7-10") == {f"Proposition {i}" for i in range(7, 11)}
    assert claims.covers("Figure 3 / Sec. 6.2") == {"Figure 3"}
    assert claims.covers("Proposition 4, Lemma 2") == {"Proposition 4", "Lemma 2"}
    assert claims.covers("Sec. 5.1 (Kruskal-rank test)") == set()
    assert claims.covers("Lemma 5.1 and Theorem 3.1") == {"Lemma 5.1", "Theorem 3.1"}
    assert claims.covers("Corollary 8.1") == {"Corollary 8.1"}
    assert claims.covers("Lemmas 4.5-4.7 and Remark I.6") == {"Lemma 4.5", "Lemma 4.6", "Lemma 4.7", "Remark I.6"}
    assert claims.covers("Figures 1 and 21 (a_h I)") == {"Figure 1", "Figure 21"}
    assert claims.covers("Figures 9 and 10, Theorems 5.1 and 5.2") == {"Figure 9", "Figure 10", "Theorem 5.1", "Theorem 5.2"}
    made = [claims.Claim(paper="chen2024", ref=ref, statement="", paper_value="", ours="", verdict=v, scale="default",
                         chapter="c", label="l") for ref, v in (("Theorem 1", "reproduced"), ("Figures 5-6", "partly"))]
    (row,) = claims.summary(made)
    assert (row["reproduced"], row["partly"], row["not reproduced"]) == (1, 1, 0)
    assert row["covered"] == ["Theorem 1", "Figure 5", "Figure 6"]
    assert len(row["missing"]) == len(claims.RESULTS["chen2024"]) - 3
    # an unnumbered item (a remark, an equation) is covered by a claim whose ref names it exactly
    unnumbered = [claims.Claim(paper="richard2024", ref=ref, statement="", paper_value="", ours="", verdict="partly",
                               scale="default", chapter="c", label="l")
                  for ref in ("Sec. 3.2 (Scaling)", "Sec. 3.2 (Scaling), again")]
    (row,) = claims.summary(unnumbered)
    assert row["covered"] == ["Sec. 3.2 (Scaling)"]


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


# ----------------------------------------------------------------------------- checks (issue 30)
from lib import results  # noqa: E402
from lib.paper_setup import NOT_STATED, Setup, Stated  # noqa: E402

SETUP = Setup("chen2024", "Figure 9", {"optimizer": Stated("sgd", "Sec. 9.1"), "words": Stated(500, "Sec. 9.1"),
                                        "lr": Stated(NOT_STATED), "layers": Stated([1, 2, 3], "caption")})


def _stored(tmp_path, name="chen2024_toy", value=1.0):
    results.run(name, {"seeds": [0]}, [{"x": 1}], lambda p: {"acc": value}, scale="default", progress=False)
    return results.load(name, "default")


def test_a_verification_keeps_a_claim_valid_and_a_recomputation_does_not(tmp_path, monkeypatch):
    monkeypatch.setenv("ABC_DATA", str(tmp_path))
    r = _stored(tmp_path)
    record = claims.Recorder("chen2024", "chapters/x", scale="default")

    def figure(result):
        return claims.check(paper="chen2024", ref="Figure 9", label="x", statement="s", paper_value="1.0",
                            ours=f"{result.get(x=1)['acc']:.2f}", passed=True, results=result)

    record(figure(r))
    # verified later (same numbers, a later record in force): the claim stays valid and re-derives,
    # though the evidence computed now names the verification
    verification = {**{k: r.provenance[k] for k in ("lib_files", "lib_hash") if k in r.provenance},
                    "git_commit": "f" * 40, "created": "2099-01-01T00:00:00+00:00"}
    r.provenance.setdefault("verified", []).append(verification)
    results.save(r)
    verified = results.load("chen2024_toy", "default")
    assert claims.Evidence.of(verified).created == "2099-01-01T00:00:00+00:00"
    assert claims.stale() == [] and claims.rederive("chapters/x", "default", [figure(verified)]) == []
    # re-recording it (a rebuild of the chapter) keeps the stored stamp: the build rewrites no file
    path = tmp_path / "claims" / "chapters__x.default.json"
    before = path.read_text()
    record(figure(verified))
    assert path.read_text() == before
    # recomputed under the same code with the same numbers: another run, which the claim did not read
    again = _stored(tmp_path)
    again.provenance["created"] = "2000-01-01T00:00:00+00:00"
    results.save(again)
    assert "recomputed since" in claims.stale()[0][1]
    assert any(p.startswith("Figure 9: evidence") for p in claims.rederive("chapters/x", "default", [figure(again)]))


def test_a_setup_difference_is_computed_field_by_field_and_never_hides_a_field():
    ours = {"optimizer": "adam", "words": 500.0, "lr": 0.1, "layers": (1, 2, 3)}
    diff = SETUP.difference(ours)
    assert [d.field for d in diff] == ["optimizer"]  # 500 == 500.0, a tuple equals a list, lr is not stated
    assert str(diff[0]) == "optimizer: paper sgd (Sec. 9.1), ours adam"
    diff = SETUP.difference({**ours, "words": 50}, irrelevant={"words": "the check reads one layer"})
    assert [(d.field, bool(d.irrelevant)) for d in diff] == [("optimizer", False), ("words", True)]
    with pytest.raises(ValueError, match="missing"):
        SETUP.difference({"optimizer": "sgd"})
    with pytest.raises(ValueError, match="not in the paper's setup"):
        SETUP.difference({**ours, "batch": 256})
    with pytest.raises(ValueError, match="source"):
        Stated(500)  # a stated value must say where the paper states it


def test_a_check_carries_its_evidence_and_its_computed_verdict(tmp_path, monkeypatch):
    monkeypatch.setenv("ABC_DATA", str(tmp_path))
    r = _stored(tmp_path)
    same = {"optimizer": "sgd", "words": 500, "lr": 0.1, "layers": [1, 2, 3]}
    common = dict(paper="chen2024", ref="Figure 9", label="x", statement="s", paper_value="p", ours="o")
    c = claims.check(**common, passed=True, results=r, setup=SETUP, config=same)
    assert c.verdict == "reproduced" and c.scale == "default" and c.evidence[0].result == "chen2024_toy"
    assert c.evidence[0].lib_hash == r.code["lib_hash"] and c.function.endswith("test_a_check_carries_its_evidence_"
                                                                                   "and_its_computed_verdict")
    assert claims.check(**common, passed=True, results=r, setup=SETUP, config={**same, "words": 50}).verdict == \
        "substituted"
    irrelevant = claims.check(**common, passed=True, results=r, setup=SETUP, config={**same, "words": 50},
                              irrelevant={"words": "shown not to matter"})
    assert irrelevant.verdict == "reproduced" and len(irrelevant.differences) == 1
    assert claims.check(**common, passed=False, partly=True).verdict == "partly"
    with pytest.raises(ValueError, match="go together"):
        claims.check(**common, passed=True, setup=SETUP)
    with pytest.raises(TypeError):
        claims.check(**common, passed=True, results="chen2024_toy")


def test_a_recorded_check_rederives_and_goes_stale_when_its_evidence_changes(tmp_path, monkeypatch):
    monkeypatch.setenv("ABC_DATA", str(tmp_path))
    r = _stored(tmp_path)
    record = claims.Recorder("chen2024", "chapters/x", scale="default")

    def figure(result):
        return claims.check(paper="chen2024", ref="Figure 9", label="x", statement="s", paper_value="1.0",
                            ours=f"{result.get(x=1)['acc']:.2f}", passed=result.get(x=1)["acc"] > 0.5, results=result)

    record(figure(r))
    stored = claims.collect()[0]
    assert stored.evidence[0]["result"] == "chen2024_toy" and stored.check.endswith(".figure")
    assert claims.rederive("chapters/x", "default", [figure(r)]) == []
    assert claims.stale() == []
    # the result is recomputed with other numbers: the stored claim no longer re-derives, and is stale
    results.path_for("chen2024_toy", "default").unlink()
    assert "missing" in claims.stale()[0][1]
    r2 = _stored(tmp_path, value=0.25)
    r2.provenance["lib_hash"] = "0" * 16
    results.save(r2)
    problems = claims.rederive("chapters/x", "default", [figure(r2)])
    assert any("verdict" in p for p in problems) and any("ours" in p for p in problems)
    assert "recomputed since" in claims.stale()[0][1]
    assert claims.rederive("chapters/x", "default", []) == ["Figure 9: stored in chapters__x.default.json but no "
                                                            "check computed it"]
    with pytest.raises(TypeError, match="claims.Check"):
        record("Figure 9")
    box = claims.verdict_box(stored)
    assert box.startswith("```{admonition} Figure 9: reproduced") and ":class: tip" in box


def test_inconclusive_is_a_verdict_that_never_counts_as_reproduced():
    assert claims.verdict(False, inconclusive=True) == "inconclusive"
    assert claims.verdict(False, partly=True, inconclusive=True) == "inconclusive"
    assert claims.verdict(False, substituted=True, inconclusive=True) == "inconclusive"
    with pytest.raises(ValueError, match="inconclusive"):
        claims.verdict(True, inconclusive=True)
    common = dict(paper="course", ref="Figure 9", label="x", statement="s", paper_value="a", ours="b")
    assert claims.check(**common, passed=False, inconclusive=True).verdict == "inconclusive"
    with pytest.raises(ValueError, match="cannot decide"):
        claims.check(**common, passed=True, inconclusive=True)
    assert "inconclusive" in claims.VERDICTS and claims.BADGES["inconclusive"] and claims._BOX["inconclusive"]
    from lib import plots
    assert list(plots.VERDICT_COLORS) == list(claims.VERDICTS)


def test_covers_reads_appendix_numbers_and_observations():
    assert claims.covers("Remarks I.3-I.5") == {"Remark I.3", "Remark I.4", "Remark I.5"}
    assert claims.covers("Claim E.2 and App. H") == {"Claim E.2"}
    assert claims.covers("Observation 1.2") == {"Observation 1.2"}
    assert claims.covers("Lemmas 4.5-4.7") == {"Lemma 4.5", "Lemma 4.6", "Lemma 4.7"}
    assert claims.covers("Sec. 6.1") == set()


def test_outcome_reads_three_valued_conditions():
    assert claims.outcome(True, True) == {"passed": True, "partly": True, "inconclusive": False}
    assert claims.outcome(None, True) == {"passed": False, "partly": True, "inconclusive": False}
    assert claims.outcome(None, None)["inconclusive"] and claims.outcome(None)["inconclusive"]
    assert claims.outcome(False, None)["inconclusive"]  # the partial form undecided: nothing shown either way
    assert claims.outcome(False, False) == {"passed": False, "partly": False, "inconclusive": False}
    assert claims.verdict(**claims.outcome(None)) == "inconclusive"
    with pytest.raises(ValueError, match="claims.outcome: full"):
        claims.outcome("yes")
