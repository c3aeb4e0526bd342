"""Per-call cost of numr against the library underneath it.

On the CPU (default): numr against raw NumPy and array-api-strict. With ``--device
cuda``: numr on ``cuda:0`` against raw CuPy. Prints, for small (8-element) and large
(4M-element) float32 arrays, the time per call of each library, the time numr adds,
and the ratio numr / base library. On CUDA it adds 64M-element arrays: 4M float32
(16 MB) still fit in an H100/H200's 50 MB L2 cache, so only the larger size times
kernels that stream from device memory.

    python benchmarks/overhead.py [--quick] [--device cpu|cuda]

Timings are the minimum over interleaved rounds (the three libraries take turns), which
keeps machine noise out of the ratios as far as possible.
"""

from __future__ import annotations

import argparse
import platform
import time

import numpy as np

import numr

try:
    import array_api_strict as strict
except ImportError:  # only a benchmark extra
    strict = None


def _namespace(lib, device):
    if lib == "numpy":
        return np, np.asarray
    if lib == "cupy":
        import cupy

        return cupy, cupy.asarray
    if lib == "numr":
        return numr, lambda a: numr.asarray(a, device=device)
    return strict, strict.asarray


def cases(lib, n, device):
    """name -> zero-argument callable, for one library at size n."""
    xp, asarray = _namespace(lib, device)
    rng = np.random.default_rng(0)
    a = asarray(rng.standard_normal(n).astype(np.float32))
    b = asarray(rng.standard_normal(n).astype(np.float32))
    s = asarray(np.zeros(n, np.float32))
    side = int(round(n ** 0.5))
    m = asarray(rng.standard_normal((side, side)).astype(np.float32)) if n > 8 else a
    v = np.float32(1.5) if lib == "numpy" else asarray(np.float32(1.5))

    def setitem():
        s[1:3] = v

    return {
        "add": lambda: a + b,
        "multiply scalar": lambda: a * 2.0,
        "exp": lambda: xp.exp(a),
        "sum": lambda: xp.sum(a),
        "slice x[1:3]": lambda: a[1:3],
        "setitem x[1:3]=v": setitem,
        "matmul": (lambda: m @ m) if n > 8 else (lambda: a @ b),
    }


def best_time(fn, sync, target: float) -> float:
    """Seconds per call: calls are issued back to back and synchronised once at the end
    (a GPU library's launch cost on small arrays, its kernel time on large ones)."""
    number = 1
    while True:
        t = _timed(fn, sync, number)
        if t * number >= target or number >= 1 << 20:
            return t
        number *= 4 if t * number < target / 8 else 2


def _timed(fn, sync, number):
    sync()
    t0 = time.perf_counter()
    for _ in range(number):
        fn()
    sync()
    return (time.perf_counter() - t0) / number


def run(sizes, rounds, target, device):
    if device == "cuda":
        import cupy

        base, libs = "cupy", ["cupy", "numr"]
        sync = cupy.cuda.Device(0).synchronize
        about = f"CuPy {cupy.__version__}, {cupy.cuda.runtime.getDeviceProperties(0)['name'].decode()}"
    else:
        base, libs = "numpy", ["numpy", "numr"] + (["strict"] if strict is not None else [])
        sync = _no_sync
        about = f"NumPy {np.__version__}"
    print(f"# numr overhead on {device}, {platform.machine()}, Python "
          f"{platform.python_version()}, {about}, numr {numr.__version__}")
    names = {"numpy": "NumPy", "cupy": "CuPy", "numr": "numr", "strict": "array-api-strict"}
    print("| size | op | " + " | ".join(names[lib] for lib in libs)
          + f" | numr - {names[base]} | numr / {names[base]} |")
    print("|" + "---|" * (len(libs) + 4))
    for n in sizes:
        per_lib = {lib: cases(lib, n, "cuda:0" if device == "cuda" else "cpu") for lib in libs}
        for op in per_lib[base]:
            t = {lib: float("inf") for lib in libs}
            for _ in range(rounds):  # interleave the libraries
                for lib in libs:
                    t[lib] = min(t[lib], best_time(per_lib[lib][op], sync, target))
            cols = " | ".join(_fmt(t[lib]) for lib in libs)
            print(f"| {n} | {op} | {cols} | {(t['numr'] - t[base]) * 1e6:+.2f} µs | "
                  f"{t['numr'] / t[base]:.3f} |")


def _no_sync():
    pass


def _fmt(seconds: float) -> str:
    if seconds < 1e-3:
        return f"{seconds * 1e6:.2f} µs"
    return f"{seconds * 1e3:.2f} ms"


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--quick", action="store_true", help="fewer rounds (for a smoke run)")
    p.add_argument("--device", choices=["cpu", "cuda"], default="cpu")
    args = p.parse_args()
    rounds = 2 if args.quick else 7
    sizes = [8, 4 * 1024 * 1024] + ([64 * 1024 * 1024] if args.device == "cuda" else [])
    run(sizes, rounds, 0.02 if args.quick else 0.1, args.device)


if __name__ == "__main__":
    main()
