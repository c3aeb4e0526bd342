"""Creation ops for NumPy-like modules.

numr has validated every argument: shapes are tuples of non-negative ints, fill values
and interval ends are Python scalars that fit ``dtype``, ``k`` offsets are clamped to the
matrix, ``dtype`` is a numr dtype this device holds.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any, Callable

from ... import _dtypes as dt

if TYPE_CHECKING:
    from . import Context


def build(c: Context) -> dict[str, Callable[..., Any]]:
    xp, native = c.xp, c.native
    # the widest float this device holds, for computing float ranges before rounding
    wide_float = native.get(dt.float64, native.get(dt.float32))

    def arange(start, stop, step, dtype):
        if dtype.kind == "float":
            # Note: NumPy derives the step of a float range from its first two values
            # rounded to the target dtype, so float32 ranges drift; start + i*step
            # computed in the widest float and rounded once does not.
            # The length is the standard's ceil((stop - start) / step).
            n = max(math.ceil((stop - start) / step), 0)
            r = xp.arange(n, dtype=wide_float) * step + start
            return r.astype(native[dtype], copy=False)
        # Integers: start + i*step in the 64-bit type of the same signedness, whose
        # wrap-around is exact modulo 2**64, then narrowed (numr checked that every value
        # fits). CuPy refuses a negative step for an unsigned dtype, so an unsigned range
        # going down is start - i*|step|.
        if start == 0 and step == 1:  # 0, 1, ..., stop - 1: the library's own range
            return xp.arange(stop, dtype=native[dtype])
        n = len(range(start, stop, step))
        wide = native[dt.uint64 if dtype.kind == "uint" else dt.int64]
        if dtype.kind == "int":
            step = (step + 2**63) % 2**64 - 2**63  # the same step modulo 2**64, as int64
        i = xp.arange(n, dtype=wide)
        r = i * step + start if step > 0 or dtype.kind == "int" else start - i * -step
        return r.astype(native[dtype], copy=False)

    def empty(shape, dtype):
        return xp.empty(shape, dtype=native[dtype])

    def zeros(shape, dtype):
        return xp.zeros(shape, dtype=native[dtype])

    def full(shape, fill_value, dtype):
        t = native[dtype]
        if c.signed_zero(fill_value):
            return c.signed_zeros(shape, t, fill_value)
        return xp.full(shape, fill_value, dtype=t)

    def eye(n_rows, n_cols, k, dtype):
        return xp.eye(n_rows, n_cols, k=k, dtype=native[dtype])

    def linspace(start, stop, num, dtype, endpoint):
        # Computed in the widest precision and rounded once, so that the ends are exact
        # and endpoint=False gives the first num values of the num+1 grid. Complex
        # ranges are two real ranges (CuPy's linspace takes no complex ends).
        kind = dtype.kind
        if kind == "complex":
            re = xp.linspace(start.real, stop.real, num, endpoint=endpoint, dtype=wide_float)
            im = xp.linspace(start.imag, stop.imag, num, endpoint=endpoint, dtype=wide_float)
            r = xp.empty(num, dtype=native[dtype])
            r.real, r.imag = re, im
            return r
        r = xp.linspace(start, stop, num, endpoint=endpoint, dtype=wide_float)
        if kind in ("int", "uint"):
            r = xp.floor(r)  # Note: NumPy rounds integer linspace results towards -inf
        return r.astype(native[dtype], copy=False)

    def meshgrid(*arrays, indexing):
        return tuple(xp.meshgrid(*arrays, indexing=indexing))

    def tril(x, k):
        return xp.tril(x, k=k)

    def triu(x, k):
        return xp.triu(x, k=k)

    # zeros overrides the derived full(shape, 0): the libraries get zeroed memory from
    # the allocator (calloc) without writing it. ones and the *_like ops are derived.
    return {"arange": arange, "empty": empty, "zeros": zeros, "full": full,
            "eye": eye, "linspace": linspace,
            "meshgrid": meshgrid, "tril": tril, "triu": triu}
