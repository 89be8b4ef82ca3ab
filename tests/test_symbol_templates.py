"""Template tasks over abstract symbols (Boix-Adsera et al., 2024): Def. 3.1's matching, Def. 4.1's
disjointness (against brute force), Def. 4.2's diversity, and the generator's unseen alphabets."""
import itertools

import numpy as np
import pytest
import torch

from lib.tasks import symbol_templates as st


def test_definition_3_1_example():
    assert st.matches("α α β S T", "Q Q R S T")
    assert not st.matches("α α β S T", "Q Q Q S T")  # not injective
    assert not st.matches("α α β S T", "Q Q S S T")  # β -> S, a regular token of the template
    assert st.matches("αβα", "xyx") and not st.matches("αβα", "xyy") and not st.matches("αβα", "xy")


def _brute_disjoint(a, b):
    a, b = st.parse(a), st.parse(b)
    if len(a) != len(b):
        return True
    fresh = [f"z{i}" for i in range(2 * len(a))]
    alphabet = sorted(set(st.regular_tokens(a)) | set(st.regular_tokens(b))) + fresh
    return not any(st.matches(a, x) and st.matches(b, x) for x in itertools.product(alphabet, repeat=len(a)))


def test_disjointness_is_exact_against_brute_force():
    rng = np.random.default_rng(0)
    pool, checked, disjoint = ["α", "β", "γ", "A", "B"], 0, 0
    for _ in range(300):
        k = int(rng.integers(1, 4))
        a, b = (" ".join(pool[i] for i in rng.integers(len(pool), size=k)) for _ in range(2))
        assert st.are_disjoint(a, b) == _brute_disjoint(a, b), (a, b)
        checked, disjoint = checked + 1, disjoint + st.are_disjoint(a, b)
    assert 0.1 < disjoint / checked < 0.9  # both answers occur
    assert st.are_disjoint("αβα", "αββ") and st.are_disjoint("αβ", "αα") and not st.are_disjoint("α β", "α R")
    assert st.are_equivalent("αβ", "γδ") and not st.are_equivalent("αβ", "αα")


PAPER_TASKS = {k: v for k, v in st.catalogue().items() if k != "random templates"}


@pytest.mark.parametrize("name", sorted(PAPER_TASKS))
def test_every_sample_matches_its_own_template_and_no_other(name):
    cls, (templates, labels) = PAPER_TASKS[name]
    assert all(st.are_disjoint(a, b) for a, b in itertools.combinations(templates, 2))
    task = cls(templates, labels, n_symbols=12, n_heldout=10)
    for which in st.ALPHABETS:
        variant = task.variant(which)
        index, batch = variant.draw(300, torch.Generator().manual_seed(1))
        hits = [[st.matches(t, variant.vocab.decode(row[:-1])) for t in templates] for row in batch.x]
        assert all(sum(h) == 1 and h[i] for h, i in zip(hits, index.tolist()))
        assert set(batch.x[:, :-1].flatten().tolist()) - set(range(task.cls_id)) <= set(variant.alphabet_ids())
        assert (batch.x[:, -1] == task.cls_id).all()
        if task.symbolic:  # a wildcard label is the token the string holds at that wildcard
            for row, y, i in zip(batch.x, batch.y, index.tolist()):
                label = labels[i]
                expected = row[st.parse(templates[i]).index(label)] if st.is_wildcard(label) else task.vocab[label]
                assert int(y) == int(expected)
        else:
            assert torch.equal(batch.y, torch.tensor(labels, dtype=torch.float32)[index])


def test_alphabets_are_disjoint_and_the_paper_splits_use_them():
    task = st.SymbolTemplates(*st.aba_abb(), n_symbols=32, n_heldout=100)
    ids = {w: set(task.alphabet_ids(w)) for w in st.ALPHABETS}
    assert len(ids["train"]) == 32 and len(ids["val"]) == len(ids["test"]) == 100
    assert not (ids["train"] & ids["val"] or ids["train"] & ids["test"] or ids["val"] & ids["test"])
    sets = task.splits(64, seed=2)
    assert [len(sets[w]) for w in st.ALPHABETS] == [64, 100, 100]
    for w in st.ALPHABETS:
        assert set(sets[w].x[:, :3].flatten().tolist()) <= ids[w]
    again = task.splits(64, seed=2)
    assert all(torch.equal(sets[w].x, again[w].x) for w in st.ALPHABETS)


def test_diversity_is_the_inverse_largest_substitution_probability():
    task = st.SymbolTemplates(*st.majority(4), n_symbols=40)
    assert task.diversity() == 20.0  # two wildcards in some template
    x = task.sample(40_000, seed=0).x[:, :-1]
    counts = torch.stack([(x == s).any(dim=1) for s in task.alphabet_ids()]).float().mean(dim=1)
    # the templates with two wildcards substitute a token with probability 2/40, the one with one 1/40
    assert abs(1 / counts.max().item() - 40 / (2 * 7 / 8 + 1 / 8)) < 1.5
    assert st.diversity(["α β α"], 100) == 50 and st.diversity(["A B"], 10) == float("inf")


def test_catalogue_counts_and_labels():
    templates, labels = st.majority(4)
    assert len(templates) == 8 and labels[templates.index("α β β β")] == -1 and labels[templates.index("α α α β")] == 1
    assert len(st.match_to_sample()[0]) == 40 and len(st.raven_attribute()[0]) == 37
    templates, labels = st.random_templates(10, 6, 3, 1, seed=4)
    assert len(templates) == 10 and not any(st.are_equivalent(a, b) for a, b in itertools.combinations(templates, 2))
    assert abs(np.mean(labels)) < 1e-9 and abs(np.mean(np.square(labels)) - 1) < 1e-9


def test_bad_templates_fail_loudly():
    with pytest.raises(ValueError, match="equivalent"):
        st.SymbolTemplates(["α β", "γ δ"], [1, -1])
    with pytest.raises(ValueError, match="same length"):
        st.SymbolTemplates(["α β", "α"], [1, -1])
    with pytest.raises(ValueError, match="one label per template"):
        st.SymbolTemplates(["α β", "α α"], [1])
    with pytest.raises(ValueError, match="symbolic label"):
        st.SymbolicTemplates(["α β"], ["γ"])
    with pytest.raises(ValueError, match="probs"):
        st.SymbolTemplates(*st.aba_abb(), probs=[1, -1])
    with pytest.raises(ValueError, match="n_symbols"):
        st.SymbolTemplates(["α β γ"], [1.0], n_symbols=2)
    with pytest.raises(ValueError, match="even"):
        st.majority(3)
