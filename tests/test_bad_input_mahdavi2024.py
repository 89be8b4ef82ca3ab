"""Bad input to Mahdavi et al. (2024)'s helpers fails at the boundary, naming the function and the
argument; good input gives finite numbers (issue 34). Plus one plain test per named example:
``first_informative_n([1])`` (was a bare StopIteration) and a line fit to one point (was numpy's
warning and a meaningless slope)."""
import math

import numpy as np
import pytest
import torch
from hypothesis import given
from hypothesis import strategies as st

from lib.papers.mahdavi2024 import (assumptions, bounds, comparison, construction, data, kruskal, lemmas, official,
                                    readings, trained, training)
from lib.tasks.random_labels import query_context_data
from bad_input_support import FAST, non_ints, non_finite, non_reals, fails


non_positive_ints = st.integers(-10**6, 0)
finite = st.floats(-1e6, 1e6, allow_nan=False, allow_infinity=False)


# ----------------------------------------------------------------------------- named examples
def test_first_informative_n_without_n_of_2_or_more_is_a_clear_error():
    message = fails(lambda: readings.first_informative_n([1]), "first_informative_n", "xs")
    assert "n >= 2" in message
    fails(lambda: readings.first_informative_n([]), "first_informative_n", "xs")
    fails(lambda: readings.first_informative_n([4, 2]), "first_informative_n", "xs")
    fails(lambda: readings.first_informative_n([1, 2.5]), "first_informative_n", "xs")
    assert readings.first_informative_n([1, 2, 4]) == 1
    assert readings.first_informative_n([2, 4]) == 0


def test_a_line_through_fewer_than_two_distinct_x_is_refused():
    fails(lambda: training.linear_fit([3.0], [1.0]), "linear_fit", "x")
    fails(lambda: training.linear_fit([2, 2, 2], [1, 2, 3]), "linear_fit", "x")
    fails(lambda: training.linear_fit([], []), "linear_fit", "x")
    fails(lambda: training.linear_fit([1, 2], [1]), "linear_fit", "y")
    fails(lambda: readings.concave_fits([4], [10]), "concave_fits", "x")
    fails(lambda: training.linear_fit([0.0, 3.5e-184], [0.0, 0.0]), "linear_fit", "x")  # numpy's SVD did not converge
    assert training.linear_fit([1, 2], [3, 5]) == pytest.approx({"slope": 2.0, "intercept": 1.0, "r2": 1.0})


@FAST
@given(x=st.lists(st.integers(-10**4, 10**4), min_size=2, max_size=8, unique=True), data_=st.data())
def test_linear_fit_is_finite_on_good_points(x, data_):
    x = [v / 7 for v in x]
    y = data_.draw(st.lists(finite, min_size=len(x), max_size=len(x)))
    fit = training.linear_fit(x, y)
    assert all(math.isfinite(v) for v in fit.values())


@FAST
@given(bad=non_finite, where=st.sampled_from(["x", "y"]))
def test_linear_fit_refuses_non_finite_points(bad, where):
    x, y = [1.0, 2.0, 3.0], [1.0, 2.0, 3.0]
    (x if where == "x" else y)[1] = bad
    fails(lambda: training.linear_fit(x, y), "linear_fit", where)


# ----------------------------------------------------------------------------- readings.py
@FAST
@given(value=st.one_of(non_reals, st.floats(1.01, 10), st.floats(-10, -0.01)), name=st.sampled_from(["free", "many",
                                                                                                      "majority"]))
def test_saturation_readings_refuse_thresholds_outside_0_1(value, name):
    fails(lambda: readings.saturation_readings([0.5], [0.9], **{name: value}), "saturation_readings", name)


def test_saturation_readings_refuse_bad_shares():
    fails(lambda: readings.saturation_readings([], []), "saturation_readings", "saturated")
    fails(lambda: readings.saturation_readings([1.5], [0.5]), "saturation_readings", "saturated")
    fails(lambda: readings.saturation_readings([0.5], [0.5, 0.2]), "saturation_readings", "free_head")
    fails(lambda: readings.concave_fits([-1, 2, 3], [1, 2, 3]), "concave_fits", "h")
    fails(lambda: readings.group_T(3), "group_T", "label")
    fails(lambda: readings.heads_fits("fig2a"), "heads_fits", "result")
    fails(lambda: readings.heads_lines("fig2a"), "heads_lines", "result")


