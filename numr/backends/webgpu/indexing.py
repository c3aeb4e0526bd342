"""WebGPU ops: advanced indexing.

getitem/setitem with integer and boolean array keys, take, take_along_axis, nonzero.
Basic keys (ints, slices, None) go to the view-making ops of writes.py.

How a key becomes kernel work (NumPy's rules, numr's normalised key):

* a boolean array of k dimensions becomes k integer index arrays, its nonzero (stream
  compaction on the GPU; the count is the one small host read, as the result's shape
  depends on it);
* a Python bool (or 0-d bool array) adds an axis of length 1 and an index of shape (1,)
  (True) or (0,) (False), as NumPy treats it;
* ints, slices and None are applied first as a view ``V``; integer index arrays stand on
  whole axes of ``V``;
* the index arrays broadcast to one shape ``B``; the result's axes are ``B`` in place of
  the indexed axes when the advanced items (arrays, bools and ints) are adjacent in the
  key, else ``B`` first (NumPy's placement rule).

Every element address is then ``V.offset + sum(coord * stride) + sum(index_j * stride_j)``,
which the gather/scatter template (kernels/gather.py) evaluates. A scatter whose key
holds integer arrays can repeat an element: the last write in C order wins, as in NumPy's
sequential assignment, through a per-element "winner" pass (no torn 64-bit values, no
mixed bits in packed words).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ... import _dtypes as dt
from . import array as A
from .array import GPUArray, c_strides, new
from .elementwise import astype, broadcast_shape, where
from .kernels import gather as G
from .kernels import map as M
from .kernels.types import index_dtype
from .runtime import SLOT_WORDS
from .transfers import copy, scalar
from . import writes


class _Plan:
    """A key split into the basic part (a view) and the advanced part (index arrays)."""

    __slots__ = ("basic", "entries", "bshape", "outdims", "shape", "duplicates")

    def layout(self, a: GPUArray) -> tuple[int, tuple, list]:
        """For array ``a``: (base offset, strides over the result's axes, per index array
        (array, strides over B, multiplier))."""
        v = a if self.basic is _ALL else A.basic_index(a, self.basic)
        strides = tuple(v.strides[k] if kind == "r" else 0 for kind, k in self.outdims)
        index = [(arr, _bstrides(arr, self.bshape), v.strides[axis])
                 for axis, arr in self.entries if arr is not None]
        return v.offset, strides, index

    def on_out(self, bstrides: tuple) -> tuple:
        """Strides over B spread onto the result's axes (0 on the kept axes)."""
        return tuple(bstrides[k] if kind == "b" else 0 for kind, k in self.outdims)


def _bstrides(arr: GPUArray, bshape: tuple) -> tuple:
    """``arr``'s strides when broadcast to ``bshape`` (0 on repeated axes)."""
    lead = len(bshape) - arr.ndim
    return (0,) * lead + tuple(st if n == bshape[lead + i] and n != 1 else 0
                               for i, (n, st) in enumerate(zip(arr.shape, arr.strides)))


def _is_advanced_key(key: Any) -> bool:
    if type(key) is tuple:
        return any(type(k) is GPUArray or type(k) is bool for k in key)
    return type(key) is GPUArray or type(key) is bool


def _max_index(rt) -> int:
    """The most index arrays one dispatch binds (room left for src/dst, value, winner)."""
    limit = rt.limits.get("max-storage-buffers-per-shader-stage", 8)
    return max(1, min(8, limit - 4))


def _read_count(rt, storage: Any, element: int) -> int:
    # The one host read of a compaction: the number of non-zero elements decides
    # the result's shape (4 bytes).
    return int.from_bytes(rt.download(storage, 4 * element, 4), "little")


def nonzero_rows(x: GPUArray) -> GPUArray:
    """(x.ndim, count) coordinates of x's non-zero elements, C order."""
    rt = x.rt
    return G.nonzero(rt, x, index_dtype(rt), lambda s, e: _read_count(rt, s, e))


def nonzero(x: GPUArray) -> tuple:
    rows = nonzero_rows(x)
    count = rows.shape[1]
    return tuple(rows.view((count,), (1,), rows.offset + k * count) for k in range(x.ndim))


# -- planning ------------------------------------------------------------------------

