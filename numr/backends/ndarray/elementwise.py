"""Elementwise ops for NumPy-like modules, with the standard's special cases corrected.

Most ops are the module's own ufuncs, which already follow the standard: numr has
chosen the operand dtype, and a Python scalar operand is "weak" (takes the array's
dtype) in NumPy 2 and CuPy alike. The departures are fixed here, for both libraries:

* floor_divide of floats with an infinite operand (NumPy gives NaN for ``inf // 2`` and
  -1 for ``2 // -inf``; the standard says ``floor(x1 / x2)``: inf and -0);
* complex expm1 (NumPy's formula gives NaN for infinite or NaN parts where the standard
  has limits) and complex tanh with an infinite real part (sign of the zero imaginary
  part);
* sign of complex input and of NaN, remainder with an infinite divisor or a zero result,
  clip with NaN bounds (CuPy);
* ceil/floor/trunc of integers (a library may return floats);
* NumPy returns scalars, not 0-d arrays, when every operand is 0-d;
* pow of integers to negative integer powers raises a library error in NumPy;
* nextafter of equal float16 operands (NumPy returns the first, the standard the second).
"""

from __future__ import annotations

import functools
import math
from typing import TYPE_CHECKING, Any, Callable

import numpy as _np

from ... import _dtypes as dt
from ..._op_tables import BINARY, UNARY

if TYPE_CHECKING:
    from . import Context


