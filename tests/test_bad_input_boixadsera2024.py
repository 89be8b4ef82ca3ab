"""Bad input to Boix-Adsera et al. (2024)'s helpers fails at the boundary, naming the function and
the argument; good input gives finite numbers (issue 34). Plus one plain test per named example:
the kernel's pattern indices at strings of 64 tokens or more (they were int8 and wrapped)."""
import math

import numpy as np
import pytest
import torch
from hypothesis import given
from hypothesis import strategies as st

from lib import validate
from lib.papers.boixadsera2024 import copying, curves, last_layer, mlp, pretraining, training
from lib.papers.boixadsera2024 import kernel as K
from lib.tasks import VariableBindingText
from lib.tasks import symbol_templates as stt
from bad_input_support import FAST, non_ints, non_finite, non_reals, fails


non_positive_ints = st.integers(-10**6, 0)
SMALL = K.KernelParams(draws=200)


@pytest.fixture(scope="module")
def task():
    return stt.SymbolTemplates(*stt.same_different(), n_symbols=16)


# ----------------------------------------------------------------------------- named example: int8 indices
def _reference(A, B, params):
    """Eq. (3) for every pair with first-occurrence indices computed independently, as int64."""
    z = np.concatenate([np.repeat(A, len(B), axis=0), np.tile(B, (len(A), 1))], axis=1)
    first = (z[:, :, None] == z[:, None, :]).argmax(-1).astype(np.int64)
    return K.pattern_values(first, params).reshape(len(A), len(B)), first


@pytest.mark.parametrize("length", [70, 130])
def test_attention_kernel_at_long_strings_matches_int64_indices(length):
    """Strings of >= 64 tokens: the joint pattern has 2k >= 128 tokens, whose first-occurrence
    indices above 127 used to wrap around in int8 (1.3170 against 1.3322 on the same draws)."""
    rng = np.random.default_rng(length)
    A, B = rng.integers(0, 10**6, (3, length)), rng.integers(0, 10**6, (2, length))
    B[:, -1] = B[:, -2]  # a repeat late in Y: its index is > 127
    params = K.KernelParams(draws=300, seed=1)
    reference, first = _reference(A, B, params)
    assert first.max() > 127  # the test reaches the indices int8 cannot hold
    np.testing.assert_allclose(K.attention_kernel(A, B, params), reference, rtol=1e-12, atol=0)
    diagonal, _ = _reference(A, A, params)
    np.testing.assert_allclose(K.attention_diagonal(A, params), np.diag(diagonal), rtol=1e-12, atol=0)


def test_attention_kernel_at_long_strings_matches_random_features():
    """An independent estimate with its own draws (explicit random features) agrees within Monte Carlo error."""
    rng = np.random.default_rng(3)
    A = rng.integers(0, 10**6, (2, 70))
    params = K.KernelParams(draws=4000, seed=2)
    exact = K.attention_kernel(A, A, params)
    features = K.attention_kernel_features(A, params)
    assert np.abs(exact - features).max() < 0.05


def test_short_strings_keep_int8_patterns():
    """Below 64 tokens the pattern bytes (and so the session cache keys) are as before: int8."""
    A = np.arange(12).reshape(2, 6)
    _, unique = K.patterns(A, A)
    assert unique.dtype == np.int8
    _, unique = K.patterns(np.arange(140).reshape(2, 70), np.arange(140).reshape(2, 70))
    assert unique.dtype == np.int16


# ----------------------------------------------------------------------------- kernel.py
@FAST
@given(value=non_reals, name=st.sampled_from(["beta", "gamma", "b1", "b2"]))
def test_kernel_params_refuse_non_reals(value, name):
    fails(lambda: K.KernelParams(**{name: value}), "KernelParams", name)


@FAST
@given(value=st.one_of(non_ints, non_positive_ints))
def test_kernel_params_refuse_bad_draws(value):
    fails(lambda: K.KernelParams(draws=value), "KernelParams", "draws")


@FAST
@given(strings=st.one_of(st.just(np.zeros((0, 3), dtype=int)), st.just(np.zeros((2, 0), dtype=int)),
                         st.just(np.ones((2, 3))), st.just(np.ones(3, dtype=int)), st.text(max_size=3)))
def test_kernels_refuse_bad_strings(strings):
    good = np.zeros((2, 3), dtype=int)
    for fn in (K.attention_kernel, K.inner_product_kernel, K.mlp_kernel, K.transformer_kernel):
        fails(lambda: fn(strings, good), fn.__name__, "A")


@FAST
@given(value=st.one_of(st.none(), st.text(max_size=3), st.integers()))
def test_kernels_refuse_params_that_are_not_kernel_params(value):
    A = np.zeros((2, 3), dtype=int)
    for fn in (K.attention_kernel, K.transformer_kernel, K.mlp_kernel):
        fails(lambda: fn(A, A, value), fn.__name__, "params")


