"""The Array object: attributes, Python scalars, interchange, devices and info."""

import math
import os
import pickle
import subprocess
import sys

import numpy as np
import pytest

import numr
from tests.helpers import assert_array, to_np


def test_attributes(device):
    a = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    x = numr.asarray(a, device=device)
    assert x.dtype == numr.float32
    assert x.device == device
    assert x.shape == (2, 3, 4) and type(x.shape) is tuple
    assert x.ndim == 3 and x.size == 24
    assert_array(x.mT, np.swapaxes(a, -1, -2), dtype=numr.float32)
    assert_array(x[0].T, a[0].T)
    with pytest.raises(ValueError, match="Array.T"):
        x.T
    with pytest.raises(ValueError, match="Array.mT"):
        numr.asarray([1.0], device=device).mT


def test_constructor_is_refused():
    with pytest.raises(TypeError, match="numr.asarray"):
        numr.Array([1, 2])


@pytest.mark.parametrize("value,dtype", [(True, numr.bool), (-3, numr.int16), (2.5, numr.float32),
                                         (1 + 2j, numr.complex64)])
def test_python_scalars(device, value, dtype):
    x = numr.asarray(value, dtype=dtype, device=device)
    assert bool(x) is bool(value)
    assert complex(x) == complex(value)
    if dtype.kind != "complex":
        assert float(x) == float(value)
        assert int(x) == int(value)
    else:
        with pytest.raises(TypeError, match="__float__"):
            float(x)
        with pytest.raises(TypeError, match="__int__"):
            int(x)
    if dtype.kind == "int":
        assert [0, 1, 2, 3, 4][x] == [0, 1, 2, 3, 4][value]
    else:
        with pytest.raises(TypeError, match="__index__"):
            [0][x]


def test_scalar_conversion_of_many_elements_raises(device):
    x = numr.asarray([1.0, 2.0], device=device)
    with pytest.raises(ValueError, match="__bool__"):
        bool(x)
    with pytest.raises(TypeError, match="__float__"):
        float(x)


def test_special_float_conversions(device):
    assert math.isnan(float(numr.asarray(math.nan, device=device)))
    with pytest.raises(OverflowError):
        int(numr.asarray(math.inf, device=device))
    with pytest.raises(ValueError):
        int(numr.asarray(math.nan, device=device))


def test_namespace():
    x = numr.asarray([1])
    assert x.__array_namespace__() is numr
    assert x.__array_namespace__(api_version="2024.12") is numr
    assert numr.__array_api_version__ == "2025.12"
    with pytest.raises(ValueError, match="api_version"):
        x.__array_namespace__(api_version="2019.01")


def test_numpy_conversion_on_cpu():
    x = numr.asarray([1.0, 2.0])
    a = np.asarray(x)
    assert a.dtype == np.float64 and a.tolist() == [1.0, 2.0]
    assert np.asarray(x, dtype=np.float32).dtype == np.float32
    assert bytes(memoryview(np.asarray(x))) == a.tobytes()


def test_numpy_does_not_swallow_numr_arrays(device):
    x = numr.asarray([1.0, 2.0], dtype=numr.float32, device=device)
    y = np.float32(2.0) * x
    assert isinstance(y, numr.Array)
    assert_array(y, np.array([2.0, 4.0], np.float32), dtype=numr.float32)


def test_dlpack_roundtrip(device):
    x = numr.asarray([[1, 2], [3, 4]], dtype=numr.int16, device=device)
    assert x.__dlpack_device__()[1] == device.index
    if device.kind == "cpu":
        a = np.from_dlpack(x)
        assert a.dtype == np.int16 and a.tolist() == [[1, 2], [3, 4]]
        y = numr.from_dlpack(np.arange(3.0))
        assert_array(y, np.arange(3.0), dtype=numr.float64, device=device)


def test_to_device_same_and_bad(device):
    x = numr.asarray([1.0, 2.0], device=device)
    assert x.to_device(device) is x
    assert_array(x.to_device("cpu"), np.array([1.0, 2.0]), device=numr.__array_namespace_info__().devices()[0])
    with pytest.raises(ValueError, match="unknown device"):
        x.to_device("tpu:0")
    with pytest.raises(ValueError):
        x.to_device(42)


def test_repr_and_str(device):
    x = numr.asarray([1.5, 2.0], dtype=numr.float32, device=device)
    r = repr(x)
    assert r.startswith("Array([1.5, 2. ]") and "dtype=float32" in r and f"device={device}" in r
    assert str(x) == "[1.5 2. ]"


