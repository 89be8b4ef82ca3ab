"""Theorem 1 of Mahdavi, Liao & Thrampoulidis (2024), built: one multi-head attention layer
that memorizes T = H(r - 1) + 1 examples with any labels, r = min(n, d_h).

The layer (eqs. 1-6), for a query ``e`` and context ``E`` (rows e_1..e_n):

    alpha_h = E W_K,h W_Q,h^T e,  theta_h = softmax(alpha_h),  z_h = E^T theta_h,
    p_h = W_V,h^T z_h,  o = W_O^T [p_1; ...; p_H] (+ e with the skip connection),  y = W_D^T o.

It is the shared :class:`~lib.models.AttentionModel` with vector inputs (identity embedding,
no positions), one layer, ``combine="project"``, unscaled softmax scores, the query at
position 0 masked from itself and read out there (:func:`model_config`). :func:`check_theorem_1`
builds the weights for a dataset and reports every property the proof promises; the tests and the
chapter both call it.

The proof (Appendix B) in two steps, both implemented here in float64:

1. **Prop. 1** (:func:`attention_weights`): key/query weights with rank(Z) = T, where row t of
   ``Z in R^{T x Hd}`` stacks ``z_1..z_H`` of example t. Head 1 sets the softmax of r
   examples exactly (Claim 1: logits ``alpha* = E beta``, ``beta = W* e``). Each later head h
   sets the softmax of r - 1 new examples exactly with ``W*`` and *saturates* every earlier
   example with ``c W+``: ``W+`` is rank one, zero on the new queries and gives distinct
   logits elsewhere (Lemma 3), so for large c the softmax of the earlier examples is one-hot
   and independent of ``W*`` (Lemma 4). The target logits are drawn at random, which is
   generic (the paper picks them row by row to avoid a span). ``c`` is chosen so that the
   gap between the two largest saturated logits exceeds the spread of the ``W*`` logits by
   ``gap`` nats.
2. **Step 2** (:func:`solve_values`): with Z of full row rank, solve ``Z W_V = [Y | 0]`` and
   set ``W_O`` to H stacked rectangular identities, ``W_D = I_{d x d_out}`` (eq. 8).
   With the skip connection (Appendix C) the labels are shifted by the query's first
   ``d_out`` coordinates first.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import torch

from ... import validate
from ...models import AttentionConfig, AttentionModel, build_model
from ...tasks import Batch
from ...tasks.random_labels import contexts, queries


# ----------------------------------------------------------------------------- the layer
def model_config(dim: int, context_size: int, n_heads: int, d_head: int, d_value: int = 1, d_out: int = 1,
                 skip: bool = False) -> AttentionConfig:
    """The layer of eqs. (1)-(6) as a configuration of the shared model."""
    for name, value in (("dim", dim), ("context_size", context_size), ("n_heads", n_heads), ("d_head", d_head),
                        ("d_value", d_value), ("d_out", d_out)):
        validate.integer("model_config", name, value, minimum=1)
    validate.boolean("model_config", "skip", skip)
    return AttentionConfig(d_model=dim, n_out=d_out, n_layers=1, n_heads=n_heads, d_head=d_head, d_value=d_value,
                       attention="softmax", attn_scale=1.0, combine="project", residual=skip, input="vectors",
                       input_dim=dim, embedding="identity", positions="none", max_len=context_size + 1,
                       masked_keys=(0,), readout="first")


def paper_param_count(dim: int, n_heads: int, d_head: int, d_value: int, d_out: int) -> int:
    """The count stated after Theorem 1, ``2 H d d_h + H d d_v + d d_out``. It leaves out
    ``W_O`` (``H d_v d`` numbers), which the proof fixes to stacked identities; the model's own
    count (``AttentionModel.n_params``) includes it."""
    for name, value in (("dim", dim), ("n_heads", n_heads), ("d_head", d_head), ("d_value", d_value), ("d_out", d_out)):
        validate.integer("paper_param_count", name, value, minimum=1)
    return 2 * n_heads * dim * d_head + n_heads * dim * d_value + dim * d_out


def softmax(a: np.ndarray) -> np.ndarray:
    """Softmax over the last axis of a finite array (an empty last axis is refused)."""
    a = validate.array("softmax", "a", a)
    if a.ndim == 0 or a.shape[-1] == 0:
        validate.fail("softmax", "a", "an array with a non-empty last axis", f"shape {a.shape}")
    a = a - a.max(-1, keepdims=True)
    e = np.exp(a)
    return e / e.sum(-1, keepdims=True)


def _contexts(E: np.ndarray, T: int) -> np.ndarray:
    E = np.asarray(E, dtype=np.float64)
    return np.broadcast_to(E, (T,) + E.shape) if E.ndim == 2 else E


def _queries_contexts(owner: str, q, E) -> tuple[np.ndarray, np.ndarray]:
    """Queries ``(T, d)`` and contexts ``(T, n, d)`` or a shared ``(n, d)``, finite and non-empty."""
    q = validate.array(owner, "q", q, ndim=2)
    T, d = q.shape
    if T == 0 or d == 0:
        validate.fail(owner, "q", "at least one query of dimension >= 1", f"shape {q.shape}")
    E = validate.array(owner, "E", E, ndim=(2, 3))
    if E.shape[-1] != d or E.shape[-2] == 0 or (E.ndim == 3 and len(E) != T):
        validate.fail(owner, "E", f"a shared context (n, {d}) or one per example ({T}, n, {d}), n >= 1", f"shape {E.shape}")
    return q, _contexts(E, T)


def head_outputs(E, q, W) -> tuple[np.ndarray, np.ndarray]:
    """Eqs. (1)-(3) in numpy: ``Z (T, H d)`` and the softmax ``theta (T, H, n)`` for
    queries ``q (T, d)``, contexts ``E (T, n, d)`` or shared ``(n, d)`` and per-head
    ``W[h] = W_K,h W_Q,h^T`` (H, d, d)."""
    q, E = _queries_contexts("head_outputs", q, E)
    W = validate.array("head_outputs", "W", W, ndim=3)
    if W.shape[1:] != (q.shape[1], q.shape[1]):
        validate.fail("head_outputs", "W", f"per-head matrices (H, {q.shape[1]}, {q.shape[1]})", f"shape {W.shape}")
    logits = np.einsum("tnd,hde,te->thn", E, np.asarray(W, dtype=np.float64), q, optimize=True)
    theta = softmax(logits)
    Z = np.einsum("thn,tnd->thd", theta, E)
    return Z.reshape(len(q), -1), theta


# ----------------------------------------------------------------------------- step 1
def factor(W: np.ndarray, d_head: int, rtol: float = 1e-12) -> tuple[np.ndarray, np.ndarray]:
    """``W = W_K W_Q^T`` with ``W_K, W_Q in R^{d x d_head}`` (SVD; needs rank(W) <= d_head)."""
    W = validate.array("factor", "W", W, ndim=2)
    if W.shape[0] != W.shape[1] or W.size == 0:
        validate.fail("factor", "W", "a non-empty square matrix", f"shape {W.shape}")
    validate.integer("factor", "d_head", d_head, minimum=1)
    validate.real("factor", "rtol", rtol, minimum=0.0, below=1.0)
    U, s, Vt = np.linalg.svd(W)
    k = int((s > rtol * max(s[0], 1e-300)).sum())
    if k > d_head:
        raise ValueError(f"factor: W has rank {k} > d_head = {d_head}")
    W_K, W_Q = np.zeros((W.shape[0], d_head)), np.zeros((W.shape[0], d_head))
    W_K[:, :k] = U[:, :k] * np.sqrt(s[:k])
    W_Q[:, :k] = Vt[:k].T * np.sqrt(s[:k])
    return W_K, W_Q


def saturating_direction(q_new: np.ndarray, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Lemma 3: ``W+ = c u^T`` (returned as ``(c, u)``) with u orthogonal to the new queries
    (columns of ``q_new``, d x m), so ``E W+ e = 0`` on them, and random c, so the logits
    ``(E c)(u . e)`` of every other query with a component outside their span are distinct."""
    q_new = validate.array("saturating_direction", "q_new", q_new, ndim=2)
    validate.instance("saturating_direction", "rng", rng, np.random.Generator)
    d = q_new.shape[0]
    if d == 0 or q_new.shape[1] >= d:
        validate.fail("saturating_direction", "q_new", "d x m queries with 1 <= d and m < d (a direction orthogonal to "
                      "them must exist)", f"shape {q_new.shape}")
    g = rng.standard_normal(d)
    u = g - q_new @ np.linalg.lstsq(q_new, g, rcond=None)[0] if q_new.size else g
    return rng.standard_normal(d), u / np.linalg.norm(u)


