"""The tables the separation chapters show and check, computed from the constructions, the
lower-bound arguments and the stored training results (moved out of the chapters, issue 30).

Each function builds one table (a ``pandas.DataFrame``) or one small record (a ``dict``) from
explicit sizes, so that a chapter and ``tests/test_bhattamishra2024_checks.py`` compute the same
thing; :mod:`.checks` turns them into verdicts. Nothing here is imported by :mod:`.sweeps`.
"""
from __future__ import annotations

import itertools
import math

import numpy as np
import pandas as pd
import torch

from ... import validate
from ...models import accuracy, predict
from ...results import Result
from ...tasks import BoundedDyck, NearestNeighbour, PairFunction, VariableLengthIndexLookup
from ...tasks.dyck import count_members, dfa, is_member
from . import constructions, lower_bounds, near_orthogonal
from .dyck_rnn import dyck_rnn
from .sweeps import summary


def _counts(owner: str, name: str, values, minimum: int = 1) -> list[int]:
    return validate.integers(owner, name, list(values) if isinstance(values, (tuple, list, range)) else values,
                             minimum=minimum)


def _pairs(owner: str, name: str, values, minimum: int = 1) -> None:
    """A non-empty list of (N, k) pairs of integers >= ``minimum``."""
    if isinstance(values, (str, bytes)) or not hasattr(values, "__len__") or not len(values):
        validate.fail(owner, name, "a non-empty list of (N, k) pairs", values)
    for i, pair in enumerate(values):
        if len(validate.integers(owner, f"{name}[{i}]", pair, minimum=minimum)) != 2:
            validate.fail(owner, f"{name}[{i}]", "an (N, k) pair", pair)


# ----------------------------------------------------------------------------- Lemmas 2 and 3
def k_min_table(ns) -> pd.DataFrame:
    """Lemma 2: the smallest width (grid of 4, two draws) at which ``n`` sign vectors stay below
    the thresholds 1/4 and 1/2, with the lemma's own width at gamma = 1/4. Each scan starts a
    little below the previous length's answer (k_min grows with N)."""
    _counts("k_min_table", "ns", ns, minimum=2)
    rows, previous = [], {0.25: 4, 0.5: 4}
    for n in ns:
        found = {thr: near_orthogonal.k_min(n, thr, start=previous[thr] - 16) for thr in (0.25, 0.5)}
        previous = found
        rows.append({"N": n, "k_min (thr 1/4)": found[0.25],
                     "Lemma 2 width (γ = 1/4)": near_orthogonal.lemma2_width(n, 0.25), "k_min (thr 1/2)": found[0.5]})
    return pd.DataFrame(rows)


def tail_table(cases=((64, 0.25), (64, 0.5), (256, 0.25)), n_vectors: int = 400) -> pd.DataFrame:
    """Hoeffding's tail 2 exp(-k gamma^2 / 4) against the measured fraction of pairs of
    ``n_vectors`` sign vectors whose inner product reaches gamma."""
    validate.integer("tail_table", "n_vectors", n_vectors, minimum=2, maximum=100_000)
    if isinstance(cases, (str, bytes)) or not hasattr(cases, "__len__") or not len(cases):
        validate.fail("tail_table", "cases", "a non-empty list of (k, gamma) pairs", cases)
    for i, case in enumerate(cases):
        if len(case) != 2:
            validate.fail("tail_table", f"cases[{i}]", "a (k, gamma) pair", case)
        validate.integer("tail_table", f"cases[{i}] (k)", case[0], minimum=1)
        validate.real("tail_table", f"cases[{i}] (gamma)", case[1], above=0.0, maximum=1.0)
    rows = []
    for k, gamma in cases:
        T = near_orthogonal.sign_vectors(n_vectors, k, seed=7)
        off = np.abs((T @ T.T)[~np.eye(n_vectors, dtype=bool)])
        rows.append({"k": k, "γ": gamma, "measured P(|<T_i,T_j>| >= γ)": float((off >= gamma).mean()),
                     "bound 2 exp(-kγ²/4)": near_orthogonal.hoeffding_tail(k, gamma)})
    return pd.DataFrame(rows)


def jl_map_table(ks=(64, 256, 1024, 4096), n_points: int = 200, dim: int = 512, seed: int = 3) -> pd.DataFrame:
    """Lemma 3: the worst change of an inner product among ``n_points`` random unit vectors of
    R^dim under random maps x -> Ax/sqrt(k), A in {-1, 1}^(k x dim), against
    eps(k) = sqrt(8 ln(2|Q|) / k)."""
    _counts("jl_map_table", "ks", ks)
    validate.integer("jl_map_table", "n_points", n_points, minimum=1, maximum=100_000)
    validate.integer("jl_map_table", "dim", dim, minimum=1, maximum=validate.MAX_COUNT)
    validate.seed("jl_map_table", "seed", seed)
    rng = np.random.default_rng(seed)
    points = rng.standard_normal((n_points, dim))
    points /= np.linalg.norm(points, axis=1, keepdims=True)
    rows = []
    for k in ks:
        A = rng.choice([-1.0, 1.0], size=(dim, k)) / np.sqrt(k)
        mapped = points @ A
        rows.append({"k": k, "largest |<Ax,Ay> - <x,y>|": float(np.abs(mapped @ mapped.T - points @ points.T).max()),
                     "ε(k)": float(np.sqrt(8 * np.log(2 * n_points) / k))})
    return pd.DataFrame(rows)


