"""Shared test helpers: NumPy is the oracle."""

import numpy as np

import numr


def to_np(x):
    """The contents of a numr array as a NumPy array (through the host)."""
    assert isinstance(x, numr.Array), f"expected a numr.Array, got {type(x).__name__}"
    return np.asarray(x.to_device("cpu"))


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
