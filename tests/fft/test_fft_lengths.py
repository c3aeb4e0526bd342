"""numr.fft beyond tests/fft/test_fft.py: every kind of length (radix 2/3/4/5/7 passes,
Bluestein's chirp-z, rows in workgroup memory and rows too long for it), strided views,
many rows, empty arrays and every dtype of the shifts, on every device; NumPy in float64
is the oracle."""

import math

import numpy as np
import pytest

import numr as xp
from numr import fft

from tests.helpers import assert_array, random_array, to_np

RNG = np.random.default_rng(7)


def rand(shape, dtype="complex128"):
    return random_array(RNG, shape, dtype)

# Smooth lengths, lengths with a large prime factor (Bluestein), and lengths past what a
# workgroup holds (4096 complex64 / 2048 complex128 points on lavapipe; 2048/1024 in
# WebGPU's default 16 KiB).
LENGTHS = [1, 2, 3, 4, 5, 6, 7, 8, 9, 12, 14, 25, 30, 49, 60, 64, 96, 100, 105, 128, 210,
           256, 343, 1000, 1024, 2048, 4096, 11, 13, 17, 31, 97, 127, 257, 509, 1031, 2053,
           5000, 8192, 10007]


def close(got, expected, dtype, n):
    """FFT accuracy: float64 within 1e-12 of the largest output, float32 within
    2e-6 sqrt(log2 n) of it (rounding in every pass)."""
    got = to_np(got)
    assert got.dtype == np.dtype(dtype.name)
    assert got.shape == expected.shape
    scale = max(np.abs(expected).max(initial=0.0), 1e-300)
    tol = 1e-12 if dtype in (xp.float64, xp.complex128) else 2e-6 * math.sqrt(math.log2(n + 1))
    err = np.abs(got - expected).max(initial=0.0) / scale
    assert err <= tol, f"relative error {err:.2e} > {tol:.1e} (n={n}, {dtype})"


@pytest.mark.parametrize("dtype", [xp.complex64, xp.complex128])
@pytest.mark.parametrize("n", LENGTHS)
def test_lengths_c2c(device, n, dtype):
    a = rand((2, n), dtype.name)
    x = xp.asarray(a, device=device)
    ref = a.astype("complex128")
    close(fft.fft(x), np.fft.fft(ref), dtype, n)
    close(fft.ifft(x, norm="ortho"), np.fft.ifft(ref, norm="ortho"), dtype, n)


