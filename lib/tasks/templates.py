"""Template tasks: sequences classified by their equality pattern (template), not by their symbols.

A template of length l over wildcards ``α, β, ...`` is written as a restricted-growth string,
wildcards numbered by first appearance (``(0, 0, 1)`` is ααβ); a substitution map sends
wildcards injectively to words. Shared by Chen & Zou (2024, Sec. 4.3-4.4: template matching
and in-context template matching) and the abstract-symbols tasks of Boix-Adsera et al. (2024).

==========================  ==================================================  =========
task                        vocabulary (in id order)                            classes
==========================  ==================================================  =========
TemplateMatching            words, ``→``                                        templates
InContextTemplateMatching   words, ``→``, answers                               answers
==========================  ==================================================  =========

Token ids follow the row layout of Chen & Zou's one-hot embeddings (eq. 3), so a construction
can address rows by token id. Template matching holds out substitution maps
(``maps="train"`` / ``"test"``), so a test sequence comes from a map never trained on.
"""
from __future__ import annotations

import itertools
import math
from functools import lru_cache

import torch

from .. import validate
from .base import (MAX_VOCAB, SIGN, ArgumentTypeError, Batch, HeldOutSplit, Task, Vocab, check_choice, check_int,
                   _held_out, log10_perm, random_rows, symbol_names)


#: the longest templates :func:`all_templates` lists: Bell(10) = 115,975 (Bell(13) is 27 million)
MAX_TEMPLATE_LENGTH = 10


# ----------------------------------------------------------------------------- templates
def all_templates(length: int) -> tuple[tuple[int, ...], ...]:
    """Every template of a length, up to renaming: restricted-growth strings (Bell(l) of them).

    ``(0, 0, 1)`` is the template αaβ... written with wildcards numbered by first appearance.
    Lengths up to :data:`MAX_TEMPLATE_LENGTH` (the count grows faster than exponentially).
    """
    return _all_templates(check_int("all_templates", "length", length, minimum=1, maximum=MAX_TEMPLATE_LENGTH))


@lru_cache(maxsize=None)
def _all_templates(length: int) -> tuple[tuple[int, ...], ...]:
    out = [(0,)]
    for _ in range(length - 1):
        out = [t + (w,) for t in out for w in range(max(t) + 2)]
    return tuple(out)


def template_of(sequence) -> tuple[int, ...]:
    """The template (equality pattern) of a sequence of symbols."""
    if not hasattr(sequence, "__iter__"):
        validate.fail("template_of", "sequence", "a sequence of symbols", sequence, ArgumentTypeError)
    first: dict = {}
    return tuple(first.setdefault(s, len(first)) for s in sequence)


def check_templates(owner: str, templates, length: int) -> tuple[tuple[int, ...], ...]:
    """``templates`` as a tuple of distinct length-``length`` restricted-growth strings (each its
    own equality pattern, so no two templates describe the same sequences); all of them if None."""
    if not isinstance(owner, str):
        validate.fail("check_templates", "owner", "the name of the calling function", owner, ArgumentTypeError)
    length = check_int(owner, "length", length, minimum=1, maximum=MAX_TEMPLATE_LENGTH)
    if templates is None:
        return all_templates(length)
    if isinstance(templates, (str, bytes)) or not hasattr(templates, "__iter__"):
        raise ArgumentTypeError(f"{owner}: templates must be a list of tuples of integers, got {templates!r}")
    templates = tuple(tuple(t) if hasattr(t, "__iter__") else (t,) for t in templates)
    if not templates:
        raise ValueError(f"{owner}: templates must be a non-empty list, got ()")
    for t in templates:
        if len(t) != length or any(isinstance(w, bool) or not isinstance(w, int) for w in t) or template_of(t) != t:
            raise ValueError(f"{owner}: template {t} must be a length-{length} restricted-growth string "
                             "(wildcards numbered by first appearance, e.g. (0, 0, 1))")
    if len(set(templates)) != len(templates):
        raise ValueError(f"{owner}: templates must be distinct, got {templates}")
    return templates


