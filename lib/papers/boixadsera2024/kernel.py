"""The transformer random-features kernel and kernel ridge regression on unseen symbols
(Boix-Adsera et al., 2024, Sec. 4, App. C-H).

Strings are integer arrays ``(n, k)`` of token ids (any ids: only equalities matter).

* :func:`attention_kernel`, eq. (3): ``K_attn(X, Y) = E[smax(β m(X))ᵀ (X Yᵀ + γ² I) smax(β m(Y))]``
  with ``m(X) = (g_{x_1}, ..., g_{x_k}) + γ p``: one standard Gaussian ``g_τ`` per token and
  ``p ~ N(0, I_k)`` per position, so that ``Cov(m(X)_i, m(Y)_j) = 1(x_i = y_j) + γ² 1(i = j)``.
  The kernel is token-symmetric (Def. C.1): it depends on ``(X, Y)`` only through the equality
  pattern of their ``2k`` tokens, so each distinct pattern is estimated once by Monte Carlo with
  common random numbers (:func:`patterns`).
* :func:`cosine_layer`, Claim E.2: the MLP layer with activation ``cos(b₁ t + b₂)`` in closed
  form, ``½ e^{-b₁²(K_xx + K_yy - 2K_xy)/2} + ½ cos(2b₂) e^{-b₁²(K_xx + K_yy + 2K_xy)/2}``.
* :func:`transformer_kernel` = cosine layer on the attention kernel (``K_trans``, Theorem 4.4);
  :func:`mlp_kernel` = cosine layer on the inner-product kernel of concatenated one-hots
  (Remark I.6), optionally with the incidence matrix ``XXᵀ`` concatenated (App. B.3, Fig. 24).
* :func:`n_matrix` (eq. 12), :func:`permutation_sums` (``S_σ``, eq. 9), :func:`det_identity`
  (Lemma E.1 at b₂ = π/4), :func:`ridge` (Proposition 4.3) and :func:`krr_test_error`.
"""
from __future__ import annotations

import itertools
import math
from dataclasses import dataclass

import numpy as np

from ... import validate
from ...tasks import symbol_templates as st


@dataclass(frozen=True)
class KernelParams:
    """The hyperparameters of the transformer kernel: inverse temperature β, positional strength
    γ, the cosine activation's b₁ and b₂, and the Monte Carlo draws per pattern."""

    beta: float = 6.0
    gamma: float = 2.0
    b1: float = 0.5
    b2: float = math.pi / 4
    draws: int = 8000
    seed: int = 0

    def __post_init__(self):
        owner = "KernelParams"
        for name in ("beta", "gamma", "b1", "b2"):
            validate.real(owner, name, getattr(self, name))
        validate.integer(owner, "draws", self.draws, minimum=1, maximum=10**7)
        validate.integer(owner, "seed", self.seed, minimum=0)


def _as_strings(owner: str, name: str, value) -> np.ndarray:
    array = np.asarray(value.detach().cpu() if hasattr(value, "detach") else value)
    if array.ndim != 2 or array.dtype.kind not in "iu":
        validate.fail(owner, name, "an integer array of token ids, shape (n, k)", value, validate.ArgumentTypeError)
    return array.astype(np.int64)


def patterns(A, B, chunk: int = 64) -> tuple[np.ndarray, np.ndarray]:
    """The joint equality pattern of every pair ``(A[a], B[b])``: ``(index (nA, nB), unique (P, 2k))``,
    each pattern written as first-occurrence indices over the concatenated ``2k`` tokens."""
    A, B = _as_strings("patterns", "A", A), _as_strings("patterns", "B", B)
    if A.shape[1] != B.shape[1]:
        raise ValueError(f"patterns: A and B must have the same length, got {A.shape[1]} and {B.shape[1]}")
    rows = []
    for start in range(0, len(A), chunk):
        a = A[start:start + chunk]
        z = np.concatenate([np.broadcast_to(a[:, None], (len(a), len(B), A.shape[1])),
                            np.broadcast_to(B[None], (len(a), len(B), A.shape[1]))], axis=2)
        rows.append(z.reshape(-1, 2 * A.shape[1]))
    inverse, unique = _unique_patterns(np.concatenate(rows))
    return inverse.reshape(len(A), len(B)), unique


