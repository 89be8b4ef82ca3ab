"""The four sequence tasks of Chen & Zou (2024), Sec. 4 and 9.1.

Every task ends with the response sign ``→`` (the paper's CLS / ``r``), whose last-layer
representation is classified. Token ids follow the row layout of the paper's one-hot
embeddings (eq. 3), so a construction can address rows by token id:

==========================  ==================================================  =========
task                        vocabulary (in id order)                            classes
==========================  ==================================================  =========
SequenceClassification      words, ``→``                                        N
InContextQA                 questions, ``→``, answers                           answers
TemplateMatching            words, ``→``                                        |T|
InContextTemplateMatching   words, ``→``, answers                               answers
==========================  ==================================================  =========

Splits test what each task claims to test: template matching holds out substitution maps
(``maps="train"`` / ``"test"``), in-context QA holds out question-answer pairings
(``pairs="train"`` / ``"test"``), so a test example cannot be answered from memory.
"""
from __future__ import annotations

import itertools
import math
import zlib
from functools import lru_cache

import torch

from .base import Batch, Task, Vocab, check_choice, check_int, make_generator
from .index_lookup import symbol_names

SIGN = "→"


# ----------------------------------------------------------------------------- templates
@lru_cache(maxsize=None)
def all_templates(length: int) -> tuple[tuple[int, ...], ...]:
    """Every template of a length, up to renaming: restricted-growth strings (Bell(l) of them).

    ``(0, 0, 1)`` is the template αaβ... written with wildcards numbered by first appearance.
    """
    out = [(0,)]
    for _ in range(length - 1):
        out = [t + (w,) for t in out for w in range(max(t) + 2)]
    return tuple(out)


def template_of(sequence) -> tuple[int, ...]:
    """The template (equality pattern) of a sequence of symbols."""
    first: dict = {}
    return tuple(first.setdefault(s, len(first)) for s in sequence)


def _random_rows(n: int, population: int, k: int, generator: torch.Generator) -> torch.Tensor:
    """``n`` rows of ``k`` distinct values from ``range(population)``, uniformly."""
    return torch.rand(n, population, generator=generator).argsort(dim=1)[:, :k]


def _held_out(key: tuple, seed: int, fraction: float) -> bool:
    """A deterministic pseudo-random choice of held-out items (maps, pairings) by hash."""
    return (zlib.crc32(repr((seed,) + tuple(key)).encode()) % 10_000) < fraction * 10_000


# ----------------------------------------------------------------------------- SC
class SequenceClassification(Task):
    """Memorization (Sec. 4.1): N distinct sequences of ``length`` words, each its own class.

    The dataset is fixed by ``dataset_seed``; :meth:`enumerate` returns it, :meth:`sample`
    draws from it with replacement, and :meth:`split` returns it as both train and test set:
    memorization is measured on the memorized examples.
    """

    name = "sequence_classification"
    disjoint_splits = False

    def __init__(self, n_words: int = 50, length: int = 6, n_examples: int = 1000, dataset_seed: int = 0):
        owner = "SequenceClassification"
        check_int(owner, "n_words", n_words, minimum=1)
        check_int(owner, "length", length, minimum=1)
        check_int(owner, "n_examples", n_examples, minimum=1, maximum=min(n_words**length, 10**7))
        check_int(owner, "dataset_seed", dataset_seed, minimum=0)
        self.n_words, self.length, self.n_examples, self.dataset_seed = n_words, length, n_examples, dataset_seed
        self.vocab = Vocab(symbol_names(n_words) + [SIGN])
        self.sign = n_words
        self.seq_len = length + 1
        self.n_classes = n_examples
        self._data: Batch | None = None

    def enumerate(self) -> Batch:
        if self._data is None:
            generator = make_generator(self.dataset_seed)
            if self.n_examples == self.n_words**self.length:
                words = torch.cartesian_prod(*[torch.arange(self.n_words)] * self.length).reshape(-1, self.length)
            else:
                seen, rows = set(), []
                while len(rows) < self.n_examples:
                    for row in torch.randint(self.n_words, (2 * self.n_examples, self.length), generator=generator):
                        key = tuple(row.tolist())
                        if key not in seen and len(rows) < self.n_examples:
                            seen.add(key)
                            rows.append(row)
                words = torch.stack(rows)
            x = torch.cat([words, torch.full((len(words), 1), self.sign)], dim=1)
            labels = torch.randperm(self.n_examples, generator=generator)
            self._data = Batch(x, labels)
        return self._data

    def _sample(self, n, generator):
        data = self.enumerate()
        return data[torch.randint(len(data), (n,), generator=generator)]

    def split(self, n_train=None, n_test=None, seed=0):
        data = self.enumerate()
        return data, data

    def describe_target(self, y):
        return str(int(y) + 1)


