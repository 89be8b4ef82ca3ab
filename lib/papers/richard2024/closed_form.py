"""The closed-form attention heads of Richard (2024), Secs. 3-4 and App. 5.2-5.3, loaded into
the library's decoder (:func:`lib.models.decoder.eq1_config`) and checked exactly.

The model of Eq. (1) attends uniformly (Q = 0) with value ``V = v I`` and a tied embedding ``E``:
``logits_r = (v / r) sum_{i<=r} (E_{s_i} + B_i) E^T``. Everything here follows from one
identity: with the positional embedding ``B(s)`` of Eq. (4),

    P_r = sum_{i<=r} B_i = -sum_{i<=r} E_{s_i} + gamma E_{s_{r+1}},   so
    (1/r) 1_r^T (E_s + B_{:r}) = (gamma / r) E_{s_{r+1}}                (telescoping)

for any ``E`` of any width: the context of a prefix of ``s`` points at ``s``'s next token.

* :func:`positional_embedding` is Eq. (4) (Eq. (6) with one-hot ``E``), :func:`eq1_model` loads
  ``E``, ``B`` and ``v`` into the decoder, :func:`sequence_loss` is Eq. (2) for one sequence;
* Lemma 5.1 and Theorem 3.1: :func:`jl_dimension`, :func:`jl_embedding`, :func:`margin`, the
  paper's bounds (:func:`theorem31_bounds`) and a margin bound that holds (:func:`margin_bound`);
* the stability factor ``mu_r`` of Sec. 3.2 (:func:`stability_factor`, with sympy);
* Theorem 4.1, the 2N + 3-weight Dyck completer (:func:`dyck_completer`), checked on every
  pair (training word, valid prefix) by :func:`exhaustive_check`, with the rule it obeys
  (:func:`rule_completion`: one step toward ``s``'s height path, then follow ``s``);
* Claim 5.3, the three-weight completer without positional embedding (:func:`claim53_model`);
* Figure 2's paths (:func:`path_picture`).
"""
from __future__ import annotations

import math

import numpy as np
import torch

from ... import validate
from ...models import build_model
from ...models.decoder import eq1_config, generate
from ...tasks import dyck_words

ATTRACTIVE, REPULSIVE = -0.5, 0.5
DYCK_EMBEDDING = np.array([[1.0], [-1.0]])  # '(' -> +1, ')' -> -1 (Theorem 4.1), d = 1
#: the most (training word, prefix) pairs :func:`exhaustive_check` and :func:`model_check` run through
#: (D_16 with every valid prefix is 1430 x 6916 = 9.9e6 pairs; D_20 would be 1.5e9, hours of numpy)
MAX_PAIRS = 10**9


# ----------------------------------------------------------------------------- argument checks
def _token_array(owner: str, name: str, value, ndim: int = 1) -> np.ndarray:
    """An integer array (list, array or tensor) with ``ndim`` axes, as int64; floats, bools and
    strings are refused (``np.asarray(..., int64)`` would truncate 0.7 to 0 without a word)."""
    if isinstance(value, (str, bytes)) or value is None or isinstance(value, (bool, np.bool_)):
        validate.fail(owner, name, "an array of integer token ids", value, validate.ArgumentTypeError)
    try:
        raw = np.asarray(value.detach().cpu() if hasattr(value, "detach") else value)
    except (TypeError, ValueError):
        raise validate.ArgumentTypeError(f"{owner}: {name} must be an array of integer token ids, "
                                         f"got {type(value).__name__}") from None
    if raw.size == 0 and raw.ndim == ndim:
        return raw.astype(np.int64)
    if raw.dtype.kind not in "iu":
        validate.fail(owner, name, "an array of integer token ids", value, validate.ArgumentTypeError)
    if raw.ndim != ndim:
        validate.fail(owner, name, f"an array of token ids with {ndim} axes", f"shape {raw.shape}")
    return raw.astype(np.int64)


def _tokens(owner: str, name: str, value, t: int, min_len: int = 1) -> np.ndarray:
    """A 1-d sequence of at least ``min_len`` token ids in ``[0, t)``."""
    s = _token_array(owner, name, value)
    if len(s) < min_len:
        validate.fail(owner, name, f"a sequence of at least {min_len} token ids", f"{len(s)} tokens")
    if len(s) and (s.min() < 0 or s.max() >= t):
        validate.fail(owner, name, f"token ids in [0, {t - 1}]", f"ids from {s.min()} to {s.max()}")
    return s


