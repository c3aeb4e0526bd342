"""numr.special on CUDA, on the arrays' GPU: numr's own kernels for the functions whose
cupyx versions miss numr's accuracy (gammainc gammaincc chdtr chdtrc betainc betaincc
stdtr ellipe j0 j1 y0 y1 zeta beta: the C++ that ``_to_c.py`` generates from their
WGSL, ``_cuda_src.py``, so that CUDA runs the algorithm verified on WebGPU),
``cupyx.scipy.special``'s loops for the rest, with numr's limits (``_FIX``), and small
CUDA C kernels over CUDA's libm where cupyx has no function, one that needs a second
pass or one that loses digits (``_OWN``: softplus, rel_entr, xlogy, xlog1py, logit,
log_ndtr).

Float64 computes in float64. Float32 computes in float32 where cupyx's float32 loop (CUDA's
float32 libm: erff, lgammaf, ...) is within a few eps of the true value over the accuracy
test's samples, with numr's limits (``F32_NATIVE``: cupyx's speed), and for j0 j1 y0 y1
zeta ellipe in numr's own float32 kernels (``ENTRIES_F32``: the C++ of the WGSL's float32
algorithm, within 4 ULP, ``_to_c.FUNCTIONS_F32``); the other functions
compute in float64 and round once to the result's dtype, inside one kernel: float32
operands are widened as they are loaded and the result narrowed as it is stored, so a
float32 call moves the bytes cupyx's float32 kernel moves.

Under ``NUMR_TEST_EMULATE_GPU=1`` (the NumPy backend serving ``cuda:0``) the arrays are
NumPy arrays and SciPy stands in for cupyx.
"""

from __future__ import annotations

import functools
import math
import re
from typing import Any

HALF_NATIVE = False  # float16 arrives as float32

# Functions computed by numr's CUDA C over ``a``, ``b`` (the operands) into ``r``, all of
# type R (double, or float for F32_NATIVE's float32 calls), with CUDA's own libm (its
# float overloads for float): where cupyx has none, or one that needs a second pass
# (cupyx's rel_entr gives -inf for rel_entr(1e-300, 1e25); its xlogy and xlog1py need
# NaN masks applied afterwards), or one that loses digits (cupyx's logit, log(x / (1 - x)),
# was 46 eps off in float32 near x = 1/2; its log_ndtr takes erfc of the rounded x / sqrt 2,
# whose error grows as x^2: 100 eps at x = 10).
_OWN = {
    "softplus": (1, "r = a > 0 ? a + log1p(exp(-a)) : log1p(exp(a));"),
    # x log(x / y), with the logarithms apart where x / y underflows or overflows
    "rel_entr": (2, """
        if (isnan(a) || isnan(b)) { r = a + b; }
        else if (a > 0 && b > 0) {
            R q = a / b;
            r = (q > 0 && !isinf(q)) ? a * log(q) : a * (log(a) - log(b));
        } else if (a == 0 && b >= 0) { r = 0; } else { r = 1.0 / 0.0; }"""),
    "xlogy": (2, "r = (a == 0 && !isnan(b)) ? 0 : a * log(b);"),
    "xlog1py": (2, "r = (a == 0 && !isnan(b)) ? 0 : a * log1p(b);"),
    # float32 only (F32_ONLY; cupyx's float64 logit is within 25 eps and twice as fast):
    # 2 atanh(2x - 1) on [1/4, 3/4] (2x - 1 exact there), log(x / (1 - x)) outside
    "logit": (1, "r = (4 * a >= 1 && 4 * a <= 3) ? 2 * atanh(2 * a - 1) : log(a / (1 - a));"),
    # log ndtr(x), ndtr(x) = erfcx(-x / sqrt 2) exp(-x^2 / 2) / 2, with x^2 the exact pair
    # p + q (fma; cupyx's erfc of the rounded x / sqrt 2 carries its error times x^2):
    # x <= 0 as log(erfcx(|h|) / 2) - x^2 / 2 (no underflow, both terms negative), x > 0
    # as log1p(-erfc(h) / 2) with erfc(h) = erfcx(|h|) exp(-x^2 / 2): one erfcx for both
    "log_ndtr": (1, """
        const R h = a * (R)0.7071067811865476, p = a * a;
        const R q = isinf(p) ? (R)0 : fma(a, a, -p);
        const R e = erfcx(fabs(h));
        if (isnan(a)) { r = a; }
        else if (a > 0) { r = log1p(-(e * exp(-p / 2) * (1 - q / 2)) / 2); }
        else { r = (log(e / 2) - p / 2) - q / 2; }"""),
}


