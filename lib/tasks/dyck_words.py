"""Dyck words D_2N: the balanced bracket strings of length 2N (Richard, 2024, Sec. 4).

A word is a lattice path that starts and ends at height 0 and never goes below it: ``(`` is a
step up (+1), ``)`` a step down (-1). Token ids follow the paper's proof of Theorem 4.1,
``(`` -> 0 and ``)`` -> 1. Words are numpy arrays of token ids (``int64``), one word per row.

* :func:`catalan` counts them (|D_2N| = C_N = binom(2N, N) / (N + 1));
* :func:`all_words` enumerates D_2N (N <= 13), :func:`sample_words` draws uniformly from all of
  D_2N by the cycle lemma, :func:`sample_by_depth` uniformly from the words whose depth lies
  in a band (by counting paths, exact), :func:`distinct` draws distinct words;
* :func:`heights` is the stack height after each token, Delta_r (the paper's Eq. 9);
  :func:`depth` the largest of them, of a word or of a prefix;
* :func:`depth_counts` the exact number of words of each depth, by dynamic programming;
* :func:`peak_prefix` cuts a word right after the first time it reaches its depth, the prefix
  rule this book uses for "prefixes of depth >= q" (the paper does not say how it cut them);
* :func:`is_valid` checks completions: a word of D_2N (every height >= 0, final height 0);
  :func:`valid_prefixes` lists every distinct prefix that some word of D_2N extends.
"""
from __future__ import annotations

from functools import lru_cache
from math import comb

import numpy as np

from .. import validate
from .base import ArgumentTypeError, check_int

OPEN, CLOSE = 0, 1
SYMBOLS = "()"
MAX_ENUMERATED = 13  # C_13 = 742,900 words; D_28 and beyond are sampled, never listed
MAX_CATALAN = 10**6  # catalan(10^6) has 600,000 digits and takes about a second


def _words(owner: str, name: str, words, ndim: tuple[int, ...] | None = None, others: bool = False) -> np.ndarray:
    """``words`` as an array of token ids, each 0 (``(``) or 1 (``)``), refused otherwise (other
    integer ids are let through with ``others=True``)."""
    if isinstance(words, (str, bytes)):
        validate.fail(owner, name, "an array of token ids 0 and 1 (use from_string for text)", words,
                      ArgumentTypeError)
    try:
        a = np.asarray(words.detach().cpu() if hasattr(words, "detach") else words)
    except (TypeError, ValueError):
        raise ArgumentTypeError(f"{owner}: {name} must be an array of token ids 0 and 1, got "
                                f"{type(words).__name__}") from None
    if a.dtype.kind not in "biuf":
        validate.fail(owner, name, "an array of token ids 0 and 1", words, ArgumentTypeError)
    if a.ndim == 0:
        validate.fail(owner, name, "an array of token ids with at least one axis", words)
    if ndim is not None and a.ndim not in ndim:
        validate.fail(owner, name, f"an array with {' or '.join(map(str, ndim))} axes", f"shape {a.shape}")
    if others and a.size and not (np.isfinite(a).all() and (a == np.round(a)).all()):
        validate.fail(owner, name, "an array of integer token ids", words)
    if not others and a.size and not np.isin(a, (0, 1)).all():
        validate.fail(owner, name, "token ids 0 ('(') and 1 (')')",
                      f"an array with {int((~np.isin(a, (0, 1))).sum())} other entries")
    return a


def catalan(N: int) -> int:
    """C_N = binom(2N, N) / (N + 1), the number of Dyck words of length 2N."""
    N = check_int("catalan", "N", N, minimum=0, maximum=MAX_CATALAN)
    return comb(2 * N, N) // (N + 1)


def steps(words) -> np.ndarray:
    """+1 for ``(`` and -1 for ``)``: the token embedding E = [1, -1] of Theorem 4.1."""
    _words("steps", "words", words)
    return _steps(words)


def _steps(words) -> np.ndarray:
    return 1 - 2 * np.asarray(words, dtype=np.int64)


def heights(words) -> np.ndarray:
    """Stack height after each token, Delta_r = #( - #) among the first r tokens (Eq. 9)."""
    _words("heights", "words", words)
    return _heights(words)


def _heights(words) -> np.ndarray:
    return np.cumsum(_steps(words), axis=-1)


def depth(words) -> np.ndarray | int:
    """The largest stack height of a word or prefix (0 for the empty one): its depth."""
    _words("depth", "words", words)
    h = _heights(words)
    if h.shape[-1] == 0:
        return np.zeros(h.shape[:-1], dtype=np.int64) if h.ndim > 1 else 0
    top = np.maximum(h.max(-1), 0)
    return top if np.ndim(top) else int(top)


