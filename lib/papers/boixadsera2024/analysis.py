"""Analysis that Part IV's chapters compute live (not stored results), moved out of the chapters.

Nothing here is imported by the sweeps or their training code, so changing it never makes a
stored result stale. Every number a claim reports from here is computed in float64, so that it
comes out the same on any machine (a float32 network's last bits differ between CPUs).
"""
from __future__ import annotations

import numpy as np
import torch

from ... import validate
from ...models import build_model
from ...tasks import symbol_templates as st


def _tasks(owner: str, tasks) -> dict:
    """``{name: (templates, labels)}``, non-empty."""
    validate.instance(owner, "tasks", tasks, dict)
    if not tasks:
        validate.fail(owner, "tasks", "a non-empty dict name -> (templates, labels)", tasks)
    for name, value in tasks.items():
        if not (isinstance(value, (tuple, list)) and len(value) == 2):
            validate.fail(owner, f"tasks[{name!r}]", "a pair (templates, labels)", value)
    return tasks


def _rows(owner: str, rows, keys: tuple[str, ...]) -> list:
    """A non-empty list of dicts with ``keys`` (what the matching study returns)."""
    if not isinstance(rows, (list, tuple)) or len(rows) == 0:
        validate.fail(owner, "rows", "a non-empty list of rows", rows)
    for i, row in enumerate(rows):
        if not isinstance(row, dict) or any(key not in row for key in keys):
            validate.fail(owner, f"rows[{i}]", "a dict with " + ", ".join(keys), row)
    return rows


def _pairs(owner: str, pairs) -> list:
    """``(beta, gamma)`` pairs of finite reals (possibly none)."""
    if isinstance(pairs, (str, bytes)) or not isinstance(pairs, (list, tuple)):
        validate.fail(owner, "pairs", "a list of (beta, gamma) pairs", pairs, validate.ArgumentTypeError)
    for i, pair in enumerate(pairs):
        if not (isinstance(pair, (tuple, list)) and len(pair) == 2):
            validate.fail(owner, f"pairs[{i}]", "a pair (beta, gamma)", pair)
        validate.real(owner, f"pairs[{i}][0]", pair[0])
        validate.real(owner, f"pairs[{i}][1]", pair[1])
    return list(pairs)


# ----------------------------------------------------------------------------- Figure 14
def last_layer_float64(task, n_train: int, init_scale: float = 1.0, seed: int = 0, data_seed: int = 0,
                       **shape) -> dict:
    """:func:`.last_layer.last_layer_only`, with the frozen random network evaluated in float64:
    the same weights (drawn in float32 by the same seeds, then cast), the same least-squares read-out
    with a bias; its train and test MSE on unseen symbols. In float32 the features' last bits depend
    on the CPU, and the least-squares fit at n = 16,384 turns them into a second-decimal change."""
    from .last_layer import readout_features, scale_init
    from .training import authors_init, model_config

    owner = "last_layer_float64"
    validate.instance(owner, "task", task, st.SymbolTemplates)
    validate.integer(owner, "n_train", n_train, minimum=1, maximum=validate.MAX_COUNT)
    validate.real(owner, "init_scale", init_scale, above=0.0)
    validate.seed(owner, "seed", seed)
    validate.seed(owner, "data_seed", data_seed)
    sets = task.splits(n_train, seed=data_seed)
    model = build_model(model_config(task, "vanilla", **shape), seed=seed)
    model = scale_init(authors_init(model, seed), init_scale).double().eval()

    def design(x):
        f = readout_features(model, x)
        return torch.cat([f, torch.ones(len(f), 1, dtype=f.dtype)], 1)

    X, y = design(sets["train"].x), sets["train"].y.double().reshape(-1)
    w = torch.linalg.lstsq(X, y[:, None], driver="gelsd").solution[:, 0]
    return {name: float(((design(sets[name].x) @ w - sets[name].y.double().reshape(-1)) ** 2).mean())
            for name in ("train", "test")}