# Functions whose float32 calls run in float32 arithmetic: cupyx's float32 loop, or the
# _OWN body over floats; measured on the H200 within 3 eps of the true value over the
# accuracy test's samples (tools/special_accuracy.py; the bounds in
# tests/special/test_special.py, docs/special.md), at cupyx's float32 speed (float64
# arithmetic had cost 1.15-3.9x it). The rest compute in float64.
F32_CANDIDATES = frozenset({
    "erf", "erfc", "erfcx", "erfinv", "erfcinv", "expit", "logit", "ndtr", "ndtri",
    "gammaln", "gamma", "psi", "digamma", "entr", "i0", "i0e", "i1", "i1e", "k0", "k1",
    "k0e", "k1e", "ellipk", "betaln", "polygamma", "softplus", "rel_entr", "xlogy",
    "xlog1py", "log_ndtr"})
F32_NATIVE = F32_CANDIDATES
# _OWN functions whose float64 calls take cupyx's loop
F32_ONLY = frozenset({"logit"})
# (F32_CANDIDATES: the functions that can; ``--cuda-f32-native`` of
# tools/special_accuracy.py and benchmarks/special.py measures them all)


# Block size and the most blocks of numr's own kernels (a grid-stride loop covers the rest)
_BLOCK, _GRID = 256, 65536
_CTYPE = {"float32": "float", "float64": "double"}


@functools.cache
def _numr_kernel(name: str, types: tuple):
    """numr's own kernel of ``name`` over operands of C types ``types[:3]`` (each read at
    ``i * stride``: 1, or 0 for one value broadcast) into a result of C type ``types[3]``:
    a float result of ``_cuda_src.ENTRIES_F32`` computes in float (the WGSL's float32
    algorithm), any other in double (``ENTRIES``: operands widened as loaded, the result
    narrowed as stored). Compiled without contraction (the double-word arithmetic needs
    every operation rounded as written, as on WebGPU). A RawKernel: CuPy's
    ElementwiseKernel made betainc 1.3x slower on the H200."""
    import cupy

    from . import _cuda_src as src

    ta, tb, tc, ty = types
    f32 = ty == "float" and name in src.ENTRIES_F32
    ct, entry = ("float", src.ENTRIES_F32[name]) if f32 else ("double", src.ENTRIES[name])
    fn = f"nrsp_{name}_f32" if f32 else f"nrsp_{name}"
    code = ("#define NR_FN __device__\n#define NR_CONST __constant__\n" + src.PRELUDE
            + (src.HELPERS_F32 if f32 else src.HELPERS) + entry
            + f"\nextern \"C\" __global__ void nrsp_kernel_{name}(const {ta}* a, long long sa, "
            f"const {tb}* b, long long sb, const {tc}* c, long long sc, {ty}* y, long long n) {{\n"
            f"  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;"
            f" i += (long long)blockDim.x * gridDim.x)\n"
            f"    y[i] = ({ty}){fn}(({ct})a[i * sa], ({ct})b[i * sb], ({ct})c[i * sc]);\n}}\n")
    return cupy.RawKernel(code, f"nrsp_kernel_{name}", options=("--fmad=false",))


