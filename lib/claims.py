"""The book's report card: every claim a chapter checks, with a verdict computed from the check.

Each claim a chapter checks (a theorem, figure or table it reproduces) is computed by one
function of ``lib/papers/<key>/checks.py``, which returns a :class:`Check` built by :func:`check`;
the chapter records it in one line through a :class:`Recorder`. The verdict is never typed in: it
follows from the check's own outcome and from the computed difference between the setup its
evidence ran with and the paper's (:mod:`lib.paper_setup`),

* ``reproduced``      the check passed in the paper's own setting (no difference it may depend on);
* ``substituted``     the check passed, in a setting that differs from the paper's in fields it may
                      depend on (smaller sizes, another optimiser, other data, a model trained here
                      instead of a pretrained one), each named by the difference;
* ``partly``          the check failed but its weaker form (``partly=True``) held;
* ``inconclusive``    the data cannot decide (``inconclusive=True``): the intervals over seeds
                      overlap, the test does not reject, fewer than two seeds, or both arms of a
                      comparison sit at a floor or a ceiling (:mod:`lib.stats`); it never counts
                      as reproduced;
* ``not reproduced``  the check failed.

**The rule every chapter follows when it states a check** (issue 17):

1. *Reproduced* needs the paper's setting, or a setting the claim does not depend on: an exact
   construction checked on a whole task, or on every size tried, is reproduced; a trained
   result at reduced sizes, a CPU budget, other data or another optimiser is not.
2. Anything that the claim may depend on and that differs from the paper is computed field by
   field from the stored config against the paper's setup (``lib/papers/<key>/setup.py``), so a
   passing check under it is *substituted*; a field shown not to matter is kept with its reason.
3. The check asserts the paper's whole statement. Where the evidence supports only part of it
   (a mechanism kept in part, one trend of two, the claim under our optimiser but not the
   paper's), the full check fails and the part that held is the ``partly`` form.
4. A check that cannot tell the claim from its negation (both models at chance, one curve of
   a few points, a difference inside the spread between seeds) is not evidence: the verdict is
   *inconclusive*, and the claim says why.
5. The course's own findings (an overestimate of a test, constructions the paper does not
   claim) are recorded under ``paper="course"``, never under a paper's name.

Claims are stored per chapter and scale in ``data/claims/<chapter>.<scale>.json``; the
report card shows, for each claim, the record from the largest scale that has run. A chapter
records through a :class:`Recorder` bound to its paper and chapter.
"""
from __future__ import annotations

import json
import math
import os
import re
import warnings
from dataclasses import asdict, dataclass, field
from pathlib import Path

from . import scale as _scale
from . import stats, validate
from .results import _jsonable, data_dir

