"""The Dyck training experiments of Richard (2024, Sec. 4.2, App. 5.3) as named sweeps.

Every model is the library's decoder trained by the shared trainer on whole words (one word per
row, next-token loss), with nanoGPT's optimiser (:data:`~.training.RECIPE`); accuracy is the
paper's: the share of sampled completions (temperature 1) that are Dyck words. The default scale
is the reading notes' reduced setting (D_20, d <= 32, 600 steps of 64 words) that shows each
trend on a CPU; the paper scale is D_32 with the paper's grid (batch 8, 10,000 steps).

===============  ========================================================================
sweep            what
===============  ========================================================================
``architectures`` Figure 3 left: deep-prefix accuracy against width, layers and heads
``sample_size``  Figure 3 right: in- and out-of-sample accuracy against the number of
                 distinct training words, for several training depths
``completions``  Figure 4, Table 1, Figure 5: a one-word model and a many-word model on given
                 contexts (100 samples each), and their value-output spectra
``ablations``    Figures 6 and 7: no positional embedding, uniform attention with fixed
                 embeddings, V = I without MLP, one self-attention layer; learned positional paths
``gd_eq1``       gradient descent on the exact model class of Theorem 4.1 (d = 1): it
                 memorizes its word but does not find the closed form
``boolean_simplification``  Figure 1: a decoder per training depth on Boolean simplification,
                 in and out of sample at test depths 3 and 6
===============  ========================================================================

``python -m lib.papers.richard2024 SCALE [NAME ...]`` runs them.
"""
from __future__ import annotations

import itertools

import numpy as np

from ...scale import at
from ... import validate
from ...models import build_model
from ...models.decoder import eq1_config, generate, gpt_config
from ...results import Result, Sweep
from ...tasks import boolean_expressions as bx
from ...tasks import dyck_words
from . import boolean, training
from .closed_form import DYCK_EMBEDDING

SINGLE_WORDS = {10: "(()(()())((()())))()", 16: "(()(()())((()()))((())))(()())()"}




def _recipe(scale: str) -> dict:
    """Optimisation and data sizes shared by the sweeps at one scale."""
    return dict(N=at(scale, 8, 10, 16), steps=at(scale, 60, 600, 10_000), batch_size=at(scale, 32, 64, 8),
                # the rate the architectures grid picks for the d = 32, L = h = 2 decoder at default
                lr=at(scale, 3e-3, 1e-2, 6e-5), warmup=at(scale, 10, 50, 200),
                n_test=at(scale, 64, 512, 1024), mlp_ratio=8)


#: the learning-rate grid of the sweeps that compare architectures (the paper: "learning rates
#: between 6e-6 and 6e-5"); each point is read at the rate of lowest training loss
LRS = dict(smoke=[3e-3, 1e-2], default=[3e-3, 1e-2, 3e-2], paper=[6e-6, 2e-5, 6e-5])


def _fit(config: dict, model, seeds, data, device=None, stop_after=None, lr=None):
    """Train on words; ``lr`` (one per member) overrides the config's single rate."""
    return training.train_on_words(model, seeds, data, steps=config["steps"], lr=config["lr"] if lr is None else lr,
                                   batch_size=config["batch_size"], warmup=config["warmup"], device=device,
                                   stop_after=stop_after)


