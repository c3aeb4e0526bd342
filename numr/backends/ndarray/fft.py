"""FFT ops (``fft_*``) for NumPy-like modules.

numr has resolved every argument before these run (every other backend gets the same):

``fft_<f>(a, n, axis, norm)`` for fft, ifft, rfft, irfft, hfft, ihfft: ``n`` a positive
    int (the output length for irfft/hfft), ``axis`` >= 0;
``fft_<f>(a, s, axes, norm)`` for fftn, ifftn, rfftn, irfftn: ``s`` a tuple of positive
    lengths, one per axis of the non-empty tuple ``axes`` (>= 0, distinct);
``fft_fftfreq(n, d, dtype)``, ``fft_rfftfreq(n, d, dtype)``: n >= 1, d a nonzero float,
    dtype a real floating numr dtype;
(``fft_fftshift`` and ``fft_ifftshift`` are derived from roll: numr/backends/_derived.py.)

``norm`` is one of "backward", "ortho", "forward", and the input already has the dtype
to transform (complex for c2c and c2r transforms, float32/float64 for r2c ones). The
ops cast the library's result to exactly the dtype of the standard (CuPy and older
NumPy compute some transforms in double precision).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable

from ... import _dtypes as dt

if TYPE_CHECKING:
    from . import Context


def build(c: Context) -> dict[str, Callable[..., Any]]:
    xp = c.xp
    fft = xp.fft

    def complex_of(d):
        n = c.numr[d]
        return c.native[n if n.kind == "complex" else dt.COMPLEX_OF[n]]

    def real_of(d):
        n = c.numr[d]
        return c.native[dt.REAL_OF.get(n, n)]

    def out(r, d):
        r = c.arr(r)
        return r if r.dtype == d else r.astype(d)

    def nonempty(a, axes):
        """``a`` with each empty transformed axis given one zero: the same transform
        once padded to ``n`` (zeros either way). NumPy 2.4's irfft returns uninitialised
        memory for an empty axis padded to ``n``."""
        if all(a.shape[ax] for ax in axes):
            return a
        shape = tuple(1 if k in axes and not m else m for k, m in enumerate(a.shape))
        return c.xp.zeros(shape, dtype=a.dtype)

    def one_axis(f, result):
        def op(a, n, axis, norm):
            return out(f(nonempty(a, (axis,)), n=n, axis=axis, norm=norm), result(a.dtype))
        return op

    def many_axes(f, result):
        def op(a, s, axes, norm):
            s, axes = increasing(s, axes)
            return out(f(nonempty(a, axes), s=s, axes=axes, norm=norm), result(a.dtype))
        return op

    def increasing(s, axes):
        # Complex transforms along different axes commute, so (axis, length) pairs may be
        # sorted; CuPy sizes the output wrongly when axes are not in increasing order.
        pairs = sorted(zip(axes, s))
        return tuple(n for _, n in pairs), tuple(ax for ax, _ in pairs)

    # The real n-D transforms are written as a complex n-D transform over all axes but the
    # last one named plus a real 1-D transform over that last one: CuPy's own rfftn and
    # irfftn size the output wrongly when ``axes`` is not in increasing order. The norm
    # factors of the two parts multiply to the whole transform's.
    def rfftn(a, s, axes, norm):
        a = nonempty(a, axes)
        r = fft.rfft(a, n=s[-1], axis=axes[-1], norm=norm)
        if len(axes) > 1:
            r = fft.fftn(r, *increasing(s[:-1], axes[:-1]), norm=norm)
        return out(r, complex_of(a.dtype))

    def irfftn(a, s, axes, norm):
        result = real_of(a.dtype)
        a = nonempty(a, axes)
        if len(axes) > 1:
            a = fft.ifftn(a, *increasing(s[:-1], axes[:-1]), norm=norm)
        return out(fft.irfft(a, n=s[-1], axis=axes[-1], norm=norm), result)

    def fftfreq(n, d, dtype):
        return out(fft.fftfreq(n, d), c.native[dtype])

    def rfftfreq(n, d, dtype):
        return out(fft.rfftfreq(n, d), c.native[dtype])

    return {
        "fft_fft": one_axis(fft.fft, complex_of),
        "fft_ifft": one_axis(fft.ifft, complex_of),
        "fft_rfft": one_axis(fft.rfft, complex_of),
        "fft_irfft": one_axis(fft.irfft, real_of),
        "fft_hfft": one_axis(fft.hfft, real_of),
        "fft_ihfft": one_axis(fft.ihfft, complex_of),
        "fft_fftn": many_axes(fft.fftn, complex_of),
        "fft_ifftn": many_axes(fft.ifftn, complex_of),
        "fft_rfftn": rfftn,
        "fft_irfftn": irfftn,
        "fft_fftfreq": fftfreq,
        "fft_rfftfreq": rfftfreq,
    }
