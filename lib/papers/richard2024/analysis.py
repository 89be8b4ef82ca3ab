"""The analyses behind the depth-extrapolation chapters (Richard 2024), moved out of the notebooks:
exact counts of D_32, the tables of the closed-form chapter (Theorem 3.1's memorization, Theorem
4.1 at N = 16, Claim 5.3), the closed form's accuracy on the trained models' own tests, and the
Boolean task's worked examples. Each returns plain numbers or a table that the chapter shows and
:mod:`.checks` turns into a claim. Nothing here is imported by the sweeps or their training code.
"""
from __future__ import annotations

import math

import numpy as np

from ... import validate
from ...results import Result
from ...tasks import dyck_words as dw
from . import closed_form as cf

#: the paper's D_32 (Sec. 4.2): 2^25 random words, about 2.4e7 of them of depth <= 8
PAPER_DRAWS, PAPER_SHALLOW = 2**25, 2.4e7


# ----------------------------------------------------------------------------- Dyck words
def d32_counts() -> dict:
    """Exact counts of D_32 (N = 16) by depth, and what 2^25 uniform draws would hold."""
    C16, c16 = dw.catalan(16), dw.depth_counts(16)
    return {"C": C16, "depth <=": c16, "draws": PAPER_DRAWS, "expected shallow": PAPER_DRAWS * c16[8] / C16,
            "expected distinct": C16 * (1 - math.exp(-PAPER_DRAWS / C16)), "depth >= 13": C16 - c16[12],
            "depth <= 4": c16[4]}


def sampler_uniformity(N: int = 6, count: int = 66_000) -> dict:
    """Both samplers of ``lib.tasks.dyck_words`` over D_2N: distinct words drawn, and the
    chi-square statistic of their counts against the uniform law (one row per sampler)."""
    N = validate.integer("sampler_uniformity", "N", N, 1, dw.MAX_ENUMERATED)
    count = validate.integer("sampler_uniformity", "count", count, 1, 10**7)
    validate.memory("sampler_uniformity", f"the draws (count x 2N = {count * 2 * N:.1e} numbers)", 8.0 * count * 2 * N)
    total = dw.catalan(N)
    out = {}
    for name, sample in (("cycle lemma", dw.sample_words(N, count, seed=0)),
                         ("counting paths", dw.sample_by_depth(N, count, seed=0))):
        _, hits = np.unique(sample, axis=0, return_counts=True)
        expected = count / total
        out[name] = {"distinct": len(hits), "of": total, "chi2": float(((hits - expected) ** 2 / expected).sum()),
                     "dof": total - 1}
    return out


# ----------------------------------------------------------------------------- Theorem 3.1
def memorization_table(s, t: int, *, eps=(0.5, 0.3, 0.2), ratios=(10, 20, 100, 200, 400)):
    """Theorem 3.1 on sequence ``s`` over ``t`` tokens: for each JL accuracy ``eps`` (width
    :func:`~.closed_form.jl_dimension`) and each ``v gamma / n``, the exact log loss, the
    paper's and the margin's log bounds, and how many of 5 random prefixes regenerate ``s``, for
    the proof's JL embedding; and the exact log loss of two embeddings the theorem's "there
    exists" also allows: the same JL embedding rescaled to margin 1, and ``t`` points on a circle
    in d = 2 (:func:`~.closed_form.rescaled`, :func:`~.closed_form.circle_embedding`)."""
    import pandas as pd

    owner = "memorization_table"
    t = validate.integer(owner, "t", t, 2, 10**5)
    s = cf._tokens(owner, "s", s, t, min_len=2)
    for name, values, bound in (("eps", eps, dict(above=0, below=1)), ("ratios", ratios, dict(above=0))):
        if isinstance(values, (str, bytes)) or not isinstance(values, (list, tuple, np.ndarray)) or len(values) == 0:
            validate.fail(owner, name, "a non-empty list of numbers", values,
                          validate.ArgumentTypeError if not isinstance(values, (list, tuple, np.ndarray)) else ValueError)
        for i, x in enumerate(values):
            validate.real(owner, f"{name}[{i}]", x, **bound)
    n = len(s)
    circle = cf.circle_embedding(t)
    rows = []
    for e in eps:
        d = cf.jl_dimension(n, e)
        E = cf.jl_embedding(t, d, seed=0)
        B = cf.positional_embedding(s, -0.5, E)
        m = cf.margin(E)
        for ratio in ratios:
            model = cf.eq1_model(E, B, ratio * n / -0.5)
            cuts = np.random.default_rng(ratio).integers(1, n, 5)
            regenerated = int((cf.generate(model, [s[:k] for k in cuts], n, seed=ratio) == s).all(1).sum())
            others = {name: cf.log_sequence_loss(cf.eq1_model(F, cf.positional_embedding(s, -0.5, F), ratio * n / -0.5), s)
                      for name, F in (("log loss, JL rescaled to margin 1", cf.rescaled(E)),
                                      ("log loss, circle in d = 2", circle))}
            rows.append({"ε": e, "d": d, "margin m": m, "vγ/n": ratio, "log loss": cf.log_sequence_loss(model, s),
                         "log paper bound": cf.theorem31_bounds(n, t, ratio * n, e)["log_loss"],
                         "log margin bound": cf.margin_bound(n, t, ratio * n, m), "regenerated (of 5)": regenerated,
                         **others})
    return pd.DataFrame(rows)


