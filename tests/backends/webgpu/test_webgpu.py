"""The WebGPU backend's own concerns (shared storage of views, pooling, batching, launch
plans, DLPack, accuracy bounds, errors) on webgpu:0; the namespace tests in tests/<group>/
cover its results through the device fixture.
NumPy float64 is the oracle."""

from __future__ import annotations

import gc

import numpy as np
import pytest

import numr as xp
from numr import _config, backends
from tests.helpers import to_np

pytestmark = pytest.mark.webgpu_only

D = "webgpu:0"


def rt():
    from numr.backends.webgpu.runtime import runtime

    return runtime(0)


def test_dtypes_follow_adapter_features():
    info = xp.__array_namespace_info__()
    held = set(info.dtypes(device=D).values())
    f = set(backends.load_backend("webgpu")._features(0))
    assert (xp.float64 in held) == ("shader-f64" in f)
    assert (xp.int64 in held) == ("shader-int64" in f)
    assert {xp.float32, xp.int32, xp.uint8, xp.bool} <= held


def test_views_share_the_buffer():
    a = xp.asarray(np.arange(24, dtype=np.float32).reshape(4, 6), device=D)
    s = a._data.storage
    for v in (a[1:3], a.T, xp.broadcast_to(a[0], (5, 6)), xp.expand_dims(a, axis=0),
              xp.squeeze(xp.expand_dims(a, axis=0), axis=0), xp.flip(a, axis=0),
              xp.reshape(a, (2, 12))):
        assert v._data.storage is s


# Max ULP error vs float64 NumPy, float32, measured on lavapipe (README "WebGPU status").
ULP_BOUNDS = {"sin": 2, "cos": 2, "tan": 3, "exp": 1.5, "expm1": 3, "log": 1.5,
              "log1p": 3, "log2": 2.5, "log10": 2.5, "sqrt": 0.5, "sinh": 4, "cosh": 3.5,
              "tanh": 3, "asinh": 3, "acosh": 1, "atanh": 3.5, "reciprocal": 0.5,
              "asin": 1, "acos": 1, "atan": 1}
_DOMAIN = {"sin": (-100, 100), "cos": (-100, 100), "tan": (-1.5, 1.5), "exp": (-80, 80),
           "expm1": (-5, 5), "log": (1e-30, 1e30), "log1p": (-0.99, 100),
           "log2": (1e-30, 1e30), "log10": (1e-30, 1e30), "sqrt": (0, 1e30),
           "sinh": (-80, 80), "cosh": (-80, 80), "tanh": (-10, 10), "asin": (-1, 1),
           "acos": (-1, 1), "atan": (-100, 100), "asinh": (-1e5, 1e5), "acosh": (1, 1e5),
           "atanh": (-0.999, 0.999), "reciprocal": (1e-3, 1e3)}


@pytest.mark.parametrize("name", sorted(ULP_BOUNDS))
def test_float32_accuracy_ulp(name):
    rng = np.random.default_rng(3)
    lo, hi = _DOMAIN[name]
    if lo > 0 and hi / lo > 1e6:
        v = np.exp(rng.uniform(np.log(lo), np.log(hi), 20000))
    else:
        v = rng.uniform(lo, hi, 20000)
    tiny = rng.uniform(-1, 1, 5000) * 10.0 ** rng.uniform(-8, 0, 5000)
    if lo < 0 < hi:
        v = np.concatenate([v, tiny])
    v = v.astype(np.float32)
    got = to_np(getattr(xp, name)(xp.asarray(v, device=D))).astype(np.float64)
    ref = getattr(np, name)(v.astype(np.float64))
    sp = np.spacing(np.abs(ref.astype(np.float32))).astype(np.float64)
    ok = np.isfinite(ref) & (np.abs(ref) < 3e38)
    err = (np.abs(got - ref) / sp)[ok].max()
    assert err <= ULP_BOUNDS[name], f"{name}: {err:.2f} ULP"


def test_dispatches_batch_until_a_sync_point():
    r = rt()
    r.flush()
    before = r.stats["submits"]
    x = xp.ones((8,), device=D, dtype=xp.float32)
    for _ in range(50):
        x = x + 1.0
    assert r.pending() and r.stats["submits"] == before   # recorded, not run
    assert float(x[0]) == 51.0                              # the read is the sync point
    assert r.stats["submits"] == before + 1


