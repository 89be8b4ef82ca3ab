"""The lower bounds of Bhattamishra et al. (2024), made numerical.

The bounds are communication arguments: a model of a given size yields a protocol with few
bits, and the task needs many. Each function here computes one side of such an argument
exactly, on instances small enough to enumerate:

* :func:`fixed_point`: App. B.2's p-bit numbers (a grid of step 2^-f, rounded down);
* :func:`one_layer_protocol` (Theorem 4, App. D): Alice and Bob hold any partition of the
  positions; exchanging the query, the local maxima, the local softmax sums and the local
  weighted value sums, they compute a one-layer multi-head softmax attention output *exactly*,
  with ``d p + H (2p + 2(p + log N) + 2 m 2p)`` bits (:func:`protocol_bits`), counted from the
  messages sent; the paper's total ``3m(p + log N)H`` is below its own step 4 (an erratum,
  :func:`paper_protocol_bits`);
* :func:`dyck_communication_matrix` (Lemma 1): ``M[a, b] = 1[interleave(a, b) in Dyck-(2,2)]``
  for Alice's odd and Bob's even positions (or a prefix/suffix split); its rank is a lower bound
  on the deterministic communication (log-rank), and under the odd/even split each row has at
  most one 1 (the members form a fooling set of size 2^(N-1));
* :func:`residual_classes` (Lemma 4, Theorem 11): the Myhill-Nerode classes of a Boolean
  function after t symbols, a lower bound on the states of any automaton for it;
* :func:`linear_state_mse` (the rank argument for linear recurrences): a linear RNN's state
  is ``M x`` with ``rank M <= m``, and the best affine read-out of the N input bits from it has
  mean squared error ``(N - rank M) / (4N)`` per bit, zero iff ``rank M = N``;
* :func:`index_accuracy_bound` (the information bound behind Theorem 3): any ``b``-bit message
  about uniform ``x in {0,1}^N`` lets Bob guess a uniformly chosen bit with probability at most
  ``1 - h^-1(1 - b/N)`` (Fano), which tends to 1/2 as N grows at fixed b;
* :func:`implied_width`: the smallest width each bound allows at length N and precision p.
"""
from __future__ import annotations

import itertools
import math

import numpy as np
import torch

from ... import validate
from ...tasks.dyck import is_member


# ----------------------------------------------------------------------------- precision
def uniform_quantize(t: torch.Tensor, bits: int, bound: float) -> torch.Tensor:
    """``t`` clipped to [-bound, bound] and rounded to the nearest of ``2^bits`` evenly spaced levels:
    a state of m numbers sent this way costs ``m * bits`` bits."""
    validate.instance("uniform_quantize", "t", t, torch.Tensor)
    bits = validate.integer("uniform_quantize", "bits", bits, minimum=1, maximum=52)
    validate.real("uniform_quantize", "bound", bound, above=0.0)
    levels = 2**bits - 1
    return torch.round((t.clamp(-bound, bound) + bound) / (2 * bound) * levels) / levels * 2 * bound - bound


def fixed_point(x, frac_bits: int = 12) -> np.ndarray:
    """``x`` rounded *down* to the grid of step ``2^-frac_bits`` (App. B.2)."""
    frac_bits = validate.integer("fixed_point", "frac_bits", frac_bits, minimum=1, maximum=40)
    validate.array("fixed_point", "x", x)
    return np.floor(np.asarray(x, dtype=np.float64) * 2.0**frac_bits) / 2.0**frac_bits


def attention_heads(model) -> tuple[list[np.ndarray], list[np.ndarray], list[np.ndarray]]:
    """The query, key and value matrices (``d x m``) of every head of a one-layer attention model
    (``qk="factored"``), with the model's score scale folded into the queries."""
    from ...models import AttentionModel
    validate.instance("attention_heads", "model", model, AttentionModel)
    if model.config.n_layers != 1 or model.config.qk != "factored":
        raise ValueError("attention_heads: needs a one-layer model with factored query/key weights")
    attn = model.layers[0].attn
    W_Q = attn.W_Q.detach().double().numpy() * attn.scale
    return list(W_Q), list(attn.W_K.detach().double().numpy()), list(attn.W_V.detach().double().numpy())


