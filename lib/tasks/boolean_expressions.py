"""Boolean-expression simplification (Richard, 2024, Sec. 2 and App. 5.1): equalities
``<start> LHS = RHS <end>`` where LHS is a random nested expression over four variables and RHS
its simplified form.

* :func:`random_clause` is the paper's Algorithm 1 (a clause of maximum depth q: a leaf at
  q <= 0, otherwise two children of depth q - 1 or q - 2 joined by ``&`` or ``|``), and
  :func:`random_expression` joins k clauses, each wrapped in parentheses, by ``&`` or ``|``
  without parentheses at the top, as in the paper's example;
* :func:`truth_table` evaluates an expression (text or tokens) on all 16 assignments as a 16-bit
  mask, with the usual precedence (``¬`` over ``&`` over ``|``: how sympy parses the paper's
  example), and fails loudly on a malformed one;
* :func:`simplify` is the oracle: sympy's ``simplify_logic``, applied once per Boolean function
  (there are only 2^16) through the truth table and cached; :func:`simplify_sympy` applies it to
  the parsed expression directly, the reference the fast oracle is checked against;
* :data:`VOCAB` is the paper's 14 tokens plus a padding token, :func:`tokenize` and
  :func:`equation` turn text into tokens;
* :func:`held_out_forms` draws the 128 simplified forms whose expressions are *out of sample*
  (Sec. 2.2), and :func:`is_correct` is the paper's criterion: the generated RHS is shorter than
  the LHS and logically equivalent to the true simplified form.

Expressions are plain strings with one space around ``&`` and ``|`` and ``¬`` written against
its operand (``(¬p2 & p0)``), as the paper prints them.
"""
from __future__ import annotations

import re
from functools import lru_cache

import numpy as np

from .. import validate
from .base import ArgumentTypeError, Vocab, check_int

VARIABLES = ("p0", "p1", "p2", "p3")
#: the leaves of Algorithm 1: the constants and each variable or its negation
LEAVES = ("true", "false") + tuple(f"{sign}{p}" for p in VARIABLES for sign in ("", "¬"))
#: the paper's 14 tokens (Sec. 2.1), then a padding token for rows of one equation each
TOKENS = ("p0", "p1", "p2", "p3", "<start>", "<end>", "&", "|", "¬", "=", "false", "true", "(", ")")
PAD = "<pad>"
VOCAB = Vocab(TOKENS + (PAD,))
FULL = 0xFFFF  # the truth table of `true`: all 16 assignments
_TOKEN = re.compile(r"<start>|<end>|<pad>|p[0-3]|true|false|[&|¬=()]|\S")
#: the most leaves an expression may have on average: Algorithm 1's clause of depth q has
#: F(q + 2) leaves on average (Fibonacci: each child has depth q - 1 or q - 2), so q <= 27 for one clause
MAX_EXPECTED_LEAVES = 10**6


def expected_leaves(q: int) -> int:
    """The mean number of leaves of :func:`random_clause` ``(q)``: 1 at q <= 0, then
    L(q) = L(q - 1) + L(q - 2) (two children, each of depth q - 1 or q - 2 at even odds)."""
    q = check_int("expected_leaves", "q", q, minimum=0, maximum=10**4)
    a, b = 1, 1  # L(q - 1), L(q) from q = 0 (L(-1) = L(0) = 1)
    for _ in range(q):
        a, b = b, a + b
    return b


def _check_size(owner: str, k: int, q: int) -> None:
    if q > 200 or k * expected_leaves(q) > MAX_EXPECTED_LEAVES:
        raise ValueError(f"{owner}: {k} clause(s) of depth q = {q} have about "
                         f"{k * expected_leaves(min(q, 200)):.1e} leaves on average, more than the "
                         f"{MAX_EXPECTED_LEAVES:,} this generator builds (the size grows like 1.6^q); use a smaller q or k")


def _check_rng(owner: str, rng) -> None:
    if not isinstance(rng, np.random.Generator):
        raise ArgumentTypeError(f"{owner}: rng must be a numpy.random.Generator (np.random.default_rng(seed)), "
                                f"got {type(rng).__name__}")


def _text(owner: str, name: str, value, tokens: bool = False) -> None:
    """A string, or (``tokens=True``) a list or tuple of token strings."""
    if isinstance(value, str):
        return
    if tokens and isinstance(value, (list, tuple)) and all(isinstance(t, str) for t in value):
        return
    validate.fail(owner, name, "a string" + (" or a list of token strings" if tokens else ""), value,
                  ArgumentTypeError)


