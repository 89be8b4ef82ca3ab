"""Bhattamishra et al. (2024): the constructions are exact on whole tasks or binding inputs, the
lower-bound arguments hold exactly, and the recurrent family matches its references and trains."""
import itertools

import numpy as np
import pytest
import torch

from lib.models import RecurrentConfig, accuracy, build_model, predict
from lib.papers.bhattamishra2024 import constructions, lower_bounds, near_orthogonal
from lib.papers.bhattamishra2024.dyck_rnn import dyck_rnn
from lib.tasks import BoundedDyck, PairFunction, VariableLengthIndexLookup
from lib.tasks.dyck import is_member
from lib.train import TrainConfig, train


def test_nearly_orthogonal_vectors_meet_their_threshold_and_k_min_grows_slowly():
    T = near_orthogonal.nearly_orthogonal(256, 64, 0.5)
    assert np.allclose((T * T).sum(1), 1.0) and near_orthogonal.max_off_diagonal(T) <= 0.5
    k64, k1024 = near_orthogonal.k_min(64, 0.5), near_orthogonal.k_min(1024, 0.5)
    assert k1024 < 2.5 * k64 < 1024 // 4  # sixteen times the length, not three times the width
    with pytest.raises(ValueError, match="raise k"):
        near_orthogonal.nearly_orthogonal(512, 4, 0.25)


@pytest.mark.parametrize("dtype", [torch.float64, torch.float32, torch.float16])
def test_theorem1_index_lookup_is_exact_on_worst_cases_and_every_length(dtype):
    task = VariableLengthIndexLookup(n_symbols=64, length=64, min_length=10)
    model = constructions.index_lookup(task, k=56, dtype=dtype)
    assert accuracy(model, constructions.index_lookup_worst_cases(task)) == 1.0
    assert accuracy(model, task.sample(300, seed=0)) == 1.0
    assert model.config.d_model == 6 + 2 * 56


def test_theorem1_fails_when_the_temperature_is_too_low():
    task = VariableLengthIndexLookup(n_symbols=64, length=64, min_length=10)
    model = constructions.index_lookup(task, k=56)
    with torch.no_grad():
        model.layers[0].attn.W_Q.mul_(0.2)  # eta / 5: the target no longer gets 3/4 of the weight
    assert accuracy(model, constructions.index_lookup_worst_cases(task)) < 1.0


def test_theorem6_inequality_is_exact_on_every_string_and_on_one_flip_pairs():
    task = PairFunction(half_length=4, function="ineq")
    assert accuracy(constructions.inequality(task, k=40), task.enumerate()) == 1.0
    big = PairFunction(half_length=32, function="ineq")
    assert accuracy(constructions.inequality(big, k=56), big.sample(300, seed=0)) == 1.0
    with pytest.raises(ValueError, match="ineq"):
        constructions.inequality(PairFunction(half_length=4, function="disj"), k=40)


def test_dyck_rnn_agrees_with_the_recognizer_on_every_short_string_and_long_ones():
    rnn = dyck_rnn()
    assert rnn.config.d_model == 32
    for length in range(2, 7):
        x = torch.cartesian_prod(*[torch.arange(4)] * length)
        truth = torch.tensor([is_member(row, 2) for row in x.tolist()])
        assert torch.equal(predict(rnn, x).argmax(-1).bool(), truth)
    assert accuracy(rnn, BoundedDyck(length=200).sample(200, seed=0)) == 1.0


def test_theorem4_protocol_equals_direct_computation_for_any_partition():
    heads = lower_bounds.attention_heads(lower_bounds.random_attention(12, 6, 3, seed=1))
    rng = np.random.default_rng(1)
    X = lower_bounds.fixed_point(rng.standard_normal((40, 12)), 24)
    direct = lower_bounds.one_layer_direct(X, heads)
    for alice in ([39], list(range(0, 40, 2)) + [39], list(range(20, 40))):
        out, bits = lower_bounds.one_layer_protocol(X, heads, alice)
        assert np.array_equal(out, direct) and bits == lower_bounds.protocol_bits(12, 6, 3, 40, 48)
    with pytest.raises(ValueError, match="last position"):
        lower_bounds.one_layer_protocol(X, heads, [0, 1])


