"""Template tasks over abstract symbols (Boix-Adsera et al., 2024, Sec. 3, App. A-B, App. J).

A *template* is a string of regular tokens and wildcards (Def. 3.1); here wildcards are Greek
letters and anything else is a regular token, so ``"α = 1 ; print ( α )"`` is a template with
one wildcard. ``sub(t, s)`` replaces each wildcard by its image under an injective map ``s``;
a string *matches* ``t`` when it is ``sub(t, s)`` for an injective ``s`` whose images avoid the
regular tokens of ``t``. Two templates are *disjoint* when no string matches both (Def. 4.1) and
*equivalent* when they match the same strings (the authors' generator rejects such pairs).

:class:`SymbolTemplates` draws labelled strings as the authors' generator does (App. A-B):
a template, then a map injective within the sample drawn uniformly from an alphabet; the
training alphabet has ``n_symbols`` tokens and the validation and test strings use two further
alphabets of ``n_heldout`` tokens each, disjoint from training and from each other, so every
held-out string is made of *unseen symbols*. A ``[CLS]`` token ends every string. Labels are
real (Def. 3.2, ``target = "regression"``) or, in :class:`SymbolicTemplates`, a token: a
template's wildcard (the token substituted for it) or a regular token (Def. J.1).

Vocabulary, in id order: the templates' regular tokens (and regular label tokens), ``[CLS]``,
the training alphabet ``s0..``, the validation alphabet ``v0..``, the test alphabet ``u0..``.

The catalogue functions (:func:`same_different`, :func:`aba_abb`, ...) return the templates and
labels of every task the paper uses; :func:`catalogue` lists them.
"""
from __future__ import annotations

import math
from typing import Sequence

import numpy as np
import torch

from .. import validate
from .base import (MAX_VOCAB, ArgumentTypeError, Batch, HeldOutSplit, Task, Vocab, check_choice, check_int,
                   random_rows)

WILDCARDS = "αβγδεζηθικλμνξοπρστυφχψω"
CLS = "[CLS]"
ALPHABETS = ("train", "val", "test")
_PREFIX = {"train": "s", "val": "v", "test": "u"}
#: rounds of redrawing the rows whose symbols collide before :func:`_distinct_draws` gives up
MAX_REDRAWS = 100_000


# ----------------------------------------------------------------------------- templates
def is_wildcard(token: str) -> bool:
    """A wildcard is a single Greek letter."""
    if not isinstance(token, str):
        validate.fail("is_wildcard", "token", "a string", token, ArgumentTypeError)
    return len(token) == 1 and token in WILDCARDS


def parse(template) -> tuple[str, ...]:
    """A template as a tuple of tokens: from a space-separated string (``"α β α"``), a string of
    single-letter tokens without spaces (``"αβα"``), or a sequence of strings."""
    if isinstance(template, str):
        tokens = tuple(template.split()) if " " in template.strip() else tuple(template.strip())
    elif isinstance(template, (tuple, list)) and all(isinstance(t, str) for t in template):
        tokens = tuple(template)
    else:
        raise ArgumentTypeError(f"parse: a template must be a string or a sequence of strings, got {template!r}")
    if not tokens or any(not t or " " in t for t in tokens):
        raise ValueError(f"parse: a template must be a non-empty string of tokens, got {template!r}")
    if CLS in tokens:
        raise ValueError(f"parse: {CLS} is appended by the task; leave it out of the template {template!r}")
    return tokens


def wildcards(template) -> tuple[str, ...]:
    """The template's wildcards in order of first appearance."""
    return tuple(dict.fromkeys(t for t in parse(template) if is_wildcard(t)))


def regular_tokens(template) -> tuple[str, ...]:
    """The template's regular tokens in order of first appearance."""
    return tuple(dict.fromkeys(t for t in parse(template) if not is_wildcard(t)))


