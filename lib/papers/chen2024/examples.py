"""Worked examples of Chen & Zou (2024): Table 1 and the dependent sets behind Theorems 2 and 4,
produced by the task generators."""
from __future__ import annotations

import torch

from ...tasks import Batch, InContextQA, InContextTemplateMatching, SequenceClassification, Task, TemplateMatching


# The paper's Table 1 (App. 8) as printed, one string per example: the input tokens, then the
# underlined target (transcribed from the paper; "→" is the response sign).
TABLE_1 = {
    "Memorization": ["a a → 1", "b b → 2", "c c → 3", "a b → 4", "a c → 5", "b a → 6", "b c → 7", "c a → 8",
                     "c b → 9"],
    "Reasoning": ["a → 1 b → 2 a → 1", "b → 1 a → 2 a → 2", "a → 1 b → 2 b → 2", "b → 1 a → 2 b → 1"],
    "Generalization": ["a a → 1", "b b → 1", "c c → 1", "a b → 2", "a c → 2", "b a → 2", "b c → 2", "c a → 2",
                       "c b → 2"],
    "Contextual generalization": ["a a → 1 a b → 2 b b → 1", "a a → 1 a b → 2 b a → 2", "a a → 1 a b → 2 a a → 1",
                                  "a a → 1 a b → 2 a b → 2"],
}


def table_1_rows() -> dict[str, list[str]]:
    """Our generators' Table 1 in the paper's format (input tokens, then the target)."""
    rows = {}
    for name, (task, batch) in table_1().items():
        rows[name] = [" ".join(task.vocab.tokens[int(t)] for t in x) + " " + task.describe_target(y).split(" (")[0]
                      for x, y in zip(batch.x, batch.y)]
    return rows


def table_1() -> dict[str, tuple[Task, Batch]]:
    """The worked examples of the paper's Table 1 (App. 8), produced by the generators."""
    sc = SequenceClassification(n_words=3, length=2, n_examples=9)
    order = [(0, 0), (1, 1), (2, 2), (0, 1), (0, 2), (1, 0), (1, 2), (2, 0), (2, 1)]  # the paper's labels 1..9
    sc_batch = Batch(torch.tensor([[a, b, sc.sign] for a, b in order]), torch.arange(9))
    qa = InContextQA(n_questions=2, n_answers=2, k=2)
    q = torch.tensor([[0, 1], [1, 0], [0, 1], [1, 0]])
    a = torch.tensor([[0, 1], [0, 1], [0, 1], [0, 1]])
    c = torch.tensor([0, 1, 1, 0])
    qa_batch = qa.encode(q, a, c)
    tm = TemplateMatching(n_words=3, length=2)
    tm_batch = tm.enumerate()
    ictm = InContextTemplateMatching(n_words=2, n_answers=2, length=2, k=2)
    tids = torch.tensor([[0, 1]] * 4)
    maps = torch.tensor([[[0, 1], [0, 1], [1, 0]], [[0, 1], [0, 1], [1, 0]], [[0, 1], [0, 1], [0, 1]],
                         [[0, 1], [0, 1], [0, 1]]])
    ictm_batch = ictm.encode(tids, maps, torch.tensor([[0, 1]] * 4), torch.tensor([0, 1, 0, 1]))
    return {"Memorization": (sc, sc_batch), "Reasoning": (qa, qa_batch), "Generalization": (tm, tm_batch),
            "Contextual generalization": (ictm, ictm_batch)}


def reasoning_toy() -> tuple[InContextQA, Batch, list[int]]:
    """The proof of Theorem 2: ``a=x b=y a=``, ``a=y b=x b=``, ``a=y b=x a=``, ``a=x b=y b=``.

    E0 + E1 and E2 + E3 hold the same tokens at every position, so lambda = (1, 1, -1, -1);
    the targets are x, x, y, y.
    """
    task = InContextQA(n_questions=2, n_answers=2, k=2)
    q = torch.tensor([[0, 1], [0, 1], [0, 1], [0, 1]])
    a = torch.tensor([[0, 1], [1, 0], [1, 0], [0, 1]])
    c = torch.tensor([0, 1, 0, 1])
    return task, task.encode(q, a, c), [1, 1, -1, -1]


def template_toy() -> tuple[TemplateMatching, Batch, list[int]]:
    """Lemmas 5-7 on Table 1: all 9 sequences over {a, b, c}; template αα (3 sequences) gets
    lambda = 2 and αβ (6 sequences) gets -1, i.e. mean output over αα = mean over αβ."""
    task = TemplateMatching(n_words=3, length=2)
    batch = task.enumerate()
    return task, batch, [2 if int(y) == 0 else -1 for y in batch.y]
