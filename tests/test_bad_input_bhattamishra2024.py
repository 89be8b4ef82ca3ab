"""Bad input to the Bhattamishra et al. (2024) helpers fails at the boundary, naming the function and
the argument; good input gives finite numbers (issue 34). Property tests first, then one test per
example the issue names."""
import math

import numpy as np
import pandas as pd
import torch
from hypothesis import given
from hypothesis import strategies as st

from lib import validate
from lib.papers.bhattamishra2024 import analysis, checks, constructions, dyck_rnn, lower_bounds, near_orthogonal
from lib.tasks import PairFunction, VariableLengthIndexLookup
from bad_input_support import FAST, non_ints, non_finite, non_reals, fails


# ----------------------------------------------------------------------------- near_orthogonal
@FAST
@given(k=st.one_of(non_ints, st.integers(-10**6, 0)), gamma=st.floats(0.01, 1.0))
def test_hoeffding_tail_refuses_bad_k(k, gamma):
    fails(lambda: near_orthogonal.hoeffding_tail(k, gamma), "hoeffding_tail", "k")


@FAST
@given(gamma=st.one_of(non_reals, st.floats(max_value=0.0), st.floats(min_value=1.0, exclude_min=True)))
def test_hoeffding_tail_refuses_bad_gamma(gamma):
    fails(lambda: near_orthogonal.hoeffding_tail(64, gamma), "hoeffding_tail", "gamma")


@FAST
@given(k=st.integers(1, 10**6), gamma=st.floats(1e-3, 1.0))
def test_hoeffding_tail_good(k, gamma):
    value = near_orthogonal.hoeffding_tail(k, gamma)
    assert math.isfinite(value) and 0 <= value <= 2 and value == 2.0 * math.exp(-k * gamma**2 / 4.0)


@FAST
@given(n=st.one_of(non_ints, st.integers(-100, 0)), gamma=st.one_of(non_reals, st.floats(max_value=0.0)))
def test_lemma2_width_refuses(n, gamma):
    fails(lambda: near_orthogonal.lemma2_width(n, 0.25), "lemma2_width", "n")
    fails(lambda: near_orthogonal.lemma2_width(16, gamma), "lemma2_width", "gamma")


@FAST
@given(n=st.integers(1, 10**6), gamma=st.floats(1e-3, 1.0))
def test_lemma2_width_good(n, gamma):
    assert near_orthogonal.lemma2_width(n, gamma) >= 0


@FAST
@given(threshold=st.one_of(non_reals, st.floats(max_value=0.0), st.floats(min_value=1.0)))
def test_k_min_refuses_thresholds_it_cannot_end_on(threshold):
    fails(lambda: near_orthogonal.k_min(5, threshold), "k_min", "threshold")


@FAST
@given(n=st.one_of(non_ints, st.integers(-5, 1)), step=st.one_of(non_ints, st.integers(-5, 0)))
def test_k_min_refuses_counts(n, step):
    fails(lambda: near_orthogonal.k_min(n, 0.5), "k_min", "n")
    fails(lambda: near_orthogonal.k_min(8, 0.5, step=step), "k_min", "step")


@FAST
@given(n=st.one_of(non_ints, st.integers(-5, 0)), threshold=st.one_of(non_reals, st.floats(min_value=1.0)),
       weight=st.one_of(non_reals, st.floats(min_value=1.0), st.floats(max_value=0.1)))
def test_temperature_refuses(n, threshold, weight):
    fails(lambda: near_orthogonal.temperature(n, 0.5), "temperature", "n")
    fails(lambda: near_orthogonal.temperature(8, threshold), "temperature", "threshold")
    fails(lambda: near_orthogonal.temperature(8, 0.5, weight), "temperature", "weight")