# ----------------------------------------------------------------------------- Theorem 4.1
def exhaustive(N: int, model_words_step: int = 1) -> dict:
    """Theorem 4.1 on every (training word, valid prefix) pair of D_2N: the attractive and the
    repulsive head (numpy) and the library's decoder on every ``model_words_step``-th word."""
    N = validate.integer("exhaustive", "N", N, 1, dw.MAX_ENUMERATED)
    model_words_step = validate.integer("exhaustive", "model_words_step", model_words_step, 1)
    cf._pairs("exhaustive", dw.catalan(N), cf._prefix_count(N))
    words, prefixes = dw.all_words(N), dw.valid_prefixes(N)
    return {"N": N, "attract": cf.exhaustive_check(N, cf.ATTRACTIVE), "repel": cf.exhaustive_check(N, cf.REPULSIVE),
            "on_model": cf.model_check(words[::model_words_step], prefixes),
            "model words": len(words[::model_words_step]), "words": len(words), "prefixes": len(prefixes)}


PAPER_WORD_16 = "(()(()())((()()))((())))(()())()"


def theorem41_at_16(N_small: int, n_deep: int) -> dict:
    """Theorem 4.1 at the paper's N = 16, for the closed form of :data:`PAPER_WORD_16`: its weight
    count and loss, ``n_deep`` distinct words of depth >= 9 cut at their peak and completed by
    sampling, the deepest context (16 '(') completed 100 times, the repulsive head on the deep
    prefixes; and the largest loss over about 100 words of D_2N_small against its bound."""
    N_small = validate.integer("theorem41_at_16", "N_small", N_small, 1, dw.MAX_ENUMERATED)
    n_deep = validate.integer("theorem41_at_16", "n_deep", n_deep, 1, 10**6)
    s16 = dw.from_string(PAPER_WORD_16)
    head = cf.dyck_completer(s16)
    deep_words = dw.distinct(dw.sample_by_depth(16, 4 * n_deep, min_depth=9, seed=0), n_deep)
    deep_prefixes = [dw.peak_prefix(w) for w in deep_words]
    deepest = cf.complete(head, [np.zeros(16, dtype=np.int64)] * 100, 16, seed=1)
    small = dw.all_words(N_small)
    losses = [cf.sequence_loss(cf.dyck_completer(w), w) for w in small[::max(1, len(small) // 100)]]
    return {"weights": cf.construction_size(head), "loss": cf.sequence_loss(head, s16),
            "deep prefixes": len(deep_prefixes), "deep depths": (min(map(dw.depth, deep_prefixes)),
                                                                 max(map(dw.depth, deep_prefixes))),
            "deep valid": float(dw.is_valid(cf.complete(head, deep_prefixes, 16, seed=0)).mean()),
            "deepest valid": int(dw.is_valid(deepest).sum()), "deepest example": dw.to_string(deepest[0]),
            "repulsive valid": float(dw.is_valid(cf.complete(cf.dyck_completer(s16, cf.REPULSIVE), deep_prefixes,
                                                             16, seed=0)).mean()),
            "N small": N_small, "small losses": len(losses), "largest small loss": max(losses)}


def claim53_table(Ns):
    """Claim 5.3's three-weight head on every valid prefix of D_2N for each N: invalid greedy
    and sampled completions."""
    import pandas as pd

    Ns = validate.integers("claim53_table", "Ns", Ns, minimum=1)
    for i, N in enumerate(Ns):
        validate.integer("claim53_table", f"Ns[{i}]", N, 1, dw.MAX_ENUMERATED)
    rows = []
    for N in Ns:
        model = cf.claim53_model(N)
        prefixes = dw.valid_prefixes(N)
        greedy = cf.complete(model, prefixes, N, greedy=True)
        sampled = cf.complete(model, prefixes, N, seed=N)
        rows.append({"N": N, "weights": cf.construction_size(model), "prefixes": len(prefixes),
                     "invalid (greedy)": int((~dw.is_valid(greedy)).sum()),
                     "invalid (sampled)": int((~dw.is_valid(sampled)).sum())})
    return pd.DataFrame(rows)


# ----------------------------------------------------------------------------- the closed form beside trained models
def closed_form_accuracy(result, word) -> float:
    """Theorem 4.1's head built from ``word``, on the deep test prompts of a Dyck sweep's ``result``
    (its ``N``, ``test_depth`` and ``n_test``, the prompts' seed of the sweeps), sampled."""
    from .training import completion_accuracy, deep_prefixes

    validate.instance("closed_form_accuracy", "result", result, Result)
    word = cf._dyck_word("closed_form_accuracy", "word", word)
    c = result.config
    prompts = deep_prefixes(c["N"], c["test_depth"], c["n_test"], seed=1)
    return completion_accuracy(cf.dyck_completer(word), prompts, c["N"], seed=3)


def one_training_word(result) -> np.ndarray:
    """The first word of depth at most the training depth of ``result``'s sweep (the closed
    form's single training word in the chapter)."""
    from .training import word_set

    validate.instance("one_training_word", "result", result, Result)
    c = result.config
    return word_set(c["N"], 1, max_depth=c["train_depth"], seed=0)[0]


def closed_form_counts(result) -> dict:
    """Valid completions, out of the sweep's ``samples``, of each context of the ``completions``
    sweep by the closed form built from its word (Figure 4's closed-form column)."""
    validate.instance("closed_form_counts", "result", result, Result)
    c = result.config
    head = cf.dyck_completer(dw.from_string(c["word"]))
    return {label: int(dw.is_valid(cf.complete(head, [dw.from_string(text)] * c["samples"], len(c["word"]) // 2,
                                               seed=7)).sum())
            for label, text in c["contexts"].items()}


# ----------------------------------------------------------------------------- Boolean simplification
#: Sec. 2.1's printed example (k = 3, q = 3) and App. 5.1.1's GPT-4 example as GPT-4 restates it
PAPER_EXAMPLE = ("((((p3 & p3) & (true | ¬p2)) & (¬p2 & p0))) | (((¬p3 & p1) & (true & ¬p2))) "
                 "& (((p0 & p2) & ((p3 | true) | (¬p3 | ¬p3))))")
GPT4_PROMPT = ("(((¬p2|¬p2)|(false|(false&false))))&(((false&true)|((p3|p3)&(¬p3|¬p2))))&(((p2|¬p2)&"
               "((¬p0&¬p1)|(p3|¬p2))))|(((¬p0|(p1&¬p3))|(p2&(p2|p3))))&(((¬p1|p1)&(p1|false)))")
GPT4_ANSWER = "((p3&¬p2)|¬p0|p2)&p1"
#: what the paper prints as their simplified forms
PAPER_EXAMPLE_FORM, GPT4_CORRECT = "p0 & p3 & ¬p2", "p1 | (p3 & ¬p2)"


def oracle_sample(n: int) -> list[str]:
    """``n // 6`` random expressions for each of k in (1, 5) and q in (1, 3, 6), seeded by (k, q)."""
    from ...tasks import boolean_expressions as bx

    n = validate.integer("oracle_sample", "n", n, 6, 10**6)  # n // 6 per (k, q): fewer than 6 draws nothing
    return [bx.random_expression(k, q, np.random.default_rng(1000 * k + q)) for k in (1, 5) for q in (1, 3, 6)
            for _ in range(n // 6)]


def boolean_stats(n: int, ks=(5, 1), depths=range(1, 7)):
    """Token counts and distinct answers of ``n`` expressions per (clauses, depth)."""
    import pandas as pd

    from ...tasks import boolean_expressions as bx

    n = validate.integer("boolean_stats", "n", n, 1, 10**6)
    ks = validate.integers("boolean_stats", "ks", list(ks) if isinstance(ks, range) else ks, minimum=1)
    depths = validate.integers("boolean_stats", "depths", list(depths) if isinstance(depths, range) else depths,
                               minimum=1)
    for i, q in enumerate(depths):
        validate.integer("boolean_stats", f"depths[{i}]", q, 1, 16)
    rows = []
    for k in ks:
        for q in depths:
            pairs = bx.sample(k, q, n, seed=q)
            lhs = np.array([len(bx.tokenize(a)) for a, _ in pairs])
            rhs = np.array([len(bx.tokenize(b)) for _, b in pairs])
            rows.append({"clauses k": k, "depth q": q, "LHS tokens (mean)": lhs.mean(), "LHS tokens (max)": lhs.max(),
                         "RHS tokens (mean)": rhs.mean(), "distinct RHS": len({b for _, b in pairs}),
                         "RHS true or false": np.mean([b in ("true", "false") for _, b in pairs])})
    return pd.DataFrame(rows)
