"""Task generators, one module per family; every task shares the shape of :class:`lib.tasks.base.Task`.

=====================  ==============================================================
module                 tasks
=====================  ==============================================================
:mod:`.base`           Task, Batch, Vocab, argument checks, symbol names, held-out splits
:mod:`.retrieval`      IndexLookup, InContextQA (associative recall)
:mod:`.templates`      TemplateMatching, InContextTemplateMatching, ``all_templates``
:mod:`.random_labels`  SequenceClassification, query/context vectors (memorization)
:mod:`.variable_length` VariableLengthIndexLookup (index lookup at lengths U{n..N})
:mod:`.dyck`           BoundedDyck, the Dyck-(n, k) recognizer, automaton and member count
:mod:`.boolean`        PairFunction (EQ, INEQ, DISJ), StringEquality (Eq-random, Eq-one, Eq-ncp)
:mod:`.nearest_neighbour` NearestNeighbour (with a margin; MQAR as a special case)
:mod:`.dyck_words`     Dyck words D_2N (function module): enumeration, samplers, depth counts
:mod:`.boolean_expressions` Boolean simplification (function module): Algorithm 1, truth
                       tables, the simplify_logic oracle, held-out forms
:mod:`.symbol_templates` SymbolTemplates, SymbolicTemplates (abstract symbols, unseen alphabets),
                       matches / disjointness / diversity, the tasks of Boix-Adsera et al.
:mod:`.binding_text`  VariableBindingText (a synthetic corpus of variable bindings for
                       next-token training, the offline stand-in for Wikitext)
:mod:`.registry`       every task with small valid arguments, for the generic tests
=====================  ==============================================================

A new task is a subclass of :class:`~lib.tasks.base.Task` in its family's module, named in
``_EXPORTS`` below and registered in :mod:`.registry`. Families are imported when first used
(``from lib.tasks import IndexLookup`` imports :mod:`.retrieval` only), so a result's provenance
(:func:`lib.results.lib_closure`, which reads ``_EXPORTS``) lists only the families that
computed it, and a new family leaves it fresh.
"""
from __future__ import annotations

from .. import lazy_exports
from .base import (IGNORE, SIGN, Batch, HeldOutSplit, Task, Vocab, check_choice, check_int, make_generator,
                   symbol_names)

_EXPORTS = {"IndexLookup": "retrieval", "InContextQA": "retrieval", "TemplateMatching": "templates",
            "InContextTemplateMatching": "templates", "SequenceClassification": "random_labels",
            "REGISTRY": "registry", "VariableLengthIndexLookup": "variable_length", "BoundedDyck": "dyck",
            "PairFunction": "boolean", "StringEquality": "boolean", "NearestNeighbour": "nearest_neighbour",
            "SymbolTemplates": "symbol_templates", "SymbolicTemplates": "symbol_templates",
            "VariableBindingText": "binding_text"}
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)


__all__ = ["IGNORE", "SIGN", "Batch", "HeldOutSplit", "Task", "Vocab", "check_choice", "check_int", "make_generator",
           "symbol_names", *_EXPORTS]
