"""Closed-form transformers of Bhattamishra et al. (2024), loaded into the library's attention
stack (:class:`lib.models.AttentionModel`), the module that training uses.

Theorem 1 (App. C.2): one layer of width ``b + 2k`` (``b = ceil(log2 |Σ|)``, ``k = O(log N)``)
does index lookup for every length up to N. Address vectors ``T(1..N)`` are nearly orthogonal
(:mod:`.near_orthogonal`). Embeddings: a symbol ``s`` is ``[rho(s), 0, 0]`` (its binary code),
the index token ``@p`` is ``[0, T(p), 0]``, position ``i`` adds ``[0, 0, T(i)]``, and the pad
token (:class:`lib.tasks.VariableLengthIndexLookup`) is 0. The query of the last token is
``eta T(p)``, the keys are ``T(i)``, so the logit is ``eta`` at ``i = p`` and at most
``eta * threshold`` elsewhere; with ``eta`` from :func:`.near_orthogonal.temperature` the
attention puts >= 3/4 on ``s_p``, whose code the value reads. The averaged code ``z`` has
entries >= 3/4 on 1-bits and <= 1/4 on 0-bits; the ReLU MLP ``relu(2z - 1/2) - relu(2z - 3/2)``
rounds it to the exact bits (and subtracts ``z = relu(z)``), and the read-out counts agreeing
bits, ``W_U[:, c] = 2 rho(c) - 1``, ``b_U[c] = b - |rho(c)|``, largest (= b) at ``c = s_p`` only.
"""
from __future__ import annotations

import math

import numpy as np
import torch

from ... import validate
from ...models import AttentionConfig, AttentionModel, build_model
from ...tasks import Batch, NearestNeighbour, PairFunction, VariableLengthIndexLookup
from .near_orthogonal import nearly_orthogonal, temperature


def binary_codes(n_symbols: int) -> np.ndarray:
    """``rho``: row ``s`` is the ``ceil(log2 n)``-bit binary code of symbol ``s`` (low bit first)."""
    n_symbols = validate.integer("binary_codes", "n_symbols", n_symbols, minimum=1, maximum=validate.MAX_COUNT)
    b = max(1, math.ceil(math.log2(n_symbols)))
    return ((np.arange(n_symbols)[:, None] >> np.arange(b)[None, :]) & 1).astype(np.float64)


def index_lookup_config(task: VariableLengthIndexLookup, k: int) -> AttentionConfig:
    """Theorem 1's model for a task: one causal softmax layer, width ``b + 2k``, a ReLU MLP of
    ``3b`` units, learned token and position tables, read-out with a bias at the last token."""
    validate.instance("index_lookup_config", "task", task, VariableLengthIndexLookup)
    k = validate.integer("index_lookup_config", "k", k, minimum=1, maximum=validate.MAX_COUNT)
    b = binary_codes(task.n_symbols).shape[1]
    return AttentionConfig(d_model=b + 2 * k, n_out=task.n_symbols, n_layers=1, n_heads=1, d_head=k, d_value=b,
                           attention="softmax", qk="factored", attn_scale=1.0, combine="project", residual=True,
                           d_mlp=3 * b, mlp_activation="relu", input="tokens", vocab_size=len(task.vocab),
                           embedding="learned", positions="learned", max_len=task.seq_len, causal=True,
                           readout="last", readout_bias=True)


def _weights_memory(owner: str, n_numbers: int) -> None:
    """Refuse, before any weight is written, float64 weight tables of about ``n_numbers`` numbers
    beyond the memory cap (the model they are loaded into is checked by ``build_model``)."""
    validate.memory(owner, f"the weight tables (about {n_numbers:.1e} float64 numbers)", 8.0 * n_numbers)


