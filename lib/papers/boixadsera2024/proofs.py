"""The appendix steps of Theorem 4.4's proof, made computable (Boix-Adsera et al. 2024, App. D-F).

Our text of the paper lost its formulas, so each statement here is our reconstruction from the
prose around it (the reading notes mark them [R]):

* **Claim D.5** (a perturbation bound for kernel ridge regression): for p.s.d. ``K`` and
  ``K̂ + λI`` invertible, ``|k(x)ᵀ(K + λI)⁻¹y - k̂(x)ᵀ(K̂ + λI)⁻¹y| ≤ ‖k - k̂‖ ‖y‖ / λ
  + ‖k̂‖ ‖(K̂ + λI)⁻¹‖ ‖K - K̂‖ ‖y‖ / λ`` (the proof's triangle inequality, with
  ``‖(K + λI)⁻¹‖ ≤ 1/λ`` and the resolvent identity).
* **Claim D.2**: the estimator and the idealised one (every pair of samples treated as if their
  substitution maps were disjoint, eqs. 16-18) differ by a term that vanishes as the diversity ρ
  grows, through the counts of "bad" pairs, ``E[#bad pairs] ≤ C n² / ρ``.
* **Claim D.4**: the idealised estimator's error on a string of template ``t_i`` is the label
  noise averaged over template i's samples: ``O(σ √(log(1/δ) / n))`` with probability ``1 - δ``.
* **Lemma E.1**: if ``S_σ ≠ S_id`` for every σ ≠ id (eq. 22), N after the cosine layer is
  nonsingular for almost every ``(b₁, b₂)``.
* **Claims F.2-F.6**: five Cauchy-Schwarz stages, one per Taylor coefficient of the attention
  kernel at (β, γ) = (0, 0), each forcing one more statistic of ``t_σ(i)`` to equal that of
  ``t_i`` when ``Σ_i`` of the coefficient is the same under σ as under the identity. The
  statistics (from the notes' reading of Table F.1, which lost its entries): the regular-token
  counts (``1ᵀXYᵀ1``), their positions (``tr XYᵀ``), the squared norm of the token-degree
  histogram (``1ᵀXXᵀ1``), the degree of each position (``XXᵀ1``) and the incidence matrix
  (``tr XXᵀYYᵀ``). Only stage 1 is tied to the kernel here (``κ(0, 0) = 1ᵀXYᵀ1 / k²``, exact);
  the derivative table itself is not recomputed.
"""
from __future__ import annotations

import itertools
import math

import numpy as np
import torch

from ... import validate
from ...tasks import symbol_templates as st
from . import kernel as K


# ----------------------------------------------------------------------------- App. D
def _samples(templates, labels, n: int, alphabet: int, seed: int):
    """``n`` training strings from an alphabet of ``alphabet`` tokens, their template indices, and
    one test string per template from a disjoint alphabet (unseen symbols)."""
    task = st.SymbolTemplates(templates, labels, n_symbols=alphabet, n_heldout=max(100, alphabet))
    index, batch = task.draw(n, torch.Generator().manual_seed(2 * seed))
    test_index, test = task.variant("test").draw(64, torch.Generator().manual_seed(2 * seed + 1))
    first = [int(np.flatnonzero(test_index.numpy() == i)[0]) for i in range(len(templates))]
    return batch.x.numpy(), index.numpy(), test.x.numpy()[first], task


def bad_pairs(x: np.ndarray, n_fixed: int) -> int:
    """Claim D.2's count: ordered pairs ``a ≠ b`` of samples whose substituted tokens (ids at or
    above ``n_fixed``: the regular tokens and ``[CLS]`` come first) overlap."""
    x = validate.array("bad_pairs", "x", x, ndim=2)
    sub = [set(row[row >= n_fixed].tolist()) for row in x]
    return sum(bool(sub[a] & sub[b]) for a in range(len(sub)) for b in range(len(sub)) if a != b)


def overlap_probability(alphabet: int, w: int) -> float:
    """The probability that two independent uniform injective maps of ``w`` wildcards into
    ``alphabet`` tokens share a token: ``1 - C(A - w, w) / C(A, w)`` (at most ``w² / A``)."""
    return 1.0 - math.comb(alphabet - w, w) / math.comb(alphabet, w)


