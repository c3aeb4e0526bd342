"""numr.nn gives the same bits for the same inputs, wherever its arrays lie in memory.

The CPU kernels' row sums are vectorised (reassociated): a reassociated loop that also
stored gave LLVM a run-time overlap check that fell back to the scalar loop, another
summation order, when two arrays lay close together, so one call could differ from the
next by a rounding (numr/nn/_cpu.py, _sum).
"""

import itertools

import numpy as np
import pytest

import numr as xp
from numr import nn
from numr.nn import _cpu

from tests.helpers import arr, to_np

ROWS, N = 3, 5  # small: malloc puts such arrays next to each other
DTYPES = [xp.float64, xp.float32, xp.float16, xp.bfloat16]


def _host(seed, shape):
    return np.random.default_rng(seed).standard_normal(shape) + 0.5


def _calls(device, dtype):
    """Each norm, forward and backward, as a function of fresh input arrays."""
    x, r, w, b, g = (_host(i, s) for i, s in enumerate(
        [(ROWS, N), (ROWS, N), (N,), (N,), (ROWS, N)]))

    def a(h):
        return arr(h, device, dtype)

    return {
        "rms_norm": lambda: [nn.rms_norm(a(x), a(w))],
        "layer_norm": lambda: [nn.layer_norm(a(x), a(w), a(b))],
        "add_rms_norm": lambda: list(nn.add_rms_norm(a(x), a(r), a(w))),
        "add_layer_norm": lambda: list(nn.add_layer_norm(a(x), a(r), a(w), a(b))),
        "rms_norm_backward": lambda: list(nn.rms_norm_backward(a(g), a(x), a(w))),
        "add_layer_norm_backward": lambda: list(
            nn.add_layer_norm_backward(a(g), a(r), a(x), a(w), a(b))),
    }


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_repeated_calls_give_identical_bits(dtype, device):
    if dtype not in device.dtypes:
        pytest.skip(f"{device} does not hold {dtype}")
    for name, call in _calls(device, dtype).items():
        first = [to_np(o).tobytes() for o in call()]
        junk = []
        for i in range(30):  # allocations in between move where the next arrays lie
            junk.append(np.empty(1 + 7 * i))
            got = [to_np(o).tobytes() for o in call()]
            assert got == first, f"{name} {dtype}: call {i + 1} differs from the first"


def test_cpu_kernel_result_does_not_depend_on_layout():
    """The forward and backward kernels on x, r, s and the work rows laid out next to
    each other in every order, against the same arrays far apart."""
    x, r, w = _host(0, (ROWS, N)), _host(1, (ROWS, N)), _host(2, (N,))
    gy = _host(3, (ROWS, N))

    def lay(order, gap):
        raw = np.zeros(6 * (ROWS * 2 * N + gap))
        pos, out = 0, {}
        for k in order:
            size = 2 * N if k == "work" else ROWS * N
            out[k] = raw[pos:pos + size]
            pos += size + gap
        return out

    def forward(order, gap):
        m = lay(order, gap)
        xx, rr = m["x"].reshape(ROWS, N), m["r"].reshape(ROWS, N)
        xx[...], rr[...] = x, r
        y = m["y"].reshape(ROWS, N)
        _cpu._fwd_kernel(xx, rr, w, np.zeros(N), y, m["s"].reshape(ROWS, N),
                         m["work"][:N].reshape(1, N), 1e-5, False, True, True)
        return y.copy()

    def backward(order, gap):
        m = lay(order, gap)
        ss, gg = m["x"].reshape(ROWS, N), m["r"].reshape(ROWS, N)
        ss[...], gg[...] = x, gy
        gx = m["y"].reshape(ROWS, N)
        pw, pb = np.zeros((1, N)), np.zeros((1, N))
        _cpu._bwd_kernel(gg, ss, gg, w, gx, pw, pb, m["work"].reshape(1, 2, N), 1e-5,
                         True, False, True, True)
        return np.concatenate([gx.ravel(), pw.ravel(), pb.ravel()])

    for kernel in (forward, backward):
        far = kernel(("x", "r", "y", "s", "work"), 1000)
        for order in itertools.permutations(("x", "r", "s", "work")):
            for gap in (0, 3):
                got = kernel(order + ("y",), gap)
                assert got.tobytes() == far.tobytes(), (kernel.__name__, order, gap)
