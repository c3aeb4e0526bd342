"""Branch-free float64 log and sin/cos for the CPU's Box-Muller kernels (numba).

libm's log1p, cos and sin are calls LLVM cannot vectorise: in _cpu's normal kernels
they took four fifths of the time (16M float64 normals at 0.6x NumPy's ziggurat). These
are straight-line code on the float's bits, so the loop over a chunk of blocks runs four
lanes at a time, and they round as libm does (within about 0.6 ULP: checked against
mpmath in tests/random), which keeps the CPU's normals within the cross-device bound of
the other devices' (numr's WGSL, CUDA's libdevice).

- ``log(x)``, 0 < x <= 1 normal: x = 2^e m, m in [sqrt(1/2), sqrt(2)), f = m - 1
  (exact), s = f / (2 + f), log(1 + f) = f - f^2/2 + s (f^2/2 + R), R = sum over
  k >= 1 of 2 s^(2k) / (2k + 1) (nine terms: |s| <= 0.172 leaves 2^-55), e ln 2 in two
  parts, the first short enough that e times it is exact.
- ``sincos(t)``, 0 <= t < 8: t = n pi/2 + y, |y| <= pi/4, with pi/2 in three parts of
  33, 33 and 53 bits (n <= 5, so n times the first two is exact and t - n P1 is exact by
  Sterbenz's lemma), y carried as hi + lo; Taylor series of sin y (to y^17) and cos y
  (to y^18: below 2^-60 at pi/4), the rounding of y^2/2 recovered by an fma.

The constants were computed with mpmath (ln 2 and pi/2 split at the bits named).
"""

from __future__ import annotations

import math

import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.extending import intrinsic

_LN2_HI = float.fromhex("0x1.62e42ff000000p-1")      # ln 2 to 32 bits
_LN2_LO = float.fromhex("-0x1.718432a1b0e26p-35")    # ln 2 - _LN2_HI
_SQRT2 = float.fromhex("0x1.6a09e667f3bcdp+0")
_P1 = float.fromhex("0x1.921fb54400000p+0")          # pi/2 to 33 bits
_P2 = float.fromhex("0x1.0b4611a600000p-34")         # the next 33 bits
_P3 = float.fromhex("0x1.3198a2e037073p-69")         # the rest, rounded
_TWO_OVER_PI = float.fromhex("0x1.45f306dc9c883p-1")
_MANT = np.int64(0x000FFFFFFFFFFFFF)
_ONE_BITS = np.int64(0x3FF0000000000000)
_S52 = np.int64(52)

# 2 / (2k + 1), k = 1 .. 9: log's R(z) = z (A1 + z (A2 + ...))
_A = tuple(2.0 / (2 * k + 1) for k in range(1, 10))
# sin y = y + y^3 S(y^2), S(z) = -1/3! + z/5! - ...; cos y = 1 - y^2/2 + y^4 C(y^2),
# C(z) = 1/4! - z/6! + ...
_S = tuple((-1.0) ** k / math.factorial(2 * k + 1) for k in range(1, 9))
_C = tuple((-1.0) ** k / math.factorial(2 * k) for k in range(2, 10))


@intrinsic
def _bits(typingctx, x):
    """The bits of a float64 as an int64 (a bitcast LLVM vectorises)."""
    def codegen(context, builder, sig, args):
        return builder.bitcast(args[0], ir.IntType(64))
    return types.int64(types.float64), codegen


@intrinsic
def _from_bits(typingctx, b):
    def codegen(context, builder, sig, args):
        return builder.bitcast(args[0], ir.DoubleType())
    return types.float64(types.int64), codegen


@intrinsic
def _fma(typingctx, a, b, c):
    """a * b + c rounded once (the CPU's fma; used only to recover a rounding error)."""
    def codegen(context, builder, sig, args):
        return builder.fma(*args)
    return types.float64(types.float64, types.float64, types.float64), codegen


@intrinsic
def _div(typingctx, a, b):
    """a / b without numba's zero-division check (a branch that stops vectorisation;
    error_model="numpy" would drop it too, but parallel kernels do not pass it on)."""
    def codegen(context, builder, sig, args):
        return builder.fdiv(*args)
    return types.float64(types.float64, types.float64), codegen


@njit(inline="always", cache=True)
def log(x):
    """log(x) for normal 0 < x <= 1 (about libm's accuracy)."""
    hx = _bits(x)
    e = float(hx >> _S52) - 1023.0
    m = _from_bits((hx & _MANT) | _ONE_BITS)
    big = m > _SQRT2
    m = 0.5 * m if big else m
    e = e + 1.0 if big else e
    f = m - 1.0
    s = _div(f, 2.0 + f)
    z = s * s
    r = _A[8]
    r = r * z + _A[7]
    r = r * z + _A[6]
    r = r * z + _A[5]
    r = r * z + _A[4]
    r = r * z + _A[3]
    r = r * z + _A[2]
    r = r * z + _A[1]
    r = r * z + _A[0]
    r = r * z
    hf = 0.5 * f * f
    return e * _LN2_HI - ((hf - (s * (hf + r) + e * _LN2_LO)) - f)


@njit(inline="always", cache=True)
def sincos(t):
    """(sin t, cos t) for 0 <= t < 8."""
    n = math.floor(t * _TWO_OVER_PI + 0.5)
    a = t - n * _P1                      # exact
    b = n * _P2                          # exact
    yh = a - b
    bb = yh - a
    yl = ((a - (yh - bb)) - (b + bb)) - n * _P3
    z = yh * yh
    s = _S[7]
    s = s * z + _S[6]
    s = s * z + _S[5]
    s = s * z + _S[4]
    s = s * z + _S[3]
    s = s * z + _S[2]
    s = s * z + _S[1]
    s = s * z + _S[0]
    sn = yh + ((yh * z) * s + yl * (1.0 - 0.5 * z))
    c = _C[7]
    c = c * z + _C[6]
    c = c * z + _C[5]
    c = c * z + _C[4]
    c = c * z + _C[3]
    c = c * z + _C[2]
    c = c * z + _C[1]
    c = c * z + _C[0]
    h = 0.5 * yh
    hz = h * yh
    hz_err = _fma(h, yh, -hz)           # h yh - hz exactly
    w = 1.0 - hz
    cs = w + ((((1.0 - w) - hz) - hz_err) + ((z * z) * c - yh * yl))
    q = int(n) & 3
    so = cs if q & 1 else sn
    co = sn if q & 1 else cs
    so = -so if q & 2 else so
    co = -co if (q + 1) & 2 else co
    return so, co