def index_lookup(task: VariableLengthIndexLookup, k: int, threshold: float = 0.5, seed: int = 0,
                 dtype: torch.dtype = torch.float64) -> AttentionModel:
    """Theorem 1's transformer for ``task`` with ``k``-dimensional addresses whose off-diagonal
    inner products are <= ``threshold`` (drawn from ``seed``); eta puts >= 3/4 on the target
    among the ``N + 1`` keys."""
    validate.instance("index_lookup", "task", task, VariableLengthIndexLookup)
    k = validate.integer("index_lookup", "k", k, minimum=1, maximum=validate.MAX_COUNT)
    validate.real("index_lookup", "threshold", threshold, above=0.0, below=1.0)
    validate.seed("index_lookup", "seed", seed)
    validate.dtype("index_lookup", "dtype", dtype)
    _weights_memory("index_lookup", (task.length + task.n_symbols + 2) * (2 * k + 64) + 2 * (2 * k + 64) * k)
    N, S = task.length, task.n_symbols
    rho = binary_codes(S)
    b = rho.shape[1]
    T = nearly_orthogonal(N, k, threshold, seed)
    eta = temperature(N + 1, threshold)
    config = index_lookup_config(task, k)
    d = config.d_model
    tokens, codes, addresses = slice(0, b), slice(b, b + k), slice(b + k, b + 2 * k)
    W_E = np.zeros((len(task.vocab), d))
    W_E[:S, tokens] = rho
    W_E[S:S + N, codes] = T  # @p -> T(p); the pad (last row) stays 0
    W_pos = np.zeros((N + 1, d))
    W_pos[:N, addresses] = T  # the index token's own position (N) adds nothing
    W_Q = np.zeros((1, d, k))
    W_Q[0, codes] = eta * np.eye(k)
    W_K = np.zeros((1, d, k))
    W_K[0, addresses] = np.eye(k)
    W_V = np.zeros((1, d, b))
    W_V[0, tokens] = np.eye(b)
    W_O = np.zeros((1, b, d))
    W_O[0, :, tokens] = np.eye(b)
    # MLP: units j, b + j, 2b + j read z_j; out_j = relu(2z - 1/2) - relu(2z - 3/2) - relu(z)
    W_in = np.zeros((d, 3 * b))
    b_in = np.zeros(3 * b)
    for j in range(b):
        W_in[j, j], b_in[j] = 2.0, -0.5
        W_in[j, b + j], b_in[b + j] = 2.0, -1.5
        W_in[j, 2 * b + j] = 1.0
    W_out = np.zeros((3 * b, d))
    for j in range(b):
        W_out[j, j], W_out[b + j, j], W_out[2 * b + j, j] = 1.0, -1.0, -1.0
    W_U = np.zeros((d, S))
    W_U[tokens] = (2 * rho - 1).T
    b_U = b - rho.sum(1)
    weights = {"W_E": W_E, "W_pos": W_pos, "layers.0.attn.W_Q": W_Q, "layers.0.attn.W_K": W_K,
               "layers.0.attn.W_V": W_V, "layers.0.attn.W_O": W_O, "layers.0.mlp.W_in": W_in,
               "layers.0.mlp.b_in": b_in, "layers.0.mlp.W_out": W_out, "layers.0.mlp.b_out": np.zeros(d),
               "W_U": W_U, "b_U": b_U}
    model = build_model(config, dtype=dtype).set_weights({n: torch.from_numpy(v) for n, v in weights.items()})
    model.eta, model.addresses = eta, T
    return model


def index_lookup_worst_cases(task: VariableLengthIndexLookup, positions=None) -> Batch:
    """For every query ``p`` (or those in ``positions``, 1-based) the inputs where every bit of the
    target is the opposite of every other symbol's (symbol 0 at p among copies of the all-ones
    symbol and vice versa, at full length): the attention leak then pulls every bit of the
    average towards the wrong side."""
    validate.instance("index_lookup_worst_cases", "task", task, VariableLengthIndexLookup)
    if positions is not None:
        validate.integers("index_lookup_worst_cases", "positions",
                          positions.tolist() if isinstance(positions, torch.Tensor) else positions)
    N, S = task.length, task.n_symbols
    queries = torch.arange(N) if positions is None else torch.as_tensor(positions, dtype=torch.long) - 1
    if queries.numel() == 0 or int(queries.min()) < 0 or int(queries.max()) >= N:
        raise ValueError(f"index_lookup_worst_cases: positions must lie in [1, {N}]")
    high = (1 << binary_codes(S).shape[1]) - 1
    high = high if high < S else S - 1
    xs, ys = [], []
    for target, other in ((0, high), (high, 0)):
        x = torch.full((len(queries), N + 1), other, dtype=torch.long)
        x[torch.arange(len(queries)), queries] = target
        x[:, -1] = task.n_symbols + queries
        xs.append(x)
        ys.append(torch.full((len(queries),), target, dtype=torch.long))
    return Batch(torch.cat(xs), torch.cat(ys))


