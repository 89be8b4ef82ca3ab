"""The checks behind every claim the memorization chapters record (Mahdavi, Liao & Thrampoulidis
2024), one public function per claim, by chapter:

==================  =========================================================================
module              chapter
==================  =========================================================================
``theorem``         01_theorem_1: Theorem 1, Prop. 1, Remark 1, Lemmas 1 and 3-5, Claims 1-2
``rank_bounds``     02_rank_bounds: Props. 2, 3 and 5
``assumptions``     03_assumptions_in_models: Prop. 4, Table 1, Figure 1, Table 3
``training``        04_training and 05_saturation_and_general_position: Figures 2-5
==================  =========================================================================

Each returns a :class:`lib.claims.Check`: the verdict's inputs, the evidence (each stored result
it read) and, for a trained claim, the difference between what the run did and the paper's setup
(:mod:`lib.papers.mahdavi2024.setup`), computed field by field. A chapter records one with one
line, ``record(checks.figure_2a(results["fig2a"]))``; ``tests/test_mahdavi2024_checks.py``
re-derives every committed verdict. Nothing here is imported by the sweeps or the training code.
"""
from .assumptions import *
from .rank_bounds import *
from .theorem import *
from .training import *
