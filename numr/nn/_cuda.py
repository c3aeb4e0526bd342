"""numr.nn on CUDA: the kernels for each call, launched on the arrays' GPU.

Two sets of CUDA C kernels (compiled through CuPy, cached per instantiation):

* ``_cuda_tiled``: float16, bfloat16 and float32 rows held in registers as loaded, the
  planning tuned per (dtype, norm) on the H200 (see that module);
* ``_cuda_general``: every dtype and width; it serves float64 and the rows wider than
  the register tile (and rms backward with a bias sum, which the tiled kernel has not).

Kernel functions take and return CuPy arrays, like the CPU module. They run with the
GPU of ``x`` (``s`` backward) current: CuPy launches on, and allocates from, the current
device, which need not be the arrays'. Under NUMR_TEST_EMULATE_GPU (NumPy arrays on
``cuda:0``) they return None, so the composite path runs.
"""

from __future__ import annotations

import numpy as np

from . import _cuda_general, _cuda_tiled
from ._cuda_common import available  # noqa: F401  (for tests and benchmarks)


def norm_forward(x, residual, weight, bias, eps: float, center: bool, want_sum: bool):
    """(y, s) as numr.nn._cpu.norm_forward, on CuPy arrays; None for NumPy arrays."""
    if type(x) is np.ndarray:
        return None
    dev = x.data.device_id
    cp = _cuda_tiled._cp or _cuda_tiled._cupy()
    if dev == cp.cuda.runtime.getDevice():  # the common case: no device switch, and the
        # kernels called here (a frame and an argument tuple less: host work is much of a
        # small call's time, benchmarks/norms.py --host)
        out = _cuda_tiled.norm_forward(x, residual, weight, bias, eps, center, want_sum,
                                       dev=dev)
        if out is None:
            out = _cuda_general.norm_forward(x, residual, weight, bias, eps, center, want_sum)
        return out
    with cp.cuda.Device(dev):
        return _forward((x, residual, weight, bias, eps, center, want_sum), dev)


def _forward(args: tuple, dev: int):
    out = _cuda_tiled.norm_forward(*args, dev=dev)
    return _cuda_general.norm_forward(*args) if out is None else out


def norm_backward(grad_y, s, grad_s, weight, eps: float, center: bool, want_weight: bool,
                  want_bias: bool):
    """(grad_s_total, grad_weight, grad_bias) as numr.nn._cpu.norm_backward, on CuPy
    arrays; None for NumPy arrays."""
    if type(s) is np.ndarray:
        return None
    dev = s.data.device_id
    cp = _cuda_tiled._cp or _cuda_tiled._cupy()
    if dev == cp.cuda.runtime.getDevice():  # (as norm_forward)
        out = _cuda_tiled.norm_backward(grad_y, s, grad_s, weight, eps, center, want_weight,
                                        want_bias, dev=dev)
        if out is None:
            out = _cuda_general.norm_backward(grad_y, s, grad_s, weight, eps, center,
                                              want_weight, want_bias)
        return out
    with cp.cuda.Device(dev):
        return _backward((grad_y, s, grad_s, weight, eps, center, want_weight, want_bias), dev)


def _backward(args: tuple, dev: int):
    out = _cuda_tiled.norm_backward(*args, dev=dev)
    return _cuda_general.norm_backward(*args) if out is None else out
