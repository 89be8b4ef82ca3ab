"""Bad input fails loudly, at the boundary, naming the function and the argument; good input works.

Property-based (hypothesis): for every public entry point, generated bad values of each argument
must raise a ``TypeError``/``ValueError`` whose message names the entry point and the argument,
and generated good values must succeed. Below them, one test per silent acceptance the fuzz of
issue 12 found (each used to corrupt a result without a word).
"""
import json
import math

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from lib import claims, results, validate
from lib.constructions.lookup import index_lookup_onehot
from lib.models import AttentionConfig, MLPConfig, build_model
from lib.papers.chen2024 import constructions as chen
from lib.papers.chen2024.softmax import template_matching_softmax
from lib.papers.mahdavi2024 import kruskal
from lib.runtime import pick_device
from lib.tasks import (Batch, IndexLookup, InContextQA, InContextTemplateMatching, SequenceClassification,
                       TemplateMatching, symbol_names)
from lib.tasks.random_labels import query_context_data
from lib.train import TrainConfig, train
from bad_input_support import FAST, fails, non_bools, non_finite, non_ints, non_reals


# ----------------------------------------------------------------------------- generated values


# ----------------------------------------------------------------------------- the helpers themselves
@FAST
@given(value=non_ints)
def test_integer_refuses_everything_but_integers(value):
    fails(lambda: validate.integer("f", "n", value), "f", "n")


@FAST
@given(value=st.integers(-10**6, 10**6))
def test_integer_bounds(value):
    if value >= 0:
        assert validate.integer("f", "n", value, minimum=0) == value
    else:
        fails(lambda: validate.integer("f", "n", value, minimum=0), "f: n must be an integer >= 0")


@FAST
@given(value=non_bools)
def test_boolean_refuses_strings_numbers_and_none(value):
    fails(lambda: validate.boolean("f", "flag", value), "f", "flag", "True or False")


@FAST
@given(value=non_reals)
def test_real_refuses_non_finite_and_non_numbers(value):
    fails(lambda: validate.real("f", "x", value), "f", "x")


@FAST
@given(value=st.floats(allow_nan=False, allow_infinity=False, min_value=-1e9, max_value=1e9))
def test_real_accepts_finite_numbers_in_range(value):
    if value > 0:
        assert validate.real("f", "x", value, above=0.0) == value
    else:
        fails(lambda: validate.real("f", "x", value, above=0.0), "f", "x")


# ----------------------------------------------------------------------------- tasks
TASKS = {
    IndexLookup: {"n_symbols": 4, "length": 5},
    InContextQA: {"n_questions": 5, "n_answers": 5, "k": 3},
    TemplateMatching: {"n_words": 6, "length": 3},
    InContextTemplateMatching: {"n_words": 6, "n_answers": 6, "length": 2, "k": 2},
    SequenceClassification: {"n_words": 5, "length": 4, "n_examples": 20},
}
INT_ARGS = [(cls, name) for cls, args in TASKS.items() for name in args]


@pytest.mark.parametrize("cls, name", INT_ARGS, ids=[f"{c.__name__}.{n}" for c, n in INT_ARGS])
@settings(max_examples=12, deadline=None)
@given(bad=st.one_of(non_ints, st.integers(-5, 0), st.integers(10**7, 10**12)))
def test_task_integer_arguments(cls, name, bad):
    fails(lambda: cls(**{**TASKS[cls], name: bad}), cls.__name__, name)


@pytest.mark.parametrize("cls", list(TASKS), ids=lambda c: c.__name__)
@settings(max_examples=10, deadline=None)
@given(n=st.integers(1, 40), seed=st.integers(0, 2**31))
def test_task_samples_with_good_arguments(cls, n, seed):
    batch = cls(**TASKS[cls]).sample(n, seed=seed)
    assert len(batch) == n


@pytest.mark.parametrize("cls", list(TASKS), ids=lambda c: c.__name__)
@settings(max_examples=10, deadline=None)
@given(n=st.one_of(non_ints, st.integers(-3, 0)), seed=st.one_of(st.integers(-5, -1), st.text(max_size=2)))
def test_task_sample_refuses_bad_sizes_and_seeds(cls, n, seed):
    task = cls(**TASKS[cls])
    fails(lambda: task.sample(n, seed=0), "sample", "n")
    fails(lambda: task.sample(4, seed=seed), "seed")