@FAST
@given(n=st.integers(1, 10**6), threshold=st.floats(-1.0, 0.99), weight=st.floats(0.5, 0.99))
def test_temperature_good(n, threshold, weight):
    eta = near_orthogonal.temperature(n, threshold, weight)
    assert math.isfinite(eta) and eta >= 0


@FAST
@given(rows=st.integers(0, 1), bad=non_finite)
def test_max_off_diagonal_refuses(rows, bad):
    fails(lambda: near_orthogonal.max_off_diagonal(np.ones((rows, 3))), "max_off_diagonal", "T")
    fails(lambda: near_orthogonal.max_off_diagonal(np.array([[1.0, bad], [0.0, 1.0]])), "max_off_diagonal", "T")


@FAST
@given(n=st.one_of(non_ints, st.integers(-5, 0)), tries=st.one_of(non_ints, st.integers(-5, 0)))
def test_nearly_orthogonal_refuses(n, tries):
    fails(lambda: near_orthogonal.nearly_orthogonal(n, 16), "nearly_orthogonal", "n")
    fails(lambda: near_orthogonal.nearly_orthogonal(4, 16, tries=tries), "nearly_orthogonal", "tries")


def test_nearly_orthogonal_of_one_vector():
    assert np.array_equal(near_orthogonal.nearly_orthogonal(1, 8, seed=3), near_orthogonal.sign_vectors(1, 8, 3))


def test_sign_vectors_refuses_what_would_not_fit():
    fails(lambda: near_orthogonal.sign_vectors(10**6, 10**6), "sign_vectors", "would need")


# ----------------------------------------------------------------------------- lower_bounds
@FAST
@given(p=st.one_of(non_reals, st.floats(max_value=0.0, exclude_max=True), st.floats(min_value=1.0, exclude_min=True)))
def test_binary_entropy_refuses(p):
    fails(lambda: lower_bounds.binary_entropy(p), "binary_entropy", "p")


@FAST
@given(p=st.floats(0.0, 1.0))
def test_binary_entropy_good(p):
    h = lower_bounds.binary_entropy(p)
    assert 0.0 <= h <= 1.0 + 1e-12


@FAST
@given(bits=st.one_of(non_reals, st.floats(max_value=0.0, exclude_max=True)),
       n=st.one_of(non_reals, st.floats(max_value=0.99)))
def test_index_accuracy_bound_refuses(bits, n):
    fails(lambda: lower_bounds.index_accuracy_bound(bits, 64), "index_accuracy_bound", "bits")
    fails(lambda: lower_bounds.index_accuracy_bound(8, n), "index_accuracy_bound", "n")


@FAST
@given(bits=st.floats(0.0, 1e4), n=st.integers(1, 10**5))
def test_index_accuracy_bound_good(bits, n):
    assert 0.5 <= lower_bounds.index_accuracy_bound(bits, n) <= 1.0


@FAST
@given(bad=st.one_of(non_ints, st.integers(-5, 0)))
def test_protocol_bits_refuses(bad):
    for i, name in enumerate(("d", "m", "heads", "n", "p")):
        args = [12, 6, 3, 40, 48]
        args[i] = bad
        fails(lambda: lower_bounds.protocol_bits(*args), "protocol_bits", name)


@FAST
@given(n=st.one_of(non_reals, st.floats(max_value=0.99)), p=st.one_of(non_reals, st.floats(max_value=0.0)),
       heads=st.one_of(non_ints, st.integers(-3, 0)))
def test_implied_width_refuses(n, p, heads):
    fails(lambda: lower_bounds.implied_width("tf1_dyck", n, 32), "implied_width", "n")
    fails(lambda: lower_bounds.implied_width("rnn_index", 100, p), "implied_width", "p")
    fails(lambda: lower_bounds.implied_width("tf1_dyck", 100, 32, heads), "implied_width", "heads")


