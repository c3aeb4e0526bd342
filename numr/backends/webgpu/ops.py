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
indexing.py      advanced getitem/setitem, take, take_along_axis, nonzero
statistics.py    var, std, cumulative_*, argmax/argmin, count_nonzero, diff, any/all
sorting.py       sort, argsort, searchsorted, unique, isin
fft.py           the fft extension

Complex dtypes are a branch inside each op (complex.py: how their kernels launch).
Ops take their runtime from their arrays; those with no array operand (the PLACED
tables: creation from nothing, from_host, sync) get the device's
:class:`~.place.Place` bound first here. A later module's op replaces an earlier
one's of the same name (indexing's getitem takes advanced keys and hands basic ones to
writes.py's; statistics' any/all take NaN and complex input).
Nothing is computed on the host in secret: an op this backend lacks is absent (so
tests/backends/test_contract.py names it).
"""

from __future__ import annotations

import functools
from types import SimpleNamespace
from typing import Any

from . import creation, decompositions, eig, elementwise, fft, indexing, linalg
from . import manipulation, reductions, sorting, statistics, svd, transfers, writes
from .place import Place

MODULES = (elementwise, transfers, creation, reductions, manipulation, writes, linalg,
           decompositions, svd, eig, indexing, statistics, sorting, fft)
"""The modules whose ``OPS`` (and ``PLACED``) tables make the namespace, in order."""


def build(device: Any, held: tuple) -> SimpleNamespace:
    place = Place(device, held)
    ops: dict[str, Any] = {}
    for module in MODULES:
        ops.update(module.OPS)
        for name, fn in getattr(module, "PLACED", {}).items():
            ops[name] = functools.partial(fn, place)
    return SimpleNamespace(**ops)