VERDICTS = ("reproduced", "substituted", "partly", "inconclusive", "not reproduced")
PAPERS = {
    "mahdavi2024": "Memorization capacity of multi-head attention (Mahdavi, Liao & Thrampoulidis)",
    "chen2024": "What can transformers learn with varying depth? (Chen & Zou)",
    "bhattamishra2024": "Separations between transformers and recurrent models (Bhattamishra et al.)",
    "boixadsera2024": "When can transformers reason with abstract symbols? (Boix-Adsera et al.)",
    "richard2024": "Depth extrapolation on nested structures (Richard)",
    "course": "The course's own checks and findings",
}
# Each paper's numbered items that a reader can check (theorems, lemmas, propositions, claims,
# remarks with a checkable statement, figures and tables with data), in the paper's order; not
# definitions, assumptions, notation tables or illustrations. The report card measures its
# coverage against these lists; a paper's list is filled in when its part lands.
RESULTS = {
    "mahdavi2024": ("Theorem 1", "Proposition 1", "Remark 1", "Proposition 2", "Proposition 3", "Remark 2",
                    "Proposition 4", "Figure 1", "Table 1", "Figure 2", "Claim 1", "Claim 2", "Lemma 1", "Lemma 2",
                    "Lemma 3", "Lemma 4", "Lemma 5", "Figure 3", "Proposition 5", "Figure 4", "Table 3",
                    "Figure 5"),  # not: Definitions 1-2, Assumptions 1-3, Table 2 (notation)
    "chen2024": ("Theorem 1", "Theorem 2", "Theorem 3", "Theorem 4", "Theorem 5", "Theorem 6", "Figure 2", "Figure 3",
                 "Table 1", "Figure 4", "Figure 5", "Figure 6", "Figure 7", "Lemma 1", "Lemma 2", "Proposition 7",
                 "Proposition 8", "Lemma 3", "Lemma 4", "Lemma 5", "Lemma 6", "Lemma 7", "Proposition 9",
                 "Proposition 10"),  # not: Definitions 1-3, Figure 1 (illustration)
    "bhattamishra2024": ("Theorem 1", "Theorem 2", "Theorem 3", "Theorem 4", "Lemma 1", "Theorem 5", "Theorem 6",
                         "Theorem 7", "Theorem 8", "Figure 2", "Lemma 2", "Lemma 3", "Corollary 8.1",
                         "Proposition 9", "Theorem 10", "Lemma 4", "Theorem 11", "Theorem 12", "Theorem 13",
                         "Lemma 5", "Corollary 13.1", "Figure 3", "Figure 4"),
    # not: Facts 1-4 (cited communication-complexity results), Figure 1 (illustration)
    "boixadsera2024": ("Figure 1", "Observation 1.2", "Figure 2", "Proposition 4.3", "Theorem 4.4", "Lemma 4.5",
                       "Lemma 4.6", "Lemma 4.7", "Figure 4", "Theorem 5.1", "Theorem 5.2", "Figure 5", "Figure 6",
                       "Figure 7", "Figure 8", "Figure 9", "Figure 10", "Figure 11", "Figure 12", "Figure 13",
                       "Figure 14", "Figure 15", "Figure 16", "Figure 17", "Figure 18", "Figure 19", "Figure 20",
                       "Figure 21", "Figure 22", "Figure 23", "Figure 24", "Claim D.2", "Claim D.3", "Claim D.4",
                       "Claim D.5", "Lemma E.1", "Claim E.2", "Claim F.2", "Claim F.3", "Claim F.4", "Claim F.5",
                       "Claim F.6", "Lemma G.1", "Lemma G.3", "Lemma G.4", "Lemma G.5", "Lemma G.6", "Lemma G.7",
                       "Lemma G.8", "Lemma G.9", "Theorem I.2", "Remark I.3", "Remark I.4", "Remark I.5",
                       "Remark I.6", "Lemma I.7", "Theorem J.2", "Theorem J.3"),
    # v1 numbering, 58 items. Not: Definitions (G.2 included), Figure 3 (illustration), informal
    # restatements (Theorems 1.1, 1.3, 1.4) and formal restatements (Lemmas C.2-C.4, D.1, F.1)
    "richard2024": ("Figure 1", "Eq. (3)", "Theorem 3.1", "Sec. 3.2 (Scaling)", "Sec. 3.2 (Multiple sequences)",
                    "Figure 2", "Sec. 4 (Catalan asymptotic)", "Theorem 4.1", "Figure 3", "Sec. 4.2 (single-word loss)",
                    "Figure 4", "App. 5.1.1 (GPT-4 counts)", "Lemma 5.1", "Lemma 5.2", "Claim 5.3", "Table 1",
                    "Figure 5", "Figure 6", "Figure 7"),
    # the unnumbered items (Eq. (3), Sec. 3.2's remarks, the Catalan asymptotic, the single-word loss,
    # the GPT-4 counts) are named by the ref of the claim that checks each. Not: Algorithm 1 (the
    # generator, built in lib.tasks); Eq. (4) and the stability paragraph are checked too, under their own names
}


@dataclass
class Claim:
    """One recorded claim, as stored in ``data/claims``: a :class:`Check`'s outcome with its
    chapter, scale, evidence and computed difference from the paper's setup."""

    paper: str
    ref: str  # "Theorem 1", "Figure 2a", ...
    statement: str
    paper_value: str
    ours: str
    verdict: str
    scale: str
    chapter: str  # docname, e.g. "chapters/00_tour/tour"
    label: str  # MyST label of the section that checks it
    note: str = ""
    check: str = ""  # the lib function that computed it, "lib.papers.chen2024.checks.figure_2a"
    evidence: list = field(default_factory=list)  # Evidence.to_json() of each stored result it read
    setup: str = ""  # the paper's setup it was compared with ("" for a construction)
    differences: list = field(default_factory=list)  # str(Difference) of each field that differs


