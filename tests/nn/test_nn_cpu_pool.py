"""numr.nn's CPU result arrays: large results are recycled once nothing refers to them
(numr/nn/_cpu.py, _empty), never while a result or a view of it is alive."""

import gc

import numpy as np
import pytest

import numr as xp
from numr import _config, nn
from numr.nn import _cpu



@pytest.fixture(autouse=True)
def pool_on():
    """The pool on (NUMR_NN_CPU_POOL, whatever the environment says)."""
    with _config.override(NUMR_NN_CPU_POOL=True):
        yield

SHAPE = (512, 1024)  # 2 MiB of float32: above _POOL_MIN_BYTES


def _data(seed):
    return xp.asarray(np.random.default_rng(seed).standard_normal(SHAPE).astype(np.float32))


def _ptr(a):
    return np.asarray(a).__array_interface__["data"][0]


def test_dropped_result_is_reused():
    x, w = _data(0), xp.ones(SHAPE[1], dtype=xp.float32)
    p = _ptr(nn.rms_norm(x, w))  # the result is dropped at once
    gc.collect()
    y = nn.rms_norm(x, w)
    assert _ptr(y) == p
    ref = np.asarray(x) / np.sqrt((np.asarray(x, np.float64) ** 2).mean(-1, keepdims=True) + 1e-6)
    # a float32 result against a float64 reference: a few float32 roundings (~6e-8 each)
    np.testing.assert_allclose(np.asarray(y), ref, rtol=2e-6, atol=2e-6)


def test_live_results_and_views_are_never_reused():
    x1, x2, w = _data(1), _data(2), xp.ones(SHAPE[1], dtype=xp.float32)
    y1 = nn.layer_norm(x1, w)
    keep1 = np.asarray(y1).copy()
    view = y1[3:, 1:]  # a view keeps the result's memory alive once y1 is gone
    keep_view = np.asarray(view).copy()
    del y1
    gc.collect()
    y2 = nn.layer_norm(x2, w)
    y3, s3 = nn.add_layer_norm(x2, x1, w)
    gx, gw, gb = nn.layer_norm_backward(x1, x2, w, w)
    ptrs = {_ptr(a) for a in (y2, y3, s3, gx)}
    assert len(ptrs) == 4                                  # four live results, four arrays
    np.testing.assert_array_equal(np.asarray(view), keep_view)
    assert _ptr(view) - 3 * SHAPE[1] * 4 - 4 not in ptrs    # y1's memory is not among them
    assert not np.shares_memory(np.asarray(y2), keep1)


def test_small_results_are_not_pooled():
    before = list(_cpu._pool)
    y = nn.rms_norm(xp.ones((4, 8)))
    assert all(a is not np.asarray(y) for a in _cpu._pool) and len(_cpu._pool) == len(before)


def test_pool_off_hands_out_fresh_arrays():
    """NUMR_NN_CPU_POOL=0: every large result is a fresh np.empty, none kept."""
    x, w = _data(3), xp.ones(SHAPE[1], dtype=xp.float32)
    before = list(_cpu._pool)
    with _config.override(NUMR_NN_CPU_POOL=False):
        y = nn.rms_norm(x, w)
    assert len(_cpu._pool) == len(before) and all(a is b for a, b in zip(_cpu._pool, before))
    assert all(a is not np.asarray(y) for a in _cpu._pool)
