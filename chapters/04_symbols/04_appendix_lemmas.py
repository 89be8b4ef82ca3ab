# ---
# jupyter:
#   jupytext:
#     cell_metadata_filter: tags,-all
#     formats: ipynb,py:percent
#     notebook_metadata_filter: kernelspec,jupytext,execution,mystnb
#     text_representation:
#       extension: .py
#       format_name: percent
#       format_version: '1.3'
#       jupytext_version: 1.19.6
#   kernelspec:
#     display_name: Python 3 (ipykernel)
#     language: python
#     name: python3
# ---

# %% [markdown]
# (sy-appendix-lemmas)=
# # Abstract symbols: the appendix lemmas
#
# Two appendices of the paper carry lemmas that the earlier chapters use without checking:
#
# * **App. G** proves that the attention kernel $\kappa_{X,Y}(\beta, \gamma) = K_{\rm attn}(X, Y)$
#   is a real-analytic function of the inverse temperature β and the positional strength γ
#   (Lemma G.1). Lemma 4.7's proof needs this: it compares Taylor coefficients at
#   $(\beta, \gamma) = (0, 0)$ and then invokes the identity theorem for analytic functions.
#   Lemmas G.3-G.9 are the tools: how a quantitative form of analyticity passes through sums,
#   products and compositions, and what it gives for softmax and for the kernel's integrand.
# * **App. J** states Theorems 5.1 and 5.2 formally (Theorems J.2 and J.3): the early-time
#   rates of the training and test losses on the copy task, over all learning rates.
#
# **A warning about the source.** Our copy of the paper's text lost the formulas of App. G: the
# words survive, the symbols do not. The statements below are our reading, reconstructed from
# the words of the proofs, and every claim says so. App. J's statements survive in words.
#
# **What "type" means (Def. G.2).** A real-analytic $f$ has $(\tau, \rho)$-type when, around
# every point $x_0$, its power series $\sum_\alpha a_\alpha (x - x_0)^\alpha$ converges
# absolutely on the polydisc of radius $\rho(x_0)$, with
# $A_f(x_0, \rho) := \sum_\alpha |a_\alpha| \rho^{|\alpha|} \le \tau(x_0)$.
# Every lemma of App. G is a statement about such absolute sums. We compute them exactly, up to a
# degree: a truncated power series in one, two or three variables, in float64, with the
# coefficients of exp and $1/y$ composed by their exact recurrences. A share of the sum in the
# top degree below $10^{-6}$ says the truncation does not matter.

# %% tags=["setup", "remove-cell"]
# Setup (not shown in the book): on Colab, install the course once, keeping Colab's own torch.
# The marker file is written only after a complete install, so a failed one is retried on a re-run.
import os, subprocess, sys
REPO = "https://github.com/attention-by-construction/attention-by-construction"
if "google.colab" in sys.modules:
    if not os.path.exists("/content/abc/.installed"):
        subprocess.run(["rm", "-rf", "/content/abc"], check=True)
        subprocess.run(["git", "clone", "-q", "--depth", "1", REPO, "/content/abc"], check=True)
        subprocess.run([sys.executable, "-m", "pip", "install", "-q", "-e", "/content/abc"], check=True)
        open("/content/abc/.installed", "w").close()
    sys.path.insert(0, "/content/abc")
import lib
device = lib.setup_notebook(seed=0)

# %%
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from lib import claims, plots, scale
from lib.papers.boixadsera2024 import appendix as ap
from lib.papers.boixadsera2024 import appendix_checks as checks
from lib.plots import table

plots.use_style()
record = claims.Recorder(paper="boixadsera2024", chapter="chapters/04_symbols/04_appendix_lemmas")
rng = np.random.default_rng(0)

# %% [markdown]
# (sy-g3-g5)=
# ## Lemmas G.3-G.5: the rules of the calculus
#
# Our reading of the three general rules:
#
# * **G.3 (composition).** If the shift $f - f(x_0)$ has absolute sum at most $\rho_g(f(x_0))$
#   on a radius $r$, then $g \circ f$ has absolute sum at most $\tau_g(f(x_0))$ there. The heart
#   of it is the majorant inequality $A_{g\circ f}(r) \le A_g\big(f(x_0), A_{f - f(x_0)}(r)\big)$.
# * **G.4 (sum and product).** $A_{f+g} \le A_f + A_g$ and $A_{fg} \le A_f A_g$ on a common radius.
# * **G.5 (derivatives).** $|\partial^\alpha f(x_0)| \le \alpha!\, \tau(x_0) / \rho(x_0)^{|\alpha|}$.
#
# We evaluate both sides on random instances: $f = e^{ax} + b/(c - x)$ around a random point,
# an entire $g = e^{p + qx}$, and an outer function $1/(d - y)$ whose radius $|d - f(x_0)|$ is
# known. Each rule also gets a wrong variant, which must fail somewhere: a composition given
# $f$'s radius alone (ignoring $g$'s), a product typed by $\max(\tau_f, \tau_g)$, and the
# derivative bound without $\alpha!$.

