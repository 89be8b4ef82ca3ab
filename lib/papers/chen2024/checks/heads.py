"""Checks of the heads chapter (``chapters/02_depth/04_heads``): Figures 4-7 (Sec. 9.2-9.3)."""
from __future__ import annotations

import itertools

from .... import claims, stats
from .. import analysis, setup
from ..figures import arch_label
from ..sweeps import as_curves, figure7_size, final

_LABEL = "depth-heads"


def _faster(a, b, level: float) -> bool | None:
    """Arm ``a``'s per-seed speeds greater than ``b``'s (Welch at ``level``)."""
    return stats.holds(stats.compare(a, b, level=level), "greater")


def figures_5_6(heads):
    """Figures 5-6 (Sec. 9.2): extra heads make no significant difference on in-context QA and
    template matching, read over seeds. Full check: every architecture ends near-perfect (its
    seeds' final accuracy above 0.99 by the interval) and every two head counts learn equally
    fast: the interval of their difference in mean accuracy over training (speed) lies within
    +-0.05 (:func:`lib.stats.within`, an equivalence test); partly: the final accuracies alone.
    All tests at the Bonferroni level of the check's tests; undecided ones make it inconclusive."""
    tasks = [g for g in heads.grid if g["task"] in ("reasoning", "generalization")]
    finals = {g["task"]: {arch_label(a): final(heads, g["task"], "paper", a) for a in g["archs"]} for g in tasks}
    speeds = {g["task"]: {arch_label(a): analysis.seed_speeds(heads, g["task"], a) for a in g["archs"]} for g in tasks}
    pairs = [(t, x, y) for t, d in speeds.items() for x, y in itertools.combinations(d, 2)]
    level = stats.family_level(sum(len(d) for d in finals.values()) + len(pairs))
    final_ok = stats.all_hold(*(stats.above(v, 0.99, level=level) for d in finals.values() for v in d.values()))
    equal = stats.all_hold(*(stats.within(speeds[t][x], speeds[t][y], 0.05, level=level) for t, x, y in pairs))
    return claims.check(
        paper="chen2024", ref="Figures 5-6", label=_LABEL,
        statement="extra heads make no significant difference for in-context QA and template matching",
        paper_value="no significant impact",
        ours="final accuracy: " + "; ".join(
            f"{t} " + ", ".join(f"{k.split(' ', 2)[-1]} {stats.describe_accuracy(v)}" for k, v in d.items())
            for t, d in finals.items())
             + "; mean accuracy over training (speed): " + "; ".join(
                 f"{t} " + ", ".join(f"{k.split(' ', 2)[-1]} {v.mean():.2f}" for k, v in d.items())
                 for t, d in speeds.items())
             + f" (speeds equal within 0.05 by the difference's interval: "
             f"{ {True: 'yes', False: 'no', None: 'undecided'}[equal]}; tests at level {level:.4f}, Bonferroni)",
        results=heads, setup=setup.FIGURES_5_6, config=setup.ours_figures_5_6(heads),
        **claims.outcome(stats.all_hold(final_ok, equal), final_ok))


def figure_7(heads):
    """Figure 7 (Sec. 9.3) in the heads grid, over seeds: among 3-layer models the one with a single
    last-layer head ends near-perfect (its interval above 0.95) and learns faster (mean accuracy
    over training, Welch) than every other 3-layer model; and a fourth single-head layer ends
    near-perfect and is faster than the 3-layer model with one last head. Full check: both;
    partly: one of the two (Bonferroni over the check's tests)."""
    ictm = {arch_label(a): a for g in heads.grid if g["task"] == "contextual" for a in g["archs"]}
    three = {k: a for k, a in ictm.items() if len(a) == 3}
    one = next(k for k, a in three.items() if a[-1] == 1)
    four, base = arch_label((2, 2, 2, 1)), arch_label((2, 2, 1))
    level = stats.family_level(len(three) + 2)
    fin = {k: final(heads, "contextual", "paper", a) for k, a in ictm.items()}
    spd = {k: analysis.seed_speeds(heads, "contextual", a) for k, a in ictm.items()}
    one_head_fastest = stats.all_hold(stats.above(fin[one], 0.95, level=level),
                                      *(_faster(spd[one], spd[o], level) for o in three if o != one))
    fourth_faster = stats.all_hold(stats.above(fin[four], 0.95, level=level), _faster(spd[four], spd[base], level)) \
        if four in ictm and base in ictm else False

    return claims.check(
        paper="chen2024", ref="Figure 7", label=_LABEL,
        statement="on in-context template matching, one last-layer head learns fastest among 3-layer models, "
                  "and a 4th single-head layer faster still",
        paper_value="[.., 1] faster than more heads; 4 layers faster than 3 (k=4, l=5)",
        ours=f"{one} fastest of the 3-layer models: {stats.said(one_head_fastest)}; 4th layer faster: "
             f"{stats.said(fourth_faster)}; "
             + ", ".join(f"{k} {spd[k].mean():.2f} (final {stats.describe_accuracy(fin[k])})" for k in ictm)
             + f" (mean accuracy over training; tests at level {level:.4f}, Bonferroni)",
        results=heads, setup=setup.FIGURE_7, config=setup.ours_figure_7(heads),
        **claims.outcome(stats.all_hold(one_head_fastest, fourth_faster),
                         stats.any_holds(one_head_fastest, fourth_faster)))


