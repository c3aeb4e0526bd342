"""numr.special on CUDA: ``cupyx.scipy.special`` where it has the function, numr's own
CuPy ElementwiseKernels where it has not (``_OWN``), on the arrays' GPU.

Under ``NUMR_TEST_EMULATE_GPU=1`` (the NumPy backend serving ``cuda:0``) the arrays are
NumPy arrays and SciPy stands in for cupyx.
"""

from __future__ import annotations

import functools
import math
from typing import Any

HALF_NATIVE = False  # float16 arrives as float32

# Functions cupyx.scipy.special lacks (or lacked before CuPy 14), as CUDA C over double
# ``T`` (numr computes every function in float64 on CUDA): the body assigns ``y`` from the
# inputs ``a``, ``b``.
_OWN = {
    "softplus": ("T a", "y = a > 0 ? a + log1p(exp(-a)) : log1p(exp(a))"),
    # x log(x / y), with the logarithms apart where x / y underflows or overflows (cupyx's
    # gives -inf for rel_entr(1e-300, 1e25))
    "rel_entr": ("T a, T b", """
        if (isnan(a) || isnan(b)) { y = a + b; }
        else if (a > 0 && b > 0) {
            T r = a / b;
            y = (r > 0 && !isinf(r)) ? a * log(r) : a * (log(a) - log(b));
        } else if (a == 0 && b >= 0) { y = 0; } else { y = 1.0 / 0.0; }"""),
    # E(m) by the arithmetic-geometric mean: K(m) (1 - sum 2^(n-1) c_n^2), with
    # E(m) = sqrt(1 - m) E(-m / (1 - m)) for m < 0 (Abramowitz & Stegun 17.6, 17.4.18)
    "ellipe": ("T a", """
        T m = a;
        if (isnan(m) || m > 1) { y = 0.0 / 0.0; }
        else if (m == 1) { y = 1; }
        else if (isinf(m)) { y = 1.0 / 0.0; }
        else {
            T s = 1;
            if (m < 0) { s = sqrt(1 - m); m = -m / (1 - m); }
            T an = 1, bn = sqrt(1 - m), w = 0.5, sum = 0.5 * m;
            for (int i = 0; i < 64 && m < 1; i++) {   // m rounds to 1 from m < -1e16
                T c = 0.5 * (an - bn);
                T a1 = 0.5 * (an + bn);
                bn = sqrt(an * bn); an = a1; w *= 2; sum += w * c * c;
                if (c <= 1e-17 * an) break;
            }
            y = m < 1 ? s * (3.141592653589793 / (2 * an)) * (1 - sum) : s;
        }"""),
    "betaincc": None,   # composed below from betainc
    "erfcinv": None,    # composed below from ndtri
    "stdtr": None,      # composed below from betainc
    "digamma": None,    # cupyx's psi
}


@functools.cache
def _own_kernel(name: str):
    import cupy

    params, body = _OWN[name]
    return cupy.ElementwiseKernel(params, "T y", body, f"numr_special_{name}")


def _lib(native: Any):
    """cupyx.scipy.special for CuPy arrays; scipy.special for the emulated GPU."""
    if type(native).__module__.startswith("numpy"):
        from ._cpu import scipy_special

        return scipy_special()
    import cupyx.scipy.special as csp

    return csp


def _function(lib: Any, name: str):
    f = getattr(lib, "psi" if name == "digamma" else name, None)
    if f is not None and not (name in _OWN and _OWN[name] and lib.__name__ != "scipy.special"):
        return f
    if name == "betaincc":
        return _betaincc(lib, _function(lib, "betainc"))
    if name == "erfcinv":
        nd = _function(lib, "ndtri")
        return lambda z: nd(z * 0.5) * -0.7071067811865476
    if name == "stdtr":
        return _stdtr(lib, _function(lib, "betainc"), _function(lib, "ndtr"))
    if _OWN.get(name):
        return _own_kernel(name)
    raise NotImplementedError(f"{name}: cupyx.scipy.special has no {name} and numr has "
                              f"no CUDA kernel for it yet")


def _xp(lib):
    if lib.__name__ == "scipy.special":
        import numpy

        return numpy
    import cupy

    return cupy


def _betaincc(lib, betainc):
    """1 - I_x(a, b) where I_x(a, b) < 1/2 (no cancellation; the composition through
    1 - x alone gave betaincc(0.1, b, 1e-30) = 1, not 0.999), else I_{1-x}(b, a) (1 - x
    is exact from x = 1/2 on, within half an ulp below)."""
    xp = _xp(lib)

    def f(a, b, x):
        p = betainc(a, b, x)
        exact = (p < 0.5) | (a == 0) | xp.isinf(b)     # the last two: I is exactly 1
        return xp.where(exact, 1 - p, betainc(b, a, 1 - x))
    return f


