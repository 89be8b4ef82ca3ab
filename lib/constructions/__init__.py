"""Closed-form weights, each loaded into the same :class:`lib.models.AttentionModel` that
training uses, so a construction is evaluated, probed and fine-tuned like any model.

Each construction is a function ``task -> model`` (plus its free parameters) with a test
beside it in ``tests/`` that checks 100% accuracy on the whole task.
"""
from .index_lookup import index_lookup_onehot

__all__ = ["index_lookup_onehot"]
