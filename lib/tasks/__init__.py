"""Task generators, one module per family; every task shares the shape of :class:`lib.tasks.base.Task`.

=====================  ==============================================================
module                 tasks
=====================  ==============================================================
:mod:`.base`           Task, Batch, Vocab, argument checks, symbol names, held-out splits
:mod:`.retrieval`      IndexLookup, InContextQA (associative recall)
:mod:`.templates`      TemplateMatching, InContextTemplateMatching, templates
:mod:`.random_labels`  SequenceClassification, query/context vectors (memorization)
=====================  ==============================================================

``REGISTRY`` maps a task's name to its class and to small valid arguments; the test suite
checks every registered task for determinism and argument validation, so a new task is
registered here when it lands.
"""
from .base import IGNORE, SIGN, Batch, Task, Vocab, check_choice, check_int, make_generator, symbol_names
from .random_labels import SequenceClassification
from .retrieval import InContextQA, IndexLookup
from .templates import InContextTemplateMatching, TemplateMatching

REGISTRY: dict[str, tuple[type[Task], dict]] = {
    IndexLookup.name: (IndexLookup, {"n_symbols": 4, "length": 3}),
    SequenceClassification.name: (SequenceClassification, {"n_words": 3, "length": 3, "n_examples": 20}),
    InContextQA.name: (InContextQA, {"n_questions": 4, "n_answers": 4, "k": 2}),
    TemplateMatching.name: (TemplateMatching, {"n_words": 5, "length": 3}),
    InContextTemplateMatching.name: (InContextTemplateMatching, {"n_words": 3, "n_answers": 3, "length": 2, "k": 2}),
}

__all__ = ["IGNORE", "SIGN", "Batch", "Task", "Vocab", "check_choice", "check_int", "make_generator", "symbol_names",
           "IndexLookup", "SequenceClassification", "InContextQA", "TemplateMatching", "InContextTemplateMatching",
           "REGISTRY"]
