"""Searching functions against NumPy, on every device."""

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

import numr
from tests.helpers import assert_array

REAL = [numr.bool, numr.int8, numr.uint8, numr.int32, numr.uint64, numr.float32,
        numr.float64]


def index_dtype(device):
    return device.defaults["indexing"]


def sample(shape, dtype, device, seed=0):
    """Random values with repeats (so ties occur) of ``shape`` and ``dtype``."""
    rng = np.random.default_rng(seed)
    h = rng.integers(0, 5, size=shape)
    h = (h % 2).astype(bool) if dtype == numr.bool else h.astype(dtype.name)
    return numr.asarray(h, device=device), h


# --- argmax / argmin ----------------------------------------------------------------------

@pytest.mark.parametrize("func", ["argmax", "argmin"])
@pytest.mark.parametrize("dtype", REAL)
@pytest.mark.parametrize("axis", [None, 0, -1])
@pytest.mark.parametrize("keepdims", [False, True])
def test_argmax_argmin(device, func, dtype, axis, keepdims):
    x, h = sample((4, 5), dtype, device)
    out = getattr(numr, func)(x, axis=axis, keepdims=keepdims)
    expected = getattr(np, func)(h, axis=axis, keepdims=keepdims)
    assert_array(out, expected, dtype=index_dtype(device), device=device)


def test_argmax_nan_and_zero_d(device):
    x = numr.asarray([1.0, np.nan, 3.0, np.nan], device=device)
    assert int(numr.argmax(x)) == 1 and int(numr.argmin(x)) == 1
    z = numr.asarray(7, device=device)
    assert_array(numr.argmax(z), np.array(0), dtype=index_dtype(device))


@pytest.mark.parametrize("func", ["argmax", "argmin"])
def test_argmax_errors(device, func):
    f = getattr(numr, func)
    x, _ = sample((2, 3), numr.float64, device)
    with pytest.raises(IndexError, match=f"{func}: axis 2"):
        f(x, axis=2)
    with pytest.raises(TypeError, match=func):
        f(x, axis=(0, 1))
    with pytest.raises(TypeError, match=f"{func}: dtype numr.complex64"):
        f(numr.asarray([1j], device=device, dtype=numr.complex64))
    with pytest.raises(ValueError, match=f"{func}: cannot search an empty"):
        f(numr.asarray(np.ones((0, 3)), device=device))
    with pytest.raises(ValueError, match=func):
        f(numr.asarray(np.ones((2, 0)), device=device), axis=1)
    with pytest.raises(TypeError, match=func):
        f(x, keepdims=1)
    with pytest.raises(TypeError, match=func):
        f(np.ones(3))
    # an empty result is fine when the searched axis is not empty
    assert f(numr.asarray(np.ones((0, 3)), device=device), axis=1).shape == (0,)


# --- count_nonzero ------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", REAL + [numr.complex128])
@pytest.mark.parametrize("axis", [None, 0, -1, (0, 1), ()])
@pytest.mark.parametrize("keepdims", [False, True])
def test_count_nonzero(device, dtype, axis, keepdims):
    x, h = sample((3, 4), dtype, device)
    if dtype == numr.complex128:
        h = h + 1j * (h[::-1] > 3)
        x = numr.asarray(h, device=device)
    out = numr.count_nonzero(x, axis=axis, keepdims=keepdims)
    expected = np.count_nonzero(h, axis=axis, keepdims=keepdims)
    assert_array(out, expected, dtype=index_dtype(device), device=device)


def test_count_nonzero_special(device):
    x = numr.asarray([0.0, -0.0, np.nan, np.inf], device=device)
    assert_array(numr.count_nonzero(x), np.array(2), dtype=index_dtype(device))
    z = numr.asarray(3, device=device)
    assert_array(numr.count_nonzero(z), np.array(1), dtype=index_dtype(device))
    with pytest.raises(IndexError, match="count_nonzero"):
        numr.count_nonzero(z, axis=0)
    with pytest.raises(ValueError, match="count_nonzero: axis .* is repeated"):
        numr.count_nonzero(numr.asarray([[1]], device=device), axis=(0, -2))


# --- nonzero ------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", REAL + [numr.complex64])
@pytest.mark.parametrize("shape", [(7,), (3, 4), (2, 0, 3), (2, 2, 2)])
def test_nonzero(device, dtype, shape):
    x, h = sample(shape, dtype, device, seed=1)
    out = numr.nonzero(x)
    expected = np.nonzero(h)
    assert type(out) is tuple and len(out) == len(shape)
    for o, e in zip(out, expected):
        assert_array(o, e, dtype=index_dtype(device), device=device)


