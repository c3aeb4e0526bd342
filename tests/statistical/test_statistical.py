"""Statistical functions against NumPy (float64 where accuracy matters)."""

import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

import numr as xp
from numr._statistical import normalize_axes
from tests.helpers import arr, assert_array, to_np

INTS = [xp.int8, xp.int16, xp.int32, xp.int64]
UINTS = [xp.uint8, xp.uint16, xp.uint32, xp.uint64]
FLOATS = [xp.float32, xp.float64]
COMPLEX = [xp.complex64, xp.complex128]


def grid(dtype, device, shape=(2, 3, 4)):
    """Small values that neither overflow int8 products over one axis nor lose floats."""
    h = (np.arange(np.prod(shape)) % 3 + 1).reshape(shape)
    if dtype.kind == "complex":
        h = h + 1j * (h % 2)
    return arr(h, device, dtype), h.astype(dtype.name)


# --- normalize_axes -------------------------------------------------------------------

def test_normalize_axes():
    assert normalize_axes(None, 3, "f") == (0, 1, 2)
    assert normalize_axes(-1, 3, "f") == (2,)
    assert normalize_axes((2, -3), 3, "f") == (2, 0)
    assert normalize_axes((), 3, "f") == ()
    assert normalize_axes(np.int64(1), 2, "f") == (1,)
    with pytest.raises(ValueError, match="f: axis 3 is out of range"):
        normalize_axes(3, 3, "f")
    with pytest.raises(IndexError, match="f: axis -4"):
        normalize_axes(-4, 3, "f")
    with pytest.raises(ValueError, match="f: axis 0 is repeated"):
        normalize_axes((0, -3), 3, "f")
    with pytest.raises(TypeError, match="f: axis"):
        normalize_axes(True, 3, "f")
    assert normalize_axes([0, 2], 3, "f") == (0, 2)  # a list, as NumPy's transpose takes
    with pytest.raises(TypeError, match="f: axis"):
        normalize_axes(1.0, 3, "f")


# --- sum and prod ---------------------------------------------------------------------

@pytest.mark.parametrize("dtype", INTS + UINTS + FLOATS + COMPLEX + [xp.bool])
@pytest.mark.parametrize("func", ["sum", "prod"])
def test_sum_prod_dtypes(func, dtype, device):
    x, h = grid(dtype, device)
    expected_dtype = {"bool": xp.int64, "int": xp.int64, "uint": xp.uint64}.get(dtype.kind, dtype)
    np_f = getattr(np, func)
    for axis, npaxis in [(None, None), (1, 1), (-1, -1), ((0, 2), (0, 2)), ((), ())]:
        r = getattr(xp, func)(x, axis=axis)
        assert_array(r, np_f(h, axis=npaxis, dtype=expected_dtype.name), dtype=expected_dtype,
                     device=device, rtol=1e-5)
    r = getattr(xp, func)(x, axis=(2, 0), keepdims=True)
    assert r.shape == (1, 3, 1)
    assert_array(r, np_f(h, axis=(0, 2), keepdims=True, dtype=expected_dtype.name), rtol=1e-5)


@pytest.mark.parametrize("func", ["sum", "prod"])
def test_sum_prod_dtype_argument(func, device):
    f = getattr(xp, func)
    np_f = getattr(np, func)
    x = arr([100, 10, 3], device, xp.int8)  # the sum and the product overflow int8
    assert_array(f(x, dtype=xp.int16), np_f(np.int16([100, 10, 3]), dtype=np.int16),
                 dtype=xp.int16, device=device)
    assert_array(f(x, dtype=xp.float32), np_f(np.float32([100, 10, 3])), dtype=xp.float32)
    # a float input cast to an integer dtype first, as NumPy does
    y = arr([1.5, 2.5], device, xp.float64)
    assert_array(f(y, dtype=xp.int64), np_f(np.int64([1, 2])), dtype=xp.int64)
    # the dtype argument keeps narrow unsigned ints narrow
    u = arr([200, 100], device, xp.uint32)
    assert_array(f(u, dtype=xp.uint32), np_f(np.uint32([200, 100]), dtype=np.uint32),
                 dtype=xp.uint32)
    z = arr([1 + 2j], device, xp.complex64)
    with pytest.raises(TypeError, match=func):
        f(z, dtype=xp.float32)
    with pytest.raises(TypeError, match=f"{func}: dtype numr.bool"):
        f(x, dtype=xp.bool)
    with pytest.raises(TypeError, match=func):
        f(x, dtype="int64")


