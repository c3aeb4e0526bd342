"""Devices: one object per (kind, index), printed as ``cpu``, ``cuda:0``, ``webgpu:0``.

``numr.Device("webgpu:0")`` gives the device of that name (the same object each time).
The default device comes from the environment variable ``NUMR_DEVICE`` (for example
``NUMR_DEVICE=webgpu`` or ``NUMR_DEVICE=cuda:1``), can be changed for the process with
:func:`set_default_device` and, for one block of one thread, with
``with default_device("webgpu:0"): ...``.
"""

from __future__ import annotations

import importlib.util
import threading
from typing import Any, overload

from . import _config

__all__ = ["Device", "get_device", "default_device", "set_default_device", "all_devices",
           "synchronize", "memory_info", "empty_cache"]


class Device:
    """A place where arrays live. Hashable; one instance per device, so ``is`` works.

    ``Device("cpu")``, ``Device("cuda:1")``, ``Device("webgpu")`` (index 0) give the
    device of that name; an unknown or absent one is a ValueError naming the string.
    ``name`` is the adapter's or GPU's name and ``total_memory`` its memory in bytes
    (None where the backend cannot know, as on WebGPU). ``ops`` holds the backend's
    operations bound to this device (see :mod:`numr.backends`); ``backend`` is the
    backend object that made it.
    """

    __slots__ = ("kind", "index", "backend", "ops", "defaults", "dtypes", "_name", "__weakref__")
    kind: str
    index: int
    backend: Any
    ops: Any
    defaults: dict[str, Any]
    dtypes: frozenset[Any]
    _name: str

    def __new__(cls, spec: Any, index: int | None = None, backend: Any = None,
                ops: Any = None) -> Device:
        if index is None:
            return get_device(spec, "numr.Device")
        # Device(kind, index, backend, ops): numr-internal (and tests' stand-in devices).
        self = object.__new__(cls)
        self.kind = spec
        self.index = index
        self.backend = backend
        self.ops = ops
        # {"real floating", "complex floating", "integral", "indexing"} -> dtype
        self.defaults = backend.default_dtypes(index) if backend is not None else {}
        # the dtypes this device holds, exactly
        self.dtypes = frozenset(backend.dtypes(index)) if backend is not None else frozenset()
        self._name = _registry().device_name(spec, index)
        return self

    @property
    def name(self) -> str:
        """The adapter's, GPU's or processor's name (``"NVIDIA H200"``, ``"llvmpipe ..."``)."""
        return self.backend.device_name(self.index)

    @property
    def total_memory(self) -> int | None:
        """The device's memory in bytes, or None where the backend cannot know."""
        return self.backend.memory_info(self.index)["total"]

    def __str__(self) -> str:
        return self._name

    def __repr__(self) -> str:
        return f"Device('{self._name}')"

    def __eq__(self, other: object) -> bool:
        if isinstance(other, str):
            return other == self._name
        return self is other

    def __hash__(self) -> int:
        return hash(self._name)

    def __reduce__(self) -> tuple[Any, tuple[str]]:
        return (get_device, (self._name,))


_devices: dict[tuple[str, int], Device] = {}
# device strings already parsed ("webgpu", "cuda:0", ...): a device= argument costs a
# dict lookup instead of a parse (zeros(8, device="webgpu"): ~2 us of its ~12)
_by_spec: dict[str, Device] = {}
_default: list[Device] = []
_local = threading.local()  # .device: this thread's default inside `with default_device()`

def _registry():
    from . import backends  # the registry of device kinds (numr/backends/__init__.py)

    return backends


def _absent(kind: str) -> str:
    k = _registry().REGISTRY[kind]
    package, needs = k.package, k.needs
    if package is not None and importlib.util.find_spec(package) is None:
        return f"{package} is not installed; the {kind} backend needs {needs}"
    return f"no {kind} device on this machine; the {kind} backend needs {needs}"


