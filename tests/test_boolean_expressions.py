"""Boolean simplification (Richard 2024, Sec. 2, App. 5.1): the generator, the oracle and the
paper's examples, the split and the criterion; a decoder that learns the task in sample."""
import numpy as np
import pytest

from lib.papers.richard2024 import boolean
from lib.tasks import boolean_expressions as bx

PAPER_EXAMPLE = ("((((p3 & p3) & (true | ¬p2)) & (¬p2 & p0))) | (((¬p3 & p1) & (true & ¬p2))) & "
                 "(((p0 & p2) & ((p3 | true) | (¬p3 | ¬p3))))")
# App. 5.1.1 as GPT-4 restated it (the OCR'd prompt has unbalanced parentheses)
GPT4_PROMPT = ("(((¬p2|¬p2)|(false|(false&false))))&(((false&true)|((p3|p3)&(¬p3|¬p2))))&(((p2|¬p2)&((¬p0&¬p1)|"
               "(p3|¬p2))))|(((¬p0|(p1&¬p3))|(p2&(p2|p3))))&(((¬p1|p1)&(p1|false)))")


def nesting(text: str) -> int:
    depth = top = 0
    for c in text:
        depth += (c == "(") - (c == ")")
        top = max(top, depth)
    return top


def test_the_papers_examples_simplify_as_printed():
    assert bx.simplify_sympy(PAPER_EXAMPLE) == bx.simplify(PAPER_EXAMPLE) == "p0 & p3 & ¬p2"
    assert bx.simplify_sympy(GPT4_PROMPT) == bx.simplify(GPT4_PROMPT) == "p1 | (p3 & ¬p2)"
    assert bx.truth_table("((p3&¬p2)|¬p0|p2)&p1") != bx.truth_table(GPT4_PROMPT)  # GPT-4's answer is wrong
    # the flat top level is read with & over |, c1 | (c2 & c3); left to right it would be false
    c1, rest = PAPER_EXAMPLE.split(" | ", 1)
    c2, c3 = rest.split(" & (((p0")
    assert bx.simplify(f"({c1} | {c2}) & (((p0{c3}") == "false"


def test_the_fast_oracle_agrees_with_sympy_on_random_expressions():
    for k, q, seed in ((2, 3, 0), (5, 3, 1), (2, 5, 2)):
        for lhs, rhs in bx.sample(k, q, 60, seed=seed):
            assert bx.simplify_sympy(lhs) == rhs, lhs


def test_algorithm_1_builds_clauses_of_the_asked_depth():
    rng = np.random.default_rng(0)
    for q in range(0, 7):
        depths = [nesting(bx.random_clause(q, rng)) for _ in range(300)]
        assert max(depths) == q and min(depths) >= (q + 1) // 2, (q, min(depths), max(depths))
    expr = bx.random_expression(3, 2, np.random.default_rng(1))
    assert expr.count(" & (") + expr.count(" | (") >= 2 and nesting(expr) <= 3
    assert bx.sample(2, 3, 20, seed=5) == bx.sample(2, 3, 20, seed=5) != bx.sample(2, 3, 20, seed=6)


def test_sample_draws_what_algorithm_1_draws_one_call_at_a_time():
    """The fast sampler against the plain loop it replaces: the same pairs, every (k, q) shape,
    and draws with Lemire's rejection (n = 10 leaves) as well as powers of two."""
    for k, q, seed in [(1, 0, 0), (1, 1, 1), (2, 3, 2), (5, 3, 7), (5, 6, 3)]:
        rng = np.random.default_rng(seed)
        plain = [(lhs := bx.random_expression(k, q, rng), bx.simplify(lhs)) for _ in range(400)]
        assert bx.sample(k, q, 400, seed=seed) == plain
    rng, draws = np.random.default_rng(9), bx._Draws(np.random.default_rng(9))
    ns = [2, 10, 3, 2**31 + 1, 7, 10] * 3000  # 2^31 + 1 rejects about half its draws
    assert [draws(n) for n in ns] == [int(rng.integers(n)) for n in ns]


def test_the_vocabulary_is_the_papers_fourteen_tokens_and_bad_text_fails():
    assert len(bx.TOKENS) == 14 and len(bx.VOCAB) == 15
    assert bx.detokenize(bx.tokenize(PAPER_EXAMPLE)) == PAPER_EXAMPLE
    with pytest.raises(ValueError, match="not one of the tokens"):
        bx.tokenize("p0 & p7")
    for bad in ("p0 &", "(p0 | p1", "p0 p1", ")", ""):
        with pytest.raises(ValueError, match="truth_table"):
            bx.truth_table(bad)
    assert bx.truth_table("¬p0 & p1 | p2") == bx.truth_table("((¬p0) & p1) | p2")


