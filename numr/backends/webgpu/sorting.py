"""WebGPU ops: sort, argsort, searchsorted, unique_* and isin.

All of them rest on one stable sort of order keys (kernels/sort.py): a bitonic network
of (order key, index) pairs, or for one-word keys on rows longer than RADIX_MIN the LSD
radix sort of kernels/radix.py, whose first pass reads the elements and whose last
writes what the op needs: sort's values (keys alone, no indices), argsort's indices, or
the same pairs the bitonic network leaves (P = n, unpadded) for unique_* (which marks
where sorted keys change and scans those marks; unique_values and unique_counts sort the
values alone) and isin (which binary-searches the sorted x2). Semantics follow the NumPy
adapter (numr/backends/ndarray/{sorting,searching,sets}.py): stable sorts, NaN last
ascending and first descending, equal elements in their original order either way; -0.0
equals 0.0; unique keeps every NaN apart; index results have the device's default index
dtype.
"""

from __future__ import annotations

from functools import partial
from typing import Any, Callable, Literal, Sequence, overload

import numpy as np

from ... import _dtypes as dt
from . import array as A
from .array import GPUArray, new
from .creation import fill
from .kernels import map as M
from .kernels import radix as R
from .kernels import sort as K
from .kernels.types import index_dtype
from .manipulation import flat
from .pieces import MAX_ELEMENTS
from .runtime import Storage
from .transfers import copy


# Rows longer than one bitonic block (which sorts in a single workgroup-memory kernel)
# with one-word keys (every dtype of at most 32 bits) take the radix sort: beyond a block
# the bitonic network adds a global pass per stage pair (~120 passes at 16M), the radix
# sort stays at 3 kernels and a scan per key byte. 64-bit and complex keys stay bitonic.
RADIX_MIN = K.BLOCK

# a Python scalar operand of searchsorted and isin
_Scalar = bool | int | float | complex


def use_radix(d: dt.DType, n: int) -> bool:
    """Whether rows of ``n`` elements of dtype ``d`` take the radix sort."""
    return K.key_words(d) == 1 and n > RADIX_MIN