def plan(a: GPUArray, key: tuple, func: str) -> _Plan:
    if len(key) == 1 and type(key[0]) is GPUArray and key[0].dtype is not dt.bool:
        return _rows(a, key[0])
    basic: list = []
    entries: list = []      # (axis of V, index array or None, its shape)
    advanced: list = []     # per key item: does it count as advanced for placement
    insert = None           # axes of V before the first advanced item
    duplicates = False      # integer arrays may name one element twice
    vaxis = 0
    for k in key:
        t = type(k)
        if k is None or t is slice:
            basic.append(k)
            vaxis += 1
            advanced.append(False)
            continue
        if insert is None:
            insert = vaxis
        advanced.append(True)
        if t is bool or (t is GPUArray and k.dtype is dt.bool and k.ndim == 0):
            # A 0-d mask: a new axis of length 1, selected once (True) or never.
            # A 0-d array's value decides the result's shape: a host read.
            selected = k if t is bool else bool(scalar(k))
            basic.append(None)
            entries.append((vaxis, None, (1,) if selected else (0,)))
            vaxis += 1
        elif t is GPUArray and k.dtype is dt.bool:
            rows = nonzero_rows(k)
            count = rows.shape[1]
            for r in range(k.ndim):
                row = rows.view((count,), (1,), rows.offset + r * count)
                basic.append(slice(None))
                entries.append((vaxis, row, (count,)))
                vaxis += 1
        elif t is GPUArray:
            basic.append(slice(None))
            entries.append((vaxis, k, k.shape))
            duplicates = True
            vaxis += 1
        else:
            basic.append(k)  # an int: no axis of V, but advanced for placement
    p = _Plan()
    p.basic = tuple(basic)
    p.entries = [(axis, arr) for axis, arr, _ in entries]
    p.duplicates = duplicates
    shapes = [s for _, _, s in entries]
    try:
        p.bshape = broadcast_shape(func, *shapes) if shapes else ()
    except ValueError:
        raise IndexError(f"{func}: shape mismatch: indexing arrays could not be "
                         f"broadcast together with shapes "
                         f"{' '.join(str(tuple(s)) for s in shapes)}") from None
    on = [i for i, f in enumerate(advanced) if f]
    adjacent = on[-1] - on[0] + 1 == len(on)
    vshape = A.basic_index(a, p.basic).shape
    taken = {axis for axis, _ in p.entries}
    rest = [k for k in range(len(vshape)) if k not in taken]
    bdims = [("b", j) for j in range(len(p.bshape))]
    if adjacent:
        p.outdims = ([("r", k) for k in rest if k < insert] + bdims
                     + [("r", k) for k in rest if k >= insert])
    else:
        p.outdims = bdims + [("r", k) for k in rest]
    p.shape = tuple(vshape[k] if kind == "r" else p.bshape[k] for kind, k in p.outdims)
    return p


_ALL = (slice(None),)


def _rows(a: GPUArray, k: GPUArray) -> _Plan:
    """plan's result for a key of one integer array (rows by index, x[idx]), the
    commonest advanced key, without its general steps."""
    p = _Plan()
    p.basic = _ALL
    p.entries = [(0, k)]
    p.duplicates = True
    p.bshape = k.shape
    nb = len(k.shape)
    p.outdims = [("b", j) for j in range(nb)] + [("r", r) for r in range(1, len(a.shape))]
    p.shape = k.shape + a.shape[1:]
    return p


def fold(rt, index: list, bshape: tuple, mults: int) -> list:
    """Too many index arrays for one dispatch: each of the ``mults`` multiplier sets
    folded into one int32 array over B (one dispatch each)."""
    folded = []
    zeros = (0,) * len(bshape)
    for which in range(mults):
        out = new(rt, bshape, dt.int32)
        parts = [G.Index(arr, st, m[which]) for arr, st, m in index]
        G.move(rt, "offsets", bshape, size=4, a_form=(0, zeros), index=parts, out=out)
        m = [0] * mults
        m[which] = 1
        folded.append((out, _bstrides(out, bshape), tuple(m)))
    return folded


def indices(rt, p: _Plan, index: list, mults: int, forms: int) -> list:
    """Index arrays as kernel operands (strides over the result's axes), folded first
    when one dispatch would bind too many buffers or need too many parameter words
    (``forms`` linear forms besides the indices)."""
    nd = len(p.shape)
    words = 1 + nd + forms * (1 + nd) + len(index) * (1 + nd + mults)
    if len(index) > _max_index(rt) or (len(index) > mults and words > SLOT_WORDS):
        index = fold(rt, index, p.bshape, mults)
    return [G.Index(arr, p.on_out(st), m[0], m[1] if mults > 1 else 0)
            for arr, st, m in index]


# -- gather --------------------------------------------------------------------------

def gather(a: GPUArray, p: _Plan) -> GPUArray:
    rt = a.rt
    out = new(rt, p.shape, a.dtype)
    base, strides, index = p.layout(a)
    index = indices(rt, p, [(arr, st, (m,)) for arr, st, m in index], 1, 1)
    G.move(rt, "gather", p.shape, src=a, size=a.dtype.itemsize, a_form=(base, strides),
           index=index, out=out)
    return out


def getitem(a: GPUArray, key: Any) -> GPUArray:
    if not _is_advanced_key(key):
        return writes.getitem(a, key)
    key = key if type(key) is tuple else (key,)
    return gather(a, plan(a, key, "getitem"))


def take(a: GPUArray, indices_: GPUArray, axis: int) -> GPUArray:
    key = (slice(None),) * axis + (indices_,)
    return gather(a, plan(a, key, "take"))


