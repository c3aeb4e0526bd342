"""Argument handling shared by the Generator's methods: devices, dtypes, shapes, array
parameters. Errors name the method and the offending value, the same on every device."""

from __future__ import annotations

import math
import operator
import sys
from typing import Any

import numpy as np

from .. import _dtypes as dt
from .._array import Array
from .._devices import default_device, get_device
from ._philox import _shape

__all__ = ["device_of", "float_dtype", "compute_dtype", "param", "out_shape", "check",
           "as_shape", "FLOATS"]

as_shape = _shape


def _floats() -> tuple:
    bf16 = getattr(dt, "bfloat16", None)
    return (dt.float16, dt.float32, dt.float64) + ((bf16,) if bf16 is not None else ())


FLOATS = _floats()


def _unwrap(v: Any) -> Any:
    """A numr.autograd Var's value: draws are constants, no gradient reaches them."""
    mod = sys.modules.get("numr.autograd._var")
    if mod is not None and isinstance(v, mod.Var):
        return v.value
    return v


def device_of(func: str, device: Any, *params: Any) -> Any:
    """The device of a draw: ``device`` where given (array parameters must be on it),
    else that of the first array parameter, else the default device."""
    arrays = [p for p in map(_unwrap, params) if isinstance(p, Array)]
    if device is not None:
        dev = get_device(device, func)
    elif arrays:
        dev = arrays[0]._device
    else:
        dev = default_device()
    for a in arrays:
        if a._device != dev:
            raise ValueError(f"{func}: a parameter is on {a._device} but the draw is on "
                             f"{dev}; move it with to_device")
    return dev


def float_dtype(func: str, dtype: Any, device: Any) -> Any:
    """The result dtype of a floating-point draw (default: the device's default float)."""
    if dtype is None:
        dtype = device.defaults["real floating"]
    if not isinstance(dtype, dt.DType) or dtype not in FLOATS:
        names = ", ".join(d.name for d in FLOATS)
        raise TypeError(f"{func}: dtype must be a real floating-point dtype ({names}), "
                        f"got {dtype!r}")
    if dtype not in device.dtypes:
        raise TypeError(f"{func}: {device} has no {dtype}")
    return dtype


def compute_dtype(dtype: Any, device: Any = None, wide: bool = False) -> Any:
    """float64 draws compute in float64, every narrower float in float32, or (``wide``)
    in float64 where the device holds it: the gamma family's steps (1 + c z)^3 and
    x / (x + y) amplify the devices' last-bit differences in log, cos and sin to tens of
    ULP; in float64 those vanish when the result is rounded to float32."""
    if dtype is dt.float64 or (wide and dt.float64 in device.dtypes):
        return dt.float64
    return dt.float32


def param(func: str, name: str, v: Any, cdtype: Any, device: Any) -> Any:
    """A distribution parameter: a Python float stays a scalar; arrays (numr, NumPy,
    nested lists) become a numr Array of ``cdtype`` on ``device``."""
    v = _unwrap(v)
    if isinstance(v, (bool, np.bool_)):
        raise TypeError(f"{func}: {name} must be a real number or array, got bool")
    if isinstance(v, (int, float, np.integer, np.floating)):
        return float(v)
    from .._creation import asarray
    from .._data_type import astype

    if isinstance(v, Array):
        if v._dtype.kind not in ("int", "uint", "float"):
            raise TypeError(f"{func}: {name} must be real, got dtype {v._dtype}")
        return v if v._dtype is cdtype else astype(v, cdtype)
    try:
        return asarray(np.asarray(v, dtype=np.float64), dtype=cdtype, device=device)
    except (TypeError, ValueError):
        raise TypeError(f"{func}: {name} must be a real number or array, got "
                        f"{type(v).__name__}") from None


def out_shape(func: str, size: Any, *params: Any) -> tuple:
    """``size`` as a shape, or (None) the broadcast shape of the array parameters; every
    parameter must broadcast to it."""
    shapes = [p.shape for p in params if isinstance(p, Array)]
    try:
        bshape = np.broadcast_shapes(*shapes) if shapes else ()
    except ValueError:
        raise ValueError(f"{func}: parameter shapes {shapes} cannot be broadcast "
                         f"together") from None
    if size is None:
        return tuple(bshape)
    shape = _shape(func, size)
    try:
        if np.broadcast_shapes(shape, bshape) != shape:
            raise ValueError
    except ValueError:
        raise ValueError(f"{func}: parameters of shape {tuple(bshape)} cannot be broadcast "
                         f"to size {shape}") from None
    return shape


def check(func: str, name: str, v: Any, test: str, what: str) -> None:
    """Raise ValueError unless every value of ``v`` passes ``test`` (``">=0"``, ``">0"``,
    ``"[0,1]"``): Python scalars are checked here, arrays on their device."""
    from .. import _elementwise as ew
    from .._utility import all as all_

    if isinstance(v, Array):
        ok = {">=0": lambda a: a >= 0, ">0": lambda a: a > 0, "finite": ew.isfinite,
              "[0,1]": lambda a: ew.logical_and(a >= 0, a <= 1)}[test](v)
        good = bool(all_(ok))
        shown = "an element that is not"
    else:
        good = {">=0": lambda a: a >= 0, ">0": lambda a: a > 0, "finite": math.isfinite,
                "[0,1]": lambda a: 0 <= a <= 1}[test](v)
        shown = repr(v)
    if not good:
        raise ValueError(f"{func}: {name} must be {what}, got {shown}")


def size_of(shape: tuple) -> int:
    return math.prod(shape)


def index(func: str, name: str, v: Any) -> int:
    try:
        return operator.index(v)
    except TypeError:
        raise TypeError(f"{func}: {name} must be an int, got {type(v).__name__}") from None
