"""WebGPU's compaction and workgroup scans: nonzero's compaction into int32 rows (adapters
without shader-int64), and the scans recompiled with their invocations renumbered in
reverse, which exposes a missing barrier on lavapipe (it runs a workgroup's lanes in
index order). NumPy is the oracle."""

import numpy as np
import pytest

import numr
from tests.helpers import to_np

pytestmark = pytest.mark.webgpu_only


def test_compaction_into_int32(device):
    """Adapters without shader-int64 index with int32: the compaction writes 32-bit rows."""
    from numr._dtypes import int32
    from numr.backends.webgpu.kernels import gather as G

    h = np.random.default_rng(0).random((37, 55)) < 0.3
    x = numr.asarray(h, device=device)._data
    rt = x.rt
    rows = G.nonzero(rt, x, int32, lambda s, e: int.from_bytes(rt.download(s, 4 * e, 4),
                                                                "little"))
    assert rows.dtype is int32
    np.testing.assert_array_equal(device.ops.to_host(rows), np.array(np.nonzero(h)))


# --- workgroup scans under a hostile schedule ----------------------------------------------

@pytest.fixture
def reversed_lanes(device, monkeypatch):
    """The device's runtime compiling every kernel with its invocations reversed
    (numr/backends/webgpu/kernels/reverse.py: correct workgroup code gives the same
    result under any order; lavapipe runs a workgroup's lanes in index order up to each
    barrier, so a read of a lower lane's store that lacks a barrier only fails there once
    the order is reversed). Fresh pipelines, so nothing cached is reused."""
    from numr.backends.webgpu.kernels.reverse import reverse

    rt = numr.asarray([0], device=device)._data.rt
    cls = type(rt)
    plain = cls.pipeline

    def pipeline(self, key, source, n, written=1, trusted=False):
        if self is not rt:
            return plain(self, key, source, n, written, trusted)
        return plain(self, ("reversed-lanes", key), lambda: reverse(source()), n, written,
                     trusted)

    # patched on the class: monkeypatch undoes an instance's patch by setting the old
    # bound method on the instance, which then hides later patches of the class
    monkeypatch.setattr(cls, "pipeline", pipeline)
    return rt


@pytest.mark.parametrize("n", [1023, 5000, 1024 * 1024 + 3000])
def test_nonzero_reversed_lanes(device, reversed_lanes, n):
    """The compaction's workgroup scans read only what a barrier has published."""
    h = np.random.default_rng(n).random(n) < 0.4
    (got,) = numr.nonzero(numr.asarray(h, device=device))
    np.testing.assert_array_equal(to_np(got), np.nonzero(h)[0])


@pytest.mark.parametrize("shape,axis", [((3, 5000), 1), ((700, 100), 1), ((40000,), 0)])
def test_cumulative_sum_reversed_lanes(device, reversed_lanes, shape, axis):
    """The block scan of long rows (teams of one workgroup and of several, more than one
    block per row) under the same hostile schedule."""
    h = np.random.default_rng(1).integers(-9, 9, size=shape).astype(np.int32)
    got = numr.cumulative_sum(numr.asarray(h, device=device), axis=axis)
    np.testing.assert_array_equal(to_np(got), np.cumsum(h, axis=axis, dtype=np.int32))


def test_radix_argsort_into_int32(device):
    """Adapters without shader-int64 index with int32: the radix sort's last pass writes
    32-bit indices (lavapipe's default index dtype is int64)."""
    from numr._dtypes import int32
    from numr.backends.webgpu import sorting as S
    from numr.backends.webgpu.array import new

    rng = np.random.default_rng(1)
    h = rng.integers(-50, 50, size=(3, 2500)).astype(np.int32)
    x = numr.asarray(h, device=device)._data
    for descending in (False, True):
        out = new(x.rt, (3 * 2500,), int32)
        S.radix(x, 3, 2500, descending, "indices", out)
        got = device.ops.to_host(out).reshape(3, 2500)
        key = -h if descending else h   # integers: the stable order of the negation
        np.testing.assert_array_equal(got, np.argsort(key, axis=1, kind="stable"))
