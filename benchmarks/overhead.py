"""Per-call cost of numr against raw NumPy and array-api-strict, on the CPU.

Prints, for small (8-element) and large (4M-element) float32 arrays, the time per call
of each library, the time numr adds to NumPy's, and the ratio numr/NumPy.

    python benchmarks/overhead.py [--quick]

Timings are the minimum over interleaved rounds (the three libraries take turns), which
keeps machine noise out of the ratios as far as possible.
"""

from __future__ import annotations

import argparse
import platform
import timeit

import numpy as np

import numr

try:
    import array_api_strict as strict
except ImportError:  # only a benchmark extra
    strict = None


def cases(lib, n):
    """name -> zero-argument callable, for one library at size n."""
    if lib == "numpy":
        xp, asarray = np, np.asarray
    elif lib == "numr":
        xp, asarray = numr, numr.asarray
    else:
        xp, asarray = strict, strict.asarray
    rng = np.random.default_rng(0)
    a = asarray(rng.standard_normal(n).astype(np.float32))
    b = asarray(rng.standard_normal(n).astype(np.float32))
    s = asarray(np.zeros(n, np.float32))
    side = int(round(n ** 0.5))
    m = asarray(rng.standard_normal((side, side)).astype(np.float32)) if n > 8 else a
    v = asarray(np.float32(1.5)) if lib != "numpy" else np.float32(1.5)

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


def best_time(fn, rounds: int, target: float) -> float:
    timer = timeit.Timer(fn)
    number, _ = timer.autorange()
    number = max(1, int(number * target / 0.2))
    return min(timer.repeat(repeat=rounds, number=number)) / number


def run(sizes, rounds, target):
    libs = ["numpy", "numr"] + (["strict"] if strict is not None else [])
    print(f"# numr overhead, {platform.machine()} {platform.processor() or ''}, "
          f"Python {platform.python_version()}, NumPy {np.__version__}, numr {numr.__version__}")
    header = (f"| size | op | NumPy | numr | array-api-strict | numr - NumPy | "
              f"numr / NumPy |")
    print(header)
    print("|" + "---|" * 7)
    for n in sizes:
        per_lib = {lib: cases(lib, n) for lib in libs}
        for op in per_lib["numpy"]:
            t = {lib: float("inf") for lib in libs}
            for _ in range(rounds):  # interleave the libraries
                for lib in libs:
                    t[lib] = min(t[lib], best_time(per_lib[lib][op], 1, target))
            fmt = _fmt
            strict_t = fmt(t["strict"]) if "strict" in t else "n/a"
            print(f"| {n} | {op} | {fmt(t['numpy'])} | {fmt(t['numr'])} | {strict_t} | "
                  f"{(t['numr'] - t['numpy']) * 1e6:+.2f} µs | {t['numr'] / t['numpy']:.3f} |")


def _fmt(seconds: float) -> str:
    if seconds < 1e-3:
        return f"{seconds * 1e6:.2f} µs"
    return f"{seconds * 1e3:.2f} ms"


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--quick", action="store_true", help="fewer rounds (for a smoke run)")
    args = p.parse_args()
    rounds = 2 if args.quick else 7
    run([8, 4 * 1024 * 1024], rounds, 0.05 if args.quick else 0.2)


if __name__ == "__main__":
    main()