# ----------------------------------------------------------------------------- IC-QA
class InContextQA(Task):
    """Reasoning (Sec. 4.2): ``q_0 → a_0 ... q_{k-1} → a_{k-1} q_c →``, target ``a_c``.

    ``k`` distinct questions and ``k`` distinct answers per example, ``c`` uniform; n = 3k + 2.
    ``pairs`` restricts which (question, answer) pairings occur: ``"train"`` excludes a
    held-out fraction of pairings from every block, ``"test"`` makes the queried block's
    pairing a held-out one (the other blocks are unrestricted).
    """

    name = "in_context_qa"

    def __init__(self, n_questions: int = 20, n_answers: int = 20, k: int = 3, pairs: str = "all",
                 holdout: float = 0.25, split_seed: int = 0):
        owner = "InContextQA"
        check_int(owner, "n_questions", n_questions, minimum=1)
        check_int(owner, "n_answers", n_answers, minimum=1)
        check_int(owner, "k", k, minimum=1, maximum=min(n_questions, n_answers))
        check_choice(owner, "pairs", pairs, ("all", "train", "test"))
        if not (isinstance(holdout, float) and 0.0 < holdout < 1.0):
            raise ValueError(f"{owner}: holdout must be a fraction in (0, 1), got {holdout!r}")
        self.n_questions, self.n_answers, self.k, self.pairs = n_questions, n_answers, k, pairs
        self.holdout, self.split_seed = holdout, split_seed
        self.vocab = Vocab([f"q{i}" if n_questions > 26 else symbol_names(n_questions)[i] for i in range(n_questions)]
                           + [SIGN] + [str(i + 1) for i in range(n_answers)])
        self.sign = n_questions
        self.answer_offset = n_questions + 1
        self.seq_len = 3 * k + 2
        self.n_classes = n_answers
        self._held = torch.tensor([[_held_out((q, a), split_seed, holdout) for a in range(n_answers)]
                                   for q in range(n_questions)])
        if pairs != "all" and (self._held.all() or not self._held.any()):
            raise ValueError(f"{owner}: holdout={holdout} leaves no pairing on one side of the split")

    def variant(self, pairs: str) -> "InContextQA":
        return InContextQA(self.n_questions, self.n_answers, self.k, pairs, self.holdout, self.split_seed)

    def encode(self, questions: torch.Tensor, answers: torch.Tensor, c: torch.Tensor) -> Batch:
        """Sequences from question ids ``(B, k)``, answer ids ``(B, k)`` and query block ``(B,)``."""
        n, k = questions.shape
        sign = torch.full((n, k), self.sign)
        blocks = torch.stack([questions, sign, answers + self.answer_offset], dim=2).reshape(n, 3 * k)
        query = questions[torch.arange(n), c]
        x = torch.cat([blocks, query[:, None], torch.full((n, 1), self.sign)], dim=1)
        return Batch(x, answers[torch.arange(n), c])

    def _draw(self, n, generator):
        q = _random_rows(n, self.n_questions, self.k, generator)
        a = _random_rows(n, self.n_answers, self.k, generator)
        c = torch.randint(self.k, (n,), generator=generator)
        return q, a, c

    def _ok(self, q, a, c):
        held = self._held[q, a]  # (n, k)
        if self.pairs == "train":
            return ~held.any(1)
        return held[torch.arange(len(c)), c]

    def _sample(self, n, generator):
        q, a, c = self._draw(n, generator)
        if self.pairs != "all":
            for _ in range(1000):
                bad = ~self._ok(q, a, c)
                if not bad.any():
                    break
                q2, a2, c2 = self._draw(int(bad.sum()), generator)
                q[bad], a[bad], c[bad] = q2, a2, c2
            else:
                raise ValueError("InContextQA: could not satisfy the pairing split; lower holdout or k")
        return self.encode(q, a, c)

    def enumerate(self) -> Batch:
        count = math.perm(self.n_questions, self.k) * math.perm(self.n_answers, self.k) * self.k
        if count > 2_000_000:
            raise ValueError(f"InContextQA: {count} examples are too many to enumerate; use sample()")
        qs = torch.tensor(list(itertools.permutations(range(self.n_questions), self.k)))
        as_ = torch.tensor(list(itertools.permutations(range(self.n_answers), self.k)))
        grid = torch.cartesian_prod(torch.arange(len(qs)), torch.arange(len(as_)), torch.arange(self.k))
        q, a, c = qs[grid[:, 0]], as_[grid[:, 1]], grid[:, 2]
        if self.pairs != "all":
            keep = self._ok(q, a, c)
            q, a, c = q[keep], a[keep], c[keep]
        return self.encode(q, a, c)

    def split(self, n_train, n_test, seed=0):
        """Train examples use only training pairings; test examples query a held-out pairing."""
        check_int("InContextQA.split", "n_train", n_train, minimum=1)
        check_int("InContextQA.split", "n_test", n_test, minimum=1)
        return self.variant("train")._distinct(n_train, seed), self.variant("test")._distinct(n_test, seed + 1)

    def describe_target(self, y):
        return self.vocab.tokens[self.answer_offset + int(y)]