@dataclass(frozen=True)
class Evidence:
    """A stored result a check read: which file, at which scale, computed by which code when
    (so that ``python -m lib.results check`` can tell when the claim has gone stale)."""

    result: str
    scale: str
    lib_hash: str
    git_commit: str
    created: str
    device: str = ""
    complete: bool = True

    @classmethod
    def of(cls, result) -> "Evidence":
        """The evidence of a :class:`lib.results.Result` (the code record in force: its last
        verification, else its run)."""
        code = result.code
        return cls(result=result.name, scale=result.scale, lib_hash=str(code.get("lib_hash", "")),
                   git_commit=str(code.get("git_commit", "")), created=str(code.get("created", "")),
                   device=str(result.provenance.get("device", "")), complete=bool(result.complete))

    def to_json(self) -> dict:
        return asdict(self)


#: the fields of an :class:`Evidence` that name the run (or verification) whose numbers a claim read
RUN_FIELDS = ("lib_hash", "git_commit", "created")


def names_stored_numbers(evidence: dict, result) -> bool:
    """True when ``evidence`` (a stored :class:`Evidence`) names ``result``'s run or one of the
    verifications since (:attr:`lib.results.Result.code_records`): the numbers the claim read are
    the ones stored now. A verification under new code keeps a claim valid; a recomputation does
    not (its run record replaces the old one and its verifications)."""
    return any(all(str(record.get(k, "")) == evidence.get(k) for k in RUN_FIELDS) for record in result.code_records)


def _same_evidence(stored: list, now: list) -> bool:
    """``stored`` and ``now`` read the same results, each at the same stored numbers (``now`` names
    the code record in force, ``stored`` may name an earlier record of the same run)."""
    from . import results as _results

    if not isinstance(stored, list) or len(stored) != len(now):
        return False
    for old, new in zip(stored, now):
        if old == new:
            continue
        if {k: v for k, v in old.items() if k not in RUN_FIELDS} != {k: v for k, v in new.items() if k not in RUN_FIELDS}:
            return False
        try:
            result = _results.load(new["result"], new["scale"])
        except ValueError:
            return False
        if result is None or not names_stored_numbers(old, result):
            return False
    return True


@dataclass(frozen=True)
class Check:
    """The outcome of one claim's check, computed in ``lib/papers/<key>/checks.py`` from stored
    results (and, for a construction, the objects a chapter builds); a chapter records it with
    one line, ``record(checks.figure_2a(fig2))``. Build it with :func:`check`."""

    paper: str
    ref: str
    label: str
    statement: str
    paper_value: str
    ours: str
    passed: bool
    partly: bool = False
    evidence: tuple = ()
    setup: str = ""
    differences: tuple = ()
    note: str = ""
    function: str = ""
    inconclusive: bool = False

    @property
    def substituted(self) -> bool:
        """Whether a field the claim may depend on differs from the paper's setup."""
        return any(not d.irrelevant for d in self.differences)

    @property
    def verdict(self) -> str:
        return verdict(self.passed, self.partly, substituted=self.substituted, inconclusive=self.inconclusive)

    @property
    def scale(self) -> str | None:
        """The largest scale among the evidence (None for a check that read no stored result)."""
        scales = [e.scale for e in self.evidence]
        return max(scales, key=_scale.rank) if scales else None


