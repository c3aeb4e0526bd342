"""numr.special on CUDA: ``cupyx.scipy.special`` where it has the function, numr's own
CuPy ElementwiseKernels where it has not (``_OWN``), on the arrays' GPU.

Under ``NUMR_TEST_EMULATE_GPU=1`` (the NumPy backend serving ``cuda:0``) the arrays are
NumPy arrays and SciPy stands in for cupyx.
"""

from __future__ import annotations

import functools
from typing import Any

HALF_NATIVE = False  # float16 arrives as float32

# Functions cupyx.scipy.special lacks (or lacked before CuPy 14), as CUDA C over double
# or float ``T``: the body assigns ``y`` from the inputs ``a``, ``b``.
_OWN = {
    "softplus": ("T a", "y = a > 0 ? a + log1p(exp(-a)) : log1p(exp(a))"),
    "betaincc": None,   # composed below from betainc
    "erfcinv": None,    # composed below from ndtri
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
    if f is not None:
        return f
    if name == "betaincc":
        bi = _function(lib, "betainc")
        return lambda a, b, x: bi(b, a, 1 - x)
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
    # Python scalars as 0-d arrays of the dtype (a Python float would make CuPy's
    # ufuncs compute in float64 for float32 arrays)
    args = [x if not isinstance(x, float) else xp.asarray(x, dtype=cd) for x in operands]
    f = _function(lib, name)
    if xp.__name__ == "numpy":
        return _limits(xp, name, args, xp.asarray(f(*args)).astype(cd, copy=False).reshape(shape))
    with xp.cuda.Device(dev.index):  # the arrays' GPU, where several are present
        out = xp.asarray(f(*args)).astype(cd, copy=False).reshape(shape)
        return _limits(xp, name, args, out)


def _limits(xp, name: str, args: list, out):
    """i0 and i1 at +-inf: their limits, as on the other devices (SciPy gives nan)."""
    if name == "i0":
        return xp.where(xp.isinf(args[0]), xp.abs(args[0]), out)
    if name == "i1":
        return xp.where(xp.isinf(args[0]), args[0], out)
    return out
