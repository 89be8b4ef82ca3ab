"""The constructions' measurements that the first two memorization chapters read (Mahdavi et al.
2024), moved out of the chapters so that a chapter and its unit test compute them alike:
Prop. 1's rank growth, Remark 1's low-rank queries, Lemmas 3-4's saturation path, Claims 1-2,
the randomized Kruskal test's false positive, and Props. 2, 3 and 5's random draws.

Everything is float64 numpy (or float64 torch), so every number is the same on any machine up
to rounding, which the checks report through :func:`lib.claims.below`. Nothing here is imported
by the sweeps or the training code.
"""
from __future__ import annotations

import numpy as np
import torch

from ... import validate
from ...tasks.base import Batch
from ...tasks.random_labels import as_sequences, contexts, queries, query_context_data
from . import construction as mem
from . import kruskal
from .bounds import random_ranks, relu_capacity, relu_jacobian_rank
from .data import relu_hard_data


def _sizes(owner: str, **sizes) -> None:
    """Positive integer sizes (d, n, H, T, draws, ...), each at most ``validate.MAX_COUNT``."""
    for name, value in sizes.items():
        validate.integer(owner, name, value, minimum=1, maximum=validate.MAX_COUNT)


# ----------------------------------------------------------------------------- chapter 1
def planted_dependency(count: int = 12, dim: int = 5, trials: int = 5000, seed: int = 0) -> dict:
    """Sec. 5.1's randomized Kruskal test fooled: ``count`` random vectors in R^``dim`` with one
    planted dependency v_2 = v_0 + v_1; their exact Kruskal rank before and after, and the
    randomized test's pass rate for each k."""
    owner = "planted_dependency"
    validate.integer(owner, "count", count, minimum=3, maximum=10**4)  # v_2 = v_0 + v_1 needs three vectors
    validate.integer(owner, "dim", dim, minimum=2, maximum=10**4)
    validate.integer(owner, "trials", trials, minimum=1, maximum=10**8)
    validate.seed(owner, "seed", seed)
    vectors = np.random.default_rng(seed).standard_normal((count, dim))
    exact_before = kruskal.kruskal_rank(vectors)
    vectors[2] = vectors[0] + vectors[1]
    rates = {k: kruskal.kruskal_pass_rate(vectors, k, trials=trials, seed=1) for k in range(1, dim + 1)}
    return {"exact_before": exact_before, "exact_after": kruskal.kruskal_rank(vectors), "rates": rates}


def paper_size_data(T: int, n: int = 32, d: int = 64):
    """The chapter's paper-size instance: T examples, a shared context of n tokens in R^d (seed 1)."""
    for name, value in (("T", T), ("n", n), ("d", d)):
        validate.integer("paper_size_data", name, value, minimum=1, maximum=validate.MAX_COUNT)
    return query_context_data(T, n, d, seed=1, dtype=torch.float64)


def rank_growth(batch, n_heads: int, d_head: int) -> list[int]:
    """Prop. 1's induction read off the construction: the rank of Z restricted to the first h
    heads and the examples they were built for, for h = 1..H."""
    validate.instance("rank_growth", "batch", batch, Batch)
    validate.integer("rank_growth", "n_heads", n_heads, minimum=1, maximum=validate.MAX_COUNT)
    validate.integer("rank_growth", "d_head", d_head, minimum=1, maximum=validate.MAX_COUNT)
    q, E = queries(batch).numpy(), contexts(batch).numpy()
    weights = mem.attention_weights(E, q, n_heads, d_head, seed=0)
    Z, _ = mem.head_outputs(E, q, weights.W)
    d = q.shape[1]
    seen, growth = 0, []
    for h in range(n_heads):
        seen += len(weights.groups[h])
        growth.append(int(np.linalg.matrix_rank(Z[:seen, :(h + 1) * d])))
    return growth


