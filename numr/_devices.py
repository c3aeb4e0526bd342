"""Devices: one object per (kind, index), printed as ``cpu``, ``cuda:0``, ``webgpu:0``.

The default device comes from the environment variable ``NUMR_DEVICE`` (for example
``NUMR_DEVICE=webgpu`` or ``NUMR_DEVICE=cuda:1``) and can be changed with
:func:`set_default_device`.
"""

from __future__ import annotations

import os
from typing import Any

__all__ = ["Device", "get_device", "default_device", "set_default_device", "all_devices"]


class Device:
    """A place where arrays live. Hashable; one instance per device, so ``is`` works.

    ``ops`` holds the backend's operations bound to this device (see
    :mod:`numr.backends`); ``backend`` is the backend object that made it.
    """

    __slots__ = ("kind", "index", "backend", "ops", "defaults", "dtypes", "_name", "__weakref__")

    def __init__(self, kind: str, index: int, backend: Any, ops: Any):
        self.kind = kind
        self.index = index
        self.backend = backend
        self.ops = ops
        # {"real floating", "complex floating", "integral", "indexing"} -> dtype
        self.defaults = backend.default_dtypes(index) if backend is not None else {}
        # the dtypes this device holds, exactly
        self.dtypes = frozenset(backend.dtypes(index)) if backend is not None else frozenset()
        self._name = kind if kind == "cpu" else f"{kind}:{index}"

    def __str__(self) -> str:
        return self._name

    def __repr__(self) -> str:
        return f"Device('{self._name}')"

    def __eq__(self, other):
        if isinstance(other, str):
            return other == self._name
        return self is other

    def __hash__(self):
        return hash(self._name)

    def __reduce__(self):
        return (get_device, (self._name,))


_devices: dict[tuple[str, int], Device] = {}
_default: list[Device] = []


def _make(kind: str, index: int) -> Device:
    from .backends import load_backend

    key = (kind, index)
    dev = _devices.get(key)
    if dev is None:
        backend = load_backend(kind)
        if backend is None:
            raise ValueError(f"device '{kind}': this backend is not available here "
                             f"(missing package or no hardware)")
        if index not in backend.device_indices():
            raise ValueError(f"device '{kind}:{index}' does not exist; "
                             f"available: {[f'{kind}:{i}' for i in backend.device_indices()]}")
        dev = Device(kind, index, backend, None)
        dev.ops = backend.make_ops(dev)
        _devices[key] = dev
    return dev


def get_device(spec: Any, func: str = "device") -> Device:
    """The Device for ``spec``: a Device, or a string like 'cpu', 'cuda', 'webgpu:1'."""
    if type(spec) is Device:
        return spec
    if isinstance(spec, str):
        kind, _, idx = spec.strip().partition(":")
        try:
            index = int(idx) if idx else 0
        except ValueError:
            raise ValueError(f"{func}: cannot parse device {spec!r}") from None
        if kind not in ("cpu", "cuda", "webgpu"):
            raise ValueError(f"{func}: unknown device {spec!r}; expected 'cpu', 'cuda:N' or 'webgpu:N'")
        if kind == "cpu" and index != 0:
            raise ValueError(f"{func}: unknown device {spec!r}; the CPU is 'cpu'")
        return _make(kind, index)
    raise ValueError(f"{func}: expected a numr device or a device string, got {spec!r}")


def default_device() -> Device:
    if not _default:
        _default.append(get_device(os.environ.get("NUMR_DEVICE", "cpu") or "cpu", "NUMR_DEVICE"))
    return _default[0]


def set_default_device(device: Any) -> Device:
    """Make ``device`` the default for creation functions; returns the previous default."""
    previous = default_device()
    _default[0] = get_device(device, "set_default_device")
    return previous


def all_devices() -> list[Device]:
    """Every device of every backend that is available on this machine."""
    from .backends import KINDS, load_backend

    out = []
    for kind in KINDS:
        backend = load_backend(kind)
        if backend is not None:
            out.extend(_make(kind, i) for i in backend.device_indices())
    return out
