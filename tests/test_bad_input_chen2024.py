"""Bad input to the Chen & Zou (2024) helpers (and the course's and the queue's) fails at the
boundary, naming the function and the argument; good input gives finite numbers (issue 34).
Property tests first, then one test per example the issue names."""
import math

import numpy as np
import pandas as pd
import pytest
import torch
from hypothesis import given
from hypothesis import strategies as st

from lib.papers import __main__ as papers_main
from lib.papers import queue
from lib.papers.chen2024 import construction_study, constructions, dependence, limits, printed, softmax, softmax_study
from lib.papers.chen2024 import training
from lib.papers.chen2024.examples import reasoning_toy
from lib.papers.course import checks as course_checks
from lib.papers.course import sweeps as course_sweeps
from lib.tasks import Batch, InContextTemplateMatching, SequenceClassification, TemplateMatching
from bad_input_support import FAST, non_ints, non_finite, non_reals, fails


# ----------------------------------------------------------------------------- softmax: the scans
increasing = st.lists(st.floats(0.01, 1e3), min_size=1, max_size=8, unique=True).map(sorted)


@FAST
@given(betas=increasing, data=st.data())
def test_exact_from_returns_a_measured_beta_or_none(betas, data):
    accs = data.draw(st.lists(st.sampled_from([0.5, 0.9, 1.0]), min_size=len(betas), max_size=len(betas)))
    found = softmax.exact_from(betas, accs)
    if accs[-1] < 1.0:
        assert found is None
    else:
        assert found in betas and all(a == 1.0 for a in accs[betas.index(found):])
        assert betas.index(found) == 0 or accs[betas.index(found) - 1] < 1.0


@FAST
@given(betas=increasing, extra=st.integers(1, 3))
def test_exact_from_refuses_mismatched_lengths(betas, extra):
    fails(lambda: softmax.exact_from(betas, [1.0] * (len(betas) + extra)), "exact_from", "accuracies")
    fails(lambda: softmax.exact_from(betas + [betas[-1] + i for i in range(1, extra + 1)], [1.0] * len(betas)), "exact_from",
          "accuracies")


@FAST
@given(bad=st.one_of(non_reals, st.floats(max_value=0.0)))
def test_exact_from_refuses_bad_betas(bad):
    fails(lambda: softmax.exact_from([1.0, bad], [1.0, 1.0]), "exact_from", "betas")


@FAST
@given(bad=st.one_of(non_reals, st.floats(max_value=0.0, exclude_max=True), st.floats(min_value=1.0, exclude_min=True)))
def test_exact_from_refuses_bad_accuracies(bad):
    fails(lambda: softmax.exact_from([1.0, 2.0], [1.0, bad]), "exact_from", "accuracies")


@FAST
@given(x=st.lists(st.integers(-10**4, 10**4), min_size=2, max_size=10, unique=True).map(lambda v: [a / 100 for a in v]),
       data=st.data())
def test_upper_line_good(x, data):
    y = data.draw(st.lists(st.floats(-100, 100), min_size=len(x), max_size=len(x)))
    slope, intercept, lift = softmax.upper_line(x, y)
    assert all(map(math.isfinite, (slope, intercept, lift)))
    assert all(intercept + lift + slope * a >= b - 1e-6 * (1 + abs(b)) for a, b in zip(x, y))


@FAST
@given(x=st.floats(-100, 100), n=st.integers(1, 5), bad=non_finite)
def test_upper_line_refuses_one_distinct_x_and_non_finite(x, n, bad):
    fails(lambda: softmax.upper_line([x] * n, list(range(n))), "upper_line", "x", "2 distinct")
    fails(lambda: softmax.upper_line([0, 1, 2], [0.0, bad, 1.0]), "upper_line", "y")
    fails(lambda: softmax.upper_line([0, 1, 2], [0.0, 1.0]), "upper_line", "y")


@FAST
@given(bad=st.one_of(non_reals, st.floats(max_value=0.0)))
def test_scan_and_window_refuse_bad_betas(bad):
    fails(lambda: softmax.scan_threshold([1.0, bad], lambda b: 1.0), "scan_threshold", "betas")
    fails(lambda: softmax.exact_window([1.0, bad], [1.0, 1.0]), "exact_window", "betas")
    fails(lambda: softmax.with_attention(None, "softmax", bad), "with_attention")


@FAST
@given(beta=st.one_of(non_reals, st.floats(max_value=0.0)))
def test_paper_config_refuses_bad_beta(beta):
    task = TemplateMatching(n_words=3, length=2)
    fails(lambda: constructions.paper_config(task, 1, 1, beta=beta), "paper_config", "beta")


