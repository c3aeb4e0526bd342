"""Searching ops for NumPy-like modules.

numr has validated the arguments (axes non-negative, ``x1`` and ``x2`` of one dtype or a
Python scalar that fits it); index results come back in the device's default indexing
dtype, never as NumPy scalars.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable

if TYPE_CHECKING:
    from . import Context


def build(c: Context) -> dict[str, Callable[..., Any]]:
    xp, arr = c.xp, c.arr
    index = c.native[c.device.defaults["indexing"]]

    def indices(r):
        return arr(r).astype(index, copy=False)

    # The methods skip the function's Python-level dispatch (NumPy, 8 float32 elements:
    # np.argmax 1.6 us, a.argmax 0.25).
    def argmax(a, *, axis, keepdims):
        return indices(a.argmax(axis=axis, keepdims=keepdims))

    def argmin(a, *, axis, keepdims):
        return indices(a.argmin(axis=axis, keepdims=keepdims))

    def count_nonzero(a, *, axis, keepdims):
        # every axis as None: NumPy counts that in C, a tuple of axes through a != 0 and a
        # sum (8x8 float32: 0.5 us against 6)
        r = arr(xp.count_nonzero(a, axis=None if len(axis) == a.ndim else axis))
        if keepdims:  # CuPy's count_nonzero has no keepdims
            r = r.reshape(tuple(1 if i in axis else n for i, n in enumerate(a.shape)))
        return indices(r)

    def nonzero(a):
        return tuple(indices(r) for r in xp.nonzero(a))

    def searchsorted(x1, x2, *, side, sorter):
        return indices(xp.searchsorted(x1, x2, side=side, sorter=sorter))

    def where(condition, x1, x2):
        r = arr(xp.where(condition, x1, x2))
        # With a Python scalar operand the array operand's dtype is the one numr chose.
        want = x1.dtype if isinstance(x1, c.ndarray) else x2.dtype
        return r if r.dtype == want else r.astype(want)

    return {"argmax": argmax, "argmin": argmin, "count_nonzero": count_nonzero,
            "nonzero": nonzero, "searchsorted": searchsorted, "where": where}