@FAST
@given(bound=st.sampled_from(["rnn_index", "rnn_equality", "tf1_dyck"]), n=st.floats(1.0, 1e6), p=st.floats(1.0, 64))
def test_implied_width_good(bound, n, p):
    assert math.isfinite(lower_bounds.implied_width(bound, n, p)) and lower_bounds.implied_width(bound, n, p) >= 0


@FAST
@given(bad=st.one_of(non_ints, st.integers(-5, 0)))
def test_linear_state_mse_refuses(bad):
    fails(lambda: lower_bounds.linear_state_mse(bad, 4), "linear_state_mse", "n")
    fails(lambda: lower_bounds.linear_state_mse(8, bad), "linear_state_mse", "m")


@FAST
@given(bits=st.one_of(non_ints, st.integers(-5, 0), st.integers(53, 100)),
       bound=st.one_of(non_reals, st.floats(max_value=0)))
def test_uniform_quantize_refuses(bits, bound):
    t = torch.zeros(3)
    fails(lambda: lower_bounds.uniform_quantize(t, bits, 1.0), "uniform_quantize", "bits")
    fails(lambda: lower_bounds.uniform_quantize(t, 4, bound), "uniform_quantize", "bound")


@FAST
@given(bad=non_finite)
def test_fixed_point_refuses_non_finite(bad):
    fails(lambda: lower_bounds.fixed_point([0.5, bad]), "fixed_point", "x")


def test_protocol_refuses_bad_partitions_and_inputs():
    heads = lower_bounds.attention_heads(lower_bounds.random_attention(d=4, m=2, heads=1, seed=0))
    X = lower_bounds.fixed_point(np.random.default_rng(0).standard_normal((5, 4)))
    fails(lambda: lower_bounds.one_layer_protocol(X, heads, [1, 4, 9]), "one_layer_protocol", "alice")
    fails(lambda: lower_bounds.one_layer_protocol(X, heads, [-1, 4]), "one_layer_protocol", "alice")
    fails(lambda: lower_bounds.one_layer_protocol(X, heads, []), "one_layer_protocol", "alice")
    fails(lambda: lower_bounds.one_layer_direct(X[:, :3], heads), "one_layer_direct", "heads")
    fails(lambda: lower_bounds.one_layer_direct(np.full((2, 4), np.nan), heads), "one_layer_direct", "X")
    fails(lambda: lower_bounds.attention_heads("model"), "attention_heads", "model")
    out, bits = lower_bounds.one_layer_protocol(X, heads, {1, 4})  # a set is still a partition
    assert np.isfinite(out).all() and bits == lower_bounds.protocol_bits(4, 2, 1, 5, 48)


def test_lower_bound_enumerations_refuse():
    fails(lambda: lower_bounds.residual_classes("ineq", 4, 2), "residual_classes", "f")
    fails(lambda: lower_bounds.inequality((0, 1, 0)), "inequality", "x")
    fails(lambda: lower_bounds.dyck_communication_matrix(4, depth=0), "dyck_communication_matrix", "depth")
    fails(lambda: lower_bounds.random_attention(0, 2, 1), "random_attention", "d")


# ----------------------------------------------------------------------------- constructions, dyck_rnn
@FAST
@given(bad=st.one_of(non_ints, st.integers(-5, 0)))
def test_construction_sizes_refuse(bad):
    fails(lambda: constructions.binary_codes(bad), "binary_codes", "n_symbols")
    fails(lambda: constructions.pair_sets(bad), "pair_sets", "half_length")
    fails(lambda: constructions.hadamard_addresses(bad), "hadamard_addresses", "n")
    fails(lambda: constructions.near_disjoint_pairs(bad, 4), "near_disjoint_pairs", "half_length")
    fails(lambda: constructions.near_disjoint_pairs(4, bad), "near_disjoint_pairs", "n")
    fails(lambda: dyck_rnn.dyck_rnn(max_len=bad), "dyck_rnn", "max_len")


