"""The public functions of numr.special: validation, dtypes and shapes, then one
kernel per device kind.

numr decides here, the same on every device:

* arguments are numr Arrays or Python scalars (bool, int, float; a NumPy scalar is
  unwrapped); complex values raise TypeError, arrays on different devices ValueError;
* the result dtype is the promotion of the arguments (``numr.result_type``, scalars
  joining as in ``array op scalar``); integer and bool results become the device's
  default real floating dtype (as SciPy's ufuncs give float64 for integers);
* float16 (and bfloat16, where numr has it) compute in float32 and round back to the
  argument dtype;
* the arguments broadcast against each other (ValueError naming the shapes).

Calls with only Python scalars compute on the default device (a 0-d result).
"""

from __future__ import annotations

from typing import Any

from .. import _dtypes as dt
from .._array import Array
from .._data_type import result_type
from .._devices import default_device
from .._checks import as_scalar as _as_scalar, broadcast_shape

# name -> number of array arguments; the SciPy function of the same name is the oracle
# (digamma is SciPy's alias of psi). The order is the docs' order.
FUNCTIONS = {
    # SciPy's array-API list
    "betainc": 3, "betaincc": 3, "chdtr": 2, "chdtrc": 2, "entr": 1, "erf": 1,
    "erfc": 1, "erfinv": 1, "expit": 1, "gammainc": 2, "gammaincc": 2, "gammaln": 1,
    "i0": 1, "i0e": 1, "i1": 1, "i1e": 1, "log_ndtr": 1, "logit": 1, "ndtr": 1,
    "ndtri": 1, "psi": 1, "rel_entr": 2, "stdtr": 2, "xlog1py": 2, "xlogy": 2,
    # beyond it
    "gamma": 1, "digamma": 1, "beta": 2, "betaln": 2, "erfcinv": 1, "erfcx": 1,
    "j0": 1, "j1": 1, "y0": 1, "y1": 1, "k0": 1, "k1": 1, "k0e": 1, "k1e": 1,
    "ellipk": 1, "ellipe": 1, "softplus": 1, "polygamma": 2, "zeta": 2,
}

_BF16 = getattr(dt, "bfloat16", None)
# dtypes computed in float32 on the CPU and CUDA (WebGPU's kernels load and store them
# as float32 values already)
HALF = frozenset(d for d in (dt.float16, _BF16) if d is not None)

_KERNELS: dict = {}


def _kernels(kind: str):
    """The kernel module of a device kind (looked up once a kind)."""
    k = _KERNELS.get(kind)
    if k is None:
        if kind == "cpu":
            from . import _cpu as k
        elif kind == "cuda":
            from . import _cuda as k
        elif kind == "webgpu":
            from . import _webgpu as k
        else:
            raise ValueError(f"numr.special: no kernels for device kind {kind!r}")
        _KERNELS[kind] = k
    return k


def _scalar(name: str, v: Any):
    s = _as_scalar(v)
    if s is None:
        raise TypeError(f"{name}: expected numr arrays or Python scalars, got "
                        f"{type(v).__name__}")
    if isinstance(s, complex):
        raise TypeError(f"{name}: complex arguments are not supported (got {s!r}); "
                        f"numr.special is defined for real floating-point values")
    return s


def call(name: str, args: tuple, kernel: str | None = None) -> Array:
    """``name(*args)`` computed on the arguments' device (by the kernels of ``kernel``,
    where it is not ``name``'s own: rzeta for zeta(x))."""
    arrays = [a for a in args if isinstance(a, Array)]
    if not arrays:
        import numr

        dev = default_device()
        args = tuple(numr.asarray(float(_scalar(name, v)), device=dev) for v in args)
        arrays = list(args)
    dev = arrays[0]._device
    for a in arrays[1:]:
        if a._device != dev:
            raise ValueError(f"{name}: arrays are on different devices, {dev} and "
                             f"{a._device}; move one with to_device()")
    scalars = [_scalar(name, a) for a in args if not isinstance(a, Array)]
    d = result_type(*arrays, *[float(s) for s in scalars])
    if d.kind == "complex":
        raise TypeError(f"{name}: complex dtype {d} is not supported; numr.special is "
                        f"defined for real floating-point arrays")
    if d.kind != "float":
        d = dev.defaults["real floating"]
    shape = broadcast_shape([a.shape for a in arrays], name)
    k = _kernels(dev.kind)
    cd = dt.float32 if d in HALF and not k.HALF_NATIVE else d
    operands = []
    for a in args:
        if isinstance(a, Array):
            operands.append(a._data if a._dtype is cd else dev.ops.astype(a._data, cd, False))
        else:
            operands.append(float(_scalar(name, a)))
    out = k.compute(kernel or name, operands, cd, shape, dev)
    if cd is not d:
        out = dev.ops.astype(out, d, False)
    return Array._new(out, d, dev)


