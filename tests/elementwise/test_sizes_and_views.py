"""The map kernel's contiguous vec4 fast path against NumPy: sizes around the vec4 word,
the workgroup block (1024 words) and views at offsets that are and are not multiples of
four (the latter take the general kernel), for 32-bit and packed/64-bit dtypes. They
run on every device: the same sizes and views must give NumPy's values everywhere."""

import numpy as np
import pytest

import numr as xp


SIZES = [1, 3, 4, 5, 1023, 1024, 1025, 4095, 4096, 4097, 70001]


@pytest.mark.parametrize("dtype", ["float32", "int32", "uint32", "int16", "uint8",
                                   "float16", "bool"])
@pytest.mark.parametrize("off", [0, 1, 4])
def test_map_sizes_and_offsets(device, dtype, off):
    rng = np.random.default_rng(0)
    for n in SIZES:
        if dtype == "bool":
            ha, hb = rng.random(n + off) > 0.5, rng.random(n + off) > 0.5
        else:
            ha = (rng.standard_normal(n + off) * 50).astype(dtype)
            hb = (rng.standard_normal(n + off) * 50).astype(dtype)
        a = xp.asarray(ha, device=device)[off:]
        b = xp.asarray(hb, device=device)[off:]
        ha, hb = ha[off:], hb[off:]
        if dtype == "bool":
            np.testing.assert_array_equal(np.asarray((a & b).to_device("cpu")), ha & hb)
            continue
        np.testing.assert_array_equal(np.asarray((a + b).to_device("cpu")), ha + hb)
        np.testing.assert_array_equal(np.asarray((a * 3).to_device("cpu")),
                                      ha * ha.dtype.type(3))
        np.testing.assert_array_equal(np.asarray((a < b).to_device("cpu")), ha < hb)


@pytest.mark.parametrize("vec", [1, 4])
def test_map_vector_widths(device, vec):
    """NUMR_WEBGPU_MAP_VEC (vec4 words an invocation) other than the default: whole
    blocks, a ragged last block, and sizes just under a block (the scalar kernel). Sizes
    of their own: the map's plans are cached by shape."""
    from numr import _config

    rng = np.random.default_rng(vec)
    with _config.override(NUMR_WEBGPU_MAP_VEC=vec):
        for n in (4 * 256 * vec - 1, 4 * 256 * vec, 4 * 256 * vec * 3 + 5 + vec):
            ha = rng.standard_normal(n).astype("float32")
            hb = rng.standard_normal(n).astype("float32")
            a, b = xp.asarray(ha, device=device), xp.asarray(hb, device=device)
            np.testing.assert_array_equal(np.asarray((a * b).to_device("cpu")), ha * hb)
