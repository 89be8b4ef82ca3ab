"""``python -m lib.papers.richard2024 [SCALE] [NAME ...]``: run this paper's sweeps."""
import sys

from ...results import sweeps_main

sys.exit(sweeps_main("richard2024"))
