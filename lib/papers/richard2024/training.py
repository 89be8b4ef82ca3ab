"""Training decoders on Dyck words and measuring depth extrapolation (Richard 2024, Sec. 4.2,
App. 5.3), with the shared trainer and the library's decoder.

* data: :func:`word_set` (distinct words of bounded depth, enumerated or sampled),
  :func:`as_batch` (next-token targets, one word per row), :func:`tiled` (sets of different
  sizes as equal-sized per-member data, each word equally likely);
* prompts: :func:`deep_prefixes` (distinct words of depth >= q cut at their peak) and
  :func:`random_prefixes` (random cuts of training words: the in-sample test);
* :func:`completion_accuracy`: the paper's metric, the share of sampled completions that are
  Dyck words;
* the paper's recipe scaled down (:data:`RECIPE`, nanoGPT's AdamW settings),
  :func:`train_on_words` and :func:`best_lr` (a rate grid read at its lowest training loss);
* readings of trained models: :func:`ov_matrix` (Figure 5), :func:`positional_paths`
  (Figure 7), :func:`kmeans`.
"""
from __future__ import annotations

import math
import numbers

import numpy as np
import torch

from ... import validate
from ...models.decoder import generate
from ...tasks import dyck_words
from ...tasks.base import Batch
from ...train import TrainConfig, train

#: nanoGPT's optimiser (AdamW, betas 0.9/0.95, weight decay 0.1, warm-up then cosine, clip 1)
RECIPE = dict(optimizer="adamw", betas=(0.9, 0.95), weight_decay=0.1, schedule="warmup_cosine", grad_clip=1.0)
#: the largest N whose words are drawn (the exact path counts of the sampler hold to N = 28)
MAX_N = 28
#: the most words one call draws (the sampler's own limit is 10^8 draws, twice the count plus 64)
MAX_WORDS = 10**7


def _words(owner: str, name: str, value, *, min_len: int = 1) -> np.ndarray:
    """A non-empty ``(m, n)`` integer array of token ids (>= 0), ``n >= min_len``; floats, bools
    and strings are refused (``np.asarray(..., int64)`` would truncate them without a word)."""
    if isinstance(value, (str, bytes)) or value is None:
        validate.fail(owner, name, "a 2-d array of integer token ids", value, validate.ArgumentTypeError)
    try:
        raw = np.asarray(value.detach().cpu() if hasattr(value, "detach") else value)
    except (TypeError, ValueError):
        raise validate.ArgumentTypeError(f"{owner}: {name} must be a 2-d array of integer token ids, "
                                         f"got {type(value).__name__}") from None
    if raw.dtype.kind not in "iu":
        validate.fail(owner, name, "a 2-d array of integer token ids", value, validate.ArgumentTypeError)
    if raw.ndim != 2 or raw.shape[0] < 1 or raw.shape[1] < min_len:
        validate.fail(owner, name, f"a non-empty 2-d array of words of at least {min_len} tokens", f"shape {raw.shape}")
    if raw.min() < 0:
        validate.fail(owner, name, "token ids >= 0", int(raw.min()))
    return raw


def _model(owner: str, model):
    if not isinstance(model, torch.nn.Module) or getattr(model, "config", None) is None:
        raise validate.ArgumentTypeError(f"{owner}: model must be a library model (a torch Module with a config), "
                                         f"got {type(model).__name__}")
    return model


