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
    if array.shape[0] == 0 or array.shape[1] == 0:
        validate.fail(owner, name, "at least one string of at least one token", f"shape {array.shape}")
    validate.integer(owner, f"the length of the strings in {name}", array.shape[1], maximum=validate.MAX_COUNT)
    return array.astype(np.int64)


def _params(owner: str, params) -> KernelParams:
    return validate.instance(owner, "params", params, KernelParams)


def _patterns_array(owner: str, unique) -> np.ndarray:
    """Joint equality patterns ``(P, 2k)`` as :func:`patterns` writes them: integers in ``[0, 2k)``."""
    array = np.asarray(unique)
    if array.ndim != 2 or array.dtype.kind not in "iu":
        validate.fail(owner, "unique", "an integer array of patterns, shape (P, 2k)", unique, validate.ArgumentTypeError)
    if array.shape[1] == 0 or array.shape[1] % 2:
        validate.fail(owner, "unique", "patterns of an even, positive number 2k of tokens", f"shape {array.shape}")
    if array.size and (array.min() < 0 or array.max() >= array.shape[1]):
        validate.fail(owner, "unique", f"first-occurrence indices in [0, {array.shape[1]})",
                      f"indices from {array.min()} to {array.max()}")
    return array


def patterns(A, B, chunk: int = 64) -> tuple[np.ndarray, np.ndarray]:
    """The joint equality pattern of every pair ``(A[a], B[b])``: ``(index (nA, nB), unique (P, 2k))``,
    each pattern written as first-occurrence indices over the concatenated ``2k`` tokens."""
    A, B = _as_strings("patterns", "A", A), _as_strings("patterns", "B", B)
    if A.shape[1] != B.shape[1]:
        raise ValueError(f"patterns: A and B must have the same length, got {A.shape[1]} and {B.shape[1]}")
    validate.integer("patterns", "chunk", chunk, minimum=1)
    pairs, width = len(A) * len(B), 2 * A.shape[1]
    validate.memory("patterns", f"the equality table of every pair (nA x nB x 2k x 2k = {pairs * width**2:.1e} numbers)",
                    pairs * width * (width + 3 * 8))
    rows = []
    for start in range(0, len(A), chunk):
        a = A[start:start + chunk]
        z = np.concatenate([np.broadcast_to(a[:, None], (len(a), len(B), A.shape[1])),
                            np.broadcast_to(B[None], (len(a), len(B), A.shape[1]))], axis=2)
        rows.append(z.reshape(-1, 2 * A.shape[1]))
    inverse, unique = _unique_patterns(np.concatenate(rows))
    return inverse.reshape(len(A), len(B)), unique


def _index_type(width: int) -> type:
    """The narrowest integer type that holds the first-occurrence indices ``0 .. width - 1`` of a
    row of ``width = 2k`` tokens: int8 up to 128 tokens (as before, so short strings keep their
    pattern bytes and cache keys), int16 or int32 beyond (int8 wrapped indices >= 128 around and
    gave wrong kernel values for strings of 64 tokens or more)."""
    for kind in (np.int8, np.int16, np.int32):
        if width - 1 <= np.iinfo(kind).max:
            return kind
    return np.int64


