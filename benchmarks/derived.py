"""Per-call cost of the derived ops (numr/backends/_derived.py) against NumPy's function.

The derived ops are compositions of a backend's primitives, written once; this prints,
for each one, numr's time per call on the CPU (or ``--device``), NumPy's, and the ratio,
for a small (8 x 8) and a larger (512 x 512) float64 array. Run it on two checkouts to
see what composing through the primitives costs:

    python benchmarks/derived.py [--device cpu|webgpu:0] [--quick]

Timings are the minimum over interleaved rounds (numr and NumPy take turns).
"""

from __future__ import annotations

import argparse
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import numr  # noqa: E402
from benchmarks import _results  # noqa: E402


def cases(lib, side, device):
    """name -> zero-argument callable, for numr or numpy at matrices of side x side."""
    rng = np.random.default_rng(0)
    m_np = rng.standard_normal((side, side)) + 4 * np.eye(side)
    v_np = rng.integers(0, 64, side * side).astype(np.float64)
    if lib == "numpy":
        xp, m, v, la, fft = np, m_np, v_np, np.linalg, np.fft
        t = m.reshape(side, side, 1)
    else:
        xp, la, fft = numr, numr.linalg, numr.fft
        m, v = numr.asarray(m_np, device=device), numr.asarray(v_np, device=device)
        t = numr.reshape(m, (side, side, 1))
    return {
        "zeros_like": lambda: xp.zeros_like(m),
        "full_like": lambda: xp.full_like(m, 2.0),
        "ones": lambda: xp.ones((side, side)) if lib == "numpy" else
        numr.ones((side, side), device=device),
        "matrix_transpose": (lambda: np.swapaxes(m, -1, -2)) if lib == "numpy" else
        (lambda: numr.matrix_transpose(m)),
        "moveaxis": lambda: xp.moveaxis(t, 0, 2),
        "unique_values": (lambda: np.unique(v)) if lib == "numpy" else
        (lambda: numr.unique_values(v)),
        "unique_counts": (lambda: np.unique(v, return_counts=True)) if lib == "numpy" else
        (lambda: numr.unique_counts(v)),
        "matrix_power 3": lambda: la.matrix_power(m, 3),
        "outer": lambda: xp.outer(v[:side], v[:side]) if lib == "numpy" else
        la.outer(v[:side], v[:side]),
        "fftshift": lambda: fft.fftshift(m),
    }


def best(fn, sync, target):
    n = 1
    while True:  # calls per round: enough for ``target`` seconds
        t0 = time.perf_counter()
        for _ in range(n):
            fn()
        sync()
        dt = time.perf_counter() - t0
        if dt >= target:
            return dt / n
        n *= 2


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--device", default="cpu")
    p.add_argument("--quick", action="store_true")
    _results.add_flag(p)
    args = p.parse_args()
    rec, rows = _results.start(args, "derived", args.device), []
    rounds, target = (3, 0.02) if args.quick else (7, 0.1)
    dev = numr.Device(args.device)
    print(f"derived ops on {dev} ({numr.__file__}), time per call, numr / NumPy")
    print(f"{'op':18}{'side':>6}{'numr':>12}{'numpy':>12}{'ratio':>8}")
    for side in (8, 512):
        ours, theirs = cases("numr", side, dev), cases("numpy", side, dev)
        for name in ours:
            a = b = float("inf")
            for _ in range(rounds):
                a = min(a, best(ours[name], lambda: numr.synchronize(dev), target))
                b = min(b, best(theirs[name], lambda: None, target))
            print(f"{name:18}{side:>6}{a * 1e6:>10.2f}us{b * 1e6:>10.2f}us{a / b:>8.2f}")
            rows.append([name, side, f"{a * 1e6:.2f} µs", f"{b * 1e6:.2f} µs", f"{a / b:.2f}"])
    rec.table(["op", "side", "numr", "NumPy", "numr / NumPy"], rows)
    rec.finish()


if __name__ == "__main__":
    main()
