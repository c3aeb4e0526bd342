"""WebGPU ops: fft.

Every transform is a sequence of batched 1-D transforms (:func:`transform`), one per axis, each reading its input through strides (zero-padding or
truncating to the transform length, converting real input, or extending a Hermitian half)
and writing a fresh C-contiguous result, scaled for ``norm``. Lengths whose prime factors
are all <= 7 run Stockham passes directly; others use Bluestein's chirp-z through a
power-of-two transform of length >= 2n - 1. A row that fits in workgroup memory is one
dispatch (kernels/fft_kernels.py says how); longer rows take a pass per dispatch.

Real-input and Hermitian transforms of even length n are complex transforms of length
n/2 (real pairs packed as complex values, then split; see kernels/fft_kernels.py); those
of odd length are full complex transforms of the real (or Hermitian-extended) sequence,
keeping the half (or the real part) the standard asks for.
"""

from __future__ import annotations

import math
from typing import Any, Callable, Protocol

import numpy as np

from ... import _dtypes as dt
from .array import GPUArray, new
from .elementwise import astype
from .kernels import map as M
from .kernels import fft_kernels as K
from .kernels.map import _collapse, scalar_words
from .place import Place

_M32 = 0xFFFFFFFF
_TABLES = 64  # constant tables kept per device (one per transform length and dtype)
# runtime -> {(L, N, packed, dtype): the table on that device}
_tables: dict[Any, dict[tuple[int, int, int, str], GPUArray]] = {}



def _scale(norm: str, n: int, inverse: bool) -> float:
    """The factor of a transform of length n: the forward transforms (fft, rfft, hfft)
    are unscaled for 'backward', the inverse ones (ifft, irfft, ihfft) for 'forward'."""
    if norm == "ortho":
        return 1.0 / math.sqrt(n)
    return 1.0 / n if (norm == "backward") == inverse else 1.0


