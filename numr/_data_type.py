"""Data type functions: astype, can_cast, finfo, iinfo, isdtype, result_type.

Promotion is numr's one table (``numr._dtypes.PROMOTE``), never the backend's rules.
Where arrays are given, the promotion graph is the one of their device: a device that
lacks a dtype (float64 on a WebGPU adapter without shader-f64) can neither cast to it
nor promote to it; promotion then stops at the widest dtype of that kind the device has.
"""

from __future__ import annotations

from typing import Any

from . import _dtypes as dt
from ._array import Array
from ._checks import check_cast as _check_cast, check_dtype, scalar_operand_dtype
from ._devices import Device, default_device, get_device
from ._transfer import convert as _convert

__all__ = ["astype", "can_cast", "finfo", "iinfo", "isdtype", "result_type"]


def _dtype_arg(value: Any, func: str, name: str = "dtype") -> dt.DType:
    if type(value) is not dt.DType:
        d = dt.from_numpy(value)
        if d is None:
            raise TypeError(f"{func}: {name} must be a numr dtype (like numr.float32) or a "
                            f"numpy.dtype of one, got {value!r}{dt.spelling_hint(value)}")
        return d
    return value


# ---------------------------------------------------------------------------------------
# astype
# ---------------------------------------------------------------------------------------

def astype(x: Array, dtype: dt.DType, /, *, copy: bool = True,
           device: Device | str | None = None) -> Array:
    """``x`` converted to ``dtype`` (and moved to ``device`` if given).

    ``copy=False`` returns ``x`` itself when nothing needs to change.
    """
    if type(x) is not Array:
        raise TypeError(f"astype: expected a numr array, got {type(x).__name__}")
    dtype = _dtype_arg(dtype, "astype")
    if copy is not True and copy is not False:
        raise TypeError(f"astype: copy must be True or False, got {copy!r}")
    src = x._device
    dev = src if device is None else get_device(device, "astype")
    check_dtype(dtype, dev, "astype")
    _check_cast(x._dtype, dtype, "astype")
    if dev is src and dtype is x._dtype and not copy:
        return x
    return Array._new(_convert(x._data, x._dtype, src, dtype, dev, True), dtype, dev)


# ---------------------------------------------------------------------------------------
# Promotion
# ---------------------------------------------------------------------------------------

def promote_on(a: dt.DType, b: dt.DType, device: Device | None) -> dt.DType:
    """The promotion of ``a`` and ``b`` in ``device``'s promotion graph: the table's
    result where the device holds it, else the widest dtype of that kind it holds."""
    d = dt.PROMOTE[a, b]
    if device is None or d in device.dtypes:
        return d
    held = [h for h in device.dtypes if h.kind == d.kind and h.standard]
    if not held:
        raise TypeError(f"promotion of {a} and {b} gives {d}, and device {device} holds "
                        f"no {d.kind} dtype")
    return max(held, key=lambda h: h.itemsize)


class _Together:
    """Several devices as one promotion graph: the dtypes every one of them holds, and
    the defaults of the first (a Python scalar joins as it would on that device)."""

    __slots__ = ("dtypes", "defaults")

    def __init__(self, a: Any, b: Any):
        self.dtypes = a.dtypes & b.dtypes
        self.defaults = a.defaults

    def __str__(self) -> str:
        return "the arrays' devices together"


def _python_scalar(value: Any) -> Any:
    """A Python bool/int/float/complex from a Python or NumPy scalar, else None."""
    t = type(value)
    if t in _SCALARS:
        return value
    for st in _SCALARS:
        if isinstance(value, st):
            return st(value)  # a subclass such as NumPy's float64
    if t.__module__ == "numpy" and getattr(value, "shape", None) == ():
        return value.item()
    return None


_SCALARS = (bool, int, float, complex)


_KINDS = ("bool", "uint", "int", "float", "complex")


def _kind_order(d: dt.DType) -> tuple[int, int]:
    return (_KINDS.index(d.kind), d.itemsize)


def result_type(*arrays_and_dtypes: Array | dt.DType | bool | int | float | complex) -> dt.DType:
    """The dtype that promotion gives for arrays, dtypes and Python scalars.

    Arrays and dtypes are promoted together first (in their device's graph when arrays
    are given), then each Python scalar joins as in ``array op scalar``; at least one
    array or dtype is needed.
    """
    device = None
    dtypes = []
    scalars = []
    for a in arrays_and_dtypes:
        if type(a) is Array:
            # Note: result_type is about dtypes; arrays on different devices are fine
            # (SciPy promotes before it moves one array to the other's device). The
            # promotion graph is then the one of the devices together.
            if device is None:
                device = a._device
            elif a._device is not device:
                device = _Together(device, a._device)
            dtypes.append(a._dtype)
        elif type(a) is dt.DType:
            dtypes.append(a)
        elif dt.from_numpy(a) is not None:
            dtypes.append(dt.from_numpy(a))
        else:
            s = _python_scalar(a)
            if s is None:
                raise TypeError(f"result_type: expected arrays, dtypes or Python scalars, "
                                f"got {type(a).__name__}")
            scalars.append(s)
    if not dtypes:
        raise ValueError("result_type: at least one array or dtype is required")
    # Note: promotion across kinds (NumPy's rule) is not associative (int8, uint16 and
    # float32 give float32 or float64 by grouping), so the dtypes are promoted in one
    # fixed order, kind by kind from bool to complex: the answer never depends on the
    # order of the arguments, and integers widen before meeting a float.
    dtypes.sort(key=_kind_order)
    d = dtypes[0]
    for other in dtypes[1:]:
        d = promote_on(d, other, device)
    for s in scalars:
        d = scalar_operand_dtype("result_type", d, s, device or default_device())
    return d