# ----------------------------------------------------------------------------- generator
def random_clause(q: int, rng: np.random.Generator) -> str:
    """Algorithm 1: a leaf if ``q <= 0``; otherwise ``(left & right)`` or ``(left | right)``
    with probability 1/2 each, where each child is a clause of depth q - 1 or q - 2 with
    probability 1/2 each. (The paper's pseudo-code builds both candidates and keeps one; drawing
    the depth first gives the same distribution.)"""
    q = check_int("random_clause", "q", q, minimum=0)
    _check_size("random_clause", 1, q)
    _check_rng("random_clause", rng)
    return _clause(q, rng)


def _clause(q: int, rng: np.random.Generator) -> str:
    if q <= 0:
        return LEAVES[rng.integers(len(LEAVES))]
    left = _clause(q - 1 - int(rng.integers(2)), rng)
    right = _clause(q - 1 - int(rng.integers(2)), rng)
    return f"({left} {'&' if rng.integers(2) else '|'} {right})"


def random_expression(k: int, q: int, rng: np.random.Generator) -> str:
    """``k`` clauses of maximum depth ``q``, each wrapped in one more pair of parentheses, joined
    left to right by ``&`` or ``|`` at random (Sec. 2.1: "random join the k expressions")."""
    k = check_int("random_expression", "k", k, minimum=1)
    q = check_int("random_expression", "q", q, minimum=0)
    _check_size("random_expression", k, q)
    _check_rng("random_expression", rng)
    return _expression(k, q, rng)


def _expression(k: int, q: int, rng: np.random.Generator) -> str:
    text = f"({_clause(q, rng)})"
    for _ in range(k - 1):
        text += f" {'&' if rng.integers(2) else '|'} ({_clause(q, rng)})"
    return text


# ----------------------------------------------------------------------------- tokens
def tokenize(text: str) -> list[str]:
    """Tokens of an expression or equation; whitespace is not a token, anything outside the
    vocabulary is an error."""
    _text("tokenize", "text", text)
    tokens = _TOKEN.findall(text)
    unknown = [t for t in tokens if t not in VOCAB.tokens]
    if unknown:
        raise ValueError(f"tokenize: {unknown[0]!r} is not one of the tokens {' '.join(TOKENS)}")
    return tokens


def detokenize(tokens) -> str:
    """Text of a token list, spaced as :func:`random_expression` writes it."""
    if isinstance(tokens, (str, bytes)) or not hasattr(tokens, "__iter__"):
        validate.fail("detokenize", "tokens", "a list of token strings", tokens, ArgumentTypeError)
    tokens = list(tokens)
    if not all(isinstance(t, str) for t in tokens):
        validate.fail("detokenize", "tokens", "a list of token strings", tokens, ArgumentTypeError)
    text = " ".join(tokens)
    return text.replace("( ", "(").replace(" )", ")").replace("¬ ", "¬")


def equation(lhs: str, rhs: str) -> list[str]:
    """The training sequence ``<start> LHS = RHS <end>``, as tokens."""
    _text("equation", "lhs", lhs)
    _text("equation", "rhs", rhs)
    return ["<start>", *tokenize(lhs), "=", *tokenize(rhs), "<end>"]


# ----------------------------------------------------------------------------- semantics
#: the truth table of each variable: bit i is the value at assignment i, where p_k = bit 3 - k of i
_VARIABLE_TABLE = {p: sum(1 << i for i in range(16) if (i >> (3 - k)) & 1) for k, p in enumerate(VARIABLES)}


def truth_table(expression) -> int:
    """The expression's values on all 16 assignments of p0..p3, as a 16-bit mask. Precedence
    ``¬`` > ``&`` > ``|`` (sympy's, which gives the paper's example its printed simplification);
    a malformed expression (say a model's output) raises ValueError, as does one nested too deeply
    for the recursive parser."""
    _text("truth_table", "expression", expression, tokens=True)
    tokens = tokenize(expression) if isinstance(expression, str) else list(expression)
    position = 0

    def peek():
        return tokens[position] if position < len(tokens) else None

    def take():
        nonlocal position
        position += 1
        return tokens[position - 1]

    def disjunction():
        value = conjunction()
        while peek() == "|":
            take()
            value |= conjunction()
        return value

    def conjunction():
        value = negation()
        while peek() == "&":
            take()
            value &= negation()
        return value

    def negation():
        if peek() == "¬":
            take()
            return FULL ^ negation()
        return atom()

    def atom():
        token = take() if peek() is not None else None
        if token in _VARIABLE_TABLE:
            return _VARIABLE_TABLE[token]
        if token in ("true", "false"):
            return FULL if token == "true" else 0
        if token == "(":
            value = disjunction()
            if peek() != ")":
                raise ValueError(f"truth_table: expected ')' at token {position} of {detokenize(tokens)!r}")
            take()
            return value
        raise ValueError(f"truth_table: unexpected {token!r} at token {position} of {detokenize(tokens)!r}")

    if not tokens:
        raise ValueError("truth_table: empty expression")
    try:
        value = disjunction()
    except RecursionError:
        raise ValueError(f"truth_table: expression must be nested less deeply than Python's recursion limit "
                         f"allows, got {len(tokens)} tokens nested too deeply") from None
    if position != len(tokens):
        raise ValueError(f"truth_table: unexpected {tokens[position]!r} at token {position} of {detokenize(tokens)!r}")
    return value


