"""numr.fft against numpy.fft (float64/complex128 where accuracy matters)."""

import functools

import numpy as np
import pytest

import numr as xp
from numr import fft

from tests.helpers import arr, assert_array, random_array, to_np

RNG = np.random.default_rng(1)
rand = functools.partial(random_array, RNG)
NORMS = ["backward", "ortho", "forward"]


# ---------------------------------------------------------------------------------------
# One-axis transforms
# ---------------------------------------------------------------------------------------

ONE_AXIS = {  # name -> (input dtype, result dtype)
    "fft": ("complex128", "complex128"), "ifft": ("complex128", "complex128"),
    "rfft": ("float64", "complex128"), "irfft": ("complex128", "float64"),
    "hfft": ("complex128", "float64"), "ihfft": ("float64", "complex128"),
}


@pytest.mark.parametrize("name", list(ONE_AXIS))
@pytest.mark.parametrize("norm", NORMS)
@pytest.mark.parametrize("n,axis", [(None, -1), (None, 0), (5, -1), (12, 1), (3, 0), (1, -1)])
def test_one_axis(device, name, norm, n, axis):
    din, dout = ONE_AXIS[name]
    a = rand((4, 7), din)
    r = getattr(fft, name)(arr(a, device), n=n, axis=axis, norm=norm)
    expected = getattr(np.fft, name)(a, n=n, axis=axis, norm=norm)
    assert_array(r, expected, dtype=getattr(xp, dout), device=device, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("length", [1, 2, 3, 7, 16, 17, 97])
def test_any_length_roundtrip(device, length):
    a = rand((length,), "complex128")
    x = arr(a, device)
    assert_array(fft.ifft(fft.fft(x)), a, rtol=1e-10, atol=1e-12)
    b = rand((length,))
    y = arr(b, device)
    assert_array(fft.irfft(fft.rfft(y), n=length), b, dtype=xp.float64, rtol=1e-10, atol=1e-12)
    assert_array(fft.fft(x), np.fft.fft(a), rtol=1e-10, atol=1e-10)


@pytest.mark.parametrize("name", list(ONE_AXIS))
def test_single_precision(device, name):
    din, dout = ONE_AXIS[name]
    small = {"complex128": "complex64", "float64": "float32"}
    a = rand((3, 8), small[din])
    r = getattr(fft, name)(arr(a, device))
    assert r.dtype == getattr(xp, small[dout])
    assert_array(r, getattr(np.fft, name)(a.astype(din)), rtol=1e-4, atol=1e-4)


def test_real_and_integer_input_to_complex_transforms(device):
    a = rand((6,), "float32")
    r = fft.fft(arr(a, device))
    assert_array(r, np.fft.fft(a), dtype=xp.complex64, rtol=1e-5, atol=1e-5)
    i = np.arange(6, dtype="int32")
    assert_array(fft.fft(arr(i, device)), np.fft.fft(i), dtype=xp.complex128, rtol=1e-12, atol=1e-12)
    assert_array(fft.rfft(arr(i, device)), np.fft.rfft(i), dtype=xp.complex128, rtol=1e-12, atol=1e-12)
    assert_array(fft.irfft(arr(a, device)), np.fft.irfft(a), dtype=xp.float32, rtol=1e-5, atol=1e-5)
    if xp.float16 in device.dtypes:
        h = arr(a.astype("float16"), device)
        assert fft.fft(h).dtype == xp.complex64
        assert fft.rfft(h).dtype == xp.complex64
        assert fft.fftshift(h).dtype == xp.float16


def test_one_axis_errors(device):
    c = arr(rand((4,), "complex128"), device)
    with pytest.raises(TypeError, match="rfft.*complex128"):
        fft.rfft(c)
    with pytest.raises(TypeError, match="ihfft.*complex"):
        fft.ihfft(c)
    with pytest.raises(ValueError, match="fft.*norm"):
        fft.fft(c, norm="none")
    with pytest.raises(TypeError, match="fft.*norm"):
        fft.fft(c, norm=None)
    with pytest.raises(ValueError, match="fft.*n"):
        fft.fft(c, n=0)
    with pytest.raises(ValueError, match="fft.*n"):
        fft.fft(c, n=-1)
    with pytest.raises(TypeError, match="fft.*n"):
        fft.fft(c, n=2.0)
    with pytest.raises(ValueError, match="ifft.*axis"):
        fft.ifft(c, axis=1)
    with pytest.raises(TypeError, match="fft.*axis"):
        fft.fft(c, axis=None)
    with pytest.raises(ValueError, match="fft"):
        fft.fft(arr(np.array(1j), device))
    with pytest.raises(ValueError, match="irfft.*length"):
        fft.irfft(arr(np.ones(1, "complex128"), device))
    with pytest.raises(ValueError, match="fft.*length"):
        fft.fft(arr(np.ones(0, "complex128"), device))
    with pytest.raises(TypeError, match="fft"):
        fft.fft(np.ones(3))


# ---------------------------------------------------------------------------------------
# N-dimensional transforms
# ---------------------------------------------------------------------------------------

MANY_AXES = {
    "fftn": ("complex128", "complex128"), "ifftn": ("complex128", "complex128"),
    "rfftn": ("float64", "complex128"), "irfftn": ("complex128", "float64"),
}


@pytest.mark.parametrize("name", list(MANY_AXES))
@pytest.mark.parametrize("norm", NORMS)
@pytest.mark.parametrize("s,axes", [(None, None), (None, (0, 2)), (None, [-1, 0]),
                                    ((3, 8), (1, 2)), ((5, -1, 2), (0, 1, 2)), ((6,), (1,))])
def test_many_axes(device, name, norm, s, axes):
    din, dout = MANY_AXES[name]
    a = rand((3, 4, 5), din)
    r = getattr(fft, name)(arr(a, device), s=s, axes=axes, norm=norm)
    np_s = None if s is None else tuple(a.shape[ax] if si == -1 else si for si, ax in zip(s, axes))
    if name == "irfftn" and s is not None and s[-1] == -1:
        np_s = np_s[:-1] + (2 * (a.shape[axes[-1]] - 1),)
    expected = getattr(np.fft, name)(a, s=np_s, axes=axes, norm=norm)
    assert_array(r, expected, dtype=getattr(xp, dout), device=device, rtol=1e-10, atol=1e-12)


def test_many_axes_roundtrip_single(device):
    a = rand((4, 6), "float32")
    x = arr(a, device)
    f = fft.rfftn(x)
    assert f.dtype == xp.complex64 and f.shape == (4, 4)
    back = fft.irfftn(f, s=(4, 6), axes=(0, 1))
    assert_array(back, a, dtype=xp.float32, rtol=1e-4, atol=1e-5)
    c = arr(rand((2, 3), "complex64"), device)
    assert_array(fft.ifftn(fft.fftn(c)), to_np(c), dtype=xp.complex64, rtol=1e-4, atol=1e-5)


def test_fftn_no_axes_is_a_copy(device):
    a = rand((2, 3), "complex128")
    x = arr(a, device)
    r = fft.fftn(x, axes=())
    assert_array(r, a, dtype=xp.complex128)
    r[0, 0] = 0
    assert complex(x[0, 0]) == a[0, 0]
    with pytest.raises(ValueError, match="rfftn.*axis"):
        fft.rfftn(arr(rand((2, 3)), device), axes=())


def test_many_axes_errors(device):
    x = arr(rand((3, 4), "complex128"), device)
    with pytest.raises(ValueError, match="fftn.*axes"):
        fft.fftn(x, s=(3, 4))
    with pytest.raises(ValueError, match="fftn.*lengths"):
        fft.fftn(x, s=(3,), axes=(0, 1))
    with pytest.raises(ValueError, match="fftn.*repeats"):
        fft.fftn(x, axes=(0, -2))
    with pytest.raises(ValueError, match="ifftn.*axes"):
        fft.ifftn(x, axes=(2,))
    with pytest.raises(ValueError, match="fftn.*s"):
        fft.fftn(x, s=(0, 4), axes=(0, 1))
    with pytest.raises(TypeError, match="fftn.*s"):
        fft.fftn(x, s=3, axes=(0,))
    with pytest.raises(TypeError, match="fftn.*axes"):
        fft.fftn(x, axes=0)
    with pytest.raises(TypeError, match="rfftn.*complex"):
        fft.rfftn(x)
    with pytest.raises(ValueError, match="irfftn.*length"):
        fft.irfftn(arr(rand((3, 1), "complex128"), device))
    with pytest.raises(ValueError, match="fftn.*norm"):
        fft.fftn(x, norm="ORTHO")


# ---------------------------------------------------------------------------------------
# Frequencies and shifts
# ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("n", [1, 2, 7, 8])
@pytest.mark.parametrize("d", [1.0, 0.25, 3])
def test_freqs(device, n, d):
    assert_array(fft.fftfreq(n, d=d, device=device), np.fft.fftfreq(n, d), dtype=xp.float64,
                 device=device, rtol=1e-15)
    assert_array(fft.rfftfreq(n, d=d, device=device), np.fft.rfftfreq(n, d), dtype=xp.float64,
                 device=device, rtol=1e-15)
    r = fft.fftfreq(n, d=d, dtype=xp.float32, device=device)
    assert_array(r, np.fft.fftfreq(n, d).astype("float32"), dtype=xp.float32, device=device)
    r = fft.rfftfreq(n, d=d, dtype=xp.float32, device=device)
    assert_array(r, np.fft.rfftfreq(n, d).astype("float32"), dtype=xp.float32, device=device)


def test_freq_errors(device):
    for f in (fft.fftfreq, fft.rfftfreq):
        name = f.__name__
        with pytest.raises(ValueError, match=name + ".*n"):
            f(0, device=device)
        with pytest.raises(TypeError, match=name + ".*n"):
            f(4.0, device=device)
        with pytest.raises(ValueError, match=name + ".*d"):
            f(4, d=0, device=device)
        with pytest.raises(TypeError, match=name + ".*d"):
            f(4, d="1", device=device)
        with pytest.raises(TypeError, match=name + ".*dtype"):
            f(4, dtype=xp.int32, device=device)
        with pytest.raises(TypeError, match=name + ".*dtype"):
            f(4, dtype=xp.complex64, device=device)
        with pytest.raises(TypeError, match=name + ".*dtype"):
            f(4, dtype="float64", device=device)
        with pytest.raises(ValueError, match=name):
            f(4, device="nowhere")


@pytest.mark.parametrize("axes", [None, 0, -1, (0, 2), [2, 1, 0]])
def test_shifts(device, axes):
    a = np.arange(60, dtype="float32").reshape(3, 4, 5)
    x = arr(a, device)
    assert_array(fft.fftshift(x, axes=axes), np.fft.fftshift(a, axes=axes), dtype=xp.float32,
                 device=device)
    assert_array(fft.ifftshift(x, axes=axes), np.fft.ifftshift(a, axes=axes), dtype=xp.float32,
                 device=device)
    assert_array(fft.ifftshift(fft.fftshift(x, axes=axes), axes=axes), a)


def test_shift_errors_and_dtypes(device):
    c = arr(rand((5,), "complex64"), device)
    assert_array(fft.fftshift(c), np.fft.fftshift(to_np(c)), dtype=xp.complex64)
    i = arr(np.arange(5), device)
    assert_array(fft.fftshift(i), np.fft.fftshift(np.arange(5)), dtype=xp.int64)
    with pytest.raises(ValueError, match="fftshift.*axes"):
        fft.fftshift(c, axes=1)
    with pytest.raises(ValueError, match="ifftshift.*repeats"):
        fft.ifftshift(arr(np.ones((2, 2)), device), axes=(0, 0))
    with pytest.raises(TypeError, match="fftshift"):
        fft.fftshift(c, axes=0.5)


def test_all_names():
    assert fft.__all__ == ["fft", "ifft", "fftn", "ifftn", "rfft", "irfft", "rfftn", "irfftn",
                           "hfft", "ihfft", "fftfreq", "rfftfreq", "fftshift", "ifftshift"]
    assert xp.fft is fft