# ----------------------------------------------------------------------------- TM
class TemplateMatching(Task):
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
        check_int(owner, "n_words", n_words, minimum=1)
        check_int(owner, "length", length, minimum=1, maximum=10)
        check_choice(owner, "maps", maps, ("all", "train", "test"))
        templates = all_templates(length) if templates is None else tuple(tuple(t) for t in templates)
        for t in templates:
            if len(t) != length or template_of(t) != t:
                raise ValueError(f"{owner}: template {t} must be a length-{length} restricted-growth string "
                                 "(wildcards numbered by first appearance, e.g. (0, 0, 1))")
        if len(set(templates)) != len(templates) or len(templates) < 1:
            raise ValueError(f"{owner}: templates must be distinct and non-empty")
        wildcards = max(max(t) for t in templates) + 1
        if n_words < wildcards:
            raise ValueError(f"{owner}: n_words must be >= {wildcards} (the wildcards of the templates), got {n_words}")
        if not (isinstance(holdout, float) and 0.0 < holdout < 1.0):
            raise ValueError(f"{owner}: holdout must be a fraction in (0, 1), got {holdout!r}")
        self.n_words, self.length, self.templates, self.maps = n_words, length, templates, maps
        self.holdout, self.split_seed = holdout, split_seed
        self.vocab = Vocab(symbol_names(n_words) + [SIGN])
        self.sign = n_words
        self.seq_len = length + 1
        self.n_classes = len(templates)
        self._template_tensor = torch.tensor(templates)
        self.wildcards = wildcards

    def variant(self, maps: str) -> "TemplateMatching":
        return TemplateMatching(self.n_words, self.length, self.templates, maps, self.holdout, self.split_seed)

    def _map_ok(self, words: torch.Tensor, t: torch.Tensor) -> torch.Tensor:
        if self.maps == "all":
            return torch.ones(len(words), dtype=torch.bool)
        held = torch.tensor([_held_out(tuple(w[: int(tt.max()) + 1].tolist()), self.split_seed, self.holdout)
                             for w, tt in zip(words, t)])
        return held if self.maps == "test" else ~held

    def _draw(self, n, generator):
        labels = torch.randint(len(self.templates), (n,), generator=generator)
        words = _random_rows(n, self.n_words, self.wildcards, generator)  # map: wildcard w -> words[:, w]
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

    def split(self, n_train, n_test, seed=0):
        """Train on substitution maps outside the held-out set, test on held-out maps only."""
        check_int("TemplateMatching.split", "n_train", n_train, minimum=1)
        check_int("TemplateMatching.split", "n_test", n_test, minimum=1)
        return self.variant("train")._distinct(n_train, seed), self.variant("test")._distinct(n_test, seed + 1)

    def template_name(self, i: int) -> str:
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
        check_int(owner, "n_words", n_words, minimum=1)
        check_int(owner, "n_answers", n_answers, minimum=1)
        check_int(owner, "length", length, minimum=1, maximum=10)
        templates = all_templates(length) if templates is None else tuple(tuple(t) for t in templates)
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
        n, k, l = template_ids.shape[0], self.k, self.length
        t = self._template_tensor[template_ids]  # (B, k, l)
        t_all = torch.cat([t, t[torch.arange(n), c][:, None]], dim=1)  # query uses template of block c
        words = torch.gather(maps, 2, t_all)  # (B, k+1, l)
        sign = torch.full((n, k, 1), self.sign)
        blocks = torch.cat([words[:, :k], sign, (answers + self.answer_offset)[:, :, None]], dim=2).reshape(n, -1)
        x = torch.cat([blocks, words[:, k], torch.full((n, 1), self.sign)], dim=1)
        return Batch(x, answers[torch.arange(n), c])

    def _sample(self, n, generator):
        template_ids = _random_rows(n, len(self.templates), self.k, generator)
        maps = torch.rand(n, self.k + 1, self.n_words, generator=generator).argsort(dim=2)[:, :, : self.wildcards]
        answers = _random_rows(n, self.n_answers, self.k, generator)
        c = torch.randint(self.k, (n,), generator=generator)
        return self.encode(template_ids, maps, answers, c)

    def enumerate(self) -> Batch:
        """Every example: ordered distinct templates, answers, injective maps, query block."""
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