def is_valid(words, N: int | None = None) -> np.ndarray | bool:
    """Whether each row is a Dyck word (of length 2N when ``N`` is given): no height below 0
    and final height 0. This is the paper's completion criterion. A row holding a token other
    than 0 and 1 (a model's other tokens) is not a Dyck word."""
    _words("is_valid", "words", words, others=True)
    if N is not None:
        check_int("is_valid", "N", N, minimum=0)
    words = np.asarray(words)
    h = _heights(words)
    ok = (h.min(-1) >= 0) & (h[..., -1] == 0) if h.shape[-1] else np.ones(h.shape[:-1], bool)
    if h.shape[-1] and not np.isin(words, (OPEN, CLOSE)).all():
        ok = ok & np.isin(words, (OPEN, CLOSE)).all(-1)
    if N is not None and words.shape[-1] != 2 * N:
        ok = np.zeros_like(ok, dtype=bool)
    return ok if np.ndim(ok) else bool(ok)


def to_string(word) -> str:
    """The text of a word (or a prefix, or several words in a row), ``(`` for 0 and ``)`` for 1."""
    _words("to_string", "word", word)
    return "".join(SYMBOLS[int(t)] for t in np.asarray(word).reshape(-1))


def from_string(text: str) -> np.ndarray:
    """The token ids of a string of brackets."""
    if not isinstance(text, str):
        validate.fail("from_string", "text", "a string of '(' and ')'", text, ArgumentTypeError)
    if set(text) - set(SYMBOLS):
        raise ValueError(f"from_string: a Dyck string uses only '(' and ')', got {text!r}")
    return np.array([SYMBOLS.index(c) for c in text], dtype=np.int64)


def all_words(N: int) -> np.ndarray:
    """Every word of D_2N, in lexicographic order of the strings (``(`` first), shape (C_N, 2N)."""
    N = check_int("all_words", "N", N, minimum=1, maximum=MAX_ENUMERATED)
    # grow prefixes level by level, keeping (prefix, height, opens used)
    words = np.zeros((1, 0), dtype=np.int64)
    height = np.zeros(1, dtype=np.int64)
    opened = np.zeros(1, dtype=np.int64)
    for _ in range(2 * N):
        can_open, can_close = opened < N, height > 0
        rows = np.concatenate([np.nonzero(can_open)[0], np.nonzero(can_close)[0]])
        token = np.concatenate([np.full(can_open.sum(), OPEN), np.full(can_close.sum(), CLOSE)])
        order = np.lexsort((token, rows))
        rows, token = rows[order], token[order]
        words = np.concatenate([words[rows], token[:, None]], axis=1)
        height = height[rows] + 1 - 2 * token
        opened = opened[rows] + (token == OPEN)
    return words


