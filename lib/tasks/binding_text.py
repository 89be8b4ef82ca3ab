"""A synthetic text corpus of variable bindings, for next-token language modelling.

This is the course's offline stand-in for natural text (Boix-Adsera et al., 2024, Sec. 6 trains
GPT-2 on Wikitext, which cannot be downloaded here). A document is a stream of four-token
statements, either an assignment or a print of a variable assigned earlier::

    x3 = c7 ;  x1 = c2 ;  print x3 c7 ;  x3 = c0 ;  print x3 c0 ; ...

Variable and value names, and which statement comes next, are uniformly random; the token after
a printed variable is the value most recently bound to it, so it is predicted at the variable
itself, whose own earlier occurrences mark where to look. So most of the text is noise a
model can only learn the frequencies of, plus one kind of token (the printed value) that needs
attention to find the last binding of the same variable: a match on token identity, the
mechanism the identity scalings target. The target of every position is the next token
(:data:`~lib.tasks.base.IGNORE` at the last).
"""
from __future__ import annotations

import torch

from .base import IGNORE, ArgumentTypeError, Batch, Task, Vocab, check_int, validate

KEYWORDS = ("=", ";", "print")


class VariableBindingText(Task):
    """Streams of ``x = c ;`` and ``print x c ;`` statements (see the module docstring)."""

    name = "binding_text"
    target = "tokens"

    def __init__(self, n_variables: int = 8, n_values: int = 16, seq_len: int = 64, print_fraction: float = 0.5):
        owner = "VariableBindingText"
        self.n_variables = check_int(owner, "n_variables", n_variables, minimum=1, maximum=1000)
        self.n_values = check_int(owner, "n_values", n_values, minimum=1, maximum=1000)
        self.seq_len = check_int(owner, "seq_len", seq_len, minimum=8, maximum=100_000)
        if self.seq_len % 4:
            raise ValueError(f"{owner}: seq_len must be a multiple of 4 (four-token statements), got {seq_len}")
        self.print_fraction = validate.real(owner, "print_fraction", print_fraction, minimum=0.0, maximum=1.0)
        self.variables = [f"x{i}" for i in range(self.n_variables)]
        self.values = [f"c{i}" for i in range(self.n_values)]
        self.vocab = Vocab(list(KEYWORDS) + self.variables + self.values)
        self.n_classes = len(self.vocab)

    def sample_memory(self, n: int) -> tuple[str, float]:
        """The statements' draws, the sequence and its targets, and the table of bound values."""
        numbers = n * (self.seq_len + self.n_variables)
        return f"the sample (n x (seq_len + n_variables) = {numbers:.1e} numbers)", 8.0 * (4 * numbers)

    def _sample(self, n: int, generator: torch.Generator) -> Batch:
        V = len(KEYWORDS)
        eq, semi, prt = range(V)
        S = self.seq_len // 4
        var = torch.randint(self.n_variables, (n, S), generator=generator)
        val = torch.randint(self.n_values, (n, S), generator=generator)
        wants_print = torch.rand(n, S, generator=generator) < self.print_fraction
        bound = torch.full((n, self.n_variables), -1, dtype=torch.long)  # current value of each variable
        rows = torch.arange(n)
        x = torch.empty(n, S, 4, dtype=torch.long)
        for s in range(S):
            current = bound[rows, var[:, s]]
            printing = wants_print[:, s] & (current >= 0)
            value = torch.where(printing, current, val[:, s])
            x[:, s, 0] = torch.where(printing, torch.full_like(value, prt), V + var[:, s])
            x[:, s, 1] = torch.where(printing, V + var[:, s], torch.full_like(value, eq))
            x[:, s, 2] = V + self.n_variables + value
            x[:, s, 3] = semi
            bound[rows, var[:, s]] = torch.where(printing, current, value)
        x = x.reshape(n, self.seq_len)
        y = torch.full_like(x, IGNORE)
        y[:, :-1] = x[:, 1:]
        return Batch(x, y)

    def answer_positions(self, x: torch.Tensor) -> torch.Tensor:
        """Positions whose next token is a printed value (the variable after ``print``)."""
        if not isinstance(x, torch.Tensor) or x.dim() != 2 or x.is_floating_point():
            validate.fail("VariableBindingText.answer_positions", "x", "an integer tensor of token ids (B, n)",
                          f"shape {tuple(x.shape)}, {x.dtype}" if isinstance(x, torch.Tensor) else type(x).__name__,
                          ArgumentTypeError)
        where = torch.zeros_like(x, dtype=torch.bool)
        where[:, 1:] = x[:, :-1] == self.vocab["print"]
        return where