def _inputs(owner: str, X, heads) -> None:
    """``X``: a finite (N x d) array with N >= 1; ``heads``: three equally long lists of finite
    matrices, (d x m) queries and keys and (d x m_v) values (as :func:`attention_heads` gives)."""
    X = validate.array(owner, "X", X, ndim=2)
    if X.shape[0] < 1 or X.shape[1] < 1:
        validate.fail(owner, "X", "an (N x d) array with N, d >= 1", f"shape {X.shape}")
    if isinstance(heads, (str, bytes)) or not isinstance(heads, (list, tuple)) or len(heads) != 3:
        validate.fail(owner, "heads", "the (queries, keys, values) lists of attention_heads", heads,
                      validate.ArgumentTypeError)
    if not len(heads[0]) or not len(heads[0]) == len(heads[1]) == len(heads[2]):
        validate.fail(owner, "heads", "three equally long, non-empty lists (one matrix per head in each)",
                      f"lengths {[len(h) for h in heads]}")
    for name, mats in zip(("queries", "keys", "values"), heads):
        for i, W in enumerate(mats):
            W = validate.array(owner, f"heads ({name}[{i}])", W, ndim=2)
            if W.shape[0] != X.shape[1]:
                validate.fail(owner, f"heads ({name}[{i}])", f"a matrix with d = {X.shape[1]} rows", f"shape {W.shape}")


def one_layer_direct(X: np.ndarray, heads, frac_bits: int = 24) -> np.ndarray:
    """Every head's output at the last position, computed on one machine in fixed point:
    logits, max-subtracted exponentials, normalised weights and the weighted values, each
    rounded (App. D's softmax)."""
    _inputs("one_layer_direct", X, heads)
    frac_bits = validate.integer("one_layer_direct", "frac_bits", frac_bits, minimum=1, maximum=40)
    q = lambda v: fixed_point(v, frac_bits)  # noqa: E731
    out = []
    for W_Q, W_K, W_V in zip(*heads):
        logits = q(q(X @ W_K) @ q(X[-1] @ W_Q))
        e = q(np.exp(logits - logits.max()))
        weights = q(e / e.sum())
        out.append(q(weights @ q(X @ W_V)))
    return np.concatenate(out)


def one_layer_protocol(X: np.ndarray, heads, alice, frac_bits: int = 24, transcript: bool = False):
    """Theorem 4's protocol. Alice holds the rows ``alice`` (which must include the last, the
    query), Bob the rest. Returns every head's output at the last position as Bob computes it,
    and the bits exchanged, counted from the messages actually sent: each message is an array of
    numbers with a declared width (``p = frac_bits + 24`` bits for a fixed-point number, ``p +
    ceil(log2 N)`` for a sum of N exponentials, ``2p`` for a weighted value sum), and the count is
    the sum over messages of (numbers sent) x (width). With ``transcript=True`` also returns the
    messages, as ``(step, sender, array, width)`` tuples (see :func:`message_fits`)."""
    _inputs("one_layer_protocol", X, heads)
    frac_bits = validate.integer("one_layer_protocol", "frac_bits", frac_bits, minimum=1, maximum=40)
    if isinstance(alice, (set, frozenset)):
        alice = sorted(alice)
    validate.integers("one_layer_protocol", "alice", alice, minimum=0)
    if max(int(i) for i in alice) >= len(X):
        validate.fail("one_layer_protocol", "alice", f"positions in [0, {len(X)})", alice)
    q = lambda v: fixed_point(v, frac_bits)  # noqa: E731
    N, d = X.shape
    alice = sorted(set(int(i) for i in alice))
    if N - 1 not in alice:
        raise ValueError("one_layer_protocol: Alice must hold the last position (the query)")
    bob = [i for i in range(N) if i not in alice]
    p = frac_bits + 24
    sides = ("Alice", "Bob")
    messages = [("1 query token", "Alice", np.asarray(X[-1], dtype=np.float64), p)]
    out = []
    for W_Q, W_K, W_V in zip(*heads):
        query = q(X[-1] @ W_Q)
        local = [q(q(X[side] @ W_K) @ query) for side in (alice, bob)]
        maxima = [part.max() if part.size else -np.inf for part in local]
        messages += [("2 local maximum", who, np.array([mx]), p) for who, mx, part in zip(sides, maxima, local)
                     if part.size]
        top = max(maxima)
        exps = [q(np.exp(part - top)) for part in local]
        sums = [e.sum() for e in exps]
        messages += [("3 local sum of exponentials", who, np.array([z]), p + math.ceil(math.log2(N)))
                     for who, z in zip(sides, sums)]
        total = sums[0] + sums[1]
        values = [q(X[side] @ W_V) for side in (alice, bob)]
        partial = [q(e / total) @ v for e, v in zip(exps, values)]
        messages += [("4 weighted value sum", who, u, 2 * p) for who, u in zip(sides, partial)]
        out.append(q(partial[0] + partial[1]))
    bits = sum(int(np.asarray(msg).size) * width for _, _, msg, width in messages)
    return (np.concatenate(out), bits, messages) if transcript else (np.concatenate(out), bits)


