"""The WebGPU reduction template (sum, prod, max, min, mean, any, all) on the shapes
that pick its different layouts: short rows (several outputs per workgroup, one
invocation each), long rows, columns (the kept axis innermost), few long reductions
split over workgroups and merged by a second dispatch, transposed / reversed / offset
views. Float32 sums of 1e7 elements are checked against NumPy float64 with a tight
tolerance, NaN propagation of max/min, integer wraparound, packed and 64-bit dtypes,
empty reductions. NumPy is the oracle. Runs on every device."""

import numpy as np
import pytest

import numr as xp
from tests.helpers import assert_array, to_np

# (shape, axis): each reaches a different plan of kernels/reduce.py
SHAPES = [
    ((4000, 10), 1),        # short rows: a team of one, no barrier
    ((300, 40), 1),         # rows of a few teams of 2..4
    ((10, 40000), 1),       # few long rows: split + merge
    ((3000, 300), 0),       # columns (kept axis innermost)
    ((40000, 20), 0),       # few long columns: split + merge in the column layout
    ((50000, 3), 0),        # columns too short for the column layout
    ((30000, 12), 0),       # short columns: the column layout with idle lanes
    ((200_003,), None),     # a full reduction
    ((6, 7, 8, 9), (0, 2)),  # reduced axes not adjacent
    ((6, 7, 8, 9), (1, 3)),
    ((6, 7, 8, 9), (0, 1, 2)),
    ((1, 5, 1), 1),         # size-1 axes
    ((7,), 0),
]


def _data(shape, dtype, seed=0):
    rng = np.random.default_rng(seed)
    if np.dtype(dtype).kind == "f":
        return (rng.standard_normal(shape) * 10).astype(dtype)
    if dtype == np.bool_:
        return rng.random(shape) < 0.5
    info = np.iinfo(dtype)
    return rng.integers(max(info.min, -100), min(info.max, 100), size=shape).astype(dtype)


def _check_sum(got, h, axis):
    """A float sum within a few units of roundoff of sum |x| of the float64 result."""
    e = np.sum(h.astype(np.float64), axis=axis)
    scale = np.sum(np.abs(h.astype(np.float64)), axis=axis)
    eps = np.finfo(h.dtype).eps
    err = np.abs(got.astype(np.float64) - e)
    assert np.all(err <= 4 * eps * scale), float(np.max(err / np.maximum(scale, 1e-300)))


@pytest.mark.parametrize("shape,axis", SHAPES)
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.int8, np.uint16,
                                   np.int64, np.uint64, np.float16])
def test_sum_max_min_layouts(shape, axis, dtype, device):
    h = _data(shape, dtype)
    x = xp.asarray(h, device=device)
    for f in ("max", "min"):
        assert_array(getattr(xp, f)(x, axis=axis), getattr(np, f)(h, axis=axis))
    s = xp.sum(x, axis=axis)
    if h.dtype.kind == "f" and h.dtype != np.float16:
        _check_sum(to_np(s), h, axis)
    elif h.dtype == np.float16:
        # NumPy itself may accumulate float16 in float16 (along a strided axis)
        e = np.sum(h.astype(np.float64), axis=axis)
        scale = np.sum(np.abs(h.astype(np.float64)), axis=axis)
        assert np.all(np.abs(to_np(s).astype(np.float64) - e) <= 4e-3 * scale + 1e-3)
    else:
        assert_array(s, np.sum(h, axis=axis))


