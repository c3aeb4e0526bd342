"""THE rule table: one entry per differentiable function, keyed by its name
(``"sin"``, ``"linalg.solve"``, ``"fft.rfft"``).

A rule is a vector-Jacobian product per input. The short form (most entries) gives one
function per positional argument, ``fn(xp, g, ans, *args, **kwargs)``, returning the
cotangent of that argument (None for zero); the full form is one function
``vjp(xp, g, ans, args, kwargs, pos)`` called for each tracked input position ``pos``
(an int, ``(i, j)`` for element ``j`` of the list argument ``i``, or a keyword name).

* ``xp`` is ``numr`` for an ordinary backward pass (``g``, ``ans`` and the arguments are
  numr Arrays) and ``numr.autograd`` under ``create_graph=True`` (they are Vars), so
  every rule is written with namespace functions only: it runs on every device and is
  itself differentiable (higher-order derivatives).
* ``g`` is the output's cotangent (a tuple, with None for unused outputs, for
  functions that return several arrays); ``ans`` the output.
* The engine reduces a cotangent over broadcast axes to the input's shape and casts it
  to the input's dtype (taking the real part for real inputs), so rules need not.
* Complex numbers follow the conjugate-Wirtinger convention (PyTorch's): for a
  holomorphic ``f`` the cotangent of ``x`` is ``g * conj(f'(x))``; for a real loss,
  ``x.grad`` is ``dL/dRe(x) + 1j * dL/dIm(x)``.

Public registration API (numr.nn registers its fused norms here)::

    from numr.autograd import register
    register("nn.rms_norm", vjp=(rule_for_x, rule_for_weight))   # short form
    register("my_op", vjp=full_form_function)                   # full form
    register("my_op", vjp={0: rule_for_x, "weight": rule_for_weight})

and ``numr.autograd.differentiable("nn.rms_norm", rms_norm)`` makes the recorded
version of a numr-level function. ``jvp=`` is accepted and stored for forward-mode
rules; ``numr.autograd.jvp`` derives forward mode from the VJPs (linear transposition),
so no entry needs one. ``NONDIFF`` names the functions whose results carry no
derivative (comparisons, integer results, creation); they pass values through.
"""

from __future__ import annotations

import builtins
import cmath
import math
from typing import Any, Callable

__all__ = ["register", "Rule", "RULES", "NONDIFF", "NO_RULE", "composite"]


class Rule:
    """One table entry: ``vjp(xp, g, ans, args, kwargs, pos)``, an optional ``jvp``, and
    ``var_fn`` (the recorded function, set when the namespace is built; used to
    recompute results under ``create_graph``)."""

    __slots__ = ("name", "vjp", "jvp", "var_fn")
    name: str
    vjp: Callable[..., Any]
    jvp: Callable[..., Any] | None
    var_fn: Callable[..., Any] | None

    def __init__(self, name: str, vjp: Callable[..., Any],
                 jvp: Callable[..., Any] | None = None) -> None:
        self.name = name
        self.vjp = vjp
        self.jvp = jvp
        self.var_fn = None


RULES: dict[str, Rule] = {}


def _short(fns: Any) -> Callable:
    """The full-form vjp of per-argument functions (a tuple by position or a dict by
    position/keyword name)."""
    table = dict(enumerate(fns)) if isinstance(fns, (tuple, list)) else dict(fns)

    def vjp(xp, g, ans, args, kwargs, pos):
        fn = table.get(pos)
        if fn is None:
            raise TypeError(f"no derivative rule for argument {pos!r}")
        return fn(xp, g, ans, *args, **kwargs)
    return vjp


def register(name: str, vjp: Any, jvp: Callable[..., Any] | None = None) -> Rule:
    """Register (or replace) the rule of function ``name``; see the module docstring."""
    if not isinstance(name, str) or not name:
        raise TypeError(f"register: name must be a non-empty str, got {name!r}")
    if not callable(vjp):
        if not isinstance(vjp, (tuple, list, dict)):
            raise TypeError(f"register({name!r}): vjp must be a function, a tuple or a dict "
                            f"of functions, got {type(vjp).__name__}")
        vjp = _short(vjp)
    old = RULES.get(name)
    rule = Rule(name, vjp, jvp)
    if old is not None:
        rule.var_fn = old.var_fn
    RULES[name] = rule
    return rule


def _reg(name: str, *fns: Callable, **kw: Callable) -> None:
    table: dict = dict(enumerate(fns))
    table.update(kw)
    register(name, vjp=table)


# ---------------------------------------------------------------------------------------
# Helpers (namespace functions only: they run on every device and under create_graph)
# ---------------------------------------------------------------------------------------

def _c(xp, a):
    """conj for complex values (arrays or Python scalars), the value itself otherwise."""
    if isinstance(a, (int, float)):
        return a
    if isinstance(a, complex):
        return a.conjugate()
    return xp.conj(a) if a.dtype.kind == "complex" else a


def _mH(xp, a):
    return xp.matrix_transpose(_c(xp, a))


def _axes(axis, ndim):
    if axis is None:
        return tuple(range(ndim))
    if isinstance(axis, int):
        axis = (axis,)
    return tuple(sorted(a % ndim if ndim else 0 for a in axis))


def _expand(xp, g, shape, axis, keepdims):
    """A reduction's cotangent brought back to the input's shape."""
    if not keepdims:
        axes = _axes(axis, len(shape))
        g = xp.reshape(g, tuple(1 if i in axes else s for i, s in enumerate(shape)))
    return xp.broadcast_to(g, shape)


def _count(shape, axis):
    n = 1
    for a in _axes(axis, len(shape)):
        n *= shape[a]
    return n


def _diag(xp, v, like):
    """Matrices with ``v`` (..., n) on the diagonal."""
    n = v.shape[-1]
    return xp.expand_dims(v, axis=-1) * xp.eye(n, dtype=_real_dtype(xp, like), device=like.device)


def _real_dtype(xp, a):
    d = a.dtype
    if d.kind == "complex":
        return xp.float64 if d == xp.complex128 else xp.float32
    return d


def _sl(ndim, axis, s):
    """An index selecting ``s`` (a slice or int) on ``axis``."""
    return (slice(None),) * axis + (s,)


def _fill(xp, g, ans):
    """A multi-output cotangent with zeros where an output was unused."""
    return tuple(xp.zeros_like(a) if gi is None else gi for gi, a in zip(g, ans))


