"""WebGPU ops: the manipulation functions. Views where strides allow (permute_dims,
broadcasting, expand_dims, squeeze, flip, reshape of contiguous data); copies through
strided writes of map kernels otherwise (concat, stack, roll, repeat, tile). Every
dtype, complex included, moves the same way. moveaxis and unstack are derived
(numr/backends/_derived.py)."""

from __future__ import annotations

import builtins
from typing import Any, Callable, Literal, Sequence, overload

import numpy as np

from . import array as A
from .array import GPUArray, new
from .elementwise import broadcast_shape
from .kernels import map as M
from .transfers import copy, to_host
from .writes import write


def _axes(axis: int | Sequence[int]) -> tuple[int, ...]:
    return (axis,) if isinstance(axis, int) else tuple(axis)


def permute_dims(x: GPUArray, axes: Sequence[int]) -> GPUArray:
    return A.permute(x, tuple(axes))


def broadcast_to(x: GPUArray, shape: Sequence[int]) -> GPUArray:
    return A.read_only(A.broadcast(x, tuple(shape)))


def broadcast_arrays(*arrays: GPUArray) -> list[GPUArray]:
    shape = broadcast_shape("broadcast_arrays", *[x.shape for x in arrays])
    out = [A.broadcast(x, shape) for x in arrays]
    # read-only where elements repeat (as on the CPU); others stay writable views
    return [A.read_only(v) if any(st == 0 and n > 1 for n, st in zip(v.shape, v.strides))
            else v for v in out]


def expand_dims(x: GPUArray, axis: int | Sequence[int]) -> GPUArray:
    return A.expand(x, _axes(axis))


def squeeze(x: GPUArray, axis: int | Sequence[int]) -> GPUArray:
    return A.squeeze(x, _axes(axis))


def flip(x: GPUArray, *, axis: int | Sequence[int] | None = None) -> GPUArray:
    return A.flip(x, tuple(range(x.ndim)) if axis is None else _axes(axis))


@overload
def reshape(x: GPUArray, shape: Sequence[int], *,
            copy: Literal[True] | None = None) -> GPUArray: ...
@overload
def reshape(x: GPUArray, shape: Sequence[int], *, copy: bool | None) -> GPUArray | None: ...


def reshape(x: GPUArray, shape: Sequence[int], *,
            copy: bool | None = None) -> GPUArray | None:
    # None: copy=False and no view has the shape (the caller raises)
    shape = tuple(shape)
    if copy:
        return A.reshape_view(M.launch(x.rt, "copy", "a", ((x, x.dtype),), x.dtype, x.shape),
                              shape)
    v = A.reshape_view(x, shape)
    if v is None and copy is None:
        return A.reshape_view(M.contiguous(x.rt, x), shape)
    return v


def flat(x: GPUArray) -> GPUArray:
    return reshape(x, (x.size,))


def concat(arrays: Sequence[GPUArray], *, axis: int | None) -> GPUArray:
    arrays = list(arrays)
    if axis is None:
        arrays, axis = [flat(x) for x in arrays], 0
    shape = list(arrays[0].shape)
    shape[axis] = builtins.sum(x.shape[axis] for x in arrays)
    r = new(arrays[0].rt, tuple(shape), arrays[0].dtype)
    head = (slice(None),) * axis
    start = 0
    for x in arrays:
        n = x.shape[axis]
        write("concat", A.basic_index(r, head + (slice(start, start + n),)), x)
        start += n
    return r


def stack(arrays: Sequence[GPUArray], *, axis: int) -> GPUArray:
    arrays = list(arrays)
    shape = arrays[0].shape
    r = new(arrays[0].rt, shape[:axis] + (len(arrays),) + shape[axis:], arrays[0].dtype)
    head = (slice(None),) * axis
    for i, x in enumerate(arrays):
        write("stack", A.basic_index(r, head + (i,)), x)
    return r


def _roll1(x: GPUArray, shift: int, axis: int) -> GPUArray:
    n = x.shape[axis]
    s = shift % n if n else 0
    if s == 0:
        return x
    r = new(x.rt, x.shape, x.dtype)
    head = (slice(None),) * axis
    write("roll", A.basic_index(r, head + (slice(s, None),)),
          A.basic_index(x, head + (slice(0, n - s),)))
    write("roll", A.basic_index(r, head + (slice(0, s),)),
          A.basic_index(x, head + (slice(n - s, None),)))
    return r


