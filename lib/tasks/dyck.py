"""Bounded Dyck languages Dyck-(n, k) (Bhattamishra et al., 2024, Sec. 4.1 and App. E, H.1).

Dyck-(n, k) is the set of well-matched strings over ``n`` bracket types in which no prefix has
more than ``k`` brackets open. It is regular: the stacks of height <= k are the live states of
a finite automaton (:func:`dfa`; 7 for Dyck-(2, 2), and a dead state makes 8).

:class:`BoundedDyck` is the paper's binary classification task on strings of exactly ``length``
symbols: positives from the paper's generator (App. H.1), negatives made by corrupting
positives until they leave the language, 50/50. :func:`is_member` is the exact recognizer and
:func:`count_members` the number of members of a length by dynamic programming (2^(N-1) for
Dyck-(2, 2) at even N, the size of Lemma 1's fooling set).

Token ids: the opening bracket of type t is ``2t``, its closing bracket ``2t + 1``, so
Dyck-(2, 2) reads ``( ) [ ]`` = 0 1 2 3. Class 1 = member.
"""
from __future__ import annotations

import itertools
import math
from functools import lru_cache

import numpy as np
import torch

from .. import validate
from .base import MAX_VOCAB, ArgumentTypeError, Batch, Task, Vocab, check_choice, check_int

BRACKETS = ("()", "[]", "{}", "<>")
#: the most transitions :func:`dfa` builds (Python tuples in a dict: about a second and 200 MB at 10^6)
MAX_DFA_TRANSITIONS = 10**6
#: the most steps (length x (depth + 1) updates of exact integers) :func:`count_members` takes
MAX_COUNT_STEPS = 10**8


