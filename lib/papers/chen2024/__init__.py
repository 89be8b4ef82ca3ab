"""Chen & Zou (2024): what 1, 2 and 3 attention layers can do.

=================  =====================================================================
module             what
=================  =====================================================================
``constructions``  Theorems 1, 3, 5 and 6 (ReLU attention) and Sec. 3.1's model config
``printed``        Theorem 6's Sec. 15 matrices as printed (they fail; the corrected ones are in
                   ``constructions``)
``softmax``        the constructions with softmax attention (Sec. 16; our extensions), their
                   temperature thresholds and the inputs that bind them
``examples``       Table 1 and the dependent sets of the proofs of Theorems 2 and 4
``dependence``     the linear-dependence identity behind the one-layer impossibility results
``training``       recipes, the paper's initialisation, training curves, attention scores
``sweeps``         Figures 2 and 4-7 and Sec. 6.1 as named sweeps (``SWEEPS``), at our sizes and
                   the paper's, and accessors
``figures``        the training chapters' figures
``construction_study``, ``softmax_study``, ``limits``, ``analysis``: what the chapters measure on
                   the constructions, the softmax thresholds, the one-layer limits and the heads
``setup``          what Sec. 6 and 9 state about each trained experiment, as data, and our side
                   read from each stored config (:mod:`lib.paper_setup`)
``checks``         one check per claim the chapters record (:func:`lib.claims.check`)
=================  =====================================================================

Run a sweep: ``python -m lib.papers.chen2024 SCALE [NAME ...]`` (``list`` shows them).
"""