def variant_cases(larger: bool) -> dict:
    """Theorem 1's variants (name: (batch, H, d_h, keywords of check_theorem_1)); ``larger`` adds
    d = 128, n = 64, H = 12 (the chapter skips it at smoke scale)."""
    validate.boolean("variant_cases", "larger", larger)
    def data(T, n, d, seed, **kw):
        return query_context_data(T, n, d, seed=seed, dtype=torch.float64, **kw)

    cases = {
        "d_h=4 < n=6 (d=16, H=4)": (data(13, 6, 16, 2), 4, 4, {}),
        "per-example contexts (d=64, n=32, H=8)": (data(249, 32, 64, 3, context="per_example"), 8, 64, {}),
        "d_out=4 labels (d=32, n=12, H=8)": (data(89, 12, 32, 4), 8, 32, {"d_out": 4}),
        "skip connection, d_out=3, d_v=5": (data(89, 12, 32, 5), 8, 32, {"d_out": 3, "d_value": 5, "skip": True}),
        "Prop. 3 data (d=16, n=6, H=4)": (relu_hard_data(21, 6, 16, seed=6), 4, 16, {}),
    }
    if larger:
        cases["larger: d=128, n=64, H=12"] = (data(757, 64, 128, 7), 12, 128, {})
    return cases


def remark_1_case(Q: int = 4, n: int = 8, d: int = 16, H: int = 5) -> dict:
    """Remark 1: queries confined to a Q-dimensional subspace (Kruskal rank Q), built with
    d_h = Q, and the same examples with d_h = n (where the construction groups n queries per head
    and must fail)."""
    owner = "remark_1_case"
    validate.integer(owner, "H", H, minimum=1, maximum=10**3)
    validate.integer(owner, "Q", Q, minimum=1, maximum=10**3)
    validate.integer(owner, "n", n, minimum=Q, maximum=10**3)
    validate.integer(owner, "d", d, minimum=n + 1, maximum=10**4)
    low = query_context_data(mem.rank_bound(H, n, Q), n, d, seed=8, dtype=torch.float64)
    basis = np.linalg.qr(np.random.default_rng(8).standard_normal((d, Q)))[0]
    low_q = torch.as_tensor(queries(low).numpy() @ basis @ basis.T)
    low = type(low)(as_sequences(low_q, contexts(low)), low.y)
    return {"Q": Q, "n": n, "H": H, "query_rank": kruskal.kruskal_rank(queries(low)[:12]),
            "built": mem.check_theorem_1(low, H, Q), "unlimited": mem.check_theorem_1(low, H, n)}


def saturation_path(batch, n_heads: int, d_head: int, head: int = 1, points: int = 25) -> dict:
    """Lemmas 3-4 on head ``head`` of the construction: its exact part W*, its rank-one W+ and
    the c it uses; along c from c/1000 to c, the largest L1 distance to one-hot of the softmax of
    the earlier heads' examples and the largest drift of the head's own group's softmax."""
    owner = "saturation_path"
    validate.instance(owner, "batch", batch, Batch)
    validate.integer(owner, "n_heads", n_heads, minimum=2, maximum=validate.MAX_COUNT)
    validate.integer(owner, "d_head", d_head, minimum=1, maximum=validate.MAX_COUNT)
    validate.integer(owner, "head", head, minimum=1, maximum=n_heads - 1)  # head 0 has no W+ (nothing earlier)
    validate.integer(owner, "points", points, minimum=2, maximum=10**6)
    q, E = queries(batch).numpy(), contexts(batch).numpy()
    attention = mem.attention_weights(E, q, n_heads, d_head, seed=0)
    W_star, W_plus, c_used = attention.W_star[head], attention.W_plus[head], attention.c[head]
    own, earlier = attention.groups[head], attention.groups[0]
    plus_logits = np.einsum("tnd,de,te->tn", E, W_plus, q)
    onehot = np.eye(E.shape[1])[plus_logits[earlier].argmax(1)]

    def theta(rows, W):
        return mem.softmax(np.einsum("tnd,de,te->tn", E[rows], W, q[rows]))

    base_own = theta(own, W_star)
    cs = np.geomspace(c_used / 1e3, c_used, points)
    distance = np.array([np.abs(theta(earlier, W_star + c * W_plus) - onehot).sum(1).max() for c in cs])
    own_drift = np.array([np.abs(theta(own, W_star + c * W_plus) - base_own).max() for c in cs])
    return {"E": E, "q": q, "W_star": W_star, "W_plus": W_plus, "c_used": c_used, "own": own, "earlier": earlier,
            "plus_logits": plus_logits, "onehot": onehot, "base_own": base_own, "cs": cs, "distance": distance,
            "own_drift": own_drift, "theta": theta}


