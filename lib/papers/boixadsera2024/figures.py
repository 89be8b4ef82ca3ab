"""The figures and tables of Part IV's third chapter (App. B and Sec. 6 of Boix-Adsera et al. 2024),
drawn from the stored sweeps (:mod:`.curves`). Each function draws or returns one figure or table;
nothing here trains, and the sweeps do not import this module."""
from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from ... import plots
from . import curves as cv


def _log_lr_axis(ax, lrs):
    ax.set_xscale("log")
    ax.set_xticks(lrs, [f"{v:g}" for v in lrs])
    ax.minorticks_off()


def hyperparameters(hres):
    """Figures 8-12: learning rate × n, batch size, depth and heads against the learning rate."""
    lrs, knob_lrs, batch = hres.config["lrs"], hres.config["knob_lrs"], cv.batch_losses(hres)
    fig, axes = plots.panels(4, ncols=2, height=2.4, sharey=True)
    plots.sweep(lrs, {f"n = {n}": np.array([per[lr] for lr in lrs]) for n, per in cv.lr_losses(hres).items()},
                ax=axes[0], xlabel="learning rate", ylabel="test MSE, unseen symbols", title="Fig. 8: lr × n",
                bounds=(0, None), legend="inside", band="ci95")
    plots.sweep(knob_lrs, {f"batch {b}": np.array([batch[b][lr] for lr in knob_lrs]) for b in batch}, ax=axes[1],
                xlabel="learning rate", title=f"Figs. 9-10: batch ({hres.config['batch_epochs']} epochs)",
                bounds=(0, None), legend="inside", band="ci95")
    for ax, knob, title in zip(axes[2:], ("depth", "heads"), ("Fig. 11: depth", "Fig. 12: heads")):
        plots.sweep(knob_lrs, {f"{knob} {v}": c for v, c in cv.knob_curves(hres, knob).items()}, ax=ax,
                    xlabel="learning rate", title=title, bounds=(0, None), legend="inside", band="ci95")
    for ax in axes:
        _log_lr_axis(ax, lrs if ax is axes[0] else knob_lrs)
        ax.axhline(1.0, color="0.5", ls=":", lw=1)
    plots.stamp(fig, f"αβα vs αββ, vanilla; best validation step; knobs at n = {cv.knob_n(hres)}; dotted: predicting 0; "
                + hres.label())
    plt.show()


def hyperparameter_table(hres) -> pd.DataFrame:
    """Every test loss of Figures 8-13 (mean over seeds), one row per knob value, one column per learning rate."""
    knob_lrs, batch = hres.config["knob_lrs"], cv.batch_losses(hres)
    rows = [{"knob": "learning rate", "value": f"n = {n}",
             **{f"lr {lr:g}": float(np.mean(loss)) for lr, loss in per.items()}} for n, per in cv.lr_losses(hres).items()]
    rows += [{"knob": f"batch ({hres.config['batch_epochs']} epochs)", "value": b,
              **{f"lr {lr:g}": float(np.mean(batch[b][lr])) for lr in knob_lrs}} for b in batch]
    rows += [{"knob": knob, "value": v, **{f"lr {lr:g}": float(np.mean(c[i])) for i, lr in enumerate(knob_lrs)}}
             for knob in ("depth", "heads", "d_emb") for v, c in cv.knob_curves(hres, knob).items()]
    return pd.DataFrame(rows).set_index(["knob", "value"])