# ----------------------------------------------------------------------------- Theorem 6
#: Theorem 6's residual stream: the bit, the partner's copied bit, T(i), T(partner(i)), a constant
#: 1, the XOR of the two bits, the layer-2 mean of the XORs and the answer
EQ_SLOTS = ("bit", "copied", "address", "partner", "one", "xor", "mean", "answer")


def inequality_config(task: PairFunction, k: int) -> AttentionConfig:
    """Theorem 6's model: two causal softmax layers of one head, width ``2k + 6``, ReLU MLPs of 4
    and 2 units, learned token and position tables, read-out with a bias at the last token."""
    validate.instance("inequality_config", "task", task, PairFunction)
    k = validate.integer("inequality_config", "k", k, minimum=1, maximum=validate.MAX_COUNT)
    return AttentionConfig(d_model=2 * k + 6, n_out=2, n_layers=2, n_heads=1, d_head=k + 1, d_value=1,
                           attention="softmax", qk="factored", attn_scale=1.0, combine="project", residual=True,
                           d_mlp=4, mlp_activation="relu", input="tokens", vocab_size=2, embedding="learned",
                           positions="learned", max_len=task.seq_len, causal=True, readout="last", readout_bias=True)


def inequality(task: PairFunction, k: int, threshold: float = 0.5, seed: int = 0,
               dtype: torch.dtype = torch.float64, alice=None) -> AttentionModel:
    """Theorem 6 (App. F.2): a 2-layer transformer of width O(log N) computing INEQ(a, b) =
    1[a != b] for ``x = (a, b) in {0,1}^N`` (class 1: the halves differ).

    Layer 1: position i attends to its partner i' (i' = i in the first half, i - N/2 in the second;
    query ``eta [T(i'), 1]``, key ``[T(j), -1/2]``: logit ``eta/2`` at j = i', at most
    ``eta (threshold - 1/2)`` elsewhere) and copies its bit; the MLP writes
    ``xor = relu(2δ-1/2) + relu(-2δ-1/2) - relu(2δ-3/2) - relu(-2δ-3/2)`` for ``δ = bit - copied``,
    exactly 0 or 1 once the copy is within 1/4 (exact zeros matter: layer 2 sums N of them).
    Layer 2: zero queries make attention uniform, so the last position reads the mean of the
    XORs, m = (#mismatches)/N; its MLP writes ``relu(N m) - relu(N m - 1)``, 1 iff some position
    differs; the read-out compares it with 1/2.

    ``alice`` (Lemma 5): any N/2 positions (0-based); the model then compares Alice's positions,
    in order, with the other half's, 1[x_{S_A} != x_{S_B}] (the task's labels hold for the
    default split into halves only).
    """
    validate.instance("inequality", "task", task, PairFunction)
    if task.function != "ineq":
        raise ValueError(f"inequality: the task must compute 'ineq', got {task.function!r}")
    k = validate.integer("inequality", "k", k, minimum=1, maximum=validate.MAX_COUNT)
    validate.real("inequality", "threshold", threshold, above=0.0, below=1.0)
    validate.seed("inequality", "seed", seed)
    validate.dtype("inequality", "dtype", dtype)
    _weights_memory("inequality", (task.seq_len + 8) * (2 * k + 6) + 4 * (2 * k + 6) * (k + 1))
    if alice is not None:
        validate.integers("inequality", "alice", alice)
    N, h = task.seq_len, task.half_length
    T = nearly_orthogonal(N, k, threshold, seed)
    eta = temperature(N, threshold)  # the partner wins by eta (1 - threshold) = ln 3N: weight >= 3/4
    config = inequality_config(task, k)
    d = config.d_model
    bit, copied, one, xor, mean, answer = 0, 1, 2 + 2 * k, 3 + 2 * k, 4 + 2 * k, 5 + 2 * k
    address, partner = slice(2, 2 + k), slice(2 + k, 2 + 2 * k)
    if alice is None:
        partner_of = np.array([i if i < h else i - h for i in range(N)])
    else:
        first = sorted(int(i) for i in alice)
        second = [i for i in range(N) if i not in set(first)]
        if len(first) != h or len(set(first)) != h or not all(0 <= i < N for i in first):
            raise ValueError(f"inequality: alice must be {h} distinct positions in [0, {N})")
        partner_of = np.arange(N)
        for a, b in zip(first, second):
            partner_of[max(a, b)] = min(a, b)  # the later of a pair attends to the earlier (causal)
    W_E = np.zeros((2, d))
    W_E[1, bit] = 1.0
    W_pos = np.zeros((N, d))
    W_pos[:, address], W_pos[:, partner], W_pos[:, one] = T, T[partner_of], 1.0
    w = {"W_E": W_E, "W_pos": W_pos}
    # layer 1: attend to the partner, copy its bit
    Q = np.zeros((1, d, k + 1)); Q[0, partner, :k] = eta * np.eye(k); Q[0, one, k] = eta
    K = np.zeros((1, d, k + 1)); K[0, address, :k] = np.eye(k); K[0, one, k] = -0.5
    V = np.zeros((1, d, 1)); V[0, bit, 0] = 1.0
    O = np.zeros((1, 1, d)); O[0, 0, copied] = 1.0
    W_in = np.zeros((d, 4)); W_in[bit] = [2, -2, 2, -2]; W_in[copied] = [-2, 2, -2, 2]
    b_in = np.array([-0.5, -0.5, -1.5, -1.5])
    W_out = np.zeros((4, d)); W_out[:, xor] = [1, 1, -1, -1]
    w.update({"layers.0.attn.W_Q": Q, "layers.0.attn.W_K": K, "layers.0.attn.W_V": V, "layers.0.attn.W_O": O,
              "layers.0.mlp.W_in": W_in, "layers.0.mlp.b_in": b_in, "layers.0.mlp.W_out": W_out,
              "layers.0.mlp.b_out": np.zeros(d)})
    # layer 2: uniform attention (zero queries) averages the XORs; the MLP thresholds at 1/N
    V2 = np.zeros((1, d, 1)); V2[0, xor, 0] = 1.0
    O2 = np.zeros((1, 1, d)); O2[0, 0, mean] = 1.0
    W_in2 = np.zeros((d, 4)); W_in2[mean, :2] = N
    b_in2 = np.array([0.0, -1.0, 0.0, 0.0])
    W_out2 = np.zeros((4, d)); W_out2[0, answer], W_out2[1, answer] = 1.0, -1.0
    w.update({"layers.1.attn.W_Q": np.zeros((1, d, k + 1)), "layers.1.attn.W_K": np.zeros((1, d, k + 1)),
              "layers.1.attn.W_V": V2, "layers.1.attn.W_O": O2, "layers.1.mlp.W_in": W_in2,
              "layers.1.mlp.b_in": b_in2, "layers.1.mlp.W_out": W_out2, "layers.1.mlp.b_out": np.zeros(d)})
    W_U = np.zeros((d, 2)); W_U[answer, 1] = 1.0
    w.update({"W_U": W_U, "b_U": np.array([0.5, 0.0])})
    model = build_model(config, dtype=dtype).set_weights({n: torch.from_numpy(v) for n, v in w.items()})
    model.eta, model.addresses = eta, T
    return model


