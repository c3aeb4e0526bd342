"""Manipulation ops for NumPy-like modules.

numr has validated every argument: axes are non-negative (tuples where the standard
allows several), shapes are concrete (no -1), joined arrays share one dtype, counts are
non-negative. Results are views where the module makes views.

``reshape(a, shape, copy)`` returns None when ``copy`` is False and ``a`` cannot be
viewed in ``shape``; numr raises the error.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable

if TYPE_CHECKING:
    from . import Context


def build(c: Context) -> dict[str, Callable[..., Any]]:
    xp = c.xp
    on_host = xp.__name__ == "numpy"

    def broadcast_to(a, shape):
        return xp.broadcast_to(a, shape)

    def broadcast_arrays(*arrays):
        out = list(xp.broadcast_arrays(*arrays))
        if on_host:
            for r in out:
                if any(st == 0 and n > 1 for n, st in zip(r.shape, r.strides)):
                    # elements repeat: read-only, as broadcast_to's (NumPy only warns)
                    r.flags.writeable = False
        return out

    def concat(arrays, *, axis):
        if axis is None:
            return xp.concatenate([a.reshape(-1) for a in arrays])
        return xp.concatenate(arrays, axis=axis)

    def stack(arrays, *, axis):
        return xp.stack(arrays, axis=axis)

    def expand_dims(a, axis):
        return xp.expand_dims(a, axis)

    # methods, not the module functions' wrappers
    def squeeze(a, axis):
        return a.squeeze(axis=axis)

    def permute_dims(a, axes):
        return a.transpose(axes)

    def reshape(a, shape, *, copy):
        if copy:
            return a.copy().reshape(shape)  # a contiguous copy always reshapes as a view
        if copy is None:
            return a.reshape(shape)
        if on_host:
            try:
                return xp.reshape(a, shape, copy=False)
            except ValueError:
                return None
        view = a.view()
        try:
            view.shape = shape  # CuPy: assigning .shape never copies; it fails instead
        except (AttributeError, ValueError):
            return None
        return view

    _rev, _all = slice(None, None, -1), slice(None)

    def flip(a, *, axis):
        # the reversed view by slicing (numr normalised the axes): xp.flip normalises
        # them again (8 float32: 5.5 us a call against 1.5)
        return a[tuple(_rev if i in axis else _all for i in range(a.ndim))]

    def roll(a, shift, *, axis):
        return xp.roll(a, shift, axis=axis)

    def repeat(a, repeats, *, axis):
        if not on_host and isinstance(repeats, c.ndarray):
            # CuPy takes counts as a Python list: the result's shape needs them anyway.
            repeats = repeats.reshape(-1).tolist()
            if len(repeats) == 1:
                repeats = repeats[0]
        return xp.repeat(a, repeats, axis=axis)

    def tile(a, repetitions):
        return xp.tile(a, repetitions)

    return {"broadcast_to": broadcast_to, "broadcast_arrays": broadcast_arrays,
            "concat": concat, "stack": stack,
            "expand_dims": expand_dims, "squeeze": squeeze, "permute_dims": permute_dims,
            "reshape": reshape, "flip": flip, "roll": roll,
            "repeat": repeat, "tile": tile}