def test_large_batches_submit_early():
    """After a sync point, recorded dispatches that bind first_bytes (the buffers they
    read and write) are submitted at once (the device starts on them), and each later
    batch may bind twice as much."""
    r = rt()
    saved = r.first_bytes
    r.first_bytes = 2048  # bytes: a 256-element float32 op, read and written
    # every op its own dispatch (fused, the chain would be one: tests/.../test_fusion.py)
    unfused = _config.override(NUMR_WEBGPU_FUSE=0)
    unfused.__enter__()
    try:
        x = xp.ones((256,), device=D, dtype=xp.float32)
        r.wait()  # a sync point: the next batch starts small
        before = r.stats["submits"]
        y = x + 1.0                                   # binds 2 KiB: submitted
        assert not r.pending() and r.stats["submits"] == before + 1
        y = y + 1.0                                   # 2 KiB of the next 4 KiB: recorded
        assert r.pending() and r.stats["submits"] == before + 1
        y = y + 1.0                                   # 4 KiB: submitted
        assert not r.pending() and r.stats["submits"] == before + 2
        np.testing.assert_array_equal(to_np(y), np.full(256, 4.0, np.float32))
    finally:
        unfused.__exit__(None, None, None)
        r.first_bytes = saved
        r.wait()


def test_same_parameters_are_not_uploaded_again():
    """A batch whose parameters are those the device's arena holds skips the upload;
    other parameters are uploaded, and every result is the one computed from its own."""
    r = rt()
    unfused = _config.override(NUMR_WEBGPU_FUSE=0)
    unfused.__enter__()
    try:
        x = xp.asarray(np.arange(256, dtype=np.float32), device=D)
        r.wait()
        y = x + 1.0
        r.wait()                                      # x + 1.0's parameters uploaded
        before = r.stats["param_uploads"]
        z = x + 1.0                                   # the same op in the same slot
        r.wait()
        assert r.stats["param_uploads"] == before
        w = x[:100] + 2.0                             # another shape and scalar
        r.wait()
        assert r.stats["param_uploads"] == before + 1
        v = x[:50] * 3.0
        r.wait()
        host = np.arange(256, dtype=np.float32)
        np.testing.assert_array_equal(to_np(y), host + 1)
        np.testing.assert_array_equal(to_np(z), host + 1)
        np.testing.assert_array_equal(to_np(w), host[:100] + 2)
        np.testing.assert_array_equal(to_np(v), host[:50] * 3)
    finally:
        unfused.__exit__(None, None, None)


def test_reductions_count_what_they_read():
    """A reduction writes a few bytes but reads its whole input: a loop of sums over a
    large array is submitted while Python records it, not only at the sync."""
    r = rt()
    saved = r.first_bytes
    r.first_bytes = 4096 * 4
    try:
        x = xp.ones((4096,), device=D, dtype=xp.float32)
        r.wait()
        before = r.stats["submits"]
        s = xp.sum(x)                                  # reads 16 KiB: submitted
        assert not r.pending() and r.stats["submits"] >= before + 1
        assert float(s) == 4096.0
    finally:
        r.first_bytes = saved
        r.wait()


def test_buffer_pool_reuse_and_gc():
    r = rt()
    x = xp.ones((100,), device=D, dtype=xp.float32)
    for _ in range(20):
        x = xp.exp(x * 0.0)
    float(x[0])
    gc.collect()
    created = r.stats["buffers_created"]
    staging = r.stats["staging_created"]
    for _ in range(300):
        x = xp.exp(x * 0.0)
        if _ % 50 == 0:
            float(x[0])
    float(x[0])
    assert r.stats["buffers_created"] - created <= 2   # freed buffers come back
    assert r.stats["staging_created"] == staging      # reads reuse staging buffers


def test_no_memory_growth_over_100k_small_ops():
    """The issue's promise: arrays give their buffers back when collected, so 100k small
    ops create no new buffers once the pool holds what one op needs, and the pool does
    not grow."""
    r = rt()
    x = xp.ones((8,), device=D, dtype=xp.float32)
    x = x * 1.0 + 0.0
    float(x[0])
    gc.collect()
    created = r.stats["buffers_created"]
    pooled = r.pooled_bytes()                              # earlier tests' buffers too
    for _ in range(50_000):
        x = x * 1.0 + 0.0                                  # two ops a turn
    assert float(x[0]) == 1.0
    assert r.stats["buffers_created"] - created <= 2
    assert r.pooled_bytes() - pooled < 1 << 20