def _numr(cupy, name: str, ops: list, out):
    """``name`` through numr's own kernel into ``out``: each operand one broadcast value
    or contiguous in ``out``'s shape (others are made so); at most three, the unused
    ones repeating the first."""
    args = []
    for x in ops:
        if x.size == 1:
            args.append((cupy.ascontiguousarray(x), 0))
        elif x.shape == out.shape and x.flags.c_contiguous:
            args.append((x, 1))
        else:
            args.append((cupy.ascontiguousarray(cupy.broadcast_to(x, out.shape)), 1))
    args += [args[0]] * (3 - len(args))
    n = out.size
    if n:
        k = _numr_kernel(name, tuple(_CTYPE[x.dtype.name] for x, _ in args)
                         + (_CTYPE[out.dtype.name],))
        grid = min((n + _BLOCK - 1) // _BLOCK, _GRID)
        k((grid,), (_BLOCK,), (*[v for x, st in args for v in (x, cupy.int64(st))], out,
                               cupy.int64(n)))
    return out


@functools.cache
def _own_kernel(name: str, ctype: str):
    """``_OWN[name]`` with ``a``, ``b`` and ``r`` of C type ``ctype`` (CUDA's libm picks
    the float overloads for float)."""
    import cupy

    nargs, body = _OWN[name]
    load = "; ".join(f"const {ctype} {v} = ({ctype}){v}_in" for v in "ab"[:nargs])
    params = ", ".join(f"{t} {v}_in" for t, v in zip("AB", "ab"[:nargs]))
    return cupy.ElementwiseKernel(params, "Y y",
                                  f"typedef {ctype} R; {load}; R r; {body}\ny = (Y)r;",
                                  f"numr_special_{name}_{ctype}")


def _lib(native: Any):
    """cupyx.scipy.special for CuPy arrays; scipy.special for the emulated GPU."""
    if type(native).__module__.startswith("numpy"):
        from ._cpu import scipy_special

        return scipy_special()
    import cupyx.scipy.special as csp

    return csp


def _cupyx(lib: Any, name: str):
    from ._cpu import native_name

    f = getattr(lib, native_name(name), None)
    if f is not None:
        return f
    if name == "erfcinv":       # CuPy before 14: from ndtri
        nd = _cupyx(lib, "ndtri")
        return lambda z: nd(z * 0.5) * -0.7071067811865476
    if name == "digamma":
        return _cupyx(lib, "psi")
    raise NotImplementedError(f"{name}: cupyx.scipy.special has no {name} and numr has "
                              f"no CUDA kernel for it yet")


def compute(name: str, operands: list, d: Any, shape: tuple, dev: Any):
    natives = [x for x in operands if not isinstance(x, float)]
    lib = _lib(natives[0])
    if lib.__name__ == "scipy.special":
        import numpy as xp

        args = [xp.asarray(x, dtype=xp.float64) for x in operands]
        out = xp.asarray(_cupyx(lib, name)(*args)).reshape(shape)
        return _limits(xp, name, args, out).astype(d.name)
    import cupy

    from ._cuda_src import ENTRIES

    with cupy.cuda.Device(dev.index):  # the arrays' GPU, where several are present
        # Python scalars as 0-d float64 arrays (a Python float would pick CuPy's dtype
        # by itself), arrays as they are: the kernels widen them
        ops = [cupy.asarray(x, dtype=cupy.float64) if isinstance(x, float) else x
               for x in operands]
        out = cupy.empty(shape, dtype=d.name)
        if name in ENTRIES:
            return _numr(cupy, name, ops, out)
        ctype = "float" if d.name == "float32" and name in F32_NATIVE else "double"
        if name in _OWN and (ctype == "float" or name not in F32_ONLY):
            return _own_kernel(name, ctype)(*ops, out)
        f = _cupyx(lib, name)
        k = None
        if isinstance(f, cupy.ufunc):   # float32's loop where it has one, else float64's
            k = _ufunc_kernel(f, name, len(ops), ctype) or _ufunc_kernel(f, name, len(ops))
        if k is not None:
            return k(*ops, out)
        # a composition of cupyx functions (polygamma), or a ufunc whose loops CuPy does
        # not show: float64 operands (float32 for F32_NATIVE), the limits applied after
        wide = cupy.float32 if ctype == "float" else cupy.float64
        args = [a.astype(wide, copy=False) for a in ops]
        y = _limits(cupy, name, args, cupy.asarray(f(*args)).reshape(shape))
        return y.astype(d.name, copy=False)


# C for the limits cupyx's loops miss, applied to their result ``out0`` from the operand
# ``in0`` (as _limits does for compositions): i0, i1 at +-inf (cupyx gives nan); i0e, i1e
# for |x| > BIG and k0e, k1e for x > BIG, where cupyx's give nan (exp(x) overflows inside;
# k0e(3625.1) was nan on the H200): the asymptotic series of _large_ie, in double. BIG is
# 700 for double and 80 for float (expf overflows past 88.7; at 80 the series' ninth term
# is below 1e-16).
_SERIES = """{ const double z = fabs(in0); double term = 1, total = 1;
  for (int k = 1; k <= 8; ++k) {
    term = term * (%(v2)s - (double)((2 * k - 1) * (2 * k - 1))) / (k * 8 * z) * %(sign)s;
    total += term; }
  out0 = %(value)s; }"""
_FIX = {
    "i0": "if (isinf(in0)) out0 = fabs(in0);",
    "i1": "if (isinf(in0)) out0 = in0;",
    **{n: f"if ({cond}) " + _SERIES % {
        "v2": "0.0" if n[1] == "0" else "4.0", "sign": "1" if n[0] == "k" else "-1",
        "value": ("total * sqrt(3.141592653589793 / (2 * z))" if n[0] == "k" else
                  "(in0 < 0 ? -1 : 1) * total / sqrt(6.283185307179586 * z)" if n == "i1e" else
                  "total / sqrt(6.283185307179586 * z)")}
       for n, cond in (("i0e", "fabs(in0) > BIG"), ("i1e", "fabs(in0) > BIG"),
                       ("k0e", "in0 > BIG"), ("k1e", "in0 > BIG"))},
}


@functools.cache
def _ufunc_kernel(f: Any, name: str, nargs: int, ctype: str = "double"):
    """cupyx ufunc ``f``'s loop of C type ``ctype`` (float64's, or float32's) as one kernel
    over operands of any float dtype, converted to ``ctype`` as loaded, the result
    narrowed to ``y``'s dtype as stored, with numr's limits
    (``_FIX``; NaN in, NaN out where there are several operands, but for betaln, whose
    SciPy value at (-inf, nan) is inf): its routine and preamble in an ElementwiseKernel.
    (``f(x32, dtype=float64)`` does not do this: CuPy picks the first loop whose output
    is float64, cupyx's "e->d", and rounds the operand to float16.) None where the ufunc
    does not show them (they are CuPy's private attributes)."""
    import cupy

    try:
        ops = f._ops.ops if hasattr(f._ops, "ops") else f._ops
        d = cupy.dtype("float64" if ctype == "double" else "float32").type
        op = next(o for o in ops if tuple(o.in_types) == (d,) * nargs
                  and tuple(o.out_types) == (d,))
        routine, preamble = op.routine, f._preamble
    except (AttributeError, StopIteration, TypeError):
        return None
    if not isinstance(routine, str) or getattr(f, "_loop_prep", ""):
        return None
    fix = _FIX.get(name, "").replace("BIG", "700" if ctype == "double" else "80")
    if nargs > 1 and name != "betaln":
        fix += " if (" + " || ".join(f"isnan(in{j})" for j in range(nargs)) + ") out0 = NAN;"
    load = " ".join(f"const {ctype} in{j} = ({ctype})in{j}_raw;" for j in range(nargs))
    types = " ".join(f"typedef {ctype} in{j}_type;" for j in range(nargs))
    # CuPy's type placeholders are single capital letters: ones no name of the
    # preamble is (betaln's has arrays A and B)
    *ts, ty = [c for c in "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
               if not re.search(rf"\b{c}\b", preamble)][:nargs + 1]
    params = ", ".join(f"{t} in{j}_raw" for j, t in enumerate(ts))
    return cupy.ElementwiseKernel(
        params, f"{ty} y", f"{types} typedef {ctype} out0_type; {load} {ctype} out0;\n"
        f"{routine};\n{fix}\ny = ({ty})out0;", f"numr_{name}_{nargs}_{ctype}",
        preamble=preamble)


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
    elif name in ("i0e", "i1e", "k0e", "k1e") and xp.__name__ != "numpy":
        out = _large_ie(xp, name, args[0], out)
    if name in ("zeta", "beta") and xp.__name__ == "numpy":
        from ._cpu import beta_limits, zeta_limits   # SciPy standing in (the emulated GPU)

        out = (zeta_limits if name == "zeta" else beta_limits)(xp, args, out)
    if name != "betaln" and len(args) > 1:
        if xp.__name__ != "numpy" and len(args) == 2:
            return _nan_mask()(*args, out)     # one pass, not four
        nan = functools.reduce(xp.logical_or, [xp.isnan(a) for a in args])
        out = xp.where(nan, xp.asarray(xp.nan, dtype=out.dtype), out)
    return out


@functools.cache
def _nan_mask():
    """y = NaN where a or b is NaN, else v."""
    import cupy

    return cupy.ElementwiseKernel("A a, B b, Y v", "Y y",
                                  'y = (isnan(a) || isnan(b)) ? (Y)nan("") : v;',
                                  "numr_nan_mask2")


def _large_ie(xp, name: str, x, out):
    """i0e, i1e for |x| > 700 and k0e, k1e for x > 700, where cupyx's give nan (exp(x)
    overflows inside; k0e(3625.1) was nan on the H200): the asymptotic series
    e^-|x| I_v(|x|) ~ (2 pi |x|)^-1/2 sum_k (-1)^k a_k(v) / |x|^k and
    e^x K_v(x) ~ (pi / (2 x))^1/2 sum_k a_k(v) / x^k,
    a_k(v) = prod_{j<=k} (4 v^2 - (2j - 1)^2) / (k! 8^k) (Abramowitz & Stegun 9.7.1,
    9.7.2); eight terms leave < 1e-19 there."""
    v2 = 0.0 if name in ("i0e", "k0e") else 4.0
    k_kind = name[0] == "k"
    ax = xp.abs(x)
    big = (x > 700) if k_kind else (ax > 700)
    z = xp.where(big, ax, 1000.0)
    term, total = xp.ones_like(z), xp.ones_like(z)
    for k in range(1, 9):
        term = term * (v2 - (2 * k - 1) ** 2) / (k * 8 * z) * (1 if k_kind else -1)
        total = total + term
    r = total * xp.sqrt(math.pi / (2 * z)) if k_kind else total / xp.sqrt(2 * math.pi * z)
    if name == "i1e":
        r = xp.where(x < 0, -r, r)
    return xp.where(big, r, out)    # +-inf: 0 (SciPy's limit)
