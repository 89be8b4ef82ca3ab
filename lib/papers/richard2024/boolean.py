"""Figure 1 of Richard (2024, Sec. 2): a decoder trained on Boolean simplification equalities,
tested in sample and out of sample, on expressions as deep as its training data and deeper.

* :func:`make_data`: the held-out simplified forms (Sec. 2.2), a training set per depth whose
  right-hand sides avoid them, and test sets per depth, in sample (right-hand side not held
  out: the paper's definition, which does not require that training saw it) and out of sample
  (right-hand side held out);
* :func:`encode`: the equations ``<start> LHS = RHS <end>`` as one stream cut into windows that
  start at ``<start>``, as the paper's minibatches, with the loss on the right-hand side and
  ``<end>`` only (the paper does not mask; on a CPU budget the loss on the answer learns much
  faster: a stated difference);
* :func:`complete`: greedy completion of ``<start> LHS =`` up to ``<end>``, and
  :func:`accuracy`, the paper's criterion (:func:`~lib.tasks.boolean_expressions.is_correct`);
* :func:`constant_baselines`: the accuracy of always answering ``true`` (or ``false``), which
  a model can reach without simplifying anything.
"""
from __future__ import annotations

import numpy as np
import torch

from ... import validate
from ...models.decoder import generate
from ...tasks import boolean_expressions as bx
from ...tasks.base import IGNORE, Batch

PAD, END, EQUALS = bx.VOCAB[bx.PAD], bx.VOCAB["<end>"], bx.VOCAB["="]
#: the deepest expressions drawn (an expression of depth q has up to 2^q leaves per clause)
MAX_DEPTH = 16
#: the most expressions one call draws per set (the paper draws 2 x 10^6 training equations)
MAX_EXPRESSIONS = 10**7
#: equations :func:`encode` turns into token ids at a time (it holds them as int8 until the end:
#: 2 million equations of depth 6 are 0.9 billion tokens)
ENCODE_CHUNK = 20_000
_IDS = {token: bx.VOCAB[token] for token in bx.VOCAB.tokens}


def _model(owner: str, model):
    if not isinstance(model, torch.nn.Module) or getattr(model, "config", None) is None:
        raise validate.ArgumentTypeError(f"{owner}: model must be a library model (a torch Module with a config), "
                                         f"got {type(model).__name__}")
    return model


def _pairs(owner: str, pairs, nonempty: bool = True) -> list:
    """A list of (LHS, RHS) string pairs."""
    if isinstance(pairs, (str, bytes)) or not isinstance(pairs, (list, tuple)):
        validate.fail(owner, "pairs", "a list of (LHS, RHS) string pairs", pairs, validate.ArgumentTypeError)
    if nonempty and len(pairs) == 0:
        validate.fail(owner, "pairs", "a non-empty list of (LHS, RHS) pairs", pairs)
    for i, p in enumerate(pairs):
        if not (isinstance(p, (tuple, list)) and len(p) == 2 and all(isinstance(x, str) for x in p)):
            validate.fail(owner, f"pairs[{i}]", "an (LHS, RHS) pair of strings", p, validate.ArgumentTypeError)
    return pairs


def _draw(k: int, q: int, count: int, seed: int, keep) -> list[tuple[str, str]]:
    """``count`` (LHS, RHS) pairs of depth ``q`` whose RHS passes ``keep``, drawn in rounds."""
    pairs, round_ = [], 0
    while len(pairs) < count:
        batch = bx.sample(k, q, max(256, 2 * (count - len(pairs))), seed=seed * 1000 + round_)
        pairs += [p for p in batch if keep(p[1])]
        round_ += 1
        if round_ > 200:
            raise RuntimeError(f"_draw: found only {len(pairs)} of {count} expressions of depth {q} in 200 rounds")
    return pairs[:count]