def _dyck_word(owner: str, name: str, value) -> np.ndarray:
    """A word of D_2N: tokens 0 '(' and 1 ')' only, no height below 0, final height 0, N >= 1."""
    s = _token_array(owner, name, value)
    if len(s) < 2 or len(s) % 2 or ((s != dyck_words.OPEN) & (s != dyck_words.CLOSE)).any() \
            or not dyck_words.is_valid(s):
        shown = dyck_words.to_string(s) if len(s) and np.isin(s, (0, 1)).all() else s.tolist()
        validate.fail(owner, name, "a non-empty Dyck word (tokens 0 '(' and 1 ')', balanced)", shown)
    return s


def _dyck_words(owner: str, name: str, value) -> np.ndarray:
    """A non-empty ``(m, 2N)`` array whose every row is a word of D_2N."""
    words = _token_array(owner, name, value, ndim=2)
    if words.shape[0] == 0 or words.shape[1] < 2 or words.shape[1] % 2:
        validate.fail(owner, name, "a non-empty (m, 2N) array of Dyck words, N >= 1", f"shape {words.shape}")
    binary = ((words == dyck_words.OPEN) | (words == dyck_words.CLOSE)).all(1)
    bad = np.nonzero(~binary)[0]
    if not len(bad):
        bad = np.nonzero(~dyck_words.is_valid(words))[0]
    if len(bad):
        row = words[bad[0]]
        shown = dyck_words.to_string(row) if np.isin(row, (0, 1)).all() else row.tolist()
        validate.fail(owner, f"{name}[{bad[0]}]", "a Dyck word (tokens 0 '(' and 1 ')', balanced)", shown)
    return words


def _dyck_prefix(owner: str, name: str, value, N: int) -> np.ndarray:
    """A non-empty prefix of a word of D_2N: tokens 0 and 1, no height below 0, at most 2N tokens,
    and a height no more than the tokens left (so it can still close)."""
    z = _token_array(owner, name, value)
    if not 1 <= len(z) <= 2 * N:
        validate.fail(owner, name, f"a prefix of 1 to {2 * N} tokens (2N)", f"{len(z)} tokens")
    if not np.isin(z, (dyck_words.OPEN, dyck_words.CLOSE)).all():
        validate.fail(owner, name, "tokens 0 '(' and 1 ')'", z.tolist())
    h = dyck_words.heights(z)
    if h.min() < 0 or h[-1] > 2 * N - len(z):
        validate.fail(owner, name, f"a prefix of a word of D_{2 * N} (no height below 0, closable in 2N tokens)",
                      dyck_words.to_string(z))
    return z


def _dyck_prefixes(owner: str, name: str, value, N: int) -> list[np.ndarray]:
    if isinstance(value, (str, bytes)) or not isinstance(value, (list, tuple, np.ndarray)):
        validate.fail(owner, name, "a list of Dyck prefixes (1-d integer arrays)", value, validate.ArgumentTypeError)
    if len(value) == 0:
        validate.fail(owner, name, "a non-empty list of Dyck prefixes", value)
    return [_dyck_prefix(owner, f"{name}[{i}]", p, N) for i, p in enumerate(value)]


def _gamma(owner: str, gamma) -> float:
    """gamma of Eq. (4) as Theorem 4.1 and Sec. 3.2 use it: finite and non-zero (its sign picks the
    attractive or repulsive head; at 0 the context carries no information about the next token)."""
    gamma = validate.real(owner, "gamma", gamma)
    if gamma == 0:
        validate.fail(owner, "gamma", "a finite non-zero number (its sign picks attractive or repulsive)", gamma)
    return gamma


def _value(owner: str, v) -> float:
    """The value scale v: finite and non-zero (at 0 every logit is 0 and the greedy choice is a tie)."""
    v = validate.real(owner, "v", v)
    if v == 0:
        validate.fail(owner, "v", "a finite non-zero number", v)
    return v


def _model(owner: str, model):
    from ...models.decoder import DecoderModel

    return validate.instance(owner, "model", model, DecoderModel)


def _vocab(model) -> int:
    return int(model.config.vocab_size)


def _prefix_count(N: int) -> int:
    """The number of distinct non-empty prefixes of words of D_2N (what :func:`valid_prefixes`
    lists), by counting paths that stay >= 0 and can still close: O(N^2), nothing listed."""
    n, total = 2 * N, 0
    paths = {0: 1}
    for r in range(1, n + 1):
        nxt: dict[int, int] = {}
        for h, c in paths.items():
            for g in (h + 1, h - 1):
                if 0 <= g <= n - r:
                    nxt[g] = nxt.get(g, 0) + c
        paths = nxt
        total += sum(paths.values())
    return total


def _pairs(owner: str, words: int, prefixes: int) -> None:
    if words * prefixes > MAX_PAIRS:
        raise ValueError(f"{owner}: {words:,} words x {prefixes:,} prefixes = {words * prefixes:,.0f} pairs, more "
                         f"than the {MAX_PAIRS:,} this check runs through (hours of work); use a smaller N or pass "
                         "fewer words or prefixes")


