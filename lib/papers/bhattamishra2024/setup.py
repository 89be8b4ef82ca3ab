"""What Bhattamishra et al. (2024) state about their trained experiments (Sec. 6, App. H), as data.

Sec. 6 ("Setup and training details") fixes the loss, the optimizer, the batch, the step budget
and the evaluation set for every experiment; App. H gives the learning-rate grid and the data
generators; each task's paragraph (Sec. 6 for Figure 2, App. H.2 for Figure 4) gives the sizes
and the models compared. No seeds are stated. The functions below read the same fields from the
config and grid a stored result ran with (:mod:`.sweeps`), never from typed text: the optimizer
and the loss are the trainer's defaults, which the sweeps leave as they are.
"""
from __future__ import annotations

from dataclasses import fields

from ...paper_setup import NOT_STATED, Setup, Stated

_COMMON = {
    "optimizer": Stated("adam", "Sec. 6, Setup and training details"),
    "loss": Stated("cross_entropy", "Sec. 6, Setup and training details"),
    "learning rates": Stated([1e-2, 5e-3, 1e-3, 5e-4, 1e-4, 5e-5, 1e-6], "App. H, Implementation and hyperparameters"),
    "steps": Stated(250_000, "Sec. 6 (up to 250k, fewer when validation is near-perfect)"),
    "batch": Stated(64, "Sec. 6, a fresh batch of 64 each step"),
    "evaluation examples": Stated(5000, "Sec. 6; App. H"),
    "seeds": Stated(NOT_STATED),
}

#: Figure 2a-b (Sec. 6, Index Lookup Task; App. H.1): accuracy against length, curves at N = 200
FIGURE_2AB = Setup("bhattamishra2024", "Figure 2a-b", {
    "alphabet |Σ|": Stated(64, "Sec. 6, Index Lookup Task"),
    "lengths N": Stated([20, 50, 100, 200, 400], "Sec. 6, Index Lookup Task"),
    "shortest training length": Stated(10, "App. H.1, Index Lookup Task"),
    "transformer": Stated("TF-(1,64)", "Sec. 6, Index Lookup Task"),
    "recurrent models": Stated({"LSTM", "DSS", "Mamba", "LinearTF", "RetNet"}, "Sec. 6, Index Lookup Task"),
    "largest recurrent model (layers, width)": Stated([6, 256], "Sec. 6 (up to 6 layers, width 256)"),
    **_COMMON})

#: Figure 2c (Sec. 6, Bounded Dycks): Dyck-(2,2) at lengths 20 to 400, curves at N = 400
FIGURE_2C = Setup("bhattamishra2024", "Figure 2c", {
    "shortest length N": Stated(20, "Sec. 6, Bounded Dycks"),
    "longest length N": Stated(400, "Sec. 6, Bounded Dycks"),
    "models compared": Stated({"TF-(1,256)", "TF-(2,64)", "LSTM (hidden 64)", "Mamba (hidden 64)"},
                              "Sec. 6, Bounded Dycks"),
    **_COMMON})

#: Figure 3 (App. H.1, "Additional Experiment with Mamba"): Mamba's width against length on index
#: lookup, with the LSTM experiment the same paragraph reports
FIGURE_3 = Setup("bhattamishra2024", "Figure 3", {
    "alphabet |Σ|": Stated(64, "App. H.1, Index Lookup Task"),
    "lengths N": Stated([20, 50, 100, 200, 400], "App. H.1 (\"lengths ranging from 20 to 400\"); Sec. 6"),
    "shortest training length": Stated(10, "App. H.1, Index Lookup Task"),
    "Mamba layers": Stated(2, "App. H.1, Additional Experiment with Mamba"),
    "Mamba widths": Stated([32, 64, 256, 512, 1024], "App. H.1, Additional Experiment with Mamba"),
    "LSTM widths": Stated(NOT_STATED),
    "LSTM layers": Stated(NOT_STATED),
    "transformer compared": Stated("TF-(1,64)", "App. H.1 (\"a one-layer Transformer with a width of 64\")"),
    **_COMMON})

#: Figure 4 (App. H.2): string equality, Eq-random, Eq-one and Eq-ncp
FIGURE_4 = Setup("bhattamishra2024", "Figure 4", {
    "variants": Stated(["random", "one", "ncp"], "App. H.2 (i)-(iii)"),
    "alphabet Eq-random": Stated(2, "App. H.2 (i), Σ = {0, 1, [sep]}"),
    "alphabet Eq-one": Stated(1024, "App. H.2 (ii)"),
    "alphabet Eq-ncp": Stated(1024, "App. H.2 (iii)"),
    "longest length N, Eq-random and Eq-one": Stated(400, "App. H.2, Results"),
    "longest length N, Eq-ncp": Stated(800, "App. H.2 (iii)"),
    "models compared": Stated({"TF", "LSTM", "LinearTF", "DSS", "Mamba"}, "App. H.2, Results"),
    "width, Eq-ncp": Stated(64, "App. H.2 (iii), the restricted models"),
    "DSS widths, Eq-ncp": Stated("64 and larger", "App. H.2 (iii), DSS at larger widths solves N = 800"),
    **_COMMON})