@pytest.mark.parametrize("func,identity", [("sum", 0), ("prod", 1)])
def test_sum_prod_empty(func, identity, device):
    x = arr(np.zeros((0, 3)), device, xp.float32)
    assert_array(getattr(xp, func)(x), np.float32(identity), dtype=xp.float32)
    assert_array(getattr(xp, func)(x, axis=0), np.full(3, identity, np.float32))
    assert_array(getattr(xp, func)(x, axis=1), np.zeros(0, np.float32))


def test_sum_0d(device):
    x = arr(3.5, device, xp.float32)
    assert_array(xp.sum(x), np.float32(3.5), dtype=xp.float32, device=device)
    assert_array(xp.prod(x, axis=()), np.float32(3.5))
    with pytest.raises(ValueError, match="sum: axis 0 is out of range"):
        xp.sum(x, axis=0)


@pytest.mark.parametrize("func", ["sum", "prod", "max", "min", "mean", "var", "std"])
def test_reduction_bad_arguments(func, device):
    f = getattr(xp, func)
    x = arr(np.ones((2, 3)), device, xp.float64)
    with pytest.raises(TypeError, match=func):
        f(np.ones(3))
    with pytest.raises(ValueError, match=f"{func}: axis 2"):
        f(x, axis=2)
    with pytest.raises(IndexError, match=f"{func}: axis -3"):
        f(x, axis=-3)
    with pytest.raises(ValueError, match=f"{func}: axis 1 is repeated"):
        f(x, axis=(1, -1))
    with pytest.raises(TypeError, match=func):
        f(x, axis=0.0)
    with pytest.raises(TypeError, match=f"{func}: keepdims"):
        f(x, keepdims=1)


# --- max and min ----------------------------------------------------------------------

@pytest.mark.parametrize("dtype", INTS + UINTS + FLOATS + [xp.bool])
@pytest.mark.parametrize("func", ["max", "min"])
def test_max_min(func, dtype, device):
    rng = np.random.default_rng(0)
    h = rng.integers(0, 100, size=(3, 4, 5))
    if dtype.kind == "bool":
        h = h % 2
    h = h.astype(dtype.name)
    x = arr(h, device, dtype)
    f, np_f = getattr(xp, func), getattr(np, func)
    for axis in [None, 0, -1, (0, 2)]:
        assert_array(f(x, axis=axis), np_f(h, axis=axis), dtype=dtype, device=device)
    assert_array(f(x, axis=1, keepdims=True), np_f(h, axis=1, keepdims=True))


@pytest.mark.parametrize("func", ["max", "min"])
def test_max_min_nan_and_errors(func, device):
    f = getattr(xp, func)
    x = arr([[1.0, np.nan], [2.0, 3.0]], device, xp.float64)
    assert_array(f(x, axis=1), [np.nan, getattr(np, func)([2.0, 3.0])])
    assert np.isnan(to_np(f(x)))
    empty = arr(np.zeros((0, 3)), device, xp.float32)
    with pytest.raises(ValueError, match=f"{func}: cannot reduce over axis 0 of size 0"):
        f(empty)
    with pytest.raises(ValueError, match=func):
        f(empty, axis=0)
    assert_array(f(empty, axis=1), np.zeros(0, np.float32), dtype=xp.float32)
    with pytest.raises(TypeError, match=f"{func}: dtype numr.complex64"):
        f(arr([1j], device, xp.complex64))


# --- mean, var, std ---------------------------------------------------------------------

@pytest.mark.parametrize("dtype", FLOATS + COMPLEX)
def test_mean(dtype, device):
    x, h = grid(dtype, device)
    for axis in [None, 0, (1, 2), ()]:
        assert_array(xp.mean(x, axis=axis), np.mean(h, axis=axis), dtype=dtype, device=device,
                     rtol=1e-6)
    assert_array(xp.mean(x, axis=-1, keepdims=True), np.mean(h, axis=-1, keepdims=True),
                 rtol=1e-6)


