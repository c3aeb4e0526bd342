"""isin and unique_* for NumPy-like modules.

unique_*: NaNs stay distinct (``equal_nan=False``; NumPy 2 merges them by default),
inverse indices take ``x``'s shape, and every index array has the device's default index
dtype. isin: one operand may be a Python scalar, already checked to fit the other's dtype.
"""

from __future__ import annotations


def build(c) -> dict:
    xp, compat, arr = c.xp, c.compat, c.arr
    index = c.native[c.device.defaults["indexing"]]

    def idx(a):
        return a.astype(index, copy=False)

    def unique_all(a):
        v, i, inv, n = compat.unique_all(a)
        return v, idx(i), idx(inv), idx(n)

    def unique_counts(a):
        v, n = compat.unique_counts(a)
        return v, idx(n)

    def unique_inverse(a):
        v, inv = compat.unique_inverse(a)
        return v, idx(inv)

    def unique_values(a):
        return compat.unique_values(a)

    def isin(a, b, invert):
        if type(a) is not c.ndarray:
            a = xp.asarray(a, dtype=b.dtype)
        elif type(b) is not c.ndarray:
            b = xp.asarray(b, dtype=a.dtype)
        return arr(xp.isin(a, b, invert=invert))

    return {"unique_all": unique_all, "unique_counts": unique_counts,
            "unique_inverse": unique_inverse, "unique_values": unique_values, "isin": isin}