@dataclass
class AttentionWeights:
    """Step 1's result: per-head ``W_K, W_Q`` (H, d, d_h), each head's group of examples and
    saturation constant c (0 for head 1), and the parts ``W*`` and ``W+`` of each head."""

    W_K: np.ndarray
    W_Q: np.ndarray
    groups: list[np.ndarray]
    c: list[float]
    W_star: list[np.ndarray] = field(repr=False)
    W_plus: list[np.ndarray] = field(repr=False)

    @property
    def W(self) -> np.ndarray:
        """``W_K,h W_Q,h^T`` per head, (H, d, d)."""
        return np.einsum("hdk,hek->hde", self.W_K, self.W_Q)

    def owner(self, T: int) -> np.ndarray:
        """The head responsible for each example (-1 for none)."""
        validate.integer("AttentionWeights.owner", "T", T, minimum=max((int(g.max()) + 1 for g in self.groups if len(g)),
                                                                       default=0), maximum=validate.MAX_ELEMENTS)
        own = np.full(T, -1)
        for h, g in enumerate(self.groups):
            own[g] = h
        return own


def fit_logits(E: np.ndarray, q: np.ndarray, alpha: np.ndarray) -> np.ndarray:
    """Claim 1: ``W*`` (d x d) whose logits ``E^(t) W* e^(t)`` are the chosen ``alpha^(t)`` for
    every example t given, so its softmax coefficients are any chosen vectors. Exact when each
    context ``E^(t)`` (n x d, n < d) has rank n (Assumption 2) and the m <= d queries are
    linearly independent: ``beta^(t) = E^(t)+ alpha^(t)``, then ``W* = beta q^+``."""
    q = validate.array("fit_logits", "q", q, ndim=2)
    E = validate.array("fit_logits", "E", E, ndim=3)
    alpha = validate.array("fit_logits", "alpha", alpha, ndim=2)
    if len(q) == 0 or E.shape[0] != len(q) or E.shape[2] != q.shape[1]:
        validate.fail("fit_logits", "E", f"one context (n, {q.shape[1]}) per query ({len(q)})", f"shape {E.shape}")
    if alpha.shape != E.shape[:2]:
        validate.fail("fit_logits", "alpha", f"one logit per context token, shape {E.shape[:2]}", f"shape {alpha.shape}")
    beta = np.einsum("tdn,tn->dt", np.linalg.pinv(E), alpha)  # E^(t) beta^(t) = alpha^(t)
    return beta @ np.linalg.pinv(q.T)  # W* e^(t) = beta^(t)