def test_len_and_iter(device):
    x = numr.asarray([[1, 2], [3, 4], [5, 6]], device=device)
    assert len(x) == 3
    rows = [to_np(r).tolist() for r in x]
    assert rows == [[1, 2], [3, 4], [5, 6]]
    with pytest.raises(TypeError):
        len(numr.asarray(1, device=device))
    # iter() itself refuses a 0-d array, as NumPy's does: np.iterable says False
    with pytest.raises(TypeError, match="iteration over a 0-d array"):
        iter(numr.asarray(1.0, device=device))
    assert not np.iterable(numr.asarray(1.0, device=device)) and np.iterable(x)


def test_unhashable():
    with pytest.raises(TypeError):
        hash(numr.asarray([1]))


def test_mixed_devices_raise_naming_both():
    devices = numr.__array_namespace_info__().devices()
    if len(devices) < 2:
        pytest.skip("needs two devices; this machine has only the CPU")
    x = numr.asarray([1.0], device=devices[0])
    y = numr.asarray([1.0], device=devices[1])
    with pytest.raises(ValueError, match=f"{devices[0]}.*{devices[1]}"):
        x + y


# --- devices and info -----------------------------------------------------------------

def test_device_objects():
    info = numr.__array_namespace_info__()
    cpu = info.devices()[0]
    assert isinstance(cpu, numr.Device)
    assert str(cpu) == "cpu" and cpu == "cpu"
    assert {cpu: 1}[info.default_device()] == 1
    assert pickle.loads(pickle.dumps(cpu)) is cpu
    assert numr.asarray([1]).device == cpu
    # a tuple, as the standard types it since 2025.12, to which SciPy's fixtures add a
    # list (info.devices() + [None]): a list, numr's registry left alone
    devs = info.devices()
    assert isinstance(devs, tuple) and devs == info.devices()
    with_none = devs + [None]
    assert type(with_none) is list and with_none == [*devs, None]
    assert [None] + devs == [None, *devs] and devs + (None,) == (*devs, None)
    assert None not in info.devices()


def test_info_dtypes(device):
    info = numr.__array_namespace_info__()
    all_ = info.dtypes(device=device)
    assert set(all_) <= {"bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32",
                         "uint64", "float32", "float64", "complex64", "complex128"}
    if device.kind == "cpu":
        assert len(all_) == 13  # float16 is an extension: never listed
    assert set(info.dtypes(device=device, kind="integral")) <= {
        "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"}
    assert set(info.dtypes(device=device, kind=("bool", "real floating"))) == (
        {"bool"} | {k for k in all_ if k.startswith("float")})
    with pytest.raises(ValueError, match="kind"):
        info.dtypes(kind="floating")
    d = info.default_dtypes(device=device)
    assert set(d) == {"real floating", "complex floating", "integral", "indexing"}
    assert info.capabilities()["boolean indexing"] is True
    assert info.capabilities()["data-dependent shapes"] is True


def test_dtype_objects():
    assert numr.float32 == numr.float32 and numr.float32 != numr.float64
    assert numr.float32 != "float32"
    assert pickle.loads(pickle.dumps(numr.int8)) is numr.int8
    assert repr(numr.uint16) == "numr.uint16"
    assert len({numr.int8, numr.int8, numr.int16}) == 2


def test_numr_device_environment_variable():
    code = "import numr; print(numr.__array_namespace_info__().default_device())"
    env = dict(os.environ, NUMR_DEVICE="cpu")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert out.stdout.strip() == "cpu"
    env["NUMR_DEVICE"] = "tpu"
    out = subprocess.run([sys.executable, "-c", code + "; numr.asarray(1)"], env=env,
                         capture_output=True, text=True)
    assert out.returncode != 0 and "unknown device 'tpu'" in out.stderr


def test_set_default_device():
    cpu = numr.__array_namespace_info__().devices()[0]
    previous = numr.set_default_device("cpu")
    try:
        assert numr.asarray([1]).device == cpu
    finally:
        numr.set_default_device(previous)


def test_copy_deepcopy_and_pickle_copy_the_data(device):
    import copy

    x = numr.asarray([1.0, 2.0, 3.0], device=device)
    for y in (copy.copy(x), copy.deepcopy(x), copy.deepcopy([x])[0]):
        assert y.device == device and y.dtype == x.dtype
        y[0] = 9.0
        assert_array(x, [1.0, 2.0, 3.0])
        assert_array(y, [9.0, 2.0, 3.0])
    z = pickle.loads(pickle.dumps(x))
    assert z.device == device and z.dtype == x.dtype
    assert_array(z, [1.0, 2.0, 3.0])


# --- issue 19: edge input, the same answer on every device ----------------------------------

