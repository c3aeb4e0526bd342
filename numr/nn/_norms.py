"""The public normalization functions of numr.nn: validation, then one kernel per backend.

Every function normalizes over the last axis of ``x`` (any leading shape, zero rows
included). numr decides here, the same on every device: arguments are checked and the
errors name the function and the argument; the result dtype is the input dtype
(float16 and bfloat16 inputs accumulate in float32, float32 in float32, float64 in
float64).

The backward family
-------------------
Each ``*_backward`` takes the gradients of the forward's outputs first, then what the
forward read (for the ``add_`` ops: the sum ``s`` the forward returned, not ``x`` and
``residual``, so the backward reads one array instead of two), then the parameters, and
returns the gradient of every forward input in the forward's argument order, ``None`` for
an absent weight or bias:

====================================================  =====================================
``rms_norm_backward(gy, x, weight, *, eps)``           ``(gx, gweight)``
``layer_norm_backward(gy, x, weight, bias, *, eps)``   ``(gx, gweight, gbias)``
``add_rms_norm_backward(gy, gs, s, weight, *, eps)``   ``(gx, gresidual, gweight)``
``add_layer_norm_backward(gy, gs, s, weight, bias,
*, eps)``                                              ``(gx, gresidual, gweight, gbias)``
====================================================  =====================================

``gs`` is the gradient reaching ``s`` from its later use (``None`` when ``s`` is not used
again); it adds into the input gradients. Since ``s = x + residual``, ``gx`` and
``gresidual`` are equal: both are the same array object (one computation, one write).
"""

from __future__ import annotations

import importlib
import math
import sys
import warnings
from numbers import Real
from typing import Any, Optional

from .. import _dtypes as dt
from .._array import Array

__all__ = [
    "rms_norm", "layer_norm", "add_rms_norm", "add_layer_norm",
    "rms_norm_backward", "layer_norm_backward", "add_rms_norm_backward",
    "add_layer_norm_backward",
]

_FLOATS = (dt.float16, dt.bfloat16, dt.float32, dt.float64)


# --- validation ---------------------------------------------------------------------

_FLOAT_SET = frozenset(_FLOATS)  # (membership by hash: the tuple compares each dtype)


def _check_input(func: str, name: str, x: Any) -> Array:
    if type(x) is Array and x._dtype in _FLOAT_SET and x._data.ndim:
        return x  # the common case in one test (a call's checks are host work a loop of
        # small calls waits on: benchmarks/norms.py --host)
    if not isinstance(x, Array):
        raise TypeError(f"{func}: {name} must be a numr.Array, got {type(x).__name__}")
    if x._dtype not in _FLOATS:
        raise TypeError(f"{func}: {name} must have a real floating-point dtype (float16, "
                        f"bfloat16, float32 or float64), got {x._dtype}")
    if x.ndim < 1:
        raise ValueError(f"{func}: {name} must have at least one dimension (the normalized "
                         f"axis is the last), got a 0-d array")
    return x


def _check_like(func: str, name: str, a: Any, ref: Array, ref_name: str,
                shape: tuple | None = None) -> Array:
    """a is an Array of ref's dtype and device and of the given shape (ref's by default)."""
    if (type(a) is Array and a._dtype is ref._dtype and a._device is ref._device
            and a._data.shape == (ref._data.shape if shape is None else shape)):
        return a  # the common case, without the checks' attribute reads (a call's host
        # work is much of a small op's time on a GPU: benchmarks/RESULTS.md)
    if not isinstance(a, Array):
        raise TypeError(f"{func}: {name} must be a numr.Array or None, got {type(a).__name__}")
    if a._dtype is not ref._dtype:
        raise TypeError(f"{func}: {name} has dtype {a._dtype} but {ref_name} has dtype "
                        f"{ref._dtype}; they must match (cast with numr.astype)")
    if a._device != ref._device:
        raise ValueError(f"{func}: {name} is on {a._device} but {ref_name} is on "
                         f"{ref._device}; move one with to_device")
    want = ref.shape if shape is None else shape
    if a.shape != want:
        raise ValueError(f"{func}: {name} must have shape {want}, got {a.shape}")
    return a


def _check_param(func: str, name: str, p: Any, x: Array, x_name: str) -> Optional[Array]:
    """weight or bias: None, or a 1-D array of x's last-axis length, dtype and device."""
    if p is None:
        return None
    if (type(p) is Array and p._dtype is x._dtype and p._device is x._device
            and p._data.shape == x._data.shape[-1:]):
        return p  # (the common case, as in _check_input)
    n = x._data.shape[-1]
    if isinstance(p, Array) and p._data.shape != (n,):
        raise ValueError(f"{func}: {name} must have shape ({n},) (the length of the last "
                         f"axis of {x_name}, shape {x.shape}), got {p.shape}")
    return _check_like(func, name, p, x, x_name, (n,))


