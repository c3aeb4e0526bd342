"""Measures numr.special's accuracy on every non-CPU device here, with the samples and
the error measure of tests/special/test_special.py, and prints the docs' table
(docs/special.md): the largest error in eps per function, device and dtype, and any
special-value (NaN / inf / sign) mismatches. The reference is SciPy's, or mpmath's where
the two differ by more than the test's MP_TOL (tests/special/test_special.py, MPMATH).

    python tools/special_accuracy.py                         # every non-CPU device here
    python tools/special_accuracy.py --devices cpu,webgpu    # the CPU (SciPy) too
"""

from __future__ import annotations

import argparse
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

import numr  # noqa: E402
from numr import special  # noqa: E402
from tests.special import test_special as T  # noqa: E402


def measure(dev, name):
    args, floor = T._samples(name)
    cells = []
    for d in (numr.float32, numr.float64):
        if d not in dev.dtypes:
            cells.append("-")
            continue
        nd = np.dtype(d.name)
        with np.errstate(all="ignore"):
            host = [a.astype(nd) for a in args]
        try:
            r = getattr(special, T.public(name)[0])(*[numr.asarray(h, device=dev) for h in host])
        except NotImplementedError:
            cells.append("not there")
            continue
        got = np.asarray(r.to_device("cpu"))
        fl = floor(host) if callable(floor) else floor
        ref = T._with_mpmath(name, host, got, T._device_reference(name, host, got, dev, d), nd, fl)
        err, bad = T._error(name, got, ref, nd, fl)
        cells.append(f"{err:.3g}" + (f" ({len(bad)} special values differ)" if len(bad) else ""))
    return cells


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--devices", default=None,
                    help="comma-separated devices (default: every non-CPU device here)")
    ap.add_argument("--funcs", default=",".join(T.CASES),
                    help="comma-separated kernels of the test's CASES (rzeta: zeta(x))")
    # the experiment of float32 arithmetic on CUDA for every function that can have it
    # (numr/special/_cuda.py, F32_CANDIDATES)
    ap.add_argument("--cuda-f32-native", action="store_true")
    a = ap.parse_args()
    if a.cuda_f32_native:
        from numr.special import _cuda

        _cuda.F32_NATIVE = _cuda.F32_CANDIDATES
    if a.devices:
        devs = [numr.Device(d) for d in a.devices.split(",")]
    else:
        devs = [d for d in numr.__array_namespace_info__().devices() if d.kind != "cpu"]
    head = " | ".join(f"{d} f32 | {d} f64" for d in devs)
    print(f"| function | {head} |\n|---|" + "---:|" * (2 * len(devs)))
    for name in a.funcs.split(","):
        cells = [c for d in devs for c in measure(d, name)]
        print(f"| {name} | " + " | ".join(cells) + " |", flush=True)


if __name__ == "__main__":
    main()