def _log(xp, a):
    if isinstance(a, (int, float, complex)):
        return cmath.log(a) if (isinstance(a, complex) or a < 0) else (math.log(a) if a else -math.inf)
    return xp.log(a)


# ---------------------------------------------------------------------------------------
# Elementwise
# ---------------------------------------------------------------------------------------

_LN2, _LN10 = math.log(2.0), math.log(10.0)


def _zero(xp, g, ans, *args, **kwargs):
    return None


for _n, _f in {
    "abs": lambda xp, g, ans, x: g * xp.sign(x),
    "acos": lambda xp, g, ans, x: -g / _c(xp, xp.sqrt(1 - x * x)),
    "acosh": lambda xp, g, ans, x: g / _c(xp, xp.sqrt(x - 1) * xp.sqrt(x + 1)),
    "asin": lambda xp, g, ans, x: g / _c(xp, xp.sqrt(1 - x * x)),
    "asinh": lambda xp, g, ans, x: g / _c(xp, xp.sqrt(x * x + 1)),
    "atan": lambda xp, g, ans, x: g / _c(xp, 1 + x * x),
    "atanh": lambda xp, g, ans, x: g / _c(xp, 1 - x * x),
    "conj": lambda xp, g, ans, x: _c(xp, g),
    "cos": lambda xp, g, ans, x: -g * _c(xp, xp.sin(x)),
    "cosh": lambda xp, g, ans, x: g * _c(xp, xp.sinh(x)),
    "exp": lambda xp, g, ans, x: g * _c(xp, ans),
    "expm1": lambda xp, g, ans, x: g * _c(xp, ans + 1),
    "log": lambda xp, g, ans, x: g / _c(xp, x),
    "log1p": lambda xp, g, ans, x: g / _c(xp, x + 1),
    "log2": lambda xp, g, ans, x: g / _c(xp, x * _LN2),
    "log10": lambda xp, g, ans, x: g / _c(xp, x * _LN10),
    "negative": lambda xp, g, ans, x: -g,
    "positive": lambda xp, g, ans, x: g,
    "real": lambda xp, g, ans, x: g,
    "imag": lambda xp, g, ans, x: g * 1j if x.dtype.kind == "complex" else None,
    "reciprocal": lambda xp, g, ans, x: -g * _c(xp, ans * ans),
    "sin": lambda xp, g, ans, x: g * _c(xp, xp.cos(x)),
    "sinh": lambda xp, g, ans, x: g * _c(xp, xp.cosh(x)),
    "square": lambda xp, g, ans, x: 2 * g * _c(xp, x),
    "sqrt": lambda xp, g, ans, x: g / (2 * _c(xp, ans)),
    "tan": lambda xp, g, ans, x: g * _c(xp, 1 + ans * ans),
    "tanh": lambda xp, g, ans, x: g * _c(xp, 1 - ans * ans),
    # Piecewise constant: zero derivative (as PyTorch and JAX).
    "ceil": _zero, "floor": _zero, "round": _zero, "sign": _zero, "trunc": _zero,
}.items():
    _reg(_n, _f)


def _pow_base(xp, g, ans, x1, x2):
    if isinstance(x2, (int, float)) and x2 == 0:
        return None
    d = g * _c(xp, x2 * x1 ** (x2 - 1))
    if not isinstance(x2, (int, float, complex)):
        d = xp.where(x2 == 0, 0.0, d)  # x**0 is constant, even at x = 0
    return d


def _pow_exp(xp, g, ans, x1, x2):
    d = g * _c(xp, _log(xp, x1) * ans)
    if not isinstance(x1, (int, float, complex)):
        d = xp.where(x1 == 0, 0.0, d)  # 0**y is 0 (or 1) around y > 0: no slope
    return d


def _max_mask(xp, g, a, b, greater):
    """Binary max/min: the cotangent goes to the larger (smaller) input, split evenly on
    ties."""
    win = (a > b) if greater else (a < b)
    return xp.where(a == b, g * 0.5, xp.where(win, g, 0.0))


_reg("add", lambda xp, g, ans, a, b: g, lambda xp, g, ans, a, b: g)
_reg("subtract", lambda xp, g, ans, a, b: g, lambda xp, g, ans, a, b: -g)
_reg("multiply", lambda xp, g, ans, a, b: g * _c(xp, b), lambda xp, g, ans, a, b: g * _c(xp, a))
_reg("divide", lambda xp, g, ans, a, b: g / _c(xp, b),
     lambda xp, g, ans, a, b: -g * _c(xp, ans / b))
_reg("pow", _pow_base, _pow_exp)
_reg("atan2", lambda xp, g, ans, y, x: g * x / (x * x + y * y),
     lambda xp, g, ans, y, x: -g * y / (x * x + y * y))
_reg("hypot", lambda xp, g, ans, a, b: g * a / ans, lambda xp, g, ans, a, b: g * b / ans)
_reg("logaddexp", lambda xp, g, ans, a, b: g * xp.exp(a - ans),
     lambda xp, g, ans, a, b: g * xp.exp(b - ans))
_reg("maximum", lambda xp, g, ans, a, b: _max_mask(xp, g, a, b, True),
     lambda xp, g, ans, a, b: _max_mask(xp, g, b, a, True))
_reg("minimum", lambda xp, g, ans, a, b: _max_mask(xp, g, a, b, False),
     lambda xp, g, ans, a, b: _max_mask(xp, g, b, a, False))
_reg("copysign", lambda xp, g, ans, a, b: xp.where(xp.signbit(a) == xp.signbit(ans), g, -g),
     _zero)
_reg("remainder", lambda xp, g, ans, a, b: g, lambda xp, g, ans, a, b: -g * xp.floor(a / b))
_reg("floor_divide", _zero, _zero)


def _clip_bounds(args, kwargs):
    lo = args[1] if len(args) > 1 else kwargs.get("min")
    hi = args[2] if len(args) > 2 else kwargs.get("max")
    return lo, hi


def _clip(xp, g, ans, args, kwargs, pos):
    x = args[0]
    lo, hi = _clip_bounds(args, kwargs)
    if pos == 0:
        keep = None
        if lo is not None:
            keep = x >= lo
        if hi is not None:
            k2 = x <= hi
            keep = k2 if keep is None else xp.logical_and(keep, k2)
        return g if keep is None else xp.where(keep, g, 0.0)
    if pos in (1, "min"):
        return xp.where(x < lo, g, 0.0)
    return xp.where(x > hi, g, 0.0)


