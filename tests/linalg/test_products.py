"""The WebGPU product and contraction kernels on the shapes the generic tests do not
reach: sizes around the tile edges, the large-tile configuration, transposed, sliced
and flipped operands, broadcast batches, every dtype (integers wrap as NumPy's do),
overflow-safe norms, complex traces and cross products. NumPy is the oracle. Runs on
every device."""

import math

import numpy as np
import pytest

import numr as xp
from numr import linalg
from tests.helpers import arr, assert_array, to_np

RNG = np.random.default_rng(7)


def data(shape, dtype):
    d = np.dtype(dtype)
    if d.kind in "iu":
        lo = 0 if d.kind == "u" else -100
        return RNG.integers(lo, 100, shape).astype(dtype)
    a = RNG.standard_normal(shape)
    if d.kind == "c":
        a = a + 1j * RNG.standard_normal(shape)
    return a.astype(dtype)


def held(device, dtype):
    return getattr(xp, dtype) in device.dtypes


def check_product(got, a, b, dtype):
    """Integers exactly (wrapping); floats against float64/complex128 products."""
    d = np.dtype(dtype)
    if d.kind in "iu":
        expected = np.matmul(a, b)  # NumPy wraps in the dtype
        assert_array(got, expected, dtype=getattr(xp, dtype))
        return
    wide = "complex128" if d.kind == "c" else "float64"
    expected = np.matmul(a.astype(wide), b.astype(wide))
    k = a.shape[-1]
    rtol = {"float16": 1e-2, "float32": 1e-5, "complex64": 1e-5}.get(dtype, 1e-12)
    atol = rtol * math.sqrt(max(k, 1)) * 4
    assert got.dtype == getattr(xp, dtype)
    np.testing.assert_allclose(to_np(got).astype(wide), expected, rtol=rtol, atol=atol)


@pytest.mark.parametrize("m,k,n", [(1, 1, 1), (1, 7, 1), (63, 17, 65), (64, 64, 64),
                                   (65, 129, 3), (2, 300, 5), (130, 8, 131), (4, 0, 3),
                                   (0, 3, 4)])
@pytest.mark.parametrize("dtype", ["float32", "float64", "int32", "complex64"])
def test_matmul_tile_edges(device, m, k, n, dtype):
    if not held(device, dtype):
        pytest.skip(f"{dtype} not held")
    a, b = data((m, k), dtype), data((k, n), dtype)
    check_product(xp.matmul(arr(a, device), arr(b, device)), a, b, dtype)


@pytest.mark.parametrize("dtype", ["bool", "int8", "uint8", "int16", "uint16", "int32",
                                   "uint32", "int64", "uint64", "float16", "float32",
                                   "float64", "complex64", "complex128"])
def test_matmul_every_dtype(device, dtype):
    if not held(device, dtype):
        pytest.skip(f"{dtype} not held")
    if dtype == "bool":
        # numr refuses bool matmul; the op still computes NumPy's (or of ands).
        a, b = RNG.random((5, 9)) < 0.3, RNG.random((9, 6)) < 0.3
        ops = device.ops
        r = ops.to_host(ops.matmul(ops.from_host(a), ops.from_host(b)))
        np.testing.assert_array_equal(r, a @ b)
        return
    a, b = data((5, 33), dtype), data((33, 70), dtype)
    if dtype in ("int8", "uint8", "int16", "uint16", "int32"):
        a = (a * 37).astype(dtype)  # products that wrap around
    check_product(xp.matmul(arr(a, device), arr(b, device)), a, b, dtype)


@pytest.mark.parametrize("s1,s2", [((300, 1000), (1000,)), ((700,), (700, 300)),
                                   ((1000, 3, 3), (1000, 3, 3)), ((3, 5000), (5000, 2)),
                                   ((2, 1, 40), (40, 300)), ((4, 50), (3, 50, 1))])
@pytest.mark.parametrize("dtype", ["float64", "complex64", "int16"])
def test_matmul_vectors_and_tiny_matrices(device, s1, s2, dtype):
    a, b = data(s1, dtype), data(s2, dtype)
    x, y = arr(a, device), arr(b, device)
    check_product(x @ y, a, b, dtype)
    if a.ndim == 2 and b.ndim == 2:
        check_product(y.mT @ x.mT, b.swapaxes(-1, -2), a.swapaxes(-1, -2), dtype)


