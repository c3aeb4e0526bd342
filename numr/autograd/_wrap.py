"""Making the differentiable functions: each one unwraps its Var arguments, calls the
numr function, wraps the result in Vars and, when a tracked input went in (and grad
mode is on), records a Node whose rule is the function's entry in the rule table.

Elementwise functions get lean wrappers (one or two positional arguments, no loop);
everything else the generic one, which also finds Vars inside list/tuple arguments
(``concat``, ``stack``, ``meshgrid`` ...) and keyword arguments (``clip``'s bounds,
``diff``'s ``prepend`` ...).
"""

from __future__ import annotations

import functools
from typing import Any, Callable

from numr._array import Array

from . import _rules
from ._tape import GRAD, make_node
from ._var import Var, mkvar

_new = object.__new__
_DIFF = frozenset(("float", "complex"))
_SEQ = (list, tuple)


def unwrap(a: Any) -> Any:
    return a._value if type(a) is Var else a


def unwrap_key(key: Any) -> Any:
    t = type(key)
    if t is Var:
        return key._value
    if t is tuple or t is list:
        return t(k._value if type(k) is Var else k for k in key)
    return key


def wrap_out(r: Any) -> Any:
    """numr results as Vars (untracked): an Array, or a tuple/namedtuple of them."""
    if type(r) is Array:
        o = _new(Var)
        o._value = r
        o._node = None
        o._idx = 0
        o._rg = False
        return o
    if isinstance(r, tuple):
        items = [wrap_out(x) if type(x) is Array else x for x in r]
        return type(r)(*items) if hasattr(r, "_fields") else type(r)(items)
    if type(r) is list:
        return [wrap_out(x) for x in r]
    return r


def _no_rule(name: str) -> TypeError:
    return TypeError(f"{name}: no derivative rule; it cannot be differentiated (compute "
                     f"it under numr.autograd.no_grad() or on detached values)")


def record(entry: Any, args: tuple, kwargs: dict | None, out: Any, tracked: list) -> Any:
    """Wrap ``out`` in Vars connected to a new node for ``tracked`` [(pos, Var)]."""
    edges = tuple((pos, v._node, v._idx, v if v._node is None else None) for pos, v in tracked)
    if type(out) is Array:
        if out._dtype.kind not in _DIFF:
            return wrap_out(out)
        return mkvar(out, make_node(entry, args, kwargs, out, edges, 0), 0, True)
    if isinstance(out, tuple):
        node = make_node(entry, args, kwargs, tuple(out), edges, len(out))
        items = [mkvar(x, node, i, True) if type(x) is Array and x._dtype.kind in _DIFF
                 else wrap_out(x) for i, x in enumerate(out)]
        return type(out)(*items) if hasattr(out, "_fields") else type(out)(items)
    return wrap_out(out)


def _has_var(seq: Any) -> bool:
    for e in seq:
        if type(e) is Var:
            return True
    return False


def make_generic(name: str, fn: Callable) -> Callable:
    """The differentiable version of numr function ``fn`` (table key ``name``)."""
    entry = _rules.RULES.get(name)
    passthrough = name in _rules.NONDIFF

    def f(*args, **kwargs):
        tracked = None
        ua = args
        for i, a in enumerate(args):
            t = type(a)
            if t is Var:
                if ua is args:
                    ua = list(args)
                ua[i] = a._value
                if a._rg:
                    if tracked is None:
                        tracked = []
                    tracked.append((i, a))
            elif (t is list or t is tuple) and _has_var(a):
                if ua is args:
                    ua = list(args)
                seq = []
                for j, e in enumerate(a):
                    if type(e) is Var:
                        seq.append(e._value)
                        if e._rg:
                            if tracked is None:
                                tracked = []
                            tracked.append(((i, j), e))
                    else:
                        seq.append(e)
                ua[i] = t(seq)
        if kwargs:  # a fresh dict: safe to rewrite
            for k, a in list(kwargs.items()):
                if type(a) is Var:
                    kwargs[k] = a._value
                    if a._rg:
                        if tracked is None:
                            tracked = []
                        tracked.append((k, a))
        out = fn(*ua, **kwargs)
        if tracked is None or not GRAD.on or passthrough:
            return wrap_out(out)
        if entry is None:
            raise _no_rule(name)
        return record(entry, tuple(ua), kwargs or None, out, tracked)

    functools.update_wrapper(f, fn)
    f.__qualname__ = f.__name__
    if entry is not None:
        entry.var_fn = f
    return f


