"""Figures 2a and 4 of Mahdavi et al. (2024) against the number of heads at the paper's own
d = 64, n = 32, on our recipe (a module of its own, so that adding it leaves the stored results of
:mod:`.sweeps` and :mod:`.sweeps_paper_sizes` fresh; :func:`lib.results.paper_sweeps` merges them).

At the default sizes (d = 16, n = 8) the per-example curves of Figure 4 saturate by H = 4, which
leaves the paper's "linear in H" untestable there. Here d_h = 64, with T = 2000 examples at the
default scale, taken from Figure 3's capacities at these sizes (T = 550 for H = 4, 1300 for H = 8)
so that H = 8 would not fit every example:

``fig2a_d64``: Figure 2a's setting (Sec. 5.2: one context shared by every example, 100 classes).
``fig2a_d64_4k``: the same at T = 4000 (added once T = 2000 proved too small, see below).
``fig4_heads_d64``: Figure 4's heads panel (Appendix I.1: per-example contexts, so every token is
in general position; 100 classes).

Our recipe: 2,000 full-batch steps (lr 1e-2) with early stop, two seeds. T = 2000 proved too
small: H = 8 fits every example with a shared context, and per-example contexts, which memorize
more, fit 99.7% with H = 4 already, which leaves three and two unsaturated points. The paper scale
adds H = 6 and trains 20,000 steps, at T = 4000 and 8000 with a shared context (16000 for
``fig2a_d64_4k``) and at T = 8000 and 16000 with per-example contexts.
"""
from __future__ import annotations

from ... import scale as _scale
from ...results import Sweep
from .sweeps import _run, recipe


def heads_d64(context: str, size: str | None = None, *, default_T: int = 2000,
              paper_T: list[int] | None = None) -> tuple[dict, list[dict]]:
    """``(config, grid)`` of memorization against H at the paper's d = 64, n = 32 with a
    ``context`` ("shared": Figure 2a, "per_example": Figure 4) on our recipe (see the module
    docstring), at ``default_T`` examples (default scale) and ``paper_T`` (paper scale; see the
    module docstring when None); the smoke scale keeps the sizes and trains H = 1, 2 on T = 40."""
    size = _scale.validate(size or _scale.current())
    r = recipe("default" if size == "paper" else size)

    def pick(smoke, default, paper):
        return _scale.pick(smoke=smoke, default=default, paper=paper, scale=size)

    config = dict(context=context, labels="classes", early_stop=True, steps=pick(250, 2000, 20_000),
                  **{k: v for k, v in r.items() if k not in ("steps", "long_steps")})
    # one ensemble per H (max_padding): padding H = 1 to the largest H would cost twice the work
    config.update(dim=64, seeds=r["seeds"][:2], eval_every=pick(50, 100, 500), max_padding=0.25)
    paper_Ts = paper_T or ([4000, 8000] if context == "shared" else [8000, 16_000])
    heads, Ts = pick(([1, 2], [40]), ([1, 2, 4, 8], [default_T]), ([1, 2, 4, 6, 8], paper_Ts))
    return config, [dict(T=T, H=H, n=32, d_h=64) for T in Ts for H in heads]


def fig2a_d64(size: str | None = None) -> tuple[dict, list[dict]]:
    """Figure 2a (shared context) against H at d = 64, n = 32: :func:`heads_d64`."""
    return heads_d64("shared", size)


def fig2a_d64_4k(size: str | None = None) -> tuple[dict, list[dict]]:
    """Figure 2a (shared context) against H at d = 64, n = 32 and T = 4000, where H = 8 no longer
    fits every example as it does at T = 2000: a second curve for the line (the paper scale
    extends it to T = 16,000)."""
    return heads_d64("shared", size, default_T=4000, paper_T=[16_000])


def fig4_heads_d64(size: str | None = None) -> tuple[dict, list[dict]]:
    """Figure 4 (per-example contexts) against H at d = 64, n = 32: :func:`heads_d64`."""
    return heads_d64("per_example", size)


SWEEPS: dict[str, Sweep] = {
    "fig2a_d64": Sweep("mahdavi2024", "fig2a_d64", fig2a_d64, _run, group_by=("T",),
                       about="Fig. 2a (shared context) vs H at the paper's d = 64, n = 32, T = 2000, our recipe"),
    "fig2a_d64_4k": Sweep("mahdavi2024", "fig2a_d64_4k", fig2a_d64_4k, _run, group_by=("T",),
                          about="Fig. 2a (shared context) vs H at the paper's d = 64, n = 32, T = 4000, our recipe"),
    "fig4_heads_d64": Sweep("mahdavi2024", "fig4_heads_d64", fig4_heads_d64, _run, group_by=("T",),
                            about="Fig. 4 (per-example contexts) vs H at the paper's d = 64, n = 32, T = 2000, "
                                  "our recipe"),
}