def claims_1_2(path: dict, seed: int = 3) -> dict:
    """Claim 1 (r = n examples get any chosen softmax coefficients: Dirichlet draws, fitted by
    :func:`~lib.papers.mahdavi2024.construction.fit_logits`) and Claim 2 (head ``path``'s own
    group exact, its earlier examples within delta of one-hot at the c used), on the instance of
    :func:`saturation_path`."""
    validate.instance("claims_1_2", "path", path, dict)
    needed = ("E", "q", "W_star", "W_plus", "c_used", "theta", "own", "earlier", "base_own", "onehot")
    if any(key not in path for key in needed):
        validate.fail("claims_1_2", "path", "the dict saturation_path returns", sorted(path))
    validate.seed("claims_1_2", "seed", seed)
    E, q = path["E"], path["q"]
    n = E.shape[1]
    chosen = np.random.default_rng(seed).dirichlet(np.ones(n), size=n)
    group = np.arange(n)
    W_fit = mem.fit_logits(E[group], q[group], np.log(chosen))
    W_used = path["W_star"] + path["c_used"] * path["W_plus"]
    return {"n": n, "d": q.shape[1], "claim_1_error": float(np.abs(path["theta"](group, W_fit) - chosen).max()),
            "own": len(path["own"]), "earlier": len(path["earlier"]),
            "own_exact": float(np.abs(path["theta"](path["own"], W_used) - path["base_own"]).max()),
            "delta": float(np.abs(path["theta"](path["earlier"], W_used) - path["onehot"]).sum(1).max())}


# ----------------------------------------------------------------------------- chapter 2
def proposition_2_draws(d: int = 16, n: int = 6, H: int = 4, T: int = 80, draws: int = 50):
    """Prop. 2: the least and largest rank of Z over ``draws`` random key/query weights at three
    weight scales, for a shared and a per-example context (a pandas table)."""
    import pandas as pd

    _sizes("proposition_2_draws", d=d, n=n, H=H, T=T, draws=draws)
    data = {"shared": query_context_data(T, n, d, seed=0, dtype=torch.float64),
            "per-example": query_context_data(T, n, d, context="per_example", seed=0, dtype=torch.float64)}
    rows = []
    for scale in (0.3, 1.0, 10.0):
        for name, batch in data.items():
            ranks = random_ranks(batch, H, scale, draws=draws)
            rows.append({"context": name, "weight scale": scale, "draws": draws, "min rank Z": ranks.min(),
                         "max rank Z": ranks.max()})
    return pd.DataFrame(rows)


def head_size_conditioning(d: int = 16, n: int = 6, H: int = 4, T: int = 80, seeds: int = 10):
    """Under a shared context: the largest rank of Z and the median H(n-1)+1-th singular value
    over ``seeds`` random weights, for d_h = 1, 2, 4, 8, 16 (a pandas table)."""
    import pandas as pd

    _sizes("head_size_conditioning", d=d, n=n, H=H, T=T, seeds=seeds)
    if mem.rank_bound(H, n) > T:
        validate.fail("head_size_conditioning", "T", f"at least H(n-1)+1 = {mem.rank_bound(H, n)} examples (the "
                      "singular value read is the H(n-1)+1-th)", T)
    shared = query_context_data(T, n, d, seed=0, dtype=torch.float64)
    q, E = queries(shared).numpy(), contexts(shared).numpy()
    cap = mem.rank_bound(H, n)
    rows = []
    for d_head in (1, 2, 4, 8, 16):
        smallest, ranks = [], []
        for seed in range(seeds):
            W_K, W_Q = np.random.default_rng(seed).standard_normal((2, H, d, d_head))
            Z, _ = mem.head_outputs(E, q, np.einsum("hdk,hek->hde", W_K, W_Q) / np.sqrt(d * d_head))
            smallest.append(np.linalg.svd(Z, compute_uv=False)[cap - 1])
            ranks.append(np.linalg.matrix_rank(Z))
        rows.append({"d_h": d_head, "rank Z (max)": max(ranks), "sigma_(H(n-1)+1) (median)": np.median(smallest)})
    return pd.DataFrame(rows)


