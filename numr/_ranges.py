"""Bounds of GPU integer arrays known on the host, so that indexing with them reads
nothing back.

Indexing checks every integer index array against its axis (an IndexError, the same on
every device). On a GPU the check reads the array's min and max back: a sync point, which
drains the device and stalls a loop of ``x[idx]`` (lavapipe: ~400 us a call against ~20
without it). Where numr made the index array and knows bounds of its values on the host
(index data uploaded from the host, argsort, argmax, argmin, nonzero, searchsorted,
arange, the random generator's integers and permutations, and slices ``idx[i:j]`` of
those) it notes them here, and the check takes them instead; bounds that do not fit the
axis still go to the exact check.

A note holds while nothing has been written in place anywhere since (a global count of
in-place writes and DLPack exports, after which another library may write the memory):
coarse, but right whichever view of which array was written. The CPU is left out: its
check costs no sync, and NumPy arrays sharing memory with numr's can be written behind
numr's back.
"""

from __future__ import annotations

import itertools
import weakref
from typing import Any

import numpy as np

_counter = itertools.count(1)
_writes = 0                     # the count of in-place writes (see wrote)
_notes: dict[int, tuple] = {}   # id(Array) -> (weakref, lo, hi, _writes when noted)
KEPT = 4096                     # notes kept before they start over (a cache, not a record)
HOST_MAX = 1 << 20              # host data noted up to this size (its min and max cost ~1 ms)


def note(x: Any, lo: int, hi: int) -> Any:
    """Note that every value of the fresh GPU array ``x`` lies in [lo, hi]; returns x."""
    if x._device.kind == "cpu":
        return x
    if len(_notes) >= KEPT:
        _notes.clear()
    key = id(x)
    _notes[key] = (weakref.ref(x, lambda r, key=key: _forget(key, r)), lo, hi, _writes)
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


def inherit(view: Any, x: Any) -> None:
    """``view`` holds some of ``x``'s values (a slice): it keeps what is known of x."""
    r = known(x)
    if r is not None:
        note(view, *r)


def known(x: Any) -> tuple[int, int] | None:
    """(lo, hi) noted for ``x`` and still valid, else None."""
    e = _notes.get(id(x))
    if e is None or e[3] != _writes or e[0]() is not x:
        return None
    return e[1], e[2]


def wrote() -> None:
    """Some array was written in place (or handed to another library): every note goes."""
    global _writes
    _writes = next(_counter)
