"""The CUDA backend: CuPy arrays, through the shared NumPy-like adapter.

Devices ``cuda:0..N`` are CuPy's GPUs. With more than one GPU, every op of ``cuda:i``
runs with GPU ``i`` current, so arrays on ``cuda:1`` are computed on GPU 1; with one GPU
the ops are CuPy's functions with nothing around them (the per-call overhead is a
measured goal).
"""

from __future__ import annotations

import functools
from types import SimpleNamespace
from typing import Any

import cupy
import array_api_compat.cupy as compat

from .. import _dtypes as dt
from .ndarray import NdarrayBackend, build_ops


def _gpu_count() -> int:
    try:
        return cupy.cuda.runtime.getDeviceCount()
    except Exception:  # no driver, or no GPU: the backend is simply absent
        return 0


def _on_gpu(f, index: int):
    """f, run with GPU ``index`` current."""
    gpu = cupy.cuda.Device(index)

    @functools.wraps(f)
    def op(*args, **kwargs):
        with gpu:
            return f(*args, **kwargs)

    return op


class CupyBackend(NdarrayBackend):
    kind = "cuda"

    def __init__(self):
        self._count = _gpu_count()

    def device_indices(self) -> list[int]:
        return list(range(self._count))

    def make_ops(self, device: Any) -> SimpleNamespace:
        with cupy.cuda.Device(device.index):
            ops = build_ops(device, cupy, compat, dt.ALL)
        if self._count > 1:
            ops = SimpleNamespace(**{name: _on_gpu(f, device.index)
                                     for name, f in vars(ops).items()})
        return ops

    def device_name(self, index: int) -> str:
        name = cupy.cuda.runtime.getDeviceProperties(index)["name"]
        return name.decode() if isinstance(name, bytes) else str(name)

    def memory_info(self, index: int) -> dict[str, int | None]:
        # CuPy's default pool serves every array numr makes; its counts are per device.
        gpu = cupy.cuda.Device(index)
        with gpu:
            pool = cupy.get_default_memory_pool()
            used, held = pool.used_bytes(), pool.total_bytes()
            total = gpu.mem_info[1]
        return {"in_use": used, "pooled": held - used, "total": total}

    def empty_cache(self, index: int) -> None:
        with cupy.cuda.Device(index):
            cupy.get_default_memory_pool().free_all_blocks()
            cupy.get_default_pinned_memory_pool().free_all_blocks()


BACKEND = CupyBackend()