def _check_eps(func: str, eps: Any) -> float:
    if type(eps) is float and 0.0 <= eps < math.inf:
        return eps  # (the common case first: an ABC isinstance check costs a microsecond)
    if isinstance(eps, bool) or not isinstance(eps, Real):
        raise TypeError(f"{func}: eps must be a real number, got {type(eps).__name__}")
    eps = float(eps)
    if not (eps >= 0.0 and math.isfinite(eps)):
        raise ValueError(f"{func}: eps must be finite and non-negative, got {eps}")
    return eps


# --- autograd ---------------------------------------------------------------------

def _tracing(*arrays: Any) -> bool:
    """Whether some argument is a numr.autograd.Var: then the call is recorded (see
    numr.nn._autograd). A Var can only exist once numr.autograd is imported, so looking
    in sys.modules keeps numr.nn from importing it (and costs a dict lookup)."""
    mod = sys.modules.get("numr.autograd._var")
    if mod is None:
        return False
    var = mod.Var
    for a in arrays:
        if type(a) is var:
            return True
    return False


def _record(op: str, arrays: tuple, eps: Any):
    from . import _autograd

    return _autograd.call(op, arrays, eps)


# --- dispatch -----------------------------------------------------------------------

_KERNELS: dict[str, Any] = {}


def _kernels(device: Any):
    """The kernel module for a device kind, or None: then the composite path below runs
    (through the namespace's own functions, so it works on any device). Looked up once a
    kind (an import statement a call cost 1.3 us)."""
    kind = device.kind
    k = _KERNELS.get(kind, False)
    if k is False:
        k = _KERNELS[kind] = _load_kernels(kind)
    return k


def _load_kernels(kind: str):
    """numr.nn._<kind>, the fused kernels of that device kind, or None where numr has none
    (the device kinds themselves are the backend registry's)."""
    name = f"{__package__}._{kind}"
    try:
        return importlib.import_module(name)
    except ModuleNotFoundError as e:
        if e.name == name:
            return None
        if e.name != "numba":
            raise
        # numba missing (a broken install): the composite path runs
        warnings.warn("numr.nn: numba is not installed, so the CPU norms run the "
                      "composite path (namespace functions, slower); install the fused "
                      "kernels with pip install numba", RuntimeWarning, stacklevel=4)
        return None


def _nat(a: Optional[Array]):
    return None if a is None else a._data


def _wrap(native, like: Array) -> Array:
    return Array._new(native, like._dtype, like._device)


def _forward(x: Array, residual, weight, bias, eps: float, center: bool, want_sum: bool):
    k = _kernels(x._device)
    if k is None:
        from ._composite import norm_forward

        return norm_forward(x, residual, weight, bias, eps, center, want_sum)
    out = k.norm_forward(x._data, _nat(residual), _nat(weight), _nat(bias), eps, center,
                         want_sum)
    if out is None:  # a shape the kernels leave to the composite (WebGPU: odd float16)
        from ._composite import norm_forward

        return norm_forward(x, residual, weight, bias, eps, center, want_sum)
    y, s = out
    return _wrap(y, x), (None if s is None else _wrap(s, x))


def _backward(gy: Array, s: Array, gs, weight, eps: float, center: bool, want_w: bool,
              want_b: bool):
    k = _kernels(s._device)
    if k is None:
        from ._composite import norm_backward

        return norm_backward(gy, s, gs, weight, eps, center, want_w, want_b)
    out = k.norm_backward(gy._data, s._data, _nat(gs), _nat(weight), eps, center, want_w,
                          want_b)
    if out is None:
        from ._composite import norm_backward

        return norm_backward(gy, s, gs, weight, eps, center, want_w, want_b)
    gx, gw, gb = out
    return (_wrap(gx, s), None if gw is None else _wrap(gw, s),
            None if gb is None else _wrap(gb, s))


# --- forward ------------------------------------------------------------------------

def rms_norm(x: Array, weight: Optional[Array] = None, *, eps: float = 1e-6) -> Array:
    """``x / sqrt(mean(x**2, axis=-1) + eps) * weight`` over the last axis."""
    if _tracing(x, weight):
        return _record("rms_norm", (x, weight), eps)
    f = "rms_norm"
    _check_input(f, "x", x)
    weight = _check_param(f, "weight", weight, x, "x")
    return _forward(x, None, weight, None, _check_eps(f, eps), False, False)[0]


def layer_norm(x: Array, weight: Optional[Array] = None, bias: Optional[Array] = None, *,
               eps: float = 1e-5) -> Array:
    """``(x - mean) / sqrt(var + eps) * weight + bias`` over the last axis (biased var)."""
    if _tracing(x, weight, bias):
        return _record("layer_norm", (x, weight, bias), eps)
    f = "layer_norm"
    _check_input(f, "x", x)
    weight = _check_param(f, "weight", weight, x, "x")
    bias = _check_param(f, "bias", bias, x, "x")
    return _forward(x, None, weight, bias, _check_eps(f, eps), True, False)[0]


