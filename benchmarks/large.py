"""WebGPU arrays beyond one storage binding (issue 19, section 3): each op on a float32
array of --gib GiB, timed as a user calls it (to a read back of one element) and
checked against NumPy on the host.

    python benchmarks/large.py --gib 8            # the H200 (binding limit 2 GiB)
    python benchmarks/large.py --gib 0.3125       # lavapipe-sized (128 MiB binding)

Prints one line per op: seconds, GB/s of the bytes it reads and writes, and "ok" (the
check against NumPy passed) or the first mismatch; exits 1 if any check failed.
"""

from __future__ import annotations

import argparse
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

import numr as xp  # noqa: E402
from benchmarks import _results  # noqa: E402


def _wait(y) -> None:
    np.asarray(xp.reshape(y, (-1,))[:1].to_device("cpu"))


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--gib", type=float, default=8.0)
    ap.add_argument("--cols", type=int, default=4096)
    ap.add_argument("--device", default="webgpu:0")
    _results.add_flag(ap)
    args = ap.parse_args()
    rec, table = _results.start(args, "large", args.device), []
    d = args.device
    cols = args.cols
    rows = int(args.gib * 2**30) // (4 * cols)
    nbytes = rows * cols * 4
    from numr.backends.webgpu.runtime import runtime
    rt = runtime(int(d.split(":")[1]) if ":" in d else 0)
    print(f"{d}: {rt.adapter.info.get('device')}; float32 ({rows}, {cols}) = "
          f"{nbytes / 2**30:.2f} GiB; binding limit "
          f"{rt.limits['max-storage-buffer-binding-size']}, max buffer "
          f"{rt.limits['max-buffer-size']}, pieces of {rt.piece} bytes")
    rng = np.random.default_rng(19)
    # small integers: sums, products and the host's float32 BLAS are exact whatever the
    # order (every partial sum an integer below 2**24)
    h = rng.integers(-8, 9, size=(rows, cols), dtype=np.int8).astype(np.float32)
    failed = []

    def run(name, fn, expect, moved):
        t0 = time.perf_counter()
        y = fn()
        _wait(y)
        dt_ = time.perf_counter() - t0
        got = np.asarray(y.to_device("cpu"))
        want = expect()
        ok = got.shape == want.shape and np.array_equal(got, want.astype(got.dtype))
        if not ok:
            failed.append(name)
            bad = np.argwhere(got != want.astype(got.dtype))[:1] if got.shape == want.shape \
                else f"shape {got.shape} != {want.shape}"
            note = f"MISMATCH at {bad}"
        else:
            note = "ok"
        print(f"{name:34s} {dt_:8.3f} s {moved / dt_ / 1e9:8.1f} GB/s  {note}", flush=True)
        table.append([name, f"{dt_:.3f} s", f"{moved / dt_ / 1e9:.1f} GB/s", note])

    t0 = time.perf_counter()
    x = xp.asarray(h, device=d)
    _wait(x)
    t_up = time.perf_counter() - t0
    print(f"{'upload (asarray)':34s} {t_up:8.3f} s {nbytes / t_up / 1e9:8.1f} GB/s")
    run("download (to_device cpu)", lambda: x, lambda: h, nbytes)
    run("ones", lambda: xp.ones((rows, cols), dtype=xp.float32, device=d),
        lambda: np.ones((rows, cols), np.float32), nbytes)
    run("x * 2 - 1", lambda: x * 2.0 - 1.0, lambda: h * 2.0 - 1.0, 2 * nbytes)
    run("x[::-3, ::2] + x[::3, :1]", lambda: x[::-3, ::2] + x[::3, :1],
        lambda: h[::-3, ::2] + h[::3, :1], nbytes // 2)
    run("abs(x.T)", lambda: xp.abs(x.T), lambda: np.abs(h.T), 2 * nbytes)
    for axis in (None, 0, 1):
        run(f"sum axis={axis}", lambda: xp.sum(x, axis=axis),
            lambda: h.sum(axis=axis, dtype=np.float64), nbytes)
        run(f"max axis={axis}", lambda: xp.max(x, axis=axis), lambda: h.max(axis=axis), nbytes)
        run(f"argmax axis={axis}", lambda: xp.argmax(x, axis=axis),
            lambda: h.argmax(axis=axis), nbytes)
    run("cumulative_sum axis=0", lambda: xp.cumulative_sum(x, axis=0),
        lambda: np.cumsum(h, axis=0), 2 * nbytes)
    idx = np.array([0, rows - 1, rows // 3, rows // 2 + 1, 2 * rows // 3] * 100, np.int64)
    gi = xp.asarray(idx, device=d)
    run("x[int rows]", lambda: x[gi], lambda: h[idx], 2 * idx.size * cols * 4)
    run("x[int rows, int cols]", lambda: x[gi, gi % cols], lambda: h[idx, idx % cols], 1)
    run("x[::7, 5::3] (copy)", lambda: xp.asarray(x[::7, 5::3], copy=True),
        lambda: h[::7, 5::3], nbytes // 10)

    def setitem():
        y = xp.asarray(x, copy=True)
        y[rows // 2:rows // 2 + 3, :] = -100.0
        y[gi, 5] = 42.0
        y[:, -1] = y[:, 0]
        return y

    def setitem_np():
        y = h.copy()
        y[rows // 2:rows // 2 + 3, :] = -100.0
        y[idx, 5] = 42.0
        y[:, -1] = y[:, 0]
        return y
    run("copy + setitem (slice, ints, column)", setitem, setitem_np, 2 * nbytes)
    w = (np.arange(cols * 3, dtype=np.float32).reshape(cols, 3) % 5) - 2
    gw = xp.asarray(w, device=d)
    run("x @ w (cols x 3)", lambda: x @ gw, lambda: h @ w, nbytes)
    v = np.ones((7, rows), dtype=np.float32)
    gv = xp.asarray(v, device=d)
    run("v (7 x rows) @ x", lambda: gv @ x, lambda: v @ h, nbytes)
    # half of x: the (key, index) pairs of all of it would be 2**32 u32 words at 8 GiB,
    # past the u32 index of the sort's kernels (MemoryError)
    half, hh = x[: rows // 2], h[: rows // 2]
    run("sort rows of 256 (half of x)", lambda: xp.sort(xp.reshape(half, (-1, 256)), axis=1),
        lambda: np.sort(hh.reshape(-1, 256), axis=1), nbytes)
    run("sort x[:, 3]", lambda: xp.sort(x[:, 3]), lambda: np.sort(h[:, 3]), rows * 8)
    if failed:
        print("FAILED:", ", ".join(failed))
        return 1
    print("all checks passed")
    rec.table(["op", "time", "GB/s", "check"], table)
    rec.finish()
    return 0


if __name__ == "__main__":
    sys.exit(main())