def _trainer_default(name: str):
    """A field of :class:`lib.train.TrainConfig` as the sweeps leave it (they set steps, lr, batch
    and evaluation only)."""
    from ...train import TrainConfig

    return next(f.default for f in fields(TrainConfig) if f.name == name)


def _one(values):
    """The value all of ``values`` share, else the sorted list of them."""
    distinct = sorted(set(values), key=str)
    return distinct[0] if len(distinct) == 1 else distinct


def _kind_and_size(arch: str) -> tuple[str, int, int]:
    kind, sizes = arch.split("-", 1)
    layers, width = (int(v) for v in sizes.strip("()").split(","))
    return kind, layers, width


def _common(*results) -> dict:
    configs = [r.config for r in results]
    return {"optimizer": _trainer_default("optimizer"), "loss": _trainer_default("loss"),
            "learning rates": sorted({lr for c in configs for lr in c["lrs"]}, reverse=True),
            "steps": _one(c["steps"] for c in configs), "batch": _one(c["batch_size"] for c in configs),
            "evaluation examples": _one(c["eval_size"] for c in configs),
            "seeds": _one(len(c["seeds"]) for c in configs)}


def _lengths_run(results) -> list | str:
    """The lengths of the sweep, with each model that stopped short (its grid points) named."""
    lengths = sorted({n for r in results for n in r.config["lengths"]})
    short = [f"{a} to {max(p['length'] for r in results for p in r.grid if p['arch'] == a)}"
             for r in results for a in r.config["archs"]
             if {p["length"] for p in r.grid if p["arch"] == a} != set(lengths)]
    return lengths if not short else f"{lengths} ({', '.join(short)})"


def ours_figure_2ab(idx, idx_ssm) -> dict:
    """Figure 2a-b's fields as the ``index_lookup`` and ``index_lookup_ssm`` results ran them."""
    archs = idx.config["archs"] + idx_ssm.config["archs"]
    recurrent = [_kind_and_size(a) for a in archs if not a.startswith("TF")]
    return {"alphabet |Σ|": _one(r.config["n_symbols"] for r in (idx, idx_ssm)),
            "lengths N": _lengths_run((idx, idx_ssm)),
            "shortest training length": _one(r.config["min_length"] for r in (idx, idx_ssm)),
            "transformer": _one(a for a in archs if a.startswith("TF")),
            "recurrent models": sorted({kind for kind, _, _ in recurrent}),
            "largest recurrent model (layers, width)": [max(l for _, l, _ in recurrent), max(w for _, _, w in recurrent)],
            **_common(idx, idx_ssm)}


def ours_figure_3(mw) -> dict:
    """Figure 3's fields as the ``mamba_width`` result ran them."""
    c = mw.config
    return {"alphabet |Σ|": c["n_symbols"], "lengths N": list(c["lengths"]), "shortest training length": c["min_length"],
            "Mamba layers": c["mamba_layers"], "Mamba widths": list(c["widths"]), "LSTM widths": list(c["widths"]),
            "LSTM layers": c["lstm_layers"], "transformer compared": c["transformer"], **_common(mw)}


def _dyck_label(arch: str) -> str:
    kind, _, width = _kind_and_size(arch)
    return arch if kind == "TF" else f"{kind} (hidden {width})"


def ours_figure_2c(dyck) -> dict:
    """Figure 2c's fields as the ``dyck`` result ran them."""
    return {"shortest length N": min(dyck.config["lengths"]), "longest length N": max(dyck.config["lengths"]),
            "models compared": sorted(_dyck_label(a) for a in dyck.config["archs"]), **_common(dyck)}


def ours_figure_4(eq) -> dict:
    """Figure 4's fields as the ``equality`` result ran them (the Eq-ncp widths from its grid)."""
    c = eq.config
    ncp = [_kind_and_size(p["arch"]) for p in eq.grid if p["variant"] == "ncp"]
    return {"variants": list(c["variants"]),
            **{f"alphabet Eq-{v}": c["n_symbols"][v] if v in c["variants"] else "not run"
               for v in ("random", "one", "ncp")},
            "longest length N, Eq-random and Eq-one": max(p["length"] for p in eq.grid if p["variant"] != "ncp"),
            "longest length N, Eq-ncp": max((p["length"] for p in eq.grid if p["variant"] == "ncp"), default="not run"),
            "models compared": sorted({_kind_and_size(a)[0] for a in c["archs"]}),
            "width, Eq-ncp": _one(w for _, _, w in ncp) if ncp else "not run",
            "DSS widths, Eq-ncp": _one(w for k, _, w in ncp if k == "DSS") if any(k == "DSS" for k, _, _ in ncp)
            else "no DSS",
            **_common(eq)}
