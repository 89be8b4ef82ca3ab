"""The paper's unnumbered statements (Richard 2024), computed so that a check can fail: Eq. (3)'s
first-order condition, Sec. 3.2's "Scaling" and "Multiple sequences" remarks, Sec. 4's Catalan
asymptotic, Sec. 4.2's "single-word loss reaches 0", and App. 5.1.1's GPT-4 counts read against
the paper's own numbers. Each function returns plain numbers or a table that the chapters show
and :mod:`.checks` turns into a claim. Nothing here is imported by the sweeps or their training
code (so no stored result depends on it).
"""
from __future__ import annotations

import math

import numpy as np
import torch

from ... import validate
from ...paper_setup import Setup, Stated
from ...results import Result
from ...tasks import dyck_words as dw
from . import closed_form as cf

#: float32's machine epsilon: a per-token loss below it is "machine precision's zero" (Sec. 4.2)
FLOAT32_EPS = float(np.finfo(np.float32).eps)


def _sequence(owner: str, s, t: int) -> np.ndarray:
    t = validate.integer(owner, "t", t, 2, 10**4)
    return cf._tokens(owner, "s", s, t, min_len=3)


def _ratios(owner: str, ratios) -> list[float]:
    if isinstance(ratios, (str, bytes)) or not isinstance(ratios, (list, tuple, np.ndarray)) or len(ratios) == 0:
        validate.fail(owner, "ratios", "a non-empty list of positive numbers", ratios, validate.ArgumentTypeError)
    return [validate.real(owner, f"ratios[{i}]", r, above=0) for i, r in enumerate(ratios)]


# ----------------------------------------------------------------------------- Eq. (3)
def first_order_table(s, t: int, *, ratios=(1, 2, 5, 10, 20), eps: float = 0.5):
    """Eq. (3) on sequence ``s`` over ``t`` tokens, for the one-hot embedding (E E^T = I exactly)
    and a JL embedding of width :func:`~.closed_form.jl_dimension` (E E^T only near I), with B of
    Eq. (4) (gamma = -1/2) and v gamma = ``ratio`` n. Per row:

    * ``gradient gap``: the largest difference between autograd's gradient of Eq. (2)'s loss in
      B and the first-order system ``dL/dB_i = sum_{r>=i} (v/r) (softmax_r - delta_{s_{r+1}}) E``
      (relative to its largest entry): the first-order condition is a system in Eq. (3)'s
      left-hand side;
    * ``residual``: ``max_r (1 - softmax_r[s_{r+1}])``, half the l1 norm of Eq. (3)'s left-hand
      side (summed over the wrong tokens, so that it keeps its value below float64's epsilon);
    * ``exact residual``: Lemma 5.1's ``(t-1) e^{-v gamma/r} / (1 + (t-1) e^{-v gamma/r})`` at its
      largest (r = n - 1), for the one-hot rows;
    * ``|grad|``: the largest entry of the gradient in B."""
    import pandas as pd

    owner = "first_order_table"
    s = _sequence(owner, s, t)
    ratios = _ratios(owner, ratios)
    n, gamma = len(s), cf.ATTRACTIVE
    d = cf.jl_dimension(n, eps)
    rows = []
    for name, E in (("one-hot (E E^T = I)", np.eye(t)), (f"JL, d = {d}", cf.jl_embedding(t, d, seed=0))):
        for ratio in ratios:
            v = ratio * n / gamma
            model = cf.eq1_model(E, cf.positional_embedding(s, gamma, E), v)
            W = dict(model.named_parameters())["W_pos"]
            W.requires_grad_(True)
            logits = model(torch.as_tensor(s[None]))[0, :-1]
            target = torch.as_tensor(s[1:])
            loss = torch.nn.functional.cross_entropy(logits, target, reduction="sum")
            (grad,) = torch.autograd.grad(loss, W)
            logp = torch.log_softmax(logits.detach(), -1).numpy()
            p = np.exp(logp)
            resid = p.copy()
            resid[np.arange(n - 1), s[1:]] -= 1.0
            per_r = (v / np.arange(1, n))[:, None] * (resid @ E)  # (n-1, d): the term of prediction r
            system = np.concatenate([np.cumsum(per_r[::-1], axis=0)[::-1], np.zeros((1, E.shape[1]))])
            wrong = p.copy()
            wrong[np.arange(n - 1), s[1:]] = 0.0
            scale = max(float(np.abs(system).max()), 1e-300)
            exact = cf.lemma51_probability(t, ratio * n, n - 1) if name.startswith("one-hot") else np.nan
            rows.append({"embedding": name, "vγ/n": ratio,
                         "gradient gap": float(np.abs(grad.numpy() - system).max()) / scale,
                         "residual": float(wrong.sum(1).max()),
                         "exact residual": 1.0 - exact if np.isfinite(exact) else np.nan,
                         "|grad|": float(np.abs(grad.numpy()).max())})
    return pd.DataFrame(rows)