@torch.no_grad()
def weight_on_target(model: AttentionModel, task: VariableLengthIndexLookup, batch: Batch) -> torch.Tensor:
    """The attention weight that Theorem 1's model puts on the queried position ``p``, read from
    the model's own layer for the last token only (the full pattern of long inputs would not fit
    in memory)."""
    validate.instance("weight_on_target", "model", model, AttentionModel)
    validate.instance("weight_on_target", "task", task, VariableLengthIndexLookup)
    validate.instance("weight_on_target", "batch", batch, Batch)
    h = model.embed(batch.x.to(model.W_U.device))
    allowed = model.allowed(h.shape[1], h.device)[-1:]
    weights = model.layers[0].attn.pattern(h, allowed, queries=h[:, -1:])[:, 0, 0]  # (B, n)
    return weights.gather(1, (batch.x[:, -1:] - task.n_symbols).to(h.device))[:, 0].cpu()


# ----------------------------------------------------------------------------- Theorem 13
def bos_inputs(batch: Batch) -> Batch:
    """A :class:`lib.tasks.PairFunction` batch with the beginning-of-sequence token (id 2) first,
    as Theorem 13's construction reads it."""
    validate.instance("bos_inputs", "batch", batch, Batch)
    return Batch(torch.cat([torch.full((len(batch), 1), 2, dtype=batch.x.dtype), batch.x], dim=1), batch.y)