def check(*, paper: str, ref: str, label: str, statement: str, paper_value, ours, passed: bool, partly: bool = False,
          inconclusive: bool = False, results=(), setup=None, config=None, irrelevant=None, note: str = "") -> Check:
    """A :class:`Check` with its evidence and its difference from the paper computed, never typed:
    ``results`` are the stored results the check read; ``setup`` (a
    :class:`lib.paper_setup.Setup`) and ``config`` (the same fields, read from what the results
    ran with) give the difference; ``irrelevant`` names fields the check is shown not to depend
    on, with the reason. ``inconclusive=True`` says the data cannot decide (then ``passed`` must be
    False: a claim the data cannot decide is not reproduced). The caller's qualified name is kept,
    so a claim names its check."""
    import inspect

    if paper not in PAPERS:
        raise ValueError(f"claims.check: unknown paper {paper!r}; known: {', '.join(PAPERS)}")
    passed = validate.boolean("claims.check", "passed", passed)
    partly = validate.boolean("claims.check", "partly", partly)
    inconclusive = validate.boolean("claims.check", "inconclusive", inconclusive)
    if passed and inconclusive:
        raise ValueError("claims.check: passed=True with inconclusive=True: a claim the data cannot decide has not passed")
    for name, value in (("ref", ref), ("statement", statement), ("label", label)):
        if not isinstance(value, str) or not value.strip():
            validate.fail("claims.check", name, "a non-empty string", value, validate.ArgumentTypeError)
    for name, value in (("paper_value", paper_value), ("ours", ours)):
        _check_reported(name, value)
    if (setup is None) != (config is None):
        raise ValueError("claims.check: setup and config go together (the paper's setup and ours, field by field)")
    if irrelevant and setup is None:
        raise ValueError("claims.check: irrelevant= needs a setup to compare with")
    from .results import Result

    results = tuple(results) if isinstance(results, (list, tuple)) else (results,)
    for r in results:
        if not isinstance(r, Result):
            validate.fail("claims.check", "results", "lib.results.Result objects", r, validate.ArgumentTypeError)
    caller = inspect.currentframe().f_back
    module = caller.f_globals.get("__name__", "?") if caller else "?"
    while caller is not None and caller.f_code.co_name.startswith("_") and caller.f_back is not None \
            and caller.f_back.f_globals.get("__name__") == module:  # a private helper: name the check that called it
        caller = caller.f_back
    function = f"{module}.{caller.f_code.co_name}" if caller else ""
    return Check(paper=paper, ref=ref, label=label, statement=statement, paper_value=str(paper_value), ours=str(ours),
                 passed=passed, partly=partly, evidence=tuple(Evidence.of(r) for r in results),
                 setup=f"{setup.paper} {setup.ref}" if setup is not None else "",
                 differences=setup.difference(config, irrelevant) if setup is not None else (), note=note,
                 function=function, inconclusive=inconclusive)


def outcome(full: bool | None, part: bool | None = False) -> dict:
    """The ``passed``, ``partly`` and ``inconclusive`` of :func:`check` from two three-valued
    conditions (:func:`lib.stats.all_hold`): the claim in full and its partial form. True passes
    (or is partly shown); a partial form the data cannot decide, with the full claim not shown,
    is inconclusive; anything decided against fails."""
    full, part = stats.as_truth("claims.outcome", "full", full), stats.as_truth("claims.outcome", "part", part)
    return {"passed": full is True, "partly": part is True,
            "inconclusive": full is not True and (part is None or (full is None and part is False))}


def verdict(passed: bool, partly: bool = False, substituted: bool = False, inconclusive: bool = False) -> str:
    """The verdict that a check's outcome implies (see the module docstring)."""
    passed = validate.boolean("claims.verdict", "passed", passed)
    partly = validate.boolean("claims.verdict", "partly", partly)
    substituted = validate.boolean("claims.verdict", "substituted", substituted)
    inconclusive = validate.boolean("claims.verdict", "inconclusive", inconclusive)
    if passed and inconclusive:
        raise ValueError("claims.verdict: passed and inconclusive cannot both be True")
    if passed:
        return "substituted" if substituted else "reproduced"
    if inconclusive:
        return "inconclusive"
    return "partly" if partly else "not reproduced"


def below(x: float) -> str:
    """``"< 1e-07"`` for 3e-08: the power of ten above a rounding-noise number, so that a claim's
    wording does not change from run to run with the last bits of a floating-point error."""
    x = abs(float(x))
    return "0" if x == 0 else f"< 1e{math.floor(math.log10(x)) + 1:+03d}"


def _path(chapter: str, scale: str) -> Path:
    slug = chapter.replace("/", "__")
    return data_dir() / "claims" / f"{slug}.{scale}.json"


