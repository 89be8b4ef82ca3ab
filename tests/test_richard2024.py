"""Richard (2024): Dyck words and their counts, the decoder configuration of Eq. (1), and the
closed forms (Eq. 4, Lemma 5.1, Theorem 3.1, Theorem 4.1, Claim 5.3) exact on whole tasks."""
import math

import numpy as np
import pytest
import torch

from lib.models import DecoderConfig, build_model
from lib.models.decoder import eq1_config, generate, gpt_config
from lib.papers.richard2024 import closed_form as cf
from lib.tasks import dyck_words as dw
from lib.train import TrainConfig, train
from lib.tasks.base import Batch


# ----------------------------------------------------------------------------- Dyck words
def test_enumeration_matches_catalan_and_every_word_is_balanced():
    for N in range(1, 11):
        words = dw.all_words(N)
        assert len(words) == dw.catalan(N) == len(dw.distinct(words))
        assert dw.is_valid(words, N).all()
    assert dw.catalan(16) == 35_357_670
    with pytest.raises(ValueError, match="N"):
        dw.all_words(20)


def test_depth_counts_by_dynamic_programming_match_enumeration_and_the_notes():
    for N in (8, 10):
        depths = dw.depth(dw.all_words(N))
        counts = dw.depth_counts(N)
        assert all(counts[h] == int((depths <= h).sum()) for h in range(1, N + 1))
    c16 = dw.depth_counts(16)
    assert (c16[4], c16[8], c16[16] - c16[12]) == (7_174_454, 33_602_822, 4_000)


@pytest.mark.parametrize("sampler", ["cycle", "depth"])
def test_samplers_are_uniform_over_the_words(sampler):
    draws = dw.sample_words(4, 70_000, seed=1) if sampler == "cycle" else dw.sample_by_depth(4, 70_000, seed=1)
    words, counts = np.unique(draws, axis=0, return_counts=True)
    assert len(words) == 14 and dw.is_valid(words).all()
    assert np.abs(counts - 5000).max() < 5 * math.sqrt(5000)


def test_depth_band_sampler_stays_in_its_band_and_is_uniform_there():
    draws = dw.sample_by_depth(8, 60_000, min_depth=3, max_depth=4, seed=2)
    assert set(np.unique(dw.depth(draws))) == {3, 4}
    words, counts = np.unique(draws, axis=0, return_counts=True)
    c = dw.depth_counts(8)
    assert len(words) == c[4] - c[2]
    expected = 60_000 / len(words)
    assert np.abs(counts - expected).max() < 6 * math.sqrt(expected)
    with pytest.raises(ValueError, match="min_depth must be an integer <= 2"):
        dw.sample_by_depth(2, 5, min_depth=3)


def test_peak_prefix_has_the_words_depth_and_is_the_shortest_such():
    for word in dw.sample_words(10, 200, seed=3):
        p = dw.peak_prefix(word)
        assert dw.depth(p) == dw.depth(word) and dw.depth(p[:-1]) < dw.depth(word)
    assert len(dw.valid_prefixes(8)) == 6916


# ----------------------------------------------------------------------------- decoder
def test_eq1_config_is_one_uniform_head_with_a_tied_fixed_embedding():
    model = build_model(eq1_config(2, 8))
    assert sorted(n for n, _ in model.named_parameters()) == ["W_pos", "layers.0.attn.W_V"]
    assert torch.equal(model.W_U, model.W_E.T)
    with pytest.raises(ValueError, match="n_out must equal vocab_size"):
        DecoderConfig(d_model=4, n_out=3, vocab_size=2)
    with pytest.raises(ValueError, match="not a weight"):
        build_model(DecoderConfig(d_model=4, n_out=2, vocab_size=2, fixed=("W_nope",)))


def test_tied_gpt_trains_its_embedding_through_the_readout_and_leaves_fixed_weights_alone():
    config = gpt_config(2, 10, 8, 1, 2, mlp_ratio=2, fixed=("W_pos",))
    before = build_model(config, seed=0)
    words = torch.as_tensor(dw.all_words(5))
    data = Batch(x=words[:, :-1], y=words[:, 1:])
    run = train(config, [0], TrainConfig(steps=60, lr=1e-2, batch_size=None, eval_every=60), data,
                {"train": data}, progress=False)
    after = run.model(0)
    assert torch.equal(after.W_pos, before.W_pos)
    assert not torch.equal(after.W_E, before.W_E) and torch.equal(after.W_U, after.W_E.T)
    assert run.metrics["train"]["loss"][0, -1] < run.metrics["train"]["loss"][0, 0] - 0.1


