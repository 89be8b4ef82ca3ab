"""Bad input to Richard (2024)'s helpers fails at the boundary, naming the function and the argument
(issue 34); good input gives finite numbers. Property tests first, then one test per named example."""
import math

import numpy as np
import torch
from hypothesis import given
from hypothesis import strategies as st

from lib import validate
from lib.papers.richard2024 import analysis, boolean, readings, training
from lib.papers.richard2024 import closed_form as cf
from lib.results import Result
from lib.tasks import dyck_words as dw
from bad_input_support import FAST, non_ints, non_finite, non_reals, fails


negative = st.integers(-10**6, 0)


WORD = dw.from_string("(()())")
MODEL = cf.dyck_completer(WORD)


# ----------------------------------------------------------------------------- closed_form: reals
@FAST
@given(value=non_reals)
def test_closed_form_refuses_non_finite_or_non_real_gamma_and_v(value):
    fails(lambda: cf.exhaustive_check(2, value), "exhaustive_check", "gamma")
    if value is not None:  # None: the default
        fails(lambda: cf.exhaustive_check(2, cf.ATTRACTIVE, value), "exhaustive_check", "v")
    fails(lambda: cf.dyck_completer(WORD, value), "dyck_completer", "gamma")
    if value is not None:  # None: the default
        fails(lambda: cf.dyck_completer(WORD, cf.ATTRACTIVE, value), "dyck_completer", "v")
    fails(lambda: cf.dyck_value(3, value), "dyck_value", "gamma")
    fails(lambda: cf.positional_embedding(WORD, value, cf.DYCK_EMBEDDING), "positional_embedding", "gamma")
    fails(lambda: cf.telescoping_error(WORD, value, cf.DYCK_EMBEDDING), "telescoping_error", "gamma")
    fails(lambda: cf.eq1_model(cf.DYCK_EMBEDDING, np.zeros((4, 1)), value), "eq1_model", "v")
    if value is not None:  # None: the default
        fails(lambda: cf.stability_factor(value), "stability_factor", "gamma")
    fails(lambda: cf.theorem31_bounds(8, 4, value, 0.3), "theorem31_bounds", "vgamma")
    fails(lambda: cf.theorem31_bounds(8, 4, 10.0, value), "theorem31_bounds", "eps")
    fails(lambda: cf.margin_bound(8, 4, value, 0.5), "margin_bound", "vgamma")
    fails(lambda: cf.margin_bound(8, 4, 10.0, value), "margin_bound", "m")
    fails(lambda: cf.lemma51_probability(4, value, 1), "lemma51_probability", "vgamma")
    fails(lambda: cf.jl_dimension(8, value), "jl_dimension", "eps")
    fails(lambda: cf.path_picture(WORD, WORD[:2], value), "path_picture", "gamma")
    if value is not None:  # None: the default
        fails(lambda: cf.claim53_model(3, value), "claim53_model", "v")


@FAST
@given(eps=st.one_of(st.floats(max_value=0), st.floats(min_value=1)).filter(math.isfinite))
def test_eps_outside_the_open_unit_interval_is_refused(eps):
    fails(lambda: cf.jl_dimension(8, eps), "jl_dimension", "eps")
    fails(lambda: cf.theorem31_bounds(8, 4, 10.0, eps), "theorem31_bounds", "eps")


@FAST
@given(n=st.integers(2, 10**4), eps=st.floats(0.01, 0.99), t=st.integers(2, 10**4),
       vgamma=st.floats(0, 1e4), m=st.floats(1e-3, 10), r=st.integers(1, 10**4), N=st.integers(1, 10**4))
def test_closed_form_numbers_are_finite_on_their_domain(n, eps, t, vgamma, m, r, N):
    assert cf.jl_dimension(n, eps) >= 1
    bounds = cf.theorem31_bounds(n, t, vgamma, eps)
    assert all(math.isfinite(x) for x in bounds.values())
    assert math.isfinite(cf.margin_bound(n, t, vgamma, m))
    assert 0 <= cf.lemma51_probability(t, vgamma, r) <= 1
    assert 0 <= cf.lemma51_probability(t, -vgamma * 1e6, r) <= 1  # exp overflow: the probability is 0
    assert math.isfinite(cf.completion_bound(N)) and math.isfinite(cf.loss_bound(N))
    assert cf.dyck_value(N, -0.5) < 0 < cf.dyck_value(N, 0.5)


