"""numr's documented extensions around devices: Device from a string, names and memory,
synchronize, the default-device block, tolist/item, save/load, pickling, and the errors at
the boundaries (NumPy arrays, autograd Vars, absent devices, axes)."""

import pickle
import threading
import warnings

import numpy as np
import pytest

import numr
from numr._array import _unpickle
from numr.backends import load_backend


def test_device_from_string(device):
    assert numr.Device(str(device)) is device
    assert numr.Device(device) is device
    assert isinstance(device.name, str) and device.name
    total = device.total_memory
    assert total is None or (isinstance(total, int) and total > 2**20)
    if device.kind == "webgpu":
        assert total is None  # WebGPU tells no memory size


@pytest.mark.parametrize("spec", ["tpu:0", "cuda:x", "cpu:3", ""])
def test_unknown_device_names_the_string(spec):
    with pytest.raises(ValueError, match=f"numr.Device: .*{spec!r}"):
        numr.Device(spec)


def test_absent_cuda_names_cupy_and_the_extra():
    if load_backend("cuda") is not None:
        assert numr.Device("cuda:0").kind == "cuda"
        with pytest.raises(ValueError, match="cuda:4096"):
            numr.Device("cuda:4096")
        return
    with pytest.raises(ValueError, match=r"cuda:0.*CuPy.*\[cuda12\]"):
        numr.Device("cuda:0")


def test_synchronize_and_memory_info(device):
    x = numr.ones(2**18, dtype=numr.float32, device=device)  # 1 MiB
    numr.synchronize(device)
    info = numr.memory_info(device)
    assert set(info) == {"in_use", "pooled", "total"}
    assert info["total"] == device.total_memory
    if info["in_use"] is not None:
        assert info["in_use"] >= 2**20
        del x
        after = numr.memory_info(device)
        assert after["in_use"] <= info["in_use"] - 2**20
        numr.empty_cache(device)
        emptied = numr.memory_info(device)["pooled"]
        # CuPy keeps the free parts of chunks that live arrays still use; WebGPU drops all
        assert emptied <= after["pooled"] and (device.kind != "webgpu" or emptied == 0)
    else:
        assert float(numr.sum(x)) == 2**18


def test_default_device_block_is_per_thread(device):
    outside = numr.default_device()
    seen = {}

    def other_thread():
        seen["other"] = numr.ones(1).device

    with numr.default_device(str(device)) as d:
        assert d is device
        assert numr.ones(2).device is device
        assert numr.default_device() is device
        with numr.default_device("cpu"):
            assert numr.zeros(1).device == "cpu"
        assert numr.arange(3).device is device
        t = threading.Thread(target=other_thread)
        t.start()
        t.join()
    assert seen["other"] is outside
    assert numr.default_device() is outside
    with pytest.raises(ValueError, match="default_device: unknown device 'gpu'"):
        numr.default_device("gpu")


def test_tolist_and_item(device):
    a = np.arange(6, dtype=np.int32).reshape(2, 3)
    x = numr.asarray(a, device=device)
    assert x.tolist() == a.tolist() and type(x.tolist()[0][0]) is int
    assert x[1, 2].item() == 5 and type(x[1, 2].item()) is int
    assert numr.asarray([[2.5]], device=device).item() == 2.5
    assert numr.asarray(True, device=device).item() is True
    assert numr.asarray(1.5, device=device).tolist() == 1.5
    with pytest.raises(ValueError, match=r"Array.item: .*shape \(2, 3\)"):
        x.item()


