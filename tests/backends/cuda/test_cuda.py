"""What only a CUDA machine can show: zero-copy DLPack exchange with CuPy and PyTorch,
streams, transfers, running out of GPU memory, and arrays on a second GPU.

Every test here skips with its reason where CuPy or a GPU (or PyTorch, or a second GPU)
is missing; run the suite on a GPU machine to exercise them.
"""

import numpy as np
import pytest

import numr
from numr.backends import load_backend
from tests.helpers import assert_array, to_np

pytest.importorskip("cupy", reason="CuPy is not installed")
_CUDA = load_backend("cuda")
pytestmark = pytest.mark.skipif(_CUDA is None, reason="no CUDA device (no GPU)")


def _gpus() -> int:
    return len(_CUDA.device_indices()) if _CUDA is not None else 0


def test_cupy_shares_memory_both_ways():
    import cupy

    x = numr.asarray([1.0, 2.0, 3.0], device="cuda:0")
    c = cupy.from_dlpack(x)
    c[0] = 5.0
    assert float(x[0]) == 5.0  # same memory
    d = cupy.arange(4, dtype=cupy.float32)
    y = numr.from_dlpack(d)
    d[1] = 9.0
    assert str(y.device) == "cuda:0"
    assert float(y[1]) == 9.0 and y.dtype == numr.float32


def test_torch_shares_memory_both_ways():
    torch = pytest.importorskip("torch", reason="PyTorch is not installed")
    if not torch.cuda.is_available():
        pytest.skip("PyTorch has no CUDA here")
    x = numr.asarray([1.0, 2.0, 3.0], device="cuda:0")
    t = torch.from_dlpack(x)
    assert t.is_cuda and t.dtype == torch.float64
    t[2] = 7.0
    assert float(x[2]) == 7.0
    u = torch.arange(6, dtype=torch.float32, device="cuda:0").reshape(2, 3)
    y = numr.from_dlpack(u)
    u[0, 0] = -1.0
    assert str(y.device) == "cuda:0" and y.shape == (2, 3) and float(y[0, 0]) == -1.0
    # a copy, when asked for, is one
    z = numr.from_dlpack(u, copy=True)
    u[0, 1] = 42.0
    assert float(z[0, 1]) == 1.0


def test_dlpack_streams_and_devices():
    import cupy

    x = numr.asarray(np.arange(5.0), device="cuda:0")
    assert x.__dlpack_device__() == (2, 0)
    s = cupy.cuda.Stream(non_blocking=True)
    for stream in (None, 1, 2, s.ptr):
        assert cupy.from_dlpack(_Capsule(x, stream)).sum().item() == 10.0
    host = np.from_dlpack(_Capsule(x, None, dl_device=(1, 0)))  # a copy to the host
    assert host.tolist() == [0.0, 1.0, 2.0, 3.0, 4.0]
    with pytest.raises(BufferError, match="copy=False"):
        x.__dlpack__(dl_device=(1, 0), copy=False)


class _Capsule:
    """A consumer's view of x that asks for a given stream / device."""

    def __init__(self, x, stream, dl_device=None):
        self.x, self.stream, self.dl_device = x, stream, dl_device

    def __dlpack_device__(self):
        return self.dl_device or self.x.__dlpack_device__()

    def __dlpack__(self, stream=None, **kwargs):
        kwargs.pop("dl_device", None)
        return self.x.__dlpack__(stream=self.stream, dl_device=self.dl_device, **kwargs)


def test_transfers_between_cpu_and_cuda():
    a = np.arange(12, dtype=np.int16).reshape(3, 4)
    x = numr.asarray(a, device="cuda:0")
    assert str(x.device) == "cuda:0"
    assert_array(x.to_device("cpu"), a, dtype=numr.int16)
    back = numr.asarray(x.to_device("cpu"), device="cuda:0")
    assert str(back.device) == "cuda:0" and to_np(back).tolist() == a.tolist()
    h = numr.from_dlpack(x, device="cpu")
    assert str(h.device) == "cpu" and np.asarray(h).tolist() == a.tolist()
    with pytest.raises(ValueError, match="copy=False"):
        numr.from_dlpack(x, device="cpu", copy=False)
    with pytest.raises(TypeError, match="cuda:0"):
        np.asarray(x)  # no implicit conversion of GPU memory


def test_out_of_memory_is_a_memory_error_naming_the_size():
    with pytest.raises(MemoryError, match=r"\d[\d,]* bytes"):
        numr.empty((1 << 42,), dtype=numr.float64, device="cuda:0")  # 32 TiB
    # the device is still usable afterwards
    assert float(numr.sum(numr.ones(10, device="cuda:0"))) == 10.0


@pytest.mark.skipif(_gpus() < 2, reason="needs two GPUs")
def test_second_gpu_computes_there_and_refuses_mixing():
    x1 = numr.asarray([1.0, 2.0], device="cuda:1")
    y1 = numr.exp(x1) + 1.0
    assert str(y1.device) == "cuda:1"
    assert y1._data.device.id == 1  # CuPy's array lives on GPU 1
    s = numr.sum(y1 @ numr.ones(2, device="cuda:1"))
    assert s._data.device.id == 1
    x0 = numr.asarray([1.0, 2.0], device="cuda:0")
    with pytest.raises(ValueError, match="cuda:0.*cuda:1|cuda:1.*cuda:0"):
        x0 + x1
    moved = x1.to_device("cuda:0")
    assert moved._data.device.id == 0 and to_np(moved).tolist() == [1.0, 2.0]
