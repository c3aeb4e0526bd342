"""The WebGPU backend: devices ``webgpu:0..N`` are wgpu-py's adapters, arrays are GPU
buffers with strides (:mod:`.array`), work is recorded and batched (:mod:`.runtime`),
kernels are WGSL generated from a few templates (:mod:`.kernels`), the ops are
module-level functions, one module per op group, collected by :mod:`.ops`.

The backend is present where wgpu-py imports and finds an adapter (any Vulkan, Metal or
D3D12 GPU, or Mesa's lavapipe on a CPU-only machine).
"""

from __future__ import annotations

import wgpu  # noqa: F401  (absent: ImportError, and numr treats webgpu as absent)

from ... import _dtypes as dt


class WebGPUBackend:
    """The backend object of the contract (numr/backends/__init__.py)."""

    kind = "webgpu"

    def device_indices(self) -> list[int]:
        from .runtime import adapters

        return list(range(len(adapters())))

    def _features(self, index: int) -> frozenset:
        from .runtime import adapters

        return frozenset(adapters()[index].features)

    def dtypes(self, index: int) -> tuple:
        """Exactly the dtypes the adapter holds: 32-bit and packed types everywhere
        (float16 and bfloat16 are stored packed and computed in f32, so they need no
        shader-f16),
        float64/complex128 with shader-f64, int64/uint64 with shader-int64."""
        f = self._features(index)
        held = [dt.bool, dt.int8, dt.int16, dt.int32, dt.uint8, dt.uint16, dt.uint32,
                dt.float32, dt.complex64, dt.float16, dt.bfloat16]
        if "shader-f64" in f:
            held += [dt.float64, dt.complex128]
        if "shader-int64" in f:
            held += [dt.int64, dt.uint64]
        return tuple(d for d in dt.ALL if d in held)

    def default_dtypes(self, index: int) -> dict:
        f = self._features(index)
        f64 = "shader-f64" in f
        i64 = dt.int64 if "shader-int64" in f else dt.int32
        return {"real floating": dt.float64 if f64 else dt.float32,
                "complex floating": dt.complex128 if f64 else dt.complex64,
                "integral": i64, "indexing": i64}

    def make_ops(self, device):
        from .._derived import complete
        from .ops import build

        return complete(build(device, self.dtypes(device.index)))

    def device_name(self, index: int) -> str:
        from .runtime import adapters

        info = adapters()[index].info
        return info.get("device") or info.get("description") or f"webgpu:{index}"

    def memory_info(self, index: int) -> dict:
        from .runtime import runtime

        rt = runtime(index)
        pooled = rt.pooled_bytes()
        # WebGPU tells no adapter's memory size, so the total is unknown.
        return {"in_use": rt.held_bytes() - pooled, "pooled": pooled, "total": None}

    def empty_cache(self, index: int) -> None:
        from .runtime import runtime

        runtime(index).trim(0)


BACKEND = WebGPUBackend()
