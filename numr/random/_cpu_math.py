"""The CPU's Box-Muller log1p, sin and cos (numba): numr's WGSL functions step for step.

Two reasons. Speed: libm's log1p, cos and sin are calls LLVM cannot vectorise (in _cpu's
normal kernels they took four fifths of the time: 16M float64 normals at 0.6x NumPy's
ziggurat); this is straight-line code on the float's bits, so a loop over a chunk of
blocks runs four lanes at a time. Identity: every operation is the one numr's WGSL
(numr/backends/webgpu/kernels/expressions.py: log1p_T over logdd_T, rempio2_T, sinr_T,
cosr_T) performs, in the same order, with the same constants, each rounded once as
IEEE float64 (numba does not contract a * b + c; the WGSL fences against it), except
that the exact product's error comes from an fma (_two_prod); CUDA's
kernel (numr.random._cuda) runs the same again, compiled without contraction. So the
three devices' float64 normals are the same bits, and the gamma family, whose
(1 + c z)^3 multiplies a difference in z by up to ~6, agrees across devices as well as
its other operations (log, pow) do.

- log1m(u) = log1p(-u) for a uniform u (1 - u exact): log(1 - u) as hi + lo:
  1 - u = 2^e m, m in [0.707, 1.414], c = j / 8 nearest m with log c as hi + lo,
  log(m / c) = 2 atanh(s), s = (m - c) / (m + c) as hi + lo, in double-word arithmetic
  (relative error about 2^-73).
- sin t, cos t, 0 <= t < 2 pi: t = k pi/2 + r, pi/2 in four parts (Cody-Waite, the
  differences carried by two_sum), Taylor series of sin and cos of r + e.

The tests (tests/random) check these against mpmath and the CPU's normals against
WebGPU's bit for bit.
"""

from __future__ import annotations

import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.extending import intrinsic

from ._math_constants import (_ATANHQ, _COSQ, _LN2_C1, _LOG_C2, _LOG_C3, _LOGC, _PIO2, _SINQ,
                              _THIRD, _THIRD_LO, _TWO_OVER_PI)

_MANT = np.int64(0x000FFFFFFFFFFFFF)
_ONE_BITS = np.int64(0x3FF0000000000000)
_S52 = np.int64(52)
_E11 = np.int64(0x7FF)


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
def _div(typingctx, a, b):
    """a / b without numba's zero-division check (a branch that stops vectorisation;
    error_model="numpy" would drop it too, but parallel kernels do not pass it on)."""
    def codegen(context, builder, sig, args):
        return builder.fdiv(*args)
    return types.float64(types.float64, types.float64), codegen


@njit(inline="always", cache=True)
def _two_sum(a, b):
    s = a + b
    v = s - a
    w = s - v
    return s, (a - w) + (b - v)


@njit(inline="always", cache=True)
def _fast_two_sum(a, b):
    s = a + b
    return s, b - (s - a)


@intrinsic
def _fma(typingctx, a, b, c):
    """a * b + c rounded once (LLVM's fma: one instruction where the CPU has FMA, libm's
    fma elsewhere, slower but the same bits)."""
    def codegen(context, builder, sig, args):
        return builder.fma(*args)
    return types.float64(types.float64, types.float64, types.float64), codegen


@njit(inline="always", cache=True)
def _two_prod(a, b):
    """a * b = p + e exactly. WGSL has no fma it can trust and splits a and b (Dekker);
    both give the exact error, this one in 2 operations instead of 17 (log1m 16.7 ->
    12.9 ns an element here)."""
    p = a * b
    return p, _fma(a, b, -p)


@njit(inline="always", cache=True)
def _ddmul(ax, ay, bx, by):
    px, py = _two_prod(ax, bx)
    return _fast_two_sum(px, py + (ax * by + ay * bx))


