"""What the bad-input tests share: hypothesis strategies of wrong values, a fast profile, and
``fails`` (the call raises TypeError or ValueError naming the function and the argument)."""
import math

import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

FAST = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])

non_ints = st.one_of(st.floats(allow_nan=True, allow_infinity=True), st.text(max_size=4), st.none(), st.booleans(),
                     st.lists(st.integers(), max_size=2))
non_bools = st.one_of(st.text(max_size=4), st.integers(), st.floats(), st.none())
non_finite = st.sampled_from([math.nan, math.inf, -math.inf])
non_reals = st.one_of(non_finite, st.text(max_size=4), st.none(), st.booleans())


def fails(call, *names):
    """``call()`` raises TypeError or ValueError whose message names every one of ``names``."""
    with pytest.raises((TypeError, ValueError)) as error:
        call()
    message = str(error.value)
    assert all(name in message for name in names), f"{message!r} should name {names}"
    return message