# ----------------------------------------------------------------------------- training.py
@FAST
@given(value=st.one_of(non_ints, non_positive_ints), key=st.sampled_from(["n", "H", "d_h"]))
def test_member_cost_refuses_bad_points(value, key):
    point = {"n": 4, "H": 2, "d_h": 8, key: value}
    fails(lambda: training.member_cost(point, 16), "member_cost", key)


@FAST
@given(value=st.one_of(non_finite, st.text(max_size=4), st.booleans(), st.floats(-10, -1e-6)))
def test_buckets_refuse_bad_padding(value):
    fails(lambda: training.buckets([{"n": 4, "H": 2, "d_h": 8}], 16, value), "buckets", "max_padding")


@FAST
@given(points=st.lists(st.fixed_dictionaries({"n": st.integers(1, 8), "H": st.integers(1, 8),
                                              "d_h": st.integers(1, 8)}), min_size=1, max_size=6),
       padding=st.one_of(st.none(), st.floats(0, 2)))
def test_buckets_cover_good_points(points, padding):
    out = training.buckets(points, 16, padding)
    assert sum(len(b) for b in out) == len(points)


def test_training_refuses_bad_configs_and_thresholds():
    config = dict(dim=4, lr=1e-2, batch_size=None, steps=5, eval_every=5, seeds=[0], labels="classes",
                  context="shared", early_stop=True)
    fails(lambda: training.train_group(dict(config, lr=-1.0), [{"T": 4, "n": 2, "H": 1, "d_h": 2}]),
          "train_group", "lr")
    fails(lambda: training.train_group(config, []), "train_group", "points")
    fails(lambda: training.run_group(dict(config, seeds=[]), [{"T": 4, "n": 2, "H": 1, "d_h": 2}]), "run_group",
          "seeds")
    fails(lambda: training.saturation_stats(None, None, 1, 2, threshold=1.5), "saturation_stats", "threshold")
    fails(lambda: training.model_config(0, 2, 1, 1), "model_config", "dim")


# ----------------------------------------------------------------------------- construction.py
@FAST
@given(value=st.one_of(non_ints, non_positive_ints), name=st.sampled_from(["dim", "n_heads", "d_head", "d_value",
                                                                           "d_out"]))
def test_paper_param_count_refuses_bad_sizes(value, name):
    kwargs = {**dict(dim=4, n_heads=2, d_head=2, d_value=1, d_out=1), name: value}
    fails(lambda: construction.paper_param_count(**kwargs), "paper_param_count", name)


def test_construction_helpers_refuse_bad_arrays():
    fails(lambda: construction.softmax(np.zeros((2, 0))), "softmax", "a")
    fails(lambda: construction.softmax([1.0, math.nan]), "softmax", "a")
    fails(lambda: construction.factor(np.eye(3), 0), "factor", "d_head")
    fails(lambda: construction.factor(np.ones((2, 3)), 1), "factor", "W")
    fails(lambda: construction.solve_values(np.ones((3, 4)), np.ones(2), 2, 1), "solve_values", "Y")
    fails(lambda: construction.solve_values(np.ones((3, 4)), np.ones(3), 3, 1), "solve_values", "Z")
    q, E = np.ones((2, 3)), np.ones((2, 3))
    fails(lambda: construction.head_outputs(E, q, np.ones((1, 2, 2))), "head_outputs", "W")
    fails(lambda: construction.head_outputs(np.ones((2, 4)), q, np.ones((1, 3, 3))), "head_outputs", "E")
    fails(lambda: construction.attention_weights(E, q, 0, 2), "attention_weights", "n_heads")
    fails(lambda: construction.attention_weights(E, q, 1, 2, gap=-1.0), "attention_weights", "gap")
    rng = np.random.default_rng(0)
    fails(lambda: construction.saturating_direction(np.ones((2, 2)), rng), "saturating_direction", "q_new")
    fails(lambda: construction.fit_logits(np.ones((2, 1, 3)), np.ones((2, 3)), np.ones((2, 2))), "fit_logits", "alpha")


