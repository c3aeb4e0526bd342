"""A chain of 1000 small elementwise ops on webgpu:0: microseconds per op, amortised
(recording + one submit + one read back). Run: python benchmarks/webgpu.py"""

from __future__ import annotations

import os
import time

os.environ.setdefault("NUMR_WEBGPU_EXPERIMENTAL", "1")

import numpy as np  # noqa: E402

import numr as xp  # noqa: E402


def chain(x, n: int):
    for _ in range(n // 2):
        x = x * 1.0001
        x = x + 0.5
    return x


def main() -> None:
    dev = xp.__array_namespace_info__().devices()
    gpu = [d for d in dev if str(d).startswith("webgpu")]
    if not gpu:
        print("no webgpu device (install wgpu and a Vulkan driver)")
        return
    d = gpu[0]
    x = xp.asarray(np.ones(64, dtype=np.float32), device=d)
    np.asarray(chain(x, 1000).to_device("cpu"))  # warm: pipelines, bind groups, pool
    best = rec = float("inf")
    for _ in range(5):
        t = time.perf_counter()
        y = chain(x, 1000)
        t1 = time.perf_counter()
        np.asarray(y.to_device("cpu"))
        best = min(best, time.perf_counter() - t)
        rec = min(rec, t1 - t)
    info = d.backend.__class__.__name__
    # Recording is numr's Python side; the rest is submit + the device running the
    # 1000 dispatches + one read back (on lavapipe the "device" is the CPU too).
    print(f"{d} ({info}): 1000 elementwise ops on 64 float32: {best * 1e3:.2f} ms total, "
          f"{best * 1e6 / 1000:.2f} us per op amortised, of which recording "
          f"{rec * 1e6 / 1000:.2f} us (best of 5)")


if __name__ == "__main__":
    main()
