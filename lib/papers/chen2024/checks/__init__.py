"""The checks behind every claim the depth chapters record (Chen & Zou 2024), one function per claim.

Each takes the stored results (and, for a construction, the objects a chapter builds) and returns a
:class:`lib.claims.Check`: the verdict's inputs, the evidence (each result's name, scale, code
hash, commit and date) and, for a trained claim, the computed difference between the config the
result ran with and the paper's setup (:mod:`..setup`). A chapter records one with one line,
``record(checks.figure_2a(fig2))``; ``tests/test_chen2024_checks.py`` re-derives every committed
verdict from ``data/`` and the constructions alone.

=================  ==============================================================================
module             chapter
=================  ==============================================================================
``constructions``  ``02_depth/01_tasks_constructions``: Table 1, Lemmas 1-4, Theorems 1, 3, 5, 6
``softmax``        ``02_depth/01b_softmax``: the constructions under softmax (the course's findings)
``limits``         ``02_depth/02_one_layer_limits``: Props. 7-10, Lemmas 5-7, Theorems 2, 4, Sec. 6.1
``training``       ``02_depth/03_training``: Figure 2 (three scales and sizes), Figure 3
``heads``          ``02_depth/04_heads``: Figures 4-7
=================  ==============================================================================
"""
from . import constructions, heads, limits, softmax, training
from .training import FIGURE_2, figure_2a, figure_2b, figure_2c, figure_2d

__all__ = ["constructions", "heads", "limits", "softmax", "training", "FIGURE_2", "figure_2a", "figure_2b",
           "figure_2c", "figure_2d"]