@FAST
@given(T=st.integers(1, 6), n=st.integers(1, 3), H=st.integers(1, 3), seed=st.integers(0, 1000))
def test_head_outputs_are_finite_on_good_input(T, n, H, seed):
    rng = np.random.default_rng(seed)
    d = n + 2
    Z, theta = construction.head_outputs(rng.standard_normal((n, d)), rng.standard_normal((T, d)),
                                         rng.standard_normal((H, d, d)))
    assert np.isfinite(Z).all() and np.allclose(theta.sum(-1), 1)


# ----------------------------------------------------------------------------- kruskal.py, bounds, lemmas, data
@FAST
@given(rate=st.one_of(non_reals, st.floats(1.0001, 10), st.floats(-10, -1e-4)))
def test_holds_refuses_rates_outside_0_1(rate):
    fails(lambda: kruskal.holds(rate), "holds", "rate")


def test_kruskal_refuses_empty_and_mismatched_sets():
    fails(lambda: kruskal.kruskal_estimate(np.zeros((0, 3))), "kruskal_estimate", "vectors")
    fails(lambda: kruskal.kruskal_estimate(np.eye(3), trials=0), "kruskal_estimate", "trials")
    fails(lambda: kruskal.assumption_report(np.eye(3), np.ones((2, 2, 3))), "assumption_report", "contexts")
    fails(lambda: kruskal.assumption_report(np.eye(3), np.ones((3, 2, 3)), seed=-1), "assumption_report", "seed")
    fails(lambda: kruskal.ranks(np.zeros((2, 0))), "ranks", "matrices")


@FAST
@given(T=st.integers(1, 8), d=st.integers(1, 5), seed=st.integers(0, 100))
def test_kruskal_estimate_is_a_rank_on_good_input(T, d, seed):
    v = np.random.default_rng(seed).standard_normal((T, d))
    assert 0 <= kruskal.kruskal_estimate(v, trials=50, seed=seed) <= min(T, d)


@FAST
@given(value=st.one_of(non_ints, non_positive_ints), name=st.sampled_from(["n_heads", "draws"]))
def test_random_ranks_refuse_bad_counts(value, name):
    batch = query_context_data(4, 2, 4, seed=0)
    kwargs = {**dict(n_heads=1, scale=1.0, draws=2), name: value}
    fails(lambda: bounds.random_ranks(batch, **kwargs), "random_ranks", name)


def test_bounds_lemmas_and_data_refuse_bad_input():
    batch = query_context_data(4, 2, 4, seed=0)
    fails(lambda: bounds.random_ranks(batch, 1, math.nan, 2), "random_ranks", "scale")
    fails(lambda: bounds.relu_capacity(0, 4), "relu_capacity", "context_size")
    fails(lambda: bounds.relu_jacobian_rank(batch, 4, bias_scale=-1.0), "relu_jacobian_rank", "bias_scale")
    fails(lambda: lemmas.lemma_5_trials(slack=1.0), "lemma_5_trials", "slack")
    fails(lambda: lemmas.lemma_1_trials(trials=0), "lemma_1_trials", "trials")
    fails(lambda: data.relu_hard_data(4, 3, 3), "relu_hard_data", "dim")


# ----------------------------------------------------------------------------- assumptions.py, official.py
def test_assumption_helpers_refuse_bad_input():
    fails(lambda: assumptions.digit_patches(3), "digit_patches", "patch")
    fails(lambda: assumptions.digit_patches(0), "digit_patches", "patch")
    fails(lambda: assumptions.vit_config(n_heads=3), "vit_config", "n_heads")
    fails(lambda: assumptions.text_windows(0, 8), "text_windows", "count")
    fails(lambda: assumptions.text_windows(2, 8, seed=-1), "text_windows", "seed")
    fails(lambda: assumptions.lm_training_data("bert", 4, mask_rate=1.5), "lm_training_data", "mask_rate")
    fails(lambda: assumptions.lm_training_data("t5", 4), "lm_training_data", "kind")
    fails(lambda: assumptions.lm_probe_inputs("gpt", 4, n_tokens=0), "lm_probe_inputs", "n_tokens")
    fails(lambda: assumptions.layer_report(np.ones((3, 2, 4)), 5), "layer_report", "query")
    fails(lambda: assumptions.hidden_states(None, torch.zeros(1)), "hidden_states", "model")