# ----------------------------------------------------------------------------- Eq. (4), Eq. (1)
def _embedding_args(owner: str, s, gamma, E):
    """``s`` (at least 2 ids below ``t``), a finite ``gamma`` and a finite ``(t, d)`` ``E``."""
    E = validate.array(owner, "E", E, ndim=2)
    if E.shape[0] < 1 or E.shape[1] < 1:
        validate.fail(owner, "E", "a (t, d) array with t, d >= 1", f"shape {E.shape}")
    s = _tokens(owner, "s", s, E.shape[0], min_len=2)
    return s, validate.real(owner, "gamma", gamma), E


def positional_embedding(s, gamma: float, E) -> np.ndarray:
    """Eq. (4): ``B_1 = -E_{s_1} + gamma E_{s_2}``, ``B_i = -(1 + gamma) E_{s_i} + gamma E_{s_{i+1}}``
    for ``i >= 2``; ``B_n`` takes ``E_{s_{n+1}} = 0`` (it never predicts). ``E`` is ``(t, d)``;
    with ``E = I_t`` this is Eq. (6)'s ``R``. Returns ``(n, d)``."""
    s, gamma, E = _embedding_args("positional_embedding", s, gamma, E)
    Es = E[s]
    following = np.concatenate([Es[1:], np.zeros_like(Es[:1])])
    B = -(1.0 + gamma) * Es + gamma * following
    B[0] = -Es[0] + gamma * Es[1]
    return B


def telescoping_error(s, gamma: float, E) -> float:
    """The largest entry of ``|sum_{i<=r}(E_{s_i} + B_i) - gamma E_{s_{r+1}}|`` over r = 1 .. n - 1:
    zero up to rounding for every ``E`` (the identity behind every result of the paper)."""
    s, gamma, E = _embedding_args("telescoping_error", s, gamma, E)
    context = np.cumsum(E[s] + positional_embedding(s, gamma, E), axis=0)[:-1]
    return float(np.abs(context - gamma * E[s[1:]]).max())


def eq1_model(E, B, v: float, *, positions: bool = True):
    """The model of Eq. (1) with token embedding ``E`` ``(t, d)``, positional embedding ``B``
    ``(n, d)`` (or none) and value ``V = v I``, as a float64 :class:`~lib.models.DecoderModel`."""
    owner = "eq1_model"
    E = validate.array(owner, "E", E, ndim=2)
    if E.shape[0] < 1 or E.shape[1] < 1:
        validate.fail(owner, "E", "a (t, d) array with t, d >= 1", f"shape {E.shape}")
    v = validate.real(owner, "v", v)
    positions = validate.boolean(owner, "positions", positions)
    if positions:
        B = validate.array(owner, "B", B, ndim=2)
        if B.shape[0] < 1 or B.shape[1] != E.shape[1]:
            validate.fail(owner, "B", f"an (n, d) array with n >= 1 and d = {E.shape[1]} (E's width)", f"shape {B.shape}")
    else:
        B = validate.integer(owner, "B (the context length, without positions)", B, 1, validate.MAX_COUNT)
    t, d = E.shape
    n = len(B) if positions else int(B)  # without positions, B is the context length
    config = eq1_config(t, n, d, positions="learned" if positions else "none")
    model = build_model(config, dtype=torch.float64)
    weights = {"W_E": E, "layers.0.attn.W_V": v * np.eye(d)[None]}
    if positions:
        weights["W_pos"] = np.asarray(B, dtype=np.float64)
    return model.set_weights(weights)


def construction_size(model) -> int:
    """The weights of an Eq. (1) model: ``E`` (t d), ``B`` (n d) and the scalar ``v`` (the 2N + 3
    of Theorem 4.1 for the Dyck completer; the unused query/key weights of uniform attention are
    not counted)."""
    _model("construction_size", model)
    size = model.get_weight("W_E").numel() + 1
    if model.config.positions != "none":
        size += model.get_weight("W_pos").numel()
    return size


def next_token_logits(model, s) -> np.ndarray:
    """Logits of every next token given each prefix of ``s``: ``(len(s), t)`` (float64)."""
    _model("next_token_logits", model)
    s = _tokens("next_token_logits", "s", s, _vocab(model))
    if len(s) > model.config.max_len:
        validate.fail("next_token_logits", "s", f"at most {model.config.max_len} tokens (the model's context)", len(s))
    with torch.no_grad():
        x = torch.as_tensor(s[None])
        return model(x)[0].double().numpy()