def record(*, paper: str, ref: str, statement: str, paper_value, ours, passed: bool, chapter: str, label: str,
           partly: bool = False, note: str = "", scale: str | None = None) -> Claim:
    """Record (or update) one claim with no evidence or setup and return it (the store's low
    level: chapters record a :class:`Check` through a :class:`Recorder`).

    ``passed`` must be the outcome of an assertion computed from data.
    """
    if paper not in PAPERS:
        raise ValueError(f"claims.record: unknown paper {paper!r}; known: {', '.join(PAPERS)}")
    # the verdict must come from a real check: "no" or 1 is not an outcome (a string is always true)
    passed = validate.boolean("claims.record", "passed", passed)
    partly = validate.boolean("claims.record", "partly", partly)
    for name, value in (("ref", ref), ("statement", statement), ("chapter", chapter), ("label", label)):
        if not isinstance(value, str) or not value.strip():
            validate.fail("claims.record", name, "a non-empty string", value, validate.ArgumentTypeError)
    for name, value in (("paper_value", paper_value), ("ours", ours)):
        _check_reported(name, value)
    scale = _scale.validate(scale) if scale is not None else _scale.current()
    claim = Claim(paper=paper, ref=ref, statement=statement, paper_value=str(paper_value), ours=str(ours),
                  verdict=verdict(passed, partly), scale=scale, chapter=chapter, label=label, note=note)
    return _store(claim)


def _store(claim: Claim) -> Claim:
    """Write ``claim`` into its chapter's file for its scale (an update keeps its place) and print
    a one-line report."""
    path = _path(claim.chapter, claim.scale)
    path.parent.mkdir(parents=True, exist_ok=True)
    claims = _read_claims(path) if path.exists() else []
    same = [i for i, c in enumerate(claims) if c["paper"] == claim.paper and c["ref"] == claim.ref]
    record = _jsonable(asdict(claim))
    if same:  # an update keeps its place, so the file (and the report card) keep the chapter's order
        stored = claims[same[0]].get("evidence")
        if _same_evidence(stored, record["evidence"]):  # the same numbers, re-stamped by a verification since:
            record["evidence"] = stored  # keep the stamp, so a rebuild rewrites no tracked file
        claims[same[0]] = record
        claims = [c for i, c in enumerate(claims) if i not in same[1:]]
    else:
        claims.append(record)
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(_jsonable(claims), indent=1))
    os.replace(tmp, path)
    _show(claim)
    return claim


_BOX = {"reproduced": "tip", "substituted": "note", "partly": "warning", "inconclusive": "seealso",
        "not reproduced": "danger"}


def verdict_box(claim: Claim) -> str:
    """A claim as a short MyST admonition: the verdict in the title, our value beside the paper's,
    the scale, and each field that differs from the paper's setup."""
    lines = [f"```{{admonition}} {claim.ref}: {claim.verdict}", f":class: {_BOX[claim.verdict]}", "",
             f"**Ours** ({claim.scale} scale): {claim.ours}  ", f"**Paper**: {claim.paper_value}"]
    if claim.differences:
        lines += ["", "Differs from the paper's setup in: " + "; ".join(claim.differences) + "."]
    return "\n".join(lines + ["```"])


def _show(claim: Claim) -> None:
    """The verdict box in a notebook (rendered by the book), a plain report elsewhere."""
    try:
        from IPython import get_ipython
        from IPython.display import Markdown, display

        if get_ipython() is not None and type(get_ipython()).__name__ != "TerminalInteractiveShell":
            display(Markdown(verdict_box(claim)))
            return
    except ImportError:
        pass
    print(f"[claim] {claim.ref}: {claim.verdict}\n  ours:  {claim.ours}\n  paper: {claim.paper_value}  "
          f"({claim.scale} scale)" + "".join(f"\n  differs: {d}" for d in claim.differences))


def claim_of(check: Check, chapter: str, scale: str) -> Claim:
    """The :class:`Claim` that recording ``check`` from ``chapter`` stores (its scale: the largest
    of its evidence, else ``scale``)."""
    return Claim(paper=check.paper, ref=check.ref, statement=check.statement, paper_value=check.paper_value,
                 ours=check.ours, verdict=check.verdict, scale=check.scale or scale, chapter=chapter, label=check.label,
                 note=check.note, check=check.function, evidence=[e.to_json() for e in check.evidence],
                 setup=check.setup, differences=[str(d) for d in check.differences])


