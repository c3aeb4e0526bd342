"""float16 in the namespace, as numr.nn relies on it (extension dtype, not listed by
info.dtypes(); promotes with float32 to float32; elementwise, astype, transfers; not
creatable on a device that does not hold it)."""

import numpy as np
import pytest

import numr as xp
from numr import _dtypes as dt
from numr._devices import Device
from numr.backends import load_backend
from tests.helpers import to_np


def test_float16_namespace(device):
    if xp.float16 not in device.dtypes:
        pytest.skip(f"{device} does not hold float16")
    assert "float16" not in xp.__array_namespace_info__().dtypes(device=device)
    x = xp.asarray([1.5, -2.0], dtype=xp.float16, device=device)
    y = xp.ones(2, dtype=xp.float32, device=device)
    assert xp.result_type(xp.float16, xp.float32) == xp.float32
    assert (x + y).dtype == xp.float32 and (x * x).dtype == xp.float16
    assert xp.exp(x).dtype == xp.float16
    np.testing.assert_array_equal(to_np(xp.astype(x, xp.float32)), [1.5, -2.0])
    assert xp.astype(y, xp.float16).dtype == xp.float16
    assert x.to_device("cpu").dtype == xp.float16


def _no_f16_device():
    """A stand-in device whose backend holds no float16 (a WebGPU adapter without
    shader-f16), served by the NumPy backend."""
    cpu = load_backend("cpu")

    class NoF16(type(cpu)):
        def dtypes(self, index):
            return dt.STANDARD

    b = NoF16()
    d = Device("webgpu", 96, b, None)
    d.ops = b.make_ops(d)
    return d


def test_float16_refused_where_not_held():
    d = _no_f16_device()
    for f in (lambda: xp.zeros(3, dtype=xp.float16, device=d),
              lambda: xp.asarray([1.0], dtype=xp.float16, device=d),
              lambda: xp.astype(xp.zeros(2, device=d), xp.float16)):
        with pytest.raises(TypeError, match="float16 is not available on device webgpu:96"):
            f()


def test_asarray_numpy_float16_refused_where_not_held():
    d = _no_f16_device()
    with pytest.raises(TypeError):
        xp.asarray(np.zeros(2, np.float16), device=d)
