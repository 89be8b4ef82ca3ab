"""The appendix-lemmas chapter of Part IV (Boix-Adsera et al. 2024, App. G and J): every stored
claim re-derives from the computations redone at the chapter's default sizes (all exact or
float64 constructions, about half a minute), and the computations of
:mod:`lib.papers.boixadsera2024.appendix` are right where we know the answer."""
from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest

import checks_support
from checks_support import notebook_threads, pick  # noqa: F401 (an autouse fixture: two threads, as the notebooks)
from lib import claims
from lib.papers.boixadsera2024 import appendix as ap
from lib.papers.boixadsera2024 import appendix_checks as checks
from lib.papers.boixadsera2024 import copying

CHAPTER = "chapters/04_symbols/04_appendix_lemmas"


def appendix_checks() -> list:
    """The chapter's checks in its order, with its random stream and default sizes."""
    rng = np.random.default_rng(0)
    instances = ap.majorant_instances(rng, pick(50, 400, 400))
    softmax = ap.softmax_types(rng, points=pick(8, 40, 40))
    integrand = ap.integrand_types(rng, draws=pick(2, 6, 6))
    at_zero, at_one = ap.kernel_taylor_at_zero(30), ap.kernel_taylor_at(beta0=1.0, radius=0.5, n=30)
    mc = ap.kernel_against_monte_carlo(draws=pick(20_000, 400_000, 400_000))
    ds = pick([32, 128, 512], [32, 128, 512, 2048], [32, 128, 512, 2048])
    copy = ap.copy_table(ds, seeds=range(pick(2, 3, 3)))
    return [checks.lemma_g3(instances), checks.lemma_g4(instances), checks.lemma_g5(instances),
            checks.lemma_g6(softmax), checks.lemma_g7(integrand), checks.lemma_g8(integrand),
            checks.lemma_g9(integrand), checks.lemma_g1(at_zero, at_one, mc),
            checks.theorem_j2(ds, copy), checks.theorem_j3(ds, copy)]


def test_appendix_claims_rederive():
    found = appendix_checks()
    assert claims.rederive(CHAPTER, checks_support.DEFAULT, found) == []
    verdicts = {c.ref: c.verdict for c in found}
    assert verdicts.pop("Lemma G.1") == "partly"
    assert set(verdicts.values()) == {"reproduced"}
    assert {r for c in found for r in claims.covers(c.ref)} >= {"Lemma G.1", "Lemma G.3", "Lemma G.4", "Lemma G.5",
                                                                 "Lemma G.6", "Lemma G.7", "Lemma G.8", "Lemma G.9",
                                                                 "Theorem J.2", "Theorem J.3"}


# ----------------------------------------------------------------------------- the computations
def test_series_arithmetic_matches_known_expansions():
    x = ap.Series.variable(0, 0.3, 1, 12)
    e = x.exp()  # e^x around 0.3: e^0.3 / n!
    assert np.allclose(e.coef, [math.exp(0.3) / math.factorial(n) for n in range(13)], rtol=1e-13)
    inv = (ap.Series.constant(2.0, 1, 12) - x).reciprocal()  # 1/(2 - x) around 0.3: 1/1.7^(n+1)
    assert np.allclose(inv.coef, [1.7 ** -(n + 1) for n in range(13)], rtol=1e-12)
    a, b = ap.Series.variable(0, 0.5, 2, 8), ap.Series.variable(1, -1.0, 2, 8)
    prod = (a * b).exp()  # e^{xy} around (0.5, -1): the ∂x∂y coefficient is e^{-0.5}(1 + xy) = e^{-0.5} 0.5
    assert prod.coef[1, 1] == pytest.approx(math.exp(-0.5) * 0.5, rel=1e-12)
    assert prod.derivative((2, 0)) == pytest.approx(math.exp(-0.5) * 1.0, rel=1e-12)  # y² e^{xy}
    assert np.all(ap._degrees(2, 8)[prod.coef != 0] <= 8)


def test_softmax_series_is_softmax():
    x0 = np.array([0.4, -1.2, 2.0])
    s = ap.softmax_series(x0, 1, 6)
    soft = np.exp(x0) / np.exp(x0).sum()
    assert s.value == pytest.approx(soft[1], rel=1e-13)
    # ∂_j smax_i = smax_i (δ_ij - smax_j)
    assert s.derivative((1, 0, 0)) == pytest.approx(-soft[1] * soft[0], rel=1e-12)
    assert s.derivative((0, 1, 0)) == pytest.approx(soft[1] * (1 - soft[1]), rel=1e-12)