def attention_weights(E, q, n_heads: int, d_head: int, seed: int = 0, gap: float = 40.0) -> AttentionWeights:
    """Prop. 1: key/query weights of ``n_heads`` heads of size ``d_head`` with
    rank(Z) = min(T, H(r - 1) + 1), r = min(n, d_head), under Assumptions 1 and 2."""
    owner = "attention_weights"
    q, E = _queries_contexts(owner, q, E)
    validate.integer(owner, "n_heads", n_heads, minimum=1, maximum=validate.MAX_COUNT)
    validate.integer(owner, "d_head", d_head, minimum=1, maximum=validate.MAX_COUNT)
    validate.seed(owner, "seed", seed)
    validate.real(owner, "gap", gap, above=0.0)
    T, d = q.shape
    n = E.shape[1]
    if n >= d:
        raise ValueError(f"attention_weights: Theorem 1 needs n < d (got n={n}, d={d})")
    r = min(n, d_head)
    rng = np.random.default_rng(seed)
    W_K, W_Q, groups, cs, stars, pluses = [], [], [], [], [], []
    start = 0
    for h in range(n_heads):
        m = min(r if h == 0 else r - 1, T - start)
        R, P = np.arange(start, start + m), np.arange(0, start)
        start += m
        W_star = np.zeros((d, d))
        if m:
            W_star = fit_logits(E[R], q[R], rng.standard_normal((m, n)))  # generic target logits (Claim 1)
        W, c, W_plus = W_star, 0.0, np.zeros((d, d))
        if len(P) and h > 0:
            cvec, u = saturating_direction(q[R].T, rng)
            W_plus = np.outer(cvec, u)
            plus_logits = np.einsum("tnd,d->tn", E[P], cvec) * (q[P] @ u)[:, None]
            top2 = np.sort(plus_logits, 1)[:, -2:]
            min_gap = (top2[:, 1] - top2[:, 0]).min()
            star_logits = np.einsum("tnd,de,te->tn", E[P], W_star, q[P], optimize=True)
            spread = (star_logits.max(1) - star_logits.min(1)).max()
            c = (gap + spread) / min_gap  # Lemma 4 at a finite c: one-hot error ~ e^-gap
            W = W_star + c * W_plus
        k, qm = factor(W, d_head)
        W_K.append(k), W_Q.append(qm), groups.append(R), cs.append(float(c)), stars.append(W_star)
        pluses.append(W_plus)
    return AttentionWeights(np.stack(W_K), np.stack(W_Q), groups, cs, stars, pluses)