def _loss_args(owner: str, model, s) -> np.ndarray:
    _model(owner, model)
    s = _tokens(owner, "s", s, _vocab(model), min_len=2)
    if len(s) > model.config.max_len:
        validate.fail(owner, "s", f"at most {model.config.max_len} tokens (the model's context)", len(s))
    return s


def sequence_loss(model, s) -> float:
    """Eq. (2) for one sequence: ``sum_{r=1}^{n-1} -log P(s_{r+1} | s_{:r})``, computed as
    ``log(1 + sum_j exp(-(gap_j)))`` from the logit gaps, so losses far below the float
    resolution of the logits (1e-100 and smaller) keep their value."""
    s = _loss_args("sequence_loss", model, s)
    logits = next_token_logits(model, s)[:-1]
    target = logits[np.arange(len(s) - 1), s[1:]]
    gaps = target[:, None] - logits
    gaps[np.arange(len(s) - 1), s[1:]] = np.inf
    return float(np.log1p(np.exp(-gaps).sum(1)).sum())


def log_sequence_loss(model, s) -> float:
    """``log`` of :func:`sequence_loss`, exact where the loss underflows (``vgamma/n`` of hundreds)."""
    s = _loss_args("log_sequence_loss", model, s)
    logits = next_token_logits(model, s)[:-1]
    target = logits[np.arange(len(s) - 1), s[1:]]
    gaps = target[:, None] - logits
    gaps[np.arange(len(s) - 1), s[1:]] = np.inf
    log_terms = np.logaddexp.reduce(-gaps, axis=1)  # log sum_j exp(-gap_j), per step
    # log(log1p(S)) = log S + log(log1p(S) / S); the ratio is 1 - S/2 + ... for small S
    small = log_terms < -30
    S = np.exp(np.where(small, 0.0, np.minimum(log_terms, 700.0)))
    ratio = np.where(small, 1.0, np.log1p(S) / S)
    return float(np.logaddexp.reduce(log_terms + np.log(ratio)))


# ----------------------------------------------------------------------------- Lemma 5.1, Theorem 3.1
def jl_dimension(n: int, eps: float) -> int:
    """Theorem 3.1's width ``d >= 4 ln n / (eps^2/2 - eps^3/3)`` (Dasgupta & Gupta's JL bound)."""
    n = validate.integer("jl_dimension", "n", n, 2, validate.MAX_SEED)
    eps = validate.real("jl_dimension", "eps", eps, above=0, below=1)
    if not eps**2 / 2 - eps**3 / 3 > 0 or not math.isfinite(4 * math.log(n) / (eps**2 / 2 - eps**3 / 3)):
        validate.fail("jl_dimension", "eps", "large enough that the width is finite (eps^2 underflows below 1e-154)",
                      eps)
    return math.ceil(4 * math.log(n) / (eps**2 / 2 - eps**3 / 3))


def jl_embedding(t: int, d: int, seed: int = 0) -> np.ndarray:
    """A Gaussian random projection of the one-hot tokens: ``E = G / sqrt(d)``, ``G`` i.i.d. N(0, 1)."""
    t = validate.integer("jl_embedding", "t", t, 1, validate.MAX_COUNT)
    d = validate.integer("jl_embedding", "d", d, 1, validate.MAX_COUNT)
    seed = validate.seed("jl_embedding", "seed", seed)
    validate.memory("jl_embedding", f"the embedding (t x d = {t * d:.1e} numbers)", 8.0 * t * d)
    return np.random.default_rng(seed).standard_normal((t, d)) / math.sqrt(d)


def margin(E) -> float:
    """``min_a (|E_a|^2 - max_{j != a} <E_a, E_j>)``: how far each token's own logit beats the others
    when the context vector is ``E_a`` (1 for one-hot embeddings, ``>= 1 - 3 eps`` under JL)."""
    E = validate.array("margin", "E", E, ndim=2)
    if E.shape[0] < 2 or E.shape[1] < 1:
        validate.fail("margin", "E", "a (t, d) array with t >= 2 tokens (the margin compares tokens) and d >= 1",
                      f"shape {E.shape}")
    validate.memory("margin", f"the Gram matrix (t x t = {E.shape[0] ** 2:.1e} numbers)", 8.0 * E.shape[0] ** 2)
    G = E @ E.T
    own = np.diag(G).copy()
    np.fill_diagonal(G, -np.inf)
    return float((own - G.max(1)).min())