@FAST
@given(holdout=st.one_of(non_reals, st.floats(max_value=0.0), st.floats(min_value=1.0)))
def test_holdout_fractions(holdout):
    fails(lambda: InContextQA(holdout=holdout), "InContextQA", "holdout")
    fails(lambda: TemplateMatching(holdout=holdout), "TemplateMatching", "holdout")


@FAST
@given(n_examples=st.one_of(non_ints, st.integers(-3, 0)), dim=st.one_of(non_ints, st.integers(-3, 0)))
def test_query_context_data(n_examples, dim):
    fails(lambda: query_context_data(n_examples, 4, 8), "query_context_data", "n_examples")
    fails(lambda: query_context_data(8, 4, dim), "query_context_data", "dim")


@FAST
@given(x=st.one_of(st.none(), st.lists(st.integers(), max_size=3), st.text(max_size=3)))
def test_batch_needs_tensors(x):
    fails(lambda: Batch(x, torch.zeros(2)), "Batch", "x")


# ----------------------------------------------------------------------------- models
BOOLEAN_FIELDS = ("residual", "causal", "readout_bias", "maskable")


def tokens_config(**changes):
    return AttentionConfig(**{**dict(d_model=16, n_out=4, vocab_size=8, max_len=8), **changes})


@pytest.mark.parametrize("field", BOOLEAN_FIELDS)
@settings(max_examples=10, deadline=None)
@given(bad=non_bools)
def test_attention_config_booleans_are_booleans(field, bad):
    fails(lambda: tokens_config(**{field: bad}), "AttentionConfig", field)


@pytest.mark.parametrize("field", ("d_model", "n_out", "n_layers", "max_len", "d_head", "d_value", "vocab_size"))
@settings(max_examples=10, deadline=None)
@given(bad=st.one_of(non_ints.filter(lambda v: v is not None), st.integers(-4, 0), st.integers(10**7, 10**9)))
def test_attention_config_sizes(field, bad):
    fails(lambda: tokens_config(**{field: bad}), "AttentionConfig", field)


@pytest.mark.parametrize("field", ("attn_scale", "init_std"))
@settings(max_examples=10, deadline=None)
@given(bad=st.one_of(non_reals.filter(lambda v: v is not None), st.floats(max_value=0.0)))
def test_attention_config_scales(field, bad):
    fails(lambda: tokens_config(**{field: bad}), "AttentionConfig", field)


@FAST
@given(bad=non_bools, size=st.one_of(st.integers(-3, 0), non_ints.filter(lambda v: v is not None)))
def test_mlp_config(bad, size):
    fails(lambda: MLPConfig(d_model=4, n_out=2, max_len=3, vocab_size=5, readout_bias=bad), "MLPConfig",
          "readout_bias")
    fails(lambda: MLPConfig(d_model=4, n_out=2, max_len=3, vocab_size=5, d_hidden=size), "MLPConfig", "d_hidden")


@FAST
@given(seed=st.one_of(non_ints, st.integers(max_value=-1)),
       dtype=st.one_of(st.sampled_from(["float64", "float32", torch.int64, torch.bool]), st.integers()),
       device=st.sampled_from(["gpu", "cuda:7", "tpu", 3]))
def test_build_model_arguments(seed, dtype, device):
    config = tokens_config()
    fails(lambda: build_model(config, seed=seed), "build_model", "seed")
    fails(lambda: build_model(config, dtype=dtype), "build_model", "dtype")
    if not torch.cuda.is_available() or device != "cuda:7":
        fails(lambda: build_model(config, device=device), "build_model", "device")


@FAST
@given(ids=st.lists(st.integers(-20, 30), min_size=1, max_size=8))
def test_model_reads_only_ids_in_its_vocabulary(ids):
    model = build_model(tokens_config(embedding="onehot"))
    x = torch.tensor([ids])
    if all(0 <= i < 8 for i in ids):
        assert model(x).shape == (1, 4)
    else:
        fails(lambda: model(x), "AttentionModel", "token ids", "[0, 8)")