register("clip", _clip)
_reg("where", _zero, lambda xp, g, ans, c, a, b: xp.where(c, g, 0.0),
     lambda xp, g, ans, c, a, b: xp.where(c, 0.0, g))


# ---------------------------------------------------------------------------------------
# Reductions and scans
# ---------------------------------------------------------------------------------------

def _sum(xp, g, ans, x, axis=None, dtype=None, keepdims=False):
    return _expand(xp, g, x.shape, axis, keepdims)


def _mean(xp, g, ans, x, axis=None, dtype=None, keepdims=False):
    return _expand(xp, g, x.shape, axis, keepdims) / _count(x.shape, axis)


def _prod(xp, g, ans, x, axis=None, dtype=None, keepdims=False):
    # The product of all the other elements, as exclusive running products from both
    # ends: exact with zeros (no division by x).
    nd = x.ndim
    if nd == 0:
        return g
    axes = _axes(axis, nd)
    keep = [a for a in range(nd) if a not in axes]
    perm = tuple(keep) + axes
    kshape = tuple(x.shape[a] for a in keep)
    n = _count(x.shape, axes)
    xt = xp.reshape(xp.permute_dims(x, perm), kshape + (n,))
    left = xp.cumulative_prod(xt, axis=-1, include_initial=True)[..., :-1]
    right = xp.flip(xp.cumulative_prod(xp.flip(xt, axis=-1), axis=-1, include_initial=True)[..., :-1],
                    axis=-1)
    gk = xp.reshape(g, kshape + (1,))
    r = xp.reshape(gk * _c(xp, left * right), tuple(x.shape[a] for a in perm))
    inv = [0] * nd
    for i, p in enumerate(perm):
        inv[p] = i
    return xp.permute_dims(r, tuple(inv))


def _extremum(xp, g, ans, x, axis=None, keepdims=False):
    # Ties share the cotangent evenly (as PyTorch's amax/amin).
    axes = _axes(axis, x.ndim)
    mask = xp.astype(x == _expand(xp, ans, x.shape, axis, keepdims), g.dtype)
    cnt = xp.sum(mask, axis=axes, keepdims=True)
    return _expand(xp, g, x.shape, axis, keepdims) * mask / cnt


def _var(xp, g, ans, x, axis=None, correction=0.0, keepdims=False):
    m = xp.mean(x, axis=axis, keepdims=True)
    return _expand(xp, g, x.shape, axis, keepdims) * (2 * (x - m)) / (_count(x.shape, axis) - correction)


def _std(xp, g, ans, x, axis=None, correction=0.0, keepdims=False):
    m = xp.mean(x, axis=axis, keepdims=True)
    s = _expand(xp, ans, x.shape, axis, keepdims)
    return _expand(xp, g, x.shape, axis, keepdims) * (x - m) / ((_count(x.shape, axis) - correction) * s)


def _scan_axis(x, axis):
    return 0 if axis is None else axis % builtins.max(x.ndim, 1)


def _revcumsum(xp, a, ax):
    return xp.flip(xp.cumulative_sum(xp.flip(a, axis=ax), axis=ax), axis=ax)


def _cumsum(xp, g, ans, x, axis=None, dtype=None, include_initial=False):
    ax = _scan_axis(x, axis)
    if x.ndim == 0:
        g = xp.reshape(g, (-1,))
    if include_initial:
        g = g[_sl(g.ndim, ax, slice(1, None))]
    return _revcumsum(xp, g, ax)


def _cumprod(xp, g, ans, x, axis=None, dtype=None, include_initial=False):
    ax = _scan_axis(x, axis)
    if x.ndim == 0:
        g, ans = xp.reshape(g, (-1,)), xp.reshape(ans, (-1,))
    if include_initial:
        g, ans = g[_sl(g.ndim, ax, slice(1, None))], ans[_sl(g.ndim, ax, slice(1, None))]
    xx = x if x.ndim else xp.reshape(x, (1,))
    if not bool(xp.any(xx == 0)):
        return _revcumsum(xp, g * _c(xp, ans), ax) / _c(xp, xx)
    return _cumprod_with_zeros(xp, g, xx, ax)


def _cumprod_with_zeros(xp, g, x, ax):
    """cumulative_prod's VJP without dividing by x (exact where x holds zeros):
    d out_j / d x_i = prod_{k<i} x_k * prod_{i<k<=j} x_k for j >= i. Builds an n x n
    table per scanned line, so it is kept for inputs that hold a zero."""
    xl = xp.moveaxis(x, ax, -1)
    gl = xp.moveaxis(g, ax, -1)
    n = xl.shape[-1]
    idx = xp.arange(n, device=x.device)
    later = xp.expand_dims(idx, axis=0) > xp.expand_dims(idx, axis=1)    # [i, k]: k > i
    after = xp.expand_dims(idx, axis=0) >= xp.expand_dims(idx, axis=1)   # [i, j]: j >= i
    rows = xp.where(later, xp.expand_dims(xl, axis=-2), xp.ones_like(xp.expand_dims(xl, axis=-2)))
    tail = xp.cumulative_prod(rows, axis=-1)                             # prod_{i<k<=j} x_k
    head = xp.cumulative_prod(xl, axis=-1, include_initial=True)[..., :-1]   # prod_{k<i} x_k
    s = xp.sum(xp.where(after, xp.expand_dims(gl, axis=-2) * _c(xp, tail),
                        xp.zeros_like(tail)), axis=-1)
    return xp.moveaxis(_c(xp, head) * s, -1, ax)


_reg("sum", _sum)
_reg("mean", _mean)
_reg("prod", _prod)
_reg("max", _extremum)
_reg("min", _extremum)
_reg("var", _var)
_reg("std", _std)
_reg("cumulative_sum", _cumsum)
_reg("cumulative_prod", _cumprod)


# ---------------------------------------------------------------------------------------
# matmul and its family
# ---------------------------------------------------------------------------------------