@FAST
@given(b1=non_reals)
def test_cosine_layer_refuses_bad_b1(b1):
    fails(lambda: K.cosine_layer(np.ones((2, 2)), np.ones(2), np.ones(2), b1, 0.5), "cosine_layer", "b1")


@FAST
@given(bad=non_finite)
def test_cosine_layer_refuses_non_finite_kernels(bad):
    fails(lambda: K.cosine_layer(np.array([[bad, 1.0]]), np.ones(1), np.ones(2), 0.5, 0.5), "cosine_layer", "K_xy")


@FAST
@given(strings=st.lists(st.lists(st.integers(0, 5), min_size=3, max_size=3), min_size=1, max_size=4))
def test_kernels_give_finite_values_on_good_strings(strings):
    A = np.array(strings)
    for fn in (K.attention_kernel, K.transformer_kernel, K.mlp_kernel):
        assert np.isfinite(fn(A, A, SMALL)).all()


@FAST
@given(lam=st.one_of(non_reals, st.floats(max_value=-1e-9, allow_nan=False, allow_infinity=False)))
def test_ridge_refuses_bad_lambda(lam):
    fails(lambda: K.ridge(np.eye(2), np.ones(2), np.eye(2), lam), "ridge", "lam")


def test_ridge_refuses_mismatched_shapes():
    fails(lambda: K.ridge(np.eye(2), np.ones(3), np.eye(2), 0.1), "ridge", "y")
    fails(lambda: K.ridge(np.eye(2), np.ones(2), np.eye(3), 0.1), "ridge", "K_test")
    fails(lambda: K.ridge(np.ones((2, 3)), np.ones(2), np.eye(2), 0.1), "ridge", "K_train")


def test_conditioning_of_the_zero_matrix_is_zero_and_empty_is_refused():
    assert K.conditioning(np.zeros((3, 3))) == 0.0
    assert K.conditioning(np.eye(2)) == 1.0
    fails(lambda: K.conditioning(np.zeros((0, 0))), "conditioning", "N")
    fails(lambda: K.conditioning(np.array([[np.nan]])), "conditioning", "N")


def test_permutations_are_bounded_and_templates_checked():
    fails(lambda: K.permutation_sums(["ab"] * 10, SMALL), "permutation_sums", "templates")
    fails(lambda: K.det_identity([], SMALL), "det_identity", "templates")
    fails(lambda: K.permutation_gap(["aXa"], SMALL), "permutation_gap", "templates")
    fails(lambda: K.n_matrix("aXa", params=SMALL), "substituted_pair", "templates")
    fails(lambda: K.n_matrix(["aX", "aXa"], params=SMALL), "substituted_pair", "templates")


def test_pattern_values_refuse_bad_patterns():
    fails(lambda: K.pattern_values(np.array([[0, 5]]), SMALL), "pattern_values", "unique")
    fails(lambda: K.pattern_values(np.array([[0, 1, 2]]), SMALL), "pattern_values", "unique")
    fails(lambda: K.pattern_values(np.array([[0.0, 1.0]]), SMALL), "pattern_values", "unique")
    fails(lambda: K.pattern_values(np.array([[0, 1]]), SMALL, chunk=0), "pattern_values", "chunk")


def test_memory_is_refused_before_allocating():
    A = np.zeros((3000, 400), dtype=int)
    fails(lambda: K.patterns(A, A), "patterns", "memory cap")
    with validate.memory_cap(0.01):
        fails(lambda: K.attention_kernel_features(np.zeros((2, 3), dtype=int), SMALL, draws=10**6),
              "attention_kernel_features", "memory cap")


@FAST
@given(value=st.one_of(non_ints, non_positive_ints), name=st.sampled_from(["n_train", "n_test"]))
def test_krr_test_error_refuses_bad_sizes(task, value, name):
    fails(lambda: K.krr_test_error(task, **{"n_train": 4, name: value}), "krr_test_error", name)


def test_krr_test_error_refuses_bad_task_and_ridge():
    fails(lambda: K.krr_test_error("aXa", 4), "krr_test_error", "task")
    task = stt.SymbolTemplates(*stt.same_different(), n_symbols=16)
    fails(lambda: K.krr_test_error(task, 4, ridge_per_sample=-1.0), "krr_test_error", "ridge_per_sample")


@FAST
@given(value=st.one_of(non_ints, non_positive_ints), name=st.sampled_from(["vocab_size", "length", "d_model"]))
def test_wide_random_transformer_refuses_bad_sizes(value, name):
    kwargs = {"vocab_size": 4, "length": 3, name: value}
    fails(lambda: K.wide_random_transformer(**kwargs), "wide_random_transformer", name)


