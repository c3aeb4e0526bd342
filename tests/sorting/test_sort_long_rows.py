"""Sorting, searchsorted and set functions on shapes and values that stress the WebGPU
sort (rows longer than one workgroup's block, many rows, views with offsets and strides,
NaN and signed zeros, complex order), on every device, NumPy as the oracle."""

import array_api_compat.numpy as cnp
import numpy as np
import pytest

import numr as xp
from tests.helpers import assert_array, to_np

FLOATS = [xp.float16, xp.float32, xp.float64]
SPECIAL = np.array([np.nan, -0.0, 0.0, 1.5, -2.0, np.inf, -np.inf, 3.0])


def expected_argsort(h, axis, descending):
    """numr's stable descending order: the NumPy adapter's flip, sort, flip."""
    if not descending:
        return np.argsort(h, axis=axis, kind="stable")
    r = np.argsort(np.flip(h, axis), axis=axis, kind="stable")
    return h.shape[axis] - 1 - np.flip(r, axis)


def check_sort(x, h, axis, descending, device):
    idx = expected_argsort(h, axis, descending)
    assert_array(xp.argsort(x, axis=axis, descending=descending), idx,
                 dtype=device.defaults["indexing"], device=device)
    got = to_np(xp.sort(x, axis=axis, descending=descending))
    want = np.take_along_axis(h, idx, axis=axis)
    assert got.dtype == h.dtype
    np.testing.assert_array_equal(got, want)
    if h.dtype.kind == "f":  # which zero lands where follows the stable order
        np.testing.assert_array_equal(np.signbit(got), np.signbit(want))


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("descending", [False, True])
def test_sort_special_values_long_rows(device, dtype, descending):
    rng = np.random.default_rng(1)
    h = rng.choice(SPECIAL, size=(3, 1500)).astype(dtype.name)  # 1500 > one 512 block
    x = xp.asarray(h, device=device)
    check_sort(x, h, -1, descending, device)
    check_sort(x, h, 0, descending, device)


@pytest.mark.parametrize("dtype", [xp.bool, xp.int8, xp.uint16, xp.int32, xp.uint64, xp.int64])
def test_sort_many_rows_and_views(device, dtype):
    rng = np.random.default_rng(2)
    h = rng.integers(0, 7, size=(700, 5, 3))
    h = (h % 2).astype(bool) if dtype == xp.bool else h.astype(dtype.name)
    x = xp.asarray(h, device=device)
    for axis in (0, 1, 2):
        check_sort(x, h, axis, axis == 1, device)
    # a strided, flipped view and a contiguous one starting mid-word
    check_sort(x[::3, ::-1, 1], h[::3, ::-1, 1], 0, True, device)
    flat = xp.reshape(x, (-1,))
    check_sort(flat[5:], h.reshape(-1)[5:], 0, False, device)


@pytest.mark.parametrize("descending", [False, True])
def test_sort_transposed(device, descending):
    # A transposed array is F-contiguous: CuPy sorts only C-contiguous arrays in place
    rng = np.random.default_rng(3)
    h = rng.standard_normal((6, 9)).astype("float32")
    x = xp.permute_dims(xp.asarray(h, device=device), (1, 0))
    for axis in (0, 1):
        check_sort(x, h.T, axis, descending, device)


def test_sort_extreme_integers(device):
    for name in ("int8", "int16", "int32", "int64", "uint8", "uint32", "uint64"):
        info = np.iinfo(name)
        h = np.array([info.max, 0, info.min, 1, info.max, info.min, 0], dtype=name)
        x = xp.asarray(h, device=device)
        check_sort(x, h, 0, False, device)
        check_sort(x, h, 0, True, device)


def check_unique(x, h):
    values, indices, inverse, counts = xp.unique_all(x)
    ev, ei, einv, ec = cnp.unique_all(h)
    got = to_np(values)
    assert got.dtype == ev.dtype and got.shape == ev.shape
    np.testing.assert_array_equal(got, ev)  # NaNs compare equal here: each kept apart
    assert_array(indices, ei)
    assert_array(inverse, einv)
    assert_array(counts, ec)
    np.testing.assert_array_equal(to_np(xp.unique_values(x)), ev)
    np.testing.assert_array_equal(to_np(xp.unique_counts(x).counts), ec)
    # Note: NumPy numbers NaNs apart in whatever order its unstable sort leaves them,
    # so unique_inverse is checked by rebuilding x
    v, inv = (to_np(a) for a in xp.unique_inverse(x))
    np.testing.assert_array_equal(v[inv], h)


