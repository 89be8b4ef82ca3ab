"""Every claim the depth chapters (Chen & Zou 2024) recorded re-derives from ``data/`` and the
constructions alone (issue 30): trained claims from the committed default-scale results (and the
partial paper-scale one), construction claims from the instances each chapter builds at the
default scale; and every paper-scale config of the trained sweeps compares with the paper's setup.

The chapters' own computations (the softmax temperature scans, the small float64 trainings of
Theorems 2 and 4, Figure 3's two trainings) are redone here, so this file takes a few minutes.
"""
import numpy as np

import checks_support
from checks_support import notebook_threads, pick  # noqa: F401 (an autouse fixture: two threads, as the notebooks)
from lib import claims
from lib.papers.chen2024 import checks, limits, setup
from lib.papers.chen2024 import softmax_study as study
from lib.papers.chen2024.construction_study import printed_against_corrected
from lib.papers.chen2024.examples import reasoning_toy, table_1, template_toy
from lib.papers.chen2024.circuits import figure_3_scores
from lib.papers.chen2024.training import model_factory, recipe
from lib.papers.chen2024 import constructions as build
from lib.results import Result, paper_sweeps
from lib.tasks import InContextQA, InContextTemplateMatching, SequenceClassification, TemplateMatching
from lib.train import TrainConfig, train

SWEEPS = paper_sweeps("chen2024")
DEFAULT = "default"


def stored(name: str, scale: str = DEFAULT) -> Result:
    return checks_support.stored("chen2024", name, scale)


def chapter(name: str) -> str:
    return f"chapters/02_depth/{name}"


def test_constructions_chapter():
    qa = InContextQA(n_questions=20, n_answers=20, k=3)
    sc = SequenceClassification(n_words=pick(20, 50, 500), length=6, n_examples=pick(200, 1000, 2000))
    every = SequenceClassification(n_words=3, length=5, n_examples=3 ** 5)
    c = checks.constructions
    found = [c.table_1_examples(), c.lemmas_1_2(qa), c.lemmas_3_4(sc, every), c.theorem_1(sc),
             c.theorem_3(InContextQA(5, 5, 3), InContextQA(100, 100, 4), pick(500, 2000, 10000)),
             c.theorem_5([TemplateMatching(3, 2), TemplateMatching(5, 3), TemplateMatching(7, 5)],
                         TemplateMatching(210, 3), pick(500, 2000, 10000)),
             c.theorem_6(InContextTemplateMatching(3, 2, 2, 2), InContextTemplateMatching(100, 100, 5, 4),
                         pick(200, 1000, 5000)),
             c.theorem_6_as_printed(printed_against_corrected([(3, 2, 2, 2), (3, 3, 2, 2), (4, 4, 3, 3),
                                                               (100, 100, 5, 4)], pick(300, 1000, 5000)))]
    assert claims.rederive(chapter("01_tasks_constructions"), DEFAULT, found) == []


def test_softmax_chapter():
    table_sc, _ = table_1()["Memorization"]
    small_qa, small_tm, small_ictm = InContextQA(5, 5, 3), TemplateMatching(5, 3), InContextTemplateMatching(3, 2, 2, 2)
    relu_scan = study.relu_weights_under_softmax(
        {"Theorem 1 (Table 1)": (build.memorization(table_sc), table_sc.enumerate()),
         "Theorem 3 (5,5,k=3)": (build.in_context_qa(small_qa), small_qa.enumerate()),
         "Theorem 5 (|X|=5, l=3)": (build.template_matching(small_tm), small_tm.enumerate()),
         "Theorem 6 (648)": (build.in_context_template_matching(small_ictm), small_ictm.enumerate())},
        [0.5, 1, 2, 3, 5, 10, 30, 100])
    mem = study.memorization_threshold(
        [(2, l) for l in range(2, pick(8, 12, 12))] + [(3, l) for l in range(2, pick(6, 8, 8))]
        + [(4, l) for l in range(2, 6)], pick([(5, 3)], [(5, 4), (2, 12)], [(5, 4), (2, 12)]),
        [round(float(b), 2) for b in np.arange(0.5, 6.01, 0.25)])
    qa = study.qa_threshold([(5, 5, 2), (5, 5, 3), (6, 6, 4), (10, 10, 5), (10, 10, 8), (20, 20, 10), (30, 30, 20),
                             (60, 60, 40)], [(100, 100, 60)], [0.001, 0.01, 0.1, 1, 10, 100],
                            [round(10 ** e, 6) for e in np.arange(-4, 2.01, 1 / 16)], pick(200, 500, 2000))
    tm = study.tm_threshold(list(range(2, pick(7, 9, 9))), [round(10 ** e, 6) for e in np.arange(-3, 3.01, 1 / 8)])
    paper_ictm = InContextTemplateMatching(100, 100, 5, 4)
    ictm_scan = study.ictm_softmax({"l=2, k=2 (all 648)": (small_ictm, small_ictm.enumerate()),
                                    "d1=d2=100, l=5, k=4 (sample)": (paper_ictm, paper_ictm.sample(
                                        pick(300, 1000, 10_000), seed=5))}, [1, 2, 3, 5, 10, 30, 100])
    ictm = study.ictm_threshold(
        [(5, 5, 2, 2), (6, 6, 3, 2), (6, 6, 3, 3), (8, 8, 4, 4), (10, 10, 5, 4)]
        + pick([], [(20, 20, 5, 10), (40, 40, 5, 20)], [(20, 20, 5, 10), (40, 40, 5, 20)]),
        [round(float(b), 2) for b in np.arange(0.5, 8.01, 0.25)] + [9, 10, 12, 16, 32],
        pick((20, 20, 5, 10), (60, 60, 5, 40), (80, 80, 6, 60)))
    s = checks.softmax
    found = [s.theorem_1_threshold(mem), s.theorem_3_threshold(qa), s.theorem_5_threshold(tm),
             s.theorem_6_threshold(ictm), s.constructions(relu_scan, tm, ictm_scan, ictm)]
    assert claims.rederive(chapter("01b_softmax"), DEFAULT, found) == []