def sparse_threshold(n_bits: int, index_sets, g, b: int, k: int, threshold: float = 0.5, seed: int = 0,
                     dtype: torch.dtype = torch.float64) -> AttentionModel:
    """Theorem 13 (App. F.3) for features of two bits: a 2-layer, 2-head transformer of width
    ``3k + 7`` computing ``f(x) = 1[sum_i g(x_{I_i^1}, x_{I_i^2}) > b]`` on ``BOS x_1 ... x_N``.

    ``index_sets[i]`` lists the (1-based) positions that feature i reads (at most two; missing
    ones read the BOS token, whose bit is 0); ``g`` is a 2x2 table with ``g[0][0] = 0``. Head h of
    layer 1 queries the address of position ``I_i^h`` (``eta T(I_i^h)`` against keys ``T(j)``) and
    copies that bit; the MLP rounds the two copies to exact bits ``a, c`` and writes
    ``g(a, c) = (g10) a + (g01) c + (g11 - g10 - g01) AND(a, c)``, with
    ``AND = relu(4s - 5) - relu(4s - 6)`` of the raw sum s of the copies (exact once each copy is
    within 1/4). Layer 2 averages the features uniformly (zero queries) over the N + 1 tokens; its
    MLP outputs ``relu(S - b) - relu(S - b - 1)`` for the integer sum S. NOT-DISJ is g = AND,
    I_i = {i, i + N/2}; INEQ is g = XOR on the same sets.
    """
    n_bits = validate.integer("sparse_threshold", "n_bits", n_bits, minimum=1)
    k = validate.integer("sparse_threshold", "k", k, minimum=1, maximum=validate.MAX_COUNT)
    validate.real("sparse_threshold", "b", b)
    validate.real("sparse_threshold", "threshold", threshold, above=0.0, below=1.0)
    validate.seed("sparse_threshold", "seed", seed)
    validate.dtype("sparse_threshold", "dtype", dtype)
    _weights_memory("sparse_threshold", (n_bits + 4) * (3 * k + 7) + 8 * (3 * k + 7) * k)
    validate.array("sparse_threshold", "g", g)
    if isinstance(index_sets, (str, bytes)) or not hasattr(index_sets, "__iter__"):
        validate.fail("sparse_threshold", "index_sets", "a list of position tuples", index_sets,
                      validate.ArgumentTypeError)
    g = np.asarray(g, dtype=np.float64)
    if g.shape != (2, 2) or g[0, 0] != 0:
        raise ValueError("sparse_threshold: g must be a 2x2 table with g[0][0] = 0 (complement f otherwise)")
    sets = [tuple(s) for s in index_sets]
    if len(sets) > n_bits + 1 or any(len(s) > 2 or any(not 1 <= int(p) <= n_bits for p in s) for s in sets):
        raise ValueError(f"sparse_threshold: at most {n_bits + 1} index sets of at most 2 positions in [1, {n_bits}]")
    n = n_bits + 1  # BOS + bits
    reads = np.zeros((n, 2), dtype=int)  # position 0 (BOS) and unused features read the BOS
    for i, s in enumerate(sets):
        reads[1 + i if i < n_bits else 0, : len(s)] = s
    T = nearly_orthogonal(n, k, threshold, seed)
    eta = temperature(n, threshold)
    d = 3 * k + 7
    own, first, second = slice(0, k), slice(k, 2 * k), slice(2 * k, 3 * k)
    bit, r1, r2, feat, mean, answer, one = 3 * k, 3 * k + 1, 3 * k + 2, 3 * k + 3, 3 * k + 4, 3 * k + 5, 3 * k + 6
    config = AttentionConfig(d_model=d, n_out=2, n_layers=2, n_heads=2, d_head=k, d_value=1, attention="softmax",
                             qk="factored", attn_scale=1.0, combine="project", residual=True, d_mlp=6,
                             mlp_activation="relu", input="tokens", vocab_size=3, embedding="learned",
                             positions="learned", max_len=n, causal=False, readout="last", readout_bias=True)
    W_E = np.zeros((3, d)); W_E[1, bit] = 1.0
    W_pos = np.zeros((n, d))
    W_pos[:, own], W_pos[:, first], W_pos[:, second], W_pos[:, one] = T, T[reads[:, 0]], T[reads[:, 1]], 1.0
    Q = np.zeros((2, d, k)); Q[0, first] = eta * np.eye(k); Q[1, second] = eta * np.eye(k)
    K = np.zeros((2, d, k)); K[0, own] = np.eye(k); K[1, own] = np.eye(k)
    V = np.zeros((2, d, 1)); V[:, bit, 0] = 1.0
    O = np.zeros((2, 1, d)); O[0, 0, r1] = 1.0; O[1, 0, r2] = 1.0
    # units: a = u0 - u1, c = u2 - u3, AND = u4 - u5
    W_in = np.zeros((d, 6)); W_in[r1, :2] = 2.0; W_in[r2, 2:4] = 2.0; W_in[r1, 4:] = 4.0; W_in[r2, 4:] = 4.0
    b_in = np.array([-0.5, -1.5, -0.5, -1.5, -5.0, -6.0])
    coef = np.array([g[1, 0], g[0, 1], g[1, 1] - g[1, 0] - g[0, 1]])
    W_out = np.zeros((6, d)); W_out[:, feat] = np.repeat(coef, 2) * np.tile([1.0, -1.0], 3)
    V2 = np.zeros((2, d, 1)); V2[0, feat, 0] = 1.0
    O2 = np.zeros((2, 1, d)); O2[0, 0, mean] = 1.0
    W_in2 = np.zeros((d, 6)); W_in2[mean, :2] = n
    b_in2 = np.array([-float(b), -float(b) - 1.0, 0, 0, 0, 0])
    W_out2 = np.zeros((6, d)); W_out2[0, answer], W_out2[1, answer] = 1.0, -1.0
    W_U = np.zeros((d, 2)); W_U[answer, 1] = 1.0
    w = {"W_E": W_E, "W_pos": W_pos, "layers.0.attn.W_Q": Q, "layers.0.attn.W_K": K, "layers.0.attn.W_V": V,
         "layers.0.attn.W_O": O, "layers.0.mlp.W_in": W_in, "layers.0.mlp.b_in": b_in, "layers.0.mlp.W_out": W_out,
         "layers.0.mlp.b_out": np.zeros(d), "layers.1.attn.W_Q": np.zeros((2, d, k)),
         "layers.1.attn.W_K": np.zeros((2, d, k)), "layers.1.attn.W_V": V2, "layers.1.attn.W_O": O2,
         "layers.1.mlp.W_in": W_in2, "layers.1.mlp.b_in": b_in2, "layers.1.mlp.W_out": W_out2,
         "layers.1.mlp.b_out": np.zeros(d), "W_U": W_U, "b_U": np.array([0.5, 0.0])}
    model = build_model(config, dtype=dtype).set_weights({name: torch.from_numpy(v) for name, v in w.items()})
    model.eta, model.addresses = eta, T
    return model


