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

A note holds while nothing has written the array's buffer in place since (setitem and
the in-place operators, through any view: each write counts against the buffer, the
WebGPU Storage or CuPy Memory its views share), and while no GPU array has been handed
to another library through DLPack (which may write it behind numr's back: every note
goes then, as at a write whose buffer is not known). The CPU is left out: its check
costs no sync, and NumPy arrays sharing memory with numr's can be written unseen.
"""

from __future__ import annotations

import itertools
import weakref
from typing import Any

import numpy as np

_counter = itertools.count(1)
_epoch = 0                      # bumped by a write whose buffer is not known: every note goes
# id(Array) -> (weakref, lo, hi, _epoch, id(buffer), the buffer's write count): the buffer
# lives while the array does, so its id stays its own while the note can be valid
_notes: dict[int, tuple] = {}
# id(buffer) -> [its write count, the notes on it]: only noted buffers are watched, so a
# program's writes elsewhere leave nothing here
_watched: dict[int, list] = {}
KEPT = 4096                     # notes kept before they start over (a cache, not a record)
HOST_MAX = 1 << 20              # host data noted up to this size (its min and max cost ~1 ms)


def _buffer(data: Any) -> Any:
    """The object owning the memory of a GPU array ``data`` and shared by all its views:
    a WebGPU array's Storage (a pending result's computed now: its Storage comes then), a
    CuPy array's Memory; None where unknown."""
    st = getattr(data, "_storage", None)
    if st is not None:
        return st
    if hasattr(type(data), "storage"):
        return data.storage
    return getattr(getattr(data, "data", None), "mem", None)


def note(x: Any, lo: int, hi: int) -> Any:
    """Note that every value of the fresh GPU array ``x`` lies in [lo, hi]; returns x."""
    if x._device.kind == "cpu":
        return x
    b = _buffer(x._data)
    if b is None:
        return x
    if len(_notes) >= KEPT:
        _notes.clear()
        _watched.clear()
    key, bid = id(x), id(b)
    old = _notes.get(key)
    if old is not None:
        _forget(key, old[0])
    w = _watched.get(bid)
    if w is None:
        w = _watched[bid] = [0, 0]
    w[1] += 1
    _notes[key] = (weakref.ref(x, lambda r, key=key: _forget(key, r)), lo, hi, _epoch, bid,
                   w[0])
    return x


def note_host(x: Any, h: Any) -> Any:
    """:func:`note` of ``x``, just made on a GPU from the host integer array ``h`` (a
    NumPy array, which the device's array copied)."""
    if (x._device.kind != "cpu" and type(h) is np.ndarray and h.dtype.kind in "iu"
            and 0 < h.size <= HOST_MAX):
        note(x, int(h.min()), int(h.max()))
    return x


def _forget(key: int, ref: Any) -> None:
    e = _notes.get(key)
    if e is not None and e[0] is ref:
        _notes.pop(key, None)
        w = _watched.get(e[4])
        if w is not None:
            w[1] -= 1
            if w[1] <= 0:
                _watched.pop(e[4], None)


def inherit(view: Any, x: Any) -> None:
    """``view`` holds some of ``x``'s values (a slice): it keeps what is known of x."""
    r = known(x)
    if r is not None:
        note(view, *r)


def known(x: Any) -> tuple[int, int] | None:
    """(lo, hi) noted for ``x`` and still valid, else None."""
    e = _notes.get(id(x))
    if e is None or e[3] != _epoch or e[0]() is not x:
        return None
    w = _watched.get(e[4])
    if w is None or w[0] != e[5]:
        return None
    return e[1], e[2]


def wrote(x: Any = None) -> None:
    """Array ``x`` is written in place: the notes on its buffer go (every note where its
    buffer is not known, or for ``x`` None: handed to another library). A CPU array
    shares no memory with a GPU array: nothing goes."""
    global _epoch
    if x is not None:
        if x._device.kind == "cpu" or not _notes:
            return
        b = _buffer(x._data)
        if b is not None:
            w = _watched.get(id(b))
            if w is not None:
                w[0] = next(_counter)
            return
    _epoch = next(_counter)