def last_layer_table(ns, init_scales, seeds, **shape) -> dict:
    """Figure 14: ``{(n, multiplier): test MSE per seed}`` on αβα vs αββ (100 held-out strings)."""
    ns = validate.integers("last_layer_table", "ns", ns, minimum=1)
    if isinstance(init_scales, (str, bytes)) or not isinstance(init_scales, (list, tuple, np.ndarray)) or \
            len(init_scales) == 0:
        validate.fail("last_layer_table", "init_scales", "a non-empty list of multipliers", init_scales)
    for i, c in enumerate(init_scales):
        validate.real("last_layer_table", f"init_scales[{i}]", c, above=0.0)
    seeds = validate.integers("last_layer_table", "seeds", seeds, minimum=0)
    out = {}
    for n in ns:
        task = st.SymbolTemplates(*st.aba_abb(), n_symbols=n, n_heldout=100)
        for c in init_scales:
            out[n, c] = np.array([last_layer_float64(task, n, c, seed=s, **shape)["test"] for s in seeds])
    return out


# ----------------------------------------------------------------------------- chapter 1: MLPs
def mlp_study(ns, seeds, d_hidden: int, steps: int = 200) -> tuple[list[dict], list[dict]]:
    """Theorem I.2 and Lemma I.7 on same/different: per n, an ensemble of MLPs (``mlp.train_mlps``)
    and one coupled pair (``mlp.coupling_check``). Returns one row per n (train and test MSE per
    seed, whether the unseen-token weights are unchanged, the number of such weights, and
    ``f(x x) - f(x y)`` per seed on unseen strings) and the coupling per n."""
    from . import mlp

    ns = validate.integers("mlp_study", "ns", ns, minimum=1)
    seeds = validate.integers("mlp_study", "seeds", seeds, minimum=0)
    if len(seeds) < 2:
        validate.fail("mlp_study", "seeds", "at least 2 seeds (the table gives a standard error over seeds)", seeds)
    validate.integer("mlp_study", "d_hidden", d_hidden, minimum=1, maximum=validate.MAX_COUNT)
    validate.integer("mlp_study", "steps", steps, minimum=1)
    rows, coupling = [], []
    for n in ns:
        task = st.SymbolTemplates(*st.same_different(), n_symbols=n)
        out = mlp.train_mlps(task, n, seeds, steps=steps, d_hidden=d_hidden)
        rows.append({"n": n, "train_mse": out["train_mse"], "test_mse": out["test_mse"],
                     "unseen_unchanged": out["unseen_unchanged"], "unseen_rows": out["unseen_rows"],
                     "gap": out["mean_output_by_template"][:, 0] - out["mean_output_by_template"][:, 1]})
        coupling.append(mlp.coupling_check(task, n, seed=0, d_hidden=d_hidden, steps=steps))
    return rows, coupling


def mlp_frame(rows):
    """The MLP study as a table, one row per n (the rows of :func:`mlp_study`)."""
    import math

    _rows("mlp_frame", rows, ("n", "train_mse", "test_mse", "unseen_unchanged", "unseen_rows", "gap"))

    import pandas as pd

    return pd.DataFrame([{
        "n": r["n"], "train MSE": r["train_mse"].mean(), "test MSE (unseen)": r["test_mse"].mean(),
        "lowest test MSE": r["test_mse"].min(), "unseen weights unchanged": bool(r["unseen_unchanged"].all()),
        "weights reading unseen tokens": r["unseen_rows"],
        "f(x x) - f(x y): mean ± s.e.": f"{r['gap'].mean():+.3f} ± {r['gap'].std(ddof=1) / math.sqrt(len(r['gap'])):.3f}"}
        for r in rows]).set_index("n")


# ----------------------------------------------------------------------------- chapter 1: the kernel
#: the six strings of the kernel's checks (token ids; 0 is [CLS])
KERNEL_STRINGS = np.array([[1, 2, 1, 0], [3, 4, 3, 0], [1, 2, 2, 0], [5, 6, 6, 0], [1, 1, 2, 0], [7, 8, 9, 0]])