# ----------------------------------------------------------------------------- training
TRAIN_FIELDS = {
    "steps": st.one_of(non_ints, st.integers(max_value=-1)),
    "lr": st.one_of(non_reals, st.floats(max_value=0.0)),
    "momentum": st.one_of(non_reals, st.floats(max_value=-1e-9), st.floats(min_value=1.0)),
    "betas": st.one_of(st.tuples(st.floats(min_value=1.0, max_value=9.0), st.just(0.999)),
                       st.tuples(non_finite, st.just(0.9)), st.just((0.9,)), st.text(max_size=2)),
    "eps": st.one_of(non_reals, st.floats(max_value=0.0)),
    "warmup": st.one_of(non_ints, st.integers(max_value=-1)),
    "weight_decay": st.one_of(non_reals, st.floats(max_value=-1e-9)),
    "grad_clip": st.one_of(non_finite, st.text(max_size=2), st.floats(max_value=0.0)),
    "batch_size": st.one_of(st.integers(max_value=0), st.floats(), st.text(max_size=2)),
    "eval_every": st.one_of(non_ints, st.integers(max_value=0)),
}


@pytest.mark.parametrize("field", list(TRAIN_FIELDS))
@settings(max_examples=10, deadline=None)
@given(data=st.data())
def test_train_config_fields(field, data):
    bad = data.draw(TRAIN_FIELDS[field])
    fails(lambda: TrainConfig(steps=10, **{field: bad}) if field != "steps" else TrainConfig(steps=bad),
          "TrainConfig", field)


@FAST
@given(lr=st.floats(min_value=1e-6, max_value=1.0), momentum=st.floats(min_value=0.0, max_value=0.99),
       beta1=st.floats(min_value=0.0, max_value=0.999), steps=st.integers(0, 10**6))
def test_train_config_accepts_good_settings(lr, momentum, beta1, steps):
    config = TrainConfig(steps=steps, lr=lr, momentum=momentum, betas=(beta1, 0.999))
    assert config.lr == lr and config.steps == steps


SMALL_TASK = IndexLookup(n_symbols=4, length=4)
SMALL_MODEL = AttentionConfig(d_model=16, n_out=4, vocab_size=len(SMALL_TASK.vocab), max_len=SMALL_TASK.seq_len)


@settings(max_examples=15, deadline=None)
@given(seeds=st.one_of(st.just([]), st.lists(st.floats(), min_size=1, max_size=2),
                       st.lists(st.integers(max_value=-1), min_size=1, max_size=2), st.text(max_size=2),
                       st.just([1, "2"])))
def test_train_seeds_must_be_non_negative_integers(seeds):
    fails(lambda: train(SMALL_MODEL, seeds, TrainConfig(steps=1), SMALL_TASK, progress=False), "train", "seeds")


@settings(max_examples=10, deadline=None)
@given(progress=non_bools, device=st.sampled_from(["gpu", "cuda:9", 7]), dtype=st.sampled_from(["float64", torch.int32]))
def test_train_flags_devices_and_dtypes(progress, device, dtype):
    config = TrainConfig(steps=1)
    fails(lambda: train(SMALL_MODEL, [0], config, SMALL_TASK, progress=progress), "train", "progress")
    fails(lambda: train(SMALL_MODEL, [0], config, SMALL_TASK, progress=False, device=device), "train", "device")
    fails(lambda: train(SMALL_MODEL, [0], config, SMALL_TASK, progress=False, dtype=dtype), "train", "dtype")


# ----------------------------------------------------------------------------- results and claims
@FAST
@given(value=non_finite, nested=st.booleans())
def test_results_refuse_undeclared_non_finite_metrics(value, nested):
    metrics = {"acc": [0.5, value]} if nested else {"loss": value}
    fails(lambda: results.finite_or_declared("exp", {"H": 1}, metrics), "exp", "{'H': 1}", "nonfinite=True")
    stored = results.finite_or_declared("exp", {"H": 1}, metrics, nonfinite=True)
    json.loads(json.dumps(stored, allow_nan=False))  # valid JSON: the value is stored as null


