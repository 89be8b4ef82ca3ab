"""``python -m lib.papers.mahdavi2024 [SCALE] [NAME ...]``: run this paper's sweeps."""
import sys

from ...results import paper_sweeps, sweeps_main

sys.exit(sweeps_main("mahdavi2024", paper_sweeps("mahdavi2024")))
