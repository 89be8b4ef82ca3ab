"""The tour's claim re-derives from its construction alone (issue 30): the stored verdict, values
and evidence of ``chapters/00_tour`` are what ``lib.papers.course.checks`` computes now at the
default scale. The course's only trained sweep (``width_length``) backs no claim, so there is no
paper setup to compare with."""
from checks_support import pick
from lib import claims
from lib.papers.course import checks
from lib.tasks import IndexLookup


def test_tour_chapter():
    small = IndexLookup(n_symbols=4, length=6)
    long = IndexLookup(n_symbols=pick(16, 64, 64), length=pick(32, 64, 256))
    found = [checks.proposition_0_1(small, long, pick(2_000, 10_000, 50_000))]
    assert claims.rederive("chapters/00_tour/attention_tasks_constructions", "default", found) == []