# ----------------------------------------------------------------------------- Sec. 3.2, "Scaling"
def exact_eps(n: int, d: int) -> float:
    """The smallest eps in (0, 1) that Theorem 3.1's width condition ``d >= 4 ln n / (eps^2/2 -
    eps^3/3)`` allows at width ``d`` (NaN when none does: d < 24 ln n)."""
    n = validate.integer("exact_eps", "n", n, 2, validate.MAX_SEED)
    d = validate.integer("exact_eps", "d", d, 1, validate.MAX_COUNT)
    need = 4 * math.log(n) / d
    if need > 1 / 6:  # eps^2/2 - eps^3/3 rises on (0, 1) to 1/6
        return float("nan")
    lo, hi = 0.0, 1.0
    for _ in range(200):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if mid**2 / 2 - mid**3 / 3 < need else (lo, mid)
    return hi


def scaling_table(s, t: int, *, widths=(25, 50, 100, 200, 400, 800), ratio: float = 10.0, seeds=range(5)):
    """Sec. 3.2's "Scaling" remark on sequence ``s`` over ``t`` tokens: per width d, the paper's
    substitution ``eps = 2 sqrt(2 ln n / d)``, the smallest eps the width condition allows
    (:func:`exact_eps`), the factors ``1 + 4 sqrt(2 ln n / d)`` (the display) and ``e^{2 eps}``
    (Theorem 3.1, at the allowed eps), the display's failure bound ``n t e^{-v gamma/n} (1 + 4
    sqrt(2 ln n/d))``, and the measured failure probability ``1 - P[s^ = s] = 1 - e^{-L}`` of
    the proof's JL embedding (mean and largest over ``seeds``), at ``v gamma = ratio n``."""
    import pandas as pd

    owner = "scaling_table"
    s = _sequence(owner, s, t)
    ratio = validate.real(owner, "ratio", ratio, above=0)
    widths = validate.integers(owner, "widths", list(widths), minimum=1)
    seeds = validate.integers(owner, "seeds", list(seeds), minimum=0)
    n = len(s)
    rows = []
    for d in widths:
        failures = []
        for seed in seeds:
            E = cf.jl_embedding(t, d, seed=seed)
            model = cf.eq1_model(E, cf.positional_embedding(s, cf.ATTRACTIVE, E), ratio * n / cf.ATTRACTIVE)
            failures.append(-math.expm1(-math.exp(cf.log_sequence_loss(model, s))))
        paper_eps, allowed = 2 * math.sqrt(2 * math.log(n) / d), exact_eps(n, d)
        display = 1 + 4 * math.sqrt(2 * math.log(n) / d)
        rows.append({"d": d, "ε (paper)": paper_eps, "ε (allowed)": allowed, "display factor": display,
                     "theorem factor e^{2ε}": math.exp(2 * allowed), "display bound": n * t * math.exp(-ratio) * display,
                     "failure (mean)": float(np.mean(failures)), "failure (max)": float(np.max(failures))})
    return pd.DataFrame(rows)


