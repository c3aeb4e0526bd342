"""Elementwise functions, generated from one table; the Array operators are the same code.

Semantics decided here, identically for every device:

* operand dtype: the promotion table for two arrays; for an array and a Python scalar,
  the array's dtype (2024.12 rules), except that an integer/bool array with a Python
  float gives the device's default float, a real array with a Python complex gives the
  matching complex dtype, and a bool array with a Python int the default integer (NumPy
  does the same). A Python int must fit the operand's integer dtype (OverflowError).
* Note: functions the standard defines for floating-point input (``sin``, ``divide``,
  ``sqrt`` ...) also accept integer and bool arrays, computed in the device's default
  float, as NumPy users expect (``int / int`` gives float64 on the CPU).
* errors: TypeError for an unsupported dtype or argument type, ValueError for arrays on
  different devices or shapes that do not broadcast, naming the function.
"""

from __future__ import annotations

from typing import Any

from . import _dtypes as dt
from ._array import Array
from ._dtypes import CATEGORY, PROMOTE, REAL_OF, COMPLEX_OF, INT_RANGE

_new = object.__new__

__all__: list[str] = []

# Python scalar types accepted next to an array (NumPy scalars are unwrapped first).
_PY = (bool, int, float, complex)


# ---------------------------------------------------------------------------------------
# Argument preparation (slow path; the fast path is inline in the generated functions)
# ---------------------------------------------------------------------------------------

def _mixed(name: str, d1: Any, d2: Any) -> ValueError:
    return ValueError(f"{name}: arrays are on different devices, {d1} and {d2}; "
                      f"move one with to_device()")


def _as_scalar(obj: Any):
    """A Python scalar from obj, or None if obj is not a scalar."""
    t = type(obj)
    if t in _PY:
        return obj
    if isinstance(obj, _PY):
        return _coerce_subclass(obj)  # e.g. NumPy's float64, a float subclass
    item = getattr(obj, "item", None)
    if item is not None and getattr(obj, "shape", None) == () and type(obj).__module__ == "numpy":
        return item()  # a NumPy scalar
    return None


def _coerce_subclass(obj: Any):
    for t in _PY:
        if isinstance(obj, t):
            return t(obj)
    return None


def scalar_operand_dtype(name: str, adt: dt.DType, s: Any, device: Any) -> dt.DType:
    """The operand dtype for an array of dtype ``adt`` combined with Python scalar ``s``."""
    t = type(s)
    kind = adt.kind
    if t is bool:
        return adt
    if t is int:
        if kind == "bool":
            adt = device.defaults["integral"]
        if adt.kind in ("int", "uint"):
            lo, hi = INT_RANGE[adt]
            if not lo <= s <= hi:
                raise OverflowError(f"{name}: Python int {s} is out of range for {adt}")
        return adt
    if t is float:
        return adt if kind in ("float", "complex") else device.defaults["real floating"]
    # complex
    if kind == "complex":
        return adt
    if kind == "float":
        return COMPLEX_OF[adt]
    return device.defaults["complex floating"]


def prepare(name: str, x1: Any, x2: Any, as_operator: bool):
    """(native1, native2, operand dtype, device) for a binary function, or NotImplemented
    for an operator given a type it does not know."""
    if type(x1) is Array:
        dev = x1._device
        if type(x2) is Array:
            if x2._device is not dev:
                raise _mixed(name, dev, x2._device)
            d = PROMOTE[x1._dtype, x2._dtype]
            return _cast(x1, d), _cast(x2, d), d, dev
        s = _as_scalar(x2)
        if s is None:
            if as_operator:
                return NotImplemented
            raise TypeError(f"{name}: expected a numr array or a Python scalar, got "
                            f"{type(x2).__name__}")
        d = scalar_operand_dtype(name, x1._dtype, s, dev)
        return _cast(x1, d), s, d, dev
    if type(x2) is Array:
        s = _as_scalar(x1)
        if s is None:
            if as_operator:
                return NotImplemented
            raise TypeError(f"{name}: expected a numr array or a Python scalar, got "
                            f"{type(x1).__name__}")
        dev = x2._device
        d = scalar_operand_dtype(name, x2._dtype, s, dev)
        return s, _cast(x2, d), d, dev
    if as_operator:
        return NotImplemented
    raise TypeError(f"{name}: expected at least one numr array, got {type(x1).__name__} "
                    f"and {type(x2).__name__}")