def substitute(template, mapping: dict) -> tuple[str, ...]:
    """``sub(t, s)``: each wildcard replaced by ``mapping[wildcard]``, regular tokens kept."""
    if not isinstance(mapping, dict):
        validate.fail("substitute", "mapping", "a dict from wildcards to tokens", mapping, ArgumentTypeError)
    missing = [w for w in wildcards(template) if w not in mapping]
    if missing:
        validate.fail("substitute", "mapping", f"a dict with an image for every wildcard of the template "
                      f"(missing {' '.join(missing)})", mapping)
    if not all(isinstance(mapping[w], str) and mapping[w] and " " not in mapping[w] for w in wildcards(template)):
        validate.fail("substitute", "mapping", "a dict whose images are tokens (non-empty strings without spaces)",
                      mapping, ArgumentTypeError)
    return tuple(mapping[t] if is_wildcard(t) else t for t in parse(template))


def matches(template, string) -> bool:
    """Def. 3.1: ``string = sub(template, s)`` for an injective ``s`` whose images are not regular
    tokens of the template (so ``ααβST`` matches ``QQRST``, not ``QQQST`` nor ``QQSST``)."""
    t, x = parse(template), parse(string)
    if len(t) != len(x):
        return False
    regular, image = set(regular_tokens(t)), {}
    for a, b in zip(t, x):
        if not is_wildcard(a):
            if a != b:
                return False
        elif image.setdefault(a, b) != b or b in regular:
            return False
    return len(set(image.values())) == len(image)


def canonical(template) -> tuple[str, ...]:
    """The template with its wildcards renamed α, β, ... by first appearance."""
    rename = {w: WILDCARDS[i] for i, w in enumerate(wildcards(template))}
    return tuple(rename.get(t, t) for t in parse(template))


def are_equivalent(t1, t2) -> bool:
    """The two templates match exactly the same strings: they differ only by renaming wildcards."""
    return canonical(t1) == canonical(t2)


def are_disjoint(t1, t2) -> bool:
    """Def. 4.1: no string matches both templates (over an unbounded alphabet).

    Exact: a common match must agree with both templates' regular tokens and merge positions
    that share a wildcard in either template. It exists unless the merged classes force two
    different regular tokens into one position, two wildcards of one template onto one token,
    or a wildcard onto one of its own template's regular tokens; classes not fixed to a regular
    token take fresh distinct tokens, which satisfies every constraint.
    """
    a, b = parse(t1), parse(t2)
    if len(a) != len(b):
        return True
    parent = list(range(len(a)))

    def find(i):
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for t in (a, b):
        first = {}
        for i, tok in enumerate(t):
            if is_wildcard(tok):
                parent[find(i)] = find(first.setdefault(tok, i))
    fixed: dict[int, str] = {}
    for t in (a, b):
        for i, tok in enumerate(t):
            if not is_wildcard(tok) and fixed.setdefault(find(i), tok) != tok:
                return True  # two regular tokens in one position class
    for t in (a, b):
        regular, owner = set(regular_tokens(t)), {}
        for i, tok in enumerate(t):
            if not is_wildcard(tok):
                continue
            c = find(i)
            if owner.setdefault(c, tok) != tok:
                return True  # two wildcards of t in one class: s would not be injective
            if fixed.get(c) in regular:
                return True  # a wildcard forced onto one of t's own regular tokens
        images = [fixed[c] for c in owner if c in fixed]
        if len(images) != len(set(images)):
            return True  # two wildcards of t forced onto the same regular token
    return False


def diversity(templates, n_symbols: int, probs=None) -> float:
    """Def. 4.2, data diversity ρ = min over templates t and tokens z of 1 / P[z ∈ range(s)].

    For maps drawn uniformly (injective) from an alphabet of ``n_symbols`` tokens a template with
    w wildcards substitutes a given token with probability w / n_symbols, so ρ = n_symbols / max w
    over the templates of positive probability.
    """
    owner = "diversity"
    if isinstance(templates, str) or not isinstance(templates, (list, tuple)) or not templates:
        validate.fail(owner, "templates", "a non-empty list of templates", templates)
    templates = [parse(t) for t in templates]
    check_int(owner, "n_symbols", n_symbols, minimum=1)
    if probs is not None:
        p = validate.array(owner, "probs", probs, ndim=1)
        if len(p) != len(templates) or (p < 0).any() or not (p > 0).any():
            validate.fail(owner, "probs", f"{len(templates)} non-negative weights, not all zero", p.tolist())
    probs = [1.0] * len(templates) if probs is None else list(probs)
    w = max(len(wildcards(t)) for t, p in zip(templates, probs) if p > 0)
    return math.inf if w == 0 else n_symbols / w