def test_nonzero_errors(device):
    with pytest.raises(ValueError, match="nonzero: not defined for a 0-d"):
        numr.nonzero(numr.asarray(1, device=device))
    with pytest.raises(TypeError, match="nonzero"):
        numr.nonzero([1, 2])


# --- searchsorted -------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", [numr.int8, numr.uint16, numr.int64, numr.float32,
                                   numr.float64])
@pytest.mark.parametrize("side", ["left", "right"])
def test_searchsorted(device, dtype, side):
    h1 = np.array([0, 1, 1, 3, 4, 4, 4, 7], dtype=dtype.name)
    h2 = np.array([[-0.0, 1, 2], [4, 7, 9]]).astype(dtype.name) if dtype.kind != "uint" \
        else np.array([[0, 1, 2], [4, 7, 9]], dtype=dtype.name)
    x1 = numr.asarray(h1, device=device)
    x2 = numr.asarray(h2, device=device)
    assert_array(numr.searchsorted(x1, x2, side=side), np.searchsorted(h1, h2, side=side),
                 dtype=index_dtype(device), device=device)


@pytest.mark.parametrize("side", ["left", "right"])
def test_searchsorted_sorter(device, side):
    h1 = np.array([5.0, 1.0, 3.0, 3.0, 2.0])
    s = np.argsort(h1, kind="stable")
    h2 = np.array([0.0, 3.0, 4.5, 6.0])
    x1 = numr.asarray(h1, device=device)
    for sdtype in (numr.int64, numr.uint8, numr.int16):
        sorter = numr.asarray(s, dtype=sdtype, device=device)
        out = numr.searchsorted(x1, numr.asarray(h2, device=device), side=side, sorter=sorter)
        assert_array(out, np.searchsorted(h1, h2, side=side, sorter=s),
                     dtype=index_dtype(device), device=device)


def test_searchsorted_scalars_and_promotion(device):
    h1 = np.array([1, 2, 4, 8], dtype=np.int16)
    x1 = numr.asarray(h1, device=device)
    out = numr.searchsorted(x1, 4, side="right")
    assert_array(out, np.array(3), dtype=index_dtype(device), device=device)
    assert int(numr.searchsorted(x1, 2.5)) == 2
    assert int(numr.searchsorted(x1, True)) == 0
    x2 = numr.asarray([3.5, 0.5], dtype=numr.float32, device=device)
    assert_array(numr.searchsorted(x1, x2), np.array([2, 0]), dtype=index_dtype(device))
    assert_array(numr.searchsorted(x1, numr.asarray([[9]], dtype=numr.int8, device=device)),
                 np.array([[4]]))


def test_searchsorted_errors(device):
    x1 = numr.asarray([1.0, 2.0], device=device)
    with pytest.raises(ValueError, match="searchsorted: x1 must be 1-D"):
        numr.searchsorted(numr.asarray([[1.0]], device=device), x1)
    with pytest.raises(ValueError, match="searchsorted: side"):
        numr.searchsorted(x1, 1.0, side="middle")
    with pytest.raises(TypeError, match="searchsorted"):
        numr.searchsorted(x1, 1j)
    with pytest.raises(TypeError, match="searchsorted"):
        numr.searchsorted(x1, [1.0])
    with pytest.raises(TypeError, match="searchsorted: dtype numr.complex128"):
        numr.searchsorted(numr.asarray([1j], device=device), x1)
    with pytest.raises(TypeError, match="searchsorted: sorter must have an integer"):
        numr.searchsorted(x1, 1.0, sorter=x1)
    with pytest.raises(ValueError, match="searchsorted: sorter has shape"):
        numr.searchsorted(x1, 1.0, sorter=numr.asarray([0], device=device))
    with pytest.raises(IndexError, match="searchsorted: sorter"):
        numr.searchsorted(x1, 1.0, sorter=numr.asarray([0, 5], device=device))
    with pytest.raises(OverflowError, match="searchsorted"):
        numr.searchsorted(numr.asarray([1], dtype=numr.int8, device=device), 1000)


# --- where --------------------------------------------------------------------------------

