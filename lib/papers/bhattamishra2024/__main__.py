"""``python -m lib.papers.bhattamishra2024 [SCALE] [NAME ...]``: run this paper's sweeps."""
import sys

from ...results import sweeps_main

sys.exit(sweeps_main("bhattamishra2024"))
