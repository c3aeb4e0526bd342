"""Generator.integers: bounded integers from whole words by multiplication, in exact
uint64 limb arithmetic, so every device gives the same integers.

Value j of a draw with range size r (high - low, plus one with endpoint) is
floor(X * r / 2^(32 k)), X the k words j k .. j k + k - 1 read as one integer (the first
most significant): each result appears floor or ceil(2^(32 k) / r) times among the 2^(32 k)
values of X, a relative bias below r / 2^(32 k). k = 2 where r <= 2^32 (so at most
2^-32) and k = 3 for wider ranges (also at most 2^-32, r < 2^64). No rejection, so the
draw's words are fixed by its size alone.
"""

from __future__ import annotations

import operator
from typing import Any

import numpy as np

import numr as xp

from .. import _dtypes as dt, _ranges
from .._array import Array
from . import _params as pm

_INTS = (dt.int8, dt.int16, dt.int32, dt.int64, dt.uint8, dt.uint16, dt.uint32, dt.uint64)
_M = 0xFFFFFFFF


def _int_dtype(dtype: Any, device: Any, func: str = "integers") -> Any:
    if dtype is None:
        dtype = device.defaults["integral"]
    if not isinstance(dtype, dt.DType) or (dtype not in _INTS and dtype is not dt.bool):
        raise TypeError(f"{func}: dtype must be an integer dtype or bool, got {dtype!r}")
    if dtype not in device.dtypes:
        raise TypeError(f"{func}: {device} has no {dtype}")
    return dtype


def _bounds(dtype: Any) -> tuple:
    if dtype is dt.bool:
        return 0, 1
    i = np.iinfo(np.dtype(dtype.name))
    return int(i.min), int(i.max)


def _bound(name: str, v: Any, dev: Any) -> Any:
    """A bound: a Python int, or an int64/uint64 Array on ``dev``."""
    v = pm._unwrap(v)
    if isinstance(v, (bool, np.bool_)) or isinstance(v, (float, np.floating)):
        raise TypeError(f"integers: {name} must be an int or an integer array, got "
                        f"{type(v).__name__}")
    if isinstance(v, (int, np.integer)):
        return int(v)
    if not isinstance(v, Array):
        v = np.asarray(v)
        if v.dtype.kind not in "iu":
            raise TypeError(f"integers: {name} must be an int or an integer array, got "
                            f"dtype {v.dtype}")
        v = xp.asarray(v, device=dev)
    if v.dtype.kind not in ("int", "uint"):
        raise TypeError(f"integers: {name} must be an int or an integer array, got dtype "
                        f"{v.dtype}")
    return xp.astype(v, dt.uint64 if v.dtype is dt.uint64 else dt.int64)


def _check_range(low: Any, hi: Any, dtype: Any) -> None:
    """low <= hi (the largest value) and both within ``dtype``'s range."""
    lo_min, hi_max = _bounds(dtype)
    if not isinstance(low, Array) and not isinstance(hi, Array):
        if low > hi:
            raise ValueError(f"integers: low >= high (low={low}, high={hi + 1} without "
                             f"endpoint)")
        if low < lo_min or hi > hi_max:
            raise ValueError(f"integers: the range [{low}, {hi}] does not fit dtype {dtype} "
                             f"([{lo_min}, {hi_max}])")
        return
    if bool(xp.any(_gt(low, hi))):
        raise ValueError("integers: low >= high for some elements")
    for v in (low, hi):
        if isinstance(v, Array) and (bool(xp.any(_lt(v, lo_min))) or
                                     bool(xp.any(_gt(v, hi_max)))):
            raise ValueError(f"integers: a bound does not fit dtype {dtype} "
                             f"([{lo_min}, {hi_max}])")


def _gt(a: Any, b: Any) -> Any:
    """a > b for int64/uint64 arrays and Python ints, exact across signedness."""
    return _lt(b, a)


def _lt(a: Any, b: Any) -> Any:
    """a < b for int64/uint64 arrays and Python ints (one of them an Array), exact
    across signedness."""
    if isinstance(a, int) or isinstance(b, int):
        arr, v, flip = (b, a, True) if isinstance(a, int) else (a, b, False)
        lo, hi = (0, 2 ** 64 - 1) if arr.dtype is dt.uint64 else (-2 ** 63, 2 ** 63 - 1)
        if v < lo or v > hi:     # v beyond arr's dtype: the answer is the same everywhere
            const = (v > hi) != flip
            return xp.full(arr.shape, const, dtype=dt.bool, device=arr.device)
        return arr > v if flip else arr < v
    if a.dtype is b.dtype:
        return a < b
    # int64 against uint64: a negative int64 is below every uint64
    s, u = (a, b) if a.dtype is dt.int64 else (b, a)
    neg = s < 0
    su = xp.astype(xp.where(neg, 0, s), dt.uint64)
    if a is s:
        return xp.logical_or(neg, su < u)
    return xp.logical_and(xp.logical_not(neg), u < su)