@FAST
@given(bad=st.one_of(non_ints, st.integers(-5, 0)))
def test_sizes_refuse(bad):
    fails(lambda: constructions.paper_config(TemplateMatching(3, 2), bad, 1), "paper_config", "n_layers")
    fails(lambda: softmax.memorization_thresholds([(2, bad)], [1.0]), "memorization_thresholds", "sizes")
    fails(lambda: softmax.in_context_qa_thresholds([(2, 2, bad)], [0.1, 0.5], [1.0]), "in_context_qa_thresholds",
          "sizes")
    fails(lambda: softmax.binding_examples(InContextTemplateMatching(2, 2, 2, 2), bad), "binding_examples", "n")
    fails(lambda: training.arch_key((1, bad)), "arch_key", "arch")
    fails(lambda: construction_study.lemma_1(TemplateMatching(3, 2), n_inputs=bad), "lemma_1", "n_inputs")


@FAST
@given(template=st.lists(st.integers(0, 4), min_size=1, max_size=6))
def test_equality_matrix_good(template):
    m = softmax.equality_matrix(template)
    assert torch.isfinite(m).all() and torch.allclose(m.sum(0), torch.ones(len(template), dtype=torch.float64))


# ----------------------------------------------------------------------------- the other modules
def test_dependence_refuses():
    task, toy, lam = reasoning_toy()
    model = dependence.Model  # the class, for the type message
    del model
    fails(lambda: dependence.strict_accuracy("model", toy), "strict_correct", "model")
    fails(lambda: dependence.template_weights(toy, 0.5, 1, 3), "template_weights", "first")
    fails(lambda: dependence.template_weights(toy, 0, 1, 0), "template_weights", "n_tokens")
    fails(lambda: dependence.softmax_normalizers("model", toy.x), "softmax_normalizers", "model")
    from lib.models import build_model
    m = build_model(constructions.paper_config(task, 1, 1, attention="softmax"), seed=0, dtype=torch.float64)
    fails(lambda: dependence.dependence_residual(m, toy, lam, torch.ones(3)), "dependence_residual", "weights")
    fails(lambda: dependence.strict_accuracy(m, toy, margin=math.nan), "strict_correct", "margin")
    fails(lambda: dependence.strict_accuracy(m, toy[:0]), "strict_accuracy", "batch")
    assert math.isfinite(dependence.dependence_residual(m, toy, lam, dependence.softmax_normalizers(m, toy.x)))


def test_training_limits_printed_and_study_refuse():
    fails(lambda: training.make_task("memorisation", "small"), "make_task", "name")
    fails(lambda: training.recipe("reasoning", "smoke", steps_factor=0), "recipe", "steps_factor")
    fails(lambda: training.model_factory(TemplateMatching(3, 2), 1, 1, init="other"), "model_factory", "init")
    fails(lambda: training.model_factory(TemplateMatching(3, 2), 1, 1, std=math.nan), "model_factory", "std")
    fails(lambda: training.parse_arch("1xx2"), "parse_arch", "key")
    assert training.parse_arch(training.arch_key((1, 1, 10))) == (1, 1, 10)
    fails(lambda: training.train_depths("reasoning", [], [0]), "train_depths", "depths")
    fails(lambda: training.one_layer_limit_point({"task": "reasoning"}, [0]), "one_layer_limit_point", "point")
    fails(lambda: limits.identity_residuals(None, "toy", [1], None, None, None), "identity_residuals", "toy")
    fails(lambda: printed.in_context_template_matching_as_printed(InContextTemplateMatching(2, 2, 2, 2), "yes"),
          "in_context_template_matching_as_printed", "answers_to_last")
    fails(lambda: construction_study.printed_against_corrected([(2, 2, 2)], 10), "printed_against_corrected", "sizes")
    fails(lambda: construction_study.largest_cosine(None, torch.zeros(1, 3, dtype=torch.long)), "largest_cosine", "x")
    fails(lambda: softmax_study.tm_threshold([2, 3], [1.0, 10.0]), "tm_threshold", "lengths", "2 distinct")
    fails(lambda: softmax_study.exact_from_rows([[1.0]]), "exact_from_rows", "table")


