"""Argument checks and helpers shared by the namespace modules (one wording for every
function). A bottom module: namespace modules import their shared helpers from here, never
from one another."""

from __future__ import annotations

import operator
import sys
from typing import Any, Sequence

from . import _dtypes as dt
from ._array import Array
from ._devices import default_device, get_device
from ._errors import AxisError  # noqa: F401  (re-exported: numr.AxisError)

# Python scalar types accepted next to an array (NumPy scalars are unwrapped first).
PY_SCALARS = (bool, int, float, complex)

# Fast-path scalar rules: the dtypes whose arrays keep their dtype with a Python float,
# and the Python int range each dtype accepts (beyond float64's range an int cannot be
# converted to any floating dtype; bool arrays are absent: with an int they promote).
FLOAT_KEEPS = frozenset(d for d in dt.ALL if d.kind in ("float", "complex"))
FLOAT_MAX = int(sys.float_info.max)
INT_BOUNDS = {**dt.INT_RANGE, **{d: (-FLOAT_MAX, FLOAT_MAX) for d in FLOAT_KEEPS}}


def what(x: Any) -> str:
    """The name of x's type for a TypeError; for a numr.autograd.Var, also the fix (the
    namespace takes Arrays; numr.autograd has the same functions for Vars)."""
    t = type(x)
    if t.__name__ == "Var" and t.__module__.startswith("numr.autograd"):
        return ("numr.autograd.Var; call numr.autograd's function of the same name, or pass "
                "var.value (no gradient)")
    if t.__module__ == "numpy" and t.__name__ == "ndarray":
        return "numpy.ndarray; convert it with numr.asarray(...) first"
    return t.__name__


def check_array(x: Any, func: str) -> Array:
    if type(x) is not Array:
        raise TypeError(f"{func}: expected a numr array, got {what(x)}")
    return x


def check_bool(value: Any, name: str, func: str) -> bool:
    if type(value) is not bool:
        raise TypeError(f"{func}: {name} must be a bool, got {value!r}")
    return value


def as_int(value: Any, what: str, func: str) -> int:
    """``value`` as a Python int: Python and NumPy integers (anything with __index__), not
    bool, whose meaning as a count or an axis would be a bug."""
    if type(value) is int:
        return value
    if isinstance(value, bool) or not hasattr(type(value), "__index__"):
        raise TypeError(f"{func}: {what} must be an int, got {value!r}")
    try:
        return operator.index(value)
    except TypeError:
        raise TypeError(f"{func}: {what} must be an int, got {value!r}") from None


def normalize_axis(axis: Any, ndim: int, func: str, *, of: str = "an array") -> int:
    """``axis`` as a non-negative int; AxisError outside ``[-ndim, ndim)``."""
    a = as_int(axis, "axis", func)
    if not -ndim <= a < ndim:
        raise AxisError(f"{func}: axis {a} is out of range for {of} of {ndim} "
                        f"dimension{'' if ndim == 1 else 's'}")
    return a + ndim if a < 0 else a


def normalize_axes(axis: Any, ndim: int, func: str, *, unique: bool = True,
                   of: str = "an array") -> tuple[int, ...]:
    """None (every axis), an int or a sequence of ints as a tuple of non-negative axes,
    in the order given. A repeated axis is a ValueError unless ``unique`` is False."""
    if axis is None:
        return tuple(range(ndim))
    if type(axis) is int and -ndim <= axis < ndim:  # the common case, without the loop
        return (axis + ndim if axis < 0 else axis,)
    items = axis if isinstance(axis, (tuple, list)) else (axis,)
    out = tuple(normalize_axis(a, ndim, func, of=of) for a in items)
    if unique and len(set(out)) != len(out):
        dup = next(a for a in out if out.count(a) > 1)
        raise ValueError(f"{func}: axis {dup} is repeated in axis={axis!r}")
    return out