def bracket_names(n_types: int) -> list[str]:
    """``( ) [ ] { } < >`` for up to four types, ``(1 )1 (2 )2 ...`` beyond."""
    check_int("bracket_names", "n_types", n_types, minimum=1, maximum=MAX_VOCAB // 2)
    if n_types <= len(BRACKETS):
        return [c for pair in BRACKETS[:n_types] for c in pair]
    return [s for t in range(n_types) for s in (f"({t + 1}", f"){t + 1}")]


def is_member(tokens, depth: int) -> bool:
    """Whether a string of token ids (open ``2t``, close ``2t + 1``) is in Dyck-(n, depth)."""
    depth = check_int("is_member", "depth", depth, minimum=0)
    if isinstance(tokens, (str, bytes)) or not hasattr(tokens, "__iter__"):
        raise ArgumentTypeError(f"is_member: tokens must be a sequence of token ids, got {tokens!r}"[:200])
    ids = np.asarray(tokens.tolist() if isinstance(tokens, torch.Tensor) else list(tokens))
    if ids.size and (ids.ndim != 1 or ids.dtype.kind not in "iu"):
        validate.fail("is_member", "tokens", "a one-dimensional sequence of integer token ids", tokens, ArgumentTypeError)
    if ids.size and ids.min() < 0:
        validate.fail("is_member", "tokens", "token ids >= 0", tokens)
    return _is_member(tokens, depth)


def _is_member(tokens, depth: int) -> bool:
    stack: list[int] = []
    for token in tokens:
        token = int(token)
        if token % 2 == 0:
            stack.append(token)
            if len(stack) > depth:
                return False
        elif not stack or stack.pop() != token - 1:
            return False
    return not stack


def dfa(n_types: int, depth: int) -> tuple[list[tuple[int, ...]], dict[tuple[tuple[int, ...], int], tuple[int, ...] | None]]:
    """The recognizer as an automaton: states are the stacks of open-bracket types of height
    <= ``depth`` (the live states), and ``delta[(state, token)]`` is the next stack, or None for
    the dead state. The start and only accepting state is the empty stack ``()``.

    It has ``n^0 + n^1 + ... + n^depth`` states and ``2n`` transitions from each: an input with
    more than :data:`MAX_DFA_TRANSITIONS` transitions is refused (Dyck-(2, 40) would need 2^43)."""
    n_types = check_int("dfa", "n_types", n_types, minimum=1, maximum=MAX_VOCAB // 2)
    depth = check_int("dfa", "depth", depth, minimum=0, maximum=MAX_VOCAB)
    if n_types == 1:
        log_states = math.log10(depth + 1)
    else:  # log10 of (n^(depth+1) - 1) / (n - 1) <= n^(depth+1) / (n - 1), without forming the power
        log_states = (depth + 1) * math.log10(n_types) - math.log10(n_types - 1)
    if log_states + math.log10(2 * n_types) > math.log10(MAX_DFA_TRANSITIONS):
        raise ValueError(f"dfa: Dyck-({n_types}, {depth}) has about 10^{log_states:.1f} states (the stacks of "
                         f"height <= depth), {2 * n_types} transitions each: more than the {MAX_DFA_TRANSITIONS:,} "
                         "this function builds; use a smaller depth or n_types")
    states = [s for h in range(depth + 1) for s in itertools.product(range(n_types), repeat=h)]
    delta = {}
    for state in states:
        for token in range(2 * n_types):
            kind = token // 2
            if token % 2 == 0:
                delta[(state, token)] = state + (kind,) if len(state) < depth else None
            else:
                delta[(state, token)] = state[:-1] if state and state[-1] == kind else None
    return states, delta


def count_members(length: int, n_types: int = 2, depth: int = 2) -> int:
    """|Dyck-(n, k) ∩ Σ^length| by dynamic programming over stack heights (each open bracket has
    n types; a closing bracket is forced by the stack). 2^(N-1) for Dyck-(2, 2) at even N >= 2."""
    length = check_int("count_members", "length", length, minimum=0, maximum=MAX_VOCAB)
    n_types = check_int("count_members", "n_types", n_types, minimum=1, maximum=MAX_VOCAB // 2)
    depth = check_int("count_members", "depth", depth, minimum=0, maximum=MAX_VOCAB)
    if length * (depth + 1) > MAX_COUNT_STEPS:
        raise ValueError(f"count_members: length x (depth + 1) = {length * (depth + 1):,} updates of exact integers "
                         f"exceed the {MAX_COUNT_STEPS:,} this function takes; use a smaller length or depth")
    return _count_members(length, n_types, depth)


@lru_cache(maxsize=None)
def _count_members(length: int, n_types: int, depth: int) -> int:
    ways = [1] + [0] * depth  # ways[h]: prefixes ending at height h
    for _ in range(length):
        new = [0] * (depth + 1)
        for h, w in enumerate(ways):
            if h < depth:
                new[h + 1] += w * n_types
            if h > 0:
                new[h - 1] += w
        ways = new
    return ways[0]


def _check_draw(owner: str, n, generator) -> None:
    check_int(owner, "n", n, minimum=0)
    if not isinstance(generator, torch.Generator):
        raise ArgumentTypeError(f"{owner}: generator must be a torch.Generator, got {type(generator).__name__}")


class BoundedDyck(Task):
    """Membership in Dyck-(n_types, depth) for strings of exactly ``length`` symbols (even).

    ``choice`` is how the generator picks the next symbol when the stack is neither empty nor
    full; App. H.1 says "uniformly between open brackets and the closing bracket", read as one of
    the ``n_types + 1`` symbols at equal odds (``"symbol"``, our default) or open/close at 1/2
    (``"move"``). Negatives: ``c ~ U{1..max(1, length // 10)}`` positions of a positive, each
    either swapped to the other type or flipped open <-> close at 1/2, redrawn until the string
    is not a member.
    """

    name = "bounded_dyck"

    def __init__(self, length: int = 20, n_types: int = 2, depth: int = 2, choice: str = "symbol"):
        owner = "BoundedDyck"
        check_int(owner, "length", length, minimum=2, maximum=MAX_VOCAB)
        check_int(owner, "n_types", n_types, minimum=1, maximum=MAX_VOCAB // 2)
        check_int(owner, "depth", depth, minimum=1, maximum=MAX_VOCAB)
        check_choice(owner, "choice", choice, ("symbol", "move"))
        if length % 2:
            raise ValueError(f"{owner}: length must be even (a member has as many closing as opening brackets), "
                             f"got {length}")
        self.length, self.n_types, self.depth, self.choice = length, n_types, depth, choice
        self.vocab = Vocab(bracket_names(n_types))
        self.seq_len = length
        self.n_classes = 2

    # -- the paper's generator (App. H.1)
    def positives(self, n: int, generator: torch.Generator) -> torch.Tensor:
        """``n`` members of length ``length``: ``length - 2`` free steps (close when the stack is
        full, open when it is empty, else choose), then close what is open or add one pair."""
        _check_draw("BoundedDyck.positives", n, generator)
        validate.memory("BoundedDyck.positives", f"the members and their random draws (n x length = "
                        f"{n * self.length:.1e} numbers)", 20.0 * n * self.length)
        out = torch.empty(n, self.length, dtype=torch.long)
        u = torch.rand(n, self.length, generator=generator)
        kinds = torch.randint(self.n_types, (n, self.length), generator=generator)
        for row in range(n):
            stack: list[int] = []
            for t in range(self.length - 2):
                full, empty = len(stack) == self.depth, not stack
                if full:
                    close = True
                elif empty:
                    close = False
                elif self.choice == "symbol":
                    close = bool(u[row, t] < 1.0 / (self.n_types + 1))
                else:
                    close = bool(u[row, t] < 0.5)
                if close:
                    out[row, t] = 2 * stack.pop() + 1
                else:
                    kind = int(kinds[row, t])
                    stack.append(kind)
                    out[row, t] = 2 * kind
            if stack:  # by parity, exactly two brackets are open; close them
                out[row, -2] = 2 * stack.pop() + 1
                out[row, -1] = 2 * stack.pop() + 1
            else:
                kind = int(kinds[row, -1])
                out[row, -2], out[row, -1] = 2 * kind, 2 * kind + 1
        return out

    def corrupt(self, x: torch.Tensor, generator: torch.Generator) -> torch.Tensor:
        """Non-members made from members ``x`` (App. H.1)."""
        if not isinstance(x, torch.Tensor) or x.dim() != 2 or x.shape[1] != self.length \
                or x.dtype not in (torch.int64, torch.int32):
            validate.fail("BoundedDyck.corrupt", "x", f"an integer tensor of shape (n, {self.length})",
                          tuple(x.shape) if isinstance(x, torch.Tensor) else x, ArgumentTypeError)
        _check_draw("BoundedDyck.corrupt", len(x), generator)
        out = x.clone()
        most = max(1, self.length // 10)
        for row in range(len(out)):
            while True:
                s = x[row].clone()
                c = int(torch.randint(1, most + 1, (1,), generator=generator))
                where = torch.randperm(self.length, generator=generator)[:c]
                for p in where.tolist():
                    token = int(s[p])
                    if float(torch.rand(1, generator=generator)) < 0.5 and self.n_types > 1:
                        other = (token // 2 + 1 + int(torch.randint(self.n_types - 1, (1,), generator=generator))) \
                            % self.n_types
                        s[p] = 2 * other + token % 2  # another type, same direction
                    else:
                        s[p] = token ^ 1  # open <-> close
                if not _is_member(s.tolist(), self.depth):
                    out[row] = s
                    break
        return out

    def _sample(self, n: int, generator: torch.Generator) -> Batch:
        x = self.positives(n, generator)
        y = (torch.rand(n, generator=generator) < 0.5).long()
        negative = y == 0
        if negative.any():
            x[negative] = self.corrupt(x[negative], generator)
        return Batch(x, y)

    def enumerate(self) -> Batch:
        """Every string of the length, labelled by the recognizer (mostly non-members)."""
        if self.length * math.log10(2 * self.n_types) > 7:  # no huge powers: 10^7 > 2,000,000 anyway
            raise ValueError(f"BoundedDyck: about 10^{self.length * math.log10(2 * self.n_types):.0f} strings are "
                             "too many to enumerate; use sample()")
        total = (2 * self.n_types) ** self.length
        if total > 2_000_000:
            raise ValueError(f"BoundedDyck: {total} strings are too many to enumerate; use sample()")
        x = torch.cartesian_prod(*[torch.arange(2 * self.n_types)] * self.length).reshape(-1, self.length)
        y = torch.tensor([_is_member(row, self.depth) for row in x.tolist()], dtype=torch.long)
        return Batch(x, y)

    def describe_target(self, y: torch.Tensor) -> str:
        return "member" if int(y) else "not a member"
