"""The native array of the WebGPU backend: a pooled GPU buffer plus shape, strides (in
elements), offset (in elements) and dtype.

Views share the buffer's :class:`~.runtime.Storage`, so slicing, transposes,
broadcasting, expand_dims, squeeze, flips and reshapes of contiguous data copy nothing;
the buffer returns to the pool when the last array using it is collected.
"""

from __future__ import annotations

import functools
import math
from typing import Any

from ... import _dtypes as dt
from .pieces import MAX_ELEMENTS
from .runtime import Runtime, Storage

_new = object.__new__


@functools.lru_cache(maxsize=4096)  # every new array asks; shapes repeat
def c_strides(shape: tuple) -> tuple:
    strides = []
    s = 1
    for n in reversed(shape):
        strides.append(s)
        s *= n
    return tuple(reversed(strides))


class GPUArray:
    """A strided view of a GPU buffer. ``strides`` and ``offset`` count elements."""

    # ``readonly``: a view that must not be written (broadcast_to's, whose elements
    # alias each other, and every view of one), as NumPy marks its own.
    # ``_storage``: unset while the array is a pending elementwise result (fusion.py);
    # read it through ``storage``, which records the pending group first.
    __slots__ = ("_storage", "rt", "shape", "strides", "offset", "dtype", "size", "readonly",
                 "__weakref__")

    def __init__(self, storage: Storage, rt: Runtime, shape: tuple, strides: tuple,
                 offset: int, dtype: dt.DType, size: int | None = None):
        self._storage = storage
        self.rt = rt
        self.shape = shape
        self.strides = strides
        self.offset = offset
        self.dtype = dtype
        # ``size`` where the caller knows it (map.launch's cached plans)
        self.size = math.prod(shape) if size is None else size
        self.readonly = False

    # Note: a property, not a __getattr__ hook for the unset slot: a class with
    # __getattr__ loses CPython 3.11's specialised attribute loads, which made every
    # read of shape, strides, offset ... of every GPUArray 16 ns slower (about 0.2 us of
    # a small elementwise op). Hot paths that have drained the pending group read
    # ``_storage`` itself (see map.launch).
    @property
    def storage(self) -> Storage:
        """The array's Storage; a pending elementwise result (fusion.py) gets it now,
        its group recorded."""
        try:
            return self._storage
        except AttributeError:
            self.rt.materialise(self)
            return self._storage

    @storage.setter
    def storage(self, storage: Storage) -> None:
        self._storage = storage

    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def contiguous(self) -> bool:
        """C-contiguous (dimensions of length 1 may have any stride)."""
        if self.strides is c_strides(self.shape):
            return True  # made with the cached strides (most arrays): no loop (0.2 us, not 0.8)
        s = 1
        for n, st in zip(reversed(self.shape), reversed(self.strides)):
            if n != 1 and st != s:
                return False
            s *= n
        return True

    def __copy__(self) -> "GPUArray":
        # Copies share the buffer: duplicating GPU handles member by member is never safe
        # (numr.Array.__deepcopy__ makes real copies of the data).
        return self

    def __deepcopy__(self, memo) -> "GPUArray":
        return self

    def view(self, shape: tuple, strides: tuple, offset: int,
             size: int | None = None) -> "GPUArray":
        """A view of the same storage (``size``: its element count, where the caller
        knows it)."""
        v = _new(GPUArray)  # GPUArray(storage, ...), no __init__ frame (every slice)
        try:
            v._storage = self._storage
        except AttributeError:  # pending (fusion.py): computed now
            v._storage = self.storage
        v.rt = self.rt
        v.shape = shape
        v.strides = strides
        v.offset = offset
        v.dtype = self.dtype
        v.size = math.prod(shape) if size is None else size
        v.readonly = self.readonly
        return v

    def __repr__(self) -> str:
        return (f"GPUArray(shape={self.shape}, strides={self.strides}, "
                f"offset={self.offset}, dtype={self.dtype})")


def new(rt: Runtime, shape: tuple, dtype: dt.DType) -> GPUArray:
    """A fresh contiguous array (contents undefined)."""
    n = math.prod(shape)
    if n > MAX_ELEMENTS:
        raise MemoryError(f"webgpu:{rt.index}: cannot allocate an array of {n} elements "
                          f"({n * dtype.itemsize} bytes); numr's WebGPU kernels index at "
                          f"most {MAX_ELEMENTS}")
    return GPUArray(rt.alloc(n * dtype.itemsize), rt, shape, c_strides(shape), 0, dtype, n)


