"""Benchmark numr.special on CUDA and WebGPU against cupyx.scipy.special, same run.

    python benchmarks/special.py                         # 16M elements, float32 and float64
    python benchmarks/special.py --n 1048576 --funcs erf,ndtr --devices webgpu

Each function is timed as a user's loop calls it: ``--calls`` calls back to back from
Python (numr arrays in, numr array out), the device synchronised at the end
(``numr.synchronize``), the time per call the median of ``--reps`` such loops after a
warm-up call (which compiles the kernel); the anchor, ``cupyx.scipy.special`` on CuPy
arrays of the same values, the same way (``cupy.cuda.Device().synchronize()``). Ratios
are numr's time over CuPy's (goal: cuda <= 1.05, webgpu <= 1.5). Inputs lie in each
function's domain. Functions cupyx lacks are timed without an anchor.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

import numr  # noqa: E402
from numr import special  # noqa: E402
from benchmarks import _results  # noqa: E402

# name -> a function of (rng, n) giving the arguments (host float64 arrays)
_U = lambda lo, hi: (lambda rng, n: rng.uniform(lo, hi, n))  # noqa: E731
DOMAIN = {
    "erf": [_U(-4, 4)], "erfc": [_U(-4, 10)], "erfcx": [_U(-2, 30)], "erfinv": [_U(-1, 1)],
    "erfcinv": [_U(0, 2)], "expit": [_U(-20, 20)], "logit": [_U(0, 1)],
    "softplus": [_U(-20, 20)], "ndtr": [_U(-10, 10)], "log_ndtr": [_U(-30, 10)],
    "ndtri": [_U(0, 1)], "gammaln": [_U(-10, 50)], "gamma": [_U(-10, 50)],
    "psi": [_U(-10, 50)], "digamma": [_U(-10, 50)], "entr": [_U(0, 10)],
    "i0": [_U(-30, 30)], "i0e": [_U(-30, 30)], "i1": [_U(-30, 30)], "i1e": [_U(-30, 30)],
    "xlogy": [_U(-2, 2), _U(0, 10)], "xlog1py": [_U(-2, 2), _U(-0.5, 10)],
    "rel_entr": [_U(0, 5), _U(0, 5)], "gammainc": [_U(0.1, 20), _U(0, 30)],
    "gammaincc": [_U(0.1, 20), _U(0, 30)], "chdtr": [_U(0.1, 20), _U(0, 30)],
    "chdtrc": [_U(0.1, 20), _U(0, 30)], "betainc": [_U(0.1, 10), _U(0.1, 10), _U(0, 1)],
    "betaincc": [_U(0.1, 10), _U(0.1, 10), _U(0, 1)], "stdtr": [_U(0.5, 30), _U(-10, 10)],
    "beta": [_U(0.1, 10), _U(0.1, 10)], "betaln": [_U(0.1, 50), _U(0.1, 50)],
    "j0": [_U(-50, 50)], "j1": [_U(-50, 50)], "y0": [_U(0, 50)], "y1": [_U(0, 50)],
    "k0": [_U(0, 50)], "k1": [_U(0, 50)], "k0e": [_U(0, 50)], "k1e": [_U(0, 50)],
    "ellipk": [_U(-5, 1)], "ellipe": [_U(-5, 1)],
    "polygamma": [lambda rng, n: rng.integers(1, 4, n).astype(float), _U(0.1, 50)],
    "zeta": [_U(1.1, 20), _U(0.1, 50)],
}


def _time(fn, sync, reps: int, calls: int) -> float:
    fn()
    sync()
    ts = []
    for _ in range(reps):
        t = time.perf_counter()
        for _ in range(calls):
            fn()
        sync()
        ts.append((time.perf_counter() - t) / calls)
    return statistics.median(ts)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=16 * 1024 * 1024)
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--calls", type=int, default=10)
    ap.add_argument("--funcs", default=",".join(DOMAIN))
    ap.add_argument("--devices", default="cuda,webgpu")
    ap.add_argument("--dtypes", default="float32,float64")
    # an experiment: every float32 function on webgpu computed in float64 inside its
    # float32 kernel (numr.special._webgpu.F64_FOR_F32 holding every function), where
    # the adapter has float64
    ap.add_argument("--webgpu-f32-in-f64", action="store_true")
    # an experiment: float32 arithmetic on cuda for every function that can have it
    # (numr/special/_cuda.py, F32_CANDIDATES)
    ap.add_argument("--cuda-f32-native", action="store_true")
    # an experiment: the functions of numr's own float32 CUDA kernels (ENTRIES_F32)
    # computing float32 in float64 instead, as they did before
    ap.add_argument("--cuda-f32-in-f64", action="store_true")
    # an experiment: every function's webgpu kernel evaluating several elements an
    # invocation (numr.special._webgpu.VEC holding every function; float32 only)
    ap.add_argument("--webgpu-vec", action="store_true")
    _results.add_flag(ap)
    a = ap.parse_args()
    results_page = _results.start(a, "special", a.devices)
    if a.webgpu_f32_in_f64:
        from numr.special import _exprs, _webgpu

        _webgpu.F64_FOR_F32 = frozenset(_exprs.EXPR)
    if a.webgpu_vec:
        from numr.special import _exprs, _webgpu

        _webgpu.VEC = frozenset(_exprs.EXPR)
    if a.cuda_f32_native:
        from numr.special import _cuda

        _cuda.F32_NATIVE = _cuda.F32_CANDIDATES
    if a.cuda_f32_in_f64:
        from numr.special import _cuda_src

        _cuda_src.ENTRIES_F32 = {}
    try:
        import cupy
        import cupyx.scipy.special as csp
    except ImportError:
        cupy = csp = None
        print("# CuPy is not installed: no anchor")
    rng = np.random.default_rng(0)
    devices = [d for d in a.devices.split(",") if d]
    print(f"# n = {a.n}, {a.calls} calls back to back, median of {a.reps}; "
          "ratio = numr time / cupyx time")
    print("| function | dtype | cupyx ms | " + " | ".join(f"{d} ms | {d} ratio" for d in devices) + " |")
    print("|---|---|---:|" + "---:|---:|" * len(devices))
    for name in a.funcs.split(","):
        for dtn in a.dtypes.split(","):
            host = [g(rng, a.n).astype(dtn) for g in DOMAIN[name]]
            ref = None
            f = getattr(csp, "psi" if name == "digamma" else name, None) if csp else None
            if f is not None:
                cargs = [cupy.asarray(h) for h in host]
                ref = _time(lambda: f(*cargs), cupy.cuda.Device().synchronize, a.reps,
                            a.calls)
            row = [name, dtn, f"{ref * 1e3:.3f}" if ref else "-"]
            for dev in devices:
                try:
                    xs = [numr.asarray(h, device=dev) for h in host]
                    g = getattr(special, name)
                    t = _time(lambda: g(*xs), lambda: numr.synchronize(xs[0].device), a.reps,
                              a.calls)
                    row += [f"{t * 1e3:.3f}", f"{t / ref:.2f}" if ref else "-"]
                except (NotImplementedError, ValueError, TypeError) as e:
                    row += ["-", type(e).__name__]
            print("| " + " | ".join(row) + " |", flush=True)
    results_page.finish()


if __name__ == "__main__":
    main()