def kernel_checks(params, mc_samples: int, wide_seeds: int, strings=KERNEL_STRINGS) -> dict:
    """Claim E.2 and App. H, checked on ``strings``: the β = 0 closed form; token symmetry, on the
    explicit-features kernel (one Gaussian per token *id*, so relabelling hands each token other
    draws and only the kernel's symmetry in expectation keeps it equal: ``symmetry_gap``) and
    ``K(X, Y) = K(Y, X)`` of the pattern cache (whose two orders are different patterns, estimated
    apart: ``swap_gap``); positive semi-definiteness of the pattern cache's Gram matrix of
    ``strings`` and of 64 αβα/αββ strings from an alphabet of 8 (many repeated patterns), which is
    not a Gram matrix by construction (each pattern is its own Monte Carlo estimate): ``min_eig``,
    the smallest eigenvalue over the largest; the explicit features' gap to the pattern cache; the
    cosine layer's closed form against ``mc_samples`` Monte Carlo draws; and ``wide_seeds`` wide
    random transformers of the shared stack (evaluated in float64) against the kernel."""
    from . import kernel as K

    owner = "kernel_checks"
    validate.instance(owner, "params", params, K.KernelParams)
    validate.integer(owner, "mc_samples", mc_samples, minimum=1, maximum=10**8)
    validate.integer(owner, "wide_seeds", wide_seeds, minimum=1, maximum=1000)
    strings = K._as_strings(owner, "strings", strings)
    if strings.min() < 0 or strings.max() > 9:
        validate.fail(owner, "strings", "token ids in 0..9 (the relabelling and the wide model's vocabulary of 10)",
                      strings.tolist())
    k = strings.shape[1]
    uniform = K.attention_kernel(strings, strings, K.KernelParams(beta=0.0, gamma=2.0, draws=10))
    exact = (strings[:, None, :, None] == strings[None, :, None, :]).sum(axis=(2, 3)) / k**2 + 4.0 / k
    relabel = np.vectorize({0: 0, 1: 42, 2: 17, 3: 5, 4: 99, 5: 1, 6: 2, 7: 3, 8: 4, 9: 6}.get)
    features = K.attention_kernel_features(strings, K.KernelParams(draws=20000))
    relabelled = K.attention_kernel_features(relabel(strings), K.KernelParams(draws=20000))
    cached = K.attention_kernel(strings, strings, K.KernelParams(draws=20000))
    templates, labels = st.aba_abb()
    _, batch = st.SymbolTemplates(templates, labels, n_symbols=8).draw(64, torch.Generator().manual_seed(0))
    grams = [K.attention_kernel(x, x, params) for x in (strings, batch.x.numpy())]
    swap_gap = max(np.abs(g - g.T).max() / g.max() for g in grams)
    min_eig = min((lambda e: e[0] / e[-1])(np.linalg.eigvalsh((g + g.T) / 2)) for g in grams)
    rng = np.random.default_rng(0)
    u, v = rng.multivariate_normal([0, 0], [[1.3, 0.6], [0.6, 0.8]], size=mc_samples).T
    cos_mc = np.mean(np.cos(0.5 * u + 0.3) * np.cos(0.5 * v + 0.3))
    cos_closed = K.cosine_layer(np.array([[0.6]]), np.array([1.3]), np.array([0.8]), 0.5, 0.3)[0, 0]
    grams = []
    for seed in range(wide_seeds):
        model = K.wide_random_transformer(10, k, K.KernelParams(draws=20000), d_model=1024, n_heads=128, seed=seed)
        with torch.no_grad():
            z = model.double()(torch.tensor(strings))
        grams.append((z @ z.T).numpy())
    return {"beta0_err": float(np.abs(uniform - exact).max()),
            "symmetry_gap": float(np.abs(features - relabelled).max() / features.max()),
            "swap_gap": float(swap_gap), "min_eig": float(min_eig),
            "feature_gap": float(np.abs(features - cached).max() / cached.max()),
            "closed_form_err": float(abs(cos_closed - cos_mc)), "mc_samples": mc_samples,
            "wide_gap": float(np.abs(np.mean(grams, 0) - cached).max() / cached.max()), "wide_seeds": wide_seeds}


