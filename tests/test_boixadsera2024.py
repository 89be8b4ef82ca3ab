"""Boix-Adsera et al. (2024): the transformer kernel (eq. 3, Claim E.2, App. H), the N matrix and
its sufficient condition (Lemmas 4.5-4.7, E.1), kernel ridge regression on unseen symbols
(Theorem 4.4), and MLPs that cannot generalise (Theorem I.2)."""
import math

import numpy as np
import pytest
import torch

from lib.papers.boixadsera2024 import kernel as K
from lib.papers.boixadsera2024 import mlp
from lib.tasks import symbol_templates as st

PARAMS = K.KernelParams(draws=4000)
STRINGS = np.array([[1, 2, 1, 0], [3, 4, 3, 0], [1, 2, 2, 0], [5, 6, 6, 0], [1, 1, 2, 0], [7, 8, 9, 0]])
TASKS = {"same/different": st.same_different(), "αβα vs αββ": st.aba_abb(), "ααββ vs αβαβ": st.aabb_abab(),
         "majority-4": st.majority(4)}


def test_beta_zero_gives_the_uniform_attention_value_exactly():
    params = K.KernelParams(beta=0.0, gamma=1.5, draws=50)
    k = STRINGS.shape[1]
    exact = (STRINGS[:, None, :, None] == STRINGS[None, :, None, :]).sum(axis=(2, 3)) / k**2 + 1.5**2 / k
    assert np.allclose(K.attention_kernel(STRINGS, STRINGS, params), exact, atol=1e-12)


def test_kernel_is_token_symmetric_and_a_kernel():
    relabelled = np.vectorize({0: 0, 1: 42, 2: 17, 3: 5, 4: 99, 5: 1, 6: 2, 7: 3, 8: 4, 9: 6}.get)(STRINGS)
    assert np.array_equal(K.attention_kernel(STRINGS, STRINGS, PARAMS), K.attention_kernel(relabelled, relabelled, PARAMS))
    gram = K.attention_kernel_features(STRINGS, PARAMS, draws=20000)  # one Gaussian per token id: a Gram matrix
    assert np.linalg.eigvalsh(gram).min() > -1e-10
    assert np.abs(gram - K.attention_kernel(STRINGS, STRINGS, K.KernelParams(draws=20000))).max() < 0.1


def test_claim_e2_cosine_layer_matches_monte_carlo():
    rng = np.random.default_rng(0)
    a, c, b = 1.3, 0.8, 0.6
    u, v = (rng.multivariate_normal([0, 0], [[a, b], [b, c]], size=400_000)).T
    for b1, b2 in ((0.5, math.pi / 4), (1.2, 0.3)):
        mc = np.mean(np.cos(b1 * u + b2) * np.cos(b1 * v + b2))
        closed = K.cosine_layer(np.array([[b]]), np.array([a]), np.array([c]), b1, b2)[0, 0]
        assert abs(mc - closed) < 5e-3


def test_wide_random_transformer_of_the_stack_matches_the_kernel():
    params = K.KernelParams(draws=20000)
    grams = []
    for seed in range(4):
        model = K.wide_random_transformer(10, 4, params, d_model=1024, n_heads=128, seed=seed)
        with torch.no_grad():
            z = model(torch.tensor(STRINGS)).double()
        grams.append((z @ z.T).numpy())
    exact = K.attention_kernel(STRINGS, STRINGS, params)
    assert np.abs(np.mean(grams, 0) - exact).max() / exact.max() < 0.08


@pytest.mark.parametrize("name", sorted(TASKS))
def test_n_matrix_is_nonsingular_for_the_transformer_and_singular_for_the_mlp(name):
    templates, _ = TASKS[name]
    params = K.KernelParams(draws=16000)
    assert K.conditioning(K.n_matrix(templates, "MLP", params)) < 1e-10  # Remark I.6: all entries equal
    # majority-4's N is ill-conditioned (about 3e-5); the others about 1e-2
    assert K.conditioning(K.n_matrix(templates, "transformer", params)) > (1e-5 if name == "majority-4" else 1e-3)
    assert K.conditioning(K.n_matrix(templates, "MLP + XXᵀ", params)) > 1e-5


@pytest.mark.parametrize("name", sorted(TASKS))
def test_lemma_4_7_condition_and_lemma_e1_determinant(name):
    templates, _ = TASKS[name]
    sums = K.permutation_sums(templates, PARAMS)
    identity = tuple(range(len(templates)))
    assert all(abs(s - sums[identity]) > 1e-3 for sigma, s in sums.items() if sigma != identity)
    if len(templates) <= 4:
        direct, formula = K.det_identity(templates, PARAMS)
        assert abs(direct - formula) < 1e-9 * abs(formula) + 1e-15


def test_kernel_ridge_regression_generalises_on_unseen_symbols_only_with_the_transformer_kernel():
    task = st.SymbolTemplates(*st.aba_abb(), n_symbols=256, n_heldout=1000)
    assert K.krr_test_error(task, 256, "transformer", PARAMS) < 0.1
    assert K.krr_test_error(task, 256, "MLP", PARAMS) > 0.9
    assert K.krr_test_error(task, 256, "MLP + XXᵀ", PARAMS) < 0.05


def test_trained_mlp_never_moves_the_weights_of_unseen_tokens():
    task = st.SymbolTemplates(*st.same_different(), n_symbols=32)
    out = mlp.train_mlps(task, 32, seeds=[0, 1, 2], steps=150, d_hidden=64)
    assert out["unseen_unchanged"].all() and out["unseen_rows"] > 0
    assert (out["train_mse"] < 0.05).all()  # it fits its training set...
    assert (out["test_mse"] > 0.8).all()  # ...and stays at the trivial error on unseen symbols



def test_lemma_i7_coupling_takes_the_same_steps_and_computes_f_of_pi_x():
    """Permuting the unseen tokens' first-layer rows changes no training step (bit for bit), so the
    second network is f(π x) up to float32 rounding, while f itself does tell π x from x."""
    task = st.SymbolTemplates(*st.same_different(), n_symbols=16)
    c = mlp.coupling_check(task, 16, seed=0, steps=100, d_hidden=32)
    assert c["same_steps"]
    assert c["coupled"] <= 1e-6 and c["uncoupled"] > 0.1

def test_theorems_5_1_and_5_2_early_time_ratios():
    from lib.papers.boixadsera2024 import copying

    table = copying.ratio_table(ds=(32, 512), seeds=range(2))
    assert max(table[g][1].mean() for g in ("W_E", "p", "W_V", "W_O")) <= 0.05  # vanilla: no first-order decrease
    assert table["b"].mean(axis=1).min() >= 0.9  # b_h I: the test loss falls with the training loss
    assert table["W_V"][0].mean() > table["W_V"][1].mean()  # the vanilla ratio shrinks as d grows


def test_template_transformer_reads_the_best_validation_step():
    from lib.papers.boixadsera2024 import training

    task = st.SymbolicTemplates(*st.copy(), n_symbols=8, n_heldout=10)
    out = training.fit(task, 8, [0, 1], "+VO", steps=20, eval_every=5, d_model=16, n_heads=2, d_head=4, d_mlp=8)
    assert len(out["test"]) == 2 and all(0 <= e <= 1 for e in out["test"]) and all(b % 5 == 0 for b in out["best_step"])
    assert all(b > 0 for b in out["mean_abs_b"]) and out["mean_abs_a"] == [0.0, 0.0]
