"""Checks of the one-layer limits chapter (``chapters/02_depth/02_one_layer_limits``): Sec. 11's
dependence identity, Lemmas 5-7, Theorems 2 and 4, and Sec. 6.1 in training."""
from __future__ import annotations

from .... import claims, stats
from .. import setup


def _exact(ref: str, label: str, statement: str, paper_value: str, ours: str, passed: bool):
    return claims.check(paper="chen2024", ref=ref, label=label, statement=statement, paper_value=paper_value,
                        ours=ours, passed=bool(passed))


def propositions_7_10(identity):
    """Propositions 7-10 (Sec. 11): dependent inputs give linearly dependent one-layer outputs.
    ``identity``: ``limits.identity_residuals``. Passes when the relative residual is below 1e-12
    for ReLU with every head count and for one softmax head Z-weighted, and above 1e-6 for one
    softmax head unweighted (the weighting is needed)."""
    relu = identity[identity.attention == "relu"][["reasoning toy", "template toy"]].to_numpy().max()
    soft1 = identity[(identity.attention == "softmax") & (identity.heads == 1)].iloc[0]
    multi = identity[(identity.attention == "softmax") & (identity.heads > 1)]["reasoning toy"].min()
    return _exact("Props. 7-10", "depth-dependence",
                  "dependent inputs give linearly dependent one-layer outputs (ReLU any heads; softmax 1 head, "
                  "Z-weighted)", "exactly 0",
                  f"{claims.below(max(relu, soft1['reasoning toy, Z-weighted']))} (float64); multi-head softmax: "
                  f"{multi:.0e} (open in the paper)",
                  relu < 1e-12 and soft1["reasoning toy, Z-weighted"] < 1e-12 and soft1["reasoning toy"] > 1e-6)


def lemmas_5_7(task, dependent, worst):
    """Lemmas 5-7 (Sec. 14.1) on every pair of templates of ``task`` (``limits.template_pairs``):
    every pair dependent, weighted output sums equal to below 1e-10 (relative)."""
    return _exact("Lemmas 5-7", "depth-lemmas-5-7",
                  "within a template every word is equally frequent at every position; any two templates' "
                  "sequences are dependent; one layer gives equal weighted output sums over them", "exact (proof)",
                  f"all {len(dependent)} pairs of length-{task.length} templates over {task.n_words} words: dependent; "
                  f"weighted sums equal to {claims.below(worst)} (1-16 heads, float64)",
                  all(dependent) and worst < 1e-10)


def theorem_2(fits, seeds):
    """Theorem 2 (Sec. 13.1): no one-layer model gets more than 3 of the 4 dependent sequences
    strictly right (``limits.fit_theorem_2``), while two layers get all four."""
    one = max(max(v) for k, v in fits.items() if "1 layer" in k)
    two = max(fits["ReLU, 2 layers, 1 head"])
    return _exact("Theorem 2", "depth-thm2",
                  "no 1-layer transformer (any heads) solves in-context QA: <= 3/4 on the 4 dependent sequences",
                  "<= 3/4 for 1 layer", f"best 1-layer {one:.2f} ({len(seeds) * 5} trainings x 4 models); 2 layers "
                  f"{two:.2f}", one <= 0.75 and two == 1.0)


def theorem_4(tm_fit):
    """Theorem 4 (Sec. 14.1): no one-layer model classifies all nine sequences of Table 1's two
    templates (``limits.fit_theorem_4``), while two layers do."""
    one = max(max(tm_fit["1 layer, 1 head"]), max(tm_fit["1 layer, 16 heads"]))
    two = max(tm_fit["2 layers, 1 head"])
    return _exact("Theorem 4", "depth-thm4",
                  "no 1-layer transformer classifies every sequence of two templates with different labels",
                  "< 100% (at least one of 9 wrong)", f"best 1-layer {one:.3f}; 2 layers {two:.2f}",
                  one < 1.0 and two == 1.0)


def section_6_1(limits):
    """Sec. 6.1 (sweep ``one_layer_limits``), over seeds: every 1-layer model's final accuracy stays
    below chance + 0.05 (1/k on in-context QA, 1/#templates on template matching) and every
    2-layer model's is above 0.99, each by its seeds' interval at the Bonferroni level of the
    check's tests (:func:`lib.stats.versus`); undecided rows make it inconclusive."""
    from ..training import recipe

    frame = limits.frame().assign(acc=[p["result"]["acc"] for p in limits.points])  # per seed
    chance = {t: 1 / recipe(t, limits.scale).task.k if t == "reasoning" else 1 / recipe(t, limits.scale).task.n_classes
              for t in ("reasoning", "generalization")}
    level = stats.family_level(len(frame))
    decided = [stats.below(r.acc, chance[r.task] + 0.05, level=level) if r.layers == 1
               else stats.above(r.acc, 0.99, level=level) for r in frame.itertuples()]
    one, two = frame[frame.layers == 1], frame[frame.layers == 2]
    qa, tm = one[one.task == "reasoning"].mean_acc.max(), one[one.task == "generalization"].mean_acc.max()
    heads = sorted(set(one.heads))
    undecided = [f"{r.layers} layer(s), {r.heads} head(s), +{r.extra_rows}, {r.task}"
                 for r, d in zip(frame.itertuples(), decided) if d is None]
    return claims.check(
        paper="chen2024", ref="Sec. 6.1 (1 layer at chance)", label="depth-limits-training",
        statement="1-layer models stay at chance on reasoning and generalization while 2 layers succeed",
        paper_value="1 layer ~ random guess; 2 layers ~ 100%",
        ours=f"1 layer ({heads[0]}-{heads[-1]} heads, +{max(one.extra_rows)} width) <= {qa:.2f} QA, <= {tm:.2f} TM; "
             f"2 layers >= {two.mean_acc.min():.2f} (seed means, {len(frame.acc.iloc[0])} seeds; each of the "
             f"{len(frame)} rows decided by its interval at level {level:.4f}"
             + (f"; undecided: {', '.join(undecided)})" if undecided else ")"),
        results=limits, setup=setup.SEC_6_1, config=setup.ours_section_6_1(limits),
        **claims.outcome(stats.all_hold(*decided)))