def wide_gap_study(d_heads=(32, 128), seeds=(32, 12), strings=KERNEL_STRINGS, reference_draws: int = 200_000) -> dict:
    """How far the average Gram matrix of wide random transformers (``kernel.wide_random_transformer``,
    128 heads, d = 1024, float64) sits from ``K_attn`` (pattern cache at ``reference_draws`` draws),
    per head width ``d_head`` with ``seeds`` networks each: ``{d_head: {"gap": {s: max |mean of the
    first s Grams - K| / max K}, "ratio": mean entrywise ratio per network}}``. A bias of finite
    width would stay as more networks are averaged; seed-to-seed spread falls like 1/sqrt(s)."""
    from . import kernel as K

    owner = "wide_gap_study"
    d_heads = validate.integers(owner, "d_heads", d_heads, minimum=1)
    seeds = validate.integers(owner, "seeds", seeds, minimum=2)
    if len(seeds) != len(d_heads):
        validate.fail(owner, "seeds", f"one count per d_head ({len(d_heads)})", seeds)
    validate.integer(owner, "reference_draws", reference_draws, minimum=1, maximum=10**7)
    strings = K._as_strings(owner, "strings", strings)
    reference = K.attention_kernel(strings, strings, K.KernelParams(draws=reference_draws, seed=3))
    out = {}
    for d_head, count in zip(d_heads, seeds):
        grams = []
        for seed in range(count):
            model = K.wide_random_transformer(10, strings.shape[1], K.KernelParams(draws=20000), d_model=1024,
                                              n_heads=128, d_head=d_head, seed=seed)
            with torch.no_grad():
                z = model.double()(torch.tensor(strings))
            grams.append((z @ z.T).numpy())
        grams = np.array(grams)
        counts = sorted({c for c in (4, 8, count) if c <= count})
        out[d_head] = {"gap": {c: float(np.abs(grams[:c].mean(0) - reference).max() / reference.max()) for c in counts},
                       "ratio": (grams / reference).mean(axis=(1, 2))}
    return out


def n_matrix_rows(tasks: dict, params, pairs, check_pairs_on_large: bool = True, cond_seeds: int = 8,
                  cond_draws: int = 64000) -> list[dict]:
    """Lemmas 4.5-4.7 and Remark I.6 per task: σmin/σmax of N under each kernel (the transformer's
    from ``cond_seeds`` pooled runs of ``cond_draws`` draws, with its jackknife standard error
    ``cond_se``: ``kernel.conditioning_estimate``), the smallest ``|S_σ - S_id|`` over σ ≠ id at
    each (β, γ) of ``pairs`` (absolute and in standard errors), Lemma E.1's determinant identity
    (shown, an algebraic identity) and Lemma E.1's conclusion, the smallest σmin/σmax of N over 8
    random cosine activations (b₁, b₂) for the transformer and the MLP kernel (``e1``; tasks of at
    most 4 templates). ``check_pairs_on_large=False`` skips the permutation gaps of tasks with
    more than 4 templates (8! permutations: the smoke scale's budget)."""
    from . import kernel as K

    _tasks("n_matrix_rows", tasks)
    validate.instance("n_matrix_rows", "params", params, K.KernelParams)
    _pairs("n_matrix_rows", pairs)
    validate.boolean("n_matrix_rows", "check_pairs_on_large", check_pairs_on_large)
    rows = []
    for name, (templates, _) in tasks.items():
        cond = {kern: K.conditioning(K.n_matrix(templates, kern, params)) for kern in K.KERNELS}
        cond["transformer"], cond_se = K.conditioning_estimate(
            templates, K.KernelParams(beta=params.beta, gamma=params.gamma, b1=params.b1, b2=params.b2,
                                      draws=cond_draws, seed=params.seed), seeds=cond_seeds)
        e1 = {kern: K.random_activation_conditioning(templates, kern, params) for kern in ("transformer", "MLP")} \
            if len(templates) <= 4 else None
        checked = pairs if (check_pairs_on_large or len(templates) <= 4) else ()
        gaps = [K.permutation_gap(templates, K.KernelParams(beta=b, gamma=g, draws=params.draws)) for b, g in checked]
        direct, formula = K.det_identity(templates, params)
        rows.append({"task": name, "templates": len(templates), "cond": cond, "gaps": [g for g, _ in gaps],
                     "z": [z for _, z in gaps], "det_err": abs(direct - formula) / abs(formula), "det": direct,
                     "cond_se": cond_se, "e1": e1})
    return rows


