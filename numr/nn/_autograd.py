"""numr.nn under numr.autograd: the four norms record themselves when a Var goes in.

``numr.nn.rms_norm`` and the others send calls with a ``numr.autograd.Var`` argument
here (this module is imported only then, so numr.nn never imports numr.autograd on its
own). Each op is registered once through the autograd package's public API::

    register("nn.rms_norm", vjp=...)             # one full-form rule per op
    differentiable("nn.rms_norm", raw_function)   # the recorded function

Two ways through a rule, picked by the namespace it is given:

* ``xp is numr`` (an ordinary backward pass, plain Arrays): the fused ``*_backward``
  kernel runs once per node and pass, for every tracked input together. The engine asks
  the rule once per tracked input, so the first call computes all of them and leaves
  the others in the node's memo (a small object passed as the ``_memo`` keyword, so it
  lives and dies with the node); without it a tracked weight would cost a second pass.
* ``xp is numr.autograd`` (``create_graph=True``: Vars in, a recorded graph out): the
  gradient is written with namespace functions (the composite formulas), so it is
  itself differentiable and second derivatives (``hvp``, ``hessian``, grad of grad) and
  forward mode (``numr.autograd.jvp``, derived from these VJPs) come out right.

Arrays are always passed positionally, so a rule's ``pos`` is the index into the op's
argument names.
"""

from __future__ import annotations

from typing import Any, Optional

import numr
from numr import autograd as ag

from . import _norms

__all__ = ["call"]


class _Memo:
    """The fused gradients of one node's backward pass, until each tracked input took
    its own. ``g`` is the cotangent they were computed for (a later pass through a
    retained graph brings a new one and recomputes)."""

    __slots__ = ("tracked", "g", "res")

    def __init__(self, tracked: frozenset) -> None:
        self.tracked = tracked
        self.g = None
        self.res: Optional[dict] = None


# op -> (argument names in order, center (layer norm), add (returns (y, s)))
_OPS = {
    "rms_norm": (("x", "weight"), False, False),
    "layer_norm": (("x", "weight", "bias"), True, False),
    "add_rms_norm": (("x", "residual", "weight"), False, True),
    "add_layer_norm": (("x", "residual", "weight", "bias"), True, True),
}


def _fused(g: Any, ans: Any, a: dict, eps: float, center: bool, add: bool,
           want: frozenset) -> dict:
    """Every wanted input's cotangent from one call of the backward kernel."""
    gy, gs = g if add else (g, None)
    if gy is None:
        # only s was used later: s = x + residual passes its cotangent through
        return {"x": gs, "residual": gs, "weight": None, "bias": None}
    s = ans[1] if add else a["x"]
    # the kernels take cotangents of s's dtype (a seed given by the user may differ)
    if gy.dtype != s.dtype:
        gy = numr.astype(gy, s.dtype)
    if gs is not None and gs.dtype != s.dtype:
        gs = numr.astype(gs, s.dtype)
    w, b = a.get("weight"), a.get("bias")
    gx, gw, gb = _norms._backward(gy, s, gs, w, eps, center,
                                  w is not None and "weight" in want,
                                  b is not None and "bias" in want)
    # x and residual get the same array, as the add_*_backward functions return it: the
    # engine adds cotangents out of place, so sharing it is safe and saves a copy
    return {"x": gx, "residual": gx, "weight": gw, "bias": gb}


def _composite(xp: Any, g: Any, a: dict, eps: float, center: bool, add: bool,
               name: str) -> Any:
    """The cotangent of input ``name`` with namespace functions (Vars under
    create_graph). Weight and bias get per-row terms: the engine sums them over the
    leading axes down to shape (n,)."""
    gy, gs = g if add else (g, None)
    if gy is None:
        return gs if name in ("x", "residual") else None
    if name == "bias":
        return gy
    s = a["x"] + a["residual"] if add else a["x"]  # rounded to s's dtype, as the forward
    dtype = s.dtype
    # float16 and bfloat16 compute in float32
    acc = numr.float32 if dtype in (numr.float16, numr.bfloat16) else dtype
    if dtype != acc:
        s, gy = xp.astype(s, acc), xp.astype(gy, acc)
    d = s - xp.mean(s, axis=-1, keepdims=True) if center else s
    rstd = 1.0 / xp.sqrt(xp.mean(d * d, axis=-1, keepdims=True) + eps)
    xhat = d * rstd
    if name == "weight":
        return gy * xhat
    w = a.get("weight")
    if w is not None:
        gy = gy * (xp.astype(w, acc) if w.dtype != acc else w)
    n = s.shape[-1]
    inner = gy - xhat * (xp.sum(gy * xhat, axis=-1, keepdims=True) / n)
    if center:
        inner = inner - xp.sum(gy, axis=-1, keepdims=True) / n
    gx = rstd * inner
    if gs is not None:
        gx = gx + (xp.astype(gs, acc) if gs.dtype != acc else gs)
    return gx


def _make_rule(op: str):
    names, center, add = _OPS[op]

    def vjp(xp, g, ans, args, kwargs, pos):
        name = names[pos] if type(pos) is int else pos
        a = dict(zip(names, args))
        eps = kwargs["eps"]
        if xp is not numr:  # create_graph: differentiable composite formulas
            return _composite(xp, g, a, eps, center, add, name)
        memo = kwargs.get("_memo")
        if memo is None:  # not recorded through call(): just this input
            return _fused(g, ans, a, eps, center, add, frozenset((name,)))[name]
        if memo.g is not g or memo.res is None or name not in memo.res:
            want = memo.tracked | {name}
            memo.g = g
            memo.res = {k: v for k, v in _fused(g, ans, a, eps, center, add, want).items()
                        if k in want}
        r = memo.res.pop(name)
        if not memo.res:  # every tracked input served: drop the references
            memo.g = memo.res = None
        return r

    return vjp


def _make_raw(op: str):
    fn = getattr(_norms, op)

    # _memo rides along in the node's keywords for the rule; the forward ignores it
    def raw(*arrays: Any, eps: float, _memo: Any = None) -> Any:
        return fn(*arrays, eps=eps)

    raw.__name__ = raw.__qualname__ = op
    raw.__doc__ = fn.__doc__
    return raw


_RECORDED = {}
for _op in _OPS:
    ag.register("nn." + _op, vjp=_make_rule(_op))
    _RECORDED[_op] = ag.differentiable("nn." + _op, _make_raw(_op))


def call(op: str, arrays: tuple, eps: float) -> Any:
    """``op(*arrays, eps=eps)`` recorded on the autograd tape (some array is a Var)."""
    names = _OPS[op][0]
    tracked = frozenset(n for n, v in zip(names, arrays)
                        if type(v) is ag.Var and v.requires_grad)
    if not tracked or not ag.is_grad_enabled():
        return _RECORDED[op](*arrays, eps=eps)  # untracked Vars out
    return _RECORDED[op](*arrays, eps=eps, _memo=_Memo(tracked))
