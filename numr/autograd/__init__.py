"""numr.autograd: a differentiable Array API namespace (2025.12) on every device.

``Var`` wraps a numr Array; its ``__array_namespace__()`` is this module, whose
functions (all of the standard's, ``linalg`` and ``fft``) record what they do when a
tracked Var goes in, so array-API-generic code is differentiated without change::

    import numr, numr.autograd as ag

    def loss(w, x):
        xp = w.__array_namespace__()          # or array_api_compat.array_namespace(w)
        return xp.sum(xp.tanh(x @ w) ** 2)

    w = ag.Var(numr.ones((3, 2)), requires_grad=True)
    loss(w, numr.ones((4, 3))).backward()     # w.grad is a numr Array
    dw = ag.grad(loss)(numr.ones((3, 2)), numr.ones((4, 3)))   # functional form

The derivative rules live in one table (``numr.autograd._rules``; ``register`` adds
one). Functions whose results carry no derivative (comparisons, integer results,
creation) return untracked Vars.
"""

from __future__ import annotations

import inspect as _inspect
from typing import TYPE_CHECKING as _TYPE_CHECKING, Any as _Any

import numr as _numr
from numr import _elementwise as _ew
from numr import (  # noqa: F401
    __array_api_version__, __array_namespace_info__, bool, complex64, complex128, e,
    bfloat16, float16, float32, float64, inf, int8, int16, int32, int64, nan, newaxis, pi, uint8,
    uint16, uint32, uint64, Device,
)

from ._var import Var  # noqa: F401
from ._tape import no_grad, enable_grad, is_grad_enabled  # noqa: F401
from ._rules import register, Rule, NONDIFF, NO_RULE, RULES  # noqa: F401
from . import _wrap

if _TYPE_CHECKING:
    from numr._array import Array

_SKIP = {"Array", "Device"}


def _build() -> list[str]:
    names = []
    g = globals()
    for name in dir(_numr):
        obj = getattr(_numr, name)
        if name.startswith("_") or name in _SKIP or not _inspect.isfunction(obj):
            continue
        if name in _ew.UNARY:
            g[name] = _wrap.make_unary(name, obj)
        elif name in _ew.BINARY or name == "matmul":
            g[name] = _wrap.make_binary(name, obj)
        else:
            g[name] = _wrap.make_function(name, obj)
        names.append(name)
    return names


_NAMES = _build()


def _getitem_fn(x, key):
    return x[key]


def _to_device_fn(x: Array, device: Device | str, /, *, stream: _Any = None) -> Array:
    # x is an Array here: the wrapper (make_generic) unwraps Vars and wraps the result
    return x.to_device(device, stream=stream)


def _identity_fn(x):
    return x


_getitem = _wrap.make_first("getitem", _getitem_fn)
from . import _var as _varmod  # noqa: E402
_varmod._GETITEM.append(RULES["getitem"])
to_device = _wrap.make_generic("to_device", _to_device_fn)
_identity = _wrap.make_generic("identity", _identity_fn)


def _setitem(x: Var, key, value) -> None:
    """``x[key] = value`` for a Var. Recorded (functionally: a new value and node for x)
    when x or value is tracked; otherwise written into x's array in place."""
    from ._tape import GRAD, make_node
    from ._wrap import unwrap_key

    ukey = unwrap_key(key)
    vt = type(value) is Var
    uval = value._value if vt else value
    if GRAD.on and (x._rg or (vt and value._rg)):
        if x._node is None and x._rg:
            raise ValueError("setitem: a leaf Var that requires grad cannot be changed in "
                             "place; do it under no_grad() or on a copy")
        old = x._value
        new = _numr.asarray(old, copy=True)
        new[ukey] = uval
        tracked = []
        if x._rg:
            tracked.append((0, x))
        if vt and value._rg:
            tracked.append((2, value))
        edges = tuple((pos, v._node, v._idx, v if v._node is None else None)
                      for pos, v in tracked)
        x._node = make_node(RULES["setitem"], (old, ukey, uval), None, new, edges, 0)
        x._value = new
        x._idx = 0
        x._rg = True
        return
    x._value[ukey] = uval


def _setitem_fn(x, key, value):
    # The recomputation used under create_graph: a copy with the value written.
    if type(x) is Var and x._rg:
        z = _identity(x)  # tracked; _setitem copies before writing
    else:
        z = Var(_numr.asarray(x._value if type(x) is Var else x, copy=True))
    _setitem(z, key, value)
    return z


RULES["setitem"].var_fn = _setitem_fn


def differentiable(name: str, fn):
    """The recorded version of a numr-level function ``fn`` whose rule is registered
    under ``name`` (see ``register``); numr.nn uses it for its fused ops."""
    return _wrap.make_generic(name, fn)


_wrap.attach_operators(globals())

from . import linalg, fft  # noqa: E402,F401
from ._functional import (  # noqa: E402,F401
    grad, value_and_grad, vjp, jvp, jacobian, hessian, hvp, checkpoint,
)



def __getattr__(name: str):
    # numr.autograd.special on first use (it builds a wrapper per special function and
    # registers their rules; plain autograd users need not pay for it)
    if name == "special":
        import importlib

        return importlib.import_module(__name__ + ".special")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = _NAMES + [
    "Var", "no_grad", "enable_grad", "is_grad_enabled", "register", "differentiable",
    "grad", "value_and_grad", "vjp", "jvp", "jacobian", "hessian", "hvp", "checkpoint",
    "linalg", "fft", "to_device",
]
