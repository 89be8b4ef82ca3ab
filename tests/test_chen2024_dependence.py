"""Lemmas 5-7 of Chen & Zou (2024) on whole template tasks: equal token counts per position
within a template, integer weights that make two templates' sequences dependent, and equal
weighted sums of any one-layer ReLU transformer's outputs over them."""
import pytest
import torch

from lib.models import build_model
from lib.papers.chen2024.constructions import paper_config
from lib.papers.chen2024.dependence import dependence_residual, is_dependent, position_counts, template_weights
from lib.tasks import Batch, TemplateMatching


@pytest.mark.parametrize("n_words,length", [(3, 2), (4, 3)])
def test_every_pair_of_templates_is_dependent_and_one_layer_cannot_separate_them(n_words, length):
    task = TemplateMatching(n_words=n_words, length=length)
    batch = task.enumerate()
    n_tokens = len(task.vocab)
    for first in range(task.n_classes):
        for second in range(first + 1, task.n_classes):
            pair, weights = template_weights(batch, first, second, n_tokens)
            assert is_dependent(pair.x, weights)  # Lemma 6
            assert all(w > 0 for w in weights[:int((pair.y == first).sum())])
    model = build_model(paper_config(task, 1, 4).replace(init_std=0.5), seed=1, dtype=torch.float64)
    pair, weights = template_weights(batch, 0, task.n_classes - 1, n_tokens)
    assert dependence_residual(model, pair, weights) < 1e-12  # Lemma 7


def test_counts_and_the_lemma_5_precondition():
    x = torch.tensor([[0, 1, 2], [1, 0, 2]])
    assert position_counts(x, 3).tolist() == [[1, 1, 0], [1, 1, 0], [0, 0, 2]]
    partial = Batch(torch.tensor([[0, 0, 2], [1, 1, 2], [0, 1, 2]]), torch.tensor([0, 0, 1]))
    with pytest.raises(ValueError, match="Lemma 5"):
        template_weights(Batch(torch.tensor([[0, 0, 2], [0, 0, 2], [1, 1, 2]]), torch.tensor([0, 0, 0])), 0, 0, 3)
    assert template_weights(partial, 0, 1, 3)[1] == [1, 1, -2]
    with pytest.raises(ValueError):
        position_counts(torch.tensor([[0, 5]]), 3)
