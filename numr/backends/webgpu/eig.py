"""WebGPU ops: general eigenproblems (eig, eigvals): Hessenberg reduction and shifted
complex QR iteration (kernels/linalg_kernels.py eig_source), in stages as
decompositions.py runs every decomposition."""

from __future__ import annotations

import math

import numpy as np

from ... import _dtypes as dt
from .array import new
from .decompositions import WG, result_view, buffer, cw, error, lift, staged, up
from .kernels import linalg_kernels as K


def eig(name: str, a, vectors: bool):
    rt = a.rt
    n = a.shape[-1]
    batch = a.shape[:-2]
    nb = math.prod(batch)
    cd = dt.COMPLEX_OF[dt.float32 if a.dtype in (dt.float16, dt.bfloat16) else a.dtype] \
        if a.dtype.kind != "complex" else a.dtype
    if nb == 0 or n == 0:
        w = new(rt, batch + (n,), cd)
        return (w, new(rt, a.shape, cd)) if vectors else w
    a = lift(a)
    vsz = nb * n * n if vectors else 0
    status = 2 * (nb * n + vsz)
    hbase = up(status + nb, 2)
    zbase = hbase + nb * n * n
    xbase = zbase + nb * n * n
    gbase = xbase + nb * n * n
    qstate = 2 * (gbase + 2 * nb * n)
    buf = buffer(rt, qstate + 4 * nb, cd)
    real_input = a.dtype.kind != "complex"
    key = ("eig", cd.name, real_input, vectors)
    src = lambda stage: K.eig_source(cd, real_input, vectors, stage)  # noqa: E731
    params = [n, a.offset, 0, nb * n, status, hbase, zbase, xbase, gbase, qstate]
    staged(key, src, [a], buf, params, nb, "init")
    staged(key, src, [a], buf, params, nb, "hess",
           [cw(n) * (4 * n + 2) + cw(2 * n) * 2 * n + 12 for j in range(max(n - 2, 0))])
    step = 3 * n + 2 * n * (4 + cw(2 * n)) + 2 * cw(n) + 4
    limit = 31 * n + 31  # QR steps and deflations: the kernel allows 30 n + 30 steps
    staged(key, src, [a], buf, params, nb, "qr", [step] * limit)
    if vectors:
        staged(key, src, [a], buf, params, nb, "tri",
               [(k * k // 2 + n) // WG + 2 for k in range(n)])
        staged(key, src, [a], buf, params, nb, "zx",
               [n * (k + 1) // WG + 2 for k in range(n)])
        staged(key, src, [a], buf, params, nb, "norm")
    staged(key, src, [a], buf, params, nb, "final")
    raw = rt.download(buf.storage, status * buf.dtype.itemsize, nb * buf.dtype.itemsize)
    flags = np.frombuffer(raw, dtype=buf.dtype.name)  # a host read, as in failed()
    if (flags == 2).any():
        raise error("eig", "the matrix holds infinities or NaNs")  # as the NumPy adapter
    if flags.any():
        raise error(name, "the eigenvalue computation did not converge")
    w = result_view(buf, batch + (n,), 0, cd)
    return (w, result_view(buf, a.shape, nb * n, cd)) if vectors else w


def linalg_eig(a):
    return eig("eig", a, True)


def linalg_eigvals(a):
    return eig("eigvals", a, False)


OPS = {"linalg_eig": linalg_eig, "linalg_eigvals": linalg_eigvals}