def _matmul(xp, g, ans, args, kwargs, pos):
    a, b = args[0], args[1]
    if a.ndim == 1 and b.ndim == 1:
        return g * _c(xp, b) if pos == 0 else g * _c(xp, a)
    if b.ndim == 1:
        ge = xp.expand_dims(g, axis=-1)
        return ge * _c(xp, b) if pos == 0 else xp.sum(ge * _c(xp, a), axis=-2)
    if a.ndim == 1:
        ge = xp.expand_dims(g, axis=-2)
        return xp.sum(_c(xp, b) * ge, axis=-1) if pos == 0 else \
            xp.expand_dims(_c(xp, a), axis=-1) * ge
    return xp.matmul(g, _mH(xp, b)) if pos == 0 else xp.matmul(_mH(xp, a), g)


def _tensordot_axes(a, b, axes):
    if isinstance(axes, int):
        return list(range(a.ndim - axes, a.ndim)), list(range(axes))
    return [x % a.ndim for x in axes[0]], [x % b.ndim for x in axes[1]]


def _tensordot(xp, g, ans, args, kwargs, pos):
    a, b = args[0], args[1]
    axes = kwargs.get("axes", args[2] if len(args) > 2 else 2)
    ca, cb = _tensordot_axes(a, b, axes)
    fa = [i for i in range(a.ndim) if i not in ca]
    fb = [i for i in range(b.ndim) if i not in cb]
    nfa = len(fa)
    if pos == 0:
        # g (fa..., fb...) . b over fb -> (fa..., b's contracted axes in b's order)
        r = xp.tensordot(g, _c(xp, b), axes=(list(range(nfa, nfa + len(fb))), fb))
        order = sorted(range(len(cb)), key=lambda k: cb[k])   # position k of r's tail
        labels = fa + [ca[k] for k in order]
    else:
        r = xp.tensordot(_c(xp, a), g, axes=(fa, list(range(nfa))))
        order = sorted(range(len(ca)), key=lambda k: ca[k])
        labels = [cb[k] for k in order] + fb
    inv = [labels.index(i) for i in range(len(labels))]
    return xp.permute_dims(r, tuple(inv))


def _vecdot(xp, g, ans, args, kwargs, pos):
    a, b = args[0], args[1]
    axis = kwargs.get("axis", -1)
    nb = builtins.max(a.ndim, b.ndim)
    if axis >= 0:
        axis -= nb
    ge = xp.expand_dims(g, axis=axis)
    # vecdot is sum(conj(a) * b): antiholomorphic in a.
    return _c(xp, ge) * b if pos == 0 else ge * a


def _outer(xp, g, ans, a, b):
    return xp.matmul(g, _c(xp, b))


register("matmul", _matmul)
register("tensordot", _tensordot)
register("vecdot", _vecdot)
register("linalg.matmul", _matmul)
register("linalg.tensordot", _tensordot)
register("linalg.vecdot", _vecdot)
_reg("linalg.outer", _outer, lambda xp, g, ans, a, b: xp.matmul(_c(xp, a), g))
_reg("matrix_transpose", lambda xp, g, ans, x: xp.matrix_transpose(g))
_reg("linalg.matrix_transpose", lambda xp, g, ans, x: xp.matrix_transpose(g))


def _trace(xp, g, ans, x, offset=0, dtype=None):
    n, m = x.shape[-2:]
    e = xp.eye(n, m, k=offset, dtype=_real_dtype(xp, x), device=x.device)
    return xp.expand_dims(xp.expand_dims(g, axis=-1), axis=-1) * e


def _diagonal(xp, g, ans, x, offset=0):
    n, m = x.shape[-2:]
    e = xp.eye(n, m, k=offset, dtype=_real_dtype(xp, x), device=x.device)
    length = g.shape[-1]
    size = n if offset >= 0 else m
    if length < size:
        pad = xp.zeros(g.shape[:-1] + (size - length,), dtype=g.dtype, device=x.device)
        g = xp.concat([g, pad], axis=-1) if offset >= 0 else xp.concat([pad, g], axis=-1)
    if offset >= 0:
        return xp.expand_dims(g, axis=-1) * e   # row i holds g[i]
    return xp.expand_dims(g, axis=-2) * e       # column j holds g[j]


_reg("linalg.trace", _trace)
_reg("linalg.diagonal", _diagonal)
_reg("linalg.cross", lambda xp, g, ans, a, b, axis=-1: xp.linalg.cross(_c(xp, b), g, axis=axis),
     lambda xp, g, ans, a, b, axis=-1: xp.linalg.cross(g, _c(xp, a), axis=axis))


# ---------------------------------------------------------------------------------------
# Indexing
# ---------------------------------------------------------------------------------------

def _basic(key):
    if type(key) is not tuple:
        key = (key,)
    return all(k is None or k is Ellipsis or type(k) in (int, slice) for k in key)


def _scatter_add(xp, g, pos, x):
    """zeros of x's shape with g added at the flat positions ``pos`` (repeats add up):
    sort, running sums, and one write per distinct position."""
    p = xp.reshape(pos, (-1,))
    gv = xp.reshape(g, (-1,))
    z = xp.zeros((x.size,), dtype=g.dtype, device=x.device)
    if p.shape[0] == 0:
        return xp.reshape(z, x.shape)
    order = xp.argsort(p, stable=True)
    ps = xp.take(p, order)
    gs = xp.take(gv, order)
    cs = xp.cumulative_sum(gs, include_initial=True)
    t = xp.ones((1,), dtype=xp.bool, device=x.device)
    change = ps[1:] != ps[:-1]
    last = xp.nonzero(xp.concat([change, t]))[0]
    first = xp.nonzero(xp.concat([t, change]))[0]
    sums = xp.take(cs, last + 1) - xp.take(cs, first)
    z[xp.take(ps, last)] = sums
    return xp.reshape(z, x.shape)


def _grid(xp, x):
    return xp.reshape(xp.arange(x.size, device=x.device), x.shape)


def _getitem(xp, g, ans, x, key):
    if _basic(key):
        z = xp.zeros(x.shape, dtype=g.dtype, device=x.device)
        z[key] = g
        return z
    return _scatter_add(xp, g, _grid(xp, x)[key], x)


def _setitem_x(xp, g, ans, x, key, value):
    z = xp.asarray(g, copy=True)
    z[key] = 0
    return z


