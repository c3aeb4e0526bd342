"""Arrays larger than one storage binding (issue 19, section 3).

lavapipe binds at most 128 MiB of a buffer to one kernel binding; these arrays are
320 MiB, so on webgpu:0 every op below crosses buffer pieces (numr/backends/webgpu/
pieces.py). NUMR_TEST_LARGE_MIB sets the size (the H200 run: 8192 or more; see
benchmarks/large.py for the timed check). Every result is checked against NumPy.
"""

import os

import numpy as np
import pytest

import numr
from tests.helpers import to_np

MIB = int(os.environ.get("NUMR_TEST_LARGE_MIB", "320"))
COLS = 2048
ROWS = MIB * 2**20 // (4 * COLS)        # float32 (ROWS, COLS): MIB MiB

_host = {}
_arrays = {}


def host():
    if "x" not in _host:
        rng = np.random.default_rng(19)
        # small integers in float32: sums and matmuls are exact, whatever the order
        _host["x"] = rng.integers(-8, 9, size=(ROWS, COLS), dtype=np.int8).astype(np.float32)
    return _host["x"]


def big(device):
    """The MIB MiB float32 array on ``device`` (uploaded once per device and process)."""
    key = str(device)
    if key not in _arrays:
        _arrays[key] = numr.asarray(host(), device=device)
    return _arrays[key]


def sample(a):
    """Every 97th row and 13th column: a strided read that visits every piece."""
    return to_np(a[::97, ::13])


def test_transfers_round_trip(device):
    x = big(device)
    assert x.shape == (ROWS, COLS)
    np.testing.assert_array_equal(to_np(x), host())


def test_creation_beyond_one_binding(device):
    # the reproducer: 256 MiB of ones
    n = 2**26
    x = numr.ones(n, dtype=numr.float32, device=device)
    np.testing.assert_array_equal(to_np(x[::4099]), np.ones(-(-n // 4099), np.float32))
    assert float(x[n - 1]) == 1.0 and float(x[n // 2]) == 1.0


def test_int32_sum_past_the_int64_temporary(device):
    # 64 MiB of int32 whose int64 temporary (128 MiB + 56 bytes) is past lavapipe's limit
    n = 2**24 + 7
    h = (np.arange(n, dtype=np.int64) % 1000 - 500).astype(np.int32)
    h[-1] = 2**31 - 1
    x = numr.asarray(h, device=device)
    assert int(numr.sum(x)) == int(h.sum(dtype=np.int64))


def test_elementwise_contiguous_and_strided(device):
    x, h = big(device), host()
    y = x * 2.0 - 1.0
    np.testing.assert_array_equal(sample(y), (h * 2.0 - 1.0)[::97, ::13])
    assert float(y[ROWS - 1, COLS - 1]) == h[-1, -1] * 2 - 1
    # strided and reversed reads from every piece, broadcast of a column
    s = x[::-3, ::2] + x[::3, :1]
    np.testing.assert_array_equal(to_np(s), h[::-3, ::2] + h[::3, :1])
    # transposed read (a small corner of x.T spans every piece), contiguous write
    t = numr.abs(x.T[:64])
    np.testing.assert_array_equal(to_np(t), np.abs(h.T[:64]))


def test_reductions_over_everything(device):
    x, h = big(device), host()
    assert float(numr.sum(x)) == h.sum(dtype=np.float64)
    assert float(numr.max(x)) == h.max()
    assert int(numr.argmax(x)) == h.argmax()


@pytest.mark.parametrize("axis", [None, 0, 1])
def test_reductions_of_a_strided_view(device, axis):
    # x[:, ::16] spans every piece; each axis reduced by the kernels of a contiguous one
    x, h = big(device)[:, ::16], host()[:, ::16]
    np.testing.assert_array_equal(to_np(numr.sum(x, axis=axis)), h.sum(axis=axis, dtype=np.float64))
    np.testing.assert_array_equal(to_np(numr.max(x, axis=axis)), h.max(axis=axis))
    np.testing.assert_array_equal(to_np(numr.argmax(x, axis=axis)), h.argmax(axis=axis))
    np.testing.assert_allclose(to_np(numr.mean(x, axis=axis)), h.mean(axis=axis, dtype=np.float64),
                               rtol=1e-6, atol=1e-6)


def test_cumulative_sum(device):
    x, h = big(device)[:, ::16], host()[:, ::16]
    np.testing.assert_array_equal(to_np(numr.cumulative_sum(x, axis=0)), np.cumsum(h, axis=0))
    np.testing.assert_array_equal(to_np(numr.cumulative_sum(x, axis=1)), np.cumsum(h, axis=1))


def test_getitem(device):
    x, h = big(device), host()
    np.testing.assert_array_equal(to_np(x[ROWS - 7:, 5:COLS:300]), h[ROWS - 7:, 5:COLS:300])
    rows = np.array([0, ROWS - 1, ROWS // 3, ROWS // 2 + 1, 2 * ROWS // 3], dtype=np.int64)
    r = numr.asarray(rows, device=device)
    np.testing.assert_array_equal(to_np(x[r]), h[rows])
    np.testing.assert_array_equal(to_np(x[r, r % COLS]), h[rows, rows % COLS])
    mask = x[:, 7] > 7.0
    np.testing.assert_array_equal(to_np(x[mask, :3]), h[h[:, 7] > 7.0, :3])


def test_setitem(device):
    x, h = big(device), host()
    y = numr.zeros((ROWS, COLS), dtype=numr.float32, device=device)
    want = np.zeros((ROWS, COLS), np.float32)
    y[ROWS // 2:ROWS // 2 + 3, :] = -100.0
    want[ROWS // 2:ROWS // 2 + 3, :] = -100.0
    rows = np.array([1, ROWS - 2, ROWS // 4 * 3], dtype=np.int64)
    y[numr.asarray(rows, device=device), 5] = 42.0
    want[rows, 5] = 42.0
    y[:, -1] = x[:, 0]
    want[:, -1] = h[:, 0]
    np.testing.assert_array_equal(sample(y), want[::97, ::13])
    for r in (1, ROWS // 2, ROWS // 2 + 2, ROWS // 4 * 3, ROWS - 2):
        np.testing.assert_array_equal(to_np(y[r]), want[r])
    np.testing.assert_array_equal(to_np(y[:, -1]), want[:, -1])


def test_matmul_one_operand_beyond_a_binding(device):
    # x[:, :64] is a view of the whole 320 MiB storage (its rows span every piece)
    x, h = big(device)[:, :64], host()[:, :64]
    w = (np.arange(64 * 3, dtype=np.float32).reshape(64, 3) % 5) - 2
    got = to_np(numr.matmul(x, numr.asarray(w, device=device)))
    np.testing.assert_array_equal(got, h.astype(np.float64) @ w)
    v = np.ones((7, ROWS), dtype=np.float32)
    got = to_np(numr.asarray(v, device=device) @ x)
    np.testing.assert_array_equal(got, v.astype(np.float64) @ h)


def test_sort(device):
    # 80 MiB of the 320 MiB storage in rows of 4: the (key, index) pairs are 160 MiB
    x, h = big(device)[-ROWS // 4:], host()[-ROWS // 4:]
    got = numr.sort(numr.reshape(x, (-1, 4)), axis=1)
    np.testing.assert_array_equal(sample(numr.reshape(got, (ROWS // 4, COLS))),
                                  np.sort(h.reshape(-1, 4), axis=1).reshape(h.shape)[::97, ::13])
    np.testing.assert_array_equal(to_np(numr.sort(x[:, 3])), np.sort(h[:, 3]))