@FAST
@given(n=st.integers(1, 300))
def test_construction_sizes_good(n):
    assert constructions.binary_codes(n).shape[0] == n
    H = constructions.hadamard_addresses(n)
    assert H.shape[0] == n and np.allclose(H @ H.T, np.eye(n))


def test_construction_arguments_refuse():
    task = VariableLengthIndexLookup(n_symbols=4, length=8, min_length=2)
    fails(lambda: constructions.index_lookup(task, 16, threshold=1.5), "index_lookup", "threshold")
    fails(lambda: constructions.index_lookup(task, 16, seed=-1), "index_lookup", "seed")
    fails(lambda: constructions.index_lookup(task, 16, dtype="float64"), "index_lookup", "dtype")
    fails(lambda: constructions.index_lookup_config("task", 4), "index_lookup_config", "task")
    fails(lambda: constructions.index_lookup_worst_cases(task, positions=[1.5]), "index_lookup_worst_cases",
          "positions")
    pair = PairFunction(half_length=4, function="ineq")
    fails(lambda: constructions.inequality(pair, 24, threshold=math.nan), "inequality", "threshold")
    fails(lambda: constructions.inequality_config(pair, 0), "inequality_config", "k")
    fails(lambda: constructions.sparse_threshold(8, constructions.pair_sets(4), constructions.AND, math.nan, 40),
          "sparse_threshold", "b")
    fails(lambda: constructions.hadamard_addresses(10**6), "hadamard_addresses", "would need")
    fails(lambda: constructions.bos_inputs("batch"), "bos_inputs", "batch")


# ----------------------------------------------------------------------------- analysis, checks
def test_analysis_tables_refuse():
    fails(lambda: analysis.k_min_table([1]), "k_min_table", "ns")
    fails(lambda: analysis.tail_table(((64, 0.0),)), "tail_table", "gamma")
    fails(lambda: analysis.fano_table(ns=(0,)), "fano_table", "ns")
    fails(lambda: analysis.residual_table([5]), "residual_table", "ns")
    fails(lambda: analysis.partition_table(0), "partition_table", "trials")
    fails(lambda: analysis.theorem_4_study(n=2), "theorem_4_study", "n")
    fails(lambda: analysis.dyck_split_protocol(4, length=10, cut=10), "dyck_split_protocol", "cut")


def test_lemma_2_check_refuses_a_one_point_line():
    kmins = pd.DataFrame({"N": [16], "k_min (thr 1/4)": [100], "Lemma 2 width (γ = 1/4)": [500],
                          "k_min (thr 1/2)": [30]})
    tails = analysis.tail_table(((64, 0.5),), n_vectors=20)
    fails(lambda: checks.lemma_2(kmins, tails), "lemma_2", "kmins", "2 distinct")
    fails(lambda: checks.corollary_8_1(pd.concat([kmins, kmins]), tails), "corollary_8_1", "kmins")


# ----------------------------------------------------------------------------- the named examples
def test_hoeffding_tail_of_a_negative_count_is_refused():
    """Used to return 2.015, a tail probability above 1."""
    fails(lambda: near_orthogonal.hoeffding_tail(-3, 0.1), "hoeffding_tail", "k", "-3")
    fails(lambda: near_orthogonal.hoeffding_tail(0, 0.1), "hoeffding_tail", "k")
    fails(lambda: near_orthogonal.hoeffding_tail(64, math.nan), "hoeffding_tail", "gamma")
    fails(lambda: near_orthogonal.hoeffding_tail(64, 0.0), "hoeffding_tail", "gamma")
    assert near_orthogonal.hoeffding_tail(64, 0.5) == 2.0 * math.exp(-4.0)