def test_course_and_queue_refuse():
    fails(lambda: course_checks.proposition_0_1("small", None, 10), "proposition_0_1", "small")
    fails(lambda: course_sweeps.width_length_point({}, {"width": 0, "length": 8}), "width_length_point", "width")
    for budget in (math.nan, math.inf, -1.0, "10"):
        fails(lambda: queue.run_queue(budget, sweeps=[], log=lambda *_: None), "run_queue", "budget_s")
    fails(lambda: queue.run_queue(1.0, sweeps=[], per_sweep_s=0.0, log=lambda *_: None), "run_queue", "per_sweep_s")
    fails(lambda: queue.ordered_sweeps("chen2024"), "ordered_sweeps", "names")
    fails(lambda: queue.table(["x"]), "table", "outcomes")
    fails(lambda: queue.status("chen2024.heads"), "status", "sweep")
    for argv in (["queue", "--budget", "nan"], ["queue", "--budget", "inf"], ["queue", "--budget", "10", "--per-sweep",
                                                                                 "nan"]):
        with pytest.raises(SystemExit):
            papers_main.main(argv)


# ----------------------------------------------------------------------------- the named examples
def test_exact_from_not_reached_is_a_documented_none():
    """``exact_from([1, 2, 4], [0.5, 0.9, 0.99])``: None means "not reached on the scan" (the docstring)."""
    assert softmax.exact_from([1, 2, 4], [0.5, 0.9, 0.99]) is None
    assert softmax.exact_from([1, 2, 4], [0.5, 1.0, 1.0]) == 2


def test_exact_from_never_returns_an_unmeasured_beta():
    """With more betas than accuracies it used to return a beta that had no accuracy (here 2)."""
    fails(lambda: softmax.exact_from([1, 2, 3], [1.0]), "exact_from", "accuracies", "one accuracy per beta")
    fails(lambda: softmax.exact_from([1, 2], [1.0, 1.0, 1.0]), "exact_from", "accuracies")
    fails(lambda: softmax.exact_from([1, 3, 2], [1.0, 1.0, 1.0]), "exact_from", "betas", "increasing")
    fails(lambda: softmax.exact_from([1, math.nan], [1.0, 1.0]), "exact_from", "betas")
    fails(lambda: softmax.exact_from([1, 2], [1.0, math.nan]), "exact_from", "accuracies")
    fails(lambda: softmax.exact_from([], []), "exact_from", "betas", "non-empty")


def test_lines_need_two_distinct_x():
    """``np.polyfit`` through one point (or one distinct x) used to warn and return nonsense."""
    fails(lambda: softmax.upper_line([3.0], [1.0]), "upper_line", "x", "2 distinct")
    fails(lambda: softmax.upper_line([3.0, 3.0], [1.0, 2.0]), "upper_line", "x", "2 distinct")
    assert softmax.upper_line([0, 1, 2, 3], [0.0, 1.5, 1.5, 3.0]) == pytest.approx((0.9, 0.15, 0.45))
    fails(lambda: softmax.upper_line([0.0, 2e-222], [0.0, 0.0]), "upper_line", "x")  # distinct, but not for a fit


def test_memorization_threshold_refuses_a_one_size_fit():
    """A line through one size: refused before any scan (and a None threshold reaches upper_line as NaN)."""
    fails(lambda: softmax.upper_line(np.log([4.0, 8.0]), pd.Series([1.0, None], dtype=float)), "upper_line", "y")
    task = SequenceClassification(n_words=2, length=2, n_examples=4)
    assert softmax.memorization_thresholds([(2, 2)], [0.5, 5.0, 50.0])[0]["threshold"] in (0.5, 5.0, 50.0, None)
    del task


def test_ictm_threshold_refuses_unreached_thresholds():
    fails(lambda: softmax_study.ictm_threshold([(2, 2, 2, 2)], [0.01], (2, 2, 2, 2)), "ictm_threshold", "extend betas")


def test_batch_helpers_refuse():
    fails(lambda: softmax.logit_margin(None, Batch(torch.zeros(1, 2, dtype=torch.long), torch.zeros(1, dtype=torch.long))),
          "logit_margin", "model")
    fails(lambda: softmax.one_per_template("task"), "one_per_template", "task")


def test_stored_result_summaries_refuse():
    from lib.papers.chen2024 import analysis
    fails(lambda: analysis.sgd_speeds({"grid": []}), "sgd_speeds", "sgd")
    fails(lambda: analysis.figure7_table(None), "figure7_table", "by_k")


def test_sweep_results_refuse_unknown_names_and_scales():
    from lib.papers.bhattamishra2024 import sweeps as bh_sweeps
    from lib.papers.chen2024 import sweeps as chen_sweeps
    for module in (bh_sweeps, chen_sweeps, course_sweeps):
        fails(lambda: module.result("no such sweep"), "result", "name")
        fails(lambda: module.result(next(iter(module.SWEEPS)), "huge"), "result", "scale")
