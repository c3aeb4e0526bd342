"""Elementwise functions, generated from one table; the Array operators are the same code.

Semantics decided here, identically for every device:

* operand dtype: the promotion table for two arrays; for an array and a Python scalar,
  the array's dtype (2024.12 rules), except that an integer/bool array with a Python
  float gives the device's default float, a real array with a Python complex gives the
  matching complex dtype, and a bool array with a Python int the default integer (NumPy
  does the same). A Python int must fit the operand's dtype (OverflowError, as NumPy).
* Note: functions the standard defines for floating-point input (``sin``, ``divide``,
  ``sqrt`` ...) also accept integer and bool arrays, computed in the device's default
  float, as NumPy users expect (``int / int`` gives float64 on the CPU).
* errors: TypeError for an unsupported dtype or argument type, ValueError for arrays on
  different devices or shapes that do not broadcast, naming the function.

Speed: every generated function starts with a fast path for the common calls (two
arrays of one dtype on one device; an array with a Python float, or with an int that
fits) that does one dict lookup for the result dtype and calls the op; everything else
goes through ``_slow_binary``/``_slow_unary``, which apply the full rules.
"""

from __future__ import annotations

from typing import Any, Callable

from . import _dtypes as dt, _ranges
from ._array import Array
from ._checks import (
    FLOAT_KEEPS as _FLOAT_KEEPS, FLOAT_MAX as _FLOAT_MAX, INT_BOUNDS as _INT_BOUNDS,
    PY_SCALARS as _PY, as_scalar as _as_scalar, cast as _cast, int_out_of_range as _int_out_of_range,
    check_writable, is_ndarray as _is_ndarray, mixed_devices as _mixed, scalar_operand_dtype,
    what,
)
from ._dtypes import CATEGORY, PROMOTE, REAL_OF, INT_RANGE
from ._op_tables import BINARY, UNARY

_new = object.__new__

__all__: list[str] = []

_INTEGRAL_KINDS = ("bool", "int", "uint")
_KIND_RANK = {"bool": 0, "uint": 1, "int": 2, "float": 3, "complex": 4}


# ---------------------------------------------------------------------------------------
# Argument preparation (the slow path; the helpers it shares with other namespace
# modules live in _checks)
# ---------------------------------------------------------------------------------------

def prepare(name: str, x1: Any, x2: Any, as_operator: bool):
    """(native1, native2, operand dtype, device) for a binary function, or NotImplemented
    for an operator given a type it does not know. A Python scalar stays a scalar."""
    if type(x1) is Array:
        dev = x1._device
        if type(x2) is Array:
            if x2._device is not dev:
                raise _mixed(name, dev, x2._device)
            d = PROMOTE[x1._dtype, x2._dtype]
            return _cast(x1, d), _cast(x2, d), d, dev
        s = _as_scalar(x2)
        if s is None:
            if as_operator and not _is_ndarray(x2):
                return NotImplemented
            raise TypeError(f"{name}: expected a numr array or a Python scalar, got "
                            f"{what(x2)}")
        d = scalar_operand_dtype(name, x1._dtype, s, dev)
        return _cast(x1, d), s, d, dev
    if type(x2) is Array:
        s = _as_scalar(x1)
        if s is None:
            if as_operator and not _is_ndarray(x1):
                return NotImplemented
            raise TypeError(f"{name}: expected a numr array or a Python scalar, got "
                            f"{what(x1)}")
        dev = x2._device
        d = scalar_operand_dtype(name, x2._dtype, s, dev)
        return s, _cast(x2, d), d, dev
    if as_operator:
        return NotImplemented
    raise TypeError(f"{name}: expected at least one numr array, got {what(x1)} "
                    f"and {what(x2)}")


def _bad_dtype(name: str, d: dt.DType, category: str) -> TypeError:
    return TypeError(f"{name}: dtype {d} is not supported; expected a {category} dtype")


def _shapes_error(name: str, sa: tuple, sb: tuple) -> ValueError | None:
    """A ValueError naming the function if two shapes do not broadcast, else None."""
    for m, n in zip(reversed(sa), reversed(sb)):
        if m != n and m != 1 and n != 1:
            return ValueError(f"{name}: shapes {sa} and {sb} cannot be broadcast together")
    return None


def _op_error(name: str, a: Any, b: Any, e: ValueError) -> ValueError:
    """The error to raise when a binary op failed with ``e``: numr's own when the
    operands' shapes do not broadcast (the backend's message is its library's)."""
    err = _shapes_error(name, tuple(getattr(a, "shape", ())), tuple(getattr(b, "shape", ())))
    return e if err is None else err