@pytest.mark.parametrize("dtype", INTS + UINTS + [xp.bool])
def test_integer_input_computed_in_default_float(dtype, device):
    x, h = grid(dtype, device)
    for func in ["mean", "var", "std"]:
        assert_array(getattr(xp, func)(x, axis=1), getattr(np, func)(h.astype(np.float64), axis=1),
                     dtype=xp.float64, device=device)


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("func", ["var", "std"])
def test_var_std(func, dtype, device):
    rng = np.random.default_rng(1)
    h = rng.standard_normal((4, 5, 3)).astype(dtype.name)
    x = arr(h, device, dtype)
    f, np_f = getattr(xp, func), getattr(np, func)
    for axis, correction in [(None, 0), (0, 1), ((0, 2), 1.5), (-1, 2)]:
        assert_array(f(x, axis=axis, correction=correction),
                     np_f(h.astype(np.float64), axis=axis, ddof=correction),
                     dtype=dtype, device=device, rtol=1e-5)
    assert f(x, axis=1, keepdims=True).shape == (4, 1, 3)


@pytest.mark.parametrize("func", ["var", "std"])
def test_var_std_special_cases(func, device):
    f = getattr(xp, func)
    x = arr([[1.0, 2.0], [3.0, np.nan]], device, xp.float64)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no NumPy warning reaches the user
        # M - correction <= 0 gives NaN, not inf
        assert_array(f(x, axis=1, correction=2), [np.nan, np.nan], dtype=xp.float64)
        assert_array(f(x, axis=1, correction=3.5), [np.nan, np.nan])
        assert_array(f(arr(np.zeros((0, 2)), device, xp.float32), axis=0), [np.nan, np.nan],
                     dtype=xp.float32)
    assert_array(f(x, axis=0), [getattr(np, func)([1.0, 3.0]), np.nan])
    # complex input gives the real dtype of the same precision
    z = arr([1 + 1j, 2 - 1j, 3j], device, xp.complex64)
    assert_array(f(z), getattr(np, func)(np.complex128([1 + 1j, 2 - 1j, 3j])), dtype=xp.float32,
                 rtol=1e-6)
    with pytest.raises(TypeError, match=f"{func}: correction"):
        f(x, correction=True)
    with pytest.raises(TypeError, match=f"{func}: correction"):
        f(x, correction="1")


def test_mean_empty_is_nan(device):
    x = arr(np.zeros((0, 2)), device, xp.float64)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert_array(xp.mean(x), np.float64(np.nan), dtype=xp.float64)
        assert_array(xp.mean(x, axis=0), [np.nan, np.nan])
        assert_array(xp.mean(arr(np.zeros(0), device, xp.complex64)),
                     np.complex64(complex(np.nan, np.nan)), dtype=xp.complex64)


# --- cumulative_sum and cumulative_prod -------------------------------------------------

@pytest.mark.parametrize("dtype", [xp.int8, xp.uint16, xp.int64, xp.float32, xp.complex128, xp.bool])
@pytest.mark.parametrize("func,np_func,identity", [("cumulative_sum", "cumsum", 0),
                                                   ("cumulative_prod", "cumprod", 1)])
def test_cumulative(func, np_func, identity, dtype, device):
    x, h = grid(dtype, device, (3, 4))
    expected_dtype = {"bool": xp.int64, "int": xp.int64, "uint": xp.uint64}.get(dtype.kind, dtype)
    f = getattr(xp, func)
    for axis in [0, 1, -1]:
        e = getattr(np, np_func)(h, axis=axis, dtype=expected_dtype.name)
        assert_array(f(x, axis=axis), e, dtype=expected_dtype, device=device, rtol=1e-6)
        init_shape = list(h.shape)
        init_shape[axis] = 1
        e0 = np.concatenate([np.full(init_shape, identity, e.dtype), e], axis=axis)
        assert_array(f(x, axis=axis, include_initial=True), e0, dtype=expected_dtype, rtol=1e-6)
    r = f(arr(h[0], device, dtype))  # 1-D: axis is optional
    assert_array(r, getattr(np, np_func)(h[0], dtype=expected_dtype.name), rtol=1e-6)