@pytest.mark.parametrize("shape,axis", SHAPES)
def test_any_all_mean_layouts(shape, axis, device):
    h = _data(shape, np.bool_, 1)
    x = xp.asarray(h, device=device)
    assert_array(xp.any(x, axis=axis), np.any(h, axis=axis))
    assert_array(xp.all(x, axis=axis), np.all(h, axis=axis))
    ones = np.ones(shape, bool)
    assert_array(xp.all(xp.asarray(ones, device=device), axis=axis), np.all(ones, axis=axis))
    assert_array(xp.sum(x, axis=axis), np.sum(h, axis=axis))  # bool sums into the default int
    f = _data(shape, np.float64, 2)
    assert_array(xp.mean(xp.asarray(f, device=device), axis=axis), np.mean(f, axis=axis),
                 rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("layout", ["full", "rows", "columns", "transposed", "few_rows"])
def test_float32_sum_1e7_accurate(layout, device):
    if device.kind in ("cpu", "cuda") and layout in ("columns", "transposed"):
        pytest.skip("NumPy and CuPy sum along a strided axis left to right (~1e-5 off "
                    "here); this checks WebGPU's kernels")
    # Pairwise trees and compensated per-invocation sums: about float32's own accuracy
    # (a naive left-to-right float32 sum is off by ~1e-5 here).
    rng = np.random.default_rng(7)
    h = rng.random(10_000_000, dtype=np.float32) + np.float32(0.5)
    x = xp.asarray(h, device=device)
    shapes = {"full": ((10_000_000,), None), "rows": ((500, 20000), 1),
              "columns": ((20000, 500), 0), "few_rows": ((4, 2_500_000), 1)}
    if layout == "transposed":
        v, hv, axis = xp.reshape(x, (20000, 500)).T, h.reshape(20000, 500).T, 1
    else:
        shape, axis = shapes[layout]
        v, hv = xp.reshape(x, shape), h.reshape(shape)
    got = to_np(xp.sum(v, axis=axis)).astype(np.float64)
    e = np.sum(hv.astype(np.float64), axis=axis)
    np.testing.assert_allclose(got, e, rtol=3e-7, atol=0)
    m = to_np(xp.mean(v, axis=axis)).astype(np.float64)
    np.testing.assert_allclose(m, np.mean(hv.astype(np.float64), axis=axis), rtol=3e-7)


@pytest.mark.parametrize("shape,axis", [((4000, 10), 1), ((3000, 300), 0), ((10, 40000), 1),
                                        ((200_003,), None), ((40000, 20), 0)])
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.float16])
def test_max_min_nan_propagates(shape, axis, dtype, device):
    h = _data(shape, dtype, 3)
    flat = h.reshape(-1)
    flat[np.random.default_rng(4).integers(0, flat.size, size=max(1, flat.size // 997))] = np.nan
    h[..., 0] = np.inf  # infinities must not hide a NaN
    x = xp.asarray(h, device=device)
    for f in ("max", "min"):
        assert_array(getattr(xp, f)(x, axis=axis), getattr(np, f)(h, axis=axis))
    s = to_np(xp.sum(x, axis=axis))
    e = np.sum(h.astype(np.float64), axis=axis)
    np.testing.assert_array_equal(np.isnan(s), np.isnan(e))
    np.testing.assert_array_equal(np.isinf(s), np.isinf(e))


@pytest.mark.filterwarnings("ignore:overflow encountered:RuntimeWarning")
@pytest.mark.parametrize("shape,axis", [((4000, 10), 1), ((3000, 40), 0), ((200_003,), None)])
def test_float_sum_overflow_and_infinities(shape, axis, device):
    # compensated sums must not turn inf into NaN (inf - inf)
    h = np.full(shape, 2e38, np.float32)
    assert_array(xp.sum(xp.asarray(h, device=device), axis=axis),
                 np.full(np.sum(h, axis=axis).shape, np.inf, np.float32))
    h2 = np.ones(shape, np.float32)
    h2.reshape(-1)[::7] = np.inf
    with np.errstate(invalid="ignore"):
        assert_array(xp.sum(xp.asarray(h2, device=device), axis=axis), np.sum(h2, axis=axis))
    h2.reshape(-1)[::11] = -np.inf
    with np.errstate(invalid="ignore"):
        assert_array(xp.sum(xp.asarray(h2, device=device), axis=axis), np.sum(h2, axis=axis))


@pytest.mark.parametrize("shape,axis", [((4000, 10), 1), ((3000, 40), 0), ((200_003,), None),
                                        ((10, 40000), 1)])
def test_integer_wraparound(shape, axis, device):
    rng = np.random.default_rng(5)
    h32 = rng.integers(2**30, 2**31 - 1, size=shape, dtype=np.int32)
    x = xp.asarray(h32, device=device)
    assert_array(xp.sum(x, axis=axis, dtype=xp.int32), np.sum(h32, axis=axis, dtype=np.int32))
    assert_array(xp.prod(x, axis=axis, dtype=xp.int32), np.prod(h32, axis=axis, dtype=np.int32))
    h64 = rng.integers(2**62, 2**63 - 1, size=shape, dtype=np.int64)
    assert_array(xp.sum(xp.asarray(h64, device=device), axis=axis), np.sum(h64, axis=axis))
    hu = rng.integers(2**63, 2**64 - 1, size=shape, dtype=np.uint64)
    assert_array(xp.sum(xp.asarray(hu, device=device), axis=axis), np.sum(hu, axis=axis))
    h8 = rng.integers(100, 127, size=shape, dtype=np.int8)
    assert_array(xp.sum(xp.asarray(h8, device=device), axis=axis, dtype=xp.int8),
                 np.sum(h8, axis=axis, dtype=np.int8))


def test_extremes_of_64bit_and_packed(device):
    for dt in (np.int64, np.uint64, np.int8, np.uint8, np.int16, np.uint16):
        info = np.iinfo(dt)
        h = np.array([[info.min, 0, info.max], [1, info.min, 2]], dtype=dt)
        x = xp.asarray(h, device=device)
        for axis in (None, 0, 1):
            assert_array(xp.max(x, axis=axis), np.max(h, axis=axis))
            assert_array(xp.min(x, axis=axis), np.min(h, axis=axis))


@pytest.mark.parametrize("shape,axis", [((0,), None), ((5, 0), 1), ((0, 5), 0), ((0, 5), 1),
                                        ((3, 0, 4), (0, 1)), ((3, 0, 4), (1, 2))])
def test_empty(shape, axis, device):
    h = np.zeros(shape, np.float32)
    x = xp.asarray(h, device=device)
    assert_array(xp.sum(x, axis=axis), np.sum(h, axis=axis))
    assert_array(xp.prod(x, axis=axis), np.prod(h, axis=axis))
    assert_array(xp.any(x, axis=axis), np.any(h, axis=axis))
    assert_array(xp.all(x, axis=axis), np.all(h, axis=axis))
    hi = np.zeros(shape, np.int16)
    assert_array(xp.sum(xp.asarray(hi, device=device), axis=axis), np.sum(hi, axis=axis))
    if np.sum(h, axis=axis).size and 0 not in [shape[a] for a in np.atleast_1d(
            axis if axis is not None else range(len(shape)))]:
        assert_array(xp.max(x, axis=axis), np.max(h, axis=axis))


@pytest.mark.parametrize("dtype", [np.float32, np.int16, np.bool_, np.float64])
def test_views(dtype, device):
    h = _data((60, 50, 40), dtype, 6)
    x = xp.asarray(h, device=device)
    views = [
        (x[5:, ::-2, 3:30:3], h[5:, ::-2, 3:30:3]),
        (xp.permute_dims(x, (2, 0, 1)), np.transpose(h, (2, 0, 1))),
        (x[::-1, 7, :], h[::-1, 7, :]),
        (xp.permute_dims(x, (1, 2, 0))[::3, 1:], np.transpose(h, (1, 2, 0))[::3, 1:]),
    ]
    for v, hv in views:
        for axis in [None, 0, -1, (0, 1), (1,) if hv.ndim > 1 else 0]:
            if dtype == np.bool_:
                assert_array(xp.any(v, axis=axis), np.any(hv, axis=axis))
                assert_array(xp.all(v, axis=axis), np.all(hv, axis=axis))
                continue
            assert_array(xp.max(v, axis=axis), np.max(hv, axis=axis))
            assert_array(xp.min(v, axis=axis), np.min(hv, axis=axis))
            s = to_np(xp.sum(v, axis=axis))
            if hv.dtype.kind == "f":
                _check_sum(s, hv, axis)
            else:
                np.testing.assert_array_equal(s, np.sum(hv, axis=axis))


def test_broadcast_views(device):
    # stride-0 axes, kept or reduced
    h = np.arange(12, dtype=np.float32).reshape(3, 4)
    x = xp.asarray(h, device=device)
    b, hb = xp.broadcast_to(x[:, :1], (3, 5000)), np.broadcast_to(h[:, :1], (3, 5000))
    c, hc = xp.broadcast_to(x[None], (5000, 3, 4)), np.broadcast_to(h[None], (5000, 3, 4))
    for v, hv, axes in [(b, hb, (None, 0, 1)), (c, hc, (None, 0, (0, 2), 1))]:
        for axis in axes:
            assert_array(xp.max(v, axis=axis), np.max(hv, axis=axis))
            assert_array(xp.sum(v, axis=axis), np.sum(hv.astype(np.float64), axis=axis)
                         .astype(np.float32))


@pytest.mark.parametrize("shape,axis", [((3000, 10), 1), ((2000, 40), 0), ((100_001,), None),
                                        ((10, 30000), 1)])
@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_complex_sum_prod_layouts(shape, axis, dtype, device):
    rng = np.random.default_rng(8)
    h = (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(dtype)
    x = xp.asarray(h, device=device)
    e = np.sum(h.astype(np.complex128), axis=axis)
    scale = np.sum(np.abs(h.astype(np.complex128)), axis=axis)
    err = np.abs(to_np(xp.sum(x, axis=axis)) - e)
    assert np.all(err <= 8 * np.finfo(dtype).eps * scale)
    # products of unit-modulus numbers stay finite over long axes
    u = np.exp(1j * rng.uniform(-np.pi, np.pi, size=shape)).astype(dtype)
    got = to_np(xp.prod(xp.asarray(u, device=device), axis=axis))
    tol = 1e-4 if dtype == np.complex64 else 1e-9
    np.testing.assert_allclose(got, np.prod(u.astype(np.complex128), axis=axis),
                               rtol=0, atol=tol * max(shape))


def test_keepdims_and_0d(device):
    h = _data((30, 20), np.float64, 9)
    x = xp.asarray(h, device=device)
    assert_array(xp.sum(x, axis=0, keepdims=True), np.sum(h, axis=0, keepdims=True),
                 rtol=1e-12)
    assert_array(xp.max(x, axis=None, keepdims=True), np.max(h, axis=None, keepdims=True))
    z = xp.asarray(np.float32(2.5), device=device)
    assert_array(xp.sum(z), np.float32(2.5))
    assert_array(xp.prod(z), np.float32(2.5))
    assert_array(xp.max(z), np.float32(2.5))


# --- WebGPU's two combine trees (its planner: tests/backends/webgpu/test_reduce_planner.py)

@pytest.mark.webgpu_only  # NUMR_WEBGPU_SUBGROUPS picks a WebGPU kernel; this file's checks
@pytest.mark.parametrize("subgroups", ["1", "0"])
def test_subgroup_and_workgroup_trees(subgroups, device):
    # Teams that are whole workgroups combine through subgroup shuffles where the adapter
    # has them (lavapipe has), else through workgroup memory (NUMR_WEBGPU_SUBGROUPS=0):
    # both paths, every combine (sum with Kahan, max/min with NaN, argmax/argmin pairs,
    # integer, complex).
    from numr import _config

    with _config.override(NUMR_WEBGPU_SUBGROUPS=subgroups):
        _check_trees(subgroups, device)


def _check_trees(subgroups, device):
    from numr.backends.webgpu.kernels import reduce as R

    rt = xp.asarray(np.ones(1, np.float32), device=device)._data.rt
    assert R.subgroups(rt) == (subgroups == "1" and "subgroup" in rt.features)
    rng = np.random.default_rng(11)
    for shape, axis in [((100_003,), None), ((5, 30001), 1), ((3, 5, 4099), (0, 2))]:
        h = (rng.standard_normal(shape) * 10).astype(np.float32)
        h.reshape(-1)[::9973] = np.nan
        x = xp.asarray(h, device=device)
        for f in ("max", "min"):
            assert_array(getattr(xp, f)(x, axis=axis), getattr(np, f)(h, axis=axis))
        if not isinstance(axis, tuple):  # argmax: ties, NaN first, chunk merges
            t = np.round(h)
            for f in ("argmax", "argmin"):
                assert_array(getattr(xp, f)(xp.asarray(t, device=device), axis=axis),
                             getattr(np, f)(t, axis=axis))
                t = np.nan_to_num(t)
        clean = np.nan_to_num(h)
        _check_sum(to_np(xp.sum(xp.asarray(clean, device=device), axis=axis)), clean, axis)
        hi = rng.integers(-1000, 1000, size=shape, dtype=np.int32)
        assert_array(xp.sum(xp.asarray(hi, device=device), axis=axis), np.sum(hi, axis=axis))
        assert_array(xp.max(xp.asarray(hi, device=device), axis=axis), np.max(hi, axis=axis))
        hc = (clean + 1j * clean[::-1].reshape(shape)).astype(np.complex64)
        got = to_np(xp.sum(xp.asarray(hc, device=device), axis=axis))
        np.testing.assert_allclose(got, np.sum(hc.astype(np.complex128), axis=axis),
                                   rtol=1e-5, atol=1e-2)


@pytest.mark.webgpu_only  # NUMR_WEBGPU_REDUCE_VEC4 picks a WebGPU kernel
@pytest.mark.parametrize("vec4", ["1", "0"])
def test_vec4_and_scalar_reads(vec4, device):
    # Contiguous 32-bit rows are read as vec4 words where the offset allows (else, and
    # with NUMR_WEBGPU_REDUCE_VEC4=0, as scalars): views at every offset mod 4, chunked
    # full reductions (chunks of whole words), rows of a multiple of 4 and not.
    from numr import _config

    with _config.override(NUMR_WEBGPU_REDUCE_VEC4=vec4):
        _check_reads(device)


def _check_reads(device):
    rng = np.random.default_rng(12)
    h = (rng.standard_normal(200_008) * 10).astype(np.float32)
    x = xp.asarray(h, device=device)
    for start in range(5):
        v, hv = x[start:200_000], h[start:200_000]
        _check_sum(to_np(xp.sum(v)), hv, None)
        assert_array(xp.max(v), np.max(hv))
        np.testing.assert_allclose(to_np(xp.mean(v)), np.mean(hv.astype(np.float64)),
                                   rtol=1e-6)
    m = rng.integers(-1000, 1000, size=(33, 4100), dtype=np.int32)
    xm = xp.asarray(m, device=device)
    for v, hv in [(xm, m), (xm[:, 4:], m[:, 4:]), (xm[1:, 3:-1], m[1:, 3:-1])]:
        assert_array(xp.sum(v, axis=1), np.sum(hv, axis=1))
        assert_array(xp.min(v, axis=1), np.min(hv, axis=1))