def table_1() -> dict[str, tuple[Task, Batch]]:
    """The worked examples of the paper's Table 1 (App. 8), produced by the generators."""
    sc = SequenceClassification(n_words=3, length=2, n_examples=9)
    order = [(0, 0), (1, 1), (2, 2), (0, 1), (0, 2), (1, 0), (1, 2), (2, 0), (2, 1)]  # the paper's labels 1..9
    sc_batch = Batch(torch.tensor([[a, b, sc.sign] for a, b in order]), torch.arange(9))
    qa = InContextQA(n_questions=2, n_answers=2, k=2)
    q = torch.tensor([[0, 1], [1, 0], [0, 1], [1, 0]])
    a = torch.tensor([[0, 1], [0, 1], [0, 1], [0, 1]])
    c = torch.tensor([0, 1, 1, 0])
    qa_batch = qa.encode(q, a, c)
    tm = TemplateMatching(n_words=3, length=2)
    tm_batch = tm.enumerate()
    ictm = InContextTemplateMatching(n_words=2, n_answers=2, length=2, k=2)
    tids = torch.tensor([[0, 1]] * 4)
    maps = torch.tensor([[[0, 1], [0, 1], [1, 0]], [[0, 1], [0, 1], [1, 0]], [[0, 1], [0, 1], [0, 1]],
                         [[0, 1], [0, 1], [0, 1]]])
    ictm_batch = ictm.encode(tids, maps, torch.tensor([[0, 1]] * 4), torch.tensor([0, 1, 0, 1]))
    return {"Memorization": (sc, sc_batch), "Reasoning": (qa, qa_batch), "Generalization": (tm, tm_batch),
            "Contextual generalization": (ictm, ictm_batch)}
