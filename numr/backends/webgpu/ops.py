"""The ops of one WebGPU device (see the contract in numr/backends/__init__.py),
assembled from the modules that define them as module-level functions:

elementwise.py   the op tables' elementwise functions, round, clip, where, astype
creation.py      full, arange, linspace, eye, the *_like functions, tril, triu, meshgrid
transfers.py     from_host, to_host, scalar, DLPack, sync, finfo, iinfo
reductions.py    sum, prod, max, min, mean, any, all
manipulation.py  views (reshape, permute_dims, broadcasting, ...) and copies (concat, ...)
writes.py        basic getitem/setitem, assign
linalg.py        matmul and the linear algebra that is not a decomposition
decompositions.py  cholesky, LU (solve, inv, det, slogdet), qr, eigh; how they run
svd.py           svd, svdvals, pinv, matrix_rank
eig.py           eig, eigvals

Complex dtypes are a branch inside each op (complex.py: how their kernels launch).
Ops take their runtime from their arrays; those with no array operand (the PLACED
tables: creation from nothing, from_host, sync) get the device's
:class:`~.place.Place` bound first here. The groups of ``GROUPS`` still register
closures over a context (``register(ctx)``), each adding to or wrapping the ops before.
Nothing is computed on the host in secret: an op this backend lacks is absent (so
tests/backends/test_contract.py names it).
"""

from __future__ import annotations

import functools
import importlib
from types import SimpleNamespace
from typing import Any

from . import creation, decompositions, eig, elementwise, linalg, manipulation
from . import reductions, svd, transfers, writes
from .kernels import map as M
from .place import Place

MODULES = (elementwise, transfers, creation, reductions, manipulation, writes, linalg,
           decompositions, svd, eig)
"""The modules whose ``OPS`` (and ``PLACED``) tables make the core of the namespace."""

GROUPS = ("indexing", "statistics", "sorting", "fft")
"""The modules beside this one that add op groups through ``register(ctx)``, in order."""


def build(device: Any, held: tuple) -> SimpleNamespace:
    place = Place(device, held)
    ops: dict[str, Any] = {}
    for module in MODULES:
        ops.update(module.OPS)
        for name, fn in getattr(module, "PLACED", {}).items():
            ops[name] = functools.partial(fn, place)
    rt = place.rt
    ctx = SimpleNamespace(
        rt=rt, device=device, held=held, ops=ops, launch=M.launch, wide=place.wide,
        expr=lambda name, d: elementwise.expression(rt, name, d),
        gap=lambda name, d, why: elementwise.gap(name, d, rt, why),
        broadcast_shape=elementwise.broadcast_shape, copy=transfers.copy,
        write=writes.write, flat=manipulation.flat, axes=reductions.axes_of,
        finish=lambda r, x, axes, dtype, keepdims: reductions.finish(r, axes, dtype,
                                                                     keepdims))
    for group in GROUPS:
        importlib.import_module("." + group, __package__).register(ctx)
    return SimpleNamespace(**ops)
