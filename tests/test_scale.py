import pytest

from lib import scale


def test_unknown_scale_is_rejected(monkeypatch):
    monkeypatch.setenv("ABC_SCALE", "huge")
    with pytest.raises(ValueError, match="smoke, default, paper"):
        scale.current()


def test_unset_means_default_and_pick_follows_the_variable(monkeypatch):
    monkeypatch.delenv("ABC_SCALE", raising=False)
    assert scale.current() == "default"
    monkeypatch.setenv("ABC_SCALE", "paper")
    assert scale.pick(smoke=1, default=2, paper=3) == 3
    monkeypatch.setenv("ABC_SCALE", " Smoke ")
    assert scale.pick(smoke=1, default=2, paper=3) == 1
    with pytest.raises(ValueError):
        scale.pick(smoke=1, default=2, paper=3, scale="tiny")
