"""The WebGPU statistics kernels on the shapes the generic tests do not reach: rows
longer than a scan block (carry propagation, several levels), many short rows,
non-contiguous views, float32 accuracy of var/std, NaN and tie rules of argmax/argmin.
NumPy (float64 where accuracy matters) is the oracle. Runs on every device."""

import numpy as np
import pytest

import numr as xp
from tests.helpers import arr, assert_array, to_np


# --- scans ------------------------------------------------------------------------------

@pytest.mark.parametrize("length", [1, 63, 64, 65, 1023, 1024, 1025, 5000, 300_001])
def test_cumulative_sum_long_rows(length, device):
    rng = np.random.default_rng(length)
    h = rng.integers(-50, 50, size=(2, length)).astype(np.int64)
    x = arr(h, device)
    assert_array(xp.cumulative_sum(x, axis=1), np.cumsum(h, axis=1), dtype=xp.int64)
    e0 = np.concatenate([np.zeros((2, 1), np.int64), np.cumsum(h, axis=1)], axis=1)
    assert_array(xp.cumulative_sum(x, axis=1, include_initial=True), e0)


def test_cumulative_sum_three_levels(device):
    # more than 1024 blocks of 1024: the block totals need a block scan of their own
    n = 1024 * 1024 + 3
    h = np.ones(n, np.int32)
    r = to_np(xp.cumulative_sum(arr(h, device), dtype=xp.int32))
    np.testing.assert_array_equal(r, np.arange(1, n + 1, dtype=np.int32))


def test_cumulative_float32_long(device):
    rng = np.random.default_rng(3)
    h = rng.standard_normal(100_000).astype(np.float32)
    r = xp.cumulative_sum(arr(h, device))
    e = np.cumsum(h.astype(np.float64))
    np.testing.assert_allclose(to_np(r), e, rtol=0, atol=1e-3 * np.abs(e).max() + 1e-3)


@pytest.mark.parametrize("func,np_func", [("cumulative_sum", np.cumsum),
                                          ("cumulative_prod", np.cumprod)])
def test_cumulative_views_and_axes(func, np_func, device):
    rng = np.random.default_rng(4)
    h = rng.integers(1, 3, size=(5, 1500, 3)).astype(np.float64)
    x = arr(h, device)
    f = getattr(xp, func)
    # a transposed, reversed, strided view
    v = xp.permute_dims(x, (2, 1, 0))[:, ::-3, 1:]
    hv = np.transpose(h, (2, 1, 0))[:, ::-3, 1:]
    for axis in range(3):
        assert_array(f(v, axis=axis), np_func(hv, axis=axis), rtol=1e-12)
    # many short rows
    assert_array(f(x, axis=2, include_initial=True),
                 np.concatenate([np.full((5, 1500, 1), 1.0 if func == "cumulative_prod" else 0.0),
                                 np_func(h, axis=2)], axis=2), rtol=1e-12)


@pytest.mark.parametrize("dtype", ["int8", "uint16", "float16", "bool", "complex64",
                                   "uint64"])
def test_cumulative_dtypes_long(dtype, device):
    rng = np.random.default_rng(5)
    h = rng.integers(0, 4, size=(3, 2000))
    if dtype == "complex64":
        h = h + 1j * rng.integers(-2, 2, size=h.shape)
    h = h.astype(dtype)
    x = arr(h, device)
    r = xp.cumulative_sum(x, axis=1)
    if dtype == "float16":
        # Note: NumPy rounds every running float16 sum to float16 (about 1% off here);
        # numr's GPU scan accumulates in float32, so the oracle is the exact sum.
        assert_array(r, np.cumsum(h.astype(np.float64), axis=1), rtol=2e-2)
    else:
        assert_array(r, np.cumsum(h, axis=1, dtype=np.dtype(r.dtype.name)), rtol=1e-6)


def test_cumulative_dtype_argument(device):
    # values are converted to the requested dtype before they are summed, as NumPy does
    h = np.asarray([1.7, -2.2, 3.9], np.float64)
    x = arr(h, device)
    assert_array(xp.cumulative_sum(x, dtype=xp.int32), np.cumsum(h.astype(np.int32)),
                 dtype=xp.int32)
    assert_array(xp.cumulative_prod(arr(np.asarray([1, 2, 3], np.int8), device),
                                    dtype=xp.complex128),
                 np.complex128([1, 2, 6]), dtype=xp.complex128)
    z = arr(np.asarray([1 + 1j, 2 - 1j, 1j], np.complex128), device)
    assert_array(xp.cumulative_prod(z), np.cumprod(np.asarray([1 + 1j, 2 - 1j, 1j])),
                 rtol=1e-12)