def test_one_layer_limits_chapter():
    qa_task, toy, lam = reasoning_toy()
    tm_task, tm_toy, tm_lam = template_toy()
    lemma_task = TemplateMatching(n_words=4, length=3)
    fit = TrainConfig(steps=pick(300, 1500, 3000), lr=1e-2, batch_size=None, eval_every=100)
    seeds = list(range(pick(2, 5, 8)))
    fits, _ = limits.fit_theorem_2(qa_task, toy, fit, seeds)
    found = [checks.limits.propositions_7_10(limits.identity_residuals(qa_task, toy, lam, tm_task, tm_toy, tm_lam)),
             checks.limits.lemmas_5_7(lemma_task, *limits.template_pairs(lemma_task)),
             checks.limits.theorem_2(fits, seeds),
             checks.limits.theorem_4(limits.fit_theorem_4(tm_task, tm_toy, fit, seeds)),
             checks.limits.section_6_1(stored("one_layer_limits"))]
    assert claims.rederive(chapter("02_one_layer_limits"), DEFAULT, found) == []


def _figure_3():
    """The chapter's two trainings (seeds 0-4, the default recipes) and their attention scores."""
    qa_recipe, tm_recipe, seeds = recipe("reasoning", DEFAULT), recipe("generalization", DEFAULT), list(range(5))
    runs = {}
    for name, r in (("qa", qa_recipe), ("tm", tm_recipe)):
        runs[name] = train(model_factory(r.task, 2, (1, 1), "paper", r.init_std), seeds, r.train, r.task,
                           {"test": r.task.sample(1000, seed=10_007)}, device="cpu", progress=False)
    copy_match, parse = figure_3_scores(runs["qa"], qa_recipe.task, qa_recipe.task.sample(1000, seed=5),
                                        runs["tm"], tm_recipe.task, tm_recipe.task.sample(1000, seed=5))
    return checks.training.figure_3(copy_match, parse, qa_recipe, tm_recipe, seeds)


def test_training_chapter():
    fig2, fig2p = stored("figure2"), stored("figure2_paper_sizes")
    t = checks.training
    found = [t.figure_2a(fig2), t.figure_2b(fig2), t.figure_2c(fig2), t.figure_2d(fig2), _figure_3(),
             t.figure_2a_paper_sizes(fig2p), t.figure_2c_paper_sizes(fig2p), t.figure_2b_paper_sizes(fig2p)]
    assert claims.rederive(chapter("03_training"), DEFAULT, found) == []


def test_training_chapter_at_the_paper_scale():
    gpu = SWEEPS["figure2_paper_sizes"].paper_result()
    assert gpu is not None and not gpu.complete  # partial: the claim rests on its complete group
    check = checks.training.figure_2a_paper_scale(gpu)
    assert check.scale == "paper" and check.evidence[0].complete is False
    assert claims.rederive(chapter("03_training"), "paper", [check]) == []


def test_heads_chapter():
    heads, sgd, by_k = stored("heads"), stored("figure4_sgd"), stored("figure7_k")
    h = checks.heads
    found = [h.figures_5_6(heads), h.figure_7(heads), h.figure_4(heads, sgd), h.figure_7_several_k(by_k),
             h.figure_7_last_heads(by_k), h.figure_7_four_layers(by_k), h.figure_7_l5(stored("figure7_l5")),
             h.figure_7_paper_instance(stored("figure7_paper_sizes"))]
    assert claims.rederive(chapter("04_heads"), DEFAULT, found) == []


def _at_paper_scale(name: str) -> Result:
    return checks_support.at_paper_scale("chen2024", name)


def test_every_trained_setup_compares_with_the_paper_at_the_paper_scale():
    """The paper-scale config of every trained sweep (and of Figure 3's trainings), compared field by
    field with the paper's setup: each difference printed, none raising."""
    r = {name: _at_paper_scale(name) for name in SWEEPS}
    compared = [(s, setup.ours(r[name], task)) for name in ("figure2", "figure2_paper_sizes")
                for task, s in setup.FIGURE_2.items() if any(p["task"] == task for p in r[name].grid)]
    compared += [(setup.SEC_6_1, setup.ours_section_6_1(r["one_layer_limits"])),
                 (setup.FIGURE_3, setup.ours_figure_3(recipe("reasoning", "paper"), recipe("generalization", "paper"),
                                                      [0])),
                 (setup.FIGURE_4, setup.ours_figure_4(r["heads"], r["figure4_sgd"])),
                 (setup.FIGURES_5_6, setup.ours_figures_5_6(r["heads"]))]
    compared += [(setup.FIGURE_7, setup.ours_figure_7(r[name]))
                 for name in ("heads", "figure7_k", "figure7_l5", "figure7_paper_sizes")]
    for s, ours in compared:
        diff = s.difference(ours)
        print(f"{s.ref} at the paper scale:", "; ".join(str(d) for d in diff) or "the paper's setup")
    refs = {s.ref for s, _ in compared}
    assert refs == {"Figure 2a", "Figure 2b", "Figure 2c", "Figure 2d", "Sec. 6.1", "Figure 3", "Figure 4",
                    "Figures 5-6", "Figure 7"}
