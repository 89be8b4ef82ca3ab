"""The appendix lemmas of Boix-Adsera et al. (2024, v1): App. G (analyticity of the attention
kernel, Lemmas G.1 and G.3-G.9) and App. J (Theorems J.2 and J.3, copying at early times).

**Our copy of App. G lost its formulas** (the text keeps the words, not the symbols), so the
statements checked here are our reading of them, reconstructed from the proofs' words and stated
in each function: a real-analytic ``f`` has ``(τ, ρ)``-*type* (Def. G.2) when, at every point
``x0``, its power series' absolute sum over the polydisc of radius ``ρ(x0)`` is at most ``τ(x0)``:
``A_f(x0, ρ) = Σ_α |a_α(x0)| ρ^{|α|} <= τ(x0)``. Every lemma of App. G is a statement about such
absolute sums, which :class:`Series` computes exactly up to a degree (truncated multivariate power
series in float64, coefficients by exact recurrences, no finite differences).

* G.3 (composition), G.4 (sum, product), G.5 (derivative bound ``|∂^α f| <= α! τ/ρ^{|α|}``):
  :func:`majorant_instances` evaluates both sides on instances, with a wrong variant each.
* G.6 (a softmax coordinate has a type whose radius does not depend on the point): :func:`softmax_types`.
* G.7 ((β, γ) ↦ smax(β(u + γ v))_i: radius shrinking like 1/|ζ|) and G.8-G.9 (the kernel's
  integrand ``h(β, γ; ζ) = smax(β m_X)ᵀ(X Yᵀ + γ² I) smax(β m_Y)``, its type and the derivative
  bound that follows): :func:`integrand_types`.
* G.1 (``κ(β, γ) = E h`` is real-analytic): :func:`kernel_taylor_at_zero` (exact rational Taylor
  coefficients at β = 0 for X = Y = two distinct tokens, where the kernel is a one-dimensional
  Gaussian integral) and :func:`kernel_taylor_at` (Cauchy coefficients at β0 > 0).
* J.2 and J.3: :func:`copy_gradients`, the model of :mod:`.copying` with the gradient norms kept.
"""
from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import torch
import torch.nn.functional as F

from ... import validate


# ============================================================================= truncated power series
class Series:
    """A power series in ``m`` variables around a point, truncated at total degree ``N``: the
    coefficients ``a_α`` for ``|α| <= N`` in an array of shape ``(N + 1,) * m``."""

    def __init__(self, coef: np.ndarray):
        self.coef = np.asarray(coef, dtype=float)
        self.m, self.N = self.coef.ndim, self.coef.shape[0] - 1
        self.coef = self.coef * (_degrees(self.m, self.N) <= self.N)

    @classmethod
    def constant(cls, value: float, m: int, N: int) -> "Series":
        c = np.zeros((N + 1,) * m)
        c[(0,) * m] = value
        return cls(c)

    @classmethod
    def variable(cls, j: int, x0: float, m: int, N: int) -> "Series":
        """``x_j`` around ``x0`` (its value ``x0`` plus the shift ``δ_j``)."""
        s = cls.constant(x0, m, N)
        if N >= 1:
            s.coef[tuple(1 if i == j else 0 for i in range(m))] = 1.0
        return s

    @property
    def value(self) -> float:
        return float(self.coef[(0,) * self.m])

    def __add__(self, other):
        return Series(self.coef + (other.coef if isinstance(other, Series) else _const(other, self)))

    __radd__ = __add__

    def __sub__(self, other):
        return Series(self.coef - (other.coef if isinstance(other, Series) else _const(other, self)))

    def __neg__(self):
        return Series(-self.coef)

    def __mul__(self, other):
        if not isinstance(other, Series):
            return Series(self.coef * float(other))
        a, b, target = _pairs(self.m, self.N)
        flat = np.bincount(target, weights=self.coef.ravel()[a] * other.coef.ravel()[b], minlength=self.coef.size)
        return Series(flat.reshape(self.coef.shape))

    __rmul__ = __mul__

    def shifted(self) -> "Series":
        """The series minus its value at the centre (``f - f(x0)``)."""
        return self - self.value

    def compose(self, coefficients) -> "Series":
        """``Σ_n c_n (f - f(x0))^n`` for one-variable coefficients ``c_n`` (n <= N)."""
        d = self.shifted()
        out, power = Series.constant(0.0, self.m, self.N), Series.constant(1.0, self.m, self.N)
        for c in list(coefficients)[:self.N + 1]:
            out = out + power * c
            power = power * d
        return out

    def exp(self) -> "Series":
        e = math.exp(self.value)
        return self.compose(e / math.factorial(n) for n in range(self.N + 1))

    def reciprocal(self) -> "Series":
        y0 = self.value
        return self.compose((-1) ** n / y0 ** (n + 1) for n in range(self.N + 1))

    def absolute_sum(self, r: float, drop_constant: bool = False) -> float:
        """``A(r) = Σ_α |a_α| r^{|α|}`` over the stored degrees (the constant term dropped if asked)."""
        terms = np.abs(self.coef) * float(r) ** _degrees(self.m, self.N)
        if drop_constant:
            terms[(0,) * self.m] = 0.0
        return float(terms.sum())

    def top_degree_share(self, r: float) -> float:
        """The share of ``A(r)`` in the highest stored degree (small: the truncation is negligible)."""
        deg = _degrees(self.m, self.N)
        terms = np.abs(self.coef) * float(r) ** deg
        return float(terms[deg == self.N].sum() / max(terms.sum(), 1e-300))

    def derivative(self, alpha) -> float:
        """``∂^α f(x0) = α! a_α`` (Remark 2.2.4 of [KP02], as Lemma G.5's proof uses it)."""
        return float(self.coef[tuple(alpha)] * math.prod(math.factorial(a) for a in alpha))