_reg("getitem", _getitem)
_reg("setitem", _setitem_x, _zero, lambda xp, g, ans, x, key, value: g[key])
_reg("take", lambda xp, g, ans, x, idx, axis=None:
     _scatter_add(xp, g, xp.take(_grid(xp, x), idx, axis=axis), x))
_reg("take_along_axis", lambda xp, g, ans, x, idx, axis=-1:
     _scatter_add(xp, g, xp.take_along_axis(_grid(xp, x), idx, axis=axis), x))


# ---------------------------------------------------------------------------------------
# Manipulation, sorting, conversion
# ---------------------------------------------------------------------------------------

def _same(xp, g, ans, x, *a, **k):
    return g


def _reshape_back(xp, g, ans, x, *a, **k):
    return xp.reshape(g, x.shape)


def _concat(xp, g, ans, args, kwargs, pos):
    arrays = args[0]
    axis = kwargs.get("axis", args[1] if len(args) > 1 else 0)
    j = pos[1]
    if axis is None:
        off = builtins.sum(a.size for a in arrays[:j])
        return xp.reshape(g[off:off + arrays[j].size], arrays[j].shape)
    ax = axis % arrays[j].ndim
    off = builtins.sum(a.shape[ax] for a in arrays[:j])
    return g[_sl(g.ndim, ax, slice(off, off + arrays[j].shape[ax]))]


def _stack(xp, g, ans, args, kwargs, pos):
    axis = kwargs.get("axis", args[1] if len(args) > 1 else 0)
    return g[_sl(g.ndim, axis % g.ndim, pos[1])]


def _unstack(xp, g, ans, x, axis=0):
    return xp.stack(_fill(xp, g, ans), axis=axis)


def _broadcast_arrays(xp, g, ans, args, kwargs, pos):
    return g[pos]


def _meshgrid(xp, g, ans, args, kwargs, pos):
    gi = g[pos]
    if gi is None:
        return None
    ndim = gi.ndim
    along = pos
    if kwargs.get("indexing", "xy") == "xy" and ndim >= 2 and pos < 2:
        along = 1 - pos
    return xp.sum(gi, axis=tuple(a for a in range(ndim) if a != along))


def _roll(xp, g, ans, x, shift, axis=None):
    neg = tuple(-s for s in shift) if isinstance(shift, (tuple, list)) else -shift
    return xp.roll(g, shift=neg, axis=axis)


def _permute(xp, g, ans, x, axes):
    inv = [0] * len(axes)
    for i, a in enumerate(axes):
        inv[a % len(axes)] = i
    return xp.permute_dims(g, tuple(inv))


def _repeat(xp, g, ans, x, repeats, axis=None):
    # Segment sums of g: running sums read at the segment ends.
    if axis is None:
        ax, n = 0, x.size
    else:
        ax = axis % x.ndim
        n = x.shape[ax]
    if isinstance(repeats, int):
        reps = xp.full((n,), repeats, dtype=xp.int64, device=x.device)
    else:
        reps = xp.broadcast_to(xp.astype(repeats, xp.int64), (n,))
    ends = xp.cumulative_sum(reps)
    cs = xp.cumulative_sum(g, axis=ax, include_initial=True)
    r = xp.take(cs, ends, axis=ax) - xp.take(cs, ends - reps, axis=ax)
    return xp.reshape(r, x.shape)


def _tile(xp, g, ans, x, reps):
    reps = tuple(reps)
    d = builtins.max(x.ndim, len(reps))
    xs = (1,) * (d - x.ndim) + tuple(x.shape)
    rs = (1,) * (d - len(reps)) + reps
    inter = []
    for r, s in zip(rs, xs):
        inter += [r, s]
    gi = xp.reshape(g, tuple(inter))
    return xp.reshape(xp.sum(gi, axis=tuple(range(0, 2 * d, 2))), x.shape)


def _sort(xp, g, ans, x, axis=-1, descending=False, stable=True):
    idx = xp.argsort(x, axis=axis, descending=descending, stable=stable)
    return xp.take_along_axis(g, xp.argsort(idx, axis=axis), axis=axis)


def _to_device_back(xp, g, ans, x, *a, **k):
    return g if g.device == x.device else g.to_device(x.device)


_reg("broadcast_to", _same)
register("broadcast_arrays", _broadcast_arrays)
register("concat", _concat)
register("stack", _stack)
_reg("unstack", _unstack)
register("meshgrid", _meshgrid)
_reg("expand_dims", _reshape_back)
_reg("squeeze", _reshape_back)
_reg("reshape", _reshape_back)
_reg("permute_dims", _permute)
_reg("moveaxis", lambda xp, g, ans, x, s, d: xp.moveaxis(g, d, s))
_reg("flip", lambda xp, g, ans, x, axis=None: xp.flip(g, axis=axis))
_reg("roll", _roll)
_reg("repeat", _repeat)
_reg("tile", _tile)
_reg("tril", lambda xp, g, ans, x, k=0: xp.tril(g, k=k))
_reg("triu", lambda xp, g, ans, x, k=0: xp.triu(g, k=k))
_reg("sort", _sort)
_reg("astype", _to_device_back)
_reg("asarray", _to_device_back)
_reg("to_device", _to_device_back)
_reg("identity", _same)


# ---------------------------------------------------------------------------------------
# Composite rules: the VJP of a composition of recorded functions (used where a direct
# formula would only repeat the composition: diff, matrix_power, matrix_norm, some FFTs)
# ---------------------------------------------------------------------------------------

def composite(fn: Callable) -> Callable:
    """A full-form vjp for a function computed as ``fn(ag, *args, **kwargs)`` with the
    differentiable namespace ``ag``: it replays ``fn`` on the inputs and backpropagates
    ``g`` through it (recorded when ``create_graph`` is on)."""
    def vjp(xp, g, ans, args, kwargs, pos):
        import numr
        from . import _tape
        from ._var import mkvar
        import numr.autograd as ag

        create = xp is not numr
        args = list(args)
        kwargs = dict(kwargs)
        x = _tape.arg_at(tuple(args), kwargs, pos)
        if create:
            t = ag._identity(x)
        else:
            t = mkvar(x, None, 0, True)
        if type(pos) is int:
            args[pos] = t
        elif type(pos) is tuple:
            seq = list(args[pos[0]])
            seq[pos[1]] = t
            args[pos[0]] = seq
        else:
            kwargs[pos] = t
        with _tape.enable_grad():
            out = fn(ag, *args, **kwargs)
        roots, seeds = _tape.seeded_roots(out, g)
        if not roots:
            return None
        return _tape.backward(roots, seeds, create_graph=create, targets=[t])[0]
    return vjp