@FAST
@given(passed=non_bools, partly=non_bools)
def test_a_claim_needs_a_real_boolean_outcome(tmp_path_factory, passed, partly):
    import os
    from unittest import mock

    where = tmp_path_factory.mktemp("claims")
    common = dict(paper="chen2024", ref="Theorem 1", statement="s", paper_value="p", ours="o", chapter="c", label="l")
    with mock.patch.dict(os.environ, {"ABC_DATA": str(where)}):
        fails(lambda: claims.record(passed=passed, **common), "claims.record", "passed")
        fails(lambda: claims.record(passed=True, partly=partly, **common), "claims.record", "partly")
        assert claims.collect() == []  # a refused claim leaves no record behind


# ----------------------------------------------------------------------------- Kruskal, constructions, devices
@FAST
@given(precision=st.one_of(st.sampled_from(["float16", "half", "", "FLOAT32"]), st.integers(), st.none()),
       k=st.one_of(st.integers(max_value=0), st.integers(min_value=7), st.floats(), st.text(max_size=2)))
def test_kruskal_routines(precision, k):
    vectors = np.random.default_rng(0).standard_normal((6, 4))
    fails(lambda: kruskal.kruskal_rank(vectors, precision=precision), "kruskal_rank", "precision")
    fails(lambda: kruskal.kruskal_pass_rate(vectors, 2, precision=precision), "kruskal_pass_rate", "precision")
    fails(lambda: kruskal.kruskal_pass_rate(vectors, k), "kruskal_pass_rate", "k")
    with_nan = vectors.copy()
    with_nan[0, 0] = np.nan
    fails(lambda: kruskal.kruskal_rank(with_nan), "kruskal_rank", "finite")


@FAST
@given(task=st.sampled_from([IndexLookup(4, 4), InContextQA(5, 5, 3), TemplateMatching(6, 3),
                             InContextTemplateMatching(6, 6, 2, 2), SequenceClassification(5, 4, 20), None, "task"]))
def test_constructions_name_the_task_they_need(task):
    builders = {chen.memorization: SequenceClassification, chen.in_context_qa: InContextQA,
                chen.template_matching: TemplateMatching, chen.in_context_template_matching: InContextTemplateMatching,
                index_lookup_onehot: IndexLookup}
    for build, needed in builders.items():
        if not isinstance(task, needed):
            fails(lambda: build(task), build.__name__, "task", needed.__name__)


@FAST
@given(beta=st.one_of(non_finite, st.text(max_size=2), st.none()))
def test_constructions_refuse_non_finite_temperatures(beta):
    fails(lambda: template_matching_softmax(TemplateMatching(6, 3), beta=beta), "template_matching_softmax", "beta")
    fails(lambda: index_lookup_onehot(IndexLookup(4, 4), beta=beta), "index_lookup_onehot", "beta")


@FAST
@given(name=st.sampled_from(["gpu", "cuda:5", "tpu", "", "cpu:x"]))
def test_pick_device_refuses_devices_that_do_not_exist(name):
    if name.startswith("cuda") and torch.cuda.is_available() and torch.cuda.device_count() > 5:
        return
    fails(lambda: pick_device(name), "pick_device")


# ----------------------------------------------------------------------------- the examples, one by one
def test_claim_with_passed_no_is_an_error_not_reproduced(tmp_path, monkeypatch):
    monkeypatch.setenv("ABC_DATA", str(tmp_path))
    common = dict(paper="chen2024", ref="Theorem 1", statement="s", paper_value="p", ours="o", chapter="c", label="l")
    fails(lambda: claims.record(passed="no", **common), "claims.record", "passed")
    assert claims.collect() == []  # nothing was recorded
    claims.record(passed=np.bool_(True), **common)  # what a numpy comparison gives is a real outcome
    assert claims.collect()[0].verdict == "reproduced"


def test_residual_no_is_an_error_not_a_residual():
    fails(lambda: tokens_config(residual="no"), "AttentionConfig", "residual")


@pytest.mark.parametrize("bad", [dict(lr=math.nan), dict(lr=math.inf), dict(betas=(1.5, 0.999)), dict(eps=-1.0),
                                 dict(momentum=-0.5), dict(warmup=-3)], ids=str)
def test_train_config_examples(bad):
    fails(lambda: TrainConfig(steps=5, **bad), "TrainConfig", next(iter(bad)))


def test_a_fractional_seed_is_an_error_not_seed_1():
    fails(lambda: train(SMALL_MODEL, [1.7], TrainConfig(steps=1), SMALL_TASK, progress=False), "train", "seeds[0]")