# ----------------------------------------------------------------------------- Theorems 1, 6, 13, 7
def theorem_1_table(sizes, n_random: int) -> pd.DataFrame:
    """Theorem 1's model (|Σ| = 64) at each (N, k) of ``sizes``: accuracy on the worst-case inputs
    (every queried position, every 8th beyond N = 1024) in float64, float32 and float16, on
    ``n_random`` random inputs, and the least attention weight on the target."""
    _pairs("theorem_1_table", "sizes", sizes)
    validate.integer("theorem_1_table", "n_random", n_random, minimum=1, maximum=validate.MAX_COUNT)
    rows = []
    for N, k in sizes:
        task = VariableLengthIndexLookup(n_symbols=64, length=N, min_length=10)
        worst = constructions.index_lookup_worst_cases(task, positions=range(1, N + 1, 1 if N <= 1024 else 8))
        row = {"N": N, "k": k}
        for dtype in (torch.float64, torch.float32, torch.float16):
            model = constructions.index_lookup(task, k, dtype=dtype)
            row[f"worst cases {str(dtype)[6:]}"] = accuracy(model, worst)
            if dtype == torch.float64:
                row.update({"width d": model.config.d_model, "η": round(model.eta, 1),
                            "random inputs": accuracy(model, task.sample(n_random, seed=N)),
                            "least weight on p": float(constructions.weight_on_target(model, task, worst[:256]).min())})
        rows.append({**row, "worst-case inputs": len(worst)})
    return pd.DataFrame(rows)