def make_data(*, k: int, train_depths, test_depths, n_train: int, n_test: int, n_held_out: int = 128,
              pool_per_depth: int = 2000, seed: int = 0, build=None) -> dict:
    """The data of Figure 1. The held-out forms are drawn from the simplified forms of
    ``pool_per_depth`` expressions of every depth used (so they depend on ``train_depths`` and
    ``test_depths``, not on ``n_train``); training sets (``train[q]``) never have a held-out
    right-hand side; ``test[(q, "in")]`` has none either and ``test[(q, "out")]`` only held-out
    ones. ``build`` (default: all of ``train_depths``) names the training sets to draw: one
    point of a sweep needs only its own, and the held-out forms stay those of the whole sweep."""
    owner = "make_data"
    validate.integer(owner, "k", k, 1, 64)
    for name, depths_ in (("train_depths", train_depths), ("test_depths", test_depths)):
        for i, q in enumerate(validate.integers(owner, name, list(depths_) if isinstance(depths_, (set, frozenset))
                                                else depths_, minimum=0)):
            validate.integer(owner, f"{name}[{i}]", q, 0, MAX_DEPTH)
    validate.integer(owner, "n_train", n_train, 1, MAX_EXPRESSIONS)
    validate.integer(owner, "n_test", n_test, 1, MAX_EXPRESSIONS)
    validate.integer(owner, "n_held_out", n_held_out, 1, MAX_EXPRESSIONS)
    validate.integer(owner, "pool_per_depth", pool_per_depth, 1, MAX_EXPRESSIONS)
    validate.seed(owner, "seed", seed)
    if build is not None:
        validate.integers(owner, "build", list(build) if isinstance(build, (set, frozenset)) else build,
                          minimum=0, nonempty=False)
    build = list(train_depths) if build is None else list(build)
    if not set(build) <= set(train_depths):
        raise ValueError(f"make_data: build={build} must be among train_depths={list(train_depths)}")
    depths = sorted(set(train_depths) | set(test_depths))
    pool = [rhs for q in depths for _, rhs in bx.sample(k, q, pool_per_depth, seed=seed * 100 + q)]
    held = bx.held_out_forms(pool, n_held_out, seed=seed)
    train = {q: _draw(k, q, n_train, seed + 10 + q, lambda f: f not in held) for q in build}
    test = {}
    for q in test_depths:
        test[(q, "in")] = _draw(k, q, n_test, seed + 30 + q, lambda f: f not in held)
        test[(q, "out")] = _draw(k, q, n_test, seed + 50 + q, lambda f: f in held)
    return {"held_out": held, "train": train, "test": test}


def encode(pairs, context: int) -> Batch:
    """The training rows of Sec. 2.2: the equations ``<start> LHS = RHS <end>`` concatenated into
    one stream, cut into windows of ``context`` tokens that each start at a ``<start>`` (and need
    not end at an ``<end>``); the next window starts at the first equation the last one cut
    short. Inputs ``window[:-1]``, targets ``window[1:]``, with
    :data:`~lib.tasks.base.IGNORE` everywhere but on right-hand sides and ``<end>`` (the loss
    on the answer only: a stated difference from the paper, which learns faster on a CPU)."""
    _pairs("encode", pairs)
    context = validate.integer("encode", "context", context, 2, validate.MAX_COUNT)
    ids, answers, lengths = [], [], []
    for start in range(0, len(pairs), ENCODE_CHUNK):  # token ids as int8, a chunk of equations at a time
        tokens = [bx.equation(lhs, rhs) for lhs, rhs in pairs[start:start + ENCODE_CHUNK]]
        chunk = np.fromiter((_IDS[t] for e in tokens for t in e), dtype=np.int8)
        sizes = np.array([len(e) for e in tokens])
        first = np.repeat(np.cumsum(sizes) - sizes, sizes)  # each token's equation start
        seen = np.cumsum(chunk == EQUALS)
        # the answer is what follows the equation's '=', through '<end>'
        answers.append((seen - np.concatenate([[0], seen])[first] > 0) & (chunk != EQUALS))
        ids.append(chunk)
        lengths.append(sizes)
    lengths = np.concatenate(lengths)
    if lengths.max() > context:
        raise ValueError(f"encode: an equation has {lengths.max()} tokens, more than context={context}")
    stream = np.concatenate(ids + [np.full(context, PAD, dtype=np.int8)])
    answer = np.concatenate(answers + [np.zeros(context, bool)])
    ends = np.cumsum(lengths)
    starts = ends - lengths
    windows, i = [], 0
    while i < len(lengths):
        windows.append(starts[i])
        fits = np.searchsorted(ends, starts[i] + context, side="right")  # equations that end inside
        i = max(i + 1, int(fits))
    rows = np.lib.stride_tricks.sliding_window_view(stream, context)[windows]
    targets = np.where(np.lib.stride_tricks.sliding_window_view(answer, context)[windows][:, 1:], rows[:, 1:], IGNORE)
    return Batch(x=torch.from_numpy(rows[:, :-1].astype(np.int64)), y=torch.from_numpy(targets.astype(np.int64)))


