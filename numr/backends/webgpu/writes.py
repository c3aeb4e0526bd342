"""WebGPU ops: basic indexing (views: getitem, getslice) and writes in place (setitem,
assign), with the one strided write that the copying manipulation functions use too.
Array keys are the indexing group's (indexing.py wraps getitem and setitem)."""

from __future__ import annotations

from typing import Any

from . import array as A
from . import complex as C
from .array import GPUArray
from .elementwise import astype
from .kernels.map import launch
from .transfers import copy


def write(name: str, target: GPUArray, value: Any) -> None:
    """``target[...] = value`` in place: ``value`` a GPUArray broadcastable to the view
    ``target`` (ValueError otherwise) or a Python scalar of its dtype."""
    d = target.dtype
    if target.readonly:
        raise ValueError(f"{name}: the array is a read-only view")
    if type(value) is GPUArray:
        vs = value.shape
        if vs and vs != target.shape and (len(vs) > len(target.shape) or any(
                m != 1 and m != n for m, n in zip(value.shape[::-1], target.shape[::-1]))):
            raise ValueError(f"{name}: a value of shape {value.shape} does not broadcast "
                             f"to shape {target.shape}")
        if value.dtype is not d:
            value = astype(value, d, False)
        try:  # the slots (see GPUArray.storage) ...
            same = value._storage is target._storage
        except AttributeError:  # ... unset while pending: computed now
            same = value.storage is target.storage
        if same:
            # Overlapping reads and writes (x[1:] = x[:-1]) need the source first,
            # and one buffer cannot be bound for reading and writing at once.
            value = copy(value)
        # (no broadcast view: map.launch binds an operand of fewer or length-1
        # dimensions with stride 0 there itself, the same kernel)
    elif d.kind == "complex":  # a complex scalar: two real parameters (complex.py)
        operands, w = C.operand(value, d, "value")
        C.launch(target.rt, "fill", w, operands, d, target.shape, C.rtype(d),
                 into=target)
        return
    launch(target.rt, "copy", "a", ((value, d),), d, target.shape, target)  # into=target


def getitem(x: GPUArray, key: Any) -> GPUArray:
    return A.basic_index(x, key if isinstance(key, tuple) else (key,))


def getslice(x: GPUArray, key: slice) -> GPUArray:
    """``x[key]`` for one slice (numr's fast path: x.ndim >= 1), basic_index's loop
    written out for it."""
    shape = x.shape
    n, st = shape[0], x.strides[0]
    start, stop, step = key.indices(n)
    length = len(range(start, stop, step))
    offset = x.offset + start * st if length else x.offset
    if len(shape) == 1:
        return x.view((length,), (st * step,), offset, length)
    return x.view((length, *shape[1:]), (st * step, *x.strides[1:]), offset,
                  length * (x.size // n) if length else 0)


def setitem(x: GPUArray, key: Any, value: Any) -> None:
    if type(key) is slice and x.shape:  # x[a:b] = v (numr's fast path): getslice's view
        write("setitem", getslice(x, key), value)
    else:
        write("setitem", A.basic_index(x, key if isinstance(key, tuple) else (key,)), value)


def assign(dst: GPUArray, src: GPUArray) -> None:
    write("assign", dst, src)


OPS = {"getitem": getitem, "getslice": getslice, "setitem": setitem, "assign": assign}