def _call2(name: str, dev: Any, a: Any, b: Any):
    """Run a binary op (the slow path's way; the fast paths inline this)."""
    try:
        return getattr(dev.ops, name)(a, b)
    except ValueError as e:
        raise _op_error(name, a, b, e) from None


# How the result dtype follows from the operand dtype.
_RESULT = {"same": lambda d: d, "bool": lambda d: dt.bool, "real": lambda d: REAL_OF.get(d, d)}
_FLOATING = ("floating-point", "real floating-point")
_COMPARISONS = ("equal", "not_equal", "less", "less_equal", "greater", "greater_equal")


def _result_table(category: str, result: str) -> dict:
    """operand dtype -> result dtype, for the dtypes a function accepts as they are."""
    rule = _RESULT[result]
    return {d: rule(d) for d in CATEGORY[category]}


def _operand(name: str, table: dict, floating: bool, category: str, d: dt.DType,
             dev: Any) -> dt.DType:
    """The dtype a function computes in for operand dtype ``d`` (TypeError if none)."""
    if d in table:
        return d
    if floating and d.kind in _INTEGRAL_KINDS:
        return dev.defaults["real floating"]
    raise _bad_dtype(name, d, category)


# ---------------------------------------------------------------------------------------
# Generators
# ---------------------------------------------------------------------------------------

def _unary(name: str, category: str, result: str = "same") -> Callable:
    table = _result_table(category, result)
    floating = category in _FLOATING

    def slow(x):
        if type(x) is not Array:
            raise TypeError(f"{name}: expected a numr array, got {what(x)}")
        dev = x._device
        d = _operand(name, table, floating, category, x._dtype, dev)
        return Array._new(getattr(dev.ops, name)(_cast(x, d)), table[d], dev)

    def f(x, /):
        # Fast path: an array of a dtype the function takes as it is.
        if type(x) is Array:
            rd = table.get(x._dtype)
            if rd is not None:
                dev = x._device
                o = _new(Array)
                o._data = getattr(dev.ops, name)(x._data)
                o._dtype = rd
                o._device = dev
                return o
        return slow(x)

    f.__name__ = f.__qualname__ = name
    f.__doc__ = f"Elementwise {name} of an array of {category} dtype."
    f.__annotations__ = {"x": "Array", "return": "Array"}
    return f