# ----------------------------------------------------------------------------- the closed form's P_r, as built
def positional_paths(N: int) -> dict:
    """For every word s of D_2N, the cumulative positional embedding ``P_r`` read off the library's
    decoder (:func:`~.closed_form.dyck_completer`): its largest distance from ``-Delta_r(s) + gamma
    E_{s_{r+1}}`` for r < 2N, and the extremes of ``|P_{2N-1}|`` and ``|P_{2N}|``."""
    N = validate.integer("positional_paths", "N", N, 1, dw.MAX_ENUMERATED)
    words = dw.all_words(N)
    gap, ends, last = 0.0, [], 0.0
    for s in words:
        P = np.cumsum(cf.dyck_completer(s).get_weight("W_pos").numpy()[:, 0])
        H = dw.heights(s)
        gap = max(gap, float(np.abs(P[:-1] + H[:-1] - cf.ATTRACTIVE * cf.DYCK_EMBEDDING[s[1:], 0]).max()))
        ends.append(abs(float(P[-2])))
        last = max(last, abs(float(P[-1])))
    return {"N": N, "words": len(words), "mirror gap": gap, "largest |P_2N-1|": max(ends),
            "smallest |P_2N-1|": min(ends), "largest |P_2N|": last}


# ----------------------------------------------------------------------------- Sec. 3.2, "Multiple sequences"
def _instance(n: int, m: int, seed: int):
    """m sequences of length n over t tokens that share tokens (a token of sequence 1 at position
    i + 1 is sequence 2's at i; sequence 3 has fresh tokens), whose token graph (an edge between
    the tokens sequences use at one position) is a tree, so that E and B can be solved for."""
    rng = np.random.default_rng(seed)
    t = n + 1 + (m - 2) * n
    labels = rng.permutation(t)
    seqs = [labels[np.arange(n)], labels[np.arange(1, n + 1)]]
    seqs += [labels[n + 1 + (j - 2) * n + np.arange(n)] for j in range(2, m)]
    return np.stack(seqs), t


def multiple_sequences(n: int, m: int, *, scales=(1.0, 5.0, 25.0), seed: int = 0) -> dict:
    """The sufficient condition of Sec. 3.2's "Multiple sequences" remark, built and tested: m
    sequences of length n (:func:`_instance`; they share tokens), an orthonormal family U of the
    m n vectors in d = max(m n, t) + 2 dimensions, E and B solved from ``E_{s^(j)_i} + B_i =
    U_{j,i}`` (Eq. (1)'s uniform attention), and V by least squares on the contexts (the remark's
    "autoregression in V") so that the logits are ``c delta_{s_{r+1}}``. Returns the Gram
    matrix's distance from I, the rank of the contexts, and per scale c the loss of each sequence
    (Eq. 2) and how many of its prefixes the loaded decoder regenerates it from, greedily."""
    from ...models.decoder import generate

    owner = "multiple_sequences"
    n = validate.integer(owner, "n", n, 3, 256)
    m = validate.integer(owner, "m", m, 2, 4)
    seed = validate.seed(owner, "seed", seed)
    scales = _ratios(owner, scales)
    seqs, t = _instance(n, m, seed)
    d = max(m * n, t) + 2
    rng = np.random.default_rng(seed + 1)
    U = np.linalg.qr(rng.standard_normal((d, m * n)))[0].T.reshape(m, n, d)  # orthonormal rows
    E = np.zeros((t, d))
    known = {int(seqs[0, 0]): rng.standard_normal(d)}
    for i in range(n):  # walk the token tree: E_a - E_b = U_{j,i} - U_{1,i} for a = s^(j)_i, b = s^(1)_i
        for j in range(1, m):
            a, b = int(seqs[j, i]), int(seqs[0, i])
            if b in known and a not in known:
                known[a] = known[b] + U[j, i] - U[0, i]
            elif a in known and b not in known:
                known[b] = known[a] - U[j, i] + U[0, i]
    for a, row in known.items():
        E[a] = row
    B = U[0] - E[seqs[0]]
    vectors = (E[seqs] + B[None]).reshape(m * n, d)
    gram_gap = float(np.abs(vectors @ vectors.T - np.eye(m * n)).max())
    contexts = np.cumsum(E[seqs] + B[None], axis=1)[:, :-1] / np.arange(1, n)[None, :, None]  # (m, n-1, d)
    X = contexts.reshape(-1, d)
    targets = np.eye(t)[seqs[:, 1:]].reshape(-1, t)  # the logits wanted, up to the scale c
    solve_E = np.linalg.pinv(E.T)  # (t, d): delta E^T-inverse, so that (delta solve_E) E^T = delta
    runs = []
    for c in scales:
        V = np.linalg.pinv(X) @ (c * targets @ solve_E)
        model = cf.eq1_model(E, B, 1.0)
        model.set_weights({"layers.0.attn.W_V": V[None]})
        losses, regenerated, logit_gap = [], [], 0.0
        for j, s in enumerate(seqs):
            logits = cf.next_token_logits(model, s)[:-1]
            logit_gap = max(logit_gap, float(np.abs(logits - c * np.eye(t)[s[1:]]).max()))
            losses.append(cf.sequence_loss(model, s))
            out = generate(model, [s[:k] for k in range(1, n)], n, greedy=True)
            regenerated.append(int((out == s[None]).all(1).sum()))
        runs.append({"c": c, "losses": losses, "regenerated": regenerated, "logit gap": logit_gap})
    return {"n": n, "m": m, "t": t, "d": d, "gram gap": gram_gap, "context rank": int(np.linalg.matrix_rank(X)),
            "contexts": X.shape[0], "runs": runs}