# SciPy's argument names (its docstrings' signatures) where they are not x, y, z: the
# docstrings, errors and stubs, and the keywords of KEYWORDS' functions
ARG_NAMES = {"betainc": "a, b, x", "betaincc": "a, b, x", "gammainc": "a, x",
             "gammaincc": "a, x", "chdtr": "v, x", "chdtrc": "v, x", "stdtr": "df, t",
             "beta": "a, b", "betaln": "a, b", "ellipk": "m", "ellipe": "m",
             "erf": "z", "erfinv": "y", "ndtri": "y", "psi": "z", "digamma": "z",
             "gamma": "z", "polygamma": "n, x", "zeta": "x, q"}


# Functions whose last argument SciPy lets be omitted (or None), and the kernel that
# computes them then: zeta(x) is Riemann's zeta, not Hurwitz's zeta(x, q)
OPTIONAL = {"zeta": "rzeta"}

# SciPy's Python functions (zeta(x, q=None), polygamma(n, x), softplus(x)) take their
# arguments by keyword too; the rest are NumPy ufuncs there, whose arguments are
# positional only (scipy.special.erf(z=1.0) is a TypeError), and so are numr's.
KEYWORDS = frozenset({"zeta", "polygamma", "softplus"})


def arg_names(name: str) -> str:
    nargs = FUNCTIONS[name]
    return ARG_NAMES.get(name, ", ".join(["x", "y", "z"][:nargs] if nargs > 1 else ["x"]))


def signature(name: str):
    """The inspect.Signature of public function ``name`` (its stub's, SciPy's)."""
    import inspect

    kind = (inspect.Parameter.POSITIONAL_OR_KEYWORD if name in KEYWORDS
            else inspect.Parameter.POSITIONAL_ONLY)
    names = arg_names(name).split(", ")
    params = [inspect.Parameter(a, kind) for a in names]
    if name in OPTIONAL:
        params[-1] = params[-1].replace(default=None)
    return inspect.Signature(params)


_MISSING = object()


def _bind(name: str, names: list, args: tuple, kwargs: dict) -> tuple:
    """``args`` with ``kwargs`` put in their places (SciPy's keywords, KEYWORDS only), or
    TypeError naming the function and its parameters; an omitted optional last argument
    is None."""
    n = len(names)
    if kwargs and name not in KEYWORDS:
        raise TypeError(f"{name}() takes positional arguments only ({', '.join(names)}), "
                        f"as scipy.special.{name}; got keyword {next(iter(kwargs))!r}")
    if len(args) > n:
        raise TypeError(f"{name}() takes {n} argument{'s' * (n > 1)} ({', '.join(names)}), "
                        f"got {len(args) + len(kwargs)}")
    vals = list(args) + [_MISSING] * (n - len(args))
    for k, v in kwargs.items():
        if k not in names:
            raise TypeError(f"{name}() got an unexpected keyword argument {k!r} "
                            f"(its parameters: {', '.join(names)})")
        i = names.index(k)
        if vals[i] is not _MISSING:
            raise TypeError(f"{name}() got multiple values for argument {k!r}")
        vals[i] = v
    if name in OPTIONAL and vals[-1] is _MISSING:
        vals[-1] = None
    missing = [a for a, v in zip(names, vals) if v is _MISSING]
    if missing:
        raise TypeError(f"{name}() takes {n} argument{'s' * (n > 1)} ({', '.join(names)}), "
                        f"missing {', '.join(missing)}")
    return tuple(vals)


def _make(name: str, nargs: int):
    names = arg_names(name).split(", ")

    def f(*args, **kwargs):
        if kwargs or len(args) != nargs or name in OPTIONAL:
            args = _bind(name, names, args, kwargs)
        if name in OPTIONAL and args[-1] is None:
            # SciPy's zeta(x) (q omitted or None) is Riemann's, defined for every real x
            return call(name, args[:-1], OPTIONAL[name])
        return call(name, args)

    f.__name__ = f.__qualname__ = name
    f.__module__ = "numr.special"
    f.__signature__ = signature(name)
    oracle = "psi" if name == "digamma" else name
    f.__doc__ = (f"{name}{f.__signature__}: elementwise, as ``scipy.special.{oracle}``, on "
                 f"the arguments' device; see docs/special.md for the accuracy per device.")
    return f
