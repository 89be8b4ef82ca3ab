"""Chen & Zou (2024): every construction at exactly 100% on the whole task."""
import pytest

from lib.constructions.weights import last_column
from lib.models import accuracy
from lib.papers.chen2024.constructions import (in_context_qa, in_context_template_matching, memorization,
                                               template_matching)
from lib.papers.chen2024.examples import table_1
from lib.papers.chen2024.softmax import (exact_from, in_context_template_matching_softmax,
                                         template_matching_softmax, with_attention)
from lib.tasks import InContextQA, InContextTemplateMatching, SequenceClassification, TemplateMatching


def test_theorem_1_memorizes_table_1_and_a_random_dataset():
    task, batch = table_1()["Memorization"]
    model = memorization(task)
    assert accuracy(model, task.enumerate()) == 1.0
    big = SequenceClassification(n_words=30, length=6, n_examples=500, dataset_seed=3)
    model = memorization(big)
    assert accuracy(model, big.enumerate()) == 1.0
    # Lemma 4: the last column is the concatenation of the word one-hots
    x = big.enumerate().x[:5]
    d = len(big.vocab)
    h = last_column(model, x)
    for i in range(big.length):
        assert (h[:, i * d:(i + 1) * d].argmax(1) == x[:, i]).all()
    assert h.abs().sum(1).allclose(h.new_full((5,), big.length))


def test_theorem_3_solves_every_in_context_qa_example():
    assert accuracy(in_context_qa(InContextQA(5, 5, 3)), InContextQA(5, 5, 3).enumerate()) == 1.0  # 10,800


def test_theorem_3_at_the_papers_size():
    task = InContextQA(100, 100, 4)
    assert accuracy(in_context_qa(task), task.sample(2000, seed=0)) == 1.0


@pytest.mark.parametrize("n_words, length", [(3, 2), (5, 3), (7, 5)])
def test_theorem_5_solves_every_template_matching_sequence(n_words, length):
    task = TemplateMatching(n_words, length)
    assert accuracy(template_matching(task), task.enumerate()) == 1.0  # all n_words^length sequences


def test_theorem_5_at_the_papers_size():
    task = TemplateMatching(210, 5)
    assert accuracy(template_matching(task), task.sample(2000, seed=0)) == 1.0


def test_theorem_6_corrected_solves_in_context_template_matching():
    small = InContextTemplateMatching(3, 2, 2, 2)
    assert accuracy(in_context_template_matching(small), small.enumerate()) == 1.0  # 648
    paper = InContextTemplateMatching(100, 100, 5, 4)
    assert accuracy(in_context_template_matching(paper), paper.sample(500, seed=1)) == 1.0


def test_softmax_versions_of_theorems_1_and_3_are_exact_at_moderate_temperature():
    qa = InContextQA(5, 5, 3)
    assert accuracy(with_attention(in_context_qa(qa), "softmax", beta=1.0), qa.enumerate()) == 1.0
    sc, _ = table_1()["Memorization"]
    model = memorization(sc)
    assert accuracy(with_attention(model, "softmax", beta=3.0), sc.enumerate()) == 1.0
    assert accuracy(with_attention(model, "softmax", beta=1.0), sc.enumerate()) < 1.0


def test_softmax_theorem_5_is_exact_at_every_temperature():
    task = TemplateMatching(6, 4)
    for beta in (0.01, 1.0, 100.0):
        assert accuracy(template_matching_softmax(task, beta), task.enumerate()) == 1.0


def test_softmax_theorem_6_is_exact_once_sharp():
    small = InContextTemplateMatching(3, 2, 2, 2)
    data = small.enumerate()
    assert accuracy(in_context_template_matching_softmax(small, 10.0), data) == 1.0
    assert accuracy(in_context_template_matching_softmax(small, 1.0), data) < 1.0  # too soft: layers 1-2 blur
    mid = InContextTemplateMatching(4, 3, 3, 3)
    assert accuracy(in_context_template_matching_softmax(mid, 10.0), mid.sample(2000, seed=1)) == 1.0


def test_exact_from_reads_a_temperature_scan():
    assert exact_from([1, 2, 3, 5], [0.5, 1.0, 0.9, 1.0]) == 5
    assert exact_from([1, 2, 3], [1.0, 1.0, 1.0]) == 1
    assert exact_from([1, 2], [1.0, 0.99]) is None