def prompt(lhs: str) -> np.ndarray:
    """``<start> LHS =`` as token ids: what the model completes."""
    validate.instance("prompt", "lhs", lhs, str)
    return bx.VOCAB.encode(["<start>", *bx.tokenize(lhs), "="]).numpy()


@torch.no_grad()
def complete(model, lhs_list, max_new: int = 128, batch_size: int = 256) -> list[list[str]]:
    """Greedy completions of each ``<start> LHS =``, cut before ``<end>`` (the paper's decoding
    is not stated; greedy is the deterministic choice). Prompts are batched by length, so a
    batch runs only as many steps as its answers need; ``max_new`` (capped by the context) is
    room for the longest simplified form of any function of four variables (95 tokens)."""
    _model("complete", model)
    if isinstance(lhs_list, (str, bytes)) or not isinstance(lhs_list, (list, tuple)):
        validate.fail("complete", "lhs_list", "a list of expressions (strings)", lhs_list, validate.ArgumentTypeError)
    for i, lhs in enumerate(lhs_list):
        validate.instance("complete", f"lhs_list[{i}]", lhs, str)
    max_new = validate.integer("complete", "max_new", max_new, 1, validate.MAX_COUNT)
    batch_size = validate.integer("complete", "batch_size", batch_size, 1, validate.MAX_COUNT)
    prompts = [prompt(lhs) for lhs in lhs_list]
    order = np.argsort([len(p) for p in prompts], kind="stable")
    out: list[list[str]] = [[] for _ in prompts]
    for start in range(0, len(order), batch_size):
        chunk = order[start:start + batch_size]
        longest = max(len(prompts[i]) for i in chunk)
        limit = min(longest + max_new, model.config.max_len)
        words = generate(model, [prompts[i] for i in chunk], limit, greedy=True, stop=END)
        for row, i in zip(words, chunk):
            answer = bx.VOCAB.decode(row[len(prompts[i]):])
            out[i] = answer[:answer.index("<end>")] if "<end>" in answer else answer
    return out


def accuracy(model, pairs, max_new: int = 128) -> float:
    """The share of ``pairs`` whose greedy answer is correct by the paper's criterion."""
    _model("accuracy", model)
    _pairs("accuracy", pairs)
    validate.integer("accuracy", "max_new", max_new, 1, validate.MAX_COUNT)
    answers = complete(model, [lhs for lhs, _ in pairs], max_new)
    return float(np.mean([bx.is_correct(a, lhs, rhs) for a, (lhs, rhs) in zip(answers, pairs)]))


def constant_baselines(pairs) -> dict[str, float]:
    """Accuracy of answering ``true`` to everything, and ``false``: a model that only knows the
    commonest answers scores this much without simplifying anything."""
    _pairs("constant_baselines", pairs)
    return {c: float(np.mean([rhs == c for _, rhs in pairs])) for c in ("true", "false")}