def roll(x: GPUArray, shift: int | tuple[int, ...], *,
         axis: tuple[int, ...] | None) -> GPUArray:
    if axis is None:
        r = _roll1(flat(x), builtins.sum(shift) if isinstance(shift, tuple) else shift, 0)
        r = reshape(r, x.shape)
    else:
        total: dict[int, int] = {}
        for sh, ax in zip(shift, axis):  # a repeated axis adds its shifts up
            total[ax] = total.get(ax, 0) + sh
        r = x
        for ax, sh in total.items():
            r = _roll1(r, sh, ax)
    return copy(r) if r.storage is x.storage else r  # roll never returns a view


def _interleave(x: GPUArray, axis: int, count: int) -> GPUArray:
    """``x`` with each index along ``axis`` repeated ``count`` times: a broadcast view
    with a stride-0 axis after ``axis``, copied, then merged with it."""
    v = x.view(x.shape[:axis + 1] + (count,) + x.shape[axis + 1:],
               x.strides[:axis + 1] + (0,) + x.strides[axis + 1:], x.offset)
    shape = x.shape[:axis] + (x.shape[axis] * count,) + x.shape[axis + 1:]
    return A.reshape_view(copy(v), shape)


def _repeat_counts(x: GPUArray, counts: np.ndarray, axis: int) -> GPUArray:
    """``x`` with index j along ``axis`` repeated counts[j] times: runs of equal counts
    are one copy each."""
    n = x.shape[axis]
    shape = list(x.shape)
    shape[axis] = int(counts.sum())
    r = new(x.rt, tuple(shape), x.dtype)
    head = (slice(None),) * axis
    start = j = 0
    while j < n:
        k = j
        while k + 1 < n and counts[k + 1] == counts[j]:
            k += 1
        c = int(counts[j])
        if c:
            part = _interleave(A.basic_index(x, head + (slice(j, k + 1),)), axis, c)
            m = (k + 1 - j) * c
            write("repeat", A.basic_index(r, head + (slice(start, start + m),)), part)
            start += m
        j = k + 1
    return r


def repeat(x: GPUArray, repeats: int | GPUArray, *, axis: int | None) -> GPUArray:
    if axis is None:
        x, axis = flat(x), 0
    if type(repeats) is GPUArray:
        # The result's shape depends on the counts: they come to the host (a sync point).
        counts = to_host(repeats).reshape(-1).astype(np.int64)
        if (counts < 0).any():
            raise ValueError(f"repeat: repeats must be non-negative, got {counts.min()}")
        if counts.size != 1:
            return _repeat_counts(x, counts, axis)
        repeats = int(counts[0])
    return _interleave(x, axis, repeats)


def tile(x: GPUArray, repetitions: Sequence[int]) -> GPUArray:
    reps = tuple(repetitions)
    nd = builtins.max(len(reps), x.ndim)
    reps = (1,) * (nd - len(reps)) + reps
    x = x.view((1,) * (nd - x.ndim) + x.shape, (0,) * (nd - x.ndim) + x.strides, x.offset)
    # (r0, n0, r1, n1, ...) with stride 0 on each r: one copy, then merged pairwise.
    shape = tuple(v for r, n in zip(reps, x.shape) for v in (r, n))
    strides = tuple(v for st in x.strides for v in (0, st))
    c = copy(x.view(shape, strides, x.offset))
    return A.reshape_view(c, tuple(r * n for r, n in zip(reps, x.shape)))


def scalars(*xs: GPUArray) -> list:
    """The Python scalars of 0-d arrays of one dtype, read back together (one wait)."""
    return to_host(stack(xs, axis=0)).tolist()


OPS: dict[str, Callable[..., Any]] = {
    "permute_dims": permute_dims, "broadcast_to": broadcast_to,
    "broadcast_arrays": broadcast_arrays, "expand_dims": expand_dims, "squeeze": squeeze,
    "flip": flip, "reshape": reshape,
    "concat": concat, "stack": stack, "roll": roll, "repeat": repeat, "tile": tile,
    "scalars": scalars}