# ----------------------------------------------------------------------------- TM
class TemplateMatching(HeldOutSplit, Task):
    """Generalization (Sec. 4.3): classify ``sub(t, s) →`` by its template ``t``.

    Templates default to all Bell(l) templates of length ``l``, class = template index.
    Examples are template-balanced: a uniform template, then a uniform injective map ``s``
    from its wildcards to words. ``maps="train"`` / ``"test"`` keeps only maps outside / inside
    a held-out fraction, so test sequences come from substitution maps never trained on.
    """

    name = "template_matching"

    def __init__(self, n_words: int = 30, length: int = 3, templates=None, maps: str = "all",
                 holdout: float = 0.25, split_seed: int = 0):
        owner = "TemplateMatching"
        check_int(owner, "n_words", n_words, minimum=1, maximum=MAX_VOCAB)
        check_int(owner, "length", length, minimum=1, maximum=10)
        check_choice(owner, "maps", maps, ("all", "train", "test"))
        templates = check_templates(owner, templates, length)
        wildcards = max(max(t) for t in templates) + 1
        if n_words < wildcards:
            raise ValueError(f"{owner}: n_words must be >= {wildcards} (the wildcards of the templates), got {n_words}")
        validate.real(owner, "holdout", holdout, above=0.0, below=1.0)
        validate.seed(owner, "split_seed", split_seed)
        self.n_words, self.length, self.templates, self.maps = n_words, length, templates, maps
        self.holdout, self.split_seed = holdout, split_seed
        self.vocab = Vocab(symbol_names(n_words) + [SIGN])
        self.sign = n_words
        self.seq_len = length + 1
        self.n_classes = len(templates)
        self._template_tensor = torch.tensor(templates)
        self.wildcards = wildcards

    def variant(self, maps: str) -> "TemplateMatching":
        """The same task restricted to training maps (``"train"``) or held-out maps (``"test"``);
        :meth:`split` draws from these."""
        return TemplateMatching(self.n_words, self.length, self.templates, maps, self.holdout, self.split_seed)

    def sample_memory(self, n: int) -> tuple[str, float]:
        """A map is drawn as the first wildcards of a random order of all the words."""
        numbers = n * (self.n_words + self.seq_len)
        return f"the random orders of the words (n x n_words = {n * self.n_words:.1e} numbers)", 12.0 * numbers

    def _map_ok(self, words: torch.Tensor, t: torch.Tensor) -> torch.Tensor:
        if self.maps == "all":
            return torch.ones(len(words), dtype=torch.bool)
        held = torch.tensor([_held_out(tuple(w[: int(tt.max()) + 1].tolist()), self.split_seed, self.holdout)
                             for w, tt in zip(words, t)])
        return held if self.maps == "test" else ~held

    def _draw(self, n, generator):
        labels = torch.randint(len(self.templates), (n,), generator=generator)
        words = random_rows(n, self.n_words, self.wildcards, generator)  # map: wildcard w -> words[:, w]
        return labels, words

    def _sample(self, n, generator):
        labels, words = self._draw(n, generator)
        t = self._template_tensor[labels]
        for _ in range(1000):
            bad = ~self._map_ok(words, t)
            if not bad.any():
                break
            labels[bad], words[bad] = self._draw(int(bad.sum()), generator)
            t = self._template_tensor[labels]
        else:
            raise ValueError("TemplateMatching: could not satisfy the map split; lower holdout")
        x = torch.cat([torch.gather(words, 1, t), torch.full((n, 1), self.sign)], dim=1)
        return Batch(x, labels)

    def enumerate(self) -> Batch:
        """Every sequence of every template: all injective maps of its wildcards."""
        rows, labels = [], []
        for i, t in enumerate(self.templates):
            for image in itertools.permutations(range(self.n_words), max(t) + 1):
                rows.append([image[w] for w in t] + [self.sign])
                labels.append(i)
                if len(rows) > 2_000_000:
                    raise ValueError("TemplateMatching: too many sequences to enumerate; use sample()")
        x, y = torch.tensor(rows), torch.tensor(labels)
        if self.maps != "all":
            keep = self._map_ok(x[:, :-1], self._template_tensor[y])
            x, y = x[keep], y[keep]
        return Batch(x, y)

    def template_name(self, i: int) -> str:
        """The template of class ``i`` in Greek letters (``αβα``)."""
        check_int("TemplateMatching.template_name", "i", i, minimum=0, maximum=self.n_classes - 1)
        return "".join("αβγδεζηθικ"[w] for w in self.templates[i])

    def describe_target(self, y):
        return f"{int(y) + 1} ({self.template_name(int(y))})"


