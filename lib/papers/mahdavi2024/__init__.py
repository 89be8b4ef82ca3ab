"""Mahdavi, Liao & Thrampoulidis (2024): memorization capacity of one multi-head attention layer.

=================  =====================================================================
module             what
=================  =====================================================================
``construction``   Theorem 1 built (Prop. 1 with Lemmas 3-4, then eq. 8), its check, probes
``kruskal``        Kruskal rank (exact and the paper's randomized test), Assumptions 1-3
``data``           Prop. 3's adversarial dataset (Appendix F)
``assumptions``    the assumptions inside small models (Table 1, Figure 1, Table 3 substitutes)
``training``       the official code's recipe, one masked ensemble per T, saturation stats
``sweeps``         Figures 2-5 as named sweeps at three scales (``SWEEPS``)
=================  =====================================================================

Run a sweep: ``python -m lib.papers.mahdavi2024 SCALE [NAME ...]`` (``list`` shows them).
"""
