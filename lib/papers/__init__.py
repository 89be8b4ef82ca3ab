"""One package per paper (keys as in :data:`lib.claims.PAPERS`), holding what belongs to that
paper alone: its constructions, training setups, named sweeps (``sweeps.SWEEPS``) and analysis.

=====================  =====================================================================
package                paper
=====================  =====================================================================
``course``             the course's own chapter 0 (a tour of the library)
``mahdavi2024``        Mahdavi, Liao & Thrampoulidis: memorization capacity of one MHA layer
``chen2024``           Chen & Zou: what 1, 2 and 3 attention layers can do
``bhattamishra2024``   Bhattamishra, Hahn, Blunsom & Kanade: transformers vs recurrent models
``boixadsera2024``     Boix-Adsera et al.: template tasks, the transformer kernel, MLPs on unseen symbols
``richard2024``        Richard: depth extrapolation on nested structures (Dyck words)
=====================  =====================================================================

Nothing here is imported eagerly, and no paper imports another: the provenance of a result
(:func:`lib.results.lib_closure`) then lists only its own paper's files, so an edit to one paper
leaves every other paper's results fresh. Each package runs its sweeps from the command line,
``python -m lib.papers.<key> SCALE [NAME ...]`` (``list`` shows them).
"""