# ----------------------------------------------------------------------------- Sec. 4, the Catalan asymptotic
def catalan_table(Ns=(1, 2, 4, 8, 16, 32, 64, 128, 1024, 10**6)):
    """Sec. 4's ``C_N = binom(2N, N)/(N + 1) ~ 4^N pi^{-1/2} N^{-3/2}``: per N the exact count (for
    N <= 1024, Python integers), the ratio C_N / asymptotic (from exact logs: ``math.log`` of the
    integer, or ``lgamma`` beyond), and Stirling's next terms ``1 - 9/(8N) + 145/(128 N^2)``."""
    import pandas as pd

    Ns = validate.integers("catalan_table", "Ns", list(Ns), minimum=1)
    rows = []
    for N in Ns:
        exact = math.comb(2 * N, N) // (N + 1) if N <= 1024 else None
        log_c = math.log(exact) if exact is not None else \
            math.lgamma(2 * N + 1) - 2 * math.lgamma(N + 1) - math.log(N + 1)
        log_asym = N * math.log(4) - 0.5 * math.log(math.pi) - 1.5 * math.log(N)
        rows.append({"N": N, "C_N": exact if exact is not None and N <= 32 else None,
                     "ratio": math.exp(log_c - log_asym), "1 - 9/(8N) + 145/(128N²)": 1 - 9 / (8 * N) + 145 / (128 * N**2)})
    return pd.DataFrame(rows)