def can_cast(from_: dt.DType | Array, to: dt.DType, /) -> bool:
    """Whether promotion allows ``from_`` to become ``to`` (``PROMOTE[from_, to] is to``).

    For an array, ``to`` must also be held by the array's device.
    """
    to = _dtype_arg(to, "can_cast", "to")
    if type(from_) is Array:
        if to not in from_._device.dtypes:
            return False
        return promote_on(from_._dtype, to, from_._device) is to
    from_ = _dtype_arg(from_, "can_cast", "from_")
    return dt.PROMOTE[from_, to] is to


# ---------------------------------------------------------------------------------------
# isdtype
# ---------------------------------------------------------------------------------------

def isdtype(dtype: dt.DType, kind: dt.DType | str | tuple[dt.DType | str, ...]) -> bool:
    """Whether ``dtype`` is ``kind`` (a dtype), of ``kind`` (a kind name), or either
    for one entry of a tuple of them."""
    dtype = _dtype_arg(dtype, "isdtype")
    kinds = kind if type(kind) is tuple else (kind,)
    for k in kinds:
        k = dt.from_numpy(k) or k
        if type(k) is dt.DType:
            if k is dtype:
                return True
        elif isinstance(k, str):
            members = dt.ISDTYPE_KINDS.get(k)
            if members is None:
                raise ValueError(f"isdtype: unknown kind {k!r}; expected a dtype or one of "
                                 f"{sorted(dt.ISDTYPE_KINDS)}")
            if dtype in members:
                return True
        else:
            raise TypeError(f"isdtype: kind must be a dtype, a kind name or a tuple of "
                            f"them, got {k!r}")
    return False


# ---------------------------------------------------------------------------------------
# finfo / iinfo
# ---------------------------------------------------------------------------------------

class finfo_object:
    """Machine limits of a floating-point dtype (of its real component, for complex)."""

    __slots__ = ("bits", "eps", "max", "min", "smallest_normal", "dtype")
    __module__ = "numr"
    bits: int
    eps: float
    max: float
    min: float
    smallest_normal: float
    dtype: dt.DType

    def __init__(self, limits: dict[str, Any], dtype: dt.DType):
        self.bits = int(limits["bits"])
        self.eps = float(limits["eps"])
        self.max = float(limits["max"])
        self.min = float(limits["min"])
        self.smallest_normal = float(limits["smallest_normal"])
        self.dtype = dtype

    @property
    def tiny(self) -> float:
        # Note: NumPy's name for smallest_normal, which NumPy users rely on.
        return self.smallest_normal

    def __repr__(self) -> str:
        return (f"finfo(bits={self.bits}, eps={self.eps}, max={self.max}, min={self.min}, "
                f"smallest_normal={self.smallest_normal}, dtype={self.dtype})")


class iinfo_object:
    """Machine limits of an integer dtype."""

    __slots__ = ("bits", "max", "min", "dtype")
    __module__ = "numr"
    bits: int
    max: int
    min: int
    dtype: dt.DType

    def __init__(self, limits: dict[str, Any], dtype: dt.DType):
        self.bits = int(limits["bits"])
        self.max = int(limits["max"])
        self.min = int(limits["min"])
        self.dtype = dtype

    def __repr__(self) -> str:
        return f"iinfo(bits={self.bits}, max={self.max}, min={self.min}, dtype={self.dtype})"


_INFO_CACHE: dict[tuple[str, dt.DType, Any], Any] = {}


def _info_target(type_: Any, func: str) -> tuple[dt.DType, Any]:
    """(dtype, device whose backend answers) for a finfo/iinfo argument."""
    if type(type_) is Array:
        return type_._dtype, type_._device
    if type(type_) is not dt.DType:
        if dt.from_numpy(type_) is None:
            raise TypeError(f"{func}: expected a numr dtype (or a numpy.dtype of one) or "
                            f"array, got {type_!r}{dt.spelling_hint(type_)}")
        type_ = dt.from_numpy(type_)
    dev = default_device()
    if type_ not in dev.dtypes:
        # limits are a property of the dtype; ask a device that holds it
        dev = get_device("cpu", func)
    return type_, dev


def finfo(type: dt.DType | Array, /) -> finfo_object:
    """Limits of a floating-point dtype; for complex, those of its real component,
    and ``.dtype`` is that real dtype."""
    d, dev = _info_target(type, "finfo")
    if d.kind not in ("float", "complex"):
        raise TypeError(f"finfo: dtype {d} is not a floating-point dtype (use iinfo for "
                        f"integers)")
    real = dt.REAL_OF.get(d, d)
    key = ("finfo", real, dev)
    info = _INFO_CACHE.get(key)
    if info is None:
        info = _INFO_CACHE[key] = finfo_object(dev.ops.finfo(real), real)
    return info


def iinfo(type: dt.DType | Array, /) -> iinfo_object:
    """Limits of an integer dtype."""
    d, dev = _info_target(type, "iinfo")
    if d.kind not in ("int", "uint"):
        raise TypeError(f"iinfo: dtype {d} is not an integer dtype (use finfo for "
                        f"floating-point)")
    key = ("iinfo", d, dev)
    info = _INFO_CACHE.get(key)
    if info is None:
        info = _INFO_CACHE[key] = iinfo_object(dev.ops.iinfo(d), d)
    return info