@pytest.mark.parametrize("dtype", [xp.float32, xp.float64])
@pytest.mark.parametrize("n", [1, 2, 4, 7, 16, 17, 34, 194, 1000, 1031, 2053, 2062, 5000])
def test_lengths_real(device, n, dtype):
    cd = xp.complex64 if dtype is xp.float32 else xp.complex128
    a = rand((3, n), dtype.name)
    x = xp.asarray(a, device=device)
    ref = a.astype("float64")
    close(fft.rfft(x), np.fft.rfft(ref), cd, n)
    close(fft.ihfft(x, norm="forward"), np.fft.ihfft(ref, norm="forward"), cd, n)
    h = rand((3, n // 2 + 1), cd.name)
    y = xp.asarray(h, device=device)
    close(fft.irfft(y, n=n), np.fft.irfft(h.astype("complex128"), n=n), dtype, n)
    close(fft.hfft(y, n=n, norm="ortho"), np.fft.hfft(h.astype("complex128"), n=n,
                                                      norm="ortho"), dtype, n)


@pytest.mark.parametrize("n", [6, 13, 26, 3000])
def test_padding_and_truncation(device, n):
    a = rand((4, 40))
    x = xp.asarray(a, device=device)
    close(fft.fft(x, n=n), np.fft.fft(a, n=n), xp.complex128, n)
    close(fft.irfft(x, n=n), np.fft.irfft(a, n=n), xp.float64, n)
    r = rand((4, 40), "float64")
    close(fft.rfft(xp.asarray(r, device=device), n=n), np.fft.rfft(r, n=n), xp.complex128, n)


def test_strided_views(device):
    a = rand((6, 5, 8))
    x = xp.asarray(a, device=device)
    views = [
        (lambda v: xp.permute_dims(v, (2, 0, 1)), lambda v: v.transpose(2, 0, 1)),
        (lambda v: v[::2, 1:, ::-1], lambda v: v[::2, 1:, ::-1]),
        (lambda v: v[:, ::-2, 3], lambda v: v[:, ::-2, 3]),
        (lambda v: xp.flip(v, axis=0)[1:5], lambda v: np.flip(v, axis=0)[1:5]),
    ]
    for f, g in views:
        v, h = f(x), g(a)
        for axis in range(h.ndim):
            close(fft.fft(v, axis=axis), np.fft.fft(h, axis=axis), xp.complex128, 8)
            for n in (7, 8):  # odd: a full complex transform; even: a packed one
                close(fft.irfft(v, axis=axis, n=n), np.fft.irfft(h, axis=axis, n=n),
                      xp.float64, n)
                close(fft.hfft(v, axis=axis, n=n), np.fft.hfft(h, axis=axis, n=n),
                      xp.float64, n)
                close(fft.rfft(xp.real(v), axis=axis, n=n),
                      np.fft.rfft(h.real, axis=axis, n=n), xp.complex128, n)
        close(fft.fftn(v), np.fft.fftn(h), xp.complex128, 8)
    r = rand((5, 9), "float32")
    v = xp.asarray(r, device=device)[::-1, ::2]
    close(fft.rfft(v, axis=0), np.fft.rfft(r[::-1, ::2].astype("float64"), axis=0),
          xp.complex64, 5)
    close(fft.ihfft(v, axis=0, n=6), np.fft.ihfft(r[::-1, ::2].astype("float64"), axis=0,
                                                   n=6), xp.complex64, 6)


def test_many_rows(device):
    # more rows than one dispatch dimension holds workgroups (65535)
    a = rand((70000, 3))
    x = xp.asarray(a, device=device)
    close(fft.fft(x), np.fft.fft(a), xp.complex128, 3)
    close(fft.ifft(x, axis=0, n=4), np.fft.ifft(a, axis=0, n=4), xp.complex128, 4)


def test_empty(device):
    x = xp.asarray(np.zeros((0, 8), "complex128"), device=device)
    r = fft.fft(x)
    assert r.shape == (0, 8) and r.dtype == xp.complex128
    assert fft.rfft(xp.asarray(np.zeros((0, 8)), device=device)).shape == (0, 5)
    y = xp.asarray(np.zeros((3, 0), "complex64"), device=device)
    assert_array(fft.fft(y, n=5), np.zeros((3, 5), "complex64"), dtype=xp.complex64)
    # NumPy 2.4's own irfft of an empty axis padded to n reads uninitialised memory;
    # numr's NumPy adapter pads the axis itself
    assert_array(fft.irfft(y, n=4), np.zeros((3, 4), "float32"), dtype=xp.float32)
    assert fft.fftshift(xp.asarray(np.zeros((0, 3)), device=device)).shape == (0, 3)


@pytest.mark.parametrize("axes,s", [((2, 0), (4, 6)), ((0, 1, 2), (3, 17, 9)),
                                    ((1, 2), (-1, -1)), ((2, 1), (1, 1))])
def test_many_axes_orders(device, axes, s):
    a = rand((3, 5, 6))
    x = xp.asarray(a, device=device)
    np_s = tuple(a.shape[ax] if si == -1 else si for si, ax in zip(s, axes))
    close(fft.fftn(x, s=s, axes=axes), np.fft.fftn(a, s=np_s, axes=axes), xp.complex128, 17)
    close(fft.ifftn(x, s=s, axes=axes, norm="ortho"),
          np.fft.ifftn(a, s=np_s, axes=axes, norm="ortho"), xp.complex128, 17)
    r = a.real.copy()
    close(fft.rfftn(xp.asarray(r, device=device), s=s, axes=axes),
          np.fft.rfftn(r, s=np_s, axes=axes), xp.complex128, 17)
    irs = np_s if s[-1] != -1 else np_s[:-1] + (2 * (a.shape[axes[-1]] - 1),)
    close(fft.irfftn(x, s=s, axes=axes, norm="forward"),
          np.fft.irfftn(a, s=irs, axes=axes, norm="forward"), xp.float64, 17)


@pytest.mark.parametrize("dtype", [xp.bool, xp.int8, xp.uint16, xp.int32, xp.int64,
                                   xp.float16, xp.float32, xp.float64, xp.complex64,
                                   xp.complex128])
def test_shifts_every_dtype(device, dtype):
    if dtype not in device.dtypes:
        pytest.skip(f"{device} holds no {dtype}")
    h = (np.arange(3 * 4 * 5) % 7).reshape(3, 4, 5).astype(dtype.name)
    x = xp.asarray(h, device=device)
    for axes in (None, (1,), (0, 2)):
        assert_array(fft.fftshift(x, axes=axes), np.fft.fftshift(h, axes=axes), dtype=dtype)
        assert_array(fft.ifftshift(x, axes=axes), np.fft.ifftshift(h, axes=axes), dtype=dtype)
    v = x[:, ::-1, 1::2]
    assert_array(fft.fftshift(v), np.fft.fftshift(h[:, ::-1, 1::2]), dtype=dtype)


def test_freqs_large(device):
    for n in (1, 999, 1000, 100001):
        assert_array(fft.fftfreq(n, d=0.1, device=device), np.fft.fftfreq(n, 0.1),
                     dtype=xp.float64, rtol=1e-15)
        assert_array(fft.rfftfreq(n, d=7, device=device), np.fft.rfftfreq(n, 7),
                     dtype=xp.float64, rtol=1e-15)
        assert_array(fft.fftfreq(n, d=3, dtype=xp.float32, device=device),
                     np.fft.fftfreq(n, 3).astype("float32"), dtype=xp.float32)


def test_roundtrips_single(device):
    for n in (5, 64, 97, 3000, 6000):
        a = rand((2, n), "complex64")
        x = xp.asarray(a, device=device)
        close(fft.ifft(fft.fft(x)), a.astype("complex128"), xp.complex64, n)
        r = rand((2, n), "float32")
        y = xp.asarray(r, device=device)
        close(fft.irfft(fft.rfft(y), n=n), r.astype("float64"), xp.float32, n)


@pytest.mark.webgpu_only  # a WebGPU kernel choice, checked with this file's lengths
@pytest.mark.parametrize("room", [0, 16384])
def test_webgpu_row_capacity(device, monkeypatch, room):
    """The global-memory passes for every length (room 0), and the buckets of an adapter
    with WebGPU's default 16 KiB of workgroup memory."""
    from numr.backends.webgpu.kernels import fft_kernels as K

    monkeypatch.setattr(K, "row_capacity", lambda _, itemsize: room // itemsize // 2)
    for n in (1, 2, 3, 5, 8, 12, 17, 30, 97, 128, 600, 1100):
        for dtype in (xp.complex64, xp.complex128):
            a = rand((3, n), dtype.name)
            x = xp.asarray(a, device=device)
            ref = a.astype("complex128")
            close(fft.fft(x), np.fft.fft(ref), dtype, n)
            close(fft.ifft(x), np.fft.ifft(ref), dtype, n)
            real = xp.float32 if dtype is xp.complex64 else xp.float64
            close(fft.irfft(x, n=2 * n), np.fft.irfft(ref, n=2 * n), real, 2 * n)
            r = xp.real(x)
            close(fft.rfft(r), np.fft.rfft(ref.real), dtype, n)
