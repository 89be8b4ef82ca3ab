"""The trained checks of Richard 2024 that ``tests/test_richard2024_trained_curves.py`` leaves out:
Figure 4 and Table 1, Figure 5, Sec. 4.2's gradient descent within Eq. (1)'s class (``gd_eq1``)
and Sec. 4.2's single-word loss (:mod:`lib.papers.richard2024.checks`), on synthetic results at
the paper-scale config and grid with our seed count.

Results shaped as the paper describes pass; at the paper-scale config the passing verdict is
"substituted", since that config still differs from the paper's setup in fields the claims may
depend on (10^5 many-word training words for 10^7, no dropout; ``gd_eq1`` trains Eq. (1)'s own
model class by design). Their negation is "not reproduced". Under noise at the seed count, Figure 5,
which decides over seeds (Welch), is "inconclusive". The other three decide each seed or start by
itself (a Wilson interval on 100 samples, or a fixed threshold), so by design they cannot say
"inconclusive"; their noise tests check what they do say at the boundary instead."""
from __future__ import annotations

import numpy as np
import pytest

from lib.papers.richard2024 import checks, remarks
from lib.papers.richard2024.sweeps import SWEEPS
from lib.results import Result
from test_richard2024_trained_curves import SEEDS, synthetic

COMPLETIONS, COMPLETIONS_GRID = SWEEPS["completions"].define("paper")
COMPLETIONS = dict(COMPLETIONS, seeds=list(range(SEEDS)))
ONE, MANY = COMPLETIONS_GRID[0]["models"]
SAMPLES = COMPLETIONS["samples"]
#: the closed form completes every context validly every time (Figure 4's closed-form column)
CLOSED = {label: SAMPLES for label in COMPLETIONS["contexts"]}


def sampled(valid: int, top: str = "a Dyck word") -> dict:
    """A context's stored samples, as the ``completions`` sweep stores them (most frequent first):
    ``valid`` of :data:`SAMPLES` Dyck words (all ``top``), the rest invalid."""
    rows = sorted([(valid, top, True), (SAMPLES - valid, "not a Dyck word", False)], key=lambda r: -r[0])
    rows = [r for r in rows if r[0] > 0]
    return {"completions": [r[1] for r in rows], "counts": [r[0] for r in rows], "valid": [r[2] for r in rows]}


def spectra(ratio: float, eigenvalue: float, rng) -> list[dict]:
    """Every layer's value-output spectrum at the paper's width: sigma1/sigma2 = ``ratio`` (at
    least 1) and ``eigenvalue`` the (real) eigenvalue of largest modulus."""
    d = COMPLETIONS["d"]
    layers = []
    for _ in range(COMPLETIONS["layers"]):
        s = np.sort(rng.uniform(0.01, 1.0, d))[::-1]
        s[0] = max(ratio, 1.0) * s[1]
        eig = rng.uniform(-0.4, 0.4, d) * abs(eigenvalue)
        eig[0] = eigenvalue
        layers.append({"singular": s.tolist(), "eig_real": eig.tolist(), "eig_imag": [0.0] * d})
    return layers


def completion_models(*, regenerate=1.0, one_valid=0.0, many_deepest=0.52, ratios=(1.2, 3.0), spread=0.05,
                      eigenvalue=-3.0, one_loss=(-10.0, -8.0), seed=0) -> Result:
    """A ``completions`` result at the paper-scale config, :data:`SEEDS` seeds of each model, every
    context sampled 100 times (binomial counts). One-word model: its word's prefix completes to its
    word with probability ``regenerate`` (else to another Dyck word); the deep, shallow and deepest
    contexts are valid with probability ``one_valid``; final loss log-uniform in 10^``one_loss``.
    Many-word model: the deepest context valid with probability ``many_deepest``, the others 0.9;
    final loss 0.5. Last layer sigma1/sigma2 about ``ratios`` (one word, many words), each seed
    adding N(0, ``spread``^2); top eigenvalue +0.4 (one word) and ``eigenvalue`` (many words)."""
    rng = np.random.default_rng(seed)
    word = COMPLETIONS["word"]

    def member(name: str, s: int) -> dict:
        if name == ONE:
            contexts = {"prefix of the word": sampled(int(rng.binomial(SAMPLES, regenerate)), top=word),
                        **{label: sampled(int(rng.binomial(SAMPLES, one_valid)))
                           for label in ("deep", "shallow, not a prefix", "deepest")}}
            loss, spectrum = 10 ** rng.uniform(*one_loss), spectra(ratios[0] + rng.normal(0, spread), 0.4, rng)
        else:
            contexts = {label: sampled(int(rng.binomial(SAMPLES, many_deepest if label == "deepest" else 0.9)))
                        for label in COMPLETIONS["contexts"]}
            loss, spectrum = 0.5, spectra(ratios[1] + rng.normal(0, spread), eigenvalue, rng)
        return {"seed": s, "final_loss": float(loss), "contexts": contexts, "spectra": spectrum,
                "spectra_nanogpt_literal": spectrum}

    models = {name: [member(name, s) for s in COMPLETIONS["seeds"]] for name in (ONE, MANY)}
    return Result("richard2024_completions", "paper", {"config": COMPLETIONS}, grid=COMPLETIONS_GRID,
                  points=[{"point": COMPLETIONS_GRID[0], "result": {"models": models}, "wall_s": 0.0}])