def _symbols():
    import sympy

    return sympy.symbols(" ".join(VARIABLES))


def _print(expr) -> str:
    """sympy's printing in the paper's symbols: ``~`` -> ``¬``, ``True`` -> ``true``."""
    return str(expr).replace("~", "¬").replace("True", "true").replace("False", "false")


def simplify_table(table: int) -> str:
    """The simplified form of the Boolean function with this truth table: sympy's
    ``simplify_logic`` of its sum of minterms (cached: there are 2^16 functions)."""
    return _simplify_table(check_int("simplify_table", "table", table, minimum=0, maximum=FULL))


@lru_cache(maxsize=None)
def _simplify_table(table: int) -> str:
    from sympy.logic.boolalg import SOPform, simplify_logic

    if table in (0, FULL):
        return "true" if table else "false"
    minterms = [[(i >> (3 - k)) & 1 for k in range(4)] for i in range(16) if (table >> i) & 1]
    return _print(simplify_logic(SOPform(list(_symbols()), minterms)))


def simplify(expression: str) -> str:
    """The oracle of Sec. 2.1: the simplified form of ``expression``, through its truth table
    (fast; agrees with :func:`simplify_sympy`, which the tests check)."""
    _text("simplify", "expression", expression)
    return _simplify_table(truth_table(expression))


def simplify_sympy(expression: str) -> str:
    """sympy's ``simplify_logic`` on the parsed expression itself: the paper's oracle, literally
    (slow: tens to hundreds of expressions a second)."""
    from sympy.logic.boolalg import simplify_logic
    from sympy.parsing.sympy_parser import parse_expr

    _text("simplify_sympy", "expression", expression)
    truth_table(expression)  # only the paper's tokens, well formed: parse_expr evaluates its text
    text = expression.replace("¬", "~").replace("true", "True").replace("false", "False")
    return _print(simplify_logic(parse_expr(text, local_dict=dict(zip(VARIABLES, _symbols())))))


# ----------------------------------------------------------------------------- data and metric
def sample(k: int, q: int, count: int, seed: int = 0) -> list[tuple[str, str]]:
    """``count`` (LHS, RHS) pairs: random expressions of ``k`` clauses of depth ``q`` and their
    simplified forms, deterministic given ``seed``: the pairs of ``random_expression(k, q, rng)``
    and :func:`simplify` drawn one after the other from ``rng = np.random.default_rng(seed)``,
    made about four times faster (:class:`_Draws`, and each clause's truth table computed as it is
    built instead of parsed back; ``tests/test_boolean_expressions.py`` checks the pairs equal)."""
    k = check_int("sample", "k", k, minimum=1)
    q = check_int("sample", "q", q, minimum=0)
    count = check_int("sample", "count", count, minimum=0)
    validate.seed("sample", "seed", seed)
    _check_size("sample", k, q)
    chars = 12 * k * expected_leaves(q)
    validate.memory("sample", f"the equations (count x about {chars} characters = {count * chars:.1e} characters)",
                    2.0 * count * (chars + 100))
    draw = _Draws(np.random.default_rng(seed))
    pairs = []
    for _ in range(count):
        lhs, table = _expression_and_table(k, q, draw)
        pairs.append((lhs, _simplify_table(table)))
    return pairs


