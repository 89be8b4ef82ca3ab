"""Mahdavi, Liao & Thrampoulidis (2024): memorization capacity of one multi-head attention layer.

========================  =====================================================================
module                    what
========================  =====================================================================
``construction``          Theorem 1 built (Prop. 1 with Lemmas 3-4, then eq. 8), its check, probes
``lemmas``                Appendix D's Lemmas 1 and 5 and Claims 1-2, on instances at their edge
``bounds``                Props. 2, 3 and 5: the rank random weights reach, Prop. 3's ReLU bound
``kruskal``               Kruskal rank (exact and the paper's randomized test), Assumptions 1-3
``data``                  Prop. 3's adversarial dataset (Appendix F)
``assumptions``           the assumptions inside small models (Table 1, Figure 1, Table 3 substitutes)
``official``              the official code's recipe: its data, initial weights and checkpoint rule
``training``              one masked ensemble per T (either recipe), saturation statistics
``comparison``            our recipe against the official one where they first disagreed
``sweeps``                Figures 2-5 as named sweeps at three scales (``SWEEPS``), and at the paper's
                          d = 64, n = 32 on our recipe (``fig3_d64``, ``*_d64``)
``readings``              Figures 2-4's readings, each kept only where the data can tell it apart
``analysis``              the constructions' measurements the first two chapters read
``trained``               readings of the stored training sweeps (Figures 3-5, the d = 64 runs)
``setup``                 what the paper states (Figures 2-5, Tables 1 and 3), as data, and our side
                          read from each stored config (:mod:`lib.paper_setup`)
``checks``                one check per claim the chapters record (:func:`lib.claims.check`)
========================  =====================================================================

Run a sweep: ``python -m lib.papers.mahdavi2024 SCALE [NAME ...]`` (``list`` shows them).
"""