def _final_loss(run) -> list[float]:
    """Each member's mean training loss over the last tenth of its steps."""
    tail = max(1, run.train_loss.shape[1] // 10)
    return run.train_loss[:, -tail:].mean(1).tolist()


# ----------------------------------------------------------------------------- Figure 3 left
def architectures(scale: str) -> tuple[dict, list[dict]]:
    config = dict(_recipe(scale), train_depth=at(scale, 3, 5, 8), test_depth=at(scale, 6, 7, 9),
                  train_words=at(scale, None, None, 100_000), seeds=list(range(at(scale, 1, 5, 1))),
                  lrs=LRS[scale])
    shapes = at(scale, [(1, 1)], [(1, 1), (2, 2), (4, 2)], [(L, h) for L in (1, 2, 4) for h in (1, 2, 4)])
    widths = at(scale, [2, 8], [2, 8, 32], [2, 16, 128, 512, 1024])
    grid = [{"d": d, "layers": L, "heads": h} for d in widths for L, h in shapes if d % h == 0]
    return config, grid


def run_architectures(config: dict, points: list[dict], *, scale: str, device=None, stop_after=None) -> list[dict]:
    N, point = config["N"], points[0]
    train_set = training.word_set(N, config["train_words"], max_depth=config["train_depth"], seed=0)
    test = training.deep_prefixes(N, config["test_depth"], config["n_test"], seed=1)
    inside = training.random_prefixes(train_set, config["n_test"], seed=2)
    model = gpt_config(2, 2 * N, point["d"], point["layers"], point["heads"], mlp_ratio=config["mlp_ratio"])
    grid = [(s, lr) for lr in config["lrs"] for s in config["seeds"]]  # a seed starts alike at every rate
    run = _fit(config, model, [s for s, _ in grid], train_set, device, stop_after, lr=tuple(lr for _, lr in grid))
    members = [run.model(k) for k in range(run.K)]
    return [{"seed": [s for s, _ in grid], "lr": [lr for _, lr in grid],
             "deep_acc": [training.completion_accuracy(m, test, N, seed=3) for m in members],
             "in_acc": [training.completion_accuracy(m, inside, N, seed=4) for m in members],
             "final_loss": _final_loss(run), "params": members[0].n_params(), "wall_s": run.wall_s}]


# ----------------------------------------------------------------------------- Figure 3 right
def sample_size(scale: str) -> tuple[dict, list[dict]]:
    """Figure 3 right. The paper draws 10^k distinct words, k = 0, 1, 3, 5, 7; the paper scale here
    stops at k = 6 (10^6 words), a difference from the paper: 10^7 distinct words of depth <= 4 do
    not exist (D_32 holds 7,174,454), and each member's set is tiled to the largest set's size to
    train as one ensemble, which at 10^7 words is 5 members x 10^7 words as inputs and targets,
    about 25 GB on the device and over 60 GB at the host's peak (``python -m lib.papers dryrun``).
    The 10,000 steps of 8 words draw 80,000 words, so a member on 10^6 words sees a fresh word at 92%
    or more of its draws, as one on 10^7 words would at 99%: both are the regime of "a large
    training set"."""
    config = dict(_recipe(scale), test_depth=at(scale, 6, 7, 13), seeds=list(range(at(scale, 1, 5, 1))),
                  d=at(scale, 16, 32, 1024), layers=at(scale, 2, 2, 4), heads=at(scale, 2, 2, 4))
    depths = at(scale, [3], [3, 5], [4, 8, 12])
    sizes = at(scale, [1, 10, "all"], [1, 10, 100, 1000, "all"], [1, 10, 1000, 100_000, 1_000_000])
    return config, [{"train_depth": q, "size": n} for q in depths for n in sizes]


def run_sample_size(config: dict, points: list[dict], *, scale: str, device=None, stop_after=None) -> list[dict]:
    """One ensemble per training depth: every (size, seed) is a member with its own words."""
    N, seeds = config["N"], config["seeds"]
    q = points[0]["train_depth"]
    sets = {(p["size"], s): training.word_set(N, None if p["size"] == "all" else p["size"], max_depth=q,
                                               seed=100 + s) for p in points for s in seeds}
    rows = max(len(w) for w in sets.values())
    members = [(p["size"], s) for p in points for s in seeds]
    model = gpt_config(2, 2 * N, config["d"], config["layers"], config["heads"], mlp_ratio=config["mlp_ratio"])
    run = _fit(config, model, [1000 * i + s for i, (_, s) in enumerate(members)],
               [training.tiled(sets[m], rows) for m in members], device, stop_after)
    test = training.deep_prefixes(N, config["test_depth"], config["n_test"], seed=1)
    losses = _final_loss(run)
    out = []
    for p in points:
        ks = [k for k, m in enumerate(members) if m[0] == p["size"]]
        out.append({"out_acc": [training.completion_accuracy(run.model(k), test, N, seed=3) for k in ks],
                    "in_acc": [training.completion_accuracy(run.model(k), training.random_prefixes(
                        sets[members[k]], config["n_test"], seed=2), N, seed=4) for k in ks],
                    "distinct_words": len(sets[members[ks[0]]]), "final_loss": [losses[k] for k in ks],
                    "wall_s": run.wall_s if p is points[0] else 0.0})
    return out


# ----------------------------------------------------------------------------- Figure 4, Table 1, Figure 5
def completions(scale: str) -> tuple[dict, list[dict]]:
    N = at(scale, 10, 10, 16)
    config = dict(_recipe(scale), N=N, word=SINGLE_WORDS[N], train_depth=at(scale, 5, 5, 8),
                  train_words=at(scale, None, None, 100_000), seeds=list(range(at(scale, 1, 5, 1))),
                  d=at(scale, 16, 32, 1024), layers=at(scale, 2, 2, 4), heads=at(scale, 2, 2, 4),
                  samples=100)
    word = SINGLE_WORDS[N]
    contexts = {"prefix of the word": word[:6], "deep": "(" * (N - 3), "shallow, not a prefix": "()()()",
                "deepest": "(" * N}
    config["contexts"] = contexts
    return config, [{"models": ["one word", f"all words of depth <= {config['train_depth']}"]}]


def run_completions(config: dict, points: list[dict], *, scale: str, device=None, stop_after=None) -> list[dict]:
    """Both models in one ensemble (the word tiled to the many-word set's size); one entry per model."""
    N, seeds = config["N"], config["seeds"]
    names = points[0]["models"]
    many = training.word_set(N, config["train_words"], max_depth=config["train_depth"], seed=0)
    one = dyck_words.from_string(config["word"])[None]
    data = {names[0]: training.tiled(one, len(many)), names[1]: many}
    members = [(name, s) for name in names for s in seeds]
    model = gpt_config(2, 2 * N, config["d"], config["layers"], config["heads"], mlp_ratio=config["mlp_ratio"])
    run = _fit(config, model, [1000 * i + s for i, (_, s) in enumerate(members)], [data[m] for m, _ in members],
               device, stop_after)
    losses = _final_loss(run)
    out = {}
    for model_name in names:
        per_seed = []
        for k, (name, seed) in enumerate(members):
            if name != model_name:
                continue
            net = run.model(k)
            contexts = {}
            for label, text in config["contexts"].items():
                words = generate(net, [dyck_words.from_string(text)] * config["samples"], 2 * N, seed=7)
                strings, counts = np.unique([dyck_words.to_string(w) for w in words], return_counts=True)
                order = np.argsort(-counts, kind="stable")
                contexts[label] = {"completions": strings[order].tolist(), "counts": counts[order].tolist(),
                                   "valid": [bool(dyck_words.is_valid(dyck_words.from_string(s))) for s in strings[order]]}
            spectra = {convention: [] for convention in training.OV_CONVENTIONS}
            for convention, layer in itertools.product(training.OV_CONVENTIONS, range(len(net.layers))):
                ov = training.ov_matrix(net, layer, convention)
                eig = np.linalg.eigvals(ov)
                spectra[convention].append({"singular": np.linalg.svd(ov, compute_uv=False).tolist(),
                                            "eig_real": eig.real.tolist(), "eig_imag": eig.imag.tolist()})
            per_seed.append({"seed": seed, "final_loss": losses[k], "contexts": contexts,
                             "spectra": spectra["circuit"], "spectra_nanogpt_literal": spectra["nanogpt_literal"]})
        out[model_name] = per_seed
    return [{"models": out, "wall_s": run.wall_s}]


# ----------------------------------------------------------------------------- Figures 6 and 7
VARIANTS = ("full", "no positional embedding", "uniform attention, fixed E", "V = I, no MLP", "one attention layer")


def variant_config(variant: str, N: int, d: int, layers: int, heads: int, mlp_ratio: int):
    """App. 5.3.4's five models: (1) the full decoder; (2) without positional embedding; (3) uniform
    attention and a fixed token embedding E = [u, -u] (the paper's [1...1, -1...-1]: see
    :func:`fixed_embedding`), the rest learned; (4) as (3) with V = I fixed and no MLP; (5) one
    layer, one head, uniform attention, fixed E, learned V, with residual and LayerNorm."""
    validate.instance("variant_config", "variant", variant, str)
    validate.integer("variant_config", "N", N, 1, validate.MAX_COUNT)
    for name, value in (("d", d), ("layers", layers), ("heads", heads)):
        validate.integer("variant_config", name, value, 1, validate.MAX_COUNT)
    validate.integer("variant_config", "mlp_ratio", mlp_ratio, 0, validate.MAX_COUNT)
    base = gpt_config(2, 2 * N, d, layers, heads, mlp_ratio=mlp_ratio)
    unused = ("layers.{}.attn.W_Q", "layers.{}.attn.W_K")
    if variant == "full":
        return base
    if variant == "no positional embedding":
        return base.replace(positions="none")
    if variant == "uniform attention, fixed E":
        return base.replace(attention="uniform", fixed=("W_E",) + tuple(u.format(i) for i in range(layers) for u in unused))
    if variant == "V = I, no MLP":
        fixed = ("W_E",) + tuple(u.format(i) for i in range(layers) for u in unused + ("layers.{}.attn.W_V",))
        return base.replace(attention="uniform", combine="mean", d_mlp=0, fixed=fixed)
    if variant == "one attention layer":
        return base.replace(n_layers=1, n_heads=1, attention="uniform", combine="mean", d_mlp=0,
                            fixed=("W_E",) + tuple(u.format(0) for u in unused))
    raise ValueError(f"variant_config: unknown variant {variant!r}; known: {', '.join(VARIANTS)}")


def fixed_embedding(d: int, seed: int = 0) -> np.ndarray:
    """E = [u, -u] for a random Gaussian direction u of norm sqrt(d). The paper's u = (1, ..., 1)
    is invisible behind a centring LayerNorm (LN(x + c 1) = LN(x)), so the token would be lost in
    a pre-LN stack; a random direction is the same construction up to a rotation."""
    d = validate.integer("fixed_embedding", "d", d, 1, validate.MAX_COUNT)
    validate.seed("fixed_embedding", "seed", seed)
    u = np.random.default_rng(seed).standard_normal(d)
    u *= np.sqrt(d) / np.linalg.norm(u)
    return np.stack([u, -u])


def ablations(scale: str) -> tuple[dict, list[dict]]:
    """Figures 6 and 7. The paper trains on 4^k distinct words, k = 1, ..., 12; the paper scale
    here stops at k = 10 (1,048,576 words), a difference from the paper. D_32 is too large to list,
    so the words are a uniform sample of it (:func:`_split`), and each member holds its own copy
    of its set as the trainer's int64 ids: at 4^12 the sample (37 million words), its deduplication
    and three members' copies of the largest set pass the 18 GiB a dry run allows on the host; at
    4^10 the largest training call (the 4^10 and 4^9 sets, six members: :func:`tile_calls`) holds
    3.2 GB. The 10,000 steps of 8 words draw 80,000 words, so the largest sets are seen as the
    paper's are: a fresh word at 92% or more of the draws. Figure 7's positional paths come from
    the broadest set, 4^10 here, 4^12 in the paper."""
    config = dict(_recipe(scale), test_share=0.1, seeds=list(range(at(scale, 1, 5, 1))), d=at(scale, 16, 32, 1024),
                  layers=at(scale, 2, 2, 4), heads=at(scale, 2, 2, 4), lrs=LRS[scale])
    sizes = at(scale, [4, "all"], [4, 64, 1024, "all"], [4**k for k in range(1, 11)])
    variants = at(scale, list(VARIANTS[:2]), list(VARIANTS), list(VARIANTS))
    return config, [{"variant": v, "size": n} for v in variants for n in sizes]


def _split(config: dict, largest: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    """App. 5.3.4's random (not by depth) split: a share of D_2N held out for testing. Where D_2N
    is too large to list, a uniform sample of it, large enough that the training side holds the
    ``largest`` set the grid asks for (twice over, before duplicates are removed)."""
    N = config["N"]
    if N <= dyck_words.MAX_ENUMERATED:
        words = dyck_words.all_words(N)[np.random.default_rng(0).permutation(dyck_words.catalan(N))]
    else:
        count = int(np.ceil(2 * (largest or 4**12) / (1 - config["test_share"])))
        words = dyck_words.distinct(dyck_words.sample_words(N, count, seed=0))
    n_test = int(round(config["test_share"] * len(words)))
    return words[n_test:], words[:n_test]


#: host bytes (words and targets, int64) one training call of :func:`run_ablations` may tile its
#: members' sets into; a group whose sets need more trains as several calls
TILE_BYTES = 4 * 2**30


def tile_calls(sizes: list[int], members_per_set: int, width: int, budget: int = TILE_BYTES) -> list[list[int]]:
    """The sets (indices into ``sizes``) that train together: largest first, a set joins the call
    while every member's set, tiled to the call's largest, fits ``budget`` bytes; each call lists
    its sets in their grid order. One call when everything fits (the default scale); each set
    alone at worst (its members share the set untiled)."""
    per_row = 2 * 8 * width  # words and targets, int64
    calls: list[list[int]] = []
    for i in sorted(range(len(sizes)), key=lambda j: -sizes[j]):
        if calls:
            rows = sizes[calls[-1][0]]  # the call's first set is its largest
            if (len(calls[-1]) + 1) * members_per_set * rows * per_row <= budget:
                calls[-1].append(i)
                continue
        calls.append([i])
    return [sorted(c) for c in calls]


def run_ablations(config: dict, points: list[dict], *, scale: str, device=None, stop_after=None) -> list[dict]:
    """One ensemble per variant: each (training-set size, seed, learning rate) is a member; where
    the members' sets, tiled to the largest, would not fit :data:`TILE_BYTES` (the paper scale),
    the sets train in several calls (:func:`tile_calls`), each tiled only to its own largest."""
    N, variant = config["N"], points[0]["variant"]
    train_pool, test_pool = _split(config, max((p["size"] for p in points if p["size"] != "all"), default=None))
    sets = [train_pool if p["size"] == "all" else train_pool[:p["size"]] for p in points]
    model = variant_config(variant, N, config["d"], config["layers"], config["heads"], config["mlp_ratio"])
    E = fixed_embedding(config["d"])

    def factory(seed: int):
        net = build_model(model, seed=seed)
        if "W_E" in model.fixed:
            net.set_weights({"W_E": E})
        if "layers.0.attn.W_V" in model.fixed:
            eye = np.eye(config["d"])[None].repeat(model.heads[0], 0)
            net.set_weights({f"layers.{i}.attn.W_V": eye for i in range(model.n_layers)})
        return net

    per_set = len(config["lrs"]) * len(config["seeds"])
    members, runs = [], []  # members: (set, seed, lr); runs: (the call's run, its member index)
    for call in tile_calls([len(s) for s in sets], per_set, 2 * N):
        mine = [(i, s, lr) for i in call for lr in config["lrs"] for s in config["seeds"]]
        rows = max(len(sets[i]) for i in call)
        run = _fit(config, factory, [1000 * i + s for i, s, _ in mine],
                   [training.tiled(sets[i], rows) for i, _, _ in mine], device, stop_after,
                   lr=tuple(lr for _, _, lr in mine))
        members += mine
        runs += [(run, k) for k in range(len(mine))]
    calls = list({id(run): run for run, _ in runs}.values())
    wall_s = sum(run.wall_s for run in calls)
    final = {id(run): _final_loss(run) for run in calls}
    losses = [final[id(run)][k] for run, k in runs]

    def model_of(k: int):
        run, j = runs[k]
        return run.model(j)

    test = training.random_prefixes(test_pool, config["n_test"], seed=1)
    out = []
    for i, p in enumerate(points):
        ks = [k for k, (j, _, _) in enumerate(members) if j == i]
        value = {"seed": [members[k][1] for k in ks], "lr": [members[k][2] for k in ks],
                 "in_acc": [training.completion_accuracy(model_of(k), training.random_prefixes(
                     sets[i], config["n_test"], seed=2), N, seed=4) for k in ks],
                 "out_acc": [training.completion_accuracy(model_of(k), test, N, seed=3) for k in ks],
                 "distinct_words": len(sets[i]), "final_loss": [losses[k] for k in ks],
                 "wall_s": wall_s if i == 0 else 0.0}
        if p["size"] == points[-1]["size"] and model.positions != "none":  # Figure 7: at the chosen rate
            best = training.best_lr(value["lr"], value["final_loss"])
            chosen = [k for k in ks if members[k][2] == best]  # every seed; the first one is pictured
            paths = [training.positional_paths(model_of(k)).round(4).tolist() for k in chosen]
            value["positional_paths"], value["positional_paths_seeds"] = paths[0], paths
        out.append(value)
    return out


# ----------------------------------------------------------------------------- GD on Theorem 4.1's class
def gd_eq1(scale: str) -> tuple[dict, list[dict]]:
    N = at(scale, 10, 10, 16)
    config = dict(N=N, word=SINGLE_WORDS[N], steps=at(scale, 300, 3000, 3000), lr=0.05,
                  seeds=list(range(at(scale, 2, 6, 6))), test_depth=at(scale, 7, 7, 9),
                  n_test=at(scale, 64, 512, 1024))
    return config, [{"model": "Eq. (1), d = 1, E = [1, -1] fixed; B and v learned"}]


def run_gd_eq1(config: dict, points: list[dict], *, scale: str, device=None, stop_after=None) -> list[dict]:
    """Full-batch Adam on the one word, from random B and v (Theorem 4.1's model class: the closed
    form is one of its global minima)."""
    from ...train import TrainConfig, train

    N = config["N"]
    word = dyck_words.from_string(config["word"])
    model = eq1_config(2, 2 * N)

    def factory(seed: int):
        return build_model(model, seed=seed).set_weights({"W_E": DYCK_EMBEDDING})

    run = train(factory, config["seeds"], TrainConfig(steps=config["steps"], lr=config["lr"], optimizer="adam",
                                                      batch_size=None, eval_every=config["steps"]),
                training.as_batch(word[None]), device=device, progress=False, stop_after=stop_after)
    test = training.deep_prefixes(N, config["test_depth"], config["n_test"], seed=1)
    rows = []
    for k in range(run.K):
        net = run.model(k)
        own = generate(net, [word[:r] for r in range(1, 2 * N)], 2 * N, greedy=True)
        B = net.get_weight("W_pos").double().numpy()[:, 0]
        c = np.cumsum(dyck_words.steps(word) + B)[:-1] * dyck_words.steps(word)[1:]  # sum = c_r E_{s_{r+1}}
        rows.append({"seed": config["seeds"][k], "loss": float(run.train_loss[k, -1]),
                     "memorized": float((own == word).all(1).mean()),
                     "deep_acc": training.completion_accuracy(net, test, N, seed=3),
                     "v": float(net.get_weight("layers.0.attn.W_V").reshape(())), "c": c.tolist()})
    return [{"members": rows, "wall_s": run.wall_s}]


# ----------------------------------------------------------------------------- Figure 1 (Boolean)
def boolean_simplification(scale: str) -> tuple[dict, list[dict]]:
    """Figure 1: a decoder per training depth, tested in and out of sample at depths 3 and 6.
    The paper: 5 clauses, d = 1024, L = h = 8, context 1024, 10^5 steps of 2^14 tokens; here at
    default scale 1 clause, d = 64, L = 2, h = 4, context 224, 800 steps of 16 windows, five
    seeds, on a CPU (about 4.5 minutes a depth on two cores; see the chapter). At the paper scale each depth's training set
    is 2 million equations, the paper's "10^9 length sequences" at depth 6 (1.08 million windows
    of 1,024 tokens), cut at ``train_rows`` = 2^18 windows (:func:`train_count`), a difference
    from the paper: 2 million equations of depth 6 are 17.7 GB as the trainer's int64 inputs and
    targets, which fit neither a 16 GB T4 nor the dry run's host, and the 10^5 steps of 16
    windows then pass over the deeper sets about six times instead of 1.6."""
    config = dict(k=at(scale, 1, 1, 5), test_depths=at(scale, [1, 2], [3, 6], [3, 6]),
                  n_train=at(scale, 1000, 20_000, 2_000_000), n_test=at(scale, 50, 250, 10_000),
                  n_held_out=at(scale, 8, 128, 128), pool_per_depth=at(scale, 200, 2000, 20_000),
                  d=at(scale, 16, 64, 1024), layers=at(scale, 1, 2, 8), heads=at(scale, 2, 4, 8),
                  mlp_ratio=4, steps=at(scale, 40, 800, 100_000), batch_size=at(scale, 32, 16, 16),
                  lr=at(scale, 3e-3, 1e-3, 6e-4), warmup=at(scale, 5, 50, 2000),
                  context=at(scale, 64, 224, 1024), seeds=list(range(at(scale, 1, 5, 1))),
                  # only at the paper scale (no smaller set reaches it; the stored configs stay as they were)
                  **at(scale, {}, {}, {"train_rows": 2**18}))
    depths = at(scale, [1, 2], [1, 2, 3, 4, 5, 6], [1, 2, 3, 4, 5, 6])
    config["train_depths"] = depths
    return config, [{"train_depth": q} for q in depths]


PILOT = 2000  # equations drawn to measure windows per equation (:func:`train_count`)


def train_count(config: dict, q: int) -> int:
    """The training equations of depth ``q``: ``n_train``, or fewer where their windows would
    pass ``config["train_rows"]`` (windows per equation measured on :data:`PILOT` equations of
    that depth, plus 2% so the cut falls on windows, not equations)."""
    n = config["n_train"]
    if "train_rows" not in config:
        return n
    pilot = boolean.encode(bx.sample(config["k"], q, PILOT, seed=10_000 + q), config["context"])
    return min(n, int(np.ceil(1.02 * config["train_rows"] * PILOT / len(pilot))))


def _boolean_data(config: dict, build, n_train: int | None = None) -> dict:
    return boolean.make_data(k=config["k"], train_depths=config["train_depths"], test_depths=config["test_depths"],
                             n_train=n_train or config["n_train"], n_test=config["n_test"],
                             n_held_out=config["n_held_out"], pool_per_depth=config["pool_per_depth"], build=build)


def run_boolean_simplification(config: dict, points: list[dict], *, scale: str, device=None,
                               stop_after=None) -> list[dict]:
    """One decoder per training depth (seeds as members), on one equation per row."""
    from ...train import TrainConfig, train

    q = points[0]["train_depth"]
    data = _boolean_data(config, build=[q], n_train=train_count(config, q))  # this point's training set only
    batch = boolean.encode(data["train"][q], config["context"])
    if "train_rows" in config:
        batch = batch[:config["train_rows"]]
    model = gpt_config(len(bx.VOCAB), config["context"], config["d"], config["layers"], config["heads"],
                       mlp_ratio=config["mlp_ratio"])
    recipe = TrainConfig(steps=config["steps"], lr=config["lr"], batch_size=config["batch_size"],
                         warmup=config["warmup"], eval_every=config["steps"], **training.RECIPE)
    run = train(model, config["seeds"], recipe, batch, device=device, progress=False, stop_after=stop_after)
    value = {"final_loss": _final_loss(run), "wall_s": run.wall_s}
    for (depth, where), pairs in sorted(data["test"].items()):
        value[f"{where}_{depth}"] = [boolean.accuracy(run.model(k), pairs) for k in range(run.K)]
        value[f"true_{where}_{depth}"] = boolean.constant_baselines(pairs)["true"]
    return [value]


SWEEPS: dict[str, Sweep] = {
    "architectures": Sweep("richard2024", "architectures", architectures, run_architectures,
                           about="Figure 3 left: deep-prefix completion accuracy against width, layers and heads"),
    "sample_size": Sweep("richard2024", "sample_size", sample_size, run_sample_size, group_by=("train_depth",),
                         about="Figure 3 right: in/out-of-sample accuracy against distinct training words"),
    "completions": Sweep("richard2024", "completions", completions, run_completions,
                         about="Figure 4, Table 1, Figure 5: one-word vs many-word models on given contexts"),
    "ablations": Sweep("richard2024", "ablations", ablations, run_ablations, group_by=("variant",),
                       about="Figures 6-7: ablations of positional embedding, attention, V and MLP"),
    "gd_eq1": Sweep("richard2024", "gd_eq1", gd_eq1, run_gd_eq1,
                    about="gradient descent on Theorem 4.1's model class (d = 1): memorizes, does not extrapolate"),
    "boolean_simplification": Sweep("richard2024", "boolean_simplification", boolean_simplification,
                                    run_boolean_simplification, group_by=("train_depth",),
                                    about="Figure 1: Boolean simplification in and out of sample against training depth"),
}


def result(name: str, scale: str | None = None, *, device=None) -> Result:
    """Sweep ``name`` at ``scale`` (default: the current one), loaded or run (see :class:`Sweep`)."""
    return SWEEPS[name].result(scale, device=device)
