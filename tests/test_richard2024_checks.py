"""Every committed claim of the depth-extrapolation chapters (Richard 2024) re-derives from ``data/``
and the constructions rebuilt at the chapters' default sizes, through ``lib.papers.richard2024.checks``;
and every paper-scale config of the trained sweeps has a computed difference from the paper's setup."""
from __future__ import annotations

import numpy as np
import pytest
import torch

import checks_support
from lib import claims
from lib.papers.richard2024 import analysis, checks, figures, remarks, setup, sweeps
from lib.papers.richard2024 import closed_form as cf
from lib.results import Result
from lib.tasks import dyck_words as dw

PART = "chapters/05_depth_extrapolation"


def _load(name: str) -> Result:
    result = sweeps.SWEEPS[name].load("default")
    assert result is not None, f"data/richard2024_{name}.default.json is missing"
    return result


def test_closed_forms_rederive():
    """01_closed_forms at the default scale (the decoder's own pass over D_16 on every tenth
    training word: it enters only the verdict, which the numpy check of every pair carries too)."""
    probe = cf.eq1_model(cf.DYCK_EMBEDDING, np.random.default_rng(0).standard_normal((16, 1)), v=-3.0)
    rng = np.random.default_rng(0)
    cases = []
    for t, d in ((2, 1), (5, 3), (50, 17), (50, 200)):
        for gamma in (-0.5, 0.5, 2.0):
            s = rng.integers(0, t, 64)
            cases.append((s, gamma, rng.standard_normal((t, d))))
    t_tokens, n_len, vgamma = 50, 64, 30.0
    s_mem = np.random.default_rng(0).integers(0, t_tokens, n_len)
    onehot = cf.eq1_model(np.eye(t_tokens), cf.positional_embedding(s_mem, -0.5, np.eye(t_tokens)), vgamma / -0.5)
    computed = [checks.d32_data(analysis.d32_counts()), checks.catalan(remarks.catalan_table(), remarks.catalan_counts(10)),
                checks.lemma_5_2(probe, torch.as_tensor(dw.sample_words(8, 64, seed=1))),
                checks.eq_4(cases), checks.eq_3(remarks.first_order_table(np.random.default_rng(0).integers(0, 50, 64), 50)),
                checks.lemma_5_1(onehot, s_mem, vgamma),
                checks.theorem_3_1(analysis.memorization_table(s_mem, t_tokens), t_tokens, n_len),
                checks.scaling(remarks.scaling_table(s_mem, t_tokens)), checks.stability(),
                checks.multiple_sequences([remarks.multiple_sequences(n, m) for n, m in ((8, 2), (16, 2), (16, 3))]),
                checks.theorem_4_1(analysis.exhaustive(8, model_words_step=10), analysis.theorem41_at_16(8, 1024)),
                checks.claim_5_3(analysis.claim53_table((8, 10))),
                checks.figure_2(cf.path_picture(dw.from_string("(()(()))((()))()"), dw.from_string("(((("))),
                checks.closed_form_path(remarks.positional_paths(8))]
    assert claims.rederive(f"{PART}/01_closed_forms", "default", computed) == []


def test_trained_decoders_rederive():
    results = {name: _load(name) for name in ("architectures", "sample_size", "completions", "ablations", "gd_eq1")}
    arch = results["architectures"]
    word = analysis.one_training_word(arch)
    closed_acc = analysis.closed_form_accuracy(arch, word)
    computed = [checks.figure_3_left(arch, closed_acc),
                checks.figure_3_right(results["sample_size"], analysis.closed_form_accuracy(results["sample_size"], word)),
                checks.single_word_loss(remarks.single_word_models(results["sample_size"], results["completions"]),
                                        results["sample_size"], results["completions"]),
                checks.figure_4(results["completions"], analysis.closed_form_counts(results["completions"])),
                checks.figure_5(results["completions"]), checks.figure_6(results["ablations"]),
                checks.figure_7(results["ablations"], figures.KMEANS_CLUSTERS),
                checks.gd_eq1(results["gd_eq1"], closed_acc)]
    assert claims.rederive(f"{PART}/02_trained_decoders", "default", computed) == []


def test_boolean_simplification_rederives():
    computed = [checks.boolean_data(analysis.oracle_sample(150)), checks.gpt4_counts(remarks.gpt4_counts()),
                checks.figure_1(_load("boolean_simplification"))]
    assert claims.rederive(f"{PART}/03_boolean_simplification", "default", computed) == []


def _paper(name: str) -> Result:
    return checks_support.at_paper_scale("richard2024", name)


#: every trained claim's setup, with the function that reads its fields from a result
TRAINED = {
    "Figure 3 (left)": ("architectures", setup.FIGURE_3_LEFT, setup.architectures),
    "Figure 3 (right)": ("sample_size", setup.FIGURE_3_RIGHT, setup.sample_size),
    "Figure 4 and Table 1": ("completions", setup.FIGURE_4, setup.completions),
    "Figure 5": ("completions", setup.FIGURE_5, setup.completions),
    "Figure 6": ("ablations", setup.FIGURE_6, setup.ablations),
    "Figure 7": ("ablations", setup.FIGURE_7, None),
    setup.GD_EQ1.ref: ("gd_eq1", setup.GD_EQ1, setup.gd_eq1),
    "Figure 1": ("boolean_simplification", setup.FIGURE_1, setup.boolean_simplification),
}


@pytest.mark.parametrize("ref", list(TRAINED))
def test_paper_scale_difference(ref):
    """At the paper scale each trained sweep's difference from the paper is computed field by
    field (printed): what is left is what the paper scale still changes."""
    name, stated, ours = TRAINED[ref]
    result = _paper(name)
    config = ours(result) if ours is not None else _figure_7_fields(result)
    differences = stated.difference(config)
    print(f"{ref} at the paper scale differs in: " + ("; ".join(map(str, differences)) or "nothing"))
    assert stated.ref == ref


def _figure_7_fields(result: Result) -> dict:
    """Figure 7 reads the size of the largest training set from the stored points: a paper-scale
    config has none, so its grid's largest size stands for it (4^12 distinct words)."""
    largest = result.grid[-1]["size"]
    result.points = [{"point": result.grid[-1], "result": {"distinct_words": largest}, "wall_s": 0.0}]
    return setup.figure_7(result, checks.pictured_variants(), figures.KMEANS_CLUSTERS)


def test_paper_scale_differences_name_the_issue_fields():
    """The differences the issue names are computed from the stored configs: answers-only loss
    (Figure 1), 10^5 words and no dropout (the Dyck sweeps at the paper scale)."""
    boolean = [d.field for d in setup.FIGURE_1.difference(setup.boolean_simplification(_paper("boolean_simplification")))]
    assert "loss" in boolean
    dyck = {d.field: d for d in setup.FIGURE_3_LEFT.difference(setup.architectures(_paper("architectures")))}
    assert dyck["training words"].ours == 100_000 and dyck["dropout"].ours == 0.0
