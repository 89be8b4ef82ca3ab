"""``python -m lib.papers.course [SCALE] [NAME ...]``: run chapter 0's sweep."""
import sys

from ...results import sweeps_main

sys.exit(sweeps_main("course"))
