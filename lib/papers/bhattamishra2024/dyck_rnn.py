"""A constant-size ReLU RNN that recognizes Dyck-(n, k) (Bhattamishra et al., 2024, Sec. 4.1: the
upper bound for recurrent models, after their refs. [6, 25]), loaded into the library's
recurrent family (:class:`lib.models.RecurrentModel`, ``cell="elman"``, ReLU).

The automaton of :func:`lib.tasks.dyck.dfa` has the stacks of height <= k as live states plus a
dead state (8 for Dyck-(2, 2)). The network has one unit per (state q, symbol c), ``|Q| |Σ|``
units (32), with one-hot token inputs. Unit (q, c) fires (= 1) exactly when the state before
reading the current symbol was q and the symbol is c:

    u_t[(q, c)] = relu( sum_{(q', c'): delta(q', c') = q} u_{t-1}[(q', c')] + onehot(x_t)[c] - 1 ),

so at most one unit is on at every step, and it names the last transition. The initial state is
a unit whose transition leads to the empty stack; the read-out sums the units whose transition
ends in the empty stack (class 1) against a constant 1/2 (class 0). Width and weights do not
depend on the length: this is the constant-size RNN that the 1-layer transformer lower bound
(Theorem 5) is set against.
"""
from __future__ import annotations

import torch

from ... import validate
from ...models import RecurrentConfig, RecurrentModel, build_model
from ...tasks.dyck import dfa


def dyck_rnn(n_types: int = 2, depth: int = 2, max_len: int = 4096, dtype: torch.dtype = torch.float64) -> RecurrentModel:
    """The exact ReLU RNN for Dyck-(n_types, depth), reading strings of up to ``max_len`` tokens."""
    n_types = validate.integer("dyck_rnn", "n_types", n_types, minimum=1, maximum=8)
    depth = validate.integer("dyck_rnn", "depth", depth, minimum=1, maximum=8)
    validate.integer("dyck_rnn", "max_len", max_len, minimum=1, maximum=validate.MAX_COUNT)
    validate.dtype("dyck_rnn", "dtype", dtype)
    live, delta = dfa(n_types, depth)
    states = live + [None]  # None: the dead state
    V = 2 * n_types
    units = [(q, c) for q in states for c in range(V)]
    index = {u: i for i, u in enumerate(units)}
    H = len(units)

    def step(q, c):
        return None if q is None else delta[(q, c)]

    config = RecurrentConfig(d_model=H, n_out=2, cell="elman", activation="relu", vocab_size=V, embedding="onehot",
                             max_len=max_len, readout="last", readout_bias=True)
    W_hh = torch.zeros(H, H, dtype=torch.float64)
    W_ih = torch.zeros(H, H, dtype=torch.float64)
    for (q_prev, c_prev), i in index.items():
        nxt = step(q_prev, c_prev)
        for c in range(V):
            W_hh[i, index[(nxt, c)]] = 1.0  # the state after (q', c') is the state before the next symbol
    for (q, c), j in index.items():
        W_ih[c, j] = 1.0  # token one-hot sits in rows [0, V)
    start = next(u for u in units if step(*u) == ())  # a transition into the empty stack: ("(",) reads ")"
    h0 = torch.zeros(H, dtype=torch.float64)
    h0[index[start]] = 1.0
    W_U = torch.zeros(H, 2, dtype=torch.float64)
    for u, i in index.items():
        if step(*u) == ():
            W_U[i, 1] = 1.0
    weights = {"layers.0.W_ih": W_ih, "layers.0.W_hh": W_hh, "layers.0.b_h": -torch.ones(H, dtype=torch.float64),
               "layers.0.b_h0": h0, "W_U": W_U, "b_U": torch.tensor([0.5, 0.0], dtype=torch.float64)}
    return build_model(config, dtype=dtype).set_weights(weights)
