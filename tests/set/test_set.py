"""Set functions against NumPy."""

import numpy as np
import pytest

from hypothesis import HealthCheck, given, settings, strategies as st

import numr as xp
from tests.helpers import arr, assert_array, on, other_device, to_np

DTYPES = [xp.int8, xp.uint16, xp.int64, xp.float32, xp.float64, xp.complex64, xp.bool]


@pytest.mark.parametrize("dtype", DTYPES)
def test_unique_all(dtype, device):
    h = np.asarray([[3, 1, 0], [1, 3, 3]]).astype(dtype.name)
    x = arr(h, device, dtype)
    r = xp.unique_all(x)
    assert r._fields == ("values", "indices", "inverse_indices", "counts")
    values, indices, inverse, counts = r
    ev, ei, einv, ec = np.unique(h, return_index=True, return_inverse=True, return_counts=True)
    assert_array(values, ev, dtype=dtype, device=device)
    assert_array(r.indices, ei, dtype=xp.int64, device=device)
    assert_array(r.inverse_indices, einv.reshape(h.shape), dtype=xp.int64, device=device)
    assert_array(r.counts, ec, dtype=xp.int64, device=device)
    # the inverse indices rebuild x, and the indices point at first occurrences
    assert np.array_equal(to_np(values)[to_np(inverse)], h)
    assert np.array_equal(h.ravel()[to_np(indices)], to_np(values))


@pytest.mark.parametrize("dtype", DTYPES)
def test_unique_counts_inverse_values(dtype, device):
    h = np.asarray([2, 0, 2, 2, 1]).astype(dtype.name)
    x = arr(h, device, dtype)
    ev, einv, ec = np.unique(h, return_inverse=True, return_counts=True)
    r = xp.unique_counts(x)
    assert r._fields == ("values", "counts")
    assert_array(r.values, ev, dtype=dtype, device=device)
    assert_array(r.counts, ec, dtype=xp.int64)
    r = xp.unique_inverse(x)
    assert r._fields == ("values", "inverse_indices")
    assert_array(r.values, ev, dtype=dtype)
    assert_array(r.inverse_indices, einv, dtype=xp.int64, device=device)
    assert_array(xp.unique_values(x), ev, dtype=dtype, device=device)


def test_unique_nan_and_signed_zero(device):
    x = arr([np.nan, 0.0, -0.0, np.nan, 1.0], device, xp.float64)
    values, indices, inverse, counts = xp.unique_all(x)
    v = to_np(values)
    # each NaN is its own value; -0.0 and +0.0 are one
    assert v.shape == (4,)
    assert np.isnan(v).sum() == 2
    assert to_np(counts).tolist() == [2, 1, 1, 1]
    assert inverse.shape == (5,)
    assert xp.unique_values(x).shape == (4,)
    assert to_np(xp.unique_counts(x).counts).sum() == 5
    z = arr([complex(np.nan, 0), complex(np.nan, 0), 1j], device, xp.complex128)
    assert xp.unique_values(z).shape == (3,)


def test_unique_0d_and_empty(device):
    r = xp.unique_all(arr(7, device, xp.int32))
    assert_array(r.values, [7], dtype=xp.int32)
    assert_array(r.inverse_indices, np.int64(0), dtype=xp.int64)
    assert_array(r.indices, [0])
    e = xp.unique_inverse(arr(np.zeros((0, 2)), device, xp.float32))
    assert_array(e.values, np.zeros(0, np.float32), dtype=xp.float32)
    assert_array(e.inverse_indices, np.zeros((0, 2), np.int64), dtype=xp.int64)


@pytest.mark.parametrize("func", ["unique_all", "unique_counts", "unique_inverse", "unique_values"])
def test_unique_bad_input(func):
    with pytest.raises(TypeError, match=func):
        getattr(xp, func)([1, 2])


@pytest.mark.parametrize("invert", [False, True])
def test_isin(invert, device):
    h1 = np.asarray([[1, 5, 2], [7, 2, 0]], dtype=np.int16)
    h2 = np.asarray([2, 7, 9], dtype=np.uint8)
    r = xp.isin(arr(h1, device, xp.int16), arr(h2, device, xp.uint8), invert=invert)
    assert_array(r, np.isin(h1, h2, invert=invert), dtype=xp.bool, device=device)
    # Python scalars on either side; a scalar x1 gives a 0-d result
    r = xp.isin(arr(h1, device, xp.int16), 2, invert=invert)
    assert_array(r, np.isin(h1, 2, invert=invert), dtype=xp.bool, device=device)
    r = xp.isin(7, arr(h2, device, xp.uint8), invert=invert)
    assert_array(r, np.bool_(not invert), dtype=xp.bool, device=device)
    # other dtypes compare by value, NaN equal to nothing
    f = arr([1.0, np.nan, 3.0], device, xp.float64)
    assert_array(xp.isin(f, f), [True, False, True])
    assert_array(xp.isin(f, 3), [False, False, True])
    # an empty x2 contains nothing
    assert_array(xp.isin(arr(h1, device, xp.int16), arr([], device, xp.int16)),
                 np.zeros(h1.shape, bool))


def test_isin_bad_input(device):
    x = arr([1, 2], device, xp.int8)
    with pytest.raises(TypeError, match="isin: expected at least one numr array"):
        xp.isin(1, 2)
    with pytest.raises(TypeError, match="isin"):
        xp.isin(x, [1, 2])
    with pytest.raises(TypeError, match="isin: invert"):
        xp.isin(x, x, invert=1)
    with pytest.raises(OverflowError, match="isin: Python int 1000"):
        xp.isin(x, 1000)


def test_isin_mixed_devices(device):
    other = other_device()
    if other is device:
        other = xp.__array_namespace_info__().devices()[0]
    with pytest.raises(ValueError, match=f"isin: arrays are on different devices, {device} and"):
        xp.isin(arr([1], device, xp.int32), on([1], xp.int32, other))


@settings(max_examples=30, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(values=st.lists(st.integers(-3, 3), max_size=12), probe=st.lists(st.integers(-4, 4), max_size=5))
def test_unique_and_isin_match_numpy(values, probe, device):
    h = np.asarray(values, dtype=np.int8)
    x = arr(h, device, xp.int8)
    ev, ei, einv, ec = np.unique(h, return_index=True, return_inverse=True, return_counts=True)
    r = xp.unique_all(x)
    assert_array(r.values, ev, dtype=xp.int8, device=device)
    assert_array(r.indices, ei, dtype=xp.int64)
    assert_array(r.inverse_indices, einv, dtype=xp.int64)
    assert_array(r.counts, ec, dtype=xp.int64)
    p = np.asarray(probe, dtype=np.int8)
    assert_array(xp.isin(arr(p, device, xp.int8), x), np.isin(p, h), dtype=xp.bool)