# -- views -----------------------------------------------------------------------------

def permute(a: GPUArray, axes: tuple) -> GPUArray:
    return a.view(tuple(a.shape[i] for i in axes), tuple(a.strides[i] for i in axes), a.offset)


def broadcast(a: GPUArray, shape: tuple) -> GPUArray:
    """``a`` viewed in ``shape`` (numr has checked that it broadcasts): stride 0 where a
    dimension is repeated."""
    lead = len(shape) - a.ndim
    strides = [0] * lead
    for i, (n, st) in enumerate(zip(a.shape, a.strides)):
        strides.append(st if n == shape[lead + i] else 0)
    return a.view(tuple(shape), tuple(strides), a.offset)


def expand(a: GPUArray, axes: tuple) -> GPUArray:
    shape, strides = list(a.shape), list(a.strides)
    for ax in sorted(axes):
        shape.insert(ax, 1)
        strides.insert(ax, 0)
    return a.view(tuple(shape), tuple(strides), a.offset)


def squeeze(a: GPUArray, axes: tuple) -> GPUArray:
    keep = [i for i in range(a.ndim) if i not in axes]
    return a.view(tuple(a.shape[i] for i in keep), tuple(a.strides[i] for i in keep), a.offset)


def flip(a: GPUArray, axes: tuple) -> GPUArray:
    offset = a.offset
    strides = list(a.strides)
    for ax in axes:
        if a.shape[ax] > 0:
            offset += (a.shape[ax] - 1) * strides[ax]
        strides[ax] = -strides[ax]
    return a.view(a.shape, tuple(strides), offset)


def reshape_view(a: GPUArray, shape: tuple) -> GPUArray | None:
    """A view of ``a`` in ``shape``, or None when its layout does not allow one.

    Contiguous data always reshapes as a view; otherwise each group of old dimensions
    that merges into new ones must itself be evenly strided (NumPy's rule).
    """
    if a.contiguous:
        return a.view(tuple(shape), c_strides(tuple(shape)), a.offset)
    old = [(n, s) for n, s in zip(a.shape, a.strides) if n != 1]
    new_strides: list[int] = []
    i = 0
    for n in shape:
        if n == 1:
            new_strides.append(0)
            continue
        # take old dims until their product reaches n, checking they chain
        prod, group = 1, []
        while prod < n and i < len(old):
            group.append(old[i])
            prod *= old[i][0]
            i += 1
        if prod != n:
            # n splits an old dimension: only possible when n divides it
            if len(group) == 1 and group[0][0] % n == 0:
                return None  # not worth the bookkeeping; a copy is made
            return None
        for (n1, s1), (n2, s2) in zip(group, group[1:]):
            if s1 != n2 * s2:
                return None
        new_strides.append(group[-1][1])
    if i != len(old):
        return None
    return a.view(tuple(shape), tuple(new_strides), a.offset)


def basic_index(a: GPUArray, key: tuple) -> GPUArray:
    """``a[key]`` for a key of ints, slices, None and at most one Ellipsis, as a view."""
    if Ellipsis in key:  # (ints, slices and None never equal it)
        i = next(j for j, k in enumerate(key) if k is Ellipsis)
        used = sum(1 for k in key if k is not None and k is not Ellipsis)
        key = key[:i] + (slice(None),) * (a.ndim - used) + key[i + 1:]
    shape, strides = [], []
    offset = a.offset
    dim = 0
    for k in key:
        if k is None:
            shape.append(1)
            strides.append(0)
            continue
        n, st = a.shape[dim], a.strides[dim]
        if isinstance(k, slice):
            start, stop, step = k.indices(n)
            length = len(range(start, stop, step))
            if length:
                offset += start * st
            shape.append(length)
            strides.append(st * step)
        else:
            k = int(k)
            if not -n <= k < n:
                raise IndexError(f"getitem: index {k} is out of bounds for axis {dim} "
                                 f"with size {n}")
            offset += (k % n) * st
        dim += 1
    shape += a.shape[dim:]
    strides += a.strides[dim:]
    return a.view(tuple(shape), tuple(strides), offset)


def read_only(a: GPUArray) -> GPUArray:
    """``a`` marked read-only (a view of its own, so the input stays writable)."""
    v = a.view(a.shape, a.strides, a.offset)
    v.readonly = True
    return v