def _diff_fn(ag, x, axis=-1, n=1, prepend=None, append=None):
    parts = [p for p in (prepend, x, append) if p is not None]
    if len(parts) > 1:
        nd = x.ndim
        ax = axis % nd
        parts = [p if p.ndim == nd else
                 ag.broadcast_to(ag.expand_dims(p, axis=ax),
                                 tuple(1 if i == ax else x.shape[i] for i in range(nd)))
                 for p in parts]
        x = ag.concat(parts, axis=ax)
    for _ in range(n):
        L = x.shape[axis]
        x = x[_sl(x.ndim, axis % x.ndim, slice(1, L))] - x[_sl(x.ndim, axis % x.ndim, slice(0, L - 1))]
    return x


def _matrix_power_fn(ag, x, n):
    if n < 0:
        x, n = ag.linalg.inv(x), -n
    result = None
    base = x
    while n:
        if n & 1:
            result = base if result is None else ag.matmul(result, base)
        n >>= 1
        if n:
            base = ag.matmul(base, base)
    return result


def _matrix_norm_fn(ag, x, keepdims=False, ord="fro"):
    if ord is None or ord == "fro":
        r = ag.sqrt(ag.sum(ag.real(x * ag.conj(x)), axis=(-2, -1), keepdims=keepdims))
        return r
    if ord == "nuc":
        r = ag.sum(ag.linalg.svdvals(x), axis=-1)
    elif ord in (2, -2):
        s = ag.linalg.svdvals(x)
        r = ag.max(s, axis=-1) if ord == 2 else ag.min(s, axis=-1)
    else:
        red = -2 if ord in (1, -1) else -1
        s = ag.sum(ag.abs(x), axis=red)
        r = ag.max(s, axis=-1) if ord > 0 else ag.min(s, axis=-1)
    if keepdims:
        r = ag.expand_dims(ag.expand_dims(r, axis=-1), axis=-1)
    return r


register("diff", composite(_diff_fn))


def _register_nan_reductions():
    # numr's nan* extensions are compositions of the namespace's functions
    # (numr/_nan.py); their gradients replay them with the differentiable namespace.
    from numr import _nan

    for name in ("nansum", "nanprod", "nanmin", "nanmax", "nanmean", "nanmedian"):
        register(name, composite(_nan.replay(name)))


_register_nan_reductions()
register("linalg.matrix_power", composite(_matrix_power_fn))
register("linalg.matrix_norm", composite(_matrix_norm_fn))


def _vector_norm(xp, g, ans, x, axis=None, keepdims=False, ord=2):
    ge = _expand(xp, g, x.shape, axis, keepdims)
    ne = _expand(xp, ans, x.shape, axis, keepdims)
    if ord == 0:
        return None
    if ord == 2:
        return ge * x / xp.where(ne == 0, 1.0, ne)
    a = xp.abs(x)
    if ord in (math.inf, -math.inf):
        mask = xp.astype(a == ne, ge.dtype)
        cnt = xp.sum(mask, axis=_axes(axis, x.ndim), keepdims=True)
        return ge * xp.sign(x) * mask / cnt
    if ord == 1:
        return ge * xp.sign(x)
    return ge * xp.sign(x) * a ** (ord - 1) / ne ** (ord - 1)


_reg("linalg.vector_norm", _vector_norm)


# ---------------------------------------------------------------------------------------
# Linear algebra
# ---------------------------------------------------------------------------------------

def _inv(xp, g, ans, x):
    ah = _mH(xp, ans)
    return -xp.matmul(xp.matmul(ah, g), ah)


def _solve_b(xp, a, g, vec):
    ah = _mH(xp, a)
    if vec and a.ndim > 2:
        return xp.linalg.solve(ah, xp.expand_dims(g, axis=-1))[..., 0]
    return xp.linalg.solve(ah, g)


def _solve(xp, g, ans, args, kwargs, pos):
    a, b = args[0], args[1]
    vec = b.ndim == 1
    gb = _solve_b(xp, a, g, vec)
    if pos == 1:
        return gb
    if vec:
        return -xp.expand_dims(gb, axis=-1) * xp.expand_dims(_c(xp, ans), axis=-2)
    return -xp.matmul(gb, _mH(xp, ans))


def _det(xp, g, ans, x):
    s = xp.expand_dims(xp.expand_dims(g * _c(xp, ans), axis=-1), axis=-1)
    return s * _mH(xp, xp.linalg.inv(x))


def _slogdet(xp, g, ans, x):
    # With L = log det x: logabsdet = Re L and sign = exp(i Im L), so the cotangent that
    # reaches L is gl + i q, q = -Im(conj(gs) sign) (zero for real input, whose sign is
    # constant); then x's cotangent is that times inv(x)^H, as for det.
    gs, gl = g
    c = gl
    if gs is not None and x.dtype.kind == "complex":
        q = -xp.imag(xp.conj(gs) * ans[0])
        c = 1j * q if c is None else c + 1j * q
    if c is None:
        return None
    return xp.expand_dims(xp.expand_dims(c, axis=-1), axis=-1) * _mH(xp, xp.linalg.inv(x))


def _cholesky(xp, g, ans, x, upper=False):
    L, gL = (_mH(xp, ans), _mH(xp, g)) if upper else (ans, g)
    p = xp.matmul(_mH(xp, L), gL)
    p = xp.tril(p) - 0.5 * _diag(xp, xp.linalg.diagonal(p), x)
    linv = xp.linalg.inv(L)
    s = xp.matmul(xp.matmul(_mH(xp, linv), p), linv)
    return 0.5 * (s + _mH(xp, s))


def _qr(xp, g, ans, x, mode="reduced"):
    q, r = ans
    gq, gr = _fill(xp, g, ans)
    m = xp.matmul(r, _mH(xp, gr)) - xp.matmul(_mH(xp, gq), q)
    low = xp.tril(m, k=-1)
    copyltu = low + _mH(xp, low) + _diag(xp, xp.real(xp.linalg.diagonal(m)), x)
    return xp.matmul(gq + xp.matmul(q, copyltu), _mH(xp, xp.linalg.inv(r)))