def n_matrix_frame(rows):
    """The rows of :func:`n_matrix_rows` as a table, one row per task."""
    import pandas as pd

    _rows("n_matrix_frame", rows, ("task", "templates", "cond", "gaps", "z", "det_err", "det"))

    return pd.DataFrame([{"task": r["task"], "templates": r["templates"],
                          **{f"σmin/σmax, {kern}": c for kern, c in r["cond"].items()},
                          "σmin/σmax, transformer: s.e.": r.get("cond_se", float("nan")),
                          "Lemma E.1: min σmin/σmax, 8 random (b₁, b₂)": (
                              float("nan") if r.get("e1") is None else r["e1"]["transformer"]),
                          "min |S_σ - S_id|": min(r["gaps"], default=float("nan")),
                          "in standard errors": min(r["z"], default=float("nan")),
                          "det N: |identity - direct| / |det|": f"{r['det_err']:.0e}", "det N": f"{r['det']:.1e}"}
                         for r in rows]).set_index("task")


# ----------------------------------------------------------------------------- chapter 1: ridge regression
def krr_errors(tasks: dict, ns, seeds, params, n_heldout: int = 1000) -> dict:
    """Theorem 4.4: ``{(task, kernel): test MSE (n, seed)}`` of kernel ridge regression on unseen
    symbols, training alphabet of n tokens (``kernel.krr_test_error``)."""
    from . import kernel as K

    _tasks("krr_errors", tasks)
    ns = validate.integers("krr_errors", "ns", ns, minimum=1)
    seeds = validate.integers("krr_errors", "seeds", seeds, minimum=0)
    validate.instance("krr_errors", "params", params, K.KernelParams)
    validate.integer("krr_errors", "n_heldout", n_heldout, minimum=1, maximum=validate.MAX_COUNT)
    return {(name, kern): np.array([[K.krr_test_error(st.SymbolTemplates(t, y, n_symbols=n, n_heldout=n_heldout), n,
                                                      kern, params, seed=s) for s in seeds] for n in ns])
            for name, (t, y) in tasks.items() for kern in K.KERNELS}


def noisy_krr_errors(templates, labels, ns, seeds, params, sigma: float = 0.5, n_heldout: int = 1000) -> np.ndarray:
    """Theorem 4.4's noise term: test MSE (n, seed) against the noiseless f* of the transformer
    kernel's ridge regression trained on labels with N(0, σ²) noise (``kernel.krr_test_error``)."""
    from . import kernel as K

    ns = validate.integers("noisy_krr_errors", "ns", ns, minimum=1)
    seeds = validate.integers("noisy_krr_errors", "seeds", seeds, minimum=0)
    validate.instance("noisy_krr_errors", "params", params, K.KernelParams)
    validate.real("noisy_krr_errors", "sigma", sigma, above=0.0)
    return np.array([[K.krr_test_error(st.SymbolTemplates(templates, labels, n_symbols=n, n_heldout=n_heldout), n,
                                       "transformer", params, seed=s, label_noise=sigma) for s in seeds] for n in ns])