def build(c: Context) -> dict[str, Callable[..., Any]]:
    xp = c.xp
    ndarray = c.ndarray
    asarray = xp.asarray
    # Only NumPy turns 0-d results into scalars; elsewhere the ufuncs are the ops.
    is_numpy = xp.__name__ == "numpy"

    def native(name: str) -> Callable:
        f = getattr(xp, name, None)
        return f if f is not None else getattr(c.compat, name)  # CuPy lacks some aliases

    def lift1(f: Callable) -> Callable:
        if not is_numpy:
            return f

        def op(a):
            r = f(a)
            return r if type(r) is ndarray else asarray(r)
        return op

    def lift2(f: Callable) -> Callable:
        if not is_numpy:
            return f

        def op(a, b):
            r = f(a, b)
            return r if type(r) is ndarray else asarray(r)
        return op

    ops: dict[str, Any] = {name: lift1(native(name)) for name in UNARY}
    ops.update({name: lift2(native(name)) for name in BINARY})

    isinf, isfinite, isnan, where = xp.isinf, xp.isfinite, xp.isnan, xp.where
    divide, np_floor_divide = xp.divide, xp.floor_divide
    np_expm1, np_tanh, np_sign, np_pow = xp.expm1, xp.tanh, xp.sign, xp.power
    cos, sin, exp, copysign = xp.cos, xp.sin, xp.exp, xp.copysign

    def floor_divide(a, b):
        r = c.arr(np_floor_divide(a, b))
        a_scalar, b_scalar = not hasattr(a, "dtype"), not hasattr(b, "dtype")
        if (a_scalar or c.kind(a.dtype) != "f") and (b_scalar or c.kind(b.dtype) != "f"):
            return r  # integers: nothing to correct
        # Where exactly one operand is infinite, floor(a / b) is a / b itself: +-inf for
        # an infinite a (including b = +-0), a signed zero for an infinite b. A Python
        # float beyond the array's float range is that infinity (as the library sees it).
        if a_scalar:
            a = in_dtype(a, b.dtype)
        elif b_scalar:
            b = in_dtype(b, a.dtype)
        if b_scalar:
            if math.isinf(b):
                return c.arr(divide(a, b))
            fix = isinf(a)
        elif a_scalar:
            fix = isfinite(b) if math.isinf(a) else isinf(b)
        else:
            fix = isinf(a) != isinf(b)
        return c.arr(where(fix, divide(a, b), r))

    def in_dtype(s, d):
        """Python float ``s`` rounded to native float dtype ``d`` (inf beyond its range)."""
        if type(s) is not float or c.kind(d) != "f":
            return s
        t = d.type if d == c.bf16 else _np.dtype(d.str).type  # (bfloat16's str is "<V2")
        with _np.errstate(over="ignore"):
            return float(t(s))

    def complex_of(re, im, like):
        """A complex array of ``like``'s shape and dtype from its two parts."""
        out = xp.empty(like.shape, like.dtype)
        out.real = re
        out.imag = im
        return out

    def expm1(a):
        if a.dtype.kind != "c":
            return c.arr(np_expm1(a))
        # expm1(x + iy) = (expm1(x) cos y - 2 sin^2(y/2)) + i exp(x) sin y, with the
        # standard's limits where a part is infinite or NaN.
        x, y = a.real, a.imag
        s = sin(y / 2)
        re = np_expm1(x) * cos(y) - 2 * s * s + 0.0   # + 0.0: expm1(-0 + 0j) is +0 + 0j
        im = where(y == 0, y, exp(x) * sin(y))       # exp(+inf) * 0 would be NaN
        edge = isinf(x) & ~isfinite(y)               # x = +-inf, y = +-inf or NaN
        re = where(edge, where(x > 0, xp.inf, -1.0), re)
        im = where(edge & (x < 0), 0.0, im)
        return complex_of(re, im, a)

    np_log1p = xp.log1p

    def log1p(a):
        if a.dtype.kind != "c":
            return c.arr(np_log1p(a))
        # NumPy's and CuPy's complex log1p is log(1 + z), which loses the digits of small
        # z; there |1 + z|^2 - 1 = x (2 + x) + y^2 is formed without the 1 (the library's
        # value stays for |z| > 1/2 and for infinities and NaNs, with their special cases).
        r = c.arr(np_log1p(a))
        x, y = a.real, a.imag
        small = abs(a) <= 0.5
        if not bool(small.any()):
            return r
        re = 0.5 * np_log1p(x * (2 + x) + y * y)
        im = xp.arctan2(y, 1 + x)
        return where(small, complex_of(re, im, a), r)

    def tanh(a):
        r = c.arr(np_tanh(a))
        if a.dtype.kind != "c":
            return r
        # tanh(+-inf + iy) = +-1 + 0j with the sign of y on the zero (C99 uses sin(2y)).
        x = a.real
        fix = isinf(x)
        re = where(fix, copysign(1.0, x), r.real)
        im = where(fix, copysign(0.0, a.imag), r.imag)
        return complex_of(re, im, a)

    def sign(a):
        r = c.arr(np_sign(a))
        if is_numpy:
            return r  # NumPy 2: x / |x| for complex, 0 for 0, NaN for NaN
        k = c.kind(a.dtype)
        if k == "c":  # CuPy gives the sign of the real part; NumPy 2's rule follows
            mag = xp.abs(a)
            re, im = a.real, a.imag
            m = where(mag == 0, 1, mag)  # each part over the real |z|, as NumPy
            r = where(mag == 0, 0, complex_of(re / m, im / m, a))  # 0 -> +0+0j
            ire, iim = isinf(re), isinf(im)
            # one infinite part: +-1 there and +0 in the other (both: NaN, from inf/inf)
            unit = complex_of(where(ire, copysign(1, re), 0), where(iim, copysign(1, im), 0),
                              a)
            r = where(ire ^ iim, unit, r)
        elif k == "f":
            r = where(isnan(a), a, r)  # CuPy's sign(NaN) is 0
        return r

    def imag(a):
        if a.dtype.kind != "c":
            return xp.zeros_like(a)  # NumPy's imag of a real array is read-only
        return c.arr(xp.imag(a))

    def rounding(f: Callable) -> Callable:
        def op(a):
            if a.dtype.kind in "iub":
                return a.copy()  # already integer-valued; some libraries return floats
            return c.arr(f(a))
        return op

    def pow(a, b):
        try:
            return c.arr(np_pow(a, b))
        except ValueError as e:
            # NumPy: "Integers to negative integer powers are not allowed."
            raise ValueError(f"pow: {e}") from None

    np_remainder = xp.remainder

    def remainder(a, b):
        r = c.arr(np_remainder(a, b))
        if is_numpy or c.kind(r.dtype) != "f":
            return r  # NumPy follows the standard
        # CuPy's float remainder loses precision for large x1/x2, gives NaN for x1 % inf
        # and unsigned zeros. From the exact fmod instead: shift a nonzero result of the
        # wrong sign by x2 (x1 % +-inf then is x1 or x2, as the standard says), and give
        # zeros x2's sign.
        a, b = xp.asarray(a, dtype=r.dtype), xp.asarray(b, dtype=r.dtype)
        r = xp.fmod(a, b)
        r = where((r != 0) & (xp.signbit(r) != xp.signbit(b)), r + b, r)
        return where(r == 0, copysign(0.0, b), r).astype(r.dtype, copy=False)

    def round(a, decimals=0):
        return c.arr(xp.round(a, decimals=decimals))

    def clip(a, lo, hi):
        if lo is None and hi is None:
            return a.copy()
        r = c.arr(xp.clip(a, lo, hi))
        if is_numpy or c.kind(r.dtype) != "f":
            return r
        for bound in (lo, hi):  # CuPy ignores NaN bounds; the standard gives NaN
            if bound is not None:
                r = where(isnan(bound), xp.asarray(bound, dtype=r.dtype), r)
        return r

    def integer_pow(a, b):
        r = pow(a, b)
        if is_numpy or r.dtype.kind not in "iu":
            return r
        # CuPy gives garbage for a negative integer exponent where NumPy raises.
        negative = (b < 0) if isinstance(b, int) else bool((b < 0).any())
        if negative:
            raise ValueError("pow: integers to negative integer powers are not allowed")
        return r

    np_nextafter = ops["nextafter"]

    def nextafter(a, b):
        r = np_nextafter(a, b)
        if getattr(r, "dtype", None) != xp.float16:
            return r
        # NumPy's float16 loop returns a where a == b (nextafter(-0.0, 0.0) is -0.0); the
        # standard, and its float32/float64 loops, give b.
        return where(a == b, xp.asarray(b, dtype=r.dtype), r)

    ops.update(floor_divide=floor_divide, expm1=expm1, log1p=log1p, tanh=tanh, sign=sign, pow=integer_pow,
               imag=imag, nextafter=nextafter,
               remainder=remainder,
               ceil=rounding(xp.ceil), floor=rounding(xp.floor), trunc=rounding(xp.trunc),
               round=round, clip=clip)
    if not is_numpy:
        for name in _COMPLEX_EDGES:
            ops[name] = complex_edges(c, name, ops[name])
    return ops


