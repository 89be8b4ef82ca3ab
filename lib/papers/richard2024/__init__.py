"""Richard (2024): depth extrapolation of decoders trained on nested structures (Boolean
simplification, Dyck words), a closed-form attention head that completes any Dyck prefix.

==================  =====================================================================
module              what
==================  =====================================================================
``closed_form``     Eq. (4)'s positional embedding and its telescoping identity, Lemma 5.1,
                    Theorem 3.1 (JL memorization) with a margin bound that holds, the
                    stability factor, Theorem 4.1's 2N + 3-weight Dyck completer checked on
                    every (word, prefix) pair, Claim 5.3, Figure 2's paths
``training``        decoders trained on Dyck words (Sec. 4.2): word sets by depth, deep and
                    in-sample prefixes, sampled completion and its validity, the learning
                    rate read off a grid, k-means of positional paths (Figure 7)
``boolean``         Figure 1's data (held-out forms, in and out of sample), the training
                    windows, greedy answers and the paper's correctness criterion
``sweeps``          the named sweeps: Figures 1, 3 (left, right), 4-5 and Table 1, 6-7, and
                    gradient descent on Eq. (1)'s own model class
``readings``        how the chapters read a sweep: seed means, the rate of lowest training
                    loss, valid counts, spectra, the ends of positional paths
``analysis``        the chapters' analyses: exact counts of D_32, the closed-form tables, the
                    closed form on the trained models' tests, the Boolean worked examples
``figures``         the chapters' figures, from stored results and ``analysis``
``setup``           what the paper states about each trained experiment, as data, and our side
                    read from each stored config (:mod:`lib.paper_setup`)
``checks``          one check per claim the chapters record (:func:`lib.claims.check`)
==================  =====================================================================
"""