def _make(kind: str, index: int) -> Device:
    from .backends import load_backend

    key = (kind, index)
    dev = _devices.get(key)
    if dev is None:
        backend = load_backend(kind)
        if backend is None:
            raise ValueError(f"device '{kind}:{index}' is not available: {_absent(kind)}")
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
    dev = _by_spec.get(spec) if type(spec) is str else None
    if dev is not None:  # a string seen before (devices are never dropped)
        return dev
    if isinstance(spec, str):
        kind, _, idx = spec.strip().partition(":")
        try:
            index = int(idx) if idx else 0
        except ValueError:
            raise ValueError(f"{func}: cannot parse device {spec!r}") from None
        registry = _registry().REGISTRY
        if kind not in registry:
            names = [k if not v.indexed else f"{k}:N" for k, v in registry.items()]
            raise ValueError(f"{func}: unknown device {spec!r}; expected "
                             f"{', '.join(repr(n) for n in names[:-1])} or {names[-1]!r}")
        if not registry[kind].indexed and index != 0:
            raise ValueError(f"{func}: unknown device {spec!r}; the "
                             f"{'CPU' if kind == 'cpu' else kind} is {kind!r}")
        try:
            dev = _make(kind, index)
        except ValueError as e:
            raise ValueError(f"{func}: {e}") from None
        if type(spec) is str and len(_by_spec) < 256:
            _by_spec[spec] = dev
        return dev
    raise ValueError(f"{func}: expected a numr device or a device string, got {spec!r}")


def _process_default() -> Device:
    if not _default:
        _default.append(get_device(_config.settings().device or "cpu", "NUMR_DEVICE"))
    return _default[0]


class _DefaultDevice:
    """``with default_device(d):`` -- ``d`` is this thread's default inside the block."""

    __slots__ = ("device", "_saved")
    device: Device

    def __init__(self, device: Device):
        self.device = device
        self._saved: list[Device | None] = []

    def __enter__(self) -> Device:
        self._saved.append(getattr(_local, "device", None))
        _local.device = self.device
        return self.device

    def __exit__(self, *exc: object) -> None:
        _local.device = self._saved.pop()


@overload
def default_device() -> Device: ...
@overload
def default_device(device: Device | str) -> _DefaultDevice: ...


def default_device(device: Device | str | None = None) -> Device | _DefaultDevice:
    """With no argument, the current default device: this thread's inside a
    ``with default_device(...)`` block, else the process's (``set_default_device``,
    ``NUMR_DEVICE``, ``cpu``). With a device, a context manager that makes it this
    thread's default for the block (other threads keep theirs)::

        with numr.default_device("webgpu:0"):
            x = numr.ones(3)   # on webgpu:0
    """
    if device is None:
        d = getattr(_local, "device", None)
        return d if d is not None else _process_default()
    return _DefaultDevice(get_device(device, "default_device"))


def set_default_device(device: Device | str) -> Device:
    """Make ``device`` the process's default for creation functions; returns the previous
    default. (Inside a ``with default_device(...)`` block that block's device stays this
    thread's default until the block ends.)"""
    previous = _process_default()
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


def _device_or_default(device: Any, func: str) -> Device:
    return default_device() if device is None else get_device(device, func)


def synchronize(device: Device | str | None = None) -> None:
    """Wait until ``device`` (the default device if None) has finished all work given to
    it. numr's GPU backends run asynchronously; a read back (``float(x)``, ``to_device``)
    waits by itself, so this is for timing and for handing buffers to other libraries."""
    _device_or_default(device, "synchronize").ops.sync()


def memory_info(device: Device | str | None = None) -> dict[str, int | None]:
    """Bytes on ``device`` (the default device if None): ``in_use`` by live arrays,
    ``pooled`` (freed arrays' memory kept for reuse) and ``total`` (the device's
    memory). A value the backend cannot know is None: the CPU's in_use (NumPy keeps no
    count), WebGPU's total (WebGPU tells no memory size)."""
    dev = _device_or_default(device, "memory_info")
    return dict(dev.backend.memory_info(dev.index))


def empty_cache(device: Device | str | None = None) -> None:
    """Give the memory ``device`` (the default device if None) keeps pooled back to the
    driver. Live arrays are untouched; later allocations are slower until the pool fills
    again."""
    dev = _device_or_default(device, "empty_cache")
    dev.ops.sync()
    dev.backend.empty_cache(dev.index)