def test_pool_trim_keeps_the_block_a_loop_reuses(monkeypatch):
    """Over the pool's budget, the least recently freed blocks go first: a loop that
    frees and takes back one large block keeps it, however many older blocks wait (the
    largest-first rule dropped it each turn: a new 2 GiB buffer per call on the H200)."""
    from numr.backends.webgpu import runtime as R

    r = rt()
    gc.collect()
    r.collect()
    r.trim(0)
    monkeypatch.setattr(R, "POOL_KEEP_BYTES", 4 << 20)
    stale = [xp.zeros((1 << 18,), device=D, dtype=xp.float32) for _ in range(4)]  # 1 MiB
    float(stale[0][0])
    del stale
    gc.collect()
    r.collect()
    created = r.stats["buffers_created"]
    for _ in range(20):
        y = xp.zeros((1 << 19,), device=D, dtype=xp.float32)  # 2 MiB
        float(y[0])
        del y
        r.collect()
    assert r.stats["buffers_created"] - created <= 1
    assert r.pooled_bytes() <= 4 << 20


def test_memory_error_names_the_size():
    r = rt()
    with pytest.raises(MemoryError, match=str(2**40)):
        r.alloc(2**40)


def test_running_out_midway_through_pieces_gives_them_back(monkeypatch):
    """An array beyond one binding is a row of buffers; running out at the third gives
    back the two made, though the error's traceback holds the frame that made them (on
    the H200, ones((2**40,)) held all 134 GiB this way and starved every other process)."""
    r = rt()
    made, real = [], r._buffer

    def buffer(nbytes, n):
        if len(made) == 2:
            raise MemoryError("webgpu:0: out of GPU memory (test)")
        made.append(real(nbytes, n))
        return made[-1]

    monkeypatch.setattr(r, "_buffer", buffer)
    destroyed = []
    kind = type(real(16, 256))
    destroy = kind.destroy
    monkeypatch.setattr(kind, "destroy", lambda b: (destroyed.append(b), destroy(b)))
    held = r.held_bytes()
    with pytest.raises(MemoryError, match="test"):
        r.alloc(4 * r.piece)
    assert r.held_bytes() == held and len(made) == 2
    assert [id(b) for b in destroyed] == [id(b) for b in made]


def test_unheld_dtype_is_a_type_error():
    held = set(xp.__array_namespace_info__().dtypes(device=D).values())
    if xp.float64 in held:
        pytest.skip("this adapter holds float64")
    with pytest.raises(TypeError, match="float64"):
        xp.asarray([1.0], dtype=xp.float64, device=D)


# -- writes, DLPack, sync ----------------------------------------------------------------

def test_arrays_freed_by_the_cycle_collector_keep_their_buffers():
    """An array reachable only from a reference cycle is freed by the cyclic collector,
    which used to release its wgpu buffer while the pool took the block back: the next
    bind group of that block aborted the process. Run in a child process, since the
    failure is an abort."""
    import subprocess
    import sys
    code = (
        "import gc, numr as xp\n"
        "class Holder: pass\n"
        "for _ in range(3):\n"
        "    h = Holder(); h.me = h; h.a = xp.asarray([3.0] * 64, device='webgpu:0')\n"
        "    del h; gc.collect()\n"
        "    assert float(xp.sum(xp.ones(64, device='webgpu:0') + 1.0)) == 128.0\n"
        "print('ok')\n")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                       timeout=300)
    assert r.returncode == 0 and r.stdout.strip() == "ok", r.stderr[-2000:]


def test_sync_waits():
    r = rt()
    x = xp.ones((1000,), device=D, dtype=xp.float32) * 2.0
    assert r.pending()
    x._device.ops.sync()
    assert not r.pending()
    assert float(xp.sum(x)) == 2000.0


def _capsule_tensor(cap, name):
    import ctypes

    from numr.backends.webgpu import dlpack as DL
    get = ctypes.pythonapi.PyCapsule_GetPointer
    get.restype, get.argtypes = ctypes.c_void_p, [ctypes.py_object, ctypes.c_char_p]
    address = get(cap, name)
    kind = DL._Versioned if name.endswith(b"versioned") else DL._Managed
    return address, kind.from_address(address)


