"""The functional API: grad, value_and_grad, vjp, jvp, jacobian, hessian, hvp,
checkpoint.

Each transform traces ``f`` on fresh tracked inputs. When an input is itself a tracked
Var (``grad`` of ``grad``, ``hessian``), the fresh input is a recorded identity of it
and the inner backward pass runs with ``create_graph``, so the result stays connected
to the outer trace: transforms nest to any order.

Forward mode (``jvp``) is derived from the VJP rules by linear transposition: with
``u`` a dummy cotangent, ``vjp(u) = J^H u`` is linear in ``u``, and the gradient of
``Re <vjp(u), t>`` with respect to ``u`` is ``J t``.
"""

from __future__ import annotations

from typing import Any, Callable, Sequence, overload

import numr as _numr
from numr._array import Array

from . import _tape
from ._rules import Rule
from ._tape import GRAD, enable_grad
from ._var import Var, mkvar

# A function of arrays (Vars under a trace): what the transforms take and return. The
# parameters stay open (``...``) because a transform keeps its argument's signature.
Fn = Callable[..., Any]
# The same for one argument: the first overload of each transform, so that a checker in
# strict mode gives a lambda's parameter a type (Any) instead of calling it unknown.
Fn1 = Callable[[Any], Any]

__all__ = ["grad", "value_and_grad", "vjp", "jvp", "jacobian", "hessian", "hvp", "checkpoint"]

_DIFF = ("float", "complex")


def _argnums(argnums: int | Sequence[int], nargs: int, fname: str) -> tuple[int, ...]:
    nums = (argnums,) if type(argnums) is int else \
        tuple(argnums) if isinstance(argnums, (tuple, list)) else None
    if nums is None or not all(type(i) is int for i in nums):
        raise TypeError(f"{fname}: argnums must be an int or a tuple of ints, got "
                        f"{argnums!r}")
    for i in nums:
        if not -nargs <= i < nargs:
            raise ValueError(f"{fname}: argnums {argnums!r} does not fit {nargs} arguments")
    return tuple(i % nargs for i in nums)


def _array_of(x: Any, fname: str, what: str) -> Array:
    """The numr Array of ``x`` (an Array or a Var), else a TypeError naming ``fname``."""
    v = x._value if type(x) is Var else x
    if type(v) is not Array:
        raise TypeError(f"{fname}: {what} must be a numr array, got {type(x).__name__}")
    return v


def _check_tangents(primals: tuple, ins: list, tangents: tuple, fname: str) -> None:
    if len(primals) != len(tangents):
        raise ValueError(f"{fname}: {len(primals)} primals but {len(tangents)} tangents")
    for p, t in zip(ins, tangents):
        tv = _array_of(t, fname, "a tangent")
        if tuple(tv.shape) != p.shape:
            raise ValueError(f"{fname}: a tangent of shape {tuple(tv.shape)} for a primal "
                             f"of shape {p.shape}")


def _leaves(args: tuple, nums: tuple, fname: str) -> tuple[list, list, bool]:
    """(new args, tracked inputs, nested?)"""
    from . import _identity

    args = list(args)
    ins = []
    nested = False
    for i in nums:
        a = args[i]
        if type(a) is Var:
            v = a._value
        elif type(a) is Array:
            v = a
        else:
            v = _numr.asarray(a)
        if v.dtype.kind not in _DIFF:
            raise TypeError(f"{fname}: argument {i} has dtype {v.dtype}; only floating-point "
                            f"and complex inputs can be differentiated")
        if type(a) is Var and a._rg and GRAD.on:
            t = _identity(a)
            nested = True
        else:
            t = mkvar(v, None, 0, True)
        args[i] = t
        ins.append(t)
    return args, ins, nested


def _out(x: Any, keep: bool) -> Any:
    """A result for the user: Arrays at top level, Vars inside an outer trace."""
    if keep:
        return x
    return x._value if type(x) is Var else x


def _zeros_for(t: Var, keep: bool) -> Any:
    z = _numr.zeros_like(t._value)
    return mkvar(z, None, 0, False) if keep else z