# ---------------------------------------------------------------------------------------
# Operands: Python scalars next to arrays, devices, dtypes
# ---------------------------------------------------------------------------------------

def mixed_devices(name: str, d1: Any, d2: Any) -> ValueError:
    return ValueError(f"{name}: arrays are on different devices, {d1} and {d2}; "
                      f"move one with to_device()")


def as_scalar(obj: Any):
    """A Python scalar from obj, or None if obj is not a scalar."""
    t = type(obj)
    if t in PY_SCALARS:
        return obj
    if isinstance(obj, PY_SCALARS):
        return _coerce_subclass(obj)  # e.g. NumPy's float64, a float subclass
    item = getattr(obj, "item", None)
    if item is not None and getattr(obj, "shape", None) == () and type(obj).__module__ == "numpy":
        return item()  # a NumPy scalar
    return None


def _coerce_subclass(obj: Any):
    for t in PY_SCALARS:
        if isinstance(obj, t):
            return t(obj)
    return None


def is_ndarray(obj: Any) -> bool:
    """A NumPy or CuPy array: an operator with one raises numr's TypeError (which says to
    convert with numr.asarray) instead of deferring to NumPy, whose fallback message
    speaks of concatenation."""
    t = type(obj)
    return t.__name__ == "ndarray" and t.__module__ in ("numpy", "cupy", "cupy._core.core")


def int_out_of_range(name: str, s: int, d: dt.DType) -> OverflowError:
    return OverflowError(f"{name}: Python int {s} is out of range for {d}")


def scalar_operand_dtype(name: str, adt: dt.DType, s: Any, device: Any) -> dt.DType:
    """The operand dtype for an array of dtype ``adt`` combined with Python scalar ``s``;
    OverflowError if ``s`` is an int that the operand dtype cannot hold."""
    t = type(s)
    kind = adt.kind
    if t is bool:
        return adt
    if t is int:
        if kind == "bool":
            adt = device.defaults["integral"]
        lo, hi = INT_BOUNDS[adt]
        if not lo <= s <= hi:
            raise int_out_of_range(name, s, adt)
        return adt
    if t is float:
        return adt if kind in ("float", "complex") else device.defaults["real floating"]
    # complex
    if kind == "complex":
        return adt
    if kind == "float":
        return dt.COMPLEX_OF[adt]
    return device.defaults["complex floating"]


def cast(x: Array, d: dt.DType):
    """The native data of x in dtype d (a conversion on x's device where it differs)."""
    if x._dtype is d:
        return x._data
    return x._device.ops.astype(x._data, d, False)


# ---------------------------------------------------------------------------------------
# Devices, dtypes, shapes, orderings
# ---------------------------------------------------------------------------------------

def resolve_device(device: Any, func: str):
    """The Device for a ``device=`` argument (None: the default device)."""
    return default_device() if device is None else get_device(device, func)


def check_dtype(dtype: Any, device: Any, func: str) -> dt.DType:
    """Validate a dtype argument for ``device`` (TypeError naming both)."""
    if type(dtype) is not dt.DType:
        d = dt.from_numpy(dtype)
        if d is None:
            raise TypeError(f"{func}: dtype must be a numr dtype (like numr.float32) or a "
                            f"numpy.dtype of one, got {dtype!r}{dt.spelling_hint(dtype)}")
        dtype = d
    if dtype not in device.dtypes:
        raise TypeError(f"{func}: dtype {dtype} is not available on device {device}")
    return dtype


def check_cast(src_dtype: dt.DType, dtype: dt.DType, func: str) -> None:
    # Note: the standard says casting complex to real should not be permitted (NumPy
    # drops the imaginary part with a warning); numr asks for real() or imag() instead.
    if src_dtype.kind == "complex" and dtype.kind not in ("complex", "bool"):
        raise TypeError(f"{func}: casting {src_dtype} to {dtype} would discard the "
                        f"imaginary part; use real(x) or imag(x) first")