class _Draws:
    """The values ``rng.integers(n)`` returns one call at a time (n < 2^32), from the generator's
    raw 64-bit words read in blocks: numpy's Generator takes each such draw from the next 32-bit
    half of its stream (low half first) by Lemire's multiply-and-shift with rejection
    (``buffered_bounded_lemire_uint32`` in numpy's ``distributions.c``). A Python call to
    ``Generator.integers`` costs about a microsecond; this costs a tenth of that. The stream
    equals the scalar calls' (tested); only the generator's state afterwards differs, and
    :func:`sample` does not use it again."""

    BLOCK = 1 << 13  # raw 64-bit words read at a time

    def __init__(self, rng: np.random.Generator):
        self.rng, self.halves, self.i = rng, [], 0

    def __call__(self, n: int) -> int:
        m = self._next() * n
        if (m & 0xFFFFFFFF) < n:  # Lemire's rejection (never taken when n is a power of two)
            threshold = (0x100000000 - n) % n
            while (m & 0xFFFFFFFF) < threshold:
                m = self._next() * n
        return m >> 32

    def _next(self) -> int:
        if self.i == len(self.halves):
            raw = self.rng.bit_generator.random_raw(self.BLOCK)
            halves = np.empty(2 * self.BLOCK, dtype=np.uint64)
            halves[0::2], halves[1::2] = raw & 0xFFFFFFFF, raw >> 32
            self.halves, self.i = halves.tolist(), 0
        self.i += 1
        return self.halves[self.i - 1]


def _leaf_table(leaf: str) -> int:
    if leaf in ("true", "false"):
        return FULL if leaf == "true" else 0
    return FULL ^ _VARIABLE_TABLE[leaf[1:]] if leaf.startswith("¬") else _VARIABLE_TABLE[leaf]


_LEAF_TABLES = {leaf: _leaf_table(leaf) for leaf in LEAVES}


def _clause_and_table(q: int, draw: _Draws) -> tuple[str, int]:
    """:func:`_clause` with the same draws in the same order, and the clause's truth table."""
    if q <= 0:
        leaf = LEAVES[draw(len(LEAVES))]
        return leaf, _LEAF_TABLES[leaf]
    left, a = _clause_and_table(q - 1 - draw(2), draw)
    right, b = _clause_and_table(q - 1 - draw(2), draw)
    return (f"({left} & {right})", a & b) if draw(2) else (f"({left} | {right})", a | b)


def _expression_and_table(k: int, q: int, draw: _Draws) -> tuple[str, int]:
    """:func:`_expression` with the same draws, and its truth table: the k clauses joined left
    to right at the top, ``&`` before ``|`` (:func:`truth_table`'s precedence)."""
    text, table = _clause_and_table(q, draw)
    text, conjunction, disjunction = f"({text})", table, 0
    for _ in range(k - 1):
        conj = draw(2)
        clause, table = _clause_and_table(q, draw)
        text += f" {'&' if conj else '|'} ({clause})"
        if conj:
            conjunction &= table
        else:
            disjunction, conjunction = disjunction | conjunction, table
    return text, disjunction | conjunction


def held_out_forms(forms, count: int = 128, seed: int = 0) -> frozenset[str]:
    """Sec. 2.2's held-out set: ``count`` distinct simplified forms drawn uniformly from the
    distinct non-constant forms in ``forms``. Expressions whose simplified form is held out are
    *out of sample*: no training equation has that right-hand side. (The paper does not say how
    it drew its 128; the constants are never held out here, or the out-of-sample set would be
    mostly ``true`` and ``false``.)"""
    count = check_int("held_out_forms", "count", count, minimum=1)
    validate.seed("held_out_forms", "seed", seed)
    if isinstance(forms, (str, bytes)) or not hasattr(forms, "__iter__"):
        validate.fail("held_out_forms", "forms", "a collection of simplified forms (strings)", forms, ArgumentTypeError)
    forms = list(forms)
    if not all(isinstance(f, str) for f in forms):
        validate.fail("held_out_forms", "forms", "a collection of strings", forms, ArgumentTypeError)
    pool = sorted({f for f in forms if f not in ("true", "false")})
    if len(pool) < count:
        raise ValueError(f"held_out_forms: only {len(pool)} distinct non-constant forms to draw {count} from")
    chosen = np.random.default_rng(seed).choice(len(pool), count, replace=False)
    return frozenset(pool[i] for i in chosen)


def is_correct(generated, lhs, rhs: str) -> bool:
    """The paper's criterion (Sec. 2.2): the generated right-hand side (tokens or text, up to
    ``<end>``) has fewer tokens than the LHS and is logically equivalent to the true simplified
    form ``rhs``; an expression that does not parse is wrong."""
    _text("is_correct", "generated", generated, tokens=True)
    _text("is_correct", "lhs", lhs, tokens=True)
    _text("is_correct", "rhs", rhs)
    tokens = tokenize(generated) if isinstance(generated, str) else list(generated)
    lhs_tokens = tokenize(lhs) if isinstance(lhs, str) else list(lhs)
    if not tokens or len(tokens) >= len(lhs_tokens):
        return False
    try:
        return truth_table(tokens) == truth_table(rhs)
    except ValueError:
        return False