# ----------------------------------------------------------------------------- step 2
def solve_values(Z: np.ndarray, Y: np.ndarray, n_heads: int, d_value: int):
    """Step 2 (eq. 8): ``W_V`` (H, d, d_v) solving ``Z W_V = [Y | 0]``; ``W_O`` (H, d_v, d) =
    stacked rectangular identities; ``W_D = I_{d x d_out}``."""
    Z = validate.array("solve_values", "Z", Z, ndim=2)
    validate.integer("solve_values", "n_heads", n_heads, minimum=1)
    validate.integer("solve_values", "d_value", d_value, minimum=1)
    if len(Z) == 0 or Z.shape[1] == 0 or Z.shape[1] % n_heads:
        validate.fail("solve_values", "Z", f"a non-empty (T, H d) matrix with H = {n_heads}", f"shape {Z.shape}")
    Y = validate.array("solve_values", "Y", Y, ndim=(1, 2))
    if len(Y) != len(Z):
        validate.fail("solve_values", "Y", f"one label per row of Z ({len(Z)})", f"shape {Y.shape}")
    Y = np.asarray(Y, dtype=np.float64).reshape(len(Z), -1)
    d_out = Y.shape[1]
    d = Z.shape[1] // n_heads
    if not d_out <= d_value <= d:
        raise ValueError(f"solve_values: need d_out <= d_value <= d (got {d_out}, {d_value}, {d})")
    target = np.concatenate([Y, np.zeros((len(Z), d_value - d_out))], 1)
    W_V = np.linalg.lstsq(Z, target, rcond=None)[0].reshape(n_heads, d, d_value)
    W_O = np.stack([np.eye(d_value, d)] * n_heads)
    return W_V, W_O, np.eye(d, d_out)


