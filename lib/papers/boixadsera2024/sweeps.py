"""The trained-transformer experiments of Boix-Adsera et al. (2024) as named sweeps.

=====================  ===================================================================
sweep                  what
=====================  ===================================================================
``identity_scalings``  Figures 1 and 21: test loss on unseen symbols against n for the
                       vanilla transformer and with a_h I, b_h I or both, on αβα vs αββ and
                       on the program task of Figure 1
``copy``               Figure 5: the copy task's test error against n for several d_emb,
                       vanilla (inverse scaling) and with b_h I
``majority``           Figures 16 and 22: length-k majority tasks, vanilla and with both
``program_symbolic``   Figure 2: the program whose label is the printed (unseen) value
``random_templates``   Figure 17: random template tasks with 0, 1 or 2 regular tokens
``hyperparameters``    Figures 8-13 and 15 (App. B.1) on αβα vs αββ: learning rate against n,
                       batch size, depth, heads and d_emb against the learning rate, and
                       mimetic against Gaussian initialisation
``template_knobs``     Figures 18-20: random template tasks by wildcard count, length and
                       number of templates
``pretraining``        Figures 6, 7 and 23, offline: small causal models pretrained on a
                       synthetic binding corpus (perplexity vanilla vs with the scalars,
                       diagonals of the learned heads), then fine-tuned on αβα vs αββ
                       against the same model from scratch, at three sizes
``ppl_headroom``       Figure 6 again, on a harder binding corpus whose floor the models
                       do not reach (the ``pretraining`` corpus's they do)
=====================  ===================================================================

Every point trains an ensemble of seeds through the shared trainer
(:func:`lib.papers.boixadsera2024.training.fit`) and reads the test set at the evaluation of
lowest validation loss (App. A). The default scale is a CPU budget (d = 64 or less, 16 heads of
8, at most 1000 full-batch steps) with the paper scale's five seeds (:func:`_seeds`); the paper
scale is App. A's (d = 128, 16 heads of 64, MLP 256, batch 1024, 1000 epochs).

``python -m lib.papers.boixadsera2024 SCALE [NAME ...]`` runs them.
"""
from __future__ import annotations

from ...scale import at
from ...models import build_model
from ...results import Result, Sweep
from ...tasks import symbol_templates as st
from ...tasks.binding_text import VariableBindingText
from . import pretraining, training

TASKS = {"αβα vs αββ": (st.SymbolTemplates, st.aba_abb), "program (Fig. 1)": (st.SymbolTemplates, st.program),
         "copy": (st.SymbolicTemplates, st.copy),
         "program, symbolic (Fig. 2)": (st.SymbolicTemplates, st.program_symbolic),
         **{f"majority-{k}": (st.SymbolTemplates, lambda k=k: st.majority(k)) for k in (2, 4, 6, 8)},
         # App. B.2's random template tasks (Fig. 17: the number of regular tokens); the paper's other
         # settings of this sweep are not in its text: 4 templates of length 5 over 3 wildcards are ours
         **{f"random, |R| = {r}": (st.SymbolTemplates, lambda r=r: st.random_templates(4, 5, 3, r, seed=0))
            for r in (0, 1, 2)}}




def _shape(scale: str, d_model: int | None = None) -> dict:
    return dict(d_model=d_model or at(scale, 32, 64, 128), n_layers=2, n_heads=16, d_head=at(scale, 8, 8, 64),
                d_mlp=at(scale, 64, 128, 256))


def _seeds(scale: str) -> list[int]:
    """The seeds of every sweep of this part: five at the default scale as at the paper's (its
    5 trials), since every trained figure here is decided over seeds (one at the smoke scale)."""
    return list(range(at(scale, 1, 5, 5)))


def _training(scale: str) -> dict:
    """App. A's protocol at a scale: Adam at lr 1e-3, batch 1024 (full batch below it), an
    evaluation every 10 steps, :func:`_seeds`, and the model's shape."""
    return dict(steps=at(scale, 100, 1000, 1000), lr=1e-3, batch_size=1024, eval_every=10,
                seeds=_seeds(scale), shape=_shape(scale))


