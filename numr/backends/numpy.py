"""The CPU backend: NumPy arrays, through the shared NumPy-like adapter."""

from __future__ import annotations

import numpy as np
import array_api_compat.numpy as compat

from .. import _dtypes as dt
from .ndarray import build_ops


class NumpyBackend:
    kind = "cpu"

    def device_indices(self) -> list[int]:
        return [0]

    def dtypes(self, index: int) -> tuple:
        return dt.ALL

    def default_dtypes(self, index: int) -> dict:
        return {"real floating": dt.float64, "complex floating": dt.complex128,
                "integral": dt.int64, "indexing": dt.int64}

    def make_ops(self, device):
        return build_ops(device, np, compat, dt.ALL)


BACKEND = NumpyBackend()