def test_generate_batches_mixed_lengths_and_keeps_prefixes():
    model = cf.dyck_completer(dw.from_string("(())()"))
    prefixes = [np.array([0]), np.array([0, 0, 1]), np.array([0, 1, 0, 0])]
    out = generate(model, prefixes, 6, greedy=True)
    assert all((out[i, :len(p)] == p).all() for i, p in enumerate(prefixes))
    assert dw.is_valid(out).all()
    with pytest.raises(ValueError, match="prefix 0 has 0 tokens"):
        generate(model, [np.array([], dtype=np.int64)], 6)


def test_generate_stops_a_row_at_its_stop_token_and_changes_nothing_before_it():
    model = cf.dyck_completer(dw.from_string("((()))()"))
    prefixes = [np.array([0]), np.array([0, 0, 0, 1])]
    plain = generate(model, prefixes, 8, greedy=True)
    stopped = generate(model, prefixes, 8, greedy=True, stop=dw.CLOSE)
    for full, cut, p in zip(plain, stopped, prefixes):
        first = len(p) + int(np.argmax(full[len(p):] == dw.CLOSE))  # the first generated ')'
        assert (cut[:first + 1] == full[:first + 1]).all() and (cut[first:] == dw.CLOSE).all()
    with pytest.raises(ValueError, match="stop"):
        generate(model, prefixes, 8, stop=-1)


@pytest.mark.parametrize("changes", [
    dict(),  # GPT-2 style: pre-LayerNorm, GELU MLP, learned positions
    dict(attention="relu", positions="onehot", norm="none", d_mlp=0, masked_keys=(1,)),
    dict(attention="uniform", combine="mean", residual=False, d_mlp=0, norm="none"),
    dict(maskable=True),
])
def test_generate_computes_each_position_once_and_matches_full_passes(changes):
    """The incremental steps of ``generate`` give the logits of full passes over the prefix (float64,
    to 1e-10), so greedy completions agree with a full-pass loop; the MLP sees each position of a
    batch once (``length`` rows per sequence, not the prefixes' sum)."""
    from lib.models.decoder import _last_logits
    config = gpt_config(7, 12, 16, 2, 2, mlp_ratio=2, **changes)
    model = build_model(config, seed=3).double().eval()
    if config.maskable:
        model.restrict(n_heads=1, n_keys=10)
    x = torch.as_tensor(np.random.default_rng(0).integers(0, 7, (5, 12)))
    streams, done = [], 0
    with torch.no_grad():
        for t in range(2, 13):
            full = model(x[:, :t])[:, -1]
            assert torch.allclose(_last_logits(model, x[:, :t], streams, done), full, rtol=0, atol=1e-10)
            done = t
    prefixes = [x[i, :k].numpy() for i, k in enumerate((1, 2, 4, 1, 3))]
    reference = np.zeros((5, 12), dtype=np.int64)
    for i, p in enumerate(prefixes):
        row = torch.as_tensor(p)[None]
        while row.shape[1] < 12:
            with torch.no_grad():
                row = torch.cat([row, model(row)[:, -1].argmax(-1, keepdim=True)], 1)
        reference[i] = row[0].numpy()
    rows = []
    if config.d_mlp:
        model.layers[0].mlp.register_forward_hook(lambda m, args, out: rows.append(args[0].shape[0] * args[0].shape[1]))
    assert (generate(model, prefixes, 12, greedy=True) == reference).all()
    if config.d_mlp:
        assert sum(rows) == 5 * 11  # positions 0..10 once each (the 12th token's logits come from position 10)


# ----------------------------------------------------------------------------- closed forms
def test_telescoping_identity_holds_for_any_embedding():
    rng = np.random.default_rng(0)
    for t, d in ((5, 3), (50, 17), (2, 1)):
        s = rng.integers(0, t, 40)
        for gamma in (-0.5, 0.5, 2.0):
            assert cf.telescoping_error(s, gamma, rng.standard_normal((t, d))) < 1e-12


def test_lemma51_one_hot_probabilities_are_exact():
    rng = np.random.default_rng(1)
    t, n, vgamma = 7, 12, 30.0
    s = rng.integers(0, t, n)
    model = cf.eq1_model(np.eye(t), cf.positional_embedding(s, -0.5, np.eye(t)), vgamma / -0.5)
    probs = torch.softmax(torch.as_tensor(cf.next_token_logits(model, s)[:-1]), -1).numpy()
    expected = [cf.lemma51_probability(t, vgamma, r) for r in range(1, n)]
    assert np.allclose(probs[np.arange(n - 1), s[1:]], expected, atol=1e-12)