# Complex functions where CuPy's results depart from the standard's special cases (and
# NumPy's) for infinite, NaN or signed-zero parts: log(inf + nan j), acosh(0 + nan j),
# divide by infinities, signed zeros of sin/exp... Such elements are rare, so they are
# recomputed with NumPy on the host; finite elements with nonzero parts keep CuPy's value.
_COMPLEX_EDGES = ("acos", "acosh", "asin", "asinh", "atan", "atanh", "cos", "cosh", "divide",
                  "exp", "log", "log1p", "log2", "log10", "pow", "reciprocal", "sin", "sinh",
                  "sqrt", "tan", "tanh")


@functools.cache
def host_ops() -> dict[str, Callable[..., Any]]:
    """The elementwise ops of NumPy through this same adapter, with its corrections
    (tanh's signed zeros, ...): what the CPU backend computes, built here without going
    through numr's device registry (a backend never imports the namespace layer)."""
    import array_api_compat.numpy as compat

    from . import Context

    return build(Context(None, _np, compat, dt.ALL))


def complex_edges(c: Context, name: str, op: Callable[..., Any]) -> Callable[..., Any]:
    import numpy

    xp = c.xp

    def host_f(*args):
        return host_ops()[name](*args)

    def edge(z):
        return ~xp.isfinite(z) | (z.real == 0) | (z.imag == 0)

    def fixed(r, operands):
        arrays = xp.broadcast_arrays(*[xp.asarray(o, dtype=r.dtype) for o in operands])
        bad = edge(arrays[0])
        for z in arrays[1:]:
            bad |= edge(z)
        if not bool(bad.any()):
            return r
        host = [z[bad].get() for z in arrays]
        with numpy.errstate(all="ignore"):
            r[bad] = xp.asarray(host_f(*host).astype(r.dtype, copy=False))
        return r

    # The dtype test sits in the op itself: real input (the usual case) then pays one
    # attribute check, not a second call (exp's overhead over CuPy was +1.2 µs).
    if name in ("divide", "pow"):
        def op2(a, b):
            r = op(a, b)
            return r if r.dtype.kind != "c" else fixed(r, (a, b))
        return op2

    def op1(a):
        r = op(a)
        return r if r.dtype.kind != "c" else fixed(r, (a,))
    return op1