def add_rms_norm(x: Array, residual: Array, weight: Optional[Array] = None, *,
                 eps: float = 1e-6) -> tuple[Array, Array]:
    """``(rms_norm(s, weight), s)`` with ``s = x + residual``, computed in one pass."""
    if _tracing(x, residual, weight):
        return _record("add_rms_norm", (x, residual, weight), eps)
    f = "add_rms_norm"
    _check_input(f, "x", x)
    _check_like(f, "residual", residual, x, "x")
    weight = _check_param(f, "weight", weight, x, "x")
    return _forward(x, residual, weight, None, _check_eps(f, eps), False, True)


def add_layer_norm(x: Array, residual: Array, weight: Optional[Array] = None,
                   bias: Optional[Array] = None, *, eps: float = 1e-5) -> tuple[Array, Array]:
    """``(layer_norm(s, weight, bias), s)`` with ``s = x + residual``, in one pass."""
    if _tracing(x, residual, weight, bias):
        return _record("add_layer_norm", (x, residual, weight, bias), eps)
    f = "add_layer_norm"
    _check_input(f, "x", x)
    _check_like(f, "residual", residual, x, "x")
    weight = _check_param(f, "weight", weight, x, "x")
    bias = _check_param(f, "bias", bias, x, "x")
    return _forward(x, residual, weight, bias, _check_eps(f, eps), True, True)


# --- backward (see the module docstring for the family's shape) ---------------------

def _check_grads(f: str, grad_y: Any, grad_s: Any, s: Any, s_name: str):
    _check_input(f, s_name, s)
    _check_like(f, "grad_y", grad_y, s, s_name)
    if grad_s is not None:
        _check_like(f, "grad_s", grad_s, s, s_name)


def rms_norm_backward(grad_y: Array, x: Array, weight: Optional[Array] = None, *,
                      eps: float = 1e-6) -> tuple[Array, Optional[Array]]:
    """Gradients ``(grad_x, grad_weight)`` of ``y = rms_norm(x, weight)`` given ``grad_y``."""
    f = "rms_norm_backward"
    _check_grads(f, grad_y, None, x, "x")
    weight = _check_param(f, "weight", weight, x, "x")
    gx, gw, _ = _backward(grad_y, x, None, weight, _check_eps(f, eps), False,
                          weight is not None, False)
    return gx, gw


def layer_norm_backward(grad_y: Array, x: Array, weight: Optional[Array] = None,
                        bias: Optional[Array] = None, *, eps: float = 1e-5
                        ) -> tuple[Array, Optional[Array], Optional[Array]]:
    """Gradients ``(grad_x, grad_weight, grad_bias)`` of ``y = layer_norm(x, weight, bias)``."""
    f = "layer_norm_backward"
    _check_grads(f, grad_y, None, x, "x")
    weight = _check_param(f, "weight", weight, x, "x")
    bias = _check_param(f, "bias", bias, x, "x")
    return _backward(grad_y, x, None, weight, _check_eps(f, eps), True, weight is not None,
                     bias is not None)


def add_rms_norm_backward(grad_y: Array, grad_s: Optional[Array], s: Array,
                          weight: Optional[Array] = None, *, eps: float = 1e-6
                          ) -> tuple[Array, Array, Optional[Array]]:
    """Gradients ``(grad_x, grad_residual, grad_weight)`` of ``add_rms_norm``, given the
    gradients of its outputs ``y`` and ``s`` (``grad_s`` may be None) and the ``s`` it
    returned. ``grad_x is grad_residual``."""
    f = "add_rms_norm_backward"
    _check_grads(f, grad_y, grad_s, s, "s")
    weight = _check_param(f, "weight", weight, s, "s")
    gx, gw, _ = _backward(grad_y, s, grad_s, weight, _check_eps(f, eps), False,
                          weight is not None, False)
    return gx, gx, gw


def add_layer_norm_backward(grad_y: Array, grad_s: Optional[Array], s: Array,
                            weight: Optional[Array] = None, bias: Optional[Array] = None, *,
                            eps: float = 1e-5
                            ) -> tuple[Array, Array, Optional[Array], Optional[Array]]:
    """Gradients ``(grad_x, grad_residual, grad_weight, grad_bias)`` of ``add_layer_norm``
    (see :func:`add_rms_norm_backward`). ``grad_x is grad_residual``."""
    f = "add_layer_norm_backward"
    _check_grads(f, grad_y, grad_s, s, "s")
    weight = _check_param(f, "weight", weight, s, "s")
    bias = _check_param(f, "bias", bias, s, "s")
    gx, gw, gb = _backward(grad_y, s, grad_s, weight, _check_eps(f, eps), True,
                           weight is not None, bias is not None)
    return gx, gx, gw, gb