def _run_point(config: dict, point: dict, scale: str, device, stop_after, d_model=None) -> dict:
    cls, make = TASKS[point["task"]]
    task = cls(*make(), n_symbols=point["n"], n_heldout=100)
    steps = config["steps"] if point["task"] != "copy" else config["copy_steps"]
    out = training.fit(task, point["n"], config["seeds"], point["variant"], steps=steps, lr=config["lr"],
                       batch_size=config["batch_size"], eval_every=config["eval_every"], device=device,
                       stop_after=stop_after, **_shape(scale, d_model))
    return out


# ----------------------------------------------------------------------------- Figures 1, 21
def identity_scalings(scale: str) -> tuple[dict, list[dict]]:
    config = _training(scale)
    ns = at(scale, [32, 128], [32, 128, 512], [16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192])
    grid = [{"task": "αβα vs αββ", "variant": v, "n": n} for v in training.VARIANTS for n in ns]
    grid += [{"task": "program (Fig. 1)", "variant": v, "n": n} for v in ("vanilla", "+KQ") for n in ns]
    return config, grid


def run_identity_scalings(config: dict, points: list[dict], *, scale: str, device=None, stop_after=None) -> list[dict]:
    return [_run_point(config, p, scale, device, stop_after) for p in points]


# ----------------------------------------------------------------------------- Figure 5
def copy(scale: str) -> tuple[dict, list[dict]]:
    config = dict(copy_steps=at(scale, 100, 300, 1000), steps=None, lr=1e-3, batch_size=1024, eval_every=10,
                  seeds=_seeds(scale))
    ds = at(scale, [32, 128], [32, 128], [64, 128, 256, 512, 1024, 2048, 4096])
    ns = at(scale, [8, 128], [8, 32, 128], [4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048])
    return config, [{"task": "copy", "variant": v, "d_model": d, "n": n} for v in ("vanilla", "+VO") for d in ds
                    for n in ns]


def run_copy(config: dict, points: list[dict], *, scale: str, device=None, stop_after=None) -> list[dict]:
    return [_run_point(config, p, scale, device, stop_after, d_model=p["d_model"]) for p in points]


# ----------------------------------------------------------------------------- Figures 16, 22
def majority(scale: str) -> tuple[dict, list[dict]]:
    config = _training(scale)
    ks = at(scale, [2, 4], [2, 4, 6], [2, 4, 6, 8])
    ns = at(scale, [64], [128, 512], [64, 128, 256, 512, 1024, 2048, 4096, 8192])
    return config, [{"task": f"majority-{k}", "variant": v, "n": n} for k in ks for v in ("vanilla", "+KQ,VO") for n in ns]


# ----------------------------------------------------------------------------- Figure 2
def program_symbolic(scale: str) -> tuple[dict, list[dict]]:
    config = _training(scale)
    ns = at(scale, [64], [128, 512], [4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144])
    return config, [{"task": "program, symbolic (Fig. 2)", "variant": v, "n": n} for v in ("vanilla", "+KQ,VO")
                    for n in ns]


# ----------------------------------------------------------------------------- Figure 17
def random_templates(scale: str) -> tuple[dict, list[dict]]:
    config = _training(scale)
    ns = at(scale, [64], [128, 512], [8, 32, 128, 512, 2048, 8192])
    return config, [{"task": f"random, |R| = {r}", "variant": "vanilla", "n": n} for r in (0, 1, 2) for n in ns]