def _cast(x: Array, d: dt.DType):
    if x._dtype is d:
        return x._data
    return x._device.ops.astype(x._data, d, False)


def _bad_dtype(name: str, d: dt.DType, category: str) -> TypeError:
    return TypeError(f"{name}: dtype {d} is not supported; expected a {category} dtype")


def _check_broadcast(name: str, a: Any, b: Any) -> None:
    """Raise a ValueError naming the function if two operands' shapes do not broadcast."""
    sa = getattr(a, "shape", ())
    sb = getattr(b, "shape", ())
    for m, n in zip(reversed(sa), reversed(sb)):
        if m != n and m != 1 and n != 1:
            raise ValueError(f"{name}: shapes {tuple(sa)} and {tuple(sb)} do not broadcast")


# How the result dtype follows from the operand dtype.
def _same(d):
    return d


def _to_bool(d):
    return dt.bool


def _to_real(d):
    return REAL_OF.get(d, d)


_RESULT = {"same": _same, "bool": _to_bool, "real": _to_real}
_FLOATING = ("floating-point", "real floating-point")


def _float_operand(d: dt.DType, dev: Any) -> dt.DType:
    """Integer/bool operands of floating functions are computed in the default float."""
    return dev.defaults["real floating"] if d.kind in ("bool", "int", "uint") else d


# ---------------------------------------------------------------------------------------
# Generators
# ---------------------------------------------------------------------------------------

def _unary(name: str, category: str, result: str = "same"):
    allowed = CATEGORY[category]
    out = _RESULT[result]
    floating = category in _FLOATING

    def f(x, /):
        if type(x) is not Array:
            raise TypeError(f"{name}: expected a numr array, got {type(x).__name__}")
        d = x._dtype
        a = x._data
        dev = x._device
        if d not in allowed:
            if floating and d.kind in ("bool", "int", "uint"):
                d = _float_operand(d, dev)
                a = dev.ops.astype(a, d, False)
            else:
                raise _bad_dtype(name, d, category)
        r = getattr(dev.ops, name)(a)
        o = _new(Array)
        o._data = r
        o._dtype = out(d)
        o._device = dev
        return o

    f.__name__ = f.__qualname__ = name
    f.__doc__ = f"Elementwise {name} of an array of {category} dtype."
    return f


def _binary(name: str, category: str, result: str = "same"):
    allowed = CATEGORY[category]
    out = _RESULT[result]
    floating = category in _FLOATING

    def compute(a, b, d, dev):
        if d not in allowed:
            if floating and d.kind in ("bool", "int", "uint"):
                d = _float_operand(d, dev)
                a = a if type(a) in _PY else dev.ops.astype(a, d, False)
                b = b if type(b) in _PY else dev.ops.astype(b, d, False)
            else:
                raise _bad_dtype(name, d, category)
        try:
            r = getattr(dev.ops, name)(a, b)
        except ValueError:
            _check_broadcast(name, a, b)
            raise
        o = _new(Array)
        o._data = r
        o._dtype = out(d)
        o._device = dev
        return o

    def f(x1, x2, /):
        # Fast path: two arrays of one dtype on one device.
        if (type(x1) is Array and type(x2) is Array and x1._dtype is x2._dtype
                and x1._device is x2._device):
            return compute(x1._data, x2._data, x1._dtype, x1._device)
        return compute(*prepare(name, x1, x2, False))

    def op(self, other):
        if type(other) is Array and other._dtype is self._dtype and other._device is self._device:
            return compute(self._data, other._data, self._dtype, self._device)
        p = prepare(name, self, other, True)
        if p is NotImplemented:
            return p
        return compute(*p)

    def rop(self, other):
        p = prepare(name, other, self, True)
        if p is NotImplemented:
            return p
        return compute(*p)

    def iop(self, other):
        p = prepare(name, self, other, True)
        if p is NotImplemented:
            return p
        r = compute(*p)
        if r._dtype is not self._dtype:
            raise TypeError(f"{name} (in place): the result dtype {r._dtype} differs from "
                            f"the array's dtype {self._dtype}")
        if r._data.shape != self._data.shape:
            raise ValueError(f"{name} (in place): the result shape {tuple(r._data.shape)} "
                             f"differs from the array's shape {tuple(self._data.shape)}")
        self._device.ops.assign(self._data, r._data)
        return self

    f.__name__ = f.__qualname__ = name
    f.__doc__ = f"Elementwise {name} of two arrays (or an array and a Python scalar) of {category} dtype."
    f.operator, f.roperator, f.ioperator = op, rop, iop
    return f


