"""Every tile choice of the WebGPU float32/float16/bfloat16 product (NUMR_WEBGPU_MATMUL_TILE,
switched here through numr._config.override, with a small threshold,
kernels.matmul.set_tiled_min, so lavapipe runs them quickly) on shapes that are and are
not multiples of the tile, with one or an odd number of K steps, transposed, offset,
strided and batched operands; float64 (the generic kernel) on the same shapes. NumPy
float64 of the (rounded) operands is the oracle. WebGPU only: the choice means nothing elsewhere
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
         "64x128x16-w16x2", "64x128x16-w4x8-g8x16", "128x64x8-w8x4-g16x8-checked",
         "256x128x8-w4x8-split", "64x128x16-w4x8-split-checked", "old"]
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


def held(device, dtype):
    return getattr(xp, dtype) in device.dtypes


RTOL = {"float32": 1e-5, "float64": 1e-12, "float16": 2e-3, "bfloat16": 1.6e-2}


def data(shape, dtype):
    """Host operands of ``dtype`` (float16/bfloat16 as float32 holding the rounded values,
    which NumPy multiplies in float64 as the oracle)."""
    x = RNG.standard_normal(shape).astype("float32")
    if dtype == "float16":
        return x.astype("float16").astype("float32")
    if dtype == "bfloat16":
        return (x.view("uint32") & np.uint32(0xFFFF0000)).view("float32")
    return x.astype(dtype)


def put(host, device, dtype):
    x = xp.asarray(host, device=device)
    return x if dtype in ("float32", "float64") else xp.astype(x, getattr(xp, dtype))


def check(got, a, b, dtype):
    """``got`` against the float64 product of the host operands a and b."""
    want = np.matmul(a.astype("float64"), b.astype("float64"))
    k = a.shape[-1]
    rtol = RTOL[dtype]
    assert got.dtype == getattr(xp, dtype)
    assert got.shape == want.shape
    np.testing.assert_allclose(to_np(got).astype("float64"), want, rtol=rtol,
                               atol=rtol * math.sqrt(max(k, 1)) * 4)


def test_tile_choice_parsed():
    assert K.parse_tile("128x64x16") == (128, 64, 16, 8, 4, "tiled", 2, 16, 16, False, False)
    assert K.parse_tile("64x128x16-W4x8") == (64, 128, 16, 4, 8, "tiled", 4, 16, 16, False,
                                              False)
    t = K.parse_tile("64x128x8-g8x16-w4x8-checked-split")
    assert t == (64, 128, 8, 8, 8, "tiled", 4, 8, 16, True, True)
    assert (t.threads, t.gy, t.gx, t.checked, t.split) == (128, 8, 16, True, True)
    assert K.parse_tile(" OLD ") is None
    for bad in ("128x128", "96x64x8", "64x64x8", "axbxc", "128x128x64", "128x128x8-w4x4",
                "128x128x8-w1x32", "128x128x8-", "128x128x8-g4x8", "128x128x8-g16x32",
                "64x64x8-g16x16", "128x128x8-x", "128x128x8-w16x2-g8x16"):
        with pytest.raises(ValueError, match=K.TILE_ENV):
            K.parse_tile(bad)


def test_tile_reaches_float32_float16_bfloat16_only(tile):
    cfg = K.parse_tile(tile[1])
    smem = 1 << 16
    for d in (xp.float32, xp.float16, xp.bfloat16):
        assert K.config(d, 64, 64, smem) == (cfg if cfg is not None
                                             else K.generic_config(d, 64, 64, smem))
    assert K.config(xp.float32, 63, 4096, smem)[:5] == (64, 64, 16, 4, 4)
    assert not isinstance(K.config(xp.float64, 4096, 4096, smem), K.Tile)
    assert K.config(xp.int32, 4096, 4096, smem) == (128, 128, 8, 8, 8)
    if cfg is not None:  # a tile larger than the device allows: the generic one
        assert not isinstance(K.config(xp.float32, 4096, 4096, K.smem_bytes(cfg) - 4), K.Tile)


def test_tiled_kernel_is_trusted(device, tile, monkeypatch):
    """The tiled kernel's module goes without runtime bounds checks unless the tile says
    -checked (its indices are in range by construction); the generic kernel keeps them."""
    from numr.backends.webgpu import linalg, runtime

    asked = []
    real = runtime.Runtime.pipeline

    def pipeline(self, key, source, n, written=1, trusted=False):
        asked.append((key[0], trusted))
        return real(self, key, source, n, written, trusted)

    monkeypatch.setattr(runtime.Runtime, "pipeline", pipeline)
    monkeypatch.setattr(linalg, "_PLANS", {})  # plan afresh (plans hold their pipeline)
    cfg = K.parse_tile(tile[1])
    k = 44 + 4 * tile[0]
    a, b = data((192, k), "float32"), data((k, 192), "float32")
    check(put(a, device, "float32") @ put(b, device, "float32"), a, b, "float32")
    assert asked == [("matmul", cfg is not None and not cfg.checked)]
    asked.clear()
    a, b = data((192, k + 1), "float32"), data((k + 1, 192), "float32")  # K % 4: generic
    check(put(a, device, "float32") @ put(b, device, "float32"), a, b, "float32")
    assert asked == [("matmul", False)]


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16"])
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
    check(put(a, device, dtype) @ put(b, device, dtype), a, b, dtype)


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "bfloat16"])
def test_transposed_operands(device, tile, dtype):
    # A contiguous along M, B contiguous along K: vec4 loads along the other axis.
    if not held(device, dtype):
        pytest.skip(f"{dtype} not held")
    m, k, n = 132, 40 + 4 * tile[0], 72
    at, bt = data((k, m), dtype), data((n, k), dtype)
    a, b = data((m, k), dtype), data((k, n), dtype)
    x, y = put(at, device, dtype).mT, put(bt, device, dtype).mT
    check(x @ y, at.T, bt.T, dtype)
    check(x @ put(b, device, dtype), at.T, b, dtype)
    check(put(a, device, dtype) @ y, a, bt.T, dtype)
    bt = data((70, k), dtype)  # N % 4 != 0 with vec4 loads: scalar results
    check(x @ put(bt, device, dtype).mT, at.T, bt.T, dtype)


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16"])
def test_offset_and_strided_operands(device, tile, dtype):
    if not held(device, dtype):
        pytest.skip(f"{dtype} not held")
    m, k, n = 140, 44 + 4 * tile[0], 136
    a, b = data((m + 8, 2 * k), dtype), data((k + 4, n + 8), dtype)
    x, y = put(a, device, dtype), put(b, device, dtype)
    # offsets that keep vec4 alignment, that break it, and stepped (strided) axes
    check(x[4:, :k] @ y[4:, 4:], a[4:, :k], b[4:, 4:], dtype)
    check(x[1:m + 1, 1:k + 1] @ y[:k, :n], a[1:m + 1, 1:k + 1], b[:k, :n], dtype)
    check(x[:m, ::2] @ y[:k, :n], a[:m, ::2], b[:k, :n], dtype)
    check(x[::2, :k] @ y[:k, ::2], a[::2, :k], b[:k, ::2], dtype)


@pytest.mark.parametrize("dtype", ["float32", "float64", "bfloat16"])
def test_batched(device, tile, dtype):
    if not held(device, dtype):
        pytest.skip(f"{dtype} not held")
    k = 24 + 4 * tile[0]
    a, b = data((3, 130, k), dtype), data((k, 68), dtype)
    check(put(a, device, dtype) @ put(b, device, dtype), a, b, dtype)
    a, b = data((2, 1, 64, k), dtype), data((3, k, 132), dtype)
    check(put(a, device, dtype) @ put(b, device, dtype), a, b, dtype)
    # batch of transposed views
    at = data((2, k, 72), dtype)
    check(put(at, device, dtype).mT @ put(b[:2], device, dtype),
          at.swapaxes(-1, -2), b[:2], dtype)


def test_empty_k_and_special_values(device, tile):
    k = 4 * tile[0]
    a, b = np.zeros((64, k), "float32"), np.zeros((k, 128), "float32")
    check(put(a, device, "float32") @ put(b, device, "float32"), a, b, "float32")
    k += 8
    a, b = data((128, k), "float32"), data((k, 64), "float32")
    a[3, 5], b[7, 9] = np.inf, np.nan
    got = to_np(put(a, device, "float32") @ put(b, device, "float32"))
    want = a.astype("float64") @ b.astype("float64")
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
    inf = np.isinf(want)
    np.testing.assert_array_equal(got[inf], want[inf])
    fin = np.isfinite(want)
    np.testing.assert_allclose(got[fin], want[fin], rtol=1e-5, atol=1e-4 * math.sqrt(k))