def figure_4(heads, sgd):
    """Figure 4 (Sec. 9.2): more heads make memorization faster, over seeds. Full check: the most
    heads are faster (mean accuracy over training, Welch) than one head under Adam (``heads``)
    and under SGD with each head count at its best rate of the grid (``figure4_sgd``); partly: one
    of the two (both tests at their Bonferroni level)."""
    level = stats.family_level(2)
    counts = analysis.archs(heads, "memorization")
    most, fewest = max(counts), min(counts)
    adam = {a[0]: analysis.seed_speeds(heads, "memorization", a) for a in counts}
    adam_ok = _faster(adam[most[0]], adam[fewest[0]], level)
    s = analysis.sgd_speeds(sgd)
    sgd_ok = _faster(s["by_lr"][s["most"]][s["best_lr"][s["most"]]], s["by_lr"][s["fewest"]][s["best_lr"][s["fewest"]]],
                     level)
    fewest_lr = s["best_lr"][s["fewest"]]
    return claims.check(
        paper="chen2024", ref="Figure 4", label=_LABEL,
        statement="more heads make memorization faster", paper_value="faster with more heads (SGD)",
        ours="Adam: " + ", ".join(f"{h} head(s): {stats.describe_accuracy(v)}" for h, v in adam.items())
             + "; SGD at each model's best rate: "
             + ", ".join(f"{a[0]} head(s): {s['speed'][a]:.2f} (lr {s['best_lr'][a]:g})" for a in s["speed"])
             + f"; SGD at one rate ({fewest_lr:g}): "
             + ", ".join(f"{a[0]} head(s): {v:.2f}" for a, v in s["at_fewest_best"].items())
             + f" (mean accuracy over training; most vs fewest heads by Welch at level {level:.3f}: Adam "
               f"{ {True: 'faster', False: 'slower', None: 'undecided'}[adam_ok]}, SGD "
               f"{ {True: 'faster', False: 'slower', None: 'undecided'}[sgd_ok]})",
        results=(heads, sgd), setup=setup.FIGURE_4, config=setup.ours_figure_4(heads, sgd),
        **claims.outcome(stats.all_hold(adam_ok, sgd_ok), stats.any_holds(adam_ok, sgd_ok)))


def _several_k(by_k, ref: str, statement: str, paper_value: str, ours: str, full, part=False):
    return claims.check(paper="chen2024", ref=ref, label="depth-fig7-k", statement=statement, paper_value=paper_value,
                        ours=ours, results=by_k, setup=setup.FIGURE_7, config=setup.ours_figure_7(by_k),
                        **claims.outcome(full, part))


def _per(table, arch: str, k: int, column: str) -> list[float]:
    return list(table[(table["arch"] == arch) & (table["k"] == k)][column].iloc[0])


