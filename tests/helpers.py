"""Shared test helpers: NumPy is the oracle."""

import numpy as np

import numr
from numr._devices import Device, all_devices
from numr.backends import load_backend


def to_np(x):
    """The contents of a numr array as a NumPy array (through the host)."""
    assert isinstance(x, numr.Array), f"expected a numr.Array, got {type(x).__name__}"
    return np.asarray(x.to_device("cpu"))


def arr(a, device, dtype=None):
    """``a`` as a numr array on ``device``; with ``dtype`` (a numr dtype), converted by
    NumPy first, as the oracle converts it (every test file builds its arrays here)."""
    if dtype is not None:
        a = np.asarray(a, dtype=dtype.name)
    return numr.asarray(a, device=device)


def random_array(rng, shape, dtype="float64"):
    """Standard normal values of ``dtype`` drawn from ``rng`` (both parts for complex)."""
    a = rng.standard_normal(shape)
    if np.dtype(dtype).kind == "c":
        a = a + 1j * rng.standard_normal(shape)
    return a.astype(dtype)


def assert_array(x, expected, *, dtype=None, device=None, rtol=1e-7, atol=0.0):
    """x is a numr array with the given dtype/device whose values match ``expected``."""
    got = to_np(x)
    exp = np.asarray(expected)
    if dtype is not None:
        assert x.dtype == dtype, f"dtype {x.dtype} != {dtype}"
        assert got.dtype == np.dtype(dtype.name), f"native dtype {got.dtype} != {dtype}"
    if device is not None:
        assert x.device == device, f"device {x.device} != {device}"
    assert got.shape == exp.shape, f"shape {got.shape} != {exp.shape}"
    if got.dtype.kind in "fc" or exp.dtype.kind in "fc":
        np.testing.assert_allclose(got, exp, rtol=rtol, atol=atol, equal_nan=True)
    else:
        np.testing.assert_array_equal(got, exp)


# --- devices for mixed-device and narrow-device tests -------------------------------

def other_device(device=None):
    """A device other than ``device``: a real non-CPU one where this machine has one, else
    a stand-in served by the NumPy backend (kind 'cuda', index 99), so mixed-device checks
    run on every machine."""
    for d in all_devices():
        if d.kind != "cpu" and d is not device:
            return d
    backend = load_backend("cpu")
    d = Device("cuda", 99, backend, None)
    d.ops = backend.make_ops(d)
    return d


def on(values, dtype, dev):
    """An array on ``dev`` (which may be a stand-in device numr's registry does not know)."""
    return numr.Array._new(dev.ops.from_host(np.asarray(values, dtype=dtype.name)), dtype, dev)


class _Narrow:
    """A backend wrapper that holds no 64-bit float dtypes and defaults to 32 bits, the
    way a WebGPU adapter without shader-f64 does."""

    def __init__(self, backend):
        self.backend = backend

    def dtypes(self, index):
        return tuple(d for d in self.backend.dtypes(index)
                     if d not in (numr.float64, numr.complex128))

    def default_dtypes(self, index):
        return {"real floating": numr.float32, "complex floating": numr.complex64,
                "integral": numr.int32, "indexing": numr.int32}


def narrow_twin(device):
    """A device with ``device``'s ops but without float64/complex128."""
    return Device(device.kind, device.index, _Narrow(device.backend), device.ops)


def flushes_subnormals(device) -> bool:
    """Whether ``device`` flushes float32 subnormals to zero (docs/cuda.md, docs/webgpu.md):
    CuPy compiles with -ftz=true, NVIDIA's Vulkan driver flushes too; NumPy serving cuda:0
    under NUMR_TEST_EMULATE_GPU=1 keeps them."""
    import os
    emulated = os.environ.get("NUMR_TEST_EMULATE_GPU") == "1"
    return (device.kind == "cuda" and not emulated
            or device.kind == "webgpu" and "nvidia" in device.name.lower())
