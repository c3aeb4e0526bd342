"""The ops of one WebGPU device (see the contract in numr/backends/__init__.py).

What exists so far: transfers, astype, basic indexing (views), every elementwise op of
numr._elementwise's tables for bool/integer/float dtypes, round, clip, where, the
creation functions (with meshgrid, tril, triu), sum/prod/min/max/mean/any/all over any
axes, the view-making manipulation functions, the copying ones (concat, stack, roll,
repeat, tile) through strided-write map kernels, setitem/assign with basic keys, sync and
DLPack (host copies only). Everything else is absent from the namespace returned here (so
tests/test_contract.py names it), never computed on the host in secret.
"""

from __future__ import annotations

import builtins
import functools
import importlib
import math
from types import SimpleNamespace
from typing import Any

import numpy as np

from ... import _dtypes as dt
from ..._elementwise import BINARY, UNARY
from . import array as A
from . import dlpack as DL
from .._dlpack import BfloatImport
from .array import GPUArray, new
from .kernels import expressions as ex
from .kernels import map as M
from .kernels import reduce as R
from .kernels.types import KIND, convert, ctype
from .runtime import runtime


def _gap(name: str, d: dt.DType, device: Any, why: str) -> NotImplementedError:
    return NotImplementedError(f"{name}: dtype {d} on {device} is not implemented yet "
                               f"({why}); see README.md, 'WebGPU status'")


def _broadcast_shape(name: str, *shapes: tuple) -> tuple:
    nd = max(len(s) for s in shapes)
    out = []
    for k in range(nd):
        n = 1
        for s in shapes:
            m = s[k - nd + len(s)] if k - nd + len(s) >= 0 else 1
            if m != 1:
                if n != 1 and n != m:
                    raise ValueError(f"{name}: shapes {shapes} do not broadcast")
                n = m
        out.append(n)
    return tuple(out)


