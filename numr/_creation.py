"""Creation functions: every one takes ``device=`` (default: the default device) and
``dtype=`` (default: the device's default dtype of the right kind).

Python values given with an explicit dtype follow one rule everywhere (``asarray``,
``full``, ``full_like``): they convert as NumPy, array-api-strict, PyTorch and JAX convert
them (any number to bool by its truth value, a float to an integer truncated towards
zero), and the converted value must fit the dtype (OverflowError; NaN for an integer
dtype is a ValueError). A complex value for a real dtype is a TypeError: the imaginary
part would be lost silently. Without a dtype, Python ints get the default integer dtype
and must fit it (OverflowError), in a list too: ``asarray([2**63])`` and
``asarray([2**63, -1])`` both raise; a list holding a float gets the default float.
"""

from __future__ import annotations

import math
import numbers
import operator
import sys
from collections.abc import Sequence
from typing import Any

import numpy as np  # host-side inference of Python data only; never for computation

from . import _dtypes as dt
from ._array import Array
# DLPack device types numr imports from, and the device kind of each: the registry's.
from .backends import DLPACK_KINDS as _DL_KINDS, device_name as _device_name
from ._checks import check_cast as _check_cast, check_dtype, resolve_device  # noqa: F401
from ._devices import Device, get_device
from ._transfer import convert as _convert, move
from . import _ranges

__all__ = ["arange", "asarray", "empty", "empty_like", "eye", "from_dlpack", "full",
           "full_like", "linspace", "meshgrid", "ones", "ones_like", "tril", "triu",
           "zeros", "zeros_like"]

_MAX_NDIM = 64
_INT_KINDS = ("int", "uint")
# The kinds a Python scalar type may be stored in, by scalar type.
_FITS = {
    bool: ("bool", "int", "uint", "float", "complex"),
    int: ("int", "uint", "float", "complex"),
    float: ("float", "complex"),
    complex: ("complex",),
}
_DEFAULT_KIND = {int: "integral", float: "real floating", complex: "complex floating"}
# The device default that stands in for a dtype of each kind the device lacks.
_DEFAULT_OF_KIND = {"int": "integral", "uint": "integral", "float": "real floating",
                    "complex": "complex floating"}


# ---------------------------------------------------------------------------------------
# Argument checks shared by the creation functions (and used by other modules)
# ---------------------------------------------------------------------------------------

def _check_copy(copy: Any, func: str) -> None:
    if copy is not None and copy is not True and copy is not False:
        raise TypeError(f"{func}: copy must be True, False or None, got {copy!r}")


def _int_arg(value: Any, func: str, name: str) -> int:
    """A Python int from an integer argument (bool and floats are rejected)."""
    if type(value) is int:
        return value
    if isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{func}: {name} must be an integer, got {value!r}")
    try:
        return operator.index(value)
    except TypeError:
        raise TypeError(f"{func}: {name} must be an integer, got {value!r}") from None


def _shape(shape: Any, func: str) -> tuple[int, ...]:
    """A tuple of non-negative ints from an int or a sequence of ints."""
    if type(shape) is tuple and len(shape) <= _MAX_NDIM:  # the common case, as it is
        for n in shape:
            if type(n) is not int or n < 0:
                break
        else:
            return shape
    if isinstance(shape, (tuple, list)):
        dims = tuple(_int_arg(n, func, f"shape {shape!r} entry") for n in shape)
    else:
        try:
            dims = (_int_arg(shape, func, "shape"),)
        except TypeError:
            raise TypeError(f"{func}: shape must be an int or a tuple of ints, "
                            f"got {shape!r}") from None
    if any(n < 0 for n in dims):
        raise ValueError(f"{func}: shape {dims} has a negative dimension")
    if len(dims) > _MAX_NDIM:
        raise ValueError(f"{func}: shape {dims} has {len(dims)} dimensions; at most "
                         f"{_MAX_NDIM} are supported")
    return dims


def _python_scalar(value: Any, func: str, name: str) -> bool | int | float | complex:
    """A Python bool/int/float/complex from a Python or NumPy scalar, or from a 0-d numr
    array (an extension of the standard: NumPy, CuPy and PyTorch take one, and SciPy
    passes them, as in ``arange(1, n + 1, dtype=n.dtype)``; on a GPU its value is read
    back: the result's length or values depend on it on the host)."""
    t = type(value)
    if t in _FITS:
        return value
    if t is Array:
        if value.ndim != 0:
            raise ValueError(f"{func}: {name} must be a scalar or a 0-d array, got an "
                             f"array of shape {value.shape}")
        return _python_scalar(value._device.ops.scalar(value._data), func, name)
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    if isinstance(value, numbers.Integral):
        return operator.index(value)
    if isinstance(value, numbers.Real):
        return float(value)
    if isinstance(value, numbers.Complex):
        return complex(value)
    raise TypeError(f"{func}: {name} must be a Python bool, int, float or complex, "
                    f"got {t.__name__}")


