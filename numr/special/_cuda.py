"""numr.special on CUDA, on the arrays' GPU: numr's own kernels for the functions whose
cupyx versions miss numr's accuracy (gammainc gammaincc chdtr chdtrc betainc betaincc
stdtr ellipe log_ndtr j0 j1 y0 y1 zeta beta: the C++ that ``_to_c.py`` generates from their
WGSL, ``_cuda_src.py``, so that CUDA runs the algorithm verified on WebGPU),
``cupyx.scipy.special`` for the rest, and small ElementwiseKernels where cupyx has no
function (``_OWN``).

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
    "erfcinv": None,    # composed below from ndtri
    "digamma": None,    # cupyx's psi
}

# Block size and the most blocks of numr's own kernels (a grid-stride loop covers the rest)
_BLOCK, _GRID = 256, 65536


def kernel_source(name: str) -> str:
    """The CUDA C++ of numr's own kernel ``nrsp_kernel_<name>`` for a function of
    ``_cuda_src.ENTRIES``: the helpers generated from its WGSL and a grid-stride loop."""
    from . import _cuda_src as src

    return ("#define NR_FN __device__\n#define NR_CONST __constant__\n" + src.PRELUDE + src.HELPERS + src.ENTRIES[name]
            + f"\nextern \"C\" __global__ void nrsp_kernel_{name}(const double* a, "
            f"const double* b, const double* c, double* y, long long n) {{\n"
            f"  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;"
            f" i += (long long)blockDim.x * gridDim.x) y[i] = nrsp_{name}(a[i], b[i], c[i]);\n}}\n")


@functools.cache
def _numr_kernel(name: str):
    """numr's own kernel of ``name``, compiled without contraction (the double-word
    arithmetic needs every operation rounded as written, as on WebGPU)."""
    import cupy

    return cupy.RawKernel(kernel_source(name), f"nrsp_kernel_{name}", options=("--fmad=false",))


def _numr(name: str):
    """``name`` through numr's own kernel: operands broadcast to one contiguous float64
    shape (at most three; the unused ones repeat the first)."""
    import cupy
    import numpy

    def f(*args):
        shape = numpy.broadcast_shapes(*[a.shape for a in args])
        ops = [cupy.ascontiguousarray(cupy.broadcast_to(a, shape), dtype=cupy.float64)
               for a in args]
        ops += [ops[0]] * (3 - len(ops))
        y = cupy.empty(shape, dtype=cupy.float64)
        n = y.size
        if n:
            grid = min((n + _BLOCK - 1) // _BLOCK, _GRID)
            _numr_kernel(name)((grid,), (_BLOCK,), (*ops, y, cupy.int64(n)))
        return y
    return f


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
    from ._cuda_src import ENTRIES

    if name in ENTRIES and lib.__name__ != "scipy.special":
        return _numr(name)
    from ._cpu import native_name

    f = getattr(lib, native_name(name), None)
    if f is not None and not (name in _OWN and _OWN[name] and lib.__name__ != "scipy.special"):
        return f
    if name == "erfcinv":
        nd = _function(lib, "ndtri")
        return lambda z: nd(z * 0.5) * -0.7071067811865476
    if _OWN.get(name):
        return _own_kernel(name)
    raise NotImplementedError(f"{name}: cupyx.scipy.special has no {name} and numr has "
                              f"no CUDA kernel for it yet")


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
    elif name in ("i0e", "i1e", "k0e", "k1e"):
        out = _large_ie(xp, name, args[0], out)
    if name in ("zeta", "beta") and xp.__name__ == "numpy":
        from ._cpu import beta_limits, zeta_limits   # SciPy standing in (the emulated GPU)

        out = (zeta_limits if name == "zeta" else beta_limits)(xp, args, out)
    if name != "betaln" and len(args) > 1:
        nan = functools.reduce(xp.logical_or, [xp.isnan(a) for a in args])
        out = xp.where(nan, xp.asarray(xp.nan, dtype=out.dtype), out)
    return out


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