def proposition_5_draws(d: int = 12, n: int = 8, H: int = 3, T: int = 120, draws: int = 20) -> dict:
    """Prop. 5: the largest rank of Z over ``draws`` random weights (d_h = d) for per-example tokens
    rescaled to coordinate sum 1, and for the same tokens unconstrained."""
    _sizes("proposition_5_draws", d=d, n=n, H=H, T=T, draws=draws)
    raw = query_context_data(T, n, d, context="per_example", seed=9, dtype=torch.float64)
    E, q = contexts(raw).numpy(), queries(raw).numpy()
    rng = np.random.default_rng(0)
    constant = [np.linalg.matrix_rank(mem.head_outputs(E / E.sum(-1, keepdims=True), q,
                                                       rng.standard_normal((H, d, d)))[0]) for _ in range(draws)]
    free = [np.linalg.matrix_rank(mem.head_outputs(E, q, rng.standard_normal((H, d, d)))[0]) for _ in range(draws)]
    return {"d": d, "H": H, "draws": draws, "constant_sum": int(max(constant)), "free": int(max(free))}


def proposition_3_counts(d: int = 64, n: int = 32, heads=(1, 5, 10, 20, 40)):
    """Prop. 3 at equal parameters: per H, the attention layer's parameters (d_h = n, d_v = 1,
    with W_O), the hidden units m of a two-layer ReLU net with as many, the ReLU bound and
    Theorem 1's count (a pandas table)."""
    import pandas as pd

    _sizes("proposition_3_counts", d=d, n=n)
    heads = validate.integers("proposition_3_counts", "heads", heads, minimum=1)
    rows = []
    for H in heads:
        params = mem.paper_param_count(d, H, n, 1, 1) + H * d
        m = params // ((n + 1) * d + 1 + 1)
        rows.append({"H": H, "attention parameters": params, "ReLU hidden units m": m,
                     "ReLU memorizes at most": int(relu_capacity(n, m)),
                     "attention memorizes at least": mem.rank_bound(H, n)})
    table = pd.DataFrame(rows)
    table["ReLU / attention"] = table["ReLU memorizes at most"] / table["attention memorizes at least"]
    return table


def relu_jacobians(T: int = 120, n: int = 6, d: int = 16, widths=(2, 4, 8)):
    """Prop. 3's ReLU side measured: the rank of the Jacobian of T outputs with respect to all
    parameters, on Appendix F's data (max over three weight draws) and on per-example contexts
    in general position (a pandas table)."""
    import pandas as pd

    _sizes("relu_jacobians", T=T, n=n)
    validate.integer("relu_jacobians", "d", d, minimum=n + 1, maximum=validate.MAX_COUNT)
    widths = validate.integers("relu_jacobians", "widths", widths, minimum=1)
    rows = []
    for m in widths:
        hard = [relu_jacobian_rank(relu_hard_data(T, n, d, seed=1), m, seed=s) for s in range(3)]
        general = relu_jacobian_rank(query_context_data(T, n, d, seed=1, context="per_example", dtype=torch.float64), m)
        rows.append({"hidden units m": m, "parameters": hard[0]["parameters"], "Prop. 3 bound": hard[0]["bound"],
                     "rank, Appendix F data (max of 3)": max(h["jacobian rank"] for h in hard),
                     "rank, per-example contexts": general["jacobian rank"]})
    return pd.DataFrame(rows)


# ----------------------------------------------------------------------------- chapter 3
def figure_1_reading(states, ks, trials: int) -> dict:
    """Figure 1 on a layer's outputs ``states`` (images x tokens x width): the [CLS] outputs' pass
    rate of the randomized Kruskal test for each k of ``ks`` (``trials`` draws, seeded by k), the
    largest k passing the 99% rule, and the rank of all the outputs together (``span``: singular
    values above 1e-6 of the largest, as the outputs are float32); ``largest`` is 0 when no k passes."""
    states = validate.array("figure_1_reading", "states", states, ndim=3)
    if 0 in states.shape:
        validate.fail("figure_1_reading", "states", "a non-empty array (images x tokens x width)", f"shape {states.shape}")
    ks = validate.integers("figure_1_reading", "ks", ks, minimum=1)
    validate.integer("figure_1_reading", "trials", trials, minimum=1, maximum=10**8)
    cls = states[:, 0]
    fraction = np.array([kruskal.kruskal_pass_rate(cls, k, trials=trials, seed=k) for k in ks])
    singular = np.linalg.svd(cls.astype(np.float64), compute_uv=False)
    return {"ks": list(ks), "fraction": fraction, "singular": singular,
            "largest": max((k for k, f in zip(ks, fraction) if f >= kruskal.PASS_RULE), default=0),
            "span": int((singular > 1e-6 * singular[0]).sum())}
