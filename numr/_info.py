"""__array_namespace_info__: capabilities, devices, default device, dtypes per device."""

from __future__ import annotations

from typing import Any

from . import _dtypes as dt
from ._devices import Device, all_devices, default_device, get_device

__all__ = ["__array_namespace_info__"]

_KIND_NAMES = ("bool", "signed integer", "unsigned integer", "integral", "real floating",
               "complex floating", "numeric")


class _Devices(tuple):
    """The standard's tuple of devices (a tuple since 2025.12, a list before). A list
    added to it gives a list, as it did to the list: SciPy's test fixtures write
    ``info.devices() + [None]``."""

    __slots__ = ()

    def __add__(self, other: Any) -> Any:
        if isinstance(other, list):
            return list(self) + other
        return tuple.__add__(self, other)

    def __radd__(self, other: Any) -> Any:
        if isinstance(other, list):
            return other + list(self)
        return NotImplemented


class Info:
    """What numr offers on this machine (the standard's inspection API)."""

    __module__ = "numr"

    def capabilities(self) -> dict[str, Any]:
        return {"boolean indexing": True, "data-dependent shapes": True, "max dimensions": 64}

    def default_device(self) -> Device:
        return default_device()

    def devices(self) -> tuple[Device, ...]:
        """Every device numr can use here, as a tuple (the standard's type since
        2025.12) to which a list can be added (SciPy's fixtures add ``[None]``)."""
        return _Devices(all_devices())

    def default_dtypes(self, *, device: Device | str | None = None) -> dict[str, dt.DType]:
        dev = default_device() if device is None else get_device(device, "default_dtypes")
        return dict(dev.defaults)

    def dtypes(self, *, device: Device | str | None = None,
               kind: str | tuple[str, ...] | None = None) -> dict[str, dt.DType]:
        dev = default_device() if device is None else get_device(device, "dtypes")
        held = [d for d in dt.STANDARD if d in dev.dtypes]
        if kind is None:
            chosen = held
        else:
            kinds = kind if isinstance(kind, tuple) else (kind,)
            sets = []
            for k in kinds:
                if k not in dt.ISDTYPE_KINDS:
                    raise ValueError(f"dtypes: unknown kind {k!r}; expected one of {_KIND_NAMES}")
                sets.append(dt.ISDTYPE_KINDS[k])
            chosen = [d for d in held if any(d in s for s in sets)]
        return {d.name: d for d in chosen}


_INFO = Info()


def __array_namespace_info__() -> Info:
    return _INFO
