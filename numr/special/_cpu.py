"""numr.special on the CPU: SciPy's ufuncs on the NumPy arrays (SciPy is optional,
imported at the first call: ``pip install "numr[special]"``)."""

from __future__ import annotations

from typing import Any

import numpy as np

HALF_NATIVE = False  # float16 arrives as float32
_SCIPY: list = []


def scipy_special():
    """scipy.special, imported once; ImportError naming the extra when it is missing."""
    if not _SCIPY:
        try:
            import scipy.special as sp
        except ImportError as e:  # pragma: no cover - scipy is in [test]
            raise ImportError("numr.special needs SciPy on the CPU: pip install "
                              "\"numr[special]\" (scipy>=1.14)") from e
        _SCIPY.append(sp)
    return _SCIPY[0]


# numr's kernel names that are not SciPy's: rzeta is zeta(x) with q omitted (Riemann's)
_NATIVE = {"digamma": "psi", "rzeta": "zeta"}


def native_name(name: str) -> str:
    return _NATIVE.get(name, name)


def compute(name: str, operands: list, d: Any, shape: tuple, dev: Any) -> np.ndarray:
    f = getattr(scipy_special(), native_name(name))
    cd = np.dtype(d.name)
    # float32 computes in float64 and rounds once: SciPy's float32 loops of betainc and
    # stdtr are up to 3.6e5 eps off
    args = [np.asarray(x, dtype=np.float64) for x in operands]
    with np.errstate(all="ignore"):
        out = np.asarray(f(*args)).astype(cd, copy=False).reshape(shape)
    if name == "zeta":
        out = zeta_limits(np, args, out)
    elif name == "beta":
        out = beta_limits(np, args, out)
    if name in _AT_INF:
        # Note: SciPy 1.17 gives nan for i0(+-inf), i1(+-inf), j0, j1 (+-inf) and y0, y1
        # (+inf); numr gives the limits, the same on every device.
        x = args[0]
        out = np.where(np.isinf(x), _AT_INF[name](x), out)
    return out


def _zero(x):
    return np.zeros_like(x)


def _zero_above(x):
    return np.where(x > 0, 0.0, np.nan)


_AT_INF = {"i0": np.abs, "i1": lambda x: x, "j0": _zero, "j1": _zero, "y0": _zero_above,
           "y1": _zero_above}


def zeta_limits(xp, args, out):
    """zeta(x, q) as on WebGPU, where SciPy 1.17 differs: the limit 0 at x = +inf for
    q > 1 (SciPy: nan), and NaN in, NaN out (SciPy: zeta(1, nan) = zeta(nan, 0) = inf)."""
    x, q = args
    out = xp.where((x == xp.inf) & (q > 1), xp.asarray(0.0, dtype=out.dtype), out)
    return xp.where(xp.isnan(x) | xp.isnan(q), xp.asarray(xp.nan, dtype=out.dtype), out)


def beta_limits(xp, args, out):
    """beta(a, b) as on WebGPU, where SciPy 1.17 differs: NaN in, NaN out and NaN at -inf
    (the poles accumulate there; SciPy: inf for beta(nan, 0), beta(x, -inf)), and the
    limit 0 at +inf against a finite positive argument (SciPy: nan for beta(inf, 1e300))."""
    a, b = args
    zero = ((a == xp.inf) & (b > 0) & xp.isfinite(b)) | ((b == xp.inf) & (a > 0) & xp.isfinite(a))
    out = xp.where(zero, xp.asarray(0.0, dtype=out.dtype), out)
    nan = xp.isnan(a) | xp.isnan(b) | (a == -xp.inf) | (b == -xp.inf)
    return xp.where(nan, xp.asarray(xp.nan, dtype=out.dtype), out)