def catalan_counts(N_max: int = 10) -> dict:
    """``binom(2N, N)/(N + 1)`` against the words :func:`lib.tasks.dyck_words.all_words` lists and
    :func:`lib.tasks.dyck_words.catalan` counts, N = 1 .. ``N_max``."""
    N_max = validate.integer("catalan_counts", "N_max", N_max, 1, dw.MAX_ENUMERATED)
    return {N: (math.comb(2 * N, N) // (N + 1), len(dw.all_words(N)), dw.catalan(N)) for N in range(1, N_max + 1)}


# ----------------------------------------------------------------------------- Sec. 4.2, one word, zero loss
#: Sec. 4.2: "the training loss ... of a Transformer model trained on a single sequence reaches machine precision's zero"
SINGLE_WORD = Setup("richard2024", "Sec. 4.2 (single-word loss)", {
    "model d, L, h": Stated([1024, 4, 4], "Sec. 4.2, Sample size experiment (its single-sequence models, the "
                                          "largest model)"),
    "training words": Stated(1, "Sec. 4.2, Sample size experiment"),
    "Dyck length 2N": Stated(32, "Sec. 4.2, Data"),
    "optimizer": Stated("adamw", "Sec. 4.2, Models"),
    "steps": Stated(10_000, "Sec. 4.2, Models (a maximum of 10,000 iterations)"),
    "dropout": Stated(0.1, "Sec. 4.2, Models"),
})


def single_word_models(sizes: Result, comp: Result):
    """Every stored model trained on one word: the ``sample_size`` sweep's size-1 points (per
    training depth and seed: final training loss, out-of-sample accuracy on the deep prompts) and
    the ``completions`` sweep's one-word models (final loss, valid completions of 100 of the
    deep and deepest contexts)."""
    import pandas as pd

    from . import readings

    validate.instance("single_word_models", "sizes", sizes, Result)
    validate.instance("single_word_models", "comp", comp, Result)
    rows = []
    c = sizes.config
    for p in sizes.points:
        if p["point"]["size"] == 1:
            for seed, loss, out in zip(c["seeds"], p["result"]["final_loss"], p["result"]["out_acc"]):
                rows.append({"sweep": "sample_size", "word depth <=": p["point"]["train_depth"], "seed": seed,
                             "d, L, h": f"{c['d']}, {c['layers']}, {c['heads']}", "final loss": float(loss),
                             "out of sample": float(out)})
    c = comp.config
    for member in comp.points[0]["result"]["models"]["one word"]:
        valid = [readings.valid_count(member["contexts"][k]) for k in ("deep", "deepest")]
        rows.append({"sweep": "completions", "word depth <=": int(dw.depth(dw.from_string(c["word"]))),
                     "seed": member["seed"], "d, L, h": f"{c['d']}, {c['layers']}, {c['heads']}",
                     "final loss": float(member["final_loss"]), "out of sample": sum(valid) / (2 * c["samples"])})
    return pd.DataFrame(rows)


def single_word_config(sizes: Result, comp: Result) -> dict:
    """:data:`SINGLE_WORD`'s fields as the two sweeps ran them: one value where they agree (the
    default scale), the pair (sample_size's, completions') where they do not."""
    from . import setup
    from .training import RECIPE

    validate.instance("single_word_config", "sizes", sizes, Result)
    validate.instance("single_word_config", "comp", comp, Result)

    def fields(c: dict) -> dict:
        model = setup._gpt(c, c["d"], c["layers"], c["heads"])
        return {"model d, L, h": [c["d"], c["layers"], c["heads"]], "training words": 1,
                "Dyck length 2N": 2 * c["N"], "optimizer": RECIPE["optimizer"], "steps": c["steps"],
                "dropout": setup._dropout(model)}

    a, b = fields(sizes.config), fields(comp.config)
    return {k: a[k] if a[k] == b[k] else [a[k], b[k]] for k in a}


# ----------------------------------------------------------------------------- App. 5.1.1, GPT-4
#: App. 5.1.1: GPT-4's correct simplifications out of 10, per task size
GPT4_COUNTS = {"2 clauses, depth 1": (9, 10), "5 clauses, depth 3": (0, 10)}


def expression_shape(expression: str) -> dict:
    """The top-level clauses of an expression (joined by & or | outside every parenthesis) and its
    deepest parenthesis nesting (a clause of depth q nests q + 1 deep: its wrapper and q joins)."""
    validate.instance("expression_shape", "expression", expression, str)
    depth, deepest, clauses = 0, 0, 1
    for ch in expression:
        depth += (ch == "(") - (ch == ")")
        deepest = max(deepest, depth)
        clauses += depth == 0 and ch in "&|"
    return {"clauses": clauses, "nesting": deepest}


def gpt4_counts() -> dict:
    """What App. 5.1.1's GPT-4 counts allow without GPT-4: each count's Wilson interval, whether they
    are separated, Fisher's exact test of 9/10 against 0/10, and the worked example (one of the
    hard tasks as printed: its clauses and nesting, and whether GPT-4's answer is equivalent)."""
    from scipy import stats as sps

    from ... import stats
    from ...tasks import boolean_expressions as bx
    from .analysis import GPT4_ANSWER, GPT4_PROMPT

    (easy, n_easy), (hard, n_hard) = GPT4_COUNTS.values()
    intervals = {k: stats.proportion_interval(*v) for k, v in GPT4_COUNTS.items()}
    return {"intervals": intervals, "separated": stats.separated(*intervals.values()),
            "fisher p": float(sps.fisher_exact([[easy, n_easy - easy], [hard, n_hard - hard]])[1]),
            "example": expression_shape(GPT4_PROMPT),
            "example answer right": bool(bx.truth_table(GPT4_ANSWER) == bx.truth_table(GPT4_PROMPT))}
