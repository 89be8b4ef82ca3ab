"""Chen & Zou (2024) tasks: sizes, semantics and splits."""
import math

import pytest
import torch

from lib.papers.chen2024.examples import table_1
from lib.tasks import InContextQA, InContextTemplateMatching, SequenceClassification, TemplateMatching
from lib.tasks.templates import all_templates, template_of


def test_template_counts_are_bell_numbers():
    assert [len(all_templates(l)) for l in range(1, 6)] == [1, 2, 5, 15, 52]


def test_sequence_classification_is_distinct_with_distinct_labels():
    data = SequenceClassification(n_words=5, length=4, n_examples=300).enumerate()
    assert len({tuple(x.tolist()) for x in data.x}) == 300
    assert sorted(data.y.tolist()) == list(range(300))


def test_in_context_qa_size_targets_and_pairing_split():
    task = InContextQA(n_questions=5, n_answers=5, k=3)
    everything = task.enumerate()
    assert len(everything) == math.perm(5, 3) ** 2 * 3 == 10_800
    b = task.sample(200, seed=0)
    for x, y in zip(b.x, b.y):
        blocks = x[:-2].reshape(3, 3)
        c = (blocks[:, 0] == x[-2]).nonzero().item()  # exactly one block holds the query question
        assert blocks[c, 2] - task.answer_offset == y
    train, test = task.split(300, 100, seed=0)
    held = task._held

    def pairs(batch):
        blocks = batch.x[:, :-2].reshape(len(batch), 3, 3)
        return blocks[:, :, 0], blocks[:, :, 2] - task.answer_offset

    q, a = pairs(train)
    assert not held[q, a].any()  # no held-out pairing anywhere in training
    q, a = pairs(test)
    query_block = (q == test.x[:, -2:-1]).float().argmax(1)
    assert held[q[torch.arange(100), query_block], a[torch.arange(100), query_block]].all()


def test_template_matching_is_balanced_labelled_by_pattern_and_splits_maps():
    task = TemplateMatching(n_words=30, length=3)
    b = task.sample(5000, seed=0)
    assert all(task.templates[int(y)] == template_of(x[:-1].tolist()) for x, y in zip(b.x[:300], b.y[:300]))
    counts = torch.bincount(b.y, minlength=5).float()
    assert counts.min() > 0.8 * counts.mean()  # template-balanced, not sequence-uniform
    assert len(TemplateMatching(n_words=7, length=5).enumerate()) == 7**5
    train, test = task.split(500, 200, seed=0)
    def maps(batch):
        return {(int(y), tuple(x[:-1].tolist())) for x, y in zip(batch.x, batch.y)}

    assert not maps(train) & maps(test)


def test_in_context_template_matching_has_one_matching_block():
    task = InContextTemplateMatching(n_words=6, n_answers=6, length=3, k=3)
    assert task.seq_len == (3 + 2) * 3 + 3 + 1
    b = task.sample(300, seed=0)
    for x, y in zip(b.x, b.y):
        blocks = x[: 5 * 3].reshape(3, 5)
        query = template_of(x[15:18].tolist())
        matches = [i for i in range(3) if template_of(blocks[i, :3].tolist()) == query]
        assert len(matches) == 1 and blocks[matches[0], 4] - task.answer_offset == y
    assert len(InContextTemplateMatching(n_words=3, n_answers=2, length=2, k=2).enumerate()) == 648


def test_table_1_rows_are_the_papers():
    rows = {name: task.render(batch, 20) for name, (task, batch) in table_1().items()}
    assert rows["Reasoning"][1] == "b → 1 a → 2 a →  ->  2"
    assert rows["Contextual generalization"][0] == "a a → 1 a b → 2 b b →  ->  1"
    assert rows["Memorization"][8] == "c b →  ->  9"
    assert len(rows["Generalization"]) == 9


def test_table_1_is_the_papers_example_for_example():
    from lib.papers.chen2024.examples import TABLE_1, table_1_rows
    assert table_1_rows() == TABLE_1


def test_figure2_paper_sizes_are_sec_9_1_instances():
    """The sweep at the paper's sizes trains the instances that ``make_task(name, "paper")`` builds,
    at every scale (the smoke scale shrinks the memorization set otherwise)."""
    from lib.papers.chen2024.sweeps import PAPER_SIZES, figure2_paper_sizes
    from lib.papers.chen2024.training import make_task

    for scale in ("smoke", "default", "paper"):
        config, grid = figure2_paper_sizes(scale)
        for task, sizes in PAPER_SIZES.items():
            assert config["tasks"][task] == repr(make_task(task, "paper"))
        for point in grid:
            assert repr(make_task(point["task"], "small", **point["task_args"])) == repr(make_task(point["task"], "paper"))


def test_figure7_paper_sizes_is_figure7_l5_on_sec_9_1_instance():
    """Figure 7 at the paper's instance trains what ``figure7_l5`` trains (the construction's head
    count, k = 4, l = 5, the same steps) on ``make_task("contextual", "paper")``: only the words
    and answers (and, below the paper scale, the seeds) differ."""
    from lib.papers.chen2024.sweeps import figure7_l5
    from lib.papers.chen2024.sweeps import figure7_paper_sizes
    from lib.papers.chen2024.training import make_task

    (point,) = figure7_paper_sizes("default")[1]
    assert repr(make_task("contextual", "small", **point["task_args"])) == repr(make_task("contextual", "paper"))
    (l5,) = figure7_l5("default")[1]
    assert {**point, "task_args": None} == {**l5, "task_args": None}
    assert {a: v for a, v in l5["task_args"].items() if v != point["task_args"][a]} == {"n_words": 10, "n_answers": 10}


def test_the_run_functions_train_the_stored_recipes():
    """The curves and limits sweeps train the recipe their stored config holds (issue 30: the scale
    travels in the config): for every sweep, scale and grid point it is :func:`recipe`'s today, a
    config whose recipe says otherwise trains what it says, and one whose task differs is refused."""
    from dataclasses import replace

    from lib.papers.chen2024.sweeps import SWEEPS
    from lib.papers.chen2024.training import recipe, stored_recipe

    for sweep in SWEEPS.values():
        for scale in ("smoke", "default", "paper"):
            config, grid = sweep.define(scale)
            for point in grid:
                factor, args = point.get("steps_factor", 1.0), point.get("task_args", {})
                ours, code = stored_recipe(config, point["task"], scale, factor, **args), \
                    recipe(point["task"], scale, factor, **args)
                assert (ours.train, repr(ours.task), ours.init_std, ours.eval_size) == \
                    (code.train, repr(code.task), code.init_std, code.eval_size), (sweep.key, scale, point)
    config, _ = SWEEPS["figure2"].define("default")
    changed = dict(config, recipes=dict(config["recipes"], reasoning=dict(config["recipes"]["reasoning"], lr=0.5)))
    assert stored_recipe(changed, "reasoning", "default").train == replace(recipe("reasoning", "default").train, lr=0.5)
    with pytest.raises(ValueError, match="is not the one this code builds"):
        stored_recipe(config, "reasoning", "paper")