def word_set(N: int, count: int | None, *, max_depth: int | None = None, min_depth: int = 1, seed: int = 0,
             exclude: np.ndarray | None = None) -> np.ndarray:
    """``count`` distinct words of D_2N with depth in ``[min_depth, max_depth]`` (all of them if
    ``count`` is None), drawn uniformly without replacement and in random order; enumerated for
    N <= 13, sampled beyond. ``exclude``: words that must not appear (a test set)."""
    owner = "word_set"
    N = validate.integer(owner, "N", N, 1, MAX_N)
    if count is not None:
        count = validate.integer(owner, "count", count, 1, MAX_WORDS)
        validate.memory(owner, f"the draws (2 count + 64 x 2N = {(2 * count + 64) * 2 * N:.1e} numbers)",
                        8.0 * (2 * count + 64) * 2 * N)
    if max_depth is not None:
        max_depth = validate.integer(owner, "max_depth", max_depth, 1, N)
    min_depth = validate.integer(owner, "min_depth", min_depth, 1, N if max_depth is None else max_depth)
    validate.seed(owner, "seed", seed)
    if exclude is not None and not (hasattr(exclude, "__len__") and len(exclude) == 0):
        exclude = _words(owner, "exclude", exclude)
        if exclude.shape[1] != 2 * N:
            validate.fail(owner, "exclude", f"words of length 2N = {2 * N}", f"shape {exclude.shape}")
    rng = np.random.default_rng(seed)
    max_depth = N if max_depth is None else max_depth
    if N <= dyck_words.MAX_ENUMERATED:
        words = dyck_words.all_words(N)
        depth = dyck_words.depth(words)
        pool = words[(depth >= min_depth) & (depth <= max_depth)]
        if exclude is not None and len(exclude):
            taken = {w.tobytes() for w in np.asarray(exclude, dtype=np.int64)}
            pool = pool[[w.tobytes() not in taken for w in pool]]
        pool = pool[rng.permutation(len(pool))]
        if count is not None and count > len(pool):
            raise ValueError(f"word_set: only {len(pool):,} words of D_{2 * N} have depth in [{min_depth}, "
                             f"{max_depth}]; asked for {count:,}")
        return pool if count is None else pool[:count]
    if count is None:
        raise ValueError(f"word_set: D_{2 * N} is too large to take every word; give a count")
    drawn = dyck_words.sample_by_depth(N, 2 * count + 64, min_depth=min_depth, max_depth=max_depth,
                                       seed=int(rng.integers(2**31)))
    kept = dyck_words.distinct(drawn)
    if exclude is not None and len(exclude):
        taken = {w.tobytes() for w in np.asarray(exclude, dtype=np.int64)}
        kept = kept[[w.tobytes() not in taken for w in kept]]
    if len(kept) < count:
        raise ValueError(f"word_set: found {len(kept):,} distinct words of depth in [{min_depth}, {max_depth}] "
                         f"in {len(drawn):,} draws; asked for {count:,} (the band may hold fewer)")
    return kept[:count]


def as_batch(words) -> Batch:
    """Next-token prediction on whole words: inputs ``w[:-1]``, targets ``w[1:]``."""
    words = _words("as_batch", "words", words, min_len=2)
    words = torch.as_tensor(np.asarray(words, dtype=np.int64))
    return Batch(x=words[:, :-1], y=words[:, 1:])


def tiled(words: np.ndarray, size: int) -> np.ndarray:
    """``words`` repeated to ``size`` rows (a set of m distinct words as data of any size, each
    word drawn with probability 1/m), so sets of different sizes train as one ensemble."""
    words = _words("tiled", "words", words)
    size = validate.integer("tiled", "size", size, 1, validate.MAX_ELEMENTS)
    validate.memory("tiled", f"the tiled words (size x n = {size * words.shape[1]:.1e} numbers)",
                    8.0 * size * words.shape[1])
    return np.resize(words, (size, words.shape[1]))


def deep_prefixes(N: int, min_depth: int, count: int, seed: int = 0) -> list[np.ndarray]:
    """Peak prefixes (:func:`~lib.tasks.dyck_words.peak_prefix`) of ``count`` distinct words of
    depth >= ``min_depth`` (all of them if fewer exist): prompts as deep as the test words."""
    N = validate.integer("deep_prefixes", "N", N, 1, MAX_N)
    min_depth = validate.integer("deep_prefixes", "min_depth", min_depth, 1, N)
    count = validate.integer("deep_prefixes", "count", count, 1, MAX_WORDS)
    validate.seed("deep_prefixes", "seed", seed)
    enumerable = N <= dyck_words.MAX_ENUMERATED
    words = word_set(N, None if enumerable else count, min_depth=min_depth, seed=seed)[:count]
    return [dyck_words.peak_prefix(w) for w in words]


