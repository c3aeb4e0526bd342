"""numr from several threads at once and from finalizers.

Every device: a thread pool over the same arrays (issue 19's reproducer and a mixed
stress run, checked against NumPy), finalizers that compute on the device while the
garbage collector interrupts numr mid-op, and autograd's grad mode, which is per thread.
(WebGPU's runtime after a wgpu error: tests/backends/webgpu/test_runtime_errors.py.)
"""

import gc
import threading
import weakref
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

import numr
import numr.autograd as ag
from tests.helpers import to_np


def test_issue_reproducer(device):
    x = numr.ones((64, 64), device=device)
    with ThreadPoolExecutor(4) as ex:
        got = list(ex.map(lambda i: float(numr.sum(numr.sum(x * float(i), axis=0))),
                          range(200)))
    assert got == [4096.0 * i for i in range(200)]


def _worker(device, seed, rounds, shared, shared_np):
    """``rounds`` rounds of 12 ops each, every result checked against NumPy (one read
    back a round: the results go to the host in one concat): the number of ops done."""
    rng = np.random.default_rng(seed)
    ops = 0
    for r in range(rounds):
        a_np = rng.standard_normal((8, 6)).astype(np.float32)
        a = numr.asarray(a_np, device=device)                      # creation, upload
        b = a * 2.0 + shared[:, :6]                                # elementwise, broadcast
        b_np = a_np * 2.0 + shared_np[:, :6]
        s0 = numr.sum(b, axis=0)                                   # reductions over axes
        m1 = numr.max(b, axis=1)
        m = a @ numr.matrix_transpose(shared[:, :6])               # matmul
        row = b[r % 8]                                             # indexing
        cols = numr.take(b, numr.asarray([5, 0, 3], device=device), axis=1)
        z = numr.zeros((3,), device=device) + float(r)             # creation
        c = numr.cumulative_sum(numr.abs(a), axis=1)
        got = [b, s0, m1, m, row, cols, z, c]
        want = [b_np, b_np.sum(axis=0), b_np.max(axis=1), a_np @ shared_np[:, :6].T,
                b_np[r % 8], b_np[:, [5, 0, 3]], np.full(3, float(r), np.float32),
                np.cumsum(np.abs(a_np), axis=1)]
        flat = to_np(numr.concat([numr.reshape(g, (-1,)) for g in got]))  # transfer
        ops += 12
        np.testing.assert_allclose(flat, np.concatenate([w.ravel() for w in want]),
                                   rtol=1e-5, atol=1e-5)
    return ops


def test_threaded_stress(device):
    shared_np = np.linspace(-1, 1, 8 * 7, dtype=np.float32).reshape(8, 7)
    shared = numr.asarray(shared_np, device=device)
    with ThreadPoolExecutor(4) as ex:
        done = list(ex.map(lambda k: _worker(device, k, 25, shared, shared_np), range(4)))
    assert sum(done) == 4 * 25 * 12  # 1200 ops, every result checked
    # the shared array is intact and the device still answers
    np.testing.assert_array_equal(to_np(shared), shared_np)


class _Computes:
    """An object caught in a reference cycle whose finalizer computes on the device."""

    def __init__(self, device, k, out):
        self.x = numr.full((16,), float(k), device=device)
        self.k = k
        self.out = out
        self.me = self  # a cycle: only the cyclic collector frees it

    def __del__(self):
        self.out.append((self.k, float(numr.sum(self.x * 2.0 + 1.0))))


class _Holder:
    pass


def _fin(x, k, out):
    out.append((k, float(numr.sum(x * 3.0))))


def test_finalizers_compute_during_recording(device):
    """Finalizers (``__del__`` and weakref.finalize) that compute on the device run
    while numr records ops: gc runs at almost every allocation, so collections land in
    the middle of recording (and of submitting and reading back)."""
    dels, fins = [], []
    base = numr.asarray(np.arange(32, dtype=np.float32), device=device)
    threshold = gc.get_threshold()
    gc.collect()
    gc.set_threshold(3, 1, 1)
    try:
        chain = []
        for k in range(150):
            _Computes(device, k, dels)                     # garbage at once (a cycle)
            holder = _Holder()
            holder.x = numr.full((16,), float(k), device=device)
            holder.me = holder                             # a cycle with a finalizer
            weakref.finalize(holder, _fin, holder.x, k, fins)
            del holder
            y = base * float(k) + 1.0                      # recording meanwhile
            chain.append((k, numr.sum(y[1:]), y))
        gc.collect()
        for k, s, y in chain:
            assert float(s) == float(k * sum(range(1, 32)) + 31)
            np.testing.assert_array_equal(to_np(y), np.arange(32, dtype=np.float32) * k + 1)
    finally:
        gc.set_threshold(*threshold)
    gc.collect()
    assert sorted(dels) == [(k, 16 * (2.0 * k + 1.0)) for k in range(150)]
    assert sorted(fins) == [(k, 16 * 3.0 * k) for k in range(150)]


def test_grad_mode_is_per_thread(device):
    x = numr.asarray([1.0, 2.0, 3.0], device=device)
    seen = {}
    in_no_grad = threading.Event()
    main_checked = threading.Event()

    def work():
        seen["start"] = ag.is_grad_enabled()          # a new thread: grad on
        w = ag.Var(x, requires_grad=True)
        ag.sum(w * w).backward()
        seen["grad"] = to_np(w.grad)
        with ag.no_grad():
            in_no_grad.set()
            main_checked.wait(10)
            seen["inside"] = ag.is_grad_enabled()     # main left its no_grad meanwhile
        seen["after"] = ag.is_grad_enabled()

    with ag.no_grad():
        t = threading.Thread(target=work)
        t.start()
        in_no_grad.wait(10)
        assert not ag.is_grad_enabled()
    assert ag.is_grad_enabled()                       # the worker's no_grad is its own
    main_checked.set()
    t.join(10)
    assert seen["start"] is True
    np.testing.assert_array_equal(seen["grad"], [2.0, 4.0, 6.0])
    assert seen["inside"] is False and seen["after"] is True


def test_cuda_worker_threads_compute_on_the_arrays_gpu(device):
    """A thread that never chose a GPU computes each op on its array's GPU (the last
    one: every thread starts with GPU 0 current)."""
    if device.kind != "cuda":
        pytest.skip("CuPy's current GPU: cuda devices only")
    try:
        import cupy
    except ImportError:
        pytest.skip("NUMR_TEST_EMULATE_GPU: cuda:0 is the NumPy backend here, no CuPy")
    n = cupy.cuda.runtime.getDeviceCount()
    dev = numr.asarray([0.0], device=f"cuda:{n - 1}").device
    x = numr.asarray(np.arange(1000, dtype=np.float32), device=dev)

    def work(k):
        y = numr.sum(x * float(k), axis=0)
        assert y._data.device.id == n - 1
        return float(y)

    with ThreadPoolExecutor(4) as ex:
        got = list(ex.map(work, range(64)))
    assert got == [float(k * 499500) for k in range(64)]