def gradient_flow_run(templates, labels, params, n: int = 64, ridge_per_sample: float = 1e-2, steps: int = 1000,
                      seed: int = 0) -> dict:
    """Proposition 4.3 on one task: kernel gradient descent (``kernel.gradient_flow``, transformer
    kernel, λ = ridge_per_sample · n) on n training strings; per checkpoint the largest distance of
    its test predictions (unseen symbols) from the ridge estimator's, and the ridge estimator's test MSE."""
    from . import kernel as K

    validate.instance("gradient_flow_run", "params", params, K.KernelParams)
    validate.integer("gradient_flow_run", "n", n, minimum=1, maximum=10**4)
    validate.real("gradient_flow_run", "ridge_per_sample", ridge_per_sample, above=0.0)
    task = st.SymbolTemplates(templates, labels, n_symbols=n, n_heldout=1000)
    train, test = task.variant("train").sample(n, seed=2 * seed), task.variant("test").sample(300, seed=2 * seed + 1)
    xs, xt, y = train.x.numpy(), test.x.numpy(), train.y.double().numpy().reshape(-1)
    Ktr, Kte = K.transformer_kernel(xs, xs, params), K.transformer_kernel(xt, xs, params)
    lam = ridge_per_sample * n
    f_ridge = K.ridge(Ktr, y, Kte, lam)
    at, f = K.gradient_flow(Ktr, y, Kte, lam, steps)
    return {"steps": at, "distance": np.abs(f - f_ridge).max(axis=1),
            "ridge_mse": float(np.mean((f_ridge - test.y.double().numpy().reshape(-1)) ** 2)),
            "flow_mse": np.mean((f - test.y.double().numpy().reshape(-1)) ** 2, axis=1)}


def diversity_errors(tasks: dict, alphabets, seeds, params, n: int = 256, n_heldout: int = 1000) -> dict:
    """Theorem 4.4's ρ: ``{task: test MSE (alphabet, seed)}`` of the transformer kernel at fixed n."""
    from . import kernel as K

    _tasks("diversity_errors", tasks)
    alphabets = validate.integers("diversity_errors", "alphabets", alphabets, minimum=1)
    seeds = validate.integers("diversity_errors", "seeds", seeds, minimum=0)
    validate.instance("diversity_errors", "params", params, K.KernelParams)
    validate.integer("diversity_errors", "n", n, minimum=1, maximum=validate.MAX_COUNT)
    validate.integer("diversity_errors", "n_heldout", n_heldout, minimum=1, maximum=validate.MAX_COUNT)
    return {name: np.array([[K.krr_test_error(st.SymbolTemplates(t, y, n_symbols=A, n_heldout=n_heldout), n,
                                              "transformer", params, seed=s) for s in seeds] for A in alphabets])
            for name, (t, y) in tasks.items()}


# ----------------------------------------------------------------------------- chapter 1: Figure 4
def gram_blocks(templates, labels, params, alphabet: int, n: int = 64) -> dict:
    """Figure 4: the transformer kernel's Gram matrix of ``n`` strings sorted by template, and the
    worst block's mean deviation of its off-diagonal entries from N's entry."""
    from . import kernel as K

    validate.instance("gram_blocks", "params", params, K.KernelParams)
    validate.integer("gram_blocks", "alphabet", alphabet, minimum=1, maximum=validate.MAX_COUNT)
    validate.integer("gram_blocks", "n", n, minimum=1, maximum=10**4)
    N = K.n_matrix(templates, "transformer", params)
    index, batch = st.SymbolTemplates(templates, labels, n_symbols=alphabet).draw(n, torch.Generator().manual_seed(0))
    order = np.argsort(index.numpy(), kind="stable")
    x, t = batch.x.numpy()[order], index.numpy()[order]
    gram = K.transformer_kernel(x, x, params)
    off = ~np.eye(len(x), dtype=bool)
    r = len(templates)
    deviation = max(np.abs(gram[np.ix_(t == i, t == j)][off[np.ix_(t == i, t == j)]] - N[i, j]).mean()
                    for i in range(r) for j in range(r))
    return {"gram": np.where(off, gram, np.nan), "deviation": float(deviation), "N": N}


# ----------------------------------------------------------------------------- chapter 3: discussion
def discussion_frame(predictions: dict, recorded) -> tuple:
    """Each of the theory's predictions beside the recorded claims of this part that test it
    (``recorded``: ``claims.collect()``); returns the table and the refs not recorded yet."""
    import pandas as pd

    validate.instance("discussion_frame", "predictions", predictions, dict)
    recorded = list(validate.instance("discussion_frame", "recorded", recorded, (list, tuple)))
    part = [c for c in recorded if c.paper == "boixadsera2024"]
    rows = [{"prediction": prediction, "claim": c.ref, "verdict": c.verdict, "scale": c.scale,
             "ours": c.ours if len(c.ours) < 160 else c.ours[:157] + "..."}
            for prediction, refs in predictions.items() for ref in refs for c in part
            if c.ref == ref or c.ref.startswith(ref + " ")]
    missing = {ref for refs in predictions.values() for ref in refs
               if not any(r["claim"] == ref or r["claim"].startswith(ref + " ") for r in rows)}
    return pd.DataFrame(rows).set_index(["prediction", "claim"]), missing