def rescaled(E) -> np.ndarray:
    """``E`` scaled to margin exactly 1 (:func:`margin` grows as the square of the scale): the same
    directions, so a JL embedding keeps its width; with margin 1 the margin bound is below Theorem
    3.1's stated bound at every ``v gamma`` (``(n-1)(t-1) <= 2 n^2 t e^{2 eps}``)."""
    E = validate.array("rescaled", "E", E, ndim=2)
    m = margin(E)
    if not m > 0:
        validate.fail("rescaled", "E", "an embedding with a positive margin (every token beats the others)", f"margin {m}")
    return E / math.sqrt(m)


def circle_embedding(t: int) -> np.ndarray:
    """``t`` tokens on a circle in d = 2 (angles ``2 pi a / t``), scaled to margin 1: an embedding far
    narrower than Theorem 3.1's width condition that still meets its bound (the condition is
    sufficient for the proof's JL embedding, not necessary for the theorem's "there exists")."""
    t = validate.integer("circle_embedding", "t", t, 2, validate.MAX_COUNT)
    angles = 2 * np.pi * np.arange(t) / t
    return rescaled(np.stack([np.cos(angles), np.sin(angles)], axis=1))


def theorem31_bounds(n: int, t: int, vgamma: float, eps: float) -> dict:
    """Theorem 3.1 as stated: failure probability ``<= n t exp(-vgamma/n + 2 eps)`` and loss
    ``<= 2 n^2 t exp(-vgamma/n + 2 eps)``, returned as logs (they underflow)."""
    owner = "theorem31_bounds"
    n = validate.integer(owner, "n", n, 1, validate.MAX_SEED)
    t = validate.integer(owner, "t", t, 1, validate.MAX_SEED)
    vgamma = validate.real(owner, "vgamma", vgamma)
    eps = validate.real(owner, "eps", eps, above=0, below=1)
    log_fail = math.log(n * t) - vgamma / n + 2 * eps
    return {"log_failure": log_fail, "log_loss": math.log(2 * n) + log_fail}


def margin_bound(n: int, t: int, vgamma: float, m: float) -> float:
    """``log`` of a bound that holds: each of the n - 1 predictions has every wrong logit at least
    ``(vgamma / r) m >= (vgamma / n) m`` below the right one, so the loss and the failure
    probability are both ``<= (n - 1)(t - 1) exp(-(vgamma / n) m)``."""
    owner = "margin_bound"
    n = validate.integer(owner, "n", n, 2, validate.MAX_SEED)
    t = validate.integer(owner, "t", t, 2, validate.MAX_SEED)
    vgamma = validate.real(owner, "vgamma", vgamma, minimum=0)
    m = validate.real(owner, "m", m, above=0)
    return math.log((n - 1) * (t - 1)) - vgamma / n * m


def lemma51_probability(t: int, vgamma: float, r: int) -> float:
    """Lemma 5.1: with one-hot ``E`` the r-th prediction is right with probability
    ``1 / (1 + (t - 1) exp(-vgamma / r))``."""
    owner = "lemma51_probability"
    t = validate.integer(owner, "t", t, 1, validate.MAX_SEED)
    vgamma = validate.real(owner, "vgamma", vgamma)
    r = validate.integer(owner, "r", r, 1, validate.MAX_SEED)
    exponent = -vgamma / r
    if exponent > 700:  # exp overflows: the probability is below 1e-304 (0.0 in float64)
        return 0.0
    return 1.0 / (1.0 + (t - 1) * math.exp(exponent))


#: Sec. 3.2's identity for the context at position r, as the display prints it and as Eq. (4) gives it:
#: ``(1/r) sum_{i<=r} (E_{s_i} + B_i) = gamma E_{s_{r+1}} / r**p`` with p = 0 (display) or p = 1 (Eq. 4,
#: whose partial sums telescope to ``gamma E_{s_{r+1}}``: :func:`telescoping_error`)
STABILITY_IDENTITIES = {"display": 0, "eq4": 1}


def stability_factor(gamma=None, identity: str = "display"):
    """Sec. 3.2: if a generated sequence z and the training sequence s both satisfy the context
    identity at every r, their embeddings' differences ``c_r = E_{s_r} - E_{z_r}`` obey
    ``c_{r+1} = mu_r c_r``. Derived here with sympy from the identity at r - 1 and at r (B cancels
    in the difference), not typed in: with the display as printed (``identity="display"``) it is
    the paper's ``mu_r = (1 + (r - 1) gamma) / (r gamma)``; with the identity Eq. (4) actually
    gives (``"eq4"``, a 1/r on the right) it is ``(1 + gamma) / gamma``, whatever r. With
    ``gamma`` given, the simplified expression in ``r``."""
    import sympy

    owner = "stability_factor"
    identity = validate.choice(owner, "identity", identity, tuple(STABILITY_IDENTITIES))
    if gamma is not None:
        gamma = _gamma(owner, gamma)
    p = STABILITY_IDENTITIES[identity]
    r = sympy.Symbol("r", positive=True)
    g = sympy.Symbol("gamma", nonzero=True)
    c_r, c_next, before = sympy.symbols("c_r c_next S_before")  # S_before = sum_{i <= r-1} c_i
    at_previous = sympy.Eq(before / (r - 1), g * c_r / (r - 1) ** p)
    at_r = sympy.Eq((before + c_r) / r, g * c_next / r**p)
    solved = sympy.solve([at_previous, at_r], [before, c_next], dict=True)[0]
    mu = sympy.simplify(solved[c_next] / c_r)
    return mu if gamma is None else sympy.simplify(mu.subs(g, sympy.nsimplify(gamma)))


