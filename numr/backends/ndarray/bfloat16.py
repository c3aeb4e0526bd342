"""bfloat16 where the library's own bfloat16 falls short.

numr's bfloat16 is ml_dtypes' on the CPU and on CUDA (CuPy holds ml_dtypes' type). Both
libraries compute most functions in float32 and round once, which is numr's rule. Two
kinds of op are routed through float32 here (bfloat16 operands converted exactly, the
bfloat16 result rounded once):

* accumulating ones, everywhere: ml_dtypes sums in bfloat16 (a sum of 1000 ones is
  256), numr accumulates in float32 (sum, prod, mean, var, std and the scans);
* on CUDA, the ops CuPy has no bfloat16 kernel for (sorting and what sorts, argmax and
  argmin, rounding, clip, all/any; cupy/cupy#9630 lists the gaps).

``nextafter`` is computed on the 16-bit patterns (a float32 step would round back to the
same bfloat16).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable

from ... import _dtypes as dt

if TYPE_CHECKING:
    from . import Context

# Ops whose result must accumulate in float32, on every NumPy-like library (the
# products too: CuPy has no bfloat16 matmul/einsum, 'data type E not understood').
ACCUMULATING = ("sum", "prod", "mean", "var", "std", "cumulative_sum", "cumulative_prod",
                "matmul", "tensordot", "vecdot")

# Sorting and what sorts, through float32 on every library: NumPy 2.5's sort of
# ml_dtypes 0.6 bfloat16 arrays leaves them unsorted (seen on the H200's image), CuPy
# has no bfloat16 sort.
SORTING = ("sort", "argsort", "unique", "isin", "searchsorted")

# Ops CuPy computes no bfloat16 for (its sort is Thrust's, dispatched over a fixed list
# of types; argmax/argmin/round/clip/all/any have no bfloat16 loop); bit-exact through
# float32, since every bfloat16 is a float32 and these ops create no new values (clip's
# bounds are bfloat16 values too, round's and linspace's results are rounded once).
CUPY_GAPS = ("argmax", "argmin", "round", "clip", "all", "any", "count_nonzero", "nonzero",
             "arange", "linspace", "eye")


def wrap_ops(c: Context, ops: dict[str, Callable[..., Any]]) -> None:
    names = ACCUMULATING + SORTING + (CUPY_GAPS if c.xp.__name__ == "cupy" else ())
    for name in names:
        if name in ops:
            ops[name] = via_float32(c, ops[name])
    ops["nextafter"] = nextafter(c, ops["nextafter"])


def via_float32(c: Context, f: Callable[..., Any]) -> Callable[..., Any]:
    """``f`` computing bfloat16 operands (native arrays, or a ``dtype=`` argument) in
    float32, its float32 results rounded back to bfloat16; other dtypes pass as they are."""
    bf16, f32 = c.bf16, c.xp.dtype("float32")

    def widen(v):
        if v is dt.bfloat16:
            return dt.float32, True
        if getattr(v, "dtype", None) == bf16:
            return v.astype(f32), True
        if isinstance(v, (list, tuple)) and v and any(getattr(x, "dtype", None) == bf16 for x in v):
            return type(v)(x.astype(f32) for x in v), True
        return v, False

    def narrow(r):
        if isinstance(r, (list, tuple)):
            return type(r)(narrow(x) for x in r)
        return r.astype(bf16) if getattr(r, "dtype", None) == f32 else r

    nd, bf = c.ndarray, dt.bfloat16

    def touches(v) -> bool:
        """Whether ``v`` is or holds bfloat16; arrays of another kind (bfloat16's NumPy
        kind is "V"), None, ints, bools and other numr dtypes by type tests alone."""
        t = type(v)
        if t is nd:
            return v.dtype.kind == "V" and v.dtype == bf16
        if v is None or t is int or t is bool:
            return False
        if t is dt.DType:
            return v is bf
        if getattr(v, "dtype", None) == bf16:
            return True
        return (t in (list, tuple) and bool(v) and type(v[0]) is not int  # (axes)
                and any(getattr(x, "dtype", None) == bf16 for x in v))

    def op(*args, **kwargs):
        # The calls of other dtypes (nearly all) pass at once: this wrapper sits on every
        # sum, mean and argmax (it cost mean 4 of its 9 µs on the CPU; 1.2 µs of numr.sum's
        # 4.9 before the type tests).
        for v in args:
            if touches(v):
                break
        else:
            for v in kwargs.values():
                if touches(v):
                    break
            else:
                return f(*args, **kwargs)
        hit = False
        # An explicit other result dtype (sum(x, dtype=float32)) is kept as computed.
        other = any(dt.is_dtype(v) and v is not dt.bfloat16
                    for v in (*args, *kwargs.values()))
        new_args = []
        for a in args:
            a, h = widen(a)
            new_args.append(a)
            hit |= h
        new_kwargs: dict[str, Any] = {}
        for k, v in kwargs.items():
            v, h = widen(v)
            new_kwargs[k] = v
            hit |= h
        if not hit:
            return f(*args, **kwargs)
        r = f(*new_args, **new_kwargs)
        return r if other else narrow(r)

    op.__name__ = getattr(f, "__name__", "op")
    return op


def nextafter(c: Context, f: Callable[..., Any]) -> Callable[..., Any]:
    """nextafter on the bit patterns for bfloat16 (the next representable bfloat16)."""
    xp, bf16 = c.xp, c.bf16
    u16 = xp.dtype("uint16")

    def op(a, b):
        if getattr(a, "dtype", None) != bf16 and getattr(b, "dtype", None) != bf16:
            return f(a, b)
        a, b = xp.broadcast_arrays(xp.asarray(a, dtype=bf16), xp.asarray(b, dtype=bf16))
        bits = xp.ascontiguousarray(a).view(u16)
        up = (a < b) == (a > 0)           # away from zero: the pattern grows by one
        step = xp.where(up, bits + xp.asarray(1, u16), bits - xp.asarray(1, u16))
        # from +-0 the smallest subnormal with b's sign
        tiny = xp.where(xp.signbit(b), xp.asarray(0x8001, u16), xp.asarray(0x0001, u16))
        step = xp.where(a == 0, tiny, step).astype(u16, copy=False)
        r = step.view(bf16)
        r = xp.where(a == b, b, r)        # equal: b itself (so nextafter(0, -0) is -0)
        nan = xp.isnan(a) | xp.isnan(b)
        r = xp.where(nan, xp.asarray(float("nan"), dtype=bf16), r)
        return c.arr(r.astype(bf16, copy=False))

    return op


WIDE = ("int32", "uint32", "int64", "uint64", "float64")


def round_once(xp: Any, a: Any, bf16: Any) -> Any:
    """``a`` (a dtype in WIDE) rounded once to bfloat16. CuPy converts through float32,
    rounding twice (2**24 + 2**16 + 1 became 2**24), and so did the CPU's
    int32 cast on the H200's NumPy 2.5.2 with its ml_dtypes (NumPy 2.4 rounds once): here float32 is rounded to odd
    instead (an inexact float32 with an even last bit moves one step towards the exact
    value), which float32's 16 spare bits then round correctly to bfloat16."""
    x = a.astype(xp.float64)         # exact but for int64 beyond 2**53
    f = x.astype(xp.float32)
    u = f.view(xp.uint32)
    inexact = (f.astype(xp.float64) != x) & ~xp.isnan(x)
    towards = xp.where(xp.abs(f.astype(xp.float64)) < xp.abs(x), 1, -1).astype(xp.int64)
    fix = inexact & ((u & 1) == 0)
    u = xp.where(fix, (u.astype(xp.int64) + towards).astype(xp.uint32), u)
    return u.view(xp.float32).astype(bf16)
