"""The CPU backend: NumPy arrays, through the shared NumPy-like adapter."""

from __future__ import annotations

import numpy as np
import array_api_compat.numpy as compat

from .. import _dtypes as dt
from .ndarray import NdarrayBackend, build_ops


class NumpyBackend(NdarrayBackend):
    kind = "cpu"

    def device_indices(self) -> list[int]:
        return [0]

    def make_ops(self, device):
        return build_ops(device, np, compat, dt.ALL)


BACKEND = NumpyBackend()
