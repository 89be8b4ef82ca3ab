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
# Every claim the book checks, gathered from all chapters: the paper and the theorem, figure or
# table; the statement; the paper's value and ours; the scale our number comes from; and the
# verdict, which is computed from the chapter's own check, never typed in:
#
# - ✅ **reproduced**: the check passed in the paper's setting;
# - 🔁 **substituted**: the check passed in a stated substitute setting (other data, a model trained
#   here instead of a pretrained one);
# - ◐ **partly**: the check failed, but its stated weaker form held;
# - ❌ **not reproduced**: the check failed.
#
# Each claim links to the section that checks it. Where a claim was checked at several scales, the
# largest is shown.

# %% tags=["setup"]
# Setup: on Colab, install the course (keeping Colab's own torch); elsewhere there is nothing to do.
import os, subprocess, sys
REPO = "https://github.com/attention-by-construction/attention-by-construction"
if "google.colab" in sys.modules:
    if not os.path.isdir("/content/abc"):
        subprocess.run(["git", "clone", "-q", "--depth", "1", REPO, "/content/abc"], check=True)
        subprocess.run([sys.executable, "-m", "pip", "install", "-q", "-e", "/content/abc"], check=True)
    sys.path.insert(0, "/content/abc")
import lib
device = lib.setup_notebook(seed=0)

# %%
from collections import Counter

from IPython.display import Markdown, display

from lib import claims

recorded = claims.collect()
counts = Counter(c.verdict for c in recorded)
print(f"{len(recorded)} claims: " + ", ".join(f"{counts[v]} {v}" for v in claims.VERDICTS))
for paper, title in claims.PAPERS.items():
    rows = [c for c in recorded if c.paper == paper]
    if rows:
        display(Markdown(f"### {title}\n\n" + claims.table_markdown(rows)))
assert all(c.verdict in claims.VERDICTS for c in recorded)