def test_matmul_integer_overflow_wraps(device):
    a = np.full((2, 3), 2**30, dtype="int32")
    b = np.full((3, 2), 3, dtype="int32")
    assert_array(arr(a, device) @ arr(b, device), a @ b, dtype=xp.int32)
    a8 = np.full((2, 40), 100, dtype="int8")
    assert_array(arr(a8, device) @ arr(a8.T.copy(), device), a8 @ a8.T, dtype=xp.int8)


def test_matmul_large_tiles(device):
    # 128 x 128 tiles, with ragged edges on every axis.
    a, b = data((515, 37), "float32"), data((37, 523), "float32")
    check_product(arr(a, device) @ arr(b, device), a, b, "float32")
    a, b = data((512, 64), "float32"), data((64, 512), "float32")
    check_product(arr(a, device) @ arr(b, device), a, b, "float32")
    a, b = data((520, 36), "int32"), data((36, 513), "int32")
    check_product(arr(a, device) @ arr(b, device), a, b, "int32")
    x = arr(data((40, 600), "float32"), device)  # transposed, strided operands
    check_product(x.mT @ x[:, ::1], to_np(x).T, to_np(x), "float32")


@pytest.mark.parametrize("dtype", ["float32", "float64", "complex128", "int16"])
def test_matmul_views(device, dtype):
    if not held(device, dtype):
        pytest.skip(f"{dtype} not held")
    a, b = data((40, 66), dtype), data((70, 36), dtype)
    x, y = arr(a, device), arr(b, device)
    # transposed, stepped, offset and flipped operands
    cases = [(x.mT[:, :35], y[::2, :], a.T[:, :35], b[::2, :]),
             (x[1:, 1:], y[:65, 1:].mT.mT, a[1:, 1:], b[:65, 1:]),
             (xp.flip(x, axis=0)[:, :66], xp.flip(y, axis=1)[:66], np.flip(a, 0)[:, :66],
              np.flip(b, 1)[:66]),
             (x[:, :36], x.mT[:36], a[:, :36], a.T[:36])]
    for u, v, hu, hv in cases:
        check_product(u @ v, hu, hv, dtype)


@pytest.mark.parametrize("dtype", ["float32", "float64", "int32"])
@pytest.mark.parametrize("m,k,n", [(72, 64, 80), (516, 12, 520)])
def test_matmul_transposed_aligned(device, dtype, m, k, n):
    # Contiguous along M (A transposed) or K (B transposed): vec4 loads on those axes.
    if not held(device, dtype):
        pytest.skip(f"{dtype} not held")
    at, bt = data((2, k, m), dtype), data((2, n, k), dtype)
    x, y = arr(at, device).mT, arr(bt, device).mT
    ha, hb = at.swapaxes(-1, -2), bt.swapaxes(-1, -2)
    check_product(x @ y, ha, hb, dtype)
    b = data((k, n), dtype)
    check_product(x @ arr(b, device), ha, b, dtype)
    a = data((m, k), dtype)
    check_product(arr(a, device) @ y, a, hb, dtype)


def test_matmul_broadcast_batches(device):
    a, b = data((3, 1, 5, 4), "float32"), data((2, 4, 6), "float32")
    check_product(arr(a, device) @ arr(b, device), a, b, "float32")
    a, b = data((7, 6), "float64"), data((2, 3, 6, 5), "float64")
    x = arr(b, device)
    check_product(arr(a, device) @ x[:, ::2], a, b[:, ::2], "float64")
    v = data((6,), "float64")
    assert_array(arr(v, device) @ x, v @ b, rtol=1e-12)
    assert_array(x.mT @ arr(v, device), b.swapaxes(-1, -2) @ v, rtol=1e-12)


def test_tensordot_views_and_complex(device):
    a, b = data((3, 4, 5), "complex128"), data((5, 4, 2), "complex128")
    x, y = arr(a, device), arr(b, device)
    r = xp.tensordot(x, y, axes=((2, 1), (0, 1)))
    assert_array(r, np.tensordot(a, b, axes=((2, 1), (0, 1))), rtol=1e-12)
    r = xp.tensordot(x[:, ::2], y[:, ::2], axes=((1,), (1,)))
    assert_array(r, np.tensordot(a[:, ::2], b[:, ::2], axes=((1,), (1,))), rtol=1e-12)