def pair_sets(half_length: int) -> list[tuple[int, int]]:
    """The index sets ``I_i = {i, i + N/2}`` of NOT-DISJ and INEQ as thresholds of 2-sparse features."""
    half_length = validate.integer("pair_sets", "half_length", half_length, minimum=1, maximum=validate.MAX_COUNT)
    return [(i, i + half_length) for i in range(1, half_length + 1)]


AND = ((0, 0), (0, 1))
XOR = ((0, 1), (1, 0))


def hadamard_addresses(n: int) -> np.ndarray:
    """``n`` exactly orthogonal sign vectors: rows of the Sylvester-Hadamard matrix of the
    smallest power-of-2 size >= n, scaled to unit norm."""
    n = validate.integer("hadamard_addresses", "n", n, minimum=1)
    size = 1 << (n - 1).bit_length()
    validate.memory("hadamard_addresses", f"the Hadamard matrix ({size} x {size} = {size * size:.1e} numbers, "
                    "about three copies)", 24.0 * size * size)
    H = np.ones((1, 1))
    while H.shape[0] < n:
        H = np.block([[H, H], [H, -H]])
    return H[:n] / math.sqrt(H.shape[0])


def near_disjoint_pairs(half_length: int, n: int, seed: int = 0) -> Batch:
    """Binding inputs for DISJ: disjoint halves, and the same halves with exactly one common
    position added (alternately), so every 1 rests on a single feature."""
    half_length = validate.integer("near_disjoint_pairs", "half_length", half_length, minimum=1,
                                   maximum=validate.MAX_COUNT)
    n = validate.integer("near_disjoint_pairs", "n", n, minimum=1, maximum=validate.MAX_COUNT)
    validate.seed("near_disjoint_pairs", "seed", seed)
    validate.memory("near_disjoint_pairs", f"the pairs (n x 2 half_length = {2 * n * half_length:.1e} numbers, "
                    "several copies)", 8.0 * 8 * n * half_length)
    generator = torch.Generator().manual_seed(seed)
    a = (torch.rand(n, half_length, generator=generator) < 0.3).long()
    b = (torch.rand(n, half_length, generator=generator) < 0.5).long() * (1 - a)
    common = torch.randint(half_length, (n,), generator=generator)
    one = torch.arange(n) % 2 == 1
    a[one, common[one]] = 1
    b[one, common[one]] = 1
    return Batch(torch.cat([a, b], 1), (a * b).sum(1).gt(0).long())