def sample_words(N: int, count: int, seed: int = 0) -> np.ndarray:
    """``count`` words drawn uniformly (with replacement) from D_2N by the cycle lemma: of the
    2N + 1 rotations of a random arrangement of N up-steps and N + 1 down-steps exactly one is a
    Dyck word followed by a final down-step (Dvoretzky & Motzkin, 1947)."""
    N = check_int("sample_words", "N", N, minimum=1, maximum=10_000)
    count = check_int("sample_words", "count", count, minimum=0, maximum=10**8)
    validate.seed("sample_words", "seed", seed)
    validate.memory("sample_words", f"the words (count x 2N = {count * 2 * N:.1e} numbers)", 8.0 * count * 2 * N)
    rng = np.random.default_rng(seed)
    out = np.empty((count, 2 * N), dtype=np.int64)
    chunk = max(1, 2_000_000 // (2 * N + 1))
    for start in range(0, count, chunk):
        m = min(chunk, count - start)
        keys = rng.random((m, 2 * N + 1))
        arrangement = np.where(np.argsort(keys, axis=1) < N, 1, -1)  # a uniform shuffle of N ups
        first_min = np.argmin(np.cumsum(arrangement, axis=1), axis=1)
        shift = (np.arange(2 * N + 1)[None, :] + first_min[:, None] + 1) % (2 * N + 1)
        rotated = np.take_along_axis(arrangement, shift, axis=1)
        out[start:start + m] = np.where(rotated[:, :-1] == 1, OPEN, CLOSE)
    return out


@lru_cache(maxsize=64)
def _completions(N: int, ceiling: int) -> np.ndarray:
    """``W[r, h]``: the number of ways to finish a path at height ``h`` after ``r`` steps into a
    word of D_2N without going above ``ceiling`` (floats: exact below 2^53, which holds to N = 28)."""
    n = 2 * N
    W = np.zeros((n + 1, ceiling + 2))
    W[n, 0] = 1.0
    for r in range(n - 1, -1, -1):
        up = np.concatenate([W[r + 1, 1:], [0.0]])
        down = np.concatenate([[0.0], W[r + 1, :-1]])
        W[r] = up + down
        W[r, ceiling + 1] = 0.0
    return W[:, :ceiling + 1]


def depth_counts(N: int) -> dict[int, int]:
    """The exact number of words of D_2N with depth at most h, for h = 1 .. N (a dict h -> count)."""
    N = check_int("depth_counts", "N", N, minimum=1, maximum=28)
    return {h: int(round(_completions(N, h)[0, 0])) for h in range(1, N + 1)}


def sample_by_depth(N: int, count: int, *, min_depth: int = 1, max_depth: int | None = None,
                    seed: int = 0) -> np.ndarray:
    """``count`` words drawn uniformly (with replacement) from the words of D_2N whose depth lies in
    ``[min_depth, max_depth]``: each step is taken with the probability that counts the
    completions on either side (exact, by :func:`_completions`), so no draw is rejected."""
    N = check_int("sample_by_depth", "N", N, minimum=1, maximum=28)
    count = check_int("sample_by_depth", "count", count, minimum=0, maximum=10**8)
    max_depth = N if max_depth is None else check_int("sample_by_depth", "max_depth", max_depth, minimum=1, maximum=N)
    min_depth = check_int("sample_by_depth", "min_depth", min_depth, minimum=1, maximum=max_depth)
    validate.seed("sample_by_depth", "seed", seed)
    validate.memory("sample_by_depth", f"the words and their draws (count x 2N = {count * 2 * N:.1e} numbers)",
                    8.0 * count * 2 * N + 80.0 * count)
    rng = np.random.default_rng(seed)
    n = 2 * N
    below = _completions(N, max_depth)  # paths staying <= max_depth
    under = _completions(N, min_depth - 1) if min_depth > 1 else np.zeros((n + 1, 1))

    def ways(r, h, reached):  # completions from (r, h) ending with depth in the band
        total = below[r, np.minimum(h, max_depth)] * (h <= max_depth)
        if min_depth == 1:
            return total
        avoid = np.where(h <= min_depth - 1, under[r, np.minimum(h, min_depth - 1)], 0.0)
        return np.where(reached, total, total - avoid)

    words = np.empty((count, n), dtype=np.int64)
    h = np.zeros(count, dtype=np.int64)
    reached = np.zeros(count, dtype=bool)
    for r in range(n):
        up_h, down_h = h + 1, h - 1
        w_up = ways(r + 1, up_h, reached | (up_h >= min_depth))
        w_down = np.where(down_h >= 0, ways(r + 1, np.maximum(down_h, 0), reached), 0.0)
        go_up = rng.random(count) * (w_up + w_down) < w_up
        words[:, r] = np.where(go_up, OPEN, CLOSE)
        h = np.where(go_up, up_h, down_h)
        reached |= h >= min_depth
    return words


def distinct(words: np.ndarray, limit: int | None = None) -> np.ndarray:
    """The distinct rows of ``words`` in order of first appearance (at most ``limit`` of them)."""
    if not isinstance(words, np.ndarray) or words.ndim != 2:
        validate.fail("distinct", "words", "a two-dimensional numpy array (one word per row)",
                      f"shape {words.shape}" if isinstance(words, np.ndarray) else type(words).__name__,
                      ArgumentTypeError)
    if limit is not None:
        check_int("distinct", "limit", limit, minimum=0)
    _, first = np.unique(words, axis=0, return_index=True)
    kept = words[np.sort(first)]
    return kept if limit is None else kept[:limit]


def peak_prefix(word) -> np.ndarray:
    """The prefix of ``word`` that ends where it first reaches its depth: its depth equals the
    word's, and it is the shortest such prefix. The rule this book uses for the paper's
    "prefixes of depth >= q" (cut rule (a) of the reading notes)."""
    _words("peak_prefix", "word", word, ndim=(1,))
    word = np.asarray(word)
    if word.size == 0:
        validate.fail("peak_prefix", "word", "a non-empty word", word)
    return word[:int(np.argmax(_heights(word))) + 1]


def valid_prefixes(N: int) -> list[np.ndarray]:
    """Every distinct non-empty prefix of a word of D_2N, the full words included (6,916 for
    N = 8), ordered by length and then lexicographically."""
    check_int("valid_prefixes", "N", N, minimum=1, maximum=MAX_ENUMERATED)
    words = all_words(N)
    out = []
    for r in range(1, 2 * N + 1):
        out.extend(np.unique(words[:, :r], axis=0))
    return out