def _eig_gap(xp, w):
    """F with F[i, j] = 1 / (w[j] - w[i]) off the diagonal, 0 on it."""
    e = xp.expand_dims(w, axis=-2) - xp.expand_dims(w, axis=-1)
    n = w.shape[-1]
    eye = xp.eye(n, dtype=xp.bool, device=w.device)
    return xp.where(eye, 0.0, 1.0 / xp.where(eye, 1.0, e))


def _eigh(xp, g, ans, x):
    w, v = ans
    gw, gv = g
    inner = None
    if gw is not None:
        inner = _diag(xp, gw, x)
    if gv is not None:
        t = _eig_gap(xp, w) * xp.matmul(_mH(xp, v), gv)
        inner = t if inner is None else inner + t
    if inner is None:
        return None
    return xp.matmul(xp.matmul(v, inner), _mH(xp, v))


def _eigvalsh(xp, g, ans, x):
    w, v = xp.linalg.eigh(x)
    return xp.matmul(v, xp.expand_dims(g, axis=-1) * _mH(xp, v))


def _svd_core(xp, x, u, s, vh, gu, gs, gvh):
    """The VJP of the reduced SVD (real; Townsend's formula)."""
    m, n = x.shape[-2:]
    k = s.shape[-1]
    sm = _diag(xp, s, x)
    term = _diag(xp, gs, x) if gs is not None else xp.zeros_like(sm)
    s2 = s * s
    f = _eig_gap(xp, s2)
    v = _mH(xp, vh)
    if gu is not None:
        uhgu = xp.matmul(_mH(xp, u), gu)
        term = term + xp.matmul(f * (uhgu - _mH(xp, uhgu)), sm)
    gv = _mH(xp, gvh) if gvh is not None else None
    if gv is not None:
        vhgv = xp.matmul(_mH(xp, v), gv)
        term = term + xp.matmul(sm, f * (vhgv - _mH(xp, vhgv)))
    ga = xp.matmul(xp.matmul(u, term), vh)
    if gu is not None and m > k:
        gus = gu / xp.expand_dims(s, axis=-2)
        ga = ga + xp.matmul(gus - xp.matmul(u, xp.matmul(_mH(xp, u), gus)), vh)
    if gv is not None and n > k:
        gvs = _mH(xp, gv) / xp.expand_dims(s, axis=-1)
        ga = ga + xp.matmul(u, gvs - xp.matmul(xp.matmul(gvs, v), vh))
    return ga


def _svd(xp, g, ans, x, full_matrices=True):
    u, s, vh = ans
    gu, gs, gvh = g
    k = s.shape[-1]
    # Note: with full_matrices the extra columns of U (rows of Vh) are arbitrary; their
    # cotangents are ignored, as only the reduced factors are determined by x.
    if u.shape[-1] != k:
        u = u[..., :k]
        gu = gu[..., :k] if gu is not None else None
    if vh.shape[-2] != k:
        vh = vh[..., :k, :]
        gvh = gvh[..., :k, :] if gvh is not None else None
    return _svd_core(xp, x, u, s, vh, gu, gs, gvh)


def _svdvals(xp, g, ans, x):
    u, s, vh = xp.linalg.svd(x, full_matrices=False)
    return xp.matmul(u, xp.expand_dims(g, axis=-1) * vh)


def _pinv(xp, g, ans, x, rtol=None):
    # d(pinv) for a matrix of constant rank (Golub & Pereyra), transposed.
    p, ph = ans, _mH(xp, ans)
    m, n = x.shape[-2:]
    gh = _mH(xp, g)
    im = xp.eye(m, dtype=_real_dtype(xp, x), device=x.device)
    i_n = xp.eye(n, dtype=_real_dtype(xp, x), device=x.device)
    t1 = -xp.matmul(xp.matmul(ph, g), ph)
    t2 = xp.matmul(xp.matmul(im - xp.matmul(x, p), gh), xp.matmul(p, ph))
    t3 = xp.matmul(xp.matmul(ph, p), xp.matmul(gh, i_n - xp.matmul(p, x)))
    return t1 + t2 + t3


def _eig(xp, g, ans, x):
    # For eigenvectors normalised to unit length (their phase is free, so only losses
    # that ignore it have a gradient): with E[i, j] = conj(w_j) - conj(w_i),
    # gA = V^-H (diag(gw) + offdiag(V^H gV - V^H V diag(Re diag(V^H gV))) / E) V^H.
    w, v = ans
    gw, gv = g
    if gw is None and gv is None:
        return None
    vh = _mH(xp, v)
    n = w.shape[-1]
    inner = _diag(xp, gw, v) if gw is not None else xp.zeros_like(xp.matmul(vh, v))
    if gv is not None:
        vhgv = xp.matmul(vh, gv)
        d = xp.linalg.diagonal(vhgv)
        # A loss that depends on the phases has no gradient (as PyTorch checks too).
        scale = 1.0 + float(xp.max(xp.abs(vhgv))) if vhgv.size else 1.0
        if vhgv.size and float(xp.max(xp.abs(xp.imag(d)))) > 1e-6 * scale:
            raise ValueError("linalg.eig: the loss depends on the eigenvectors' phases, "
                             "which eig leaves free, so it has no derivative; use a loss "
                             "that ignores them (|v|, v v^H), the eigenvalues, or eigh")
        re = xp.real(d)
        off = vhgv - xp.matmul(vh, v * xp.expand_dims(re, axis=-2))
        wc = xp.conj(w)
        e = xp.expand_dims(wc, axis=-2) - xp.expand_dims(wc, axis=-1)
        eye = xp.eye(n, dtype=xp.bool, device=x.device)
        inner = inner + xp.where(eye, xp.zeros_like(off), off / xp.where(eye, xp.ones_like(e), e))
    return xp.linalg.solve(vh, xp.matmul(inner, vh))


def _eigvals(xp, g, ans, x):
    w, v = xp.linalg.eig(x)
    return _eig(xp, (g, None), (w, v), x)


_reg("linalg.inv", _inv)
register("linalg.solve", _solve)
_reg("linalg.det", _det)
_reg("linalg.slogdet", _slogdet)
_reg("linalg.cholesky", _cholesky)
_reg("linalg.qr", _qr)
_reg("linalg.eigh", _eigh)
_reg("linalg.eigvalsh", _eigvalsh)
_reg("linalg.svd", _svd)
_reg("linalg.svdvals", _svdvals)
_reg("linalg.pinv", _pinv)
_reg("linalg.eig", _eig)
_reg("linalg.eigvals", _eigvals)