def make_first(name: str, fn: Callable) -> Callable:
    """For functions whose first argument is the one array (sum, reshape, linalg.inv,
    fft.fft ...): a lean path when only that argument is a Var; anything else goes to
    the generic wrapper."""
    gen = make_generic(name, fn)
    entry = _rules.RULES.get(name)
    passthrough = name in _rules.NONDIFF

    def f(x, /, *args, **kwargs):
        if type(x) is not Var:
            return gen(x, *args, **kwargs)
        for a in args:
            if type(a) is Var:
                return gen(x, *args, **kwargs)
        if kwargs:
            for a in kwargs.values():
                if type(a) is Var:
                    return gen(x, *args, **kwargs)
        v = x._value
        out = fn(v, *args, **kwargs)
        if x._rg and GRAD.on and not passthrough:
            if entry is None:
                raise _no_rule(name)
            if type(out) is Array:
                if out._dtype.kind not in _DIFF:
                    return wrap_out(out)
                n = _new(_Node)
                n.rule = entry
                n.args = (v, *args) if args else (v,)
                n.kwargs = kwargs or None
                n.ans = out
                n.edges = ((0, x._node, x._idx, x if x._node is None else None),)
                n.hooks = None
                n.nout = 0
                o = _new(Var)
                o._value = out
                o._node = n
                o._idx = 0
                o._rg = True
                return o
            return record(entry, (v, *args), kwargs or None, out, [(0, x)])
        if type(out) is Array:
            o = _new(Var)
            o._value = out
            o._node = None
            o._idx = 0
            o._rg = False
            return o
        return wrap_out(out)

    functools.update_wrapper(f, fn)
    if entry is not None:
        entry.var_fn = f
    return f


def make_unary(name: str, fn: Callable) -> Callable:
    entry = _rules.RULES.get(name)
    passthrough = name in _rules.NONDIFF

    def f(x, /):
        if type(x) is Var:
            out = fn(x._value)
            o = _new(Var)
            o._value = out
            o._idx = 0
            if x._rg and GRAD.on and out._dtype.kind in _DIFF and not passthrough:
                if entry is None:
                    raise _no_rule(name)
                n = _new(_Node)
                n.rule = entry
                n.args = (x._value,)
                n.kwargs = None
                n.ans = out
                n.edges = ((0, x._node, x._idx, x if x._node is None else None),)
                n.hooks = None
                n.nout = 0
                o._node = n
                o._rg = True
            else:
                o._node = None
                o._rg = False
            return o
        return wrap_out(fn(x))

    functools.update_wrapper(f, fn)
    if entry is not None:
        entry.var_fn = f
    return f


def make_binary(name: str, fn: Callable) -> Callable:
    entry = _rules.RULES.get(name)
    passthrough = name in _rules.NONDIFF

    def f(x1, x2, /):
        t1 = type(x1) is Var
        t2 = type(x2) is Var
        out = fn(x1._value if t1 else x1, x2._value if t2 else x2)
        o = _new(Var)
        o._value = out
        o._idx = 0
        if ((t1 and x1._rg) or (t2 and x2._rg)) and GRAD.on and not passthrough \
                and out._dtype.kind in _DIFF:
            if entry is None:
                raise _no_rule(name)
            n = _new(_Node)
            n.rule = entry
            n.args = (x1._value if t1 else x1, x2._value if t2 else x2)
            n.kwargs = None
            n.ans = out
            if t1 and x1._rg:
                e1 = (0, x1._node, x1._idx, x1 if x1._node is None else None)
                if t2 and x2._rg:
                    n.edges = (e1, (1, x2._node, x2._idx, x2 if x2._node is None else None))
                else:
                    n.edges = (e1,)
            else:
                n.edges = ((1, x2._node, x2._idx, x2 if x2._node is None else None),)
            n.hooks = None
            n.nout = 0
            o._node = n
            o._rg = True
        else:
            o._node = None
            o._rg = False
        return o

    functools.update_wrapper(f, fn)
    if entry is not None:
        entry.var_fn = f
    return f


