"""WebGPU's runtime after an error: a wgpu error inside an op raises one RuntimeError,
leaves no wrong answer behind, and the next op works; a lost device says so on every call.
(tests/array/test_threads.py covers threads and finalizers on every device.)"""

import numpy as np
import pytest

import numr
from tests.helpers import to_np

pytestmark = pytest.mark.webgpu_only


# -- WebGPU: errors inside an op ---------------------------------------------------------

_COPY = """
@group(0) @binding(0) var<uniform> p: array<vec4<u32>, 32>;
@group(0) @binding(1) var<storage, read> a: array<u32>;
@group(0) @binding(2) var<storage, read_write> o: array<u32>;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) g: vec3<u32>) { if (g.x < 4u) { o[g.x] = a[g.x]; } }
"""


def _webgpu_runtime(device):
    from numr.backends.webgpu.runtime import runtime

    return runtime(device.index)


def _failing_next_submit(device, monkeypatch):
    """An array of 0..7 on ``device``, whose runtime's next submit raises (as a driver's
    would) and then works again."""
    rt = _webgpu_runtime(device)
    real = rt.queue

    class Fails:
        def submit(self, buffers):
            monkeypatch.setattr(rt, "queue", real)
            raise RuntimeError("injected submit failure")

        def __getattr__(self, name):
            return getattr(real, name)

    a = numr.asarray(np.arange(8, dtype=np.float32), device=device)
    float(numr.sum(a))
    monkeypatch.setattr(rt, "queue", Fails())
    return a


def test_webgpu_validation_error_then_next_op_works(device):
    rt = _webgpu_runtime(device)
    a = numr.asarray(np.arange(8, dtype=np.float32), device=device)
    float(numr.sum(a))                          # a sync point: a is computed
    pending = a + 1.0                           # in the batch that will fail
    scratch = rt.alloc(16)
    # One buffer bound for reading and writing in one dispatch: wgpu's validation
    # refuses the whole command buffer at submit.
    rt.dispatch(("test_threads conflict",), lambda: _COPY, [scratch.block, scratch.block],
                [], 1)
    with pytest.raises(RuntimeError, match=rf"{device}: .*submitting .*conflicting usages"):
        float(numr.sum(a))
    with pytest.raises(RuntimeError, match=rf"{device}: .*lost"):
        to_np(pending)                            # never a wrong answer
    with pytest.raises(RuntimeError, match=rf"{device}: .*lost"):
        pending * 2.0                           # nor work computed from one
    np.testing.assert_array_equal(to_np(a * 2.0), np.arange(8) * 2.0)
    assert float(numr.sum(a)) == 28.0


def test_webgpu_failed_submit_then_next_op_works(device, monkeypatch):
    a = _failing_next_submit(device, monkeypatch)
    pending = a * 3.0                           # in the batch whose submit fails
    with pytest.raises(RuntimeError, match=rf"{device}: .*submitting .*injected"):
        float(numr.sum(a + 1.0))
    with pytest.raises(RuntimeError, match=rf"{device}: .*lost"):
        to_np(pending)                            # never a wrong answer
    assert float(numr.sum(a + 1.0)) == 36.0
    np.testing.assert_array_equal(to_np(numr.flip(a)), np.arange(8)[::-1])


def test_webgpu_chains_fuse_while_a_lost_array_is_held(device, monkeypatch):
    """Data lost by a failed batch, which the program still holds, turns fusion off
    for the ops that read it (they raise now), not for every later chain."""
    from numr import _config

    rt = _webgpu_runtime(device)
    a = _failing_next_submit(device, monkeypatch)
    held = a * 3.0                              # lost with the failing batch, kept
    with pytest.raises(RuntimeError, match="injected"):
        float(numr.sum(a + 1.0))
    with pytest.raises(RuntimeError, match=rf"{device}: .*lost"):
        held + 1.0                              # an op on it raises at once
    x = numr.asarray(np.linspace(-1, 1, 1 << 12, dtype=np.float32), device=device)

    def chain(v):
        return ((v * 1.5 + 0.25) * v - 0.5) * 2.0

    rt.wait()
    before = rt.stats["dispatches"]
    r = chain(x)
    rt.wait()
    assert rt.stats["dispatches"] - before == 1 and held is not None
    with _config.override(NUMR_WEBGPU_FUSE=0):
        want = to_np(chain(x))
    np.testing.assert_array_equal(to_np(r), want)
    np.testing.assert_allclose(want, chain(np.linspace(-1, 1, 1 << 12, dtype=np.float32)),
                               rtol=1e-6)


def test_webgpu_lost_device_says_so_every_call(device):
    _webgpu_runtime(device)
    from numr.backends.webgpu.runtime import Runtime

    rt = Runtime(device.index)  # a second device on the adapter, ours to lose
    s = rt.alloc(16)
    rt.upload(s, np.arange(4, dtype=np.uint32).tobytes())
    assert np.frombuffer(rt.download(s, 0, 16), np.uint32).tolist() == [0, 1, 2, 3]
    rt.device.destroy()
    calls = [lambda: rt.alloc(1 << 20), lambda: rt.upload(s, b"1234"),
             lambda: rt.download(s, 0, 16),
             lambda: rt.dispatch(("lost",), lambda: _COPY, [s.block, rt.alloc(16).block],
                                 [], 1),
             rt.flush, lambda: rt.download(s, 0, 16)]
    for call in calls:
        with pytest.raises(RuntimeError, match=rf"webgpu:{device.index}: .*device is lost"):
            call()