def test_theorem31_regenerates_and_the_paper_bound_fails_where_the_margin_bound_holds():
    t, n, eps = 50, 64, 0.5
    s = np.random.default_rng(0).integers(0, t, n)
    E = cf.jl_embedding(t, cf.jl_dimension(n, eps), seed=0)
    B = cf.positional_embedding(s, -0.5, E)
    m = cf.margin(E)
    assert m > 1 - 3 * eps
    model = cf.eq1_model(E, B, 20 * n / -0.5)
    assert (generate(model, [s[:k] for k in (1, 10, 40)], n, seed=1) == s).all()
    big = cf.eq1_model(E, B, 100 * n / -0.5)
    log_loss = cf.log_sequence_loss(big, s)
    assert log_loss > cf.theorem31_bounds(n, t, 100 * n, eps)["log_loss"]  # the erratum
    assert log_loss < cf.margin_bound(n, t, 100 * n, m)


def test_stability_factors():
    """Derived by sympy from the context identity: the paper's mu_r from its display as printed,
    (1 + gamma)/gamma from the identity Eq. (4) gives (its partial sums telescope, not r times them)."""
    assert str(cf.stability_factor(-0.5)) == "(r - 3)/r" and str(cf.stability_factor(0.5)) == "(r + 1)/r"
    assert cf.stability_factor(-0.5, "eq4") == -1 and cf.stability_factor(0.5, "eq4") == 3
    E, word = np.random.default_rng(3).standard_normal((2, 4)), [0, 1, 0, 0, 1, 1]
    assert cf.telescoping_error(word, -0.5, E) < 1e-12
    # the display's reading, r times the mean, is not what Eq. (4) gives (for r >= 2)
    B = cf.positional_embedding(word, -0.5, E)
    sums = np.cumsum(E[word] + B, axis=0)[:-1]
    r = np.arange(1, len(word))[:, None]
    assert np.abs(sums / r - (-0.5) * E[word[1:]])[1:].max() > 0.1


def test_theorem41_is_exact_on_every_word_and_prefix_of_d12_and_gamma_positive_fails_exactly_off_height():
    attractive = cf.exhaustive_check(6)
    assert attractive["pairs"] == 132 * len(dw.valid_prefixes(6))
    assert attractive["invalid"] == attractive["rule_mismatch"] == 0
    assert attractive["memorized"] == attractive["prefix_pairs"] > 0
    assert math.exp(attractive["min_log_prob"]) >= cf.completion_bound(6)
    repulsive = cf.exhaustive_check(6, cf.REPULSIVE)
    assert repulsive["invalid_iff_different_height"] and repulsive["invalid"] == repulsive["different_height"] > 0
    words = dw.all_words(6)
    assert cf.model_check(words[::10], dw.valid_prefixes(6)) == dict(
        pairs=len(words[::10]) * len(dw.valid_prefixes(6)), invalid=0, differ_from_numpy=0)


def test_theorem41_model_has_2n_plus_3_weights_and_its_loss_bound():
    s = dw.from_string("(()(()())((()()))((())))(()())()")
    model = cf.dyck_completer(s)
    assert cf.construction_size(model) == 35
    assert cf.sequence_loss(model, s) < cf.loss_bound(16)
    deep = [dw.peak_prefix(w) for w in dw.sample_by_depth(16, 64, min_depth=12, seed=0)]
    assert dw.is_valid(cf.complete(model, deep, 16, seed=0)).all()


def test_a_wrong_sign_breaks_theorem41():
    s = dw.all_words(5)[7]
    result = cf.exhaustive_check(5, cf.ATTRACTIVE, v=+(2 * 25 + 1), words=s[None])  # v > 0 with gamma < 0
    assert result["invalid"] > 0


def test_claim53_three_weights_complete_every_prefix():
    for N in (6, 8):
        model = cf.claim53_model(N)
        assert cf.construction_size(model) == 3
        assert dw.is_valid(cf.complete(model, dw.valid_prefixes(N), N, greedy=True)).all()
    out = cf.complete(cf.claim53_model(8), [dw.from_string("(((")], 8, greedy=True)[0]
    assert dw.to_string(out) == "((()))()()()()()"


# ----------------------------------------------------------------------------- training
from lib.papers.richard2024 import sweeps, training  # noqa: E402


