"""``python -m lib.papers.chen2024 [SCALE] [NAME ...]``: run this paper's sweeps."""
import sys

from ...results import sweeps_main

sys.exit(sweeps_main("chen2024"))