# name -> (category, result rule)
UNARY = {
    "abs": ("numeric", "real"), "acos": ("floating-point", "same"),
    "acosh": ("floating-point", "same"), "asin": ("floating-point", "same"),
    "asinh": ("floating-point", "same"), "atan": ("floating-point", "same"),
    "atanh": ("floating-point", "same"), "bitwise_invert": ("integer or boolean", "same"),
    "ceil": ("real numeric", "same"), "conj": ("numeric", "same"),
    "cos": ("floating-point", "same"), "cosh": ("floating-point", "same"),
    "exp": ("floating-point", "same"), "expm1": ("floating-point", "same"),
    "floor": ("real numeric", "same"), "imag": ("numeric", "real"),
    "isfinite": ("numeric", "bool"), "isinf": ("numeric", "bool"),
    "isnan": ("numeric", "bool"), "log": ("floating-point", "same"),
    "log1p": ("floating-point", "same"), "log2": ("floating-point", "same"),
    "log10": ("floating-point", "same"), "logical_not": ("bool", "same"),
    "negative": ("numeric", "same"), "positive": ("numeric", "same"),
    "real": ("numeric", "real"), "reciprocal": ("floating-point", "same"),
    "sign": ("numeric", "same"), "signbit": ("real floating-point", "bool"),
    "sin": ("floating-point", "same"), "sinh": ("floating-point", "same"),
    "square": ("numeric", "same"), "sqrt": ("floating-point", "same"),
    "tan": ("floating-point", "same"), "tanh": ("floating-point", "same"),
    "trunc": ("real numeric", "same"),
}

BINARY = {
    "add": ("numeric", "same"), "atan2": ("real floating-point", "same"),
    "bitwise_and": ("integer or boolean", "same"),
    "bitwise_left_shift": ("integer", "same"), "bitwise_or": ("integer or boolean", "same"),
    "bitwise_right_shift": ("integer", "same"), "bitwise_xor": ("integer or boolean", "same"),
    "copysign": ("real floating-point", "same"), "divide": ("floating-point", "same"),
    "equal": ("any", "bool"), "floor_divide": ("real numeric", "same"),
    "greater": ("real numeric", "bool"), "greater_equal": ("real numeric", "bool"),
    "hypot": ("real floating-point", "same"), "less": ("real numeric", "bool"),
    "less_equal": ("real numeric", "bool"), "logaddexp": ("real floating-point", "same"),
    "logical_and": ("bool", "same"), "logical_or": ("bool", "same"),
    "logical_xor": ("bool", "same"), "maximum": ("real numeric", "same"),
    "minimum": ("real numeric", "same"), "multiply": ("numeric", "same"),
    "nextafter": ("real floating-point", "same"), "not_equal": ("any", "bool"),
    "pow": ("numeric", "same"), "remainder": ("real numeric", "same"),
    "subtract": ("numeric", "same"),
}

