"""The CPU backend: NumPy arrays, through the shared NumPy-like adapter."""

from __future__ import annotations

import os
import platform
from types import SimpleNamespace
from typing import Any

import numpy as np
import array_api_compat.numpy as compat

from .. import _dtypes as dt
from .ndarray import NdarrayBackend, build_ops


class NumpyBackend(NdarrayBackend):
    kind = "cpu"

    def device_indices(self) -> list[int]:
        return [0]

    def make_ops(self, device: Any) -> SimpleNamespace:
        return build_ops(device, np, compat, dt.ALL)

    def device_name(self, index: int) -> str:
        return platform.processor() or platform.machine() or "cpu"

    def memory_info(self, index: int) -> dict[str, int | None]:
        # NumPy allocates through the C heap: numr keeps no pool and no count of its own.
        try:
            total = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
        except (ValueError, OSError, AttributeError):  # not a POSIX system
            total = None
        return {"in_use": None, "pooled": 0, "total": total}

    def empty_cache(self, index: int) -> None:
        pass


BACKEND = NumpyBackend()