def width_and_init(hres, ires):
    """Figure 13 (d_emb against the learning rate) and Figure 15 (mimetic against Gaussian and +a_h I)."""
    knob_lrs = hres.config["knob_lrs"]
    ns, loss = cv.init_losses(hres, ires)
    fig, axes = plots.panels(2, ncols=2, height=2.5)
    plots.sweep(knob_lrs, {f"d = {v}": c for v, c in cv.knob_curves(hres, "d_emb").items()}, ax=axes[0],
                xlabel="learning rate", ylabel="test MSE, unseen symbols", title=f"Fig. 13: width (n = {cv.knob_n(hres)})",
                bounds=(0, None), legend="inside", band="ci95")
    _log_lr_axis(axes[0], knob_lrs)
    plots.sweep(ns, {k: np.stack([per[n] for n in ns]) for k, per in loss.items()}, ax=axes[1],
                xlabel="training samples n", title="Fig. 15: initialisation (lr 1e-3)", bounds=(0, None), legend="inside",
                band="ci95")
    axes[1].set_xscale("log", base=2)
    for ax in axes:
        ax.axhline(1.0, color="0.5", ls=":", lw=1)
    plots.stamp(fig, "αβα vs αββ; " + hres.label() + "; Gaussian and +a_h I: " + ires.label())
    plt.show()


def last_layer(ll: dict, shape: dict, seeds, scale: str):
    """Figure 14: the least-squares read-out's test MSE against n, per initialisation multiplier."""
    ns, scales = sorted({n for n, _ in ll}), sorted({c for _, c in ll})
    ax = plots.sweep(ns, {f"init × {c:g}": np.stack([ll[n, c] for n in ns]) for c in scales},
                     xlabel="training samples n", ylabel="test MSE, unseen symbols", title="Fig. 14: last layer only",
                     bounds=(0, None))
    ax.set_xscale("log", base=2)
    ax.axhline(1.0, color="0.5", ls=":", lw=1)
    plots.stamp(ax, f"least-squares read-out on a frozen random transformer (d = {shape['d_model']}, float64), "
                    f"{len(list(seeds))} seeds, {plots.BANDS}; computed live at scale={scale}")
    plt.show()


KNOB_TITLES = {"wildcards": "|W| (Fig. 18)", "length": "length k (Fig. 19)", "m": "templates m (Fig. 20)"}


def template_knobs(kres, rres) -> pd.DataFrame:
    """Figures 18-20: the test loss at one n against each random-template setting; returns the table."""
    from .sweeps import KNOB_BASE

    n, knob_loss = cv.template_knob_losses(kres, rres)
    fig, axes = plots.panels(3, ncols=3, height=2.4, sharey=True)
    for ax, (knob, title) in zip(axes, KNOB_TITLES.items()):
        vs = list(knob_loss[knob])
        plots.sweep(vs, {"vanilla": np.stack([knob_loss[knob][v] for v in vs])}, ax=ax, xlabel=title,
                    ylabel="test MSE, unseen symbols" if ax is axes[0] else "", bounds=(0, None), legend=None)
        ax.axhline(1.0, color="0.5", ls=":", lw=1)
    base = ", ".join(f"{k} = {v}" for k, v in KNOB_BASE.items())
    plots.stamp(fig, f"n = {n}; base task {base}; {plots.BANDS}; " + kres.label())
    plt.show()
    return pd.DataFrame([{"knob": KNOB_TITLES[k], "value": v, "test MSE": loss.mean()}
                         for k in knob_loss for v, loss in knob_loss[k].items()]).set_index(["knob", "value"])


def perplexity_table(pres):
    """Figure 6's table beside ours: perplexity (seed mean and its 95% interval) against the
    corpus's own (:func:`.analysis.binding_bayes_perplexity`), printed values right, learned scalars."""
    from ... import stats
    from .analysis import binding_bayes_perplexity

    pre = cv.pretrained(pres)
    ppl = {v: np.array(pre["base", v]["val_ppl"]) for v in ("vanilla", "+KQ,VO")}
    binding = {v: np.mean(pre["base", v]["binding_acc"]) for v in ("vanilla", "+KQ,VO")}
    scaled = pre["base", "+KQ,VO"]
    corpus = pres.config["corpus"]
    return plots.paper_vs_ours([
        {"quantity": "perplexity, vanilla", "paper": "64.00 (Wikitext-2), 16.83 (Wikitext-103)",
         "ours": f"{stats.describe(ppl['vanilla'])} (binding corpus: {corpus['n_variables']} variables, "
                 f"{corpus['n_values']} values, {corpus['seq_len']} tokens)"},
        {"quantity": "perplexity, + identity scalings", "paper": "60.46, 16.40", "ours": stats.describe(ppl["+KQ,VO"])},
        {"quantity": "the corpus's own perplexity (the floor)", "paper": "-",
         "ours": f"{binding_bayes_perplexity(**corpus):.3f}"},
        {"quantity": "printed values right", "paper": "-",
         "ours": f"vanilla {binding['vanilla']:.3f}, + scalings {binding['+KQ,VO']:.3f}"},
        {"quantity": "learned |a_h|, |b_h|", "paper": "-",
         "ours": f"{np.mean(scaled['mean_abs_a']):.3f}, {np.mean(scaled['mean_abs_b']):.3f}"}])


