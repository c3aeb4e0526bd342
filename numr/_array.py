"""numr.Array: one array type for every device, holding a backend's native array.

An Array is ``(native array, dtype, device)``. The operators are the namespace's own
elementwise functions (attached at the bottom of this module), so ``x + y`` and
``numr.add(x, y)`` share one code path and one set of errors.
"""

from __future__ import annotations

import builtins
import enum
import types
from typing import TYPE_CHECKING, Any, Iterator

from . import _dtypes as dt, _ranges
from ._operators import ArrayOperators

if TYPE_CHECKING:  # names in annotations only: no imports at run time for them
    import numpy

    from ._devices import Device

__all__ = ["Array"]

_new = object.__new__

_API_VERSIONS = ("2021.12", "2022.12", "2023.12", "2024.12", "2025.12")


class Array(ArrayOperators):
    """An n-dimensional array on a device (``cpu``, ``cuda:N`` or ``webgpu:N``).

    Create arrays with the namespace's creation functions (``numr.asarray``,
    ``numr.zeros`` ...), never with this constructor.
    """

    __slots__ = ("_data", "_dtype", "_device", "__weakref__")

    # NumPy must not treat an Array as something to convert: with this, NumPy operators
    # and ufuncs return NotImplemented, so `np_scalar * x` comes to Array.__rmul__.
    __array_ufunc__ = None
    __hash__ = None  # mutable, and == is elementwise

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        raise TypeError("numr.Array cannot be constructed directly; use numr.asarray(...)")

    @staticmethod
    def _new(data: Any, dtype: dt.DType, device: Any) -> "Array":
        """Wrap a native array (numr-internal; no checks)."""
        obj = _new(Array)
        obj._data = data
        obj._dtype = dtype
        obj._device = device
        return obj

    # --- attributes ------------------------------------------------------------------

    @property
    def dtype(self) -> dt.DType:
        return self._dtype

    @property
    def device(self) -> Device:
        return self._device

    @property
    def shape(self) -> tuple[int, ...]:
        return tuple(self._data.shape)

    @property
    def ndim(self) -> int:
        return self._data.ndim

    @property
    def size(self) -> int:
        return self._data.size

    @property
    def T(self) -> "Array":
        if self._data.ndim != 2:
            raise ValueError(f"Array.T: only defined for 2-D arrays, got {self._data.ndim}-D; "
                             f"use permute_dims or mT")
        return Array._new(self._device.ops.permute_dims(self._data, (1, 0)), self._dtype, self._device)

    @property
    def mT(self) -> "Array":
        n = self._data.ndim
        if n < 2:
            raise ValueError(f"Array.mT: needs at least 2 dimensions, got {n}")
        axes = tuple(range(n - 2)) + (n - 1, n - 2)
        return Array._new(self._device.ops.permute_dims(self._data, axes), self._dtype, self._device)

    # --- namespace, device, interchange ---------------------------------------------

    def __array_namespace__(self, /, *, api_version: str | None = None) -> types.ModuleType:
        if api_version is not None and api_version not in _API_VERSIONS:
            raise ValueError(f"__array_namespace__: unsupported api_version {api_version!r}; "
                             f"supported: {_API_VERSIONS}")
        import numr

        return numr

    def __copy__(self) -> "Array":
        """A copy of the data on the same device, as NumPy's ndarray gives."""
        from ._creation import asarray

        return asarray(self, copy=True)

    def __deepcopy__(self, memo: dict[int, Any]) -> "Array":
        # Note: never the generic deepcopy, which would duplicate the native array's
        # handles (a GPU buffer object) member by member: a half-built duplicate released
        # the original WebGPU buffer when it was collected.
        return self.__copy__()

    def __reduce__(self) -> tuple[Any, tuple[Any, str]]:
        # Pickled as host data plus the device's name (a read back for GPU arrays).
        return (_unpickle, (self._device.ops.to_host(self._data), str(self._device)))

    def to_device(self, device: Device | str, /, *, stream: Any = None) -> "Array":
        from ._transfer import to_device

        return to_device(self, device, stream=stream)

    def __dlpack__(self, /, *, stream: Any = None, max_version: tuple[int, int] | None = None,
                   dl_device: tuple[enum.Enum, int] | None = None,
                   copy: bool | None = None) -> Any:
        if copy is not None and copy is not True and copy is not False:
            raise TypeError(f"__dlpack__: copy must be True, False or None, got {copy!r}")
        if max_version is not None and not (
                isinstance(max_version, tuple) and len(max_version) == 2
                and all(type(v) is int for v in max_version)):
            raise TypeError(f"__dlpack__: max_version must be a tuple of two ints, got "
                            f"{max_version!r}")
        if dl_device is not None and not (isinstance(dl_device, tuple) and len(dl_device) == 2):
            raise TypeError(f"__dlpack__: dl_device must be a (device type, index) tuple, "
                            f"got {dl_device!r}")
        if self._device.kind == "cpu" and stream is not None:
            # Note: as on WebGPU, a device without streams takes None or -1 only.
            if stream != -1 or type(stream) is not int:
                raise ValueError(f"__dlpack__: the CPU has no streams; stream must be None "
                                 f"or -1, got {stream!r}")
            stream = None
        _ranges.wrote(self)  # the consumer may write this memory (see _ranges)
        return self._device.ops.dlpack(self._data, stream, max_version, dl_device, copy)

    def __dlpack_device__(self) -> tuple[enum.Enum, int]:
        return self._device.ops.dlpack_device(self._data)

    def __array__(self, dtype: Any = None,
                  copy: bool | None = None) -> numpy.ndarray[Any, Any]:
        import numpy as np

        if self._device.kind != "cpu":
            # Note: no copy off the device behind the caller's back. copy=True (np.array(x),
            # np.asarray(x, copy=True)) asks for a new host array explicitly; np.asarray(x)
            # (copy=None) copies only where the process opted in (NUMR_IMPLICIT_HOST_COPY=1,
            # for chunked-array libraries such as Cubed that write chunks by np.asarray).
            from ._transfer import host_copy

            return host_copy(self, dtype, copy)

        data = self._data
        if dtype is not None and np.dtype(dtype) != data.dtype:
            if copy is False:
                raise ValueError("Array.__array__: a dtype change needs a copy, but copy=False")
            return data.astype(dtype)
        if copy:
            return data.copy()
        return data

    def __buffer__(self, flags: int, /) -> memoryview:
        if self._device.kind != "cpu":
            raise TypeError(f"Array.__buffer__: the array is on {self._device}; only CPU "
                            f"arrays expose a buffer")
        return memoryview(self._data)

    # --- Python scalars --------------------------------------------------------------

    def _scalar(self, name: str, kinds: frozenset):
        if self._data.size != 1:
            # Like NumPy: an ambiguous truth value is a ValueError, other conversions TypeError.
            err = ValueError if name in ("__bool__", "item") else TypeError
            raise err(f"Array.{name}: only an array of one element converts to a Python "
                      f"scalar; got shape {self.shape}")
        if self._dtype.kind not in kinds:
            raise TypeError(f"Array.{name}: not defined for dtype {self._dtype}")
        return self._device.ops.scalar(self._data)

    def __bool__(self) -> builtins.bool:
        return builtins.bool(self._scalar("__bool__", _ANY))

    def __int__(self) -> int:
        return int(self._scalar("__int__", _REAL))

    def __float__(self) -> float:
        return float(self._scalar("__float__", _REAL))

    def __complex__(self) -> complex:
        return complex(self._scalar("__complex__", _ANY))

    def __index__(self) -> int:
        return int(self._scalar("__index__", _INTEGER))

    # Extensions (NumPy's, CuPy's and PyTorch's names; a read back on a GPU).

    def item(self) -> Any:
        """The Python scalar of an array of one element (any shape); ValueError otherwise.

        Typed Any, as NumPy's: a bool, int, float or complex by the array's dtype, which
        the static type does not carry."""
        return self._scalar("item", _ANY)

    def tolist(self) -> Any:
        """Nested Python lists of Python scalars (a 0-d array gives its scalar)."""
        return self._device.ops.to_host(self._data).tolist()

    # --- indexing --------------------------------------------------------------------

    def __getitem__(self, key: Any, /) -> "Array":
        # Fast path (a measured goal): one slice never drops dimensions, so the backend's
        # plain slicing op applies with no further checks.
        # (shape, not ndim: the native arrays' shape is a plain attribute, where a
        # WebGPU array's ndim is a property, a Python call)
        if type(key) is slice and self._data.shape:
            obj = _new(Array)
            obj._data = self._device.ops.getslice(self._data, key)
            obj._dtype = self._dtype
            obj._device = self._device
            if id(self) in _ranges._notes:  # a slice of an index array keeps its bounds
                _ranges.inherit(obj, self)
            return obj
        return _getitem(self, key)

    def __setitem__(self, key: Any, value: Any, /) -> None:
        if _ranges._notes:
            _ranges.wrote(self)  # (the bounds noted for index arrays in its buffer go)
        # Fast path: a slice key and an array value of the same dtype and device.
        if (type(key) is slice and type(value) is Array and value._dtype is self._dtype
                and value._device is self._device and self._data.shape):
            try:
                self._device.ops.setitem(self._data, key, value._data)
                return
            except ValueError:
                pass  # the slow path raises numr's error
        _setitem(self, key, value)

    def __len__(self) -> int:
        if self._data.ndim == 0:
            raise TypeError("len() of a 0-d array")
        return self._data.shape[0]

    def __iter__(self) -> Iterator[Array]:
        # iter() itself raises for a 0-d array, as NumPy's does (a generator would raise
        # only at the first next(): np.iterable() and matplotlib then took a 0-d array for
        # a sequence, and SciPy's dendrogram plot failed)
        if self._data.ndim == 0:
            raise TypeError("iteration over a 0-d array")
        return (_getitem(self, i) for i in range(self._data.shape[0]))

    # --- printing --------------------------------------------------------------------

    def __repr__(self) -> str:
        import numpy as np

        body = np.array2string(self._device.ops.to_host(self._data), separator=", ",
                               prefix="Array(")
        # As NumPy: an empty array's "[]" says nothing of its shape, so the repr does.
        shape = f"shape={self.shape}, " if self._data.size == 0 else ""
        return f"Array({body}, {shape}dtype={self._dtype.name}, device={self._device})"

    def __str__(self) -> str:
        import numpy as np

        return np.array2string(self._device.ops.to_host(self._data))

    def __format__(self, spec: str) -> str:
        # A 0-d array formats as its Python scalar (f"{x:.3f}", as NumPy's do).
        if not spec:
            return str(self)
        if self._data.ndim:
            raise TypeError(f"Array.__format__: the format {spec!r} applies to 0-d arrays; "
                            f"got shape {self.shape}")
        return format(self._scalar("__format__", _ANY), spec)


_ANY = frozenset({"bool", "int", "uint", "float", "complex"})
_REAL = frozenset({"bool", "int", "uint", "float"})
_INTEGER = frozenset({"int", "uint"})

# The operators and indexing come from the namespace modules, which import Array; every
# operator is attached here, in one place.
from . import _elementwise as _ew, _linalg_ops as _la  # noqa: E402
from ._indexing import getitem as _getitem, setitem as _setitem  # noqa: E402

for _name, _f in {**_ew.operators(), **_la.OPERATORS}.items():
    setattr(Array, _name, _f)
del _name, _f


def _unpickle(host: Any, device: str) -> Array:
    from ._creation import asarray
    from ._devices import get_device

    try:
        dev = get_device(device, "numr.Array unpickling")
    except ValueError as e:
        # Data pickled on a GPU machine stays readable elsewhere, on the CPU.
        import warnings

        warnings.warn(f"{e}; the array is loaded on the CPU instead", RuntimeWarning,
                      stacklevel=2)
        dev = get_device("cpu")
    return asarray(host, device=dev)
