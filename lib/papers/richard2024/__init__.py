"""Richard (2024): depth extrapolation of decoders trained on nested structures (Boolean
simplification, Dyck words), a closed-form attention head that completes any Dyck prefix.

==================  =====================================================================
module              what
==================  =====================================================================
``closed_form``     Eq. (4)'s positional embedding and its telescoping identity, Lemma 5.1,
                    Theorem 3.1 (JL memorization) with a margin bound that holds, the
                    stability factor, Theorem 4.1's 2N + 3-weight Dyck completer checked on
                    every (word, prefix) pair, Claim 5.3, Figure 2's paths
==================  =====================================================================
"""