def _scalar_dtype(value: bool | int | float | complex, device: Any, func: str) -> dt.DType:
    """The dtype a Python scalar gets when no dtype is given: bool, or the device's
    default integer/real/complex dtype."""
    t = type(value)
    if t is bool:
        return dt.bool
    d = device.defaults[_DEFAULT_KIND[t]]
    if t is int:
        _check_int_range(value, d, func)
    return d


def _check_int_range(value: int, dtype: dt.DType, func: str) -> None:
    lo, hi = dt.INT_RANGE[dtype]
    if not lo <= value <= hi:
        raise OverflowError(f"{func}: Python int {value} is out of range for {dtype}")


def _fit_scalar(value: bool | int | float | complex, dtype: dt.DType, func: str,
                strict: bool = False):
    """``value`` as the Python type of ``dtype``'s kind, as NumPy converts a Python value
    given with an explicit dtype: any number to bool by its truth value, a float to an
    integer truncated towards zero; the result must fit (OverflowError; NaN is a
    ValueError). A complex value for a real dtype is a TypeError (the imaginary part would
    be lost silently)."""
    t = type(value)
    kind = dtype.kind
    if strict and kind not in _FITS[t]:
        # the dtype was not asked for (full_like's is x's): no conversion down a kind
        raise TypeError(f"{func}: Python {t.__name__} {value!r} cannot be stored in "
                        f"dtype {dtype} without losing information; pass dtype= to "
                        f"convert it")
    if kind == "bool":
        return bool(value)
    if t is complex and kind != "complex":
        raise TypeError(f"{func}: Python complex {value!r} cannot be stored in dtype "
                        f"{dtype} without losing its imaginary part")
    if kind in ("int", "uint"):
        if t is float:
            if value != value:
                raise ValueError(f"{func}: Python float nan cannot be converted to {dtype}")
            if value in (math.inf, -math.inf):
                raise OverflowError(f"{func}: Python float {value} is out of range for "
                                    f"{dtype}")
        value = int(value)
        _check_int_range(value, dtype, func)
        return value
    if kind == "float":
        try:
            return float(value)
        except OverflowError:
            raise OverflowError(f"{func}: Python int {value} is too large for {dtype}") from None
    if kind == "complex":
        try:
            return complex(value)
        except OverflowError:
            raise OverflowError(f"{func}: Python int {value} is too large for {dtype}") from None
    return value


def _check_scalars_fit(obj: Any, dtype: dt.DType, func: str = "asarray") -> None:
    """Every Python scalar in a nested sequence fits ``dtype`` (see _fit_scalar)."""
    if isinstance(obj, (list, tuple)):
        for o in obj:
            _check_scalars_fit(o, dtype, func)
    elif type(obj) in _FITS:
        _fit_scalar(obj, dtype, func)


def _array_arg(x: Any, func: str) -> Array:
    if type(x) is not Array:
        raise TypeError(f"{func}: expected a numr array, got {type(x).__name__}")
    return x


# ---------------------------------------------------------------------------------------
# asarray
# ---------------------------------------------------------------------------------------