def figure_7_several_k(by_k):
    """Figure 7 for several k (sweep ``figure7_k``): for every k some architecture learns (its
    seeds' final accuracy above 0.95 by the interval, Bonferroni over every (k, architecture));
    partly: for some k."""
    table = analysis.figure7_table(by_k)
    ks = sorted(set(table["k"]))
    level = stats.family_level(len(table))
    solved = {k: stats.any_holds(*(stats.above(v, 0.95, level=level) for v in table[table.k == k]["final per seed"]))
              for k in ks}
    return _several_k(by_k, "Figure 7 (several k)", "3 and 4 layers learn in-context template matching for several k",
                      "yes, k up to 4 (l=5)",
                      "; ".join(f"k={k}: " + ", ".join(f"{r.arch} {r.final:.2f}" for r in table[table.k == k].itertuples())
                                for k in ks)
                      + f" (final accuracy, seed means; a k is solved when some model's interval is above 0.95 at "
                        f"level {level:.4f})", stats.all_hold(*solved.values()), stats.any_holds(*solved.values()))


def figure_7_last_heads(by_k):
    """Figure 7 (Sec. 9.3): at the largest k, a single last-layer head [1, 1, 1] learns faster
    (mean accuracy over training, Welch over seeds) than the construction's 2l heads."""
    l7 = figure7_size(by_k.scale)[0]
    table = analysis.figure7_table(by_k)
    k, one, many = table["k"].max(), "[1, 1, 1]", f"[1, 1, {2 * l7}]"
    a, b = _per(table, one, k, "speed per seed"), _per(table, many, k, "speed per seed")
    return _several_k(by_k, "Figure 7 (last-layer heads)", "a single head in the last layer learns faster than "
                      "several (k=4)", "[.., 1] fastest at k=4",
                      f"mean accuracy over training at k={k}: {one} {stats.describe_accuracy(a)}, "
                      f"{many} {stats.describe_accuracy(b)} "
                      f"(Welch: {stats.compare(a, b)})", _faster(a, b, stats.LEVEL))


def figure_7_four_layers(by_k):
    """Figure 7 (Sec. 9.3): a fourth layer is faster (mean accuracy over training, Welch over seeds,
    Bonferroni over the pairs) than three, on every pair ``analysis.informative_fourth_layer_pairs``
    keeps (one of the two learns); with no such pair, two models at chance say nothing of speed:
    inconclusive."""
    l7 = figure7_size(by_k.scale)[0]
    table = analysis.figure7_table(by_k)
    pairs = analysis.informative_fourth_layer_pairs(by_k, l7)
    level = stats.family_level(max(1, len(pairs)))
    faster = [_faster(_per(table, deep, k, "speed per seed"), _per(table, shallow, k, "speed per seed"), level)
              for deep, shallow, k in pairs]
    return _several_k(by_k, "Figure 7 (4 layers)", "a fourth layer makes in-context template matching learn faster",
                      "4 single-head layers faster than 3",
                      "; ".join(f"{deep} vs {shallow}, k={k}: "
                                f"{stats.describe_accuracy(_per(table, deep, k, 'speed per seed'))} / "
                                f"{stats.describe_accuracy(_per(table, shallow, k, 'speed per seed'))}"
                                for deep, shallow, k in pairs)
                      + f" (mean accuracy over training; pairs where neither learns left out; Welch at level "
                        f"{level:.4f})" if pairs else "no pair where one of the two learns: nothing to compare",
                      stats.all_hold(*faster) if pairs else None)


_THREE_LAYERS = {"layers compared": "the claim is about the 3-layer model, the only one this run trains"}


def _learned(result, ref: str, label: str, statement: str, best: bool = False):
    """A claim that [1, 1, 10] learns in-context template matching, over seeds: passed when the
    seeds' final accuracy is above 0.95 by its interval, partly when above 0.5; one seed decides
    neither (inconclusive). Both tests at their Bonferroni level."""
    run = as_curves(result.points[0]["result"])[(1, 1, 10)]
    k = result.points[0]["point"]["task_args"]["k"]
    final = ", ".join(f"{a:.2f}" for a in run.acc[:, -1])
    return claims.check(paper="chen2024", ref=ref, label=label, statement=statement,
                        paper_value="learned (curves reach 1)",
                        ours=f"[1, 1, 10], final per seed {final}"
                             + (f", best over training {run.acc.max():.2f}," if best else "")
                             + f" after {run.steps[-1]} steps (1/k = {1 / k:.2f})",
                        **claims.outcome(stats.above(run.final, 0.95, level=stats.family_level(2)),
                                         stats.above(run.final, 0.5, level=stats.family_level(2))),
                        results=result, setup=setup.FIGURE_7,
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
