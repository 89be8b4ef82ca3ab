"""Checks of the heads chapter (``chapters/02_depth/04_heads``): Figures 4-7 (Sec. 9.2-9.3)."""
from __future__ import annotations

from .... import claims
from .. import analysis, setup
from ..figures import arch_label, learned_verdict
from ..sweeps import as_curves, figure7_size

_LABEL = "depth-heads"


def figures_5_6(heads):
    """Figures 5-6 (Sec. 9.2): extra heads make no significant difference on in-context QA and
    template matching. Full check: every architecture ends at mean final accuracy >= 0.99 and the
    mean accuracy over training (speed) spreads by at most 0.05 across head counts per task;
    partly: the final accuracies alone."""
    finals, speeds = analysis.qa_tm(heads, analysis.final_mean), analysis.qa_tm(heads, analysis.speed)
    final_ok = all(v >= 0.99 for d in finals.values() for v in d.values())
    speed_ok = all(max(d.values()) - min(d.values()) <= 0.05 for d in speeds.values())
    return claims.check(
        paper="chen2024", ref="Figures 5-6", label=_LABEL,
        statement="extra heads make no significant difference for in-context QA and template matching",
        paper_value="no significant impact",
        ours="final accuracy: " + ", ".join(f"{t} min {min(d.values()):.2f}" for t, d in finals.items())
             + "; mean accuracy over training (speed): " + "; ".join(
                 f"{t} " + ", ".join(f"{k.split(' ', 2)[-1]} {v:.2f}" for k, v in d.items()) for t, d in speeds.items()),
        passed=bool(final_ok and speed_ok), partly=bool(final_ok), results=heads, setup=setup.FIGURES_5_6,
        config=setup.ours_figures_5_6(heads))


def figure_7(heads):
    """Figure 7 (Sec. 9.3) in the heads grid: among 3-layer models the one with a single
    last-layer head learns fastest (highest mean accuracy over training, final >= 0.95), and a
    fourth single-head layer is faster than the 3-layer model with one last head (final >= 0.95).
    Full check: both; partly: one of the two."""
    ictm = analysis.contextual(heads)
    three = {k: v for k, v in ictm.items() if k.count(",") == 2}
    best_three = max(three, key=lambda k: three[k][1])
    one_head_fastest = best_three.endswith(", 1]") and three[best_three][0] >= 0.95
    four, base = arch_label((2, 2, 2, 1)), arch_label((2, 2, 1))
    fourth_faster = four in ictm and base in ictm and ictm[four][1] > ictm[base][1] and ictm[four][0] >= 0.95
    return claims.check(
        paper="chen2024", ref="Figure 7", label=_LABEL,
        statement="on in-context template matching, one last-layer head learns fastest among 3-layer models, "
                  "and a 4th single-head layer faster still",
        paper_value="[.., 1] faster than more heads; 4 layers faster than 3 (k=4, l=5)",
        ours=f"fastest 3-layer: {best_three} ({'matches' if one_head_fastest else 'not'} the paper); "
             f"4th layer faster: {'yes' if fourth_faster else 'no'}; "
             + ", ".join(f"{k} {v[1]:.2f}" for k, v in ictm.items()) + " (mean accuracy over training)",
        passed=bool(one_head_fastest and fourth_faster), partly=bool(one_head_fastest or fourth_faster),
        results=heads, setup=setup.FIGURE_7, config=setup.ours_figure_7(heads))


def figure_4(heads, sgd):
    """Figure 4 (Sec. 9.2): more heads make memorization faster. Full check: the most heads are at
    least as fast (mean accuracy over training) as one head under Adam (``heads``) and under SGD
    with each head count at its best rate of the grid (``figure4_sgd``); partly: one of the two."""
    adam = analysis.memorization_speeds(heads)
    s = analysis.sgd_speeds(sgd)
    adam_ok = adam[f"{max(analysis.archs(heads, 'memorization'))[0]} head(s)"] >= \
        adam[f"{min(analysis.archs(heads, 'memorization'))[0]} head(s)"]
    sgd_ok = s["speed"][s["most"]] >= s["speed"][s["fewest"]]
    fewest_lr = s["best_lr"][s["fewest"]]
    return claims.check(
        paper="chen2024", ref="Figure 4", label=_LABEL,
        statement="more heads make memorization faster", paper_value="faster with more heads (SGD)",
        ours="Adam: " + ", ".join(f"{k}: {v:.2f}" for k, v in adam.items()) + "; SGD at each model's best rate: "
             + ", ".join(f"{a[0]} head(s): {s['speed'][a]:.2f} (lr {s['best_lr'][a]:g})" for a in s["speed"])
             + f"; SGD at one rate ({fewest_lr:g}): "
             + ", ".join(f"{a[0]} head(s): {v:.2f}" for a, v in s["at_fewest_best"].items())
             + " (mean accuracy over training)",
        passed=bool(adam_ok and sgd_ok), partly=bool(adam_ok or sgd_ok), results=(heads, sgd), setup=setup.FIGURE_4,
        config=setup.ours_figure_4(heads, sgd))


