"""all, any and diff against NumPy."""

import numpy as np
import pytest

from hypothesis import HealthCheck, given, settings, strategies as st

import numr as xp
from tests.helpers import arr, assert_array, on, other_device

DTYPES = [xp.bool, xp.int8, xp.uint32, xp.int64, xp.float32, xp.float64, xp.complex64]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("func", ["all", "any"])
def test_all_any(func, dtype, device):
    h = (np.arange(24).reshape(2, 3, 4) % 5 == 0)
    h = h.astype(dtype.name)
    x = arr(h, device, dtype)
    f, np_f = getattr(xp, func), getattr(np, func)
    for axis in [None, 0, -1, (0, 2), ()]:
        assert_array(f(x, axis=axis), np_f(h, axis=axis), dtype=xp.bool, device=device)
    assert_array(f(x, axis=1, keepdims=True), np_f(h, axis=1, keepdims=True), dtype=xp.bool)


def test_all_any_special_values(device):
    # NaN, infinities and complex numbers with a non-zero component are true
    f = arr([np.nan, np.inf, -np.inf], device, xp.float64)
    assert_array(xp.all(f), np.True_, dtype=xp.bool, device=device)
    z = arr([1j, 0j], device, xp.complex128)
    assert_array(xp.any(z), np.True_)
    assert_array(xp.all(z), np.False_)
    empty = arr(np.zeros((0, 2)), device, xp.float32)
    assert_array(xp.all(empty), np.True_)
    assert_array(xp.any(empty), np.False_)
    assert_array(xp.all(empty, axis=0), [True, True])
    assert_array(xp.any(empty, axis=1), np.zeros(0, bool))
    assert_array(xp.any(arr(0, device, xp.int8)), np.False_)


@pytest.mark.parametrize("func", ["all", "any"])
def test_all_any_bad_input(func, device):
    f = getattr(xp, func)
    x = arr([[1, 0]], device, xp.int8)
    with pytest.raises(TypeError, match=func):
        f([1, 0])
    with pytest.raises(ValueError, match=f"{func}: axis 2"):
        f(x, axis=2)
    with pytest.raises(ValueError, match=f"{func}: axis 1 is repeated"):
        f(x, axis=(1, -1))
    with pytest.raises(TypeError, match=f"{func}: keepdims"):
        f(x, keepdims="yes")


@pytest.mark.parametrize("dtype", [xp.int8, xp.uint8, xp.int64, xp.float32, xp.complex128])
def test_diff(dtype, device):
    h = (np.arange(20).reshape(4, 5) ** 2 % 7).astype(dtype.name)
    x = arr(h, device, dtype)
    for axis in [0, 1, -1, -2]:
        for n in [0, 1, 2, 7]:
            assert_array(xp.diff(x, axis=axis, n=n), np.diff(h, axis=axis, n=n), dtype=dtype,
                         device=device)


def test_diff_prepend_append(device):
    h = np.asarray([[1, 4, 9], [2, 3, 7]], dtype=np.int16)
    x = arr(h, device, xp.int16)
    p = np.asarray([[0], [5]], dtype=np.int16)
    a = np.asarray([[1, 1], [2, 2]], dtype=np.int16)
    assert_array(xp.diff(x, prepend=arr(p, device, xp.int16), append=arr(a, device, xp.int16)),
                 np.diff(h, prepend=p, append=a), dtype=xp.int16, device=device)
    # along axis 0, with a prepend of another dtype: promoted, as NumPy does
    p0 = np.asarray([[1.5, 0, 0]], dtype=np.float32)
    assert_array(xp.diff(x, axis=0, n=2, prepend=arr(p0, device, xp.float32)),
                 np.diff(h.astype(np.float32), axis=0, n=2, prepend=p0), dtype=xp.float32)
    # Python scalars stand for one element along the axis
    assert_array(xp.diff(x, prepend=0, append=10), np.diff(h, prepend=0, append=10),
                 dtype=xp.int16)
    assert_array(xp.diff(x, append=0.5), np.diff(h.astype(np.float64), append=0.5),
                 dtype=xp.float64)


def test_diff_bool(device):
    # Note: as in NumPy, differences of bools are x[i+1] != x[i]
    h = np.asarray([True, True, False, True])
    assert_array(xp.diff(arr(h, device, xp.bool)), np.diff(h), dtype=xp.bool, device=device)


def test_diff_bad_input(device):
    x = arr(np.ones((2, 3)), device, xp.float64)
    with pytest.raises(TypeError, match="diff"):
        xp.diff(np.ones(3))
    with pytest.raises(ValueError, match="diff: x must have at least one dimension"):
        xp.diff(arr(1.0, device, xp.float64))
    with pytest.raises(ValueError, match="diff: axis 2"):
        xp.diff(x, axis=2)
    with pytest.raises(TypeError, match="diff: axis"):
        xp.diff(x, axis=(0,))
    with pytest.raises(ValueError, match="diff: n must be non-negative"):
        xp.diff(x, n=-1)
    with pytest.raises(TypeError, match="diff: n"):
        xp.diff(x, n=1.0)
    with pytest.raises(ValueError, match="diff: prepend has shape"):
        xp.diff(x, prepend=arr(np.ones((3, 1)), device, xp.float64))
    with pytest.raises(ValueError, match="diff: append has shape"):
        xp.diff(x, append=arr(np.ones(3), device, xp.float64))
    with pytest.raises(TypeError, match="diff: append"):
        xp.diff(x, append=[1.0, 2.0])
    with pytest.raises(OverflowError, match="diff: Python int 300"):
        xp.diff(arr([1, 2], device, xp.uint8), prepend=300)


def test_diff_mixed_devices(device):
    other = other_device()
    if other is device:
        other = xp.__array_namespace_info__().devices()[0]
    x = arr([1.0, 2.0], device, xp.float32)
    with pytest.raises(ValueError, match=f"diff: arrays are on different devices, {device} and"):
        xp.diff(x, prepend=on([0.0], xp.float32, other))


@settings(max_examples=30, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(shape=st.lists(st.integers(1, 4), min_size=1, max_size=3), data=st.data())
def test_diff_and_cumulative_sum_match_numpy(shape, data, device):
    h = np.arange(int(np.prod(shape)), dtype=np.float64).reshape(shape) ** 2
    axis = data.draw(st.integers(-len(shape), len(shape) - 1))
    n = data.draw(st.integers(0, 4))
    x = arr(h, device, xp.float64)
    assert_array(xp.diff(x, axis=axis, n=n), np.diff(h, axis=axis, n=n), dtype=xp.float64,
                 device=device)
    assert_array(xp.cumulative_sum(x, axis=axis), np.cumsum(h, axis=axis), dtype=xp.float64)
