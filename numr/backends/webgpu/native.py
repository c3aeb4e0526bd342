"""The one place numr reaches below wgpu-py's public API: wgpu-native's C functions and
the native handles of wgpu-py's objects.

- ``ffi`` and ``lib``: the cffi interface of wgpu-py's wgpu-native backend, as that
  backend's package ``wgpu.backends.wgpu_native`` exports them (numr never imports its
  private ``_ffi`` module). The runtime calls three compute-pass functions through
  ``lib`` (see runtime.py: wgpu-py's public methods cost three error-capturing wrappers
  per call, half the recording time of a small op).
- :func:`handle`: the native handle (a cffi pointer) behind a wgpu-py object. wgpu-py
  keeps it in the private ``_internal`` attribute and has no public accessor; numr needs
  it for those ``lib`` calls and as DLPack's kDLWebGPU data pointer (dlpack.py).
- :func:`trusted_module`: a shader module without naga's runtime checks, through
  wgpu-native's wgpuDeviceCreateShaderModuleTrusted (wgpu-py 0.32 has no public call).
- :func:`bind_group_maker`: bind groups whose descriptor is built in cffi directly
  (wgpu-py's create_bind_group converts each entry in Python, 7x the native call).

``ffi`` is None where that backend's package lacks these names (another wgpu-py backend
or layout): the runtime then takes wgpu-py's public methods, and DLPack export raises.
tests/backends/webgpu/test_native.py fails, naming this module, if a wgpu-py release
moves either.
"""

from __future__ import annotations

from typing import Any

try:
    from wgpu.backends.wgpu_native import ffi, lib
except Exception:  # another wgpu-py backend or layout: the public API only
    ffi = lib = None

# The wgpu-native functions the runtime calls directly (tests/backends/webgpu/test_native.py).
LIB_FUNCTIONS = ("wgpuComputePassEncoderSetPipeline", "wgpuComputePassEncoderSetBindGroup",
                 "wgpuComputePassEncoderDispatchWorkgroups")


def handle(obj: Any) -> Any:
    """The native handle (a cffi pointer) behind wgpu-py object ``obj``."""
    return obj._internal


def trusted_module(device: Any, code: str) -> Any:
    """``device.create_shader_module(code=code)`` without naga's runtime checks (index
    clamping, loop bounding), through wgpu-native's wgpuDeviceCreateShaderModuleTrusted
    (wgpu.h; wgpu-py 0.32 has no public call for it); None where this wgpu lacks it."""
    try:
        from wgpu.backends.wgpu_native import _api
        make = _api.libf.wgpuDeviceCreateShaderModuleTrusted
        internal = handle(device)
    except (ImportError, AttributeError):
        return None
    src = _api.new_struct_p("WGPUShaderSourceWGSL *", code=_api.to_c_string_view(code))
    src[0].chain.next = _api.ffi.NULL
    src[0].chain.sType = _api.lib.WGPUSType_ShaderSourceWGSL
    desc = _api.new_struct_p("WGPUShaderModuleDescriptor *",
                             nextInChain=_api.ffi.cast("WGPUChainedStruct *", src),
                             label=_api.to_c_string_view(""))
    module = make(internal, desc, 0)  # WGPUShaderRuntimeChecks_None
    if module == _api.ffi.NULL:
        raise RuntimeError("shader module creation failed")
    return _api.GPUShaderModule("", module, device)


def bind_group_maker(device: Any) -> Any:
    """A function ``make(layout, entries)`` -> a wgpu-py GPUBindGroup of ``device``, where
    ``entries`` is a sequence of (buffer, size) bound at 0, 1, ... from offset 0: the
    descriptor built in cffi directly and wgpuDeviceCreateBindGroup called through
    wgpu-py's error-capturing wrapper (its errors raise as the public method's do).
    wgpu-py's create_bind_group checks and converts each entry in Python: 48-60 us a
    group of four buffers on this project's 2-core machine, 8 us this way, and a loop
    whose arrays change buffers from call to call (an optimizer step) makes one a
    dispatch. None where this wgpu lacks what it needs."""
    try:
        from wgpu.backends.wgpu_native import _api
        create = _api.libf.wgpuDeviceCreateBindGroup
        wrap, new, null = _api.GPUBindGroup, _api.ffi.new, _api.ffi.NULL
        internal = handle(device)
    except (ImportError, AttributeError):
        return None

    def make(layout: Any, entries: Any) -> Any:
        n = len(entries)
        c = new("WGPUBindGroupEntry[]", n)  # zeroed: no chain, sampler or texture view
        for i, (buffer, size) in enumerate(entries):
            e = c[i]
            e.binding = i
            e.buffer = buffer._internal
            e.size = size
        desc = new("WGPUBindGroupDescriptor *")
        desc.layout = layout._internal
        desc.entries = c
        desc.entryCount = n
        made = create(internal, desc)
        if made == null:
            raise RuntimeError("bind group creation failed")
        return wrap("", made, device)
    return make
