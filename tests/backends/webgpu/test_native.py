"""What numr takes from below wgpu-py's public API (numr/backends/webgpu/native.py) is
still where it was: a wgpu-py release that moves it fails here, by name, instead of
silently dropping the runtime to its slower public path or breaking DLPack export."""

import pytest

pytestmark = pytest.mark.webgpu_only

_MOVED = ("wgpu-py {v} moved {what}: update numr/backends/webgpu/native.py (the one module "
          "that reaches below wgpu-py's public API)")

_SHADER = """
@group(0) @binding(0) var<storage, read_write> o: array<u32>;
@compute @workgroup_size(1)
fn main() { o[0] = 7u; }
"""


def _run_once(gpu, pipe, bg):
    """One workgroup of ``pipe`` with bind group ``bg``, submitted."""
    encoder = gpu.create_command_encoder()
    cpass = encoder.begin_compute_pass()
    cpass.set_pipeline(pipe)
    cpass.set_bind_group(0, bg)
    cpass.dispatch_workgroups(1)
    cpass.end()
    gpu.queue.submit([encoder.finish()])


def test_the_backend_exports_ffi_lib_and_the_functions_the_runtime_calls(device):
    import wgpu

    from numr.backends.webgpu import native, runtime

    assert native.ffi is not None and native.lib is not None, _MOVED.format(
        v=wgpu.__version__, what="wgpu.backends.wgpu_native's ffi/lib")
    missing = [f for f in native.LIB_FUNCTIONS if not hasattr(native.lib, f)]
    assert not missing, _MOVED.format(v=wgpu.__version__, what=f"wgpu-native's {missing}")
    assert runtime._ffi is not None  # so the runtime records through them


def test_handle_is_the_native_pointer_of_each_object_the_runtime_passes(device):
    import wgpu

    from numr.backends.webgpu import native
    from numr.backends.webgpu.runtime import runtime

    gpu = runtime(device.index).device
    buf = gpu.create_buffer(size=16, usage=wgpu.BufferUsage.STORAGE)
    pipe = gpu.create_compute_pipeline(
        layout="auto", compute={"module": gpu.create_shader_module(code=_SHADER),
                                "entry_point": "main"})
    bg = gpu.create_bind_group(layout=pipe.get_bind_group_layout(0),
                               entries=[{"binding": 0, "resource": {"buffer": buf}}])
    encoder = gpu.create_command_encoder()
    cpass = encoder.begin_compute_pass()
    try:
        for obj, cname in [(buf, "WGPUBufferImpl"), (pipe, "WGPUComputePipelineImpl"),
                           (bg, "WGPUBindGroupImpl"), (cpass, "WGPUComputePassEncoderImpl")]:
            try:
                h = native.handle(obj)
                got = native.ffi.typeof(h).cname
            except (AttributeError, TypeError) as e:
                pytest.fail(_MOVED.format(v=wgpu.__version__, what=f"the native handle of "
                                          f"{type(obj).__name__} ({e})"))
            assert got == f"struct {cname} *", _MOVED.format(
                v=wgpu.__version__, what=f"the native handle of {type(obj).__name__} ({got})")
    finally:
        cpass.end()


def test_trusted_modules_are_made_and_run(device):
    """The tiled matmul's modules go without runtime checks (native.trusted_module): a
    wgpu-py that moves what that takes would quietly give the checked module."""
    import numpy as np
    import wgpu

    from numr.backends.webgpu import native
    from numr.backends.webgpu.runtime import runtime

    gpu = runtime(device.index).device
    module = native.trusted_module(gpu, _SHADER)
    assert module is not None, _MOVED.format(v=wgpu.__version__,
                                             what="wgpuDeviceCreateShaderModuleTrusted")
    buf = gpu.create_buffer(size=16, usage=wgpu.BufferUsage.STORAGE | wgpu.BufferUsage.COPY_SRC)
    pipe = gpu.create_compute_pipeline(layout="auto",
                                       compute={"module": module, "entry_point": "main"})
    bg = gpu.create_bind_group(layout=pipe.get_bind_group_layout(0),
                               entries=[{"binding": 0, "resource": {"buffer": buf}}])
    _run_once(gpu, pipe, bg)
    assert np.frombuffer(gpu.queue.read_buffer(buf), np.uint32)[0] == 7


def test_bind_groups_made_through_cffi_bind_what_they_name(device):
    """native.bind_group_maker exists with this wgpu, and its bind group binds the buffer
    at the size given: a kernel through it writes where the public API's would."""
    import numpy as np
    import wgpu

    from numr.backends.webgpu import native
    from numr.backends.webgpu.runtime import runtime

    gpu = runtime(device.index).device
    make = native.bind_group_maker(gpu)
    assert make is not None, _MOVED.format(v=wgpu.__version__,
                                           what="wgpuDeviceCreateBindGroup or GPUBindGroup")
    assert runtime(device.index)._make_bind_group is not None
    buf = gpu.create_buffer(size=16, usage=wgpu.BufferUsage.STORAGE | wgpu.BufferUsage.COPY_SRC)
    pipe = gpu.create_compute_pipeline(
        layout="auto", compute={"module": gpu.create_shader_module(code=_SHADER),
                                "entry_point": "main"})
    bg = make(pipe.get_bind_group_layout(0), [(buf, 16)])
    assert isinstance(bg, wgpu.GPUBindGroup)
    _run_once(gpu, pipe, bg)
    got = np.frombuffer(gpu.queue.read_buffer(buf), dtype=np.uint32)
    assert got.tolist() == [7, 0, 0, 0]
    with pytest.raises(wgpu.GPUValidationError, match="overflow"):  # raises as the public call
        make(pipe.get_bind_group_layout(0), [(buf, 32)])


def test_the_bind_group_cache_starts_over_at_its_cap(device, monkeypatch):
    """Past BIND_GROUPS_KEPT the cache starts over, also in the middle of a batch whose
    recorded passes use the groups dropped: the results stay right."""
    import numpy as np

    import numr
    from numr.backends.webgpu import runtime as R

    monkeypatch.setattr(R, "BIND_GROUPS_KEPT", 3)
    rt = R.runtime(device.index)
    rt.wait()
    xs = [numr.asarray(np.full(64, k, dtype=np.float32), device=device) for k in range(12)]
    sums = [xs[k] + xs[(k + 1) % 12] for k in range(12)]  # 12 new sets of blocks
    assert len(rt._bind_groups) <= 3
    for k, s in enumerate(sums):
        np.testing.assert_array_equal(np.asarray(s.to_device("cpu")),
                                      np.full(64, k + (k + 1) % 12, dtype=np.float32))
