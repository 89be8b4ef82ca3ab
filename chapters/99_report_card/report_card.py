# ---
# jupyter:
#   jupytext:
#     cell_metadata_filter: tags,-all
#     formats: ipynb,py:percent
#     notebook_metadata_filter: kernelspec,jupytext,execution,mystnb
#     text_representation:
#       extension: .py
#       format_name: percent
#       format_version: '1.3'
#       jupytext_version: 1.19.6
#   kernelspec:
#     display_name: Python 3 (ipykernel)
#     language: python
#     name: python3
#   mystnb:
#     execution_mode: force
# ---

# %% [markdown]
# (report-card)=
# # Report card
#
# Every claim the book checks, gathered from all chapters. Each is computed by one function of
# `lib/papers/<key>/checks.py` from stored results (or the constructions themselves), never typed
# in, and carries its evidence: the stored results it read, with their code hash, commit and date.
#
# - {bdg-success}`reproduced`: the check passed in the paper's setting;
# - {bdg-primary}`substituted`: the check passed in a setting that differs from the paper's
#   (sizes reduced for a CPU, another optimiser, other data, a model trained here instead of a
#   pretrained one), each difference computed from the stored config against the paper's setup;
# - {bdg-warning}`partly`: the check failed, but its stated weaker form held;
# - {bdg-secondary}`inconclusive`: the data cannot decide (the intervals over seeds overlap, too
#   few seeds, or both arms of a comparison at a floor or a ceiling); never counted as reproduced;
# - {bdg-danger}`not reproduced`: the check failed.
#
# Every chapter states its checks by one rule (written out in `lib.claims`):
#
# 1. *Reproduced* needs the paper's setting, or a setting the claim does not depend on (an exact
#    construction checked on a whole task is reproduced; a trained result at reduced sizes, with
#    other data or another optimiser is not).
# 2. Whatever the claim may depend on and differs from the paper is computed field by field (the
#    last table of this page), so a passing check under it is *substituted*.
# 3. The check asserts the paper's whole statement; where the evidence supports only part of it
#    (a mechanism kept in part, the claim under our optimiser but not the paper's), the verdict
#    is *partly*.
# 4. A check that cannot tell the claim from its negation (every model at chance, a difference
#    inside the spread between seeds) is not evidence: the verdict is *inconclusive*, and the
#    claim says why (`lib.stats` decides by intervals over seeds and scipy's tests).
# 5. The course's own findings are listed under the course, never under a paper.
#
# The summary counts the verdicts per part and how many of the paper's numbered items
# (theorems, lemmas, propositions, claims, remarks, figures and tables with data; not
# definitions, assumptions or illustrations; the lists are `lib.claims.RESULTS`) at least one
# claim checks, and names the ones no claim checks yet. Below it, each part lists
# its claims in the paper's order; each claim links to the section that checks it and names the
# scale its evidence ran at (where a claim was checked at several scales, the largest is shown);
# a claim whose stored evidence has changed or gone since it was recorded is marked *stale*. The
# last section lists every trained claim with its computed difference from the paper's setup.
# The code that builds this page is folded away above each part of it.

# %% tags=["setup", "remove-cell"]
# Setup (not shown in the book): on Colab, install the course once, keeping Colab's own torch.
# The marker file is written only after a complete install, so a failed one is retried on a re-run.
import os, subprocess, sys
REPO = "https://github.com/attention-by-construction/attention-by-construction"
if "google.colab" in sys.modules:
    if not os.path.exists("/content/abc/.installed"):
        subprocess.run(["rm", "-rf", "/content/abc"], check=True)
        subprocess.run(["git", "clone", "-q", "--depth", "1", REPO, "/content/abc"], check=True)
        subprocess.run([sys.executable, "-m", "pip", "install", "-q", "-e", "/content/abc"], check=True)
        open("/content/abc/.installed", "w").close()
    sys.path.insert(0, "/content/abc")
import lib
device = lib.setup_notebook(seed=0)

# %% tags=["hide-input"]
import matplotlib.pyplot as plt
from IPython.display import Markdown, display

from lib import claims, plots

plots.use_style()
recorded = claims.collect()
assert recorded and all(c.verdict in claims.VERDICTS for c in recorded)
display(Markdown(claims.summary_markdown(recorded)))

# %% tags=["hide-input"]
rows = claims.summary(recorded)
ax = plots.verdict_bars({row["title"].split("(")[-1].rstrip(")"): row for row in rows})
ax.set_title(f"{len(recorded)} claims by verdict", loc="left", pad=28)
plots.stamp(ax, "from data/claims/*.json, the largest scale per claim")
plt.show()

# %% tags=["hide-input"]
stale = claims.stale(recorded)
for row in rows:
    mine = [c for c in recorded if c.paper == row["paper"]]
    display(Markdown(f"## {row['title']}\n\n" + claims.table_markdown(mine, stale)))

# %% [markdown]
# (report-card-differences)=
# ## Every trained claim against the paper's setup
#
# A trained claim is compared with what its paper states about the experiment (model and data
# sizes, steps, batch, optimizer and learning rates, seeds, loss, data, the models compared; in
# `lib/papers/<key>/setup.py`, each value with the section it comes from). The difference below is
# computed from the config the stored result actually ran with, never typed; a claim is
# *reproduced* only with no difference it may depend on. A field marked "does not matter here"
# differs, but the check is shown not to depend on it, for the reason given.

# %% tags=["hide-input"]
display(Markdown(claims.differences_markdown(recorded)))
if stale:
    display(Markdown(f"{len(stale)} claims rest on missing or stale evidence (marked above): rerun their chapters."))