@pytest.mark.parametrize("dtype", FLOATS)
def test_unique_special_values(device, dtype):
    rng = np.random.default_rng(3)
    h = rng.choice(SPECIAL, size=(5, 130)).astype(dtype.name)
    check_unique(xp.asarray(h, device=device), h)
    check_unique(xp.asarray(h, device=device)[:, ::7], h[:, ::7])


@pytest.mark.parametrize("dtype", [xp.int8, xp.uint16, xp.int64, xp.uint64, xp.bool])
def test_unique_several_scan_blocks(device, dtype):
    rng = np.random.default_rng(4)
    h = rng.integers(0, 90, size=(3, 1100))
    h = (h % 2).astype(bool) if dtype == xp.bool else h.astype(dtype.name)
    x = xp.asarray(h, device=device)
    check_unique(x, h)
    check_unique(x[1:, 3:], h[1:, 3:])


@pytest.mark.parametrize("dtype", [xp.complex64, xp.complex128])
def test_unique_complex_order(device, dtype):
    vals = np.array([complex(np.nan, 0), 1j, complex(1, np.nan), complex(np.nan, 2),
                     complex(np.nan, 1), 3 + 0j, -0.0 + 0j, 0j, complex(0, -0.0),
                     complex(np.inf, 1), complex(np.nan, np.nan), complex(-1, 5)])
    h = np.random.default_rng(5).choice(vals, size=60).astype(dtype.name)
    check_unique(xp.asarray(h, device=device), h)


@pytest.mark.parametrize("dtype", [xp.float16, xp.float64, xp.int8, xp.uint64, xp.complex64,
                                   xp.complex128, xp.bool])
@pytest.mark.parametrize("invert", [False, True])
def test_isin_dtypes_and_views(device, dtype, invert):
    rng = np.random.default_rng(6)
    h1 = rng.integers(0, 20, size=(13, 7)).astype(dtype.name)
    h2 = rng.integers(5, 30, size=700).astype(dtype.name)  # more than one sort block
    if dtype.kind in ("float", "complex"):
        h1[0, 0] = h2[0] = np.nan
        h1[1, 1], h2[1] = -0.0, 0.0
    x1, x2 = xp.asarray(h1, device=device), xp.asarray(h2, device=device)
    assert_array(xp.isin(x1, x2, invert=invert), np.isin(h1, h2, invert=invert), dtype=xp.bool)
    assert_array(xp.isin(x1[::2, 1:], x2[::-3], invert=invert),
                 np.isin(h1[::2, 1:], h2[::-3], invert=invert))


@pytest.mark.parametrize("dtype", [xp.float16, xp.float32, xp.int8, xp.uint64, xp.bool])
@pytest.mark.parametrize("side", ["left", "right"])
def test_searchsorted_views_nan_sorter(device, dtype, side):
    rng = np.random.default_rng(7)
    h1 = np.sort(rng.integers(0, 50, size=900)).astype(dtype.name)
    h2 = rng.integers(-5, 55, size=(30, 4)).astype(dtype.name)
    if dtype.kind == "float":
        h1[-3:] = np.nan
        h2[0, 0], h2[1, 1] = np.nan, -0.0
    x1, x2 = xp.asarray(h1, device=device), xp.asarray(h2, device=device)
    assert_array(xp.searchsorted(x1, x2[:, ::2], side=side),
                 np.searchsorted(h1, h2[:, ::2], side=side),
                 dtype=device.defaults["indexing"])
    assert_array(xp.searchsorted(x1[7:], x2, side=side), np.searchsorted(h1[7:], h2, side=side))
    u = h1[rng.permutation(h1.size)]
    s = np.argsort(u, kind="stable")
    got = xp.searchsorted(xp.asarray(u, device=device), x2, side=side,
                          sorter=xp.asarray(s, device=device))
    assert_array(got, np.searchsorted(u, h2, side=side, sorter=s))


def test_searchsorted_empty(device):
    x1 = xp.asarray(np.zeros(0, np.float32), device=device)
    assert_array(xp.searchsorted(x1, xp.asarray([1.0, 2.0], dtype=xp.float32, device=device)),
                 np.array([0, 0]))
    x1 = xp.asarray([1.0, 2.0], dtype=xp.float32, device=device)
    assert xp.searchsorted(x1, xp.asarray(np.zeros((2, 0), np.float32), device=device)).shape \
        == (2, 0)