def _table(L: int, N: int, bluestein: bool, packed: int) -> np.ndarray:
    """The constant table of kernels/fft_kernels.py, in float64: twiddles of length L,
    then (Bluestein) the chirp of length N and B = FFT_L(conj(chirp)) wrapped around,
    then (a packed real transform of length ``packed``) its twiddles up to packed/2."""
    parts = [np.exp(-2j * np.pi * (np.arange(L) / L))]
    if bluestein:
        j = np.arange(N, dtype=np.int64)
        chirp = np.exp(-1j * np.pi * (((j * j) % (2 * N)) / N))  # j^2 mod 2N: exact
        b = np.zeros(L, dtype=np.complex128)
        b[:N] = np.conj(chirp)
        b[L - N + 1:] = np.conj(chirp[1:][::-1])
        # B is a constant of (N, L) computed once on the host in float64, like the
        # twiddles (no user data is involved).
        parts += [chirp, np.fft.fft(b)]
    if packed:
        parts.append(np.exp(-2j * np.pi * (np.arange(packed // 2 + 1) / packed)))
    return np.concatenate(parts)


def table(rt: Any, L: int, N: int, bluestein: bool, packed: int, cd: dt.DType) -> GPUArray:
    """The constant table (twiddles, Bluestein's chirp) of one transform on ``rt``."""
    tables = _tables.setdefault(rt, {})
    key = (L, N if bluestein else 0, packed, cd.name)
    t = tables.get(key)
    if t is None:
        host = _table(L, N, bluestein, packed).astype(cd.name)
        t = new(rt, host.shape, cd)
        rt.upload(t.storage, host.tobytes())
        if len(tables) >= _TABLES:
            # Many distinct lengths: forget the oldest table (recorded work that
            # binds it still runs first; the pool reuses its buffer after).
            del tables[next(iter(tables))]
        tables[key] = t
    return t


def transform(a: GPUArray, n: int, axis: int, inv: bool, kind: str, out_kind: str,
              nout: int, scale: float) -> GPUArray:
    """A batched 1-D transform of length n along ``axis`` of ``a`` (the input length
    there is padded with zeros or truncated to n); ``nout`` outputs per row, in a
    new C-contiguous array.

    kind: "c" complex input, "r" real, "h" complex Hermitian half; out_kind "c"
    complex, "r" the real part. inv: the sign of the exponent (+ for inverse)."""
    rt = a.rt
    cd = a.dtype if a.dtype.kind == "complex" else dt.COMPLEX_OF[a.dtype]
    od = cd if out_kind == "c" else dt.REAL_OF[cd]
    out = new(rt, a.shape[:axis] + (nout,) + a.shape[axis + 1:], od)
    if out.size == 0:
        return out
    N, packed, kind, out_kind, inv = _packing(a, n, kind, out_kind, nout, inv)
    bluestein = K.radices(N) is None
    L = N if not bluestein else 1 << (2 * N - 2).bit_length()  # power of two >= 2N-1
    if bluestein:
        scale /= L  # the inner inverse transform is unscaled
    rows = out.size // nout
    T = "f32" if cd is dt.complex64 else "f64"
    rest = [k for k in range(a.ndim) if k != axis]
    bshape, (bin_, bout) = _collapse(tuple(a.shape[k] for k in rest),
                                     [tuple(a.strides[k] for k in rest),
                                      tuple(out.strides[k] for k in rest)])
    nb = len(bshape)
    sw = scalar_words(scale, dt.float32 if T == "f32" else dt.float64)
    q = L + (N + L if bluestein else 0)  # where the packed transform's twiddles are
    params = [rows, a.shape[axis], a.offset & _M32, a.strides[axis] & _M32, q,
              out.strides[axis] & _M32, nout, *(sw + [0])[:2], N, L, *bshape,
              *(s & _M32 for s in bin_), *(s & _M32 for s in bout)]
    tab = table(rt, L, N, bluestein, packed, cd)
    blocks = (a.storage.block, tab.storage.block, out.storage.block)
    # workgroup memory per row kernel (WebGPU guarantees 16 KiB)
    room = int(rt.limits.get("max-compute-workgroup-storage-size", 16384))
    cap = K.row_capacity(room, cd.itemsize)
    if L <= cap:
        TR, most, G = K.bucket(L, cap)
        key = ("fft-row", T, kind, out_kind, nb, TR, most, G, inv, bluestein)
        rt.dispatch(key, lambda: K.shared_source(T, kind, out_kind, nb, TR, most, G,
                                                 inv, bluestein),
                    blocks, params + K.radix_words(L), -(-rows // G))
    else:
        in_memory(rt, blocks, params, T, kind, out_kind, nb, inv, bluestein, rows, N, L,
                  nout, cd)
    return out


def _packing(a: GPUArray, n: int, kind: str, out_kind: str, nout: int,
             inv: bool) -> tuple[int, int, str, str, bool]:
    """(complex length N, packed real length or 0, kind, out_kind, inner direction):
    real transforms of even length run at half the length (fft_kernels.py)."""
    if n % 2 == 0 and (kind, out_kind) == ("r", "c") and nout == n // 2 + 1:
        return n // 2, n, "rp", ("cpc" if inv else "cp"), False  # rfft, ihfft
    if n % 2 == 0 and (kind, out_kind) == ("h", "r") and a.dtype.kind == "complex":
        return n // 2, n, ("hp" if inv else "hpc"), "rp", True  # irfft, hfft
    if a.dtype.kind == "float":  # real input to a complex transform
        kind = {"c": "r", "h": "hr"}.get(kind, kind)
    return n, 0, kind, out_kind, inv


def in_memory(rt: Any, blocks: tuple[Any, Any, Any], params: list[int], T: str, kind: str,
              out_kind: str, nb: int, inv: bool, bluestein: bool, rows: int, N: int, L: int,
              nout: int, cd: dt.DType) -> None:
    """Rows too long for workgroup memory: contiguous padded rows, then a dispatch
    per pass (Bluestein: forward passes, product with B, inverse passes)."""
    src, tab, dst = blocks
    buf = new(rt, (rows, L), cd)
    rt.dispatch(("fft-gather", T, kind, nb, inv, bluestein),
                lambda: K.gather_source(T, kind, nb, inv, bluestein),
                (src, tab, buf.storage.block), params, -(-rows * L // K.WG))
    if bluestein:
        buf = passes(rt, buf, tab, T, L, False)
        prod = new(rt, (rows, L), cd)
        rt.dispatch(("fft-product", T, inv), lambda: K.product_source(T, inv),
                    (buf.storage.block, tab, prod.storage.block),
                    [rows * L, L, L + N], -(-rows * L // K.WG))
        buf = passes(rt, prod, tab, T, L, True)
    else:
        buf = passes(rt, buf, tab, T, L, inv)
    rt.dispatch(("fft-scatter", T, out_kind, nb, inv, bluestein),
                lambda: K.scatter_source(T, out_kind, nb, inv, bluestein),
                (buf.storage.block, tab, dst), params, -(-rows * nout // K.WG))


def passes(rt: Any, buf: GPUArray, tab: Any, T: str, L: int, inv: bool) -> GPUArray:
    """The Stockham passes over contiguous rows of L points, ping-ponging buffers."""
    rows = buf.shape[0]
    Ns = 1
    for R in K.radices(L):
        nxt = new(rt, buf.shape, buf.dtype)
        rt.dispatch(("fft-pass", T, R, inv), lambda R=R: K.pass_source(T, R, inv),
                    (buf.storage.block, tab, nxt.storage.block),
                    [rows * L // R, L, Ns], -(-rows * L // R // K.WG))
        buf = nxt
        Ns *= R
    return buf


# -- one axis ----------------------------------------------------------------------

class _Transform(Protocol):
    def __call__(self, a: GPUArray, n: int, axis: int, norm: str) -> GPUArray: ...


def _one(inv: bool, kind: str, out_kind: str, half: bool, inverse: bool) -> _Transform:
    def op(a: GPUArray, n: int, axis: int, norm: str) -> GPUArray:
        return transform(a, n, axis, inv, kind, out_kind, n // 2 + 1 if half else n,
                         _scale(norm, n, inverse))
    return op


# -- several axes: one 1-D transform per axis (the norm factors multiply) -----------

def c2c(a: GPUArray, s: tuple[int, ...], axes: tuple[int, ...], norm: str,
        inv: bool) -> GPUArray:
    for n, ax in sorted(zip(s, axes), key=lambda p: -p[1]):  # last axis first
        a = transform(a, n, ax, inv, "c", "c", n, _scale(norm, n, inv))
    return a


def fftn(a: GPUArray, s: tuple[int, ...], axes: tuple[int, ...], norm: str) -> GPUArray:
    return c2c(a, s, axes, norm, False)


def ifftn(a: GPUArray, s: tuple[int, ...], axes: tuple[int, ...], norm: str) -> GPUArray:
    return c2c(a, s, axes, norm, True)


def rfftn(a: GPUArray, s: tuple[int, ...], axes: tuple[int, ...], norm: str) -> GPUArray:
    n = s[-1]
    a = transform(a, n, axes[-1], False, "r", "c", n // 2 + 1, _scale(norm, n, False))
    return c2c(a, s[:-1], axes[:-1], norm, False)


def irfftn(a: GPUArray, s: tuple[int, ...], axes: tuple[int, ...], norm: str) -> GPUArray:
    a = c2c(a, s[:-1], axes[:-1], norm, True)
    n = s[-1]
    return transform(a, n, axes[-1], True, "h", "r", n, _scale(norm, n, True))


# -- frequencies and shifts ----------------------------------------------------------


def _freq(place: Place, half: bool, n: int, d: float, dtype: dt.DType) -> GPUArray:
    # NumPy's values: integer index k (k - n past the middle) times 1 / (n d), in
    # the widest float held, then cast.
    wide = place.wide
    w = "f64" if wide is dt.float64 else "f32"
    k = f"{w}(i)" if half else f"select({w}(i32(i) - a), {w}(i), i < b)"
    count = n // 2 + 1 if half else n
    r = M.launch(place.rt, "rfftfreq" if half else "fftfreq", f"{k} * c",
                 ((n, dt.int32), ((n + 1) // 2, dt.uint32), (1.0 / (n * d), wide)),
                 wide, (count,))
    return r if dtype is wide else astype(r, dtype, False)

def fftfreq(place: Place, n: int, d: float, dtype: dt.DType) -> GPUArray:
    return _freq(place, False, n, d, dtype)


def rfftfreq(place: Place, n: int, d: float, dtype: dt.DType) -> GPUArray:
    return _freq(place, True, n, d, dtype)


OPS: dict[str, Callable[..., GPUArray]] = {
    "fft_fft": _one(False, "c", "c", False, False),
    "fft_ifft": _one(True, "c", "c", False, True),
    "fft_rfft": _one(False, "r", "c", True, False),
    "fft_irfft": _one(True, "h", "r", False, True),
    "fft_hfft": _one(False, "h", "r", False, False),
    "fft_ihfft": _one(True, "r", "c", True, True),
    "fft_fftn": fftn, "fft_ifftn": ifftn, "fft_rfftn": rfftn, "fft_irfftn": irfftn}
PLACED: dict[str, Callable[..., GPUArray]] = {"fft_fftfreq": fftfreq, "fft_rfftfreq": rfftfreq}
"""Ops that take the Place first (no array operand)."""
# fftshift and ifftshift are derived from roll (numr/backends/_derived.py).
