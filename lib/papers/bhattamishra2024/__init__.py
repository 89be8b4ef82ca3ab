"""Bhattamishra, Hahn, Blunsom & Kanade (2024): separations between transformers and recurrent
models (index lookup, bounded Dyck, equality, nearest neighbour).

==================  =====================================================================
module              what
==================  =====================================================================
``near_orthogonal`` Lemma 2: nearly orthogonal sign vectors, k_min, the temperature they need
``constructions``   Theorems 1 (index lookup, 1 layer), 6 (INEQ), 13 (thresholds of sparse
                    features: DISJ, INEQ) and 7 (nearest neighbour), all loaded into the
                    library's attention stack
``dyck_rnn``        the constant-size ReLU RNN for Dyck-(2, 2), loaded into the recurrent family
``lower_bounds``    the communication arguments made numerical: Theorem 4's protocol, Lemma 1's
                    fooling set and matrix ranks, Myhill-Nerode classes, linear RNN rank,
                    the information bound and the widths the bounds imply
``sweeps``          Figures 2a-c, 3 and 4 as named sweeps (transformers vs LSTMs and state-space
                    models, learning-rate grids; Figure 3: Mamba's width against length)
``analysis``        the tables the chapters show and check (constructions, lower bounds, training)
``figures``         the training chapter's curves and Figure 3's panels
``setup``           what the paper states about Figures 2-4 (Sec. 6, App. H), as data, and
                    our side read from each stored config (:mod:`lib.paper_setup`)
``checks``          one check per claim the chapters record (:func:`lib.claims.check`)
==================  =====================================================================

Run a sweep: ``python -m lib.papers.bhattamishra2024 SCALE [NAME ...]`` (``list`` shows them).
"""