# ----------------------------------------------------------------------------- copying.py
@FAST
@given(value=st.one_of(non_ints, non_positive_ints), name=st.sampled_from(["d", "n_train", "n_test", "n_heads",
                                                                           "d_head"]))
def test_gradient_ratios_refuse_bad_sizes(value, name):
    if value is None and name == "d_head":
        return  # None is d_head's default (d_head = d)
    fails(lambda: copying.gradient_ratios(**{"d": 4, name: value}), "gradient_ratios", name)


@FAST
@given(gamma=non_reals)
def test_gradient_ratios_refuse_bad_gamma(gamma):
    fails(lambda: copying.gradient_ratios(4, gamma=gamma), "gradient_ratios", "gamma")


@FAST
@given(d=st.integers(1, 8), n_train=st.integers(1, 4), seed=st.integers(0, 2**32))
def test_gradient_ratios_are_finite_on_good_input(d, n_train, seed):
    ratios = copying.gradient_ratios(d, n_train=n_train, n_test=3, n_heads=2, seed=seed)
    assert all(math.isfinite(v) for v in ratios.values())


def test_gradient_ratios_refuse_what_does_not_fit_in_memory():
    fails(lambda: copying.gradient_ratios(1 << 16, n_heads=64), "gradient_ratios", "memory cap")
    fails(lambda: copying.ratio_table(ds=[], seeds=[0]), "ratio_table", "ds")
    fails(lambda: copying.ratio_table(ds=[4], seeds=[-1]), "ratio_table", "seeds")


# ----------------------------------------------------------------------------- curves.py
def test_best_leaves_diverged_runs_out_and_refuses_empty_grids():
    assert curves.best({1e-3: 0.5, 1e-2: 0.2}).tolist() == [0.2]
    assert curves.best({1e-3: 0.5, 1e-2: math.nan}).tolist() == [0.5]  # was nan
    assert curves.best(np.array([0.3, 0.1])).tolist() == [0.1]
    # per seed: the rate of lowest mean, not each seed's own minimum; a rate with a diverged seed is out
    per_seed = {1e-3: np.array([0.5, 0.1]), 1e-2: np.array([0.2, 0.3]), 3e-2: np.array([0.0, math.nan])}
    assert curves.best(per_seed).tolist() == [0.2, 0.3] and curves.best_rate(per_seed) == 1e-2
    fails(lambda: curves.best({}), "best", "losses")
    fails(lambda: curves.best([math.nan, math.nan]), "best", "losses")
    fails(lambda: curves.best(["a"]), "best", "losses")
    fails(lambda: curves.best_rate([0.1]), "best_rate", "losses")
    fails(lambda: curves.best_rate({1e-3: [math.nan]}), "best_rate", "losses")


@FAST
@given(values=st.lists(st.floats(0, 10), min_size=1, max_size=6))
def test_best_is_the_minimum_of_finite_losses(values):
    assert curves.best(values).tolist() == [min(values)]


def test_by_lr_groups_each_rates_seeds():
    got = curves.by_lr({"lr": [1e-3, 1e-3, 1e-2, 1e-2], "test": [0.1, 0.2, 0.3, 0.4]})
    assert {lr: v.tolist() for lr, v in got.items()} == {1e-3: [0.1, 0.2], 1e-2: [0.3, 0.4]}


# ----------------------------------------------------------------------------- training, mlp, last_layer
@FAST
@given(value=st.one_of(non_ints, non_positive_ints), name=st.sampled_from(["d_model", "n_layers", "n_heads", "d_head"]))
def test_model_config_refuses_bad_sizes(task, value, name):
    fails(lambda: training.model_config(task, **{name: value}), "model_config", name)


@FAST
@given(lr=st.one_of(non_reals, st.floats(max_value=0.0, allow_nan=False, allow_infinity=False), st.just(())))
def test_fit_refuses_bad_learning_rates(task, lr):
    fails(lambda: training.fit(task, 4, [0], lr=lr, steps=1), "fit", "lr")


def test_fit_refuses_bad_arguments(task):
    fails(lambda: training.fit(task, 0, [0], steps=1), "fit", "n_train")
    fails(lambda: training.fit(task, 4, [0], steps=0), "fit", "steps")
    fails(lambda: training.fit(task, 4, [0], steps=1, batch_size=0), "fit", "batch_size")
    fails(lambda: training.fit(task, 4, [0], steps=1, eval_every=0), "fit", "eval_every")
    fails(lambda: training.fit(task, 4, [0], steps=1, init=3), "fit", "init")
    fails(lambda: training.fit("task", 4, [0], steps=1), "fit", "task")