def _grads(out: Any, ins: list, nested: bool, seed: Any, fname: str, retain: bool = False) -> list:
    if type(out) is not Var or not out._rg:
        return [_zeros_for(t, nested) for t in ins]
    res = _tape.backward([out], [seed], create_graph=nested, targets=ins,
                         retain_graph=retain or nested)
    return [_zeros_for(t, nested) if r is None else _out(r, nested) for r, t in zip(res, ins)]


def _scalar_out(out: Any, fname: str) -> Any:
    o = out._value if type(out) is Var else out
    if type(o) is not Array:
        raise TypeError(f"{fname}: f must return an array, got {type(out).__name__}")
    if o.size != 1:
        raise ValueError(f"{fname}: f must return a scalar (one element) to take its "
                         f"gradient, got shape {o.shape}; use vjp or jacobian for "
                         f"non-scalar outputs")
    if o.dtype.kind not in ("float",):
        raise TypeError(f"{fname}: f must return a real floating-point value, got dtype "
                        f"{o.dtype}")
    return _numr.ones_like(o)


@overload
def value_and_grad(f: Fn1, argnums: int | Sequence[int] = 0, has_aux: bool = False) -> Fn: ...
@overload
def value_and_grad(f: Fn, argnums: int | Sequence[int] = 0, has_aux: bool = False) -> Fn: ...

def value_and_grad(f: Fn, argnums: int | Sequence[int] = 0,
                   has_aux: bool = False) -> Fn:
    """``f`` -> a function returning ``(f(*args), gradient)``; the gradient is taken
    with respect to the arguments ``argnums`` (a tuple of gradients for a tuple)."""
    def vg(*args):
        nums = _argnums(argnums, len(args), "grad")
        new, ins, nested = _leaves(args, nums, "grad")
        with enable_grad():
            out = f(*new)
        aux = None
        if has_aux:
            out, aux = out
        seed = _scalar_out(out, "grad")
        gs = _grads(out, ins, nested, seed, "grad")
        g = gs[0] if isinstance(argnums, int) else tuple(gs)
        val = _out(out, nested)
        return ((val, aux), g) if has_aux else (val, g)
    vg.__name__ = f"value_and_grad({getattr(f, '__name__', 'f')})"
    return vg


@overload
def grad(f: Fn1, argnums: int | Sequence[int] = 0, has_aux: bool = False) -> Fn: ...
@overload
def grad(f: Fn, argnums: int | Sequence[int] = 0, has_aux: bool = False) -> Fn: ...

def grad(f: Fn, argnums: int | Sequence[int] = 0, has_aux: bool = False) -> Fn:
    """``f`` -> the function computing the gradient of scalar ``f`` with respect to
    the arguments ``argnums``. Nests: ``grad(grad(f))`` is the second derivative."""
    vg = value_and_grad(f, argnums, has_aux)

    def g(*args):
        (val, g_) = vg(*args)
        return (g_, val[1]) if has_aux else g_
    g.__name__ = f"grad({getattr(f, '__name__', 'f')})"
    return g


@overload
def vjp(f: Fn1, *primals: Any) -> tuple[Any, Fn]: ...
@overload
def vjp(f: Fn, *primals: Any) -> tuple[Any, Fn]: ...

def vjp(f: Fn, *primals: Any) -> tuple[Any, Fn]:
    """``(f(*primals), vjp_fn)``; ``vjp_fn(cotangent)`` gives a tuple with one
    cotangent per primal (the graph is kept, so it may be called several times)."""
    nums = tuple(range(len(primals)))
    new, ins, nested = _leaves(primals, nums, "vjp")
    with enable_grad():
        out = f(*new)
    outs = list(out) if isinstance(out, (tuple, list)) else [out]

    def vjp_fn(ct: Any) -> tuple:
        cts = list(ct) if isinstance(out, (tuple, list)) else [ct]
        if len(cts) != len(outs):
            raise ValueError(f"vjp: {len(cts)} cotangents for {len(outs)} outputs")
        roots, seeds = [], []
        for o, c in zip(outs, cts):
            if c is not None:
                _array_of(c, "vjp", "a cotangent")
            if type(o) is Var and o._rg and c is not None:
                cv = c._value if (type(c) is Var and not nested) else c
                if tuple(cv.shape) != o.shape:
                    raise ValueError(f"vjp: a cotangent of shape {tuple(cv.shape)} for an "
                                     f"output of shape {o.shape}")
                roots.append(o)
                seeds.append(cv)
        if not roots:
            return tuple(_zeros_for(t, nested) for t in ins)
        res = _tape.backward(roots, seeds, create_graph=nested, retain_graph=True, targets=ins)
        return tuple(_zeros_for(t, nested) if r is None else _out(r, nested)
                     for r, t in zip(res, ins))

    val = type(out)(_out(o, nested) for o in outs) if isinstance(out, (tuple, list)) \
        else _out(out, nested)
    return val, vjp_fn


