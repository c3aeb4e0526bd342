"""take and take_along_axis for NumPy-like modules (indices already bounds-checked)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable

if TYPE_CHECKING:
    from . import Context


def build(c: Context) -> dict[str, Callable[..., Any]]:
    xp = c.xp

    def take(a, indices, axis):
        # the method: xp.take's Python wrapper cost NumPy a microsecond a call
        return a.take(indices, axis=axis)

    def take_along_axis(a, indices, axis):
        return xp.take_along_axis(a, indices, axis=axis)

    return {"take": take, "take_along_axis": take_along_axis}