def asarray(obj: Any, /, *, dtype: dt.DType | None = None, device: Device | str | None = None,
            copy: bool | None = None) -> Array:
    """An array from an Array, a Python scalar, a nested sequence, or a buffer.

    ``copy=True`` always copies, ``copy=False`` never does (ValueError if it must),
    ``copy=None`` copies only when needed.
    """
    if type(obj) is np.ndarray and dtype is None and copy is None:
        # the common case, as the general path below ends for it: a NumPy array of a
        # dtype the device holds, in native byte order, taken as it is
        dev = resolve_device(device, "asarray")
        d = dt.by_numpy(obj.dtype)
        if d is not None and d in dev.dtypes and obj.dtype.isnative:
            if d.kind in _INT_KINDS:  # (see _ranges)
                return _ranges.note_host(Array._new(dev.ops.from_host(obj), d, dev), obj)
            return Array._new(dev.ops.from_host(obj), d, dev)
    _check_copy(copy, "asarray")
    if type(obj) is Array:
        return _from_array(obj, dtype, device, copy, "asarray")
    dev = resolve_device(device, "asarray")
    if dtype is not None:
        dtype = check_dtype(dtype, dev, "asarray")
    if isinstance(obj, (bytes, bytearray)):
        obj = memoryview(obj)  # a buffer of bytes, not a NumPy string scalar
    elif isinstance(obj, (list, tuple)):
        obj = _hostify(obj)
    host_data = hasattr(obj, "__array_interface__") or hasattr(obj, "__array__") \
        or isinstance(obj, memoryview) or _has_buffer(obj)
    if not host_data and not isinstance(obj, Sequence) and _as_number(obj) is None:
        raise TypeError(f"asarray: cannot make an array of type {type(obj).__name__} "
                        f"({_short(obj)}); expected a numr array, a Python or NumPy "
                        f"scalar, a nested sequence of them, or an object with "
                        f"__array__ or a buffer")
    if copy is False and (not host_data or dev.kind != "cpu"):
        raise ValueError(f"asarray: copy=False, but making an array of "
                         f"{type(obj).__name__} on {dev} needs a copy")
    if dtype is None:
        h = _infer_host(obj, dev, host_data, copy)
    else:
        h = _host_with_dtype(obj, dtype, copy)
    if not h.dtype.isnative:
        # Note: big-endian (non-native) data is stored in native byte order on every
        # device; the device kernels and DLPack know only the native order.
        if copy is False:
            raise ValueError(f"asarray: copy=False, but data of byte order "
                             f"{h.dtype.str!r} must be copied into the native order")
        h = h.astype(h.dtype.newbyteorder("="))
    elif copy and dev.kind == "cpu" and host_data and np.shares_memory(h, np.asarray(obj)):
        h = h.copy()
    return _ranges.note_host(Array._new(dev.ops.from_host(h), dt.by_numpy(h.dtype), dev), h)


def _as_number(obj: Any):
    """``obj`` if it is a Python or NumPy scalar, else None."""
    return obj if isinstance(obj, (bool, int, float, complex, np.generic)) else None


def _first_non_number(seq: Any) -> tuple | None:
    """``(element,)`` for the first element of a nested sequence that is not a number
    (None when all are)."""
    for e in seq:
        if isinstance(e, (list, tuple)):
            r = _first_non_number(e)
            if r is not None:
                return r
        elif _as_number(e) is None and not isinstance(e, np.ndarray):
            return (e,)
    return None


def _all_ints(seq: Any) -> bool:
    """Whether every scalar of a nested sequence is a Python (or NumPy) integer/bool."""
    for e in seq:
        if isinstance(e, (list, tuple)):
            if not _all_ints(e):
                return False
        elif not isinstance(e, (numbers.Integral, np.bool_)):
            return False
    return True


def _hostify(seq: Any) -> Any:
    """A nested sequence with its numr Arrays (on any device) replaced by host copies,
    so that NumPy can read it; sequences without Arrays come back as they are."""
    out = None
    for i, e in enumerate(seq):
        if type(e) is Array:
            h = e._device.ops.to_host(e._data)
        elif isinstance(e, (list, tuple)):
            h = _hostify(e)
        else:
            continue
        if h is not e:
            if out is None:
                out = list(seq)
            out[i] = h
    return seq if out is None else out


def _has_buffer(obj: Any) -> bool:
    if isinstance(obj, (list, tuple, bool, int, float, complex, str)):
        return False
    try:
        memoryview(obj)
    except TypeError:
        return False
    return True


def _host_array(obj: Any, func: str, **kwargs) -> np.ndarray:
    try:
        return np.asarray(obj, **kwargs)
    except OverflowError:
        raise OverflowError(f"{func}: a Python int in {_short(obj)} is out of range") from None
    except ValueError as e:
        raise ValueError(f"{func}: cannot make an array of {_short(obj)}: {e}") from None
    except TypeError as e:
        raise TypeError(f"{func}: cannot make an array of {_short(obj)}: {e}") from None


def _short(obj: Any) -> str:
    r = repr(obj)
    return r if len(r) <= 60 else r[:57] + "..."