@pytest.mark.parametrize("d1,d2", [(numr.int8, numr.int8), (numr.int8, numr.uint8),
                                   (numr.float32, numr.float64), (numr.bool, numr.bool),
                                   (numr.complex64, numr.float64), (numr.int64, numr.float32)])
def test_where_arrays(device, d1, d2):
    rng = np.random.default_rng(3)
    hc = rng.random((3, 1)) > 0.5
    _, h1 = sample((4,), d1, device, seed=4)
    _, h2 = sample((3, 4), d2, device, seed=5)
    c = numr.asarray(hc, device=device)
    out = numr.where(c, numr.asarray(h1, device=device), numr.asarray(h2, device=device))
    expected_dtype = numr._dtypes.PROMOTE[d1, d2]
    assert_array(out, np.where(hc, h1, h2).astype(expected_dtype.name),
                 dtype=expected_dtype, device=device)


@pytest.mark.parametrize("dtype,scalar,result", [
    (numr.int8, 5, numr.int8), (numr.uint8, True, numr.uint8),
    (numr.float32, 2.5, numr.float32), (numr.int16, 2.5, None),
    (numr.float32, 1j, numr.complex64), (numr.bool, 3, None), (numr.bool, False, numr.bool),
])
def test_where_scalar(device, dtype, scalar, result):
    if result is None:  # the device's default dtype for the scalar's kind
        result = device.defaults["real floating" if type(scalar) is float else "integral"]
    hc = np.array([True, False, True])
    _, h = sample((3,), dtype, device, seed=6)
    c = numr.asarray(hc, device=device)
    x = numr.asarray(h, device=device)
    assert_array(numr.where(c, x, scalar), np.where(hc, h, scalar).astype(result.name),
                 dtype=result, device=device)
    assert_array(numr.where(c, scalar, x), np.where(hc, scalar, h).astype(result.name),
                 dtype=result, device=device)


def test_where_two_scalars_and_nonbool_condition(device):
    c = numr.asarray([True, False], device=device)
    assert_array(numr.where(c, 1, 0), np.array([1, 0]), dtype=device.defaults["integral"])
    assert_array(numr.where(c, 1.5, 0), np.array([1.5, 0.0]),
                 dtype=device.defaults["real floating"])
    assert_array(numr.where(c, True, False), np.array([True, False]), dtype=numr.bool)
    ci = numr.asarray([0, 3, -1], device=device)
    x = numr.asarray([1.0, 2.0, 3.0], device=device)
    assert_array(numr.where(ci, x, -x), np.array([-1.0, 2.0, 3.0]), dtype=numr.float64)


def test_where_errors(device):
    c = numr.asarray([True, False], device=device)
    x = numr.asarray([1, 2], dtype=numr.int8, device=device)
    with pytest.raises(ValueError, match="where"):
        numr.where(c, x, numr.asarray([1, 2, 3], device=device))
    with pytest.raises(ValueError, match="where"):
        numr.where(numr.asarray([True, False, True], device=device), x, 1)
    with pytest.raises(OverflowError, match="where"):
        numr.where(c, x, 1000)
    with pytest.raises(TypeError, match="where"):
        numr.where(c, x, "a")
    with pytest.raises(TypeError, match="where"):
        numr.where(c, [1, 2], 0)
    with pytest.raises(TypeError, match="where"):
        numr.where([True], x, 0)


# --- properties ---------------------------------------------------------------------------

@settings(max_examples=30, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(shape=st.lists(st.integers(1, 5), min_size=1, max_size=3).map(tuple),
       seed=st.integers(0, 2**16))
def test_argmax_property(device, shape, seed):
    x, h = sample(shape, numr.float32, device, seed=seed)
    for axis in [None] + list(range(len(shape))):
        assert_array(numr.argmax(x, axis=axis), np.argmax(h, axis=axis))
        assert_array(numr.argmin(x, axis=axis), np.argmin(h, axis=axis))
    assert_array(numr.count_nonzero(x, axis=0), np.count_nonzero(h, axis=0))


def test_mixed_devices(device):
    from numr._devices import all_devices

    x = numr.asarray([1.0, 2.0], device=device)
    for other in all_devices():
        if other == device:
            continue
        y = numr.asarray([1.0, 2.0], device=other)
        with pytest.raises(ValueError, match="where: arrays are on different devices"):
            numr.where(x > 1, x, y)
        with pytest.raises(ValueError, match="searchsorted: arrays are on different"):
            numr.searchsorted(x, y)