def test_held_out_forms_and_the_criterion():
    forms = [rhs for _, rhs in bx.sample(2, 3, 2000, seed=0)]
    held = bx.held_out_forms(forms, 128, seed=0)
    assert len(held) == 128 and not held & {"true", "false"} and held == bx.held_out_forms(forms, 128, seed=0)
    with pytest.raises(ValueError, match="only 2 distinct"):
        bx.held_out_forms(["p0", "p1", "true"], 3)
    lhs = "((p0 & p3)) & ((p3 | false))"
    assert bx.is_correct("p3 & p0", lhs, "p0 & p3")  # equivalent, not the same string
    assert not bx.is_correct("p0", lhs, "p0 & p3")
    assert not bx.is_correct("p0 & p3 )", lhs, "p0 & p3")  # does not parse
    assert not bx.is_correct(bx.tokenize(lhs), lhs, "p0 & p3")  # not shorter than the question


def test_equations_train_on_the_answer_only():

    pairs = [("((p0 & p0))", "p0"), ("((true))", "true"), ("((p1 | false))", "p1")]  # 11, 8 and 11 tokens
    batch = boolean.encode(pairs, context=22)
    rows = [bx.VOCAB.decode(x) for x in batch.x]
    # windows start at <start>; the second starts at the equation the first cut short
    assert [r[0] for r in rows] == ["<start>", "<start>"] and rows[1][1:4] == ["(", "(", "p1"]
    assert rows[0][:8] == ["<start>", "(", "(", "p0", "&", "p0", ")", ")"]
    targets = [[bx.VOCAB.tokens[t] for t in row.tolist() if t >= 0] for row in batch.y]
    assert targets == [["p0", "<end>", "true", "<end>"], ["p1", "<end>"]]
    with pytest.raises(ValueError, match="more than context"):
        boolean.encode(pairs, context=10)


def test_encoding_in_chunks_changes_nothing(monkeypatch):
    pairs = bx.sample(2, 3, 300, seed=4)
    whole = boolean.encode(pairs, context=128)
    monkeypatch.setattr(boolean, "ENCODE_CHUNK", 7)  # chunk boundaries inside windows
    chunked = boolean.encode(pairs, context=128)
    assert whole.x.dtype == chunked.x.dtype == whole.y.dtype == boolean.torch.int64
    assert boolean.torch.equal(whole.x, chunked.x) and boolean.torch.equal(whole.y, chunked.y)


def test_a_decoder_learns_simplification_in_sample():
    from lib.models import build_model
    from lib.models.decoder import gpt_config
    from lib.train import TrainConfig, train

    data = boolean.make_data(k=1, train_depths=[1], test_depths=[1], n_train=2000, n_test=200, n_held_out=8,
                             pool_per_depth=400)
    batch = boolean.encode(data["train"][1], context=64)
    config = gpt_config(len(bx.VOCAB), 64, 32, 2, 2, mlp_ratio=4)
    run = train(config, [0], TrainConfig(steps=300, lr=3e-3, batch_size=64, warmup=20, optimizer="adamw",
                                         schedule="warmup_cosine", eval_every=300), batch, progress=False)
    seen = data["test"][(1, "in")]
    trained = boolean.accuracy(run.model(0), seen, max_new=12)
    untrained = boolean.accuracy(build_model(config, seed=0), seen, max_new=12)
    baseline = max(boolean.constant_baselines(seen).values())
    assert trained >= baseline + 0.2 and untrained < 0.1, (trained, untrained, baseline)


def test_make_data_splits_in_and_out_of_sample_and_builds_one_depth_alike():
    full = boolean.make_data(k=1, train_depths=[1, 2], test_depths=[2], n_train=300, n_test=40, n_held_out=8,
                             pool_per_depth=300)
    one = boolean.make_data(k=1, train_depths=[1, 2], test_depths=[2], n_train=300, n_test=40, n_held_out=8,
                            pool_per_depth=300, build=[2])
    held = full["held_out"]
    assert len(held) == 8 and "true" not in held and "false" not in held
    assert all(rhs not in held for q in (1, 2) for _, rhs in full["train"][q])
    assert all(rhs not in held for _, rhs in full["test"][(2, "in")])
    assert all(rhs in held for _, rhs in full["test"][(2, "out")])
    # a sweep point draws only its own depth, with the same held-out forms and the same equations
    assert one["held_out"] == held and list(one["train"]) == [2] and one["train"][2] == full["train"][2]
    with pytest.raises(ValueError, match="build"):
        boolean.make_data(k=1, train_depths=[1], test_depths=[1], n_train=10, n_test=5, n_held_out=2,
                          pool_per_depth=50, build=[3])
