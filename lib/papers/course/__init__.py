"""The course's own chapter 0 (a tour of the library): its one sweep, one-layer index lookup
against width and sequence length (``sweeps``).

Run it: ``python -m lib.papers.course SCALE`` (``list`` shows it).
"""