@FAST
@given(value=non_reals, name=st.sampled_from(["alpha", "beta"]))
def test_mimetic_init_refuses_bad_scalars(task, value, name):
    from lib.models import build_model

    model = build_model(training.model_config(task, d_model=8, n_heads=2, d_head=4, d_mlp=8), seed=0)
    fails(lambda: training.mimetic_init(model, 0, **{name: value}), "mimetic_init", name)


def test_mlp_and_last_layer_refuse_bad_arguments(task):
    fails(lambda: mlp.mlp_config(task, d_hidden=0), "mlp_config", "d_hidden")
    fails(lambda: mlp.train_mlps(task, 4, [0], lr=-1.0), "train_mlps", "lr")
    fails(lambda: mlp.train_mlps(task, 4, [0], steps=0), "train_mlps", "steps")
    fails(lambda: mlp.coupling_check(task, 0), "coupling_check", "n_train")
    fails(lambda: mlp.unseen_rows(task, torch.zeros(2, 3)), "unseen_rows", "train_x")
    fails(lambda: last_layer.last_layer_only(task, 4, init_scale=math.nan), "last_layer_only", "init_scale")
    fails(lambda: last_layer.last_layer_only(task, 0), "last_layer_only", "n_train")
    fails(lambda: last_layer.scale_init(torch.nn.Linear(2, 2), math.inf), "scale_init", "factor")


# ----------------------------------------------------------------------------- pretraining.py
def test_pretraining_refuses_bad_arguments():
    corpus = VariableBindingText(n_variables=3, n_values=5, seq_len=64)
    fails(lambda: pretraining.lm_config(corpus, "plain"), "lm_config", "variant")
    fails(lambda: pretraining.lm_config(corpus, d_model=0), "lm_config", "d_model")
    fails(lambda: pretraining.pretrain(corpus, "vanilla", [0], steps=0), "pretrain", "steps")
    fails(lambda: pretraining.pretrain(corpus, "vanilla", [0], steps=1, lr=math.nan), "pretrain", "lr")
    fails(lambda: pretraining.pretrain(corpus, "vanilla", [], steps=1), "pretrain", "seeds")
    fails(lambda: pretraining.transplant([]), "transplant", "pretrained")
    fails(lambda: pretraining.transplant([torch.nn.Linear(2, 2)], positions="yes"), "transplant", "positions")
    model = training.build_model(pretraining.lm_config(corpus, d_model=8, n_heads=2, d_head=4, d_mlp=8), seed=0)
    fails(lambda: pretraining.top_heads(model, digits=-1), "top_heads", "digits")
    assert np.isfinite(np.array(pretraining.diagonal_dominance(model)["kq"])).all()


# ----------------------------------------------------------------------------- analysis.py, curves.py (stored results)
def test_analysis_refuses_bad_input(task):
    from lib.papers.boixadsera2024 import analysis

    fails(lambda: analysis.last_layer_float64(task, 4, init_scale=0.0), "last_layer_float64", "init_scale")
    fails(lambda: analysis.last_layer_table([16], [], [0]), "last_layer_table", "init_scales")
    fails(lambda: analysis.last_layer_table([0], [1.0], [0]), "last_layer_table", "ns")
    fails(lambda: analysis.mlp_study([16], [0], d_hidden=8), "mlp_study", "seeds")
    fails(lambda: analysis.kernel_checks(SMALL, 0, 1), "kernel_checks", "mc_samples")
    fails(lambda: analysis.kernel_checks(SMALL, 10, 0), "kernel_checks", "wide_seeds")
    fails(lambda: analysis.kernel_checks(SMALL, 10, 1, strings=np.array([[11, 2]])), "kernel_checks", "strings")
    fails(lambda: analysis.n_matrix_rows({}, SMALL, []), "n_matrix_rows", "tasks")
    fails(lambda: analysis.n_matrix_rows({"t": stt.aba_abb()}, SMALL, [(math.nan, 1.0)]), "n_matrix_rows", "pairs")
    fails(lambda: analysis.krr_errors({"t": stt.aba_abb()}, [], [0], SMALL), "krr_errors", "ns")
    fails(lambda: analysis.diversity_errors({"t": stt.aba_abb()}, [4], [0], SMALL, n=0), "diversity_errors", "n")
    fails(lambda: analysis.gram_blocks(*stt.aba_abb(), SMALL, alphabet=0), "gram_blocks", "alphabet")
    fails(lambda: analysis.learned_scalars("huge"), "learned_scalars", "scale")


def test_curves_refuse_what_is_not_a_stored_result():
    for fn in (curves.identity_losses, curves.program_errors, curves.knob_n, curves.pretrained, curves.finetune_losses):
        fails(lambda: fn({"grid": []}), fn.__name__)
    fails(lambda: curves.by_lr({"lr": [1e-3], "test": []}), "by_lr", "metrics")
    fails(lambda: curves.grid_values(None, "n"), "grid_values", "result")