def _infer_host(obj: Any, device: Any, host_data: bool, copy: bool | None) -> np.ndarray:
    """A NumPy array of ``obj`` with the dtype numr infers for it on ``device``.

    Python data gets the device's default dtypes. Arrays and buffers keep their dtype;
    one the device does not hold is a TypeError naming both (no silent narrowing).
    """
    h = _host_array(obj, "asarray", copy=False if copy is False else None)
    d = dt.by_numpy(h.dtype)
    if d is None:
        if h.dtype.kind == "O" and not host_data:
            bad = _first_non_number(obj) if isinstance(obj, (list, tuple)) else (obj,)
            if bad is not None:
                raise TypeError(f"asarray: cannot make an array of {_short(obj)}: it holds "
                                f"an element of type {type(bad[0]).__name__}, not a number")
            raise OverflowError(f"asarray: a Python int in {_short(obj)} is out of the "
                                f"int64 range")
        raise TypeError(f"asarray: cannot make an array of {_short(obj)} (NumPy dtype "
                        f"{h.dtype}); numr has no such dtype")
    if host_data:
        if d not in device.dtypes:
            raise TypeError(f"asarray: dtype {d} is not available on device {device}; "
                            f"pass dtype= to convert")
        return h
    if d is dt.uint64 or (d is dt.float64 and h.size and _int_beyond_int64(h, obj)):
        # NumPy stores a Python int above the int64 range as uint64 (as float64 next to
        # a negative int); numr's rule is one: Python ints must fit the default integer.
        raise OverflowError(f"asarray: a Python int in {_short(obj)} is out of the "
                            f"int64 range")
    target = d if d.kind == "bool" else device.defaults[_DEFAULT_OF_KIND[d.kind]]
    if target is d:
        return h
    if target.kind == "int" and d.kind in ("int", "uint") and h.size:
        lo, hi = dt.INT_RANGE[target]
        if h.min() < lo or h.max() > hi:
            raise OverflowError(f"asarray: a value in {_short(obj)} is out of range for "
                                f"{target}, the default integer dtype of {device}")
    return h.astype(target.name)


def _int_beyond_int64(h: np.ndarray, obj: Any) -> bool:
    """Whether float64 data NumPy made from Python data came from ints alone, one of them
    beyond the int64 range (NumPy's float64 for ``[2**63, -1]``)."""
    big = float(2**63)
    with np.errstate(invalid="ignore"):
        if not (h.max() >= big or h.min() < -big):
            return False
    return isinstance(obj, (list, tuple)) and _all_ints(obj)


def _host_with_dtype(obj: Any, dtype: dt.DType, copy: bool | None) -> np.ndarray:
    if isinstance(obj, (list, tuple)) or type(obj) in _FITS:
        _check_scalars_fit(obj, dtype, "asarray")
    if isinstance(obj, np.ndarray) or isinstance(obj, np.generic):
        src = dt.by_numpy(obj.dtype)
        if src is not None:
            _check_cast(src, dtype, "asarray")
            if obj.dtype.kind == "f" and dtype.kind in ("int", "uint"):
                # numr's rule for floats beyond the integer range (saturation, NaN to
                # 0; see README, Semantics), not NumPy's undefined cast
                if copy is False:
                    raise ValueError(f"asarray: copy=False, but converting to {dtype} "
                                     f"needs a copy")
                return get_device("cpu").ops.astype(np.asarray(obj), dtype, True)
    try:
        return np.asarray(obj, dtype=dtype.name, copy=False if copy is False else None)
    except ValueError as e:
        if copy is False:
            raise ValueError(f"asarray: copy=False, but converting to {dtype} needs "
                             f"a copy") from None
        raise ValueError(f"asarray: cannot convert {_short(obj)} to {dtype}: {e}") from None
    except (OverflowError, TypeError) as e:
        raise type(e)(f"asarray: cannot convert {_short(obj)} to {dtype}: {e}") from None


def _from_array(x: Array, dtype: Any, device: Any, copy: bool | None, func: str) -> Array:
    src = x._device
    dev = src if device is None else get_device(device, func)
    target = x._dtype if dtype is None else check_dtype(dtype, dev, func)
    if target not in dev.dtypes:
        raise TypeError(f"{func}: dtype {target} is not available on device {dev}")
    if dev is src and target is x._dtype and not copy:
        return x
    if copy is False:
        what = f"moving from {src} to {dev}" if dev is not src else \
            f"converting {x._dtype} to {target}"
        raise ValueError(f"{func}: copy=False, but {what} needs a copy")
    _check_cast(x._dtype, target, func)
    return Array._new(_convert(x._data, x._dtype, src, target, dev, True), target, dev)


# ---------------------------------------------------------------------------------------
# Filled arrays
# ---------------------------------------------------------------------------------------