# ----------------------------------------------------------------------------- the tasks
def _check_templates(owner: str, templates, labels, symbolic: bool):
    if isinstance(templates, str) or not isinstance(templates, (list, tuple)) or not templates:
        raise ValueError(f"{owner}: templates must be a non-empty list of templates, got {templates!r}")
    parsed = []
    for t in templates:
        try:
            parsed.append(parse(t))
        except ValueError as error:
            raise ValueError(f"{owner}: templates: {error}") from None
    if len({len(t) for t in parsed}) != 1:
        raise ValueError(f"{owner}: templates must all have the same length, got lengths {[len(t) for t in parsed]}")
    for i in range(len(parsed)):
        for j in range(i):
            if are_equivalent(parsed[i], parsed[j]):
                raise ValueError(f"{owner}: templates {' '.join(parsed[j])!r} and {' '.join(parsed[i])!r} are "
                                 "equivalent (they match the same strings)")
    if not isinstance(labels, (list, tuple, np.ndarray, torch.Tensor)) or len(labels) != len(parsed):
        raise ValueError(f"{owner}: labels must be a list with one label per template ({len(parsed)}), got {labels!r}")
    labels = list(labels.tolist() if hasattr(labels, "tolist") else labels)
    for t, y in zip(parsed, labels):
        if symbolic:
            if not isinstance(y, str) or (is_wildcard(y) and y not in t) or y == CLS or " " in y or not y:
                raise ValueError(f"{owner}: a symbolic label must be a wildcard of its template or a regular "
                                 f"token, got {y!r} for {' '.join(t)!r}")
        else:
            validate.real(owner, "labels", y)
    return tuple(parsed), tuple(y if symbolic else float(y) for y in labels)


def _distinct_draws(n: int, population: int, k: int, generator: torch.Generator) -> torch.Tensor:
    """``n`` rows of ``k`` distinct values drawn uniformly from ``range(population)``."""
    if k == 0:
        return torch.zeros(n, 0, dtype=torch.long)
    if population <= 64 or n * population <= 2_000_000:
        return random_rows(n, population, k, generator)
    rows = torch.randint(population, (n, k), generator=generator)  # k <= population / 2 here: few redraws
    for _ in range(MAX_REDRAWS):
        bad = (rows.sort(dim=1).values.diff(dim=1) == 0).any(dim=1)
        if not bad.any():
            return rows
        rows[bad] = torch.randint(population, (int(bad.sum()), k), generator=generator)
    raise ValueError(f"SymbolTemplates: {k} distinct symbols of an alphabet of {population} are too unlikely to draw "
                     f"(still {int(bad.sum())} of {n} rows after {MAX_REDRAWS:,} redraws); use a larger alphabet")