# ----------------------------------------------------------------------------- Theorem 7
def nearest_neighbour(task: NearestNeighbour, gamma: float, addresses: np.ndarray | None = None, c1: float = 10.0,
                      k: int | None = None, seed: int = 0, dtype: torch.dtype = torch.float64) -> AttentionModel:
    """Theorem 7 (App. G.2): a 2-layer transformer that labels every later input of a
    :class:`lib.tasks.NearestNeighbour` sequence by its nearest earlier input (margin ``gamma``).

    Positions t = 0 .. 2n-1; input tokens ``[x, 0, 1]`` sit at even t, label tokens ``[0, y, 0]`` at
    odd t. The stream holds x, the label, a kind coordinate c (+1 on inputs, -2 on labels), the
    address T(t), the address T(label) of the label that follows (its own for a label token), the
    layer-1 read-out r and its clipped copy. Layer 1 (causal) scores
    ``eta1 (<x_t, x_j> + 3 c_j - c1 <T(t), T(j)>)``: earlier inputs get ``<x_t, x_j> + 3``, the query
    itself ``4 - c1``, labels about -6, so the nearest neighbour wins by gamma (with
    ``eta1 = (5 / (4 gamma)) ln(18 N)``, > 9/10 of the weight); the value ``2 T_s(label)`` (signs of
    the label's address) is clipped by the MLP ``relu(u + 1) - relu(u - 1) - 1`` to exactly
    ``T_s(label of j*)``. Layer 2 queries that address (``eta2 T_s / sqrt(k)``, the paper's 1/k is a
    typo) against the keys T(t) and reads the label. Paper inconsistencies fixed as the reading
    notes list them: the constant is +3 (the text also says +2) and the label key is -6 (-2.3
    in one formula).

    ``addresses`` (2n x k sign vectors) default to rows of a Hadamard matrix (k = the power of 2
    >= 2n: exactly orthogonal); random sign vectors (:func:`.near_orthogonal.sign_vectors`) give
    the O(log N) width at the cost of a 1/gamma^2 factor (the self-exclusion term must not
    disturb a gamma-margin).
    """
    validate.instance("nearest_neighbour", "task", task, NearestNeighbour)
    gamma = validate.real("nearest_neighbour", "gamma", gamma, above=0.0)
    validate.real("nearest_neighbour", "c1", c1)
    if k is not None:
        validate.integer("nearest_neighbour", "k", k, minimum=1)
    validate.seed("nearest_neighbour", "seed", seed)
    validate.dtype("nearest_neighbour", "dtype", dtype)
    if addresses is not None:
        validate.array("nearest_neighbour", "addresses", addresses, ndim=2)
    L, dim = task.seq_len, task.dim
    T = hadamard_addresses(L) if addresses is None else np.asarray(addresses, dtype=np.float64)
    if T.shape[0] != L:
        raise ValueError(f"nearest_neighbour: need {L} addresses (one per position), got {T.shape[0]}")
    k = T.shape[1]
    _d, _e = dim + 3 + 4 * k, dim + 1 + k
    _weights_memory("nearest_neighbour", L * _d + 4 * _d * _e + 12 * _d * k)
    signs = 1.0 / math.sqrt(k)  # T = T_s / sqrt(k) for sign vectors
    eta1 = 5.0 / (4.0 * gamma) * math.log(18 * L)
    eta2 = 4.0 * math.log(18 * L)
    x_, y_, c_ = slice(0, dim), dim, dim + 1
    own, label, r, clipped = (slice(dim + 2 + i * k, dim + 2 + (i + 1) * k) for i in range(4))
    out = dim + 2 + 4 * k
    d = out + 1
    config = AttentionConfig(d_model=d, n_out=2, n_layers=2, n_heads=1, d_head=dim + 1 + k, d_value=k,
                             attention="softmax", qk="factored", attn_scale=1.0, combine="project", residual=True,
                             d_mlp=2 * k, mlp_activation="relu", input="vectors", input_dim=dim + 2,
                             embedding="linear", positions="learned", max_len=L, causal=True, readout="all",
                             readout_bias=True)
    W_in = np.zeros((dim + 2, d)); W_in[:dim, x_] = np.eye(dim); W_in[dim, y_] = 1.0; W_in[dim + 1, c_] = 3.0
    b_in = np.zeros(d); b_in[c_] = -2.0
    label_of = np.arange(L) | 1  # the label position that follows (itself for a label)
    W_pos = np.zeros((L, d)); W_pos[:, own] = T; W_pos[:, label] = T[label_of]
    e = dim + 1 + k
    Q = np.zeros((1, d, e)); Q[0, x_, :dim] = eta1 * np.eye(dim); Q[0, c_, dim] = eta1  # c = 1 at a query
    Q[0, own, dim + 1:] = -c1 * eta1 * np.eye(k)
    K = np.zeros((1, d, e)); K[0, x_, :dim] = np.eye(dim); K[0, c_, dim] = 3.0; K[0, own, dim + 1:] = np.eye(k)
    V = np.zeros((1, d, k)); V[0, label] = 2.0 / signs * np.eye(k)
    O = np.zeros((1, k, d)); O[0, :, r] = np.eye(k)
    M_in = np.zeros((d, 2 * k)); M_in[r, :k] = np.eye(k); M_in[r, k:] = np.eye(k)
    M_b = np.concatenate([np.ones(k), -np.ones(k)])
    M_out = np.zeros((2 * k, d)); M_out[:k, clipped] = np.eye(k); M_out[k:, clipped] = -np.eye(k)
    M_bout = np.zeros(d); M_bout[clipped] = -1.0
    Q2 = np.zeros((1, d, e)); Q2[0, clipped, :k] = eta2 * signs * np.eye(k)
    K2 = np.zeros((1, d, e)); K2[0, own, :k] = np.eye(k)
    V2 = np.zeros((1, d, k)); V2[0, y_, 0] = 1.0
    O2 = np.zeros((1, k, d)); O2[0, 0, out] = 1.0
    W_U = np.zeros((d, 2)); W_U[out, 1] = 1.0
    b_U = np.array([0.5, 0.0])  # class 1 iff the retrieved label > 1/2
    w = {"W_in": W_in, "b_in": b_in, "W_pos": W_pos, "layers.0.attn.W_Q": Q, "layers.0.attn.W_K": K,
         "layers.0.attn.W_V": V, "layers.0.attn.W_O": O, "layers.0.mlp.W_in": M_in, "layers.0.mlp.b_in": M_b,
         "layers.0.mlp.W_out": M_out, "layers.0.mlp.b_out": M_bout, "layers.1.attn.W_Q": Q2,
         "layers.1.attn.W_K": K2, "layers.1.attn.W_V": V2, "layers.1.attn.W_O": O2,
         "layers.1.mlp.W_in": np.zeros((d, 2 * k)), "layers.1.mlp.b_in": np.zeros(2 * k),
         "layers.1.mlp.W_out": np.zeros((2 * k, d)), "layers.1.mlp.b_out": np.zeros(d), "W_U": W_U, "b_U": b_U}
    model = build_model(config, dtype=dtype).set_weights({name: torch.from_numpy(v) for name, v in w.items()})
    model.eta = (eta1, eta2)
    return model
