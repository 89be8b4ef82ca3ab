"""Boix-Adsera, Saremi, Abbe, Bengio, Littwin & Susskind (2024): when can transformers reason
with abstract symbols? Template tasks (built in :mod:`lib.tasks.symbol_templates`), the
transformer random-features kernel, MLPs that cannot generalise to unseen symbols, and the two
parameters per head.

==================  =====================================================================
module              what
==================  =====================================================================
``kernel``          eq. (3)'s attention kernel by Monte Carlo over equality patterns, the
                    cosine MLP layer in closed form (Claim E.2), the MLP kernels, the N
                    matrix (eq. 12), S_σ (eq. 9), Lemma E.1's determinant identity, kernel
                    ridge regression on unseen symbols (Prop. 4.3, Theorem 4.4), App. H's
                    wide random transformer built in the shared attention stack
``mlp``             MLPs trained on template tasks (App. I): unseen-token weights that never
                    move, and Lemma I.7's permutation coupling run as code
``training``        the authors' template transformer (a_h I, b_h I as options), trained by the
                    shared trainer and read at the best validation step (App. A)
``copying``         Theorems 5.1-5.2: early-time gradient ratios of eq. (27)-(28)'s copy model
``last_layer``      App. B.1: the read-out of a frozen random transformer fitted by least
                    squares (the kernel regime at finite width), at a scaled initialisation
``pretraining``     Sec. 6 offline: a small causal model pretrained on a synthetic binding
                    corpus, the diagonal score of its heads, blocks transplanted for fine-tuning
``sweeps``          the named sweeps: Figures 1-2, 5, 6-13, 15-23 (``python -m
                    lib.papers.boixadsera2024 SCALE NAME``)
``curves``          the stored sweeps as arrays the way a figure or a check reads them
``analysis``        what the chapters compute live (MLP study, kernel checks, ridge regressions),
                    in float64 where a claim reports it
``figures``         the third chapter's figures and tables
``setup``           what the paper states (App. A-B, Sec. 6), as data, and our side read from
                    each stored config (:mod:`lib.paper_setup`)
``checks``          one check per claim the chapters record (:func:`lib.claims.check`)
==================  =====================================================================
"""