def test_a_run_returning_nan_is_refused_and_never_written(tmp_path, monkeypatch):
    monkeypatch.setenv("ABC_DATA", str(tmp_path))
    fails(lambda: results.run("nan_exp", {"a": 1}, [{"x": 1}], lambda p: {"loss": math.nan}, progress=False),
          "nan_exp", "loss")
    declared = results.run("nan_ok", {"a": 1}, [{"x": 1}], lambda p: {"loss": math.nan}, progress=False,
                           nonfinite=True)
    text = declared.path.read_text()
    assert "NaN" not in text and json.loads(text)["points"][0]["result"]["loss"] is None


@pytest.mark.parametrize("templates, why", [([(0, 1), (0, 1)], "distinct"), ([(0, 1, 2), (0, 0)], "length-2"),
                                            ([(1, 0), (0, 1)], "restricted-growth")])
def test_in_context_template_matching_templates(templates, why):
    fails(lambda: InContextTemplateMatching(6, 6, 2, 2, templates=templates), "InContextTemplateMatching", why)


@pytest.mark.parametrize("ids", [[[0, -1]], [[0, 99]]])
def test_one_hot_model_refuses_ids_outside_its_vocabulary(ids):
    model = build_model(tokens_config(embedding="onehot"))
    fails(lambda: model(torch.tensor(ids)), "token ids", "[0, 8)")


@pytest.mark.parametrize("beta", [math.nan, math.inf])
def test_softmax_construction_with_nan_or_inf_beta(beta):
    fails(lambda: template_matching_softmax(TemplateMatching(6, 3), beta=beta), "beta", "finite")


def test_crashes_deep_inside_torch_are_now_named_errors():
    fails(lambda: build_model(tokens_config(), seed="a"), "build_model", "seed")
    fails(lambda: build_model(tokens_config(), dtype="float64"), "build_model", "dtype", "torch.float64")
    fails(lambda: tokens_config(d_head=0), "AttentionConfig", "d_head")
    model = build_model(tokens_config())
    fails(lambda: model(torch.tensor([[0.5, 1.0]])), "token ids", "integers")
    fails(lambda: model(torch.tensor([0, 1])), "shape")
    fails(lambda: chen.memorization(InContextQA(5, 5, 3)), "memorization", "task", "SequenceClassification")
    fails(lambda: Batch([[0, 1]], [1]), "Batch", "x")
    fails(lambda: Batch(None, None), "Batch")
    fails(lambda: Batch.stack([]), "Batch.stack", "non-empty")
    fails(lambda: kruskal.kruskal_rank(np.eye(3), precision="float16"), "kruskal_rank", "precision")
    small = AttentionConfig(d_model=16, n_out=2, vocab_size=len(SMALL_TASK.vocab), max_len=SMALL_TASK.seq_len)
    fails(lambda: train(small, [0], TrainConfig(steps=1), SMALL_TASK, progress=False), "train", "4 classes", "n_out=2")
    narrow = AttentionConfig(d_model=16, n_out=4, vocab_size=3, max_len=SMALL_TASK.seq_len)
    fails(lambda: train(narrow, [0], TrainConfig(steps=1), SMALL_TASK.sample(8, seed=0), progress=False),
          "train", "token ids")
    fails(lambda: pick_device("gpu"), "pick_device")


def test_huge_sizes_are_refused_at_once():
    fails(lambda: symbol_names(10**9), "symbol_names", "n")
    fails(lambda: IndexLookup(n_symbols=10**9), "IndexLookup", "n_symbols")
    fails(lambda: SMALL_TASK.sample(10**11, seed=0), "sample", "elements")
    fails(lambda: query_context_data(10**6, 10**3, 10**3), "query_context_data", "elements")


