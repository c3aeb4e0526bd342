"""Creation functions, with NumPy as the oracle."""

import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

import numr
from tests.helpers import assert_array, narrow_twin, to_np

ALL = [numr.bool, numr.int8, numr.int16, numr.int32, numr.int64, numr.uint8, numr.uint16,
       numr.uint32, numr.uint64, numr.float32, numr.float64, numr.complex64,
       numr.complex128, numr.float16]
NUMERIC = [d for d in ALL if d is not numr.bool]


# --- asarray ------------------------------------------------------------------------------

@pytest.mark.parametrize("obj, dtype", [
    (True, numr.bool), (3, numr.int64), (2.5, numr.float64), (1 + 2j, numr.complex128),
    ([1, 2, 3], numr.int64), ([[1.0, 2], [3, 4]], numr.float64), ([True, False], numr.bool),
    ([1, 2.5], numr.float64), ([1, 2j], numr.complex128), ([], numr.float64),
])
def test_asarray_python_data(device, obj, dtype):
    x = numr.asarray(obj, device=device)
    assert_array(x, np.asarray(obj), dtype=dtype, device=device)


def test_asarray_defaults_follow_device(device):
    d = narrow_twin(device)
    assert numr.asarray(1.5, device=d).dtype == numr.float32
    assert numr.asarray([1, 2], device=d).dtype == numr.int32
    assert numr.asarray(1j, device=d).dtype == numr.complex64
    # a host array keeps its dtype; one the device lacks is refused, not narrowed
    assert numr.asarray(np.arange(3, dtype=np.int64), device=d).dtype == numr.int64
    with pytest.raises(TypeError, match="asarray: dtype numr.float64 is not available"):
        numr.asarray(np.ones(3), device=d)
    assert numr.asarray(np.ones(3), dtype=numr.float32, device=d).dtype == numr.float32
    with pytest.raises(OverflowError, match="asarray"):
        numr.asarray([2**40], device=d)
    with pytest.raises(TypeError, match="asarray.*float64.*not available"):
        numr.asarray([1.0], dtype=numr.float64, device=d)


@pytest.mark.parametrize("dtype", ALL)
def test_asarray_dtype(device, dtype):
    obj = [[0, 1], [1, 0]] if dtype is not numr.bool else [[False, True], [True, False]]
    x = numr.asarray(obj, dtype=dtype, device=device)
    assert_array(x, np.asarray(obj, dtype=dtype.name), dtype=dtype, device=device)


def test_asarray_host_arrays(device):
    h = np.arange(6, dtype=np.float32).reshape(2, 3)
    x = numr.asarray(h, device=device)
    assert_array(x, h, dtype=numr.float32, device=device)
    assert numr.asarray(np.float32(2)).dtype == numr.float32
    assert_array(numr.asarray(b"ab", device=device), [97, 98], dtype=numr.uint8)
    assert_array(numr.asarray(np.uint64(2**63), device=device), 2**63, dtype=numr.uint64)


def test_asarray_copy(device):
    h = np.arange(3.0)
    if device.kind == "cpu":
        shared = numr.asarray(h, copy=False, device=device)
        h[0] = 7
        assert to_np(shared)[0] == 7
    copied = numr.asarray(h, copy=True, device=device)
    h[1] = 9
    assert to_np(copied)[1] == 1
    x = numr.asarray([1.0, 2.0], device=device)
    assert numr.asarray(x) is x
    assert numr.asarray(x, copy=False) is x
    y = numr.asarray(x, copy=True)
    assert y is not x
    y[0] = 5.0
    assert to_np(x)[0] == 1.0
    z = numr.asarray(x, dtype=numr.float32)
    assert_array(z, [1.0, 2.0], dtype=numr.float32, device=device)


def test_asarray_errors(device):
    x = numr.asarray([1.0], device=device)
    with pytest.raises(ValueError, match="asarray: copy=False"):
        numr.asarray([1, 2], copy=False, device=device)
    with pytest.raises(ValueError, match="asarray: copy=False"):
        numr.asarray(x, dtype=numr.float32, copy=False)
    with pytest.raises(TypeError, match="asarray: copy"):
        numr.asarray([1], copy="yes", device=device)
    with pytest.raises(ValueError, match="asarray: Python float nan"):
        numr.asarray([1.5, math.nan], dtype=numr.int32, device=device)
    with pytest.raises(OverflowError, match="asarray: Python int 300"):
        numr.asarray([300.5], dtype=numr.int8, device=device)
    with pytest.raises(TypeError, match="asarray"):
        numr.asarray([1j], dtype=numr.float64, device=device)
    with pytest.raises(TypeError, match="asarray.*complex128"):
        numr.asarray(numr.asarray([1j], device=device), dtype=numr.float64)
    with pytest.raises(OverflowError, match="asarray"):
        numr.asarray([300], dtype=numr.int8, device=device)
    with pytest.raises(OverflowError, match="asarray"):
        numr.asarray([2**64], device=device)
    with pytest.raises(OverflowError, match="asarray"):
        numr.asarray(2**63, device=device)
    with pytest.raises(ValueError, match="asarray"):
        numr.asarray([[1], [1, 2]], device=device)
    with pytest.raises(TypeError, match="asarray"):
        numr.asarray("abc", device=device)
    with pytest.raises(TypeError, match="asarray"):
        numr.asarray([1], dtype=np.float64, device=device)
    with pytest.raises(ValueError, match="asarray"):
        numr.asarray([1], device="tpu")


