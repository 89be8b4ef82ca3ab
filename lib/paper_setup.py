"""What a paper states about a trained experiment, as data, and a run's computed difference from it.

Each paper keeps its stated setups in ``lib/papers/<key>/setup.py``: one :class:`Setup` per
trained figure or table, one :class:`Stated` per field (model sizes, data sizes, steps or epochs,
batch, optimizer and learning-rate grid, seeds, loss, data generator, the models compared), each
with the section or page it comes from. A check compares the config its result actually ran
with (read from the stored result, never typed) against that setup::

    diff = setup.FIGURE_2.difference(ours)          # ours: the same fields, read from the config

The difference is what makes a verdict *substituted* rather than *reproduced*
(:class:`lib.claims.Check`): no typed ``substitute=`` string, no rule tied to the scale. A field
the paper does not state (:data:`NOT_STATED`) never differs; a field the check is shown not to
depend on is kept in the difference with the reason (``irrelevant={"field": "why"}``), and does
not count against *reproduced*.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Mapping

from . import validate

#: the value of a field the paper leaves open (our choice then cannot differ from it)
NOT_STATED = "not stated"


@dataclass(frozen=True)
class Stated:
    """One field of a paper's setup: its value as the paper gives it, and where (``"Sec. 9.1"``)."""

    value: Any
    source: str = ""

    def __post_init__(self):
        stated = not (isinstance(self.value, str) and self.value == NOT_STATED)
        if stated and (not isinstance(self.source, str) or not self.source.strip()):
            validate.fail("paper_setup.Stated", "source", "the section or page that states the value", self.source)


@dataclass(frozen=True)
class Difference:
    """One field where a run differs from the paper; ``irrelevant`` is the recorded reason
    the check does not depend on it (empty: it may depend on it)."""

    field: str
    paper: Any
    ours: Any
    source: str
    irrelevant: str = ""

    def __str__(self) -> str:
        text = f"{self.field}: paper {_show(self.paper)} ({self.source}), ours {_show(self.ours)}"
        return text + (f" [does not matter here: {self.irrelevant}]" if self.irrelevant else "")


@dataclass(frozen=True)
class Setup:
    """A paper's stated setup for one trained figure or table (``ref``), field by field."""

    paper: str
    ref: str
    fields: Mapping[str, Stated] = field(default_factory=dict)

    def __post_init__(self):
        for name, stated in self.fields.items():
            if not isinstance(stated, Stated):
                validate.fail(f"paper_setup.Setup({self.ref})", name, "a Stated(value, source)", stated,
                              validate.ArgumentTypeError)

    def difference(self, ours: Mapping[str, Any], irrelevant: Mapping[str, str] | None = None) -> tuple[Difference, ...]:
        """Every stated field whose value in ``ours`` differs from the paper's, in the setup's
        order. ``ours`` must give every field the setup names (a field left out would hide a
        difference); a field in ``ours`` the setup does not name is an error too."""
        irrelevant = dict(irrelevant or {})
        missing = [f for f in self.fields if f not in ours]
        extra = [f for f in ours if f not in self.fields]
        unknown = [f for f in irrelevant if f not in self.fields]
        if missing or extra or unknown:
            raise ValueError(f"{self.paper} {self.ref}: our config must give exactly the paper's fields; "
                             + "; ".join(x for x in (f"missing {missing}" if missing else "",
                                                     f"not in the paper's setup {extra}" if extra else "",
                                                     f"irrelevant= names unknown fields {unknown}" if unknown else "")
                                         if x))
        out = []
        for name, stated in self.fields.items():
            if (isinstance(stated.value, str) and stated.value == NOT_STATED) or same(stated.value, ours[name]):
                continue
            out.append(Difference(name, stated.value, ours[name], stated.source, irrelevant.get(name, "")))
        return tuple(out)


def same(paper, ours) -> bool:
    """Whether two stated values agree: numbers by value (1e5 == 100000), sequences and sets
    element by element, text without case or surrounding spaces."""
    if isinstance(paper, bool) or isinstance(ours, bool):
        return paper is ours
    if isinstance(paper, (int, float)) and isinstance(ours, (int, float)):
        return math.isclose(paper, ours, rel_tol=1e-12, abs_tol=0.0)
    if isinstance(paper, (list, tuple)) and isinstance(ours, (list, tuple)):
        return len(paper) == len(ours) and all(same(a, b) for a, b in zip(paper, ours))
    if isinstance(paper, (set, frozenset)) and isinstance(ours, (set, frozenset, list, tuple)):
        return set(paper) == set(ours)
    if isinstance(paper, str) and isinstance(ours, str):
        return paper.strip().lower() == ours.strip().lower()
    return paper == ours


def _show(value) -> str:
    if isinstance(value, (list, tuple, set, frozenset)):
        items = sorted(value, key=str) if isinstance(value, (set, frozenset)) else value
        return "[" + ", ".join(_show(v) for v in items) + "]"
    if isinstance(value, float) and value.is_integer() and abs(value) >= 1e4:  # 1e5, 2.4e7: two significant digits
        return f"{value:.2g}".replace("e+0", "e").replace("e+", "e")
    return str(value)