@dataclass
class Memorizer:
    """Theorem 1's weights for one dataset, with what the proof says about them."""

    config: AttentionConfig
    attention: AttentionWeights
    W_V: np.ndarray
    W_O: np.ndarray
    W_D: np.ndarray
    Z: np.ndarray  # (T, H d)
    theta: np.ndarray  # (T, H, n)

    def weights(self) -> dict[str, np.ndarray]:
        return {"layers.0.attn.W_K": self.attention.W_K, "layers.0.attn.W_Q": self.attention.W_Q,
                "layers.0.attn.W_V": self.W_V, "layers.0.attn.W_O": self.W_O, "W_U": self.W_D}

    def model(self) -> AttentionModel:
        """The shared model (float64) with these weights loaded."""
        return build_model(self.config, dtype=torch.float64).set_weights(self.weights())

    def saturation(self, threshold: float = 1 - 1e-9) -> dict:
        """The proof's pattern: for each example, are all heads *after* its own head saturated
        (max softmax > threshold), and is its own head not?"""
        validate.real("Memorizer.saturation", "threshold", threshold, above=0.0, below=1.0)
        own = self.attention.owner(len(self.Z))
        top = self.theta.max(-1)  # (T, H)
        later = np.array([(top[t, own[t] + 1:] > threshold).all() for t in range(len(top)) if own[t] >= 0])
        own_free = np.array([top[t, own[t]] <= threshold for t in range(len(top)) if own[t] >= 0])
        return {"later_heads_saturated": float(later.mean()), "own_head_unsaturated": float(own_free.mean())}


def memorize(E, q, Y, n_heads: int, d_head: int, d_value: int | None = None, skip: bool = False,
             seed: int = 0, gap: float = 40.0) -> Memorizer:
    """Theorem 1: weights of an H-head layer that map every query ``q[t]`` with context
    ``E[t]`` (or a shared ``E``) to ``Y[t]``, for T <= H(min(n, d_head) - 1) + 1 examples."""
    owner = "memorize"
    q = validate.array(owner, "q", q, ndim=2)
    T, d = q.shape
    E = validate.array(owner, "E", E, ndim=(2, 3))
    if E.shape[-1] != d or (E.ndim == 3 and E.shape[0] != T):
        validate.fail(owner, "E", f"a shared context (n, {d}) or one per example ({T}, n, {d})", f"shape {E.shape}")
    E = _contexts(E, T)
    Y = validate.array(owner, "Y", Y, ndim=(1, 2))
    if Y.shape[0] != T:
        validate.fail(owner, "Y", f"one label per query ({T} rows)", f"shape {Y.shape}")
    Y = Y.reshape(T, -1)
    validate.integer(owner, "n_heads", n_heads, minimum=1)
    validate.integer(owner, "d_head", d_head, minimum=1)
    if d_value is not None:
        validate.integer(owner, "d_value", d_value, minimum=1)
    validate.boolean(owner, "skip", skip)
    validate.integer(owner, "seed", seed, minimum=0)
    validate.real(owner, "gap", gap, above=0.0)
    d_out = Y.shape[1]
    d_value = d_out if d_value is None else d_value
    r = min(E.shape[1], d_head)
    if T > n_heads * (r - 1) + 1:
        raise ValueError(f"memorize: T = {T} exceeds H(r - 1) + 1 = {n_heads * (r - 1) + 1}")
    if skip and d_out > d:
        raise ValueError("memorize: the skip connection needs d_out <= d (Appendix C)")
    attn = attention_weights(E, q, n_heads, d_head, seed, gap)
    Z, theta = head_outputs(E, q, attn.W)
    target = Y - q[:, :d_out] if skip else Y  # Appendix C: the skip adds I_{d_out x d} e back
    W_V, W_O, W_D = solve_values(Z, target, n_heads, d_value)
    config = model_config(d, E.shape[1], n_heads, d_head, d_value, d_out, skip)
    return Memorizer(config, attn, W_V, W_O, W_D, Z, theta)


