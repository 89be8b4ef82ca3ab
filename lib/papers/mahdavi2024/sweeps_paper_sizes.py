"""Sweeps of Mahdavi et al. (2024) at the paper's own sizes on our recipe, added after the
results of :mod:`.sweeps` were stored (in a module of their own, so that adding them leaves
those results fresh; :func:`lib.results.paper_sweeps` merges both).

``fig3_d64``: Figure 3 (Appendix H) at d = 64, n = 32, for H = 4 at T = 550 and H = 8 at
T = 1300, the paper's two runs, on our recipe (full batch, lr 1e-2) for 5,000 steps instead of
the official recipe's 300,000, three seeds, without early stop. The paper scale trains the same
recipe for 50,000 steps (``fig3`` at the paper scale is these sizes on the official recipe), so
the two scales tell whether our recipe's saturation grows with the budget.
"""
from __future__ import annotations


from ... import scale as _scale
from ...results import Sweep
from .sweeps import recipe
from .training import run_group


def fig3_d64(size: str | None = None) -> tuple[dict, list[dict]]:
    """``(config, grid)`` of Figure 3 at the paper's d = 64, n = 32 on our recipe (see the module
    docstring); the smoke scale keeps the sizes and trains 100 steps on T = 40."""
    size = _scale.validate(size or _scale.current())
    r, smoke = recipe("default" if size == "paper" else size), size == "smoke"
    steps = {"smoke": 100, "default": 5000, "paper": 50_000}[size]
    config = dict(context="shared", labels="classes", early_stop=False, saturation=True, steps=steps,
                  **{k: v for k, v in r.items() if k not in ("steps", "long_steps")})
    config.update(dim=64, seeds=r["seeds"][:3], eval_every=500 if size == "paper" else r["eval_every"])
    points = [dict(T=40, H=4)] if smoke else [dict(T=550, H=4), dict(T=1300, H=8)]
    return config, [dict(p, n=32, d_h=64) for p in points]


def _run(config: dict, points: list[dict], *, scale: str, device=None, stop_after=None) -> list[dict]:
    return run_group(config, points, device=device)


SWEEPS: dict[str, Sweep] = {
    "fig3_d64": Sweep("mahdavi2024", "fig3_d64", fig3_d64, _run, group_by=("T",),
                      about="Fig. 3 at the paper's d = 64, n = 32 (H = 4, T = 550; H = 8, T = 1300), our recipe"),
}