def run(rt: Any, name: tuple[Any, ...], source: Callable[[], str],
        arrays: Sequence[GPUArray | Storage], params: Sequence[int], threads: int) -> None:
    """Record one kernel over ``threads`` invocations; ``arrays`` are GPUArrays or
    Storages, the last one written."""
    blocks = [a.storage.block if type(a) is GPUArray else a.block for a in arrays]
    rt.dispatch(("sort",) + name, source, blocks,
                [int(v) & 0xFFFFFFFF for v in params], max(1, -(-threads // K.WG)))


def dense(a: GPUArray) -> GPUArray:
    """``a`` if C-contiguous (any offset), else a contiguous copy: the kernels here
    address elements as offset + linear index."""
    return a if a.contiguous else M.contiguous(a.rt, a)


# -- the sort every op here uses ---------------------------------------------------

def sorted_pairs(src: GPUArray, rows: int, n: int,
                 descending: bool) -> tuple[Storage, int, int]:
    """The (key, index) pairs of each of ``rows`` rows of ``n`` elements of the dense
    ``src``, sorted (stable; see kernels/sort.py): (pairs Storage, P, words per pair)."""
    rt, d = src.rt, src.dtype
    S = K.key_words(d) + 1
    if use_radix(d, n):
        return radix_pairs(src, rows, n, descending)
    P = 1 << (n - 1).bit_length() if n > 1 else 1
    total = rows * P
    if total * S > MAX_ELEMENTS:  # the kernels index the pairs' u32 words
        raise MemoryError(f"sort: {rows} rows of {n} elements of {d} need {total * S} "
                          f"words of (key, index) pairs on webgpu:{rt.index}; at most "
                          f"{MAX_ELEMENTS}")
    pairs = rt.alloc(total * S * 4)
    run(rt, ("pairs", d.name), lambda: K.pairs_source(d), [src, pairs],
        [total, n, P, src.offset, 0xFFFFFFFF if descending else 0], total)
    if P == 1:
        return pairs, P, S
    local = lambda: K.local_sort_source(S)  # noqa: E731
    groups = -(-total // K.BLOCK)
    # Stages with partners closer than a block: in workgroup memory, all at once.
    run(rt, ("local", S), local, [pairs], [total, P, 2, min(P, K.BLOCK)], groups * K.WG)
    k = 2 * K.BLOCK
    while k <= P:
        j = k // 2
        while j >= K.BLOCK:
            run(rt, ("step", S), lambda: K.global_step_source(S), [pairs],
                [total // 2, P, k, j], total // 2)
            j //= 2
        run(rt, ("local", S), local, [pairs], [total, P, k, k], groups * K.WG)
        k *= 2
    return pairs, P, S


def radix_pairs(src: GPUArray, rows: int, n: int,
                descending: bool) -> tuple[Storage, int, int]:
    """sorted_pairs by the stable LSD radix sort of kernels/radix.py (one-word keys):
    unpadded rows, so P = n."""
    return radix(src, rows, n, descending, "pairs"), n, 2


@overload
def radix(src: GPUArray, rows: int, n: int, descending: bool, mode: Literal["pairs"],
          out: None = None) -> Storage: ...
@overload
def radix(src: GPUArray, rows: int, n: int, descending: bool,
          mode: Literal["indices", "values"], out: GPUArray | None = None) -> GPUArray: ...


def radix(src: GPUArray, rows: int, n: int, descending: bool, mode: str,
          out: GPUArray | None = None) -> GPUArray | Storage:
    """The radix sort of kernels/radix.py of ``rows`` rows of ``n`` elements of the
    dense ``src`` (one-word keys), one 8-bit pass per byte of the dtype, the first
    reading ``src`` itself. ``mode`` (see radix.py): "pairs" returns the sorted pairs'
    Storage; "indices" writes the sorted indices into ``out`` (an index array of rows *
    n elements); "values" returns the sorted values (a new (rows * n,) array)."""
    rt, d = src.rt, src.dtype
    total = rows * n
    T = -(-n // R.TILE)
    groups = rows * T
    words = 2 if R.payload(mode) else 1
    if max(words * total, groups * R.RADIX) > MAX_ELEMENTS:
        raise MemoryError(f"sort: {rows} rows of {n} elements of {d} need {words * total} "
                          f"words of sort keys on webgpu:{rt.index}; at most {MAX_ELEMENTS}")
    spec = R.specials(d, mode)
    cn = groups * R.RADIX
    L = cn + (2 * groups + 1 if spec else 0)      # the digits' counts, the specials'
    nb = -(-L // R.SCAN_BLOCK)
    counts = rt.alloc(4 * (L + scan_room(nb)))
    iw = out.dtype.itemsize // 4 if mode == "indices" else 1
    unpack = mode == "values" and R.packed(d)
    if mode == "values" and not unpack:
        out = new(rt, (total,), d)
    passes = d.itemsize
    bufs = [rt.alloc(4 * words * total) for _ in range(min(2, passes - 1))]
    if (mode == "pairs" or unpack) and passes > 2:
        final = bufs[(passes - 1) % 2]   # the one the pass before the last did not write
    elif mode == "pairs" or unpack:
        final = rt.alloc(4 * words * total)
    else:
        final = out.storage
    mask = 0xFFFFFFFF if descending else 0
    sg = R.subgroup_size(rt)
    cur = src.storage
    specials = None
    for k in range(passes):
        first, last = k == 0, k == passes - 1
        nxt = final if last else bufs[k % 2]
        params = [groups, n, T, 8 * k, L, src.offset, mask, cn]
        sig = (d.name, mode, first)
        # partial, not a lambda: the runtime keeps the source function for variants
        # of the kernel (arrays in pieces), which it may build in a later sort
        run(rt, ("radix-hist",) + sig, partial(R.histogram_source, d, mode, first),
            [cur, counts], params, groups * R.WG)
        rt.dispatch(("sort", "radix-scan"), R.scan_source, [counts.block], [L, 0, 0], nb)
        exclusive_scan(rt, counts, L, nb)
        if first and spec:
            specials = rt.alloc(4 * total)
            run(rt, ("radix-specials", d.name), lambda: R.specials_source(d),
                [src, counts, specials], params, groups * R.WG)
        reads = [cur, counts] + ([specials] if last and spec else [])
        if sg:
            run(rt, ("radix-scatter-sg", last, iw, sg) + sig,
                partial(R.scatter_sg_source, d, mode, first, last, iw, sg), reads + [nxt],
                params, groups * R.WG)
        else:
            run(rt, ("radix-scatter", last, iw) + sig,
                partial(R.scatter_source, d, mode, first, last, iw), reads + [nxt], params,
                groups * R.WG)
        cur = nxt
    if mode == "pairs":
        return final
    if unpack:
        out = new(rt, (total,), d)
        per = 4 // d.itemsize
        run(rt, ("radix-unpack", d.name), lambda: R.unpack_source(d), [final, out],
            [-(-total // per), total], -(-total // per))
    return out


def scan_room(n: int) -> int:
    """Words from its offset that exclusive_scan of ``n`` words uses (the words, then
    the blocks' totals and theirs)."""
    nb = -(-n // R.SCAN_BLOCK)
    return n + (1 if nb == 1 else scan_room(nb))


def exclusive_scan(rt: Any, data: Storage, off: int, n: int, inclusive: bool = False) -> None:
    """Exclusive (or inclusive) prefix sum of the ``n`` u32 words from word ``off`` of
    the Storage ``data``, in place; the words after them (scan_room) hold the blocks'
    totals."""
    nb = -(-n // R.SCAN_BLOCK)
    rt.dispatch(("sort", "radix-scan"), R.scan_source, [data.block], [n, off, inclusive],
                nb)
    if nb > 1:
        exclusive_scan(rt, data, off + n, nb)
        rt.dispatch(("sort", "radix-add"), R.add_source, [data.block], [n, off], -(-n // K.WG))


def gather(src: GPUArray, count: int, reads: dict[str, Storage], pos_fn: str,
           params: list[int]) -> GPUArray:
    """A 1-D array of ``count`` elements of src's dtype: element k is src's element
    ``pos(k)``, bit-exact (packed dtypes a word per invocation). ``reads``: binding
    name -> buffer that ``pos_fn`` reads; params after [invocations, count]."""
    rt, d = src.rt, src.dtype
    out = new(rt, (count,), d)
    if count:
        per = max(1, 4 // d.itemsize)
        threads = -(-count // per)
        names = list(reads)
        run(rt, ("gather", d.name, pos_fn), lambda: K.gather_source(d, names, pos_fn),
            [src, *reads.values(), out], [threads, count, *params], threads)
    return out


def moved_rows(x: GPUArray, axis: int) -> tuple[GPUArray, int, int, tuple[int, ...]]:
    """x with ``axis`` moved last, dense: (array, rows, n, axis order)."""
    order = tuple(k for k in range(x.ndim) if k != axis) + (axis,)
    m = dense(A.permute(x, order))
    n = x.shape[axis]
    return m, (x.size // n if n else 0), n, order


def put_back(r: GPUArray, order: tuple[int, ...]) -> GPUArray:
    """A result computed with the sorted axis last, in the input's axis order."""
    if order == tuple(range(len(order))):
        return r
    inverse = tuple(order.index(k) for k in range(len(order)))
    return copy(A.permute(r, inverse))


# -- sort, argsort ---------------------------------------------------------------------

def argsort(x: GPUArray, *, axis: int, descending: bool, stable: bool) -> GPUArray:
    # Note: always stable (the standard allows it for stable=False).
    rt, index = x.rt, index_dtype(x.rt)
    iw = index.itemsize // 4  # words per index element (int32: 1, int64: 2)
    m, rows, n, order = moved_rows(x, axis)
    out = new(rt, m.shape, index)
    if out.size and use_radix(m.dtype, n):
        radix(m, rows, n, descending, "indices", out)
    elif out.size:
        pairs, P, S = sorted_pairs(m, rows, n, descending)
        run(rt, ("argsort", S, iw), lambda: K.argsort_source(S, iw), [pairs, out],
            [rows * n, n, P], rows * n)
    return put_back(out, order)


def sort(x: GPUArray, *, axis: int, descending: bool, stable: bool) -> GPUArray:
    m, rows, n, order = moved_rows(x, axis)
    if not m.size:
        return new(x.rt, x.shape, x.dtype)
    if use_radix(m.dtype, n):
        out = radix(m, rows, n, descending, "values")
        return put_back(A.reshape_view(out, m.shape), order)
    pairs, P, S = sorted_pairs(m, rows, n, descending)
    pos = (f"fn pos(k: u32) -> u32 {{ let n = p(3u); let r = k / n;\n"
           f"  return p(2u) + r * n + pairs[(r * p(4u) + k % n) * {S}u + {S - 1}u]; }}")
    out = gather(m, m.size, {"pairs": pairs}, pos, [m.offset, n, P])
    return put_back(A.reshape_view(out, m.shape), order)


# -- searchsorted ----------------------------------------------------------------------

def as_array(rt: Any, v: _Scalar, d: dt.DType) -> GPUArray:
    """A Python scalar operand (numr checked it fits ``d``) as a 1-element array:
    an upload, never a read back."""
    r = new(rt, (1,), d)
    rt.upload(r.storage, np.asarray([v], dtype=d.name).tobytes())
    return r


def searchsorted(x1: GPUArray, x2: GPUArray | _Scalar, *, side: str,
                 sorter: GPUArray | None) -> GPUArray:
    rt, d, index = x1.rt, x1.dtype, index_dtype(x1.rt)
    iw = index.itemsize // 4
    shape = x2.shape if type(x2) is GPUArray else ()
    v = dense(x2) if type(x2) is GPUArray else as_array(rt, x2, d)
    a = dense(x1)
    out = new(rt, shape, index)
    if not out.size:
        return out
    arrays, sw, soff = [a, v], 0, 0
    if sorter is not None:
        s = dense(sorter)
        arrays.append(s)
        sw, soff = s.dtype.itemsize // 4, s.offset
    arrays.append(out)
    run(rt, ("searchsorted", d.name, sw, iw), lambda: K.searchsorted_source(d, sw, iw),
        arrays, [out.size, a.size, a.offset, v.offset, side == "right", soff], out.size)
    return out


# -- unique ----------------------------------------------------------------------------

def unique(x: GPUArray, values: bool = True, first: bool = False, inverse: bool = False,
           counts: bool = False) -> tuple[GPUArray, ...]:
    """The requested results of unique_all, in its order."""
    rt, d, index = x.rt, x.dtype, index_dtype(x.rt)
    iw = index.itemsize // 4
    src = dense(flat(x)) if x.ndim != 1 else dense(x)
    N = src.size
    if N == 0:
        empty = new(rt, (0,), index)
        res = [new(rt, (0,), d)] if values else []
        res += [empty] if first else []
        res += [new(rt, x.shape, index)] if inverse else []
        res += [empty] if counts else []
        return tuple(res)
    # unique_values and unique_counts need no indices: the radix sort of the values
    # alone (half the bytes a pass), the groups found on the sorted values
    alone = not first and not inverse and use_radix(d, N)
    grp = rt.alloc(4 * scan_room(N))
    if alone:
        sv = radix(src, 1, N, False, "values")
        run(rt, ("flags-sorted", d.name), lambda: K.unique_flags_sorted_source(d), [sv, grp],
            [N], N)
    else:
        pairs, P, S = sorted_pairs(src, 1, N, False)
        run(rt, ("flags", d.name), lambda: K.unique_flags_source(d), [pairs, grp], [N], N)
    exclusive_scan(rt, grp, 0, N, inclusive=True)
    # The number of unique values decides the results' shapes: one 4-byte read back
    # (the one host read of unique_*, allowed for data-dependent shapes).
    U = int(np.frombuffer(rt.download(grp, (N - 1) * 4, 4), dtype=np.uint32)[0])
    starts = rt.alloc((U + 1) * 4)
    run(rt, ("starts",), K.unique_starts_source, [grp, starts], [N], N)
    res = []
    if values and alone:
        res.append(gather(sv, U, {"starts": starts},
                          "fn pos(k: u32) -> u32 { return starts[k]; }", []))
    elif values:
        pos = f"fn pos(k: u32) -> u32 {{ return p(2u) + pairs[starts[k] * {S}u + {S - 1}u]; }}"
        res.append(gather(src, U, {"pairs": pairs, "starts": starts}, pos,
                          [src.offset]))
    if first:
        out = new(rt, (U,), index)
        run(rt, ("first", S, iw), lambda: K.unique_first_source(S, iw), [pairs, starts, out],
            [U], U)
        res.append(out)
    if inverse:
        out = new(rt, x.shape, index)
        run(rt, ("inverse", S, iw), lambda: K.unique_inverse_source(S, iw), [pairs, grp, out],
            [N], N)
        res.append(out)
    if counts:
        out = new(rt, (U,), index)
        run(rt, ("counts", iw), lambda: K.unique_counts_source(iw), [starts, out], [U], U)
        res.append(out)
    return tuple(res)


# -- isin ------------------------------------------------------------------------------

def isin(x1: GPUArray | _Scalar, x2: GPUArray | _Scalar, invert: bool) -> GPUArray:
    d = x1.dtype if type(x1) is GPUArray else x2.dtype
    rt = x1.rt if type(x1) is GPUArray else x2.rt
    shape = x1.shape if type(x1) is GPUArray else ()
    a = dense(x1) if type(x1) is GPUArray else as_array(rt, x1, d)
    b = x2 if type(x2) is GPUArray else as_array(rt, x2, d)
    out = new(rt, shape, dt.bool)
    if not out.size:
        return out
    m = b.size
    if m == 0:
        return fill(rt, shape, bool(invert), dt.bool)
    b = dense(flat(b)) if b.ndim != 1 else dense(b)
    pairs, _, _ = sorted_pairs(b, 1, m, False)
    words = -(-out.size // 4)
    run(rt, ("isin", d.name), lambda: K.isin_source(d), [a, pairs, out],
        [words, out.size, a.offset, m, invert], words)
    return out


def unique_op(x: GPUArray, first: bool = False, inverse: bool = False,
              counts: bool = False) -> tuple[GPUArray, ...]:
    return unique(x, True, first, inverse, counts)

# unique is the primitive of the unique_* ops (derived: numr/backends/_derived.py).
OPS: dict[str, Callable[..., Any]] = {
    "sort": sort, "argsort": argsort, "searchsorted": searchsorted, "unique": unique_op,
    "isin": isin}
