"""The trained checks that lacked tests on synthetic results (issue 32's rule): the official-recipe
comparison (``official_rebuilt``, ``official_gap``), Figure 3 and its d = 64 form and
``trained_capacity`` of Mahdavi et al. 2024 (:mod:`lib.papers.mahdavi2024.checks.training`);
Theorem 3 of Bhattamishra et al. 2024 (``theorem_3``, on the ``lstm_protocol`` result); Figure 6 of
Boix-Adsera et al. 2024 (``figure_6``, on the ``ppl_headroom`` result); Figure 3 / Sec. 6.2 of Chen &
Zou 2024 (``figure_3``, attention shares of trained models, decided over seeds since stop 46).

Each is fed synthetic stored results at the paper's own grid (each sweep's ``define("paper")``)
with our seed count (5): data shaped as the paper (or, for the course's own findings, the course)
describes must give the passing verdict, its negation "not reproduced", and noise at five seeds
"inconclusive". Where a check cannot say inconclusive by design (a threshold on one trained model,
a per-seed comparison with the official code's runs), a comment says so and the tests cover the
verdicts it can give. Written first against the checks as they were, these tests found that
``official_gap`` read pure seed noise as a finding (it decided on seed means) and that ``figure_3``
and ``trained_capacity`` raised instead of failing when no point is memorized by every seed; both
are mended."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from lib.papers.bhattamishra2024 import analysis as sep_analysis
from lib.papers.bhattamishra2024 import checks as sep_checks
from lib.papers.bhattamishra2024.lower_bounds import index_accuracy_bound
from lib.papers.bhattamishra2024.sweeps import SWEEPS as SEP_SWEEPS
from lib.papers.boixadsera2024 import analysis as sym_analysis
from lib.papers.boixadsera2024 import checks as sym_checks
from lib.papers.boixadsera2024.sweeps import SWEEPS as SYM_SWEEPS
from lib.papers.mahdavi2024 import checks as mem_checks
from lib.papers.mahdavi2024.comparison import OFFICIAL_CODE
from lib.papers.mahdavi2024.sweeps import SWEEPS as MEM_SWEEPS
from lib.results import Result

SEEDS = 5  # the default scale's seed count


# ============================================================================= Mahdavi et al.: the official recipe
def comparison(accuracy, seed: int = 0, noise: float = 0.0) -> Result:
    """The ``official_vs_ours`` sweep at its grid (it runs at one size: the paper scale's is the
    default's), with its five seeds (42, 1, 2, 3, 4): ``accuracy(recipe, H, seed)`` is each run's
    accuracy by the code's rule, every run adding N(0, noise^2), clipped to [0, 1]."""
    config, grid = MEM_SWEEPS["official_vs_ours"].define("paper")
    seeds = config["seeds"]
    assert len(seeds) == SEEDS
    rng = np.random.default_rng(seed)
    points = []
    for point in grid:
        acc = np.clip([accuracy(point["recipe"], point["H"], s) for s in seeds] + rng.normal(0, noise, len(seeds)),
                      0.0, 1.0).tolist()
        points.append({"point": point, "result": {"seeds": seeds, "acc_best_loss": acc, "acc_best_loss_early": acc,
                                                  "acc_last": acc, "stopped_at": [-1] * len(seeds), "steps": 20_000},
                       "wall_s": 0.0})
    return Result("mahdavi2024_official_vs_ours", "paper", {"config": config}, grid=grid, points=points)


def official(H: int, seed: int) -> float:
    """The official code's accuracy at (H, seed) where it was run by hand, else its mean at H."""
    return OFFICIAL_CODE[H].get(seed, float(np.mean(list(OFFICIAL_CODE[H].values()))))


#: the course's finding (issue 16): our initialisation carries the gap, our data adds little
GAIN = {"official": 0.0, "our init": 0.2, "our data": 0.02, "ours": 0.22, "our embedding": 0.1, "our W_Q, W_K": 0.05,
        "our W_V, W_O": 0.0, "our decoder": 0.0}


def ours_gains(gain: dict):
    return lambda recipe, H, seed: min(1.0, official(H, seed) + gain[recipe])


# official_rebuilt cannot say inconclusive by design: each (H, seed) is one run of the official
# code against our rebuild on the same data and the same initial weights, so the two differ only
# in arithmetic and are compared seed by seed within 0.05 (10 of T = 200), not over a spread.
def test_official_rebuilt_matching_the_code_seed_by_seed_passes_one_pair_apart_fails():
    assert mem_checks.official_rebuilt(comparison(ours_gains(GAIN))).verdict == "reproduced"

    def apart(by: float, at=None):  # the official recipe `by` from the code at `at` (every pair when None)
        def accuracy(recipe, H, seed):
            code = official(H, seed)
            if recipe != "official" or (at is not None and (H, seed) != at):
                return ours_gains(GAIN)(recipe, H, seed)
            return code + (by if code < 0.5 else -by)
        return accuracy

    assert mem_checks.official_rebuilt(comparison(apart(0.05))).verdict == "reproduced"  # 10 examples: within
    assert mem_checks.official_rebuilt(comparison(apart(0.055, at=(4, 2)))).verdict == "not reproduced"
    assert mem_checks.official_rebuilt(comparison(apart(0.3))).verdict == "not reproduced"


def test_official_rebuilt_ignores_seeds_the_code_never_ran():
    """Seeds 3 and 4 were not run by the official code: however they scatter, they are not compared."""
    def scattered(recipe, H, seed):
        return 1.0 - official(H, seed) if seed in (3, 4) else ours_gains(GAIN)(recipe, H, seed)
    assert mem_checks.official_rebuilt(comparison(scattered)).verdict == "reproduced"


def test_official_gap_one_ingredient_carrying_the_gap_passes_and_an_interaction_fails():
    assert mem_checks.official_gap(comparison(ours_gains(GAIN), noise=0.005)).verdict == "reproduced"
    # neither our init nor our data alone: the whole recipe's gain comes from the two together
    interaction = dict(GAIN, **{"our init": 0.02, "our data": 0.02, "ours": 0.25})
    assert mem_checks.official_gap(comparison(ours_gains(interaction), noise=0.005)).verdict == "not reproduced"


def test_official_gap_on_seed_noise_is_inconclusive():
    verdicts = [mem_checks.official_gap(comparison(lambda recipe, H, seed: 0.5, seed, 0.05)).verdict
                for seed in range(5)]
    assert verdicts == ["inconclusive"] * 5, verdicts


# ============================================================================= Mahdavi et al.: Figure 3
def saturation(T: int, H: int, saturated_heads: int) -> dict:
    """The first seed's saturation readings (as ``training.saturation_stats`` stores them) when
    every example has ``saturated_heads`` of its H heads saturated (largest coefficient 1.0, the
    others 0.5)."""
    top = np.where(np.arange(H)[None, :] < saturated_heads, 1.0, 0.5).repeat(T, 0)
    saturated = top > 0.99
    return {"max_coefficient": top.tolist(), "saturated_fraction": float(saturated.mean()),
            "examples_with_free_head": float((~saturated).any(1).mean()),
            "saturated_heads_hist": np.bincount(saturated.sum(1), minlength=H + 1).tolist()}


def fig3(name: str, saturated_heads, accuracy=lambda point, seed: 1.0) -> Result:
    """Sweep ``name`` (``fig3`` or ``fig3_d64``) at the paper's grid (H = 4, T = 550; H = 8,
    T = 1300; n = 32) with :data:`SEEDS` seeds: ``accuracy(point, seed)`` each seed's training
    accuracy, ``saturated_heads(point)`` the saturated heads per example of the first seed."""
    config, grid = MEM_SWEEPS[name].define("paper")
    assert [(p["H"], p["T"], p["n"]) for p in grid] == [(4, 550, 32), (8, 1300, 32)]
    config = dict(config, seeds=list(range(SEEDS)))
    points = [{"point": p, "result": {"seeds": list(range(SEEDS)), "acc": [accuracy(p, s) for s in range(SEEDS)],
                                      "stopped_at": [-1] * SEEDS,
                                      **saturation(p["T"], p["H"], saturated_heads(p))}, "wall_s": 0.0}
              for p in grid]
    return Result(f"mahdavi2024_{name}", "paper", {"config": config}, grid=grid, points=points)


def most(p):  # Appendix H: most pairs saturated (3 of 4, 7 of 8), every example keeps a free head
    return p["H"] - 1


def every(p):  # every head saturated: no example keeps a free head
    return p["H"]


def none(p):  # no pair saturated
    return 0


def quarter(p):  # a quarter of the pairs saturated: "many", not "most"
    return p["H"] // 4


FIGURE_3 = [(mem_checks.figure_3, "fig3"), (mem_checks.figure_3_d64, "fig3_d64")]


# Figure 3 (both forms) and trained_capacity cannot say inconclusive by design: saturation is read
# off one trained model (the first seed) against App. H's shares, and "fitted" is a threshold on
# the seeds' training accuracy (:mod:`lib.papers.mahdavi2024.checks.training`'s docstring). Their
# passing verdict is "substituted": our readings are of the final weights, the official code's of
# its lowest-loss checkpoint (and fig3_d64 runs our recipe).
@pytest.mark.parametrize("check,name", FIGURE_3, ids=["figure_3", "figure_3_d64"])
def test_figure_3_most_pairs_saturated_with_a_free_head_passes_and_its_negations_fail(check, name):
    passing = check({name: fig3(name, most)})
    assert passing.verdict == "substituted", passing.ours
    assert "weights measured" in {d.field for d in passing.differences}
    assert check({name: fig3(name, none)}).verdict == "not reproduced"  # few pairs saturated
    assert check({name: fig3(name, every)}).verdict == "not reproduced"  # no free head
    assert check({name: fig3(name, quarter)}).verdict == "partly"  # 25% saturated: many, not most
    unfitted = fig3(name, most, lambda p, s: 0.9 if p["H"] == 8 else 1.0)  # H = 8 does not memorize T = 1300
    assert check({name: unfitted}).verdict == "not reproduced"


def test_figure_3_needs_every_seed_to_fit_and_figure_3_d64_the_first():
    """At the paper's grid (one T per H) a single seed missing one of 1300 examples leaves H = 8
    without a fitted point: ``figure_3`` then fails, while ``figure_3_d64`` reads only the first
    seed, on which saturation is measured."""
    def one_short(seeds):
        return lambda p, s: 1.0 - 1 / p["T"] if p["H"] == 8 and s in seeds else 1.0
    assert mem_checks.figure_3({"fig3": fig3("fig3", most, one_short({4}))}).verdict == "not reproduced"
    assert mem_checks.figure_3_d64({"fig3_d64": fig3("fig3_d64", most, one_short({4}))}).verdict == "substituted"
    assert mem_checks.figure_3_d64({"fig3_d64": fig3("fig3_d64", most, one_short({0}))}).verdict == "not reproduced"


def test_trained_capacity_fitting_above_the_rank_bound_passes():
    # the paper's T (550, 1300) are both above H(n - 1) + 1 (125, 249): at its grid the check can
    # fail only when nothing is memorized (next test)
    assert mem_checks.trained_capacity({"fig3": fig3("fig3", most)}).verdict == "substituted"


@pytest.mark.parametrize("check,name", [pytest.param(mem_checks.figure_3, "fig3", id="figure_3"),
                                        pytest.param(mem_checks.trained_capacity, "fig3", id="trained_capacity"),
                                        pytest.param(mem_checks.figure_3_d64, "fig3_d64", id="figure_3_d64")])
def test_nothing_memorized_is_not_reproduced(check, name):
    """The negation of memorizing beyond the rank bound at the paper's grid: no seed fits either T."""
    assert check({name: fig3(name, most, lambda p, s: 0.8)}).verdict == "not reproduced"


# ============================================================================= Bhattamishra et al.: Theorem 3
def protocol(short=lambda row: 0.5 + 0.9 * (row["bound"] - 0.5), full=lambda bits: 1.0 if bits is None or bits >= 6
             else 0.6 + 0.08 * bits, distinct: int | None = None) -> Result:
    """The ``lstm_protocol`` result at the paper's grid (N = 20, LSTM-(1,64): a state of 2 x 64
    numbers): ``full(bits)`` the full state's accuracy at each precision (None: unquantized, with
    ``distinct`` messages, default 2^N), ``short(row)`` each message shorter than N bits' accuracy
    (default: 90% of the way from chance to its bound)."""
    config, grid = SEP_SWEEPS["lstm_protocol"].define("paper")
    n, width = config["length"], int(config["arch"].strip(")").split(",")[1])
    assert (n, width) == (20, 64)
    rows = [{"bits_per_number": b, "message_bits": None if b is None else 2 * width * b, "accuracy": full(b),
             "bound": 1.0 if b is None else index_accuracy_bound(2 * width * b, n),
             "distinct_messages": 2 ** n if distinct is None else distinct} for b in config["bits"] + [None]]
    shorts = []
    for k in config["short_units"]:
        for b in (1, 2):
            if k * b < n:
                row = {"numbers_sent": k, "bits_per_number": b, "message_bits": k * b,
                       "bound": index_accuracy_bound(k * b, n)}
                shorts.append(dict(row, accuracy=short(row)))
    return Result("bhattamishra2024_lstm_protocol", "paper", {"config": config}, grid=grid,
                  points=[{"point": grid[0], "result": {"train_acc": [1.0], "state_bound": 10.0, "rows": rows,
                                                        "short": shorts}, "wall_s": 0.0}])


def linear(off: float = 0.0) -> pd.DataFrame:
    """The chapter's linear-recurrence table (exact), its error per bit moved by ``off`` at m = 16."""
    table = sep_analysis.linear_state_table(n=32, widths=(4, 8, 16, 24, 31, 32, 48))
    table.loc[table["state width m"] == 16, "MSE per bit"] += off
    return table


# theorem_3 cannot say inconclusive by design: it reads one trained LSTM (seed 0) on every one of
# the N 2^N instances, so there is no sample or seed spread, and the bound it is held to is exact.
def test_theorem_3_messages_under_the_bound_pass_and_one_above_it_fails():
    assert sep_checks.theorem_3(protocol(), linear()).verdict == "reproduced"
    # a message shorter than N bits reading x_p better than the information bound allows
    above = protocol(short=lambda row: min(1.0, row["bound"] + 0.01) if row["message_bits"] == 8 else 0.5)
    check = sep_checks.theorem_3(above, linear())
    assert check.verdict == "not reproduced" and "a message of b < N bits ABOVE the bound" in check.ours
    assert "error (N - rank)/(4N) exactly" in check.ours  # the text says which condition failed
    # linear recurrences off the exact error (N - rank)/(4N)
    check = sep_checks.theorem_3(protocol(), linear(off=0.01))
    assert check.verdict == "not reproduced" and "error NOT (N - rank)/(4N)" in check.ours
    assert "every message of b < N bits under the bound" in check.ours
    # a full state at 100% with fewer than 2^N distinct messages
    check = sep_checks.theorem_3(protocol(distinct=2 ** 20 - 1), linear())
    assert check.verdict == "not reproduced" and "fewer than 2^N although it reaches 100%" in check.ours


def test_theorem_3_a_full_state_short_of_95_percent_is_partly():
    check = sep_checks.theorem_3(protocol(full=lambda bits: 0.9), linear())
    assert check.verdict == "partly" and "below 0.95" in check.ours


# ============================================================================= Boix-Adsera et al.: Figure 6
def headroom(perplexity, seed: int = 0, noise: float = 0.01) -> Result:
    """The ``ppl_headroom`` sweep at the paper's grid (the base model, vanilla and +KQ,VO, on the
    16-variable corpus) with its five base seeds: ``perplexity(variant)`` each arm's mean validation
    perplexity, every seed adding N(0, noise^2)."""
    config, grid = SYM_SWEEPS["ppl_headroom"].define("paper")
    assert len(config["base_seeds"]) == SEEDS
    rng = np.random.default_rng(seed)
    points = [{"point": p, "result": {"val_ppl": (perplexity(p["variant"]) + rng.normal(0, noise, SEEDS)).tolist()},
               "wall_s": 0.0} for p in grid]
    return Result("boixadsera2024_ppl_headroom", "paper", {"config": config}, grid=grid, points=points)


VANILLA = 4.14  # our base model's perplexity on the corpus (its floor: 3.675)
GAIN_6 = sym_checks.FIGURE_6_MARGIN * VANILLA  # the paper's smaller gain, Wikitext-103's 16.83 -> 16.40


def test_figure_6_scalings_lowering_perplexity_pass_and_raising_it_fails():
    shaped = sym_checks.figure_6(headroom(lambda v: VANILLA - GAIN_6 * (v != "vanilla")))
    assert shaped.verdict == "substituted", shaped.ours  # GPT-2 on Wikitext against our model on our corpus
    assert sym_checks.figure_6(headroom(lambda v: VANILLA + GAIN_6 * (v != "vanilla"))).verdict == "not reproduced"
    # no gain, measured tightly enough to rule out the paper's
    assert sym_checks.figure_6(headroom(lambda v: VANILLA, noise=0.005)).verdict == "not reproduced"


def test_figure_6_seed_noise_and_the_corpus_floor_are_inconclusive():
    # no effect, seeds spread twice the paper's gain (sd 0.2): each draw decides by chance about 8%
    verdicts = [sym_checks.figure_6(headroom(lambda v: VANILLA, seed, 0.2)).verdict for seed in range(5)]
    assert verdicts == ["inconclusive"] * 5, verdicts
    # the paper's effect, but both arms within its size of the corpus's floor: no room to show it
    floor = sym_analysis.binding_bayes_perplexity(**SYM_SWEEPS["ppl_headroom"].define("paper")[0]["corpus"])
    at_floor = sym_checks.figure_6(headroom(lambda v: floor * (1.01 if v == "vanilla" else 1.001), noise=0.001))
    assert at_floor.verdict == "inconclusive", at_floor.ours


# ============================================================================= Chen & Zou: Figure 3 over seeds
def fig3_scores(copy, match, gap, seed: int = 0, noise: float = 0.0) -> tuple[dict, dict]:
    """The scores ``checks.training.figure_3`` reads, for five trained seeds: each seed's copy and
    match shares and parse gap (equal - different) are the given values plus N(0, noise^2), clipped
    to [0, 1]; the constructions' own scores are the exact ones (1, 1 and a gap of 1)."""
    rng = np.random.default_rng(seed)
    copies, matches, gaps = (np.clip(v + rng.normal(0, noise, SEEDS), 0.0, 1.0) for v in (copy, match, gap))
    built = {"copy": 1.0, "match": 1.0, "chance_match": 1 / 3}
    copy_match = {"constructed": built, "trained": [{"copy": float(c), "match": float(m), "chance_match": 1 / 3}
                                                    for c, m in zip(copies, matches)]}
    parse = {"constructed": {"equal": 1.0, "different": 0.0},
             "trained": [{"equal": float(g), "different": 0.0} for g in gaps]}
    return copy_match, parse


def figure_3_verdict(copy, match, gap, seed: int = 0, noise: float = 0.0) -> str:
    from lib.papers.chen2024 import checks as depth_checks
    from lib.papers.chen2024.training import recipe
    copy_match, parse = fig3_scores(copy, match, gap, seed, noise)
    return depth_checks.training.figure_3(copy_match, parse, recipe("reasoning", "paper"),
                                          recipe("generalization", "paper"), list(range(SEEDS))).verdict


def test_chen_figure_3_constructed_shares_pass_pointing_the_way_is_partly_and_the_negation_fails():
    # the passing verdict reads "substituted": the paper-scale recipe still differs from the paper in k and the init
    assert figure_3_verdict(0.97, 0.96, 0.95, noise=0.01) == "substituted"
    assert figure_3_verdict(0.75, 0.6, 0.4, noise=0.02) == "partly"
    assert figure_3_verdict(0.2, 0.6, 0.4, noise=0.02) == "not reproduced"  # layer 1 does not copy
    assert figure_3_verdict(0.75, 0.1, 0.4, noise=0.02) == "not reproduced"  # layer 2 below chance


def test_chen_figure_3_seed_noise_at_its_thresholds_is_inconclusive():
    """Shares whose seeds straddle a threshold: the partial form cannot be decided."""
    undecided = [figure_3_verdict(0.5, 0.6, 0.4, seed=s, noise=0.2) for s in range(20)]
    assert undecided.count("inconclusive") >= 17, undecided
    assert "substituted" not in undecided and "reproduced" not in undecided


def test_chen_figure_3_wants_one_score_per_seed():
    from lib.papers.chen2024 import checks as depth_checks
    from lib.papers.chen2024.training import recipe
    copy_match, parse = fig3_scores(0.9, 0.9, 0.9)
    copy_match["trained"] = copy_match["trained"][0]
    with pytest.raises(ValueError, match="one trained score dict per seed"):
        depth_checks.training.figure_3(copy_match, parse, recipe("reasoning", "paper"),
                                       recipe("generalization", "paper"), list(range(SEEDS)))