def allocate(func: str, dims: tuple, d: dt.DType, dev: Any, make: Any, *args) -> Any:
    """``make(*args)``, the backend call that allocates an array of ``dims`` and dtype
    ``d`` on ``dev``; one MemoryError naming the function and the size on every device
    (NumPy's own is its internal _ArrayMemoryError, or a ValueError past its index
    range)."""
    nbytes = math.prod(dims) * d.itemsize
    if nbytes > sys.maxsize:
        raise MemoryError(f"{func}: an array of shape {dims} and dtype {d} needs {nbytes} "
                          f"bytes, more than {dev} can address")
    # Where the system overcommits memory (the H200's host does), NumPy's empty of terabytes
    # succeeds and the fill that follows is killed by the OOM killer: beyond the device's
    # whole memory, refuse first. Only large requests pay for the query.
    total = dev.total_memory if nbytes > 1 << 30 else None
    if total is not None and nbytes > total:
        raise MemoryError(f"{func}: an array of shape {dims} and dtype {d} needs {nbytes} "
                          f"bytes, more than {dev}'s {total} bytes of memory")
    try:
        return make(*args)
    except MemoryError:
        raise MemoryError(f"{func}: cannot allocate {nbytes} bytes for an array of shape "
                          f"{dims} and dtype {d} on {dev}") from None


def _filled(op: str, func: str, shape: Any, dtype: Any, device: Any) -> Array:
    dims = _shape(shape, func)
    dev = resolve_device(device, func)
    d = dev.defaults["real floating"] if dtype is None else check_dtype(dtype, dev, func)
    return Array._new(allocate(func, dims, d, dev, getattr(dev.ops, op), dims, d), d, dev)


def empty(shape: int | tuple[int, ...], *, dtype: dt.DType | None = None,
          device: Device | str | None = None) -> Array:
    """An uninitialised array of ``shape`` (default dtype: the default real float)."""
    return _filled("empty", "empty", shape, dtype, device)


def zeros(shape: int | tuple[int, ...], *, dtype: dt.DType | None = None,
          device: Device | str | None = None) -> Array:
    """An array of ``shape`` filled with zeros (default dtype: the default real float)."""
    return _filled("zeros", "zeros", shape, dtype, device)


def ones(shape: int | tuple[int, ...], *, dtype: dt.DType | None = None,
         device: Device | str | None = None) -> Array:
    """An array of ``shape`` filled with ones (default dtype: the default real float)."""
    return _filled("ones", "ones", shape, dtype, device)


def full(shape: int | tuple[int, ...], fill_value: bool | int | float | complex | Array, *,
         dtype: dt.DType | None = None, device: Device | str | None = None) -> Array:
    """An array of ``shape`` filled with ``fill_value``; the dtype defaults to the one
    the fill value's Python type gets (bool, default integer, real or complex float).

    Extension (as NumPy's ``full``): ``fill_value`` may be a 0-d numr array; the result
    then has its dtype (unless ``dtype`` is given, to which it is cast) and its device
    (unless ``device`` is given), filled on the device without a round trip through the
    host. Any other shape is a ValueError."""
    dims = _shape(shape, "full")
    if isinstance(fill_value, Array):
        return _full_of_array(dims, fill_value, dtype, device)
    dev = resolve_device(device, "full")
    value = _python_scalar(fill_value, "full", "fill_value")
    if dtype is None:
        d = _scalar_dtype(value, dev, "full")
    else:
        d = check_dtype(dtype, dev, "full")
    value = _fit_scalar(value, d, "full")
    return Array._new(allocate("full", dims, d, dev, dev.ops.full, dims, value, d), d, dev)


def _full_of_array(dims: tuple, fill: Array, dtype: Any, device: Any,
                   func: str = "full") -> Array:
    """full with a 0-d array as the fill, as NumPy's takes one (SciPy passes them): the
    fill's dtype unless one is given (cast as astype casts), on the fill's device unless
    one is given (then moved there, as asked), and never through the host."""
    if fill.ndim != 0:
        raise ValueError(f"{func}: fill_value must be a scalar or a 0-d array, got an "
                         f"array of shape {fill.shape}")
    dev = fill._device if device is None else get_device(device, func)
    d = fill._dtype if dtype is None else check_dtype(dtype, dev, func)
    if fill._device is not dev:
        fill = fill.to_device(dev)
    src = fill._data if fill._dtype is d else dev.ops.astype(fill._data, d, True)
    out = allocate("full", dims, d, dev, dev.ops.empty, dims, d)
    dev.ops.assign(out, src)
    return Array._new(out, d, dev)


def _like(op: str, func: str, x: Any, dtype: Any, device: Any, *fill: Any) -> Array:
    """``op`` for the shape of ``x``, on x's device and with x's dtype unless given."""
    x = _array_arg(x, func)
    dev = x._device if device is None else get_device(device, func)
    d = check_dtype(x._dtype if dtype is None else dtype, dev, func)
    if fill:
        fill = (_fit_scalar(_python_scalar(fill[0], func, "fill_value"), d, func,
                            strict=dtype is None),)
    dims = tuple(x._data.shape)
    if dev is x._device:
        r = allocate(func, dims, d, dev, getattr(dev.ops, op + "_like"), x._data, *fill, d)
    else:
        r = allocate(func, dims, d, dev, getattr(dev.ops, op), dims, *fill, d)
    return Array._new(r, d, dev)