for _name, (_cat, _res) in UNARY.items():
    globals()[_name] = _unary(_name, _cat, _res)
    __all__.append(_name)
for _name, (_cat, _res) in BINARY.items():
    globals()[_name] = _binary(_name, _cat, _res)
    __all__.append(_name)


# ---------------------------------------------------------------------------------------
# Functions with extra arguments
# ---------------------------------------------------------------------------------------

def round(x: Array, /, *, decimals: int = 0) -> Array:
    """Round to the nearest value with ``decimals`` digits, halves to even."""
    if type(x) is not Array:
        raise TypeError(f"round: expected a numr array, got {type(x).__name__}")
    if type(decimals) is not int:
        raise TypeError(f"round: decimals must be an int, got {decimals!r}")
    if x._dtype not in CATEGORY["numeric"]:
        raise _bad_dtype("round", x._dtype, "numeric")
    return Array._new(x._device.ops.round(x._data, decimals=decimals), x._dtype, x._device)


def clip(x: Array, /, min: Any = None, max: Any = None) -> Array:
    """Clamp each element to ``[min, max]``; bounds are arrays or Python scalars.

    The result has ``x``'s dtype; array bounds must have a dtype that promotes to it.
    """
    if type(x) is not Array:
        raise TypeError(f"clip: expected a numr array, got {type(x).__name__}")
    if x._dtype not in CATEGORY["real numeric"]:
        raise _bad_dtype("clip", x._dtype, "real numeric")
    dev = x._device
    bounds = []
    for label, b in (("min", min), ("max", max)):
        if b is None:
            bounds.append(None)
        elif type(b) is Array:
            if b._device is not dev:
                raise _mixed("clip", dev, b._device)
            if b._dtype.kind not in ("int", "uint", "float"):
                raise TypeError(f"clip: {label} has dtype {b._dtype}; expected a real numeric dtype")
            if x._dtype.kind in ("int", "uint") and b._dtype.kind == "float":
                raise TypeError(f"clip: {label} has dtype {b._dtype}, which does not promote to {x._dtype}")
            bounds.append(_cast(b, x._dtype) if b._dtype.kind == x._dtype.kind else b._data)
        else:
            s = _as_scalar(b)
            if s is None or type(s) is complex:
                raise TypeError(f"clip: {label} must be an array or a real Python scalar, got {b!r}")
            if x._dtype.kind in ("int", "uint") and type(s) is float:
                raise TypeError(f"clip: {label}={s!r} is a float, but x has dtype {x._dtype}")
            bounds.append(s)
    return Array._new(dev.ops.clip(x._data, bounds[0], bounds[1]), x._dtype, dev)


__all__ += ["round", "clip"]


# ---------------------------------------------------------------------------------------
# Operators on Array
# ---------------------------------------------------------------------------------------

_OPERATORS = {
    "add": "add", "sub": "subtract", "mul": "multiply", "truediv": "divide",
    "floordiv": "floor_divide", "mod": "remainder", "pow": "pow", "and": "bitwise_and",
    "or": "bitwise_or", "xor": "bitwise_xor", "lshift": "bitwise_left_shift",
    "rshift": "bitwise_right_shift",
}
_COMPARISONS = {"eq": "equal", "ne": "not_equal", "lt": "less", "le": "less_equal",
                "gt": "greater", "ge": "greater_equal"}
_UNARY_OPERATORS = {"neg": "negative", "pos": "positive", "abs": "abs",
                    "invert": "bitwise_invert"}


def attach_operators(cls: type) -> None:
    g = globals()
    for op, fname in _OPERATORS.items():
        f = g[fname]
        setattr(cls, f"__{op}__", f.operator)
        setattr(cls, f"__r{op}__", f.roperator)
        setattr(cls, f"__i{op}__", f.ioperator)
    for op, fname in _COMPARISONS.items():
        setattr(cls, f"__{op}__", g[fname].operator)
    for op, fname in _UNARY_OPERATORS.items():
        setattr(cls, f"__{op}__", g[fname])