# ----------------------------------------------------------------------------- Figures 8-13, 15
def hyperparameters(scale: str) -> tuple[dict, list[dict]]:
    """App. B.1 on αβα vs αββ, one knob at a time from the base model. Each (learning rate, seed)
    pair is an ensemble member, five seeds per rate (the paper's 5 trials); the knob's base value
    is the ``lr`` points' run at the same n. Minibatch points
    train ``batch_epochs`` epochs (steps = epochs * n / batch) against a full-batch run of the
    same epochs."""
    base = _training(scale)
    n = at(scale, 64, 512, 1024)
    config = dict(base,
                  lrs=at(scale, [1e-3, 1e-2], [1e-4, 3e-4, 1e-3, 3e-3, 1e-2], [3e-5, 1e-4, 3e-4, 1e-3, 3e-3, 1e-2, 3e-2]),
                  knob_lrs=at(scale, [1e-3], [3e-4, 1e-3, 3e-3], [1e-4, 3e-4, 1e-3, 3e-3, 1e-2]),
                  batch_epochs=at(scale, 20, 250, 1000), init_seeds=_seeds(scale))
    grid = [{"knob": "lr", "value": None, "n": m} for m in at(scale, [64], [128, 512], [64, 256, 1024, 4096])]
    grid += [{"knob": "batch", "value": b, "n": n} for b in at(scale, [16, 64], [64, 512], [32, 64, 128, 256, 512, 1024])]
    grid += [{"knob": "depth", "value": v, "n": n} for v in at(scale, [1], [1, 4], [1, 4, 8, 16])]
    grid += [{"knob": "heads", "value": v, "n": n} for v in at(scale, [1], [1, 64], [1, 4, 64])]
    grid += [{"knob": "d_emb", "value": v, "n": n} for v in at(scale, [16], [32, 128], [32, 512])]
    grid += [{"knob": "init", "value": "mimetic", "n": m} for m in at(scale, [32], [32, 128, 512], [32, 128, 512, 2048])]
    return config, grid