from ._tape import Node as _Node  # noqa: E402


# ---------------------------------------------------------------------------------------
# Operators of Var
# ---------------------------------------------------------------------------------------

_OPERATORS = {
    "add": "add", "sub": "subtract", "mul": "multiply", "truediv": "divide",
    "floordiv": "floor_divide", "mod": "remainder", "pow": "pow", "and": "bitwise_and",
    "or": "bitwise_or", "xor": "bitwise_xor", "lshift": "bitwise_left_shift",
    "rshift": "bitwise_right_shift", "matmul": "matmul",
}
_COMPARISONS = {"eq": "equal", "ne": "not_equal", "lt": "less", "le": "less_equal",
                "gt": "greater", "ge": "greater_equal"}
_UNARY = {"neg": "negative", "pos": "positive", "abs": "abs", "invert": "bitwise_invert"}
_KIND_RANK = {"bool": 0, "uint": 1, "int": 2, "float": 3, "complex": 4}


def _binop(f: Callable) -> Callable:
    def op(self, other, /):
        return f(self, other)
    return op


def _rbinop(f: Callable) -> Callable:
    def rop(self, other, /):
        return f(other, self)
    return rop


def _ibinop(f: Callable, opname: str) -> Callable:
    def iop(self, other, /):
        o = other._value if type(other) is Var else other
        if GRAD.on and (self._rg or (type(other) is Var and other._rg)):
            if self._node is None and self._rg:
                raise ValueError(f"__i{opname}__: a leaf Var that requires grad cannot be "
                                 f"changed in place; do it under no_grad() or write "
                                 f"x = x {opname} y")
            r = f(self, other)
            if r.shape != self.shape:
                raise ValueError(f"__i{opname}__: the result shape {r.shape} differs from "
                                 f"the array's shape {self.shape}")
            if r.dtype != self.dtype:
                if _KIND_RANK[r.dtype.kind] > _KIND_RANK[self.dtype.kind]:
                    raise TypeError(f"__i{opname}__: the result dtype {r.dtype} cannot be "
                                    f"stored in the array's dtype {self.dtype}")
                r = _ag_astype(r, self.dtype)
            self._value, self._node, self._idx, self._rg = r._value, r._node, r._idx, r._rg
            return self
        r = getattr(self._value, f"__i{opname}__")(o)
        if r is NotImplemented:
            return r
        return self
    return iop


def _unop(f: Callable) -> Callable:
    def op(self, /):
        return f(self)
    return op


def _ag_astype(x: Any, d: Any) -> Any:
    import numr.autograd as ag

    return ag.astype(x, d)


def attach_operators(ns: dict) -> None:
    for op, fname in _OPERATORS.items():
        f = ns[fname]
        setattr(Var, f"__{op}__", _binop(f))
        setattr(Var, f"__r{op}__", _rbinop(f))
        setattr(Var, f"__i{op}__", _ibinop(f, op))
    for op, fname in _COMPARISONS.items():
        setattr(Var, f"__{op}__", _binop(ns[fname]))
    for op, fname in _UNARY.items():
        setattr(Var, f"__{op}__", _unop(ns[fname]))


def make_function(name: str, fn: Callable) -> Callable:
    """The right wrapper for ``fn``: the lean one when its first parameter is a single
    positional array, else the generic one."""
    import inspect

    try:
        params = list(inspect.signature(fn).parameters.values())
    except (TypeError, ValueError):
        params = []
    if params and params[0].kind is inspect.Parameter.POSITIONAL_ONLY \
            and params[0].name in ("x", "x1"):
        return make_first(name, fn)
    return make_generic(name, fn)
