"""sort and argsort against NumPy (stable sorts), on every device."""

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

import numr
from tests.helpers import assert_array

REAL = [numr.bool, numr.int8, numr.uint8, numr.int16, numr.uint32, numr.int64,
        numr.uint64, numr.float16, numr.float32, numr.float64]


def sample(shape, dtype, device, seed=0):
    rng = np.random.default_rng(seed)
    h = rng.integers(0, 4, size=shape)  # few values: many ties
    h = (h % 2).astype(bool) if dtype == numr.bool else h.astype(dtype.name)
    return numr.asarray(h, device=device), h


def expected_argsort(h, axis, descending):
    """Stable argsort; descending keeps equal elements in their original order."""
    if not descending:
        return np.argsort(h, axis=axis, kind="stable")
    if h.dtype == bool:
        key = ~h
    elif h.dtype.kind == "u":
        key = -h.astype(np.float64)  # exact for the test's small values
    else:
        key = -h
    return np.argsort(key, axis=axis, kind="stable")


@pytest.mark.parametrize("dtype", REAL)
@pytest.mark.parametrize("axis", [0, -1])
@pytest.mark.parametrize("descending", [False, True])
def test_sort_argsort(device, dtype, axis, descending):
    x, h = sample((5, 6), dtype, device)
    idx = expected_argsort(h, axis, descending)
    got = numr.argsort(x, axis=axis, descending=descending)
    assert_array(got, idx, dtype=device.defaults["indexing"], device=device)
    assert_array(numr.sort(x, axis=axis, descending=descending),
                 np.take_along_axis(h, idx, axis=axis), dtype=dtype, device=device)


@pytest.mark.parametrize("descending", [False, True])
def test_unstable_is_still_sorted(device, descending):
    x, h = sample((40,), numr.int32, device, seed=2)
    idx = np.asarray(numr.argsort(x, stable=False, descending=descending).to_device("cpu"))
    assert sorted(idx.tolist()) == list(range(40))
    values = h[idx]
    assert (np.diff(values) <= 0).all() if descending else (np.diff(values) >= 0).all()
    s = numr.sort(x, stable=False, descending=descending)
    assert_array(s, np.sort(h)[::-1] if descending else np.sort(h), dtype=numr.int32)


def test_nan_order(device):
    h = np.array([2.0, np.nan, -1.0, np.inf, np.nan, -np.inf])
    x = numr.asarray(h, device=device)
    assert_array(numr.sort(x), np.sort(h))
    assert_array(numr.sort(x, descending=True),
                 np.array([np.nan, np.nan, np.inf, 2.0, -1.0, -np.inf]))
    assert_array(numr.argsort(x, descending=True), np.array([1, 4, 3, 0, 2, 5]))


def test_signed_zero_stable_order(device):
    h = np.array([0.0, -0.0, 1.0, -0.0, 0.0])
    x = numr.asarray(h, device=device)
    assert_array(numr.argsort(x), np.array([0, 1, 3, 4, 2]))
    assert_array(numr.argsort(x, descending=True), np.array([2, 0, 1, 3, 4]))
    s = np.asarray(numr.sort(x, descending=True).to_device("cpu"))
    assert np.signbit(s).tolist() == [False, False, True, True, False]


def test_empty_and_3d(device):
    x = numr.asarray(np.ones((2, 0, 3)), device=device)
    assert numr.sort(x, axis=1).shape == (2, 0, 3)
    assert numr.argsort(x, axis=1, descending=True).shape == (2, 0, 3)
    y, h = sample((2, 3, 4), numr.float32, device, seed=7)
    assert_array(numr.argsort(y, axis=1), np.argsort(h, axis=1, kind="stable"))


def test_errors(device):
    x, _ = sample((3,), numr.float64, device)
    for f in (numr.sort, numr.argsort):
        name = f.__name__
        with pytest.raises(IndexError, match=f"{name}: axis 1"):
            f(x, axis=1)
        with pytest.raises(IndexError, match=name):
            f(numr.asarray(1.0, device=device))
        with pytest.raises(TypeError, match=f"{name}: dtype numr.complex128"):
            f(numr.asarray([1j, 2], device=device))
        with pytest.raises(TypeError, match=f"{name}: descending"):
            f(x, descending=None)
        with pytest.raises(TypeError, match=f"{name}: stable"):
            f(x, stable=1)
        with pytest.raises(TypeError, match=name):
            f(x, axis=(0,))
        with pytest.raises(TypeError, match=name):
            f([3, 1, 2])


@settings(max_examples=40, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(shape=st.lists(st.integers(0, 6), min_size=1, max_size=3).map(tuple),
       seed=st.integers(0, 2**16), descending=st.booleans(), data=st.data())
def test_property(device, shape, seed, descending, data):
    x, h = sample(shape, numr.int16, device, seed=seed)
    axis = data.draw(st.integers(-len(shape), len(shape) - 1))
    idx = expected_argsort(h, axis, descending)
    assert_array(numr.argsort(x, axis=axis, descending=descending), idx)
    assert_array(numr.sort(x, axis=axis, descending=descending),
                 np.take_along_axis(h, idx, axis=axis))