def message_fits(value, width: int, frac_bits: int = 24, extra_frac: int = 0) -> bool:
    """Whether every number of ``value`` is exactly a signed fixed-point number of ``width`` bits
    with ``frac_bits + extra_frac`` fractional bits (a sign bit, the integer bits, the fraction):
    the width a protocol message declares is then enough to send it exactly."""
    validate.integer("message_fits", "width", width, minimum=2)
    f = frac_bits + extra_frac
    scaled = np.asarray(value, dtype=np.float64) * 2.0**f
    return bool(np.all(scaled == np.round(scaled)) and np.all(np.abs(scaled) < 2.0 ** (width - 1)))


def protocol_bits(d: int, m: int, heads: int, n: int, p: int) -> int:
    """The bits :func:`one_layer_protocol` sends, derived step by step from App. D: the query
    (``d p``), then for each head the two local maxima (``2p``), the two local sums of
    exponentials (``2(p + ceil(log2 N))``) and the two weighted value sums of m numbers at 2p bits
    (``4 m p``): ``d p + H (4(m + 1) p + 2 ceil(log2 N))``. With the paper's ``d = m`` this is at
    most ``(5m + 4) H (p + log N)``: step 4 alone is 4mp, more than the paper's total
    ``3m(p + log N)H`` (:func:`paper_protocol_bits`) once p >= 3 log N (an erratum)."""
    for name, value in (("d", d), ("m", m), ("heads", heads), ("n", n), ("p", p)):
        validate.integer("protocol_bits", name, value, minimum=1)
    return d * p + heads * (4 * (m + 1) * p + 2 * math.ceil(math.log2(n)))


def paper_protocol_bits(m: int, heads: int, n: int, p: int) -> float:
    """The paper's count for Theorem 4 (App. D), ``3 m (p + log2 N) H``: below what its own four
    steps send (step 4 alone is 4mp bits)."""
    for name, value in (("m", m), ("heads", heads), ("n", n), ("p", p)):
        validate.integer("paper_protocol_bits", name, value, minimum=1)
    return 3 * m * (p + math.log2(n)) * heads