def take_along_axis(a: GPUArray, idx: GPUArray, axis: int) -> GPUArray:
    # Broadcast outside ``axis``; along it, idx's length.
    shape = tuple(n if k == axis or m == 1 else m
                  for k, (m, n) in enumerate(zip(a.shape, idx.shape)))
    rt = a.rt
    out = new(rt, shape, a.dtype)
    strides = tuple(0 if k == axis or m != n or m == 1 else st
                    for k, (m, n, st) in enumerate(zip(a.shape, shape, a.strides)))
    istrides = tuple(st if m == n and m != 1 else 0
                     for m, n, st in zip(idx.shape, shape, idx.strides))
    G.move(rt, "gather", shape, src=a, size=a.dtype.itemsize, a_form=(a.offset, strides),
           index=[G.Index(idx, istrides, a.strides[axis])], out=out)
    return out


# -- scatter -------------------------------------------------------------------------

def _value(a: GPUArray, value: Any, shape: tuple) -> tuple[Any, tuple]:
    """The value as a kernel operand: (array, strides over ``shape``) or (raw bytes,
    ())."""
    if type(value) is not GPUArray:
        return np.asarray(value, dtype=a.dtype.name).tobytes(), ()
    vshape, vstrides = value.shape, value.strides
    while len(vshape) > len(shape) and vshape[0] == 1:  # NumPy drops leading 1s
        vshape, vstrides = vshape[1:], vstrides[1:]
    if len(vshape) > len(shape) or any(
            m != 1 and m != n for m, n in zip(vshape[::-1], shape[::-1])):
        raise ValueError(f"setitem: a value of shape {value.shape} does not broadcast "
                         f"to shape {shape}")
    if value.dtype is not a.dtype:
        value = astype(value, a.dtype, False)
    elif value.storage is a.storage:
        # One buffer cannot be bound for reading and writing in one dispatch.
        value = copy(value)
    lead = len(shape) - len(vshape)
    strides = (0,) * lead + tuple(st if m == n and m != 1 else 0 for m, n, st in zip(
        vshape, shape[lead:], value.strides[len(value.shape) - len(vshape):]))
    return value, strides


def _masked_fill(a: GPUArray, key: tuple, value: Any) -> bool:
    """``a[mask] = v`` for a mask of a's shape and one value (a scalar, or an array of
    one element), as ``where(mask, v, a)`` written back: no count of the mask to read, so
    no wait for the GPU (SciPy's logsumexp and zscore do this through
    ``xpx.at(x)[mask].set(v)``). Whether it applied."""
    if len(key) != 1 or not a.shape:
        return False
    mask = key[0]
    if type(mask) is not GPUArray or mask.dtype is not dt.bool or mask.shape != a.shape:
        return False
    if type(value) is GPUArray:
        if value.size != 1 or len(value.shape) > 1:
            return False
        if value.dtype is not a.dtype:
            value = astype(value, a.dtype, False)
    writes.write("setitem", a, where(mask, value, a))
    return True


def setitem(a: GPUArray, key: Any, value: Any) -> None:
    if type(key) is slice and a.shape:  # x[a:b] = v (numr's fast path), as writes.setitem
        return writes.write("setitem", writes.getslice(a, key), value)
    if type(key) is slice or not _is_advanced_key(key):
        return writes.setitem(a, key, value)
    if a.readonly:
        raise ValueError("setitem: the array is a read-only view")
    key = key if type(key) is tuple else (key,)
    if _masked_fill(a, key, value):
        return
    # Integer index arrays living in a's buffer would be read while a is written
    # (one buffer cannot be bound both ways in a dispatch): copy them. Masks are
    # only read by their own compaction.
    key = tuple(copy(k) if type(k) is GPUArray and k.storage is a.storage
                and k.dtype is not dt.bool else k for k in key)
    rt = a.rt
    p = plan(a, key, "setitem")
    v, vstrides = _value(a, value, p.shape)
    if not math.prod(p.shape):
        return
    base, strides, index = p.layout(a)
    winner = None
    fform = None
    if p.duplicates:
        # Flat indices of a's elements (C order), so repeated targets meet in one
        # word of the winner buffer.
        fbase, fstrides, findex = p.layout(a.view(a.shape, c_strides(a.shape), 0))
        fform = (fbase, fstrides)
        index = [(arr, st, (m, fm)) for (arr, st, m), (_, _, fm) in zip(index, findex)]
        ops_index = indices(rt, p, index, 2, 3)
        winner = M.launch(rt, "fill", "a", ((0, dt.uint32),), dt.uint32, (a.size,))
        G.move(rt, "winner", p.shape, size=a.dtype.itemsize, f_form=fform,
               index=ops_index, winner=winner)
    else:
        ops_index = indices(rt, p, [(arr, st, (m,)) for arr, st, m in index], 1, 2)
    G.move(rt, "scatter", p.shape, dst=a, size=a.dtype.itemsize, a_form=(base, strides),
           f_form=fform, value=v, value_strides=vstrides, index=ops_index, winner=winner)

OPS = {"getitem": getitem, "setitem": setitem, "take": take,
       "take_along_axis": take_along_axis, "nonzero": nonzero}