def _binary(name: str, category: str, result: str = "same") -> Callable:
    table = _result_table(category, result)
    floating = category in _FLOATING
    compare = name in _COMPARISONS

    def slow(x1, x2, as_operator):
        if compare and as_operator and isinstance(x2, (list, tuple)):
            x2 = _sequence_operand(name, x2, x1)
        p = prepare_or_constant(x1, x2, as_operator)
        if p is NotImplemented and compare and not hasattr(x2, "__array_namespace__"):
            # Note: Python would fall back to identity (a bare False for ==); numr
            # compares Python sequences elementwise (as NumPy) and refuses the rest.
            raise TypeError(f"{name}: cannot compare a numr array with a "
                            f"{type(x2).__name__}")
        if p is NotImplemented or type(p) is Array:
            return p
        a, b, d, dev = p
        od = _operand(name, table, floating, category, d, dev)
        if od is not d:
            a = a if type(a) in _PY else dev.ops.astype(a, od, False)
            b = b if type(b) in _PY else dev.ops.astype(b, od, False)
        return Array._new(_call2(name, dev, a, b), table[od], dev)

    def prepare_or_constant(x1, x2, as_operator):
        if not compare:
            return prepare(name, x1, x2, as_operator)
        try:
            return prepare(name, x1, x2, as_operator)
        except OverflowError:
            r = _compare_out_of_range(name, x1, x2)
            if r is None:
                raise
            return r

    def f(x1, x2, /):
        # Fast path: an array with an array of its dtype and device, or with a Python
        # float/int that keeps its dtype; the op gets the Python scalar as it is.
        if type(x1) is Array:
            d = x1._dtype
            rd = table.get(d)
            if rd is not None:
                t = type(x2)
                if t is Array:
                    if x2._dtype is d and x2._device is x1._device:
                        b = x2._data
                    else:
                        return slow(x1, x2, False)
                elif (t is float and d in _FLOAT_KEEPS) or (
                        t is int and (bd := _INT_BOUNDS.get(d)) and bd[0] <= x2 <= bd[1]):
                    b = x2
                else:
                    return slow(x1, x2, False)
                dev = x1._device
                a = x1._data
                try:
                    r = getattr(dev.ops, name)(a, b)
                except ValueError as e:
                    raise _op_error(name, a, b, e) from None
                o = _new(Array)
                o._data = r
                o._dtype = rd
                o._device = dev
                return o
        return slow(x1, x2, False)

    def op(self, other):
        """x <op> other (the same fast path, for operators)."""
        d = self._dtype
        rd = table.get(d)
        if rd is not None:
            t = type(other)
            if t is Array:
                if other._dtype is d and other._device is self._device:
                    b = other._data
                else:
                    return slow(self, other, True)
            elif (t is float and d in _FLOAT_KEEPS) or (
                    t is int and (bd := _INT_BOUNDS.get(d)) and bd[0] <= other <= bd[1]):
                b = other
            else:
                return slow(self, other, True)
            dev = self._device
            a = self._data
            try:
                r = getattr(dev.ops, name)(a, b)
            except ValueError as e:
                raise _op_error(name, a, b, e) from None
            o = _new(Array)
            o._data = r
            o._dtype = rd
            o._device = dev
            return o
        return slow(self, other, True)

    def rop(self, other):
        """other <op> x, where other is not an Array (Python gave it the first chance)."""
        d = self._dtype
        rd = table.get(d)
        if rd is not None:
            t = type(other)
            if (t is float and d in _FLOAT_KEEPS) or (
                    t is int and (bd := _INT_BOUNDS.get(d)) and bd[0] <= other <= bd[1]):
                dev = self._device
                o = _new(Array)
                o._data = getattr(dev.ops, name)(other, self._data)
                o._dtype = rd
                o._device = dev
                return o
        return slow(other, self, True)

    def iop(self, other):
        """x <op>= other: computed as x <op> other, then written into x, which must keep
        its dtype and shape."""
        r = op(self, other)
        if r is NotImplemented:
            return r
        data = r._data
        if data.shape != self._data.shape:
            raise ValueError(f"{name} (in place): the result shape {tuple(data.shape)} "
                             f"differs from the array's shape {tuple(self._data.shape)}")
        if r._dtype is not self._dtype:
            # Note: the standard leaves a promoted dtype other than x's open; like NumPy,
            # numr casts the result back where the cast stays within its kind or goes
            # down the order bool < uint < int < float < complex (float64 into float32,
            # int16 into int8), and raises TypeError otherwise (float into int).
            if _KIND_RANK[r._dtype.kind] > _KIND_RANK[self._dtype.kind]:
                raise TypeError(f"{name} (in place): the result dtype {r._dtype} cannot be "
                                f"stored in the array's dtype {self._dtype}")
            data = self._device.ops.astype(data, self._dtype, False)
        if _ranges._notes:
            _ranges.wrote(self)
        try:
            self._device.ops.assign(self._data, data)
        except ValueError:
            check_writable(self, f"{name} (in place)")
            raise
        return self

    f.__name__ = f.__qualname__ = name
    f.__doc__ = (f"Elementwise {name} of two arrays (or an array and a Python scalar) of "
                 f"{category} dtype.")
    operand = "Array | bool | int | float | complex"
    f.__annotations__ = {"x1": operand, "x2": operand, "return": "Array"}
    f.operator, f.roperator, f.ioperator = op, rop, iop
    return f


def _sequence_operand(name: str, seq: Any, x: Array) -> Array:
    """A Python list/tuple compared with array ``x``: an array of it on x's device."""
    from ._creation import asarray

    try:
        return asarray(seq, device=x._device)
    except (TypeError, ValueError, OverflowError) as e:
        raise type(e)(f"{name}: cannot compare a numr array with {seq!r}: {e}") from None


# A Python int outside the array's integer range: comparisons still have an answer.
# Note: NumPy 2 answers these (``int8_array < 1000`` is all True) and its users rely on
# it; the standard leaves it unspecified. Every other function raises OverflowError.
_ALWAYS_WHEN_ABOVE = {"less": True, "less_equal": True, "not_equal": True,
                      "greater": False, "greater_equal": False, "equal": False}
_MIRROR = {"less": "greater", "less_equal": "greater_equal", "greater": "less",
           "greater_equal": "less_equal", "equal": "equal", "not_equal": "not_equal"}


def _compare_out_of_range(name: str, x1: Any, x2: Any) -> Array | None:
    """The answer of comparing an integer array with a Python int out of its range, or
    None where the OverflowError stands."""
    if type(x1) is Array:
        x, s, op = x1, _as_scalar(x2), name
    else:
        x, s, op = x2, _as_scalar(x1), _MIRROR[name]  # s <op> x is x <mirror op> s
    if type(s) is not int or x._dtype.kind not in ("int", "uint"):
        return None
    answer = _ALWAYS_WHEN_ABOVE[op]
    if s < INT_RANGE[x._dtype][0]:
        answer = not answer if op not in ("equal", "not_equal") else answer
    # x == x is all True and x != x all False for integers: the answer, on the device.
    data = x._device.ops.equal(x._data, x._data) if answer else \
        x._device.ops.not_equal(x._data, x._data)
    return Array._new(data, dt.bool, x._device)


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
    """Round to the nearest integer-valued number (halves to even); complex parts apart.

    Note: ``decimals`` (round to that many decimal places, negative for tens, hundreds
    ...) is NumPy's extension; the standard's round has none.
    """
    if type(x) is not Array:
        raise TypeError(f"round: expected a numr array, got {type(x).__name__}")
    if type(decimals) is not int:
        raise TypeError(f"round: decimals must be an int, got {decimals!r}")
    if x._dtype not in CATEGORY["numeric"]:
        raise _bad_dtype("round", x._dtype, "numeric")
    return Array._new(x._device.ops.round(x._data, decimals=decimals), x._dtype, x._device)