# ----------------------------------------------------------------------------- Figure 4 and Table 1
# Figure 4 decides each many-word seed by itself (its Wilson interval on 100 samples against the
# paper's 52/100), and the one-word counts by fixed bounds: by design it cannot say "inconclusive".
@pytest.mark.parametrize("seed", range(3))
def test_figure_4_table_1_counts_pass_at_the_paper_grid(seed):
    # one word: 100/100 on its prefix, 0/100 on the other contexts; many words: about 52/100
    check = checks.figure_4(completion_models(regenerate=0.995, one_valid=0.005, seed=seed), CLOSED)
    assert check.passed and check.verdict == "substituted", check.ours


def test_figure_4_negation_is_not_reproduced():
    # the one-word model completes its prefix into other words and completes every context validly;
    # the many-word model is right every time
    negation = completion_models(regenerate=0.0, one_valid=1.0, many_deepest=1.0)
    assert checks.figure_4(negation, CLOSED).verdict == "not reproduced"


def test_figure_4_many_word_model_right_every_time_is_only_partly():
    # "about half the time": a many-word model that is always right is not the paper's finding
    assert checks.figure_4(completion_models(many_deepest=1.0), CLOSED).verdict == "partly"


def test_figure_4_many_word_rate_at_the_edge_of_the_papers_interval_reads_partly_not_inconclusive():
    # 33/100 is the lowest count whose Wilson interval meets the paper's 52/100's: at a true rate
    # of 0.33 each seed is within it about half the time, and a seed outside fails the full claim
    verdicts = [checks.figure_4(completion_models(many_deepest=0.33, seed=seed), CLOSED).verdict
                for seed in range(5)]
    assert verdicts == ["partly"] * 5


# ----------------------------------------------------------------------------- Figure 5
def test_figure_5_low_rank_negative_eigenvalue_passes_at_the_paper_grid():
    check = checks.figure_5(completion_models())
    assert check.passed and check.verdict == "substituted", check.ours


def test_figure_5_negation_is_not_reproduced():
    # the many-word matrix as spread as the one-word one, its top eigenvalue positive
    negation = completion_models(ratios=(1.2, 1.2), eigenvalue=3.0)
    assert checks.figure_5(negation).verdict == "not reproduced"


def test_figure_5_low_rank_with_a_positive_eigenvalue_is_partly():
    assert checks.figure_5(completion_models(eigenvalue=3.0)).verdict == "partly"


def test_figure_5_noisy_ratios_at_the_threshold_are_inconclusive():
    # many-word sigma1/sigma2 about 1.5 times the one-word models' (the claim's bound), seeds spread
    # by 0.3: a test at the check's level decides such noise now and then (about 1 draw in 20), so
    # the claim is on the share of 40 draws that stay undecided, not on a hand-picked draw
    verdicts = [checks.figure_5(completion_models(ratios=(1.2, 1.8), spread=0.3, seed=seed)).verdict
                for seed in range(40)]
    assert verdicts.count("inconclusive") >= 34, verdicts  # 36 of 40 with these draws
    assert verdicts.count("reproduced") + verdicts.count("substituted") <= 2, verdicts  # 1 of 40


# ----------------------------------------------------------------------------- gd_eq1 (Sec. 4.2)
GD, GD_GRID = SWEEPS["gd_eq1"].define("paper")  # its own sweep runs 6 Adam starts at the default and paper scales