class SymbolTemplates(HeldOutSplit, Task):
    """A real-label template task (Def. 3.2): strings ``sub(t, s) [CLS]`` labelled ``f*(t)``.

    ``templates``: equal-length templates, no two equivalent; ``labels``: one real per template;
    ``n_symbols``: the training alphabet (the paper takes it equal to the number of samples);
    ``n_heldout``: the size of each of the validation and test alphabets (100 in the paper);
    ``probs``: template probabilities (uniform if None); ``cls``: append ``[CLS]``;
    ``alphabet``: which alphabet :meth:`sample` substitutes from. :meth:`splits` draws the
    paper's three sets.
    """

    name = "symbol_templates"
    target = "regression"
    symbolic = False

    def __init__(self, templates, labels, n_symbols: int = 64, n_heldout: int = 100, probs=None,
                 cls: bool = True, alphabet: str = "train"):
        owner = type(self).__name__
        self.templates, self.labels = _check_templates(owner, templates, labels, self.symbolic)
        self.n_wildcards = max(len(wildcards(t)) for t in self.templates)
        check_int(owner, "n_symbols", n_symbols, minimum=max(1, self.n_wildcards), maximum=MAX_VOCAB)
        check_int(owner, "n_heldout", n_heldout, minimum=max(1, self.n_wildcards), maximum=MAX_VOCAB)
        self.cls = validate.boolean(owner, "cls", cls)
        self.alphabet = check_choice(owner, "alphabet", alphabet, ALPHABETS)
        if probs is None:
            probs = [1.0] * len(self.templates)
        probs = validate.array(owner, "probs", probs, ndim=1).astype(float)
        if len(probs) != len(self.templates) or not np.all(np.isfinite(probs)) or (probs < 0).any() or probs.sum() <= 0:
            raise ValueError(f"{owner}: probs must be {len(self.templates)} non-negative weights, not all zero; "
                             f"got {probs.tolist()}")
        self.probs = tuple((probs / probs.sum()).tolist())
        self.n_symbols, self.n_heldout = n_symbols, n_heldout
        validate.memory(owner, f"the vocabulary (n_symbols + 2 n_heldout = {n_symbols + 2 * n_heldout:.1e} tokens)",
                        200.0 * (n_symbols + 2 * n_heldout))
        label_tokens = [y for y in self.labels if self.symbolic and not is_wildcard(y)]
        regular = list(dict.fromkeys([r for t in self.templates for r in regular_tokens(t)] + label_tokens))
        self.offsets = {"train": len(regular) + 1, "val": len(regular) + 1 + n_symbols,
                        "test": len(regular) + 1 + n_symbols + n_heldout}
        self.vocab = Vocab(regular + [CLS] + [f"s{i}" for i in range(n_symbols)] + [f"v{i}" for i in range(n_heldout)]
                           + [f"u{i}" for i in range(n_heldout)])
        self.cls_id = len(regular)
        self.seq_len = len(self.templates[0]) + self.cls
        self.n_classes = len(self.vocab) if self.symbolic else 1
        # template tensor: a regular token's id, or -(j + 1) for the template's j-th wildcard
        self._codes = torch.tensor([[-(wildcards(t).index(tok) + 1) if is_wildcard(tok) else self.vocab[tok]
                                     for tok in t] for t in self.templates])
        self._label_codes = torch.tensor([self._label_code(t, y) for t, y in zip(self.templates, self.labels)])

    def _label_code(self, template, label):
        return -(wildcards(template).index(label) + 1) if self.symbolic and is_wildcard(label) else \
            (self.vocab[label] if self.symbolic else 0)

    # -- alphabets and splits
    def alphabet_size(self, which: str | None = None) -> int:
        """The number of symbols of an alphabet (``"train"``, ``"val"`` or ``"test"``; this task's if None)."""
        which = self.alphabet if which is None else check_choice(f"{type(self).__name__}.alphabet_size", "which",
                                                                  which, ALPHABETS)
        return self.n_symbols if which == "train" else self.n_heldout

    def alphabet_ids(self, which: str | None = None) -> range:
        """The token ids of an alphabet (``"train"``, ``"val"`` or ``"test"``)."""
        which = self.alphabet if which is None else check_choice(f"{type(self).__name__}.alphabet_ids", "which", which,
                                                                  ALPHABETS)
        return range(self.offsets[which], self.offsets[which] + self.alphabet_size(which))

    def variant(self, which: str) -> "SymbolTemplates":
        """The same task substituting from another alphabet (``"train"``, ``"val"`` or ``"test"``)."""
        check_choice(f"{type(self).__name__}.variant", "which", which, ALPHABETS)
        return type(self)(self.templates, self.labels, self.n_symbols, self.n_heldout, self.probs, self.cls, which)

    def splits(self, n_train: int, seed: int = 0, n_heldout_samples: int = 100) -> dict[str, Batch]:
        """The paper's three sets (App. A): ``n_train`` strings from the training alphabet and
        ``n_heldout_samples`` (100) each from the validation and test alphabets, drawn i.i.d. as
        the authors' generator does (a string may repeat), deterministic by ``seed``."""
        owner = f"{type(self).__name__}.splits"
        check_int(owner, "n_train", n_train, minimum=1)
        check_int(owner, "n_heldout_samples", n_heldout_samples, minimum=1)
        check_int(owner, "seed", seed, minimum=0, maximum=(validate.MAX_SEED - 2) // 3)
        return {"train": self.variant("train").sample(n_train, seed=3 * seed),
                "val": self.variant("val").sample(n_heldout_samples, seed=3 * seed + 1),
                "test": self.variant("test").sample(n_heldout_samples, seed=3 * seed + 2)}

    def diversity(self) -> float:
        """Def. 4.2's ρ for this task's alphabet (see :func:`diversity`)."""
        return diversity(self.templates, self.alphabet_size(), self.probs)

    # -- generation
    def draw(self, n: int, generator: torch.Generator) -> tuple[torch.Tensor, Batch]:
        """``n`` examples and the template index of each."""
        owner = f"{type(self).__name__}.draw"
        check_int(owner, "n", n, minimum=1)
        if not isinstance(generator, torch.Generator):
            raise ArgumentTypeError(f"{owner}: generator must be a torch.Generator, got {type(generator).__name__}")
        which = torch.multinomial(torch.tensor(self.probs), n, replacement=True, generator=generator)
        images = _distinct_draws(n, self.alphabet_size(), self.n_wildcards, generator) + self.offsets[self.alphabet]
        codes = self._codes[which]
        x = torch.where(codes >= 0, codes, torch.gather(images, 1, (-codes - 1).clamp_min(0)) if self.n_wildcards
                        else codes)
        if self.cls:
            x = torch.cat([x, torch.full((n, 1), self.cls_id)], dim=1)
        if self.symbolic:
            code = self._label_codes[which]
            y = torch.where(code >= 0, code, torch.gather(images, 1, (-code - 1).clamp_min(0)[:, None])[:, 0]
                            if self.n_wildcards else code)
        else:
            y = torch.tensor(self.labels, dtype=torch.float32)[which]
        return which, Batch(x, y)

    def _sample(self, n, generator):
        return self.draw(n, generator)[1]

    def template_index(self, x: torch.Tensor) -> torch.Tensor:
        """The template each string matches (Def. 3.1), -1 if none: a check on any input."""
        if not isinstance(x, torch.Tensor) or x.dim() != 2 or x.is_floating_point():
            validate.fail(f"{type(self).__name__}.template_index", "x", "an integer tensor of token ids (B, n)",
                          f"shape {tuple(x.shape)}, {x.dtype}" if isinstance(x, torch.Tensor) else type(x).__name__,
                          ArgumentTypeError)
        if x.numel() and (x.min() < 0 or x.max() >= len(self.vocab)):
            validate.fail(f"{type(self).__name__}.template_index", "x", f"token ids in [0, {len(self.vocab) - 1}]",
                          f"ids in [{int(x.min())}, {int(x.max())}]")
        out = []
        for row in x:
            tokens = self.vocab.decode(row[:-1] if self.cls else row)
            hits = [i for i, t in enumerate(self.templates) if matches(t, tokens)]
            out.append(hits[0] if hits else -1)
        return torch.tensor(out)

    def describe_target(self, y):
        return self.vocab.tokens[int(y)] if self.symbolic else f"{float(y):+g}"

    def __repr__(self) -> str:
        shown = ", ".join(" ".join(t) for t in self.templates[:3]) + (", ..." if len(self.templates) > 3 else "")
        return f"{type(self).__name__}([{shown}], n_symbols={self.n_symbols}, alphabet={self.alphabet!r})"


class SymbolicTemplates(SymbolTemplates):
    """A symbolic-label template task (Def. J.1): the label is a token, the image of one of the
    template's wildcards (so an unseen token on held-out strings) or a regular token."""

    name = "symbolic_templates"
    target = "class"
    symbolic = True


# ----------------------------------------------------------------------------- the paper's tasks
def same_different():
    """Sec. 1.1.1: ``αα`` → +1, ``αβ`` → -1."""
    return ["α α", "α β"], [1.0, -1.0]


def aba_abb():
    """App. B, the base task of Figs. 8-15 and 21: ``αβα`` → +1, ``αββ`` → -1."""
    return ["α β α", "α β β"], [1.0, -1.0]


def aabb_abab():
    """App. B, Fig. 16: ``ααββ`` → +1, ``αβαβ`` → -1."""
    return ["α α β β", "α β α β"], [1.0, -1.0]


def majority(k: int):
    """App. B, length-k majority: the 2^(k-1) templates ``α{α,β}^(k-1)``, labelled +1 when α fills
    most of positions 2..k and -1 otherwise (k even, so there are no ties; k = 2 is same/different)."""
    check_int("majority", "k", k, minimum=2, maximum=16)
    if k % 2:
        raise ValueError(f"majority: k must be even (positions 2..k then have no tie), got {k}")
    templates, labels = [], []
    for rest in range(2 ** (k - 1)):
        tail = ["α" if (rest >> i) & 1 else "β" for i in range(k - 1)]
        templates.append(" ".join(["α"] + tail))
        labels.append(1.0 if tail.count("α") > (k - 1) / 2 else -1.0)
    return templates, labels


def random_templates(m: int, length: int, n_wildcards: int, n_regular: int, seed: int = 0):
    """App. B, random template task: ``m`` templates drawn uniformly from (W ∪ R)^length,
    pairwise non-equivalent, with Gaussian labels centred and scaled so that predicting 0 has
    mean squared error 1 under the uniform template distribution."""
    owner = "random_templates"
    check_int(owner, "m", m, minimum=2, maximum=1000)
    check_int(owner, "length", length, minimum=1, maximum=100)
    check_int(owner, "n_wildcards", n_wildcards, minimum=0, maximum=len(WILDCARDS))
    check_int(owner, "n_regular", n_regular, minimum=0, maximum=26)
    if n_wildcards + n_regular == 0:
        raise ValueError(f"{owner}: n_wildcards + n_regular must be positive, got 0")
    validate.seed(owner, "seed", seed)
    rng = np.random.default_rng(seed)
    pool = list(WILDCARDS[:n_wildcards]) + [chr(ord("A") + i) for i in range(n_regular)]
    templates: list[tuple[str, ...]] = []
    for _ in range(100 * m + 1000):
        t = tuple(pool[i] for i in rng.integers(len(pool), size=length))
        if all(not are_equivalent(t, u) for u in templates):
            templates.append(t)
            if len(templates) == m:
                break
    else:
        raise ValueError(f"{owner}: could not find {m} non-equivalent templates of length {length} over "
                         f"{n_wildcards} wildcards and {n_regular} regular tokens")
    y = rng.standard_normal(m)
    y = (y - y.mean()) / np.sqrt(np.mean((y - y.mean()) ** 2))
    return [" ".join(t) for t in templates], y.tolist()


def program():
    """Fig. 1 (reconstructed: the text lost its symbols): two programs that differ in the printed
    variable, ``α = 1 ; β = -1 ; print ( α )`` → +1 and ``... print ( β )`` → -1."""
    return ["α = 1 ; β = -1 ; print ( α )", "α = 1 ; β = -1 ; print ( β )"], [1.0, -1.0]


def program_symbolic():
    """Fig. 2 (reconstructed): the values are symbols too, and the label is the printed value:
    ``α = γ ; β = δ ; print ( α )`` → γ and ``... print ( β )`` → δ."""
    return ["α = γ ; β = δ ; print ( α )", "α = γ ; β = δ ; print ( β )"], ["γ", "δ"]


def copy():
    """Sec. 5: the copy task, ``α`` → α."""
    return ["α"], ["α"]


def majority_token():
    """Sec. 1.1.1: output the majority token of a length-3 string over two symbols."""
    return ["α α α", "α α β", "α β α", "β α α"], ["α", "α", "α", "α"]


_SET_PARTITIONS_3 = ("α α α", "α α β", "α β α", "α β β", "α β γ")


def _fresh(pattern: str, start: int) -> str:
    """A row pattern written with the wildcards from ``WILDCARDS[start]`` on."""
    return " ".join(WILDCARDS[start + "αβγ".index(t)] for t in pattern.split())


def match_to_sample():
    """App. A, relational match-to-sample: a source row of 3 objects and two option rows, the
    correct one with the source's equality pattern and the other with a different one; label
    +1 (first option correct) or -1. 5 patterns x 2 orders x 4 distractors = 40 templates.
    Each row uses its own wildcards (our reading: objects of different rows differ)."""
    templates, labels = [], []
    for p in _SET_PARTITIONS_3:
        for q in _SET_PARTITIONS_3:
            if q == p:
                continue
            for first_correct in (True, False):
                a, b = (p, q) if first_correct else (q, p)
                templates.append(" ".join([_fresh(p, 0), "|", _fresh(a, 3), "|", _fresh(b, 6)]))
                labels.append(1.0 if first_correct else -1.0)
    return templates, labels


def raven_attribute():
    """App. A, Raven's matrices along one attribute, symbolic: row 1 ``α β γ``, row 2 a
    permutation of it, row 3 two cells, label the missing symbol (6 x 6 = 36 templates), plus
    constant rows ``α α α | β β β | γ γ`` → γ: 37 templates."""
    import itertools

    templates, labels = [], []
    for row2 in itertools.permutations("αβγ"):
        for pair in itertools.permutations("αβγ", 2):
            missing = next(s for s in "αβγ" if s not in pair)
            templates.append(" ".join(["α", "β", "γ", "|", *row2, "|", *pair]))
            labels.append(missing)
    templates.append("α α α | β β β | γ γ")
    labels.append("γ")
    return templates, labels


def distribution_of_three():
    """App. A, "distribution of 3" with a real label (our layout: the paper's final row cannot be
    recovered from its text). Rows 1-2 as in :func:`raven_attribute`, row 3 two cells and then
    the three symbols as answer options in some order; the label +1/+2/+3 is the position of
    the missing symbol among the options. 6 x 6 x 6 = 216 templates (the paper counts 144)."""
    import itertools

    templates, labels = [], []
    for row2 in itertools.permutations("αβγ"):
        for pair in itertools.permutations("αβγ", 2):
            missing = next(s for s in "αβγ" if s not in pair)
            for options in itertools.permutations("αβγ"):
                templates.append(" ".join(["α", "β", "γ", "|", *row2, "|", *pair, "|", *options]))
                labels.append(float(options.index(missing) + 1))
    return templates, labels


def catalogue() -> dict[str, tuple[type, tuple]]:
    """Every task of the paper: name -> (task class, (templates, labels))."""
    return {"same/different": (SymbolTemplates, same_different()), "αβα vs αββ": (SymbolTemplates, aba_abb()),
            "ααββ vs αβαβ": (SymbolTemplates, aabb_abab()),
            **{f"majority-{k}": (SymbolTemplates, majority(k)) for k in (2, 4, 6, 8)},
            "random templates": (SymbolTemplates, random_templates(5, 6, 3, 1)),
            "program (Fig. 1)": (SymbolTemplates, program()),
            "program, symbolic (Fig. 2)": (SymbolicTemplates, program_symbolic()),
            "copy (Sec. 5)": (SymbolicTemplates, copy()), "majority token": (SymbolicTemplates, majority_token()),
            "match to sample (App. A)": (SymbolTemplates, match_to_sample()),
            "Raven, one attribute (App. A)": (SymbolicTemplates, raven_attribute()),
            "distribution of 3 (App. A)": (SymbolTemplates, distribution_of_three())}


__all__ = ["WILDCARDS", "CLS", "SymbolTemplates", "SymbolicTemplates", "parse", "wildcards", "regular_tokens",
           "substitute", "matches", "canonical", "are_equivalent", "are_disjoint", "diversity", "same_different",
           "aba_abb", "aabb_abab", "majority", "random_templates", "program", "program_symbolic", "copy",
           "majority_token", "match_to_sample", "raven_attribute", "distribution_of_three", "catalogue"]
