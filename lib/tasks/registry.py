"""Every task class with small valid arguments: the test suite checks each registered task for
determinism, argument validation and disjoint splits, so a new task is registered here when it
lands. (Only the tests import this module; it imports every task family.)"""
from functools import partial

from .base import Task
from .boolean import PairFunction, StringEquality
from .dyck import BoundedDyck
from .nearest_neighbour import NearestNeighbour
from .random_labels import SequenceClassification
from .retrieval import InContextQA, IndexLookup
from .binding_text import VariableBindingText
from .symbol_templates import SymbolicTemplates, SymbolTemplates, aba_abb, program_symbolic
from .templates import InContextTemplateMatching, TemplateMatching
from .variable_length import VariableLengthIndexLookup

REGISTRY: dict[str, tuple[type[Task], dict]] = {
    IndexLookup.name: (IndexLookup, {"n_symbols": 4, "length": 3}),
    SequenceClassification.name: (SequenceClassification, {"n_words": 3, "length": 3, "n_examples": 20}),
    InContextQA.name: (InContextQA, {"n_questions": 4, "n_answers": 4, "k": 2}),
    TemplateMatching.name: (TemplateMatching, {"n_words": 5, "length": 3}),
    InContextTemplateMatching.name: (InContextTemplateMatching, {"n_words": 3, "n_answers": 3, "length": 2, "k": 2}),
    VariableLengthIndexLookup.name: (VariableLengthIndexLookup, {"n_symbols": 4, "length": 6, "min_length": 3}),
    BoundedDyck.name: (BoundedDyck, {"length": 8, "n_types": 2, "depth": 2}),
    PairFunction.name: (PairFunction, {"half_length": 4}),
    StringEquality.name: (StringEquality, {"n_symbols": 3, "length": 8}),
    NearestNeighbour.name: (NearestNeighbour, {"n_points": 8, "dim": 6}),
    VariableBindingText.name: (VariableBindingText, {"n_variables": 3, "n_values": 3, "seq_len": 16}),
    SymbolTemplates.name: (partial(SymbolTemplates, *aba_abb()), {"n_symbols": 8, "n_heldout": 5}),
    SymbolicTemplates.name: (partial(SymbolicTemplates, *program_symbolic()), {"n_symbols": 6, "n_heldout": 5}),
}