def _unique_patterns(z: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Rows of tokens ``(m, 2k)`` as equality patterns (first-occurrence indices): the index of
    each row's pattern and the distinct patterns."""
    first = np.ascontiguousarray((z[:, :, None] == z[:, None, :]).argmax(axis=-1).astype(_index_type(z.shape[1])))
    keys = first.view(np.dtype((np.void, first.shape[1] * first.itemsize)))[:, 0]
    _, first_index, inverse = np.unique(keys, return_index=True, return_inverse=True)
    return inverse, first[first_index]


def pattern_values(unique: np.ndarray, params: KernelParams, chunk: int = 16, per_draw: bool = False) -> np.ndarray:
    """Eq. (3) for each joint pattern, by Monte Carlo with the same draws for every pattern;
    with ``per_draw``, the ``(P, draws)`` values whose means these are (for standard errors)."""
    owner = "pattern_values"
    unique = _patterns_array(owner, unique)
    _params(owner, params)
    validate.integer(owner, "chunk", chunk, minimum=1)
    validate.boolean(owner, "per_draw", per_draw)
    P, k2 = unique.shape
    validate.memory(owner, f"the draws of a chunk (draws x chunk x k x 6 = {params.draws * min(chunk, P) * k2 * 3:.1e} "
                    "numbers)", 8 * params.draws * (min(chunk, P) * k2 * 3 + 3 * k2)
                    + (8 * P * params.draws if per_draw else 0))
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
    unique = _patterns_array("cached_pattern_values", unique)
    _params("cached_pattern_values", params)
    store = _VALUES.setdefault(params, {})
    keys = [row.tobytes() for row in unique]
    missing = [i for i, key in enumerate(keys) if key not in store]
    if missing:
        for i, value in zip(missing, pattern_values(unique[missing], params)):
            store[keys[i]] = float(value)
    return np.array([store[key] for key in keys])


def attention_kernel(A, B, params: KernelParams = KernelParams()) -> np.ndarray:
    """``K_attn(A[a], B[b])`` for every pair (eq. 3), shape ``(nA, nB)``."""
    A, B = _as_strings("attention_kernel", "A", A), _as_strings("attention_kernel", "B", B)
    _params("attention_kernel", params)
    index, unique = patterns(A, B)
    return cached_pattern_values(unique, params)[index]


def attention_kernel_features(A, params: KernelParams = KernelParams(), draws: int | None = None) -> np.ndarray:
    """The same kernel from explicit random features with one Gaussian per *token id* (no
    pattern cache): ``K = F Fᵀ`` with ``F`` of shape ``(n, draws * (V + k)) / sqrt(draws)``, a
    Gram matrix and so positive semi-definite by construction. For small checks only."""
    owner = "attention_kernel_features"
    A = _as_strings(owner, "A", A)
    _params(owner, params)
    n, k = A.shape
    M = params.draws if draws is None else validate.integer(owner, "draws", draws, minimum=1, maximum=10**7)
    tokens, ids = np.unique(A, return_inverse=True)
    ids = ids.reshape(n, k)
    width = len(tokens) + k
    validate.memory(owner, f"the random features (draws x n x (V + k) = {M * n * width:.1e} numbers)",
                    8 * M * n * (2 * width + 3 * k))
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
    owner = "cosine_layer"
    K_xy = validate.array(owner, "K_xy", K_xy, ndim=2)
    K_xx, K_yy = validate.array(owner, "K_xx", K_xx, ndim=1), validate.array(owner, "K_yy", K_yy, ndim=1)
    if K_xy.shape != (len(K_xx), len(K_yy)):
        validate.fail(owner, "K_xy", f"of shape (len(K_xx), len(K_yy)) = ({len(K_xx)}, {len(K_yy)})",
                      f"shape {K_xy.shape}")
    b1, b2 = validate.real(owner, "b1", b1), validate.real(owner, "b2", b2)
    total = K_xx[:, None] + K_yy[None, :]
    return 0.5 * np.exp(-b1**2 * (total - 2 * K_xy) / 2) + 0.5 * math.cos(2 * b2) * np.exp(-b1**2 * (total + 2 * K_xy) / 2)


def attention_diagonal(A, params: KernelParams = KernelParams()) -> np.ndarray:
    """``K_attn(X, X)`` for each row of ``A``."""
    A = _as_strings("attention_diagonal", "A", A)
    _params("attention_diagonal", params)
    inverse, unique = _unique_patterns(np.concatenate([A, A], axis=1))
    return cached_pattern_values(unique, params)[inverse]


def transformer_kernel(A, B, params: KernelParams = KernelParams()) -> np.ndarray:
    """``K_trans``: the cosine MLP layer on the attention kernel (Theorem 4.4's kernel)."""
    A, B = _as_strings("transformer_kernel", "A", A), _as_strings("transformer_kernel", "B", B)
    _params("transformer_kernel", params)
    return cosine_layer(attention_kernel(A, B, params), attention_diagonal(A, params), attention_diagonal(B, params),
                        params.b1, params.b2)


def inner_product_kernel(A, B, incidence: bool = False) -> np.ndarray:
    """The kernel of concatenated one-hots, ``(1/k) #{i: x_i = y_i}``; with ``incidence`` the
    flattened incidence matrix is concatenated too, adding ``(1/k²) Σ_ij 1(x_i = x_j) 1(y_i = y_j)``."""
    owner = "inner_product_kernel"
    A, B = _as_strings(owner, "A", A), _as_strings(owner, "B", B)
    if A.shape[1] != B.shape[1]:
        raise ValueError(f"{owner}: A and B must have the same length, got {A.shape[1]} and {B.shape[1]}")
    validate.boolean(owner, "incidence", incidence)
    k = A.shape[1]
    validate.memory(owner, f"the token comparisons (nA x nB x k = {len(A) * len(B) * k:.1e} numbers)",
                    len(A) * len(B) * k * 9 + (8 * (len(A) + len(B)) * k * k if incidence else 0))
    K = (A[:, None, :] == B[None, :, :]).sum(-1) / k
    if incidence:
        ia = (A[:, :, None] == A[:, None, :]).reshape(len(A), -1).astype(float)
        ib = (B[:, :, None] == B[:, None, :]).reshape(len(B), -1).astype(float)
        K = K + ia @ ib.T / k**2
    return K


def mlp_kernel(A, B, params: KernelParams = KernelParams(), incidence: bool = False) -> np.ndarray:
    """An MLP's random-features kernel: the cosine layer on :func:`inner_product_kernel`."""
    A, B = _as_strings("mlp_kernel", "A", A), _as_strings("mlp_kernel", "B", B)
    _params("mlp_kernel", params)
    validate.boolean("mlp_kernel", "incidence", incidence)
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
    templates = _templates("substituted_pair", templates)
    validate.boolean("substituted_pair", "cls", cls)
    ids: dict[str, int] = {}
    rows = {side: [[ids.setdefault(f"{side}:{tok}" if st.is_wildcard(tok) else tok, len(ids)) for tok in t]
                   + ([ids.setdefault(st.CLS, len(ids))] if cls else []) for t in templates] for side in "xy"}
    return np.array(rows["x"]), np.array(rows["y"])


#: the most templates whose permutations (r! of them) eq. (9) and Lemma E.1 enumerate: 9! = 362,880
MAX_PERMUTED = 9


def _templates(owner: str, templates, max_count: int | None = None) -> list:
    """A non-empty list of templates of one length (strings or token tuples, as ``st.parse`` takes)."""
    if isinstance(templates, (str, bytes)) or not isinstance(templates, (list, tuple)):
        validate.fail(owner, "templates", "a list of templates such as ['aXa', 'aXX']", templates,
                      validate.ArgumentTypeError)
    if len(templates) == 0:
        validate.fail(owner, "templates", "a non-empty list of templates", templates)
    if max_count is not None and len(templates) > max_count:
        validate.fail(owner, "templates", f"at most {max_count} templates (the work enumerates all r! permutations; "
                      f"{len(templates)}! = {math.factorial(len(templates)):.1e})", f"{len(templates)} templates")
    try:
        parsed = [st.parse(t) for t in templates]
    except (TypeError, ValueError, AttributeError) as error:
        raise validate.ArgumentTypeError(f"{owner}: templates must be templates such as 'aXa', got {templates!r} "
                                         f"({error})") from None
    if len({len(t) for t in parsed}) != 1 or len(parsed[0]) == 0:
        validate.fail(owner, "templates", "non-empty templates of one length", templates)
    return parsed


def n_matrix(templates, kernel: str = "transformer", params: KernelParams = KernelParams()) -> np.ndarray:
    """Eq. (12): ``N_ij = K(sub(t_i, s), sub(t_j, s'))``, well defined by token symmetry."""
    validate.choice("n_matrix", "kernel", kernel, KERNELS)
    _params("n_matrix", params)
    X, Y = substituted_pair(templates)
    return KERNELS[kernel](X, Y, params)


def permutation_sums(templates, params: KernelParams = KernelParams()) -> dict[tuple, float]:
    """Eq. (9): ``S_σ = Σ_i K_attn(X_i, Y_σ(i))`` for every permutation σ of the templates."""
    _templates("permutation_sums", templates, MAX_PERMUTED)
    _params("permutation_sums", params)
    X, Y = substituted_pair(templates)
    K = attention_kernel(X, Y, params)
    r = len(X)
    return {sigma: float(K[np.arange(r), list(sigma)].sum()) for sigma in itertools.permutations(range(r))}


def permutation_gap(templates, params: KernelParams = KernelParams()) -> tuple[float, float]:
    """Eq. (9) against Monte Carlo noise: over every permutation σ ≠ id, the smallest
    ``|S_σ - S_id|`` and the smallest ``|S_σ - S_id|`` in standard errors of its estimate (the
    draws are shared by all patterns, so the difference is estimated draw by draw)."""
    if len(_templates("permutation_gap", templates, MAX_PERMUTED)) < 2:
        validate.fail("permutation_gap", "templates", "at least 2 templates (a permutation other than the identity)",
                      templates)
    _params("permutation_gap", params)
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
    _templates("det_identity", templates, MAX_PERMUTED)
    _params("det_identity", params)
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
    """``σ_min(N) / σ_max(N)``: 0 for a singular N (the zero matrix included)."""
    N = validate.array("conditioning", "N", N, ndim=2)
    if N.size == 0:
        validate.fail("conditioning", "N", "a non-empty matrix", f"shape {N.shape}")
    s = np.linalg.svd(N, compute_uv=False)
    return float(s[-1] / s[0]) if s[0] > 0 else 0.0


def conditioning_estimate(templates, params: KernelParams = KernelParams(), seeds: int = 8) -> tuple[float, float]:
    """``σ_min(N) / σ_max(N)`` of the transformer kernel's N with its Monte Carlo error: the
    attention kernel is averaged over ``seeds`` independent runs of ``params.draws`` draws each
    (seeds ``params.seed .. + seeds - 1``), N is built from the average, and the standard error is
    the jackknife over the runs (leave one run out). One run's estimate of a nearly singular N is
    too noisy to compare with a threshold (majority-4 at 16,000 draws: 1e-5 to 1.2e-4 by seed)."""
    owner = "conditioning_estimate"
    _templates(owner, templates)
    _params(owner, params)
    validate.integer(owner, "seeds", seeds, minimum=2, maximum=1000)
    X, Y = substituted_pair(templates)
    runs = []
    for s in range(seeds):
        p = KernelParams(beta=params.beta, gamma=params.gamma, b1=params.b1, b2=params.b2, draws=params.draws,
                         seed=params.seed + s)
        runs.append((attention_kernel(X, Y, p), attention_diagonal(X, p), attention_diagonal(Y, p)))

    def cond(keep):
        k, kx, ky = (np.mean([runs[i][j] for i in keep], axis=0) for j in range(3))
        return conditioning(cosine_layer(k, kx, ky, params.b1, params.b2))

    jack = np.array([cond([j for j in range(seeds) if j != i]) for i in range(seeds)])
    return cond(range(seeds)), float(math.sqrt((seeds - 1) / seeds * ((jack - jack.mean()) ** 2).sum()))


def random_activation_conditioning(templates, kernel: str = "transformer", params: KernelParams = KernelParams(),
                                   count: int = 8, seed: int = 0) -> float:
    """Lemma E.1's conclusion at random points: the smallest ``σ_min(N) / σ_max(N)`` over ``count``
    cosine activations ``cos(b₁ t + b₂)`` with ``b₁ ~ U(0.25, 2)``, ``b₂ ~ U(0, π)`` (the base
    kernel fixed). Positive for a kernel whose ``S_σ`` differ (eq. 22), 0 for the MLP kernel
    (all ``S_σ`` equal)."""
    owner = "random_activation_conditioning"
    _templates(owner, templates)
    validate.choice(owner, "kernel", kernel, ("transformer", "MLP"))
    _params(owner, params)
    validate.integer(owner, "count", count, minimum=1, maximum=10**4)
    validate.seed(owner, "seed", seed)
    X, Y = substituted_pair(templates)
    if kernel == "transformer":
        base, kx, ky = attention_kernel(X, Y, params), attention_diagonal(X, params), attention_diagonal(Y, params)
    else:
        base, kx, ky = inner_product_kernel(X, Y), _inner_diagonal(X, False), _inner_diagonal(Y, False)
    rng = np.random.default_rng(seed)
    return min(conditioning(cosine_layer(base, kx, ky, rng.uniform(0.25, 2.0), rng.uniform(0.0, math.pi)))
               for _ in range(count))


# ----------------------------------------------------------------------------- Prop. 4.3
def ridge(K_train: np.ndarray, y: np.ndarray, K_test: np.ndarray, lam: float) -> np.ndarray:
    """Proposition 4.3: ``f̂(x) = K(x, X)(K + λI)^{-1} y``."""
    validate.real("ridge", "lam", lam, minimum=0.0)
    K_train = validate.array("ridge", "K_train", K_train, ndim=2)
    if K_train.shape[0] != K_train.shape[1] or K_train.size == 0:
        validate.fail("ridge", "K_train", "a non-empty square matrix", f"shape {K_train.shape}")
    n = len(K_train)
    y = validate.array("ridge", "y", y, ndim=(1, 2))
    if len(y) != n:
        validate.fail("ridge", "y", f"one label per training point ({n})", f"shape {y.shape}")
    K_test = validate.array("ridge", "K_test", K_test, ndim=2)
    if K_test.shape[1] != n:
        validate.fail("ridge", "K_test", f"a matrix with {n} columns (one per training point)", f"shape {K_test.shape}")
    K = (K_train + K_train.T) / 2  # Monte Carlo pattern values are symmetric only up to noise
    return K_test @ np.linalg.solve(K + lam * np.eye(len(K)), y)


def gradient_flow(K_train: np.ndarray, y: np.ndarray, K_test: np.ndarray, lam: float, steps: int,
                  checkpoints: int = 10) -> tuple[np.ndarray, np.ndarray]:
    """Proposition 4.3 run: kernel gradient descent from f = 0 on ``½|f(X) - y|² + ½λ|f|²_K``
    (coefficients ``α``, ``α ← α - η (Kα + λα - y)`` with ``η = 1 / (λ_max(K) + λ)``, a step below
    the stability limit, so it follows the flow), for ``steps`` steps. Returns the step counts and
    the test predictions ``K_test α`` at ``checkpoints`` evenly spaced steps (the last is ``steps``)."""
    owner = "gradient_flow"
    K_train = validate.array(owner, "K_train", K_train, ndim=2)
    n = len(K_train)
    if K_train.shape != (n, n) or n == 0:
        validate.fail(owner, "K_train", "a non-empty square matrix", f"shape {K_train.shape}")
    y = validate.array(owner, "y", y, ndim=1)
    if len(y) != n:
        validate.fail(owner, "y", f"one label per training point ({n})", f"shape {y.shape}")
    K_test = validate.array(owner, "K_test", K_test, ndim=2)
    if K_test.shape[1] != n:
        validate.fail(owner, "K_test", f"a matrix with {n} columns", f"shape {K_test.shape}")
    validate.real(owner, "lam", lam, above=0.0)
    validate.integer(owner, "steps", steps, minimum=1, maximum=10**7)
    validate.integer(owner, "checkpoints", checkpoints, minimum=1, maximum=steps)
    K = (K_train + K_train.T) / 2
    eta = 1.0 / (np.linalg.eigvalsh(K)[-1] + lam)
    alpha = np.zeros(n)
    marks = set(np.linspace(steps / checkpoints, steps, checkpoints).round().astype(int).tolist())
    at, out = [], []
    for t in range(1, steps + 1):
        alpha = alpha - eta * (K @ alpha + lam * alpha - y)
        if t in marks:
            at.append(t)
            out.append(K_test @ alpha)
    return np.array(at), np.array(out)


def krr_test_error(task, n_train: int, kernel: str = "transformer", params: KernelParams = KernelParams(),
                   n_test: int = 300, ridge_per_sample: float = 1e-5, seed: int = 0, label_noise: float = 0.0) -> float:
    """Kernel ridge regression on ``n_train`` strings of a :class:`~lib.tasks.symbol_templates.SymbolTemplates`
    task (its training alphabet) and its mean squared error on ``n_test`` strings of unseen
    symbols (the test alphabet), labelled by ``f*(t)`` without noise. λ = ridge_per_sample · n.
    With ``label_noise`` σ > 0 the training labels carry i.i.d. N(0, σ²) noise (Theorem 4.4's
    noise term; drawn from ``seed``), and the error is still measured against the noiseless f*."""
    owner = "krr_test_error"
    validate.choice(owner, "kernel", kernel, KERNELS)
    validate.instance(owner, "task", task, st.SymbolTemplates)
    validate.integer(owner, "n_train", n_train, minimum=1, maximum=validate.MAX_COUNT)
    validate.integer(owner, "n_test", n_test, minimum=1, maximum=validate.MAX_COUNT)
    _params(owner, params)
    validate.real(owner, "ridge_per_sample", ridge_per_sample, minimum=0.0)
    validate.integer(owner, "seed", seed, minimum=0, maximum=validate.MAX_SEED // 2 - 1)
    validate.real(owner, "label_noise", label_noise, minimum=0.0)
    train = task.variant("train").sample(n_train, seed=2 * seed)
    test = task.variant("test").sample(n_test, seed=2 * seed + 1)
    fn = KERNELS[kernel]
    y = train.y.double().numpy()
    if label_noise > 0:
        y = y + label_noise * np.random.default_rng(seed).standard_normal(y.shape)
    f = ridge(fn(train.x.numpy(), train.x.numpy(), params), y,
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

    owner = "wide_random_transformer"
    for name, value in (("vocab_size", vocab_size), ("length", length), ("d_model", d_model), ("n_heads", n_heads),
                        ("d_head", d_head)):
        validate.integer(owner, name, value, minimum=1, maximum=validate.MAX_COUNT)
    _params(owner, params)
    validate.seed(owner, "seed", seed)
    validate.memory(owner, f"the weights ({vocab_size * d_model + length * d_model + 4 * n_heads * d_model * d_head:.1e} "
                    "numbers)", 8 * (vocab_size * d_model + length * d_model + 4 * n_heads * d_model * d_head + d_model**2))

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
