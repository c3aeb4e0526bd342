"""Reductions and scans for NumPy-like modules.

numr has validated the axes (a tuple of non-negative ints, or None for every axis in
sum; one int for the scans) and
chosen the result dtype. The corrections here: explicit casts so that the dtype numr
chose is the dtype computed in (NumPy would widen uint32 sums, for instance); NaN where
var/std have ``M - correction <= 0`` (NumPy gives inf or negative values); NumPy's
warnings about empty reductions are silenced, since their results are the standard's.
"""

from __future__ import annotations

import contextlib
import math
import warnings
from typing import TYPE_CHECKING, Any, Callable

if TYPE_CHECKING:
    from . import Context


def _reduced_count(a, axis) -> int:
    return math.prod(a.shape[i] for i in axis)


@contextlib.contextmanager
def _quiet():
    """Silence NumPy's RuntimeWarnings ("Mean of empty slice", "Degrees of freedom <= 0")."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        yield


def build(c: Context) -> dict[str, Callable[..., Any]]:
    xp, native, arr = c.xp, c.native, c.arr

    def cast(a, dtype):
        t = native[dtype]
        return (a if a.dtype == t else a.astype(t)), t

    # The ndarray methods skip the Python-level dispatch of xp.sum/xp.prod/xp.max/xp.min
    # (NumPy, 8 float32 elements: np.max 3.5 us, a.max 1.3).
    def sum(a, axis, dtype, keepdims):
        a, t = cast(a, dtype)
        if a.dtype.kind in "fc":  # already the result dtype; no dtype= (a plainer path)
            return arr(a.sum(axis=axis, keepdims=keepdims))
        # Integers need dtype=: the libraries widen small integer sums by themselves.
        return arr(a.sum(axis=axis, dtype=t, keepdims=keepdims))

    def prod(a, axis, dtype, keepdims):
        a, t = cast(a, dtype)
        return arr(a.prod(axis=axis, dtype=t, keepdims=keepdims))

    def max(a, axis, keepdims):
        return arr(a.max(axis=axis, keepdims=keepdims))

    def min(a, axis, keepdims):
        return arr(a.min(axis=axis, keepdims=keepdims))

    # mean overrides the derived sum / count: the libraries accumulate float16 in float32
    # (the derived mean would sum in float16).
    # NumPy's float32/float64 mean in two ufunc calls, as its _mean makes them (the sum,
    # then the quotient by the count in float64, rounded to the dtype: the same bits),
    # without the Python of _mean around them. Float16 and bfloat16 (float32 sums) and
    # complex keep the libraries' mean; CuPy's mean is one kernel.
    fast = {xp.float32, xp.float64} if xp.__name__ == "numpy" else set()
    add_reduce, true_divide, intp = xp.add.reduce, xp.true_divide, xp.intp

    def mean(a, axis, keepdims):
        n = a.size if axis is None or len(axis) == a.ndim else _reduced_count(a, axis)
        if n == 0:
            with _quiet():
                return arr(a.mean(axis=axis, keepdims=keepdims))  # NaN, as required
        t = a.dtype.type
        if t in fast:
            s = add_reduce(a, axis=axis, keepdims=keepdims)
            if type(s) is t:  # a scalar: Python's float64 quotient (n < 2^53: exact)
                return arr(t(float(s) / n))
            return arr(true_divide(s, intp(n), out=s, casting="unsafe"))
        return arr(a.mean(axis=axis, keepdims=keepdims))

    multiply, sqrt = xp.multiply, xp.sqrt

    def fast_var(a, axis, n, correction, keepdims):
        """NumPy's _var for real float32/float64, its ufunc calls in its order (the same
        bits), without its Python: the mean kept as an array, the squared deviations
        summed, divided by n - correction in float64."""
        m = add_reduce(a, axis=axis, keepdims=True)
        true_divide(m, intp(n), out=m, casting="unsafe")
        d = a - m
        multiply(d, d, out=d)
        r = add_reduce(d, axis=axis, keepdims=keepdims)
        if type(r) is a.dtype.type:
            return r, True
        true_divide(r, intp(n) - correction, out=r, casting="unsafe")
        return r, False

    def moment(f, root):
        def op(a, axis, correction, keepdims):
            n = a.size if axis is None or len(axis) == a.ndim else _reduced_count(a, axis)
            if n - correction <= 0:
                with _quiet():
                    r = arr(f(a, axis=axis, keepdims=keepdims))
                return xp.full_like(r, math.nan)
            t = a.dtype.type
            if t in fast and a.ndim:  # (a 0-d sum with keepdims is a scalar)
                r, scalar = fast_var(a, axis, n, correction, keepdims)
                if scalar:  # Python's float64 quotient (as NumPy's, for n < 2^53)
                    r = t(float(r) / (n - correction))
                    return arr(t(sqrt(r)) if root else r)
                return arr(sqrt(r, out=r) if root else r)
            return arr(f(a, axis=axis, ddof=correction, keepdims=keepdims))
        return op

    # The arrays' cumsum/cumprod methods, the initial value concatenated where asked
    # (array_api_compat's cumulative_* add its namespace look-up: 8 float32, 13.8 us
    # against the method's 3.4)
    def scan(method, initial):
        def op(a, axis, dtype, include_initial):
            if a.ndim == 0:
                a = a.reshape(1)  # numr scans a 0-d array as a one-element vector
            a, t = cast(a, dtype)
            if axis is None:
                axis = 0
            r = getattr(a, method)(axis=axis, dtype=t)
            if include_initial:
                shape = list(a.shape)
                shape[axis] = 1
                r = xp.concatenate([xp.full(shape, initial, dtype=r.dtype), r], axis=axis)
            return arr(r)
        return op

    return {"sum": sum, "prod": prod, "max": max, "min": min, "mean": mean,
            "var": moment(xp.var, False), "std": moment(xp.std, True),
            "cumulative_sum": scan("cumsum", 0), "cumulative_prod": scan("cumprod", 1)}