def test_majorant_rules_and_wrong_variants():
    inst = ap.majorant_instances(np.random.default_rng(1), 60)
    assert np.all(inst["comp_lhs"] <= inst["comp_rhs"] * (1 + 1e-9))
    assert np.all(inst["prod_lhs"] <= inst["prod_rhs"] * (1 + 1e-9))
    assert np.all(inst["deriv_ratio"] <= 1 + 1e-9)
    assert np.any(inst["comp_wrong_lhs"] > inst["comp_wrong_rhs"])  # the wrong composition rule fails
    assert np.max(inst["deriv_ratio_no_factorial"]) > 1


def test_checks_fail_on_a_violated_bound():
    inst = ap.majorant_instances(np.random.default_rng(2), 10)
    broken = dict(inst, comp_lhs=inst["comp_rhs"] * 1.01)
    assert checks.lemma_g3(broken).verdict == "not reproduced"
    assert checks.lemma_g5(dict(inst, deriv_ratio=inst["deriv_ratio"] + 1)).verdict == "not reproduced"
    types = {2: {"worst_ratio": 2.5, "truncation_share": 0.0, "min_radius": 0.5}}
    assert checks.lemma_g6(types).verdict == "not reproduced"


def test_tanh_coefficients_are_exact():
    H = ap.tanh_squared_half_coefficients(4)
    # tanh²(y) = y² - 2y⁴/3 + 17y⁶/45 - ...; H(t) = 1/2 + tanh²(t/2)/2
    assert H[:4] == [Fraction(1, 2), Fraction(1, 8), Fraction(-1, 48), Fraction(17, 5760)]
    z = ap.kernel_taylor_at_zero(30)
    assert z["exact"][1] == Fraction(1, 4)  # (1/8) · E[u²] = (1/8) · 2
    assert z["root"][-1] > 2 * z["root"][1]  # the root test keeps growing: the series diverges
    assert z["coef"][:3] @ (0.1 ** (2 * np.arange(3))) == pytest.approx(ap.kernel_value(0.1).real, abs=1e-6)


def test_kernel_value_is_the_books_kernel_and_analytic_at_one():
    mc = ap.kernel_against_monte_carlo(betas=(1.0,), draws=100_000)
    assert abs(mc["mc"][0] - mc["quad"][0]) < 4 * mc["se"][0]
    assert ap.kernel_taylor_at(1.0, 0.5, n=30)["series_error"] < 1e-8
    assert ap.kernel_taylor_at(1.0, 0.5, n=4)["series_error"] > 1e-6  # a short polynomial does not


def test_copy_gradients_agree_with_chapter_2():
    pairs = ap.copy_gradients(64, seed=3)
    ratios = copying.gradient_ratios(64, seed=3)
    for group, (train_sq, cross) in pairs.items():
        assert cross / train_sq == pytest.approx(ratios[group], rel=1e-10)
    table = {g: np.array([[pairs[g]]]) for g in pairs}
    assert ap.best_test_rate(table)[0, 0] == pytest.approx(max(0.0, *(ratios[g] for g in ap.GROUPS[:4])))


def test_g1_and_j_checks_can_go_either_way():
    at_zero = {"root": np.full(30, 0.7), "gamma": 0.0}
    at_one = {"coef": np.zeros(31), "series_error": 1e-12, "probes": np.array([0.6, 1.4]), "beta0": 1.0}
    mc = {"mc": [0.5], "se": [0.01], "quad": [0.5]}
    assert checks.lemma_g1(at_zero, at_one, mc).verdict == "reproduced"  # a convergent series would pass
    assert checks.lemma_g1(dict(at_zero, root=np.linspace(0.5, 2.2, 30)), dict(at_one, series_error=1e-3),
                           mc).verdict == "not reproduced"
    flat = {g: np.tile([[[1.0, 0.2]]], (2, 1, 1)) for g in ap.GROUPS}  # R_g = 0.2 at every width
    assert checks.theorem_j2([32, 2048], flat).verdict == "not reproduced"
    fading = dict(flat, b=np.array([[[8.0, 8.0]], [[8.0, 1.0]]]))  # the test rate of b falls 8-fold
    assert checks.theorem_j3([32, 2048], fading).verdict == "not reproduced"
