"""Elementwise ops for NumPy-like modules, with the standard's special cases corrected."""

from __future__ import annotations

from ..._elementwise import BINARY, UNARY


def build(c) -> dict:
    xp, compat, ndarray = c.xp, c.compat, c.ndarray
    asarray = xp.asarray

    def wrap1(f):
        def op(a):
            r = f(a)
            return r if type(r) is ndarray else asarray(r)
        return op

    def wrap2(f):
        def op(a, b):
            r = f(a, b)
            return r if type(r) is ndarray else asarray(r)
        return op

    ops = {name: wrap1(getattr(compat, name)) for name in UNARY}
    ops.update({name: wrap2(getattr(compat, name)) for name in BINARY})

    def round(a, decimals=0):
        return c.arr(compat.round(a, decimals=decimals))

    def clip(a, lo, hi):
        return c.arr(compat.clip(a, lo, hi))

    ops.update(round=round, clip=clip)
    return ops