def diagonal_table(pres) -> pd.DataFrame:
    """Figure 7b-c: the diagonal scores of every pretrained width's heads (pooled over seeds) and of
    the base model at initialisation."""
    pre = cv.pretrained(pres)
    names = {"kq": "W_Q W_K^T", "vo": "W_V W_O"}

    def row(model, which, scores):
        scores = np.asarray(scores)
        return {"model": model, "product": names[which], "max over heads": scores.max(), "median": np.median(scores),
                "heads above 1": int((scores > 1).sum()), "heads": scores.size}

    rows = [row(f"{size}, pretrained", which, [s[which] for s in pre[size, "vanilla"]["diagonal"]])
            for size in sorted(cv.pretrained_sizes(pres)) for which in names]
    rows += [row("base, at initialisation", which, pre["base", "vanilla"]["diagonal_init"][which]) for which in names]
    return pd.DataFrame(rows).set_index(["model", "product"])


def diagonal_maps(pres):
    """Figure 7b-c: the base model's head of highest diagonal score, per product, as a heat map."""
    fig, axes = plots.panels(2, ncols=2, height=3.0)
    for ax, (which, head) in zip(axes, cv.pretrained(pres)["base", "vanilla"]["top_heads"].items()):
        m = np.array(head["matrix"])
        bound = np.abs(m).max()
        image = ax.imshow(m, cmap="RdBu_r", vmin=-bound, vmax=bound)
        ax.set_title(f"{'$W_QW_K^T$' if which == 'kq' else '$W_VW_O$'}: layer {head['layer']}, head {head['head']} "
                     f"(score {head['score']:.2f})", fontsize=8)
        ax.grid(False)
        ax.set(xlabel="residual coordinate", ylabel="residual coordinate")
        fig.colorbar(image, ax=ax, shrink=0.8)
    plots.stamp(fig, "base model (d = 64), seed 0, the head of highest diagonal score per product; " + pres.label())
    plt.show()


def finetuning(pres) -> pd.DataFrame:
    """Figures 7a and 23: fine-tuning against training from scratch, and the pretrained widths; returns the table."""
    from .sweeps import LM_SIZES

    ns, ft = cv.finetune_losses(pres)
    fig, axes = plots.panels(2, ncols=2, height=2.5, sharey=True)
    plots.sweep(ns, {"from scratch": ft["base", "scratch"], "pretrained": ft["base", "pretrained"]}, ax=axes[0],
                xlabel="training samples n", ylabel="test MSE, unseen symbols", title="Fig. 7a: base model (d = 64)",
                bounds=(0, None), legend="inside")
    plots.sweep(ns, {f"{s} (d = {LM_SIZES[s]['d_model']})": ft[s, "pretrained"] for s in cv.pretrained_sizes(pres)},
                ax=axes[1], xlabel="training samples n", title="Fig. 23: pretrained sizes", bounds=(0, None),
                legend="inside")
    for ax in axes:
        ax.set_xscale("log", base=2)
        ax.axhline(1.0, color="0.5", ls=":", lw=1)
    plots.stamp(fig, f"αβα vs αββ, causal model, best validation step; {plots.BANDS}; " + pres.label())
    plt.show()
    return pd.DataFrame({f"n = {n}": {f"{s}, {v}": loss[i].mean() for (s, v), loss in ft.items()} for i, n in enumerate(ns)})