# %%
instances = ap.majorant_instances(rng, scale.pick(smoke=50, default=400, paper=400))
ratio = lambda a, b: np.max(instances[a] / instances[b])  # noqa: E731
pd.Series({"G.3: A(g∘f) / majorant": ratio("comp_lhs", "comp_rhs"),
           "G.4: A(f+g) / (A(f) + A(g))": ratio("sum_lhs", "sum_rhs"),
           "G.4: A(fg) / (A(f) A(g))": ratio("prod_lhs", "prod_rhs"),
           "G.5: |f⁽ⁿ⁾| / (n! τ/ρⁿ)": instances["deriv_ratio"].max(),
           "G.5 without n!": instances["deriv_ratio_no_factorial"].max()}, name="largest ratio").to_frame()

# %% [markdown]
# Every rule holds with a largest ratio at most 1 (the composition's majorant is nearly
# attained); each wrong variant fails. These are the lemmas' whole content, so the checks
# below are the lemmas as we read them.

# %% tags=["hide-input"]
for check in (checks.lemma_g3(instances), checks.lemma_g4(instances), checks.lemma_g5(instances)):
    assert check.verdict == "reproduced", check.ours
    record(check)

# %% [markdown]
# (sy-g6)=
# ## Lemma G.6: softmax has a radius that does not depend on the point
#
# The proof writes a softmax coordinate as $1/y$ composed with $g(x) = \sum_j e^{x_j - x_i}$.
# The shift of $g$ has absolute sum $(g(x_0) - 1)(e^{2r} - 1)$, which stays within half of
# $g(x_0)$ (the radius of $1/y$ with room to spare) once $e^{2r} \le 3/2$. So, in our reading,
# $\mathrm{smax}_i$ has $(2\,\mathrm{smax}_i, \rho)$-type with $\rho = \ln(3/2)/2 \approx 0.203$,
# whatever the point and the length $k$. We test it at random points, with entries up to ±8 in
# spread, for $k = 2$ and $k = 3$, and also find by bisection the largest radius at which the
# absolute sum stays within $2\,\mathrm{smax}_i$.

# %%
softmax = ap.softmax_types(rng, points=scale.pick(smoke=8, default=40, paper=40))
table(pd.DataFrame(softmax).T.rename_axis("k"))

# %% tags=["hide-input"]
check = checks.lemma_g6(softmax)
assert check.verdict == "reproduced", check.ours
record(check)

# %% [markdown]
# The smallest radius found, about $\ln 2 / 2 \approx 0.35$, sits above the $0.203$ our reading
# of the proof gives: the rule is safe, and not far from tight.
#
# (sy-g7-g9)=
# ## Lemmas G.7-G.9: the kernel's integrand
#
# The kernel is an expectation over Gaussians $\zeta$: the scores are
# $m_X = u_X + \gamma v$, with one standard Gaussian per token in $u_X$ and one per position in
# $v$, and
# $$h(\beta, \gamma; \zeta) = \mathrm{smax}(\beta m_X)^\top (XY^\top + \gamma^2 I)\, \mathrm{smax}(\beta m_Y),
# \qquad \kappa_{X,Y}(\beta, \gamma) = \mathbb{E}_\zeta\, h.$$
#
# * **G.7.** $(\beta, \gamma) \mapsto \mathrm{smax}(\beta(u + \gamma v))_i$ is a composition of
#   G.6's softmax with a polynomial map. The composition rule then gives a radius of about
#   $\rho_{G.6} / (|u|_\infty + (|\beta| + |\gamma|)|v|_\infty)$: it shrinks like $1/|\zeta|$.
# * **G.8.** By the sum and product rules, $h$ has $(\tau_h, \rho)$-type with
#   $\tau_h = 4 \max_{ij}(|(XY^\top)_{ij}| + (|\gamma| + \rho)^2 1_{i=j})$, a constant set by $k$.
# * **G.9.** G.5 applied to G.8: $|\partial^\alpha h| \le \alpha!\, \tau_h / \rho^{|\alpha|}$, a
#   bound that grows like $|\zeta|^{|\alpha|}$.
#
# We take $k = 3$, $X = aba$, $Y = acc$, and expand around $(\beta, \gamma) = (1, 1)$ in both
# variables at once. The Gaussians are scaled by 0.5 to 16, to see the radius shrink. For G.7 we
# also measure, by bisection, the largest radius at which every softmax coordinate keeps its bound.