def descent(*, fits=None, deep_acc=0.0, reach=12.0, seed=0) -> Result:
    """A ``gd_eq1`` result at the paper-scale config: the first ``fits`` starts (all by default)
    reach loss about 4e-5 and regenerate the word from every prefix, the others stay at loss 0.5
    regenerating a fifth of the prefixes; each start's deep accuracy is binomial on the config's
    test prompts with rate ``deep_acc``, and its context sums c_r fall from -1/2 to -``reach``
    (``reach`` = 1/2: the closed form's c_r = gamma), each adding N(0, 0.01^2)."""
    rng = np.random.default_rng(seed)
    starts, n = len(GD["seeds"]), 2 * GD["N"] - 1
    fits = starts if fits is None else fits
    members = [{"seed": s, "loss": float(4e-5 * np.exp(rng.normal(0, 0.1))) if k < fits else 0.5,
                "memorized": 1.0 if k < fits else 0.2,
                "deep_acc": rng.binomial(GD["n_test"], deep_acc) / GD["n_test"], "v": -9.5,
                "c": (-np.linspace(0.5, reach, n) + rng.normal(0, 0.01, n)).tolist()}
               for k, s in enumerate(GD["seeds"])]
    return Result("richard2024_gd_eq1", "paper", {"config": GD}, grid=GD_GRID,
                  points=[{"point": GD_GRID[0], "result": {"members": members, "wall_s": 0.0}, "wall_s": 0.0}])


# gd_eq1 counts the starts that meet fixed thresholds (loss < 0.01 and the word regenerated; deep
# accuracy <= 5%; |c_r| > 2), one start at a time: by design it cannot say "inconclusive". Its
# passing verdict is "substituted": it trains Eq. (1)'s class, not the paper's GPT-2-style decoders.
@pytest.mark.parametrize("seed", range(3))
def test_gd_eq1_memorizing_starts_that_do_not_extrapolate_pass(seed):
    check = checks.gd_eq1(descent(deep_acc=0.01, seed=seed), 1.0)
    assert check.passed and check.verdict == "substituted", check.ours


def test_gd_eq1_negation_starts_finding_the_closed_form_is_not_reproduced():
    assert checks.gd_eq1(descent(deep_acc=1.0, reach=0.5), 1.0).verdict == "not reproduced"


@pytest.mark.parametrize("fits, expected", [(4, "substituted"), (3, "not reproduced")])
def test_gd_eq1_needs_four_memorizing_starts(fits, expected):
    assert checks.gd_eq1(descent(fits=fits), 1.0).verdict == expected


def test_gd_eq1_deep_accuracy_about_its_5_percent_bound_reads_not_reproduced():
    # six starts at a true 5%: some start lands above 0.05 on the 1024 prompts and fails the claim
    verdicts = [checks.gd_eq1(descent(deep_acc=0.05, seed=seed), 1.0).verdict for seed in range(5)]
    assert verdicts == ["not reproduced"] * 5


# ----------------------------------------------------------------------------- single-word loss (Sec. 4.2)
def single_word(*, loss=(-10.0, -8.0), out=0.01, one_valid=0.0, seed=0) -> tuple:
    """The ``sample_size`` and ``completions`` results at the paper-scale grid with :data:`SEEDS`
    seeds whose one-word models :func:`.remarks.single_word_models` reads: final losses log-uniform
    in 10^``loss``; out-of-sample accuracy about ``out`` (sample_size, N(0, 0.02^2) per seed) and
    deep and deepest contexts valid with probability ``one_valid`` (completions)."""
    sizes = synthetic("sample_size", lambda p: {"in_acc": 0.99, "out_acc": out}, seed=seed)
    rng = np.random.default_rng(100 + seed)
    for row in sizes.points:
        if row["point"]["size"] == 1:
            row["result"]["final_loss"] = (10 ** rng.uniform(*loss, SEEDS)).tolist()
    comp = completion_models(one_valid=one_valid, one_loss=loss, seed=seed)
    return remarks.single_word_models(sizes, comp), sizes, comp


# single_word_loss holds every one-word model to fixed bounds (final loss below float32's epsilon,
# out of sample at most 0.1), one model at a time: by design it cannot say "inconclusive". Its passing
# verdict at the paper-scale config is "substituted" (no dropout for the paper's 0.1).
@pytest.mark.parametrize("seed", range(3))
def test_single_word_loss_at_machine_zero_without_extrapolation_passes(seed):
    check = checks.single_word_loss(*single_word(seed=seed))
    assert check.passed and check.verdict == "substituted", check.ours


def test_single_word_loss_negation_is_not_reproduced():
    # the loss stays far from 0 and the models extrapolate
    negation = single_word(loss=(-1.0, -0.5), out=0.9, one_valid=0.9)
    assert checks.single_word_loss(*negation).verdict == "not reproduced"


@pytest.mark.parametrize("bound", ["loss", "out of sample"])
def test_single_word_loss_about_its_bounds_reads_not_reproduced(bound):
    # losses log-uniform about float32's epsilon (1.2e-7), or out-of-sample accuracy about 0.1
    eps = np.log10(remarks.FLOAT32_EPS)
    case = dict(loss=(eps - 0.5, eps + 0.5)) if bound == "loss" else dict(out=0.1, one_valid=0.1)
    verdicts = [checks.single_word_loss(*single_word(**case, seed=seed)).verdict for seed in range(5)]
    assert verdicts == ["not reproduced"] * 5