def _several_k(by_k, ref: str, statement: str, paper_value: str, ours: str, passed: bool, partly: bool = False):
    return claims.check(paper="chen2024", ref=ref, label="depth-fig7-k", statement=statement, paper_value=paper_value,
                        ours=ours, passed=bool(passed), partly=bool(partly), results=by_k, setup=setup.FIGURE_7,
                        config=setup.ours_figure_7(by_k))


def figure_7_several_k(by_k):
    """Figure 7 for several k (sweep ``figure7_k``): for every k some architecture learns (most
    of its seeds end >= 0.95); partly: for some k."""
    table = analysis.figure7_table(by_k)
    ks = sorted(set(table["k"]))
    solved = sorted(set(table[table["learns"]]["k"]))
    return _several_k(by_k, "Figure 7 (several k)", "3 and 4 layers learn in-context template matching for several k",
                      "yes, k up to 4 (l=5)",
                      "; ".join(f"k={k}: " + ", ".join(f"{r.arch} {r.final:.2f}" for r in table[table.k == k].itertuples())
                                for k in ks), solved == ks, bool(solved))


def figure_7_last_heads(by_k):
    """Figure 7 (Sec. 9.3): at the largest k, a single last-layer head [1, 1, 1] is at least as
    fast (mean accuracy over training) as the construction's 2l heads."""
    l7 = figure7_size(by_k.scale)[0]
    speed = analysis.figure7_table(by_k).pivot(index="arch", columns="k", values="mean over training")
    k, one, many = speed.columns.max(), "[1, 1, 1]", f"[1, 1, {2 * l7}]"
    return _several_k(by_k, "Figure 7 (last-layer heads)", "a single head in the last layer learns faster than "
                      "several (k=4)", "[.., 1] fastest at k=4",
                      f"mean accuracy over training at k={k}: {one} {speed.loc[one, k]:.2f}, "
                      f"{many} {speed.loc[many, k]:.2f}",
                      speed.loc[one, k] >= speed.loc[many, k])


def figure_7_four_layers(by_k):
    """Figure 7 (Sec. 9.3): a fourth layer is faster (mean accuracy over training) than three, on
    every pair ``analysis.informative_fourth_layer_pairs`` keeps (one of the two learns)."""
    l7 = figure7_size(by_k.scale)[0]
    speed = analysis.figure7_table(by_k).pivot(index="arch", columns="k", values="mean over training")
    pairs = analysis.informative_fourth_layer_pairs(by_k, l7)
    return _several_k(by_k, "Figure 7 (4 layers)", "a fourth layer makes in-context template matching learn faster",
                      "4 single-head layers faster than 3",
                      "; ".join(f"{deep} vs {shallow}, k={k}: {speed.loc[deep, k]:.2f}/{speed.loc[shallow, k]:.2f}"
                                for deep, shallow, k in pairs)
                      + " (mean accuracy over training; pairs where neither learns left out)",
                      bool(pairs) and all(speed.loc[deep, k] > speed.loc[shallow, k] for deep, shallow, k in pairs))


_THREE_LAYERS = {"layers compared": "the claim is about the 3-layer model, the only one this run trains"}


def _learned(result, ref: str, label: str, statement: str, best: bool = False):
    """A claim that [1, 1, 10] learns in-context template matching: ``~.figures.learned_verdict``
    (passed: most seeds end >= 0.95; partly: one does, or the mean final accuracy is above 0.5)."""
    run = as_curves(result.points[0]["result"])[(1, 1, 10)]
    k = result.points[0]["point"]["task_args"]["k"]
    final = ", ".join(f"{a:.2f}" for a in run.acc[:, -1])
    return claims.check(paper="chen2024", ref=ref, label=label, statement=statement,
                        paper_value="learned (curves reach 1)",
                        ours=f"[1, 1, 10], final per seed {final}"
                             + (f", best over training {run.acc.max():.2f}," if best else "")
                             + f" after {run.steps[-1]} steps (1/k = {1 / k:.2f})",
                        **learned_verdict(run.acc), results=result, setup=setup.FIGURE_7,
                        config=setup.ours_figure_7(result), irrelevant=_THREE_LAYERS)


def figure_7_l5(l5):
    """Figure 7 at the paper's l = 5, k = 4 with 10 words (sweep ``figure7_l5``): [1, 1, 10] learns."""
    return _learned(l5, "Figure 7 (l=5, k=4)", "depth-fig7-k", "3 layers learn in-context template matching at l=5, k=4")


def figure_7_paper_instance(paper_sizes):
    """Figure 7 on Sec. 9.1's instance (sweep ``figure7_paper_sizes``): [1, 1, 10] learns."""
    size = paper_sizes.points[0]["point"]["task_args"]
    return _learned(paper_sizes, "Figure 7 (the paper's instance)", "depth-fig7-paper",
                    "3 layers learn in-context template matching on Sec. 9.1's instance "
                    f"({size['n_words']} words and answers, l={size['length']}, k={size['k']})", best=True)