def idealized_pair(templates, labels, params, n: int, alphabet: int, seed: int = 0) -> dict:
    """The Gram matrix K of ``n`` training strings and its idealisation K̂ (eq. 17: every pair of
    distinct samples as if their substitution maps were disjoint, ``K̂_ab = N[t_a, t_b]``; the
    diagonal, a sample with itself, is kept), the test kernel rows ``k`` and ``k̂`` (eq. 18) of
    one unseen string per template, the labels f*, and the bad-pair count."""
    x, t, test, task = _samples(templates, labels, n, alphabet, seed)
    N = K.n_matrix(templates, "transformer", params)
    gram = K.transformer_kernel(x, x, params)
    gram = (gram + gram.T) / 2
    ideal = N[np.ix_(t, t)]
    np.fill_diagonal(ideal, np.diag(gram))
    return {"K": gram, "K_hat": (ideal + ideal.T) / 2, "k": K.transformer_kernel(test, x, params),
            "k_hat": N[:, t], "t": t, "y": np.asarray(labels, dtype=float)[t],
            "bad": bad_pairs(x, _n_fixed(task)),
            "w": task.n_wildcards}


def _n_fixed(task) -> int:
    """How many token ids the templates' regular tokens and ``[CLS]`` take (they come first)."""
    return len(task.vocab) - task.n_symbols - 2 * task.n_heldout


def claim_d5_bound(pair: dict, lam: float) -> dict:
    """Claim D.5 on one :func:`idealized_pair`: the largest ``|f̂(x) - f̂_ideal(x)|`` over the test
    strings and the bound (largest over them too: each string is checked against its own)."""
    K_, Kh, k, kh, y = pair["K"], pair["K_hat"], pair["k"], pair["k_hat"], pair["y"]
    gap = np.abs(K.ridge(K_, y, k, lam) - K.ridge(Kh, y, kh, lam))
    inv_norm = 1.0 / np.abs(np.linalg.eigvalsh(Kh + lam * np.eye(len(Kh)))).min()
    bound = (np.linalg.norm(k - kh, axis=1) * np.linalg.norm(y) / lam
             + np.linalg.norm(kh, axis=1) * inv_norm * np.linalg.norm(K_ - Kh, 2) * np.linalg.norm(y) / lam)
    return {"gap": gap, "bound": bound, "min_eig_K": float(np.linalg.eigvalsh(K_)[0])}


def claim_d2_study(templates, labels, params, n: int = 256, alphabets=(16, 64, 256, 1024, 4096, 16384),
                   seeds=range(3), ridge_per_sample: float = 0.1) -> dict:
    """Claims D.2 and D.5 at fixed ``n`` as the training alphabet (and ρ = A / w) grows:
    per alphabet and seed, the bad-pair count against its exact expectation, the largest
    ``|f̂ - f̂_ideal|`` on unseen strings, and Claim D.5's bound for it (λ = ridge_per_sample · n)."""
    owner = "claim_d2_study"
    alphabets = validate.integers(owner, "alphabets", alphabets, minimum=2)
    seeds = validate.integers(owner, "seeds", seeds, minimum=0)
    validate.integer(owner, "n", n, minimum=2, maximum=4096)
    validate.real(owner, "ridge_per_sample", ridge_per_sample, above=0.0)
    out = {"alphabets": list(alphabets), "n": n, "lam": ridge_per_sample * n, "bad": [], "expected_bad": [],
           "gap": [], "bound": [], "min_eig_K": []}
    for A in alphabets:
        pairs = [idealized_pair(templates, labels, params, n, A, seed=s) for s in seeds]
        w = pairs[0]["w"]
        out["bad"].append([p["bad"] for p in pairs])
        out["expected_bad"].append(n * (n - 1) * overlap_probability(A, w))
        d5 = [claim_d5_bound(p, ridge_per_sample * n) for p in pairs]
        out["gap"].append([float(d["gap"].max()) for d in d5])
        out["bound"].append([float(d["bound"].max()) for d in d5])
        out["min_eig_K"].append(min(d["min_eig_K"] for d in d5))
        out["w"] = w
    return {k: np.array(v) if isinstance(v, list) and k != "alphabets" else v for k, v in out.items()}