# --- empty / zeros / ones / full ----------------------------------------------------------

@pytest.mark.parametrize("shape", [(), 0, 3, (2, 3), [2, 0, 4], (np.int64(2), 1)])
@pytest.mark.parametrize("func, fill", [("zeros", 0), ("ones", 1), ("empty", None)])
def test_filled_shapes(device, shape, func, fill):
    x = getattr(numr, func)(shape, device=device)
    expected_shape = (int(shape),) if np.ndim(shape) == 0 and shape != () else tuple(shape)
    assert x.shape == expected_shape and x.dtype == numr.float64 and x.device == device
    if fill is not None:
        assert_array(x, np.full(expected_shape, fill, dtype=np.float64))


@pytest.mark.parametrize("dtype", ALL)
def test_filled_dtypes(device, dtype):
    assert_array(numr.zeros((2, 2), dtype=dtype, device=device),
                 np.zeros((2, 2), dtype=dtype.name), dtype=dtype, device=device)
    assert_array(numr.ones(3, dtype=dtype, device=device), np.ones(3, dtype=dtype.name),
                 dtype=dtype, device=device)
    e = numr.empty((4, 1), dtype=dtype, device=device)
    assert e.shape == (4, 1) and e.dtype == dtype and e.device == device


@pytest.mark.parametrize("value, dtype", [(True, numr.bool), (-3, numr.int64),
                                          (2.5, numr.float64), (1 - 1j, numr.complex128),
                                          (np.float32(0.5), numr.float64)])
def test_full_infers_dtype(device, value, dtype):
    assert_array(numr.full((2, 2), value, device=device), np.full((2, 2), value),
                 dtype=dtype, device=device)


def test_full_defaults_follow_device(device):
    d = narrow_twin(device)
    assert numr.full(2, 1.0, device=d).dtype == numr.float32
    assert numr.full(2, 1, device=d).dtype == numr.int32
    assert numr.zeros(2, device=d).dtype == numr.float32
    with pytest.raises(OverflowError, match="full"):
        numr.full(2, 2**40, device=d)


@pytest.mark.parametrize("value, dtype", [
    (True, numr.int8), (True, numr.float32), (5, numr.uint8), (255, numr.uint8),
    (-128, numr.int8), (2**64 - 1, numr.uint64), (3, numr.float32), (3, numr.complex64),
    (float("nan"), numr.float32), (float("-inf"), numr.float64), (1.5, numr.complex128),
])
def test_full_with_dtype(device, value, dtype):
    assert_array(numr.full(3, value, dtype=dtype, device=device),
                 np.full(3, value, dtype=dtype.name), dtype=dtype, device=device)


def test_filled_errors(device):
    for f in (numr.zeros, numr.ones, numr.empty):
        name = f.__name__
        with pytest.raises(ValueError, match=f"{name}: shape .*negative"):
            f((2, -1), device=device)
        with pytest.raises(TypeError, match=name):
            f(2.0, device=device)
        with pytest.raises(TypeError, match=name):
            f((2, 1.5), device=device)
        with pytest.raises(TypeError, match=name):
            f(True, device=device)
        with pytest.raises(TypeError, match=f"{name}: dtype"):
            f(2, dtype="float32", device=device)
        with pytest.raises(ValueError, match=name):
            f((1,) * 65, device=device)
    with pytest.raises(ValueError, match="full: Python float nan"):
        numr.full(2, math.nan, dtype=numr.int32, device=device)
    with pytest.raises(OverflowError, match="full: Python float inf"):
        numr.full(2, math.inf, dtype=numr.int32, device=device)
    with pytest.raises(TypeError, match="full: Python complex"):
        numr.full(2, 1j, dtype=numr.float64, device=device)
    with pytest.raises(OverflowError, match="full: Python int 256"):
        numr.full(2, 256, dtype=numr.uint8, device=device)
    with pytest.raises(OverflowError, match="full: Python int -1"):
        numr.full(2, -1, dtype=numr.uint32, device=device)
    with pytest.raises(OverflowError, match="full"):
        numr.full(2, 2**63, device=device)
    with pytest.raises(TypeError, match="full: fill_value"):
        numr.full(2, "1", device=device)
    with pytest.raises(TypeError, match="full: fill_value"):
        numr.full(2, None, device=device)