# %%
integrand = ap.integrand_types(rng, draws=scale.pick(smoke=2, default=6, paper=6))
rows = pd.DataFrame(integrand["rows"]).groupby("scale").max()
rows["rstar × scale"] = rows["rstar"] * rows.index
table(rows[["radius", "rstar", "rstar × scale", "g7_ratio", "g8_ratio", "g9_ratio"]])

# %% [markdown]
# The columns are the largest values over the draws at each scale. `radius` is the radius the
# rule gives, and `rstar` the largest one that holds. While the scale grows 32-fold, `rstar`
# falls about as fast (the claim gives the fitted exponent), so the radius must shrink like
# $1/|\zeta|$. The three ratios stay within their bounds (2, 1 and 1).

# %% tags=["hide-input"]
for check in (checks.lemma_g7(integrand), checks.lemma_g8(integrand), checks.lemma_g9(integrand)):
    assert check.verdict == "reproduced", check.ours
    record(check)

# %% [markdown]
# (sy-g1)=
# ## Lemma G.1: is the kernel analytic?
#
# The proof of G.1 differentiates under the expectation and bounds
# $|\partial^\alpha \kappa| \le \mathbb{E}|\partial^\alpha h|$ with G.9. But G.9's bound grows like
# $\alpha!\,(C|\zeta|)^{|\alpha|}$, and a Gaussian's moments $\mathbb{E}|\zeta|^n$ grow like
# $\sqrt{n!}$. So the bound on $\kappa$'s derivatives grows like $\alpha!\sqrt{|\alpha|!}$, which
# is too fast to give a convergent Taylor series.
#
# The simplest kernel value shows that the gap is real, not a weakness of the bound. Take
# $X = Y$ = two distinct tokens and $\gamma = 0$. With $u = m_1 - m_2 \sim N(0, 2)$,
# $$\kappa(\beta, 0) = \mathbb{E}\, H(\beta u), \qquad
# H(t) = \sigma(t)^2 + \sigma(-t)^2 = \tfrac12 + \tfrac12 \tanh^2(t/2).$$
# The coefficient of $\beta^{2m}$ at $\beta = 0$ is then exactly $H_{2m}\,(2m-1)!!\,2^m$, a
# rational number (from tanh's Bernoulli series). $H$'s coefficients shrink like $\pi^{-2m}$ and
# the Gaussian moments grow like $(2m-1)!!$, so the root test $|c_m|^{1/2m}$ grows like
# $\sqrt{m}$: the series diverges at every β ≠ 0. Away from 0 the picture changes. Substituting
# $t = \beta u$ moves β into the Gaussian density,
# $\kappa = \int H(t)\, \varphi_{\sqrt2\beta}(t)\, dt$, which is holomorphic for
# $|\arg \beta| < \pi/4$. We compute the Taylor coefficients at $\beta_0 = 1$ by the Cauchy
# integral on the circle of radius 0.5. We also compare the quadrature with the book's own
# Monte Carlo kernel, to make sure we analyse the same function.

# %%
at_zero = ap.kernel_taylor_at_zero(30)
at_one = ap.kernel_taylor_at(beta0=1.0, radius=0.5, n=30)
mc = ap.kernel_against_monte_carlo(draws=scale.pick(smoke=20_000, default=400_000, paper=400_000))
print("first exact coefficients at β = 0:", [str(c) for c in at_zero["exact"][:5]])
table(pd.DataFrame(mc).set_index("beta"), digits=5)