# ----------------------------------------------------------------------------- probing
@torch.no_grad()
def probe(model: AttentionModel, x: torch.Tensor) -> tuple[np.ndarray, np.ndarray]:
    """``Z (T, H d)`` and the query's softmax ``theta (T, H, n)`` of a one-layer model with the
    query at position 0, from the model's own forward pass (any weights, trained or built)."""
    validate.instance("probe", "model", model, AttentionModel)
    validate.instance("probe", "x", x, torch.Tensor)
    if x.ndim != 3 or x.shape[1] < 2:
        validate.fail("probe", "x", "inputs (T, n + 1, d) with the query first and n >= 1", f"shape {tuple(x.shape)}")
    cache: dict = {}
    model(x.to(next(model.parameters()).dtype), cache=cache)
    theta = cache["layers.0.attn.pattern"][:, :, 0, 1:]  # (T, H, n): the query row, context keys
    stream = cache["embed"][:, 1:]  # (T, n, d): the context tokens the heads average
    Z = torch.einsum("thn,tnd->thd", theta, stream)
    return Z.reshape(len(x), -1).double().cpu().numpy(), theta.double().cpu().numpy()


def rank_bound(n_heads: int, context_size: int, d_head: int | None = None) -> int:
    """H(r - 1) + 1 with r = min(n, d_head): Theorem 1's T, and Prop. 2's cap on rank(Z) under a
    shared context (with d_head omitted)."""
    validate.integer("rank_bound", "n_heads", n_heads, minimum=1)
    validate.integer("rank_bound", "context_size", context_size, minimum=1)
    if d_head is not None:
        validate.integer("rank_bound", "d_head", d_head, minimum=1)
    r = context_size if d_head is None else min(context_size, d_head)
    return n_heads * (r - 1) + 1


# ----------------------------------------------------------------------------- the check
def check_theorem_1(batch: Batch, n_heads: int, d_head: int, d_out: int = 1, d_value: int | None = None,
                    skip: bool = False, seed: int = 0) -> dict:
    """Build Theorem 1's weights for ``batch`` with random real labels ``N(0, 1)`` (drawn from
    ``seed``), load them into the shared model and report, through the model's own forward pass,
    what the proof promises: rank Z = T = H(r-1)+1, every label fitted, rank W_K W_Q^T <= d_h,
    later heads saturated and each example's own head not (see :func:`theorem_1_holds`)."""
    validate.instance("check_theorem_1", "batch", batch, Batch)
    validate.integer("check_theorem_1", "d_out", d_out, minimum=1)
    validate.seed("check_theorem_1", "seed", seed)
    q, E = queries(batch).double().numpy(), contexts(batch).double().numpy()
    Y = np.random.default_rng(seed).standard_normal((len(q), d_out))
    built = memorize(E, q, Y, n_heads, d_head, d_value=d_value, skip=skip, seed=seed)
    model = built.model()
    error = np.abs(model(batch.x.double()).detach().numpy() - Y).max()
    Z, _ = probe(model, batch.x.double())
    s = np.linalg.svd(Z, compute_uv=False)
    return {"T": len(q), "H(r-1)+1": rank_bound(n_heads, E.shape[1], d_head),
            "rank Z": int(np.linalg.matrix_rank(Z)), "cond Z": float(s[0] / s[-1]), "max |y_hat - y|": float(error),
            "max rank W_K W_Q^T": int(max(np.linalg.matrix_rank(W) for W in built.attention.W)),
            **built.saturation()}


def theorem_1_holds(report: dict, d_head: int, tolerance: float = 1e-6) -> bool:
    """Whether a :func:`check_theorem_1` report shows everything Theorem 1's proof promises."""
    validate.instance("theorem_1_holds", "report", report, dict)
    missing = {"rank Z", "T", "H(r-1)+1", "max |y_hat - y|", "max rank W_K W_Q^T", "later_heads_saturated",
               "own_head_unsaturated"} - set(report)
    if missing:
        raise ValueError(f"theorem_1_holds: report must come from check_theorem_1; it lacks {sorted(missing)}")
    validate.integer("theorem_1_holds", "d_head", d_head, minimum=1)
    validate.real("theorem_1_holds", "tolerance", tolerance, above=0.0)
    return (report["rank Z"] == report["T"] == report["H(r-1)+1"] and report["max |y_hat - y|"] < tolerance
            and report["max rank W_K W_Q^T"] <= d_head and report["later_heads_saturated"] == 1.0
            and report["own_head_unsaturated"] == 1.0)