def _check_reported(name: str, value) -> None:
    """A claim's reported value is text or a finite number: never NaN or infinity (a failed
    computation), never an object whose text would be its memory address."""
    if isinstance(value, bool) or not isinstance(value, (str, int, float)):
        validate.fail("claims.record", name, "a string or a number", value, validate.ArgumentTypeError)
    if isinstance(value, float) and not math.isfinite(value):
        validate.fail("claims.record", name, "a finite number (a NaN or infinite result is not a claim)", value)
    if isinstance(value, str) and value.strip().lower().lstrip("+-") in ("", "nan", "inf", "infinity"):
        validate.fail("claims.record", name, "a non-empty text that is not just NaN or infinity", value)


def _read_claims(path: Path) -> list[dict]:
    """The claims stored in ``path``; a file that is not a list of claims is an error naming it
    (never overwritten: fix or delete it, then rerun its chapter)."""
    try:
        claims = json.loads(path.read_text())
        if not isinstance(claims, list) or not all(isinstance(c, dict) for c in claims):
            raise ValueError("not a list of claims")
        for c in claims:
            Claim(**c)
    except (ValueError, TypeError) as error:
        raise ValueError(f"{path}: not a claims file ({type(error).__name__}: {str(error)[:200]}); it is left as it "
                         "is: delete it and rerun its chapter to record its claims again") from None
    return claims


class Recorder:
    """Records :class:`Check` objects for one paper's chapter at one scale (default: the current
    one): ``record = Recorder("chen2024", CHAPTER)``, then ``record(checks.figure_2a(fig2))``. A
    claim's scale is the largest scale of its evidence (a check that read no stored result: the
    recorder's). Returns nothing, so a notebook cell that ends with a record shows only the
    verdict box."""

    def __init__(self, paper: str, chapter: str, scale: str | None = None):
        if paper not in PAPERS:
            raise ValueError(f"claims.Recorder: unknown paper {paper!r}; known: {', '.join(PAPERS)}")
        self.paper, self.chapter = paper, chapter
        self.scale = _scale.validate(scale) if scale is not None else _scale.current()

    def __call__(self, check: Check) -> None:
        if not isinstance(check, Check):
            validate.fail("claims.Recorder", "check", "a claims.Check (from lib/papers/<key>/checks.py)", check,
                          validate.ArgumentTypeError)
        _store(claim_of(check, self.chapter, self.scale))


def rederive(chapter: str, scale: str, checks: list[Check], directory: Path | None = None) -> list[str]:
    """Where the claims stored for ``chapter`` at ``scale`` differ from what ``checks`` compute now
    (empty: every stored verdict, value, evidence and difference re-derives, and no stored claim
    is left without a check). For the unit test of each paper's checks."""
    path = (directory / _path(chapter, scale).name) if directory else _path(chapter, scale)
    stored = {(c["paper"], c["ref"]): c for c in _read_claims(path)} if path.exists() else {}
    problems = []
    seen = set()
    for c in checks:
        now = asdict(claim_of(c, chapter, scale))
        key = (c.paper, c.ref)
        seen.add(key)
        if key not in stored:
            problems.append(f"{c.ref}: computed but not stored in {path.name}")
            continue
        for name, value in now.items():
            if name == "evidence" and _same_evidence(stored[key].get(name), _jsonable(value)):
                continue
            if _jsonable(value) != stored[key].get(name):
                problems.append(f"{c.ref}: {name} stored {stored[key].get(name)!r}, computed {_jsonable(value)!r}")
    problems += [f"{ref}: stored in {path.name} but no check computed it" for (_, ref) in stored.keys() - seen]
    return problems


def stale(claims: list[Claim] | None = None) -> list[tuple[Claim, str]]:
    """Claims whose evidence is missing or stale: a result file gone, recomputed since (its run is
    not the one the claim read: :func:`names_stored_numbers`) or computed or last verified by
    ``lib`` code that has changed since; with the reason."""
    from . import results as _results

    out = []
    for claim in claims if claims is not None else collect():
        for ev in claim.evidence:
            try:
                r = _results.load(ev["result"], ev["scale"])
            except ValueError:
                r = None
            if r is None:
                out.append((claim, f"its evidence {ev['result']}.{ev['scale']}.json is missing"))
            elif not names_stored_numbers(ev, r):
                out.append((claim, f"{ev['result']}.{ev['scale']}.json was recomputed since (code "
                                   f"{ev['lib_hash'][:8]} -> {str(r.code.get('lib_hash', ''))[:8]}): rerun the chapter"))
            elif r.is_stale():
                out.append((claim, f"{ev['result']}.{ev['scale']}.json is stale (lib changed since it ran)"))
            else:
                continue
            break
    return out