def test_word_sets_are_distinct_bounded_and_exclude_what_they_are_told():
    words = training.word_set(8, 200, max_depth=3, seed=0)
    assert len(dw.distinct(words)) == 200 and (dw.depth(words) <= 3).all()
    held = words[:50]
    rest = training.word_set(8, None, max_depth=3, exclude=held)
    assert len(rest) == dw.depth_counts(8)[3] - 50
    assert not {w.tobytes() for w in rest} & {w.tobytes() for w in held}
    with pytest.raises(ValueError, match="only 128 words"):
        training.word_set(8, 500, max_depth=2)
    sampled = training.word_set(16, 100, min_depth=13, seed=1)
    assert len(dw.distinct(sampled)) == 100 and (dw.depth(sampled) >= 13).all()
    assert len(training.tiled(words[:3], 10)) == 10


def test_a_trained_decoder_learns_to_complete_and_an_untrained_one_does_not():
    words = dw.all_words(6)
    prompts = training.random_prefixes(words, 200, seed=0)
    config = gpt_config(2, 12, 16, 1, 2, mlp_ratio=4)
    run = training.train_on_words(config, [0], words, steps=150, lr=1e-2, batch_size=64, warmup=10)
    trained = training.completion_accuracy(run.model(0), prompts, 6, seed=1)
    untrained = training.completion_accuracy(build_model(config, seed=0), prompts, 6, seed=1)
    assert trained >= 0.9 and untrained <= 0.5, (trained, untrained)


def test_ablation_variants_hold_what_they_fix_and_kmeans_separates_clusters():
    for variant in sweeps.VARIANTS:
        model = build_model(sweeps.variant_config(variant, 6, 8, 2, 2, 2))
        buffers = {n for n, _ in model.named_buffers()}
        assert ("W_E" in buffers) == (variant not in sweeps.VARIANTS[:2])
        assert ("W_pos" in dict(model.named_parameters())) == (variant != "no positional embedding")
    E = sweeps.fixed_embedding(16)
    assert np.allclose(E[0], -E[1]) and np.isclose(np.linalg.norm(E[0]), 4.0)
    points = np.concatenate([np.zeros((20, 3)), np.full((20, 3), 10.0)]) + np.random.default_rng(0).normal(0, .1, (40, 3))
    labels, centroids = training.kmeans(points, 2)
    assert len(set(labels[:20])) == 1 and len(set(labels[20:])) == 1 and labels[0] != labels[-1]


def test_ablation_sets_train_in_calls_that_fit_and_give_each_member_what_one_call_gives(monkeypatch):
    sizes = [4**k for k in range(1, 11)]  # the paper scale's grid: 3 members per set, words of 32
    calls = sweeps.tile_calls(sizes, 3, 32)
    assert sorted(i for c in calls for i in c) == list(range(10)) and len(calls) > 1
    for call in calls:
        held = len(call) * 3 * max(sizes[i] for i in call) * 2 * 8 * 32
        assert held <= sweeps.TILE_BYTES or len(call) == 1, (call, held)
    assert sweeps.tile_calls([4, 64, 1024, 15116], 3, 20) == [[0, 1, 2, 3]]  # the default: one call
    assert sweeps.tile_calls([4, 64], 3, 20, budget=1) == [[1], [0]]

    config, points = sweeps.ablations("smoke")
    points = [dict(p, size=n) for p, n in zip(points, (4, 64))]  # sizes that divide each other
    one = sweeps.run_ablations(config, points, scale="smoke")
    monkeypatch.setattr(sweeps, "TILE_BYTES", 1)  # every set in a call of its own
    split = sweeps.run_ablations(config, points, scale="smoke")
    for a, b in zip(one, split):
        assert a["seed"] == b["seed"] and a["lr"] == b["lr"] and a["distinct_words"] == b["distinct_words"]
        assert np.allclose(a["final_loss"], b["final_loss"], rtol=1e-4), (a["final_loss"], b["final_loss"])
        assert a["in_acc"] == b["in_acc"] and a["out_acc"] == b["out_acc"]


def test_theorem_3_1_holds_with_a_rescaled_embedding_and_the_proofs_misses_its_bound():
    """The theorem's "there exists": the JL embedding rescaled to margin 1, and a circle in d = 2,
    meet the stated loss bound at every v gamma; the proof's unscaled JL embedding misses it at
    large v gamma (the erratum), while the margin bound always holds."""
    from lib.papers.richard2024 import analysis

    s = np.random.default_rng(1).integers(0, 20, 32)
    jl = analysis.memorization_table(s, 20, eps=(0.5,), ratios=(10, 100, 400))
    assert (jl["log loss, JL rescaled to margin 1"] <= jl["log paper bound"]).all()
    assert (jl["log loss, circle in d = 2"] <= jl["log paper bound"]).all()
    assert (jl["log loss"] <= jl["log margin bound"]).all()
    assert (jl["log loss"] > jl["log paper bound"]).any()
    assert cf.margin(cf.circle_embedding(20)) == pytest.approx(1.0)
