"""all, any and diff for NumPy-like modules.

``diff`` receives operands of one dtype; ``prepend``/``append`` are None, native arrays
or Python scalars (one element along ``axis``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable

if TYPE_CHECKING:
    from . import Context


def build(c: Context) -> dict[str, Callable[..., Any]]:
    xp, arr = c.xp, c.arr

    # the arrays' methods: xp.all/xp.any add a Python dispatch (NumPy, 8 bools: 3.0 us
    # against 1.5)
    def all(a, axis, keepdims):
        return arr(a.all(axis=axis, keepdims=keepdims))

    def any(a, axis, keepdims):
        return arr(a.any(axis=axis, keepdims=keepdims))

    def diff(a, axis, n, prepend, append):
        # NumPy reads prepend=None as a value, so pass only the edges that are given; a
        # Python scalar becomes a 0-d array of a's dtype (NumPy would widen int16 + 0).
        edges = {k: v if type(v) is c.ndarray else xp.asarray(v, dtype=a.dtype)
                 for k, v in (("prepend", prepend), ("append", append)) if v is not None}
        return arr(xp.diff(a, n=n, axis=axis, **edges))

    return {"all": all, "any": any, "diff": diff}