def test_binary_entropy_outside_a_probability_is_refused():
    """Used to return 0.0 at 1.5 and nan at nan."""
    fails(lambda: lower_bounds.binary_entropy(1.5), "binary_entropy", "p", "1.5")
    fails(lambda: lower_bounds.binary_entropy(math.nan), "binary_entropy", "p")
    fails(lambda: lower_bounds.binary_entropy(-0.1), "binary_entropy", "p")
    assert lower_bounds.binary_entropy(0.5) == 1.0
    assert lower_bounds.binary_entropy(0.0) == lower_bounds.binary_entropy(1.0) == 0.0


def test_k_min_with_a_negative_threshold_is_refused_and_the_scan_is_bounded():
    """Used never to return."""
    fails(lambda: near_orthogonal.k_min(5, -0.5), "k_min", "threshold", "-0.5")
    fails(lambda: near_orthogonal.k_min(5, 1.0), "k_min", "threshold")
    message = fails(lambda: near_orthogonal.k_min(64, 0.05, max_k=16), "k_min", "max_k = 16")
    assert "raise max_k" in message
    fails(lambda: near_orthogonal.k_min(5, 0.5, start=64, max_k=8), "k_min", "max_k")
    assert near_orthogonal.k_min(16, 0.5) == near_orthogonal.k_min(16, 0.5, max_k=10**4)


def test_valid_answers_unchanged():
    """The stored scans' values: the same numbers as before the checks."""
    assert near_orthogonal.lemma2_width(64, 0.25) == math.ceil(8.0 / 0.25**2 * math.log(128))
    assert near_orthogonal.temperature(9, 0.5) == math.log(9 * 0.75 / 0.25) / 0.5
    assert lower_bounds.index_accuracy_bound(1024, 1024) == 1.0
    assert lower_bounds.implied_width("rnn_index", 400, 64) == 400 / 64
    assert validate.integer("x", "y", np.int64(3)) == 3


def test_best_rate_is_not_chosen_among_diverged_runs():
    from lib.papers.bhattamishra2024.sweeps import summary
    fails(lambda: summary({"acc": [[0.5, math.nan], [0.5, 0.9]], "lr": [1e-3, 1e-2]}), "summary", "acc")
    fails(lambda: summary({"acc": [[0.5, 0.6]], "lr": [1e-3, 1e-2]}), "summary", "lr")
    fails(lambda: summary({"acc": [[0.5]]}), "summary", "point")
    assert summary({"acc": [[0.5, 0.6], [0.5, 0.9]], "lr": [1e-3, 1e-2]})["best_lr"] == 1e-2


def test_architecture_labels_and_stored_tables_refuse():
    from lib.papers.bhattamishra2024.sweeps import architecture
    fails(lambda: architecture("TF-(2)", 8, 2, 16), "architecture", "name")
    fails(lambda: architecture("TF-(0,64)", 8, 2, 16), "architecture", "name")
    fails(lambda: architecture("TF-(2,64)", 0, 2, 16), "architecture", "vocab_size")
    assert architecture("LSTM-(1,16)", 8, 2, 16).d_model == 16
    fails(lambda: analysis.best_table({"points": []}), "best_table", "result")


def test_constructions_refuse_weights_that_would_not_fit():
    task = VariableLengthIndexLookup(n_symbols=4, length=8, min_length=2)
    fails(lambda: constructions.index_lookup(task, 10**6), "index_lookup", "would need")
    fails(lambda: constructions.inequality(PairFunction(half_length=4, function="ineq"), 10**6), "inequality",
          "would need")
    fails(lambda: near_orthogonal.nearly_orthogonal(10**6, 10**5), "nearly_orthogonal", "would need")


def test_checks_refuse_empty_tables_and_wrong_types():
    empty = pd.DataFrame({"N": [], "residual classes after N/2 bits": [], "2^(N/2)": []})
    fails(lambda: checks.theorem_11(empty, {}), "theorem_11", "classes", "vacuously")
    fails(lambda: checks.theorem_4([1, 2], pd.DataFrame({"N": [4]})), "theorem_4", "study")
    fails(lambda: checks.figure_2c("dyck"), "figure_2c", "dyck")