def empty_like(x: Array, /, *, dtype: dt.DType | None = None,
               device: Device | str | None = None) -> Array:
    """An uninitialised array with the shape of ``x`` (and its dtype and device)."""
    return _like("empty", "empty_like", x, dtype, device)


def zeros_like(x: Array, /, *, dtype: dt.DType | None = None,
               device: Device | str | None = None) -> Array:
    """Zeros with the shape of ``x`` (and its dtype and device unless given)."""
    return _like("zeros", "zeros_like", x, dtype, device)


def ones_like(x: Array, /, *, dtype: dt.DType | None = None,
              device: Device | str | None = None) -> Array:
    """Ones with the shape of ``x`` (and its dtype and device unless given)."""
    return _like("ones", "ones_like", x, dtype, device)


def full_like(x: Array, /, fill_value: bool | int | float | complex, *,
              dtype: dt.DType | None = None, device: Device | str | None = None,
              shape: int | tuple[int, ...] | None = None) -> Array:
    """``fill_value`` with the shape of ``x`` (and its dtype and device unless given).

    Note: ``shape=`` (NumPy's and JAX's extension, which Cubed uses) gives that shape
    instead of x's. As an extension (NumPy's), ``fill_value`` may be a 0-d numr array,
    cast to the result's dtype as astype casts and filled on the device.
    """
    filler = type(fill_value) is Array
    if shape is None and not filler:
        return _like("full", "full_like", x, dtype, device, fill_value)
    x = _array_arg(x, "full_like")
    dev = x._device if device is None else get_device(device, "full_like")
    d = check_dtype(x._dtype if dtype is None else dtype, dev, "full_like")
    dims = tuple(x._data.shape) if shape is None else _shape(shape, "full_like")
    if filler:  # a 0-d array (SciPy passes them): filled on the device, as full does
        return _full_of_array(dims, fill_value, d, dev, "full_like")
    _fit_scalar(_python_scalar(fill_value, "full_like", "fill_value"), d, "full_like")
    return full(dims, fill_value, dtype=d, device=dev)


def eye(n_rows: int, n_cols: int | None = None, /, *, k: int = 0,
        dtype: dt.DType | None = None, device: Device | str | None = None) -> Array:
    """A 2-D array with ones on the ``k``-th diagonal and zeros elsewhere."""
    rows = _int_arg(n_rows, "eye", "n_rows")
    cols = rows if n_cols is None else _int_arg(n_cols, "eye", "n_cols")
    k = _int_arg(k, "eye", "k")
    if rows < 0 or cols < 0:
        raise ValueError(f"eye: n_rows and n_cols must be non-negative, got {rows} and {cols}")
    dev = resolve_device(device, "eye")
    d = dev.defaults["real floating"] if dtype is None else check_dtype(dtype, dev, "eye")
    # A diagonal outside the matrix leaves it all zeros; clamping keeps k a small int.
    k = max(-rows, min(k, cols))
    return Array._new(allocate("eye", (rows, cols), d, dev, dev.ops.eye, rows, cols, k, d),
                      d, dev)


# ---------------------------------------------------------------------------------------
# Ranges
# ---------------------------------------------------------------------------------------

def _real_arg(value: Any, func: str, name: str) -> int | float:
    v = _python_scalar(value, func, name)
    if type(v) is bool or type(v) is complex:
        raise TypeError(f"{func}: {name} must be an int or a float, got {value!r}")
    if type(v) is float and not math.isfinite(v):
        raise ValueError(f"{func}: {name} must be finite, got {v}")
    return v


