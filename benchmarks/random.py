"""Benchmark numr.random: uniforms and normals against NumPy (CPU) or CuPy and PyTorch
(CUDA and WebGPU rows alike), and as a fraction of the device's copy bandwidth, all measured in the same run.

    python benchmarks/random.py                    # CPU: 16M float64, against
                                                   #   numpy.random.Generator(Philox)
    python benchmarks/random.py --device cuda      # 256M float32, against cupy.random,
                                                   #   torch.rand / torch.randn
    python benchmarks/random.py --device webgpu    # 256M float32, against the same
                                                   #   (where CuPy / torch have a GPU)
    python benchmarks/random.py --kernels          # webgpu: the Philox kernels alone,
                                                   #   with other workgroup sizes and the
                                                   #   16-bit-halves multiply

Fraction of copy = (bytes the draw writes / its time) / (2 x bytes / time of a device
copy of an array of the draw's size). Each figure is the median over ``--reps`` loops,
after a warm-up call, of a loop's time over its 10 calls: the calls made back to back as a
user's loop makes them (numr.random.Generator methods on numr arrays), synchronised once
at the end.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

import numr as xp  # noqa: E402
from numr import random as nr  # noqa: E402
from benchmarks import _results  # noqa: E402


def timed(f, sync, reps: int, calls: int = 10) -> float:
    """Seconds per call: ``calls`` calls back to back from Python, synchronised at the end
    (as a user's loop runs), the median of ``reps`` such loops after a warm-up call. A sync
    after every call would add the device's round trip (on WebGPU, a queue submit and a
    wait) to every draw, which no loop of draws pays."""
    f()
    sync()
    ts = []
    for _ in range(reps):
        t = time.perf_counter()
        for _ in range(calls):
            f()
        sync()
        ts.append((time.perf_counter() - t) / calls)
    return statistics.median(ts)


ROWS: list = []  # numr's rows, each naming its anchor, for RESULTS.md


def row(name: str, t: float, nbytes: int, copy_bw: float,
        anchor: tuple[str, float] | None = None, page: bool = False) -> None:
    """Print a draw's row; ``anchor``: the (name, time) of the draw it is measured against.
    ``page``: numr's rows go to RESULTS.md, the anchor's name and time in one cell (its
    bandwidth follows from its time: the page stays short)."""
    frac = nbytes / t / copy_bw
    vs = f"{anchor[1] / t:8.2f}x" if anchor else "        -"
    print(f"{name:34s} {t * 1e3:9.2f} ms {nbytes / t / 1e9:8.1f} GB/s {frac:7.2f} of copy"
          f"   speed vs anchor {vs}")
    if page:
        ROWS.append([name, f"{t * 1e3:.2f} ms", f"{nbytes / t / 1e9:.1f} GB/s", f"{frac:.2f}",
                     f"{anchor[0]} {anchor[1] * 1e3:.2f} ms" if anchor else "",
                     f"{anchor[1] / t:.2f}" if anchor else ""])


def cpu(n: int, reps: int) -> None:
    dt_name = "float64"
    nbytes = 8 * n
    a = np.ones(n)
    t_copy = timed(lambda: a.copy(), lambda: None, reps)
    bw = 2 * nbytes / t_copy
    print(f"CPU, {n} {dt_name}: copy {bw / 1e9:.1f} GB/s (read + write)")
    g = nr.default_rng(1)
    ng = np.random.Generator(np.random.Philox(1))
    for name, f, anchor in [
            ("random", lambda: g.random(n, device="cpu"), lambda: ng.random(n)),
            ("standard_normal", lambda: g.standard_normal(n, device="cpu"),
             lambda: ng.standard_normal(n))]:
        ta = timed(anchor, lambda: None, reps)
        row(f"numpy Philox {name}", ta, nbytes, bw)
        row(f"numr {name}", timed(f, lambda: None, reps), nbytes, bw,
            (f"numpy Philox {name}", ta), page=True)


def _gpu_anchors(n: int, reps: int) -> dict:
    """cupy.random's and torch's float32 uniforms and normals on the CUDA device, where
    they are installed: the anchors of both the cuda and the webgpu rows (the issue's
    targets name them for both)."""
    anchors: dict = {"random": [], "standard_normal": []}
    try:
        import cupy
    except ImportError:
        print("(cupy is not installed: no cupy.random anchors)")
    else:
        cs = lambda: cupy.cuda.Device().synchronize()  # noqa: E731
        anchors["random"].append(("cupy.random.random", timed(
            lambda: cupy.random.random(n, dtype=cupy.float32), cs, reps)))
        anchors["standard_normal"].append(("cupy.random.standard_normal", timed(
            lambda: cupy.random.standard_normal(n, dtype=cupy.float32), cs, reps)))
    try:
        import torch
        if not torch.cuda.is_available():
            raise ImportError
    except ImportError:
        print("(torch with CUDA is not installed: no torch anchors)")
    else:
        ts = torch.cuda.synchronize
        anchors["random"].append(("torch.rand", timed(
            lambda: torch.rand(n, device="cuda"), ts, reps)))
        anchors["standard_normal"].append(("torch.randn", timed(
            lambda: torch.randn(n, device="cuda"), ts, reps)))
    return anchors


def gpu(kind: str, n: int, reps: int) -> None:
    dev = {"cuda": "cuda:0", "webgpu": "webgpu:0"}[kind]
    sync = lambda: xp.synchronize(dev)  # noqa: E731
    nbytes = 4 * n
    x = xp.ones(n, dtype=xp.float32, device=dev)
    t_copy = timed(lambda: xp.asarray(x, copy=True), sync, reps)
    bw = 2 * nbytes / t_copy
    print(f"{dev}, {n} float32: copy {bw / 1e9:.1f} GB/s (read + write)")
    del x
    g = nr.default_rng(1)
    anchors = _gpu_anchors(n, reps)
    for name in ("random", "standard_normal"):
        f = getattr(g, name)
        t = timed(lambda: f(n, dtype=xp.float32, device=dev), sync, reps)
        for an, ta in anchors.get(name, []):
            row(an, ta, nbytes, bw)
        best = min(anchors.get(name, []), key=lambda a: a[1], default=None)
        row(f"numr {name}", t, nbytes, bw, best, page=True)


def kernels(n: int, reps: int) -> None:
    """The WGSL kernels of numr.random alone (no allocation), each fmt with the adapter's
    multiply and at two workgroup sizes, the uniforms also with the multiply of adapters
    without shader-int64."""
    from numr.backends.webgpu.runtime import runtime
    from numr.random import _webgpu as w

    dev = "webgpu:0"
    rt = runtime(0)
    i64 = "shader-int64" in rt.features
    nb = n // 4
    out = rt.alloc(16 * nb)
    bw = 2 * 4 * n / timed(lambda: xp.asarray(xp.ones(n, dtype=xp.float32, device=dev),
                                              copy=True), lambda: xp.synchronize(dev), reps)
    print(f"{dev}, {nb} blocks (16 bytes each); copy {bw / 1e9:.1f} GB/s")
    # (fmt, the adapter's multiply or not, workgroup size, blocks an invocation)
    variants = [("u32", i64, 64, 1), ("u32", i64, 256, 1), ("u32", False, 64, 1),
                ("u32", i64, 256, 4), ("f32", i64, 64, 1), ("f32", i64, 256, 1),
                ("f32", i64, 256, 4), ("f32", i64, 128, 8), ("n32", i64, 64, 1),
                ("n32", i64, 256, 1), ("n32", i64, 64, 4), ("n32", i64, 256, 4),
                ("n64", i64, 64, 1)]
    for fmt, m64, wg, per in variants:
        pipe = rt.pipeline(("bench_random", fmt, m64, wg, per),
                           lambda: w.source(fmt, m64, wg, per), 1)
        t = timed(lambda: rt.record(pipe, (out.block,), [1, 2, 3, 0, 0, 0, nb],
                                    -(-nb // (wg * per))), lambda: xp.synchronize(dev), reps)
        row(f"{fmt} int64={m64} wg={wg} per={per}", t, 16 * nb, bw)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--device", default="cpu", choices=["cpu", "cuda", "webgpu"])
    ap.add_argument("--n", type=int, default=None,
                    help="draws (default 16M on the CPU, 256M on a GPU)")
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--kernels", action="store_true",
                    help="webgpu: time the kernels alone, with variants (see kernels())")
    _results.add_flag(ap)
    a = ap.parse_args()
    if a.kernels:
        kernels(a.n or 256 * 2 ** 20, a.reps)
        return
    results_page = _results.start(a, "random", a.device)
    if a.device == "cpu":
        cpu(a.n or 16 * 2 ** 20, a.reps)
    else:
        gpu(a.device, a.n or 256 * 2 ** 20, a.reps)
    results_page.table(["draw", "time", "GB/s", "of copy", "anchor", "speed vs anchor"], ROWS)
    results_page.finish()


if __name__ == "__main__":
    main()