# ----------------------------------------------------------------------------- Theorem 4.1
def dyck_value(N: int, gamma: float) -> float:
    """The value scale of Theorem 4.1: ``|v| = 2N^2 + 1`` with the sign of ``gamma`` (so
    ``v gamma = N^2 + 1/2 > N^2`` at ``gamma = -1/2``, and ``-v > 2N^2``)."""
    N = validate.integer("dyck_value", "N", N, 1, validate.MAX_COUNT)
    gamma = _gamma("dyck_value", gamma)
    return math.copysign(2 * N**2 + 1, gamma)


def dyck_completer(s, gamma: float = ATTRACTIVE, v: float | None = None):
    """Theorem 4.1's model for the training word ``s`` of D_2N: ``E = [1, -1]``, ``B = B(s)`` of
    Eq. (4), ``V = v`` (d = 1): 2N + 3 weights."""
    s = _dyck_word("dyck_completer", "s", s)
    N = len(s) // 2
    gamma = _gamma("dyck_completer", gamma)
    v = dyck_value(N, gamma) if v is None else _value("dyck_completer", v)
    return eq1_model(DYCK_EMBEDDING, positional_embedding(s, gamma, DYCK_EMBEDDING), v)


def rule_completion(prefix, s) -> np.ndarray:
    """The completion Theorem 4.1's proof predicts for an attractive completer of ``s``: while the
    prefix's height ``Delta_r(z)`` is above ``s``'s, close; below, open; equal, copy ``s_{r+1}``."""
    s = _dyck_word("rule_completion", "s", s)
    z = list(_dyck_prefix("rule_completion", "prefix", prefix, len(s) // 2))
    hs = dyck_words.heights(s)
    while len(z) < len(s):
        gap = int(dyck_words.heights(z)[-1]) - int(hs[len(z) - 1])
        z.append(dyck_words.CLOSE if gap > 0 else dyck_words.OPEN if gap < 0 else int(s[len(z)]))
    return np.array(z, dtype=np.int64)


def padded_prefixes(prefixes: list[np.ndarray], n: int) -> tuple[np.ndarray, np.ndarray]:
    """Prefixes as one ``(m, n)`` array (zeros after each prefix) and their lengths."""
    n = validate.integer("padded_prefixes", "n", n, 1, validate.MAX_COUNT)
    if isinstance(prefixes, (str, bytes)) or not isinstance(prefixes, (list, tuple, np.ndarray)):
        validate.fail("padded_prefixes", "prefixes", "a list of 1-d integer arrays", prefixes,
                      validate.ArgumentTypeError)
    prefixes = [_token_array("padded_prefixes", f"prefixes[{i}]", p) for i, p in enumerate(prefixes)]
    for i, p in enumerate(prefixes):
        if not 1 <= len(p) <= n:
            validate.fail("padded_prefixes", f"prefixes[{i}]", f"a prefix of 1 to {n} tokens (n)", f"{len(p)} tokens")
    validate.memory("padded_prefixes", f"the table (m x n = {len(prefixes) * n:.1e} numbers)", 8.0 * len(prefixes) * n)
    lengths = np.array([len(p) for p in prefixes], dtype=np.int64)
    out = np.zeros((len(prefixes), n), dtype=np.int64)
    for i, p in enumerate(prefixes):
        out[i, :len(p)] = p
    return out, lengths


def _prefix_table(prefixes: list[np.ndarray], n: int):
    Z0, L = padded_prefixes(prefixes, n)
    mask = np.arange(n)[None, :] < L[:, None]
    H0 = np.where(mask, dyck_words.steps(Z0), 0).cumsum(1)[np.arange(len(Z0)), L - 1]  # prefix heights
    return Z0, L, mask, H0


def _greedy(s, table, gamma: float, v: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Greedy completions of every prefix of ``table`` by the closed form for ``s`` (numpy, the
    arithmetic of Eq. (1) with d = 1), the completions of :func:`rule_completion`, and the
    log-probability that sampling would have returned the greedy completion."""
    Z0, L, _, H0 = table
    n = len(s)
    P = np.cumsum(positional_embedding(s, gamma, DYCK_EMBEDDING)[:, 0])
    hs = dyck_words.heights(s)
    Z, h, R, hr = Z0.copy(), H0.copy(), Z0.copy(), H0.copy()
    log_prob = np.zeros(len(Z0))
    for r in range(1, n):  # predict token r (0-based) from the first r tokens
        active = L <= r
        X = (v / r) * (h + P[r - 1])  # Lemma 5.2: logits = [X, -X]
        token = np.where(X > 0, dyck_words.OPEN, dyck_words.CLOSE)
        log_prob += np.where(active, -np.log1p(np.exp(-2 * np.abs(X))), 0.0)
        Z[:, r] = np.where(active, token, Z[:, r])
        h = np.where(active, h + 1 - 2 * token, h)
        gap = hr - hs[r - 1]
        rule = np.where(gap > 0, dyck_words.CLOSE, np.where(gap < 0, dyck_words.OPEN, s[r]))
        R[:, r] = np.where(active, rule, R[:, r])
        hr = np.where(active, hr + 1 - 2 * rule, hr)
    return Z, R, log_prob


def exhaustive_check(N: int, gamma: float = ATTRACTIVE, v: float | None = None, *,
                     words: np.ndarray | None = None, prefixes: list[np.ndarray] | None = None) -> dict:
    """Theorem 4.1 on every pair (training word ``s``, valid prefix ``z``) of D_2N: greedy completion
    by the closed form (vectorised numpy of the arithmetic of :func:`eq1_model`; all words and all
    valid prefixes by default). Returns counts:

    * ``pairs``, ``invalid`` (completions outside D_2N);
    * ``rule_mismatch``: completions that differ from :func:`rule_completion`'s;
    * ``different_height``: pairs whose prefix height differs from ``s``'s at the same length,
      and ``invalid_iff_different_height`` (the repulsive model's failure set is exactly these);
    * ``prefix_pairs``/``memorized``: pairs where ``z`` is a prefix of ``s``, and how many of them
      are completed into ``s`` itself;
    * ``min_log_prob``: the smallest log-probability, over all pairs, that *sampled* decoding
      returns this greedy completion (the theorem promises ``>= log(1 - 2N e^{-N})``).
    """
    owner = "exhaustive_check"
    N = validate.integer(owner, "N", N, 1, dyck_words.MAX_ENUMERATED)
    gamma = _gamma(owner, gamma)
    v = dyck_value(N, gamma) if v is None else _value(owner, v)
    if words is not None:
        words = _dyck_words(owner, "words", words)
        if words.shape[1] != 2 * N:
            validate.fail(owner, "words", f"words of length 2N = {2 * N}", f"shape {words.shape}")
    if prefixes is not None:
        prefixes = _dyck_prefixes(owner, "prefixes", prefixes, N)
    _pairs(owner, dyck_words.catalan(N) if words is None else len(words),
           _prefix_count(N) if prefixes is None else len(prefixes))
    words = dyck_words.all_words(N) if words is None else words
    prefixes = dyck_words.valid_prefixes(N) if prefixes is None else prefixes
    table = _prefix_table(prefixes, 2 * N)
    Z0, L, mask, H0 = table
    out = dict(pairs=0, invalid=0, rule_mismatch=0, different_height=0, invalid_iff_different_height=True,
               prefix_pairs=0, memorized=0, min_log_prob=0.0)
    for s in words:
        Z, R, log_prob = _greedy(s, table, gamma, v)
        valid = dyck_words.is_valid(Z)
        different = H0 != dyck_words.heights(s)[L - 1]
        is_prefix = ((Z0 == s[None, :]) | ~mask).all(1)
        out["pairs"] += len(Z0)
        out["invalid"] += int((~valid).sum())
        out["rule_mismatch"] += int((Z != R).any(1).sum())
        out["different_height"] += int(different.sum())
        out["invalid_iff_different_height"] &= bool(((~valid) == different).all())
        out["prefix_pairs"] += int(is_prefix.sum())
        out["memorized"] += int((Z[is_prefix] == s[None, :]).all(1).sum())
        out["min_log_prob"] = min(out["min_log_prob"], float(log_prob.min()))
    return out


def model_check(words, prefixes: list[np.ndarray], gamma: float = ATTRACTIVE) -> dict:
    """The loaded :class:`~lib.models.DecoderModel` (:func:`dyck_completer`) for each training word,
    greedy on every prefix: how many completions are invalid, and how many differ from the numpy
    arithmetic of :func:`exhaustive_check` (so the exhaustive count speaks for the real model)."""
    words = _dyck_words("model_check", "words", words)
    N = words.shape[1] // 2
    prefixes = _dyck_prefixes("model_check", "prefixes", prefixes, N)
    gamma = _gamma("model_check", gamma)
    _pairs("model_check", len(words), len(prefixes))
    table = _prefix_table(prefixes, 2 * N)
    out = dict(pairs=0, invalid=0, differ_from_numpy=0)
    for s in words:
        Z = complete(dyck_completer(s, gamma), prefixes, N, greedy=True)
        reference, _, _ = _greedy(s, table, gamma, dyck_value(N, gamma))
        out["pairs"] += len(Z)
        out["invalid"] += int((~dyck_words.is_valid(Z)).sum())
        out["differ_from_numpy"] += int((Z != reference).any(1).sum())
    return out


def completion_bound(N: int) -> float:
    """Theorem 4.1's probability that a completion is valid (or, for a prefix of ``s``, equals ``s``):
    at least ``1 - 2N e^{-N}``."""
    N = validate.integer("completion_bound", "N", N, 1, validate.MAX_COUNT)
    return 1.0 - 2 * N * math.exp(-N)


def loss_bound(N: int) -> float:
    """Theorem 4.1's loss bound ``8 N^2 e^{-N}``."""
    N = validate.integer("loss_bound", "N", N, 1, validate.MAX_COUNT)
    return 8 * N**2 * math.exp(-N)


def complete(model, prefixes, N: int, *, greedy: bool = False, seed: int = 0) -> np.ndarray:
    """Completions of ``prefixes`` into words of length 2N by ``model`` (see :func:`generate`)."""
    _model("complete", model)
    N = validate.integer("complete", "N", N, 1, validate.MAX_COUNT)
    if 2 * N > model.config.max_len:
        validate.fail("complete", "N", f"at most {model.config.max_len // 2} (the model's context is "
                      f"{model.config.max_len} tokens)", N)
    validate.boolean("complete", "greedy", greedy)
    validate.seed("complete", "seed", seed)
    if isinstance(prefixes, (str, bytes)) or not isinstance(prefixes, (list, tuple, np.ndarray)):
        validate.fail("complete", "prefixes", "a list of 1-d integer arrays", prefixes, validate.ArgumentTypeError)
    if len(prefixes) == 0:
        validate.fail("complete", "prefixes", "a non-empty list of prefixes", prefixes)
    t = _vocab(model)
    for i, p in enumerate(prefixes):
        _tokens("complete", f"prefixes[{i}]", p, t)
    return generate(model, prefixes, 2 * N, greedy=greedy, seed=seed)


# ----------------------------------------------------------------------------- Claim 5.3
def claim53_model(N: int, v: float | None = None):
    """Claim 5.3: no positional embedding, ``E = [1 - 1/(2N + 1), -1]``, uniform attention and
    ``v < -2N^2 (2N + 1)`` (default ``-(2N^2 (2N + 1) + 1)``): three weights. It closes the stack,
    then writes ``()()...``."""
    N = validate.integer("claim53_model", "N", N, 1, validate.MAX_COUNT)
    if v is not None:
        v = validate.real("claim53_model", "v", v, below=-2 * N**2 * (2 * N + 1))
    v = -(2 * N**2 * (2 * N + 1) + 1) if v is None else v
    E = np.array([[1.0 - 1.0 / (2 * N + 1)], [-1.0]])
    return eq1_model(E, 2 * N, v, positions=False)


# ----------------------------------------------------------------------------- Figure 2
def path_picture(s, prefix, gamma: float = ATTRACTIVE, *, greedy: bool = True, seed: int = 0) -> dict:
    """Figure 2's four paths against the position r = 1 .. 2N: the training word's heights
    ``Delta_r(s)``, the cumulative positional embedding ``P_r = -Delta_r(s) + gamma E_{s_{r+1}}``,
    the prefix's heights and the completion's heights (by the loaded model)."""
    s = _dyck_word("path_picture", "s", s)
    N = len(s) // 2
    prefix = _dyck_prefix("path_picture", "prefix", prefix, N)
    gamma = _gamma("path_picture", gamma)
    validate.boolean("path_picture", "greedy", greedy)
    validate.seed("path_picture", "seed", seed)
    model = dyck_completer(s, gamma)
    completion = complete(model, [np.asarray(prefix)], N, greedy=greedy, seed=seed)[0]
    return {"r": np.arange(1, 2 * N + 1), "word": dyck_words.heights(s),
            "positional": np.cumsum(model.get_weight("W_pos").numpy()[:, 0]),
            "prefix": dyck_words.heights(np.asarray(prefix)), "completion": dyck_words.heights(completion),
            "completion_word": completion}
