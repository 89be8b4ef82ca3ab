"""The one-layer impossibility results checked numerically (Sec. 11, Theorems 2 and 4): the
dependence identity on random one-layer models, Lemmas 5-7 on whole tasks, and the small
float64 trainings that cannot beat the bounds. Used by the limits chapter and its checks (never
imported by the sweeps)."""
from __future__ import annotations

import numpy as np
import pandas as pd
import torch

from ... import validate
from ...models import build_model
from ...tasks import Batch
from ...train import TrainConfig, train
from .constructions import paper_config
from .dependence import (dependence_residual, is_dependent, softmax_normalizers, strict_accuracy, strict_correct,
                         template_weights)


def identity_residuals(qa_task, toy, lam, tm_task, tm_toy, tm_lam, heads=(1, 2, 4, 16), seeds=range(5)) -> pd.DataFrame:
    """Propositions 7-10 on random one-layer models (float64, ``init_std=0.5``): the largest
    relative residual ``max|sum_i lambda_i o_i| / max|o|`` over ``seeds``, per attention and head
    count, on the reasoning and template toys; for one softmax head also Z-weighted."""
    validate.instance("identity_residuals", "toy", toy, Batch)
    validate.instance("identity_residuals", "tm_toy", tm_toy, Batch)
    heads = validate.integers("identity_residuals", "heads", list(heads), minimum=1)
    validate.integers("identity_residuals", "seeds", list(seeds), minimum=0)
    rows = []
    for h in heads:
        for attention in ("relu", "softmax"):
            worst_qa = worst_tm = worst_z = 0.0
            for seed in seeds:
                m_qa = build_model(paper_config(qa_task, 1, h, attention=attention).replace(init_std=0.5), seed=seed,
                                   dtype=torch.float64)
                m_tm = build_model(paper_config(tm_task, 1, h, attention=attention).replace(init_std=0.5), seed=seed,
                                   dtype=torch.float64)
                worst_qa = max(worst_qa, dependence_residual(m_qa, toy, lam))
                worst_tm = max(worst_tm, dependence_residual(m_tm, tm_toy, tm_lam))
                if attention == "softmax" and h == 1:
                    worst_z = max(worst_z, dependence_residual(m_qa, toy, lam, softmax_normalizers(m_qa, toy.x)))
            rows.append({"attention": attention, "heads": h, "reasoning toy": worst_qa, "template toy": worst_tm,
                         "reasoning toy, Z-weighted": worst_z if attention == "softmax" and h == 1 else np.nan})
    return pd.DataFrame(rows)


def template_pairs(task, heads=(1, 4, 16)) -> tuple[list[bool], float]:
    """Lemmas 5-7 on every pair of templates of ``task`` (every sequence of each): whether each
    pair's sequences are dependent (Lemma 6; Lemma 5 is checked inside ``template_weights``), and
    the largest relative weighted sum of one-layer outputs over random ReLU models (Lemma 7)."""
    validate.integers("template_pairs", "heads", list(heads), minimum=1)
    everything = task.enumerate()
    dependent, worst = [], 0.0
    for first in range(task.n_classes):
        for second in range(first + 1, task.n_classes):
            pair, weights = template_weights(everything, first, second, len(task.vocab))
            dependent.append(is_dependent(pair.x, weights))
            for h in heads:
                model = build_model(paper_config(task, 1, h).replace(init_std=0.5), seed=h, dtype=torch.float64)
                worst = max(worst, dependence_residual(model, pair, weights))
    return dependent, worst


#: Theorem 2's models: ``label -> (layers, heads, attention)``
THEOREM_2_MODELS = {"ReLU, 1 layer, 1 head": (1, 1, "relu"), "ReLU, 1 layer, 4 heads": (1, 4, "relu"),
                    "ReLU, 1 layer, 16 heads": (1, 16, "relu"), "softmax, 1 layer, 1 head": (1, 1, "softmax"),
                    "ReLU, 2 layers, 1 head": (2, 1, "relu")}
#: Theorem 4's models: ``label -> (layers, heads)``
THEOREM_4_MODELS = {"1 layer, 1 head": (1, 1), "1 layer, 16 heads": (1, 16), "2 layers, 1 head": (2, 1)}


def fit_theorem_2(qa_task, toy, fit: TrainConfig, seeds) -> tuple[dict, dict]:
    """Theorem 2 in training (float64, Adam): each model of :data:`THEOREM_2_MODELS` trained on all
    four dependent sequences and on each subset of three, ``len(seeds)`` seeds each. Returns each
    model's strict accuracies on all four (trained-on-all first), and the sequences its best
    model misses."""
    validate.instance("fit_theorem_2", "toy", toy, Batch)
    validate.instance("fit_theorem_2", "fit", fit, TrainConfig)
    validate.integers("fit_theorem_2", "seeds", list(seeds), minimum=0)
    if len(toy) != 4:
        validate.fail("fit_theorem_2", "toy", "the four dependent sequences of reasoning_toy", f"{len(toy)} sequences")
    subsets = [[j for j in range(4) if j != i] for i in range(4)]
    fits, misses = {}, {}
    for label, (layers, heads, attention) in THEOREM_2_MODELS.items():
        config = paper_config(qa_task, layers, heads, attention=attention).replace(init_std=0.3)
        members = [(subset, seed) for subset in [list(range(4))] + subsets for seed in seeds]
        run = train(config, [seed for _, seed in members], fit,
                    [toy[subset + subset[:4 - len(subset)]] for subset, _ in members], dtype=torch.float64,
                    progress=False)
        fits[label] = [strict_accuracy(run.model(k), toy) for k in range(len(members))]
        right = strict_correct(run.model(int(np.argmax(fits[label]))), toy)
        misses[label] = [qa_task.render(toy[i])[0] for i in range(4) if not right[i]]
    return fits, misses


def fit_theorem_4(tm_task, tm_toy, fit: TrainConfig, seeds) -> dict:
    """Theorem 4 in training (float64): each model of :data:`THEOREM_4_MODELS` trained on Table 1's
    nine template sequences; each seed's strict accuracy."""
    validate.instance("fit_theorem_4", "tm_toy", tm_toy, Batch)
    validate.instance("fit_theorem_4", "fit", fit, TrainConfig)
    validate.integers("fit_theorem_4", "seeds", list(seeds), minimum=0)
    out = {}
    for label, (layers, heads) in THEOREM_4_MODELS.items():
        config = paper_config(tm_task, layers, heads).replace(init_std=0.3)
        run = train(config, seeds, fit, tm_toy, {"train": tm_toy}, dtype=torch.float64, progress=False)
        out[label] = [strict_accuracy(run.model(k), tm_toy) for k in range(len(seeds))]
    return out