def build(device: Any, held: tuple) -> SimpleNamespace:
    rt = runtime(device.index)
    launch = M.launch
    ops: dict[str, Any] = {}

    @functools.cache
    def expr(name: str, d: dt.DType) -> str:
        if d.kind == "complex":
            raise _gap(name, d, device, "complex arithmetic has no WGSL kernels yet")
        if name == "nextafter" and d.name in ex.NEXTAFTER16:
            return ex.NEXTAFTER16[d.name]
        e = ex.expression(name, KIND[d.kind], ctype(d))
        if e is None:
            raise TypeError(f"{name}: dtype {d} is not supported on {device}")
        return e

    result_rule = {"same": lambda d: d, "bool": lambda d: dt.bool,
                   "real": lambda d: dt.REAL_OF.get(d, d)}

    # -- elementwise ---------------------------------------------------------------------

    # Per op: dtype -> (expression, result dtype), one dict look-up on the hot path of
    # every elementwise op (expr raises for an unsupported dtype, which is not cached).
    def unary(name: str, rule: str):
        res = result_rule[rule]
        table: dict = {}

        def op(a):
            d = a.dtype
            k = table.get(d)
            if k is None:
                k = table[d] = (expr(name, d), res(d))
            return launch(rt, name, k[0], ((a, d),), k[1], a.shape)
        op.__name__ = name
        return op

    def binary(name: str, rule: str):
        res = result_rule[rule]
        table: dict = {}

        def op(a, b):
            if type(a) is GPUArray:
                d = a.dtype
                shape = a.shape if type(b) is not GPUArray or b.shape == a.shape \
                    else _broadcast_shape(name, a.shape, b.shape)
            else:
                d = b.dtype
                shape = b.shape
            k = table.get(d)
            if k is None:
                k = table[d] = (expr(name, d), res(d))
            return launch(rt, name, k[0], ((a, d), (b, d)), k[1], shape)
        op.__name__ = name
        return op

    for name, (_, rule) in UNARY.items():
        ops[name] = unary(name, rule)
    for name, (_, rule) in BINARY.items():
        ops[name] = binary(name, rule)
    _pow = ops["pow"]

    def pow(a, b):
        d = a.dtype if type(a) is GPUArray else b.dtype
        if d.kind == "int":
            # The standard leaves it undefined; numr raises on every device, as NumPy.
            # An array exponent costs one word read back (an error check, as on CUDA).
            negative = type(b) is int and b < 0
            if type(b) is GPUArray and b.size:
                below = launch(rt, "less", expr("less", d), ((b, d), (0, d)), dt.bool, b.shape)
                negative = bool(scalar(ops["any"](below, None, False)))
            if negative:
                raise ValueError("pow: integers to negative integer powers are not allowed")
        return _pow(a, b)

    def round(a, decimals=0):
        d = a.dtype
        if decimals == 0 or d.kind != "float":
            if decimals < 0 and d.kind in ("int", "uint"):
                return _round_int(a, -decimals)
            return ops["trunc"](a) if d.kind != "float" else \
                launch(rt, "round", expr("round", d), ((a, d),), d, a.shape)
        # NumPy's way: scale, round half to even, unscale.
        s = 10.0 ** abs(decimals)
        e = "round(a * b) / b" if decimals > 0 else "round(a / b) * b"
        return launch(rt, "round" + ("+" if decimals > 0 else "-"), e, ((a, d), (s, d)),
                      d, a.shape)

    def _round_int(a, k: int):
        """Integers to a multiple of 10**k, half to even (NumPy's rule), in the compute
        type: floor division q, remainder r = a - q * b, then r > b - r (which cannot
        overflow where 2 * r could) or a tie with q odd rounds up."""
        d = a.dtype
        m = 10 ** k
        if m > np.iinfo(d.name).max:
            return full(a.shape, 0, d)
        t = ctype(d)
        q = f"(a / b - select({t}(0), {t}(1), a - (a / b) * b < {t}(0)))"  # no signed %
        r = f"(a - {q} * b)"
        up = f"({r} > b - {r} || ({r} == b - {r} && ({q} & {t}(1)) != {t}(0)))"
        return launch(rt, "round_int", f"({q} + select({t}(0), {t}(1), {up})) * b",
                      ((a, d), (m, d)), d, a.shape)

    def clip(a, lo, hi):
        r = a
        if lo is not None:
            r = ops["maximum"](r, lo)
        if hi is not None:
            r = ops["minimum"](r, hi)
        if r is a:
            r = M.launch(rt, "copy", "a", ((a, a.dtype),), a.dtype, a.shape)
        return r

    def where(cond, x1, x2):
        d = x1.dtype if type(x1) is GPUArray else x2.dtype
        if d.kind == "complex":
            raise _gap("where", d, device, "complex kernels")
        shapes = [o.shape for o in (cond, x1, x2) if type(o) is GPUArray]
        shape = _broadcast_shape("where", *shapes)
        return launch(rt, "where", "select(c, b, a)", ((cond, dt.bool), (x1, d), (x2, d)),
                      d, shape)

    ops.update(pow=pow, round=round, clip=clip, where=where)

    # -- core --------------------------------------------------------------------------

    def from_host(h: np.ndarray) -> GPUArray:
        d = dt.BY_NAME[h.dtype.name]
        if d not in held:
            raise TypeError(f"from_host: dtype {d} is not held by {device}; "
                            f"info.dtypes(device='{device}') lists those that are")
        if not h.dtype.isnative:
            h = h.astype(h.dtype.newbyteorder("="))  # the device's order is the host's
        r = new(rt, tuple(h.shape), d)
        rt.upload(r.storage, h.tobytes())
        return r

    def to_host(a: GPUArray) -> np.ndarray:
        d = a.dtype
        nbytes = a.size * d.itemsize
        if not (a.contiguous and (a.offset * d.itemsize) % 4 == 0):
            a = M.contiguous(rt, a)
        start = a.offset * d.itemsize
        raw = rt.download(a.storage, start, -(-nbytes // 4) * 4)
        return np.frombuffer(raw, dtype=d.name, count=a.size).reshape(a.shape).copy()

    def astype(a: GPUArray, dtype: dt.DType, copy: bool = True) -> GPUArray:
        src = a.dtype
        if src is dtype and not copy:
            return a
        if src.kind == "complex" or dtype.kind == "complex":
            if src is dtype:
                return M.launch(rt, "copy", "a", ((a, src),), src, a.shape)
            raise _gap("astype", dtype if dtype.kind == "complex" else src, device,
                       "complex conversions")
        return launch(rt, "astype", convert(src, dtype, "a"), ((a, src),), dtype, a.shape)

    def getitem(a: GPUArray, key: Any) -> GPUArray:
        key = key if isinstance(key, tuple) else (key,)
        for k in key:
            if type(k) is GPUArray:
                raise _gap("getitem", a.dtype, device, "integer/boolean array indices")
        return A.basic_index(a, key)

    def getslice(a: GPUArray, key: slice) -> GPUArray:
        return A.basic_index(a, (key,))

    def scalar(a: GPUArray):
        return to_host(a).item()

    def finfo(dtype: dt.DType) -> dict:
        f = np.finfo(dtype.name)
        return {"bits": int(f.bits), "eps": float(f.eps), "max": float(f.max),
                "min": float(f.min), "smallest_normal": float(f.smallest_normal)}

    def iinfo(dtype: dt.DType) -> dict:
        i = np.iinfo(dtype.name)
        return {"bits": int(i.bits), "max": int(i.max), "min": int(i.min)}

    ops.update(from_host=from_host, to_host=to_host, astype=astype, getitem=getitem,
               getslice=getslice, scalar=scalar, finfo=finfo, iinfo=iinfo)

    # -- creation ----------------------------------------------------------------------

    def full(shape, fill_value, dtype):
        if dtype.kind == "complex":
            raise _gap("full", dtype, device, "complex fills")
        return launch(rt, "fill", "a", ((fill_value, dtype),), dtype, tuple(shape))

    wide = dt.float64 if dt.float64 in held else dt.float32

    def arange(start, stop, step, dtype):
        if dtype.kind == "float":
            n = builtins.max(math.ceil((stop - start) / step), 0)
            w = ctype(wide)
            # fenced: a driver contracting a + i * b into one fma (NVIDIA's does) rounds
            # differently from NumPy's start + i * step
            r = launch(rt, "arange", f"a + fence_{w}({w}(i) * b)",
                       ((start, wide), (step, wide)), wide, (n,))
            return r if dtype is wide else astype(r, dtype, False)
        n = len(range(start, stop, step))
        t = ctype(dtype)
        return launch(rt, "arange", f"a + {t}(i) * b", ((start, dtype), (step, dtype)),
                      dtype, (n,))

    def linspace(start, stop, num, dtype, endpoint):
        if dtype.kind == "complex":
            raise _gap("linspace", dtype, device, "complex ranges")
        div = (num - 1) if endpoint else num
        step = (stop - start) / div if div > 0 else 0.0
        last = num - 1 if endpoint and num > 1 else num
        w = ctype(wide)
        e = f"select(a + fence_{w}({w}(i) * b), c, i == d)"
        if dtype.kind in ("int", "uint"):
            e = f"floor({e})"  # Note: NumPy rounds integer linspace results towards -inf
        r = launch(rt, "linspace" + dtype.kind, e, ((float(start), wide), (step, wide),
                                                    (float(stop), wide), (last, dt.uint32)),
                   wide, (num,))
        return r if dtype is wide else astype(r, dtype, False)

    def eye(n_rows, n_cols, k, dtype):
        if dtype.kind == "complex":
            raise _gap("eye", dtype, device, "complex fills")
        on = "(i32(i % a) - i32(i / a) == b)"
        return launch(rt, "eye", convert(dt.bool, dtype, on),
                      ((builtins.max(n_cols, 1), dt.uint32), (k, dt.int32)), dtype, (n_rows, n_cols))

    ops.update(
        empty=lambda shape, dtype: new(rt, tuple(shape), dtype),
        zeros=lambda shape, dtype: full(shape, 0, dtype),
        ones=lambda shape, dtype: full(shape, 1, dtype),
        full=full,
        empty_like=lambda x, dtype: new(rt, x.shape, dtype),
        zeros_like=lambda x, dtype: full(x.shape, 0, dtype),
        ones_like=lambda x, dtype: full(x.shape, 1, dtype),
        full_like=lambda x, fill_value, dtype: full(x.shape, fill_value, dtype),
        arange=arange, linspace=linspace, eye=eye)

    # -- reductions ----------------------------------------------------------------------

    def _axes(a: GPUArray, axis) -> tuple:
        if axis is None:
            return tuple(range(a.ndim))
        return (axis,) if isinstance(axis, int) else tuple(axis)

    def _finish(r: GPUArray, a: GPUArray, axes: tuple, dtype: dt.DType, keepdims: bool):
        if r.dtype is not dtype:
            r = astype(r, dtype, False)
        if keepdims:
            r = A.expand(r, axes)
        return r

    def reduction(kind: str, with_dtype: bool):
        def op(a, axis, *args, keepdims=False, dtype=None):
            if with_dtype and args:
                dtype = args[0]
            dtype = dtype or a.dtype
            if dtype.kind == "complex":
                raise _gap(kind, dtype, device, "complex reductions")
            if a.dtype is not dtype:
                a = astype(a, dtype, False)
            axes = _axes(a, axis)
            return _finish(R.launch(rt, kind, a, axes), a, axes, dtype, keepdims)
        op.__name__ = kind
        return op

    _sum, _prod = reduction("sum", True), reduction("prod", True)
    _max, _min = reduction("max", False), reduction("min", False)

    def sum(a, axis, dtype, keepdims):
        return _sum(a, axis, dtype=dtype, keepdims=keepdims)

    def prod(a, axis, dtype, keepdims):
        return _prod(a, axis, dtype=dtype, keepdims=keepdims)

    def max(a, axis, keepdims):
        return _max(a, axis, keepdims=keepdims)

    def min(a, axis, keepdims):
        return _min(a, axis, keepdims=keepdims)

    def logical(kind: str):
        def op(a, axis, keepdims):
            b = a if a.dtype is dt.bool else astype(a, dt.bool, False)
            axes = _axes(b, axis)
            return _finish(R.launch(rt, kind, b, axes), b, axes, dt.bool, keepdims)
        return op

    def mean(a, axis, keepdims):
        axes = _axes(a, axis)
        count = math.prod(a.shape[k] for k in axes)
        # 16-bit floats: the float32 sum divided, then rounded once (a sum rounded to
        # the dtype first would lose digits, and overflow float16's range).
        acc = dt.float32 if a.dtype in (dt.float16, dt.bfloat16) else a.dtype
        s = sum(a, axes, acc, keepdims)
        return launch(rt, "divide", expr("divide", acc), ((s, acc), (float(count), acc)),
                      a.dtype, s.shape)

    ops.update(sum=sum, prod=prod, max=max, min=min, mean=mean,
               any=logical("max"), all=logical("min"))

    # -- manipulation (views) ------------------------------------------------------------

    def reshape(a, shape, *, copy=None):
        shape = tuple(shape)
        if copy:
            return A.reshape_view(M.launch(rt, "copy", "a", ((a, a.dtype),), a.dtype,
                                           a.shape), shape)
        v = A.reshape_view(a, shape)
        if v is None and copy is None:
            return A.reshape_view(M.contiguous(rt, a), shape)
        return v

    def broadcast_arrays(*arrays):
        shape = _broadcast_shape("broadcast_arrays", *[x.shape for x in arrays])
        out = [A.broadcast(x, shape) for x in arrays]
        # read-only where elements repeat (as on the CPU); others stay writable views
        return [A.read_only(v) if any(st == 0 and n > 1 for n, st in zip(v.shape, v.strides))
                else v for v in out]

    ops.update(
        permute_dims=lambda a, axes: A.permute(a, tuple(axes)),
        broadcast_to=lambda a, shape: A.read_only(A.broadcast(a, tuple(shape))),
        broadcast_arrays=broadcast_arrays,
        expand_dims=lambda a, axis: A.expand(a, (axis,) if isinstance(axis, int) else axis),
        squeeze=lambda a, axis: A.squeeze(a, (axis,) if isinstance(axis, int) else axis),
        flip=lambda a, *, axis=None: A.flip(
            a, tuple(range(a.ndim)) if axis is None else
            ((axis,) if isinstance(axis, int) else tuple(axis))),
        reshape=reshape)

    # -- writes ------------------------------------------------------------------------

    def _copy(a: GPUArray) -> GPUArray:
        return launch(rt, "copy", "a", ((a, a.dtype),), a.dtype, a.shape)

    def _write(name: str, target: GPUArray, value: Any) -> None:
        """``target[...] = value`` in place: ``value`` a GPUArray broadcastable to the
        view ``target`` (ValueError otherwise) or a Python scalar of its dtype."""
        d = target.dtype
        if target.readonly:
            raise ValueError(f"{name}: the array is a read-only view")
        if type(value) is GPUArray:
            if value.ndim > target.ndim or any(
                    m != 1 and m != n for m, n in zip(value.shape[::-1], target.shape[::-1])):
                raise ValueError(f"{name}: a value of shape {value.shape} does not broadcast "
                                 f"to shape {target.shape}")
            if value.dtype is not d:
                value = astype(value, d, False)
            if value.storage is target.storage:
                # Overlapping reads and writes (x[1:] = x[:-1]) need the source first,
                # and one buffer cannot be bound for reading and writing at once.
                value = _copy(value)
            value = A.broadcast(value, target.shape)
        elif d.kind == "complex":
            raise _gap(name, d, device, "complex scalar fills")
        launch(rt, "copy", "a", ((value, d),), d, target.shape, into=target)

    def setitem(a: GPUArray, key: Any, value: Any) -> None:
        key = key if isinstance(key, tuple) else (key,)
        for k in key:
            if type(k) is GPUArray:
                raise _gap("setitem", a.dtype, device, "integer/boolean array indices")
        _write("setitem", A.basic_index(a, key), value)

    def assign(dst: GPUArray, src: GPUArray) -> None:
        _write("assign", dst, src)

    def sync() -> None:
        rt.wait()

    def writable(a: GPUArray) -> bool:
        return not a.readonly

    # DLPack (numr/backends/webgpu/dlpack.py): arrays report (kDLWebGPU = 15, index) and
    # export in place on their own device, or as a host copy for dl_device=(1, 0).
    _DL_CPU = 1

    def dlpack_device(a: GPUArray) -> tuple:
        return (DL.KDL_WEBGPU, device.index)

    def dlpack(a: GPUArray, stream, max_version, dl_device, copy):
        return DL.dlpack(a, device, _copy, to_host, stream, max_version, dl_device, copy)

    def from_dlpack(obj: Any, copy=None) -> GPUArray:
        """Host (kDLCPU) producers only, through a copy: nothing else can reach a
        WebGPU buffer."""
        if copy is False:
            raise BufferError(f"from_dlpack: importing into {device} always copies, but "
                              f"copy=False")
        kind = int(obj.__dlpack_device__()[0])
        if kind != _DL_CPU:
            raise BufferError(f"from_dlpack: {device} imports only from CPU producers "
                              f"(DLPack device type 1), got device type {kind}")
        seen = BfloatImport(obj)  # NumPy refuses kDLBfloat: imported as uint16
        h = np.from_dlpack(seen)
        return from_host(h.view("bfloat16") if seen.relabelled else h)

    ops.update(setitem=setitem, assign=assign, sync=sync, writable=writable, dlpack=dlpack,
               dlpack_device=dlpack_device, from_dlpack=from_dlpack)

    # -- manipulation (copies) -----------------------------------------------------------

    def _flat(a: GPUArray) -> GPUArray:
        return reshape(a, (a.size,))

    def concat(arrays, *, axis):
        arrays = list(arrays)
        if axis is None:
            arrays, axis = [_flat(a) for a in arrays], 0
        shape = list(arrays[0].shape)
        shape[axis] = builtins.sum(a.shape[axis] for a in arrays)
        r = new(rt, tuple(shape), arrays[0].dtype)
        head = (slice(None),) * axis
        start = 0
        for a in arrays:
            n = a.shape[axis]
            _write("concat", A.basic_index(r, head + (slice(start, start + n),)), a)
            start += n
        return r

    def stack(arrays, *, axis):
        arrays = list(arrays)
        shape = arrays[0].shape
        r = new(rt, shape[:axis] + (len(arrays),) + shape[axis:], arrays[0].dtype)
        head = (slice(None),) * axis
        for i, a in enumerate(arrays):
            _write("stack", A.basic_index(r, head + (i,)), a)
        return r

    def unstack(a, *, axis):
        head = (slice(None),) * axis
        return tuple(A.basic_index(a, head + (i,)) for i in range(a.shape[axis]))

    def moveaxis(a, source, destination):
        src = (source,) if isinstance(source, int) else tuple(source)
        dst = (destination,) if isinstance(destination, int) else tuple(destination)
        order = [k for k in range(a.ndim) if k not in src]
        for d_, s_ in sorted(zip(dst, src)):
            order.insert(d_, s_)
        return A.permute(a, tuple(order))

    def _roll1(a: GPUArray, shift: int, axis: int) -> GPUArray:
        n = a.shape[axis]
        s = shift % n if n else 0
        if s == 0:
            return a
        r = new(rt, a.shape, a.dtype)
        head = (slice(None),) * axis
        _write("roll", A.basic_index(r, head + (slice(s, None),)),
               A.basic_index(a, head + (slice(0, n - s),)))
        _write("roll", A.basic_index(r, head + (slice(0, s),)),
               A.basic_index(a, head + (slice(n - s, None),)))
        return r

    def roll(a, shift, *, axis):
        if axis is None:
            r = _roll1(_flat(a), builtins.sum(shift) if isinstance(shift, tuple) else shift, 0)
            r = reshape(r, a.shape)
        else:
            total: dict[int, int] = {}
            for sh, ax in zip(shift, axis):  # a repeated axis adds its shifts up
                total[ax] = total.get(ax, 0) + sh
            r = a
            for ax, sh in total.items():
                r = _roll1(r, sh, ax)
        return _copy(r) if r.storage is a.storage else r  # roll never returns a view

    def _interleave(a: GPUArray, axis: int, count: int) -> GPUArray:
        """``a`` with each index along ``axis`` repeated ``count`` times: a broadcast view
        with a stride-0 axis after ``axis``, copied, then merged with it."""
        v = a.view(a.shape[:axis + 1] + (count,) + a.shape[axis + 1:],
                   a.strides[:axis + 1] + (0,) + a.strides[axis + 1:], a.offset)
        shape = a.shape[:axis] + (a.shape[axis] * count,) + a.shape[axis + 1:]
        return A.reshape_view(_copy(v), shape)

    def repeat(a, repeats, *, axis):
        if axis is None:
            a, axis = _flat(a), 0
        if type(repeats) is GPUArray:
            # The result's shape depends on the counts: they come to the host (a sync
            # point). Runs of equal counts are one copy each.
            counts = to_host(repeats).reshape(-1).astype(np.int64)
            if (counts < 0).any():
                raise ValueError(f"repeat: repeats must be non-negative, got {counts.min()}")
            n = a.shape[axis]
            if counts.size == 1:
                repeats = int(counts[0])
            else:
                shape = list(a.shape)
                shape[axis] = int(counts.sum())
                r = new(rt, tuple(shape), a.dtype)
                head = (slice(None),) * axis
                start = j = 0
                while j < n:
                    k = j
                    while k + 1 < n and counts[k + 1] == counts[j]:
                        k += 1
                    c = int(counts[j])
                    if c:
                        part = _interleave(A.basic_index(a, head + (slice(j, k + 1),)), axis, c)
                        m = (k + 1 - j) * c
                        _write("repeat", A.basic_index(r, head + (slice(start, start + m),)),
                               part)
                        start += m
                    j = k + 1
                return r
        return _interleave(a, axis, repeats)

    def tile(a, repetitions):
        reps = tuple(repetitions)
        nd = builtins.max(len(reps), a.ndim)
        reps = (1,) * (nd - len(reps)) + reps
        a = a.view((1,) * (nd - a.ndim) + a.shape, (0,) * (nd - a.ndim) + a.strides, a.offset)
        # (r0, n0, r1, n1, ...) with stride 0 on each r: one copy, then merged pairwise.
        shape = tuple(v for r, n in zip(reps, a.shape) for v in (r, n))
        strides = tuple(v for st in a.strides for v in (0, st))
        c = _copy(a.view(shape, strides, a.offset))
        return A.reshape_view(c, tuple(r * n for r, n in zip(reps, a.shape)))

    def triangle(name: str, cmp: str):
        def op(x, k):
            d = x.dtype
            rows, cols = x.shape[-2:]
            # i is the linear index of the (contiguous) result: col = i % b, row = (i/b) % c
            e = f"select({ctype(d)}(0), a, i32(i % b) - i32((i / b) % c) {cmp} d)"
            return launch(rt, name, e, ((x, d), (builtins.max(cols, 1), dt.uint32),
                                        (builtins.max(rows, 1), dt.uint32), (k, dt.int32)),
                          d, x.shape)
        op.__name__ = name
        return op

    def meshgrid(*arrays, indexing):
        n = len(arrays)
        shape = [a.shape[0] for a in arrays]
        if indexing == "xy" and n >= 2:
            shape[0], shape[1] = shape[1], shape[0]
        out = []
        for j, a in enumerate(arrays):
            pos = j
            if indexing == "xy" and n >= 2 and j < 2:
                pos = 1 - j
            strides = [0] * n
            strides[pos] = a.strides[0]
            out.append(_copy(a.view(tuple(shape), tuple(strides), a.offset)))
        return tuple(out)

    ops.update(concat=concat, stack=stack, unstack=unstack, moveaxis=moveaxis, roll=roll,
               repeat=repeat, tile=tile, tril=triangle("tril", "<="),
               triu=triangle("triu", ">="), meshgrid=meshgrid)

    # -- the other groups, one module each ---------------------------------------------
    # Each ``register(ctx)`` adds its ops to ``ctx.ops`` (and may replace one above,
    # e.g. getitem gaining array indices); later modules see the ops of earlier ones.
    ctx = SimpleNamespace(
        rt=rt, device=device, held=held, ops=ops, expr=expr, launch=launch,
        gap=lambda name, d, why: _gap(name, d, device, why),
        broadcast_shape=_broadcast_shape, copy=_copy, write=_write, flat=_flat,
        axes=_axes, finish=_finish, wide=wide)
    for group in GROUPS:
        importlib.import_module("." + group, __package__).register(ctx)
    return SimpleNamespace(**ops)


GROUPS = ("complex", "indexing", "statistics", "sorting", "linalg", "decompositions", "fft")
"""The modules beside this one that add op groups, in registration order."""
