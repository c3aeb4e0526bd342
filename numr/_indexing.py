"""Indexing: __getitem__/__setitem__ key validation, take, take_along_axis."""

from __future__ import annotations

from typing import Any

from ._array import Array

__all__: list[str] = []


def getitem(x: Array, key: Any) -> Array:
    return Array._new(x._device.ops.getitem(x._data, key), x._dtype, x._device)


def setitem(x: Array, key: Any, value: Any) -> None:
    if type(value) is Array:
        value = value._data
    x._device.ops.setitem(x._data, key, value)