# --- var, std ---------------------------------------------------------------------------

@pytest.mark.parametrize("func", ["var", "std"])
def test_var_std_float32_accuracy(func, device):
    # a large mean and a small spread: one-pass formulas lose every digit in float32
    rng = np.random.default_rng(6)
    h = (1e4 + rng.standard_normal((3, 200_000))).astype(np.float32)
    r = getattr(xp, func)(arr(h, device), axis=1, correction=1)
    e = getattr(np, func)(h.astype(np.float64), axis=1, ddof=1)
    assert_array(r, e, dtype=xp.float32, rtol=1e-4)


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64", "complex64",
                                   "complex128"])
def test_var_std_views(dtype, device):
    rng = np.random.default_rng(7)
    h = rng.standard_normal((4, 30, 6))
    if dtype.startswith("complex"):
        h = h + 1j * rng.standard_normal(h.shape)
    h = h.astype(dtype)
    x = arr(h, device)
    v, hv = xp.permute_dims(x, (2, 0, 1))[::-2, :, 3:], np.transpose(h, (2, 0, 1))[::-2, :, 3:]
    tol = 1e-2 if dtype == "float16" else 1e-5
    for axis in [None, 0, (1, 2), (0, 2)]:
        for func in ["var", "std"]:
            r = getattr(xp, func)(v, axis=axis, correction=1, keepdims=True)
            e = getattr(np, func)(hv.astype(np.complex128 if "complex" in dtype
                                            else np.float64), axis=axis, ddof=1, keepdims=True)
            assert r.dtype == getattr(xp, {"complex64": "float32",
                                           "complex128": "float64"}.get(dtype, dtype))
            assert_array(r, e, rtol=tol)


def test_var_nan_and_inf(device):
    x = arr(np.asarray([[1.0, np.inf], [np.nan, 2.0], [3.0, 3.0]], np.float32), device)
    assert_array(xp.var(x, axis=1), np.asarray([np.nan, np.nan, 0.0], np.float32))


# --- argmax, argmin ---------------------------------------------------------------------

@pytest.mark.parametrize("func", ["argmax", "argmin"])
def test_arg_ties_nan_and_long(func, device):
    f, np_f = getattr(xp, func), getattr(np, func)
    h = np.zeros(100_000, np.float32)
    h[[70_000, 12, 99_999]] = 5.0 if func == "argmax" else -5.0
    assert int(f(arr(h, device))) == 12
    h[[5_000, 80_000]] = np.nan
    assert int(f(arr(h, device))) == 5_000
    h2 = np.asarray([0.0, -0.0, -0.0, 0.0])
    assert int(f(arr(h2, device))) == np_f(h2)


@pytest.mark.parametrize("dtype", ["int8", "uint64", "int64", "float16", "bool", "uint16"])
@pytest.mark.parametrize("func", ["argmax", "argmin"])
def test_arg_views(func, dtype, device):
    rng = np.random.default_rng(8)
    h = rng.integers(0, 7, size=(6, 50, 4)).astype(dtype)
    if dtype in ("int64", "uint64"):
        h = h * (2 ** 40)
    x = arr(h, device)
    v, hv = xp.permute_dims(x, (1, 2, 0))[::-3, :, 1:], np.transpose(h, (1, 2, 0))[::-3, :, 1:]
    f, np_f = getattr(xp, func), getattr(np, func)
    for axis in [None, 0, 1, 2]:
        assert_array(f(v, axis=axis), np_f(hv, axis=axis))
        assert_array(f(v, axis=axis, keepdims=True), np_f(hv, axis=axis, keepdims=True))


# --- count_nonzero, diff ----------------------------------------------------------------

@pytest.mark.parametrize("dtype", ["float16", "float32", "float64", "complex64", "complex128"])
def test_count_nonzero_floats(dtype, device):
    h = np.asarray([[0.0, -0.0, np.nan], [np.inf, 0.0, 1e-30]], dtype)
    if dtype.startswith("complex"):
        h = h * 1j + np.asarray([[0, -0.0, 0], [0, 1, 0]])
    x = arr(h, device)
    for axis in [None, 0, (1,)]:
        assert_array(xp.count_nonzero(x, axis=axis), np.count_nonzero(h, axis=axis))