def ordered(x: Any, func: str) -> Array:
    check_array(x, func)
    if x._dtype.kind == "complex":
        raise TypeError(f"{func}: dtype {x._dtype} is not supported; complex numbers are "
                        f"not ordered; expected a real numeric dtype")
    return x


def check_flag(value: Any, what: str, func: str) -> bool:
    if type(value) is not bool:
        raise TypeError(f"{func}: {what} must be True or False, got {value!r}")
    return value


def search_axis(func: str, x: Any, axis: Any, keepdims: Any) -> int | None:
    """The checked axis of an arg-reduction (argmax, nanargmin, ...): x real and
    ordered, keepdims a bool, the searched extent not empty."""
    ordered(x, func)
    check_flag(keepdims, "keepdims", func)
    if axis is None:
        empty = x.size == 0
    else:
        axis = normalize_axis(axis, x.ndim, func)
        empty = x.shape[axis] == 0
    if empty:
        raise ValueError(f"{func}: cannot search an empty array (shape {x.shape}"
                         f"{'' if axis is None else f', axis {axis}'})")
    return axis


def reduction_args(func: str, x: Any, axis: Any, keepdims: Any) -> tuple[int, ...]:
    check_array(x, func)
    check_bool(keepdims, "keepdims", func)
    return normalize_axes(axis, x.ndim, func)


_UINT_OF_SIZE = {1: dt.uint8, 2: dt.uint16, 4: dt.uint32, 8: dt.uint64}


def accumulation_dtype(func: str, x: Array, dtype: Any) -> dt.DType:
    """The result dtype of sum/prod/cumulative_* of ``x`` with the ``dtype`` argument."""
    d = x._dtype
    dev = x._device
    if dtype is None:
        default = dev.defaults["integral"]
        if d.kind == "bool":
            return default
        if d.kind == "int":
            return default if d.itemsize < default.itemsize else d
        if d.kind == "uint":
            u = _UINT_OF_SIZE[default.itemsize]
            return u if d.itemsize < u.itemsize and u in dev.dtypes else d
        return d
    dtype = check_dtype(dtype, dev, func)
    if dtype.kind == "bool":
        raise TypeError(f"{func}: dtype {dtype} is not supported; expected a numeric dtype")
    if d.kind == "complex" and dtype.kind != "complex":
        raise TypeError(f"{func}: cannot compute a {d} array in the real dtype {dtype}; "
                        f"that would discard the imaginary part")
    return dtype


def broadcast_shape(shapes: Sequence[Sequence[int]], func: str) -> tuple[int, ...]:
    """The shape that all ``shapes`` broadcast to; ValueError naming them if none does."""
    if shapes:
        first = shapes[0]
        for s in shapes:
            if s != first:
                break
        else:  # all the same (the common case): no per-axis loop
            return tuple(first)
    ndim = max((len(s) for s in shapes), default=0)
    out = [1] * ndim
    for s in shapes:
        for i, n in enumerate(s, ndim - len(s)):
            m = out[i]
            if n == m or n == 1:
                continue
            if m != 1:
                raise ValueError(f"{func}: shapes {', '.join(str(tuple(t)) for t in shapes)} "
                                 f"cannot be broadcast together")
            out[i] = n
    return tuple(out)


def same_device(arrays: Sequence[Array], func: str):
    """The device of ``arrays`` (non-empty); ValueError naming two that differ."""
    dev = arrays[0]._device
    for a in arrays:
        if a._device is not dev:
            raise mixed_devices(func, dev, a._device)
    return dev


def check_writable(x: Array, func: str) -> None:
    """ValueError, the same on every device, if ``x`` is a read-only view."""
    if not x._device.ops.writable(x._data):
        raise ValueError(f"{func}: the array is read-only (a view made by broadcast_to or "
                         f"broadcast_arrays, a view of one, or read-only host memory); "
                         f"write into a copy instead")
