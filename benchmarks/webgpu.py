"""WebGPU speed against the issue's anchors, measured in the same run:

* a chain of 1000 small elementwise ops (8 float32): microseconds per op, amortised
  (recording + one submit + one read back);
* large add (float32, --add-size elements): bandwidth against CuPy's device-to-device
  copy of an array as large (when CuPy and a GPU are there), else against the add's own
  bytes only;
* float32 matmul (--matmul-size square): TFLOP/s and the ratio to CuPy's;
* with --fused N: fused elementwise chains (issue 20) on N float32 elements:
  ``(x - m) / s * 2 + 1`` fused, unfused (NUMR_WEBGPU_FUSE=0) and on CuPy, its
  dispatches and bandwidth; then scipy.stats.zscore and scipy.special.softmax on a
  matrix of N elements (rows of 1024) against the same SciPy call on CuPy arrays;
* with --threads N: the same chain split over N threads at once (each its own array),
  µs per op of all of them together, every thread's result checked (numr's recording
  is serialised by its lock and the GIL: this shows what sharing a device costs).

    python benchmarks/webgpu.py                                  # lavapipe-sized
    python benchmarks/webgpu.py --add-size 268435456 --matmul-size 8192   # on a GPU
    python benchmarks/webgpu.py --skip add,matmul --threads 4             # threads
    python benchmarks/webgpu.py --skip chain,add,matmul --fused 268435456  # fusion

The device is webgpu:0 unless --device names another (numr lists the adapters in
info.devices(); on a machine with a GPU and a CPU Vulkan driver, pick the GPU's).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time

import numpy as np

# SciPy reads this when first imported (numr.special's CPU path may import it before the
# fused rows run): set here, SciPy takes numr arrays through the array API
os.environ.setdefault("SCIPY_ARRAY_API", "1")

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

import numr as xp  # noqa: E402
from benchmarks import _results  # noqa: E402


def _wait(y) -> None:
    """A read back of one element: the queue runs in order, so everything before it is
    done when it returns."""
    np.asarray(xp.reshape(y, (-1,))[:1].to_device("cpu"))


def chain_cost(d, n_ops: int = 1000, size: int = 8) -> tuple[float, float]:
    """(µs per op amortised, µs per op of numr's recording), best of 5."""
    x = xp.asarray(np.ones(size, dtype=np.float32), device=d)

    def chain(v):
        for _ in range(n_ops // 2):
            v = v * 1.0001
            v = v + 0.5
        return v

    _wait(chain(x))  # warm: pipelines, bind groups, pool
    best = rec = float("inf")
    for _ in range(5):
        t = time.perf_counter()
        y = chain(x)
        t1 = time.perf_counter()
        _wait(y)
        best = min(best, time.perf_counter() - t)
        rec = min(rec, t1 - t)
    return best * 1e6 / n_ops, rec * 1e6 / n_ops


def chain_parts(d, n_ops: int = 1000, size: int = 8) -> tuple[float, float, float]:
    """Where a chain's time goes, µs per op (best of 5): numr's recording with no
    submit on the way, then the one submit (wgpu's encoding of the recorded pass and
    the queue submit), then the wait for the device to finish it."""
    from numr.backends.webgpu.runtime import runtime

    rt = runtime(int(str(d).split(":")[1]))
    x = xp.asarray(np.ones(size, dtype=np.float32), device=d)
    every, first = rt.submit_every, rt.first_batch
    rt.submit_every = rt.first_batch = max(every, n_ops + 1)  # at most the arena's 2048
    try:
        best = [float("inf")] * 3
        for _ in range(6):
            rt.wait()
            v = x
            t0 = time.perf_counter()
            for _ in range(n_ops // 2):
                v = v * 1.0001
                v = v + 0.5
            t1 = time.perf_counter()
            rt.flush()
            t2 = time.perf_counter()
            rt.wait()
            t3 = time.perf_counter()
            for k, t in enumerate((t1 - t0, t2 - t1, t3 - t2)):
                best[k] = min(best[k], t)
        return tuple(b * 1e6 / n_ops for b in best)
    finally:
        rt.submit_every, rt.first_batch = every, first


def recording_cpu(d, n_ops: int = 1000, size: int = 8, rounds: int = 30) -> float:
    """The host cost of an op: CPU time of this thread (time.thread_time, so other
    processes on a busy machine count less than in wall time) per op of recording a
    chain in one batch, best of ``rounds``."""
    from numr.backends.webgpu.runtime import runtime

    rt = runtime(int(str(d).split(":")[1]))
    x = xp.asarray(np.ones(size, dtype=np.float32), device=d)
    every, first = rt.submit_every, rt.first_batch
    rt.submit_every = rt.first_batch = max(every, n_ops + 1)
    try:
        best = float("inf")
        for _ in range(rounds):
            rt.wait()
            v = x
            t = time.thread_time()
            for _ in range(n_ops // 2):
                v = v * 1.0001
                v = v + 0.5
            best = min(best, time.thread_time() - t)
            rt.flush()
        return best * 1e6 / n_ops
    finally:
        rt.submit_every, rt.first_batch = every, first


def threaded_chain(d, threads: int, n_ops: int = 1000, size: int = 8) -> float:
    """µs per op of a chain of ``n_ops`` ops split over ``threads`` threads running at
    once (each ``n_ops // threads`` ops on its own array, then one read back), best of
    5; raises if a thread's result is wrong."""
    from concurrent.futures import ThreadPoolExecutor

    per = max(2, n_ops // threads // 2 * 2)
    xs = [xp.asarray(np.full(size, k, dtype=np.float32), device=d) for k in range(threads)]

    def chain(k):
        v = xs[k]
        for _ in range(per // 2):
            v = v * 1.0
            v = v + 1.0
        got = np.asarray(v.to_device("cpu"))
        if not np.array_equal(got, np.full(size, k + per // 2, dtype=np.float32)):
            raise AssertionError(f"thread {k}: {got}")

    best = float("inf")
    with ThreadPoolExecutor(threads) as ex:
        list(ex.map(chain, range(threads)))  # warm
        for _ in range(5):
            t = time.perf_counter()
            list(ex.map(chain, range(threads)))
            best = min(best, time.perf_counter() - t)
    return best * 1e6 / (per * threads)


def sync_numr(y) -> None:
    """Everything recorded before numr array ``y`` is done: on WebGPU once one element
    of it is read back (the queue runs in order), on CUDA after a device synchronise,
    on the CPU at once."""
    d = str(y.device)
    if d.startswith("cuda"):
        import cupy as cp

        cp.cuda.Device().synchronize()
    elif d != "cpu":
        _wait(y)


def timed(f, sync, reps: int, inner: int) -> float:
    """Median seconds per call of ``inner`` back-to-back calls of f (returning an array),
    ``sync`` of the last result ending each rep (also webgpu_reduce's and webgpu_sort's)."""
    sync(f())  # warm: pipelines, pools
    ts = []
    for _ in range(reps):
        t = time.perf_counter()
        for _ in range(inner):
            y = f()
        sync(y)
        ts.append((time.perf_counter() - t) / inner)
    return statistics.median(ts)


def _cupy():
    try:
        import cupy as cp

        cp.cuda.runtime.getDeviceCount()
        return cp
    except Exception:
        return None


def _cuda_time(cp, f, reps: int, inner: int) -> float:
    f()
    start, end = cp.cuda.Event(), cp.cuda.Event()
    ts = []
    for _ in range(reps):
        start.record()
        for _ in range(inner):
            f()
        end.record()
        end.synchronize()
        ts.append(cp.cuda.get_elapsed_time(start, end) / 1e3 / inner)
    return statistics.median(ts)


def large_add(d, n: int, cp, reps: int) -> dict:
    rng = np.random.default_rng(0)
    a = xp.asarray(rng.standard_normal(n, dtype=np.float32), device=d)
    b = xp.asarray(rng.standard_normal(n, dtype=np.float32), device=d)
    t = timed(lambda: a + b, _wait, reps, 5)
    out = {"t": t, "gbs": 3 * 4 * n / t / 1e9}
    if cp is not None:
        src = cp.asarray(rng.standard_normal(n, dtype=np.float32))
        dst = cp.empty_like(src)
        tc = _cuda_time(cp, lambda: cp.copyto(dst, src), reps, 5)
        out["copy_gbs"] = 2 * 4 * n / tc / 1e9
        tca = _cuda_time(cp, lambda: cp.add(src, dst), reps, 5)
        out["cupy_add_gbs"] = 3 * 4 * n / tca / 1e9
    return out


def matmul(d, n: int, cp, reps: int) -> dict:
    rng = np.random.default_rng(1)
    ha = rng.standard_normal((n, n), dtype=np.float32)
    hb = rng.standard_normal((n, n), dtype=np.float32)
    a, b = xp.asarray(ha, device=d), xp.asarray(hb, device=d)
    # correctness spot check against float64 NumPy on a few rows
    rows = np.arange(0, n, max(1, n // 4))
    got = np.asarray((a @ b).to_device("cpu"))[rows]
    want = ha[rows].astype(np.float64) @ hb.astype(np.float64)
    err = float(np.max(np.abs(got - want)) / np.max(np.abs(want)))
    t = timed(lambda: a @ b, _wait, reps, 3)
    out = {"t": t, "tflops": 2 * n ** 3 / t / 1e12, "rel_err": err}
    if cp is not None:
        ca, cb = cp.asarray(ha), cp.asarray(hb)
        tc = _cuda_time(cp, lambda: ca @ cb, reps, 3)
        out["cupy_tflops"] = 2 * n ** 3 / tc / 1e12
    return out


def fused(d, n: int, cp, reps: int) -> list[tuple]:
    """Rows (measure, numr fused, numr unfused or '-', CuPy, fused / CuPy)."""
    from numr import _config
    from numr.backends.webgpu.runtime import runtime

    rt = runtime(int(str(d).split(":")[1]))
    rng = np.random.default_rng(2)
    cols = 1024
    hx = rng.standard_normal(n, dtype=np.float32)
    x = xp.asarray(hx, device=d)
    m = xp.asarray(np.float32(0.25), device=d)
    s = xp.asarray(np.float32(1.5), device=d)

    def chain(x, m, s):
        return (x - m) / s * 2 + 1

    _wait(chain(x, m, s))  # warm
    rt.wait()
    before = rt.stats["dispatches"]
    y = chain(x, m, s)
    rt.wait()
    passes = rt.stats["dispatches"] - before
    del y
    t = timed(lambda: chain(x, m, s), _wait, reps, 5)
    with _config.override(NUMR_WEBGPU_FUSE=0):
        tu = timed(lambda: chain(x, m, s), _wait, reps, 5)
    rows = []
    tc = None
    if cp is not None:
        cx, cm, cs = cp.asarray(hx), cp.asarray(np.float32(0.25)), cp.asarray(np.float32(1.5))
        tc = _cuda_time(cp, lambda: chain(cx, cm, cs), reps, 5)
    rows.append((f"(x - m) / s * 2 + 1, {n} float32 ({passes} dispatch(es), "
                 f"{8 * n / t / 1e9:.0f} GB/s)", t, tu, tc))
    import scipy.special
    import scipy.stats

    hm = hx.reshape(-1, cols)
    xm = xp.asarray(hm, device=d)
    cm = cp.asarray(hm) if cp is not None else None
    for name, f in (("scipy.stats.zscore(axis=1)", lambda a: scipy.stats.zscore(a, axis=1)),
                    ("scipy.special.softmax(axis=1)",
                     lambda a: scipy.special.softmax(a, axis=1))):
        t = timed(lambda: f(xm), _wait, reps, 3)
        with _config.override(NUMR_WEBGPU_FUSE=0):
            tu = timed(lambda: f(xm), _wait, reps, 3)
        tc = _cuda_time(cp, lambda: f(cm), reps, 3) if cp is not None else None
        rows.append((f"{name}, {hm.shape[0]}x{cols} float32", t, tu, tc))
    return rows


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--device", default=None, help="e.g. webgpu:1 (default: webgpu:0)")
    p.add_argument("--add-size", type=int, default=1 << 22)
    p.add_argument("--matmul-size", type=int, default=512)
    p.add_argument("--reps", type=int, default=5)
    p.add_argument("--threads", type=int, default=0,
                   help="also time the chain split over this many threads")
    p.add_argument("--fused", type=int, default=0,
                   help="also time fused chains and SciPy's zscore/softmax on this many "
                        "float32 elements (a multiple of 1024)")
    p.add_argument("--skip", nargs="*", default=[],
                   help="measures to skip: chain, add, matmul (spaces or commas between)")
    _results.add_flag(p)
    a = p.parse_args()
    results_page = _results.start(a, "webgpu", a.device or "webgpu")
    devs = [dv for dv in xp.__array_namespace_info__().devices() if str(dv).startswith("webgpu")]
    if not devs:
        print("no webgpu device (install wgpu and a Vulkan driver)")
        return
    d = next((dv for dv in devs if str(dv) == a.device), devs[0]) if a.device else devs[0]
    from numr.backends.webgpu.runtime import adapters

    info = adapters()[int(str(d).split(":")[1])].info
    cp = _cupy()
    skip = {w for arg in a.skip for w in arg.split(",") if w}
    print(f"# {d}: {info.get('device')} ({info.get('backend_type')}, "
          f"{info.get('adapter_type')}); CuPy anchor: {'yes' if cp else 'no'}")
    print("| measure | numr webgpu | anchor | ratio |\n|---|---|---|---|")
    if "chain" not in skip:
        per, rec = chain_cost(d)
        print(f"| 1000 elementwise ops on 8 float32, per op | {per:.2f} µs "
              f"(recording {rec:.2f} µs) | goal 10 µs | {per / 10:.2f} of goal |")
        r, f, w = chain_parts(d)
        print(f"| the same chain in one batch, per op: recording / submit / device | "
              f"{r:.2f} / {f:.2f} / {w:.2f} µs | - | - |")
        c = recording_cpu(d)
        print(f"| the same chain's recording, CPU time per op | {c:.2f} µs | - | - |")
        if a.threads:
            t = threaded_chain(d, a.threads)
            print(f"| the chain split over {a.threads} threads at once, per op | {t:.2f} µs "
                  f"| one thread {per:.2f} µs | {t / per:.2f} |")
    if "add" not in skip:
        r = large_add(d, a.add_size, cp, a.reps)
        anchor = r.get("copy_gbs")
        print(f"| add of two {a.add_size}-element float32 arrays | {r['gbs']:.1f} GB/s "
              f"({r['t'] * 1e3:.3f} ms) | " +
              (f"CuPy copy {anchor:.1f} GB/s (CuPy add {r['cupy_add_gbs']:.1f}) | "
               f"{r['gbs'] / anchor:.3f} |" if anchor else "- | - |"))
    if "matmul" not in skip:
        r = matmul(d, a.matmul_size, cp, a.reps)
        c = r.get("cupy_tflops")
        print(f"| float32 matmul {a.matmul_size}x{a.matmul_size} | {r['tflops']:.2f} TFLOP/s "
              f"({r['t'] * 1e3:.2f} ms, rel. err {r['rel_err']:.1e}) | " +
              (f"CuPy {c:.2f} TFLOP/s | {r['tflops'] / c:.3f} |" if c else "- | - |"))
    if a.fused:
        print("\n| fused (issue 20) | numr webgpu | unfused (NUMR_WEBGPU_FUSE=0) | CuPy "
              "| webgpu / CuPy |\n|---|---|---|---|---|")
        for what, t, tu, tc in fused(d, a.fused, cp, a.reps):
            print(f"| {what} | {t * 1e3:.3f} ms | {tu * 1e3:.3f} ms | " +
                  (f"{tc * 1e3:.3f} ms | {t / tc:.3f} |" if tc else "- | - |"))
    results_page.finish()


if __name__ == "__main__":
    main()
