"""Creation ops for NumPy-like modules.

numr has validated every argument: shapes are tuples of non-negative ints, fill values
and interval ends are Python scalars that fit ``dtype``, ``k`` offsets are clamped to the
matrix, ``dtype`` is a numr dtype this device holds.
"""

from __future__ import annotations

import math

from ... import _dtypes as dt


def build(c) -> dict:
    xp, native = c.xp, c.native
    # the widest float this device holds, for computing float ranges before rounding
    wide_float = native.get(dt.float64, native.get(dt.float32))

    def arange(start, stop, step, dtype):
        if dtype.kind == "float":
            # Note: NumPy fills float arrays by repeated addition in the target dtype;
            # start + i*step computed in float64 and rounded once is more accurate.
            # The length is the standard's ceil((stop - start) / step).
            n = max(math.ceil((stop - start) / step), 0)
            r = xp.arange(n, dtype=wide_float) * step + start
            return r.astype(native[dtype], copy=False)
        return xp.arange(start, stop, step, dtype=native[dtype])

    def empty(shape, dtype):
        return xp.empty(shape, dtype=native[dtype])

    def zeros(shape, dtype):
        return xp.zeros(shape, dtype=native[dtype])

    def ones(shape, dtype):
        return xp.ones(shape, dtype=native[dtype])

    def full(shape, fill_value, dtype):
        return xp.full(shape, fill_value, dtype=native[dtype])

    def empty_like(x, dtype):
        return xp.empty_like(x, dtype=native[dtype])

    def zeros_like(x, dtype):
        return xp.zeros_like(x, dtype=native[dtype])

    def ones_like(x, dtype):
        return xp.ones_like(x, dtype=native[dtype])

    def full_like(x, fill_value, dtype):
        return xp.full_like(x, fill_value, dtype=native[dtype])

    def eye(n_rows, n_cols, k, dtype):
        return xp.eye(n_rows, n_cols, k=k, dtype=native[dtype])

    def linspace(start, stop, num, dtype, endpoint):
        # Computed in the widest precision and rounded once, so that the ends are exact and
        # endpoint=False gives the first num values of the num+1 grid.
        kind = dtype.kind
        wide = native.get(dt.complex128, native[dtype]) if kind == "complex" else wide_float
        r = xp.linspace(start, stop, num, endpoint=endpoint, dtype=wide)
        if kind in ("int", "uint"):
            r = xp.floor(r)  # Note: NumPy rounds integer linspace results towards -inf
        return r.astype(native[dtype], copy=False)

    def meshgrid(*arrays, indexing):
        return tuple(xp.meshgrid(*arrays, indexing=indexing))

    def tril(x, k):
        return xp.tril(x, k=k)

    def triu(x, k):
        return xp.triu(x, k=k)

    return {"arange": arange, "empty": empty, "zeros": zeros, "ones": ones, "full": full,
            "empty_like": empty_like, "zeros_like": zeros_like, "ones_like": ones_like,
            "full_like": full_like, "eye": eye, "linspace": linspace,
            "meshgrid": meshgrid, "tril": tril, "triu": triu}
