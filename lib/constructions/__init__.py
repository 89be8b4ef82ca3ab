"""Reusable pieces of closed-form constructions (the way tracr keeps its building blocks apart
from the programs built with them). Each paper's own constructions live in
``lib/papers/<key>/`` and are built from these:

=================  ==================================================================
module             what
=================  ==================================================================
:mod:`.weights`    ``WeightBuilder`` (zero weights filled entry by entry, then loaded into
                   the shared attention model), ``last_column``, ``normalized_classifier``
:mod:`.blocks`     the one-layer operations of Chen & Zou Sec. 10: instructive (copy /
                   mask), match, parse within blocks
:mod:`.lookup`     index lookup with one-hot positions (one softmax head, exact for
                   beta > log(N - 1))
=================  ==================================================================

A construction is a function ``task -> model`` (plus its free parameters) with a test beside it
in ``tests/`` that checks 100% accuracy on the whole task.
"""