def claim_d4_study(templates, labels, params, ns=(64, 256, 1024, 4096, 16384), seeds=range(400), sigma: float = 0.5,
                   delta: float = 0.1, ridge_per_sample: float = 1e-6) -> dict:
    """Claim D.4: the idealised estimator (block Gram matrix of N, eq. 16) with labels carrying
    N(0, σ²) noise, on a string of each template: per n, the ``1 - δ`` quantile over seeds of the
    largest error against f*, and the same quantile for the noise averaged over each template's
    samples, the quantity the claim says the error is."""
    owner = "claim_d4_study"
    ns = validate.integers(owner, "ns", ns, minimum=2)
    seeds = validate.integers(owner, "seeds", seeds, minimum=0)
    validate.real(owner, "sigma", sigma, minimum=0.0)
    validate.real(owner, "delta", delta, above=0.0, below=1.0)
    N = K.n_matrix(templates, "transformer", params)
    N = (N + N.T) / 2
    r, f = len(templates), np.asarray(labels, dtype=float)
    err, avg = [], []
    for n in ns:
        e_n, a_n = [], []
        for s in seeds:
            rng = np.random.default_rng(s)
            t = rng.integers(0, r, size=n)
            noise = sigma * rng.standard_normal(n)
            # (P N Pᵀ + λI)⁻¹ P = P (N PᵀP + λI)⁻¹ for the n × r template indicator P: exact, r × r
            counts, sums = np.bincount(t, minlength=r), np.bincount(t, weights=f[t] + noise, minlength=r)
            est = N @ np.linalg.inv(N * counts + ridge_per_sample * n * np.eye(r)).T @ sums
            e_n.append(np.abs(est - f).max())
            a_n.append(max(abs(noise[t == i].mean()) if (t == i).any() else math.inf for i in range(r)))
        err.append(np.quantile(e_n, 1 - delta))
        avg.append(np.quantile(a_n, 1 - delta))
    rate = sigma * np.sqrt(math.log(1 / delta) / np.asarray(ns, dtype=float))
    return {"ns": list(ns), "error": np.array(err), "noise_average": np.array(avg), "rate": rate,
            "slope": float(np.polyfit(np.log(ns), np.log(err), 1)[0]), "sigma": sigma, "delta": delta}


# ----------------------------------------------------------------------------- App. E
def lemma_e1_study(templates, params, points: int = 32, seed: int = 0, digits: int = 60) -> dict:
    """Lemma E.1 on one task, with the attention kernel's values fixed (Monte Carlo, ``params``):
    its hypothesis, the smallest ``|S_σ - S_id|`` over σ ≠ id of those fixed numbers (eq. 22);
    its conclusion, ``|det N|`` after the cosine layer at ``points`` random ``(b₁, b₂)``
    (``b₁ ~ U(0.25, 2)``, ``b₂ ~ U(0, 2π)``), computed with ``digits`` significant digits (mpmath)
    and divided by the product of N's row norms (Hadamard's bound, so 1 is the largest possible);
    and the same for the MLP kernel, whose ``S_σ`` are all equal (the hypothesis fails)."""
    import mpmath

    owner = "lemma_e1_study"
    K._templates(owner, templates, K.MAX_PERMUTED)
    validate.integer(owner, "points", points, minimum=1, maximum=10**4)
    validate.integer(owner, "digits", digits, minimum=16, maximum=1000)
    X, Y = K.substituted_pair(templates)
    bases = {"transformer": (K.attention_kernel(X, Y, params), K.attention_diagonal(X, params),
                             K.attention_diagonal(Y, params)),
             "MLP": (K.inner_product_kernel(X, Y), K._inner_diagonal(X, False), K._inner_diagonal(Y, False))}
    r = len(X)
    rng = np.random.default_rng(seed)
    b = [(rng.uniform(0.25, 2.0), rng.uniform(0.0, 2 * math.pi)) for _ in range(points)]
    out = {"templates": r}
    with mpmath.workdps(digits):
        for name, (base, kx, ky) in bases.items():
            sums = np.array([base[np.arange(r), list(s)].sum() for s in itertools.permutations(range(r))])
            out[name] = {"gap": float(np.abs(sums[1:] - sums[0]).min()) if r > 1 else math.inf}
            dets = []
            for b1, b2 in b:
                N = mpmath.matrix([[mpmath.mpf(0.5) * mpmath.exp(-b1**2 * mpmath.mpf(kx[i] + ky[j] - 2 * base[i, j]) / 2)
                                    + mpmath.mpf(0.5) * mpmath.cos(2 * b2)
                                    * mpmath.exp(-b1**2 * mpmath.mpf(kx[i] + ky[j] + 2 * base[i, j]) / 2)
                                    for j in range(r)] for i in range(r)])
                rows = mpmath.fprod(mpmath.norm(N[i, :]) for i in range(r))
                dets.append(float(abs(mpmath.det(N)) / rows))
            out[name]["det"] = np.array(dets)
    return out


# ----------------------------------------------------------------------------- App. F
#: the five stages of App. F.3, in order: (claim, the statistic of a pair (X, Y) whose sum over
#: i of (X_i, Y_σ(i)) the stage compares with the identity's, what it forces to match)
STAGES = ("F.2", "F.3", "F.4", "F.5", "F.6")


def _pair_statistics(x: np.ndarray, y: np.ndarray) -> tuple:
    """The five stage statistics of one pair of strings (token-id rows of one length)."""
    eq = x[:, None] == y[None, :]
    inc_x, inc_y = x[:, None] == x[None, :], y[:, None] == y[None, :]
    return (int(eq.sum()), int((x == y).sum()), int(inc_x.sum()) * int(inc_y.sum()),
            int(inc_x.sum(1) @ inc_y.sum(1)), int((inc_x & inc_y).sum()))