def _degrees(m: int, N: int) -> np.ndarray:
    return sum(np.indices((N + 1,) * m))


_PAIRS: dict[tuple[int, int], tuple] = {}


def _pairs(m: int, N: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every pair of stored monomials whose product is stored, as flat indices ``(a, b, a·b)``."""
    if (m, N) not in _PAIRS:
        shape = (N + 1,) * m
        exps = np.array([e for e in np.ndindex(*shape) if sum(e) <= N], dtype=int).reshape(-1, m)
        total = exps[:, None, :] + exps[None, :, :]
        ok = total.sum(axis=2) <= N
        ia, ib = np.nonzero(ok)
        flat = np.ravel_multi_index(tuple(exps.T), shape)
        _PAIRS[m, N] = (flat[ia], flat[ib], np.ravel_multi_index(tuple(total[ia, ib].T), shape))
    return _PAIRS[m, N]


def _const(value, like: Series) -> np.ndarray:
    c = np.zeros_like(like.coef)
    c[(0,) * like.m] = float(value)
    return c


def _variables(x0, N: int) -> list[Series]:
    x0 = [float(v) for v in x0]
    return [Series.variable(j, v, len(x0), N) for j, v in enumerate(x0)]


def softmax_series(x0, i: int, N: int) -> Series:
    """``smax(x)_i`` around ``x0`` as in Lemma G.6's proof: ``h(g(x))`` with
    ``g(x) = Σ_j exp(x_j - x_i)`` and ``h(y) = 1/y``."""
    x = _variables(x0, N)
    return softmax_of(x, i)


def softmax_of(w: list[Series], i: int) -> Series:
    """``smax(w)_i`` for series ``w_j`` (shifted by ``w_i``'s value before the exponentials)."""
    g = sum(((wj - w[i]).exp() for wj in w), Series.constant(0.0, w[0].m, w[0].N))
    return g.reciprocal()


# ============================================================================= Lemmas G.3-G.5
def majorant_instances(rng: np.random.Generator, count: int, N: int = 24) -> dict[str, np.ndarray]:
    """Both sides of Lemmas G.3, G.4 and G.5 on ``count`` random one-variable instances
    (around a random point, at a random radius inside every radius of convergence), with a
    wrong variant of each rule. Our reading of the rules:

    * G.4: ``A_{f+g}(r) <= A_f(r) + A_g(r)`` and ``A_{fg}(r) <= A_f(r) A_g(r)``, so ``f + g`` has
      ``(τ_f + τ_g, min(ρ_f, ρ_g))``-type and ``fg`` ``(τ_f τ_g, min(ρ_f, ρ_g))``-type;
    * G.3: ``A_{g∘f}(r) <= A_g(f(x0), A_{f - f(x0)}(r))``: if ``f - f(x0)``'s absolute sum at ``r``
      stays within ``ρ_g(f(x0))``, then ``g∘f`` has absolute sum at most ``τ_g(f(x0))`` at ``r``;
    * G.5: ``|f^{(n)}(x0)| <= n! τ(x0) / ρ(x0)^n``.

    The instances are f = exp(a x) + b/(c - x) and g = 1/(d - y) (plus exp(y) for the composition),
    whose radii are known (|c - x0| and |d - f(x0)|)."""
    validate.integer("majorant_instances", "count", count, minimum=1, maximum=10_000)
    out = {k: [] for k in ("sum_lhs", "sum_rhs", "prod_lhs", "prod_rhs", "comp_lhs", "comp_rhs", "deriv_ratio",
                           "deriv_ratio_no_factorial", "comp_wrong_lhs", "comp_wrong_rhs", "prod_wrong_lhs",
                           "prod_wrong_rhs")}
    for _ in range(count):
        x0, a, b = rng.uniform(-1, 1), rng.uniform(-2, 2), rng.uniform(-1, 1)
        c = x0 + rng.choice([-1, 1]) * rng.uniform(1.0, 3.0)  # f's pole: radius |c - x0|
        x = Series.variable(0, x0, 1, N)
        f = (x * a).exp() + (Series.constant(c, 1, N) - x).reciprocal() * b
        g = (Series.constant(rng.uniform(-1, 1), 1, N) + x * rng.uniform(-1, 1)).exp()
        r = rng.uniform(0.1, 0.5) * abs(c - x0)
        out["sum_lhs"].append((f + g).absolute_sum(r))
        out["sum_rhs"].append(f.absolute_sum(r) + g.absolute_sum(r))
        out["prod_lhs"].append((f * g).absolute_sum(r))
        out["prod_rhs"].append(f.absolute_sum(r) * g.absolute_sum(r))
        # the composition: outer(y) = 1/(d - y) around y0 = f(x0), radius |d - y0|; absolute series 1/(|d-y0| - s)
        y0 = f.value
        d = y0 + rng.choice([-1, 1]) * rng.uniform(1.0, 3.0)
        s = f.absolute_sum(r, drop_constant=True)
        scale = min(1.0, 0.5 * abs(d - y0) / max(s, 1e-12))  # shrink r until A_{f-f0} <= ρ_g / 2
        r_c = r * scale
        s = f.absolute_sum(r_c, drop_constant=True)
        comp = Series.constant(d, 1, N) - f
        out["comp_lhs"].append(comp.reciprocal().absolute_sum(r_c))
        out["comp_rhs"].append(1.0 / (abs(d - y0) - s))
        # wrong variant: the composition's radius taken as f's own (r, ignoring ρ_g): outer pole at y0 + ε
        near = Series.constant(y0 + 0.05, 1, N) - f
        out["comp_wrong_lhs"].append(near.reciprocal().absolute_sum(r))
        out["comp_wrong_rhs"].append(1.0 / 0.05 * 2)  # τ_g of 1/(y0 + ε - y) at radius ε/2
        # wrong variant of the product rule: τ_{fg} = max(τ_f, τ_g)
        out["prod_wrong_lhs"].append((f * g).absolute_sum(r))
        out["prod_wrong_rhs"].append(max(f.absolute_sum(r), g.absolute_sum(r)))
        # G.5 on f at radius r: the largest |f^(n)| / (n! A_f(r) / r^n) over n; without the n!
        A = f.absolute_sum(r)
        ratios = [abs(f.derivative((n,))) / (math.factorial(n) * A / r**n) for n in range(N + 1)]
        out["deriv_ratio"].append(max(ratios))
        out["deriv_ratio_no_factorial"].append(max(abs(f.derivative((n,))) / (A / r**n) for n in range(N + 1)))
    return {k: np.array(v) for k, v in out.items()}


# ============================================================================= Lemma G.6
RHO_SOFTMAX = math.log(1.5) / 2  # our reading of G.6's radius: e^{2ρ} - 1 <= 1/2


def softmax_types(rng: np.random.Generator, ks=(2, 3), points: int = 20, spread: float = 8.0, N: int = 10,
                  rho: float = RHO_SOFTMAX) -> dict:
    """Lemma G.6, our reading of its proof: ``smax(·)_i`` on ``R^k`` is of ``(2 smax_i, ρ)``-type
    with ``ρ = ln(3/2)/2`` whatever ``k`` and the point. For each ``k`` and random points (entries
    of spread up to ``spread``): the largest ``A_{s_i}(x0, ρ) / smax_i(x0)`` (must be <= 2), the
    truncation's share, and the largest radius ``r*`` at which the ratio still stays <= 2
    (bisection; the lemma needs ``r* >= ρ`` everywhere)."""
    out = {}
    for k in ks:
        worst, share, rstar = 0.0, 0.0, math.inf
        for _ in range(points):
            x0 = rng.normal(size=k) * rng.uniform(0, spread)
            i = int(rng.integers(k))
            s = softmax_series(x0, i, N)
            worst = max(worst, s.absolute_sum(rho) / s.value)
            share = max(share, s.top_degree_share(rho))
            lo, hi = 0.0, 2.0
            for _ in range(30):
                mid = (lo + hi) / 2
                lo, hi = (mid, hi) if s.absolute_sum(mid) <= 2 * s.value else (lo, mid)
            rstar = min(rstar, lo)
        out[k] = {"worst_ratio": worst, "truncation_share": share, "min_radius": rstar}
    return out


# ============================================================================= Lemmas G.7-G.9
def _score_series(u, v, beta0: float, gamma0: float, N: int) -> list[Series]:
    """``β (u_j + γ v_j)`` around ``(β0, γ0)`` in the variables ``(β, γ)``."""
    b, g = Series.variable(0, beta0, 2, N), Series.variable(1, gamma0, 2, N)
    return [b * (g * float(vj) + float(uj)) for uj, vj in zip(u, v)]


def inner_radius(u, v, beta0: float, gamma0: float, rho: float = RHO_SOFTMAX) -> float:
    """G.7 by the composition rule: the largest ``r`` at which every score's shift
    ``r|u_j + γ0 v_j| + r|β0 v_j| + r²|v_j|`` stays within softmax's radius ``ρ``: about
    ``ρ / (|u|_∞ + (|β0| + |γ0|)|v|_∞)``, shrinking like ``1/|ζ|``."""
    u, v = np.abs(np.asarray(u, float)), np.asarray(v, float)
    a = np.max(np.abs(np.asarray(u) + gamma0 * v) + abs(beta0) * np.abs(v))  # conservative: per coordinate max
    q = np.max(np.abs(v))
    return float((-a + math.sqrt(a * a + 4 * q * rho)) / (2 * q)) if q > 0 else rho / a


def integrand_series(ux, uy, v, M, beta0: float, gamma0: float, N: int) -> Series:
    """The kernel's integrand ``h = smax(β m_X)ᵀ (M + γ² I) smax(β m_Y)`` around ``(β0, γ0)``,
    ``m_X = u_X + γ v``, ``m_Y = u_Y + γ v`` (``u`` the token Gaussians, ``v`` the positional ones,
    ``M = X Yᵀ`` the incidence matrix), as in Lemma G.1's proof."""
    k = len(v)
    wx, wy = _score_series(ux, v, beta0, gamma0, N), _score_series(uy, v, beta0, gamma0, N)
    sx, sy = [softmax_of(wx, i) for i in range(k)], [softmax_of(wy, j) for j in range(k)]
    g = Series.variable(1, gamma0, 2, N)
    out = Series.constant(0.0, 2, N)
    for i in range(k):
        for j in range(k):
            entry = g * g * float(i == j) + float(M[i][j])
            if entry.absolute_sum(1.0) > 0:
                out = out + sx[i] * entry * sy[j]
    return out


def integrand_types(rng: np.random.Generator, scales=(0.5, 1, 2, 4, 8, 16), draws: int = 4, N: int = 10,
                    beta0: float = 1.0, gamma0: float = 1.0) -> dict:
    """Lemmas G.7-G.9 for X = (a, b, a), Y = (a, c, c) (k = 3) with the Gaussians scaled by
    ``scale`` (the size of ``ζ``):

    * G.7: at ``r = inner_radius(...)`` the absolute sum of each ``smax(β m_X)_i`` is <= 2 smax_i;
      the measured largest radius ``r*`` where it stays so falls like ``1/scale`` (``r* × scale``
      roughly constant), so the radius must shrink with ``|ζ|``;
    * G.8: ``h`` has ``(τ_h, r)``-type with ``τ_h = 4 max_ij (|M_ij| + (|γ0| + r)²)`` (sum and
      product rules with the softmax factors' ``2 smax`` summing to 2 on each side): the largest
      ``A_h(r) / τ_h`` must be <= 1;
    * G.9: ``|∂^α h| <= α! τ_h / r^{|α|}`` for every ``|α| <= N``: the largest ratio must be <= 1,
      and the ratio at ``β``-order N does not fall with the scale (the ``|ζ|^{|α|}`` growth is
      real, not an artefact of the bound)."""
    X, Y = [0, 1, 0], [0, 2, 2]
    M = [[float(x == y) for y in Y] for x in X]
    rows = []
    for s in scales:
        for _ in range(draws):
            tok = rng.normal(size=3) * s  # one Gaussian per distinct token a, b, c
            v = rng.normal(size=3) * s
            ux, uy = tok[X], tok[Y]
            r = inner_radius(np.concatenate([ux, uy]), np.concatenate([v, v]), beta0, gamma0)
            wx = _score_series(ux, v, beta0, gamma0, N)
            soft = [softmax_of(wx, i) for i in range(3)]
            g7 = max(si.absolute_sum(r) / si.value for si in soft)
            lo, hi = 0.0, 4.0 / s
            for _ in range(25):
                mid = (lo + hi) / 2
                ok = all(si.absolute_sum(mid) <= 2 * si.value for si in soft)
                lo, hi = (mid, hi) if ok else (lo, mid)
            h = integrand_series(ux, uy, v, M, beta0, gamma0, N)
            tau = 4 * max(abs(M[i][j]) + (abs(gamma0) + r) ** 2 * (i == j) for i in range(3) for j in range(3))
            deriv = max(abs(h.derivative((a, b))) / (math.factorial(a) * math.factorial(b) * tau / r ** (a + b))
                        for a in range(N + 1) for b in range(N + 1 - a))
            top = abs(h.derivative((N, 0))) / math.factorial(N)  # |∂_β^N h| / N!
            rows.append({"scale": s, "radius": r, "g7_ratio": g7, "rstar": lo, "g8_ratio": h.absolute_sum(r) / tau,
                         "g9_ratio": deriv, "top_derivative": top, "truncation_share": h.top_degree_share(r)})
    return {"rows": rows, "N": N, "beta0": beta0, "gamma0": gamma0}


# ============================================================================= Lemma G.1
def _bernoulli(n: int) -> list[Fraction]:
    """B_0..B_n (B_1 = -1/2), exactly."""
    B = [Fraction(0)] * (n + 1)
    for m in range(n + 1):
        B[m] = Fraction(1) if m == 0 else -sum(Fraction(math.comb(m + 1, j)) * B[j] for j in range(m)) / (m + 1)
    return B


def tanh_squared_half_coefficients(M: int) -> list[Fraction]:
    """The Taylor coefficients of ``H(t) = smax(t, 0)_1² + smax(t, 0)_2² = 1/2 + tanh²(t/2)/2`` at 0,
    of ``t^{2m}`` for m = 0..M, exactly (``tanh² = 1 - tanh'`` and tanh's Bernoulli series)."""
    B = _bernoulli(2 * M + 2)
    out = [Fraction(1, 2)]
    for m in range(1, M + 1):
        n = m + 1  # tanh'(y) = Σ_n 4^n (4^n - 1) B_{2n} (2n - 1) y^{2n-2} / (2n)!
        c = Fraction(4**n * (4**n - 1)) * B[2 * n] * (2 * n - 1) / math.factorial(2 * n)
        out.append(-c / 2 / Fraction(4) ** m)  # H = 1/2 + (1 - tanh'(t/2))/2: the y^{2m} term times 2^{-2m}
    return out


def kernel_taylor_at_zero(M: int = 30, gamma: float = 0.0) -> dict:
    """κ(β, γ) = K_attn(X, X) for X = two distinct tokens (k = 2) as a series in β at 0, exactly:
    with ``u = m_1 - m_2 ~ N(0, 2(1 + γ²))``, ``κ = (1 + γ²) E[H(β u)]``, so the coefficient of
    ``β^{2m}`` is ``(1 + γ²) H_{2m} (2m - 1)!! (2(1 + γ²))^m``. Returns the coefficients (floats of
    exact rationals for γ = 0) and the root-test values ``|c_m|^{1/(2m)}`` (their growth without
    bound means the series diverges for every β ≠ 0: κ is not real-analytic at β = 0)."""
    validate.integer("kernel_taylor_at_zero", "M", M, minimum=2, maximum=200)
    H = tanh_squared_half_coefficients(M)
    var = 2 * (1 + gamma**2)
    coef = [(1 + gamma**2) * float(H[m]) * math.prod(range(1, 2 * m, 2)) * var**m for m in range(M + 1)]
    root = [abs(c) ** (1 / (2 * m)) for m, c in enumerate(coef) if m > 0]
    exact = [H[m] * math.prod(range(1, 2 * m, 2)) * 2**m for m in range(M + 1)] if gamma == 0 else None
    return {"coef": np.array(coef), "root": np.array(root), "exact": exact, "gamma": gamma}


def kernel_value(beta: complex, gamma: float = 0.0, L: float = 60.0, steps: int = 24001) -> complex:
    """κ(β, γ) for X = Y = two distinct tokens as ``(1 + γ²) ∫ H(t) φ_{σβ}(t) dt`` (t = β u, σ² =
    2(1 + γ²)), valid for complex β with ``|arg β| < π/4`` (the Gaussian factor decays), by the
    trapezoidal rule."""
    t = np.linspace(-L, L, steps)
    H = 0.5 + 0.5 * np.tanh(t / 2) ** 2
    s2 = 2 * (1 + gamma**2) * complex(beta) ** 2
    w = np.exp(-t**2 / (2 * s2)) / np.sqrt(2 * np.pi * s2)
    return complex((1 + gamma**2) * np.trapezoid(H * w, t))


def kernel_taylor_at(beta0: float = 1.0, radius: float = 0.5, gamma: float = 0.0, n: int = 30,
                     points: int = 256) -> dict:
    """Taylor coefficients of κ(·, γ) at ``β0 > 0`` by the Cauchy integral on the circle of
    ``radius`` (inside ``|arg β| < π/4``), and their root-test values ``|a_n|^{1/n}`` (bounded:
    analytic at β0, with radius at least about 1/max)."""
    theta = 2 * np.pi * np.arange(points) / points
    values = np.array([kernel_value(beta0 + radius * np.exp(1j * th), gamma) for th in theta])
    a = np.fft.fft(values) / points / radius ** np.arange(points)
    a = a[:n + 1].real
    probes = beta0 + 0.8 * radius * np.array([-1.0, -0.5, 0.5, 1.0])  # real points inside the circle
    error = max(abs(np.polyval(a[::-1], b - beta0) - kernel_value(b, gamma).real) for b in probes)
    return {"coef": a, "root": np.abs(a[1:]) ** (1 / np.arange(1, n + 1)), "beta0": beta0, "radius": radius,
            "series_error": float(error), "probes": probes}


def kernel_against_monte_carlo(betas=(0.5, 1.0, 3.0), gamma: float = 0.0, draws: int = 200_000) -> dict:
    """:func:`kernel_value` beside the book's Monte Carlo kernel (:func:`.kernel.pattern_values`)
    for X = Y = two distinct tokens: the function analysed here is the kernel the book uses."""
    from . import kernel as K

    out = {"beta": list(betas), "mc": [], "se": [], "quad": []}
    for b in betas:
        v = K.pattern_values(np.array([[0, 1, 0, 1]]), K.KernelParams(beta=b, gamma=gamma, draws=draws), per_draw=True)
        out["mc"].append(float(v.mean()))
        out["se"].append(float(v.std() / math.sqrt(v.size)))
        out["quad"].append(kernel_value(b, gamma).real)
    return out


# ============================================================================= Theorems J.2, J.3
GROUPS = ("W_E", "p", "W_V", "W_O", "b")


def copy_gradients(d: int, n_train: int = 16, n_test: int = 100, n_heads: int = 8, gamma: float = 1.0,
                   seed: int = 0) -> dict[str, tuple[float, float]]:
    """At initialisation of the copying model of App. J (eq. 27-28, as :mod:`.copying`: the same
    initialisation and the same draws for a seed), per parameter group g:
    ``(|∇_g L_train|², <∇_g L_test, ∇_g L_train>)``. Under gradient flow with learning rates η_g,
    ``-dL_train/dt = Σ η_g |∇_g L_train|²`` and ``-dL_test/dt = Σ η_g <∇_g L_test, ∇_g L_train>``."""
    owner = "copy_gradients"
    validate.integer(owner, "d", d, minimum=1, maximum=4096)
    validate.integer(owner, "n_train", n_train, minimum=1, maximum=10_000)
    validate.integer(owner, "n_test", n_test, minimum=1, maximum=10_000)
    validate.integer(owner, "n_heads", n_heads, minimum=1, maximum=64)
    validate.seed(owner, "seed", seed)
    V, d_head = n_train + n_test, d
    g = torch.Generator().manual_seed(seed)
    normal = lambda *shape, std: (torch.randn(*shape, generator=g, dtype=torch.float64) * std).requires_grad_()  # noqa: E731
    params = {"W_E": normal(V, d, std=1.0), "p": normal(d, std=1.0), "W_V": normal(n_heads, d, d_head, std=d**-0.5),
              "W_O": normal(n_heads, d_head, d, std=(n_heads * d_head) ** -0.5),
              "b": torch.zeros(n_heads, dtype=torch.float64, requires_grad=True)}

    def loss(tokens):
        z = params["W_E"][tokens] + gamma * params["p"]
        out = torch.einsum("bd,hde,hef->bf", z, params["W_V"], params["W_O"]) + params["b"].sum() * z
        return F.cross_entropy(out @ params["W_E"].T / d, tokens)

    grads = {name: torch.autograd.grad(loss(tokens), [params[gr] for gr in GROUPS])
             for name, tokens in (("train", torch.arange(n_train)), ("test", torch.arange(n_train, V)))}
    return {gr: (float((tr * tr).sum()), float((te * tr).sum()))
            for gr, tr, te in zip(GROUPS, grads["train"], grads["test"])}


def copy_table(ds, seeds) -> dict[str, np.ndarray]:
    """``copy_gradients`` for every d and seed: arrays ``(len(ds), len(seeds), 2)`` per group."""
    ds = validate.integers("copy_table", "ds", ds, minimum=1)
    seeds = list(validate.integers("copy_table", "seeds", seeds, minimum=0))
    out = {gr: np.zeros((len(ds), len(seeds), 2)) for gr in GROUPS}
    for i, d in enumerate(ds):
        for j, seed in enumerate(seeds):
            for gr, pair in copy_gradients(d, seed=seed).items():
                out[gr][i, j] = pair
    return out


def best_test_rate(table: dict[str, np.ndarray], groups=GROUPS[:4]) -> np.ndarray:
    """Theorem J.2's quantity: the largest ``-dL_test/dt`` any non-negative learning rates on
    ``groups`` can buy while ``-dL_train/dt = 1``: ``max_g max(R_g, 0)`` (a linear programme whose
    optimum sits on one group), per (d, seed)."""
    R = np.stack([table[g][..., 1] / table[g][..., 0] for g in groups])
    return np.maximum(R, 0).max(axis=0)