# ----------------------------------------------------------------------------- Dyck, Lemma 1
def dyck_communication_matrix(length: int, split: str = "odd_even", depth: int = 2) -> np.ndarray:
    """``M[a, b] = 1[the string with Alice's symbols a and Bob's symbols b is in Dyck-(2, depth)]``
    over all ``4^(N/2)`` halves each: Alice holds the odd positions (1st, 3rd, ...) and Bob the
    even ones (``split="odd_even"``), or Alice the first half (``"prefix_suffix"``)."""
    length = validate.integer("dyck_communication_matrix", "length", length, minimum=2, maximum=10)
    validate.choice("dyck_communication_matrix", "split", split, ("odd_even", "prefix_suffix"))
    validate.integer("dyck_communication_matrix", "depth", depth, minimum=1)
    if length % 2:
        raise ValueError(f"dyck_communication_matrix: length must be even, got {length}")
    half = list(itertools.product(range(4), repeat=length // 2))
    M = np.zeros((len(half), len(half)), dtype=np.int64)
    for i, a in enumerate(half):
        for j, b in enumerate(half):
            s = [t for pair in zip(a, b) for t in pair] if split == "odd_even" else list(a) + list(b)
            M[i, j] = is_member(s, depth)
    return M


# ----------------------------------------------------------------------------- Myhill-Nerode
def residual_classes(f, n: int, t: int) -> int:
    """The number of distinct residual functions ``s -> f(prefix + s)`` over binary prefixes of
    length ``t`` (suffixes of length ``n - t``): a lower bound on the states of any automaton
    computing ``f`` on ``{0,1}^n`` (Myhill-Nerode)."""
    if not callable(f):
        validate.fail("residual_classes", "f", "a function of a tuple of bits", f, validate.ArgumentTypeError)
    n = validate.integer("residual_classes", "n", n, minimum=1, maximum=20)
    t = validate.integer("residual_classes", "t", t, minimum=0, maximum=n)
    suffixes = list(itertools.product((0, 1), repeat=n - t))
    return len({tuple(f(prefix + s) for s in suffixes) for prefix in itertools.product((0, 1), repeat=t)})


def inequality(x) -> int:
    """INEQ of a tuple of bits: 1 iff its two halves differ."""
    if not isinstance(x, (tuple, list, np.ndarray, torch.Tensor)):
        validate.fail("inequality", "x", "a tuple of bits", x, validate.ArgumentTypeError)
    if len(x) % 2:
        validate.fail("inequality", "x", "a tuple of bits of even length (two halves)", x)
    h = len(x) // 2
    return int(tuple(x[:h]) != tuple(x[h:]))


# ----------------------------------------------------------------------------- linear RNNs
def linear_state_mse(n: int, m: int, seed: int = 0) -> tuple[float, int]:
    """A random linear recurrence ``h_t = A h_{t-1} + B x_t`` (state width ``m``) over N input
    bits ends in ``h_N = M x`` with ``M = [A^(N-1) B, ..., B]``. For uniform bits (covariance I/4)
    the best affine read-out of ``x`` from ``h_N`` leaves the error ``(I - P)/4``, P the projection
    onto M's row space: mean squared error ``(N - rank M) / (4N)`` per bit. Returns it and the
    rank (exact, from the singular values)."""
    n = validate.integer("linear_state_mse", "n", n, minimum=1, maximum=validate.MAX_COUNT)
    m = validate.integer("linear_state_mse", "m", m, minimum=1, maximum=validate.MAX_COUNT)
    validate.seed("linear_state_mse", "seed", seed)
    validate.memory("linear_state_mse", f"the matrices (about 4 n^2 + m n + m^2 = {4 * n * n + m * n + m * m:.1e} "
                    "numbers)", 8.0 * (4 * n * n + m * n + m * m))
    rng = np.random.default_rng(seed)
    A = rng.standard_normal((m, m)) / math.sqrt(m)
    A /= max(1.0, float(np.abs(np.linalg.eigvals(A)).max()) * 1.01)  # a stable recurrence
    B = rng.standard_normal((m, 1))
    cols, v = [], B[:, 0]
    for _ in range(n):
        cols.append(v)
        v = A @ v
    M = np.stack(cols[::-1], axis=1)  # column t: A^(N-1-t) B
    rank = int(np.linalg.matrix_rank(M, tol=1e-10 * np.abs(M).max()))
    P = M.T @ np.linalg.pinv(M.T, rcond=1e-10)  # projection onto the row space of M
    mse = float(np.trace(np.eye(n) - P)) / (4 * n)
    return mse, rank


# ----------------------------------------------------------------------------- information
def binary_entropy(p: float) -> float:
    """``h(p) = -p log2 p - (1 - p) log2 (1 - p)`` for a probability ``p`` in [0, 1] (0 at both ends)."""
    validate.real("binary_entropy", "p", p, minimum=0.0, maximum=1.0)
    return 0.0 if p <= 0.0 or p >= 1.0 else -p * math.log2(p) - (1 - p) * math.log2(1 - p)


def index_accuracy_bound(bits: float, n: int) -> float:
    """The best average accuracy at reading bit ``x_p`` (p uniform) of a uniform ``x in {0,1}^N``
    from a ``bits``-bit message: ``1 - h^-1(1 - bits/N)`` (Fano's inequality with the chain rule;
    1 once ``bits >= N``)."""
    validate.real("index_accuracy_bound", "bits", bits, minimum=0.0)
    validate.real("index_accuracy_bound", "n", n, minimum=1.0)
    if bits >= n:
        return 1.0
    target, lo, hi = 1.0 - bits / n, 0.0, 0.5
    for _ in range(100):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if binary_entropy(mid) < target else (lo, mid)
    return 1.0 - lo


# ----------------------------------------------------------------------------- implied widths
def implied_width(bound: str, n: int, p: int, heads: int = 1) -> float:
    """The smallest width a lower bound allows at length ``n`` and ``p`` bits per number:
    ``"rnn_index"`` m >= N/p (Theorem 3), ``"rnn_equality"`` m >= N/(2p) (Theorem 11),
    ``"tf1_dyck"`` Theorem 5 with the protocol's true count (:func:`protocol_bits` with ``d = m``
    and log2 N for ceil(log2 N)): ``m p + H(4(m + 1) p + 2 log2 N) >= N - 1``, i.e.
    ``m >= (N - 1 - H(4p + 2 log2 N)) / (p (1 + 4H))`` (0 where that is negative), and
    ``"tf1_dyck_paper"`` the paper's ``m >= (N - 1) / (3 H (p + log2 N))`` (from its erratum
    count :func:`paper_protocol_bits`)."""
    validate.choice("implied_width", "bound", bound, ("rnn_index", "rnn_equality", "tf1_dyck", "tf1_dyck_paper"))
    validate.real("implied_width", "n", n, minimum=1.0)
    validate.real("implied_width", "p", p, above=0.0)
    validate.integer("implied_width", "heads", heads, minimum=1)
    if bound == "rnn_index":
        return n / p
    if bound == "rnn_equality":
        return n / (2 * p)
    if bound == "tf1_dyck":
        return max(0.0, (n - 1 - heads * (4 * p + 2 * math.log2(n))) / (p * (1 + 4 * heads)))
    return (n - 1) / (3 * heads * (p + math.log2(n)))


def random_attention(d: int, m: int, heads: int, seed: int = 0):
    """A random one-layer, ``heads``-head softmax attention of the library's stack (vector
    inputs of size d, head size m), for the Theorem 4 protocol."""
    for name, value in (("d", d), ("m", m), ("heads", heads)):
        validate.integer("random_attention", name, value, minimum=1, maximum=validate.MAX_COUNT)
    validate.seed("random_attention", "seed", seed)
    from ...models import AttentionConfig, build_model
    config = AttentionConfig(d_model=d, n_out=1, n_heads=heads, d_head=m, d_value=m, input="vectors",
                             input_dim=d, embedding="identity", max_len=4096)
    return build_model(config, seed=seed, dtype=torch.float64)


# ----------------------------------------------------------------------------- Theorem 8, Prop. 9
def recall_protocol(a: torch.Tensor, model, task) -> torch.Tensor:
    """The reductions behind Theorem 8 and Proposition 9, run with a nearest-neighbour ``model``
    (e.g. Theorem 7's construction) on a :class:`lib.tasks.NearestNeighbour` ``task`` with
    ``mqar=True`` and ``n_points = 2 len(a)``: Alice writes her bits ``a`` as labels of
    pre-agreed distinct hypercube keys ``(v_i, a_i)``; Bob then queries every ``v_i`` in turn,
    writing the model's own answer as the label that follows each query. Returns Bob's
    recovered bits (a recurrent model would carry Alice's half in its state: one message).
    With them Bob computes INDEX (Proposition 9: one query) or DISJ(a, b) (Theorem 8)."""
    from ...tasks import NearestNeighbour
    validate.instance("recall_protocol", "a", a, torch.Tensor)
    validate.instance("recall_protocol", "task", task, NearestNeighbour)
    if a.dim() != 1 or not len(a) or not bool(((a == 0) | (a == 1)).all()):
        validate.fail("recall_protocol", "a", "a non-empty 1-D tensor of bits (0 or 1)", a)
    if not callable(model):
        validate.fail("recall_protocol", "model", "a model (callable on encoded inputs)", model, validate.ArgumentTypeError)
    n = len(a)
    if task.n_points != 2 * n or task.n_context != n or not task.mqar:
        raise ValueError("recall_protocol: the task must be MQAR with n_context = len(a) and n_points = 2 len(a)")
    codes = torch.arange(n)  # pre-agreed keys: the first n points of the hypercube
    keys = ((codes[:, None] >> torch.arange(task.dim)) & 1).double() * 2 - 1
    keys = keys / keys.norm(dim=-1, keepdim=True)
    x = torch.cat([keys, keys])[None]  # Bob queries the keys in the same order
    labels = torch.cat([a.long(), torch.zeros(n, dtype=torch.long)])[None]
    for t in range(n, 2 * n):  # one query at a time, feeding back the model's answer
        logits = model(task.encode(x, labels).x)
        labels[0, t] = logits[0, 2 * t].argmax()
    return labels[0, n:]
