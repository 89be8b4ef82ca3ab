"""Do the assumptions of Mahdavi et al. (2024) hold inside real models? (Sec. 5.1, Table 1,
Figure 1, Appendix J, Table 3), with offline substitutes for ImageNet, ViT-base, Wikipedia,
BERT and GPT-2.

* Images: scikit-learn's handwritten digits (1797 images of 8x8, shipped inside the package),
  cut into 2x2 patches: 16 patches + [CLS] = n = 17 tokens of width d = 64 (n/d = 0.27; ViT-base:
  197/768 = 0.26). A [CLS] input is an indicator vector, so the linear patch embedding learns its
  embedding.
* Text: byte windows of the English help texts that ship with Python (``pydoc_data.topics``,
  about 465k characters), n = 32 tokens of width d = 64.

Every model is a configuration of the shared :class:`~lib.models.AttentionModel` (pre-LayerNorm
blocks with an MLP, learned positions); the layers tested are its embedding ("L0") and the
output of its first block ("L1"), read from the forward cache like Hugging Face's
``hidden_states[0]`` and ``hidden_states[1]``.
"""
from __future__ import annotations

import numpy as np
import torch

from ... import validate
from ...models import AttentionConfig
from ...tasks.base import IGNORE, Batch, make_generator
from ...train import TrainConfig, train
from . import kruskal

WIDTH = 64