@overload
def jvp(f: Fn1, primals: Sequence[Any], tangents: Sequence[Any]) -> tuple[Any, Any]: ...
@overload
def jvp(f: Fn, primals: Sequence[Any], tangents: Sequence[Any]) -> tuple[Any, Any]: ...

def jvp(f: Fn, primals: Sequence[Any], tangents: Sequence[Any]) -> tuple[Any, Any]:
    """Forward mode: ``(f(*primals), J @ tangents)`` for an array-valued ``f``."""
    primals, tangents = tuple(primals), tuple(tangents)
    if len(primals) != len(tangents):
        raise ValueError(f"jvp: {len(primals)} primals but {len(tangents)} tangents")
    new, ins, nested = _leaves(primals, tuple(range(len(primals))), "jvp")
    _check_tangents(primals, ins, tangents, "jvp")
    with enable_grad():
        out = f(*new)
        if type(out) is not Var or not out._rg:
            o = out._value if type(out) is Var else out
            return _out(out, nested), _numr.zeros_like(o)
        u = mkvar(_numr.zeros_like(out._value), None, 0, True)
        gs = _tape.backward([out], [u], create_graph=True, targets=ins)
        from . import sum as _sum, real as _real, conj as _conj

        s = None
        for gi, t in zip(gs, tangents):
            if gi is None:
                continue
            term = _sum(_real(_conj(gi) * t))
            s = term if s is None else s + term
        if s is None or not s._rg:
            return _out(out, nested), _numr.zeros_like(out._value)
        (jv,) = _tape.backward([s], [_numr.ones_like(s._value)], create_graph=nested,
                               targets=[u])
    if jv is None:
        jv = _numr.zeros_like(out._value)
    return _out(out, nested), _out(jv, nested)


@overload
def jacobian(f: Fn1, argnums: int | Sequence[int] = 0) -> Fn: ...
@overload
def jacobian(f: Fn, argnums: int | Sequence[int] = 0) -> Fn: ...

def jacobian(f: Fn, argnums: int | Sequence[int] = 0) -> Fn:
    """``f`` -> the function computing the Jacobian, of shape ``out.shape +
    in.shape`` (reverse mode, one row per output element)."""
    def jac(*args):
        nums = _argnums(argnums, len(args), "jacobian")
        new, ins, nested = _leaves(args, nums, "jacobian")
        with enable_grad():
            out = f(*new)
        o = _array_of(out, "jacobian", "f's result")
        rows: list[list] = [[] for _ in ins]
        n = o.size
        flat = _numr.zeros((n,), dtype=o.dtype, device=o.device)
        for k in range(n):
            seed = _numr.asarray(flat, copy=True)
            seed[k] = 1
            seed = _numr.reshape(seed, o.shape)
            gs = _grads(out, ins, nested, seed, "jacobian", retain=True)
            for r, gk in zip(rows, gs):
                r.append(gk)
        res = []
        for t, r in zip(ins, rows):
            if n == 0:
                res.append(_numr.zeros(o.shape + t.shape, dtype=t.dtype, device=t.device))
                continue
            ns = _ns() if nested else _numr
            res.append(ns.reshape(ns.stack(r, axis=0), o.shape + t.shape))
        return res[0] if isinstance(argnums, int) else tuple(res)
    return jac


@overload
def hessian(f: Fn1, argnums: int | Sequence[int] = 0) -> Fn: ...
@overload
def hessian(f: Fn, argnums: int | Sequence[int] = 0) -> Fn: ...