def arange(start: int | float, /, stop: int | float | None = None, step: int | float = 1, *,
           dtype: dt.DType | None = None, device: Device | str | None = None) -> Array:
    """Evenly spaced values in ``[start, stop)`` (``[0, start)`` without ``stop``).

    The length is ``ceil((stop - start) / step)`` (0 when that is negative); integer
    arguments give the default integer dtype, a float argument the default real float.
    As an extension (NumPy's), an argument may be a 0-d numr array: its value is read
    (back from a GPU) and taken as that Python scalar would be.
    """
    if (type(start) is int and start >= 0 and stop is None and type(step) is int
            and step == 1 and dtype is None):
        # arange(n), the commonest call: the general path's steps for it, written out
        dev = resolve_device(device, "arange")
        d = dev.defaults["integral"]
        if start:
            _check_int_range(start - 1, d, "arange")
        r = Array._new(allocate("arange", (start,), d, dev, dev.ops.arange, 0, start, 1, d),
                       d, dev)
        return _ranges.note(r, 0, start - 1) if start else r
    args = [_real_arg(start, "arange", "start"), None if stop is None else
            _real_arg(stop, "arange", "stop"), _real_arg(step, "arange", "step")]
    if args[1] is None:
        args[:2] = [0, args[0]]
    start, stop, step = args
    if step == 0:
        raise ValueError("arange: step must not be 0")
    dev = resolve_device(device, "arange")
    all_int = all(type(a) is int for a in args)
    if dtype is None:
        d = dev.defaults["integral" if all_int else "real floating"]
    else:
        d = check_dtype(dtype, dev, "arange")
        if d.kind == "bool":
            raise TypeError(f"arange: dtype {d} is not supported; expected a numeric dtype")
    # a complex range is the real range of the same precision (the arguments are real)
    cd, d = d, dt.REAL_OF.get(d, d)
    if d.kind == "float":
        start, stop, step = float(start), float(stop), float(step)
        q = (stop - start) / step
        if not math.isfinite(q):
            raise ValueError(f"arange: ({start}, {stop}, {step}) gives too many elements "
                             f"for one array")
        n = max(math.ceil(q), 0)
    else:
        if not all_int:
            raise TypeError(f"arange: float arguments ({start}, {stop}, {step}) given "
                            f"for integer dtype {d}")
        n = len(range(start, stop, step))
        if n:
            # the first and the last value must fit (stop itself need not)
            _check_int_range(start, d, "arange")
            _check_int_range(start + (n - 1) * step, d, "arange")
        if n <= 1:
            # one value or none: the step and the far end do not matter, so they need
            # not fit the dtype either
            start = start if n else 0
            stop, step = start + n, 1
    if cd is not d:
        return Array._new(allocate("arange", (n,), cd, dev, _complex_range, dev, start, stop,
                                   step, d, cd), cd, dev)
    r = Array._new(allocate("arange", (n,), d, dev, dev.ops.arange, start, stop, step, d),
                   d, dev)
    if n and d.kind in _INT_KINDS:
        _ranges.note(r, *sorted((start, start + (n - 1) * step)))
    return r


def _complex_range(dev: Any, start: Any, stop: Any, step: Any, rd: dt.DType,
                   d: dt.DType) -> Any:
    """arange with a complex dtype: the real range, converted (imaginary parts 0)."""
    return dev.ops.astype(dev.ops.arange(start, stop, step, rd), d, False)


def linspace(start: int | float | complex, stop: int | float | complex, /, num: int, *,
             dtype: dt.DType | None = None, device: Device | str | None = None,
             endpoint: bool = True) -> Array:
    """``num`` evenly spaced values from ``start`` to ``stop`` (included if endpoint).

    As an extension (NumPy's), ``start`` and ``stop`` may be 0-d numr arrays: their values
    are read (back from a GPU) and taken as those Python scalars would be."""
    a = _python_scalar(start, "linspace", "start")
    b = _python_scalar(stop, "linspace", "stop")
    for name, v in (("start", a), ("stop", b)):
        if type(v) is bool:
            raise TypeError(f"linspace: {name} must be an int, float or complex, got {v!r}")
    num = _int_arg(num, "linspace", "num")
    if num < 0:
        raise ValueError(f"linspace: num must be non-negative, got {num}")
    if type(endpoint) is not bool:
        raise TypeError(f"linspace: endpoint must be a bool, got {endpoint!r}")
    dev = resolve_device(device, "linspace")
    is_complex = type(a) is complex or type(b) is complex
    if dtype is None:
        d = dev.defaults["complex floating" if is_complex else "real floating"]
    else:
        d = check_dtype(dtype, dev, "linspace")
        if d.kind == "bool":
            raise TypeError("linspace: dtype numr.bool is not supported; expected a numeric dtype")
    # Note: like NumPy, an integer dtype is accepted (values rounded towards -inf);
    # the ends are then computed as floats, so they are checked as floats.
    work = d if d.kind in ("float", "complex") else dt.float64
    a, b = _fit_scalar(a, work, "linspace"), _fit_scalar(b, work, "linspace")
    return Array._new(allocate("linspace", (num,), d, dev, dev.ops.linspace, a, b, num, d,
                               endpoint), d, dev)


# ---------------------------------------------------------------------------------------
# Grids and triangles
# ---------------------------------------------------------------------------------------

