"""The one figure style: numbers formatted for reading, bands inside the metric's range,
legends and provenance stamps clear of the data and of the axis labels."""
import math

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import pytest  # noqa: E402

from lib import plots  # noqa: E402


@pytest.fixture(autouse=True)
def style():
    plots.use_style()
    yield
    plt.close("all")


def test_numbers_read_as_numbers():
    assert plots.number(249.0) == "249"  # an integer stored as float: no 2.490000e+02
    assert plots.number(np.int64(100_000)) == "100,000"
    assert plots.number(np.float64(0.54612)) == "0.546"  # no np.float64(...) repr
    assert plots.number(float("nan")) == "–" and plots.number(None) == "–"
    assert plots.number(3e-8) == "3.0e-08"
    assert plots.number(True) == "True" and plots.number("x") == "x"
    assert plots.readable({"1 head": np.float64(0.7912), "seeds": np.array([0.25, 0.5])}) == \
        "1 head: 0.791, seeds: [0.25, 0.5]"


def test_table_shows_nan_as_a_dash_and_integers_without_exponent():
    frame = pd.DataFrame({"T": [249.0, 16.0], "error": [float("nan"), 0.12345]}, index=["a", "b"])
    html = plots.table(frame).to_html()
    assert "–" in html and "nan" not in html and "249" in html and "e+02" not in html and "0.123" in html


def _band_limits(ax):
    verts = np.concatenate([p.vertices for c in ax.collections for p in c.get_paths()])
    return verts[:, 1].min(), verts[:, 1].max()


def test_accuracy_band_is_clipped_to_zero_one():
    rng = np.random.default_rng(0)
    acc = np.clip(0.9 + 0.2 * rng.standard_normal((5, 20)), 0, 1)  # mean + sd exceeds 1
    assert (acc.mean(0) + acc.std(0)).max() > 1.0
    ax = plots.curves(np.arange(20), {"model": acc})
    lo, hi = _band_limits(ax)
    assert hi <= 1.0 and lo >= 0.0
    loss = np.abs(0.05 * rng.standard_normal((5, 20)))  # mean - sd below 0
    ax = plots.curves(np.arange(20), {"model": loss}, ylabel="loss")
    assert _band_limits(ax)[0] >= 0.0


def test_the_default_band_is_the_seed_means_95_interval_and_sd_stays_available():
    rng = np.random.default_rng(1)
    acc = 0.5 + 0.05 * rng.standard_normal((5, 20))  # inside (0, 1): no clipping
    lo, hi = plots.seed_interval(acc)
    for draw in (lambda: plots.curves(np.arange(20), {"model": acc}),
                 lambda: plots.sweep(list(range(20)), {"model": acc.T})):
        assert np.allclose(_band_limits(draw()), (lo.min(), hi.max()))
    sd = plots.curves(np.arange(20), {"model": acc}, band="sd")
    assert np.allclose(_band_limits(sd), ((acc.mean(0) - acc.std(0)).min(), (acc.mean(0) + acc.std(0)).max()))


def test_a_level_across_the_axis_is_the_seed_mean_with_its_interval_clipped_to_zero_one():
    _, ax = plt.subplots()
    per_seed = [1.0, 1.0, 0.9, 1.0, 0.6]  # the 95% interval of the mean reaches above 1
    lo, hi = plots.seed_interval(np.array(per_seed)[:, None])
    assert hi[0] > 1.0
    line = plots.level_and_interval(ax, per_seed, label="TF")
    assert line.get_ydata()[0] == pytest.approx(0.9) and line.get_label() == "TF (5 seeds)"
    ys = ax.patches[-1].get_patch_transform().transform(ax.patches[-1].get_path().vertices)[:, 1]
    assert ys.min() == pytest.approx(lo[0]) and ys.max() == pytest.approx(1.0)
    one = plots.level_and_interval(ax, [0.4], label="one")  # one seed: the level, no band
    assert one.get_label() == "one (1 seed)" and len(ax.patches) == 1


def test_a_non_finite_seed_leaves_no_band_where_it_leaves_no_mean():
    acc = np.array([[0.5, 0.6, 0.7], [0.55, np.nan, 0.75], [0.45, 0.62, 0.72]])
    lo, hi = plots.seed_interval(acc)
    assert np.isnan(lo[1]) and np.isnan(hi[1]) and np.isfinite(lo[[0, 2]]).all() and (lo < hi)[[0, 2]].all()
    plots.curves(np.arange(3), {"model": acc}, ylabel="loss")  # draws, as before, with a gap


def test_on_a_log_axis_an_interval_reaching_zero_draws_no_band():
    mse = np.array([[1e-4, 1e-2, 1e-3], [1e-1, 1.2e-2, 1.1e-3], [1e-4, 0.9e-2, 0.9e-3]])  # (seeds, x)
    lo, _ = plots.seed_interval(mse)
    assert lo[0] <= 0 < lo[1:].min()  # the first point's interval reaches 0, the others do not
    ax = plots.sweep([1, 2, 3], {"model": mse.T}, ylabel="training MSE", logy=True)
    assert ax.get_yscale() == "log" and _band_limits(ax)[0] > 0
    assert np.isclose(_band_limits(ax)[0], lo[1:].min())


def _extent(artist, fig):
    return artist.get_window_extent(fig.canvas.get_renderer())


def test_legend_sits_outside_the_data_and_the_stamp_below_every_label():
    fig, axes = plots.panels(2, ncols=1)
    for ax in axes:
        plots.curves(np.arange(10), {"a": np.ones((2, 10)), "b": np.zeros((2, 10))}, ax=ax, chance=0.5)
    plots.stamp(fig, "name · scale=default · cpu · 12s · lib 0123abcd")
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    stamp = fig.texts[-1].get_window_extent(renderer)
    for ax in axes:
        legend = _extent(ax.get_legend(), fig)
        assert legend.x0 >= ax.get_window_extent(renderer).x1  # right of the plotting area
        assert stamp.y1 <= ax.get_tightbbox(renderer).y0 + 0.5  # below the x label and ticks


def test_panels_keep_at_most_three_per_row_at_page_width():
    fig, axes = plots.panels(5, ncols=3)
    assert len(axes) == 5 and len(fig.axes) == 5
    assert math.isclose(fig.get_figwidth(), plots.PAGE_WIDTH)
    with pytest.raises(ValueError, match="at most three"):
        plots.panels(4, ncols=4)
    assert plt.rcParams["xtick.labelsize"] >= 9 and plt.rcParams["legend.fontsize"] >= 9