def theorem_6_table(sizes, n_sample: int) -> pd.DataFrame:
    """Theorem 6's INEQ model at each (N, k): errors on every string (N <= 16) or on ``n_sample``
    samples (a third equal, a third one flip apart), on the one-flip pairs, and in float32."""
    _pairs("theorem_6_table", "sizes", sizes)
    validate.integer("theorem_6_table", "n_sample", n_sample, minimum=1, maximum=validate.MAX_COUNT)
    rows = []
    for N, k in sizes:
        task = PairFunction(half_length=N // 2, function="ineq")
        data = task.enumerate() if N <= 16 else task.sample(n_sample, seed=N)
        one_flip = (data.x[:, : N // 2] != data.x[:, N // 2:]).sum(1) == 1
        model = constructions.inequality(task, k)
        correct = predict(model, data.x).argmax(-1) == data.y
        rows.append({"N": N, "width d": model.config.d_model, "inputs": "all 2^N" if N <= 16 else "sample",
                     "examples": len(data), "one-flip pairs": int(one_flip.sum()), "errors": int((~correct).sum()),
                     "errors on one-flip pairs": int((~correct[one_flip]).sum()),
                     "float32 accuracy": accuracy(constructions.inequality(task, k, dtype=torch.float32), data)})
    return pd.DataFrame(rows)


def theorem_13_table(sizes) -> pd.DataFrame:
    """Theorem 13's model for NOT-DISJ (g = AND) and INEQ (g = XOR) on the pairs {i, i + N/2}: all
    strings (N <= 16) or 300 samples, and DISJ's binding inputs (0 or 1 common positions)."""
    _pairs("theorem_13_table", "sizes", sizes)
    rows = []
    for N, k in sizes:
        for function, g in (("disj", constructions.AND), ("ineq", constructions.XOR)):
            task = PairFunction(half_length=N // 2, function=function)
            model = constructions.sparse_threshold(N, constructions.pair_sets(N // 2), g, 0, k)
            sets = {"all 2^N" if N <= 16 else "sample": task.enumerate() if N <= 16 else task.sample(300, seed=N)}
            if function == "disj":
                sets["0 or 1 common"] = constructions.near_disjoint_pairs(N // 2, 300, seed=N)
            rows += [{"N": N, "function": function, "inputs": name, "examples": len(data),
                      "width d": model.config.d_model, "accuracy": accuracy(model, constructions.bos_inputs(data))}
                     for name, data in sets.items()]
    return pd.DataFrame(rows)


def nn_errors(model, batch) -> tuple[int, int]:
    """Errors and scored positions of a nearest-neighbour model on a batch."""
    from ...tasks import Batch
    validate.instance("nn_errors", "batch", batch, Batch)
    scored = batch.y != -100
    wrong = predict(model, batch.x).argmax(-1)[scored] != batch.y[scored]
    return int(wrong.sum()), int(scored.sum())


MQAR = dict(n_points=32, dim=8, mqar=True)  # Theorem 7's MQAR instance (margin 2/d = 1/4)


def theorem_7_exact_table(n_seq: int) -> pd.DataFrame:
    """Theorem 7 with orthogonal (Hadamard) addresses: errors on MQAR and on unit vectors with
    margin >= 0.01, ``n_seq`` sequences each."""
    validate.integer("theorem_7_exact_table", "n_seq", n_seq, minimum=1, maximum=validate.MAX_COUNT)
    rows = []
    for name, task, gamma in (("MQAR, hypercube keys (margin 2/d = 0.25)", NearestNeighbour(**MQAR), 0.25),
                              ("unit vectors, margin >= 0.01",
                               NearestNeighbour(n_points=40, dim=16, keys="sphere", margin=0.01), 0.01)):
        errs, scored = nn_errors(constructions.nearest_neighbour(task, gamma), task.sample(n_seq, seed=0))
        rows.append({"inputs": name, "sequences": n_seq, "scored queries": scored, "errors": errs})
    return pd.DataFrame(rows)


def theorem_7_sign_address_table(ks, n_seq: int) -> pd.DataFrame:
    """Theorem 7 with random sign addresses of width k: the error rate on ``n_seq`` MQAR sequences
    for the paper's c1 = 10 and for c1 = 3."""
    _counts("theorem_7_sign_address_table", "ks", ks)
    validate.integer("theorem_7_sign_address_table", "n_seq", n_seq, minimum=1, maximum=validate.MAX_COUNT)
    mqar = NearestNeighbour(**MQAR)
    batch = mqar.sample(n_seq, seed=1)
    rows = []
    for c1 in (3.0, 10.0):
        for k in ks:
            addresses = near_orthogonal.sign_vectors(mqar.seq_len, k, seed=k)
            model = constructions.nearest_neighbour(mqar, 0.25, addresses=addresses,
                                                    c1=c1)
            errs, scored = nn_errors(model, batch)
            rows.append({"c1": c1, "address width k": k, "error rate": errs / scored})
    return pd.DataFrame(rows)


def sign_address_width(n: int, tol: float) -> int:
    """The smallest k at which N random sign addresses of width k are within ``tol`` of orthogonal
    (every ``|<T_i, T_j>| = |S|/k <= tol``, S a sum of k random signs) with probability >= 1/2 by
    the union bound over the N(N-1)/2 pairs, with the exact binomial tail:
    ``C(N, 2) P(|S| > tol k) <= 1/2``. Theorem 7's proof (App. F.3) asks for ``tol = gamma/100``."""
    from scipy.stats import binom

    n = validate.integer("sign_address_width", "n", n, minimum=2, maximum=10**9)
    validate.real("sign_address_width", "tol", tol, above=0.0, maximum=1.0)
    pairs = n * (n - 1) / 2

    def ok(k: int) -> bool:  # P(|S| > tol k) = 2 P(heads > k (1 + tol) / 2)
        return pairs * 2 * binom.sf(math.floor(k * (1 + tol) / 2), k, 0.5) <= 0.5

    hi = 1
    while not ok(hi):
        hi *= 2
    lo = hi // 2
    while hi - lo > max(1, hi // 1000):  # to 0.1%: the tail is monotone up to the lattice's ripple
        mid = (lo + hi) // 2
        lo, hi = (lo, mid) if ok(mid) else (mid, hi)
    return int(hi)


def theorem_7_width_table(ns=(2**6, 2**8, 2**10, 2**12, 2**14), c: float = 0.5) -> pd.DataFrame:
    """The address width Theorem 7's proof needs (sign addresses within gamma/100 of orthogonal,
    :func:`sign_address_width`) as N grows, at a fixed margin gamma = 1/4 and at a margin that
    shrinks as gamma = N^-c, each with k / ln N (bounded iff the width is O(log N))."""
    _counts("theorem_7_width_table", "ns", ns, minimum=2)
    validate.real("theorem_7_width_table", "c", c, above=0.0, maximum=2.0)
    rows = []
    for n in ns:
        fixed, shrinking = sign_address_width(n, 0.25 / 100), sign_address_width(n, n ** -c / 100)
        rows.append({"N": n, "k (γ = 1/4)": fixed, "k / ln N (γ = 1/4)": fixed / math.log(n),
                     f"γ = N^-{c:g}": n ** -c, f"k (γ = N^-{c:g})": shrinking,
                     f"k / ln N (γ = N^-{c:g})": shrinking / math.log(n)})
    return pd.DataFrame(rows)


def theorem_7_growth_table(n_points=(16, 32, 64, 128), k: int = 256, n_seq: int = 12) -> pd.DataFrame:
    """Theorem 7's model with random sign addresses of a fixed width ``k`` (c1 = 3, MQAR with keys
    on the 8-cube, margin 1/4) as the number of points grows: the error rate on ``n_seq``
    sequences (the same seeds as :func:`theorem_7_sign_address_table`)."""
    _counts("theorem_7_growth_table", "n_points", n_points, minimum=2)
    validate.integer("theorem_7_growth_table", "k", k, minimum=1, maximum=validate.MAX_COUNT)
    validate.integer("theorem_7_growth_table", "n_seq", n_seq, minimum=1, maximum=validate.MAX_COUNT)
    rows = []
    for n in n_points:
        task = NearestNeighbour(n_points=n, dim=8, mqar=True)
        model = constructions.nearest_neighbour(task, 0.25, addresses=near_orthogonal.sign_vectors(task.seq_len, k, seed=k),
                                                c1=3.0)
        errs, scored = nn_errors(model, task.sample(n_seq, seed=1))
        rows.append({"points": n, "tokens": task.seq_len, "address width k": k, "error rate": errs / scored})
    return pd.DataFrame(rows)


# ----------------------------------------------------------------------------- the Dyck RNN
def dyck_rnn_study(max_length: int, n_long: int) -> dict:
    """The 32-unit ReLU RNN against the exact recognizer on every string of length 1 to
    ``max_length`` and on ``n_long`` generated strings of length 400 (float64 and float32); the
    automaton's live states; the member counts 2^(N-1) for every even N <= 400."""
    validate.integer("dyck_rnn_study", "max_length", max_length, minimum=1, maximum=12)  # 4^12 strings at most
    validate.integer("dyck_rnn_study", "n_long", n_long, minimum=1, maximum=validate.MAX_COUNT)
    rnn = dyck_rnn()
    checked = errors = 0
    for length in range(1, max_length + 1):
        x = torch.cartesian_prod(*[torch.arange(4)] * length).reshape(-1, length) if length > 1 else torch.arange(4)[:, None]
        truth = torch.tensor([is_member(row, 2) for row in x.tolist()])
        errors += int((predict(rnn, x).argmax(-1).bool() != truth).sum())
        checked += len(x)
    long = BoundedDyck(length=400).sample(n_long, seed=0)
    return {"max length": max_length, "strings": checked, "errors": errors, "long strings": len(long),
            "long accuracy": accuracy(rnn, long), "long accuracy float32": accuracy(dyck_rnn(dtype=torch.float32), long),
            "live states": len(dfa(2, 2)[0]), "units": rnn.config.d_model,
            "member counts 2^(N-1)": all(count_members(n) == 2 ** (n - 1) for n in range(2, 401, 2))}


def dyck_split_protocol(n_strings: int, length: int = 40, cut: int = 17) -> dict:
    """Theorem 2's protocol run by the Dyck RNN: Alice runs the first ``cut`` symbols and sends the
    state; Bob starts from it on the rest. How often Bob's answer equals the RNN's on the whole
    string, how many distinct states were sent and how many of the messages have exactly one
    nonzero unit, how many automaton states (Dyck-(2,2)'s stacks, or dead) the same prefixes
    reach, and how many distinct (automaton state, message) pairs occur (as many as messages iff
    each message determines the automaton's state)."""
    validate.integer("dyck_split_protocol", "n_strings", n_strings, minimum=1, maximum=validate.MAX_COUNT)
    length = validate.integer("dyck_split_protocol", "length", length, minimum=2, maximum=validate.MAX_COUNT)
    validate.integer("dyck_split_protocol", "cut", cut, minimum=1, maximum=length - 1)
    rnn = dyck_rnn()
    batch = BoundedDyck(length=length).sample(n_strings, seed=3)
    delta = dfa(2, 2)[1]
    agree, one_hot, sent, pairs, reached = 0, 0, set(), set(), set()
    for row in batch.x:
        cache = {}
        rnn(row[None, :cut], cache=cache)
        message = cache["layers.0.states"][0, -1]  # Alice's whole message: the state after her prefix
        sent.add(tuple(message.tolist()))
        one_hot += int((message != 0).sum()) == 1
        state = ()  # the automaton run on the same prefix (None: dead)
        for token in row[:cut].tolist():
            state = delta[(state, token)] if state is not None else None
        reached.add(state)
        pairs.add((state, tuple(message.tolist())))
        bob = dyck_rnn()
        bob.set_weights({"layers.0.b_h0": message})  # Bob starts from Alice's state
        agree += int(predict(bob, row[None, cut:]).argmax(-1) == predict(rnn, row[None]).argmax(-1))
    return {"length": length, "cut": cut, "strings": len(batch), "agree": agree, "states sent": len(sent),
            "one-hot messages": one_hot, "automaton states reached": len(reached), "state-message pairs": len(pairs),
            "live states": len(dfa(2, 2)[0]), "units": rnn.config.d_model}


def rnn_automaton_study(max_length: int = 7) -> dict:
    """Lemma 4's step run on a real RNN, the Dyck RNN of :func:`.dyck_rnn.dyck_rnn`: the automaton
    whose states are the hidden states the RNN reaches from its start state (found by running it
    one symbol at a time from each state found so far), with the RNN's output after reaching a
    state as that state's label. Returns its state count, whether every state's label is the
    same by whichever edge it is reached, whether it agrees with the RNN on every string of length
    1 to ``max_length``, its size once minimised (Moore partition refinement), and the size of
    Dyck-(2,2)'s minimal automaton (7 live states and a dead one)."""
    validate.integer("rnn_automaton_study", "max_length", max_length, minimum=1, maximum=9)  # 4^9 strings at most

    def run(h, token):  # the RNN from state h on one symbol: (next state, output)
        model = dyck_rnn()
        model.set_weights({"layers.0.b_h0": h})
        cache = {}
        x = torch.tensor([[token]])
        out = int(predict(model, x).argmax(-1))
        model(x, cache=cache)
        return cache["layers.0.states"][0, -1], out

    start = dyck_rnn().state_dict()["layers.0.b_h0"]
    key = lambda h: tuple(float(v) for v in h.tolist())  # noqa: E731
    states, label, delta, frontier, consistent = {key(start): start}, {}, {}, [start], True
    while frontier:
        h = frontier.pop()
        for token in range(4):
            nxt, out = run(h, token)
            k = key(nxt)
            delta[(key(h), token)] = k
            consistent &= label.setdefault(k, out) == out
            if k not in states:
                states[k] = nxt
                frontier.append(nxt)
    rnn, agree, checked = dyck_rnn(), True, 0
    for length in range(1, max_length + 1):
        x = torch.cartesian_prod(*[torch.arange(4)] * length).reshape(-1, length) if length > 1 else torch.arange(4)[:, None]
        direct = predict(rnn, x).argmax(-1).tolist()
        for row, want in zip(x.tolist(), direct):
            q = key(start)
            for token in row:
                q = delta[(q, token)]
            agree &= label[q] == want
        checked += len(x)
    # Moore minimisation: split by label, then by the blocks of the successors, until stable
    block = {q: label.get(q, -1) for q in states}
    while True:
        sig = {q: (block[q],) + tuple(block[delta[(q, t)]] for t in range(4)) for q in states}
        names = {v: i for i, v in enumerate(sorted(set(sig.values())))}
        new = {q: names[sig[q]] for q in states}
        if len(set(new.values())) == len(set(block.values())):
            break
        block = new
    return {"RNN states reached": len(states), "labels consistent": bool(consistent), "strings": checked,
            "agrees with the RNN": bool(agree), "minimised states": len(set(block.values())),
            "minimal DFA states": len(dfa(2, 2)[0]) + 1, "units": rnn.config.d_model}


# ----------------------------------------------------------------------------- lower bounds
def theorem_4_study(n: int = 64, d: int = 16, m: int = 8, heads: int = 2, p: int = 48, trials: int = 20) -> dict:
    """Theorem 4's protocol on a random ``heads``-head layer in fixed point (2^-(p - 24)), for
    ``trials`` random partitions: the largest difference from the layer computed in one place,
    the bits exchanged (counted from the messages sent), whether every message fits the width it
    declares, the step-by-step count :func:`.lower_bounds.protocol_bits`, the paper's count
    3m(p + log N)H and the size of the input in bits."""
    validate.integer("theorem_4_study", "n", n, minimum=3, maximum=validate.MAX_COUNT)  # Alice holds 1 to n-2 others
    for name, value in (("d", d), ("m", m), ("heads", heads), ("trials", trials)):
        validate.integer("theorem_4_study", name, value, minimum=1, maximum=validate.MAX_COUNT)
    validate.integer("theorem_4_study", "p", p, minimum=25, maximum=64)  # p = fraction bits + 24 integer bits
    frac = p - 24
    layer_heads = lower_bounds.attention_heads(lower_bounds.random_attention(d=d, m=m, heads=heads, seed=0))
    rng = np.random.default_rng(0)
    X = lower_bounds.fixed_point(rng.standard_normal((n, d)), frac)
    direct = lower_bounds.one_layer_direct(X, layer_heads, frac)
    gaps, bits, fits = [], set(), True
    for _ in range(trials):
        alice = sorted(set(rng.choice(n - 1, int(rng.integers(1, n - 1)), replace=False).tolist()) | {n - 1})
        out, sent, messages = lower_bounds.one_layer_protocol(X, layer_heads, alice, frac, transcript=True)
        gaps.append(float(np.abs(out - direct).max()))
        bits.add(sent)
        fits &= all(lower_bounds.message_fits(msg, width, frac, extra_frac=frac if step.startswith("4") else 0)
                    for step, _, msg, width in messages)
    return {"N": n, "d": d, "m": m, "H": heads, "p": p, "partitions": trials, "largest difference": max(gaps),
            "bits exchanged": sorted(bits), "messages fit": fits, "formula": lower_bounds.protocol_bits(d, m, heads, n, p),
            "paper's 3m(p + log N)H": lower_bounds.paper_protocol_bits(m, heads, n, p), "input bits": n * d * p}


def theorem_4_size_table(sizes=((16, 4, 4, 1, 32), (64, 16, 8, 2, 48), (64, 8, 8, 1, 40), (256, 16, 16, 4, 48)),
                         trials: int = 5) -> pd.DataFrame:
    """:func:`theorem_4_study` at several sizes ``(N, d, m, H, p)``, ``trials`` partitions each: one
    row per size with the bits counted from the messages, the step-by-step count, the paper's
    3m(p + log N)H and, where d = m (the paper's width), the bound (5m + 4)H(p + log2 N)."""
    validate.integer("theorem_4_size_table", "trials", trials, minimum=1, maximum=validate.MAX_COUNT)
    rows = []
    for n, d, m, heads, p in sizes:
        s = theorem_4_study(n=n, d=d, m=m, heads=heads, p=p, trials=trials)
        rows.append({"N": n, "d": d, "m": m, "H": heads, "p": p, "largest difference": s["largest difference"],
                     "messages fit": s["messages fit"], "bits sent (max)": max(s["bits exchanged"]),
                     "bits sent (min)": min(s["bits exchanged"]), "dp + H(4(m+1)p + 2⌈log N⌉)": s["formula"],
                     "(5m+4)H(p + log N)": (5 * m + 4) * heads * (p + np.log2(n)) if d == m else np.nan,
                     "paper 3m(p + log N)H": s["paper's 3m(p + log N)H"]})
    return pd.DataFrame(rows)


def dyck_rank_table(ns) -> pd.DataFrame:
    """Lemma 1: Dyck-(2,2)'s communication matrix under the odd/even and the prefix/suffix splits:
    rank, members, the most 1s in a row, against 2^(N-1)."""
    _counts("dyck_rank_table", "ns", ns, minimum=2)
    rows = []
    for n in ns:
        for split in ("odd_even", "prefix_suffix"):
            M = lower_bounds.dyck_communication_matrix(n, split)
            rows.append({"N": n, "split": split, "rank": int(np.linalg.matrix_rank(M)), "members": int(M.sum()),
                         "most 1s in a row": int(M.sum(1).max()), "2^(N-1)": 2 ** (n - 1)})
    return pd.DataFrame(rows)


def residual_table(ns) -> pd.DataFrame:
    """Theorem 11: the Myhill-Nerode classes of INEQ after N/2 bits, against 2^(N/2)."""
    for i, n in enumerate(_counts("residual_table", "ns", ns, minimum=2)):
        if n % 2:
            validate.fail("residual_table", f"ns[{i}]", "even (two halves)", n)
    return pd.DataFrame([{"N": n, "residual classes after N/2 bits":
                          lower_bounds.residual_classes(lower_bounds.inequality, n, n // 2), "2^(N/2)": 2 ** (n // 2)}
                         for n in ns])


def equality_rank_table(ns=(4, 6, 8, 10)) -> pd.DataFrame:
    """Facts 1-2: the ranks of EQ's and DISJ's communication matrices over the two halves, each
    entry the function evaluated on the whole input (EQ = 1 - :func:`.lower_bounds.inequality` of
    Alice's half followed by Bob's; "the halves intersect" for DISJ), not built as a known matrix."""
    for i, n in enumerate(_counts("equality_rank_table", "ns", ns, minimum=2)):
        if n % 2 or n > 24:
            validate.fail("equality_rank_table", f"ns[{i}]", "even and at most 24 (2^(N/2) x 2^(N/2) matrices)", n)
    rows = []
    for n in ns:
        half = list(itertools.product((0, 1), repeat=n // 2))
        eq = np.array([[1 - lower_bounds.inequality(a + b) for b in half] for a in half])
        disj = np.array([[int(any(u and v for u, v in zip(a, b))) for b in half] for a in half])
        rows.append({"N": n, "EQ rank": int(np.linalg.matrix_rank(eq)), "DISJ rank": int(np.linalg.matrix_rank(disj)),
                     "2^(N/2)": 2 ** (n // 2)})
    return pd.DataFrame(rows)


def partition_table(trials: int, n: int = 12, k: int = 48) -> pd.DataFrame:
    """Lemma 5: Theorem 6's model with the pairing of ``trials`` random balanced partitions,
    computing [x_A != x_B] on every input of length ``n``."""
    validate.integer("partition_table", "trials", trials, minimum=1, maximum=validate.MAX_COUNT)
    n = validate.integer("partition_table", "n", n, minimum=2, maximum=20)  # every one of the 2^n inputs
    if n % 2:
        validate.fail("partition_table", "n", "even (two halves)", n)
    validate.integer("partition_table", "k", k, minimum=1, maximum=validate.MAX_COUNT)
    task = PairFunction(half_length=n // 2, function="ineq")
    everything = task.enumerate()
    rows = []
    for trial in range(trials):
        alice = sorted(np.random.default_rng(trial).choice(n, n // 2, replace=False).tolist())
        bob = [i for i in range(n) if i not in alice]
        model = constructions.inequality(task, k, alice=alice)
        target = (everything.x[:, alice] != everything.x[:, bob]).any(1).long()
        rows.append({"Alice's positions": str(alice), "N": n, "inputs": len(everything),
                     "accuracy": float((predict(model, everything.x).argmax(-1) == target).double().mean())})
    return pd.DataFrame(rows)


def linear_state_table(n: int = 32, widths=(4, 8, 16, 24, 31, 32, 48)) -> pd.DataFrame:
    """Theorem 3 for linear recurrences: the best affine read-out's error per bit from a state of
    width m, against (N - rank M) / (4N)."""
    validate.integer("linear_state_table", "n", n, minimum=1, maximum=validate.MAX_COUNT)
    _counts("linear_state_table", "widths", widths)
    table = pd.DataFrame([{"state width m": m, **dict(zip(("MSE per bit", "rank M"), lower_bounds.linear_state_mse(n, m)))}
                          for m in widths])
    table["(N - rank)/(4N)"] = (n - table["rank M"]) / (4 * n)
    table.insert(0, "N", n)
    return table


def fano_table(ns=(64, 256, 1024, 4096), bits=(32, 128, 512)) -> pd.DataFrame:
    """The information bound on index lookup's accuracy from a b-bit message."""
    _counts("fano_table", "ns", ns)
    _counts("fano_table", "bits", bits, minimum=0)
    return pd.DataFrame([{"N": n, **{f"{b}-bit state": round(lower_bounds.index_accuracy_bound(b, n), 3) for b in bits}}
                         for n in ns])


def reduction_table(n_random: int) -> pd.DataFrame:
    """Theorem 8 and Proposition 9 run with Theorem 7's transformer as the solver: every Alice input
    (and every Bob input, for DISJ) at n = 4 keys, ``n_random`` random ones at n = 16."""
    validate.integer("reduction_table", "n_random", n_random, minimum=1, maximum=validate.MAX_COUNT)
    rows = []
    for n_keys, dim, exhaustive in ((4, 3, True), (16, 5, False)):
        recall = NearestNeighbour(n_points=2 * n_keys, dim=dim, mqar=True)
        solver = constructions.nearest_neighbour(recall, gamma=2 / dim)
        if exhaustive:
            alice = [torch.tensor(bits) for bits in itertools.product((0, 1), repeat=n_keys)]
        else:
            g = torch.Generator().manual_seed(0)
            alice = [torch.randint(2, (n_keys,), generator=g) for _ in range(n_random)]
        recovered = [lower_bounds.recall_protocol(a, solver, recall) for a in alice]
        bobs = [torch.tensor(bits) for bits in itertools.product((0, 1), repeat=n_keys)] if exhaustive else alice
        disj = [bool((r & b).any()) == bool((a & b).any()) for a, r in zip(alice, recovered) for b in bobs]
        rows.append({"n keys": n_keys, "Alice inputs": len(alice),
                     "all bits recovered": sum(bool(torch.equal(a, r)) for a, r in zip(alice, recovered)),
                     "DISJ pairs": len(disj), "DISJ right": sum(disj)})
    return pd.DataFrame(rows)


def protocol_tables(protocol) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The stored ``lstm_protocol`` result's two tables: Alice's full state at each precision, and
    the messages shorter than N bits."""
    validate.instance("protocol_tables", "protocol", protocol, Result)
    point = protocol.points[0]["result"]
    return pd.DataFrame(point["rows"]), pd.DataFrame(point["short"])


# ----------------------------------------------------------------------------- training
def best_table(result) -> pd.DataFrame:
    """Final accuracy at length N at each architecture's best learning rate (mean over seeds),
    with every rate's accuracy beside it."""
    validate.instance("best_table", "result", result, Result)
    rows = []
    for p in result.points:
        best = summary(p["result"])
        rows.append({"model": p["point"]["arch"], "N": p["point"]["length"], "best lr": best["best_lr"],
                     "accuracy at length N": best["best_final"], "parameters": p["result"]["params"],
                     **{f"lr {lr}": v for lr, v in best["final_by_lr"].items()}})
    return pd.DataFrame(rows)


def best_seeds(stored: dict) -> tuple[float, list[float]]:
    """A stored point's best learning rate (by the mean over seeds, :func:`.sweeps.summary`) and
    the per-seed final accuracies at that rate: what every trained check decides over."""
    best = summary(stored)["best_lr"]
    return best, [float(a[-1]) for a, lr in zip(stored["acc"], stored["lr"]) if lr == best]


def seed_table(result) -> pd.DataFrame:
    """Each (model, length) point of an index-lookup or Dyck sweep at its best learning rate, with
    the per-seed final accuracies there (Figures 2a-c, decided over seeds)."""
    validate.instance("seed_table", "result", result, Result)
    rows = []
    for p in result.points:
        best, finals = best_seeds(p["result"])
        rows.append({"model": p["point"]["arch"], "N": p["point"]["length"], "best lr": best,
                     "mean": float(np.mean(finals)), "per seed": finals})
    return pd.DataFrame(rows)


def equality_table(eq) -> pd.DataFrame:
    """Figure 4's runs: each variant, model and length at its best learning rate."""
    validate.instance("equality_table", "eq", eq, Result)
    rows = []
    for p in eq.points:
        s = summary(p["result"])
        rows.append({"variant": p["point"]["variant"], "model": p["point"]["arch"], "N": p["point"]["length"],
                     "best lr": s["best_lr"], "accuracy at length N": s["best_final"]})
    return pd.DataFrame(rows)


def equality_seed_table(eq) -> pd.DataFrame:
    """Figure 4's runs with the per-seed final accuracies at each point's best learning rate (the
    rate chosen by the mean over seeds, as :func:`equality_table`), for comparisons over seeds."""
    validate.instance("equality_seed_table", "eq", eq, Result)
    rows = []
    for p in eq.points:
        best, finals = best_seeds(p["result"])
        rows.append({"variant": p["point"]["variant"], "model": p["point"]["arch"], "N": p["point"]["length"],
                     "best lr": best, "per seed": finals})
    return pd.DataFrame(rows)


def width_table(result) -> pd.DataFrame:
    """Figure 3's runs (``mamba_width``): each model's kind, layers and width, the length, its best
    learning rate (by the mean over seeds) and the per-seed final accuracies at that rate."""
    validate.instance("width_table", "result", result, Result)
    rows = []
    for p in result.points:
        best, finals = best_seeds(p["result"])
        kind, sizes = p["point"]["arch"].split("-", 1)
        layers, width = (int(v) for v in sizes.strip("()").split(","))
        rows.append({"model": p["point"]["arch"], "kind": kind, "layers": layers, "width": width,
                     "N": p["point"]["length"], "best lr": best, "mean": float(np.mean(finals)), "per seed": finals})
    return pd.DataFrame(rows)


def _halves(x: torch.Tensor, sep: int, pad: int) -> list[tuple[list[int], list[int]]]:
    out = []
    for row in x.tolist():
        body = [t for t in row if t != pad]
        cut = body.index(sep)
        out.append((body[:cut], body[cut + 1:]))
    return out


def shortcut_table(lengths=(10, 20, 40), prefix: int = 4, n: int = 20000) -> pd.DataFrame:
    """Remark (App. H.2), on ``n`` samples of the book's own :class:`lib.tasks.StringEquality` at each
    length: the accuracy of two classifiers that store little, read off the inputs. Eq-random
    (bits): "equal" iff the first ``prefix`` symbols of the halves agree (a state of ``prefix``
    symbols, whatever N); Eq-one (16 symbols): "equal" iff the halves have the same symbol counts
    (|Σ| counters). With the exact accuracy of the prefix rule when every half has at least
    ``prefix`` symbols, 1 - 2^-(prefix+1) (a negative is missed when its independent second half
    agrees on the prefix)."""
    from ...tasks import StringEquality

    _counts("shortcut_table", "lengths", lengths, minimum=2)
    validate.integer("shortcut_table", "prefix", prefix, minimum=1, maximum=64)
    validate.integer("shortcut_table", "n", n, minimum=1, maximum=validate.MAX_COUNT)
    rows = []
    for length in lengths:
        rnd = StringEquality(n_symbols=2, length=length, variant="random")
        batch = rnd.sample(n, seed=5)
        guess = [int(a[:prefix] == b[:prefix]) for a, b in _halves(batch.x, rnd.sep, rnd.pad)]
        one = StringEquality(n_symbols=16, length=length, variant="one")
        batch_one = one.sample(n, seed=5)
        counts = [int(sorted(a) == sorted(b)) for a, b in _halves(batch_one.x, one.sep, one.pad)]
        rows.append({"N": length, "samples": n,
                     f"Eq-random, first {prefix} symbols": float(np.mean(np.array(guess) == batch.y.numpy())),
                     f"1 - 2^-{prefix + 1}": 1 - 2.0 ** -(prefix + 1),
                     "Eq-one, symbol counts": float(np.mean(np.array(counts) == batch_one.y.numpy()))})
    return pd.DataFrame(rows)