def collect(directory: Path | None = None) -> list[Claim]:
    """Every recorded claim, one per (paper, ref), from the largest scale that recorded it,
    in reading order: papers as in :data:`PAPERS`, then chapters, then the order in which the
    chapter records them (which follows the paper)."""
    directory = directory or data_dir() / "claims"
    best: dict[tuple[str, str], tuple[Claim, int]] = {}
    for path in sorted(directory.glob("*.json")):
        try:
            stored = _read_claims(path)
        except ValueError as error:  # one corrupt file costs its own claims, not the report card
            warnings.warn(f"claims.collect: skipped {error}", stacklevel=2)
            continue
        for position, raw in enumerate(stored):
            claim = Claim(**raw)
            key = (claim.paper, claim.ref)
            if key not in best or _scale.rank(claim.scale) > _scale.rank(best[key][0].scale):
                best[key] = (claim, position)
    order = {p: i for i, p in enumerate(PAPERS)}
    ranked = sorted(best.values(), key=lambda cp: (order.get(cp[0].paper, 99), cp[0].chapter, cp[1]))
    return [claim for claim, _ in ranked]


_KINDS = {"theorem": "Theorem", "thm": "Theorem", "proposition": "Proposition", "prop": "Proposition",
          "lemma": "Lemma", "corollary": "Corollary", "figure": "Figure", "fig": "Figure", "table": "Table",
          "remark": "Remark", "claim": "Claim", "observation": "Observation"}
# a number: "4", "4.5", or an appendix's "E.2" (a capital letter, a dot, a number)
_NUMBER = r"(?:(?-i:[A-Z])\.)?\d+(?:\.\d+)?"
_REF = re.compile(r"\b(theorem|thm|proposition|prop|lemma|corollary|figure|fig|table|remark|claim|observation)s?\.?\s*"
                  rf"({_NUMBER})[a-z]?(?:\s*(-|–|to|and)\s*({_NUMBER}))?", re.IGNORECASE)


def covers(ref: str) -> set[str]:
    """The paper's numbered results a claim's ``ref`` speaks to: ``"Props. 7-10"`` covers
    Propositions 7 to 10, ``"Lemmas 4.5-4.7"`` Lemmas 4.5, 4.6 and 4.7, ``"Figures 1 and 21"`` those
    two, ``"Figure 2a"`` covers Figure 2, ``"Lemma 5.1 and Theorem 3.1"`` covers those two,
    ``"Remarks I.3-I.5"`` the appendix's Remarks I.3, I.4 and I.5, ``"Sec. 6.1"`` covers none."""
    found = set()
    for kind, first, separator, last in _REF.findall(ref):
        name = _KINDS[kind.lower()]
        if separator.lower() == "and":  # "Figures 1 and 21": two results, not a range
            found.update(f"{name} {number}" for number in (first, last))
            continue
        if "." in first + last:  # section-numbered results (Richard's "Theorem 4.1")
            head, _, low = first.rpartition(".")
            top_head, _, high = last.rpartition(".")
            if last and separator and head == top_head and low.isdigit() and high.isdigit():  # "Lemmas 4.5-4.7"
                found.update(f"{name} {head}.{i}" for i in range(int(low), int(high) + 1))
            else:
                found.update(f"{name} {number}" for number in (first, last) if number)
            continue
        for number in range(int(first), int(last or first) + 1):
            found.add(f"{name} {number}")
    return found


def summary(claims: list[Claim]) -> list[dict]:
    """Per paper that has claims: counts by verdict and coverage of its :data:`RESULTS`."""
    rows = []
    for paper, title in PAPERS.items():
        mine = [c for c in claims if c.paper == paper]
        if not mine:
            continue
        row = {"paper": paper, "title": title, "claims": len(mine)}
        row.update({v: sum(c.verdict == v for c in mine) for v in VERDICTS})
        if paper in RESULTS:
            checked = set().union(*(covers(c.ref) | {c.ref} for c in mine))
            row["covered"] = [r for r in RESULTS[paper] if r in checked]
            row["missing"] = [r for r in RESULTS[paper] if r not in checked]
        rows.append(row)
    return rows