def test_format_of_0d_arrays(device):
    x = numr.asarray(1.23456, device=device)
    assert f"{x:.3f}" == "1.235" and f"{x:g}" == "1.23456" and f"{x}" == str(x)
    assert f"{numr.asarray(7, device=device):03d}" == "007"
    with pytest.raises(TypeError, match=r"Array.__format__.*shape \(2,\)"):
        f"{numr.ones(2, device=device):.3f}"


def test_dlpack_argument_checks(device):
    x = numr.ones(2, device=device)
    with pytest.raises(TypeError, match="__dlpack__: copy"):
        x.__dlpack__(copy="yes")
    with pytest.raises(TypeError, match="__dlpack__: max_version"):
        x.__dlpack__(max_version=1)
    with pytest.raises(TypeError, match="__dlpack__: dl_device"):
        x.__dlpack__(dl_device="cpu")
    if device.kind in ("cpu", "webgpu"):
        with pytest.raises(ValueError, match="__dlpack__: .* no streams; stream must be None"):
            x.__dlpack__(stream=1)
        x.__dlpack__(stream=-1)


def test_read_only_views_refuse_writes(device):
    # WebGPU wrote through a broadcast view into b and every row
    b = numr.asarray([1.0, 2.0], device=device)
    x = numr.broadcast_to(b, (3, 2))
    y = numr.broadcast_arrays(b, numr.ones((3, 1), device=device))[0]
    writes = [lambda: x.__setitem__((0, 0), 5.0), lambda: x.__setitem__(slice(None), b),
              lambda: x[0].__setitem__(0, 5.0), lambda: y.__setitem__((1, 1), 0.0),
              lambda: numr.expand_dims(x, axis=0).__setitem__((0, 0, 0), 1.0),
              lambda: numr.permute_dims(x, (1, 0)).__setitem__((0, 0), 1.0),
              lambda: x.__setitem__(numr.asarray([0], device=device), 1.0)]
    if type(x._data).__module__.startswith("cupy"):
        # CuPy keeps no read-only flag: numr refuses writes where elements repeat, but a row
        # of a broadcast view is an ordinary view there (docs/devices.md says so)
        writes.remove(writes[2])
        assert x[0]._device.ops.writable(x[0]._data)
    for w in writes:
        with pytest.raises(ValueError, match="setitem: the array is read-only"):
            w()
    with pytest.raises(ValueError, match=r"add \(in place\): the array is read-only"):
        x += 1.0
    assert_array(b, [1.0, 2.0])
    c = numr.asarray(x, copy=True)
    c[0, 0] = 5.0
    assert_array(c, [[5.0, 2.0], [1.0, 2.0], [1.0, 2.0]])
    b[0] = 7.0  # the base stays writable, and the view sees it
    assert_array(x, [[7.0, 2.0]] * 3)


def test_in_place_on_empty_arrays(device):
    # nothing repeats in an empty array: in-place ops work (CuPy gives some zero strides,
    # which numr's repeated-element check once took for a broadcast view)
    x = numr.eye(0, 21, device=device)
    m = x == 0.0
    m |= x != 0.0
    x += 1.0
    assert m.shape == x.shape == (0, 21) and m.dtype == numr.bool


# --- from the WebGPU backend's tests, on every device -------------------------------

@pytest.mark.parametrize("dtype", ["bool", "int8", "uint8", "int16", "uint16", "int32",
                                   "uint32", "float16", "float32"])
def test_round_trip_and_views(dtype, device):
    h = (np.arange(60) % 7 - 3).astype(dtype).reshape(3, 4, 5)
    a = numr.asarray(h, device=device)
    np.testing.assert_array_equal(to_np(a), h)
    np.testing.assert_array_equal(to_np(a[1:, ::-2, 3]), h[1:, ::-2, 3])
    np.testing.assert_array_equal(to_np(numr.permute_dims(a, (2, 0, 1))), h.transpose(2, 0, 1))
    np.testing.assert_array_equal(to_np(numr.flip(a, axis=1)), h[:, ::-1])
    np.testing.assert_array_equal(to_np(numr.reshape(a, (12, 5))), h.reshape(12, 5))


def test_in_place_operators_use_assign(device):
    h = np.arange(12, dtype=np.int16).reshape(3, 4)
    a = numr.asarray(h, device=device)
    view = a[1]
    a += numr.asarray(np.arange(4, dtype=np.int16), device=device)
    a *= 3
    h += np.arange(4, dtype=np.int16)
    h *= 3
    np.testing.assert_array_equal(to_np(a), h)
    np.testing.assert_array_equal(to_np(view), h[1])   # written in place, views see it