# ---------------------------------------------------------------------------------------
# FFT: linear maps, so each VJP is the adjoint transform (the opposite direction with
# the opposite normalisation), with the input length restored
# ---------------------------------------------------------------------------------------

_SWAP = {"backward": "forward", "forward": "backward", "ortho": "ortho"}


def _resize(xp, a, axis, length):
    """a cut or zero-padded to ``length`` along ``axis``."""
    ax = axis % a.ndim
    cur = a.shape[ax]
    if cur > length:
        return a[_sl(a.ndim, ax, slice(0, length))]
    if cur < length:
        pad = xp.zeros(tuple(length - cur if i == ax else s for i, s in enumerate(a.shape)),
                       dtype=a.dtype, device=a.device)
        return xp.concat([a, pad], axis=ax)
    return a


def _c2c(inverse_name):
    def rule(xp, g, ans, x, n=None, axis=-1, norm="backward"):
        r = getattr(xp.fft, inverse_name)(g, axis=axis, norm=_SWAP[norm])
        return _resize(xp, r, axis, x.shape[axis])
    return rule


def _c2cn(inverse_name):
    def rule(xp, g, ans, x, s=None, axes=None, norm="backward"):
        if axes is None:
            axes = tuple(range(x.ndim))
        r = getattr(xp.fft, inverse_name)(g, axes=axes, norm=_SWAP[norm])
        for a in axes:
            r = _resize(xp, r, a, x.shape[a])
        return r
    return rule


def _rfft(xp, g, ans, x, n=None, axis=-1, norm="backward"):
    length = n if n is not None else x.shape[axis]
    r = xp.fft.ifft(_resize(xp, g, axis, length), axis=axis, norm=_SWAP[norm])
    return _resize(xp, r, axis, x.shape[axis])


def _irfft(xp, g, ans, x, n=None, axis=-1, norm="backward"):
    length = n if n is not None else 2 * (x.shape[axis] - 1)
    r = xp.fft.rfft(g, axis=axis, norm=_SWAP[norm])
    k = r.shape[axis]
    # Each bin but DC (and Nyquist, for an even length) appears twice in the Hermitian
    # spectrum that irfft reconstructs.
    w = [2.0] * k
    w[0] = 1.0
    if length % 2 == 0:
        w[-1] = 1.0
    shape = [1] * r.ndim
    shape[axis % r.ndim] = k
    wa = xp.reshape(xp.asarray(w, dtype=_real_dtype(xp, r), device=r.device), tuple(shape))
    return _resize(xp, r * wa, axis, x.shape[axis])


def _hfft_fn(ag, x, n=None, axis=-1, norm="backward"):
    return ag.fft.irfft(ag.conj(x), n=n, axis=axis, norm=_SWAP[norm])


def _ihfft_fn(ag, x, n=None, axis=-1, norm="backward"):
    return ag.conj(ag.fft.rfft(x, n=n, axis=axis, norm=_SWAP[norm]))


def _nd_axes(x, s, axes):
    if axes is None:
        axes = tuple(range(x.ndim)) if s is None else tuple(range(x.ndim - len(s), x.ndim))
    return tuple(axes)


def _rfftn_fn(ag, x, s=None, axes=None, norm="backward"):
    axes = _nd_axes(x, s, axes)
    r = ag.fft.rfft(x, n=None if s is None else s[-1], axis=axes[-1], norm=norm)
    if len(axes) > 1:
        r = ag.fft.fftn(r, s=None if s is None else s[:-1], axes=axes[:-1], norm=norm)
    return r


def _irfftn_fn(ag, x, s=None, axes=None, norm="backward"):
    axes = _nd_axes(x, s, axes)
    if len(axes) > 1:
        x = ag.fft.ifftn(x, s=None if s is None else s[:-1], axes=axes[:-1], norm=norm)
    return ag.fft.irfft(x, n=None if s is None else s[-1], axis=axes[-1], norm=norm)


_reg("fft.fft", _c2c("ifft"))
_reg("fft.ifft", _c2c("fft"))
_reg("fft.fftn", _c2cn("ifftn"))
_reg("fft.ifftn", _c2cn("fftn"))
_reg("fft.rfft", _rfft)
_reg("fft.irfft", _irfft)
register("fft.hfft", composite(_hfft_fn))
register("fft.ihfft", composite(_ihfft_fn))
register("fft.rfftn", composite(_rfftn_fn))
register("fft.irfftn", composite(_irfftn_fn))
_reg("fft.fftshift", lambda xp, g, ans, x, axes=None: xp.fft.ifftshift(g, axes=axes))
_reg("fft.ifftshift", lambda xp, g, ans, x, axes=None: xp.fft.fftshift(g, axes=axes))


# ---------------------------------------------------------------------------------------
# Functions whose results carry no derivative: values pass through untracked
# ---------------------------------------------------------------------------------------

NONDIFF = frozenset({
    # comparisons, logic, bit operations, predicates
    "equal", "not_equal", "less", "less_equal", "greater", "greater_equal",
    "logical_and", "logical_or", "logical_xor", "logical_not",
    "bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_invert", "bitwise_left_shift",
    "bitwise_right_shift", "isnan", "isinf", "isfinite", "signbit", "all", "any",
    # integer results
    "argmax", "argmin", "nanargmax", "nanargmin", "argsort", "nonzero", "count_nonzero",
    "searchsorted",
    "unique_all", "unique_counts", "unique_inverse", "unique_values", "isin",
    "linalg.matrix_rank",
    # creation, dtypes and devices (no array input to differentiate)
    "arange", "empty", "empty_like", "eye", "full", "full_like", "linspace", "ones",
    "ones_like", "zeros", "zeros_like", "from_dlpack", "broadcast_shapes", "can_cast",
    "finfo", "iinfo", "isdtype", "result_type", "set_default_device",
    "fft.fftfreq", "fft.rfftfreq",
    # numr's device and I/O extensions
    "default_device", "synchronize", "memory_info", "empty_cache", "save", "load",
})

# Differentiable in principle, but numr gives no rule: a tracked input raises TypeError.
NO_RULE = frozenset({"nextafter"})
