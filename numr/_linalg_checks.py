"""The validation helpers ``numr.linalg``, ``numr.fft`` and the main namespace's linear
algebra share (array/device/dtype checks, axes, broadcasting). A bottom module beside
``_checks``: the namespace modules import these from here, never from one another.

Their argument order is (function name, value, ...), unlike ``_checks``' (value, ..., func).
"""

from __future__ import annotations

from typing import Any

from . import _dtypes as dt
from ._array import Array
from ._checks import as_int as _as_int, broadcast_shape, cast, mixed_devices, what  # noqa: F401
from ._dtypes import PROMOTE
from ._errors import AxisError

_new = object.__new__


def bad_dtype(name: str, d: dt.DType, category: str) -> TypeError:
    return TypeError(f"{name}: dtype {d} is not supported; expected a {category} dtype")


def expect_array(name: str, x: Any, label: str = "x") -> Array:
    if type(x) is not Array:
        raise TypeError(f"{name}: {label} must be a numr array, got {what(x)}")
    return x


def promote_pair(name: str, x1: Any, x2: Any, allowed: frozenset, category: str):
    """(native1, native2, dtype, device) for two arrays promoted to one dtype."""
    expect_array(name, x1, "x1")
    expect_array(name, x2, "x2")
    dev = x1._device
    if x2._device is not dev:
        raise mixed_devices(name, dev, x2._device)
    d = PROMOTE[x1._dtype, x2._dtype]
    if d not in allowed:
        raise bad_dtype(name, d, category)
    return cast(x1, d), cast(x2, d), d, dev


def as_int(name: str, value: Any, label: str) -> int:
    """A Python int from an int-like argument (bools are not ints here)."""
    return _as_int(value, label, name)


def normalize_axis(name: str, axis: Any, ndim: int, label: str = "axis") -> int:
    a = as_int(name, axis, label)
    if not -ndim <= a < ndim:
        raise AxisError(f"{name}: {label} {a} is out of range for an array of "
                        f"{ndim} dimension{'s' if ndim != 1 else ''}")
    return a + ndim if a < 0 else a


def normalize_axes(name: str, axes: Any, ndim: int, label: str = "axes") -> tuple[int, ...]:
    """A tuple of distinct non-negative axes from an int or a sequence of ints."""
    if isinstance(axes, (list, tuple)):
        out = tuple(normalize_axis(name, a, ndim, label) for a in axes)
    else:
        out = (normalize_axis(name, axes, ndim, label),)
    if len(set(out)) != len(out):
        raise ValueError(f"{name}: {label} {axes!r} repeats an axis")
    return out


def broadcast_shapes(name: str, *shapes: tuple) -> tuple:
    """The broadcast of shapes, or a ValueError naming the function."""
    return broadcast_shape(shapes, name)


def vector_axis(name: str, axis: Any, n1: int, n2: int) -> int:
    """The (negative) axis of the vectors in two arrays that broadcast against each other.

    Note: the standard asks for a negative axis in [-min(ndim), -1]; like NumPy, a
    non-negative axis is also accepted when both arrays have the same rank, where it
    is unambiguous.
    """
    a = as_int(name, axis, "axis")
    low = min(n1, n2)
    if a >= 0 and n1 == n2 and a < n1:
        a -= n1
    if not -low <= a <= -1:
        raise AxisError(f"{name}: axis {axis} is out of range; expected an integer in "
                        f"[-{low}, -1] for arrays of {n1} and {n2} dimensions")
    return a


def wrap(r: Any, d: dt.DType, dev: Any) -> Array:
    o = _new(Array)
    o._data = r
    o._dtype = d
    o._device = dev
    return o