@pytest.mark.parametrize("func", ["cumulative_sum", "cumulative_prod"])
def test_cumulative_edge_cases(func, device):
    f = getattr(xp, func)
    ident = 0 if func == "cumulative_sum" else 1
    x = arr([2, 3, 4], device, xp.int16)
    assert_array(f(x, dtype=xp.float32), getattr(np, func)(np.float32([2, 3, 4])), dtype=xp.float32)
    empty = arr(np.zeros(0), device, xp.float32)
    assert_array(f(empty), np.zeros(0, np.float32), dtype=xp.float32)
    assert_array(f(empty, include_initial=True), np.float32([ident]))
    # a 0-d array scans as a one-element vector, as in NumPy
    z = arr(5, device, xp.int64)
    assert_array(f(z), [5], dtype=xp.int64)
    assert_array(f(z, axis=-1, include_initial=True), [ident, 5])
    m = arr(np.ones((2, 2)), device, xp.float64)
    with pytest.raises(ValueError, match=f"{func}: axis is required"):
        f(m)
    with pytest.raises(TypeError, match=f"{func}: axis must be an int"):
        f(m, axis=(0,))
    with pytest.raises(ValueError, match=f"{func}: axis 2"):
        f(m, axis=2)
    with pytest.raises(TypeError, match=f"{func}: include_initial"):
        f(x, include_initial=None)
    with pytest.raises(TypeError, match=func):
        f(arr([1j], device, xp.complex64), dtype=xp.float64)


# --- property test against NumPy ------------------------------------------------------

@st.composite
def array_and_axis(draw):
    shape = draw(st.lists(st.integers(1, 4), min_size=0, max_size=3).map(tuple))
    values = draw(st.lists(st.floats(-100, 100), min_size=int(np.prod(shape)),
                           max_size=int(np.prod(shape))))
    h = np.asarray(values, dtype=np.float64).reshape(shape)
    axes = draw(st.none() | st.sets(st.integers(-len(shape), len(shape) - 1)
                                    if shape else st.nothing()).map(tuple))
    if axes is not None and len({a % len(shape) for a in axes}) != len(axes):
        axes = None
    return h, axes, draw(st.booleans())


@settings(max_examples=40, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(case=array_and_axis())
def test_reductions_match_numpy(case, device):
    h, axis, keepdims = case
    x = xp.asarray(h, device=device)
    for func in ["sum", "prod", "max", "min", "mean", "var", "std"]:
        assert_array(getattr(xp, func)(x, axis=axis, keepdims=keepdims),
                     getattr(np, func)(h, axis=axis, keepdims=keepdims),
                     dtype=xp.float64, device=device, rtol=1e-9, atol=1e-9)


# --- from the WebGPU backend's tests, on every device -------------------------------

def test_reductions_any_axes(device):
    rng = np.random.default_rng(2)
    h = rng.standard_normal((6, 7, 300)).astype(np.float32)
    a = xp.asarray(h, device=device)
    for axis in ((0,), (2,), (0, 2), (1, 2), (0, 1, 2)):
        np.testing.assert_allclose(to_np(xp.sum(a, axis=axis)), h.astype(np.float64).sum(axis),
                                   rtol=2e-5, atol=2e-4)
        np.testing.assert_array_equal(to_np(xp.max(a, axis=axis)), h.max(axis))
        np.testing.assert_array_equal(to_np(xp.min(a, axis=axis, keepdims=True)),
                                      h.min(axis, keepdims=True))
    ih = rng.integers(-3, 4, (5, 9)).astype(np.int8)
    ia = xp.asarray(ih, device=device)
    np.testing.assert_array_equal(to_np(xp.sum(ia, axis=1)), ih.sum(1))
    np.testing.assert_array_equal(to_np(xp.any(ia > 2, axis=0)), (ih > 2).any(0))
    np.testing.assert_array_equal(to_np(xp.all(ia > -3, axis=1)), (ih > -3).all(1))
    assert float(xp.mean(a)) == pytest.approx(float(h.astype(np.float64).mean()), abs=1e-5)