def hessian(f: Fn, argnums: int | Sequence[int] = 0) -> Fn:
    """``f`` -> the function computing the Hessian of scalar ``f`` as the Jacobian of
    the gradient: shape ``in.shape + in.shape`` for one argument; for a tuple of
    ``argnums``, a tuple of tuples ``H[i][j]`` of shape ``in_i.shape + in_j.shape``."""
    if isinstance(argnums, int):
        return jacobian(grad(f, argnums), argnums)
    if not isinstance(argnums, (tuple, list)) or not all(isinstance(a, int) for a in argnums):
        raise TypeError(f"hessian: argnums must be an int or a tuple of ints, got {argnums!r}")
    nums = tuple(argnums)
    g = grad(f, nums)

    def hess(*args):
        return tuple(jacobian(lambda *a, i=i: g(*a)[i], nums)(*args) for i in range(len(nums)))
    return hess


@overload
def hvp(f: Fn1, primals: Sequence[Any], tangents: Sequence[Any]) -> Any: ...
@overload
def hvp(f: Fn, primals: Sequence[Any], tangents: Sequence[Any]) -> Any: ...

def hvp(f: Fn, primals: Sequence[Any], tangents: Sequence[Any]) -> Any:
    """Hessian-vector product of scalar ``f`` at ``primals`` along ``tangents``
    (reverse over reverse: the gradient of ``<grad f, v>``); one result per primal."""
    primals, tangents = tuple(primals), tuple(tangents)
    nums = tuple(range(len(primals)))
    _check_tangents(primals, [_array_of(p, "hvp", "a primal") if type(p) in (Var, Array)
                              else _numr.asarray(p) for p in primals], tangents, "hvp")

    def inner(*xs):
        gs = grad(f, nums)(*xs)
        ns = _ns()
        s = None
        for gi, v in zip(gs, tangents):
            term = ns.sum(ns.real(ns.conj(gi) * v))
            s = term if s is None else s + term
        return s

    r = grad(inner, nums)(*primals)
    return r[0] if len(primals) == 1 else r


class _Checkpoint:
    """The rule of one checkpointed call: recompute ``f`` in the backward pass and take
    the VJPs for every tracked input at once (cached for the node's edges)."""

    def __init__(self, f: Fn, positions: set) -> None:
        self.f = f
        self.positions = positions   # the tracked argument positions (the node's edges)
        self.cache: dict | None = None

    def __call__(self, xp, g, ans, args, kwargs, pos):
        if self.cache is None:
            self.cache = self._all(xp, g, args)
        r = self.cache.pop(pos)
        if not self.cache:
            self.cache = None
        return r

    def _all(self, xp, g, args) -> dict:
        from . import _identity

        create = xp is not _numr
        new = list(args)
        ins, poss = [], []
        for i, a in enumerate(args):
            if i not in self.positions:
                continue
            t = _identity(a) if create else mkvar(a, None, 0, True)
            new[i] = t
            ins.append(t)
            poss.append(i)
        with enable_grad():
            out = self.f(*new)
        roots, seeds = _tape.seeded_roots(out, g)
        res = _tape.backward(roots, seeds, create_graph=create, targets=ins) if roots \
            else [None] * len(ins)
        return dict(zip(poss, res))


@overload
def checkpoint(f: Fn1, *args: Any) -> Any: ...
@overload
def checkpoint(f: Fn, *args: Any) -> Any: ...

def checkpoint(f: Fn, *args: Any) -> Any:
    """``f(*args)`` whose intermediates are not kept: the backward pass recomputes them
    (memory for time). ``f`` takes and returns arrays (a tuple for several)."""
    tracked = [(i, a) for i, a in enumerate(args) if type(a) is Var and a._rg]
    if not tracked or not GRAD.on:
        return f(*args)
    uargs = tuple(a._value if type(a) is Var else a for a in args)
    with _tape.no_grad():
        out = f(*args)
    if isinstance(out, tuple):
        val = tuple(o._value if type(o) is Var else o for o in out)
    else:
        val = out._value if type(out) is Var else out
    ck = _Checkpoint(f, {i for i, _ in tracked})
    rule = Rule("checkpoint", ck)
    rule.var_fn = f
    from ._wrap import record

    return record(rule, uargs, None, val, tracked)


def _ns():
    import numr.autograd as ag

    return ag