def learned_scalars(scale: str | None = None) -> dict:
    """How far Adam moved a_h and b_h (from 0): the nonzero mean |a_h|, |b_h| of every stored run
    of this part that has them, ``{"a_h": [...], "b_h": [...]}``."""
    from ... import scale as _scale
    from .sweeps import result

    if scale is not None:
        validate.choice("learned_scalars", "scale", scale, _scale.SCALES)
    learned = {"a_h": [], "b_h": []}
    for name in ("identity_scalings", "majority", "copy", "program_symbolic", "pretraining"):
        for row in result(name, scale).points:
            for key, label in (("mean_abs_a", "a_h"), ("mean_abs_b", "b_h")):
                learned[label] += [v for v in row["result"].get(key, []) if v > 0]
    return learned


# ----------------------------------------------------------------------------- chapter 1: Remarks I.3-I.5
#: Remark I.5's trainers: (name, optimizer, batch size (None: full batch), learning rate, steps)
MLP_TRAINERS = (("Adam, full batch", "adam", None, 1e-3, 200), ("Adam, batch 16", "adam", 16, 1e-3, 200),
                ("SGD, full batch", "sgd", None, 0.05, 500), ("SGD, batch 16", "sgd", 16, 0.05, 500))


def mlp_trainers(n: int, seeds, d_hidden: int = 64, trainers=MLP_TRAINERS) -> dict:
    """Remarks I.4-I.5 on same/different at ``n`` samples: for each trainer, ``mlp.train_mlps``'s
    train and test MSE, whether the unseen-token weights are unchanged, and how far the seen-token
    weights moved (relative Frobenius change, per seed)."""
    from . import mlp

    validate.integer("mlp_trainers", "n", n, minimum=1, maximum=validate.MAX_COUNT)
    seeds = validate.integers("mlp_trainers", "seeds", seeds, minimum=0)
    task = st.SymbolTemplates(*st.same_different(), n_symbols=n)
    out = {}
    for name, optimizer, batch, lr, steps in trainers:
        r = mlp.train_mlps(task, n, seeds, steps=steps, lr=lr, d_hidden=d_hidden, optimizer=optimizer, batch_size=batch)
        out[name] = {k: r[k] for k in ("train_mse", "test_mse", "unseen_unchanged", "seen_moved")}
    return out


def same_different_construction(n_test: int = 300, seed: int = 0) -> float:
    """Remark I.3 by construction: a one-hidden-layer ReLU MLP on the concatenated one-hots of
    same/different, with one hidden unit per token ``v`` of the whole vocabulary,
    ``h_v = relu(1(x_1 = v) + 1(x_2 = v) - 1)``, and output ``2 Σ_v h_v - 1``; its test MSE on
    ``n_test`` strings of unseen symbols (its weights on unseen tokens are set, not learned)."""
    validate.integer("same_different_construction", "n_test", n_test, minimum=1, maximum=validate.MAX_COUNT)
    task = st.SymbolTemplates(*st.same_different(), n_symbols=16, n_heldout=100)
    test = task.variant("test").sample(n_test, seed=seed)
    x = test.x.numpy()
    V = int(x.max()) + 1
    onehot = np.zeros((len(x), 2, V))
    onehot[np.arange(len(x))[:, None], np.arange(2)[None, :], x[:, :2]] = 1.0
    W = np.stack([np.eye(V), np.eye(V)])  # (position, token, hidden unit)
    hidden = np.maximum(np.einsum("npv,pvh->nh", onehot, W) - 1.0, 0.0)
    f = 2 * hidden.sum(axis=1) - 1
    return float(np.mean((f - test.y.double().numpy().reshape(-1)) ** 2))


