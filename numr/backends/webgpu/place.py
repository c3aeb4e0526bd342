"""The device that an op with no array operand works on (creation functions, transfers
from the host, sync): ops.build binds it as their first argument. Every other op takes
its runtime from its arrays (``x.rt``)."""

from __future__ import annotations

from typing import Any

from ... import _dtypes as dt
from .runtime import runtime


class Place:
    """One WebGPU device: its numr Device, runtime and the dtypes it holds."""

    __slots__ = ("device", "rt", "held", "wide")

    def __init__(self, device: Any, held: tuple):
        self.device = device
        self.rt = runtime(device.index)
        self.held = held
        # the float ranges (arange, linspace) compute in: float64 where it is held
        self.wide = dt.float64 if dt.float64 in held else dt.float32

    def __str__(self) -> str:
        return str(self.device)
