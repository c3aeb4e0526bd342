"""isin and unique for NumPy-like modules (the unique_* ops are derived from unique).

unique: NaNs stay distinct (``equal_nan=False``; NumPy 2 merges them by default),
inverse indices take ``x``'s shape, and every index array has the device's default index
dtype. isin: one operand may be a Python scalar, already checked to fit the other's dtype.
"""

from __future__ import annotations

import inspect
from typing import TYPE_CHECKING, Any, Callable

if TYPE_CHECKING:
    from . import Context


def build(c: Context) -> dict[str, Callable[..., Any]]:
    xp, arr = c.xp, c.arr
    index = c.native[c.device.defaults["indexing"]]

    def idx(a):
        return a.astype(index, copy=False)

    # NaNs distinct where the library can be told so (asked of its signature once:
    # array_api_compat's unique_* ask it on every call, 40 us of unique_values' 60 on 8
    # floats)
    distinct = {"equal_nan": False} if "equal_nan" in inspect.signature(xp.unique).parameters \
        else {}

    def unique(a, first=False, inverse=False, counts=False):
        # The library call that computes no more than asked: a sort alone for the values
        # (unique_all's argsort is 20x slower on 10^6 floats).
        wanted = (first, inverse, counts)
        if not (first or inverse or counts):
            return (xp.unique(a, **distinct),)
        # unique_all's set where more than one is asked (as array_api_compat computes)
        ask = (True,) * 3 if first or (inverse and counts) else wanted
        r = xp.unique(a, return_index=ask[0], return_inverse=ask[1], return_counts=ask[2],
                      **distinct)
        got = dict(zip((k for k in range(3) if ask[k]), r[1:]))
        if 1 in got:  # the libraries flatten it (NumPy 2.0.0 did not): x's shape
            got[1] = got[1].reshape(a.shape)
        return (r[0],) + tuple(idx(got[k]) for k in range(3) if wanted[k])

    def isin(a, b, invert):
        if type(a) is not c.ndarray:
            a = xp.asarray(a, dtype=b.dtype)
        elif type(b) is not c.ndarray:
            b = xp.asarray(b, dtype=a.dtype)
        return arr(xp.isin(a, b, invert=invert))

    return {"unique": unique, "isin": isin}