def clip(x: Array, /, min: int | float | Array | None = None,
         max: int | float | Array | None = None) -> Array:
    """Clamp each element to ``[min, max]``; bounds are arrays or Python scalars.

    The result has ``x``'s dtype and the broadcast shape of ``x`` and array bounds.
    """
    if type(x) is not Array:
        raise TypeError(f"clip: expected a numr array, got {type(x).__name__}")
    d = x._dtype
    if d not in CATEGORY["real numeric"]:
        raise _bad_dtype("clip", d, "real numeric")
    dev = x._device
    lo = _clip_bound("min", min, d, dev)
    hi = _clip_bound("max", max, d, dev)
    shape = tuple(x._data.shape)
    for b in (lo, hi):
        if type(b) is Array:
            bshape = tuple(b._data.shape)
            err = _shapes_error("clip", shape, bshape)
            if err is not None:
                raise err
            shape = _broadcast_shape(shape, bshape)
    lo = lo._data if type(lo) is Array else lo
    hi = hi._data if type(hi) is Array else hi
    return Array._new(dev.ops.clip(x._data, lo, hi), d, dev)


def _broadcast_shape(a: tuple, b: tuple) -> tuple:
    n = len(a) - len(b)
    if n < 0:
        a, b, n = b, a, -n
    return a[:n] + tuple(m if k == 1 else k for m, k in zip(a[n:], b))


def _clip_bound(label: str, b: Any, d: dt.DType, dev: Any):
    """A bound of clip as an Array of dtype ``d``, a Python scalar, or None."""
    if b is None:
        return None
    if type(b) is Array:
        if b._device is not dev:
            raise _mixed("clip", dev, b._device)
        if b._dtype.kind not in ("int", "uint", "float"):
            raise TypeError(f"clip: {label} has dtype {b._dtype}; expected a real numeric dtype")
        if d.kind in ("int", "uint") and b._dtype.kind == "float":
            raise TypeError(f"clip: {label} has dtype {b._dtype}, but x has integer dtype {d}")
        # Note: the standard leaves bounds of another dtype open; numr converts them to
        # x's dtype (the result keeps x's dtype, as NumPy's does for same-kind bounds).
        return b if b._dtype is d else Array._new(_cast(b, d), d, dev)
    s = _as_scalar(b)
    if s is None or type(s) is complex:
        raise TypeError(f"clip: {label} must be an array or a real Python scalar, got {b!r}")
    if type(s) is bool:
        s = int(s)
    if d.kind in ("int", "uint"):
        if type(s) is float:
            raise TypeError(f"clip: {label}={s!r} is a float, but x has integer dtype {d}")
        # Note: out-of-range bounds are unspecified; numr clamps them into the dtype's
        # range, which gives what clipping the exact values would wherever it fits.
        lo, hi = INT_RANGE[d]
        s = lo if s < lo else hi if s > hi else s
    elif type(s) is int and not -_FLOAT_MAX <= s <= _FLOAT_MAX:
        raise _int_out_of_range("clip", s, d)
    return s


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
_COMPARISON_OPERATORS = {"eq": "equal", "ne": "not_equal", "lt": "less", "le": "less_equal",
                         "gt": "greater", "ge": "greater_equal"}
_UNARY_OPERATORS = {"neg": "negative", "pos": "positive", "abs": "abs",
                    "invert": "bitwise_invert"}


def operators() -> dict:
    """Array's elementwise operators, ``{"__add__": function, ...}`` (``_array.py``
    attaches them, with matmul's, in one place)."""
    g = globals()
    out = {}
    for op, fname in _OPERATORS.items():
        f = g[fname]
        out[f"__{op}__"], out[f"__r{op}__"], out[f"__i{op}__"] = \
            f.operator, f.roperator, f.ioperator
    for op, fname in _COMPARISON_OPERATORS.items():
        out[f"__{op}__"] = g[fname].operator
    for op, fname in _UNARY_OPERATORS.items():
        out[f"__{op}__"] = g[fname]
    return out