def test_softmax_theorem_6_threshold_grows_with_the_sequence_length():
    import math
    from lib.papers.chen2024.softmax import binding_examples, in_context_template_matching_thresholds, scan_threshold
    assert scan_threshold([1, 2, 3], lambda b: 1.0 if b >= 2 else 0.5) == (2, 0.5)
    assert scan_threshold([1, 2, 3], lambda b: 0.0) == (None, 0.0)
    task = InContextTemplateMatching(6, 6, 3, 3)
    batch, min_distance = binding_examples(task, 50, seed=0)
    assert min_distance == 1.0 and len(batch.y) == 50
    assert batch.x.equal(binding_examples(task, 50, seed=0)[0].x)  # deterministic by seed
    grid = [x / 4 for x in range(2, 33)]
    short, long = in_context_template_matching_thresholds([(5, 5, 2, 2), (10, 10, 5, 4)], grid, n_examples=60)
    assert short["threshold"] < long["threshold"]  # 3.0 at n = 11, 4.0 at n = 34
    for row in (short, long):  # the chapter's line, ln(n-1) + c with c = 0.7, holds at both sizes
        assert row["threshold"] <= math.log(row["n"] - 1) + 0.75


def test_theorem_6_as_printed_fails_when_an_answer_is_absent_from_the_context():
    from lib.papers.chen2024.printed import in_context_template_matching_as_printed
    every_answer = InContextTemplateMatching(3, 2, 2, 2)  # both answers always in the context
    assert accuracy(in_context_template_matching_as_printed(every_answer), every_answer.enumerate()) == 1.0
    task = InContextTemplateMatching(4, 4, 3, 3)
    data = task.sample(1000, seed=0)
    assert accuracy(in_context_template_matching_as_printed(task), data) < 0.5
    assert accuracy(in_context_template_matching(task), data) == 1.0


def test_softmax_theorem_3_margin_is_two_beta_squared_over_n_cubed_on_every_input():
    from lib.papers.chen2024.softmax import in_context_qa_thresholds
    grid = [round(10 ** (e / 8), 6) for e in range(-32, 1)]
    short, long = in_context_qa_thresholds([(5, 5, 2), (10, 10, 8)], [0.001, 0.01, 1, 100], grid, n_examples=100)
    for row in (short, long):
        assert row["float64 exact at every beta"] and row["relative margin spread"] < 1e-3
        assert abs(row["margin / beta^2 at 0.001"] * row["n"] ** 3 / 2 - 1) < 0.01
    assert short["float32 threshold"] < long["float32 threshold"]  # 0.0032 at n = 8, 0.01 at n = 26
    assert short["float32 accuracy just below"] < 1.0


def test_softmax_theorem_5_float32_window_narrows_with_the_template_length():
    import torch
    from lib.papers.chen2024.softmax import exact_window, logit_margin, one_per_template, template_matching_thresholds
    assert exact_window([1, 2, 3, 4, 5], [0.5, 1.0, 0.9, 1.0, 1.0]) == (4, 5)
    assert exact_window([1, 2], [0.0, 0.5]) == (None, None)
    task = TemplateMatching(9, 7)
    batch = one_per_template(task)
    assert len(batch.y) == 877 and accuracy(template_matching_softmax(task, 1.0), batch) == 1.0
    model, sample = template_matching_softmax(TemplateMatching(6, 4), 3.0), TemplateMatching(6, 4).sample(300, seed=0)
    per_template = logit_margin(model, one_per_template(TemplateMatching(6, 4)))
    assert torch.allclose(logit_margin(model, sample), per_template[sample.y], atol=1e-12)  # these inputs bind
    betas = [0.001, 1.0, 1000.0]
    short, long = template_matching_thresholds([3, 7], betas)
    for row in (short, long):
        assert min(row["float64 margin"]) > 0  # float64: exact at every temperature
    assert short["float32 accuracy"][1:] == [1.0, 1.0]
    assert long["float32 accuracy"][1] == 1.0 and long["float32 accuracy"][2] < 1.0  # float32 loses l = 7 at large beta
    with pytest.raises(ValueError, match="l must be"):
        template_matching_thresholds([9], betas)  # 21,147 templates: refused before it fills memory


def test_upper_line_lies_on_or_above_every_point():
    from lib.papers.chen2024.softmax import upper_line
    slope, intercept, lift = upper_line([0, 1, 2, 3], [0.0, 1.5, 1.5, 3.0])
    assert abs(slope - 0.9) < 1e-12 and lift > 0
    assert all(intercept + lift + slope * x >= y - 1e-12 for x, y in zip([0, 1, 2, 3], [0.0, 1.5, 1.5, 3.0]))