def test_diff_views(device):
    rng = np.random.default_rng(9)
    h = rng.integers(-100, 100, size=(7, 9)).astype(np.int16)
    x = arr(h, device)
    v, hv = xp.permute_dims(x, (1, 0))[::-2], h.T[::-2]
    for axis in [0, 1]:
        for n in [1, 3, 12]:
            assert_array(xp.diff(v, axis=axis, n=n), np.diff(hv, axis=axis, n=n))
    b = arr(np.asarray([True, False, False]), device)
    assert_array(xp.diff(b, prepend=True, append=False, n=2),
                 np.diff(np.asarray([True, False, False]), prepend=True, append=False, n=2))


@pytest.mark.parametrize("dtype", ["float16", "float64", "complex64", "int16"])
def test_all_any_views(dtype, device):
    h = np.asarray([[0, np.nan, 2], [0, 0, -0.0], [1, 1, 1]]).astype(
        dtype if dtype != "int16" else "float64")
    h = np.nan_to_num(h).astype(dtype) if dtype == "int16" else h
    if dtype == "complex64":
        h = h * 1j
    x = arr(h, device)
    v, hv = xp.permute_dims(x, (1, 0))[::-1], h.T[::-1]
    for axis in [None, 0, 1]:
        assert_array(xp.any(v, axis=axis), np.any(hv, axis=axis))
        assert_array(xp.all(v, axis=axis, keepdims=True), np.all(hv, axis=axis, keepdims=True))


@pytest.mark.parametrize("dtype", ["float32", "complex128", "float16"])
def test_split_reductions(dtype, device):
    # few outputs of many elements: several workgroups per output, then a merge
    rng = np.random.default_rng(10)
    h = 3.0 + rng.standard_normal((40_000, 3))
    if dtype == "float16" and device.kind != "webgpu":
        pytest.skip("NumPy and CuPy accumulate float16 in float16 (50% off here)")
    if dtype.startswith("complex"):
        h = h + 1j * rng.standard_normal(h.shape)
    h = h.astype(dtype)
    x = arr(h, device)
    v, hv = x[::-1, :2], h[::-1, :2]   # reduced axis reversed, one column dropped
    h64 = hv.astype(np.complex128 if "complex" in dtype else np.float64)
    tol = 1e-2 if dtype == "float16" else 1e-4 if dtype == "float32" else 1e-9
    for axis in [None, 0]:
        for func in ["var", "std"]:
            assert_array(getattr(xp, func)(v, axis=axis, correction=1),
                         getattr(np, func)(h64, axis=axis, ddof=1), rtol=tol)
    if dtype != "complex128":
        for func in ["argmax", "argmin"]:
            for axis in [None, 0]:
                assert_array(getattr(xp, func)(v, axis=axis), getattr(np, func)(hv, axis=axis))


def test_column_reductions(device):
    # many outputs over the leading axis: one invocation per column on WebGPU
    rng = np.random.default_rng(11)
    h = (5.0 + rng.standard_normal((300, 9000))).astype(np.float32)
    h[7, 3] = np.nan
    x = arr(h, device)
    h64 = h.astype(np.float64)
    assert_array(xp.var(x, axis=0), np.var(h64, axis=0), dtype=xp.float32, rtol=1e-5)
    assert_array(xp.std(x[::-1, ::2], axis=0, correction=1),
                 np.std(h64[::-1, ::2], axis=0, ddof=1), rtol=1e-5)
    assert_array(xp.argmax(x, axis=0), np.argmax(h, axis=0))
    assert_array(xp.argmin(x[::-1], axis=0), np.argmin(h[::-1], axis=0))


@pytest.mark.parametrize("func,np_func", [("cumulative_sum", np.cumsum),
                                          ("cumulative_prod", np.cumprod)])
def test_cumulative_columns(func, np_func, device):
    # many columns scanned along a leading axis (one invocation per column on WebGPU)
    rng = np.random.default_rng(12)
    h = rng.integers(-3, 4, size=(4, 70, 2100)).astype(np.int32)
    x = arr(h, device)
    f = getattr(xp, func)
    e = np_func(h, axis=1, dtype=np.int32)  # products wrap, identically
    assert_array(f(x, axis=1, dtype=xp.int32), e, dtype=xp.int32)
    r = f(x, axis=1, dtype=xp.int32, include_initial=True)
    first = np.full((4, 1, 2100), 0 if func == "cumulative_sum" else 1, np.int32)
    assert_array(r, np.concatenate([first, e], axis=1))
    m = x[0, ::-1]   # (70, 2100) reversed rows: too few columns, row-major blocks
    assert_array(f(m, axis=0, dtype=xp.int16), np_func(h[0, ::-1], axis=0, dtype=np.int16))
