"""Sorting rows around the WebGPU radix sort's boundaries (numr/backends/webgpu/
kernels/radix.py): the switch from the bitonic network (rows of 512), its scatter chunks
(256) and tiles (2048), on every device, NumPy's stable sort as the oracle. Few distinct
values, so stability (ties in index order, ascending and descending) is what is tested."""

import numpy as np
import pytest

import numr as xp
from tests.helpers import to_np
from tests.sorting.test_sort_long_rows import SPECIAL, check_sort, expected_argsort


@pytest.mark.parametrize("n", [511, 512, 513, 767, 2047, 2048, 2049, 4353])
def test_sort_sizes_around_radix_tiles(device, n):
    rng = np.random.default_rng(n)
    h = rng.choice(SPECIAL, size=(2, n)).astype(np.float32)
    x = xp.asarray(h, device=device)
    check_sort(x, h, -1, n % 2 == 1, device)


@pytest.mark.parametrize("dtype", [xp.int32, xp.uint32, xp.float32, xp.int16, xp.uint8])
@pytest.mark.parametrize("descending", [False, True])
def test_sort_radix_dtypes_both_axes(device, dtype, descending):
    rng = np.random.default_rng(3)
    info = np.iinfo(dtype.name) if dtype != xp.float32 else np.finfo(np.float32)
    vals = np.array([info.min, info.max, 0, 1, 2, 1000 % int(info.max)], dtype=dtype.name)
    h = rng.choice(vals, size=(3, 2100))
    x = xp.asarray(h, device=device)
    check_sort(x, h, 1, descending, device)
    check_sort(xp.asarray(np.ascontiguousarray(h.T), device=device), h.T, 0, descending,
               device)


def test_sort_radix_wide_values(device):
    """Keys differing in every byte (each of the four passes decides some order)."""
    rng = np.random.default_rng(4)
    h = rng.integers(-2**31, 2**31, size=5000, dtype=np.int64).astype(np.int32)
    h[::9] = h[3]  # and ties
    x = xp.asarray(h, device=device)
    check_sort(x, h, 0, False, device)
    check_sort(x, h, 0, True, device)


@pytest.mark.webgpu_only  # the WebGPU radix sort's path for zeros and NaNs
@pytest.mark.parametrize("descending", [False, True])
def test_sort_radix_zeros_and_nans_bit_exact(device, descending):
    """sort() of float32 moves order keys alone (equal for -0.0 and 0.0 and for every
    NaN) and takes its zeros and NaNs from their input order: every bit as in NumPy's
    stable order, NaN payloads and signs included, across tiles and rows."""
    rng = np.random.default_rng(5)
    bits = np.array([0x7FC00000, 0xFFC00001, 0x7F800123, 0x80000000, 0x00000000],
                    dtype=np.uint32)
    h = rng.standard_normal((3, 5000)).astype(np.float32)
    pick = rng.random(h.shape)
    h[pick < 0.3] = bits[rng.integers(0, 5, size=h.shape)].view(np.float32)[pick < 0.3]
    h[1, :2100] = 0.0   # a row whose first tile is all zeros, the next partly
    h[1, 100:2100:3] = -0.0
    x = xp.asarray(h, device=device)
    got = to_np(xp.sort(x, axis=1, descending=descending))
    want = np.take_along_axis(h, expected_argsort(h, 1, descending), axis=1)
    np.testing.assert_array_equal(got.view(np.uint32), want.view(np.uint32))


@pytest.mark.webgpu_only  # NUMR_WEBGPU_SUBGROUPS picks the WebGPU radix scatter
@pytest.mark.parametrize("subgroups", ["1", "0"])
def test_radix_scatter_with_and_without_subgroups(subgroups, device):
    """The scatter ranks with subgroup ballots where the adapter has subgroups (lavapipe
    has), else in workgroup memory: both paths, every mode (sort's keys alone, argsort's
    pairs, unique's pairs), a packed dtype, tiles and rows, ties, both directions."""
    from numr import _config
    from numr.backends.webgpu.kernels import radix as R

    with _config.override(NUMR_WEBGPU_SUBGROUPS=subgroups):
        rt = xp.asarray(np.ones(1, np.float32), device=device)._data.rt
        assert bool(R.subgroup_size(rt)) == (subgroups == "1" and "subgroup" in rt.features)
        rng = np.random.default_rng(6)
        h = rng.choice(SPECIAL, size=(2, 4353)).astype(np.float32)
        x = xp.asarray(h, device=device)
        for descending in (False, True):
            check_sort(x, h, 1, descending, device)
        i = rng.integers(-300, 300, size=(3, 2500)).astype(np.int16)
        check_sort(xp.asarray(i, device=device), i, 1, True, device)
        np.testing.assert_array_equal(to_np(xp.unique_values(xp.asarray(i, device=device))),
                                      np.unique(i))