@FAST
@given(value=st.one_of(non_ints, non_positive_ints), name=st.sampled_from(["n_examples", "context_size", "dim"]))
def test_official_data_refuses_bad_sizes(value, name):
    kwargs = {**dict(n_examples=4, context_size=2, dim=4), name: value}
    fails(lambda: official.official_data(**kwargs), "official_data", name)


def test_official_and_comparison_helpers_refuse_bad_input():
    fails(lambda: official.official_init(torch.nn.Linear(2, 2), 0), "official_init", "model")
    fails(lambda: official.best_checkpoint(None), "best_checkpoint", "run")
    fails(lambda: comparison.comparison("huge"), "comparison", "scale")
    fails(lambda: comparison.official_model(4, 2, 1, 2, ours="embedding"), "official_model", "ours")
    cells = {("official", 4): np.array([0.4, 0.4, 0.55])}
    fails(lambda: comparison.ablation(cells, [42, 1, 2], tolerance=-0.1), "ablation", "tolerance")
    fails(lambda: comparison.ablation({}, [42]), "ablation", "cells")
    fails(lambda: comparison.ablation({("ours", 4): np.array([0.5])}, [42]), "ablation", "cells")
    fails(lambda: comparison.ablation({("official", 4): np.array([1.5])}, [42]), "ablation", "cells")
    assert comparison.ablation(cells, [42, 1, 2])["matched"]
    fails(lambda: trained.figure_5_reading({}), "figure_5_reading", "results")
    fails(lambda: trained.log_relative_mse({}, "H"), "log_relative_mse", "result")
    fails(lambda: trained.merged_series([]), "merged_series", "rs")


# ----------------------------------------------------------------------------- analysis.py
def test_analysis_refuses_bad_input():
    from lib.papers.mahdavi2024 import analysis

    batch = query_context_data(5, 2, 4, seed=0, dtype=torch.float64)
    fails(lambda: analysis.planted_dependency(count=2), "planted_dependency", "count")
    fails(lambda: analysis.paper_size_data(0), "paper_size_data", "T")
    fails(lambda: analysis.rank_growth(batch, 0, 2), "rank_growth", "n_heads")
    fails(lambda: analysis.variant_cases("yes"), "variant_cases", "larger")
    fails(lambda: analysis.remark_1_case(Q=4, n=8, d=8), "remark_1_case", "d")
    fails(lambda: analysis.saturation_path(batch, 2, 2, head=0), "saturation_path", "head")
    fails(lambda: analysis.saturation_path(batch, 2, 2, points=1), "saturation_path", "points")
    fails(lambda: analysis.claims_1_2({}), "claims_1_2", "path")
    fails(lambda: analysis.proposition_2_draws(draws=0), "proposition_2_draws", "draws")
    fails(lambda: analysis.head_size_conditioning(T=5), "head_size_conditioning", "T")
    fails(lambda: analysis.proposition_5_draws(H=-1), "proposition_5_draws", "H")
    fails(lambda: analysis.proposition_3_counts(heads=[]), "proposition_3_counts", "heads")
    fails(lambda: analysis.relu_jacobians(widths=[0]), "relu_jacobians", "widths")
    fails(lambda: analysis.figure_1_reading(np.ones((3, 2)), [1], 10), "figure_1_reading", "states")
    fails(lambda: analysis.figure_1_reading(np.ones((3, 2, 2)), [1], 0), "figure_1_reading", "trials")


def test_figure_1_reading_with_no_passing_k_reads_zero():
    """No k passes the 99% rule (every [CLS] output equal): the largest passing k is 0, not a bare max() error."""
    from lib.papers.mahdavi2024 import analysis

    states = np.ones((6, 3, 4))
    assert analysis.figure_1_reading(states, [1, 2], trials=20)["largest"] == 1  # one nonzero vector is independent
    assert analysis.figure_1_reading(np.zeros((6, 3, 4)), [1, 2], trials=20)["largest"] == 0


def test_attention_weights_owner_refuses_too_few_examples():
    rng = np.random.default_rng(0)
    weights = construction.attention_weights(rng.standard_normal((2, 4)), rng.standard_normal((5, 4)), 3, 2)
    assert weights.owner(5).tolist() == [0, 0, 1, 2, -1]
    fails(lambda: weights.owner(2), "AttentionWeights.owner", "T")