@njit(inline="always", cache=True)
def _logdd(x):
    """log(x) as hi + lo for normal x > 0 (WGSL's logdd_T)."""
    u = _bits(x)
    m = _from_bits((u & _MANT) | _ONE_BITS)
    e = float(((u >> _S52) & _E11) - 1023)
    big = m > 1.4142135623730951
    m = m * 0.5 if big else m
    e = e + 1.0 if big else e
    j = np.rint(m * 8.0)
    c = j * 0.125
    lcx = (_LOGC[0][0] if j == 6.0 else _LOGC[1][0] if j == 7.0 else _LOGC[2][0]
           if j == 9.0 else _LOGC[3][0] if j == 10.0 else _LOGC[4][0] if j == 11.0 else 0.0)
    lcy = (_LOGC[0][1] if j == 6.0 else _LOGC[1][1] if j == 7.0 else _LOGC[2][1]
           if j == 9.0 else _LOGC[3][1] if j == 10.0 else _LOGC[4][1] if j == 11.0 else 0.0)
    num = m - c
    dx, dy = _two_sum(m, c)
    sh = _div(num, dx)
    qx, qy = _two_prod(sh, dx)
    sl = _div(((num - qx) - qy) - sh * dy, dx)
    zx, zy = _two_prod(sh, sh)
    zx, zy = _fast_two_sum(zx, zy + 2.0 * sh * sl)
    a = _ATANHQ[7]
    for i in range(6, -1, -1):
        a = _ATANHQ[i] + zx * a
    px, py = _fast_two_sum(_THIRD, _THIRD_LO + zx * a)
    wx, wy = _ddmul(zx, zy, px, py)
    tx, ty = _ddmul(sh, sl, wx, wy)
    s0, s1 = _two_sum(sh, tx)
    lx, ly = _fast_two_sum(s0, s1 + (sl + ty))
    ax, ay = _two_sum(e * _LN2_C1, lcx)
    bx, by = _two_sum(ax, 2.0 * lx)
    cx, cy = _two_sum(bx, e * _LOG_C2)
    return _fast_two_sum(cx, ((ay + by) + cy) + ((2.0 * ly + lcy) + e * _LOG_C3))


@njit(inline="always", cache=True)
def log1m(u):
    """log(1 - u) for 0 <= u < 1 where 1 - u is exact (u a uniform of 53 bits or
    fewer): WGSL's log1p_T(-u) there, whose 1 + x = hi + lo has lo = 0, so its lo / hi
    term adds nothing (-0.0 at u = 0, as log1p_T(-0.0))."""
    lx, ly = _logdd(1.0 - u)
    return -u if u == 0.0 else lx + ly


@njit(inline="always", cache=True)
def _sinr(r, e):
    z = r * r
    s = _SINQ[8]
    for i in range(7, -1, -1):
        s = _SINQ[i] + z * s
    return r + (e * (1.0 - 0.5 * z) + r * z * s)


@njit(inline="always", cache=True)
def _cosr(r, e):
    z = r * r
    hz = 0.5 * z
    w = 1.0 - hz
    c = _COSQ[8]
    for i in range(7, -1, -1):
        c = _COSQ[i] + z * c
    return w + (((1.0 - w) - hz) + (z * z * c - r * e))


@njit(inline="always", cache=True)
def sincos(x):
    """(sin x, cos x) for 0 <= x < 1647099 (WGSL's sin_T and cos_T there)."""
    k = np.rint(x * _TWO_OVER_PI)
    tx, ty = _two_sum(x - k * _PIO2[0], -(k * _PIO2[1]))
    ux, uy = _two_sum(tx, -(k * _PIO2[2]))
    rx, ry = _fast_two_sum(ux, (ty + uy) - k * _PIO2[3])
    n = int(k) & 3
    sr = _sinr(rx, ry)
    cr = _cosr(rx, ry)
    sv = cr if n & 1 else sr
    cv = sr if n & 1 else cr
    return (-sv if n >= 2 else sv), (-cv if n == 1 or n == 2 else cv)