def test_lemma1_fooling_set_and_ranks_and_myhill_nerode_classes():
    for n in (4, 6):
        M = lower_bounds.dyck_communication_matrix(n, "odd_even")
        assert np.linalg.matrix_rank(M) == M.sum() == 2 ** (n - 1) and M.sum(1).max() == 1
        assert np.linalg.matrix_rank(lower_bounds.dyck_communication_matrix(n, "prefix_suffix")) <= 7
    assert [lower_bounds.residual_classes(lower_bounds.inequality, n, n // 2) for n in (4, 6, 8)] == [4, 8, 16]


def test_linear_recurrence_error_is_exactly_the_missing_rank_and_the_information_bound():
    for m in (4, 16, 31, 32, 40):
        mse, rank = lower_bounds.linear_state_mse(32, m)
        assert rank == min(m, 32) and mse == pytest.approx((32 - rank) / 128, abs=1e-9)
    assert lower_bounds.index_accuracy_bound(1024, 1024) == 1.0
    bounds = [lower_bounds.index_accuracy_bound(128, n) for n in (256, 1024, 4096)]
    assert bounds == sorted(bounds, reverse=True) and 0.5 < bounds[-1] < 0.65


def test_our_lstm_computes_what_torch_lstm_computes_with_the_same_weights():
    torch.manual_seed(0)
    reference = torch.nn.LSTM(8, 8, batch_first=True).double()
    ours = build_model(RecurrentConfig(d_model=8, n_out=3, cell="lstm", input="vectors", input_dim=8,
                                       embedding="identity", readout="all"), dtype=torch.float64)
    layer = ours.layers[0]
    with torch.no_grad():
        layer.W_ih.copy_(reference.weight_ih_l0.T)
        layer.W_hh.copy_(reference.weight_hh_l0.T)
        layer.b_h.copy_(reference.bias_ih_l0 + reference.bias_hh_l0)
    x = torch.randn(5, 11, 8, dtype=torch.float64)
    cache = {}
    ours(x, cache=cache)
    assert torch.allclose(cache["layers.0.states"], reference(x)[0], atol=1e-12)


def test_elman_relu_matches_a_step_by_step_loop():
    model = build_model(RecurrentConfig(d_model=6, n_out=2, cell="elman", activation="relu", vocab_size=4),
                        seed=3, dtype=torch.float64)
    x = torch.randint(4, (3, 9))
    cache = {}
    model(x, cache=cache)
    layer = model.layers[0]
    h = layer.b_h0.expand(3, 6)
    for t in range(9):
        h = torch.relu(h @ layer.W_hh + model.W_E[x[:, t]] @ layer.W_ih + layer.b_h)
        assert torch.allclose(cache["layers.0.states"][:, t], h)


def test_an_lstm_ensemble_learns_short_index_lookup_through_the_trainer():
    task = VariableLengthIndexLookup(n_symbols=2, length=6, min_length=6)
    config = RecurrentConfig(d_model=32, n_out=2, cell="lstm", vocab_size=len(task.vocab), max_len=task.seq_len)
    run = train(config, [0, 1], TrainConfig(steps=600, lr=1e-2, batch_size=64, eval_every=200), task,
                evals={"test": task}, progress=False)
    assert min(run.final("test")) > 0.9  # chance is 0.5


def test_theorem13_disjointness_and_inequality_are_exact_thresholds_of_two_sparse_features():
    from lib.papers.bhattamishra2024.constructions import AND, XOR, bos_inputs, near_disjoint_pairs, pair_sets
    for function, g in (("disj", AND), ("ineq", XOR)):
        task = PairFunction(half_length=4, function=function)
        model = constructions.sparse_threshold(8, pair_sets(4), g, 0, k=40)
        assert accuracy(model, bos_inputs(task.enumerate())) == 1.0
    model = constructions.sparse_threshold(64, pair_sets(32), AND, 0, k=56)
    assert accuracy(model, bos_inputs(near_disjoint_pairs(32, 200))) == 1.0
    with pytest.raises(ValueError, match="g\\[0\\]\\[0\\]"):
        constructions.sparse_threshold(8, pair_sets(4), ((1, 0), (0, 1)), 0, k=40)


def test_theorem7_nearest_neighbour_is_exact_with_orthogonal_addresses_and_degrades_with_a_large_c1():
    from lib.tasks import NearestNeighbour
    task = NearestNeighbour(n_points=16, dim=6, mqar=True)
    batch = task.sample(20, seed=0)
    scored = batch.y != -100

    def errors(model):
        return int((predict(model, batch.x).argmax(-1)[scored] != batch.y[scored]).sum())

    assert errors(constructions.nearest_neighbour(task, gamma=2 / 6)) == 0
    narrow = near_orthogonal.sign_vectors(task.seq_len, 64, seed=0)
    assert errors(constructions.nearest_neighbour(task, gamma=2 / 6, addresses=narrow, c1=10.0)) > 0


def test_a_one_layer_transformer_learns_index_lookup_faster_than_an_lstm_at_smoke_scale():
    from lib.papers.bhattamishra2024 import sweeps
    config, grid = sweeps.index_lookup("smoke")
    out = {p["arch"]: r for p, r in zip(grid, sweeps.run_index_lookup(config, grid, scale="smoke"))}
    tf, lstm = sweeps.summary(out["TF-(1,32)"]), sweeps.summary(out["LSTM-(1,32)"])
    assert tf["best_final"] >= 0.9 and lstm["best_final"] <= 0.7  # 100 steps; chance is 0.25
    with pytest.raises(ValueError, match="unknown model"):
        sweeps.architecture("GRU-(1,8)", 4, 2, 8)


def test_lemma5_any_balanced_split_is_compared_exactly_by_two_layers():
    task = PairFunction(half_length=4, function="ineq")
    everything = task.enumerate()
    for alice in ([0, 2, 5, 7], [4, 5, 6, 7], [1, 3, 4, 6]):
        bob = [i for i in range(8) if i not in alice]
        target = (everything.x[:, alice] != everything.x[:, bob]).any(1).long()
        model = constructions.inequality(task, 40, alice=alice)
        assert torch.equal(predict(model, everything.x).argmax(-1), target)
    with pytest.raises(ValueError, match="distinct positions"):
        constructions.inequality(task, 40, alice=[0, 0, 1, 2])


def test_the_recall_reduction_recovers_alices_bits_and_answers_disjointness():
    from lib.tasks import NearestNeighbour
    task = NearestNeighbour(n_points=8, dim=3, mqar=True)
    solver = constructions.nearest_neighbour(task, gamma=2 / 3)
    for bits in itertools.product((0, 1), repeat=4):
        a = torch.tensor(bits)
        assert torch.equal(lower_bounds.recall_protocol(a, solver, task), a)
    with pytest.raises(ValueError, match="MQAR"):
        lower_bounds.recall_protocol(torch.tensor([1, 0]), solver, task)