# %% tags=["hide-input"]
fig, axes = plots.panels(2, height=2.6)
m = np.arange(1, 31)
axes[0].plot(m, at_zero["root"], "o-", ms=3, label="at β = 0 (exact)")
axes[0].plot(m, at_one["root"], "s-", ms=3, label="at β = 1 (Cauchy)")
axes[0].set(xlabel="order", ylabel="root test |cₙ|^(1/n)", title="Taylor coefficients of κ(β, 0)")
axes[0].legend()
for b in (0.5, 1.0):
    partial = np.cumsum(at_zero["coef"] * b ** (2 * np.arange(31)))
    axes[1].semilogy(2 * np.arange(31), np.abs(partial - ap.kernel_value(b).real) + 1e-17, label=f"β = {b:g}")
axes[1].set(xlabel="degree of the partial sum at β = 0", ylabel="|partial sum − κ(β)|", title="the series at 0")
axes[1].legend()
plt.show()

# %% [markdown]
# At β = 0 the root test climbs without levelling off. The partial sums at β = 0.5 first
# approach $\kappa(0.5)$ and then move away, and at β = 1 they never approach at all: this is an
# asymptotic series, not a convergent one. At β = 1 the Taylor polynomial built from the Cauchy
# coefficients sums back to $\kappa$ at points 0.2 and 0.4 away (the claim below gives the gap),
# so $\kappa$ is analytic there. The root test at β = 1
# creeps upward too, as it must: β = 0, at distance 1, is a singular point, so the radius at
# β = 1 is at most 1.
#
# So Lemma G.1 holds away from β = 0 and fails at β = 0, exactly where Lemma F.1's proof takes
# its Taylor coefficients. The conclusion of Lemma 4.7 survives a small repair. $\kappa$ is
# analytic on the connected half-plane β > 0 and smooth up to β = 0. If $S_\sigma - S_{\rm id}$
# vanished on an open set there, it would vanish on the whole half-plane, and by continuity so
# would all its derivatives at (0, 0). The derivatives of Table F.1 then give the contradiction
# as before. Read on all of $(\beta, \gamma)$, as Lemma F.1's proof uses it, the lemma is still
# false at β = 0, so the verdict is *partly*. (Read on β > 0 only, it holds where we measured.)

# %% tags=["hide-input"]
check = checks.lemma_g1(at_zero, at_one, mc)
assert check.verdict == "partly", check.ours
record(check)

# %% [markdown]
# (sy-j2-j3)=
# ## Theorems J.2 and J.3: copying at early times, over all learning rates
#
# Chapter 2 checked Theorems 5.1 and 5.2 {ref}`one parameter group at a time <sy-copy>`.
# App. J states them over all learning rates. Under gradient flow with a learning rate
# $\eta_g$ per group, the two losses move at
# $-\dot L_{\rm train} = \sum_g \eta_g \|\nabla_g L_{\rm train}\|^2$ and
# $-\dot L_{\rm test} = \sum_g \eta_g \langle \nabla_g L_{\rm test}, \nabla_g L_{\rm train}\rangle$.
# Fix $-\dot L_{\rm train} = 1$. The largest $-\dot L_{\rm test}$ that any non-negative rates can
# buy is then a linear programme, whose optimum puts all the rate on the best single group:
# $\max_g \max(R_g, 0)$.
#
# * **J.2** says that this largest rate vanishes as the width grows.
# * **J.3** says that training $b_h$ alone at a learning rate of order one gives both rates of
#   order one.
#
# The model and its initialisation are chapter 2's (16 training tokens, 100 unseen ones, 8 heads,
# mean-field scaling), in float64.

# %%
ds = scale.pick(smoke=[32, 128, 512], default=[32, 128, 512, 2048], paper=[32, 128, 512, 2048])
copy = ap.copy_table(ds, seeds=range(scale.pick(smoke=2, default=3, paper=3)))
frame = pd.DataFrame({"best vanilla rate": ap.best_test_rate(copy).mean(axis=1),
                      "b: -dL_train/dt": copy["b"][..., 0].mean(axis=1),
                      "b: -dL_test/dt": copy["b"][..., 1].mean(axis=1)}, index=pd.Index(ds, name="d"))
table(frame)

# %% [markdown]
# The best vanilla rate falls to zero as d grows: beyond the smallest width every vanilla
# group moves the unseen tokens' loss the wrong way at first. With $b_h$, both rates stay
# between 7.5 and 7.8 (about one per head) at every width.

# %% tags=["hide-input"]
for check in (checks.theorem_j2(ds, copy), checks.theorem_j3(ds, copy)):
    assert check.verdict == "reproduced", check.ours
    record(check)