def meshgrid(*arrays: Array, indexing: str = "xy") -> tuple[Array, ...]:
    """Coordinate arrays from 1-D coordinate vectors (``indexing`` 'xy' or 'ij')."""
    if indexing not in ("xy", "ij"):
        raise ValueError(f"meshgrid: indexing must be 'xy' or 'ij', got {indexing!r}")
    if not arrays:
        return ()
    for i, x in enumerate(arrays):
        _array_arg(x, "meshgrid")
        if x.ndim != 1:
            raise ValueError(f"meshgrid: arrays must be 1-D; argument {i} has shape {x.shape}")
    dev = arrays[0]._device
    for x in arrays[1:]:
        if x._device is not dev:
            raise ValueError(f"meshgrid: arrays are on different devices, {dev} and "
                             f"{x._device}; move one with to_device()")
    # Note: like NumPy, each output keeps the dtype of its input (the standard asks for
    # inputs of one dtype and leaves the mixed case open).
    out = dev.ops.meshgrid(*(x._data for x in arrays), indexing=indexing)
    return tuple(Array._new(r, x._dtype, dev) for r, x in zip(out, arrays))


def _triangle(func: str, x: Any, k: Any) -> Array:
    x = _array_arg(x, func)
    k = _int_arg(k, func, "k")
    if x.ndim < 2:
        raise ValueError(f"{func}: x must have at least 2 dimensions, got shape {x.shape}")
    rows, cols = x._data.shape[-2:]
    # A diagonal outside the matrix keeps all or nothing; clamping keeps k a small int.
    k = max(-rows - 1, min(k, cols + 1))
    return Array._new(getattr(x._device.ops, func)(x._data, k), x._dtype, x._device)


def tril(x: Array, /, *, k: int = 0) -> Array:
    """The lower triangle (on and below diagonal ``k``) of each matrix in ``x``."""
    return _triangle("tril", x, k)


def triu(x: Array, /, *, k: int = 0) -> Array:
    """The upper triangle (on and above diagonal ``k``) of each matrix in ``x``."""
    return _triangle("triu", x, k)


# ---------------------------------------------------------------------------------------
# DLPack
# ---------------------------------------------------------------------------------------



def from_dlpack(x: Any, /, *, device: Device | str | None = None,
                copy: bool | None = None) -> Array:
    """An array with the data of a DLPack producer (a numr Array, a NumPy array, ...).

    Without ``device`` the result stays on the producer's device; with another device
    the data is copied there (ValueError if ``copy=False``).
    """
    _check_copy(copy, "from_dlpack")
    if type(x) is Array:
        return _from_array(x, None, device, copy, "from_dlpack")
    if not hasattr(x, "__dlpack__") or not hasattr(x, "__dlpack_device__"):
        raise TypeError(f"from_dlpack: {type(x).__name__} does not support DLPack "
                        f"(no __dlpack__/__dlpack_device__)")
    where = x.__dlpack_device__()
    try:
        dl_type, dl_index = where
        dl_type, dl_index = int(dl_type), int(dl_index)
    except (TypeError, ValueError):
        raise TypeError(f"from_dlpack: {type(x).__name__}.__dlpack_device__() returned "
                        f"{_short(where)}; expected (device type, index) ints") from None
    kind = _DL_KINDS.get(dl_type)
    if kind is None:
        raise BufferError(f"from_dlpack: numr cannot import data from DLPack device "
                          f"type {int(dl_type)}")
    try:
        src = get_device(_device_name(kind, int(dl_index)), "from_dlpack")
    except ValueError as e:
        raise BufferError(str(e)) from None
    dev = src if device is None else get_device(device, "from_dlpack")
    if dev is not src and copy is False:
        raise ValueError(f"from_dlpack: copy=False, but moving from {src} to {dev} "
                         f"needs a copy")
    # copy=True is an import and then a copy: CuPy's from_dlpack copies only to the host.
    try:
        data = src.ops.from_dlpack(x, False if copy is False else None)
    except (TypeError, ValueError, AttributeError) as e:
        # a producer whose __dlpack__ gives no valid capsule
        raise TypeError(f"from_dlpack: {type(x).__name__}.__dlpack__() gave no valid DLPack "
                        f"capsule ({e})") from None
    d = dt.BY_NAME.get(getattr(data.dtype, "name", str(data.dtype)))
    if d is None or d not in src.dtypes:
        raise BufferError(f"from_dlpack: numr has no dtype for {data.dtype} on {src}")
    if dev is not src:
        if d not in dev.dtypes:
            raise TypeError(f"from_dlpack: dtype {d} is not available on device {dev}")
        data = move(data, src, dev)
    elif copy:
        data = dev.ops.astype(data, d, True)
    return Array._new(data, d, dev)