def random_prefixes(words: np.ndarray, count: int, seed: int = 0) -> list[np.ndarray]:
    """``count`` prefixes of training words cut at a uniform position 1 .. 2N - 1 (the words drawn
    uniformly with replacement): the in-sample test."""
    words = _words("random_prefixes", "words", words, min_len=2)
    count = validate.integer("random_prefixes", "count", count, 1, MAX_WORDS)
    validate.seed("random_prefixes", "seed", seed)
    rng = np.random.default_rng(seed)
    rows = rng.integers(0, len(words), count)
    cuts = rng.integers(1, words.shape[1], count)
    return [words[i, :c] for i, c in zip(rows, cuts)]


def completion_accuracy(model, prefixes: list[np.ndarray], N: int, *, seed: int = 0) -> float:
    """The share of prefixes whose sampled completion (temperature 1) is a word of D_2N."""
    owner = "completion_accuracy"
    _model(owner, model)
    N = validate.integer(owner, "N", N, 1, validate.MAX_COUNT)
    validate.seed(owner, "seed", seed)
    if isinstance(prefixes, (str, bytes)) or not isinstance(prefixes, (list, tuple, np.ndarray)):
        validate.fail(owner, "prefixes", "a list of 1-d integer arrays", prefixes, validate.ArgumentTypeError)
    if len(prefixes) == 0:
        validate.fail(owner, "prefixes", "a non-empty list of prefixes (the share of none is undefined)", prefixes)
    return float(dyck_words.is_valid(generate(model, prefixes, 2 * N, seed=seed)).mean())


def train_on_words(model, seeds, data, *, steps: int, lr: float, batch_size: int | None, warmup: int,
                   device=None, stop_after: int | None = None, **recipe):
    """Train decoders (a config, or one per member) on words: ``data`` is one array of words shared
    by every member, or one array per member (of equal lengths: see :func:`tiled`)."""
    if isinstance(data, np.ndarray):
        _words("train_on_words", "data", data, min_len=2)
    else:
        if isinstance(data, (str, bytes)) or not isinstance(data, (list, tuple)) or not data:
            validate.fail("train_on_words", "data", "an array of words or a non-empty list of them", data,
                          validate.ArgumentTypeError if not isinstance(data, (list, tuple)) else ValueError)
        for i, d in enumerate(data):
            _words("train_on_words", f"data[{i}]", d, min_len=2)
    settings = {**RECIPE, **recipe}
    config = TrainConfig(steps=steps, lr=lr, batch_size=batch_size, warmup=warmup, eval_every=steps, **settings)
    batches = as_batch(data) if isinstance(data, np.ndarray) else [as_batch(d) for d in data]
    return train(model, list(seeds), config, batches, device=device, progress=False, stop_after=stop_after)


def best_lr(lrs, final_losses) -> float:
    """The learning rate whose members (seeds) have the lowest mean final training loss: a sweep
    over rates is read at its best rate, chosen on training data, never on the test. A rate with a
    diverged member (a NaN or infinite loss) is never chosen; if every rate has one, this fails."""
    owner = "best_lr"
    for name, values in (("lrs", lrs), ("final_losses", final_losses)):
        if isinstance(values, (str, bytes)) or not isinstance(values, (list, tuple, np.ndarray)):
            validate.fail(owner, name, "a list of numbers", values, validate.ArgumentTypeError)
        if len(values) == 0:
            validate.fail(owner, name, "a non-empty list of numbers", values)
    if len(lrs) != len(final_losses):
        validate.fail(owner, "final_losses", f"one loss per learning rate ({len(lrs)} of them)",
                      f"{len(final_losses)} losses")
    for i, lr in enumerate(lrs):
        validate.real(owner, f"lrs[{i}]", lr, above=0)
    for i, loss in enumerate(final_losses):
        if isinstance(loss, (bool, np.bool_)) or not isinstance(loss, numbers.Real):
            validate.fail(owner, f"final_losses[{i}]", "a number", loss, validate.ArgumentTypeError)
    diverged = {r for r, l in zip(lrs, final_losses) if not math.isfinite(l)}
    if len(diverged) == len(dict.fromkeys(lrs)):
        raise ValueError(f"best_lr: every learning rate has a diverged run (NaN or infinite final loss): lrs={list(lrs)}, "
                         f"final_losses={list(final_losses)}; there is no rate to choose")
    lrs, final_losses = zip(*[(r, l) for r, l in zip(lrs, final_losses) if r not in diverged])
    means = {lr: float(np.mean([l for r, l in zip(lrs, final_losses) if r == lr])) for lr in dict.fromkeys(lrs)}
    return min(means, key=means.get)


