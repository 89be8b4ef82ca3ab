"""``python -m lib.papers.boixadsera2024 [SCALE] [NAME ...]``: run this paper's sweeps."""
import sys

from ...results import sweeps_main

sys.exit(sweeps_main("boixadsera2024"))
