"""Every tile choice of the WebGPU float32 product (NUMR_WEBGPU_MATMUL_TILE, switched here
through numr._config.override, with a small threshold, kernels.matmul.set_tiled_min, so
lavapipe runs them quickly) on shapes that are and are not multiples of the tile, with one or an odd number of K steps,
transposed, offset, strided and batched operands; float64 (the generic kernel) on the
same shapes. NumPy float64 is the oracle. WebGPU only: the choice means nothing elsewhere
(tests/linalg/ covers the products on every device).

The product's launch plans are cached by shape, so each tile choice multiplies shapes of
its own (K grows by 4 per choice): a plan made under one choice is never reused under
another."""

import math

import numpy as np
import pytest

import numr as xp
from numr import _config
from numr.backends.webgpu.kernels import matmul as K
from tests.helpers import to_np

pytestmark = pytest.mark.webgpu_only

TILES = ["128x128x8", "128x128x8-w4x8", "128x128x16-w4x8", "128x64x16", "64x64x16-w8x4",
         "64x128x16-w16x2", "old"]
RNG = np.random.default_rng(11)


@pytest.fixture(params=list(enumerate(TILES)), ids=TILES)
def tile(request):
    """(index, spec) of a tile choice, active for the test (products from 64 x 64 up)."""
    prev = K.set_tiled_min(64)
    try:
        with _config.override(NUMR_WEBGPU_MATMUL_TILE=request.param[1]):
            yield request.param
    finally:
        K.set_tiled_min(prev)


def data(shape, dtype):
    return RNG.standard_normal(shape).astype(dtype)


def held(device, dtype):
    return getattr(xp, dtype) in device.dtypes


def check(got, a, b, dtype):
    """``got`` against the float64 product of the host operands a and b."""
    want = np.matmul(a.astype("float64"), b.astype("float64"))
    k = a.shape[-1]
    rtol = 1e-5 if dtype == "float32" else 1e-12
    assert got.dtype == getattr(xp, dtype)
    assert got.shape == want.shape
    np.testing.assert_allclose(to_np(got).astype("float64"), want, rtol=rtol,
                               atol=rtol * math.sqrt(max(k, 1)) * 4)


def test_tile_choice_parsed():
    assert K.parse_tile("128x64x16") == (128, 64, 16, 8, 4, "tiled", 2)
    assert K.parse_tile("64x128x16-W4x8") == (64, 128, 16, 4, 8, "tiled", 4)
    assert K.parse_tile(" OLD ") is None
    for bad in ("128x128", "96x64x8", "64x64x8", "axbxc", "128x128x64", "128x128x8-w4x4",
                "128x128x8-w1x32", "128x128x8-"):
        with pytest.raises(ValueError, match=K.TILE_ENV):
            K.parse_tile(bad)


def test_tile_reaches_float32_only(tile):
    cfg = K.parse_tile(tile[1])
    smem = 1 << 16
    got = K.config(xp.float32, 64, 64, smem)
    assert got == (cfg if cfg is not None else (64, 64, 16, 4, 4))
    assert K.config(xp.float32, 63, 4096, smem)[:5] == (64, 64, 16, 4, 4)
    assert K.config(xp.float64, 4096, 4096, smem)[5:] == ()
    assert K.config(xp.int32, 4096, 4096, smem) == (128, 128, 8, 8, 8)
    if cfg is not None:  # a tile larger than the device allows: the generic one
        assert K.config(xp.float32, 4096, 4096, K.smem_bytes(cfg) - 4)[5:] == ()


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("m,k,n", [
    (128, 4, 128),    # whole tiles, one K step
    (256, 48, 128),   # whole tiles, several steps (odd count for BK 16)
    (130, 36, 196),   # ragged M and N, N % 4 == 0 (vec4 results)
    (67, 20, 133),    # ragged, N % 4 != 0 (scalar B loads and results)
    (96, 37, 100),    # K % 4 != 0 (scalar A loads)
])
def test_contiguous(device, tile, dtype, m, k, n):
    if not held(device, dtype):
        pytest.skip(f"{dtype} not held")
    k += 4 * tile[0]
    a, b = data((m, k), dtype), data((k, n), dtype)
    check(xp.asarray(a, device=device) @ xp.asarray(b, device=device), a, b, dtype)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_transposed_operands(device, tile, dtype):
    # A contiguous along M, B contiguous along K: vec4 loads along the other axis.
    if not held(device, dtype):
        pytest.skip(f"{dtype} not held")
    m, k, n = 132, 40 + 4 * tile[0], 72
    at, bt = data((k, m), dtype), data((n, k), dtype)
    a, b = data((m, k), dtype), data((k, n), dtype)
    x, y = xp.asarray(at, device=device).mT, xp.asarray(bt, device=device).mT
    check(x @ y, at.T, bt.T, dtype)
    check(x @ xp.asarray(b, device=device), at.T, b, dtype)
    check(xp.asarray(a, device=device) @ y, a, bt.T, dtype)
    bt = data((70, k), dtype)  # N % 4 != 0 with vec4 loads: scalar results
    check(x @ xp.asarray(bt, device=device).mT, at.T, bt.T, dtype)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_offset_and_strided_operands(device, tile, dtype):
    if not held(device, dtype):
        pytest.skip(f"{dtype} not held")
    m, k, n = 140, 44 + 4 * tile[0], 136
    a, b = data((m + 8, 2 * k), dtype), data((k + 4, n + 8), dtype)
    x, y = xp.asarray(a, device=device), xp.asarray(b, device=device)
    # offsets that keep vec4 alignment, that break it, and stepped (strided) axes
    check(x[4:, :k] @ y[4:, 4:], a[4:, :k], b[4:, 4:], dtype)
    check(x[1:m + 1, 1:k + 1] @ y[:k, :n], a[1:m + 1, 1:k + 1], b[:k, :n], dtype)
    check(x[:m, ::2] @ y[:k, :n], a[:m, ::2], b[:k, :n], dtype)
    check(x[::2, :k] @ y[:k, ::2], a[::2, :k], b[:k, ::2], dtype)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_batched(device, tile, dtype):
    if not held(device, dtype):
        pytest.skip(f"{dtype} not held")
    k = 24 + 4 * tile[0]
    a, b = data((3, 130, k), dtype), data((k, 68), dtype)
    check(xp.asarray(a, device=device) @ xp.asarray(b, device=device), a, b, dtype)
    a, b = data((2, 1, 64, k), dtype), data((3, k, 132), dtype)
    check(xp.asarray(a, device=device) @ xp.asarray(b, device=device), a, b, dtype)
    # batch of transposed views
    at = data((2, k, 72), dtype)
    check(xp.asarray(at, device=device).mT @ xp.asarray(b[:2], device=device),
          at.swapaxes(-1, -2), b[:2], dtype)


def test_empty_k_and_special_values(device, tile):
    k = 4 * tile[0]
    a, b = np.zeros((64, k), "float32"), np.zeros((k, 128), "float32")
    check(xp.asarray(a, device=device) @ xp.asarray(b, device=device), a, b, "float32")
    k += 8
    a, b = data((128, k), "float32"), data((k, 64), "float32")
    a[3, 5], b[7, 9] = np.inf, np.nan
    got = to_np(xp.asarray(a, device=device) @ xp.asarray(b, device=device))
    want = a.astype("float64") @ b.astype("float64")
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
    inf = np.isinf(want)
    np.testing.assert_array_equal(got[inf], want[inf])
    fin = np.isfinite(want)
    np.testing.assert_allclose(got[fin], want[fin], rtol=1e-5, atol=1e-4 * math.sqrt(k))