@FAST
@given(value=non_ints)
def test_closed_form_refuses_non_integer_counts(value):
    fails(lambda: cf.jl_dimension(value, 0.3), "jl_dimension", "n")
    fails(lambda: cf.jl_embedding(value, 4), "jl_embedding", "t")
    fails(lambda: cf.jl_embedding(4, value), "jl_embedding", "d")
    fails(lambda: cf.theorem31_bounds(value, 4, 1.0, 0.3), "theorem31_bounds", "n")
    fails(lambda: cf.margin_bound(8, value, 1.0, 0.3), "margin_bound", "t")
    fails(lambda: cf.lemma51_probability(4, 1.0, value), "lemma51_probability", "r")
    fails(lambda: cf.dyck_value(value, 0.5), "dyck_value", "N")
    fails(lambda: cf.completion_bound(value), "completion_bound", "N")
    fails(lambda: cf.loss_bound(value), "loss_bound", "N")
    fails(lambda: cf.exhaustive_check(value), "exhaustive_check", "N")
    fails(lambda: cf.claim53_model(value), "claim53_model", "N")
    fails(lambda: cf.complete(MODEL, [WORD[:2]], value), "complete", "N")


@FAST
@given(value=negative)
def test_negative_or_zero_sizes_are_refused(value):
    fails(lambda: cf.completion_bound(value), "completion_bound", "N")
    fails(lambda: cf.loss_bound(value), "loss_bound", "N")
    fails(lambda: cf.jl_embedding(value, 3), "jl_embedding", "t")
    fails(lambda: cf.jl_embedding(3, 3, seed=value - 1), "jl_embedding", "seed")
    fails(lambda: cf.lemma51_probability(4, 1.0, value), "lemma51_probability", "r")
    fails(lambda: cf.exhaustive_check(value), "exhaustive_check", "N")
    fails(lambda: training.word_set(4, value), "word_set", "count")
    fails(lambda: training.deep_prefixes(4, 2, value), "deep_prefixes", "count")
    fails(lambda: training.random_prefixes(WORD[None], value), "random_prefixes", "count")
    fails(lambda: training.tiled(WORD[None], value), "tiled", "size")
    fails(lambda: analysis.sampler_uniformity(3, value), "sampler_uniformity", "count")
    fails(lambda: analysis.boolean_stats(value), "boolean_stats", "n")
    fails(lambda: analysis.oracle_sample(value), "oracle_sample", "n")


# ----------------------------------------------------------------------------- closed_form: words
dyck_strings = st.integers(1, 5).flatmap(lambda N: st.integers(0, dw.catalan(N) - 1).map(
    lambda i: dw.all_words(N)[i]))
token_rows = st.lists(st.integers(-2, 3), min_size=2, max_size=10).map(lambda x: np.array(x, dtype=np.int64))


