"""Reductions and arg-reductions on WebGPU (and numr's CUDA backend) against CuPy in the
same run: for each row, time / CuPy's time and GB/s against a copy of the same bytes.

Timed as a user calls numr: ``--inner`` calls back to back from Python (each one
checked, planned and recorded by numr), synchronised once at the end (a read back of
one element on WebGPU, a device synchronise on CUDA), median over ``--reps``. CuPy is
timed the same way. GB/s = the input's bytes / time; "% copy" compares that with a
device copy of an array as large, timed the same way on the same device (read + write:
2 x bytes / time), so 100% means the reduction reads its input as fast as a copy moves
it: CuPy's copy where CuPy is there (the issue's anchor), else numr's own copy on that
device. Each result is checked against NumPy before it is timed. Without CuPy (lavapipe, the CPU), NumPy on the host is the anchor, which shows
relative gains between commits of numr, not its standing against CuPy.

    python benchmarks/webgpu_reduce.py                              # lavapipe-sized
    python benchmarks/webgpu_reduce.py --size 16777216 --side 4096  # H200 (issue 20)
    python benchmarks/webgpu_reduce.py --rows sum,argmax --dtype float16

Rows: sum, max, mean, argmax over every axis of a --size vector; sum, max, argmax along
axis 1 and sum along axis 0 of a --side x --side matrix. float32 unless --dtype.

``--breakdown`` says where a WebGPU row's time goes: the device's time per call (the
``--inner`` calls recorded into one batch, each compute pass bracketed by timestamps:
the adapter's timestamp-query feature, asked for here before numr opens the device),
numr's host time per call (thread time of the calls alone, no sync) and dispatches per
call. A row's time is about host + device + the sync's share when the device waits for
the batch (it is submitted at the sync), max(host, device) + the sync's share when it
runs while Python records.

    python benchmarks/webgpu_reduce.py --size 16777216 --side 4096 --breakdown  # H200

``--submit-every K,...`` (an experiment on when to submit) times each WebGPU row's loop
again with the runtime's batch submitted after every K calls (0: only at the sync), the
results kept alive as a loop that collects them would: per call, the loop's host time,
the sync's share and the total. On the H100 a 16M float32 sum took 53.2 µs a call
submitted at the sync (10.4 µs of it host), 80.2 submitted every call (a submit costs
the host about 56 µs there), 47.9 every 4 calls (2026-12-07).

    python benchmarks/webgpu_reduce.py --size 16777216 --side 4096 --rows sum,max \
        --submit-every 0,1,2,4,8
"""

from __future__ import annotations

import argparse
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

import numr as xp  # noqa: E402
from benchmarks.webgpu import _cupy, sync_numr, timed  # noqa: E402
from benchmarks import _results  # noqa: E402

# name -> (array: "vec" or "mat", function name, axis)
ROWS = {
    "sum": ("vec", "sum", None), "max": ("vec", "max", None),
    "mean": ("vec", "mean", None), "argmax": ("vec", "argmax", None),
    "sum axis=1": ("mat", "sum", 1), "sum axis=0": ("mat", "sum", 0),
    "max axis=1": ("mat", "max", 1), "argmax axis=1": ("mat", "argmax", 1),
}


class _Timestamps:
    """--breakdown: every compute pass begun while ``on`` writes a timestamp at its start
    and end into one query set (wgpu-native's encoder wrapped before numr records)."""

    def __init__(self):
        from numr.backends.webgpu import runtime as R
        from wgpu.backends.wgpu_native import GPUCommandEncoder

        R.WANTED_FEATURES = tuple(R.WANTED_FEATURES) + ("timestamp-query",)
        self.on, self.n, self.qs = False, 0, None
        begin = GPUCommandEncoder.begin_compute_pass
        ts = self

        def begin_timed(enc, *args, **kwargs):
            if ts.on and ts.qs is not None and ts.n + 2 <= 4096:
                kwargs["timestamp_writes"] = {"query_set": ts.qs,
                                              "beginning_of_pass_write_index": ts.n,
                                              "end_of_pass_write_index": ts.n + 1}
                ts.n += 2
            return begin(enc, *args, **kwargs)
        GPUCommandEncoder.begin_compute_pass = begin_timed

    def device_us(self, rt, f, calls: int) -> float:
        """Device µs per call of ``calls`` calls recorded into one batch."""
        import wgpu

        if "timestamp-query" not in rt.features:
            return float("nan")
        if self.qs is None:
            self.qs = rt.device.create_query_set(type=wgpu.QueryType.timestamp, count=4096)
        sync_numr(f())
        rt.wait()
        self.on, self.n = True, 0
        rt._limit, rt._wlimit = 1 << 30, 1 << 62  # one batch (rt.wait() resets both)
        for _ in range(calls):
            y = f()
        rt.flush()
        self.on = False
        sync_numr(y)
        n = self.n
        buf = rt.device.create_buffer(size=8 * n, usage=wgpu.BufferUsage.QUERY_RESOLVE |
                                      wgpu.BufferUsage.COPY_SRC)
        enc = rt.device.create_command_encoder()
        enc.resolve_query_set(self.qs, 0, n, buf, 0)
        rt.queue.submit([enc.finish()])
        t = np.frombuffer(rt.queue.read_buffer(buf), dtype=np.uint64).astype(np.int64)
        rt.wait()
        # Vulkan's timestamp period: 1 ns on NVIDIA's driver (wgpu reports ticks)
        period = rt.queue.get_timestamp_period() if hasattr(rt.queue, "get_timestamp_period") \
            else 1.0
        return float((t[1::2] - t[0::2]).sum()) * period / calls / 1e3