# --- *_like -------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", [numr.bool, numr.int16, numr.uint64, numr.float32,
                                   numr.complex128])
def test_like_inherit(device, dtype):
    x = numr.zeros((2, 3), dtype=dtype, device=device)
    one = True if dtype is numr.bool else 1
    assert_array(numr.zeros_like(x), np.zeros((2, 3), dtype.name), dtype=dtype, device=device)
    assert_array(numr.ones_like(x), np.ones((2, 3), dtype.name), dtype=dtype, device=device)
    assert_array(numr.full_like(x, one), np.full((2, 3), one, dtype.name), dtype=dtype,
                 device=device)
    e = numr.empty_like(x)
    assert e.shape == (2, 3) and e.dtype == dtype and e.device == device


def test_like_overrides(device):
    x = numr.ones((3,), dtype=numr.int8, device=device)
    assert_array(numr.zeros_like(x, dtype=numr.float32), [0, 0, 0], dtype=numr.float32,
                 device=device)
    assert_array(numr.full_like(x, 2.5, dtype=numr.float64), [2.5] * 3, dtype=numr.float64)
    assert_array(numr.ones_like(x, device=str(device)), [1, 1, 1], dtype=numr.int8,
                 device=device)
    # another device: the shape travels, the data need not
    d = narrow_twin(device)
    y = numr.full_like(x, 4, device=d)
    assert y.device is d and y.dtype == numr.int8
    assert_array(y, [4, 4, 4])
    assert numr.zeros_like(x, device=d).device is d
    with pytest.raises(TypeError, match="ones_like: dtype numr.float64 is not available"):
        numr.ones_like(x, dtype=numr.float64, device=d)


def test_like_errors(device):
    x = numr.ones((2,), dtype=numr.int32, device=device)
    for f in (numr.zeros_like, numr.ones_like, numr.empty_like):
        with pytest.raises(TypeError, match=f.__name__):
            f(np.ones(2))
        with pytest.raises(TypeError, match=f"{f.__name__}: dtype"):
            f(x, dtype=int)
    with pytest.raises(TypeError, match="full_like"):
        numr.full_like(x, 1.5)
    with pytest.raises(OverflowError, match="full_like"):
        numr.full_like(x, 2**31)
    with pytest.raises(TypeError, match="full_like"):
        numr.full_like([1, 2], 1)


# --- eye ----------------------------------------------------------------------------------

@pytest.mark.parametrize("n, m, k", [(0, None, 0), (1, None, 0), (3, None, 0), (3, 5, 1),
                                     (5, 3, -2), (4, 4, 4), (4, 4, -4), (2, 3, 10**30),
                                     (3, 2, -10**30)])
def test_eye(device, n, m, k):
    x = numr.eye(n, m, k=k, device=device)
    expected = np.eye(n, m, k=max(-n, min(k, m if m is not None else n)))
    assert_array(x, expected, dtype=numr.float64, device=device)


@pytest.mark.parametrize("dtype", ALL)
def test_eye_dtypes(device, dtype):
    assert_array(numr.eye(3, 2, k=-1, dtype=dtype, device=device),
                 np.eye(3, 2, k=-1, dtype=dtype.name), dtype=dtype, device=device)


def test_eye_errors(device):
    with pytest.raises(ValueError, match="eye: n_rows"):
        numr.eye(-1, device=device)
    with pytest.raises(ValueError, match="eye"):
        numr.eye(2, -3, device=device)
    with pytest.raises(TypeError, match="eye: n_rows"):
        numr.eye(2.0, device=device)
    with pytest.raises(TypeError, match="eye: k"):
        numr.eye(2, k=0.5, device=device)
    with pytest.raises(TypeError, match="eye: dtype"):
        numr.eye(2, dtype=np.float32, device=device)


# --- arange -------------------------------------------------------------------------------

@pytest.mark.parametrize("args, kwargs", [
    ((5,), {}), ((2, 9), {}), ((2, 9, 3), {}), ((9, 2, -2), {}), ((3, 3), {}),
    ((5, 0), {}), ((0, -5, 1), {}), ((0, 10, 1), {"dtype": numr.int8}),
    ((-128, 128), {"dtype": numr.int8}), ((0, 256), {"dtype": numr.uint8}),
    ((250, 10, -7), {"dtype": numr.uint8}), ((0, 2**64 - 1, 2**62), {"dtype": numr.uint64}),
    ((0, 10, 1), {"dtype": numr.float32}),
])
def test_arange_exact(device, args, kwargs):
    x = numr.arange(*args, **kwargs, device=device)
    dtype = kwargs.get("dtype", numr.int64)
    expected = np.array(list(range(*args)), dtype=dtype.name)
    assert_array(x, expected, dtype=dtype, device=device)