@pytest.mark.parametrize("versioned", [False, True])
def test_dlpack_export_on_own_device(versioned):
    """__dlpack__() without dl_device views the buffer in place as kDLWebGPU: the data
    pointer is the opaque WGPUBuffer handle, offset and strides those of the view."""
    import ctypes

    from numr.backends.webgpu import dlpack as DL
    a = xp.asarray(np.arange(24, dtype=np.int16).reshape(4, 6), device=D)[1:, ::2]
    kw = {"max_version": (1, 0)} if versioned else {}
    name = b"dltensor_versioned" if versioned else b"dltensor"
    cap = a.__dlpack__(**kw)
    address, m = _capsule_tensor(cap, name)
    t = m.dl_tensor
    assert (t.device.device_type, t.device.device_id) == (15, 0)
    assert (t.ndim, t.dtype.code, t.dtype.bits, t.dtype.lanes) == (2, 0, 16, 1)
    assert [t.shape[i] for i in range(2)] == [3, 3]
    assert [t.strides[i] for i in range(2)] == [6, 2]
    assert t.byte_offset == 6 * 2
    data = t.data
    assert data == DL._handle(a._data.storage.block.buffer)
    # a consumer renames the capsule and later calls the deleter: numr lets go then
    setname = ctypes.pythonapi.PyCapsule_SetName
    setname.argtypes = [ctypes.py_object, ctypes.c_char_p]
    setname(cap, b"used_" + name)
    del cap
    a.__dlpack__()                                          # a sweep keeps the taken one
    assert address in DL._LIVE
    m.deleter(address)                                      # frees m: read nothing after
    assert address not in DL._LIVE
    copied = a.__dlpack__(copy=True, **kw)                  # a copy is a new buffer
    t2 = _capsule_tensor(copied, name)[1].dl_tensor
    assert t2.data != data and t2.byte_offset == 0


def test_dlpack_unconsumed_capsules_are_released():
    from numr.backends.webgpu import dlpack as DL
    a = xp.ones(3, device=D)
    for _ in range(5):
        a.__dlpack__()                                      # dropped, never consumed
    # each export sweeps the ones dropped before it: only the last is still held
    assert sum(entry[1] is a._data for entry in DL._LIVE.values()) == 1
    with pytest.raises(BufferError, match="own device"):
        a.__dlpack__(dl_device=(2, 0))
    with pytest.raises(ValueError, match="stream"):
        a.__dlpack__(stream=7)


def test_dlpack_host_copy():
    h = np.arange(6, dtype=np.float32).reshape(2, 3)
    a = xp.asarray(h, device=D)
    assert a.__dlpack_device__() == (15, 0)                 # kDLWebGPU
    with pytest.raises(BufferError, match="copy=False"):
        a.__dlpack__(dl_device=(1, 0), copy=False)
    cap = a.__dlpack__(dl_device=(1, 0), copy=True)

    class Producer:                                         # hands over the capsule once
        def __dlpack__(self, **kw):
            return cap

        def __dlpack_device__(self):
            return (1, 0)

    np.testing.assert_array_equal(np.from_dlpack(Producer()), h)
    # a host producer comes onto WebGPU through the CPU device and a copy
    got = xp.from_dlpack(np.arange(5, dtype=np.int32), device=D)
    np.testing.assert_array_equal(to_np(got), np.arange(5, dtype=np.int32))
    with pytest.raises(ValueError, match="copy=False"):
        xp.from_dlpack(np.arange(3, dtype=np.int32), device=D, copy=False)


# -- manipulation copies -----------------------------------------------------------------

def test_roll_copies():
    a = xp.asarray(np.arange(6, dtype=np.float32), device=D)
    assert xp.roll(a, 0)._data.storage is not a._data.storage


def test_launch_plans_are_reused():
    r = rt()
    x = xp.ones((33,), device=D, dtype=xp.float32)
    x = x * 2.0
    plans = len(r.plans)
    pipes = r.stats["pipelines"]
    for _ in range(10):
        x = x * 3.0             # same op, dtypes, shape: no new plan or pipeline
    assert len(r.plans) == plans and r.stats["pipelines"] == pipes
    assert float(x[0]) == 2.0 * 3.0 ** 10


def test_fence_word_stays_zero():
    """The last word of every parameter slot is float32's fence (template.FENCE_WORD):
    no kernel's parameters may reach it, so it stays 0 through work that fills slots
    with many words (a twenty-axis transpose, indexing, reductions, fused chains)."""
    from numr.backends.webgpu.runtime import SLOT_WORDS, packer

    with pytest.raises(ValueError, match="parameter words"):
        packer(SLOT_WORDS)
    h = np.arange(2 ** 16, dtype=np.float32).reshape((2,) * 16)
    x = xp.permute_dims(xp.asarray(h, device=D), tuple(range(15, -1, -1)))
    y = xp.log(xp.abs(xp.asarray(x, copy=True) * 1.5 + 1.0))
    z = xp.sum(y, axis=(0, 3, 7)) + xp.max(x[1, ::-1])
    np.testing.assert_allclose(to_np(z), np.sum(np.log(np.abs(h.T * 1.5 + 1.0)),
                                                axis=(0, 3, 7)) + h.T[1, ::-1].max(),
                               rtol=1e-6)  # float32 log (<= 2 ULP) and 8-term sums: ~1e-7
    arena = np.frombuffer(bytes(rt()._arena_host), dtype=np.uint32).reshape(-1, SLOT_WORDS)
    assert not arena[:, -1].any()
