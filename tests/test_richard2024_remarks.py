"""The unnumbered statements of Richard (2024) (lib.papers.richard2024.remarks) and their checks:
each check passes on the computed tables and fails when the table says otherwise (so none is true
by construction)."""
from __future__ import annotations

import math

import numpy as np
import pytest

from lib.papers.richard2024 import analysis, checks, remarks


@pytest.fixture(scope="module")
def sequence():
    return np.random.default_rng(0).integers(0, 50, 64)  # the chapter's t = 50, n = 64


def test_exact_eps_solves_the_width_condition():
    eps = remarks.exact_eps(64, 200)
    assert abs(4 * math.log(64) / (eps**2 / 2 - eps**3 / 3) - 200) < 1e-6
    assert math.isnan(remarks.exact_eps(64, 50))  # d < 24 ln n: no eps in (0, 1)
    assert eps > 2 * math.sqrt(2 * math.log(64) / 200)  # the paper's eps is below the allowed one


def test_eq_3_passes_and_fails(sequence):
    table = remarks.first_order_table(sequence, 50, ratios=(1, 5, 20))
    assert checks.eq_3(table).passed
    broken = table.copy()
    broken.loc[broken.index[-1], "residual"] = 1.0  # the residual no longer falls
    assert not checks.eq_3(broken).passed


def test_scaling_is_partly_and_can_fail(sequence):
    table = remarks.scaling_table(sequence, 50, widths=(100, 200, 800), seeds=range(3))
    check = checks.scaling(table)
    assert (table["theorem factor e^{2ε}"] > table["display factor"]).all()  # e^(2 eps) > 1 + 2 eps
    assert check.verdict == "partly" and not check.passed
    rising = table.copy()
    rising["failure (mean)"] = rising["failure (mean)"].to_numpy()[::-1]
    assert checks.scaling(rising).verdict == "not reproduced"


def test_multiple_sequences_fit_and_a_broken_gram_fails():
    instance = remarks.multiple_sequences(6, 2)
    assert instance["context rank"] == instance["contexts"] == 2 * 5
    assert checks.multiple_sequences([instance]).passed
    assert not checks.multiple_sequences([{**instance, "gram gap": 0.1}]).passed


def test_catalan_passes_and_a_wrong_count_fails():
    table, counts = remarks.catalan_table(), remarks.catalan_counts(8)
    assert checks.catalan(table, counts).passed
    assert not checks.catalan(table, {**counts, 8: (1430, 1429, 1430)}).passed


def test_closed_form_path_reads_the_decoder():
    paths = remarks.positional_paths(5)
    assert checks.closed_form_path(paths).passed
    assert not checks.closed_form_path({**paths, "largest |P_2N|": 0.5}).passed


def test_gpt4_counts_inconclusive_unless_the_paper_disagrees():
    assert remarks.expression_shape(analysis.PAPER_EXAMPLE) == {"clauses": 3, "nesting": 4}  # k = 3, q = 3
    counts = remarks.gpt4_counts()
    assert checks.gpt4_counts(counts).verdict == "inconclusive"
    assert checks.gpt4_counts({**counts, "example answer right": True}).verdict == "not reproduced"


def test_single_word_models_read_the_stored_sweeps():
    from lib.papers.richard2024 import sweeps

    sizes, comp = sweeps.SWEEPS["sample_size"].load("default"), sweeps.SWEEPS["completions"].load("default")
    models = remarks.single_word_models(sizes, comp)
    one_word_sets = sum(p["size"] == 1 for p in sizes.grid)  # a one-word set per training depth
    assert len(models) == one_word_sets * len(sizes.config["seeds"]) + len(comp.config["seeds"])
    assert (models["final loss"] < remarks.FLOAT32_EPS).all()
    check = checks.single_word_loss(models, sizes, comp)
    assert check.passed and check.verdict == "substituted"
    worse = models.assign(**{"final loss": 1e-3})
    assert not checks.single_word_loss(worse, sizes, comp).passed