def test_a_member_whose_loss_turns_nan_is_frozen_and_marked_diverged():
    """Member 1's learning rate is absurd: its loss overflows. It stops there and reports NaN,
    while member 0 trains on, exactly as it would alone."""
    task = IndexLookup(n_symbols=4, length=4)
    model = AttentionConfig(d_model=16, n_out=4, vocab_size=len(task.vocab), max_len=task.seq_len)
    data = task.sample(64, seed=0)
    both = train(model, [0, 0], TrainConfig(steps=40, lr=(0.01, 1e30), optimizer="sgd", eval_every=10,
                                            batch_size=None), data, {"train": data}, progress=False)
    alone = train(model, [0], TrainConfig(steps=40, lr=0.01, optimizer="sgd", eval_every=10, batch_size=None), data,
                  {"train": data}, progress=False)
    assert both.diverged.tolist() == [False, True] and both.diverged_at[1] > 0
    acc = both.metrics["train"]["acc"]
    assert np.isnan(acc[1, list(both.eval_steps).index(both.diverged_at[1]):]).all()
    np.testing.assert_array_equal(acc[0], alone.metrics["train"]["acc"][0])
    assert both.eval_steps[-1] == 40  # the healthy member kept the run going


# ----------------------------------------------------------------------------- paper helpers
from lib.papers.chen2024 import dependence  # noqa: E402
from lib.papers.mahdavi2024 import bounds, construction as mem  # noqa: E402
from lib.papers.mahdavi2024.data import relu_hard_data  # noqa: E402


@FAST
@given(bad=st.one_of(non_ints, st.integers(max_value=0)))
def test_mahdavi_sizes(bad):
    fails(lambda: mem.rank_bound(bad, 8), "rank_bound", "n_heads")
    fails(lambda: mem.model_config(16, 8, bad, 4), "model_config", "n_heads")
    fails(lambda: bounds.relu_capacity(8, bad), "relu_capacity", "hidden")
    fails(lambda: relu_hard_data(10, 4, 8, seed=bad if bad != 0 else -1), "relu_hard_data", "seed")


@FAST
@given(value=non_finite, where=st.sampled_from(["q", "E", "Y"]))
def test_memorize_refuses_non_finite_data(value, where):
    rng = np.random.default_rng(0)
    data = {"q": rng.standard_normal((5, 8)), "E": rng.standard_normal((4, 8)), "Y": rng.standard_normal(5)}
    data[where] = data[where].copy()
    data[where].flat[0] = value
    fails(lambda: mem.memorize(data["E"], data["q"], data["Y"], n_heads=2, d_head=4), "memorize", where, "finite")


@FAST
@given(T=st.integers(1, 9).filter(lambda t: t != 5), d=st.integers(1, 9).filter(lambda d: d != 8))
def test_memorize_refuses_shapes_that_disagree(T, d):
    rng = np.random.default_rng(0)
    q, E, Y = rng.standard_normal((5, 8)), rng.standard_normal((4, 8)), rng.standard_normal(5)
    fails(lambda: mem.memorize(rng.standard_normal((4, d)), q, Y, n_heads=2, d_head=4), "memorize", "E")
    fails(lambda: mem.memorize(E, q, rng.standard_normal(T), n_heads=2, d_head=4), "memorize", "Y")


@FAST
@given(scale=st.one_of(non_reals, st.floats(max_value=0.0)), draws=st.one_of(non_ints, st.integers(max_value=0)))
def test_random_ranks(scale, draws):
    batch = query_context_data(6, 4, 8)
    fails(lambda: bounds.random_ranks(batch, 2, scale, 3), "random_ranks", "scale")
    fails(lambda: bounds.random_ranks(batch, 2, 1.0, draws), "random_ranks", "draws")
    fails(lambda: mem.check_theorem_1("batch", 2, 4), "check_theorem_1", "batch", "Batch")


@FAST
@given(lambdas=st.one_of(st.lists(st.floats(allow_nan=True), min_size=4, max_size=4), st.lists(st.integers(), max_size=3),
                         st.text(max_size=3)),
       margin=st.one_of(non_reals, st.floats(max_value=-1e-9)))
def test_chen_dependence_helpers(lambdas, margin):
    task = IndexLookup(4, 4)
    batch = task.sample(4, seed=0)
    model = build_model(AttentionConfig(d_model=16, n_out=4, vocab_size=len(task.vocab), max_len=task.seq_len))
    fails(lambda: dependence.dependence_residual(model, batch, lambdas), "dependence_residual", "lambdas")
    fails(lambda: dependence.strict_accuracy(model, batch, margin), "strict_correct", "margin")
    fails(lambda: dependence.strict_accuracy("model", batch), "strict_correct", "model")
