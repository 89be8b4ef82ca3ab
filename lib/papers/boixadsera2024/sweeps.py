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
=====================  ===================================================================

Every point trains an ensemble of seeds through the shared trainer
(:func:`lib.papers.boixadsera2024.training.fit`) and reads the test set at the evaluation of
lowest validation loss (App. A). The default scale is a CPU budget (d = 64 or less, 16 heads of
8, at most 1000 full-batch steps, 2 seeds); the paper scale is App. A's (d = 128, 16 heads of 64,
MLP 256, batch 1024, 1000 epochs, 5 seeds).

``python -m lib.papers.boixadsera2024 SCALE [NAME ...]`` runs them.
"""
from __future__ import annotations

from ... import scale as _scale
from ...results import Result, Sweep
from ...tasks import symbol_templates as st
from . import training

TASKS = {"αβα vs αββ": (st.SymbolTemplates, st.aba_abb), "program (Fig. 1)": (st.SymbolTemplates, st.program),
         "copy": (st.SymbolicTemplates, st.copy),
         "program, symbolic (Fig. 2)": (st.SymbolicTemplates, st.program_symbolic),
         **{f"majority-{k}": (st.SymbolTemplates, lambda k=k: st.majority(k)) for k in (2, 4, 6, 8)},
         # App. B.2's random template tasks (Fig. 17: the number of regular tokens); the paper's other
         # settings of this sweep are not in its text: 4 templates of length 5 over 3 wildcards are ours
         **{f"random, |R| = {r}": (st.SymbolTemplates, lambda r=r: st.random_templates(4, 5, 3, r, seed=0))
            for r in (0, 1, 2)}}


def _pick(scale: str, smoke, default, paper):
    return _scale.pick(smoke=smoke, default=default, paper=paper, scale=scale)


def _shape(scale: str, d_model: int | None = None) -> dict:
    return dict(d_model=d_model or _pick(scale, 32, 64, 128), n_layers=2, n_heads=16, d_head=_pick(scale, 8, 8, 64),
                d_mlp=_pick(scale, 64, 128, 256))


def _training(scale: str) -> dict:
    """App. A's protocol at a scale: Adam at lr 1e-3, batch 1024 (full batch below it), an
    evaluation every 10 steps, and the model's shape."""
    return dict(steps=_pick(scale, 100, 1000, 1000), lr=1e-3, batch_size=1024, eval_every=10,
                seeds=list(range(_pick(scale, 1, 2, 5))), shape=_shape(scale))


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
    ns = _pick(scale, [32, 128], [32, 128, 512], [16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192])
    grid = [{"task": "αβα vs αββ", "variant": v, "n": n} for v in training.VARIANTS for n in ns]
    grid += [{"task": "program (Fig. 1)", "variant": v, "n": n} for v in ("vanilla", "+KQ") for n in ns]
    return config, grid


def run_identity_scalings(config: dict, points: list[dict], *, scale: str, device=None, stop_after=None) -> list[dict]:
    return [_run_point(config, p, scale, device, stop_after) for p in points]


# ----------------------------------------------------------------------------- Figure 5
def copy(scale: str) -> tuple[dict, list[dict]]:
    config = dict(copy_steps=_pick(scale, 100, 300, 1000), steps=None, lr=1e-3, batch_size=1024, eval_every=10,
                  seeds=list(range(_pick(scale, 1, 2, 5))))
    ds = _pick(scale, [32, 128], [32, 128], [64, 128, 256, 512, 1024, 2048, 4096])
    ns = _pick(scale, [8, 128], [8, 32, 128], [4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048])
    return config, [{"task": "copy", "variant": v, "d_model": d, "n": n} for v in ("vanilla", "+VO") for d in ds
                    for n in ns]


def run_copy(config: dict, points: list[dict], *, scale: str, device=None, stop_after=None) -> list[dict]:
    return [_run_point(config, p, scale, device, stop_after, d_model=p["d_model"]) for p in points]


# ----------------------------------------------------------------------------- Figures 16, 22
def majority(scale: str) -> tuple[dict, list[dict]]:
    config = _training(scale)
    ks = _pick(scale, [2, 4], [2, 4, 6], [2, 4, 6, 8])
    ns = _pick(scale, [64], [128, 512], [64, 128, 256, 512, 1024, 2048, 4096, 8192])
    return config, [{"task": f"majority-{k}", "variant": v, "n": n} for k in ks for v in ("vanilla", "+KQ,VO") for n in ns]


# ----------------------------------------------------------------------------- Figure 2
def program_symbolic(scale: str) -> tuple[dict, list[dict]]:
    config = _training(scale)
    ns = _pick(scale, [64], [128, 512], [4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144])
    return config, [{"task": "program, symbolic (Fig. 2)", "variant": v, "n": n} for v in ("vanilla", "+KQ,VO")
                    for n in ns]


# ----------------------------------------------------------------------------- Figure 17
def random_templates(scale: str) -> tuple[dict, list[dict]]:
    config = _training(scale)
    ns = _pick(scale, [64], [128, 512], [8, 32, 128, 512, 2048, 8192])
    return config, [{"task": f"random, |R| = {r}", "variant": "vanilla", "n": n} for r in (0, 1, 2) for n in ns]


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
}


def result(name: str, scale: str | None = None, *, device=None) -> Result:
    """Sweep ``name`` at ``scale`` (default: the current one), loaded or run (see :class:`Sweep`)."""
    return SWEEPS[name].result(scale, device=device)