def _stdtr(lib, betainc, ndtr):
    """Student's t cdf through the regularised incomplete beta function: the tail
    I_{df/(df+t^2)}(df/2, 1/2) / 2 on t's side, or where that tail is large (t near 0, where
    1 - tail would cancel), 1/2 + sign(t) I_{t^2/(df+t^2)}(1/2, df/2) / 2 (Abramowitz &
    Stegun 26.7.1, 26.5.27); df = inf is the normal cdf."""
    xp = _xp(lib)

    def f(df, t):
        t2 = t * t
        x = t2 / (df + t2)
        near = 0.5 + 0.5 * xp.sign(t) * betainc(0.5 * xp.ones_like(df), 0.5 * df, x)
        tail = 0.5 * betainc(0.5 * df, 0.5 * xp.ones_like(df), df / (df + t2))
        far = xp.where(t > 0, 1 - tail, tail)
        r = xp.where(tail < 0.25, far, near)
        r = xp.where(xp.isinf(df) & (df > 0), ndtr(t), r)
        r = xp.where(xp.isinf(t) & (df > 0), (t > 0).astype(r.dtype), r)
        return xp.where((df <= 0) | xp.isnan(df) | xp.isnan(t), xp.nan, r)
    return f


def compute(name: str, operands: list, d: Any, shape: tuple, dev: Any):
    natives = [x for x in operands if not isinstance(x, float)]
    lib = _lib(natives[0])
    if lib.__name__ == "scipy.special":
        import numpy as xp
    else:
        import cupy as xp
    cd = xp.dtype(d.name)
    # Every function in float64, rounded once to float32 at the end: cupyx's float32
    # kernels overflow inside (i0e(150) is nan) and lose digits (betaincc through 1 - x),
    # and the H200 computes float64 at half its float32 rate, far above the memory's.
    wd = xp.dtype("float64")
    # Python scalars as 0-d arrays (a Python float would pick CuPy's dtype by itself)
    args = [xp.asarray(x, dtype=wd) for x in operands]
    f = _function(lib, name)
    if xp.__name__ == "numpy":
        return _limits(xp, name, args, xp.asarray(f(*args)).reshape(shape)).astype(cd)
    with xp.cuda.Device(dev.index):  # the arrays' GPU, where several are present
        args = [xp.asarray(a) for a in args]
        out = xp.asarray(f(*args)).reshape(shape)
        return _limits(xp, name, args, out).astype(cd, copy=False)


def _limits(xp, name: str, args: list, out):
    """NaN in, NaN out (cupyx's gammainc(nan, 0) is 0; SciPy's betaln(-inf, nan) is inf, so
    betaln keeps its own), and i0, i1, j0, j1 at +-inf and y0, y1 at +inf: their limits,
    as on the other devices (SciPy gives nan)."""
    if name in ("j0", "j1"):
        out = xp.where(xp.isinf(args[0]), xp.asarray(0.0, dtype=out.dtype), out)
    elif name in ("y0", "y1"):
        out = xp.where(args[0] == xp.inf, xp.asarray(0.0, dtype=out.dtype), out)
    if name == "i0":
        out = xp.where(xp.isinf(args[0]), xp.abs(args[0]), out)
    elif name == "i1":
        out = xp.where(xp.isinf(args[0]), args[0], out)
    elif name in ("i0e", "i1e"):
        out = _large_ie(xp, name, args[0], out)
    if name != "betaln" and len(args) > 1:
        nan = functools.reduce(xp.logical_or, [xp.isnan(a) for a in args])
        out = xp.where(nan, xp.asarray(xp.nan, dtype=out.dtype), out)
    return out


def _large_ie(xp, name: str, x, out):
    """i0e, i1e for |x| > 700, where cupyx's give nan (exp(x) overflows inside): the
    asymptotic series e^-|x| I_v(|x|) ~ (2 pi |x|)^-1/2 sum_k (-1)^k a_k(v) / |x|^k,
    a_k(v) = prod_{j<=k} (4 v^2 - (2j - 1)^2) / (k! 8^k) (Abramowitz & Stegun 9.7.1);
    eight terms leave < 1e-19 there."""
    v2 = 0.0 if name == "i0e" else 4.0
    ax = xp.abs(x)
    big = ax > 700
    z = xp.where(big, ax, 1000.0)
    term, total = xp.ones_like(z), xp.ones_like(z)
    for k in range(1, 9):
        term = term * -(v2 - (2 * k - 1) ** 2) / (k * 8 * z)
        total = total + term
    r = total / xp.sqrt(2 * math.pi * z)
    if name == "i1e":
        r = xp.where(x < 0, -r, r)
    return xp.where(big, r, out)    # +-inf: 0 (SciPy's limit)