@FAST
@given(word=token_rows)
def test_only_dyck_words_are_taken_as_training_words(word):
    is_dyck = bool(np.isin(word, (0, 1)).all() and len(word) % 2 == 0 and dw.is_valid(word))
    if is_dyck:
        N = len(word) // 2
        assert cf.exhaustive_check(N, words=word[None])["pairs"] == len(dw.valid_prefixes(N))
        assert cf.construction_size(cf.dyck_completer(word)) == 2 * N + 3
    else:
        fails(lambda: cf.dyck_completer(word), "dyck_completer", "s")
        fails(lambda: cf.exhaustive_check(max(1, len(word) // 2), words=word[None]), "exhaustive_check", "words")
        fails(lambda: cf.model_check(word[None], [np.array([0])]), "model_check", "words")
        fails(lambda: cf.rule_completion(word[:1], word), "rule_completion", "s")


@FAST
@given(word=dyck_strings, prefix=token_rows)
def test_only_valid_prefixes_are_completed(word, prefix):
    N = len(word) // 2
    h = np.cumsum(1 - 2 * prefix)
    valid = np.isin(prefix, (0, 1)).all() and len(prefix) <= 2 * N and h.min() >= 0 and h[-1] <= 2 * N - len(prefix)
    if valid:
        out = cf.exhaustive_check(N, words=word[None], prefixes=[prefix])
        assert out["pairs"] == 1 and math.isfinite(out["min_log_prob"])
        assert dw.is_valid(cf.rule_completion(prefix, word))
    else:
        fails(lambda: cf.exhaustive_check(N, words=word[None], prefixes=[prefix]), "exhaustive_check", "prefixes")
        fails(lambda: cf.rule_completion(prefix, word), "rule_completion", "prefix")


@FAST
@given(value=st.one_of(st.just([0.5, 1.0]), st.just("(())"), st.none(), st.just([[0, 1]]), st.just([True, False])))
def test_token_sequences_of_the_wrong_type_are_refused(value):
    fails(lambda: cf.positional_embedding(value, -0.5, np.eye(2)), "positional_embedding", "s")
    fails(lambda: cf.sequence_loss(MODEL, value), "sequence_loss", "s")
    fails(lambda: cf.dyck_completer(value), "dyck_completer", "s")


def test_token_ids_outside_the_vocabulary_and_bad_embeddings_are_refused():
    fails(lambda: cf.positional_embedding([0, 2], -0.5, np.eye(2)), "positional_embedding", "s")
    fails(lambda: cf.positional_embedding([0, -1], -0.5, np.eye(2)), "positional_embedding", "s")
    fails(lambda: cf.positional_embedding([0], -0.5, np.eye(2)), "positional_embedding", "s")
    fails(lambda: cf.positional_embedding([0, 1], -0.5, [[math.nan, 0], [0, 1]]), "positional_embedding", "E")
    fails(lambda: cf.next_token_logits(MODEL, [0, 5]), "next_token_logits", "s")
    fails(lambda: cf.next_token_logits(MODEL, [0] * 7), "next_token_logits", "s")
    fails(lambda: cf.next_token_logits("model", [0]), "next_token_logits", "model")
    fails(lambda: cf.margin(np.ones((1, 3))), "margin", "E")  # one token: no margin (it was inf)
    fails(lambda: cf.eq1_model(np.eye(2), np.zeros((3, 3)), 1.0), "eq1_model", "B")
    fails(lambda: cf.eq1_model(np.eye(2), 0, 1.0, positions=False), "eq1_model", "B")
    fails(lambda: cf.eq1_model(np.eye(2), np.zeros((3, 2)), 1.0, positions="yes"), "eq1_model", "positions")
    fails(lambda: cf.complete(MODEL, [], 3), "complete", "prefixes")
    fails(lambda: cf.complete(MODEL, [WORD[:2]], 4), "complete", "N")  # 8 tokens > the model's 6
    fails(lambda: cf.complete(MODEL, [WORD[:2]], 3, greedy=1), "complete", "greedy")
    fails(lambda: cf.padded_prefixes([np.array([0, 1, 0])], 2), "padded_prefixes", "prefixes[0]")
    fails(lambda: cf.padded_prefixes([np.array([0])], 0), "padded_prefixes", "n")
    fails(lambda: cf.construction_size(None), "construction_size", "model")
    fails(lambda: cf.path_picture(WORD, [0, 0, 0, 0], -0.5), "path_picture", "prefix")
    fails(lambda: cf.jl_dimension(1, 0.3), "jl_dimension", "n")  # ln 1 = 0: a width of 0
    fails(lambda: cf.margin_bound(1, 4, 1.0, 0.5), "margin_bound", "n")  # log 0
    fails(lambda: cf.margin_bound(8, 4, 1.0, -0.5), "margin_bound", "m")
    fails(lambda: cf.claim53_model(2, v=-1.0), "claim53_model", "v")  # Claim 5.3 needs v < -2N^2(2N + 1) = -40
    fails(lambda: cf.dyck_value(3, 0.0), "dyck_value", "gamma")
    fails(lambda: cf.stability_factor(0), "stability_factor", "gamma")  # mu_r divides by gamma
    fails(lambda: cf.exhaustive_check(3, cf.ATTRACTIVE, 0), "exhaustive_check", "v")


def test_valid_closed_form_calls_keep_their_values():
    assert cf.lemma51_probability(50, 30.0, 3) == 1.0 / (1.0 + 49 * math.exp(-10.0))
    assert cf.lemma51_probability(2, -1e6, 1) == 0.0  # used to raise OverflowError
    assert cf.margin_bound(64, 50, 640.0, 0.5) == math.log(63 * 49) - 10 * 0.5
    assert cf.claim53_model(2, v=-41).get_weight("layers.0.attn.W_V").item() == -41
    picture = cf.path_picture(WORD, WORD[:2])
    assert dw.is_valid(picture["completion_word"])


def test_exhaustive_check_refuses_work_that_would_not_finish():
    with validate.memory_cap(1):
        fails(lambda: cf.exhaustive_check(13), "exhaustive_check", "pairs")
    assert cf._prefix_count(8) == 6916 == len(dw.valid_prefixes(8))
    fails(lambda: cf.exhaustive_check(14), "exhaustive_check", "N")
    fails(lambda: analysis.exhaustive(12), "exhaustive", "pairs")


# ----------------------------------------------------------------------------- named examples
def test_named_nan_gamma_no_longer_reports_a_perfect_min_log_prob():
    # before: exhaustive_check(3, nan) gave min_log_prob 0 while 35 of 105 completions were invalid
    fails(lambda: cf.exhaustive_check(3, math.nan), "exhaustive_check", "gamma")
    fails(lambda: cf.exhaustive_check(3, math.inf), "exhaustive_check", "gamma")
    fails(lambda: cf.exhaustive_check(3, cf.ATTRACTIVE, math.nan), "exhaustive_check", "v")
    fails(lambda: cf.exhaustive_check(3, cf.ATTRACTIVE, -math.inf), "exhaustive_check", "v")
    good = cf.exhaustive_check(3)
    assert good["pairs"] == 105 and good["invalid"] == 0 and math.exp(good["min_log_prob"]) >= cf.completion_bound(3)


def test_named_best_lr_never_picks_a_diverged_rate():
    assert training.best_lr([0.1, 0.01], [math.nan, 1.0]) == 0.01  # was 0.1
    assert training.best_lr([0.1, 0.01], [math.inf, 1.0]) == 0.01
    assert training.best_lr([0.1, 0.1, 0.01, 0.01], [0.5, math.nan, 1.0, 2.0]) == 0.01  # one seed of 0.1 diverged
    assert training.best_lr([0.1, 0.1, 0.01], [0.5, 0.7, 1.0]) == 0.1  # finite losses: unchanged
    fails(lambda: training.best_lr([0.1, 0.01], [math.nan, math.inf]), "best_lr", "diverged")
    fails(lambda: training.best_lr([0.1, 0.01], [1.0]), "best_lr", "final_losses")
    fails(lambda: training.best_lr([], []), "best_lr", "lrs")
    fails(lambda: training.best_lr([0.1, -0.01], [1.0, 2.0]), "best_lr", "lrs[1]")
    fails(lambda: training.best_lr([0.1], ["1.0"]), "best_lr", "final_losses[0]")


@FAST
@given(losses=st.lists(st.one_of(st.floats(0, 10), non_finite), min_size=1, max_size=6))
def test_best_lr_picks_the_lowest_finite_rate_or_refuses(losses):
    lrs = [10.0 ** -(i + 1) for i in range(len(losses))]
    finite = [(l, r) for r, l in zip(lrs, losses) if math.isfinite(l)]
    if finite:
        assert training.best_lr(lrs, losses) == min(finite, key=lambda pair: pair[0])[1]
    else:
        fails(lambda: training.best_lr(lrs, losses), "best_lr")


def test_named_kmeans_refuses_zero_clusters_and_bad_points():
    points = np.array([[0.0, 0.0], [0.1, 0.0], [5.0, 5.0], [5.1, 5.0]])
    fails(lambda: training.kmeans(points, 0), "kmeans", "k")  # returned one cluster
    fails(lambda: training.kmeans(points, -1), "kmeans", "k")
    fails(lambda: training.kmeans(points, 5), "kmeans", "k")  # more clusters than points
    fails(lambda: training.kmeans(np.array([[0.0, math.nan], [1.0, 1.0]]), 1), "kmeans", "points")
    fails(lambda: training.kmeans(points, 2, iterations=0), "kmeans", "iterations")
    fails(lambda: training.kmeans(np.zeros((0, 2)), 1), "kmeans", "points")
    fails(lambda: training.kmeans(points, 2.0), "kmeans", "k")
    labels, centroids = training.kmeans(points, 2)
    assert len(set(labels[:2])) == 1 and labels[0] != labels[2] and np.isfinite(centroids).all()


@FAST
@given(k=st.integers(1, 6), m=st.integers(6, 12), seed=st.integers(0, 2**32))
def test_kmeans_on_valid_input_returns_finite_centroids(k, m, seed):
    points = np.random.default_rng(seed).standard_normal((m, 2))
    labels, centroids = training.kmeans(points, k, seed=seed)
    assert len(labels) == m and labels.max() < k and np.isfinite(centroids).all()


def test_named_negative_word_counts_are_refused():
    fails(lambda: training.word_set(4, -1), "word_set", "count")  # pool[:-1] returned all but one word
    fails(lambda: training.word_set(16, -5), "word_set", "count")
    fails(lambda: training.deep_prefixes(4, 2, -3), "deep_prefixes", "count")
    fails(lambda: training.random_prefixes(dw.all_words(3), -2), "random_prefixes", "count")
    fails(lambda: training.tiled(dw.all_words(3), -2), "tiled", "size")
    fails(lambda: analysis.sampler_uniformity(3, -10), "sampler_uniformity", "count")
    fails(lambda: analysis.theorem41_at_16(3, -1), "theorem41_at_16", "n_deep")
    fails(lambda: analysis.oracle_sample(-6), "oracle_sample", "n")
    fails(lambda: analysis.boolean_stats(-1), "boolean_stats", "n")
    fails(lambda: boolean.make_data(k=1, train_depths=[1], test_depths=[1], n_train=-1, n_test=5), "make_data",
          "n_train")
    fails(lambda: boolean.make_data(k=1, train_depths=[1], test_depths=[1], n_train=10, n_test=-5), "make_data",
          "n_test")
    fails(lambda: boolean.make_data(k=1, train_depths=[1], test_depths=[1], n_train=10, n_test=5, n_held_out=-1),
          "make_data", "n_held_out")


def test_named_non_dyck_word_accepted_by_the_exhaustive_check():
    # before: ")(()" (and tokens outside {0, 1} that is_valid adds up to 0) ran as a training word
    fails(lambda: cf.exhaustive_check(2, words=[[1, 0, 0, 1]]), "exhaustive_check", "words[0]")
    fails(lambda: cf.exhaustive_check(2, words=[[-1, 1, 1, 1]]), "exhaustive_check", "words[0]")
    fails(lambda: cf.exhaustive_check(2, words=[[0, 0, 1, 1], [0, 1, 1, 0]]), "exhaustive_check", "words[1]")
    fails(lambda: cf.exhaustive_check(2, words=[[0, 1]]), "exhaustive_check", "words")  # length 2, not 2N = 4
    fails(lambda: cf.exhaustive_check(2, prefixes=[np.array([1])]), "exhaustive_check", "prefixes[0]")
    fails(lambda: cf.exhaustive_check(2, prefixes=[np.array([0, 0, 0])]), "exhaustive_check", "prefixes[0]")
    fails(lambda: cf.dyck_completer([-1, 1, 1, 1]), "dyck_completer", "s")  # is_valid alone accepted it
    fails(lambda: cf.model_check([[1, 0]], [np.array([0])]), "model_check", "words[0]")
    assert cf.exhaustive_check(2, words=[[0, 0, 1, 1]])["invalid"] == 0


# ----------------------------------------------------------------------------- training, boolean, readings, analysis
def test_training_refuses_bad_arguments():
    words = dw.all_words(3)
    fails(lambda: training.word_set(0, 3), "word_set", "N")
    fails(lambda: training.word_set(40, 3), "word_set", "N")
    fails(lambda: training.word_set(4, 3, max_depth=2, min_depth=3), "word_set", "min_depth")
    fails(lambda: training.word_set(4, 3, seed=-1), "word_set", "seed")
    fails(lambda: training.word_set(4, 3.0), "word_set", "count")
    fails(lambda: training.word_set(4, 3, exclude=[[0, 1]]), "word_set", "exclude")
    fails(lambda: training.as_batch([[0.5, 1.0]]), "as_batch", "words")
    fails(lambda: training.as_batch(np.zeros((0, 4), dtype=np.int64)), "as_batch", "words")
    fails(lambda: training.random_prefixes(words[:, :1], 3), "random_prefixes", "words")
    fails(lambda: training.completion_accuracy(MODEL, [], 3), "completion_accuracy", "prefixes")  # mean of none: nan
    fails(lambda: training.completion_accuracy(MODEL, [WORD[:2]], 0), "completion_accuracy", "N")
    fails(lambda: training.completion_accuracy("model", [WORD[:2]], 3), "completion_accuracy", "model")
    fails(lambda: training.ov_matrix(MODEL, 3), "ov_matrix", "layer")
    fails(lambda: training.positional_paths(cf.claim53_model(3)), "positional_paths", "model")
    fails(lambda: training.train_on_words(MODEL.config, [0], [], steps=1, lr=1e-3, batch_size=2, warmup=0),
          "train_on_words", "data")
    assert len(training.word_set(4, 3, exclude=np.zeros((0, 8), dtype=np.int64))) == 3
    assert training.ov_matrix(MODEL).shape == (1, 1) and training.positional_paths(MODEL).shape == (1, 6)


def test_boolean_refuses_bad_arguments():
    pairs = [("p0 & true", "p0"), ("false", "false")]
    fails(lambda: boolean.make_data(k=0, train_depths=[1], test_depths=[1], n_train=10, n_test=5), "make_data", "k")
    fails(lambda: boolean.make_data(k=1, train_depths=[], test_depths=[1], n_train=10, n_test=5), "make_data",
          "train_depths")
    fails(lambda: boolean.make_data(k=1, train_depths=[1], test_depths=[99], n_train=10, n_test=5), "make_data",
          "test_depths[0]")
    fails(lambda: boolean.make_data(k=1, train_depths=[1], test_depths=[1], n_train=10, n_test=5, seed=-1),
          "make_data", "seed")
    fails(lambda: boolean.encode(pairs, 1), "encode", "context")
    fails(lambda: boolean.encode([], 32), "encode", "pairs")
    fails(lambda: boolean.encode(["p0"], 32), "encode", "pairs[0]")
    fails(lambda: boolean.prompt(3), "prompt", "lhs")
    fails(lambda: boolean.constant_baselines([]), "constant_baselines", "pairs")  # mean of none: nan
    fails(lambda: boolean.accuracy(MODEL, []), "accuracy", "pairs")
    fails(lambda: boolean.complete(MODEL, ["p0"], max_new=0), "complete", "max_new")
    fails(lambda: boolean.complete(None, ["p0"]), "complete", "model")
    assert boolean.constant_baselines(pairs) == {"true": 0.0, "false": 0.5}
    assert boolean.encode(pairs, 32).x.shape[1] == 31


@FAST
@given(curves=st.integers(1, 4).flatmap(lambda m: st.lists(st.floats(-10, 10), min_size=3 * m, max_size=3 * m)))
def test_end_ratio_is_finite_or_refused(curves):
    array = np.array(curves).reshape(-1, 3)
    if np.abs(array).max(1).mean() > 0:
        assert math.isfinite(readings.end_ratio(array))
    else:
        fails(lambda: readings.end_ratio(array), "end_ratio", "curves")


def test_readings_and_analysis_refuse_bad_arguments():
    fails(lambda: readings.end_ratio(np.zeros((2, 3))), "end_ratio", "curves")  # 0 / 0
    fails(lambda: readings.end_ratio([[math.nan, 1.0]]), "end_ratio", "curves")
    fails(lambda: readings.end_ratio(np.zeros((0, 3))), "end_ratio", "curves")
    fails(lambda: readings.valid_count({"counts": [1, -2], "valid": [True, True]}), "valid_count", "counts")
    fails(lambda: readings.valid_count({"counts": [1], "valid": [True, True]}), "valid_count", "context")
    fails(lambda: readings.frame({}), "frame", "result")
    fails(lambda: readings.spectrum_rows([]), "spectrum_rows", "models")
    assert readings.valid_count({"counts": [3, 2], "valid": [True, False]}) == 3
    fails(lambda: analysis.memorization_table([0, 1, 2], 1), "memorization_table", "t")
    fails(lambda: analysis.memorization_table([0, 9], 4), "memorization_table", "s")
    fails(lambda: analysis.memorization_table([0, 1], 4, eps=(1.5,)), "memorization_table", "eps[0]")
    fails(lambda: analysis.memorization_table([0, 1], 4, ratios=()), "memorization_table", "ratios")
    fails(lambda: analysis.memorization_table([0, 1], 4, ratios=(math.nan,)), "memorization_table", "ratios[0]")
    fails(lambda: analysis.exhaustive(0), "exhaustive", "N")
    fails(lambda: analysis.exhaustive(3, 0), "exhaustive", "model_words_step")
    fails(lambda: analysis.claim53_table([0]), "claim53_table", "Ns")
    fails(lambda: analysis.claim53_table([]), "claim53_table", "Ns")
    fails(lambda: analysis.sampler_uniformity(0), "sampler_uniformity", "N")
    fails(lambda: analysis.oracle_sample(5), "oracle_sample", "n")  # n // 6 = 0: nothing drawn
    fails(lambda: analysis.boolean_stats(10, depths=[0]), "boolean_stats", "depths")
    fails(lambda: analysis.closed_form_accuracy(None, WORD), "closed_form_accuracy", "result")
    fails(lambda: analysis.one_training_word("result"), "one_training_word", "result")
    fails(lambda: analysis.closed_form_counts(3), "closed_form_counts", "result")
    assert Result  # the type the readings take
    assert len(analysis.oracle_sample(6)) == 6


def test_tensor_inputs_still_work():
    assert cf.telescoping_error(torch.tensor([0, 1, 1, 0]), -0.5, np.eye(2)) < 1e-12
    assert cf.sequence_loss(MODEL, torch.as_tensor(WORD)) >= 0


def test_sweep_builders_refuse_bad_sizes():
    from lib.papers.richard2024 import sweeps

    fails(lambda: sweeps.fixed_embedding(0), "fixed_embedding", "d")
    fails(lambda: sweeps.fixed_embedding(4, seed=-1), "fixed_embedding", "seed")
    fails(lambda: sweeps.variant_config("full", -1, 8, 1, 1, 4), "variant_config", "N")
    fails(lambda: sweeps.variant_config("full", 4, 8.0, 1, 1, 4), "variant_config", "d")
    fails(lambda: sweeps.variant_config(3, 4, 8, 1, 1, 4), "variant_config", "variant")
    E = sweeps.fixed_embedding(4)
    assert E.shape == (2, 4) and np.allclose(E[0], -E[1])


def test_jl_dimension_refuses_an_eps_whose_square_underflows():
    fails(lambda: cf.jl_dimension(8, 1e-200), "jl_dimension", "eps")  # was ZeroDivisionError
    assert cf.jl_dimension(64, 0.5) == 200 and cf.jl_dimension(8, 1e-6) > 10**12


def test_readers_of_stored_results_refuse_other_types():
    from lib.papers.richard2024 import figures, setup

    for name in ("architectures", "sample_size", "completions", "ablations", "gd_eq1", "boolean_simplification"):
        fails(lambda: getattr(setup, name)({"config": {}}), name, "result")
    fails(lambda: setup.figure_7(None, [], 3), "figure_7", "result")
    fails(lambda: figures.spectra({}), "spectra", "comp_result")
    fails(lambda: figures.boolean_accuracy(None, None), "boolean_accuracy", "result")
    from lib.papers.richard2024 import checks

    fails(lambda: checks.lemma_5_1(MODEL, WORD, math.nan), "lemma_5_1", "vgamma")
    fails(lambda: checks.lemma_5_1(MODEL, [0, 7], 1.0), "lemma_5_1", "s")
    fails(lambda: checks.theorem_3_1(None, -1, 8), "theorem_3_1", "t")