@pytest.mark.parametrize("args", [(0.0, 1.0, 0.1), (1, 2.5), (2.5,), (1, -1, -0.25),
                                  (0, 1, 1e-3), (-3.5, 3.5, 0.7), (1e18, 1e18 + 10240, 1024)])
@pytest.mark.parametrize("dtype", [None, numr.float32, numr.float64])
def test_arange_float(device, args, dtype):
    x = numr.arange(*args, dtype=dtype, device=device)
    start, stop, step = (0, args[0], 1) if len(args) == 1 else (args + (1,))[:3]
    n = max(math.ceil((stop - start) / step), 0)
    expected = start + step * np.arange(n, dtype=np.float64)
    dtype = dtype or numr.float64
    assert_array(x, expected.astype(dtype.name), dtype=dtype, device=device)
    if n:
        assert to_np(x)[0] == np.asarray(start, dtype=dtype.name)


INTEGER = [numr.int8, numr.int16, numr.int32, numr.int64, numr.uint8, numr.uint16,
           numr.uint32, numr.uint64]


@st.composite
def int_ranges(draw):
    """(dtype, start, stop, step) with every value of the range in the dtype."""
    dtype = draw(st.sampled_from(INTEGER))
    lo, hi = numr.iinfo(dtype).min, numr.iinfo(dtype).max
    start, last = draw(st.integers(lo, hi)), draw(st.integers(lo, hi))
    count = min(draw(st.integers(0, 50)), abs(last - start) + 1)
    if count < 2:
        step = draw(st.integers(-2**65, 2**65).filter(bool))
    else:
        # |step| * (count - 1) <= |last - start|: every value lies between start and last
        span = abs(last - start) // (count - 1)
        step = span if last >= start else -span
    return dtype, start, start + count * step, step