def _unique_patterns(z: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Rows of tokens ``(m, 2k)`` as equality patterns (first-occurrence indices): the index of
    each row's pattern and the distinct patterns."""
    first = np.ascontiguousarray((z[:, :, None] == z[:, None, :]).argmax(axis=-1).astype(np.int8))
    keys = first.view(np.dtype((np.void, first.shape[1])))[:, 0]
    _, first_index, inverse = np.unique(keys, return_index=True, return_inverse=True)
    return inverse, first[first_index]


def pattern_values(unique: np.ndarray, params: KernelParams, chunk: int = 16, per_draw: bool = False) -> np.ndarray:
    """Eq. (3) for each joint pattern, by Monte Carlo with the same draws for every pattern;
    with ``per_draw``, the ``(P, draws)`` values whose means these are (for standard errors)."""
    P, k2 = unique.shape
    k = k2 // 2
    rng = np.random.default_rng(params.seed)
    g = rng.standard_normal((params.draws, k2))  # one Gaussian per distinct token (labels < 2k)
    p = rng.standard_normal((params.draws, k))
    out = np.empty((P, params.draws) if per_draw else P)
    for start in range(0, P, chunk):
        pat = unique[start:start + chunk]
        mx = g[:, pat[:, :k]] + params.gamma * p[:, None]  # (M, c, k)
        my = g[:, pat[:, k:]] + params.gamma * p[:, None]
        sx, sy = _softmax(params.beta * mx), _softmax(params.beta * my)
        incidence = (pat[:, :k, None] == pat[:, None, k:]).astype(float) + params.gamma**2 * np.eye(k)
        values = np.einsum("mci,cij,mcj->cm", sx, incidence, sy)
        out[start:start + chunk] = values if per_draw else values.mean(axis=1)
    return out


def _softmax(s: np.ndarray) -> np.ndarray:
    s = s - s.max(axis=-1, keepdims=True)
    e = np.exp(s)
    return e / e.sum(axis=-1, keepdims=True)


_VALUES: dict[KernelParams, dict[bytes, float]] = {}


def cached_pattern_values(unique: np.ndarray, params: KernelParams) -> np.ndarray:
    """:func:`pattern_values`, remembered per pattern for the session: a task's strings share a
    small set of joint patterns, so the Gram matrices of many samples cost little more than one.
    The values are the same as computing all patterns together (the draws depend only on
    ``params``, not on which patterns are asked for)."""
    store = _VALUES.setdefault(params, {})
    keys = [row.tobytes() for row in unique]
    missing = [i for i, key in enumerate(keys) if key not in store]
    if missing:
        for i, value in zip(missing, pattern_values(unique[missing], params)):
            store[keys[i]] = float(value)
    return np.array([store[key] for key in keys])


def attention_kernel(A, B, params: KernelParams = KernelParams()) -> np.ndarray:
    """``K_attn(A[a], B[b])`` for every pair (eq. 3), shape ``(nA, nB)``."""
    index, unique = patterns(A, B)
    return cached_pattern_values(unique, params)[index]


def attention_kernel_features(A, params: KernelParams = KernelParams(), draws: int | None = None) -> np.ndarray:
    """The same kernel from explicit random features with one Gaussian per *token id* (no
    pattern cache): ``K = F Fᵀ`` with ``F`` of shape ``(n, draws * (V + k)) / sqrt(draws)``, a
    Gram matrix and so positive semi-definite by construction. For small checks only."""
    A = _as_strings("attention_kernel_features", "A", A)
    n, k = A.shape
    tokens, ids = np.unique(A, return_inverse=True)
    ids = ids.reshape(n, k)
    M = params.draws if draws is None else draws
    rng = np.random.default_rng(params.seed + 1)
    g, p = rng.standard_normal((M, len(tokens))), rng.standard_normal((M, k))
    s = _softmax(params.beta * (g[:, ids] + params.gamma * p[:, None]))  # (M, n, k)
    features = np.zeros((M, n, len(tokens) + k))
    np.add.at(features, (slice(None), np.arange(n)[:, None], ids), s)  # Σ_i s_i e_{x_i}
    features[:, :, len(tokens):] = params.gamma * s
    features = features.transpose(1, 0, 2).reshape(n, -1) / math.sqrt(M)
    return features @ features.T


def cosine_layer(K_xy: np.ndarray, K_xx: np.ndarray, K_yy: np.ndarray, b1: float, b2: float) -> np.ndarray:
    """Claim E.2: ``E[cos(b₁u + b₂) cos(b₁v + b₂)]`` for ``(u, v)`` Gaussian with variances
    ``K_xx``, ``K_yy`` (broadcast over rows, columns) and covariance ``K_xy``."""
    total = K_xx[:, None] + K_yy[None, :]
    return 0.5 * np.exp(-b1**2 * (total - 2 * K_xy) / 2) + 0.5 * math.cos(2 * b2) * np.exp(-b1**2 * (total + 2 * K_xy) / 2)


def attention_diagonal(A, params: KernelParams = KernelParams()) -> np.ndarray:
    """``K_attn(X, X)`` for each row of ``A``."""
    A = _as_strings("attention_diagonal", "A", A)
    inverse, unique = _unique_patterns(np.concatenate([A, A], axis=1))
    return cached_pattern_values(unique, params)[inverse]


def transformer_kernel(A, B, params: KernelParams = KernelParams()) -> np.ndarray:
    """``K_trans``: the cosine MLP layer on the attention kernel (Theorem 4.4's kernel)."""
    return cosine_layer(attention_kernel(A, B, params), attention_diagonal(A, params), attention_diagonal(B, params),
                        params.b1, params.b2)


def inner_product_kernel(A, B, incidence: bool = False) -> np.ndarray:
    """The kernel of concatenated one-hots, ``(1/k) #{i: x_i = y_i}``; with ``incidence`` the
    flattened incidence matrix is concatenated too, adding ``(1/k²) Σ_ij 1(x_i = x_j) 1(y_i = y_j)``."""
    A, B = _as_strings("inner_product_kernel", "A", A), _as_strings("inner_product_kernel", "B", B)
    k = A.shape[1]
    K = (A[:, None, :] == B[None, :, :]).sum(-1) / k
    if incidence:
        ia = (A[:, :, None] == A[:, None, :]).reshape(len(A), -1).astype(float)
        ib = (B[:, :, None] == B[:, None, :]).reshape(len(B), -1).astype(float)
        K = K + ia @ ib.T / k**2
    return K


def mlp_kernel(A, B, params: KernelParams = KernelParams(), incidence: bool = False) -> np.ndarray:
    """An MLP's random-features kernel: the cosine layer on :func:`inner_product_kernel`."""
    A, B = _as_strings("mlp_kernel", "A", A), _as_strings("mlp_kernel", "B", B)
    return cosine_layer(inner_product_kernel(A, B, incidence), _inner_diagonal(A, incidence),
                        _inner_diagonal(B, incidence), params.b1, params.b2)


def _inner_diagonal(A: np.ndarray, incidence: bool) -> np.ndarray:
    k = A.shape[1]
    diagonal = np.ones(len(A))
    return diagonal + (A[:, :, None] == A[:, None, :]).sum(axis=(1, 2)) / k**2 if incidence else diagonal


KERNELS = {"transformer": transformer_kernel, "MLP": mlp_kernel,
           "MLP + XXᵀ": lambda A, B, params=KernelParams(): mlp_kernel(A, B, params, incidence=True)}


# ----------------------------------------------------------------------------- eq. (12)
def substituted_pair(templates, cls: bool = True) -> tuple[np.ndarray, np.ndarray]:
    """``X_i = sub(t_i, s)`` and ``Y_j = sub(t_j, s')`` of eq. (13): ``s`` and ``s'`` have disjoint
    ranges that avoid the templates' regular tokens. Integer arrays ``(r, k)`` (``[CLS]`` last)."""
    templates = [st.parse(t) for t in templates]
    ids: dict[str, int] = {}
    rows = {side: [[ids.setdefault(f"{side}:{tok}" if st.is_wildcard(tok) else tok, len(ids)) for tok in t]
                   + ([ids.setdefault(st.CLS, len(ids))] if cls else []) for t in templates] for side in "xy"}
    return np.array(rows["x"]), np.array(rows["y"])


def n_matrix(templates, kernel: str = "transformer", params: KernelParams = KernelParams()) -> np.ndarray:
    """Eq. (12): ``N_ij = K(sub(t_i, s), sub(t_j, s'))``, well defined by token symmetry."""
    validate.choice("n_matrix", "kernel", kernel, KERNELS)
    X, Y = substituted_pair(templates)
    return KERNELS[kernel](X, Y, params)


def permutation_sums(templates, params: KernelParams = KernelParams()) -> dict[tuple, float]:
    """Eq. (9): ``S_σ = Σ_i K_attn(X_i, Y_σ(i))`` for every permutation σ of the templates."""
    X, Y = substituted_pair(templates)
    K = attention_kernel(X, Y, params)
    r = len(X)
    return {sigma: float(K[np.arange(r), list(sigma)].sum()) for sigma in itertools.permutations(range(r))}


def permutation_gap(templates, params: KernelParams = KernelParams()) -> tuple[float, float]:
    """Eq. (9) against Monte Carlo noise: over every permutation σ ≠ id, the smallest
    ``|S_σ - S_id|`` and the smallest ``|S_σ - S_id|`` in standard errors of its estimate (the
    draws are shared by all patterns, so the difference is estimated draw by draw)."""
    X, Y = substituted_pair(templates)
    index, unique = patterns(X, Y)
    draws = pattern_values(unique, params, per_draw=True)[index]  # (r, r, M)
    r = len(X)
    diagonal = draws[np.arange(r), np.arange(r)].sum(axis=0)
    smallest, smallest_z = math.inf, math.inf
    for sigma in itertools.permutations(range(r)):
        if sigma == tuple(range(r)):
            continue
        diff = draws[np.arange(r), list(sigma)].sum(axis=0) - diagonal
        gap, se = abs(diff.mean()), diff.std(ddof=1) / math.sqrt(len(diff))
        smallest, smallest_z = min(smallest, gap), min(smallest_z, gap / se if se > 0 else math.inf)
    return smallest, smallest_z


def det_identity(templates, params: KernelParams = KernelParams()) -> tuple[float, float]:
    """Lemma E.1's step at ``b₂ = π/4``: ``det N`` computed directly and as
    ``2^-r exp(-b₁²/2 Σ_i (K_xx,i + K_yy,i)) Σ_σ sgn(σ) exp(b₁² S_σ)``. Returns both."""
    X, Y = substituted_pair(templates)
    K, kx, ky = attention_kernel(X, Y, params), attention_diagonal(X, params), attention_diagonal(Y, params)
    N = cosine_layer(K, kx, ky, params.b1, math.pi / 4)
    r = len(X)
    total = 0.0
    for sigma in itertools.permutations(range(r)):
        sign = np.linalg.det(np.eye(r)[list(sigma)])
        total += sign * math.exp(params.b1**2 * K[np.arange(r), list(sigma)].sum())
    formula = 2.0**-r * math.exp(-params.b1**2 / 2 * (kx.sum() + ky.sum())) * total
    return float(np.linalg.det(N)), float(formula)


def conditioning(N: np.ndarray) -> float:
    """``σ_min(N) / σ_max(N)``: 0 for a singular N."""
    s = np.linalg.svd(N, compute_uv=False)
    return float(s[-1] / s[0])


# ----------------------------------------------------------------------------- Prop. 4.3
def ridge(K_train: np.ndarray, y: np.ndarray, K_test: np.ndarray, lam: float) -> np.ndarray:
    """Proposition 4.3: ``f̂(x) = K(x, X)(K + λI)^{-1} y``."""
    validate.real("ridge", "lam", lam, minimum=0.0)
    K = (K_train + K_train.T) / 2  # Monte Carlo pattern values are symmetric only up to noise
    return K_test @ np.linalg.solve(K + lam * np.eye(len(K)), y)


def krr_test_error(task, n_train: int, kernel: str = "transformer", params: KernelParams = KernelParams(),
                   n_test: int = 300, ridge_per_sample: float = 1e-5, seed: int = 0) -> float:
    """Kernel ridge regression on ``n_train`` strings of a :class:`~lib.tasks.symbol_templates.SymbolTemplates`
    task (its training alphabet) and its mean squared error on ``n_test`` strings of unseen
    symbols (the test alphabet), labelled by ``f*(t)`` without noise. λ = ridge_per_sample · n."""
    validate.choice("krr_test_error", "kernel", kernel, KERNELS)
    train = task.variant("train").sample(n_train, seed=2 * seed)
    test = task.variant("test").sample(n_test, seed=2 * seed + 1)
    fn = KERNELS[kernel]
    f = ridge(fn(train.x.numpy(), train.x.numpy(), params), train.y.double().numpy(),
              fn(test.x.numpy(), train.x.numpy(), params), ridge_per_sample * n_train)
    return float(np.mean((f - test.y.double().numpy()) ** 2))


# ----------------------------------------------------------------------------- App. H
def wide_random_transformer(vocab_size: int, length: int, params: KernelParams = KernelParams(), d_model: int = 1024,
                            n_heads: int = 128, d_head: int = 32, seed: int = 0):
    """App. H's depth-1 transformer, built in the shared attention stack with random weights
    scaled so that its attention output at the last ([CLS]) position has inner products that
    tend to ``K_attn`` as the widths grow: ``W_E``, ``P`` entries ``N(0, 1/d)`` (``P`` times γ),
    ``W_Q``, ``W_K`` entries ``N(0, 1)`` with scores scaled by ``β / sqrt(d_head (1 + γ²))`` (the
    factor ``z_k · z_k = 1 + γ²`` of the [CLS] query absorbed, as App. H says), ``W_V`` entries
    ``N(0, 1/d)``, ``W_O`` entries ``N(0, 1/(H d_head))``, no residual, no LayerNorm, and the
    identity read-out, so ``model(x)`` is the attention output ``z`` and ``z(X)·z(Y) ≈ K_attn(X, Y)``."""
    import torch

    from ...models import AttentionConfig, build_model

    config = AttentionConfig(d_model=d_model, n_out=d_model, n_heads=n_heads, d_head=d_head, d_value=d_head,
                             residual=False, vocab_size=vocab_size, embedding="learned", positions="learned",
                             max_len=length, readout="last",
                             attn_scale=params.beta / math.sqrt(d_head * (1 + params.gamma**2)))
    model = build_model(config, seed=seed)
    g = torch.Generator().manual_seed(seed)
    normal = lambda *shape, std: torch.randn(*shape, generator=g) * std  # noqa: E731
    model.set_weights({"W_E": normal(vocab_size, d_model, std=d_model**-0.5),
                       "W_pos": normal(length, d_model, std=params.gamma * d_model**-0.5),
                       "layers.0.attn.W_Q": normal(n_heads, d_model, d_head, std=1.0),
                       "layers.0.attn.W_K": normal(n_heads, d_model, d_head, std=1.0),
                       "layers.0.attn.W_V": normal(n_heads, d_model, d_head, std=d_model**-0.5),
                       "layers.0.attn.W_O": normal(n_heads, d_head, d_model, std=(n_heads * d_head) ** -0.5),
                       "W_U": torch.eye(d_model)})
    return model