def test_save_and_load(device, tmp_path):
    a = np.linspace(-1, 1, 12, dtype=np.float32).reshape(3, 4)
    x = numr.asarray(a, device=device)
    numr.save(tmp_path / "x.npy", x)
    np.testing.assert_array_equal(np.load(tmp_path / "x.npy"), a)
    y = numr.load(tmp_path / "x.npy", device=device)
    assert y.device is device and y.dtype == numr.float32 and y.shape == (3, 4)
    np.testing.assert_array_equal(np.asarray(y.to_device("cpu")), a)
    np.save(tmp_path / "big.npy", a.astype(">i2"))  # another byte order
    z = numr.load(tmp_path / "big.npy", device=device)
    assert z.dtype == numr.int16 and z.tolist() == a.astype(np.int16).tolist()
    with numr.default_device(device):
        assert numr.load(tmp_path / "x.npy").device is device
    np.savez(tmp_path / "two.npz", a=a, b=a)
    with pytest.raises(ValueError, match=r"load: .*\.npz"):
        numr.load(tmp_path / "two.npz")
    np.save(tmp_path / "obj.npy", np.array([object()]), allow_pickle=True)
    with pytest.raises(ValueError, match="load: .*not an .npy array"):
        numr.load(tmp_path / "obj.npy")
    with pytest.raises(TypeError, match="save: expected a numr array, got numpy.ndarray"):
        numr.save(tmp_path / "n.npy", a)


def test_pickle_round_trip_and_absent_device(device):
    x = numr.asarray([1.0, 2.0, 3.0], dtype=numr.float32, device=device)
    y = pickle.loads(pickle.dumps(x))
    assert y.device is device and y.tolist() == [1.0, 2.0, 3.0]
    with pytest.warns(RuntimeWarning, match="webgpu:97.*loaded on the CPU"):
        z = _unpickle(np.asarray([1.0, 2.0], dtype=np.float32), "webgpu:97")
    assert z.device == "cpu" and z.dtype == numr.float32 and z.tolist() == [1.0, 2.0]


def test_numpy_operands_say_to_convert(device):
    x = numr.ones(3, device=device)
    n = np.ones(3)
    for f in (lambda: x + n, lambda: n + x, lambda: x < n, lambda: n * x, lambda: x @ n,
              lambda: n @ x, lambda: numr.add(x, n)):
        with pytest.raises(TypeError, match=r"numpy.ndarray; convert it with numr.asarray"):
            f()
    assert (np.float64(2.0) * x).tolist() == [2.0, 2.0, 2.0]  # NumPy scalars still work


def test_numpy_asarray_shares_cpu_memory():
    x = numr.zeros(3, dtype=numr.float64, device="cpu")
    a = np.asarray(x)
    a[1] = 5.0
    assert x.tolist() == [0.0, 5.0, 0.0]


def test_autograd_var_says_to_call_autograd(device):
    from numr.autograd import Var

    v = Var(numr.ones(3, device=device))
    for f in (lambda: numr.sin(v), lambda: numr.sum(v), lambda: numr.matmul(v, v),
              lambda: numr.multiply(v, 2.0)):
        with pytest.raises(TypeError, match="numr.autograd.Var; call numr.autograd's"):
            f()


def test_errors_are_exported_and_axis_errors_share_one_wording(device):
    assert issubclass(numr.AxisError, ValueError) and issubclass(numr.AxisError, IndexError)
    assert issubclass(numr.linalg.LinAlgError, ValueError)
    x = numr.ones((2, 3), device=device)
    idx = numr.asarray([0], device=device)
    for f, name in ((lambda: numr.sum(x, axis=2), "sum"),
                    (lambda: numr.take(x, idx, axis=-3), "take"),
                    (lambda: numr.tensordot(x, x, axes=([5], [0])), "tensordot"),
                    (lambda: numr.vecdot(x, x, axis=-4), "vecdot")):
        with pytest.raises(numr.AxisError, match=f"{name}: .*is out of range"):
            f()


def test_repr_of_an_empty_array_shows_its_shape(device):
    x = numr.zeros((0, 3), dtype=numr.float32, device=device)
    assert repr(x) == f"Array([], shape=(0, 3), dtype=float32, device={device})"
    assert "shape" not in repr(numr.ones(2, device=device))