#: the two ways to read Figure 5's "value times projection" matrix off a decoder
OV_CONVENTIONS = ("circuit", "nanogpt_literal")


def ov_matrix(model, layer: int = -1, convention: str = "circuit") -> np.ndarray:
    """A layer's value-output matrix (``d x d``), Figure 5's "value times projection":

    * ``"circuit"``: the map the layer applies, ``x -> x sum_h W_V[h] W_O[h]`` (what the
      residual stream sees; nanoGPT's ``c_attn`` value rows transposed, times ``c_proj``'s
      weight transposed);
    * ``"nanogpt_literal"``: the product of nanoGPT's two weight matrices as stored,
      ``W_v W_proj^T`` (``W_v``: ``c_attn``'s value rows, ``W_proj``: ``c_proj.weight``), which
      pairs the heads' output coordinates with the model's input ones; it needs ``H d_head = d``.
      Its eigenvalues differ from the circuit's, so the paper's reading depends on which it took."""
    _model("ov_matrix", model)
    convention = validate.choice("ov_matrix", "convention", convention, OV_CONVENTIONS)
    layers = len(model.layers)
    layer = validate.integer("ov_matrix", "layer", layer, -layers, layers - 1)
    attn = model.layers[layer].attn
    W_V = attn.W_V.detach().double()
    if getattr(attn, "W_O", None) is None:
        return W_V.mean(0).numpy()
    if convention == "circuit":
        return torch.einsum("hde,hef->df", W_V, attn.W_O.detach().double()).numpy()
    H, d, e = W_V.shape
    if H * e != d:
        validate.fail("ov_matrix", "model", f"heads x d_head = d_model for nanoGPT's literal product ({H} x {e} != {d})",
                      type(model).__name__)
    W_v = W_V.permute(0, 2, 1).reshape(H * e, d)  # c_attn's value rows: head by head, (H e, d)
    W_proj = attn.W_O.detach().double().reshape(H * e, d).T  # c_proj.weight: (d, H e)
    return (W_v @ W_proj.T).numpy()


def positional_paths(model) -> np.ndarray:
    """Figure 7's curves: for each coordinate j of the learned positional embedding, the cumulative
    sum over positions ``r -> sum_{i<=r} B_{i,j}``; shape ``(d, n)``."""
    _model("positional_paths", model)
    if getattr(model.config, "positions", None) == "none":
        validate.fail("positional_paths", "model", "a model with a positional embedding", "positions='none'")
    return np.cumsum(model.get_weight("W_pos").double().numpy(), axis=0).T


def kmeans(points: np.ndarray, k: int, *, seed: int = 0, iterations: int = 100) -> tuple[np.ndarray, np.ndarray]:
    """Lloyd's k-means (k-means++ start) on the rows of ``points``: labels and centroids."""
    owner = "kmeans"
    points = validate.array(owner, "points", points, ndim=2)
    if points.shape[0] < 1 or points.shape[1] < 1:
        validate.fail(owner, "points", "a non-empty (m, d) array", f"shape {points.shape}")
    k = validate.integer(owner, "k", k, 1, len(points))
    validate.seed(owner, "seed", seed)
    iterations = validate.integer(owner, "iterations", iterations, 1, validate.MAX_COUNT)
    validate.memory(owner, f"the distances (m x k x d = {points.size * k:.1e} numbers)", 8.0 * points.size * k)
    rng = np.random.default_rng(seed)
    points = np.asarray(points, dtype=np.float64)
    centroids = [points[rng.integers(len(points))]]
    for _ in range(1, min(k, len(points))):
        d2 = np.min([((points - c) ** 2).sum(1) for c in centroids], axis=0)
        centroids.append(points[rng.choice(len(points), p=d2 / d2.sum())] if d2.sum() > 0 else points[0])
    centroids = np.array(centroids)
    for _ in range(iterations):
        labels = ((points[:, None] - centroids[None]) ** 2).sum(-1).argmin(1)
        new = np.array([points[labels == j].mean(0) if (labels == j).any() else centroids[j]
                        for j in range(len(centroids))])
        if np.allclose(new, centroids):
            break
        centroids = new
    return labels, centroids