def _host_us(f, reps: int, inner: int) -> float:
    """numr's host time per call (thread time of ``inner`` calls, the sync left out)."""
    best = float("inf")
    for _ in range(reps):
        t = time.thread_time()
        for _ in range(inner):
            y = f()
        best = min(best, time.thread_time() - t)
        sync_numr(y)
    return best / inner * 1e6


def _submit_table(rows: str, arrays: dict, every: str, reps: int, inner: int) -> None:
    """--submit-every: per row and K, µs per call of ``inner`` calls (results kept) with
    the batch submitted after every K calls: the loop's host time, the sync's share,
    the total (medians over ``reps``)."""
    print("| row | submit every | host µs | sync µs | total µs |")
    print("|---|---:|---:|---:|---:|")
    for name in rows.split(","):
        kind, fn, axis = ROWS[name.strip()]
        x, f = arrays[kind], _call(xp, fn, axis)
        rt = x._data.rt
        for k in (int(v) for v in every.split(",")):
            def loop():
                keep = []
                t0 = time.perf_counter()
                for i in range(inner):
                    keep.append(f(x))
                    if k and (i + 1) % k == 0:
                        rt.flush()
                t1 = time.perf_counter()
                rt.wait()
                return t1 - t0, time.perf_counter() - t1
            loop()
            runs = sorted((loop() for _ in range(reps)), key=sum)
            host, sync = runs[len(runs) // 2]
            print(f"| {name} | {k or 'at the sync'} | {host / inner * 1e6:.1f} | "
                  f"{sync / inner * 1e6:.1f} | {(host + sync) / inner * 1e6:.1f} |")


def _call(mod, name: str, axis):
    f = getattr(mod, name)
    return (lambda a: f(a)) if axis is None else (lambda a: f(a, axis=axis))


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--size", type=int, default=1 << 20, help="vector length")
    p.add_argument("--side", type=int, default=1024, help="matrix side")
    p.add_argument("--dtype", default="float32")
    p.add_argument("--reps", type=int, default=5)
    p.add_argument("--inner", type=int, default=20)
    p.add_argument("--device", default=None, help="the WebGPU device (default webgpu:0)")
    p.add_argument("--rows", default=",".join(ROWS), help="comma-separated row names")
    p.add_argument("--breakdown", action="store_true", help="WebGPU rows: device µs, "
                   "host µs and dispatches per call (pass timestamps)")
    p.add_argument("--submit-every", default="", help="comma-separated K: WebGPU rows "
                   "again, the batch submitted every K calls (0: at the sync)")
    _results.add_flag(p)
    a = p.parse_args()
    stamps = _Timestamps() if a.breakdown else None
    results_page = _results.start(a, "webgpu_reduce", a.device or "webgpu")
    devs = [str(dv) for dv in xp.__array_namespace_info__().devices()]
    wg = a.device or next((dv for dv in devs if dv.startswith("webgpu")), None)
    cp = _cupy()
    numr_devs = [dv for dv in (wg, "cuda:0" if cp and "cuda:0" in devs else None) if dv]
    rng = np.random.default_rng(0)
    host = {"vec": rng.standard_normal(a.size).astype(a.dtype),
            "mat": rng.standard_normal((a.side, a.side)).astype(a.dtype)}
    anchor = "CuPy" if cp else "NumPy (host)"
    print(f"# {a.dtype}, vector {a.size}, matrix {a.side}x{a.side}; devices "
          f"{', '.join(numr_devs)}; anchor {anchor}; {a.inner} calls back to back, "
          f"median of {a.reps}")
    arrays = {dv: {k: xp.asarray(v, device=dv) for k, v in host.items()} for dv in numr_devs}
    copy_gbs = {}  # (device, kind) -> GB/s of a copy, read + write
    for dv in numr_devs:
        for k, v in arrays[dv].items():
            t = timed(lambda v=v: xp.asarray(v, copy=True), sync_numr, a.reps, a.inner)
            copy_gbs[dv, k] = 2 * host[k].nbytes / t / 1e9
    if cp:
        dev_arr = {k: cp.asarray(v) for k, v in host.items()}
        for k, v in dev_arr.items():
            t = timed(lambda v=v: v.copy(), lambda y: cp.cuda.Device().synchronize(),
                      a.reps, a.inner)
            copy_gbs["cupy", k] = 2 * host[k].nbytes / t / 1e9
    split = [dv for dv in numr_devs if stamps and dv.startswith("webgpu")]
    cols = " | ".join(f"{dv} / {anchor} | {dv} GB/s (% copy)" for dv in numr_devs)
    cols += "".join(f" | {dv} device µs | {dv} host µs | {dv} dispatches" for dv in split)
    if split and cp:
        cols += " | CuPy device µs"
    print(f"| row | {anchor} | {cols} |")
    print("|---|---:|" + "---:|---:|" * len(numr_devs) + "---:|---:|---:|" * len(split) +
          ("---:|" if split and cp else ""))
    for name in a.rows.split(","):
        kind, fn, axis = ROWS[name.strip()]
        nbytes = host[kind].nbytes
        if cp:
            ta = timed(lambda: _call(cp, fn, axis)(dev_arr[kind]),
                       lambda y: cp.cuda.Device().synchronize(), a.reps, a.inner)
            ref = f"{ta * 1e6:.1f} µs ({nbytes / ta / 1e9 / copy_gbs['cupy', kind]:.0%} copy)"
        else:
            ta = timed(lambda: _call(np, fn, axis)(host[kind]), lambda y: None,
                       a.reps, max(1, a.inner // 4))
            ref = f"{ta * 1e6:.1f} µs"
        want = _call(np, fn, axis)(host[kind].astype(np.float64)
                                   if fn in ("sum", "mean") else host[kind])
        cells = []
        for dv in numr_devs:
            x = arrays[dv][kind]
            f = _call(xp, fn, axis)
            got = np.asarray(f(x).to_device("cpu")).astype(np.float64)
            if not np.allclose(got, want, rtol=1e-3, atol=1e-3 * np.sqrt(nbytes)):
                raise AssertionError(f"{name} on {dv}: wrong result")
            t = timed(lambda: f(x), sync_numr, a.reps, a.inner)
            gbs = nbytes / t / 1e9
            copy = copy_gbs["cupy" if cp else dv, kind]
            cells.append(f"{t / ta:.2f} ({t * 1e6:.1f} µs) | {gbs:.1f} ({gbs / copy:.0%})")
        for dv in split:
            x, f = arrays[dv][kind], _call(xp, fn, axis)
            rt = x._data.rt
            d0 = rt.stats["dispatches"]
            dev = stamps.device_us(rt, lambda: f(x), a.inner)
            disp = (rt.stats["dispatches"] - d0) / (a.inner + 1)
            cells.append(f"{dev:.1f} | {_host_us(lambda: f(x), a.reps, a.inner):.1f} | "
                         f"{disp:.0f}")
        if split and cp:
            g = _call(cp, fn, axis)
            e0, e1 = cp.cuda.Event(), cp.cuda.Event()
            g(dev_arr[kind])
            e0.record()
            for _ in range(a.inner):
                g(dev_arr[kind])
            e1.record()
            e1.synchronize()
            cells.append(f"{cp.cuda.get_elapsed_time(e0, e1) * 1e3 / a.inner:.1f}")
        print(f"| {name} | {ref} | {' | '.join(cells)} |")
    print("copy GB/s: " + ", ".join(f"{k[0]} {k[1]} {v:.1f}" for k, v in copy_gbs.items()))
    if a.submit_every and wg:
        _submit_table(a.rows, arrays[wg], a.submit_every, a.reps, a.inner)
    results_page.finish()


if __name__ == "__main__":
    main()