@settings(max_examples=80, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(r=int_ranges(), short=st.booleans())
def test_arange_matches_range(device, r, short):
    dtype, start, stop, step = r
    if short and step == 1:  # the one-argument form, as long as the range (at most 50:
        # arange(start) itself could ask for 2**60 elements)
        n = stop - start
        x, expected = numr.arange(n, dtype=dtype, device=device), range(n)
    else:
        x, expected = numr.arange(start, stop, step, dtype=dtype, device=device), \
            range(start, stop, step)
    assert x.dtype == dtype and x.device == device
    assert to_np(x).tolist() == list(expected)


def test_arange_defaults_follow_device(device):
    d = narrow_twin(device)
    assert numr.arange(3, device=d).dtype == numr.int32
    assert numr.arange(0.5, device=d).dtype == numr.float32


def test_zero_d_arrays_as_scalars(device):
    # an extension of the standard (NumPy, CuPy and PyTorch take 0-d arrays; SciPy
    # passes them): the array's value, as the Python scalar would be taken
    n = numr.asarray(4, device=device)
    x = numr.arange(1, n + 1, dtype=n.dtype, device=device)
    assert_array(x, np.arange(1, 5, dtype=np.int64 if n.dtype == numr.int64 else np.int32))
    z = numr.zeros((2, 3), device=device)
    f = numr.full_like(z, -numr.asarray(math.inf, dtype=z.dtype, device=device))
    assert_array(f, np.full((2, 3), -np.inf, dtype=to_np(z).dtype))
    g = numr.full((3,), numr.asarray(True, device=device), device=device)
    assert g.dtype == numr.bool and to_np(g).tolist() == [True] * 3
    s = numr.linspace(numr.asarray(0.0, device=device), 1.0, 3, device=device)
    assert to_np(s).tolist() == [0.0, 0.5, 1.0]
    h = numr.full_like(numr.zeros(4, dtype=numr.int32, device=device),
                       numr.asarray(2.75, device=device))
    assert h.dtype == numr.int32 and to_np(h).tolist() == [2] * 4  # cast as astype casts
    with pytest.raises(ValueError, match=r"full_like: fill_value must be a scalar or a "
                                         r"0-d array, got an array of shape \(2,\)"):
        numr.full_like(z, numr.zeros(2, device=device))
    with pytest.raises(ValueError, match="arange: stop must be a scalar or a 0-d array"):
        numr.arange(0, numr.ones(2, device=device), device=device)


def test_arange_errors(device):
    with pytest.raises(ValueError, match="arange: step must not be 0"):
        numr.arange(0, 5, 0, device=device)
    with pytest.raises(ValueError, match="arange: step"):
        numr.arange(0, 5, 0.0, device=device)
    with pytest.raises(TypeError, match="arange: start"):
        numr.arange(True, device=device)
    with pytest.raises(TypeError, match="arange: stop"):
        numr.arange(0, "5", device=device)
    with pytest.raises(TypeError, match="arange: step"):
        numr.arange(0, 5, 1j, device=device)
    with pytest.raises(ValueError, match="arange: stop must be finite"):
        numr.arange(0, float("inf"), device=device)
    with pytest.raises(TypeError, match="arange: float arguments"):
        numr.arange(0, 5.0, dtype=numr.int32, device=device)
    with pytest.raises(TypeError, match="arange: dtype numr.bool"):
        numr.arange(2, dtype=numr.bool, device=device)
    with pytest.raises(OverflowError, match="arange: Python int 200"):
        numr.arange(200, 100, -1, dtype=numr.int8, device=device)
    with pytest.raises(OverflowError, match="arange: Python int 300"):
        numr.arange(0, 301, 100, dtype=numr.uint8, device=device)
    with pytest.raises(OverflowError, match="arange"):
        numr.arange(2**63, 2**63 + 2, device=device)
    with pytest.raises(ValueError, match="arange: .* too many"):
        numr.arange(0, 1e300, 1e-300, device=device)
    # an empty range need not fit the dtype
    assert numr.arange(1000, 0, dtype=numr.int8, device=device).shape == (0,)


# --- linspace -----------------------------------------------------------------------------

@pytest.mark.parametrize("start, stop, num", [(0, 1, 5), (-3.5, 10, 7), (5, -5, 11), (2, 2, 4),
                                              (0, 1, 0), (1.5, 3, 1), (0, 1e-300, 3)])
@pytest.mark.parametrize("endpoint", [True, False])
def test_linspace(device, start, stop, num, endpoint):
    x = numr.linspace(start, stop, num, endpoint=endpoint, device=device)
    assert_array(x, np.linspace(start, stop, num, endpoint=endpoint), dtype=numr.float64,
                 device=device, rtol=1e-15)
    if num:
        assert to_np(x)[0] == start
    if num > 1 and endpoint:
        assert to_np(x)[-1] == stop


@pytest.mark.parametrize("dtype", [numr.float32, numr.float16, numr.complex64, numr.int32])
def test_linspace_dtypes(device, dtype):
    x = numr.linspace(-1, 7, 9, dtype=dtype, device=device)
    assert_array(x, np.linspace(-1, 7, 9).astype(dtype.name), dtype=dtype, device=device)
    # endpoint=False is the first num values of the num+1 grid, exactly
    a = to_np(numr.linspace(0.1, 0.7, 6, endpoint=False, dtype=dtype, device=device))
    b = to_np(numr.linspace(0.1, 0.7, 7, dtype=dtype, device=device))[:-1]
    np.testing.assert_array_equal(a, b)


def test_linspace_complex(device):
    x = numr.linspace(1, 2 + 4j, 5, device=device)
    assert_array(x, np.linspace(1, 2 + 4j, 5), dtype=numr.complex128, device=device)
    assert numr.linspace(0j, 1, 2, device=narrow_twin(device)).dtype == numr.complex64
    assert numr.linspace(0, 1, 2, device=narrow_twin(device)).dtype == numr.float32


def test_linspace_int_rounds_down(device):
    x = numr.linspace(-2, 2, 6, dtype=numr.int64, device=device)
    assert_array(x, np.floor(np.linspace(-2, 2, 6)), dtype=numr.int64)


def test_linspace_errors(device):
    with pytest.raises(ValueError, match="linspace: num must be non-negative"):
        numr.linspace(0, 1, -1, device=device)
    with pytest.raises(TypeError, match="linspace: num"):
        numr.linspace(0, 1, 2.0, device=device)
    with pytest.raises(TypeError, match="linspace: Python complex"):
        numr.linspace(0, 1j, 3, dtype=numr.float64, device=device)
    with pytest.raises(TypeError, match="linspace: dtype numr.bool"):
        numr.linspace(0, 1, 3, dtype=numr.bool, device=device)
    with pytest.raises(TypeError, match="linspace: start"):
        numr.linspace("0", 1, 3, device=device)
    with pytest.raises(TypeError, match="linspace: stop"):
        numr.linspace(0, True, 3, device=device)
    with pytest.raises(TypeError, match="linspace: endpoint"):
        numr.linspace(0, 1, 3, endpoint=None, device=device)


# --- meshgrid -----------------------------------------------------------------------------

@pytest.mark.parametrize("indexing", ["xy", "ij"])
@pytest.mark.parametrize("sizes", [(3,), (2, 3), (2, 3, 4), (0, 2), (1, 1, 1, 2)])
def test_meshgrid(device, indexing, sizes):
    hosts = [np.arange(n, dtype=np.float32) + 10 * i for i, n in enumerate(sizes)]
    out = numr.meshgrid(*(numr.asarray(h, device=device) for h in hosts), indexing=indexing)
    expected = np.meshgrid(*hosts, indexing=indexing)
    assert type(out) is tuple and len(out) == len(sizes)
    for o, e in zip(out, expected):
        assert_array(o, e, dtype=numr.float32, device=device)


def test_meshgrid_keeps_each_dtype(device):
    a = numr.asarray([1, 2], dtype=numr.int8, device=device)
    b = numr.asarray([0.5], device=device)
    x, y = numr.meshgrid(a, b)
    assert x.dtype == numr.int8 and y.dtype == numr.float64 and x.shape == y.shape == (1, 2)
    assert numr.meshgrid() == ()


def test_meshgrid_errors(device):
    a = numr.asarray([1, 2], device=device)
    with pytest.raises(ValueError, match="meshgrid: indexing"):
        numr.meshgrid(a, indexing="yx")
    with pytest.raises(ValueError, match=r"meshgrid: arrays must be 1-D.*\(2, 1\)"):
        numr.meshgrid(a, numr.ones((2, 1), device=device))
    with pytest.raises(TypeError, match="meshgrid"):
        numr.meshgrid(a, [1, 2])
    with pytest.raises(ValueError, match="meshgrid: arrays are on different devices"):
        numr.meshgrid(a, numr.asarray([1], device=narrow_twin(device)))


# --- tril / triu --------------------------------------------------------------------------

@pytest.mark.parametrize("shape", [(3, 3), (2, 5), (5, 2), (2, 3, 4), (0, 3), (1, 2, 0, 2)])
@pytest.mark.parametrize("k", [0, 1, -1, 3, -4, 10**20, -10**20])
def test_tril_triu(device, shape, k):
    h = np.arange(1, math.prod(shape) + 1, dtype=np.int32).reshape(shape)
    x = numr.asarray(h, device=device)
    assert_array(numr.tril(x, k=k), np.tril(h, k=max(-100, min(k, 100))), dtype=numr.int32,
                 device=device)
    assert_array(numr.triu(x, k=k), np.triu(h, k=max(-100, min(k, 100))), dtype=numr.int32,
                 device=device)


@pytest.mark.parametrize("dtype", [numr.bool, numr.uint8, numr.float16, numr.complex64])
def test_tril_triu_dtypes(device, dtype):
    x = numr.ones((3, 3), dtype=dtype, device=device)
    assert_array(numr.tril(x), np.tril(np.ones((3, 3), dtype.name)), dtype=dtype)
    assert_array(numr.triu(x, k=1), np.triu(np.ones((3, 3), dtype.name), k=1), dtype=dtype)


def test_tril_triu_errors(device):
    for f in (numr.tril, numr.triu):
        name = f.__name__
        with pytest.raises(ValueError, match=f"{name}: x must have at least 2 dimensions"):
            f(numr.ones(3, device=device))
        with pytest.raises(TypeError, match=f"{name}: k"):
            f(numr.ones((2, 2), device=device), k=1.0)
        with pytest.raises(TypeError, match=name):
            f(np.ones((2, 2)))


# --- from_dlpack --------------------------------------------------------------------------

def test_from_dlpack_numpy():
    h = np.arange(6.0).reshape(2, 3)
    x = numr.from_dlpack(h)
    assert_array(x, h, dtype=numr.float64, device="cpu")
    h[0, 0] = 42.0
    assert to_np(x)[0, 0] == 42.0  # copy=None shares memory where it can
    c = numr.from_dlpack(h, copy=True)
    h[0, 1] = -1.0
    assert to_np(c)[0, 1] == 1.0
    assert numr.from_dlpack(np.array([True, False])).dtype == numr.bool


@pytest.mark.parametrize("dtype", ALL)
def test_from_dlpack_numr(device, dtype):
    x = numr.ones((2, 2), dtype=dtype, device=device)
    y = numr.from_dlpack(x)
    assert_array(y, np.ones((2, 2), dtype.name), dtype=dtype, device=device)
    z = numr.from_dlpack(x, copy=True)
    z[0, 0] = numr.zeros((), dtype=dtype, device=device)
    assert to_np(x)[0, 0] == 1


def test_from_dlpack_device(device):
    x = numr.asarray([1.0, 2.0], dtype=numr.float32, device=device)
    d = narrow_twin(device)
    y = numr.from_dlpack(x, device=d)
    assert y.device is d
    assert_array(y, [1.0, 2.0], dtype=numr.float32)
    with pytest.raises(ValueError, match="from_dlpack: copy=False"):
        numr.from_dlpack(x, device=d, copy=False)
    with pytest.raises(TypeError, match="from_dlpack: dtype numr.float64"):
        numr.from_dlpack(numr.ones(2, dtype=numr.float64, device=device), device=d)
    if device.kind == "cpu":
        assert numr.from_dlpack(np.ones(2, np.float32), device=d).device is d


def test_from_dlpack_errors(device):
    with pytest.raises(TypeError, match="from_dlpack: list"):
        numr.from_dlpack([1, 2])
    with pytest.raises(TypeError, match="from_dlpack: copy"):
        numr.from_dlpack(numr.ones(2, device=device), copy="no")
    with pytest.raises(ValueError, match="from_dlpack"):
        numr.from_dlpack(numr.ones(2, device=device), device="nowhere")


# --- issue 19: edge input, the same answer on every device ----------------------------------

def test_asarray_big_endian(device):
    # WebGPU copied the bytes unswapped ([0, 16777216, 33554432])
    for code, values in (("i4", [0, 1, -2]), ("f8", [0.5, -1.0, 3.0]), ("u2", [1, 2, 3])):
        h = np.asarray(values, dtype=">" + code)
        x = numr.asarray(h, device=device)
        assert_array(x, np.asarray(values, dtype=code), device=device)
        y = numr.asarray(h).to_device(device)
        assert_array(y, np.asarray(values, dtype=code), device=device)
    with pytest.raises(ValueError, match="asarray: copy=False.*byte order"):
        numr.asarray(np.arange(3, dtype=">i4"), copy=False)


@pytest.mark.parametrize("obj", [object(), None, {1: 2}, {1, 2}, (i for i in range(2)),
                                 [object()], [1, None]],
                         ids=["object", "None", "dict", "set", "generator", "list", "mixed"])
def test_asarray_of_non_numbers_is_a_type_error(device, obj):
    with pytest.raises(TypeError, match=r"asarray: cannot make an array of .*(type|element "
                                        r"of type) (object|NoneType|dict|set|generator)"):
        numr.asarray(obj, device=device)


def test_asarray_python_ints_one_rule(device):
    # Python ints must fit the default integer dtype, alone or with negative ints
    for obj in ([2**63], [2**63, -1], [[1], [2**64]], [-2**63 - 1, 1]):
        with pytest.raises(OverflowError, match="asarray: a Python int"):
            numr.asarray(obj, device=device)
    assert numr.asarray([2**63, 1.0], device=device).dtype == device.defaults["real floating"]
    assert_array(numr.asarray([2**63], dtype=numr.uint64, device=device)
                 if numr.uint64 in device.dtypes else numr.asarray([1], device=device),
                 [2**63] if numr.uint64 in device.dtypes else [1])


def test_asarray_converts_python_values_for_an_explicit_dtype(device):
    # as array_api_strict, NumPy, PyTorch and JAX (array-api-extra and SciPy rely on it)
    assert_array(numr.asarray(1, dtype=numr.bool, device=device), np.True_, dtype=numr.bool)
    assert_array(numr.asarray([0, 2.5, 1j], dtype=numr.bool, device=device),
                 [False, True, True], dtype=numr.bool)
    assert_array(numr.asarray([1000., 1000.], dtype=numr.int64, device=device), [1000, 1000],
                 dtype=numr.int64)
    assert_array(numr.asarray([1.9, -1.9], dtype=numr.int32, device=device), [1, -1],
                 dtype=numr.int32)
    assert_array(numr.full(2, 2.7, dtype=numr.int16, device=device), [2, 2], dtype=numr.int16)
    assert_array(numr.full(2, 3, dtype=numr.bool, device=device), [True, True])
    x = numr.ones(2, dtype=numr.int32, device=device)
    with pytest.raises(TypeError, match="full_like.*pass dtype="):
        numr.full_like(x, 1.5)
    assert_array(numr.full_like(x, 1.5, dtype=numr.int32), [1, 1])


def test_arange_complex(device):
    for d in (numr.complex64, numr.complex128):
        if d in device.dtypes:
            assert_array(numr.arange(3, dtype=d, device=device), np.arange(3, dtype=d.name),
                         dtype=d, device=device)
            assert_array(numr.arange(0.5, 2, 0.5, dtype=d, device=device),
                         np.arange(0.5, 2, 0.5).astype(d.name), dtype=d)


@pytest.mark.parametrize("call", [
    lambda d: numr.empty((2**32,) * 3, device=d), lambda d: numr.zeros(2**62, device=d),
    lambda d: numr.ones((2**40,), dtype=numr.float32, device=d),
    lambda d: numr.full((2**20, 2**30), 1.0, device=d), lambda d: numr.arange(2**61, device=d),
    lambda d: numr.eye(2**31, device=d)],
    ids=["empty", "zeros", "ones", "full", "arange", "eye"])
def test_huge_allocations_raise_numr_memory_error(device, call):
    # one type everywhere (the CPU gave NumPy's ValueError or _ArrayMemoryError)
    with pytest.raises(MemoryError, match=r"^(empty|zeros|ones|full|arange|eye): .*bytes") as e:
        call(device)
    assert type(e.value) is MemoryError


def test_unknown_device_error_names_the_function():
    for f, args in ((numr.ones, (3,)), (numr.asarray, ([1],)), (numr.arange, (2,))):
        with pytest.raises(ValueError, match=rf"^{f.__name__}: device 'webgpu:7'"):
            f(*args, device="webgpu:7")


class _BadDevice:
    def __dlpack__(self, **kwargs):
        return 1

    def __dlpack_device__(self):
        return ("x", 0)


class _BadCapsule(_BadDevice):
    def __dlpack_device__(self):
        return (1, 0)


def test_from_dlpack_malformed_producers(device):
    with pytest.raises(TypeError, match=r"from_dlpack: _BadDevice.__dlpack_device__\(\)"):
        numr.from_dlpack(_BadDevice(), device=device)
    with pytest.raises(TypeError, match=r"from_dlpack: _BadCapsule.__dlpack__\(\) gave no"):
        numr.from_dlpack(_BadCapsule(), device=device)


# --- from the WebGPU backend's tests, on every device -------------------------------

def test_astype_and_creation(device):
    h = np.array([-1.5, 0.2, 2.7, 300.0], np.float32)
    a = numr.asarray(h, device=device)
    # floats out of an integer range saturate (numr's rule, README Semantics), NumPy wraps
    want = {"int8": [-1, 0, 2, 127], "uint8": [0, 0, 2, 255]}
    for d in ("int8", "uint8", "int32", "bool", "float16"):
        np.testing.assert_array_equal(to_np(numr.astype(a, getattr(numr, d))),
                                      np.asarray(want.get(d, h.astype(d)), dtype=d))
    np.testing.assert_array_equal(
        to_np(numr.full((3, 2), -0.0, device=device, dtype=numr.float32)),
        np.full((3, 2), -0.0, np.float32))
    assert np.signbit(to_np(numr.full((2,), -0.0, device=device, dtype=numr.float32))).all()
    np.testing.assert_array_equal(to_np(numr.arange(2, 20, 3, device=device, dtype=numr.int16)),
                                  np.arange(2, 20, 3, dtype=np.int16))
    np.testing.assert_allclose(to_np(numr.arange(0.5, 3, 0.25, device=device, dtype=numr.float32)),
                               np.arange(0.5, 3, 0.25), rtol=1e-7)
    np.testing.assert_allclose(to_np(numr.linspace(-1, 2, 7, device=device, dtype=numr.float32)),
                               np.linspace(-1, 2, 7), rtol=1e-7)
    np.testing.assert_array_equal(to_np(numr.eye(4, 6, k=-1, device=device, dtype=numr.uint8)),
                                  np.eye(4, 6, k=-1, dtype=np.uint8))


def test_meshgrid_reversed_view_and_three_arrays(device):
    x = np.arange(3, dtype=np.float32)
    y = np.arange(4, dtype=np.float32) * 2
    z = np.arange(2, dtype=np.float32) - 5
    ax, ay, az = (numr.asarray(v, device=device) for v in (x, y, z))
    for indexing in ("xy", "ij"):
        got = numr.meshgrid(ax, ay[::-1], az, indexing=indexing)
        want = np.meshgrid(x, y[::-1], z, indexing=indexing)
        assert len(got) == 3
        for g, w in zip(got, want):
            np.testing.assert_array_equal(to_np(g), w)
    (single,) = numr.meshgrid(ax)
    np.testing.assert_array_equal(to_np(single), x)


def test_full_with_a_0d_array_fill(device):
    # NumPy's full takes a 0-d array (SciPy's array-API code passes one)
    f = numr.asarray(2.5, device=device)
    assert_array(numr.full((2, 3), f), np.full((2, 3), 2.5), dtype=f.dtype, device=device)
    i = numr.asarray(7, dtype=numr.int32, device=device)
    r = numr.full(4, i)
    assert r.dtype == numr.int32 and r.device == device
    assert_array(r, [7] * 4)
    assert_array(numr.full((2,), f, dtype=numr.int32), [2, 2], dtype=numr.int32)
    assert_array(numr.full((), f), 2.5)
    with pytest.raises(ValueError, match=r"^full: fill_value must be a scalar or a 0-d array"):
        numr.full(3, numr.asarray([1.0, 2.0], device=device))
    if device.kind != "cpu":       # a device asked for: moved there, as asked
        r = numr.full(2, f, device="cpu")
        assert r.device == numr.Device("cpu")
        assert_array(r, [2.5, 2.5])