def _template_statistics(x: np.ndarray, shared: set) -> tuple:
    """What each stage forces to match, for one string: its shared-token (regular and [CLS])
    counts, their positions, ``1ᵀXXᵀ1``, the degree of each position ``XXᵀ1``, and the whole
    template up to renaming its wildcards (incidence matrix with the regular positions)."""
    inc = x[:, None] == x[None, :]
    fixed = tuple(int(v) if v in shared else -1 for v in x)
    return (tuple(sorted((v, int((x == v).sum())) for v in set(x.tolist()) & shared)), fixed, int(inc.sum()),
            tuple(inc.sum(1).tolist()), (fixed, inc.tobytes()))


def stage_table(templates) -> dict:
    """Claims F.2-F.6 on one set of disjoint templates, over every permutation σ of them: for
    each stage, how many σ violate the Cauchy-Schwarz inequality ``S_σ ≤ S_id``, how many reach
    the stage (equal sums at every earlier stage) with equal sums here but some ``t_σ(i)`` whose
    statistic differs from ``t_i``'s (the claim's implication failing), and how many are first
    separated from the identity here. ``unseparated`` counts σ ≠ id equal at all five stages."""
    parsed = K._templates("stage_table", templates, K.MAX_PERMUTED)
    X, Y = K.substituted_pair(templates)
    shared = set(X.ravel().tolist()) & set(Y.ravel().tolist())
    r = len(parsed)
    pair = np.array([[_pair_statistics(X[i], Y[j]) for j in range(r)] for i in range(r)])  # (r, r, 5)
    own = [_template_statistics(X[i], shared) for i in range(r)]
    identity = pair[np.arange(r), np.arange(r)].sum(axis=0)
    out = {s: {"above_identity": 0, "implication_fails": 0, "separated_here": 0} for s in STAGES}
    out["unseparated"], out["permutations"] = 0, 0
    for sigma in itertools.permutations(range(r)):
        if sigma == tuple(range(r)):
            continue
        out["permutations"] += 1
        sums = pair[np.arange(r), list(sigma)].sum(axis=0)
        alive = True
        for m, s in enumerate(STAGES):
            out[s]["above_identity"] += int(sums[m] > identity[m])
            if not alive:
                continue
            if sums[m] == identity[m]:
                out[s]["implication_fails"] += int(any(own[sigma[i]][m] != own[i][m] for i in range(r)))
            else:
                out[s]["separated_here"] += 1
                alive = False
        out["unseparated"] += int(alive)
    return out


def stage_study(tasks: dict, random_sets: int = 200, seed: int = 0) -> dict:
    """:func:`stage_table` summed over the tasks' templates and ``random_sets`` random sets of
    3 to 5 pairwise-disjoint templates of length 4 (wildcards α, β, γ; regular tokens A, B), and
    stage 1 tied to the kernel: the largest ``|κ(0, 0) - 1ᵀXYᵀ1 / k²|`` over every pair of each
    task's ``X_i, Y_j`` (exact at β = γ = 0, where the softmax is uniform)."""
    validate.integer("stage_study", "random_sets", random_sets, minimum=0, maximum=10**5)
    rng = np.random.default_rng(seed)
    alphabet = ["α", "β", "γ", "A", "B"]
    pool = [" ".join(t) for t in itertools.product(alphabet, repeat=4) if st.is_wildcard(t[0]) or "α" in t]
    sets = [list(t) for t, _ in tasks.values()]
    while len(sets) < len(tasks) + random_sets:
        chosen, size = [], int(rng.integers(3, 6))
        for i in rng.permutation(len(pool)):
            if all(st.are_disjoint(pool[i], c) for c in chosen):
                chosen.append(pool[i])
            if len(chosen) == size:
                break
        if len(chosen) >= 3:
            sets.append(chosen)
    total = {s: {"above_identity": 0, "implication_fails": 0, "separated_here": 0} for s in STAGES}
    total["unseparated"] = total["permutations"] = 0
    for templates in sets:
        table = stage_table(templates)
        for s in STAGES:
            for key in total[s]:
                total[s][key] += table[s][key]
        total["unseparated"] += table["unseparated"]
        total["permutations"] += table["permutations"]
    zero = K.KernelParams(beta=0.0, gamma=0.0, draws=16)
    kappa = 0.0
    for templates, _ in tasks.values():
        X, Y = K.substituted_pair(templates)
        counts = np.array([[(x[:, None] == y[None, :]).sum() for y in Y] for x in X]) / X.shape[1] ** 2
        kappa = max(kappa, float(np.abs(K.attention_kernel(X, Y, zero) - counts).max()))
    total["sets"], total["kappa_stage1_error"] = len(sets), kappa
    return total