def summary_markdown(claims: list[Claim]) -> str:
    """The per-paper summary as a MyST table (verdict counts, and how many of the paper's results
    some claim checks), then, below it, the results no claim checks yet, paper by paper (a list
    that would widen the table past the page)."""
    # soft hyphens let the long one-word headers break, so eight columns fit a page's width
    headers = [v.replace("reproduced", "repro\u00adduced").replace("substituted", "substi\u00adtuted")
               .replace("inconclusive", "incon\u00adclusive") for v in VERDICTS]
    lines = ["| part | claims | " + " | ".join(headers) + " | results checked |",
             "|---|---:|" + "---:|" * len(VERDICTS) + "---|"]
    missing = []
    for row in summary(claims):
        title = row["title"].split(" (")[0]
        if "covered" in row:
            total = len(row["covered"]) + len(row["missing"])
            coverage = f"{len(row['covered'])} of {total}" + ("" if row["missing"] else " (all)")
            if row["missing"]:
                missing.append(f"- {title}: {', '.join(row['missing'])}")
        else:
            coverage = "–"
        cells = [title, row["claims"], *(row[v] or "–" for v in VERDICTS), coverage]
        lines.append("| " + " | ".join(str(x) for x in cells) + " |")
    if missing:
        lines += ["", "Not checked by any claim yet:", "", *missing]
    return "\n".join(lines)


BADGES = {"reproduced": "success", "substituted": "primary", "partly": "warning", "inconclusive": "secondary",
          "not reproduced": "danger"}


def badge(verdict: str) -> str:
    """A verdict as a coloured text badge (sphinx-design), readable without an emoji font."""
    return f"{{bdg-{BADGES[verdict]}}}`{verdict}`"


def table_markdown(claims: list[Claim], stale_claims: list[tuple[Claim, str]] | None = None) -> str:
    """The report card for a list of claims as a MyST list-table that reads at 1280 px without
    scrolling: the verdict badge first, then the claim (linking to the section that checks it)
    and the scale its evidence ran at, the statement, and the paper's value beside ours. A claim
    in ``stale_claims`` is marked, with the reason."""
    def cell(text) -> str:
        return " ".join(str(text).split()) or "–"

    why = {(c.paper, c.ref): reason for c, reason in (stale_claims or [])}
    lines = ["```{list-table}", ":header-rows: 1", ":widths: 20 32 24 24", ":class: report-card", "",
             "* - verdict and claim", "  - statement", "  - paper's value", "  - our value"]
    for c in claims:
        mark = f" {{bdg-warning-line}}`stale` ({cell(why[(c.paper, c.ref)])})" if (c.paper, c.ref) in why else ""
        lines += [f"* - {badge(c.verdict)}", "", f"    {{ref}}`{c.ref} <{c.label}>` ({c.scale} scale){mark}",
                  f"  - {cell(c.statement)}", f"  - {cell(c.paper_value)}", f"  - {cell(c.ours)}"]
    lines.append("```")
    return "\n".join(lines)


def differences_markdown(claims: list[Claim]) -> str:
    """Every claim compared with a paper's stated setup (the trained ones): its verdict, the scale
    its evidence ran at, and each field where that run differs from the paper (computed from the
    stored config, :mod:`lib.paper_setup`)."""
    def cell(text) -> str:
        return " ".join(str(text).split()) or "–"

    lines = ["```{list-table}", ":header-rows: 1", ":widths: 22 10 68", ":class: report-card", "",
             "* - claim", "  - scale", "  - difference from the paper's setup"]
    for c in claims:
        if not c.setup:
            continue
        diff = "; ".join(cell(d) for d in c.differences) or "none: the paper's setup"
        lines += [f"* - {badge(c.verdict)} {{ref}}`{c.paper} {c.ref} <{c.label}>`", f"  - {c.scale}", f"  - {diff}"]
    lines.append("```")
    return "\n".join(lines)
