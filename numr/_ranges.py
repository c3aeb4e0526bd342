"""Bounds of GPU integer arrays known on the host, so that indexing with them reads
nothing back.

Indexing checks every integer index array against its axis (an IndexError, the same on
every device). On a GPU the check reads the array's min and max back: a sync point, which
drains the device and stalls a loop of ``x[idx]`` (lavapipe: ~400 us a call against ~20
without it). Where numr made the index array and knows bounds of its values on the host
(index data uploaded from the host, argsort, argmax, argmin, nonzero, searchsorted,
arange, unique's indices, the random generator's integers and permutations, and
slices ``idx[i:j]`` of those) it notes them here, and the check takes them instead; bounds that do not fit the
axis still go to the exact check.

A note holds while nothing has written the array's buffer since: setitem and the
in-place operators through any view, or a DLPack export (after which another library may
write it) count against the buffer its views share (the backend's ``buffer`` op: a
WebGPU Storage, a CuPy Memory). Host memory has no such buffer (NumPy arrays sharing
memory with numr's can be written unseen): the CPU keeps no notes, and needs none (its
check costs no sync).
"""

from __future__ import annotations

import itertools
import weakref
from typing import Any

import numpy as np

_counter = itertools.count(1)
# id(Array) -> (weakref, lo, hi, id(buffer), the buffer's write count): the buffer lives
# while the array does, so its id stays its own while the note can be valid
_notes: dict[int, tuple] = {}
# id(buffer) -> [its write count, the notes on it]: only noted buffers are watched, so a
# program's writes elsewhere leave nothing here
_watched: dict[int, list] = {}
KEPT = 4096                     # notes kept before they start over (a cache, not a record)
HOST_MAX = 1 << 20              # host data noted up to this size (its min and max cost ~1 ms)


def note(x: Any, lo: int, hi: int) -> Any:
    """Note that every value of the fresh array ``x`` lies in [lo, hi] (where its device
    has buffers to watch); returns x."""
    b = x._device.ops.buffer(x._data)
    if b is not None:
        _add(x, id(b), lo, hi)
    return x


def note_host(x: Any, h: Any) -> Any:
    """:func:`note` of ``x``, just made from the host integer array ``h`` (a NumPy array,
    which a device array with a buffer copied)."""
    if type(h) is np.ndarray and h.dtype.kind in "iu" and 0 < h.size <= HOST_MAX:
        b = x._device.ops.buffer(x._data)
        if b is not None:
            _add(x, id(b), int(h.min()), int(h.max()))
    return x


def _add(x: Any, bid: int, lo: int, hi: int) -> None:
    if len(_notes) >= KEPT:
        _notes.clear()
        _watched.clear()
    key = id(x)
    old = _notes.get(key)
    if old is not None:
        _forget(key, old[0])
    w = _watched.get(bid)
    if w is None:
        w = _watched[bid] = [0, 0]
    w[1] += 1
    _notes[key] = (weakref.ref(x, lambda r, key=key: _forget(key, r)), lo, hi, bid, w[0])


def _forget(key: int, ref: Any) -> None:
    e = _notes.get(key)
    if e is not None and e[0] is ref:
        _notes.pop(key, None)
        w = _watched.get(e[3])
        if w is not None:
            w[1] -= 1
            if w[1] <= 0:
                _watched.pop(e[3], None)


def inherit(view: Any, x: Any) -> None:
    """``view`` holds some of ``x``'s values (a slice): it keeps what is known of x."""
    r = known(x)
    if r is not None:
        note(view, *r)


def known(x: Any) -> tuple[int, int] | None:
    """(lo, hi) noted for ``x`` and still valid, else None."""
    e = _notes.get(id(x))
    if e is None or e[0]() is not x:
        return None
    w = _watched.get(e[3])
    if w is None or w[0] != e[4]:
        return None
    return e[1], e[2]


def wrote(x: Any) -> None:
    """Array ``x`` is written in place, or exported (another library may write it): the
    notes on its buffer go. (An array without a buffer shares none with a noted one.)"""
    if _notes:
        b = x._device.ops.buffer(x._data)
        if b is not None:
            w = _watched.get(id(b))
            if w is not None:
                w[0] = next(_counter)