def _range(low: Any, hi: Any) -> Any:
    """hi - low + 1 as a Python int, or a uint64 Array (the range 2^64 wraps to 0)."""
    if not isinstance(low, Array) and not isinstance(hi, Array):
        return hi - low + 1
    lo = xp.astype(low, dt.uint64) if isinstance(low, Array) else low & (2 ** 64 - 1)
    h = xp.astype(hi, dt.uint64) if isinstance(hi, Array) else hi & (2 ** 64 - 1)
    return h - lo + 1       # uint64 arithmetic, modulo 2^64


def _limbs(r: Any) -> tuple:
    if isinstance(r, int):
        return r & _M, r >> 32
    return xp.bitwise_and(r, _M), xp.bitwise_right_shift(r, 32)


def scaled(words: list, r: Any) -> Any:
    """floor(X * r / 2^(32 k)) for X the uint64 arrays ``words`` (k 32-bit limbs, the
    first most significant) and ``r`` (<= 2^64, an int, or a uint64 Array in which 0
    stands for 2^64), by schoolbook multiplication in 32-bit limbs (every column sum
    stays below 2^35)."""
    k = len(words)
    a = words[::-1]                                # a[0] least significant
    # r = 2^64: floor(X / 2^(32 (k - 2))), the two most significant limbs of X
    top = xp.bitwise_left_shift(words[0], 32) + words[1]
    if isinstance(r, int) and r == 1 << 64:
        return top
    r0, r1 = _limbs(r)
    cols: list = [0] * (k + 2)
    for i in range(k):
        for j, rl in enumerate((r0, r1)):
            if isinstance(rl, int) and rl == 0:
                continue
            p = a[i] * rl
            cols[i + j] = cols[i + j] + xp.bitwise_and(p, _M)
            cols[i + j + 1] = cols[i + j + 1] + xp.bitwise_right_shift(p, 32)
    carry: Any = 0
    digits = []
    for c in range(k + 2):
        v = cols[c] + carry
        digits.append(xp.bitwise_and(v, _M) if isinstance(v, Array) else v & _M)
        carry = xp.bitwise_right_shift(v, 32) if isinstance(v, Array) else v >> 32
    hi = digits[k + 1]
    out = digits[k] + (xp.bitwise_left_shift(hi, 32) if isinstance(hi, Array) else hi << 32)
    return out if isinstance(r, int) else xp.where(r == 0, top, out)


def integers(gen: Any, low: Any, high: Any, size: Any, dtype: Any, endpoint: bool,
             device: Any) -> Array:
    if high is None:
        low, high = 0, low
    dev = pm.device_of("integers", device, low, high)
    dtype = _int_dtype(dtype, dev)
    low, high = _bound("low", low, dev), _bound("high", high, dev)
    if endpoint:
        hi = high
    elif isinstance(high, Array):
        # high - 1 must not wrap around
        if bool(xp.any(high == (-2 ** 63 if high.dtype is dt.int64 else 0))):
            raise ValueError("integers: low >= high for some elements")
        hi = high - 1
    else:
        hi = high - 1
    _check_range(low, hi, dtype)
    shape = pm.out_shape("integers", size, low, hi)
    n = pm.size_of(shape)
    r = _range(low, hi)
    wide = (r > 1 << 32) if isinstance(r, int) else (_bounds(dtype)[1] - _bounds(dtype)[0]
                                                    >= 1 << 32)
    k = 3 if wide else 2
    w = xp.astype(gen._bg._draw(k * n, "u32", dev), dt.uint64)
    w = xp.reshape(w, (n, k))
    off = scaled([w[:, i] for i in range(k)], r if isinstance(r, int) else
                 xp.reshape(xp.broadcast_to(r, shape), (n,)))
    off = xp.reshape(off, shape)
    if dtype is dt.bool:
        return xp.astype(off + (low if not isinstance(low, Array) else
                                xp.astype(low, dt.uint64)), dt.bool)
    signed = dtype.kind == "int"
    base = dt.int64 if signed else dt.uint64
    if isinstance(low, Array):
        low = xp.astype(low, base)
    elif not signed:
        low = low & (2 ** 64 - 1)
    res = xp.astype(off, base) + low
    res = res if res.dtype is dtype else xp.astype(res, dtype)
    if isinstance(low, int) and isinstance(hi, int) and n:
        _ranges.note(res, low, hi)  # (an index drawn here needs no bounds read back)
    return res