# ----------------------------------------------------------------------------- IC-TM
class InContextTemplateMatching(Task):
    """Contextual generalization (Sec. 4.4): ``X_0 → a_0 ... X_{k-1} → a_{k-1} X_q →``.

    ``X_b = sub(t_b, s_b)`` for k distinct templates with their own random maps; the query
    uses the template of block ``c`` with a fresh map; target ``a_c``; n = (l+2)k + l + 1.
    """

    name = "in_context_template_matching"

    def __init__(self, n_words: int = 6, n_answers: int = 6, length: int = 2, k: int = 2, templates=None):
        owner = "InContextTemplateMatching"
        check_int(owner, "n_words", n_words, minimum=1, maximum=MAX_VOCAB)
        check_int(owner, "n_answers", n_answers, minimum=1, maximum=MAX_VOCAB)
        check_int(owner, "length", length, minimum=1, maximum=10)
        templates = check_templates(owner, templates, length)
        check_int(owner, "k", k, minimum=1, maximum=min(len(templates), n_answers))
        self.wildcards = max(max(t) for t in templates) + 1
        if n_words < self.wildcards:
            raise ValueError(f"{owner}: n_words must be >= {self.wildcards} (the wildcards of the templates), "
                             f"got {n_words}")
        self.n_words, self.n_answers, self.length, self.k, self.templates = n_words, n_answers, length, k, templates
        self.vocab = Vocab(symbol_names(n_words) + [SIGN] + [str(i + 1) for i in range(n_answers)])
        self.sign = n_words
        self.answer_offset = n_words + 1
        self.seq_len = (length + 2) * k + length + 1
        self.n_classes = n_answers
        self._template_tensor = torch.tensor(templates)

    def encode(self, template_ids, maps, answers, c) -> Batch:
        """``template_ids (B, k)``, ``maps (B, k+1, w)`` (word of each wildcard; last = query),
        ``answers (B, k)``, ``c (B,)``."""
        owner = "InContextTemplateMatching.encode"
        for name, value, ndim in (("template_ids", template_ids, 2), ("maps", maps, 3), ("answers", answers, 2),
                                  ("c", c, 1)):
            if not isinstance(value, torch.Tensor) or value.is_floating_point() or value.dtype == torch.bool:
                validate.fail(owner, name, "an integer torch.Tensor", type(value).__name__ if not isinstance(
                    value, torch.Tensor) else value.dtype, ArgumentTypeError)
            if value.dim() != ndim:
                validate.fail(owner, name, f"a tensor with {ndim} axes", f"shape {tuple(value.shape)}")
        B = len(c)
        if template_ids.shape != (B, self.k) or answers.shape != (B, self.k) or maps.shape[:2] != (B, self.k + 1):
            validate.fail(owner, "template_ids, maps, answers, c", f"shapes (B, {self.k}), (B, {self.k + 1}, w), "
                          f"(B, {self.k}), (B,)", f"{tuple(template_ids.shape)}, {tuple(maps.shape)}, "
                          f"{tuple(answers.shape)}, {tuple(c.shape)}")
        n, k = template_ids.shape[0], self.k
        t = self._template_tensor[template_ids]  # (B, k, l)
        t_all = torch.cat([t, t[torch.arange(n), c][:, None]], dim=1)  # query uses template of block c
        words = torch.gather(maps, 2, t_all)  # (B, k+1, l)
        sign = torch.full((n, k, 1), self.sign)
        blocks = torch.cat([words[:, :k], sign, (answers + self.answer_offset)[:, :, None]], dim=2).reshape(n, -1)
        x = torch.cat([blocks, words[:, k], torch.full((n, 1), self.sign)], dim=1)
        return Batch(x, answers[torch.arange(n), c])

    def sample_memory(self, n: int) -> tuple[str, float]:
        """Maps are the first wildcards of random orders of the words, one per block and the query."""
        numbers = n * ((self.k + 1) * self.n_words + len(self.templates) + self.n_answers + self.seq_len)
        return (f"the random orders of the words, templates and answers (n x ((k + 1) n_words + templates + "
                f"n_answers) = {numbers:.1e} numbers)", 12.0 * numbers)

    def _sample(self, n, generator):
        template_ids = random_rows(n, len(self.templates), self.k, generator)
        maps = torch.rand(n, self.k + 1, self.n_words, generator=generator).argsort(dim=2)[:, :, : self.wildcards]
        answers = random_rows(n, self.n_answers, self.k, generator)
        c = torch.randint(self.k, (n,), generator=generator)
        return self.encode(template_ids, maps, answers, c)

    def enumerate(self) -> Batch:
        """Every example: ordered distinct templates, answers, injective maps, query block."""
        log_least = log10_perm(len(self.templates), self.k) + log10_perm(self.n_answers, self.k) + math.log10(self.k)
        if log_least > 7:  # 10^7 > 500,000: no huge products
            raise ValueError(f"InContextTemplateMatching: about 10^{log_least:.0f} examples are too many to enumerate")
        at_least = math.perm(len(self.templates), self.k) * math.perm(self.n_answers, self.k) * self.k
        if at_least > 500_000:  # every (templates, answers, query) has at least one map
            raise ValueError(f"InContextTemplateMatching: at least {at_least:,} examples are too many to enumerate")
        tids = list(itertools.permutations(range(len(self.templates)), self.k))
        answers = list(itertools.permutations(range(self.n_answers), self.k))
        wild = [max(t) + 1 for t in self.templates]
        rows = []
        for ts in tids:
            for ans in answers:
                for c in range(self.k):
                    per_block = [list(itertools.permutations(range(self.n_words), wild[t])) for t in ts]
                    per_block.append(list(itertools.permutations(range(self.n_words), wild[ts[c]])))
                    for images in itertools.product(*per_block):
                        rows.append((ts, ans, c, images))
                        if len(rows) > 500_000:
                            raise ValueError("InContextTemplateMatching: too many examples to enumerate")
        n = len(rows)
        template_ids = torch.tensor([r[0] for r in rows])
        ans = torch.tensor([r[1] for r in rows])
        c = torch.tensor([r[2] for r in rows])
        maps = torch.zeros(n, self.k + 1, self.wildcards, dtype=torch.long)
        for i, r in enumerate(rows):
            for b, image in enumerate(r[3]):
                maps[i, b, : len(image)] = torch.tensor(image)
        return self.encode(template_ids, maps, ans, c)

    def describe_target(self, y):
        return self.vocab.tokens[self.answer_offset + int(y)]