@pytest.mark.parametrize("dtype", ["int8", "uint16", "float16", "float32", "complex64"])
def test_vecdot_dtypes(device, dtype):
    a, b = data((4, 300), dtype), data((300,), dtype)
    r = xp.vecdot(arr(a, device), arr(b, device))
    wide = {"i": "int64", "u": "uint64", "f": "float64", "c": "complex128"}[np.dtype(dtype).kind]
    exp = (np.conj(a.astype(wide)) * b.astype(wide)).sum(-1)
    if np.dtype(dtype).kind in "iu":
        assert_array(r, exp.astype(dtype), dtype=getattr(xp, dtype))
    else:
        assert r.dtype == getattr(xp, dtype)
        tol = 2e-2 if dtype == "float16" else 1e-4
        np.testing.assert_allclose(to_np(r).astype(wide), exp, rtol=tol, atol=tol * 20)


def test_vecdot_many_short_and_views(device):
    a, b = data((5000, 3), "float64"), data((5000, 3), "float64")
    # a row's sum may cancel to far below its terms, where summation order alone (CuPy's
    # differs from NumPy's) moves the result by an ulp of the terms, not of the sum
    terms = float(np.abs(a * b).sum(-1).max())
    assert_array(xp.vecdot(arr(a, device), arr(b, device)), (a * b).sum(-1), rtol=1e-12,
                 atol=1e-14 * terms)
    x = arr(a, device)
    assert_array(xp.vecdot(x[::-2], x[::-2], axis=0), (a[::-2] ** 2).sum(0), rtol=1e-12)


def test_matrix_norm_complex_and_views(device):
    a = data((3, 4, 5), "complex128")
    x = arr(a, device)
    for ord in ("fro", 1, -1, math.inf, -math.inf):
        exp = np.linalg.norm(a[:, ::2], ord=ord, axis=(-2, -1))
        assert_array(linalg.matrix_norm(x[:, ::2], ord=ord), exp, dtype=xp.float64, rtol=1e-12)


def test_trace_complex_and_widening(device):
    a = data((2, 4, 4), "complex64")
    r = linalg.trace(arr(a, device), dtype=xp.complex128)
    assert_array(r, np.trace(a.astype("complex128"), axis1=-2, axis2=-1), dtype=xp.complex128,
                 rtol=1e-6)
    i = np.full((3, 3), 120, "int8")
    assert_array(linalg.trace(arr(i, device), dtype=xp.int8),
                 np.trace(i).astype("int8"), dtype=xp.int8)
    f = data((3, 3), "float32")
    assert_array(linalg.trace(arr(f, device), dtype=xp.complex64),
                 np.trace(f).astype("complex64"), dtype=xp.complex64, rtol=1e-5)
    assert_array(linalg.trace(arr(f * 10, device), dtype=xp.int32),
                 np.trace(f * 10, dtype="int32"), dtype=xp.int32)
    x = arr(data((5, 6), "float32"), device)
    assert_array(linalg.trace(x.mT, offset=-1), np.trace(to_np(x).T, offset=-1), rtol=1e-5)


def test_cross_complex_and_wrapping(device):
    a, b = data((4, 3), "complex128"), data((3,), "complex128")
    assert_array(linalg.cross(arr(a, device), arr(b, device)), np.cross(a, b), rtol=1e-12)
    i, j = np.array([100, 90, -80], "int8"), np.array([70, -60, 50], "int8")
    assert_array(linalg.cross(arr(i, device), arr(j, device)), np.cross(i, j), dtype=xp.int8)


def test_outer_and_power_complex(device):
    u, v = data((3,), "complex64"), data((5,), "complex64")
    assert_array(linalg.outer(arr(u, device), arr(v, device)), np.outer(u, v), rtol=1e-5)
    a = data((2, 3, 3), "complex128") / 3
    for n in (0, 1, 2, 5):
        assert_array(linalg.matrix_power(arr(a, device), n), np.linalg.matrix_power(a, n),
                     dtype=xp.complex128, rtol=1e-12, atol=1e-14)
    e = linalg.matrix_power(arr(np.zeros((0, 2, 2), "float32"), device), 3)
    assert e.shape == (0, 2, 2)


def test_diagonal_views(device):
    a = data((3, 5, 4), "complex64")
    x = arr(a, device)
    for off in (0, 2, -3, 9):
        assert_array(linalg.diagonal(x.mT, offset=off),
                     np.diagonal(a.swapaxes(-1, -2), offset=off, axis1=-2, axis2=-1))