def run_hyperparameters(config: dict, points: list[dict], *, scale: str, device=None, stop_after=None) -> list[dict]:
    task_of = {}
    out = []
    for p in points:
        if p["n"] not in task_of:
            task_of[p["n"]] = st.SymbolTemplates(*st.aba_abb(), n_symbols=p["n"], n_heldout=100)
        shape, knob, value = _shape(scale), p["knob"], p["value"]
        run = dict(steps=config["steps"], lr=tuple(config["knob_lrs"]), batch_size=config["batch_size"],
                   seeds=config["seeds"])
        if knob == "lr":
            run["lr"] = tuple(config["lrs"])
        elif knob == "batch":
            run.update(batch_size=value, steps=config["batch_epochs"] * max(1, -(-p["n"] // value)))
        elif knob in ("depth", "heads", "d_emb"):
            shape[{"depth": "n_layers", "heads": "n_heads", "d_emb": "d_model"}[knob]] = value
        elif knob == "init":
            run.update(lr=config["lr"], seeds=config["init_seeds"])
        out.append(training.fit(task_of[p["n"]], p["n"], run["seeds"], "vanilla", steps=run["steps"], lr=run["lr"],
                                batch_size=run["batch_size"], eval_every=config["eval_every"], device=device,
                                init="mimetic" if knob == "init" else "gaussian", stop_after=stop_after, **shape))
    return out


# ----------------------------------------------------------------------------- Figures 18-20
#: the base random template task of Figures 18-20 (the paper's defaults are not in its text):
#: Figure 17's task with one regular token, which our budget learns (|R| = 0 does not)
KNOB_BASE = {"m": 4, "length": 5, "wildcards": 3, "regular": 1}


def template_knobs(scale: str) -> tuple[dict, list[dict]]:
    config = _training(scale)
    values = {"wildcards": at(scale, [2, 5], [2, 5, 7], [2, 3, 4, 5, 6, 7]),
              "length": at(scale, [3, 10], [3, 10, 20], [2, 3, 5, 10, 15, 20]),
              "m": at(scale, [2, 8], [2, 8, 15], [2, 4, 6, 8, 10, 15])}
    ns = at(scale, [64], [128], [8, 32, 128, 512, 2048, 8192])
    grid = [dict(KNOB_BASE, **{knob: v}, n=n) for knob, vs in values.items() for v in vs for n in ns]
    unique = []
    for p in grid:
        if p not in unique:
            unique.append(p)
    return config, unique


def run_template_knobs(config: dict, points: list[dict], *, scale: str, device=None, stop_after=None) -> list[dict]:
    out = []
    for p in points:
        templates, labels = st.random_templates(p["m"], p["length"], p["wildcards"], p["regular"], seed=0)
        task = st.SymbolTemplates(templates, labels, n_symbols=p["n"], n_heldout=100)
        out.append(training.fit(task, p["n"], config["seeds"], "vanilla", steps=config["steps"], lr=config["lr"],
                                batch_size=config["batch_size"], eval_every=config["eval_every"], device=device,
                                stop_after=stop_after, **_shape(scale)))
    return out


# ----------------------------------------------------------------------------- Figures 6, 7, 23
#: the pretrained models: 2 causal layers, heads of 16, MLP 4d, at three widths (Fig. 23's sizes)
LM_SIZES = {"small": dict(d_model=32, n_heads=2), "base": dict(d_model=64, n_heads=4),
            "large": dict(d_model=128, n_heads=8)}


def _lm_shape(size: str) -> dict:
    shape = LM_SIZES[size]
    return dict(shape, n_layers=2, d_head=16, d_mlp=4 * shape["d_model"])


def pretraining_sweep(scale: str) -> tuple[dict, list[dict]]:
    config = dict(corpus=dict(n_variables=4, n_values=8, seq_len=32), pretrain_steps=at(scale, 200, 3000, 20000),
                  pretrain_lr=3e-3, pretrain_batch=32, base_seeds=_seeds(scale),
                  other_seeds=_seeds(scale),  # fine-tuning member i starts from pretrained seed i
                  finetune=_training(scale))
    ns = at(scale, [32], [32, 128, 512], [16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192])
    sizes = at(scale, ["base"], ["small", "base", "large"], ["small", "base", "large"])
    grid = [{"size": "base", "stage": "pretrain", "variant": v, "n": None} for v in ("vanilla", "+KQ,VO")]
    grid += [{"size": size, "stage": "pretrain", "variant": "vanilla", "n": None} for size in sizes if size != "base"]
    grid += [{"size": size, "stage": "finetune", "variant": "pretrained", "n": n} for size in sizes for n in ns]
    grid += [{"size": "base", "stage": "finetune", "variant": "scratch", "n": n} for n in ns]
    return config, grid


def run_pretraining(config: dict, points: list[dict], *, scale: str, device=None, stop_after=None) -> list[dict]:
    """One group per size: its pretraining runs first, and its fine-tunings start from the
    vanilla pretrained models (the ones computed in the same group). Deterministic kernels
    throughout (:func:`~.pretraining.deterministic`), so that a rerun reproduces every digit."""
    with pretraining.deterministic():
        return _run_pretraining(config, points, device, stop_after)


def _run_pretraining(config: dict, points: list[dict], device, stop_after) -> list[dict]:
    corpus = VariableBindingText(**config["corpus"])
    pretrained, out = {}, []
    for p in sorted(points, key=lambda p: p["stage"] != "pretrain"):
        shape = _lm_shape(p["size"])
        if p["stage"] == "pretrain":
            seeds = config["base_seeds"] if p["size"] == "base" else config["other_seeds"]
            models, metrics = pretraining.pretrain(corpus, p["variant"], seeds, steps=config["pretrain_steps"],
                                                   lr=config["pretrain_lr"], batch_size=config["pretrain_batch"],
                                                   device=device, stop_after=stop_after, **shape)
            pretrained[p["variant"]] = models
            metrics["diagonal"] = [pretraining.diagonal_dominance(m) for m in models]
            if p["size"] == "base" and p["variant"] == "vanilla":
                metrics["top_heads"] = pretraining.top_heads(models[0])
            metrics["diagonal_init"] = pretraining.diagonal_dominance(build_model(pretraining.lm_config(
                corpus, p["variant"], **shape), seed=0))
        else:
            f = config["finetune"]
            task = st.SymbolTemplates(*st.aba_abb(), n_symbols=p["n"], n_heldout=100)
            start = pretraining.transplant(pretrained["vanilla"]) if p["variant"] == "pretrained" else "gaussian"
            metrics = training.fit(task, p["n"], f["seeds"], "vanilla", steps=f["steps"], lr=f["lr"],
                                   batch_size=f["batch_size"], eval_every=f["eval_every"], device=device,
                                   init=start, stop_after=stop_after, causal=True, **shape)
        out.append((p, metrics))
    return [next(m for q, m in out if q is p) for p in points]


def ppl_headroom(scale: str) -> tuple[dict, list[dict]]:
    """Figure 6 on a corpus with room above its floor: the ``pretraining`` corpus (4 variables, 8
    values, 32 tokens) is learned to within 1.5% of its own perplexity by both models, where no
    gain can show. With 16 variables and 16 values in texts of 64 tokens the base model at the
    same budget stays about 12% above the floor (3.675; :func:`.analysis.binding_bayes_perplexity`)
    and finds the last binding a quarter of the time. The base model only, at both variants,
    with 5 seeds."""
    config = dict(corpus=dict(n_variables=16, n_values=16, seq_len=64), pretrain_steps=at(scale, 200, 3000, 20000),
                  pretrain_lr=3e-3, pretrain_batch=32, base_seeds=_seeds(scale), other_seeds=[0])
    return config, [{"size": "base", "stage": "pretrain", "variant": v, "n": None} for v in ("vanilla", "+KQ,VO")]


SWEEPS: dict[str, Sweep] = {
    "identity_scalings": Sweep("boixadsera2024", "identity_scalings", identity_scalings, run_identity_scalings,
                               about="Figures 1, 21: test loss on unseen symbols vs n, vanilla and with a_h I / b_h I"),
    "copy": Sweep("boixadsera2024", "copy", copy, run_copy,
                  about="Figure 5: copy-task error on unseen tokens vs n and d_emb, vanilla and with b_h I"),
    "majority": Sweep("boixadsera2024", "majority", majority, run_identity_scalings,
                      about="Figures 16, 22: length-k majority, vanilla and with a_h I, b_h I"),
    "program_symbolic": Sweep("boixadsera2024", "program_symbolic", program_symbolic, run_identity_scalings,
                              about="Figure 2: the symbolic program task's test error vs n, vanilla and with both"),
    "random_templates": Sweep("boixadsera2024", "random_templates", random_templates, run_identity_scalings,
                              about="Figure 17: random template tasks with 0, 1 or 2 regular tokens"),
    "hyperparameters": Sweep("boixadsera2024", "hyperparameters", hyperparameters, run_hyperparameters,
                             about="Figures 8-13, 15: lr, batch, depth, heads, d_emb and mimetic init on αβα vs αββ"),
    "template_knobs": Sweep("boixadsera2024", "template_knobs", template_knobs, run_template_knobs,
                            about="Figures 18-20: random templates by wildcards, length and number of templates"),
    "pretraining": Sweep("boixadsera2024", "pretraining", pretraining_sweep, run_pretraining, group_by=("size",),
                         about="Figures 6, 7, 23 offline: a small pretrained model, its heads, and fine-tuning it"),
    "ppl_headroom": Sweep("boixadsera2024", "ppl_headroom", ppl_headroom, run_pretraining,
                                 about="Figure 6 offline, on a binding corpus with room above its floor (5 seeds)"),
}


def result(name: str, scale: str | None = None, *, device=None) -> Result:
    """Sweep ``name`` at ``scale`` (default: the current one), loaded or run (see :class:`Sweep`)."""
    return SWEEPS[name].result(scale, device=device)