# ----------------------------------------------------------------------------- images
def digit_patches(patch: int = 2) -> Batch:
    """The digits as sequences ``[CLS, patch_1, ..., patch_P]`` of vectors of size
    ``patch^2 + 1`` (pixels in [0, 1]; the last coordinate marks [CLS]); ``y`` the digit."""
    validate.integer("digit_patches", "patch", patch, minimum=1, maximum=8)
    from sklearn.datasets import load_digits

    digits = load_digits()
    images = torch.tensor(digits.images, dtype=torch.float32) / 16.0
    N, side = images.shape[0], images.shape[1]
    if side % patch:
        raise ValueError(f"digit_patches: patch must divide {side}, got {patch}")
    tiles = images.reshape(N, side // patch, patch, side // patch, patch).permute(0, 1, 3, 2, 4)
    tiles = tiles.reshape(N, -1, patch * patch)
    cls = torch.zeros(N, 1, patch * patch + 1)
    cls[:, 0, -1] = 1.0
    x = torch.cat([cls, torch.nn.functional.pad(tiles, (0, 1))], 1)
    return Batch(x, torch.tensor(digits.target))


def vit_config(n_layers: int = 1, n_heads: int = 4, d_mlp: int = 2 * WIDTH, input_dim: int = 5,
               n_tokens: int = 17) -> AttentionConfig:
    """A small pre-LN vision transformer read out at [CLS]; ``d_mlp=0, n_heads=1`` gives the
    paper's "Random Attention" (LayerNorm, one head with d_h = d_v = d, skip, no MLP)."""
    owner = "vit_config"
    validate.integer(owner, "n_layers", n_layers, minimum=1, maximum=1000)
    validate.integer(owner, "n_heads", n_heads, minimum=1, maximum=WIDTH)
    if WIDTH % n_heads:
        validate.fail(owner, "n_heads", f"a divisor of the width {WIDTH}", n_heads)
    validate.integer(owner, "d_mlp", d_mlp, minimum=0, maximum=validate.MAX_COUNT)
    validate.integer(owner, "input_dim", input_dim, minimum=1, maximum=validate.MAX_COUNT)
    validate.integer(owner, "n_tokens", n_tokens, minimum=1, maximum=validate.MAX_COUNT)
    d_head = WIDTH if n_heads == 1 else WIDTH // n_heads
    return AttentionConfig(d_model=WIDTH, n_out=10, n_layers=n_layers, n_heads=n_heads, d_head=d_head, d_value=d_head,
                       combine="project", residual=True, d_mlp=d_mlp, norm="pre", input="vectors",
                       input_dim=input_dim, embedding="linear", positions="learned", max_len=n_tokens,
                       readout="first", readout_bias=True)


# ----------------------------------------------------------------------------- text
CLS, MASK = 256, 257  # byte-level vocabulary: 256 bytes, then [CLS] and [MASK]


def text_bytes() -> np.ndarray:
    """Python's bundled help texts as one array of bytes (English prose with some code)."""
    from pydoc_data.topics import topics

    text = "\n\n".join(topics[k] for k in sorted(topics))
    return np.frombuffer(text.encode("utf-8"), dtype=np.uint8)


def text_windows(count: int, length: int, seed: int = 0) -> torch.Tensor:
    """``count`` distinct random windows of ``length`` consecutive bytes, ``(count, length)``
    long. (Distinct, like the paper's examples drawn from different documents: a repeated
    window would be a repeated query, which no Kruskal rank above 1 survives.)"""
    validate.integer("text_windows", "count", count, minimum=1, maximum=validate.MAX_COUNT)
    validate.integer("text_windows", "length", length, minimum=1, maximum=10**5)
    validate.seed("text_windows", "seed", seed)
    data = torch.from_numpy(text_bytes().copy()).long()
    g = make_generator(seed)
    starts = torch.randint(len(data) - length, (2 * count + 100,), generator=g)
    windows = data[starts[:, None] + torch.arange(length)]
    _, first = np.unique(windows.numpy(), axis=0, return_index=True)
    keep = np.sort(first)[:count]
    if len(keep) < count:
        raise ValueError(f"text_windows: only {len(keep)} distinct windows of length {length} found")
    return windows[torch.as_tensor(keep)]


def lm_config(kind: str, n_tokens: int = 32, n_layers: int = 1) -> AttentionConfig:
    """GPT-like (``"gpt"``: causal, next byte) or BERT-like (``"bert"``: bidirectional,
    [CLS] first, masked bytes) pre-LN transformer over bytes."""
    if kind not in ("gpt", "bert"):
        raise ValueError(f"lm_config: kind must be 'gpt' or 'bert', got {kind!r}")
    validate.integer("lm_config", "n_tokens", n_tokens, minimum=1, maximum=validate.MAX_COUNT)
    validate.integer("lm_config", "n_layers", n_layers, minimum=1, maximum=1000)
    return AttentionConfig(d_model=WIDTH, n_out=256, n_layers=n_layers, n_heads=4, d_head=16, d_value=16,
                       combine="project", residual=True, d_mlp=4 * WIDTH, norm="pre", input="tokens",
                       vocab_size=258, embedding="learned", positions="learned", max_len=n_tokens,
                       causal=kind == "gpt", readout="all")


def lm_training_data(kind: str, count: int, n_tokens: int = 32, seed: int = 0, mask_rate: float = 0.15) -> Batch:
    """Next-byte pairs (GPT-like) or [CLS] + masked windows with targets at the masked bytes
    only (BERT-like, the masked-token objective)."""
    owner = "lm_training_data"
    validate.choice(owner, "kind", kind, ("gpt", "bert"))
    validate.integer(owner, "count", count, minimum=1, maximum=validate.MAX_COUNT)
    validate.integer(owner, "n_tokens", n_tokens, minimum=2, maximum=10**5)
    validate.seed(owner, "seed", seed)
    validate.real(owner, "mask_rate", mask_rate, minimum=0.0, maximum=1.0)
    if kind == "gpt":
        w = text_windows(count, n_tokens + 1, seed)
        return Batch(w[:, :-1], w[:, 1:])
    w = text_windows(count, n_tokens - 1, seed)
    g = make_generator(seed + 1)
    masked = torch.rand(w.shape, generator=g) < mask_rate
    x = torch.cat([torch.full((count, 1), CLS), w.masked_fill(masked, MASK)], 1)
    y = torch.cat([torch.full((count, 1), IGNORE), w.masked_fill(~masked, IGNORE)], 1)
    return Batch(x, y)


def lm_probe_inputs(kind: str, count: int, n_tokens: int = 32, seed: int = 1) -> torch.Tensor:
    """Clean inputs for the assumption tests: windows (GPT-like) or [CLS] + window (BERT-like)."""
    validate.choice("lm_probe_inputs", "kind", kind, ("gpt", "bert"))
    validate.integer("lm_probe_inputs", "count", count, minimum=1, maximum=validate.MAX_COUNT)
    validate.integer("lm_probe_inputs", "n_tokens", n_tokens, minimum=2, maximum=10**5)
    validate.seed("lm_probe_inputs", "seed", seed)
    if kind == "gpt":
        return text_windows(count, n_tokens, seed)
    return torch.cat([torch.full((count, 1), CLS), text_windows(count, n_tokens - 1, seed)], 1)


# ----------------------------------------------------------------------------- testing a layer
@torch.no_grad()
def hidden_states(model, x: torch.Tensor) -> list[np.ndarray]:
    """``[L0, L1, ...]``: the embedding and each block's output, ``(T, n, d)`` arrays."""
    validate.instance("hidden_states", "model", model, torch.nn.Module)
    validate.instance("hidden_states", "x", x, torch.Tensor)
    cache: dict = {}
    model(x, cache=cache)
    layers = [cache["embed"]] + [cache[f"layers.{i}.resid_post"] for i in range(model.config.n_layers)]
    return [h.double().cpu().numpy() for h in layers]


def layer_report(states: np.ndarray, query: int, trials: int = 5000, seed: int = 0) -> dict:
    """The paper's tests on one layer's output: the query token at position ``query`` (0 for
    [CLS], -1 for GPT's last token) against all n tokens as the context (self-attention)."""
    states = validate.array("layer_report", "states", states, ndim=3)
    validate.integer("layer_report", "query", query, minimum=-states.shape[1], maximum=states.shape[1] - 1)
    report = kruskal.assumption_report(states[:, query], states, trials=trials, seed=seed)
    report["holds"] = {"general_position": kruskal.holds(report["general_position"]),
                       "assumption_1": kruskal.holds(report["assumption_1"]),
                       "assumption_2": kruskal.holds(report["assumption_2"], all_=True),
                       "assumption_3": kruskal.holds(report["assumption_3"])}
    return report


def train_classifier(config: AttentionConfig, data: Batch, steps: int, seed: int = 0, lr: float = 3e-3,
                     batch_size: int = 64, progress: bool = True):
    """Train one model (AdamW, warm-up + cosine) on ``data``; returns the :class:`~lib.train.Run`."""
    owner = "train_classifier"
    validate.instance(owner, "config", config, AttentionConfig)
    validate.instance(owner, "data", data, Batch)
    validate.integer(owner, "steps", steps, minimum=1)
    validate.seed(owner, "seed", seed)
    validate.real(owner, "lr", lr, above=0.0)
    validate.integer(owner, "batch_size", batch_size, minimum=1, maximum=validate.MAX_COUNT)
    validate.boolean(owner, "progress", progress)
    cfg = TrainConfig(steps=steps, lr=lr, optimizer="adamw", weight_decay=0.01, schedule="warmup_cosine",
                      warmup=max(1, steps // 20), batch_size=batch_size, eval_every=max(1, steps // 5))
    return train(config, [seed], cfg, data, evals={"train": data[:2048]}, progress=progress, desc="train")


def table_1_layers(patch: int = 2, steps: int = 400, seed: int = 0) -> tuple[dict, float]:
    """Table 1's four layers on the digits cut into ``patch x patch`` patches: the embedding, a
    random attention layer with skip (one head, no MLP), block 1 of a random two-block ViT and
    block 1 of one trained here for ``steps`` AdamW steps. Returns the hidden states by layer
    name (``(T, n, d)`` arrays) and the trained model's training accuracy."""
    from ...models import build_model

    validate.integer("table_1_layers", "steps", steps, minimum=1)
    validate.seed("table_1_layers", "seed", seed)
    digits = digit_patches(patch)
    n_tokens, input_dim = digits.x.shape[1], digits.x.shape[2]

    def config(**changes):
        return vit_config(input_dim=input_dim, n_tokens=n_tokens, **changes)

    run = train_classifier(config(n_layers=2), digits, steps=steps, seed=seed)
    layers = {
        "Embedding": hidden_states(build_model(config(n_layers=1), seed=1), digits.x)[0],
        "Random Attention (+skip)": hidden_states(build_model(config(n_layers=1, n_heads=1, d_mlp=0), seed=1),
                                                  digits.x)[1],
        "Random ViT, block 1": hidden_states(build_model(config(n_layers=2), seed=1), digits.x)[1],
        "Trained ViT (ours), block 1": hidden_states(run.model(0), digits.x)[1],
    }
    return layers, float(run.final("train", "acc")[0])


TESTS = (("general_position", "Gen. Pos."), ("assumption_1", "Asm. 1"), ("assumption_2", "Asm. 2"))


def verdict_table(reports: dict, paper: dict, assumption_3: bool = False):
    """Ours beside the paper: for each layer (key of ``reports``) and each test, our verdict with
    its pass rate and the paper's verdict (``paper[key]`` = (Gen. Pos., Asm. 1, Asm. 2)); with
    ``assumption_3``, also our Assumption 3 (the paper's tables do not list it)."""
    import pandas as pd

    validate.instance("verdict_table", "reports", reports, dict)
    validate.instance("verdict_table", "paper", paper, dict)
    validate.boolean("verdict_table", "assumption_3", assumption_3)

    def mark(ok):
        return "✓" if ok else "×"

    rows = {}
    for key, r in reports.items():
        row = {}
        for i, (test, label) in enumerate(TESTS):
            row[f"{label} (ours)"] = f"{mark(r['holds'][test])} {r[test]:.2f}"
            row[f"{label} (paper)"] = mark(paper[key][i])
        if assumption_3:
            row["Asm. 3 (ours)"] = f"{mark(r['holds']['assumption_3'])} {r['assumption_3']:.2f}"
        rows[key] = row
    return pd.DataFrame(rows).T


def agreement(reports: dict, paper: dict) -> dict:
    """Per layer, the tuple of our verdicts (Gen. Pos., Asm. 1, Asm. 2) and whether it equals
    the paper's."""
    validate.instance("agreement", "reports", reports, dict)
    validate.instance("agreement", "paper", paper, dict)
    ours = {key: tuple(r["holds"][test] for test, _ in TESTS) for key, r in reports.items()}
    return {key: (v, v == tuple(paper[key])) for key, v in ours.items()}