# ----------------------------------------------------------------------------- chapter 1: Claim D.3
def idealized_estimator(templates, labels, params, kernel: str = "transformer", n: int = 256,
                        ridge_per_sample: float = 1e-8, seed: int = 0) -> dict:
    """Claim D.3 on the idealised Gram matrix (App. D): n samples' templates drawn uniformly, the
    Gram matrix block-constant with the blocks of N (``K_ab = N[t_a, t_b]``), λ = ridge_per_sample · n.
    For a test string of each template i, the weights ``a = (K + λI)^{-1} K(x, X)`` against
    ``1_{S_i} / |S_i|`` (the indicator of template i's samples over their count): the largest
    ℓ₁ distance over i, and the largest error of the idealised estimator ``aᵀ y`` against f*(t_i).
    The distance scales with λ / (|S_i| σ_min(N)): the claim's regime is λ small against that."""
    from . import kernel as K

    validate.instance("idealized_estimator", "params", params, K.KernelParams)
    validate.choice("idealized_estimator", "kernel", kernel, K.KERNELS)
    validate.integer("idealized_estimator", "n", n, minimum=1, maximum=10**4)
    N = K.n_matrix(templates, kernel, params)
    N = (N + N.T) / 2  # the kernel is symmetric; its Monte Carlo N only to noise (kernel.ridge symmetrises too)
    r = len(templates)
    t = np.random.default_rng(seed).integers(0, r, size=n)
    gram = N[np.ix_(t, t)]
    y = np.asarray(labels, dtype=float)[t]
    solve = np.linalg.solve(gram + ridge_per_sample * n * np.eye(n), N[:, t].T)  # (n, r): one column per template
    distance = max(np.abs(solve[:, i] - (t == i) / max((t == i).sum(), 1)).sum() for i in range(r))
    error = max(abs(solve[:, i] @ y - labels[i]) for i in range(r))
    return {"distance": float(distance), "error": float(error), "kernel": kernel, "n": n}


def binding_bayes_perplexity(n_variables: int, n_values: int, seq_len: int, print_fraction: float = 0.5) -> float:
    """The least perplexity any model can reach on :class:`~lib.tasks.binding_text.VariableBindingText`
    (Sec. 6's stand-in corpus): exp of the expected next-token cross-entropy of the generating
    process itself, per target (``seq_len - 1`` of them), computed exactly by following the
    number b of bound variables from statement to statement. Given b, a statement's first token
    is ``print`` with probability f b / V (f the print fraction, V variables), a bound variable
    with (1 - f) / V each and an unbound one with 1 / V each; after ``print`` the variable is
    uniform over the b bound ones and its value is known; after an assignment's ``=`` the value is
    uniform over the values; ``=`` and ``;`` are certain. (The first statement's first token is
    no target; the first statement is an assignment.) ``tests/test_boixadsera2024_floor.py``
    checks it against the exact conditional probabilities on sampled text."""
    owner = "binding_bayes_perplexity"
    V = validate.integer(owner, "n_variables", n_variables, 1, 1000)
    values = validate.integer(owner, "n_values", n_values, 1, 1000)
    seq_len = validate.integer(owner, "seq_len", seq_len, 8, 100_000)
    if seq_len % 4:
        validate.fail(owner, "seq_len", "a multiple of 4 (four-token statements)", seq_len)
    f = validate.real(owner, "print_fraction", print_fraction, minimum=0.0, maximum=1.0)

    def xlogx(p: float) -> float:
        return p * np.log(p) if p > 0 else 0.0

    total = np.log(values)  # statement 0: '=', its value, ';'
    bound = np.zeros(V + 1)
    bound[1] = 1.0
    for _ in range(1, seq_len // 4):
        for b in np.flatnonzero(bound):
            printing = f * b / V
            first = -xlogx(printing) - b * xlogx((1 - f) / V) - (V - b) * xlogx(1 / V)
            total += bound[b] * (first + printing * np.log(b) + (1 - printing) * np.log(values))
        new = bound * np.arange(V, -1, -1) / V  # an assignment to an unbound variable: b -> b + 1
        bound = bound - new + np.concatenate([[0.0], new[:-1]])
    return float(np.exp(total / (seq_len - 1)))
